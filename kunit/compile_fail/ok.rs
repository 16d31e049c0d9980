// SPDX-License-Identifier: GPL-2.0
// expect: ok
//! The intended use of every API the misuses below abuse: must compile.

use core::ptr::NonNull;
use kernel::bindings;
use kernel::mm::{
    fault::{FaultOutcome, LockRefused, VmFault},
    folio::{Gfp, NewAnonFolio, NewFolio},
    order::OrderSet,
    pgtable::{AnonFolioPte, Refused},
    pmd::{DetachedPteTable, DetachedSlot, MmuGather, PmdRef, PteLockHeld},
};

pub fn install<'a>(mut vmf: VmFault<'a>, folio: NewAnonFolio<'a>) -> FaultOutcome<'a> {
    let Ok(folio) = AnonFolioPte::new(&vmf, folio) else {
        return vmf.sigbus();
    };
    match map(&mut vmf, folio) {
        Ok(()) | Err(None) | Err(Some(Refused::Changed)) => vmf.done(),
        Err(Some(Refused::UserfaultMissing(proof))) => vmf.handle_userfault_missing(proof),
        Err(Some(_)) => vmf.sigbus(),
    }
}

fn map<'a>(vmf: &mut VmFault<'a>, folio: AnonFolioPte<'a>) -> Result<(), Option<Refused<'a>>> {
    let mut pte = vmf.lock_pte_block(folio.order()).map_err(|why| match why {
        LockRefused::PmdChanged => None,
        LockRefused::Unsuitable => Some(Refused::Unsuitable),
    })?;
    match pte.vacant_folio(folio) {
        Ok(vacant) => {
            vacant.install();
            Ok(())
        }
        Err((why, _folio)) => {
            if why == Refused::Changed {
                pte.update_mmu_tlb();
            }
            Err(Some(why))
        }
    }
}

pub fn anonymous_page(
    mut vmf: VmFault<'_>,
    folio: impl FnOnce(&mut VmFault<'_>),
) -> FaultOutcome<'_> {
    if !vmf.pte_alloc() {
        return vmf.oom();
    }
    if !vmf.is_write() && !vmf.mm_forbids_zeropage() {
        return zero_page(vmf);
    }
    match vmf.anon_prepare() {
        Ok(mut vmf) => {
            folio(&mut vmf);
            vmf.done()
        }
        Err(outcome) => outcome,
    }
}

pub fn zero_page(mut vmf: VmFault<'_>) -> FaultOutcome<'_> {
    if let Ok(mut pte) = vmf.lock_pte_block(0) {
        if let Ok(vacant) = pte.vacant_zero_page() {
            vacant.install();
        }
    }
    vmf.done()
}

pub fn alloc_in_orders<'a>(vmf: &mut VmFault<'a>, gfp: Gfp) -> Option<NewFolio<'a>> {
    let orders = vmf.suitable_orders(OrderSet::range(2, 4));
    let order = orders.orders().highest()?;
    NewFolio::vma_alloc_order(gfp, orders, order, vmf)
}

pub fn charge<'a>(vmf: &mut VmFault<'a>, gfp: Gfp) -> Option<NewAnonFolio<'a>> {
    let folio = NewFolio::vma_alloc(gfp, 0, vmf)?;
    let folio = folio.mem_cgroup_charge(vmf, gfp).ok()?;
    folio.throttle_swaprate(vmf, gfp);
    Some(folio.zero_user(vmf))
}

/// # Safety
///
/// `vmf` must be a fault being handled, as `VmFault::handle` requires.
pub unsafe fn entry(vmf: NonNull<bindings::vm_fault>, gfp: Gfp) -> bindings::vm_fault_t {
    // SAFETY: Guaranteed by the caller.
    let folio = unsafe { VmFault::with(vmf, |vmf| charge(vmf, gfp).map(|f| f.into_raw())) };
    // SAFETY: Guaranteed by the caller; the folio was made for this fault just above.
    unsafe {
        VmFault::handle(vmf, |vmf| {
            match folio
                .and_then(NonNull::new)
                .and_then(|f| NewAnonFolio::from_raw(&vmf, f))
            {
                Some(folio) => install(vmf, folio),
                None => zero_page(vmf),
            }
        })
    }
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

pub fn fast_path<'a>(held: PteLockHeld<'a>, slot: &mut DetachedSlot<'_, 'a>) {
    if let Some(table) = held.detach_if_empty() {
        let _ = slot.put(table);
    }
}

pub fn after_unlock<'a>(slot: &mut DetachedSlot<'_, 'a>) -> Option<DetachedPteTable<'a>> {
    slot.take()
}

/// The intended use of the page-table range walk: stop at each KSM page and unshare it.
pub mod walk_ok {
    use core::ops::ControlFlow;
    use kernel::mm::{
        virt::{MmapLockedVma, MmapWriteLockedVma},
        walk::{MaySleep, PteEntry, PteVisitor, RangeWalk, Stopped},
    };

    struct FindKsm;

    impl PteVisitor for FindKsm {
        type Break = ();

        fn pte_entry(&mut self, entry: PteEntry<'_>) -> ControlFlow<()> {
            match entry.normal_folio().or(entry.migration_folio()) {
                Some(folio) if folio.test_ksm() && !folio.test_large() => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }

    pub fn unshare_ksm(vma: &MmapLockedVma, may_sleep: &mut MaySleep) {
        let Some(mut walk) = RangeWalk::new(vma, may_sleep, vma.start(), vma.end()) else {
            return;
        };
        while let ControlFlow::Break(((), Stopped::Entry(mut at))) = walk.walk(&mut FindKsm) {
            if at.unshare_fault() != 0 {
                at.skip_page();
            }
        }
    }

    /// The VMA write-locked between walks, with the walk's `MaySleep`.
    pub fn unshare_ksm_write_locked(vma: &MmapWriteLockedVma, may_sleep: &mut MaySleep) {
        let Some(mut walk) = RangeWalk::new(vma, may_sleep, vma.start(), vma.end()) else {
            return;
        };
        vma.start_write(walk.may_sleep());
        while let ControlFlow::Break(((), Stopped::Entry(mut at))) = walk.walk(&mut FindKsm) {
            if at.unshare_fault() != 0 {
                at.skip_page();
            }
        }
    }
}
