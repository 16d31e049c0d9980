#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# workload-report-test.sh: scripts/workload-report.py on logs of the
# format W=bench writes (scripts/testdata/workload/: two rounds on arm64 and
# a W=bench-tlb round, each with its mmrs-meter windows and verdict file,
# and a recorded W=hugetlb run). The /proc/vmstat lines are a recorded
# arm64 run's; the window counts are made up, round figures chosen so that
# the test can tell which run a row comes from and what a target says:
# the figures it must print, the targets, the raw JSON, and every log it
# must refuse. Run by make lint.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
D="$REPO/scripts/testdata/workload"
W="python3 $REPO/scripts/workload-report.py"
rc=0
fail() { echo "workload-report-test: $*" >&2; rc=1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# copy LOG NAME [SED]: LOG with its .meter and .verdict as $t/NAME.*, the
# console log edited by SED
copy() {
	local b=${1%.log}
	sed "${3:-}" "$1" > "$t/$2.log"
	cp "$b.meter" "$t/$2.meter"
	cp "$b.verdict" "$t/$2.verdict"
}

out=$($W --tlb "$D/bench-tlb-arm64.log" --hugetlb "k=$D/hugetlb.log" "$D/bench-arm64.log") ||
	fail "failed on the recorded logs"
grep -qF '#### arm64 (2 rounds; each row the run with the median kernel instructions)' <<<"$out" ||
	fail "no arm64 heading with its round count"
grep -qF 'Every compile wrote the same 15 objects (sha256 of their hashes `3f1e2d9c8b7a6f5e`).' <<<"$out" ||
	fail "the objects' hash is not reported"
# each row is one run (its round), kernel and user instructions against mthp-4k's row
grep -qF '| auto | 2 | 18,600.0 | -30.2% | 0.21% | 47,050.0 | +0.1% | 41.8 | 54,162 | 308 | 173,284 | 12,229 |' <<<"$out" ||
	fail "the auto compile row is not round 2's figures"
grep -qF '| exec-ra-off | 1 | 29,200.0 | +9.7% |' <<<"$out" || fail "no exec-ra-off row inside the rounds"
# minor faults (pgfault less pgmajfault), then major faults
grep -qF '| mthp-64k | 2 | 149.0 | -6.3% | 0.67% | 7,900.0 | +0.0% | 6,219 | 3 | 89,600 | 3,960 |' <<<"$out" ||
	fail "the python mthp-64k row is wrong"
# the TLB table from the W=bench-tlb run
# iTLB MPKI user then kernel, dTLB MPKI user then kernel
grep -qF '| exec-ra-off | 4,100.0 | +241.7% | 0.086 | 0.014 | 9,050.0 | +0.6% | 0.191 | 0.155 | 300.0 | 22244 | 4.6% | 9.2% |' <<<"$out" ||
	fail "the exec-ra-off TLB row is wrong"
grep -qF 'TLB model `n1` (W=bench-tlb' <<<"$out" || fail "the TLB table does not name its model"
# The vCPUs come from the kernel's own line, not from a typed "-smp 2".
grep -qF "The guest's vCPUs are not in the log." <<<"$out" ||
	fail "a log without the kernel's smp line is given a vCPU count"
copy "$D/bench-arm64.log" smp '1i smp: Brought up 1 node, 1 CPU'
grep -qF 'The guest had 1 vCPU (`-smp 1`' <<<"$($W "$t/smp.log")" ||
	fail "the vCPU count of the kernel's smp line is not in the table"
# the targets, with their figures
grep -qF -- '- compile, auto against mthp-4k: kernel instructions -30.2% (target at most -30%: met); user instructions +0.13% (target within 1%: met).' <<<"$out" ||
	fail "the kernel-instruction target line is wrong"
grep -qF -- '- compile, modelled dTLB misses (user), mthp-64k against mthp-4k: -32.2% (fewer).' <<<"$out" ||
	fail "the dTLB line is wrong"
grep -qF -- 'exec readahead on (mthp-4k) against off (exec-ra-off): -70.7% (target at most -50%: met).' <<<"$out" ||
	fail "the iTLB target line is wrong"
grep -qF '| k | 62 | 96 | x1.55 | 94 | 118 | x1.26 |' <<<"$out" || fail "the hugetlb medians are wrong"
# a TLB round with another tlb_min is named so, and not mixed with the rule of 16
copy "$D/bench-tlb-arm64.log" tmin
sed -i 's/ tlb_min=16 / tlb_min=1 /' "$t/tmin.meter"
grep -qF 'TLB model `n1,tlb_min=1` (W=bench-tlb' <<<"$($W --tlb "$t/tmin.log" "$D/bench-arm64.log")" ||
	fail "a TLB round with tlb_min=1 is not named with it"
! $W --tlb "$t/tmin.log" --tlb "$D/bench-tlb-arm64.log" "$D/bench-arm64.log" >/dev/null 2>&1 ||
	fail "TLB rounds with tlb_min 1 and 16 are put in one table"
# a TLB round of the plugin before tlb_drop (it kept learned 4K entries, which
# shadowed large ones) is named so, and its iTLB target is not judged
copy "$D/bench-tlb-arm64.log" tdrop
sed -i 's/ tlb_drop=1 / /' "$t/tdrop.meter"
out2=$($W --tlb "$t/tdrop.log" "$D/bench-arm64.log") || fail "failed on a TLB round without tlb_drop"
grep -qF 'TLB model `n1,learned-4k-kept` (W=bench-tlb' <<<"$out2" ||
	fail "a TLB round without tlb_drop is not named so"
grep -qF -- 'against off (exec-ra-off): -70.7% (target at most -50%: not judged: measured with the TLB model that kept learned 4K entries' <<<"$out2" ||
	fail "the iTLB target of a TLB round without tlb_drop is judged: $(grep -F 'exec-ra-off): ' <<<"$out2")"
! $W --tlb "$t/tdrop.log" --tlb "$D/bench-tlb-arm64.log" "$D/bench-arm64.log" >/dev/null 2>&1 ||
	fail "TLB rounds with and without tlb_drop are put in one table"
# a TLB round whose user entries came from the guest's page tables (tlb_src=pt)
# is named so, is judged, and is not mixed with the inferred model; one whose
# plugin could not read guest RAM, or whose calibrations disagreed, is refused
copy "$D/bench-tlb-arm64.log" tpt
sed -i 's/ tlb_drop=1 / tlb_drop=1 tlb_src=pt /; /^mmrs-meter: total/s/$/ pt_ready=1 pt_ram=0x40000000-0x100000000 pt_calib=3 pt_calib_bad=0 pt_cont_stores=9 pt_huge_stores=0 pt_walk_4k=1 pt_walk_64k=1 pt_walk_2m=0 pt_walk_blind=0/' "$t/tpt.meter"
out2=$($W --tlb "$t/tpt.log" "$D/bench-arm64.log") || fail "failed on a TLB round with tlb_src=pt"
grep -qF 'TLB model `n1,pt` (W=bench-tlb' <<<"$out2" || fail "a TLB round with tlb_src=pt is not named so"
grep -qF -- 'against off (exec-ra-off): -70.7% (target at most -50%: met).' <<<"$out2" ||
	fail "the iTLB target of a tlb_src=pt round is not judged"
! $W --tlb "$t/tpt.log" --tlb "$D/bench-tlb-arm64.log" "$D/bench-arm64.log" >/dev/null 2>&1 ||
	fail "TLB rounds with tlb_src=pt and without are put in one table"
for bad in 's/ pt_ready=1 / pt_ready=0 /' 's/ pt_calib_bad=0 / pt_calib_bad=2 /' 's/ pt_ready=1 //' \
	's/ pt_ram=0x40000000-/ pt_ram=0x80000000-/' 's/ pt_cont_stores=9 / pt_cont_stores=0 /' \
	'3s/$/ pt_walk_blind=1/'; do
	copy "$D/bench-tlb-arm64.log" tptbad
	cp "$t/tpt.meter" "$t/tptbad.meter"
	sed -i "$bad" "$t/tptbad.meter"
	! $W --tlb "$t/tptbad.log" "$D/bench-arm64.log" >/dev/null 2>&1 ||
		fail "a tlb_src=pt round is taken after '$bad' on its meter"
done
# where the iTLB misses are left (windows 1 and 9 of the TLB meter carry the split;
# window 1 has 2M refills too, which count as large)
grep -qF -- '- compile, the user iTLB misses left with exec readahead on (mthp-4k): 95.0% on text the model covered with a 64K or 2M entry, 5.0% on text in 4K pages (exec-ra-off: 8.0% and 92.0%); their page walks (user) 30.0 K against 120.0 K (-75.0%).' <<<"$out" ||
	fail "the iTLB split line is wrong"
copy "$D/bench-tlb-arm64.log" tlbsum
sed -i '9s/itlb_miss_u_64k=328000/itlb_miss_u_64k=328001/' "$t/tlbsum.meter"
! $W --tlb "$t/tlbsum.log" "$D/bench-arm64.log" >/dev/null 2>&1 ||
	fail "a meter whose iTLB split does not add up is taken"
copy "$D/bench-tlb-arm64.log" tlbold
sed -i 's/ itlb_walk_k=.*//' "$t/tlbold.meter"
grep -q 'iTLB misses left' <<<"$($W --tlb "$t/tlbold.log" "$D/bench-arm64.log")" &&
	fail "a meter without the iTLB split gets a split line"

# a missed target says so
copy "$D/bench-arm64.log" m
sed -i 's/^\(mmrs-meter: window [0-9]* .*kernel_insns=\)186\([0-9]\{8\}\)/\1200\2/' "$t/m.meter"
out=$($W "$t/m.log") || fail "failed on the changed windows"
grep -qF 'kernel instructions -24.9% (target at most -30%: missed)' <<<"$out" ||
	fail "auto at -24.9% did not miss the target: $(grep -F 'auto against' <<<"$out")"

# the raw runs, with the commit
$W --json-dir "$t" --tlb "$D/bench-tlb-arm64.log" "$D/bench-arm64.log" >/dev/null || fail "--json-dir failed"
python3 - "$t/real-arm64.json" <<'PY' || fail "the raw JSON is not every run"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["commits"] == ["0123456789ab"], j["commits"]
assert len(j["runs"]) == 20 and len(j["tlb_runs"]) == 10, (len(j["runs"]), len(j["tlb_runs"]))
r = [x for x in j["runs"] if x["label"] == "compile-auto" and x["round"] == 1][0]
assert r["meter"]["kernel_insns"] == "18640001234", r["meter"]
assert j["tlb"] == "n1"
PY

# --out keeps what it has of architectures without a log in this run, and
# its hugetlb table when no --hugetlb is given
$W --out "$t/r.md" --hugetlb "k=$D/hugetlb.log" "$D/bench-arm64.log" || fail "--out failed"
cp "$t/r.md" "$t/r0.md"
copy "$D/bench-arm64.log" x 's/aarch64/x86_64/'
$W --out "$t/r.md" "$t/x.log" || fail "--out with an x86_64 log failed"
grep -qF '#### x86_64 (2 rounds;' "$t/r.md" || fail "--out: no x86_64 table added"
sed -n '/^#### arm64/,/^#### x86_64/p' "$t/r.md" | sed '$d' > "$t/a1"
sed -n '/^#### arm64/,/^### Seed 001/p' "$t/r0.md" | sed '$d' > "$t/a0"
cmp -s "$t/a0" "$t/a1" || fail "--out: the arm64 table was not kept as it was"
grep -qF '| k | 62 | 96 | x1.55 | 94 | 118 | x1.26 |' "$t/r.md" || fail "--out: the hugetlb table was not kept"
grep -qF 'Do not edit:' "$t/r.md" || fail "--out: no preamble"
# a kept hugetlb row stays beside new ones only if it was measured with sleep=off
cp "$D/hugetlb.log" "$t/hj.log"
cp "$D/hugetlb.verdict" "$t/hj.verdict"
$W --out "$t/r.md" --hugetlb "j=$t/hj.log" "$t/x.log" || fail "--out with a second hugetlb log failed"
grep -qF '| k | 62 | 96 |' "$t/r.md" && grep -qF '| j | 62 | 96 |' "$t/r.md" ||
	fail "--out: a kept hugetlb row measured with sleep=off was dropped"
sed -i 's/(`-icount shift=0,sleep=off`,/(`-icount shift=0`,/' "$t/r.md"
$W --out "$t/r.md" --hugetlb "j=$t/hj.log" "$t/x.log" || fail "--out over an old hugetlb table failed"
! grep -qF '| k | 62 | 96 |' "$t/r.md" && grep -qF '| j | 62 | 96 |' "$t/r.md" ||
	fail "--out: a hugetlb row measured without sleep=off was kept beside new ones"
# a row names the boot options that turned the page checks off, and a new
# run of that kernel takes the place of its kept row
{ echo "[    0.000000] Kernel command line: console=ttyS0 norandmaps init_on_alloc=0 mmrs.meter=1"
  cat "$D/hugetlb.log"; } > "$t/ho.log"
cp "$D/hugetlb.verdict" "$t/ho.verdict"
$W --out "$t/r.md" --hugetlb "j=$t/ho.log" "$t/x.log" || fail "--out with a hugetlb log of init_on_alloc=0 failed"
grep -qF '| j (init_on_alloc=0) | 62 | 96 | x1.55 |' "$t/r.md" ||
	fail "--out: the hugetlb row does not name init_on_alloc=0"
$W --out "$t/r.md" --hugetlb "i=$t/ho.log" "$t/x.log" || fail "--out beside a row of init_on_alloc=0 failed"
grep -qF '| j (init_on_alloc=0) | 62 |' "$t/r.md" && grep -qF '| i (init_on_alloc=0) | 62 |' "$t/r.md" ||
	fail "--out: a kept hugetlb row with boot options was dropped"
$W --out "$t/r.md" --hugetlb "j=$t/ho.log" "$t/x.log" || fail "--out over a row of init_on_alloc=0 failed"
[ "$(grep -cF '| j (init_on_alloc=0) |' "$t/r.md")" = 1 ] ||
	fail "--out: a kept hugetlb row with boot options was not replaced by the new run"
# every page-check option of the command line names the row, in its order
{ echo "[    0.000000] Kernel command line: init_on_free=0 norandmaps page_poison=0 xinit_on_alloc=1"
  cat "$D/hugetlb.log"; } > "$t/hp.log"
cp "$D/hugetlb.verdict" "$t/hp.verdict"
# (the report's text in full first: grep -q's early exit would break its pipe)
hp=$($W --hugetlb "p=$t/hp.log")
grep -qF '| p (init_on_free=0, page_poison=0) | 62 |' <<< "$hp" ||
	fail "the hugetlb row does not name init_on_free=0 and page_poison=0 (and only them)"
# a run of only --hugetlb over kept tables that end the file leaves one blank
# line between them
$W --out "$t/rh.md" "$t/x.log" || fail "--out without --hugetlb failed"
$W --out "$t/rh.md" --hugetlb "j=$t/ho.log" || fail "--out with only --hugetlb failed"
grep -qF '| j (init_on_alloc=0) | 62 |' "$t/rh.md" || fail "--out with only --hugetlb: no row"
awk 'NR > 1 && prev == "" && $0 == "" { bad = 1 } { prev = $0 } END { exit bad }' "$t/rh.md" ||
	fail "--out with only --hugetlb: two blank lines in a row"
# make bench's document marks each table of real.md measured on a kernel that could not see
python3 - "$REPO/scripts" "$t/r.md" <<'PY' || fail "bench.py real_blind() marks the wrong tables"
import sys
sys.path.insert(0, sys.argv[1])
import bench
new = open(sys.argv[2]).read().split("\n")
assert not any("could not report" in l for l in bench.real_blind(new)), "a table of the plugin is marked"
old = ["#### arm64 (3 rounds, medians)", "", "| compile | guest time (s) | system (s) |",
       "#### x86_64 (1 round; each row the run with the median kernel instructions)", "",
       "| compile | round | kernel insns (M) |",
       "### Seed 001: allocating and freeing 2 MiB hugetlb pages", "", "(`-icount shift=0`, 4 GiB"]
got = bench.real_blind(old)
marked = [got[i - 2] for i, l in enumerate(got) if "could not report" in l]
assert marked == [old[0], old[6]], marked
PY

# refused: a failed step, a failed or missing verdict, no windows, a window
# that disagrees, a warning of the plugin, different objects, a log without
# bench figures, a TLB log given as a bench log
refuse() {
	local why=$1
	shift
	if $W "$@" >/dev/null 2>&1; then fail "$why was not refused"; fi
}
copy "$D/bench-arm64.log" f 's/compile-arch rc=0/compile-arch rc=2/'
refuse "a failed step" "$t/f.log"
copy "$D/bench-arm64.log" v
echo failed > "$t/v.verdict"
refuse "a failed verdict" "$t/v.log"
rm "$t/v.verdict"
refuse "a log without a verdict file" "$t/v.log"
copy "$D/bench-arm64.log" n
rm "$t/n.meter"
refuse "a log without plugin windows" "$t/n.log"
copy "$D/bench-arm64.log" i
sed -i '0,/^mmrs-meter: window 3 /s//mmrs-meter: window 4 /' "$t/i.meter"
refuse "a window with another id" "$t/i.log"
copy "$D/bench-arm64.log" w
echo "mmrs-meter: warning: window 3 opened again on vcpu 1 before its end" >> "$t/w.meter"
refuse "a plugin warning" "$t/w.log"
copy "$D/bench-arm64.log" o '0,/^mmrs-data objects auto 2 sha256=3f/s//mmrs-data objects auto 2 sha256=4f/'
refuse "a compile that wrote other objects" "$t/o.log"
refuse "a log without W=bench figures" "$D/hugetlb.log"
refuse "a W=bench-tlb log given as W=bench" "$D/bench-tlb-arm64.log"
copy "$D/bench-arm64.log" h
echo failed > "$t/h.verdict"
cp "$D/hugetlb.log" "$t/hh.log"
echo failed > "$t/hh.verdict"
refuse "a hugetlb log whose verdict failed" --hugetlb "k=$t/hh.log" "$D/bench-arm64.log"
# textfolios.py's count of what the TLB model can credit: aligned 64K blocks
# (16 pages) cached at 16 consecutive PFNs from a multiple of 16, nothing else
python3 - "$REPO/userspace/rootfs/guest/textfolios.py" <<'PY' || fail "textfolios.py's contiguous blocks are miscounted"
import runpy, sys
c = runpy.run_path(sys.argv[1], run_name="textfolios_test")["contig_bytes"]
run = {16 + j: 4096 + j for j in range(16)}                 # block 1 at PFN 4096: counted
assert c(run, 16, 4096) == 65536, c(run, 16, 4096)
assert c({16 + j: 4097 + j for j in range(16)}, 16, 4096) == 0  # PFNs not 16-aligned
gap = dict(run); del gap[20]
assert c(gap, 16, 4096) == 0                                # a page not cached
swap = dict(run); swap[20], swap[21] = swap[21], swap[20]
assert c(swap, 16, 4096) == 0                               # two pages out of order
assert c({**run, **{48 + j: 8192 + j for j in range(16)}}, 16, 4096) == 131072
PY
[ $rc = 0 ] && echo "workload-report-test: ok"
exit $rc
