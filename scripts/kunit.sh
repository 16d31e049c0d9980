#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh ARCH [FLAVOUR] [extra kunit.py args]
# kunit.sh --kprobed
# kunit.sh --lacks DOTCONFIG KUNITCONFIG...
#
# Builds a KUnit kernel for ARCH (x86_64 or arm64) from kunit/mm_rs.kunitconfig
# (plus kunit/FLAVOUR.kunitconfig for a flavour such as "debug"), runs it under
# QEMU, prints the parsed results and writes kunit.py's JSON to
# build/results/kunit-ARCH[-FLAVOUR].json. FLAVOUR prod-debug runs the suites
# built into the prod-debug kernel instead (scripts/image.sh; kunit_prod
# below), the way make test runs x86_64's. Fails on any failed, crashed or
# skipped test, on a suite that ran fewer cases than a kunitconfig's
# "# expect-suite:" line asks for, and on any kernel splat in the log
# (scripts/splats.txt: WARNING, BUG, lockdep, KASAN, bad rss-counter, ...).
# MMRS_KUNIT_JSON writes the JSON elsewhere (make mutate: a mutant's results
# must not take the place of the suite's own).
#
# The kernel panics on an oops and QEMU exits at once (oops=panic panic=-1):
# a crashed kernel fails the run in seconds, not after kunit.py's timeout.
# An x86_64 kernel that died of QEMU TCG's stale INT3 (scripts/tcg-stale-int3.py,
# with the functions the suites kprobe) is run once more, as boot.sh does.
# For scripts/kunit-retry-test.sh only: MMRS_KUNIT_PY runs another kunit.py,
# MMRS_KUNIT_BUILD_DIR builds elsewhere.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
# The functions the suites put a kprobe on: mm_rs_probe(test, "NAME") and
# symbol_name = "NAME" in kunit/*.c (make lint: no kprobe is named otherwise).
kunit_kprobed() {
	grep -ohE '(mm_rs_probe\(test, |symbol_name = )"[A-Za-z0-9_]+"' "$REPO"/kunit/*.c |
		grep -oE '"[A-Za-z0-9_]+"' | tr -d '"' | sort -u
}
# kunit.sh --kprobed lists them.
[ "${1:-}" = --kprobed ] && { kunit_kprobed; exit 0; }
# kunit_lacks DOTCONFIG KUNITCONFIG...: the CONFIG_ lines with a value in the
# kunitconfigs that DOTCONFIG does not have, one a line with the kunitconfig
# that asks for it; fails if there is one. kunit.sh --lacks runs it.
kunit_lacks() {
	local dot=$1 c line bad=0
	shift
	for c in "$@"; do
		while IFS= read -r line; do
			grep -qxF -- "$line" "$dot" || { echo "$line (${c#$REPO/})"; bad=1; }
		done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$c")
	done
	return $bad
}
# kunit_prod_lacks DOTCONFIG KUNITCONFIG...: kunit_lacks for a prod-debug
# kernel, which has Debian's voluntary preemption (configs/prod.config):
# CONFIG_PREEMPT=y is not asked of one with PREEMPT_DYNAMIC, which
# kunit_prod boots with preempt=full.
kunit_prod_lacks() {
	local lacks
	lacks=$(kunit_lacks "$@") || true
	if grep -qx 'CONFIG_PREEMPT_DYNAMIC=y' "$1"; then
		lacks=$(grep -v '^CONFIG_PREEMPT=y ' <<< "$lacks") || true
	fi
	[ -z "$lacks" ] || { echo "$lacks"; return 1; }
}
[ "${1:-}" = --lacks ] && { shift; kunit_prod_lacks "$@"; exit; }
# MMRS_KUNIT_PREBUILT=1 (prod-debug only): boot the kernel image.sh built
# before, and build nothing, so without the build lock: make test builds the
# arm64 KUnit kernel beside the x86_64 run, whose QEMU keeps one CPU busy.
# MMRS_KUNIT_BUILD_ONLY=1 (not prod-debug): kunit.py build, no run.
[ -n "${MMRS_KUNIT_PREBUILT:-}" ] || mm_rs_build_lock
arch=${1:?usage: kunit.sh x86_64|arm64 [FLAVOUR] [kunit.py args]}
shift
flavour=
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
	flavour=$1
	shift
fi
case "$arch" in
x86_64|arm64) ;;
*) echo "kunit.sh: ARCH must be x86_64 or arm64, not '$arch'" >&2; exit 2 ;;
esac
cfgs=("$REPO/kunit/mm_rs.kunitconfig")
suffix=
base_none=
# prod-debug: the suites built into the prod-debug kernel (configs/
# kunit.config), the one make stress and the verdict test boot; it has every
# option of mm_rs.kunitconfig and debug.kunitconfig, on Debian's mm
# configuration. kunit_prod below builds it with image.sh and runs it.
prod=
if [ "$flavour" = prod-debug ]; then
	prod=1
	flavour=debug
fi
if [ -n "$flavour" ]; then
	fc="$REPO/kunit/$flavour.kunitconfig"
	[ -f "$fc" ] || { echo "kunit.sh: no kunit/$flavour.kunitconfig" >&2; exit 2; }
	# A flavour is added to mm_rs.kunitconfig unless it says "# base: none".
	if grep -qx '# base: none' "$fc"; then cfgs=("$fc"); base_none=1; else cfgs+=("$fc"); fi
	suffix="-$flavour"
fi
# What one architecture's KUnit kernels need besides (kunit/ARCH.kunitconfig),
# and the cases only it runs: its expect-suite lines count where mm-rs is
# built, not in a flavour without it ("# base: none").
checks=("${cfgs[@]}")
if [ -f "$REPO/kunit/$arch.kunitconfig" ]; then
	cfgs+=("$REPO/kunit/$arch.kunitconfig")
	[ -n "$base_none" ] || checks+=("$REPO/kunit/$arch.kunitconfig")
fi
# What kunit.py's arm64 builds leave out for time (kunit/arm64-lean.kunitconfig):
# added to the build, not to the checks, and never to a prod-debug kernel.
[ -z "$prod" ] && [ -f "$REPO/kunit/$arch-lean.kunitconfig" ] && cfgs+=("$REPO/kunit/$arch-lean.kunitconfig")
# arm64: QEMU's virt machine with MTE, so that mm_rs_underused can map
# PROT_MTE memory (CONFIG_ARM64_MTE is on in the arm64 KUnit kernel).
qemu_args="-smp 2"
[ "$arch" = arm64 ] && qemu_args+=" -machine mte=on"
[ -n "$prod" ] && suffix=-prod-debug
out=${MMRS_KUNIT_BUILD_DIR:-"$REPO/build/kunit-$arch$suffix"}
json=${MMRS_KUNIT_JSON:-"$REPO/build/results/kunit-$arch$suffix.json"}
mkdir -p "$REPO/build/results" "$(dirname "$json")"
rm -f "$json"

kunit_py=${MMRS_KUNIT_PY:-"$REPO/build/linux/tools/testing/kunit/kunit.py"}
[ -n "${MMRS_KUNIT_PY:-}" ] || "$REPO/scripts/prepare-tree.sh"

args=()
for o in "${MM_RS_MAKE_OPTS[@]}"; do args+=(--make_options "$o"); done
for c in "${cfgs[@]}"; do args+=(--kunitconfig "$c"); done

# prod-debug: the kernel image.sh builds (or finds up to date), booted with
# no root file system, kunit.enable=1 and kunit_shutdown=reboot: the
# built-in suites run before init would, then the kernel reboots, which
# -no-reboot turns into QEMU's exit (x86_64's prod-debug has no ACPI to power
# off with: it would halt and wait for the 900 s limit). The
# console log goes to build/results/kunit-ARCH-prod-debug.log and kunit.py
# parse reads it, as kunit.py run reads its own kernel's. The machine is the
# one every guest boots on (mm_rs_machine in scripts/splats.sh)
# with kunit.py's 1 GiB and -smp 2, and every judged guest's console
# loglevel (scripts/splats.sh). Every CONFIG_ line with a value in the
# kunitconfigs must be in the kernel's .config, as kunit.py run demands of
# its own (an arch "is not set" line may differ: x86_64's prod kernels have
# Debian's X86_5LEVEL), but for CONFIG_PREEMPT: the prod kernels have
# Debian's voluntary preemption (configs/prod.config), and the suites, whose
# race windows may spin in an RCU read-side section while the racer runs,
# are written for full preemption. A kernel with PREEMPT_DYNAMIC (x86_64's,
# as Debian's) boots them with preempt=full and must log that it runs so;
# one without it (arm64's) is not run (kunit_prod_lacks).
kunit_prod() {
	local kernel q=() con lacks preempt=
	. "$REPO/scripts/splats.sh"
	if [ -n "${MMRS_KUNIT_PREBUILT:-}" ]; then
		kernel=$out/$([ "$arch" = x86_64 ] && echo arch/x86/boot/bzImage || echo arch/arm64/boot/Image)
		[ -f "$kernel" ] && [ -f "$out/.config" ] ||
			{ echo "kunit: $arch prod-debug: MMRS_KUNIT_PREBUILT, but no kernel at ${kernel#$REPO/} (scripts/image.sh $arch prod-debug)" >&2; rc=1; return; }
	else
		kernel=$("$REPO/scripts/image.sh" "$arch" prod-debug | tail -n 1) || { rc=1; return; }
	fi
	if ! lacks=$(kunit_prod_lacks "$out/.config" "${cfgs[@]}"); then
		echo "kunit: $arch prod-debug: not run, the kernel's .config lacks (configs/kunit.config?):" >&2
		sed 's/^/  /' <<< "$lacks" >&2
		rc=1
		return
	fi
	grep -qx 'CONFIG_PREEMPT=y' "$out/.config" || preempt="preempt=full "
	mm_rs_machine "$arch"
	q=("${MM_RS_QEMU[@]}")
	con=$MM_RS_CONSOLE
	# arm64: MTE, as the KUnit kernels have it (qemu_args above).
	[ "$arch" = arm64 ] && q+=(-machine mte=on)
	set +e
	timeout --foreground -k 10 900 "${q[@]}" -nodefaults -m 1024 -smp 2 -nographic -no-reboot \
		-serial stdio -kernel "$kernel" \
		-append "console=$con loglevel=$MM_RS_LOGLEVEL ${preempt}kunit.enable=1 kunit_shutdown=reboot oops=panic panic=-1" \
		</dev/null > "$tlog" 2>&1
	rc=$?
	[ "$rc" != 124 ] && [ "$rc" != 137 ] || echo "kunit: $arch prod-debug: the kernel ran past 900 s; log: ${tlog#$REPO/}" >&2
	python3 "$kunit_py" parse --json="$json" "$tlog" || { [ "$rc" != 0 ] || rc=1; }
	if [ -n "$preempt" ] && ! grep -qa '^Dynamic Preempt: full' "$tlog"; then
		echo "kunit: $arch prod-debug: booted with $preempt, but the kernel did not log 'Dynamic Preempt: full'; log: ${tlog#$REPO/}" >&2
		rc=1
	fi
	set -e
}
rc=0
[ -n "$prod" ] || [ -z "${MMRS_KUNIT_PREBUILT:-}" ] ||
	{ echo "kunit.sh: MMRS_KUNIT_PREBUILT is for prod-debug, whose kernel image.sh builds" >&2; exit 2; }
[ -z "$prod" ] || [ -z "${MMRS_KUNIT_BUILD_ONLY:-}" ] ||
	{ echo "kunit.sh: MMRS_KUNIT_BUILD_ONLY is for kunit.py's kernels: prod-debug's is scripts/image.sh's" >&2; exit 2; }
if [ -n "$prod" ]; then
	[ $# = 0 ] || { echo "kunit.sh: $arch prod-debug takes no kunit.py arguments (got: $*)" >&2; exit 2; }
	out="$REPO/build/image-$arch-prod-debug"
	tlog="$REPO/build/results/kunit-$arch-prod-debug.log"
	echo "kunit: $arch, the suites built into the prod-debug kernel (${out#$REPO/})"
	run() { rc=0; kunit_prod; }
else
	tlog="$out/test.log"
	echo "kunit: $arch${flavour:+ ($flavour)}, build dir ${out#$REPO/}"
fi
[ -n "$prod" ] || run() {
	set +e
	python3 "$kunit_py" run \
		--arch="$arch" --build_dir="$out" "${args[@]}" \
		--jobs="$(nproc)" --timeout=900 --qemu_args="$qemu_args" \
		--kernel_args=oops=panic --kernel_args=panic=-1 \
		--json="$json" "$@"
	rc=$?
	set -e
}
if [ -n "${MMRS_KUNIT_BUILD_ONLY:-}" ]; then
	python3 "$kunit_py" build --arch="$arch" --build_dir="$out" "${args[@]}" --jobs="$(nproc)" "$@"
	exit
fi
run "$@"
# QEMU 7.2's multi-threaded TCG can run a stale translation of x86 kernel text
# with an INT3 in it that the kernel has taken away: a text_poke_bp() patch's,
# or a kprobe's after unregister_kprobe() (the suites kprobe function entries:
# kunit_kprobed above). The kernel then dies of "Oops: int3" there. That is
# the emulator, not the code under test: the first log is kept, the event
# counted in tcg-stale-int3.txt in the build dir, and the kernel run once
# more; a second one fails like any crash (docs/testing.rst, "QEMU's stale
# INT3").
if [ "$arch" = x86_64 ] && [ "$rc" != 0 ] && [ -f "$tlog" ] &&
   what=$(python3 "$REPO/scripts/tcg-stale-int3.py" "$tlog" "$out/vmlinux" $(kunit_kprobed)); then
	mv "$tlog" "$tlog.tcg-stale-int3"
	echo "$(date -u +%FT%TZ) ${tlog#$REPO/}: $what" >> "$(dirname "$tlog")/tcg-stale-int3.txt"
	echo "kunit: $arch${flavour:+ ($flavour)}: QEMU TCG executed a stale INT3 ($what); console log kept at ${tlog#$REPO/}.tcg-stale-int3; running once more" >&2
	run "$@"
fi
python3 "$REPO/scripts/kunit-check.py" "$json" "$tlog" "${checks[@]}" || rc=1
# With CONFIG_MM_RS off, nothing of mm-rs may be in the kernel.
if grep -qx '# CONFIG_MM_RS is not set' "$out/.config" 2>/dev/null; then
	if nm "$out/vmlinux" | grep -q 'mm_rs'; then
		echo "kunit: CONFIG_MM_RS=n, but vmlinux has mm_rs symbols:" >&2
		nm "$out/vmlinux" | grep 'mm_rs' | head -n 5 >&2
		rc=1
	else
		echo "kunit: CONFIG_MM_RS=n: no mm_rs symbol in vmlinux"
	fi
fi
exit $rc
