// SPDX-License-Identifier: GPL-2.0
// expect: E0133
//! Viewing C memory as a slot that holds a detached table (and so taking a table out of it that
//! nobody detached) takes unsafe code: the slot's contents are trusted.

use kernel::bindings;
use kernel::mm::pmd::{DetachedPteTable, DetachedSlot};

pub fn f<'a>(raw: &'a mut bindings::mm_rs_detached_pte) -> Option<DetachedPteTable<'a>> {
    DetachedSlot::from_raw(raw).take()
}
