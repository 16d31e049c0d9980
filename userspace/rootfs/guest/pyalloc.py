#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""pyalloc.py: a fixed, allocator-heavy Python program for W=bench: builds and
drops dictionaries, lists and strings of a few hundred MiB in all, in the
patterns of an interpreter's heap (many small objects through pymalloc's
256 KiB arenas, a few large ones straight from mmap), with a fixed seed so that
every run does the same work. Prints a checksum, which must be the same on
every kernel and policy."""
import json
import random

rnd = random.Random(12345)
total = 0
for gen in range(4):
    # many small objects: a dict of tuples and short strings
    d = {i: (i * 7, "k%08d" % rnd.randrange(10 ** 8)) for i in range(200_000)}
    # a large list, sorted, sliced
    lst = [rnd.random() for _ in range(300_000)]
    lst.sort()
    total += int(sum(lst[:1000]) * 1000)
    # strings built and joined: a large buffer from mmap
    s = json.dumps({str(k): v for k, v in list(d.items())[:50_000]})
    total += len(s)
    # sparse use: keep every 16th entry, drop the rest
    d = {k: v for k, v in d.items() if k % 16 == 0}
    total += len(d)
    del lst, s, d
print(f"pyalloc: checksum {total}")
