// SPDX-License-Identifier: GPL-2.0
// expect: E0499
//! Taking the fault's PTE lock twice (a self-deadlock): the guard borrows the fault mutably.

use kernel::mm::fault::VmFault;

pub fn f(mut vmf: VmFault<'_>) {
    let _a = vmf.lock_pte_block(0);
    let _b = vmf.lock_pte_block(0);
}
