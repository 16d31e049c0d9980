#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The lints CI runs: rustfmt --check on our Rust, clippy (the kernel's
# CLIPPY=1 build) on the mm-rs crate and the kernel crate with our
# abstractions, checkpatch on our C and on patches/, and the compile-fail
# checks of the abstractions (scripts/compile-fail.sh).
# Any finding in mm-rs's own files fails; findings in the base tree do not.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
mm_rs_build_lock
T="$REPO/build/linux"
L="$REPO/build/lint"
cd "$REPO"
rc=0

mapfile -t rs < <(git ls-files -co --exclude-standard -- '*.rs')
# Kernel C only: userspace/ is ordinary user-space C.
mapfile -t cs < <(git ls-files -co --exclude-standard -- '*.c' '*.h' ':!userspace/')

echo "lint: rustfmt --check (${#rs[@]} files)"
if ! /usr/bin/rustfmt --edition 2021 --config-path "$T/.rustfmt.toml" --check "${rs[@]}"; then
	echo "lint: rustfmt: run 'make fmt' to fix" >&2
	rc=1
fi

echo "lint: checkpatch (${#cs[@]} C files, $(ls patches/*.patch | wc -l) patches)"
# checkpatch runs from inside the tree: run from another git work tree it
# misreads patches. EMBEDDED_FILENAME trips on mm/Kconfig sourcing
# mm/Kconfig.mm_rs; FILE_PATH_CHANGES asks about MAINTAINERS, which a series
# carried out of tree has no entry in; UNKNOWN_COMMIT_ID: the base is Debian's
# source package, without git history, so no mainline commit a message cites
# can be found in it (series-check asks each patch to say so in its notes).
cp_args=(--no-tree --quiet --show-types --strict)
# rust/helpers/mm_rs.c spells always_inline as an attribute: the kernel's
# __always_inline also says "inline", which in C would give the helpers no
# external definition when they are not inlined (CONFIG_RUST_INLINE_HELPERS=n).
# One checkpatch a CPU (each is one perl process; 31 s one at a time on 2
# CPUs), their reports printed in order afterwards.
cpdir=$(mktemp -d)
ncp=0
cp_run() {
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
	( (cd "$T" && perl scripts/checkpatch.pl "${cp_args[@]}" "$@") > "$cpdir/$ncp.out" 2>&1 ||
		touch "$cpdir/$ncp.failed" ) &
	ncp=$((ncp + 1))
}
for f in "${cs[@]}"; do
	ign=SPDX_LICENSE_TAG
	[ "$f" = rust/helpers/mm_rs.c ] && ign=$ign,PREFER_DEFINED_ATTRIBUTE_MACRO
	cp_run --ignore "$ign" -f "$REPO/$f"
done
for p in patches/*.patch; do
	cp_run --ignore EMBEDDED_FILENAME,FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$REPO/$p"
done
wait
for ((i = 0; i < ncp; i++)); do
	cat "$cpdir/$i.out"
	[ ! -e "$cpdir/$i.failed" ] || rc=1
done
rm -rf "$cpdir"

echo "lint: clippy (CLIPPY=1, x86_64)"
mkdir -p "$L"
cp "$REPO/kunit/mm_rs.kunitconfig" "$L/.config.in"
if [ ! -f "$L/.config" ] || ! cmp -s "$L/.config.in" "$L/.config.src"; then
	cp "$L/.config.in" "$L/.config"
	make -s -C "$T" O="$L" ARCH=x86_64 "${MM_RS_MAKE_OPTS[@]}" olddefconfig >/dev/null
	cp "$L/.config.in" "$L/.config.src"
fi
grep -q '^CONFIG_MM_RS=y' "$L/.config" || { echo "lint: CONFIG_MM_RS did not stick in $L/.config" >&2; exit 1; }
log="$L/clippy.log"
if ! make -C "$T" O="$L" ARCH=x86_64 "${MM_RS_MAKE_OPTS[@]}" CLIPPY=1 -j"$(nproc)" \
	rust/ mm/mm_rs/ mm/mm_rs_kunit/ >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "lint: clippy build failed (full log: ${log#$REPO/})" >&2
	rc=1
fi
# Warnings that point into our files (tree paths of the symlinked files).
if grep -B2 -A12 -E '^(warning|error)' "$log" | grep -qE -- '--> .*(mm/mm_rs/|rust/kernel/mm[/.]|mm_rs)'; then
	grep -B2 -A12 -E '^(warning|error)' "$log" >&2
	echo "lint: clippy/rustc warnings in mm-rs code (full log: ${log#$REPO/})" >&2
	rc=1
fi

# The fault and reclaim paths never panic: no panic path may be left in the
# crate's object (an overflow check or an index the compiler could not prove
# in bounds leaves a call to core::panicking).
if [ -f "$L/mm/mm_rs/mm_rs.o" ]; then
	if llvm-nm$MM_RS_LLVM --undefined-only "$L/mm/mm_rs/mm_rs.o" | grep -q panicking; then
		echo "lint: mm/mm_rs/mm_rs.o can panic: it calls" >&2
		llvm-nm$MM_RS_LLVM --undefined-only "$L/mm/mm_rs/mm_rs.o" | grep panicking >&2
		rc=1
	else
		echo "lint: mm/mm_rs/mm_rs.o has no panic path"
	fi
fi

# The C files the patches change, in the two configurations no KUnit kernel
# has: mm-rs off (the off and prod-off baselines) and mm-rs on without KUnit
# (prod). A prototype in <linux/mm_rs.h> against a static definition, say,
# only breaks there (a VISIBLE_IF_KUNIT function is static without KUnit).
echo "lint: the patched C files with mm-rs off, and with mm-rs on without KUnit (x86_64)"
# mm/ and x86's mm/ are built in every configuration; other files only where
# their option is set (paravirt.c).
mapfile -t shim_objs < <(grep -h '^+++ b/.*\.c$' patches/*.patch | sed 's|^+++ b/||; s|\.c$|.o|' |
	grep -e '^mm/' -e '^arch/x86/mm/' | sort -u)
# The off tree is built without Rust: that holds only while no file it
# compiles, nor any header the patches change, reads CONFIG_RUST.
for f in $(grep -h '^+++ b/.*\.[ch]$' patches/*.patch | sed 's|^+++ b/||' |
	   grep -e '^mm/.*\.c$' -e '^arch/x86/mm/.*\.c$' -e '\.h$' | sort -u); do
	if grep -q 'CONFIG_RUST\b' "$T/$f"; then
		echo "lint: $f reads CONFIG_RUST: build/lint-shims-off must keep Rust on" >&2
		rc=1
	fi
done
for v in off nokunit; do
	S="$REPO/build/lint-shims-$v"
	mkdir -p "$S"
	{
		cat "$REPO/kunit/mm_rs.kunitconfig"
		echo "# CONFIG_KUNIT is not set"
		# mm-rs off, and Rust with it: no patched C file reads CONFIG_RUST
		# (checked below), and without Rust the tree's preparation
		# compiles no crate (core and bindings, some 65 s cold).
		[ $v = off ] && { cat "$REPO/configs/off.config"; echo "# CONFIG_RUST is not set"; }
	} > "$S/.config.in"
	if [ ! -f "$S/.config" ] || ! cmp -s "$S/.config.in" "$S/.config.src"; then
		cp "$S/.config.in" "$S/.config"
		make -s -C "$T" O="$S" ARCH=x86_64 "${MM_RS_MAKE_OPTS[@]}" olddefconfig >/dev/null
		cp "$S/.config.in" "$S/.config.src"
	fi
	want=y
	[ $v = off ] && want=n
	if grep -q '^CONFIG_KUNIT=y' "$S/.config" ||
	   { [ $want = y ] && ! grep -q '^CONFIG_MM_RS_ANON_FAULT=y' "$S/.config"; } ||
	   { [ $want = n ] && grep -q '^CONFIG_MM_RS=y' "$S/.config"; }; then
		echo "lint: build/lint-shims-$v/.config is not the configuration it checks" >&2
		rc=1
		continue
	fi
	# mm-rs on needs Rust on, and then the tree's preparation compiles the
	# crates (rust/: core and kernel, some 55 s cold) before any C file,
	# which no C object here needs: "CONFIG_RUST=" on make's command line
	# skips that step (the top Makefile's "ifdef CONFIG_RUST"), while the C
	# files still see the .config's CONFIG_RUST in autoconf.h. The one C
	# flag 6.12's Makefile takes from CONFIG_RUST is CFI's (with
	# CONFIG_CFI_CLANG), which this configuration does not have.
	nr=()
	if [ $v = nokunit ]; then
		if grep -q '^CONFIG_CFI_CLANG=y' "$S/.config"; then
			echo "lint: build/lint-shims-nokunit has CONFIG_CFI_CLANG: its C flags depend on CONFIG_RUST" >&2
			rc=1
			continue
		fi
		nr=(CONFIG_RUST=)
	fi
	if ! make -C "$T" O="$S" ARCH=x86_64 "${MM_RS_MAKE_OPTS[@]}" "${nr[@]}" -j"$(nproc)" \
		"${shim_objs[@]}" >"$S/build.log" 2>&1; then
		grep -E -B2 -A6 'error' "$S/build.log" | head -n 40 >&2
		echo "lint: the patched C files do not build with $v (log: build/lint-shims-$v/build.log)" >&2
		rc=1
	fi
done

# The host test of make mutate's process (45 s, one CPU) runs beside the
# checks below; its report comes at the end.
mtout=$(mktemp)
"$REPO/scripts/mutate-test.sh" > "$mtout" 2>&1 &
mtpid=$!

# The misuses of rust/kernel/mm that must not compile, against the kernel
# crate just built (kunit/compile_fail/).
echo "lint: compile-fail checks of rust/kernel/mm"
"$REPO/scripts/compile-fail.sh" "$L" || rc=1
# The checker itself: each of these must fail it, for the reason named.
cdir=$(mktemp -d)
for f in stale_method:'calls what does not exist' stale_import:'calls what does not exist' \
	 two_errors:'not only with' compiles:'COMPILES'; do
	rm -f "$cdir"/*.rs
	cp "$REPO/scripts/testdata/compile_fail/${f%%:*}.rs" "$cdir/"
	if out=$("$REPO/scripts/compile-fail.sh" "$L" "$cdir" 2>&1) || ! grep -q "${f#*:}" <<< "$out"; then
		echo "lint: compile-fail.sh does not refuse scripts/testdata/compile_fail/${f%%:*}.rs (${f#*:}):" >&2
		printf '%s\n' "$out" | tail -n 3 >&2
		rc=1
	fi
done
rm -rf "$cdir"

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
# any other way (a variable, an address) would not be known.
echo "lint: kunit.sh rerun after QEMU TCG's stale INT3 at a kprobe"
"$REPO/scripts/kunit-retry-test.sh" || rc=1
if other=$(grep -nE 'kp\.(symbol_name|addr|offset) *=|mm_rs_probe\(test,|\bregister_kprobes?\(' "$REPO"/kunit/*.c |
	   grep -vE '(mm_rs_probe\(test, |symbol_name = )"[A-Za-z0-9_]+"|kp\.symbol_name = symbol;|\bregister_kprobe\(&(p|w)->kp\)'); then
	echo "lint: a kprobe in kunit/ that kunit.sh --kprobed cannot name:" >&2
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
rm -f "$kc" "$kc.1"

# make test mutates last: mutate.sh restores a mutant's file with a new
# mtime, so every kernel step after it would first rebuild and relink its
# kernel (102 s of x86_64 prod-debug when the stress steps came after it).
echo "lint: make test's mutation sample is its last kernel step"
steps=$(awk '/^test:/ { t = 1; next } t && /^[^\t]/ { t = 0 }
	t && /scripts\/timed\.sh/ { for (i = 1; i < NF; i++) if ($i ~ /timed\.sh$/) print $(i + 1) }' "$REPO/Makefile")
if [ "$(tail -n 1 <<< "$steps")" != mutate-sample-arm64 ] || [ "$(grep -c '^mutate' <<< "$steps")" != 1 ]; then
	echo "lint: make test's steps end with $(tail -n 1 <<< "$steps"), not its one mutation step:" $steps >&2
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

# The prod kernels against Debian's own configuration (configs/debian-diff.txt
# lists each difference with its reason), and every booted kernel can report
# and detect (configs/required.txt): image.sh refuses one that cannot.
# The three configurations are independent (make's configuration steps are
# one CPU each: 61 and 25 s one after the other, cold): they run at once,
# their reports printed in order.
echo "lint: prod kernels against Debian's configuration (configs/debian-diff.txt)"
cfgdir=$(mktemp -d)
for a in x86_64 arm64; do
	(
		if ! pc=$(MMRS_CONFIG_ONLY=1 "$REPO/scripts/image.sh" "$a" prod 2>"$REPO/build/lint-prodcfg-$a.log" | tail -n 1); then
			echo "lint: configuring the $a prod kernel failed (log: build/lint-prodcfg-$a.log)" >&2
			exit 1
		fi
		python3 "$REPO/scripts/debian-diff.py" check "$a" "$T" "$("$REPO/scripts/debian-config.sh" "$a")" \
			"$pc" "$REPO/configs/debian-diff.txt"
	) > "$cfgdir/$a.out" 2>&1 &
	echo $! > "$cfgdir/$a.pid"
done
# Both detectors off by a last fragment (the buddy hard-lockup detector
# selects the soft-lockup one, so neither goes off alone).
ex=$(mktemp)
printf '# CONFIG_%s is not set\n' HARDLOCKUP_DETECTOR HARDLOCKUP_DETECTOR_PREFER_BUDDY SOFTLOCKUP_DETECTOR > "$ex"
MMRS_CONFIG_ONLY=1 MMRS_CONFIG_EXTRA="$ex" MMRS_IMAGE_OUT="$REPO/build/lint-required" \
	"$REPO/scripts/image.sh" x86_64 test > "$cfgdir/required.out" 2>&1 &
reqpid=$!
for a in x86_64 arm64; do
	wait "$(cat "$cfgdir/$a.pid")" || rc=1
	cat "$cfgdir/$a.out"
done
dl=$(mktemp)
grep -v '^all CONFIG_ANON_VMA_NAME ' "$REPO/configs/debian-diff.txt" > "$dl"
if out=$(python3 "$REPO/scripts/debian-diff.py" check x86_64 "$T" "$("$REPO/scripts/debian-config.sh" x86_64)" \
		"$REPO/build/image-x86_64-prod/.config" "$dl") ||
   ! grep -q 'CONFIG_ANON_VMA_NAME is y in prod, n in Debian' <<< "$out"; then
	echo "lint: debian-diff.py takes a difference that its list does not give (got: $out)" >&2
	rc=1
fi
rm -f "$dl"
echo "lint: image.sh refuses a kernel without the soft- and hard-lockup detectors"
wait "$reqpid"
reqrc=$?
out=$(cat "$cfgdir/required.out")
if [ "$reqrc" = 0 ] ||
   ! grep -q 'lacks CONFIG_SOFTLOCKUP_DETECTOR=y (configs/required.txt)' <<< "$out" ||
   ! grep -q 'lacks CONFIG_HARDLOCKUP_DETECTOR=y (configs/required.txt)' <<< "$out" ||
   ! grep -q 'lacks CONFIG_HARDLOCKUP_DETECTOR_BUDDY=y (configs/required.txt)' <<< "$out"; then
	echo "lint: image.sh took a kernel without the lockup detectors (got: $(tail -n 3 <<< "$out"))" >&2
	rc=1
fi
rm -f "$ex"
rm -rf "$cfgdir"

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

echo "lint: docs/*.rst parse without a warning (docutils)"
/usr/bin/python3 "$REPO/scripts/rst-check.py" "$REPO"/docs/*.rst || rc=1

# make mutate's process (baseline, arch tags, equivalents, records, sample,
# restoring on an interrupt) with a fake kunit.sh: no kernel.
echo "lint: make mutate's process (fake kunit.sh, run beside the checks above)"
wait "$mtpid" || rc=1
cat "$mtout"
rm -f "$mtout"

[ $rc = 0 ] && echo "lint: ok" || echo "lint: FAILED" >&2
exit $rc
