/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mm-rs: the C side of the Rust memory-management decisions in mm/mm_rs/.
 *
 * This header holds the C prototype of every function the Rust code exports.
 * bindgen sees it too (rust/bindings/bindings_helper.h includes it), and the
 * Rust side checks each export against its prototype at build time, so a
 * signature that drifts from what is written here fails the build.
 */
#ifndef _LINUX_MM_RS_H
#define _LINUX_MM_RS_H

#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/pgtable.h>
#include <linux/types.h>

struct folio;
struct mmu_gather;
struct vm_area_struct;
struct vm_fault;

#ifdef CONFIG_MM_RS_ANON_ORDER
DECLARE_STATIC_KEY_TRUE(mm_rs_anon_order_key);

/* Whether anonymous faults choose their folio order in Rust (sysfs: anon_order). */
static inline bool mm_rs_anon_order_enabled(void)
{
	return static_branch_likely(&mm_rs_anon_order_key);
}
#else
static inline bool mm_rs_anon_order_enabled(void)
{
	return false;
}
#endif

#ifdef CONFIG_MM_RS_ANON_FAULT
DECLARE_STATIC_KEY_TRUE(mm_rs_anon_fault_key);

/* Whether anonymous faults map their folio in Rust (sysfs: anon_fault). */
static inline bool mm_rs_anon_fault_enabled(void)
{
	return static_branch_likely(&mm_rs_anon_fault_key);
}
#else
static inline bool mm_rs_anon_fault_enabled(void)
{
	return false;
}
#endif

#ifdef CONFIG_MM_RS_PT_RECLAIM
DECLARE_STATIC_KEY_TRUE(mm_rs_pt_reclaim_key);

/* Whether MADV_DONTNEED frees the PTE tables it empties (sysfs: pt_reclaim). */
static inline bool mm_rs_pt_reclaim_enabled(void)
{
	return static_branch_likely(&mm_rs_pt_reclaim_key);
}
#else
static inline bool mm_rs_pt_reclaim_enabled(void)
{
	return false;
}
#endif

#ifdef CONFIG_MM_RS_SPLIT_UNDERUSED
DECLARE_STATIC_KEY_TRUE(mm_rs_split_underused_key);

/*
 * mm/mm_rs/underused.c: the anonymous mTHP @folio, which a fault just
 * mapped, becomes a candidate for the deferred-split shrinker (sysfs:
 * split_underused), as a PMD THP does at fault time.
 */
void mm_rs_anon_underused_candidate(struct folio *folio);
/*
 * For the shrinker: how many zero-filled pages the mTHP @folio has if it is
 * underused (mm/mm_rs/anon/underused.rs), else 0; and the counters of a
 * split that followed.
 */
int mm_rs_mthp_underused(struct folio *folio);
void mm_rs_count_underused_split(int order, int zero_pages);
#else
static inline void mm_rs_anon_underused_candidate(struct folio *folio)
{
}

static inline int mm_rs_mthp_underused(struct folio *folio)
{
	return 0;
}

static inline void mm_rs_count_underused_split(int order, int zero_pages)
{
}
#endif

/* The folio order of exec readahead; -1: none (sysfs: exec_folio_size). */
extern int mm_rs_exec_folio_order;

#ifdef CONFIG_MM_RS_EXEC_RA
DECLARE_STATIC_KEY_TRUE(mm_rs_exec_ra_key);

DECLARE_STATIC_KEY_TRUE(mm_rs_exec_ra_miss_exempt_key);

/*
 * Whether a fault in a mapping with @vm_flags reads ahead in exec folios
 * (debugfs: exec_ra).
 */
static inline bool mm_rs_exec_ra(unsigned long vm_flags)
{
	return static_branch_likely(&mm_rs_exec_ra_key) && (vm_flags & VM_EXEC) &&
	       READ_ONCE(mm_rs_exec_folio_order) >= 0;
}

/*
 * Whether such a fault also stays out of the mmap_miss count, its misses and
 * its hits, so that MMAP_LOTSAMISS misses do not turn exec readahead off:
 * exec faults are random by nature. Mainline counts them; the debugfs switch
 * exec_ra_miss_exempt, 1 by default, does too at 0, to measure the difference.
 */
static inline bool mm_rs_exec_ra_miss_exempt(unsigned long vm_flags)
{
	return mm_rs_exec_ra(vm_flags) &&
	       static_branch_likely(&mm_rs_exec_ra_miss_exempt_key);
}
#else
static inline bool mm_rs_exec_ra(unsigned long vm_flags)
{
	return false;
}

static inline bool mm_rs_exec_ra_miss_exempt(unsigned long vm_flags)
{
	return false;
}
#endif

/* mm/mm_rs/fault.c: vmf_anon_prepare() (mm/internal.h), for rust/kernel/mm/fault.rs. */
vm_fault_t mm_rs_vmf_anon_prepare(struct vm_fault *vmf);

/* mm/mm_rs/anon/order.rs */

/* The orders of @orders whose aligned block around @addr lies in @vma. */
unsigned long mm_rs_thp_vma_suitable_orders(struct vm_area_struct *vma,
					    unsigned long addr,
					    unsigned long orders);
/*
 * The large orders an anonymous fault at @addr may try before looking at the
 * page table: 0 for a userfaultfd-armed VMA, else the orders the mTHP knobs
 * allow for @vma that fit in it around @addr.
 */
unsigned long mm_rs_anon_folio_orders(struct vm_area_struct *vma,
				      unsigned long addr);
/*
 * @orders, less the orders whose aligned block around @addr has a populated
 * PTE, going down from the highest; @pte maps the whole PTE table of @addr.
 */
unsigned long mm_rs_anon_folio_pte_none_orders(pte_t *pte, unsigned long addr,
					       unsigned long orders);
/*
 * alloc_anon_folio() for large orders: a charged, zeroed large folio, NULL to
 * fall back to order 0, or ERR_PTR(-EAGAIN) to retry the fault.
 */
struct folio *mm_rs_alloc_anon_folio(struct vm_fault *vmf);

#ifdef CONFIG_MM_RS_KUNIT_TEST
/* Statistics a walk counts per order: anon_fault_fallback, _fallback_charge. */
#define MM_RS_ANON_STATS 2
/*
 * KUnit only: the allocation walk of mm_rs_alloc_anon_folio() over @orders,
 * with allocation failing for @alloc_fails and the charge for @charge_fails.
 */
int mm_rs_anon_alloc_walk_test(unsigned long orders, unsigned long alloc_fails,
			       unsigned long charge_fails, unsigned long *stats);
#endif

/* mm/mm_rs/anon/policy.rs */

/* Which large orders an anonymous fault tries (sysfs: anon_order_policy). */
enum mm_rs_anon_order_policy {
	MM_RS_ANON_ORDER_MTHP,	/* the per-size mTHP knobs, as C decides */
	MM_RS_ANON_ORDER_ARCH,	/* the LARGE_ANON_FOLIO RFC's arch-preferred order */
	MM_RS_ANON_ORDER_AUTO,	/* a per-VMA adaptive order */
};

#ifdef CONFIG_MM_RS_ANON_ORDER
/* The policy in force, and setting it (-EINVAL for no policy); Rust owns it. */
int mm_rs_anon_order_policy_load(void);
int mm_rs_anon_order_policy_store(int policy);
/* mm/mm_rs/sysfs.c: anon_order_policy from text, "mthp", "arch" or "auto", else -EINVAL. */
int mm_rs_anon_order_policy_set(const char *buf);
#endif

#ifdef CONFIG_MM_RS_KUNIT_TEST
/*
 * KUnit only: the arch policy's orders for an architecture order @arch (-1:
 * none) in a VMA that opted in to THP (@hinted) or not.
 */
unsigned long mm_rs_anon_arch_orders_test(int arch, bool hinted);
/* KUnit only: the largest order of the auto policy, likewise. */
unsigned int mm_rs_anon_auto_max_order_test(int arch, bool hinted);
/*
 * KUnit only: whether the arch and auto policies allow large folios in @vma
 * with the THP knobs as they are: -1 no, 0 yes, 1 yes and it opted in to THP.
 */
int mm_rs_anon_rfc_eligible_test(struct vm_area_struct *vma);

/* What the auto controller chose for one fault (mm/mm_rs/anon/policy.rs). */
struct mm_rs_auto_choice {
	unsigned int order;	/* the largest order to try */
	bool probe;		/* map the page alone */
	int event;		/* enum mm_rs_auto_event */
};

enum mm_rs_auto_event {
	MM_RS_AUTO_NONE,
	MM_RS_AUTO_GROW,	/* the fault continued the last folio */
	MM_RS_AUTO_DENSE,	/* it touched the last probe's neighbour */
	MM_RS_AUTO_SPARSE,	/* it skipped the last probe's neighbours */
};

/*
 * KUnit only: the auto controller with its per-VMA state in @state, for a
 * fault at page index @page in a VMA whose largest order is @max: decide,
 * then record the order mapped.
 */
void mm_rs_anon_auto_decide_test(unsigned long *state, unsigned long page,
				 unsigned int max, struct mm_rs_auto_choice *choice);
void mm_rs_anon_auto_mapped_test(unsigned long *state, unsigned long page,
				 unsigned int order,
				 const struct mm_rs_auto_choice *choice);
/* auto's failure memory: 0 forget all, 1 fail, 2 success, 3 cap, 4 entry bits */
u32 mm_rs_anon_auto_fail_test(int node, int op, unsigned int order);
#endif

/* mm/mm_rs/anon/fault.rs */

/*
 * do_anonymous_page() after its VM_SHARED check, with both decisions in Rust
 * (CONFIG_MM_RS_ANON_ORDER and _ANON_FAULT): the PTE table, the zero page for
 * a read, the anon_vma, the order, the allocation (order 0 as C's
 * folio_prealloc()), the charge, the zeroing and the map.
 */
vm_fault_t mm_rs_do_anonymous_page(struct vm_fault *vmf);
/* The same with the orders C's anon_folio_orders() allows. */
vm_fault_t mm_rs_do_anonymous_page_c_order(struct vm_fault *vmf);
#if defined(CONFIG_TRANSPARENT_HUGEPAGE) && defined(CONFIG_MM_RS_ANON_FAULT)
/*
 * mm/memory.c: the large orders C's alloc_anon_folio() tries, before it looks
 * at the page table; for mm_rs_do_anonymous_page_c_order(). Static without
 * CONFIG_MM_RS_ANON_FAULT (unless KUnit sees it, mm/internal.h).
 */
unsigned long anon_folio_orders(struct vm_area_struct *vma, unsigned long addr);
#endif

#ifdef CONFIG_MM_RS_KUNIT_TEST
/*
 * KUnit only: the map step of the Rust fault path for a write fault once it
 * has @folio: map the whole folio, or back out if another thread mapped its
 * range first. Takes over the caller's reference to @folio.
 */
vm_fault_t mm_rs_anon_folio_install(struct vm_fault *vmf, struct folio *folio);
/* KUnit only: the map step for a read fault: map the shared zero page. */
vm_fault_t mm_rs_anon_zero_page_install(struct vm_fault *vmf);
#endif

#ifdef CONFIG_MM_RS_SPLIT_UNDERUSED
/* mm/mm_rs/anon/underused.rs */

/*
 * The verdict on the mTHP @folio, which the deferred-split shrinker holds a
 * reference to, with khugepaged's @max_ptes_none: how many of its pages are
 * zero-filled if it is underused, else 0. Counts underused_checked.
 */
int mm_rs_thp_underused(struct folio *folio, unsigned int max_ptes_none);
#endif
#if defined(CONFIG_MM_RS_SPLIT_UNDERUSED) && defined(CONFIG_MM_RS_KUNIT_TEST)
/*
 * KUnit only: the same verdict for a folio of @order whose page i is
 * zero-filled when bit i of @zero is set.
 */
int mm_rs_underused_verdict(unsigned int order, unsigned int max_ptes_none,
			    const unsigned long *zero);
/*
 * mm/huge_memory.c, KUnit only: 6.12's verdict on @folio, with
 * khugepaged_max_ptes_none (the C reference; it reads every page of @folio).
 */
bool thp_underused(struct folio *folio);
#endif

#ifdef CONFIG_MM_RS_KSM_UNMERGE
DECLARE_STATIC_KEY_TRUE(mm_rs_ksm_unmerge_key);

/* Whether unmerge_ksm_pages() runs in Rust (sysfs: ksm_unmerge). */
static inline bool mm_rs_ksm_unmerge_enabled(void)
{
	return static_branch_likely(&mm_rs_ksm_unmerge_key);
}

/*
 * mm/mm_rs/ksm/unmerge.rs: unmerge_ksm_pages() of mm/ksm.c on a page-table
 * range walk, which skips what is not populated. The caller holds the mmap
 * lock of @vma->vm_mm, for writing if @lock_vma; @vma is in its VMA tree and
 * [@start, @end) inside it.
 */
int mm_rs_unmerge_ksm_pages(struct vm_area_struct *vma, unsigned long start,
			    unsigned long end, bool lock_vma);

/* What a PMD entry holds, for rust/kernel/mm/walk.rs. */
enum mm_rs_pmd_kind {
	MM_RS_PMD_NONE,		/* none, or bad: nothing to walk */
	MM_RS_PMD_LEAF,		/* a huge leaf or a migration entry of one */
	MM_RS_PMD_TABLE,	/* a PTE table */
};

/*
 * mm/mm_rs/fault.c: the unshare fault that breaks COW of a KSM page at @addr,
 * as break_ksm() faults (FAULT_FLAG_UNSHARE | FAULT_FLAG_REMOTE). In KUnit
 * builds a test may redirect it (KUnit static stub) to fail as
 * handle_mm_fault() may there, or to return without breaking anything.
 */
vm_fault_t mm_rs_ksm_unshare_fault(struct vm_area_struct *vma, unsigned long addr);
#else
static inline bool mm_rs_ksm_unmerge_enabled(void)
{
	return false;
}

static inline int mm_rs_unmerge_ksm_pages(struct vm_area_struct *vma,
					  unsigned long start,
					  unsigned long end, bool lock_vma)
{
	return 0;
}
#endif

#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
DECLARE_STATIC_KEY_FALSE(mm_rs_ksm_unmerge_ref_key);

/*
 * Benchmark builds only: whether the C loop of unmerge_ksm_pages() tests for
 * KSM pages with the callback-based page walk of the 2022 conversion instead
 * of 6.12's folio_walk_start() (sysfs: ksm_unmerge_ref).
 */
static inline bool mm_rs_ksm_unmerge_ref_enabled(void)
{
	return static_branch_unlikely(&mm_rs_ksm_unmerge_ref_key);
}

DECLARE_STATIC_KEY_FALSE(mm_rs_ksm_unmerge_ref_range_key);

/*
 * Benchmark builds only: whether unmerge_ksm_pages() (with ksm_unmerge off)
 * unmerges on the C range walk of mainline's 2025 break_ksm() instead of a
 * loop over every page address (sysfs: ksm_unmerge_ref_range).
 */
static inline bool mm_rs_ksm_unmerge_ref_range_enabled(void)
{
	return static_branch_unlikely(&mm_rs_ksm_unmerge_ref_range_key);
}
#else
static inline bool mm_rs_ksm_unmerge_ref_enabled(void)
{
	return false;
}

static inline bool mm_rs_ksm_unmerge_ref_range_enabled(void)
{
	return false;
}
#endif

#if defined(CONFIG_MM_RS_KSM_UNMERGE) && defined(CONFIG_MM_RS_KUNIT_TEST)
/* KUnit only: what a range walk (rust/kernel/mm/walk.rs) visited. */
struct mm_rs_walk_counts {
	unsigned long entries;	/* entries visited: those not none */
	unsigned long tables;	/* PTE tables with an entry visited */
	unsigned long leaves;	/* huge PMD leaves met */
	unsigned long pauses;	/* calls between tables */
	unsigned long first;	/* the first entry's address, or 0 */
	unsigned long last;	/* the last entry's address, or 0 */
	unsigned long sum;	/* the sum of the addresses visited */
	unsigned long stopped;	/* where it stopped, 0 if at the end */
	unsigned long migration;	/* entries of a folio under migration */
	unsigned long leaf_at;	/* mm_rs_walk_stops(): the sum of its leaf stops' addresses */
};

/*
 * KUnit only: walks [@start, @end) of @vma, whose mmap lock the caller holds,
 * counting into @c; stops at the @stop_after'th entry (never if 0). Returns 0,
 * -EINVAL for a range outside the VMA, or -EIO if the walk, once it returned
 * its end, is not at @end (RangeWalk::addr()) or not done.
 */
int mm_rs_walk_count(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long stop_after,
		     struct mm_rs_walk_counts *c);
/*
 * The same walk stopping at every huge PMD leaf, which it skips, and at
 * every pause: entries visited, leaf stops in leaves, pause stops in pauses.
 */
int mm_rs_walk_stops(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, struct mm_rs_walk_counts *c);
#endif

/* mm/mm_rs/exec_ra/: a readahead window of @size pages from @start, in folios of @order. */
struct mm_rs_exec_ra {
	unsigned long start;
	unsigned int size;
	unsigned int order;
};

/*
 * The window of an exec fault at file index @pgoff in a VMA of @vm_pages
 * pages from file index @vm_pgoff, in a file of @i_size bytes with
 * readahead size @ra_pages, in folios of @order. Returns false when the
 * fault gets no exec readahead.
 */
bool mm_rs_exec_ra_window(unsigned long pgoff, unsigned long vm_pgoff,
			  unsigned long vm_pages, loff_t i_size,
			  unsigned int ra_pages, unsigned int order,
			  struct mm_rs_exec_ra *win);

#ifdef CONFIG_MM_RS_EXEC_RA
/* The architecture's exec folio order (64K on arm64), -1 for none. */
int mm_rs_exec_arch_folio_order(void);
/* The order of an exec folio of @size bytes, or -EINVAL. */
int mm_rs_exec_folio_order_of_size(u64 size);
/* Sets exec_folio_size from sysfs text: a size in bytes, 0 for the arch's. */
int mm_rs_exec_folio_size_set(const char *buf);
#endif

#ifdef CONFIG_MM_RS_KUNIT_TEST
/*
 * mm/mm_rs/sysfs.c, for KUnit: write @val to, or read into the page @buf,
 * /sys/kernel/mm/mm_rs/@name through the file's store or show method, or
 * the switch /sys/kernel/debug/mm_rs/@name as its file would.
 */
ssize_t mm_rs_sysfs_write_test(const char *name, const char *val);
ssize_t mm_rs_sysfs_read_test(const char *name, char *buf);
ssize_t mm_rs_debugfs_write_test(const char *name, const char *val);
ssize_t mm_rs_debugfs_read_test(const char *name, char *buf);

/*
 * mm/mm_rs/fault.c, KUnit builds only: the Rust fault path's allocation and
 * memcg charge of a folio, which a test may redirect (KUnit static stub).
 */
struct folio *mm_rs_fault_alloc_folio(gfp_t gfp, int order, struct vm_area_struct *vma,
				      unsigned long addr);
int mm_rs_fault_charge_folio(struct folio *folio, struct mm_struct *mm, gfp_t gfp);
#endif

/*
 * mm/mm_rs/pt_reclaim/: a PTE table detached under its lock by the fast path,
 * waiting for the unlock to be freed (rust/kernel/mm/pmd.rs: DetachedSlot).
 */
struct mm_rs_detached_pte {
	struct mm_struct *mm;	/* whose table it is; NULL: none */
	pmd_t pmdval;		/* what the PMD pointed to */
	unsigned long addr;	/* the first address the table mapped */
};

/*
 * The zap of one PTE table by zap_pmd_range() and zap_pte_range(), kept
 * across the restarts of zap_pte_range() for it. The caller zero-initialises
 * it once per zap; only Rust reads or changes it.
 */
struct mm_rs_pt_pass {
	unsigned long end;	/* end of the zap in the table; 0: none yet */
	unsigned int live;	/* entries the zap left live in the table */
	bool whole;		/* the zap covers the whole table */
	bool relocked;		/* the PTE lock was dropped during the zap */
};

struct mm_rs_pt_zap {
	struct mm_rs_pt_pass pass;		/* mm/mm_rs/pt_reclaim/zap.rs */
	struct mm_rs_detached_pte detached;	/* the fast path's table */
};

#ifdef CONFIG_MM_RS_PT_RECLAIM
/* Before each call of zap_pte_range() for [@addr, @end) of one table. */
void mm_rs_pt_zap_begin(struct mm_rs_pt_zap *z, unsigned long addr,
			unsigned long end);
/* Counts which of the @nr entries at @pte a zap step left live. */
void mm_rs_pt_zap_count(struct mm_rs_pt_zap *z, pte_t *pte, int nr);
/*
 * The end of a pass at @addr, with the PTE lock @ptl of the table @pmd
 * points to still held: detach the table if it may go (the fast path).
 */
void mm_rs_pt_zap_locked(struct mm_rs_pt_zap *z, struct mm_struct *mm,
			 pmd_t *pmd, spinlock_t *ptl, unsigned long addr);
/*
 * The same pass after the PTE lock was dropped: free the table the fast
 * path detached, or detach it under both locks (the slow path) and free it.
 */
void mm_rs_pt_zap_unlocked(struct mm_rs_pt_zap *z, struct mmu_gather *tlb,
			   pmd_t *pmd, unsigned long addr);

/* After a zap step of @nr entries at @pte, which held @ptent before. */
static inline void mm_rs_pt_zap_note(struct mm_rs_pt_zap *z, pte_t *pte,
				     pte_t ptent, int nr)
{
	/*
	 * An entry that was none stays none: the step skipped it. A single
	 * entry the step cleared leaves nothing to count, and is the common
	 * case: only call out for the others.
	 */
	if (!z || pte_none(ptent) || (nr == 1 && pte_none(ptep_get(pte))))
		return;
	mm_rs_pt_zap_count(z, pte, nr);
}

/* mm/mm_rs/pt_reclaim/tlb.c: the mmu_gather side, for Rust. */
struct mm_struct *mm_rs_tlb_mm(struct mmu_gather *tlb);
void mm_rs_free_pte(struct mmu_gather *tlb, pmd_t pmdval, unsigned long addr);

#ifdef CONFIG_MM_RS_KUNIT_TEST
/* What mm_rs_pt_zap_locked() and _unlocked() decide at the end of a pass. */
enum mm_rs_pt_reclaim {
	MM_RS_PT_CONTINUE,	/* the pass stopped early and will resume */
	MM_RS_PT_KEEP,		/* the table stays */
	MM_RS_PT_FAST,		/* detach under the held PTE lock, if possible */
	MM_RS_PT_SLOW,		/* detach after a recheck under both locks */
};

/* KUnit only: the decision for @z when the pass ended at @addr. */
int mm_rs_pt_zap_decide_test(const struct mm_rs_pt_zap *z, unsigned long addr);
/*
 * KUnit only: detaches the empty table @pmd points to at @addr in the mm of
 * @tlb, then frees it through @other, a gather of another mm, and through
 * @tlb. Bit 0: the first free was refused (as it must be); bit 1: the second
 * went ahead; -1: nothing was detached.
 */
int mm_rs_pt_free_other_mm_test(struct mmu_gather *other, struct mmu_gather *tlb,
				pmd_t *pmd, unsigned long addr);
#endif
#else
static inline void mm_rs_pt_zap_begin(struct mm_rs_pt_zap *z,
				      unsigned long addr, unsigned long end)
{
}

static inline void mm_rs_pt_zap_note(struct mm_rs_pt_zap *z, pte_t *pte,
				     pte_t ptent, int nr)
{
}

static inline void mm_rs_pt_zap_locked(struct mm_rs_pt_zap *z,
				       struct mm_struct *mm, pmd_t *pmd,
				       spinlock_t *ptl, unsigned long addr)
{
}

static inline void mm_rs_pt_zap_unlocked(struct mm_rs_pt_zap *z,
					 struct mmu_gather *tlb, pmd_t *pmd,
					 unsigned long addr)
{
}
#endif /* CONFIG_MM_RS_PT_RECLAIM */

/*
 * Race windows in core mm that PT reclaim may hit, where KUnit runs the
 * racing side (a MADV_DONTNEED, a fault, a switch turned off) through a
 * static stub (kunit_activate_static_stub() on mm_rs_test_race()) to make
 * the race deterministic. Nothing without CONFIG_MM_RS_KUNIT_TEST.
 */
enum mm_rs_race {
	/* collapse_pte_mapped_thp(): the PMD found a table, not mapped yet */
	MM_RS_RACE_COLLAPSE_SCAN,
	/* collapse_pte_mapped_thp(): the PTEs checked, the lock dropped */
	MM_RS_RACE_COLLAPSE_CLEAR,
	/* collapse_pte_mapped_thp(): PTEs cleared, no page table lock held */
	MM_RS_RACE_COLLAPSE_UNLOCKED,
	/* move_pages_pte(): the source table mapped, its PMD not checked yet */
	MM_RS_RACE_MOVE_SRC_MAPPED,
	/* zap_pte_range(): PT reclaim's pass over, no page table lock held */
	MM_RS_RACE_ZAP_UNLOCKED,
	/* deferred_split_scan(): an mTHP judged underused, not split yet */
	MM_RS_RACE_UNDERUSED_SPLIT,
	/* the Rust range walk: a PMD read as a table, the table not mapped yet */
	MM_RS_RACE_WALK_PMD,
	/* migrate_pages_batch(): the batch's folios locked and unmapped, not moved */
	MM_RS_RACE_MIGRATE_UNMAPPED,
	/*
	 * The Rust range walk: a P4D, a PUD or a PMD entry about to be read,
	 * once per entry, at the start of its range (cut to the walk's). Not a
	 * race window but a count: KUnit checks that each level reads one entry
	 * per range it covers, holes included, and none outside its table.
	 */
	MM_RS_RACE_WALK_P4D_READ,
	MM_RS_RACE_WALK_PUD_READ,
	MM_RS_RACE_WALK_PMD_READ,
};

#ifdef CONFIG_MM_RS_KUNIT_TEST
void mm_rs_test_race(enum mm_rs_race where, struct mm_struct *mm,
		     unsigned long addr);
#else
static inline void mm_rs_test_race(enum mm_rs_race where,
				   struct mm_struct *mm, unsigned long addr)
{
}
#endif

#ifdef __BINDGEN__
/* Constants that bindgen cannot evaluate by itself. */
#include <linux/huge_mm.h>
#include <linux/mm.h>
#include <linux/rmap.h>
#include <linux/userfaultfd_k.h>

const vm_flags_t MM_RS_VM_HUGEPAGE = VM_HUGEPAGE;
const vm_flags_t MM_RS_VM_NOHUGEPAGE = VM_NOHUGEPAGE;
/* VM_NONE without CONFIG_USERFAULTFD. */
const vm_flags_t MM_RS_VM_UFFD_FLAGS = __VM_UFFD_FLAGS;
const vm_flags_t MM_RS_VM_UFFD_MISSING = VM_UFFD_MISSING;
const vm_flags_t MM_RS_VM_UFFD_WP = VM_UFFD_WP;
const vm_fault_t MM_RS_VM_FAULT_OOM = VM_FAULT_OOM;
const vm_fault_t MM_RS_VM_FAULT_SIGBUS = VM_FAULT_SIGBUS;
const vm_fault_t MM_RS_VM_FAULT_SIGSEGV = VM_FAULT_SIGSEGV;
const gfp_t MM_RS_GFP_ACCOUNT = __GFP_ACCOUNT;
const rmap_t MM_RS_RMAP_EXCLUSIVE = RMAP_EXCLUSIVE;
const int MM_RS_MM_ANONPAGES = MM_ANONPAGES;
const unsigned int MM_RS_MMF_DISABLE_THP = MMF_DISABLE_THP;
const unsigned int MM_RS_MMF_UNSTABLE = MMF_UNSTABLE;
const unsigned int MM_RS_PMD_ORDER = PMD_SHIFT - PAGE_SHIFT;
const unsigned int MM_RS_PAGE_ALLOC_COSTLY_ORDER = PAGE_ALLOC_COSTLY_ORDER;
/*
 * The RFC's arch_wants_pte_order(): arm64 maps a naturally aligned block of
 * CONT_PTES entries with one TLB entry; -1 where the arch has no preference.
 */
#ifdef CONFIG_ARM64
const int MM_RS_ARCH_PTE_ORDER = CONT_PTE_SHIFT - PAGE_SHIFT;
#else
const int MM_RS_ARCH_PTE_ORDER = -1;
#endif
const size_t MM_RS_PTRS_PER_PTE = PTRS_PER_PTE;
const unsigned long MM_RS_PMD_SIZE = PMD_SIZE;
/*
 * update_mmu_cache_range() is an empty inline on x86 and arm64 (their MMUs
 * walk the page tables, and arm64 does its cache maintenance in set_ptes()),
 * so Rust does not call out for it there.
 */
const bool MM_RS_UPDATE_MMU_CACHE_IS_NOP = IS_ENABLED(CONFIG_X86) || IS_ENABLED(CONFIG_ARM64);
#endif /* __BINDGEN__ */

#endif /* _LINUX_MM_RS_H */
