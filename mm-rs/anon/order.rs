// SPDX-License-Identifier: GPL-2.0

//! Which folio orders an anonymous fault may try.
//!
//! This is everything `alloc_anon_folio()` decides before it allocates: the orders the mTHP knobs
//! allow for the VMA (`thp_vma_allowable_orders()` with `TVA_IN_PF | TVA_ENFORCE_SYSFS`), the
//! ones whose naturally aligned block around the fault lies inside the VMA
//! (`thp_vma_suitable_orders()`), and, going down from the highest, the first whose block has no
//! populated PTE (the lockless `pte_range_none()` pre-check).

use kernel::bindings;
use kernel::ffi::c_ulong;
use kernel::mm::{
    fault::anon_suitable_orders,
    order::{align_down, folio_size, OrderSet},
    pgtable::{pte_index, PteTableRef},
    thp::{AnonThpKnobs, PMD_ORDER, THP_ORDERS_ALL_ANON},
    virt::{flags, VmaRef},
};
use kernel::page::PAGE_SHIFT;

/// The orders of `orders` that the knobs allow for an anonymous fault in `vma`, as C's
/// `thp_vma_allowable_orders(vma, vma->vm_flags, TVA_IN_PF | TVA_ENFORCE_SYSFS, orders)`.
///
/// `vma` must be anonymous (do_anonymous_page() only runs for anonymous VMAs); any other VMA gets
/// no large order.
#[inline(always)]
pub(crate) fn thp_vma_allowable_orders(
    vma: &VmaRef,
    knobs: &AnonThpKnobs,
    orders: OrderSet,
) -> OrderSet {
    if !vma.is_anonymous() {
        return OrderSet::EMPTY;
    }
    let vm_flags = vma.flags();
    let hugepage = vm_flags & flags::HUGEPAGE != 0;

    // The per-size knobs: `always` orders, `madvise` ones under MADV_HUGEPAGE, and the
    // `inherit` ones wherever the global mode would allow a PMD THP.
    let mut mask = knobs.always;
    if hugepage {
        mask = mask.or(knobs.madvise);
    }
    if knobs.global_always || (hugepage && knobs.global_enabled) {
        mask = mask.or(knobs.inherit);
    }
    let orders = orders.and(mask).and(THP_ORDERS_ALL_ANON);
    if orders.is_empty() {
        return OrderSet::EMPTY;
    }

    // __thp_vma_allowable_orders() for an anonymous VMA in a page fault. Its `!vma->vm_mm`
    // (vdso) case cannot arise: a fault's VMA belongs to a user mm (`VmaRef` invariants).
    if knobs.disabled_by_hw || vm_flags & flags::NOHUGEPAGE != 0 || vma.mm().thp_disabled() {
        return OrderSet::EMPTY;
    }
    if vma.is_dax() {
        return orders;
    }
    if vma.is_temporary_stack() {
        return OrderSet::EMPTY;
    }
    // Without an anon_vma yet a fault is still allowed: the fault sets one up.
    orders
}

/// Whether the naturally aligned block of `order` around `addr` lies inside the file VMA `vma`
/// and is aligned in the file, as C's `thp_vma_suitable_order()` for a file VMA.
#[inline]
fn file_vma_suitable_order(vma: &VmaRef, addr: usize, order: u32) -> bool {
    let Some(size) = folio_size(order) else {
        return false;
    };
    let nr = size >> PAGE_SHIFT;
    let first = (vma.start() >> PAGE_SHIFT).wrapping_sub(vma.pgoff());
    if first & (nr - 1) != 0 {
        return false;
    }
    !anon_suitable_orders(vma, addr, OrderSet::single(order)).is_empty()
}

/// `orders` from the highest order whose block fits in `vma` around `addr` down, as C's
/// `thp_vma_suitable_orders()`. For an anonymous VMA, the fault path's own check
/// ([`anon_suitable_orders`], which `VmFault::suitable_orders` makes).
#[inline]
pub(crate) fn thp_vma_suitable_orders(vma: &VmaRef, addr: usize, orders: OrderSet) -> OrderSet {
    if vma.is_anonymous() {
        return anon_suitable_orders(vma, addr, orders);
    }
    for order in orders.iter_desc() {
        if file_vma_suitable_order(vma, addr, order) {
            return orders.at_or_below(order);
        }
    }
    OrderSet::EMPTY
}

/// The large orders the mTHP knobs let an anonymous fault in `vma` try, wherever it falls:
/// C's `anon_folio_orders()` before its `thp_vma_suitable_orders()`, which the fault path makes
/// with `VmFault::suitable_orders`.
///
/// A VMA with userfaultfd armed gets none: userfaultfd needs a fault per page.
#[inline(always)]
pub(crate) fn anon_folio_allowable_orders(vma: &VmaRef, knobs: &AnonThpKnobs) -> OrderSet {
    if vma.flags() & flags::UFFD_ANY != 0 {
        return OrderSet::EMPTY;
    }
    let below_pmd = OrderSet::range(0, PMD_ORDER.saturating_sub(1));
    thp_vma_allowable_orders(vma, knobs, below_pmd)
}

/// The large orders an anonymous fault at `addr` may try before it looks at the page table, as
/// C's `anon_folio_orders()`: [`anon_folio_allowable_orders`] whose blocks fit the VMA.
#[inline(always)]
pub(crate) fn anon_folio_orders(vma: &VmaRef, knobs: &AnonThpKnobs, addr: usize) -> OrderSet {
    thp_vma_suitable_orders(vma, addr, anon_folio_allowable_orders(vma, knobs))
}

/// `orders` from the highest order whose aligned block around `addr` has only none PTEs down.
///
/// Every order below that one then has only none PTEs too, since its block lies inside. The
/// read is lockless, so the answer is a hint that the fault rechecks under the PTE lock.
#[inline]
pub(crate) fn anon_folio_pte_none_orders(
    table: &PteTableRef<'_>,
    addr: usize,
    orders: OrderSet,
) -> OrderSet {
    for order in orders.iter_desc() {
        let (Some(start), Some(size)) = (align_down(addr, order), folio_size(order)) else {
            continue;
        };
        if table.range_none(pte_index(start), size >> PAGE_SHIFT) {
            return orders.at_or_below(order);
        }
    }
    OrderSet::EMPTY
}

/// C entry for [`thp_vma_suitable_orders`].
///
/// # Safety
///
/// `vma` must be valid, and the caller must hold its mmap or VMA read lock.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_thp_vma_suitable_orders(
    vma: *mut bindings::vm_area_struct,
    addr: c_ulong,
    orders: c_ulong,
) -> c_ulong {
    // SAFETY: Guaranteed by the caller.
    let vma = unsafe { VmaRef::from_raw(vma) };
    thp_vma_suitable_orders(vma, addr, OrderSet::from_bits(orders)).bits()
}

/// C entry for [`anon_folio_orders`], with the knobs as they are now.
///
/// # Safety
///
/// `vma` must be a valid anonymous VMA, and the caller must hold its mmap or VMA read lock.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_folio_orders(
    vma: *mut bindings::vm_area_struct,
    addr: c_ulong,
) -> c_ulong {
    // SAFETY: Guaranteed by the caller.
    let vma = unsafe { VmaRef::from_raw(vma) };
    anon_folio_orders(vma, &AnonThpKnobs::read(), addr).bits()
}

/// C entry for [`anon_folio_pte_none_orders`].
///
/// # Safety
///
/// `pte` must point to the first entry of a mapped PTE table (or of an array of `PTRS_PER_PTE`
/// entries) that stays mapped for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_folio_pte_none_orders(
    pte: *mut bindings::pte_t,
    addr: c_ulong,
    orders: c_ulong,
) -> c_ulong {
    let Some(pte) = core::ptr::NonNull::new(pte) else {
        return 0;
    };
    // SAFETY: Guaranteed by the caller.
    let table = unsafe { PteTableRef::from_raw(pte) };
    anon_folio_pte_none_orders(&table, addr, OrderSet::from_bits(orders)).bits()
}

export_check!(
    mm_rs_thp_vma_suitable_orders,
    mm_rs_anon_folio_orders,
    mm_rs_anon_folio_pte_none_orders,
);
