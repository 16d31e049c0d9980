// SPDX-License-Identifier: GPL-2.0
// expect: E0133
//! Making a detached table out of thin air (review: `TableZap::set_detached` was safe while
//! `from_raw` relied on it): only unsafe code can, and set_detached takes the real thing.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::pmd::DetachedPteTable;

pub fn f(mm: NonNull<bindings::mm_struct>, pmd: bindings::pmd_t) -> DetachedPteTable {
    DetachedPteTable::from_raw(mm, pmd, 0)
}
