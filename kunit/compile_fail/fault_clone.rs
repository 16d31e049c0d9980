// SPDX-License-Identifier: GPL-2.0
// expect: E0277
//! Duplicating the fault to keep a copy past the hand-off: `VmFault` is not `Clone`.

use kernel::mm::fault::{FaultOutcome, VmFault};

pub fn f(vmf: VmFault<'_>) -> FaultOutcome<'_> {
    let copy = <VmFault<'_> as Clone>::clone(&vmf);
    let _ = vmf.sigbus();
    copy.done()
}
