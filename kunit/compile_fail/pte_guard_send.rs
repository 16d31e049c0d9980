// SPDX-License-Identifier: GPL-2.0
// expect: E0277
//! Sending the PTE lock's guard to another thread, which would unlock a spinlock it did not
//! take (and unmap a `kmap_local()` mapping of another task): guards are `!Send` by marker.

use kernel::mm::{fault::VmFault, pgtable::PteTableGuard};

fn send<T: Send>(_: T) {}

pub fn f(vmf: &mut VmFault<'_>) {
    if let Ok(pte) = vmf.lock_pte_block(0) {
        send::<PteTableGuard<'_, '_>>(pte);
    }
}
