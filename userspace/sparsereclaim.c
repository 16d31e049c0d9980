// SPDX-License-Identifier: GPL-2.0
/*
 * sparsereclaim: what one reclaim pass gives back of sparsely touched
 * anonymous memory, at default settings (max_ptes_none 511), under the order
 * policies (issue 36): auto's own underused verdict against order 0.
 *
 * For each policy (order 0: mthp with every size off; mthp-64k: mthp with
 * 64K always; auto), in a memory cgroup of its own: 256 MiB mapped, one page
 * of each 64K block written (a byte of its own) in a random order, then one
 * memory.reclaim pass of the cgroup (the deferred-split shrinker runs there;
 * without memory cgroups, as in the test kernels, drop_caches 3 instead),
 * and RssAnon before and after; every written byte is read back. Then, under
 * auto, 64 MiB written densely, the same pass: nothing may be given back.
 * Prints "mmrs-data sparsereclaim ..." lines; exits 1 if a byte was lost or
 * a dense page given back.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmrs-util.h"

#define MIB		(1UL << 20)
#define SPARSE_LEN	(256 * MIB)
#define DENSE_LEN	(64 * MIB)
#define BLOCK		(64 * 1024UL)
#define THP		"/sys/kernel/mm/transparent_hugepage/"
#define POLICY		"/sys/kernel/mm/mm_rs/anon_order_policy"
#define CG		"/sys/fs/cgroup/mmrs-sparsereclaim"

static long page_size;

static int set_sizes(int kb64)
{
	static const char *const kb[] = { "16", "32", "64", "2048" };
	char path[128];
	int i, err = 0;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), THP "hugepages-%skB/enabled", kb[i]);
		err |= write_str(path, kb64 && i == 2 ? "always" : "never");
	}
	return err;
}

/* Whether memory cgroups can be made here (cgroup v2 with the memory controller). */
static int have_memcg;

/*
 * Moves this process into a fresh memory cgroup named after @name; without
 * memory cgroups (the test kernels), @dir is empty and nothing is done.
 */
static int enter_cgroup(const char *name, char *dir, size_t len)
{
	char path[256], pid[32];

	dir[0] = 0;
	if (!have_memcg)
		return 0;
	snprintf(dir, len, CG "-%s", name);
	rmdir(dir);
	if (mkdir(dir, 0755))
		return 1;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_str(path, pid) != 0;
}

static void leave_cgroup(const char *dir)
{
	char pid[32];

	if (!dir[0])
		return;
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_str("/sys/fs/cgroup/cgroup.procs", pid);
	rmdir(dir);
}

/*
 * One memory.reclaim pass of @dir, with swappiness=0 (6.12's proactive
 * reclaim argument): no anonymous page is swapped out, so what the pass
 * gives back of anonymous memory is what the deferred-split shrinker's
 * splits free, as without swap (the prod kernels swap to zram0).
 * -EAGAIN (less reclaimed than asked) is no failure. Without memory
 * cgroups, one global pass: drop_caches 3, which drains the LRU batches and
 * runs every shrinker, the deferred-split one among them.
 */
static int reclaim(const char *dir)
{
	char path[256];
	int err;

	if (!dir[0])
		return write_str("/proc/sys/vm/drop_caches", "3") != 0;
	snprintf(path, sizeof(path), "%s/memory.reclaim", dir);
	err = write_str(path, "64M swappiness=0");
	return err && err != -EAGAIN;
}

static int sparse(const char *name, unsigned int seed)
{
	size_t nblocks = SPARSE_LEN / BLOCK, i, *order = malloc(nblocks * sizeof(size_t));
	long rss0, rss1, rss2, lost = 0;
	char dir[128], *p;

	if (!order || enter_cgroup(name, dir, sizeof(dir)))
		return 1;
	/* A random order of the blocks (Fisher-Yates, a fixed LCG). */
	for (i = 0; i < nblocks; i++)
		order[i] = i;
	for (i = nblocks - 1; i > 0; i--) {
		size_t j, t;

		seed = seed * 1103515245 + 12345;
		j = (seed >> 8) % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	rss0 = proc_kb("/proc/self/status", "RssAnon");
	p = mmap(NULL, SPARSE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < nblocks; i++)
		p[order[i] * BLOCK + (order[i] % 16) * page_size + 7] = (char)(order[i] | 1);
	rss1 = proc_kb("/proc/self/status", "RssAnon") - rss0;
	if (reclaim(dir))
		return 1;
	rss2 = proc_kb("/proc/self/status", "RssAnon") - rss0;
	for (i = 0; i < nblocks; i++)
		lost += p[i * BLOCK + (i % 16) * page_size + 7] != (char)(i | 1);
	printf("mmrs-data sparsereclaim pattern=sparse policy=%s rss_kb=%ld after_kb=%ld lost=%ld\n",
	       name, rss1, rss2, lost);
	printf("sparsereclaim: %-8s one page per 64K block of 256 MiB: RssAnon %ld kB, after a "
	       "reclaim pass %ld kB; %ld bytes lost\n", name, rss1, rss2, lost);
	munmap(p, SPARSE_LEN);
	leave_cgroup(dir);
	free(order);
	return lost != 0;
}

static int dense(void)
{
	long rss0, rss1, rss2, lost = 0;
	char dir[128], *p;
	size_t i;

	if (enter_cgroup("dense", dir, sizeof(dir)))
		return 1;
	rss0 = proc_kb("/proc/self/status", "RssAnon");
	p = mmap(NULL, DENSE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < DENSE_LEN; i += page_size)
		p[i] = (char)(i / page_size | 1);
	rss1 = proc_kb("/proc/self/status", "RssAnon") - rss0;
	if (reclaim(dir))
		return 1;
	rss2 = proc_kb("/proc/self/status", "RssAnon") - rss0;
	for (i = 0; i < DENSE_LEN; i += page_size)
		lost += p[i] != (char)(i / page_size | 1);
	printf("mmrs-data sparsereclaim pattern=dense policy=auto rss_kb=%ld after_kb=%ld lost=%ld\n",
	       rss1, rss2, lost);
	printf("sparsereclaim: auto     64 MiB written densely: RssAnon %ld kB, after a reclaim pass "
	       "%ld kB; %ld bytes lost\n", rss1, rss2, lost);
	munmap(p, DENSE_LEN);
	leave_cgroup(dir);
	return lost != 0 || rss2 < rss1;
}

int main(void)
{
	char max_none[16], line[256];
	int rc = 0, swaps = -1;
	FILE *f = fopen("/proc/swaps", "r");

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	while (f && fgets(line, sizeof(line), f))
		swaps++;
	if (f)
		fclose(f);
	read_str(THP "khugepaged/max_ptes_none", max_none, sizeof(max_none));
	have_memcg = access("/sys/fs/cgroup/cgroup.subtree_control", F_OK) == 0;
	printf("sparsereclaim: max_ptes_none %s (its default is 511), %d swap device(s), %s\n",
	       max_none, swaps, have_memcg ? "a memory cgroup each, memory.reclaim swappiness=0" :
	       "no memory cgroups: drop_caches 3 as the reclaim pass");
	if (write_str(THP "enabled", "madvise") || access(POLICY, W_OK))
		return 1;
	rc |= set_sizes(0) || write_str(POLICY, "mthp") || sparse("order0", 1);
	rc |= set_sizes(1) || write_str(POLICY, "mthp") || sparse("mthp-64k", 1);
	rc |= set_sizes(0) || write_str(POLICY, "auto") || sparse("auto", 1);
	rc |= dense();
	set_sizes(0);
	write_str(POLICY, "mthp");
	return rc;
}
