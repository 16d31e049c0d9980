#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The mutations of scripts/mutations.txt: parsing, checks, plans, verdicts,
records and the report. scripts/mutate.sh drives it; mutations-check.py
(make lint) and mutations-report.py are its other entry points.

scripts/mutations.txt, one mutation a line:

    NAME @@ FILE @@ ORIGINAL @@ MUTATED
    NAME [ARCH] @@ FILE @@ ORIGINAL @@ MUTATED

"\\n" in ORIGINAL and MUTATED is a newline; ORIGINAL must occur exactly once
in FILE. "[ARCH]" (x86_64 or arm64) runs the mutation on that architecture
only: on the other it is skipped, not survived. A comment line

    # equivalent: NAME: why

marks NAME as an equivalent mutation, one no test can kill because the
program means the same with it; it stays checked (its ORIGINAL must still
apply) but is not run, and the report lists it with the argument.

Subcommands (for mutate.sh):
  check                          what mutations-check.py prints
  plan ARCH [--sample N --seed HEX] [--stale JSON] [--done PROGRESS] [NAME...]
                                 one line a mutation: ACTION<TAB>NAME<TAB>FILE<TAB>WHY,
                                 ACTION run, skip or equivalent; --stale JSON: only
                                 those without a current measured verdict in JSON;
                                 --done PROGRESS: not those a sitting measured
  freshness REPO COMMIT FILE     STATE<TAB>LAST: is a verdict measured at COMMIT
                                 still about FILE's text (current, stale, unknown)
  apply NAME                     write the mutation into its file
  baseline FILE                  a kunit.py JSON every case of which passed
  verdict JSON LOG RC            VERDICT<TAB>KILLERS of one run
  result RECORDS NAME FILE SECONDS (--verdict V [--why W] | --run JSON LOG RC)
                                 append a mutation's record, print its line
  record OUT ARCH FLAVOUR KIND RECORDS [--baseline TEXT] [--merge]
                                 the run's JSON (RECORDS: one JSON object a line)
  progress check PROGRESS ENV    may a full run in sittings (mutate.sh --resume) go
                                 on here: prints "new" or "resume COMMIT DONE"; fails
                                 when a file outside docs/ differs from COMMIT's, COMMIT
                                 is not HEAD or its ancestor, or ENV (JSON: the tools)
                                 differs from the first sitting's
  progress sitting PROGRESS ARCH FLAVOUR BASELINE ENV
                                 a sitting begins (the file made on the first)
  progress add PROGRESS RECORDS  this sitting's verdicts so far, into PROGRESS, after
                                 checking the tree again
  progress finish PROGRESS OUT   every mutation measured: OUT, the full run's JSON
                                 at the first sitting's commit; PROGRESS removed
  report [--out FILE] [JSON...]  docs/mutations.md from the runs' JSON
"""
import datetime
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(REPO, "scripts", "mutations.txt")
ARCHES = ("x86_64", "arm64")
NAME_RE = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*)(?: \[([a-z0-9_]+)\])?")
EQUIV_RE = re.compile(r"#\s*equivalent:\s*([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:\s*(.*)")

# The decision a file belongs to: first match wins.
DECISIONS = [
    ("anon order", ["mm-rs/anon/order.rs", "mm-rs/anon/policy.rs", "rust/kernel/mm/order.rs",
                    "rust/kernel/mm/thp.rs"]),
    ("anon fault", ["mm-rs/anon/fault.rs", "mm-rs/anon/alloc.rs", "mm-rs/fault.c",
                    "rust/kernel/mm/pgtable.rs", "rust/kernel/mm/fault.rs",
                    "rust/kernel/mm/folio.rs", "rust/kernel/mm.rs"]),
    ("exec readahead", ["mm-rs/exec_ra/*", "mm-rs/exec_ra.rs", "patches/0008-*",
                        "patches/0009-*"]),
    ("pt reclaim", ["mm-rs/pt_reclaim/*", "mm-rs/pt_reclaim.rs", "rust/kernel/mm/pmd.rs",
                    "patches/0005-*", "patches/0006-*", "patches/0007-*",
                    "patches/0013-*", "patches/0014-*", "patches/0015-*", "patches/0016-*"]),
    ("underused mTHPs", ["mm-rs/anon/underused.rs", "mm-rs/underused.c", "patches/0017-*"]),
    ("ksm unmerge", ["mm-rs/ksm/*", "mm-rs/ksm.rs", "rust/kernel/mm/walk.rs",
                     "patches/0018-*"]),
    ("sysfs/switches", ["mm-rs/sysfs.c"]),
    ("C glue", ["patches/*"]),
]
VERDICTS = ("killed", "survived", "broken-build", "error", "stale", "skipped", "equivalent")
FAILING = ("survived", "broken-build", "error", "stale")


def decision(path):
    for name, globs in DECISIONS:
        if any(fnmatch.fnmatch(path, g) for g in globs):
            return name
    return "other"


class Mutation:
    def __init__(self, n, name, arch, file, old, new):
        self.line, self.name, self.arch, self.file = n, name, arch, file
        self.old, self.new = old.replace("\\n", "\n"), new.replace("\\n", "\n")
        self.equivalent = None

    def applies_to(self, arch):
        return self.arch is None or self.arch == arch


def parse(path=LIST):
    """(mutations in file order, [problem, ...])"""
    muts, errs, equiv, names = [], [], [], {}
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line.strip():
            continue
        if line.startswith("#"):
            m = EQUIV_RE.fullmatch(line)
            if m:
                equiv.append((n, m.group(1), m.group(2).strip()))
            elif re.match(r"#\s*equivalent", line):
                errs.append(f"mutations.txt:{n}: not '# equivalent: NAME: why'")
            continue
        parts = line.split(" @@ ", 3)
        if len(parts) != 4:
            errs.append(f"mutations.txt:{n}: not NAME [ARCH] @@ FILE @@ ORIGINAL @@ MUTATED")
            continue
        m = NAME_RE.fullmatch(parts[0])
        if not m:
            errs.append(f"mutations.txt:{n}: '{parts[0]}' is not NAME or NAME [ARCH]")
            continue
        name, arch = m.group(1), m.group(2)
        if arch is not None and arch not in ARCHES:
            errs.append(f"mutations.txt:{n}: {name}: [{arch}] is not one of {', '.join(ARCHES)}")
        if name in names:
            errs.append(f"mutations.txt:{n}: {name}: a second mutation of that name")
            continue
        mut = Mutation(n, name, arch, parts[1], parts[2], parts[3])
        names[name] = mut
        muts.append(mut)
    for n, name, why in equiv:
        if name not in names:
            errs.append(f"mutations.txt:{n}: equivalent: no mutation {name}")
        elif not why:
            errs.append(f"mutations.txt:{n}: equivalent: {name}: say why")
        elif names[name].equivalent is not None:
            errs.append(f"mutations.txt:{n}: equivalent: {name} a second time")
        else:
            names[name].equivalent = why
    return muts, errs


def read(path):
    with open(os.path.join(REPO, path)) as f:
        return f.read()


def mutated_text(m):
    """The mutated contents of m's file, or raise ValueError."""
    s = read(m.file)
    count = s.count(m.old)
    if count != 1:
        raise ValueError(f"ORIGINAL occurs {count} times in {m.file}, not once")
    if m.old == m.new:
        raise ValueError("MUTATED is ORIGINAL")
    return s.replace(m.old, m.new)


def patch_problems(m, text):
    """A mutation of patches/*.patch must still apply (prepare-tree.sh removes
    build/linux when a patch does not): it may change only added lines, one
    for one, and no other patch may use a line it changes as context."""
    a, b = read(m.file).split("\n"), text.split("\n")
    if len(a) != len(b):
        return ["changes the number of lines of the patch (its hunk counts)"]
    out = []
    changed = [(x, y) for x, y in zip(a, b) if x != y]
    for x, y in changed:
        if not (x.startswith("+") and y.startswith("+")) or x.startswith("+++"):
            out.append(f"changes a line that is not an added line: {x!r}")
    for p in sorted(glob.glob(os.path.join(REPO, "patches", "*.patch"))):
        if os.path.relpath(p, REPO) == m.file:
            continue
        lines = set(open(p, errors="replace").read().split("\n"))
        for x, _ in changed:
            if " " + x[1:] in lines or "-" + x[1:] in lines:
                out.append(f"{os.path.relpath(p, REPO)} has the changed line {x[1:]!r} as context")
    return out


def check():
    muts, errs = parse()
    bad = list(errs)
    for m in muts:
        try:
            text = mutated_text(m)
        except (OSError, ValueError) as e:
            bad.append(f"mutations.txt:{m.line}: {m.name}: {e}")
            continue
        if m.file.startswith("patches/"):
            bad += [f"mutations.txt:{m.line}: {m.name}: {e}" for e in patch_problems(m, text)]
    for b in bad:
        print(b)
    eq = sum(1 for m in muts if m.equivalent)
    tagged = sum(1 for m in muts if m.arch)
    print(f"mutations: {len(muts)} mutations ({tagged} for one architecture, {eq} equivalent),"
          f" {len(bad)} stale")
    return 1 if bad else 0


def by_name(muts, name):
    for m in muts:
        if m.name == name:
            return m
    return None


def plan(args):
    arch, sample, seed, names, stale_from, done_from = None, None, None, [], None, None
    it = iter(args)
    for a in it:
        if a == "--sample":
            sample = int(next(it))
        elif a == "--seed":
            seed = next(it)
        elif a == "--stale":
            stale_from = next(it)
        elif a == "--done":
            done_from = next(it)
        elif arch is None:
            arch = a
        else:
            names.append(a)
    muts, errs = parse()
    if errs:
        print("\n".join(errs), file=sys.stderr)
        return 2
    unknown = [n for n in names if by_name(muts, n) is None]
    if unknown:
        print(f"mutations: no mutation {', '.join(unknown)} in scripts/mutations.txt",
              file=sys.stderr)
        return 2
    if names:
        muts = [m for m in muts if m.name in names]
    if stale_from is not None:
        # Re-measure what the record cannot vouch for at this commit: no
        # verdict yet, a verdict reconstructed from an old report, or one
        # measured before its file last changed.
        recs = {}
        if os.path.exists(stale_from):
            with open(stale_from) as f:
                recs = {r["name"]: r for r in json.load(f).get("mutations", [])}
        muts = [m for m in muts if m.equivalent or not m.applies_to(arch)
                or standing(recs.get(m.name), m.file)[0] != "current"]
    if done_from is not None and os.path.exists(done_from):
        with open(done_from) as f:
            done = {r["name"] for r in json.load(f).get("mutations", [])}
        muts = [m for m in muts if m.name not in done]
    rows = []
    if sample is not None:
        # A rotating sample: N of the mutations that can run here, spread
        # over the list from a point the commit chooses.
        cands = [m for m in muts if m.applies_to(arch) and not m.equivalent]
        if not seed:
            print("mutations: --sample needs --seed", file=sys.stderr)
            return 2
        if cands and sample > 0:
            h = int(seed, 16)
            n = min(sample, len(cands))
            stride = max(1, len(cands) // n)
            picks = {(h + i * stride) % len(cands) for i in range(n)}
            muts = [m for i, m in enumerate(cands) if i in picks]
        else:
            muts = []
    for m in muts:
        if m.equivalent:
            rows.append(("equivalent", m, m.equivalent))
        elif not m.applies_to(arch):
            rows.append(("skip", m, f"{m.arch} only"))
        else:
            rows.append(("run", m, ""))
    for action, m, why in rows:
        print(f"{action}\t{m.name}\t{m.file}\t{why}")
    return 0


def apply(name):
    muts, errs = parse()
    m = by_name(muts, name)
    if m is None:
        print(f"mutations: no mutation {name}", file=sys.stderr)
        return 2
    try:
        text = mutated_text(m)
        probs = patch_problems(m, text) if m.file.startswith("patches/") else []
    except (OSError, ValueError) as e:
        print(f"mutations: {name}: {e}", file=sys.stderr)
        return 1
    if probs:
        print(f"mutations: {name}: " + "; ".join(probs), file=sys.stderr)
        return 1
    with open(os.path.join(REPO, m.file), "w") as f:
        f.write(text)
    return 0


def cases(path):
    """[(suite.case, status)] of a kunit.py JSON."""
    out = []

    def walk(node, prefix):
        name = node.get("name") or ""
        here = [] if prefix is None else prefix + [name]
        for c in node.get("test_cases", []) or []:
            out.append((".".join(here + [c.get("name") or "?"]), c.get("status")))
        for s in node.get("sub_groups", []) or []:
            walk(s, here)

    with open(path) as f:
        walk(json.load(f), None)
    return out


def baseline(path):
    try:
        cs = cases(path)
    except (OSError, ValueError) as e:
        print(f"mutate: no baseline in {path}: {e}", file=sys.stderr)
        return 1
    bad = [(n, s) for n, s in cs if s != "PASS"]
    for n, s in bad[:10]:
        print(f"mutate: baseline {n}: {s}", file=sys.stderr)
    if not cs or bad:
        print(f"mutate: the baseline {os.path.relpath(path, REPO)} is not a passing run"
              f" ({len(cs) - len(bad)} passed, {len(bad)} not)", file=sys.stderr)
        return 1
    print(f"{len(cs)} passed")
    return 0


def verdict(json_path, log_path, rc):
    """killed, survived, broken-build or error, and what killed it."""
    try:
        log = open(log_path, errors="replace").read().splitlines()
    except OSError:
        log = []
    if rc == 0:
        return "survived", []
    try:
        cs = cases(json_path)
    except (OSError, ValueError):
        cs = None
    if cs is None:
        # kunit.py writes no JSON when the kernel does not build: says
        # nothing about the tests.
        return "broken-build", []
    killers = [f"{n}: {s}" for n, s in cs if s != "PASS"]
    for line in log:
        m = re.match(r"kunit-check: (kernel log: .*|suite .*: \d+ cases ran, expected .*)", line)
        if m:
            killers.append(m.group(1))
    if killers:
        return "killed", killers
    return "error", [f"kunit.sh exited {rc} with every case passed; see the log"]


def result(args):
    """Appends one mutation's record to RECORDS and prints mutate.sh's line.
    result RECORDS NAME FILE SECONDS --verdict V [--why W]
    result RECORDS NAME FILE SECONDS --run JSON LOG RC"""
    records, name, file, secs = args[:4]
    r = {"name": name, "file": file, "verdict": None, "killed_by": [], "seconds": int(secs)}
    opts = args[4:]
    if opts[0] == "--verdict":
        r["verdict"] = opts[1]
        if len(opts) > 3 and opts[2] == "--why" and opts[3]:
            r["why"] = opts[3]
    else:
        js, log, rc = opts[1:4]
        r["verdict"], r["killed_by"] = verdict(js, log, int(rc))
        r["log"] = os.path.relpath(log, REPO)
    with open(records, "a") as f:
        f.write(json.dumps(r) + "\n")
    v, k = r["verdict"], r["killed_by"]
    if v == "killed":
        more = f" (+{len(k) - 3})" if len(k) > 3 else ""
        line = f"killed {name} ({secs}s): " + "; ".join(k[:3]) + more
    elif v in ("skipped", "equivalent", "stale"):
        line = f"{v.upper() if v == 'stale' else v} {name}: {r.get('why', '')}"
    elif v == "survived":
        line = f"SURVIVED {name} ({file}, {secs}s)"
    elif v == "broken-build":
        line = f"BROKEN BUILD {name} ({file}): see {r['log']}"
    else:
        line = f"ERROR {name} ({file}): {'; '.join(k)}: see {r['log']}"
    print(f"mutate: {line}")
    return 0


def git(*args):
    try:
        return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def freshness(repo, commit, path):
    """Whether a verdict measured at COMMIT is about PATH as it is now.

    ("current", LAST) when PATH's last change, LAST, is COMMIT or one of
    its ancestors; ("stale", LAST) when PATH changed after it; ("unknown",
    LAST) when COMMIT or PATH's history is not in REPO (a shallow clone, a
    rewritten branch), which is no better than stale."""
    def run(*args):
        return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True)

    last = run("log", "-1", "--format=%H", "--", path).stdout.strip()
    if not commit or not last:
        return "unknown", last
    c = run("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    if c.returncode:
        return "unknown", last
    anc = run("merge-base", "--is-ancestor", last, c.stdout.strip())
    if anc.returncode not in (0, 1):
        return "unknown", last
    return ("current" if anc.returncode == 0 else "stale"), last


_standing = {}


def standing(rec, path):
    """(STATE, LAST) of one record: "missing" without one, "reconstructed"
    when it was rebuilt from an old report rather than measured, else
    freshness() of its commit (cached: the report asks for each cell)."""
    if rec is None:
        return "missing", ""
    if rec.get("reconstructed"):
        return "reconstructed", ""
    key = (rec.get("commit"), path)
    if key not in _standing:
        _standing[key] = freshness(REPO, rec.get("commit"), path)
    return _standing[key]


def record(args):
    out, arch, flavour, kind, records = args[:5]
    rest = args[5:]
    base, merge = "", False
    it = iter(rest)
    for a in it:
        if a == "--baseline":
            base = next(it)
        elif a == "--merge":
            merge = True
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    commit = git("rev-parse", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    new = []
    if os.path.exists(records):
        with open(records) as f:
            new = [json.loads(line) for line in f if line.strip()]
    for r in new:
        r["decision"] = decision(r["file"])
        r.setdefault("commit", commit)
        r.setdefault("date", now)
    muts, _ = parse()
    known = {m.name for m in muts}
    rows, old = {}, {}
    if merge and os.path.exists(out):
        try:
            with open(out) as f:
                old = json.load(f)
            rows = {r["name"]: r for r in old.get("mutations", [])}
        except (OSError, ValueError, KeyError):
            rows, old = {}, {}
    for r in new:
        rows[r["name"]] = r
    order = {m.name: i for i, m in enumerate(muts)}
    rows = sorted((r for r in rows.values() if r["name"] in known),
                  key=lambda r: order[r["name"]])
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}
    doc = {"arch": arch, "flavour": flavour, "kind": kind, "date": now, "commit": commit,
           "dirty": dirty, "baseline": base, "counts": counts, "mutations": rows}
    if old:
        # Some mutations run again: the run stays the one recorded (a full
        # run in sittings keeps its sittings, inputs and "finished"), with
        # the date of each update (each record has its own date and commit).
        # Only the counts and the verdicts are this merge's.
        doc = {**old, "counts": counts, "mutations": rows,
               "updated": old.get("updated", []) + [now]}
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, out)
    # this run's counts, for mutate.sh's last line
    c = {v: sum(1 for r in new if r["verdict"] == v) for v in VERDICTS}
    print(", ".join(f"{c[v]} {v}" for v in VERDICTS if c[v] or v in ("killed", "survived")))
    return 0


# A full run in sittings (mutate.sh --resume): its verdicts so far live in
# docs/mutations/progress-ARCH[-F].json, committed between sittings, so that a
# run longer than a sitting, or than a machine's life, still measures every
# mutation against one commit's inputs. Those inputs are every file outside
# docs/: a sitting goes on only at a commit whose files outside docs/ are the
# first sitting's, with none changed in the working tree; the finished record
# names the first sitting's commit for every verdict.
def _load(path):
    with open(path) as f:
        return json.load(f)


def _write(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def _now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class GitError(Exception):
    pass


def _git_z(*args):
    """git ARGS' NUL-separated names; GitError when git fails (a missing
    object, no repository): never taken for "nothing changed"."""
    r = subprocess.run(["git", "-C", REPO, *args], capture_output=True)
    if r.returncode:
        raise GitError(f"git {' '.join(args[:2])}: {r.stderr.decode(errors='replace').strip()}")
    return [x for x in r.stdout.decode(errors="replace").split("\0") if x]


def _inputs_changed(since):
    """The files outside docs/ that differ between commit SINCE and the
    working tree (committed or not, untracked included)."""
    spec = ["--", ".", ":(exclude)docs"]
    changed = set(_git_z("diff", "--name-only", "-z", since, *spec))
    changed |= set(_git_z("ls-files", "-z", "--others", "--exclude-standard", *spec))
    return sorted(changed)


def _resumable(d, env):
    """Why the run in sittings D cannot go on here with ENV, or "" if it can:
    its first commit must be HEAD or an ancestor of it (so the record names a
    commit of the branch), every file outside docs/ as at that commit, and
    what the sittings ran with outside the repository (ENV: the kernel
    source package, the compilers, QEMU, the time limit) the same."""
    start = d.get("commit", "")
    def run(*args):
        return subprocess.run(["git", "-C", REPO, *args], capture_output=True, text=True)

    if run("merge-base", "--is-ancestor", start, "HEAD").returncode:
        return (f"its first sitting's commit {start[:12]} is not HEAD or an ancestor of it "
                "(history rewritten, or another branch)")
    try:
        changed = _inputs_changed(start)
    except GitError as e:
        return f"cannot compare the tree with {start[:12]}: {e}"
    if changed:
        more = f" (+{len(changed) - 5})" if len(changed) > 5 else ""
        return (f"since its first sitting ({start[:12]}) {', '.join(changed[:5])}{more} changed; "
                "its verdicts would not be about one commit")
    first = (d.get("sittings") or [{}])[0].get("env")
    if env is not None and first is not None and first != env:
        diff = [f"{k}: {first.get(k)!r} then, {env.get(k)!r} now"
                for k in sorted(set(first) | set(env)) if first.get(k) != env.get(k)]
        return "its first sitting ran with other tools: " + "; ".join(diff)
    return ""


def progress(args):
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    sub, path = args[0], args[1]
    rel = os.path.relpath(path, REPO)
    if sub == "check" and len(args) == 3:
        env = json.loads(args[2])
        if not os.path.exists(path):
            try:
                changed = _inputs_changed("HEAD")
            except GitError as e:
                print(f"mutations: a run in sittings starts at a commit: {e}", file=sys.stderr)
                return 1
            if changed:
                print(f"mutations: a run in sittings starts at a commit, with no file outside docs/ "
                      f"changed: {', '.join(changed)}", file=sys.stderr)
                return 1
            print("new")
            return 0
        d = _load(path)
        why = _resumable(d, env)
        if why:
            print(f"mutations: not resuming {rel}: {why}. Measure at that commit with those tools, "
                  "or remove the file to start again", file=sys.stderr)
            return 1
        print(f"resume {d['commit']} {len(d.get('mutations', []))}")
        return 0
    if sub == "sitting" and len(args) == 6:
        arch, flavour, base, env = args[2], args[3], args[4], json.loads(args[5])
        head = git("rev-parse", "HEAD")
        d = _load(path) if os.path.exists(path) else {
            "arch": arch, "flavour": flavour, "kind": "full", "commit": head,
            "inputs": "every file outside docs/", "sittings": [], "mutations": []}
        d["sittings"].append({"commit": head, "date": _now(), "baseline": base, "env": env,
                              "verdicts": 0})
        _write(path, d)
        return 0
    if sub == "add" and len(args) == 3:
        d = _load(path)
        # Again before each verdict is kept (the mutated file restored): a
        # change made while the sitting ran is not recorded as the first
        # commit's.
        why = _resumable(d, None)
        if why:
            print(f"mutations: not keeping the last verdict in {rel}: {why}", file=sys.stderr)
            return 1
        head = git("rev-parse", "HEAD")
        with open(args[2]) as f:
            new = [json.loads(line) for line in f if line.strip()]
        rows = {r["name"]: r for r in d["mutations"]}
        added = 0
        for r in new:
            if r["name"] in rows:
                continue
            added += 1
            r["decision"] = decision(r["file"])
            r["commit"] = d["commit"]
            if head != d["commit"]:
                r["head"] = head
            r["date"] = _now()
            rows[r["name"]] = r
        d["mutations"] = list(rows.values())
        d["sittings"][-1]["verdicts"] += added
        _write(path, d)
        return 0
    if sub == "finish" and len(args) == 3:
        d = _load(path)
        why = _resumable(d, None)
        if why:
            print(f"mutations: not finishing {rel}: {why}", file=sys.stderr)
            return 1
        muts, _ = parse()
        order = {m.name: i for i, m in enumerate(muts)}
        rows = sorted((r for r in d["mutations"] if r["name"] in order),
                      key=lambda r: order[r["name"]])
        missing = [m.name for m in muts if m.name not in {r["name"] for r in rows}]
        if missing:
            print(f"mutations: {rel} lacks {', '.join(missing)}", file=sys.stderr)
            return 1
        sit = d["sittings"]
        base = "; ".join(f"{s['baseline']} (sitting {i + 1}, {s['commit'][:12]})"
                         for i, s in enumerate(sit))
        counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICTS}
        # not dirty: _resumable() found every file outside docs/ as committed.
        # Dated when the run began (its first sitting) and when its last
        # verdict was kept, not when this finish ran (maybe a sitting later).
        _write(args[2], {"arch": d["arch"], "flavour": d["flavour"], "kind": "full",
                         "date": sit[0]["date"], "finished": run_end(d),
                         "commit": d["commit"], "dirty": False,
                         "baseline": base, "inputs": d["inputs"], "sittings": sit,
                         "counts": counts, "mutations": rows})
        os.remove(path)
        print(", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v] or v in ("killed", "survived"))
              + f", in {len(sit)} sitting{'s' if len(sit) != 1 else ''}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


def run_end(d):
    """When the run in sittings D ended: the date its last verdict was kept
    (an older record has no "finished"), or its date if it has none."""
    return d.get("finished") or max((r["date"] for r in d.get("mutations", []) if r.get("date")),
                                    default=d.get("date", "?"))


def run_dates(d):
    """'of DATE', or 'of BEGIN to END' for a run in sittings."""
    sit = d.get("sittings", [])
    if len(sit) < 2:
        return f"of {d.get('date', '?')}"
    return f"of {sit[0]['date']} to {run_end(d)}"


def rate(rows):
    """Killed of the (record, file) ROWS run and measured at their file's
    present text; the others are named, not counted."""
    ran = [(r, f) for r, f in rows if r["verdict"] not in ("skipped", "equivalent")]
    cur = [r for r, f in ran if standing(r, f)[0] == "current"]
    k = sum(1 for r in cur if r["verdict"] == "killed")
    out = f"{k}/{len(cur)} ({100 * k // len(cur)}%)" if cur else "-"
    old = len(ran) - len(cur)
    return out + (f", {old} not current" if old else "")


def report(args):
    out = os.path.join(REPO, "docs", "mutations.md")
    paths = []
    it = iter(args)
    for a in it:
        if a == "--out":
            out = next(it)
        else:
            paths.append(a)
    if not paths:
        paths = sorted(glob.glob(os.path.join(REPO, "docs", "mutations", "mutate-*.json")))
    runs = []
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        label = d["arch"] + (f"-{d['flavour']}" if d.get("flavour") else "")
        runs.append((label, d, {r["name"]: r for r in d.get("mutations", [])}))
    runs.sort(key=lambda r: (ARCHES.index(r[1]["arch"]) if r[1]["arch"] in ARCHES else 9, r[0]))
    muts, errs = parse()
    groups = {}
    for m in muts:
        groups.setdefault(decision(m.file), []).append(m)
    order = [d for d, _ in DECISIONS] + ["other"]
    labels = [r[0] for r in runs]

    def cell(res, m):
        r = res.get(m.name)
        if r is None:
            return "equivalent" if m.equivalent else "not run"
        v = r["verdict"]
        if v in ("skipped", "equivalent"):
            return v
        state, last = standing(r, m.file)
        at = f"{v} at `{(r.get('commit') or '?')[:7]}`"
        if state == "current":
            return at
        if state == "reconstructed":
            return f"{at}, reconstructed"
        if state == "stale":
            return f"**stale**: {at}, file changed at `{last[:7]}`"
        return f"**unknown**: {at}, commit not in this clone"

    L = ["# Mutation testing", "",
         "Generated by `scripts/mutations-report.py` from the records of `make mutate`",
         "(`docs/mutations/mutate-ARCH[-FLAVOUR].json`, kept in the repository so that a run",
         "on a new machine adds to the verdicts of earlier runs); do not edit. Each mutation of",
         "`scripts/mutations.txt` breaks one rule; a KUnit failure (a failed or crashed",
         "case, a kernel splat, a suite that did not run) kills it. The kill rate is",
         "killed of the mutations run (skipped and equivalent ones are not run).", "",
         "Each verdict names the commit it was measured at. It counts only while it is",
         "current: its file has not changed since that commit. A verdict measured before",
         "its file's last change is **stale**; one *reconstructed* from an old report, when",
         "the run's own record was lost, is not a measurement. Neither counts in the kill",
         "rate. `make mutate ARCH=all STALE=1` measures again every mutation without a",
         "current verdict; `make mutate ARCH=all` measures them all at one commit, and",
         "`make mutate ARCH=A RESUME=1` does so in sittings, each going on only where every",
         "file outside docs/ is as at the first sitting's commit (that commit is then every",
         "verdict's).", ""]
    if not runs:
        L += ["No run recorded yet: `make mutate ARCH=all`.", ""]
    def run_base(d):
        # The kernel source the run's kernels were built from (every sitting's, in order).
        bases = dict.fromkeys(b for x in d.get("sittings", [])
                              if (b := (x.get("env") or {}).get("linux-source-6.12")))
        return f", on linux-source-6.12 {' then '.join(bases)}" if bases else ""

    for label, d, res in runs:
        c = d.get("counts", {})
        L.append(f"- {label}: {d.get('kind', '?')} run {run_dates(d)} at "
                 f"{(d.get('commit') or 'unknown')[:12]}{' (uncommitted changes)' if d.get('dirty') else ''}"
                 f", baseline {d.get('baseline') or '?'}"
                 + (f", in {len(d['sittings'])} sittings at "
                    + ", ".join(dict.fromkeys(x["commit"][:12] for x in d["sittings"]))
                    + f" ({d.get('inputs', 'every file outside docs/')} as at {d['commit'][:12]})"
                    if len(d.get("sittings", [])) > 1 else "")
                 + (f", some mutations run again on {', '.join(d['updated'])}" if d.get("updated") else "")
                 + run_base(d)
                 + ": "
                 + ", ".join(f"{c.get(v, 0)} {v}" for v in VERDICTS if c.get(v)))
        st = {}
        commits = set()
        for m in muts:
            r = res.get(m.name)
            if m.equivalent or not m.applies_to(d["arch"]) or \
                    (r and r["verdict"] in ("skipped", "equivalent")):
                continue
            state = standing(r, m.file)[0]
            st[state] = st.get(state, 0) + 1
            if state == "current":
                commits.add((r.get("commit") or "?")[:7])
        L.append(f"  - verdicts: {st.get('current', 0)} current (measured at "
                 f"{len(commits)} commit{'s' if len(commits) != 1 else ''}), "
                 f"{st.get('stale', 0)} stale, {st.get('reconstructed', 0)} reconstructed"
                 + (f", {st['unknown']} at commits not in this clone" if st.get("unknown") else "")
                 + (f", {st['missing']} not run" if st.get("missing") else ""))
    under_way = sorted(glob.glob(os.path.join(REPO, "docs", "mutations", "progress-*.json")))
    for p in under_way:
        d = _load(p)
        label = d["arch"] + (f"-{d['flavour']}" if d.get("flavour") else "")
        todo = [m for m in muts if not m.equivalent and m.applies_to(d["arch"])]
        done = {r["name"] for r in d.get("mutations", [])}
        sit = d.get("sittings", [])
        L.append(f"- {label}: a full run in sittings, begun at {d.get('commit', '?')[:12]}"
                 f" on {sit[0]['date'] if sit else '?'}{run_base(d)}: {sum(1 for m in todo if m.name in done)}"
                 f" of {len(todo)} mutations measured in {len(sit)} sitting"
                 f"{'s' if len(sit) != 1 else ''} (`{os.path.relpath(p, REPO)}`); its verdicts "
                 + ("replace the run above" if label in labels else "count")
                 + " when it is done (`make mutate ARCH="
                 f"{d['arch']}{' FLAVOR=' + d['flavour'] if d.get('flavour') else ''} RESUME=1`)")
    if runs or under_way:
        L.append("")
    L += ["## Kill rate", "", "| decision | " + " | ".join(labels or ["-"]) + " |",
          "|---|" + "---|" * max(1, len(labels))]
    for g in order + ["overall"]:
        ms = muts if g == "overall" else groups.get(g, [])
        if not ms:
            continue
        cells = [rate([(res[m.name], m.file) for m in ms if m.name in res]) for _, _, res in runs]
        name = "**overall**" if g == "overall" else g
        L.append(f"| {name} | " + " | ".join(cells or ["-"]) + " |")
    L.append("")
    for g in order:
        if g not in groups:
            continue
        L += [f"## {g}", "", "| mutation | file | " + " | ".join(labels or ["verdict"])
              + " | killed by |", "|---|---|" + "---|" * (max(1, len(labels)) + 1)]
        for m in groups[g]:
            cells = [cell(res, m) for _, _, res in runs] or ["equivalent" if m.equivalent else "not run"]
            killers = []
            for label, _, res in runs:
                r = res.get(m.name)
                if r and r.get("killed_by"):
                    k = r["killed_by"][0].replace("|", "\\|")
                    more = len(r["killed_by"]) - 1
                    killers.append(f"{label}: `{k}`" + (f" (+{more})" if more else ""))
            tag = f" [{m.arch}]" if m.arch else ""
            why = f" (equivalent: {m.equivalent})" if m.equivalent else ""
            L.append(f"| {m.name}{tag} | `{m.file}` | " + " | ".join(cells) + " | "
                     + ("; ".join(killers) or why.strip(" ()") or "-") + " |")
        L.append("")
    eq = [m for m in muts if m.equivalent]
    L += ["## Equivalent mutations", ""]
    L += [f"- {m.name} (`{m.file}`): {m.equivalent}" for m in eq] or ["None."]
    L.append("")
    with open(out, "w") as f:
        f.write("\n".join(L))
    print(f"mutations: wrote {os.path.relpath(out, REPO)} ({len(runs)} runs: {', '.join(labels) or 'none'})")
    return 0


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "check":
        return check()
    if cmd == "plan":
        return plan(args)
    if cmd == "apply" and len(args) == 1:
        return apply(args[0])
    if cmd == "baseline" and len(args) == 1:
        return baseline(args[0])
    if cmd == "result" and len(args) >= 6:
        return result(args)
    if cmd == "verdict" and len(args) == 3:
        v, k = verdict(args[0], args[1], int(args[2]))
        print(f"{v}\t{json.dumps(k)}")
        return 0
    if cmd == "record" and len(args) >= 5:
        return record(args)
    if cmd == "report":
        return report(args)
    if cmd == "progress":
        return progress(args)
    if cmd == "freshness" and len(args) == 3:
        state, last = freshness(*args)
        print(f"{state}\t{last}")
        return 0 if state == "current" else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
