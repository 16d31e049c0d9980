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
# prod-debug add off.config or debug.config to it, and prod-debug-off both
# (the MM_RS=n twin of prod-debug, for the stock stress tools). Prints the
# path of the kernel image on its last line.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: image.sh x86_64|arm64 test|debug|off|clang14|prod|prod-off|prod-debug|prod-debug-off}
flavour=${2:-test}
[ "$flavour" = clang14 ] && export MM_RS_LLVM=1
. "$REPO/scripts/env.sh"
mm_rs_build_lock
T="$REPO/build/linux"
out="$REPO/build/image-$arch-$flavour"
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
	frags+=("$REPO/configs/prod.config" "$REPO/configs/prod-$arch.config")
	case "$flavour" in
	prod-debug-off) frags+=("$REPO/configs/debug.config" "$REPO/configs/off.config") ;;
	prod-*) frags+=("$REPO/configs/${flavour#prod-}.config") ;;
	esac ;;
*) echo "image.sh: FLAVOUR must be test, debug, off, clang14, prod, prod-off, prod-debug or prod-debug-off" >&2; exit 2 ;;
esac

"$REPO/scripts/prepare-tree.sh" >&2
mkdir -p "$out"
mk=(make -s -C "$T" O="$out" ARCH="$karch" "${MM_RS_MAKE_OPTS[@]}")

# Regenerate the config only when a fragment changed.
want=$(cat "${frags[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.config.frags" 2>/dev/null)" != "$want" ]; then
	echo "image: configuring $arch $flavour" >&2
	"${mk[@]}" tinyconfig >/dev/null
	(cd "$out" && "$T/scripts/kconfig/merge_config.sh" -m -O "$out" .config "${frags[@]}" >/dev/null)
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

echo "image: building $arch $flavour kernel (build/image-$arch-$flavour)" >&2
"${mk[@]}" -j"$(nproc)" "$(basename "$image")" >&2
echo "$out/$image"
