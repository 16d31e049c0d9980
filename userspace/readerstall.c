// SPDX-License-Identifier: GPL-2.0
/*
 * readerstall: the RCU stall of make test's x86_64 prod-debug stress run on
 * CI (stop 63's submission), on purpose. CPU hogs at nice -20 keep every
 * CPU busy while this process, at nice 19 for each MADV_COLLAPSE (and at
 * nice -20 otherwise, so that it gets there), collapses 2 MiB ranges of
 * small pages.
 *
 * Under full preemption (CONFIG_PREEMPT, or preempt=full) without RCU
 * boosting, a task preempted inside an RCU read-side critical section
 * blocks the grace period until it runs again, and a nice-19 task among
 * nice -20 hogs may run a few milliseconds a minute: RCU then reports a
 * stall on the task ("Tasks blocked on level-0 rcu_node ... P<pid>"). Two
 * such sections are on this path: sys_setpriority()'s own, as the process
 * drops to nice 19 and is preempted at once, and collapse_huge_page()'s
 * copy of the 512 pages (__collapse_huge_page_copy(), inside
 * pte_offset_map()'s RCU read lock): CI's stalled task was preempted in
 * copy_mc_enhanced_fast_string(), and khugepaged, at nice 19, is the one
 * that copies there (CI printed no task name). Under Debian's voluntary preemption
 * neither section is ever preempted, and the same load reports nothing.
 *
 * The program times each stretch at nice 19 and fails unless the longest
 * lasted more than STALL_S seconds (more than RCU's 21 s stall timeout):
 * without that the reader was never held off long enough for a clean
 * console to mean anything. It also fails if no collapse succeeded.
 * Whether RCU stalled is the boot's verdict (scripts/splats.txt: "rcu:
 * INFO:"); scripts/readerstall.sh runs it.
 *
 * Usage: readerstall [SECONDS [HOGS_PER_CPU [HOG_NICE]]] (default 60 s, 4
 * a CPU, nice -20).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define PMD_SIZE (2UL << 20)
#define STALL_S 25

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * One 2 MiB range of small pages, faulted in at nice -20 and collapsed at
 * nice 19: the low priority covers the collapse alone, which *@low times.
 * 1 if it became a huge page, 0 if not, -1 on an error.
 */
static int collapse_one(long page, double *low)
{
	char *raw, *p;
	int ok;

	raw = mmap(NULL, 2 * PMD_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return -1;
	p = (char *)(((uintptr_t)raw + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
	/* Small pages first: no THP at the fault. */
	if (madvise(p, PMD_SIZE, MADV_NOHUGEPAGE))
		return -1;
	for (unsigned long off = 0; off < PMD_SIZE; off += page)
		p[off] = (char)(off / page);
	if (madvise(p, PMD_SIZE, MADV_HUGEPAGE))
		return -1;
	*low = now();
	if (setpriority(PRIO_PROCESS, 0, 19))
		return -1;
	ok = madvise(p, PMD_SIZE, MADV_COLLAPSE) == 0;
	if (setpriority(PRIO_PROCESS, 0, -20))
		return -1;
	*low = now() - *low;
	munmap(raw, 2 * PMD_SIZE);
	return ok;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	int per_cpu = argc > 2 ? atoi(argv[2]) : 4;
	int hog_nice = argc > 3 ? atoi(argv[3]) : -20;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long page = sysconf(_SC_PAGESIZE);
	int nhogs = (int)ncpu * per_cpu, status, rc = 0;
	long tries = 0, done = 0;
	pid_t *hogs = calloc(nhogs, sizeof(*hogs));
	double end, low = 0, longest = 0;

	if (!hogs || secs <= 0 || per_cpu <= 0) {
		fprintf(stderr, "readerstall: usage: readerstall [SECONDS [HOGS_PER_CPU [HOG_NICE]]]\n");
		return 2;
	}
	if (setpriority(PRIO_PROCESS, 0, -20)) {
		perror("readerstall: setpriority");
		return 1;
	}
	for (int i = 0; i < nhogs; i++) {
		hogs[i] = fork();
		if (hogs[i] == 0) {
			volatile unsigned long n = 0;

			/* Gone by themselves should the parent never come back. */
			alarm(secs + 120);
			if (setpriority(PRIO_PROCESS, 0, hog_nice))
				_exit(1);
			for (;;)
				n++;
		}
	}
	printf("readerstall: %d hogs at nice %d on %ld CPUs, MADV_COLLAPSE at nice 19 for %d s\n",
	       nhogs, hog_nice, ncpu, secs);
	fflush(stdout);
	end = now() + secs;
	while (!rc && now() < end) {
		int r = collapse_one(page, &low);

		if (r < 0) {
			fprintf(stderr, "readerstall: mmap/madvise/setpriority: %s\n", strerror(errno));
			rc = 1;
		}
		tries++;
		done += r > 0;
		if (r >= 0 && low > longest)
			longest = low;
	}
	for (int i = 0; i < nhogs; i++)
		if (hogs[i] > 0)
			kill(hogs[i], SIGKILL);
	while (wait(&status) > 0)
		;
	printf("readerstall: %ld of %ld ranges collapsed; the longest stretch at nice 19 took %.1f s\n",
	       done, tries, longest);
	if (!done) {
		fprintf(stderr, "readerstall: no MADV_COLLAPSE succeeded: nothing was provoked\n");
		rc = 1;
	}
	if (longest <= STALL_S) {
		fprintf(stderr,
			"readerstall: no stretch at nice 19 took more than %d s: the reader was never held off as long as RCU's stall timeout\n",
			STALL_S);
		rc = 1;
	}
	return rc;
}
