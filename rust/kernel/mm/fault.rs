// SPDX-License-Identifier: GPL-2.0

//! Page faults.
//!
//! [`VmFault`] is the `struct vm_fault` that C's fault handlers pass around.
//!
//! C header: [`include/linux/mm.h`](srctree/include/linux/mm.h)

use super::{
    pgtable::{Pte, PteTableLocked, PteTableMap},
    virt::VmaRef,
};
use crate::{bindings, types::Opaque};

/// A page fault being handled.
///
/// # Invariants
///
/// The fault handler holds the mmap read lock or the VMA read lock of `vmf->vma` for the
/// lifetime of the reference, `vmf->pmd` points to a PMD entry of that VMA's page tables, and
/// the fields read here are not changed by anyone else meanwhile.
#[repr(transparent)]
pub struct VmFault {
    vmf: Opaque<bindings::vm_fault>,
}

impl VmFault {
    /// Access a fault given a pointer to it.
    ///
    /// # Safety
    ///
    /// `vmf` must be a valid fault being handled by the caller, with `vmf->vma` read-locked and
    /// `vmf->pmd` set, for the lifetime `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(vmf: *mut bindings::vm_fault) -> &'a Self {
        // SAFETY: The caller guarantees the invariants for 'a.
        // CAST: `VmFault` is a transparent wrapper of `vm_fault`.
        unsafe { &*vmf.cast() }
    }

    /// Returns a raw pointer to the fault.
    #[inline]
    pub fn as_ptr(&self) -> *mut bindings::vm_fault {
        self.vmf.get()
    }

    /// The faulting VMA.
    #[inline]
    pub fn vma(&self) -> &VmaRef {
        // SAFETY: The fault handler holds the VMA's read lock for as long as `self` lives.
        unsafe { VmaRef::from_raw((*self.as_ptr()).__bindgen_anon_1.vma) }
    }

    /// The faulting address, aligned down to its page (`vmf->address`).
    #[inline]
    pub fn address(&self) -> usize {
        // SAFETY: `address` is set before the handler runs and not changed meanwhile.
        unsafe { (*self.as_ptr()).__bindgen_anon_1.address }
    }

    /// Maps the PTE table that `vmf->pmd` points to (`pte_offset_map()`).
    #[inline]
    pub fn map_pte_table(&self) -> Option<PteTableMap> {
        // SAFETY: `vmf->pmd` is a PMD entry of the read-locked VMA's page tables, which stay
        // allocated while the lock is held.
        unsafe { PteTableMap::map((*self.as_ptr()).pmd) }
    }
}

/// The `vm_fault_t` a fault handler returns: 0 or `VM_FAULT_*` bits.
pub type VmFaultResult = bindings::vm_fault_t;

impl VmFault {
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

    /// Maps and locks the PTE table of `vmf->pmd`, positioned at `addr`
    /// (`pte_offset_map_lock()`). [`None`] if the PMD changed under us.
    #[inline]
    pub fn lock_pte_table(&self, addr: usize) -> Option<PteTableLocked<'_>> {
        // SAFETY: `vmf->pmd` is the PMD entry of the read-locked VMA covering the fault, and the
        // callers pass an address in the same PMD.
        unsafe { PteTableLocked::lock(self.vma(), (*self.as_ptr()).pmd, addr) }
    }

    /// Hands a missing-page fault to userfaultfd (`handle_userfault(vmf, VM_UFFD_MISSING)`).
    ///
    /// The PTE lock must not be held: the guard borrows `self`, so drop it first.
    #[inline]
    pub fn handle_userfault_missing(&self) -> VmFaultResult {
        // SAFETY: The fault is being handled with the VMA read-locked; userfaultfd may drop that
        // lock and returns VM_FAULT_RETRY if it does, which the caller returns as is.
        unsafe { bindings::mm_rs_handle_userfault(self.as_ptr(), bindings::MM_RS_VM_UFFD_MISSING) }
    }
}
