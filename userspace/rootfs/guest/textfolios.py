#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""textfolios.py LABEL FILE: how much of FILE's text is in the page cache, and
in folios of which size.

Reads FILE's ELF program headers for its executable PT_LOAD segments, maps
them read-only with MADV_RANDOM (so that looking adds no readahead), asks
mincore() which pages are cached, reads one byte of each of those (mapping the
cached folio, reading nothing) and finds each page's folio from its PFN
(/proc/self/pagemap) and the compound flags of /proc/kpageflags: a folio of
N pages is a head page followed by N - 1 tail pages. Prints

  mmrs-data textfolios LABEL file=FILE text_kb=... cached_kb=... large_kb=...

where large_kb is the cached text in folios of 64K or more, and contig_kb the
cached text in aligned 64K blocks of the file whose 16 pages are all cached at
16 consecutive PFNs starting at a multiple of 16: the blocks the mmrs-meter
TLB model (userspace/qemu-plugin/README) can credit with a 64K entry, which
infers a block from VA-to-PA contiguity. contig_kb above large_kb is memory
contiguous by chance (small folios in a row), which the model over-credits.
Root only (the
PFNs); no other process may map FILE while it runs (they would not change
the folios, but their faults could add pages between mincore() and the
reads)."""
import ctypes
import mmap
import os
import struct
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
KPF_COMPOUND_HEAD = 1 << 15
KPF_COMPOUND_TAIL = 1 << 16
MADV_RANDOM = 1
PF_X = 1
PT_LOAD = 1


def text_ranges(path):
    """The file ranges [start, end) of the executable PT_LOAD segments."""
    with open(path, "rb") as f:
        ident = f.read(64)
        if ident[:4] != b"\x7fELF" or ident[4] != 2:
            sys.exit(f"textfolios: {path} is not a 64-bit ELF file")
        e_phoff, = struct.unpack_from("<Q", ident, 32)
        e_phentsize, e_phnum = struct.unpack_from("<HH", ident, 54)
        f.seek(e_phoff)
        ph = f.read(e_phentsize * e_phnum)
    out = []
    for i in range(e_phnum):
        p_type, p_flags, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", ph, i * e_phentsize)
        if p_type == PT_LOAD and p_flags & PF_X:
            start = p_offset // PAGE * PAGE
            out.append((start, p_offset + p_filesz))
    return out


def contig_bytes(pfns, blk, page):
    """Bytes of the aligned blocks of BLK file pages whose pages are all cached (PFNS: file
    page number -> PFN) at BLK consecutive PFNs from a multiple of BLK."""
    contig = 0
    for first in {n - n % blk for n in pfns}:
        pfn = pfns.get(first)
        if pfn is not None and pfn % blk == 0 and \
                all(pfns.get(first + j) == pfn + j for j in range(blk)):
            contig += blk * page
    return contig


def main():
    label, path = sys.argv[1], sys.argv[2]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    fd = os.open(path, os.O_RDONLY)
    pagemap = os.open("/proc/self/pagemap", os.O_RDONLY)
    kflags = os.open("/proc/kpageflags", os.O_RDONLY)

    def flags(pfn):
        return struct.unpack("<Q", os.pread(kflags, 8, pfn * 8))[0]

    folio_pages = {}  # head PFN -> pages in its folio

    def folio_of(pfn):
        head = pfn
        while flags(head) & KPF_COMPOUND_TAIL:
            head -= 1
        if head not in folio_pages:
            n = 1
            if flags(head) & KPF_COMPOUND_HEAD:
                while flags(head + n) & KPF_COMPOUND_TAIL:
                    n += 1
            folio_pages[head] = n
        return folio_pages[head]

    text = cached = large = 0
    pfns = {}  # file page number -> PFN, cached pages only
    for start, end in text_ranges(path):
        length = (end - start + PAGE - 1) // PAGE * PAGE
        text += length
        addr = libc.mmap(None, length, mmap.PROT_READ, mmap.MAP_SHARED, fd, start)
        if addr in (None, ctypes.c_void_p(-1).value):
            sys.exit(f"textfolios: mmap {path}: {os.strerror(ctypes.get_errno())}")
        libc.madvise(addr, length, MADV_RANDOM)
        vec = ctypes.create_string_buffer(length // PAGE)
        if libc.mincore(addr, length, vec) != 0:
            sys.exit(f"textfolios: mincore: {os.strerror(ctypes.get_errno())}")
        resident = vec.raw
        for i in range(length // PAGE):
            if not resident[i] & 1:
                continue
            va = addr + i * PAGE
            ctypes.c_char.from_address(va).value  # map the cached page
            ent = struct.unpack("<Q", os.pread(pagemap, 8, va // PAGE * 8))[0]
            if not ent >> 63:
                continue
            cached += PAGE
            pfns[start // PAGE + i] = ent & ((1 << 55) - 1)
            if folio_of(ent & ((1 << 55) - 1)) * PAGE >= 65536:
                large += PAGE
        libc.munmap(addr, length)
    contig = contig_bytes(pfns, 65536 // PAGE, PAGE)
    print(f"mmrs-data textfolios {label} file={path} text_kb={text // 1024} "
          f"cached_kb={cached // 1024} large_kb={large // 1024} contig_kb={contig // 1024}")
    print(f"  {path}: text {text // 1024} kB, {cached // 1024} kB cached, "
          f"{large // 1024} kB in folios of 64K or more "
          f"({100 * large / cached if cached else 0:.1f}%)")


if __name__ == "__main__":
    main()
