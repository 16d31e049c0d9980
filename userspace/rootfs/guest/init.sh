#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /mmrs/init.sh MODE [ARGS]: run by the initramfs's /init (stage1.c, PID 1)
# chrooted into the Debian userland (EROFS under an overlayfs with a tmpfs
# upper layer). MODE is shell (a login-free root shell on the serial console;
# with /mmrs/stdin present, that file is its input instead), workload NAME
# [KEY=VALUE...] (/mmrs/workload.sh) or configure (/mmrs/configure.sh: the
# first-stage tree of a foreign build, scripts/rootfs.sh). mmrs.set=a=b,c=d on
# the kernel command line writes b to /sys/kernel/mm/a, d to
# /sys/kernel/mm/c first (a path that starts with / is taken as it is:
# /sys/kernel/debug/mm_rs/anon_order=0,
# transparent_hugepage/hugepages-64kB/enabled=always). The guest ends when
# this script returns.
mode=${1:-shell}
shift
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
hostname "mmrs-$(uname -m | tr _ -)"
cmdline=$(cat /proc/cmdline)
arg() { local v; v=$(sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<" $cmdline"); echo "$v"; }
# the host's clock (arm64's virt machine has no RTC driver in these kernels)
d=$(arg mmrs.date)
[ -n "$d" ] && date -s "@$d" >/dev/null

[ "$mode" = configure ] && exec bash /mmrs/configure.sh

# poweroff, reboot, halt: end the guest (QEMU runs with -no-reboot)
for b in poweroff reboot halt; do ln -sf /mmrs/bin/$b /usr/local/sbin/$b; done
# an unprivileged user for the workloads (trinity refuses to run as root)
if ! grep -q '^mmrs:' /etc/passwd; then
	echo 'mmrs:x:1000:1000:mm-rs:/home/mmrs:/bin/bash' >> /etc/passwd
	echo 'mmrs:x:1000:' >> /etc/group
	echo 'mmrs:*:19000:0:99999:7:::' >> /etc/shadow
	mkdir -p /home/mmrs && chown 1000:1000 /home/mmrs
fi

set_list=$(arg mmrs.set)
if [ -n "$set_list" ]; then
	IFS=, read -ra sets <<<"$set_list"
	for s in "${sets[@]}"; do
		f=${s%%=*}
		[ "${f:0:1}" = / ] || f=/sys/kernel/mm/$f
		if ! echo "${s#*=}" > "$f"; then
			echo "mmrs-init: could not write ${s#*=} to $f"
			exit 1
		fi
	done
fi

case "$mode" in
shell)
	if [ -f /mmrs/stdin ]; then
		bash -l < /mmrs/stdin
		exit $?
	fi
	con=$(awk '{ print $NF }' /sys/class/tty/console/active)
	rows=$(arg mmrs.rows) cols=$(arg mmrs.cols) term=$(arg mmrs.term)
	[ -n "$rows" ] && [ -n "$cols" ] && stty -F "/dev/$con" rows "$rows" cols "$cols"
	[ -n "$term" ] && [ -e "/usr/share/terminfo/${term:0:1}/$term" -o -e "/lib/terminfo/${term:0:1}/$term" ] && export TERM=$term
	echo "mmrs: Debian $(cat /etc/debian_version) on Linux $(uname -r) $(uname -m); /sys/kernel/mm/mm_rs and /sys/kernel/debug/mm_rs:"
	for f in /sys/kernel/mm/mm_rs/* /sys/kernel/debug/mm_rs/*; do [ -f "$f" ] && echo "  ${f#/sys/kernel/} = $(cat "$f")"; done
	echo "mmrs: root shell; exit (or poweroff) ends the guest; user mmrs: setpriv --reuid=mmrs --regid=mmrs --init-groups bash"
	# a controlling terminal, for job control and ^C
	setsid -w -c bash -l <>"/dev/$con" >&0 2>&0
	;;
workload)
	exec bash /mmrs/workload.sh "$@"
	;;
*)
	echo "mmrs-init: unknown mode $mode (shell, workload, configure)"
	exit 2
	;;
esac
