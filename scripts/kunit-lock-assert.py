#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""No KUnit abort while a lock is held.

A failed KUNIT_ASSERT_*() (or kunit_skip()) ends the test case's kthread at
once. A lock it holds then stays held: the case's cleanup (kunit_vm_mmap()'s
mmput() and exit_mmap() take the mmap lock) and every later case of the suite
wait for it, and the suite dies at KUnit's timeout instead of failing fast.
A mutation run then costs 900 s a case instead of seconds.

This finds, in each function of the given C files, an aborting assertion, or
a call of a function of the same file that can abort (directly or through
other such calls), made while the function holds a lock it took itself:
mmap_{read,write}_lock, spin_lock*, mutex_lock, down_{read,write},
folio_lock, lock_page, rcu_read_lock. It reads the text token by token: a
lock released in a block that then leaves the function (return, goto) is
still held after the block; otherwise a lock taken in one branch and released
in another is counted as if both ran, which the suites do not do.

  scripts/kunit-lock-assert.py FILE...    exit 1 and one line a finding
"""
import re
import sys

ABORT = re.compile(r'\b(KUNIT_ASSERT\w*|KUNIT_FAIL_AND_ABORT|kunit_skip|KUNIT_SKIP)\s*\(')
LOCK = re.compile(r'\b(mmap_read_lock|mmap_write_lock|mmap_read_lock_killable|'
                  r'mmap_write_lock_killable|spin_lock|spin_lock_irq|spin_lock_irqsave|'
                  r'spin_lock_bh|mutex_lock|down_read|down_write|folio_lock|lock_page|'
                  r'rcu_read_lock)\s*\(')
UNLOCK = re.compile(r'\b(mmap_read_unlock|mmap_write_unlock|spin_unlock|spin_unlock_irq|'
                    r'spin_unlock_irqrestore|spin_unlock_bh|mutex_unlock|up_read|up_write|'
                    r'folio_unlock|unlock_page|rcu_read_unlock)\s*\(')
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
TOKEN = re.compile(r'[{}]|\b(?:return|goto)\b|\b[A-Za-z_]\w*\s*\(')


def strip(line):
    """The line without // comments and string literals."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    return line.split('//', 1)[0]


def functions(text):
    """(name, first line number, body lines) of each top-level function."""
    lines = text.split('\n')
    # comments out, line count kept
    joined = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    lines = [strip(l) for l in joined.split('\n')]
    out, depth, header, body, start = [], 0, [], [], 0
    for n, line in enumerate(lines, 1):
        opens, closes = line.count('{'), line.count('}')
        if depth == 0:
            header.append(line)
            if opens:
                h = ' '.join(header)
                m = re.search(r'([A-Za-z_]\w*)\s*\([^;]*$', h.split('{')[0])
                name = m.group(1) if m and '=' not in h.split('(')[0] else None
                body, start = [], n
                depth += opens - closes
                if depth == 0:
                    header = []
                    continue
                cur = name
                continue
            if ';' in line or line.strip().startswith('#'):
                header = []
            continue
        depth += opens - closes
        body.append((n, line))
        if depth <= 0:
            depth = 0
            if cur:
                out.append((cur, start, body))
            header, cur = [], None
    return out


def check(path):
    text = open(path, encoding='utf-8').read()
    funcs = functions(text)
    names = {f[0] for f in funcs}
    aborting = {f[0] for f in funcs if any(ABORT.search(l) for _, l in f[2])}
    changed = True
    while changed:
        changed = False
        for name, _, body in funcs:
            if name in aborting:
                continue
            if any(c in aborting for _, l in body for c in CALL.findall(l)):
                aborting.add(name)
                changed = True
    found = []
    for name, _, body in funcs:
        held = []
        # one frame a brace block: the locks its unlocks released, and whether
        # it leaves the function (return, goto): if it does, code after the
        # block still holds them ("if (!x) { unlock; return; }")
        blocks = [([], False)]
        for n, line in body:
            for m in TOKEN.finditer(line):
                tok = m.group(0)
                if tok == '{':
                    blocks.append(([], False))
                elif tok == '}':
                    if len(blocks) > 1:
                        released, jumps = blocks.pop()
                        if jumps:
                            held.extend(reversed(released))
                elif tok in ('return', 'goto'):
                    blocks[-1] = (blocks[-1][0], True)
                elif ABORT.match(tok):
                    if held:
                        found.append(f'{path}:{n}: {name}(): aborting assertion with '
                                     f'{held[-1]} held')
                elif LOCK.match(tok):
                    held.append(f'{LOCK.match(tok).group(1)}() of line {n}')
                elif UNLOCK.match(tok):
                    if held:
                        blocks[-1][0].append(held.pop())
                else:
                    c = CALL.match(tok).group(1)
                    if held and c in aborting and c in names and c != name:
                        found.append(f'{path}:{n}: {name}(): {c}() can abort with '
                                     f'{held[-1]} held')
    return found


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    found = [f for p in sys.argv[1:] for f in check(p)]
    for f in found:
        print(f)
    if found:
        print(f'kunit-lock-assert: {len(found)} aborting assertion(s) under a lock: '
              'assert after the unlock (record, unlock, then assert)', file=sys.stderr)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
