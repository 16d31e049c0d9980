#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The host-only half of `make lint`: checks of the project's scripts,
# checkers and records that build no kernel and take no build lock (fake
# logs, fake kernels, bare-metal plugin guests, Python and shell). Each is
# mostly one CPU; scripts/lint.sh runs this beside its kernel-tree builds
# (clippy, the patched C files, the configurations), whose crates compile
# one at a time and leave a CPU idle, and prints its report after theirs.
# Run alone, it is the same checks.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
T="$REPO/build/linux"
cd "$REPO"
rc=0

# The host test of make mutate's process (45 s, one CPU) runs beside the
# checks below; its report comes at the end.
mm_rs_beside "$REPO/scripts/mutate-test.sh"
mt=$MM_RS_BESIDE

# The C functions mm-rs mirrors must be as they were when the mirrors were
# last reviewed (scripts/drift.py, scripts/mirrors.txt); and the guard must
# see a change: fed a base in which one of them changed, it fails naming it.
echo "lint: drift of the mirrored C functions"
python3 "$REPO/scripts/drift.py" --check || rc=1
dbase=$(mktemp -d)
while read -r f _; do
	case "$f" in ''|\#*) continue ;; esac
	mkdir -p "$dbase/$(dirname "$f")"
	src="$T/.mm-rs/orig/$f"
	[ -f "$src" ] || src="$T/$f"
	cp "$src" "$dbase/$f"
done < "$REPO/scripts/mirrors.txt"
# drift_sees FILE SED WANT WHAT: once FILE of the base copy is edited by
# SED, drift.py must fail and name WANT.
drift_sees() {
	sed -i "$2" "$dbase/$1"
	if out=$(python3 "$REPO/scripts/drift.py" --check --base "$dbase" 2>&1) || ! grep -q "$3" <<< "$out"; then
		echo "lint: scripts/drift.py does not see $4 (got: $out)" >&2
		rc=1
	fi
}
# A 6.12.y-style change inside do_anonymous_page(): one condition more.
drift_sees mm/memory.c \
	'/^static vm_fault_t do_anonymous_page(/,/^}/s/if (vma->vm_flags & VM_SHARED)/if ((vma->vm_flags \& VM_SHARED) || !vma->vm_mm)/' \
	'do_anonymous_page() changed in the base.*mm-rs/anon/fault.rs' 'a changed do_anonymous_page()'
# The change 6.12.117 made to thp_underused(): pages_identical() where it
# scanned for a non-zero byte (memchr_inv()), undone here.
drift_sees mm/huge_memory.c \
	'/^static bool thp_underused(/,/^}/s/if (pages_identical(folio_page(folio, i), ZERO_PAGE(0))) {/if (!memchr_inv(page_address(folio_page(folio, i)), 0, PAGE_SIZE)) {/' \
	'thp_underused() changed in the base.*mm-rs/anon/underused.rs' "6.12.117's change to thp_underused()"
# A macro Rust mirrors: is_ksm_zero_pte() without its pte_dirty() test.
drift_sees include/linux/ksm.h \
	's/^#define is_ksm_zero_pte(pte)\t(is_zero_pfn(pte_pfn(pte)) \&\& pte_dirty(pte))/#define is_ksm_zero_pte(pte)\tis_zero_pfn(pte_pfn(pte))/' \
	'is_ksm_zero_pte() changed in the base.*mm-rs/ksm/unmerge.rs' 'a changed macro (is_ksm_zero_pte())'
# A caller on the path to a mirror: a new check in handle_pte_fault().
drift_sees mm/memory.c \
	'/^static vm_fault_t handle_pte_fault(/,/^}/s/if (!vmf->pte)$/if (!vmf->pte \&\& !(vmf->flags \& FAULT_FLAG_REMOTE))/' \
	'handle_pte_fault() changed in the base.*patches/0003-' 'a new check in a caller (handle_pte_fault())'
rm -rf "$dbase"
# A mirror that is no longer a file (a patch renamed or split) is named too.
dmir=$(mktemp)
sed 's|patches/0015-[^ ]*|patches/0006-no-such-patch.patch|' "$REPO/scripts/mirrors.txt" > "$dmir"
if out=$(python3 "$REPO/scripts/drift.py" --check --mirrors "$dmir" 2>&1) ||
   ! grep -q "collapse_pte_mapped_thp()'s mirror patches/0006-no-such-patch.patch is no file" <<< "$out"; then
	echo "lint: scripts/drift.py does not see a mirror that is no file (got: $out)" >&2
	rc=1
fi
rm -f "$dmir"

# series-check refuses a patch that git did not make: one without a
# diffstat, one whose changed files lack their index lines.
echo "lint: series-check refuses hand-edited patches"
sdir=$(mktemp -d)
hand() {
	printf 'From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n%b\ndiff --git a/x b/x\n%b--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n' "$1" "$2" > "$sdir/0001-x.patch"
	MMRS_SERIES_DIR=$sdir "$REPO/scripts/series-check.sh" 2>&1
}
if out=$(hand "" "index 1111111..2222222 100644\n") || ! grep -q '0001-x.patch has no diffstat' <<< "$out"; then
	echo "lint: series-check takes a patch without a diffstat (got: $out)" >&2
	rc=1
fi
if out=$(hand " x | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n" "") ||
   ! grep -q '0001-x.patch: 1 files changed, 0 with an index line' <<< "$out"; then
	echo "lint: series-check takes a patch without index lines (got: $out)" >&2
	rc=1
fi
rm -rf "$sdir"

# Every mutation of scripts/mutations.txt must still apply (make mutate is
# seldom run; a moved line would only show there).
echo "lint: scripts/mutations.txt"
python3 "$REPO/scripts/mutations-check.py" || rc=1

# No KUnit case may abort holding a lock (mm_rs_kunit.h, MM_RS_ASSERT_MMAP_*):
# its cleanup and the suite would hang until KUnit's timeout. The checker
# must find an assertion under the mmap lock, direct, through a helper and
# after an early-return unlock, and pass the pattern the suites use.
echo "lint: KUnit assertions under a lock"
/usr/bin/python3 "$REPO/scripts/kunit-lock-assert.py" "$REPO"/kunit/*.c || rc=1
kdir=$(mktemp -d)
cat > "$kdir/bad.c" <<'CEOF'
static bool helper(struct kunit *test, pmd_t *pmd)
{
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	return true;
}

static void direct(struct kunit *test)
{
	mmap_read_lock(mm);
	KUNIT_ASSERT_NOT_NULL(test, vma_lookup(mm, 0));
	mmap_read_unlock(mm);
}

static void through(struct kunit *test)
{
	mmap_write_lock(mm);
	helper(test, NULL);
	mmap_write_unlock(mm);
	KUNIT_ASSERT_TRUE(test, true);
}

static void early_return(struct kunit *test)
{
	mmap_read_lock(mm);
	if (!vma_lookup(mm, 0)) {
		mmap_read_unlock(mm);
		return;
	}
	KUNIT_ASSERT_TRUE(test, true);
	mmap_read_unlock(mm);
}
CEOF
cat > "$kdir/good.c" <<'CEOF'
static void ok(struct kunit *test)
{
	mmap_read_lock(mm);
	MM_RS_ASSERT_MMAP_READ(test, vma_lookup(mm, 0), mm);
	mmap_read_unlock(mm);
	KUNIT_ASSERT_TRUE(test, true);
}
CEOF
if [ "$(/usr/bin/python3 "$REPO/scripts/kunit-lock-assert.py" "$kdir/bad.c" 2>/dev/null | wc -l)" != 3 ] ||
   ! /usr/bin/python3 "$REPO/scripts/kunit-lock-assert.py" "$kdir/good.c"; then
	echo "lint: kunit-lock-assert.py does not find the three planted assertions under a lock" >&2
	rc=1
fi
rm -rf "$kdir"

# The debugging changes of make uffd-repeat and make selftests-repeat must
# still apply to the base tree's selftests, and repeat.sh must count.
echo "lint: selftest debugging changes and repeat.sh"
for f in userspace/uffd-debug/uffd-common-debug.diff userspace/selftests-repeat/mremap-test-debug.diff; do
	if ! patch --dry-run --fuzz=0 -s -d "$T/tools/testing/selftests/mm" -p5 < "$REPO/$f" >/dev/null; then
		echo "lint: $f no longer applies to build/linux's selftests" >&2
		rc=1
	fi
done
rdir=$(mktemp -d)
# fails on runs 1 and 3 of 3
if out=$(cd "$rdir" && MMRS_REPEAT_DIR="$rdir" bash "$REPO/userspace/selftests-repeat/repeat.sh" odd 3 \
	sh -c 'n=$(cat c 2>/dev/null || echo 0); echo $((n + 1)) > c; [ $((n % 2)) = 1 ]') ||
   ! grep -qx 'repeat: odd: sh -c .*: 3 runs, 2 failed' <<< "$out" ||
   ! MMRS_REPEAT_DIR="$rdir" bash "$REPO/userspace/selftests-repeat/repeat.sh" ok 2 true | grep -qx 'repeat: ok: true: 2 runs, 0 failed'; then
	echo "lint: userspace/selftests-repeat/repeat.sh does not count failed runs (got: ${out:-nothing})" >&2
	rc=1
fi
rm -rf "$rdir"

# boot.sh boots once more only after QEMU's stale INT3 (scripts/tcg-stale-int3.py).
echo "lint: boot.sh rerun after QEMU TCG's stale INT3"
"$REPO/scripts/boot-retry-test.sh" || rc=1

# kunit.sh runs a KUnit kernel once more only after QEMU's stale INT3 at a
# kprobe the suites placed; it knows them from kunit/*.c, so a kprobe named
# any other way (a variable, an address) would not be known. Each is
# registered by mm_rs_register_kprobe(), which keeps it from being
# jump-optimized (docs/testing.rst): the register_kprobe() calls are its own
# and mm_rs_kprobe_optimizes()'s, the test of its check.
echo "lint: kunit.sh rerun after QEMU TCG's stale INT3 at a kprobe"
"$REPO/scripts/kunit-retry-test.sh" || rc=1
echo "lint: kunit-seeds.sh runs every seed and names each that failed"
"$REPO/scripts/kunit-seeds-test.sh" || rc=1
if other=$(grep -nE 'kp(\.|->)(symbol_name|addr|offset) *=|mm_rs_probe\(test,|\bregister_kprobes?\(' "$REPO"/kunit/*.c |
	   grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*)' |
	   grep -vE '(mm_rs_probe\(test, |symbol_name = )"[A-Za-z0-9_]+"|kp\.symbol_name = symbol;|mm_rs_kunit\.c:[0-9]+:	ret = register_kprobe\(kp\);$'); then
	echo "lint: a kprobe in kunit/ that kunit.sh --kprobed cannot name, or not registered by mm_rs_register_kprobe():" >&2
	echo "$other" >&2
	rc=1
fi

# make test runs x86_64's suites in the prod-debug kernel (kunit.sh x86_64
# prod-debug), which must have every option the kunitconfigs set; kunit.sh
# refuses the boot otherwise, naming each missing line.
echo "lint: kunit.sh names what a prod-debug kernel lacks of the kunitconfigs"
kc=$(mktemp)
grep -hE '^CONFIG_' "$REPO/kunit/mm_rs.kunitconfig" "$REPO/kunit/debug.kunitconfig" > "$kc"
if ! out=$("$REPO/scripts/kunit.sh" --lacks "$kc" kunit/mm_rs.kunitconfig kunit/debug.kunitconfig 2>&1) || [ -n "$out" ]; then
	echo "lint: kunit.sh --lacks refuses a .config with every option (got: $out)" >&2
	rc=1
fi
grep -vx 'CONFIG_KASAN=y' "$kc" > "$kc.1"
if out=$("$REPO/scripts/kunit.sh" --lacks "$kc.1" kunit/mm_rs.kunitconfig kunit/debug.kunitconfig 2>&1) ||
   [ "$out" != 'CONFIG_KASAN=y (kunit/debug.kunitconfig)' ]; then
	echo "lint: kunit.sh --lacks takes a .config without CONFIG_KASAN=y (got: $out)" >&2
	rc=1
fi
# The prod kernels have Debian's voluntary preemption: without
# CONFIG_PREEMPT=y, a kernel with PREEMPT_DYNAMIC passes (kunit.sh boots it
# with preempt=full), one without it does not.
grep -vx 'CONFIG_PREEMPT=y' "$kc" > "$kc.1"
if out=$("$REPO/scripts/kunit.sh" --lacks "$kc.1" kunit/mm_rs.kunitconfig kunit/debug.kunitconfig 2>&1) ||
   [ "$out" != 'CONFIG_PREEMPT=y (kunit/mm_rs.kunitconfig)' ]; then
	echo "lint: kunit.sh --lacks takes a .config without CONFIG_PREEMPT=y or PREEMPT_DYNAMIC (got: $out)" >&2
	rc=1
fi
echo 'CONFIG_PREEMPT_DYNAMIC=y' >> "$kc.1"
if ! out=$("$REPO/scripts/kunit.sh" --lacks "$kc.1" kunit/mm_rs.kunitconfig kunit/debug.kunitconfig 2>&1) || [ -n "$out" ]; then
	echo "lint: kunit.sh --lacks refuses a PREEMPT_DYNAMIC .config without CONFIG_PREEMPT=y (got: $out)" >&2
	rc=1
fi
rm -f "$kc" "$kc.1"

# make test mutates nothing: a sample of one mutant cost 40 s, or some 200 s
# for one of rust/kernel/ (the kernel crate and its doctests rebuilt), which
# the 45-minute budget cannot take; make mutate (check-full) measures them
# all. A mutation step would also have to come last: mutate.sh restores a
# mutant's file with a new mtime, so each kernel step after it would rebuild
# and relink its kernel first (102 s of x86_64 prod-debug).
echo "lint: make test runs no mutation step (make mutate does, in check-full)"
steps=$(awk '/^test:/ { t = 1; next } t && /^[^\t]/ { t = 0 }
	t && /scripts\/(timed|mutate)\.sh/ { for (i = 1; i < NF; i++) if ($i ~ /timed\.sh$/) print $(i + 1); if ($0 ~ /mutate\.sh/) print "mutate.sh" }' "$REPO/Makefile")
if grep -q 'mutate' <<< "$steps"; then
	echo "lint: make test runs a mutation step:" $steps >&2
	rc=1
fi
if ! grep -q '^mutate ARCH=all' <(sed -n '/^check-full:/,/^$/p' "$REPO/Makefile" | grep -o 'mutate ARCH=all'); then
	echo "lint: make check-full does not run make mutate ARCH=all" >&2
	rc=1
fi

# make test's summary counts only the results that run wrote: an older
# kunit-*.json (a flavour make test no longer runs) is named, not counted.
echo "lint: make test's summary counts only its own run's results"
sr=$(mktemp -d)
mkdir -p "$sr/scripts" "$sr/build/results"
cp "$REPO/scripts/summary.sh" "$sr/scripts/"
echo '{"test_cases": [{"name": "a", "status": "FAIL"}]}' > "$sr/build/results/kunit-old.json"
touch -d '1 hour ago' "$sr/build/results/kunit-old.json"
touch -d '1 minute ago' "$sr/build/results/test-start"
echo '{"test_cases": [{"name": "b", "status": "PASS"}]}' > "$sr/build/results/kunit-new.json"
if ! out=$("$sr/scripts/summary.sh" 2>&1) ||
   ! grep -qx 'summary: not counted, from an earlier run: build/results/kunit-old.json' <<< "$out" ||
   [ "$(tail -n 1 <<< "$out")" != '1 passed, 0 failed' ]; then
	echo "lint: summary.sh counted another run's results (got: $out)" >&2
	rc=1
fi
# Its total is the wall time since make test began, not a sum of steps, two
# of which run beside others.
printf 'lint 50 0\nseries 40 0\n' > "$sr/build/results/times.txt"
touch -d '70 seconds ago' "$sr/build/results/test-start"
w=$("$sr/scripts/summary.sh" 2>&1 | sed -n 's/^time: total (wall) *\([0-9]*\)s$/\1/p')
if [ -z "$w" ] || [ "$w" -lt 70 ] || [ "$w" -gt 80 ]; then
	echo "lint: summary.sh's total is not the wall time since test-start (70 s ago; got: ${w:-none})" >&2
	rc=1
fi
rm -rf "$sr"

# No judge of a kernel log passes a splat (scripts/splats.txt) or a failed
# guest program: boot.sh, stress.sh and kunit-check.py on fake logs.
echo "lint: verdicts of boot.sh, stress.sh and kunit-check.py"
"$REPO/scripts/verdict-test.sh" || rc=1

# W=stress's guest side: stress-ng's and trinity's failures fail the workload.
echo "lint: W=stress's verdict in the guest (fake stress-ng and trinity)"
"$REPO/scripts/workload-verdict-test.sh" || rc=1

# make bench-real's tables from recorded W=bench and W=hugetlb logs.
echo "lint: meter-pair.py and the exact fault-path table on a recorded plugin boot"
"$REPO/scripts/meter-pair-test.sh" || rc=1

echo "lint: workload-report.py on recorded logs"
"$REPO/scripts/workload-report-test.sh" || rc=1

# verdict-boot.sh proves boot.sh's console loglevel on a real guest; the
# other scripts that boot a guest must take the same MM_RS_LOGLEVEL, not a
# literal of their own (a literal 4 hid every WARN until 2026-11-26).
echo "lint: every guest command line takes MM_RS_LOGLEVEL (scripts/splats.sh)"
if lit=$(grep -nE 'loglevel=[0-9]' "$REPO"/scripts/*.sh | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#'); then
	echo "lint: a guest command line with its own loglevel, not \$MM_RS_LOGLEVEL:" >&2
	echo "$lit" >&2
	rc=1
fi

# The kept measurements (frag, bench ksm-grid; make bench records them) take
# a console log only from a boot that ended well: each refusal below must
# leave the kept file as it was, and the good log must be kept.
echo "lint: frag-report.py and ksm-grid-report.py record only a boot that ended well"
kb=$(mktemp -d)
kept_ok() { # PROG DATA: the log with every line a good run has
	printf '%s\n' "mmrs-init: running $1" "$2" "mmrs-init: $1 exited 0" "mmrs-init: done"
}
for t in "frag-report frag frag-x86_64.txt mmrs-data frag round=0 phase=fragmented policy=auto ns=1" \
	 "ksm-grid-report bench ksm-grid-x86_64.txt mmrs-data bench ksm round=0 kind=grid-1-1g path=rust ns=1"; do
	read -r tool prog file data <<< "$t"
	kept_ok "$prog" "$data" > "$kb/good.log"
	sed "s/$prog exited 0/$prog exited 1/" "$kb/good.log" > "$kb/failed.log"
	grep -v '^mmrs-init: done$' "$kb/good.log" > "$kb/unfinished.log"
	sed '2i [   12.345678] WARNING: CPU: 0 PID: 1 at mm/memory.c:100 do_anonymous_page+0x10/0x20' \
		"$kb/good.log" > "$kb/splat.log"
	sed '/^mmrs-data/d' "$kb/good.log" > "$kb/empty.log"
	for bad in failed unfinished splat empty; do
		echo "# kept before" > "$kb/$file"
		if MMRS_BENCH_DIR=$kb /usr/bin/python3 "$REPO/scripts/$tool.py" record x86_64 "$kb/$bad.log" c0ffee \
			> /dev/null 2>&1 || [ "$(cat "$kb/$file")" != "# kept before" ]; then
			echo "lint: $tool.py record kept the figures of a boot whose log is $bad" >&2
			rc=1
		fi
	done
	if ! MMRS_BENCH_DIR=$kb /usr/bin/python3 "$REPO/scripts/$tool.py" record x86_64 "$kb/good.log" c0ffee \
		> /dev/null 2>&1 || ! grep -qxF "round=${data##*round=}" "$kb/$file"; then
		echo "lint: $tool.py record refused the log of a boot that ended well" >&2
		rc=1
	fi
done
rm -rf "$kb"

# MMRS_BENCH_KEPT_ONLY names kept measurements only, and not with an update:
# bench.sh refuses both before it builds anything.
echo "lint: bench.sh refuses an unknown MMRS_BENCH_KEPT_ONLY, and one with MMRS_BENCH_UPDATE"
if out=$(MMRS_BENCH_KEPT_ONLY="ksm-grid fragg" "$REPO/scripts/bench.sh" x86_64 2>&1) ||
   ! grep -q "no kept measurement 'fragg'" <<< "$out" ||
   out=$(MMRS_BENCH_KEPT_ONLY=1 MMRS_BENCH_UPDATE=why "$REPO/scripts/bench.sh" x86_64 2>&1) ||
   ! grep -q "do not go together" <<< "$out"; then
	echo "lint: bench.sh took a MMRS_BENCH_KEPT_ONLY it should refuse (got: $(tail -n 1 <<< "$out"))" >&2
	rc=1
fi

# make bench keeps no figure of a run that failed: a program that exited
# non-zero, or a splat in the console, and bench.py refuses the log.
echo "lint: bench.py marks each kind of figure last measured on a kernel that could not see"
if ! /usr/bin/python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import bench
run = {"date": "2026-11-24", "data": {"anon": [1], "mt": [1], "ksm": [1], "policy": []},
       "updates": [{"date": "2026-11-28", "kinds": ["anon"]}, {"date": "2026-11-26", "kinds": ["ksm"]}]}
sys.exit(bench.blind_kinds(run) != ["ksm", "mt"])' "$REPO/scripts"; then
	echo "lint: bench.py blind_kinds() does not name exactly the kinds measured before BLIND_UNTIL" >&2
	rc=1
fi
echo "lint: bench.py marks mt figures that ran on fewer CPUs than threads"
if ! out=$(/usr/bin/python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import bench
mt = {"mt": [1]}
cases = [  # run, marked?
    ({"arch": "x86_64", "data": mt}, True),  # an x86_64 kernel before NR_CPUS=8
    ({"arch": "arm64", "data": mt}, False),
    ({"arch": "x86_64", "data": mt, "mt_cpus": 4}, False),
    ({"arch": "x86_64", "data": mt, "updates": [{"kinds": ["mt"], "mt_cpus": 4}]}, False),
    ({"arch": "x86_64", "data": mt, "mt_cpus": 4, "updates": [{"kinds": ["mt"], "mt_cpus": 2}]}, True),
    ({"arch": "arm64", "data": mt, "updates": [{"kinds": ["mt"], "mt_cpus": 2}]}, True),
    ({"arch": "x86_64", "data": mt, "updates": [{"kinds": ["mt"], "mt_cpus": 4}, {"kinds": ["anon"]}]}, False),
    ({"arch": "x86_64", "data": {"mt": []}}, False),
]
bad = [i for i, (run, want) in enumerate(cases) if bench.mt_too_few_cpus(run) != want]
print(bad)
sys.exit(1 if bad else 0)' "$REPO/scripts" 2>&1); then
	echo "lint: bench.py mt_too_few_cpus() is wrong for cases $out" >&2
	rc=1
fi
# bench mt counts the CPUs it may run on (online and in its affinity), and
# refuses to run more threads than that. Built for the host and run on one
# CPU (taskset), as nobody: a bench that went on could not write the host's
# /sys/kernel/mm knobs.
echo "lint: bench mt refuses more threads than CPUs it may run on"
bm=$(mktemp -d)
if ! gcc -O2 -Wall -Werror -o "$bm/bench" "$REPO/userspace/bench.c" -lpthread 2> "$bm/cc.log"; then
	echo "lint: userspace/bench.c does not build for the host: $(head -n 3 "$bm/cc.log")" >&2
	rc=1
elif out=$(asnobody=(); [ "$(id -u)" != 0 ] || asnobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	   taskset -c 0 "${asnobody[@]}" "$bm/bench" mt 1 2>&1) ||
     ! grep -q 'bench mt: 4 threads need as many CPUs online, and 1 are' <<< "$out" ||
     grep -q 'mmrs-data bench mt' <<< "$out"; then
	echo "lint: bench mt ran four threads on one CPU (got: $(tail -n 2 <<< "$out"))" >&2
	rc=1
fi
rm -rf "$bm"
echo "lint: bench.py refuses the log of a failed run"
bl=$(mktemp -d)
printf 'mmrs-data bench anon size_kb=4 path=c faults=1\nmmrs-init: bench exited 1\nmmrs-init: done\n' > "$bl/exit.log"
printf 'mmrs-data bench anon size_kb=4 path=c faults=1\nmmrs-init: bench exited 0\n%s\nmmrs-init: done\n' \
	'WARNING: CPU: 0 PID: 1 at mm/memory.c:100 f+0x1/0x2' > "$bl/splat.log"
printf 'mmrs-data bench anon size_kb=4 path=c faults=1\nmmrs-init: bench exited 0\nmmrs-init: done\n' > "$bl/ok.log"
for t in exit:"bench exited 1" splat:"a splat: WARNING"; do
	if out=$(python3 "$REPO/scripts/bench.py" x86_64 "$bl/${t%%:*}.log" "$bl/out.json" "$bl/out.md" \
			"bench:anon:3" 2>&1) || ! grep -q "${t#*:}.*nothing kept" <<< "$out" || [ -e "$bl/out.md" ]; then
		echo "lint: bench.py kept the figures of a failed run (${t%%:*}; got: $out)" >&2
		rc=1
	fi
done
if ! out=$(python3 - "$REPO/scripts/bench.py" "$bl/ok.log" 2>&1 <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("bench", sys.argv[1])
b = importlib.util.module_from_spec(spec)
spec.loader.exec_module(b)
b.check_log(sys.argv[2], "bench:anon:3")
PY
); then
	echo "lint: bench.py refused the log of a run that ended well (got: $out)" >&2
	rc=1
fi
# The commit a make bench run measured: bench.sh writes it beside the log
# as the boots start, bench.py keeps it with the figures and prints it.
echo "lint: bench.py keeps the commit a run measured"
echo abc123def456-dirty > "$bl/ok.log.commit"
if ! out=$(python3 - "$REPO/scripts/bench.py" "$bl/ok.log" "$bl/exit.log" "$REPO/docs/bench/x86_64.json" 2>&1 <<'PY'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("bench", sys.argv[1])
b = importlib.util.module_from_spec(spec)
spec.loader.exec_module(b)
assert b.log_commit(sys.argv[2]) == "abc123def456-dirty", b.log_commit(sys.argv[2])
assert b.log_commit(sys.argv[3]) == "unknown", b.log_commit(sys.argv[3])
run = json.load(open(sys.argv[4]))
run["commit"] = b.log_commit(sys.argv[2])
run.setdefault("updates", []).append(dict(run["updates"][-1], commit="0123456789ab"))
md = b.markdown([run])
assert "2026-11-24, commit abc123def456-dirty;" in md, "no run commit"
assert " at commit 0123456789ab with `" in md, "no update commit"
PY
); then
	echo "lint: bench.py lost the commit of a run (got: $out)" >&2
	rc=1
fi
rm -rf "$bl"

# The mmrs-meter QEMU plugin: exact kernel/user instruction counts and the
# TLB model against analytic figures, on bare-metal guests (no kernel).
echo "lint: the QEMU plugin counts known loops exactly (scripts/qemu-plugin-test.sh)"
if ! out=$("$REPO/scripts/qemu-plugin-test.sh" 2>&1) || ! tail -n 1 <<< "$out" | grep -qE '^[1-9][0-9]* passed, 0 failed$'; then
	grep -E '^(FAIL|not ok|qemu-plugin)' <<< "$out" | head -n 5 >&2
	echo "lint: the QEMU plugin test failed: $(tail -n 1 <<< "$out")" >&2
	rc=1
else
	echo "lint: qemu plugin: $(tail -n 1 <<< "$out")"
fi

# What runs beside a kernel-tree build (scripts/env.sh: mm_rs_beside) does
# not hold the build lock: a process it leaves behind must not keep the next
# kernel build waiting (a fake trinity's sleep 60 once did, for a minute).
echo "lint: what runs beside the builds does not hold the build lock"
lk=$(mktemp)
spid=$( (
	unset MM_RS_BUILD_LOCKED
	MM_RS_BUILD_LOCK=$lk mm_rs_build_lock
	mm_rs_beside sleep 30
	echo "${MM_RS_BESIDE%% *}"
) )
# Until the child has closed fd 9 (right after its fork) it shares the lock:
# a leaked descriptor holds it for the whole sleep, so a few seconds' wait
# tells the two apart (flock -n failed once under make test's load).
if ! flock -w 5 "$lk" true; then
	echo "lint: a process started by mm_rs_beside holds the build lock after its caller ended" >&2
	rc=1
fi
kill "$spid" 2>/dev/null
rm -f "$lk"

# make test's steps after its image step name the kernel it built
# (MMRS_IMAGE_BUILT): image.sh prints its path at once, without waiting for
# the build lock (held here, as by another build) and without make; it fails
# if that kernel has no image, and builds as ever for any other flavour.
echo "lint: image.sh takes MMRS_IMAGE_BUILT's kernels as built, and only those"
ib=$(mktemp -d)
mkdir -p "$ib/scripts" "$ib/build/image-x86_64-prod-debug/arch/x86/boot"
cp "$REPO/scripts/image.sh" "$REPO/scripts/env.sh" "$ib/scripts/"
touch "$ib/build/image-x86_64-prod-debug/arch/x86/boot/bzImage"
exec 8>"$ib/lock"
flock 8
if ! out=$(MM_RS_BUILD_LOCK="$ib/lock" MMRS_IMAGE_BUILT="arm64-prod x86_64-prod-debug" \
		timeout 10 "$ib/scripts/image.sh" x86_64 prod-debug 2>&1) ||
   [ "$out" != "$ib/build/image-x86_64-prod-debug/arch/x86/boot/bzImage" ]; then
	echo "lint: image.sh did not take a kernel MMRS_IMAGE_BUILT names as built (got: $out)" >&2
	rc=1
fi
if out=$(MM_RS_BUILD_LOCK="$ib/lock" MMRS_IMAGE_BUILT=arm64-prod timeout 10 "$ib/scripts/image.sh" arm64 prod 2>&1) ||
   ! grep -q 'MMRS_IMAGE_BUILT names arm64-prod, which has no image' <<< "$out"; then
	echo "lint: image.sh took MMRS_IMAGE_BUILT's word for a kernel with no image (got: $out)" >&2
	rc=1
fi
if MM_RS_BUILD_LOCK="$ib/lock" MMRS_IMAGE_BUILT=x86_64-prod timeout 5 "$ib/scripts/image.sh" x86_64 prod-debug >/dev/null 2>&1; then
	echo "lint: image.sh took x86_64-prod-debug as built when MMRS_IMAGE_BUILT names only x86_64-prod" >&2
	rc=1
fi
exec 8>&-
rm -rf "$ib"

# make test's steps run side by side (scripts/beside.sh): either one's
# failure fails the pair, and the one beside is reported after the other.
echo "lint: beside.sh fails when either side fails, and reports both"
while read -r side main want; do
	out=$("$REPO/scripts/beside.sh" side "echo beside-ran; exit $side" -- sh -c "echo main-ran; exit $main" 2>&1)
	got=$?
	[ "$got" = 0 ] || got=1
	if [ "$got" != "$want" ] || [ "$(printf '%s\n' "$out" | tr '\n' ' ')" != "main-ran == side beside-ran " ]; then
		echo "lint: beside.sh with the side exiting $side and the main $main: exit $got, want $want (got: $out)" >&2
		rc=1
	fi
done <<< $'0 0 0\n1 0 1\n0 1 1\n1 1 1'

echo "lint: docs/*.rst parse without a warning (docutils)"
/usr/bin/python3 "$REPO/scripts/rst-check.py" "$REPO"/docs/*.rst || rc=1

# make mutate's process (baseline, arch tags, equivalents, records, sample,
# restoring on an interrupt) with a fake kunit.sh: no kernel.
echo "lint: make mutate's process (fake kunit.sh, run beside the checks above)"
mm_rs_beside_wait "$mt" || rc=1

[ $rc = 0 ] && echo "lint-host: ok" || echo "lint-host: FAILED" >&2
exit $rc
