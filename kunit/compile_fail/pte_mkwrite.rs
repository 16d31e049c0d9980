// SPDX-License-Identifier: GPL-2.0
// expect: E0624
//! Making an entry writable (review: `map_zero_page(vmf, |p| p.mkwrite_dirty(vma))` mapped the
//! zero page writable): an entry's bits change only inside the install, and the one change it
//! makes (the uffd-wp bit) is private to the abstraction.

use kernel::mm::pgtable::Pte;

pub fn f(pte: Pte) -> Pte {
    pte.mkuffd_wp()
}
