#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# workload-verdict-test.sh: host test of the guest side of W=stress's
# verdict (userspace/rootfs/guest/workload.sh running workloads/stress.sh),
# which only a booted run reaches otherwise. stress-ng, trinity and the
# guest's helpers are fakes on PATH; workload.sh runs on the host with its
# workloads, output and time(1) pointed at a temporary directory. Each case
# says what the fakes do and the verdict the guest must print as its last
# line ("mmrs-workload: stress passed" or "... failed"), with an exit status
# that agrees:
#
# - stress-ng exits 0 with a bogo operation from every stressor it
#   dispatched, and trinity is stopped by timeout(1) at SECONDS_EACH (status
#   124, the plan), or ends by itself, having run at least MIN_CALLS
#   (default 1) system calls: passed;
# - stress-ng exits 2 or 3 (a stressor failed, or lacked a resource), the
#   bigheap or the madvise stress-ng beside it fails (madvise must run
#   without CAP_SYS_ADMIN: with it the fake dies as the real one did), stress-ng exits 0 but reports a
#   verification failure or a failed stressor, a stressor completes no bogo
#   operation or has no metrics line, trinity dies (a segfault, 139) or
#   exits 1, or stops with fewer than MIN_CALLS system calls or no count,
#   or SKIP_STRESSORS names what is not a stressor: failed. A stressor
#   SKIP_STRESSORS names is not dispatched, and its options go with it.
# Used by make lint.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/guest/workloads"
ln -s "$REPO/userspace/rootfs/guest/workloads/stress.sh" "$tmp/guest/workloads/stress.sh"

# stress-ng 0.15.06's lines, as the guest's console logs showed them.
cat > "$tmp/bin/stress-ng" <<'EOF'
#!/bin/bash
case " $* " in
*" --version "*) echo "stress-ng, version 0.15.06 (gcc 12.2, x86_64 Linux 6.12.117-mm-rs)"; exit 0 ;;
*" --bigheap "*)
	echo "stress-ng: info:  [201] dispatching hogs: 1 bigheap"
	echo "stress-ng: metrc: [201] bigheap             271     33.80      0.15     10.33         8.02          25.86"
	[ "${FAKE_BIGHEAP_RC:-0}" = 0 ] &&
		echo "stress-ng: info:  [201] passed: 1: bigheap (1)"
	exit "${FAKE_BIGHEAP_RC:-0}" ;;
*" --madvise "*)
	echo "stress-ng: info:  [202] dispatching hogs: 1 madvise"
	# as root with CAP_SYS_ADMIN it would poison its own pages and die of SIGBUS
	case " ${SETPRIV_ARGS:-} " in
	*" --bounding-set=-sys_admin "*) ;;
	*) echo "stress-ng: debug: [202] madvise: terminated on signal: 7 (SIGBUS)"; exit 2 ;;
	esac
	echo "stress-ng: metrc: [202] madvise               1     55.11      0.85     36.36         0.02           0.03"
	[ "${FAKE_MADVISE_RC:-0}" = 0 ] &&
		echo "stress-ng: info:  [202] passed: 1: madvise (1)"
	exit "${FAKE_MADVISE_RC:-0}" ;;
esac
# A stressor's option without its stressor (--vm-bytes without --vm) is
# refused here: SKIP_STRESSORS must take a stressor's options with it.
for a in "$@"; do
	case "$a" in
	--vm-*|--mmap-*|--mremap-*) st=${a#--}; st=${st%%-*}
		case " $* " in *" --$st "[0-9]*) ;; *) echo "stress-ng: error: $a without --$st"; exit 1 ;; esac ;;
	esac
done
# vm and numa are dispatched when they are asked for (SKIP_STRESSORS leaves
# them out)
h=""
case " $* " in *" --vm "*) h="2 vm, " ;; esac
h="${h}1 mmap"
case " $* " in *" --numa "*) h="$h, 1 numa" ;; esac
echo "stress-ng: info:  [200] dispatching hogs: $h"
[ -n "${FAKE_STRESS_LINE:-}" ] && echo "$FAKE_STRESS_LINE"
echo "stress-ng: metrc: [200] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s"
echo "stress-ng: metrc: [200]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)"
echo "stress-ng: metrc: [200] vm             ${FAKE_VM_OPS:-312676}    600.12    101.30    400.02       521.02         623.86"
echo "stress-ng: metrc: [200] mmap                 18    601.75      0.29      9.75         0.03           0.10"
[ -n "${FAKE_NO_NUMA_LINE:-}" ] ||
	echo "stress-ng: metrc: [200] numa                  1    215.04      0.10    191.98         0.00           0.01"
echo "stress-ng: info:  [200] passed: 12: vm (2) mmap (1)"
echo "stress-ng: info:  [200] failed: 0"
echo "stress-ng: info:  [200] successful run completed in 1.02s"
exit "${FAKE_STRESS_RC:-0}"
EOF
cat > "$tmp/bin/trinity" <<'EOF'
#!/bin/bash
echo "Trinity 1.9+git20230109  Dave Jones <davej@codemonkey.org.uk>"
case "${FAKE_TRINITY:-run}" in
# stopped by SIGINT (timeout -s INT at SECONDS_EACH): its last lines
# (the sleep goes with it: an orphan would outlive the test by a minute)
run) trap 'echo "[main] Bailing main loop because ctrl-c."
	echo "[main] Ran ${FAKE_CALLS:-68690} syscalls. Successes: 44424  Failures: 24230"; kill $!; exit 0' INT
	sleep 60 & wait; exit 0 ;;
# stopped by SIGINT but prints no count
mute) trap 'kill $!; exit 0' INT; sleep 60 & wait; exit 0 ;;
end) echo "[main] Ran 10000000 syscalls. Successes: 5000  Failures: 5000"; exit 0 ;;
segv) kill -SEGV $$ ;;
*) exit "$FAKE_TRINITY" ;;
esac
EOF
# setpriv ... -- CMD: CMD, as this user, its options in SETPRIV_ARGS
cat > "$tmp/bin/setpriv" <<'EOF'
#!/bin/bash
export SETPRIV_ARGS=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do SETPRIV_ARGS="$SETPRIV_ARGS $1"; shift; done
shift
exec "$@"
EOF
# time -v -o FILE CMD: CMD, and the line workload.sh reads
cat > "$tmp/bin/fake-time" <<'EOF'
#!/bin/bash
o=$3
shift 3
"$@"
rc=$?
printf '\tMaximum resident set size (kbytes): 1000\n\tUser time (seconds): 0.10\n\tSystem time (seconds): 0.20\n' > "$o"
exit $rc
EOF
for b in sysctl chown; do printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/$b"; done
chmod +x "$tmp/bin/"*

rc=0
# check NAME WANT [VAR=VALUE...]: the guest's last line says WANT (passed or
# failed), and its exit status agrees.
check() {
	local name=$1 want=$2 out st last
	shift 2
	rm -rf "$tmp/out" "$tmp/trinity"
	out=$(cd "$tmp" && env "$@" PATH="$tmp/bin:$PATH" MMRS_GUEST="$tmp/guest" MMRS_OUT="$tmp/out" \
		MMRS_TIME="$tmp/bin/fake-time" timeout 120 bash "$REPO/userspace/rootfs/guest/workload.sh" \
		stress SECONDS_EACH=1 2>&1)
	st=$?
	last=$(tail -n 1 <<< "$out")
	if [ "$last" != "mmrs-workload: stress $want" ]; then
		echo "workload-verdict-test: $name: last line '$last', not 'mmrs-workload: stress $want'" >&2
		sed 's/^/    /' <<< "$out" | tail -n 15 >&2
		rc=1
	elif { [ "$want" = passed ] && [ $st != 0 ]; } || { [ "$want" = failed ] && [ $st = 0 ]; }; then
		echo "workload-verdict-test: $name: says $want but exits $st" >&2
		rc=1
	fi
}

check "clean run, trinity stopped at the time limit" passed
check "trinity ends by itself" passed FAKE_TRINITY=end
check "stress-ng exits 2" failed FAKE_STRESS_RC=2
check "stress-ng exits 3" failed FAKE_STRESS_RC=3
check "bigheap beside it exits 2" failed FAKE_BIGHEAP_RC=2
check "madvise beside it (without CAP_SYS_ADMIN) exits 2" failed FAKE_MADVISE_RC=2
check "a verification failure, exit 0" failed \
	"FAKE_STRESS_LINE=stress-ng: fail:  [204] vm: verification failed on page 0x7f3a1000"
check "a failed stressor counted, exit 0" failed \
	"FAKE_STRESS_LINE=stress-ng: info:  [200] failed: 1: mremap (1)"
check "trinity segfaults" failed FAKE_TRINITY=segv
check "trinity exits 1" failed FAKE_TRINITY=1
check "a stressor with no bogo operation, exit 0" failed FAKE_VM_OPS=0
check "a stressor dispatched without a metrics line, exit 0" failed FAKE_NO_NUMA_LINE=1
check "trinity stopped before its first system call" failed FAKE_CALLS=0
check "trinity stopped without a count" failed FAKE_TRINITY=mute
check "trinity short of MIN_CALLS" failed FAKE_CALLS=999 MIN_CALLS=1000
check "trinity at MIN_CALLS" passed FAKE_CALLS=1000 MIN_CALLS=1000
# numa without its metrics line passes only when it was not asked for
check "numa left out (SKIP_STRESSORS), no numa line" passed SKIP_STRESSORS=numa FAKE_NO_NUMA_LINE=1
check "SKIP_STRESSORS with two names" passed SKIP_STRESSORS=pageswap,numa FAKE_NO_NUMA_LINE=1
check "SKIP_STRESSORS=vm takes --vm-bytes and --vm-method with it" passed SKIP_STRESSORS=vm FAKE_VM_OPS=0
check "SKIP_STRESSORS names no stressor" failed SKIP_STRESSORS=nume
check "SKIP_STRESSORS names a stressor's option" failed SKIP_STRESSORS=vm-bytes

[ $rc = 0 ] && echo "workload-verdict-test: ok (21 cases)"
exit $rc
