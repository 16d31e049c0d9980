// SPDX-License-Identifier: GPL-2.0
// expect: E0451
//! Making a detached table out of thin air (review: `TableZap::set_detached` was safe while
//! `from_raw` relied on it): a `DetachedPteTable` comes from a detach only; C memory holds one
//! only through `DetachedSlot`.

use kernel::bindings;
use kernel::mm::{pmd::DetachedPteTable, Mm};

pub fn f(mm: &Mm, pmdval: bindings::pmd_t) -> DetachedPteTable<'_> {
    DetachedPteTable {
        mm,
        pmdval,
        addr: 0,
    }
}
