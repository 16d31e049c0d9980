#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a `make bench` console log into JSON and docs/benchmarks.md.

  bench.py ARCH LOG JSON_OUT MARKDOWN PROGS
      parse the "mmrs-data" lines of LOG, write JSON_OUT and docs/bench/ARCH.json,
      then regenerate MARKDOWN from every docs/bench/*.json
  bench.py --compare A.json B.json
      the largest relative difference between two runs, per metric
  bench.py --markdown MARKDOWN
      only regenerate MARKDOWN from docs/bench/*.json (make fault-trace does, after
      writing docs/bench/fault-trace-ARCH.json)
"""
import json
import re
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Metrics that must repeat between runs (guest time under -icount counts instructions),
# with the records they apply to. The fault rate of PT reclaim is the seed's pattern (whole
# 2 MiB touched); with one page touched per table the rate is dominated by allocating and
# freeing 100 MB of page tables, and is reported but not held to repeat.
DETERMINISTIC = {
    "anon": (["faults", "ns_per_mib", "ns_per_fault"], {}),
    "anon_meter": (["faults", "kernel_insns", "user_insns"], {}),
    "ptreclaim": (["vmpte_kb", "faults"], {}),
    "ptreclaim_rate": (["faults_per_s"], {"pages": 512}),
    "exectext": (["large_pct", "read_kb", "faulted_kb"], {}),
    "mt": (["faults", "faults_per_s"], {}),
    "policy": (["faults", "rss_kb", "ns"], {}),
}

# The order policies of `bench policy`, and the patterns: the dense ones (every page), the
# sparse ones (a page per 16K or 64K), and programs.
POLICIES = ["mthp-4k", "mthp-64k", "arch", "auto"]
FIXED = ["mthp-4k", "mthp-64k", "arch"]
DENSE = ["dense-seq", "dense-random"]
SPARSE = ["sparse16k-seq", "sparse64k-seq", "sparse64k-random"]
PROGRAMS = ["malloc", "busybox-sort", "busybox-gzip"]


def num(v):
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


def parse(log):
    data = {"anon": [], "anon_clang14": [], "mt": [], "ptreclaim": [], "exectext": [],
            "policy": []}
    for line in open(log, errors="replace"):
        line = line.strip()
        if not line.startswith("mmrs-data "):
            continue
        words = line.split()[1:]
        kind = words[0]
        if kind == "bench":
            kind = words[1]
            words = words[1:]
        rec = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        data.setdefault(kind, []).append({k: num(v) for k, v in rec.items()})
    return data


def median(records, key, **match):
    vals = [r[key] for r in records if all(r.get(k) == v for k, v in match.items())]
    return statistics.median(vals) if vals else None


def pct(a, b):
    """How much a is above b, in percent."""
    if a is None or b in (None, 0):
        return None
    return 100.0 * (a - b) / b


def summarise(d):
    s = {"anon": [], "mt": [], "ptreclaim": {}, "exectext": []}
    order0 = {p: median(d["anon"], "faults", size_kb=min(r["size_kb"] for r in d["anon"]), path=p)
              for p in ("c", "rust")} if d["anon"] else {}
    for size in sorted({r["size_kb"] for r in d["anon"]}):
        row = {"size_kb": size}
        for p in ("c", "rust"):
            row[p] = {k: median(d["anon"], k, size_kb=size, path=p)
                      for k in ("faults", "ns_per_mib", "ns_per_fault")}
        for p in ("rust_order", "rust_fault"):
            if any(r["path"] == p and r["size_kb"] == size for r in d["anon"]):
                row[p] = {k: median(d["anon"], k, size_kb=size, path=p)
                          for k in ("faults", "ns_per_mib", "ns_per_fault")}
        row["rust_vs_c_time_pct"] = pct(row["rust"]["ns_per_mib"], row["c"]["ns_per_mib"])
        row["fault_ratio_vs_order0"] = (order0["c"] / row["c"]["faults"]
                                        if row["c"]["faults"] else None)
        s["anon"].append(row)
    s["anon_meter"] = []
    am = d.get("anon_meter", [])
    for size in sorted({r["size_kb"] for r in am}):
        row = {"size_kb": size}
        for p in ("c", "rust", "rust_order", "rust_fault"):
            recs = [r for r in am if r["size_kb"] == size and r["path"] == p]
            if recs:
                row[p] = {"faults": statistics.median(r["faults"] for r in recs),
                          "kernel_per_fault": statistics.median(r["kernel_insns"] / r["faults"] for r in recs),
                          "user_per_fault": statistics.median(r["user_insns"] / r["faults"] for r in recs),
                          "kernel_spread": max(r["kernel_insns"] for r in recs) - min(r["kernel_insns"] for r in recs),
                          "rounds": len(recs)}
        if "c" in row and "rust" in row:
            row["rust_vs_c_pct"] = pct(row["rust"]["kernel_per_fault"], row["c"]["kernel_per_fault"])
        s["anon_meter"].append(row)
    s["anon_clang14"] = []
    for size in sorted({r["size_kb"] for r in d.get("anon_clang14", [])}):
        row = {"size_kb": size}
        for p in ("c", "rust"):
            row[p] = median(d["anon_clang14"], "ns_per_fault", size_kb=size, path=p)
        s["anon_clang14"].append(row)
    for n in sorted({r["threads"] for r in d["mt"]}):
        row = {"threads": n}
        for p in ("c", "rust"):
            row[p] = median(d["mt"], "faults_per_s", threads=n, path=p)
        row["rust_vs_c_pct"] = pct(row["rust"], row["c"])
        s["mt"].append(row)
    for pages in sorted({r["pages"] for r in d["ptreclaim"]}):
        row = {}
        for m in ("off", "on"):
            row[m] = {k: median(d["ptreclaim"], k, pages=pages, reclaim=m)
                      for k in ("iters", "vmpte_kb", "faults", "faults_per_s", "freed_fast",
                                "freed_slow")}
        row["on_vs_off_fault_rate_pct"] = pct(row["on"]["faults_per_s"], row["off"]["faults_per_s"])
        s["ptreclaim"][str(pages)] = row
    for mode in sorted({r["exec_ra"] for r in d["exectext"]}, key=str):
        for rnd in (0, 1):
            recs = [r for r in d["exectext"] if r["exec_ra"] == mode and r["random"] == rnd]
            if not recs:
                continue
            s["exectext"].append({"exec_ra": mode, "madv_random": rnd, **{
                k: statistics.median(r[k] for r in recs)
                for k in ("large_pct", "faulted_kb", "touched_kb", "read_kb", "amplification", "ms")}})
    s["exectext_miss"] = []
    miss = d.get("exectext-miss", [])
    for fa in sorted({r["fault_around"] for r in miss}, key=str, reverse=True):
        for ex in (1, 0):
            recs = [r for r in miss if r["fault_around"] == fa and r["exempt"] == ex]
            if not recs:
                continue
            s["exectext_miss"].append({"fault_around": fa, "exempt": ex,
                                       "sparse": recs[0].get("sparse", 0),
                                       "ra_kb": recs[0].get("ra_kb", "default"), **{
                k: statistics.median(r[k] for r in recs)
                for k in ("large_pct", "faulted_kb", "touched_kb", "read_kb", "ms")}})
    s["policy"] = {}
    for pattern in DENSE + SPARSE + PROGRAMS:
        row = {}
        for pol in POLICIES:
            m = {k: median(d.get("policy", []), k, pattern=pattern, policy=pol)
                 for k in ("faults", "rss_kb", "touched_kb", "ns")}
            if m["faults"] is not None:
                row[pol] = m
        if row:
            s["policy"][pattern] = row
    s["ksm"] = {}
    for kind in ("sparse", "dense"):
        row = {p: {k: median(d.get("ksm", []), k, kind=kind, path=p) for k in ("ns", "pages", "area_kb")}
               for p in ("c", "rust", "c-walk", "c-range")}
        if row["c"]["ns"] is not None and row["rust"]["ns"] is not None:
            row["c_over_rust"] = row["c"]["ns"] / row["rust"]["ns"] if row["rust"]["ns"] else None
            for p, ratio in (("c-walk", "walk_over_rust"), ("c-range", "range_over_rust")):
                if row[p]["ns"] is not None and row["rust"]["ns"]:
                    row[ratio] = row[p]["ns"] / row["rust"]["ns"]
                else:
                    del row[p]
            s["ksm"][kind] = row
    s["reclaim"] = {}
    for pattern in DENSE + SPARSE:
        row = {}
        for pol in POLICIES:
            m = {k: median(d.get("reclaim", []), k, pattern=pattern, policy=pol)
                 for k in ("rss_kb", "again_faults", "again_ns")}
            if m["rss_kb"] is not None:
                row[pol] = m
        if row:
            s["reclaim"][pattern] = row
    return s


def policy_targets(p):
    """The issue's targets for the order policies, from the medians of `bench policy`."""
    t = {}
    for pat in DENSE:
        row = p.get(pat, {})
        if "arch" in row and "mthp-4k" in row and row["arch"]["faults"]:
            t[f"arch_{pat}_fewer_x"] = row["mthp-4k"]["faults"] / row["arch"]["faults"]
        fixed = [row[x]["faults"] for x in FIXED if x in row]
        if "auto" in row and fixed:
            t[f"auto_{pat}_vs_fewest_fixed_pct"] = pct(row["auto"]["faults"], min(fixed))
    for pat in SPARSE:
        row = p.get(pat, {})
        if "auto" in row and "mthp-4k" in row:
            t[f"auto_{pat}_rss_vs_order0_pct"] = pct(row["auto"]["rss_kb"], row["mthp-4k"]["rss_kb"])
    return t


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def anon_meter_markdown(rows):
    """The anonymous fault path in the mmrs-meter plugin's exact instruction counts."""
    out = ["### Fault path cost in exact instructions (mmrs-meter plugin)", "",
           "The anonymous benchmark once more, in a boot of its own under the mmrs-meter QEMU plugin",
           "(`mode=insn`, `userspace/qemu-plugin/README`): each touch loop is a window, and its kernel",
           "instructions (every instruction at a kernel address while it ran: exception entry and",
           "return, the fault path, allocation, zeroing, the timer ticks that fell in it) are divided",
           "by its faults. Medians over the rounds; spread: the largest minus the smallest kernel",
           "count of a path's windows. Target: Rust at most C (0%) at every size.", "",
           "| folio size | C kernel insns/fault | Rust | Rust order, C map | C order, Rust map | "
           "user insns/fault | spread C / Rust |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    missed = []
    for r in rows:
        if "c" not in r:
            continue
        c = r["c"]["kernel_per_fault"]
        cells = [fmt(c)]
        for p in ("rust", "rust_order", "rust_fault"):
            if p in r:
                v = r[p]["kernel_per_fault"]
                cells.append(f"{fmt(v)} ({fmt(pct(v, c), '+.2f')}%)")
            else:
                cells.append("-")
        if "rust" in r and r["rust"]["kernel_per_fault"] > c:
            missed.append(f"{r['size_kb']}K ({fmt(r['rust_vs_c_pct'], '+.2f')}%)")
        out.append(f"| {r['size_kb']}K | " + " | ".join(cells) + f" | {fmt(r['c']['user_per_fault'])} | "
                   f"{r['c']['kernel_spread']:,.0f} / {r.get('rust', {}).get('kernel_spread', 0):,.0f} |")
    out += ["", "Target, Rust at most C at every size: "
            + ("met." if not missed else "missed at " + ", ".join(missed) + "."), ""]
    return out


def fault_claims(runs):
    """The figures the introduction states, from the kept data: at 4K, Rust and "Rust order,
    C map" against C in guest ns (median of the rounds) and in traced instructions (make
    fault-trace, allocation left out), and what running first in a round adds to a path."""
    claims, first = [], []
    for run in runs:
        a = run["arch"]
        anon = [r for r in run["data"].get("anon", []) if r["size_kb"] == 4]
        trace = os.path.join(REPO, "docs", "bench", f"fault-trace-{a}.json")
        if not anon or not os.path.exists(trace):
            continue
        with open(trace) as f:
            t = json.load(f)["sizes"].get("4", {})

        def ns(p):
            v = [r["ns_per_fault"] for r in anon if r["path"] == p]
            return statistics.median(v) if v else None

        def ins(p):
            return t[p]["per_fault_no_alloc"] if p in t else None

        if None in (ns("c"), ns("rust"), ns("rust_order"), ins("c"), ins("rust"), ins("rust_order")):
            continue
        claims.append(f"{a} {ns('rust') - ns('c'):+.1f} ns for {ins('rust') - ins('c'):+.1f} "
                      f"instructions, \"Rust order, C map\" {ns('rust_order') - ns('c'):+.1f} ns for "
                      f"{ins('rust_order') - ins('c'):+.1f}")
        extra = []
        for rnd in sorted({r["round"] for r in anon}):
            lead = [r for r in anon if r["round"] == rnd][0]
            later = [r["ns_per_fault"] for r in anon if r["path"] == lead["path"] and r["round"] != rnd]
            if later:
                extra.append(lead["ns_per_fault"] - statistics.mean(later))
        if extra:
            first.append(f"{a} {statistics.mean(extra):+.1f} ns, the mean over its {len(extra)} rounds")
    return "; ".join(claims) or "not measured", "; ".join(first) or "not measured"


def markdown(runs):
    claims, first = fault_claims(runs)
    out = ["# mm-rs benchmarks", "",
           "Generated by `make bench ARCH=<arch>` (scripts/bench.sh, scripts/bench.py) from the",
           "guest's own measurements: the test kernel booted under QEMU TCG with",
           "`-icount shift=0,sleep=off -m 3G`, so guest time counts guest instructions and the figures",
           "repeat on a loaded host. Guest time advances with every vCPU's instructions, so",
           "everything but the multithreaded benchmark runs in a boot with one vCPU (`-smp 1`),",
           "where it is the measured loop's own: the anonymous figures are the fault path",
           "(entry, handle_mm_fault, the order decision, allocation, zeroing, the map) plus one",
           "store a page; the multithreaded one boots with `-smp 4`. Each feature is switched",
           "between its Rust path,",
           "its C path (where there is one) and off in the same boot, rounds interleaved, the",
           "order of the paths rotated from round to round (runs dated before 2026-11-25 ran",
           "C first in every round); tables give medians over the rounds. Do not edit: rerun",
           "`make bench`. No figure is kept from a boot whose verdict failed: a program that",
           "exited non-zero, a boot that did not reach its end, or a splat in the console",
           "(`scripts/splats.txt`) makes `bench.py` refuse the log.", "",
           "What Rust against C means here: the primary figure is the instruction count of",
           "the fault path (`make fault-trace`, first below), which leaves out the page",
           "allocator, the LRU batch's drain and the page clearing, the work whose cost",
           "depends on the state the machine is in rather than on the path. Guest time",
           "(after it) counts every instruction of the measured loop, those included. Until",
           "2026-11-25 the rounds ran C first, and guest time showed about twice the",
           "difference the instruction counts did at 4K, with \"Rust order, C map\" below C",
           "although its trace counts more instructions. The rotated rounds show why: the path",
           "that runs first in a round, on the coldest free lists and LRU batch, takes more per",
           f"4K fault than the same path run later, whichever path it is ({first}).",
           "With the order rotated and medians taken, guest time agrees with the traced",
           f"instruction counts (4K, Rust against C: {claims}), so nothing outside the traced",
           "path differs between the paths. Claims of Rust against C rest on the instruction",
           "counts; guest time is the end-to-end check. These figures, and the first-in-round",
           "cost above, are computed from the kept data of the runs below.", ""]
    for run in runs:
        a, s = run["arch"], run["summary"]
        out += [f"## {a}", "",
                f"Kernel {run['base']}; command `{run['command']}`; {run['date']}, "
                f"{'commit ' + run['commit'] if 'commit' in run else 'commit not recorded'};",
                f"in-guest programs `{run['programs']}`.", ""]
        for u in run.get("updates", []):
            at = f" at commit {u['commit']}" if "commit" in u else ""
            out += [f"Measured again on {u['date']}{at} with `{u['command']}` (in-guest programs "
                    f"`{u['programs']}`): the {', '.join(u['kinds'])} figures, after {u['why']}.", ""]
        # Kernels built before 2026-11-27 had CONFIG_BUG off (tinyconfig's EXPERT=y), and
        # -icount ran with sleep=on: say so of every kind of figure last measured on one.
        blind = blind_kinds(run)
        if blind:
            out += [f"**Judged on a kernel that could not report a WARN**: the "
                    f"{', '.join(blind)} figures, measured before "
                    f"{BLIND_UNTIL}, when the test kernels had `CONFIG_BUG` off (a WARN() printed "
                    "nothing), no lockup detector and, on arm64, no contpte, and `-icount` ran "
                    "with `sleep=on` (idle time followed the host's clock). Not measured again "
                    "since: `make bench` replaces these figures.", ""]
        if mt_too_few_cpus(run):
            out += ["**The mt figures ran four threads on fewer than four CPUs**: measured on a "
                    "test kernel that brought up fewer CPUs than `-smp 4` (x86_64's `tinyconfig` "
                    "left `NR_CPUS` at 2 until 2026-11-28; `docs/testing.rst`). Not measured again "
                    f"since: `MMRS_BENCH_PROGS4=bench:mt:2 MMRS_BENCH_UPDATE=... make bench ARCH={a}` "
                    "replaces them.", ""]
        if s["anon"]:
            out += ["### Anonymous faults: 256 MiB touched one byte a page", "",
                    "| folio size | faults C | faults Rust | fewer than order 0 | ns/MiB C | ns/MiB Rust | Rust vs C |",
                    "|---|---:|---:|---:|---:|---:|---:|"]
            for r in s["anon"]:
                out.append(f"| {r['size_kb']}K | {fmt(r['c']['faults'], '.0f')} | "
                           f"{fmt(r['rust']['faults'], '.0f')} | x{fmt(r['fault_ratio_vs_order0'], '.2f')} | "
                           f"{fmt(r['c']['ns_per_mib'], '.0f')} | {fmt(r['rust']['ns_per_mib'], '.0f')} | "
                           f"{fmt(r['rust_vs_c_time_pct'], '+.2f')}% |")
            out.append("")
        if s.get("anon_meter"):
            out += anon_meter_markdown(s["anon_meter"])
        trace = os.path.join(REPO, "docs", "bench", f"fault-trace-{a}.json")
        if os.path.exists(trace):
            out += trace_markdown(json.load(open(trace)))
        if s["anon"]:
            out += ["### Fault path cost: guest ns per fault, each decision alone and both", "",
                    "Guest time of the whole loop divided by its faults: the traced path above plus",
                    "the allocator, the drain, the clearing and the store (see the top of this page).", "",
                    "| folio size | C | Rust (order and map) | Rust order, C map | C order, Rust map |",
                    "|---|---:|---:|---:|---:|"]
            for r in s["anon"]:
                c = r["c"]["ns_per_fault"]
                cells = [fmt(c)]
                for p in ("rust", "rust_order", "rust_fault"):
                    if p in r:
                        cells.append(f"{fmt(r[p]['ns_per_fault'])} ({fmt(pct(r[p]['ns_per_fault'], c), '+.2f')}%)")
                    else:
                        cells.append("-")
                out.append(f"| {r['size_kb']}K | " + " | ".join(cells) + " |")
            out.append("")
        if s.get("anon_clang14") and s["anon"]:
            c22 = {r["size_kb"]: r for r in s["anon"]}
            out += ["### Compiler reference: guest ns per fault, clang 14 against clang-22", "",
                    "The same kernel built with Debian's default clang 14, where rustc's LLVM (22) differs",
                    "from clang's and the C helpers stay out-of-line calls, against the clang-22 build with",
                    "`CONFIG_RUST_INLINE_HELPERS`: C against C shows the compiler's share, Rust against Rust",
                    "what inlining the helpers gained. The two builds are two boots: the clang 14",
                    "columns come from the run that last measured `anon_clang14`, the clang-22 ones from",
                    "the run that last measured `anon` (the dates above), each in rounds whose paths",
                    "rotate, so no path of either is first in every round.", "",
                    "| folio size | C, clang 14 | C, clang-22 | Rust, clang 14 build | Rust, clang-22 build |",
                    "|---|---:|---:|---:|---:|"]
            for r in s["anon_clang14"]:
                x = c22.get(r["size_kb"])
                if not x:
                    continue
                out.append(f"| {r['size_kb']}K | {fmt(r['c'])} | {fmt(x['c']['ns_per_fault'])} "
                           f"({fmt(pct(x['c']['ns_per_fault'], r['c']), '+.2f')}%) | {fmt(r['rust'])} | "
                           f"{fmt(x['rust']['ns_per_fault'])} ({fmt(pct(x['rust']['ns_per_fault'], r['rust']), '+.2f')}%) |")
            out.append("")
        if s.get("policy"):
            out += policy_markdown(a, s["policy"])
            prev = run.get("previous", {}).get("policy")
            if prev:
                out += policy_change_markdown(prev, s["policy"])
                nosplit = os.path.join(REPO, "docs", "bench", f"policy-nosplit-{a}.txt")
                if os.path.exists(nosplit):
                    out += policy_nosplit_markdown(a, prev, s["policy"], nosplit)
        if s.get("reclaim"):
            out += reclaim_markdown(s["reclaim"])
        if s.get("ksm"):
            out += ksm_markdown(s["ksm"])
        if s["ptreclaim"]:
            out += ["### PTE-table reclaim: mmap 50 GiB; N times: touch P pages of 2 MiB, MADV_DONTNEED it", "",
                    "| N x P | reclaim | VmPTE at end (kB) | faults | faults/s (guest) | tables freed fast / slow |",
                    "|---|---|---:|---:|---:|---:|"]
            for pages, r in s["ptreclaim"].items():
                for m in ("off", "on"):
                    x = r[m]
                    out.append(f"| {fmt(x['iters'], '.0f')} x {pages} | {m} | {fmt(x['vmpte_kb'], '.0f')} | "
                               f"{fmt(x['faults'], '.0f')} | {fmt(x['faults_per_s'], '.0f')} | "
                               f"{fmt(x['freed_fast'], '.0f')} / {fmt(x['freed_slow'], '.0f')} |")
                out.append(f"| {fmt(r['on']['iters'], '.0f')} x {pages} | on vs off | | | "
                           f"{fmt(r['on_vs_off_fault_rate_pct'], '+.2f')}% | |")
            out.append("")
        if s["exectext"]:
            out += ["### Exec text: 8 MiB executable on EROFS, 10% of its functions called at random", "",
                    "| exec readahead | MADV_RANDOM | faulted text in >=64K folios | faulted kB | touched kB | read kB | read / touched | ms (guest) |",
                    "|---|---|---:|---:|---:|---:|---:|---:|"]
            for r in s["exectext"]:
                out.append(f"| {r['exec_ra']} | {'yes' if r['madv_random'] else 'no'} | {fmt(r['large_pct'])}% | "
                           f"{fmt(r['faulted_kb'], '.0f')} | {fmt(r['touched_kb'], '.0f')} | {fmt(r['read_kb'], '.0f')} | "
                           f"x{fmt(r['amplification'], '.2f')} | {fmt(r['ms'])} |")
            out.append("")
        if s.get("exectext_miss"):
            out += ["### Exec text: the mmap_miss exemption", "",
                    "Exec readahead on, `/sys/kernel/debug/mm_rs/exec_ra_miss_exempt` 1 (exec faults",
                    "kept out of `mmap_miss`, mm-rs) and 0 (counted, as mainline: past `MMAP_LOTSAMISS`",
                    "(100) net misses no exec window is read, only the page faulted). With default",
                    "settings fault-around's hits keep the count low; the sparse run (one call in each",
                    "64K block of the text, `fault_around_bytes` 4096 as on a 64K-page kernel,",
                    "`read_ahead_kb` 64) misses 128 times and hits none.", "",
                    "| run | fault_around_bytes | read_ahead_kb | mmap_miss | faulted text in >=64K folios | faulted kB | touched kB | read kB | ms (guest) |",
                    "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
            for r in s["exectext_miss"]:
                out.append(f"| {'sparse' if r['sparse'] else '10% at random'} | {r['fault_around']} | "
                           f"{r['ra_kb']} | {'exempt' if r['exempt'] else 'counted'} | "
                           f"{fmt(r['large_pct'])}% | {fmt(r['faulted_kb'], '.0f')} | "
                           f"{fmt(r['touched_kb'], '.0f')} | {fmt(r['read_kb'], '.0f')} | {fmt(r['ms'])} |")
            out.append("")
        if s["mt"]:
            out += ["### Multithreaded faults: threads touching 64 MiB each, order 0", "",
                    "What this can show and what it cannot: under `-icount` QEMU runs the four vCPUs",
                    "one at a time, in turn, and guest time advances with the instructions of all of",
                    "them, so faults per second of guest time is the inverse of the instructions a",
                    "fault costs with other threads of the mm faulting alongside (the per-VMA lock,",
                    "the PTE and PMD locks, the shared counters taken in a multithreaded mm). It",
                    "cannot show scaling from 2 to 4 threads (the figure stays flat by construction)",
                    "nor contention: no two vCPUs ever run at once. Lock contention is exercised,",
                    "not measured, by the race KUnit cases and `make stress`.", "",
                    "| threads | faults/s C | faults/s Rust | Rust vs C |", "|---:|---:|---:|---:|"]
            for r in s["mt"]:
                out.append(f"| {r['threads']} | {fmt(r['c'], '.0f')} | {fmt(r['rust'], '.0f')} | "
                           f"{fmt(r['rust_vs_c_pct'], '+.2f')}% |")
            out.append("")
    # Real programs (make bench-real: scripts/workload-report.py writes the fragment)
    real = os.path.join(REPO, "docs", "bench", "real.md")
    if os.path.exists(real):
        out += ["## Real programs: gcc compiling a slice of the kernel tree, and python3", ""]
        out += real_blind(open(real).read().rstrip("\n").split("\n"))
        out.append("")
    # The benchmarks with reports of their own, each one level down.
    for name in ("frag.md", "ksm-grid.md"):
        path = os.path.join(REPO, "docs", "bench", name)
        if os.path.exists(path):
            out += ["#" + l if l.startswith("#") else l
                    for l in open(path).read().rstrip("\n").split("\n")]
            out.append("")
    sparse = os.path.join(REPO, "docs", "bench", "sparsereclaim.txt")
    if os.path.exists(sparse):
        out += ["## What one reclaim pass gives back of sparse anonymous memory (`sparsereclaim`)", "",
                "From `docs/bench/sparsereclaim.txt`, the guest's lines as it printed them",
                "(`userspace/sparsereclaim.c`): 256 MiB, one page of each 64K block written in a",
                "random order, then one reclaim pass; RSS before and after, bytes lost.", "", "```"]
        out += open(sparse).read().rstrip("\n").split("\n")
        out += ["```", ""]
    return "\n".join(out) + "\n"


def trace_markdown(t):
    """The instruction counts of `make fault-trace` (scripts/fault-trace.py's JSON)."""
    paths = [("c", "C"), ("rust", "Rust"), ("rust_order", "Rust order, C map"),
             ("rust_fault", "C order, Rust map")]
    out = ["### Fault path cost in instructions: one anonymous write fault, C against Rust", "",
           "From `make fault-trace` (QEMU `-singlestep`, gdb switching the instruction log on for",
           "each traced `handle_mm_fault()`): kernel instructions per fault, averaged over 31",
           "faults of each path and size, without those of the page allocator and of the per-CPU",
           "LRU batch's drain (which depend on the state of the free lists and the batch, not on",
           "the path) and, on x86, of the page clearing. The paths are switched with",
           "`anon_order` and `anon_fault` in one boot.", "",
           "| folio size | " + " | ".join(l for _, l in paths) + " |",
           "|---|" + "---:|" * len(paths)]
    for kb in sorted(t["sizes"], key=int):
        row = t["sizes"][kb]
        c = row["c"]["per_fault_no_alloc"]
        cells = [fmt(c)]
        for p, _ in paths[1:]:
            v = row[p]["per_fault_no_alloc"]
            cells.append(f"{fmt(v)} ({fmt(v - c, '+.1f')})")
        out.append(f"| {kb}K | " + " | ".join(cells) + " |")
    out.append("")
    return out


def load_runs():
    runs = []
    for a in ("x86_64", "arm64"):
        p = os.path.join(REPO, "docs", "bench", f"{a}.json")
        if os.path.exists(p):
            runs.append(json.load(open(p)))
    return runs


def policy_change_markdown(prev, p):
    """The order policies against the figures this run replaced (bench.py --update keeps them)."""
    before = summarise({"anon": [], "mt": [], "ptreclaim": [], "exectext": [],
                        "policy": prev["data"]})["policy"]
    out = [f"### Order policies: these figures against those of {prev['measured']} they replaced", "",
           "Medians of each: the change in faults, resident memory and guest time, by pattern and",
           "policy (the largest change of any pattern last).", "",
           "| pattern | " + " | ".join(f"{pol} faults / RSS / time" for pol in POLICIES) + " |",
           "|---|" + "---:|" * len(POLICIES)]
    worst = {pol: 0.0 for pol in POLICIES}
    for pattern, row in p.items():
        cells = []
        for pol in POLICIES:
            x, y = before.get(pattern, {}).get(pol), row.get(pol)
            if not x or not y:
                cells.append("")
                continue
            d = [pct(y[k], x[k]) for k in ("faults", "rss_kb", "ns")]
            worst[pol] = max([worst[pol]] + [abs(v) for v in d if v is not None])
            cells.append(" / ".join(f"{fmt(v, '+.2f')}%" for v in d))
        out.append(f"| {pattern} | " + " | ".join(cells) + " |")
    out.append("| largest | " + " | ".join(f"{fmt(worst[pol], '.2f')}%" for pol in POLICIES) + " |")
    out.append("")
    return out


def policy_nosplit_markdown(arch, prev, p, path):
    """auto's guest time against the figures replaced, with split_underused 1 (this run) and 0
    (docs/bench/policy-nosplit-ARCH.txt): what auto's own underused verdict costs a fault."""
    before = summarise({"anon": [], "mt": [], "ptreclaim": [], "exectext": [],
                        "policy": prev["data"]})["policy"]
    nosplit = summarise({"anon": [], "mt": [], "ptreclaim": [], "exectext": [],
                         "policy": parse(path)["policy"]})["policy"]
    same = all(before.get(pt, {}).get("auto", {}).get(k) == row.get("auto", {}).get(k) ==
               nosplit.get(pt, {}).get("auto", {}).get(k)
               for pt, row in p.items() for k in ("faults", "rss_kb"))
    out = [f"### auto with and without its underused queueing ({arch})", "",
           f"`auto`'s guest time against {prev['measured']}'s: as measured above (`split_underused`",
           "1: each mTHP a fault maps is queued for auto's own underused verdict) and with",
           f"`split_underused` 0 (nothing queued; `docs/bench/policy-nosplit-{arch}.txt`, its command",
           "there). " + ("Faults and resident memory are the same in all three." if same else
                         "Faults or resident memory differ between them: see the tables above."), "",
           "| pattern | auto | split_underused 1 | split_underused 0 |", "|---|---:|---:|---:|"]
    for pattern, row in p.items():
        x, y, z = (before.get(pattern, {}).get("auto"), row.get("auto"),
                   nosplit.get(pattern, {}).get("auto"))
        if not x or not y or not z:
            continue
        out.append(f"| {pattern} | {fmt(x['ns'], '.0f')} ns | {fmt(pct(y['ns'], x['ns']), '+.2f')}% | "
                   f"{fmt(pct(z['ns'], x['ns']), '+.2f')}% |")
    out.append("")
    return out


def policy_markdown(arch, p):
    pols = [x for x in POLICIES if any(x in row for row in p.values())]
    head = "| pattern | " + " | ".join(pols)
    rule = "|---|" + "---:|" * len(pols)
    out = ["### Anonymous order policies: faults, memory and guest time by access pattern", "",
           "`/sys/kernel/mm/mm_rs/anon_order_policy`, with THP `madvise` (no PMD folio for these",
           "VMAs) and no mTHP size enabled but for `mthp-64k` (64K `always`); `mthp-4k` is order 0,",
           "6.12's default. Dense: every page of 64 MiB, in order or at random; sparse: one page",
           "per 16K or per 64K of it; `malloc`: 40000 blocks of 16 B to 16K written whole, a third",
           "freed, in a process of its own; `busybox-sort` and `busybox-gzip`: Debian's",
           "busybox-static sorting and compressing 4 MiB of text.", "",
           "Faults (minor faults of the process):", "", head + " | auto against the fewest of a fixed size |",
           rule + "---:|"]
    for pat, row in p.items():
        cells = [fmt(row[x]["faults"], ".0f") if x in row else "-" for x in pols]
        fixed = [row[x]["faults"] for x in FIXED if x in row]
        vs = pct(row["auto"]["faults"], min(fixed)) if "auto" in row and fixed else None
        out.append(f"| {pat} | " + " | ".join(cells) + f" | {fmt(vs, '+.1f')}% |")
    out += ["", "Memory: resident kB of the region (RssAnon growth for `malloc`, peak RSS for",
            "busybox), and against what was touched (the pages written; the live bytes for `malloc`):",
            "", head + " | auto against order 0 |", rule + "---:|"]
    for pat, row in p.items():
        cells = []
        for x in pols:
            if x not in row:
                cells.append("-")
                continue
            rss, touched = row[x]["rss_kb"], row[x]["touched_kb"]
            extra = f" ({fmt(pct(rss, touched), '+.0f')}%)" if touched else ""
            cells.append(f"{fmt(rss, '.0f')}{extra}")
        vs = pct(row["auto"]["rss_kb"], row["mthp-4k"]["rss_kb"]) if "auto" in row and "mthp-4k" in row else None
        out.append(f"| {pat} | " + " | ".join(cells) + f" | {fmt(vs, '+.1f')}% |")
    out += ["", "Guest time (ms; `-icount`):", "", head + " |", rule]
    for pat, row in p.items():
        cells = [fmt(row[x]["ns"] / 1e6, ".2f") if x in row else "-" for x in pols]
        out.append(f"| {pat} | " + " | ".join(cells) + " |")
    out += review_answers(arch, p)
    t = policy_targets(p)
    out += ["", "Against the targets: "
            + "; ".join(f"`arch` on {pat}: x{fmt(t.get(f'arch_{pat}_fewer_x'), '.2f')} fewer faults than "
                        f"order 0" for pat in DENSE)
            + "; " + "; ".join(f"`auto` on {pat}: {fmt(t.get(f'auto_{pat}_vs_fewest_fixed_pct'), '+.1f')}% "
                               f"faults against the fewest of a fixed size" for pat in DENSE)
            + "; " + "; ".join(f"`auto` on {pat}: {fmt(t.get(f'auto_{pat}_rss_vs_order0_pct'), '+.1f')}% "
                               f"RSS against order 0" for pat in SPARSE) + ".", ""]
    return out


def ratio_spec(v):
    """Enough digits for a ratio to show its difference from 1."""
    return ".3f" if v is not None and v < 10 else ".1f"


def ksm_markdown(k):
    """`bench ksm`: MADV_UNMERGEABLE with 6.12's C loop, the C references and the Rust range walk."""
    out = ["### KSM unmerge: MADV_UNMERGEABLE of a merged area, C (6.12) and Rust", "",
           "sparse: 256 pages merged by ksmd, in four windows of a 1 TiB mapping; dense: 64 MiB,",
           "every page merged. Guest time of the `madvise()` call (median of the rounds, the paths",
           "rotated); every page checked unmerged and intact after it. \"C, callback walk\": the C",
           "loop with break_ksm() testing each page through `walk_page_range_vma()` and a",
           "`pmd_entry` callback, as the 2022 conversion (seed 004) wrote it (`ksm_unmerge_ref`,",
           "test kernels only), on the dense area. \"C, range walk\": C walking the range as mainline",
           "has since 2025 (\"ksm: perform a range-walk in break_ksm\"; `ksm_unmerge_ref_range`, test",
           "kernels only): what Rust adds over C doing the same thing.", "",
           "| area | pages | C (ms) | C, callback walk (ms) | C, range walk (ms) | Rust (ms) | C / Rust "
           "| callback walk / Rust | range walk / Rust |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for kind, r in k.items():
        walk, rng = r.get("c-walk"), r.get("c-range")
        out.append(f"| {kind}, {fmt(r['c']['area_kb'] / 1024, '.0f')} MiB | {fmt(r['c']['pages'], '.0f')} | "
                   f"{fmt(r['c']['ns'] / 1e6, '.3f')} | "
                   f"{fmt(walk['ns'] / 1e6, '.3f') if walk else '-'} | "
                   f"{fmt(rng['ns'] / 1e6, '.3f') if rng else '-'} | "
                   f"{fmt(r['rust']['ns'] / 1e6, '.3f')} | x{fmt(r['c_over_rust'], ratio_spec(r['c_over_rust']))} | "
                   f"{'x' + fmt(r['walk_over_rust'], '.3f') if walk else '-'} | "
                   f"{'x' + fmt(r['range_over_rust'], '.3f') if rng else '-'} |")
    return out + [""]


def reclaim_markdown(r):
    """`bench policy` after one reclaim pass: what split_underused gives back, and its cost."""
    pols = [x for x in POLICIES if any(x in row for row in r.values())]
    head = "| pattern | " + " | ".join(pols)
    out = ["### After one reclaim pass: underused mTHPs split", "",
           "The same regions after `drop_caches` 3 (the LRU batches drained, every shrinker run),",
           "with `khugepaged/max_ptes_none` 409 and `/sys/kernel/mm/mm_rs/split_underused` 1: the",
           "anonymous memory still resident (RssAnon growth, kB; the zero page is not counted),",
           "then the faults and guest time of touching the same pages again.", "",
           head + " | auto against order 0 |", "|---|" + "---:|" * (len(pols) + 1)]
    for pat, row in r.items():
        cells = [fmt(row[x]["rss_kb"], ".0f") if x in row else "-" for x in pols]
        vs = pct(row["auto"]["rss_kb"], row["mthp-4k"]["rss_kb"]) if "auto" in row and "mthp-4k" in row else None
        out.append(f"| {pat} | " + " | ".join(cells) + f" | {fmt(vs, '+.1f')}% |")
    out += ["", "Touched again: faults / guest ms:", "", head + " |", "|---|" + "---:|" * len(pols)]
    for pat, row in r.items():
        cells = [f"{fmt(row[x]['again_faults'], '.0f')} / {fmt(row[x]['again_ns'] / 1e6, '.2f')}"
                 if x in row else "-" for x in pols]
        out.append(f"| {pat} | " + " | ".join(cells) + " |")
    return out + [""]


def review_answers(arch, p):
    """Yu Zhao's questions on the RFC, answered from the medians above."""
    def get(pat, pol, k):
        return p.get(pat, {}).get(pol, {}).get(k)

    arch_kb = {"x86_64": 32, "arm64": 64}.get(arch)
    out = ["", "The review's questions, from these figures:", ""]
    f0, f64 = get("dense-seq", "mthp-4k", "faults"), get("dense-seq", "mthp-64k", "faults")
    t0, t64 = get("dense-seq", "mthp-4k", "ns"), get("dense-seq", "mthp-64k", "ns")
    if f0 and f64:
        out.append(f"* *What is 64K based on?* Touching every page, 64K folios take x{f0 / f64:.1f} "
                   f"fewer faults than order 0 and {fmt(pct(t64, t0), '+.1f')}% guest time "
                   f"(dense-seq); `arch` ({arch_kb}K here) {fmt(pct(get('dense-seq', 'arch', 'ns'), t0), '+.1f')}%.")
    gains = []
    for pat, row in p.items():
        base = row.get("mthp-4k", {}).get("ns")
        best = min((x for x in row if row[x].get("ns")), key=lambda x: row[x]["ns"], default=None)
        if base and best and best != "mthp-4k":
            gains.append(f"{pat} {fmt(pct(row[best]['ns'], base), '+.1f')}% ({best})")
    if gains:
        out.append("* *Which workloads gain?* Guest time of the best policy against order 0: "
                   + ", ".join(gains) + "; a pattern not listed gains nothing.")
    frag = []
    for pat in SPARSE:
        touched = get(pat, "mthp-4k", "touched_kb")
        if touched:
            frag.append(f"{pat} x{get(pat, 'mthp-64k', 'rss_kb') / touched:.1f} at 64K, "
                        f"x{get(pat, 'arch', 'rss_kb') / touched:.1f} with `arch`")
    others = [pct(row[x]["rss_kb"], row["mthp-4k"]["rss_kb"]) for pat, row in p.items()
              if pat not in SPARSE and "mthp-4k" in row for x in row]
    if frag and others:
        out.append("* *How much internal fragmentation?* Resident memory over what was touched: "
                   + "; ".join(frag) + "; on the dense patterns and the programs, any policy is "
                   f"within {fmt(max(others), '+.1f')}% of order 0's.")
    if arch_kb and arch_kb != 64:
        d = [f"{pat}: {fmt(get(pat, 'arch', 'faults'), '.0f')} faults and "
             f"{fmt(get(pat, 'arch', 'ns') / 1e6 if get(pat, 'arch', 'ns') else None, '.2f')} ms at "
             f"{arch_kb}K against {fmt(get(pat, 'mthp-64k', 'faults'), '.0f')} and "
             f"{fmt(get(pat, 'mthp-64k', 'ns') / 1e6 if get(pat, 'mthp-64k', 'ns') else None, '.2f')} ms at 64K"
             for pat in DENSE + ["malloc"] if pat in p]
        out.append("* *Would other sizes do better?* " + "; ".join(d) + ".")
    return out


def compare(a, b):
    worst = 0.0
    for name, (keys, match) in DETERMINISTIC.items():
        kind = name.split("_")[0]
        pick = lambda recs: [r for r in recs if all(r.get(k) == v for k, v in match.items())]
        ra, rb = pick(a["data"].get(kind, [])), pick(b["data"].get(kind, []))
        if len(ra) != len(rb):
            print(f"{kind}: {len(ra)} vs {len(rb)} records")
            worst = max(worst, 100.0)
            continue
        for key in keys:
            diffs = [abs(pct(x[key], y[key]) or 0.0) for x, y in zip(ra, rb)
                     if key in x and key in y and y[key]]
            if diffs:
                print(f"{name:15} {key:14} max difference {max(diffs):.3f}%")
                worst = max(worst, max(diffs))
    print(f"largest difference between the runs: {worst:.3f}%")
    return 0 if worst <= 1.0 else 1


def read_base():
    """The base tree, as build/BASE records it, on one line."""
    return "; ".join(open(os.path.join(REPO, "build", "BASE")).read().strip().splitlines())


def write_run(run, paths, md):
    """Writes RUN's JSON to each of PATHS and regenerates MD from docs/bench/."""
    for path in paths:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(run, f, indent=1)
    with open(md, "w") as f:
        f.write(markdown(load_runs()))


# The first day the booted kernels had CONFIG_BUG and the lockup detectors
# (docs/testing.rst, "Kernel splats and verdicts").
BLIND_UNTIL = "2026-11-27"


def real_blind(lines):
    """docs/bench/real.md's lines, each table measured on a kernel that could not report a
    WARN marked so under its heading. workload-report.py keeps the section of an
    architecture (or the hugetlb table) it has no log for, so one file can hold both: an
    architecture's section written before the plugin (2026-11-27) has no "kernel insns"
    column, and a hugetlb table from before has guest time that followed the host's
    clock while the vCPUs idled (no `sleep=off`)."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        m = re.match(r"#### (\S+) \(", line)
        if not m and not line.startswith("### Seed 001"):
            continue
        end = next((j for j in range(i, len(lines)) if lines[j].startswith("###")), len(lines))
        body = "\n".join(lines[i:end])
        if m and "kernel insns" not in body:
            out += ["", f"**Judged on a kernel that could not report a WARN**: measured before "
                    f"{BLIND_UNTIL}, without the mmrs-meter plugin (tick-sampled system and user "
                    f"time). First runs under the plugin: `docs/bench/real-probe/{m.group(1)}.md`; "
                    f"`make bench-real ARCH={m.group(1)}` replaces this table."]
        elif not m and "sleep=off" not in body:
            out += ["", f"**Judged on a kernel that could not report a WARN**: measured before "
                    f"{BLIND_UNTIL}, with guest time that followed the host's clock while the "
                    "vCPUs idled (`-icount shift=0` without `sleep=off`); `make workload "
                    "W=hugetlb` on each kernel replaces this table."]
    return out


def blind_kinds(run):
    """The kinds of figure of RUN last measured before BLIND_UNTIL (the run's own date, or
    that of the last update that measured the kind again)."""
    last = {k: run["date"] for k, v in run["data"].items() if v}
    for u in run.get("updates", []):
        for k in u["kinds"]:
            if k in last:
                last[k] = max(last[k], u["date"])
    return sorted(k for k, d in last.items() if d < BLIND_UNTIL)


def check_log(log, progs):
    """Exits, saying why, unless console log LOG may be kept (benchkeep.refusal()); PROGS as
    bench.sh passes them ("name:args,..."; text in parentheses aside). Figures of a run that
    failed are not kept."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from benchkeep import refusal
    names = [p.split(":", 1)[0] for p in re.findall(r"[\w-]+(?::[^,\s()]*)?",
                                                       re.sub(r"\([^)]*\)", "", progs))]
    why = refusal(open(log, errors="replace").read().splitlines(), names)
    if why is not None:
        print(f"bench: {log}: {why}; nothing kept", file=sys.stderr)
        sys.exit(1)


def mt_cpus(log):
    """The CPUs online in LOG's mt run ("mmrs-bench mt: N CPUs online"), or None."""
    m = re.findall(r"mmrs-bench mt: (\d+) CPUs online", open(log, errors="replace").read())
    return int(m[-1]) if m else None


def mt_too_few_cpus(run):
    """Whether RUN's mt figures ran their four threads on fewer than four CPUs: the CPUs of
    the last measurement of mt (its "mt_cpus"), or, where it did not record them, an x86_64
    test kernel of before 2026-11-28, whose tinyconfig NR_CPUS=2 brought up two of -smp 4."""
    if not run["data"].get("mt"):
        return False
    last = run
    for u in run.get("updates", []):
        if "mt" in u["kinds"]:
            last = u
    cpus = last.get("mt_cpus")
    return cpus < 4 if cpus is not None else run["arch"] == "x86_64"


def log_commit(log):
    """The commit bench.sh recorded as LOG's boots started ("unknown" for a log without one)."""
    try:
        return open(log + ".commit").read().strip() or "unknown"
    except OSError:
        return "unknown"


def update(arch, log, md, progs, command, why):
    """Replaces in docs/bench/ARCH.json the kinds of measurement that LOG has, keeps the rest,
    and regenerates MD: a benchmark run again on its own after a change that only it sees."""
    path = os.path.join(REPO, "docs", "bench", f"{arch}.json")
    run = json.load(open(path))
    check_log(log, progs)
    data = parse(log)
    kinds = [k for k, v in data.items() if v]
    if not kinds:
        print(f"bench: no measurements in {log}", file=sys.stderr)
        return 1
    base = read_base()
    if base != run["base"]:
        print(f"bench: {path} was measured on {run['base']}, this run on {base}: "
              "run the whole make bench", file=sys.stderr)
        return 1
    for k in kinds:
        # The figures replaced are kept, with the day they were measured: a table compares.
        measured = next((u["date"] for u in reversed(run.get("updates", []))
                         if k in u["kinds"]), run["date"])
        run.setdefault("previous", {})[k] = {"measured": measured, "data": run["data"].get(k, [])}
        run["data"][k] = data[k]
    run["summary"] = summarise(run["data"])
    run.setdefault("updates", []).append({"date": time.strftime("%Y-%m-%d"), "command": command,
                                          "commit": log_commit(log),
                                          "programs": progs, "kinds": kinds, "why": why})
    if "mt" in kinds:
        run["updates"][-1]["mt_cpus"] = mt_cpus(log)
    write_run(run, [path], md)
    print(f"bench: {', '.join(kinds)} of docs/bench/{arch}.json and {os.path.relpath(md, REPO)} updated")
    return 0


def main():
    if sys.argv[1] == "--compare":
        return compare(json.load(open(sys.argv[2])), json.load(open(sys.argv[3])))
    if sys.argv[1] == "--markdown":
        with open(sys.argv[2], "w") as f:
            f.write(markdown(load_runs()))
        return 0
    if sys.argv[1] == "--update":
        return update(*sys.argv[2:8])
    arch, log, json_out, md, progs = sys.argv[1:6]
    check_log(log, progs)
    data = parse(log)
    if not any(data.values()):
        print(f"bench: no measurements in {log}", file=sys.stderr)
        return 1
    run = {"arch": arch, "base": read_base(), "command": f"make bench ARCH={arch}",
           "date": time.strftime("%Y-%m-%d"), "commit": log_commit(log),
           "qemu": "-icount shift=0,sleep=off -m 3G; -smp 1, and -smp 4 for mt",
           "programs": progs, "data": data, "summary": summarise(data), "mt_cpus": mt_cpus(log)}
    write_run(run, [json_out, os.path.join(REPO, "docs", "bench", f"{arch}.json")], md)
    print(f"bench: {json_out}, docs/bench/{arch}.json and {os.path.relpath(md, REPO)} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
