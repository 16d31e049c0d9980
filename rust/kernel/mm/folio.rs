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
