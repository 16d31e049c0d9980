// SPDX-License-Identifier: GPL-2.0
// expect: E0432
//! Stale (make lint must fail it): what it imports does not exist.

use kernel::mm::pgtable::PteWriter;

pub fn f(w: PteWriter) {
    drop(w);
}
