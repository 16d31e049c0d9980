// SPDX-License-Identifier: GPL-2.0
// expect: E0624
//! Flagging a folio up to date non-atomically from outside the install (review:
//! `mark_uptodate` on any folio reference).

use kernel::mm::folio::NewAnonFolio;

pub fn f(folio: &mut NewAnonFolio<'_>) {
    folio.mark_uptodate();
}
