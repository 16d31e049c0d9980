#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit-seeds.sh ARCH [N [BASE]]
#
# Runs the KUnit suites of ARCH (scripts/kunit.sh, the KUnit kernel of make
# kunit) N times (default 8), each with mm_rs_kunit.seed=BASE+i (BASE: the
# clock's seconds unless given), so that the randomised differential sweeps
# (docs/testing.rst, "Seeds") meet N times the layouts one seed builds. One
# seed a run missed two divergences that seeds 1 and 5 found at once
# (2026-12-02: a signal at the last KSM page of the range's last table, and a
# refusal install_random_same_as_c did not allow for).
#
# Each seed is printed before its run; its results go to
# build/results/kunit-seeds-ARCH-SEED.json. Every seed runs, failed or not;
# the script fails if one failed and names each such seed with the command
# that replays it (make kunit ARCH=ARCH SEED=SEED). For
# scripts/kunit-seeds-test.sh only: MMRS_KUNIT_SH runs another kunit.sh.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: kunit-seeds.sh x86_64|arm64 [N [BASE]]"
arch=${1:?$usage}
case "$arch" in
x86_64|arm64) ;;
*) echo "$usage" >&2; exit 2 ;;
esac
n=${2:-8}
base=${3:-$(date +%s)}
case "$n$base" in
*[!0-9]*) echo "$usage (N and BASE: decimal numbers)" >&2; exit 2 ;;
esac
[ "$n" -ge 1 ] || { echo "$usage (N at least 1)" >&2; exit 2; }
kunit_sh=${MMRS_KUNIT_SH:-"$REPO/scripts/kunit.sh"}
mkdir -p "$REPO/build/results"
failed=()
for ((i = 0; i < n; i++)); do
	seed=$((base + i))
	echo "kunit-seeds: $arch, seed $seed ($((i + 1)) of $n)"
	if ! MMRS_KUNIT_JSON="$REPO/build/results/kunit-seeds-$arch-$seed.json" \
		"$kunit_sh" "$arch" --kernel_args "mm_rs_kunit.seed=$seed"; then
		failed+=("$seed")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	for seed in "${failed[@]}"; do
		echo "kunit-seeds: $arch: seed $seed failed; make kunit ARCH=$arch SEED=$seed replays it" >&2
	done
	exit 1
fi
echo "kunit-seeds: $arch: $n seeds from $base passed"
