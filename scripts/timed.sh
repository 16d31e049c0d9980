#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# timed.sh NAME CMD...: run CMD and record how long it took in
# build/results/times.txt ("NAME SECONDS rc"), for the summary of `make test`.
REPO=$(cd "$(dirname "$0")/.." && pwd)
name=$1
shift
mkdir -p "$REPO/build/results"
start=$(date +%s)
"$@"
rc=$?
echo "$name $(( $(date +%s) - start )) $rc" >> "$REPO/build/results/times.txt"
exit $rc
