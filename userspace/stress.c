// SPDX-License-Identifier: GPL-2.0
/*
 * stress: a bounded mm stress run with exact content checks.
 *
 * Usage: stress [SECONDS] [require] [procs=N] [threads=N] [memcg_mb=N]
 *		 [erofs=IMAGE] [seed=N]
 *
 * For SECONDS (default 60) worker processes (procs, default 2) of several
 * threads each (threads, default 3) do, in one mm and across the forked
 * processes:
 *   anonymous faults at every mTHP size (each hugepages-*kB/enabled is set
 *   to always for the run, and restored), MADV_DONTNEED, MADV_DONTNEED_LOCKED,
 *   MADV_FREE, MADV_PAGEOUT, MADV_COLLAPSE (anonymous, shmem from a memfd,
 *   and a read-only mapping of an executable on EROFS, a filesystem with large
 *   folios: collapse_file() and collapse_pte_mapped_thp() with
 *   CONFIG_READ_ONLY_THP_FOR_FS), mremap (moves, MREMAP_DONTUNMAP, shrink and
 *   grow), fork and COW, munmap/mmap, GUP reads (process_vm_readv and
 *   /proc/PID/mem, of the process itself and of the workers from the parent),
 *   UFFDIO_MOVE and UFFDIO_COPY (userfaultfd with UFFD_USER_MODE_ONLY), mbind
 *   and migrate_pages between two NUMA nodes, swap-out under a cgroup memory
 *   limit (a cgroup v2 child, or v1 on a host without v2 memory, with
 *   memory.max smaller than its worker's working set), and exec of the EROFS
 *   text (/bigtext.erofs, as exectext runs it).
 *
 * Every page a thread owns carries a pattern derived from a tag (the address
 * it was written at) and a generation, one 64-bit word per 64 bytes, zeros
 * between; the thread keeps what each page must hold (zero, that pattern, or
 * either of the two after MADV_FREE; a hole in a userfaultfd range is never
 * touched) and checks the pages after each operation, all of them every few
 * operations. Each process also has a racy region that all its threads and
 * the parent (through /proc/PID/mem) hit at once; there every word must be
 * zero or its own value. The file mapping must always read as the file.
 *
 * Prints operations per second per kind, the PT-reclaim counts
 * (pt_reclaim_fast/slow/kept deltas of /proc/vmstat) and other mm counters.
 * Where tracefs has the khugepaged events, it also counts the results of its
 * own MADV_COLLAPSE scans by event and result ("collapse trace"), which say
 * why a collapse failed where the errno cannot: madvise_collapse() folds
 * most reasons into EINVAL.
 * A feature the kernel lacks is reported as "not available"; with "require"
 * (the prod kernels) that fails the run. Exits 1 on any mismatch, a worker
 * killed by a signal or hung, or an OOM kill in the stress cgroup.
 *
 * The stock tools run beside it (make workload W=stress: stress-ng's memory
 * stressors with --verify, trinity on the mm system calls). What this
 * program does that neither does: PT reclaim's races as mixes (MADV_DONTNEED
 * of whole PMDs from one thread while others fault, GUP-read, mremap and
 * collapse the same PMDs, every page's content checked after each step;
 * stress-ng's stressors each keep to their own mapping, trinity checks no
 * content), UFFDIO_MOVE (6.8; stress-ng 0.15.06 and trinity 1.9 predate
 * it), MADV_COLLAPSE of anonymous, shmem and EROFS-backed read-only file
 * ranges with what each collapse left checked (stress-ng's madvise stressor
 * may pick MADV_COLLAPSE at random, and checks nothing after it), and exec
 * of EROFS text under all of it. The plain fault, madvise,
 * mremap, fork and swap load it shares with stress-ng stays: it is what the
 * races above race with.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmrs-util.h"

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1 << 16)
#endif
#ifndef UFFDIO_MOVE
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
	__u64 mode;
	__s64 move;
};
#define UFFDIO_MOVE _IOWR(UFFDIO, 0x05, struct uffdio_move)
#endif
#ifndef UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES ((__u64)1 << 1)
#endif
#define MPOL_DEFAULT	0
#define MPOL_BIND	2
#define MPOL_MF_MOVE	(1 << 1)

#define SZ_2M		(2UL << 20)
#define MAX_PROCS	8
#define MAX_THREADS	8
#define MAX_SIZES	16
#define HIST		16
#define IMG_MNT		"/mnt/stress"

/* ---- operation kinds, counted in the shared control page ---- */
enum {
	K_FAULT, K_WRITE, K_CHECK, K_DONTNEED, K_DONTNEED_LOCKED, K_FREE, K_PAGEOUT,
	K_COLLAPSE_ANON, K_COLLAPSE_SHMEM, K_COLLAPSE_FILE, K_MREMAP, K_MMAP_MUNMAP,
	K_FORK_COW, K_GUP_SELF, K_GUP_REMOTE, K_UFFD_MOVE, K_UFFD_COPY, K_MBIND,
	K_MIGRATE_PAGES, K_PUNCH_HOLE, K_RACY, K_FILE_CHECK, K_MEMCG, K_EXEC, NKINDS
};
static const char *const kind_name[NKINDS] = {
	"fault", "write", "check", "dontneed", "dontneed_locked", "free", "pageout",
	"collapse_anon", "collapse_shmem", "collapse_file", "mremap", "mmap_munmap",
	"fork_cow", "gup_self", "gup_remote", "uffd_move", "uffd_copy", "mbind",
	"migrate_pages", "punch_hole", "racy_ops", "file_check", "memcg_ops", "exec",
};
/* Feature flags: set when seen working, or marked unavailable. */
enum {
	F_MTHP, F_COLLAPSE_ANON, F_COLLAPSE_SHMEM, F_COLLAPSE_FILE, F_UFFD_MOVE, F_NUMA,
	F_MEMCG, F_SWAP, F_EXEC, F_PT_RECLAIM, F_DONTNEED_LOCKED, NFEAT
};
static const char *const feat_name[NFEAT] = {
	"mTHP sizes", "MADV_COLLAPSE anon", "MADV_COLLAPSE shmem", "MADV_COLLAPSE file",
	"UFFDIO_MOVE", "two NUMA nodes", "memcg limit", "swap", "exec of EROFS text",
	"PT reclaim counters", "MADV_DONTNEED_LOCKED",
};

struct ctl {
	volatile int stop;
	volatile int failed;
	char msg[1024];
	struct {
		volatile pid_t pid;
		volatile unsigned long racy, racy_len;
	} w[MAX_PROCS];
	uint64_t count[NKINDS];
	uint64_t size_faults[MAX_SIZES];
	uint64_t collapse_ok[3], collapse_einval[3];	/* anon, shmem, file */
	uint64_t collapse_einval_split[3];	/* EINVAL, the block across VMAs */
	uint64_t collapse_err[3][4];		/* EAGAIN, ENOMEM, EBUSY, EINVAL */
	uint64_t busy[4];			/* UFFDIO_MOVE: EAGAIN/EBUSY/ENOENT retries */
	int unavail[NFEAT];			/* 1: not available */
	int no_pvm;				/* process_vm_readv: ENOSYS */
	char why[NFEAT][96];
};

static struct ctl *ctl;
static long psz;
static int nsizes;		/* mTHP sizes, in pages; sizes[0] = 1 (order 0) */
static long sizes[MAX_SIZES];
static int nodes;		/* memory nodes (2 wanted) */
static char file_path[256];	/* the read-only file for file collapse */
static int uffd_ok = 1;
static double deadline_ns;

/* ---- output without stdio locks (fork children of threaded processes) ---- */
static void say(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (write(1, buf, n) < 0)
		return;
}

static void count(int k, uint64_t n)
{
	__atomic_fetch_add(&ctl->count[k], n, __ATOMIC_RELAXED);
}

static void unavailable(int f, const char *why)
{
	if (!ctl->unavail[f]) {
		snprintf(ctl->why[f], sizeof(ctl->why[f]), "%s", why);
		ctl->unavail[f] = 1;
	}
}

static int stopping(void)
{
	return ctl->stop || ctl->failed || now_ns() > deadline_ns;
}

/* ---- random numbers: per thread xorshift ---- */
struct rnd { uint64_t s; };
static uint64_t rnext(struct rnd *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}
static long rbelow(struct rnd *r, long n)
{
	return n > 0 ? (long)(rnext(r) % (uint64_t)n) : 0;
}

/* ---- the page pattern ---- */
static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x | 1;	/* never zero */
}
static inline uint64_t pword(uint64_t tag, uint32_t gen, long j)
{
	return mix(mix(tag + (uint64_t)j * 0x9e3779b97f4a7c15ULL) ^ gen);
}

static void fill_page(void *p, uint64_t tag, uint32_t gen)
{
	volatile uint64_t *w = p;
	long j;

	for (j = 0; j < psz / 64; j++)
		w[j * 8] = pword(tag, gen, j);
}

/* What a page must hold. */
enum { S_ZERO, S_DATA, S_EITHER, S_HOLE };
static const char *const st_name[] = { "zero", "data", "zero-or-data (MADV_FREE)", "hole" };
struct pst {
	uint64_t tag;
	uint32_t gen;
	uint8_t st;
};

/*
 * Checks one page against @s: returns -1 if it is right, else the index of
 * the first wrong 64-bit word. S_EITHER is all zero or all data, never mixed.
 */
static long check_words(const uint64_t *w, const struct pst *s)
{
	long i, n = psz / 8;
	int zero_ok = s->st == S_ZERO || s->st == S_EITHER;
	int data_ok = s->st == S_DATA || s->st == S_EITHER;

	if (s->st == S_HOLE)
		return -1;
	if (s->st == S_EITHER)
		zero_ok = w[0] == 0, data_ok = !zero_ok;
	for (i = 0; i < n; i++) {
		uint64_t want = (i % 8 || !data_ok) ? 0 : pword(s->tag, s->gen, i / 8);

		if (w[i] != want)
			return i;
	}
	return -1;
}

/* ---- failure reporting ---- */
struct thr;
static void dump_hist(struct thr *t);

static void fail(struct thr *t, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say("stress: FAILED: %s\n", buf);
	if (t)
		dump_hist(t);
	if (!__atomic_exchange_n(&ctl->failed, 1, __ATOMIC_SEQ_CST))
		snprintf(ctl->msg, sizeof(ctl->msg), "%s", buf);
}

/* ---- regions a thread owns ---- */
enum { R_ANON, R_LOCKED, R_UFFD, R_SHMEM };
static const char *const rk_name[] = { "anon", "mlocked", "uffd", "shmem" };
struct region {
	char *base;
	long npages;
	int kind;
	int fd;			/* shmem: the memfd */
	struct pst *st;
	char name[16];
};

struct thr {
	int proc, idx, memcg;
	struct rnd r;
	struct region R, L, M[2], S;
	int uffd;
	char *stage;		/* UFFDIO_COPY source, 64 pages */
	char *buf;		/* GUP read buffer, 2 MiB */
	uint32_t gen;
	struct { char op[24]; unsigned long a, b; } hist[HIST];
	int nhist;
	long ops;
};

static void note(struct thr *t, const char *op, unsigned long a, unsigned long b)
{
	int i = t->nhist++ % HIST;

	snprintf(t->hist[i].op, sizeof(t->hist[i].op), "%s", op);
	t->hist[i].a = a;
	t->hist[i].b = b;
}

static void dump_hist(struct thr *t)
{
	int i, n = t->nhist < HIST ? t->nhist : HIST;

	say("stress: proc %d thread %d%s, last operations (oldest first):\n", t->proc, t->idx,
	    t->memcg ? " (memcg worker)" : "");
	for (i = t->nhist - n; i < t->nhist; i++)
		say("stress:   %-22s %#lx %#lx\n", t->hist[i % HIST].op, t->hist[i % HIST].a,
		    t->hist[i % HIST].b);
}

/* Checks pages [i, i + n) of @g through the mapping, or through @via if set. */
static int check_range_via(struct thr *t, struct region *g, long i, long n, const char *via,
			   const char *buf)
{
	long k, w;

	for (k = i; k < i + n && k < g->npages; k++) {
		const uint64_t *p = (const uint64_t *)(buf ? buf + (k - i) * psz : g->base + k * psz);
		struct pst *s = &g->st[k];

		w = check_words(p, s);
		if (s->st == S_EITHER && !buf) {
			/*
			 * MADV_FREE: reclaim may discard the page while it is read
			 * (a read does not make it dirty); once gone it reads zero
			 * until written. A torn read must read zero again.
			 */
			struct pst z = { .st = S_ZERO };

			if (w >= 0 || p[0] == 0)
				w = check_words(p, &z);
			if (w < 0 && p[0] == 0)
				s->st = S_ZERO;
		}
		if (w >= 0) {
			fail(t, "%s region %s page %ld at %p (%s): word %ld is %#llx, expected %#llx "
			     "(state %s, tag %#llx, gen %u)",
			     rk_name[g->kind], via, k, g->base + k * psz, g->name, w,
			     (unsigned long long)p[w],
			     (unsigned long long)((w % 8 || s->st == S_ZERO) ? 0 :
						  pword(s->tag, s->gen, w / 8)),
			     st_name[s->st], (unsigned long long)s->tag, s->gen);
			return -1;
		}
	}
	count(K_CHECK, 1);
	return 0;
}

static int check_range(struct thr *t, struct region *g, long i, long n)
{
	return check_range_via(t, g, i, n, "read", NULL);
}

static void write_page(struct thr *t, struct region *g, long k)
{
	struct pst *s = &g->st[k];

	s->tag = (uint64_t)(unsigned long)(g->base + k * psz);
	s->gen = ++t->gen;
	s->st = S_DATA;
	fill_page(g->base + k * psz, s->tag, s->gen);
}

static void set_state(struct region *g, long i, long n, int st)
{
	for (long k = i; k < i + n; k++)
		g->st[k].st = st;
}

/* A random range of @g: [*i, *i + *n), up to @max pages. */
static void pick(struct thr *t, struct region *g, long max, long *i, long *n)
{
	*n = 1 + rbelow(&t->r, max < g->npages ? max : g->npages);
	*i = rbelow(&t->r, g->npages - *n + 1);
}

/* Maps @len bytes aligned to 2 MiB (PROT_NONE), as a place to put a region. */
static char *reserve(size_t len, size_t misalign)
{
	char *p = mmap(NULL, len + SZ_2M, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((unsigned long)p + SZ_2M - 1) & ~(SZ_2M - 1)) + misalign;
	if (a + len > p + len + SZ_2M)
		a -= SZ_2M;
	if (a > p)
		munmap(p, a - p);
	if (p + len + SZ_2M > a + len)
		munmap(a + len, p + len + SZ_2M - (a + len));
	return a;
}

static int region_init(struct thr *t, struct region *g, int kind, long npages, const char *name)
{
	size_t len = npages * psz;

	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->npages = npages;
	g->fd = -1;
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->st = calloc(npages, sizeof(*g->st));
	g->base = reserve(len, 0);
	if (!g->st || !g->base)
		return -1;
	if (kind == R_SHMEM) {
		g->fd = memfd_create("stress", MFD_CLOEXEC);
		if (g->fd < 0 || ftruncate(g->fd, len))
			return -1;
		if (mmap(g->base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, g->fd, 0) ==
		    MAP_FAILED)
			return -1;
	} else if (mmap(g->base, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			-1, 0) == MAP_FAILED) {
		return -1;
	}
	if (kind == R_UFFD)
		set_state(g, 0, npages, S_HOLE);
	if (kind == R_LOCKED && syscall(SYS_mlock2, g->base, len, 1 /* MLOCK_ONFAULT */)) {
		say("stress: mlock2: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- system facts ---- */
static long read_long(const char *path)
{
	char b[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(b, NULL, 10) : -1;
}

static long vmstat(const char *key)
{
	char name[96];
	long v, r = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%95s %ld", name, &v) == 2)
		if (!strcmp(name, key))
			r = v;
	fclose(f);
	return r;
}

/*
 * ---- Where MADV_COLLAPSE's failures come from ----
 * madvise_collapse() turns the last failing scan result of a range into its
 * errno (SCAN_PMD_NONE, SCAN_PAGE_RO, SCAN_FAIL, ... all become EINVAL), so
 * the errno alone cannot say why. The khugepaged tracepoints report every
 * scan's result; this run enables them for its own calls only (the filter
 * leaves khugepaged's scans out) and counts them by event and result. A
 * call that fails its VMA check (thp_vma_allowable_order()) scans nothing
 * and shows only as a call without a scan.
 */
#define TRACEFS "/sys/kernel/tracing"
static const char *const trace_ev[] = { "mm_khugepaged_scan_pmd", "mm_collapse_huge_page",
	"mm_khugepaged_scan_file", "mm_khugepaged_collapse_file" };
#define NTRACE_EV (sizeof(trace_ev) / sizeof(trace_ev[0]))
static int trace_on;

static void collapse_trace_start(void)
{
	char path[160], comm[32], filter[64];

	mkdir(TRACEFS, 0755);
	if (access(TRACEFS "/events/huge_memory", F_OK))
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (access(TRACEFS "/events/huge_memory", F_OK)) {
		say("  collapse trace: not available (no tracefs events/huge_memory)\n");
		return;
	}
	read_str("/proc/self/comm", comm, sizeof(comm));
	snprintf(filter, sizeof(filter), "comm == \"%s\"", comm);
	write_str(TRACEFS "/tracing_on", "0");
	write_str(TRACEFS "/trace", "");
	write_str(TRACEFS "/buffer_size_kb", "8192");
	for (unsigned int i = 0; i < NTRACE_EV; i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/huge_memory/%s/filter", trace_ev[i]);
		if (write_str(path, filter)) {
			say("  collapse trace: not available (filter %s on %s refused)\n", filter,
			    trace_ev[i]);
			return;
		}
		snprintf(path, sizeof(path), TRACEFS "/events/huge_memory/%s/enable", trace_ev[i]);
		if (write_str(path, "1")) {
			say("  collapse trace: not available (cannot enable %s)\n", trace_ev[i]);
			return;
		}
	}
	trace_on = !write_str(TRACEFS "/tracing_on", "1");
}

/* Counts the traced results: "EVENT: ... status=RESULT," or "result=RESULT". */
static void collapse_trace_report(void)
{
	struct { char res[32]; long n; } tab[NTRACE_EV][24];
	int ntab[NTRACE_EV] = { 0 };
	long lost = 0;
	char line[512];
	FILE *f;

	if (!trace_on)
		return;
	write_str(TRACEFS "/tracing_on", "0");
	f = fopen(TRACEFS "/trace", "r");
	if (!f) {
		say("  collapse trace: cannot read " TRACEFS "/trace\n");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p, *r;
		unsigned int e;
		size_t len;
		int k;

		if (strstr(line, "LOST") && strstr(line, "EVENTS"))
			lost++;
		for (e = 0; e < NTRACE_EV; e++) {
			char key[48];

			snprintf(key, sizeof(key), " %s: ", trace_ev[e]);
			if (strstr(line, key))
				break;
		}
		if (e == NTRACE_EV)
			continue;
		p = strstr(line, e == 0 || e == 1 ? "status=" : "result=");
		if (!p)
			continue;
		r = p + 7;
		len = strcspn(r, ", \n");
		if (len >= sizeof(tab[0][0].res))
			len = sizeof(tab[0][0].res) - 1;
		for (k = 0; k < ntab[e]; k++)
			if (strlen(tab[e][k].res) == len && !strncmp(tab[e][k].res, r, len))
				break;
		if (k == ntab[e]) {
			if (k == 24)
				continue;
			memcpy(tab[e][k].res, r, len);
			tab[e][k].res[len] = 0;
			tab[e][k].n = 0;
			ntab[e]++;
		}
		tab[e][k].n++;
	}
	fclose(f);
	for (unsigned int e = 0; e < NTRACE_EV; e++) {
		say("  collapse trace %s:", trace_ev[e]);
		for (int k = 0; k < ntab[e]; k++)
			say(" %s %ld", tab[e][k].res, tab[e][k].n);
		say("%s\n", ntab[e] ? "" : " none");
	}
	if (lost)
		say("  collapse trace: the buffer lost events %ld time(s): the counts are short\n", lost);
	for (unsigned int i = 0; i < NTRACE_EV; i++) {
		char path[160];

		snprintf(path, sizeof(path), TRACEFS "/events/huge_memory/%s/enable", trace_ev[i]);
		write_str(path, "0");
	}
}

/* ---- mTHP knobs ---- */
#define THP "/sys/kernel/mm/transparent_hugepage"
static char saved_knob[MAX_SIZES][32];
static long knob_kb[MAX_SIZES];
static int nknobs;

static int cmp_long(const void *a, const void *b)
{
	return *(const long *)a < *(const long *)b ? -1 : *(const long *)a > *(const long *)b;
}

static void knobs_enable(void)
{
	DIR *d = opendir(THP);
	struct dirent *e;
	char path[256], v[64];
	long kb;

	sizes[nsizes++] = 1;
	if (!d) {
		unavailable(F_MTHP, "no " THP);
		return;
	}
	while ((e = readdir(d)) && nknobs < MAX_SIZES - 1)
		if (sscanf(e->d_name, "hugepages-%ldkB", &kb) == 1)
			knob_kb[nknobs++] = kb;
	closedir(d);
	qsort(knob_kb, nknobs, sizeof(long), cmp_long);
	for (int i = 0; i < nknobs; i++) {
		snprintf(path, sizeof(path), THP "/hugepages-%ldkB/enabled", knob_kb[i]);
		read_str(path, v, sizeof(v));
		/* "always [inherit] madvise never": keep the bracketed one. */
		char *a = strchr(v, '['), *b = a ? strchr(a, ']') : NULL;

		if (a && b) {
			*b = 0;
			snprintf(saved_knob[i], sizeof(saved_knob[i]), "%s", a + 1);
		}
		if (write_str(path, "always") == 0 && knob_kb[i] * 1024 / psz > 1)
			sizes[nsizes++] = knob_kb[i] * 1024 / psz;
	}
	if (nsizes < 2)
		unavailable(F_MTHP, "no per-size mTHP knobs (hugepages-*kB)");
}

static void knobs_restore(void)
{
	char path[256];

	for (int i = 0; i < nknobs; i++) {
		if (!saved_knob[i][0])
			continue;
		snprintf(path, sizeof(path), THP "/hugepages-%ldkB/enabled", knob_kb[i]);
		write_str(path, saved_knob[i]);
	}
}

static long size_stat(int i, const char *stat)
{
	char path[256];

	snprintf(path, sizeof(path), THP "/hugepages-%ldkB/stats/%s", knob_kb[i], stat);
	return read_long(path);
}

/* ---- NUMA (raw syscalls) ---- */
static int do_mbind(void *a, size_t len, int node, int move)
{
	unsigned long mask = 1UL << node;

	return syscall(SYS_mbind, a, len, MPOL_BIND, &mask, 64, move ? MPOL_MF_MOVE : 0);
}

static void numa_probe(void)
{
	char b[64];
	int lo, hi;

	read_str("/sys/devices/system/node/has_memory", b, sizeof(b));
	if (sscanf(b, "%d-%d", &lo, &hi) == 2 && lo == 0)
		nodes = hi + 1;
	else if (b[0])
		nodes = 1;
	if (nodes < 2) {
		unavailable(F_NUMA, nodes ? "one memory node" : "no NUMA (no node sysfs)");
		nodes = 0;
		return;
	}
	if (nodes > 2)
		nodes = 2;
	{
		void *p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (do_mbind(p, psz, 1, 1)) {
			unavailable(F_NUMA, errno == ENOSYS ? "mbind: ENOSYS" : "mbind failed");
			nodes = 0;
		}
		munmap(p, psz);
	}
}

/* ---- the read-only file: an executable on EROFS ---- */
static char *file_map;
static long file_pages;
static uint64_t *file_hash;

static uint64_t page_hash(const uint64_t *w)
{
	uint64_t h = 0x12345;

	for (long i = 0; i < psz / 8; i++)
		h = (h << 7 | h >> 57) ^ w[i] ^ (h * 31);
	return h;
}

/* Maps the file read-only at a 2 MiB-aligned address; per-page hashes from pread. */
static int file_setup(void)
{
	int fd = open(file_path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	char *b;

	if (fd < 0 || fstat(fd, &sb))
		return -1;
	file_pages = sb.st_size / psz;
	file_hash = calloc(file_pages, sizeof(uint64_t));
	b = malloc(psz);
	for (long k = 0; k < file_pages; k++) {
		if (pread(fd, b, psz, k * psz) != psz)
			return -1;
		file_hash[k] = page_hash((uint64_t *)b);
	}
	free(b);
	file_map = reserve(file_pages * psz, 0);
	if (!file_map || mmap(file_map, file_pages * psz, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
	    MAP_FAILED)
		return -1;
	close(fd);
	return 0;
}

static int file_check(struct thr *t, long i, long n, const char *via, const char *buf)
{
	for (long k = i; k < i + n && k < file_pages; k++) {
		const uint64_t *p = (const uint64_t *)(buf ? buf + (k - i) * psz : file_map + k * psz);

		if (page_hash(p) != file_hash[k]) {
			fail(t, "file mapping page %ld at %p (%s) differs from the file (%s)", k,
			     file_map + k * psz, file_path, via);
			return -1;
		}
	}
	count(K_FILE_CHECK, 1);
	return 0;
}

/* ---- GUP reads: process_vm_readv or /proc/PID/mem ---- */
static int pvm_ok = 1;	/* process_vm_readv: CONFIG_CROSS_MEMORY_ATTACH */

static ssize_t gup_read(pid_t pid, void *dst, const void *src, size_t len, int how)
{
	if (how && pvm_ok) {
		struct iovec l = { dst, len }, r = { (void *)src, len };
		ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

		if (n >= 0 || errno != ENOSYS)
			return n;
		pvm_ok = 0;
		ctl->no_pvm = 1;
	}
	{
		char path[64];
		int fd;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/mem", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		n = pread(fd, dst, len, (off_t)(unsigned long)src);
		close(fd);
		return n;
	}
}

/* Whether one VMA of this process holds all of [@a, @a + @len) (/proc/self/maps). */
static int one_vma(unsigned long a, unsigned long len)
{
	unsigned long lo, hi;
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= a && a + len <= hi)
			found = 1;
	fclose(f);
	return found;
}

/*
 * Counts a failed MADV_COLLAPSE of [@a, @a + 2 MiB) by errno; an EINVAL also
 * by whether the block was in one VMA after it failed (a block across VMAs,
 * a piece of which is too small for a PMD, fails madvise_collapse()'s VMA
 * check for that piece).
 */
static void collapse_errno(int i, unsigned long a)
{
	int e = errno, k = e == EAGAIN ? 0 : e == ENOMEM ? 1 : e == EBUSY ? 2 : e == EINVAL ? 3 : -1;

	if (k >= 0)
		__atomic_fetch_add(&ctl->collapse_err[i][k], 1, __ATOMIC_RELAXED);
	if (e == EINVAL && one_vma(a, SZ_2M) == 0)
		__atomic_fetch_add(&ctl->collapse_einval_split[i], 1, __ATOMIC_RELAXED);
	errno = e;
}

/* ---- the racy region: every word zero or its own value ---- */
static char *racy;
static long racy_pages;

static long racy_check_buf(const char *buf, unsigned long va, long n)
{
	for (long k = 0; k < n; k++) {
		const uint64_t *w = (const uint64_t *)(buf + k * psz);
		uint64_t tag = va + k * psz;

		for (long i = 0; i < psz / 8; i++)
			if (w[i] && (i % 8 || w[i] != pword(tag, 1, i / 8)))
				return k * (psz / 8) + i;
	}
	return -1;
}

static void racy_op(struct thr *t)
{
	long n = 1 + rbelow(&t->r, 64), i = rbelow(&t->r, racy_pages - n + 1), w;
	char *a = racy + i * psz;
	int op = rbelow(&t->r, 10);

	note(t, "racy", (unsigned long)a, op);
	switch (op) {
	case 0: case 1:
		for (long k = 0; k < n; k++)
			fill_page(a + k * psz, (unsigned long)(a + k * psz), 1);
		break;
	case 2:
		madvise(a, n * psz, MADV_DONTNEED);
		break;
	case 3:
		madvise(a, n * psz, MADV_FREE);
		break;
	case 4:
		madvise(a, n * psz, MADV_PAGEOUT);
		break;
	case 5: {
		long c = rbelow(&t->r, racy_pages * psz / SZ_2M);

		if (madvise(racy + c * SZ_2M, SZ_2M, MADV_COLLAPSE) == 0)
			__atomic_fetch_add(&ctl->collapse_ok[0], 1, __ATOMIC_RELAXED);
		else
			collapse_errno(0, (unsigned long)(racy + c * SZ_2M));
		count(K_COLLAPSE_ANON, 1);
		break;
	}
	case 6:
		if (nodes >= 2 && do_mbind(a, n * psz, rbelow(&t->r, 2), 1) == 0)
			count(K_MBIND, 1);
		break;
	case 7:
		if (gup_read(getpid(), t->buf, a, n * psz, rbelow(&t->r, 2)) == n * psz &&
		    (w = racy_check_buf(t->buf, (unsigned long)a, n)) >= 0)
			fail(t, "racy region word %ld at %p read through GUP is %#llx, expected 0 or its value",
			     w % (psz / 8), a + w / (psz / 8) * psz, *(unsigned long long *)(t->buf + w * 8));
		count(K_GUP_SELF, 1);
		break;
	default: {
		/* A fault at a random mTHP size: zap an aligned block, write it. */
		long sz = sizes[rbelow(&t->r, nsizes)], b = rbelow(&t->r, racy_pages / sz) * sz;

		madvise(racy + b * psz, sz * psz, MADV_DONTNEED);
		for (long k = b; k < b + sz; k++)
			fill_page(racy + k * psz, (unsigned long)(racy + k * psz), 1);
		w = racy_check_buf(racy + b * psz, (unsigned long)(racy + b * psz), sz);
		if (w >= 0)
			fail(t, "racy region word %ld at %p is %#llx, expected 0 or its value",
			     w % (psz / 8), racy + b * psz + w / (psz / 8) * psz,
			     *(unsigned long long *)(racy + b * psz + w * 8));
		break;
	}
	}
	if (op < 7 && (w = racy_check_buf(a, (unsigned long)a, n)) >= 0)
		fail(t, "racy region word %ld at %p is %#llx, expected 0 or its value (after op %d)",
		     w % (psz / 8), a + w / (psz / 8) * psz, *(unsigned long long *)(a + w * 8), op);
	count(K_RACY, 1);
}

/* ---- operations on the anonymous region R (also the memcg worker's) ---- */

/* A fault at a given mTHP size: zap an aligned block (its neighbours stay), write it. */
static void op_fault(struct thr *t, struct region *g)
{
	int si = rbelow(&t->r, nsizes);
	long sz = sizes[si];
	unsigned long base = (unsigned long)g->base, a, end = base + g->npages * psz;
	long i;

	a = (base + sz * psz - 1) & ~(sz * psz - 1);
	if (a + sz * psz > end) {
		si = 0;
		sz = 1;
		a = base;
	}
	a += rbelow(&t->r, (end - a) / (sz * psz)) * sz * psz;
	i = (a - base) / psz;
	note(t, "fault", a, sz * psz);
	if (madvise((void *)a, sz * psz, g->kind == R_LOCKED ? MADV_DONTNEED_LOCKED : MADV_DONTNEED)) {
		fail(t, "madvise(DONTNEED) of %s block %#lx: %s", rk_name[g->kind], a, strerror(errno));
		return;
	}
	for (long k = i; k < i + sz; k++)
		write_page(t, g, k);
	__atomic_fetch_add(&ctl->size_faults[si], 1, __ATOMIC_RELAXED);
	count(K_FAULT, 1);
	check_range(t, g, i, sz);
}

static void op_write(struct thr *t, struct region *g)
{
	long i, n;

	pick(t, g, 32, &i, &n);
	note(t, "write", (unsigned long)(g->base + i * psz), n);
	for (long k = i; k < i + n; k++)
		if (g->st[k].st != S_HOLE)
			write_page(t, g, k);
	count(K_WRITE, 1);
	check_range(t, g, i, n);
}

static void op_madvise(struct thr *t, struct region *g, int advice)
{
	long i, n;
	const char *name = advice == MADV_DONTNEED ? "dontneed" : advice == MADV_FREE ? "free" :
			   advice == MADV_PAGEOUT ? "pageout" : "dontneed_locked";

	pick(t, g, 256, &i, &n);
	note(t, name, (unsigned long)(g->base + i * psz), n);
	if (madvise(g->base + i * psz, n * psz, advice)) {
		if (advice == MADV_DONTNEED_LOCKED && errno == EINVAL) {
			unavailable(F_DONTNEED_LOCKED, "MADV_DONTNEED_LOCKED: EINVAL");
			return;
		}
		fail(t, "madvise(%s) of %s region: %s", name, rk_name[g->kind], strerror(errno));
		return;
	}
	for (long k = i; k < i + n; k++) {
		struct pst *s = &g->st[k];

		if (advice == MADV_FREE && s->st == S_DATA)
			s->st = S_EITHER;
		else if (advice == MADV_DONTNEED || advice == MADV_DONTNEED_LOCKED)
			s->st = g->kind == R_UFFD ? S_HOLE : g->kind == R_SHMEM ? s->st : S_ZERO;
	}
	count(advice == MADV_DONTNEED ? K_DONTNEED : advice == MADV_FREE ? K_FREE :
	      advice == MADV_PAGEOUT ? K_PAGEOUT : K_DONTNEED_LOCKED, 1);
	check_range(t, g, i, n);
}

static void op_collapse(struct thr *t, struct region *g, int kind, int feat)
{
	unsigned long base = (unsigned long)g->base, a = (base + SZ_2M - 1) & ~(SZ_2M - 1);
	unsigned long end = base + g->npages * psz;
	long nch = a + SZ_2M <= end ? (end - a) / SZ_2M : 0;
	int rc = -1;

	if (!nch)
		return;
	a += rbelow(&t->r, nch) * SZ_2M;
	note(t, "collapse", a, kind);
	/*
	 * EAGAIN: a page busy, or just swapped in and not on the LRU yet;
	 * the retry drains the LRU caches first.
	 */
	for (int i = 0; i < 3; i++) {
		rc = madvise((void *)a, SZ_2M, MADV_COLLAPSE);
		if (rc == 0 || errno != EAGAIN)
			break;
	}
	if (rc)
		collapse_errno(feat - F_COLLAPSE_ANON, a);
	if (rc == 0) {
		__atomic_fetch_add(&ctl->collapse_ok[feat - F_COLLAPSE_ANON], 1, __ATOMIC_RELAXED);
	} else if (errno == EINVAL) {
		/* Also a chunk across VMAs; "not available" only if none ever collapsed. */
		__atomic_fetch_add(&ctl->collapse_einval[feat - F_COLLAPSE_ANON], 1, __ATOMIC_RELAXED);
	} else if (errno != EAGAIN && errno != ENOMEM && errno != EBUSY) {
		fail(t, "MADV_COLLAPSE of %s region: %s", rk_name[g->kind], strerror(errno));
		return;
	}
	count(kind, 1);
	check_range(t, g, (a - base) / psz, SZ_2M / psz);
}

/*
 * Moves [old, old + len) to @dst with mremap, one VMA at a time: mbind and
 * MAP_FIXED split the region, and 6.12's mremap moves one VMA only.
 */
static int move_pieces(char *old, size_t len, char *dst, int flags)
{
	unsigned long s[64], e[64], lo = (unsigned long)old, hi = lo + len, a, b;
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < 64)
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && b > lo && a < hi) {
			s[n] = a > lo ? a : lo;
			e[n++] = b < hi ? b : hi;
		}
	fclose(f);
	for (int i = 0; i < n; i++)
		if (mremap((void *)s[i], e[i] - s[i], e[i] - s[i], MREMAP_MAYMOVE | MREMAP_FIXED | flags,
			   dst + (s[i] - lo)) == MAP_FAILED)
			return -1;
	return n;
}

/* mremap: a move (2 MiB-aligned or not, sometimes MREMAP_DONTUNMAP), or shrink and grow. */
static void op_mremap(struct thr *t, struct region *g)
{
	size_t len = g->npages * psz;
	int how = rbelow(&t->r, 4);
	char *old = g->base, *dst, *p;

	if (how == 3) {
		long keep = 1 + rbelow(&t->r, g->npages - 1);

		note(t, "mremap-shrink", (unsigned long)old, keep);
		if (mremap(old, len, keep * psz, 0) == MAP_FAILED) {
			fail(t, "mremap shrink: %s", strerror(errno));
			return;
		}
		p = mremap(old, keep * psz, len, 0);
		if (p == MAP_FAILED) {
			/* Taken meanwhile, or more than one VMA: move and map the tail afresh. */
			note(t, "mremap-grow-moved", (unsigned long)old, errno);
			dst = reserve(len, 0);
			if (!dst || move_pieces(old, keep * psz, dst, 0) < 0 ||
			    mmap(dst + keep * psz, len - keep * psz, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
				fail(t, "mremap grow: %s", strerror(errno));
				return;
			}
			p = dst;
		}
		g->base = p;
		set_state(g, keep, g->npages - keep, S_ZERO);
	} else {
		dst = reserve(len, how == 1 ? rbelow(&t->r, SZ_2M / psz) * psz : 0);
		if (!dst)
			return;
		note(t, how == 2 ? "mremap-dontunmap" : "mremap", (unsigned long)old, (unsigned long)dst);
		if (move_pieces(old, len, dst, how == 2 ? MREMAP_DONTUNMAP : 0) < 0) {
			fail(t, "mremap move%s: %s", how == 2 ? " (MREMAP_DONTUNMAP)" : "", strerror(errno));
			return;
		}
		g->base = dst;
		if (how == 2) {
			/* The old range stays mapped and empty. */
			for (long k = 0; k < g->npages; k += 1 + rbelow(&t->r, 64)) {
				const uint64_t *w = (const uint64_t *)(old + k * psz);

				for (long j = 0; j < psz / 8; j++)
					if (w[j]) {
						fail(t, "MREMAP_DONTUNMAP left data at %p", old + k * psz);
						return;
					}
			}
			munmap(old, len);
		}
	}
	count(K_MREMAP, 1);
	check_range(t, g, 0, g->npages);
}

/* munmap/mmap: replace a subrange with a fresh mapping, and a scratch mmap/munmap. */
static void op_mmap(struct thr *t, struct region *g)
{
	long i, n;

	pick(t, g, 128, &i, &n);
	note(t, "mmap-fixed", (unsigned long)(g->base + i * psz), n);
	if (mmap(g->base + i * psz, n * psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		fail(t, "mmap MAP_FIXED: %s", strerror(errno));
		return;
	}
	set_state(g, i, n, S_ZERO);
	check_range(t, g, i, n);
	{
		struct region s = { .kind = R_ANON, .npages = 1 + rbelow(&t->r, 1024) };
		struct pst st[1024];

		s.st = st;
		snprintf(s.name, sizeof(s.name), "scratch");
		s.base = mmap(NULL, s.npages * psz, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s.base == MAP_FAILED)
			return;
		note(t, "scratch", (unsigned long)s.base, s.npages);
		for (long k = 0; k < s.npages; k++)
			write_page(t, &s, k);
		check_range(t, &s, 0, s.npages);
		munmap(s.base, s.npages * psz);
	}
	count(K_MMAP_MUNMAP, 1);
}

static int check_all(struct thr *t);

/* fork and COW: the child checks the snapshot, writes and zaps its copy; neither sees the other. */
static void op_fork(struct thr *t)
{
	int p2c[2], c2p[2], status;
	char c = 0;
	pid_t pid;

	if (pipe(p2c) || pipe(c2p))
		return;
	note(t, "fork", 0, 0);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		/* The child's uffd ranges are unregistered (no EVENT_FORK): holes read zero. */
		for (int m = 0; m < 2; m++)
			for (long k = 0; k < t->M[m].npages; k++)
				if (t->M[m].st[k].st == S_HOLE)
					t->M[m].st[k].st = S_ZERO;
		t->proc += 100;
		bad |= check_range(t, &t->R, 0, t->R.npages) | check_range(t, &t->M[0], 0, t->M[0].npages) |
		       check_range(t, &t->M[1], 0, t->M[1].npages);
		if (t->L.base)
			bad |= check_range(t, &t->L, 0, t->L.npages);
		for (int k = 0; k < 8; k++)
			op_write(t, &t->R);
		op_madvise(t, &t->R, MADV_DONTNEED);
		bad |= check_range(t, &t->R, 0, t->R.npages);
		if (write(c2p[1], &c, 1) != 1 || read(p2c[0], &c, 1) != 1)
			_exit(3);
		bad |= check_range(t, &t->R, 0, t->R.npages) | check_range(t, &t->M[0], 0, t->M[0].npages);
		_exit(bad || ctl->failed ? 1 : 0);
	}
	close(p2c[0]);
	close(c2p[1]);
	if (pid < 0) {
		close(p2c[1]);
		close(c2p[0]);
		return;
	}
	for (int k = 0; k < 8; k++)
		op_write(t, &t->R);
	op_madvise(t, &t->R, MADV_FREE);
	if (read(c2p[0], &c, 1) != 1)
		c = -1;
	for (int k = 0; k < 4; k++)
		op_write(t, &t->R);
	if (write(p2c[1], &c, 1) != 1)
		c = -1;
	close(p2c[1]);
	close(c2p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!ctl->failed)
			fail(t, "fork child %s %d", WIFEXITED(status) ? "exited" : "killed by signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return;
	}
	count(K_FORK_COW, 1);
	check_all(t);
}

/* GUP reads of the thread's own pages: process_vm_readv or /proc/self/mem. */
static void op_gup(struct thr *t)
{
	struct region *g = rbelow(&t->r, 3) ? &t->R : t->S.base ? &t->S : &t->R;
	long i, n;
	int how = rbelow(&t->r, 2);
	ssize_t got;

	pick(t, g, 2 * SZ_2M / psz / 2, &i, &n);
	note(t, how ? "process_vm_readv" : "proc-mem", (unsigned long)(g->base + i * psz), n);
	got = gup_read(getpid(), t->buf, g->base + i * psz, n * psz, how);
	if (got != n * psz) {
		fail(t, "%s of %ld bytes got %zd: %s", how ? "process_vm_readv" : "/proc/self/mem pread",
		     n * psz, got, strerror(errno));
		return;
	}
	count(K_GUP_SELF, 1);
	check_range_via(t, g, i, n, how ? "process_vm_readv" : "/proc/self/mem", t->buf);
}

static void op_mbind(struct thr *t, struct region *g)
{
	long i, n;
	int node = rbelow(&t->r, 2);

	if (nodes < 2)
		return;
	/*
	 * Whole 2 MiB blocks: a policy splits the VMA, and a MADV_COLLAPSE
	 * block across two VMAs is refused (EINVAL).
	 */
	{
		unsigned long base = (unsigned long)g->base, a = (base + SZ_2M - 1) & ~(SZ_2M - 1);
		unsigned long end = base + g->npages * psz;
		long nch = a + SZ_2M <= end ? (end - a) / SZ_2M : 0;

		if (!nch) {
			i = 0;
			n = g->npages;
		} else {
			i = (a - base) / psz + rbelow(&t->r, nch) * (SZ_2M / psz);
			n = SZ_2M / psz;
		}
	}
	note(t, "mbind", (unsigned long)(g->base + i * psz), node);
	if (do_mbind(g->base + i * psz, n * psz, node, 1) && errno != EIO) {
		fail(t, "mbind MPOL_MF_MOVE to node %d: %s", node, strerror(errno));
		return;
	}
	count(K_MBIND, 1);
	check_range(t, g, i, n);
}

/* ---- userfaultfd: UFFDIO_COPY into holes, UFFDIO_MOVE between M[0] and M[1] ---- */
static void uffd_setup(struct thr *t)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	t->uffd = -1;
	if (!uffd_ok)
		return;
	t->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (t->uffd < 0) {
		unavailable(F_UFFD_MOVE, errno == ENOSYS ? "userfaultfd: ENOSYS" : "userfaultfd failed");
		uffd_ok = 0;
		return;
	}
	if (ioctl(t->uffd, UFFDIO_API, &api) || !(api.features & UFFD_FEATURE_MOVE)) {
		unavailable(F_UFFD_MOVE, "no UFFD_FEATURE_MOVE");
		close(t->uffd);
		t->uffd = -1;
		uffd_ok = 0;
		return;
	}
	for (int m = 0; m < 2; m++) {
		reg.range.start = (unsigned long)t->M[m].base;
		reg.range.len = t->M[m].npages * psz;
		if (ioctl(t->uffd, UFFDIO_REGISTER, &reg)) {
			unavailable(F_UFFD_MOVE, "UFFDIO_REGISTER failed");
			close(t->uffd);
			t->uffd = -1;
			return;
		}
	}
}

static void op_uffd_copy(struct thr *t, struct region *g)
{
	long i, n, k, run;

	pick(t, g, 64, &i, &n);
	for (k = i; k < i + n; k++) {
		struct uffdio_copy cp = { 0 };

		if (g->st[k].st != S_HOLE)
			continue;
		for (run = 0; k + run < i + n && g->st[k + run].st == S_HOLE; run++) {
			struct pst *s = &g->st[k + run];

			s->tag = (unsigned long)(g->base + (k + run) * psz);
			s->gen = ++t->gen;
			fill_page(t->stage + run * psz, s->tag, s->gen);
		}
		note(t, "uffd-copy", (unsigned long)(g->base + k * psz), run);
		cp.dst = (unsigned long)(g->base + k * psz);
		cp.src = (unsigned long)t->stage;
		cp.len = run * psz;
		while (ioctl(t->uffd, UFFDIO_COPY, &cp)) {
			long done = cp.copy > 0 ? cp.copy / psz : 0;

			if (errno != EAGAIN || stopping()) {
				fail(t, "UFFDIO_COPY of %ld pages at %#llx: %s (copied %lld)", run,
				     (unsigned long long)cp.dst, strerror(errno), (long long)cp.copy);
				return;
			}
			cp.dst += done * psz;
			cp.src += done * psz;
			cp.len -= done * psz;
		}
		set_state(g, k, run, S_DATA);
		count(K_UFFD_COPY, 1);
		k += run;
	}
	check_range(t, g, i, n);
}

static void op_uffd_move(struct thr *t)
{
	int from = rbelow(&t->r, 2);
	struct region *s = &t->M[from], *d = &t->M[!from];
	long i = rbelow(&t->r, s->npages), n = 0, done = 0, tries = 0;

	/* A range whose destination is all holes. */
	while (i + n < s->npages && n < 256 && d->st[i + n].st == S_HOLE)
		n++;
	if (!n)
		return;
	note(t, "uffd-move", (unsigned long)(s->base + i * psz), n);
	while (done < n) {
		struct uffdio_move mv = {
			.dst = (unsigned long)(d->base + (i + done) * psz),
			.src = (unsigned long)(s->base + (i + done) * psz),
			.len = (n - done) * psz,
			.mode = UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES,
		};
		int rc = ioctl(t->uffd, UFFDIO_MOVE, &mv), e = errno;
		long moved = mv.move > 0 ? mv.move / psz : 0;

		for (long k = i + done; k < i + done + (rc == 0 ? n - done : moved); k++) {
			d->st[k] = s->st[k];
			s->st[k].st = S_HOLE;
		}
		if (rc == 0)
			break;
		done += moved;
		if (e == ENOSYS || (e == EINVAL && !done && !tries)) {
			unavailable(F_UFFD_MOVE, e == ENOSYS ? "UFFDIO_MOVE: ENOSYS" : "UFFDIO_MOVE: EINVAL");
			return;
		}
		if ((e != EAGAIN && e != EBUSY && e != ENOENT) || ++tries > 1000) {
			fail(t, "UFFDIO_MOVE of %ld pages: %s after %ld pages, %ld tries", n - done,
			     strerror(e), done, tries);
			return;
		}
		__atomic_fetch_add(&ctl->busy[e == EAGAIN ? 0 : e == EBUSY ? 1 : 2], 1, __ATOMIC_RELAXED);
		/*
		 * Pages shared since a fork (or swap entries not exclusive): write
		 * the rest of the range, so that it is ours again. Since 6.12.118,
		 * move_pages_pte() also turns split_folio()'s -EAGAIN into EBUSY
		 * ("do not retry, extra refs may be held forever"): a large folio
		 * someone else held a reference on (the deferred-split shrinker, a
		 * GUP pin). The write is harmless then, and the retry outlasts a
		 * passing reference.
		 */
		if (e == EBUSY)
			for (long k = i + done; k < i + n; k++)
				if (s->st[k].st != S_HOLE)
					write_page(t, s, k);
		if (stopping())
			break;
	}
	count(K_UFFD_MOVE, 1);
	if (check_range(t, d, i, n))
		return;
	/* The source must be empty now: UFFDIO_ZEROPAGE over it succeeds, then zap it again. */
	{
		struct uffdio_zeropage z = { .range = { (unsigned long)(s->base + i * psz), done * psz } };

		if (done && ioctl(t->uffd, UFFDIO_ZEROPAGE, &z) && errno != EAGAIN) {
			fail(t, "UFFDIO_ZEROPAGE over the moved-out source %p (%ld pages): %s (zeroed %lld bytes)",
			     s->base + i * psz, done, strerror(errno), (long long)z.zeropage);
			return;
		}
		madvise(s->base + i * psz, done * psz, MADV_DONTNEED);
	}
}

/* ---- shmem: memfd pages, through the mapping and through read()/write() ---- */
static void op_shmem(struct thr *t)
{
	struct region *g = &t->S;
	int op = rbelow(&t->r, 8);
	long i, n;

	pick(t, g, 128, &i, &n);
	switch (op) {
	case 0: case 1:
		op_write(t, g);
		return;
	case 2: {
		/* pwrite a page's pattern through the fd. */
		struct pst *s = &g->st[i];

		note(t, "shmem-pwrite", (unsigned long)(g->base + i * psz), 1);
		s->tag = (unsigned long)(g->base + i * psz);
		s->gen = ++t->gen;
		s->st = S_DATA;
		memset(t->stage, 0, psz);
		fill_page(t->stage, s->tag, s->gen);
		if (pwrite(g->fd, t->stage, psz, i * psz) != psz)
			fail(t, "pwrite to the memfd: %s", strerror(errno));
		count(K_WRITE, 1);
		check_range(t, g, i, 1);
		return;
	}
	case 3:
		note(t, "punch-hole", (unsigned long)(g->base + i * psz), n);
		if (fallocate(g->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, i * psz, n * psz)) {
			fail(t, "FALLOC_FL_PUNCH_HOLE on the memfd: %s", strerror(errno));
			return;
		}
		set_state(g, i, n, S_ZERO);
		count(K_PUNCH_HOLE, 1);
		check_range(t, g, i, n);
		return;
	case 4:
		op_madvise(t, g, MADV_DONTNEED);
		return;
	case 5:
		op_madvise(t, g, MADV_PAGEOUT);
		return;
	case 6:
		op_collapse(t, g, K_COLLAPSE_SHMEM, F_COLLAPSE_SHMEM);
		return;
	default:
		note(t, "shmem-pread", (unsigned long)(g->base + i * psz), n);
		if (pread(g->fd, t->buf, n * psz, i * psz) != n * psz) {
			fail(t, "pread of the memfd: %s", strerror(errno));
			return;
		}
		check_range_via(t, g, i, n, "pread(memfd)", t->buf);
	}
}

/* ---- the read-only file mapping, shared by the process's threads ---- */
static void op_file(struct thr *t)
{
	long nch = file_pages * psz / SZ_2M, i, n;
	int op = rbelow(&t->r, 5), rc = -1;

	if (!file_map)
		return;
	n = 1 + rbelow(&t->r, 256);
	if (n > file_pages)
		n = file_pages;
	i = rbelow(&t->r, file_pages - n + 1);
	switch (op) {
	case 0:
		if (!nch) {
			unavailable(F_COLLAPSE_FILE, "the file is smaller than 2 MiB");
			return;
		}
		i = rbelow(&t->r, nch) * (SZ_2M / psz);
		n = SZ_2M / psz;
		note(t, "file-collapse", (unsigned long)(file_map + i * psz), n);
		for (int k = 0; k < 3; k++) {
			rc = madvise(file_map + i * psz, SZ_2M, MADV_COLLAPSE);
			if (rc == 0 || errno != EAGAIN)
				break;
		}
		if (rc)
			collapse_errno(2, (unsigned long)(file_map + i * psz));
		if (rc == 0)
			__atomic_fetch_add(&ctl->collapse_ok[2], 1, __ATOMIC_RELAXED);
		else if (errno == EINVAL)
			__atomic_fetch_add(&ctl->collapse_einval[2], 1, __ATOMIC_RELAXED);
		else if (errno != EAGAIN && errno != ENOMEM && errno != EBUSY)
			fail(t, "MADV_COLLAPSE of the file mapping: %s", strerror(errno));
		count(K_COLLAPSE_FILE, 1);
		break;
	case 1:
		note(t, "file-dontneed", (unsigned long)(file_map + i * psz), n);
		madvise(file_map + i * psz, n * psz, MADV_DONTNEED);
		count(K_DONTNEED, 1);
		break;
	case 2:
		note(t, "file-pageout", (unsigned long)(file_map + i * psz), n);
		madvise(file_map + i * psz, n * psz, MADV_PAGEOUT);
		count(K_PAGEOUT, 1);
		break;
	case 3:
		note(t, "file-gup", (unsigned long)(file_map + i * psz), n);
		if (gup_read(getpid(), t->buf, file_map + i * psz, n * psz, rbelow(&t->r, 2)) != n * psz) {
			fail(t, "GUP read of the file mapping: %s", strerror(errno));
			return;
		}
		count(K_GUP_SELF, 1);
		file_check(t, i, n, "GUP", t->buf);
		return;
	}
	file_check(t, i, n, "read", NULL);
}

static int check_all(struct thr *t)
{
	int bad = check_range(t, &t->R, 0, t->R.npages);

	if (t->L.base)
		bad |= check_range(t, &t->L, 0, t->L.npages);
	for (int m = 0; m < 2; m++)
		if (t->M[m].base)
			bad |= check_range(t, &t->M[m], 0, t->M[m].npages);
	if (t->S.base)
		bad |= check_range(t, &t->S, 0, t->S.npages);
	return bad;
}

static void *thread_main(void *arg)
{
	struct thr *t = arg;

	while (!stopping()) {
		int op = rbelow(&t->r, 40);

		t->ops++;
		if (t->memcg) {
			/* The memcg worker: a working set above memory.max, so it swaps. */
			if (op < 14)
				op_write(t, &t->R);
			else if (op < 24)
				check_range(t, &t->R, rbelow(&t->r, t->R.npages - 256), 256);
			else if (op < 30)
				op_fault(t, &t->R);
			else if (op < 34)
				op_madvise(t, &t->R, MADV_PAGEOUT);
			else if (op < 37)
				op_madvise(t, &t->R, MADV_DONTNEED);
			else
				op_madvise(t, &t->R, MADV_FREE);
			count(K_MEMCG, 1);
			if (t->ops % 64 == 0)
				check_range(t, &t->R, 0, t->R.npages);
			continue;
		}
		switch (op) {
		case 0: case 1: case 2: case 3: op_fault(t, &t->R); break;
		case 4: case 5: op_write(t, &t->R); break;
		case 6: case 7: op_madvise(t, &t->R, MADV_DONTNEED); break;
		case 8: case 9: op_madvise(t, &t->R, MADV_FREE); break;
		case 10: op_madvise(t, &t->R, MADV_PAGEOUT); break;
		case 11: op_collapse(t, &t->R, K_COLLAPSE_ANON, F_COLLAPSE_ANON); break;
		case 12: op_mremap(t, &t->R); break;
		case 13: op_mmap(t, &t->R); break;
		case 14: if (rbelow(&t->r, 3) == 0) op_fork(t); break;
		case 15: case 16: op_gup(t); break;
		case 17: op_mbind(t, &t->R); break;
		case 18: op_fault(t, &t->L); break;
		case 19: op_madvise(t, &t->L, MADV_DONTNEED_LOCKED); break;
		case 20:
			if (t->uffd >= 0)
				op_uffd_copy(t, &t->M[rbelow(&t->r, 2)]);
			break;
		case 21: case 22:
			if (t->uffd >= 0)
				op_uffd_move(t);
			break;
		case 23:
			if (t->uffd >= 0) {
				struct region *g = &t->M[rbelow(&t->r, 2)];

				op_madvise(t, g, rbelow(&t->r, 2) ? MADV_DONTNEED : MADV_PAGEOUT);
				if (rbelow(&t->r, 2))
					op_write(t, g);
			}
			break;
		case 24: case 25: case 26: op_shmem(t); break;
		case 27: case 28: case 29: case 30: case 31: racy_op(t); break;
		case 32: case 33: case 34: op_file(t); break;
		case 35: op_mbind(t, &t->S); break;
		default: op_write(t, &t->R); break;
		}
		if (t->ops % 16 == 0)
			check_all(t);
	}
	return NULL;
}

static struct thr *thread_setup(int proc, int idx, int memcg, long rpages, uint64_t seed)
{
	struct thr *t = calloc(1, sizeof(*t));
	char name[16];

	t->proc = proc;
	t->idx = idx;
	t->memcg = memcg;
	t->r.s = seed * 0x9e3779b97f4a7c15ULL + proc * 1000 + idx + 1;
	t->stage = mmap(NULL, 256 * psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t->buf = mmap(NULL, 2 * SZ_2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	snprintf(name, sizeof(name), "R%d.%d", proc, idx);
	if (region_init(t, &t->R, R_ANON, rpages, name))
		return NULL;
	t->uffd = -1;
	if (!memcg) {
		snprintf(name, sizeof(name), "L%d.%d", proc, idx);
		if (region_init(t, &t->L, R_LOCKED, SZ_2M / psz, name))
			return NULL;
		for (int m = 0; m < 2; m++) {
			snprintf(name, sizeof(name), "M%d.%d.%d", m, proc, idx);
			if (region_init(t, &t->M[m], R_UFFD, SZ_2M / 2 / psz, name))
				return NULL;
		}
		snprintf(name, sizeof(name), "S%d.%d", proc, idx);
		if (region_init(t, &t->S, R_SHMEM, 2 * SZ_2M / psz, name))
			return NULL;
		uffd_setup(t);
	}
	for (long k = 0; k < t->R.npages; k++)
		write_page(t, &t->R, k);
	return t;
}

/* One worker process: its threads, racy region and file mapping. */
static int worker(int proc, int nthreads, int memcg, long rpages, uint64_t seed)
{
	pthread_t tid[MAX_THREADS];
	struct thr *t[MAX_THREADS];

	if (!memcg) {
		racy_pages = 4 * SZ_2M / psz;
		racy = reserve(racy_pages * psz, 0);
		if (!racy || mmap(racy, racy_pages * psz, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			return 2;
		ctl->w[proc].racy = (unsigned long)racy;
		ctl->w[proc].racy_len = racy_pages * psz;
		if (file_path[0] && file_setup())
			say("stress: cannot map %s: %s\n", file_path, strerror(errno));
	}
	for (int i = 0; i < nthreads; i++) {
		t[i] = thread_setup(proc, i, memcg, rpages, seed);
		if (!t[i]) {
			fail(NULL, "worker %d thread %d: setup failed: %s", proc, i, strerror(errno));
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&tid[i], NULL, thread_main, t[i]))
			return 2;
	for (int i = 0; i < nthreads; i++) {
		pthread_join(tid[i], NULL);
		if (!ctl->failed)
			check_all(t[i]);
	}
	return ctl->failed ? 1 : 0;
}

/* ---- cgroup: a child with memory.max below the memcg worker's working set ---- */
static char cg_dir[256];
static int cg_v2;

static int cgroup_setup(long max_bytes)
{
	char line[512], path[512], v[64];
	FILE *f;

	if (proc_kb("/proc/meminfo", "SwapTotal") <= 0)
		unavailable(F_SWAP, "no swap (SwapTotal 0)");
	/* cgroup v2 with the memory controller, else v1's memory hierarchy. */
	f = fopen("/proc/mounts", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char dev[64], mnt[256], fs[32];

		if (sscanf(line, "%63s %255s %31s", dev, mnt, fs) != 3)
			continue;
		if (!strcmp(fs, "cgroup2") && !cg_dir[0]) {
			snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
			read_str(path, line, sizeof(line));
			if (strstr(line, "memory")) {
				snprintf(cg_dir, sizeof(cg_dir), "%s", mnt);
				cg_v2 = 1;
			}
		}
	}
	if (f)
		fclose(f);
	if (!cg_dir[0] && !access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK)) {
		/* v1: under our own memory cgroup. */
		char own[256] = "";

		f = fopen("/proc/self/cgroup", "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%*d:memory:%255s", own) == 1)
				break;
		if (f)
			fclose(f);
		snprintf(cg_dir, sizeof(cg_dir), "/sys/fs/cgroup/memory%s", strcmp(own, "/") ? own : "");
	}
	if (!cg_dir[0]) {
		unavailable(F_MEMCG, "no cgroup with the memory controller");
		return -1;
	}
	if (cg_v2) {
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg_dir);
		write_str(path, "+memory");
	}
	snprintf(cg_dir + strlen(cg_dir), sizeof(cg_dir) - strlen(cg_dir), "/mmrs-stress-%d",
		 getpid());
	if (mkdir(cg_dir, 0755) && errno != EEXIST) {
		unavailable(F_MEMCG, "cannot create a cgroup");
		cg_dir[0] = 0;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", cg_dir, cg_v2 ? "memory.max" : "memory.limit_in_bytes");
	snprintf(v, sizeof(v), "%ld", max_bytes);
	if (write_str(path, v)) {
		unavailable(F_MEMCG, "cannot set the memory limit");
		rmdir(cg_dir);
		cg_dir[0] = 0;
		return -1;
	}
	return 0;
}

static long cg_oom_kills(void)
{
	char path[512], line[128];
	long v = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg_dir, cg_v2 ? "memory.events" : "memory.oom_control");
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "oom_kill %ld", &n) == 1)
			v = n;
	if (f)
		fclose(f);
	return v;
}

/* ---- the parent: remote GUP reads, migrate_pages, exec ---- */
static int exec_bigtext(void)
{
	char line[512] = "", prog[300];
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(prog, sizeof(prog), IMG_MNT "/bigtext");
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { prog, "4242", "50", NULL };

		dup2(fds[1], 1);
		execv(prog, argv);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], line, sizeof(line) - 1);
	close(fds[0]);
	waitpid(pid, &status, 0);
	line[n > 0 ? n : 0] = 0;
	line[strcspn(line, "\n")] = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !strstr(line, "touched_kb=")) {
		fail(NULL, "exec of %s: %s %d, said '%s'", prog,
		     WIFEXITED(status) ? "exit" : "signal",
		     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), line);
		return -1;
	}
	count(K_EXEC, 1);
	return 0;
}

static void parent_loop(int nprocs, int have_exec)
{
	struct rnd r = { 0x2545f4914f6cdd1dULL };
	char *buf = malloc(2 * SZ_2M);
	double next_exec = 0, next_migrate = 0;
	int node = 1;

	while (!stopping()) {
		int p = rbelow(&r, nprocs);
		pid_t pid = ctl->w[p].pid;
		unsigned long base = ctl->w[p].racy, len = ctl->w[p].racy_len;
		double now = now_ns();

		if (pid > 0 && base) {
			long n = 1 + rbelow(&r, 256 < len / psz ? 256 : len / psz);
			unsigned long a = base + rbelow(&r, len / psz - n + 1) * psz;
			ssize_t got = gup_read(pid, buf, (void *)a, n * psz, rbelow(&r, 2));

			if (got == n * psz) {
				long w = racy_check_buf(buf, a, n);

				if (w >= 0)
					fail(NULL, "worker %d racy region word %ld at %#lx read from the parent "
					     "is %#llx, expected 0 or its value", p, w % (psz / 8),
					     a + w / (psz / 8) * psz, *(unsigned long long *)(buf + w * 8));
				count(K_GUP_REMOTE, 1);
			}
		}
		if (nodes >= 2 && now > next_migrate) {
			unsigned long from = 1UL << !node, to = 1UL << node;

			for (int i = 0; i < nprocs; i++)
				if (ctl->w[i].pid > 0 &&
				    syscall(SYS_migrate_pages, ctl->w[i].pid, 64, &from, &to) >= 0)
					count(K_MIGRATE_PAGES, 1);
			node = !node;
			next_migrate = now + 0.5e9;
		}
		if (have_exec && now > next_exec) {
			exec_bigtext();
			next_exec = now + 1e9;
		}
		usleep(1000);
	}
	free(buf);
}

static void usage(void)
{
	say("usage: stress [SECONDS] [require] [procs=N] [threads=N] [memcg_mb=N] [erofs=IMAGE] "
	    "[seed=N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long seconds = 60, memcg_mb = 64, nprocs = 2, nthreads = 3, ev0[8], ev1[8];
	uint64_t seed = 1;
	int require = 0, have_exec = 0, memcg_proc = -1, bad = 0, mounted = 0;
	const char *img = "/bigtext.erofs";
	static const char *const evn[] = { "pt_reclaim_fast", "pt_reclaim_slow", "pt_reclaim_kept",
		"thp_collapse_alloc", "pgmigrate_success", "pswpout", "pswpin", "thp_fault_alloc" };
	long fault0[MAX_SIZES], fault1[MAX_SIZES], fb0[MAX_SIZES], fb1[MAX_SIZES];
	pid_t pids[MAX_PROCS + 1];
	double t0, t1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "require"))
			require = 1;
		else if (!strncmp(argv[i], "procs=", 6))
			nprocs = atol(argv[i] + 6);
		else if (!strncmp(argv[i], "threads=", 8))
			nthreads = atol(argv[i] + 8);
		else if (!strncmp(argv[i], "memcg_mb=", 9))
			memcg_mb = atol(argv[i] + 9);
		else if (!strncmp(argv[i], "erofs=", 6))
			img = argv[i] + 6;
		else if (!strncmp(argv[i], "seed=", 5))
			seed = strtoull(argv[i] + 5, NULL, 0);
		else if (argv[i][0] >= '0' && argv[i][0] <= '9')
			seconds = atol(argv[i]);
		else
			usage();
	}
	if (seconds < 1 || nprocs < 1 || nprocs > MAX_PROCS - 1 || nthreads < 1 ||
	    nthreads > MAX_THREADS || memcg_mb < 8)
		usage();
	psz = sysconf(_SC_PAGESIZE);
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED)
		return 2;
	say("== stress: %ld s, %ld processes x %ld threads, seed %llu ==\n", seconds, nprocs,
	    nthreads, (unsigned long long)seed);

	knobs_enable();
	numa_probe();
	/* The EROFS image: mounted for the file mapping and for exec. */
	mkdir("/mnt", 0755);
	mkdir(IMG_MNT, 0755);
	if (!access(img, R_OK) && mount(img, IMG_MNT, "erofs", MS_RDONLY, NULL) == 0)
		mounted = 1;
	if (mounted && !access(IMG_MNT "/bigtext", X_OK)) {
		have_exec = 1;
		snprintf(file_path, sizeof(file_path), IMG_MNT "/bigtext");
	} else {
		char why[96];

		snprintf(why, sizeof(why), "cannot mount %s (erofs): %s", img, strerror(errno));
		unavailable(F_EXEC, why);
		unavailable(F_COLLAPSE_FILE, "no EROFS file");
	}
	if (vmstat("pt_reclaim_fast") < 0)
		unavailable(F_PT_RECLAIM, "no pt_reclaim_* in /proc/vmstat");
	if (cgroup_setup(memcg_mb * 3 / 4 * 1024L * 1024) == 0 && ctl->unavail[F_SWAP]) {
		/* Without swap a limit below the working set is an OOM kill: leave it out. */
		rmdir(cg_dir);
		cg_dir[0] = 0;
		unavailable(F_MEMCG, "not run: no swap to go to");
	}

	collapse_trace_start();
	for (int i = 0; i < 8; i++)
		ev0[i] = vmstat(evn[i]);
	for (int i = 0; i < nknobs; i++) {
		fault0[i] = size_stat(i, "anon_fault_alloc");
		fb0[i] = size_stat(i, "anon_fault_fallback");
	}
	t0 = now_ns();
	deadline_ns = t0 + seconds * 1e9;

	for (int p = 0; p < nprocs + (cg_dir[0] ? 1 : 0); p++) {
		int memcg = p == nprocs;
		pid_t pid = fork();

		if (pid == 0) {
			if (memcg) {
				char path[512], v[32];

				snprintf(path, sizeof(path), "%s/cgroup.procs", cg_dir);
				snprintf(v, sizeof(v), "%d", getpid());
				if (write_str(path, v)) {
					fail(NULL, "cannot join %s", cg_dir);
					_exit(1);
				}
			}
			ctl->w[p].pid = getpid();
			_exit(worker(p, memcg ? 2 : nthreads, memcg,
				     memcg ? memcg_mb * 1024 * 1024 / psz / 2 : 4 * SZ_2M / psz, seed));
		}
		pids[p] = pid;
		if (memcg)
			memcg_proc = p;
	}
	parent_loop(nprocs, have_exec);
	ctl->stop = 1;
	/* Stragglers: a worker that does not end within 120 s is hung. */
	for (int p = 0; p < nprocs + (memcg_proc >= 0); p++) {
		int status = 0;
		double give_up = now_ns() + 120e9;
		pid_t w;

		while ((w = waitpid(pids[p], &status, WNOHANG)) == 0 && now_ns() < give_up)
			usleep(10000);
		if (w == 0) {
			fail(NULL, "worker %d did not stop within 120 s of the end (hung?)", p);
			kill(pids[p], SIGKILL);
			waitpid(pids[p], &status, 0);
		} else if (WIFSIGNALED(status)) {
			fail(NULL, "worker %d%s killed by signal %d (%s)", p,
			     p == memcg_proc ? " (memcg)" : "", WTERMSIG(status), strsignal(WTERMSIG(status)));
		} else if (WEXITSTATUS(status) && !ctl->failed) {
			fail(NULL, "worker %d exited %d", p, WEXITSTATUS(status));
		}
	}
	t1 = now_ns();
	for (int i = 0; i < 8; i++)
		ev1[i] = vmstat(evn[i]);
	for (int i = 0; i < nknobs; i++) {
		fault1[i] = size_stat(i, "anon_fault_alloc");
		fb1[i] = size_stat(i, "anon_fault_fallback");
	}
	knobs_restore();
	if (cg_dir[0]) {
		long ooms = cg_oom_kills();

		if (ooms)
			fail(NULL, "%ld OOM kill(s) in %s (memory.max %ld MiB, working set %ld MiB)", ooms,
			     cg_dir, memcg_mb * 3 / 4, memcg_mb);
		rmdir(cg_dir);
	}
	if (mounted)
		umount2(IMG_MNT, MNT_DETACH);

	/* ---- the figures ---- */
	{
		double s = (t1 - t0) / 1e9;
		char data[2048];
		int off;

		say("== stress: operations per second (%.1f s) ==\n", s);
		off = snprintf(data, sizeof(data), "mmrs-data stress seconds=%.1f", s);
		for (int k = 0; k < NKINDS; k++) {
			say("  %-18s %9llu  %10.1f/s\n", kind_name[k], (unsigned long long)ctl->count[k],
			    ctl->count[k] / s);
			off += snprintf(data + off, sizeof(data) - off, " %s=%llu", kind_name[k],
					(unsigned long long)ctl->count[k]);
		}
		say("  faults by size:  ");
		for (int i = 0; i < nsizes; i++)
			say(" %ldK=%llu", sizes[i] * psz / 1024, (unsigned long long)ctl->size_faults[i]);
		say("\n  anon_fault_alloc:");
		for (int i = 0; i < nknobs; i++)
			if (fault0[i] >= 0)
				say(" %ldK=%ld(fallback %ld)", knob_kb[i], fault1[i] - fault0[i], fb1[i] - fb0[i]);
		say("\n  MADV_COLLAPSE done: anon %llu, shmem %llu, file %llu; UFFDIO_MOVE retries: "
		    "EAGAIN %llu, EBUSY %llu, ENOENT %llu\n",
		    (unsigned long long)ctl->collapse_ok[0], (unsigned long long)ctl->collapse_ok[1],
		    (unsigned long long)ctl->collapse_ok[2], (unsigned long long)ctl->busy[0],
		    (unsigned long long)ctl->busy[1], (unsigned long long)ctl->busy[2]);
		say("  vmstat deltas:");
		for (int i = 0; i < 8; i++) {
			if (ev0[i] < 0) {
				say(" %s=n/a", evn[i]);
				continue;
			}
			say(" %s=%ld", evn[i], ev1[i] - ev0[i]);
			off += snprintf(data + off, sizeof(data) - off, " %s=%ld", evn[i], ev1[i] - ev0[i]);
		}
		say("\n%s\n", data);
		if (ev0[0] >= 0)
			say("  PT reclaim: fast %ld, slow %ld, kept %ld\n", ev1[0] - ev0[0], ev1[1] - ev0[1],
			    ev1[2] - ev0[2]);
	}
	/*
	 * MADV_COLLAPSE that never worked and only ever said EINVAL: the kernel
	 * cannot. One that failed otherwise (EAGAIN, ENOMEM, EBUSY) can.
	 */
	for (int i = 0; i < 3; i++) {
		uint64_t *e = ctl->collapse_err[i];

		say("  MADV_COLLAPSE %-5s ok %llu, EAGAIN %llu, ENOMEM %llu, EBUSY %llu, EINVAL %llu "
		    "(%llu across VMAs)\n",
		    i == 0 ? "anon" : i == 1 ? "shmem" : "file", (unsigned long long)ctl->collapse_ok[i],
		    (unsigned long long)e[0], (unsigned long long)e[1], (unsigned long long)e[2],
		    (unsigned long long)e[3], (unsigned long long)ctl->collapse_einval_split[i]);
		if (ctl->collapse_ok[i])
			continue;
		if (!e[0] && !e[1] && !e[2])
			unavailable(F_COLLAPSE_ANON + i, !e[3] ? "never tried" : i == 2 ?
				    "MADV_COLLAPSE: EINVAL (no CONFIG_READ_ONLY_THP_FOR_FS?)" :
				    "MADV_COLLAPSE: EINVAL");
		else
			say("  note: MADV_COLLAPSE %s never succeeded\n", i == 0 ? "anon" : i == 1 ?
			    "shmem" : "file");
	}
	collapse_trace_report();
	if (!ctl->unavail[F_SWAP] && memcg_proc >= 0 && ev0[5] >= 0 && ev1[5] == ev0[5])
		say("  note: the memcg worker never swapped out\n");
	if (ctl->no_pvm)
		say("  note: process_vm_readv: ENOSYS (no CONFIG_CROSS_MEMORY_ATTACH); GUP reads "
		    "through /proc/PID/mem only\n");
	for (int f = 0; f < NFEAT; f++) {
		if (!ctl->unavail[f])
			continue;
		say("  not available: %s (%s)\n", feat_name[f], ctl->why[f]);
		if (require) {
			say("stress: FAILED: %s is required on this kernel\n", feat_name[f]);
			bad = 1;
		}
	}
	if (ctl->failed) {
		say("stress: FAILED: %s\n", ctl->msg);
		return 1;
	}
	if (!bad)
		say("== stress: no mismatch ==\n");
	return bad;
}
