// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Detaching the same table twice (review: the second detach cleared a none PMD and freed
//! pmd_pgtable(none)): detaching consumes the nested guard.

use kernel::mm::pmd::{DetachedPteTable, PmdRef};

pub fn f<'a>(pmd: &mut PmdRef<'a>) -> Option<(DetachedPteTable<'a>, DetachedPteTable<'a>)> {
    let nested = pmd.lock().lock_pte_table()?;
    let a = nested.detach_if_empty();
    let b = nested.detach_if_empty();
    Some((a?, b?))
}
