#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-config.sh ARCH: print the path of Debian's own configuration of the
# base kernel for ARCH (x86_64: amd64_none_amd64, arm64: arm64_none_arm64),
# from the package linux-config-6.12 of the same version as
# linux-source-6.12. The amd64 package is installed by scripts/setup.sh; the
# arm64 one is downloaded without an arm64 host and without adding arm64 to
# dpkg: apt runs with APT::Architecture=arm64 on a private copy of Debian's
# source list and its own lists and cache (build/debian-apt-arm64), so apt
# still checks the package against the signed Release file. The result is
# kept in build/debian-config/ARCH.config.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: debian-config.sh x86_64|arm64}
out="$REPO/build/debian-config"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12) ||
	{ echo "debian-config: linux-source-6.12 is not installed (scripts/setup.sh)" >&2; exit 1; }
mkdir -p "$out"
cfg="$out/$arch.config"
if [ -f "$cfg" ] && [ "$(cat "$cfg.version" 2>/dev/null)" = "$ver" ]; then
	echo "$cfg"
	exit 0
fi
case "$arch" in
x86_64)
	have=$(dpkg-query -W -f='${Version}' linux-config-6.12 2>/dev/null) || have=none
	[ "$have" = "$ver" ] || { echo "debian-config: linux-config-6.12 $have installed, linux-source-6.12 is $ver (scripts/setup.sh installs both)" >&2; exit 1; }
	xz -dc /usr/src/linux-config-6.12/config.amd64_none_amd64.xz > "$cfg.tmp" ;;
arm64)
	a="$REPO/build/debian-apt-arm64"
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/etc" "$a/deb"
	# Debian's sources, arm64 only (deb822 or one-line format).
	: > "$a/etc/arm64.sources"
	for s in /etc/apt/sources.list.d/*.sources; do
		[ -f "$s" ] && sed '/^Types:/a Architectures: arm64' "$s" >> "$a/etc/arm64.sources" && echo >> "$a/etc/arm64.sources"
	done
	if [ -f /etc/apt/sources.list ]; then
		sed -n 's/^deb \(\[[^]]*\] \)\?/deb [arch=arm64] /p' /etc/apt/sources.list > "$a/etc/arm64.list"
	else
		: > "$a/etc/arm64.list"
	fi
	opts=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
	      -o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache"
	      -o Dir::Etc::SourceList="$a/etc/arm64.list"
	      -o Dir::Etc::SourceParts="$a/etc" -o Debug::NoLocking=1)
	apt-get "${opts[@]}" -q update >&2
	(cd "$a/deb" && rm -f ./*.deb && apt-get "${opts[@]}" -q download "linux-config-6.12:arm64=$ver" >&2)
	deb=$(ls "$a"/deb/linux-config-6.12_*_arm64.deb)
	rm -rf "$a/x" && mkdir -p "$a/x"
	dpkg-deb -x "$deb" "$a/x"
	xz -dc "$a/x/usr/src/linux-config-6.12/config.arm64_none_arm64.xz" > "$cfg.tmp" ;;
*) echo "debian-config: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
grep -q '^CONFIG_MMU=y' "$cfg.tmp" || { echo "debian-config: $cfg.tmp is not a kernel configuration" >&2; exit 1; }
mv "$cfg.tmp" "$cfg"
echo "$ver" > "$cfg.version"
echo "$cfg"
