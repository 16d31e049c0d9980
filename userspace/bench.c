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
 *			one vCPU, so guest time is this loop's alone.
 *   bench mt ROUNDS	2 and 4 threads each touching 64 MiB of their own
 *			at order 0, C and Rust: aggregate faults per second
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mmrs-util.h"

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
	int a = write_str("/sys/kernel/mm/mm_rs/anon_order",
			  p == PATH_RUST || p == PATH_ORDER ? "1" : "0");
	int b = write_str("/sys/kernel/mm/mm_rs/anon_fault",
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

/* Touches [p, p + len) one byte a page; returns guest ns. */
static double touch(char *p, size_t len)
{
	double t0 = now_ns();
	size_t i;

	for (i = 0; i < len; i += page_size)
		p[i] = 1;
	return now_ns() - t0;
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
	int r, s, path;

	printf("== bench anon: 256 MiB touched one byte a page; guest time (-icount shift=0) ==\n");
	set_mthp(2048, "never");
	for (r = 0; r < rounds; r++)
		for (s = 0; s < 4; s++)
			for (path = 0; path < NR_PATHS; path++) {
				unsigned long kb = sizes_kb[s];
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
				ns = touch(p, ANON_LEN);
				faults = minflt() - f0;
				munmap(p, ANON_LEN);
				printf("mmrs-data bench anon round=%d size_kb=%lu path=%s faults=%ld "
				       "ns=%.0f ns_per_mib=%.1f ns_per_fault=%.1f\n",
				       r, kb ? kb : (unsigned long)page_size / 1024,
				       path_name[path], faults, ns, ns / (ANON_LEN / MIB),
				       ns / faults);
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

static int mt(int rounds)
{
	static const int nthreads[] = { 2, 4 };
	int r, t, rust, i;

	printf("== bench mt: threads each touching 64 MiB of their own at order 0 ==\n");
	set_mthp(2048, "never");
	set_mthp(64, "never");
	for (r = 0; r < rounds; r++)
		for (t = 0; t < 2; t++)
			for (rust = 0; rust <= 1; rust++) {
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

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 3;

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && !strcmp(argv[1], "anon"))
		return anon(rounds);
	if (argc > 1 && !strcmp(argv[1], "mt"))
		return mt(rounds);
	fprintf(stderr, "usage: bench anon|mt [ROUNDS]\n");
	return 2;
}
