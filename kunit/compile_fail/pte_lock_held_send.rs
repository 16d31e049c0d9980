// SPDX-License-Identifier: GPL-2.0
// expect: E0277
//! Sending the witness of a PTE lock held by this task's C caller to another thread, which
//! would detach the table without holding its lock: `!Send` by marker.

use kernel::mm::pmd::PteLockHeld;

fn send<T: Send>(_: T) {}

pub fn f(held: PteLockHeld<'_>) {
    send::<PteLockHeld<'_>>(held);
}
