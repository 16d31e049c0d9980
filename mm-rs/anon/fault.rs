// SPDX-License-Identifier: GPL-2.0

//! The anonymous fault: `do_anonymous_page()` for a private VMA, handed over whole by
//! `do_pte_missing()` (one call, so that the Rust path is no longer than C's, where
//! `do_anonymous_page()` is inlined). The orders the folio may have come from the Rust order
//! decision ([`super::order`], [`super::policy`]) or, with `anon_order` off, from C's
//! `anon_folio_orders()`; either way [`super::alloc`] then allocates it, as C's
//! `alloc_anon_folio()` does after its decision.
//!
//! A whole large folio is mapped by one fault, with one `set_ptes()` for all its pages. The
//! entries are checked free under the PTE lock first: another thread may have mapped some of them
//! since the lockless check that chose the order. If it did, the fault backs out and releases the
//! folio; the faulting access is then retried and finds the other thread's mapping.
//!
//! Lock order, as in C: the mmap or VMA read lock (held by the caller), then the PTE lock.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::{
    fault::{FaultOutcome, LockRefused, VmFault},
    folio::NewAnonFolio,
    pgtable::{AnonFolioPte, PteTableGuard, Refused},
};

#[cfg(CONFIG_MM_RS_ANON_ORDER)]
use super::alloc::{alloc_anon_folio, alloc_orders, AnonFolio};

/// C's `do_anonymous_page()` after its `VM_SHARED` check: the PTE table, the zero page for a
/// read, else the anon_vma, then `write_fault` for the folio and its mapping.
#[inline(always)]
fn do_anonymous_page<'a>(
    mut vmf: VmFault<'a>,
    write_fault: impl FnOnce(VmFault<'a>) -> FaultOutcome<'a>,
) -> FaultOutcome<'a> {
    // pte_alloc() rather than pte_alloc_map(), so that OOM can be told from a transient
    // failure to map the table.
    if !vmf.pte_alloc() {
        return vmf.oom();
    }
    if !vmf.is_write() && !vmf.mm_forbids_zeropage() {
        return anon_zero_page_install(vmf);
    }
    match vmf.anon_prepare() {
        Ok(vmf) => write_fault(vmf),
        Err(outcome) => outcome,
    }
}

/// The anonymous write fault after `vmf_anon_prepare()` with the order chosen in Rust: the
/// folio of that order (or C's `folio_prealloc()` for order 0), charged and zeroed, then mapped.
#[cfg(CONFIG_MM_RS_ANON_ORDER)]
#[inline(always)]
fn anon_write_fault(vmf: VmFault<'_>) -> FaultOutcome<'_> {
    write_fault(vmf, alloc_anon_folio)
}

/// The anonymous write fault after `vmf_anon_prepare()` with the orders C's
/// `anon_folio_orders()` allows (`anon_order` off), allocated as the Rust path allocates them:
/// the decision is C's, the rest is the fault path's. The whole of C's `alloc_anon_folio()`
/// would be a call and a stack frame C's inlined fault path does not have.
#[cfg(CONFIG_MM_RS_ANON_ORDER)]
#[inline(always)]
fn c_order_write_fault(vmf: VmFault<'_>) -> FaultOutcome<'_> {
    write_fault(vmf, |vmf| {
        let orders = vmf.anon_folio_orders_c();
        alloc_orders(vmf, orders)
    })
}

/// Without THP there is no large order to choose: the fault maps an order-0 folio from C's
/// `folio_prealloc()`, as C's `alloc_anon_folio()` does then.
#[cfg(not(CONFIG_MM_RS_ANON_ORDER))]
#[inline(always)]
fn c_order_write_fault(mut vmf: VmFault<'_>) -> FaultOutcome<'_> {
    match NewAnonFolio::prealloc(&mut vmf) {
        Some(folio) => anon_folio_install(vmf, folio),
        None => vmf.oom(),
    }
}

/// The write fault with the large folio `alloc` makes, else an order-0 one.
#[cfg(CONFIG_MM_RS_ANON_ORDER)]
#[inline(always)]
fn write_fault<'a>(
    mut vmf: VmFault<'a>,
    alloc: impl FnOnce(&mut VmFault<'a>) -> AnonFolio<'a>,
) -> FaultOutcome<'a> {
    // One install for each kind of folio, so that the order-0 one (the common case) is built
    // knowing its order: one entry, no references to add, no mTHP statistics.
    match alloc(&mut vmf) {
        AnonFolio::Large(folio) => anon_folio_install(vmf, folio),
        AnonFolio::Fallback => match NewAnonFolio::prealloc(&mut vmf) {
            Some(folio) => anon_folio_install(vmf, folio),
            None => vmf.oom(),
        },
        // The PTE table went away: retry the fault.
        AnonFolio::Retry => vmf.done(),
    }
}

/// Why a block was not filled.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NotMapped<'a> {
    /// No guard: [`LockRefused`].
    Lock(LockRefused),
    /// Refused under the PTE lock: [`Refused`].
    Block(Refused<'a>),
}

/// Maps `folio` for the anonymous write fault `vmf`, as C's `do_anonymous_page()` after
/// `alloc_anon_folio()`.
#[inline(always)]
pub(crate) fn anon_folio_install<'a>(
    mut vmf: VmFault<'a>,
    folio: NewAnonFolio<'a>,
) -> FaultOutcome<'a> {
    // Up to date, and its entry built, before the lock, as in C.
    let Ok(folio) = AnonFolioPte::new(&vmf, folio) else {
        // No anon_vma: the caller did not prepare the fault. Refuse; the folio is put.
        return vmf.sigbus();
    };
    match map_folio(&mut vmf, folio) {
        Ok(()) => vmf.done(),
        Err(why) => not_mapped(vmf, why),
    }
}

/// Locks the folio's block, checks it under the lock and maps the folio; the lock is dropped
/// on return. A refused folio goes out of line ([`folio_refused`]).
#[inline(always)]
fn map_folio<'a>(vmf: &mut VmFault<'a>, folio: AnonFolioPte<'a>) -> Result<(), NotMapped<'a>> {
    let mut pte = vmf.lock_folio_block(&folio).map_err(NotMapped::Lock)?;
    match pte.vacant_folio(folio) {
        Ok(vacant) => {
            vacant.install();
            Ok(())
        }
        Err((why, folio)) => Err(folio_refused(pte, why, folio)),
    }
}

/// The end of a refused block: as C, tells the MMU if another thread mapped something there
/// first (the access is then retried), releases the folio with the lock still held, and
/// unlocks. (Before it hands a fault to userfaultfd, C unlocks first and then releases the
/// folio; the order does not matter there: nobody else ever saw the folio.) Out of line and
/// cold, so that the path that maps has the only unlock inline and carries no reason.
#[cold]
#[inline(never)]
fn folio_refused<'a>(
    pte: PteTableGuard<'_, 'a>,
    why: Refused<'a>,
    folio: AnonFolioPte<'a>,
) -> NotMapped<'a> {
    if why == Refused::Changed {
        pte.update_mmu_tlb();
    }
    drop(folio);
    drop(pte);
    NotMapped::Block(why)
}

/// Maps the shared zero page for the anonymous read fault `vmf`, as C's `do_anonymous_page()`
/// does for reads.
#[inline(always)]
pub(crate) fn anon_zero_page_install(mut vmf: VmFault<'_>) -> FaultOutcome<'_> {
    match map_zero_page(&mut vmf) {
        Ok(()) => vmf.done(),
        Err(why) => not_mapped(vmf, why),
    }
}

/// Locks the fault's entry, checks it under the lock and maps the zero page.
#[inline(always)]
fn map_zero_page<'a>(vmf: &mut VmFault<'a>) -> Result<(), NotMapped<'a>> {
    let mut pte = vmf.lock_pte_block(0).map_err(NotMapped::Lock)?;
    match pte.vacant_zero_page() {
        Ok(vacant) => {
            vacant.install();
            Ok(())
        }
        Err(why) => Err(zero_page_refused(pte, why)),
    }
}

/// [`folio_refused`] for the zero page: nothing to release.
#[cold]
#[inline(never)]
fn zero_page_refused<'a>(pte: PteTableGuard<'_, 'a>, why: Refused<'a>) -> NotMapped<'a> {
    if why == Refused::Changed {
        pte.update_mmu_tlb();
    }
    drop(pte);
    NotMapped::Block(why)
}

/// How a fault ends when its block was refused (the PTE lock dropped), as in C.
#[cold]
#[inline(never)]
fn not_mapped<'a>(vmf: VmFault<'a>, why: NotMapped<'a>) -> FaultOutcome<'a> {
    match why {
        // Another thread mapped it first, or the page table changed: retry.
        NotMapped::Block(Refused::Changed) | NotMapped::Lock(LockRefused::PmdChanged) => vmf.done(),
        // Never asked for by C (the order decision picks blocks inside private anonymous VMAs,
        // of orders an anonymous fault maps): a retry would fault again forever.
        NotMapped::Lock(LockRefused::Unsuitable) | NotMapped::Block(Refused::Unsuitable) => {
            vmf.sigbus()
        }
        NotMapped::Block(Refused::Unstable) => vmf.sigbus(),
        // Checked under the PTE lock, handled without it.
        NotMapped::Block(Refused::UserfaultMissing(proof)) => vmf.handle_userfault_missing(proof),
    }
}

/// C entry for the whole fault, with the order chosen in Rust ([`anon_write_fault`]).
///
/// # Safety
///
/// `vmf` must be a fault being handled in `do_pte_missing()` for a private anonymous VMA (C
/// checked `vma_is_anonymous()` and not `VM_SHARED`), with no page table lock held. The caller
/// returns what this returns.
#[cfg(CONFIG_MM_RS_ANON_ORDER)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_do_anonymous_page(
    vmf: *mut bindings::vm_fault,
) -> bindings::vm_fault_t {
    // SAFETY: The caller passes its fault, never NULL.
    let vmf = unsafe { NonNull::new_unchecked(vmf) };
    // SAFETY: Guaranteed by the caller, who returns what we return and uses `vmf` no more.
    unsafe { VmFault::handle(vmf, |vmf| do_anonymous_page(vmf, anon_write_fault)) }
}

/// C entry for the whole fault, with the orders from C's `anon_folio_orders()`
/// ([`c_order_write_fault`]).
///
/// # Safety
///
/// As for [`mm_rs_do_anonymous_page`].
#[no_mangle]
pub unsafe extern "C" fn mm_rs_do_anonymous_page_c_order(
    vmf: *mut bindings::vm_fault,
) -> bindings::vm_fault_t {
    // SAFETY: The caller passes its fault, never NULL.
    let vmf = unsafe { NonNull::new_unchecked(vmf) };
    // SAFETY: Guaranteed by the caller, who returns what we return and uses `vmf` no more.
    unsafe { VmFault::handle(vmf, |vmf| do_anonymous_page(vmf, c_order_write_fault)) }
}

#[cfg(CONFIG_MM_RS_ANON_ORDER)]
export_check!(mm_rs_do_anonymous_page);
export_check!(mm_rs_do_anonymous_page_c_order);

/// KUnit entry for [`anon_folio_install`], the map step alone, with a fault and a folio the test
/// makes; consumes the caller's reference to `folio`.
///
/// # Safety
///
/// `vmf` must be an anonymous write fault of a private anonymous VMA with an anon_vma, the VMA
/// read-locked, its PTE table allocated and no page table lock held; `folio` must be a new,
/// charged, zeroed folio for it, as `alloc_anon_folio()` returns (not NULL), whose one reference
/// the caller gives up. The caller uses neither afterwards.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_folio_install(
    vmf: *mut bindings::vm_fault,
    folio: *mut bindings::folio,
) -> bindings::vm_fault_t {
    // SAFETY: The caller passes its fault and its folio, neither NULL.
    let (vmf, folio) = unsafe { (NonNull::new_unchecked(vmf), NonNull::new_unchecked(folio)) };
    // SAFETY: Guaranteed by the caller, who returns what we return and uses `vmf` no more.
    unsafe {
        VmFault::handle(vmf, |vmf| {
            // Guaranteed by the caller: the reference passes to the `NewAnonFolio`.
            match NewAnonFolio::from_raw(&vmf, folio) {
                Some(folio) => anon_folio_install(vmf, folio),
                // Of an order no anonymous fault maps with PTEs (its reference was put): C
                // never hands one over, and a retry would get it again.
                None => vmf.sigbus(),
            }
        })
    }
}

/// KUnit entry for [`anon_zero_page_install`], the map step of a read fault alone.
///
/// # Safety
///
/// `vmf` must be an anonymous read fault of a private anonymous VMA, the VMA read-locked, its
/// PTE table allocated and no page table lock held.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_zero_page_install(
    vmf: *mut bindings::vm_fault,
) -> bindings::vm_fault_t {
    // SAFETY: The caller passes its fault, never NULL.
    let vmf = unsafe { NonNull::new_unchecked(vmf) };
    // SAFETY: Guaranteed by the caller, who returns what we return and uses `vmf` no more.
    unsafe { VmFault::handle(vmf, anon_zero_page_install) }
}

#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
export_check!(mm_rs_anon_folio_install, mm_rs_anon_zero_page_install);
