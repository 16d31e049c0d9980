// SPDX-License-Identifier: GPL-2.0
// expect: E0507
//! Ending a fault (handing it to userfaultfd, which may drop its lock) from code that was only
//! lent the fault by reference, whose C caller goes on using it.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::fault::VmFault;

/// # Safety
///
/// `vmf` must be a fault being handled.
pub unsafe fn f(vmf: NonNull<bindings::vm_fault>) {
    // SAFETY: Guaranteed by the caller.
    unsafe {
        VmFault::with(vmf, |v| {
            let _ = (*v).handle_userfault_missing();
        })
    };
}
