#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fault-trace.sh ARCH: `make fault-trace`. Counts the kernel instructions of
# anonymous write faults, function by function, on the C path and the Rust
# paths: boots ARCH's test kernel under QEMU with one instruction a
# translation block (-singlestep) and the gdbstub, runs userspace/faulttrace.c
# (each path at order 0 and at 16K, 32K and 64K mTHP, 31 traced faults each)
# and has gdb (scripts/fault-trace-gdb.py) turn QEMU's instruction log on at
# each traced handle_mm_fault() and off at its return. Writes
# build/results/fault-trace-ARCH.{txt,json}. The page clearing is not traced
# on x86 (clear_page_*: one logged instruction a byte with ERMS; the same pages
# on every path).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: fault-trace.sh x86_64|arm64}
. "$REPO/scripts/env.sh"
. "$REPO/scripts/splats.sh"
case "$arch" in
x86_64) gdb=gdb; kimage=arch/x86/boot/bzImage ;;
arm64) gdb=gdb-multiarch; kimage=arch/arm64/boot/Image ;;
*) echo "fault-trace.sh: ARCH must be x86_64 or arm64" >&2; exit 2 ;;
esac
mm_rs_machine "$arch"
qemu=("${MM_RS_QEMU[@]}")
console=$MM_RS_CONSOLE
if ! command -v "$gdb" >/dev/null; then
	[ "$(id -u)" = 0 ] || { echo "fault-trace: needs $gdb: apt-get install ${gdb/gdb-multiarch/gdb-multiarch}" >&2; exit 1; }
	echo "fault-trace: installing $gdb" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$gdb" >/dev/null
fi

img="$REPO/build/image-$arch-test"
"$REPO/scripts/image.sh" "$arch" test >"$REPO/build/results/image-$arch-test.log" 2>&1 || {
	echo "fault-trace: kernel build failed; log: build/results/image-$arch-test.log" >&2; exit 1; }
initrd=$(MMRS_INITRAMFS_TAG=trace "$REPO/scripts/initramfs.sh" "$arch")

out="$REPO/build/results/fault-trace-$arch"
rm -rf "$out" && mkdir -p "$out"
nm=llvm-nm$MM_RS_LLVM
# The kernel's text, less the page clearing of x86 (see above).
dfilter=$("$nm" -n --defined-only "$img/vmlinux" | python3 -c '
import sys
syms = [(int(a, 16), n) for a, t, n in (l.split() for l in sys.stdin if len(l.split()) == 3)]
start = next(a for a, n in syms if n == "_stext")
end = next(a for a, n in syms if n == "_etext")
ranges, lo = [], start
for i, (a, n) in enumerate(syms):
    if n in ("clear_page_rep", "clear_page_orig", "clear_page_erms"):
        nxt = next(b for b, _ in syms[i + 1:] if b > a)
        if a > lo:
            ranges.append("%#x..%#x" % (lo, a - 1))
        lo = max(lo, nxt)
ranges.append("%#x..%#x" % (lo, end - 1))
print(",".join(ranges))')

port=$((20000 + RANDOM % 20000))
console_log="$out/console.log"
echo "fault-trace: booting $arch (one instruction a block; a few minutes)"
# -icount: guest time stands still while gdb holds the guest, so no timer
# interrupt is pending when a traced fault goes on.
"${qemu[@]}" -m 2G -smp 1 -nographic -no-reboot -singlestep -icount shift=0 -S -gdb "tcp::$port" \
	-D /dev/null -dfilter "$dfilter" -kernel "$img/$kimage" -initrd "$initrd" \
	-append "console=$console panic=-1 loglevel=$MM_RS_LOGLEVEL rootfstype=ramfs nokaslr mmrs.run=faulttrace" \
	</dev/null >"$console_log" 2>&1 &
qpid=$!
trap 'kill $qpid 2>/dev/null || true' EXIT
sleep 1
FT_ARCH=$arch FT_PORT=$port FT_OUT=$out timeout 3600 "$gdb" -q -batch -nx \
	-ex "file $img/vmlinux" -x "$REPO/scripts/fault-trace-gdb.py" >"$out/gdb.log" 2>&1 || true
wait $qpid || true
trap - EXIT
grep -q '^mmrs-init: done' "$console_log" || { echo "fault-trace: the guest did not finish; see ${console_log#$REPO/}" >&2; exit 1; }
# Counts from a kernel that warned are not counts of its fault path.
if splats=$(mm_rs_splats "$console_log"); then
	echo "fault-trace: the kernel complained; console log: ${console_log#$REPO/}" >&2
	head -n 5 <<< "$splats" >&2
	exit 1
fi
python3 "$REPO/scripts/fault-trace.py" "$arch" "$img/vmlinux" "$nm" "$console_log" "$out" \
	"$REPO/build/results/fault-trace-$arch.txt" "$REPO/build/results/fault-trace-$arch.json"
# Kept with the benchmarks: docs/bench/ and a section of docs/benchmarks.md.
mkdir -p "$REPO/docs/bench"
cp "$REPO/build/results/fault-trace-$arch.json" "$REPO/docs/bench/fault-trace-$arch.json"
python3 "$REPO/scripts/bench.py" --markdown "$REPO/docs/benchmarks.md"
