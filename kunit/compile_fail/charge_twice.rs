// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Charging a folio twice (review: double memcg charge): charging consumes the new folio.

use kernel::mm::{
    folio::{Gfp, NewFolio},
    Mm,
};

pub fn f(folio: NewFolio, mm: &Mm, gfp: Gfp) {
    let _a = folio.mem_cgroup_charge(mm, gfp);
    let _b = folio.mem_cgroup_charge(mm, gfp);
}
