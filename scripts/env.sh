# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts: the toolchain the kernel is built with.
# Debian's rustc-web is the one whose library source (rust-web-src) is
# installed; rustup's rustc, often first on PATH, has none (E0514 otherwise).
#
# C is built with clang-22 (LLVM=-22), Debian 12's build of the same LLVM
# 22.1.8 that rustc-web is built on: CONFIG_RUST_INLINE_HELPERS (patches/0010)
# links the C helpers' LLVM bitcode into the Rust objects, which needs one
# LLVM major version on both sides. bindgen loads that LLVM's libclang too.
#
# MM_RS_LLVM=1 builds with Debian's default clang (14) instead, without
# helper inlining: `make bench` does that once for the C reference figures.
export PATH="/usr/local/bin:$PATH"
MM_RS_LLVM=${MM_RS_LLVM:--22}
if [ "$MM_RS_LLVM" = 1 ]; then
	export LIBCLANG_PATH=/usr/lib/llvm-$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)/lib
else
	export LIBCLANG_PATH=/usr/lib/llvm$MM_RS_LLVM/lib
fi
MM_RS_MAKE_OPTS=(LLVM=$MM_RS_LLVM RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
		 HOSTRUSTC=/usr/bin/rustc RUSTFMT=/usr/bin/rustfmt
		 CLIPPY_DRIVER=/usr/bin/clippy-driver BINDGEN=/usr/local/bin/bindgen)

# One kernel build at a time on this machine (two cores): the scripts that
# build a kernel take this lock first and hold it to the end; a script run
# from one that holds it (selftests.sh -> image.sh) does not take it again.
mm_rs_build_lock() {
	[ -n "${MM_RS_BUILD_LOCKED:-}" ] && return 0
	exec 9>"${MM_RS_BUILD_LOCK:-/tmp/mm-rs-kbuild.lock}"
	if ! flock -n 9; then
		echo "mm-rs: waiting for another kernel build on this machine" >&2
		flock 9
	fi
	export MM_RS_BUILD_LOCKED=1
}

# mm_rs_beside CMD...: start CMD in the background, beside what the caller
# does next (a check that builds no kernel, next to one that leaves a CPU
# idle). Its output is kept in a file until mm_rs_beside_wait prints it, and
# it does not get the build lock's descriptor (fd 9): nothing it leaves
# running can keep the next kernel build waiting. Sets MM_RS_BESIDE to
# "PID FILE" for mm_rs_beside_wait.
mm_rs_beside() {
	local out
	out=$(mktemp)
	"$@" > "$out" 2>&1 9>&- &
	MM_RS_BESIDE="$! $out"
}

# mm_rs_beside_wait "PID FILE": wait for the command mm_rs_beside started,
# print its output, and return its exit status.
mm_rs_beside_wait() {
	local pid=${1%% *} out=${1#* } rc=0
	wait "$pid" || rc=$?
	cat "$out"
	rm -f "$out"
	return $rc
}

# Debian packages for the guest (busybox-static, bash-static, libraries): for
# the host's architecture they are installed, for another one (arm64) they are
# unpacked into build/sysroot-DARCH. Prints the root their files are under
# ("" for the host: /bin/busybox, ...). Usage: mm_rs_guest_debs DARCH PKG...
mm_rs_guest_debs() {
	local darch=$1 repo sysroot dl d missing=() p
	shift
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	if [ "$darch" = "$(dpkg --print-architecture)" ]; then
		for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
		if [ ${#missing[@]} -gt 0 ]; then
			echo "mm-rs: installing ${missing[*]}" >&2
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
		fi
		echo ""
		return 0
	fi
	sysroot="$repo/build/sysroot-$darch"
	for p in "$@"; do
		[ -e "$sysroot/.pkgs/$p" ] || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		if ! dpkg --print-foreign-architectures | grep -qx "$darch"; then
			dpkg --add-architecture "$darch"
			apt-get update >&2
		fi
		dl=$(mktemp -d)
		(cd "$dl" && apt-get download "${missing[@]/%/:$darch}" >&2)
		mkdir -p "$sysroot/.pkgs"
		for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$sysroot"; done
		for p in "${missing[@]}"; do : > "$sysroot/.pkgs/$p"; done
		rm -rf "$dl"
	fi
	echo "$sysroot"
}

