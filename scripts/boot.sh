#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh ARCH FLAVOUR PROGRAMS [TIMEOUT] [extra QEMU args]
#
# Boots build/image-ARCH-FLAVOUR with build/initramfs-ARCH.cpio.gz under QEMU
# (TCG), runs the comma-separated PROGRAMS from /bin in the guest (PROG:ARG:ARG
# passes arguments), and keeps the console in
# build/results/boot-ARCH-FLAVOUR.log. A guest that does not
# finish within TIMEOUT seconds (default 600) is killed and is a failure, as is
# one that never reaches the end of its /init; the log stays for reading.
# MMRS_SMP sets the number of vCPUs (default 2), MMRS_SMP_TOPOLOGY their
# sockets and cores (scripts/numa.sh), MMRS_MEM the memory (default
# 3G), MMRS_LOG the log file,
# MMRS_APPEND adds to the kernel command line (end it with a space),
# MMRS_INITRD replaces the initramfs. Given -numa nodes, a kernel that cannot
# read them (no ACPI NUMA, no OF NUMA) is booted with numa=fake=N.
# Exits non-zero on any failure; a kernel splat is any line that matches
# scripts/splats.txt. A guest still running MMRS_SPLAT_GRACE seconds (default
# 300; 0: never) after the first splat reached its console is stopped there
# and fails: a kernel that BUGs with a lock held (a task killed in the mmap
# lock's write section) would otherwise hang until TIMEOUT, and its verdict
# is failed already. A boot that must run on past its splats (verdict-boot.sh
# provokes them; a selftest run compares the whole list) sets 0.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/splats.sh"
arch=${1:?usage: boot.sh ARCH FLAVOUR PROGRAMS [TIMEOUT] [QEMU args]}
flavour=${2:?}
progs=${3:?}
tmo=${4:-600}
shift 4 2>/dev/null || shift $#
log=${MMRS_LOG:-"$REPO/build/results/boot-$arch-$flavour.log"}
initrd=${MMRS_INITRD:-"$REPO/build/initramfs-$arch.cpio.gz"}
mkdir -p "$REPO/build/results"
# The machine: scripts/splats.sh (mm_rs_machine).
case "$arch" in
x86_64) kernel="$REPO/build/image-$arch-$flavour/arch/x86/boot/bzImage" ;;
arm64) kernel="$REPO/build/image-$arch-$flavour/arch/arm64/boot/Image" ;;
*) echo "boot.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
mm_rs_machine "$arch"
qemu=("${MM_RS_QEMU[@]}")
console=$MM_RS_CONSOLE
[ -f "$kernel" ] || { echo "boot.sh: no kernel at $kernel; run: make image ARCH=$arch FLAVOR=$flavour" >&2; exit 2; }
# NUMA nodes asked of QEMU (-numa node,..., scripts/numa.sh) reach the
# kernel through the device tree (arm64, OF_NUMA) or the ACPI SRAT (x86_64).
# A kernel that can read neither (x86_64 prod-debug: no ACPI,
# configs/prod-debug-x86_64.config) gets as many by emulation: numa=fake=N.
nodes=0
for a in "$@"; do case "$a" in node,*) nodes=$((nodes + 1)) ;; esac; done
cfg="${kernel%/arch/*}/.config"
if [ "$nodes" -gt 1 ] && [ -f "$cfg" ] && ! grep -qxE 'CONFIG_(ACPI|OF)_NUMA=y' "$cfg"; then
	grep -qx 'CONFIG_NUMA_EMU=y' "$cfg" ||
		{ echo "boot.sh: $nodes NUMA nodes asked of $arch $flavour, whose kernel can neither read nor emulate them" >&2; exit 2; }
	MMRS_APPEND="${MMRS_APPEND:-}numa=fake=$nodes "
fi
[ -f "$initrd" ] || { echo "boot.sh: no $initrd" >&2; exit 2; }

grace=${MMRS_SPLAT_GRACE:-300}
case "$grace" in ''|*[!0-9]*) echo "boot.sh: MMRS_SPLAT_GRACE=$grace: want seconds (0: never)" >&2; exit 2 ;; esac
stopped="$log.splat-stop"

# splat_watch: every 2 s, the console log so far against the splat list;
# MMRS_SPLAT_GRACE seconds after the first splat, stops the guest by
# signalling this script's own timeout (which passes it to QEMU), and says so
# in $stopped.
splat_watch() {
	local first=0 now t
	while sleep 2; do
		now=$(date +%s)
		if [ "$first" = 0 ]; then
			mm_rs_splats "$log" >/dev/null && first=$now
		elif [ $(( now - first )) -ge "$grace" ]; then
			echo "$(( now - first ))" > "$stopped"
			t=$(pgrep -P $$ -x timeout) || return
			kill -TERM "$t"
			# QEMU ends on SIGTERM; one that does not is killed
			sleep 15
			! kill -0 "$t" 2>/dev/null || pkill -KILL -P "$t"
			return
		fi
	done
}

boot() {
	local watcher=
	rm -f "$stopped"
	: > "$log"
	if [ "$grace" != 0 ]; then
		splat_watch &
		watcher=$!
	fi
	timeout --foreground -k 10 "$tmo" "${qemu[@]}" -m "${MMRS_MEM:-3G}" -smp "${MMRS_SMP:-2}${MMRS_SMP_TOPOLOGY:+,$MMRS_SMP_TOPOLOGY}" -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=$console panic=-1 loglevel=$MM_RS_LOGLEVEL rootfstype=ramfs ${MMRS_APPEND:-}mmrs.run=$progs" "$@" \
		</dev/null 2>&1 | tee "$log" | sed -u -n '/^mmrs-data/d; /^mmrs-init\|^==\|^  \|^mmrs\|^selftest\|^ok \|^not ok\|^# /p'
	rc=${PIPESTATUS[0]}
	if [ -n "$watcher" ]; then
		kill "$watcher" 2>/dev/null
		wait "$watcher" 2>/dev/null
	fi
}
boot "$@"
# QEMU 7.2's multi-threaded TCG can run a stale translation of x86 kernel
# text with the INT3 of a text_poke_bp() patch in it after the patch is over;
# the guest then dies of "Oops: int3" on a static branch or static call site
# (scripts/tcg-stale-int3.py recognises exactly that, with the kernel's
# vmlinux). That is the emulator, not the kernel under test: the first log is
# kept, the event counted in tcg-stale-int3.txt beside the log, and the guest
# is booted once more; a second one fails the run like any oops.
if [ "$arch" = x86_64 ] && what=$(python3 "$REPO/scripts/tcg-stale-int3.py" "$log" "${kernel%/arch/*}/vmlinux"); then
	mv "$log" "$log.tcg-stale-int3"
	echo "$(date -u +%FT%TZ) ${log#$REPO/}: $what" >> "$(dirname "$log")/tcg-stale-int3.txt"
	echo "boot: $arch $flavour: QEMU TCG executed a stale INT3 ($what); console log kept at ${log#$REPO/}.tcg-stale-int3; booting once more" >&2
	boot "$@"
fi
# Where a failed kernel was: enough to tell a kernel bug from QEMU's, and
# for an RCU stall on a task, which task (its stack dump has no CPU line).
where() { grep -aE '^(CPU|RIP|Code|pc) ?: |^task:[^ ]+ |^rcu: +(Tasks blocked|[0-9]+-)' "$log" | head -n 8 >&2; }
if [ -f "$stopped" ]; then
	echo "boot: $arch $flavour guest stopped $(cat "$stopped")s after the kernel's first complaint" \
		"(MMRS_SPLAT_GRACE=$grace); console log: ${log#$REPO/}" >&2
	mm_rs_splats "$log" | head -n 5 >&2
	where
	exit 1
fi
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "boot: $arch $flavour guest timed out after ${tmo}s; console log: ${log#$REPO/}" >&2
	exit 1
fi
if [ "$rc" != 0 ]; then
	echo "boot: $arch $flavour: QEMU exited $rc; console log: ${log#$REPO/}" >&2
	exit 1
fi
if ! grep -q '^mmrs-init: done' "$log"; then
	echo "boot: $arch $flavour guest did not finish (exit $rc); console log: ${log#$REPO/}" >&2
	mm_rs_splats "$log" | head -n 3 >&2
	where
	exit 1
fi
if grep -qE '^mmrs-init: .* exited [1-9]' "$log"; then
	echo "boot: $arch $flavour: a guest program failed:" >&2
	grep -E '^mmrs-init: .* exited [1-9]' "$log" >&2
	exit 1
fi
if splats=$(mm_rs_splats "$log"); then
	echo "boot: $arch $flavour kernel complained; console log: ${log#$REPO/}" >&2
	head -n 5 <<< "$splats" >&2
	where
	exit 1
fi
exit 0
