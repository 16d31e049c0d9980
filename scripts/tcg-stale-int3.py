#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcg-stale-int3.py CONSOLE_LOG: did an x86_64 guest die of QEMU's stale code?

x86 patches kernel text at run time (static keys, static calls) with
text_poke_bp(): an INT3 is written over the first byte, the other CPUs are
synchronised, the tail is written, then the first byte, each step followed by
text_poke_sync().  A CPU that meets the INT3 meanwhile is sent on by
poke_int3_handler(); once the patch is done no CPU can execute that INT3
again, and one that did would trap with "Oops: int3" because
poke_int3_handler() no longer knows the address.

QEMU 7.2's multi-threaded TCG can do exactly that: a vCPU that translates the
patched code while another vCPU writes the last byte may read the bytes with
the INT3, miss the invalidation and link the stale translation, which every
vCPU then executes for good (later QEMU locks the page for the whole
translation).  In this project it shows on x86_64 guests a few seconds into
the boot, when sched_clock_init_late() enables __sched_clock_stable while the
timer interrupt runs sched_clock_tick() on every vCPU.

The signature is exact: the first oops is "Oops: int3", and the "Code:" line
of that oops, which the kernel reads from memory at the time of the oops,
shows that the byte just before RIP (where the INT3 was executed; RIP points
after it) is no longer 0xcc.  Real hardware cannot get there; a kernel bug
that runs into a real INT3 (padding, a BUG-like trap) shows "cc" there and is
not matched.

Exit 0 and print one line when the log has the signature, 1 when not.
"""
import re
import sys


def stale_int3(lines):
    """Return a description of the stale INT3, or None."""
    oops = next((i for i, l in enumerate(lines) if re.search(r"Oops: ", l)), None)
    if oops is None or not re.search(r"Oops: int3: ", lines[oops]):
        return None
    rip = code = None
    for line in lines[oops + 1:oops + 40]:
        if "Oops: " in line or "Kernel panic" in line:
            break
        m = re.search(r"\bRIP: [0-9a-f]{4}:(\S+)", line)
        if m and rip is None:
            rip = m.group(1)
        m = re.search(r"\bCode: (.*)$", line)
        if m and code is None:
            code = m.group(1).split()
    if rip is None or code is None:
        return None
    at = next((i for i, b in enumerate(code) if b.startswith("<")), None)
    if at is None or at == 0:
        return None
    before = code[at - 1]
    if not re.fullmatch(r"[0-9a-f]{2}", before) or before == "cc":
        return None
    return "int3 trap at %s, and the byte it trapped on reads %s, not cc" % (rip, before)


def main():
    if len(sys.argv) != 2:
        print("usage: tcg-stale-int3.py CONSOLE_LOG", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f]
    what = stale_int3(lines)
    if what is None:
        return 1
    print(what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
