// SPDX-License-Identifier: GPL-2.0
// expect: E0451
//! Claiming orders nobody checked against the fault (a block outside the VMA, or a PMD order),
//! so that `vma_alloc_order()` allocates a folio whose block the install would map out of the
//! VMA: a `FaultOrders` comes from the fault's own checks only.

use core::marker::PhantomData;
use kernel::mm::{fault::FaultOrders, order::OrderSet};

pub fn f<'a>() -> FaultOrders<'a> {
    FaultOrders {
        orders: OrderSet::from_bits(!0),
        _fault: PhantomData,
    }
}
