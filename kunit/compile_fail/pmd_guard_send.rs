// SPDX-License-Identifier: GPL-2.0
// expect: E0277
//! Sending the PMD lock's guard, or the nested PTE guard that holds it, to another thread: a
//! spinlock is released by the task that took it; guards are `!Send` by marker.

use kernel::mm::pmd::{PmdGuard, PmdRef};

fn send<T: Send>(_: T) {}

pub fn f(pmd: &mut PmdRef<'_>) {
    send::<PmdGuard<'_, '_>>(pmd.lock());
}
