// SPDX-License-Identifier: GPL-2.0
// expect: E0451
//! Imprecise (make lint must fail it): besides the private field it is about, it also fails
//! for a missing field, so it proves nothing about privacy.

use core::marker::PhantomData;
use kernel::mm::fault::FaultOutcome;

pub fn f<'a>() -> FaultOutcome<'a> {
    let x: u32 = "not a number";
    FaultOutcome {
        ret: x,
        _fault: PhantomData,
    }
}
