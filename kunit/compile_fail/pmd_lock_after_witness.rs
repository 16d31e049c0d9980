// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Taking the PMD lock after the last use of the PTE-lock witness, while C still holds the PTE
//! lock (review: with a borrowed entry this compiled once the borrow ended, since the witness
//! has no `Drop`): the witness owns the entry, which goes with it.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::pmd::{PmdRef, PteLockHeld};

pub fn f(mut pmd: PmdRef<'_>, ptl: NonNull<bindings::spinlock_t>) -> bool {
    // SAFETY: (the misuse is what follows) the caller holds `ptl`, the lock of `pmd`'s table.
    let held = unsafe { PteLockHeld::from_raw(ptl, pmd) };
    let detached = held.detach_if_empty().is_some();
    let _g = pmd.lock();
    detached
}
