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
//! C header: [`include/linux/pgtable.h`](srctree/include/linux/pgtable.h)

use super::{
    fault::VmFault,
    folio::MappingFolio,
    virt::{MmRef, VmaRef},
};
use crate::bindings;
use core::{marker::PhantomData, ptr::NonNull};

/// The number of entries in a PTE table (`PTRS_PER_PTE`).
pub const PTRS_PER_PTE: usize = bindings::MM_RS_PTRS_PER_PTE;

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

/// Consecutive entries of a mapped PTE table whose lock the caller holds, read with `ptep_get()`.
///
/// # Invariants
///
/// `pte` points to `nr` consecutive entries of one PTE table that stays mapped, with its lock
/// held, for `'a`.
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
        // INVARIANT: Guaranteed by the caller.
        Self {
            pte,
            nr,
            _p: PhantomData,
        }
    }

    /// The entries, in order.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = Pte> + '_ {
        (0..self.nr).map(move |i| {
            // SAFETY: `i < nr`, so the entry lies in the range, which is mapped and locked by
            // the type invariants.
            Pte(unsafe { bindings::mm_rs_ptep_get(self.pte.as_ptr().add(i)) })
        })
    }
}

/// A PTE table mapped with `pte_offset_map()`, unmapped on drop.
///
/// Holding it keeps the caller in the RCU read-side section that `pte_offset_map()` entered, so
/// it must not be held across anything that sleeps.
///
/// # Invariants
///
/// `table` was returned by `pte_offset_map()` for the first entry of its table and has not been
/// unmapped yet.
pub struct PteTableMap {
    table: NonNull<bindings::pte_t>,
}

impl PteTableMap {
    /// Maps the PTE table that `pmd` points to, as `pte_offset_map(pmd, addr & PMD_MASK)`.
    ///
    /// Returns [`None`] when the PMD does not point to a PTE table any more (it became none, a
    /// huge mapping or a migration entry under us); the fault is then retried.
    ///
    /// # Safety
    ///
    /// `pmd` must be a PMD entry of a page table that stays allocated while the caller holds the
    /// mmap or VMA read lock, as `vmf->pmd` does in a fault.
    #[inline]
    pub unsafe fn map(pmd: *mut bindings::pmd_t) -> Option<Self> {
        // SAFETY: Guaranteed by the caller; address 0 selects the first entry of the table.
        let table = unsafe { bindings::mm_rs_pte_offset_map(pmd, 0) };
        // INVARIANT: A non-NULL result is a fresh mapping of the table's first entry.
        NonNull::new(table).map(|table| Self { table })
    }

    /// A lockless view of the mapped table, valid while `self` is.
    #[inline]
    pub fn table(&self) -> PteTableRef<'_> {
        // SAFETY: By the type invariants the table stays mapped until `self` is dropped, which
        // the borrow on `self` prevents for the returned lifetime.
        unsafe { PteTableRef::from_raw(self.table) }
    }
}

impl Drop for PteTableMap {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants, the table is mapped and this is the one unmap.
        unsafe { bindings::mm_rs_pte_unmap(self.table.as_ptr()) };
    }
}

/// The value of a page table entry.
///
/// There is no way to make one from a raw value: entries come from the table
/// ([`PteTableLocked::orig_pte`] and friends), or are made by [`PteTableLocked::map_folio`] and
/// [`PteTableLocked::map_zero_page`] for what they map, so safe code cannot make an entry that
/// maps memory it does not own. The bit operations change permission and software bits only.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Pte(bindings::pte_t);

impl Pte {
    /// Whether the entry is none (`pte_none()`).
    #[inline]
    pub fn is_none(self) -> bool {
        // SAFETY: Pure function of the value.
        unsafe { bindings::mm_rs_pte_none(self.0) }
    }

    /// Whether two entries are the same (`pte_same()`).
    #[inline]
    pub fn same(self, other: Pte) -> bool {
        // SAFETY: Pure function of the values.
        unsafe { bindings::mm_rs_pte_same(self.0, other.0) }
    }

    /// Whether the entry is a userfaultfd write-protect marker (`pte_marker_uffd_wp()`).
    #[inline]
    pub fn is_uffd_wp_marker(self) -> bool {
        // SAFETY: Pure function of the value.
        unsafe { bindings::mm_rs_pte_marker_uffd_wp(self.0) }
    }

    /// The entry marked young, where the architecture does that in software (`pte_sw_mkyoung()`).
    #[inline]
    pub fn sw_mkyoung(self) -> Self {
        // SAFETY: Pure function of the value; only the accessed bit changes.
        Self(unsafe { bindings::mm_rs_pte_sw_mkyoung(self.0) })
    }

    /// The entry writable and dirty, for `vma` (`pte_mkwrite(pte_mkdirty())`).
    #[inline]
    pub fn mkwrite_dirty(self, vma: &VmaRef) -> Self {
        // SAFETY: Pure function of the value and the VMA's flags; only permission bits change.
        Self(unsafe { bindings::mm_rs_pte_mkwrite_dirty(self.0, vma.as_ptr()) })
    }

    /// The entry with the userfaultfd write-protect bit set (`pte_mkuffd_wp()`).
    #[inline]
    pub fn mkuffd_wp(self) -> Self {
        // SAFETY: Pure function of the value; only a software bit changes.
        Self(unsafe { bindings::mm_rs_pte_mkuffd_wp(self.0) })
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
}

/// A PTE table mapped and locked with `pte_offset_map_lock()`; unlocked and unmapped on drop.
///
/// This is the only way safe code gets to write page table entries, so no entry is written
/// without its lock held.
///
/// # Invariants
///
/// `pte` points to the entry for `addr` in a PTE table of `mm` that is mapped, and whose lock
/// `ptl` is held, until the guard is dropped. `vma` (of `mm`) covers `addr` and is read-locked by
/// the caller for `'a`.
pub struct PteTableLocked<'a> {
    pte: NonNull<bindings::pte_t>,
    ptl: NonNull<bindings::spinlock_t>,
    addr: usize,
    vma: &'a VmaRef,
    mm: &'a MmRef,
    _not_send: PhantomData<*mut ()>,
}

impl<'a> PteTableLocked<'a> {
    /// Maps and locks the PTE table that `pmd` points to, positioned at `addr`.
    ///
    /// Returns [`None`] if the PMD no longer points to a PTE table.
    ///
    /// # Safety
    ///
    /// `pmd` must be the PMD entry covering `addr` in `vma`'s page tables, which stay allocated
    /// while the caller holds `vma`'s read lock for `'a`.
    #[inline]
    pub unsafe fn lock(vma: &'a VmaRef, pmd: *mut bindings::pmd_t, addr: usize) -> Option<Self> {
        let mm = vma.mm()?;
        let mut ptl: *mut bindings::spinlock_t = core::ptr::null_mut();
        // SAFETY: Guaranteed by the caller; `ptl` receives the lock that is taken.
        let pte = unsafe { bindings::mm_rs_pte_offset_map_lock(mm.as_ptr(), pmd, addr, &mut ptl) };
        let pte = NonNull::new(pte)?;
        let Some(ptl) = NonNull::new(ptl) else {
            // Cannot happen: a mapped table always comes with its lock. Do not leak the mapping.
            // SAFETY: The table is mapped and locked, but we know of no lock to release.
            unsafe { bindings::mm_rs_pte_unmap(pte.as_ptr()) };
            return None;
        };
        // INVARIANT: `pte_offset_map_lock()` mapped the table and took its lock.
        Some(Self {
            pte,
            ptl,
            addr,
            vma,
            mm,
            _not_send: PhantomData,
        })
    }

    /// The address the guard is positioned at.
    #[inline]
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// How many entries from the guard's position to the end of the table.
    #[inline]
    fn room(&self) -> usize {
        PTRS_PER_PTE - pte_index(self.addr)
    }

    /// The entry at the guard's position (`ptep_get()`).
    #[inline]
    pub fn get(&self) -> Pte {
        // SAFETY: The entry is mapped and its lock held by the type invariants.
        Pte(unsafe { bindings::mm_rs_ptep_get(self.pte.as_ptr()) })
    }

    /// Whether the `nr` entries from the guard's position are all none, read under the lock.
    /// A range reaching past the table's end is reported as not none.
    #[inline]
    pub fn range_none(&self, nr: usize) -> bool {
        if nr > self.room() {
            return false;
        }
        let Ok(nr) = i32::try_from(nr) else {
            return false;
        };
        // SAFETY: The `nr` entries lie in the mapped, locked table.
        unsafe { bindings::mm_rs_pte_range_none(self.pte.as_ptr(), nr) }
    }

    /// Proof, for the next map call, that the entry at the guard's position may be replaced:
    /// it is none, or it is still `orig` (a non-present marker the fault found there).
    #[inline]
    pub fn vacant_single(&mut self, orig: Option<Pte>) -> Option<Vacant<'_, 'a>> {
        let cur = self.get();
        // C's vmf_pte_changed(). An anonymous fault's original entry is none or a uffd-wp
        // marker, never a present entry, which this must not overwrite.
        let vacant = match orig {
            Some(orig) => cur.same(orig) && (orig.is_none() || orig.is_uffd_wp_marker()),
            None => cur.is_none(),
        };
        vacant.then_some(Vacant { ptl: self, nr: 1 })
    }

    /// Proof, for the next map call, that the `nr` entries from the guard's position are none.
    #[inline]
    pub fn vacant_range(&mut self, nr: usize) -> Option<Vacant<'_, 'a>> {
        self.range_none(nr).then_some(Vacant { ptl: self, nr })
    }

    /// Tells the MMU that the entry at the guard's position was not changed by us after all
    /// (another thread won the race), as C's `update_mmu_tlb()`.
    #[inline]
    pub fn update_mmu_tlb(&self) {
        // SAFETY: The entry is mapped and locked, in the read-locked `vma`.
        unsafe {
            bindings::mm_rs_update_mmu_tlb_range(self.vma.as_ptr(), self.addr, self.pte.as_ptr(), 1)
        };
    }

    /// As [`Self::update_mmu_tlb`] for `nr` entries (`update_mmu_tlb_range()`).
    #[inline]
    pub fn update_mmu_tlb_range(&self, nr: usize) {
        let nr = nr.min(self.room());
        let Ok(nr) = u32::try_from(nr) else {
            return;
        };
        // SAFETY: The `nr` entries lie in the mapped, locked table of the read-locked `vma`.
        unsafe {
            bindings::mm_rs_update_mmu_tlb_range(
                self.vma.as_ptr(),
                self.addr,
                self.pte.as_ptr(),
                nr,
            )
        };
    }

    /// The fault's MMU cache update for `nr` entries just set (`update_mmu_cache_range()`).
    fn update_mmu_cache_range(&self, vmf: *mut bindings::vm_fault, nr: u32) {
        // SAFETY: The entries lie in the mapped, locked table; `vmf` is the caller's fault.
        unsafe {
            bindings::mm_rs_update_mmu_cache_range(
                vmf,
                self.vma.as_ptr(),
                self.addr,
                self.pte.as_ptr(),
                nr,
            )
        };
    }
}

impl Drop for PteTableLocked<'_> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants the table is mapped and its lock held; this is the one
        // unlock and unmap.
        unsafe { bindings::mm_rs_pte_unmap_unlock(self.pte.as_ptr(), self.ptl.as_ptr()) };
    }
}

/// Entries of a locked PTE table that were checked, under the lock still held, to be free for a
/// new mapping. Borrowing the guard mutably, it keeps anything else from touching the table
/// between the check and the map.
pub struct Vacant<'g, 'a> {
    ptl: &'g mut PteTableLocked<'a>,
    nr: usize,
}

impl Vacant<'_, '_> {
    /// Maps `folio`'s pages at the checked entries with one `set_ptes()`, and updates the MMU
    /// cache for them.
    ///
    /// The entry is `mk_pte()` of the folio's first page with the VMA's protection, passed
    /// through `bits` (which can only change permission and software bits). The folio's
    /// references pass to the entries.
    ///
    /// Returns the folio back if its size is not the number of entries checked.
    #[inline]
    pub fn map_folio(
        self,
        vmf: &VmFault,
        folio: MappingFolio,
        bits: impl FnOnce(Pte) -> Pte,
    ) -> Result<(), MappingFolio> {
        let nr = folio.nr_pages();
        let Ok(nr32) = u32::try_from(nr) else {
            return Err(folio);
        };
        if nr != self.nr {
            return Err(folio);
        }
        let vma = self.ptl.vma;
        // SAFETY: The folio is valid and owned; the VMA is read-locked.
        let entry = Pte(unsafe { bindings::mm_rs_folio_mk_pte(folio.as_ptr(), vma.as_ptr()) });
        // SAFETY: The entries map the `nr` pages of the folio, whose `nr` references they take
        // over from `folio`, forgotten right after.
        unsafe { self.set(vmf, bits(entry), nr32) };
        folio.forget();
        Ok(())
    }

    /// Maps the shared zero page at the checked entry (a read fault), `pte_mkspecial()` with the
    /// VMA's protection, passed through `bits`.
    #[inline]
    pub fn map_zero_page(self, vmf: &VmFault, bits: impl FnOnce(Pte) -> Pte) {
        let vma = self.ptl.vma;
        // SAFETY: Makes the zero page's special entry for this address; the VMA is read-locked.
        let entry = Pte(unsafe { bindings::mm_rs_zero_page_pte(self.ptl.addr, vma.as_ptr()) });
        // SAFETY: The zero page is never freed, so the entry needs no reference.
        unsafe { self.set(vmf, bits(entry), 1) };
    }

    /// Writes `entry` to the `nr` checked entries with one `set_ptes()` (which advances the pfn
    /// for each), then updates the MMU cache for them.
    ///
    /// # Safety
    ///
    /// `entry` must map memory that stays allocated while mapped: pages whose references the
    /// entries own, or the zero page. `nr` must be the number of entries checked.
    unsafe fn set(&self, vmf: &VmFault, entry: Pte, nr: u32) {
        // SAFETY: The entries are in the mapped table whose lock we hold (type invariants of the
        // guard) and were checked free under it; the caller guarantees what they map.
        unsafe {
            bindings::mm_rs_set_ptes(
                self.ptl.mm.as_ptr(),
                self.ptl.addr,
                self.ptl.pte.as_ptr(),
                entry.as_raw(),
                nr,
            )
        };
        self.ptl.update_mmu_cache_range(vmf.as_ptr(), nr);
    }
}
