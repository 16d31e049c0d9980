#!/bin/bash
# uffd-repeat.sh LABEL N [ARGS...]: run ./uffd-unit-tests ARGS N times (the
# debugging build ./uffd-unit-tests-dbg for a LABEL dbg-*), count failures
label=$1; n=$2; shift 2
bin=./uffd-unit-tests
case "$label" in dbg-*) bin=./uffd-unit-tests-dbg ;; esac
fails=0
for i in $(seq "$n"); do
	out=$($bin "$@" 2>&1); rc=$?
	if [ "$rc" -ne 0 ]; then
		fails=$((fails + 1))
		echo "uffd-repeat: $label run $i exit $rc: $(echo "$out" | grep -E 'Testing|ERROR|FAIL' | tail -n 2 | tr '\n' '|')"
		echo "$out" | grep 'uffd-dbg' | tail -n 40
	fi
done
echo "uffd-repeat: $label: $bin $*: $n runs, $fails failed"
[ "$fails" = 0 ]
