/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for vmlinux for scripts/boot-retry-test.sh: two functions with
 * the bytes of the prod-debug kernel around their static branch sites, the
 * sites in __jump_table as the kernel lays it out (struct jump_entry: s32
 * code, s32 target, long key, each relative to itself), and INT3 padding;
 * and the entry of handle_mm_fault(), which the KSM KUnit suite kprobes
 * (its kprobe address is +0x4, past the ENDBR64).
 */
	.text
	.globl	sched_clock_tick
	.type	sched_clock_tick, @function
sched_clock_tick:			/* endbr64; push %rbp, %r15..%r12, %rbx; sub $0x10,%rsp */
	.byte	0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55
	.byte	0x41, 0x54, 0x53, 0x48, 0x83, 0xec, 0x10
.Lsched_clock_stable:			/* +0x12: jmp, a static branch */
	.byte	0xeb, 0x0f
.Lout:					/* add $0x10,%rsp; pop %rbx; ret */
	.byte	0x48, 0x83, 0xc4, 0x10, 0x5b, 0xc3
	.size	sched_clock_tick, . - sched_clock_tick
	.byte	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc

	.globl	task_tick_fair
	.type	task_tick_fair, @function
task_tick_fair:
	.fill	0x80, 1, 0x90
	.byte	0xe8, 0xdb, 0x6f, 0x00, 0x00	/* +0x80: call update_load_avg */
.Lnuma_balancing:			/* +0x85: nopl 0x0(%rax,%rax,1), a static branch */
	.byte	0x0f, 0x1f, 0x44, 0x00, 0x00
	.byte	0xc3
	.size	task_tick_fair, . - task_tick_fair
	.byte	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc

	.globl	handle_mm_fault
	.type	handle_mm_fault, @function
handle_mm_fault:			/* endbr64; push %rbp, %r15, %r14; sub $0xf0,%rsp */
	.byte	0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x41, 0x57, 0x41, 0x56
	.byte	0x48, 0x81, 0xec, 0xf0, 0x00, 0x00, 0x00
	.byte	0xc3
	.size	handle_mm_fault, . - handle_mm_fault

	.data
	.globl	__start___jump_table, __stop___jump_table
	.balign	8
__start___jump_table:
	.long	.Lsched_clock_stable - .
	.long	.Lout - .
	.quad	key - .
	.long	.Lnuma_balancing - .
	.long	.Lout - .
	.quad	key - .
__stop___jump_table:
key:
	.quad	0
