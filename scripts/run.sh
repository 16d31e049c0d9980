#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh ARCH: `make run`. Builds the test kernel and the userspace for ARCH,
# boots it under QEMU and shows the mm-rs demo: the same work with each Rust
# path on and off, side by side.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-x86_64}
start=$(date +%s)
step() { echo "run: [$(( $(date +%s) - start ))s] $*"; }

step "building the $arch test kernel (a few minutes the first time)"
buildlog="$REPO/build/results/image-$arch-test.log"
mkdir -p "$REPO/build/results"
# Progress lines on the terminal, the compiler's chatter in the log.
if ! kernel=$("$REPO/scripts/image.sh" "$arch" test 2> >(tee "$buildlog" |
	grep --line-buffered -E '^(image|prepare-tree|setup):|error' | sed -u 's/^/  /' >&2) | tail -n 1); then
	echo "run: the kernel build failed; its log: ${buildlog#$REPO/}" >&2
	exit 1
fi
step "kernel: ${kernel#$REPO/}"
step "building the userspace (static /init and demo)"
"$REPO/scripts/initramfs.sh" "$arch" >/dev/null
step "booting under QEMU (TCG)"
"$REPO/scripts/boot.sh" "$arch" test demo,ptreclaim,exectext 900
step "done; full console log: build/results/boot-$arch-test.log"
