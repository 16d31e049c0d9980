// SPDX-License-Identifier: GPL-2.0
/*
 * mm-rs demonstration, run inside a test kernel: the same work with each
 * Rust path on and off (/sys/kernel/debug/mm_rs/), side by side.
 *
 * Anonymous faults: touch 64 MiB one byte a page, with 64K mTHP enabled and
 * with order 0, and report the faults taken, the folio sizes that ended up
 * mapping the memory (from /proc/self/pagemap and /proc/kpageflags) and the
 * time per MiB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mmrs-util.h"

#define MIB		(1UL << 20)
#define TOUCH		(64 * MIB)
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_THP			22

static long page_size;

static int set_paths(int rust)
{
	const char *v = rust ? "1" : "0";
	int a = write_str("/sys/kernel/debug/mm_rs/anon_order", v);
	int b = write_str("/sys/kernel/debug/mm_rs/anon_fault", v);

	return a ? a : b;
}

static void set_mthp(const char *size_kb, const char *mode)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/transparent_hugepage/hugepages-%skB/enabled", size_kb);
	if (write_str(path, mode))
		fprintf(stderr, "demo: cannot set %s to %s\n", path, mode);
}

/* The bracketed mode of an mTHP size's "enabled" file, into @mode. */
static void get_mthp(const char *size_kb, char *mode, size_t len)
{
	char path[128], buf[128], *open_br, *close_br;
	int fd;
	ssize_t n;

	snprintf(mode, len, "never");
	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/transparent_hugepage/hugepages-%skB/enabled", size_kb);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	open_br = strchr(buf, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (close_br) {
		*close_br = 0;
		snprintf(mode, len, "%s", open_br + 1);
	}
}

/* Pages of [p, p + len) in folios of at least 64K, from pagemap and kpageflags. */
static long pages_in_large_folios(char *p, size_t len, long *mapped)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	long large = 0, run = 0;
	size_t i, n = len / page_size;

	*mapped = 0;
	if (pm < 0 || kf < 0)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t ent, flags = 0;
		off_t off = ((uintptr_t)p / page_size + i) * 8;

		if (pread(pm, &ent, 8, off) != 8 || !(ent & (1ULL << 63))) {
			run = 0;
			continue;
		}
		(*mapped)++;
		if (pread(kf, &flags, 8, (ent & ((1ULL << 55) - 1)) * 8) != 8)
			continue;
		/* A head page starts a run of compound pages; count runs of >= 16 pages. */
		if (flags & (1ULL << KPF_COMPOUND_HEAD))
			run = 1;
		else if (flags & (1ULL << KPF_COMPOUND_TAIL))
			run++;
		else
			run = 0;
		if (run == 16)
			large += 16;
		else if (run > 16)
			large++;
	}
	close(pm);
	close(kf);
	return large;
}

/* Faults taken, or -1 if the run could not be made. */
static long anon_run(int rust, const char *label)
{
	struct rusage r0, r1;
	long mapped, large;
	double t0, t1;
	char *p;
	size_t i;

	if (set_paths(rust)) {
		printf("  %-14s %-4s  (no /sys/kernel/debug/mm_rs switches: mm-rs not built in)\n",
		       label, rust ? "Rust" : "C");
		return -1;
	}
	p = mmap(NULL, TOUCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns() / 1e9;
	for (i = 0; i < TOUCH; i += page_size)
		p[i] = 1;
	t1 = now_ns() / 1e9;
	getrusage(RUSAGE_SELF, &r1);
	large = pages_in_large_folios(p, TOUCH, &mapped);
	printf("  %-14s %-4s  %8ld faults  %5.1f%% in >=64K folios  %8.1f us/MiB\n",
	       label, rust ? "Rust" : "C", r1.ru_minflt - r0.ru_minflt,
	       mapped ? 100.0 * large / mapped : 0.0, (t1 - t0) * 1e6 / (TOUCH / MIB));
	munmap(p, TOUCH);
	return r1.ru_minflt - r0.ru_minflt;
}

/*
 * The switches take exactly 0 and 1; anything else is -EINVAL and changes
 * nothing. The Rust/C switches are in debugfs only (not ABI), pt_reclaim, a
 * user's knob, in sysfs.
 */
static int check_switches(void)
{
	static const char *const files[] = {
		"/sys/kernel/debug/mm_rs/anon_order", "/sys/kernel/debug/mm_rs/anon_fault",
		"/sys/kernel/mm/mm_rs/pt_reclaim",
	};
	static const char *const gone[] = {
		"/sys/kernel/mm/mm_rs/anon_order", "/sys/kernel/mm/mm_rs/anon_fault",
		"/sys/kernel/debug/mm_rs/pt_reclaim",
	};
	static const char *const bad[] = { "2", "-1", "x", "01x", "1 1", "000000001" };
	char val[8];
	int i, j, fd, bad_seen = 0;

	for (i = 0; i < 3; i++) {
		const char *path = files[i];

		if (access(gone[i], F_OK) == 0) {
			printf("demo: FAILED: %s exists\n", gone[i]);
			bad_seen = 1;
		}
		if (write_str(path, "1"))
			return 1;
		for (j = 0; j < 6; j++) {
			int err = write_str(path, bad[j]);

			if (err != -EINVAL) {
				printf("demo: FAILED: writing '%s' to %s gave %d, not -EINVAL\n",
				       bad[j], path, err);
				bad_seen = 1;
			}
		}
		fd = open(path, O_RDONLY);
		memset(val, 0, sizeof(val));
		if (fd < 0 || read(fd, val, sizeof(val) - 1) <= 0 || strcmp(val, "1\n")) {
			printf("demo: FAILED: %s reads '%s' after the bad writes\n", path, val);
			bad_seen = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	if (!bad_seen)
		printf("== switches: debug/mm_rs/{anon_order,anon_fault} and mm/mm_rs/pt_reclaim reject bad values ==\n");
	return bad_seen;
}

int main(void)
{
	long large[2], small[2];
	int rust, bad = 0;

	char saved_64k[16], saved_pmd[16];

	page_size = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IONBF, 0);
	/* Programs that run after the demo (the selftests) get the knobs back as they were. */
	get_mthp("64", saved_64k, sizeof(saved_64k));
	get_mthp("2048", saved_pmd, sizeof(saved_pmd));
	printf("== mm-rs demo: anonymous faults, 64 MiB touched one byte a page ==\n");
	set_mthp("2048", "never");
	for (rust = 0; rust <= 1; rust++) {
		set_mthp("64", "always");
		large[rust] = anon_run(rust, "64K mTHP");
		set_mthp("64", "never");
		small[rust] = anon_run(rust, "order 0");
	}
	set_paths(1);
	set_mthp("64", saved_64k);
	set_mthp("2048", saved_pmd);
	printf("== expected: 64K mTHP takes 16 times fewer faults than order 0, on both paths ==\n");
	bad = check_switches();
	for (rust = 0; rust <= 1; rust++) {
		if (large[rust] < 0 || small[rust] < 0 || large[rust] * 8 > small[rust]) {
			printf("demo: FAILED: %s path took %ld faults with 64K mTHP, %ld at order 0\n",
			       rust ? "Rust" : "C", large[rust], small[rust]);
			bad = 1;
		}
	}
	return bad;
}
