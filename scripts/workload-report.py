#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""workload-report.py [--out FILE] [--json-dir DIR] [--tlb LOG]... [--hugetlb LABEL=LOG]... LOG...:
the tables of W=bench (make bench-real) from its console logs
(build/results/workload-ARCH-test-bench.log) and the mmrs-meter plugin's
window lines beside them (.meter), the TLB model's table from the W=bench-tlb
logs given with --tlb, and of W=hugetlb from the logs given with --hugetlb,
in Markdown for docs/bench/real.md.

Every log must have a verdict file beside it (.verdict, written by
scripts/workload.sh once scripts/boot.sh has judged the boot) that says
"passed": a log whose boot printed a splat, failed a step or did not finish
is refused, and so is a W=bench log without its plugin windows.

From the console it reads the "mmrs-data workload bench LABEL k=v ..." line
of each measured step, the "mmrs-meter-step N ID LABEL" line announcing its
window, the "== bench round R: policy P" lines, the objects' hash of each
compile ("mmrs-data objects LABEL ROUND sha256=... count=...") and the
"mmrs-data textfolios LABEL ..." lines of /mmrs/textfolios.py. The Nth step
is the Nth window of the .meter file (the last ones, if a retried boot left
some before them); their ids must agree. The compile must produce the same
objects under every policy and in every round.

Several rounds (in one log or in several logs of one architecture): each row
of a table is one run, the one with the median kernel instructions of that
step (the lower of the two middle ones for an even count), with its round,
and the spread of kernel instructions over the rounds. --json-dir writes
every run's figures to DIR/real-ARCH.json with the commits measured."""
import json
import os
import re
import statistics
import sys

POLICIES = ["mthp-4k", "mthp-64k", "arch", "auto", "exec-ra-off"]


def die(msg):
    sys.exit(f"workload-report: {msg}")


def verdict(path):
    """The commit a log measured, if its verdict file says passed; else exit."""
    vf = re.sub(r"\.log$", "", path) + ".verdict"
    try:
        words = open(vf).read().split()
    except OSError:
        die(f"{path}: refused: no verdict file {vf} (scripts/workload.sh writes it)")
    if not words or words[0] != "passed":
        die(f"{path}: refused: its boot's verdict is {' '.join(words) or 'empty'}, not passed")
    return words[1] if len(words) > 1 else "unknown"


def kvs(text):
    return dict(x.split("=", 1) for x in text.split() if "=" in x)


# The tag of a TLB model that kept learned 4K entries (see meter_windows()).
OLD_MODEL = "learned-4k-kept"


def meter_windows(path):
    """The window lines of the plugin's log beside PATH, in order; exit on a
    warning (a window opened twice, ended without a begin, or left open)."""
    mf = re.sub(r"\.log$", "", path) + ".meter"
    try:
        lines = open(mf, errors="replace").read().splitlines()
    except OSError:
        die(f"{path}: refused: no plugin windows {mf} (W=bench runs under the mmrs-meter plugin)")
    wins, tlb = [], None
    for line in lines:
        if line.startswith("mmrs-meter: warning"):
            die(f"{mf}: {line}")
        m = re.match(r"mmrs-meter: window (\d+) (.*)", line)
        if m:
            kv = kvs(m.group(2))
            kv["id"] = m.group(1)
            wins.append(kv)
        m = re.match(r"mmrs-meter: total (.*)", line)
        if m:
            # The model, with its tlb_min when it is not the 16 of make bench-real: a table
            # never mixes rows of two rules for large entries.
            total = kvs(m.group(1))
            tlb = total.get("tlb")
            if tlb not in (None, "none") and total.get("tlb_min", "16") != "16":
                tlb += f",tlb_min={total['tlb_min']}"
            # A plugin before 2026-11-28 kept the 4K entries learned before a block's
            # large entry, which shadowed it (tlb_drop=1 since): its misses are too many.
            if tlb not in (None, "none") and total.get("tlb_drop") != "1":
                tlb += "," + OLD_MODEL
            # tlb_src=pt (arm64 since 2026-12-02): user pages' entry sizes read from the
            # page tables the guest wrote. Only if the plugin found guest RAM where QEMU's
            # virt machine has it (its "physical" addresses are guest PAs only there),
            # every calibration agreed and it saw contiguous-bit entries stored, and no
            # window has a user walk it could not size; else the figures are 4K entries
            # that say nothing.
            if total.get("tlb_src") == "pt":
                blind = [w["id"] for w in wins if w.get("pt_walk_blind", "0") != "0"]
                if (total.get("pt_ready") != "1" or total.get("pt_calib_bad") != "0"
                        or not total.get("pt_ram", "").startswith("0x40000000-")
                        or int(total.get("pt_cont_stores", "0")) == 0 or blind):
                    die(f"{mf}: refused: tlb_src=pt could not read the guest's page tables "
                        f"(pt_ready={total.get('pt_ready')}, pt_ram={total.get('pt_ram')}, "
                        f"pt_calib_bad={total.get('pt_calib_bad')}, "
                        f"pt_cont_stores={total.get('pt_cont_stores')}, "
                        f"windows with unsized walks: {blind or 'none'})")
                tlb += ",pt"
    return wins, tlb


def parse(path):
    commit = verdict(path)
    arch, rnd, steps, msteps, objects, text, vcpus = None, 0, [], [], {}, {}, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip().replace("\r", "")
            m = re.match(r"== workload bench(?:-tlb)?: Linux \S+ (\S+),", line)
            if m:
                arch = "arm64" if m.group(1) == "aarch64" else m.group(1)
            m = re.search(r"smp: Brought up \d+ nodes?, (\d+) CPUs?$", line)
            if m:
                vcpus = int(m.group(1))
            m = re.match(r"== bench round (\d+): policy (\S+)", line)
            if m:
                rnd = int(m.group(1))
            m = re.match(r"mmrs-meter-step (\d+) (\d+) (\S+)", line)
            if m:
                msteps.append((int(m.group(2)), m.group(3)))
            m = re.match(r"mmrs-data workload bench(?:-tlb)? (\S+) (.*)", line)
            if m and m.group(1) != "total":
                kv = kvs(m.group(2))
                if kv.get("rc") != "0":
                    die(f"{path}: {m.group(1)} failed (exit {kv.get('rc')})")
                steps.append({"label": m.group(1), "round": rnd, "vm": kv})
            m = re.match(r"mmrs-data objects (\S+) (\d+) (.*)", line)
            if m:
                objects[(m.group(1), int(m.group(2)))] = kvs(m.group(3))
            m = re.match(r"mmrs-data textfolios (\S+) (.*)", line)
            if m:
                text[(m.group(1), rnd)] = kvs(m.group(2))
    if not steps:
        die(f"no W=bench figures in {path}")
    wins, tlb = meter_windows(path)
    if [s["label"] for s in steps] != [lab for _, lab in msteps]:
        die(f"{path}: the measured steps and the meter's step lines disagree")
    if len(wins) < len(steps):
        die(f"{path}: {len(steps)} steps but {len(wins)} plugin windows")
    wins = wins[len(wins) - len(steps):]
    for s, (wid, _), w in zip(steps, msteps, wins):
        if int(w["id"]) != wid:
            die(f"{path}: step {s['label']} (round {s['round']}) is window {wid}, the plugin's is {w['id']}")
        s["meter"] = w
        policy = s["label"].split("-", 1)[1]
        if s["label"].startswith("compile-"):
            o = objects.get((policy, s["round"]))
            if not o:
                die(f"{path}: no objects hash for {s['label']} round {s['round']}")
            s["objects"] = o
            s["text"] = text.get((policy, s["round"]), {})
        s["commit"] = commit
        s["vcpus"] = vcpus
    return arch or path, steps, tlb, commit


def num(run, key):
    """A figure of a run: the meter's first, then the step's /proc/vmstat delta."""
    v = run["meter"].get(key, run["vm"].get(key))
    return float(v) if v not in (None, "-") else None


def pick(runs):
    """The run with the median kernel instructions (the lower middle one)."""
    by = sorted(runs, key=lambda r: num(r, "kernel_insns"))
    return by[(len(by) - 1) // 2]


def pct(v, base):
    if v is None or not base:
        return "-"
    return f"{100.0 * (v - base) / base:+.1f}%"


def spread(runs, key="kernel_insns"):
    vals = [num(r, key) for r in runs]
    if len(vals) < 2:
        return "-"
    return f"{100.0 * (max(vals) - min(vals)) / statistics.median(vals):.2f}%"


def minor(r):
    return num(r, "pgfault") - (num(r, "pgmajfault") or 0)


def med(runs, key):
    return statistics.median(float(r[key]) for r in runs)


def fmt_m(v):
    return f"{v / 1e6:,.1f}"


def picks(steps):
    by = {}
    for s in steps:
        by.setdefault(s["label"], []).append(s)
    return by, {kind: {p: pick(by[f"{kind}-{p}"]) for p in POLICIES if f"{kind}-{p}" in by}
                for kind in ("compile", "python")}


def vcpus_said(steps):
    """The guest's vCPUs (`-smp`), from the kernel's "smp: Brought up" line."""
    n = sorted({s["vcpus"] for s in steps if s.get("vcpus")})
    if not n:
        return "The guest's vCPUs are not in the log."
    return (f"The guest had {' or '.join(map(str, n))} vCPU{'s' if n != [1] else ''} "
            f"(`-smp {'/'.join(map(str, n))}`, `make -j` as many).")


def table(arch, steps, tsteps, commits, tcommits, tlb):
    by, rows = picks(steps)
    comp = rows["compile"]
    if "mthp-4k" not in comp:
        die(f"{arch}: no mthp-4k compile, the baseline of every table")
    hashes = {(s["objects"]["sha256"], s["objects"].get("count")) for s in steps + tsteps if "objects" in s}
    if len(hashes) != 1:
        die(f"{arch}: the compile wrote different objects under different policies or rounds: {sorted(hashes)}")
    sha, count = hashes.pop()
    n = len(by["compile-mthp-4k"])
    b = comp["mthp-4k"]
    out = [f"#### {arch} ({n} round{'s' if n != 1 else ''}; each row the run with the median "
           f"kernel instructions)", "",
           f"Commit{'s' if len(commits) > 1 else ''} {', '.join(sorted(commits))}. Every compile wrote "
           f"the same {count} objects (sha256 of their hashes `{sha[:16]}`). "
           f"{vcpus_said(steps)}", ""]
    out.append("| compile | round | kernel insns (M) | vs mthp-4k | spread | user insns (M) | vs mthp-4k | "
               "guest time (s) | minor faults | major faults | peak RSS (kB) | 64K anon mTHPs |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p, r in comp.items():
        k, u = num(r, "kernel_insns"), num(r, "user_insns")
        out.append(f"| {p} | {r['round']} | {fmt_m(k)} | {pct(k, num(b, 'kernel_insns'))} | "
                   f"{spread(by[f'compile-{p}'])} | {fmt_m(u)} | {pct(u, num(b, 'user_insns'))} | "
                   f"{num(r, 'elapsed'):.1f} | {minor(r):,.0f} | {num(r, 'pgmajfault') or 0:,.0f} | "
                   f"{num(r, 'rss_kb'):,.0f} | {num(r, 'mthp_64kB_anon_fault_alloc') or 0:,.0f} |")
    out.append("")
    py = rows["python"]
    if "mthp-4k" in py:
        pb = py["mthp-4k"]
        out.append("| python3 pyalloc.py | round | kernel insns (M) | vs mthp-4k | spread | user insns (M) | "
                   "vs mthp-4k | minor faults | major faults | peak RSS (kB) | 64K anon mTHPs |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for p, r in py.items():
            k, u = num(r, "kernel_insns"), num(r, "user_insns")
            out.append(f"| {p} | {r['round']} | {fmt_m(k)} | {pct(k, num(pb, 'kernel_insns'))} | "
                       f"{spread(by[f'python-{p}'])} | {fmt_m(u)} | {pct(u, num(pb, 'user_insns'))} | "
                       f"{minor(r):,.0f} | {num(r, 'pgmajfault') or 0:,.0f} | {num(r, 'rss_kb'):,.0f} | "
                       f"{num(r, 'mthp_64kB_anon_fault_alloc') or 0:,.0f} |")
        out.append("")
    tcomp = {}
    if tsteps:
        _, trows = picks(tsteps)
        tcomp = trows["compile"]
        if "mthp-4k" not in tcomp:
            die(f"{arch}: the TLB run has no mthp-4k compile")
        tb = tcomp["mthp-4k"]
        nt = len([s for s in tsteps if s["label"] == "compile-mthp-4k"])
        out.append(f"TLB model `{tlb}` (W=bench-tlb: the same steps in a boot of their own, {nt} "
                   f"round{'s' if nt != 1 else ''}; commit{'s' if len(tcommits) > 1 else ''} "
                   f"{', '.join(sorted(tcommits))}):")
        out.append("")
        out.append("| compile | iTLB misses, user (K) | vs mthp-4k | iTLB MPKI, user | iTLB MPKI, kernel | "
                   "dTLB misses, user (K) | vs mthp-4k | dTLB MPKI, user | dTLB MPKI, kernel | page walks (K) | "
                   "cc1 text cached (kB) | in >= 64K folios | in contiguous 64K blocks |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for p, r in tcomp.items():
            iu, du = num(r, "itlb_miss_u"), num(r, "dtlb_miss_u")
            walks = (num(r, "walk_k") or 0) + (num(r, "walk_u") or 0)
            t = r.get("text", {})
            cached = int(t["cached_kb"]) if t else 0

            def share(k):
                return f"{100.0 * int(t[k]) / cached:.1f}%" if cached and k in t else "-"

            out.append(f"| {p} | {iu / 1e3:,.1f} | {pct(iu, num(tb, 'itlb_miss_u'))} | "
                       f"{num(r, 'itlb_mpki_u'):.3f} | {num(r, 'itlb_mpki_k'):.3f} | {du / 1e3:,.1f} | "
                       f"{pct(du, num(tb, 'dtlb_miss_u'))} | "
                       f"{num(r, 'dtlb_mpki_u'):.3f} | {num(r, 'dtlb_mpki_k'):.3f} | {walks / 1e3:,.1f} | "
                       f"{cached if t else '-'} | {share('large_kb')} | {share('contig_kb')} |")
        out.append("")
    out += targets(arch, comp, tcomp, tlb)
    return out


def targets(arch, comp, tcomp, tlb=None):
    """Issue 33's targets, from the rows above: met or missed, with the figure."""
    out = [f"Targets ({arch}, from the rows above):", ""]
    # A TLB target is not judged on a model that over-counted large mappings' misses.
    old = tlb is not None and OLD_MODEL in tlb.split(",")

    def verdict(ok):
        if old:
            return ("not judged: measured with the TLB model that kept learned 4K entries, "
                    "which over-counts the misses of large mappings")
        return "met" if ok else "missed"

    def ratio(rows, p, key, base="mthp-4k"):
        return 100.0 * (num(rows[p], key) - num(rows[base], key)) / num(rows[base], key)

    if "auto" in comp:
        k, u = ratio(comp, "auto", "kernel_insns"), ratio(comp, "auto", "user_insns")
        goal = arch == "arm64"
        out.append(f"- compile, auto against mthp-4k: kernel instructions {k:+.1f}%"
                   + (f" (target at most -30%: {'met' if k <= -30 else 'missed'})" if goal else "")
                   + f"; user instructions {u:+.2f}%"
                   + (f" (target within 1%: {'met' if abs(u) <= 1 else 'missed'})" if goal else "") + ".")
    for p in ("mthp-64k", "auto"):
        if p in tcomp:
            d = ratio(tcomp, p, "dtlb_miss_u")
            out.append(f"- compile, modelled dTLB misses (user), {p} against mthp-4k: {d:+.1f}% "
                       f"({'fewer' if d < 0 else 'more'}).")
    if "exec-ra-off" in tcomp:
        i = ratio(tcomp, "mthp-4k", "itlb_miss_u", base="exec-ra-off")
        out.append(f"- compile, modelled iTLB misses (user: cc1 is nearly all of it), exec readahead on "
                   f"(mthp-4k) against off (exec-ra-off): {i:+.1f}%"
                   + (f" (target at most -50%: {verdict(i <= -50)})" if arch == "arm64" else "")
                   + ".")
        out += itlb_split(arch, tcomp["mthp-4k"], tcomp["exec-ra-off"])
    out.append("")
    return out


def itlb_split(arch, on, off):
    """Where the user iTLB misses of the compile are left, with exec readahead on and off:
    on text the model covered with a 64K or 2M entry (the L1 iTLB's capacity), or on 4K
    pages; and the instruction side's page walks. Only from a meter that splits them."""
    keys = ("itlb_miss_u_4k", "itlb_miss_u_64k", "itlb_miss_u_2m")
    if any(num(r, k) is None for r in (on, off) for k in keys + ("itlb_walk_u",)):
        return []
    large = []
    for r in (on, off):
        if sum(num(r, k) for k in keys) != num(r, "itlb_miss_u"):
            die(f"{arch}: the meter's iTLB misses by entry size do not add up to itlb_miss_u")
        large.append(100.0 * (num(r, "itlb_miss_u_64k") + num(r, "itlb_miss_u_2m")) / num(r, "itlb_miss_u"))
    w_on, w_off = num(on, "itlb_walk_u"), num(off, "itlb_walk_u")
    return [f"- compile, the user iTLB misses left with exec readahead on (mthp-4k): {large[0]:.1f}% on "
            f"text the model covered with a 64K or 2M entry, {100 - large[0]:.1f}% on text in 4K pages "
            f"(exec-ra-off: {large[1]:.1f}% and {100 - large[1]:.1f}%); their page walks (user) "
            f"{w_on / 1e3:,.1f} K against {w_off / 1e3:,.1f} K ({pct(w_on, w_off)})."]


PREAMBLE = """Generated by `make bench-real ARCH=<arch>` (W=bench of `scripts/workload.sh`,
`userspace/rootfs/guest/workloads/bench.sh`; tables by `scripts/workload-report.py`) on
the test kernel booted on the Debian 12 userland of `make rootfs` under QEMU TCG with
`-icount shift=0,sleep=off -m 3G`, two vCPUs on arm64 and one on x86_64 (two met the x86_64 TCG RCU stall of `docs/testing.rst`; each table says its vCPUs) and `norandmaps`, under the mmrs-meter plugin
(`userspace/qemu-plugin/README`). For each policy (mthp-4k: every mTHP size off, order 0
only; mthp-64k: 64K always; arch; auto; exec-ra-off: mthp-4k with
`/sys/kernel/debug/mm_rs/exec_ra` 0) the page cache is dropped, then Debian's gcc 12
(`-O2`, `make -j` as many as vCPUs) compiles 15 files of the linux-source-6.12 tree (`scripts/workload.sh`
lists them) reading its text from the EROFS disk, and a fixed allocator-heavy `python3`
program runs (`userspace/rootfs/guest/pyalloc.py`). The policies rotate: round r starts r - 1
places further down the list.

Kernel and user instructions are the plugin's counts over the step's window (every vCPU, from
the fork of the step's command to its reaping; an instruction is kernel when its address is in
the upper half), in `mode=tb`: a block's instructions are added when it starts, so a synchronous
exception in the middle of a block (a page fault) over-counts the rest of that block, a few
instructions a fault (`MMRS_METER_MODE=insn` counts exactly, at three times the cost). Spread: (largest - smallest) / median of the kernel instructions over
the rounds. Faults are `/proc/vmstat`'s over the step (minor: `pgfault` - `pgmajfault`); peak
RSS is the largest process's (`/usr/bin/time -v`: the largest `cc1`). The TLB table comes from W=bench-tlb, the same steps in a boot of
their own (one round: the model costs about three times the counting) with the plugin's model (arm64: Neoverse N1, 48-entry L1 iTLB and dTLB, 1280-entry L2, with 64K entries;
x86_64: Skylake). A model named `n1,pt` (arm64's rounds from 2026-12-02 on, `tlb_src=pt`)
reads the entry size of a user page from the page tables the guest kernel wrote: a 64K entry
where the page's 16 PTEs carry the contiguous bit and map its aligned 64K physical block in
order (contpte), a 2M entry where a PMD block maps it; kernel pages, and every page of a model
without `pt`, get a 64K or 2M entry inferred from the VA-to-PA contiguity of the first 16
walked pages of a block (`tlb_min=16`), so memory contiguous by chance is credited too and a
contpte block whose 16 pages are not all walked is not: "in contiguous 64K blocks" is how much of cc1's cached text
that inference can credit (16 pages in a row at a 64K-aligned PFN), "in >= 64K folios" how much is in large
folios (`textfolios.py`, from pagemap and kpageflags). The iTLB line under the targets splits the
user iTLB misses by the entry that refilled the L1 (a miss on text covered by a 64K or 2M entry
is a capacity or conflict miss of the L1, which no folio size removes) and gives the instruction
side's page walks. A model named `learned-4k-kept` is the plugin before 2026-11-28: it
kept the 4K entries of a block filled before the block's large entry, and its L2 refilled the
L1 with them, so large mappings' misses are over-counted (on a 64K microbenchmark, 1024 misses
where 256 are right); its TLB targets are not judged. QEMU models nothing else a fault or a
miss costs (caches, pipeline), and its guest is not the seed's hardware. The seed
(LARGE_ANON_FOLIO v4, 64K anonymous folios) measured a kernel compile on arm64 hardware (Ampere
Altra): with 64K, real time -5.7%, kernel time -42.0%, user time -0.6%, peak memory -1.1%; a
reviewer's rerun: sys -31.0%, real -4%.
Do not edit:
rerun `make bench-real`."""


def hugetlb(pairs, kept=None):
    """Seed 001's table from W=hugetlb logs: LABEL=FILE pairs, after the rows
    of kept (the table --out had) for kernels not measured in this run, if
    those were measured with sleep=off too."""
    out = ["### Seed 001: allocating and freeing 2 MiB hugetlb pages", "",
           "`make workload W=hugetlb` (`-icount shift=0,sleep=off`, 4 GiB, 256 pages, three rounds",
           "interleaved; medians in guest milliseconds). The seed (Mike Kravetz, \"Batch hugetlb",
           "vmemmap modification operations\", bare metal, 500,000 pages) measured, after",
           "batching, allocation 4.7 s / 7.3 s (x1.5) and freeing 4.2 s / 13.2 s (x3.1) with",
           "`hugetlb_optimize_vmemmap` 0 / 1. With 1, freeing the pages makes 6.12.117 report",
           "\"BUG: Bad page state\" (a splat of the base, with mm-rs and without: `docs/testing.rst`)",
           "on every kernel whose page checks are on: the debug kernels (DEBUG_VM) and the prod",
           "kernels, whose Debian configuration has `CONFIG_INIT_ON_ALLOC_DEFAULT_ON`. Such a boot",
           "fails its verdict and gives no row; a row of a boot that turned the checks off names",
           "its options (`init_on_alloc=0`: no check, and no zeroing of the pages as they are",
           "allocated). No arm64 row: 6.12 does not select ARCH_WANT_OPTIMIZE_HUGETLB_VMEMMAP on",
           "arm64, so it has no `hugetlb_optimize_vmemmap`.", "",
           "| kernel | alloc, 0 (ms) | alloc, 1 (ms) | x | free, 0 (ms) | free, 1 (ms) | x |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    labels = {pair.split("=", 1)[0] for pair in pairs}
    # Rows measured before workload.sh passed sleep=off (their guest time followed the
    # host's clock while the vCPUs idled) are not put beside rows measured with it.
    if kept and "sleep=off" not in "\n".join(kept):
        kept = None
    for line in kept or []:
        m = re.match(r"\| (\S+)[^|]* \| \d", line)
        if m and m.group(1) not in labels:
            out.append(line)
    for pair in pairs:
        label, path = pair.split("=", 1)
        verdict(path)
        runs, opts = {}, []
        for line in open(path, errors="replace"):
            # the boot options that turn the page checks on or off name the row
            if "Kernel command line:" in line:
                opts = re.findall(r"(?<!\S)(init_on_(?:alloc|free)=\S+|page_poison=\S+)", line)
            m = re.match(r"mmrs-data hugetlb (.*)", line.strip())
            if m:
                kv = dict(x.split("=", 1) for x in m.group(1).split())
                runs.setdefault(kv["optimize_vmemmap"], []).append(kv)
        if "0" not in runs or "1" not in runs:
            sys.exit(f"workload-report: {path}: no W=hugetlb rounds with both settings")
        a0, a1 = med(runs["0"], "alloc_ms"), med(runs["1"], "alloc_ms")
        f0, f1 = med(runs["0"], "free_ms"), med(runs["1"], "free_ms")
        if opts:
            label += f" ({', '.join(opts)})"
        out.append(f"| {label} | {a0:.0f} | {a1:.0f} | x{a1 / a0:.2f} | {f0:.0f} | {f1:.0f} | x{f1 / f0:.2f} |")
    out.append("")
    return out


def main():
    args = sys.argv[1:]
    out = jdir = None
    huge, tlbs = [], []
    while args[:1] in (["--out"], ["--hugetlb"], ["--json-dir"], ["--tlb"]):
        if args[0] == "--out":
            out = args[1]
        elif args[0] == "--json-dir":
            jdir = args[1]
        elif args[0] == "--tlb":
            tlbs.append(args[1])
        else:
            huge.append(args[1])
        args = args[2:]
    if not args and not huge:
        sys.exit("usage: workload-report.py [--out FILE] [--json-dir DIR] [--tlb LOG]... "
                 "[--hugetlb LABEL=LOG]... LOG...")
    # logs of one architecture are rounds of one measurement: merged
    merged = {}
    for path, kind in [(a, "steps") for a in args] + [(a, "tsteps") for a in tlbs]:
        arch, steps, tlb, commit = parse(path)
        m = merged.setdefault(arch, {"steps": [], "tsteps": [], "tlb": set(), "commits": set(),
                                     "tcommits": set()})
        if (tlb == "none") != (kind == "steps"):
            die(f"{path}: TLB model {tlb}: W=bench logs have none, W=bench-tlb (--tlb) logs one")
        m[kind] += steps
        if kind == "tsteps":
            m["tlb"].add(tlb)
            m["tcommits"].add(commit)
        else:
            m["commits"].add(commit)
    # What --out already has of architectures (or a hugetlb table) this run
    # has no logs for stays: one machine may have measured only one of them.
    kept, kept_huge = {}, None
    if out and os.path.exists(out):
        cur, key = [], None
        for line in open(out).read().split("\n") + ["#### "]:
            m = re.match(r"#### (\S+) \(", line)
            if line.startswith("#### ") or line.startswith("### Seed 001"):
                if key == "seed":
                    kept_huge = cur
                elif key:
                    kept[key] = cur
                cur, key = [], m.group(1) if m else ("seed" if line.startswith("### Seed 001") else None)
            if key:
                cur.append(line)
    lines = []
    for arch in sorted(set(merged) | set(kept)):
        if arch in merged:
            m = merged[arch]
            if not m["steps"]:
                die(f"{arch}: a W=bench-tlb log but no W=bench log")
            if len(m["tlb"]) > 1:
                die(f"{arch}: logs measured with different TLB models {sorted(m['tlb'])}")
            tlb = next(iter(m["tlb"]), None)
            lines += table(arch, m["steps"], m["tsteps"], m["commits"], m["tcommits"], tlb)
            if jdir:
                def raw(steps):
                    return [{"label": s["label"], "round": s["round"], "commit": s["commit"],
                             "meter": s["meter"], "vmstat": s["vm"], "objects": s.get("objects"),
                             "text": s.get("text")} for s in steps]
                with open(os.path.join(jdir, f"real-{arch}.json"), "w") as f:
                    json.dump({"arch": arch, "commits": sorted(m["commits"] | m["tcommits"]), "tlb": tlb,
                               "runs": raw(m["steps"]), "tlb_runs": raw(m["tsteps"])},
                              f, indent=1, sort_keys=True)
                    f.write("\n")
        else:
            lines += kept[arch]
    # one blank line before seed 001's table, whatever the kept tables ended with
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and (huge or kept_huge):
        lines.append("")
    if huge:
        lines += hugetlb(huge, kept_huge)
    elif kept_huge:
        lines += kept_huge
    while lines and not lines[-1].strip():
        lines.pop()
    lines.append("")
    text = "\n".join(lines)
    if out:
        with open(out, "w") as f:
            f.write(PREAMBLE + "\n\n" + text + "\n")
    else:
        print(text)


main()
