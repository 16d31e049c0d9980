# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts/rootfs.sh, shell.sh and workload.sh: the Debian userland's
# paths, its small initramfs and its virtio disks. Needs REPO and arch set.

case "$arch" in
x86_64) darch=amd64; guest_cc=gcc; blkdev=virtio-blk-pci; karch=x86 ;;
arm64) darch=arm64; guest_cc=aarch64-linux-gnu-gcc; blkdev=virtio-blk-device; karch=arm64 ;;
*) echo "rootfs: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
# Not build/rootfs-ARCH: scripts/initramfs.sh stages the test initramfs there.
debian_dir="$REPO/build/debian-$arch"
debian_img="$debian_dir/rootfs.erofs"

# guest_initramfs OUT [DIR...]: the initramfs of a Debian boot: /init is
# userspace/rootfs/stage1.c (static), /mmrs holds userspace/rootfs/guest/,
# stage1 again as /mmrs/bin/{poweroff,reboot,halt}, userspace/rootfs/meter.c
# as /mmrs/bin/mmrs-meter, and the contents of each
# DIR (copied over /mmrs).
guest_initramfs() {
	local out=$1 root d
	shift
	root=$(mktemp -d)
	mkdir -p "$root"/{proc,sys,dev,mmrs/bin}
	"$guest_cc" -static -O2 -Wall -Werror -o "$root/init" "$REPO/userspace/rootfs/stage1.c"
	for d in poweroff reboot halt; do cp "$root/init" "$root/mmrs/bin/$d"; done
	"$guest_cc" -static -O2 -Wall -Werror -o "$root/mmrs/bin/mmrs-meter" "$REPO/userspace/rootfs/meter.c"
	cp -a "$REPO/userspace/rootfs/guest/." "$root/mmrs/"
	for d in "$@"; do cp -a "$d/." "$root/mmrs/"; done
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --owner 0:0) | gzip -1 > "$out.tmp"
	mv "$out.tmp" "$out"
	rm -rf "$root"
}

# rootfs_drive IMAGE ID [rw]: QEMU arguments for IMAGE as a virtio disk
# (read-only unless rw) with the serial ID, by which the guest finds it
# (/sys/block/vd*/serial: the virtio-mmio disks of QEMU's virt machine are
# probed in reverse order); stage1.c mounts the one called root.
rootfs_drive() {
	local ro=",readonly=on"
	[ "${3:-}" = rw ] && ro=""
	echo "-drive file=$1,format=raw,if=none,id=$2$ro -device $blkdev,drive=$2,serial=$2"
}

# guest_kernel FLAVOUR: the kernel to boot, built by scripts/image.sh if
# needed; with MMRS_PREBUILT=1 the one already in build/image-ARCH-FLAVOUR
# as it is (image.sh waits for any other kernel build on the machine).
guest_kernel() {
	local k
	if [ -n "${MMRS_PREBUILT:-}" ]; then
		case "$arch" in
		x86_64) k="$REPO/build/image-$arch-$1/arch/x86/boot/bzImage" ;;
		arm64) k="$REPO/build/image-$arch-$1/arch/arm64/boot/Image" ;;
		esac
	else
		k=$("$REPO/scripts/image.sh" "$arch" "$1" | tail -n 1)
	fi
	[ -f "$k" ] || { echo "rootfs: no $arch $1 kernel${MMRS_PREBUILT:+ (MMRS_PREBUILT=1: run make image ARCH=$arch FLAVOR=$1)}" >&2; return 1; }
	echo "$k"
}
