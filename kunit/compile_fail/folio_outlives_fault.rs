// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough
//! Keeping a folio readied for one fault past the call that lent the fault, to install it in a
//! later one.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::{fault::VmFault, folio::NewFolio};

/// # Safety
///
/// `vmf` must be a fault being handled.
pub unsafe fn f(vmf: NonNull<bindings::vm_fault>) -> bool {
    // SAFETY: Guaranteed by the caller.
    let folio = unsafe { VmFault::with(vmf, |v| NewFolio::vma_alloc(0, 0, v)) };
    folio.is_some()
}
