// SPDX-License-Identifier: GPL-2.0
/*
 * The allocator pattern of the PT-reclaim design thread, run with mm-rs PT
 * reclaim off and on (/sys/kernel/mm/mm_rs/pt_reclaim) in one boot:
 *
 *	mmap 50 GiB; ITERS times: touch 2 MiB, MADV_DONTNEED it
 *
 * Usage: ptreclaim [ITERS [PAGES [ROUNDS]]]: ITERS steps (default 25600, the
 * thread's count), each touching PAGES pages of its 2 MiB (default 1: the
 * page table is allocated by the first touch, so one page is enough to show
 * VmPTE; 512 touches all of it, as the thread did), ROUNDS times each way,
 * interleaved. Each run is a fresh process, so VmPTE starts from the same
 * state. The range is MADV_NOHUGEPAGE: with THP a touched 2 MiB would be one
 * PMD mapping and need no PTE table at all.
 *
 * Prints one "mmrs-data ptreclaim" line per run (key=value, for the
 * benchmarks) and a readable one, and
 * exits 1 if reclaim on ends above 240 kB of VmPTE, or off does not show the
 * tables kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmrs-util.h"

#define SZ_2M		(2UL << 20)
#define RANGE		(50UL << 30)
#define TARGET_KB	240

static const char *const events[] = { "pt_reclaim_fast", "pt_reclaim_slow", "pt_reclaim_kept" };


static void vmstat_events(long *out)
{
	char name[64];
	long v;
	int i;
	FILE *f = fopen("/proc/vmstat", "r");

	for (i = 0; i < 3; i++)
		out[i] = -1;
	if (!f)
		return;
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		for (i = 0; i < 3; i++)
			if (!strcmp(name, events[i]))
				out[i] = v;
	fclose(f);
}

/* One run, in a child process; prints its line and returns VmPTE in kB. */
static long run(int on, long iters, long pages, long page_size)
{
	int fds[2];
	long kb = -1;
	pid_t pid;

	if (write_str("/sys/kernel/mm/mm_rs/pt_reclaim", on ? "1" : "0") && on)
		return -1;
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		long ev0[3], ev1[3], vmpte0, i, p, faults, step = SZ_2M / page_size / pages;
		struct rusage r0, r1;
		double t0, t1;
		char *base;

		base = mmap(NULL, RANGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (base == MAP_FAILED || madvise(base, RANGE, MADV_NOHUGEPAGE))
			_exit(2);
		/* Start on a 2 MiB boundary, as an allocator's chunks are. */
		base = (char *)(((unsigned long)base + SZ_2M - 1) & ~(SZ_2M - 1));
		vmpte0 = proc_kb("/proc/self/status", "VmPTE");
		vmstat_events(ev0);
		getrusage(RUSAGE_SELF, &r0);
		t0 = now_ns();
		for (i = 0; i < iters && (i + 1) * SZ_2M < RANGE; i++) {
			char *chunk = base + i * SZ_2M;

			for (p = 0; p < pages; p++)
				chunk[p * step * page_size] = 1;
			if (madvise(chunk, SZ_2M, MADV_DONTNEED))
				_exit(3);
		}
		t1 = now_ns();
		getrusage(RUSAGE_SELF, &r1);
		vmstat_events(ev1);
		kb = proc_kb("/proc/self/status", "VmPTE");
		faults = r1.ru_minflt - r0.ru_minflt;
		printf("mmrs-data ptreclaim reclaim=%s iters=%ld pages=%ld vmpte_kb=%ld "
		       "vmpte_start_kb=%ld faults=%ld ns=%.0f faults_per_s=%.1f freed_fast=%ld "
		       "freed_slow=%ld kept=%ld\n",
		       on ? "on" : "off", i, pages, kb, vmpte0, faults, t1 - t0,
		       faults * 1e9 / (t1 - t0), ev1[0] - ev0[0], ev1[1] - ev0[1], ev1[2] - ev0[2]);
		printf("  reclaim %-3s  VmPTE %6ld kB at the end  %8ld faults  %9.0f faults/s  "
		       "tables freed %ld (fast %ld, slow %ld)\n", on ? "on" : "off", kb, faults,
		       faults * 1e9 / (t1 - t0), ev1[0] - ev0[0] + ev1[1] - ev0[1],
		       ev1[0] - ev0[0], ev1[1] - ev0[1]);
		if (write(fds[1], &kb, sizeof(kb)) != sizeof(kb))
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &kb, sizeof(kb)) != sizeof(kb))
		kb = -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return kb;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 25600;
	long pages = argc > 2 ? atol(argv[2]) : 1;
	long rounds = argc > 3 ? atol(argv[3]) : 1;
	long page_size = sysconf(_SC_PAGESIZE), off = 0, on = 0, r;
	int bad = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (pages < 1 || pages > (long)(SZ_2M / page_size) || iters < 1 || rounds < 1) {
		fprintf(stderr, "usage: ptreclaim [ITERS [PAGES (1..%ld) [ROUNDS]]]\n",
			(long)(SZ_2M / page_size));
		return 2;
	}
	printf("== PT reclaim: mmap 50 GiB; %ld times: touch %ld page(s) of 2 MiB, MADV_DONTNEED it ==\n",
	       iters, pages);
	for (r = 0; r < rounds; r++) {
		off = run(0, iters, pages, page_size);
		on = run(1, iters, pages, page_size);
	}
	write_str("/sys/kernel/mm/mm_rs/pt_reclaim", "1");
	printf("  VmPTE at the end: %ld kB with reclaim off (6.12), %ld kB with reclaim on (target <= %d kB)\n",
	       off, on, TARGET_KB);
	if (on < 0 || on > TARGET_KB) {
		printf("ptreclaim: FAILED: VmPTE %ld kB with reclaim on\n", on);
		bad = 1;
	}
	/* Off keeps one 4 KiB table per 2 MiB step: at least half of them must show. */
	if (off < iters * 4 / 2) {
		printf("ptreclaim: FAILED: VmPTE %ld kB with reclaim off, expected about %ld kB\n",
		       off, iters * 4);
		bad = 1;
	}
	return bad;
}
