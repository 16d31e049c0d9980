// SPDX-License-Identifier: GPL-2.0
// expect: lifetime may not live long enough
//! Keeping the folio a PTE entry maps after the visit, when the walk has dropped the entry's
//! PTE lock and the folio may be unmapped and freed: the entry is lent for one call.

use core::ops::ControlFlow;
use kernel::mm::{
    folio::Folio,
    walk::{PteEntry, PteVisitor},
};

pub struct Keep<'f> {
    pub folio: Option<&'f Folio>,
}

impl<'f> PteVisitor for Keep<'f> {
    type Break = ();

    fn pte_entry(&mut self, entry: PteEntry<'_>) -> ControlFlow<()> {
        self.folio = entry.normal_folio();
        ControlFlow::Continue(())
    }
}
