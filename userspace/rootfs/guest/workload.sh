#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /mmrs/workload.sh NAME [KEY=VALUE...]: runs /mmrs/workloads/NAME.sh (with
# the KEY=VALUE pairs in its environment) in the Debian userland and prints
# its figures: for each step it measures (measure, below) the time, its exit
# status, the peak RSS /usr/bin/time -v reports, and the /proc/vmstat and
# per-size mTHP stats (/sys/kernel/mm/transparent_hugepage/hugepages-*/stats/)
# that moved; then the same for the whole workload. The last line is
# "mmrs-workload: NAME passed" or "... failed"; the exit status says the same.
w=${1:?usage: workload.sh NAME [KEY=VALUE...]}
shift
for kv in "$@"; do export "${kv?}"; done
# Where the workloads are, where their output goes and which time(1): the
# guest's, unless the host's verdict test (scripts/workload-verdict-test.sh)
# says otherwise.
guest=${MMRS_GUEST:-/mmrs}
OUT=${MMRS_OUT:-/tmp/out}
TIME=${MMRS_TIME:-/usr/bin/time}
export OUT
script=$guest/workloads/$w.sh
if [ ! -f "$script" ]; then
	echo "mmrs-workload: no workload $w ($guest/workloads: $(cd "$guest/workloads" && ls | sed 's/\.sh$//' | xargs))"
	exit 2
fi

# snap FILE: the counters, "name value" a line (few processes: each fork
# and exec costs under TCG)
snap() {
	{
		grep -E '^(pgfault|pgmajfault|pgalloc_[a-z]+|thp_[a-z_]+|pgpgin|pswpin|pswpout) ' /proc/vmstat
		grep -r . /sys/kernel/mm/transparent_hugepage/hugepages-*/stats/ 2>/dev/null |
			sed 's|.*/hugepages-\([^/]*\)/stats/\([^:]*\):|mthp_\1_\2 |'
	} > "$1"
}

# delta BEFORE AFTER: "name +N" for each counter that moved
delta() {
	awk 'NR == FNR { b[$1] = $2; next } ($2 - b[$1]) != 0 { printf "%s +%d\n", $1, $2 - b[$1] }' "$1" "$2"
}

# figures LABEL SECONDS RC BEFORE AFTER [TIMEFILE]
figures() {
	local d maxrss="" usr="" sys=""
	d=$(delta "$4" "$5")
	if [ -n "${6:-}" ]; then
		maxrss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$6")
		usr=$(sed -n 's/.*User time (seconds): //p' "$6")
		sys=$(sed -n 's/.*System time (seconds): //p' "$6")
	fi
	awk -v w="$w" -v l="$1" -v t="$2" -v rc="$3" -v rss="$maxrss" -v usr="$usr" -v sys="$sys" '
		{ v[$1] = $2 }
		/^(thp_|mthp_)/ { thp[n++] = $1 " " $2 }
		/^(pgalloc_|pgpgin|pswp)/ { mm = mm " " $1 " " $2 }
		END {
			printf "== %s: %s: exit %d, %s s%s%s, faults %s (%s major)\n", w, l, rc, t,
				usr != "" ? " (user " usr " s, system " sys " s)" : "",
				rss != "" ? ", peak RSS " rss " kB" : "", v["pgfault"] != "" ? v["pgfault"] : "+0",
				v["pgmajfault"] != "" ? v["pgmajfault"] : "+0"
			# one line for scripts/workload-report.py
			printf "mmrs-data workload %s %s rc=%d elapsed=%s user=%s system=%s rss_kb=%s", w, l, rc, t,
				usr != "" ? usr : "-", sys != "" ? sys : "-", rss != "" ? rss : "-"
			for (k in v) printf " %s=%d", k, v[k]
			printf "\n"
			line = ""
			for (i = 0; i < n; i++) {
				if (length(line) + length(thp[i]) > 90) { print "  thp:" line; line = "" }
				line = line " " thp[i]
			}
			print "  thp:" (n ? line : " none moved")
			if (mm != "") print "  mm:" mm
		}' <<<"$d"
}

# With mmrs.meter=1 on the kernel command line (scripts/workload.sh, W=bench
# under the mmrs-meter QEMU plugin), measure runs CMD inside a window of the
# plugin (/mmrs/bin/mmrs-meter, userspace/rootfs/meter.c): the Nth measured
# step of the boot is window N mod 16, announced by "mmrs-meter-step N ID
# LABEL", so that the host pairs the plugin's Nth window line with LABEL.
meter=""
meter_seq=0
if grep -qw 'mmrs.meter=1' /proc/cmdline; then
	meter=/mmrs/bin/mmrs-meter
	[ -x "$meter" ] || { echo "mmrs-workload: mmrs.meter=1 but no $meter"; exit 1; }
fi

# measure LABEL CMD...: runs CMD under /usr/bin/time -v (and in a meter
# window), its output to $OUT/LABEL.out; prints the figures; returns CMD's
# status.
mkdir -p "$OUT"
measure() {
	local label=$1 t0 t1 rc m=()
	shift
	if [ -n "$meter" ]; then
		meter_seq=$((meter_seq + 1))
		m=("$meter" $((meter_seq % 16)))
		echo "mmrs-meter-step $meter_seq $((meter_seq % 16)) $label"
	fi
	snap "$OUT/.before"
	t0=$(date +%s.%N)
	"$TIME" -v -o "$OUT/$label.time" "${m[@]}" "$@" > "$OUT/$label.out" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	snap "$OUT/.after"
	figures "$label" "$(printf '%.1f' "$(bc <<<"$t1 - $t0")")" $rc "$OUT/.before" "$OUT/.after" "$OUT/$label.time"
	# MEASURE_OK: one more status that is not a failure (124: stopped by
	# timeout(1) at the time the workload planned)
	if [ $rc != 0 ] && [ "$rc" != "${MEASURE_OK:-}" ]; then
		echo "mmrs-workload: $label failed (exit $rc), the end of its output:"
		tail -n 20 "$OUT/$label.out" | sed 's/^/mmrs-out: /'
	fi
	return $rc
}

sw=""
for f in /sys/kernel/mm/mm_rs/* /sys/kernel/debug/mm_rs/*; do [ -f "$f" ] && sw="$sw ${f##*/}=$(sed 's/.*\[\(.*\)\].*/\1/' "$f")"; done
mthp=""
for d in /sys/kernel/mm/transparent_hugepage/hugepages-*; do
	[ -f "$d/enabled" ] || continue
	e=$(sed 's/.*\[\(.*\)\].*/\1/' "$d/enabled")
	[ "$e" = never ] || mthp="$mthp ${d##*hugepages-}=$e"
done
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
echo "== workload $w: Linux $(uname -r) $(uname -m), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB; mm_rs:${sw:- none}; THP $thp; mTHP:${mthp:- none}"
# vm_area_struct's slab: its object size and how many are live (the cost of
# a field added to every VMA; /proc/slabinfo needs CONFIG_SLUB_DEBUG)
vmas() {
	awk -v w="$w" -v l="$1" '$1 == "vm_area_struct" {
		printf "== %s: %s: vm_area_struct %d active, %d bytes each, %d a slab\n", w, l, $2, $4, $5 }' \
		/proc/slabinfo 2>/dev/null
}
vmas start
snap "$OUT/.start"
t0=$(date +%s.%N)
cd /tmp || exit 1
# shellcheck source=/dev/null
. "$script"
rc=$?
t1=$(date +%s.%N)
snap "$OUT/.end"
figures total "$(printf '%.1f' "$(bc <<<"$t1 - $t0")")" $rc "$OUT/.start" "$OUT/.end"
vmas end
if [ $rc = 0 ]; then
	echo "mmrs-workload: $w passed"
else
	echo "mmrs-workload: $w failed"
fi
exit $rc
