// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Using the fault after `vmf_anon_prepare()` returned VM_FAULT_RETRY (it dropped the VMA lock
//! to take the mmap lock): preparing consumes the fault and gives it back only on success.

use kernel::mm::fault::{FaultOutcome, VmFault};

pub fn f(vmf: VmFault<'_>) -> FaultOutcome<'_> {
    if let Err(retry) = vmf.anon_prepare() {
        let _ = retry;
    }
    vmf.done()
}
