// SPDX-License-Identifier: GPL-2.0

//! Folios.
//!
//! [`Folio`] owns one reference to a folio that a fault is about to map; dropping it puts that
//! reference (`folio_put()`).
//!
//! C header: [`include/linux/mm.h`](srctree/include/linux/mm.h)

use super::virt::{MmRef, VmaRef};
use crate::{bindings, error::to_result, error::Result};
use core::ptr::NonNull;

/// GFP flags as the mm code passes them around (`gfp_t`).
pub type Gfp = bindings::gfp_t;

/// An owned reference to a folio.
///
/// # Invariants
///
/// `folio` is valid and the owner holds one reference to it.
pub struct Folio {
    folio: NonNull<bindings::folio>,
}

// SAFETY: A folio reference may be put from any thread.
unsafe impl Send for Folio {}

impl Folio {
    /// Allocates a folio of `order` for a fault at `addr` in `vma`, following the VMA's NUMA
    /// policy, as C's `vma_alloc_folio()`. Returns [`None`] if the allocation failed.
    ///
    /// This may sleep if `gfp` allows it.
    #[inline]
    pub fn vma_alloc(gfp: Gfp, order: u32, vma: &VmaRef, addr: usize) -> Option<Self> {
        let order = i32::try_from(order).ok()?;
        // SAFETY: `vma` is valid and locked by the `VmaRef` invariants.
        let folio = unsafe { bindings::mm_rs_vma_alloc_folio(gfp, order, vma.as_ptr(), addr) };
        // INVARIANT: A non-NULL folio comes with one reference, which we now own.
        NonNull::new(folio).map(|folio| Self { folio })
    }

    /// Takes over a folio reference from C.
    ///
    /// # Safety
    ///
    /// `folio` must be NULL or a valid folio the caller holds a reference to, which passes to
    /// the returned value.
    #[inline]
    pub unsafe fn from_raw(folio: *mut bindings::folio) -> Option<Self> {
        // INVARIANT: Guaranteed by the caller.
        NonNull::new(folio).map(|folio| Self { folio })
    }

    /// Returns a raw pointer to the folio.
    #[inline]
    pub fn as_ptr(&self) -> *mut bindings::folio {
        self.folio.as_ptr()
    }

    /// Charges the folio to `mm`'s memory cgroup, as C's `mem_cgroup_charge()`.
    #[inline]
    pub fn mem_cgroup_charge(&self, mm: &MmRef, gfp: Gfp) -> Result {
        // SAFETY: The folio is valid and not yet charged or mapped (we own it since allocation);
        // `mm` is valid by the `MmRef` invariants.
        to_result(unsafe { bindings::mm_rs_mem_cgroup_charge(self.as_ptr(), mm.as_ptr(), gfp) })
    }

    /// Throttles the caller if swap is congested, as C's `folio_throttle_swaprate()`.
    #[inline]
    pub fn throttle_swaprate(&self, gfp: Gfp) {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::mm_rs_folio_throttle_swaprate(self.as_ptr(), gfp) };
    }

    /// Zeroes the folio for user space, the subpage at `addr_hint` last so it is cache-hot, as
    /// C's `folio_zero_user()`.
    #[inline]
    pub fn zero_user(&self, addr_hint: usize) {
        // SAFETY: The folio is valid and, being freshly allocated, not mapped anywhere yet.
        unsafe { bindings::folio_zero_user(self.as_ptr(), addr_hint) };
    }

    /// Gives up ownership of the reference, returning the raw folio pointer.
    #[inline]
    pub fn into_raw(self) -> *mut bindings::folio {
        let folio = self.folio.as_ptr();
        core::mem::forget(self);
        folio
    }
}

impl Drop for Folio {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants we own one reference, and this puts it.
        unsafe { bindings::mm_rs_folio_put(self.as_ptr()) };
    }
}

impl Folio {
    /// The folio's order (`folio_order()`).
    #[inline]
    pub fn order(&self) -> u32 {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::mm_rs_folio_order(self.as_ptr()) }
    }

    /// The number of pages in the folio (`folio_nr_pages()`).
    #[inline]
    pub fn nr_pages(&self) -> usize {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::mm_rs_folio_nr_pages(self.as_ptr()) }
    }

    /// Marks the folio's contents up to date (`__folio_mark_uptodate()`).
    ///
    /// Its write barrier orders the zeroing of the folio before the stores that map it.
    #[inline]
    pub fn mark_uptodate(&self) {
        // SAFETY: The folio is valid and, not yet mapped, ours alone to flag non-atomically.
        unsafe { bindings::mm_rs_folio_mark_uptodate(self.as_ptr()) };
    }

    /// Takes the references the folio's page table entries will own, one for each page
    /// (`folio_ref_add(folio, nr - 1)` on top of ours).
    #[inline]
    pub fn into_mapping(self) -> MappingFolio {
        let nr = self.nr_pages();
        if let Some(extra) = nr.checked_sub(1).and_then(|n| i32::try_from(n).ok()) {
            if extra > 0 {
                // SAFETY: We hold a reference, so the folio is live.
                unsafe { bindings::mm_rs_folio_ref_add(self.as_ptr(), extra) };
            }
        }
        let folio = self.folio;
        core::mem::forget(self);
        // INVARIANT: We held one reference and added `nr - 1`.
        MappingFolio { folio, nr }
    }
}

/// A new anonymous folio on its way into the page tables of a fault.
///
/// It holds one reference for each of its pages, which the entries that map them take over
/// ([`super::pgtable::Vacant::map_folio`]); dropped unmapped, it puts them all.
///
/// # Invariants
///
/// `folio` is valid, not yet mapped, and the owner holds `nr` references to it, `nr` being its
/// number of pages.
pub struct MappingFolio {
    folio: NonNull<bindings::folio>,
    nr: usize,
}

impl MappingFolio {
    /// Returns a raw pointer to the folio.
    #[inline]
    pub fn as_ptr(&self) -> *mut bindings::folio {
        self.folio.as_ptr()
    }

    /// The number of pages in the folio.
    #[inline]
    pub fn nr_pages(&self) -> usize {
        self.nr
    }

    /// Adds the folio to the anonymous rmap of `vma` at `addr`, exclusively
    /// (`folio_add_new_anon_rmap(..., RMAP_EXCLUSIVE)`), which also sets its map count.
    ///
    /// The caller holds the PTE lock of the entries about to map it.
    #[inline]
    pub fn add_new_anon_rmap(self, vma: &VmaRef, addr: usize) -> Self {
        // SAFETY: The folio is new and not mapped (type invariants), `vma` is read-locked and has
        // an anon_vma (the fault prepared it), and consuming `self` keeps this to once per folio.
        unsafe {
            bindings::folio_add_new_anon_rmap(
                self.as_ptr(),
                vma.as_ptr(),
                addr,
                bindings::MM_RS_RMAP_EXCLUSIVE,
            )
        };
        self
    }

    /// Puts the folio on the LRU list `vma` calls for (`folio_add_lru_vma()`).
    #[inline]
    pub fn add_lru_vma(&self, vma: &VmaRef) {
        // SAFETY: The folio is valid and not on an LRU list yet; `vma` is read-locked.
        unsafe { bindings::folio_add_lru_vma(self.as_ptr(), vma.as_ptr()) };
    }

    /// Forgets the folio once page table entries own its references.
    #[inline]
    pub(crate) fn forget(self) {
        core::mem::forget(self);
    }
}

impl Drop for MappingFolio {
    #[inline]
    fn drop(&mut self) {
        let nr = i32::try_from(self.nr).unwrap_or(i32::MAX);
        // SAFETY: By the type invariants we own `nr` references, and this puts them.
        unsafe { bindings::mm_rs_folio_put_refs(self.as_ptr(), nr) };
    }
}

/// The largest folio order the page cache uses (`MAX_PAGECACHE_ORDER`).
#[inline]
pub fn max_pagecache_order() -> u32 {
    // SAFETY: Returns a constant.
    unsafe { bindings::mm_rs_max_pagecache_order() }
}
