#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""series.py: write build/series/, mm-rs as a git format-patch series.

The series is generated from the repository, which stays the one source of
truth: series/series.conf says which part of it goes into which patch (its
header describes the directives), series/msg/ holds the commit messages and
series/cover.txt the cover letter. Each patch's tree is computed in full:

- a file scripts/prepare-tree.sh links into the tree arrives with the patch
  that names it in a "file" line, with the repository's content, less the
  "part"s that later patches claim (and with their "edit"s undone);
- a file that patches/*.patch change is the base's, with the changes of the
  patches/ files assigned ("diff") to this patch or an earlier one applied,
  in patches/ order, again less the parts of later patches.

So the last patch's tree is exactly build/linux's sources. The script fails,
naming what is wrong, if a linked file or a change of patches/ is in no patch
or in two, if a part or an edit no longer matches, or if a patch is empty.
The commits are made in a scratch git repository holding only the files the
series touches, then written out with git format-patch --cover-letter
--notes. Author and Signed-off-by: MM_RS_SIGNOFF ("Name <email>") if set,
else git config user.name and user.email, else HEAD's author. The dates are
the repository's HEAD commit date, so the same sources give the same series.

Usage: scripts/series.py [-o OUTDIR] [--keep-git DIR]   (default build/series)
"""

import argparse
import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARBALL = "/usr/src/linux-source-6.12.tar.xz"
CONF = os.path.join(REPO, "series", "series.conf")
EXECUTABLE = set()              # tree paths whose files are executable


def die(msg):
    print(f"series: error: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, cwd=None, env=None, data=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, input=data, capture_output=True,
                       text=True)
    if check and p.returncode != 0:
        die(f"{' '.join(cmd)} failed:\n{p.stderr.strip()}")
    return p.stdout


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---------------------------------------------------------------- the tree


def tree_links():
    """LINKS of scripts/prepare-tree.sh: [(tree path, repository path)]."""
    out = run(["bash", "-c",
               'eval "$(sed -n "/^LINKS=(/,/^)/p" "$1")"; printf "%s\\n" "${LINKS[@]}"',
               "_", os.path.join(REPO, "scripts", "prepare-tree.sh")])
    links = [tuple(line.split(":", 1)) for line in out.splitlines() if line]
    if not links:
        die("no LINKS found in scripts/prepare-tree.sh")
    return links


def linked_files():
    """{tree path: repository path} of every file the links bring into the tree.

    Files git ignores are left out (build/linux has them through a linked
    directory, but they are no source; scripts/series-check.sh skips them).
    """
    files = {}
    for dst, src in tree_links():
        full = os.path.join(REPO, src)
        if os.path.isdir(full):
            out = run(["git", "ls-files", "-co", "--exclude-standard", "-z", "--", src],
                      cwd=REPO)
            for rel in sorted(set(out.split("\0"))):
                if rel and os.path.isfile(os.path.join(REPO, rel)):
                    files[dst + rel[len(src):]] = rel
        elif os.path.isfile(full):
            files[dst] = src
        else:
            die(f"{src}, linked in as {dst} by scripts/prepare-tree.sh, is missing")
    return files


# ---------------------------------------------------------------- patches/


class Patch:
    """One patches/*.patch: its message and its changes, one per file."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.num = self.name[:4]
        text = read(path)
        head, sep, rest = text.partition("\n---\n")
        if not sep:
            die(f"patches/{self.name}: no '---' line after the message")
        self.subject, self.body = parse_message(head, self.name)
        self.diffs = split_diff(rest, self.name)


def parse_message(head, name):
    lines = head.split("\n")
    subject, body, i = None, [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("Subject:"):
            subject = line[len("Subject:"):].strip()
            while i + 1 < len(lines) and lines[i + 1].startswith(" "):
                i += 1
                subject += " " + lines[i].strip()
            subject = re.sub(r"^\[PATCH[^]]*\]\s*", "", subject)
        elif line == "" and subject is not None:
            body = lines[i + 1:]
            break
        i += 1
    if not subject:
        die(f"patches/{name}: no Subject: line")
    body = [b for b in body if not b.startswith("Signed-off-by:")]
    return subject, "\n".join(body).strip("\n")


def split_diff(text, name):
    """[(path, diff text)] of each file a patch changes, in its order."""
    lines = text.split("\n")
    starts = [i for i, l in enumerate(lines) if l.startswith("diff --git ")]
    if not starts:
        starts = [i for i, l in enumerate(lines[:-1])
                  if l.startswith("--- ") and lines[i + 1].startswith("+++ ")]
    if not starts:
        die(f"patches/{name}: no changes found")
    diffs = []
    for n, s in enumerate(starts):
        e = starts[n + 1] if n + 1 < len(starts) else len(lines)
        block = lines[s:e]
        # A format-patch signature ("-- " and the git version) ends the last.
        if "-- " in block:
            block = block[:block.index("-- ")]
        path = None
        for l in block:
            m = re.match(r"\+\+\+ b/(\S+)", l) or re.match(r"--- a/(\S+)", l)
            if m:
                path = m.group(1)
                break
        if path is None:
            die(f"patches/{name}: a change names no file")
        while block and block[-1] == "":
            block.pop()
        diffs.append((path, "\n".join(block) + "\n"))
    return diffs


# ---------------------------------------------------------------- series.conf


class Step:
    def __init__(self, name, lineno):
        self.name = name
        self.lineno = lineno
        self.msg_from = None
        self.subject = None
        self.notes = []
        self.files = []         # globs
        self.diffs = []         # (patch number, [paths] or None)
        self.parts = []         # (path, start, end kind, end re, all)
        self.edits = []         # (path, new, old)


def unescape(s):
    return s.replace("\\n", "\n").replace("\\t", "\t")


def parse_conf():
    steps = []
    for lineno, line in enumerate(read(CONF).split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"series/series.conf:{lineno}"
        try:
            w = shlex.split(line, comments=False, posix=True)
        except ValueError as e:
            die(f"{where}: {e}")
        cmd, args = w[0], w[1:]
        if cmd == "patch":
            if len(args) != 1:
                die(f"{where}: patch NAME")
            if any(s.name == args[0] for s in steps):
                die(f"{where}: a second patch named {args[0]}")
            steps.append(Step(args[0], lineno))
            continue
        if not steps:
            die(f"{where}: '{cmd}' before the first 'patch'")
        s = steps[-1]
        if cmd == "msg-from" and len(args) == 1:
            s.msg_from = args[0]
        elif cmd == "subject" and len(args) == 1:
            s.subject = args[0]
        elif cmd == "note" and len(args) == 1:
            s.notes.append(args[0])
        elif cmd == "file" and args:
            s.files += [(g, where) for g in args]
        elif cmd == "diff" and args:
            s.diffs.append((args[0], args[1:] or None, where))
        elif cmd == "part" and len(args) >= 2:
            path, start, rest = args[0], args[1], args[2:]
            every = bool(rest) and rest[-1] == "all"
            if every:
                rest = rest[:-1]
            if not rest:
                kind, end = None, None
            elif rest == ["to-end"]:
                kind, end = "to-end", None
            elif len(rest) == 2 and rest[0] in ("to", "before"):
                kind, end = rest
            else:
                die(f"{where}: part PATH START [to END | before END | to-end] [all]")
            for r in (start, end):
                if r is not None:
                    try:
                        re.compile(r, re.M)
                    except re.error as e:
                        die(f"{where}: bad regular expression {r!r}: {e}")
            s.parts.append((path, start, kind, end, every, where))
        elif cmd == "edit" and len(args) == 3:
            s.edits.append((args[0], unescape(args[1]), unescape(args[2]), where))
        else:
            die(f"{where}: cannot read '{line.strip()}'")
    if not steps:
        die("series/series.conf defines no patch")
    return steps


# ---------------------------------------------------------------- contents


def line_of(text, pos):
    return text.count("\n", 0, pos)


def part_ranges(text, part, path):
    """Line ranges [first, last] (0-based) of a part in text; [] if absent."""
    _, start, kind, end, every, where = part
    ranges = []
    for m in re.finditer(start, text, re.M):
        first = line_of(text, m.start())
        last = line_of(text, max(m.start(), m.end() - 1))
        if kind == "to-end":
            last = text.count("\n") - (1 if text.endswith("\n") else 0)
        elif kind is not None:
            # END is looked for from the line after START's last line.
            lines = text.split("\n")
            from_pos = len("\n".join(lines[:last + 1])) + 1
            e = re.compile(end, re.M).search(text, from_pos)
            if not e:
                die(f"{where}: in {path}, {end!r} does not match after {start!r}")
            last = (line_of(text, max(e.start(), e.end() - 1)) if kind == "to"
                    else line_of(text, e.start()) - 1)
        ranges.append((first, last))
    if len(ranges) > 1 and not every:
        die(f"{where}: {start!r} matches {len(ranges)} times in {path} (add 'all'?)")
    return ranges


def is_open(line):
    s = line.strip()
    return s.endswith("{") or s.startswith(("#if", "#else"))


def is_close(line):
    s = line.strip()
    return s in ("}", "};") or s.startswith(("#endif", "#else", "endif"))


def remove_lines(text, ranges):
    """text without the given line ranges, keeping the blank lines tidy.

    Where lines were removed, two blank lines become one, and a blank line
    left at the start or the end of the file, or between an opening line
    ({, #if) and what follows, or before a closing one (}, #endif), goes.
    """
    if not ranges:
        return text
    lines = text.split("\n")
    trailing = lines[-1] == ""
    if trailing:
        lines.pop()
    merged = []
    for a, b in sorted(ranges):
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    for a, b in reversed(merged):
        del lines[a:b + 1]
        prev = lines[a - 1] if a > 0 else None
        nxt = lines[a] if a < len(lines) else None
        if nxt == "" and (prev is None or prev == "" or is_open(prev)):
            del lines[a]
        elif prev == "" and (nxt is None or is_close(nxt)):
            del lines[a - 1]
    return "\n".join(lines) + ("\n" if trailing else "")


def base_files(paths):
    """{path: content} of the paths, as the base tarball has them."""
    out = {}
    if not paths:
        return out
    with tempfile.TemporaryDirectory() as tmp:
        with subprocess.Popen(["tar", "-tf", TARBALL], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) as lister:
            top = lister.stdout.readline().split("/", 1)[0]
            lister.kill()
        if not top:
            die(f"cannot list {TARBALL}")
        run(["tar", "-xf", TARBALL, "-C", tmp] + [f"{top}/{x}" for x in sorted(paths)])
        for x in paths:
            f = os.path.join(tmp, top, x)
            out[x] = read(f)
            if os.stat(f).st_mode & 0o111:
                EXECUTABLE.add(x)
    return out


def apply_diffs(path, base, diffs, cache):
    """base (None: no such file) with the diffs applied in order."""
    key = (path, tuple(diffs))
    if key in cache:
        return cache[key]
    if not diffs:
        return base
    with tempfile.TemporaryDirectory() as tmp:
        f = os.path.join(tmp, path)
        if base is not None:
            os.makedirs(os.path.dirname(f), exist_ok=True)
            with open(f, "w", encoding="utf-8") as w:
                w.write(base)
        p = subprocess.run(["patch", "-p1", "-N", "--batch", "--fuzz=0", "-s",
                            "--no-backup-if-mismatch", "-r", "-", "-d", tmp],
                           input="".join(d for d in diffs), capture_output=True, text=True)
        if p.returncode != 0:
            die(f"the changes of patches/ to {path} do not apply in series order:\n"
                f"{p.stdout}{p.stderr}")
        text = read(f) if os.path.exists(f) else None
    cache[key] = text
    return text


# ---------------------------------------------------------------- main


def identity():
    """(name, email) for From: and Signed-off-by:."""
    who = os.environ.get("MM_RS_SIGNOFF", "").strip()
    if not who:
        name = run(["git", "config", "user.name"], cwd=REPO, check=False).strip()
        email = run(["git", "config", "user.email"], cwd=REPO, check=False).strip()
        if name and email:
            who = f"{name} <{email}>"
    if not who:
        # A CI checkout may have no identity: the series is still checked,
        # signed off as the author of the commit it was made from.
        who = run(["git", "log", "-1", "--format=%an <%ae>"], cwd=REPO, check=False).strip()
        if not who:
            die("no identity for Signed-off-by: set MM_RS_SIGNOFF='Name <email>' "
                "or git config user.name and user.email")
        print(f"series: no MM_RS_SIGNOFF nor git config user.name/email: signing off "
              f"as {who}, the author of HEAD", file=sys.stderr)
    m = re.fullmatch(r"(.+?)\s*<([^<>\s]+@[^<>\s]+)>", who)
    if not m:
        die(f"MM_RS_SIGNOFF must read 'Name <email>', not '{who}'")
    return m.group(1), m.group(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--out", default=os.path.join(REPO, "build", "series"))
    ap.add_argument("--keep-git", metavar="DIR",
                    help="leave the scratch repository (one commit a patch) in DIR")
    args = ap.parse_args()

    basefile = os.path.join(REPO, "build", "BASE")
    if not os.path.isfile(basefile):
        die("no build/BASE: run 'make prepare' first")
    base_desc = read(basefile).strip()
    if not os.path.isfile(TARBALL):
        die(f"{TARBALL} not found; run scripts/setup.sh")
    pkgver = run(["dpkg-query", "-W", "-f=${Version}", "linux-source-6.12"]).strip()
    if pkgver not in base_desc.split("\n", 1)[0]:
        die(f"build/BASE records '{base_desc.splitlines()[0]}', but linux-source-6.12 "
            f"{pkgver} is installed: run 'make prepare'")
    author = identity()

    steps = parse_conf()

    # patches/
    pdir = os.path.join(REPO, "patches")
    patches = {}
    for n in sorted(os.listdir(pdir)):
        if n.endswith(".patch"):
            p = Patch(os.path.join(pdir, n))
            if p.num in patches:
                die(f"patches/{n} and patches/{patches[p.num].name} share the number {p.num}")
            patches[p.num] = p
    owner = {}                   # (patch number, diff index) -> step index
    for i, s in enumerate(steps):
        for num, paths, where in s.diffs:
            if num not in patches:
                die(f"{where}: no patches/{num}-*.patch")
            p = patches[num]
            want = set(paths) if paths else None
            found = set()
            for k, (path, _) in enumerate(p.diffs):
                if want is None or path in want:
                    if (num, k) in owner:
                        die(f"{where}: patches/{p.name}'s change to {path} is already "
                            f"in patch '{steps[owner[(num, k)]].name}'")
                    owner[(num, k)] = i
                    found.add(path)
            if want is not None and want - found:
                die(f"{where}: patches/{p.name} does not change {', '.join(sorted(want - found))}")
        if s.msg_from and s.msg_from not in patches:
            die(f"series/series.conf:{s.lineno}: msg-from {s.msg_from}: no such patch")
    for num, p in patches.items():
        for k, (path, _) in enumerate(p.diffs):
            if (num, k) not in owner:
                die(f"patches/{p.name}: its change to {path} is in no patch of "
                    "series/series.conf (add a 'diff' line)")

    # The files each patch of patches/ changes, with the step of each change.
    changes = {}                 # path -> [(step, diff text)] in patches/ order
    for num in sorted(patches):
        for k, (path, text) in enumerate(patches[num].diffs):
            changes.setdefault(path, []).append((owner[(num, k)], text))
    for path, ch in changes.items():
        for (s1, _), (s2, _) in zip(ch, ch[1:]):
            if s2 < s1:
                die(f"{path}: patches/ changes it in one order, the series in another "
                    f"('{steps[s1].name}' after '{steps[s2].name}')")

    # Linked files.
    linked = linked_files()
    EXECUTABLE.update(t for t, r in linked.items() if os.stat(os.path.join(REPO, r)).st_mode & 0o111)
    arrives = {}                 # tree path -> step index
    for i, s in enumerate(steps):
        for glob, where in s.files:
            hits = [t for t in linked if fnmatch.fnmatchcase(t, glob)]
            if not hits:
                die(f"{where}: '{glob}' matches no file linked into the tree")
            for t in hits:
                if t in arrives:
                    die(f"{where}: {t} is already added by patch '{steps[arrives[t]].name}'")
                arrives[t] = i
    missing = sorted(set(linked) - set(arrives))
    if missing:
        die("linked into the tree but in no patch of series/series.conf (add a 'file' "
            "line): " + ", ".join(f"{t} ({linked[t]})" for t in missing))
    overlap = sorted(set(linked) & set(changes))
    if overlap:
        die(f"both linked and changed by patches/: {', '.join(overlap)}")

    # Parts and edits, by file.
    parts, edits = {}, {}
    for i, s in enumerate(steps):
        for part in s.parts:
            parts.setdefault(part[0], []).append((i, part))
        for e in s.edits:
            edits.setdefault(e[0], []).append((i, e))
    for path in set(parts) | set(edits):
        if path not in linked and path not in changes:
            where = (parts.get(path) or edits.get(path))[0][1][-1]
            die(f"{where}: {path} is neither linked into the tree nor changed by patches/")
        if path in arrives:
            for i, x in parts.get(path, []) + edits.get(path, []):
                if i <= arrives[path]:
                    die(f"{x[-1]}: {path} arrives with patch '{steps[arrives[path]].name}', "
                        f"so this must come in a later patch")

    base = base_files([p for p, ch in changes.items()
                       if not any("--- /dev/null" in t for _, t in ch[:1])])
    cache = {}

    def pre(path, k):
        """path's content at step k before the later parts are taken out."""
        if path in linked:
            return read(os.path.join(REPO, linked[path])) if arrives[path] <= k else None
        return apply_diffs(path, base.get(path), [t for s, t in changes[path] if s <= k],
                           cache)

    def content(path, k):
        text = pre(path, k)
        if text is None:
            return None
        ranges = []
        for i, part in parts.get(path, []):
            if i > k:
                ranges += part_ranges(text, part, path)
        text = remove_lines(text, ranges)
        for i, (_, new, old, where) in sorted(edits.get(path, []), key=lambda x: -x[0]):
            if i > k:
                n = text.count(new)
                # Right before its patch the edit must apply once; earlier, the
                # text it edits may not be there yet (a part of a patch between).
                if n == 0 and k < i - 1:
                    continue
                if n != 1:
                    die(f"{where}: {path} has {n} times {new!r} "
                        f"before patch '{steps[i].name}' (must be 1)")
                text = text.replace(new, old)
        return text

    last = len(steps) - 1
    paths = sorted(set(linked) | set(changes))
    # Every part and edit must still match the final sources.
    for path in set(parts) | set(edits):
        text = pre(path, last)
        for i, part in parts.get(path, []):
            if not part_ranges(text, part, path):
                die(f"{part[-1]}: {part[1]!r} does not match {path}")
        for i, (_, new, _, where) in edits.get(path, []):
            if new not in text:
                die(f"{where}: {path} no longer has {new!r}")

    # The scratch repository: the base of every touched file, then one commit a patch.
    name, email = author
    date = run(["git", "log", "-1", "--format=%cI"], cwd=REPO, check=False).strip() or \
        "2026-01-01T00:00:00+00:00"
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
               GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_AUTHOR_DATE=date,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email,
               GIT_COMMITTER_DATE=date, LC_ALL="C")
    os.makedirs(os.path.join(REPO, "build"), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.join(REPO, "build"),
                                     prefix="series-git.") as g:
        git = lambda *a, **kw: run(["git", *a], cwd=g, env=env, **kw)
        git("init", "-q", "-b", "base")
        git("config", "core.autocrlf", "false")
        for path, text in base.items():
            write(g, path, text)
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", "base")
        git("tag", "base")
        prev = {p: base.get(p) for p in paths}
        for k, s in enumerate(steps):
            changed = False
            for path in paths:
                text = content(path, k)
                if text == prev[path]:
                    continue
                changed = True
                if text is None:
                    os.unlink(os.path.join(g, path))
                else:
                    write(g, path, text)
                prev[path] = text
            if not changed:
                die(f"patch '{s.name}' changes nothing")
            subject, body, notes = message(s, patches)
            # A body that ends in trailers (Fixes:, Link:, ...) keeps them
            # in one block with the Signed-off-by.
            last = body.rstrip("\n").split("\n")[-1]
            sep = "\n" if re.match(r"^[A-Z][A-Za-z-]+: \S", last) else "\n\n"
            msg = f"{subject}\n\n{body.rstrip(chr(10))}{sep}Signed-off-by: {name} <{email}>\n"
            git("add", "-A")
            git("commit", "-q", "-F", "-", data=msg)
            if notes:
                git("notes", "add", "-F", "-", data=notes + "\n")
        for path in paths:
            want = (read(os.path.join(REPO, linked[path])) if path in linked
                    else apply_diffs(path, base.get(path), [t for _, t in changes[path]], cache))
            if prev[path] != want:
                die(f"{path}: the last patch's version is not the tree's (a bug in series.py)")

        out = args.out
        if os.path.isdir(out):
            for n in os.listdir(out):
                if n.endswith(".patch"):
                    os.unlink(os.path.join(out, n))
        os.makedirs(out, exist_ok=True)
        git("format-patch", "-q", "--cover-letter", "--notes", "--no-signature",
            "--subject-prefix=PATCH", "--no-renames", "-o", out, "base..HEAD")
        cover(out, base_desc, len(steps))
        if args.keep_git:
            shutil.rmtree(args.keep_git, ignore_errors=True)
            shutil.copytree(g, args.keep_git, symlinks=True)
    print(f"series: {len(steps)} patches and a cover letter in "
          f"{os.path.relpath(out, os.getcwd())}/ (base: {base_desc.splitlines()[0]})")


def write(root, path, text):
    f = os.path.join(root, path)
    os.makedirs(os.path.dirname(f), exist_ok=True)
    with open(f, "w", encoding="utf-8") as w:
        w.write(text)
    os.chmod(f, 0o755 if path in EXECUTABLE else 0o644)


def message(s, patches):
    """(subject, body, notes) of a step."""
    notes = list(s.notes)
    if s.msg_from:
        subject, body = patches[s.msg_from].subject, patches[s.msg_from].body
    else:
        f = os.path.join(REPO, "series", "msg", s.name + ".txt")
        if not os.path.isfile(f):
            die(f"patch '{s.name}' has neither series/msg/{s.name}.txt nor msg-from")
        text, _, n = read(f).partition("\n---\n")
        subject, _, body = text.strip("\n").partition("\n\n")
        if "\n" in subject:
            die(f"series/msg/{s.name}.txt: the subject must be one line, then a blank line")
        body = body.strip("\n")
        if n.strip():
            notes.insert(0, n.strip("\n"))
    subject = s.subject or subject
    if not body:
        die(f"patch '{s.name}' has no body: say why")
    return subject, body, "\n".join(notes)


def cover(out, base_desc, n):
    """Fills in the cover letter format-patch wrote."""
    f = [x for x in os.listdir(out) if x.startswith("0000-")]
    if len(f) != 1:
        die(f"no cover letter in {out}")
    path = os.path.join(out, f[0])
    tmpl = read(os.path.join(REPO, "series", "cover.txt")).strip("\n")
    subject, _, blurb = tmpl.partition("\n\n")
    blurb = blurb.replace("@BASE@", "\n".join("  " + l for l in base_desc.splitlines()))
    blurb = blurb.replace("@BENCHMARKS@", bench_tables())
    text = read(path)
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        die("git format-patch's cover letter has no placeholders to fill")
    text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", blurb)
    with open(path, "w", encoding="utf-8") as w:
        w.write(text)


def bench_tables():
    """The headings and tables of docs/benchmarks.md."""
    f = os.path.join(REPO, "docs", "benchmarks.md")
    if not os.path.isfile(f):
        return "(docs/benchmarks.md is missing: run make bench)"
    out, started = [], False
    for line in read(f).split("\n"):
        if line.startswith("## "):
            started = True
        if not started:
            continue
        if line.startswith("#") or line.startswith("|"):
            if line.startswith("#") and out and out[-1] != "":
                out.append("")
            out.append(line)
            if line.startswith("#"):
                out.append("")
    return "\n".join(out).strip("\n")


if __name__ == "__main__":
    main()
