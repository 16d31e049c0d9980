// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! The fast path's detach twice with one PTE-lock witness: it consumes the witness.

use kernel::mm::pmd::{DetachedPteTable, PteLockHeld};

pub fn f(held: PteLockHeld<'_>) -> Option<DetachedPteTable<'_>> {
    let _a = held.detach_if_empty();
    held.detach_if_empty()
}
