// SPDX-License-Identifier: GPL-2.0
/*
 * The fault side of mm/internal.h for rust/kernel/mm/fault.rs: the Rust
 * helpers cannot include mm's internal header.
 */

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
