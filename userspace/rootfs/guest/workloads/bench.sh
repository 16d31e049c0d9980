# SPDX-License-Identifier: GPL-2.0
# W=bench, sourced by /mmrs/workload.sh (`make bench-real`: one boot per
# architecture, -icount shift=0, so that guest time counts instructions):
# the seed's benchmark for real, with PMD-sized THP on madvise (as the seed
# ran it). For each anonymous order policy (mthp-4k:
# mthp with every mTHP size off, order 0 only; mthp-64k: mthp with 64K
# always; arch; auto), with the page cache dropped first so that every run
# reads gcc's text from the EROFS disk again:
# - gcc -O2 compiles the slice of the kernel tree (/mmrs/kslice, as
#   W=compile), make -j$(nproc);
# - cc1's text in the page cache afterwards, and how much of it is in folios
#   of 64K or more (/mmrs/textfolios.py);
# - a fixed allocator-heavy Python program (/mmrs/pyalloc.py).
# - exec-ra-off: mthp-4k with exec readahead off (mm_rs/exec_ra 0), for
#   cc1's text, as one more policy of the round.
# ROUNDS (default 1) repeats the policies; round r starts r - 1 places further
# down the list, so that no policy always runs first (the first step of a
# round runs on the coldest free lists): with as many rounds as policies,
# each runs once in every place. POLICIES=a,b runs only those. After
# each compile, a hash of the objects it wrote ("mmrs-data objects LABEL
# ROUND sha256=..."): the report checks that every policy compiled the same.
rc=0
if [ ! -f /mmrs/kslice/Makefile ]; then
	echo "mmrs-workload: no /mmrs/kslice (scripts/workload.sh prepares it for W=bench)"
	return 1
fi
M=/sys/kernel/mm
# On a kernel without mm-rs (FLAVOR=off: CONFIG_MM_RS=n) only the policies
# C has, mthp-4k and mthp-64k: the same compile for the same figures on the
# kernel mm-rs is compared with (and whose splats are the base's).
policies="mthp-4k mthp-64k arch auto"
if [ ! -f $M/mm_rs/anon_order_policy ]; then
	policies="mthp-4k mthp-64k"
	echo "  no mm-rs ($M/mm_rs/anon_order_policy): policies $policies only, no exec-ra-off step"
elif [ -f /sys/kernel/debug/mm_rs/exec_ra ]; then
	policies="$policies exec-ra-off"
fi
# POLICIES=a,b: only those, in that order (each must be one of the above)
if [ -n "${POLICIES:-}" ]; then
	for p in ${POLICIES//,/ }; do
		case " $policies " in
		*" $p "*) ;;
		*) echo "mmrs-workload: POLICIES: $p is not one of: $policies"; return 1 ;;
		esac
	done
	policies=${POLICIES//,/ }
fi
# PMD-sized THP only where a program asks for it (MADV_HUGEPAGE), as in the
# seed's measurement: with "always" every large heap would get 2 MiB THPs
# whatever the policy, and the policies would not be what is compared.
echo madvise > $M/transparent_hugepage/enabled || return 1
cc1=$(gcc -print-prog-name=cc1)
cp -a /mmrs/kslice /tmp/kslice
echo "  $(grep -c '\.c$' /tmp/kslice/files.list) files, $(find /tmp/kslice -name '*.h' | wc -l) headers; cc1: $cc1"

# policy NAME: the order policy and mTHP knobs of NAME
policy() {
	local p=mthp m64=never
	case "$1" in
	mthp-4k) ;;
	mthp-64k) m64=always ;;
	arch|auto) p=$1 ;;
	esac
	# exec readahead on, but for exec-ra-off (mthp-4k without it)
	if [ -f /sys/kernel/debug/mm_rs/exec_ra ]; then
		echo "$([ "$1" = exec-ra-off ] && echo 0 || echo 1)" > /sys/kernel/debug/mm_rs/exec_ra || return 1
	fi
	# every anonymous mTHP size off (a size without an enabled file, order
	# 1, is not one)
	for d in $M/transparent_hugepage/hugepages-*kB; do
		[ -f "$d/enabled" ] || continue
		echo never > "$d/enabled" || return 1
	done
	echo "$m64" > $M/transparent_hugepage/hugepages-64kB/enabled || return 1
	[ ! -f $M/mm_rs/anon_order_policy ] || echo "$p" > $M/mm_rs/anon_order_policy
}

# run LABEL ROUND: compile from a cold page cache, the objects' hash, cc1's
# text, the Python program
run() {
	make -s -C /tmp/kslice clean
	sync
	echo 3 > /proc/sys/vm/drop_caches
	measure "compile-$1" make -s -C /tmp/kslice -j"$(nproc)" || rc=1
	echo "mmrs-data objects $1 $2 sha256=$(cd /tmp/kslice && find out -name '*.o' | LC_ALL=C sort |
		xargs sha256sum | sha256sum | cut -d' ' -f1) count=$(find /tmp/kslice/out -name '*.o' | wc -l)"
	python3 /mmrs/textfolios.py "$1" "$cc1" || rc=1
	measure "python-$1" python3 /mmrs/pyalloc.py || rc=1
	grep -h checksum "$OUT/python-$1.out" | sed 's/^/  /'
}

set -- $policies
n=$#
for round in $(seq "${ROUNDS:-1}"); do
	for i in $(seq 0 $((n - 1))); do
		eval "p=\${$(( (i + round - 1) % n + 1 ))}"
		echo "== bench round $round: policy $p"
		policy "$p" || { rc=1; break; }
		run "$p" "$round"
	done
done
[ ! -f /sys/kernel/debug/mm_rs/exec_ra ] || echo 1 > /sys/kernel/debug/mm_rs/exec_ra
# every Python run must have computed the same
if [ "$(cat "$OUT"/python-*.out | grep checksum | sort -u | wc -l)" != 1 ]; then
	echo "mmrs-workload: the Python program's checksums differ:"
	grep -H checksum "$OUT"/python-*.out
	rc=1
fi
return $rc
