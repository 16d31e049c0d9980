# SPDX-License-Identifier: GPL-2.0
"""benchkeep.py: what the reports of measurements kept in docs/bench/ share
(scripts/frag-report.py, scripts/ksm-grid-report.py): a console log taken only
from a run that ended well, its figures kept with the commit measured."""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# MMRS_BENCH_DIR: where the kept files go instead (scripts/lint-host.sh checks the refusals there).
BENCH = os.environ.get("MMRS_BENCH_DIR") or os.path.join(REPO, "docs", "bench")


def splat_patterns():
    with open(os.path.join(REPO, "scripts", "splats.txt")) as f:
        return [re.compile(l.rstrip("\n")) for l in f if l.strip() and not l.startswith("#")]


def refusal(lines, progs):
    """Why console log LINES may not be kept, or None: a program exited non-zero, one of the
    list PROGS exited 0 fewer times than it is named there, no boot reached its end, or a
    line is a splat (scripts/splats.txt)."""
    exits = [m.groups() for m in (re.search(r"mmrs-init: (\S+) exited (\d+)", l) for l in lines)
             if m]
    bad = [f"{n} exited {rc}" for n, rc in exits if rc != "0"]
    if bad:
        return bad[0]
    if "mmrs-init: done" not in (l.strip() for l in lines):
        return "no boot reached its end (mmrs-init: done)"
    for n in sorted(set(progs)):
        if sum(1 for e, _ in exits if e == n) < progs.count(n):
            return f"{n} did not exit 0 as often as it ran"
    pats = splat_patterns()
    splat = next((l for l in lines if any(p.search(l) for p in pats)), None)
    return None if splat is None else f"a splat: {splat.strip()}"


def checked_log(tool, log, prog):
    """The lines of console log LOG, or exit naming why it is refused (refusal(), PROG the
    program that must have run)."""
    with open(log, errors="replace") as f:
        lines = f.read().splitlines()
    why = refusal(lines, [prog])
    if why is not None:
        sys.exit(f"{tool}: {log}: {why}; not recorded")
    return lines


def keep(tool, name, header, notes, rows):
    """Writes docs/bench/NAME: HEADER, the NOTES as comments, then one row a line."""
    out = os.path.join(BENCH, name)
    with open(out, "w") as f:
        f.write(f"# {header}\n")
        for n in notes:
            f.write(f"# {n}\n")
        for r in rows:
            f.write(r + "\n")
    print(f"{tool}: {len(rows)} figures in {out}")
