// SPDX-License-Identifier: GPL-2.0

//! mm-rs: memory-management decisions written in Rust.
//!
//! Each decision is reached from a small C shim in the mm code it replaces, behind its own
//! Kconfig option and a runtime switch in `/sys/kernel/mm/mm_rs/`; the C original stays in place
//! as the reference the KUnit suites compare against. The exported functions are declared in
//! `include/linux/mm_rs.h`, and [`export_check`] makes a Rust signature that drifts from its
//! prototype a build error.
//!
//! The decisions run in fault and reclaim paths, so they never panic, never allocate and never
//! sleep where the C they replace would not.

/// Checks at build time that each named export has the signature of its C prototype in
/// `include/linux/mm_rs.h`, as bindgen declared it in `kernel::bindings`.
///
/// The two arms of an `if` must have one type, so the function items only unify if their
/// signatures are identical.
macro_rules! export_check {
    ($($name:ident),* $(,)?) => {
        $(
            const _: () = {
                if true {
                    kernel::bindings::$name
                } else {
                    $name
                };
            };
        )*
    };
}

#[cfg(any(CONFIG_MM_RS_ANON_ORDER, CONFIG_MM_RS_ANON_FAULT))]
pub mod anon;
#[cfg(CONFIG_MM_RS_EXEC_RA)]
pub mod exec_ra;
#[cfg(CONFIG_MM_RS_KSM_UNMERGE)]
pub mod ksm;
#[cfg(CONFIG_MM_RS_PT_RECLAIM)]
pub mod pt_reclaim;
