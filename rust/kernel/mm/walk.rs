// SPDX-License-Identifier: GPL-2.0

//! Page-table range walks.
//!
//! [`RangeWalk`] walks a range of a VMA whose mmap lock the caller holds ([`MmapLockedVma`]),
//! level by level, skipping what is none at every level, and hands each entry of a PTE table
//! that is not none to a [`PteVisitor`], under the table's lock. The visitor is a type
//! parameter: each walk is compiled for its visitor, with the visit inlined, so there is no
//! indirect call per table or entry (C's `walk_page_range()` makes one through its
//! `mm_walk_ops`, which the KSM conversion in `../shared/seeds/004` measured at 2-4% of unmerge
//! speed), and nothing is allocated.
//!
//! What the walk guarantees, and how:
//!
//! - No entry is read without its table's lock, and no view of an entry outlives the lock: a
//!   [`PteEntry`] borrows the locked table for the one call of [`PteVisitor::pte_entry`], which
//!   is generic over its lifetime, so neither the entry nor the folio it maps can be kept.
//! - A PTE table that PT reclaim (or khugepaged) took away after its PMD was read is not used:
//!   `pte_offset_map_lock()` rechecks the PMD under the lock and fails; the walk then reads the
//!   PMD again, as C's `walk_pte_range()` does (`ACTION_AGAIN`).
//! - The tables above the PTE tables stay allocated: the mmap lock, which the walk borrows the
//!   proof of for its whole life, keeps `free_pgtables()` away, and `exit_mmap()` cannot start
//!   under it ([`MmapLockedVma`]'s contract: an `mm_users` reference, or KSM's current scan
//!   slot). Hugetlb VMAs, whose PMD tables another mm's `huge_pmd_unshare()` may take away
//!   without this mmap lock, are no [`MmapLockedVma`]s.
//! - Nothing sleeps with the PTE lock held: the lock is dropped before the walk returns or
//!   pauses after a table, where it reschedules (`cond_resched()`) and asks the visitor whether
//!   to stop ([`PteVisitor::pause`]: a pending signal, an exiting mm). The operations of
//!   `kernel::mm` that sleep need the task's [`MaySleep`]: the fault of
//!   [`EntryStop::unshare_fault`] is reached through a walk stopped at an entry only, and
//!   [`MmapWriteLockedVma::start_write`](super::virt::MmapWriteLockedVma::start_write) takes
//!   `&mut MaySleep`; every walk borrows the context's [`MaySleep`] mutably for its whole life,
//!   so no other walk, no [`Stopped`] and no `start_write()` can be reached while one walk's
//!   visitor runs (`kunit/compile_fail/start_write_in_visitor.rs`). A visitor that calls some
//!   kernel function outside `kernel::mm` that sleeps still compiles: as for
//!   [`super::pgtable::PteTableMap`], that is for `might_sleep()` and klint, not for types.
//! - Each level loops over the entries of its own table, as C's nested `walk_*_range()` loops
//!   do, and pauses come after populated PMD entries only, so a walk costs what the populated
//!   tables of its range cost (and a read of each entry above them), not what its size does.
//!
//! Lock order: the mmap lock (the caller's), then one PTE lock at a time.
//!
//! C header: [`include/linux/pgtable.h`](srctree/include/linux/pgtable.h)

use super::{
    folio::Folio,
    pgtable::{Pte, PTRS_PER_PTE},
    virt::MmapLockedVma,
    NotThreadSafe,
};
use crate::{bindings, page::PAGE_SIZE};
use core::{
    ops::ControlFlow::{self, Break, Continue},
    ptr::NonNull,
};

/// What a walk does at each populated entry, and between tables.
///
/// The methods are called with nothing but the walk's state borrowed; [`Self::pte_entry`] with
/// the entry's PTE lock held, the others without.
pub trait PteVisitor {
    /// Why a visitor stops a walk.
    type Break;

    /// Visits the entry `entry`, which is not none, under its table's lock. Returning
    /// [`Break`] stops the walk at this entry ([`Stopped::Entry`]): [`EntryStop::addr`] is its
    /// address, and the walk resumes with it.
    fn pte_entry(&mut self, entry: PteEntry<'_>) -> ControlFlow<Self::Break>;

    /// Meets a huge PMD leaf (a PMD-mapped THP or devmap, or a migration entry of one) at
    /// `addr`, read without a lock. Skipped unless this returns [`Break`], which stops the
    /// walk at `addr` ([`Stopped::Leaf`]); the walk resumes with the leaf, or past it after
    /// [`LeafStop::skip_leaf`].
    #[inline(always)]
    fn pmd_leaf(&mut self, _addr: usize) -> ControlFlow<Self::Break> {
        Continue(())
    }

    /// After a PTE table or a huge leaf that does not end the walk (not after holes), with no
    /// PTE lock held, after rescheduling: returning [`Break`] stops the walk where the next PMD
    /// range starts ([`Stopped::Between`]).
    #[inline(always)]
    fn pause(&mut self) -> ControlFlow<Self::Break> {
        Continue(())
    }
}

/// An entry of a PTE table that is not none, with the table's lock held for `'l`.
///
/// # Invariants
///
/// `pte` is the value of the entry that maps `addr` in `vma`, read under the lock of its PTE
/// table, which stays held, and the table mapped, for `'l`: what the entry maps cannot change
/// for `'l` (hardware may still set its accessed and dirty bits).
pub struct PteEntry<'l> {
    vma: &'l MmapLockedVma,
    addr: usize,
    pte: Pte,
    _not_send: NotThreadSafe,
}

impl<'l> PteEntry<'l> {
    /// The address the entry maps.
    #[inline(always)]
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// The entry's value.
    #[inline(always)]
    pub fn pte(&self) -> Pte {
        self.pte
    }

    /// The folio of the page a present entry maps, if it is a normal page
    /// (`vm_normal_folio()`): not the shared zero page, nor a special or PFN mapping.
    #[inline(always)]
    pub fn normal_folio(&self) -> Option<&'l Folio> {
        if !self.pte.is_present() {
            return None;
        }
        // SAFETY: The VMA is valid and mmap-locked, and `pte` is its present entry for `addr`
        // (type invariants), which is what `vm_normal_folio()` needs.
        let folio = unsafe {
            bindings::mm_rs_vm_normal_folio(self.vma.as_ptr(), self.addr, self.pte.as_raw())
        };
        // SAFETY: A normal page mapped by an entry holds a reference of the mapping, which
        // cannot be dropped while the entry's lock is held, for `'l` (type invariants).
        NonNull::new(folio).map(|f| unsafe { Folio::from_raw(f.as_ptr()) })
    }

    /// The folio that a migration entry stands for (`pfn_swap_entry_folio()`), if this is one.
    #[inline(always)]
    pub fn migration_folio(&self) -> Option<&'l Folio> {
        // SAFETY: It decodes the entry's value and, for a migration entry, turns its PFN into
        // the folio through the memmap (`pfn_swap_entry_folio()`: `pfn_to_page()` and the
        // page's compound head). The PFN is of a page that migration holds locked and
        // referenced, whose memmap entry therefore exists and cannot go away (no memory
        // hot-remove of a referenced page) while this entry's lock is held, for `'l` (type
        // invariants); for any other entry nothing but the value is read.
        let folio = unsafe { bindings::mm_rs_pte_migration_folio(self.pte.as_raw()) };
        // SAFETY: Migration holds a reference to the folio, locked, until it has replaced its
        // migration entries, which needs this entry's lock, held for `'l` (type invariants).
        NonNull::new(folio).map(|f| unsafe { Folio::from_raw(f.as_ptr()) })
    }
}

/// A PTE table mapped and locked by a walk; unlocked and unmapped on drop.
///
/// # Invariants
///
/// `pte` was returned by `pte_offset_map_lock()` with the lock `ptl`, which is held, and neither
/// has been unmapped or unlocked yet.
struct PteTableLock {
    pte: NonNull<bindings::pte_t>,
    ptl: NonNull<bindings::spinlock_t>,
    /// Unlocked and unmapped by the task that locked and mapped it.
    _not_send: NotThreadSafe,
}

impl Drop for PteTableLock {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: By the type invariants the table is mapped and locked; this is the one unlock.
        unsafe { bindings::mm_rs_pte_unmap_unlock(self.pte.as_ptr(), self.ptl.as_ptr()) };
    }
}

/// Proof, for the sleeping operations of `kernel::mm`, that the current task may sleep: it
/// holds no spinlock and is neither in an atomic context nor in an RCU read-side critical
/// section. Every [`RangeWalk`] borrows it mutably for its whole life, so that walks cannot nest
/// and no sleeping operation of `kernel::mm` is reachable from a visitor: the visitor of one
/// walk cannot reach another walk's [`Stopped`], whose fault sleeps, nor
/// [`MmapWriteLockedVma::start_write`](super::virt::MmapWriteLockedVma::start_write).
///
/// # Invariants
///
/// Its creator promised that the task may sleep wherever the value can be used by
/// `kernel::mm`, but inside a walk's visitor (which the mutable borrow keeps it out of). It is
/// that promise only: nothing stops safe code from taking a spinlock of its own beside it and
/// then calling a sleeping operation of `kernel::mm`, as nothing stops it from calling any
/// other sleeping kernel function there (`might_sleep()` and klint's business).
pub struct MaySleep {
    _not_send: NotThreadSafe,
}

impl MaySleep {
    /// The proof for the current task.
    ///
    /// # Safety
    ///
    /// The current task must be allowed to sleep for as long as the value exists (a sleeping
    /// lock such as the mmap lock may be held), and make no other `MaySleep` meanwhile.
    #[inline]
    pub unsafe fn new() -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self {
            _not_send: NotThreadSafe,
        }
    }
}

/// A walk over a page-aligned range of a VMA whose mmap lock is held for `'v`.
///
/// # Invariants
///
/// `vma.start() <= addr <= end <= vma.end()`, and `addr` and `end` are page-aligned; the walk
/// holds its task's [`MaySleep`].
pub struct RangeWalk<'v> {
    vma: &'v MmapLockedVma,
    _may_sleep: &'v mut MaySleep,
    addr: usize,
    end: usize,
}

impl<'v> RangeWalk<'v> {
    /// A walk over `[start, end)` of `vma`, by a task that may sleep; [`None`] unless the range
    /// is page-aligned and lies inside the VMA.
    #[inline]
    pub fn new(
        vma: &'v MmapLockedVma,
        may_sleep: &'v mut MaySleep,
        start: usize,
        end: usize,
    ) -> Option<Self> {
        let mask = PAGE_SIZE - 1;
        if start > end || start < vma.start() || end > vma.end() || (start | end) & mask != 0 {
            return None;
        }
        // INVARIANT: Checked just above.
        Some(Self {
            vma,
            _may_sleep: may_sleep,
            addr: start,
            end,
        })
    }

    /// Where the walk is: the next address it visits, or the range's end when it is done.
    #[inline]
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// Whether the walk has reached the range's end.
    #[inline]
    pub fn is_done(&self) -> bool {
        self.addr >= self.end
    }

    /// The task's [`MaySleep`] the walk holds, lent between walks: for a sleeping operation
    /// such as [`MmapWriteLockedVma::start_write`](super::virt::MmapWriteLockedVma::start_write).
    /// The borrow of the walk keeps [`Self::walk`], and so every visitor, away meanwhile.
    #[inline]
    pub fn may_sleep(&mut self) -> &mut MaySleep {
        self._may_sleep
    }

    /// Walks from [`Self::addr`] to the range's end, handing every entry that is not none to
    /// `v`, in address order, each once. Returns [`Continue`] at the end, or [`Break`] with
    /// what stopped the walk and where (see [`PteVisitor`]); walking again resumes there.
    ///
    /// Each level loops over the entries of its own table, as C's nested `walk_*_range()`
    /// loops do: the next entry is not read again from the top, and what is none at a level is
    /// skipped there at the cost of reading it. As in C, each level carries its own address
    /// and goes on from the end of the entry it handled, whatever the level below did: the
    /// walk's [`Self::addr`] is written only where the walk stops or ends, so a hole costs
    /// its read and the step to the next entry. The walk reschedules and asks the visitor to
    /// [`PteVisitor::pause`] after each PMD entry it visited (a PTE table or a huge leaf), not
    /// after holes, so its cost follows the populated tables of the range, not its size.
    #[inline]
    pub fn walk<V: PteVisitor>(&mut self, v: &mut V) -> ControlFlow<(V::Break, Stopped<'_, 'v>)> {
        let mm = self.vma.mm().as_raw();
        let end = self.end;
        let mut addr = self.addr;
        while addr < end {
            // SAFETY: The mm is the locked VMA's; its mmap lock, held for 'v (the
            // `MmapLockedVma` invariants), keeps its PGD allocated, so `pgd` points into it.
            let pgd = unsafe { bindings::mm_rs_pgd_offset(mm, addr) };
            // SAFETY: Reads nothing.
            let next = unsafe { bindings::mm_rs_pgd_addr_end(addr, end) };
            // SAFETY: `pgd` points into the PGD (above); the helper reads it with `READ_ONCE()`.
            if !unsafe { bindings::mm_rs_pgd_skip(pgd) } {
                // SAFETY: `pgd` maps `addr` and is not none; `next`, above `addr`, is the end
                // of its range cut to the walk's.
                if let Break((b, at)) = unsafe { self.p4d_range(pgd, addr, next, v) } {
                    return Break((b, at.stopped(self)));
                }
            }
            addr = next;
        }
        // INVARIANT: The walk's end.
        self.addr = end;
        Continue(())
    }

    /// The P4D entries of `[addr, end)`, under the PGD entry `pgd`, as C's `walk_p4d_range()`.
    ///
    /// # Safety
    ///
    /// `pgd` must be the PGD entry of the VMA's mm that maps `addr`, not none, with the mmap
    /// lock held; `addr` must be page-aligned and in the walk's range, and `end` above it, at
    /// most the end of `pgd`'s range and of the walk, and page-aligned.
    #[inline(always)]
    unsafe fn p4d_range<V: PteVisitor>(
        &mut self,
        pgd: *mut bindings::pgd_t,
        mut addr: usize,
        end: usize,
        v: &mut V,
    ) -> ControlFlow<(V::Break, StopAt)> {
        // SAFETY: The mmap lock keeps the P4D table (or the PGD, where the P4D is folded into
        // it) allocated; `p4d` advances to the entry of the next P4D range, in the same table
        // while `addr` is below `end`, and is not read past it.
        let mut p4d = unsafe { bindings::mm_rs_p4d_offset(pgd, addr) };
        loop {
            #[cfg(CONFIG_MM_RS_KUNIT_TEST)]
            self.test_read(bindings::mm_rs_race_MM_RS_RACE_WALK_P4D_READ, addr);
            // SAFETY: As above; the entry is read with `READ_ONCE()`.
            let (next, skip) = unsafe {
                (
                    bindings::mm_rs_p4d_addr_end(addr, end),
                    bindings::mm_rs_p4d_skip(p4d),
                )
            };
            if !skip {
                // SAFETY: `p4d` maps `addr` and is not none; `next` ends its range, above `addr`.
                if let Break(b) = unsafe { self.pud_range(p4d, addr, next, v) } {
                    return Break(b);
                }
            }
            if next >= end {
                return Continue(());
            }
            addr = next;
            p4d = p4d.wrapping_add(1);
        }
    }

    /// The PUD entries of `[addr, end)`, under the P4D entry `p4d`, as C's `walk_pud_range()`.
    ///
    /// # Safety
    ///
    /// As for [`Self::p4d_range`], one level down: `p4d` must be the P4D entry that maps `addr`,
    /// not none, and `end` at most the end of its range.
    #[inline(always)]
    unsafe fn pud_range<V: PteVisitor>(
        &mut self,
        p4d: *mut bindings::p4d_t,
        mut addr: usize,
        end: usize,
        v: &mut V,
    ) -> ControlFlow<(V::Break, StopAt)> {
        // SAFETY: As in `p4d_range()`, one level down.
        let mut pud = unsafe { bindings::mm_rs_pud_offset(p4d, addr) };
        loop {
            #[cfg(CONFIG_MM_RS_KUNIT_TEST)]
            self.test_read(bindings::mm_rs_race_MM_RS_RACE_WALK_PUD_READ, addr);
            // SAFETY: As above; the entry is read with `READ_ONCE()`.
            let (next, skip) = unsafe {
                (
                    bindings::mm_rs_pud_addr_end(addr, end),
                    bindings::mm_rs_pud_skip(pud),
                )
            };
            if !skip {
                // SAFETY: `pud` maps `addr` and is not none; `next` ends its range, above `addr`.
                if let Break(b) = unsafe { self.pmd_table(pud, addr, next, v) } {
                    return Break(b);
                }
            }
            if next >= end {
                return Continue(());
            }
            addr = next;
            pud = pud.wrapping_add(1);
        }
    }

    /// The PMD entries of `[addr, end)`, under the PUD entry `pud`, as C's `walk_pmd_range()`:
    /// after each entry it visited (a PTE table or a huge leaf) that does not end the walk,
    /// reschedules and asks the visitor to pause.
    ///
    /// # Safety
    ///
    /// As for [`Self::p4d_range`], two levels down: `pud` must be the PUD entry that maps
    /// `addr`, not none, and `end` at most the end of its range.
    #[inline(always)]
    unsafe fn pmd_table<V: PteVisitor>(
        &mut self,
        pud: *mut bindings::pud_t,
        mut addr: usize,
        end: usize,
        v: &mut V,
    ) -> ControlFlow<(V::Break, StopAt)> {
        let mm = self.vma.mm().as_raw();
        // SAFETY: As in `p4d_range()`, one level down.
        let mut pmd = unsafe { bindings::mm_rs_pmd_offset(pud, addr) };
        loop {
            // SAFETY: Reads nothing.
            let next = unsafe { bindings::mm_rs_pmd_addr_end(addr, end) };
            // SAFETY: `pmd` maps `addr` in `mm` and stays allocated (the mmap lock); `next` is
            // above `addr`, at most the end of its range and of the walk.
            let visited = match unsafe { self.pmd_range(mm, pmd, addr, next, v) } {
                Continue(visited) => visited,
                Break(b) => return Break(b),
            };
            if visited && next < self.end {
                // SAFETY: No PTE lock is held here, and the task may sleep (the walk holds its
                // `MaySleep`).
                unsafe { bindings::mm_rs_cond_resched() };
                if let Break(b) = v.pause() {
                    // INVARIANT: Above the walk's address, below its end, page-aligned.
                    self.addr = next;
                    return Break((b, StopAt::Between));
                }
            }
            if next >= end {
                return Continue(());
            }
            addr = next;
            pmd = pmd.wrapping_add(1);
        }
    }

    /// Visits the entries of `[addr, next)`, all under the PMD entry `pmd`: [`Continue`] with
    /// whether there was anything to visit (a PTE table or a huge leaf). On [`Break`],
    /// `self.addr` is where the visitor stopped, and the [`StopAt`] says what it stopped at.
    ///
    /// # Safety
    ///
    /// `pmd` must be the PMD entry of `mm` (the VMA's) that maps `addr`, in a PMD table that
    /// stays allocated for the call; `addr` must be page-aligned and in the walk's range, and
    /// `next` above it, page-aligned, at most the end of the range `pmd` maps and of the walk.
    #[inline(always)]
    unsafe fn pmd_range<V: PteVisitor>(
        &mut self,
        mm: *mut bindings::mm_struct,
        pmd: *mut bindings::pmd_t,
        addr: usize,
        next: usize,
        v: &mut V,
    ) -> ControlFlow<(V::Break, StopAt), bool> {
        loop {
            #[cfg(CONFIG_MM_RS_KUNIT_TEST)]
            self.test_read(bindings::mm_rs_race_MM_RS_RACE_WALK_PMD_READ, addr);
            // SAFETY: `pmd` is allocated (the caller); the entry is read once, locklessly.
            let val = unsafe { bindings::mm_rs_pmdp_get_lockless(pmd) };
            // A hole first, on its own: one compare, as C's `pmd_none()` test.
            // SAFETY: Reads nothing but `val`.
            if unsafe { bindings::mm_rs_pmd_none(val) } {
                return Continue(false);
            }
            // SAFETY: Reads nothing but `val`.
            match unsafe { bindings::mm_rs_pmd_kind(val) } {
                bindings::mm_rs_pmd_kind_MM_RS_PMD_TABLE => {}
                bindings::mm_rs_pmd_kind_MM_RS_PMD_LEAF => {
                    return match v.pmd_leaf(addr) {
                        Continue(()) => Continue(true),
                        Break(b) => {
                            // INVARIANT: Page-aligned, below `next` and so below the walk's end.
                            self.addr = addr;
                            Break((b, StopAt::Leaf { end: next }))
                        }
                    };
                }
                _ => return Continue(false),
            }
            // KUnit's race window: PT reclaim may free the table read above before it is mapped.
            #[cfg(CONFIG_MM_RS_KUNIT_TEST)]
            // SAFETY: A test hook: it only compares `mm` and the address with a racer's, and
            // may run a MADV_DONTNEED of the mm, which the mmap read lock held here allows.
            unsafe {
                bindings::mm_rs_test_race(bindings::mm_rs_race_MM_RS_RACE_WALK_PMD, mm, addr)
            };
            let mut ptl: *mut bindings::spinlock_t = core::ptr::null_mut();
            // SAFETY: `pmd` maps `addr` in `mm` and is allocated (the caller); `ptl` receives
            // the lock taken with the mapping.
            let pte = unsafe { bindings::mm_rs_pte_offset_map_lock(mm, pmd, addr, &mut ptl) };
            let Some(pte) = NonNull::new(pte) else {
                // The PMD changed since it was read (the table was freed, or collapsed into a
                // THP): read it again.
                continue;
            };
            // SAFETY: `pte_offset_map_lock()` returns the lock with every mapped table.
            let ptl = unsafe { NonNull::new_unchecked(ptl) };
            // INVARIANT: `pte_offset_map_lock()` mapped the table and took its lock.
            let table = PteTableLock {
                pte,
                ptl,
                _not_send: NotThreadSafe,
            };
            // At most the rest of the table from `addr` (`PTRS_PER_PTE - pte_index()`): `next`
            // is above `addr` and at most the end of the PMD's range (the caller), so neither
            // this nor the addresses below wrap.
            let rest = PTRS_PER_PTE - ((addr / PAGE_SIZE) & (PTRS_PER_PTE - 1));
            let nr = (next.wrapping_sub(addr) / PAGE_SIZE).min(rest);
            for i in 0..nr {
                // SAFETY: Entry `i` from `addr` lies in the mapped, locked table (`nr` above).
                let raw = unsafe { bindings::mm_rs_ptep_get(table.pte.as_ptr().add(i)) };
                let pte = Pte::from_table(raw);
                if pte.is_none() {
                    continue;
                }
                let addr = addr.wrapping_add(i.wrapping_mul(PAGE_SIZE));
                // INVARIANT: Read under the table's lock, held by `table` until after the call.
                let entry = PteEntry {
                    vma: self.vma,
                    addr,
                    pte,
                    _not_send: NotThreadSafe,
                };
                if let Break(b) = v.pte_entry(entry) {
                    // INVARIANT: `addr` is below `next`, page-aligned and in the range.
                    self.addr = addr;
                    return Break((b, StopAt::Entry));
                }
            }
            return Continue(true);
        }
    }

    /// KUnit's count of the entries each level reads: `level` names it
    /// (`MM_RS_RACE_WALK_*_READ`), `addr` the start of the entry's range.
    #[cfg(CONFIG_MM_RS_KUNIT_TEST)]
    #[inline(always)]
    fn test_read(&self, level: bindings::mm_rs_race, addr: usize) {
        // SAFETY: `mm_rs_test_race()` has no precondition: it does nothing unless a test
        // redirects it, and the stubs of these levels only compare the mm with theirs and count.
        unsafe { bindings::mm_rs_test_race(level, self.vma.mm().as_raw(), addr) };
    }
}

/// What a walk stopped at, as its levels report it.
enum StopAt {
    /// An entry, at the walk's address.
    Entry,
    /// A huge PMD leaf at the walk's address, whose range (cut to the walk's) ends at `end`.
    Leaf { end: usize },
    /// Where the next PMD range starts, at the walk's address.
    Between,
}

impl StopAt {
    /// The stopped walk, for what it stopped at.
    #[inline(always)]
    fn stopped<'w, 'v>(self, walk: &'w mut RangeWalk<'v>) -> Stopped<'w, 'v> {
        match self {
            Self::Entry => Stopped::Entry(EntryStop { walk }),
            // INVARIANT: `end` is `pmd_range()`'s `next`: above the leaf's address, at most the
            // end of its PMD range and of the walk, and page-aligned.
            Self::Leaf { end } => Stopped::Leaf(LeafStop { walk, end }),
            Self::Between => Stopped::Between(BetweenStop { walk }),
        }
    }
}

/// A walk stopped by its visitor, with no PTE lock held; by what it stopped at, each with what
/// may be done there. Walking again resumes where it stopped.
pub enum Stopped<'w, 'v> {
    /// At an entry ([`PteVisitor::pte_entry`] returned [`Break`]).
    Entry(EntryStop<'w, 'v>),
    /// At a huge PMD leaf ([`PteVisitor::pmd_leaf`] returned [`Break`]).
    Leaf(LeafStop<'w, 'v>),
    /// Where the next table starts ([`PteVisitor::pause`] returned [`Break`]).
    Between(BetweenStop<'w, 'v>),
}

impl Stopped<'_, '_> {
    /// Where the walk stopped: the entry, leaf or next table the visitor stopped at.
    #[inline]
    pub fn addr(&self) -> usize {
        match self {
            Self::Entry(at) => at.addr(),
            Self::Leaf(at) => at.addr(),
            Self::Between(at) => at.addr(),
        }
    }
}

/// A walk stopped at an entry that was not none, at [`Self::addr`], with no PTE lock held.
///
/// # Invariants
///
/// `walk.addr` is page-aligned and below `walk.end`: a page of the walk's VMA (no hugetlb VMA,
/// and `exit_mmap()` cannot start: the [`MmapLockedVma`] contract), where the visitor found an
/// entry that was not none; no PTE lock of the walk is held, and the walk holds its task's
/// [`MaySleep`], so the task may sleep.
pub struct EntryStop<'w, 'v> {
    walk: &'w mut RangeWalk<'v>,
}

impl EntryStop<'_, '_> {
    /// The address of the entry the walk stopped at.
    #[inline]
    pub fn addr(&self) -> usize {
        self.walk.addr
    }

    /// Breaks copy-on-write at [`Self::addr`] with a fault made for another process
    /// (`FAULT_FLAG_UNSHARE | FAULT_FLAG_REMOTE`, as KSM's `break_ksm()`): a page mapped there
    /// that is shared, a KSM page or the zero page, is replaced by an exclusive anonymous copy.
    /// Reschedules first, as `break_ksm()` does before each try. Returns the fault's
    /// `VM_FAULT_*` bits. May sleep. The fault does not release the mmap lock (it is not allowed
    /// to retry). The walk resumes at the same address.
    ///
    /// Only at an entry: at a hole (a [`BetweenStop`]) the fault would fill it with the zero
    /// page, and a huge PMD leaf is not what an unshare of one page is for.
    #[inline]
    pub fn unshare_fault(&mut self) -> bindings::vm_fault_t {
        // SAFETY: The task may sleep (type invariants).
        unsafe { bindings::mm_rs_cond_resched() };
        // SAFETY: The address is a page of the VMA (type invariants), whose mmap lock is held
        // ('v) and whose mm cannot start `exit_mmap()` meanwhile (the `MmapLockedVma`
        // contract: an `mm_users` reference, or KSM's current scan slot, which `__ksm_exit()`
        // serialises with the mmap write lock), so nothing zaps or frees the page tables the
        // fault walks; the task may sleep (`MaySleep`, held by the walk, and no PTE lock held).
        // Without FAULT_FLAG_ALLOW_RETRY the fault returns with the mmap lock still held.
        unsafe { bindings::mm_rs_ksm_unshare_fault(self.walk.vma.as_ptr(), self.walk.addr) }
    }

    /// Moves the walk past the page it stopped at.
    #[inline]
    pub fn skip_page(self) {
        // INVARIANT: `addr` is page-aligned and below `end`, itself page-aligned, so one page
        // further is at most `end`.
        self.walk.addr = self.walk.addr.wrapping_add(PAGE_SIZE);
    }
}

/// A walk stopped at a huge PMD leaf, at [`Self::addr`], with no lock held.
///
/// # Invariants
///
/// `walk.addr` is below `end`, which is the end of the leaf's range cut to the walk's:
/// page-aligned and at most `walk.end`.
pub struct LeafStop<'w, 'v> {
    walk: &'w mut RangeWalk<'v>,
    end: usize,
}

impl LeafStop<'_, '_> {
    /// The address in the leaf's range where the walk stopped.
    #[inline]
    pub fn addr(&self) -> usize {
        self.walk.addr
    }

    /// Moves the walk past the leaf's range, so that the walk does not stop at it again (page
    /// by page, that would be up to `PTRS_PER_PTE` stops at one leaf). The stop took the place
    /// of the pause after the leaf: walking again goes on with the next range, no pause first.
    #[inline]
    pub fn skip_leaf(self) {
        // INVARIANT: `end` is page-aligned and at most the walk's end (type invariants).
        self.walk.addr = self.end;
    }
}

/// A walk stopped between two tables or holes, at [`Self::addr`] (where the next starts), with
/// no lock held. Nothing is at that address to work on: walking again goes on from there.
pub struct BetweenStop<'w, 'v> {
    walk: &'w mut RangeWalk<'v>,
}

impl BetweenStop<'_, '_> {
    /// Where the next table or hole starts.
    #[inline]
    pub fn addr(&self) -> usize {
        self.walk.addr
    }
}
