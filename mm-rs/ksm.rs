// SPDX-License-Identifier: GPL-2.0

//! KSM: unmerging a range (`unmerge_ksm_pages()` in `mm/ksm.c`) on a page-table range walk.

pub mod unmerge;
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
pub mod walk_count;
