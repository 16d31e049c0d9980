// SPDX-License-Identifier: GPL-2.0
// expect: E0507
//! Ending a fault (handing it to userfaultfd, which may drop its lock) from code that was only
//! lent the fault by reference, whose C caller goes on using it.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::{fault::VmFault, pgtable::Refused};

/// # Safety
///
/// `vmf` must be a fault being handled.
pub unsafe fn f(vmf: NonNull<bindings::vm_fault>) {
    // SAFETY: Guaranteed by the caller.
    unsafe {
        VmFault::with(vmf, |v| {
            let proof = match v.lock_pte_block(0) {
                Ok(mut pte) => match pte.vacant_zero_page() {
                    Err(Refused::UserfaultMissing(proof)) => Some(proof),
                    _ => None,
                },
                Err(_) => None,
            };
            if let Some(proof) = proof {
                let _ = (*v).handle_userfault_missing(proof);
            }
        })
    };
}
