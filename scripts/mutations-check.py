#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutations-check.py: each line of scripts/mutations.txt must still apply.

`make mutate` (scripts/mutate.sh) is slow and seldom run; a mutation whose
ORIGINAL no longer occurs exactly once in its FILE would only show there, as
"pattern not found". `make lint` runs this check so that an edit which moves
the code a mutation breaks also updates the mutation. It also checks the
format (NAME [ARCH], "# equivalent: NAME: why" naming a mutation) and that a
mutation of patches/*.patch keeps the patch applicable (scripts/mutations.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutations  # noqa: E402

if __name__ == "__main__":
    sys.exit(mutations.check())
