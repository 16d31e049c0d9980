#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mutate.sh [ARCH] [NAME...]: break one rule of the Rust code at a time (the
# mutations in scripts/mutations.txt), run the KUnit suites, and require that
# each mutation makes at least one test fail. Restores every file afterwards.
# Slow (one incremental kernel build per mutation): not part of `make test`.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-x86_64}
shift || true
cd "$REPO"
survived=0
killed=0
while IFS= read -r line; do
	case "$line" in ''|\#*) continue ;; esac
	name=${line%% @@ *}; rest=${line#* @@ }
	file=${rest%% @@ *}; rest=${rest#* @@ }
	old=${rest%% @@ *}; new=${rest#* @@ }
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
	cp "$file" "$file.orig"
	python3 - "$file" "$old" "$new" <<'PY' || { mv "$file.orig" "$file"; echo "mutate: $name: pattern not found in $file"; survived=$((survived+1)); continue; }
import sys
p, old, new = (a.replace("\\n", "\n") for a in sys.argv[1:4])
s = open(p).read()
if s.count(old) != 1:
    sys.exit(1)
open(p, "w").write(s.replace(old, new))
PY
	# A mutation may livelock a fault (retried forever): bound each boot.
	if scripts/kunit.sh "$arch" --timeout=180 > "build/mutate-$name.log" 2>&1; then
		echo "mutate: SURVIVED $name ($file)"
		survived=$((survived+1))
	elif grep -q 'kunit-check: no results' "build/mutate-$name.log"; then
		# A mutation that does not build says nothing about the tests.
		echo "mutate: BROKEN BUILD $name ($file): see build/mutate-$name.log"
		survived=$((survived+1))
	else
		fails=$(grep -E '\[FAILED\]|\[CRASHED\]|kunit-check: kernel log' "build/mutate-$name.log" | head -n 3 | tr '\n' ' ')
		echo "mutate: killed $name: $fails"
		killed=$((killed+1))
	fi
	mv "$file.orig" "$file"
	# A new timestamp: the copy is older than the mutated build, which make
	# would otherwise keep, carrying this mutation into the next run.
	touch "$file"
done < scripts/mutations.txt
echo "mutate: $killed killed, $survived survived"
[ $survived = 0 ]
