#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mutate-test.sh: host test of make mutate's process (scripts/mutate.sh,
# scripts/mutations.py), with no kernel: a copy of the scripts in a
# temporary repository with a list of its own, a fake kunit.sh
# (MMRS_KUNIT_SH) that fails the cases a marker in the sources asks for, and
# a fake prepare-tree.sh (MMRS_PREPARE_SH) that copies patches/ into a fake
# tree, which the fake kunit.sh reads. Checks: a failing baseline aborts
# with nothing mutated; killed, survived, broken-build, a splat kill, an
# arch-tagged mutation skipped on the other architecture, an equivalent one
# not run; a patch mutation reaches the tree and the tree is prepared again
# afterwards; every file is restored, also after SIGINT and SIGTERM in the
# middle of a run; the JSON records, the sample (deterministic, arch-aware,
# --baseline-from), summary.sh's line and docs/mutations.md; a verdict
# measured before its file's last change shown stale, and --stale measuring
# again exactly those without a current verdict; a full run in sittings
# (--resume) cut short and gone on with, refused where its inputs changed.
# Used by make lint.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
R="$tmp/repo"
mkdir -p "$R/scripts" "$R/mm-rs/anon" "$R/mm-rs/exec_ra" "$R/mm-rs/pt_reclaim" "$R/patches" \
	"$R/docs" "$tmp/tree"
cp "$SRC"/scripts/{mutate.sh,mutations.py,mutations-report.py,mutations-check.py,env.sh,summary.sh} "$R/scripts/"
echo 'fn order() { rule(1); rule(2); rule(3) }' > "$R/mm-rs/anon/order.rs"
echo 'fn exec() { sz(16) }' > "$R/mm-rs/exec_ra/order.rs"
echo 'fn zap() { ok() }' > "$R/mm-rs/pt_reclaim/zap.rs"
echo 'int f(int a, int b) { return a + b; }' > "$R/mm-rs/sysfs.c"
printf -- '--- a/mm/khugepaged.c\n+++ b/mm/khugepaged.c\n@@ -1,2 +1,3 @@\n int x;\n+\tflush(1);\n int y;\n' \
	> "$R/patches/0006-fake.patch"
cat > "$R/scripts/mutations.txt" <<'EOF'
# test list
kill-me @@ mm-rs/anon/order.rs @@ rule(1) @@ rule(KILL)
survive-me @@ mm-rs/anon/order.rs @@ rule(2) @@ rule(SURVIVE)
splat-me @@ mm-rs/anon/order.rs @@ rule(3) @@ rule(SPLAT)
arm-only [arm64] @@ mm-rs/exec_ra/order.rs @@ sz(16) @@ sz(KILL)
# equivalent: same-me: addition commutes
same-me @@ mm-rs/sysfs.c @@ a + b @@ b + a
broken-me @@ mm-rs/pt_reclaim/zap.rs @@ ok() @@ BROKEN()
patch-me @@ patches/0006-fake.patch @@ +	flush(1); @@ +	flush(KILL);
EOF
(cd "$R" && find mm-rs patches scripts/mutations.txt -type f -exec md5sum {} + | sort) > "$tmp/pristine"
# A repository of its own: each verdict records the commit it was measured at.
gitc() { git -C "$R" -c user.name=mutate-test -c user.email=mutate-test@localhost "$@"; }
gitc init -q && gitc add -A && gitc commit -qm base || { echo "mutate-test: git init" >&2; exit 1; }

# The fake tree: patches/ copied by the fake prepare-tree.sh.
cat > "$tmp/prepare.sh" <<'EOS'
#!/bin/bash
echo "prepare ${FAKE_BY:-mutate}" >> "$FAKE_DIR/calls"
rm -rf "$FAKE_DIR/tree" && cp -r "$FAKE_REPO/patches" "$FAKE_DIR/tree"
EOS
# The fake kunit.sh: prepares the tree as kunit.sh does, then fails as the
# markers in the sources and the tree say.
cat > "$tmp/kunit.sh" <<'EOS'
#!/bin/bash
echo "kunit $*" >> "$FAKE_DIR/calls"
FAKE_BY=kunit "$MMRS_PREPARE_SH"
src=$(cat "$FAKE_REPO"/mm-rs/*/*.rs "$FAKE_REPO"/mm-rs/*.c "$FAKE_DIR"/tree/*)
case "$src" in *SLEEP*) echo $$ > "$FAKE_DIR/sleeping"; exec sleep 60 ;; esac
# a change to the repository while a sitting runs
[ ! -f "$FAKE_DIR/edit-during" ] || echo '// edited during a sitting' >> "$FAKE_REPO/mm-rs/sysfs.c"
if [ -f "$FAKE_DIR/sleep-on-survive" ] && [[ $src == *SURVIVE* ]]; then
	echo $$ > "$FAKE_DIR/sleeping"
	exec sleep 60
fi
pass='{"name": "KUnit Test Group", "sub_groups": [{"name": "mm_rs_anon_order", "sub_groups": [], "test_cases": [{"name": "allowable_orders_knobs", "status": "PASS"}, {"name": "random_cases", "status": "PASS"}]}], "test_cases": []}'
if [[ $src == *BROKEN* ]]; then
	echo "error[E0425]: cannot find function BROKEN"
	echo "kunit-check: no results: [Errno 2] No such file or directory"
	exit 1
fi
if [ -n "${FAKE_BASELINE_FAIL:-}" ] || [[ $src == *KILL* ]]; then
	echo "${pass/\"allowable_orders_knobs\", \"status\": \"PASS\"/\"allowable_orders_knobs\", \"status\": \"FAIL\"}" > "$MMRS_KUNIT_JSON"
	echo "kunit-check: mm_rs_anon_order.allowable_orders_knobs: FAIL"
	exit 1
fi
echo "$pass" > "$MMRS_KUNIT_JSON"
if [[ $src == *SPLAT* ]]; then
	echo "kunit-check: kernel log: [   12.5] WARNING: CPU: 0 PID: 1 at mm/memory.c:1 x+0x1/0x2"
	exit 1
fi
exit 0
EOS
chmod +x "$tmp/prepare.sh" "$tmp/kunit.sh"

rc=0
fail() { echo "mutate-test: $*" >&2; rc=1; }
export FAKE_DIR=$tmp FAKE_REPO=$R MMRS_KUNIT_SH=$tmp/kunit.sh MMRS_PREPARE_SH=$tmp/prepare.sh \
	MM_RS_BUILD_LOCK=$tmp/lock MMRS_MUTATE_SEED=0123456789abcdef
unset MM_RS_BUILD_LOCKED MMRS_MUTATE_SAMPLE
# mutate ARGS...: runs mutate.sh; sets mrc, out (its stdout) and calls
mutate() {
	rm -f "$tmp/calls"
	out=$("$R/scripts/mutate.sh" "$@" 2>"$tmp/err")
	mrc=$?
	calls=$(cat "$tmp/calls" 2>/dev/null)
}
pristine() {
	(cd "$R" && find mm-rs patches scripts/mutations.txt -type f -exec md5sum {} + | sort) |
		cmp -s - "$tmp/pristine" || fail "$1: the sources are not restored"
	! grep -rq 'KILL\|SLEEP' "$tmp/tree" || fail "$1: the tree still has the patch mutation"
}
verdicts() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(r["name"] + "=" + r["verdict"] for r in d["mutations"]))' "$1"; }

python3 "$R/scripts/mutations-check.py" >/dev/null || fail "mutations-check.py rejects the test list"

# A backup left by an earlier run that did not restore its file: refused,
# named, the backup and the file kept, nothing run.
mkdir -p "$R/build/mutate/x86_64/orig"
cp "$R/mm-rs/anon/order.rs" "$R/build/mutate/x86_64/orig/file"
echo mm-rs/anon/order.rs > "$R/build/mutate/x86_64/orig/path"
cp "$R/mm-rs/anon/order.rs" "$tmp/order.rs.keep"
echo 'fn order() { rule(KILL); rule(2); rule(3) }' > "$R/mm-rs/anon/order.rs"
mutate x86_64
[ "$mrc" = 1 ] && [ -z "$calls" ] && grep -q 'mm-rs/anon/order.rs differs from the backup an earlier run kept' "$tmp/err" &&
	[ -f "$R/build/mutate/x86_64/orig/file" ] ||
	fail "a left-over backup: exit $mrc, calls: $calls, $(head -n 2 "$tmp/err")"
cp "$tmp/order.rs.keep" "$R/mm-rs/anon/order.rs"
rm -rf "$R/build/mutate"

# A failing baseline: nothing mutated, one KUnit run, exit 1.
FAKE_BASELINE_FAIL=1 mutate x86_64
[ "$mrc" = 1 ] && [ "$(grep -c '^kunit' <<< "$calls")" = 1 ] && grep -q 'baseline (unmutated) KUnit run failed' "$tmp/err" ||
	fail "a failing baseline: exit $mrc, calls: $calls"
pristine "a failing baseline"

# The whole list on x86_64.
mutate x86_64
want="kill-me=killed survive-me=survived splat-me=killed arm-only=skipped same-me=equivalent broken-me=broken-build patch-me=killed"
got=$(verdicts "$R/docs/mutations/mutate-x86_64.json")
[ "$got" = "$want" ] || fail "x86_64 verdicts: $got (want $want)"
# Every file restored: no backup stands for a file left mutated.
[ ! -f "$R/build/mutate/x86_64/orig/path" ] || fail "a backup's path left after a clean run"
[ "$mrc" = 1 ] || fail "a survivor and a broken build: exit $mrc, want 1"
grep -q '^kunit x86_64 --timeout=180$' <<< "$calls" || fail "kunit.sh called as: $calls"
# the baseline and 5 mutants; the tree prepared again after the patch mutation
[ "$(grep -c '^kunit' <<< "$calls")" = 6 ] || fail "x86_64: $(grep -c '^kunit' <<< "$calls") KUnit runs, want 6"
[ "$(grep -c '^prepare mutate' <<< "$calls")" = 1 ] && [ "$(tail -n 1 <<< "$calls")" = "prepare mutate" ] ||
	fail "the tree is not prepared again after the patch mutation (the last): $calls"
python3 - "$R/docs/mutations/mutate-x86_64.json" <<'EOP' || fail "the x86_64 record"
import json, sys
d = json.load(open(sys.argv[1]))
r = {m["name"]: m for m in d["mutations"]}
assert d["arch"] == "x86_64" and d["kind"] == "full" and "2 passed" in d["baseline"], d
assert r["kill-me"]["killed_by"] == ["mm_rs_anon_order.allowable_orders_knobs: FAIL"], r["kill-me"]
assert r["splat-me"]["killed_by"][0].startswith("kernel log: "), r["splat-me"]
assert r["kill-me"]["decision"] == "anon order" and r["patch-me"]["decision"] == "pt reclaim"
assert r["same-me"]["why"] == "addition commutes" and r["arm-only"]["why"] == "arm64 only"
assert all(isinstance(m["seconds"], int) for m in d["mutations"])
assert d["counts"]["killed"] == 3 and d["counts"]["survived"] == 1
EOP
pristine "x86_64"
cp "$R/build/mutate/x86_64/baseline.json" "$tmp/base.json"

# arm64 runs the tagged one; some names only, with a flavour.
mutate arm64 arm-only kill-me
[ "$(verdicts "$R/docs/mutations/mutate-arm64.json")" = "kill-me=killed arm-only=killed" ] && [ "$mrc" = 0 ] ||
	fail "arm64 arm-only kill-me: exit $mrc, $(verdicts "$R/docs/mutations/mutate-arm64.json")"
mutate x86_64 --flavour debug kill-me
grep -q '^kunit x86_64 debug --timeout=180$' <<< "$calls" && [ -f "$R/docs/mutations/mutate-x86_64-debug.json" ] ||
	fail "--flavour debug: kunit.sh called as: $calls"
# a run of some names updates their records only, also on a new machine
# (nothing under build/: the records are in the repository)
rm -rf "$R/build/results" "$R/build/mutate"
mutate x86_64 survive-me
[ "$(verdicts "$R/docs/mutations/mutate-x86_64.json")" = "$want" ] || fail "a subset run lost records"
mutate x86_64 no-such-mutation
[ "$mrc" = 2 ] || fail "an unknown mutation: exit $mrc, want 2"
pristine "the subset runs"

# docs/mutations.md
rm -f "$R/docs/mutations/mutate-x86_64-debug.json"
python3 "$R/scripts/mutations-report.py" >/dev/null
md="$R/docs/mutations.md"
grep -qx '| \*\*overall\*\* | 3/5 (60%) | 2/2 (100%) |' "$md" &&
	grep -qx '| pt reclaim | 1/2 (50%) | - |' "$md" &&
	grep -q '^| arm-only \[arm64\] | `mm-rs/exec_ra/order.rs` | skipped | killed at `[0-9a-f]\{7\}` |' "$md" &&
	grep -q '^| same-me | `mm-rs/sysfs.c` | equivalent | equivalent | equivalent: addition commutes |' "$md" &&
	grep -q '^| kill-me | .* | killed at `[0-9a-f]\{7\}` | killed at `[0-9a-f]\{7\}` | x86_64: `mm_rs_anon_order.allowable_orders_knobs: FAIL`' "$md" &&
	grep -q '^  - verdicts: 5 current (measured at 1 commit), 0 stale, 0 reconstructed$' "$md" &&
	grep -q '^- same-me (`mm-rs/sysfs.c`): addition commutes' "$md" ||
	{ fail "docs/mutations.md:"; cat "$md" >&2; }

# The sample: deterministic, never an equivalent or another arch's mutation.
mutate x86_64 --sample 2
s1=$(verdicts "$R/build/results/mutate-sample-x86_64.json")
mutate x86_64 --sample 2
s2=$(verdicts "$R/build/results/mutate-sample-x86_64.json")
[ "$s1" = "$s2" ] && [ "$(wc -w <<< "$s1")" = 2 ] || fail "two samples of one commit: '$s1', '$s2'"
MMRS_MUTATE_SEED=1 mutate x86_64 --sample 9
[ "$(wc -w <<< "$(verdicts "$R/build/results/mutate-sample-x86_64.json")")" = 5 ] ||
	fail "a sample larger than the list: $(verdicts "$R/build/results/mutate-sample-x86_64.json")"
for s in 0 3 5 a c f; do
	MMRS_MUTATE_SEED=$s "$R/scripts/mutate.sh" x86_64 --sample 1 --baseline-from "$tmp/base.json" 2>/dev/null
done | grep -qE '(arm-only|same-me)' && fail "a sample picked an arm64 or equivalent mutation"
# --baseline-from: a passing run is used, not run again; a failing one aborts.
MMRS_MUTATE_SAMPLE=1 mutate x86_64 --baseline-from "$tmp/base.json"
[ "$(grep -c '^kunit' <<< "$calls")" = 1 ] && grep -q 'baseline: .*base.json, 2 passed' <<< "$out" ||
	fail "--baseline-from: calls $calls; $out"
sed -i 's/"PASS"/"FAIL"/' "$tmp/base.json"
mutate x86_64 --sample 2 --baseline-from "$tmp/base.json"
[ "$mrc" = 1 ] && [ -z "$calls" ] || fail "--baseline-from a failed run: exit $mrc, calls: $calls"
# summary.sh's line for the sample
mkdir -p "$R/build/results"
MMRS_MUTATE_SEED=0123456789abcdef mutate x86_64 --sample 2
k=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["counts"]["killed"], d["counts"]["survived"])' \
	"$R/build/results/mutate-sample-x86_64.json")
sum=$("$R/scripts/summary.sh" 2>&1)
grep -q "^summary: mutate sample x86_64: ${k% *} killed, ${k#* } survived" <<< "$sum" ||
	fail "summary.sh: $sum"
pristine "the samples"

# An interrupt in the middle of a run restores the file, and the tree after a
# patch mutation, and stops the KUnit run.
sed -i 's/+\tflush(KILL);$/+\tflush(SLEEP);/; s/rule(KILL)$/rule(SLEEP)/' "$R/scripts/mutations.txt"
(cd "$R" && find mm-rs patches scripts/mutations.txt -type f -exec md5sum {} + | sort) > "$tmp/pristine"
for sig in INT TERM; do
	for m in kill-me patch-me; do
		rm -f "$tmp/sleeping"
		python3 - "$R/scripts/mutate.sh" "$m" "$sig" "$tmp/sleeping" > "$tmp/int.out" 2>&1 <<'EOP'
import os, signal, subprocess, sys, time
# a terminal's Ctrl-C: SIGINT not ignored, whatever this test inherited
p = subprocess.Popen([sys.argv[1], "x86_64", sys.argv[2]], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
for _ in range(300):
    if os.path.exists(sys.argv[4]):
        break
    time.sleep(0.1)
else:
    sys.exit("the mutant never ran")
pid = int(open(sys.argv[4]).read())
p.send_signal(getattr(signal, "SIG" + sys.argv[3]))
rc = p.wait(timeout=30)
time.sleep(0.2)
try:
    os.killpg(pid, 0)
    sys.exit(f"the KUnit run (process group {pid}) still runs")
except ProcessLookupError:
    pass
sys.exit(0 if rc == 130 else f"exit {rc}, want 130")
EOP
		[ $? = 0 ] || fail "SIG$sig during $m: $(cat "$tmp/int.out")"
		pristine "SIG$sig during $m"
	done
done

# After clean runs, an edit of a file they mutated is no left-over backup:
# the next run is not refused for it.
echo '// edited after the runs' >> "$R/mm-rs/anon/order.rs"
FAKE_BASELINE_FAIL=1 mutate x86_64
! grep -q 'differs from the backup' "$tmp/err" ||
	fail "an edit after clean runs: refused as a left-over backup"

# A verdict measured before its file's last change is stale: shown so, with
# both commits, and left out of the kill rate; --stale measures again
# exactly the mutations without a current verdict, and then has nothing to do.
gitc checkout -q -- scripts/mutations.txt
gitc commit -qam 'edit order.rs'
python3 "$R/scripts/mutations-report.py" >/dev/null
grep -q '^| kill-me | `mm-rs/anon/order.rs` | \*\*stale\*\*: killed at `[0-9a-f]\{7\}`, file changed at `[0-9a-f]\{7\}` | \*\*stale\*\*: killed at ' "$md" &&
	grep -q '^| patch-me | .* | killed at `[0-9a-f]\{7\}` |' "$md" &&
	grep -qx '| \*\*overall\*\* | 1/2 (50%), 3 not current | 1/1 (100%), 1 not current |' "$md" &&
	grep -q '^  - verdicts: 2 current (measured at 1 commit), 3 stale, 0 reconstructed$' "$md" ||
	{ fail "docs/mutations.md after an edit of order.rs:"; cat "$md" >&2; }
[ "$(python3 "$R/scripts/mutations.py" freshness "$R" 0123456789abcdef0123456789abcdef01234567 \
	mm-rs/anon/order.rs | cut -f1)" = unknown ] || fail "freshness of a commit not in the repository"
mutate x86_64 --stale
[ "$(grep -c '^kunit' <<< "$calls")" = 4 ] && [ "$mrc" = 1 ] &&
	[ "$(verdicts "$R/docs/mutations/mutate-x86_64.json")" = "$want" ] ||
	fail "--stale after an edit of order.rs: exit $mrc, $(grep -c '^kunit' <<< "$calls") KUnit runs (want 4: the baseline and order.rs's 3), $(verdicts "$R/docs/mutations/mutate-x86_64.json")"
python3 "$R/scripts/mutations-report.py" >/dev/null
grep -q '^| \*\*overall\*\* | 3/5 (60%) | ' "$md" || fail "the kill rate after --stale: $(grep overall "$md")"
gitc add -A docs && gitc commit -qm 'x86_64 measured again'
mutate x86_64 --stale
[ "$mrc" = 0 ] && [ -z "$calls" ] && grep -q 'nothing to measure' <<< "$out" ||
	fail "--stale with every verdict current: exit $mrc, calls: $calls, $out"
# reconstructed is not measured: --stale runs it again, as it runs the stale
# kill-me; with names, only those of them without a current verdict
python3 - "$R/docs/mutations/mutate-arm64.json" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["mutations"]:
    if m["name"] == "arm-only":
        m["reconstructed"] = "from an old report"
json.dump(d, open(sys.argv[1], "w"))
EOP
mutate arm64 --stale kill-me arm-only same-me
[ "$(grep -c '^kunit' <<< "$calls")" = 3 ] && [ "$mrc" = 0 ] ||
	fail "arm64 --stale with kill-me stale and arm-only reconstructed: exit $mrc, calls: $calls"
mutate arm64 --stale kill-me arm-only
[ "$mrc" = 0 ] && [ -z "$calls" ] || fail "arm64 --stale measured again: exit $mrc, calls: $calls"
# without names: those never run on arm64 too (baseline, survive-me, splat-me, broken-me, patch-me)
mutate arm64 --stale
[ "$(grep -c '^kunit' <<< "$calls")" = 5 ] && [ "$mrc" = 1 ] ||
	fail "arm64 --stale with 4 never run: exit $mrc, $(grep -c '^kunit' <<< "$calls") KUnit runs, want 5"
mutate x86_64 --stale --sample 1
[ "$mrc" = 2 ] || fail "--stale --sample: exit $mrc, want 2"
! grep -q 'KILL\|SURVIVE\|SPLAT' "$R/mm-rs/anon/order.rs" || fail "order.rs left mutated by --stale"

# A full run in sittings (--resume): a sitting cut short keeps the verdicts
# it measured (not the one in flight), the next measures the rest at a
# commit that changed only docs/, and the record names the first sitting's
# commit for each; it does not go on, nor begin, where a file outside docs/
# differs (committed, uncommitted, untracked, or changed while it ran),
# where the first commit is not HEAD's ancestor, nor with other tools.
export MMRS_MUTATE_ENV='{"linux-source-6.12": "6.12.999-1", "tools": "one"}'
printf 'build/\n' > "$R/.gitignore"
gitc add -A && gitc commit -qm 'ignore build/'
(cd "$R" && find mm-rs patches scripts/mutations.txt -type f -exec md5sum {} + | sort) > "$tmp/pristine"
first=$(git -C "$R" rev-parse HEAD)
prog="$R/docs/mutations/progress-x86_64.json"
cp "$R/docs/mutations/mutate-x86_64.json" "$tmp/full-before.json"
# interrupted NAME: a --resume sitting stopped by SIGTERM while NAME's KUnit run sleeps
interrupted() {
	rm -f "$tmp/sleeping"
	touch "$tmp/sleep-on-survive"
	"$R/scripts/mutate.sh" x86_64 --resume > "$tmp/res.out" 2> "$tmp/res.err" &
	local p=$! i
	for i in $(seq 300); do [ -f "$tmp/sleeping" ] && break; sleep 0.1; done
	kill -TERM "$p"
	wait "$p"
	mrc=$?
	rm -f "$tmp/sleep-on-survive"
}
interrupted
[ "$mrc" = 130 ] && [ -f "$prog" ] && [ "$(verdicts "$prog")" = "kill-me=killed" ] &&
	grep -q 'stay in docs/mutations/progress-x86_64.json' "$tmp/res.err" &&
	cmp -s "$tmp/full-before.json" "$R/docs/mutations/mutate-x86_64.json" ||
	fail "a sitting cut short: exit $mrc, progress: $(verdicts "$prog" 2>&1), $(cat "$tmp/res.err")"
pristine "a sitting cut short"
python3 "$R/scripts/mutations-report.py" >/dev/null
grep -q "^- x86_64: a full run in sittings, begun at ${first:0:12} on .*, on linux-source-6.12 6.12.999-1: 1 of 5 mutations measured in 1 sitting (" "$md" ||
	fail "docs/mutations.md does not show the run under way: $(grep -n 'sittings' "$md")"
# the next sitting, after a commit of docs/ only: the rest, with a baseline.
# The first sitting dated a day earlier: the record is dated when the run
# began, not when its last sitting did, and says when it ended.
python3 - "$prog" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
d["sittings"][0]["date"] = "2020-01-01T00:00:00Z"
json.dump(d, open(sys.argv[1], "w"))
EOP
echo 'notes' > "$R/docs/notes.md"
gitc add -A docs && gitc commit -qm 'docs only'
mutate x86_64 --resume
[ "$(grep -c '^kunit' <<< "$calls")" = 5 ] && [ "$mrc" = 1 ] && [ ! -f "$prog" ] &&
	grep -q "resuming the run begun at ${first:0:12}: 1 verdicts" <<< "$out" ||
	fail "the second sitting: exit $mrc, $(grep -c '^kunit' <<< "$calls") KUnit runs (want 5: the baseline and 4), $out"
[ "$(verdicts "$R/docs/mutations/mutate-x86_64.json")" = "$want" ] || fail "after two sittings: $(verdicts "$R/docs/mutations/mutate-x86_64.json")"
python3 - "$R/docs/mutations/mutate-x86_64.json" "$first" "$(git -C "$R" rev-parse HEAD)" <<'EOP' ||
import json, sys
d = json.load(open(sys.argv[1]))
first, second = sys.argv[2:4]
assert d["kind"] == "full" and d["commit"] == first, (d["kind"], d["commit"])
assert all(m["commit"] == first for m in d["mutations"]), [m["commit"] for m in d["mutations"]]
assert [m.get("head") for m in d["mutations"]] == [None] + [second] * 6, [m.get("head") for m in d["mutations"]]
assert [s["commit"] for s in d["sittings"]] == [first, second], d["sittings"]
assert [s["verdicts"] for s in d["sittings"]] == [1, 6], d["sittings"]
assert "sitting 1" in d["baseline"] and "2 passed" in d["baseline"].split(";")[1], d["baseline"]
assert all(s["env"] == {"linux-source-6.12": "6.12.999-1", "tools": "one"} for s in d["sittings"]), d["sittings"]
assert d["date"] == "2020-01-01T00:00:00Z", d["date"]
assert d["finished"] == max(m["date"] for m in d["mutations"]) > d["date"], d["finished"]
EOP
	fail "the record of two sittings"
python3 "$R/scripts/mutations-report.py" >/dev/null
grep -q "^- x86_64: full run of 2020-01-01T00:00:00Z to 20[0-9-]*T[0-9:]*Z at ${first:0:12}, .*, in 2 sittings at ${first:0:12}, [0-9a-f]\{12\} (every file outside docs/ as at ${first:0:12}), on linux-source-6.12 6.12.999-1: " "$md" &&
	! grep -q 'a full run in sittings, begun' "$md" ||
	fail "docs/mutations.md after two sittings: $(grep -n 'x86_64' "$md" | head -n 3)"
pristine "two sittings"
# some mutations run again over that record (make mutate MUTATIONS=...,
# STALE=1): the record stays the run in sittings, its sittings, dates and
# inputs kept (a merge once kept five of its keys and dropped these), and
# the report still says so; kill-me recorded as survived first, so that
# the merge must count its new verdict
python3 - "$R/docs/mutations/mutate-x86_64.json" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["mutations"]:
    if m["name"] == "kill-me":
        m["verdict"] = "survived"
d["counts"]["killed"] -= 1
d["counts"]["survived"] += 1
json.dump(d, open(sys.argv[1], "w"), indent=1)
EOP
mutate x86_64 kill-me
python3 - "$R/docs/mutations/mutate-x86_64.json" "$first" <<'EOP' ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "full" and d["commit"] == sys.argv[2], (d["kind"], d["commit"])
assert [s["verdicts"] for s in d.get("sittings", [])] == [1, 6], d.get("sittings")
assert d["date"] == "2020-01-01T00:00:00Z", d["date"]
assert d.get("finished") and d["finished"] < d["updated"][0], (d.get("finished"), d.get("updated"))
assert d.get("inputs") == "every file outside docs/", d.get("inputs")
assert len(d["updated"]) == 1, d["updated"]
# the counts are the merged verdicts' (kill-me's old verdict replaced)
tally = {}
for m in d["mutations"]:
    tally[m["verdict"]] = tally.get(m["verdict"], 0) + 1
assert {k: v for k, v in d["counts"].items() if v} == tally, (d["counts"], tally)
EOP
	fail "a subset run over the record of two sittings: exit $mrc, $(head -c 600 "$R/docs/mutations/mutate-x86_64.json")"
python3 "$R/scripts/mutations-report.py" >/dev/null
grep -q "^- x86_64: full run of 2020-01-01T00:00:00Z to 20[0-9-]*T[0-9:]*Z at ${first:0:12}, .*, in 2 sittings at ${first:0:12}, [0-9a-f]\{12\} (every file outside docs/ as at ${first:0:12}), some mutations run again on 20" "$md" ||
	fail "docs/mutations.md after a subset run over two sittings: $(grep -n 'x86_64' "$md" | head -n 3)"
pristine "a subset run over two sittings"
# every verdict kept but the record not written (a sitting cut short as it
# ended): the next writes it, with no KUnit run and no sitting of its own
python3 - "$R/docs/mutations/mutate-x86_64.json" "$prog" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump({k: d[k] for k in ("arch", "flavour", "kind", "commit", "inputs", "sittings", "mutations")},
          open(sys.argv[2], "w"))
EOP
mutate x86_64 --resume
[ "$mrc" = 1 ] && [ -z "$(grep '^kunit' <<< "$calls")" ] && [ ! -f "$prog" ] &&
	[ "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["sittings"]))' \
		"$R/docs/mutations/mutate-x86_64.json")" = 2 ] ||
	fail "--resume with nothing left to run: exit $mrc, calls: $calls, $(cat "$tmp/err")"
# not begun over a change outside docs/: uncommitted, or a new file (named
# whole, spaces and all)
echo '// uncommitted' >> "$R/mm-rs/sysfs.c"
mutate x86_64 --resume
[ "$mrc" = 1 ] && [ -z "$calls" ] && [ ! -f "$prog" ] && grep -q 'mm-rs/sysfs.c' "$tmp/err" ||
	fail "--resume over an uncommitted change: exit $mrc, calls: $calls, $(cat "$tmp/err")"
gitc checkout -q -- mm-rs/sysfs.c
echo 'fn new() {}' > "$R/mm-rs/a b.rs"
mutate x86_64 --resume
[ "$mrc" = 1 ] && [ -z "$calls" ] && [ ! -f "$prog" ] && grep -q 'changed: mm-rs/a b.rs$' "$tmp/err" ||
	fail "--resume over an untracked file: exit $mrc, calls: $calls, $(cat "$tmp/err")"
rm "$R/mm-rs/a b.rs"
# a change while the sitting runs: the verdict measured over it not kept
touch "$tmp/edit-during"
mutate x86_64 --resume
rm "$tmp/edit-during"
[ "$mrc" = 1 ] && [ "$(verdicts "$prog")" = "" ] &&
	grep -q 'not keeping the last verdict in docs/mutations/progress-x86_64.json: since its first sitting .* mm-rs/sysfs.c changed' "$tmp/err" ||
	fail "a change during a sitting: exit $mrc, kept: $(verdicts "$prog"), $(cat "$tmp/err")"
gitc checkout -q -- mm-rs/sysfs.c
rm -f "$prog"
pristine "a change during a sitting"
# not resumed with other tools, nor where the first commit left the branch
interrupted
[ "$mrc" = 130 ] && [ -f "$prog" ] || fail "a sitting cut short again: exit $mrc"
cp "$prog" "$tmp/prog-before.json"
MMRS_MUTATE_ENV='{"linux-source-6.12": "6.12.999-1", "tools": "two"}' mutate x86_64 --resume
[ "$mrc" = 1 ] && [ -z "$calls" ] && cmp -s "$prog" "$tmp/prog-before.json" &&
	grep -q "ran with other tools: tools: 'one' then, 'two' now" "$tmp/err" ||
	fail "--resume with other tools: exit $mrc, calls: $calls, $(cat "$tmp/err")"
again=$(git -C "$R" rev-parse HEAD)
gitc commit -q --amend -m 'the same tree, rewritten'
mutate x86_64 --resume
[ "$mrc" = 1 ] && [ -z "$calls" ] && grep -q "commit ${again:0:12} is not HEAD or an ancestor of it" "$tmp/err" ||
	fail "--resume after the first commit was rewritten: exit $mrc, calls: $calls, $(cat "$tmp/err")"
gitc reset -q --hard "$again"
# not resumed once a file outside docs/ changed since the first sitting
echo '// edited' >> "$R/mm-rs/anon/order.rs"
gitc commit -qam 'edit order.rs again'
(cd "$R" && find mm-rs patches scripts/mutations.txt -type f -exec md5sum {} + | sort) > "$tmp/pristine"
cp "$prog" "$tmp/prog-before.json"
mutate x86_64 --resume
[ "$mrc" = 1 ] && [ -z "$calls" ] && cmp -s "$prog" "$tmp/prog-before.json" &&
	grep -q 'not resuming docs/mutations/progress-x86_64.json: since its first sitting .* mm-rs/anon/order.rs changed' "$tmp/err" ||
	fail "--resume after order.rs changed: exit $mrc, calls: $calls, $(cat "$tmp/err")"
mutate x86_64 --resume kill-me
[ "$mrc" = 2 ] || fail "--resume with a name: exit $mrc, want 2"
pristine "the refusals"

[ $rc = 0 ] && echo "mutate-test: ok"
exit $rc
