// SPDX-License-Identifier: GPL-2.0
// expect: E0599
//! Duplicating the fault to keep a copy past the hand-off: `VmFault` is not `Clone`.

use kernel::mm::fault::{FaultOutcome, VmFault};

pub fn f(vmf: VmFault<'_>) -> FaultOutcome<'_> {
    let copy = vmf.clone();
    let _ = vmf.handle_userfault_missing();
    copy.done()
}
