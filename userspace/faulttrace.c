// SPDX-License-Identifier: GPL-2.0
/*
 * faulttrace [N]: the write faults scripts/fault-trace.sh traces instruction
 * by instruction, from a debugger on QEMU's gdbstub. For each anonymous
 * fault path (C; Rust; Rust order with C map; C order with Rust map) and
 * each folio size (order 0, 16K, 32K, 64K mTHP), one region at a fixed
 * address (the debugger tells the regions by address): warm-up faults, then
 * N traced faults, each on a block of its own (default 31, the size of the
 * per-CPU LRU batch: the batch is emptied before them, so that on every path
 * the same fault drains it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmrs-util.h"

#define FT_BASE		0x400000000000UL	/* region r at FT_BASE + r * FT_STRIDE */
#define FT_STRIDE	(1UL << 30)
#define FT_LEN		(8UL << 20)
#define FT_TRACED	(4UL << 20)		/* traced faults from here on */
#define FT_BLOCK	(64UL << 10)

static const char *const paths[][2] = {
	{ "0", "0" }, { "1", "1" }, { "1", "0" }, { "0", "1" },
};
static const char *const path_names[] = { "c", "rust", "rust_order", "rust_fault" };
static const unsigned long sizes_kb[] = { 0, 16, 32, 64 };

static void set_mthp(unsigned long kb, const char *mode)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/transparent_hugepage/hugepages-%lukB/enabled", kb);
	if (write_str(path, mode))
		fprintf(stderr, "faulttrace: cannot set %s\n", path);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 31;
	long page = sysconf(_SC_PAGESIZE);
	unsigned int p, s;
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	set_mthp(2048, "never");
	for (p = 0; p < 4; p++) {
		for (s = 0; s < 4; s++) {
			unsigned long r = p * 4 + s;
			char *base = (char *)(FT_BASE + r * FT_STRIDE);

			if (write_str("/sys/kernel/debug/mm_rs/anon_order", paths[p][0]) ||
			    write_str("/sys/kernel/debug/mm_rs/anon_fault", paths[p][1]))
				return 1;
			set_mthp(16, sizes_kb[s] == 16 ? "always" : "never");
			set_mthp(32, sizes_kb[s] == 32 ? "always" : "never");
			set_mthp(64, sizes_kb[s] == 64 ? "always" : "never");
			if (mmap(base, FT_LEN, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != base) {
				perror("faulttrace: mmap");
				return 1;
			}
			/*
			 * Faults enough to fill the LRU batch twice, and the PTE
			 * table of the traced faults (its last page).
			 */
			for (i = 0; i < 64; i++)
				base[i * FT_BLOCK] = 1;
			base[FT_TRACED + (2UL << 20) - page] = 1;
			/* MADV_COLD starts with lru_add_drain(): this CPU's batch. */
			if (madvise(base + FT_TRACED, page, MADV_COLD)) {
				perror("faulttrace: madvise");
				return 1;
			}
			for (i = 0; i < n; i++)
				base[FT_TRACED + i * FT_BLOCK] = 1;
			printf("mmrs-data faulttrace region=%lu path=%s size_kb=%lu faults=%d\n", r,
			       path_names[p], sizes_kb[s] ? sizes_kb[s] : page / 1024, n);
			munmap(base, FT_LEN);
		}
	}
	set_mthp(16, "never");
	set_mthp(32, "never");
	set_mthp(64, "never");
	write_str("/sys/kernel/debug/mm_rs/anon_order", "1");
	write_str("/sys/kernel/debug/mm_rs/anon_fault", "1");
	return 0;
}
