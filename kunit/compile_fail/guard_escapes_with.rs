// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough
//! Carrying the PTE lock's guard out of the call that lent the fault: `with` lends it for any
//! lifetime, which nothing it returns may name.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::fault::VmFault;

/// # Safety
///
/// `vmf` must be a fault being handled.
pub unsafe fn f(vmf: NonNull<bindings::vm_fault>) -> bool {
    // SAFETY: Guaranteed by the caller.
    let guard = unsafe { VmFault::with(vmf, |v| v.lock_pte_block(0).ok()) };
    guard.is_some()
}
