// SPDX-License-Identifier: GPL-2.0
// expect: E0277
//! Sending the nested guard of the PMD and PTE locks to another thread: `!Send` by marker.

use kernel::mm::pmd::{PmdRef, PteTableNestedGuard};

fn send<T: Send>(_: T) {}

pub fn f(pmd: &mut PmdRef<'_>) {
    if let Some(pte) = pmd.lock().lock_pte_table() {
        send::<PteTableNestedGuard<'_, '_>>(pte);
    }
}
