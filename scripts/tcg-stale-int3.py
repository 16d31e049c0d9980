#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcg-stale-int3.py CONSOLE_LOG VMLINUX [KPROBED...]: did an x86_64 guest die of QEMU's stale code?

x86 patches kernel text at run time (static keys, static calls) with
text_poke_bp(): bp_desc is published, an INT3 is written over the first
byte of each site, the other CPUs are synchronised, the tail is written, then
the first byte, each step followed by text_poke_sync(), and only then is
bp_desc retired.  A CPU that meets one of those INT3s is sent on by
poke_int3_handler(); no CPU can meet it once bp_desc is retired, because by
then no CPU can see it.

QEMU 7.2's multi-threaded TCG can run such an INT3 later: a vCPU that
translates the site while another vCPU patches it links a translation with
the INT3 in it, and every vCPU then runs that translation until the page is
written again.  If the patch is over by then, poke_int3_handler() declines
and the guest dies of "Oops: int3".  Seen here on x86_64 guests a few
seconds into the boot (sched_clock_tick(), whose static branch
sched_clock_init_late() flips while the timer tick runs on every vCPU), and
made at will by userspace/flipkey.c: 200 to 1500 flips of
kernel.numa_balancing, none with -accel tcg,thread=single.

The signature: the first oops of the log is "Oops: int3" in kernel text, and
RIP - 1 (RIP points after the INT3) is a static branch or static call site
of VMLINUX (__jump_table, .static_call_sites) where the image has no INT3.
So the INT3 was written by a text patch, which poke_int3_handler() covers
for as long as it is in memory.

A kprobe is the same thing: register_kprobe() writes an INT3 over the first
byte of the probed instruction with text_poke(), unregister_kprobe() writes
the byte back, and kprobe_int3_handler() handles the INT3 only while the
kprobe is registered.  The KUnit suites probe function entries
(kunit/mm_rs_kunit.c: mm_rs_probe(); the KSM suite's handle_mm_fault()
watch), and a stale translation of such an entry kills the suite's kernel
the same way: seen on 2026-11-28 at handle_mm_fault+0x5 in the KSM suite,
after its watch was unregistered.  Each KPROBED symbol given adds its kprobe
address to the sites: the symbol, past the ENDBR64 it starts with if it does
(arch_adjust_kprobe_addr()), where register_kprobe() puts a kprobe on
symbol_name with no offset.  The "Code:" bytes of the oops do not tell:
they are read from memory when the oops is printed, by when the same site
may be under patch again (cc) or done (the new instruction).  An INT3 of the
image (padding between functions), one anywhere else, and an oops before it
are not matched.

Exit 0 and print one line when the log has the signature, 1 when not.
"""
import re
import struct
import subprocess
import sys


def first_oops(lines):
    """Return (RIP symbol, offset) of the first oops if it is a kernel int3."""
    oops = next((i for i, l in enumerate(lines) if "Oops: " in l), None)
    if oops is None or "Oops: int3: " not in lines[oops]:
        return None
    for line in lines[oops + 1:oops + 40]:
        if "Oops: " in line or "Kernel panic" in line:
            break
        m = re.search(r"\bRIP: 0010:([A-Za-z0-9_.]+)\+0x([0-9a-f]+)/0x[0-9a-f]+$", line)
        if m:
            return m.group(1), int(m.group(2), 16)
    return None


class Image:
    """Bytes and symbols of a vmlinux, read with readelf and nm."""

    def __init__(self, path):
        self.f = open(path, "rb")
        out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True,
                             check=False).stdout
        # [Nr] Name Type Address Off Size: (address, file offset, size) of each PROGBITS
        self.secs = [tuple(int(m.group(i), 16) for i in (1, 2, 3)) for m in re.finditer(
            r"\]\s+\S+\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", out)]
        out = subprocess.run(["nm", path], capture_output=True, text=True, check=False).stdout
        self.syms = {}
        for f in (l.split() for l in out.splitlines()):
            if len(f) == 3:
                self.syms.setdefault(f[2], []).append((int(f[0], 16), f[1]))

    def read(self, addr, n):
        """n bytes at addr, or None when no section holds them."""
        for base, off, size in self.secs:
            if base <= addr and addr + n <= base + size:
                self.f.seek(off + addr - base)
                return self.f.read(n)
        return None

    def symbol(self, name, types="tT"):
        """Address of the symbol, if there is exactly one of those types."""
        found = [a for a, t in self.syms.get(name, []) if t in types]
        return found[0] if len(found) == 1 else None

    def table(self, name, entry):
        """Sites of __start_NAME..__stop_NAME, each entry's first s32 relative to itself."""
        start = self.symbol("__start_" + name, "dDrR")
        stop = self.symbol("__stop_" + name, "dDrR")
        if start is None or stop is None or stop < start:
            return set()
        data = self.read(start, stop - start) or b""
        return {start + i + struct.unpack_from("<i", data, i)[0]
                for i in range(0, len(data) - entry + 1, entry)}

    def patch_sites(self):
        """Every static branch (struct jump_entry: s32 code, s32 target, long key)
        and inline static call site (struct static_call_site: s32 addr, s32 key)."""
        return self.table("__jump_table", 16) | self.table("static_call_sites", 8)


    def kprobe_sites(self, names):
        """The kprobe address of each symbol in names: past a leading ENDBR64."""
        sites = set()
        for name in names:
            at = self.symbol(name)
            if at is not None:
                sites.add(at + 4 if self.read(at, 4) == ENDBR64 else at)
        return sites


ENDBR64 = bytes((0xF3, 0x0F, 0x1E, 0xFA))


def stale_int3(lines, vmlinux, kprobed=()):
    """Return a description of the stale INT3, or None."""
    rip = first_oops(lines)
    if rip is None or rip[1] == 0:
        return None
    sym, off = rip
    img = Image(vmlinux)
    start = img.symbol(sym)
    if start is None:
        return None
    at = start + off - 1
    b = img.read(at, 1)
    if b is None or b[0] == 0xCC:
        return None
    if at in img.patch_sites():
        return ("int3 trap at %s+0x%x, on a static branch or static call site (%02x in the "
                "kernel image): an INT3 of a text patch that was over" % (sym, off, b[0]))
    if at in img.kprobe_sites(kprobed):
        return ("int3 trap at %s+0x%x, on the kprobe address of %s (%02x in the kernel "
                "image): the INT3 of a kprobe that was unregistered" % (sym, off, sym, b[0]))
    return None


def main():
    if len(sys.argv) < 3:
        print("usage: tcg-stale-int3.py CONSOLE_LOG VMLINUX [KPROBED...]", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f]
    what = stale_int3(lines, sys.argv[2], sys.argv[3:])
    if what is None:
        return 1
    print(what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
