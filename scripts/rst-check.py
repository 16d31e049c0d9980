#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rst-check.py FILE...: each reStructuredText file parses with docutils
without a warning or error (a malformed table, a broken reference, a bad
heading): what Sphinx would complain of when docs/ moves into
Documentation/. Exits 1 naming the file and docutils' message. Used by make
lint. Runs under Debian's /usr/bin/python3 with python3-docutils
(scripts/setup.sh installs it)."""
import io
import sys

import docutils.core

bad = 0
for path in sys.argv[1:]:
    err = io.StringIO()
    docutils.core.publish_doctree(open(path, encoding="utf-8").read(), source_path=path,
                                  settings_overrides={"warning_stream": err, "report_level": 2,
                                                      "halt_level": 5})
    if err.getvalue():
        print(f"rst-check: {path}:\n{err.getvalue().rstrip()}", file=sys.stderr)
        bad = 1
sys.exit(bad)
