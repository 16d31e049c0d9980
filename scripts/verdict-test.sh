#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# verdict-test.sh: host test that no judge of a kernel log passes a run it
# should fail. With a fake qemu-system-x86_64 that prints a console log:
#
# - every pattern of scripts/splats.txt has a realistic example line in
#   scripts/testdata/splat-examples.txt, which grep -E and Python's re both
#   match; scripts/testdata/console-clean.log (a clean boot, our programs'
#   output, KUnit lines) matches none, and neither does any string literal
#   of userspace/ (but provoke.c, which waits for the kernel's own
#   splat lines), kunit/, mm-rs/ or rust/kernel/;
# - boot.sh passes the clean log and fails it with each example line in it,
#   with a guest program that exited non-zero, and without "mmrs-init: done";
# - stress.sh (MMRS_STRESS_PREBUILT=1: no kernel or initramfs build) passes
#   the clean log with "passed" as the last line of its stress-ARCH.txt, and
#   for each example line, a stress program that exited 1 and one that never
#   ran, exits non-zero with a last line that says FAILED; in every case its
#   exit status and that last line agree;
# - kunit-check.py passes a clean raw log and fails each example line in it.
# Used by make lint.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
D="$REPO/scripts/testdata"
tmp=$(mktemp -d)
fake=lint-fake-$$
img="$REPO/build/image-x86_64-$fake"
trap 'rm -rf "$tmp" "$img"' EXIT
mkdir -p "$tmp/bin" "$tmp/results" "$img/arch/x86/boot"
: > "$img/arch/x86/boot/bzImage"
: > "$tmp/initrd"
cat > "$tmp/bin/qemu-system-x86_64" <<'EOS'
#!/bin/bash
cat "$FAKE_LOG"
EOS
chmod +x "$tmp/bin/qemu-system-x86_64"

rc=0
fail() { echo "verdict-test: $*" >&2; rc=1; }

# The list, its examples, the clean log and our programs' strings.
mapfile -t pats < <(grep -vE '^(#|$)' "$REPO/scripts/splats.txt")
[ ${#pats[@]} -gt 0 ] || { echo "verdict-test: no patterns in scripts/splats.txt" >&2; exit 1; }
# For each pattern (one a line, in list order), the example that matches the
# fewest other patterns.
python3 - "$REPO" > "$tmp/examples" <<'EOP' || rc=1
import glob, os, re, subprocess, sys
repo = sys.argv[1]
pats = [l.rstrip("\n") for l in open(f"{repo}/scripts/splats.txt") if l.strip() and not l.startswith("#")]
examples = [l.rstrip("\n") for l in open(f"{repo}/scripts/testdata/splat-examples.txt") if l.strip()]
clean = open(f"{repo}/scripts/testdata/console-clean.log").read().splitlines()
bad = 0
def err(msg):
    global bad
    print(f"verdict-test: {msg}", file=sys.stderr)
    bad = 1
def grep(pat, lines):
    r = subprocess.run(["grep", "-aE", "-e", pat], input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    if r.returncode > 1:
        err(f"grep -E rejects the pattern {pat!r}: {r.stderr.strip()}")
    return set(r.stdout.splitlines())
res = []
for p in pats:
    try:
        res.append(re.compile(p))
    except re.error as e:
        err(f"Python's re rejects the pattern {p!r}: {e}")
        res.append(re.compile(r"(?!)"))
for p, r in zip(pats, res):
    py = {e for e in examples if r.search(e)}
    if py != grep(p, examples):
        err(f"grep -E and Python's re disagree on the examples of {p!r}")
    if not py:
        err(f"no example in scripts/testdata/splat-examples.txt for {p!r}")
        print("")
        continue
    print(min(sorted(py), key=lambda e: sum(1 for q in res if q.search(e))))
    hit = {c for c in clean if r.search(c)} | grep(p, clean)
    for c in sorted(hit):
        err(f"the clean log matches {p!r}: {c}")
for e in examples:
    if not any(r.search(e) for r in res):
        err(f"an example no pattern matches: {e}")
# What our own programs and tests print, as far as their string literals go.
lit = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
files = [f for g in ("userspace/**/*.c", "userspace/**/*.h", "userspace/**/*.sh", "kunit/*.c",
                     "kunit/*.h", "mm-rs/**/*.c", "mm-rs/**/*.rs", "rust/kernel/mm.rs",
                     "rust/kernel/mm/**/*.rs")
         for f in glob.glob(os.path.join(repo, g), recursive=True)]
# provoke waits for the kernel's splat lines, so it names them: it prints
# none itself (scripts/verdict-boot.sh requires the kernel's).
files = [f for f in files if os.path.relpath(f, repo) != "userspace/provoke.c"]
for f in sorted(set(files)):
    for n, line in enumerate(open(f, errors="replace"), 1):
        s = line.strip()
        if s.startswith(("//", "*", "/*")) or (s.startswith("#") and not s.startswith("#define")):
            continue
        for m in lit.finditer(line):
            for p, r in zip(pats, res):
                if r.search(m.group(1)):
                    err(f"{os.path.relpath(f, repo)}:{n}: prints a splat ({p!r}): \"{m.group(1)}\"")
sys.exit(bad)
EOP
mapfile -t ex < "$tmp/examples"
[ ${#ex[@]} = ${#pats[@]} ] || { echo "verdict-test: ${#ex[@]} examples for ${#pats[@]} patterns" >&2; exit 1; }

# mklog NAME [EXAMPLE] [SED]: the clean log with EXAMPLE after the boot's
# "Run /init" line, edited by SED; prints its path.
mklog() {
	local f="$tmp/$1.log"
	if [ -n "${2:-}" ]; then
		awk -v ex="$2" '{ print } /Run \/init as init process/ { print ex }' "$D/console-clean.log" > "$f"
	else
		cp "$D/console-clean.log" "$f"
	fi
	[ -n "${3:-}" ] && sed -i -e "$3" "$f"
	echo "$f"
}
# boot LOG: boot.sh on the fake guest; prints its exit status
boot() {
	PATH="$tmp/bin:$PATH" FAKE_LOG=$1 MMRS_LOG="$tmp/boot.log" MMRS_INITRD="$tmp/initrd" \
		"$REPO/scripts/boot.sh" x86_64 "$fake" stress:60 30 >/dev/null 2>"$tmp/boot.err"
	echo $?
}
# stress LOG: stress.sh on it; sets src (exit status) and last (its verdict line)
stress() {
	rm -f "$tmp/results/stress-x86_64.txt"
	PATH="$tmp/bin:$PATH" FAKE_LOG=$1 MMRS_STRESS_PREBUILT=1 MMRS_RESULTS="$tmp/results" \
	MMRS_INITRD="$tmp/initrd" \
		"$REPO/scripts/stress.sh" x86_64 60 "$fake" >/dev/null 2>"$tmp/stress.err"
	src=$?
	last=$(tail -n 1 "$tmp/results/stress-x86_64.txt" 2>/dev/null)
	# the exit status and the verdict line must agree, whatever the case
	case "$src:$last" in
	"0:stress x86_64 $fake: passed") ;;
	[1-9]*:"stress x86_64 $fake: FAILED"*) ;;
	*) fail "stress.sh exited $src with the verdict line '$last'" ;;
	esac
}
# kcheck LOG: kunit-check.py on a passing JSON and LOG; prints its exit status
cat > "$tmp/kunit.json" <<'EOF'
{"name": "main", "status": "PASS", "test_cases": [], "sub_groups": [
 {"name": "mm_rs_anon_fault", "status": "PASS", "sub_groups": [], "test_cases": [
  {"name": "unstable_mm_sigbus", "status": "PASS"},
  {"name": "install_refuses_no_anon_vma", "status": "PASS"}]}]}
EOF
printf '# expect-suite: mm_rs_anon_fault 2\n' > "$tmp/test.kunitconfig"
kcheck() {
	python3 "$REPO/scripts/kunit-check.py" "$tmp/kunit.json" "$1" "$tmp/test.kunitconfig" >/dev/null 2>&1
	echo $?
}

# The clean log passes every judge.
clean=$(mklog clean)
[ "$(boot "$clean")" = 0 ] || fail "boot.sh fails the clean log: $(cat "$tmp/boot.err")"
stress "$clean"
[ "$src" = 0 ] || fail "stress.sh fails the clean log (exit $src): $(cat "$tmp/stress.err")"
[ "$(kcheck "$clean")" = 0 ] || fail "kunit-check.py fails the clean log"

# Each splat fails each judge.
for i in "${!pats[@]}"; do
	p=${pats[$i]} e=${ex[$i]}
	[ -n "$e" ] || continue
	log=$(mklog "splat-$i" "$e")
	[ "$(boot "$log")" = 1 ] || fail "boot.sh passes a log with $p: $e"
	grep -qF -- "${e#\[*\] }" "$tmp/boot.err" || fail "boot.sh does not print the splat $e"
	stress "$log"
	[ "$src" != 0 ] && [[ $last == *": FAILED"* ]] ||
		fail "stress.sh passes a log with $p (exit $src, '$last'): $e"
	[ "$(kcheck "$log")" = 1 ] || fail "kunit-check.py passes a raw log with $p: $e"
done

# A guest program that failed, one that never ran, a guest that did not finish.
log=$(mklog stress-failed "" 's/^mmrs-init: stress exited 0/mmrs-init: stress exited 1/')
[ "$(boot "$log")" = 1 ] || fail "boot.sh passes a guest program that exited 1"
stress "$log"
[ "$src" != 0 ] || fail "stress.sh passes a stress program that exited 1"
log=$(mklog stress-not-run "" '/^mmrs-init: stress exited/d')
stress "$log"
[ "$src" != 0 ] || fail "stress.sh passes a boot in which stress never ran"
log=$(mklog not-done "" '/^mmrs-init: done/d')
[ "$(boot "$log")" = 1 ] || fail "boot.sh passes a guest that did not finish"
stress "$log"
[ "$src" != 0 ] || fail "stress.sh passes a guest that did not finish"
# kunit-check.py: a failed case fails a clean log too.
sed -i '0,/"PASS"}/s/"PASS"}/"FAIL"}/' "$tmp/kunit.json"
[ "$(kcheck "$clean")" = 1 ] || fail "kunit-check.py passes a failed case"

[ $rc = 0 ] && echo "verdict-test: ok (${#pats[@]} splat patterns; boot.sh, stress.sh, kunit-check.py)"
exit $rc
