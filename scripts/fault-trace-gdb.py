# SPDX-License-Identifier: GPL-2.0
#
# Run by gdb for scripts/fault-trace.sh: connects to QEMU's gdbstub, stops at
# every handle_mm_fault() of a traced fault of userspace/faulttrace.c (told by
# its address), and has QEMU log every instruction (-singlestep, -d exec)
# from there to the return, into one log file a region.
#
# Environment: FT_ARCH (x86_64 or arm64), FT_PORT, FT_OUT (directory).

import os

import gdb

ARCH = os.environ["FT_ARCH"]
OUT = os.environ["FT_OUT"]
BASE = 0x400000000000      # userspace/faulttrace.c: FT_BASE, FT_STRIDE, FT_TRACED
STRIDE = 1 << 30
TRACED = 4 << 20
REGIONS = 16

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("target remote :%s" % os.environ["FT_PORT"])

# handle_mm_fault(vma, address, flags, regs): the address is the second argument.
addr = "$rsi" if ARCH == "x86_64" else "$x1"
off = "((%s - %#x) %% %#x)" % (addr, BASE, STRIDE)
bp = gdb.Breakpoint("*handle_mm_fault", internal=True)
bp.condition = "%s >= %#x && %s < %#x && %s >= %#x && %s < %#x" % (
    addr, BASE, addr, BASE + REGIONS * STRIDE, off, TRACED, off, TRACED + (2 << 20) - 4096)

hmf = int(gdb.parse_and_eval("(unsigned long)&handle_mm_fault")) & 0xFFFFFFFFFFFFFFFF
region = None
traced = 0
while True:
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break                   # QEMU exited: the guest is done
    if int(gdb.parse_and_eval("$pc")) & 0xFFFFFFFFFFFFFFFF != hmf:
        continue
    a = int(gdb.parse_and_eval(addr)) & 0xFFFFFFFFFFFFFFFF
    r = (a - BASE) // STRIDE
    if r != region:
        gdb.execute("monitor logfile %s/region-%d.log" % (OUT, r), to_string=True)
        region = r
    if ARCH == "x86_64":
        ret = int(gdb.parse_and_eval("*(unsigned long *)$rsp")) & 0xFFFFFFFFFFFFFFFF
    else:
        ret = int(gdb.parse_and_eval("$x30")) & 0xFFFFFFFFFFFFFFFF
    gdb.execute("monitor log exec,nochain", to_string=True)
    done = gdb.Breakpoint("*%#x" % ret, temporary=True, internal=True)
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    gdb.execute("monitor log none", to_string=True)
    traced += 1

print("fault-trace: traced %d faults" % traced)
