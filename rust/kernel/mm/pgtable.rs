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
