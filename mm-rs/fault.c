// SPDX-License-Identifier: GPL-2.0
/*
 * The fault side of mm/internal.h for rust/kernel/mm/fault.rs: the Rust
 * helpers cannot include mm's internal header.
 */

#include <kunit/static_stub.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>

#include "internal.h"

/*
 * vmf_anon_prepare(): an anon_vma for the fault's VMA. VM_FAULT_RETRY when
 * the VMA lock had to be dropped for the mmap lock, VM_FAULT_OOM.
 */
vm_fault_t mm_rs_vmf_anon_prepare(struct vm_fault *vmf)
{
	return vmf_anon_prepare(vmf);
}

#if IS_ENABLED(CONFIG_MM_RS_KUNIT_TEST)
/*
 * KUnit builds only: the Rust fault path allocates and charges its large
 * folios through these (rust/helpers/mm_rs.c), which a test redirects with a
 * KUnit static stub to fail as the allocator or the memcg would, so that the
 * mTHP statistics of those failures are checked on the real fault path. In
 * other builds the helpers call vma_alloc_folio() and mem_cgroup_charge().
 */
struct folio *mm_rs_fault_alloc_folio(gfp_t gfp, int order, struct vm_area_struct *vma,
				      unsigned long addr)
{
	KUNIT_STATIC_STUB_REDIRECT(mm_rs_fault_alloc_folio, gfp, order, vma, addr);
	return vma_alloc_folio(gfp, order, vma, addr, true);
}

int mm_rs_fault_charge_folio(struct folio *folio, struct mm_struct *mm, gfp_t gfp)
{
	KUNIT_STATIC_STUB_REDIRECT(mm_rs_fault_charge_folio, folio, mm, gfp);
	return mem_cgroup_charge(folio, mm, gfp);
}
#endif

#ifdef CONFIG_MM_RS_KSM_UNMERGE
vm_fault_t mm_rs_ksm_unshare_fault(struct vm_area_struct *vma, unsigned long addr)
{
	KUNIT_STATIC_STUB_REDIRECT(mm_rs_ksm_unshare_fault, vma, addr);
	return handle_mm_fault(vma, addr, FAULT_FLAG_UNSHARE | FAULT_FLAG_REMOTE, NULL);
}
#endif
