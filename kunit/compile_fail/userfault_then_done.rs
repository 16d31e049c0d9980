// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Dropping userfaultfd's answer and reporting the fault handled instead (review: a double
//! unlock of the VMA lock userfaultfd released): one outcome a fault.

use kernel::mm::{
    fault::{FaultOutcome, VmFault},
    pgtable::UserfaultMissing,
};

pub fn f<'a>(vmf: VmFault<'a>, proof: UserfaultMissing<'a>) -> FaultOutcome<'a> {
    let _ = vmf.handle_userfault_missing(proof);
    vmf.done()
}
