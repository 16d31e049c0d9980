// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mm-rs's anonymous fault install (mm/mm_rs/anon/fault.rs):
 * the state a fault leaves behind on the Rust path and on the C path, the
 * data, and concurrent faults on the same blocks from several threads of one
 * test mm.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/jhash.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <linux/mman.h>
#include <asm/tlb.h>
#include <linux/prandom.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/uaccess.h>
#include <linux/userfaultfd_k.h>
#include <linux/vmstat.h>
#include <linux/wait_bit.h>

#include "internal.h"
#include "mm_rs_kunit.h"

struct anon_fault_ctx {
	struct thp_knobs saved;
	struct mm_rs_paths saved_paths;
};

static int anon_fault_test_init(struct kunit *test)
{
	struct anon_fault_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	mm_rs_knobs_get(&c->saved);
	mm_rs_paths_get(&c->saved_paths);
	test->priv = c;
	return 0;
}

static void anon_fault_test_exit(struct kunit *test)
{
	struct anon_fault_ctx *c = test->priv;

	mm_rs_knobs_set(&c->saved);
	mm_rs_paths_set(&c->saved_paths);
}

/* Only @order enabled (none for order 0), PMD THP off, global mode kept. */
static void enable_only(struct kunit *test, int order)
{
	struct anon_fault_ctx *c = test->priv;
	struct thp_knobs k = { .tpf = c->saved.tpf };

	mm_rs_knobs_only(&k, order, KNOB_ALWAYS);
	mm_rs_knobs_set(&k);
}

/* What a write fault left behind, for comparing the two paths. */
struct fault_state {
	unsigned long prot;		/* pgprot of the block's entries */
	long anon_pages;		/* MM_ANONPAGES delta */
	unsigned long alloc_stat;	/* anon_fault_alloc delta of the order */
	int folio_order, refs, maps;
};

/* Address in the middle of a PMD of a fresh 4-PMD mapping, block-unaligned. */
static unsigned long fresh_addr(struct kunit *test)
{
	unsigned long base = mm_rs_map_anon(test, 4 * PMD_SIZE);

	KUNIT_ASSERT_NE(test, base, 0);
	return ALIGN(base, PMD_SIZE) + PMD_SIZE / 2 + 5 * PAGE_SIZE;
}

/*
 * One write fault with @order enabled; checks every entry of the block and
 * the folio, and fills @st.
 */
static void write_fault_state(struct kunit *test, int order, struct fault_state *st)
{
	/* Mapping first: that attaches the test mm to this thread. */
	unsigned long addr = fresh_addr(test);
	struct mm_struct *mm = current->mm;
	int nr = 1 << order, i;
	unsigned long start = ALIGN_DOWN(addr, PAGE_SIZE << order);
	unsigned long alloc0 = mm_rs_sum_mthp(order, MTHP_STAT_ANON_FAULT_ALLOC);
	long anon0 = mm_rs_anon_pages(mm);
	unsigned long pfn0;
	struct folio *folio;
	pte_t *ptes;

	ptes = kunit_kcalloc(test, nr + 2, sizeof(*ptes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	enable_only(test, order);
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)addr), 0);
	/* The folio is still in this CPU's LRU batch, which holds a reference. */
	lru_add_drain_all();

	/* One entry either side (maybe in another PTE table, maybe none), then the block. */
	if (mm_rs_read_ptes(mm, start - PAGE_SIZE, &ptes[0], 1))
		KUNIT_EXPECT_TRUE(test, pte_none(ptes[0]));
	if (mm_rs_read_ptes(mm, start + (PAGE_SIZE << order), &ptes[nr + 1], 1))
		KUNIT_EXPECT_TRUE(test, pte_none(ptes[nr + 1]));
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, &ptes[1], nr));
	KUNIT_ASSERT_TRUE(test, pte_present(ptes[1]));
	pfn0 = pte_pfn(ptes[1]);
	for (i = 1; i <= nr; i++) {
		pte_t pte = ptes[i];

		KUNIT_EXPECT_TRUE_MSG(test, pte_present(pte), "entry %d of %d", i - 1, nr);
		KUNIT_EXPECT_EQ_MSG(test, pte_pfn(pte), pfn0 + i - 1, "entry %d", i - 1);
		KUNIT_EXPECT_TRUE(test, pte_write(pte));
		KUNIT_EXPECT_TRUE(test, pte_dirty(pte));
		KUNIT_EXPECT_TRUE(test, pte_young(pte));
		KUNIT_EXPECT_FALSE(test, pte_special(pte));
		KUNIT_EXPECT_EQ(test, pgprot_val(pte_pgprot(pte)), pgprot_val(pte_pgprot(ptes[1])));
		/*
		 * arm64 with contpte: set_ptes() folds a naturally aligned
		 * block of CONT_PTES entries of one folio into a contiguous
		 * range, as Debian's arm64 kernel maps every 64K mTHP.
		 */
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_pte_cont(pte), mm_rs_cont_order(order),
				    "contiguous bit of entry %d of %d", i - 1, nr);
	}
	folio = page_folio(pfn_to_page(pfn0));
	KUNIT_EXPECT_EQ(test, folio_order(folio), order);
	KUNIT_EXPECT_PTR_EQ(test, folio_page(folio, 0), pfn_to_page(pfn0));
	KUNIT_EXPECT_TRUE(test, folio_test_anon(folio));
	KUNIT_EXPECT_TRUE(test, PageAnonExclusive(pfn_to_page(pfn0)));
	KUNIT_EXPECT_TRUE(test, folio_test_uptodate(folio));
	KUNIT_EXPECT_TRUE(test, folio_test_lru(folio));

	st->prot = pgprot_val(pte_pgprot(ptes[1]));
	st->anon_pages = mm_rs_anon_pages(mm) - anon0;
	st->alloc_stat = mm_rs_sum_mthp(order, MTHP_STAT_ANON_FAULT_ALLOC) - alloc0;
	st->folio_order = folio_order(folio);
	st->refs = folio_ref_count(folio);
	st->maps = folio_mapcount(folio);
	KUNIT_EXPECT_EQ(test, st->anon_pages, nr);
	KUNIT_EXPECT_EQ(test, st->alloc_stat, (unsigned long)(order > 0));
	KUNIT_EXPECT_EQ(test, st->refs, nr);
	KUNIT_EXPECT_EQ(test, st->maps, nr);
}

/*
 * Each mTHP size and order 0, on the C path and on each path with Rust in
 * it (the order, the fault with C's order, both): the same entries,
 * counters, statistics, reference and map counts.
 */
/* The Rust entry points an anonymous fault may take, counted. */
struct entry_probes {
	struct mm_rs_probe *order, *fault, *fault_c_order;
};

static void entry_probes_start(struct kunit *test, struct entry_probes *e)
{
	e->order = mm_rs_probe(test, "mm_rs_alloc_anon_folio");
	e->fault = mm_rs_probe(test, "mm_rs_do_anonymous_page");
	e->fault_c_order = mm_rs_probe(test, "mm_rs_do_anonymous_page_c_order");
}

/*
 * Exactly the entry the switches @p choose handled the one write fault since
 * the last check: what the switch files read is not enough (a store that set
 * the other direction would go unseen, and every "C" figure measure Rust).
 */
static void expect_entries(struct kunit *test, struct entry_probes *e,
			   const struct mm_rs_paths *p)
{
	int order = mm_rs_probe_hits(e->order), fault = mm_rs_probe_hits(e->fault);
	int fault_c_order = mm_rs_probe_hits(e->fault_c_order);

	KUNIT_EXPECT_EQ_MSG(test, fault, p->anon_fault && p->anon_order,
			    "anon_order %d anon_fault %d: mm_rs_do_anonymous_page",
			    p->anon_order, p->anon_fault);
	KUNIT_EXPECT_EQ_MSG(test, fault_c_order, p->anon_fault && !p->anon_order,
			    "anon_order %d anon_fault %d: mm_rs_do_anonymous_page_c_order",
			    p->anon_order, p->anon_fault);
	/* C's fault asks Rust for the folio when the order is Rust's. */
	KUNIT_EXPECT_EQ_MSG(test, order, !p->anon_fault && p->anon_order,
			    "anon_order %d anon_fault %d: mm_rs_alloc_anon_folio",
			    p->anon_order, p->anon_fault);
}

static void fault_state_each_order(struct kunit *test)
{
	static const struct mm_rs_paths rust_paths[] = {
		{ .anon_order = true, .anon_fault = false },
		{ .anon_order = false, .anon_fault = true },
		{ .anon_order = true, .anon_fault = true },
	};
	static const struct mm_rs_paths c_paths = {};
	struct fault_state c_st, rust_st;
	struct entry_probes probes;
	int order, i;

	entry_probes_start(test, &probes);
	for (order = 0; order < PMD_ORDER; order++) {
		if (order == 1)
			continue;
		mm_rs_paths_set(&c_paths);
		mm_rs_probe_hits(probes.order);
		mm_rs_probe_hits(probes.fault);
		mm_rs_probe_hits(probes.fault_c_order);
		write_fault_state(test, order, &c_st);
		expect_entries(test, &probes, &c_paths);
		for (i = 0; i < ARRAY_SIZE(rust_paths); i++) {
			kunit_info(test, "order %d, anon_order %d, anon_fault %d", order,
				   rust_paths[i].anon_order, rust_paths[i].anon_fault);
			mm_rs_paths_set(&rust_paths[i]);
			write_fault_state(test, order, &rust_st);
			expect_entries(test, &probes, &rust_paths[i]);
			KUNIT_EXPECT_EQ(test, rust_st.prot, c_st.prot);
			KUNIT_EXPECT_EQ(test, rust_st.anon_pages, c_st.anon_pages);
			KUNIT_EXPECT_EQ(test, rust_st.alloc_stat, c_st.alloc_stat);
			KUNIT_EXPECT_EQ(test, rust_st.folio_order, c_st.folio_order);
			KUNIT_EXPECT_EQ(test, rust_st.refs, c_st.refs);
			KUNIT_EXPECT_EQ(test, rust_st.maps, c_st.maps);
		}
	}
}

/* The three anonymous mTHP fault statistics of one order. */
struct fault_stats {
	unsigned long fallback, fallback_charge, alloc;
};

static struct fault_stats fault_stats_of(int order)
{
	return (struct fault_stats) {
		.fallback = mm_rs_sum_mthp(order, MTHP_STAT_ANON_FAULT_FALLBACK),
		.fallback_charge = mm_rs_sum_mthp(order, MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE),
		.alloc = mm_rs_sum_mthp(order, MTHP_STAT_ANON_FAULT_ALLOC),
	};
}

/* Large orders whose allocation, or whose memcg charge, fails (stubs below). */
static unsigned long alloc_fail_orders, charge_fail_orders;

static struct folio *alloc_failing(gfp_t gfp, int order, struct vm_area_struct *vma,
				   unsigned long addr)
{
	if (order < BITS_PER_LONG && (alloc_fail_orders & BIT(order)))
		return NULL;
	return vma_alloc_folio(gfp, order, vma, addr, true);
}

static int charge_failing(struct folio *folio, struct mm_struct *mm, gfp_t gfp)
{
	if (charge_fail_orders & BIT(folio_order(folio)))
		return -ENOMEM;
	return mem_cgroup_charge(folio, mm, gfp);
}

/*
 * The mTHP statistics of a failed allocation and of a failed memcg charge,
 * on the real fault path (the allocator and the memcg redirected to fail for
 * the orders chosen), as C's alloc_anon_folio() counts them: every order
 * given up counts anon_fault_fallback, one whose charge failed also
 * anon_fault_fallback_charge, and the order mapped anon_fault_alloc. On each
 * path that allocates in Rust (C's own allocation cannot be redirected; its
 * counting is mainline's).
 */
static void fallback_stats_real_faults(struct kunit *test)
{
	static const struct mm_rs_paths paths[] = {
		{ .anon_order = true, .anon_fault = false },
		{ .anon_order = false, .anon_fault = true },
		{ .anon_order = true, .anon_fault = true },
	};
	static const struct {
		unsigned long alloc_fails, charge_fails;
		int mapped;
	} cases[] = {
		{ BIT(4), 0, 2 },		/* 64K not allocated: 16K */
		{ 0, BIT(4), 2 },		/* 64K not charged: 16K */
		{ BIT(4), BIT(2), 0 },		/* neither: order 0 */
		{ 0, BIT(4) | BIT(2), 0 },	/* neither charged: order 0 */
		{ 0, 0, 4 },			/* the control: 64K */
	};
	struct anon_fault_ctx *c = test->priv;
	int p, i, o;

	kunit_activate_static_stub(test, mm_rs_fault_alloc_folio, alloc_failing);
	kunit_activate_static_stub(test, mm_rs_fault_charge_folio, charge_failing);
	for (p = 0; p < ARRAY_SIZE(paths); p++)
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			struct thp_knobs k = { .tpf = c->saved.tpf, .always = BIT(4) | BIT(2) };
			struct fault_stats st0[PMD_ORDER];
			unsigned long addr = fresh_addr(test);
			pte_t pte;

			mm_rs_paths_set(&paths[p]);
			mm_rs_knobs_set(&k);
			alloc_fail_orders = cases[i].alloc_fails;
			charge_fail_orders = cases[i].charge_fails;
			for (o = 0; o < PMD_ORDER; o++)
				st0[o] = fault_stats_of(o);
			KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)addr), 0);
			alloc_fail_orders = 0;
			charge_fail_orders = 0;
			KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(current->mm, addr, &pte, 1));
			KUNIT_ASSERT_TRUE(test, pte_present(pte));
			KUNIT_EXPECT_EQ_MSG(test, folio_order(page_folio(pte_page(pte))),
					    cases[i].mapped, "path %d case %d", p, i);
			for (o = FIRST_ORDER; o < PMD_ORDER; o++) {
				bool tried = (o == 4 || o == 2) && o > cases[i].mapped;
				bool charge = tried && (cases[i].charge_fails & BIT(o));
				struct fault_stats st = fault_stats_of(o);

				KUNIT_EXPECT_EQ_MSG(test, st.fallback - st0[o].fallback,
						    (unsigned long)tried,
						    "path %d case %d: anon_fault_fallback of order %d",
						    p, i, o);
				KUNIT_EXPECT_EQ_MSG(test,
						    st.fallback_charge - st0[o].fallback_charge,
						    (unsigned long)charge,
						    "path %d case %d: anon_fault_fallback_charge of order %d",
						    p, i, o);
				KUNIT_EXPECT_EQ_MSG(test, st.alloc - st0[o].alloc,
						    (unsigned long)(o == cases[i].mapped),
						    "path %d case %d: anon_fault_alloc of order %d",
						    p, i, o);
			}
		}
}

/* A read fault maps the zero page; a write then replaces it with a folio. */
static void zero_page_then_write(struct kunit *test)
{
	unsigned long prot[2] = { 0, 0 };
	int rust;

	for (rust = 0; rust <= 1; rust++) {
		unsigned long addr = fresh_addr(test);
		struct mm_struct *mm = current->mm;
		long anon0 = mm_rs_anon_pages(mm);
		pte_t pte;
		char v = 1;

		mm_rs_paths_all(rust);
		enable_only(test, 4);
		KUNIT_ASSERT_EQ(test, get_user(v, (char __user *)addr), 0);
		KUNIT_EXPECT_EQ(test, v, 0);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, addr, &pte, 1));
		KUNIT_EXPECT_TRUE(test, pte_present(pte));
		KUNIT_EXPECT_TRUE(test, is_zero_pfn(pte_pfn(pte)));
		KUNIT_EXPECT_TRUE(test, pte_special(pte));
		KUNIT_EXPECT_FALSE(test, pte_write(pte));
		KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), anon0);
		prot[rust] = pgprot_val(pte_pgprot(pte));

		KUNIT_ASSERT_EQ(test, put_user((char)7, (char __user *)addr), 0);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, addr, &pte, 1));
		KUNIT_EXPECT_FALSE(test, is_zero_pfn(pte_pfn(pte)));
		KUNIT_EXPECT_TRUE(test, pte_write(pte));
		KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), anon0 + 1);
		KUNIT_ASSERT_EQ(test, get_user(v, (char __user *)addr), 0);
		KUNIT_EXPECT_EQ(test, v, 7);
	}
	KUNIT_EXPECT_EQ(test, prot[1], prot[0]);
}

/* Bytes of [start, start + len) that are not @fill, but for @addr, which must be @at. */
static size_t count_unexpected(struct kunit *test, unsigned long start, size_t len,
			       char fill, unsigned long addr, char at)
{
	char *buf = kvmalloc(len, GFP_KERNEL);
	size_t i, bad = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, copy_from_user(buf, (void __user *)start, len), 0);
	for (i = 0; i < len; i++)
		if (buf[i] != (start + i == addr ? at : fill))
			bad++;
	kvfree(buf);
	return bad;
}

/* What is written through the new mapping reads back; the blocks around are untouched. */
static void data_and_neighbours(struct kunit *test)
{
	const int order = min(4, PMD_ORDER - 1);
	const size_t block = PAGE_SIZE << order;
	int rust;

	for (rust = 0; rust <= 1; rust++) {
		unsigned long addr = fresh_addr(test);
		unsigned long start = ALIGN_DOWN(addr, block);
		char *page = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, page);
		mm_rs_paths_all(rust);
		/* Fill the last page before the block and the first after it, at order 0. */
		enable_only(test, 0);
		memset(page, 0xab, PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(start - PAGE_SIZE), page,
						   PAGE_SIZE), 0);
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(start + block), page,
						   PAGE_SIZE), 0);

		enable_only(test, order);
		mm_rs_poison_free_pages(order);
		KUNIT_ASSERT_EQ(test, put_user((char)0x3c, (char __user *)addr), 0);
		KUNIT_EXPECT_EQ(test, count_unexpected(test, start, block, 0, addr, 0x3c), 0);
		KUNIT_EXPECT_EQ(test, count_unexpected(test, start - PAGE_SIZE, PAGE_SIZE,
						       (char)0xab, 0, 0), 0);
		KUNIT_EXPECT_EQ(test, count_unexpected(test, start + block, PAGE_SIZE,
						       (char)0xab, 0, 0), 0);

		/* A pattern over the whole block reads back. */
		memset(page, 0x5e, PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(start + block / 2), page,
						   PAGE_SIZE), 0);
		KUNIT_EXPECT_EQ(test, count_unexpected(test, start + block / 2, PAGE_SIZE,
						       0x5e, 0, 0), 0);
	}
}

/* Page @i's byte of partial_zap_unfolds(): at a different offset in each. */
static char __user *byte_of(unsigned long start, int i)
{
	return (char __user *)(start + i * (PAGE_SIZE + 97));
}

/*
 * A large folio mapped by one fault, then zapped in part: MADV_DONTNEED of
 * its first page and munmap() of its last, on the C and the Rust paths. The
 * pages left keep their entries (present, the folio's PFNs in order) and
 * their data, one distinct byte at a distinct offset of each page. On arm64
 * with contpte (Debian's arm64 kernel) the block is mapped contiguous and
 * each partial zap must unfold it: no entry left keeps the contiguous bit,
 * which would otherwise claim a 64K translation over a hole.
 */
static void partial_zap_unfolds(struct kunit *test)
{
	const int order = min(4, PMD_ORDER - 1);
	const int nr = 1 << order;
	const size_t block = PAGE_SIZE << order;
	struct mm_struct *mm;
	pte_t *ptes;
	int rust, i;

	ptes = kunit_kcalloc(test, nr, sizeof(*ptes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	for (rust = 0; rust <= 1; rust++) {
		unsigned long start = ALIGN_DOWN(fresh_addr(test), block);
		unsigned long pfn0;
		char c;

		mm = current->mm;
		mm_rs_paths_all(rust);
		enable_only(test, order);
		for (i = 0; i < nr; i++)
			KUNIT_ASSERT_EQ(test, put_user((char)(0x40 + i), byte_of(start, i)), 0);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, ptes, nr));
		KUNIT_ASSERT_TRUE(test, pte_present(ptes[0]));
		pfn0 = pte_pfn(ptes[0]);
		for (i = 0; i < nr; i++)
			KUNIT_EXPECT_EQ_MSG(test, mm_rs_pte_cont(ptes[i]), mm_rs_cont_order(order),
					    "rust %d: entry %d before the zaps", rust, i);

		KUNIT_ASSERT_EQ(test, do_madvise(mm, start, PAGE_SIZE, MADV_DONTNEED), 0);
		KUNIT_ASSERT_EQ(test, vm_munmap(start + block - PAGE_SIZE, PAGE_SIZE), 0);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, ptes, nr));
		KUNIT_EXPECT_TRUE(test, pte_none(ptes[0]));
		KUNIT_EXPECT_TRUE(test, pte_none(ptes[nr - 1]));
		for (i = 1; i < nr - 1; i++) {
			pte_t pte = ptes[i];

			KUNIT_EXPECT_TRUE_MSG(test, pte_present(pte), "rust %d: entry %d", rust, i);
			KUNIT_EXPECT_EQ_MSG(test, pte_pfn(pte), pfn0 + i, "rust %d: entry %d",
					    rust, i);
			KUNIT_EXPECT_FALSE_MSG(test, mm_rs_pte_cont(pte),
					       "rust %d: entry %d still contiguous", rust, i);
			KUNIT_ASSERT_EQ(test, get_user(c, byte_of(start, i)), 0);
			KUNIT_EXPECT_EQ_MSG(test, c, (char)(0x40 + i), "rust %d: data of page %d",
					    rust, i);
		}
		/* The DONTNEED page faults in again, zero-filled. */
		KUNIT_ASSERT_EQ(test, get_user(c, (char __user *)start), 0);
		KUNIT_EXPECT_EQ(test, c, 0);
	}
}

/*
 * mprotect(2) of [@start, @end), mapped without a hole, with or without
 * write permission, the way do_mprotect_pkey() calls mprotect_fixup() on
 * each VMA of the range.
 */
static int test_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end,
			 bool write)
{
	struct vm_area_struct *vma, *prev;
	unsigned long nstart = start, tmp;
	struct vma_iterator vmi;
	struct mmu_gather tlb;
	int err = -ENOMEM;

	mmap_write_lock(mm);
	vma_iter_init(&vmi, mm, start);
	vma = vma_find(&vmi, end);
	if (!vma || vma->vm_start > start)
		goto out;
	prev = vma_prev(&vmi);
	if (start > vma->vm_start)
		prev = vma;
	tlb_gather_mmu(&tlb, mm);
	tmp = vma->vm_start;
	for_each_vma_range(vmi, vma, end) {
		unsigned long newflags = write ? vma->vm_flags | VM_WRITE :
						 vma->vm_flags & ~VM_WRITE;

		if (vma->vm_start != tmp) {
			err = -ENOMEM;
			break;
		}
		tmp = min(vma->vm_end, end);
		err = mprotect_fixup(&vmi, &tlb, vma, &prev, nstart, tmp, newflags);
		if (err)
			break;
		tmp = vma_iter_end(&vmi);
		nstart = tmp;
	}
	tlb_finish_mmu(&tlb);
	if (!err && tmp < end)
		err = -ENOMEM;
out:
	mmap_write_unlock(mm);
	return err;
}

/*
 * mprotect() over large folios that one fault each mapped, on the C and the
 * Rust paths: of a whole block and of half of one, read-only and back. Every
 * entry keeps its page and the permission asked for, the data stays, and on
 * arm64 with contpte no entry is left with a contiguous bit its block does
 * not share (a 64K translation over entries that now differ).
 */
static void mprotect_keeps_blocks(struct kunit *test)
{
	const int order = min(4, PMD_ORDER - 1);
	const int nr = 1 << order;
	const size_t block = PAGE_SIZE << order;
	struct mm_struct *mm;
	pte_t *ptes;
	int rust, i;

	ptes = kunit_kcalloc(test, 2 * nr, sizeof(*ptes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	for (rust = 0; rust <= 1; rust++) {
		unsigned long start = ALIGN(fresh_addr(test), block);
		unsigned long pfn[2];
		char c;

		mm = current->mm;
		mm_rs_paths_all(rust);
		enable_only(test, order);
		for (i = 0; i < 2 * nr; i++)
			KUNIT_ASSERT_EQ(test, put_user((char)(0x30 + i), byte_of(start, i)), 0);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, ptes, 2 * nr));
		pfn[0] = pte_pfn(ptes[0]);
		pfn[1] = pte_pfn(ptes[nr]);
		for (i = 0; i < 2 * nr; i++)
			KUNIT_ASSERT_EQ_MSG(test, mm_rs_pte_cont(ptes[i]), mm_rs_cont_order(order),
					    "rust %d: entry %d before mprotect", rust, i);

		/* The first block whole, the second's first half: read-only. */
		KUNIT_ASSERT_EQ(test, test_mprotect(mm, start, start + block, false), 0);
		KUNIT_ASSERT_EQ(test, test_mprotect(mm, start + block, start + block + block / 2,
						    false), 0);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, ptes, 2 * nr));
		for (i = 0; i < 2 * nr; i++) {
			KUNIT_EXPECT_TRUE_MSG(test, pte_present(ptes[i]), "rust %d: entry %d",
					      rust, i);
			KUNIT_EXPECT_EQ_MSG(test, pte_pfn(ptes[i]), pfn[i / nr] + i % nr,
					    "rust %d: entry %d", rust, i);
			KUNIT_EXPECT_EQ_MSG(test, pte_write(ptes[i]), i >= nr + nr / 2,
					    "rust %d: entry %d", rust, i);
		}
		mm_rs_expect_cont_sane(test, ptes, 2 * nr,
				       rust ? "Rust, read-only" : "C, read-only");
		/* Half a block read-only: its entries differ, so none is contiguous. */
		for (i = nr; i < 2 * nr; i++)
			KUNIT_EXPECT_FALSE_MSG(test, mm_rs_pte_cont(ptes[i]),
					       "rust %d: entry %d contiguous", rust, i);

		/* Writable again, and written: the same pages, the data kept. */
		KUNIT_ASSERT_EQ(test, test_mprotect(mm, start, start + 2 * block, true), 0);
		for (i = 0; i < 2 * nr; i++) {
			KUNIT_ASSERT_EQ(test, get_user(c, byte_of(start, i)), 0);
			KUNIT_EXPECT_EQ_MSG(test, c, (char)(0x30 + i), "rust %d: data of page %d",
					    rust, i);
			KUNIT_ASSERT_EQ(test, put_user((char)(0x60 + i), byte_of(start, i)), 0);
		}
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, ptes, 2 * nr));
		for (i = 0; i < 2 * nr; i++) {
			KUNIT_EXPECT_EQ_MSG(test, pte_pfn(ptes[i]), pfn[i / nr] + i % nr,
					    "rust %d: entry %d after the writes", rust, i);
			KUNIT_EXPECT_TRUE_MSG(test, pte_write(ptes[i]), "rust %d: entry %d",
					      rust, i);
		}
		mm_rs_expect_cont_sane(test, ptes, 2 * nr,
				       rust ? "Rust, writable" : "C, writable");
	}
}

/*
 * The child of fork_keeps_blocks(), a task of its own with a copy of the
 * test's mm made by the kernel's fork (dup_mmap(), copy_page_range()).
 * It lends its mm to the parent, writes one byte when told, and exits.
 */
struct fork_child {
	struct mm_struct *mm;		/* the child's mm, referenced for the parent */
	unsigned long addr;		/* where the child writes */
	int write_ret;
	struct completion forked, go, written;
};

static int fork_child_fn(void *data)
{
	struct fork_child *fc = data;

	fc->mm = current->mm;
	mmget(fc->mm);
	complete(&fc->forked);
	wait_for_completion(&fc->go);
	fc->write_ret = put_user((char)0x7e, (char __user *)fc->addr);
	/* @fc is the parent's from here on. */
	complete(&fc->written);
	do_exit(0);
}

/*
 * Checks two blocks of @mm's entries at @start against the PFNs @pfn their
 * faults mapped: each entry maps its page of the folio, read-only, except
 * entry @copied (if not -1), which must be a writable copy; a block keeps the
 * contiguous bit (arm64 with contpte) only if no entry of it was copied, and
 * no block has a stale one.
 */
static void expect_forked_blocks(struct kunit *test, struct mm_struct *mm, unsigned long start,
				 int order, const unsigned long *pfn, int copied, const char *what)
{
	const int nr = 1 << order;
	pte_t *ptes = kunit_kcalloc(test, 2 * nr, sizeof(*ptes), GFP_KERNEL);
	int i;

	if (!ptes || !mm_rs_read_ptes(mm, start, ptes, 2 * nr)) {
		KUNIT_FAIL(test, "%s: no entries", what);
		return;
	}
	for (i = 0; i < 2 * nr; i++) {
		bool copy = i == copied;
		bool block_copied = copied >= 0 && copied / nr == i / nr;

		KUNIT_EXPECT_TRUE_MSG(test, pte_present(ptes[i]), "%s: entry %d", what, i);
		KUNIT_EXPECT_EQ_MSG(test, pte_pfn(ptes[i]) == pfn[i / nr] + i % nr, !copy,
				    "%s: entry %d's page", what, i);
		KUNIT_EXPECT_EQ_MSG(test, pte_write(ptes[i]), copy, "%s: entry %d", what, i);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_pte_cont(ptes[i]),
				    mm_rs_cont_order(order) && !block_copied,
				    "%s: entry %d contiguous", what, i);
	}
	mm_rs_expect_cont_sane(test, ptes, 2 * nr, what);
}

/* @mm's byte of page @i (byte_of()), read as the kernel reads another mm. */
static int remote_byte(struct mm_struct *mm, unsigned long start, int i)
{
	char c;

	if (access_remote_vm(mm, (unsigned long)byte_of(start, i), &c, 1, 0) != 1)
		return -1;
	return (unsigned char)c;
}

/*
 * fork() over large folios that one fault each mapped, on the C and the Rust
 * paths, with the kernel's own fork (kernel_clone() without CLONE_VM). Both
 * sides map the same pages read-only, and on arm64 with contpte both keep
 * each block contiguous (contpte_wrprotect_ptes() over a whole block, and
 * set_ptes() of a batch in the child). A write on either side copies one
 * page there: that block unfolds on that side only, and the other side keeps
 * its block, its pages and its data.
 */
static void fork_keeps_blocks(struct kunit *test)
{
	const int order = min(4, PMD_ORDER - 1);
	const int nr = 1 << order;
	const size_t block = PAGE_SIZE << order;
	struct fork_child *fc;
	int rust, i;

	fc = kunit_kzalloc(test, sizeof(*fc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fc);
	for (rust = 0; rust <= 1; rust++) {
		unsigned long start = ALIGN(fresh_addr(test), block);
		struct kernel_clone_args args = {
			.flags = CLONE_UNTRACED,
			.exit_signal = SIGCHLD,
			.fn = fork_child_fn,
			.fn_arg = fc,
		};
		const char *path = rust ? "Rust" : "C";
		struct mm_struct *mm = current->mm;
		unsigned long pfn[2];
		pte_t ptes[2];
		char c;

		mm_rs_paths_all(rust);
		enable_only(test, order);
		for (i = 0; i < 2 * nr; i++)
			KUNIT_ASSERT_EQ(test, put_user((char)(0x30 + i), byte_of(start, i)), 0);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, &ptes[0], 1));
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start + block, &ptes[1], 1));
		pfn[0] = pte_pfn(ptes[0]);
		pfn[1] = pte_pfn(ptes[1]);
		KUNIT_ASSERT_EQ(test, folio_order(pfn_folio(pfn[0])), order);
		KUNIT_ASSERT_EQ(test, folio_order(pfn_folio(pfn[1])), order);

		init_completion(&fc->forked);
		init_completion(&fc->go);
		init_completion(&fc->written);
		fc->addr = (unsigned long)byte_of(start, nr + 5);
		KUNIT_ASSERT_GT(test, kernel_clone(&args), 0);
		wait_for_completion(&fc->forked);
		/* No assertion until the child is let go: it waits for us. */

		expect_forked_blocks(test, mm, start, order, pfn, -1,
				     rust ? "Rust, parent forked" : "C, parent forked");
		expect_forked_blocks(test, fc->mm, start, order, pfn, -1,
				     rust ? "Rust, child" : "C, child");

		/* The parent writes page 3: a copy of that page, on its side only. */
		KUNIT_EXPECT_EQ(test, put_user((char)0x70, byte_of(start, 3)), 0);
		expect_forked_blocks(test, mm, start, order, pfn, 3,
				     rust ? "Rust, parent wrote" : "C, parent wrote");
		expect_forked_blocks(test, fc->mm, start, order, pfn, -1,
				     rust ? "Rust, child after the parent's write" :
					    "C, child after the parent's write");

		/* The child writes page nr + 5, in the other block. */
		complete(&fc->go);
		wait_for_completion(&fc->written);
		KUNIT_EXPECT_EQ(test, fc->write_ret, 0);
		expect_forked_blocks(test, fc->mm, start, order, pfn, nr + 5,
				     rust ? "Rust, child wrote" : "C, child wrote");
		expect_forked_blocks(test, mm, start, order, pfn, 3,
				     rust ? "Rust, parent after the child's write" :
					    "C, parent after the child's write");

		/* Each side reads its own writes and the other's old data. */
		for (i = 0; i < 2 * nr; i++) {
			KUNIT_EXPECT_EQ(test, get_user(c, byte_of(start, i)), 0);
			KUNIT_EXPECT_EQ_MSG(test, c, (char)(i == 3 ? 0x70 : 0x30 + i),
					    "%s: the parent's page %d", path, i);
			KUNIT_EXPECT_EQ_MSG(test, remote_byte(fc->mm, start, i),
					    i == nr + 5 ? 0x7e : 0x30 + i,
					    "%s: the child's page %d", path, i);
		}
		mmput(fc->mm);
	}
}

/* The PMD entry covering @addr in @mm, which must have a PTE table there. */
static pmd_t *pmd_of(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d = p4d_offset(pgd, addr);
	pud_t *pud = pud_offset(p4d, addr);

	return pmd_offset(pud, addr);
}

/*
 * The vm_fault C's fault path would hand over for a fault at @addr of @vma,
 * which must have a PTE table there; the caller holds the mmap lock.
 */
static struct vm_fault test_vmf(struct vm_area_struct *vma, unsigned long addr,
				unsigned int flags)
{
	return (struct vm_fault) {
		.vma = vma,
		.address = addr,
		.real_address = addr,
		.pgoff = linear_page_index(vma, addr),
		.gfp_mask = GFP_KERNEL,
		.flags = flags,
		.pmd = pmd_of(vma->vm_mm, addr),
	};
}

/*
 * The race lost, made deterministic: another thread mapped a page of the
 * block between the lockless check and the PTE lock. The Rust install is
 * called directly with a folio for the block; it must find the page under
 * the lock, leave the page tables and counters as they were, and release the
 * folio (we keep a reference of our own to watch it come back).
 */
static void install_race_lost_order(struct kunit *test, int order)
{
	unsigned long addr = fresh_addr(test);
	struct mm_struct *mm = current->mm;
	unsigned long start = ALIGN_DOWN(addr, PAGE_SIZE << order);
	unsigned long other = order ? start + (PAGE_SIZE << order) - PAGE_SIZE : addr;
	int nr = 1 << order, i;
	struct vm_area_struct *vma;
	struct folio *folio;
	pte_t before, *ptes;
	vm_fault_t ret;
	long anon0;

	ptes = kunit_kcalloc(test, nr, sizeof(*ptes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	enable_only(test, 0);
	KUNIT_ASSERT_EQ(test, put_user((char)9, (char __user *)other), 0);
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, other, &before, 1));
	anon0 = mm_rs_anon_pages(mm);

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	MM_RS_ASSERT_MMAP_READ(test, vma, mm);
	folio = vma_alloc_folio(GFP_HIGHUSER_MOVABLE | __GFP_ZERO, order, vma, start, true);
	if (!folio) {
		mmap_read_unlock(mm);
		KUNIT_FAIL(test, "no order-%d folio to install", order);
		return;
	}
	folio_get(folio);
	{
		struct vm_fault vmf = test_vmf(vma, addr, FAULT_FLAG_WRITE);

		ret = mm_rs_anon_folio_install(&vmf, folio);
		KUNIT_EXPECT_EQ(test, ret, 0);
		/* A read fault finding the page mapped backs out too. */
		vmf.flags = 0;
		vmf.address = other;
		KUNIT_EXPECT_EQ(test, mm_rs_anon_zero_page_install(&vmf), 0);
		if (!order) {
			/*
			 * As handle_pte_fault() hands a fault over: it read the
			 * entry (none then), and the recheck compares with that.
			 */
			folio_get(folio);
			vmf = test_vmf(vma, addr, FAULT_FLAG_WRITE | FAULT_FLAG_ORIG_PTE_VALID);
			vmf.orig_pte = __pte(0);
			KUNIT_EXPECT_EQ(test, mm_rs_anon_folio_install(&vmf, folio), 0);
			vmf.flags = FAULT_FLAG_ORIG_PTE_VALID;
			KUNIT_EXPECT_EQ(test, mm_rs_anon_zero_page_install(&vmf), 0);
		}
	}
	mmap_read_unlock(mm);

	KUNIT_EXPECT_EQ(test, folio_ref_count(folio), 1);
	KUNIT_EXPECT_EQ(test, folio_mapcount(folio), 0);
	folio_put(folio);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), anon0);
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, ptes, nr));
	for (i = 0; i < nr; i++) {
		if (start + i * PAGE_SIZE == other)
			KUNIT_EXPECT_TRUE(test, pte_same(ptes[i], before));
		else
			KUNIT_EXPECT_TRUE_MSG(test, pte_none(ptes[i]), "entry %d of %d", i, nr);
	}
}

static void install_race_lost(struct kunit *test)
{
	int order;

	for (order = 0; order < PMD_ORDER; order++)
		if (order != 1)
			install_race_lost_order(test, order);
}

/* Concurrent faults: threads of one mm fault the same and neighbouring blocks. */

#define RACE_THREADS	3
#define RACE_BLOCKS	3
#define RACE_ROUNDS	150
#define RACE_TOUCHES	24

struct race_ctx {
	struct mm_struct *mm;
	unsigned long base;
	int order;
	atomic_t round;		/* the round the workers may run */
	atomic_t done;		/* workers done with the current round */
	atomic_t faults;	/* the page faults the workers took in it */
	atomic_t errors;
	bool stop;
};

struct race_worker {
	struct race_ctx *ctx;
	struct task_struct *task;
	struct completion exited;
	u32 seed;
};

static int race_worker_fn(void *data)
{
	struct race_worker *w = data;
	struct race_ctx *ctx = w->ctx;
	unsigned long pages = RACE_BLOCKS << ctx->order;
	struct rnd_state rs;
	int round, t;

	prandom_seed_state(&rs, w->seed);
	kthread_use_mm(ctx->mm);
	for (round = 1; round <= RACE_ROUNDS && !READ_ONCE(ctx->stop); round++) {
		unsigned long faults = current->min_flt + current->maj_flt;

		/* the round's counters were reset before it was published */
		while (atomic_read_acquire(&ctx->round) < round && !READ_ONCE(ctx->stop))
			cond_resched();
		for (t = 0; t < RACE_TOUCHES; t++) {
			/*
			 * Half the touches walk the range in the same order in
			 * every thread, so that they collide on the same block;
			 * the rest are random.
			 */
			unsigned long page = t < RACE_TOUCHES / 2 ?
				(t * 5) % pages : prandom_u32_state(&rs) % pages;

			if (put_user((char)(page + 1),
				     (char __user *)(ctx->base + page * PAGE_SIZE)))
				atomic_inc(&ctx->errors);
		}
		/* Completed faults (mm_account_fault()), seen before done is. */
		atomic_add(current->min_flt + current->maj_flt - faults, &ctx->faults);
		atomic_inc_return(&ctx->done);
		wake_up_var(&ctx->done);
	}
	kthread_unuse_mm(ctx->mm);
	complete(&w->exited);
	return 0;
}

/*
 * Every present entry of the race range maps a page of a folio whose whole
 * naturally aligned block is mapped, consecutively, and nothing is mapped
 * twice; MM_ANONPAGES counts exactly the mapped pages. @folios: how many
 * folios are mapped, @large: how many of them of the race's order.
 */
static bool check_race_range(struct kunit *test, struct race_ctx *ctx, pte_t *ptes,
			     long anon_base, int *folios, int *large)
{
	int nr = RACE_BLOCKS << ctx->order, i, present = 0;

	*folios = 0;
	*large = 0;

	if (!mm_rs_read_ptes(ctx->mm, ctx->base, ptes, nr)) {
		KUNIT_FAIL(test, "no page table after a round");
		return false;
	}
	for (i = 0; i < nr; i++) {
		struct folio *folio;
		int first, k, fnr;

		if (!pte_present(ptes[i]))
			continue;
		present++;
		folio = page_folio(pfn_to_page(pte_pfn(ptes[i])));
		fnr = folio_nr_pages(folio);
		first = ALIGN_DOWN(i, fnr);
		if (i == first) {
			(*folios)++;
			*large += fnr == 1 << ctx->order;
		}
		if (folio_page(folio, i - first) != pfn_to_page(pte_pfn(ptes[i])) ||
		    folio_mapcount(folio) != fnr) {
			KUNIT_FAIL(test, "entry %d: page %lu of a %d-page folio mapped %d times",
				   i, folio_page_idx(folio, pfn_to_page(pte_pfn(ptes[i]))),
				   fnr, folio_mapcount(folio));
			return false;
		}
		for (k = 0; k < fnr; k++)
			if (!pte_present(ptes[first + k]) ||
			    pte_pfn(ptes[first + k]) != pte_pfn(ptes[first]) + k) {
				KUNIT_FAIL(test, "entry %d: folio block at %d not mapped whole",
					   i, first);
				return false;
			}
	}
	if (mm_rs_anon_pages(ctx->mm) - anon_base != present) {
		KUNIT_FAIL(test, "MM_ANONPAGES %ld, %d pages mapped",
			   mm_rs_anon_pages(ctx->mm) - anon_base, present);
		return false;
	}
	return true;
}

static unsigned long free_pages_now(void)
{
	lru_add_drain_all();
	drain_all_pages(NULL);
	return global_zone_page_state(NR_FREE_PAGES);
}

static void race_order(struct kunit *test, int order)
{
	struct race_worker workers[RACE_THREADS];
	struct race_ctx ctx = { .order = order };
	unsigned long len = (unsigned long)RACE_BLOCKS << (order + PAGE_SHIFT);
	/* Large folios allocated by a fault are zeroed: only the workers' are. */
	struct mm_rs_probe *zeroed = order ? mm_rs_probe(test, "folio_zero_user") : NULL;
	unsigned long free0, free1;
	long anon_base, unmapped_faults = 0, unmapped_large = 0;
	int i, round = 0, faults, folios, large, allocs = 0, started = 0;
	pte_t *ptes;

	ptes = kunit_kcalloc(test, RACE_BLOCKS << order, sizeof(*ptes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	ctx.base = mm_rs_map_anon(test, len + 2 * PMD_SIZE);
	/* A failed mapping is 0 (and ALIGN() of 0 is 0, which passed a test against PMD_SIZE). */
	KUNIT_ASSERT_NE(test, ctx.base, 0);
	ctx.base = ALIGN(ctx.base, PMD_SIZE);
	ctx.mm = current->mm;
	enable_only(test, order);
	atomic_set(&ctx.round, 0);
	atomic_set(&ctx.done, 0);
	atomic_set(&ctx.errors, 0);
	free0 = free_pages_now();
	anon_base = mm_rs_anon_pages(ctx.mm);

	for (i = 0; i < RACE_THREADS; i++) {
		workers[i].ctx = &ctx;
		workers[i].seed = 0x72616365 + i + (order << 8);
		init_completion(&workers[i].exited);
		workers[i].task = kthread_run(race_worker_fn, &workers[i], "mm_rs_race/%d", i);
		/* No assertion until the workers are stopped: they use this stack. */
		if (IS_ERR(workers[i].task)) {
			KUNIT_FAIL(test, "worker %d: %pe", i, workers[i].task);
			goto stop;
		}
		started++;
	}

	for (round = 1; round <= RACE_ROUNDS; round++) {
		atomic_set(&ctx.done, 0);
		atomic_set(&ctx.faults, 0);
		if (zeroed)
			mm_rs_probe_hits(zeroed);
		atomic_set_release(&ctx.round, round);
		/*
		 * Asleep, not spinning: the workers have every CPU, and two or
		 * more of them fault at once (with this thread spinning on a
		 * two-CPU machine, they ran nearly one at a time: 1 to 2 faults
		 * lost in 150 rounds at order 0, none at 64K).
		 */
		if (!wait_var_event_timeout(&ctx.done, atomic_read(&ctx.done) >= RACE_THREADS,
					    60 * HZ)) {
			KUNIT_FAIL(test, "round %d: workers stuck", round);
			goto stop;
		}
		smp_rmb();	/* the workers' faults, added before done */
		faults = atomic_read(&ctx.faults);
		if (zeroed)
			allocs = mm_rs_probe_hits(zeroed);
		if (!check_race_range(test, &ctx, ptes, anon_base, &folios, &large))
			goto stop;
		/*
		 * Each folio mapped by a fault of its own: a fault that mapped
		 * nothing lost a race, to a thread that mapped its address first.
		 * A large folio allocated (and zeroed) and not mapped lost it
		 * under the PTE lock: the install's refusal of a changed block.
		 */
		if (faults < folios || (order && allocs < large)) {
			KUNIT_FAIL(test, "round %d: %d faults, %d allocs, %d folios (%d large)",
				   round, faults, allocs, folios, large);
			goto stop;
		}
		unmapped_faults += faults - folios;
		unmapped_large += order ? allocs - large : 0;
		if (do_madvise(ctx.mm, ctx.base, len, MADV_DONTNEED)) {
			KUNIT_FAIL(test, "round %d: MADV_DONTNEED failed", round);
			goto stop;
		}
	}
stop:
	WRITE_ONCE(ctx.stop, true);
	for (i = 0; i < started; i++)
		wait_for_completion(&workers[i].exited);
	KUNIT_ASSERT_EQ(test, started, RACE_THREADS);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx.errors), 0);
	KUNIT_EXPECT_EQ(test, round, RACE_ROUNDS + 1);
	/* The threads raced: some faults lost, a large folio's under the lock too. */
	kunit_info(test, "%d rounds: %ld faults mapped nothing, %ld order-%d folios not mapped",
		   round - 1, unmapped_faults, unmapped_large, order);
	KUNIT_EXPECT_GT_MSG(test, unmapped_faults, 0, "no fault lost a race");
	if (order)
		KUNIT_EXPECT_GT_MSG(test, unmapped_large, 0, "no install lost a race");

	KUNIT_ASSERT_EQ(test, do_madvise(ctx.mm, ctx.base, len, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(ctx.mm), anon_base);
	free1 = free_pages_now();
	/* Slack for the page tables and per-CPU caches the rounds left behind. */
	KUNIT_EXPECT_LE_MSG(test, free0, free1 + 256,
			    "free pages %lu before, %lu after %d rounds",
			    free0, free1, RACE_ROUNDS);
}

static void race_same_blocks(struct kunit *test)
{
	int rust, order;

	for (rust = 1; rust >= 0; rust--) {
		mm_rs_paths_all(rust);
		for (order = 0; order <= 4; order += 4) {
			kunit_info(test, "%s path, order %d", rust ? "Rust" : "C", order);
			race_order(test, order);
		}
	}
}

/*
 * Behaviours of the install that the differential state tests do not reach:
 * each case runs real faults on the C path and on the Rust path
 * (handle_mm_fault() under the mmap lock, so the fault's own result is seen)
 * and requires the same, stated outcome of both.
 */

/* One fault at @addr of the test mm: what handle_mm_fault() returned. */
static vm_fault_t fault_at(struct mm_struct *mm, unsigned long addr, bool write)
{
	struct vm_area_struct *vma;
	vm_fault_t ret = VM_FAULT_SIGSEGV;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma)
		ret = handle_mm_fault(vma, addr, write ? FAULT_FLAG_WRITE : 0, NULL);
	mmap_read_unlock(mm);
	return ret;
}

/* Sets (@set) or clears @flags on the VMA of @addr. */
static void vma_flags_at(struct kunit *test, unsigned long addr, vm_flags_t flags, bool set)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma) {
		if (set)
			vm_flags_set(vma, flags);
		else
			vm_flags_clear(vma, flags);
	}
	mmap_write_unlock(mm);
	KUNIT_ASSERT_NOT_NULL(test, vma);
}

/*
 * A fresh address whose PTE table exists and whose VMA has an anon_vma: a
 * page elsewhere in the same table is written first (at order 0).
 */
static unsigned long fresh_addr_with_table(struct kunit *test)
{
	unsigned long addr = fresh_addr(test);

	enable_only(test, 0);
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)(addr + 64 * PAGE_SIZE)), 0);
	return addr;
}

/* Writes @pte at @addr of the test mm, under the PTE lock. */
static void set_pte_of(struct kunit *test, unsigned long addr, pte_t pte)
{
	struct mm_struct *mm = current->mm;
	spinlock_t *ptl;	/* the PTE table's lock */
	pte_t *ptep;

	mmap_read_lock(mm);
	ptep = pte_offset_map_lock(mm, pmd_of(mm, addr), addr, &ptl);
	if (ptep) {
		set_pte_at(mm, addr, ptep, pte);
		pte_unmap_unlock(ptep, ptl);
	}
	mmap_read_unlock(mm);
	KUNIT_ASSERT_NOT_NULL(test, ptep);
}

/*
 * A fault over a uffd-wp marker in a VMA registered for write protection
 * keeps the protection: the new entry carries uffd-wp (and so is read-only),
 * for a folio (write) and for the zero page (read).
 */
static void uffd_wp_marker_kept(struct kunit *test)
{
	int rust;

	if (!IS_ENABLED(CONFIG_PTE_MARKER_UFFD_WP) || !VM_UFFD_WP) {
		KUNIT_FAIL(test, "the kunitconfig must enable PTE_MARKER_UFFD_WP");
		return;
	}
	for (rust = 0; rust <= 1; rust++) {
		unsigned long addr = fresh_addr_with_table(test);
		unsigned long raddr = addr + PAGE_SIZE;
		struct mm_struct *mm = current->mm;
		long anon0;
		pte_t pte;

		mm_rs_paths_all(rust);
		vma_flags_at(test, addr, VM_UFFD_WP, true);
		set_pte_of(test, addr, make_pte_marker(PTE_MARKER_UFFD_WP));
		set_pte_of(test, raddr, make_pte_marker(PTE_MARKER_UFFD_WP));
		anon0 = mm_rs_anon_pages(mm);

		KUNIT_EXPECT_EQ_MSG(test, fault_at(mm, addr, true), 0, "rust %d", rust);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, addr, &pte, 1));
		KUNIT_EXPECT_TRUE_MSG(test, pte_present(pte), "rust %d", rust);
		KUNIT_EXPECT_TRUE_MSG(test, pte_uffd_wp(pte), "rust %d: folio lost uffd-wp", rust);
		KUNIT_EXPECT_FALSE(test, pte_write(pte));
		KUNIT_EXPECT_FALSE(test, is_zero_pfn(pte_pfn(pte)));
		KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), anon0 + 1);

		KUNIT_EXPECT_EQ_MSG(test, fault_at(mm, raddr, false), 0, "rust %d", rust);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, raddr, &pte, 1));
		KUNIT_EXPECT_TRUE(test, pte_present(pte));
		KUNIT_EXPECT_TRUE(test, is_zero_pfn(pte_pfn(pte)));
		KUNIT_EXPECT_TRUE_MSG(test, pte_uffd_wp(pte), "rust %d: zero page lost uffd-wp",
				      rust);
		KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), anon0 + 1);

		vma_flags_at(test, addr, VM_UFFD_WP, false);
	}
}

/* How a fault is refused: the VMA flags set for it, or MMF_UNSTABLE. */
enum refusal { REFUSE_UFFD_MISSING, REFUSE_UNSTABLE };

/*
 * One read and one write fault on each path, refused as @how says: each must
 * return VM_FAULT_SIGBUS and map nothing, with MM_ANONPAGES and
 * anon_fault_alloc unmoved.
 */
static void faults_refused(struct kunit *test, enum refusal how)
{
	int rust, write;

	for (rust = 0; rust <= 1; rust++) {
		for (write = 0; write <= 1; write++) {
			unsigned long addr = fresh_addr_with_table(test);
			struct mm_struct *mm = current->mm;
			unsigned long alloc0 = mm_rs_sum_mthp(0, MTHP_STAT_ANON_FAULT_ALLOC);
			long anon0 = mm_rs_anon_pages(mm);
			vm_fault_t ret;
			pte_t pte;

			mm_rs_paths_all(rust);
			if (how == REFUSE_UFFD_MISSING)
				vma_flags_at(test, addr, VM_UFFD_MISSING, true);
			else
				set_bit(MMF_UNSTABLE, &mm->flags);
			ret = fault_at(mm, addr, write);
			if (how == REFUSE_UFFD_MISSING)
				vma_flags_at(test, addr, VM_UFFD_MISSING, false);
			else
				clear_bit(MMF_UNSTABLE, &mm->flags);

			KUNIT_EXPECT_EQ_MSG(test, ret, VM_FAULT_SIGBUS, "rust %d write %d",
					    rust, write);
			KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, addr, &pte, 1));
			KUNIT_EXPECT_TRUE_MSG(test, pte_none(pte), "rust %d write %d: mapped",
					      rust, write);
			KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), anon0);
			KUNIT_EXPECT_EQ(test, mm_rs_sum_mthp(0, MTHP_STAT_ANON_FAULT_ALLOC),
					alloc0);
		}
	}
}

/*
 * A VMA registered with userfaultfd for missing pages: the fault is handed
 * to userfaultfd, with nothing mapped and no counter moved. The test VMA has
 * no userfaultfd context, so handle_userfault() answers VM_FAULT_SIGBUS; a
 * path that maps instead returns 0.
 */
static void uffd_missing_handed_over(struct kunit *test)
{
	faults_refused(test, REFUSE_UFFD_MISSING);
}

/*
 * An mm the OOM reaper has marked unstable (MMF_UNSTABLE): the fault gets
 * VM_FAULT_SIGBUS and maps nothing, as check_stable_address_space() decides.
 */
static void unstable_mm_sigbus(struct kunit *test)
{
	faults_refused(test, REFUSE_UNSTABLE);
}

/*
 * Calls the Rust install directly with a new, charged, zeroed folio of
 * @order for a write fault at @addr, keeping a reference of our own to see
 * the folio released; returns what the install returned and the folio's
 * reference and map counts after it.
 */
static vm_fault_t install_direct(struct kunit *test, unsigned long addr, int order,
				 int *refs, int *maps)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct folio *folio = NULL;
	vm_fault_t ret;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma)
		folio = vma_alloc_folio(GFP_HIGHUSER_MOVABLE | __GFP_ZERO, order, vma,
					ALIGN_DOWN(addr, PAGE_SIZE << order), true);
	if (!folio || mem_cgroup_charge(folio, mm, GFP_KERNEL)) {
		mmap_read_unlock(mm);
		if (folio)
			folio_put(folio);
		KUNIT_FAIL(test, "no order-%d folio to install", order);
		return VM_FAULT_OOM;
	}
	folio_get(folio);
	{
		struct vm_fault vmf = test_vmf(vma, addr, FAULT_FLAG_WRITE);

		ret = mm_rs_anon_folio_install(&vmf, folio);
	}
	mmap_read_unlock(mm);
	*refs = folio_ref_count(folio);
	*maps = folio_mapcount(folio);
	folio_put(folio);
	return ret;
}

/*
 * The install refuses a VMA without an anon_vma (C's rmap would BUG): the
 * fault gets VM_FAULT_SIGBUS, nothing is mapped, the folio is released.
 */
static void install_refuses_no_anon_vma(struct kunit *test)
{
	unsigned long addr = fresh_addr_with_table(test);
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct anon_vma *saved;
	int refs, maps;
	vm_fault_t ret;
	pte_t pte;

	/* Hide the anon_vma the first write set up; no other thread uses this mm. */
	mmap_write_lock(mm);
	vma = vma_lookup(mm, addr);
	MM_RS_ASSERT_MMAP_WRITE(test, vma, mm);
	saved = vma->anon_vma;
	vma->anon_vma = NULL;
	mmap_write_unlock(mm);

	ret = install_direct(test, addr, 0, &refs, &maps);

	mmap_write_lock(mm);
	vma->anon_vma = saved;
	mmap_write_unlock(mm);

	KUNIT_EXPECT_EQ(test, ret, VM_FAULT_SIGBUS);
	KUNIT_EXPECT_EQ(test, refs, 1);
	KUNIT_EXPECT_EQ(test, maps, 0);
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, addr, &pte, 1));
	KUNIT_EXPECT_TRUE(test, pte_none(pte));
}

/*
 * The install refuses a folio whose aligned block does not lie in the VMA:
 * an order-4 folio in an 8-page VMA maps nothing, inside the VMA or out, and
 * the fault ends in VM_FAULT_SIGBUS (a retry would fault again forever).
 */
static void install_refuses_block_outside_vma(struct kunit *test)
{
	const int order = 4, nr = 1 << order;
	unsigned long base = mm_rs_map_anon(test, 8 * PAGE_SIZE);
	struct mm_struct *mm = current->mm;
	unsigned long addr = base + 4 * PAGE_SIZE;
	unsigned long start = ALIGN_DOWN(addr, PAGE_SIZE << order);
	pte_t ptes[1 << 4], before[1 << 4];
	int refs, maps, i;
	vm_fault_t ret;

	KUNIT_ASSERT_NE(test, base, 0);
	/*
	 * The table and the anon_vma, from one page at order 0, zapped again
	 * (a zap of part of a table keeps it): every entry of the block is
	 * then none, so only the VMA check can refuse it.
	 */
	enable_only(test, 0);
	KUNIT_ASSERT_EQ(test, put_user((char)1, (char __user *)base), 0);
	mmap_read_lock(mm);
	zap_page_range_single(vma_lookup(mm, base), base, PAGE_SIZE, NULL);
	mmap_read_unlock(mm);
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, before, nr));
	for (i = 0; i < nr; i++)
		KUNIT_ASSERT_TRUE(test, pte_none(before[i]));

	ret = install_direct(test, addr, order, &refs, &maps);
	KUNIT_EXPECT_EQ(test, ret, VM_FAULT_SIGBUS);
	KUNIT_EXPECT_EQ(test, refs, 1);
	KUNIT_EXPECT_EQ(test, maps, 0);
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, ptes, nr));
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_TRUE_MSG(test, pte_same(ptes[i], before[i]), "entry %d changed", i);
}

/* Calls the Rust zero-page install directly for a fault at @addr. */
static vm_fault_t zero_page_direct(struct kunit *test, unsigned long addr, unsigned int flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	vm_fault_t ret = VM_FAULT_SIGSEGV;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (vma) {
		struct vm_fault vmf = test_vmf(vma, addr, flags);

		ret = mm_rs_anon_zero_page_install(&vmf);
	}
	mmap_read_unlock(mm);
	KUNIT_EXPECT_NOT_NULL(test, vma);
	return ret;
}

/*
 * The zero page only for a read fault: a write fault is refused
 * (VM_FAULT_SIGBUS) and maps nothing. (Only private anonymous VMAs get here:
 * do_anonymous_page() refuses a VM_SHARED one before, which a shared mapping
 * of the zero page would need, as a later write would go to the zero page
 * through wp_page_reuse().)
 */
static void zero_page_refusals(struct kunit *test)
{
	unsigned long addr = fresh_addr_with_table(test);
	struct mm_struct *mm = current->mm;
	pte_t pte;

	KUNIT_EXPECT_EQ(test, zero_page_direct(test, addr, FAULT_FLAG_WRITE), VM_FAULT_SIGBUS);
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, addr, &pte, 1));
	KUNIT_EXPECT_TRUE(test, pte_none(pte));
}

/*
 * A PMD-sized folio is not PTE-mapped: its rmap accounting (entire mapcount)
 * is that of a PMD mapping. The install maps nothing, releases it and ends
 * the fault in VM_FAULT_SIGBUS.
 */
static void install_refuses_pmd_folio(struct kunit *test)
{
	unsigned long addr = fresh_addr_with_table(test);
	struct mm_struct *mm = current->mm;
	unsigned long start = ALIGN_DOWN(addr, PMD_SIZE);
	int refs, maps;
	pte_t pte;

	/* Empty the table again (a partial zap keeps it): only the order can refuse. */
	mmap_read_lock(mm);
	zap_page_range_single(vma_lookup(mm, addr), addr + 64 * PAGE_SIZE, PAGE_SIZE, NULL);
	mmap_read_unlock(mm);

	KUNIT_EXPECT_EQ(test, install_direct(test, addr, PMD_ORDER, &refs, &maps),
			VM_FAULT_SIGBUS);
	KUNIT_EXPECT_EQ(test, refs, 1);
	KUNIT_EXPECT_EQ(test, maps, 0);
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, &pte, 1));
	KUNIT_EXPECT_TRUE(test, pte_none(pte));
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, addr, &pte, 1));
	KUNIT_EXPECT_TRUE(test, pte_none(pte));
}

/*
 * Order 1 is no anonymous folio order (THP_ORDERS_ALL_ANON starts at 2: a
 * large anonymous folio needs its deferred-split list): the install maps
 * nothing, releases it and ends the fault in VM_FAULT_SIGBUS.
 */
static void install_refuses_order1(struct kunit *test)
{
	unsigned long addr = fresh_addr_with_table(test);
	struct mm_struct *mm = current->mm;
	unsigned long start = ALIGN_DOWN(addr, 2 * PAGE_SIZE);
	int refs, maps;
	pte_t ptes[2];

	/* Empty the table again (a partial zap keeps it): only the order can refuse. */
	mmap_read_lock(mm);
	zap_page_range_single(vma_lookup(mm, addr), start, 2 * PAGE_SIZE, NULL);
	mmap_read_unlock(mm);

	KUNIT_EXPECT_EQ(test, install_direct(test, addr, 1, &refs, &maps), VM_FAULT_SIGBUS);
	KUNIT_EXPECT_EQ(test, refs, 1);
	KUNIT_EXPECT_EQ(test, maps, 0);
	KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, start, ptes, 2));
	KUNIT_EXPECT_TRUE(test, pte_none(ptes[0]));
	KUNIT_EXPECT_TRUE(test, pte_none(ptes[1]));
}

/*
 * A forced write (ptrace, /proc/PID/mem: FOLL_FORCE) into a private
 * read-only mapping faults a new anonymous page in without write permission:
 * the entry the install builds comes from the VMA, not the fault. The C and
 * the Rust path leave the same entry, never writable, and the data.
 */
static void forced_write_readonly_vma(struct kunit *test)
{
	unsigned long prot[2] = { 0, 0 };
	int rust;

	for (rust = 0; rust <= 1; rust++) {
		unsigned long addr = kunit_vm_mmap(test, NULL, 0, 16 * PAGE_SIZE, PROT_READ,
						   MAP_PRIVATE | MAP_ANONYMOUS, 0);
		struct mm_struct *mm = current->mm;
		char v = 0x5a, got = 0;
		pte_t pte;

		KUNIT_ASSERT_NE(test, addr, 0);
		addr += 5 * PAGE_SIZE;
		mm_rs_paths_all(rust);
		enable_only(test, 0);
		/* As /proc/PID/mem writes (a kthread has no access_process_vm()). */
		KUNIT_ASSERT_EQ(test, access_remote_vm(mm, addr, &v, 1,
						       FOLL_FORCE | FOLL_WRITE), 1);
		KUNIT_ASSERT_EQ(test, get_user(got, (char __user *)addr), 0);
		KUNIT_EXPECT_EQ(test, got, v);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(mm, addr, &pte, 1));
		KUNIT_EXPECT_TRUE(test, pte_present(pte));
		KUNIT_EXPECT_FALSE(test, pte_write(pte));
		KUNIT_EXPECT_FALSE(test, is_zero_pfn(pte_pfn(pte)));
		prot[rust] = pgprot_val(pte_pgprot(pte));
	}
	KUNIT_EXPECT_EQ(test, prot[1], prot[0]);
}

/*
 * Seeded random differential of the whole fault (mm_rs_kunit.seed changes
 * the cases): each case is built twice, in two fresh mappings, and faulted
 * once on 6.12's C path and once on a Rust path. The inputs are the ones the
 * order decision and the install read: the VMA's ends inside the PMD range,
 * a PTE table or none, pages mapped before (with data, the zero page, a
 * uffd-wp marker), the mTHP knobs and the global mode, VM_HUGEPAGE,
 * VM_NOHUGEPAGE, MMF_DISABLE_THP, userfaultfd (missing, wp) and an unstable
 * mm; then INSTALL_FAULTS read or write faults, some at the VMA's first or
 * last page, some next to the last fault. Both must leave every entry of the
 * PMD range alike (kind, bits, folio order and index, reference and map
 * counts, data), with the same returns, MM_ANONPAGES and mTHP statistics.
 */
#define INSTALL_CASES	64
#define INSTALL_CASES_MAX	256
#define INSTALL_FAULTS	4
#define INSTALL_PRE	6

enum install_pre { PRE_WRITE, PRE_READ, PRE_MARKER };

struct install_case {
	unsigned int head, tail;	/* pages unmapped at each end of the PMD range */
	bool table;			/* a PTE table made before anything is mapped */
	unsigned int nr_pre;
	u8 pre[INSTALL_PRE];		/* enum install_pre */
	unsigned int pre_idx[INSTALL_PRE];
	struct thp_knobs knobs;
	bool hugepage, nohugepage, disable_thp, uffd_wp, uffd_missing, unstable;
	unsigned int idx[INSTALL_FAULTS];
	bool write[INSTALL_FAULTS];
	struct mm_rs_paths paths;	/* the Rust run's */
};

/* What a run left behind, compared byte for byte. */
struct install_result {
	vm_fault_t ret[INSTALL_FAULTS];
	long anon_pages;
	unsigned long stats[PMD_ORDER][3];	/* alloc, fallback, fallback_charge */
	bool table;
	u32 entry[PTRS_PER_PTE];		/* install_entry() */
	u32 refs[PTRS_PER_PTE], maps[PTRS_PER_PTE];
};

/* The kinds of install_entry(), in its bits 0-2. */
enum { E_NONE, E_MARKER, E_SWAP, E_ZERO, E_FOLIO };

static const enum mthp_stat_item install_stat[3] = {
	MTHP_STAT_ANON_FAULT_ALLOC, MTHP_STAT_ANON_FAULT_FALLBACK,
	MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE,
};

static bool uffd_wp_markers(void)
{
	return IS_ENABLED(CONFIG_PTE_MARKER_UFFD_WP) && VM_UFFD_WP != VM_NONE;
}

static unsigned int rnd(struct rnd_state *rs, unsigned int n)
{
	return prandom_u32_state(rs) % n;
}

/* A page of the VMA's part of the PMD range, near @near when it is not -1. */
static unsigned int install_idx(struct rnd_state *rs, const struct install_case *c, int near)
{
	unsigned int first = c->head, last = PTRS_PER_PTE - 1 - c->tail;
	int i;

	switch (rnd(rs, 8)) {
	case 0:
		return first;
	case 1:
		return last;
	default:
		if (near < 0 || rnd(rs, 2))
			return first + rnd(rs, last - first + 1);
		i = near + (int)rnd(rs, 33) - 16;
		return clamp_t(int, i, first, last);
	}
}

static void install_random_case(struct rnd_state *rs, const struct thp_knobs *saved,
				struct install_case *c)
{
	static const struct mm_rs_paths rust_paths[] = {
		{ .anon_order = true, .anon_fault = false },
		{ .anon_order = false, .anon_fault = true },
		{ .anon_order = true, .anon_fault = true },
	};
	const unsigned long orders = GENMASK(PMD_ORDER - 1, FIRST_ORDER);
	unsigned int i, j;
	int near;

	memset(c, 0, sizeof(*c));
	if (!rnd(rs, 3))
		c->head = 1 + rnd(rs, PTRS_PER_PTE / 2 - 1);
	if (!rnd(rs, 3))
		c->tail = 1 + rnd(rs, PTRS_PER_PTE / 2 - 1);
	c->table = !rnd(rs, 3);
	/* sparse knobs: a block that does not fit leaves smaller enabled orders to try */
	c->knobs.always = prandom_u32_state(rs) & prandom_u32_state(rs) & orders;
	c->knobs.madvise = prandom_u32_state(rs) & prandom_u32_state(rs) & orders;
	c->knobs.inherit = prandom_u32_state(rs) & prandom_u32_state(rs) & orders;
	c->knobs.tpf = mm_rs_tpf_with_global(saved->tpf, rnd(rs, 3));
	c->hugepage = rnd(rs, 2);
	c->nohugepage = !rnd(rs, 8);
	c->disable_thp = !rnd(rs, 8);
	c->uffd_missing = !rnd(rs, 16);
	c->unstable = !rnd(rs, 16);
	/* a uffd-wp VMA (markers only there) takes order 0: one case in six */
	c->uffd_wp = uffd_wp_markers() && !rnd(rs, 6);
	for (i = 0; i < INSTALL_FAULTS; i++) {
		c->idx[i] = install_idx(rs, c, i && rnd(rs, 2) ? c->idx[i - 1] : -1);
		c->write[i] = rnd(rs, 4);
	}
	c->nr_pre = rnd(rs, INSTALL_PRE + 1);
	for (i = 0; i < c->nr_pre; i++) {
		c->pre[i] = rnd(rs, c->uffd_wp ? 3 : 2);
		/* most next to a fault, so that they change its block */
		near = rnd(rs, 4) ? c->idx[rnd(rs, INSTALL_FAULTS)] : -1;
		c->pre_idx[i] = install_idx(rs, c, near);
		/*
		 * A write over a marker put before it would be the write fault of
		 * a uffd-wp range, which the test VMA, armed with no userfaultfd
		 * context, refuses (SIGBUS): read there instead.
		 */
		for (j = 0; j < i && c->pre[i] == PRE_WRITE; j++)
			if (c->pre[j] == PRE_MARKER && c->pre_idx[j] == c->pre_idx[i])
				c->pre[i] = PRE_READ;
	}
	c->paths = rust_paths[rnd(rs, ARRAY_SIZE(rust_paths))];
}

/* Makes the PTE table of @addr in the test mm. */
static void install_table_at(struct kunit *test, unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd = NULL;
	bool made = false;

	mmap_read_lock(mm);
	p4d = p4d_alloc(mm, pgd_offset(mm, addr), addr);
	pud = p4d ? pud_alloc(mm, p4d, addr) : NULL;
	if (pud)
		pmd = pmd_alloc(mm, pud, addr);
	if (pmd)
		made = !pte_alloc(mm, pmd);
	mmap_read_unlock(mm);
	KUNIT_ASSERT_TRUE(test, made);
}

/* One entry of the PMD range as install_result keeps it; @ref and @map of its folio. */
static u32 install_entry(pte_t pte, u32 *ref, u32 *map)
{
	struct folio *folio;
	struct page *page;
	u32 e, idx;
	u8 *p;

	if (pte_none(pte))
		return E_NONE;
	if (!pte_present(pte))
		return is_pte_marker(pte) ? E_MARKER | !!pte_marker_uffd_wp(pte) << 6 : E_SWAP;
	/* the pte_*() tests return a flag's value on some architectures: made bools */
	e = !!pte_write(pte) << 3 | !!pte_dirty(pte) << 4 | !!pte_young(pte) << 5 |
	    !!pte_uffd_wp(pte) << 6 | !!mm_rs_pte_cont(pte) << 7 | !!pte_special(pte) << 8;
	if (is_zero_pfn(pte_pfn(pte)))
		return e | E_ZERO;
	page = pfn_to_page(pte_pfn(pte));
	folio = page_folio(page);
	idx = folio_page_idx(folio, page);
	p = kmap_local_page(page);
	e |= E_FOLIO | folio_order(folio) << 9 | idx << 13 | (u32)p[0] << 22 |
	     !!memchr_inv(p + 1, 0, PAGE_SIZE - 1) << 30;
	kunmap_local(p);
	*ref = folio_ref_count(folio);
	*map = folio_mapcount(folio);
	return e;
}

/* Builds @c in a fresh mapping and faults it on the C path or on @c's Rust path. */
static void install_run(struct kunit *test, const struct install_case *c, bool rust,
			pte_t *ptes, struct install_result *r)
{
	unsigned long base = mm_rs_map_anon(test, 4 * PMD_SIZE), start, first;
	struct mm_struct *mm;
	long anon0;
	int i, s;

	memset(r, 0, sizeof(*r));
	KUNIT_ASSERT_NE(test, base, 0);
	mm = current->mm;
	start = ALIGN(base, PMD_SIZE) + PMD_SIZE;
	first = start + c->head * PAGE_SIZE;
	if (c->head)
		KUNIT_ASSERT_EQ(test, vm_munmap(start, c->head * PAGE_SIZE), 0);
	if (c->tail)
		KUNIT_ASSERT_EQ(test, vm_munmap(start + PMD_SIZE - c->tail * PAGE_SIZE,
						c->tail * PAGE_SIZE), 0);

	/* what was mapped before: on C, at order 0, the same for both runs */
	mm_rs_paths_all(false);
	enable_only(test, 0);
	if (c->table)
		install_table_at(test, first);
	if (c->uffd_wp)
		vma_flags_at(test, first, VM_UFFD_WP, true);
	for (i = 0; i < c->nr_pre; i++) {
		unsigned long addr = start + c->pre_idx[i] * PAGE_SIZE;
		char v;

		switch (c->pre[i]) {
		case PRE_WRITE:
			KUNIT_ASSERT_EQ(test, put_user((char)(0x40 + i), (char __user *)addr), 0);
			break;
		case PRE_READ:
			KUNIT_ASSERT_EQ(test, get_user(v, (char __user *)addr), 0);
			break;
		case PRE_MARKER:
			install_table_at(test, addr);
			if (!mm_rs_read_ptes(mm, addr, ptes, 1) || pte_none(ptes[0]))
				set_pte_of(test, addr, make_pte_marker(PTE_MARKER_UFFD_WP));
			break;
		}
	}

	mm_rs_knobs_set(&c->knobs);
	if (c->hugepage)
		vma_flags_at(test, first, VM_HUGEPAGE, true);
	if (c->nohugepage)
		vma_flags_at(test, first, VM_NOHUGEPAGE, true);
	if (c->uffd_missing)
		vma_flags_at(test, first, VM_UFFD_MISSING, true);
	if (c->disable_thp)
		set_bit(MMF_DISABLE_THP, &mm->flags);
	if (c->unstable)
		set_bit(MMF_UNSTABLE, &mm->flags);
	if (rust)
		mm_rs_paths_set(&c->paths);
	anon0 = mm_rs_anon_pages(mm);
	for (i = 0; i < PMD_ORDER; i++)
		for (s = 0; s < ARRAY_SIZE(install_stat); s++)
			r->stats[i][s] = mm_rs_sum_mthp(i, install_stat[s]);

	for (i = 0; i < INSTALL_FAULTS; i++)
		r->ret[i] = fault_at(mm, start + c->idx[i] * PAGE_SIZE, c->write[i]);

	r->anon_pages = mm_rs_anon_pages(mm) - anon0;
	for (i = 0; i < PMD_ORDER; i++)
		for (s = 0; s < ARRAY_SIZE(install_stat); s++)
			r->stats[i][s] = mm_rs_sum_mthp(i, install_stat[s]) - r->stats[i][s];
	mm_rs_paths_all(false);
	clear_bit(MMF_UNSTABLE, &mm->flags);
	clear_bit(MMF_DISABLE_THP, &mm->flags);
	vma_flags_at(test, first, VM_HUGEPAGE | VM_NOHUGEPAGE | VM_UFFD_MISSING | VM_UFFD_WP,
		     false);

	/* the LRU batches hold references */
	lru_add_drain_all();
	r->table = mm_rs_read_ptes(mm, start, ptes, PTRS_PER_PTE);
	for (i = 0; r->table && i < PTRS_PER_PTE; i++)
		r->entry[i] = install_entry(ptes[i], &r->refs[i], &r->maps[i]);
	KUNIT_EXPECT_EQ(test, vm_munmap(base, 4 * PMD_SIZE), 0);
}

/* Says where the Rust run @rr of case @n first differs from the C run @rc. */
static void install_differs(struct kunit *test, unsigned int n, const struct install_case *c,
			    const struct install_result *rc, const struct install_result *rr)
{
	int i, s;

	kunit_info(test, "case %u: rust paths order %d fault %d, head %u tail %u table %d, %u pages before",
		   n, c->paths.anon_order, c->paths.anon_fault, c->head, c->tail, c->table,
		   c->nr_pre);
	for (i = 0; i < INSTALL_FAULTS; i++)
		KUNIT_EXPECT_EQ_MSG(test, rr->ret[i], rc->ret[i], "case %u fault %d at page %u %s",
				    n, i, c->idx[i], c->write[i] ? "write" : "read");
	KUNIT_EXPECT_EQ_MSG(test, rr->anon_pages, rc->anon_pages, "case %u", n);
	for (i = 0; i < PMD_ORDER; i++)
		for (s = 0; s < ARRAY_SIZE(install_stat); s++)
			KUNIT_EXPECT_EQ_MSG(test, rr->stats[i][s], rc->stats[i][s],
					    "case %u: order %d statistic %d", n, i, s);
	KUNIT_EXPECT_EQ_MSG(test, rr->table, rc->table, "case %u", n);
	for (i = 0; i < PTRS_PER_PTE; i++) {
		if (rr->entry[i] == rc->entry[i] && rr->refs[i] == rc->refs[i] &&
		    rr->maps[i] == rc->maps[i])
			continue;
		KUNIT_FAIL(test, "case %u: page %d: entry %#x refs %u maps %u, C's %#x %u %u",
			   n, i, rr->entry[i], rr->refs[i], rr->maps[i], rc->entry[i],
			   rc->refs[i], rc->maps[i]);
		break;
	}
}

/*
 * The values of the input table (docs/testing.rst) a sweep must build, a bit
 * each: a seed whose INSTALL_CASES cases miss one draws more, up to
 * INSTALL_CASES_MAX, so that no seed passes without having built them all.
 */
enum {
	COV_HEAD, COV_TAIL,			/* the VMA ends inside the PMD range */
	COV_TABLE, COV_NO_TABLE,		/* a PTE table before the faults, none */
	COV_PRE_DATA, COV_PRE_ZERO, COV_PRE_MARKER,	/* entries before */
	COV_PATH_ORDER, COV_PATH_FAULT, COV_PATH_BOTH,	/* the Rust run's path */
	COV_READ, COV_WRITE,
	COV_UFFD_MISSING, COV_UNSTABLE,		/* a fault refused by each */
	COV_LARGE,				/* a large folio installed */
	COV_NR
};

static unsigned long install_cov_wanted(void)
{
	unsigned long want = GENMASK(COV_NR - 1, 0);

	return uffd_wp_markers() ? want : want & ~BIT(COV_PRE_MARKER);
}

/* The values case @c, with the C run's result @r, built. */
static unsigned long install_cov(const struct install_case *c, const struct install_result *r)
{
	unsigned long cov = 0;
	unsigned int i;

	cov |= (c->head ? BIT(COV_HEAD) : 0) | (c->tail ? BIT(COV_TAIL) : 0);
	cov |= c->table ? BIT(COV_TABLE) : c->nr_pre ? 0 : BIT(COV_NO_TABLE);
	for (i = 0; i < c->nr_pre; i++)
		cov |= BIT(c->pre[i] == PRE_WRITE ? COV_PRE_DATA :
			   c->pre[i] == PRE_READ ? COV_PRE_ZERO : COV_PRE_MARKER);
	cov |= BIT(!c->paths.anon_fault ? COV_PATH_ORDER :
		   !c->paths.anon_order ? COV_PATH_FAULT : COV_PATH_BOTH);
	for (i = 0; i < INSTALL_FAULTS; i++)
		cov |= BIT(c->write[i] ? COV_WRITE : COV_READ);
	for (i = 0; i < INSTALL_FAULTS; i++)
		if (r->ret[i])
			cov |= (c->uffd_missing ? BIT(COV_UFFD_MISSING) : 0) |
			       (c->unstable ? BIT(COV_UNSTABLE) : 0);
	for (i = 0; i < PTRS_PER_PTE; i++)
		if ((r->entry[i] & 7) == E_FOLIO && (r->entry[i] >> 9 & 15))
			cov |= BIT(COV_LARGE);
	return cov;
}

/* The first INSTALL_REPLAY cases run again, on C, to see the sweep is its seed's. */
#define INSTALL_REPLAY	4

/* A digest of C's results for the first @n cases from @seed. */
static u32 install_replay(struct kunit *test, u64 seed, unsigned int n,
			  struct install_case *c, struct install_result *r, pte_t *ptes)
{
	struct anon_fault_ctx *ctx = test->priv;
	struct rnd_state rs;
	u32 digest = 0;

	prandom_seed_state(&rs, seed);
	while (n--) {
		install_random_case(&rs, &ctx->saved, c);
		install_run(test, c, false, ptes, r);
		digest = jhash(r, sizeof(*r), digest);
	}
	return digest;
}

static void install_random_same_as_c(struct kunit *test)
{
	struct anon_fault_ctx *ctx = test->priv;
	struct install_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct install_result *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);
	struct install_result *rr = kunit_kzalloc(test, sizeof(*rr), GFP_KERNEL);
	pte_t *ptes = kunit_kcalloc(test, PTRS_PER_PTE, sizeof(*ptes), GFP_KERNEL);
	unsigned int n, i, large = 0, refused = 0, markers = 0, rust_hits = 0, fallbacks = 0;
	unsigned int wp_refused = 0;
	unsigned long cov = 0, want = install_cov_wanted();
	u64 seed = mm_rs_kunit_seed(test, 0x696e7374);
	struct entry_probes probes;
	struct rnd_state rs;
	u32 digest = 0;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, rc);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	entry_probes_start(test, &probes);
	prandom_seed_state(&rs, seed);
	for (n = 0; n < INSTALL_CASES || (cov != want && n < INSTALL_CASES_MAX); n++) {
		install_random_case(&rs, &ctx->saved, c);
		install_run(test, c, false, ptes, rc);
		cov |= install_cov(c, rc);
		if (n < INSTALL_REPLAY)
			digest = jhash(rc, sizeof(*rc), digest);
		/* the C run is C's: no Rust entry point ran */
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_probe_hits(probes.order) +
				    mm_rs_probe_hits(probes.fault) +
				    mm_rs_probe_hits(probes.fault_c_order), 0, "case %u", n);
		install_run(test, c, true, ptes, rr);
		rust_hits += mm_rs_probe_hits(probes.order) + mm_rs_probe_hits(probes.fault) +
			     mm_rs_probe_hits(probes.fault_c_order);
		if (memcmp(rr, rc, sizeof(*rr)))
			install_differs(test, n, c, rc, rr);

		/* 6.12's promise, on C's result: a fault that returned 0 left its page mapped */
		for (i = 0; i < INSTALL_FAULTS; i++) {
			u32 e = rc->entry[c->idx[i]];

			/*
			 * Refused: userfaultfd's missing mode, an unstable mm, or
			 * a write to a uffd-wp page (a marker, or the page a read
			 * over one mapped): SIGBUS from handle_userfault(), which
			 * the test VMA gives no context.
			 */
			if (rc->ret[i]) {
				bool wp = c->uffd_wp && c->write[i] && (e >> 6 & 1) &&
					  rc->ret[i] == VM_FAULT_SIGBUS;

				KUNIT_EXPECT_TRUE_MSG(test, c->uffd_missing || c->unstable || wp,
						      "case %u fault %u: %#x, entry %#x", n, i,
						      rc->ret[i], e);
				refused++;
				wp_refused += wp;
				continue;
			}
			KUNIT_EXPECT_TRUE_MSG(test, (e & 7) == E_ZERO || (e & 7) == E_FOLIO,
					      "case %u fault %u: entry %#x", n, i, e);
		}
		for (i = 0; i < PTRS_PER_PTE; i++) {
			large += (rc->entry[i] & 7) == E_FOLIO && (rc->entry[i] >> 9 & 15) &&
				 !(rc->entry[i] >> 13 & 511);
			markers += (rc->entry[i] & 7) == E_MARKER;
		}
		for (i = 0; i < PMD_ORDER; i++)
			fallbacks += rc->stats[i][1];
	}
	KUNIT_EXPECT_GT(test, rust_hits, 0);
	KUNIT_EXPECT_GT(test, large, 0);
	KUNIT_EXPECT_EQ_MSG(test, cov, want, "values never built: %#lx (COV_* bits)", want & ~cov);
	kunit_info(test, "%u cases, %u large folios, %u fallbacks, %u faults refused (%u uffd-wp writes), %u uffd-wp markers left",
		   n, large, fallbacks, refused, wp_refused, markers);
	/* The same seed builds the same cases, and another seed other ones. */
	KUNIT_EXPECT_EQ(test, install_replay(test, seed, INSTALL_REPLAY, c, rc, ptes), digest);
	KUNIT_EXPECT_NE(test, install_replay(test, seed ^ 1, INSTALL_REPLAY, c, rc, ptes), digest);
}

/*
 * mm_rs_register_kprobe() fails a case whose probe was jump-optimized
 * (entry_probes_start() and the rest): the check it makes must see one that
 * was. A probe with no post_handler, alone on its function, is, on a kernel
 * with CONFIG_OPTPROBES, unless ftrace placed it. The function is one that
 * no task but the suites' calls while this runs.
 */
static void kprobes_stay_breakpoints(struct kunit *test)
{
	struct kprobe *kp = kunit_kzalloc(test, sizeof(*kp), GFP_KERNEL);
	bool optimized;

	KUNIT_ASSERT_NOT_NULL(test, kp);
	kp->symbol_name = "mm_rs_do_anonymous_page_c_order";
	KUNIT_ASSERT_EQ(test, mm_rs_kprobe_optimizes(kp, &optimized), 0);
	KUNIT_EXPECT_EQ_MSG(test, optimized, IS_ENABLED(CONFIG_OPTPROBES) && !kprobe_ftrace(kp),
			    "kprobe on %s without a post_handler", kp->symbol_name);
}

static struct kunit_case anon_fault_cases[] = {
	KUNIT_CASE(fault_state_each_order),
	KUNIT_CASE(fallback_stats_real_faults),
	KUNIT_CASE(zero_page_then_write),
	KUNIT_CASE(data_and_neighbours),
	KUNIT_CASE(partial_zap_unfolds),
	KUNIT_CASE(mprotect_keeps_blocks),
	KUNIT_CASE(fork_keeps_blocks),
	KUNIT_CASE(install_race_lost),
	KUNIT_CASE(uffd_wp_marker_kept),
	KUNIT_CASE(uffd_missing_handed_over),
	KUNIT_CASE(unstable_mm_sigbus),
	KUNIT_CASE(install_refuses_no_anon_vma),
	KUNIT_CASE(install_refuses_block_outside_vma),
	KUNIT_CASE(zero_page_refusals),
	KUNIT_CASE(install_refuses_pmd_folio),
	KUNIT_CASE(install_refuses_order1),
	KUNIT_CASE(forced_write_readonly_vma),
	KUNIT_CASE(install_random_same_as_c),
	KUNIT_CASE(kprobes_stay_breakpoints),
	KUNIT_CASE_SLOW(race_same_blocks),
	{}
};

static struct kunit_suite anon_fault_suite = {
	.name = "mm_rs_anon_fault",
	.init = anon_fault_test_init,
	.exit = anon_fault_test_exit,
	.test_cases = anon_fault_cases,
};

kunit_test_suite(anon_fault_suite);

MODULE_DESCRIPTION("KUnit tests for mm-rs anonymous fault install");
MODULE_LICENSE("GPL");
