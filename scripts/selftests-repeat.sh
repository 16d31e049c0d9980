#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests-repeat.sh ARCH: repeats, on the prod kernel and its
# CONFIG_MM_RS=n twin (prod-off), booted at once, the selftests that differed
# between the two in a full `make selftests FLAVOR=prod` run
# (userspace/selftests-repeat/flaky.list), with a mremap_test that prints
# what its preamble ran into (mremap_test-dbg,
# userspace/selftests-repeat/mremap-test-debug.diff). MMRS_REPEAT_LIST names
# another list. Results: build/results/selftests-boot-ARCH-prod{,-off}.log,
# the "repeat:" lines.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
arch=${1:?usage: selftests-repeat.sh x86_64|arm64}
d="$REPO/build/selftests-repeat-$arch"
"$REPO/scripts/selftest-debug-build.sh" "$arch" \
	"$REPO/userspace/selftests-repeat/mremap-test-debug.diff" mremap_test "$d"
cp "$REPO/userspace/selftests-repeat/repeat.sh" "$d/"
MMRS_PROD_PARALLEL=1 MMRS_PROD_LIST="${MMRS_REPEAT_LIST:-$REPO/userspace/selftests-repeat/flaky.list}" \
	MMRS_PROD_EXTRA="$d" exec "$REPO/scripts/selftests-prod.sh" "$arch"
