// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mm-rs's KSM unmerge (mm/mm_rs/ksm/unmerge.rs) and the
 * page-table range walk it runs on (rust/kernel/mm/walk.rs).
 *
 * The walk: what it visits, counted against the page tables, over ranges
 * that cross PMD and PUD boundaries, with holes at every level, empty
 * tables and a PMD THP, stopped and resumed.
 *
 * The unmerge, differential: the same layout built twice in the test mm,
 * unmerged once by 6.12's C loop and once by Rust (MADV_UNMERGEABLE, the
 * switch choosing), must end in the same page tables, contents and counters,
 * and in what 6.12 promises: every KSM page replaced by an exclusive copy,
 * everything else as it was. KSM pages are made by ksmd itself (run through
 * its sysfs files), and as KSM's use_zero_pages makes them (a dirty
 * zero-page entry, as replace_page() writes it).
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/irq_work.h>
#include <linux/khugepaged.h>
#include <linux/kthread.h>
#include <linux/kprobes.h>
#include <linux/ksm.h>
#include <linux/mm_rs.h>
#include <linux/delay.h>
#include <linux/mman.h>
#include <linux/pgtable.h>
#include <linux/prandom.h>
#include <linux/sched/signal.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/uaccess.h>

#include "mm_rs_kunit.h"

/* A layout: four PMD ranges around a PUD boundary. */
#define K_PMDS		4
#define K_PAGES		(K_PMDS * PTRS_PER_PTE)
#define K_LEN		(K_PMDS * PMD_SIZE)

/* What an entry holds, as the differential compares it. */
enum k_kind {
	K_NONE,
	K_ZERO,		/* the zero page, clean: a read fault's */
	K_KSM_ZERO,	/* the zero page, dirty: KSM's */
	K_ANON,		/* an exclusive anonymous page, read-only: an unshare's copy */
	K_ANON_WRITE,	/* an exclusive anonymous page, writable: a write fault's */
	K_ANON_SHARED,	/* an anonymous page not marked exclusive */
	K_OTHER,	/* present, something else */
	K_SWAP,		/* not present, not none */
	K_THP,		/* mapped by a PMD leaf */
	K_KSM,		/* a KSM page */
};

struct ksm_ctx {
	struct thp_knobs saved;
	unsigned int saved_max_none;
	bool saved_on, saved_pt;
};

/*
 * unmerge()'s signal_after for the next unmerge; 0 for none. Cleared when a
 * case ends, an aborted one too.
 */
static int next_signal_after;

static int ksm_test_init(struct kunit *test)
{
	struct ksm_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct thp_knobs k;

	if (!c)
		return -ENOMEM;
	mm_rs_knobs_get(&c->saved);
	c->saved_on = static_branch_likely(&mm_rs_ksm_unmerge_key);
	/*
	 * The layouts fault their THP with the PMD size briefly "always", which
	 * registers the mm with khugepaged and wakes it: a scan in that window
	 * may collapse a sparse PMD range of the layout into a THP. With no
	 * empty entry allowed, it collapses none of them.
	 */
	c->saved_max_none = READ_ONCE(khugepaged_max_ptes_none);
	WRITE_ONCE(khugepaged_max_ptes_none, 0);
#ifdef CONFIG_MM_RS_PT_RECLAIM
	c->saved_pt = static_branch_likely(&mm_rs_pt_reclaim_key);
	/* Empty PTE tables stay, so that the walks meet them. */
	WARN_ON(mm_rs_sysfs_write_test("pt_reclaim", "0") != 1);
#endif
	test->priv = c;
	/* No THP of any size, but where build_layout() asks for one. */
	k.tpf = c->saved.tpf;
	mm_rs_knobs_only(&k, 0, KNOB_NEVER);
	mm_rs_knobs_set(&k);
	return 0;
}

static void ksm_test_exit(struct kunit *test)
{
	struct ksm_ctx *c = test->priv;

	next_signal_after = 0;
	mm_rs_knobs_set(&c->saved);
	WRITE_ONCE(khugepaged_max_ptes_none, c->saved_max_none);
	WARN_ON(mm_rs_debugfs_write_test("ksm_unmerge", c->saved_on ? "1" : "0") != 1);
#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
	WARN_ON(mm_rs_debugfs_write_test("ksm_unmerge_ref", "0") != 1);
	WARN_ON(mm_rs_debugfs_write_test("ksm_unmerge_ref_range", "0") != 1);
#endif
#ifdef CONFIG_MM_RS_PT_RECLAIM
	WARN_ON(mm_rs_sysfs_write_test("pt_reclaim", c->saved_pt ? "1" : "0") != 1);
#endif
}

static void set_rust(struct kunit *test, bool rust)
{
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("ksm_unmerge", rust ? "1" : "0"), 1);
}

/*
 * A private anonymous mapping of @len bytes at exactly @base; not accounted
 * (some are as large as the address space a PGD entry maps).
 */
static void map_at(struct kunit *test, unsigned long base, unsigned long len)
{
	unsigned long addr;

	addr = kunit_vm_mmap(test, NULL, base, len, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED_NOREPLACE | MAP_NORESERVE, 0);
	KUNIT_ASSERT_EQ(test, addr, base);
}

static int write_byte(unsigned long addr, u8 val)
{
	return copy_to_user((void __user *)addr, &val, 1) ? -EFAULT : 0;
}

static int read_byte(unsigned long addr, u8 *val)
{
	return copy_from_user(val, (void __user *)addr, 1) ? -EFAULT : 0;
}

static enum k_kind kind_of(struct vm_area_struct *vma, unsigned long addr, pte_t pte)
{
	struct page *page;

	if (pte_none(pte))
		return K_NONE;
	if (!pte_present(pte))
		return K_SWAP;
	if (is_zero_pfn(pte_pfn(pte)))
		return pte_dirty(pte) ? K_KSM_ZERO : K_ZERO;
	page = vm_normal_page(vma, addr, pte);
	if (page && folio_test_ksm(page_folio(page)))
		return K_KSM;
	if (!page || !PageAnon(page))
		return K_OTHER;
	if (!PageAnonExclusive(page))
		return K_ANON_SHARED;
	return pte_write(pte) ? K_ANON_WRITE : K_ANON;
}

/*
 * The kind of each of the K_PAGES entries from @base; mmap lock held. False if
 * there is no @vma or a PTE table could not be mapped: the caller asserts it
 * once the lock is dropped (MM_RS_ASSERT_MMAP_*()).
 */
static bool read_kinds(struct vm_area_struct *vma, unsigned long base, u8 *kinds)
{
	struct mm_struct *mm;
	int p, i;

	if (!vma)
		return false;
	mm = vma->vm_mm;
	for (p = 0; p < K_PMDS; p++) {
		unsigned long start = base + p * PMD_SIZE;
		u8 *k = kinds + p * PTRS_PER_PTE;
		pmd_t *pmd = mm_rs_find_pmd(mm, start);
		spinlock_t *ptl;	/* the PTE table's lock */
		pmd_t pmdval;
		pte_t *pte;

		memset(k, K_NONE, PTRS_PER_PTE);
		if (!pmd)
			continue;
		pmdval = pmdp_get(pmd);
		if (pmd_none(pmdval))
			continue;
		if (pmd_trans_huge(pmdval)) {
			memset(k, K_THP, PTRS_PER_PTE);
			continue;
		}
		pte = pte_offset_map_lock(mm, pmd, start, &ptl);
		if (!pte)
			return false;
		for (i = 0; i < PTRS_PER_PTE; i++)
			k[i] = kind_of(vma, start + i * PAGE_SIZE, ptep_get(pte + i));
		pte_unmap_unlock(pte, ptl);
	}
	return true;
}

/*
 * Replaces the anonymous page at @addr with the zero page as KSM does with
 * use_zero_pages (replace_page()): a dirty, special entry, counted in
 * ksm_zero_pages. The entry must be none; mmap write lock held. False if
 * there is no PTE table at @addr, for the caller to assert once unlocked.
 */
static bool place_ksm_zero(struct vm_area_struct *vma, unsigned long addr)
{
	struct mm_struct *mm = vma->vm_mm;
	pmd_t *pmd = mm_rs_find_pmd(mm, addr);
	spinlock_t *ptl;	/* the PTE table's lock */
	pte_t *pte;

	pte = pmd ? pte_offset_map_lock(mm, pmd, addr, &ptl) : NULL;
	if (!pte)
		return false;
	if (pte_none(ptep_get(pte))) {
		set_pte_at(mm, addr, pte,
			   pte_mkdirty(pte_mkspecial(pfn_pte(my_zero_pfn(addr),
							     vma->vm_page_prot))));
		atomic_long_inc(&ksm_zero_pages);
		atomic_long_inc(&mm->ksm_zero_pages);
	}
	pte_unmap_unlock(pte, ptl);
	return true;
}

/* Page indexes of the layout (PTRS_PER_PTE per PMD). */
#define PG(pmd, i)	((pmd) * PTRS_PER_PTE + (i))

/* KSM zero pages: table edges, both sides of the PUD boundary, a run. */
static const unsigned int ksm_zero_at[] = {
	PG(0, 0), PG(0, 1), PG(0, 100), PG(0, PTRS_PER_PTE - 1),
	PG(3, 0), PG(3, 7), PG(3, 8), PG(3, 9), PG(3, PTRS_PER_PTE - 1),
};

/* Anonymous pages with data, read-faulted zero pages, one empty table. */
static const unsigned int anon_at[] = { PG(0, 2), PG(0, 99), PG(3, 10), PG(3, 200) };
static const unsigned int zero_at[] = { PG(0, 3), PG(3, 11) };

/*
 * The layout, one VMA at [base - 2 PMD, base + 2 PMD) with base PUD-aligned:
 * PMD 0 mixed, PMD 1 a THP, PMD 2 an empty PTE table, PMD 3 mixed.
 */
static unsigned long build_layout(struct kunit *test, unsigned long bound)
{
	struct ksm_ctx *c = test->priv;
	unsigned long base = bound - 2 * PMD_SIZE;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	struct thp_knobs k;
	unsigned int i;
	u8 v;

	map_at(test, base, K_LEN);
	mm = current->mm;
	/* VM_MERGEABLE, for MADV_UNMERGEABLE to act; ksmd does not run. */
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, K_LEN, MADV_MERGEABLE), 0);
	for (i = 0; i < ARRAY_SIZE(anon_at); i++)
		KUNIT_ASSERT_EQ(test, write_byte(base + anon_at[i] * PAGE_SIZE, 0x40 + i), 0);
	for (i = 0; i < ARRAY_SIZE(zero_at); i++)
		KUNIT_ASSERT_EQ(test, read_byte(base + zero_at[i] * PAGE_SIZE, &v), 0);
	/* An empty table: a page in it, zapped (pt_reclaim is off). */
	KUNIT_ASSERT_EQ(test, write_byte(base + 2 * PMD_SIZE + PAGE_SIZE, 1), 0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base + 2 * PMD_SIZE, PMD_SIZE, MADV_DONTNEED), 0);
	/* The THP, once every other PMD range has its PTE table. */
	k.tpf = c->saved.tpf;
	mm_rs_knobs_only(&k, HPAGE_PMD_ORDER, KNOB_ALWAYS);
	mm_rs_knobs_set(&k);
	i = write_byte(base + PMD_SIZE, 0x7f);
	mm_rs_knobs_only(&k, 0, KNOB_NEVER);
	mm_rs_knobs_set(&k);
	KUNIT_ASSERT_EQ(test, i, 0);
	mmap_write_lock(mm);
	vma = vma_lookup(mm, base);
	for (i = 0; i < ARRAY_SIZE(ksm_zero_at); i++)
		MM_RS_ASSERT_MMAP_WRITE(test,
					place_ksm_zero(vma, base + ksm_zero_at[i] * PAGE_SIZE), mm);
	mmap_write_unlock(mm);
	return base;
}

/* The layout as built: the kinds the test expects before unmerging. */
static void expected_before(u8 *kinds)
{
	unsigned int i;

	memset(kinds, K_NONE, K_PAGES);
	memset(kinds + PG(1, 0), K_THP, PTRS_PER_PTE);
	for (i = 0; i < ARRAY_SIZE(ksm_zero_at); i++)
		kinds[ksm_zero_at[i]] = K_KSM_ZERO;
	for (i = 0; i < ARRAY_SIZE(anon_at); i++)
		kinds[anon_at[i]] = K_ANON_WRITE;
	for (i = 0; i < ARRAY_SIZE(zero_at); i++)
		kinds[zero_at[i]] = K_ZERO;
}

struct unmerge_result {
	int ret;
	int unshare_faults;	/* the unshare faults of the unmerge */
	int unlocked_faults;	/* those whose VMA was not write-locked */
	long ksm_zero_global, ksm_zero_mm, anon;	/* changes */
	u8 kinds[K_PAGES];
	u8 data[ARRAY_SIZE(anon_at) + ARRAY_SIZE(ksm_zero_at) + 1];
	bool table2;		/* the empty table is still there */
	int rust_calls;
};

/*
 * The unshare faults of an unmerge in the test mm, and whether each found
 * its VMA write-locked against per-VMA-lock faults (vma_start_write(): the
 * lock_vma of MADV_UNMERGEABLE): a kprobe on handle_mm_fault().
 */
struct fault_watch {
	struct kprobe kp;
	struct mm_struct *mm;
	atomic_t faults, unlocked;
	int signal_after;	/* raise a signal as the Nth unshare fault starts */
	struct irq_work signal_work;	/* sends it: send_sig() to @task */
	struct task_struct *task;
};

/*
 * The signal, SIGUSR1 from the kernel, sent in the hard interrupt of an
 * irq_work, as a timer's or another CPU's would arrive: the kprobe that
 * raises it runs in the breakpoint's exception (on x86_64 an NMI-like
 * context), which may not take the siglock. The interrupt is taken as the
 * exception returns, with the unshare fault begun.
 */
static void fault_watch_signal(struct irq_work *work)
{
	struct fault_watch *w = container_of(work, struct fault_watch, signal_work);

	send_sig(SIGUSR1, w->task, 1);
}

static int fault_watch_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct fault_watch *w = container_of(kp, struct fault_watch, kp);
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);
	unsigned int flags = regs_get_kernel_argument(regs, 2);

	if (vma->vm_mm != w->mm || !(flags & FAULT_FLAG_UNSHARE))
		return 0;
	/*
	 * A signal that arrives while a KSM page is being broken, so that it is
	 * pending when the unmerge goes on to the next address: between two KSM
	 * pages of one table. The kprobe runs in the unmerging task.
	 */
	if (atomic_inc_return(&w->faults) == w->signal_after)
		irq_work_queue(&w->signal_work);
#ifdef CONFIG_PER_VMA_LOCK
	if (READ_ONCE(vma->vm_lock_seq) != READ_ONCE(vma->vm_mm->mm_lock_seq.sequence))
		atomic_inc(&w->unlocked);
#endif
	return 0;
}

/* What watched_unmerge() saw of one MADV_UNMERGEABLE. */
struct watched {
	int ret, rust_calls, unshare_faults, unlocked_faults;
};

/*
 * MADV_UNMERGEABLE over K_LEN at @base, by Rust or by 6.12's C loop, with a
 * signal pending from the start (@signal) or raised as the @signal_after-th
 * unshare fault starts (0: none), under a fault_watch; @probe counts the
 * calls of the Rust path.
 */
static void watched_unmerge(struct kunit *test, unsigned long base, bool rust, bool signal,
			    int signal_after, struct mm_rs_probe *probe, struct watched *out)
{
	struct fault_watch *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct mm_struct *mm = current->mm;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->mm = mm;
	w->signal_after = signal_after;
	w->task = current;
	init_irq_work(&w->signal_work, fault_watch_signal);
	w->kp.symbol_name = "handle_mm_fault";
	w->kp.pre_handler = fault_watch_pre;
	KUNIT_ASSERT_EQ(test, mm_rs_register_kprobe(test, &w->kp), 0);
	set_rust(test, rust);
	mm_rs_probe_hits(probe);
	/* A kthread ignores every signal it has not allowed: the case's runs. */
	allow_signal(SIGUSR1);
	if (signal)
		send_sig(SIGUSR1, current, 1);
	out->ret = do_madvise(mm, base, K_LEN, MADV_UNMERGEABLE);
	unregister_kprobe(&w->kp);
	irq_work_sync(&w->signal_work);
	/* Sent when asked, not at another time: pending now, and then taken back. */
	KUNIT_EXPECT_EQ(test, signal_pending(current),
			signal || (signal_after && atomic_read(&w->faults) >= signal_after));
	flush_signals(current);
	disallow_signal(SIGUSR1);
	out->rust_calls = mm_rs_probe_hits(probe);
	out->unshare_faults = atomic_read(&w->faults);
	out->unlocked_faults = atomic_read(&w->unlocked);
}

/* MADV_UNMERGEABLE over the layout at @base, optionally with a signal pending. */
static void unmerge(struct kunit *test, unsigned long base, bool rust, bool signal,
		    struct unmerge_result *r)
{
	struct mm_rs_probe *probe = mm_rs_probe(test, "mm_rs_unmerge_ksm_pages");
	struct mm_struct *mm = current->mm;
	long g0 = atomic_long_read(&ksm_zero_pages);
	long m0 = atomic_long_read(&mm->ksm_zero_pages);
	long a0 = mm_rs_anon_pages(mm);
	struct vm_area_struct *vma;
	unsigned int i, n = 0;
	struct watched wd;
	pmd_t *pmd;

	watched_unmerge(test, base, rust, signal, next_signal_after, probe, &wd);
	r->ret = wd.ret;
	r->rust_calls = wd.rust_calls;
	r->unshare_faults = wd.unshare_faults;
	r->unlocked_faults = wd.unlocked_faults;
	mmap_write_lock(mm);
	vma = vma_lookup(mm, base);
	MM_RS_ASSERT_MMAP_WRITE(test, read_kinds(vma, base, r->kinds), mm);
	pmd = mm_rs_find_pmd(mm, base + 2 * PMD_SIZE);
	r->table2 = pmd && pmd_present(pmdp_get(pmd)) && !pmd_leaf(pmdp_get(pmd));
	mmap_write_unlock(mm);
	r->ksm_zero_global = atomic_long_read(&ksm_zero_pages) - g0;
	r->ksm_zero_mm = atomic_long_read(&mm->ksm_zero_pages) - m0;
	r->anon = mm_rs_anon_pages(mm) - a0;
	for (i = 0; i < ARRAY_SIZE(anon_at); i++)
		KUNIT_ASSERT_EQ(test, read_byte(base + anon_at[i] * PAGE_SIZE, &r->data[n++]), 0);
	for (i = 0; i < ARRAY_SIZE(ksm_zero_at); i++)
		KUNIT_ASSERT_EQ(test, read_byte(base + ksm_zero_at[i] * PAGE_SIZE, &r->data[n++]),
				0);
	KUNIT_ASSERT_EQ(test, read_byte(base + PMD_SIZE, &r->data[n++]), 0);
}

/* The layout twice, one for C and one for Rust, and what it holds before. */
struct two_layouts {
	struct unmerge_result *c, *r;
	unsigned long base_c, base_r;
	u8 *want;
};

static void build_two_layouts(struct kunit *test, struct two_layouts *t)
{
	t->c = kunit_kzalloc(test, sizeof(*t->c), GFP_KERNEL);
	t->r = kunit_kzalloc(test, sizeof(*t->r), GFP_KERNEL);
	t->want = kunit_kzalloc(test, K_PAGES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->c);
	KUNIT_ASSERT_NOT_NULL(test, t->r);
	KUNIT_ASSERT_NOT_NULL(test, t->want);
	t->base_c = build_layout(test, 8 * PUD_SIZE);
	t->base_r = build_layout(test, 16 * PUD_SIZE);
	expected_before(t->want);
}

/*
 * MADV_UNMERGEABLE, C and Rust, over the same layout: each breaks every
 * KSM zero page into an exclusive page of zeros, counts it out of
 * ksm_zero_pages, leaves the anonymous pages, the clean zero pages, the THP
 * and the empty table as they were, with one unshare fault a page (its copy
 * read-only, as an unshare leaves it), each with the VMA write-locked; the
 * two end the same. The Rust path ran for the Rust run only.
 */
static void unmerge_same_as_c(struct kunit *test)
{
	long nr = ARRAY_SIZE(ksm_zero_at);
	struct unmerge_result *rc, *rr;
	unsigned long base_c, base_r;
	struct two_layouts t;
	unsigned int i;
	u8 *want;

	build_two_layouts(test, &t);
	rc = t.c;
	rr = t.r;
	want = t.want;
	base_c = t.base_c;
	base_r = t.base_r;
	mmap_read_lock(current->mm);
	MM_RS_ASSERT_MMAP_READ(test, read_kinds(vma_lookup(current->mm, base_c), base_c, rc->kinds),
			       current->mm);
	MM_RS_ASSERT_MMAP_READ(test, read_kinds(vma_lookup(current->mm, base_r), base_r, rr->kinds),
			       current->mm);
	mmap_read_unlock(current->mm);
	KUNIT_ASSERT_MEMEQ(test, rc->kinds, want, K_PAGES);
	KUNIT_ASSERT_MEMEQ(test, rr->kinds, want, K_PAGES);

	unmerge(test, base_c, false, false, rc);
	unmerge(test, base_r, true, false, rr);

	for (i = 0; i < ARRAY_SIZE(ksm_zero_at); i++)
		want[ksm_zero_at[i]] = K_ANON;
	KUNIT_EXPECT_EQ(test, rc->ret, 0);
	KUNIT_EXPECT_MEMEQ(test, rc->kinds, want, K_PAGES);
	/* One unshare fault a page, each under the VMA's write lock. */
	KUNIT_EXPECT_EQ(test, rc->unshare_faults, nr);
	KUNIT_EXPECT_EQ(test, rc->unlocked_faults, 0);
	KUNIT_EXPECT_EQ(test, rc->ksm_zero_global, -nr);
	KUNIT_EXPECT_EQ(test, rc->ksm_zero_mm, -nr);
	KUNIT_EXPECT_EQ(test, rc->anon, nr);
	KUNIT_EXPECT_TRUE(test, rc->table2);
	KUNIT_EXPECT_EQ(test, rc->rust_calls, 0);
	for (i = 0; i < ARRAY_SIZE(anon_at); i++)
		KUNIT_EXPECT_EQ(test, rc->data[i], 0x40 + i);
	for (; i < ARRAY_SIZE(anon_at) + ARRAY_SIZE(ksm_zero_at); i++)
		KUNIT_EXPECT_EQ(test, rc->data[i], 0);
	KUNIT_EXPECT_EQ(test, rc->data[i], 0x7f);

	KUNIT_EXPECT_EQ(test, rr->rust_calls, 1);
	rr->rust_calls = rc->rust_calls;
	KUNIT_EXPECT_MEMEQ(test, rr, rc, sizeof(*rr));
}

/*
 * A signal pending when unmerging starts: -ERESTARTSYS, and nothing broken,
 * on both paths.
 */
static void unmerge_signal_pending(struct kunit *test)
{
	struct unmerge_result *rc, *rr;
	struct two_layouts t;

	build_two_layouts(test, &t);
	rc = t.c;
	rr = t.r;
	unmerge(test, t.base_c, false, true, rc);
	unmerge(test, t.base_r, true, true, rr);

	KUNIT_EXPECT_EQ(test, rc->ret, -ERESTARTSYS);
	KUNIT_EXPECT_MEMEQ(test, rc->kinds, t.want, K_PAGES);
	KUNIT_EXPECT_EQ(test, rc->ksm_zero_global, 0);
	KUNIT_EXPECT_EQ(test, rr->rust_calls, 1);
	rr->rust_calls = rc->rust_calls;
	KUNIT_EXPECT_MEMEQ(test, rr, rc, sizeof(*rr));
}

/*
 * A signal raised while the first KSM page is broken, before the next one of
 * the same table: 6.12 stops at the next address with -ERESTARTSYS (it checks
 * before every address), the Rust walk at the next KSM page (it checks before
 * each one it would break). Either way one page is broken, the rest of the
 * range is left merged, and the two paths leave the same state.
 */
static void unmerge_signal_mid_table(struct kunit *test)
{
	struct unmerge_result *rc, *rr;
	struct two_layouts t;
	unsigned int i, ksm_before = 0, ksm_after = 0;

	build_two_layouts(test, &t);
	rc = t.c;
	rr = t.r;
	next_signal_after = 1;
	unmerge(test, t.base_c, false, false, rc);
	unmerge(test, t.base_r, true, false, rr);
	next_signal_after = 0;

	KUNIT_EXPECT_EQ(test, rc->ret, -ERESTARTSYS);
	KUNIT_EXPECT_EQ(test, rc->unshare_faults, 1);
	/*
	 * The layout's first two KSM pages are KSM zero pages, PG(0, 0) and
	 * PG(0, 1), in one table: the first is broken, the second is where
	 * the signal stops the unmerge, and so is every later one.
	 */
	KUNIT_EXPECT_EQ(test, t.want[PG(0, 0)], K_KSM_ZERO);
	KUNIT_EXPECT_EQ(test, t.want[PG(0, 1)], K_KSM_ZERO);
	KUNIT_EXPECT_NE(test, rc->kinds[PG(0, 0)], K_KSM_ZERO);
	KUNIT_EXPECT_EQ(test, rc->kinds[PG(0, 1)], K_KSM_ZERO);
	for (i = 0; i < K_PAGES; i++) {
		ksm_before += t.want[i] == K_KSM || t.want[i] == K_KSM_ZERO;
		ksm_after += rc->kinds[i] == K_KSM || rc->kinds[i] == K_KSM_ZERO;
	}
	KUNIT_EXPECT_EQ(test, ksm_after + 1, ksm_before);
	KUNIT_EXPECT_EQ(test, rr->rust_calls, 1);
	rr->rust_calls = rc->rust_calls;
	KUNIT_EXPECT_MEMEQ(test, rr, rc, sizeof(*rr));
#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
	/*
	 * The benchmark's C range walk checks for a signal at each PTE table
	 * it reads: the walk it starts again after the first unshare fault
	 * stops there, at the same page as the C loop.
	 */
	rr = kunit_kzalloc(test, sizeof(*rr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("ksm_unmerge_ref_range", "1"), 1);
	next_signal_after = 1;
	unmerge(test, build_layout(test, 32 * PUD_SIZE), false, false, rr);
	next_signal_after = 0;
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("ksm_unmerge_ref_range", "0"), 1);
	KUNIT_EXPECT_MEMEQ_MSG(test, rr, rc, sizeof(*rr), "C range walk");
#endif
}

/* The PMD entries the Rust walk of @mm read, and the highest one's address. */
static struct {
	struct mm_struct *mm;
	unsigned long reads, highest;
} pmd_reads;

static void note_pmd_reads(enum mm_rs_race where, struct mm_struct *mm, unsigned long addr)
{
	if (where != MM_RS_RACE_WALK_PMD_READ || mm != pmd_reads.mm)
		return;
	pmd_reads.reads++;
	pmd_reads.highest = max(pmd_reads.highest, addr);
}

/*
 * A signal raised while the last KSM page of a table is broken: 6.12 stops at
 * the next address, the first of the next PMD range; the Rust walk where it
 * pauses after the table, before it reads the next PMD entry. Both break the
 * table's four KSM pages, leave the rest of the layout merged and return
 * -ERESTARTSYS. The state cannot tell a walk that pauses after each table
 * from one that checks only before the next KSM page, or where it ends (it
 * would meet one in the fourth table, or the end of the range): how far it
 * reads on can. Here it reads no PMD entry past the first table, not the THP
 * or the empty table after it, as a signal stops 6.12 within a page: an
 * unmerge of a large, populated range is no longer to interrupt than in C.
 */
static void unmerge_signal_between_tables(struct kunit *test)
{
	struct unmerge_result *rc, *rr;
	struct two_layouts t;
	unsigned int i;

	build_two_layouts(test, &t);
	rc = t.c;
	rr = t.r;
	/* The layout's first four KSM pages are the first table's, and the last. */
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_LT(test, ksm_zero_at[i], PG(1, 0));
	KUNIT_ASSERT_EQ(test, ksm_zero_at[3], PG(0, PTRS_PER_PTE - 1));
	KUNIT_ASSERT_GE(test, ksm_zero_at[4], PG(1, 0));
	next_signal_after = 4;
	unmerge(test, t.base_c, false, false, rc);
	memset(&pmd_reads, 0, sizeof(pmd_reads));
	pmd_reads.mm = current->mm;
	kunit_activate_static_stub(test, mm_rs_test_race, note_pmd_reads);
	unmerge(test, t.base_r, true, false, rr);
	kunit_deactivate_static_stub(test, mm_rs_test_race);
	pmd_reads.mm = NULL;
	next_signal_after = 0;

	for (i = 0; i < 4; i++)
		t.want[ksm_zero_at[i]] = K_ANON;
	KUNIT_EXPECT_EQ(test, rc->ret, -ERESTARTSYS);
	KUNIT_EXPECT_EQ(test, rc->unshare_faults, 4);
	KUNIT_EXPECT_MEMEQ(test, rc->kinds, t.want, K_PAGES);
	KUNIT_EXPECT_EQ(test, rc->ksm_zero_global, -4);
	KUNIT_EXPECT_EQ(test, rr->rust_calls, 1);
	rr->rust_calls = rc->rust_calls;
	KUNIT_EXPECT_MEMEQ(test, rr, rc, sizeof(*rr));
	KUNIT_EXPECT_GT(test, pmd_reads.reads, 0);
	KUNIT_EXPECT_LT_MSG(test, pmd_reads.highest, t.base_r + PMD_SIZE,
			    "the walk read on to %#lx, past the table the signal came in",
			    pmd_reads.highest);
}

/*
 * A random layout: for each of the K_PMDS ranges, no table, an empty table,
 * a PMD THP, or a table whose pages are, at a random density, none, a clean
 * zero page, an anonymous page with data or a KSM zero page; and the
 * unshare fault (none, or the Nth) as which a signal arrives.
 */
enum r_page { R_NONE, R_ZERO, R_ANON, R_KSM_ZERO };
enum r_pmd { R_TABLE, R_NO_TABLE, R_EMPTY_TABLE, R_THP };

struct random_layout {
	u8 page[K_PAGES];
	u8 pmd[K_PMDS];
	unsigned int nr_ksm;
	int signal_after;
};

static void random_layout(struct rnd_state *rs, struct random_layout *l)
{
	unsigned int p, i;

	memset(l, 0, sizeof(*l));
	for (p = 0; p < K_PMDS; p++) {
		/* density in 1/1024: a page in a table, a run, every page */
		static const u32 densities[] = { 1, 8, 64, 512, 1024 };
		u32 density = densities[prandom_u32_state(rs) % ARRAY_SIZE(densities)];
		u32 ksm_share = prandom_u32_state(rs) % 1025;

		l->pmd[p] = prandom_u32_state(rs) % 8;
		if (l->pmd[p] > R_THP)
			l->pmd[p] = R_TABLE;
		if (l->pmd[p] != R_TABLE)
			continue;
		for (i = 0; i < PTRS_PER_PTE; i++) {
			u8 *pg = &l->page[PG(p, i)];

			if (prandom_u32_state(rs) % 1024 >= density)
				continue;
			if (prandom_u32_state(rs) % 1024 < ksm_share) {
				*pg = R_KSM_ZERO;
				l->nr_ksm++;
			} else {
				*pg = prandom_u32_state(rs) % 2 ? R_ANON : R_ZERO;
			}
		}
		/* at least one page: a table with none is R_EMPTY_TABLE's */
		if (!memchr_inv(&l->page[PG(p, 0)], R_NONE, PTRS_PER_PTE))
			l->page[PG(p, prandom_u32_state(rs) % PTRS_PER_PTE)] = R_ANON;
	}
	if (l->nr_ksm && prandom_u32_state(rs) % 3 == 0)
		l->signal_after = 1 + prandom_u32_state(rs) % l->nr_ksm;
}

/*
 * The edges a random layout rarely meets, made on purpose: the signal as the
 * last KSM page is broken, with that page
 * - EDGE_END: at the range's last address (6.12 has no address left to check
 *   the signal at: 0);
 * - EDGE_HOLES: followed by PMD ranges without a table (6.12 checks at each
 *   of their addresses: -ERESTARTSYS);
 * - EDGE_LAST_TABLE: followed by other pages of its own table, the range's
 *   last (the same: -ERESTARTSYS), where a walk ends with no table after
 *   the one it broke the page in.
 */
enum edge { EDGE_END, EDGE_HOLES, EDGE_LAST_TABLE };

static void edge_layout(struct rnd_state *rs, struct random_layout *l, enum edge edge)
{
	unsigned int i, last;

	random_layout(rs, l);
	switch (edge) {
	case EDGE_END:
		last = K_PAGES - 1;
		break;
	case EDGE_HOLES:
		last = PG(K_PMDS - 1, 0) - 1;
		l->pmd[K_PMDS - 1] = R_NO_TABLE;
		memset(&l->page[PG(K_PMDS - 1, 0)], R_NONE, PTRS_PER_PTE);
		break;
	default:
		last = PG(K_PMDS - 1, prandom_u32_state(rs) % (PTRS_PER_PTE - 1));
		break;
	}
	/* no KSM page after it */
	for (i = last + 1; i < K_PAGES; i++)
		if (l->page[i] == R_KSM_ZERO)
			l->page[i] = R_ANON;
	/* the page at @last is in a table of pages (others of it may be none) */
	if (l->pmd[last / PTRS_PER_PTE] != R_TABLE) {
		l->pmd[last / PTRS_PER_PTE] = R_TABLE;
		memset(&l->page[last - last % PTRS_PER_PTE], R_NONE, PTRS_PER_PTE);
	}
	l->page[last] = R_KSM_ZERO;
	l->nr_ksm = 0;
	for (i = 0; i < K_PAGES; i++)
		l->nr_ksm += l->page[i] == R_KSM_ZERO;
	l->signal_after = l->nr_ksm;
}

/* The index of the KSM page as whose unshare fault the signal comes. */
static unsigned int random_signal_page(const struct random_layout *l)
{
	unsigned int i, seen = 0;

	for (i = 0; i < K_PAGES; i++)
		if (l->page[i] == R_KSM_ZERO && ++seen == l->signal_after)
			break;
	return i;
}

/* What 6.12's loop returns for @l: whether an address follows the signal's KSM page. */
static int random_expected_ret(const struct random_layout *l)
{
	if (!l->signal_after)
		return 0;
	return random_signal_page(l) == K_PAGES - 1 ? 0 : -ERESTARTSYS;
}

/* The data byte of the anonymous page at index @i of a random layout. */
static u8 random_data(unsigned int i)
{
	return 0x20 + i % 0x5f;
}

/*
 * The VMA of a random layout, K_LEN at @base, mergeable, with its PTE tables,
 * empty (pt_reclaim is off: a zapped table stays): a KSM zero page goes into
 * a none entry of an existing table.
 */
static void build_random_tables(struct kunit *test, unsigned long base,
				const struct random_layout *l)
{
	struct mm_struct *mm;
	unsigned int p;

	map_at(test, base, K_LEN);
	/* kunit_vm_mmap() gives the test task its mm on first use */
	mm = current->mm;
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, K_LEN, MADV_MERGEABLE), 0);
	for (p = 0; p < K_PMDS; p++) {
		unsigned long start = base + p * PMD_SIZE;

		if (l->pmd[p] != R_TABLE && l->pmd[p] != R_EMPTY_TABLE)
			continue;
		KUNIT_ASSERT_EQ(test, write_byte(start, 1), 0);
		KUNIT_ASSERT_EQ(test, do_madvise(mm, start, PAGE_SIZE, MADV_DONTNEED), 0);
	}
}

/* @l built in a VMA of K_LEN at @base (PUD_SIZE - 2 PMD aligned, as build_layout()'s). */
static void build_random(struct kunit *test, unsigned long base, const struct random_layout *l)
{
	struct ksm_ctx *c = test->priv;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct thp_knobs k;
	unsigned int p, i;
	u8 v;

	build_random_tables(test, base, l);
	mm = current->mm;
	for (i = 0; i < K_PAGES; i++) {
		unsigned long addr = base + i * PAGE_SIZE;

		if (l->page[i] == R_ANON)
			KUNIT_ASSERT_EQ(test, write_byte(addr, random_data(i)), 0);
		else if (l->page[i] == R_ZERO)
			KUNIT_ASSERT_EQ(test, read_byte(addr, &v), 0);
	}
	k.tpf = c->saved.tpf;
	mm_rs_knobs_only(&k, HPAGE_PMD_ORDER, KNOB_ALWAYS);
	mm_rs_knobs_set(&k);
	for (p = 0, i = 0; p < K_PMDS && !i; p++)
		if (l->pmd[p] == R_THP)
			i = write_byte(base + p * PMD_SIZE, 0x7f);
	mm_rs_knobs_only(&k, 0, KNOB_NEVER);
	mm_rs_knobs_set(&k);
	KUNIT_ASSERT_EQ(test, i, 0);
	mmap_write_lock(mm);
	vma = vma_lookup(mm, base);
	for (i = 0; i < K_PAGES; i++)
		if (l->page[i] == R_KSM_ZERO)
			MM_RS_ASSERT_MMAP_WRITE(test, place_ksm_zero(vma, base + i * PAGE_SIZE),
						mm);
	mmap_write_unlock(mm);
}

/* What a random layout's unmerge ends in, compared byte for byte. */
struct random_result {
	bool anon_vma;		/* 6.12 unmerges a VMA that has one only */
	int ret, unshare_faults, unlocked_faults;
	long ksm_zero_mm, anon;
	u8 kinds[K_PAGES];
	u8 data[K_PAGES];
	int rust_calls;
};

static void unmerge_random(struct kunit *test, unsigned long base, const struct random_layout *l,
			   bool rust, struct mm_rs_probe *probe, struct random_result *r)
{
	struct mm_struct *mm = current->mm;
	long m0 = atomic_long_read(&mm->ksm_zero_pages);
	long a0 = mm_rs_anon_pages(mm);
	struct watched wd;
	unsigned int i;

	mmap_read_lock(mm);
	r->anon_vma = !!vma_lookup(mm, base)->anon_vma;
	mmap_read_unlock(mm);
	memset(&pmd_reads, 0, sizeof(pmd_reads));
	pmd_reads.mm = mm;
	kunit_activate_static_stub(test, mm_rs_test_race, note_pmd_reads);
	watched_unmerge(test, base, rust, false, l->signal_after, probe, &wd);
	kunit_deactivate_static_stub(test, mm_rs_test_race);
	pmd_reads.mm = NULL;
	/*
	 * The Rust walk stops at the next KSM page or where it pauses after
	 * the table of the one the signal came at, whatever follows it: it
	 * reads no PMD entry beyond that table (6.12 stops at the next address).
	 * (Not after a refused unshare fault at a table's last page, which no
	 * layout here has: the walk goes on in the next table and pauses after
	 * it, one table later, breaking nothing unchecked.)
	 */
	if (rust && wd.rust_calls)
		KUNIT_EXPECT_GT_MSG(test, pmd_reads.reads, 0, "no PMD read seen");
	if (rust && l->signal_after && random_signal_page(l) < K_PAGES)
		KUNIT_EXPECT_LT_MSG(test, pmd_reads.highest,
				    base + (random_signal_page(l) / PTRS_PER_PTE + 1) * PMD_SIZE,
				    "signal at KSM page %d of %u (page %u): the walk read on",
				    l->signal_after, l->nr_ksm, random_signal_page(l));
	r->ret = wd.ret;
	r->rust_calls = wd.rust_calls;
	r->unshare_faults = wd.unshare_faults;
	r->unlocked_faults = wd.unlocked_faults;
	mmap_read_lock(mm);
	MM_RS_ASSERT_MMAP_READ(test, read_kinds(vma_lookup(mm, base), base, r->kinds), mm);
	mmap_read_unlock(mm);
	r->ksm_zero_mm = atomic_long_read(&mm->ksm_zero_pages) - m0;
	r->anon = mm_rs_anon_pages(mm) - a0;
	for (i = 0; i < K_PAGES; i++)
		if (l->page[i] != R_NONE)
			KUNIT_ASSERT_EQ(test, read_byte(base + i * PAGE_SIZE, &r->data[i]), 0);
	KUNIT_ASSERT_EQ(test, vm_munmap(base, K_LEN), 0);
}

#define RANDOM_LAYOUTS	24

/*
 * Rust's result differs from C's: say where, field by field and at the
 * first page that differs (a dump of the whole results is 8 KiB a layout).
 */
static void expect_random_same(struct kunit *test, unsigned int n, const struct random_layout *l,
			       const struct random_result *rc, const struct random_result *rr)
{
	unsigned int i;

	KUNIT_FAIL(test, "layout %u (signal after %d of %u KSM pages): Rust differs from C",
		   n, l->signal_after, l->nr_ksm);
	KUNIT_EXPECT_EQ_MSG(test, rr->ret, rc->ret, "layout %u: return", n);
	KUNIT_EXPECT_EQ_MSG(test, rr->unshare_faults, rc->unshare_faults,
			    "layout %u: unshare faults", n);
	KUNIT_EXPECT_EQ_MSG(test, rr->unlocked_faults, rc->unlocked_faults,
			    "layout %u: unlocked", n);
	KUNIT_EXPECT_EQ_MSG(test, rr->ksm_zero_mm, rc->ksm_zero_mm, "layout %u: ksm_zero_pages", n);
	KUNIT_EXPECT_EQ_MSG(test, rr->anon, rc->anon, "layout %u: anonymous pages", n);
	for (i = 0; i < K_PAGES; i++) {
		if (rr->kinds[i] != rc->kinds[i] || rr->data[i] != rc->data[i]) {
			KUNIT_FAIL(test,
				   "layout %u: page %u: kind %u data %#x, C's kind %u data %#x",
				   n, i, rr->kinds[i], rr->data[i], rc->kinds[i], rc->data[i]);
			break;
		}
	}
}

/*
 * Layout @n's results: Rust's the same as C's (its rust_calls aside, which
 * is taken as C's once checked), and 6.12's promise on C's: its return, one
 * unshare fault a KSM page broken (every one, or those up to the signal's),
 * the rest left as @left_kind, and every fault with the VMA write-locked.
 */
static void expect_random_unmerged(struct kunit *test, unsigned int n,
				   const struct random_layout *l, const struct random_result *rc,
				   struct random_result *rr, u8 left_kind)
{
	unsigned int i, left = 0;

	KUNIT_EXPECT_EQ_MSG(test, rc->rust_calls, 0, "layout %u", n);
	/* a layout with nothing written has no anon_vma: nothing to unmerge */
	KUNIT_EXPECT_EQ_MSG(test, rr->rust_calls, rr->anon_vma, "layout %u", n);
	rr->rust_calls = rc->rust_calls;
	if (memcmp(rr, rc, sizeof(*rr)))
		expect_random_same(test, n, l, rc, rr);
	for (i = 0; i < K_PAGES; i++)
		left += rc->kinds[i] == left_kind;
	KUNIT_EXPECT_EQ_MSG(test, rc->ret, random_expected_ret(l), "layout %u", n);
	KUNIT_EXPECT_EQ_MSG(test, rc->unshare_faults, l->signal_after ?: l->nr_ksm,
			    "layout %u", n);
	KUNIT_EXPECT_EQ_MSG(test, left, l->nr_ksm - (l->signal_after ?: l->nr_ksm),
			    "layout %u", n);
	KUNIT_EXPECT_EQ_MSG(test, rc->unlocked_faults, 0, "layout %u", n);
}

/*
 * Seeded random layouts (mm_rs_kunit.seed changes them), each built twice
 * and unmerged by 6.12's C loop and by Rust: the same return, unshare
 * faults, page tables, contents and counters, case by case. Without a
 * signal every KSM zero page is broken and nothing else changes; with one
 * raised as the Nth unshare fault starts, both stop before the (N+1)th KSM
 * page, wherever it is, with -ERESTARTSYS if an address of the range follows
 * the Nth (edge_layout() makes the three edges).
 */
static void unmerge_random_same_as_c(struct kunit *test)
{
	struct random_layout *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct random_result *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);
	struct random_result *rr = kunit_kzalloc(test, sizeof(*rr), GFP_KERNEL);
	struct mm_rs_probe *probe = mm_rs_probe(test, "mm_rs_unmerge_ksm_pages");
	unsigned int n, i, signalled = 0, thps = 0;
	struct rnd_state rs;

	KUNIT_ASSERT_NOT_NULL(test, l);
	KUNIT_ASSERT_NOT_NULL(test, rc);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	prandom_seed_state(&rs, mm_rs_kunit_seed(test, 0x6b736d72));
	for (n = 0; n < RANDOM_LAYOUTS; n++) {
		unsigned long base = 8 * PUD_SIZE - 2 * PMD_SIZE;

		/* every sixth an edge of each kind */
		if (n % 6 >= 3)
			edge_layout(&rs, l, n % 6 == 5 ? EDGE_END :
					    n % 6 == 4 ? EDGE_HOLES : EDGE_LAST_TABLE);
		else
			random_layout(&rs, l);
		memset(rc, 0, sizeof(*rc));
		memset(rr, 0, sizeof(*rr));
		build_random(test, base, l);
		unmerge_random(test, base, l, false, probe, rc);
		build_random(test, base, l);
		unmerge_random(test, base, l, true, probe, rr);

		expect_random_unmerged(test, n, l, rc, rr, K_KSM_ZERO);
		for (i = 0; i < K_PAGES; i++) {
			if (l->page[i] == R_ANON)
				KUNIT_EXPECT_EQ_MSG(test, rc->data[i], random_data(i),
						    "layout %u page %u", n, i);
			else if (l->page[i] != R_NONE)
				KUNIT_EXPECT_EQ_MSG(test, rc->data[i], 0,
						    "layout %u page %u", n, i);
		}
		signalled += !!l->signal_after;
		for (i = 0; i < K_PMDS; i++)
			thps += l->pmd[i] == R_THP;
	}
	kunit_info(test, "%u layouts, %u with a signal mid-unmerge, %u THPs", RANDOM_LAYOUTS,
		   signalled, thps);
}

/* What a count of the walk should find: the non-none entries of the layout. */
static void expected_counts(unsigned long base, const u8 *kinds, struct mm_rs_walk_counts *c)
{
	unsigned long block = ULONG_MAX;
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < K_PAGES; i++) {
		unsigned long addr = base + i * PAGE_SIZE;

		if (kinds[i] == K_NONE || kinds[i] == K_THP)
			continue;
		c->entries++;
		c->sum += addr;
		if (!c->first)
			c->first = addr;
		c->last = addr;
		if (addr / PMD_SIZE != block) {
			block = addr / PMD_SIZE;
			c->tables++;
		}
	}
}

/*
 * The walk over the layout visits every entry that is not none, once, in
 * order, and nothing else; meets the THP as one leaf; pauses between the
 * four PMD ranges. Stopped at its third entry and resumed, it visits the
 * same, and says where it stopped.
 */
static void walk_visits_each_entry(struct kunit *test)
{
	u8 *kinds = kunit_kzalloc(test, K_PAGES, GFP_KERNEL);
	u8 *after = kunit_kzalloc(test, K_PAGES, GFP_KERNEL);
	struct mm_rs_walk_counts want, got;
	struct vm_area_struct *vma;
	unsigned long base, third = 0;
	unsigned int i, n = 0;
	pmd_t *pmd;

	KUNIT_ASSERT_NOT_NULL(test, kinds);
	KUNIT_ASSERT_NOT_NULL(test, after);
	base = build_layout(test, 8 * PUD_SIZE);
	mmap_read_lock(current->mm);
	vma = vma_lookup(current->mm, base);
	MM_RS_ASSERT_MMAP_READ(test, read_kinds(vma, base, kinds), current->mm);
	expected_counts(base, kinds, &want);
	want.leaves = 1;
	want.pauses = K_PMDS - 1;
	KUNIT_EXPECT_EQ(test, mm_rs_walk_count(vma, base, base + K_LEN, 0, &got), 0);
	KUNIT_EXPECT_MEMEQ(test, &got, &want, sizeof(want));

	for (i = 0; i < K_PAGES && n < 3; i++)
		if (kinds[i] != K_NONE && kinds[i] != K_THP && ++n == 3)
			third = base + i * PAGE_SIZE;
	want.stopped = third;
	KUNIT_EXPECT_EQ(test, mm_rs_walk_count(vma, base, base + K_LEN, 3, &got), 0);
	KUNIT_EXPECT_MEMEQ(test, &got, &want, sizeof(want));

	/*
	 * Stopped at every leaf and every pause: the one THP leaf once (skipped
	 * whole, not page by page), every entry, and each boundary between PMD
	 * ranges once but the one after the leaf, whose stop took its place.
	 */
	KUNIT_EXPECT_EQ(test, mm_rs_walk_stops(vma, base, base + K_LEN, &got), 0);
	KUNIT_EXPECT_EQ(test, got.leaves, 1);
	KUNIT_EXPECT_EQ(test, got.pauses, K_PMDS - 2);
	KUNIT_EXPECT_EQ(test, got.entries, want.entries);
	/* The leaf stop is where the THP starts: its first page in the layout. */
	for (i = 0; i < K_PAGES && kinds[i] != K_THP; i++)
		;
	KUNIT_EXPECT_LT(test, i, K_PAGES);
	KUNIT_EXPECT_EQ(test, got.leaf_at, base + i * PAGE_SIZE);

	/* A range inside one table: only its entries, no pause. */
	memset(&want, 0, sizeof(want));
	want.entries = 2;
	want.tables = 1;
	want.first = base + PG(0, 99) * PAGE_SIZE;
	want.last = base + PG(0, 100) * PAGE_SIZE;
	want.sum = want.first + want.last;
	KUNIT_EXPECT_EQ(test, mm_rs_walk_count(vma, want.first, want.last + PAGE_SIZE, 0, &got),
			0);
	KUNIT_EXPECT_MEMEQ(test, &got, &want, sizeof(want));

	/* Ranges that are not page-aligned inside the VMA are refused. */
	KUNIT_EXPECT_EQ(test, mm_rs_walk_count(vma, base - PAGE_SIZE, base + K_LEN, 0, &got),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mm_rs_walk_count(vma, base, base + K_LEN + PAGE_SIZE, 0, &got),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mm_rs_walk_count(vma, base + 1, base + K_LEN, 0, &got), -EINVAL);
	KUNIT_EXPECT_EQ(test, mm_rs_walk_count(vma, base + PAGE_SIZE, base, 0, &got), -EINVAL);
	mmap_read_unlock(current->mm);

	/*
	 * A hugetlb VMA is no walk's: another mm's huge_pmd_unshare() may take
	 * its PMD table away without this mmap lock. VM_HUGETLB is set on the
	 * test VMA for the check only, under the mmap write lock, which keeps
	 * every fault and walk of the mm away meanwhile. The walk refuses it,
	 * and the Rust unmerge leaves every entry as it was.
	 */
	mmap_write_lock(current->mm);
	vma = vma_lookup(current->mm, base);
	vm_flags_set(vma, VM_HUGETLB);
	KUNIT_EXPECT_EQ(test, mm_rs_walk_count(vma, base, base + K_LEN, 0, &got), -EINVAL);
	KUNIT_EXPECT_EQ(test, mm_rs_unmerge_ksm_pages(vma, base, base + K_LEN, true), 0);
	vm_flags_clear(vma, VM_HUGETLB);
	mmap_write_unlock(current->mm);
	mmap_read_lock(current->mm);
	MM_RS_ASSERT_MMAP_READ(test, read_kinds(vma_lookup(current->mm, base), base, after),
			       current->mm);
	mmap_read_unlock(current->mm);
	KUNIT_EXPECT_MEMEQ(test, after, kinds, K_PAGES);

	/*
	 * A leaf after a PMD hole, where no pause came first: the first PMD
	 * range zapped with pt_reclaim on, so its table goes, and a walk from
	 * there stops at the THP, with the THP's address, not the walk's start.
	 */
	KUNIT_ASSERT_EQ(test, mm_rs_sysfs_write_test("pt_reclaim", "1"), 1);
	KUNIT_EXPECT_EQ(test, do_madvise(current->mm, base, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_ASSERT_EQ(test, mm_rs_sysfs_write_test("pt_reclaim", "0"), 1);
	mmap_read_lock(current->mm);
	pmd = mm_rs_find_pmd(current->mm, base);
	MM_RS_ASSERT_MMAP_READ(test, !pmd || pmd_none(pmdp_get(pmd)), current->mm);
	vma = vma_lookup(current->mm, base);
	KUNIT_EXPECT_EQ(test, mm_rs_walk_stops(vma, base, base + 2 * PMD_SIZE, &got), 0);
	mmap_read_unlock(current->mm);
	KUNIT_EXPECT_EQ(test, got.leaves, 1);
	KUNIT_EXPECT_EQ(test, got.pauses, 0);
	KUNIT_EXPECT_EQ(test, got.leaf_at, base + PMD_SIZE);
}

/*
 * The entries the Rust walk reads at each level (mm_rs_test_race()'s
 * MM_RS_RACE_WALK_*_READ), for the walk of the mm in @mm only.
 */
struct walk_reads {
	unsigned long p4d, pud, pmd;
};

static struct {
	struct mm_struct *mm;
	struct walk_reads n;
} walk_reads;

static void count_walk_reads(enum mm_rs_race where, struct mm_struct *mm,
			     unsigned long addr)
{
	if (mm != walk_reads.mm)
		return;
	if (where == MM_RS_RACE_WALK_P4D_READ)
		walk_reads.n.p4d++;
	else if (where == MM_RS_RACE_WALK_PUD_READ)
		walk_reads.n.pud++;
	else if (where == MM_RS_RACE_WALK_PMD_READ)
		walk_reads.n.pmd++;
}

/*
 * A counting walk over [@start, @end) of the test mm's VMA there, which must
 * read @p4d, @pud and @pmd entries at those levels: one per range of the level
 * it covers below an entry that is not none, and none beyond its table.
 */
static void walk_range(struct kunit *test, unsigned long start, unsigned long end,
		       struct mm_rs_walk_counts *got, unsigned long p4d,
		       unsigned long pud, unsigned long pmd)
{
	struct walk_reads want = { .p4d = p4d, .pud = pud, .pmd = pmd };
	struct vm_area_struct *vma;

	memset(&walk_reads, 0, sizeof(walk_reads));
	walk_reads.mm = current->mm;
	kunit_activate_static_stub(test, mm_rs_test_race, count_walk_reads);
	mmap_read_lock(current->mm);
	vma = vma_lookup(current->mm, start);
	KUNIT_EXPECT_NOT_NULL(test, vma);
	KUNIT_EXPECT_EQ(test, vma ? mm_rs_walk_count(vma, start, end, 0, got) : -EFAULT, 0);
	mmap_read_unlock(current->mm);
	kunit_deactivate_static_stub(test, mm_rs_test_race);
	walk_reads.mm = NULL;
	KUNIT_EXPECT_EQ(test, walk_reads.n.p4d, want.p4d);
	KUNIT_EXPECT_EQ(test, walk_reads.n.pud, want.pud);
	KUNIT_EXPECT_EQ(test, walk_reads.n.pmd, want.pmd);
}

/*
 * Holes are skipped at the level they are found, and cost no pause: over
 * three empty PUD ranges and then one PMD range with a page, the walk
 * pauses nowhere (the one table it visits ends the walk); over an empty
 * range of the level above (P4D, or PGD where that is folded) between two
 * pages, once, after the first page's table. (Until 2026-11-27 the walk
 * descended from the PGD again for every PMD range and paused after each
 * step, holes included: 3 and 2 pauses here.) Each level reads one entry per
 * range it covers, under the entries above that are not none: a hole costs
 * one read at its own level and none below it, and no level reads on past the
 * end of the range above it (as a P4D loop bounded by the walk's end, not its
 * PGD entry's, would on x86_64, whose P4D is folded: its PUD loop would read
 * on into the page after the PUD table).
 */
static void walk_skips_holes_per_level(struct kunit *test)
{
	unsigned long bound = 8 * PUD_SIZE, base = bound - 3 * PUD_SIZE;
	unsigned long len = 3 * PUD_SIZE + PMD_SIZE, page = bound + 5 * PAGE_SIZE;
	struct mm_rs_walk_counts want = { }, got;

	/* The layouts below need a PUD and a P4D level of their own. */
	BUILD_BUG_ON(PUD_SIZE <= PMD_SIZE || P4D_SIZE <= PUD_SIZE);

	map_at(test, base, len);
	KUNIT_ASSERT_EQ(test, write_byte(page, 1), 0);
	want.entries = 1;
	want.tables = 1;
	want.first = page;
	want.last = page;
	want.sum = page;
	want.pauses = 0;
	/* One P4D entry, four PUD entries (three none), one PMD entry. */
	walk_range(test, base, base + len, &got, 1, 4, 1);
	KUNIT_EXPECT_MEMEQ(test, &got, &want, sizeof(want));

	/*
	 * A hole in the level above the PUD (the P4D, or the PGD where the
	 * P4D is folded into it: 512 GiB with 4K pages), between two pages in
	 * the PMD ranges on either side of it: one pause, after the first.
	 */
	base = P4D_SIZE - PMD_SIZE;
	len = P4D_SIZE + 2 * PMD_SIZE;
	map_at(test, base, len);
	KUNIT_ASSERT_EQ(test, write_byte(base, 1), 0);
	KUNIT_ASSERT_EQ(test, write_byte(base + len - PAGE_SIZE, 1), 0);
	memset(&want, 0, sizeof(want));
	want.entries = 2;
	want.tables = 2;
	want.first = base;
	want.last = base + len - PAGE_SIZE;
	want.sum = want.first + want.last;
	want.pauses = 1;
	/*
	 * Three P4D entries, the middle one none; the last PUD entry of the
	 * first and the first of the third; under each, one PMD entry.
	 */
	walk_range(test, base, base + len, &got, 3, 2, 2);
	KUNIT_EXPECT_MEMEQ(test, &got, &want, sizeof(want));

	/*
	 * Holes among the PMD entries of one table: pages in the first and the
	 * sixth of six PMD ranges, four none between: one pause, after the
	 * first's table, none after the holes.
	 */
	base = 16 * PUD_SIZE;
	len = 6 * PMD_SIZE;
	map_at(test, base, len);
	KUNIT_ASSERT_EQ(test, write_byte(base + 3 * PAGE_SIZE, 1), 0);
	KUNIT_ASSERT_EQ(test, write_byte(base + len - PAGE_SIZE, 1), 0);
	memset(&want, 0, sizeof(want));
	want.entries = 2;
	want.tables = 2;
	want.first = base + 3 * PAGE_SIZE;
	want.last = base + len - PAGE_SIZE;
	want.sum = want.first + want.last;
	want.pauses = 1;
	/* One P4D entry, one PUD entry, six PMD entries (four none). */
	walk_range(test, base, base + len, &got, 1, 1, 6);
	KUNIT_EXPECT_MEMEQ(test, &got, &want, sizeof(want));
}

/*
 * Reads /sys/kernel/mm/ksm/@name into @old (if not NULL) and writes @val to
 * it, through a private mount of sysfs (KUnit runs before user space mounts
 * one). 0 or an error.
 */
static int ksm_sysfs(const char *name, char *old, size_t size, const char *val)
{
	char path[48];

	snprintf(path, sizeof(path), "kernel/mm/ksm/%s", name);
	return mm_rs_kern_file("sysfs", path, old, size, val);
}

/* The pages of the real-KSM layout: in two PMD ranges, table edges included. */
static const unsigned int same_at[] = { PG(0, 0), PG(0, 5), PG(0, PTRS_PER_PTE - 1), PG(1, 3) };
static const unsigned int unique_at[] = { PG(0, 6), PG(1, 4) };
#define KSM_FILL	0x5a

static int fill_page(unsigned long addr, u8 val)
{
	u8 buf[64];
	unsigned long off;

	memset(buf, val, sizeof(buf));
	for (off = 0; off < PAGE_SIZE; off += sizeof(buf))
		if (copy_to_user((void __user *)(addr + off), buf, sizeof(buf)))
			return -EFAULT;
	return 0;
}

/* Two PMD ranges at @base, mergeable: identical pages, and unique ones. */
static void build_ksm_layout(struct kunit *test, unsigned long base)
{
	unsigned int i;

	map_at(test, base, 2 * PMD_SIZE);
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, base, 2 * PMD_SIZE, MADV_MERGEABLE), 0);
	for (i = 0; i < ARRAY_SIZE(same_at); i++)
		KUNIT_ASSERT_EQ(test, fill_page(base + same_at[i] * PAGE_SIZE, KSM_FILL), 0);
	for (i = 0; i < ARRAY_SIZE(unique_at); i++) {
		unsigned long addr = base + unique_at[i] * PAGE_SIZE;

		KUNIT_ASSERT_EQ(test, fill_page(addr, KSM_FILL), 0);
		KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, &addr, sizeof(addr)), 0);
	}
}

/* The kinds of the pages of the real-KSM layout at @base, in order. */
static void ksm_kinds(unsigned long base, u8 *kinds)
{
	struct mm_struct *mm = current->mm;
	unsigned int i, n = 0;

	mmap_read_lock(mm);
	for (i = 0; i < ARRAY_SIZE(same_at) + ARRAY_SIZE(unique_at); i++) {
		unsigned int pg = i < ARRAY_SIZE(same_at) ? same_at[i] :
			unique_at[i - ARRAY_SIZE(same_at)];
		unsigned long addr = base + pg * PAGE_SIZE;
		pmd_t *pmd = mm_rs_find_pmd(mm, addr);
		spinlock_t *ptl;	/* the PTE table's lock */
		pte_t *pte;

		kinds[n] = K_NONE;
		if (pmd && !pmd_none(pmdp_get(pmd))) {
			pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
			if (pte) {
				kinds[n] = kind_of(vma_lookup(mm, addr), addr, ptep_get(pte));
				pte_unmap_unlock(pte, ptl);
			}
		}
		n++;
	}
	mmap_read_unlock(mm);
}

/* How a layout is unmerged. */
/* Whether the page mapped at @addr of the test mm is a KSM page. */
static bool page_is_ksm(unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	pmd_t *pmd;
	spinlock_t *ptl;	/* the PTE table's lock */
	pte_t *pte;
	bool ksm = false;

	mmap_read_lock(mm);
	pmd = mm_rs_find_pmd(mm, addr);
	if (pmd && !pmd_none(pmdp_get(pmd))) {
		pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
		if (pte) {
			ksm = kind_of(vma_lookup(mm, addr), addr, ptep_get(pte)) == K_KSM;
			pte_unmap_unlock(pte, ptl);
		}
	}
	mmap_read_unlock(mm);
	return ksm;
}

enum unmerge_path {
	PATH_C,		/* 6.12's C loop */
	PATH_RUST,	/* mm-rs's range walk */
	PATH_REF,	/* the C loop on the callback walk (ksm_unmerge_ref) */
	PATH_RANGE,	/* C on mainline's 2025 range walk (ksm_unmerge_ref_range) */
};

static void set_path(struct kunit *test, enum unmerge_path path)
{
	set_rust(test, path == PATH_RUST);
#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("ksm_unmerge_ref",
						       path == PATH_REF ? "1" : "0"), 1);
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("ksm_unmerge_ref_range",
						       path == PATH_RANGE ? "1" : "0"), 1);
#endif
}

static const enum unmerge_path ksm_paths[] = {
	PATH_C,
	PATH_RUST,
#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
	PATH_REF,
	PATH_RANGE,
#endif
};

#define KSM_NR	(ARRAY_SIZE(same_at) + ARRAY_SIZE(unique_at))

/*
 * Runs ksmd (1000 pages every millisecond) until @merged says its pages are
 * merged, for 10 s at most, then stops it and puts its knobs back.
 */
static void ksmd_run_until(struct kunit *test, bool (*merged)(void *), void *arg)
{
	char run[8], scan[16], sleep[16];
	unsigned int tries;
	bool done = false;

	KUNIT_ASSERT_EQ(test, ksm_sysfs("sleep_millisecs", sleep, sizeof(sleep), "1"), 0);
	KUNIT_ASSERT_EQ(test, ksm_sysfs("pages_to_scan", scan, sizeof(scan), "1000"), 0);
	KUNIT_ASSERT_EQ(test, ksm_sysfs("run", run, sizeof(run), "1"), 0);
	for (tries = 0; tries < 500 && !done; tries++) {
		done = merged(arg);
		if (!done)
			msleep(20);
	}
	KUNIT_EXPECT_EQ(test, ksm_sysfs("run", NULL, 0, "0"), 0);
	KUNIT_EXPECT_EQ(test, ksm_sysfs("pages_to_scan", NULL, 0, scan), 0);
	KUNIT_EXPECT_EQ(test, ksm_sysfs("sleep_millisecs", NULL, 0, sleep), 0);
	KUNIT_ASSERT_EQ(test, strcmp(run, "0"), 0);
	KUNIT_ASSERT_TRUE_MSG(test, done, "ksmd did not merge the layouts in 10 s");
}

struct fixed_layouts {
	const unsigned long *base;
	unsigned int np;
};

static bool fixed_layouts_merged(void *arg)
{
	const struct fixed_layouts *f = arg;
	u8 want[KSM_NR], got[KSM_NR];
	unsigned int p;

	memset(want, K_ANON_WRITE, KSM_NR);
	memset(want, K_KSM, ARRAY_SIZE(same_at));
	for (p = 0; p < f->np; p++) {
		ksm_kinds(f->base[p], got);
		if (memcmp(got, want, KSM_NR))
			return false;
	}
	return true;
}

/* ksmd merges the identical pages of the real-KSM layouts at @base[0..@np). */
static void ksmd_merge(struct kunit *test, const unsigned long *base, unsigned int np)
{
	struct fixed_layouts f = { .base = base, .np = np };

	ksmd_run_until(test, fixed_layouts_merged, &f);
}

/*
 * Real KSM pages, merged by ksmd: MADV_UNMERGEABLE on each path of
 * ksm_paths[] replaces each by an exclusive copy with the same contents and
 * leaves the unique pages alone; the paths end the same. One layout a path,
 * 8 PUD_SIZE apart.
 */
static void unmerge_ksm_pages_same_as_c(struct kunit *test)
{
	const unsigned int np = ARRAY_SIZE(ksm_paths);
	unsigned long base[ARRAY_SIZE(ksm_paths)];
	u8 want[KSM_NR], got[ARRAY_SIZE(ksm_paths)][KSM_NR];
	long anon[ARRAY_SIZE(ksm_paths)];
	unsigned int i, p;
	u8 v;

	for (p = 0; p < np; p++) {
		base[p] = (8 + 8 * p) * PUD_SIZE;
		build_ksm_layout(test, base[p]);
	}
	ksmd_merge(test, base, np);

	for (p = 0; p < np; p++) {
		anon[p] = mm_rs_anon_pages(current->mm);
		set_path(test, ksm_paths[p]);
		KUNIT_EXPECT_EQ_MSG(test, do_madvise(current->mm, base[p], 2 * PMD_SIZE,
						     MADV_UNMERGEABLE), 0, "path %u", p);
		anon[p] = mm_rs_anon_pages(current->mm) - anon[p];
	}
	set_path(test, PATH_RUST);

	memset(want, K_ANON_WRITE, KSM_NR);
	memset(want, K_ANON, ARRAY_SIZE(same_at));
	for (p = 0; p < np; p++) {
		ksm_kinds(base[p], got[p]);
		KUNIT_EXPECT_MEMEQ_MSG(test, got[p], want, KSM_NR, "path %u", p);
		/* A mapped KSM page counts in MM_ANONPAGES, as its copy does. */
		KUNIT_EXPECT_EQ_MSG(test, anon[p], 0, "path %u", p);
		for (i = 0; i < ARRAY_SIZE(same_at); i++) {
			KUNIT_ASSERT_EQ(test, read_byte(base[p] + same_at[i] * PAGE_SIZE + 100, &v),
					0);
			KUNIT_EXPECT_EQ_MSG(test, v, KSM_FILL, "path %u", p);
		}
	}
}

/*
 * The random sweep once more, with real KSM pages: each layout of
 * random_layout() (or edge_layout()) with its KSM zero pages made pages that
 * ksmd merges (KSM_FILL throughout, identical to each other), built twice at
 * once, and merged by ksmd before C unmerges one copy and Rust the other.
 * Such layouts have no THP (ksmd would split one to merge its zero-filled
 * pages), and their anonymous pages are unique (their address at offset
 * 8), so that ksmd merges exactly the pages meant to be KSM pages. Their
 * number is even (each layout twice): with max_page_sharing's chains of
 * 256, no KSM_FILL page is ever left alone, unmerged.
 */
#define RANDOM_KSM_LAYOUTS	8

struct random_ksm_set {
	struct random_layout l[RANDOM_KSM_LAYOUTS];
	unsigned long base[RANDOM_KSM_LAYOUTS][2];	/* C's copy, Rust's */
	u8 kinds[K_PAGES];				/* random_ksm_merged()'s */
};

/* The kind a page of @l has once ksmd has merged it. */
static u8 random_ksm_kind(const struct random_layout *l, unsigned int i)
{
	switch (l->page[i]) {
	case R_KSM_ZERO:
		return K_KSM;
	case R_ANON:
		return K_ANON_WRITE;
	case R_ZERO:
		return K_ZERO;
	default:
		return K_NONE;
	}
}

static void build_random_ksm(struct kunit *test, unsigned long base, const struct random_layout *l)
{
	unsigned int i;
	u8 v;

	build_random_tables(test, base, l);
	for (i = 0; i < K_PAGES; i++) {
		unsigned long addr = base + i * PAGE_SIZE;

		switch (l->page[i]) {
		case R_ANON:
			KUNIT_ASSERT_EQ(test, write_byte(addr, random_data(i)), 0);
			KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)(addr + 8), &addr,
							   sizeof(addr)), 0);
			break;
		case R_ZERO:
			KUNIT_ASSERT_EQ(test, read_byte(addr, &v), 0);
			break;
		case R_KSM_ZERO:
			KUNIT_ASSERT_EQ(test, fill_page(addr, KSM_FILL), 0);
			break;
		}
	}
}

/* Every copy of every layout of @arg as random_ksm_kind() says. */
static bool random_ksm_merged(void *arg)
{
	struct random_ksm_set *set = arg;
	struct mm_struct *mm = current->mm;
	u8 *kinds = set->kinds;
	unsigned int n, copy, i;
	bool ok = true;

	for (n = 0; n < RANDOM_KSM_LAYOUTS && ok; n++)
		for (copy = 0; copy < 2 && ok; copy++) {
			mmap_read_lock(mm);
			ok = read_kinds(vma_lookup(mm, set->base[n][copy]), set->base[n][copy],
					kinds);
			mmap_read_unlock(mm);
			for (i = 0; i < K_PAGES && ok; i++)
				ok = kinds[i] == random_ksm_kind(&set->l[n], i);
		}
	return ok;
}

/*
 * Seeded random layouts of real KSM pages, merged by ksmd, unmerged by
 * 6.12's C loop and by Rust: the same return, unshare faults, page tables,
 * contents and counters, case by case; and what 6.12 promises, on C's: every
 * KSM page (or every one before the signal) an exclusive copy of its
 * contents, the rest as it was.
 */
static void unmerge_random_ksm_pages_same_as_c(struct kunit *test)
{
	struct random_ksm_set *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	struct random_result *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);
	struct random_result *rr = kunit_kzalloc(test, sizeof(*rr), GFP_KERNEL);
	struct mm_rs_probe *probe = mm_rs_probe(test, "mm_rs_unmerge_ksm_pages");
	unsigned int n, i, p, signalled = 0, ksm = 0;
	struct rnd_state rs;

	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_NOT_NULL(test, rc);
	KUNIT_ASSERT_NOT_NULL(test, rr);
	prandom_seed_state(&rs, mm_rs_kunit_seed(test, 0x6b736d50));
	for (n = 0; n < RANDOM_KSM_LAYOUTS; n++) {
		struct random_layout *l = &set->l[n];

		/* an edge of each kind */
		if (n % 4 == 3 || n % 8 == 1)
			edge_layout(&rs, l, n % 8 == 7 ? EDGE_END :
					    n % 8 == 3 ? EDGE_HOLES : EDGE_LAST_TABLE);
		else
			random_layout(&rs, l);
		for (p = 0; p < K_PMDS; p++)
			if (l->pmd[p] == R_THP)
				l->pmd[p] = R_NO_TABLE;
		/* PUD_SIZE - 2 PMD aligned, as build_random()'s, 2 PUD_SIZE apart */
		for (i = 0; i < 2; i++) {
			set->base[n][i] = (8 + 2 * (2 * n + i)) * PUD_SIZE - 2 * PMD_SIZE;
			build_random_ksm(test, set->base[n][i], l);
		}
		ksm += l->nr_ksm;
	}
	ksmd_run_until(test, random_ksm_merged, set);

	for (n = 0; n < RANDOM_KSM_LAYOUTS; n++) {
		const struct random_layout *l = &set->l[n];

		memset(rc, 0, sizeof(*rc));
		memset(rr, 0, sizeof(*rr));
		unmerge_random(test, set->base[n][0], l, false, probe, rc);
		unmerge_random(test, set->base[n][1], l, true, probe, rr);
		expect_random_unmerged(test, n, l, rc, rr, K_KSM);
		/* a KSM page counts in MM_ANONPAGES, as its copy does */
		KUNIT_EXPECT_EQ_MSG(test, rc->anon, 0, "layout %u", n);
		for (i = 0; i < K_PAGES; i++) {
			u8 want = l->page[i] == R_KSM_ZERO ? KSM_FILL :
				  l->page[i] == R_ANON ? random_data(i) : 0;

			if (l->page[i] != R_NONE)
				KUNIT_EXPECT_EQ_MSG(test, rc->data[i], want,
						    "layout %u page %u", n, i);
			/* the rest as it was */
			if (l->page[i] == R_KSM_ZERO && rc->kinds[i] != K_KSM)
				KUNIT_EXPECT_EQ_MSG(test, rc->kinds[i], K_ANON,
						    "layout %u page %u", n, i);
			else if (l->page[i] != R_KSM_ZERO)
				KUNIT_EXPECT_EQ_MSG(test, rc->kinds[i], random_ksm_kind(l, i),
						    "layout %u page %u", n, i);
		}
		signalled += !!l->signal_after;
	}
	kunit_info(test, "%u layouts of %u KSM pages in all (each built twice: %u merged by ksmd), %u with a signal mid-unmerge",
		   RANDOM_KSM_LAYOUTS, ksm, 2 * ksm, signalled);
}

#ifdef CONFIG_MIGRATION
/* The MADV_UNMERGEABLE unmerge_under_migration() runs beside a migration. */
struct unmerge_beside {
	struct mm_struct *mm;
	unsigned long base;
	struct mm_rs_probe *waits;	/* migration_entry_wait() */
	struct completion done;
	bool waited;			/* it waited on the migration entry */
	int ret;
};

static int unmerge_beside_fn(void *data)
{
	struct unmerge_beside *u = data;

	kthread_use_mm(u->mm);
	u->ret = do_madvise(u->mm, u->base, 2 * PMD_SIZE, MADV_UNMERGEABLE);
	kthread_unuse_mm(u->mm);
	complete(&u->done);
	return 0;
}

/*
 * In the migration's window: starts the MADV_UNMERGEABLE in a thread of its
 * own, and lets the migration go on once that thread waits on the migration
 * entry of the KSM page (it cannot go on before: the page stays locked).
 */
static void unmerge_beside_window(void *arg)
{
	struct unmerge_beside *u = arg;
	struct task_struct *t;
	int i;

	t = kthread_run(unmerge_beside_fn, u, "mm_rs_unmerge");
	if (IS_ERR(t)) {
		u->ret = PTR_ERR(t);
		complete(&u->done);
		return;
	}
	for (i = 0; i < 250 && !u->waited; i++) {
		msleep(20);
		u->waited = mm_rs_probe_hits(u->waits) > 0;
	}
}

/*
 * A real KSM page, merged by ksmd, under the kernel's own migration
 * (mm_rs_migrate_racing()) when MADV_UNMERGEABLE runs: every mapping of it
 * is a migration entry, so the unshare fault waits for the migration
 * (migration_entry_wait()) and then breaks the page it moved to. On 6.12's
 * C and on Rust: the same exclusive copies, contents and counters as without
 * the migration, and the thread really waited on the entry.
 */
static void unmerge_under_migration(struct kunit *test)
{
	static const enum unmerge_path paths[] = { PATH_C, PATH_RUST };
	struct unmerge_beside u = { };
	u8 want[KSM_NR], got[KSM_NR];
	unsigned int i, p;
	struct page *page;
	int windows, ret;
	long anon;
	u8 v;

	memset(want, K_ANON_WRITE, KSM_NR);
	memset(want, K_ANON, ARRAY_SIZE(same_at));
	u.waits = mm_rs_probe(test, "migration_entry_wait");
	for (p = 0; p < ARRAY_SIZE(paths); p++) {
		u.base = (72 + 8 * p) * PUD_SIZE;
		build_ksm_layout(test, u.base);
		u.mm = current->mm;	/* the test mm, attached by the first mapping */
		ksmd_merge(test, &u.base, 1);
		KUNIT_ASSERT_EQ(test, get_user_pages_fast(u.base + same_at[0] * PAGE_SIZE, 1, 0,
							  &page), 1);
		KUNIT_ASSERT_TRUE(test, folio_test_ksm(page_folio(page)));
		set_path(test, paths[p]);
		init_completion(&u.done);
		u.waited = false;
		mm_rs_probe_hits(u.waits);
		anon = mm_rs_anon_pages(u.mm);
		ret = mm_rs_migrate_racing(test, page_folio(page), unmerge_beside_window, &u,
					   &windows);
		KUNIT_ASSERT_EQ(test, windows, 1);
		KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&u.done, 30 * HZ), 0,
				    "path %u: MADV_UNMERGEABLE did not end", p);
		set_path(test, PATH_RUST);

		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "path %u: the KSM page did not move", p);
		KUNIT_EXPECT_TRUE_MSG(test, u.waited, "path %u: no wait on the entry", p);
		KUNIT_EXPECT_EQ_MSG(test, u.ret, 0, "path %u", p);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_anon_pages(u.mm) - anon, 0, "path %u", p);
		ksm_kinds(u.base, got);
		KUNIT_EXPECT_MEMEQ_MSG(test, got, want, KSM_NR, "path %u", p);
		for (i = 0; i < ARRAY_SIZE(same_at); i++) {
			unsigned long addr = u.base + same_at[i] * PAGE_SIZE;

			KUNIT_ASSERT_EQ(test, read_byte(addr + 100, &v), 0);
			KUNIT_EXPECT_EQ_MSG(test, v, KSM_FILL, "path %u", p);
		}
	}
}
#endif /* CONFIG_MIGRATION */

/*
 * KSM over 64K mTHPs (contpte-mapped on arm64): two blocks a path, the first
 * of 16 identical pages, the second of unique ones, faulted as 64K folios.
 * ksmd merges the first block's pages (splitting its folio); then
 * MADV_UNMERGEABLE, on each path of ksm_paths[], gives each an exclusive copy
 * with its contents. Before, between and after, no entry keeps a contiguous
 * bit its block does not share, and the unique block keeps its data.
 */
static void unmerge_keeps_contpte(struct kunit *test)
{
	const unsigned int np = ARRAY_SIZE(ksm_paths), nr = 16;
	struct ksm_ctx *c = test->priv;
	struct thp_knobs k = { .tpf = c->saved.tpf };
	char run[8], scan[16], sleep[16];
	unsigned long base[ARRAY_SIZE(ksm_paths)], addr;
	unsigned int p, i, tries, merged = 0;
	pte_t *ptes;
	u8 v;

	ptes = kunit_kcalloc(test, 2 * nr, sizeof(*ptes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	mm_rs_knobs_only(&k, ilog2(nr), KNOB_ALWAYS);
	mm_rs_knobs_set(&k);
	for (p = 0; p < np; p++) {
		base[p] = (40 + 8 * p) * PUD_SIZE;
		map_at(test, base[p], 2 * nr * PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, do_madvise(current->mm, base[p], 2 * nr * PAGE_SIZE,
						 MADV_MERGEABLE), 0);
		for (i = 0; i < 2 * nr; i++) {
			addr = base[p] + i * PAGE_SIZE;
			KUNIT_ASSERT_EQ(test, fill_page(addr, KSM_FILL), 0);
			if (i >= nr)
				KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, &addr,
								   sizeof(addr)), 0);
		}
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(current->mm, base[p], ptes, 2 * nr));
		for (i = 0; i < 2 * nr; i++)
			KUNIT_ASSERT_EQ_MSG(test, mm_rs_pte_cont(ptes[i]),
					    mm_rs_cont_order(ilog2(nr)), "path %u: entry %u", p, i);
	}
	mm_rs_knobs_set(&c->saved);

	KUNIT_ASSERT_EQ(test, ksm_sysfs("sleep_millisecs", sleep, sizeof(sleep), "1"), 0);
	KUNIT_ASSERT_EQ(test, ksm_sysfs("pages_to_scan", scan, sizeof(scan), "1000"), 0);
	KUNIT_ASSERT_EQ(test, ksm_sysfs("run", run, sizeof(run), "1"), 0);
	for (tries = 0; tries < 500 && merged < np * nr; tries++) {
		merged = 0;
		for (p = 0; p < np; p++)
			for (i = 0; i < nr; i++)
				merged += page_is_ksm(base[p] + i * PAGE_SIZE);
		if (merged < np * nr)
			msleep(20);
	}
	KUNIT_EXPECT_EQ(test, ksm_sysfs("run", NULL, 0, "0"), 0);
	KUNIT_EXPECT_EQ(test, ksm_sysfs("pages_to_scan", NULL, 0, scan), 0);
	KUNIT_EXPECT_EQ(test, ksm_sysfs("sleep_millisecs", NULL, 0, sleep), 0);
	KUNIT_ASSERT_EQ_MSG(test, merged, np * nr, "ksmd did not merge the blocks in 10 s");

	for (p = 0; p < np; p++) {
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(current->mm, base[p], ptes, 2 * nr));
		mm_rs_expect_cont_sane(test, ptes, 2 * nr, "merged");
		set_path(test, ksm_paths[p]);
		KUNIT_EXPECT_EQ_MSG(test, do_madvise(current->mm, base[p], 2 * nr * PAGE_SIZE,
						     MADV_UNMERGEABLE), 0, "path %u", p);
		KUNIT_ASSERT_TRUE(test, mm_rs_read_ptes(current->mm, base[p], ptes, 2 * nr));
		mm_rs_expect_cont_sane(test, ptes, 2 * nr, "unmerged");
		for (i = 0; i < 2 * nr; i++) {
			addr = base[p] + i * PAGE_SIZE;
			KUNIT_EXPECT_FALSE_MSG(test, page_is_ksm(addr), "path %u: page %u", p, i);
			KUNIT_ASSERT_EQ(test, read_byte(addr + 100, &v), 0);
			KUNIT_EXPECT_EQ_MSG(test, v, KSM_FILL, "path %u: page %u", p, i);
			if (i >= nr) {
				unsigned long stamp = 0;

				KUNIT_ASSERT_EQ(test, copy_from_user(&stamp, (void __user *)addr,
								     sizeof(stamp)), 0);
				KUNIT_EXPECT_EQ_MSG(test, stamp, addr, "path %u: page %u", p, i);
			}
		}
	}
	set_path(test, PATH_RUST);
}

/*
 * run = 2: unmerge_and_remove_all_rmap_items(), KSM's other caller of
 * unmerge_ksm_pages(), unmerges every mergeable VMA of every mm KSM scans.
 * On C and on Rust, the KSM pages of a layout ksmd merged become exclusive
 * copies with their contents, the unique pages stay as they were, and the
 * Rust entry point runs for Rust only.
 */
static void run_2_unmerges_all(struct kunit *test)
{
	struct mm_rs_probe *probe = mm_rs_probe(test, "mm_rs_unmerge_ksm_pages");
	u8 want[KSM_NR], got[KSM_NR];
	unsigned long base;
	unsigned int i;
	int rust;
	u8 v;

	KUNIT_ASSERT_NOT_NULL(test, probe);
	memset(want, K_ANON_WRITE, KSM_NR);
	memset(want, K_ANON, ARRAY_SIZE(same_at));
	for (rust = 0; rust < 2; rust++) {
		base = (8 + 8 * rust) * PUD_SIZE;
		build_ksm_layout(test, base);
		ksmd_merge(test, &base, 1);
		set_rust(test, rust);
		mm_rs_probe_hits(probe);	/* counts afresh */
		KUNIT_EXPECT_EQ_MSG(test, ksm_sysfs("run", NULL, 0, "2"), 0, "rust %d", rust);
		KUNIT_EXPECT_EQ(test, mm_rs_probe_hits(probe) > 0, rust);
		KUNIT_EXPECT_EQ(test, ksm_sysfs("run", NULL, 0, "0"), 0);
		ksm_kinds(base, got);
		KUNIT_EXPECT_MEMEQ_MSG(test, got, want, KSM_NR, "rust %d", rust);
		for (i = 0; i < ARRAY_SIZE(same_at); i++) {
			unsigned long addr = base + same_at[i] * PAGE_SIZE + 100;

			KUNIT_ASSERT_EQ(test, read_byte(addr, &v), 0);
			KUNIT_EXPECT_EQ_MSG(test, v, KSM_FILL, "rust %d", rust);
		}
	}
	set_rust(test, true);
}

/*
 * The switch, both ways, through what runs and what it does; values other
 * than 0 and 1 are refused.
 */
static void switch_both_ways(struct kunit *test)
{
	struct unmerge_result *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long base;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("ksm_unmerge", "2"), -EINVAL);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("ksm_unmerge", "x"), -EINVAL);
	mm_rs_expect_switch_strict(test, "ksm_unmerge", true);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("ksm_unmerge", "1"), -ENOENT);
	base = build_layout(test, 8 * PUD_SIZE);
	unmerge(test, base, false, false, r);
	KUNIT_EXPECT_EQ(test, r->rust_calls, 0);
	KUNIT_EXPECT_EQ(test, r->ksm_zero_mm, -(long)ARRAY_SIZE(ksm_zero_at));
	base = build_layout(test, 16 * PUD_SIZE);
	unmerge(test, base, true, false, r);
	KUNIT_EXPECT_EQ(test, r->rust_calls, 1);
	KUNIT_EXPECT_EQ(test, r->ksm_zero_mm, -(long)ARRAY_SIZE(ksm_zero_at));
}

/*
 * Entries that are neither present nor migration entries (a poison marker
 * here; a swap entry is the same kind for folio_walk_start()) have no folio
 * and are left by both paths, beside a KSM zero page that both break and an
 * anonymous page that both leave. The marker's bits are not read as a zero
 * page: C's is_ksm_zero_pte() is not evaluated for them, nor is Rust's.
 */
static void unmerge_leaves_markers(struct kunit *test)
{
	unsigned long base;
	enum k_kind k[3] = { K_NONE, K_NONE, K_NONE };
	int rust;

	for (rust = 0; rust < 2; rust++) {
		struct mm_struct *mm;
		struct vm_area_struct *vma;
		spinlock_t *ptl;	/* the PTE table's lock */
		pte_t *pte;
		pmd_t *pmd;
		int i;

		base = (8 + 8 * rust) * PUD_SIZE;
		map_at(test, base, PMD_SIZE);
		mm = current->mm;
		KUNIT_ASSERT_EQ(test, do_madvise(mm, base, PMD_SIZE, MADV_MERGEABLE), 0);
		KUNIT_ASSERT_EQ(test, write_byte(base + 2 * PAGE_SIZE, 0x33), 0);
		mmap_write_lock(mm);
		vma = vma_lookup(mm, base);
		MM_RS_ASSERT_MMAP_WRITE(test, place_ksm_zero(vma, base), mm);
		pmd = mm_rs_find_pmd(mm, base);
		pte = pmd ? pte_offset_map_lock(mm, pmd, base + PAGE_SIZE, &ptl) : NULL;
		if (pte) {
			set_pte_at(mm, base + PAGE_SIZE, pte, make_pte_marker(PTE_MARKER_POISONED));
			pte_unmap_unlock(pte, ptl);
		}
		mmap_write_unlock(mm);
		KUNIT_ASSERT_NOT_NULL(test, pte);

		set_rust(test, rust);
		KUNIT_EXPECT_EQ_MSG(test, do_madvise(mm, base, PMD_SIZE, MADV_UNMERGEABLE), 0,
				    "rust %d", rust);
		mmap_read_lock(mm);
		vma = vma_lookup(mm, base);
		pmd = mm_rs_find_pmd(mm, base);
		pte = pmd ? pte_offset_map_lock(mm, pmd, base, &ptl) : NULL;
		for (i = 0; pte && i < 3; i++)
			k[i] = kind_of(vma, base + i * PAGE_SIZE, ptep_get(pte + i));
		if (pte)
			pte_unmap_unlock(pte, ptl);
		mmap_read_unlock(mm);
		KUNIT_ASSERT_NOT_NULL(test, pte);
		KUNIT_EXPECT_EQ_MSG(test, k[0], K_ANON, "rust %d", rust);
		KUNIT_EXPECT_EQ_MSG(test, k[1], K_SWAP, "rust %d", rust);
		KUNIT_EXPECT_EQ_MSG(test, k[2], K_ANON_WRITE, "rust %d", rust);
	}
}

/*
 * A migration entry, readable or writable, in place of the present entry of
 * an order-0 anonymous folio at @addr, as try_to_migrate() leaves it: the
 * folio locked and held. Returns the entry it replaced, for
 * restore_present(); mmap write lock held. *@foliop stays NULL where there is
 * no such folio, for the caller to assert once the lock is dropped.
 */
static pte_t set_migration(struct vm_area_struct *vma, unsigned long addr, bool writable,
			   struct folio **foliop)
{
	struct mm_struct *mm = vma->vm_mm;
	pmd_t *pmd = mm_rs_find_pmd(mm, addr);
	spinlock_t *ptl;	/* the PTE table's lock */
	struct folio *folio;
	swp_entry_t entry;
	pte_t *pte, old;

	*foliop = NULL;
	pte = pmd ? pte_offset_map_lock(mm, pmd, addr, &ptl) : NULL;
	if (!pte)
		return __pte(0);
	old = ptep_get(pte);
	folio = pte_present(old) ? vm_normal_folio(vma, addr, old) : NULL;
	if (!folio || folio_test_large(folio) || !folio_trylock(folio)) {
		pte_unmap_unlock(pte, ptl);
		return old;
	}
	folio_get(folio);
	entry = writable ? make_writable_migration_entry(folio_pfn(folio)) :
			   make_readable_migration_entry(folio_pfn(folio));
	old = ptep_clear_flush(vma, addr, pte);
	set_pte_at(mm, addr, pte, swp_entry_to_pte(entry));
	pte_unmap_unlock(pte, ptl);
	*foliop = folio;
	return old;
}

/* Puts back the entry set_migration() replaced, as remove_migration_ptes(). */
static void restore_present(struct vm_area_struct *vma, unsigned long addr, pte_t old,
			    struct folio *folio)
{
	struct mm_struct *mm = vma->vm_mm;
	pmd_t *pmd = mm_rs_find_pmd(mm, addr);
	spinlock_t *ptl;	/* the PTE table's lock */
	pte_t *pte;

	pte = pmd ? pte_offset_map_lock(mm, pmd, addr, &ptl) : NULL;
	if (WARN_ON(!pte))
		return;
	ptep_get_and_clear(mm, addr, pte);
	set_pte_at(mm, addr, pte, old);
	pte_unmap_unlock(pte, ptl);
	folio_unlock(folio);
	folio_put(folio);
}

/*
 * The walk lends the folio of a migration entry, readable or writable (a KSM
 * page under migration is what unmerging must still break), and of no other
 * entry: over a table with a present page and two migration entries it
 * counts three entries, two of them migrating.
 */
static void walk_counts_migration_entries(struct kunit *test)
{
	unsigned long base = 8 * PUD_SIZE, at[3];
	struct mm_rs_walk_counts want = { }, got = { };
	struct vm_area_struct *vma;
	struct folio *folio[2];
	pte_t old[2];
	int i, ret;

	map_at(test, base, PMD_SIZE);
	for (i = 0; i < 3; i++) {
		at[i] = base + (10 + 20 * i) * PAGE_SIZE;
		KUNIT_ASSERT_EQ(test, write_byte(at[i], 0x50 + i), 0);
	}
	mmap_write_lock(current->mm);
	vma = vma_lookup(current->mm, base);
	old[0] = set_migration(vma, at[0], false, &folio[0]);
	folio[1] = NULL;
	if (folio[0])
		old[1] = set_migration(vma, at[1], true, &folio[1]);
	ret = folio[1] ? mm_rs_walk_count(vma, base, base + PMD_SIZE, 0, &got) : -ENOENT;
	for (i = 0; i < 2; i++)
		if (folio[i])
			restore_present(vma, at[i], old[i], folio[i]);
	mmap_write_unlock(current->mm);
	KUNIT_ASSERT_NOT_NULL_MSG(test, folio[1],
				  "no unlocked order-0 folio to put under migration");

	want.entries = 3;
	want.migration = 2;
	want.tables = 1;
	want.first = at[0];
	want.last = at[2];
	want.sum = at[0] + at[1] + at[2];
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_MEMEQ(test, &got, &want, sizeof(want));
	/* Put back as they were. */
	for (i = 0; i < 3; i++) {
		u8 v = 0;

		KUNIT_EXPECT_EQ(test, read_byte(at[i], &v), 0);
		KUNIT_EXPECT_EQ(test, v, 0x50 + i);
	}
}

/*
 * The unshare fault redirected: failing as break_ksm()'s handle_mm_fault()
 * may fail (with @ret), or, with @ret 0, returning once at each address
 * without breaking anything, as a fault that backed out (a racing update of
 * the entry), then faulting for real.
 */
struct unshare_stub {
	vm_fault_t ret;
	int calls;
	unsigned long last;
};

static struct unshare_stub *unshare_stub;

static vm_fault_t unshare_redirected(struct vm_area_struct *vma, unsigned long addr)
{
	struct unshare_stub *s = unshare_stub;

	s->calls++;
	if (s->ret)
		return s->ret;
	if (addr != s->last) {
		s->last = addr;
		return 0;
	}
	return handle_mm_fault(vma, addr, FAULT_FLAG_UNSHARE | FAULT_FLAG_REMOTE, NULL);
}

/* MADV_UNMERGEABLE in Rust over a fresh layout, the unshare fault redirected. */
static int unmerge_redirected(struct kunit *test, unsigned long bound, vm_fault_t ret,
			      struct unshare_stub *s, u8 *kinds)
{
	unsigned long base = build_layout(test, bound);
	int err;

	*s = (struct unshare_stub){ .ret = ret };
	set_rust(test, true);
	unshare_stub = s;
	kunit_activate_static_stub(test, mm_rs_ksm_unshare_fault, unshare_redirected);
	err = do_madvise(current->mm, base, K_LEN, MADV_UNMERGEABLE);
	kunit_deactivate_static_stub(test, mm_rs_ksm_unshare_fault);
	unshare_stub = NULL;
	mmap_read_lock(current->mm);
	MM_RS_ASSERT_MMAP_READ(test, read_kinds(vma_lookup(current->mm, base), base, kinds),
			       current->mm);
	mmap_read_unlock(current->mm);
	return err;
}

/*
 * An unshare fault that fails, as 6.12's break_ksm() takes it: VM_FAULT_OOM
 * ends the unmerge with -ENOMEM at the first KSM page (madvise() returns it
 * as -EAGAIN); VM_FAULT_SIGBUS or
 * VM_FAULT_SIGSEGV leaves that page (truncation or an unmapping took it) and
 * goes on with the next, the unmerge succeeding; a fault that returns
 * without breaking is tried again at the same address until the page is
 * broken. The C loop calls handle_mm_fault() itself, so this runs on the
 * Rust path only, against break_ksm()'s rules.
 */
static void unmerge_fault_fails(struct kunit *test)
{
	const int nr = ARRAY_SIZE(ksm_zero_at);
	u8 *want = kunit_kzalloc(test, K_PAGES, GFP_KERNEL);
	u8 *kinds = kunit_kzalloc(test, K_PAGES, GFP_KERNEL);
	struct unshare_stub s;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, kinds);
	expected_before(want);

	KUNIT_EXPECT_EQ(test, unmerge_redirected(test, 8 * PUD_SIZE, VM_FAULT_OOM, &s, kinds),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, s.calls, 1);
	KUNIT_EXPECT_MEMEQ(test, kinds, want, K_PAGES);

	KUNIT_EXPECT_EQ(test, unmerge_redirected(test, 16 * PUD_SIZE, VM_FAULT_SIGBUS, &s, kinds),
			0);
	KUNIT_EXPECT_EQ(test, s.calls, nr);
	KUNIT_EXPECT_MEMEQ(test, kinds, want, K_PAGES);

	KUNIT_EXPECT_EQ(test, unmerge_redirected(test, 24 * PUD_SIZE, VM_FAULT_SIGSEGV, &s, kinds),
			0);
	KUNIT_EXPECT_EQ(test, s.calls, nr);
	KUNIT_EXPECT_MEMEQ(test, kinds, want, K_PAGES);

	KUNIT_EXPECT_EQ(test, unmerge_redirected(test, 32 * PUD_SIZE, 0, &s, kinds), 0);
	KUNIT_EXPECT_EQ(test, s.calls, 2 * nr);
	for (i = 0; i < ARRAY_SIZE(ksm_zero_at); i++)
		want[ksm_zero_at[i]] = K_ANON;
	KUNIT_EXPECT_MEMEQ(test, kinds, want, K_PAGES);
}

#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
/*
 * The benchmark's other C references unmerge as 6.12's C loop does: the same
 * tables, contents and counters, the same unshare faults under the same VMA
 * lock, without the Rust path. ksm_unmerge_ref: break_ksm() testing for KSM
 * pages through walk_page_range_vma() and a pmd_entry callback;
 * ksm_unmerge_ref_range: the range walk of mainline's 2025 break_ksm(). Each
 * switch takes 0 and 1 only.
 */
static void unmerge_ref_same_as_c(struct kunit *test)
{
	static const char * const switches[] = { "ksm_unmerge_ref", "ksm_unmerge_ref_range" };
	struct two_layouts t;
	unsigned int i;

	build_two_layouts(test, &t);
	unmerge(test, t.base_c, false, false, t.c);
	KUNIT_EXPECT_EQ(test, t.c->ret, 0);
	KUNIT_EXPECT_EQ(test, t.c->unshare_faults, ARRAY_SIZE(ksm_zero_at));
	KUNIT_EXPECT_EQ(test, t.c->ksm_zero_mm, -(long)ARRAY_SIZE(ksm_zero_at));
	for (i = 0; i < ARRAY_SIZE(switches); i++) {
		unsigned long base = i ? build_layout(test, (24 + 8 * i) * PUD_SIZE) : t.base_r;

		KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test(switches[i], "2"), -EINVAL);
		mm_rs_expect_switch_strict(test, switches[i], true);
		KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test(switches[i], "1"), 1);
		memset(t.r, 0, sizeof(*t.r));
		unmerge(test, base, false, false, t.r);
		KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test(switches[i], "0"), 1);
		KUNIT_EXPECT_EQ_MSG(test, t.r->rust_calls, 0, "%s", switches[i]);
		KUNIT_EXPECT_MEMEQ_MSG(test, t.r, t.c, sizeof(*t.r), "%s", switches[i]);
	}
}
#endif

static struct kunit_case ksm_cases[] = {
	KUNIT_CASE(walk_visits_each_entry),
	KUNIT_CASE(walk_skips_holes_per_level),
	KUNIT_CASE(walk_counts_migration_entries),
	KUNIT_CASE(unmerge_leaves_markers),
	KUNIT_CASE(unmerge_same_as_c),
	KUNIT_CASE(unmerge_ksm_pages_same_as_c),
	KUNIT_CASE(unmerge_random_ksm_pages_same_as_c),
#ifdef CONFIG_MIGRATION
	KUNIT_CASE(unmerge_under_migration),
#endif
	KUNIT_CASE(run_2_unmerges_all),
	KUNIT_CASE(unmerge_signal_pending),
	KUNIT_CASE(unmerge_signal_mid_table),
	KUNIT_CASE(unmerge_signal_between_tables),
	KUNIT_CASE(unmerge_fault_fails),
	KUNIT_CASE(switch_both_ways),
	KUNIT_CASE(unmerge_random_same_as_c),
#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
	KUNIT_CASE(unmerge_ref_same_as_c),
#endif
	KUNIT_CASE(unmerge_keeps_contpte),
	{}
};

static struct kunit_suite ksm_suite = {
	.name = "mm_rs_ksm",
	.init = ksm_test_init,
	.exit = ksm_test_exit,
	.test_cases = ksm_cases,
};

kunit_test_suite(ksm_suite);

MODULE_DESCRIPTION("KUnit tests for mm-rs's KSM unmerge and page-table range walk");
MODULE_LICENSE("GPL");
