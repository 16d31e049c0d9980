// SPDX-License-Identifier: GPL-2.0
// expect: E0382
//! Installing twice (review: rmap and LRU add twice, NR_ANON_MAPPED counted twice, LRU list
//! corruption): install consumes the proof and the folio.

use kernel::mm::pgtable::VacantFolio;

pub fn f(vacant: VacantFolio<'_, '_, '_>) {
    vacant.install();
    vacant.install();
}
