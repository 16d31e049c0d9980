// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! A misuse that compiles (make lint must fail it).

pub fn f(x: u32) -> u32 {
    x + 1
}
