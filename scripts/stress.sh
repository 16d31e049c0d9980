#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh ARCH [SECONDS] [FLAVOUR]: `make stress`. Builds the FLAVOUR
# kernel (default prod-debug) through image.sh and an initramfs of its own,
# boots it under QEMU with 4 vCPUs and two NUMA nodes (MMRS_STRESS_MEM,
# default 4G, half a node), runs userspace/stress.c for SECONDS (default 60)
# and fails on a content mismatch it reports, a missing feature on the prod
# kernels (where every one must exist), or anything the kernel says on the
# console: a WARNING, BUG, Oops, KASAN or lockdep report, a bad rss-counter,
# a hung task, a soft lockup or RCU stall, an OOM kill (stress asks for none).
# The console log is build/results/stress-ARCH-FLAVOUR.log; the figures
# (operations per second, PT-reclaim counts) go to build/results/stress-ARCH.txt.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: stress.sh x86_64|arm64 [SECONDS] [FLAVOUR]}
secs=${2:-60}
flavour=${3:-prod-debug}
R="$REPO/build/results"
log="$R/stress-$arch-$flavour.log"
out="$R/stress-$arch.txt"
mem=${MMRS_STRESS_MEM:-4G}
mkdir -p "$R"
start=$(date +%s)

echo "stress: building the $arch $flavour kernel" >&2
if ! "$REPO/scripts/image.sh" "$arch" "$flavour" >/dev/null 2>"$R/image-$arch-$flavour.log"; then
	tail -n 20 "$R/image-$arch-$flavour.log" >&2
	echo "stress: the kernel build failed: ${R#$REPO/}/image-$arch-$flavour.log" >&2
	exit 1
fi
built=$(date +%s)
initrd=$(MMRS_INITRAMFS_TAG=stress "$REPO/scripts/initramfs.sh" "$arch") || exit 1

# The prod kernels must have every feature the run uses.
args="stress:$secs"
case "$flavour" in prod|prod-debug) args+=":require" ;; esac
half=$(( ${mem%G} * 1024 / 2 ))M
numa=(-object memory-backend-ram,id=m0,size=$half -object memory-backend-ram,id=m1,size=$half
      -numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1)
echo "stress: booting $arch $flavour (4 vCPUs, $mem, two NUMA nodes), stress for ${secs}s" >&2
rc=0
MMRS_SMP=4 MMRS_MEM=$mem MMRS_LOG="$log" MMRS_INITRD="$initrd" \
	"$REPO/scripts/boot.sh" "$arch" "$flavour" "$args" $(( secs + 1200 )) "${numa[@]}" >/dev/null || rc=1
end=$(date +%s)

# boot.sh checks the common splats; these too.
splat='WARNING:|BUG:|Oops|KASAN|UBSAN|Bad rss-counter|Bad page|possible circular locking|inconsistent lock state|blocked for more than|hung task|soft lockup|hard LOCKUP|rcu_.*stall|self-detected stall|Out of memory|oom-kill|oom_reaper|Killed process|Kernel panic|general protection fault|Unable to handle kernel'
{
	echo "stress $arch $flavour: ${secs}s, kernel build $(( built - start ))s, boot and run $(( end - built ))s"
	sed -n '/^== stress:/,/^mmrs-init: stress exited/p' "$log" | grep -v '^mmrs-data' | tr -d '\r'
	if grep -qaE "$splat" "$log"; then
		echo "kernel:"
		grep -aE "$splat" "$log" | head -n 20 | tr -d '\r'
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
} | tee "$out"
exit $rc
