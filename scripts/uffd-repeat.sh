#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uffd-repeat.sh ARCH: repeats uffd-unit-tests on the prod kernel and its
# CONFIG_MM_RS=n twin (prod-off) to catch its rare "UFFDIO_COPY error: -2"
# (docs/testing.rst): the events tests 20 times with the defaults, with a
# monitor that prints its last 64 messages on the error (uffd-unit-tests-dbg,
# userspace/uffd-debug/uffd-common-debug.diff), with the mm-rs switches off
# and with THP off, then the whole program 3 times (MMRS_UFFD_N sets every
# count). Results in
# build/results/selftests-ARCH-prod{,-off}.tap and the boot logs.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
arch=${1:?usage: uffd-repeat.sh x86_64|arm64}
case "$arch" in
x86_64) karch=x86; cross= ;;
arm64) karch=arm64; cross=aarch64-linux-gnu- ;;
*) echo "uffd-repeat.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
T="$REPO/build/linux"
"$REPO/scripts/prepare-tree.sh" >&2
hdr="$REPO/build/headers-$arch"
if [ ! -f "$hdr/include/linux/mman.h" ]; then
	make -s -C "$T" O="$REPO/build/headers-obj-$arch" ARCH="$karch" INSTALL_HDR_PATH="$hdr" headers_install
fi
# The debugging monitor: a copy of the selftests next to the original (for
# their relative includes), the change applied, uffd-unit-tests built as
# selftests-prod.sh builds it.
d="$REPO/build/uffd-repeat-$arch"
src="$T/tools/testing/selftests/mm-uffd-dbg"
rm -rf "$d" "$src" && mkdir -p "$d"
# The copy must not outlive the build: make series-check compares the tree.
trap 'rm -rf "$src"' EXIT
cp -a "$T/tools/testing/selftests/mm" "$src"
patch -s -d "$src" -p5 < "$REPO/userspace/uffd-debug/uffd-common-debug.diff"
make -s -C "$src" OUTPUT="$d" ARCH="$arch" ${cross:+CROSS_COMPILE=$cross} \
	KHDR_INCLUDES="-I$hdr/include" EXTRA_CFLAGS="-static" LDFLAGS="-static" \
	"$d/uffd-unit-tests" >&2
rm -rf "$src"
mv "$d/uffd-unit-tests" "$d/uffd-unit-tests-dbg"
cp "$REPO/userspace/uffd-debug/uffd-repeat.sh" "$d/"
# MMRS_UFFD_N: repetitions of each line instead of the list's own counts.
list="$REPO/userspace/uffd-debug/uffd-repeat.list"
if [ -n "${MMRS_UFFD_N:-}" ]; then
	sed -E "s/(uffd-repeat\.sh [a-z0-9-]+) [0-9]+/\1 $MMRS_UFFD_N/" "$list" > "$d/uffd-repeat.list"
	list="$d/uffd-repeat.list"
fi
MMRS_PROD_LIST="$list" MMRS_PROD_EXTRA="$d" \
	exec "$REPO/scripts/selftests-prod.sh" "$arch"
