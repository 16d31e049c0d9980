#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutations-check.py: each line of scripts/mutations.txt must still apply.

`make mutate` (scripts/mutate.sh) is slow and seldom run; a mutation whose
ORIGINAL no longer occurs exactly once in its FILE would only show there, as
"pattern not found". `make lint` runs this check so that an edit which moves
the code a mutation breaks also updates the mutation.
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    bad = 0
    names = set()
    path = os.path.join(REPO, "scripts", "mutations.txt")
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        parts = line.split(" @@ ", 3)
        if len(parts) != 4:
            print(f"mutations.txt:{n}: not NAME @@ FILE @@ ORIGINAL @@ MUTATED")
            bad += 1
            continue
        name, file, old, new = parts
        old, new = old.replace("\\n", "\n"), new.replace("\\n", "\n")
        if name in names:
            print(f"mutations.txt:{n}: {name}: a second mutation of that name")
            bad += 1
        names.add(name)
        try:
            count = open(os.path.join(REPO, file)).read().count(old)
        except OSError as e:
            print(f"mutations.txt:{n}: {name}: {e}")
            bad += 1
            continue
        if count != 1:
            print(f"mutations.txt:{n}: {name}: ORIGINAL occurs {count} times in {file}, not once")
            bad += 1
        if old == new:
            print(f"mutations.txt:{n}: {name}: MUTATED is ORIGINAL")
            bad += 1
    print(f"mutations: {len(names)} mutations, {bad} stale")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
