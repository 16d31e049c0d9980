// SPDX-License-Identifier: GPL-2.0
// expect: ok
//! The intended use of every API the misuses below abuse: must compile.

use kernel::mm::{
    fault::{FaultOutcome, VmFault},
    folio::{Gfp, NewAnonFolio, NewFolio},
    pgtable::{AnonFolioPte, Refused},
    pmd::{DetachedPteTable, MmuGather, PmdRef, PteLockHeld},
};

pub fn install(mut vmf: VmFault<'_>, folio: NewAnonFolio) -> FaultOutcome {
    let Ok(folio) = AnonFolioPte::new(&vmf, folio) else {
        return vmf.sigbus();
    };
    let Some(mut pte) = vmf.lock_pte_block(folio.order()) else {
        drop(folio);
        return vmf.done();
    };
    let why = match pte.vacant_folio(folio) {
        Ok(vacant) => {
            vacant.install();
            drop(pte);
            return vmf.done();
        }
        Err((why, _folio)) => why,
    };
    if why == Refused::Changed {
        pte.update_mmu_tlb();
    }
    drop(pte);
    match why {
        Refused::UserfaultMissing => vmf.handle_userfault_missing(),
        Refused::Changed => vmf.done(),
        _ => vmf.sigbus(),
    }
}

pub fn zero_page(mut vmf: VmFault<'_>) -> FaultOutcome {
    if let Some(mut pte) = vmf.lock_pte_block(0) {
        if let Ok(vacant) = pte.vacant_zero_page() {
            vacant.install();
        }
    }
    vmf.done()
}

pub fn charge(vmf: &mut VmFault<'_>, gfp: Gfp) -> Option<NewAnonFolio> {
    let addr = vmf.address();
    let folio = NewFolio::vma_alloc(gfp, 0, vmf, addr)?;
    let folio = folio.mem_cgroup_charge(vmf, gfp).ok()?;
    folio.throttle_swaprate(vmf, gfp);
    Some(folio.zero_user(vmf, addr))
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

pub fn fast_path(held: PteLockHeld<'_, '_>) -> Option<DetachedPteTable> {
    held.detach_if_empty()
}
