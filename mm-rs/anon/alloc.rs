// SPDX-License-Identifier: GPL-2.0

//! Allocating the folio for an anonymous fault (`alloc_anon_folio()` for large orders).
//!
//! The orders come from [`super::order`]; this walks them from the highest down, allocating and
//! charging, and counts the mTHP statistics exactly where C does: `anon_fault_fallback_charge`
//! when the memcg charge of an order fails, and `anon_fault_fallback` for every order given up,
//! whether its allocation or its charge failed. Order 0 stays with C's `folio_prealloc()`.

use super::order::{anon_folio_orders, anon_folio_pte_none_orders};
use kernel::bindings;
use kernel::error::code::EAGAIN;
use kernel::mm::{
    fault::VmFault,
    folio::Folio,
    order::align_down,
    thp::{count_mthp_stat, vma_thp_gfp_mask, AnonThpKnobs, MthpStat},
};

/// What [`alloc_anon_folio`] found.
pub(crate) enum AnonFolio {
    /// A charged, zeroed folio of a large order.
    Large(Folio),
    /// No large order could be used: fall back to an order-0 folio.
    Fallback,
    /// The PTE table went away under us: retry the fault.
    Retry,
}

/// Allocates the large folio for an anonymous fault, as C's `alloc_anon_folio()` up to its
/// `fallback:` label.
pub(crate) fn alloc_anon_folio(vmf: &VmFault) -> AnonFolio {
    let vma = vmf.vma();
    let addr = vmf.address();

    let orders = anon_folio_orders(vma, &AnonThpKnobs::read(), addr);
    if orders.is_empty() {
        return AnonFolio::Fallback;
    }
    let orders = {
        let Some(map) = vmf.map_pte_table() else {
            return AnonFolio::Retry;
        };
        anon_folio_pte_none_orders(&map.table(), addr, orders)
    };
    if orders.is_empty() {
        return AnonFolio::Fallback;
    }
    let Some(mm) = vma.mm() else {
        return AnonFolio::Fallback;
    };

    let gfp = vma_thp_gfp_mask(vma);
    for order in orders.iter_desc() {
        let folio =
            align_down(addr, order).and_then(|start| Folio::vma_alloc(gfp, order, vma, start));
        if let Some(folio) = folio {
            if folio.mem_cgroup_charge(mm, gfp).is_ok() {
                folio.throttle_swaprate(gfp);
                folio.zero_user(addr);
                return AnonFolio::Large(folio);
            }
            count_mthp_stat(order, MthpStat::AnonFaultFallbackCharge);
            drop(folio);
        }
        count_mthp_stat(order, MthpStat::AnonFaultFallback);
    }
    AnonFolio::Fallback
}

/// C entry for [`alloc_anon_folio`]: a large folio, NULL to fall back to order 0, or
/// `ERR_PTR(-EAGAIN)` to retry the fault.
///
/// # Safety
///
/// `vmf` must be an anonymous fault being handled by the caller, in `do_anonymous_page()` after
/// `vmf_anon_prepare()`, with the VMA read-locked and `vmf->pmd` pointing to a PTE table.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_alloc_anon_folio(
    vmf: *mut bindings::vm_fault,
) -> *mut bindings::folio {
    // SAFETY: Guaranteed by the caller.
    let vmf = unsafe { VmFault::from_raw(vmf) };
    match alloc_anon_folio(vmf) {
        AnonFolio::Large(folio) => folio.into_raw(),
        AnonFolio::Fallback => core::ptr::null_mut(),
        AnonFolio::Retry => EAGAIN.to_ptr(),
    }
}

export_check!(mm_rs_alloc_anon_folio);
