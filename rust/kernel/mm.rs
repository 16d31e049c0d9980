// SPDX-License-Identifier: GPL-2.0

//! Memory management, as seen by the mm-rs policy code.
//!
//! These are the narrow views that the Rust memory-management decisions in `mm/mm_rs/` need of
//! C's mm structures: a VMA under the mmap or VMA read lock ([`virt::VmaRef`]), a page fault
//! ([`fault::VmFault`]), a mapped PTE table ([`pgtable::PteTableRef`]), the PMD entry above it and
//! detaching the table ([`pmd`]), an owned folio reference ([`folio::Folio`]), the
//! transparent-hugepage knobs ([`thp`]), VM event counters and a set of folio orders
//! ([`order::OrderSet`]).
//!
//! All `unsafe` for these lives here; the policy code on top of it is safe Rust.
//!
//! C headers: [`include/linux/mm.h`](srctree/include/linux/mm.h),
//! [`include/linux/mm_types.h`](srctree/include/linux/mm_types.h),
//! [`include/linux/huge_mm.h`](srctree/include/linux/huge_mm.h)

pub mod fault;
pub mod folio;
pub mod order;
pub mod pgtable;
#[cfg(CONFIG_MM_RS_PT_RECLAIM)]
pub mod pmd;
#[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
pub mod thp;
pub mod virt;
#[cfg(CONFIG_MM_RS_PT_RECLAIM)]
pub mod vmstat;
