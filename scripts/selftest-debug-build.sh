#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest-debug-build.sh ARCH DIFF PROGRAM OUTDIR: builds one mm selftest
# with a debugging change applied, statically for ARCH as selftests-prod.sh
# builds the rest, as OUTDIR/PROGRAM-dbg (OUTDIR is emptied first). The
# change applies to a copy of tools/testing/selftests/mm next to the original
# (for its relative includes), removed again: make series-check compares the
# tree. Used by uffd-repeat.sh and selftests-repeat.sh.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
arch=${1:?usage: selftest-debug-build.sh x86_64|arm64 DIFF PROGRAM OUTDIR}
diff=${2:?no DIFF}
prog=${3:?no PROGRAM}
d=${4:?no OUTDIR}
case "$arch" in
x86_64) karch=x86; cross= ;;
arm64) karch=arm64; cross=aarch64-linux-gnu- ;;
*) echo "selftest-debug-build.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
T="$REPO/build/linux"
"$REPO/scripts/prepare-tree.sh" >&2
hdr="$REPO/build/headers-$arch"
if [ ! -f "$hdr/include/linux/mman.h" ]; then
	make -s -C "$T" O="$REPO/build/headers-obj-$arch" ARCH="$karch" INSTALL_HDR_PATH="$hdr" headers_install
fi
src="$T/tools/testing/selftests/mm-dbg-$prog"
rm -rf "$d" "$src" && mkdir -p "$d"
trap 'rm -rf "$src"' EXIT
cp -a "$T/tools/testing/selftests/mm" "$src"
patch -s --fuzz=0 -d "$src" -p5 < "$diff"
make -s -C "$src" OUTPUT="$d" ARCH="$arch" ${cross:+CROSS_COMPILE=$cross} \
	KHDR_INCLUDES="-I$hdr/include" EXTRA_CFLAGS="-static" LDFLAGS="-static" \
	"$d/$prog" >&2
mv "$d/$prog" "$d/$prog-dbg"
