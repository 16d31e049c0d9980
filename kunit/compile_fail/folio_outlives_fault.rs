// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough|does not live long enough|E0515|E0597|E0621
//! Keeping a folio readied for one fault to install it in another: it cannot outlive the fault.

use kernel::mm::{fault::VmFault, folio::NewAnonFolio, pgtable::AnonFolioPte};

pub fn f<'b>(vmf: VmFault<'_>, folio: NewAnonFolio) -> Option<AnonFolioPte<'b>> {
    AnonFolioPte::new(&vmf, folio).ok()
}
