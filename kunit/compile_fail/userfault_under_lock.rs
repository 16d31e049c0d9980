// SPDX-License-Identifier: GPL-2.0
// expect: E0505
//! Handing the fault to userfaultfd with the PTE lock held (review: sleeping under a
//! spinlock): the guard borrows the fault, which the hand-off consumes.

use kernel::mm::{
    fault::{FaultOutcome, VmFault},
    pgtable::UserfaultMissing,
};

pub fn f<'a>(mut vmf: VmFault<'a>, proof: UserfaultMissing<'a>) -> FaultOutcome<'a> {
    let pte = vmf.lock_pte_block(0);
    let ret = vmf.handle_userfault_missing(proof);
    drop(pte);
    ret
}
