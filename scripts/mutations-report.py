#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutations-report.py [--out FILE] [JSON...]: writes docs/mutations.md from
the records of `make mutate` (default: build/results/mutate-ARCH[-FLAVOUR].json
of every architecture run, not the samples of `make test`): every mutation of
scripts/mutations.txt under its decision, its verdict on each architecture,
the test that killed it, the kill rate per decision and overall, and the
equivalent mutations with their arguments. scripts/mutate.sh runs it after a
run that is not a sample."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutations  # noqa: E402

if __name__ == "__main__":
    sys.exit(mutations.report(sys.argv[1:]))
