// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! The fast path's detach twice with one PTE-lock witness: it consumes the witness.

use kernel::mm::pmd::{DetachedPteTable, PteLockHeld};

pub fn f<'a>(held: PteLockHeld<'_, 'a>) -> Option<DetachedPteTable<'a>> {
    let _a = held.detach_if_empty();
    held.detach_if_empty()
}
