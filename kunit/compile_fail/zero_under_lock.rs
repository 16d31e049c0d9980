// SPDX-License-Identifier: GPL-2.0
// expect: E0499
//! Zeroing (which may sleep) with the PTE spinlock held: the sleeping folio operations borrow
//! the fault mutably, as the guard does.

use kernel::mm::{
    fault::VmFault,
    folio::{ChargedFolio, NewAnonFolio},
};

pub fn f<'a>(mut vmf: VmFault<'a>, folio: ChargedFolio<'a>) -> NewAnonFolio<'a> {
    let pte = vmf.lock_pte_block(0);
    let folio = folio.zero_user(&mut vmf);
    drop(pte);
    folio
}
