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
 * Exits 1 if, with exec readahead on, less than 90% of the faulted text
 * is in >= 64K folios, or more was read than with it off.
 */
#define _GNU_SOURCE
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

/* One run of bigtext from a fresh mount, exec readahead @on; @label says how. */
static int run(const char *label, int on, int random, struct result *r)
{
	char line[512], *p;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (mount(IMG, MNT, "erofs", MS_RDONLY, NULL)) {
		printf("exectext: FAILED: mount -t erofs %s %s: %s\n", IMG, MNT, strerror(errno));
		return -1;
	}
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { MNT "/bigtext", SEED, PERMILLE, random ? "random" : NULL, NULL };

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
	printf("mmrs-data exectext exec_ra=%s %s\n", on ? "on" : "off",
	       line + strlen("mmrs-data bigtext "));
	printf("  %-22s %5.1f%% of faulted text in >=64K folios, read %5ld kB for %5ld kB touched "
	       "(x%.2f), %7.1f ms\n", label, r->large_pct, r->read_kb, r->touched_kb,
	       r->amplification, r->ms);
	return 0;
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
	if (bad)
		return 1;
	printf("== expected: >= 90%% in >=64K folios with exec readahead on, read no more than off ==\n");
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
	if (on.read_kb > off.read_kb) {
		printf("exectext: FAILED: read %ld kB with exec readahead, %ld kB without\n",
		       on.read_kb, off.read_kb);
		bad = 1;
	}
	return bad;
}
