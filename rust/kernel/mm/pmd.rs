// SPDX-License-Identifier: GPL-2.0

//! PMD entries that point to PTE tables, their locks, and taking an empty PTE table out of the
//! page tables to free it.
//!
//! Lock order, as everywhere in mm: the mmap (or VMA) read lock, then the PMD lock, then the PTE
//! lock of the table the PMD points to (nested: with split PTE locks they are different locks of
//! one class). A path that already holds the PTE lock may only *try* the PMD lock
//! ([`PteLockHeld::detach_if_empty`]).
//!
//! Each step consumes the guard of the step before: [`PmdGuard::lock_pte_table`] takes the PMD
//! lock's guard into the nested guard (so the PTE lock cannot be taken twice), and detaching
//! consumes the guard that proves the locks are held (so a table cannot be detached twice). The
//! detached table borrows its mm and records the address it was mapped at, and is freed only
//! through a gather of that mm (checked), at that address. A table detached under the PTE lock
//! waits for the unlock in a [`DetachedSlot`], the one place C memory holds it.
//!
//! Lockless readers (`pte_offset_map()` under `rcu_read_lock()`, GUP-fast with interrupts off)
//! may still be looking at a table after it is detached: [`DetachedPteTable::free`] goes through
//! the mmu_gather, which frees page tables (and their split locks) only after a TLB flush and an
//! RCU grace period once `CONFIG_MM_RS_PT_RECLAIM` is set.
//!
//! C headers: [`include/linux/mm.h`](srctree/include/linux/mm.h),
//! [`include/asm-generic/tlb.h`](srctree/include/asm-generic/tlb.h)

use super::{pgtable::PteTableRef, pgtable::PTRS_PER_PTE, Mm, NotThreadSafe};
use crate::bindings;
use core::{marker::PhantomData, ptr::NonNull};

/// The size of the range one PTE table maps (`PMD_SIZE`).
pub const PMD_SIZE: usize = bindings::MM_RS_PMD_SIZE;

/// A PMD entry of `mm`'s page tables.
///
/// # Invariants
///
/// `pmd` points to the PMD entry that maps `[addr, addr + PMD_SIZE)` in `mm`'s page tables,
/// which stay allocated for `'a` (the caller holds the mmap or VMA read lock); `addr` is
/// `PMD_SIZE`-aligned. No other `PmdRef` of `mm` exists for `'a`: the PMD locks of different
/// entries may be one lock (`pmd_lockptr()` is the lock of the whole PMD table, or
/// `mm->page_table_lock`), which two `PmdRef`s could take twice.
pub struct PmdRef<'a> {
    pmd: NonNull<bindings::pmd_t>,
    mm: &'a Mm,
    addr: usize,
}

impl<'a> PmdRef<'a> {
    /// Views the PMD entry `pmd` of `mm`, which maps `addr`.
    ///
    /// # Safety
    ///
    /// `pmd` must point to the PMD entry mapping `addr` in `mm`'s page tables, which stay
    /// allocated for `'a`, as the entry a zap or a fault works on does while the mmap or VMA read
    /// lock is held; no other `PmdRef` of `mm` may exist for `'a`; and for `'a` the caller must
    /// hold no page table lock of `mm`, except the PTE lock of the table this entry points to if
    /// it wraps the result in a [`PteLockHeld`] at once (the lock methods take the PMD lock and
    /// the PTE lock outright).
    #[inline]
    pub unsafe fn from_raw(mm: &'a Mm, pmd: NonNull<bindings::pmd_t>, addr: usize) -> Self {
        // INVARIANT: Guaranteed by the caller; the address is aligned here.
        Self {
            pmd,
            mm,
            addr: addr & !(PMD_SIZE - 1),
        }
    }

    /// The first address the entry maps.
    #[inline]
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// The lock that covers this entry (`pmd_lockptr()`).
    #[inline]
    fn lockptr(&self) -> NonNull<bindings::spinlock_t> {
        // SAFETY: The entry and `mm` are valid by the type invariants.
        let ptl = unsafe { bindings::mm_rs_pmd_lockptr(self.mm.as_raw(), self.pmd.as_ptr()) };
        // SAFETY: `pmd_lockptr()` returns a lock for every PMD entry (the split lock of its
        // table, or `mm->page_table_lock`).
        unsafe { NonNull::new_unchecked(ptl) }
    }

    /// Takes the PMD lock (`pmd_lock()`). The guard borrows the entry mutably, so the lock
    /// cannot be taken twice through it; and a [`PteLockHeld`] borrows it mutably too, so it
    /// cannot be taken while the PTE lock is held either (that would invert the lock order, or
    /// self-deadlock where both are one lock).
    #[inline]
    pub fn lock(&mut self) -> PmdGuard<'_, 'a> {
        let pml = self.lockptr();
        // SAFETY: `pml` is the valid lock of this entry.
        unsafe { bindings::spin_lock(pml.as_ptr()) };
        // INVARIANT: `pml` was just taken.
        PmdGuard {
            pmd: self,
            pml,
            _not_send: NotThreadSafe,
        }
    }

    /// Maps the PTE table the entry points to (`pte_offset_map_nolock()`, from its first
    /// entry), with the lock of that table; [`None`] if the entry does not point to one.
    ///
    /// # Safety
    ///
    /// The PMD lock must be held, so that the entry cannot change; the caller unmaps the table.
    #[inline]
    unsafe fn map_table_nolock(
        &self,
    ) -> Option<(NonNull<bindings::pte_t>, NonNull<bindings::spinlock_t>)> {
        let mut ptl: *mut bindings::spinlock_t = core::ptr::null_mut();
        // SAFETY: The entry is valid (type invariants) and, its lock held, stable; address 0
        // selects the first entry of the table; `ptl` receives the table's lock.
        let pte = unsafe {
            bindings::mm_rs_pte_offset_map_nolock(self.mm.as_raw(), self.pmd.as_ptr(), 0, &mut ptl)
        };
        let pte = NonNull::new(pte)?;
        // SAFETY: `pte_offset_map_nolock()` returns the lock with every mapped table.
        Some((pte, unsafe { NonNull::new_unchecked(ptl) }))
    }

    /// Clears the entry and returns the table it pointed to.
    ///
    /// # Safety
    ///
    /// The PMD lock and the PTE lock of the table must be held, the entry must still point to
    /// that table (checked under the PMD lock, held since), and every entry of the table must be
    /// none (read under the PTE lock).
    #[inline]
    unsafe fn detach(&self) -> DetachedPteTable<'a> {
        // SAFETY: The entry is valid and both its locks are held.
        let pmdval = unsafe { bindings::mm_rs_pmdp_get_and_clear_table(self.pmd.as_ptr()) };
        // INVARIANT: `pmdval` pointed to an empty table of `mm` mapping `addr`, now unreachable
        // from the page tables; the PMD is none, so no second detach can return it.
        DetachedPteTable {
            mm: self.mm,
            pmdval,
            addr: self.addr,
        }
    }
}

/// The PTE lock of a table, held by the C code that called into Rust. Not a guard: dropping it
/// unlocks nothing.
///
/// It owns the entry's [`PmdRef`], the only one of the call (its invariants), so the PMD lock
/// cannot be taken outright ([`PmdRef::lock`]) while C holds the PTE lock, whether the witness
/// is still used or not: with the PTE lock held, that would invert the lock order, or
/// self-deadlock where both are one lock. A borrowed `PmdRef` would be free again after the
/// witness's last use, while C still holds the PTE lock. The fast path,
/// [`Self::detach_if_empty`], only tries the PMD lock, and consumes the witness and the entry
/// with it.
///
/// # Invariants
///
/// `ptl` is the PTE lock of the table that `pmd`'s entry points to, held by the caller for as
/// long as the witness exists.
pub struct PteLockHeld<'a> {
    ptl: NonNull<bindings::spinlock_t>,
    pmd: PmdRef<'a>,
    _not_send: NotThreadSafe,
}

impl<'a> PteLockHeld<'a> {
    /// Records that the caller holds `ptl`, the lock of the PTE table `pmd` points to, and takes
    /// `pmd`, so that it cannot be locked while `ptl` is held.
    ///
    /// # Safety
    ///
    /// `ptl` must be held by the caller for as long as the result exists, and be the lock of the
    /// PTE table that `pmd`'s entry points to (as `pte_offset_map_lock()` returns it). The
    /// caller must not make another `PmdRef` of the entry's mm before it releases `ptl` (as
    /// [`PmdRef::from_raw`] requires anyway).
    #[inline]
    pub unsafe fn from_raw(ptl: NonNull<bindings::spinlock_t>, pmd: PmdRef<'a>) -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self {
            ptl,
            pmd,
            _not_send: NotThreadSafe,
        }
    }

    /// The fast path: if the PMD lock can be had without waiting and is not the PTE lock held
    /// (no split PTE locks), detaches the table if all its entries are none, checked here under
    /// both locks rather than trusted from the caller's count (so a wrong count can at worst
    /// keep a table). Consumes the witness and its entry: once detached, the PTE lock held no
    /// longer locks a table of this entry, and the entry is not locked again in this call.
    #[inline]
    pub fn detach_if_empty(self) -> Option<DetachedPteTable<'a>> {
        let pml = self.pmd.lockptr();
        if pml == self.ptl {
            return None;
        }
        // SAFETY: `pml` is the valid lock of the entry.
        if !unsafe { bindings::mm_rs_spin_trylock(pml.as_ptr()) } {
            return None;
        }
        // SAFETY: The PMD lock was just taken; the table is unmapped below.
        let mapped = unsafe { self.pmd.map_table_nolock() };
        // The table the entry points to must be the one whose lock we hold (type invariants);
        // checked rather than trusted, since detaching another table would free it in use.
        let table = mapped.and_then(|(pte, ptl)| {
            // SAFETY: The table is mapped until the unmap below, and locked by `self.ptl` if it
            // is ours, which is checked before its entries are trusted.
            let empty = ptl == self.ptl
                && unsafe { PteTableRef::from_raw(pte) }.range_none(0, PTRS_PER_PTE);
            // SAFETY: Both locks are held, the entry points to the table whose lock we hold (the
            // PMD lock is held since it was read), and every entry is none.
            let table = empty.then(|| unsafe { self.pmd.detach() });
            // SAFETY: Mapped just above; this is the one unmap.
            unsafe { bindings::mm_rs_pte_unmap(pte.as_ptr()) };
            table
        });
        // SAFETY: Taken just above; this is the one unlock.
        unsafe { bindings::spin_unlock(pml.as_ptr()) };
        table
    }
}

/// The PMD lock of an entry, held; released on drop.
///
/// # Invariants
///
/// `pml` is the lock of `pmd`'s entry (`pmd_lockptr()`) and is held until the guard is dropped.
pub struct PmdGuard<'p, 'a> {
    pmd: &'p PmdRef<'a>,
    pml: NonNull<bindings::spinlock_t>,
    /// A spinlock is released by the task that took it.
    _not_send: NotThreadSafe,
}

impl<'p, 'a> PmdGuard<'p, 'a> {
    /// Maps the PTE table the entry points to and takes its lock, nested inside the PMD lock
    /// (`pte_offset_map_nolock()` and `spin_lock_nested()`, or nothing more when both are one
    /// lock). Under the PMD lock the entry cannot change, so no recheck is needed.
    ///
    /// Consumes the PMD guard, which the nested guard keeps: the PTE lock is taken once.
    /// Returns [`None`] (the PMD lock released) if the entry does not point to a PTE table.
    #[inline]
    pub fn lock_pte_table(self) -> Option<PteTableNestedGuard<'p, 'a>> {
        // SAFETY: The PMD lock is held (type invariants); the nested guard unmaps the table.
        let (pte, ptl) = unsafe { self.pmd.map_table_nolock() }?;
        if ptl != self.pml {
            // SAFETY: `ptl` is the valid lock of the mapped table; it nests inside ours, and we
            // do not hold it (the only guard that could is this one, being built).
            unsafe { bindings::mm_rs_spin_lock_nested(ptl.as_ptr()) };
        }
        // INVARIANT: The table is mapped, and its lock is held (it is ours, or taken above);
        // the PMD lock stays held by `pmdl`.
        Some(PteTableNestedGuard {
            pmdl: self,
            pte,
            ptl,
            _not_send: NotThreadSafe,
        })
    }
}

impl Drop for PmdGuard<'_, '_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: The lock is held by the type invariants; this is the one unlock.
        unsafe { bindings::spin_unlock(self.pml.as_ptr()) };
    }
}

/// A PTE table mapped and locked under its PMD lock (the slow path), which it holds too;
/// unlocked and unmapped on drop, then the PMD lock released.
///
/// # Invariants
///
/// `pte` maps the first entry of the table `pmdl`'s entry points to, and `ptl`, the table's
/// lock, is held: by us if it differs from the PMD lock, else as the PMD lock itself.
pub struct PteTableNestedGuard<'p, 'a> {
    pmdl: PmdGuard<'p, 'a>,
    pte: NonNull<bindings::pte_t>,
    ptl: NonNull<bindings::spinlock_t>,
    /// A spinlock is released by the task that took it (and the table is unmapped by it).
    _not_send: NotThreadSafe,
}

impl<'a> PteTableNestedGuard<'_, 'a> {
    /// Detaches the table if all its entries are none, read under both locks; either way both
    /// locks are released (after the detach).
    #[inline]
    pub fn detach_if_empty(self) -> Option<DetachedPteTable<'a>> {
        // SAFETY: The table is mapped and locked by the type invariants; the range is the
        // whole table, which fits in a C int.
        let empty =
            unsafe { bindings::mm_rs_pte_range_none(self.pte.as_ptr(), PTRS_PER_PTE as i32) };
        // SAFETY: Both locks are held, the entry points to the mapped table (it cannot change
        // under the PMD lock, held since it was read), and every entry is none.
        empty.then(|| unsafe { self.pmdl.pmd.detach() })
    }
}

impl Drop for PteTableNestedGuard<'_, '_> {
    #[inline]
    fn drop(&mut self) {
        if self.ptl != self.pmdl.pml {
            // SAFETY: We took this lock in `lock_pte_table()`; this is the one unlock.
            unsafe { bindings::spin_unlock(self.ptl.as_ptr()) };
        }
        // SAFETY: The table was mapped by `lock_pte_table()`; this is the one unmap.
        unsafe { bindings::mm_rs_pte_unmap(self.pte.as_ptr()) };
        // `pmdl` is dropped after this, releasing the PMD lock.
    }
}

/// A PTE table taken out of the page tables, all entries none, waiting to be freed.
///
/// Dropping it without [`DetachedPteTable::free`] leaks the table (and leaves `VmPTE` counting
/// it), which is safe but wrong.
///
/// # Invariants
///
/// `pmdval` is the PMD value that pointed to a PTE table of `mm` with no entries, mapping
/// `[addr, addr + PMD_SIZE)`, which no page table points to any more and nobody else will free.
#[must_use = "a detached PTE table must be freed through the mmu_gather"]
pub struct DetachedPteTable<'mm> {
    mm: &'mm Mm,
    pmdval: bindings::pmd_t,
    addr: usize,
}

impl<'mm> DetachedPteTable<'mm> {
    /// The first address the table mapped.
    #[inline]
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// Frees the table through `tlb` and takes it off `mm_pgtables_bytes` (`mm_dec_nr_ptes()`),
    /// as `free_pte_range()` does: `pte_free_tlb()` records that a page table is freed (so the
    /// flush invalidates paging-structure caches) and the table's address, and queues the table,
    /// which is freed after the gather's TLB flush and an RCU grace period.
    ///
    /// Refused, with the table given back unfreed, if `tlb` is not a gather of the table's mm.
    #[inline]
    pub fn free(self, tlb: &mut MmuGather<'_>) -> Result<(), Self> {
        if !tlb.is_of(self.mm) {
            return Err(self);
        }
        // SAFETY: By the type invariants the table is ours to free, and `addr` is where it was
        // mapped; `tlb` is a live gather of its mm, used by this thread only.
        unsafe { bindings::mm_rs_free_pte(tlb.tlb.as_ptr(), self.pmdval, self.addr) };
        Ok(())
    }
}

/// The place in C memory (`struct mm_rs_detached_pte`) where a table detached under the PTE lock
/// waits for the unlock, between two calls from C, before it is freed.
///
/// # Invariants
///
/// `slot->mm` is NULL, or `slot` holds a [`DetachedPteTable`] of the mm live for `'mm`, put there
/// by [`Self::put`] and not taken back yet.
pub struct DetachedSlot<'s, 'mm> {
    slot: &'s mut bindings::mm_rs_detached_pte,
    _mm: PhantomData<&'mm Mm>,
}

impl<'s, 'mm> DetachedSlot<'s, 'mm> {
    /// Views the slot `slot`.
    ///
    /// # Safety
    ///
    /// `slot` must have been zero-initialised and changed since only through `DetachedSlot`s
    /// whose tables were of one mm, which must be live for `'mm`.
    #[inline]
    pub unsafe fn from_raw(slot: &'s mut bindings::mm_rs_detached_pte) -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self {
            slot,
            _mm: PhantomData,
        }
    }

    /// Keeps `table` until [`Self::take`]. A slot holds one table: the table comes back if the
    /// slot is full.
    #[inline]
    pub fn put(&mut self, table: DetachedPteTable<'mm>) -> Result<(), DetachedPteTable<'mm>> {
        if !self.slot.mm.is_null() {
            return Err(table);
        }
        self.slot.pmdval = table.pmdval;
        self.slot.addr = table.addr;
        // INVARIANT: The slot now holds `table`, given up here.
        self.slot.mm = table.mm.as_raw();
        Ok(())
    }

    /// Takes back the table put in the slot, once.
    #[inline]
    pub fn take(&mut self) -> Option<DetachedPteTable<'mm>> {
        let mm = NonNull::new(self.slot.mm)?;
        // INVARIANT: Emptied before the table is handed out: it is taken back once.
        self.slot.mm = core::ptr::null_mut();
        // SAFETY: By the type invariants the slot held a table of an mm live for `'mm`.
        let mm = unsafe { Mm::from_raw(mm.as_ptr()) };
        // INVARIANT: The table `put()` gave up, with its fields as they were.
        Some(DetachedPteTable {
            mm,
            pmdval: self.slot.pmdval,
            addr: self.slot.addr,
        })
    }
}

/// An mmu_gather in progress (`struct mmu_gather`), which batches TLB flushes and frees.
///
/// # Invariants
///
/// `tlb` points to a gathered `struct mmu_gather` that stays live for `'a`, used by this thread
/// only.
pub struct MmuGather<'a> {
    tlb: NonNull<bindings::mmu_gather>,
    _p: PhantomData<&'a mut bindings::mmu_gather>,
}

impl<'a> MmuGather<'a> {
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

    /// The mm whose page tables the gather works on (`tlb->mm`), which outlives the gather.
    #[inline]
    pub fn mm(&self) -> &'a Mm {
        // SAFETY: The gather is live for 'a by the type invariants, and its mm lives at least as
        // long (the gatherer holds it).
        unsafe { Mm::from_raw(bindings::mm_rs_tlb_mm(self.tlb.as_ptr())) }
    }

    /// Whether this is a gather of `mm`.
    #[inline]
    pub fn is_of(&self, mm: &Mm) -> bool {
        core::ptr::eq(self.mm(), mm)
    }
}
