// SPDX-License-Identifier: GPL-2.0

//! The folio order of exec readahead: the architecture's choice, and the sysfs override.

use kernel::error::code::EINVAL;
use kernel::mm::folio::max_pagecache_order;
use kernel::page::{PAGE_SHIFT, PAGE_SIZE};

/// The architecture's exec folio order (mainline's `exec_folio_order()`), or [`None`] for no
/// preference, which leaves exec faults to the read-around.
///
/// arm64 maps a naturally aligned 64K block with contiguous PTEs (`PTE_CONT`) when the pages
/// are 4K, so it asks for 64K folios: order 4 with 4K pages, 2 with 16K and 0 with 64K (where
/// the contiguous range is 2M and a 64K folio is one page).
pub(crate) fn arch_exec_folio_order() -> Option<u32> {
    if cfg!(CONFIG_ARM64) {
        let sz_64k: u32 = 16;
        sz_64k.checked_sub(PAGE_SHIFT as u32)
    } else {
        None
    }
}

/// The order of a folio of `size` bytes, for the sysfs override: a power of two from the page
/// size to the page cache's largest folio; anything else is `EINVAL`.
pub(crate) fn exec_folio_order_of_size(size: u64) -> Result<u32, kernel::error::Error> {
    if !size.is_power_of_two() || size < PAGE_SIZE as u64 {
        return Err(EINVAL);
    }
    let order = size.ilog2() - PAGE_SHIFT as u32;
    if order > max_pagecache_order() {
        return Err(EINVAL);
    }
    Ok(order)
}

/// The architecture's exec folio order, or -1 for no preference.
#[no_mangle]
pub extern "C" fn mm_rs_exec_arch_folio_order() -> core::ffi::c_int {
    arch_exec_folio_order()
        .and_then(|order| core::ffi::c_int::try_from(order).ok())
        .unwrap_or(-1)
}

/// The order of an exec folio of `size` bytes, or -EINVAL (see [`exec_folio_order_of_size`]).
#[no_mangle]
pub extern "C" fn mm_rs_exec_folio_order_of_size(size: u64) -> core::ffi::c_int {
    match exec_folio_order_of_size(size) {
        Ok(order) => core::ffi::c_int::try_from(order).unwrap_or(EINVAL.to_errno()),
        Err(e) => e.to_errno(),
    }
}

export_check!(mm_rs_exec_arch_folio_order, mm_rs_exec_folio_order_of_size);
