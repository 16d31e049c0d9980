// SPDX-License-Identifier: GPL-2.0
// expect: E0451
//! Handing a fault to userfaultfd without having found, under the PTE lock, that its VMA is
//! registered for missing pages (review: 6.12's `handle_userfault()` does not check, so a VMA
//! registered for write protection only would get a missing-page event): the proof cannot be
//! made outside the check.

use core::marker::PhantomData;
use kernel::mm::{
    fault::{FaultOutcome, VmFault},
    pgtable::UserfaultMissing,
};

pub fn f(vmf: VmFault<'_>) -> FaultOutcome<'_> {
    let proof = UserfaultMissing {
        _fault: PhantomData,
    };
    vmf.handle_userfault_missing(proof)
}
