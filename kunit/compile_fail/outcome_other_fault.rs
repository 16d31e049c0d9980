// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough|E0308|E0521
//! Ending one fault with another fault's outcome (after userfaultfd took the first one's lock):
//! an outcome carries the lifetime of the fault it ended.

use kernel::mm::fault::{FaultOutcome, VmFault};

pub fn f<'a, 'b>(vmf: VmFault<'a>, other: VmFault<'b>) -> FaultOutcome<'a> {
    let _ = vmf.handle_userfault_missing();
    other.done()
}
