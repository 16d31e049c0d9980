// SPDX-License-Identifier: GPL-2.0
// expect: ok
//! The intended use of every API the misuses below abuse: must compile.

use kernel::mm::{
    fault::VmFault,
    folio::{Gfp, NewAnonFolio, NewFolio},
    pgtable::AnonFolioPte,
    pmd::{MmuGather, PmdRef, PteLockHeld},
};

pub fn install(mut vmf: VmFault<'_>, folio: NewAnonFolio) -> u32 {
    let Ok(folio) = AnonFolioPte::new(&vmf, folio) else {
        return 1;
    };
    let Some(mut pte) = vmf.lock_pte_block(folio.order()) else {
        return 0;
    };
    let vacant = match pte.vacant_folio(folio) {
        Ok(vacant) => vacant,
        Err(_folio) => {
            pte.update_mmu_tlb();
            return 0;
        }
    };
    if vacant.vma().mm().check_stable_address_space().is_err() {
        return 2;
    }
    if vacant.vma().userfaultfd_missing() {
        drop(vacant);
        drop(pte);
        return vmf.handle_userfault_missing();
    }
    vacant.install();
    0
}

pub fn zero_page(mut vmf: VmFault<'_>) {
    if let Some(mut pte) = vmf.lock_pte_block(0) {
        if let Some(vacant) = pte.vacant_zero_page() {
            vacant.install();
        }
    }
}

pub fn charge(vmf: &VmFault<'_>, gfp: Gfp) -> Option<NewAnonFolio> {
    let folio = NewFolio::vma_alloc(gfp, 0, vmf.vma(), vmf.address())?;
    let folio = folio.mem_cgroup_charge(vmf.vma().mm(), gfp).ok()?;
    folio.throttle_swaprate(gfp);
    Some(folio.zero_user(vmf.address()))
}

pub fn slow_path(pmd: &mut PmdRef<'_>, tlb: &mut MmuGather<'_>) -> bool {
    match pmd
        .lock()
        .lock_pte_table()
        .and_then(|pte| pte.detach_if_empty())
    {
        Some(table) => table.free(tlb).is_ok(),
        None => false,
    }
}

pub fn fast_path(
    pmd: &mut PmdRef<'_>,
    held: PteLockHeld<'_>,
) -> Option<kernel::mm::pmd::DetachedPteTable> {
    let pml = pmd.try_lock_under(&held)?;
    pml.detach_if_empty_under(held)
}
