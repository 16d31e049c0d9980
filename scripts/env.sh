# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts: the toolchain the kernel is built with.
# Debian's rustc-web is the one whose library source (rust-web-src) is
# installed; rustup's rustc, often first on PATH, has none (E0514 otherwise).
#
# C is built with clang-22 (LLVM=-22), Debian 12's build of the same LLVM
# 22.1.8 that rustc-web is built on: CONFIG_RUST_INLINE_HELPERS (patches/0010)
# links the C helpers' LLVM bitcode into the Rust objects, which needs one
# LLVM major version on both sides. bindgen loads that LLVM's libclang too.
export PATH="/usr/local/bin:$PATH"
export LIBCLANG_PATH=/usr/lib/llvm-22/lib
MM_RS_LLVM=-22
MM_RS_MAKE_OPTS=(LLVM=$MM_RS_LLVM RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
		 HOSTRUSTC=/usr/bin/rustc RUSTFMT=/usr/bin/rustfmt
		 CLIPPY_DRIVER=/usr/bin/clippy-driver BINDGEN=/usr/local/bin/bindgen)
