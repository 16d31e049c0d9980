// SPDX-License-Identifier: GPL-2.0

//! New folios on their way into an anonymous fault.
//!
//! A folio an anonymous fault maps goes through three states, each its own type, each reached
//! only by consuming the one before, so safe code cannot charge a folio twice, zero or flag a
//! folio somebody else can see, or map one that was not charged and zeroed:
//!
//! - [`NewFolio`]: just allocated (`vma_alloc_folio()`); exclusively ours, unmapped, uncharged.
//! - [`ChargedFolio`]: charged to the memory cgroup of the fault's mm (`mem_cgroup_charge()`).
//! - [`NewAnonFolio`]: also zeroed (`folio_zero_user()`): what C's `alloc_anon_folio()` returns
//!   and what [`super::pgtable::VacantFolio::install`] maps.
//!
//! Each carries the lifetime of the fault it was allocated for (see [`super::fault`]), so it is
//! charged to that fault's mm, zeroed for that fault's address and mapped by that fault only, and
//! cannot outlive the fault. Each owns the reference allocation gave and puts it on drop
//! (`folio_put()`), which also uncharges a charged folio when it frees it.
//!
//! C header: [`include/linux/mm.h`](srctree/include/linux/mm.h)

#[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
use super::fault::FaultOrders;
use super::fault::{FaultBrand, VmFault};
use crate::{
    bindings,
    error::{Error, Result},
};
use core::{marker::PhantomData, ptr::NonNull};

/// GFP flags as the mm code passes them around (`gfp_t`).
pub type Gfp = bindings::gfp_t;

/// The reference to a new folio that nobody else can use: the common part of the three states.
///
/// # Invariants
///
/// `folio` is a valid folio of an order an anonymous fault maps with PTEs, and we own the
/// reference the allocator gave. Nobody else knows of it as a folio to use: it is not mapped, not
/// in the page cache or an rmap, not on an LRU list, and nobody else changes its non-atomic
/// flags. (PFN walkers such as compaction or memory-failure may still take a speculative
/// reference for a moment, find it unusable and put it, or set an atomic flag: C's
/// `do_anonymous_page()` works with a new folio under the same terms.)
struct Unique {
    folio: NonNull<bindings::folio>,
}

impl Unique {
    #[inline]
    fn as_ptr(&self) -> *mut bindings::folio {
        self.folio.as_ptr()
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
        // SAFETY: By the type invariants we own a reference, and this puts it.
        unsafe { bindings::mm_rs_folio_put(self.as_ptr()) };
    }
}

/// A folio just allocated for the fault `'a`: exclusively owned, unmapped and not charged yet.
///
/// # Invariants
///
/// As `Unique`, of order `order`, which is one an anonymous fault maps with PTEs (0, or an mTHP
/// order below `PMD_ORDER`) and whose naturally aligned block around the fault address lies
/// inside the fault's VMA; the folio is not charged to a memory cgroup.
pub struct NewFolio<'a> {
    folio: Unique,
    order: u32,
    _fault: FaultBrand<'a>,
}

impl<'a> NewFolio<'a> {
    /// Allocates a folio of `order` for the fault `vmf`, at the naturally aligned block of that
    /// order around the fault address, following its VMA's NUMA policy, as C's
    /// `vma_alloc_folio()`. Returns [`None`] if the allocation failed, if `order` is not one an
    /// anonymous fault maps with PTEs (0, or an mTHP order below `PMD_ORDER`), or if its block
    /// does not lie inside the VMA.
    ///
    /// This may sleep if `gfp` allows it: it borrows the fault mutably, which no PTE lock guard
    /// or RCU mapping of the fault can be holding. `__GFP_ACCOUNT` is masked out: user folios
    /// are charged with [`Self::mem_cgroup_charge`], not as kernel memory.
    #[inline]
    pub fn vma_alloc(gfp: Gfp, order: u32, vmf: &mut VmFault<'a>) -> Option<Self> {
        let (addr, _) = vmf.block(order)?;
        // SAFETY: `block()` just checked `order` and its block `addr`.
        unsafe { Self::vma_alloc_block(gfp, order, addr, vmf) }
    }

    /// Allocates a folio of `order` at `addr` for the fault `vmf`; both allocators end here.
    ///
    /// # Safety
    ///
    /// `order` must be one an anonymous fault maps with PTEs (0, or an mTHP order below
    /// `PMD_ORDER`), and `addr` the first address of its naturally aligned block around the
    /// fault address, which lies inside the fault's VMA.
    #[inline(always)]
    unsafe fn vma_alloc_block(
        gfp: Gfp,
        order: u32,
        addr: usize,
        vmf: &mut VmFault<'a>,
    ) -> Option<Self> {
        let gfp = gfp & !bindings::MM_RS_GFP_ACCOUNT;
        // `order < PMD_ORDER` (the caller's guarantee), so it fits in a C int.
        let c_order = order as i32;
        // SAFETY: The VMA is valid and locked by the `VmFault` invariants.
        let folio =
            unsafe { bindings::mm_rs_vma_alloc_folio(gfp, c_order, vmf.vma().as_ptr(), addr) };
        // INVARIANT: A folio fresh from the allocator comes with one reference, which we now
        // own, and nobody else knows of it; without `__GFP_ACCOUNT` it is not charged; its order
        // is the one asked for, and the caller guarantees the order and its block.
        NonNull::new(folio).map(|folio| Self {
            folio: Unique { folio },
            order,
            _fault: PhantomData,
        })
    }

    /// Allocates a folio of `order`, one of `orders`, for the fault `vmf`, as
    /// [`Self::vma_alloc`], but with nothing to check: `orders` were checked against the fault
    /// when the set was made. Returns [`None`] if the allocation failed or `order` is not in
    /// `orders`.
    ///
    /// This may sleep if `gfp` allows it, as [`Self::vma_alloc`].
    #[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
    #[inline]
    pub fn vma_alloc_order(
        gfp: Gfp,
        orders: FaultOrders<'a>,
        order: u32,
        vmf: &mut VmFault<'a>,
    ) -> Option<Self> {
        if !orders.contains(order) {
            return None;
        }
        // `order < PMD_ORDER` (`FaultOrders` invariants), so neither shift overflows.
        let (addr, _) = super::fault::aligned_block(vmf.address(), order);
        // SAFETY: `order` is in `orders`, which were checked against this fault (the lifetime
        // `'a` says so): an anonymous PTE order whose block, at `addr`, lies inside the VMA.
        unsafe { Self::vma_alloc_block(gfp, order, addr, vmf) }
    }

    /// The folio's order (`folio_order()`).
    #[inline]
    pub fn order(&self) -> u32 {
        self.order
    }

    /// Charges the folio to the memory cgroup of the mm of its fault `vmf`, as C's
    /// `mem_cgroup_charge()`. On failure the folio is put. May sleep (borrows the fault
    /// mutably).
    #[inline]
    pub fn mem_cgroup_charge(self, vmf: &mut VmFault<'a>, gfp: Gfp) -> Result<ChargedFolio<'a>> {
        let mm = vmf.vma().mm();
        // SAFETY: The folio is valid, exclusively ours and not charged (type invariants);
        // consuming `self` makes this the one charge. `mm` is valid (the fault's).
        let ret =
            unsafe { bindings::mm_rs_mem_cgroup_charge(self.folio.as_ptr(), mm.as_raw(), gfp) };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        // INVARIANT: Just charged to the fault's mm; still exclusively ours.
        Ok(ChargedFolio {
            folio: self.folio,
            order: self.order,
            _fault: PhantomData,
        })
    }
}

/// A new folio charged to the memory cgroup of the mm of the fault `'a`, not zeroed yet.
///
/// # Invariants
///
/// As `Unique`, of order `order` as `NewFolio` describes, charged to the memory cgroup of the mm
/// of the fault `'a`.
pub struct ChargedFolio<'a> {
    folio: Unique,
    order: u32,
    _fault: FaultBrand<'a>,
}

impl<'a> ChargedFolio<'a> {
    /// Throttles the caller if swap is congested, as C's `folio_throttle_swaprate()`. May sleep
    /// (borrows the fault mutably).
    #[inline]
    pub fn throttle_swaprate(&self, _vmf: &mut VmFault<'a>, gfp: Gfp) {
        // SAFETY: The folio is valid by the type invariants.
        unsafe { bindings::mm_rs_folio_throttle_swaprate(self.folio.as_ptr(), gfp) };
    }

    /// Zeroes the folio for user space, the subpage of the fault address last so that it is
    /// cache-hot, as C's `folio_zero_user(folio, vmf->address)`. May sleep (borrows the fault
    /// mutably).
    #[inline]
    pub fn zero_user(self, vmf: &mut VmFault<'a>) -> NewAnonFolio<'a> {
        // SAFETY: The folio is valid, and nobody else uses its contents (type invariants), so
        // writing them races with nothing; the hint is the fault's address.
        unsafe { bindings::folio_zero_user(self.folio.as_ptr(), vmf.address()) };
        // INVARIANT: Charged to the fault's mm and now zeroed, still exclusively ours.
        NewAnonFolio {
            folio: self.folio,
            order: self.order,
            _fault: PhantomData,
        }
    }
}

/// A new anonymous folio ready to be mapped by the fault `'a`: charged to the memory cgroup of
/// its mm and zeroed, exclusively owned, not mapped, not on an LRU list, not up to date yet.
///
/// [`super::pgtable::VacantFolio::install`] consumes it into the page tables.
///
/// # Invariants
///
/// As `Unique`, of order `order` as `NewFolio` describes (an anonymous PTE order, whose
/// naturally aligned block around the fault address lies inside the fault's VMA), charged to the
/// memory cgroup of the mm of the fault `'a`, and its contents are zero.
pub struct NewAnonFolio<'a> {
    folio: Unique,
    order: u32,
    _fault: FaultBrand<'a>,
}

impl<'a> NewAnonFolio<'a> {
    /// Allocates an order-0 folio for the fault `vmf`, zeroed, and charges it to the memory
    /// cgroup of the fault's mm, as C's `folio_prealloc(vma->vm_mm, vma, vmf->address, true)`:
    /// `vma_alloc_zeroed_movable_folio()`, `mem_cgroup_charge(GFP_KERNEL)` (the folio put if it
    /// fails), `folio_throttle_swaprate()`. Returns [`None`] if either failed. May sleep
    /// (borrows the fault mutably).
    #[inline]
    pub fn prealloc(vmf: &mut VmFault<'a>) -> Option<Self> {
        let vma = vmf.vma();
        // SAFETY: The VMA is valid and read-locked by the `VmFault` invariants.
        let folio =
            unsafe { bindings::mm_rs_vma_alloc_zeroed_movable_folio(vma.as_ptr(), vmf.address()) };
        // INVARIANT: A folio fresh from the allocator comes with one reference, which we now
        // own, and nobody else knows of it; it is of order 0.
        let folio = Unique {
            folio: NonNull::new(folio)?,
        };
        let gfp = bindings::GFP_KERNEL;
        // SAFETY: The folio is valid, exclusively ours and not charged yet; the mm is the
        // fault's.
        if unsafe { bindings::mm_rs_mem_cgroup_charge(folio.as_ptr(), vma.mm().as_raw(), gfp) } != 0
        {
            // Dropping `folio` puts it.
            return None;
        }
        // SAFETY: The folio is valid.
        unsafe { bindings::mm_rs_folio_throttle_swaprate(folio.as_ptr(), gfp) };
        // INVARIANT: Order 0, zeroed at allocation, charged to the fault's mm; still ours alone.
        Some(Self {
            folio,
            order: 0,
            _fault: PhantomData,
        })
    }

    /// Takes over a new anonymous folio that C allocated for the fault `vmf`.
    ///
    /// Returns [`None`] (with the reference put) for a folio of an order an anonymous fault does
    /// not map with PTEs, or whose block around the fault address does not lie inside the VMA.
    ///
    /// # Safety
    ///
    /// `folio` must be a folio as `Unique` describes, charged to the memory cgroup of the mm of
    /// `vmf` and zeroed, as C's `alloc_anon_folio()` returns it for that fault; the reference the
    /// caller holds passes to the returned value.
    #[inline]
    pub unsafe fn from_raw(vmf: &VmFault<'a>, folio: NonNull<bindings::folio>) -> Option<Self> {
        let folio = Unique { folio };
        // SAFETY: The folio is valid (the caller's guarantee).
        let order = unsafe { bindings::mm_rs_folio_order(folio.as_ptr()) };
        // On `None`, dropping `folio` puts the reference.
        vmf.block(order)?;
        // INVARIANT: Guaranteed by the caller; the order and its block were just checked.
        Some(Self {
            folio,
            order,
            _fault: PhantomData,
        })
    }

    /// Gives the folio and its reference back to C.
    #[inline]
    pub fn into_raw(self) -> *mut bindings::folio {
        self.folio.into_raw()
    }

    /// The folio's order (`folio_order()`).
    #[inline]
    pub fn order(&self) -> u32 {
        self.order
    }

    #[inline]
    pub(super) fn as_ptr(&self) -> *mut bindings::folio {
        self.folio.as_ptr()
    }

    /// Marks the contents up to date (`__folio_mark_uptodate()`); its write barrier orders the
    /// zeroing before the stores that will map the folio.
    #[inline]
    pub(super) fn mark_uptodate(&mut self) {
        // SAFETY: The folio is valid and nobody else changes its non-atomic flags (type
        // invariants), so the non-atomic flag update loses nobody's update.
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

/// A folio that somebody holds a reference to, borrowed for no longer than they hold it: what
/// the deferred-split shrinker hands to mm-rs when it asks whether an mTHP is underused.
///
/// Nothing else is known of it: it may be mapped and written by user space, locked, or on its
/// way to swap, so it only offers what C reads of a folio in that state (flags and counts read
/// once, and page contents through a temporary kernel mapping, whose value may be stale as soon
/// as it is read, as for C).
///
/// # Invariants
///
/// The `struct folio` stays allocated as a folio for the lifetime of every `&Folio`: whoever
/// made the reference holds a folio reference for that long.
#[repr(transparent)]
pub struct Folio(crate::types::Opaque<bindings::folio>);

impl Folio {
    /// Borrows the folio at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` must point to a folio the caller holds a reference to for all of `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::folio) -> &'a Self {
        // SAFETY: `Folio` is a transparent wrapper of `struct folio`, which the caller keeps
        // allocated for `'a`; `Opaque` allows C to change it meanwhile.
        unsafe { &*ptr.cast::<Self>() }
    }

    #[inline]
    fn as_ptr(&self) -> *mut bindings::folio {
        self.0.get()
    }

    /// The folio's order (`folio_order()`).
    #[inline]
    pub fn order(&self) -> u32 {
        // SAFETY: The folio is allocated (type invariants); this reads its flags.
        unsafe { bindings::mm_rs_folio_order(self.as_ptr()) }
    }

    /// Whether it has more than one page (`folio_test_large()`).
    #[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
    #[inline]
    pub fn test_large(&self) -> bool {
        // SAFETY: As for `order()`.
        unsafe { bindings::mm_rs_folio_test_large(self.as_ptr()) }
    }

    /// Whether it is a KSM folio, shared by the merged pages of the stable tree
    /// (`folio_test_ksm()`).
    #[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
    #[inline]
    pub fn test_ksm(&self) -> bool {
        // SAFETY: As for `order()`; this reads its `mapping`.
        unsafe { bindings::mm_rs_folio_test_ksm(self.as_ptr()) }
    }

    /// Whether it is an anonymous folio (`folio_test_anon()`).
    #[inline]
    pub fn test_anon(&self) -> bool {
        // SAFETY: As for `order()`.
        unsafe { bindings::mm_rs_folio_test_anon(self.as_ptr()) }
    }

    /// Whether it is under writeback (`folio_test_writeback()`), on its way to swap.
    #[inline]
    pub fn test_writeback(&self) -> bool {
        // SAFETY: As for `order()`.
        unsafe { bindings::mm_rs_folio_test_writeback(self.as_ptr()) }
    }

    /// Whether it is mlocked (`folio_test_mlocked()`): a split would not map its zero-filled
    /// pages to the zero page (`try_to_map_unused_to_zeropage()`).
    #[inline]
    pub fn test_mlocked(&self) -> bool {
        // SAFETY: As for `order()`.
        unsafe { bindings::mm_rs_folio_test_mlocked(self.as_ptr()) }
    }

    /// Whether it may be pinned for DMA (`folio_maybe_dma_pinned()`).
    #[inline]
    pub fn maybe_dma_pinned(&self) -> bool {
        // SAFETY: As for `order()`; this reads its pin count.
        unsafe { bindings::mm_rs_folio_maybe_dma_pinned(self.as_ptr()) }
    }

    /// Whether it is likely mapped by more than one process (`folio_likely_mapped_shared()`).
    #[inline]
    pub fn likely_mapped_shared(&self) -> bool {
        // SAFETY: As for `order()`; this reads its mapcounts.
        unsafe { bindings::mm_rs_folio_likely_mapped_shared(self.as_ptr()) }
    }

    /// Whether one of its pages is poisoned (`folio_contain_hwpoisoned_page()`).
    #[inline]
    pub fn contain_hwpoisoned_page(&self) -> bool {
        // SAFETY: As for `order()`.
        unsafe { bindings::mm_rs_folio_contain_hwpoisoned_page(self.as_ptr()) }
    }

    /// Whether page `i` of the folio holds only zeros, as `pages_identical()` with the zero page
    /// decides; `false` for an `i` past the folio's end.
    pub fn page_zero_filled(&self, i: usize) -> bool {
        let Some(nr) = 1usize.checked_shl(self.order()) else {
            return false;
        };
        if i >= nr {
            return false;
        }
        // SAFETY: The folio is allocated (type invariants) and `i` is one of its pages; the
        // helper compares the page with the zero page in C (`pages_identical()`), so a
        // concurrent write by user space is C's race, as in `thp_underused()`.
        unsafe { bindings::mm_rs_folio_page_zero_filled(self.as_ptr(), i) }
    }
}
