// SPDX-License-Identifier: GPL-2.0
// expect: E0515
//! Keeping a PTE table mapping past what keeps the table allocated (review: `PteTableMap` had
//! no lifetime): the mapping borrows the fault.

use kernel::mm::{fault::VmFault, pgtable::PteTableMap};

pub fn f<'a>(mut vmf: VmFault<'a>) -> Option<PteTableMap<'a>> {
    vmf.map_pte_table()
}
