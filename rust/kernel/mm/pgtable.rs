// SPDX-License-Identifier: GPL-2.0

//! Page tables.
//!
//! [`PteTableRef`] is a PTE table (the last level: `PTRS_PER_PTE` entries covering one PMD) that
//! is mapped and may be read without its lock, as `pte_offset_map()` users do under
//! `rcu_read_lock()`. Such reads race with concurrent faults and zaps; callers use them as hints
//! and recheck under the PTE lock before acting on them.
//!
//! [`PteTableMap`] owns such a mapping and unmaps it on drop.
//!
//! [`PteTableGuard`] is a PTE table of a private anonymous VMA, mapped and locked for a fault,
//! positioned at the naturally aligned block a new folio will occupy. Entries are written only
//! through it, in two steps that each consume what they check: [`PteTableGuard::vacant_folio`]
//! (or [`PteTableGuard::vacant_zero_page`]) proves under the lock that the block is free and
//! takes the folio with its entry, and [`VacantFolio::install`] (or [`VacantZeroPage::install`])
//! does every step of C's `do_anonymous_page()` from there, in C's order, and cannot fail. The
//! entry is built from the folio and the VMA alone ([`AnonFolioPte`]), before the lock is taken
//! as in C: safe code cannot choose the page an entry maps or its permissions. The guard, the
//! folio and the proof all carry the fault's lifetime, so none of them can be used with another
//! fault.
//!
//! C header: [`include/linux/pgtable.h`](srctree/include/linux/pgtable.h)

use super::{
    fault::{FaultBrand, VmFault},
    folio::NewAnonFolio,
    NotThreadSafe,
};
use crate::bindings;
use core::{marker::PhantomData, ptr::NonNull};

/// The number of entries in a PTE table (`PTRS_PER_PTE`).
pub const PTRS_PER_PTE: usize = bindings::MM_RS_PTRS_PER_PTE;

// Counts and ranges of entries of one table are passed to C as `int` and `unsigned int`.
const _: () = assert!(PTRS_PER_PTE <= i32::MAX as usize);

/// The index of the entry that maps `addr` in its PTE table, as C's `pte_index()`.
#[inline]
pub const fn pte_index(addr: usize) -> usize {
    (addr >> crate::page::PAGE_SHIFT) & (PTRS_PER_PTE - 1)
}

/// A mapped PTE table, read locklessly.
///
/// # Invariants
///
/// `table` points to the first of [`PTRS_PER_PTE`] entries of a PTE table that stays mapped and
/// allocated for `'a`.
pub struct PteTableRef<'a> {
    table: NonNull<bindings::pte_t>,
    _p: PhantomData<&'a bindings::pte_t>,
}

impl<'a> PteTableRef<'a> {
    /// Views a mapped PTE table.
    ///
    /// # Safety
    ///
    /// `table` must point to the first entry of a PTE table (or an array of [`PTRS_PER_PTE`]
    /// `pte_t`) that stays mapped and allocated for `'a`.
    #[inline]
    pub unsafe fn from_raw(table: NonNull<bindings::pte_t>) -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self {
            table,
            _p: PhantomData,
        }
    }

    /// Whether entries `index..index + nr` are all none, read locklessly as C's
    /// `pte_range_none()`. A range that does not lie inside the table is reported as not none.
    #[inline]
    pub fn range_none(&self, index: usize, nr: usize) -> bool {
        let Some(end) = index.checked_add(nr) else {
            return false;
        };
        if end > PTRS_PER_PTE {
            return false;
        }
        let Ok(nr) = i32::try_from(nr) else {
            return false;
        };
        // SAFETY: `index + nr <= PTRS_PER_PTE`, so the range lies in the table, which is mapped
        // for 'a by the type invariants. The helper reads each entry with ptep_get_lockless().
        unsafe { bindings::mm_rs_pte_range_none(self.table.as_ptr().add(index), nr) }
    }
}

/// Consecutive entries of a mapped PTE table whose lock the caller holds.
///
/// # Invariants
///
/// `pte` points to `nr` consecutive entries of one PTE table that stays mapped, with its lock
/// held, for `'a`, and `nr <= PTRS_PER_PTE`.
pub struct PteRangeLocked<'a> {
    pte: NonNull<bindings::pte_t>,
    nr: usize,
    _p: PhantomData<&'a bindings::pte_t>,
}

impl<'a> PteRangeLocked<'a> {
    /// Views the `nr` entries from `pte`.
    ///
    /// # Safety
    ///
    /// `pte` must point to `nr` consecutive entries of one PTE table that stays mapped, with its
    /// lock held by the caller, for `'a`.
    #[inline]
    pub unsafe fn from_raw(pte: NonNull<bindings::pte_t>, nr: usize) -> Self {
        // INVARIANT: Guaranteed by the caller; entries of one table are at most a table.
        Self {
            pte,
            nr: nr.min(PTRS_PER_PTE),
            _p: PhantomData,
        }
    }

    /// How many of the entries are not none, read with `ptep_get()` in one call for the whole
    /// range.
    #[inline]
    pub fn count_not_none(&self) -> usize {
        // `nr <= PTRS_PER_PTE` by the type invariants, so it fits in a C int.
        let nr = self.nr as i32;
        // SAFETY: The `nr` entries are mapped and locked by the type invariants.
        let n = unsafe { bindings::mm_rs_pte_count_not_none(self.pte.as_ptr(), nr) };
        n as usize
    }
}

/// A PTE table mapped with `pte_offset_map()`, unmapped on drop.
///
/// Holding it keeps the caller in the RCU read-side section that `pte_offset_map()` entered,
/// which is what keeps the table allocated: PT reclaim may detach an empty table under the mmap
/// read lock, and frees it only after a grace period. Whoever holds the mapping must therefore
/// not sleep until it is dropped; without `CONFIG_PREEMPT_RCU` a sleep is a quiescent state that
/// may end the grace period, and the table may be freed under the next read.
///
/// What enforces that is limited, and stated here rather than implied: the methods of this API
/// that may sleep (allocating, charging and zeroing a folio, `anon_prepare`, the hand-off to
/// userfaultfd) take the fault by `&mut` or by value, and [`VmFault::map_pte_table`] borrows it
/// mutably, so none of them compiles while the mapping lives. Any *other* kernel function that
/// may sleep still compiles: as for mainline's `rcu::Guard`, sleeping in an atomic or RCU
/// read-side context is not something Rust's types express (`CONFIG_DEBUG_ATOMIC_SLEEP`'s
/// `might_sleep()` and klint catch it). The code that holds a `PteTableMap` in mm-rs calls
/// nothing else until it drops it.
///
/// # Invariants
///
/// `table` was returned by `pte_offset_map()` for the first entry of its table and has not been
/// unmapped yet. The RCU read-side section the mapping holds keeps the table allocated until it
/// is unmapped, provided its holder does not sleep (see above); `'a` keeps the PMD entry it was
/// mapped from valid.
pub struct PteTableMap<'a> {
    table: NonNull<bindings::pte_t>,
    _p: PhantomData<&'a bindings::pte_t>,
    /// Mapped with `kmap_local()` where page tables live in high memory, in an RCU read-side
    /// section: both belong to the task that made them.
    _not_send: NotThreadSafe,
}

impl<'a> PteTableMap<'a> {
    /// Maps the PTE table that `pmd` points to, as `pte_offset_map(pmd, addr & PMD_MASK)`.
    ///
    /// Returns [`None`] when the PMD does not point to a PTE table any more (it became none, a
    /// huge mapping or a migration entry under us); the fault is then retried.
    ///
    /// # Safety
    ///
    /// `pmd` must be a PMD entry of a page table that stays allocated for `'a` (the PMD level,
    /// not the PTE table it points to, which the mapping itself keeps), as `vmf->pmd` does while
    /// the fault holds the mmap or VMA read lock.
    #[inline]
    pub unsafe fn map(pmd: *mut bindings::pmd_t) -> Option<Self> {
        // SAFETY: Guaranteed by the caller; address 0 selects the first entry of the table.
        let table = unsafe { bindings::mm_rs_pte_offset_map(pmd, 0) };
        // INVARIANT: A non-NULL result is a fresh mapping of the table's first entry.
        NonNull::new(table).map(|table| Self {
            table,
            _p: PhantomData,
            _not_send: NotThreadSafe,
        })
    }

    /// A lockless view of the mapped table, valid while `self` is.
    #[inline]
    pub fn table(&self) -> PteTableRef<'_> {
        // SAFETY: By the type invariants the table stays mapped until `self` is dropped, which
        // the borrow on `self` prevents for the returned lifetime.
        unsafe { PteTableRef::from_raw(self.table) }
    }
}

impl Drop for PteTableMap<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: By the type invariants, the table is mapped and this is the one unmap.
        unsafe { bindings::mm_rs_pte_unmap(self.table.as_ptr()) };
    }
}

/// The value of a page table entry, as read from a table.
///
/// There is no way to make one from a raw value or to change one: entries come from the table
/// ([`VmFault::orig_pte`] and the readers), and the entries written are made inside this module
/// for what they map ([`AnonFolioPte`], [`VacantZeroPage`]), so safe code cannot make an entry
/// that maps memory it does not own or with permissions the VMA does not give.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Pte(bindings::pte_t);

impl Pte {
    /// Whether the entry is none (`pte_none()`).
    #[inline(always)]
    pub fn is_none(self) -> bool {
        // SAFETY: Pure function of the value.
        unsafe { bindings::mm_rs_pte_none(self.0) }
    }

    /// Whether two entries are the same (`pte_same()`).
    #[inline(always)]
    pub fn same(self, other: Pte) -> bool {
        // SAFETY: Pure function of the values.
        unsafe { bindings::mm_rs_pte_same(self.0, other.0) }
    }

    /// Whether the entry is a userfaultfd write-protect marker (`pte_marker_uffd_wp()`).
    #[inline(always)]
    pub fn is_uffd_wp_marker(self) -> bool {
        // SAFETY: Pure function of the value.
        unsafe { bindings::mm_rs_pte_marker_uffd_wp(self.0) }
    }

    /// Whether the entry maps a page (`pte_present()`).
    #[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
    #[inline(always)]
    pub fn is_present(self) -> bool {
        // SAFETY: Pure function of the value.
        unsafe { bindings::mm_rs_pte_present(self.0) }
    }

    /// Whether the entry is dirty (`pte_dirty()`).
    #[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
    #[inline(always)]
    pub fn is_dirty(self) -> bool {
        // SAFETY: Pure function of the value.
        unsafe { bindings::mm_rs_pte_dirty(self.0) }
    }

    /// Whether the entry's PFN field is the shared zero page's (`is_zero_pfn(pte_pfn())`),
    /// computed from the value whatever the entry holds.
    #[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
    #[inline(always)]
    pub fn pfn_is_zero(self) -> bool {
        // SAFETY: Pure function of the value.
        unsafe { bindings::mm_rs_pte_pfn_is_zero(self.0) }
    }

    /// Returns the raw value.
    #[inline]
    pub fn as_raw(self) -> bindings::pte_t {
        self.0
    }

    /// Wraps an entry read from a page table (or a fault's copy of one).
    #[inline]
    pub(crate) fn from_table(pte: bindings::pte_t) -> Self {
        Self(pte)
    }

    /// The entry with the userfaultfd write-protect bit set (`pte_mkuffd_wp()`).
    #[inline(always)]
    fn mkuffd_wp(self) -> Self {
        // SAFETY: Pure function of the value; only a software bit changes.
        Self(unsafe { bindings::mm_rs_pte_mkuffd_wp(self.0) })
    }
}

/// A new anonymous folio with the entry that will map it, made before the PTE lock is taken.
///
/// # Invariants
///
/// `entry` maps the first page of `folio` with the protection of the VMA of the fault `'a`
/// (`mk_pte()`), young where the architecture does that in software, and writable and dirty
/// exactly if the VMA is writable; the folio is marked up to date; the VMA has an `anon_vma`.
pub struct AnonFolioPte<'a> {
    folio: NewAnonFolio<'a>,
    entry: Pte,
}

impl<'a> AnonFolioPte<'a> {
    /// Readies `folio` to be mapped by its anonymous write fault `vmf`, as C's
    /// `do_anonymous_page()` does before it takes the PTE lock: marks it up to date (whose write
    /// barrier orders the zeroing before the entries) and builds its entry.
    ///
    /// Refused, with the folio given back, if the VMA has no `anon_vma` (the fault must
    /// `vmf_anon_prepare()` first: the rmap needs one).
    #[inline(always)]
    pub fn new(vmf: &VmFault<'a>, mut folio: NewAnonFolio<'a>) -> Result<Self, NewAnonFolio<'a>> {
        let vma = vmf.vma();
        // The anon_vma only ever goes from NULL to set under the VMA lock held, so a check now
        // holds at install time.
        if !vma.has_anon_vma() {
            return Err(folio);
        }
        folio.mark_uptodate();
        let writable = vma.flags() & super::virt::flags::WRITE != 0;
        // SAFETY: The folio is valid and ours; the VMA is read-locked.
        let entry =
            unsafe { bindings::mm_rs_anon_folio_mk_pte(folio.as_ptr(), vma.as_ptr(), writable) };
        // INVARIANT: As built just above.
        Ok(Self {
            folio,
            entry: Pte(entry),
        })
    }

    /// The folio's order.
    #[inline(always)]
    pub fn order(&self) -> u32 {
        self.folio.order()
    }
}

/// Proof, found under the PTE lock of the fault `'a`, that its VMA is registered with
/// userfaultfd for missing pages: what [`VmFault::handle_userfault_missing`] requires. In 6.12
/// `handle_userfault()` does not check the registration itself, so a hand-off without it would
/// send a missing-page event to a context that registered the VMA for write protection or minor
/// faults only.
///
/// # Invariants
///
/// Under the PTE lock of the fault `'a`, `userfaultfd_missing()` of its VMA was true (the
/// registration changes only under the mmap write lock, which the fault's read lock excludes
/// for `'a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserfaultMissing<'a> {
    _fault: FaultBrand<'a>,
}

/// Why a block of a locked PTE table may not be filled, as C's `do_anonymous_page()` decides it
/// under the PTE lock, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused<'a> {
    /// What is to be mapped does not fit the block: a folio of another size, the zero page for
    /// a write fault or more than one entry, or in an mm that may not map it.
    Unsuitable,
    /// An entry of the block changed since the fault looked (another thread won the race):
    /// `update_mmu_tlb()`, then retry.
    Changed,
    /// The OOM reaper is tearing the mm down (`check_stable_address_space()`): `VM_FAULT_SIGBUS`.
    Unstable,
    /// The VMA is registered with userfaultfd for missing pages: hand the fault over, with the
    /// proof.
    UserfaultMissing(UserfaultMissing<'a>),
}

impl Refused<'_> {
    /// `self`, through a cold call: the reason is then made on the way out only, and the path
    /// that maps sets none.
    #[cold]
    #[inline(never)]
    fn cold(self) -> Self {
        self
    }
}

/// A PTE table of a private anonymous VMA, mapped and locked for a fault with
/// `pte_offset_map_lock()`, positioned at a naturally aligned block of the fault's VMA; unlocked
/// and unmapped on drop.
///
/// This is the only way safe code gets to write page table entries, so no entry is written
/// without its lock held.
///
/// # Invariants
///
/// The VMA of the fault `vmf` is private anonymous; `pte` points to the entry for `addr` in the
/// PTE table of `vmf`'s PMD, mapped, whose lock `ptl` is held until the guard is dropped;
/// `[addr, addr + nr pages)` is the naturally aligned block of `nr` pages (a power of two below
/// [`PTRS_PER_PTE`], of an order an anonymous fault maps with PTEs) around the fault address,
/// and lies inside the VMA and that one table.
pub struct PteTableGuard<'g, 'a> {
    pte: NonNull<bindings::pte_t>,
    ptl: NonNull<bindings::spinlock_t>,
    addr: usize,
    nr: usize,
    vmf: &'g VmFault<'a>,
    /// A spinlock is released by the task that took it (and the table is unmapped by it).
    _not_send: NotThreadSafe,
}

impl<'g, 'a> PteTableGuard<'g, 'a> {
    /// Maps and locks the PTE table of `vmf`'s PMD, positioned at `addr`.
    ///
    /// Returns [`None`] if the PMD no longer points to a PTE table.
    ///
    /// # Safety
    ///
    /// The VMA of `vmf` must be private anonymous; `[addr, addr + nr pages)` must be the
    /// naturally aligned block of `nr` pages around the fault address, `nr` a power of two below
    /// [`PTRS_PER_PTE`] of an order an anonymous fault maps with PTEs, and lie inside the VMA.
    #[inline(always)]
    pub(super) unsafe fn lock(vmf: &'g VmFault<'a>, addr: usize, nr: usize) -> Option<Self> {
        let mm = vmf.vma().mm();
        let mut ptl: *mut bindings::spinlock_t = core::ptr::null_mut();
        // SAFETY: `vmf->pmd` covers `addr` in the read-locked VMA's page tables (the invariants
        // of `VmFault` and the caller); `ptl` receives the lock that is taken.
        let pte =
            unsafe { bindings::mm_rs_pte_offset_map_lock(mm.as_raw(), vmf.pmd(), addr, &mut ptl) };
        let pte = NonNull::new(pte)?;
        // SAFETY: `pte_offset_map_lock()` returns the lock with every mapped table.
        let ptl = unsafe { NonNull::new_unchecked(ptl) };
        // INVARIANT: `pte_offset_map_lock()` mapped the table and took its lock; the VMA and the
        // block are as the caller guarantees.
        Some(Self {
            pte,
            ptl,
            addr,
            nr,
            vmf,
            _not_send: NotThreadSafe,
        })
    }

    /// The first address of the block.
    #[inline]
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// The number of pages in the block.
    #[inline]
    pub fn nr(&self) -> usize {
        self.nr
    }

    /// Whether the block may be filled: C's `vmf_pte_changed()` for one entry (it still holds
    /// what the fault found, none or a uffd-wp marker), `pte_range_none()` for more.
    #[inline(always)]
    fn is_vacant(&self) -> bool {
        // `nr < PTRS_PER_PTE` by the type invariants, so it fits in a C int.
        let nr = self.nr as i32;
        if nr == 1 {
            if let Some(orig) = self.vmf.orig_pte() {
                // SAFETY: The entry is mapped and its lock held by the type invariants.
                let cur = Pte(unsafe { bindings::mm_rs_ptep_get(self.pte.as_ptr()) });
                // An anonymous fault's original entry is none or a uffd-wp marker; never
                // overwrite a present entry, whatever the fault says it found.
                return cur.same(orig) && (orig.is_none() || orig.is_uffd_wp_marker());
            }
        }
        // SAFETY: The `nr` entries lie in the mapped, locked table by the type invariants.
        unsafe { bindings::mm_rs_pte_range_none(self.pte.as_ptr(), nr) }
    }

    /// The checks C makes under the PTE lock before it maps, in C's order: the block is still
    /// vacant, the mm is not being torn down by the OOM reaper, and the fault is not to be
    /// handed to userfaultfd.
    #[inline(always)]
    fn check_under_lock(&self) -> Result<(), Refused<'a>> {
        if !self.is_vacant() {
            return Err(Refused::Changed.cold());
        }
        let vma = self.vmf.vma();
        if vma.mm().check_stable_address_space().is_err() {
            return Err(Refused::Unstable.cold());
        }
        if vma.userfaultfd_missing() {
            // INVARIANT: Checked just above, under the PTE lock, for the VMA of the fault `'a`.
            let proof = UserfaultMissing {
                _fault: core::marker::PhantomData,
            };
            return Err(Refused::UserfaultMissing(proof).cold());
        }
        Ok(())
    }

    /// Proof, under the lock, that the block may be filled with `folio`, readied for this fault
    /// (the lifetime `'a` says so): the folio is the block's size, and [C's checks](Refused)
    /// pass. The folio comes back with the reason if not.
    #[inline(always)]
    pub fn vacant_folio(
        &mut self,
        folio: AnonFolioPte<'a>,
    ) -> Result<VacantFolio<'_, 'g, 'a>, (Refused<'a>, AnonFolioPte<'a>)> {
        // The folio's order is an anonymous PTE order (its invariants).
        let fits = super::fault::aligned_block(0, folio.order()).1 == self.nr;
        if !fits {
            return Err((Refused::Unsuitable, folio));
        }
        if let Err(why) = self.check_under_lock() {
            return Err((why, folio));
        }
        // INVARIANT: Checked just above, under the lock that `&mut self` keeps held.
        Ok(VacantFolio { guard: self, folio })
    }

    /// Proof, under the lock, that the block may be filled with the shared zero page: it is one
    /// entry, the fault is a read, the mm may map the zero page, and [C's checks](Refused) pass.
    #[inline(always)]
    pub fn vacant_zero_page(&mut self) -> Result<VacantZeroPage<'_, 'g, 'a>, Refused<'a>> {
        let vma = self.vmf.vma();
        // SAFETY: The mm is valid (the VMA's, read-locked).
        let forbidden = unsafe { bindings::mm_rs_mm_forbids_zeropage(vma.mm().as_raw()) };
        if self.nr != 1 || self.vmf.is_write() || forbidden {
            return Err(Refused::Unsuitable);
        }
        self.check_under_lock()?;
        // INVARIANT: Checked just above, under the lock that `&mut self` keeps held.
        Ok(VacantZeroPage { guard: self })
    }

    /// Tells the MMU that the block's entries were not changed by us after all (another thread
    /// won the race), as C's `update_mmu_tlb()` and `update_mmu_tlb_range()`.
    #[inline]
    pub fn update_mmu_tlb(&self) {
        // `nr < PTRS_PER_PTE` by the type invariants.
        let nr = self.nr as u32;
        // SAFETY: The entries lie in the mapped, locked table of the read-locked VMA.
        unsafe {
            bindings::mm_rs_update_mmu_tlb_range(
                self.vmf.vma().as_ptr(),
                self.addr,
                self.pte.as_ptr(),
                nr,
            )
        };
    }

    /// Writes `entry` to the block with one `set_ptes()` (which advances the pfn for each
    /// page), then updates the MMU cache for it, as the end of C's `do_anonymous_page()`.
    ///
    /// # Safety
    ///
    /// The block's entries must be vacant (checked under the lock held since), and `entry` must
    /// map memory that stays allocated while mapped: the `nr` pages of a folio whose references
    /// the entries own and whose rmap, mapcount and the mm's RSS already account for them, or
    /// the zero page.
    #[inline(always)]
    unsafe fn set_ptes(&self, entry: Pte) {
        let vma = self.vmf.vma();
        // `nr < PTRS_PER_PTE` by the type invariants.
        let nr = self.nr as u32;
        // SAFETY: The entries are in the mapped table whose lock we hold, inside the VMA (type
        // invariants); the caller guarantees they are vacant and what they map.
        unsafe {
            bindings::mm_rs_set_ptes(
                vma.mm().as_raw(),
                self.addr,
                self.pte.as_ptr(),
                entry.as_raw(),
                nr,
            )
        };
        if !bindings::MM_RS_UPDATE_MMU_CACHE_IS_NOP {
            // SAFETY: As above; `vmf` is the fault being handled.
            unsafe {
                bindings::mm_rs_update_mmu_cache_range(
                    self.vmf.as_ptr(),
                    vma.as_ptr(),
                    self.addr,
                    self.pte.as_ptr(),
                    nr,
                )
            };
        }
    }
}

impl Drop for PteTableGuard<'_, '_> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: By the type invariants the table is mapped and its lock held; this is the one
        // unlock and unmap.
        unsafe { bindings::mm_rs_pte_unmap_unlock(self.pte.as_ptr(), self.ptl.as_ptr()) };
    }
}

/// A new anonymous folio and the block of a locked PTE table it will fill, checked free.
///
/// Borrowing the guard mutably, it keeps anything else from touching the table between the check
/// and the install. Dropped without [`Self::install`], it releases the folio and changes
/// nothing.
///
/// # Invariants
///
/// `folio` was readied for `guard`'s fault and has exactly `guard.nr` pages; under the lock,
/// held since, every entry of the guard's block was found vacant, the mm stable and the VMA not
/// registered with userfaultfd for missing pages.
pub struct VacantFolio<'v, 'g, 'a> {
    guard: &'v mut PteTableGuard<'g, 'a>,
    folio: AnonFolioPte<'a>,
}

impl VacantFolio<'_, '_, '_> {
    /// Maps the folio at the block, as the rest of C's `do_anonymous_page()`: takes a reference
    /// for each page the entries will map, counts the pages in the mm's RSS and the mTHP
    /// statistics, adds the folio to the anonymous rmap (exclusively) and to the LRU, sets the
    /// entries with one `set_ptes()` (uffd-wp kept when the fault replaces a uffd-wp marker),
    /// updates the MMU cache, and, with `CONFIG_MM_RS_SPLIT_UNDERUSED`, queues an mTHP for the
    /// deferred-split shrinker, as C does. Cannot fail: everything it needs was checked before,
    /// under the lock still held.
    #[inline(always)]
    pub fn install(self) {
        let Self { guard, folio } = self;
        let AnonFolioPte { folio, entry } = folio;
        let order = folio.order();
        let vmf = guard.vmf;
        let vma = vmf.vma();
        let nr = guard.nr;
        let raw = folio.as_ptr();
        if nr > 1 {
            // SAFETY: We hold a reference, so the folio is live; `nr - 1 < PTRS_PER_PTE` fits in
            // a C int (asserted at the top). With ours, the folio has one reference for each
            // entry.
            unsafe { bindings::mm_rs_folio_ref_add(raw, (nr - 1) as i32) };
        }
        // SAFETY: The mm is valid (a VMA's, read-locked); the counter is updated atomically.
        unsafe {
            bindings::mm_rs_add_mm_counter(
                vma.mm().as_raw(),
                bindings::MM_RS_MM_ANONPAGES,
                nr as isize,
            )
        };
        #[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
        if order > 0 {
            // C's count_mthp_stat() ignores order 0; `order` is below PMD_ORDER.
            super::thp::count_mthp_stat(order, super::thp::MthpStat::AnonFaultAlloc);
        }
        #[cfg(not(CONFIG_TRANSPARENT_HUGEPAGE))]
        let _ = order;
        // SAFETY: The folio is new, exclusively ours and unmapped (`NewAnonFolio` invariants),
        // and this consumes it, so it is added to an rmap once; the VMA is private anonymous
        // (guard invariants), read-locked, and has an anon_vma (`AnonFolioPte` invariants);
        // `addr` is the folio's naturally aligned place in the VMA (guard invariants); the PTE
        // lock of its entries is held.
        unsafe {
            bindings::folio_add_new_anon_rmap(
                raw,
                vma.as_ptr(),
                guard.addr,
                bindings::MM_RS_RMAP_EXCLUSIVE,
            )
        };
        // SAFETY: The folio is valid and on no LRU list yet (`NewAnonFolio` invariants, and
        // this consumes it); the VMA is read-locked.
        unsafe { bindings::folio_add_lru_vma(raw, vma.as_ptr()) };
        let entry = if vmf.orig_pte_uffd_wp() {
            entry.mkuffd_wp()
        } else {
            entry
        };
        // SAFETY: The block is vacant (type invariants), and the entries map the `nr` pages of
        // the folio, whose `nr` references they take over from `folio`, forgotten right after,
        // and which the rmap, mapcount and RSS counted above.
        unsafe { guard.set_ptes(entry) };
        #[cfg(CONFIG_MM_RS_SPLIT_UNDERUSED)]
        if nr > 1 {
            // SAFETY: The folio is live (the entries hold its references), anonymous, and
            // mapped by the block whose PTE lock is held, as for C's call after its
            // `set_ptes()`; the call only queues it for the deferred-split shrinker.
            unsafe { bindings::mm_rs_anon_underused_candidate(raw) };
        }
        folio.forget();
    }
}

/// One entry of a locked PTE table, checked free for the shared zero page.
///
/// # Invariants
///
/// `guard`'s block is one entry of a read fault in an mm that may map the zero page; under the
/// lock, held since, it was found vacant, the mm stable and the VMA not registered with
/// userfaultfd for missing pages.
pub struct VacantZeroPage<'v, 'g, 'a> {
    guard: &'v mut PteTableGuard<'g, 'a>,
}

impl VacantZeroPage<'_, '_, '_> {
    /// Maps the shared zero page at the entry (a read fault), `pte_mkspecial()` with the VMA's
    /// protection, read-only, uffd-wp kept when the fault replaces a uffd-wp marker.
    #[inline(always)]
    pub fn install(self) {
        let guard = self.guard;
        let vmf = guard.vmf;
        // SAFETY: Makes the zero page's special entry for this address with the read-locked
        // VMA's protection, which is not made writable (a private mapping's `vm_page_prot` is
        // never writable: writes go through the write-protect fault).
        let entry = Pte(unsafe { bindings::mm_rs_zero_page_pte(guard.addr, vmf.vma().as_ptr()) });
        let entry = if vmf.orig_pte_uffd_wp() {
            entry.mkuffd_wp()
        } else {
            entry
        };
        // SAFETY: The entry is vacant (type invariants); the zero page is never freed, so the
        // entry needs no reference.
        unsafe { guard.set_ptes(entry) };
    }
}
