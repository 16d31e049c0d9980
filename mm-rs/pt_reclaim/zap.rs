// SPDX-License-Identifier: GPL-2.0

//! The reference logic: what a zap of one PTE table leaves in it, and whether the table can go.
//!
//! `zap_pte_range()` may stop before the end of the table (`need_resched()`, a full mmu_gather
//! batch) and drop the PTE lock; `zap_pmd_range()` then calls it again for the rest. So one table
//! is zapped in one or more *passes*, and its state lives across them in C's
//! `struct mm_rs_pt_zap`, which only this module reads or writes.
//!
//! A table can go when the zap covered all of it and left no live entry. While the PTE lock was
//! held for the whole zap, the entries the zap left live are exactly the ones it counted: then the
//! table goes on the fast path. Once the lock was dropped, faults may have refilled entries the
//! zap had already passed, so only a recheck of every entry under both locks (the slow path) can
//! tell; freeing on the count then was mainline's "Bad rss-counter state" bug.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::{
    pgtable::{PteRangeLocked, PTRS_PER_PTE},
    pmd::DetachedPteTable,
};

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

/// The zap of one table, as it stands (a view of C's `struct mm_rs_pt_zap`).
///
/// # Invariants
///
/// While `detached` is set, `mm`, `pmdval` and `pmd_addr` are a [`DetachedPteTable`] given up
/// with [`DetachedPteTable::into_raw`] by [`Self::set_detached`] and not taken back yet.
pub(crate) struct TableZap<'a>(&'a mut bindings::mm_rs_pt_zap);

impl<'a> TableZap<'a> {
    /// Views the zap state `z`.
    ///
    /// # Safety
    ///
    /// `z` must have been zero-initialised by its zap and since changed only through
    /// `TableZap`, so that the type invariants hold.
    pub(crate) unsafe fn new(z: &'a mut bindings::mm_rs_pt_zap) -> Self {
        // INVARIANT: Guaranteed by the caller.
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
        z.detached = false;
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

    /// Keeps a table the fast path detached, to free after the unlock.
    ///
    /// A table already kept (which a well-formed zap never has: one table per pass) is leaked
    /// rather than overwritten, never freed twice.
    pub(crate) fn set_detached(&mut self, table: DetachedPteTable) {
        if self.0.detached {
            // Cannot happen. Dropping a detached table leaks it, which is safe.
            drop(table);
            return;
        }
        let (mm, pmdval, addr) = table.into_raw();
        self.0.mm = mm;
        self.0.pmdval = pmdval;
        self.0.pmd_addr = addr;
        // INVARIANT: The fields now hold the table given up just above.
        self.0.detached = true;
    }

    /// Takes back the table the fast path detached, once.
    pub(crate) fn take_detached(&mut self) -> Option<DetachedPteTable> {
        if !self.0.detached {
            return None;
        }
        self.0.detached = false;
        let mm = NonNull::new(self.0.mm)?;
        // SAFETY: `detached` was set, so by the type invariants the fields hold a table given up
        // by `into_raw()`, whose mm is the zap's and still valid; clearing `detached` first
        // makes this the one time it is taken back.
        Some(unsafe { DetachedPteTable::from_raw(mm, self.0.pmdval, self.0.pmd_addr) })
    }
}

// The live count cannot exceed a table; a saturated count still keeps the table.
const _: () = assert!(PTRS_PER_PTE <= u32::MAX as usize);
