#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install and check everything mm-rs needs on a Debian 12 machine.
# Idempotent: a second run installs nothing and prints the same checks.
set -euo pipefail

BINDGEN_VERSION=0.73.2          # pinned; 6.12 needs >= 0.65.1
MIN_RUSTC=1.78.0                # scripts/min-tool-version.sh of 6.12
KERNEL_RUSTC=/usr/bin/rustc     # Debian's rustc-web, which rust-web-src matches

die() { echo "setup: error: $*" >&2; exit 1; }
note() { echo "setup: $*"; }

PKGS=(linux-source-6.12 rustc-web rust-web-src rust-web-clippy rustfmt-web
      clang-22 lld-22 llvm-22 libclang-22-dev clang lld llvm libclang-dev
      qemu-system-x86 qemu-system-arm
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross flex bison bc libelf-dev
      libssl-dev cpio xz-utils python3 rsync kmod patch make gcc erofs-utils
      git python3-ply python3-git   # these two: checkpatch's SPDX check (make series-check)
      python3-docutils              # make lint: docs/*.rst parse without a warning
      procps                        # pgrep: boot.sh stops a guest hung after a splat
      linux-config-6.12)            # Debian's own configurations (scripts/debian-config.sh)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing Debian packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}"
	note "installing ${missing[*]}"
	apt-get update -q >/dev/null || die "apt-get update failed; check the network or /etc/apt/sources.list"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null \
		|| die "apt-get install ${missing[*]} failed"
fi

vercmp_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

# rustc: the kernel must use Debian's rustc (the one rust-web-src matches).
[ -x "$KERNEL_RUSTC" ] || die "$KERNEL_RUSTC not found; install rustc-web (apt-get install rustc-web)"
rv=$("$KERNEL_RUSTC" --version | awk '{print $2}')
vercmp_ge "$rv" "$MIN_RUSTC" || die "rustc $rv at $KERNEL_RUSTC is older than $MIN_RUSTC, the minimum for Linux 6.12"
sysroot=$("$KERNEL_RUSTC" --print sysroot)
[ -f "$sysroot/lib/rustlib/src/rust/library/core/src/lib.rs" ] \
	|| die "no Rust library source under $sysroot/lib/rustlib/src/rust/library; install rust-web-src"
[ -x /usr/bin/clippy-driver ] || die "no /usr/bin/clippy-driver; install rust-web-clippy"
[ -x /usr/bin/rustfmt ] || die "no /usr/bin/rustfmt; install rustfmt-web"

# bindgen: Debian's is too old, so the pinned bindgen-cli from crates.io goes to /usr/local.
need_bindgen=1
if command -v bindgen >/dev/null 2>&1; then
	bv=$(bindgen --version 2>/dev/null | awk '{print $2}')
	[ "$bv" = "$BINDGEN_VERSION" ] && need_bindgen=0
fi
if [ $need_bindgen = 1 ]; then
	command -v cargo >/dev/null 2>&1 || die "cargo not found; it is needed once to install bindgen-cli $BINDGEN_VERSION"
	note "installing bindgen-cli $BINDGEN_VERSION from crates.io (a few minutes, once)"
	root=/usr/local; [ -w "$root/bin" ] || root="$HOME/.local"
	cargo install --locked --quiet --root "$root" bindgen-cli --version "$BINDGEN_VERSION" \
		|| die "cargo install bindgen-cli $BINDGEN_VERSION failed"
	export PATH="$root/bin:$PATH"
fi
bv=$(bindgen --version | awk '{print $2}')
vercmp_ge "$bv" 0.65.1 || die "bindgen $bv is older than 0.65.1, the minimum for Linux 6.12"

command -v aarch64-linux-gnu-gcc >/dev/null || die "no aarch64-linux-gnu-gcc; install gcc-aarch64-linux-gnu"
# The kernel's C: clang-22 of LLVM 22, the LLVM rustc-web is built on (scripts/env.sh).
command -v clang-22 >/dev/null || die "no clang-22; install clang-22 (Debian 12: bookworm-security)"
command -v ld.lld-22 >/dev/null || die "no ld.lld-22; install lld-22"
command -v llvm-link-22 >/dev/null || die "no llvm-link-22; install llvm-22"
[ -e /usr/lib/llvm-22/lib/libclang.so ] || [ -e /usr/lib/llvm-22/lib/libclang-22.so ] \
	|| die "no libclang of LLVM 22 for bindgen; install libclang-22-dev"
rllvm=$("$KERNEL_RUSTC" --version --verbose | awk '/^LLVM version/ {print $3}')
cllvm=$(clang-22 --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n1)
[ "${rllvm%%.*}" = "${cllvm%%.*}" ] \
	|| die "rustc is built on LLVM $rllvm but clang-22 is $cllvm: helper inlining needs one LLVM major version"
command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64; install qemu-system-x86"
command -v qemu-system-aarch64 >/dev/null || die "no qemu-system-aarch64; install qemu-system-arm"
command -v mkfs.erofs >/dev/null || die "no mkfs.erofs; install erofs-utils"
[ -f /usr/src/linux-source-6.12.tar.xz ] || die "no /usr/src/linux-source-6.12.tar.xz; install linux-source-6.12"

# The QEMU TCG plugin's header (make lint builds and validates the plugin),
# from Debian's qemu source package of the installed QEMU's version.
"$(dirname "$0")/qemu-plugin.sh" header >/dev/null || die "the QEMU plugin header could not be fetched (scripts/qemu-plugin.sh header)"

note "ok: rustc $rv ($KERNEL_RUSTC, LLVM $rllvm), bindgen $bv, clang $cllvm (clang-22), $(qemu-system-x86_64 --version | head -n1)"
