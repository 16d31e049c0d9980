#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# meter-pair-test.sh: scripts/meter-pair.py and bench.py's table of exact
# fault-path instructions on a recorded boot (scripts/testdata/meter/: the
# "mmrs-data bench anon" lines of `bench anon 1` on the x86_64 test kernel
# under the mmrs-meter plugin, mode=insn, and the plugin's log). Each line
# must get its own window's counts; a shifted, missing or doubled window, a
# plugin warning or an id that disagrees must fail. Run by make lint.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
D="$REPO/scripts/testdata/meter"
P="python3 $REPO/scripts/meter-pair.py"
rc=0
fail() { echo "meter-pair-test: $*" >&2; rc=1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

out=$($P "$D/anon-x86_64.log" "$D/anon-x86_64.meter" anon anon_meter) || fail "failed on the recorded boot"
[ "$(grep -c '^mmrs-data bench anon_meter ' <<<"$out")" = 16 ] || fail "not 16 paired lines"
# window 1 is the C path at 4K, window 16 (id 0) Rust's "C order, Rust map" at 64K
grep -qF 'size_kb=4 path=c faults=65537 ns=406597945 ns_per_mib=1588273.2 ns_per_fault=6204.1 window=1 kernel_insns=406346267 user_insns=327690' <<<"$out" ||
	fail "window 1's counts are not on the 4K C line"
grep -q 'size_kb=64 path=.* window=16 kernel_insns=282636004 user_insns=266250$' <<<"$out" ||
	fail "window 16 (id 0) is not paired with the last line"

# a retried boot appends a second run: the last windows are the ones
{ head -n 5 "$D/anon-x86_64.meter"; cat "$D/anon-x86_64.meter"; } > "$t/retried.meter"
out2=$($P "$D/anon-x86_64.log" "$t/retried.meter" anon anon_meter) || fail "failed on a retried boot's log"
[ "$out2" = "$out" ] || fail "a retried boot's log did not give the second run's counts"

# a window missing, the ids shifted, a warning: each fails
grep -v 'window 7 ' "$D/anon-x86_64.meter" > "$t/missing.meter"
if $P "$D/anon-x86_64.log" "$t/missing.meter" anon anon_meter >/dev/null 2>&1; then
	fail "a missing window passed"
fi
sed 's/^mmrs-meter: window 3 /mmrs-meter: window 4 /' "$D/anon-x86_64.meter" > "$t/id.meter"
if $P "$D/anon-x86_64.log" "$t/id.meter" anon anon_meter >/dev/null 2>&1; then
	fail "a window with the wrong id passed"
fi
{ cat "$D/anon-x86_64.meter"; echo "mmrs-meter: warning: window 3 still open at exit"; } > "$t/warn.meter"
if $P "$D/anon-x86_64.log" "$t/warn.meter" anon anon_meter >/dev/null 2>&1; then
	fail "a plugin warning passed"
fi
sed '3d' "$D/anon-x86_64.log" > "$t/gap.log"
if $P "$t/gap.log" "$D/anon-x86_64.meter" anon anon_meter >/dev/null 2>&1; then
	fail "console lines with a window left out passed"
fi

# bench.py: kernel instructions per fault, Rust against C, and the target
table_of() {
	python3 - "$REPO/scripts/bench.py" "$1" <<'EOF'
import runpy, sys
g = runpy.run_path(sys.argv[1], run_name="bench_test")
d = {"anon": [], "mt": [], "ptreclaim": [], "exectext": [], "policy": []}
for line in open(sys.argv[2]):
    w = line.split()[3:]
    d.setdefault("anon_meter", []).append({k: g["num"](v) for k, v in (x.split("=", 1) for x in w)})
print("\n".join(g["anon_meter_markdown"](g["summarise"](d)["anon_meter"])))
EOF
}
echo "$out" > "$t/paired"
table=$(table_of "$t/paired") || fail "bench.py's table failed"
grep -qF '| 4K | 6200.3 | 6101.2 (-1.60%) |' <<<"$table" || fail "the 4K row is not the windows' kernel instructions per fault"
grep -qF 'Target, Rust at most C at every size: met.' <<<"$table" || fail "the target line is wrong"
# Rust's 64K window (15) made dearer than C's: the target is missed, and says where
grep -q 'size_kb=64 path=rust .*window=15' "$D/anon-x86_64.log" || fail "the recorded boot's window 15 is not Rust at 64K"
sed 's/^\(mmrs-meter: window 15 .*kernel_insns=\)[0-9]*/\1290000000/' "$D/anon-x86_64.meter" > "$t/dear.meter"
$P "$D/anon-x86_64.log" "$t/dear.meter" anon anon_meter > "$t/paired2" || fail "pairing the changed log failed"
table=$(table_of "$t/paired2") || fail "bench.py's table failed on the changed log"
grep -qF 'Target, Rust at most C at every size: missed at 64K (+2.57%).' <<<"$table" ||
	fail "a dearer Rust path at 64K did not miss the target: $(grep "^Target" <<<"$table")"
[ $rc = 0 ] && echo "meter-pair-test: ok"
exit $rc
