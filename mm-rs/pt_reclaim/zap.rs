// SPDX-License-Identifier: GPL-2.0

//! The reference logic: what a zap of one PTE table leaves in it, and whether the table can go.
//!
//! `zap_pte_range()` may stop before the end of the table (`need_resched()`, a full mmu_gather
//! batch) and drop the PTE lock; `zap_pmd_range()` then calls it again for the rest. So one table
//! is zapped in one or more *passes*, and its state lives across them in C's
//! `struct mm_rs_pt_pass`, which only this module reads or writes.
//!
//! A table can go when the zap covered all of it and left no live entry. While the PTE lock was
//! held for the whole zap, the entries the zap left live are exactly the ones it counted: then the
//! table goes on the fast path. Once the lock was dropped, faults may have refilled entries the
//! zap had already passed, so only a recheck of every entry under both locks (the slow path) can
//! tell; freeing on the count then was mainline's "Bad rss-counter state" bug.

use kernel::bindings;
use kernel::mm::pgtable::{PteRangeLocked, PTRS_PER_PTE};

pub(crate) use kernel::mm::pmd::PMD_SIZE;

/// What to do with a table at the end of a pass.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Reclaim {
    /// The pass stopped early; the table's zap resumes in another pass.
    Continue,
    /// The table stays: the zap did not cover all of it, or left live entries in it.
    Keep,
    /// Detach the table under the PTE lock still held, if the PMD lock can be had.
    Fast,
    /// Detach the table after checking every entry under both locks.
    Slow,
}

/// Whether a zap of `[addr, end)` covers the whole PTE table around `addr`.
///
/// The zap stays in one VMA, so a table it covers holds no entry of another VMA.
pub(crate) fn covers_table(addr: usize, end: usize) -> bool {
    addr % PMD_SIZE == 0 && end.checked_sub(addr) == Some(PMD_SIZE)
}

/// The zap of one table, as it stands (C's `struct mm_rs_pt_pass`).
pub(crate) struct TableZap<'a>(&'a mut bindings::mm_rs_pt_pass);

impl<'a> TableZap<'a> {
    /// Views the zap state `z`, zero-initialised by its zap and changed since only here.
    pub(crate) fn new(z: &'a mut bindings::mm_rs_pt_pass) -> Self {
        Self(z)
    }

    /// Called before each pass over `[addr, end)` of a table. A pass over the table the last
    /// pass ended in is a resumption, after the PTE lock was dropped; any other starts afresh.
    pub(crate) fn begin(&mut self, addr: usize, end: usize) {
        let z = &mut *self.0;
        if z.end == end && end != 0 {
            z.relocked = true;
            return;
        }
        z.end = end;
        z.live = 0;
        z.whole = covers_table(addr, end);
        z.relocked = false;
    }

    /// Counts the entries of one zap step that are still live after it: a uffd-wp marker put
    /// back, or an entry the zap chose to keep (a folio or swap entry of another owner).
    pub(crate) fn count(&mut self, entries: &PteRangeLocked<'_>) {
        let live = u32::try_from(entries.count_not_none()).unwrap_or(u32::MAX);
        self.0.live = self.0.live.saturating_add(live);
    }

    /// What to do once a pass ended at `addr`.
    pub(crate) fn decide(&self, addr: usize) -> Reclaim {
        let z = &*self.0;
        if addr != z.end {
            Reclaim::Continue
        } else if !z.whole || z.live != 0 {
            Reclaim::Keep
        } else if z.relocked {
            Reclaim::Slow
        } else {
            Reclaim::Fast
        }
    }

    /// Whether the zap covers the whole table.
    pub(crate) fn whole(&self) -> bool {
        self.0.whole
    }
}

// The live count cannot exceed a table; a saturated count still keeps the table.
const _: () = assert!(PTRS_PER_PTE <= u32::MAX as usize);
