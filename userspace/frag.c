// SPDX-License-Identifier: GPL-2.0
/*
 * frag [ROUNDS]: the anonymous order policies under fragmentation (issue 36).
 *
 * 1. Fragments free memory: faults nearly all of it in order-0 pages (every
 *    mTHP size off), until MemFree is down to 1.5 times min_free_kbytes,
 *    then frees every other page (MADV_DONTNEED) and holds the rest, so the
 *    free memory is single pages between held ones; then takes what is left
 *    free in blocks of an mTHP size or more (kept above the watermarks), in
 *    folios of 64K, 32K and 16K in turn until a MiB gets none of that size.
 *    /proc/buddyinfo is printed before and after.
 * 2. Under each policy (order 0: mthp with every size off; mthp-64k: mthp with
 *    64K always; arch; auto), in an order rotated each round, faults 64 MiB
 *    one byte a page and reports: faults, guest ns a fault (-icount), per
 *    mTHP size the allocations, fallbacks and charge fallbacks of the
 *    anonymous faults, the failed attempts in all (the fallbacks), and
 *    /proc/vmstat's compact_stall, compact_daemon_wake and pageoutrun
 *    (kswapd's balancing runs). THP is "madvise", defrag its default: the
 *    64 MiB area is not madvised, so its mTHP allocations neither reclaim nor
 *    compact directly. Proactive compaction is off while fragmented
 *    (vm/compaction_proactiveness 0), so that kcompactd does not undo the
 *    layout between rounds; /proc/vmstat shows what compaction still ran.
 * 3. Frees the held memory, puts proactive compaction back, compacts
 *    (vm/compact_memory), and faults 64 MiB
 *    once more under auto (right after the fragmented rounds, its failure
 *    memory as they left it) and under mthp-64k: the 64K coverage of one
 *    pass (64K allocations x 16 pages / pages touched).
 *
 * Every figure is a "mmrs-data frag ..." line for scripts/frag-report.py.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mmrs-util.h"

#define MIB		(1UL << 20)
#define AREA		(64 * MIB)
#define THP		"/sys/kernel/mm/transparent_hugepage/"
#define POLICY		"/sys/kernel/mm/mm_rs/anon_order_policy"

static long page_size;
static const unsigned int sizes_kb[] = { 16, 32, 64 };
#define NR_SIZES	(sizeof(sizes_kb) / sizeof(sizes_kb[0]))

enum { P_ORDER0, P_MTHP64, P_ARCH, P_AUTO, NR_POLICIES };
static const char *const policy_name[] = { "order0", "mthp-64k", "arch", "auto" };

struct counts {
	unsigned long alloc[NR_SIZES], fallback[NR_SIZES], charge[NR_SIZES];
	unsigned long compact_stall, compact_wake, pageoutrun;
};

static unsigned long read_ul(const char *path)
{
	char buf[64];

	read_str(path, buf, sizeof(buf));
	return strtoul(buf, NULL, 10);
}

static unsigned long vmstat(const char *key)
{
	size_t len = strlen(key);
	char line[256];
	unsigned long v = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			v = strtoul(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

static void counts_get(struct counts *c)
{
	char path[160];
	unsigned int i;

	for (i = 0; i < NR_SIZES; i++) {
		snprintf(path, sizeof(path), THP "hugepages-%ukB/stats/anon_fault_alloc", sizes_kb[i]);
		c->alloc[i] = read_ul(path);
		snprintf(path, sizeof(path), THP "hugepages-%ukB/stats/anon_fault_fallback",
			 sizes_kb[i]);
		c->fallback[i] = read_ul(path);
		snprintf(path, sizeof(path), THP "hugepages-%ukB/stats/anon_fault_fallback_charge",
			 sizes_kb[i]);
		c->charge[i] = read_ul(path);
	}
	c->compact_stall = vmstat("compact_stall");
	c->compact_wake = vmstat("compact_daemon_wake");
	c->pageoutrun = vmstat("pageoutrun");
}

static int set_mthp(unsigned int kb, const char *mode)
{
	char path[128];

	snprintf(path, sizeof(path), THP "hugepages-%ukB/enabled", kb);
	return write_str(path, mode);
}

/* Every mTHP size and PMD THP off but, with @kb64, 64K always. */
static int sizes_only(int kb64)
{
	unsigned int i;
	int err = set_mthp(2048, "never");

	for (i = 0; i < NR_SIZES; i++)
		err |= set_mthp(sizes_kb[i], sizes_kb[i] == 64 && kb64 ? "always" : "never");
	return err;
}

static int use_policy(int p)
{
	switch (p) {
	case P_ORDER0:
		return sizes_only(0) || write_str(POLICY, "mthp");
	case P_MTHP64:
		return sizes_only(1) || write_str(POLICY, "mthp");
	case P_ARCH:
		return sizes_only(0) || write_str(POLICY, "arch");
	default:
		return sizes_only(0) || write_str(POLICY, "auto");
	}
}

static long minflt(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

static void buddyinfo(const char *when)
{
	char line[512];
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		printf("frag: buddyinfo %s: %s\n", when, line);
	}
	fclose(f);
}

/* Faults AREA one byte a page under policy @p; one "mmrs-data frag" line. */
static int fault_area(const char *phase, int round, int p)
{
	struct counts c0, c1;
	unsigned long failed = 0, alloc64;
	long f0, faults;
	double t0, ns;
	char *a;
	size_t i;

	if (use_policy(p))
		return 1;
	a = mmap(NULL, AREA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return 1;
	counts_get(&c0);
	f0 = minflt();
	t0 = now_ns();
	for (i = 0; i < AREA; i += page_size)
		a[i] = 1;
	ns = now_ns() - t0;
	faults = minflt() - f0;
	counts_get(&c1);
	printf("mmrs-data frag phase=%s round=%d policy=%s faults=%ld ns=%.0f ns_per_fault=%.1f",
	       phase, round, policy_name[p], faults, ns, faults ? ns / faults : 0.0);
	for (i = 0; i < NR_SIZES; i++) {
		printf(" alloc%u=%lu fallback%u=%lu charge%u=%lu", sizes_kb[i],
		       c1.alloc[i] - c0.alloc[i], sizes_kb[i], c1.fallback[i] - c0.fallback[i],
		       sizes_kb[i], c1.charge[i] - c0.charge[i]);
		failed += c1.fallback[i] - c0.fallback[i];
	}
	alloc64 = c1.alloc[NR_SIZES - 1] - c0.alloc[NR_SIZES - 1];
	printf(" failed=%lu coverage64=%.4f compact_stall=%lu compact_daemon_wake=%lu "
	       "pageoutrun=%lu\n", failed, (double)alloc64 * (64 * 1024 / page_size) /
	       (AREA / page_size), c1.compact_stall - c0.compact_stall,
	       c1.compact_wake - c0.compact_wake, c1.pageoutrun - c0.pageoutrun);
	printf("frag: %s round %d %-8s %6ld faults %8.1f ns/fault, %lu failed mTHP attempts, "
	       "64K coverage %.1f%%\n", phase, round, policy_name[p], faults,
	       faults ? ns / faults : 0.0, failed,
	       100.0 * alloc64 * (64 * 1024 / page_size) / (AREA / page_size));
	munmap(a, AREA);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2, r, k;
	long min_kb = read_ul("/proc/sys/vm/min_free_kbytes"), floor_kb = min_kb + min_kb / 2;
	size_t held = 0, chunk = 4 * MIB, i;
	char **chunks = NULL;
	size_t nchunks = 0, nfill;
	char proactive[16];

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (access(POLICY, W_OK) || write_str(THP "enabled", "madvise")) {
		fprintf(stderr, "frag: no %s, or THP cannot be set to madvise\n", POLICY);
		return 1;
	}
	/* The unfragmented reference first: every policy once. */
	for (k = 0; k < NR_POLICIES; k++)
		if (fault_area("unfragmented", 0, k))
			return 1;

	/*
	 * No proactive compaction while fragmented (vm/compaction_proactiveness
	 * 0): kcompactd would otherwise undo the layout between the rounds, so
	 * every round would measure another memory. It is put back (and the
	 * memory compacted) for the recovery.
	 */
	read_str("/proc/sys/vm/compaction_proactiveness", proactive, sizeof(proactive));
	if (write_str("/proc/sys/vm/compaction_proactiveness", "0"))
		return 1;
	/* Fill nearly all free memory with order-0 pages. */
	if (use_policy(P_ORDER0))
		return 1;
	buddyinfo("before");
	while (proc_kb("/proc/meminfo", "MemFree") - (long)(chunk >> 10) > floor_kb) {
		char *c = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		char **n = realloc(chunks, (nchunks + 1) * sizeof(*chunks));

		if (c == MAP_FAILED || !n)
			return 1;
		chunks = n;
		chunks[nchunks++] = c;
		for (i = 0; i < chunk; i += page_size)
			c[i] = 1;
		held += chunk;
	}
	/* Every other page back: the free memory is single pages between held ones. */
	nfill = nchunks;
	for (k = 0; k < (int)nchunks; k++)
		for (i = page_size; i < chunk; i += 2 * page_size)
			if (madvise(chunks[k] + i, page_size, MADV_DONTNEED))
				return 1;
	/*
	 * What is left free in blocks of an mTHP size or more (the memory the
	 * fill did not reach, kept above the watermarks), taken too: held in
	 * folios of each size in turn, largest first, until a MiB gets none.
	 */
	for (k = NR_SIZES - 1; k >= 0; k--) {
		struct counts c0, c1;

		if (sizes_only(0) || set_mthp(sizes_kb[k], "always") || write_str(POLICY, "mthp"))
			return 1;
		do {
			char *c = mmap(NULL, MIB, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			char **n = realloc(chunks, (nchunks + 1) * sizeof(*chunks));

			if (c == MAP_FAILED || !n)
				return 1;
			chunks = n;
			chunks[nchunks++] = c;
			counts_get(&c0);
			for (i = 0; i < MIB; i += page_size)
				c[i] = 1;
			counts_get(&c1);
			held += MIB;
		} while (c1.alloc[k] > c0.alloc[k]);
	}
	printf("frag: %zu MiB faulted in order-0 pages (down to MemFree %ld kB, min_free_kbytes %ld), "
	       "every other page freed; MemFree %ld kB\n", held / MIB, floor_kb, min_kb,
	       proc_kb("/proc/meminfo", "MemFree"));
	buddyinfo("fragmented");

	for (r = 0; r < rounds; r++)
		for (k = 0; k < NR_POLICIES; k++)
			if (fault_area("fragmented", r, (k + r) % NR_POLICIES))
				return 1;

	/* Freed and compacted: auto right after the fragmented rounds, then mthp-64k. */
	for (k = 0; k < (int)nchunks; k++)
		munmap(chunks[k], k < (int)nfill ? chunk : MIB);
	if (write_str("/proc/sys/vm/compaction_proactiveness", proactive) ||
	    write_str("/proc/sys/vm/compact_memory", "1"))
		return 1;
	buddyinfo("recovered");
	if (fault_area("recovered", 0, P_AUTO) || fault_area("recovered", 0, P_MTHP64))
		return 1;
	sizes_only(0);
	write_str(POLICY, "mthp");
	return 0;
}
