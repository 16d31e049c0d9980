// SPDX-License-Identifier: GPL-2.0

//! KUnit only: a range walk that counts what it visits, for the walker's own tests
//! (`kunit/mm_rs_ksm_test.c`).

use core::ops::ControlFlow::{self, Break, Continue};
use kernel::ffi::{c_int, c_ulong};
use kernel::{
    bindings,
    error::code::{EINVAL, EIO},
    mm::{
        virt::MmapLockedVma,
        walk::{MaySleep, PteEntry, PteVisitor, RangeWalk, Stopped},
    },
};

/// Counts into `c`; stops once, at the `stop_after`'th entry visited.
struct Count<'c> {
    c: &'c mut bindings::mm_rs_walk_counts,
    stop_after: usize,
    seen: usize,
    /// The PMD-sized block of the last entry visited, to count tables.
    block: Option<usize>,
}

impl PteVisitor for Count<'_> {
    type Break = ();

    fn pte_entry(&mut self, entry: PteEntry<'_>) -> ControlFlow<()> {
        let addr = entry.addr();
        self.seen = self.seen.saturating_add(1);
        if self.seen == self.stop_after {
            // Counted when visited again, after the stop.
            return Break(());
        }
        let c = &mut *self.c;
        c.entries = c.entries.wrapping_add(1);
        c.sum = c.sum.wrapping_add(addr);
        if c.first == 0 {
            c.first = addr;
        }
        c.last = addr;
        if entry.migration_folio().is_some() {
            c.migration = c.migration.wrapping_add(1);
        }
        let block = addr / bindings::MM_RS_PMD_SIZE;
        if self.block != Some(block) {
            self.block = Some(block);
            c.tables = c.tables.wrapping_add(1);
        }
        Continue(())
    }

    fn pmd_leaf(&mut self, _addr: usize) -> ControlFlow<()> {
        self.c.leaves = self.c.leaves.wrapping_add(1);
        Continue(())
    }

    fn pause(&mut self) -> ControlFlow<()> {
        self.c.pauses = self.c.pauses.wrapping_add(1);
        Continue(())
    }
}

/// Walks `[start, end)` of `vma`, counting into `c` (zeroed first); stops at the
/// `stop_after`'th entry and resumes at the same entry (never stops if 0). 0, `-EINVAL` if
/// the range is not page-aligned inside the VMA or the VMA is a hugetlb VMA, or `-EIO` if the
/// walk, once it returned its end, is not there or not done.
///
/// # Safety
///
/// `vma` must be a valid VMA in its mm's VMA tree, whose mmap lock the caller holds for the
/// call, with a reference on the mm's `mm_users`; `c` must be valid for writes; the caller must
/// be allowed to sleep.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_walk_count(
    vma: *mut bindings::vm_area_struct,
    start: c_ulong,
    end: c_ulong,
    stop_after: c_ulong,
    c: *mut bindings::mm_rs_walk_counts,
) -> c_int {
    // SAFETY: Guaranteed by the caller (an `mm_users` reference keeps `exit_mmap()` away).
    let (vma, c) = unsafe { (MmapLockedVma::from_raw(vma), &mut *c) };
    let Some(vma) = vma else {
        return EINVAL.to_errno();
    };
    *c = bindings::mm_rs_walk_counts::default();
    // SAFETY: The caller, a KUnit test holding the mmap lock, may sleep; this is the one
    // `MaySleep` of the call.
    let mut may_sleep = unsafe { MaySleep::new() };
    let Some(mut walk) = RangeWalk::new(vma, &mut may_sleep, start, end) else {
        return EINVAL.to_errno();
    };
    let mut count = Count {
        c,
        stop_after,
        seen: 0,
        block: None,
    };
    while let Break(((), at)) = walk.walk(&mut count) {
        count.c.stopped = at.addr();
    }
    ended_at_end(&walk, end)
}

/// 0 if `walk`, which returned its end, is there and done, as [`RangeWalk::addr`] and
/// [`RangeWalk::is_done`] promise (a walk resumed from there visits nothing); `-EIO` if not.
fn ended_at_end(walk: &RangeWalk<'_>, end: usize) -> c_int {
    if walk.is_done() && walk.addr() == end {
        0
    } else {
        EIO.to_errno()
    }
}

/// Counts entries into `c`; stops at every huge PMD leaf and every pause.
struct StopEverywhere<'c> {
    c: &'c mut bindings::mm_rs_walk_counts,
}

impl PteVisitor for StopEverywhere<'_> {
    type Break = ();

    fn pte_entry(&mut self, _entry: PteEntry<'_>) -> ControlFlow<()> {
        self.c.entries = self.c.entries.wrapping_add(1);
        Continue(())
    }

    fn pmd_leaf(&mut self, _addr: usize) -> ControlFlow<()> {
        Break(())
    }

    fn pause(&mut self) -> ControlFlow<()> {
        Break(())
    }
}

/// Walks `[start, end)` of `vma` stopping at every huge PMD leaf, which it skips
/// ([`LeafStop::skip_leaf`](kernel::mm::walk::LeafStop::skip_leaf)), and at every pause,
/// where it walks on; counts into `c` (zeroed first) the entries visited, the stops at a leaf
/// (`leaves`, and the sum of their addresses in `leaf_at`) and between tables (`pauses`). 0,
/// `-EINVAL` or `-EIO` as [`mm_rs_walk_count`].
///
/// # Safety
///
/// As for [`mm_rs_walk_count`].
#[no_mangle]
pub unsafe extern "C" fn mm_rs_walk_stops(
    vma: *mut bindings::vm_area_struct,
    start: c_ulong,
    end: c_ulong,
    c: *mut bindings::mm_rs_walk_counts,
) -> c_int {
    // SAFETY: Guaranteed by the caller (an `mm_users` reference keeps `exit_mmap()` away).
    let (vma, c) = unsafe { (MmapLockedVma::from_raw(vma), &mut *c) };
    let Some(vma) = vma else {
        return EINVAL.to_errno();
    };
    *c = bindings::mm_rs_walk_counts::default();
    // SAFETY: The caller, a KUnit test holding the mmap lock, may sleep; this is the one
    // `MaySleep` of the call.
    let mut may_sleep = unsafe { MaySleep::new() };
    let Some(mut walk) = RangeWalk::new(vma, &mut may_sleep, start, end) else {
        return EINVAL.to_errno();
    };
    let mut v = StopEverywhere { c };
    loop {
        match walk.walk(&mut v) {
            Continue(()) => return ended_at_end(&walk, end),
            Break(((), Stopped::Leaf(at))) => {
                v.c.leaves = v.c.leaves.wrapping_add(1);
                v.c.leaf_at = v.c.leaf_at.wrapping_add(at.addr());
                at.skip_leaf();
            }
            Break(((), Stopped::Between(_))) => v.c.pauses = v.c.pauses.wrapping_add(1),
            // `StopEverywhere` does not stop at entries.
            Break(((), Stopped::Entry(_))) => return EINVAL.to_errno(),
        }
    }
}

export_check!(mm_rs_walk_count);
export_check!(mm_rs_walk_stops);
