// SPDX-License-Identifier: GPL-2.0

//! Anonymous memory faults (`do_anonymous_page()` and `alloc_anon_folio()` in `mm/memory.c`):
//! which folio order to use, and mapping the folio.

#[cfg(CONFIG_MM_RS_ANON_ORDER)]
pub mod alloc;
#[cfg(CONFIG_MM_RS_ANON_FAULT)]
pub mod fault;
#[cfg(CONFIG_MM_RS_ANON_ORDER)]
pub mod order;
#[cfg(CONFIG_MM_RS_ANON_ORDER)]
pub mod policy;
#[cfg(CONFIG_MM_RS_SPLIT_UNDERUSED)]
pub mod underused;
