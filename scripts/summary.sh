#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One line a KUnit run of this `make test`, then the closing count.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
python3 - "$REPO"/build/results/kunit-*.json <<'PY'
import json, sys
tp = tf = 0
for path in sys.argv[1:]:
    root = json.load(open(path))
    p = f = 0
    def walk(n):
        global p, f
        for c in n.get("test_cases", []) or []:
            if c.get("status") == "PASS":
                p += 1
            else:
                f += 1
        for s in n.get("sub_groups", []) or []:
            walk(s)
    walk(root)
    name = path.rsplit("/", 1)[-1][len("kunit-"):-len(".json")]
    print(f"summary: {name:<16} {p:4d} passed, {f} failed")
    tp += p
    tf += f
print(f"{tp} passed, {tf} failed")
sys.exit(1 if tf else 0)
PY
