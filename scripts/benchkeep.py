# SPDX-License-Identifier: GPL-2.0
"""benchkeep.py: what the reports of measurements kept in docs/bench/ share
(scripts/frag-report.py, scripts/ksm-grid-report.py): a console log taken only
from a run that ended well, its figures kept with the commit measured."""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "docs", "bench")


def splat_patterns():
    with open(os.path.join(REPO, "scripts", "splats.txt")) as f:
        return [re.compile(l.rstrip("\n")) for l in f if l.strip() and not l.startswith("#")]


def checked_log(tool, log, prog):
    """The lines of console log LOG, or exit naming why it is refused: PROG did not exit 0,
    the guest did not reach its end, or a line is a splat (scripts/splats.txt)."""
    with open(log, errors="replace") as f:
        lines = f.read().splitlines()
    if f"mmrs-init: {prog} exited 0" not in lines or "mmrs-init: done" not in lines:
        sys.exit(f"{tool}: {log}: {prog} did not end well; not recorded")
    pats = splat_patterns()
    for line in lines:
        if any(p.search(line) for p in pats):
            sys.exit(f"{tool}: {log}: a splat: {line.strip()}; not recorded")
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
