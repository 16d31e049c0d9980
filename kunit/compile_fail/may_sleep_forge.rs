// SPDX-License-Identifier: GPL-2.0
// expect: E0133
//! Making the proof that the task may sleep in safe code, where it might hold a spinlock or be
//! in an RCU read-side section: only the unsafe constructor makes one.

use kernel::mm::walk::MaySleep;

pub fn f() -> MaySleep {
    MaySleep::new()
}
