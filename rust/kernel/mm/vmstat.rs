// SPDX-License-Identifier: GPL-2.0

//! VM event counters (`/proc/vmstat`).
//!
//! C header: [`include/linux/vm_event_item.h`](srctree/include/linux/vm_event_item.h)

use crate::bindings;

/// The VM events the Rust mm code counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum VmEvent {
    /// `pt_reclaim_fast`: an empty PTE table was freed while its lock was still held.
    PtReclaimFast,
    /// `pt_reclaim_slow`: an empty PTE table was freed after a recheck under both locks.
    PtReclaimSlow,
    /// `pt_reclaim_kept`: a zap covered a whole PTE table but left live entries in it.
    PtReclaimKept,
}

impl VmEvent {
    fn item(self) -> bindings::vm_event_item {
        match self {
            Self::PtReclaimFast => bindings::vm_event_item_PT_RECLAIM_FAST,
            Self::PtReclaimSlow => bindings::vm_event_item_PT_RECLAIM_SLOW,
            Self::PtReclaimKept => bindings::vm_event_item_PT_RECLAIM_KEPT,
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
