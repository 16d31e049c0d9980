/* SPDX-License-Identifier: GPL-2.0 */
/* The generated functions of bigtext (gen.py). */
#ifndef BIGTEXT_H
#define BIGTEXT_H

#define BIGTEXT_NFUNCS	4096

#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)

/* A function of NOPS no-ops in the "bigtext" section, which only this fills. */
#define BIGTEXT_FN(n)							\
	__attribute__((noinline, section("bigtext"), aligned(16)))	\
	void f##n(void)							\
	{								\
		__asm__ volatile(".rept " __stringify(NOPS) "\n\tnop\n\t.endr"); \
	}

extern void (*const bigtext_fns[BIGTEXT_NFUNCS])(void);
extern const int bigtext_nfuncs;
extern char __start_bigtext[], __stop_bigtext[];

#endif
