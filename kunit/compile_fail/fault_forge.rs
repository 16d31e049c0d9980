// SPDX-License-Identifier: GPL-2.0
// expect: E0451
//! Making a `VmFault` of a chosen lifetime, to keep what it lends past the call (review: the
//! shim picked `'a` freely): its fields are private; faults are only lent, for any lifetime,
//! by `handle` and `with`.

use core::{marker::PhantomData, ptr::NonNull};
use kernel::bindings;
use kernel::mm::fault::VmFault;

pub fn f(vmf: NonNull<bindings::vm_fault>) -> VmFault<'static> {
    VmFault {
        vmf,
        _fault: PhantomData,
    }
}
