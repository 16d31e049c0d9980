/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bare-metal x86 guest for scripts/qemu-plugin-test.sh: a multiboot
 * (32-bit protected mode, paging off, VA == PA) image for
 * qemu-system-x86_64 -kernel guest-x86.elf -device isa-debug-exit.
 * Linked at 1M.  All addresses are below 4G: every instruction is "user".
 *
 * Window  what                                       expected insns
 *   0     loop, N0 rounds of dec/jnz                 user 2*N0
 *   1     loop, N1 rounds of inc/dec/jnz + nop       user 3*N1+1
 *   2     R2 rounds over 256 data pages at 4M        user 1027*R2
 *   3     R3 rounds over 64 code pages at 2M         user 65*R3+2
 *   9     guest-c.c: mmrs_meter_begin(9); _end(9)    0
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

.macro MBEGIN id
	.byte	0x0f, 0x1f, 0x84, 0x00
	.long	0x4d4d5200 | \id
.endm
.macro MEND id
	.byte	0x0f, 0x1f, 0x84, 0x00
	.long	0x4d4d5210 | \id
.endm

	.code32
	.text
	.globl	_start
	.balign	4
mbh:	.long	0x1badb002, 0, -0x1badb002
_start:
	mov	$stack_top, %esp
	mov	$N0, %ecx
	MBEGIN	0
1:	dec	%ecx
	jnz	1b
	MEND	0

	mov	$N1, %ecx
	MBEGIN	1
2:	inc	%eax
	dec	%ecx
	jnz	2b
	nop
	MEND	1

	mov	$R2, %ebp
	MBEGIN	2
3:	xor	%esi, %esi
4:	mov	0x400000(%esi), %eax
	add	$4096, %esi
	cmp	$0x100000, %esi
	jne	4b
	dec	%ebp
	jnz	3b
	MEND	2

	mov	$R3, %ebp
	MBEGIN	3
	jmp	chain
chain_ret:
	MEND	3

	call	cwin_const

	mov	$0, %al			/* isa-debug-exit: QEMU exits with 1 */
	out	%al, $0xf4
5:	hlt
	jmp	5b

	.balign	16
	.skip	4096
stack_top:

	/* 64 code pages from 2M: jmp to the next */
	.org	0x100000
chain:
	.rept	63
	jmp	. + 4096
	.balign	4096, 0x90
	.endr
	dec	%ebp
	jnz	chain
	jmp	chain_ret

	.section .note.GNU-stack, "", %progbits
