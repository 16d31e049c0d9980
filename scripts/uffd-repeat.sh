#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uffd-repeat.sh ARCH: repeats uffd-unit-tests on the prod kernel and its
# CONFIG_MM_RS=n twin (prod-off) to catch its rare "UFFDIO_COPY error: -2"
# (docs/testing.rst): the events tests 20 times with the defaults, with a
# monitor that prints its last 64 messages on the error (uffd-unit-tests-dbg,
# userspace/uffd-debug/uffd-common-debug.diff), with the mm-rs switches off
# and with THP off, then the whole program 3 times (MMRS_UFFD_N sets every
# count). MMRS_UFFD_LIST runs another list (userspace/uffd-debug/
# uffd-events.list has no mm-rs switch), MMRS_PROD_FLAVOURS other kernels
# (prod-pristine: the prod flavour built from the pristine Debian tree, where
# a base failure must reproduce). Results in
# build/results/selftests-ARCH-prod{,-off}.tap and the boot logs.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
arch=${1:?usage: uffd-repeat.sh x86_64|arm64}
# The debugging monitor, uffd-unit-tests-dbg.
d="$REPO/build/uffd-repeat-$arch"
"$REPO/scripts/selftest-debug-build.sh" "$arch" \
	"$REPO/userspace/uffd-debug/uffd-common-debug.diff" uffd-unit-tests "$d"
cp "$REPO/userspace/uffd-debug/uffd-repeat.sh" "$d/"
# MMRS_UFFD_N: repetitions of each line instead of the list's own counts.
list=${MMRS_UFFD_LIST:-"$REPO/userspace/uffd-debug/uffd-repeat.list"}
if [ -n "${MMRS_UFFD_N:-}" ]; then
	sed -E "s/(uffd-repeat\.sh [a-z0-9-]+) [0-9]+/\1 $MMRS_UFFD_N/" "$list" > "$d/uffd-repeat.list"
	list="$d/uffd-repeat.list"
fi
MMRS_PROD_LIST="$list" MMRS_PROD_EXTRA="$d" \
	exec "$REPO/scripts/selftests-prod.sh" "$arch"
