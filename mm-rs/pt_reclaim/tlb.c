// SPDX-License-Identifier: GPL-2.0
/*
 * The mmu_gather side of mm-rs PT reclaim, for mm/mm_rs/pt_reclaim/free.rs:
 * <asm/tlb.h> is for .c files of mm, not for the Rust helpers.
 */

#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <asm/pgalloc.h>
#include <asm/tlb.h>

struct mm_struct *mm_rs_tlb_mm(struct mmu_gather *tlb)
{
	return tlb->mm;
}

/*
 * Frees the PTE table @pmdval pointed to, detached from the PMD of @addr:
 * pte_free_tlb() flushes the TLB for the PMD's range and hands the table to
 * the mmu_gather, which frees it after a grace period.
 */
void mm_rs_free_pte(struct mmu_gather *tlb, pmd_t pmdval, unsigned long addr)
{
	pte_free_tlb(tlb, pmd_pgtable(pmdval), addr);
	mm_dec_nr_ptes(tlb->mm);
}
