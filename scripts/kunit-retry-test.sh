#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit-retry-test.sh: host test of kunit.sh's one rerun after QEMU TCG's
# stale INT3 at a kprobe the suites placed, with a fake kunit.py that writes
# a console log of scripts/testdata/ (or a passing run) and its JSON per
# call, and a stand-in vmlinux (scripts/testdata/fake-vmlinux.S). Checks the
# classifier on the kprobe logs, that kunit.sh names the functions the suites
# kprobe and boots with oops=panic panic=-1, that a stale INT3 is run once
# more and passes, that it is rerun only once, and that an INT3 off the kprobe
# address and an arm64 crash are not rerun; and make test's split of build and
# run (MMRS_KUNIT_BUILD_ONLY builds only, it and MMRS_KUNIT_PREBUILT refuse
# the flavour they are not for). Used by make lint.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
D="$REPO/scripts/testdata"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out"
gcc -nostdlib -static -no-pie -Wl,-e,sched_clock_tick -o "$tmp/out/vmlinux" "$D/fake-vmlinux.S" ||
	{ echo "kunit-retry-test: cannot assemble $D/fake-vmlinux.S" >&2; exit 1; }
cat > "$tmp/kunit.py" <<'EOP'
import json, os, sys
# The fixtures named in $FAKE_LOGS in turn, one per call; "ok" passes every
# case a kunitconfig's expect-suite line asks for.
d = os.environ["FAKE_DIR"]
n = int(open(d + "/calls").read()) if os.path.exists(d + "/calls") else 0
open(d + "/calls", "w").write(str(n + 1))
open(d + "/cmds", "a").write(sys.argv[1] + "\n")
args = sys.argv[2:]
if sys.argv[1] == "build":
    sys.exit(0)
opt = lambda k: [a.split("=", 1)[1] for a in args if a.startswith(k + "=")] + \
    [args[i + 1] for i, a in enumerate(args[:-1]) if a == k]
open(d + "/kernel_args", "a").write(" ".join(opt("--kernel_args")) + "\n")
logs = os.environ["FAKE_LOGS"].split()
f = logs[n] if n < len(logs) else "ok"
cases = []
for cfg in opt("--kunitconfig"):
    for line in open(cfg):
        if line.startswith("# expect-suite:"):
            w = line.split(":", 1)[1].split()
            cases.append({"name": w[0], "test_cases": [
                {"name": "c%d" % i, "status": "PASS"} for i in range(int(w[1]) if len(w) > 1 else 1)]})
log = "KTAP version 1\nok 1 mm_rs\n"
if f != "ok":
    log = open(os.path.join(os.environ["FAKE_FIXTURES"], f)).read()
    cases.append({"name": "mm_rs_ksm", "test_cases": [{"name": "crashed", "status": "TEST_CRASHED"}]})
open(opt("--build_dir")[0] + "/test.log", "w").write(log)
json.dump({"name": "", "sub_groups": cases, "test_cases": []}, open(opt("--json")[0], "w"))
sys.exit(0 if f == "ok" else 1)
EOP

rc=0
fail() { echo "kunit-retry-test: $*" >&2; rc=1; }

kprobed=$("$REPO/scripts/kunit.sh" --kprobed | tr '\n' ' ')
for s in handle_mm_fault mm_rs_alloc_anon_folio mm_rs_unmerge_ksm_pages; do
	grep -qw "$s" <<< "$kprobed" || fail "kunit.sh --kprobed does not name $s (got: $kprobed)"
done
# classifier: the INT3 of a kprobe the suites placed, at its kprobe address
python3 "$REPO/scripts/tcg-stale-int3.py" "$D/oops-int3-kprobe.log" "$tmp/out/vmlinux" $kprobed >/dev/null ||
	fail "tcg-stale-int3.py does not recognise oops-int3-kprobe.log with the kprobed functions"
! python3 "$REPO/scripts/tcg-stale-int3.py" "$D/oops-int3-kprobe.log" "$tmp/out/vmlinux" >/dev/null ||
	fail "tcg-stale-int3.py takes an INT3 at a function entry for QEMU's with no kprobe named"
! python3 "$REPO/scripts/tcg-stale-int3.py" "$D/oops-int3-kprobe-off-entry.log" "$tmp/out/vmlinux" $kprobed >/dev/null ||
	fail "tcg-stale-int3.py takes an INT3 past the kprobe address for QEMU's"

# run ARCH LOGS [FLAVOUR]: the fake KUnit run; sets krc and calls
run() {
	rm -f "$tmp/calls" "$tmp/cmds" "$tmp/k.json" "$tmp/kernel_args" "$tmp/out"/test.log* "$tmp/out/tcg-stale-int3.txt"
	FAKE_DIR=$tmp FAKE_FIXTURES=$D FAKE_LOGS=$2 MM_RS_BUILD_LOCKED=1 \
	MMRS_KUNIT_PY="$tmp/kunit.py" MMRS_KUNIT_BUILD_DIR="$tmp/out" MMRS_KUNIT_JSON="$tmp/k.json" \
		"$REPO/scripts/kunit.sh" "$1" ${3:+"$3"} >/dev/null 2>"$tmp/err"
	krc=$?
	calls=$(cat "$tmp/calls" 2>/dev/null || echo 0)
}
run x86_64 "oops-int3-kprobe.log ok"
[ "$krc" = 0 ] && [ "$calls" = 2 ] && [ -f "$tmp/out/test.log.tcg-stale-int3" ] &&
	grep -q 'handle_mm_fault+0x5' "$tmp/out/tcg-stale-int3.txt" ||
	fail "a stale INT3 at a kprobe then a good run: exit $krc after $calls runs (want 0 after 2, first log kept, event counted): $(head -c 600 "$tmp/err")"
grep -qx 'oops=panic panic=-1' "$tmp/kernel_args" ||
	fail "kunit.sh does not boot with oops=panic panic=-1 (kernel args: $(head -n 1 "$tmp/kernel_args"))"
run x86_64 "oops-int3-kprobe.log oops-int3-kprobe.log ok"
[ "$krc" != 0 ] && [ "$calls" = 2 ] ||
	fail "two stale INT3s: exit $krc after $calls runs (want failure after 2)"
run x86_64 "oops-int3-kprobe-off-entry.log ok"
[ "$krc" != 0 ] && [ "$calls" = 1 ] ||
	fail "an INT3 off the kprobe address: exit $krc after $calls runs (want failure after 1)"
run arm64 "oops-int3-kprobe.log ok"
[ "$krc" != 0 ] && [ "$calls" = 1 ] ||
	fail "an arm64 crash: exit $krc after $calls runs (want failure after 1)"
run x86_64 "ok"
[ "$krc" = 0 ] && [ "$calls" = 1 ] || fail "a good run: exit $krc after $calls runs (want 0 after 1): $(head -c 600 "$tmp/err")"
# make test builds the arm64 KUnit kernel beside the x86_64 run: kunit.py
# build once, no run, no result.
MMRS_KUNIT_BUILD_ONLY=1 run arm64 "ok"
[ "$krc" = 0 ] && [ "$(cat "$tmp/cmds" 2>/dev/null)" = build ] && [ ! -e "$tmp/k.json" ] ||
	fail "MMRS_KUNIT_BUILD_ONLY: exit $krc, kunit.py called as: $(tr '\n' ' ' < "$tmp/cmds" 2>/dev/null) (want 0, build once, no JSON): $(head -c 600 "$tmp/err")"
MMRS_KUNIT_BUILD_ONLY=1 run x86_64 "ok" prod-debug
[ "$krc" = 2 ] && [ "$calls" = 0 ] && grep -q 'MMRS_KUNIT_BUILD_ONLY is for' "$tmp/err" ||
	fail "MMRS_KUNIT_BUILD_ONLY with prod-debug: exit $krc after $calls calls (want 2, none): $(head -c 600 "$tmp/err")"
MMRS_KUNIT_PREBUILT=1 run x86_64 "ok"
[ "$krc" = 2 ] && [ "$calls" = 0 ] && grep -q 'MMRS_KUNIT_PREBUILT is for prod-debug' "$tmp/err" ||
	fail "MMRS_KUNIT_PREBUILT without prod-debug: exit $krc after $calls calls (want 2, none): $(head -c 600 "$tmp/err")"
[ $rc = 0 ] && echo "kunit-retry-test: ok"
exit $rc
