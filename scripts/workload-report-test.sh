#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# workload-report-test.sh: scripts/workload-report.py on recorded logs
# (scripts/testdata/workload/: the mmrs-data lines of a W=bench run on arm64
# and of a W=hugetlb run): the figures it must print, the median over logs of
# one architecture, and a failed step failing it. Run by make lint.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
D="$REPO/scripts/testdata/workload"
W="python3 $REPO/scripts/workload-report.py"
rc=0
fail() { echo "workload-report-test: $*" >&2; rc=1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

out=$($W --hugetlb "k=$D/hugetlb.log" "$D/bench-arm64.log") || fail "failed on the recorded logs"
# a row each: the figures of the log, and the differences against mthp-4k
grep -qF '| auto | 41.8 | 22.47 | -19.1% | 49.13 | 54,470 | 173,284 | +0.4% | 12,229 | 21504 | 99.4% |' <<<"$out" ||
	fail "the auto compile row is not the log's figures"
grep -qF '| exec-ra-off | 41.5 | 28.89 | +4.0% |' <<<"$out" || fail "no exec-ra-off row"
grep -q '^| exec-ra-off .*| 22244 | 4.6% |$' <<<"$out" || fail "cc1's text share with exec readahead off is wrong"
grep -qF '| mthp-64k | 8.0 | 0.06 | -62.5% | 6,222 | 89,600 | +1.0% | 3,960 |' <<<"$out" ||
	fail "the python mthp-64k row is not the log's figures"
grep -qF '| k | 62 | 96 | x1.55 | 94 | 118 | x1.26 |' <<<"$out" || fail "the hugetlb medians are wrong"
grep -qF '#### arm64 (1 round, medians)' <<<"$out" || fail "no arm64 heading with its round count"

# two logs of one architecture: one table, medians of the rounds
sed 's/compile-auto rc=0 elapsed=41.8/compile-auto rc=0 elapsed=50.0/' "$D/bench-arm64.log" > "$t/b.log"
sed 's/compile-auto rc=0 elapsed=41.8/compile-auto rc=0 elapsed=60.0/' "$D/bench-arm64.log" > "$t/c.log"
out=$($W "$D/bench-arm64.log" "$t/b.log" "$t/c.log") || fail "failed on three logs"
[ "$(grep -c '^#### arm64' <<<"$out")" = 1 ] || fail "three logs of one architecture gave more than one table"
grep -qF '#### arm64 (3 rounds, medians)' <<<"$out" || fail "the round count of three logs is wrong"
grep -qF '| auto | 50.0 |' <<<"$out" || fail "not the median of 41.8, 50.0 and 60.0"

# --out keeps what it has of architectures without a log in this run, and
# its hugetlb table when no --hugetlb is given (with one, the rows of the
# kernels not given): one machine may measure one.
$W --out "$t/r.md" --hugetlb "k=$D/hugetlb.log" "$D/bench-arm64.log" || fail "--out failed"
cp "$t/r.md" "$t/r0.md"
sed 's/aarch64/x86_64/g' "$D/bench-arm64.log" > "$t/x.log"
$W --out "$t/r.md" "$t/x.log" || fail "--out with an x86_64 log failed"
grep -qF '#### x86_64 (1 round, medians)' "$t/r.md" || fail "--out: no x86_64 table added"
sed -n '/^#### arm64/,/^#### x86_64/p' "$t/r.md" | sed '$d' > "$t/a1"
sed -n '/^#### arm64/,/^### Seed 001/p' "$t/r0.md" | sed '$d' > "$t/a0"
cmp -s "$t/a0" "$t/a1" || fail "--out: the arm64 table was not kept as it was"
grep -qF '| k | 62 | 96 | x1.55 | 94 | 118 | x1.26 |' "$t/r.md" || fail "--out: the hugetlb table was not kept"
# and, with --hugetlb, the rows of kernels this run did not measure
$W --out "$t/r.md" --hugetlb "j=$D/hugetlb.log" || fail "--out with another kernel's hugetlb log failed"
grep -qF '| k | 62 | 96 | x1.55 | 94 | 118 | x1.26 |' "$t/r.md" || fail "--out --hugetlb: the row of kernel k was dropped"
grep -qF '| j | 62 | 96 | x1.55 | 94 | 118 | x1.26 |' "$t/r.md" || fail "--out --hugetlb: no row for kernel j"
$W --out "$t/r.md" --hugetlb "k=$D/hugetlb.log" || fail "--out remeasuring kernel k failed"
[ "$(grep -c '^| k |' "$t/r.md")" = 1 ] || fail "--out --hugetlb: kernel k's row twice"

# a failed step fails the report
sed 's/compile-arch rc=0/compile-arch rc=2/' "$D/bench-arm64.log" > "$t/f.log"
if $W "$t/f.log" >/dev/null 2>&1; then fail "a failed step did not fail the report"; fi
# a log without bench figures fails it
if $W "$D/hugetlb.log" >/dev/null 2>&1; then fail "a log without W=bench figures passed"; fi
[ $rc = 0 ] && echo "workload-report-test: ok"
exit $rc
