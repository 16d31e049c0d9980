// SPDX-License-Identifier: GPL-2.0
/*
 * bigtext: a large executable that measures how its own text was read in.
 *
 * Usage: bigtext SEED PERMILLE [random|sparse]. Calls PERMILLE/1000 of its
 * 4096 functions, picked and ordered by SEED (text is faulted nearly at
 * random), after MADV_RANDOM on its text if asked; "sparse" calls instead
 * a function of PERMILLE/1000 of its 64K blocks, each once, in an order
 * SEED shuffles (one page per block: misses, no hits). Then reports,
 * from
 * /proc/self/pagemap, /proc/kpageflags and mincore():
 *   touched_kb	the text pages it executed;
 *   faulted_kb	the text pages mapped in its page tables;
 *   large_pct	the share of faulted text in folios of >= 64K;
 *   exact_pct	the share in folios of exactly 64K (readahead that adds
 *		orders would read larger ones);
 *   read_kb	the pages of its file in the page cache: what was read;
 *   ms		the time the calls took, faults included.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bigtext.h"

#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define FN_BYTES		2048
#define LARGE_BYTES		(64 * 1024)
#define BLOCK_FNS		(LARGE_BYTES / FN_BYTES)

static long page_size;
static int kpf = -1;

static uint64_t kflags(uint64_t pfn)
{
	uint64_t f = 0;

	if (pread(kpf, &f, 8, pfn * 8) != 8)
		return 0;
	return f;
}

/* The number of pages of the folio holding @pfn (1 if not a large folio). */
static long folio_pages(uint64_t pfn, uint64_t *head)
{
	uint64_t f = kflags(pfn), h = pfn;
	long n = 1, i;

	*head = pfn;
	if (!(f & ((1ULL << KPF_COMPOUND_HEAD) | (1ULL << KPF_COMPOUND_TAIL))))
		return 1;
	for (i = 0; i < 1024 && !(kflags(h) & (1ULL << KPF_COMPOUND_HEAD)); i++)
		h--;
	while (n < 1024 && (kflags(h + n) & (1ULL << KPF_COMPOUND_TAIL)))
		n++;
	*head = h;
	return n;
}

static long cached_pages(void *addr, size_t len)
{
	size_t n = (len + page_size - 1) / page_size, i;
	unsigned char *vec = calloc(n, 1);
	long c = 0;

	if (!vec || mincore(addr, len, vec))
		return -1;
	for (i = 0; i < n; i++)
		c += vec[i] & 1;
	free(vec);
	return c;
}

/*
 * The function of 64K block @b that "sparse" calls: its first that lies in
 * one page, so that the call faults exactly one page (a miss), never two (a
 * miss and a hit). The blocks are 64K apart, so the pages are too.
 */
static int block_fn(int b)
{
	int k;

	for (k = b * BLOCK_FNS; k < (b + 1) * BLOCK_FNS; k++)
		if (((uintptr_t)bigtext_fns[k] & (page_size - 1)) + FN_BYTES <= page_size)
			return k;
	return b * BLOCK_FNS;
}

int main(int argc, char **argv)
{
	unsigned int seed = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	long permille = argc > 2 ? atol(argv[2]) : 250;
	int random = argc > 3 && !strcmp(argv[3], "random");
	int sparse = argc > 3 && !strcmp(argv[3], "sparse");
	int nblocks = bigtext_nfuncs / BLOCK_FNS, *order = NULL;
	uintptr_t start, end, a;
	long npages, calls, i, touched = 0, faulted = 0, large = 0, exact = 0, read_pages;
	uint64_t last_head = 0, ent;
	long last_n = 0;
	unsigned char *hit;
	struct timespec t0, t1;
	struct stat st;
	void *file;
	int pm, fd;

	page_size = sysconf(_SC_PAGESIZE);
	start = (uintptr_t)__start_bigtext & ~(page_size - 1);
	end = ((uintptr_t)__stop_bigtext + page_size - 1) & ~(page_size - 1);
	npages = (end - start) / page_size;
	hit = calloc(npages, 1);
	if (!hit)
		return 2;
	if (random && madvise((void *)start, end - start, MADV_RANDOM))
		perror("bigtext: madvise(MADV_RANDOM)");

	srand(seed);
	calls = bigtext_nfuncs * permille / 1000;
	if (sparse) {
		/* The blocks in a shuffled order (Fisher-Yates), the first @calls. */
		order = calloc(nblocks, sizeof(*order));
		if (!order)
			return 2;
		for (i = 0; i < nblocks; i++)
			order[i] = i;
		for (i = nblocks - 1; i > 0; i--) {
			int j = rand() % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		calls = nblocks * permille / 1000;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < calls; i++) {
		int k = sparse ? block_fn(order[i]) : rand() % bigtext_nfuncs;
		uintptr_t f = (uintptr_t)bigtext_fns[k];

		bigtext_fns[k]();
		for (a = f & ~(page_size - 1); a < f + FN_BYTES && a < end; a += page_size)
			hit[(a - start) / page_size] = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	pm = open("/proc/self/pagemap", O_RDONLY);
	kpf = open("/proc/kpageflags", O_RDONLY);
	if (pm < 0 || kpf < 0) {
		perror("bigtext: pagemap/kpageflags");
		return 2;
	}
	for (i = 0; i < npages; i++) {
		uint64_t pfn, head;
		long n;

		touched += hit[i];
		if (pread(pm, &ent, 8, (start / page_size + i) * 8) != 8 || !(ent & (1ULL << 63)))
			continue;
		faulted++;
		pfn = ent & ((1ULL << 55) - 1);
		if (last_n && pfn >= last_head && pfn < last_head + last_n) {
			n = last_n;
		} else {
			n = folio_pages(pfn, &head);
			last_head = head;
			last_n = n;
		}
		if (n * page_size >= LARGE_BYTES)
			large++;
		if (n * page_size == LARGE_BYTES)
			exact++;
	}

	/* What was read of the file: its pages in the page cache. */
	read_pages = -1;
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd >= 0 && !fstat(fd, &st)) {
		file = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (file != MAP_FAILED) {
			read_pages = cached_pages(file, st.st_size);
			munmap(file, st.st_size);
		}
		close(fd);
	}

	printf("mmrs-data bigtext random=%d sparse=%d text_kb=%ld touched_kb=%ld faulted_kb=%ld "
	       "large_pct=%.1f read_kb=%ld amplification=%.2f ms=%.1f exact_pct=%.1f\n",
	       random, sparse, npages * page_size / 1024, touched * page_size / 1024,
	       faulted * page_size / 1024, faulted ? 100.0 * large / faulted : 0.0,
	       read_pages * page_size / 1024,
	       touched ? (double)read_pages / touched : 0.0,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
	       faulted ? 100.0 * exact / faulted : 0.0);
	return 0;
}
