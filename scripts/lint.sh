#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The lints CI runs: rustfmt --check on our Rust, clippy (the kernel's
# CLIPPY=1 build) on the mm-rs crate and the kernel crate with our
# abstractions, checkpatch on our C and on patches/, and the compile-fail
# checks of the abstractions (scripts/compile-fail.sh); the configurations
# of the prod kernels against Debian's; and, beside these, the host-only
# checks of scripts/lint-host.sh.
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

# make test runs series-check beside lint: its checkpatch --strict of the
# whole series covers these files and patches (every warning explained in
# the patch's notes, where this run ignores a few types), so make test skips
# this one (MMRS_LINT_SERIES_CHECKPATCH=1).
if [ -n "${MMRS_LINT_SERIES_CHECKPATCH:-}" ]; then
	echo "lint: checkpatch: left to series-check beside (the series holds these ${#cs[@]} C files and $(ls patches/*.patch | wc -l) patches)"
	cs=()
	cp_skip=1
else
	cp_skip=
	echo "lint: checkpatch (${#cs[@]} C files, $(ls patches/*.patch | wc -l) patches)"
fi
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
	[ -z "$cp_skip" ] || break
	cp_run --ignore EMBEDDED_FILENAME,FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$REPO/$p"
done
wait
for ((i = 0; i < ncp; i++)); do
	cat "$cpdir/$i.out"
	[ ! -e "$cpdir/$i.failed" ] || rc=1
done
rm -rf "$cpdir"

# The host-only checks (scripts/lint-host.sh: no kernel tree, no build lock)
# run beside the builds below (started after checkpatch, whose bare wait
# would wait for them too): rustc compiles the crates one at a time, and
# the configuration steps are one CPU each, so a CPU would be idle. Their
# report is printed after these.
mm_rs_beside "$REPO/scripts/lint-host.sh"
host=$MM_RS_BESIDE

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

echo "lint: the host checks (scripts/lint-host.sh, run beside the builds above)"
mm_rs_beside_wait "$host" || rc=1

[ $rc = 0 ] && echo "lint: ok" || echo "lint: FAILED" >&2
exit $rc
