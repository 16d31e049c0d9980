// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Freeing a detached table twice: free consumes it.

use kernel::mm::pmd::{DetachedPteTable, MmuGather};

pub fn f(table: DetachedPteTable<'_>, tlb: &mut MmuGather<'_>) {
    let _ = table.free(tlb);
    let _ = table.free(tlb);
}
