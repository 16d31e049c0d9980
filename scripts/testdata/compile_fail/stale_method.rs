// SPDX-License-Identifier: GPL-2.0
// expect: E0599
//! Stale (make lint must fail it): the method it calls does not exist, so it would pass just
//! the same if the hole it is about came back under another name.

use kernel::mm::fault::VmFault;

pub fn f(vmf: &VmFault<'_>, addr: usize) -> bool {
    vmf.lock_pte_table_at(addr).is_some()
}
