// SPDX-License-Identifier: GPL-2.0

//! New folios on their way into an anonymous fault.
//!
//! A folio an anonymous fault maps goes through three states, each its own type, each reached
//! only by consuming the one before, so safe code cannot charge a folio twice, zero or flag a
//! folio somebody else can see, or map one that was not charged and zeroed:
//!
//! - [`NewFolio`]: just allocated (`vma_alloc_folio()`); exclusively ours, unmapped, uncharged.
//! - [`ChargedFolio`]: charged to the fault's memory cgroup (`mem_cgroup_charge()`).
//! - [`NewAnonFolio`]: also zeroed (`folio_zero_user()`): what C's `alloc_anon_folio()` returns
//!   and what [`super::pgtable::VacantFolio::install`] maps.
//!
//! Each owns the one reference allocation gave and puts it on drop (`folio_put()`), which also
//! uncharges a charged folio when it frees it.
//!
//! C header: [`include/linux/mm.h`](srctree/include/linux/mm.h)

use super::fault::VmFault;
use crate::{
    bindings,
    error::{Error, Result},
};
use core::ptr::NonNull;

/// GFP flags as the mm code passes them around (`gfp_t`).
pub type Gfp = bindings::gfp_t;

/// The one reference to a new folio that nobody else can reach: the common part of the three
/// states.
///
/// # Invariants
///
/// `folio` is a valid folio of which we hold the only reference; it is not mapped, not on an LRU
/// list and not reachable by anyone else (no rmap, no page cache), and nothing else writes its
/// flags.
struct Unique {
    folio: NonNull<bindings::folio>,
}

impl Unique {
    #[inline]
    fn as_ptr(&self) -> *mut bindings::folio {
        self.folio.as_ptr()
    }

    #[inline]
    fn order(&self) -> u32 {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::mm_rs_folio_order(self.as_ptr()) }
    }

    #[inline]
    fn into_raw(self) -> *mut bindings::folio {
        let folio = self.folio.as_ptr();
        core::mem::forget(self);
        folio
    }
}

impl Drop for Unique {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: By the type invariants we own the only reference, and this puts it.
        unsafe { bindings::mm_rs_folio_put(self.as_ptr()) };
    }
}

/// A folio just allocated for a fault: exclusively owned, unmapped and not charged yet.
///
/// # Invariants
///
/// As `Unique`, and the folio is not charged to a memory cgroup.
pub struct NewFolio(Unique);

// SAFETY: The reference may be put, and the folio charged, from any thread.
unsafe impl Send for NewFolio {}

impl NewFolio {
    /// Allocates a folio of `order` for the fault `vmf` at `addr`, following its VMA's NUMA
    /// policy, as C's `vma_alloc_folio()`. Returns [`None`] if the allocation failed.
    ///
    /// This may sleep if `gfp` allows it: it borrows the fault mutably, which no PTE lock guard
    /// or RCU mapping of the fault can be holding. `__GFP_ACCOUNT` is masked out: user folios
    /// are charged with [`Self::mem_cgroup_charge`], not as kernel memory.
    #[inline]
    pub fn vma_alloc(gfp: Gfp, order: u32, vmf: &mut VmFault<'_>, addr: usize) -> Option<Self> {
        let order = i32::try_from(order).ok()?;
        let gfp = gfp & !bindings::MM_RS_GFP_ACCOUNT;
        // SAFETY: The VMA is valid and locked by the `VmFault` invariants.
        let folio =
            unsafe { bindings::mm_rs_vma_alloc_folio(gfp, order, vmf.vma().as_ptr(), addr) };
        // INVARIANT: A folio fresh from the allocator comes with one reference, which we now
        // own, and nobody else knows of it; without `__GFP_ACCOUNT` it is not charged.
        NonNull::new(folio).map(|folio| Self(Unique { folio }))
    }

    /// The folio's order (`folio_order()`).
    #[inline]
    pub fn order(&self) -> u32 {
        self.0.order()
    }

    /// Charges the folio to the memory cgroup of the mm of the fault `vmf`, as C's
    /// `mem_cgroup_charge()`. On failure the folio is put. May sleep (borrows the fault
    /// mutably).
    #[inline]
    pub fn mem_cgroup_charge(self, vmf: &mut VmFault<'_>, gfp: Gfp) -> Result<ChargedFolio> {
        let mm = vmf.vma().mm();
        // SAFETY: The folio is valid, exclusively ours and not charged (type invariants);
        // consuming `self` makes this the one charge. `mm` is valid (the fault's).
        let ret = unsafe { bindings::mm_rs_mem_cgroup_charge(self.0.as_ptr(), mm.as_raw(), gfp) };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        // INVARIANT: Just charged; still exclusively ours.
        Ok(ChargedFolio(self.0))
    }
}

/// A new folio charged to its memory cgroup, not zeroed yet.
///
/// # Invariants
///
/// As `Unique`, and the folio is charged.
pub struct ChargedFolio(Unique);

// SAFETY: As for `NewFolio`.
unsafe impl Send for ChargedFolio {}

impl ChargedFolio {
    /// Throttles the caller if swap is congested, as C's `folio_throttle_swaprate()`. May sleep
    /// (borrows the fault mutably).
    #[inline]
    pub fn throttle_swaprate(&self, _vmf: &mut VmFault<'_>, gfp: Gfp) {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::mm_rs_folio_throttle_swaprate(self.0.as_ptr(), gfp) };
    }

    /// Zeroes the folio for user space, the subpage at `addr_hint` last so that it is
    /// cache-hot, as C's `folio_zero_user()`. May sleep (borrows the fault mutably).
    #[inline]
    pub fn zero_user(self, _vmf: &mut VmFault<'_>, addr_hint: usize) -> NewAnonFolio {
        // SAFETY: The folio is valid, and nobody else can see it (type invariants), so writing
        // its contents races with nothing.
        unsafe { bindings::folio_zero_user(self.0.as_ptr(), addr_hint) };
        // INVARIANT: Charged and now zeroed, still exclusively ours.
        NewAnonFolio(self.0)
    }
}

/// A new anonymous folio ready to be mapped by a fault: charged and zeroed, exclusively owned,
/// not mapped, not on an LRU list, not up to date yet.
///
/// [`super::pgtable::VacantFolio::install`] consumes it into the page tables.
///
/// # Invariants
///
/// As `Unique`, and the folio is charged to the memory cgroup of the mm it will be mapped in and
/// its contents are zero.
pub struct NewAnonFolio(Unique);

// SAFETY: As for `NewFolio`.
unsafe impl Send for NewAnonFolio {}

impl NewAnonFolio {
    /// Takes over a new anonymous folio from C.
    ///
    /// # Safety
    ///
    /// `folio` must be NULL or a folio as the type invariants describe, as C's
    /// `alloc_anon_folio()` returns it for a fault in the mm it will be mapped in; its one
    /// reference passes to the returned value.
    #[inline]
    pub unsafe fn from_raw(folio: *mut bindings::folio) -> Option<Self> {
        // INVARIANT: Guaranteed by the caller.
        NonNull::new(folio).map(|folio| Self(Unique { folio }))
    }

    /// Gives the folio and its reference back to C.
    #[inline]
    pub fn into_raw(self) -> *mut bindings::folio {
        self.0.into_raw()
    }

    /// The folio's order (`folio_order()`).
    #[inline]
    pub fn order(&self) -> u32 {
        self.0.order()
    }

    #[inline]
    pub(super) fn as_ptr(&self) -> *mut bindings::folio {
        self.0.as_ptr()
    }

    /// Marks the contents up to date (`__folio_mark_uptodate()`); its write barrier orders the
    /// zeroing before the stores that will map the folio.
    #[inline]
    pub(super) fn mark_uptodate(&mut self) {
        // SAFETY: The folio is valid and nobody else can see it (type invariants), so the
        // non-atomic flag update races with nothing.
        unsafe { bindings::mm_rs_folio_mark_uptodate(self.as_ptr()) };
    }

    /// Gives up the value once the page table entries own the folio and its references.
    #[inline]
    pub(super) fn forget(self) {
        core::mem::forget(self);
    }
}

/// The largest folio order the page cache uses (`MAX_PAGECACHE_ORDER`).
#[inline]
pub fn max_pagecache_order() -> u32 {
    // SAFETY: Returns a constant.
    unsafe { bindings::mm_rs_max_pagecache_order() }
}
