// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough
//! Keeping a detached table past the mm it belongs to (review: it had no lifetime, and its
//! check against the gather compared pointers of an mm that may be gone).

use kernel::mm::pmd::{DetachedPteTable, PmdRef};

pub fn f<'a, 'b>(pmd: &mut PmdRef<'a>) -> Option<DetachedPteTable<'b>> {
    pmd.lock().lock_pte_table()?.detach_if_empty()
}
