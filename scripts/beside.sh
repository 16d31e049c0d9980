#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# beside.sh TITLE BESIDE -- MAIN...: make test's steps that run side by side.
# Runs the shell command BESIDE in the background (scripts/env.sh:
# mm_rs_beside: its output kept, without the build lock's descriptor) while
# MAIN runs in the foreground, then prints "== TITLE" and BESIDE's output.
# Fails if either failed: a step run beside another is still a step.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
usage="usage: beside.sh TITLE BESIDE -- MAIN..."
title=${1:?$usage}
beside=${2:?$usage}
[ "${3:-}" = -- ] && [ $# -gt 3 ] || { echo "$usage" >&2; exit 2; }
shift 3
mm_rs_beside bash -c "$beside"
b=$MM_RS_BESIDE
rc=0
"$@" || rc=1
echo "== $title"
mm_rs_beside_wait "$b" || rc=1
exit $rc
