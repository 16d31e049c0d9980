# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts: the toolchain the kernel is built with.
# Debian's rustc-web is the one whose library source (rust-web-src) is
# installed; rustup's rustc, often first on PATH, has none (E0514 otherwise).
export PATH="/usr/local/bin:$PATH"
MM_RS_MAKE_OPTS=(LLVM=1 RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
		 HOSTRUSTC=/usr/bin/rustc RUSTFMT=/usr/bin/rustfmt
		 CLIPPY_DRIVER=/usr/bin/clippy-driver BINDGEN=/usr/local/bin/bindgen)
