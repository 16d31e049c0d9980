# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts that boot a two-node guest (stress.sh, workload.sh,
# selftests-prod.sh).
#
# mm_rs_numa SMP MEM: sets MMRS_NUMA_ARGS (the QEMU arguments of two NUMA
# nodes of half of MEM each) and exports MMRS_SMP_TOPOLOGY, which
# scripts/boot.sh adds to -smp: two sockets of SMP/2 cores, socket N being
# node N. The CPU topology must agree with the nodes: with a bare -smp 4,
# QEMU's x86 CPUs report a last-level cache that spans CPUs of both nodes,
# and the kernel says "CPU #2's llc-sibling CPU #0 is not on the same node"
# and WARNs in topology_sane() at every boot (hidden until the kernels had
# CONFIG_BUG, 2026-11-27).
mm_rs_numa() {
	local smp=$1 mem=$2 half
	half=$(( ${mem%G} * 1024 / 2 ))M
	export MMRS_SMP_TOPOLOGY="sockets=2,cores=$(( smp / 2 )),threads=1"
	MMRS_NUMA_ARGS=(-object memory-backend-ram,id=m0,size=$half -object memory-backend-ram,id=m1,size=$half
			-numa node,nodeid=0,cpus=0-$(( smp / 2 - 1 )),memdev=m0
			-numa node,nodeid=1,cpus=$(( smp / 2 ))-$(( smp - 1 )),memdev=m1)
}
