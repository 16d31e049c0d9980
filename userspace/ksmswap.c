// SPDX-License-Identifier: GPL-2.0
/*
 * ksmswap: KSM unmerge (MADV_UNMERGEABLE) over a PTE table that holds real
 * swap entries, 6.12's C loop against the Rust walk (debug/mm_rs/ksm_unmerge).
 *
 * Usage: ksmswap (as root, on a kernel with KSM, swap and mm-rs's KSM unmerge)
 *
 * The KUnit kernels have no swap device, so this is where a swap entry meets
 * the unmerge. For each path, in one PTE table (64 pages from a 2 MiB
 * boundary, MADV_NOHUGEPAGE so that every page is its own folio):
 *
 *   K  a page ksmd merged with the table's other K pages (one KSM page);
 *   X  a KSM page swapped out: merged with a twin in another mapping, the
 *      twin unmerged, so that the KSM page is mapped once and MADV_PAGEOUT
 *      takes it (it refuses a page mapped more than once);
 *   S  a page of its own, swapped out;
 *   P  a page of its own, present;
 *   N  none (never touched).
 *
 * The table's first entry is an S, its last an X. After the unmerge, read
 * from /proc/self/pagemap before any page is touched, as 6.12's break_ksm()
 * leaves them (folio_walk_start() finds no folio behind a swap entry, so no
 * unshare fault swaps a page in): every K is present at a PFN of its own,
 * none the KSM page's; every P at the PFN it had; every S and X still a swap
 * entry; every N none. Then every word of every page is checked (which swaps
 * the S and X pages in). C and Rust must leave the same entries. Exits 1 on
 * any difference, or when an input could not be built (ksmd did not merge in
 * 60 s, a page did not swap out, no swap): nothing is skipped. Proactive
 * compaction and NUMA balancing are off while it runs (either could move a
 * present page between two reads of its entry), the process keeps to one
 * CPU, and every setting it changes is put back.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmrs-util.h"

#define NR		64			/* pages of the table used */
#define TWINS		2			/* X pages, each with a twin */
#define KSM		"/sys/kernel/mm/ksm/"
#define SWITCH		"/sys/kernel/debug/mm_rs/ksm_unmerge"
#define PM_PRESENT	(1ULL << 63)
#define PM_SWAP		(1ULL << 62)
#define PM_PFN		((1ULL << 55) - 1)

static long page_size;
static int pagemap = -1;

/* The role of each page of the table, and the X pages' indices. */
static char role[NR + 1];
static const int x_at[TWINS] = { 9, NR - 1 };

static void make_layout(void)
{
	static const char cycle[] = "KPSNKSPK";
	int i;

	for (i = 0; i < NR; i++)
		role[i] = cycle[i % 8];
	role[0] = 'S';
	for (i = 0; i < TWINS; i++)
		role[x_at[i]] = 'X';
	role[NR] = 0;
}

/* The tag of page @i's contents: one for every K, one per X and its twin. */
static uint64_t tag_of(int i)
{
	int j;

	if (role[i] == 'K')
		return 0x4b;
	for (j = 0; j < TWINS; j++)
		if (x_at[j] == i)
			return 0x5800 + j;
	return 0x10000 + i;
}

static void fill(char *page, uint64_t tag)
{
	uint64_t *w = (uint64_t *)page;
	size_t j;

	for (j = 0; j < page_size / sizeof(*w); j++)
		w[j] = tag * 0x9e3779b97f4a7c15ULL ^ j;
}

/* Whether every word of @page holds @tag's pattern (0: all zero). */
static int holds(const char *page, uint64_t tag)
{
	const uint64_t *w = (const uint64_t *)page;
	size_t j;

	for (j = 0; j < page_size / sizeof(*w); j++)
		if (w[j] != (tag ? (tag * 0x9e3779b97f4a7c15ULL ^ j) : 0))
			return 0;
	return 1;
}

static uint64_t pm(const void *addr)
{
	uint64_t e = 0;

	if (pread(pagemap, &e, sizeof(e), (uintptr_t)addr / page_size * sizeof(e)) != sizeof(e))
		return 0;
	return e;
}

static uint64_t pfn(const void *addr)
{
	uint64_t e = pm(addr);

	return e & PM_PRESENT ? e & PM_PFN : 0;
}

/* Whether ksmd has merged every K into one page and each X with its twin. */
static int merged(char *base, char *tw, uint64_t *kpfn)
{
	uint64_t k = 0, p;
	int i, j;

	for (i = 0; i < NR; i++) {
		if (role[i] != 'K')
			continue;
		p = pfn(base + i * page_size);
		if (!p || (k && p != k))
			return 0;
		k = p;
	}
	for (j = 0; j < TWINS; j++) {
		p = pfn(base + x_at[j] * page_size);
		if (!p || p != pfn(tw + j * page_size))
			return 0;
	}
	*kpfn = k;
	return 1;
}

/*
 * The settings it changes, as found, put back at the end (in reverse, so
 * ksmd's run last): ksmd's, and the two background movers of pages that
 * could move a present page while the entries are read (proactive
 * compaction and NUMA balancing), off for the run.
 */
static const char *const knob[] = {
	KSM "run", KSM "smart_scan", KSM "pages_to_scan", KSM "sleep_millisecs",
	"/proc/sys/vm/compaction_proactiveness", "/proc/sys/kernel/numa_balancing",
};
#define NR_KNOBS	(sizeof(knob) / sizeof(knob[0]))
static char saved[NR_KNOBS][32];

static int ksmd_set(int run)
{
	return write_str(KSM "smart_scan", "0") || write_str(KSM "pages_to_scan", "4000") ||
	       write_str(KSM "sleep_millisecs", "1") || write_str(KSM "run", run ? "1" : "0");
}

/*
 * One unmerge over the table on @path ("0": C, "1": Rust); @after gets what
 * each page's entry is then (p present, s swap entry, n none). 0 if every
 * check passed.
 */
static int one(const char *path, char *after)
{
	char *map, *base, *tw;
	uint64_t kpfn = 0, old[NR] = { 0 }, k[NR];
	int i, j, n, tries, bad = 0;

	if (write_str(SWITCH, path)) {
		fprintf(stderr, "ksmswap: cannot write %s to %s\n", path, SWITCH);
		return 1;
	}
	map = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tw = mmap(NULL, TWINS * page_size, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || tw == MAP_FAILED) {
		perror("ksmswap: mmap");
		return 1;
	}
	base = (char *)(((uintptr_t)map + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
	if (madvise(base, NR * page_size, MADV_NOHUGEPAGE) ||
	    madvise(tw, TWINS * page_size, MADV_NOHUGEPAGE)) {
		perror("ksmswap: MADV_NOHUGEPAGE");
		return 1;
	}
	for (i = 0; i < NR; i++)
		if (role[i] != 'N')
			fill(base + i * page_size, tag_of(i));
	for (j = 0; j < TWINS; j++)
		fill(tw + j * page_size, tag_of(x_at[j]));
	if (madvise(base, NR * page_size, MADV_MERGEABLE) ||
	    madvise(tw, TWINS * page_size, MADV_MERGEABLE)) {
		perror("ksmswap: MADV_MERGEABLE");
		return 1;
	}

	/* The K and X pages merged by ksmd, which then stops. */
	if (ksmd_set(1))
		return fprintf(stderr, "ksmswap: cannot start ksmd\n"), 1;
	for (tries = 0; tries < 6000 && !merged(base, tw, &kpfn); tries++)
		usleep(10000);
	write_str(KSM "run", "0");
	if (!kpfn) {
		fprintf(stderr, "ksmswap: ksmd did not merge the pages in 60 s\n");
		return 1;
	}

	/* The twins unmerged (on the path under test too): each X is mapped once. */
	if (madvise(tw, TWINS * page_size, MADV_UNMERGEABLE)) {
		perror("ksmswap: MADV_UNMERGEABLE of the twins");
		return 1;
	}
	for (j = 0; j < TWINS; j++) {
		if (pfn(tw + j * page_size) == pfn(base + x_at[j] * page_size)) {
			fprintf(stderr, "ksmswap: twin %d still shares its KSM page\n", j);
			return 1;
		}
	}

	/*
	 * The S and X pages swapped out. MADV_PAGEOUT drains this CPU's LRU
	 * batch first (the process is pinned to one CPU), and passes over a
	 * page not yet on the LRU: try again a few times.
	 */
	for (tries = 0; tries < 50; tries++) {
		for (i = n = 0; i < NR; i++) {
			if ((role[i] == 'S' || role[i] == 'X') &&
			    !(pm(base + i * page_size) & PM_SWAP)) {
				madvise(base + i * page_size, page_size, MADV_PAGEOUT);
				n++;
			}
		}
		if (!n)
			break;
		usleep(20000);
	}
	for (i = 0; i < NR; i++) {
		uint64_t e = pm(base + i * page_size);

		if ((role[i] == 'S' || role[i] == 'X') && (!(e & PM_SWAP) || (e & PM_PRESENT))) {
			fprintf(stderr, "ksmswap: page %d (%c) did not swap out (pagemap %#llx)\n",
				i, role[i], (unsigned long long)e);
			return 1;
		}
		if (role[i] == 'P')
			old[i] = pfn(base + i * page_size);
	}

	if (madvise(base, NR * page_size, MADV_UNMERGEABLE)) {
		perror("ksmswap: MADV_UNMERGEABLE");
		return 1;
	}

	/* The entries, before any page is touched. */
	for (i = 0; i < NR; i++) {
		uint64_t e = pm(base + i * page_size);
		char want = role[i] == 'K' || role[i] == 'P' ? 'p' :
			    role[i] == 'N' ? 'n' : 's';

		after[i] = e & PM_PRESENT ? 'p' : e & PM_SWAP ? 's' : 'n';
		k[i] = e & PM_PRESENT ? e & PM_PFN : 0;
		if (after[i] != want) {
			fprintf(stderr, "ksmswap: path %s: page %d (%c) is '%c' after the unmerge, not '%c'%s\n",
				path, i, role[i], after[i], want,
				want == 's' ? " (6.12 swaps nothing in)" : "");
			bad = 1;
		} else if (role[i] == 'K' && k[i] == kpfn) {
			fprintf(stderr, "ksmswap: path %s: page %d (K) still maps the KSM page\n",
				path, i);
			bad = 1;
		} else if (role[i] == 'P' && k[i] != old[i]) {
			fprintf(stderr, "ksmswap: path %s: page %d (P) moved\n", path, i);
			bad = 1;
		}
	}
	for (i = 0; i < NR; i++)
		for (j = 0; j < i; j++)
			if (role[i] == 'K' && role[j] == 'K' && k[i] && k[i] == k[j]) {
				fprintf(stderr, "ksmswap: path %s: pages %d and %d share a page\n",
					path, j, i);
				bad = 1;
			}
	after[NR] = 0;

	/* Every word of every page, the swapped ones read back in. */
	for (i = 0; i < NR; i++) {
		if (!holds(base + i * page_size, role[i] == 'N' ? 0 : tag_of(i))) {
			fprintf(stderr, "ksmswap: path %s: page %d (%c) lost its contents\n",
				path, i, role[i]);
			bad = 1;
		}
	}
	for (j = 0; j < TWINS; j++) {
		if (!holds(tw + j * page_size, tag_of(x_at[j]))) {
			fprintf(stderr, "ksmswap: path %s: twin %d lost its contents\n", path, j);
			bad = 1;
		}
	}
	munmap(map, 4 << 20);
	munmap(tw, TWINS * page_size);
	return bad;
}

int main(void)
{
	static const char *const path[] = { "0", "1" }, *const name[] = { "c", "rust" };
	char after[2][NR + 1], swtch[8] = "";
	cpu_set_t cpu;
	int p, i, bad = 0;

	page_size = sysconf(_SC_PAGESIZE);
	make_layout();
	if (proc_kb("/proc/meminfo", "SwapTotal") <= 0) {
		fprintf(stderr, "ksmswap: no swap (SwapTotal 0): the input cannot be built\n");
		return 1;
	}
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	read_str(SWITCH, swtch, sizeof(swtch));
	if (pagemap < 0 || !swtch[0]) {
		fprintf(stderr, "ksmswap: needs /proc/self/pagemap and %s\n", SWITCH);
		return 1;
	}
	for (i = 0; i < (int)NR_KNOBS; i++)
		read_str(knob[i], saved[i], sizeof(saved[i]));
	write_str(knob[4], "0");
	write_str(knob[5], "0");
	CPU_ZERO(&cpu);
	CPU_SET(sched_getcpu(), &cpu);
	sched_setaffinity(0, sizeof(cpu), &cpu);

	printf("== ksmswap: KSM unmerge over a table of %d pages with swap entries ==\n", NR);
	printf("  layout   %s\n", role);
	for (p = 0; p < 2; p++) {
		int r = one(path[p], after[p]);

		printf("  %-6s   %s  %s\n", name[p], r ? "(failed)" : after[p],
		       r ? "FAILED" : "ok");
		printf("mmrs-data ksmswap path=%s result=%s after=%s\n", name[p],
		       r ? "failed" : "ok", r ? "-" : after[p]);
		bad |= r;
	}
	if (!bad && strcmp(after[0], after[1])) {
		fprintf(stderr, "ksmswap: C and Rust left different entries\n");
		bad = 1;
	}
	for (i = NR_KNOBS - 1; i >= 0; i--)
		if (saved[i][0])
			write_str(knob[i], saved[i]);
	write_str(SWITCH, swtch);
	printf("ksmswap: %s\n", bad ? "FAILED" : "passed");
	return bad;
}
