// SPDX-License-Identifier: GPL-2.0
// expect: E0499
//! Sleeping with a PTE lock held: faulting, from the visitor of one walk (which runs under a PTE
//! lock), at the place another walk stopped. Both walks would need the task's `MaySleep`.

use core::ops::ControlFlow;
use kernel::mm::{
    virt::MmapLockedVma,
    walk::{EntryStop, MaySleep, PteEntry, PteVisitor, RangeWalk, Stopped},
};

struct FaultThere<'s, 'w, 'v>(&'s mut EntryStop<'w, 'v>);

impl PteVisitor for FaultThere<'_, '_, '_> {
    type Break = ();

    fn pte_entry(&mut self, _entry: PteEntry<'_>) -> ControlFlow<()> {
        self.0.unshare_fault();
        ControlFlow::Continue(())
    }
}

struct Any;

impl PteVisitor for Any {
    type Break = ();

    fn pte_entry(&mut self, _entry: PteEntry<'_>) -> ControlFlow<()> {
        ControlFlow::Break(())
    }
}

pub fn f(vma: &MmapLockedVma, may_sleep: &mut MaySleep) {
    let (start, end) = (vma.start(), vma.end());
    let Some(mut first) = RangeWalk::new(vma, may_sleep, start, end) else {
        return;
    };
    let Some(mut second) = RangeWalk::new(vma, may_sleep, start, end) else {
        return;
    };
    if let ControlFlow::Break(((), Stopped::Entry(mut at))) = first.walk(&mut Any) {
        let _ = second.walk(&mut FaultThere(&mut at));
    }
}
