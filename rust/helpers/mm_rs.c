// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the mm-rs abstractions in rust/kernel/mm/: the static inline
 * functions and macros of the mm headers that Rust cannot call directly.
 */

#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/oom.h>
#include <linux/rmap.h>
#include <linux/userfaultfd_k.h>
#include <linux/huge_mm.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/vmstat.h>
#include <trace/events/kmem.h>

#ifdef CONFIG_MM_RS

/*
 * With CONFIG_RUST_INLINE_HELPERS these are linked into the Rust objects as
 * bitcode; always_inline makes LLVM inline them into the fault paths even
 * where the target features of C and Rust functions differ (the soft-float
 * and SIMD flags of the kernel's rustc target), which only matter for code
 * that uses floating point, which these do not.
 */
#if defined(CONFIG_RUST_INLINE_HELPERS) && !defined(__BINDGEN__)
#define __rust_helper __attribute__((__always_inline__))
#else
#define __rust_helper
#endif

/* The NUMA node of the CPU the caller runs on (a hint: it may migrate). */
__rust_helper int rust_helper_mm_rs_numa_node_id(void)
{
	return numa_node_id();
}

__rust_helper bool rust_helper_mm_rs_vma_is_temporary_stack(struct vm_area_struct *vma)
{
	return vma_is_temporary_stack(vma);
}

__rust_helper bool rust_helper_mm_rs_vma_is_dax(struct vm_area_struct *vma)
{
	return vma_is_dax(vma);
}

__rust_helper pte_t *rust_helper_mm_rs_pte_offset_map(pmd_t *pmd, unsigned long addr)
{
	return pte_offset_map(pmd, addr);
}

__rust_helper void rust_helper_mm_rs_pte_unmap(pte_t *pte)
{
	pte_unmap(pte);
}

/* C's pte_range_none() in mm/memory.c, one call for the whole range. */
__rust_helper bool rust_helper_mm_rs_pte_range_none(pte_t *pte, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (!pte_none(ptep_get_lockless(pte + i)))
			return false;
	}
	return true;
}

/* How many of the @nr entries at @pte are not none; the PTE lock is held. */
__rust_helper int rust_helper_mm_rs_pte_count_not_none(pte_t *pte, int nr)
{
	int i, n = 0;

	for (i = 0; i < nr; i++)
		n += !pte_none(ptep_get(pte + i));
	return n;
}

__rust_helper struct folio *rust_helper_mm_rs_vma_alloc_folio(gfp_t gfp, int order,
							      struct vm_area_struct *vma,
							      unsigned long addr)
{
#if IS_ENABLED(CONFIG_MM_RS_KUNIT_TEST)
	return mm_rs_fault_alloc_folio(gfp, order, vma, addr);
#else
	return vma_alloc_folio(gfp, order, vma, addr, true);
#endif
}

/* An order-0 folio for an anonymous fault, zeroed (arm64: its MTE tags too). */
__rust_helper struct folio *
rust_helper_mm_rs_vma_alloc_zeroed_movable_folio(struct vm_area_struct *vma, unsigned long addr)
{
	return vma_alloc_zeroed_movable_folio(vma, addr);
}

__rust_helper int rust_helper_mm_rs_mem_cgroup_charge(struct folio *folio,
						      struct mm_struct *mm, gfp_t gfp)
{
#if IS_ENABLED(CONFIG_MM_RS_KUNIT_TEST)
	return mm_rs_fault_charge_folio(folio, mm, gfp);
#else
	return mem_cgroup_charge(folio, mm, gfp);
#endif
}

__rust_helper void rust_helper_mm_rs_folio_throttle_swaprate(struct folio *folio, gfp_t gfp)
{
	folio_throttle_swaprate(folio, gfp);
}

__rust_helper void rust_helper_mm_rs_folio_put(struct folio *folio)
{
	folio_put(folio);
}

/* Page table entries (rust/kernel/mm/pgtable.rs). */

__rust_helper bool rust_helper_mm_rs_pte_none(pte_t pte)
{
	return pte_none(pte);
}

__rust_helper bool rust_helper_mm_rs_pte_same(pte_t a, pte_t b)
{
	return pte_same(a, b);
}

__rust_helper bool rust_helper_mm_rs_pte_marker_uffd_wp(pte_t pte)
{
	return pte_marker_uffd_wp(pte);
}

/*
 * The entry of a new anonymous folio, as do_anonymous_page() builds it:
 * young, and writable and dirty in a writable VMA (@writable, which Rust
 * reads from vm_flags).
 */
__rust_helper pte_t rust_helper_mm_rs_anon_folio_mk_pte(struct folio *folio,
							struct vm_area_struct *vma,
							bool writable)
{
	pte_t entry = mk_pte(&folio->page, vma->vm_page_prot);

	entry = pte_sw_mkyoung(entry);
	if (writable)
		entry = pte_mkwrite(pte_mkdirty(entry), vma);
	return entry;
}

__rust_helper pte_t rust_helper_mm_rs_pte_mkuffd_wp(pte_t pte)
{
	return pte_mkuffd_wp(pte);
}

__rust_helper pte_t rust_helper_mm_rs_ptep_get(pte_t *ptep)
{
	return ptep_get(ptep);
}

__rust_helper pte_t *rust_helper_mm_rs_pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd,
							   unsigned long addr, spinlock_t **ptlp)
{
	return pte_offset_map_lock(mm, pmd, addr, ptlp);
}

__rust_helper void rust_helper_mm_rs_pte_unmap_unlock(pte_t *pte, spinlock_t *ptl)
{
	pte_unmap_unlock(pte, ptl);
}

__rust_helper void rust_helper_mm_rs_set_ptes(struct mm_struct *mm, unsigned long addr,
					      pte_t *ptep, pte_t pte, unsigned int nr)
{
	set_ptes(mm, addr, ptep, pte, nr);
}

__rust_helper void rust_helper_mm_rs_update_mmu_tlb_range(struct vm_area_struct *vma,
							  unsigned long addr, pte_t *ptep,
							  unsigned int nr)
{
	update_mmu_tlb_range(vma, addr, ptep, nr);
}

__rust_helper void rust_helper_mm_rs_update_mmu_cache_range(struct vm_fault *vmf,
							    struct vm_area_struct *vma,
							    unsigned long addr, pte_t *ptep,
							    unsigned int nr)
{
	update_mmu_cache_range(vmf, vma, addr, ptep, nr);
}

__rust_helper pte_t rust_helper_mm_rs_zero_page_pte(unsigned long addr,
						    struct vm_area_struct *vma)
{
	return pte_mkspecial(pfn_pte(my_zero_pfn(addr), vma->vm_page_prot));
}

/* Folios (rust/kernel/mm/folio.rs). */

__rust_helper unsigned int rust_helper_mm_rs_folio_order(struct folio *folio)
{
	return folio_order(folio);
}

__rust_helper void rust_helper_mm_rs_folio_mark_uptodate(struct folio *folio)
{
	__folio_mark_uptodate(folio);
}

__rust_helper void rust_helper_mm_rs_folio_ref_add(struct folio *folio, int nr)
{
	folio_ref_add(folio, nr);
}

#ifdef CONFIG_MM_RS_SPLIT_UNDERUSED
/* A folio somebody holds a reference to (rust/kernel/mm/folio.rs, Folio). */
__rust_helper bool rust_helper_mm_rs_folio_test_anon(struct folio *folio)
{
	return folio_test_anon(folio);
}

__rust_helper bool rust_helper_mm_rs_folio_test_writeback(struct folio *folio)
{
	return folio_test_writeback(folio);
}

__rust_helper bool rust_helper_mm_rs_folio_test_mlocked(struct folio *folio)
{
	return folio_test_mlocked(folio);
}

__rust_helper bool rust_helper_mm_rs_folio_maybe_dma_pinned(struct folio *folio)
{
	return folio_maybe_dma_pinned(folio);
}

__rust_helper bool rust_helper_mm_rs_folio_likely_mapped_shared(struct folio *folio)
{
	return folio_likely_mapped_shared(folio);
}

__rust_helper bool rust_helper_mm_rs_folio_contain_hwpoisoned_page(struct folio *folio)
{
	return folio_contain_hwpoisoned_page(folio);
}

/*
 * Whether page @i of @folio is identical to the zero page, as 6.12.117's
 * thp_underused() and try_to_map_unused_to_zeropage() decide it:
 * pages_identical(), not a scan for a non-zero byte. On arm64 with MTE a
 * tagged page is never identical (memcmp_pages()), so a tagged mTHP is not
 * judged underused for pages the split's remap would keep anyway.
 */
bool rust_helper_mm_rs_folio_page_zero_filled(struct folio *folio, size_t i)
{
	return pages_identical(folio_page(folio, i), ZERO_PAGE(0));
}
#endif

/* Faults and mms (rust/kernel/mm/fault.rs, virt.rs). */

/*
 * add_mm_counter() with its mm_trace_rss_stat() open-coded: out of line, that
 * is a call for a tracepoint that is almost always off, where C's callers in
 * mm/memory.c, its translation unit, inline it to one patched jump.
 */
__rust_helper void rust_helper_mm_rs_add_mm_counter(struct mm_struct *mm, int member, long value)
{
	percpu_counter_add(&mm->rss_stat[member], value);
	trace_rss_stat(mm, member);
}

__rust_helper bool rust_helper_mm_rs_mm_forbids_zeropage(struct mm_struct *mm)
{
	return mm_forbids_zeropage(mm);
}

/* pte_alloc(): a PTE table for @pmd unless it has one; true if that failed. */
__rust_helper bool rust_helper_mm_rs_pte_alloc(struct mm_struct *mm, pmd_t *pmd)
{
	return pte_alloc(mm, pmd);
}

__rust_helper vm_fault_t rust_helper_mm_rs_handle_userfault(struct vm_fault *vmf,
							    unsigned long reason)
{
	return handle_userfault(vmf, reason);
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
__rust_helper void rust_helper_mm_rs_count_mthp_stat(int order, enum mthp_stat_item item)
{
	count_mthp_stat(order, item);
}
#endif

/* VM events (rust/kernel/mm/vmstat.rs). */
__rust_helper void rust_helper_mm_rs_count_vm_event(enum vm_event_item item)
{
	count_vm_event(item);
}

/* PMD entries, their locks and freeing PTE tables (rust/kernel/mm/pmd.rs). */

__rust_helper spinlock_t *rust_helper_mm_rs_pmd_lockptr(struct mm_struct *mm, pmd_t *pmd)
{
	return pmd_lockptr(mm, pmd);
}

__rust_helper bool rust_helper_mm_rs_spin_trylock(spinlock_t *lock)
{
	return spin_trylock(lock);
}

/* The PTE lock of a table, nested inside its PMD lock. */
__rust_helper void rust_helper_mm_rs_spin_lock_nested(spinlock_t *lock)
{
	spin_lock_nested(lock, SINGLE_DEPTH_NESTING);
}

__rust_helper pte_t *rust_helper_mm_rs_pte_offset_map_nolock(struct mm_struct *mm, pmd_t *pmd,
							     unsigned long addr,
							     spinlock_t **ptlp)
{
	return pte_offset_map_nolock(mm, pmd, addr, ptlp);
}

/* Detaches the PTE table @pmd points to; both its locks are held. */
__rust_helper pmd_t rust_helper_mm_rs_pmdp_get_and_clear_table(pmd_t *pmd)
{
	pmd_t pmdval = pmdp_get_lockless(pmd);

	pmd_clear(pmd);
	return pmdval;
}

/* The largest folio order of the page cache (rust/kernel/mm/folio.rs). */
__rust_helper unsigned int rust_helper_mm_rs_max_pagecache_order(void)
{
	return MAX_PAGECACHE_ORDER;
}

#ifdef CONFIG_MM_RS_KSM_UNMERGE
/*
 * Page-table range walks (rust/kernel/mm/walk.rs), under the mmap lock.
 *
 * The upper levels: an entry is skipped when it is none or bad (the walk only
 * reads: C's p?d_none_or_clear_bad() would also report and clear a bad one);
 * a PUD also when it is a leaf or not present, as no anonymous memory is
 * mapped by a PUD. Folded levels are never none, and their _addr_end() is the
 * end of the range, as in C.
 */
__rust_helper pgd_t *rust_helper_mm_rs_pgd_offset(struct mm_struct *mm, unsigned long addr)
{
	return pgd_offset(mm, addr);
}

__rust_helper bool rust_helper_mm_rs_pgd_skip(pgd_t *pgd)
{
	pgd_t val = pgdp_get(pgd);

	return pgd_none(val) || unlikely(pgd_bad(val));
}

__rust_helper unsigned long rust_helper_mm_rs_pgd_addr_end(unsigned long addr,
							   unsigned long end)
{
	return pgd_addr_end(addr, end);
}

__rust_helper p4d_t *rust_helper_mm_rs_p4d_offset(pgd_t *pgd, unsigned long addr)
{
	return p4d_offset(pgd, addr);
}

__rust_helper bool rust_helper_mm_rs_p4d_skip(p4d_t *p4d)
{
	p4d_t val = p4dp_get(p4d);

	return p4d_none(val) || unlikely(p4d_bad(val));
}

__rust_helper unsigned long rust_helper_mm_rs_p4d_addr_end(unsigned long addr,
							   unsigned long end)
{
	return p4d_addr_end(addr, end);
}

__rust_helper pud_t *rust_helper_mm_rs_pud_offset(p4d_t *p4d, unsigned long addr)
{
	return pud_offset(p4d, addr);
}

__rust_helper bool rust_helper_mm_rs_pud_skip(pud_t *pud)
{
	pud_t val = pudp_get(pud);

	return pud_none(val) || !pud_present(val) || pud_leaf(val) || unlikely(pud_bad(val));
}

__rust_helper unsigned long rust_helper_mm_rs_pud_addr_end(unsigned long addr,
							   unsigned long end)
{
	return pud_addr_end(addr, end);
}

__rust_helper pmd_t *rust_helper_mm_rs_pmd_offset(pud_t *pud, unsigned long addr)
{
	return pmd_offset(pud, addr);
}

__rust_helper unsigned long rust_helper_mm_rs_pmd_addr_end(unsigned long addr,
							   unsigned long end)
{
	return pmd_addr_end(addr, end);
}

/* The PMD entry @pmd, read once without a lock. */
__rust_helper pmd_t rust_helper_mm_rs_pmdp_get_lockless(pmd_t *pmd)
{
	return pmdp_get_lockless(pmd);
}

/*
 * Whether @val, a PMD entry read with mm_rs_pmdp_get_lockless(), is none: the walk
 * tests this first, on its own, so that a hole costs one compare, as in C's
 * walk_pmd_range() (in mm_rs_pmd_kind() clang folds it into the other tests).
 */
__rust_helper bool rust_helper_mm_rs_pmd_none(pmd_t val)
{
	return pmd_none(val);
}

/* What the PMD entry @val holds, read with mm_rs_pmdp_get_lockless(). */
__rust_helper enum mm_rs_pmd_kind rust_helper_mm_rs_pmd_kind(pmd_t val)
{
	if (pmd_none(val))
		return MM_RS_PMD_NONE;
	/* A THP, a devmap leaf, or a migration entry of either. */
	if (!pmd_present(val) || pmd_leaf(val))
		return MM_RS_PMD_LEAF;
	if (unlikely(pmd_bad(val)))
		return MM_RS_PMD_NONE;
	return MM_RS_PMD_TABLE;
}

__rust_helper void rust_helper_mm_rs_cond_resched(void)
{
	cond_resched();
}

__rust_helper bool rust_helper_mm_rs_pte_present(pte_t pte)
{
	return pte_present(pte);
}

__rust_helper bool rust_helper_mm_rs_pte_dirty(pte_t pte)
{
	return pte_dirty(pte);
}

/* is_zero_pfn(pte_pfn(@pte)), of any entry, as C's is_ksm_zero_pte() reads it. */
__rust_helper bool rust_helper_mm_rs_pte_pfn_is_zero(pte_t pte)
{
	return is_zero_pfn(pte_pfn(pte));
}

/* The folio of the present entry @pte at @addr, if it maps a normal page. */
__rust_helper struct folio *rust_helper_mm_rs_vm_normal_folio(struct vm_area_struct *vma,
							      unsigned long addr, pte_t pte)
{
	return vm_normal_folio(vma, addr, pte);
}

/* The folio a migration entry @pte stands for, or NULL if it is none. */
__rust_helper struct folio *rust_helper_mm_rs_pte_migration_folio(pte_t pte)
{
	swp_entry_t entry;

	if (pte_present(pte) || pte_none(pte))
		return NULL;
	entry = pte_to_swp_entry(pte);
	return is_migration_entry(entry) ? pfn_swap_entry_folio(entry) : NULL;
}

__rust_helper bool rust_helper_mm_rs_folio_test_large(struct folio *folio)
{
	return folio_test_large(folio);
}

__rust_helper bool rust_helper_mm_rs_folio_test_ksm(struct folio *folio)
{
	return folio_test_ksm(folio);
}

/* Whether @mm has no users left (ksm_test_exit()): exit_mmap() may be running. */
__rust_helper bool rust_helper_mm_rs_mm_users_zero(struct mm_struct *mm)
{
	return atomic_read(&mm->mm_users) == 0;
}

__rust_helper void rust_helper_mm_rs_vma_start_write(struct vm_area_struct *vma)
{
	vma_start_write(vma);
}
#endif /* CONFIG_MM_RS_KSM_UNMERGE */

#endif /* CONFIG_MM_RS */
