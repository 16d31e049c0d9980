// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Charging a folio twice (review: double memcg charge): charging consumes the new folio.

use kernel::mm::{
    fault::VmFault,
    folio::{Gfp, NewFolio},
};

pub fn f<'a>(folio: NewFolio<'a>, vmf: &mut VmFault<'a>, gfp: Gfp) {
    let _a = folio.mem_cgroup_charge(vmf, gfp);
    let _b = folio.mem_cgroup_charge(vmf, gfp);
}
