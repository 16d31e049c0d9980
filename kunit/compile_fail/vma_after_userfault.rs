// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Using the VMA after userfaultfd may have dropped the fault's lock (review: `vmf.vma()` was
//! still callable after VM_FAULT_RETRY).

use kernel::mm::{fault::VmFault, pgtable::UserfaultMissing};

pub fn f<'a>(vmf: VmFault<'a>, proof: UserfaultMissing<'a>) -> usize {
    let _ret = vmf.handle_userfault_missing(proof);
    vmf.vma().start()
}
