// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough
//! Handing a fault to userfaultfd with the proof found for another fault (whose VMA may be
//! registered while this one's is not): a proof carries its fault's lifetime.

use kernel::mm::{
    fault::{FaultOutcome, VmFault},
    pgtable::UserfaultMissing,
};

pub fn f<'a, 'b>(vmf: VmFault<'a>, other: UserfaultMissing<'b>) -> FaultOutcome<'a> {
    vmf.handle_userfault_missing(other)
}
