// SPDX-License-Identifier: GPL-2.0
// expect: E0599
//! Making an entry writable (review: `map_zero_page(vmf, |p| p.mkwrite_dirty(vma))` mapped the
//! zero page writable): entries are built inside the install, from the VMA.

use kernel::mm::{fault::VmFault, pgtable::Pte};

pub fn f(vmf: &VmFault<'_>, pte: Pte) -> Pte {
    pte.mkwrite_dirty(vmf.vma())
}
