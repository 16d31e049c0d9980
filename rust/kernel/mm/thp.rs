// SPDX-License-Identifier: GPL-2.0

//! Transparent hugepage knobs and statistics.
//!
//! The global THP mode (`/sys/kernel/mm/transparent_hugepage/enabled`), the per-size anonymous
//! mTHP modes (`hugepages-<size>kB/enabled`) and the per-size mTHP counters
//! (`hugepages-<size>kB/stats/`).
//!
//! C header: [`include/linux/huge_mm.h`](srctree/include/linux/huge_mm.h)

use super::order::OrderSet;
use crate::bindings;

/// The largest folio order C's THP code handles: a PMD mapping (`PMD_ORDER`).
pub const PMD_ORDER: u32 = bindings::MM_RS_PMD_ORDER;

/// The orders anonymous memory may use as (m)THP: 2 up to [`PMD_ORDER`] (`THP_ORDERS_ALL_ANON`).
pub const THP_ORDERS_ALL_ANON: OrderSet = OrderSet::range(2, PMD_ORDER);

/// A snapshot of the anonymous THP knobs, read once per decision as C's `READ_ONCE()`s do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnonThpKnobs {
    /// Orders whose `hugepages-<size>kB/enabled` is `always`.
    pub always: OrderSet,
    /// Orders whose `hugepages-<size>kB/enabled` is `madvise`.
    pub madvise: OrderSet,
    /// Orders whose `hugepages-<size>kB/enabled` is `inherit`.
    pub inherit: OrderSet,
    /// The global mode is `always`.
    pub global_always: bool,
    /// The global mode is `always` or `madvise`.
    pub global_enabled: bool,
    /// The hardware or firmware cannot do THP (`TRANSPARENT_HUGEPAGE_UNSUPPORTED`).
    pub disabled_by_hw: bool,
}

impl AnonThpKnobs {
    /// Reads the knobs as they are now.
    ///
    /// Each is read once; a concurrent write to sysfs may or may not be seen, as in C.
    #[inline]
    pub fn read() -> Self {
        // SAFETY: These globals are only written with WRITE_ONCE() or atomic bit operations under
        // their sysfs locks; C reads them with READ_ONCE() or test_bit() and no lock, as here.
        let (always, madvise, inherit, tpf) = unsafe {
            (
                core::ptr::read_volatile(core::ptr::addr_of!(bindings::huge_anon_orders_always)),
                core::ptr::read_volatile(core::ptr::addr_of!(bindings::huge_anon_orders_madvise)),
                core::ptr::read_volatile(core::ptr::addr_of!(bindings::huge_anon_orders_inherit)),
                core::ptr::read_volatile(core::ptr::addr_of!(bindings::transparent_hugepage_flags)),
            )
        };
        let bit = |b: u32| tpf & (1 << b) != 0;
        let global_always = bit(bindings::transparent_hugepage_flag_TRANSPARENT_HUGEPAGE_FLAG);
        Self {
            always: OrderSet::from_bits(always),
            madvise: OrderSet::from_bits(madvise),
            inherit: OrderSet::from_bits(inherit),
            global_always,
            global_enabled: global_always
                || bit(bindings::transparent_hugepage_flag_TRANSPARENT_HUGEPAGE_REQ_MADV_FLAG),
            disabled_by_hw: bit(
                bindings::transparent_hugepage_flag_TRANSPARENT_HUGEPAGE_UNSUPPORTED,
            ),
        }
    }
}

/// The per-size mTHP counters (`enum mthp_stat_item`) the anonymous fault path and the verdict
/// on underused mTHPs move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum MthpStat {
    /// `anon_fault_alloc`: a folio of this order was allocated and mapped by a fault.
    AnonFaultAlloc = bindings::mthp_stat_item_MTHP_STAT_ANON_FAULT_ALLOC,
    /// `anon_fault_fallback`: a fault could not use this order and tried a smaller one.
    AnonFaultFallback = bindings::mthp_stat_item_MTHP_STAT_ANON_FAULT_FALLBACK,
    /// `anon_fault_fallback_charge`: the memcg charge for this order failed.
    AnonFaultFallbackCharge = bindings::mthp_stat_item_MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE,
    /// `underused_checked`: the deferred-split shrinker asked whether a folio of this order is
    /// underused.
    #[cfg(CONFIG_MM_RS_SPLIT_UNDERUSED)]
    UnderusedChecked = bindings::mthp_stat_item_MTHP_STAT_UNDERUSED_CHECKED,
}

/// Counts one event of `item` for `order`, as C's `count_mthp_stat()` (which ignores order 0 and
/// orders above [`PMD_ORDER`]).
#[inline]
pub fn count_mthp_stat(order: u32, item: MthpStat) {
    // Orders never exceed PMD_ORDER here, so the conversion to C's `int` cannot fail.
    let Ok(order) = i32::try_from(order) else {
        return;
    };
    // SAFETY: `count_mthp_stat()` only bumps a per-CPU counter, with preemption disabled.
    unsafe { bindings::mm_rs_count_mthp_stat(order, item as bindings::mthp_stat_item) };
}

/// The GFP flags for a THP allocation in `vma`, which depend on the `defrag` knob and
/// `MADV_HUGEPAGE`, as C's `vma_thp_gfp_mask()`.
#[inline]
pub fn vma_thp_gfp_mask(vma: &super::virt::VmaRef) -> super::folio::Gfp {
    // SAFETY: `vma` is valid and read-locked by the `VmaRef` invariants.
    unsafe { bindings::vma_thp_gfp_mask(vma.as_ptr()) }
}
