#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Validate the mmrs-meter QEMU plugin (userspace/qemu-plugin/) without a
# Linux kernel: bare-metal guests (userspace/qemu-plugin/test/) run loops
# of known length between markers, and every window's instruction counts
# and modelled TLB misses must equal the analytic figures exactly, in two
# runs alike.  Needs qemu-system-aarch64, qemu-system-x86_64,
# aarch64-linux-gnu-gcc and gcc with -m32 (binutils only, no libc).
#
#   scripts/qemu-plugin-test.sh          the checks; last line "N passed, N failed"
#   scripts/qemu-plugin-test.sh --bench  also time a 960M-instruction window
#                                        without and with the plugin
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SO=$ROOT/build/qemu-plugin/libmmrs-meter.so
T=$ROOT/build/qemu-plugin/test
SRC=$ROOT/userspace/qemu-plugin
BENCH=0
[ "${1:-}" = --bench ] && BENCH=1

# The guests' loop constants (passed with -D; the expectations use them).
N0=1000 N1=1000 R2=4 R3=3 N4=500 N5=300 N6=100000 N7=50
DEFS="-DN0=$N0 -DN1=$N1 -DR2=$R2 -DR3=$R3 -DN4=$N4 -DN5=$N5 -DN6=$N6 -DN7=$N7"

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
die() { echo "qemu-plugin-test: error: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

scripts/qemu-plugin.sh build || die "building the plugin failed"
mkdir -p "$T"

# ---- the header matches the installed QEMU ----------------------------------
inc=$ROOT/build/qemu-plugin/include
api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\).*/\1/p' "$inc/qemu-plugin.h")
srcver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null)
qver=$(qemu-system-aarch64 --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
if [ "$api" = 1 ] && [ "$(cat "$inc/qemu-plugin.h.version")" = "$srcver" ] && [ "${qver%.*}" = 7.2 ]; then
	ok "qemu-plugin.h: API $api, source qemu $srcver, binary QEMU $qver"
else
	bad "qemu-plugin.h: API '$api' of source '$(cat "$inc/qemu-plugin.h.version")'; installed source $srcver, QEMU $qver (want API 1 with 7.2)"
fi

# ---- mmrs-meter.h emits the bytes the plugin decodes -----------------------------
hdr_check() {	# name compiler-and-flags... ; objdump pattern list in $want
	local name=$1 obj=$T/hdr-$1.o dump
	shift
	if ! "$@" -Wall -Wextra -Werror -ffreestanding -c -I"$SRC" -o "$obj" "$SRC/test/guest-c.c" 2>"$T/hdr-$name.err"; then
		bad "mmrs-meter.h with $name: $(head -n3 "$T/hdr-$name.err")"
		return
	fi
	dump=$($OBJDUMP -d --insn-width=16 "$obj")
	local w missing=""
	for w in $want; do
		grep -qi -- "$w" <<<"$dump" || missing+=" $w"
	done
	[ -z "$missing" ] && ok "mmrs-meter.h with $name emits the markers" \
		|| bad "mmrs-meter.h with $name: missing$missing"
}
want="aa1f4fff aa5f4fff aa1f43ff aa5f7fff"	# begin 9, end 9, begin 0, end 15
OBJDUMP=aarch64-linux-gnu-objdump
hdr_check a64-gcc-O2 aarch64-linux-gnu-gcc -O2
hdr_check a64-gcc-O0 aarch64-linux-gnu-gcc -O0
command -v clang-22 >/dev/null && hdr_check a64-clang-O2 clang-22 --target=aarch64-linux-gnu -O2
want="0f.1f.84.00.09.52.4d.4d 0f.1f.84.00.19.52.4d.4d 0f.1f.84.00.00.52.4d.4d 0f.1f.84.00.1f.52.4d.4d"
OBJDUMP=objdump
hdr_check x86_64-gcc-O2 gcc -O2
hdr_check i386-gcc-O0 gcc -m32 -O0
command -v clang-22 >/dev/null && hdr_check x86_64-clang-O2 clang-22 -O2

# ---- guests --------------------------------------------------------------------
cflags="-O2 -ffreestanding -fno-stack-protector -fno-pic -nostdlib -static -Wl,--build-id=none -I$SRC"
# shellcheck disable=SC2086
aarch64-linux-gnu-gcc $cflags -mgeneral-regs-only $DEFS -Wl,-Ttext=0x40080000 \
	-o "$T/guest-a64.elf" "$SRC/test/guest-a64.S" "$SRC/test/guest-c.c" \
	|| die "building guest-a64.elf failed"
# shellcheck disable=SC2086
gcc -m32 $cflags -mgeneral-regs-only $DEFS -Wl,-Ttext=0x100000 \
	-o "$T/guest-x86.elf" "$SRC/test/guest-x86.S" "$SRC/test/guest-c.c" \
	|| die "building guest-x86.elf failed"

run_a64() {	# log plugin-args [qemu args...]
	local log=$1 args=$2
	shift 2
	rm -f "$log" "$log.serial"
	timeout 120 qemu-system-aarch64 -M virt -cpu max -smp 2 -m 256 -display none \
		-nodefaults -serial "file:$log.serial" -kernel "$T/guest-a64.elf" "$@" \
		-plugin "$SO,log=$log${args:+,$args}" >"$log.out" 2>&1
}

run_x86() {	# log plugin-args; isa-debug-exit makes QEMU exit with 1
	local log=$1 args=$2 rc
	rm -f "$log"
	timeout 120 qemu-system-x86_64 -M pc -m 256 -display none -nodefaults \
		-device isa-debug-exit,iobase=0xf4,iosize=4 -kernel "$T/guest-x86.elf" \
		-plugin "$SO,log=$log${args:+,$args}" >"$log.out" 2>&1
	rc=$?
	[ $rc = 1 ] && return 0
	return $rc
}

# Run twice; both runs must finish and print the same window lines, but
# for window 6, whose count depends on how often vCPU1 polled (checked
# exactly in each run by counts_a64).
run2() {	# name arch plugin-args [qemu args...]; sets LOG
	local name=$1 arch=$2 args=$3
	shift 3
	LOG=$T/$name.log
	if ! "run_$arch" "$LOG.2" "$args" "$@" || ! "run_$arch" "$LOG" "$args" "$@"; then
		bad "$name: QEMU failed: $(tail -n3 "$LOG.out" "$LOG.2.out" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	if diff <(grep ' window ' "$LOG" | grep -v ' window 6 ') \
		<(grep ' window ' "$LOG.2" | grep -v ' window 6 ') >/dev/null; then
		ok "$name: two runs give the same figures ($(grep -c ' window ' "$LOG") windows)"
	else
		bad "$name: the two runs differ: $(diff <(grep ' window ' "$LOG") <(grep ' window ' "$LOG.2") | head -n4 | tr '\n' ' ')"
	fi
	split_sums "$name"
	return 0
}

# With a TLB model, in every window: the iTLB misses split by the entry
# that refilled the L1 add up to the misses, kernel and user apart, and
# the instruction side's walks are a part of all walks.
split_sums() {	# name
	local errs
	grep -q ' window .* tlb=' "$LOG" || return 0
	errs=$(awk '$1 == "mmrs-meter:" && $2 == "window" {
		delete f
		for (i = 4; i <= NF; i++) { n = index($i, "="); f[substr($i, 1, n - 1)] = substr($i, n + 1) }
		for (p = 0; p < 2; p++) {
			s = p ? "u" : "k"
			if (f["itlb_miss_" s "_4k"] + f["itlb_miss_" s "_64k"] + f["itlb_miss_" s "_2m"] != f["itlb_miss_" s] ||
			    f["itlb_walk_" s] > f["walk_" s])
				printf " window %s (%s): itlb_miss=%s 4k=%s 64k=%s 2m=%s itlb_walk=%s walk=%s", $3, s,
					f["itlb_miss_" s], f["itlb_miss_" s "_4k"], f["itlb_miss_" s "_64k"],
					f["itlb_miss_" s "_2m"], f["itlb_walk_" s], f["walk_" s]
		} }' "$LOG")
	[ -z "$errs" ] && ok "$1: every window's iTLB split adds up" || bad "$1:$errs"
}

field() {	# log window key
	awk -v id="$2" -v key="$3" '$1 == "mmrs-meter:" && $2 == "window" && $3 == id {
		for (i = 4; i <= NF; i++) { n = index($i, "="); if (substr($i, 1, n - 1) == key) print substr($i, n + 1) } }' "$1"
}

expect() {	# name window key=value...
	local name=$1 id=$2 kv got errs=""
	shift 2
	for kv in "$@"; do
		got=$(field "$LOG" "$id" "${kv%%=*}")
		[ "$got" = "${kv#*=}" ] || errs+=" ${kv%%=*}=${got:-none} (want ${kv#*=})"
	done
	[ -z "$errs" ] && ok "$name window $id: $*" || bad "$name window $id:$errs"
}

counts_a64() {	# name insns-of-window-7
	expect "$1" 0 kernel_insns=0 user_insns=$((2 * N0))
	expect "$1" 1 kernel_insns=0 user_insns=$((3 * N1 + 1))
	expect "$1" 2 kernel_insns=0 user_insns=$((1027 * R2))
	expect "$1" 3 kernel_insns=0 user_insns=$((65 * R3 + 2))
	expect "$1" 12 kernel_insns=0 user_insns=261
	expect "$1" 7 kernel_insns=0 user_insns="$2"
	expect "$1" 4 kernel_insns=$((2 * N4)) user_insns=0
	expect "$1" 5 kernel_insns=$((2 * N5)) user_insns=$((2 * N5 + 1))
	expect "$1" 11 kernel_insns=$((65 * R3 + 1)) user_insns=1
	expect "$1" 13 kernel_insns=0 user_insns=37
	expect "$1" 14 kernel_insns=0 user_insns=$((65 * R3 + 2))
	expect "$1" 9 kernel_insns=0 user_insns=0
	local l polls
	for l in "$LOG" "$LOG.2"; do
		polls=$(sed -n 's/.*P\([0-9a-f]\{16\}\).*/\1/p' "$l.serial")
		if [ -z "$polls" ]; then
			bad "$1 window 6: no poll count on the UART ($l.serial)"
			continue
		fi
		LOG=$l expect "$1" 6 kernel_insns=0 user_insns=$((12 + 2 * N6 + 8 * 16#$polls)) \
			active_vcpus=2 begin_vcpu=0 end_vcpu=1
	done
	local w10
	w10=$(field "$LOG" 10 user_insns)
	[ -n "$w10" ] && [ "$(field "$LOG" 10 kernel_insns)" = 0 ] \
		&& ok "$1 window 10 (run-time id): user_insns=$w10" || bad "$1 window 10 missing"
}

counts_x86() {
	expect "$1" 0 kernel_insns=0 user_insns=$((2 * N0))
	expect "$1" 1 kernel_insns=0 user_insns=$((3 * N1 + 1))
	expect "$1" 2 kernel_insns=0 user_insns=$((1027 * R2))
	expect "$1" 3 kernel_insns=0 user_insns=$((65 * R3 + 2))
	expect "$1" 9 kernel_insns=0 user_insns=0
}

# ---- aarch64 ---------------------------------------------------------------------
# Exact counting: one callback per instruction.  Window 7's load faults
# each round: 9 instructions a round (the faulting load counts once).
if run2 a64-insn a64 "" ; then counts_a64 a64-insn $((9 * N7)); fi
if run2 a64-insn-icount a64 "" -icount shift=0,sleep=off; then
	counts_a64 a64-insn-icount $((9 * N7))
fi
# mode=tb: exact without exceptions; window 7 over-counts the 3
# instructions after the faulting load in its block, every round.
if run2 a64-tb a64 mode=tb; then counts_a64 a64-tb $((12 * N7)); fi

# TLB, Neoverse N1.  MMU off: VA == PA, so every block is contiguous.
# 4K entries only: 256 data pages cycled through a 48-entry fully
# associative LRU L1 miss every access; the 1280-entry 5-way L2 holds
# them all (one per set): 256 walks.  64 code pages: every fetch misses,
# plus the return to the main page; 64 walks.
if run2 a64-n1-4k a64 tlb=n1,tlb_cont=0,tlb_huge=0; then
	counts_a64 a64-n1-4k $((9 * N7))
	expect a64-n1-4k 2 dtlb_miss_u=$((256 * R2)) walk_u=256 dacc_u=$((256 * R2)) itlb_miss_u=0 \
		itlb_walk_u=0
	expect a64-n1-4k 3 itlb_miss_u=$((64 * R3 + 1)) walk_u=64 dtlb_miss_u=0 itlb_walk_u=64 \
		itlb_miss_u_4k=$((64 * R3 + 1)) itlb_miss_u_64k=0 itlb_miss_u_2m=0
	# window 11: the same pages at the kernel alias (MMU on): kernel misses,
	# and the return to the main page, evicted meanwhile
	expect a64-n1-4k 11 itlb_miss_k=$((64 * R3)) itlb_walk_k=64 walk_k=64 itlb_miss_u=1 \
		itlb_miss_k_4k=$((64 * R3)) itlb_miss_k_64k=0 itlb_miss_k_2m=0
fi
# 64K entries (contpte coverage): 16 data blocks, 4 code blocks, compulsory.
if run2 a64-n1-64k a64 tlb=n1,tlb_cont=1,tlb_huge=0; then
	expect a64-n1-64k 2 dtlb_miss_u=16 walk_u=16 dacc_u=$((256 * R2))
	expect a64-n1-64k 3 itlb_miss_u=4 walk_u=4 itlb_walk_u=4 \
		itlb_miss_u_4k=0 itlb_miss_u_64k=4 itlb_miss_u_2m=0
	expect a64-n1-64k 11 itlb_miss_k=4 itlb_walk_k=4 itlb_miss_k_4k=0 itlb_miss_k_64k=4 itlb_miss_k_2m=0
fi
# 2M entries: the data buffer is one 2M block; the code block is known.
if run2 a64-n1-2m a64 tlb=n1; then
	expect a64-n1-2m 2 dtlb_miss_u=1 walk_u=1
	expect a64-n1-2m 3 itlb_miss_u=0 walk_u=0
	# Windows 13 and 14 from contiguity at the first walk (tlb_min=1):
	# each of E, F, G, H, K and the 2M block one miss, though only E and K
	# are contpte blocks and the 2M block a block mapping; the chain's 4
	# blocks, 2 of them without the contiguous bit, one miss each.
	expect a64-n1-2m 13 dtlb_miss_u=7 walk_u=7
	expect a64-n1-2m 14 itlb_miss_u=4 itlb_walk_u=4 itlb_miss_u_64k=4
fi
# tlb_src=pt: user entry sizes from the page-table entries the guest's
# kernel code stored (read back through the host mapping of guest RAM,
# found from the LDR literal at _start).  With the MMU off there are no
# entries: windows 2 and 3 get 4K entries though their memory is
# contiguous (as a64-n1-4k).  Window 13: E, a contpte block (mapped a
# second time elsewhere and unmapped there since, so the last page table
# to map it is not the one that does), and K, one whose entries were
# stored by atomic swaps, are one miss each (a 64K entry at the first
# walk); F (contiguous, no bit), G (the bit on 15 of 16 entries) and H (the
# bit on all 16, two pages swapped) 3 each; E's page 4 mapped again one
# page off 64K alignment, without the bit, one 4K walk (E's group must not
# size it); the 2M block descriptor one: 13 misses, 10 walks sized 4K, 2
# 64K, 1 2M.  Window 14: blocks 0 and 2 of the chain one 64K entry each,
# blocks 1 and 3 16 4K entries each: 34 entries, which the 48-entry L1
# iTLB holds, so the rounds after the first hit: 34 misses, 34 walks.
# The total: the RAM block found, every contiguous-bit entry (16 + 16 +
# 16 + 15 + 16 + 16 + 16) and the block descriptor seen stored.
if run2 a64-n1-pt a64 tlb=n1,tlb_src=pt; then
	counts_a64 a64-n1-pt $((9 * N7))
	expect a64-n1-pt 2 dtlb_miss_u=$((256 * R2)) walk_u=256 pt_walk_4k=256 pt_walk_64k=0 \
		pt_walk_2m=0 pt_walk_blind=0
	expect a64-n1-pt 3 itlb_miss_u=$((64 * R3 + 1)) itlb_walk_u=64 itlb_miss_u_4k=$((64 * R3 + 1)) \
		pt_walk_4k=64
	expect a64-n1-pt 13 dtlb_miss_u=13 walk_u=13 dacc_u=19 pt_walk_4k=10 pt_walk_64k=2 \
		pt_walk_2m=1 pt_walk_blind=0
	expect a64-n1-pt 14 itlb_miss_u=34 itlb_walk_u=34 walk_u=34 itlb_miss_u_4k=32 \
		itlb_miss_u_64k=2 itlb_miss_u_2m=0 pt_walk_4k=32 pt_walk_64k=2 pt_walk_blind=0
	tot=$(grep '^mmrs-meter: total' "$LOG")
	errs=""
	# one calibration: the LDR X literal at _start; not the LDR Q after it
	for kv in tlb_src=pt pt_ready=1 pt_ram=0x40000000-0x50000000 pt_calib=1 pt_calib_bad=0 \
		pt_cont_stores=111 pt_huge_stores=1; do
		grep -q " $kv " <<<"$tot " || errs+=" $kv"
	done
	[ -z "$errs" ] && ok "a64-n1-pt total: RAM found, 111 contiguous-bit entries, 1 block" \
		|| bad "a64-n1-pt total: want$errs in: $tot"
fi
# tlb_min=16 (make bench-real): a block gets its large entry at the walk of
# its 16th page; the 4K entries filled while it was learned are dropped
# then (a TLB holds no page twice), so they cannot shadow it.  Data: each
# 64K block 15 4K misses and the 64K one, in the first round only (16
# entries fit the L1 after): 256 misses, 256 walks.  Code: the same per
# block, 64, of which 4 refilled with 64K entries; the main page's entry
# stays in the L1.  Without the drop, the L2's 4K entries refilled the L1
# with 4K entries every round (1024 data misses, 193 code).
if run2 a64-n1-64k-min16 a64 tlb=n1,tlb_huge=0,tlb_min=16; then
	expect a64-n1-64k-min16 2 dtlb_miss_u=256 walk_u=256 dacc_u=$((256 * R2))
	expect a64-n1-64k-min16 3 itlb_miss_u=64 walk_u=64 itlb_walk_u=64 \
		itlb_miss_u_4k=60 itlb_miss_u_64k=4 itlb_miss_u_2m=0
	expect a64-n1-64k-min16 11 itlb_miss_k=64 itlb_walk_k=64 itlb_miss_u=0 \
		itlb_miss_k_4k=60 itlb_miss_k_64k=4 itlb_miss_k_2m=0
	# Window 12: page 16, the next block's first, is in the TLB (a 4K
	# entry) when block 0 gets its 64K entry; the drop must stop at page
	# 15.  Loads: page 16 (miss, walk), pages 0-15 (16 misses, 16 walks),
	# page 16 (L1 hit), 48 other blocks' first pages (48 misses, 48 walks,
	# page 16 leaves the L1), page 16 (L1 miss, L2 hit): 66 misses, 65
	# walks.  Dropping page 16 from the L1 gives 67 misses; from the L2, 66
	# walks.
	expect a64-n1-64k-min16 12 dtlb_miss_u=66 walk_u=65 dacc_u=67
	# Windows 13 and 14 (page tables the guest wrote; see a64-n1-pt
	# below): 3 pages of each block are too few to be credited, whatever
	# the contiguous bits say: 18 data misses.  The code chain: as window
	# 3, every block learned over its 16 pages in the first round.
	expect a64-n1-64k-min16 13 dtlb_miss_u=19 walk_u=19
	expect a64-n1-64k-min16 14 itlb_miss_u=64 itlb_walk_u=64 \
		itlb_miss_u_4k=60 itlb_miss_u_64k=4 itlb_miss_u_2m=0
	# the report tells this model from the one before it by this field
	if grep -q '^mmrs-meter: total .* tlb_drop=1 ' "$LOG"; then ok "a64-n1-64k-min16: total says tlb_drop=1"
	else bad "a64-n1-64k-min16: no tlb_drop=1 in: $(grep '^mmrs-meter: total' "$LOG")"; fi
fi
# 2M with tlb_min=16: the data block is first touched in window 2; 15 4K
# misses, then the 2M entry, which every later access hits.
if run2 a64-n1-2m-min16 a64 tlb=n1,tlb_min=16; then
	expect a64-n1-2m-min16 2 dtlb_miss_u=16 walk_u=16
fi
if run2 a64-tb-n1-4k a64 mode=tb,tlb=n1,tlb_cont=0,tlb_huge=0; then
	expect a64-tb-n1-4k 2 dtlb_miss_u=$((256 * R2)) walk_u=256
	expect a64-tb-n1-4k 3 itlb_miss_u=$((64 * R3 + 1)) walk_u=64
fi

# ---- x86 (32-bit protected mode, paging off) ------------------------------------
# Skylake: L1 dTLB 4K 64 entries 4-way (16 sets): 256 pages cycled put 16
# on each set: all miss; STLB 1536 12-way (128 sets) keeps them: 256 walks.
# L1 iTLB 4K 128 entries 8-way: 64 code pages, 4 a set: compulsory only.
if run2 x86-skl-4k x86 tlb=x86core,tlb_huge=0; then
	counts_x86 x86-skl-4k
	expect x86-skl-4k 2 dtlb_miss_u=$((256 * R2)) walk_u=256 dacc_u=$((256 * R2))
	expect x86-skl-4k 3 itlb_miss_u=64 walk_u=64
fi
if run2 x86-skl-2m x86 tlb=x86core; then
	expect x86-skl-2m 2 dtlb_miss_u=1 walk_u=1
	expect x86-skl-2m 3 itlb_miss_u=1 walk_u=1 itlb_walk_u=1 \
		itlb_miss_u_4k=0 itlb_miss_u_2m=1
fi
if run2 x86-skl-2m-min16 x86 tlb=x86core,tlb_min=16; then
	expect x86-skl-2m-min16 2 dtlb_miss_u=16 walk_u=16
fi
if run2 x86-tb x86 mode=tb; then counts_x86 x86-tb; fi

# ---- a bad argument is refused --------------------------------------------------------
refused() {	# qemu plugin-args message-pattern
	if timeout 30 "$1" -M "$([ "$1" = qemu-system-aarch64 ] && echo virt || echo pc)" \
		-display none -nodefaults -kernel "$T/guest-$([ "$1" = qemu-system-aarch64 ] && echo a64 || echo x86).elf" \
		-plugin "$SO,$2" >"$T/badarg.out" 2>&1; then
		bad "$2 was accepted by $1"
	elif grep -q -- "$3" "$T/badarg.out"; then
		ok "$2 is refused by $1 with a message"
	else
		bad "$2: unexpected output: $(head -n2 "$T/badarg.out")"
	fi
}
refused qemu-system-aarch64 tlb=k6 'tlb=k6'
refused qemu-system-aarch64 tlb=n1,tlb_src=pte 'tlb_src=pte: want contig or pt'
refused qemu-system-aarch64 tlb_src=pt 'needs tlb=n1'
refused qemu-system-x86_64 tlb=x86core,tlb_src=pt 'needs tlb=n1'

# ---- overhead -------------------------------------------------------------------------
if [ $BENCH = 1 ]; then
	# Window 8: 30M rounds of a 32-instruction block (12 loads/stores).
	# shellcheck disable=SC2086
	aarch64-linux-gnu-gcc $cflags -mgeneral-regs-only -DBENCH=30000000 -Wl,-Ttext=0x40080000 \
		-o "$T/bench-a64.elf" "$SRC/test/guest-a64.S" "$SRC/test/guest-c.c"
	TIMEFORMAT='%R %U'
	for args in none mode=tb mode=insn mode=tb,tlb=n1 mode=insn,tlb=n1; do
		pl=()
		[ $args = none ] || pl=(-plugin "$SO,log=$T/bench.log,$args")
		t=$( { time timeout 600 qemu-system-aarch64 -M virt -cpu max -smp 2 -m 256 \
			-display none -nodefaults -kernel "$T/bench-a64.elf" "${pl[@]}" \
			>/dev/null 2>&1; } 2>&1 )
		printf 'bench: %-18s %s s wall, %s s user (960M instructions, 360M data accesses)\n' \
			"$args" "${t% *}" "${t#* }"
	done
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
