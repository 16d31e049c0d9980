// SPDX-License-Identifier: GPL-2.0

//! Allocating the folio for an anonymous fault (`alloc_anon_folio()` for large orders).
//!
//! The orders the mTHP knobs allow come from [`super::order`]; the ones whose block fits the VMA
//! and has no populated entry are tried, and [`alloc_walk`] walks them from the highest down,
//! allocating and charging, and counts the mTHP statistics exactly where C does:
//! `anon_fault_fallback_charge` when the memcg charge of an order fails, and
//! `anon_fault_fallback` for every order given up, whether its allocation or its charge failed.
//! Order 0 stays with C's `folio_prealloc()`.
//!
//! With `anon_order_policy` other than `mthp`, [`super::policy`] chooses the orders instead.
//!
//! The walk is generic over where folios come from, so that the KUnit suite can drive it with
//! scripted allocation and charge failures ([`mm_rs_anon_alloc_walk_test`]); the fault path
//! instantiates it with the page allocator and the memcg.

use super::order::{anon_folio_allowable_orders, anon_folio_pte_none_orders};
use core::ptr::NonNull;
use kernel::bindings;
use kernel::error::code::EAGAIN;
use kernel::mm::{
    fault::{FaultOrders, VmFault},
    folio::{ChargedFolio, Gfp, NewAnonFolio, NewFolio},
    order::OrderSet,
    thp::{count_mthp_stat, vma_thp_gfp_mask, AnonThpKnobs, MthpStat},
};

/// Where the fallback walk gets its folios from.
pub(crate) trait FolioSource {
    /// A folio of some order, just allocated.
    type Folio;
    /// A folio charged to its memory cgroup.
    type Charged;
    /// A folio ready for mapping.
    type Ready;

    /// Allocates a folio of `order`, or [`None`].
    fn alloc(&mut self, order: u32) -> Option<Self::Folio>;

    /// Charges `folio` to its memory cgroup; [`None`] (the folio released) if the charge failed.
    fn charge(&mut self, folio: Self::Folio) -> Option<Self::Charged>;

    /// Readies a charged folio for mapping.
    fn prepare(&mut self, folio: Self::Charged) -> Self::Ready;
}

/// Tries `orders` from the highest down until a folio is allocated and charged, counting each
/// order given up through `count`, as C's `alloc_anon_folio()` loop.
#[inline(always)]
pub(crate) fn alloc_walk<S: FolioSource>(
    src: &mut S,
    orders: OrderSet,
    mut count: impl FnMut(u32, MthpStat),
) -> Option<S::Ready> {
    for order in orders.iter_desc() {
        if let Some(folio) = src.alloc(order) {
            if let Some(folio) = src.charge(folio) {
                return Some(src.prepare(folio));
            }
            count(order, MthpStat::AnonFaultFallbackCharge);
        }
        count(order, MthpStat::AnonFaultFallback);
    }
    None
}

/// The page allocator and the memcg, for the fault `vmf`, in `orders`.
struct FaultFolios<'v, 'a> {
    vmf: &'v mut VmFault<'a>,
    gfp: Gfp,
    orders: FaultOrders<'a>,
}

impl<'a> FolioSource for FaultFolios<'_, 'a> {
    type Folio = NewFolio<'a>;
    type Charged = ChargedFolio<'a>;
    type Ready = NewAnonFolio<'a>;

    #[inline]
    fn alloc(&mut self, order: u32) -> Option<NewFolio<'a>> {
        NewFolio::vma_alloc_order(self.gfp, self.orders, order, self.vmf)
    }

    #[inline]
    fn charge(&mut self, folio: NewFolio<'a>) -> Option<ChargedFolio<'a>> {
        folio.mem_cgroup_charge(self.vmf, self.gfp).ok()
    }

    #[inline]
    fn prepare(&mut self, folio: ChargedFolio<'a>) -> NewAnonFolio<'a> {
        folio.throttle_swaprate(self.vmf, self.gfp);
        // The faulting subpage is zeroed last, so it is cache-hot.
        folio.zero_user(self.vmf)
    }
}

/// What [`alloc_anon_folio`] found.
pub(crate) enum AnonFolio<'a> {
    /// A charged, zeroed folio of a large order.
    Large(NewAnonFolio<'a>),
    /// No large order could be used: fall back to an order-0 folio.
    Fallback,
    /// The PTE table went away under us: retry the fault.
    Retry,
}

/// Allocates the large folio for an anonymous fault, as C's `alloc_anon_folio()` up to its
/// `fallback:` label.
///
/// Inline, as C's `alloc_anon_folio()` is inlined into `do_anonymous_page()`: the common case,
/// no mTHP size enabled for the VMA, ends after the loads of the knobs, as C's inline
/// `thp_vma_allowable_orders()` check does.
#[inline(always)]
pub(crate) fn alloc_anon_folio<'a>(vmf: &mut VmFault<'a>) -> AnonFolio<'a> {
    // The other order policies, out of line.
    let policy = super::policy::Policy::get();
    if !policy.is_mthp() {
        return super::policy::alloc_anon_folio(vmf, policy);
    }
    // The orders the knobs allow, as C's inline thp_vma_allowable_orders(); nothing more for
    // the common case of no mTHP size enabled.
    let orders = anon_folio_allowable_orders(vmf.vma(), &AnonThpKnobs::read());
    if orders.is_empty() {
        return AnonFolio::Fallback;
    }
    // The rest of `anon_folio_orders()`: the blocks that fit the VMA.
    let orders = vmf.suitable_orders(orders);
    alloc_orders(vmf, orders)
}

/// Allocates a folio of the highest of `orders` whose block has no populated entry, falling
/// back to the lower ones.
#[inline(always)]
pub(crate) fn alloc_orders<'a>(vmf: &mut VmFault<'a>, orders: FaultOrders<'a>) -> AnonFolio<'a> {
    alloc_orders_seen(vmf, orders, |_, _| {})
}

/// As [`alloc_orders`], telling `seen` of every order given up and why, as the mTHP
/// statistics count it (`anon_fault_fallback_charge` first where the charge failed, then
/// `anon_fault_fallback` for every order given up).
#[inline(always)]
pub(crate) fn alloc_orders_seen<'a>(
    vmf: &mut VmFault<'a>,
    orders: FaultOrders<'a>,
    mut seen: impl FnMut(u32, MthpStat),
) -> AnonFolio<'a> {
    if orders.is_empty() {
        return AnonFolio::Fallback;
    }
    let addr = vmf.address();
    let orders = {
        let Some(map) = vmf.map_pte_table() else {
            return AnonFolio::Retry;
        };
        orders.and(anon_folio_pte_none_orders(
            &map.table(),
            addr,
            orders.orders(),
        ))
    };
    if orders.is_empty() {
        return AnonFolio::Fallback;
    }
    let gfp = vma_thp_gfp_mask(vmf.vma());
    let mut src = FaultFolios { vmf, gfp, orders };
    let count = |order, stat| {
        count_mthp_stat(order, stat);
        seen(order, stat);
    };
    match alloc_walk(&mut src, orders.orders(), count) {
        Some(folio) => AnonFolio::Large(folio),
        None => AnonFolio::Fallback,
    }
}

/// C entry for [`alloc_anon_folio`]: a large folio, NULL to fall back to order 0, or
/// `ERR_PTR(-EAGAIN)` to retry the fault.
///
/// # Safety
///
/// `vmf` must be an anonymous fault being handled by the caller, in `do_anonymous_page()` after
/// `vmf_anon_prepare()`, with the VMA read-locked, `vmf->pmd` pointing to a PTE table and no
/// page table lock held.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_alloc_anon_folio(
    vmf: *mut bindings::vm_fault,
) -> *mut bindings::folio {
    // SAFETY: The caller passes its fault, never NULL.
    let vmf = unsafe { NonNull::new_unchecked(vmf) };
    // SAFETY: Guaranteed by the caller, who does not use `vmf` during the call.
    unsafe {
        VmFault::with(vmf, |vmf| match alloc_anon_folio(vmf) {
            AnonFolio::Large(folio) => folio.into_raw(),
            AnonFolio::Fallback => core::ptr::null_mut(),
            AnonFolio::Retry => EAGAIN.to_ptr(),
        })
    }
}

export_check!(mm_rs_alloc_anon_folio);

/// Folios that are only orders, failing as scripted: the test double of [`FaultFolios`].
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
struct ScriptedFolios {
    alloc_fails: OrderSet,
    charge_fails: OrderSet,
}

#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
impl FolioSource for ScriptedFolios {
    type Folio = u32;
    type Charged = u32;
    type Ready = u32;

    fn alloc(&mut self, order: u32) -> Option<u32> {
        (!self.alloc_fails.contains(order)).then_some(order)
    }

    fn charge(&mut self, order: u32) -> Option<u32> {
        (!self.charge_fails.contains(order)).then_some(order)
    }

    fn prepare(&mut self, order: u32) -> u32 {
        order
    }
}

/// KUnit entry: runs [`alloc_walk`] over `orders` with the allocation failing for the orders in
/// `alloc_fails` and the charge for those in `charge_fails`. Adds each statistic counted to
/// `stats[order * MM_RS_ANON_STATS + item]` (items: 0 fallback, 1 fallback_charge) and returns
/// the order allocated, or -1.
///
/// # Safety
///
/// `stats` must point to `(PMD_ORDER + 1) * MM_RS_ANON_STATS` writable `unsigned long`s.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_alloc_walk_test(
    orders: kernel::ffi::c_ulong,
    alloc_fails: kernel::ffi::c_ulong,
    charge_fails: kernel::ffi::c_ulong,
    stats: *mut kernel::ffi::c_ulong,
) -> kernel::ffi::c_int {
    use kernel::mm::thp::PMD_ORDER;

    let nr_stats = bindings::MM_RS_ANON_STATS as usize;
    let len = (PMD_ORDER as usize + 1) * nr_stats;
    // SAFETY: Guaranteed by the caller.
    let stats = unsafe { core::slice::from_raw_parts_mut(stats, len) };
    let mut src = ScriptedFolios {
        alloc_fails: OrderSet::from_bits(alloc_fails),
        charge_fails: OrderSet::from_bits(charge_fails),
    };
    let count = |order: u32, item: MthpStat| {
        let item = match item {
            MthpStat::AnonFaultFallbackCharge => 1,
            _ => 0,
        };
        let slot = (order as usize)
            .checked_mul(nr_stats)
            .and_then(|i| i.checked_add(item))
            .and_then(|i| stats.get_mut(i));
        if let Some(slot) = slot {
            *slot = slot.wrapping_add(1);
        }
    };
    match alloc_walk(&mut src, OrderSet::from_bits(orders), count) {
        Some(order) => order as kernel::ffi::c_int,
        None => -1,
    }
}

#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
export_check!(mm_rs_anon_alloc_walk_test);
