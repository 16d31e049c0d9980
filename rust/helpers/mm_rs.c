// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the mm-rs abstractions in rust/kernel/mm/: the static inline
 * functions and macros of the mm headers that Rust cannot call directly.
 */

#include <linux/gfp.h>
#include <linux/huge_mm.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/swap.h>

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

#ifdef CONFIG_TRANSPARENT_HUGEPAGE
void rust_helper_mm_rs_count_mthp_stat(int order, enum mthp_stat_item item)
{
	count_mthp_stat(order, item);
}
#endif

#endif /* CONFIG_MM_RS */
