#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""drift.py: a guard against drift from the C code mm-rs mirrors.

mm-rs keeps C originals as its references and mirrors some C functions in
Rust (the anonymous fault, the order decision, the exec readahead branch,
the zap loop the PT-reclaim hooks sit in), the macros it mirrors
(is_ksm_zero_pte()), and the C callers on the path to each mirror
(handle_pte_fault(), filemap_fault(), deferred_split_scan(), ...), where a
new check would change what reaches it. When the base moves (a 6.12.y
stable update of Debian's linux-source-6.12) and one of those functions
changes, the Rust mirror may have to follow. scripts/mirrors.txt lists each
mirrored function with the Rust file that mirrors it and a fingerprint (the
SHA-256 of its text in the base, before patches/ touch it).

  drift.py --check [--base DIR] [--mirrors FILE]
                                  fail, naming the function and its mirror,
                                  for every fingerprint that differs and every
                                  mirror that is no file of the repository
  drift.py --update [--base DIR]  write the fingerprints of the base into
                                  scripts/mirrors.txt (after the mirrors were
                                  reviewed: commit both together)

DIR defaults to build/linux, read as the base: a file that patches/ changed
is read from its original, which prepare-tree.sh keeps in build/linux/.mm-rs/orig.
"""
import hashlib
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIRRORS = os.path.join(REPO, "scripts", "mirrors.txt")


def base_file(base, path):
    orig = os.path.join(base, ".mm-rs", "orig", path)
    return orig if os.path.exists(orig) else os.path.join(base, path)


def macro_text(lines, name):
    """The definition of macro `name` (function-like or not): its #define line
    and the lines its backslashes continue it on; None if absent."""
    define = re.compile(r"^#\s*define\s+" + re.escape(name) + r"\b")
    for i, line in enumerate(lines):
        if define.match(line):
            k = i
            while lines[k].rstrip().endswith("\\") and k + 1 < len(lines):
                k += 1
            return "\n".join(lines[i:k + 1]) + "\n"
    return None


def function_text(src, name):
    """The definition of function `name` in C source `src`: from the line its
    declarator starts on to the closing brace in column 0; or, for a macro,
    its #define with its continuation lines; None if absent."""
    lines = src.split("\n")
    macro = macro_text(lines, name)
    if macro:
        return macro
    decl = re.compile(r"^[A-Za-z_].*\b" + re.escape(name) + r"\(")
    for i, line in enumerate(lines):
        if not decl.match(line) or line.rstrip().endswith(";"):
            continue
        # The declarator may span lines; the body opens with "{" at column 0
        # (or at the end of a one-line static inline declarator).
        j = i
        while j < len(lines) and not lines[j].startswith("{") and not lines[j].rstrip().endswith("{"):
            if lines[j].rstrip().endswith(";"):
                break
            j += 1
        if j >= len(lines) or lines[j].rstrip().endswith(";"):
            continue
        k = j + 1
        while k < len(lines) and lines[k] != "}":
            k += 1
        if k >= len(lines):
            return None
        return "\n".join(lines[i:k + 1]) + "\n"
    return None


def read_mirrors():
    rows = []
    for n, line in enumerate(open(MIRRORS), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 4:
            sys.exit(f"drift: mirrors.txt:{n}: not FILE FUNCTION MIRROR SHA256")
        rows.append(parts)
    return rows


def fingerprint(base, path, name):
    try:
        src = open(base_file(base, path), errors="replace").read()
    except OSError:
        return None
    text = function_text(src, name)
    return hashlib.sha256(text.encode()).hexdigest()[:16] if text else None


def main():
    args = sys.argv[1:]
    base = os.path.join(REPO, "build", "linux")
    if "--base" in args:
        i = args.index("--base")
        base = args[i + 1]
        del args[i:i + 2]
    if "--mirrors" in args:
        global MIRRORS
        i = args.index("--mirrors")
        MIRRORS = args[i + 1]
        del args[i:i + 2]
    if args not in (["--check"], ["--update"]):
        print(__doc__, file=sys.stderr)
        return 2
    rows = read_mirrors()
    if args == ["--update"]:
        out = [l for l in open(MIRRORS) if l.startswith("#") or not l.strip()]
        for path, name, mirror, _ in rows:
            fp = fingerprint(base, path, name)
            if not fp:
                sys.exit(f"drift: {path}: no function {name} in the base")
            out.append(f"{path} {name} {mirror} {fp}\n")
        open(MIRRORS, "w").write("".join(out))
        print(f"drift: {len(rows)} fingerprints written to scripts/mirrors.txt")
        return 0
    bad = 0
    for path, name, mirror, want in rows:
        got = fingerprint(base, path, name)
        if not os.path.isfile(os.path.join(REPO, mirror)):
            # A renamed or split patch, a moved file: the guard would name a
            # mirror nobody can review.
            print(f"drift: {name}()'s mirror {mirror} is no file of the repository: "
                  f"name the file that mirrors it now", file=sys.stderr)
            bad += 1
        if got is None:
            print(f"drift: {path}: {name}() is gone from the base: review {mirror}", file=sys.stderr)
            bad += 1
        elif got != want:
            print(f"drift: {path}: {name}() changed in the base ({want} -> {got}): "
                  f"review its mirror {mirror}, then run scripts/drift.py --update and "
                  f"commit both", file=sys.stderr)
            bad += 1
    print(f"drift: {len(rows)} mirrored C functions, {bad} to review")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
