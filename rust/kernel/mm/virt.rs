// SPDX-License-Identifier: GPL-2.0

//! Virtual memory areas.
//!
//! [`VmaRef`] is a `struct vm_area_struct` whose caller holds the mmap read lock or the VMA read
//! lock, which is the state a page fault handler is in. It only reads: the fields it exposes are
//! stable under either lock.
//!
//! C header: [`include/linux/mm_types.h`](srctree/include/linux/mm_types.h)

#[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
use super::walk::MaySleep;
use super::MmWithUser;
use crate::{bindings, ffi::c_ulong, types::Opaque};

pub use bindings::vm_flags_t;

/// VMA flags, as C's `VM_*` constants.
pub mod flags {
    use super::{bindings, vm_flags_t};

    /// Writable mapping.
    pub const WRITE: vm_flags_t = bindings::VM_WRITE as vm_flags_t;
    /// Shared mapping.
    pub const SHARED: vm_flags_t = bindings::VM_SHARED as vm_flags_t;
    /// `MADV_HUGEPAGE` was given for this range.
    pub const HUGEPAGE: vm_flags_t = bindings::MM_RS_VM_HUGEPAGE;
    /// `MADV_NOHUGEPAGE` was given for this range.
    pub const NOHUGEPAGE: vm_flags_t = bindings::MM_RS_VM_NOHUGEPAGE;
    /// Any of the userfaultfd registration modes (`__VM_UFFD_FLAGS`); 0 without userfaultfd.
    pub const UFFD_ANY: vm_flags_t = bindings::MM_RS_VM_UFFD_FLAGS;
    /// Userfaultfd registered in missing mode; 0 without userfaultfd.
    pub const UFFD_MISSING: vm_flags_t = bindings::MM_RS_VM_UFFD_MISSING;
    /// Userfaultfd registered in write-protect mode; 0 without it.
    pub const UFFD_WP: vm_flags_t = bindings::MM_RS_VM_UFFD_WP;
    /// A hugetlbfs mapping (`is_vm_hugetlb_page()`).
    pub const HUGETLB: vm_flags_t = bindings::VM_HUGETLB as vm_flags_t;
}

/// A VMA that the caller may read.
///
/// # Invariants
///
/// This is a VMA of a user address space (in the VMA tree of an mm with a non-zero
/// `mm_users`), and the caller holds the mmap read lock or the VMA read lock of it for as long
/// as the reference exists, so the VMA is alive and its bounds, flags, `vm_mm`, `vm_ops` and
/// `vm_file` do not change.
#[repr(transparent)]
pub struct VmaRef {
    vma: Opaque<bindings::vm_area_struct>,
}

impl VmaRef {
    /// Access a VMA given a pointer to it.
    ///
    /// # Safety
    ///
    /// `vma` must be a valid VMA of a user address space (its `vm_mm` set, with users), and the
    /// caller must hold the mmap read lock or the VMA read lock of it for the lifetime `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(vma: *const bindings::vm_area_struct) -> &'a Self {
        // SAFETY: The caller ensures that the invariants are satisfied for the duration of 'a.
        // CAST: `VmaRef` is a transparent wrapper of `vm_area_struct`.
        unsafe { &*vma.cast() }
    }

    /// Returns a raw pointer to this VMA.
    #[inline]
    pub fn as_ptr(&self) -> *mut bindings::vm_area_struct {
        self.vma.get()
    }

    /// The VMA's flags.
    #[inline]
    pub fn flags(&self) -> vm_flags_t {
        // SAFETY: By the type invariants, the caller holds a lock that keeps the flags stable.
        unsafe { (*self.as_ptr()).__bindgen_anon_2.vm_flags }
    }

    /// The first address of the VMA.
    #[inline]
    pub fn start(&self) -> usize {
        // SAFETY: By the type invariants, the caller holds a lock that keeps the bounds stable.
        unsafe { (*self.as_ptr()).__bindgen_anon_1.__bindgen_anon_1.vm_start }
    }

    /// The address one past the VMA's last byte.
    #[inline]
    pub fn end(&self) -> usize {
        // SAFETY: By the type invariants, the caller holds a lock that keeps the bounds stable.
        unsafe { (*self.as_ptr()).__bindgen_anon_1.__bindgen_anon_1.vm_end }
    }

    /// The VMA's offset in its file, in pages (`vm_pgoff`).
    #[inline]
    pub fn pgoff(&self) -> c_ulong {
        // SAFETY: By the type invariants, the caller holds a lock that keeps `vm_pgoff` stable.
        unsafe { (*self.as_ptr()).vm_pgoff }
    }

    /// Whether this is an anonymous VMA (no `vm_ops`), as C's `vma_is_anonymous()`.
    #[inline]
    pub fn is_anonymous(&self) -> bool {
        // SAFETY: By the type invariants, the caller holds a lock that keeps `vm_ops` stable.
        unsafe { (*self.as_ptr()).vm_ops.is_null() }
    }

    /// Whether the VMA has an `anon_vma` yet.
    ///
    /// The answer can go from `false` to `true` under the caller's feet (`anon_vma_prepare()`
    /// does not need the mmap write lock), never the other way.
    #[inline]
    pub fn has_anon_vma(&self) -> bool {
        // SAFETY: The VMA is valid by the type invariants. A racy read of a pointer that only
        // goes from NULL to non-NULL is what C does here too.
        unsafe {
            !core::ptr::read_volatile(core::ptr::addr_of!((*self.as_ptr()).anon_vma)).is_null()
        }
    }

    /// The mm this VMA belongs to, as mainline's `VmaRef::mm()`.
    #[inline]
    pub fn mm(&self) -> &MmWithUser {
        // SAFETY: By the type invariants this is a VMA of a user address space, read-locked, so
        // `vm_mm` is set, does not change, and has a non-zero `mm_users` while the VMA is in its
        // tree; the VMA outlives `&self`.
        unsafe { MmWithUser::from_raw((*self.as_ptr()).vm_mm) }
    }

    /// Whether this is a stack VMA whose setup by `execve()` has not finished, as C's
    /// `vma_is_temporary_stack()`.
    #[inline]
    pub fn is_temporary_stack(&self) -> bool {
        // SAFETY: The VMA is valid and locked by the type invariants.
        unsafe { bindings::mm_rs_vma_is_temporary_stack(self.as_ptr()) }
    }

    /// Whether the VMA maps a DAX file, as C's `vma_is_dax()`.
    #[inline]
    pub fn is_dax(&self) -> bool {
        // SAFETY: The VMA is valid and locked by the type invariants.
        unsafe { bindings::mm_rs_vma_is_dax(self.as_ptr()) }
    }
}

#[cfg(CONFIG_MM_RS_ANON_ORDER)]
impl VmaRef {
    /// The words of `vm_area_struct` that hold the mm-rs anonymous-order hint.
    ///
    /// What the accesses to them rely on. Rust reads and writes them only here, with relaxed
    /// atomic loads and stores (C's `READ_ONCE()` and `WRITE_ONCE()`), from the faults of the
    /// VMA, under its mmap or VMA read lock. C touches them in one place: `vm_area_dup()` copies
    /// the whole VMA with a plain `memcpy()`, marked `data_race()`, when a VMA is split, merged
    /// into a copy, moved or forked. That copy is *not* always excluded from our stores:
    /// `__split_vma()` duplicates the VMA before `vma_start_write()`, so a fault holding only
    /// the per-VMA read lock may store a word while `memcpy()` reads it. Under the kernel's
    /// memory model that is the same tolerated race `vm_area_dup()` already has on other
    /// fields. `memcpy()` promises nothing about how it reads a racing word (it may read it
    /// in pieces), so the copy may hold any value in those words. No Rust reference to the
    /// words outlives the call, and the value is only ever a hint: whatever a copy or a race
    /// leaves there, the fault checks the order it leads to against the VMA and the page table
    /// before anything is mapped, so any value is safe.
    #[inline]
    fn anon_order_hint_words(&self) -> [&core::sync::atomic::AtomicUsize; 2] {
        // SAFETY: The VMA is valid while `&self` is (type invariants); its `mm_rs_anon_order`
        // words are aligned `unsigned long`s, accessed atomically by Rust (see above); the only
        // non-atomic access is C's `data_race(memcpy())` read in `vm_area_dup()`, a read that
        // may race with a store here, which the kernel tolerates as described above.
        let w = unsafe { core::ptr::addr_of_mut!((*self.as_ptr()).mm_rs_anon_order) };
        let w = w.cast::<usize>();
        // SAFETY: As above; `w` points to two `usize`s.
        unsafe {
            [
                core::sync::atomic::AtomicUsize::from_ptr(w),
                core::sync::atomic::AtomicUsize::from_ptr(w.add(1)),
            ]
        }
    }

    /// The VMA's mm-rs anonymous-order hint (`vma->mm_rs_anon_order`), zero in a new VMA.
    ///
    /// The faults of the VMA read and write it without a lock, as readahead does its
    /// `file_ra_state`: the two words may come from two writers. Nothing relies on its value
    /// but the choice of an order, which is checked against the VMA and the page table before
    /// anything is mapped.
    #[inline]
    pub fn anon_order_hint(&self) -> [usize; 2] {
        use core::sync::atomic::Ordering::Relaxed;
        let [a, b] = self.anon_order_hint_words();
        [a.load(Relaxed), b.load(Relaxed)]
    }

    /// Sets the VMA's mm-rs anonymous-order hint; see [`Self::anon_order_hint`].
    #[inline]
    pub fn set_anon_order_hint(&self, hint: [usize; 2]) {
        use core::sync::atomic::Ordering::Relaxed;
        let [a, b] = self.anon_order_hint_words();
        a.store(hint[0], Relaxed);
        b.store(hint[1], Relaxed);
    }
}

impl VmaRef {
    /// Whether userfaultfd is registered for missing faults (`userfaultfd_missing()`).
    #[inline]
    pub fn userfaultfd_missing(&self) -> bool {
        self.flags() & flags::UFFD_MISSING != 0
    }

    /// Whether userfaultfd is registered for write protection (`userfaultfd_wp()`).
    #[inline]
    pub fn userfaultfd_wp(&self) -> bool {
        self.flags() & flags::UFFD_WP != 0
    }
}

/// A VMA whose mm's mmap lock the caller holds, for reading or writing: what a page-table range
/// walk ([`super::walk::RangeWalk`]) and a fault made for another process need.
///
/// Unlike [`VmaRef`], it does not promise users of the mm: KSM's `ksmd` walks an mm it only
/// `mmgrab()`ed, whose `mm_users` may drop to zero while it holds the mmap read lock, so the mm
/// is only an [`Mm`](super::Mm). What it does promise is that `exit_mmap()` cannot start while
/// the lock is held: the holder has a reference on `mm_users`, or it is `ksmd` on its current
/// scan slot, for which `mmput()` runs `__ksm_exit()` before `exit_mmap()`, and `__ksm_exit()`
/// takes and drops the mmap write lock, so waits for `ksmd`'s read lock (6.12's
/// `mm/ksm.c`). Without that, `exit_mmap()`'s `unmap_vmas()`, which runs under the mmap *read*
/// lock, could zap the range under a walk or a fault.
///
/// Hugetlb VMAs are not such VMAs: their PMD tables may be shared between mms and taken away
/// by `huge_pmd_unshare()` under `i_mmap_rwsem` and the hugetlb VMA lock, without this mm's
/// mmap lock, and their entries (arm64's `CONT_PTE` hugetlb entries among them) are under
/// `mm->page_table_lock`, not the split PTE locks a walk takes. C's walker sends them to
/// `walk_hugetlb_range()`; here they are refused.
///
/// # Invariants
///
/// This is a valid VMA in the VMA tree of its mm, not a hugetlb VMA (`VM_HUGETLB` clear), and
/// the caller holds the mmap lock of that mm, for reading or writing, for as long as the
/// reference exists, with `exit_mmap()` of the mm unable to start meanwhile (see above): the
/// VMA is alive, its bounds, flags and `vm_mm` do not change, its page tables are not zapped or
/// freed by the mm's exit, and the page tables above its PTE tables (PGD to PMD tables) stay
/// allocated.
#[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
#[repr(transparent)]
pub struct MmapLockedVma {
    vma: Opaque<bindings::vm_area_struct>,
}

#[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
impl MmapLockedVma {
    /// Access a VMA given a pointer to it; [`None`] for a hugetlb VMA.
    ///
    /// # Safety
    ///
    /// `vma` must be a valid VMA in the VMA tree of its mm, and the caller must hold the mmap lock
    /// of that mm (read or write) for the lifetime `'a`, and either hold a reference on the mm's
    /// `mm_users` or be `ksmd` on the mm of its current scan slot, so that `exit_mmap()` cannot
    /// start during `'a` (see the type's documentation).
    #[inline]
    pub unsafe fn from_raw<'a>(vma: *const bindings::vm_area_struct) -> Option<&'a Self> {
        // SAFETY: `vma` is valid and its flags are stable under the mmap lock (the caller).
        let flags = unsafe { (*vma).__bindgen_anon_2.vm_flags };
        if flags & flags::HUGETLB != 0 {
            return None;
        }
        // SAFETY: The caller ensures the invariants for 'a, but `VM_HUGETLB`, checked above
        // (flags do not change under the mmap lock).
        // CAST: `MmapLockedVma` is a transparent wrapper of `vm_area_struct`.
        Some(unsafe { &*vma.cast() })
    }

    /// Returns a raw pointer to this VMA.
    #[inline]
    pub fn as_ptr(&self) -> *mut bindings::vm_area_struct {
        self.vma.get()
    }

    /// The first address of the VMA.
    #[inline]
    pub fn start(&self) -> usize {
        // SAFETY: By the type invariants, the mmap lock keeps the bounds stable.
        unsafe { (*self.as_ptr()).__bindgen_anon_1.__bindgen_anon_1.vm_start }
    }

    /// The address one past the VMA's last byte.
    #[inline]
    pub fn end(&self) -> usize {
        // SAFETY: By the type invariants, the mmap lock keeps the bounds stable.
        unsafe { (*self.as_ptr()).__bindgen_anon_1.__bindgen_anon_1.vm_end }
    }

    /// The mm this VMA belongs to; it may have no users left (see the type's documentation).
    #[inline]
    pub fn mm(&self) -> &super::Mm {
        // SAFETY: `vm_mm` of a VMA in its mm's tree is set and does not change; the mm outlives
        // its VMAs, and the VMA outlives `&self` (type invariants).
        unsafe { super::Mm::from_raw((*self.as_ptr()).vm_mm) }
    }
}

/// A VMA whose mm's mmap lock the caller holds for writing.
///
/// # Invariants
///
/// As [`MmapLockedVma`], with the mmap lock held for writing.
#[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
#[repr(transparent)]
pub struct MmapWriteLockedVma {
    vma: MmapLockedVma,
}

#[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
impl MmapWriteLockedVma {
    /// Access a VMA given a pointer to it; [`None`] for a hugetlb VMA.
    ///
    /// # Safety
    ///
    /// As for [`MmapLockedVma::from_raw`], with the mmap lock held for writing for `'a`.
    #[inline]
    pub unsafe fn from_raw<'a>(vma: *const bindings::vm_area_struct) -> Option<&'a Self> {
        // SAFETY: As the caller's, and the lock is held for writing.
        let locked = unsafe { MmapLockedVma::from_raw(vma) }?;
        // SAFETY: The caller ensures the invariants for 'a (the VMA is no hugetlb VMA, checked by
        // `MmapLockedVma::from_raw()`).
        // CAST: A transparent wrapper of `MmapLockedVma`, itself of `vm_area_struct`.
        Some(unsafe { &*core::ptr::from_ref(locked).cast() })
    }

    /// Write-locks the VMA against page faults under the per-VMA lock (`vma_start_write()`),
    /// until the mmap write lock is released; waits for the faults under it to finish, so it
    /// sleeps (a `down_write()` of the VMA lock).
    ///
    /// It takes the task's [`MaySleep`] for the call: a [`RangeWalk`](super::walk::RangeWalk)
    /// borrows it for its whole life, so a walk's visitor, which runs under a PTE spinlock,
    /// cannot call this (a per-VMA-lock fault holding the VMA's read lock and spinning on that
    /// PTE lock would deadlock with it).
    #[inline]
    pub fn start_write(&self, _may_sleep: &mut MaySleep) {
        // SAFETY: The VMA is valid and its mm's mmap lock is held for writing (type invariants),
        // which is what `vma_start_write()` requires; the task may sleep (`MaySleep`).
        unsafe { bindings::mm_rs_vma_start_write(self.as_ptr()) }
    }
}

#[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
impl core::ops::Deref for MmapWriteLockedVma {
    type Target = MmapLockedVma;

    #[inline]
    fn deref(&self) -> &MmapLockedVma {
        &self.vma
    }
}
