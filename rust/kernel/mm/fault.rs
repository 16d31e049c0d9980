// SPDX-License-Identifier: GPL-2.0

//! Page faults.
//!
//! [`VmFault`] is the `struct vm_fault` that C's fault handlers pass around, lent to a Rust
//! handler for the duration of one call: [`VmFault::handle`] lends it by value to a handler that
//! must end the fault ([`FaultOutcome`]), [`VmFault::with`] by reference to code that works on it
//! without ending it (choosing and allocating the folio).
//!
//! Each fault gets its own lifetime `'a`, which no other fault shares (the handlers are
//! `for<'a>` closures, and `'a` is invariant), so everything made for a fault (its PTE lock
//! guard, its new folios, its outcome) carries the fault's `'a` and cannot be used with another
//! fault or outlive the call. Handing the fault to userfaultfd
//! ([`VmFault::handle_userfault_missing`]) consumes it, since userfaultfd may drop the lock that
//! keeps the VMA alive.
//!
//! C header: [`include/linux/mm.h`](srctree/include/linux/mm.h)

use super::{
    pgtable::{Pte, PteTableGuard, PteTableMap, PTRS_PER_PTE},
    virt::VmaRef,
};
use crate::{bindings, page::PAGE_SHIFT};
use core::{marker::PhantomData, ptr::NonNull};

/// The `vm_fault_t` a fault handler returns: 0 or `VM_FAULT_*` bits.
pub type VmFaultResult = bindings::vm_fault_t;

/// The lifetime of one fault, invariant so that the values of two faults never unify.
pub(super) type FaultBrand<'a> = PhantomData<fn(&'a ()) -> &'a ()>;

/// What a fault handler tells C, made only by consuming the fault's [`VmFault`]: a handler
/// returns exactly one, for its own fault, and cannot claim an outcome (such as
/// `VM_FAULT_RETRY`, which tells C that the fault's lock is gone) that did not happen.
#[must_use = "the outcome must be returned to the fault's C caller"]
pub struct FaultOutcome<'a> {
    ret: VmFaultResult,
    _fault: FaultBrand<'a>,
}

impl FaultOutcome<'_> {
    #[inline]
    fn new(ret: VmFaultResult) -> Self {
        Self {
            ret,
            _fault: PhantomData,
        }
    }
}

/// Why [`VmFault::lock_pte_block`] gave no guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockRefused {
    /// The request can never be met: the VMA is not private anonymous, the order is not one an
    /// anonymous fault maps with PTEs (0, or an mTHP order below `PMD_ORDER`), or the block does
    /// not lie inside the VMA. Retrying would fault again forever; C never asks for this.
    Unsuitable,
    /// The PMD no longer points to a PTE table (it became none, a huge mapping or a migration
    /// entry under us): retry the fault.
    PmdChanged,
}

/// Whether an anonymous fault may map a folio of `order` with PTEs: order 0, or an mTHP order
/// (`THP_ORDERS_ALL_ANON`, never order 1) below `PMD_ORDER` (a PMD-sized folio is PMD-mapped).
#[inline]
pub(super) fn is_anon_pte_order(order: u32) -> bool {
    #[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
    {
        use super::thp::{PMD_ORDER, THP_ORDERS_ALL_ANON};
        order == 0 || (order < PMD_ORDER && THP_ORDERS_ALL_ANON.contains(order))
    }
    #[cfg(not(CONFIG_TRANSPARENT_HUGEPAGE))]
    {
        order == 0
    }
}

/// A page fault being handled.
///
/// Not `Clone`, and only lent out by [`Self::handle`] and [`Self::with`]: the value stands for
/// the handler's right to use the fault, which [`Self::handle_userfault_missing`] gives up.
///
/// # Invariants
///
/// For `'a`, or until the value is consumed: the fault handler holds the mmap read lock or the
/// VMA read lock of `vmf->vma`, a VMA of a user address space; `vmf->pmd` points to the PMD entry
/// covering `vmf->address` in that VMA's page tables, and a PTE table has been allocated for it
/// (the PMD may still change under us, which every use of it rechecks); the fields read here
/// (`vma`, `address`, `pmd`, `flags`, `orig_pte`) are not changed by anyone else; no page table
/// lock is held; and no other `VmFault` exists for this `vm_fault`.
pub struct VmFault<'a> {
    vmf: NonNull<bindings::vm_fault>,
    _fault: FaultBrand<'a>,
}

impl VmFault<'_> {
    /// Lends the fault `vmf` to `f`, which must end it, and returns the outcome for C.
    ///
    /// # Safety
    ///
    /// `vmf` must be a fault being handled by the caller as the type invariants describe, for the
    /// duration of the call; the caller must not use `vmf` during the call, must return the result
    /// to the fault's C caller as the fault's `vm_fault_t`, and must not use the VMA or `vmf->pmd`
    /// afterwards if the result has `VM_FAULT_RETRY` or `VM_FAULT_COMPLETED` set.
    #[inline]
    pub unsafe fn handle<F>(vmf: NonNull<bindings::vm_fault>, f: F) -> VmFaultResult
    where
        F: for<'a> FnOnce(VmFault<'a>) -> FaultOutcome<'a>,
    {
        // INVARIANT: Guaranteed by the caller for the call; `f` works for any lifetime, so
        // nothing it gets can leave the call.
        f(VmFault {
            vmf,
            _fault: PhantomData,
        })
        .ret
    }

    /// Lends the fault `vmf` to `f` by reference: `f` may work on the fault (allocate a folio
    /// for it) but cannot end it.
    ///
    /// # Safety
    ///
    /// `vmf` must be a fault being handled by the caller as the type invariants describe, for the
    /// duration of the call, and the caller must not use `vmf` during the call.
    #[inline]
    pub unsafe fn with<R, F>(vmf: NonNull<bindings::vm_fault>, f: F) -> R
    where
        F: for<'a> FnOnce(&mut VmFault<'a>) -> R,
    {
        // INVARIANT: Guaranteed by the caller for the call; `f` works for any lifetime and `R`
        // cannot name it, so nothing it gets can leave the call.
        f(&mut VmFault {
            vmf,
            _fault: PhantomData,
        })
    }
}

impl<'a> VmFault<'a> {
    /// Returns a raw pointer to the fault.
    #[inline]
    pub fn as_ptr(&self) -> *mut bindings::vm_fault {
        self.vmf.as_ptr()
    }

    /// The faulting VMA.
    #[inline]
    pub fn vma(&self) -> &VmaRef {
        // SAFETY: The handler holds the VMA's read lock while `self` lives (type invariants),
        // and the borrow keeps `self` alive.
        unsafe { VmaRef::from_raw((*self.as_ptr()).__bindgen_anon_1.vma) }
    }

    /// The faulting address, aligned down to its page (`vmf->address`).
    #[inline]
    pub fn address(&self) -> usize {
        // SAFETY: `address` is set before the handler runs and not changed meanwhile.
        unsafe { (*self.as_ptr()).__bindgen_anon_1.address }
    }

    /// The fault's PMD entry (`vmf->pmd`).
    #[inline]
    pub(super) fn pmd(&self) -> *mut bindings::pmd_t {
        // SAFETY: `pmd` is set before the handler runs and not changed meanwhile.
        unsafe { (*self.as_ptr()).pmd }
    }

    /// Whether this is a write fault (`FAULT_FLAG_WRITE`).
    #[inline]
    pub fn is_write(&self) -> bool {
        // SAFETY: `flags` is set before the handler runs and not changed meanwhile.
        let flags = unsafe { (*self.as_ptr()).flags };
        flags & bindings::fault_flag_FAULT_FLAG_WRITE != 0
    }

    /// Maps the PTE table that `vmf->pmd` points to (`pte_offset_map()`), for lockless reads.
    ///
    /// The mapping holds an RCU read-side section, which is what keeps the table allocated while
    /// it lives (PT reclaim may free an empty table under the mmap read lock). It borrows the
    /// fault mutably, so nothing of this API that may sleep (allocating, charging, zeroing) can
    /// run while it lives.
    #[inline]
    pub fn map_pte_table(&mut self) -> Option<PteTableMap<'_>> {
        // SAFETY: `vmf->pmd` is a PMD entry of the read-locked VMA's page tables, which (down to
        // the PMD level) stay allocated while the lock is held, that is while `self` is borrowed.
        unsafe { PteTableMap::map(self.pmd()) }
    }

    /// The fault's original entry, if the fault read one (`FAULT_FLAG_ORIG_PTE_VALID`).
    #[inline]
    pub fn orig_pte(&self) -> Option<Pte> {
        // SAFETY: `flags` and `orig_pte` are set before the handler runs.
        let (flags, orig) = unsafe {
            (
                (*self.as_ptr()).flags,
                (*self.as_ptr()).__bindgen_anon_2.orig_pte,
            )
        };
        (flags & bindings::fault_flag_FAULT_FLAG_ORIG_PTE_VALID != 0).then(|| Pte::from_table(orig))
    }

    /// Whether the original entry was a userfaultfd write-protect marker in a VMA registered
    /// for write protection, as C's `vmf_orig_pte_uffd_wp()`.
    #[inline]
    pub fn orig_pte_uffd_wp(&self) -> bool {
        if !self.vma().userfaultfd_wp() {
            return false;
        }
        self.orig_pte().is_some_and(|pte| pte.is_uffd_wp_marker())
    }

    /// The naturally aligned block of `1 << order` pages around the fault address, if `order` is
    /// one an anonymous fault maps with PTEs and the block lies inside the VMA: `(first address,
    /// number of pages)`. The block lies in one PTE table: it is aligned to its size, which is
    /// below the PMD size.
    #[inline]
    fn block(&self, order: u32) -> Option<(usize, usize)> {
        if !is_anon_pte_order(order) {
            return None;
        }
        // `order < PMD_ORDER`, so neither shift overflows.
        let nr = 1usize.checked_shl(order)?;
        let size = nr.checked_shl(PAGE_SHIFT as u32)?;
        let addr = self.address() & !(size - 1);
        let vma = self.vma();
        let in_vma = addr >= vma.start() && addr.checked_add(size).is_some_and(|e| e <= vma.end());
        in_vma.then_some((addr, nr))
    }

    /// Maps and locks the PTE table of the fault (`pte_offset_map_lock()`), positioned at the
    /// naturally aligned block of `1 << order` pages around the fault address.
    ///
    /// Refused with [`LockRefused::Unsuitable`] if the VMA is not a private anonymous one (these
    /// entries map anonymous memory and the zero page only), if `order` is not one an anonymous
    /// fault maps with PTEs, or if the block does not lie inside the VMA; with
    /// [`LockRefused::PmdChanged`] if the PMD no longer points to a PTE table.
    ///
    /// The guard borrows the fault mutably: the PTE lock cannot be taken a second time while it
    /// is held (a self-deadlock), nothing of this API that sleeps can run under it, and what the
    /// fault is needed for meanwhile goes through the guard.
    #[inline]
    pub fn lock_pte_block(&mut self, order: u32) -> Result<PteTableGuard<'_, 'a>, LockRefused> {
        let vma = self.vma();
        if !vma.is_anonymous() || vma.flags() & super::virt::flags::SHARED != 0 {
            return Err(LockRefused::Unsuitable);
        }
        let (addr, nr) = self.block(order).ok_or(LockRefused::Unsuitable)?;
        let this: &Self = self;
        // SAFETY: The VMA is private anonymous, `vmf->pmd` is the PMD entry covering the fault
        // address in its page tables (type invariants), and the block is the naturally aligned
        // one around the fault address, of at most `PTRS_PER_PTE` pages, inside the VMA, as just
        // checked.
        unsafe { PteTableGuard::lock(this, addr, nr) }.ok_or(LockRefused::PmdChanged)
    }

    /// Hands a missing-page fault to userfaultfd (`handle_userfault(vmf, VM_UFFD_MISSING)`).
    ///
    /// This consumes the fault: userfaultfd may sleep and drop the mmap or VMA lock (returning
    /// `VM_FAULT_RETRY`), after which neither the VMA nor `vmf->pmd` may be used. No PTE lock
    /// can be held here, since every guard borrows the fault.
    ///
    /// What userfaultfd returns is the handler's outcome: no other can be made once the fault
    /// is consumed, so the handler cannot report the fault's lock still held when userfaultfd
    /// dropped it, or the reverse.
    #[inline]
    pub fn handle_userfault_missing(self) -> FaultOutcome<'a> {
        // SAFETY: The fault is being handled with the VMA read-locked and no page table lock
        // held: every guard and mapping borrows `self`, which is moved here (a guard leaked with
        // `mem::forget` would still hold its lock; leaking guards is a bug this cannot see).
        // `self` is gone afterwards, so nothing uses the fault, and its outcome is this one.
        FaultOutcome::new(unsafe {
            bindings::mm_rs_handle_userfault(self.as_ptr(), bindings::MM_RS_VM_UFFD_MISSING)
        })
    }

    /// Ends the fault as handled: the entry was mapped, or the access is to be retried
    /// (another thread mapped it, or the page table changed). C's 0.
    #[inline]
    pub fn done(self) -> FaultOutcome<'a> {
        FaultOutcome::new(0)
    }

    /// Ends the fault with `VM_FAULT_SIGBUS`.
    #[inline]
    pub fn sigbus(self) -> FaultOutcome<'a> {
        FaultOutcome::new(bindings::MM_RS_VM_FAULT_SIGBUS)
    }
}

// `block()` hands out blocks of at most a table; the guard relies on it.
const _: () = assert!(PTRS_PER_PTE <= i32::MAX as usize);
