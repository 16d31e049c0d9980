// SPDX-License-Identifier: GPL-2.0
// expect: E0451
//! Pairing a folio with an entry of the caller's choosing: the fields are private.

use kernel::mm::{
    fault::VmFault,
    folio::NewAnonFolio,
    pgtable::{AnonFolioPte, Pte},
};

pub fn f(vmf: &VmFault<'_>, folio: NewAnonFolio, entry: Pte) -> AnonFolioPte {
    AnonFolioPte {
        folio,
        entry,
        order: 0,
        vmf: vmf.as_ptr(),
    }
}
