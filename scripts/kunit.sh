#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh ARCH [KUNITCONFIG] [extra kunit.py args]: build a KUnit kernel for
# ARCH (x86_64 or arm64) with the mm-rs suites, run it under QEMU, print the
# parsed results, write build/results/kunit-ARCH[-NAME].json, and fail on any
# failed, crashed, skipped or missing test.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
arch=${1:?usage: kunit.sh x86_64|arm64 [kunitconfig]}
shift
cfg=${1:-$REPO/kunit/mm_rs.kunitconfig}
[ $# -gt 0 ] && shift
case "$arch" in
x86_64|arm64) ;;
*) echo "kunit.sh: ARCH must be x86_64 or arm64, not '$arch'" >&2; exit 2 ;;
esac
name=$(basename "$cfg" .kunitconfig)
suffix=; [ "$name" = mm_rs ] || suffix="-$name"
out="$REPO/build/kunit-$arch$suffix"
json="$REPO/build/results/kunit-$arch$suffix.json"
mkdir -p "$REPO/build/results"
rm -f "$json"

"$REPO/scripts/prepare-tree.sh"

make_args=()
for o in "${MM_RS_MAKE_OPTS[@]}"; do make_args+=(--make_options "$o"); done

echo "kunit: $arch, $(basename "$cfg"), build dir ${out#$REPO/}"
set +e
python3 "$REPO/build/linux/tools/testing/kunit/kunit.py" run \
	--arch="$arch" --build_dir="$out" --kunitconfig="$cfg" \
	"${make_args[@]}" --jobs="$(nproc)" --timeout=900 \
	--json="$json" "$@"
rc=$?
set -e
python3 "$REPO/scripts/kunit-check.py" "$json" "$cfg" || rc=1
exit $rc
