#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh ARCH [SECONDS] [FLAVOUR]: `make stress`. Builds the FLAVOUR
# kernel (default prod-debug) through image.sh and an initramfs of its own,
# boots it under QEMU with 4 vCPUs and two NUMA nodes (MMRS_STRESS_MEM,
# default 4G, half a node), runs userspace/stress.c for SECONDS (default 60)
# and fails on a content mismatch it reports, a missing feature on the prod
# kernels (where every one must exist), a stress program that did not end
# with status 0, or any kernel splat on the console (scripts/splats.txt: a
# WARNING, BUG, Oops, KASAN or lockdep report, a bad rss-counter, a hung
# task, a soft lockup or RCU stall, an OOM kill; stress asks for none).
# The console log is build/results/stress-ARCH-FLAVOUR.log; the figures
# (operations per second, PT-reclaim counts) and the verdict, its last line,
# go to build/results/stress-ARCH.txt. It exits non-zero unless that line
# says "passed".
#
# For scripts/verdict-test.sh: MMRS_STRESS_PREBUILT=1 builds nothing (no
# image.sh, no initramfs.sh): the kernel must be in build/image-ARCH-FLAVOUR
# and MMRS_INITRD must name the initramfs; MMRS_RESULTS replaces
# build/results.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/splats.sh"
arch=${1:?usage: stress.sh x86_64|arm64 [SECONDS] [FLAVOUR]}
secs=${2:-60}
flavour=${3:-prod-debug}
R=${MMRS_RESULTS:-"$REPO/build/results"}
log="$R/stress-$arch-$flavour.log"
out="$R/stress-$arch.txt"
mem=${MMRS_STRESS_MEM:-4G}
mkdir -p "$R"
start=$(date +%s)

if [ -n "${MMRS_STRESS_PREBUILT:-}" ]; then
	initrd=${MMRS_INITRD:?MMRS_STRESS_PREBUILT needs MMRS_INITRD}
else
	echo "stress: building the $arch $flavour kernel" >&2
	if ! "$REPO/scripts/image.sh" "$arch" "$flavour" >/dev/null 2>"$R/image-$arch-$flavour.log"; then
		tail -n 20 "$R/image-$arch-$flavour.log" >&2
		echo "stress: the kernel build failed: ${R#$REPO/}/image-$arch-$flavour.log" >&2
		exit 1
	fi
	initrd=$(MMRS_INITRAMFS_TAG=stress "$REPO/scripts/initramfs.sh" "$arch") || exit 1
fi
built=$(date +%s)

# The prod kernels must have every feature the run uses.
args="stress:$secs"
case "$flavour" in prod|prod-debug) args+=":require" ;; esac
# First the demo (userspace/demo.c: both paths fault 64K mTHPs, every switch
# refuses a bad value; a few seconds), then the userfaultfd hand-off with a
# real context on every fault path (userspace/uffdmissing.c). The flavours
# without mm-rs have no switches to flip, and skip both. make test boots no
# test kernel, so this is where it runs the demo. The prod kernels, which
# have swap (zram), also run ksmswap (userspace/ksmswap.c: KSM unmerge over
# a table of real swap entries, C against Rust; the KUnit kernels have no
# swap device), before the stress load, on a quiet machine.
case "$flavour" in
prod|prod-debug) args="demo,uffdmissing,ksmswap,$args" ;;
*off) ;;
*) args="demo,uffdmissing,$args" ;;
esac
. "$REPO/scripts/numa.sh"
mm_rs_numa 4 "$mem"
numa=("${MMRS_NUMA_ARGS[@]}")
echo "stress: booting $arch $flavour (4 vCPUs, $mem, two NUMA nodes), stress for ${secs}s" >&2
rc=0
MMRS_SMP=4 MMRS_MEM=$mem MMRS_LOG="$log" MMRS_INITRD="$initrd" \
	"$REPO/scripts/boot.sh" "$arch" "$flavour" "$args" $(( secs + 1200 )) "${numa[@]}" >/dev/null || rc=1
end=$(date +%s)

# boot.sh judges the log too; the verdict is written to $out in this shell
# (not in a pipeline's subshell, where rc would be lost), then shown.
rm -f "$out"
{
	echo "stress $arch $flavour: ${secs}s, kernel build $(( built - start ))s, boot and run $(( end - built ))s"
	sed -n '/^== stress:/,/^mmrs-init: stress exited/p' "$log" | grep -v '^mmrs-data' | tr -d '\r'
	if splats=$(mm_rs_splats "$log"); then
		echo "kernel:"
		head -n 20 <<< "$splats"
		# where: enough to tell a kernel bug from QEMU's (scripts/tcg-stale-int3.py)
		grep -aE '^(CPU|RIP|Code|pc) ?: ' "$log" | head -n 6 | tr -d '\r'
		rc=1
	fi
	grep -q '^mmrs-init: stress exited 0' "$log" || rc=1
	if [ "$rc" = 0 ]; then
		echo "stress $arch $flavour: passed"
	else
		echo "stress $arch $flavour: FAILED; console log: ${log#$REPO/}"
	fi
} > "$out"
cat "$out"
# The verdict is the file's last line, whatever rc says.
[ "$(tail -n 1 "$out")" = "stress $arch $flavour: passed" ] || rc=1
exit $rc
