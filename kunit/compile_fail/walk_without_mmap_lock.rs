// SPDX-License-Identifier: GPL-2.0
// expect: E0308
//! Walking page tables with only a `VmaRef`, which the per-VMA lock may be all that backs: the
//! walk needs the mmap lock (`MmapLockedVma`), which keeps the upper page tables and lets the
//! fault of a stopped walk run without `FAULT_FLAG_VMA_LOCK`.

use kernel::mm::{
    virt::VmaRef,
    walk::{MaySleep, RangeWalk},
};

pub fn f<'v>(vma: &'v VmaRef, may_sleep: &'v mut MaySleep) -> bool {
    RangeWalk::new(vma, may_sleep, vma.start(), vma.end()).is_some()
}
