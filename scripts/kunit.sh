#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh ARCH [FLAVOUR] [extra kunit.py args]
#
# Builds a KUnit kernel for ARCH (x86_64 or arm64) from kunit/mm_rs.kunitconfig
# (plus kunit/FLAVOUR.kunitconfig for a flavour such as "debug"), runs it under
# QEMU, prints the parsed results and writes kunit.py's JSON to
# build/results/kunit-ARCH[-FLAVOUR].json. Fails on any failed, crashed or
# skipped test, on a suite that ran fewer cases than a kunitconfig's
# "# expect-suite:" line asks for, and on any kernel splat in the log
# (scripts/splats.txt: WARNING, BUG, lockdep, KASAN, bad rss-counter, ...).
# MMRS_KUNIT_JSON writes the JSON elsewhere (make mutate: a mutant's results
# must not take the place of the suite's own).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
mm_rs_build_lock
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
# arm64: QEMU's virt machine with MTE, so that mm_rs_underused can map
# PROT_MTE memory (CONFIG_ARM64_MTE is on in the arm64 KUnit kernel).
qemu_args="-smp 2"
[ "$arch" = arm64 ] && qemu_args+=" -machine mte=on"
out="$REPO/build/kunit-$arch$suffix"
json=${MMRS_KUNIT_JSON:-"$REPO/build/results/kunit-$arch$suffix.json"}
mkdir -p "$REPO/build/results" "$(dirname "$json")"
rm -f "$json"

"$REPO/scripts/prepare-tree.sh"

args=()
for o in "${MM_RS_MAKE_OPTS[@]}"; do args+=(--make_options "$o"); done
for c in "${cfgs[@]}"; do args+=(--kunitconfig "$c"); done

echo "kunit: $arch${flavour:+ ($flavour)}, build dir ${out#$REPO/}"
set +e
python3 "$REPO/build/linux/tools/testing/kunit/kunit.py" run \
	--arch="$arch" --build_dir="$out" "${args[@]}" \
	--jobs="$(nproc)" --timeout=900 --qemu_args="$qemu_args" \
	--json="$json" "$@"
rc=$?
set -e
python3 "$REPO/scripts/kunit-check.py" "$json" "$out/test.log" "${checks[@]}" || rc=1
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
