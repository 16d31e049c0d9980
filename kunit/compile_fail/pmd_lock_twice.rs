// SPDX-License-Identifier: GPL-2.0
// expect: E0499
//! Taking a PMD lock twice (a self-deadlock): the guard borrows the entry mutably.

use kernel::mm::pmd::PmdRef;

pub fn f(pmd: &mut PmdRef<'_>) {
    let _a = pmd.lock();
    let _b = pmd.lock();
}
