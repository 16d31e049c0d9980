// SPDX-License-Identifier: GPL-2.0
// expect: E0499
//! Taking the PMD lock outright while the PTE lock is held (review: a lock-order inversion, or
//! a self-deadlock where both are one lock): the witness of the PTE lock borrows the entry.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::pmd::{PmdRef, PteLockHeld};

pub fn f(pmd: &mut PmdRef<'_>, ptl: NonNull<bindings::spinlock_t>) {
    // SAFETY: (the misuse is what follows) the caller holds `ptl`, the lock of `pmd`'s table.
    let held = unsafe { PteLockHeld::from_raw(ptl, pmd) };
    let _g = pmd.lock();
    drop(held);
}
