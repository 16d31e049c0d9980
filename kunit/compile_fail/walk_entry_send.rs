// SPDX-License-Identifier: GPL-2.0
// expect: E0277
//! Sending a PTE entry to another thread, which does not hold its PTE lock: `!Send` by marker.

use core::ops::ControlFlow;
use kernel::mm::walk::{PteEntry, PteVisitor};

fn send<T: Send>(_: T) {}

pub struct Sender;

impl PteVisitor for Sender {
    type Break = ();

    fn pte_entry(&mut self, entry: PteEntry<'_>) -> ControlFlow<()> {
        send(entry);
        ControlFlow::Continue(())
    }
}
