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

# Symlinks: tree path -> repository path. scripts/series.py reads this list:
# each file it brings into the tree must be in a patch of series/series.conf.
LINKS=(
	"mm/Kconfig.mm_rs:Kconfig"
	"mm/mm_rs:mm-rs"
	"mm/mm_rs_kunit:kunit"
	"include/linux/mm_rs.h:bindings/mm_rs.h"
	"rust/kernel/mm.rs:rust/kernel/mm.rs"
	"rust/kernel/mm:rust/kernel/mm"
	"rust/helpers/mm_rs.c:rust/helpers/mm_rs.c"
	"Documentation/mm/mm-rs.rst:docs/design.rst"
	"Documentation/mm/mm-rs-testing.rst:docs/testing.rst"
	"Documentation/ABI/testing/sysfs-kernel-mm-mm_rs:docs/ABI-sysfs-kernel-mm-mm_rs"
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

# Restore the files the patches touched last time from the copies saved
# before they were first patched (robust against hand edits of the tree).
# Files whose content ends up unchanged get their old timestamps back below,
# so kbuild does not rebuild them.
prev="$B/prev-patched"
rm -rf "$prev"
if [ -d "$T" ]; then
	rm -f "$META/stamp"
	if [ -d "$META/orig" ]; then
		(cd "$META/orig" && find . -type f) | while read -r f; do
			f=${f#./}
			mkdir -p "$prev/$(dirname "$f")"
			[ -e "$T/$f" ] && cp -p "$T/$f" "$prev/$f"
			cp -p "$META/orig/$f" "$T/$f"
		done
	fi
	rm -rf "$META/applied"
	mkdir -p "$META/applied"
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
{
	echo "linux-source-6.12 $pkgver (Linux $kver)"
	echo "toolchain: $(/usr/bin/rustc --version) ($(/usr/bin/rustc --version --verbose | awk '/^LLVM version/ {print "LLVM " $3}')), $(clang-22 --version 2>/dev/null | head -n1)"
} > "$B/BASE"
echo "-mm-rs" > "$T/localversion-mm-rs"

for p in "${patches[@]}"; do
	name=$(basename "$p")
	rej="$B/rejects/$name.rej"
	mkdir -p "$B/rejects"
	# Save the original of every file this patch touches, once.
	grep -E '^\+\+\+ b/' "$p" | sed 's|^+++ b/||; s|\t.*||' | while read -r f; do
		[ -e "$META/orig/$f" ] && continue
		[ -e "$T/$f" ] || die "patches/$name touches $f, which the base tree does not have"
		mkdir -p "$META/orig/$(dirname "$f")"
		cp -p "$T/$f" "$META/orig/$f"
	done
	if ! out=$(patch -d "$T" -p1 -N --batch --fuzz=0 --no-backup-if-mismatch -r "$rej" < "$p" 2>&1); then
		echo "$out" | sed 's/^/    /' >&2
		# Leave no half-patched tree behind: the next run extracts afresh.
		rm -rf "$T" "$prev"
		die "patches/$name no longer applies to linux-source-6.12 $pkgver (Linux $kver); failed hunks are listed above and kept in build/rejects/$name.rej"
	fi
	cp "$p" "$META/applied/$name"
done

# Unchanged results keep their old timestamps.
if [ -d "$prev" ]; then
	(cd "$prev" && find . -type f) | while read -r f; do
		cmp -s "$prev/$f" "$T/$f" && touch -r "$prev/$f" "$T/$f"
	done
	rm -rf "$prev"
fi

for l in "${LINKS[@]}"; do
	dst="$T/${l%%:*}"
	src="$REPO/${l#*:}"
	[ -e "$src" ] || die "$src is missing"
	rm -rf "$dst"
	ln -s "$src" "$dst"
done

echo "$want" > "$META/stamp"
echo "prepare-tree: build/linux ready: $(cat "$B/BASE"), ${#patches[@]} patches"
