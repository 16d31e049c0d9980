// SPDX-License-Identifier: GPL-2.0
/*
 * Exec text in large folios: run /mnt/exec/bigtext (8 MiB of text, from an
 * EROFS image, a filesystem with large folios, mounted from the file
 * /bigtext.erofs) with mm-rs exec readahead off and on, in one boot.
 *
 * Usage: exectext [ROUNDS]. Each run mounts the image afresh, so the text
 * is read from the file every time, and reports (bigtext's line): the
 * share of faulted text in >= 64K folios, the bytes read against the text
 * touched (read amplification) and the time. Then bigtext runs once more
 * each way with MADV_RANDOM on its text, which turns 6.12's read-around
 * off but not exec readahead.
 *
 * Where the architecture has no exec folio size (x86), the "on" runs set
 * /sys/kernel/mm/mm_rs/exec_folio_size to 64K, and say so.
 *
 * Last, the mmap_miss exemption (exec faults kept out of the count whose
 * MMAP_LOTSAMISS net misses stop readahead for the file), measured with the
 * debugfs switch exec_ra_miss_exempt at 1 (mm-rs) and 0 (counted, as
 * mainline): the runs above, where fault-around's hits keep the count low,
 * and the case the exemption is for, text missed more often than hit. That
 * is a 64K-page kernel's (fault-around maps one page, so hits count one a
 * fault) on a program whose touches are far apart; here, with 4K pages, it
 * is fault_around_bytes at 4096, a read_ahead_kb of 64 (one 64K window a
 * miss) and bigtext "sparse", one call in each of its 128 64K blocks.
 *
 * Exits 1 if, with exec readahead on, less than 90% of the faulted text
 * is in >= 64K folios, or more was read than with it off, by more than one
 * readahead window (128K: the ends of a segment); or if, in the
 * sparse case, the exemption keeps less than 90% in >= 64K folios, or
 * counting does not keep less (then the case missed what it is for).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmrs-util.h"

#define IMG	"/bigtext.erofs"
#define MNT	"/mnt/exec"
#define SEED	"12345"
#define PERMILLE "100"

struct result {
	double large_pct, amplification, ms, exact_pct;
	long touched_kb, read_kb;
};

/* The read_ahead_kb the runs set on the image's bdi after mounting it, 0: none. */
static long ra_kb;

/*
 * Sets read_ahead_kb of the bdi of the EROFS image just mounted: a
 * file-backed mount's own, "erofs-N", the one of highest N (this program
 * mounts one at a time). A file opened later takes its ra_pages from it.
 */
static int set_ra_kb(long kb)
{
	char path[300], val[32];
	long n, best = -1;
	struct dirent *e;
	DIR *d = opendir("/sys/class/bdi");

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "erofs-%ld", &n) == 1 && n > best)
			best = n;
	closedir(d);
	if (best < 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/class/bdi/erofs-%ld/read_ahead_kb", best);
	snprintf(val, sizeof(val), "%ld", kb);
	return write_str(path, val) ? -1 : 0;
}

/*
 * One run of bigtext from a fresh mount, exec readahead @on; @label says
 * how, @mode is bigtext's third argument (NULL, "random" or "sparse") and
 * @tag prefixes the data line's record.
 */
static int run_mode(const char *tag, const char *label, int on, const char *mode,
		    struct result *r)
{
	char line[512], *p;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (mount(IMG, MNT, "erofs", MS_RDONLY, NULL)) {
		printf("exectext: FAILED: mount -t erofs %s %s: %s\n", IMG, MNT, strerror(errno));
		return -1;
	}
	if (ra_kb && set_ra_kb(ra_kb)) {
		printf("exectext: FAILED: read_ahead_kb of the image's bdi\n");
		umount2(MNT, 0);
		return -1;
	}
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		/* sparse: one call in every 64K block (bigtext's PERMILLE of blocks). */
		int sparse = mode && !strcmp(mode, "sparse");
		char *argv[] = { MNT "/bigtext", SEED, sparse ? "1000" : PERMILLE, (char *)mode,
				 NULL };

		dup2(fds[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], line, sizeof(line) - 1);
	close(fds[0]);
	waitpid(pid, &status, 0);
	umount2(MNT, 0);
	line[n > 0 ? n : 0] = 0;
	line[strcspn(line, "\n")] = 0;
	p = strstr(line, "touched_kb=");
	if (!p || sscanf(p, "touched_kb=%ld faulted_kb=%*d large_pct=%lf read_kb=%ld "
			 "amplification=%lf ms=%lf exact_pct=%lf", &r->touched_kb, &r->large_pct,
			 &r->read_kb, &r->amplification, &r->ms, &r->exact_pct) != 6) {
		printf("exectext: FAILED: bigtext said '%s'\n", line);
		return -1;
	}
	printf("mmrs-data %s exec_ra=%s %s\n", tag, on ? "on" : "off",
	       line + strlen("mmrs-data bigtext "));
	printf("  %-22s %5.1f%% of faulted text in >=64K folios, read %5ld kB for %5ld kB touched "
	       "(x%.2f), %7.1f ms\n", label, r->large_pct, r->read_kb, r->touched_kb,
	       r->amplification, r->ms);
	return 0;
}

static int run(const char *label, int on, int random, struct result *r)
{
	return run_mode("exectext", label, on, random ? "random" : NULL, r);
}

/*
 * The exemption, in the sparse case: read_ahead_kb 64 and fault_around_bytes
 * 4096, exec readahead on with folios of @size, exec_ra_miss_exempt 1 then 0.
 * Each run's data line says exempt= and the setting; 0 if both ran and the
 * figures are as the exemption promises.
 */
static int miss_exemption(const char *size)
{
	struct result ex = {}, counted = {};
	char fab[32], tag[128];
	int bad = 0, exempt;

	read_str("/sys/kernel/debug/fault_around_bytes", fab, sizeof(fab));
	if (!fab[0] || write_str("/sys/kernel/debug/fault_around_bytes", "4096")) {
		printf("exectext: FAILED: /sys/kernel/debug/fault_around_bytes\n");
		return 1;
	}
	printf("== mmap_miss exemption: bigtext sparse (one call in each 64K block, 128 "
	       "misses, no hits), fault_around_bytes 4096, read_ahead_kb 64 ==\n");
	ra_kb = 64;
	write_str("/sys/kernel/debug/mm_rs/exec_ra", "1");
	write_str("/sys/kernel/mm/mm_rs/exec_folio_size", size);
	for (exempt = 1; exempt >= 0; exempt--) {
		write_str("/sys/kernel/debug/mm_rs/exec_ra_miss_exempt", exempt ? "1" : "0");
		snprintf(tag, sizeof(tag), "exectext-miss exempt=%d fault_around=4096 ra_kb=64",
			 exempt);
		bad |= run_mode(tag, exempt ? "exempt (mm-rs)" : "counted (mainline)", 1, "sparse",
				exempt ? &ex : &counted);
	}
	write_str("/sys/kernel/debug/mm_rs/exec_ra_miss_exempt", "1");
	write_str("/sys/kernel/mm/mm_rs/exec_folio_size", "0");
	write_str("/sys/kernel/debug/fault_around_bytes", fab);
	ra_kb = 0;
	if (bad)
		return 1;
	if (ex.large_pct < 90.0) {
		printf("exectext: FAILED: exempt, %.1f%% of sparse text in >=64K folios\n",
		       ex.large_pct);
		bad = 1;
	}
	if (counted.large_pct >= ex.large_pct) {
		printf("exectext: FAILED: counted, %.1f%% of sparse text in >=64K folios, "
		       "no less than exempt (%.1f%%): the case missed MMAP_LOTSAMISS\n",
		       counted.large_pct, ex.large_pct);
		bad = 1;
	}
	return bad;
}

/* The default setting, exec readahead on, exec_ra_miss_exempt 1 then 0. */
static int miss_exemption_default(const char *size)
{
	struct result r = {};
	char tag[64];
	int bad = 0, exempt;

	printf("== mmap_miss exemption: the runs above (10%% at random), default setting ==\n");
	write_str("/sys/kernel/debug/mm_rs/exec_ra", "1");
	write_str("/sys/kernel/mm/mm_rs/exec_folio_size", size);
	for (exempt = 1; exempt >= 0; exempt--) {
		write_str("/sys/kernel/debug/mm_rs/exec_ra_miss_exempt", exempt ? "1" : "0");
		snprintf(tag, sizeof(tag), "exectext-miss exempt=%d fault_around=default", exempt);
		bad |= run_mode(tag, exempt ? "exempt (mm-rs)" : "counted (mainline)", 1, NULL,
				&r);
	}
	write_str("/sys/kernel/debug/mm_rs/exec_ra_miss_exempt", "1");
	write_str("/sys/kernel/mm/mm_rs/exec_folio_size", "0");
	return bad;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1, i, bad = 0;
	struct result off = {}, on = {}, roff = {}, ron = {};
	char size[32], saved[32];

	setvbuf(stdout, NULL, _IONBF, 0);
	mkdir("/mnt", 0755);
	mkdir(MNT, 0755);
	read_str("/sys/kernel/mm/mm_rs/exec_folio_size", saved, sizeof(saved));
	if (!strcmp(saved, "0")) {
		printf("== exec text: this architecture has no exec folio size; the on runs set 64K ==\n");
		snprintf(size, sizeof(size), "65536");
	} else {
		snprintf(size, sizeof(size), "%s", saved);
	}
	printf("== exec text: 8 MiB executable on EROFS, 10%% of its functions called at random, "
	       "exec folio size %s ==\n", size);
	for (i = 0; i < rounds; i++) {
		write_str("/sys/kernel/debug/mm_rs/exec_ra", "0");
		bad |= run("off (6.12 read-around)", 0, 0, &off);
		write_str("/sys/kernel/debug/mm_rs/exec_ra", "1");
		write_str("/sys/kernel/mm/mm_rs/exec_folio_size", size);
		bad |= run("on", 1, 0, &on);
		write_str("/sys/kernel/mm/mm_rs/exec_folio_size", "0");
	}
	write_str("/sys/kernel/debug/mm_rs/exec_ra", "0");
	bad |= run("off, MADV_RANDOM", 0, 1, &roff);
	write_str("/sys/kernel/debug/mm_rs/exec_ra", "1");
	write_str("/sys/kernel/mm/mm_rs/exec_folio_size", size);
	bad |= run("on, MADV_RANDOM", 1, 1, &ron);
	write_str("/sys/kernel/mm/mm_rs/exec_folio_size", "0");
	bad |= miss_exemption_default(size);
	bad |= miss_exemption(size);
	if (bad)
		return 1;
	printf("== expected: >= 90%% in >=64K folios with exec readahead on, read no more than off "
	       "but one window ==\n");
	/* Exactly 64K: the exec order is the order read, not two more. */
	if (on.exact_pct < 90.0) {
		printf("exectext: FAILED: %.1f%% of text in folios of exactly 64K\n",
		       on.exact_pct);
		bad = 1;
	}
	if (on.large_pct < 90.0 || ron.large_pct < 90.0) {
		printf("exectext: FAILED: %.1f%% (%.1f%% with MADV_RANDOM) of text in >=64K folios\n",
		       on.large_pct, ron.large_pct);
		bad = 1;
	}
	/*
	 * The windows are aligned to the exec folio in the file and clamped to
	 * the VMA, read-around's are centred on the fault: at a segment's ends
	 * either may read a folio the other does not. One window's worth
	 * (ra_pages, 128K by default) is the slack.
	 */
	if (on.read_kb > off.read_kb + 128) {
		printf("exectext: FAILED: read %ld kB with exec readahead, %ld kB without\n",
		       on.read_kb, off.read_kb);
		bad = 1;
	}
	return bad;
}
