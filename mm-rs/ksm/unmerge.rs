// SPDX-License-Identifier: GPL-2.0

//! Unmerging KSM pages: `unmerge_ksm_pages()` of `mm/ksm.c`, on a page-table range walk.
//!
//! KSM unmerges a range (`MADV_UNMERGEABLE`, `run` = 2, `PR_SET_MEMORY_MERGE` 0, a VMA that
//! stops being mergeable) by replacing every KSM page mapped there with an exclusive copy. 6.12
//! calls `break_ksm()` once per page address of the range, populated or not, and each call walks
//! the page tables from the top (`folio_walk_start()`): on a large, sparsely populated area that
//! is a walk of every PGD to PTE level for each page of it. Here one [`RangeWalk`] goes over the
//! range, skipping whatever is none at every level, and stops at each entry that maps a KSM page;
//! that page is broken as `break_ksm()` breaks it. Mainline later made the same change in C
//! ("mm/ksm: perform a range-walk in break_ksm", 2025).
//!
//! What is decided is 6.12's, exactly:
//!
//! - which entries are broken ([`maps_ksm`]): a small KSM folio, mapped or under migration, or
//!   the shared zero page that KSM placed for a page of zeros (`use_zero_pages`);
//! - how: an unshare fault (`FAULT_FLAG_UNSHARE | FAULT_FLAG_REMOTE`), repeated at the same
//!   address until the entry no longer maps a KSM page or the fault fails with `VM_FAULT_SIGBUS`
//!   or `VM_FAULT_SIGSEGV` (the address is then left, as it is unmapped or gone) or
//!   `VM_FAULT_OOM` (`-ENOMEM`);
//! - when to stop: once the mm has no users (`ksm_test_exit()`: 0, the rest left to
//!   `exit_mmap()`), or with `-ERESTARTSYS` on a pending signal, checked before the first
//!   address and before each address where something is broken; 6.12 checks before every
//!   address, populated or not, which here is after each PTE table or huge leaf instead (holes
//!   cost a read of their entry, not a check), and once more where the walk ends, unless the
//!   last address 6.12 checks before is the one whose page was broken last: the walk does not
//!   pause after the table it ends in;
//! - the VMA write-locked against per-VMA-lock faults first (`vma_start_write()`) when the
//!   caller holds the mmap lock for writing and asks for it (`lock_vma`).

use core::ops::ControlFlow::{self, Break, Continue};
use kernel::ffi::{c_int, c_ulong};
use kernel::{
    bindings,
    error::{code::ENOMEM, code::ERESTARTSYS, Result},
    mm::{
        virt::{MmapLockedVma, MmapWriteLockedVma},
        walk::{MaySleep, PteEntry, PteVisitor, RangeWalk, Stopped},
        Mm,
    },
    page::PAGE_SIZE,
};

/// Whether `entry` maps what unmerging breaks, as 6.12's `break_ksm()` decides it with
/// `folio_walk_start(FW_MIGRATION | FW_ZEROPAGE)`: a folio that is small and a KSM folio, or
/// whose entry is a dirty entry of the shared zero page (`is_ksm_zero_pte()`: KSM placed it, with
/// `use_zero_pages`). The folio is the normal page a present entry maps, the zero page, or what
/// a migration entry stands for; other entries have none.
#[inline(always)]
pub(crate) fn maps_ksm(entry: &PteEntry<'_>) -> bool {
    let pte = entry.pte();
    // C's is_ksm_zero_pte(), which break_ksm() evaluates on whatever entry it found.
    let ksm_zero = || pte.pfn_is_zero() && pte.is_dirty();
    let folio = if pte.is_present() {
        match entry.normal_folio() {
            Some(folio) => folio,
            // The zero page (`FW_ZEROPAGE`) is a small folio and never a KSM one; other
            // special entries have no folio, and their PFN is not the zero page's.
            None => return ksm_zero(),
        }
    } else {
        match entry.migration_folio() {
            Some(folio) => folio,
            None => return false,
        }
    };
    !folio.test_large() && (folio.test_ksm() || ksm_zero())
}

/// Why the walk of an unmerge stops.
enum Stop {
    /// At an entry that maps a KSM page.
    Ksm,
    /// The mm has no users left.
    Exit,
    /// A signal is pending.
    Signal,
}

/// What 6.12 checks before it works on an address: the mm first, then signals.
#[inline]
fn exit_or_signal(mm: &Mm) -> ControlFlow<Stop> {
    if !mm.has_users() {
        return Break(Stop::Exit);
    }
    if kernel::current!().signal_pending() {
        return Break(Stop::Signal);
    }
    Continue(())
}

/// The visitor of an unmerge: stops at KSM pages, and between tables when 6.12 would stop.
struct Unmerge<'m> {
    mm: &'m Mm,
}

impl PteVisitor for Unmerge<'_> {
    type Break = Stop;

    #[inline(always)]
    fn pte_entry(&mut self, entry: PteEntry<'_>) -> ControlFlow<Stop> {
        if maps_ksm(&entry) {
            return Break(Stop::Ksm);
        }
        Continue(())
    }

    #[inline]
    fn pause(&mut self) -> ControlFlow<Stop> {
        exit_or_signal(self.mm)
    }
}

/// Unmerges `[start, end)` of `vma`, as 6.12's `unmerge_ksm_pages()`: see the module
/// documentation. `write_locked` is the same VMA when the caller holds the mmap lock for writing
/// and wants it write-locked first (C's `lock_vma`). A range that is not page-aligned inside the
/// VMA is left alone, as 6.12 leaves every address outside the VMA (`folio_walk_start()` warns).
pub(crate) fn unmerge_ksm_pages(
    vma: &MmapLockedVma,
    may_sleep: &mut MaySleep,
    start: usize,
    end: usize,
    write_locked: Option<&MmapWriteLockedVma>,
) -> Result {
    let Some(mut walk) = RangeWalk::new(vma, may_sleep, start, end) else {
        return Ok(());
    };
    if walk.is_done() {
        return Ok(());
    }
    let mm = vma.mm();
    match exit_or_signal(mm) {
        Continue(()) => {}
        Break(Stop::Signal) => return Err(ERESTARTSYS),
        Break(_) => return Ok(()),
    }
    if let Some(vma) = write_locked {
        vma.start_write(walk.may_sleep());
    }
    let mut visitor = Unmerge { mm };
    // The address whose KSM page the last fault was to break: break_ksm() retries it without
    // checking the mm or signals again.
    let mut retry = None;
    // The address of the last unshare fault, whether it failed or not.
    let mut last_fault = None;
    loop {
        let mut at = match walk.walk(&mut visitor) {
            // 6.12 checks at each address after the last it broke a page at, and the walk did
            // not pause after the table it ended in: the range's last page is the one address
            // with none left to check at. (`checked_add`: no overflow check that could panic;
            // a fault address lies in `[start, end)`, so it never overflows.)
            Continue(()) => {
                if last_fault.is_some_and(|addr: usize| addr.checked_add(PAGE_SIZE) == Some(end)) {
                    return Ok(());
                }
                return match exit_or_signal(mm) {
                    Break(Stop::Signal) => Err(ERESTARTSYS),
                    _ => Ok(()),
                };
            }
            Break((Stop::Ksm, Stopped::Entry(at))) => at,
            Break((Stop::Signal, _)) => return Err(ERESTARTSYS),
            // The mm exits (a KSM page is met at an entry only: `Unmerge` breaks nowhere else).
            Break(_) => return Ok(()),
        };
        if retry != Some(at.addr()) {
            match exit_or_signal(mm) {
                Continue(()) => {}
                Break(Stop::Signal) => return Err(ERESTARTSYS),
                Break(_) => return Ok(()),
            }
        }
        retry = Some(at.addr());
        last_fault = retry;
        let ret = at.unshare_fault();
        if ret & bindings::MM_RS_VM_FAULT_OOM != 0 {
            return Err(ENOMEM);
        }
        if ret & (bindings::MM_RS_VM_FAULT_SIGBUS | bindings::MM_RS_VM_FAULT_SIGSEGV) != 0 {
            // break_ksm() gives up on this address; unmerging goes on with the next.
            at.skip_page();
            retry = None;
        }
    }
}

/// `unmerge_ksm_pages()` of `mm/ksm.c` in Rust: 0, `-ENOMEM` or `-ERESTARTSYS`.
///
/// # Safety
///
/// `vma` must be a valid VMA in the VMA tree of its mm, whose mmap lock the caller holds for the
/// call, for writing if `lock_vma`; the caller holds a reference on the mm's `mm_users`, or the
/// mm is that of KSM's current scan slot (`ksm_scan.mm_slot`), as for every caller of 6.12's
/// `unmerge_ksm_pages()`, so that `exit_mmap()` cannot start during the call. A hugetlb VMA
/// (which KSM never takes: `vma_ksm_compatible()`) is left alone.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_unmerge_ksm_pages(
    vma: *mut bindings::vm_area_struct,
    start: c_ulong,
    end: c_ulong,
    lock_vma: bool,
) -> c_int {
    // SAFETY: The caller holds the mmap lock of the VMA's mm for the call, and `exit_mmap()`
    // cannot start meanwhile (an `mm_users` reference, or KSM's current scan slot).
    let Some(locked) = (unsafe { MmapLockedVma::from_raw(vma) }) else {
        return 0;
    };
    let write_locked = if lock_vma {
        // SAFETY: As above; with `lock_vma`, the caller holds the mmap lock for writing.
        unsafe { MmapWriteLockedVma::from_raw(vma) }
    } else {
        None
    };
    // SAFETY: The callers of unmerge_ksm_pages() hold no spinlock, only the mmap lock, a
    // sleeping lock (6.12's break_ksm() reschedules and faults there), and this is the one
    // `MaySleep` of the call.
    let mut may_sleep = unsafe { MaySleep::new() };
    match unmerge_ksm_pages(locked, &mut may_sleep, start, end, write_locked) {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

export_check!(mm_rs_unmerge_ksm_pages);
