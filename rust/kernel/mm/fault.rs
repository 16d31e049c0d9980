// SPDX-License-Identifier: GPL-2.0

//! Page faults.
//!
//! [`VmFault`] is the `struct vm_fault` that C's fault handlers pass around.
//!
//! C header: [`include/linux/mm.h`](srctree/include/linux/mm.h)

use super::{pgtable::PteTableMap, virt::VmaRef};
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
