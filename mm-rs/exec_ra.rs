// SPDX-License-Identifier: GPL-2.0

//! Exec-mapping readahead: executable text read into large, naturally aligned folios.
//!
//! Text is faulted in nearly at random, so 6.12's read-around leaves most of it in small folios,
//! and arm64 cannot map it with contiguous PTEs. For a fault in a `VM_EXEC` mapping,
//! `do_sync_mmap_readahead()` asks [`window`] for a readahead window made of folios of one order,
//! which [`order`] takes from the architecture (64K on arm64) or from
//! `/sys/kernel/mm/mm_rs/exec_folio_size`.

pub mod order;
pub mod window;
