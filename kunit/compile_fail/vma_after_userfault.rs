// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Using the VMA after userfaultfd may have dropped the fault's lock (review: `vmf.vma()` was
//! still callable after VM_FAULT_RETRY).

use kernel::mm::fault::VmFault;

pub fn f(vmf: VmFault<'_>) -> usize {
    let _ret = vmf.handle_userfault_missing();
    vmf.vma().start()
}
