#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# fault-trace.py ARCH VMLINUX NM CONSOLE_LOG TRACE_DIR OUT_TXT OUT_JSON
#
# Counts, from QEMU's instruction logs of scripts/fault-trace.sh (one line an
# instruction: -singlestep, -d exec,nochain), the instructions of each traced
# fault by kernel function, averages them over the faults of each region of
# userspace/faulttrace.c (a fault path and a folio size), and writes a table:
# the instructions per fault of each path and size, and for each size the
# functions whose counts differ between C and Rust.

import bisect
import collections
import json
import re
import subprocess
import sys

arch, vmlinux, nm, console, tdir, out_txt, out_json = sys.argv[1:8]

syms = []
for line in subprocess.run([nm, "-n", "--defined-only", vmlinux], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW":
        syms.append((int(parts[0], 16), parts[2]))
addrs = [a for a, _ in syms]


def func(pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return syms[i][1] if i >= 0 else "?"


hmf = next(a for a, n in syms if n == "handle_mm_fault")
# Work a fault does in batches, for more than itself, whose share of a fault depends on the
# state of the batch, not on the fault path: the page allocator (its per-CPU free lists are
# refilled now and then) and the drain of the per-CPU LRU batch (by one fault in PAGEVEC_SIZE,
# whichever it is; a fault an interrupt came in on is left out, which may be that one). Each
# is counted from its entry to the return that leaves the depth it was entered at.
ALLOC_ENTRIES = {a for a, n in syms if n in ("__folio_alloc_noprof", "folio_alloc_mpol_noprof",
                                             "vma_alloc_folio_noprof", "__alloc_pages_noprof",
                                             "folio_batch_move_lru")}
regions = {}
for line in open(console, errors="replace"):
    m = re.match(r"mmrs-data faulttrace region=(\d+) path=(\S+) size_kb=(\d+) faults=(\d+)", line)
    if m:
        regions[int(m.group(1))] = (m.group(2), int(m.group(3)), int(m.group(4)))
if len(regions) != 16:
    sys.exit("fault-trace: the guest reported %d regions, not 16" % len(regions))

# "Trace 0: 0x7f.. [00000000/ffffffff81234567/00000000/ff020000] symbol"
trace_re = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
# Interrupt entry points: a fault an interrupt came in on is left out (its
# handler's instructions are not the fault's).
IRQ = re.compile(r"^(asm_(sysvec|common_interrupt|exc_)|el1h_64_irq|el0t_64_irq|el1_interrupt)")
region_traces = {}
for r, (path, kb, faults) in sorted(regions.items()):
    try:
        f = open("%s/region-%d.log" % (tdir, r), errors="replace")
    except OSError:
        sys.exit("fault-trace: no log of region %d (%s, %dK)" % (r, path, kb))
    traces = []
    with f:
        for line in f:
            m = trace_re.match(line)
            if not m:
                continue
            pc = int(m.group(1), 16)
            if pc == hmf:
                traces.append([])
            if traces:
                traces[-1].append(pc)
    if len(traces) != faults:
        sys.exit("fault-trace: region %d (%s, %dK): %d faults logged, %d made" %
                 (r, path, kb, len(traces), faults))
    region_traces[r] = traces

# Which traced instructions are calls and returns, for a shadow stack: the allocator's share
# ends with the return from the function it was entered at, however it was entered (a call,
# or a tail call from a function that does not get control back).
objdump = nm.replace("llvm-nm", "llvm-objdump")
seen = sorted({func(pc) for traces in region_traces.values() for t in traces for pc in t})
kind = {}
dis = subprocess.run([objdump, "-d", "--no-show-raw-insn", "--disassemble-symbols=" + ",".join(seen),
                      vmlinux], capture_output=True, text=True, check=True).stdout
for line in dis.splitlines():
    m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
    if m:
        op = m.group(2)
        if op.startswith("call") or op in ("bl", "blr", "blraa", "blraaz", "blrab", "blrabz"):
            kind[int(m.group(1), 16)] = 1
        elif op.startswith("ret"):
            kind[int(m.group(1), 16)] = -1

result = {}
for r, (path, kb, faults) in sorted(regions.items()):
    traces = region_traces[r]
    counts = collections.Counter()
    alloc = 0
    kept = 0
    for t in traces:
        fns = [func(pc) for pc in t]
        if any(IRQ.match(fn) for fn in set(fns)):
            continue
        counts.update(fns)
        # The allocator's share (see ALLOC_ENTRIES), from its entry to the return that leaves
        # the depth it was entered at. A call whose callee was not logged (x86's page
        # clearing) is followed by its own return address: no depth.
        depth = 0
        until = None
        for i, pc in enumerate(t):
            if until is None and pc in ALLOC_ENTRIES:
                until = depth
            if until is not None:
                alloc += 1
            k = kind.get(pc, 0)
            if k > 0 and i + 1 < len(t) and fns[i + 1] == fns[i] and t[i + 1] > pc:
                k = 0
            depth += k
            if until is not None and depth < until:
                until = None
        kept += 1
    if kept < faults // 2:
        sys.exit("fault-trace: region %d: interrupts in %d of %d faults" % (r, faults - kept, faults))
    result.setdefault(str(kb), {})[path] = {
        "faults": kept,
        "per_fault": sum(counts.values()) / kept,
        "per_fault_no_alloc": (sum(counts.values()) - alloc) / kept,
        "functions": {fn: n / kept for fn, n in counts.items()},
    }

paths = ["c", "rust", "rust_order", "rust_fault"]


def table(key):
    """A row a folio size: C's count of `key`, and each Rust path's with its difference."""
    rows = ["| folio size | C | Rust | Rust order, C map | C order, Rust map |",
            "|---|---:|---:|---:|---:|"]
    for kb in sorted(result, key=int):
        row = result[kb]
        c = row["c"][key]
        cells = ["%.1f" % c] + ["%.1f (%+.1f)" % (row[p][key], row[p][key] - c) for p in paths[1:]]
        rows.append("| %sK | %s |" % (kb, " | ".join(cells)))
    return rows


lines = ["Kernel instructions per anonymous write fault (handle_mm_fault() to its return;",
         "%s; averaged over 31 faults of each path and size, less those an interrupt" % arch,
         "came in on; x86's page clearing, the same on every path, not counted)", ""]
lines += table("per_fault")
lines += ["", "The same less the instructions of the page allocator and of the per-CPU LRU batch's",
          "drain (from the call to the return: they depend on the state of the free lists and",
          "of the batch, not on the fault path):", ""]
lines += table("per_fault_no_alloc")
for kb in sorted(result, key=int):
    row = result[kb]
    fc, fr = row["c"]["functions"], row["rust"]["functions"]
    diff = sorted(((fr.get(fn, 0) - fc.get(fn, 0), fn) for fn in set(fc) | set(fr)),
                  key=lambda t: -abs(t[0]))
    lines += ["", "%sK, Rust against C, by function (instructions per fault):" % kb, ""]
    for d, fn in diff:
        if abs(d) >= 0.5:
            lines.append("  %+8.1f  %-50s C %8.1f  Rust %8.1f" % (d, fn, fc.get(fn, 0),
                                                                  fr.get(fn, 0)))
open(out_txt, "w").write("\n".join(lines) + "\n")
json.dump({"arch": arch, "sizes": result}, open(out_json, "w"), indent=1)
print("\n".join(lines))
