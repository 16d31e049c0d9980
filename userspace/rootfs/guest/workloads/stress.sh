# SPDX-License-Identifier: GPL-2.0
# W=stress, sourced by /mmrs/workload.sh: the stock stress tools on the mm
# system calls, for SECONDS each (default 60):
# - stress-ng 0.15.06's memory stressors all at once, every result verified
#   (--verify): vm with every method, mmap, madvise (without CAP_SYS_ADMIN,
#   below), mremap, userfaultfd,
#   fork, brk, stack, bigheap, mlock, numa, pageswap (SKIP_STRESSORS leaves
#   some out, below). bigheap grows its heap
#   until an allocation fails: it runs in a second stress-ng, alongside, with
#   1 GiB of address space (ulimit -v), so that it meets that limit and not
#   the OOM killer (an OOM kill fails the boot, scripts/splats.txt); the
#   others would meet the same limit in their own mappings (mmap's 256 MiB
#   and stress-ng's bookkeeping did, and the stressor ran nothing).
# - trinity as the unprivileged user mmrs on the mm system calls, seed SEED
#   (default 1, printed: "trinity seed N" replays it with SEED=N), no
#   sockets, userfaultfd open to unprivileged users; stopped with SIGINT after
#   TRINITY_SECONDS (default SECONDS), or after CALLS system calls (default
#   10000000) if that is first. Its set-up alone takes some 30 s under TCG
#   and KASAN: a short run limits the calls, with time to spare.
# A stressor that fails, a verification failure or a stressor that completed
# no bogo operation fails the workload; so does trinity exiting other than by
# its own end or the time limit, or having run fewer than MIN_CALLS (default
# 1) system calls.
rc=0
secs=${SECONDS_EACH:-60}
sysctl -q -w vm.unprivileged_userfaultfd=1 || rc=1
echo "  NUMA nodes: $(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | xargs -n1 basename 2>/dev/null | xargs);" \
	"$(grep Mems_allowed_list /proc/self/status)"
# 64 MiB a vm and mremap instance (default 256): under TCG and KASAN one
# pass over 256 MiB with every vm method takes longer than a short run. 4 MiB
# for mmap: its bogo op unmaps and maps back every page one at a time, in a
# random order found by a linear search, quadratic in the pages: with 64 MiB
# not one op completed in 300 s (x86_64 prod-debug).
# A short run (make test) asks for less, VM_BYTES and MMAP_BYTES: on x86_64
# prod-debug neither vm at 64 MiB nor mmap at 4 MiB completed one bogo
# operation in 60 s (2026-11-28).
stressors="--vm 2 --vm-bytes ${VM_BYTES:-64M} --vm-method all --mmap 1 --mmap-bytes ${MMAP_BYTES:-4M}
	--mremap 1 --mremap-bytes ${VM_BYTES:-64M} --userfaultfd 1 --fork 1 --brk 1 --stack 1 --mlock 1 --numa 1
	--pageswap 1"
# SKIP_STRESSORS (names, comma-separated) leaves stressors of the main
# stress-ng out: make test's short run leaves out numa, whose first operation
# alone takes 150 to 220 s on x86_64 prod-debug under TCG and KASAN (the
# others complete theirs within 120 s); make check-full runs it. A name that
# is not one of them fails the workload, so a typo cannot pass as a skip.
for s in $(echo "${SKIP_STRESSORS:-}" | tr ',' ' '); do
	# a stressor is "--NAME INSTANCES"; its own options go with it
	if echo " $(echo $stressors) " | grep -qE -- " --$s [0-9]+ "; then
		stressors=$(echo $stressors | awk -v s="$s" '{ for (i = 1; i < NF; i += 2)
			if ($i != "--" s && index($i, "--" s "-") != 1) printf "%s %s ", $i, $(i + 1) }')
	else
		echo "mmrs-workload: SKIP_STRESSORS names $s, which is not one of the stressors"
		rc=1
	fi
done
[ -n "${SKIP_STRESSORS:-}" ] && echo "  left out (SKIP_STRESSORS): $SKIP_STRESSORS"
# madvise in a stress-ng of its own without CAP_SYS_ADMIN: as root, 0.15.06's
# madvise stressor gives its own pages MADV_HWPOISON (stress_random_advise()),
# and on a kernel with CONFIG_MEMORY_FAILURE (Debian's arm64) the kernel then
# kills it with SIGBUS, as it should ("Memory failure: ...: Sending SIGBUS to
# stress-ng-madvi"), which stress-ng counts, silently, as an unsuccessful run
# (seen on arm64 prod-debug, 2026-11-27). Without the capability both
# injections fail with EPERM and the stressor goes on with every other advice.
echo "  stress-ng $(stress-ng --version | awk '{ print $3 }'):" $stressors "--verify -t ${secs}s;" \
	"beside it (ulimit -v 1 GiB): --bigheap 1 --verify -t ${secs}s;" \
	"and without CAP_SYS_ADMIN: --madvise 1 --verify -t ${secs}s"
# shellcheck disable=SC2086
measure stress-ng bash -c "(ulimit -v 1048576 && exec stress-ng --bigheap 1 --verify -t ${secs}s --metrics-brief) \
	> $OUT/stress-ng-bigheap.out 2>&1 & b=\$!
	setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- \
		stress-ng --madvise 1 --verify -t ${secs}s --metrics-brief > $OUT/stress-ng-madvise.out 2>&1 & m=\$!
	stress-ng $(echo $stressors) --verify -t ${secs}s --metrics-brief; r=\$?
	wait \$b; rb=\$?; wait \$m; rm=\$?; cat $OUT/stress-ng-bigheap.out $OUT/stress-ng-madvise.out
	[ \$r = 0 ] || exit \$r; [ \$rb = 0 ] || exit \$rb; exit \$rm" || rc=1
# everything it said: which stressor skipped, failed or lacked a resource,
# and why; each one's bogo ops (that it ran)
grep -v 'nanosecs per\|calls per sec\|miscellaneous metrics' "$OUT/stress-ng.out" | head -n 80 |
	sed 's/^stress-ng: /  /'
if grep -qiE 'verification fail|fail(ed)?: [1-9]' "$OUT/stress-ng.out"; then
	echo "mmrs-workload: stress-ng reported a failure"
	rc=1
fi
# Every stressor dispatched must have done something: one that completed no
# bogo operation in its time tested nothing, whatever the exit status says
# (on x86_64 prod-debug, 30 s each left vm and mremap at 0, 2026-11-28).
# The dispatch lines name them ("dispatching hogs: 2 vm, 1 mmap"), the
# metrics lines count them ("metrc: [146] vm  312676  600.1 ...").
idle=$(awk '
	/dispatching hogs:/ {
		sub(/.*dispatching hogs: /, ""); sub(/[ \r]+$/, "")
		n = split($0, h, /, /)
		for (i = 1; i <= n; i++) { split(h[i], f, " "); want[f[2]] = 1 }
	}
	/metrc: \[[0-9]+\] [a-z0-9-]+ +[0-9]+ / {
		for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		ops[$(i + 1)] += $(i + 2)
	}
	END { for (s in want) if (!(s in ops) || ops[s] == 0) printf "%s ", s }' "$OUT/stress-ng.out")
if [ -n "$idle" ]; then
	echo "mmrs-workload: stress-ng stressors with no bogo operation: $idle"
	rc=1
fi

tdir=$(dirname "$OUT")/trinity
mkdir -p "$tdir" && chown mmrs:mmrs "$tdir"
cd "$tdir" || return 1
calls="mmap munmap mremap mprotect madvise process_madvise brk mlock munlock mlock2 mlockall
	munlockall mincore msync mbind migrate_pages move_pages userfaultfd fork"
cargs=()
for c in $calls; do cargs+=(-c "$c"); done
seed=${SEED:-1}
tsecs=${TRINITY_SECONDS:-$secs}
echo "  trinity seed $seed, ${tsecs}s or ${CALLS:-10000000} calls, at least ${MIN_CALLS:-1}:" $calls
MEASURE_OK=124 measure trinity timeout -s INT -k 30 "$tsecs" setpriv --reuid=mmrs --regid=mmrs --init-groups --reset-env -- \
	trinity -l off --disable-fds=sockets -s "$seed" -N "${CALLS:-10000000}" "${cargs[@]}"
t=$?
# 124: stopped by timeout at TRINITY_SECONDS, which is the plan
if [ $t != 0 ] && [ $t != 124 ]; then
	rc=1
fi
# It must have run system calls: its set-up (the fd providers, the shared
# mappings) takes tens of seconds under TCG and KASAN, and a run stopped
# before it ended, or killed without its last line, fuzzed nothing
# (x86_64 prod-debug, 30 s: "Ran 0 syscalls", 2026-11-28).
ran=$(sed -n 's/.*Ran \([0-9][0-9]*\) syscalls.*/\1/p' "$OUT/trinity.out" | tail -n 1)
if [ -z "$ran" ] || [ "$ran" -lt "${MIN_CALLS:-1}" ]; then
	echo "mmrs-workload: trinity ran ${ran:-no count of} system calls, fewer than ${MIN_CALLS:-1}"
	rc=1
fi
tail -n 8 "$OUT/trinity.out" | sed 's/^/  trinity: /'
cd /tmp || return 1
return $rc
