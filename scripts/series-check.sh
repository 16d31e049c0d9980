#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# series-check.sh: check build/series/ (`make series`) against the tree.
#
# Extracts the pristine base (the tarball build/BASE records) into a
# temporary directory, `git am`s the series onto it, and fails unless
# - every patch applies (git am: exact context, no fuzz);
# - the result has the same sources as build/linux, which scripts/
#   prepare-tree.sh makes from the repository: so an edit that is not in
#   the series, or a series made from other sources, fails here;
# - checkpatch.pl --strict reports no error on any patch, and each warning or
#   check it reports is explained in that patch's notes (below its "---", a
#   line "checkpatch TYPE: why", from series/msg/ or series/series.conf).
# With BISECT=1 it also builds the x86_64 KUnit kernel at every patch
# (incrementally, one build directory; each patch with the options of
# kunit/mm_rs.kunitconfig its Kconfig has) and runs the KUnit suites at the
# last one, as scripts/kunit.sh does. That part takes the machine's kernel
# build lock (scripts/env.sh).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
S=${MMRS_SERIES_DIR:-"$REPO/build/series"}	# another directory: for make lint's test
T="$REPO/build/linux"
TARBALL=/usr/src/linux-source-6.12.tar.xz
BISECT=${BISECT:-0}

die() { echo "series-check: error: $*" >&2; exit 1; }
step() { echo "series-check: [${SECONDS}s] $*"; }

shopt -s nullglob
patches=("$S"/[0-9][0-9][0-9][0-9]-*.patch)
shopt -u nullglob
series=()
for p in "${patches[@]}"; do
	case "$(basename "$p")" in 0000-*) ;; *) series+=("$p") ;; esac
done
[ ${#series[@]} -gt 0 ] || die "no series in build/series/; run 'make series'"
[ -f "$REPO/build/BASE" ] || die "no build/BASE; run 'make prepare'"
[ -d "$T" ] || die "no ${T#$REPO/}; run 'make prepare'"
[ -f "$TARBALL" ] || die "$TARBALL not found; run scripts/setup.sh"
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
head -n1 "$REPO/build/BASE" | grep -qF " $pkgver " ||
	die "build/BASE records '$(head -n1 "$REPO/build/BASE")', but linux-source-6.12 $pkgver is installed; run 'make prepare'"

# Every patch, ours in patches/ and the series' own, reads as git made it:
# a diffstat, and an index line for every file it changes. A patch without
# them looks edited by hand (a reviewer cannot tell what it touches at a
# glance, and git am cannot fall back to a three-way merge).
for p in "$REPO"/patches/*.patch "${series[@]}"; do
	what=${p#$REPO/}
	grep -qE '^ [0-9]+ files? changed' "$p" || die "$what has no diffstat; regenerate it with git"
	nd=$(grep -c '^diff --git ' "$p" || true)
	ni=$(grep -cE '^(index [0-9a-f]+\.\.[0-9a-f]+|new file mode|deleted file mode)' "$p" || true)
	[ "$ni" -ge "$nd" ] || die "$what: $nd files changed, $ni with an index line; regenerate it with git"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mm-rs-series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
W="$tmp/linux"

step "extracting $(head -n1 "$REPO/build/BASE")"
mkdir -p "$W"
tar -xf "$TARBALL" -C "$W" --strip-components=1

# A git repository of the files the series touches, as the base has them,
# and of LICENSES/, where checkpatch's SPDX check (scripts/spdxcheck.py)
# looks for the licenses in the HEAD commit.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C
export GIT_AUTHOR_NAME=mm-rs GIT_AUTHOR_EMAIL=mm-rs@localhost
export GIT_COMMITTER_NAME=mm-rs GIT_COMMITTER_EMAIL=mm-rs@localhost
git -C "$W" init -q -b base
sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${series[@]}" | sort -u > "$tmp/touched"
(cd "$W" && while read -r f; do [ -e "$f" ] && printf '%s\0' "$f"; done < "$tmp/touched" |
	xargs -0 -r git add -f --)
git -C "$W" add -f LICENSES
git -C "$W" commit -q --allow-empty -m base
git -C "$W" tag pristine

step "git am ${#series[@]} patches"
for p in "${series[@]}"; do
	if ! out=$(git -C "$W" am -q --whitespace=error-all "$p" 2>&1); then
		printf '%s\n' "$out" | sed 's/^/    /' >&2
		die "$(basename "$p") does not apply"
	fi
done

# The sources must be build/linux's. build/linux has, besides them, what
# scripts/prepare-tree.sh adds for the build (.mm-rs/, localversion-mm-rs),
# what the mm selftests' build generates in place, and, through the linked
# directories, files git ignores; none of that is source.
step "comparing with ${T#$REPO/}"
ignored=$(cd "$REPO" && bash -c 'eval "$(sed -n "/^LINKS=(/,/^)/p" scripts/prepare-tree.sh)"; printf "%s\n" "${LINKS[@]}"' |
	while IFS=: read -r dst src; do
		[ -d "$src" ] || continue
		git ls-files -oi --exclude-standard -- "$src" | sed "s|^$src|$dst|"
	done)
diffs=$(diff -rq "$W" "$T" 2>&1 | grep -v -e "^Only in $W: \.git\$" || true)
bad=$(printf '%s\n' "$diffs" | awk -v W="$W" -v T="$T" -v ign="$ignored" '
	BEGIN { n = split(ign, a, "\n"); for (i = 1; i <= n; i++) if (a[i] != "") skip[a[i]] = 1
		skip[".mm-rs"] = 1; skip["localversion-mm-rs"] = 1
		skip["tools/testing/selftests/mm/local_config.h"] = 1
		skip["tools/testing/selftests/mm/local_config.mk"] = 1 }
	/^Only in / {
		dir = $3; sub(/:$/, "", dir); name = $4
		if (index(dir, T) == 1) { rel = substr(dir, length(T) + 2); rel = (rel == "" ? name : rel "/" name)
			if (rel in skip) next }
	}
	NF { print }')
if [ -n "$bad" ]; then
	printf '%s\n' "$bad" | sed -e "s|$W|<series>|g" -e "s|$T|${T#$REPO/}|g" -e 's/^/    /' >&2
	die "the series does not give build/linux's sources: run 'make series' (and 'make prepare')"
fi

# checkpatch runs the kernel's Python helpers (spdxcheck.py needs python3-ply
# and python3-git): with Debian's python3, not another one first on PATH.
step "checkpatch --strict"
mkdir -p "$tmp/checkpatch"
printf '%s\0' "${series[@]}" | (cd "$W" && PATH="/usr/bin:$PATH" xargs -0 -P "$(nproc)" -I{} \
	sh -c 'perl scripts/checkpatch.pl --strict --show-types --no-summary --quiet "$1" > "$2/$(basename "$1").out" 2>&1 || true' \
	_ {} "$tmp/checkpatch")
rc=0
for p in "${series[@]}"; do
	name=$(basename "$p")
	out=$(cat "$tmp/checkpatch/$name.out")
	# The notes: between the "---" after the message and the diffstat.
	notes=$(awk '/^---$/ { n = 1; next } n && /^ .*\| / { exit } n' "$p")
	bad=0
	while IFS= read -r line; do
		[[ "$line" =~ ^(ERROR|WARNING|CHECK):([A-Z0-9_]+): ]] || continue
		level=${BASH_REMATCH[1]} type=${BASH_REMATCH[2]}
		if [ "$level" = ERROR ]; then
			echo "series-check: $name: checkpatch $line" >&2
			bad=1
		elif ! grep -q "checkpatch $type:" <<< "$notes"; then
			echo "series-check: $name: checkpatch $line (not explained in the patch's notes)" >&2
			bad=1
		fi
	done <<< "$out"
	if [ $bad = 1 ]; then
		printf '%s\n' "$out" | sed 's/^/    /' >&2
		rc=1
	fi
	# A note for a finding checkpatch no longer reports is stale: say so.
	for type in $(grep -o 'checkpatch [A-Z0-9_]*:' <<< "$notes" | sed 's/checkpatch //; s/://' || true); do
		grep -q ":$type:" <<< "$out" ||
			echo "series-check: note: $name explains checkpatch $type, which it no longer reports"
	done
done
[ $rc = 0 ] || die "checkpatch findings above; fix them, or explain a warning in the patch's notes"

if [ "$BISECT" = 1 ]; then
	. "$REPO/scripts/env.sh"
	mm_rs_build_lock
	out="$tmp/kunit-x86_64"
	mkdir -p "$out" "$REPO/build/results"
	# The suites' kunitconfig as the series has it (the comparison above made
	# it build/linux's), kept here so that an edit of kunit/ during the run
	# does not change what the last patch is checked against.
	kcfg="$tmp/mm_rs.kunitconfig"
	cp "$W/mm/mm_rs_kunit/mm_rs.kunitconfig" "$kcfg"
	kargs=()
	for o in "${MM_RS_MAKE_OPTS[@]}"; do kargs+=(--make_options "$o"); done
	mapfile -t commits < <(git -C "$W" rev-list --reverse pristine..HEAD)
	[ ${#commits[@]} = ${#series[@]} ] || die "git am made ${#commits[@]} commits of ${#series[@]} patches"
	n=0
	for c in "${commits[@]}"; do
		n=$((n + 1))
		subject=$(git -C "$W" log -1 --format=%s "$c")
		git -C "$W" checkout -q "$c"
		# The kunitconfig's options this patch's Kconfig has (kunit.py
		# fails on an option that is not in the resulting .config).
		find "$W" -name 'Kconfig*' -not -path "$W/.git/*" -print0 |
			xargs -0 sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/\2/p' |
			sort -u > "$tmp/symbols"
		awk 'NR == FNR { have[$1] = 1; next }
		     /^CONFIG_/ { s = $0; sub(/^CONFIG_/, "", s); sub(/=.*/, "", s); if (!(s in have)) next }
		     { print }' "$tmp/symbols" "$kcfg" > "$tmp/step.kunitconfig"
		step "BISECT $n/${#commits[@]}: $subject"
		if [ "$n" -lt "${#commits[@]}" ]; then
			if ! python3 "$W/tools/testing/kunit/kunit.py" build --arch=x86_64 \
				--build_dir="$out" --kunitconfig="$tmp/step.kunitconfig" \
				--jobs="$(nproc)" "${kargs[@]}" > "$tmp/build.log" 2>&1; then
				tail -n 40 "$tmp/build.log" >&2
				die "patch $n/${#commits[@]} ($subject) does not build"
			fi
			continue
		fi
		cmp -s "$tmp/step.kunitconfig" "$kcfg" ||
			die "the last patch lacks options of kunit/mm_rs.kunitconfig: $(diff "$kcfg" "$tmp/step.kunitconfig" | sed -n 's/^< //p' | tr '\n' ' ')"
		json="$REPO/build/results/series-bisect-kunit-x86_64.json"
		set +e
		python3 "$W/tools/testing/kunit/kunit.py" run --arch=x86_64 --build_dir="$out" \
			--kunitconfig="$kcfg" "${kargs[@]}" \
			--jobs="$(nproc)" --timeout=900 --qemu_args="-smp 2" --json="$json"
		krc=$?
		set -e
		python3 "$REPO/scripts/kunit-check.py" "$json" "$out/test.log" "$kcfg" || krc=1
		[ $krc = 0 ] || die "the KUnit suites fail at the last patch"
	done
	echo "series-check: every patch builds, the KUnit suites pass at the last"
fi
step "ok: ${#series[@]} patches apply to $(head -n1 "$REPO/build/BASE"), give build/linux's sources and pass checkpatch --strict"
