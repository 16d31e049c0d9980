#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# repeat.sh LABEL N PROGRAM [ARGS...]: run ./PROGRAM ARGS N times in a copy
# of /selftests on tmpfs, print the last lines of each failing run and the
# count: "repeat: LABEL: N runs, F failed". Exits 1 if any run failed.
# MMRS_REPEAT_DIR: an existing directory to run in instead (lint's check).
label=$1; n=$2; shift 2
d=${MMRS_REPEAT_DIR:-/run/selftests}
if [ ! -d $d ]; then
	mkdir -p $d && mount -t tmpfs -o mode=1777 tmpfs $d && cp -a /selftests/. $d/ || exit 1
fi
cd $d || exit 1
fails=0
for i in $(seq "$n"); do
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" -ne 0 ]; then
		fails=$((fails + 1))
		echo "repeat: $label run $i exit $rc:"
		echo "$out" | grep -E 'not ok|FAIL|Fail|[Ee]rror|failed|mm-rs debug|maps:|Expected|Didn|\(|unavailable' | tail -n 40 | sed 's/^/repeat:   /'
	fi
done
echo "repeat: $label: $*: $n runs, $fails failed"
[ "$fails" = 0 ]
