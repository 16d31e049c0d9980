// SPDX-License-Identifier: GPL-2.0
// expect: E0308
//! Zeroing (and so mapping) a folio that was never charged: only a charged folio can be
//! zeroed into a `NewAnonFolio`.

use kernel::mm::{
    fault::VmFault,
    folio::{ChargedFolio, NewAnonFolio, NewFolio},
};

pub fn f<'a>(folio: NewFolio<'a>, vmf: &mut VmFault<'a>) -> NewAnonFolio<'a> {
    ChargedFolio::zero_user(folio, vmf)
}
