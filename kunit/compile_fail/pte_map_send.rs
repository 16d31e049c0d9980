// SPDX-License-Identifier: GPL-2.0
// expect: E0277
//! Sending a lockless PTE-table mapping to another thread, outside the RCU read-side section
//! (and the `kmap_local()` mapping) that keeps the table: `!Send` by marker.

use kernel::mm::{fault::VmFault, pgtable::PteTableMap};

fn send<T: Send>(_: T) {}

pub fn f(vmf: &mut VmFault<'_>) {
    if let Some(map) = vmf.map_pte_table() {
        send::<PteTableMap<'_>>(map);
    }
}
