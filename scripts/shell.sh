#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# shell.sh ARCH FLAVOUR: `make shell`. Boots the FLAVOUR kernel
# (scripts/image.sh, built if needed) on the Debian userland
# (scripts/rootfs.sh, built if needed) under QEMU with a root shell on the
# serial console, no login: /sys/kernel/mm/mm_rs/ is there to flip, exit (or
# poweroff) ends the guest, Ctrl-A X kills QEMU. When stdin is not a
# terminal, what it carries is the shell's input instead (echo 'cat
# /sys/kernel/debug/mm_rs/anon_order' | make shell), the guest ends with it and
# the exit status is the shell's (0 after poweroff); the console also goes to
# build/results/shell-ARCH-FLAVOUR.log then, and MMRS_TIMEOUT (default 900 s)
# bounds the run. MMRS_SET as for make workload; MMRS_SMP, MMRS_MEM and
# MMRS_APPEND as for scripts/boot.sh; MMRS_PREBUILT=1 boots the kernel
# already built, without scripts/image.sh (which waits for any other kernel
# build on the machine).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: shell.sh ARCH FLAVOUR}
flavour=${2:-test}
. "$REPO/scripts/rootfs-lib.sh"
. "$REPO/scripts/splats.sh"

img=$("$REPO/scripts/rootfs.sh" "$arch" | tail -n 1)
kernel=$(guest_kernel "$flavour")
mm_rs_machine "$arch" || { echo "shell.sh: ARCH must be x86_64 or arm64" >&2; exit 2; }
qemu=("${MM_RS_QEMU[@]}")
console=$MM_RS_CONSOLE

extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
interactive=1
[ -t 0 ] || { interactive=0; cat > "$extra/stdin"; }
initrd="$debian_dir/initramfs-shell.cpio.gz"
guest_initramfs "$initrd" "$extra"

append="console=$console panic=-1 loglevel=$MM_RS_LOGLEVEL mmrs.run=shell mmrs.date=$(date +%s)"
[ -n "${MMRS_SET:-}" ] && append="$append mmrs.set=$(echo $MMRS_SET | tr ' ' ',')"
if [ $interactive = 1 ]; then
	read -r rows cols < <(stty size 2>/dev/null || echo "")
	[ -n "${rows:-}" ] && append="$append mmrs.rows=$rows mmrs.cols=$cols"
	append="$append mmrs.term=${TERM:-linux}"
fi
append="$append ${MMRS_APPEND:-}"
# shellcheck disable=SC2046
cmd=("${qemu[@]}" -m "${MMRS_MEM:-3G}" -smp "${MMRS_SMP:-2}" -nographic -no-reboot
     -kernel "$kernel" -initrd "$initrd" -append "$append" $(rootfs_drive "$img" root))
if [ $interactive = 1 ]; then
	echo "shell: booting $arch $flavour on the Debian userland; exit or poweroff ends it, Ctrl-A X kills QEMU" >&2
	exec "${cmd[@]}"
fi
log="$REPO/build/results/shell-$arch-$flavour.log"
mkdir -p "$REPO/build/results"
timeout --foreground -k 10 "${MMRS_TIMEOUT:-900}" "${cmd[@]}" </dev/null 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "shell: QEMU exited $rc (124: timed out); console log: ${log#$REPO/}" >&2; exit 1; }
st=$(sed -n 's/^mmrs-init: shell exited \([0-9]*\).*/\1/p' "$log" | tail -n 1)
# poweroff (reboot, halt) in the guest ends it on purpose
[ -n "$st" ] || ! grep -qE '^mmrs-init: (poweroff|reboot|halt)' "$log" || st=0
[ -n "$st" ] || { echo "shell: the guest did not finish; console log: ${log#$REPO/}" >&2; exit 1; }
exit "$st"
