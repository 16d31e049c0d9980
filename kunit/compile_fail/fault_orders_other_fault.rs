// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough
//! Allocating for one fault in the orders checked against another (whose VMA and address may
//! be anywhere else): the set carries the lifetime of the fault it was checked against.

use kernel::mm::{
    fault::{FaultOrders, VmFault},
    folio::NewFolio,
};

pub fn f<'a, 'b>(vmf: &mut VmFault<'a>, orders: FaultOrders<'b>) -> bool {
    NewFolio::vma_alloc_order(0, orders, 4, vmf).is_some()
}
