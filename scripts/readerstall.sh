#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# readerstall.sh ARCH [FLAVOUR] [SECONDS]: a booted kernel reports no RCU
# stall when a low-priority task is held off the CPUs by busy ones
# (userspace/readerstall.c: nice -20 hogs on every CPU, MADV_COLLAPSE at nice
# 19). FLAVOUR defaults to prod-debug, the kernel of make test's boots; 4
# vCPUs and 4 GiB, as the stress runs. Under full preemption without RCU
# boosting the reader is preempted inside an RCU read-side section and RCU
# reports a stall on it, as on CI at stop 63 (docs/testing.rst, "A stall
# only full preemption reports"); the prod kernels have Debian's voluntary
# preemption (configs/prod.config), where it is not.
#
# Passes when the guest program passes (a range collapsed, and a stretch at
# nice 19 outlasted RCU's stall timeout: the reader was held off long enough)
# and scripts/boot.sh finds no splat in the console log,
# build/results/readerstall-ARCH-FLAVOUR.log. Used by make check-full (both
# architectures). A stall under full preemption needs the reader preempted
# inside a read-side section and then not picked again for 21 s, which the
# scheduler does not always do: under full preemption (CONFIG_PREEMPT, and
# preempt=full) it stalled in one run of two, so this is a measurement, and
# make lint's comparison with Debian's configuration (scripts/debian-diff.py)
# guards the model.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: readerstall.sh ARCH [FLAVOUR] [SECONDS]}
flavour=${2:-prod-debug}
secs=${3:-60}
log="$REPO/build/results/readerstall-$arch-$flavour.log"
"$REPO/scripts/image.sh" "$arch" "$flavour" >/dev/null || exit 1
initrd=$(MMRS_INITRAMFS_TAG=readerstall "$REPO/scripts/initramfs.sh" "$arch") || exit 1
# The reader may wait a minute or more for each slice: room for several.
if MMRS_SMP=4 MMRS_MEM=4G MMRS_INITRD=$initrd MMRS_LOG=$log \
	"$REPO/scripts/boot.sh" "$arch" "$flavour" "readerstall:$secs:4:-20" $((secs + 900)) >/dev/null; then
	echo "readerstall: $arch $flavour: $(grep -a '^readerstall: .* collapsed' "$log"); no RCU stall"
	exit 0
fi
echo "readerstall: $arch $flavour FAILED; console log: ${log#$REPO/}" >&2
grep -a -A3 'rcu: INFO:' "$log" | head -n 8 >&2
grep -a '^readerstall: ' "$log" >&2
exit 1
