// SPDX-License-Identifier: GPL-2.0

//! The readahead window of an exec fault.
//!
//! All of it is in file-offset space (page-cache indices), where the folios are naturally
//! aligned: the window starts at the fault's index aligned down to the folio order, but not
//! before the VMA's first page, and ends where `ra_pages` from its start, aligned up, ends, but
//! not after the VMA's last page or the end of the file. It has no asynchronous part: text is
//! not read sequentially, so a PG_readahead marker would only read more of what is not needed.
//!
//! The inputs are read from the VMA before the fault may drop the mmap or VMA lock for I/O;
//! after that the VMA may be freed. The arithmetic saturates: on 32-bit, a page-cache index of a
//! huge file can be near `usize::MAX`.

use kernel::bindings;
use kernel::page::{PAGE_SHIFT, PAGE_SIZE};

/// A readahead window: `size` pages from index `start`, in folios of `order`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct ExecWindow {
    pub(crate) start: usize,
    pub(crate) size: u32,
    pub(crate) order: u32,
}

/// What the fault and its VMA tell the window: all of it read under the fault's lock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExecFault {
    /// The faulting page's index in the file (`vmf->pgoff`).
    pub(crate) pgoff: usize,
    /// The file index of the VMA's first page (`vma->vm_pgoff`).
    pub(crate) vm_pgoff: usize,
    /// The VMA's size in pages (`vma_pages()`).
    pub(crate) vm_pages: usize,
    /// The file's size in bytes (`i_size_read()`).
    pub(crate) i_size: i64,
    /// The file's readahead size in pages (`ra->ra_pages`).
    pub(crate) ra_pages: u32,
}

/// `index` aligned up to `n` (a power of two), saturating at the highest aligned index.
fn align_up_sat(index: usize, n: usize) -> usize {
    let mask = n.saturating_sub(1);
    match index.checked_add(mask) {
        Some(v) => v & !mask,
        None => usize::MAX & !mask,
    }
}

/// The window for `fault` in folios of `order`, or [`None`] when the fault gets no exec
/// readahead: readahead is off for the file (`ra_pages` 0), or the fault is not inside both the
/// VMA and the file (a truncate can race with the fault).
pub(crate) fn exec_ra_window(fault: &ExecFault, order: u32) -> Option<ExecWindow> {
    if fault.ra_pages == 0 {
        return None;
    }
    let n = 1usize.checked_shl(order)?;
    let vm_end = fault.vm_pgoff.saturating_add(fault.vm_pages);
    // Pages of the file, rounded up; an i_size of 0 or less has none.
    let i_size = u64::try_from(fault.i_size).ok().filter(|&s| s > 0)?;
    let eof = i_size.div_ceil(PAGE_SIZE as u64);
    let eof = usize::try_from(eof).unwrap_or(usize::MAX);
    if fault.pgoff < fault.vm_pgoff || fault.pgoff >= vm_end || fault.pgoff >= eof {
        return None;
    }

    let start = (fault.pgoff & !n.checked_sub(1)?).max(fault.vm_pgoff);
    let ra_pages = usize::try_from(fault.ra_pages).unwrap_or(usize::MAX);
    let end = align_up_sat(start.saturating_add(ra_pages), n)
        .min(vm_end)
        .min(eof);
    if end <= fault.pgoff {
        return None;
    }
    let size = u32::try_from(end.checked_sub(start)?).ok()?;
    Some(ExecWindow { start, size, order })
}

/// The exec readahead window of a fault, for `do_sync_mmap_readahead()`: fills `win` and returns
/// true, or returns false to leave the fault to the read-around.
///
/// # Safety
///
/// `win` must be valid for writes.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_exec_ra_window(
    pgoff: usize,
    vm_pgoff: usize,
    vm_pages: usize,
    i_size: bindings::loff_t,
    ra_pages: core::ffi::c_uint,
    order: core::ffi::c_uint,
    win: *mut bindings::mm_rs_exec_ra,
) -> bool {
    let fault = ExecFault {
        pgoff,
        vm_pgoff,
        vm_pages,
        i_size,
        ra_pages,
    };
    let Some(w) = exec_ra_window(&fault, order) else {
        return false;
    };
    // SAFETY: Guaranteed by the caller.
    let Some(win) = (unsafe { win.as_mut() }) else {
        return false;
    };
    win.start = w.start;
    win.size = w.size;
    win.order = w.order;
    true
}

// The window is in pages; a byte size above that would not be a page count.
const _: () = assert!(PAGE_SHIFT < 32);

export_check!(mm_rs_exec_ra_window);
