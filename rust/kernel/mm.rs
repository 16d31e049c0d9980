// SPDX-License-Identifier: GPL-2.0

//! Memory management, as seen by the mm-rs policy code.
//!
//! These are the narrow views that the Rust memory-management decisions in `mm/mm_rs/` need of
//! C's mm structures: an address space ([`Mm`], [`MmWithUser`]), a VMA under the mmap or VMA
//! read lock ([`virt::VmaRef`]), a page fault ([`fault::VmFault`]), PTE tables and their locks
//! ([`pgtable`]), the PMD entry above a PTE table and detaching the table ([`pmd`]), new folios
//! on their way into a fault ([`folio`]), the transparent-hugepage knobs ([`thp`]), VM event
//! counters, a set of folio orders ([`order::OrderSet`]) and page-table range walks (`walk`).
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
use core::{marker::PhantomData, ops::Deref};

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
#[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
pub mod walk;

/// The NUMA node of the CPU the caller runs on (`numa_node_id()`); 0 without NUMA. The caller
/// may be migrated right after, so it is a hint, as for an allocation's preferred node.
#[inline]
pub fn numa_node_id() -> usize {
    // SAFETY: The helper reads the CPU's node (`raw_cpu_read()`); it has no requirement.
    let nid = unsafe { bindings::mm_rs_numa_node_id() };
    usize::try_from(nid).unwrap_or(0)
}

/// Zero-sized marker of a type that must stay on the thread that made it (neither `Send` nor
/// `Sync`), as mainline's `kernel::types::NotThreadSafe` (which 6.12 does not have): the lock
/// guards, since a spinlock is released by the task that took it (and a PTE table mapped with
/// `kmap_local()` unmapped by it), and the views of C state that one thread uses. Named, so that
/// a guard is `!Send` on purpose rather than by accident of a raw pointer among its fields.
pub type NotThreadSafe = PhantomData<*mut ()>;

/// The value of [`NotThreadSafe`].
#[expect(non_upper_case_globals)]
pub const NotThreadSafe: NotThreadSafe = PhantomData;

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

// SAFETY: An `mm_struct` may be used from any thread. The methods below read `mm->flags` with an
// atomic load (C changes it only with atomic bit operations once the mm is live) and otherwise
// only pass the pointer to C.
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

    /// Whether the mm still has users (`mm_users` is not zero): once it has none,
    /// `exit_mmap()` may be tearing it down, and KSM backs out (`ksm_test_exit()`).
    #[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
    #[inline]
    pub fn has_users(&self) -> bool {
        // SAFETY: The mm is valid by the type invariants; the helper reads `mm_users` with
        // `atomic_read()`.
        unsafe { !bindings::mm_rs_mm_users_zero(self.as_raw()) }
    }

    /// Whether `bit` of `mm->flags` is set (`test_bit()`), read with a relaxed atomic load.
    #[inline]
    fn test_flag(&self, bit: u32) -> bool {
        // SAFETY: The mm is valid by the type invariants; only the field's address is taken.
        let flags = unsafe { core::ptr::addr_of_mut!((*self.as_raw()).__bindgen_anon_1.flags) };
        // SAFETY: `flags` is an aligned `unsigned long` of the valid mm, live while `&self` is.
        // Once the mm is visible to other threads, C changes it only with atomic bit operations
        // (`set_bit()`, `clear_bit()`, `test_and_set_bit()`) and reads it with plain loads, so
        // there is no non-atomic write for this atomic load to race with; the plain stores of
        // `mm_init()` happen before the mm is published.
        let flags = unsafe { core::sync::atomic::AtomicUsize::from_ptr(flags.cast()) };
        flags.load(core::sync::atomic::Ordering::Relaxed) & (1 << bit) != 0
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
