// SPDX-License-Identifier: GPL-2.0
// expect: E0599
//! Locking the PTE table at an address of the caller's choosing (review: nothing tied it to
//! the VMA, the folio's alignment or the rmap address): the block comes from the fault's
//! address and an order, validated against the VMA.

use kernel::mm::fault::VmFault;

pub fn f(vmf: &VmFault<'_>, addr: usize) -> bool {
    vmf.lock_pte_table(addr).is_some()
}
