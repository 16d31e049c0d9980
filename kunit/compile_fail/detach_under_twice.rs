// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! The fast path's detach twice under one PMD guard: it consumes the guard.

use kernel::mm::pmd::{DetachedPteTable, PmdRef, PteLockHeld};

pub fn f(
    pmd: &mut PmdRef<'_>,
    held: PteLockHeld<'_>,
    held2: PteLockHeld<'_>,
) -> Option<DetachedPteTable> {
    let pml = pmd.try_lock_under(&held)?;
    let _a = pml.detach_if_empty_under(held);
    pml.detach_if_empty_under(held2)
}
