#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh ARCH: build the test userspace (static /init and programs from
# userspace/, cross-compiled for arm64) into build/initramfs-ARCH.cpio.gz and
# print its path. Extra files can be added under build/rootfs-ARCH-extra/.
# MMRS_INITRAMFS_TAG=T builds a separate one, build/initramfs-ARCH-T.cpio.gz,
# with the extra files of build/rootfs-ARCH-T-extra/ if there are any (a run
# that must not race `make selftests`).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: initramfs.sh x86_64|arm64}
case "$arch" in
x86_64) cc=gcc ;;
arm64) cc=aarch64-linux-gnu-gcc ;;
*) echo "initramfs.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
tag=${MMRS_INITRAMFS_TAG:+-$MMRS_INITRAMFS_TAG}
root="$REPO/build/rootfs-$arch$tag"
out="$REPO/build/initramfs-$arch$tag.cpio.gz"
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
cflags=(-static -O2 -Wall -Werror -pthread -I"$REPO/userspace")
"$cc" "${cflags[@]}" -o "$root/init" "$REPO/userspace/init.c"
for src in "$REPO"/userspace/*.c; do
	name=$(basename "$src" .c)
	[ "$name" = init ] && continue
	"$cc" "${cflags[@]}" -o "$root/bin/$name" "$src"
done
# bigtext (8 MiB of text, segments 64K-aligned in file and memory) goes into
# an uncompressed EROFS image, a filesystem with large folios, for exectext.
bt="$REPO/build/bigtext-$arch$tag"
rm -rf "$bt" && mkdir -p "$bt/img"
python3 "$REPO/userspace/bigtext/gen.py" "$bt/bigtext.c"
"$cc" "${cflags[@]}" -I"$REPO/userspace/bigtext" -Wl,-z,max-page-size=0x10000 \
	-Wl,-z,separate-code -o "$bt/img/bigtext" "$bt/bigtext.c" "$REPO/userspace/bigtext/main.c"
mkfs.erofs --quiet --all-root -T0 "$root/bigtext.erofs" "$bt/img" >/dev/null
if [ -d "$REPO/build/rootfs-$arch$tag-extra" ]; then
	cp -a "$REPO/build/rootfs-$arch$tag-extra/." "$root/"
fi
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --owner 0:0) | gzip -1 > "$out"
echo "$out"
