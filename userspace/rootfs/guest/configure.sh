#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /mmrs/configure.sh: the second stage of a foreign-architecture build of the
# Debian userland (scripts/rootfs.sh), run in a guest of that architecture on
# the tree mmdebstrap --variant=extract unpacked (the .debs kept in
# /var/cache/apt/archives): installs them with dpkg as mmdebstrap would in a
# chroot (the Essential:yes ones first, then the rest), checks that every one
# is configured, and writes the whole tree as a tar for the host to the
# virtio disk with the serial "out".
# dpkg's output goes to /var/log/mmrs-configure.log (in the tar), and its
# last lines to the console on failure.
set -uo pipefail
log=/var/log/mmrs-configure.log
export DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true LC_ALL=C.UTF-8
cd /var/cache/apt/archives || exit 1
out=""
for d in /sys/block/vd*; do [ "$(cat "$d/serial" 2>/dev/null)" = out ] && out=/dev/${d##*/}; done
fail() {
	echo "mmrs-configure: $*"
	tail -n 30 "$log" | sed 's/^/mmrs-configure:   /'
	exit 1
}
[ -n "$out" ] || fail "no virtio disk with the serial out"
t0=$(date +%s)
# no daemons started by maintainer scripts
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
chmod 755 /usr/sbin/policy-rc.d
: > /var/lib/dpkg/status
: > "$log"
mapfile -t ess < essential.list
echo "mmrs-configure: dpkg --install: ${#ess[@]} Essential:yes packages"
dpkg --install --force-depends "${ess[@]}" >>"$log" 2>&1 || fail "installing the Essential:yes packages failed"
mapfile -t rest < <(ls *.deb | grep -vxF -f essential.list)
echo "mmrs-configure: dpkg --install: ${#rest[@]} more packages ($(( $(date +%s) - t0 ))s so far)"
dpkg --install --force-depends "${rest[@]}" >>"$log" 2>&1 || fail "installing the other packages failed"
dpkg --configure -a >>"$log" 2>&1 || fail "dpkg --configure -a failed"
audit=$(dpkg --audit 2>&1)
[ -z "$audit" ] || { echo "$audit" >>"$log"; fail "dpkg --audit: not all packages are installed"; }
n=$(dpkg-query -W -f '${db:Status-Abbrev}\n' | grep -c '^ii')
echo "mmrs-configure: $n packages installed in $(( $(date +%s) - t0 ))s; writing the tree to $out"
rm -f /usr/sbin/policy-rc.d /var/cache/apt/archives/*.deb /var/cache/apt/archives/essential.list
rm -f /var/cache/debconf/*-old /var/lib/dpkg/*-old
echo "Debian $(cat /etc/debian_version) $(dpkg --print-architecture), configured in a guest $(date -u +%FT%TZ)" > /etc/mmrs-rootfs-configured
tar --one-file-system --numeric-owner -C / --exclude=./mmrs -cf "$out" . || fail "tar to $out failed"
sync
echo "mmrs-configure: done in $(( $(date +%s) - t0 ))s"
