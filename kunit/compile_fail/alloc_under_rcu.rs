// SPDX-License-Identifier: GPL-2.0
// expect: E0499
//! Allocating (which may sleep) inside the RCU section of a lockless PTE-table mapping.

use kernel::mm::{
    fault::VmFault,
    folio::{Gfp, NewFolio},
};

pub fn f<'a>(mut vmf: VmFault<'a>, gfp: Gfp) -> Option<NewFolio<'a>> {
    let map = vmf.map_pte_table();
    let folio = NewFolio::vma_alloc(gfp, 0, &mut vmf);
    drop(map);
    folio
}
