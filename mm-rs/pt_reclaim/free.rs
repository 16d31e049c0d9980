// SPDX-License-Identifier: GPL-2.0

//! The freeing protocol, reached from `zap_pmd_range()` and `zap_pte_range()` in `mm/memory.c`.
//!
//! Lock order: the mmap read lock (held by MADV_DONTNEED), then the PMD lock, then the PTE lock.
//!
//! - Fast path, at the end of a pass with the PTE lock still held: the PMD lock is only tried,
//!   since waiting for it there would invert the order. It fails when both are one lock (no split
//!   PTE locks) or when the PMD lock is busy; the slow path then runs after the unlock.
//! - Slow path, after the PTE lock was dropped: the PMD lock, then the PTE lock nested, then every
//!   entry checked none before the PMD is cleared.
//!
//! The table itself is freed after both locks are dropped, through the zap's mmu_gather, which
//! flushes the TLB first and, with `CONFIG_MM_RS_PT_RECLAIM`, frees page tables and their split
//! locks only after an RCU grace period, so lockless walkers still on the table stay safe.

use super::zap::{Reclaim, TableZap};
use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::{
    pgtable::PteRangeLocked,
    pmd::{DetachedPteTable, DetachedSlot, MmuGather, PmdRef, PteLockHeld},
    vmstat::{count_vm_event, VmEvent},
    Mm,
};

/// The end of a pass with the PTE lock held: detaches the table on the fast path if it may go,
/// and keeps it in `slot` until the unlock.
fn zap_locked<'a>(
    zap: &TableZap<'_>,
    slot: &mut DetachedSlot<'_, 'a>,
    held: PteLockHeld<'a>,
    addr: usize,
) {
    if zap.decide(addr) != Reclaim::Fast {
        return;
    }
    if let Some(table) = held.detach_if_empty() {
        // The slot is emptied after every unlock, so it is free here. Were it not, the table
        // would leak, out of reach, which is safe.
        let _ = slot.put(table);
    }
}

/// Frees `table` through the zap's gather and counts it as `event`.
fn free_table(table: DetachedPteTable<'_>, tlb: &mut MmuGather<'_>, event: VmEvent) {
    match table.free(tlb) {
        Ok(()) => count_vm_event(event),
        // Cannot happen: the gather is the zap's, of the mm the table was detached from.
        // Dropping a detached table leaks it, out of reach, which is safe.
        Err(table) => drop(table),
    }
}

/// The end of a pass after the PTE lock was dropped: frees what the fast path detached, or
/// runs the slow path.
fn zap_unlocked<'t>(
    zap: &TableZap<'_>,
    slot: &mut DetachedSlot<'_, 't>,
    tlb: &mut MmuGather<'t>,
    pmd: &mut PmdRef<'t>,
    addr: usize,
) {
    if let Some(table) = slot.take() {
        free_table(table, tlb, VmEvent::PtReclaimFast);
        return;
    }
    match zap.decide(addr) {
        Reclaim::Continue => {}
        Reclaim::Keep => {
            if zap.whole() {
                count_vm_event(VmEvent::PtReclaimKept);
            }
        }
        Reclaim::Fast | Reclaim::Slow => {
            match pmd
                .lock()
                .lock_pte_table()
                .and_then(|pte| pte.detach_if_empty())
            {
                Some(table) => free_table(table, tlb, VmEvent::PtReclaimSlow),
                None => count_vm_event(VmEvent::PtReclaimKept),
            }
        }
    }
}

/// Starts or resumes the zap of the table for `[addr, end)`.
///
/// # Safety
///
/// `z` must point to a valid `struct mm_rs_pt_zap` that only this thread uses.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_pt_zap_begin(
    z: *mut bindings::mm_rs_pt_zap,
    addr: usize,
    end: usize,
) {
    // SAFETY: Guaranteed by the caller.
    let Some(z) = (unsafe { z.as_mut() }) else {
        return;
    };
    TableZap::new(&mut z.pass).begin(addr, end);
}

/// Counts which of the `nr` entries at `pte` a zap step left live.
///
/// # Safety
///
/// `z` as for [`mm_rs_pt_zap_begin`]; `pte` must point to `nr` entries of one PTE table that is
/// mapped and whose lock the caller holds.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_pt_zap_count(
    z: *mut bindings::mm_rs_pt_zap,
    pte: *mut bindings::pte_t,
    nr: core::ffi::c_int,
) {
    // SAFETY: Guaranteed by the caller.
    let Some(z) = (unsafe { z.as_mut() }) else {
        return;
    };
    let (Some(pte), Ok(nr)) = (NonNull::new(pte), usize::try_from(nr)) else {
        return;
    };
    // SAFETY: Guaranteed by the caller.
    let entries = unsafe { PteRangeLocked::from_raw(pte, nr) };
    TableZap::new(&mut z.pass).count(&entries);
}

/// The end of a pass at `addr` with the table's PTE lock `ptl` held.
///
/// # Safety
///
/// `z` as for [`mm_rs_pt_zap_begin`], zero-initialised by a zap of `mm` and changed since only by
/// these functions; `mm` must be live, with its mmap lock read-held, `pmd` a PMD entry of it
/// pointing to the PTE table that `ptl` locks, and `ptl` held by the caller, which holds no other
/// page table lock.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_pt_zap_locked(
    z: *mut bindings::mm_rs_pt_zap,
    mm: *mut bindings::mm_struct,
    pmd: *mut bindings::pmd_t,
    ptl: *mut bindings::spinlock_t,
    addr: usize,
) {
    // SAFETY: Guaranteed by the caller.
    let Some(z) = (unsafe { z.as_mut() }) else {
        return;
    };
    let (Some(pmd), Some(ptl)) = (NonNull::new(pmd), NonNull::new(ptl)) else {
        return;
    };
    // SAFETY: The caller keeps `mm` live for the call.
    let mm = unsafe { Mm::from_raw(mm) };
    // SAFETY: `pmd` maps the table the pass ended in, which ends at `addr`; the page tables
    // stay allocated under the mmap read lock; it is the one `PmdRef` of this call, and the only
    // page table lock held is `ptl`, whose witness takes it right below.
    let pmd = unsafe { PmdRef::from_raw(mm, pmd, addr.wrapping_sub(1)) };
    // SAFETY: The caller holds `ptl`, the lock of the table `pmd` points to, until we return,
    // and no other `PmdRef` is made in this call.
    let held = unsafe { PteLockHeld::from_raw(ptl, pmd) };
    // SAFETY: The zap of `mm` zero-initialised the slot, and only these functions change it.
    let mut slot = unsafe { DetachedSlot::from_raw(&mut z.detached) };
    zap_locked(&TableZap::new(&mut z.pass), &mut slot, held, addr);
}

/// The end of a pass at `addr`, after the PTE lock was dropped.
///
/// # Safety
///
/// `z` as for [`mm_rs_pt_zap_locked`]; `tlb` must be the zap's live mmu_gather, and `pmd` a PMD
/// entry of its mm, whose mmap lock is read-held. The caller holds no page table lock.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_pt_zap_unlocked(
    z: *mut bindings::mm_rs_pt_zap,
    tlb: *mut bindings::mmu_gather,
    pmd: *mut bindings::pmd_t,
    addr: usize,
) {
    // SAFETY: Guaranteed by the caller.
    let Some(z) = (unsafe { z.as_mut() }) else {
        return;
    };
    let (Some(tlb), Some(pmd)) = (NonNull::new(tlb), NonNull::new(pmd)) else {
        return;
    };
    // SAFETY: Guaranteed by the caller.
    let mut tlb = unsafe { MmuGather::from_raw(tlb) };
    // SAFETY: `pmd` maps the table the pass ended in, which ends at `addr`; the page tables
    // stay allocated under the mmap read lock; it is the one `PmdRef` of this call, and no page
    // table lock is held.
    let mut pmd = unsafe { PmdRef::from_raw(tlb.mm(), pmd, addr.wrapping_sub(1)) };
    // SAFETY: The zap of the gather's mm zero-initialised the slot, and only these functions
    // change it.
    let mut slot = unsafe { DetachedSlot::from_raw(&mut z.detached) };
    zap_unlocked(
        &TableZap::new(&mut z.pass),
        &mut slot,
        &mut tlb,
        &mut pmd,
        addr,
    );
}

/// KUnit only: the decision for the zap `z` if its pass ended at `addr`.
///
/// # Safety
///
/// `z` must point to a valid `struct mm_rs_pt_zap`.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_pt_zap_decide_test(
    z: *const bindings::mm_rs_pt_zap,
    addr: usize,
) -> core::ffi::c_int {
    // SAFETY: Guaranteed by the caller; the copy of the counts is only read.
    let Some(mut pass) = (unsafe { z.as_ref() }).map(|z| z.pass) else {
        return -1;
    };
    let decision = TableZap::new(&mut pass).decide(addr);
    let code = match decision {
        Reclaim::Continue => bindings::mm_rs_pt_reclaim_MM_RS_PT_CONTINUE,
        Reclaim::Keep => bindings::mm_rs_pt_reclaim_MM_RS_PT_KEEP,
        Reclaim::Fast => bindings::mm_rs_pt_reclaim_MM_RS_PT_FAST,
        Reclaim::Slow => bindings::mm_rs_pt_reclaim_MM_RS_PT_SLOW,
    };
    core::ffi::c_int::try_from(code).unwrap_or(-1)
}

/// KUnit only: detaches the empty PTE table that `pmd` points to, at `addr` in the mm of `tlb`
/// (the slow path), then frees it through `other`, a gather of another mm, and then through
/// `tlb`. Returns bit 0 if the free through `other` was refused, as it must be, and bit 1 if the
/// free through `tlb` then went ahead; -1 if the table was not detached.
///
/// # Safety
///
/// `tlb` and `other` must be live gathers used by this thread only, of two different mms; `pmd`
/// a PMD entry of `tlb`'s mm, whose mmap lock the caller read-holds, and no page table lock.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_pt_free_other_mm_test(
    other: *mut bindings::mmu_gather,
    tlb: *mut bindings::mmu_gather,
    pmd: *mut bindings::pmd_t,
    addr: usize,
) -> core::ffi::c_int {
    let (Some(other), Some(tlb), Some(pmd)) =
        (NonNull::new(other), NonNull::new(tlb), NonNull::new(pmd))
    else {
        return -1;
    };
    // SAFETY: Guaranteed by the caller.
    let (mut other, mut tlb) = unsafe { (MmuGather::from_raw(other), MmuGather::from_raw(tlb)) };
    // SAFETY: Guaranteed by the caller: a PMD entry of the gather's mm, read-locked, the one
    // `PmdRef` of this call, and no page table lock held.
    let mut pmd = unsafe { PmdRef::from_raw(tlb.mm(), pmd, addr) };
    let Some(table) = pmd
        .lock()
        .lock_pte_table()
        .and_then(|pte| pte.detach_if_empty())
    else {
        return -1;
    };
    let mut ret = 0;
    let table = match table.free(&mut other) {
        Ok(()) => return ret,
        Err(table) => {
            ret |= 1;
            table
        }
    };
    if table.free(&mut tlb).is_ok() {
        ret |= 2;
    }
    ret
}

export_check!(
    mm_rs_pt_zap_begin,
    mm_rs_pt_zap_count,
    mm_rs_pt_zap_locked,
    mm_rs_pt_zap_unlocked,
);
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
export_check!(mm_rs_pt_zap_decide_test, mm_rs_pt_free_other_mm_test);
