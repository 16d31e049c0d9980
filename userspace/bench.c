// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest benchmarks of the mm-rs anonymous fault paths, run under QEMU
 * with -icount shift=0 (guest time counts guest instructions, so it repeats
 * on a loaded host) by scripts/bench.sh. Each figure is printed as a
 * "mmrs-data bench ..." line for scripts/bench.py, and readably.
 *
 *   bench anon ROUNDS	touch 256 MiB one byte a page, order 0 and 16K, 32K,
 *			64K mTHP; C path, Rust path, and each decision alone
 *			in Rust; ROUNDS rounds interleaved: faults (getrusage
 *			minflt), guest ns per MiB and per fault. Booted with
 *			one vCPU, so guest time is this loop's alone. Each
 *			touch loop is window N mod 16 of the mmrs-meter QEMU
 *			plugin (window=N on its line; a no-op without the
 *			plugin), for its exact kernel and user instructions.
 *   bench mt ROUNDS	2 and 4 threads each touching 64 MiB of their own
 *			at order 0, C and Rust: aggregate faults per second
 *   bench policy ROUNDS	the anonymous order policies (anon_order_policy
 *			mthp with only 4K, mthp with 64K always, arch, auto)
 *			on access patterns: dense (every page, in order and at
 *			random), sparse (a page per 16K or 64K, in order and at
 *			random), a malloc-heavy loop, and Debian's busybox
 *			running sort and gzip: faults, RSS against what was
 *			touched, guest ns; ROUNDS rounds interleaved
 *   bench ksm ROUNDS	KSM unmerge (MADV_UNMERGEABLE), C, Rust and C on
 *			mainline's 2025 range walk (ksm_unmerge_ref_range),
 *			rotated: sparse, 256 pages merged by ksmd in four
 *			windows of a 1 TiB area; dense, 64 MiB of merged
 *			pages, also with the C reference on a callback page
 *			walk (ksm_unmerge_ref): guest ns of the madvise()
 *			call, pages checked unmerged
 *   bench ksm-grid ROUNDS	KSM unmerge on spread layouts: 1, 64 and 4096
 *			pages spread evenly over 1 GiB, 64 GiB and 1 TiB,
 *			Rust and the C range walk, each first in turn, the
 *			layouts rotated each round; and 64 pages over 64 GiB
 *			(one a GiB) with 6.12's C loop too: guest ns,
 *			populated PTE tables
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmrs-util.h"
#include "qemu-plugin/mmrs-meter.h"

#define MIB		(1UL << 20)
#define ANON_LEN	(256 * MIB)
#define MT_LEN		(64 * MIB)

static long page_size;

/* The anonymous paths: all C, all Rust, or one of the two decisions in Rust. */
enum path { PATH_C, PATH_RUST, PATH_ORDER, PATH_FAULT, NR_PATHS };
static const char *const path_name[] = { "c", "rust", "rust_order", "rust_fault" };
static const char *const path_label[] = { "C", "Rust", "Rust order, C map", "C order, Rust map" };

static int set_path(enum path p)
{
	int a = write_str("/sys/kernel/debug/mm_rs/anon_order",
			  p == PATH_RUST || p == PATH_ORDER ? "1" : "0");
	int b = write_str("/sys/kernel/debug/mm_rs/anon_fault",
			  p == PATH_RUST || p == PATH_FAULT ? "1" : "0");

	return a ? a : b;
}

static int set_paths(int rust)
{
	return set_path(rust ? PATH_RUST : PATH_C);
}

static void set_mthp(unsigned long kb, const char *mode)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/transparent_hugepage/hugepages-%lukB/enabled", kb);
	if (write_str(path, mode))
		fprintf(stderr, "bench: cannot set %s to %s\n", path, mode);
}

static long minflt(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

/* The mmrs-meter windows opened so far (touch_metered()). */
static int meter_seq;

/* Touches [p, p + len) one byte a page; returns guest ns. */
static double touch(char *p, size_t len)
{
	double t0 = now_ns();
	size_t i;

	for (i = 0; i < len; i += page_size)
		p[i] = 1;
	return now_ns() - t0;
}

/*
 * touch() inside mmrs-meter window ++meter_seq mod 16: the plugin counts the
 * instructions of the loop and of every fault it takes, nothing else.
 */
static double touch_metered(char *p, size_t len)
{
	double t0, ns;
	size_t i;

	meter_seq++;
	t0 = now_ns();
	mmrs_meter_begin(meter_seq);
	for (i = 0; i < len; i += page_size)
		p[i] = 1;
	mmrs_meter_end(meter_seq);
	ns = now_ns() - t0;
	return ns;
}

/* @len bytes, 2 MiB-aligned so that every run lines its blocks up the same way. */
static char *map(size_t len)
{
	char *p = mmap(NULL, len + 2 * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((unsigned long)p + 2 * MIB - 1) & ~(2 * MIB - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + 2 * MIB - a);
	return a;
}

static int anon(int rounds)
{
	static const unsigned long sizes_kb[] = { 0, 16, 32, 64 };
	int r, s, i;

	printf("== bench anon: 256 MiB touched one byte a page; guest time (-icount shift=0) ==\n");
	set_mthp(2048, "never");
	for (r = 0; r < rounds; r++)
		for (s = 0; s < 4; s++)
			for (i = 0; i < NR_PATHS; i++) {
				unsigned long kb = sizes_kb[s];
				/*
				 * Rotated each round and size, so that no path is
				 * always the first (a cold page allocator) or the
				 * last (a warm one) of its group.
				 */
				int path = (i + r + s) % NR_PATHS;
				long f0, faults;
				char *p;
				double ns;

				if (set_path(path))
					return 1;
				set_mthp(16, kb == 16 ? "always" : "never");
				set_mthp(32, kb == 32 ? "always" : "never");
				set_mthp(64, kb == 64 ? "always" : "never");
				p = map(ANON_LEN);
				if (!p)
					return 1;
				f0 = minflt();
				ns = touch_metered(p, ANON_LEN);
				faults = minflt() - f0;
				munmap(p, ANON_LEN);
				printf("mmrs-data bench anon round=%d size_kb=%lu path=%s faults=%ld "
				       "ns=%.0f ns_per_mib=%.1f ns_per_fault=%.1f window=%d\n",
				       r, kb ? kb : (unsigned long)page_size / 1024,
				       path_name[path], faults, ns, ns / (ANON_LEN / MIB),
				       ns / faults, meter_seq);
				printf("  round %d  %-9s %-17s  %7ld faults  %9.1f ns/MiB  %7.1f ns/fault\n",
				       r, kb ? (kb == 16 ? "16K mTHP" : kb == 32 ? "32K mTHP" :
						"64K mTHP") : "order 0",
				       path_label[path], faults, ns / (ANON_LEN / MIB), ns / faults);
			}
	set_mthp(16, "never");
	set_mthp(32, "never");
	set_mthp(64, "never");
	set_paths(1);
	return 0;
}

struct mt_arg {
	char *p;
	double ns;
	pthread_barrier_t *go;
};

static void *mt_worker(void *data)
{
	struct mt_arg *a = data;

	pthread_barrier_wait(a->go);
	a->ns = touch(a->p, MT_LEN);
	return NULL;
}

/*
 * The CPUs this process may run on: those online, less any its affinity
 * (taskset, a cpuset) takes away.
 */
static long usable_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_COUNT(&set);
}

static int mt(int rounds)
{
	static const int nthreads[] = { 2, 4 };
	long cpus = usable_cpus();
	int r, t, k, i;

	printf("== bench mt: threads each touching 64 MiB of their own at order 0 ==\n");
	/* Each thread on a CPU of its own, or the run measures no contention. */
	if (cpus < nthreads[1]) {
		fprintf(stderr, "bench mt: %d threads need as many CPUs online, and %ld are (the kernel's NR_CPUS, -smp, or this process's affinity?)\n",
			nthreads[1], cpus);
		return 1;
	}
	printf("mmrs-bench mt: %ld CPUs online\n", cpus);
	set_mthp(2048, "never");
	set_mthp(64, "never");
	for (r = 0; r < rounds; r++)
		for (t = 0; t < 2; t++)
			for (k = 0; k <= 1; k++) {
				/* C first in even rounds, Rust first in odd ones. */
				int rust = k ^ (r & 1);
				int n = nthreads[t];
				pthread_t th[4];
				struct mt_arg args[4];
				pthread_barrier_t go;
				long f0, faults;
				double t0, ns;

				if (set_paths(rust))
					return 1;
				pthread_barrier_init(&go, NULL, n + 1);
				for (i = 0; i < n; i++) {
					args[i].p = map(MT_LEN);
					args[i].go = &go;
					if (!args[i].p ||
					    pthread_create(&th[i], NULL, mt_worker, &args[i]))
						return 1;
				}
				f0 = minflt();
				t0 = now_ns();
				pthread_barrier_wait(&go);
				for (i = 0; i < n; i++)
					pthread_join(th[i], NULL);
				ns = now_ns() - t0;
				faults = minflt() - f0;
				for (i = 0; i < n; i++)
					munmap(args[i].p, MT_LEN);
				pthread_barrier_destroy(&go);
				printf("mmrs-data bench mt round=%d threads=%d path=%s faults=%ld ns=%.0f "
				       "faults_per_s=%.0f\n", r, n, rust ? "rust" : "c", faults, ns,
				       faults * 1e9 / ns);
				printf("  round %d  %d threads  %-4s  %7ld faults  %10.0f faults/s\n",
				       r, n, rust ? "Rust" : "C", faults, faults * 1e9 / ns);
			}
	set_paths(1);
	return 0;
}

/* The order policies compared, with the mTHP knobs each runs with. */
static const struct {
	const char *name, *policy, *mthp64;
} policies[] = {
	{ "mthp-4k", "mthp", "never" },
	{ "mthp-64k", "mthp", "always" },
	{ "arch", "arch", "never" },
	{ "auto", "auto", "never" },
};
#define NR_POLICIES (sizeof(policies) / sizeof(policies[0]))

#define POLICY_LEN	(64 * MIB)
#define BUSYBOX		"/bin/busybox"
#define BB_INPUT	"/tmp/bench-input.txt"
#define BB_OUTPUT	"/tmp/bench-output"

static int set_policy(unsigned int i)
{
	set_mthp(64, policies[i].mthp64);
	return write_str("/sys/kernel/mm/mm_rs/anon_order_policy", policies[i].policy);
}

/* A reproducible pseudo-random sequence (the same on every run and architecture). */
static unsigned long lcg = 1;

static unsigned long rnd(void)
{
	lcg = lcg * 6364136223846793005UL + 1442695040888963407UL;
	return lcg >> 33;
}

/* The access patterns on an anonymous region: which pages, in which order. */
static const struct {
	const char *name;
	unsigned long step_kb;	/* one page touched per step */
	int random;		/* in a random order */
} patterns[] = {
	{ "dense-seq", 0, 0 },
	{ "dense-random", 0, 1 },
	{ "sparse16k-seq", 16, 0 },
	{ "sparse64k-seq", 64, 0 },
	{ "sparse64k-random", 64, 1 },
};
#define NR_PATTERNS (sizeof(patterns) / sizeof(patterns[0]))

static void policy_line(int round, unsigned int pol, const char *pattern, long faults,
			long rss_kb, long touched_kb, double ns)
{
	printf("mmrs-data bench policy round=%d policy=%s pattern=%s faults=%ld rss_kb=%ld "
	       "touched_kb=%ld ns=%.0f\n", round, policies[pol].name, pattern, faults, rss_kb,
	       touched_kb, ns);
	printf("  round %d  %-8s  %-16s  %7ld faults  %8ld kB resident for %8ld kB touched  "
	       "%8.2f ms\n", round, policies[pol].name, pattern, faults, rss_kb, touched_kb,
	       ns / 1e6);
}

/* Resident kB of [p, p + len), from mincore(). */
static long resident_kb(char *p, size_t len)
{
	size_t n = len / page_size, i;
	unsigned char *vec = malloc(n);
	long pages = 0;

	if (!vec || mincore(p, len, vec)) {
		free(vec);
		return -1;
	}
	for (i = 0; i < n; i++)
		pages += vec[i] & 1;
	free(vec);
	return pages * (page_size / 1024);
}

static int policy_pattern(int round, unsigned int pol, unsigned int pat, unsigned long *order)
{
	size_t step = patterns[pat].step_kb ? (size_t)patterns[pat].step_kb * 1024 : (size_t)page_size;
	size_t n = POLICY_LEN / step, i;
	char *p = map(POLICY_LEN);
	long f0, faults, rss0, rss1;
	double t0, ns;

	if (!p)
		return 1;
	rss0 = proc_kb("/proc/self/status", "RssAnon");
	f0 = minflt();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		p[order[i] * step] = 1;
	ns = now_ns() - t0;
	faults = minflt() - f0;
	policy_line(round, pol, patterns[pat].name, faults, resident_kb(p, POLICY_LEN),
		    n * page_size / 1024, ns);
	/*
	 * One reclaim pass (drop_caches 3: the LRU batches drained, every
	 * shrinker run, the deferred-split one with it), then the anonymous
	 * memory still resident (RssAnon: pages mapped to the zero page are not
	 * counted, unlike mincore()'s), and what touching the same pages again
	 * costs. With split_underused, the underused mTHPs are split there.
	 */
	if (write_str("/proc/sys/vm/drop_caches", "3"))
		return 1;
	rss1 = proc_kb("/proc/self/status", "RssAnon") - rss0;
	f0 = minflt();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		p[order[i] * step] = 2;
	ns = now_ns() - t0;
	printf("mmrs-data bench reclaim round=%d policy=%s pattern=%s rss_kb=%ld again_faults=%ld "
	       "again_ns=%.0f\n", round, policies[pol].name, patterns[pat].name, rss1,
	       minflt() - f0, ns);
	printf("  round %d  %-8s  %-16s  after a reclaim pass: %8ld kB resident; again: %ld faults, "
	       "%.2f ms\n", round, policies[pol].name, patterns[pat].name, rss1, minflt() - f0,
	       ns / 1e6);
	munmap(p, POLICY_LEN);
	return 0;
}

/*
 * The malloc-heavy loop, in a process of its own (a heap nobody used): 40000
 * blocks of 16 bytes to 16K, each written whole; one in three freed again
 * at random. Reports the faults, the growth of RssAnon and the bytes live.
 */
static int malloc_child(void)
{
	enum { NBLOCKS = 40000 };
	static char *blocks[NBLOCKS];
	static size_t sizes[NBLOCKS];
	long f0 = minflt(), rss0 = proc_kb("/proc/self/status", "RssAnon");
	size_t live = 0;
	double t0 = now_ns();
	int i;

	for (i = 0; i < NBLOCKS; i++) {
		sizes[i] = 16 + rnd() % (16 * 1024);
		blocks[i] = malloc(sizes[i]);
		if (!blocks[i])
			return 1;
		memset(blocks[i], 1, sizes[i]);
		live += sizes[i];
		if (rnd() % 3 == 0) {
			unsigned long j = rnd() % (i + 1);

			if (blocks[j]) {
				free(blocks[j]);
				blocks[j] = NULL;
				live -= sizes[j];
			}
		}
	}
	printf("malloc %ld %ld %ld %.0f\n", minflt() - f0,
	       proc_kb("/proc/self/status", "RssAnon") - rss0, (long)(live / 1024), now_ns() - t0);
	return 0;
}

/*
 * Runs @argv with its output to @out; fills @ru with its resource use, and
 * @line with its first line of output if @line is not NULL.
 */
static int run_child(char *const argv[], const char *out, struct rusage *ru, double *ns,
		     char *line, size_t len)
{
	int pipefd[2] = { -1, -1 };
	int status;
	double t0;
	pid_t pid;

	if (line && pipe(pipefd))
		return 1;
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		int fd = line ? pipefd[1] : open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (line) {
		ssize_t n;

		close(pipefd[1]);
		n = read(pipefd[0], line, len - 1);
		line[n > 0 ? n : 0] = 0;
		close(pipefd[0]);
	}
	if (wait4(pid, &status, 0, ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	*ns = now_ns() - t0;
	return 0;
}

/* Lines of words for sort and gzip: 4 MiB, the same every run. */
static int write_input(void)
{
	static const char *const words[] = {
		"folio", "order", "fault", "table", "entry", "anon", "vma", "page", "lock",
		"rmap", "lru", "zero", "huge", "contpte", "reclaim", "policy",
	};
	FILE *f = fopen(BB_INPUT, "w");
	size_t bytes = 0;

	if (!f)
		return 1;
	while (bytes < 4 * MIB) {
		int w, n = 3 + rnd() % 6;

		for (w = 0; w < n; w++)
			bytes += fprintf(f, "%s%s%lu", w ? " " : "", words[rnd() % 16], rnd() % 1000);
		bytes += fprintf(f, "\n");
	}
	return fclose(f) ? 1 : 0;
}

static int policy_bench(int rounds)
{
	size_t maxn = POLICY_LEN / page_size;
	unsigned long *orders[NR_PATTERNS];
	unsigned int k, pat;
	int r, have_busybox = !access(BUSYBOX, X_OK);

	printf("== bench policy: anonymous order policies by access pattern; guest time ==\n");
	/* THP "madvise": no PMD folios for these VMAs, and arch and auto may act. */
	if (write_str("/sys/kernel/mm/transparent_hugepage/enabled", "madvise"))
		return 1;
	set_mthp(2048, "never");
	set_mthp(16, "never");
	set_mthp(32, "never");
	/*
	 * The reclaim pass splits mTHPs with more than 12 of 16 pages zero-filled
	 * (CONFIG_MM_RS_SPLIT_UNDERUSED; 511, the default, splits none).
	 */
	write_str("/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none", "409");
	/* The order of each pattern's touches, made before anything is measured. */
	for (pat = 0; pat < NR_PATTERNS; pat++) {
		size_t step = patterns[pat].step_kb ? (size_t)patterns[pat].step_kb * 1024 : (size_t)page_size;
		size_t n = POLICY_LEN / step, i;

		orders[pat] = malloc(maxn * sizeof(unsigned long));
		if (!orders[pat])
			return 1;
		for (i = 0; i < n; i++)
			orders[pat][i] = i;
		for (i = n - 1; patterns[pat].random && i > 0; i--) {
			size_t j = rnd() % (i + 1);
			unsigned long t = orders[pat][i];

			orders[pat][i] = orders[pat][j];
			orders[pat][j] = t;
		}
		/* Faulted in now, not during a measurement. */
		memset(orders[pat] + n, 0, (maxn - n) * sizeof(unsigned long));
	}
	if (have_busybox && write_input())
		return 1;
	if (!have_busybox)
		printf("bench policy: no %s: the busybox rows are left out\n", BUSYBOX);
	for (r = 0; r < rounds; r++)
		for (k = 0; k < NR_POLICIES; k++) {
			/* Rotated each round, as the paths of bench anon are. */
			unsigned int pol = (k + r) % NR_POLICIES;
			char *malloc_argv[] = { "/bin/bench", "malloc-child", NULL };
			char *sort_argv[] = { BUSYBOX, "sort", BB_INPUT, NULL };
			char *gzip_argv[] = { BUSYBOX, "gzip", "-c", BB_INPUT, NULL };
			struct rusage ru;
			long faults, rss_kb, live_kb;
			char line[256];
			double ns;

			if (set_policy(pol))
				return 1;
			for (pat = 0; pat < NR_PATTERNS; pat++)
				if (policy_pattern(r, pol, pat, orders[pat]))
					return 1;
			if (run_child(malloc_argv, NULL, &ru, &ns, line, sizeof(line)) ||
			    sscanf(line, "malloc %ld %ld %ld %lf", &faults, &rss_kb, &live_kb,
				   &ns) != 4)
				return 1;
			policy_line(r, pol, "malloc", faults, rss_kb, live_kb, ns);
			if (!have_busybox)
				continue;
			/* A program's peak RSS: what it touched is not known (touched_kb=0). */
			if (run_child(sort_argv, BB_OUTPUT, &ru, &ns, NULL, 0))
				return 1;
			policy_line(r, pol, "busybox-sort", ru.ru_minflt, ru.ru_maxrss, 0, ns);
			if (run_child(gzip_argv, BB_OUTPUT, &ru, &ns, NULL, 0))
				return 1;
			policy_line(r, pol, "busybox-gzip", ru.ru_minflt, ru.ru_maxrss, 0, ns);
		}
	write_str("/sys/kernel/mm/mm_rs/anon_order_policy", "mthp");
	set_mthp(64, "never");
	unlink(BB_INPUT);
	unlink(BB_OUTPUT);
	return 0;
}

#define KSM_SPARSE_LEN	(1UL << 40)
#define KSM_WINDOW	64		/* pages merged in each of four windows */
#define KSM_DENSE_LEN	(64 * MIB)

/* The PFN of the page at @addr, from /proc/self/pagemap; 0 if none. */
static unsigned long pfn_of(int pagemap, const char *addr)
{
	unsigned long e = 0;
	off_t off = (unsigned long)addr / page_size * sizeof(e);

	if (pread(pagemap, &e, sizeof(e), off) != sizeof(e) || !(e >> 63))
		return 0;
	return e & ((1UL << 55) - 1);
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Whether the @n pages at @pages[] are unmerged: each maps a PFN of its own,
 * none of them @peer_pfn (the page they were merged with), and holds its
 * contents, every byte @fill.
 */
static int ksm_unmerged(int pagemap, char *const *pages, size_t n, unsigned long peer_pfn,
			int fill)
{
	unsigned long *pfns = malloc(n * sizeof(*pfns));
	size_t i, j;
	int ok = pfns != NULL;

	for (i = 0; ok && i < n; i++) {
		pfns[i] = pfn_of(pagemap, pages[i]);
		ok = pfns[i] && pfns[i] != peer_pfn;
		for (j = 0; ok && j < (size_t)page_size; j++)
			ok = pages[i][j] == fill;
	}
	if (ok) {
		qsort(pfns, n, sizeof(*pfns), cmp_ulong);
		for (i = 1; ok && i < n; i++)
			ok = pfns[i] != pfns[i - 1];
	}
	free(pfns);
	return ok;
}

/*
 * Whether the @n pages at @pages[] all map one PFN (merged: 1) or all map
 * different ones (unmerged: 0); -1 if neither.
 */
static int ksm_merged(int pagemap, char *const *pages, size_t n)
{
	unsigned long first = pfn_of(pagemap, pages[0]), pfn;
	size_t i, same = 0;

	for (i = 1; i < n; i++) {
		pfn = pfn_of(pagemap, pages[i]);
		if (!pfn)
			return -1;
		same += pfn == first;
	}
	return same == n - 1 ? 1 : same == 0 ? 0 : -1;
}

/* ksmd merges the pages, then stops; 0 once they share one PFN. */
static int ksm_merge(int pagemap, char *const *pages, size_t n)
{
	int tries, m = -1;

	if (write_str("/sys/kernel/mm/ksm/run", "1"))
		return -1;
	for (tries = 0; tries < 6000 && m != 1; tries++) {
		usleep(10000);
		m = ksm_merged(pagemap, pages, n);
	}
	write_str("/sys/kernel/mm/ksm/run", "0");
	return m == 1 ? 0 : -1;
}

/* The unmerge paths: 6.12's C loop, Rust, the C loop on a callback page walk. */
enum ksm_path { KSM_C, KSM_RUST, KSM_C_WALK, KSM_C_RANGE };
static const char *const ksm_path_name[] = { "c", "rust", "c-walk", "c-range" };
static const char *const ksm_path_title[] = { "C", "Rust", "C, callback walk", "C, range walk" };

/*
 * One measurement: an area of @len bytes with @n pages at @pages[] (offsets
 * into it) filled alike, merged by ksmd while only @win bytes around each
 * are mergeable, then all of it mergeable; MADV_UNMERGEABLE of the whole
 * area, by @path, timed.
 */
static int ksm_one(int round, const char *kind, enum ksm_path path, size_t len,
		   const size_t *offs, size_t n, size_t win)
{
	/* The pages, and a peer page outside the area they all merge with. */
	char **pages = malloc((n + 1) * sizeof(*pages));
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	char *area, *peer;
	unsigned long peer_pfn;
	size_t i, tables = 0;
	double t0, ns;

	if (!pages || pagemap < 0)
		return 1;
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	peer = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || peer == MAP_FAILED) {
		perror("bench ksm: mmap");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pages[i] = area + offs[i];
		memset(pages[i], 0x5a, page_size);
		/* PTE tables populated: one per 2 MiB range with a page (offs ascending). */
		tables += !i || offs[i] / (2 * MIB) != offs[i - 1] / (2 * MIB);
	}
	pages[n] = peer;
	memset(peer, 0x5a, page_size);
	if (madvise(peer, page_size, MADV_MERGEABLE)) {
		perror("bench ksm: MADV_MERGEABLE");
		return 1;
	}
	/* Mergeable windows first (one anon_vma for all), so ksmd scans little. */
	for (i = 0; i < n; i++) {
		char *w = area + offs[i] / win * win;

		if (i && w == area + offs[i - 1] / win * win)
			continue;
		if (madvise(w, win, MADV_MERGEABLE)) {
			perror("bench ksm: MADV_MERGEABLE");
			return 1;
		}
	}
	if (ksm_merge(pagemap, pages, n + 1)) {
		fprintf(stderr, "bench ksm: ksmd did not merge the %s pages in 60 s\n", kind);
		return 1;
	}
	peer_pfn = pfn_of(pagemap, peer);
	if (madvise(area, len, MADV_MERGEABLE) ||
	    write_str("/sys/kernel/debug/mm_rs/ksm_unmerge", path == KSM_RUST ? "1" : "0") ||
	    write_str("/sys/kernel/debug/mm_rs/ksm_unmerge_ref", path == KSM_C_WALK ? "1" : "0") ||
	    write_str("/sys/kernel/debug/mm_rs/ksm_unmerge_ref_range",
		      path == KSM_C_RANGE ? "1" : "0")) {
		perror("bench ksm: MADV_MERGEABLE or switch");
		return 1;
	}
	t0 = now_ns();
	if (madvise(area, len, MADV_UNMERGEABLE)) {
		perror("bench ksm: MADV_UNMERGEABLE");
		return 1;
	}
	ns = now_ns() - t0;
	if (!ksm_unmerged(pagemap, pages, n, peer_pfn, 0x5a)) {
		fprintf(stderr, "bench ksm: %s, %s: a page still merged, sharing a PFN or changed "
			"after MADV_UNMERGEABLE\n", kind, ksm_path_name[path]);
		return 1;
	}
	printf("mmrs-data bench ksm round=%d kind=%s path=%s pages=%zu area_kb=%zu tables=%zu "
	       "ns=%.0f\n", round, kind, ksm_path_name[path], n, len >> 10, tables, ns);
	printf("bench ksm: round %d, %s, %s: %zu pages (%zu PTE tables) in %zu MiB unmerged in "
	       "%.3f ms\n", round, kind, ksm_path_title[path], n, tables, len >> 20, ns / 1e6);
	munmap(area, len);
	munmap(peer, page_size);
	close(pagemap);
	free(pages);
	return 0;
}

/* The C references' switches (test kernels): 1, with a message, if any is missing. */
static int ksm_refs_missing(const char *what)
{
	if (access("/sys/kernel/debug/mm_rs/ksm_unmerge", W_OK) ||
	    access("/sys/kernel/debug/mm_rs/ksm_unmerge_ref", W_OK) ||
	    access("/sys/kernel/debug/mm_rs/ksm_unmerge_ref_range", W_OK)) {
		fprintf(stderr, "%s: no /sys/kernel/debug/mm_rs/ksm_unmerge, ksm_unmerge_ref or "
			"ksm_unmerge_ref_range (a test kernel has them)\n", what);
		return 1;
	}
	return 0;
}

/* Back to the default: Rust, the references off. */
static void ksm_refs_off(void)
{
	write_str("/sys/kernel/debug/mm_rs/ksm_unmerge_ref", "0");
	write_str("/sys/kernel/debug/mm_rs/ksm_unmerge_ref_range", "0");
	write_str("/sys/kernel/debug/mm_rs/ksm_unmerge", "1");
}

static int ksm_bench(int rounds)
{
	size_t nsparse = 4 * KSM_WINDOW, ndense = KSM_DENSE_LEN / page_size, i;
	size_t *sparse = malloc(nsparse * sizeof(*sparse));
	size_t *dense = malloc(ndense * sizeof(*dense));
	int r, k;

	static const enum ksm_path sparse_paths[] = { KSM_C, KSM_RUST, KSM_C_RANGE };
	static const enum ksm_path dense_paths[] = { KSM_C, KSM_RUST, KSM_C_WALK, KSM_C_RANGE };

	printf("== bench ksm: MADV_UNMERGEABLE, C and Rust; guest time ==\n");
	if (!sparse || !dense || ksm_refs_missing("bench ksm"))
		return 1;
	/* Four windows: the start, a third, two thirds and the end of the area. */
	for (i = 0; i < nsparse; i++) {
		size_t w = i / KSM_WINDOW, base = KSM_SPARSE_LEN / 3 * w;

		if (w == 3)
			base = KSM_SPARSE_LEN - KSM_WINDOW * page_size;
		base &= ~(2 * MIB - 1);
		sparse[i] = base + (i % KSM_WINDOW) * page_size;
	}
	for (i = 0; i < ndense; i++)
		dense[i] = i * page_size;
	/*
	 * One KSM page for all the pages (6.12 caps a page's sharers at 256);
	 * no smart scan, which skips for a growing number of scans an address
	 * that did not merge before (norandmaps gives each run the addresses of
	 * the last), so that every run merges in the same few scans.
	 */
	if (write_str("/sys/kernel/mm/ksm/smart_scan", "0") ||
	    write_str("/sys/kernel/mm/ksm/max_page_sharing", "32768") ||
	    write_str("/sys/kernel/mm/ksm/pages_to_scan", "4000") ||
	    write_str("/sys/kernel/mm/ksm/sleep_millisecs", "1") ||
	    write_str("/sys/kernel/mm/transparent_hugepage/enabled", "never"))
		return 1;
	for (r = 0; r < rounds; r++) {
		/* Rotated each round: each path first in one round of three. */
		for (k = 0; k < 3; k++)
			if (ksm_one(r, "sparse", sparse_paths[(k + r) % 3], KSM_SPARSE_LEN, sparse,
				    nsparse, 2 * MIB))
				return 1;
		/* The four dense paths, each first in one round of four. */
		for (k = 0; k < 4; k++)
			if (ksm_one(r, "dense", dense_paths[(k + r) % 4], KSM_DENSE_LEN, dense,
				    ndense, KSM_DENSE_LEN))
				return 1;
	}
	ksm_refs_off();
	return 0;
}

/* The layouts of bench ksm-grid: pages, spread evenly over an area of GiB. */
static const struct { size_t pages, area_gb; } ksm_grid[] = {
	{ 1, 1 }, { 64, 1 }, { 4096, 1 },
	{ 1, 64 }, { 64, 64 }, { 4096, 64 },
	{ 1, 1024 }, { 64, 1024 }, { 4096, 1024 },
};
#define KSM_GRID_N	(sizeof(ksm_grid) / sizeof(ksm_grid[0]))

static int ksm_grid_one(int round, size_t g, enum ksm_path path)
{
	size_t n = ksm_grid[g].pages, len = ksm_grid[g].area_gb << 30, stride = len / n, i;
	size_t *offs = malloc(n * sizeof(*offs));
	char kind[32];
	int ret;

	if (!offs)
		return 1;
	/* In the middle of each stride, page-aligned: not at a table's start. */
	for (i = 0; i < n; i++)
		offs[i] = (i * stride + stride / 2) & ~(size_t)(page_size - 1);
	snprintf(kind, sizeof(kind), "grid-%zu-%zug", n, ksm_grid[g].area_gb);
	ret = ksm_one(round, kind, path, len, offs, n, 2 * MIB);
	free(offs);
	return ret;
}

static int ksm_grid_bench(int rounds)
{
	size_t g;
	int r, k;

	printf("== bench ksm-grid: MADV_UNMERGEABLE of spread layouts; guest time ==\n");
	if (ksm_refs_missing("bench ksm-grid"))
		return 1;
	/* As bench ksm: one KSM page for all, no smart scan. */
	if (write_str("/sys/kernel/mm/ksm/smart_scan", "0") ||
	    write_str("/sys/kernel/mm/ksm/max_page_sharing", "32768") ||
	    write_str("/sys/kernel/mm/ksm/pages_to_scan", "4000") ||
	    write_str("/sys/kernel/mm/ksm/sleep_millisecs", "1") ||
	    write_str("/sys/kernel/mm/transparent_hugepage/enabled", "never"))
		return 1;
	for (r = 0; r < rounds; r++) {
		/* One GiB a page over 64 GiB: C and Rust, each first in turn. */
		for (k = 0; k < 2; k++)
			if (ksm_grid_one(r, 4, (k + r) % 2 ? KSM_C : KSM_RUST))
				return 1;
		/*
		 * Every layout in Rust and on the C range walk, from a different
		 * layout each round, Rust and C first in turn.
		 */
		for (g = 0; g < KSM_GRID_N; g++)
			for (k = 0; k < 2; k++)
				if (ksm_grid_one(r, (g + r * 4) % KSM_GRID_N,
						 (k + r + g) % 2 ? KSM_C_RANGE : KSM_RUST))
					return 1;
	}
	ksm_refs_off();
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 3;

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "anon"))
		return anon(rounds);
	if (argc > 1 && !strcmp(argv[1], "mt"))
		return mt(rounds);
	if (argc > 1 && !strcmp(argv[1], "policy"))
		return policy_bench(rounds);
	if (argc > 1 && !strcmp(argv[1], "ksm-grid"))
		return ksm_grid_bench(rounds);
	if (argc > 1 && !strcmp(argv[1], "ksm"))
		return ksm_bench(rounds);
	if (argc > 1 && !strcmp(argv[1], "malloc-child"))
		return malloc_child();
	fprintf(stderr, "usage: bench anon|mt|policy|ksm|ksm-grid [ROUNDS]\n");
	return 2;
}
