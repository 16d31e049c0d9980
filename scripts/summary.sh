#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The closing lines of `make test`: how long each step took, one line a KUnit
# run, a selftest boot, a stress run, a W=stress workload and a mutation
# sample (make test runs none now), then the wall time since its steps
# began; only results this make test wrote.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
# The total is the wall time since make test began (build/results/test-start),
# what CI measures: steps that run beside others (series beside lint, the arm64
# KUnit kernel's build beside the x86_64 run) would be counted twice in a sum.
if [ -f "$REPO/build/results/times.txt" ]; then
	awk '{ printf "time: %-24s %5ds%s\n", $1, $2, ($3 == 0 ? "" : "  (failed)") }' "$REPO/build/results/times.txt"
	[ ! -f "$REPO/build/results/test-start" ] ||
		printf 'time: %-24s %5ds\n' "total (wall)" $(( $(date +%s) - $(stat -c %Y "$REPO/build/results/test-start") ))
fi
# Each step's result, from the files the steps wrote (a step that did not run
# has none): KUnit runs, selftest boots, stress runs.
# make test touches build/results/test-start first: a result file older than
# that is another run's (a KUnit flavour make test no longer runs, say) and
# is named, not counted.
shopt -s nullglob
files=()
for f in "$REPO"/build/results/kunit-*.json "$REPO"/build/results/selftests-*-test.tap \
	"$REPO"/build/results/stress-*.txt "$REPO"/build/results/mutate-sample-*.json \
	"$REPO"/build/results/workload-*-stress.log; do
	if [ -f "$REPO/build/results/test-start" ] && [ "$f" -ot "$REPO/build/results/test-start" ]; then
		echo "summary: not counted, from an earlier run: ${f#$REPO/}"
		continue
	fi
	files+=("$f")
done
python3 - "${files[@]}" <<'PY'
import json, sys
tp = tf = 0
for path in sys.argv[1:]:
    if path.endswith("-stress.log"):
        # the stock tools (scripts/workload.sh W=stress): its last verdict line
        name = path.rsplit("/", 1)[-1][len("workload-"):-len("-stress.log")]
        v = [l.strip() for l in open(path, errors="replace") if l.startswith("mmrs-workload: stress ")]
        ok = bool(v) and v[-1].endswith(" passed")
        print(f"summary: stress-ng and trinity {name}: {'passed' if ok else 'FAILED'}")
        tp += ok
        tf += not ok
        continue
    if path.rsplit("/", 1)[-1].startswith("mutate-sample-"):
        # make test's rotating mutation sample (scripts/mutate.sh --sample):
        # not tests, so not in the totals; its step fails on a survivor.
        d = json.load(open(path))
        c = d.get("counts", {})
        label = d["arch"] + (f"-{d['flavour']}" if d.get("flavour") else "")
        names = ", ".join(r["name"] for r in d.get("mutations", []))
        print(f"summary: mutate sample {label}: {c.get('killed', 0)} killed, "
              f"{c.get('survived', 0)} survived" + (f" ({names})" if names else ""))
        continue
    if path.endswith(".txt"):
        last = open(path).read().strip().splitlines()[-1:] or ["(empty)"]
        ok = last[0].endswith(": passed")
        print(f"summary: {last[0]}")
        tp += ok
        tf += not ok
        continue
    name = path.rsplit("/", 1)[-1]
    p = f = 0
    if path.endswith(".json"):
        def walk(n):
            global p, f
            for c in n.get("test_cases", []) or []:
                if c.get("status") == "PASS":
                    p += 1
                else:
                    f += 1
            for s in n.get("sub_groups", []) or []:
                walk(s)
        walk(json.load(open(path)))
        label = "kunit " + name[len("kunit-"):-len(".json")]
    else:
        for line in open(path):
            if line.startswith("ok "):
                p += 1
            elif line.startswith("not ok "):
                f += 1
        label = "selftests " + name[len("selftests-"):-len("-test.tap")]
    print(f"summary: {label:<24} {p:4d} passed, {f} failed")
    tp += p
    tf += f
print(f"{tp} passed, {tf} failed")
sys.exit(1 if tf else 0)
PY
