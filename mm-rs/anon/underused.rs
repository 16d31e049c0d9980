// SPDX-License-Identifier: GPL-2.0

//! Which anonymous mTHPs the deferred-split shrinker splits as underused.
//!
//! 6.12 queues every PMD THP a fault maps for the deferred-split shrinker, which splits one it
//! finds underused (`thp_underused()` in `mm/huge_memory.c`, from "mm: split underused THPs"):
//! more zero-filled pages than `khugepaged/max_ptes_none`. The split maps those pages to the
//! shared zero page and frees them. With `CONFIG_MM_RS_SPLIT_UNDERUSED` the fault paths queue
//! mTHPs too (`mm_rs_anon_underused_candidate()`), and the shrinker asks this module about them
//! through `mm_rs_mthp_underused()` (`mm/mm_rs/underused.c`).
//!
//! The verdict is 6.12's, with the threshold scaled to the folio's order: a folio of `order` is
//! underused when more than `max_ptes_none >> (PMD_ORDER - order)` of its pages are
//! zero-filled, the share of its pages that `max_ptes_none` allows of a PMD THP's. As in 6.12,
//! `max_ptes_none` 511 (its default: khugepaged fills any PMD with one page in it) turns it
//! off. It looks at contents, not at which pages were written: a page written with zeros
//! counts as unused, as it does for 6.12, and is as well served by the zero page.

use core::ffi::{c_int, c_uint};
use kernel::bindings;
use kernel::mm::{
    folio::Folio,
    thp::{count_mthp_stat, MthpStat, PMD_ORDER},
};

/// The verdict on a folio of `order` whose page `i` is zero-filled when `zero_filled(i)`, with
/// khugepaged's `max_ptes_none`: `Some(n)` if it is underused, `n` being how many of its pages
/// are zero-filled, else `None`. Stops reading pages as soon as enough are filled for the folio
/// to be used (as `thp_underused()`), but counts every zero-filled page of an underused one,
/// for the `underused_zero_pages` counter.
pub(crate) fn underused(
    order: u32,
    max_ptes_none: u32,
    mut zero_filled: impl FnMut(usize) -> bool,
) -> Option<usize> {
    // As 6.12 for PMD THPs: 511 none PTEs allowed is no limit.
    if max_ptes_none >= (1 << PMD_ORDER) - 1 {
        return None;
    }
    let shift = PMD_ORDER.checked_sub(order)?;
    let nr = 1usize.checked_shl(order)?;
    // Below `nr`: `max_ptes_none` is below `1 << PMD_ORDER`.
    let none_max = max_ptes_none.checked_shr(shift).unwrap_or(0) as usize;
    // Once this many pages are filled, at most `none_max` can be zero-filled: used.
    let used_at = nr.saturating_sub(none_max);
    let (mut zero, mut filled) = (0usize, 0usize);
    for i in 0..nr {
        if zero_filled(i) {
            zero = zero.saturating_add(1);
        } else {
            filled = filled.saturating_add(1);
            if filled >= used_at {
                return None;
            }
        }
    }
    (zero > none_max).then_some(zero)
}

/// The shrinker's verdict on `folio`: how many of its pages are zero-filled if it is underused,
/// else 0. A folio that is not anonymous, is under writeback, is mlocked, may be pinned for DMA,
/// is likely mapped by more than one process or holds a poisoned page is left alone: splitting
/// it would fail, or give nothing back (the remap keeps an mlocked folio's pages, 6.12's
/// `try_to_map_unused_to_zeropage()`), or belong to another path. What a split gives back is
/// counted from the remap, not from this count (`mm_rs_count_underused_split()`).
fn thp_underused(folio: &Folio, max_ptes_none: u32) -> c_int {
    let order = folio.order();
    count_mthp_stat(order, MthpStat::UnderusedChecked);
    if !folio.test_anon()
        || folio.test_writeback()
        || folio.test_mlocked()
        || folio.maybe_dma_pinned()
        || folio.likely_mapped_shared()
        || folio.contain_hwpoisoned_page()
    {
        return 0;
    }
    underused(order, max_ptes_none, |i| folio.page_zero_filled(i))
        .map_or(0, |n| c_int::try_from(n).unwrap_or(c_int::MAX))
}

/// How many pages of the mTHP `folio` are zero-filled if it is underused with khugepaged's
/// `max_ptes_none`, else 0; counts `underused_checked`.
///
/// # Safety
///
/// The caller (the deferred-split shrinker) must hold a reference to `folio` for the call.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_thp_underused(
    folio: *mut bindings::folio,
    max_ptes_none: c_uint,
) -> c_int {
    if folio.is_null() {
        return 0;
    }
    // SAFETY: The caller holds a reference to the folio for the call.
    let folio = unsafe { Folio::from_raw(folio) };
    thp_underused(folio, max_ptes_none)
}

/// KUnit only: [`underused`] for a folio of `order` whose page `i` is zero-filled when bit `i`
/// of the bitmap `zero` is set; the number of zero-filled pages if underused, else 0.
///
/// # Safety
///
/// `zero` must point to a bitmap of at least `1 << order` bits (whole `unsigned long`s).
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_underused_verdict(
    order: c_uint,
    max_ptes_none: c_uint,
    zero: *const usize,
) -> c_int {
    // `unsigned long` is `usize` in the kernel's bindings.
    const BITS: usize = usize::BITS as usize;
    let Some(nr) = 1usize.checked_shl(order).filter(|_| order <= PMD_ORDER) else {
        return 0;
    };
    if zero.is_null() {
        return 0;
    }
    // SAFETY: Guaranteed by the caller: `1 << order` bits, in whole words.
    let words = unsafe { core::slice::from_raw_parts(zero, nr.div_ceil(BITS)) };
    underused(order, max_ptes_none, |i| {
        words
            .get(i / BITS)
            .is_some_and(|w| (w >> (i % BITS)) & 1 != 0)
    })
    .map_or(0, |n| c_int::try_from(n).unwrap_or(c_int::MAX))
}

export_check!(mm_rs_thp_underused);
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
export_check!(mm_rs_underused_verdict);
