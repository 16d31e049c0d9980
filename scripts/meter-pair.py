#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""meter-pair.py CONSOLE METER KIND NEWKIND: the plugin's exact counts for a
bench program's windows.

CONSOLE is the console log of a boot under the mmrs-meter QEMU plugin
(userspace/qemu-plugin/README), METER the plugin's log of that boot. Each
"mmrs-data bench KIND ... window=N" line of CONSOLE measured window N (the
Nth the guest opened, id N mod 16); the plugin's window lines are in the
order the windows ended, one per window. For each, prints the line again as
"mmrs-data bench NEWKIND ..." with the window's kernel_insns and user_insns
(and, with a TLB model, its miss counts) added, for scripts/bench.py.

Fails if a window is missing, the ids disagree, the plugin warned (a window
opened twice, ended unopened or left open) or no line was paired. The last
windows are used if the plugin's log holds more (a boot retried by
scripts/boot.sh appends a second run)."""
import re
import sys

KEYS = ("kernel_insns", "user_insns", "itlb_miss_k", "itlb_miss_u", "dtlb_miss_k", "dtlb_miss_u",
        "walk_k", "walk_u")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.split("\n\n")[0])
    console, meter, kind, newkind = sys.argv[1:]
    wins = []
    for line in open(meter, errors="replace"):
        if line.startswith("mmrs-meter: warning"):
            sys.exit(f"meter-pair: {meter}: {line.strip()}")
        m = re.match(r"mmrs-meter: window (\d+) (.*)", line)
        if m:
            kv = dict(x.split("=", 1) for x in m.group(2).split() if "=" in x)
            wins.append((int(m.group(1)), kv))
    lines = []
    for line in open(console, errors="replace"):
        line = line.strip().replace("\r", "")
        m = re.match(rf"mmrs-data bench {re.escape(kind)} (.*\bwindow=(\d+).*)", line)
        if m:
            lines.append((int(m.group(2)), m.group(1)))
    if not lines:
        sys.exit(f"meter-pair: no 'mmrs-data bench {kind} ... window=N' line in {console}")
    seqs = [n for n, _ in lines]
    if seqs != list(range(seqs[0], seqs[0] + len(seqs))):
        sys.exit(f"meter-pair: {console}: the windows are not numbered in a row: {seqs}")
    first = len(wins) - (seqs[-1])
    if first < 0:
        sys.exit(f"meter-pair: {console} names window {seqs[-1]}, {meter} has {len(wins)}")
    for n, rest in lines:
        wid, kv = wins[first + n - 1]
        if wid != n % 16:
            sys.exit(f"meter-pair: window {n} should have id {n % 16}, the plugin's has {wid}")
        extra = " ".join(f"{k}={kv[k]}" for k in KEYS if k in kv)
        print(f"mmrs-data bench {newkind} {rest} {extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
