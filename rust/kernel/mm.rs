// SPDX-License-Identifier: GPL-2.0

//! Memory management, as seen by the mm-rs policy code.
//!
//! These are the narrow views that the Rust memory-management decisions in `mm/mm_rs/` need of
//! C's mm structures: an address space ([`Mm`], [`MmWithUser`]), a VMA under the mmap or VMA
//! read lock ([`virt::VmaRef`]), a page fault ([`fault::VmFault`]), PTE tables and their locks
//! ([`pgtable`]), the PMD entry above a PTE table and detaching the table ([`pmd`]), new folios
//! on their way into a fault ([`folio`]), the transparent-hugepage knobs ([`thp`]), VM event
//! counters and a set of folio orders ([`order::OrderSet`]).
//!
//! The names and shapes follow mainline's `rust/kernel/mm.rs` and `rust/kernel/mm/virt.rs`
//! (`Mm`, `MmWithUser`, `VmaRef`) where mainline has the concept, so that a forward port does
//! not collide. Lock guards are named `<what>Guard` as mainline's `MmapReadGuard` and
//! `VmaReadGuard`: [`pgtable::PteTableGuard`], [`pmd::PmdGuard`], [`pmd::PteTableNestedGuard`].
//!
//! All `unsafe` for these lives here; the policy code on top of it is safe Rust.
//!
//! C headers: [`include/linux/mm.h`](srctree/include/linux/mm.h),
//! [`include/linux/mm_types.h`](srctree/include/linux/mm_types.h),
//! [`include/linux/huge_mm.h`](srctree/include/linux/huge_mm.h)

use crate::{bindings, types::Opaque};
use core::ops::Deref;

pub mod fault;
pub mod folio;
pub mod order;
pub mod pgtable;
#[cfg(CONFIG_MM_RS_PT_RECLAIM)]
pub mod pmd;
#[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
pub mod thp;
pub mod virt;
pub mod vmstat;

/// An address space (`struct mm_struct`), as mainline's `kernel::mm::Mm`.
///
/// Only references to it exist here: something else (a VMA of it, a gather on it, the caller's
/// `mmgrab()`) keeps it alive. Mainline's `ARef<Mm>` refcounting is not needed by mm-rs.
///
/// # Invariants
///
/// Values of this type are always references to a valid `mm_struct`.
#[repr(transparent)]
pub struct Mm {
    mm: Opaque<bindings::mm_struct>,
}

// SAFETY: An `mm_struct` may be used from any thread; the methods below only use atomic or
// locked accesses.
unsafe impl Sync for Mm {}

impl Mm {
    /// Access an mm given a pointer to it.
    ///
    /// # Safety
    ///
    /// `ptr` must point to a valid `mm_struct` that stays valid for `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(ptr: *const bindings::mm_struct) -> &'a Self {
        // SAFETY: The caller ensures that `ptr` is valid for 'a.
        // CAST: `Mm` is a transparent wrapper of `mm_struct`.
        unsafe { &*ptr.cast() }
    }

    /// Returns a raw pointer to the inner `mm_struct`.
    #[inline]
    pub fn as_raw(&self) -> *mut bindings::mm_struct {
        self.mm.get()
    }

    /// Whether `prctl(PR_SET_THP_DISABLE)` disabled THP for this mm (`MMF_DISABLE_THP`).
    #[inline]
    pub fn thp_disabled(&self) -> bool {
        self.test_flag(bindings::MM_RS_MMF_DISABLE_THP)
    }

    /// Whether `bit` of `mm->flags` is set (`test_bit()`).
    #[inline]
    fn test_flag(&self, bit: u32) -> bool {
        // SAFETY: The mm is valid by the type invariants; `flags` is only changed with atomic
        // bit operations, so a plain racy read is what C's `test_bit()` does too.
        let flags = unsafe {
            core::ptr::read_volatile(core::ptr::addr_of!((*self.as_raw()).__bindgen_anon_1.flags))
        };
        flags & (1 << bit) != 0
    }
}

/// An address space with a non-zero `mm_users`, as mainline's `kernel::mm::MmWithUser`: its
/// page tables and VMAs are not being torn down by `exit_mmap()`.
///
/// # Invariants
///
/// Values of this type are always references to a valid `mm_struct` whose `mm_users` is
/// non-zero for as long as the reference exists.
#[repr(transparent)]
pub struct MmWithUser {
    mm: Mm,
}

// SAFETY: As for `Mm`.
unsafe impl Sync for MmWithUser {}

impl MmWithUser {
    /// Access an mm with users given a pointer to it.
    ///
    /// # Safety
    ///
    /// `ptr` must point to a valid `mm_struct` whose `mm_users` stays non-zero for `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(ptr: *const bindings::mm_struct) -> &'a Self {
        // SAFETY: The caller ensures the invariants for 'a.
        // CAST: `MmWithUser` is a transparent wrapper of `Mm`, itself of `mm_struct`.
        unsafe { &*ptr.cast() }
    }

    /// `Err` with `VM_FAULT_SIGBUS` if the OOM reaper is tearing the mm down (`MMF_UNSTABLE`),
    /// as C's `check_stable_address_space()`.
    #[inline]
    pub fn check_stable_address_space(&self) -> Result<(), bindings::vm_fault_t> {
        if self.test_flag(bindings::MM_RS_MMF_UNSTABLE) {
            return Err(bindings::MM_RS_VM_FAULT_SIGBUS);
        }
        Ok(())
    }
}

impl Deref for MmWithUser {
    type Target = Mm;

    #[inline]
    fn deref(&self) -> &Mm {
        &self.mm
    }
}
