// SPDX-License-Identifier: GPL-2.0

//! Anonymous memory faults: which folio order to use (`alloc_anon_folio()` in `mm/memory.c`).

pub mod alloc;
pub mod order;
