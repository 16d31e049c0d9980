// SPDX-License-Identifier: GPL-2.0
// expect: E0499
//! Sleeping with a PTE lock held: write-locking the VMA (`vma_start_write()`, a `down_write()`)
//! from a walk's visitor, which runs under the PTE spinlock. `start_write()` needs the task's
//! `MaySleep`, which the walk holds for its whole life.

use core::ops::ControlFlow;
use kernel::mm::{
    virt::MmapWriteLockedVma,
    walk::{MaySleep, PteEntry, PteVisitor, RangeWalk},
};

struct WriteLockThere<'a> {
    vma: &'a MmapWriteLockedVma,
    may_sleep: &'a mut MaySleep,
}

impl PteVisitor for WriteLockThere<'_> {
    type Break = ();

    fn pte_entry(&mut self, _entry: PteEntry<'_>) -> ControlFlow<()> {
        self.vma.start_write(self.may_sleep);
        ControlFlow::Continue(())
    }
}

pub fn f(vma: &MmapWriteLockedVma, may_sleep: &mut MaySleep) {
    let Some(mut walk) = RangeWalk::new(vma, may_sleep, vma.start(), vma.end()) else {
        return;
    };
    let mut v = WriteLockThere { vma, may_sleep };
    let _ = walk.walk(&mut v);
}
