// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mm-rs's anonymous folio-order selection
 * (mm/mm_rs/anon/): the Rust decisions against C's alloc_anon_folio()
 * decisions on the same inputs, and real faults in a test mm on both paths.
 *
 * The tests rewrite the THP knobs while they run and restore them after.
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/jump_label.h>
#include <linux/mm_rs.h>
#include <linux/mman.h>
#include <linux/prandom.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "mm_rs_kunit.h"

#define NR_ORDERS		(PMD_ORDER - FIRST_ORDER)
#define ANON_ORDERS		(GENMASK(PMD_ORDER - 1, FIRST_ORDER))
/* Where the fake VMAs live: PMD-aligned, never mapped (they are never faulted). */
#define FAKE_BASE		BIT(32)
#define RANDOM_SEED		0x6d6d2d7273ULL
#define RANDOM_CASES		100000

struct anon_order_ctx {
	struct thp_knobs saved;
	struct mm_rs_paths saved_paths;
	struct vm_area_struct vma;
	struct mm_struct *mm;
	pte_t *table;
	pte_t present;
	unsigned long checks;
};

static const struct vm_operations_struct file_vm_ops;
static struct anon_vma *const some_anon_vma = (struct anon_vma *)&file_vm_ops;

/* Knob modes for each large order, from a base-4 number (one digit an order). */
static void knobs_from_index(struct thp_knobs *k, unsigned int index)
{
	int order;

	k->always = 0;
	k->madvise = 0;
	k->inherit = 0;
	for (order = FIRST_ORDER; order < PMD_ORDER; order++, index /= 4) {
		switch (index % 4) {
		case KNOB_ALWAYS:
			k->always |= BIT(order);
			break;
		case KNOB_MADVISE:
			k->madvise |= BIT(order);
			break;
		case KNOB_INHERIT:
			k->inherit |= BIT(order);
			break;
		}
	}
}

static void set_vma(struct anon_order_ctx *c, unsigned long start,
		    unsigned long end, vm_flags_t flags, bool anon_vma)
{
	c->vma.vm_start = start;
	c->vma.vm_end = end;
	vm_flags_init(&c->vma, flags);
	c->vma.anon_vma = anon_vma ? some_anon_vma : NULL;
}

/* Compares C and Rust on the current fake VMA and knobs; false on a mismatch. */
static bool compare_orders(struct kunit *test, struct anon_order_ctx *c,
			   unsigned long addr, const char *what, u64 n)
{
	unsigned long want = anon_folio_orders(&c->vma, addr);
	unsigned long got = mm_rs_anon_folio_orders(&c->vma, addr);

	c->checks++;
	if (want == got)
		return true;
	KUNIT_FAIL(test,
		   "%s #%llu: vma [%#lx, %#lx) flags %#lx anon_vma %d mm flags %#lx addr %#lx knobs always %#lx madvise %#lx inherit %#lx tpf %#lx: C %#lx, Rust %#lx",
		   what, n, c->vma.vm_start, c->vma.vm_end, c->vma.vm_flags,
		   !!c->vma.anon_vma, c->mm->flags, addr,
		   huge_anon_orders_always, huge_anon_orders_madvise,
		   huge_anon_orders_inherit, transparent_hugepage_flags,
		   want, got);
	return false;
}

static bool compare_suitable(struct kunit *test, struct anon_order_ctx *c,
			     unsigned long addr, unsigned long orders,
			     const char *what, u64 n)
{
	unsigned long want = thp_vma_suitable_orders(&c->vma, addr, orders);
	unsigned long got = mm_rs_thp_vma_suitable_orders(&c->vma, addr, orders);

	c->checks++;
	if (want == got)
		return true;
	KUNIT_FAIL(test,
		   "%s #%llu: vma [%#lx, %#lx) pgoff %#lx %s addr %#lx orders %#lx: C %#lx, Rust %#lx",
		   what, n, c->vma.vm_start, c->vma.vm_end, c->vma.vm_pgoff,
		   vma_is_anonymous(&c->vma) ? "anon" : "file", addr, orders,
		   want, got);
	return false;
}

static bool compare_pte_none(struct kunit *test, struct anon_order_ctx *c,
			     unsigned long addr, unsigned long orders,
			     const char *what, u64 n)
{
	unsigned long want = anon_folio_pte_none_orders(c->table, addr, orders);
	unsigned long got = mm_rs_anon_folio_pte_none_orders(c->table, addr, orders);

	c->checks++;
	if (want == got)
		return true;
	KUNIT_FAIL(test, "%s #%llu: addr %#lx (index %lu) orders %#lx: C %#lx, Rust %#lx",
		   what, n, addr, pte_index(addr), orders, want, got);
	return false;
}

static int anon_order_test_init(struct kunit *test)
{
	struct anon_order_ctx *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->mm = kunit_kzalloc(test, sizeof(*c->mm), GFP_KERNEL);
	c->table = kunit_kcalloc(test, PTRS_PER_PTE, sizeof(pte_t), GFP_KERNEL);
	if (!c->mm || !c->table)
		return -ENOMEM;
	c->present = pfn_pte(1, PAGE_KERNEL);
	c->vma.vm_mm = c->mm;
	mm_rs_knobs_get(&c->saved);
	mm_rs_paths_get(&c->saved_paths);
	test->priv = c;
	return 0;
}

static void anon_order_test_exit(struct kunit *test)
{
	struct anon_order_ctx *c = test->priv;

	mm_rs_knobs_set(&c->saved);
	mm_rs_paths_set(&c->saved_paths);
}

/* Edge offsets, in pages, around the blocks of every large order. */
static const unsigned long edges[] = {
	0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
	127, 128, 129, 255, 256, 257, 383, 510, 511, 512, 513, 767, 1023, 1024,
};

/* Every order alone and all together at @addr, if @addr is in the fake VMA. */
static bool compare_suitable_at(struct kunit *test, struct anon_order_ctx *c,
				unsigned long addr, u64 *n)
{
	int order;

	if (addr >= c->vma.vm_end)
		return true;
	if (!compare_suitable(test, c, addr, GENMASK(PMD_ORDER, 0), "all", (*n)++))
		return false;
	for (order = 0; order <= PMD_ORDER; order++)
		if (!compare_suitable(test, c, addr, BIT(order), "single", (*n)++))
			return false;
	return true;
}

/* thp_vma_suitable_orders(): every order alone and all together, anon and file VMAs. */
static void suitable_orders_bounds(struct kunit *test)
{
	static const unsigned long pgoffs[] = { 0, 1, 3, 16, 17, 512 };
	struct anon_order_ctx *c = test->priv;
	int s, e, a, p;
	u64 n = 0;

	for (p = -1; p < (int)ARRAY_SIZE(pgoffs); p++) {
		c->vma.vm_ops = p < 0 ? NULL : &file_vm_ops;
		c->vma.vm_pgoff = p < 0 ? 0 : pgoffs[p];
		for (s = 0; s < ARRAY_SIZE(edges); s++) {
			for (e = 0; e < ARRAY_SIZE(edges); e++) {
				unsigned long start = FAKE_BASE + edges[s] * PAGE_SIZE;
				unsigned long end = FAKE_BASE + PMD_SIZE + edges[e] * PAGE_SIZE;

				set_vma(c, start, end, VM_READ | VM_WRITE, true);
				for (a = 0; a < ARRAY_SIZE(edges); a++) {
					unsigned long addr = start + edges[a] * PAGE_SIZE;

					if (!compare_suitable_at(test, c, addr, &n))
						return;
				}
			}
		}
	}
	c->vma.vm_ops = NULL;
	KUNIT_EXPECT_GT(test, c->checks, 50000);
}

/* Every combination of per-size knob modes, global mode and MADV_(NO)HUGEPAGE. */
static void allowable_orders_knobs(struct kunit *test)
{
	static const vm_flags_t hugepage[] = {
		0, VM_HUGEPAGE, VM_NOHUGEPAGE, VM_HUGEPAGE | VM_NOHUGEPAGE,
	};
	struct anon_order_ctx *c = test->priv;
	unsigned int index, combos = 1U << (2 * NR_ORDERS);
	unsigned long addr = FAKE_BASE + PMD_SIZE / 2 + 3 * PAGE_SIZE;
	struct thp_knobs k;
	int g, h;
	u64 n = 0;

	k.tpf = c->saved.tpf;
	for (index = 0; index < combos; index++) {
		knobs_from_index(&k, index);
		for (g = GLOBAL_NEVER; g <= GLOBAL_ALWAYS; g++) {
			k.tpf = mm_rs_tpf_with_global(c->saved.tpf, g);
			mm_rs_knobs_set(&k);
			for (h = 0; h < ARRAY_SIZE(hugepage); h++) {
				set_vma(c, FAKE_BASE, FAKE_BASE + 2 * PMD_SIZE,
					VM_READ | VM_WRITE | hugepage[h], true);
				if (!compare_orders(test, c, addr, "knobs", n++))
					return;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, c->checks, (unsigned long)combos * 3 * ARRAY_SIZE(hugepage));
}

static vm_flags_t flags_from_bits(const vm_flags_t *flag_bits, int nr, unsigned int bits)
{
	vm_flags_t flags = VM_READ | VM_WRITE;
	int b;

	for (b = 0; b < nr; b++)
		if (bits & BIT(b))
			flags |= flag_bits[b];
	return flags;
}

static bool compare_orders_at_edges(struct kunit *test, struct anon_order_ctx *c, u64 *n)
{
	int a;

	for (a = 0; a < ARRAY_SIZE(edges); a++) {
		unsigned long addr = c->vma.vm_start + edges[a] * PAGE_SIZE;

		if (addr < c->vma.vm_end && !compare_orders(test, c, addr, "vma", (*n)++))
			return false;
	}
	return true;
}

/* Every combination of the VMA and mm properties the decision reads. */
static void allowable_orders_vma(struct kunit *test)
{
	/* Each kind of uffd arming, one per set of knobs (both read UFFD_ANY). */
	static const vm_flags_t uffd_kinds[] = { VM_UFFD_MISSING, VM_UFFD_WP, VM_UFFD_MINOR };
	vm_flags_t flag_bits[] = {
		VM_HUGEPAGE, VM_NOHUGEPAGE, VM_UFFD_MISSING,
		VM_GROWSDOWN, VM_STACK_INCOMPLETE_SETUP,
	};
	static const unsigned int knob_sets[] = {
		0, 0x1555, 0x2aaa, 0x3fff, 0x1b1b, 0x0e4e,
	};
	struct anon_order_ctx *c = test->priv;
	unsigned int bits, ks, g, props;
	struct thp_knobs k;
	u64 n = 0;

	for (ks = 0; ks < ARRAY_SIZE(knob_sets); ks++) {
		knobs_from_index(&k, knob_sets[ks]);
		flag_bits[2] = uffd_kinds[ks % ARRAY_SIZE(uffd_kinds)];
		for (g = GLOBAL_NEVER; g <= GLOBAL_ALWAYS; g++) {
			/*
			 * C's "!vma->vm_mm" (vdso) case is not an input: a
			 * fault's VMA always has an mm, which the Rust VmaRef
			 * relies on (mainline's VmaRef::mm() is infallible).
			 */
			for (props = 0; props < 4; props++) {
				k.tpf = mm_rs_tpf_with_global(c->saved.tpf, g);
				if (props & 1)
					k.tpf |= BIT(TRANSPARENT_HUGEPAGE_UNSUPPORTED);
				mm_rs_knobs_set(&k);
				c->mm->flags = (props & 2) ? BIT(MMF_DISABLE_THP) : 0;
				for (bits = 0; bits < BIT(ARRAY_SIZE(flag_bits)) * 2; bits++) {
					vm_flags_t flags = flags_from_bits(flag_bits,
									   ARRAY_SIZE(flag_bits),
									   bits);

					set_vma(c, FAKE_BASE + 16 * PAGE_SIZE,
						FAKE_BASE + PMD_SIZE + 8 * PAGE_SIZE, flags,
						bits & BIT(ARRAY_SIZE(flag_bits)));
					if (!compare_orders_at_edges(test, c, &n))
						goto out;
				}
			}
		}
	}
out:
	c->vma.vm_mm = c->mm;
	c->mm->flags = 0;
	KUNIT_EXPECT_GT(test, c->checks, 100000);
}

/* The lockless all-none pre-check, for populated entries around block edges. */
static void pte_none_orders(struct kunit *test)
{
	static const int extra[] = { -1, 0, 1, 3, 4, 15, 16, 31, 64, 255, 256, 511 };
	struct anon_order_ctx *c = test->priv;
	unsigned long orders, got;
	int i, x, a, order, kind;
	u64 n = 0;

	for (i = -1; i < (int)ARRAY_SIZE(edges); i++) {
		for (x = 0; x < ARRAY_SIZE(extra); x++) {
			memset(c->table, 0, PTRS_PER_PTE * sizeof(pte_t));
			if (i >= 0 && edges[i] < PTRS_PER_PTE)
				set_pte(c->table + edges[i], c->present);
			if (extra[x] >= 0)
				set_pte(c->table + extra[x], c->present);
			for (a = 0; a < PTRS_PER_PTE; a++) {
				unsigned long addr = FAKE_BASE + a * PAGE_SIZE;

				if (!compare_pte_none(test, c, addr, ANON_ORDERS, "all", n++))
					return;
				for (order = FIRST_ORDER; order < PMD_ORDER; order++)
					if (!compare_pte_none(test, c, addr, BIT(order),
							      "single", n++))
						return;
			}
		}
	}
	/*
	 * Every entry populated: by present pages, by swap entries (not present,
	 * not none), or by both in turn. No order but 0 anywhere.
	 */
	for (kind = 0; kind < 3; kind++) {
		for (a = 0; a < PTRS_PER_PTE; a++)
			set_pte(c->table + a, kind == 1 || (kind == 2 && a % 2) ?
				swp_entry_to_pte(swp_entry(0, a + 1)) : c->present);
		for (a = 0; a < PTRS_PER_PTE; a++) {
			unsigned long addr = FAKE_BASE + a * PAGE_SIZE;

			if (!compare_pte_none(test, c, addr, ANON_ORDERS, "all populated", n++))
				return;
			got = mm_rs_anon_folio_pte_none_orders(c->table, addr, ANON_ORDERS);
			KUNIT_EXPECT_EQ_MSG(test, got, 0UL, "kind %d, index %d", kind, a);
			for (order = FIRST_ORDER; order < PMD_ORDER; order++)
				if (!compare_pte_none(test, c, addr, BIT(order),
						      "one, all populated", n++))
					return;
		}
	}
	/* Every subset of the orders, at a few addresses. */
	memset(c->table, 0, PTRS_PER_PTE * sizeof(pte_t));
	set_pte(c->table + 37, c->present);
	for (orders = 0; orders <= ANON_ORDERS; orders += BIT(FIRST_ORDER))
		for (a = 0; a < ARRAY_SIZE(edges); a++)
			if (!compare_pte_none(test, c, FAKE_BASE + edges[a] * PAGE_SIZE,
					      orders, "subsets", n++))
				return;
	KUNIT_EXPECT_GT(test, c->checks, 100000);
}

/* RANDOM_CASES pseudo-random inputs from RANDOM_SEED through all three decisions. */
static void random_cases(struct kunit *test)
{
	struct anon_order_ctx *c = test->priv;
	u64 n, s = mm_rs_kunit_seed(test, RANDOM_SEED);
	struct rnd_state rs;
	struct thp_knobs k;

	prandom_seed_state(&rs, s);
	for (n = 0; n < RANDOM_CASES; n++) {
		u32 r = prandom_u32_state(&rs);
		unsigned long start, len, addr, orders;
		vm_flags_t flags = VM_READ | VM_WRITE;
		int p, populated[3];

		k.always = prandom_u32_state(&rs) & GENMASK(PMD_ORDER, 0);
		k.madvise = prandom_u32_state(&rs) & GENMASK(PMD_ORDER, 0);
		k.inherit = prandom_u32_state(&rs) & GENMASK(PMD_ORDER, 0);
		k.tpf = mm_rs_tpf_with_global(c->saved.tpf, r % 3);
		if (!(r & (0x1f << 2)))
			k.tpf |= BIT(TRANSPARENT_HUGEPAGE_UNSUPPORTED);
		mm_rs_knobs_set(&k);
		if (r & BIT(7))
			flags |= VM_HUGEPAGE;
		if (!(r & (7 << 8)))
			flags |= VM_NOHUGEPAGE;
		if (!(r & (7 << 11)))
			flags |= VM_UFFD_MISSING;
		if (!(r & (3 << 14)))
			flags |= VM_GROWSDOWN | ((r & BIT(16)) ? VM_STACK_INCOMPLETE_SETUP : 0);
		c->mm->flags = (r & (7 << 17)) ? 0 : BIT(MMF_DISABLE_THP);
		start = FAKE_BASE + (prandom_u32_state(&rs) % (4 * PTRS_PER_PTE)) * PAGE_SIZE;
		len = (1 + prandom_u32_state(&rs) % (4 * PTRS_PER_PTE)) * PAGE_SIZE;
		addr = start + (prandom_u32_state(&rs) % (len >> PAGE_SHIFT)) * PAGE_SIZE;
		set_vma(c, start, start + len, flags, r & BIT(20));
		orders = prandom_u32_state(&rs) & GENMASK(PMD_ORDER, 0);

		memset(c->table, 0, PTRS_PER_PTE * sizeof(pte_t));
		for (p = 0; p < ARRAY_SIZE(populated); p++) {
			populated[p] = prandom_u32_state(&rs) % (2 * PTRS_PER_PTE);
			if (populated[p] < PTRS_PER_PTE)
				set_pte(c->table + populated[p], c->present);
		}

		if (!compare_orders(test, c, addr, "random", n) ||
		    !compare_suitable(test, c, addr, orders, "random", n) ||
		    !compare_pte_none(test, c, addr, orders & ANON_ORDERS, "random", n)) {
			kunit_info(test, "seed %#llx, case %llu", s, n);
			break;
		}
	}
	c->mm->flags = 0;
	KUNIT_EXPECT_EQ(test, c->checks, 3UL * RANDOM_CASES);
}

/*
 * The fallback walk, as alloc_anon_folio() writes it: from the highest order
 * down, an order whose allocation fails counts anon_fault_fallback; one whose
 * charge fails counts anon_fault_fallback_charge and anon_fault_fallback; the
 * first allocated and charged is used.
 */
static int walk_model(unsigned long orders, unsigned long alloc_fails,
		      unsigned long charge_fails, unsigned long *stats)
{
	int order = highest_order(orders);

	while (orders) {
		if (!(alloc_fails & BIT(order))) {
			if (!(charge_fails & BIT(order)))
				return order;
			stats[order * MM_RS_ANON_STATS + 1]++;
		}
		stats[order * MM_RS_ANON_STATS]++;
		order = next_order(&orders, order);
	}
	return -1;
}

static bool compare_walk(struct kunit *test, unsigned long orders, unsigned long af,
			 unsigned long cf)
{
	unsigned long want[(PMD_ORDER + 1) * MM_RS_ANON_STATS] = { 0 };
	unsigned long got[(PMD_ORDER + 1) * MM_RS_ANON_STATS] = { 0 };
	int w = walk_model(orders, af, cf, want);
	int g = mm_rs_anon_alloc_walk_test(orders, af, cf, got);

	if (w == g && !memcmp(want, got, sizeof(want)))
		return true;
	KUNIT_FAIL(test, "orders %#lx, failing alloc %#lx charge %#lx: order %d (C %d), stats %s",
		   orders, af, cf, g, w, memcmp(want, got, sizeof(want)) ? "differ" : "agree");
	return false;
}

/* Every pattern of allocation and charge failures over the anonymous orders. */
static void alloc_walk_failures(struct kunit *test)
{
	unsigned long af, cf, n = 0;
	struct rnd_state rs;

	for (af = 0; af <= ANON_ORDERS; af += BIT(FIRST_ORDER))
		for (cf = 0; cf <= ANON_ORDERS; cf += BIT(FIRST_ORDER), n++)
			if (!compare_walk(test, ANON_ORDERS, af, cf))
				return;
	prandom_seed_state(&rs, mm_rs_kunit_seed(test, RANDOM_SEED));
	for (; n < 20000; n++)
		if (!compare_walk(test, prandom_u32_state(&rs) & ANON_ORDERS,
				  prandom_u32_state(&rs) & ANON_ORDERS,
				  prandom_u32_state(&rs) & ANON_ORDERS))
			return;
	KUNIT_EXPECT_EQ(test, n, 20000);
}

/* Real faults in the test mm. */

struct fault_case {
	const char *name;
	int order;			/* the one size enabled */
	enum knob_mode mode;
	enum global_mode global;
	unsigned long vma_len;		/* 0: 4 PMDs */
	int madvise;			/* 0, MADV_HUGEPAGE or MADV_NOHUGEPAGE */
	bool disable_thp;		/* prctl(PR_SET_THP_DISABLE) */
	bool neighbour;			/* a PTE in the block is populated first */
	int expect;			/* order of the folio mapped */
};

/* Checks that the block of @order around @addr maps one folio of that order. */
static void expect_block_mapped(struct kunit *test, unsigned long addr, int order)
{
	int nr = 1 << order, i, got;
	unsigned long start = ALIGN_DOWN(addr, PAGE_SIZE << order);
	struct page **pages;
	struct folio *folio;

	pages = kunit_kcalloc(test, nr, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	got = get_user_pages_fast_only(start, nr, 0, pages);
	KUNIT_EXPECT_EQ_MSG(test, got, nr, "pages mapped in the block at %#lx", start);
	if (got <= 0)
		return;
	folio = page_folio(pages[0]);
	KUNIT_EXPECT_EQ(test, folio_order(folio), order);
	for (i = 0; i < got; i++) {
		KUNIT_EXPECT_PTR_EQ(test, pages[i], folio_page(folio, i));
		put_page(pages[i]);
	}
}

/* The block of @order around @addr reads zero, but for the byte written at @addr. */
static void expect_block_zeroed(struct kunit *test, unsigned long addr, int order)
{
	size_t size = PAGE_SIZE << order, i, bad = 0;
	unsigned long start = ALIGN_DOWN(addr, size);
	char *buf = kvmalloc(size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, copy_from_user(buf, (void __user *)start, size), 0);
	for (i = 0; i < size; i++)
		if (buf[i] != (start + i == addr ? 1 : 0))
			bad++;
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "bytes of the block at %#lx not as written", start);
	kvfree(buf);
}

static void run_fault_case(struct kunit *test, const struct fault_case *fc,
			   bool rust)
{
	struct anon_order_ctx *c = test->priv;
	unsigned long len = fc->vma_len ?: 4 * PMD_SIZE;
	unsigned long base, addr, alloc_before, fallback_before, alloc_after, fallback_after;
	struct thp_knobs k = { .tpf = mm_rs_tpf_with_global(c->saved.tpf, fc->global) };
	struct page *page;
	int stat_order = fc->order;

	mm_rs_paths_all(rust);
	base = mm_rs_map_anon(test, len);
	KUNIT_ASSERT_NE_MSG(test, base, 0, "vm_mmap(%lu)", len);
	if (fc->vma_len)
		addr = base + len / 2;
	else
		addr = ALIGN(base, PMD_SIZE) + PMD_SIZE / 2 + 5 * PAGE_SIZE;

	if (fc->madvise)
		KUNIT_ASSERT_EQ(test, do_madvise(current->mm, base, len, fc->madvise), 0);
	if (fc->disable_thp)
		set_bit(MMF_DISABLE_THP, &current->mm->flags);

	if (fc->neighbour) {
		/* Populate another page of the block at order 0 first. */
		mm_rs_knobs_set(&k);
		KUNIT_ASSERT_EQ(test, put_user((char)2, (char __user *)(addr ^ PAGE_SIZE)), 0);
	}

	mm_rs_knobs_only(&k, fc->order, fc->mode);
	mm_rs_knobs_set(&k);

	mm_rs_poison_free_pages(fc->order);
	alloc_before = mm_rs_sum_mthp(stat_order, MTHP_STAT_ANON_FAULT_ALLOC);
	fallback_before = mm_rs_sum_mthp(stat_order, MTHP_STAT_ANON_FAULT_FALLBACK);
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)addr), 0);

	expect_block_mapped(test, addr, fc->expect);
	expect_block_zeroed(test, addr, fc->expect);
	if (fc->expect && !fc->neighbour) {
		/* Nothing outside the block. */
		unsigned long after = ALIGN(addr + 1, PAGE_SIZE << fc->expect);

		if (after < base + len)
			KUNIT_EXPECT_EQ(test, get_user_pages_fast_only(after, 1, 0, &page), 0);
	}
	alloc_after = mm_rs_sum_mthp(stat_order, MTHP_STAT_ANON_FAULT_ALLOC);
	fallback_after = mm_rs_sum_mthp(stat_order, MTHP_STAT_ANON_FAULT_FALLBACK);
	KUNIT_EXPECT_EQ_MSG(test, alloc_after - alloc_before,
			    (unsigned long)(fc->expect == fc->order),
			    "%s (%s): anon_fault_alloc of order %d", fc->name,
			    rust ? "Rust" : "C", stat_order);
	KUNIT_EXPECT_EQ_MSG(test, fallback_after - fallback_before, 0UL,
			    "%s (%s): anon_fault_fallback", fc->name, rust ? "Rust" : "C");

	if (fc->disable_thp)
		clear_bit(MMF_DISABLE_THP, &current->mm->flags);
}

static void run_fault_cases(struct kunit *test, const struct fault_case *cases, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kunit_info(test, "%s", cases[i].name);
		run_fault_case(test, &cases[i], false);
		run_fault_case(test, &cases[i], true);
	}
}

/* Each mTHP size enabled alone: one fault maps the whole aligned block. */
static void fault_each_size(struct kunit *test)
{
	struct fault_case fc = { .name = "size", .mode = KNOB_ALWAYS };

	for (fc.order = FIRST_ORDER; fc.order < PMD_ORDER; fc.order++) {
		fc.expect = fc.order;
		kunit_info(test, "order %d", fc.order);
		run_fault_case(test, &fc, false);
		run_fault_case(test, &fc, true);
	}
}

/* Each way a fault falls back to order 0. */
static void fault_fallbacks(struct kunit *test)
{
	const int o = min(4, PMD_ORDER - 1);
	const struct fault_case cases[] = {
		{ "vma smaller than the block", o, KNOB_ALWAYS, GLOBAL_NEVER,
		  (PAGE_SIZE << o) / 2, 0, false, false, 0 },
		{ "neighbouring pte present", o, KNOB_ALWAYS, GLOBAL_NEVER,
		  0, 0, false, true, 0 },
		{ "MADV_NOHUGEPAGE", o, KNOB_ALWAYS, GLOBAL_ALWAYS,
		  0, MADV_NOHUGEPAGE, false, false, 0 },
		{ "prctl thp disable", o, KNOB_ALWAYS, GLOBAL_ALWAYS,
		  0, 0, true, false, 0 },
		{ "knob never", o, KNOB_NEVER, GLOBAL_ALWAYS,
		  0, 0, false, false, 0 },
		{ "madvise knob without MADV_HUGEPAGE", o, KNOB_MADVISE, GLOBAL_ALWAYS,
		  0, 0, false, false, 0 },
		{ "madvise knob with MADV_HUGEPAGE", o, KNOB_MADVISE, GLOBAL_NEVER,
		  0, MADV_HUGEPAGE, false, false, o },
		{ "inherit, global never", o, KNOB_INHERIT, GLOBAL_NEVER,
		  0, 0, false, false, 0 },
		{ "inherit, global madvise, no MADV_HUGEPAGE", o, KNOB_INHERIT, GLOBAL_MADVISE,
		  0, 0, false, false, 0 },
		{ "inherit, global madvise, MADV_HUGEPAGE", o, KNOB_INHERIT, GLOBAL_MADVISE,
		  0, MADV_HUGEPAGE, false, false, o },
		{ "inherit, global always", o, KNOB_INHERIT, GLOBAL_ALWAYS,
		  0, 0, false, false, o },
	};

	run_fault_cases(test, cases, ARRAY_SIZE(cases));
}

static struct kunit_case anon_order_cases[] = {
	KUNIT_CASE(suitable_orders_bounds),
	KUNIT_CASE(allowable_orders_knobs),
	KUNIT_CASE(allowable_orders_vma),
	KUNIT_CASE(pte_none_orders),
	KUNIT_CASE(random_cases),
	KUNIT_CASE(alloc_walk_failures),
	KUNIT_CASE(fault_each_size),
	KUNIT_CASE(fault_fallbacks),
	{}
};

static struct kunit_suite anon_order_suite = {
	.name = "mm_rs_anon_order",
	.init = anon_order_test_init,
	.exit = anon_order_test_exit,
	.test_cases = anon_order_cases,
};

kunit_test_suite(anon_order_suite);

MODULE_DESCRIPTION("KUnit tests for mm-rs anonymous folio-order selection");
MODULE_LICENSE("GPL");
