// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the mm-rs abstractions in rust/kernel/mm/: the static inline
 * functions and macros of the mm headers that Rust cannot call directly.
 */

#include <linux/gfp.h>
#include <linux/oom.h>
#include <linux/rmap.h>
#include <linux/userfaultfd_k.h>
#include <linux/huge_mm.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>
#include <linux/swap.h>
#include <linux/vmstat.h>

#ifdef CONFIG_MM_RS

bool rust_helper_mm_rs_vma_is_temporary_stack(struct vm_area_struct *vma)
{
	return vma_is_temporary_stack(vma);
}

bool rust_helper_mm_rs_vma_is_dax(struct vm_area_struct *vma)
{
	return vma_is_dax(vma);
}

pte_t *rust_helper_mm_rs_pte_offset_map(pmd_t *pmd, unsigned long addr)
{
	return pte_offset_map(pmd, addr);
}

void rust_helper_mm_rs_pte_unmap(pte_t *pte)
{
	pte_unmap(pte);
}

/* C's pte_range_none() in mm/memory.c, one call for the whole range. */
bool rust_helper_mm_rs_pte_range_none(pte_t *pte, int nr)
{
	int i;

	for (i = 0; i < nr; i++) {
		if (!pte_none(ptep_get_lockless(pte + i)))
			return false;
	}
	return true;
}

struct folio *rust_helper_mm_rs_vma_alloc_folio(gfp_t gfp, int order,
						struct vm_area_struct *vma,
						unsigned long addr)
{
	return vma_alloc_folio(gfp, order, vma, addr, true);
}

int rust_helper_mm_rs_mem_cgroup_charge(struct folio *folio,
					struct mm_struct *mm, gfp_t gfp)
{
	return mem_cgroup_charge(folio, mm, gfp);
}

void rust_helper_mm_rs_folio_throttle_swaprate(struct folio *folio, gfp_t gfp)
{
	folio_throttle_swaprate(folio, gfp);
}

void rust_helper_mm_rs_folio_put(struct folio *folio)
{
	folio_put(folio);
}

/* Page table entries (rust/kernel/mm/pgtable.rs). */

bool rust_helper_mm_rs_pte_none(pte_t pte)
{
	return pte_none(pte);
}

bool rust_helper_mm_rs_pte_same(pte_t a, pte_t b)
{
	return pte_same(a, b);
}

bool rust_helper_mm_rs_pte_marker_uffd_wp(pte_t pte)
{
	return pte_marker_uffd_wp(pte);
}

pte_t rust_helper_mm_rs_pte_sw_mkyoung(pte_t pte)
{
	return pte_sw_mkyoung(pte);
}

pte_t rust_helper_mm_rs_pte_mkwrite_dirty(pte_t pte, struct vm_area_struct *vma)
{
	return pte_mkwrite(pte_mkdirty(pte), vma);
}

pte_t rust_helper_mm_rs_pte_mkuffd_wp(pte_t pte)
{
	return pte_mkuffd_wp(pte);
}

pte_t rust_helper_mm_rs_ptep_get(pte_t *ptep)
{
	return ptep_get(ptep);
}

pte_t *rust_helper_mm_rs_pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd,
					     unsigned long addr, spinlock_t **ptlp)
{
	return pte_offset_map_lock(mm, pmd, addr, ptlp);
}

void rust_helper_mm_rs_pte_unmap_unlock(pte_t *pte, spinlock_t *ptl)
{
	pte_unmap_unlock(pte, ptl);
}

void rust_helper_mm_rs_set_ptes(struct mm_struct *mm, unsigned long addr,
				pte_t *ptep, pte_t pte, unsigned int nr)
{
	set_ptes(mm, addr, ptep, pte, nr);
}

void rust_helper_mm_rs_update_mmu_tlb_range(struct vm_area_struct *vma,
					    unsigned long addr, pte_t *ptep,
					    unsigned int nr)
{
	update_mmu_tlb_range(vma, addr, ptep, nr);
}

void rust_helper_mm_rs_update_mmu_cache_range(struct vm_fault *vmf,
					      struct vm_area_struct *vma,
					      unsigned long addr, pte_t *ptep,
					      unsigned int nr)
{
	update_mmu_cache_range(vmf, vma, addr, ptep, nr);
}

pte_t rust_helper_mm_rs_folio_mk_pte(struct folio *folio,
				     struct vm_area_struct *vma)
{
	return mk_pte(&folio->page, vma->vm_page_prot);
}

pte_t rust_helper_mm_rs_zero_page_pte(unsigned long addr,
				      struct vm_area_struct *vma)
{
	return pte_mkspecial(pfn_pte(my_zero_pfn(addr), vma->vm_page_prot));
}

/* Folios (rust/kernel/mm/folio.rs). */

unsigned int rust_helper_mm_rs_folio_order(struct folio *folio)
{
	return folio_order(folio);
}

size_t rust_helper_mm_rs_folio_nr_pages(struct folio *folio)
{
	return folio_nr_pages(folio);
}

void rust_helper_mm_rs_folio_mark_uptodate(struct folio *folio)
{
	__folio_mark_uptodate(folio);
}

void rust_helper_mm_rs_folio_ref_add(struct folio *folio, int nr)
{
	folio_ref_add(folio, nr);
}

void rust_helper_mm_rs_folio_put_refs(struct folio *folio, int nr)
{
	folio_put_refs(folio, nr);
}

/* Faults and mms (rust/kernel/mm/fault.rs, virt.rs). */

void rust_helper_mm_rs_add_mm_counter(struct mm_struct *mm, int member, long value)
{
	add_mm_counter(mm, member, value);
}

vm_fault_t rust_helper_mm_rs_check_stable_address_space(struct mm_struct *mm)
{
	return check_stable_address_space(mm);
}

vm_fault_t rust_helper_mm_rs_handle_userfault(struct vm_fault *vmf,
					      unsigned long reason)
{
	return handle_userfault(vmf, reason);
}

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
void rust_helper_mm_rs_count_mthp_stat(int order, enum mthp_stat_item item)
{
	count_mthp_stat(order, item);
}
#endif

/* PMD entries, their locks and freeing PTE tables (rust/kernel/mm/pmd.rs). */

spinlock_t *rust_helper_mm_rs_pmd_lockptr(struct mm_struct *mm, pmd_t *pmd)
{
	return pmd_lockptr(mm, pmd);
}

bool rust_helper_mm_rs_spin_trylock(spinlock_t *lock)
{
	return spin_trylock(lock);
}

/* The PTE lock of a table, nested inside its PMD lock. */
void rust_helper_mm_rs_spin_lock_nested(spinlock_t *lock)
{
	spin_lock_nested(lock, SINGLE_DEPTH_NESTING);
}

pte_t *rust_helper_mm_rs_pte_offset_map_nolock(struct mm_struct *mm, pmd_t *pmd,
					       unsigned long addr,
					       spinlock_t **ptlp)
{
	return pte_offset_map_nolock(mm, pmd, addr, ptlp);
}

/* Detaches the PTE table @pmd points to; both its locks are held. */
pmd_t rust_helper_mm_rs_pmdp_get_and_clear_table(pmd_t *pmd)
{
	pmd_t pmdval = pmdp_get_lockless(pmd);

	pmd_clear(pmd);
	return pmdval;
}

#ifdef CONFIG_MM_RS_PT_RECLAIM
void rust_helper_mm_rs_count_vm_event(enum vm_event_item item)
{
	count_vm_event(item);
}
#endif

/* The largest folio order of the page cache (rust/kernel/mm/folio.rs). */
unsigned int rust_helper_mm_rs_max_pagecache_order(void)
{
	return MAX_PAGECACHE_ORDER;
}

#endif /* CONFIG_MM_RS */
