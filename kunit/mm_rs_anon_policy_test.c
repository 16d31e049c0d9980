// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mm-rs's anonymous order policies (mm/mm_rs/anon/policy.rs):
 * the anon_order_policy switch, the arch policy of the LARGE_ANON_FOLIO RFC
 * (its table of cases), the auto policy's controller (its transitions, and
 * whole access patterns played against a model of the page table, without
 * faults), and both policies on real faults in the test mm.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/mm_rs.h>
#include <linux/mman.h>
#include <linux/mmzone.h>
#include <linux/oom.h>
#include <linux/prandom.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/vmstat.h>

#include "internal.h"
#include "mm_rs_kunit.h"

struct policy_ctx {
	struct thp_knobs saved;
	struct mm_rs_paths saved_paths;
	int saved_policy;
};

static int policy_test_init(struct kunit *test)
{
	struct policy_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	mm_rs_knobs_get(&c->saved);
	mm_rs_paths_get(&c->saved_paths);
	c->saved_policy = mm_rs_anon_order_policy_load();
	test->priv = c;
	return 0;
}

static void policy_test_exit(struct kunit *test)
{
	struct policy_ctx *c = test->priv;

	mm_rs_anon_order_policy_store(c->saved_policy);
	mm_rs_knobs_set(&c->saved);
	mm_rs_paths_set(&c->saved_paths);
	/* No test leaves auto's failure memory to the next. */
	mm_rs_anon_auto_fail_test(0, 0, 0);
}

/* The switch takes exactly its three names; anything else changes nothing. */
static void policy_knob_values(struct kunit *test)
{
	static const char * const bad[] = {
		"", "\n", "mthp2", "MTHP", "Arch", "auto auto", "arch\n\n", " auto", "0", "1", "-1",
		"mth", "automatic",
	};
	static const struct { const char *in; int policy; } good[] = {
		{ "mthp", MM_RS_ANON_ORDER_MTHP }, { "arch\n", MM_RS_ANON_ORDER_ARCH },
		{ "auto", MM_RS_ANON_ORDER_AUTO }, { "mthp\n", MM_RS_ANON_ORDER_MTHP },
	};
	int i, j;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		KUNIT_EXPECT_EQ(test, mm_rs_anon_order_policy_set(good[i].in), 0);
		KUNIT_EXPECT_EQ(test, mm_rs_anon_order_policy_load(), good[i].policy);
		for (j = 0; j < ARRAY_SIZE(bad); j++) {
			KUNIT_EXPECT_EQ_MSG(test, mm_rs_anon_order_policy_set(bad[j]), -EINVAL,
					    "\"%s\"", bad[j]);
			KUNIT_EXPECT_EQ(test, mm_rs_anon_order_policy_load(), good[i].policy);
		}
	}

	/*
	 * The policy is a user's knob, in sysfs; the switches between Rust and
	 * C are for tests and benchmarks, in debugfs only (not ABI).
	 */
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("anon_order_policy", "mthp\n"), 5);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("anon_order_policy", "mthp"), -ENOENT);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("anon_order", "1"), -ENOENT);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("anon_order", "1\n"), 2);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("anon_order", "00000001"), -EINVAL);
	mm_rs_expect_switch_strict(test, "anon_order", true);
	if (IS_ENABLED(CONFIG_MM_RS_ANON_FAULT)) {
		KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("anon_fault", "1"), -ENOENT);
		KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("anon_fault", "1"), 1);
		mm_rs_expect_switch_strict(test, "anon_fault", true);
	}
}

/* The RFC's arch_wants_pte_order(): arm64's contiguous-PTE block, else none. */
#ifdef CONFIG_ARM64
#define ARCH_PTE_ORDER (CONT_PTE_SHIFT - PAGE_SHIFT)
#else
#define ARCH_PTE_ORDER (-1)
#endif

/* The RFC's ANON_FOLIO_MAX_ORDER_UNHINTED, as it wrote it. */
#define RFC_MAX_ORDER_UNHINTED \
	(ilog2(max_t(unsigned long, SZ_64K, PAGE_SIZE)) - PAGE_SHIFT)

/*
 * The RFC's orders, {prefer, costly, 0} less the 0s and any order an
 * anonymous fault does not map with PTEs, as a mask.
 */
static unsigned long rfc_orders(int arch, bool hinted)
{
	int prefer = max(arch, PAGE_ALLOC_COSTLY_ORDER);
	unsigned long mask;

	if (!hinted)
		prefer = min_t(int, prefer, RFC_MAX_ORDER_UNHINTED);
	mask = BIT(prefer) | (prefer > PAGE_ALLOC_COSTLY_ORDER ? BIT(PAGE_ALLOC_COSTLY_ORDER) : 0);
	return mask & (BIT(PMD_ORDER) - 1) & ~(BIT(0) | BIT(1));
}

/*
 * The arch policy's table: no arch preference (x86), arm64's contpte orders
 * for 4K, 16K and 64K pages (4, 7, 5), orders below costly, and one at the
 * PMD, each in a VMA that opted in to THP and one that did not.
 */
static void arch_orders_table(struct kunit *test)
{
	static const int arch[] = { -1, 0, 2, 3, 4, 5, 7, 8, PMD_ORDER, PMD_ORDER + 3 };
	int i, hinted;

	for (i = 0; i < ARRAY_SIZE(arch); i++)
		for (hinted = 0; hinted < 2; hinted++)
			KUNIT_EXPECT_EQ_MSG(test, mm_rs_anon_arch_orders_test(arch[i], hinted),
					    rfc_orders(arch[i], hinted), "arch %d, hinted %d",
					    arch[i], hinted);

	/* Written out for 4K pages: what the RFC's numbers were for. */
	if (PAGE_SIZE == SZ_4K) {
		KUNIT_EXPECT_EQ(test, mm_rs_anon_arch_orders_test(-1, false), BIT(3));
		KUNIT_EXPECT_EQ(test, mm_rs_anon_arch_orders_test(-1, true), BIT(3));
		KUNIT_EXPECT_EQ(test, mm_rs_anon_arch_orders_test(4, false), BIT(4) | BIT(3));
		KUNIT_EXPECT_EQ(test, mm_rs_anon_arch_orders_test(7, false), BIT(4) | BIT(3));
		KUNIT_EXPECT_EQ(test, mm_rs_anon_arch_orders_test(7, true), BIT(7) | BIT(3));
	}
	/* The auto policy's ceiling: the 64K cap, or the arch order where hinted. */
	for (i = 0; i < ARRAY_SIZE(arch); i++) {
		int cap = RFC_MAX_ORDER_UNHINTED;
		int top = min_t(int, max3(arch[i], PAGE_ALLOC_COSTLY_ORDER, cap), PMD_ORDER - 1);

		KUNIT_EXPECT_EQ_MSG(test, mm_rs_anon_auto_max_order_test(arch[i], false),
				    cap < FIRST_ORDER ? 0 : cap, "arch %d", arch[i]);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_anon_auto_max_order_test(arch[i], true),
				    top < FIRST_ORDER ? 0 : top, "arch %d, hinted", arch[i]);
	}
}

/* What makes a VMA look like another kind for a moment. */
enum vma_disguise {
	AS_IS,
	HW_NO_THP,	/* TRANSPARENT_HUGEPAGE_UNSUPPORTED set */
	NOT_ANONYMOUS,	/* vm_ops set: a file or special mapping */
};

static const struct vm_operations_struct disguise_vm_ops = {};

/*
 * One VMA of the test mm, set up as @madv says, with @extra flags and
 * @disguise for the check, checked under @global.
 */
static int eligible_as(struct kunit *test, enum global_mode global, int madv,
		       bool disable_thp, vm_flags_t extra, enum vma_disguise disguise)
{
	struct policy_ctx *c = test->priv;
	struct thp_knobs k = { .tpf = mm_rs_tpf_with_global(c->saved.tpf, global) };
	unsigned long addr = mm_rs_map_anon(test, 4 * PAGE_SIZE);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int ret;

	KUNIT_ASSERT_NE(test, addr, 0);
	if (disguise == HW_NO_THP)
		k.tpf |= BIT(TRANSPARENT_HUGEPAGE_UNSUPPORTED);
	mm_rs_knobs_set(&k);
	if (madv)
		KUNIT_EXPECT_EQ(test, do_madvise(mm, addr, 4 * PAGE_SIZE, madv), 0);
	if (disable_thp)
		set_bit(MMF_DISABLE_THP, &mm->flags);
	mmap_write_lock(mm);
	vma = vma_lookup(mm, addr);
	MM_RS_ASSERT_MMAP_WRITE(test, vma, mm);
	if (extra)
		vm_flags_set(vma, extra);
	if (disguise == NOT_ANONYMOUS)
		vma->vm_ops = &disguise_vm_ops;
	mmap_write_downgrade(mm);
	ret = mm_rs_anon_rfc_eligible_test(vma);
	mmap_read_unlock(mm);
	if (extra || disguise == NOT_ANONYMOUS) {
		mmap_write_lock(mm);
		vm_flags_clear(vma, extra);
		vma_set_anonymous(vma);
		mmap_write_unlock(mm);
	}
	if (disguise == HW_NO_THP) {
		k.tpf &= ~BIT(TRANSPARENT_HUGEPAGE_UNSUPPORTED);
		mm_rs_knobs_set(&k);
	}
	if (disable_thp)
		clear_bit(MMF_DISABLE_THP, &mm->flags);
	return ret;
}

static int eligible(struct kunit *test, enum global_mode global, int madv, bool disable_thp,
		    vm_flags_t extra)
{
	return eligible_as(test, global, madv, disable_thp, extra, AS_IS);
}

/*
 * The RFC's eligibility (the arch and auto policies): no large folio where
 * THP is disabled for the VMA, the process, the system or by the hardware;
 * none for a VMA that is not anonymous, is armed with userfaultfd in any mode,
 * or is a stack execve() is still setting up; opted in under THP always, or
 * madvise with MADV_HUGEPAGE. Each rule on its own, against a VMA that is
 * eligible without it, so that deleting any one rule fails here.
 */
static void rfc_eligibility(struct kunit *test)
{
	/* Eligible and opted in, as the control of each rule below. */
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, MADV_HUGEPAGE, false, 0), 1);
	KUNIT_EXPECT_EQ(test, eligible_as(test, GLOBAL_ALWAYS, 0, false, 0, HW_NO_THP), -1);
	KUNIT_EXPECT_EQ(test, eligible_as(test, GLOBAL_MADVISE, MADV_HUGEPAGE, false, 0,
					  HW_NO_THP), -1);
	KUNIT_EXPECT_EQ(test, eligible_as(test, GLOBAL_ALWAYS, 0, false, 0, NOT_ANONYMOUS), -1);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, 0, false,
				       VM_GROWSDOWN | VM_STACK_INCOMPLETE_SETUP), -1);
	/* A stack once set up is eligible. */
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, 0, false, VM_GROWSDOWN), 1);
#ifdef CONFIG_USERFAULTFD
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, 0, false, VM_UFFD_WP), -1);
	if (VM_UFFD_MINOR)
		KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, 0, false, VM_UFFD_MINOR), -1);
#endif
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_NEVER, 0, false, 0), -1);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_NEVER, MADV_HUGEPAGE, false, 0), -1);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_MADVISE, 0, false, 0), 0);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_MADVISE, MADV_HUGEPAGE, false, 0), 1);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, 0, false, 0), 1);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, MADV_NOHUGEPAGE, false, 0), -1);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_MADVISE, MADV_NOHUGEPAGE, false, 0), -1);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, 0, true, 0), -1);
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_MADVISE, 0, true, 0), -1);
#ifdef CONFIG_USERFAULTFD
	KUNIT_EXPECT_EQ(test, eligible(test, GLOBAL_ALWAYS, 0, false, VM_UFFD_MISSING), -1);
#endif
}

/* The auto controller, one fault at a time. */
struct auto_sim {
	unsigned long state[2];
	struct mm_rs_auto_choice c;
};

static struct mm_rs_auto_choice *auto_fault(struct auto_sim *s, unsigned long page,
					    unsigned int max, unsigned int mapped)
{
	mm_rs_anon_auto_decide_test(s->state, page, max, &s->c);
	mm_rs_anon_auto_mapped_test(s->state, page, mapped, &s->c);
	return &s->c;
}

static void expect_choice(struct kunit *test, const struct mm_rs_auto_choice *c,
			  unsigned int order, bool probe, int event)
{
	KUNIT_EXPECT_EQ(test, c->order, order);
	KUNIT_EXPECT_EQ(test, c->probe, probe);
	KUNIT_EXPECT_EQ(test, c->event, event);
}

/* Each transition of the controller, from a zeroed (new) VMA. */
static void auto_transitions(struct kunit *test)
{
	struct mm_rs_auto_choice *c;
	struct rnd_state rs;
	struct auto_sim s;
	int i, probes;

	/* A new VMA starts at the largest order; its first fault is a probe. */
	memset(&s, 0, sizeof(s));
	c = auto_fault(&s, 100, 4, 0);
	expect_choice(test, c, 0, true, MM_RS_AUTO_NONE);
	/* The probe's neighbour next: dense, the largest order, no probe yet. */
	c = auto_fault(&s, 101, 4, 0);
	expect_choice(test, c, 4, false, MM_RS_AUTO_DENSE);
	/* A refault of the same page says nothing. */
	memset(&s, 0, sizeof(s));
	auto_fault(&s, 100, 4, 0);
	c = auto_fault(&s, 100, 4, 0);
	KUNIT_EXPECT_EQ(test, c->event, MM_RS_AUTO_NONE);
	c = auto_fault(&s, 99, 4, 0);
	KUNIT_EXPECT_EQ(test, c->event, MM_RS_AUTO_DENSE);

	/*
	 * Past the neighbours, within a block of the largest order: sparse, if
	 * the probe that follows at once says so again at the same stride.
	 */
	memset(&s, 0, sizeof(s));
	auto_fault(&s, 100, 4, 0);
	c = auto_fault(&s, 104, 4, 0);
	expect_choice(test, c, 0, true, MM_RS_AUTO_NONE);
	c = auto_fault(&s, 108, 4, 0);
	expect_choice(test, c, 0, false, MM_RS_AUTO_SPARSE);
	/* At order 0 there is no probe, and a strided fault does not grow the order. */
	for (i = 1; i < 100; i++) {
		c = auto_fault(&s, 108 + 4 * i, 4, 0);
		expect_choice(test, c, 0, false, MM_RS_AUTO_NONE);
	}
	/* Backwards within the block: sparse too. */
	memset(&s, 0, sizeof(s));
	auto_fault(&s, 100, 4, 0);
	c = auto_fault(&s, 100 - 16, 4, 0);
	expect_choice(test, c, 0, true, MM_RS_AUTO_NONE);
	c = auto_fault(&s, 100 - 32, 4, 0);
	KUNIT_EXPECT_EQ(test, c->event, MM_RS_AUTO_SPARSE);

	/*
	 * From order 0, a fault that continues the last folio grows the order;
	 * the probe interval, reset by the sparse verdict, has run out, so the
	 * new order is first checked by a probe, and the dense verdict follows.
	 */
	c = auto_fault(&s, 200, 4, 0);
	KUNIT_EXPECT_EQ(test, c->order, 0);
	c = auto_fault(&s, 201, 4, 0);
	expect_choice(test, c, 0, true, MM_RS_AUTO_GROW);
	c = auto_fault(&s, 202, 4, 0);
	expect_choice(test, c, 4, false, MM_RS_AUTO_DENSE);
	/* Backwards (a stack growing down) grows too. */
	memset(&s, 0, sizeof(s));
	auto_fault(&s, 500, 4, 0);
	auto_fault(&s, 504, 4, 0);
	auto_fault(&s, 508, 4, 0);		/* sparse: order 0 */
	auto_fault(&s, 600, 4, 0);
	c = auto_fault(&s, 599, 4, 0);
	KUNIT_EXPECT_EQ(test, c->event, MM_RS_AUTO_GROW);
	/*
	 * A dense VMA whose ceiling rises (MADV_HUGEPAGE in a hinted VMA) grows
	 * a step a folio that continues the last: with the probe interval long
	 * by then, one order after the other up to the new ceiling.
	 */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 64; i++)
		auto_fault(&s, 1024 + i, 4, 0);
	{
		unsigned long page = 4096;
		unsigned int top = 0, grows = 0;

		auto_fault(&s, page - 1, 4, 0);
		for (i = 0; i < 6; i++) {
			unsigned int mapped;

			mm_rs_anon_auto_decide_test(s.state, page, 8, &s.c);
			c = &s.c;
			if (c->event == MM_RS_AUTO_GROW) {
				grows++;
				KUNIT_EXPECT_FALSE(test, c->probe);
				KUNIT_EXPECT_EQ(test, c->order, 4 + grows);
			}
			top = max(top, c->order);
			/* What a sequential fault maps: the block must be aligned. */
			mapped = min_t(unsigned int, c->order, __ffs(page));
			if (mapped < FIRST_ORDER)
				mapped = 0;
			mm_rs_anon_auto_mapped_test(s.state, page, mapped, c);
			page += 1UL << mapped;
		}
		KUNIT_EXPECT_EQ(test, grows, 4);
		KUNIT_EXPECT_EQ(test, top, 8);
	}
	/* The ceiling moves with the VMA (MADV_NOHUGEPAGE, THP knobs): it clamps the order. */
	c = auto_fault(&s, 1, 2, 0);
	KUNIT_EXPECT_LE(test, c->order, 2);

	/*
	 * A strided scan past the largest block is told by its stride: the
	 * first probe's verdict has no stride to go by, so the next fault
	 * probes again, and the one after it, at the same stride, is sparse.
	 */
	memset(&s, 0, sizeof(s));
	auto_fault(&s, 0, 4, 0);		/* probe */
	c = auto_fault(&s, 32, 4, 0);		/* no verdict, no stride known: probe again */
	expect_choice(test, c, 0, true, MM_RS_AUTO_NONE);
	c = auto_fault(&s, 64, 4, 0);		/* the same stride: looks sparse, probe again */
	expect_choice(test, c, 0, true, MM_RS_AUTO_NONE);
	c = auto_fault(&s, 96, 4, 0);		/* and again: sparse */
	expect_choice(test, c, 0, false, MM_RS_AUTO_SPARSE);
	/*
	 * A dense VMA touched at random fills the holes its probes left: a
	 * fault in the probe's own block alone is no verdict, nor are two at
	 * different strides; the order stays the largest.
	 */
	memset(&s, 0, sizeof(s));
	auto_fault(&s, 100, 4, 0);		/* probe */
	auto_fault(&s, 101, 4, 4);		/* dense */
	auto_fault(&s, 5000, 4, 4);		/* the next probe, at interval 2 */
	c = auto_fault(&s, 5000 - 6, 4, 0);	/* a hole of the probe's block */
	expect_choice(test, c, 0, true, MM_RS_AUTO_NONE);
	c = auto_fault(&s, 5000 - 3, 4, 0);	/* another, at another stride: probe on */
	expect_choice(test, c, 0, true, MM_RS_AUTO_NONE);
	c = auto_fault(&s, 9000, 4, 4);		/* elsewhere: the largest order still */
	expect_choice(test, c, 4, false, MM_RS_AUTO_NONE);

	/* Once a stride is known, a fault elsewhere only spaces the probes out. */
	memset(&s, 0, sizeof(s));
	auto_fault(&s, 0, 4, 0);
	auto_fault(&s, 1000, 4, 0);		/* probe again: stride 1000 */
	c = auto_fault(&s, 5000, 4, 4);		/* neither neighbour, block nor stride */
	expect_choice(test, c, 4, false, MM_RS_AUTO_NONE);

	/*
	 * Random faults: no verdict, and probes ever rarer, at most one in
	 * 4096 faults once the interval is at its longest.
	 */
	memset(&s, 0, sizeof(s));
	prandom_seed_state(&rs, mm_rs_kunit_seed(test, 0x6175746f));
	probes = 0;
	for (i = 0; i < 40000; i++) {
		c = auto_fault(&s, 1000 + (prandom_u32_state(&rs) % (1 << 20)) * 17, 4, 4);
		KUNIT_EXPECT_NE(test, c->event, MM_RS_AUTO_SPARSE);
		probes += c->probe;
	}
	KUNIT_EXPECT_GE(test, probes, 12);
	KUNIT_EXPECT_LE(test, probes, 12 + 40000 / 4096 + 1);
}

/* A VMA of @nr pages as a model of its page table: which pages are mapped. */
struct vma_model {
	unsigned long *mapped;
	unsigned long nr, faults;
};

/* What the controller reported: the auto policy's /proc/vmstat events. */
struct auto_events {
	unsigned long probe, grow, dense, sparse;
};

/*
 * A first touch of @page: the controller chooses, the largest order up to
 * its choice whose aligned block lies in the VMA and has no mapped page is
 * mapped (the fault's fallback walk), and the controller is told. The events
 * of its choice are added to @ev, if given. The controller sees page numbers
 * @off above the model's (the VMA's first page, for a real VMA). Returns the
 * order mapped, or -1 if @page was mapped already.
 */
static int model_touch_events(struct vma_model *m, struct auto_sim *s, unsigned long page,
			      unsigned long off, unsigned int max, struct auto_events *ev)
{
	int order;

	if (test_bit(page, m->mapped))
		return -1;
	m->faults++;
	mm_rs_anon_auto_decide_test(s->state, page + off, max, &s->c);
	if (ev) {
		ev->probe += s->c.probe;
		ev->grow += s->c.event == MM_RS_AUTO_GROW;
		ev->dense += s->c.event == MM_RS_AUTO_DENSE;
		ev->sparse += s->c.event == MM_RS_AUTO_SPARSE;
	}
	for (order = s->c.order; order >= FIRST_ORDER; order--) {
		unsigned long start = ALIGN_DOWN(page, 1UL << order);

		if (start + (1UL << order) <= m->nr &&
		    find_next_bit(m->mapped, start + (1UL << order), start) >=
		    start + (1UL << order))
			break;
	}
	if (order < FIRST_ORDER)
		order = 0;
	bitmap_set(m->mapped, ALIGN_DOWN(page, 1UL << order), 1UL << order);
	mm_rs_anon_auto_mapped_test(s->state, page + off, order, &s->c);
	return order;
}

static void model_touch(struct vma_model *m, struct auto_sim *s, unsigned long page,
			unsigned int max)
{
	model_touch_events(m, s, page, 0, max, NULL);
}

enum pattern { DENSE_SEQ, DENSE_DESC, DENSE_RANDOM, SPARSE_16K, SPARSE_64K, SPARSE_2M };

static const char * const pattern_name[] = {
	"dense sequential", "dense descending", "dense random",
	"one page per 16K", "one page per 64K", "one page per 2M",
};

/* Fixed seeds for the dense random pattern, so that a run repeats exactly. */
#define AUTO_RANDOM_SEEDS	32

/*
 * Plays pattern @p over the model's VMA (@perm: the order of a dense random
 * touch) and checks it: on a dense pattern the controller takes within 10%
 * of the faults of the largest order alone; on a sparse one it maps within
 * 10% of the pages order 0 would.
 */
static void auto_pattern_check(struct kunit *test, struct vma_model *m, enum pattern p,
			       unsigned int max, const unsigned long *perm, u64 seed)
{
	const unsigned long nr = m->nr;
	unsigned long step = p == SPARSE_16K ? SZ_16K >> PAGE_SHIFT :
			     p == SPARSE_64K ? SZ_64K >> PAGE_SHIFT :
			     p == SPARSE_2M ? SZ_2M >> PAGE_SHIFT : 1;
	unsigned long touched = 0, rss, i;
	struct auto_sim s = {};

	bitmap_zero(m->mapped, nr);
	m->faults = 0;
	for (i = 0; i < nr; i += step) {
		unsigned long page = p == DENSE_DESC ? nr - 1 - i :
				     p == DENSE_RANDOM ? perm[i] : i;

		model_touch(m, &s, page, max);
		touched++;
	}
	rss = bitmap_weight(m->mapped, nr);
	/* Every dense pattern touches every page. */
	if (step == 1)
		KUNIT_EXPECT_EQ_MSG(test, rss, nr, "%s", pattern_name[p]);
	if (p != DENSE_RANDOM || seed == 0)
		kunit_info(test, "%s: %lu touched, %lu faults, %lu mapped", pattern_name[p],
			   touched, m->faults, rss);
	if (step == 1)
		KUNIT_EXPECT_LE_MSG(test, m->faults * 10, (nr >> max) * 11, "%s, seed %llu",
				    pattern_name[p], seed);
	else
		KUNIT_EXPECT_LE_MSG(test, rss * 10, touched * 11, "%s", pattern_name[p]);
}

/*
 * Whole access patterns over 64 MiB against the model, dense random with
 * AUTO_RANDOM_SEEDS permutations. A single probe verdict taken as sparse in
 * a dense random VMA (a later fault in the probe's own block) used to send it
 * to order 0 for good, in about one permutation in twelve.
 */
static void auto_patterns_modelled(struct kunit *test)
{
	const unsigned int max = mm_rs_anon_auto_max_order_test(-1, false);
	const unsigned long nr = SZ_64M >> PAGE_SHIFT;
	struct vma_model m = { .nr = nr };
	struct rnd_state rnd;
	unsigned long *perm;
	enum pattern p;
	unsigned long i;
	u64 seed;

	KUNIT_ASSERT_GE(test, max, FIRST_ORDER);
	m.mapped = kunit_kcalloc(test, BITS_TO_LONGS(nr), sizeof(long), GFP_KERNEL);
	perm = kunit_kcalloc(test, nr, sizeof(*perm), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.mapped);
	KUNIT_ASSERT_NOT_NULL(test, perm);

	for (p = DENSE_SEQ; p <= SPARSE_2M; p++) {
		if (p != DENSE_RANDOM) {
			auto_pattern_check(test, &m, p, max, NULL, 0);
			continue;
		}
		for (seed = 0; seed < AUTO_RANDOM_SEEDS; seed++) {
			prandom_seed_state(&rnd, seed);
			for (i = 0; i < nr; i++)
				perm[i] = i;
			/* swap() evaluates its arguments twice: draw first. */
			for (i = nr - 1; i > 0; i--) {
				unsigned long j = prandom_u32_state(&rnd) % (i + 1);

				swap(perm[i], perm[j]);
			}
			auto_pattern_check(test, &m, p, max, perm, seed);
		}
	}
}

/* The order of the folio mapped at @addr, -1 if none. */
static int folio_order_at(unsigned long addr)
{
	struct page *page;
	int order;

	if (get_user_pages_fast_only(addr, 1, 0, &page) != 1)
		return -1;
	order = folio_order(page_folio(page));
	put_page(page);
	return order;
}

/* The THP knobs: global mode @g, every mTHP size off (the RFC policies ignore them). */
static void knobs_global(struct kunit *test, enum global_mode g)
{
	struct policy_ctx *c = test->priv;
	struct thp_knobs k = { .tpf = mm_rs_tpf_with_global(c->saved.tpf, g) };

	mm_rs_knobs_set(&k);
}

/*
 * The arch policy on real faults: the preferred order (arm64: the contpte
 * order; x86: costly) whatever the mTHP knobs say, falling back to costly
 * when the preferred block does not fit, to 0 when nothing does, and nothing
 * large where THP is disabled.
 */
static void arch_faults(struct kunit *test)
{
	const unsigned long orders = mm_rs_anon_arch_orders_test(ARCH_PTE_ORDER, false);
	const int prefer = __fls(orders);
	struct mm_struct *mm;
	unsigned long base, addr;

	mm_rs_paths_all(true);
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("arch"), 0);
	knobs_global(test, GLOBAL_MADVISE);
	if (IS_ENABLED(CONFIG_ARM64) && PAGE_SIZE == SZ_4K)
		KUNIT_EXPECT_EQ(test, prefer, 4);
	if (IS_ENABLED(CONFIG_X86))
		KUNIT_EXPECT_EQ(test, prefer, PAGE_ALLOC_COSTLY_ORDER);

	/* The preferred order in a roomy VMA. */
	base = mm_rs_map_anon(test, 4 * PMD_SIZE);
	KUNIT_ASSERT_NE(test, base, 0);
	mm = current->mm;	/* the test mm, attached by the first mapping */
	addr = ALIGN(base, PMD_SIZE) + PMD_SIZE / 2 + 5 * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)addr), 0);
	KUNIT_EXPECT_EQ(test, folio_order_at(addr), prefer);

	/*
	 * Where a page of the preferred block is mapped (at order 0, by the
	 * mthp policy with every size off): costly in the other half, or 0.
	 */
	addr = ALIGN(base, PMD_SIZE) + PMD_SIZE;
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("mthp"), 0);
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)addr), 0);
	KUNIT_EXPECT_EQ(test, folio_order_at(addr), 0);
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("arch"), 0);
	addr += (PAGE_SIZE << prefer) / 2;
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)addr), 0);
	KUNIT_EXPECT_EQ(test, folio_order_at(addr),
			prefer > PAGE_ALLOC_COSTLY_ORDER ? PAGE_ALLOC_COSTLY_ORDER : 0);

	/* A VMA smaller than any large block: order 0. */
	base = mm_rs_map_anon(test, 3 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, base, 0);
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)(base + PAGE_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, folio_order_at(base + PAGE_SIZE), 0);

	/* MADV_NOHUGEPAGE, and THP never: nothing large. */
	base = mm_rs_map_anon(test, 4 * PMD_SIZE);
	KUNIT_ASSERT_NE(test, base, 0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, 4 * PMD_SIZE, MADV_NOHUGEPAGE), 0);
	addr = ALIGN(base, PMD_SIZE) + PMD_SIZE / 2;
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)addr), 0);
	KUNIT_EXPECT_EQ(test, folio_order_at(addr), 0);
	knobs_global(test, GLOBAL_NEVER);
	base = mm_rs_map_anon(test, 4 * PMD_SIZE);
	KUNIT_ASSERT_NE(test, base, 0);
	addr = ALIGN(base, PMD_SIZE) + PMD_SIZE / 2;
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)addr), 0);
	KUNIT_EXPECT_EQ(test, folio_order_at(addr), 0);
}

/* Touches one byte every @step bytes of [@start, @start + @len), forwards. */
static int touch_every(unsigned long start, unsigned long len, unsigned long step)
{
	unsigned long a;

	for (a = start; a < start + len; a += step)
		if (put_user((char)1, (char __user *)a))
			return -EFAULT;
	return 0;
}

/*
 * The auto policy on real faults: a dense sequential touch of 4 MiB ends up
 * almost all in folios of the largest order, with the dense verdicts
 * counted; one page per 16K ends up all order 0 but the first (a probe), so
 * the mm maps only what it touched.
 */
static void auto_faults(struct kunit *test)
{
	const unsigned int max = mm_rs_anon_auto_max_order_test(ARCH_PTE_ORDER, false);
	const unsigned long len = SZ_4M;
	struct mm_struct *mm;
	unsigned long base, a, in_max = 0, dense0, sparse0;
	long anon0;

	KUNIT_ASSERT_GE(test, max, FIRST_ORDER);
	mm_rs_paths_all(true);
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("auto"), 0);
	knobs_global(test, GLOBAL_MADVISE);

	base = mm_rs_map_anon(test, len);
	KUNIT_ASSERT_NE(test, base, 0);
	mm = current->mm;	/* the test mm, attached by the first mapping */
	dense0 = mm_rs_vm_event(MM_RS_ANON_AUTO_DENSE);
	KUNIT_ASSERT_EQ(test, touch_every(base, len, PAGE_SIZE), 0);
	for (a = base; a < base + len; a += PAGE_SIZE)
		in_max += folio_order_at(a) == max;
	kunit_info(test, "dense: %lu of %lu pages in order-%u folios", in_max, len >> PAGE_SHIFT,
		   max);
	KUNIT_EXPECT_GE(test, in_max * 10, (len >> PAGE_SHIFT) * 9);
	KUNIT_EXPECT_GT(test, mm_rs_vm_event(MM_RS_ANON_AUTO_DENSE), dense0);

	/*
	 * A new VMA of its own: mapped next to the last one it would be merged
	 * into it, keeping its hint (dense), as a VMA keeps it on a merge.
	 */
	KUNIT_ASSERT_EQ(test, vm_munmap(base, len), 0);
	base = mm_rs_map_anon(test, len);
	KUNIT_ASSERT_NE(test, base, 0);
	sparse0 = mm_rs_vm_event(MM_RS_ANON_AUTO_SPARSE);
	anon0 = mm_rs_anon_pages(mm);
	KUNIT_ASSERT_EQ(test, touch_every(base, len, SZ_16K), 0);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm) - anon0, (long)(len / SZ_16K));
	for (a = base; a < base + len; a += SZ_16K)
		KUNIT_EXPECT_EQ(test, folio_order_at(a), 0);
	KUNIT_EXPECT_EQ(test, mm_rs_vm_event(MM_RS_ANON_AUTO_SPARSE), sparse0 + 1);

	/* MADV_NOHUGEPAGE: nothing large, dense or not. */
	base = mm_rs_map_anon(test, len);
	KUNIT_ASSERT_NE(test, base, 0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, len, MADV_NOHUGEPAGE), 0);
	KUNIT_ASSERT_EQ(test, touch_every(base, len, PAGE_SIZE), 0);
	for (a = base; a < base + len; a += SZ_64K)
		KUNIT_EXPECT_EQ(test, folio_order_at(a), 0);
}

/* auto's failure memory, through mm_rs_anon_auto_fail_test(). */
enum { FAIL_FORGET, FAIL_FAIL, FAIL_OK, FAIL_CAP, FAIL_BITS };

static unsigned int fail_op(int node, int op, unsigned int order)
{
	return mm_rs_anon_auto_fail_test(node, op, order);
}

/*
 * The failure memory's states, as a table of outcomes: what auto asks for
 * (the cap of the order density chose) after each answer of the allocator.
 * Not after a single unlucky fault, nor three in a row; from the fourth in a
 * row, the order is passed over for a backoff (16 faults that would ask for
 * it), tried once, and on another failure passed over twice as long, up to
 * 512; a success forgets at once; nodes are apart, and each order is.
 */
static void auto_fail_memory_table(struct kunit *test)
{
	unsigned int bits;
	int i, r;

	fail_op(0, FAIL_FORGET, 0);
	for (i = 0; i < 3; i++)
		fail_op(0, FAIL_FAIL, 4);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 4);
	/* A success in between starts the count again. */
	fail_op(0, FAIL_OK, 4);
	for (i = 0; i < 3; i++)
		fail_op(0, FAIL_FAIL, 4);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 4);
	fail_op(0, FAIL_FAIL, 4);
	for (r = 0; r < 3; r++) {
		for (i = 0; i < (16 << r); i++)
			KUNIT_EXPECT_EQ_MSG(test, fail_op(0, FAIL_CAP, 4), 3,
					    "round %d, fault %d", r, i);
		/* The try after the backoff. */
		KUNIT_EXPECT_EQ_MSG(test, fail_op(0, FAIL_CAP, 4), 4, "round %d", r);
		/* Other nodes know nothing of it, nor does order 3. */
		KUNIT_EXPECT_EQ(test, fail_op(1, FAIL_CAP, 4), 4);
		KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 3), 3);
		fail_op(0, FAIL_FAIL, 4);
	}
	/* A success forgets, mid-backoff too. */
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 3);
	fail_op(0, FAIL_OK, 4);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_BITS, 4), 0);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 4);

	/* Two orders given up: both passed over; every mTHP order: order 0. */
	for (i = 0; i < 4; i++) {
		fail_op(0, FAIL_FAIL, 4);
		fail_op(0, FAIL_FAIL, 3);
	}
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 2);
	for (i = 0; i < 4; i++)
		fail_op(0, FAIL_FAIL, 2);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 0);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 0), 0);

	/*
	 * A smaller order given up holds the larger back: a free block of order
	 * 4 would have served order 2. With orders 4, 3 and 2 given up, only 2
	 * is tried after its backoff, not 4 nor 3 after theirs; and once 2 is
	 * supplied again, the larger ones are tried at the next faults, their
	 * backoff cut short, the smaller first.
	 */
	fail_op(0, FAIL_FORGET, 0);
	for (i = 0; i < 4; i++) {
		fail_op(0, FAIL_FAIL, 4);
		fail_op(0, FAIL_FAIL, 3);
		fail_op(0, FAIL_FAIL, 2);
	}
	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ_MSG(test, fail_op(0, FAIL_CAP, 4), 0, "fault %d", i);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, fail_op(0, FAIL_CAP, 4), 2, "after the backoff, %d", i);
	fail_op(0, FAIL_FAIL, 4);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_BITS, 4) >> 8, 32);
	fail_op(0, FAIL_OK, 2);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_BITS, 4) >> 8, 0);
	/* Order 3 is still given up, and held back by nothing now: tried first. */
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 3);
	fail_op(0, FAIL_OK, 3);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 4);
	/* A success of an order not given up leaves the others' backoff alone. */
	fail_op(0, FAIL_FORGET, 0);
	for (i = 0; i < 4; i++)
		fail_op(0, FAIL_FAIL, 4);
	fail_op(0, FAIL_OK, 3);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_BITS, 4) >> 8, 16);
	KUNIT_EXPECT_EQ(test, fail_op(0, FAIL_CAP, 4), 3);

	/* The backoff stops doubling at 512 faults. */
	fail_op(0, FAIL_FORGET, 0);
	for (i = 0; i < 20; i++)
		fail_op(0, FAIL_FAIL, 4);
	bits = fail_op(0, FAIL_BITS, 4);
	KUNIT_EXPECT_EQ(test, bits >> 8, 512);
	KUNIT_EXPECT_EQ(test, (bits >> 4) & 0xf, 9);
	fail_op(0, FAIL_FORGET, 0);
}

static unsigned long policy_alloc_fail_orders;

static struct folio *policy_alloc_failing(gfp_t gfp, int order, struct vm_area_struct *vma,
					  unsigned long addr)
{
	if (order < BITS_PER_LONG && (policy_alloc_fail_orders & BIT(order)))
		return NULL;
	return vma_alloc_folio(gfp, order, vma, addr, true);
}

/* Pages of [@base, @base + @len) in folios of @order. */
static unsigned long pages_in_order(unsigned long base, unsigned long len, int order)
{
	unsigned long a, n = 0;

	for (a = base; a < base + len; a += PAGE_SIZE)
		n += folio_order_at(a) == order;
	return n;
}

/*
 * @len bytes aligned to @align in a fresh anonymous mapping, with room
 * before and after, so that its blocks are whole and nothing merges into it.
 */
static unsigned long aligned_area(struct kunit *test, unsigned long len, unsigned long align)
{
	unsigned long base = mm_rs_map_anon(test, len + 2 * align);

	KUNIT_ASSERT_NE(test, base, 0);
	return ALIGN(base, align);
}

/*
 * auto on real faults against an allocator that cannot supply the largest
 * order (a static stub fails it): a dense touch of 1 MiB first pays for that
 * order a few times, then stops asking for it and maps the next one down,
 * where the mthp policy with that size enabled pays at every block. Once the
 * allocator can supply it again, auto gets it back within its backoff: a
 * dense touch of 8 MiB more is mostly in folios of that order.
 */
static void auto_fail_real_faults(struct kunit *test)
{
	const unsigned int max = mm_rs_anon_auto_max_order_test(ARCH_PTE_ORDER, false);
	const unsigned long block = PAGE_SIZE << max;
	const unsigned long blocks = SZ_1M / block;
	struct policy_ctx *c = test->priv;
	struct thp_knobs k = { .tpf = c->saved.tpf, .always = BIT(max) };
	unsigned long base, f0, tries;

	KUNIT_ASSERT_GE(test, max, FIRST_ORDER + 1);
	mm_rs_paths_all(true);
	fail_op(0, FAIL_FORGET, 0);
	kunit_activate_static_stub(test, mm_rs_fault_alloc_folio, policy_alloc_failing);
	policy_alloc_fail_orders = BIT(max);

	/* mthp with that size always: the first fault of every block tries it. */
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("mthp"), 0);
	mm_rs_knobs_set(&k);
	base = aligned_area(test, SZ_1M, block);
	f0 = mm_rs_sum_mthp(max, MTHP_STAT_ANON_FAULT_FALLBACK);
	KUNIT_ASSERT_EQ(test, touch_every(base, SZ_1M, PAGE_SIZE), 0);
	KUNIT_EXPECT_EQ(test, mm_rs_sum_mthp(max, MTHP_STAT_ANON_FAULT_FALLBACK) - f0, blocks);
	mm_rs_knobs_set(&c->saved);

	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("auto"), 0);
	knobs_global(test, GLOBAL_MADVISE);
	base = aligned_area(test, SZ_1M, block);
	f0 = mm_rs_sum_mthp(max, MTHP_STAT_ANON_FAULT_FALLBACK);
	KUNIT_ASSERT_EQ(test, touch_every(base, SZ_1M, PAGE_SIZE), 0);
	tries = mm_rs_sum_mthp(max, MTHP_STAT_ANON_FAULT_FALLBACK) - f0;
	kunit_info(test, "auto, order %u failing: %lu tries of it in %lu blocks; %lu pages in order %u",
		   max, tries, blocks, pages_in_order(base, SZ_1M, max - 1), max - 1);
	/* The threshold, then one try per backoff (16, 32, 64 faults that ask for it). */
	KUNIT_EXPECT_GE(test, tries, 4);
	KUNIT_EXPECT_LE(test, tries, 7);
	KUNIT_EXPECT_GE(test, pages_in_order(base, SZ_1M, max - 1) * 2, SZ_1M >> PAGE_SHIFT);

	/*
	 * Two orders failing, the largest and the next: once both are given
	 * up, a fault that tries the largest again after its backoff does not
	 * also retry the next, still in its own backoff.
	 */
	fail_op(0, FAIL_FORGET, 0);
	policy_alloc_fail_orders = BIT(max) | BIT(max - 1);
	base = aligned_area(test, SZ_2M, block);
	f0 = mm_rs_sum_mthp(max - 1, MTHP_STAT_ANON_FAULT_FALLBACK);
	tries = mm_rs_sum_mthp(max, MTHP_STAT_ANON_FAULT_FALLBACK);
	KUNIT_ASSERT_EQ(test, touch_every(base, SZ_2M, PAGE_SIZE), 0);
	tries = mm_rs_sum_mthp(max, MTHP_STAT_ANON_FAULT_FALLBACK) - tries;
	f0 = mm_rs_sum_mthp(max - 1, MTHP_STAT_ANON_FAULT_FALLBACK) - f0;
	kunit_info(test, "auto, orders %u and %u failing: %lu and %lu tries in %lu pages",
		   max, max - 1, tries, f0, (unsigned long)(SZ_2M >> PAGE_SHIFT));
	/*
	 * The next order: the threshold, then one try per backoff. The largest:
	 * tried only until the next is given up (a block of it would have
	 * served the next), not once more per backoff of its own.
	 */
	KUNIT_EXPECT_GE(test, f0, 4);
	KUNIT_EXPECT_LE(test, f0, 8);
	KUNIT_EXPECT_LE(test, tries, 3);

	/* The allocator recovers: so does auto, within the backoff. */
	policy_alloc_fail_orders = 0;
	base = aligned_area(test, SZ_8M, block);
	KUNIT_ASSERT_EQ(test, touch_every(base, SZ_8M, PAGE_SIZE), 0);
	kunit_info(test, "recovered: %lu of %d pages in order %u",
		   pages_in_order(base, SZ_8M, max), SZ_8M >> PAGE_SHIFT, max);
	KUNIT_EXPECT_GE(test, pages_in_order(base, SZ_8M, max) * 2, SZ_8M >> PAGE_SHIFT);
	fail_op(0, FAIL_FORGET, 0);
}

/*
 * auto on blocks whose folio another fault began: a page in the last quarter
 * of each of 16 blocks of the largest order is mapped first (order 0, by the
 * mthp policy with every size off), then auto faults the area densely. No
 * folio covers the page mapped before, whose byte stays; no block gets a
 * folio of the largest order, yet large folios fill what fits around the
 * page; and a block that cannot take the order is no allocator failure: the
 * failure memory stays empty, and the clean blocks after get the largest
 * order again.
 */
static void auto_fault_in_started_block(struct kunit *test)
{
	const unsigned int max = mm_rs_anon_auto_max_order_test(ARCH_PTE_ORDER, false);
	const unsigned long block = PAGE_SIZE << max, started = 16, clean = 48;
	unsigned long base, b, a, foreign, large = 0, in_max = 0;
	unsigned int order;
	char c;
	int o;

	KUNIT_ASSERT_GE(test, max, FIRST_ORDER + 1);
	mm_rs_paths_all(true);
	fail_op(0, FAIL_FORGET, 0);
	knobs_global(test, GLOBAL_MADVISE);
	base = aligned_area(test, (1 + started + clean) * block, block);

	/* Blocks 1 to 16: a page of the last quarter, mapped alone, a byte written. */
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("mthp"), 0);
	for (b = 1; b <= started; b++) {
		foreign = base + b * block + block - block / 4 + (b % 2) * PAGE_SIZE;
		KUNIT_ASSERT_EQ(test, put_user((char)0x5a, (char __user *)(foreign + 100)), 0);
		KUNIT_ASSERT_EQ(test, folio_order_at(foreign), 0);
	}

	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("auto"), 0);
	KUNIT_ASSERT_EQ(test, touch_every(base, (1 + started + clean) * block, PAGE_SIZE), 0);
	for (b = 1; b <= started; b++) {
		foreign = base + b * block + block - block / 4 + (b % 2) * PAGE_SIZE;
		KUNIT_EXPECT_EQ_MSG(test, folio_order_at(foreign), 0, "block %lu", b);
		KUNIT_ASSERT_EQ(test, get_user(c, (char __user *)(foreign + 100)), 0);
		KUNIT_EXPECT_EQ_MSG(test, c, (char)0x5a, "block %lu", b);
		for (a = base + b * block; a < base + (b + 1) * block; a += PAGE_SIZE) {
			o = folio_order_at(a);
			KUNIT_EXPECT_GE_MSG(test, o, 0, "block %lu page %lu unmapped", b,
					    (a - base) / PAGE_SIZE);
			KUNIT_EXPECT_LT_MSG(test, o, (int)max, "block %lu page %lu", b,
					    (a - base) / PAGE_SIZE);
			large += o >= FIRST_ORDER;
		}
	}
	kunit_info(test, "started blocks: %lu of %lu pages in large folios", large,
		   started * block / PAGE_SIZE);
	KUNIT_EXPECT_GT(test, large, 0UL);
	for (order = FIRST_ORDER; order <= max; order++)
		KUNIT_EXPECT_EQ_MSG(test, fail_op(0, FAIL_BITS, order), 0U, "order %u", order);
	in_max = pages_in_order(base + (1 + started) * block, clean * block, max);
	kunit_info(test, "clean blocks after: %lu of %lu pages in order %u", in_max,
		   clean * block / PAGE_SIZE, max);
	KUNIT_EXPECT_GE(test, in_max * 10, clean * block / PAGE_SIZE * 9);
}

/*
 * Real fragmentation, for auto_fragmented_real(): every free block of two
 * pages or more is taken (order-1 allocations, unmovable, neither reclaim
 * nor kswapd), and one page of each is given back at once. Free memory is
 * then single pages whose buddies are held, so no allocation of an mTHP
 * order can succeed, and compaction cannot undo it (the pages held are not
 * movable). Half of free memory stays free: the order-0 faults still have
 * their pages.
 */
struct frag_hold {
	spinlock_t lock;	/* guards pages, nr and oom: the OOM notifier frees them */
	struct list_head pages;
	unsigned long nr;
	bool oom;		/* the OOM notifier gave the pages back */
	struct notifier_block oom_nb;
	char proactiveness[16];	/* vm.compaction_proactiveness before */
};

/* Reads /proc/sys/vm/@name into @old (if not NULL), then writes @val. */
static int vm_sysctl(const char *name, char *old, size_t size, const char *val)
{
	char path[64];

	snprintf(path, sizeof(path), "sys/vm/%s", name);
	return mm_rs_kern_file("proc", path, old, size, val);
}

/* Frees every page held; h->lock held. Returns how many. */
static unsigned long frag_free_held(struct frag_hold *h)
{
	unsigned long n = h->nr;
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &h->pages, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	h->nr = 0;
	return n;
}

/*
 * While memory is fragmented, an order-1 to 3 GFP_KERNEL allocation of any
 * other kernel user (a kworker's task_struct, say) cannot be served, and
 * reclaim and compaction cannot help it (the pages held are unmovable): with
 * no process to kill, out_of_memory() would panic. It calls this first, and
 * returns at once when it frees something: the test then fails ("oom").
 */
static int frag_oom_notify(struct notifier_block *nb, unsigned long unused, void *freed)
{
	struct frag_hold *h = container_of(nb, struct frag_hold, oom_nb);

	spin_lock(&h->lock);
	*(unsigned long *)freed += frag_free_held(h);
	h->oom = true;
	spin_unlock(&h->lock);
	return NOTIFY_OK;
}

static void frag_release(void *data)
{
	struct frag_hold *h = data;

	WARN_ON(unregister_oom_notifier(&h->oom_nb));
	spin_lock(&h->lock);
	frag_free_held(h);
	spin_unlock(&h->lock);
	/*
	 * Put back after the memory: a non-zero value wakes kcompactd at once,
	 * which then finds it whole.
	 */
#ifdef CONFIG_COMPACTION
	WARN_ON(vm_sysctl("compaction_proactiveness", NULL, 0, h->proactiveness));
#endif
}

/* Holds the @nr pages from @page (split_page() split them). */
static void frag_hold_pages(struct frag_hold *h, struct page *page, unsigned long nr)
{
	unsigned long i;

	spin_lock(&h->lock);
	for (i = 0; i < nr; i++)
		list_add(&page[i].lru, &h->pages);
	h->nr += nr;
	spin_unlock(&h->lock);
}

/*
 * Takes every free block of two pages or more, and then every block an
 * anonymous mTHP fault could still be given (its own gfp mask, movable: a
 * free block of the smallest mTHP order that an unmovable allocation cannot
 * take), in passes: between two, the per-CPU lists are drained, and what was
 * freed meanwhile is taken too. Returns the passes it took: the last took
 * nothing an mTHP fault could have had. 0 if 8 were not enough.
 */
static int frag_take(struct frag_hold *h)
{
	const gfp_t gfp = (GFP_KERNEL & ~__GFP_RECLAIM) | __GFP_NOWARN | __GFP_NOMEMALLOC;
	const gfp_t thp = GFP_TRANSHUGE_LIGHT & ~__GFP_COMP;
	struct page *page;
	unsigned long mthp;
	int pass;

	for (pass = 1; pass <= 8; pass++) {
		drain_all_pages(NULL);
		while ((page = alloc_pages(gfp, 1))) {
			/* one page of each back, its buddy held */
			split_page(page, 1);
			__free_page(page + 1);
			frag_hold_pages(h, page, 1);
		}
		drain_all_pages(NULL);
		for (mthp = 0; (page = alloc_pages(thp, FIRST_ORDER)); mthp++) {
			split_page(page, FIRST_ORDER);
			frag_hold_pages(h, page, 1UL << FIRST_ORDER);
		}
		if (!mthp)
			return pass;
	}
	return 0;
}

/* Free blocks of @order or more in the buddy lists of every zone. */
static unsigned long frag_free_blocks(unsigned int order)
{
	unsigned long n = 0;
	struct zone *zone;
	unsigned int o;

	for_each_populated_zone(zone) {
		for (o = order; o < NR_PAGE_ORDERS; o++) {
			/* read without zone->lock: a figure for the log only */
			n += data_race(zone->free_area[o].nr_free);
		}
	}
	return n;
}

/* Failed mTHP allocation attempts of the anonymous faults, every order. */
static unsigned long fallbacks_all(void)
{
	unsigned long n = 0;
	int order;

	for (order = FIRST_ORDER; order < PMD_ORDER; order++)
		n += mm_rs_sum_mthp(order, MTHP_STAT_ANON_FAULT_FALLBACK);
	return n;
}

/* The gfp masks the Rust fault path asked the allocator with, for an mTHP order. */
static gfp_t frag_fault_gfp;

static struct folio *frag_alloc_watch(gfp_t gfp, int order, struct vm_area_struct *vma,
				      unsigned long addr)
{
	if (order > 0)
		frag_fault_gfp |= gfp;
	return vma_alloc_folio(gfp, order, vma, addr, true);
}

/* THP defrag "madvise" (the default): only a madvised VMA's faults reclaim or compact. */
static void defrag_madvise(void)
{
	struct thp_knobs k;

	mm_rs_knobs_get(&k);
	k.tpf &= ~(BIT(TRANSPARENT_HUGEPAGE_DEFRAG_DIRECT_FLAG) |
		   BIT(TRANSPARENT_HUGEPAGE_DEFRAG_KSWAPD_FLAG) |
		   BIT(TRANSPARENT_HUGEPAGE_DEFRAG_KSWAPD_OR_MADV_FLAG));
	k.tpf |= BIT(TRANSPARENT_HUGEPAGE_DEFRAG_REQ_MADV_FLAG);
	mm_rs_knobs_set(&k);
}

/*
 * auto on real faults in really fragmented memory (frag_take(): no free
 * block of any mTHP order; nothing injected, the allocator itself fails).
 * The mthp policy with the largest order always pays a failed allocation
 * at every block of a dense 4 MiB. auto fails each order a few times
 * until the smallest is given up (which holds the larger back: no try per
 * backoff of their own), and maps the pages at order 0, each byte written
 * kept. THP's defrag is "madvise" and the areas are not
 * madvised, so their mTHP allocations ask with the VMA's THP gfp mask,
 * which neither reclaims nor wakes kswapd: a fragmented system's faults do
 * not stall. Once the memory is given back, auto finds its largest order
 * again within the backoff: a dense 8 MiB is mostly in it.
 */
static void auto_fragmented_real(struct kunit *test)
{
	const unsigned int max = mm_rs_anon_auto_max_order_test(ARCH_PTE_ORDER, false);
	const unsigned long block = PAGE_SIZE << max, len = SZ_4M;
	const unsigned long nr_orders = max - FIRST_ORDER + 1;
	unsigned long mthp_base, auto_base, after_base, a, f0, tries, large;
	struct thp_knobs k;
	struct frag_hold *h;
	unsigned int order;
	int node, passes;
	char v;

	KUNIT_ASSERT_GE(test, max, FIRST_ORDER + 1);
	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	spin_lock_init(&h->lock);
	INIT_LIST_HEAD(&h->pages);
	h->oom_nb.notifier_call = frag_oom_notify;
	mm_rs_paths_all(true);
	fail_op(0, FAIL_FORGET, 0);
	knobs_global(test, GLOBAL_MADVISE);
	defrag_madvise();
	mm_rs_knobs_get(&k);
	k.always = BIT(max);
	frag_fault_gfp = 0;
	kunit_activate_static_stub(test, mm_rs_fault_alloc_folio, frag_alloc_watch);
	/* The VMAs first: nothing of theirs is allocated while fragmented. */
	mthp_base = aligned_area(test, len, block);
	auto_base = aligned_area(test, len, block);
	after_base = aligned_area(test, SZ_8M, block);

	/*
	 * Proactive compaction off while fragmented, as frag.c has it: kcompactd
	 * would otherwise move the movable pages that were there before into
	 * the holes, and free blocks of their places. Put back, the notifier
	 * gone and the memory released, by the action if an assertion ends the
	 * test early.
	 */
#ifdef CONFIG_COMPACTION
	KUNIT_ASSERT_EQ(test, vm_sysctl("compaction_proactiveness", h->proactiveness,
					sizeof(h->proactiveness), "0"), 0);
#endif
	KUNIT_ASSERT_EQ(test, register_oom_notifier(&h->oom_nb), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, frag_release, h), 0);
	/*
	 * Passes until one takes nothing an mTHP fault could have had (0: not
	 * in 8). What the faults below meet is judged by what they get: the
	 * mthp policy's failure at every block.
	 */
	passes = frag_take(h);
	kunit_info(test, "fragmented in %d passes: %lu pages held; %lu free blocks of order %d or more",
		   passes, h->nr, frag_free_blocks(FIRST_ORDER), FIRST_ORDER);
	KUNIT_ASSERT_GE(test, h->nr, (unsigned long)(SZ_64M >> PAGE_SHIFT));

	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("mthp"), 0);
	mm_rs_knobs_set(&k);
	f0 = mm_rs_sum_mthp(max, MTHP_STAT_ANON_FAULT_FALLBACK);
	KUNIT_ASSERT_EQ(test, touch_every(mthp_base, len, PAGE_SIZE), 0);
	tries = mm_rs_sum_mthp(max, MTHP_STAT_ANON_FAULT_FALLBACK) - f0;
	kunit_info(test, "mthp, order %u always: %lu failed of %lu blocks", max, tries,
		   len / block);
	KUNIT_EXPECT_EQ(test, tries, len / block);
	k.always = 0;
	mm_rs_knobs_set(&k);

	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("auto"), 0);
	node = numa_node_id();
	f0 = fallbacks_all();
	for (a = auto_base; a < auto_base + len; a += PAGE_SIZE)
		KUNIT_ASSERT_EQ(test, put_user((char)(a >> PAGE_SHIFT), (char __user *)a), 0);
	tries = fallbacks_all() - f0;
	large = len / PAGE_SIZE - pages_in_order(auto_base, len, 0);
	kunit_info(test, "auto: %lu failed in %lu faults, %lu pages in large folios", tries,
		   len / PAGE_SIZE, large);
	/*
	 * The smallest order's threshold (FAIL_THRESHOLD, 4) and a failure at
	 * least of each larger one; at most each order's threshold, and one
	 * try more per backoff of the smallest (16, 32, 64, ... faults that
	 * ask: 6 in 1024).
	 */
	KUNIT_EXPECT_GE(test, tries, 4 + nr_orders - 1);
	KUNIT_EXPECT_LE(test, tries, nr_orders * 4 + 6);
	KUNIT_EXPECT_EQ(test, large, 0UL);
	/*
	 * The failure memory (the entry's low 4 bits: failures in a row): the
	 * smallest order given up, every larger one failed, held back by it.
	 */
	KUNIT_EXPECT_GE(test, fail_op(node, FAIL_BITS, FIRST_ORDER) & 0xf, 4U);
	for (order = FIRST_ORDER + 1; order <= max; order++)
		KUNIT_EXPECT_NE_MSG(test, fail_op(node, FAIL_BITS, order) & 0xf, 0U,
				    "order %u never failed", order);
	KUNIT_EXPECT_EQ_MSG(test, frag_fault_gfp & __GFP_RECLAIM, (gfp_t)0,
			    "mTHP faults asked to reclaim: %pGg", &frag_fault_gfp);
	for (a = auto_base; a < auto_base + len; a += PAGE_SIZE) {
		KUNIT_ASSERT_EQ(test, get_user(v, (char __user *)a), 0);
		if (v != (char)(a >> PAGE_SHIFT)) {
			KUNIT_FAIL(test, "page %lu lost its byte", (a - auto_base) / PAGE_SIZE);
			break;
		}
	}
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(h->oom),
			       "an allocation met the fragmented memory: the OOM notifier freed it");

	/* The memory given back: the largest order again, within the backoff. */
	kunit_release_action(test, frag_release, h);
	drain_all_pages(NULL);
	KUNIT_ASSERT_EQ(test, touch_every(after_base, SZ_8M, PAGE_SIZE), 0);
	large = pages_in_order(after_base, SZ_8M, max);
	kunit_info(test, "given back: %lu of %d pages in order %u", large,
		   SZ_8M >> PAGE_SHIFT, max);
	KUNIT_EXPECT_GE(test, large * 2, SZ_8M >> PAGE_SHIFT);
	fail_op(0, FAIL_FORGET, 0);
}

static void auto_events_get(struct auto_events *e)
{
	e->probe = mm_rs_vm_event(MM_RS_ANON_AUTO_PROBE);
	e->grow = mm_rs_vm_event(MM_RS_ANON_AUTO_GROW);
	e->dense = mm_rs_vm_event(MM_RS_ANON_AUTO_DENSE);
	e->sparse = mm_rs_vm_event(MM_RS_ANON_AUTO_SPARSE);
}

/*
 * The auto policy's events on real faults, counted exactly: each pattern is
 * played on a VMA of its own (aligned, so that its blocks are the model's)
 * and on the model beside it, and mm_rs_anon_auto_{probe,grow,dense,sparse}
 * in /proc/vmstat must move by what the controller's choices for those
 * faults say, no more and no less (nothing else faults with the auto policy
 * while KUnit runs), and each fault must map the folio the model maps.
 * Dense, one page per 16K and per 64K, descending, and a sequence in which a
 * folio of order 2 is continued.
 */
static void auto_events_real_faults(struct kunit *test)
{
	const unsigned int max = mm_rs_anon_auto_max_order_test(ARCH_PTE_ORDER, false);
	const unsigned long len = SZ_2M, nr = len >> PAGE_SHIFT;
	static const unsigned long steps[] = { 1, SZ_16K >> PAGE_SHIFT, SZ_64K >> PAGE_SHIFT };
	/* see below */
	static const unsigned long seq[] = { 0, 16, 32, 48, 49, 300, 304, 308, 312, 316 };
	struct vma_model m = { .nr = nr };
	int i, desc;

	m.mapped = kunit_kcalloc(test, BITS_TO_LONGS(nr), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m.mapped);
	mm_rs_paths_all(true);
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("auto"), 0);
	knobs_global(test, GLOBAL_MADVISE);

	/*
	 * Each step, ascending and descending; then (i == ARRAY_SIZE(steps))
	 * the pages of seq[]: a strided start that sends the VMA to order 0,
	 * a neighbour that grows it to order 2 (a probe), a jump far away that
	 * is mapped at order 2, and the page just past that folio, which grows
	 * the order again only if the fault path told the controller the order
	 * it mapped.
	 */
	for (desc = 0; desc < 2; desc++)
		for (i = 0; i <= ARRAY_SIZE(steps); i++) {
			const bool mixed = i == ARRAY_SIZE(steps);
			struct auto_events want = {}, e0, e1;
			unsigned long raw, base, p;
			struct auto_sim s = {};
			int order;

			if (mixed && desc)
				continue;
			/* A VMA of exactly [base, base + len), base 2M-aligned. */
			raw = mm_rs_map_anon(test, len + SZ_2M);
			KUNIT_ASSERT_NE(test, raw, 0);
			base = ALIGN(raw, SZ_2M);
			if (base > raw)
				KUNIT_ASSERT_EQ(test, vm_munmap(raw, base - raw), 0);
			if (raw + len + SZ_2M > base + len)
				KUNIT_ASSERT_EQ(test, vm_munmap(base + len,
								raw + SZ_2M - base), 0);
			bitmap_zero(m.mapped, nr);
			auto_events_get(&e0);
			for (p = 0; p < nr;) {
				unsigned long page = mixed ? seq[p] : desc ? nr - 1 - p : p;

				KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)
							       (base + page * PAGE_SIZE)), 0);
				order = model_touch_events(&m, &s, page, base >> PAGE_SHIFT, max,
							   &want);
				/* the fault mapped the folio the model did (its fallback walk) */
				if (order >= 0)
					KUNIT_EXPECT_EQ_MSG(test,
							    folio_order_at(base + page * PAGE_SIZE),
							    order, "page %lu", page);
				p += mixed ? 1 : steps[i];
				if (mixed && p >= ARRAY_SIZE(seq))
					break;
			}
			auto_events_get(&e1);
			kunit_info(test, "%s%s: probe %lu grow %lu dense %lu sparse %lu",
				   mixed ? "sparse, a jump, a folio continued" : "step",
				   desc ? " descending" : "", want.probe, want.grow,
				   want.dense, want.sparse);
			if (mixed) {
				/* the model does go to order 0 and grow twice */
				KUNIT_EXPECT_GE(test, want.sparse, 1);
				KUNIT_EXPECT_GE(test, want.grow, 2);
			}
			KUNIT_EXPECT_EQ(test, e1.probe - e0.probe, want.probe);
			KUNIT_EXPECT_EQ(test, e1.grow - e0.grow, want.grow);
			KUNIT_EXPECT_EQ(test, e1.dense - e0.dense, want.dense);
			KUNIT_EXPECT_EQ(test, e1.sparse - e0.sparse, want.sparse);
			KUNIT_EXPECT_EQ(test, vm_munmap(base, len), 0);
		}
}

/* The mthp policy (the default) ignores the VMA's hint: C's decisions, checked elsewhere. */
static void mthp_ignores_hint(struct kunit *test)
{
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	unsigned long base;

	mm_rs_paths_all(true);
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("mthp"), 0);
	knobs_global(test, GLOBAL_MADVISE);
	base = mm_rs_map_anon(test, SZ_1M);
	KUNIT_ASSERT_NE(test, base, 0);
	mm = current->mm;
	KUNIT_ASSERT_EQ(test, touch_every(base, SZ_1M, PAGE_SIZE), 0);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, base);
	KUNIT_EXPECT_NOT_NULL(test, vma);
	if (vma) {
		KUNIT_EXPECT_EQ(test, vma->mm_rs_anon_order[0], 0);
		KUNIT_EXPECT_EQ(test, vma->mm_rs_anon_order[1], 0);
	}
	mmap_read_unlock(mm);
	KUNIT_EXPECT_EQ(test, folio_order_at(base), 0);
}

static struct kunit_case anon_policy_cases[] = {
	KUNIT_CASE(policy_knob_values),
	KUNIT_CASE(arch_orders_table),
	KUNIT_CASE(rfc_eligibility),
	KUNIT_CASE(auto_transitions),
	KUNIT_CASE(auto_patterns_modelled),
	KUNIT_CASE(arch_faults),
	KUNIT_CASE(auto_faults),
	KUNIT_CASE(auto_fail_memory_table),
	KUNIT_CASE(auto_fail_real_faults),
	KUNIT_CASE(auto_fault_in_started_block),
	KUNIT_CASE(auto_fragmented_real),
	KUNIT_CASE(mthp_ignores_hint),
	KUNIT_CASE(auto_events_real_faults),
	{}
};

static struct kunit_suite anon_policy_suite = {
	.name = "mm_rs_anon_policy",
	.init = policy_test_init,
	.exit = policy_test_exit,
	.test_cases = anon_policy_cases,
};

kunit_test_suite(anon_policy_suite);

MODULE_DESCRIPTION("KUnit tests for mm-rs anonymous order policies");
MODULE_LICENSE("GPL");
