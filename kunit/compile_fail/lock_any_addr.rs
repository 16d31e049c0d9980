// SPDX-License-Identifier: GPL-2.0
// expect: E0624
//! Locking the PTE table at an address of the caller's choosing (review: nothing tied it to
//! the VMA, the folio's alignment or the rmap address): the guard's constructor is private to
//! the abstraction; the block comes from the fault's address and an order, validated against
//! the VMA (`lock_pte_block`), or from a folio made for the fault (`lock_folio_block`).

use kernel::mm::{fault::VmFault, pgtable::PteTableGuard};

pub fn f<'g, 'a>(vmf: &'g VmFault<'a>, addr: usize) -> bool {
    // SAFETY: (the misuse) an address and a size of the caller's choosing.
    unsafe { PteTableGuard::lock(vmf, addr, 1) }.is_some()
}
