/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmrs-meter.h - guest side of the mmrs-meter QEMU plugin.
 *
 * mmrs_meter_begin(id) and mmrs_meter_end(id) emit one marker
 * instruction each.  On hardware and on QEMU without the plugin the
 * marker is an architectural no-op; the plugin recognises it by its
 * bytes and opens or closes measurement window @id (0-15).
 *
 *   x86_64 (and i386): nopl MAGIC(%rax,%rax,1), 8 bytes
 *	0f 1f 84 00 <disp32>, disp32 = 0x4d4d5200 | end << 4 | id
 *	A hint NOP: no memory access, no register written.
 *   aarch64: orr xzr, xzr, xzr, lsl|lsr #(16 + id), 4 bytes
 *	0xaa1f03ff | end << 22 | (16 + id) << 10
 *	Writes the zero register: no effect.  Compilers never emit it
 *	(the MOV alias is the form with shift amount 0).
 *
 * The id must be 0-15; other values are reduced modulo 16.  With a
 * compile-time constant id the switch below folds to one instruction.
 */
#ifndef MMRS_METER_H
#define MMRS_METER_H

#define MMRS_METER_X86_MAGIC	0x4d4d5200u
#define MMRS_METER_A64_BASE	0xaa1f03ffu
#define MMRS_METER_NR_IDS	16

#if defined(__x86_64__) || defined(__i386__)
#define __MMRS_METER_INSN(end, id)					\
	do {								\
		asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c0"	\
			     : : "i" (MMRS_METER_X86_MAGIC |		\
				      ((end) << 4) | (id))		\
			     : "memory");				\
	} while (0)
#elif defined(__aarch64__)
#define __MMRS_METER_INSN(end, id)					\
	do {								\
		asm volatile(".inst %c0"				\
			     : : "i" (MMRS_METER_A64_BASE | ((end) << 22) | \
				      ((16 + (id)) << 10))		\
			     : "memory");				\
	} while (0)
#else
#error "mmrs-meter.h: markers exist for x86_64, i386 and aarch64 only"
#endif

#define __MMRS_METER_CASE(end, id)					\
	case id:							\
		__MMRS_METER_INSN(end, id);				\
		break

#define __MMRS_METER_SWITCH(end, id)					\
	do {								\
		switch ((id) & 15) {					\
		__MMRS_METER_CASE(end, 0);				\
		__MMRS_METER_CASE(end, 1);				\
		__MMRS_METER_CASE(end, 2);				\
		__MMRS_METER_CASE(end, 3);				\
		__MMRS_METER_CASE(end, 4);				\
		__MMRS_METER_CASE(end, 5);				\
		__MMRS_METER_CASE(end, 6);				\
		__MMRS_METER_CASE(end, 7);				\
		__MMRS_METER_CASE(end, 8);				\
		__MMRS_METER_CASE(end, 9);				\
		__MMRS_METER_CASE(end, 10);				\
		__MMRS_METER_CASE(end, 11);				\
		__MMRS_METER_CASE(end, 12);				\
		__MMRS_METER_CASE(end, 13);				\
		__MMRS_METER_CASE(end, 14);				\
		__MMRS_METER_CASE(end, 15);				\
		}							\
	} while (0)

static inline __attribute__((always_inline)) void mmrs_meter_begin(unsigned int id)
{
	__MMRS_METER_SWITCH(0, id);
}

static inline __attribute__((always_inline)) void mmrs_meter_end(unsigned int id)
{
	__MMRS_METER_SWITCH(1, id);
}

#endif /* MMRS_METER_H */
