# SPDX-License-Identifier: GPL-2.0
# W=hugetlb, sourced by /mmrs/workload.sh: seed 001's measurement (Mike
# Kravetz's "Batch hugetlb vmemmap modification operations"): the time to
# allocate and to free PAGES (default 256) 2 MiB hugetlb pages through
# nr_hugepages, with vm.hugetlb_optimize_vmemmap 0 and 1 (OPTS, default
# "0 1"), ROUNDS (default 3) times each, interleaved. scripts/workload.sh boots it with -icount shift=0:
# the times are guest instructions, repeatable. Every round must get all
# PAGES pages; a shortfall fails the workload.
rc=0
n=${PAGES:-256}
nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ ! -w /proc/sys/vm/hugetlb_optimize_vmemmap ] || [ ! -w $nr ]; then
	echo "mmrs-workload: W=hugetlb needs 2 MiB hugetlb pages and vm.hugetlb_optimize_vmemmap"
	return 1
fi
ms() { echo $(( ($2 - $1) / 1000000 )); }
for round in $(seq "${ROUNDS:-3}"); do
	for opt in ${OPTS:-0 1}; do
		echo "$opt" > /proc/sys/vm/hugetlb_optimize_vmemmap || { rc=1; continue; }
		sync
		echo 3 > /proc/sys/vm/drop_caches
		t0=$(date +%s%N)
		echo "$n" > $nr
		t1=$(date +%s%N)
		got=$(cat $nr)
		echo 0 > $nr
		t2=$(date +%s%N)
		echo "mmrs-data hugetlb round=$round optimize_vmemmap=$opt pages=$got alloc_ms=$(ms "$t0" "$t1") free_ms=$(ms "$t1" "$t2")"
		echo "  round $round, hugetlb_optimize_vmemmap $opt: $got pages allocated in $(ms "$t0" "$t1") ms, freed in $(ms "$t1" "$t2") ms"
		[ "$got" = "$n" ] || { echo "mmrs-workload: only $got of $n hugetlb pages"; rc=1; }
	done
done
echo 0 > /proc/sys/vm/hugetlb_optimize_vmemmap
return $rc
