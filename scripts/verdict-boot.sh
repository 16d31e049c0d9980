#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# verdict-boot.sh ARCH [FLAVOUR]: on a real guest (default FLAVOUR
# prod-debug, the kernel of make stress and the stock stress tools), a
# kernel warning reaches the console log and fails the run. The guest runs
# userspace/kmsgprobe.c, which logs through /dev/kmsg a "WARNING: CPU: ..."
# record at KERN_WARNING and one at the default message level, the levels of
# a WARN()'s first line and of its call trace. The console prints a record
# only below the console loglevel, which scripts/splats.sh sets for every
# judged boot; with loglevel=4 (before 2026-11-26) neither record reached
# the console and a WARN passed its run. Passes when scripts/boot.sh fails
# the boot for that line alone: kmsgprobe exited 0, the guest finished, both
# records are in the log, and no other line is a splat (a clean boot at that
# loglevel). Used by make test (x86_64) and make check-full.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: verdict-boot.sh ARCH [FLAVOUR]}
flavour=${2:-prod-debug}
log="$REPO/build/results/verdict-$arch-$flavour.log"
"$REPO/scripts/image.sh" "$arch" "$flavour" >/dev/null || exit 1
initrd=$(MMRS_INITRAMFS_TAG=verdict "$REPO/scripts/initramfs.sh" "$arch") || exit 1

err=$(MMRS_INITRD=$initrd MMRS_LOG=$log "$REPO/scripts/boot.sh" "$arch" "$flavour" kmsgprobe 600 2>&1 >/dev/null)
brc=$?
rc=0
fail() { echo "verdict-boot: $arch $flavour: $*; console log: ${log#$REPO/}" >&2; rc=1; }
grep -q '^mmrs-init: kmsgprobe exited 0' "$log" || fail "kmsgprobe did not run or failed"
grep -q '^mmrs-init: done' "$log" || fail "the guest did not finish"
grep -q '^WARNING: CPU: 0 PID: 1 at kmsgprobe' "$log" ||
	fail "a KERN_WARNING record never reached the console (console loglevel too low?)"
grep -q '^kmsgprobe: mm-rs verdict probe, default message level' "$log" ||
	fail "a record at the default message level never reached the console (console loglevel too low?)"
if [ "$brc" = 0 ]; then
	fail "boot.sh passed a console log with a kernel warning in it"
elif ! grep -q 'kernel complained' <<< "$err" || ! grep -q 'WARNING: CPU: 0 PID: 1 at kmsgprobe' <<< "$err"; then
	fail "boot.sh failed, but not for the warning: $(head -n 3 <<< "$err")"
fi
# and nothing else in the boot is a splat
. "$REPO/scripts/splats.sh"
others=$(mm_rs_splats "$log" | grep -v '^WARNING: CPU: 0 PID: 1 at kmsgprobe')
[ -z "$others" ] || fail "the boot has other splats: $(head -n 3 <<< "$others")"
[ "$rc" = 0 ] && echo "verdict-boot: $arch $flavour: a kernel warning reached the console and failed the boot, as it must"
exit $rc
