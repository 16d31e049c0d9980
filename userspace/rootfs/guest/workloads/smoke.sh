# SPDX-License-Identifier: GPL-2.0
# W=smoke, sourced by /mmrs/workload.sh: stress-ng's VM stressors (every
# method, results verified) for 20 s, then trinity as the unprivileged user
# mmrs on the mm system calls (2000 calls, seed SEED, default 1), with
# userfaultfd open to unprivileged users.
rc=0
sysctl -q -w vm.unprivileged_userfaultfd=1 || rc=1
measure stress-ng stress-ng --vm 2 --vm-method all --verify -t 20s --metrics-brief || rc=1
grep -E 'successful run|passed|failed|skipped' "$OUT/stress-ng.out" | sed 's/^stress-ng: /  /'
tdir=$(dirname "$OUT")/trinity
mkdir -p "$tdir" && chown mmrs:mmrs "$tdir"
cd "$tdir" || return 1
measure trinity setpriv --reuid=mmrs --regid=mmrs --init-groups --reset-env -- \
	trinity -q -l off --disable-fds=sockets -s "${SEED:-1}" -N 2000 \
	-c mmap -c munmap -c madvise -c mremap -c mprotect || rc=1
grep -E 'Ran [0-9]+ syscalls|successes|failures' "$OUT/trinity.out" | tail -n 3 | sed 's/^/  /'
cd /tmp || return 1
return $rc
