#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# boot-retry-test.sh: host test of boot.sh's one rerun after QEMU TCG's stale
# INT3 (scripts/tcg-stale-int3.py), with a fake qemu-system-x86_64 that
# prints a console log of scripts/testdata/ per call, and a stand-in vmlinux
# (scripts/testdata/fake-vmlinux.S). Checks the classifier on each log, that
# a stale INT3 is booted once more and passes, that it is rerun only once, and
# that an INT3 of the image (padding), one off the static branch sites and an
# oops before the INT3 are not rerun; and that a guest hung after a splat is
# stopped MMRS_SPLAT_GRACE seconds after it. Used by make lint.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
D="$REPO/scripts/testdata"
tmp=$(mktemp -d)
fake=lint-fake-$$
img="$REPO/build/image-x86_64-$fake"
trap 'rm -rf "$tmp" "$img"' EXIT
mkdir -p "$tmp/bin" "$img/arch/x86/boot"
: > "$img/arch/x86/boot/bzImage"
gcc -nostdlib -static -no-pie -Wl,-e,sched_clock_tick -o "$img/vmlinux" "$D/fake-vmlinux.S" ||
	{ echo "boot-retry-test: cannot assemble $D/fake-vmlinux.S" >&2; exit 1; }
: > "$tmp/initrd"
cat > "$tmp/bin/qemu-system-x86_64" <<'EOS'
#!/bin/bash
# prints the fixtures named in $FAKE_LOGS in turn, one per call
n=$(cat "$FAKE_DIR/calls" 2>/dev/null || echo 0)
echo $((n + 1)) > "$FAKE_DIR/calls"
set -- $FAKE_LOGS
shift "$n" 2>/dev/null
f=${1:-ok}
case "$f" in
ok) echo "mmrs-init: done" ;;
# a kernel that complains, then hangs (or only hangs): this process,
# recorded, stays until it is signalled
splat-hang) echo "[    1.000000] kernel BUG at mm/memory.c:1234!"
	echo $$ > "$FAKE_DIR/qemu.pid"; exec sleep 300 ;;
hang) echo $$ > "$FAKE_DIR/qemu.pid"; exec sleep 300 ;;
*) cat "$FAKE_FIXTURES/$f" ;;
esac
EOS
chmod +x "$tmp/bin/qemu-system-x86_64"

rc=0
fail() { echo "boot-retry-test: $*" >&2; rc=1; }

# classifier: only an INT3 on a static branch site is QEMU's
for f in oops-int3-stale.log oops-int3-stale-flipkey.log; do
	python3 "$REPO/scripts/tcg-stale-int3.py" "$D/$f" "$img/vmlinux" >/dev/null ||
		fail "tcg-stale-int3.py does not recognise $f"
done
sites=$(python3 - "$REPO/scripts/tcg-stale-int3.py" "$img/vmlinux" <<'EOP'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("t", sys.argv[1])
t = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t)
img = t.Image(sys.argv[2])
want = {img.symbol("sched_clock_tick") + 0x12, img.symbol("task_tick_fair") + 0x85}
print("ok" if img.patch_sites() == want else sorted(hex(a) for a in img.patch_sites()))
EOP
)
[ "$sites" = ok ] || fail "the static branch sites of fake-vmlinux.S read as $sites"
for f in oops-int3-padding.log oops-int3-not-a-site.log oops-bug-then-int3.log; do
	! python3 "$REPO/scripts/tcg-stale-int3.py" "$D/$f" "$img/vmlinux" >/dev/null ||
		fail "tcg-stale-int3.py takes $f for QEMU's stale INT3"
done

# run LOGS [TIMEOUT]: boots the fake guest; sets brc, calls and secs
run() {
	local t0=$SECONDS
	rm -f "$tmp/calls" "$tmp"/boot.log* "$tmp/tcg-stale-int3.txt" "$tmp/qemu.pid"
	PATH="$tmp/bin:$PATH" FAKE_DIR=$tmp FAKE_FIXTURES=$D FAKE_LOGS=$1 \
	MMRS_LOG="$tmp/boot.log" MMRS_INITRD="$tmp/initrd" \
		"$REPO/scripts/boot.sh" x86_64 "$fake" demo "${2:-30}" >/dev/null 2>"$tmp/err"
	brc=$?
	calls=$(cat "$tmp/calls" 2>/dev/null || echo 0)
	secs=$(( SECONDS - t0 ))
}
# gone: the fake QEMU of the last run is no longer running
gone() { ! kill -0 "$(cat "$tmp/qemu.pid")" 2>/dev/null; }
run "oops-int3-stale-flipkey.log ok"
[ "$brc" = 0 ] && [ "$calls" = 2 ] && [ -f "$tmp/boot.log.tcg-stale-int3" ] &&
	grep -q 'task_tick_fair+0x86' "$tmp/tcg-stale-int3.txt" ||
	fail "a stale INT3 then a good boot: exit $brc after $calls boots (want 0 after 2, first log kept, event counted)"
run "oops-int3-stale.log oops-int3-stale.log ok"
[ "$brc" = 1 ] && [ "$calls" = 2 ] ||
	fail "two stale INT3s: exit $brc after $calls boots (want 1 after 2)"
for f in oops-int3-padding.log oops-int3-not-a-site.log oops-bug-then-int3.log; do
	run "$f ok"
	[ "$brc" = 1 ] && [ "$calls" = 1 ] ||
		fail "$f: exit $brc after $calls boots (want 1 after 1)"
done
# a failure says where the kernel was
run "oops-int3-padding.log"
grep -qx 'RIP: 0010:sched_clock_tick+0x1b/0x20' "$tmp/err" ||
	fail "boot.sh does not print the RIP line of a failed boot"
run "ok"
[ "$brc" = 0 ] && [ "$calls" = 1 ] || fail "a good boot: exit $brc after $calls boots (want 0 after 1)"

# A guest that complains and hangs is stopped MMRS_SPLAT_GRACE seconds after
# the complaint, not at the boot's time limit, and fails naming it; with 0 it
# runs to the limit; a guest that hangs without complaining runs to the limit.
MMRS_SPLAT_GRACE=2 run splat-hang 60
{ [ "$brc" = 1 ] && [ "$secs" -lt 12 ] && gone &&
	grep -q 'stopped [0-9]*s after the kernel.s first complaint (MMRS_SPLAT_GRACE=2)' "$tmp/err" &&
	grep -q 'kernel BUG at mm/memory.c:1234' "$tmp/err"; } ||
	fail "a complaint then a hang, grace 2 s: exit $brc after ${secs}s: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
MMRS_SPLAT_GRACE=0 run splat-hang 6
{ [ "$brc" = 1 ] && [ "$secs" -ge 6 ] && gone && grep -q 'timed out after 6s' "$tmp/err"; } ||
	fail "a complaint then a hang, grace 0: exit $brc after ${secs}s: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
MMRS_SPLAT_GRACE=2 run hang 6
{ [ "$brc" = 1 ] && [ "$secs" -ge 6 ] && gone && grep -q 'timed out after 6s' "$tmp/err"; } ||
	fail "a hang without a complaint, grace 2 s: exit $brc after ${secs}s: $(head -n 2 "$tmp/err" | tr '\n' ' ')"
MMRS_SPLAT_GRACE=2x run ok
[ "$brc" = 2 ] && grep -q 'MMRS_SPLAT_GRACE=2x: want seconds' "$tmp/err" ||
	fail "MMRS_SPLAT_GRACE=2x: exit $brc: $(head -n 1 "$tmp/err")"
[ $rc = 0 ] && echo "boot-retry-test: ok"
exit $rc
