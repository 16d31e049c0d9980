// SPDX-License-Identifier: GPL-2.0
// expect: E0451
//! Pairing a folio with an entry of the caller's choosing: the fields are private.

use kernel::mm::{
    folio::NewAnonFolio,
    pgtable::{AnonFolioPte, Pte},
};

pub fn f<'a>(folio: NewAnonFolio<'a>, entry: Pte) -> AnonFolioPte<'a> {
    AnonFolioPte { folio, entry }
}
