// SPDX-License-Identifier: GPL-2.0

//! Installing what an anonymous fault maps: `do_anonymous_page()` from the point where it has a
//! folio (or decided on the zero page) to the return.
//!
//! A whole large folio is mapped by one fault, with one `set_ptes()` for all its pages. The
//! entries are checked free under the PTE lock first: another thread may have mapped some of them
//! since the lockless check that chose the order. If it did, the fault backs out and releases the
//! folio; the faulting access is then retried and finds the other thread's mapping.
//!
//! Lock order, as in C: the mmap or VMA read lock (held by the caller), then the PTE lock.

use kernel::bindings;
use kernel::mm::{
    fault::{VmFault, VmFaultResult},
    folio::Folio,
    order::align_down,
    pgtable::Pte,
    virt::flags,
};

#[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
use kernel::mm::thp::{count_mthp_stat, MthpStat};

/// The entry bits for a new anonymous mapping, as C's `do_anonymous_page()` chooses them:
/// young, writable and dirty in a writable VMA, and uffd-wp if the fault replaces a uffd-wp
/// marker.
fn anon_pte_bits(pte: Pte, vmf: &VmFault, uffd_wp: bool) -> Pte {
    let vma = vmf.vma();
    let mut pte = pte.sw_mkyoung();
    if vma.flags() & flags::WRITE != 0 {
        pte = pte.mkwrite_dirty(vma);
    }
    if uffd_wp {
        pte = pte.mkuffd_wp();
    }
    pte
}

/// Maps `folio` for the anonymous write fault `vmf`, as C's `do_anonymous_page()` after
/// `alloc_anon_folio()`.
pub(crate) fn anon_folio_install(vmf: &VmFault, folio: Folio) -> VmFaultResult {
    let vma = vmf.vma();
    let Some(mm) = vma.mm() else {
        return bindings::MM_RS_VM_FAULT_SIGBUS;
    };
    let nr = folio.nr_pages();
    let order = folio.order();
    // The folio is naturally aligned around the fault; its order came from a check that the
    // block fits in the VMA.
    let Some(addr) = align_down(vmf.address(), order) else {
        return 0;
    };

    // Its write barrier orders the zeroing before the entries become visible.
    folio.mark_uptodate();

    let Some(mut ptl) = vmf.lock_pte_table(addr) else {
        // The page table changed under us: release the folio and retry.
        return 0;
    };
    let vacant = if nr == 1 {
        ptl.vacant_single(vmf.orig_pte())
    } else {
        ptl.vacant_range(nr)
    };
    let Some(vacant) = vacant else {
        // Another thread mapped something here first. Nothing was changed; the folio is
        // released (dropped after the guard) and the access retried.
        if nr == 1 {
            ptl.update_mmu_tlb();
        } else {
            ptl.update_mmu_tlb_range(nr);
        }
        return 0;
    };

    if let Err(ret) = mm.check_stable_address_space() {
        return ret;
    }
    if vma.userfaultfd_missing() {
        // Deliver the fault to user space; checked under the PTE lock, handled without it.
        drop(ptl);
        drop(folio);
        return vmf.handle_userfault_missing();
    }

    let uffd_wp = vmf.orig_pte_uffd_wp();
    let folio = folio.into_mapping();
    mm.add_anon_pages(nr);
    #[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
    count_mthp_stat(order, MthpStat::AnonFaultAlloc);
    let folio = folio.add_new_anon_rmap(vma, addr);
    folio.add_lru_vma(vma);
    match vacant.map_folio(vmf, folio, |pte| anon_pte_bits(pte, vmf, uffd_wp)) {
        Ok(()) => 0,
        // Cannot happen: the entries checked were the folio's. The folio is put on return.
        Err(_folio) => bindings::MM_RS_VM_FAULT_SIGBUS,
    }
}

/// Maps the shared zero page for the anonymous read fault `vmf`, as C's
/// `do_anonymous_page()` does for reads.
pub(crate) fn anon_zero_page_install(vmf: &VmFault) -> VmFaultResult {
    let vma = vmf.vma();
    let Some(mm) = vma.mm() else {
        return bindings::MM_RS_VM_FAULT_SIGBUS;
    };
    let Some(mut ptl) = vmf.lock_pte_table(vmf.address()) else {
        return 0;
    };
    let Some(vacant) = ptl.vacant_single(vmf.orig_pte()) else {
        ptl.update_mmu_tlb();
        return 0;
    };
    if let Err(ret) = mm.check_stable_address_space() {
        return ret;
    }
    if vma.userfaultfd_missing() {
        drop(ptl);
        return vmf.handle_userfault_missing();
    }
    let uffd_wp = vmf.orig_pte_uffd_wp();
    vacant.map_zero_page(vmf, |pte| if uffd_wp { pte.mkuffd_wp() } else { pte });
    0
}

/// C entry for [`anon_folio_install`]; consumes the caller's reference to `folio`.
///
/// # Safety
///
/// `vmf` must be an anonymous write fault being handled in `do_anonymous_page()` after
/// `vmf_anon_prepare()`, with its PTE table allocated; `folio` must be the new, charged, zeroed
/// folio `alloc_anon_folio()` returned for it, whose one reference the caller gives up.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_folio_install(
    vmf: *mut bindings::vm_fault,
    folio: *mut bindings::folio,
) -> bindings::vm_fault_t {
    // SAFETY: Guaranteed by the caller: the reference passes to the `Folio`.
    let Some(folio) = (unsafe { Folio::from_raw(folio) }) else {
        return bindings::MM_RS_VM_FAULT_OOM;
    };
    // SAFETY: Guaranteed by the caller.
    let vmf = unsafe { VmFault::from_raw(vmf) };
    anon_folio_install(vmf, folio)
}

/// C entry for [`anon_zero_page_install`].
///
/// # Safety
///
/// `vmf` must be an anonymous read fault being handled in `do_anonymous_page()`, with its PTE
/// table allocated.
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_zero_page_install(
    vmf: *mut bindings::vm_fault,
) -> bindings::vm_fault_t {
    // SAFETY: Guaranteed by the caller.
    let vmf = unsafe { VmFault::from_raw(vmf) };
    anon_zero_page_install(vmf)
}

export_check!(mm_rs_anon_folio_install, mm_rs_anon_zero_page_install);
