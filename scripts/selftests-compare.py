#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two selftest TAP files: BASELINE.tap (MM_RS=n) and OURS.tap.

Prints a table; fails if a test that passed on the baseline failed, skipped
or did not run on ours, or if either run is incomplete."""
import re
import sys

LINE = re.compile(r"^(ok|not ok) (\d+) (\S+)(?: # (.*))?$")


def load(path):
    res, done = {}, False
    with open(path) as f:
        for line in f:
            line = line.rstrip()
            if line == "done":
                done = True
            m = LINE.match(line)
            if not m:
                continue
            ok, _, name, note = m.groups()
            note = note or ""
            res[name] = "skip" if note.startswith("SKIP") else ("pass" if ok == "ok" else "FAIL")
    return res, done


def main():
    base, base_done = load(sys.argv[1])
    ours, ours_done = load(sys.argv[2])
    rc = 0
    print(f"{'selftest':<24} {'MM_RS=n':<8} {'mm-rs':<8}")
    for name in sorted(set(base) | set(ours)):
        b, o = base.get(name, "-"), ours.get(name, "-")
        lost = b == "pass" and o != "pass"
        print(f"{name:<24} {b:<8} {o:<8}{'  <- lost' if lost else ''}")
        if lost:
            rc = 1
    for label, done in (("baseline", base_done), ("mm-rs", ours_done)):
        if not done:
            print(f"selftests: the {label} run did not finish")
            rc = 1
    passed = sum(1 for v in ours.values() if v == "pass")
    failed = sum(1 for v in ours.values() if v == "FAIL")
    print(f"selftests: {passed} passed, {failed} failed on mm-rs"
          f" ({sum(1 for v in base.values() if v == 'pass')} passed on the baseline)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
