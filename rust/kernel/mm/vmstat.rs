// SPDX-License-Identifier: GPL-2.0

//! VM event counters (`/proc/vmstat`).
//!
//! C header: [`include/linux/vm_event_item.h`](srctree/include/linux/vm_event_item.h)

use crate::bindings;

/// The VM events the Rust mm code counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VmEvent {
    /// `pt_reclaim_fast`: an empty PTE table was freed while its lock was still held.
    #[cfg(CONFIG_MM_RS_PT_RECLAIM)]
    PtReclaimFast,
    /// `pt_reclaim_slow`: an empty PTE table was freed after a recheck under both locks.
    #[cfg(CONFIG_MM_RS_PT_RECLAIM)]
    PtReclaimSlow,
    /// `pt_reclaim_kept`: a zap covered a whole PTE table but left live entries in it.
    #[cfg(CONFIG_MM_RS_PT_RECLAIM)]
    PtReclaimKept,
    /// `mm_rs_anon_auto_probe`: the auto order policy mapped a page alone to learn the VMA's
    /// density.
    #[cfg(CONFIG_MM_RS_ANON_ORDER)]
    AnonAutoProbe,
    /// `mm_rs_anon_auto_grow`: a fault continued the last folio; the order went up a step.
    #[cfg(CONFIG_MM_RS_ANON_ORDER)]
    AnonAutoGrow,
    /// `mm_rs_anon_auto_dense`: a probe's neighbour was touched next; the order went to the
    /// largest.
    #[cfg(CONFIG_MM_RS_ANON_ORDER)]
    AnonAutoDense,
    /// `mm_rs_anon_auto_sparse`: a probe's neighbours were skipped; the order went to 0.
    #[cfg(CONFIG_MM_RS_ANON_ORDER)]
    AnonAutoSparse,
}

impl VmEvent {
    #[inline]
    fn item(self) -> bindings::vm_event_item {
        match self {
            #[cfg(CONFIG_MM_RS_PT_RECLAIM)]
            Self::PtReclaimFast => bindings::vm_event_item_PT_RECLAIM_FAST,
            #[cfg(CONFIG_MM_RS_PT_RECLAIM)]
            Self::PtReclaimSlow => bindings::vm_event_item_PT_RECLAIM_SLOW,
            #[cfg(CONFIG_MM_RS_PT_RECLAIM)]
            Self::PtReclaimKept => bindings::vm_event_item_PT_RECLAIM_KEPT,
            #[cfg(CONFIG_MM_RS_ANON_ORDER)]
            Self::AnonAutoProbe => bindings::vm_event_item_MM_RS_ANON_AUTO_PROBE,
            #[cfg(CONFIG_MM_RS_ANON_ORDER)]
            Self::AnonAutoGrow => bindings::vm_event_item_MM_RS_ANON_AUTO_GROW,
            #[cfg(CONFIG_MM_RS_ANON_ORDER)]
            Self::AnonAutoDense => bindings::vm_event_item_MM_RS_ANON_AUTO_DENSE,
            #[cfg(CONFIG_MM_RS_ANON_ORDER)]
            Self::AnonAutoSparse => bindings::vm_event_item_MM_RS_ANON_AUTO_SPARSE,
        }
    }
}

/// Counts one `event` on this CPU (`count_vm_event()`); a no-op without
/// `CONFIG_VM_EVENT_COUNTERS`.
#[inline]
pub fn count_vm_event(event: VmEvent) {
    // SAFETY: `item()` is a valid `enum vm_event_item` value; counting is safe in any context.
    unsafe { bindings::mm_rs_count_vm_event(event.item()) };
}
