// SPDX-License-Identifier: GPL-2.0

//! PTE-table reclaim: freeing the PTE tables that MADV_DONTNEED leaves empty.
//!
//! Allocators return memory with MADV_DONTNEED and keep the address range, so in 6.12 the page
//! tables stay until munmap. Here the zap of a range that covers a whole PTE table frees the
//! table if it left no live entry in it: [`zap`] holds that reference logic, [`free`] the
//! locking and freeing protocol that C's `zap_pmd_range()` and `zap_pte_range()` call.

pub mod free;
pub mod zap;
