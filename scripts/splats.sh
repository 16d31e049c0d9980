# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts that judge a kernel console log: the one splat list,
# scripts/splats.txt (kunit-check.py reads the same file).
#
# mm_rs_splats LOG: prints the lines of LOG that are kernel splats (carriage
# returns removed) and succeeds if there is one. A list that cannot be read
# counts as a splat, so that a run is never passed unjudged.
MM_RS_SPLATS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/splats.txt"

# MM_RS_LOGLEVEL: the console loglevel of every guest whose console a judge
# reads (boot.sh, fault-trace.sh; shell.sh for the same view). The console
# prints a record only when its level is below the loglevel. WARN()'s
# "WARNING: CPU: ..." line and the "NMI backtrace for cpu N" of an RCU stall
# are KERN_WARNING (4), the registers and call traces after them the default
# message level (4), the stacks of hung and RCU-blocked tasks KERN_INFO (6):
# at 7 all of them reach the log, as in a default boot. (At 4, as before
# 2026-11-26, a WARN in a guest passed its run: scripts/verdict-boot.sh.)
MM_RS_LOGLEVEL=7

# mm_rs_machine ARCH: the QEMU machine every guest of ARCH boots on, as the
# array MM_RS_QEMU (the command and its machine and CPU), and its console in
# MM_RS_CONSOLE. x86_64: QEMU's "max" CPU without LA57, as most x86 machines
# are: the prod kernels have X86_5LEVEL (Debian's), and with LA57 a KASAN
# kernel of the base reports a wild-memory-access at boot (an interrupt while
# identify_cpu() has cleared the boot CPU's feature bits, LA57 among them, so
# KASAN takes a 5-level direct-map address for one with no shadow).
mm_rs_machine() {
	case "$1" in
	x86_64) MM_RS_QEMU=(qemu-system-x86_64 -machine q35 -cpu max,la57=off -bios qboot.rom)
		MM_RS_CONSOLE=ttyS0 ;;
	arm64) MM_RS_QEMU=(qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on)
		MM_RS_CONSOLE=ttyAMA0 ;;
	*) return 1 ;;
	esac
}

mm_rs_splats() {
	local pats rc
	if ! pats=$(grep -vE '^(#|$)' "$MM_RS_SPLATS") || [ -z "$pats" ]; then
		echo "splats: cannot read the splat list $MM_RS_SPLATS"
		return 0
	fi
	grep -aE -e "$pats" -- "$1" | tr -d '\r'
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] && return 0
	[ "$rc" = 1 ] && return 1
	echo "splats: cannot read $1"
	return 0
}
