#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# verdict-boot.sh ARCH [FLAVOUR] [CLASS...]: on a real guest (default
# FLAVOUR prod-debug, the kernel of make stress and the stock stress tools),
# the kernel itself emits each class of splat the verdicts claim to catch,
# and each fails the verdict. userspace/provoke.c provokes them in one boot,
# each between "mmrs-provoke: begin NAME" and "... end NAME" records:
#
#   warn           a real WARN() (LKDTM WARNING)
#   vm-warn-folio  VM_WARN_ON_ONCE_FOLIO() (mm-rs's debugfs provoke file)
#   hung-task      the hung-task detector (LKDTM HUNG_TASK)
#   bug            BUG() (LKDTM BUG; the hung-task detector goes quiet
#                  after an oops, so it comes after hung-task)
#   soft-lockup    the soft-lockup detector (LKDTM SOFTLOCKUP)
#   hard-lockup    the hard-lockup detector (LKDTM HARDLOCKUP): the buddy
#                  detector, the one a TCG guest can run
#
# Passes when: the guest provoked every class asked for (default all); the
# part of the console log between each class's records holds that class's
# own line among the lines scripts/splats.sh calls splats (the judge of
# every boot); the WARN's call trace, logged at the default message level,
# reached the console (the console loglevel of scripts/splats.sh); nothing
# before the first provocation is a splat (a clean boot); and
# scripts/boot.sh failed the boot. Used by make test (x86_64, every class)
# and make check-full (both architectures).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: verdict-boot.sh ARCH [FLAVOUR] [CLASS...]}
flavour=${2:-prod-debug}
shift 2 2>/dev/null || shift $#
classes=("$@")
[ ${#classes[@]} -gt 0 ] || classes=(warn vm-warn-folio hung-task bug soft-lockup hard-lockup)
log="$REPO/build/results/verdict-$arch-$flavour.log"
"$REPO/scripts/image.sh" "$arch" "$flavour" >/dev/null || exit 1
initrd=$(MMRS_INITRAMFS_TAG=verdict "$REPO/scripts/initramfs.sh" "$arch") || exit 1
. "$REPO/scripts/splats.sh"

# The line of the kernel's own that each class must produce, as an
# extended regular expression on the splat lines of its part of the log.
declare -A sig=(
	[warn]='WARNING: CPU: .* at drivers/misc/lkdtm/'
	[vm-warn-folio]='WARNING: CPU: .* at mm/mm_rs/provoke\.c'
	[bug]='kernel BUG at drivers/misc/lkdtm/'
	[hung-task]='blocked for more than [0-9]+ seconds'
	[soft-lockup]='BUG: soft lockup'
	[hard-lockup]='Watchdog detected hard LOCKUP on cpu'
)
for c in "${classes[@]}"; do
	[ -n "${sig[$c]:-}" ] || { echo "verdict-boot: no class $c (${!sig[*]})" >&2; exit 2; }
done

progs=provoke
for c in "${classes[@]}"; do progs+=":$c"; done
# Three vCPUs: the soft lockup takes the last one for good, the hard lockup
# the one before it, and the buddy detector needs a CPU left to see it.
# MMRS_SPLAT_GRACE=0: the guest goes on past its first splat to provoke the
# others.
err=$(MMRS_SPLAT_GRACE=0 MMRS_SMP=3 MMRS_INITRD=$initrd MMRS_LOG=$log "$REPO/scripts/boot.sh" "$arch" "$flavour" "$progs" 600 2>&1 >/dev/null)
brc=$?
rc=0
fail() { echo "verdict-boot: $arch $flavour: $*; console log: ${log#$REPO/}" >&2; rc=1; }
grep -q "mmrs-provoke: all ${#classes[@]} provoked" "$log" ||
	fail "the guest did not provoke every class: $(grep -a 'mmrs-provoke: .*NOT\|^provoke:' "$log" | head -n 3 | tr '\n' ' ')"
seg=$(mktemp)
trap 'rm -f "$seg"' EXIT
for c in "${classes[@]}"; do
	awk -v b="mmrs-provoke: begin $c\$" -v e="mmrs-provoke: end $c\$" \
		'{ sub(/\r$/, "") } $0 ~ b { on = 1 } on { print } $0 ~ e { on = 0 }' "$log" > "$seg"
	if [ ! -s "$seg" ]; then
		fail "$c: no part of the log between its begin and end records"
		continue
	fi
	if ! splats=$(mm_rs_splats "$seg"); then
		fail "$c: the kernel's report of it is no splat to the verdict"
	elif ! grep -qE -- "${sig[$c]}" <<< "$splats"; then
		fail "$c: no splat line matches /${sig[$c]}/; the verdict saw: $(head -n 2 <<< "$splats" | tr '\n' ' ')"
	else
		echo "verdict-boot: $arch $flavour: $c: $(grep -m1 -E -- "${sig[$c]}" <<< "$splats" | sed 's/^\[ *[0-9.]*\] //')" >&2
	fi
	# A WARN's call trace is logged at the default message level: at a
	# console loglevel of 4 it would not be in the log.
	if [ "$c" = warn ] && ! grep -qE 'Call [Tt]race:' "$seg"; then
		fail "warn: its call trace never reached the console (console loglevel too low?)"
	fi
done
# A clean boot up to the first provocation.
awk '/mmrs-provoke: begin / { exit } { print }' "$log" > "$seg"
if before=$(mm_rs_splats "$seg"); then
	fail "the boot had splats before anything was provoked: $(head -n 3 <<< "$before" | tr '\n' ' ')"
fi
if [ "$brc" = 0 ]; then
	fail "boot.sh passed a console log full of splats"
elif ! grep -qE -- "${sig[${classes[0]}]}" <<< "$err"; then
	# (the guest ends with SysRq-b, so boot.sh may fail it as unfinished
	# first; either way it names the splats)
	fail "boot.sh failed, but not for the splats: $(head -n 3 <<< "$err" | tr '\n' ' ')"
fi
[ "$rc" = 0 ] && echo "verdict-boot: $arch $flavour: the kernel emitted ${classes[*]}; each failed the verdict, as it must"
exit $rc
