#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# compile-fail.sh [BUILD_DIR [SNIPPET_DIR]]
#
# Compiles each kunit/compile_fail/*.rs as a crate against the kernel crate of
# BUILD_DIR (default build/lint, which `make lint` builds), with exactly the
# rustc command kbuild used for mm/mm_rs/mm_rs.o, and checks that the
# compiler rejects it with exactly the error its "// expect:" line names: one
# error code such as E0382, or, for the lifetime errors that have none, one
# message. Every error the compiler reports must be that one: a snippet that
# also fails for another reason proves nothing about its misuse. A snippet
# that fails because what it calls does not exist (E0599 no method or
# associated item, E0425/E0412/E0422/E0433/E0432/E0531/E0405 unresolved
# names, E0560/E0609/E0026 no such field) is stale: it would pass just the
# same if the hole came back under another name, so it fails the check too.
# "// expect: ok" is the control, which must compile: a harness that
# fails everything for an unrelated reason (a missing import, a changed flag)
# fails here instead of passing every misuse.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$REPO/build/lint}
D=${2:-$REPO/kunit/compile_fail}
cmdfile="$O/mm/mm_rs/.mm_rs.o.cmd"
[ -f "$cmdfile" ] || { echo "compile-fail: no $cmdfile; build mm/mm_rs in $O first" >&2; exit 1; }

# The rustc (or clippy-driver) command line, as kbuild ran it from $O.
# With CONFIG_RUST_INLINE_HELPERS the rustc part ends at the first ';' (the
# bitcode link and its compilation follow), else at the end of the line.
cmd=$(sed -n 's/^savedcmd_mm\/mm_rs\/mm_rs.o := //p' "$cmdfile" | sed 's/;.*//; s/[[:space:]]*$//')
[ -n "$cmd" ] || { echo "compile-fail: no rustc command in $cmdfile" >&2; exit 1; }
src=$(printf '%s\n' "$cmd" | awk '{print $NF}')
case "$src" in *mm_rs.rs) ;; *) echo "compile-fail: unexpected command in $cmdfile" >&2; exit 1 ;; esac

# kbuild exports this for the unstable flags of its command line.
export RUSTC_BOOTSTRAP=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0 n=0
no_such_item='^error\[E(0599|0425|0412|0422|0433|0432|0531|0405|0560|0609|0026)\]'
for f in "$D"/*.rs; do
	name=$(basename "$f" .rs)
	expect=$(sed -n 's|^// expect: *||p' "$f" | head -n1)
	[ -n "$expect" ] || { echo "compile-fail: $name: no '// expect:' line" >&2; rc=1; continue; }
	# Type and borrow checking are all that is needed: emit metadata only.
	c=${cmd% *}
	c=${c//--crate-name mm_rs/--crate-name cf_$name}
	c=$(printf '%s\n' "$c" | sed -E "s#--out-dir [^ ]+#--out-dir $tmp#; s#--emit=[^ ]+##g")
	out=$(cd "$O" && eval "$c --emit=metadata $f" 2>&1)
	status=$?
	n=$((n + 1))
	if [ "$expect" = ok ]; then
		if [ $status -ne 0 ]; then
			echo "compile-fail: $name: the intended use does not compile:" >&2
			printf '%s\n' "$out" | head -n 40 >&2
			rc=1
		else
			echo "compile-fail: $name: compiles, as it must"
		fi
		continue
	fi
	if [ $status -eq 0 ]; then
		echo "compile-fail: $name: COMPILES, but must fail with $expect" >&2
		rc=1
		continue
	fi
	case "$expect" in *'|'*)
		echo "compile-fail: $name: expects one error, not alternatives ($expect)" >&2
		rc=1
		continue ;;
	esac
	# The errors, less rustc's closing count.
	errs=$(printf '%s\n' "$out" | grep -E '^error' | grep -vE '^error: aborting due to')
	stale=$(printf '%s\n' "$errs" | grep -E "$no_such_item" | head -n 3)
	if [ -n "$stale" ]; then
		echo "compile-fail: $name: calls what does not exist (stale against the current API):" >&2
		printf '%s\n' "$stale" >&2
		rc=1
	elif [ -z "$errs" ]; then
		echo "compile-fail: $name: fails, but with no error (status $status):" >&2
		printf '%s\n' "$out" | tail -n 5 >&2
		rc=1
	elif other=$(printf '%s\n' "$errs" | grep -vF -- "$expect"); then
		echo "compile-fail: $name: fails, but not only with $expect:" >&2
		printf '%s\n' "$other" | head -n 5 >&2
		rc=1
	else
		echo "compile-fail: $name: refused ($expect)"
	fi
done
[ $rc = 0 ] && echo "compile-fail: ok ($n snippets)" || echo "compile-fail: FAILED" >&2
exit $rc
