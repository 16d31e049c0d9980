// SPDX-License-Identifier: GPL-2.0
// expect: E0451
//! Claiming an outcome that did not happen (review: returning VM_FAULT_RETRY, which tells C the
//! fault's lock is gone, or 0 after userfaultfd dropped it): outcomes come from the fault only.

use core::marker::PhantomData;
use kernel::mm::fault::FaultOutcome;

pub fn f<'a>() -> FaultOutcome<'a> {
    FaultOutcome {
        ret: 0x400,
        _fault: PhantomData,
    }
}
