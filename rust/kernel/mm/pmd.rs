// SPDX-License-Identifier: GPL-2.0

//! PMD entries that point to PTE tables, their locks, and taking an empty PTE table out of the
//! page tables to free it.
//!
//! Lock order, as everywhere in mm: the mmap (or VMA) read lock, then the PMD lock, then the PTE
//! lock of the table the PMD points to (nested: with split PTE locks they are different locks of
//! one class). A path that already holds the PTE lock may only *try* the PMD lock
//! ([`PmdRef::try_lock_under`]).
//!
//! Lockless readers (`pte_offset_map()` under `rcu_read_lock()`, GUP-fast with interrupts off)
//! may still be looking at a table after it is detached: [`DetachedPteTable::free`] goes through
//! the mmu_gather, which frees page tables (and their split locks) only after a TLB flush and an
//! RCU grace period once `CONFIG_MM_RS_PT_RECLAIM` is set.
//!
//! C headers: [`include/linux/mm.h`](srctree/include/linux/mm.h),
//! [`include/asm-generic/tlb.h`](srctree/include/asm-generic/tlb.h)

use super::{pgtable::PteTableMap, pgtable::PTRS_PER_PTE, virt::MmRef};
use crate::bindings;
use core::{marker::PhantomData, ptr::NonNull};

/// A PMD entry of `mm`'s page tables.
///
/// # Invariants
///
/// `pmd` points to a PMD entry of `mm`'s page tables, which stay allocated for `'a` (the caller
/// holds the mmap or VMA read lock).
pub struct PmdRef<'a> {
    pmd: NonNull<bindings::pmd_t>,
    mm: &'a MmRef,
}

impl<'a> PmdRef<'a> {
    /// Views the PMD entry `pmd` of `mm`.
    ///
    /// # Safety
    ///
    /// `pmd` must point to a PMD entry of `mm`'s page tables that stays allocated for `'a`, as
    /// the entry a zap or a fault works on does while the mmap or VMA read lock is held.
    #[inline]
    pub unsafe fn from_raw(mm: &'a MmRef, pmd: NonNull<bindings::pmd_t>) -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self { pmd, mm }
    }

    /// The lock that covers this entry (`pmd_lockptr()`).
    #[inline]
    fn lockptr(&self) -> *mut bindings::spinlock_t {
        // SAFETY: The entry and `mm` are valid by the type invariants.
        unsafe { bindings::mm_rs_pmd_lockptr(self.mm.as_ptr(), self.pmd.as_ptr()) }
    }

    /// Takes the PMD lock (`pmd_lock()`). The caller must not hold a PTE lock of this mm.
    ///
    /// Returns [`None`] only if there is no lock for the entry, which C never lets happen.
    #[inline]
    pub fn lock(&self) -> Option<PmdLocked<'_, 'a>> {
        let pml = NonNull::new(self.lockptr())?;
        // SAFETY: `pml` is the valid lock of this entry.
        unsafe { bindings::spin_lock(pml.as_ptr()) };
        // INVARIANT: `pml` was just taken.
        Some(PmdLocked {
            pmd: self,
            pml,
            _not_send: PhantomData,
        })
    }

    /// Tries to take the PMD lock while `held`, the PTE lock of the table this entry points to,
    /// is held: taking it outright would invert the lock order.
    ///
    /// Fails when the PMD lock is busy, and always when it is the same lock as `held` (no split
    /// PTE locks): callers then fall back to [`Self::lock`] once `held` is dropped.
    #[inline]
    pub fn try_lock_under(&self, held: &PteLockHeld<'_>) -> Option<PmdLocked<'_, 'a>> {
        let pml = NonNull::new(self.lockptr())?;
        if pml == held.ptl {
            return None;
        }
        // SAFETY: `pml` is the valid lock of this entry.
        if !unsafe { bindings::mm_rs_spin_trylock(pml.as_ptr()) } {
            return None;
        }
        // INVARIANT: `pml` was just taken.
        Some(PmdLocked {
            pmd: self,
            pml,
            _not_send: PhantomData,
        })
    }
}

/// The PTE lock of a table, held by the C code that called into Rust.
///
/// # Invariants
///
/// `ptl` is the PTE lock of the table that `pmd` points to, held by the caller for `'a`, and
/// `pmd` is a valid PMD entry for `'a`.
pub struct PteLockHeld<'a> {
    ptl: NonNull<bindings::spinlock_t>,
    pmd: NonNull<bindings::pmd_t>,
    _p: PhantomData<&'a bindings::spinlock_t>,
}

impl PteLockHeld<'_> {
    /// Records that the caller holds `ptl`, the lock of the PTE table `pmd` points to.
    ///
    /// # Safety
    ///
    /// `ptl` must be held by the caller for the lifetime of the result, and be the lock of the
    /// PTE table that the valid PMD entry `pmd` points to (as `pte_offset_map_lock()` returns
    /// it).
    #[inline]
    pub unsafe fn from_raw(ptl: NonNull<bindings::spinlock_t>, pmd: &PmdRef<'_>) -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self {
            ptl,
            pmd: pmd.pmd,
            _p: PhantomData,
        }
    }
}

/// The PMD lock of an entry, held; released on drop.
///
/// # Invariants
///
/// `pml` is the lock of `pmd`'s entry (`pmd_lockptr()`) and is held until the guard is dropped.
pub struct PmdLocked<'p, 'a> {
    pmd: &'p PmdRef<'a>,
    pml: NonNull<bindings::spinlock_t>,
    _not_send: PhantomData<*mut ()>,
}

impl<'p, 'a> PmdLocked<'p, 'a> {
    /// Maps the PTE table the entry points to and takes its lock, nested inside the PMD lock
    /// (`pte_offset_map_nolock()` and `spin_lock_nested()`, or nothing more when both are one
    /// lock). Under the PMD lock the entry cannot change, so no recheck is needed.
    ///
    /// Returns [`None`] if the entry does not point to a PTE table.
    #[inline]
    pub fn lock_pte_table(&self) -> Option<PteTableNested<'_, 'p, 'a>> {
        let mut ptl: *mut bindings::spinlock_t = core::ptr::null_mut();
        // SAFETY: The entry is valid (type invariants of `PmdRef`); address 0 selects the first
        // entry of the table; `ptl` receives the table's lock.
        let pte = unsafe {
            bindings::mm_rs_pte_offset_map_nolock(
                self.pmd.mm.as_ptr(),
                self.pmd.pmd.as_ptr(),
                0,
                &mut ptl,
            )
        };
        let pte = NonNull::new(pte)?;
        let Some(ptl) = NonNull::new(ptl) else {
            // Cannot happen: a mapped table always comes with its lock.
            // SAFETY: `pte` was mapped just above and is unmapped once.
            unsafe { bindings::mm_rs_pte_unmap(pte.as_ptr()) };
            return None;
        };
        if ptl != self.pml {
            // SAFETY: `ptl` is the valid lock of the mapped table; it nests inside ours.
            unsafe { bindings::mm_rs_spin_lock_nested(ptl.as_ptr()) };
        }
        // INVARIANT: The table is mapped, and its lock is held (it is ours, or taken above).
        Some(PteTableNested {
            pmdl: self,
            pte,
            ptl,
        })
    }

    /// The fast path: detaches the table the entry points to, whose lock `held` the caller
    /// holds, if all its entries are none.
    ///
    /// The entries are checked here, under both locks, rather than trusted from the caller's
    /// count, so that a wrong count can at worst keep a table.
    #[inline]
    pub fn detach_if_empty_under(&self, held: &PteLockHeld<'_>) -> Option<DetachedPteTable> {
        if held.pmd != self.pmd.pmd {
            return None;
        }
        // SAFETY: The entry is valid and, under its lock, points to the table whose lock
        // `held` is.
        let map = unsafe { PteTableMap::map(self.pmd.pmd.as_ptr()) }?;
        let empty = map.table().range_none(0, PTRS_PER_PTE);
        drop(map);
        // SAFETY: Both locks are held and every entry is none, so nobody can map anything in
        // the table before it is detached.
        empty.then(|| unsafe { self.detach() })
    }

    /// Clears the entry and returns the table it pointed to.
    ///
    /// # Safety
    ///
    /// The PTE lock of the table must be held too, and every entry of the table be none.
    #[inline]
    unsafe fn detach(&self) -> DetachedPteTable {
        // SAFETY: The entry is valid and both its locks are held.
        let pmdval = unsafe { bindings::mm_rs_pmdp_get_and_clear_table(self.pmd.pmd.as_ptr()) };
        // INVARIANT: `pmdval` pointed to an empty table, now unreachable from the page tables.
        DetachedPteTable { pmdval }
    }
}

impl Drop for PmdLocked<'_, '_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: The lock is held by the type invariants; this is the one unlock.
        unsafe { bindings::spin_unlock(self.pml.as_ptr()) };
    }
}

/// A PTE table mapped and locked under its PMD lock (the slow path); unlocked and unmapped on
/// drop.
///
/// # Invariants
///
/// `pte` maps the first entry of the table `pmdl`'s entry points to, and `ptl`, the table's
/// lock, is held: by us if it differs from the PMD lock, else as the PMD lock itself.
pub struct PteTableNested<'l, 'p, 'a> {
    pmdl: &'l PmdLocked<'p, 'a>,
    pte: NonNull<bindings::pte_t>,
    ptl: NonNull<bindings::spinlock_t>,
}

impl PteTableNested<'_, '_, '_> {
    /// Detaches the table if all its entries are none, read under both locks.
    #[inline]
    pub fn detach_if_empty(&self) -> Option<DetachedPteTable> {
        let nr = i32::try_from(PTRS_PER_PTE).ok()?;
        // SAFETY: The table is mapped and locked by the type invariants; the range is the
        // whole table.
        let empty = unsafe { bindings::mm_rs_pte_range_none(self.pte.as_ptr(), nr) };
        // SAFETY: Both locks are held and every entry is none.
        empty.then(|| unsafe { self.pmdl.detach() })
    }
}

impl Drop for PteTableNested<'_, '_, '_> {
    #[inline]
    fn drop(&mut self) {
        if self.ptl != self.pmdl.pml {
            // SAFETY: We took this lock in `lock_pte_table()`; this is the one unlock.
            unsafe { bindings::spin_unlock(self.ptl.as_ptr()) };
        }
        // SAFETY: The table was mapped by `lock_pte_table()`; this is the one unmap.
        unsafe { bindings::mm_rs_pte_unmap(self.pte.as_ptr()) };
    }
}

/// A PTE table taken out of the page tables, all entries none, waiting to be freed.
///
/// Dropping it without [`DetachedPteTable::free`] leaks the table (and leaves `VmPTE` counting
/// it), which is safe but wrong.
///
/// # Invariants
///
/// `pmdval` is the PMD value that pointed to a PTE table with no entries, which no page table
/// points to any more and nobody else will free.
#[must_use = "a detached PTE table must be freed through the mmu_gather"]
pub struct DetachedPteTable {
    pmdval: bindings::pmd_t,
}

impl DetachedPteTable {
    /// The PMD value, to keep in C across a lock drop ([`Self::from_raw`] takes it back).
    #[inline]
    pub fn into_raw(self) -> bindings::pmd_t {
        self.pmdval
    }

    /// Takes back a table from [`Self::into_raw`].
    ///
    /// # Safety
    ///
    /// `pmdval` must come from [`Self::into_raw`] and be taken back once.
    #[inline]
    pub unsafe fn from_raw(pmdval: bindings::pmd_t) -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self { pmdval }
    }

    /// Frees the table through `tlb` (`pte_free_tlb()`, which flushes the TLB for `addr`'s PMD
    /// range first) and takes it off `mm_pgtables_bytes` (`mm_dec_nr_ptes()`).
    #[inline]
    pub fn free(self, tlb: &MmuGather<'_>, addr: usize) {
        // SAFETY: By the type invariants the table is ours to free; `tlb` is a live gather of
        // the mm it belonged to.
        unsafe { bindings::mm_rs_free_pte(tlb.tlb.as_ptr(), self.pmdval, addr) };
    }
}

/// An mmu_gather in progress (`struct mmu_gather`), which batches TLB flushes and frees.
///
/// # Invariants
///
/// `tlb` points to a gathered `struct mmu_gather` that stays live for `'a`.
pub struct MmuGather<'a> {
    tlb: NonNull<bindings::mmu_gather>,
    _p: PhantomData<&'a mut bindings::mmu_gather>,
}

impl MmuGather<'_> {
    /// Views the gather `tlb`.
    ///
    /// # Safety
    ///
    /// `tlb` must point to a `struct mmu_gather` between `tlb_gather_mmu()` and
    /// `tlb_finish_mmu()` for the lifetime of the result, used by this thread only.
    #[inline]
    pub unsafe fn from_raw(tlb: NonNull<bindings::mmu_gather>) -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self {
            tlb,
            _p: PhantomData,
        }
    }

    /// The mm whose page tables the gather works on (`tlb->mm`).
    #[inline]
    pub fn mm(&self) -> &MmRef {
        // SAFETY: The gather is live by the type invariants, and its mm lives as long as it.
        unsafe { MmRef::from_raw(bindings::mm_rs_tlb_mm(self.tlb.as_ptr())) }
    }
}
