#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare build/linux: the Debian linux-source-6.12 tree with mm-rs in it.
#
# - Extracts /usr/src/linux-source-6.12.tar.xz once and records its version in
#   build/BASE and (through localversion-mm-rs) in the kernel's version string.
# - Links mm-rs's files into the tree (symlinks, so an edit in the repository
#   rebuilds only what depends on it).
# - Applies patches/*.patch in order. When the set of patches changes, the old
#   ones are reversed first, so only the files they touch change. A patch that
#   no longer applies stops here, naming the patch and its failed hunks.
# - Re-running on a prepared tree changes nothing.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
B="$REPO/build"
T="$B/linux"
TARBALL=/usr/src/linux-source-6.12.tar.xz
META="$T/.mm-rs"

die() { echo "prepare-tree: error: $*" >&2; exit 1; }

[ -f "$TARBALL" ] || die "$TARBALL not found; run scripts/setup.sh (or apt-get install linux-source-6.12)"
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || die "linux-source-6.12 is not installed"

# Symlinks: tree path -> repository path.
LINKS=(
	"mm/Kconfig.mm_rs:Kconfig"
	"mm/mm_rs:mm-rs"
	"mm/mm_rs_kunit:kunit"
	"include/linux/mm_rs.h:bindings/mm_rs.h"
	"rust/kernel/mm.rs:rust/kernel/mm.rs"
	"rust/kernel/mm:rust/kernel/mm"
	"rust/helpers/mm_rs.c:rust/helpers/mm_rs.c"
)

patches=()
for p in "$REPO"/patches/*.patch; do [ -e "$p" ] && patches+=("$p"); done
want=$( { echo "base $pkgver"; echo "repo $REPO"; printf '%s\n' "${LINKS[@]}";
	  for p in "${patches[@]}"; do sha256sum "$p" | sed "s|$REPO/||"; done; } | sha256sum | cut -d' ' -f1)

if [ -f "$META/stamp" ] && [ "$(cat "$META/stamp")" = "$want" ]; then
	echo "prepare-tree: build/linux is up to date ($(cat "$B/BASE"))"
	exit 0
fi

# A tree of another base version (the package moved) is extracted afresh.
if [ -d "$T" ] && [ "$(cat "$META/base" 2>/dev/null)" != "$pkgver" ]; then
	echo "prepare-tree: base changed ($(cat "$META/base" 2>/dev/null || echo unknown) -> $pkgver); extracting afresh"
	rm -rf "$T"
fi

if [ ! -d "$T" ]; then
	echo "prepare-tree: extracting linux-source-6.12 $pkgver into build/linux"
	rm -rf "$B/linux.new"
	mkdir -p "$B/linux.new"
	tar -xf "$TARBALL" -C "$B/linux.new" --strip-components=1
	mkdir -p "$B/linux.new/.mm-rs/applied"
	echo "$pkgver" > "$B/linux.new/.mm-rs/base"
	mv "$B/linux.new" "$T"
fi

kver=$(make -s -C "$T" kernelversion)
echo "linux-source-6.12 $pkgver (Linux $kver)" > "$B/BASE"
echo "-mm-rs" > "$T/localversion-mm-rs"

# Reverse the patches applied last time, newest first.
rm -f "$META/stamp"
mapfile -t old < <(ls "$META/applied" 2>/dev/null | sort -r)
for name in "${old[@]}"; do
	patch -d "$T" -p1 -R -s --batch --no-backup-if-mismatch < "$META/applied/$name" \
		|| die "could not reverse $name; remove build/linux and run again"
	rm -f "$META/applied/$name"
done

for p in "${patches[@]}"; do
	name=$(basename "$p")
	rej="$B/rejects/$name.rej"
	mkdir -p "$B/rejects"
	if ! out=$(patch -d "$T" -p1 -N --batch --no-backup-if-mismatch -r "$rej" < "$p" 2>&1); then
		echo "$out" | sed 's/^/    /' >&2
		# Leave no half-patched tree behind: the next run extracts afresh.
		rm -rf "$T"
		die "patches/$name no longer applies to linux-source-6.12 $pkgver (Linux $kver); failed hunks are listed above and kept in build/rejects/$name.rej"
	fi
	cp "$p" "$META/applied/$name"
done

for l in "${LINKS[@]}"; do
	dst="$T/${l%%:*}"
	src="$REPO/${l#*:}"
	[ -e "$src" ] || die "$src is missing"
	rm -rf "$dst"
	ln -s "$src" "$dst"
done

echo "$want" > "$META/stamp"
echo "prepare-tree: build/linux ready: $(cat "$B/BASE"), ${#patches[@]} patches"
