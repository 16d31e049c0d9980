// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough
//! Installing a folio allocated, charged and zeroed for one fault (its mm's memcg, its address)
//! in another fault: the folio carries its fault's lifetime, which no other fault shares.

use kernel::mm::{fault::VmFault, folio::NewAnonFolio, pgtable::AnonFolioPte};

pub fn f<'a, 'b>(other: &VmFault<'b>, folio: NewAnonFolio<'a>) -> bool {
    AnonFolioPte::new(other, folio).is_ok()
}
