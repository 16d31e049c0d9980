// SPDX-License-Identifier: GPL-2.0

//! Page faults.
//!
//! [`VmFault`] is the `struct vm_fault` that C's fault handlers pass around, owned by the Rust
//! handler for the duration of the fault: handing the fault to userfaultfd
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

/// What a fault handler tells C, made only by consuming the [`VmFault`]: a handler returns
/// exactly one, and cannot claim an outcome (such as `VM_FAULT_RETRY`, which tells C that the
/// fault's lock is gone) that did not happen.
#[must_use = "the outcome must be returned to the fault's C caller"]
pub struct FaultOutcome(VmFaultResult);

impl FaultOutcome {
    /// The `vm_fault_t` for C.
    #[inline]
    pub fn into_raw(self) -> VmFaultResult {
        self.0
    }
}

/// A page fault being handled.
///
/// Not `Clone`: the value stands for the handler's right to use the fault, which
/// [`Self::handle_userfault_missing`] gives up.
///
/// # Invariants
///
/// For `'a`, or until the value is consumed: the fault handler holds the mmap read lock or the
/// VMA read lock of `vmf->vma`, a VMA of a user address space; `vmf->pmd` points to the PMD entry
/// covering `vmf->address` in that VMA's page tables, and a PTE table has been allocated for it
/// (the PMD may still change under us, which every use of it rechecks); the fields read here
/// (`vma`, `address`, `pmd`, `flags`, `orig_pte`) are not changed by anyone else.
pub struct VmFault<'a> {
    vmf: NonNull<bindings::vm_fault>,
    _p: PhantomData<&'a mut bindings::vm_fault>,
}

impl<'a> VmFault<'a> {
    /// Takes over a fault from its C handler.
    ///
    /// # Safety
    ///
    /// `vmf` must be a fault being handled by the caller as the type invariants describe, for
    /// `'a`, and the caller must not use it otherwise until the returned value is gone.
    #[inline]
    pub unsafe fn from_raw(vmf: NonNull<bindings::vm_fault>) -> Self {
        // INVARIANT: Guaranteed by the caller.
        Self {
            vmf,
            _p: PhantomData,
        }
    }

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
    /// The mapping holds an RCU read-side section: it borrows the fault mutably, so nothing that
    /// needs the fault (allocating, charging, zeroing: all may sleep) can run while it lives.
    #[inline]
    pub fn map_pte_table(&mut self) -> Option<PteTableMap<'_>> {
        // SAFETY: `vmf->pmd` is a PMD entry of the read-locked VMA's page tables, which stay
        // allocated while the lock is held, that is while `self` is borrowed.
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

    /// The naturally aligned block of `1 << order` pages around the fault address, if it lies
    /// inside the VMA and inside one PTE table, and is smaller than a table (a PMD-sized folio
    /// is PMD-mapped; its rmap accounting does not allow mapping it with PTEs): `(first
    /// address, number of pages)`.
    #[inline]
    fn block(&self, order: u32) -> Option<(usize, usize)> {
        let nr = 1usize.checked_shl(order).filter(|&nr| nr < PTRS_PER_PTE)?;
        let size = nr << PAGE_SHIFT;
        let addr = self.address() & !(size - 1);
        let vma = self.vma();
        // `addr` is size-aligned and `size` divides the PMD size, so the block stays in one PTE
        // table; it must also stay in the VMA.
        let in_vma = addr >= vma.start() && addr.checked_add(size).is_some_and(|e| e <= vma.end());
        in_vma.then_some((addr, nr))
    }

    /// Maps and locks the PTE table of the fault (`pte_offset_map_lock()`), positioned at the
    /// naturally aligned block of `1 << order` pages around the fault address.
    ///
    /// Returns [`None`] if the VMA is not a private anonymous one (refused: these entries map
    /// anonymous memory and the zero page only), if the block does not lie inside the VMA and
    /// one PTE table or is a whole table (refused: nothing may be mapped outside the VMA, and a
    /// PMD-sized folio is not PTE-mapped here), or if the PMD no longer points to a PTE table
    /// (the fault is then retried).
    ///
    /// The guard borrows the fault mutably: the PTE lock cannot be taken a second time while it
    /// is held (a self-deadlock), and what the fault is needed for meanwhile goes through the
    /// guard.
    #[inline]
    pub fn lock_pte_block(&mut self, order: u32) -> Option<PteTableGuard<'_>> {
        let vma = self.vma();
        if !vma.is_anonymous() || vma.flags() & super::virt::flags::SHARED != 0 {
            return None;
        }
        let (addr, nr) = self.block(order)?;
        let this: &Self = self;
        // SAFETY: `vmf->pmd` is the PMD entry covering the fault address in the read-locked
        // VMA's page tables (type invariants), and the block lies in the VMA and in the PTE
        // table of that PMD entry, as just checked.
        unsafe { PteTableGuard::lock(this, addr, nr) }
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
    pub fn handle_userfault_missing(self) -> FaultOutcome {
        // SAFETY: The fault is being handled with the VMA read-locked and no page table lock
        // held: every guard and mapping borrows `self`, which is moved here (a guard leaked with
        // `mem::forget` would still hold its lock; leaking guards is a bug this cannot see).
        // `self` is gone afterwards, so nothing uses the fault, and its outcome is this one.
        FaultOutcome(unsafe {
            bindings::mm_rs_handle_userfault(self.as_ptr(), bindings::MM_RS_VM_UFFD_MISSING)
        })
    }

    /// Ends the fault as handled: the entry was mapped, or the access is to be retried
    /// (another thread mapped it, or the page table changed). C's 0.
    #[inline]
    pub fn done(self) -> FaultOutcome {
        FaultOutcome(0)
    }

    /// Ends the fault with `VM_FAULT_SIGBUS`.
    #[inline]
    pub fn sigbus(self) -> FaultOutcome {
        FaultOutcome(bindings::MM_RS_VM_FAULT_SIGBUS)
    }
}
