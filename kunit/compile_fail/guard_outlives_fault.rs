// SPDX-License-Identifier: GPL-2.0
// expect: E0515
//! Keeping the PTE lock's guard past the fault it was taken for.

use kernel::mm::{fault::VmFault, pgtable::PteTableGuard};

pub fn f<'a>(mut vmf: VmFault<'a>) -> Option<PteTableGuard<'a, 'a>> {
    vmf.lock_pte_block(0).ok()
}
