#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh ARCH: `make bench`. Boots ARCH's test kernel under QEMU with
# -icount shift=0 (guest time counts guest instructions: figures repeat on a
# loaded host), one vCPU, then four for the multithreaded benchmark, runs the
# in-guest benchmarks, each feature
# switched between its Rust path, its C path (where there is one) and off in
# the same boot, rounds interleaved; then writes build/results/bench-ARCH.json
# and regenerates docs/benchmarks.md from the JSON of every architecture.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/env.sh"
arch=${1:?usage: bench.sh x86_64|arm64}
case "$arch" in
x86_64) darch=amd64 ;;
arm64) darch=arm64 ;;
*) echo "bench.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
# The workloads; docs/benchmarks.md explains each. Under -icount, guest time
# advances with the instructions of every vCPU, so the single-threaded
# figures (the anonymous fault path, PT reclaim, exec text) come from a boot
# with one vCPU, where guest time is the measured loop's own; only the
# multithreaded benchmark boots with four.
PROGS1=${MMRS_BENCH_PROGS1:-bench:anon:3,ptreclaim:25600:1:2,ptreclaim:512:512:2,exectext:3,bench:policy:2,bench:ksm:4}
PROGS4=${MMRS_BENCH_PROGS4:-bench:mt:2}
# The anonymous fault path once more, under the mmrs-meter QEMU plugin
# (userspace/qemu-plugin/README, mode=insn, no TLB model): every touch loop
# is a window, so each fault's kernel instructions are counted exactly
# (scripts/meter-pair.py pairs windows and lines: "anon_meter" records).
# MMRS_BENCH_METER=0 leaves this boot out.
PROGS_METER=bench:anon:3
[ "${MMRS_BENCH_METER:-1}" = 0 ] && PROGS_METER=
# MMRS_BENCH_UPDATE=WHY: measure again only MMRS_BENCH_PROGS1 (say, bench:policy:2 after a change
# to the order policies), in the one-vCPU boot, and MMRS_BENCH_PROGS4 (bench:mt:2) in the
# four-vCPU one, if set, and the clang 14 reference with MMRS_BENCH_CLANG14=1, and replace
# just those figures in docs/bench/ARCH.json;
# docs/benchmarks.md then says what was measured again, when and why.
# With MMRS_BENCH_METER_ONLY=1 instead of MMRS_BENCH_PROGS1, only the boot
# under the mmrs-meter plugin runs again (its "anon_meter" figures replaced).
update=${MMRS_BENCH_UPDATE:-}
# MMRS_BENCH_KEPT_ONLY="ksm-grid frag" (1: both): only those of the boots whose
# figures are kept in docs/bench/ by their own report scripts (below) run
# again, and docs/benchmarks.md is regenerated with their tables.
kept_only=${MMRS_BENCH_KEPT_ONLY:-}
[ "$kept_only" = 1 ] && kept_only="ksm-grid frag"
kept_set=${kept_only:-ksm-grid frag}
for k in $kept_set; do
	case "$k" in ksm-grid|frag) ;; *) echo "bench.sh: MMRS_BENCH_KEPT_ONLY: no kept measurement '$k' (ksm-grid, frag)" >&2; exit 2 ;; esac
done
if [ -n "$kept_only" ]; then
	[ -z "$update" ] || { echo "bench.sh: MMRS_BENCH_KEPT_ONLY and MMRS_BENCH_UPDATE do not go together" >&2; exit 2; }
	PROGS1= PROGS4= PROGS_METER= MMRS_BENCH_NO_CLANG14=1
fi
if [ -n "$update" ]; then
	[ -f "$REPO/docs/bench/$arch.json" ] || { echo "bench.sh: no docs/bench/$arch.json to update; run make bench" >&2; exit 2; }
	PROGS1=${MMRS_BENCH_PROGS1:-}
	PROGS4=${MMRS_BENCH_PROGS4:-}
	clang14=${MMRS_BENCH_CLANG14:-}
	[ -n "$clang14" ] || MMRS_BENCH_NO_CLANG14=1
	if [ -n "${MMRS_BENCH_METER_ONLY:-}" ]; then
		PROGS1= PROGS4=
		MMRS_BENCH_NO_CLANG14=1
	else
		[ -n "$PROGS1$PROGS4$clang14" ] ||
			{ echo "bench.sh: MMRS_BENCH_UPDATE needs MMRS_BENCH_PROGS1, MMRS_BENCH_PROGS4, MMRS_BENCH_CLANG14=1 or MMRS_BENCH_METER_ONLY=1" >&2; exit 2; }
		PROGS_METER=
	fi
fi

echo "bench: building the $arch test kernel and userspace"
"$REPO/scripts/image.sh" "$arch" test >"$REPO/build/results/image-$arch-test.log" 2>&1 || {
	echo "bench: kernel build failed; log: build/results/image-$arch-test.log" >&2; exit 1; }
# The order-policy benchmark runs a program nobody here wrote: Debian's
# busybox-static (sort, gzip), for the guest's architecture.
sysroot=$(mm_rs_guest_debs "$darch" busybox-static)
extra="$REPO/build/rootfs-$arch-bench-extra"
rm -rf "$extra" && mkdir -p "$extra/bin"
cp "$sysroot/bin/busybox" "$extra/bin/busybox"
export MMRS_INITRD
MMRS_INITRD=$(MMRS_INITRAMFS_TAG=bench "$REPO/scripts/initramfs.sh" "$arch")
log="$REPO/build/results/bench-$arch.log"
: > "$log"
# The commit measured, as the boots start (bench.py keeps it with the run's
# figures in docs/bench/ARCH.json): a commit made during the run is not it.
{ git -C "$REPO" rev-parse --short=12 HEAD 2>/dev/null || echo unknown; } | tr -d '\n' > "$log.commit"
git -C "$REPO" diff --quiet HEAD 2>/dev/null || echo -n -dirty >> "$log.commit"
# norandmaps: the same address-space layout every run, so VmPTE repeats too.
if [ -n "$PROGS1" ]; then
	echo "bench: booting with -icount shift=0 -smp 1 norandmaps: $PROGS1"
	MMRS_SMP=1 MMRS_APPEND="norandmaps " MMRS_LOG="$log.smp1" "$REPO/scripts/boot.sh" "$arch" test "$PROGS1" 3600 -icount shift=0,sleep=off
	cat "$log.smp1" >> "$log"
fi
if [ -n "$PROGS_METER" ]; then
	"$REPO/scripts/qemu-plugin.sh" build >&2 ||
		{ echo "bench: cannot build the mmrs-meter plugin (scripts/qemu-plugin.sh); MMRS_BENCH_METER=0 goes without it" >&2; exit 1; }
	echo "bench: booting with -icount shift=0 -smp 1 norandmaps under the mmrs-meter plugin: $PROGS_METER"
	rm -f "$log.meter"
	MMRS_SMP=1 MMRS_APPEND="norandmaps " MMRS_LOG="$log.metered" "$REPO/scripts/boot.sh" "$arch" test "$PROGS_METER" 7200 \
		-icount shift=0,sleep=off -plugin "$REPO/build/qemu-plugin/libmmrs-meter.so,log=$log.meter,mode=insn"
	python3 "$REPO/scripts/meter-pair.py" "$log.metered" "$log.meter" anon anon_meter >> "$log"
	# its console too, for bench.py's verdict (its own data lines are the paired ones above)
	grep -v '^mmrs-data ' "$log.metered" >> "$log"
fi
# The measurements with reports of their own (docs/testing.rst, "Measurements
# kept in docs/bench"): KSM unmerge of spread layouts, and the order policies
# under fragmentation (1 GiB of guest memory: frag.c fragments all of it).
# Each is a boot of its own, its console log recorded only if the boot ended
# well (benchkeep.py), its raw figures kept in docs/bench/ with the commit.
# MMRS_BENCH_KEPT=0 leaves them out, and so does an update (MMRS_BENCH_UPDATE);
# MMRS_BENCH_KEPT_ONLY=1 (above) runs only them.
if [ "${MMRS_BENCH_KEPT:-1}" != 0 ] && [ -z "$update" ]; then
	commit=$(cat "$log.commit")
	case " $kept_set " in *" ksm-grid "*)
	echo "bench: booting with -icount shift=0 -smp 1 norandmaps: bench:ksm-grid:3"
	MMRS_SMP=1 MMRS_APPEND="norandmaps " MMRS_LOG="$log.ksmgrid" "$REPO/scripts/boot.sh" "$arch" test "bench:ksm-grid:3" 3600 -icount shift=0,sleep=off
	python3 "$REPO/scripts/ksm-grid-report.py" record "$arch" "$log.ksmgrid" "$commit"
	python3 "$REPO/scripts/ksm-grid-report.py" report ;;
	esac
	case " $kept_set " in *" frag "*)
	echo "bench: booting with -icount shift=0 -smp 1 -m 1G norandmaps: frag:3"
	MMRS_SMP=1 MMRS_MEM=1G MMRS_APPEND="norandmaps " MMRS_LOG="$log.frag" "$REPO/scripts/boot.sh" "$arch" test "frag:3" 3600 -icount shift=0,sleep=off
	python3 "$REPO/scripts/frag-report.py" record "$arch" "$log.frag" "$commit"
	python3 "$REPO/scripts/frag-report.py" report ;;
	esac
fi
# The compiler reference: the same kernel built with clang 14 and no helper
# inlining, so that a compiler change is not taken for a Rust gain.
if [ -z "${MMRS_BENCH_NO_CLANG14:-}" ]; then
	echo "bench: building the $arch test kernel with clang 14 (the compiler reference)"
	"$REPO/scripts/image.sh" "$arch" clang14 >"$REPO/build/results/image-$arch-clang14.log" 2>&1 || {
		echo "bench: kernel build failed; log: build/results/image-$arch-clang14.log" >&2; exit 1; }
	echo "bench: booting it with -icount shift=0 -smp 1 norandmaps: bench:anon:3"
	MMRS_SMP=1 MMRS_APPEND="norandmaps " MMRS_LOG="$log.clang14" "$REPO/scripts/boot.sh" "$arch" clang14 "bench:anon:3" 3600 -icount shift=0,sleep=off
	sed 's/^mmrs-data bench anon /mmrs-data bench anon_clang14 /' "$log.clang14" >> "$log"
fi
if [ -n "$PROGS4" ]; then
	echo "bench: booting with -icount shift=0 -smp 4 norandmaps: $PROGS4"
	MMRS_SMP=4 MMRS_APPEND="norandmaps " MMRS_LOG="$log.smp4" "$REPO/scripts/boot.sh" "$arch" test "$PROGS4" 3600 -icount shift=0,sleep=off
	cat "$log.smp4" >> "$log"
fi
if [ -n "$update" ]; then
	if [ -n "$PROGS1$PROGS4$clang14" ]; then
		cmd="${PROGS1:+MMRS_BENCH_PROGS1=$PROGS1 }${PROGS4:+MMRS_BENCH_PROGS4=$PROGS4 }${clang14:+MMRS_BENCH_CLANG14=1 }MMRS_BENCH_UPDATE=... make bench ARCH=$arch"
		progs=""
		[ -n "$PROGS1" ] && progs+="$PROGS1 (one vCPU)"
		[ -n "$PROGS4" ] && progs+="${progs:+; }$PROGS4 (four vCPUs)"
		[ -n "$clang14" ] && progs+="${progs:+; }bench:anon:3 (the clang 14 kernel)"
	else
		cmd="MMRS_BENCH_METER_ONLY=1 MMRS_BENCH_UPDATE=... make bench ARCH=$arch"
		progs="$PROGS_METER (under the mmrs-meter plugin)"
	fi
	exec python3 "$REPO/scripts/bench.py" --update "$arch" "$log" "$REPO/docs/benchmarks.md" \
		"$progs" "$cmd" "$update"
fi
[ -z "$kept_only" ] || exec python3 "$REPO/scripts/bench.py" --markdown "$REPO/docs/benchmarks.md"
python3 "$REPO/scripts/bench.py" "$arch" "$log" "$REPO/build/results/bench-$arch.json" \
	"$REPO/docs/benchmarks.md" "$PROGS1 (one vCPU); $PROGS4 (four vCPUs)"
