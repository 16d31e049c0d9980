// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough
//! Ending one fault with another fault's outcome (after userfaultfd took the first one's lock):
//! an outcome carries the lifetime of the fault it ended.

use kernel::mm::{
    fault::{FaultOutcome, VmFault},
    pgtable::UserfaultMissing,
};

pub fn f<'a, 'b>(
    vmf: VmFault<'a>,
    proof: UserfaultMissing<'a>,
    other: VmFault<'b>,
) -> FaultOutcome<'a> {
    let _ = vmf.handle_userfault_missing(proof);
    other.done()
}
