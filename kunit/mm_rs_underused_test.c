// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mm-rs's underused mTHPs (mm/mm_rs/anon/underused.rs and
 * mm/mm_rs/underused.c): the verdict for every order at the edges of its
 * threshold, and real faults in the test mm whose mTHPs the deferred-split
 * shrinker (run through drop_slab()) splits or leaves alone, on the Rust and
 * the C fault path.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/khugepaged.h>
#include <linux/mm_rs.h>
#include <linux/mman.h>
#include <linux/prandom.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/uaccess.h>
#ifdef CONFIG_ARM64_MTE
#include <asm/mte.h>
#endif

#include "mm_rs_kunit.h"

#define U_ORDER		4			/* the mTHPs: 64K with 4K pages */
#define U_NR		BIT(U_ORDER)
#define U_BLOCKS	32
#define U_LEN		(U_BLOCKS * U_NR * PAGE_SIZE)
#define U_MAX_NONE	409			/* the value the 6.12 series suggests */

struct underused_ctx {
	struct thp_knobs saved;
	struct mm_rs_paths saved_paths;
	unsigned int saved_max_none;
	int saved_policy;
	bool saved_on;
};

static int underused_test_init(struct kunit *test)
{
	struct underused_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct thp_knobs k;

	if (!c)
		return -ENOMEM;
	mm_rs_knobs_get(&c->saved);
	mm_rs_paths_get(&c->saved_paths);
	c->saved_max_none = READ_ONCE(khugepaged_max_ptes_none);
	c->saved_policy = mm_rs_anon_order_policy_load();
	c->saved_on = static_branch_likely(&mm_rs_split_underused_key);
	test->priv = c;
	/* 64K mTHPs only, the global mode kept; the Rust paths, the mthp policy. */
	k.tpf = c->saved.tpf;
	mm_rs_knobs_only(&k, U_ORDER, KNOB_ALWAYS);
	mm_rs_knobs_set(&k);
	mm_rs_paths_all(true);
	WRITE_ONCE(khugepaged_max_ptes_none, U_MAX_NONE);
	WARN_ON(mm_rs_sysfs_write_test("split_underused", "1") != 1);
	return 0;
}

static void underused_test_exit(struct kunit *test)
{
	struct underused_ctx *c = test->priv;

	mm_rs_knobs_set(&c->saved);
	mm_rs_paths_set(&c->saved_paths);
	WRITE_ONCE(khugepaged_max_ptes_none, c->saved_max_none);
	WARN_ON(mm_rs_anon_order_policy_store(c->saved_policy));
	WARN_ON(mm_rs_sysfs_write_test("split_underused", c->saved_on ? "1" : "0") != 1);
}

/* The reference: 6.12's rule with the threshold scaled to @order. */
static int ref_verdict(int order, unsigned int max_none, int zero)
{
	if (max_none >= HPAGE_PMD_NR - 1)
		return 0;
	return zero > (int)(max_none >> (HPAGE_PMD_ORDER - order)) ? zero : 0;
}

/*
 * Every order from 2 to PMD_ORDER, max_ptes_none from 0 to 511, and as many
 * zero-filled pages as the threshold, one more, one less, none and all,
 * placed first, last and spread out: the verdict and its count of zero pages
 * are the reference's.
 */
static void verdict_each_order(struct kunit *test)
{
	static const unsigned int max_nones[] = { 0, 1, 64, 255, 256, 409, 510, 511 };
	DECLARE_BITMAP(zero, HPAGE_PMD_NR);
	int order, m, i, place, checked = 0;

	for (order = FIRST_ORDER; order <= HPAGE_PMD_ORDER; order++) {
		int nr = 1 << order;

		for (m = 0; m < ARRAY_SIZE(max_nones); m++) {
			int t = max_nones[m] >> (HPAGE_PMD_ORDER - order);
			int counts[] = { 0, 1, t - 1, t, t + 1, nr - 1, nr };

			for (i = 0; i < ARRAY_SIZE(counts); i++) {
				int k = counts[i];

				if (k < 0 || k > nr)
					continue;
				for (place = 0; place < 3; place++) {
					int p, got;

					bitmap_zero(zero, HPAGE_PMD_NR);
					for (p = 0; p < k; p++)
						__set_bit(place == 0 ? p : place == 1 ? nr - 1 - p :
							  (p * nr) / k, zero);
					got = mm_rs_underused_verdict(order, max_nones[m], zero);
					KUNIT_EXPECT_EQ_MSG(test, got,
							    ref_verdict(order, max_nones[m], k),
							    "order %d, max_none %u, %d zero, place %d",
							    order, max_nones[m], k, place);
					checked++;
				}
			}
		}
	}
	/* Out of range: no verdict. */
	bitmap_fill(zero, HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, mm_rs_underused_verdict(HPAGE_PMD_ORDER + 1, 0, zero), 0);
	kunit_info(test, "%d verdicts", checked);
}

/*
 * The same against the reference at random: any order, any max_ptes_none,
 * zero-filled pages anywhere at any density (bits past the folio set too,
 * which the verdict must not read), from a seed mm_rs_kunit.seed can change.
 */
static void verdict_random(struct kunit *test)
{
	DECLARE_BITMAP(zero, HPAGE_PMD_NR);
	struct rnd_state rs;
	int n;

	prandom_seed_state(&rs, mm_rs_kunit_seed(test, 0x756e6475));
	for (n = 0; n < 20000; n++) {
		int order = FIRST_ORDER +
			    prandom_u32_state(&rs) % (HPAGE_PMD_ORDER - FIRST_ORDER + 1);
		unsigned int max_none = prandom_u32_state(&rs) % HPAGE_PMD_NR;
		unsigned int density = prandom_u32_state(&rs) % 1025;
		int nr = 1 << order, p, k = 0, got;

		bitmap_zero(zero, HPAGE_PMD_NR);
		for (p = 0; p < HPAGE_PMD_NR; p++) {
			if (prandom_u32_state(&rs) % 1024 >= density)
				continue;
			__set_bit(p, zero);
			k += p < nr;
		}
		got = mm_rs_underused_verdict(order, max_none, zero);
		if (got != ref_verdict(order, max_none, k)) {
			KUNIT_FAIL(test, "case %d: order %d, max_none %u, %d zero: %d, not %d", n,
				   order, max_none, k, got, ref_verdict(order, max_none, k));
			return;
		}
	}
}

/*
 * Rust against C case by case, at random, on real data: a PMD THP of the
 * test mm (the one order where 6.12 has a verdict, thp_underused(), and
 * mm-rs's threshold is the same), whose pages each hold one non-zero byte
 * (any value, anywhere in the page) or nothing, at any density, judged at
 * any max_ptes_none (the ends and the middle weighted in) by both. The
 * Rust verdict (mm_rs_thp_underused(), the shrinker's) calls the folio
 * underused exactly when C does. From a seed mm_rs_kunit.seed can change.
 */
#define C_CASES		48

static void verdict_random_same_as_c(struct kunit *test)
{
	static const unsigned int edges[] = { 0, 1, 255, 256, 510, 511 };
	struct underused_ctx *c = test->priv;
	struct thp_knobs k = { .tpf = c->saved.tpf };
	unsigned int *where;
	struct folio *folio;
	struct rnd_state rs;
	struct page *page;
	unsigned long addr, base;
	int n, i, under = 0;

	where = kunit_kcalloc(test, HPAGE_PMD_NR, sizeof(*where), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, where);
	mm_rs_knobs_only(&k, HPAGE_PMD_ORDER, KNOB_ALWAYS);
	mm_rs_knobs_set(&k);
	addr = mm_rs_map_anon(test, 2 * HPAGE_PMD_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	base = ALIGN(addr, HPAGE_PMD_SIZE);
	/* Direct compaction for the THP (defrag's default, madvise, asks for it). */
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, base, HPAGE_PMD_SIZE, MADV_HUGEPAGE), 0);
	KUNIT_ASSERT_EQ(test, put_user((char)0, (char __user *)base), 0);
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(base, 1, FOLL_WRITE, &page), 1);
	folio = page_folio(page);
	if (folio_order(folio) != HPAGE_PMD_ORDER) {
		put_page(page);
		KUNIT_FAIL(test, "an order-%u folio, not a PMD THP", folio_order(folio));
		return;
	}
	prandom_seed_state(&rs, mm_rs_kunit_seed(test, 0x74687075));
	for (n = 0; n < C_CASES; n++) {
		unsigned int max_none = n % 2 ? prandom_u32_state(&rs) % HPAGE_PMD_NR :
				      edges[(n / 2) % ARRAY_SIZE(edges)];
		unsigned int density = prandom_u32_state(&rs) % 1025;
		bool want, rust;
		int got;
		char *p;

		for (i = 0; i < HPAGE_PMD_NR; i++) {
			where[i] = 0;
			if (prandom_u32_state(&rs) % 1024 >= density)
				continue;
			/* Offset + 1, so that 0 means a zero-filled page. */
			where[i] = 1 + prandom_u32_state(&rs) % PAGE_SIZE;
			p = kmap_local_page(folio_page(folio, i));
			p[where[i] - 1] = (char)(1 + prandom_u32_state(&rs) % 255);
			kunmap_local(p);
		}
		WRITE_ONCE(khugepaged_max_ptes_none, max_none);
		want = thp_underused(folio);
		got = mm_rs_thp_underused(folio, max_none);
		under += want;
		for (i = 0; i < HPAGE_PMD_NR; i++) {
			if (!where[i])
				continue;
			p = kmap_local_page(folio_page(folio, i));
			p[where[i] - 1] = 0;
			kunmap_local(p);
		}
		rust = got > 0;
		if (rust != want) {
			KUNIT_FAIL(test, "case %d: max_none %u, density %u/1024: C %d, Rust %d",
				   n, max_none, density, want, got);
			break;
		}
	}
	put_page(page);
	/* Both verdicts met, not one only. */
	KUNIT_EXPECT_GT(test, under, 0);
	KUNIT_EXPECT_LT(test, under, C_CASES);
}

/*
 * What memory pressure does to the deferred-split queue, as it would: the
 * per-CPU LRU batches drained first (a folio still in one has a reference
 * more than its mappings, and the split refuses it), then every shrinker.
 */
static void shrink(void)
{
	lru_add_drain_all();
	drop_slab();
}

/* The counters of U_ORDER. */
struct u_counts {
	unsigned long checked, split, zero_pages, alloc;
};

static void counts_get(struct u_counts *c)
{
	c->checked = mm_rs_sum_mthp(U_ORDER, MTHP_STAT_UNDERUSED_CHECKED);
	c->split = mm_rs_sum_mthp(U_ORDER, MTHP_STAT_UNDERUSED_SPLIT);
	c->zero_pages = mm_rs_sum_mthp(U_ORDER, MTHP_STAT_UNDERUSED_ZERO_PAGES);
	c->alloc = mm_rs_sum_mthp(U_ORDER, MTHP_STAT_ANON_FAULT_ALLOC);
}

/* U_BLOCKS blocks of U_NR pages, aligned to the block, in a fresh mapping. */
static unsigned long map_blocks(struct kunit *test)
{
	unsigned long addr = mm_rs_map_anon(test, U_LEN + U_NR * PAGE_SIZE);

	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0);
	return ALIGN(addr, U_NR * PAGE_SIZE);
}

/* The page of block @b that sparse access writes: a different one in each. */
static unsigned long sparse_page(unsigned long base, int b)
{
	return base + (b * U_NR + (b * 7) % U_NR) * PAGE_SIZE;
}

/*
 * One page written in each block (0x5a at its start), and in every other
 * block a second page written with zeros, which holds only zeros like the
 * pages never written. Every block is one mTHP.
 */
static void touch_sparse(struct kunit *test, unsigned long base)
{
	int b;

	for (b = 0; b < U_BLOCKS; b++) {
		unsigned long p = sparse_page(base, b);
		unsigned long z = base + (b * U_NR + ((b * 7) % U_NR + 1) % U_NR) * PAGE_SIZE;

		KUNIT_ASSERT_EQ(test, put_user((char)0x5a, (char __user *)p), 0);
		if (b % 2)
			KUNIT_ASSERT_EQ(test, clear_user((void __user *)z, PAGE_SIZE), 0);
	}
}

/* Every page of every block reads as sparse access left it: the data is kept. */
static void expect_sparse_data(struct kunit *test, unsigned long base)
{
	int b, i, bad = 0;
	char c;

	for (b = 0; b < U_BLOCKS; b++)
		for (i = 0; i < U_NR; i++) {
			unsigned long a = base + (b * U_NR + i) * PAGE_SIZE;
			char want = a == sparse_page(base, b) ? 0x5a : 0;

			if (get_user(c, (char __user *)a) || c != want)
				bad++;
		}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

/*
 * Whether every present entry of the blocks carries the contiguous bit
 * (arm64 with contpte, as Debian's arm64 kernel maps a 64K mTHP), or none.
 */
static void expect_cont(struct kunit *test, unsigned long base, bool cont, bool rust)
{
	pte_t *ptes = kunit_kcalloc(test, U_NR, sizeof(*ptes), GFP_KERNEL);
	int b, i;

	KUNIT_ASSERT_NOT_NULL(test, ptes);
	for (b = 0; b < U_BLOCKS; b++) {
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(current->mm, base + b * U_NR * PAGE_SIZE,
							ptes, U_NR));
		for (i = 0; i < U_NR; i++)
			if (pte_present(ptes[i]))
				KUNIT_EXPECT_EQ_MSG(test, mm_rs_pte_cont(ptes[i]), cont,
						    "rust %d: block %d, entry %d", rust, b, i);
	}
}

/*
 * Sparse access, on the Rust and on the C fault path: the shrinker splits
 * every block's mTHP, maps its zero-filled pages to the zero page and frees
 * them; what is left resident is the one page written in each block, and
 * the data is intact. The counters say so: U_BLOCKS checked and split, 15
 * zero-filled pages each (the page written with zeros among them).
 */
static void sparse_split_gives_back(struct kunit *test)
{
	bool rust;

	for (rust = true; ; rust = false) {
		unsigned long base;
		struct u_counts c0, c1;

		mm_rs_paths_all(rust);
		base = map_blocks(test);
		counts_get(&c0);
		touch_sparse(test, base);
		counts_get(&c1);
		KUNIT_ASSERT_EQ_MSG(test, c1.alloc - c0.alloc, U_BLOCKS, "rust %d", rust);
		KUNIT_ASSERT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS * U_NR);
		expect_cont(test, base, mm_rs_cont_order(U_ORDER), rust);

		shrink();
		counts_get(&c1);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_anon_pages(current->mm), U_BLOCKS, "rust %d", rust);
		KUNIT_EXPECT_GE(test, c1.checked - c0.checked, U_BLOCKS);
		KUNIT_EXPECT_EQ(test, c1.split - c0.split, U_BLOCKS);
		KUNIT_EXPECT_EQ(test, c1.zero_pages - c0.zero_pages, U_BLOCKS * (U_NR - 1));
		expect_sparse_data(test, base);
		KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS);
		/* Split and remapped page by page: no contiguous entry is left. */
		expect_cont(test, base, false, rust);
		KUNIT_ASSERT_EQ(test, vm_munmap(base, U_LEN), 0);
		if (!rust)
			break;
	}
}

/*
 * Where a used page's one non-zero byte sits, by position class: the first
 * and the last byte of the page, of its middle, and of words at each end. A
 * page is zero-filled only if every byte is zero, wherever the data is: each
 * block's written page stays resident with its byte, the other 15 pages are
 * counted and mapped to the zero page.
 */
static const unsigned long byte_offsets[] = {
	0, 1, 7, 8, 15, 16, 63, 64, PAGE_SIZE / 2 - 1, PAGE_SIZE / 2,
	PAGE_SIZE / 2 + 7, PAGE_SIZE - 16, PAGE_SIZE - 9, PAGE_SIZE - 8, PAGE_SIZE - 2,
	PAGE_SIZE - 1,
};

static void byte_anywhere_kept(struct kunit *test)
{
	unsigned long base = map_blocks(test);
	char *page = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	struct u_counts c0, c1;
	int b;

	KUNIT_ASSERT_NOT_NULL(test, page);
	counts_get(&c0);
	for (b = 0; b < U_BLOCKS; b++) {
		unsigned long off = byte_offsets[b % ARRAY_SIZE(byte_offsets)];
		char __user *p = (char __user *)(sparse_page(base, b) + off);

		KUNIT_ASSERT_EQ(test, put_user((char)0xa5, p), 0);
	}
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_EQ(test, c1.split - c0.split, U_BLOCKS);
	KUNIT_EXPECT_EQ(test, c1.zero_pages - c0.zero_pages, U_BLOCKS * (U_NR - 1));
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS);
	for (b = 0; b < U_BLOCKS; b++) {
		unsigned long off = byte_offsets[b % ARRAY_SIZE(byte_offsets)];

		KUNIT_ASSERT_EQ(test, copy_from_user(page, (void __user *)sparse_page(base, b),
						     PAGE_SIZE), 0);
		KUNIT_EXPECT_EQ_MSG(test, page[off], (char)0xa5, "block %d, offset %lu", b, off);
		page[off] = 0;
		KUNIT_EXPECT_PTR_EQ_MSG(test, memchr_inv(page, 0, PAGE_SIZE), NULL,
					"block %d, offset %lu: other bytes", b, off);
	}
}

/*
 * Every byte position, not only the classes above, with each bit of a byte
 * in turn: the verdict the shrinker asks for (mm_rs_mthp_underused()) on a
 * real mTHP of the test mm, at max_ptes_none 0 (every zero-filled page
 * counts), whose first page holds one non-zero byte at that position, and
 * then its last page at every byte of its first and last two words and at
 * each end of every other word. The page with the byte is never counted
 * zero-filled; the others always are.
 */
static void zero_filled_each_byte(struct kunit *test)
{
	unsigned long base = map_blocks(test);
	unsigned int pg, pos, wrong = 0, checked = 0;
	struct folio *folio;
	struct page *page;
	int got;

	KUNIT_ASSERT_EQ(test, put_user((char)0, (char __user *)base), 0);
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(base, 1, FOLL_WRITE, &page), 1);
	folio = page_folio(page);
	if (folio_order(folio) != U_ORDER) {
		put_page(page);
		KUNIT_FAIL(test, "an order-%u folio at the block, not %u", folio_order(folio),
			   U_ORDER);
		return;
	}
	WRITE_ONCE(khugepaged_max_ptes_none, 0);
	KUNIT_EXPECT_EQ(test, mm_rs_mthp_underused(folio), U_NR);
	for (pg = 0; pg < U_NR; pg += U_NR - 1) {
		for (pos = 0; pos < PAGE_SIZE; pos++) {
			unsigned int w = pos % sizeof(long);
			char *k;

			/* The last page: the ends of each word, every byte near the page's ends. */
			if (pg && pos >= 2 * sizeof(long) && pos < PAGE_SIZE - 2 * sizeof(long) &&
			    w != 0 && w != sizeof(long) - 1)
				continue;
			k = kmap_local_page(folio_page(folio, pg));
			k[pos] = (char)BIT(pos % 8);
			kunmap_local(k);
			got = mm_rs_mthp_underused(folio);
			k = kmap_local_page(folio_page(folio, pg));
			k[pos] = 0;
			kunmap_local(k);
			checked++;
			if (got != U_NR - 1 && wrong++ < 8)
				KUNIT_FAIL(test, "page %u, byte %u (%#lx): %d zero-filled, not %lu",
					   pg, pos, BIT(pos % 8), got, U_NR - 1);
		}
	}
	put_page(page);
	KUNIT_EXPECT_EQ(test, wrong, 0);
	kunit_info(test, "%u positions", checked);
}

/* Every page of every block written: nothing is underused, nothing split. */
static void dense_not_split(struct kunit *test)
{
	unsigned long base = map_blocks(test), a;
	struct u_counts c0, c1;

	counts_get(&c0);
	for (a = base; a < base + U_LEN; a += PAGE_SIZE)
		KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)(a + 100)), 0);
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_EQ(test, c1.alloc - c0.alloc, U_BLOCKS);
	KUNIT_EXPECT_GE(test, c1.checked - c0.checked, U_BLOCKS);
	KUNIT_EXPECT_EQ(test, c1.split, c0.split);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS * U_NR);
}

/*
 * At the threshold, not above it: with max_ptes_none 448 (14 of 16 pages)
 * sparse access leaves 15 zero-filled pages and splits; with two pages
 * written in a block (14 zero-filled), the block stays whole.
 */
static void threshold_edge(struct kunit *test)
{
	unsigned long base = map_blocks(test);
	struct u_counts c0, c1;
	int b;

	WRITE_ONCE(khugepaged_max_ptes_none, 448);
	counts_get(&c0);
	for (b = 0; b < U_BLOCKS; b++) {
		unsigned long p = base + b * U_NR * PAGE_SIZE;

		KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)p), 0);
		if (b % 2)
			KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)(p + PAGE_SIZE)), 0);
	}
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_EQ(test, c1.split - c0.split, U_BLOCKS / 2);
	KUNIT_EXPECT_EQ(test, c1.zero_pages - c0.zero_pages, U_BLOCKS / 2 * (U_NR - 1));
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm),
			U_BLOCKS / 2 * U_NR + U_BLOCKS / 2);
}

/* Whether the folio mapped at @addr is on a deferred-split queue. */
static bool queued(struct kunit *test, unsigned long addr)
{
	struct page *page;
	bool ret;

	KUNIT_ASSERT_EQ(test, get_user_pages_fast(addr, 1, 0, &page), 1);
	ret = folio_test_large(page_folio(page)) &&
	      !list_empty(&page_folio(page)->_deferred_list);
	put_page(page);
	return ret;
}

/* Whether the page at @addr is in a large folio. */
static bool large_at(struct kunit *test, unsigned long addr)
{
	struct page *page;
	bool ret;

	KUNIT_ASSERT_EQ(test, get_user_pages_fast(addr, 1, 0, &page), 1);
	ret = folio_test_large(page_folio(page));
	put_page(page);
	return ret;
}

/*
 * max_ptes_none 511, its default, turns the verdict off, as for PMD THPs in
 * 6.12: even mTHPs that hold only zeros (the one page each block's fault
 * wrote, written with zeros) stay whole. Since the verdict cannot split then,
 * the faults do not queue them at all (no split_queue_lock, no shrinker bit
 * per mTHP), so nothing is even checked; with max_ptes_none below 511 the
 * same faults queue every one.
 */
static void default_max_none_keeps_all(struct kunit *test)
{
	unsigned long base = map_blocks(test);
	struct u_counts c0, c1;
	int b;

	WRITE_ONCE(khugepaged_max_ptes_none, HPAGE_PMD_NR - 1);
	counts_get(&c0);
	for (b = 0; b < U_BLOCKS; b++) {
		void __user *p = (void __user *)sparse_page(base, b);

		KUNIT_ASSERT_EQ(test, clear_user(p, PAGE_SIZE), 0);
		KUNIT_EXPECT_FALSE_MSG(test, queued(test, sparse_page(base, b)),
				       "block %d queued at max_ptes_none 511", b);
	}
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_EQ(test, c1.checked, c0.checked);
	KUNIT_EXPECT_EQ(test, c1.split, c0.split);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS * U_NR);

	base = map_blocks(test);
	WRITE_ONCE(khugepaged_max_ptes_none, HPAGE_PMD_NR - 2);
	for (b = 0; b < U_BLOCKS; b++) {
		void __user *p = (void __user *)sparse_page(base, b);

		KUNIT_ASSERT_EQ(test, clear_user(p, PAGE_SIZE), 0);
		KUNIT_EXPECT_TRUE_MSG(test, queued(test, sparse_page(base, b)),
				      "block %d not queued at max_ptes_none 510", b);
	}
}

/*
 * auto's own verdict at max_ptes_none's default (511): with mthp, 6.12's
 * rule, nothing is split; with auto, an mTHP half zero-filled or more is
 * split and a dense one is not, and the faults of auto queue their mTHPs
 * even at 511.
 */
static void auto_own_verdict_at_default(struct kunit *test)
{
	unsigned long a, b, d, i;
	struct u_counts c0, c1;

	/* Queued (max_ptes_none 409), judged at 511 under mthp: kept whole. */
	a = map_blocks(test);
	touch_sparse(test, a);
	WRITE_ONCE(khugepaged_max_ptes_none, HPAGE_PMD_NR - 1);
	counts_get(&c0);
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_EQ(test, c1.split, c0.split);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS * U_NR);
	KUNIT_ASSERT_EQ(test, vm_munmap(a, U_LEN), 0);

	/* Queued the same way, judged at 511 under auto: split. */
	WRITE_ONCE(khugepaged_max_ptes_none, U_MAX_NONE);
	b = map_blocks(test);
	touch_sparse(test, b);
	WRITE_ONCE(khugepaged_max_ptes_none, HPAGE_PMD_NR - 1);
	KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("auto"), 0);
	/* Dense under auto at 511: its mTHPs are queued, and stay whole. */
	d = map_blocks(test);
	for (i = 0; i < U_LEN; i += PAGE_SIZE)
		KUNIT_ASSERT_EQ(test, put_user((char)0x11, (char __user *)(d + i)), 0);
	KUNIT_EXPECT_TRUE(test, queued(test, d + U_LEN - PAGE_SIZE));
	counts_get(&c0);
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_EQ(test, c1.split - c0.split, U_BLOCKS);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS + U_LEN / PAGE_SIZE);
	expect_sparse_data(test, b);
	/* The dense mTHP checked, not split: still large, its data intact. */
	KUNIT_EXPECT_TRUE(test, large_at(test, d + U_LEN - PAGE_SIZE));
	for (i = 0; i < U_LEN; i += PAGE_SIZE) {
		char c = 0;

		KUNIT_ASSERT_EQ(test, get_user(c, (char __user *)(d + i)), 0);
		if (c != 0x11) {
			KUNIT_FAIL(test, "dense page at +%lu reads %d", i, c);
			break;
		}
	}
}

/*
 * A fresh mapping with room for @blocks blocks of @order, aligned to the
 * block, with only that order enabled (always) and MADV_HUGEPAGE over the
 * blocks, so that the larger orders get direct compaction (defrag's default
 * asks for it). Returns the first block; *@addr is the mapping, of
 * (@blocks + 1) blocks, for vm_munmap().
 */
static unsigned long map_order_blocks(struct kunit *test, int order, int blocks,
				      unsigned long *addr)
{
	struct underused_ctx *ctx = test->priv;
	struct thp_knobs k = { .tpf = ctx->saved.tpf };
	unsigned long len = (unsigned long)PAGE_SIZE << order, base;

	mm_rs_knobs_only(&k, order, KNOB_ALWAYS);
	mm_rs_knobs_set(&k);
	*addr = mm_rs_map_anon(test, (blocks + 1) * len);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(*addr));
	KUNIT_ASSERT_NE(test, *addr, 0);
	base = ALIGN(*addr, len);
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, base, blocks * len, MADV_HUGEPAGE), 0);
	return base;
}

/*
 * Whether page @i of block @b (0: half its pages zero-filled, 1: one fewer)
 * of auto_half_zero_edge() is written: every other page of block 0, the
 * first half and one page more of block 1.
 */
static bool half_edge_written(int b, int i, int nr)
{
	return b ? i <= nr / 2 : i % 2 == 0;
}

/*
 * The edge of auto's own verdict, at every mTHP order: judged as at
 * max_ptes_none 255, an mTHP of order o is underused when more than
 * 255 >> (PMD_ORDER - o) of its pages are zero-filled, that is when half of
 * them or more are. Two blocks of the order, queued at fault under mthp and
 * judged at 511 under auto: one with exactly half its pages zero-filled is
 * split, one with one page fewer stays whole. The sparse and dense blocks of
 * auto_own_verdict_at_default() build neither, and the largest mTHP order
 * tells auto's threshold from any other but 254, which no order tells apart.
 */
static void auto_half_zero_edge(struct kunit *test)
{
	int order;

	for (order = FIRST_ORDER; order < HPAGE_PMD_ORDER; order++) {
		int nr = 1 << order, b, i, bad = 0;
		unsigned long addr, base, checked0, split0, zero0;
		long anon0;
		char c;

		KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("mthp"), 0);
		WRITE_ONCE(khugepaged_max_ptes_none, U_MAX_NONE);
		base = map_order_blocks(test, order, 2, &addr);
		anon0 = mm_rs_anon_pages(current->mm);
		for (b = 0; b < 2; b++)
			for (i = 0; i < nr; i++) {
				char __user *p = (char __user *)(base + (b * nr + i) * PAGE_SIZE);

				char v = 0x20 + i % 64;

				if (half_edge_written(b, i, nr))
					KUNIT_ASSERT_EQ(test, put_user(v, p), 0);
			}
		KUNIT_ASSERT_EQ_MSG(test, mm_rs_anon_pages(current->mm) - anon0, 2 * nr,
				    "order %d: not two folios of the order", order);
		KUNIT_EXPECT_TRUE_MSG(test, queued(test, base), "order %d", order);
		KUNIT_EXPECT_TRUE_MSG(test, queued(test, base + nr * PAGE_SIZE), "order %d",
				      order);

		WRITE_ONCE(khugepaged_max_ptes_none, HPAGE_PMD_NR - 1);
		KUNIT_ASSERT_EQ(test, mm_rs_anon_order_policy_set("auto"), 0);
		checked0 = mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_CHECKED);
		split0 = mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_SPLIT);
		zero0 = mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_ZERO_PAGES);
		shrink();
		KUNIT_EXPECT_EQ_MSG(test,
				    mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_CHECKED) - checked0,
				    2, "order %d", order);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_SPLIT) - split0,
				    1, "order %d", order);
		KUNIT_EXPECT_EQ_MSG(test,
				    mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_ZERO_PAGES) - zero0,
				    nr / 2, "order %d", order);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_anon_pages(current->mm) - anon0, nr + nr / 2,
				    "order %d", order);
		KUNIT_EXPECT_FALSE_MSG(test, large_at(test, base + PAGE_SIZE),
				       "order %d: %d of %d pages zero-filled, not split",
				       order, nr / 2, nr);
		KUNIT_EXPECT_TRUE_MSG(test, large_at(test, base + (2 * nr - 1) * PAGE_SIZE),
				      "order %d: %d of %d pages zero-filled, split",
				      order, nr / 2 - 1, nr);
		for (b = 0; b < 2; b++)
			for (i = 0; i < nr; i++) {
				char want = half_edge_written(b, i, nr) ? 0x20 + i % 64 : 0;

				if (get_user(c, (char __user *)(base + (b * nr + i) * PAGE_SIZE)) ||
				    c != want)
					bad++;
			}
		KUNIT_EXPECT_EQ_MSG(test, bad, 0, "order %d: pages that lost their data", order);
		KUNIT_ASSERT_EQ(test, vm_munmap(addr, 3 * nr * PAGE_SIZE), 0);
	}
}

/* pinned_left_alone's folio, and how often a verdict sent it to be split. */
static struct {
	unsigned long pfn;
	int tried;
} pinned;

/*
 * MM_RS_RACE_UNDERUSED_SPLIT is reached by a folio the verdict judged
 * underused, just before its split: the pinned folio must never get there.
 */
static void pinned_split_tried(enum mm_rs_race where, struct mm_struct *mm, unsigned long pfn)
{
	if (where == MM_RS_RACE_UNDERUSED_SPLIT && pfn == pinned.pfn)
		pinned.tried++;
}

/*
 * A pinned mTHP is left alone; the others split. Whether it was tried is
 * seen at the split of that folio, not in the global split_failed counter,
 * which the folios of a case that has just ended can move: their mm may
 * still be going away while this shrink() scans the queue (seen on arm64
 * under a loaded host: 32 failures, one case's blocks).
 */
static void pinned_left_alone(struct kunit *test)
{
	unsigned long base = map_blocks(test);
	struct u_counts c0, c1;
	struct page *page;

	counts_get(&c0);
	touch_sparse(test, base);
	KUNIT_ASSERT_EQ(test, pin_user_pages_fast(sparse_page(base, 0), 1, FOLL_WRITE, &page), 1);
	pinned.pfn = folio_pfn(page_folio(page));
	pinned.tried = 0;
	kunit_activate_static_stub(test, mm_rs_test_race, pinned_split_tried);
	shrink();
	kunit_deactivate_static_stub(test, mm_rs_test_race);
	counts_get(&c1);
	/* Left alone: not even tried (a split of a pinned folio fails). */
	KUNIT_EXPECT_EQ(test, pinned.tried, 0);
	KUNIT_EXPECT_TRUE(test, folio_test_large(page_folio(page)));
	unpin_user_page(page);
	KUNIT_EXPECT_EQ(test, c1.split - c0.split, U_BLOCKS - 1);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_NR + U_BLOCKS - 1);
	expect_sparse_data(test, base);
}

/*
 * An mTHP that a fault maps in a VM_LOCKED mapping is mlocked, and the remap
 * of a split would keep every page of it (6.12's
 * try_to_map_unused_to_zeropage()): the verdict leaves it alone, so nothing
 * is split for nothing and no page is counted that was not given back.
 */
static void mlocked_left_alone(struct kunit *test)
{
	unsigned long base = map_blocks(test);
	struct vm_area_struct *vma;
	struct u_counts c0, c1;
	int b;

	/* mlock() without its RLIMIT_MEMLOCK check: the flag and the count. */
	mmap_write_lock(current->mm);
	vma = find_vma(current->mm, base);
	if (vma) {
		vm_flags_set(vma, VM_LOCKED);
		current->mm->locked_vm += vma_pages(vma);
	}
	mmap_write_unlock(current->mm);
	KUNIT_ASSERT_NOT_NULL(test, vma);
	counts_get(&c0);
	for (b = 0; b < U_BLOCKS; b++)
		KUNIT_ASSERT_EQ(test, put_user((char)0x5a, (char __user *)sparse_page(base, b)), 0);
	counts_get(&c1);
	KUNIT_ASSERT_EQ(test, c1.alloc - c0.alloc, U_BLOCKS);
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_GE(test, c1.checked - c0.checked, U_BLOCKS);
	KUNIT_EXPECT_EQ(test, c1.split, c0.split);
	KUNIT_EXPECT_EQ(test, c1.zero_pages, c0.zero_pages);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS * U_NR);
	for (b = 0; b < U_BLOCKS; b++) {
		char c = 0;

		KUNIT_EXPECT_EQ(test, get_user(c, (char __user *)sparse_page(base, b)), 0);
		KUNIT_EXPECT_EQ(test, c, (char)0x5a);
	}
}

/* written_after_verdict's race: its blocks' folios, and the page written. */
static struct {
	unsigned long folio_pfn[U_BLOCKS];
	int block, page;
} late;

/*
 * Between the verdict and the split (MM_RS_RACE_UNDERUSED_SPLIT), the first
 * of the test's mTHPs judged underused gets a byte written into its first
 * zero-filled page, as its task could write it at that moment.
 */
static void write_after_verdict(enum mm_rs_race where, struct mm_struct *mm,
				unsigned long pfn)
{
	int b, i;

	if (where != MM_RS_RACE_UNDERUSED_SPLIT || late.block >= 0)
		return;
	for (b = 0; b < U_BLOCKS && late.folio_pfn[b] != pfn; b++)
		;
	if (b == U_BLOCKS)
		return;
	for (i = 0; i < U_NR; i++) {
		char *p = kmap_local_page(pfn_to_page(pfn + i));
		bool zero = !memchr_inv(p, 0, PAGE_SIZE);

		if (zero)
			p[100] = 0x77;
		kunmap_local(p);
		if (zero) {
			late.block = b;
			late.page = i;
			return;
		}
	}
}

/*
 * A page written after the verdict, before the split: the remap keeps it,
 * with its data, and the counter says what the splits gave back (one page
 * fewer than the verdicts saw), not what the verdicts counted.
 */
static void written_after_verdict(struct kunit *test)
{
	unsigned long base = map_blocks(test);
	struct u_counts c0, c1;
	pte_t pte;
	int b;

	late.block = -1;
	counts_get(&c0);
	for (b = 0; b < U_BLOCKS; b++) {
		KUNIT_ASSERT_EQ(test, put_user((char)0x5a, (char __user *)sparse_page(base, b)), 0);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(current->mm, base + b * U_NR * PAGE_SIZE,
							&pte, 1));
		late.folio_pfn[b] = pte_pfn(pte);
	}
	counts_get(&c1);
	KUNIT_ASSERT_EQ(test, c1.alloc - c0.alloc, U_BLOCKS);
	kunit_activate_static_stub(test, mm_rs_test_race, write_after_verdict);
	shrink();
	kunit_deactivate_static_stub(test, mm_rs_test_race);
	counts_get(&c1);
	KUNIT_ASSERT_GE(test, late.block, 0);
	KUNIT_EXPECT_EQ(test, c1.split - c0.split, U_BLOCKS);
	KUNIT_EXPECT_EQ(test, c1.zero_pages - c0.zero_pages, U_BLOCKS * (U_NR - 1) - 1);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS + 1);
	for (b = 0; b < U_BLOCKS; b++) {
		unsigned long late_addr = base + (late.block * U_NR + late.page) * PAGE_SIZE;
		char c = 0;

		KUNIT_EXPECT_EQ(test, get_user(c, (char __user *)sparse_page(base, b)), 0);
		KUNIT_EXPECT_EQ(test, c, (char)0x5a);
		if (b == late.block) {
			KUNIT_EXPECT_EQ(test, get_user(c, (char __user *)(late_addr + 100)), 0);
			KUNIT_EXPECT_EQ(test, c, (char)0x77);
		}
	}
}

#ifdef CONFIG_ARM64_MTE
/*
 * mTHPs of a PROT_MTE mapping, accessed as sparse_split_gives_back's: every
 * page is tagged when it is mapped (mte_sync_tags()), and arm64's
 * pages_identical() never calls a tagged page identical to the zero page,
 * since mapping the zero page there would lose its tags. So the verdict
 * (which asks pages_identical()) finds no zero-filled page and splits
 * nothing: a split would give nothing back and lose the contiguous mapping.
 * The mTHPs are checked, stay whole and contpte-mapped, and keep their data.
 */
static void mte_tagged_left_alone(struct kunit *test)
{
	unsigned long addr, base;
	struct u_counts c0, c1;
	struct page *page;

	KUNIT_ASSERT_TRUE_MSG(test, system_supports_mte(),
			      "the arm64 KUnit kernel boots with mte=on (scripts/kunit.sh)");
	addr = kunit_vm_mmap(test, NULL, 0, U_LEN + U_NR * PAGE_SIZE,
			     PROT_READ | PROT_WRITE | PROT_MTE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0);
	base = ALIGN(addr, U_NR * PAGE_SIZE);
	counts_get(&c0);
	touch_sparse(test, base);
	counts_get(&c1);
	KUNIT_ASSERT_EQ(test, c1.alloc - c0.alloc, U_BLOCKS);
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(base, 1, 0, &page), 1);
	KUNIT_EXPECT_TRUE(test, page_mte_tagged(page));
	put_page(page);

	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_GE(test, c1.checked - c0.checked, U_BLOCKS);
	KUNIT_EXPECT_EQ(test, c1.split - c0.split, 0);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS * U_NR);
	KUNIT_EXPECT_TRUE(test, large_at(test, base));
	expect_cont(test, base, mm_rs_cont_order(U_ORDER), true);
	expect_sparse_data(test, base);
}
#endif /* CONFIG_ARM64_MTE */

#ifdef CONFIG_MIGRATION
/* What underused_under_migration() does and sees in the migration's window. */
struct underused_window {
	unsigned long addr;	/* the migrating mTHP's first page */
	bool shrink;		/* the shrinker runs in the window */
	int migrating;		/* the mTHP's entries that were migration entries */
};

static void underused_window_fn(void *arg)
{
	struct underused_window *w = arg;
	pte_t ptes[U_NR];
	int i;

	w->migrating = 0;
	if (mm_rs_read_ptes(current->mm, w->addr, ptes, U_NR))
		for (i = 0; i < U_NR; i++)
			w->migrating += is_swap_pte(ptes[i]) &&
					is_migration_entry(pte_to_swp_entry(ptes[i]));
	if (w->shrink)
		shrink();
}

/*
 * An underused mTHP under the kernel's own migration (mm_rs_migrate_racing():
 * locked, each of its entries a migration entry). 6.12's try_to_migrate()
 * takes its rmap away one entry at a time, and __folio_remove_rmap() marks
 * it partially mapped on the way (base behaviour, not mm-rs's), so the
 * migration queues the new folio as partially mapped (6.12.117's requeue):
 * - with the shrinker run in that window, every other block splits as
 *   underused, and the migrating mTHP is left alone: the split cannot lock it;
 * - either way, the next shrink splits the new folio as partially mapped,
 *   without a verdict: its zero-filled pages are given back all the same,
 *   but underused_split and underused_zero_pages do not count them;
 * - the data is kept, and the mTHP moved to another PFN.
 */
static void underused_under_migration(struct kunit *test)
{
	int shrink_in_window;

	for (shrink_in_window = 0; shrink_in_window <= 1; shrink_in_window++) {
		unsigned long base = map_blocks(test), pfn, new_pfn;
		struct underused_window w = { .addr = base, .shrink = shrink_in_window };
		struct u_counts c0, c1;
		struct folio *folio;
		struct page *page;
		int windows, ret;

		kunit_info(test, "shrinker in the window: %d", shrink_in_window);
		counts_get(&c0);
		touch_sparse(test, base);
		KUNIT_ASSERT_EQ(test, get_user_pages_fast(base, 1, 0, &page), 1);
		folio = page_folio(page);
		pfn = folio_pfn(folio);
		KUNIT_ASSERT_EQ(test, folio_order(folio), U_ORDER);
		KUNIT_ASSERT_TRUE(test, queued(test, base));
		ret = mm_rs_migrate_racing(test, folio, underused_window_fn, &w, &windows);
		counts_get(&c1);
		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_ASSERT_EQ(test, windows, 1);
		KUNIT_EXPECT_EQ(test, w.migrating, U_NR);
		KUNIT_ASSERT_TRUE(test, large_at(test, base));
		KUNIT_ASSERT_EQ(test, get_user_pages_fast(base, 1, 0, &page), 1);
		new_pfn = folio_pfn(page_folio(page));
		put_page(page);
		KUNIT_EXPECT_NE_MSG(test, new_pfn, pfn, "the mTHP did not move");
		KUNIT_EXPECT_EQ(test, c1.split - c0.split, shrink_in_window ? U_BLOCKS - 1 : 0);
		KUNIT_EXPECT_TRUE(test, queued(test, base));
		KUNIT_ASSERT_EQ(test, get_user_pages_fast(base, 1, 0, &page), 1);
		KUNIT_EXPECT_TRUE(test, folio_test_partially_mapped(page_folio(page)));
		put_page(page);

		shrink();
		counts_get(&c1);
		KUNIT_EXPECT_FALSE(test, large_at(test, base));
		KUNIT_EXPECT_EQ(test, c1.split - c0.split, U_BLOCKS - 1);
		/* its zero-filled pages given back too, but not counted as underused */
		KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS);
		KUNIT_EXPECT_EQ(test, c1.zero_pages - c0.zero_pages, (U_BLOCKS - 1) * (U_NR - 1));
		expect_sparse_data(test, base);
		KUNIT_ASSERT_EQ(test, vm_munmap(base, U_LEN), 0);
	}
}
#else
static void underused_under_migration(struct kunit *test)
{
	KUNIT_FAIL(test, "the kunitconfig must enable MIGRATION");
}
#endif /* CONFIG_MIGRATION */

/*
 * The switch, both ways, through its sysfs file. Off: an mTHP a fault maps
 * is not queued, and one queued while it was on is not underused (nothing
 * checked or split). On again: queued, and split. Anything but 0 or 1 is
 * refused.
 */
static void switch_both_ways(struct kunit *test)
{
	unsigned long base, base2;
	struct u_counts c0, c1;
	char *buf;

	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("split_underused", "2"), -EINVAL);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("split_underused", "on"), -EINVAL);
	mm_rs_expect_switch_strict(test, "split_underused", false);

	/* Queued while on, then off before the shrinker runs. */
	base2 = map_blocks(test);
	touch_sparse(test, base2);
	KUNIT_EXPECT_TRUE(test, queued(test, sparse_page(base2, 0)));
	KUNIT_ASSERT_EQ(test, mm_rs_sysfs_write_test("split_underused", "0\n"), 2);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_read_test("split_underused", buf), 2);
	KUNIT_EXPECT_STREQ(test, buf, "0\n");
	/* Faulted while off. */
	base = map_blocks(test);
	counts_get(&c0);
	touch_sparse(test, base);
	KUNIT_EXPECT_FALSE(test, queued(test, sparse_page(base, 0)));
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_EQ(test, c1.checked, c0.checked);
	KUNIT_EXPECT_EQ(test, c1.split, c0.split);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), 2 * U_BLOCKS * U_NR);
	KUNIT_ASSERT_EQ(test, vm_munmap(base, U_LEN), 0);
	KUNIT_ASSERT_EQ(test, vm_munmap(base2, U_LEN), 0);

	KUNIT_ASSERT_EQ(test, mm_rs_sysfs_write_test("split_underused", "1"), 1);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_read_test("split_underused", buf), 2);
	KUNIT_EXPECT_STREQ(test, buf, "1\n");
	base = map_blocks(test);
	counts_get(&c0);
	touch_sparse(test, base);
	KUNIT_EXPECT_TRUE(test, queued(test, sparse_page(base, 0)));
	shrink();
	counts_get(&c1);
	KUNIT_EXPECT_EQ(test, c1.split - c0.split, U_BLOCKS);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), U_BLOCKS);
	expect_sparse_data(test, base);
}

/*
 * A real split at every mTHP order, the ends of the range included: one
 * block of the order, mapped by one fault, with one page written (not the
 * first), at max_ptes_none 0 (any zero-filled page is one too many). The
 * shrinker splits it, counts the split and the other pages in the order's
 * counters, gives those pages back, and keeps the written one with its byte.
 */
static void split_each_order(struct kunit *test)
{
	int order;

	WRITE_ONCE(khugepaged_max_ptes_none, 0);
	for (order = FIRST_ORDER; order < HPAGE_PMD_ORDER; order++) {
		unsigned long nr = 1UL << order, addr, base, split0, zero0;
		long anon0;
		char v = 0;

		base = map_order_blocks(test, order, 1, &addr);
		anon0 = mm_rs_anon_pages(current->mm);
		split0 = mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_SPLIT);
		zero0 = mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_ZERO_PAGES);
		KUNIT_ASSERT_EQ(test, put_user((char)0x5a, (char __user *)(base + PAGE_SIZE + 9)),
				0);
		KUNIT_ASSERT_EQ_MSG(test, mm_rs_anon_pages(current->mm) - anon0, nr,
				    "order %d: not one folio of the order", order);
		KUNIT_EXPECT_TRUE_MSG(test, queued(test, base), "order %d", order);
		shrink();
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_SPLIT) - split0,
				    1, "order %d", order);
		KUNIT_EXPECT_EQ_MSG(test,
				    mm_rs_sum_mthp(order, MTHP_STAT_UNDERUSED_ZERO_PAGES) - zero0,
				    nr - 1, "order %d", order);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_anon_pages(current->mm) - anon0, 1,
				    "order %d", order);
		KUNIT_EXPECT_FALSE_MSG(test, large_at(test, base + PAGE_SIZE), "order %d", order);
		KUNIT_EXPECT_EQ(test, get_user(v, (char __user *)(base + PAGE_SIZE + 9)), 0);
		KUNIT_EXPECT_EQ_MSG(test, v, (char)0x5a, "order %d", order);
		KUNIT_ASSERT_EQ(test, vm_munmap(addr, 2 * nr * PAGE_SIZE), 0);
	}
}

/*
 * A PMD THP keeps 6.12's verdict and counter: one page written, 511 of 512
 * zero-filled, split by thp_underused() and counted in /proc/vmstat's
 * thp_underused_split_page, not in the mTHP counters of its order.
 */
static void pmd_thp_keeps_6_12_verdict(struct kunit *test)
{
	struct underused_ctx *c = test->priv;
	struct thp_knobs k = { .tpf = c->saved.tpf };
	unsigned long addr, base, ev0;
	unsigned long checked0 = mm_rs_sum_mthp(HPAGE_PMD_ORDER, MTHP_STAT_UNDERUSED_CHECKED);
	unsigned long alloc0 = mm_rs_vm_event(THP_FAULT_ALLOC);

	mm_rs_knobs_only(&k, HPAGE_PMD_ORDER, KNOB_ALWAYS);
	mm_rs_knobs_set(&k);
	addr = mm_rs_map_anon(test, 2 * HPAGE_PMD_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	base = ALIGN(addr, HPAGE_PMD_SIZE);
	ev0 = mm_rs_vm_event(THP_UNDERUSED_SPLIT_PAGE);
	KUNIT_ASSERT_EQ(test, put_user((char)0x5a, (char __user *)(base + 5 * PAGE_SIZE)), 0);
	KUNIT_ASSERT_EQ(test, mm_rs_vm_event(THP_FAULT_ALLOC) - alloc0, 1);
	KUNIT_ASSERT_EQ(test, mm_rs_anon_pages(current->mm), HPAGE_PMD_NR);
	shrink();
	KUNIT_EXPECT_EQ(test, mm_rs_vm_event(THP_UNDERUSED_SPLIT_PAGE) - ev0, 1);
	KUNIT_EXPECT_EQ(test, mm_rs_sum_mthp(HPAGE_PMD_ORDER, MTHP_STAT_UNDERUSED_CHECKED),
			checked0);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(current->mm), 1);
}

static struct kunit_case underused_cases[] = {
	KUNIT_CASE(verdict_each_order),
	KUNIT_CASE(verdict_random),
	KUNIT_CASE(verdict_random_same_as_c),
	KUNIT_CASE(sparse_split_gives_back),
	KUNIT_CASE(dense_not_split),
	KUNIT_CASE(byte_anywhere_kept),
	KUNIT_CASE(zero_filled_each_byte),
	KUNIT_CASE(threshold_edge),
	KUNIT_CASE(default_max_none_keeps_all),
	KUNIT_CASE(pinned_left_alone),
	KUNIT_CASE(mlocked_left_alone),
	KUNIT_CASE(written_after_verdict),
	KUNIT_CASE(underused_under_migration),
#ifdef CONFIG_ARM64_MTE
	KUNIT_CASE(mte_tagged_left_alone),
#endif
	KUNIT_CASE(auto_own_verdict_at_default),
	KUNIT_CASE(auto_half_zero_edge),
	KUNIT_CASE(switch_both_ways),
	KUNIT_CASE(pmd_thp_keeps_6_12_verdict),
	KUNIT_CASE(split_each_order),
	{}
};

static struct kunit_suite underused_suite = {
	.name = "mm_rs_underused",
	.init = underused_test_init,
	.exit = underused_test_exit,
	.test_cases = underused_cases,
};

kunit_test_suite(underused_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for mm-rs's underused mTHPs");
