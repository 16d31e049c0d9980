#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The prod kernels against Debian's own configuration, area by area.

  debian-diff.py fragment TREE DEBIAN_CONFIG
      Print Debian's values of every option of the areas below as a config
      fragment: scripts/image.sh merges it into a prod kernel's
      configuration first, under the project's own fragments. Debian builds
      some of these as modules (=m); the prod kernels have no module loader,
      so those are built in (=y).

  debian-diff.py check ARCH TREE DEBIAN_CONFIG PROD_CONFIG LIST
      Compare a prod kernel's final .config with Debian's over the same
      areas. Every option whose value differs must be listed in LIST
      (configs/debian-diff.txt) for ARCH, with its reason; an unlisted
      difference, a listed option that no longer differs, and a listed
      option with no reason each fail the check.

The areas: every option declared in mm/Kconfig and mm/Kconfig.debug (the
page allocator, THP and mTHP, KSM, swap and zswap, compaction, migration,
userfaultfd, MGLRU, ...), and by name the memcg, hugetlb/HVO, zram,
page-table, contpte/MTE, error-reporting (BUG, lockup and hung-task
detectors, panic, KALLSYMS, memory debugging) and preemption options (the
preemption model and preemptible RCU, RCU boosting, the RCU stall timeout:
they decide which stalls a loaded guest reports) declared elsewhere.
A module (=m) counts as built in (=y).
"""
import re
import sys
from pathlib import Path

AREA_FILES = ["mm/Kconfig", "mm/Kconfig.debug"]
AREA_NAMES = re.compile(r"^(" + "|".join([
    # memcg, hugetlb and HVO, zram
    r"MEMCG.*", r"CGROUP_HUGETLB", r"CPUSETS", r"HUGETLBFS", r"HUGETLB_PAGE.*",
    r"ZRAM.*", r"NUMA", r"NUMA_BALANCING.*", r"ACPI_NUMA", r"OF_NUMA",
    # page tables, page sizes, contpte, MTE
    r".*PGTABLE.*", r".*PTLOCK.*", r"ARM64_CONTPTE", r"ARM64_MTE",
    r"ARM64_(4K|16K|64K)_PAGES", r"ARM64_VA_BITS(_[0-9]+)?", r"PGTABLE_LEVELS",
    r"X86_5LEVEL", r"TRANSPARENT_HUGEPAGE.*", r"READ_ONLY_THP_FOR_FS",
    # error reporting
    r"BUG", r"DEBUG_BUGVERBOSE", r"DEBUG_KERNEL", r"KALLSYMS", r"KALLSYMS_ALL",
    r"SOFTLOCKUP_DETECTOR.*", r"BOOTPARAM_.*", r"HARDLOCKUP_DETECTOR.*",
    r"DETECT_HUNG_TASK", r"DEFAULT_HUNG_TASK_TIMEOUT", r"WQ_WATCHDOG",
    r"PANIC_ON_OOPS.*", r"PANIC_TIMEOUT", r"DEBUG_VM.*", r"SLUB_DEBUG.*",
    r"KFENCE.*", r"KASAN.*", r"INIT_ON_(ALLOC|FREE)_DEFAULT_ON",
    r"DEBUG_LIST", r"BUG_ON_DATA_CORRUPTION", r"SCHED_STACK_END_CHECK",
    r"HARDENED_USERCOPY.*", r"LOCKUP_DETECTOR", r"PROVE_LOCKING",
    r"DEBUG_ATOMIC_SLEEP", r"LKDTM",
    # preemption
    r"PREEMPT", r"PREEMPT_NONE", r"PREEMPT_VOLUNTARY", r"PREEMPT_RT",
    r"PREEMPT_DYNAMIC", r"PREEMPT_RCU", r"RCU_EXPERT", r"RCU_BOOST",
    r"RCU_CPU_STALL_TIMEOUT",
]) + r")$")

DECL = re.compile(r"^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$", re.M)


def area(tree):
    names = set()
    for f in AREA_FILES:
        names |= set(DECL.findall((Path(tree) / f).read_text()))
    for kc in Path(tree).glob("**/Kconfig*"):
        if "/Documentation/" in str(kc) or "tools/" in str(kc.relative_to(tree)):
            continue
        try:
            text = kc.read_text(errors="replace")
        except OSError:
            continue
        names |= {n for n in DECL.findall(text) if AREA_NAMES.match(n)}
    return names


def read_config(path):
    vals = {}
    for line in Path(path).read_text().splitlines():
        m = re.match(r"^CONFIG_([A-Za-z0-9_]+)=(.*)$", line)
        if m:
            vals[m.group(1)] = "y" if m.group(2) == "m" else m.group(2)
            continue
        m = re.match(r"^# CONFIG_([A-Za-z0-9_]+) is not set$", line)
        if m:
            vals[m.group(1)] = "n"
    return vals


def read_list(path, arch):
    """LIST lines: ARCH|all OPTION REASON..."""
    listed = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 2 or parts[0] not in ("all", "x86_64", "arm64"):
            sys.exit(f"{path}:{n}: expected 'ARCH|all CONFIG_NAME reason', got: {line}")
        if parts[0] not in ("all", arch):
            continue
        name = parts[1].removeprefix("CONFIG_")
        listed[name] = (n, parts[2].strip() if len(parts) > 2 else "")
    return listed


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "fragment":
        tree, deb = sys.argv[2:]
        d = read_config(deb)
        print("# Debian's values of the areas scripts/debian-diff.py checks, from")
        print(f"# {deb}; modules built in. Generated: do not edit.")
        for name in sorted(area(tree)):
            if name not in d:
                continue
            v = d[name]
            print(f"# CONFIG_{name} is not set" if v == "n" else f"CONFIG_{name}={v}")
        return 0
    if len(sys.argv) == 7 and sys.argv[1] == "check":
        arch, tree, deb, prod, lst = sys.argv[2:]
        d, p = read_config(deb), read_config(prod)
        listed = read_list(lst, arch)
        bad = 0
        diffs = {}
        for name in sorted(area(tree)):
            dv, pv = d.get(name, "n"), p.get(name, "n")
            if dv != pv:
                diffs[name] = (dv, pv)
        for name, (dv, pv) in diffs.items():
            if name not in listed:
                print(f"debian-diff: {arch}: CONFIG_{name} is {pv} in prod, {dv} in Debian's, "
                      f"and {Path(lst).name} does not say why")
                bad = 1
            elif not listed[name][1]:
                print(f"debian-diff: {lst}:{listed[name][0]}: CONFIG_{name}: no reason given")
                bad = 1
        for name, (n, _) in sorted(listed.items()):
            if name not in diffs:
                print(f"debian-diff: {lst}:{n}: CONFIG_{name} is the same as Debian's on {arch} now: "
                      "remove the line (or make it 'arm64'/'x86_64' only)")
                bad = 1
        print(f"debian-diff: {arch}: {len(diffs)} options of the checked areas differ from Debian's, "
              f"{'each listed with its reason' if not bad else 'see above'}")
        return bad
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
