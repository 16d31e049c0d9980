// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Taking the PTE lock twice under one PMD lock (review: self-deadlock): the nested guard
//! consumes the PMD guard.

use kernel::mm::pmd::PmdRef;

pub fn f(pmd: &mut PmdRef<'_>) {
    let pml = pmd.lock();
    let _a = pml.lock_pte_table();
    let _b = pml.lock_pte_table();
}
