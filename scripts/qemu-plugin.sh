#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the mmrs-meter QEMU TCG plugin (userspace/qemu-plugin/) into
# build/qemu-plugin/libmmrs-meter.so.
#
#   scripts/qemu-plugin.sh [build]   fetch the header if needed, then build
#   scripts/qemu-plugin.sh header    only fetch and check qemu-plugin.h
#
# QEMU's plugin header is not in any Debian binary package: it comes from
# the source package qemu, of exactly the version the installed
# qemu-system-x86 was built from.  A deb-src entry is added in
# /etc/apt/sources.list.d/mmrs-src.sources when none is there, the source is
# downloaded (apt-get source --download-only: signed, checksummed), and only
# include/qemu/qemu-plugin.h is taken from the .orig tarball, after
# checking that no Debian patch changes it.  The header is kept per
# machine in $MMRS_CACHE (default /var/cache/mmrs), so a fresh clone does
# not download again.  Idempotent.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/build/qemu-plugin
INC=$OUT/include
SRC=$ROOT/userspace/qemu-plugin
CACHE=${MMRS_CACHE:-/var/cache/mmrs}
SOURCES=/etc/apt/sources.list.d/mmrs-src.sources
CC=${CC:-gcc}
CFLAGS="-O2 -g -std=gnu11 -Wall -Wextra -Werror -fPIC"

die() { echo "qemu-plugin: error: $*" >&2; exit 1; }
note() { echo "qemu-plugin: $*"; }

# The plugin API version (QEMU_PLUGIN_VERSION) each upstream QEMU series has.
api_of_upstream() {
	case "$1" in
	4.2*|5.*|6.*|7.*|8.0*) echo 1 ;;
	8.1*|8.2*|9.0*) echo 2 ;;
	9.1*) echo 3 ;;
	9.2*) echo 4 ;;
	*) echo unknown ;;
	esac
}

installed_versions() {
	[ "$(dpkg-query -W -f='${Status}' qemu-system-x86 2>/dev/null)" = "install ok installed" ] \
		|| die "qemu-system-x86 is not installed (scripts/setup.sh installs it)"
	BIN_VER=$(dpkg-query -W -f='${Version}' qemu-system-x86)
	SRC_VER=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
	# 1:7.2+dfsg-7+deb12u18 -> 7.2
	UPSTREAM=${SRC_VER#*:}
	UPSTREAM=${UPSTREAM%%[+-]*}
	WANT_API=$(api_of_upstream "$UPSTREAM")
	[ "$WANT_API" != unknown ] || die "no known plugin API version for QEMU $UPSTREAM; extend api_of_upstream"
}

header_ok() {	# $1: header, $2: its .version stamp
	[ -f "$1" ] && [ -f "$2" ] && [ "$(cat "$2")" = "$SRC_VER" ] || return 1
	local api
	api=$(sed -n 's/^#define QEMU_PLUGIN_VERSION \([0-9]*\).*/\1/p' "$1")
	[ "$api" = "$WANT_API" ] \
		|| die "$1 has QEMU_PLUGIN_VERSION '$api' but QEMU $UPSTREAM ($BIN_VER) takes $WANT_API"
}

have_src_version() {
	# No grep -q on a pipe: under pipefail, apt-cache's SIGPIPE would fail it.
	apt-cache showsrc qemu 2>/dev/null | grep -cx "Version: $SRC_VER" >/dev/null
}

fetch_header() {
	local tmp orig deb
	if ! have_src_version; then
		[ "$(id -u)" = 0 ] || die "no deb-src for qemu $SRC_VER; as root, run this script once (it adds $SOURCES)"
		if [ ! -f "$SOURCES" ]; then
			note "adding deb-src entries in $SOURCES"
			cat >"$SOURCES" <<-'EOF'
			# mm-rs: scripts/qemu-plugin.sh takes QEMU's plugin header from the qemu source package.
			Types: deb-src
			URIs: http://deb.debian.org/debian
			Suites: bookworm bookworm-updates
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

			Types: deb-src
			URIs: http://deb.debian.org/debian-security
			Suites: bookworm-security
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
			EOF
		fi
		apt-get -o DPkg::Lock::Timeout=900 update -q >/dev/null \
			|| die "apt-get update failed"
		have_src_version \
			|| die "the archive has no source qemu $SRC_VER (installed: qemu-system-x86 $BIN_VER); upgrade qemu-system-x86 or add the suite that has it to $SOURCES"
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	note "downloading source qemu $SRC_VER (about 24 MB) for include/qemu/qemu-plugin.h"
	(cd "$tmp" && apt-get source -q --download-only "qemu=$SRC_VER" >/dev/null 2>"$tmp/err") \
		|| { cat "$tmp/err" >&2; die "apt-get source qemu=$SRC_VER failed"; }
	orig=$(ls "$tmp"/qemu_*.orig.tar.* 2>/dev/null | head -n1)
	deb=$(ls "$tmp"/qemu_*.debian.tar.* 2>/dev/null | head -n1)
	[ -n "$orig" ] && [ -n "$deb" ] || die "apt-get source gave no .orig/.debian tarball"
	tar -xf "$orig" -C "$tmp" --wildcards --no-anchored 'include/qemu/qemu-plugin.h' \
		|| die "$orig has no include/qemu/qemu-plugin.h"
	tar -xf "$deb" -C "$tmp" debian/patches
	if grep -rlsF 'include/qemu/qemu-plugin.h' "$tmp/debian/patches" >"$tmp/touching"; then
		die "Debian patches change qemu-plugin.h ($(xargs -n1 basename <"$tmp/touching" | tr '\n' ' ')): teach scripts/qemu-plugin.sh to apply them"
	fi
	mkdir -p "$1"
	cp "$tmp"/qemu-*/include/qemu/qemu-plugin.h "$1/qemu-plugin.h"
	echo "$SRC_VER" >"$1/qemu-plugin.h.version"
	rm -rf "$tmp"
	trap - EXIT
}

header() {
	installed_versions
	if header_ok "$INC/qemu-plugin.h" "$INC/qemu-plugin.h.version"; then
		return
	fi
	local cdir=$CACHE/qemu-${SRC_VER#*:}
	if ! header_ok "$cdir/qemu-plugin.h" "$cdir/qemu-plugin.h.version"; then
		if mkdir -p "$cdir" 2>/dev/null && [ -w "$cdir" ]; then
			fetch_header "$cdir"
		else
			cdir=$INC
			fetch_header "$cdir"
		fi
		header_ok "$cdir/qemu-plugin.h" "$cdir/qemu-plugin.h.version" \
			|| die "fetched header did not check out"
	fi
	if [ "$cdir" != "$INC" ]; then
		mkdir -p "$INC"
		cp "$cdir/qemu-plugin.h" "$cdir/qemu-plugin.h.version" "$INC/"
	fi
	note "qemu-plugin.h of qemu $SRC_VER, plugin API $WANT_API (installed qemu-system-x86 $BIN_VER)"
}

build() {
	header
	local so=$OUT/libmmrs-meter.so
	if [ -f "$so" ] && [ "$so" -nt "$SRC/mmrs-meter.c" ] && [ "$so" -nt "$INC/qemu-plugin.h" ] \
		&& [ "$so" -nt "$0" ]; then
		return
	fi
	note "CC $so"
	# shellcheck disable=SC2086
	$CC $CFLAGS -shared -I"$INC" -o "$so.tmp" "$SRC/mmrs-meter.c" -lpthread
	mv "$so.tmp" "$so"
}

case "${1:-build}" in
header) header ;;
build) build ;;
*) die "usage: $0 [build|header]" ;;
esac
