#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mutate.sh ARCH [--flavour F] [--sample N] [--stale] [--resume] [--baseline-from FILE] [NAME...]
#
# Mutation testing: breaks one rule at a time (scripts/mutations.txt, read by
# scripts/mutations.py), runs the KUnit suites (scripts/kunit.sh ARCH [F]) on
# the KUnit kernel of ARCH, incrementally rebuilt, and requires each mutation
# to make at least one test fail (a failed or crashed case, a kernel splat, a
# suite that did not run).
#
# - A baseline comes first: the unmutated run, with the mutants' time limit.
#   If it fails, nothing is mutated and the run fails: a broken or flaky
#   suite would kill every mutation. --baseline-from FILE takes a kunit.py
#   JSON of a run just made instead (make test: build/results/kunit-arm64.json).
# - A mutation tagged for one architecture ("NAME [arm64]") is skipped on the
#   other; one marked "# equivalent: NAME: why" is not run; both are listed.
# - --sample N (or MMRS_MUTATE_SAMPLE=N): N mutations that can run on ARCH,
#   chosen from the HEAD commit's hash, so that successive commits rotate
#   through the list (make test ran 2 on arm64 until 2026-11-29).
# - NAMEs: only those (make mutate MUTATIONS="...").
# - --stale (make mutate STALE=1): only the mutations without a current
#   verdict in docs/mutations/mutate-ARCH[-F].json: none yet, one
#   reconstructed from an old report, or one measured before its file last
#   changed (scripts/mutations.py freshness): a full re-measure too long for
#   one sitting is done a part at a time. Nothing left to measure passes.
# - --resume (make mutate RESUME=1): the full run, in sittings. Each verdict
#   goes into docs/mutations/progress-ARCH[-F].json as soon as it is
#   measured; an interrupted sitting (Ctrl-C, SIGTERM, the end of a session)
#   keeps them, and the next --resume measures the rest, with a baseline of
#   its own. It goes on only where the first sitting's commit is HEAD or
#   its ancestor, every file outside docs/ is as at that commit (nothing
#   changed or untracked in the tree either; checked again before each
#   verdict is kept) and the tools outside the repository (kernel source
#   package, rustc, clang, QEMU, MMRS_MUTATE_TIMEOUT) are the first
#   sitting's: the verdicts are about that commit's code, tests and list,
#   and the record names it for each. When none is left the progress file
#   becomes the full run's record (commit the progress file between
#   sittings on a machine that may not last).
# - Records: build/results/mutate-ARCH[-F].json (a sample:
#   mutate-sample-ARCH[-F].json): each mutation's file, verdict (killed,
#   survived, broken-build, error, stale, skipped, equivalent), the tests that
#   failed and the seconds it took; a run of some NAMEs updates their records
#   in it. After a run that is not a sample, scripts/mutations-report.py
#   rewrites docs/mutations.md. Logs: build/mutate/ARCH[-F]/NAME.log.
# - The mutated file is restored on any exit, Ctrl-C included (and the tree
#   prepared again after a mutation of patches/, which prepare-tree.sh
#   applies). Holds the machine's kernel-build lock throughout: no other
#   build sees a mutated source.
#
# Fails if a mutation survives, does not build, fails otherwise (error) or no
# longer applies (stale). MMRS_MUTATE_TIMEOUT: seconds a KUnit boot may take
# (default 180: a mutation may livelock a fault). For scripts/mutate-test.sh
# only: MMRS_KUNIT_SH and MMRS_PREPARE_SH replace scripts/kunit.sh and
# scripts/prepare-tree.sh, MMRS_MUTATE_SEED the commit hash.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
usage="usage: mutate.sh x86_64|arm64 [--flavour F] [--sample N] [--stale] [--resume] [--baseline-from FILE] [NAME...]"
arch=${1:?$usage}
shift
case "$arch" in
x86_64|arm64) ;;
*) echo "mutate: ARCH must be x86_64 or arm64, not '$arch'" >&2; exit 2 ;;
esac
flavour= sample=${MMRS_MUTATE_SAMPLE:-} base_from= names=() stale= resume=
while [ $# -gt 0 ]; do
	case "$1" in
	--flavour|--flavor) flavour=${2:?$usage}; shift 2 ;;
	--flavour=*|--flavor=*) flavour=${1#*=}; shift ;;
	--sample) sample=${2:?$usage}; shift 2 ;;
	--sample=*) sample=${1#*=}; shift ;;
	--stale) stale=1; shift ;;
	--resume) resume=1; shift ;;
	--baseline-from) base_from=${2:?$usage}; shift 2 ;;
	--baseline-from=*) base_from=${1#*=}; shift ;;
	-*) echo "$usage" >&2; exit 2 ;;
	*) names+=("$1"); shift ;;
	esac
done
[ -z "$sample" ] || [[ $sample =~ ^[0-9]+$ ]] || { echo "mutate: --sample takes a number" >&2; exit 2; }
KUNIT=${MMRS_KUNIT_SH:-"$REPO/scripts/kunit.sh"}
PREPARE=${MMRS_PREPARE_SH:-"$REPO/scripts/prepare-tree.sh"}
tmo=${MMRS_MUTATE_TIMEOUT:-180}
M="python3 $REPO/scripts/mutations.py"
label=$arch${flavour:+-$flavour}
W="$REPO/build/mutate/$label"
R="$REPO/build/results"
# The records of full and subset runs are kept in the repository
# (docs/mutations/), not under build/: a run on a new machine, or after
# `make clean`, adds to the verdicts of earlier runs instead of replacing
# them. The sample of `make test` is a check, not a record: build/results/.
D="$REPO/docs/mutations"
progress=
if [ -n "$resume" ]; then
	if [ -n "$sample$stale" ] || [ ${#names[@]} -gt 0 ]; then
		echo "mutate: --resume measures the whole list: no NAMEs, --sample or --stale" >&2
		exit 2
	fi
	kind=full out="$D/mutate-$label.json" progress="$D/progress-$label.json"
elif [ -n "$sample" ]; then
	kind=sample out="$R/mutate-sample-$label.json"
elif [ ${#names[@]} -gt 0 ] || [ -n "$stale" ]; then
	kind=subset out="$D/mutate-$label.json"
else
	kind=full out="$D/mutate-$label.json"
fi
cd "$REPO"

seed=
if [ -n "$sample" ]; then
	seed=${MMRS_MUTATE_SEED:-$(git -C "$REPO" rev-parse HEAD 2>/dev/null)}
	[ -n "$seed" ] || { echo "mutate: --sample needs a commit (or MMRS_MUTATE_SEED)" >&2; exit 2; }
fi
[ -z "$stale" ] || [ -z "$sample" ] || { echo "mutate: --stale and --sample do not go together" >&2; exit 2; }
if [ -n "$resume" ]; then
	# What a verdict depends on outside the repository: a sitting goes on
	# only with the first one's (MMRS_MUTATE_ENV replaces it, for
	# scripts/mutate-test.sh only).
	qemu=qemu-system-$([ "$arch" = arm64 ] && echo aarch64 || echo x86_64)
	env=${MMRS_MUTATE_ENV:-$(python3 -c 'import json, sys; print(json.dumps(dict(zip(
		["linux-source-6.12", "rustc", "clang", "qemu", "timeout"], sys.argv[1:]))))' \
		"$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)" \
		"$(/usr/bin/rustc --version 2>/dev/null)" "$(clang$MM_RS_LLVM --version 2>/dev/null | head -n 1)" \
		"$("$qemu" --version 2>/dev/null | head -n 1)" "$tmo")}
	# under the build lock: no other build changes the tree between the
	# check and the sitting (and mutations.py checks again at each verdict)
	mm_rs_build_lock
	sitting=$($M progress check "$progress" "$env") || exit 1
	[ "$sitting" = new ] || echo "mutate: $label: resuming the run begun at ${sitting:7:12}: ${sitting##* } verdicts in ${progress#$REPO/}"
fi
planned=$($M plan "$arch" ${sample:+--sample "$sample" --seed "$seed"} ${stale:+--stale "$out"} \
	${progress:+--done "$progress"} "${names[@]}") || exit 2
if [ -n "$stale" ] && ! grep -q '^run' <<< "$planned"; then
	echo "mutate: $label: every verdict in ${out#$REPO/} is current; nothing to measure"
	exit 0
fi

# The file being mutated, its copy, and the KUnit run in flight.
cur= child=
restore() {
	if [ -n "$child" ]; then
		# all of it gone (no compiler still writing an object of the
		# mutant) before the file is restored
		kill -TERM -- "-$child" 2>/dev/null
		wait "$child" 2>/dev/null
		for _ in $(seq 100); do kill -0 -- "-$child" 2>/dev/null || break; sleep 0.1; done
		kill -KILL -- "-$child" 2>/dev/null
		child=
	fi
	[ -n "$cur" ] || return 0
	# cp, not mv: a new timestamp, newer than anything built from the
	# mutant, so that make rebuilds it.
	# Restored: the backup no longer stands for a file left mutated (its
	# path goes; a later run that finds one refuses to start).
	if cp "$W/orig/file" "$cur" && touch "$cur"; then
		rm -f "$W/orig/path"
	else
		echo "mutate: could not restore $cur from $W/orig/file" >&2
	fi
	if [[ $cur == patches/* ]]; then
		"$PREPARE" >"$W/prepare.log" 2>&1 ||
			echo "mutate: prepare-tree.sh failed after restoring $cur: see ${W#$REPO/}/prepare.log" >&2
	fi
	cur=
}
trap restore EXIT
interrupted() {
	echo "mutate: interrupted; restoring ${cur:-nothing}" >&2
	[ -z "$progress" ] || [ ! -f "$progress" ] ||
		echo "mutate: the verdicts measured so far stay in ${progress#$REPO/}; --resume (RESUME=1) goes on" >&2
	exit 130
}
trap interrupted INT TERM HUP

# kunit OUT LOG: the KUnit run, in a session of its own so that an interrupt
# can stop all of it (kunit.py, make, QEMU) before the file is restored.
kunit() {
	local r
	MMRS_KUNIT_JSON=$1 setsid -w "$KUNIT" "$arch" ${flavour:+"$flavour"} --timeout="$tmo" >"$2" 2>&1 &
	child=$!
	wait "$child"
	r=$?
	child=
	return $r
}

start=$(date +%s)
if [ -n "$base_from" ]; then
	if ! passed=$($M baseline "$base_from"); then
		echo "mutate: not mutating: no passing baseline" >&2
		exit 1
	fi
	base="$passed (${base_from#$REPO/})"
fi

mm_rs_build_lock
# A backup left by a run that could not restore its file (SIGKILL, a lost
# machine): refuse to start, naming it, rather than delete it unchecked.
if [ -f "$W/orig/file" ] && [ -f "$W/orig/path" ]; then
	left=$(cat "$W/orig/path")
	if ! cmp -s "$W/orig/file" "$REPO/$left"; then
		echo "mutate: $left differs from the backup an earlier run kept (${W#$REPO/}/orig/file):" \
			"that run may have left it mutated. Restore it (cp ${W#$REPO/}/orig/file $left) or" \
			"keep it as it is, then remove ${W#$REPO/}; not mutating" >&2
		exit 1
	fi
fi
# A verdict is recorded against a commit: the files the plan mutates must be
# as committed (MMRS_MUTATE_DIRTY_OK=1 runs anyway, for a try).
if [ -z "${MMRS_MUTATE_DIRTY_OK:-}" ] && git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t mfiles < <(cut -f3 <<< "$planned" | sed '/^$/d' | sort -u)
	if [ ${#mfiles[@]} -gt 0 ] && dirty=$(git -C "$REPO" status --porcelain -- "${mfiles[@]}") && [ -n "$dirty" ]; then
		echo "mutate: refusing to mutate over uncommitted changes (commit or stash them, or MMRS_MUTATE_DIRTY_OK=1):" >&2
		echo "$dirty" >&2
		exit 1
	fi
fi
rm -rf "$W"
mkdir -p "$W/orig" "$R" "$D"
records="$W/records.jsonl"
: > "$records"
if [ -n "$resume" ] && ! grep -q '^run' <<< "$planned"; then
	base="none: nothing left to run"
elif [ -n "$base_from" ]; then
	echo "mutate: $label baseline: ${base_from#$REPO/}, $passed"
else
	echo "mutate: $label baseline: the unmutated KUnit run (log: ${W#$REPO/}/baseline.log)"
	t0=$(date +%s)
	if ! kunit "$W/baseline.json" "$W/baseline.log" || ! passed=$($M baseline "$W/baseline.json"); then
		tail -n 20 "$W/baseline.log" >&2
		echo "mutate: $label: the baseline (unmutated) KUnit run failed; not mutating. Log: ${W#$REPO/}/baseline.log" >&2
		exit 1
	fi
	base="$passed in $(( $(date +%s) - t0 ))s"
	echo "mutate: $label baseline: $base"
fi
# result ARGS...: one mutation's record (mutations.py result), and into the
# progress file at once on a run in sittings; a sitting ends when the tree
# changed under it (the verdict is not kept).
result() {
	$M result "$records" "$@" || return
	[ -z "$progress" ] || $M progress add "$progress" "$records" || exit 1
}
# A sitting with nothing left to run (the last one's record not written)
# is not one: it only writes the record.
if [ -n "$progress" ] && grep -q '^run' <<< "$planned"; then
	$M progress sitting "$progress" "$arch" "$flavour" "$base" "$env" || exit 1
fi

while IFS=$'\t' read -r action name file why; do
	[ -n "$name" ] || continue
	case "$action" in
	skip) result "$name" "$file" 0 --verdict skipped --why "$why"; continue ;;
	equivalent) result "$name" "$file" 0 --verdict equivalent --why "$why"; continue ;;
	esac
	t0=$(date +%s)
	log="$W/$name.log"
	cp -p "$file" "$W/orig/file" || { echo "mutate: cannot copy $file" >&2; exit 1; }
	printf '%s\n' "$file" > "$W/orig/path"
	cur=$file
	if ! $M apply "$name" 2>"$log"; then
		cur=
		result "$name" "$file" 0 --verdict stale --why "$(cat "$log")"
		continue
	fi
	kunit "$W/$name.json" "$log"
	krc=$?
	restore
	result "$name" "$file" $(( $(date +%s) - t0 )) --run "$W/$name.json" "$log" "$krc"
done <<< "$planned"

merge=
[ "$kind" = subset ] && merge=--merge
if [ -n "$progress" ]; then
	summary=$($M progress finish "$progress" "$out") || exit 1
	records=$out
else
	summary=$($M record "$out" "$arch" "$flavour" "$kind" "$records" --baseline "$base" $merge) || exit 1
fi
echo "mutate: $label ($kind, $(( $(date +%s) - start ))s): $summary; record: ${out#$REPO/}"
if [ "$kind" != sample ]; then
	python3 "$REPO/scripts/mutations-report.py" || echo "mutate: docs/mutations.md not written" >&2
fi
! grep -qE '"verdict": "(survived|broken-build|error|stale)"' "$records"
