// SPDX-License-Identifier: GPL-2.0
// expect: E0624
//! Making an entry from a raw value (review: `map_folio(vmf, f, |_| other_pte)` mapped any
//! page): `Pte` values come from page tables only.

use kernel::bindings;
use kernel::mm::pgtable::Pte;

pub fn f(raw: bindings::pte_t) -> Pte {
    Pte::from_table(raw)
}
