// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Taking the PMD lock outright while the PTE lock is held and its witness still in use
//! (review: a lock-order inversion, or a self-deadlock where both are one lock): the witness
//! owns the entry.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::pmd::{PmdRef, PteLockHeld};

pub fn f(mut pmd: PmdRef<'_>, ptl: NonNull<bindings::spinlock_t>) -> bool {
    // SAFETY: (the misuse is what follows) the caller holds `ptl`, the lock of `pmd`'s table.
    let held = unsafe { PteLockHeld::from_raw(ptl, pmd) };
    let _g = pmd.lock();
    held.detach_if_empty().is_some()
}
