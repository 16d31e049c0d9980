#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# workload.sh ARCH FLAVOUR NAME [KEY=VALUE...]: `make workload W=NAME`. Boots
# the FLAVOUR kernel (scripts/image.sh, built if needed) on the Debian
# userland (scripts/rootfs.sh, built if needed) without a terminal, runs
# userspace/rootfs/guest/workloads/NAME.sh there (/mmrs/workload.sh prints
# its figures: time, faults, THP and mTHP stats, peak RSS) and fails if the
# workload fails, the guest does not finish within MMRS_TIMEOUT seconds
# (default 1800) or the kernel complains: scripts/boot.sh boots it and judges
# the console log, build/results/workload-ARCH-FLAVOUR-NAME.log. KEY=VALUE
# pairs go to the workload's environment (SEED=N for smoke); MMRS_SET
# ("/sys/kernel/debug/mm_rs/anon_order=0
# transparent_hugepage/hugepages-64kB/enabled=always": paths under
# /sys/kernel/mm unless absolute) is written before it starts. MMRS_PREBUILT=1
# boots the kernel already built, without scripts/image.sh (which waits for
# any other kernel build on the machine).
#
# W=stress boots 4 vCPUs in two NUMA nodes with 4 GiB; W=bench boots with
# -icount shift=0 and norandmaps, as make bench, and so does W=hugetlb.
#
# W=compile (and W=bench) also prepares the slice of the kernel tree it compiles: the
# files of $kslice_files below with exactly the headers they include (found
# with the host's gcc of the same version, -M) from build/linux, the
# configured headers of the booted kernel's build directory, and a Makefile
# with the kernel's C flags for gcc; it goes to the guest in the initramfs.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: workload.sh ARCH FLAVOUR NAME [KEY=VALUE...]}
flavour=${2:?}
name=${3:?}
shift 3
. "$REPO/scripts/rootfs-lib.sh"
[ -f "$REPO/userspace/rootfs/guest/workloads/$name.sh" ] || {
	echo "workload: no workload $name; there are: $(cd "$REPO/userspace/rootfs/guest/workloads" && ls | sed 's/\.sh$//' | xargs)" >&2
	exit 2
}
kslice_files="lib/sort.c lib/list_sort.c lib/bsearch.c lib/rbtree.c lib/bitmap.c lib/kstrtox.c
	lib/hexdump.c lib/cmdline.c lib/ctype.c lib/string.c lib/xarray.c lib/vsprintf.c
	mm/readahead.c mm/filemap.c mm/memory.c"

img=$("$REPO/scripts/rootfs.sh" "$arch" | tail -n 1)
kernel=$(guest_kernel "$flavour")
obj="$REPO/build/image-$arch-$flavour"
T="$REPO/build/linux"

extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
if [ "$name" = compile ] || [ "$name" = bench ] || [ "$name" = bench-tlb ]; then
	k="$extra/kslice"
	mkdir -p "$k/src" "$k/obj"
	inc=(-nostdinc -Isrc/arch/$karch/include -Iobj/arch/$karch/include/generated -Isrc/include -Iobj/include
	     -Isrc/arch/$karch/include/uapi -Iobj/arch/$karch/include/generated/uapi -Isrc/include/uapi
	     -Iobj/include/generated/uapi -include src/include/linux/compiler-version.h
	     -include src/include/linux/kconfig.h -include src/include/linux/compiler_types.h -D__KERNEL__)
	flags=(-std=gnu11 -O2 -fno-strict-aliasing -fno-common -fshort-wchar -funsigned-char -fno-PIE
	       -fno-asynchronous-unwind-tables -fno-delete-null-pointer-checks -fstack-protector-strong
	       -Wall -Wno-sign-compare -Wno-unused-but-set-variable -Wno-format-truncation -Wno-address-of-packed-member)
	case "$arch" in
	x86_64) flags+=(-m64 -mno-red-zone -mcmodel=kernel -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx
			-mno-80387 -mno-fp-ret-in-387 -mskip-rax-setup) ;;
	arm64) flags+=(-mlittle-endian -mgeneral-regs-only -mabi=lp64 -mbranch-protection=none) ;;
	esac
	# The headers each file includes, from the host's gcc (12, as the guest's).
	src_inc=("${inc[@]//src\//$T/}")
	src_inc=("${src_inc[@]//obj\//$obj/}")
	deps=$(for f in $kslice_files; do
		"$guest_cc" -M "${src_inc[@]}" "${flags[@]}" "$T/$f" | sed 's/^[^:]*://; s/\\$//' | tr ' ' '\n'
	done | sed '/^$/d' | LC_ALL=C sort -u)
	for d in $deps; do
		d=$(realpath -ms "$d")
		case "$d" in
		"$obj"/*) rel=obj/${d#$obj/} ;;
		"$T"/*) rel=src/${d#$T/} ;;
		*) echo "workload: kslice: $d is outside the tree and ${obj#$REPO/}" >&2; exit 1 ;;
		esac
		mkdir -p "$k/$(dirname "$rel")"
		cp -L "$d" "$k/$rel"
	done
	printf '%s\n' $kslice_files > "$k/files.list"
	{
		echo "# W=compile: gcc on a slice of the $arch kernel tree (scripts/workload.sh)"
		echo "CFLAGS := ${inc[*]} ${flags[*]} -DKBUILD_MODNAME='\"kslice\"'"
		echo "OBJS := $(printf 'out/%s ' $kslice_files | sed 's/\.c /.o /g')"
		echo 'all: $(OBJS)'
		echo 'out/%.o: src/%.c'
		printf '\t@mkdir -p $(dir $@)\n\tgcc $(CFLAGS) -DKBUILD_BASENAME=\x27"$(notdir $*)"\x27 -c $< -o $@\n'
		echo 'clean:'
		printf '\trm -rf out\n'
	} > "$k/Makefile"
	echo "workload: kslice: $(wc -l < "$k/files.list") files, $(find "$k" -name '*.h' | wc -l) headers, $(du -sk "$k" | cut -f1) kB" >&2
fi
initrd="$debian_dir/initramfs-workload-$flavour-$name.cpio.gz"
guest_initramfs "$initrd" "$extra"

# W=stress: 4 vCPUs in two NUMA nodes (its numa stressor and trinity's
# mbind/migrate_pages/move_pages need a second node), 4 GiB, as make stress;
# the time limit grows with SECONDS_EACH.
qemu_extra=()
tmo=${MMRS_TIMEOUT:-1800}
if [ "$name" = stress ]; then
	export MMRS_SMP=${MMRS_SMP:-4} MMRS_MEM=${MMRS_MEM:-4G}
	. "$REPO/scripts/numa.sh"
	mm_rs_numa "$MMRS_SMP" "$MMRS_MEM"
	qemu_extra=("${MMRS_NUMA_ARGS[@]}")
	secs=60
	for kv in "$@"; do case "$kv" in SECONDS_EACH=*) secs=${kv#*=} ;; esac; done
	tmo=${MMRS_TIMEOUT:-$(( 2 * secs + 1800 ))}
fi
# W=bench: guest time counts instructions (-icount shift=0,sleep=off) and mappings are
# not randomised, as make bench; gcc under TCG takes a while.
if [ "$name" = bench ] || [ "$name" = bench-tlb ] || [ "$name" = hugetlb ]; then
	qemu_extra=(-icount shift=0,sleep=off)
	# hugetlb: room for its pages beside KASAN's shadow and quarantine
	[ "$name" = hugetlb ] && export MMRS_MEM=${MMRS_MEM:-4G}
	MMRS_APPEND="norandmaps ${MMRS_APPEND:-}"
	tmo=${MMRS_TIMEOUT:-14400}
	# x86_64 W=bench and W=bench-tlb boot one vCPU (MMRS_SMP overrides): with
	# two, the gcc steps met the x86_64 TCG RCU stall of docs/testing.rst
	# (a vCPU spinning in sched_tick() on its own runqueue lock) and the
	# verdict refused the run (2026-11-27). The tables say the vCPU count.
	if [ "$arch" = x86_64 ] && [ "$name" != hugetlb ]; then
		export MMRS_SMP=${MMRS_SMP:-1}
	fi
fi
# W=bench and W=bench-tlb under the mmrs-meter QEMU plugin
# (userspace/qemu-plugin/README; MMRS_METER=0 boots without it): each
# measured step is a window. W=bench counts its kernel and user
# instructions (mode=tb: a block's instructions at its start, so a
# synchronous exception in the middle of a block over-counts the rest of
# that block, a few instructions a fault; mode=insn, exact, costs 3 times
# as much: MMRS_METER_MODE=insn). W=bench-tlb (the same steps, one round)
# adds the TLB model of a named core (arm64: Neoverse N1, with 64K entries
# for contpte blocks; x86_64: Skylake). On arm64 a user page's entry size
# comes from the page tables the guest kernel wrote (tlb_src=pt: 64K where
# its 16 PTEs carry the contiguous bit, 2M for a PMD block;
# MMRS_METER_TLB_SRC=contig infers it as x86_64 does); elsewhere a large
# entry is given to a block once all of its first 16 walked pages agree
# (tlb_min=16: a contiguous-bit block needs its 16 entries;
# MMRS_METER_TLB_MIN=N asks for N, and the report names the model with
# it). The window lines go to
# build/results/workload-ARCH-FLAVOUR-NAME.meter; the console says which
# step each window is ("mmrs-meter-step N ID LABEL").
meterlog=""
if { [ "$name" = bench ] || [ "$name" = bench-tlb ]; } && [ "${MMRS_METER:-1}" != 0 ]; then
	"$REPO/scripts/qemu-plugin.sh" build >&2 ||
		{ echo "workload: cannot build the mmrs-meter plugin (scripts/qemu-plugin.sh); MMRS_METER=0 runs without it" >&2; exit 1; }
	tlb=none tlb_src=contig
	if [ "$name" = bench-tlb ]; then
		case "$arch" in
		x86_64) tlb=x86core tlb_src=${MMRS_METER_TLB_SRC:-contig} ;;
		arm64) tlb=n1 tlb_src=${MMRS_METER_TLB_SRC:-pt} ;;
		esac
	fi
	case "$arch:$tlb_src" in
	*:contig|arm64:pt) ;;
	*) echo "workload: MMRS_METER_TLB_SRC=$tlb_src: want contig, or pt on arm64 (it reads arm64 page-table entries)" >&2; exit 2 ;;
	esac
	tlb_min=${MMRS_METER_TLB_MIN:-16}
	case "$tlb_min" in
	[1-9]|[1-9][0-9]|[1-4][0-9][0-9]|50[0-9]|51[0-2]) ;;
	*) echo "workload: MMRS_METER_TLB_MIN=$tlb_min: want 1-512" >&2; exit 2 ;;
	esac
	meterlog="$REPO/build/results/workload-$arch-$flavour-$name.meter"
	rm -f "$meterlog"
	qemu_extra+=(-plugin "$REPO/build/qemu-plugin/libmmrs-meter.so,log=$meterlog,mode=${MMRS_METER_MODE:-tb},tlb=$tlb,tlb_min=$tlb_min,tlb_src=$tlb_src")
	MMRS_APPEND="mmrs.meter=1 ${MMRS_APPEND:-}"
fi

sets=""
[ -n "${MMRS_SET:-}" ] && sets="mmrs.set=$(echo $MMRS_SET | tr ' ' ',') "
run="workload:$name"
for kv in "$@"; do run="$run:$kv"; done
log="$REPO/build/results/workload-$arch-$flavour-$name.log"
# The verdict of this boot, for scripts/workload-report.py (which refuses a
# log whose verdict is not "passed"): written once the boot is judged.
verdict="${log%.log}.verdict"
rm -f "$verdict"
# The commit measured is the one the boot started at: a commit made during a
# run of hours is not what it measured.
commit="$(git -C "$REPO" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(git -C "$REPO" diff --quiet HEAD 2>/dev/null || echo -dirty)"
echo "workload: $arch $flavour $name (console log: ${log#$REPO/})" >&2
t0=$(date +%s)
# shellcheck disable=SC2046
if MMRS_INITRD="$initrd" MMRS_LOG="$log" MMRS_APPEND="${sets}mmrs.date=$(date +%s) ${MMRS_APPEND:-}" \
	"$REPO/scripts/boot.sh" "$arch" "$flavour" "$run" "$tmo" $(rootfs_drive "$img" root) "${qemu_extra[@]}" &&
	grep -q "^mmrs-workload: $name passed" "$log"; then
	echo "passed $commit" > "$verdict"
	echo "workload: $arch $flavour $name passed in $(( $(date +%s) - t0 ))s" >&2
	exit 0
fi
echo "failed" > "$verdict"
echo "workload: $arch $flavour $name FAILED after $(( $(date +%s) - t0 ))s; console log: ${log#$REPO/}" >&2
exit 1
