#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit-seeds-test.sh: host test of scripts/kunit-seeds.sh with a fake
# kunit.sh that fails for the seeds in FAIL_SEEDS: every seed runs with its
# own mm_rs_kunit.seed and JSON path, a failing seed fails the whole and is
# named with its replay command, bad arguments are refused. make lint runs it.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/kunit.sh" <<'EOF'
#!/usr/bin/env bash
echo "$* json=$MMRS_KUNIT_JSON" >>"$CALLS"
seed=${3#mm_rs_kunit.seed=}
case " $FAIL_SEEDS " in *" $seed "*) exit 1 ;; esac
exit 0
EOF
chmod +x "$tmp/kunit.sh"
export CALLS=$tmp/calls MMRS_KUNIT_SH=$tmp/kunit.sh
fail() { echo "kunit-seeds-test: $*" >&2; exit 1; }

FAIL_SEEDS= "$REPO/scripts/kunit-seeds.sh" arm64 3 100 >"$tmp/out" 2>&1 ||
	fail "three passing seeds failed: $(cat "$tmp/out")"
[ "$(wc -l <"$CALLS")" = 3 ] || fail "not 3 runs: $(cat "$CALLS")"
for s in 100 101 102; do
	grep -qx "arm64 --kernel_args mm_rs_kunit.seed=$s json=$REPO/build/results/kunit-seeds-arm64-$s.json" \
		"$CALLS" || fail "seed $s not run as asked: $(cat "$CALLS")"
done
grep -q 'passed' "$tmp/out" || fail "no pass line"

: >"$CALLS"
if FAIL_SEEDS="201" "$REPO/scripts/kunit-seeds.sh" x86_64 3 200 >"$tmp/out" 2>&1; then
	fail "a failing seed passed"
fi
[ "$(wc -l <"$CALLS")" = 3 ] || fail "a failure stopped the other seeds: $(cat "$CALLS")"
grep -q 'seed 201 failed; make kunit ARCH=x86_64 SEED=201 replays it' "$tmp/out" ||
	fail "the failing seed not named: $(cat "$tmp/out")"
grep -q 'seed 200 failed\|seed 202 failed' "$tmp/out" && fail "a passing seed named as failed"

for bad in "riscv 1 1" "arm64 0 1" "arm64 x 1" "arm64 2 -5"; do
	# shellcheck disable=SC2086
	if "$REPO/scripts/kunit-seeds.sh" $bad >/dev/null 2>&1; then
		fail "bad arguments '$bad' accepted"
	fi
done
echo "kunit-seeds-test: ok"
