#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# rootfs.sh ARCH: `make rootfs`. Builds the Debian 12 (bookworm) userland of
# make shell and make workload from Debian's packages with mmdebstrap: the
# Essential:yes set plus userspace/rootfs/packages.list and their
# dependencies, as an uncompressed EROFS image (a filesystem with large
# folios in the page cache, so that exec readahead applies to its programs)
# at build/debian-ARCH/rootfs.erofs, whose path it prints on its last line.
# The image is rebuilt only when the package list, this script or the guest's
# configuration script changes, comments aside (build/debian-ARCH/rootfs.stamp
# holds their hash); MMRS_ROOTFS_REBUILD=1 forces it. MMRS_MIRROR=URL takes the packages
# from URL's bookworm alone (by default: deb.debian.org's bookworm and
# bookworm-updates, and security.debian.org's bookworm-security).
#
# On the host's architecture mmdebstrap installs the packages itself (about
# 25 s). For the other one nothing here can run its binaries (no binfmt_misc,
# no qemu-user), so mmdebstrap only downloads and unpacks them
# (--variant=extract, merged /usr set up by its hook, the .debs kept), and
# the test kernel of that architecture (scripts/image.sh ARCH test, built if
# needed) boots the unpacked tree once under QEMU: the guest installs the
# .debs with dpkg (userspace/rootfs/guest/configure.sh, the second stage of
# debootstrap --foreign) and writes the configured tree as a tar to a second
# virtio disk, from which the final image is made: about 4 minutes under
# TCG, once. MMRS_PREBUILT=1: the test kernel as already built.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: rootfs.sh x86_64|arm64}
. "$REPO/scripts/rootfs-lib.sh"
list="$REPO/userspace/rootfs/packages.list"
stamp="$debian_dir/rootfs.stamp"
log="$debian_dir/mmdebstrap.log"
mirror=(${MMRS_MIRROR:+"$MMRS_MIRROR"})
native=0
[ "$darch" = "$(dpkg --print-architecture)" ] && native=1

# what makes the image: the list and the two scripts, their comments aside
want=$(sed '/^[[:space:]]*#/d' "$list" "$REPO/scripts/rootfs.sh" "$REPO/userspace/rootfs/guest/configure.sh" |
       { sha256sum; echo "${mirror[@]}"; } | sha256sum | cut -d' ' -f1)
if [ -f "$debian_img" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -z "${MMRS_ROOTFS_REBUILD:-}" ]; then
	echo "rootfs: $arch image is up to date (${debian_img#$REPO/})" >&2
	echo "$debian_img"
	exit 0
fi

if ! command -v mmdebstrap >/dev/null; then
	echo "rootfs: installing mmdebstrap" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q mmdebstrap >&2 ||
		{ echo "rootfs: apt-get install mmdebstrap failed" >&2; exit 1; }
fi
command -v mkfs.erofs >/dev/null || { echo "rootfs: no mkfs.erofs; run make setup" >&2; exit 1; }

mapfile -t pkgs < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$list")
[ ${#pkgs[@]} -gt 0 ] || { echo "rootfs: no packages in ${list#$REPO/}" >&2; exit 1; }
mkdir -p "$debian_dir"
tree="$debian_dir/tree"
rm -rf "$tree" "$debian_dir/tree.configured" "$stamp"
start=$(date +%s)

# mmdebstrap's failures end in apt's messages: name the package that failed.
mmdebstrap_failed() {
	local names
	echo "rootfs: mmdebstrap failed for $arch (full log: ${log#$REPO/})" >&2
	names=$(sed -n "s/^E: Unable to locate package \(.*\)/\1/p; s/^E: Package '\([^']*\)' has no installation candidate/\1/p" "$log" | sort -u) || true
	[ -z "$names" ] || echo "rootfs: no such package in bookworm ($arch): $names (from ${list#$REPO/} or a dependency)" >&2
	names=$(grep -oE 'Failed to fetch [^ ]*/[^/ ]+\.deb' "$log" | sed 's|.*/||; s/_.*//' | sort -u) || true
	[ -z "$names" ] || echo "rootfs: download failed for package(s): $names" >&2
	grep -E '^(E|W): ' "$log" | grep -v 'mmdebstrap failed' | head -n 8 | sed 's/^/  /' >&2 || true
	exit 1
}

common=(--architectures="$darch" --components=main)
if [ $native = 1 ]; then
	echo "rootfs: mmdebstrap bookworm $darch: ${pkgs[*]}" >&2
	mmdebstrap "${common[@]}" --variant=essential --include="$(IFS=,; echo "${pkgs[*]}")" \
		bookworm "$tree" "${mirror[@]}" >"$log" 2>&1 || mmdebstrap_failed
else
	echo "rootfs: mmdebstrap bookworm $darch (download and unpack only): ${pkgs[*]}" >&2
	mmdebstrap "${common[@]}" --variant=extract --skip=cleanup/apt/cache \
		--setup-hook=/usr/share/mmdebstrap/hooks/merged-usr/setup00.sh \
		--include='?essential' --include="$(IFS=,; echo "${pkgs[*]}")" \
		bookworm "$tree" "${mirror[@]}" >"$log" 2>&1 || mmdebstrap_failed
	# The Essential:yes ones are installed first, as mmdebstrap does.
	for deb in "$tree"/var/cache/apt/archives/*.deb; do
		[ "$(dpkg-deb -f "$deb" Essential)" = yes ] && echo "${deb##*/}"
	done > "$tree/var/cache/apt/archives/essential.list"
	echo "rootfs: unpacked $(ls "$tree"/var/cache/apt/archives/*.deb | wc -l) packages in $(( $(date +%s) - start ))s; configuring them in an $arch guest" >&2
	guest_kernel test >/dev/null
	mkfs.erofs --quiet "$debian_dir/stage.erofs" "$tree" >/dev/null
	rm -f "$debian_dir/configured.tar"
	truncate -s 4G "$debian_dir/configured.tar"
	guest_initramfs "$debian_dir/initramfs-configure.cpio.gz"
	# shellcheck disable=SC2046
	if ! MMRS_APPEND="mmrs.date=$(date +%s) " MMRS_INITRD="$debian_dir/initramfs-configure.cpio.gz" MMRS_LOG="$REPO/build/results/rootfs-$arch-configure.log" \
		"$REPO/scripts/boot.sh" "$arch" test configure 3600 \
		$(rootfs_drive "$debian_dir/stage.erofs" root) $(rootfs_drive "$debian_dir/configured.tar" out rw); then
		echo "rootfs: configuring the $arch packages in the guest failed; console log: build/results/rootfs-$arch-configure.log" >&2
		exit 1
	fi
	mkdir "$debian_dir/tree.configured"
	tar -C "$debian_dir/tree.configured" --numeric-owner -xpf "$debian_dir/configured.tar"
	[ -f "$debian_dir/tree.configured/etc/mmrs-rootfs-configured" ] ||
		{ echo "rootfs: the guest did not finish configuring; see build/results/rootfs-$arch-configure.log" >&2; exit 1; }
	rm -rf "$tree" "$debian_dir/stage.erofs" "$debian_dir/configured.tar"
	mv "$debian_dir/tree.configured" "$tree"
fi

# Uncompressed EROFS (large folios in its page cache), owners kept.
mkfs.erofs --quiet "$debian_img.tmp" "$tree" >/dev/null
mv "$debian_img.tmp" "$debian_img"
n=$(grep -c '^Package: ' "$tree/var/lib/dpkg/status")
rm -rf "$tree"
echo "$want" > "$stamp"
echo "rootfs: $arch: $n packages, $(du -m "$debian_img" | cut -f1) MiB, in $(( $(date +%s) - start ))s (${debian_img#$REPO/})" >&2
echo "$debian_img"
