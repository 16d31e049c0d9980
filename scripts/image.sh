#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# image.sh ARCH FLAVOUR: build a bootable test kernel into
# build/image-ARCH-FLAVOUR from tinyconfig plus configs/common.config,
# configs/ARCH.config and, for FLAVOUR debug, off or clang14,
# configs/FLAVOUR.config. clang14 is the test kernel built with Debian's
# default clang (14) and no helper inlining: the compiler reference of
# `make bench`. prod is the distribution-shaped kernel of the full selftest
# run (configs/prod.config and configs/prod-ARCH.config on top); prod-off and
# prod-debug add off.config or debug.config to it (prod-debug also
# kunit.config: the suites built in, off unless kunit.enable=1), and
# prod-debug-off debug.config and off.config (the MM_RS=n twin of
# prod-debug, for the stock stress tools); both then add
# configs/prod-debug-ARCH.config where there is one (x86_64: no ACPI). The
# prod flavours start from Debian's own configuration of the mm, THP, KSM, memcg,
# swap, hugetlb/HVO, page-table, error-reporting and preemption areas
# (scripts/debian-diff.py fragment; scripts/debian-config.sh fetches it),
# merged before the project's fragments; `make lint` lists where the result
# still differs from Debian's (configs/debian-diff.txt). Every flavour must
# end with the options of configs/required.txt, or the build stops.
# MMRS_CONFIG_ONLY=1 stops after the configuration (make lint's check),
# MMRS_IMAGE_OUT replaces the output directory. MMRS_PRISTINE=1 builds the
# same flavour from the pristine Debian tree (build/linux-pristine: no
# patches/, no mm-rs, so no Rust either) into build/image-ARCH-FLAVOUR-pristine:
# the kernel a splat must reproduce on to be classified as the base's.
# MMRS_IMAGE_BUILT="ARCH-FLAVOUR ...": the caller built those kernels earlier
# in the same run and nothing changed since (make test's steps after its
# image step): their image's path is printed with no configuration, no
# prepare-tree and no make, which cost some 15-30 s a step even when
# nothing is to be done.
# Prints the path of the kernel image on its last line.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: image.sh x86_64|arm64 test|debug|off|clang14|prod|prod-off|prod-debug|prod-debug-off}
flavour=${2:-test}
[ "$flavour" = clang14 ] && export MM_RS_LLVM=1
case " ${MMRS_IMAGE_BUILT:-} " in
*" $arch-$flavour "*)
	if [ -z "${MMRS_IMAGE_OUT:-}${MMRS_PRISTINE:-}${MMRS_CONFIG_ONLY:-}" ]; then
		built=$REPO/build/image-$arch-$flavour/$([ "$arch" = x86_64 ] && echo arch/x86/boot/bzImage || echo arch/arm64/boot/Image)
		[ -f "$built" ] || { echo "image: MMRS_IMAGE_BUILT names $arch-$flavour, which has no image at ${built#$REPO/}" >&2; exit 1; }
		echo "$built"
		exit 0
	fi ;;
esac
. "$REPO/scripts/env.sh"
mm_rs_build_lock
T="$REPO/build/linux"
out=${MMRS_IMAGE_OUT:-"$REPO/build/image-$arch-$flavour"}
pristine=${MMRS_PRISTINE:-}
if [ -n "$pristine" ]; then
	T="$REPO/build/linux-pristine"
	out=${MMRS_IMAGE_OUT:-"$REPO/build/image-$arch-$flavour-pristine"}
fi
case "$arch" in
x86_64) karch=x86; image=arch/x86/boot/bzImage ;;
arm64) karch=arm64; image=arch/arm64/boot/Image ;;
*) echo "image.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
frags=("$REPO/configs/common.config" "$REPO/configs/$arch.config")
case "$flavour" in
test) ;;
debug|off|clang14) frags+=("$REPO/configs/$flavour.config") ;;
prod|prod-off|prod-debug|prod-debug-off)
	frags+=("$REPO/configs/prod.config" "$REPO/configs/prod-$arch.config" "$REPO/configs/lean.config")
	case "$flavour" in
	prod-debug-off) frags+=("$REPO/configs/debug.config" "$REPO/configs/off.config") ;;
	prod-debug) frags+=("$REPO/configs/debug.config" "$REPO/configs/kunit.config") ;;
	prod-*) frags+=("$REPO/configs/${flavour#prod-}.config") ;;
	esac
	# make test's booted kernels: x86_64 without ACPI (the fragment says why).
	case "$flavour" in
	prod-debug*) [ ! -f "$REPO/configs/prod-debug-$arch.config" ] ||
		frags+=("$REPO/configs/prod-debug-$arch.config") ;;
	esac ;;
*) echo "image.sh: FLAVOUR must be test, debug, off, clang14, prod, prod-off, prod-debug or prod-debug-off" >&2; exit 2 ;;
esac

# MMRS_CONFIG_EXTRA: one more fragment, last (make lint's test of the
# required options, with MMRS_IMAGE_OUT for a directory of its own).
[ -n "${MMRS_CONFIG_EXTRA:-}" ] && frags+=("$MMRS_CONFIG_EXTRA")

if [ -n "$pristine" ]; then
	pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	if [ "$(cat "$T/.pristine" 2>/dev/null)" != "$pkgver" ]; then
		echo "image: extracting the pristine linux-source-6.12 $pkgver into build/linux-pristine" >&2
		rm -rf "$T" && mkdir -p "$T"
		tar -xf /usr/src/linux-source-6.12.tar.xz -C "$T" --strip-components=1
		echo "$pkgver" > "$T/.pristine"
	fi
	# The same fragments without what only the mm-rs tree has.
	pf="$out.frags.d"
	rm -rf "$pf" && mkdir -p "$pf"
	n=0
	for f in "${frags[@]}"; do
		n=$((n + 1))
		grep -vE '^(# )?CONFIG_(MM_RS|RUST)[A-Z0-9_]*[= ]' "$f" > "$pf/$n-$(basename "$f")"
		echo '# CONFIG_RUST is not set' >> "$pf/$n-$(basename "$f")"
	done
	frags=("$pf"/*)
else
	"$REPO/scripts/prepare-tree.sh" >&2
fi
mkdir -p "$out"
# The prod flavours: Debian's values of the checked areas come first.
deb=()
case "$flavour" in
prod*)
	debcfg=$("$REPO/scripts/debian-config.sh" "$arch")
	python3 "$REPO/scripts/debian-diff.py" fragment "$T" "$debcfg" > "$out/debian-areas.config.tmp"
	mv "$out/debian-areas.config.tmp" "$out/debian-areas.config"
	deb=("$out/debian-areas.config") ;;
esac
mk=(make -s -C "$T" O="$out" ARCH="$karch" "${MM_RS_MAKE_OPTS[@]}")

# Regenerate the config only when a fragment changed.
want=$(cat "${deb[@]}" "${frags[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.config.frags" 2>/dev/null)" != "$want" ]; then
	echo "image: configuring $arch $flavour" >&2
	"${mk[@]}" tinyconfig >/dev/null
	(cd "$out" && "$T/scripts/kconfig/merge_config.sh" -m -O "$out" .config "${deb[@]}" "${frags[@]}" >/dev/null)
	"${mk[@]}" olddefconfig >/dev/null
	# Every option the fragments ask for (the last fragment to name one wins)
	# must have stuck.
	missing=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qx "$line" "$out/.config" || { echo "image: $line did not stick (dependencies?)" >&2; missing=1; } ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			if grep -q "^$opt=" "$out/.config"; then
				echo "image: $opt should be off" >&2
				missing=1
			fi
			;;
		esac
	done < <(cat "${frags[@]}" | sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=.*/\1 &/p; s/^# \(CONFIG_[A-Z0-9_]*\) is not set/\1 &/p' |
		 awk '{ k = $1; sub(/^[^ ]* /, ""); v[k] = $0; if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
		      END { for (i = 0; i < n; i++) print v[order[i]] }')
	[ $missing = 0 ] || exit 1
	echo "$want" > "$out/.config.frags"
fi

# Every booted kernel can report and detect (configs/required.txt), checked
# on every build, not only when the configuration was written.
bad=0
while read -r a line; do
	case "$a" in ''|\#*) continue ;; esac
	[ "$a" = all ] || [ "$a" = "$arch" ] || continue
	grep -qx "$line" "$out/.config" ||
		{ echo "image: $arch $flavour: the final .config lacks $line (configs/required.txt): a kernel that cannot report or detect is not booted" >&2; bad=1; }
done < "$REPO/configs/required.txt"
[ $bad = 0 ] || exit 1
if [ -n "${MMRS_CONFIG_ONLY:-}" ]; then
	echo "$out/.config"
	exit 0
fi

echo "image: building $arch $flavour kernel (${out#$REPO/})" >&2
"${mk[@]}" -j"$(nproc)" "$(basename "$image")" >&2
echo "$out/$image"
