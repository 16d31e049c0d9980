/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bare-metal aarch64 guest for scripts/qemu-plugin-test.sh: runs on
 * qemu-system-aarch64 -M virt -cpu max -smp 2 -kernel guest-a64.elf
 * (entered at EL1, MMU off, PSCI through HVC) and opens measurement
 * windows whose instruction counts are known exactly.  Linked at
 * 0x40080000 (start of RAM + 512K).  Expected figures: see the test.
 *
 * Window  what                                       expected insns
 *   0     loop, N0 rounds of subs/b.ne               user 2*N0
 *   1     loop, N1 rounds of add/subs/b.ne + nop     user 3*N1+1
 *   2     R2 rounds over 256 data pages, MMU off     user 1027*R2
 *   3     R3 rounds over 64 code pages, MMU off      user 65*R3+2
 *  12     a 64K block beside the next block's page,  user 261
 *         and 48 blocks' first pages, MMU off
 *   7     N7 rounds with a data abort, MMU on        user 9*N7 (insn mode)
 *   4     loop at the TTBR1 alias                    kernel 2*N4
 *   5     user loop, branch to TTBR1, kernel loop    user 2*N5+1, kernel 2*N5
 *  11     window 3's 64 code pages at the TTBR1      user 1, kernel 65*R3+1
 *         alias, MMU on (kernel iTLB misses)
 *  13     loads through page tables the guest's       user 35
 *         kernel alias wrote at run time (MMU on):
 *         3 pages each of a contiguous-bit 64K block
 *         (also mapped and unmapped elsewhere), a
 *         contiguous block without the bit, two
 *         blocks the bit does not make contpte, a
 *         contpte block stored by atomic swaps, and a
 *         2M block descriptor
 *  14     window 3's 64 code pages through those      user 65*R3+2
 *         tables: blocks 0 and 2 with the contiguous
 *         bit, 1 and 3 without
 *   9     guest-c.c: mmrs_meter_begin(9); _end(9)    0
 *  10     guest-c.c: the same with a run-time id     (compiler's code)
 *   6     vCPU0 starts vCPU1 (PSCI) and stops;       user 9 + 3 + 2*N6 + 8*P
 *         vCPU1 loops N6 rounds, then polls PSCI AFFINITY_INFO until
 *         vCPU0 is off (P polls, printed on the UART as "P<16 hex>")
 *         and ends the window: no instruction of either vCPU races
 *         with the end marker
 */
#ifndef N0
#define N0	1000
#endif
#ifndef N1
#define N1	1000
#endif
#ifndef R2
#define R2	4
#endif
#ifndef R3
#define R3	3
#endif
#ifndef N4
#define N4	500
#endif
#ifndef N5
#define N5	300
#endif
#ifndef N6
#define N6	100000
#endif
#ifndef N7
#define N7	50
#endif

#define DATA_BUF	0x40200000	/* 2M aligned, 256 pages */
#define BLK_BUF		0x40800000	/* window 12: 17 pages; 13: 80 */
#define FAR_BUF		0x40a00000	/* window 12: 48 blocks of 64K, 3M */
#define CHAIN_PA	0x40100000	/* the 64 code pages (.org 0x80000) */
#define PT_L2		0x40e00000	/* windows 13, 14: L2 table of L1[3] */
#define PT_L3		0x40e01000	/* ... and L3 table of its L2[0] */
#define PT_VA		0xc0000000	/* L1[3]: VA 3G-4G, TTBR0 */
#define PT_CODE		PT_VA		/* 64 pages -> CHAIN_PA */
#define PT_DATA		(PT_VA + 0x100000)	/* 80 pages -> BLK_BUF */
#define PT_HUGE		(PT_VA + 0x200000)	/* L2[1]: 2M block -> DATA_BUF */
/* page: AF, nG, inner shareable, AP EL1/EL0 read-only, attr 0 */
#define PTE_ATTR	0xfc3
#define PMD_BLOCK_ATTR	0xfc1
#define PTE_CONT_BIT	52
#define KERN_OFF_HI	0xff80		/* 0xffffff8000000000 >> 32, low half */
#define PSCI_CPU_OFF	0x84000002
#define PSCI_CPU_ON	0xc4000003
#define PSCI_AFF_INFO	0xc4000004
#define PSCI_SYS_OFF	0x84000008
#define UART		0x09000000

.macro MBEGIN id
	.inst 0xaa1f03ff | ((16 + \id) << 10)
.endm
.macro MEND id
	.inst 0xaa1f03ff | (1 << 22) | ((16 + \id) << 10)
.endm
.macro PUTC c
	movz	x20, #(UART >> 16), lsl #16
	mov	w21, #\c
	strb	w21, [x20]
.endm
.macro MOV32 reg, val
	movz	\reg, #((\val) & 0xffff)
	movk	\reg, #((\val) >> 16), lsl #16
.endm

	.arch_extension lse
	.text
	.globl	_start
_start:
	mrs	x0, mpidr_el1
	and	x0, x0, #0xff
	cbnz	x0, park
	adr	x0, stack_top
	mov	sp, x0
	/*
	 * An LDR (literal): with tlb_src=pt the plugin finds the host
	 * mapping of guest RAM from it.  Outside every window.
	 */
	ldr	x0, calib_lit
	/*
	 * An LDR Q (literal), FP enabled first: QEMU 7.2 makes two 8-byte
	 * accesses of it, which must not calibrate (pt_calib stays 1 and
	 * pt_calib_bad 0).
	 */
	mov	x0, #(3 << 20)
	msr	cpacr_el1, x0
	isb
	.arch_extension fp
	.arch_extension simd
	ldr	q0, calib_q
	b	1f
	.balign	16
calib_lit:
	.quad	0x6d6d72732d6d7472		/* "rtm-srmm" */
	.quad	0
calib_q:
	.quad	0x6d6d72732d6d7472, 0x6d6d72732d6d7472
1:	PUTC	'0'

	/* window 0 */
	movz	x1, #N0 & 0xffff
	movk	x1, #N0 >> 16, lsl #16
	MBEGIN	0
1:	subs	x1, x1, #1
	b.ne	1b
	MEND	0

#ifdef BENCH
	/* window 8 (bench only): BENCH rounds of a 32-instruction block */
	movz	x1, #(BENCH & 0xffff)
	movk	x1, #(BENCH >> 16), lsl #16
	movz	x2, #(DATA_BUF >> 16), lsl #16
	MBEGIN	8
10:	.rept	6
	add	x3, x3, #1
	eor	x4, x4, x3
	ldr	x5, [x2, #8]
	add	x6, x6, x5
	str	x6, [x2, #16]
	.endr
	subs	x1, x1, #1
	b.ne	10b
	MEND	8
#endif

	/* window 1 */
	movz	x1, #N1
	MBEGIN	1
2:	add	x2, x2, #1
	subs	x1, x1, #1
	b.ne	2b
	nop
	MEND	1
	PUTC	'1'

	/* window 2: data pages, MMU off (VA == PA) */
	movz	x5, #R2
	movz	x2, #(DATA_BUF >> 16), lsl #16
	movz	x6, #0x10, lsl #16
	MBEGIN	2
3:	mov	x4, xzr
4:	ldr	x3, [x2, x4]
	add	x4, x4, #1, lsl #12
	cmp	x4, x6
	b.ne	4b
	subs	x5, x5, #1
	b.ne	3b
	MEND	2
	PUTC	'2'

	/* window 3: 64 code pages */
	movz	x5, #R3
	adr	x8, chain_ret
	MBEGIN	3
	b	chain
chain_ret:
	MEND	3
	PUTC	'3'

	/*
	 * window 12: a 64K block learned beside a page of the next block
	 * (MMU off).  Fresh 2M regions, which no window before touched:
	 * x7 = page 16 of BLK_BUF (the next block's first page), loaded;
	 * pages 0-15, so block 0 gets its 64K entry, whose drop of the 4K
	 * entries inside it must stop at page 15; page 16 again (an L1 hit);
	 * the first pages of 48 blocks of FAR_BUF, which push page 16 out of
	 * the 48-entry L1; page 16 once more (an L2 hit, no walk).
	 */
	movz	x2, #(BLK_BUF >> 16), lsl #16
	add	x7, x2, #0x10, lsl #12
	movz	x6, #(FAR_BUF >> 16), lsl #16
	movz	x9, #48
	MBEGIN	12
	ldr	x3, [x7]
	mov	x4, xzr
5:	ldr	x3, [x2, x4]
	add	x4, x4, #1, lsl #12
	cmp	x4, #0x10, lsl #12
	b.ne	5b
	ldr	x3, [x7]
	mov	x4, xzr
6:	ldr	x3, [x6, x4]
	add	x4, x4, #0x10, lsl #12
	subs	x9, x9, #1
	b.ne	6b
	ldr	x3, [x7]
	MEND	12
	PUTC	'c'

	/* exceptions to our vectors, MMU on: TTBR0 = TTBR1 = ptable */
	adr	x0, vectors
	msr	vbar_el1, x0
	adr	x0, ptable
	msr	ttbr0_el1, x0
	msr	ttbr1_el1, x0
	/* T0SZ = T1SZ = 25 (39-bit), 4K granules, WB WA inner shareable */
	MOV32	x0, 0xb5193519
	msr	tcr_el1, x0
	mov	x0, #0xff		/* attr0 normal WB, attr1 device nGnRnE */
	msr	mair_el1, x0
	isb
	mrs	x0, sctlr_el1
	orr	x0, x0, #1		/* M */
	orr	x0, x0, #(1 << 2)	/* C */
	orr	x0, x0, #(1 << 12)	/* I */
	msr	sctlr_el1, x0
	isb
	PUTC	'm'

	/* window 7: a load that faults in the middle of its block */
	movz	x1, #N7
	movz	x10, #0x8000, lsl #16	/* unmapped: L1 entry 2 invalid */
	MBEGIN	7
7:	add	x2, x2, #1
	ldr	x3, [x10]
	add	x3, x3, #1
	subs	x1, x1, #1
	b.ne	7b
	MEND	7
	PUTC	'7'

	/* x7 = 0xffffff8000000000: TTBR1 alias of the same memory */
	movz	x7, #KERN_OFF_HI, lsl #32
	movk	x7, #0xffff, lsl #48

	/* window 4: loop at the kernel alias */
	movz	x1, #N4
	adr	x0, kwin4
	add	x0, x0, x7
	adr	x8, kret4
	br	x0
kwin4:
	MBEGIN	4
5:	subs	x1, x1, #1
	b.ne	5b
	MEND	4
	br	x8
kret4:
	PUTC	'4'

	/* window 5: user loop, then kernel loop */
	movz	x1, #N5
	mov	x9, x1
	adr	x0, kwin5
	add	x0, x0, x7
	adr	x8, kret5
	MBEGIN	5
6:	subs	x1, x1, #1
	b.ne	6b
	br	x0
kwin5:
8:	subs	x9, x9, #1
	b.ne	8b
	MEND	5
	br	x8
kret5:
	PUTC	'5'

	/* window 11: the 64 code pages at the kernel alias */
	movz	x5, #R3
	adr	x0, chain
	add	x0, x0, x7
	adr	x8, kret11
	MBEGIN	11
	br	x0
kret11:
	MEND	11
	PUTC	'k'

	/*
	 * Windows 13 and 14: page tables written at run time, by kernel
	 * code (the TTBR1 alias), as a kernel writes them: the plugin with
	 * tlb_src=pt sees the stores and reads the entries back at each walk.
	 */
	adr	x0, build_pt
	add	x0, x0, x7
	adr	x8, kret_pt
	br	x0
kret_pt:
	PUTC	't'

	/*
	 * window 13: pages 0, 5 and 15 of each of E, F, G, H, K (PT_DATA), and
	 * the 2M block's pages 0, 100, 511
	 */
	movz	x2, #(PT_DATA >> 16), lsl #16
	movz	x6, #(PT_HUGE >> 16), lsl #16
	MBEGIN	13
	.irp	blk, 0x00, 0x10, 0x20, 0x30, 0x40
	add	x4, x2, #\blk, lsl #12
	ldr	x3, [x4]
	add	x4, x2, #(\blk + 5), lsl #12
	ldr	x3, [x4]
	add	x4, x2, #(\blk + 15), lsl #12
	ldr	x3, [x4]
	.endr
	add	x4, x2, #(481 - 256 + 4), lsl #12	/* E page 4, misaligned */
	ldr	x3, [x4]
	ldr	x3, [x6]
	add	x4, x6, #100, lsl #12
	ldr	x3, [x4]
	add	x4, x6, #511, lsl #12
	ldr	x3, [x4]
	MEND	13
	PUTC	'd'

	/* window 14: the code chain at PT_CODE, R3 rounds */
	movz	x5, #R3
	movz	x0, #(PT_CODE >> 16), lsl #16
	adr	x8, kret14
	MBEGIN	14
	br	x0
kret14:
	MEND	14
	PUTC	'i'

	/* windows 9 and 10: the C header */
	bl	cwin_const
	mov	w0, #10
	bl	cwin_var
	PUTC	'c'

	/* window 6: two vCPUs; vCPU1 ends it and powers off */
	MBEGIN	6
	MOV32	x0, PSCI_CPU_ON
	mov	x1, #1
	adr	x2, secondary
	mov	x3, #0
	hvc	#0
	MOV32	x0, PSCI_CPU_OFF
	hvc	#0
park:
	wfe
	b	park

secondary:
	movz	x1, #(N6 & 0xffff)
	movk	x1, #(N6 >> 16), lsl #16
9:	subs	x1, x1, #1
	b.ne	9b
	mov	x12, xzr
10:	add	x12, x12, #1
	MOV32	x0, PSCI_AFF_INFO
	mov	x1, #0			/* vCPU0 */
	mov	x2, #0
	hvc	#0
	cmp	x0, #1			/* OFF */
	b.ne	10b
	MEND	6
	PUTC	'6'
	PUTC	'P'
	mov	x0, x12
	movz	x20, #(UART >> 16), lsl #16
	mov	x2, #60
11:	lsr	x1, x0, x2
	and	x1, x1, #0xf
	add	x3, x1, #'0'
	add	x1, x1, #('a' - 10)
	cmp	x3, #'9'
	csel	x1, x3, x1, ls
	strb	w1, [x20]
	subs	x2, x2, #4
	b.ge	11b
	PUTC	'\n'
	MOV32	x0, PSCI_SYS_OFF
	hvc	#0
	b	park

	/*
	 * At the TTBR1 alias: L3 entries 0-63 map CHAIN_PA's 64 pages at
	 * PT_CODE (blocks 0 and 2 with the contiguous bit), entries 256-335
	 * BLK_BUF's 80 pages at PT_DATA (below); L2[1] is a
	 * block descriptor for DATA_BUF at PT_HUGE; L2[0] -> L3, L1[3] -> L2.
	 * Returns to x8.
	 */
build_pt:
	movz	x2, #(PT_L2 >> 16), lsl #16
	add	x2, x2, x7			/* L2 table, kernel alias */
	add	x3, x2, #0x1000			/* L3 table */
	movz	x6, #PTE_ATTR
	mov	x4, xzr
	movz	x5, #(CHAIN_PA >> 16), lsl #16
1:	orr	x9, x5, x6
	tst	x4, #16
	b.ne	2f
	orr	x9, x9, #(1 << PTE_CONT_BIT)
2:	str	x9, [x3, x4, lsl #3]
	add	x5, x5, #1, lsl #12
	add	x4, x4, #1
	cmp	x4, #64
	b.ne	1b
	/*
	 * BLK_BUF's pages 0-63 at PT_DATA: E (0-15) with the contiguous
	 * bit; F (16-31) contiguous without it; G (32-47) with it on all but
	 * its last entry; H (48-63) with it on all 16, but pages 49 and 50
	 * swapped: G and H are not contpte blocks, whatever one entry says.
	 */
	mov	x4, xzr
	movz	x12, #(BLK_BUF >> 16), lsl #16
3:	lsl	x5, x4, #12
	cmp	x4, #49
	b.ne	31f
	add	x5, x5, #0x1000
31:	cmp	x4, #50
	b.ne	32f
	sub	x5, x5, #0x1000
32:	add	x5, x5, x12
	orr	x9, x5, x6
	cmp	x4, #16
	b.lo	33f
	cmp	x4, #32
	b.lo	34f
	cmp	x4, #47
	b.eq	34f
33:	orr	x9, x9, #(1 << PTE_CONT_BIT)
34:	add	x10, x4, #256
	str	x9, [x3, x10, lsl #3]
	add	x4, x4, #1
	cmp	x4, #64
	b.ne	3b
	/*
	 * K: BLK_BUF's pages 64-79 at PT_DATA + 256K, contpte, each entry
	 * stored by an atomic swap (as the kernel's xchg and cmpxchg store).
	 */
5:	lsl	x5, x4, #12
	add	x5, x5, x12
	orr	x9, x5, x6
	orr	x9, x9, #(1 << PTE_CONT_BIT)
	add	x10, x4, #256
	add	x10, x3, x10, lsl #3
	swp	x9, x13, [x10]
	add	x4, x4, #1
	cmp	x4, #80
	b.ne	5b
	/*
	 * E once more, contpte at L3 entries 448-463, as a second process
	 * maps the same folio, then unmapped: E's first mapping must still
	 * be found.
	 */
	mov	x4, xzr
6:	lsl	x5, x4, #12
	add	x5, x5, x12
	orr	x9, x5, x6
	orr	x9, x9, #(1 << PTE_CONT_BIT)
	add	x10, x4, #448
	str	x9, [x3, x10, lsl #3]
	add	x4, x4, #1
	cmp	x4, #16
	b.ne	6b
	mov	x4, xzr
7:	add	x10, x4, #448
	str	xzr, [x3, x10, lsl #3]
	add	x4, x4, #1
	cmp	x4, #16
	b.ne	7b
	/*
	 * E's pages once more, without the bit, one page off 64K alignment
	 * (L3 entries 481-496): a walk there must not take E's contpte
	 * group for its own.
	 */
	mov	x4, xzr
8:	lsl	x5, x4, #12
	add	x5, x5, x12
	orr	x9, x5, x6
	add	x10, x4, #481
	str	x9, [x3, x10, lsl #3]
	add	x4, x4, #1
	cmp	x4, #16
	b.ne	8b
	movz	x9, #(DATA_BUF >> 16), lsl #16
	movz	x10, #PMD_BLOCK_ATTR
	orr	x9, x9, x10
	str	x9, [x2, #8]			/* L2[1] */
	movz	x9, #(PT_L3 >> 16), lsl #16
	movk	x9, #((PT_L3 & 0xffff) | 3)
	str	x9, [x2]			/* L2[0] */
	adr	x11, ptable
	movz	x9, #(PT_L2 >> 16), lsl #16
	movk	x9, #3
	str	x9, [x11, #24]			/* L1[3] */
	dsb	ishst
	tlbi	vmalle1
	dsb	ish
	isb
	br	x8

	/* skip the faulting instruction */
	.balign	2048
vectors:
	.org	vectors + 0x200		/* current EL, SP_ELx, synchronous */
	mrs	x11, elr_el1
	add	x11, x11, #4
	msr	elr_el1, x11
	eret
	.org	vectors + 0x800

	/* L1 table: [0] device 0-1G (UART), [1] normal 1G-2G (RAM) */
	.balign	4096
ptable:
	.quad	0x00000000 | (1 << 10) | (1 << 2) | 1 | (3 << 53)
	.quad	0x40000000 | (1 << 10) | (3 << 8) | 1
	.fill	510, 8, 0

	.balign	16
	.skip	4096
stack_top:

	/* 64 code pages from 0x40100000 (64K aligned): b to the next */
	.org	0x80000
chain:
	.rept	63
	b	. + 4096
	.balign	4096
	.endr
	subs	x5, x5, #1
	b.ne	chain
	br	x8			/* back to the caller: window 3 or 11 */

	.section .note.GNU-stack, "", %progbits
