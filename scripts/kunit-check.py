#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a KUnit run: kunit.py's JSON and the kernel's raw log.

usage: kunit-check.py RESULTS.json RAW.log KUNITCONFIG...

Fails if any test failed, crashed or was skipped; if a suite that a
kunitconfig names in a '# expect-suite: NAME [MIN_CASES]' line ran fewer
cases than that; or if the kernel log shows a splat (a test can pass while
the kernel warns): a line that matches scripts/splats.txt, the list every
script that judges a kernel log uses."""
import json
import os
import re
import sys

SPLAT_LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "splats.txt")


def splat_re(path=SPLAT_LIST):
    """One regular expression of every pattern of the splat list."""
    with open(path) as f:
        pats = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
    if not pats:
        raise ValueError(f"{path}: no patterns")
    return re.compile("|".join(f"(?:{p})" for p in pats))


def walk(node, path, out):
    name = node.get("test_name") or node.get("name") or ""
    sub = node.get("sub_groups", []) or []
    cases = node.get("test_cases", []) or []
    for c in cases:
        out.append((path + [name], c.get("name"), c.get("status")))
    for s in sub:
        walk(s, path + [name], out)


def main():
    if len(sys.argv) < 4:
        print("usage: kunit-check.py RESULTS.json RAW.log KUNITCONFIG...", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            root = json.load(f)
    except (OSError, ValueError) as e:
        print(f"kunit-check: no results: {e}", file=sys.stderr)
        return 1
    expect = {}
    for cfg in sys.argv[3:]:
        with open(cfg) as f:
            for line in f:
                if line.startswith("# expect-suite:"):
                    words = line.split(":", 1)[1].split()
                    expect[words[0]] = int(words[1]) if len(words) > 1 else 1
    splats = []
    try:
        splat = splat_re()
    except (OSError, ValueError, re.error) as e:
        print(f"kunit-check: cannot read the splat list: {e}", file=sys.stderr)
        return 1
    try:
        with open(sys.argv[2], errors="replace") as f:
            splats = [line.rstrip() for line in f if splat.search(line)]
    except OSError as e:
        print(f"kunit-check: no kernel log: {e}", file=sys.stderr)
        return 1
    cases = []
    walk(root, [], cases)
    bad = [(p, n, s) for p, n, s in cases if s != "PASS"]
    per_suite = {}
    for p, n, s in cases:
        for part in p:
            per_suite[part] = per_suite.get(part, 0) + 1
    rc = 0
    for p, n, s in bad:
        print(f"kunit-check: {'.'.join(x for x in p if x)}.{n}: {s}", file=sys.stderr)
        rc = 1
    for suite, want in expect.items():
        got = per_suite.get(suite, 0)
        if got < want:
            print(f"kunit-check: suite {suite}: {got} cases ran, expected at least {want}",
                  file=sys.stderr)
            rc = 1
    for line in splats[:20]:
        print(f"kunit-check: kernel log: {line}", file=sys.stderr)
    if splats:
        rc = 1
    passed = sum(1 for _, _, s in cases if s == "PASS")
    print(f"kunit-check: {passed} passed, {len(bad)} failed"
          f" ({len(cases)} cases; suites checked: {', '.join(sorted(expect)) or 'none'})")
    return rc


if __name__ == "__main__":
    sys.exit(main())
