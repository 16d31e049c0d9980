// SPDX-License-Identifier: GPL-2.0
/*
 * provoke: make the kernel itself emit each class of splat the verdicts
 * claim to catch (scripts/verdict-boot.sh), one after the other:
 *
 *   warn           WARN()                      LKDTM WARNING
 *   vm-warn-folio  VM_WARN_ON_ONCE_FOLIO()     /sys/kernel/debug/mm_rs_provoke
 *   hung-task      the hung-task detector      LKDTM HUNG_TASK (sleeps in D)
 *   bug            BUG()                       LKDTM BUG (kills its writer;
 *                                              after it, with TAINT_DIE, the
 *                                              hung-task detector is silent)
 *   soft-lockup    the soft-lockup detector    LKDTM SOFTLOCKUP (spins with
 *                                              preemption off, for good)
 *   hard-lockup    the hard-lockup detector    LKDTM HARDLOCKUP (spins with
 *                                              interrupts off, for good)
 *
 * Each class is framed by "mmrs-provoke: begin NAME" and "mmrs-provoke: end
 * NAME" records, so that the host can judge each part of the console log on
 * its own. Between them the program waits, reading /dev/kmsg, until the
 * kernel has logged the class's own line; a class whose line never comes
 * fails it. The detectors are made quick for this boot only: hung tasks at
 * 5 s (hung_task_timeout_secs), soft lockups at 2 * 4 s and hard lockups at
 * about 4 s (watchdog_thresh).
 *
 * Each lockup takes a CPU for good: the soft lockup the last CPU, the hard
 * lockup the one before it. The buddy hard-lockup detector (the only one a
 * TCG guest can run: it has no PMU NMI) has each CPU check the next one, so
 * the hard lockup needs a CPU left to check it: three CPUs for both.
 *
 * A lockup leaves a CPU spinning, so the program ends the boot itself
 * with SysRq-b (an immediate reboot, which QEMU's -no-reboot makes an exit)
 * after printing "mmrs-provoke: all N provoked". Usage: provoke [NAME...]
 * (default: every class, in the order above).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LKDTM "/sys/kernel/debug/provoke-crash/DIRECT"
#define MMRS "/sys/kernel/debug/mm_rs_provoke"

struct class {
	const char *name;
	const char *file;	/* where the trigger is written */
	const char *word;	/* what is written */
	int child;		/* write it from a child that never returns */
	int pin;		/* pin that child to the pin-th CPU from the last */
	const char *expect[2];	/* the kernel's own lines, all required */
	int timeout;		/* seconds */
};

static const struct class classes[] = {
	{ "warn", LKDTM, "WARNING", 0, 0,
	  { "WARNING: CPU:", "lkdtm_WARNING" }, 30 },
	{ "vm-warn-folio", MMRS, "vm_warn_on_once_folio", 0, 0,
	  { "page dumped because: VM_WARN_ON_ONCE_FOLIO", "WARNING: CPU:" }, 30 },
	{ "hung-task", LKDTM, "HUNG_TASK", 1, 0,
	  { "blocked for more than", NULL }, 60 },
	{ "bug", LKDTM, "BUG", 1, 0,
	  { "kernel BUG at", "lkdtm_BUG" }, 30 },
	{ "soft-lockup", LKDTM, "SOFTLOCKUP", 1, 1,
	  { "BUG: soft lockup", NULL }, 90 },
	{ "hard-lockup", LKDTM, "HARDLOCKUP", 1, 2,
	  { "Watchdog detected hard LOCKUP on cpu", NULL }, 90 },
};

static int kmsg_w = -1;

/*
 * Records go to /dev/kmsg, not to stdout: printk writes the console itself,
 * while a write to the console tty waits for the UART's transmit interrupt,
 * which never comes once its CPU spins with interrupts off (after the hard
 * lockup the results printed to stdout never reached the log).
 */
static void say(const char *fmt, ...)
{
	char rec[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rec, sizeof(rec), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(rec))
		n = sizeof(rec) - 1;
	if (write(kmsg_w, rec, n) != n)
		perror("provoke: /dev/kmsg");
}

static void mark(const char *what, const char *name)
{
	say("<5>mmrs-provoke: %s %s\n", what, name);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Read kmsg records until every expected line has been seen, or timeout. */
static int wait_for(int fd, const struct class *c)
{
	int seen[2] = { !c->expect[0], !c->expect[1] };
	time_t end = time(NULL) + c->timeout;
	char rec[8192];

	while (!(seen[0] && seen[1])) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);

		if (n < 0 && errno == EAGAIN) {
			if (time(NULL) > end)
				return -1;
			usleep(100000);
			continue;
		}
		if (n < 0 && errno == EPIPE)	/* overwritten records */
			continue;
		if (n < 0) {
			perror("provoke: read /dev/kmsg");
			return -1;
		}
		rec[n] = '\0';
		for (int i = 0; i < 2; i++)
			if (c->expect[i] && strstr(rec, c->expect[i]))
				seen[i] = 1;
	}
	return 0;
}

static int provoke(const struct class *c)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), rc = 0;
	pid_t pid = 0;

	if (fd < 0) {
		perror("provoke: /dev/kmsg");
		return 1;
	}
	lseek(fd, 0, SEEK_END);
	mark("begin", c->name);
	if (!c->child) {
		rc = write_str(c->file, c->word);
		if (rc)
			fprintf(stderr, "provoke: %s: writing %s to %s: %s\n",
				c->name, c->word, c->file, strerror(-rc));
	} else {
		pid = fork();
		if (pid == 0) {
			if (c->pin) {
				cpu_set_t set;
				long n = sysconf(_SC_NPROCESSORS_ONLN);

				/* and leave at least one CPU to the rest */
				if (n <= c->pin)
					_exit(2);
				CPU_ZERO(&set);
				CPU_SET(n - c->pin, &set);
				if (sched_setaffinity(0, sizeof(set), &set))
					_exit(2);
			}
			_exit(write_str(c->file, c->word) ? 1 : 0);
		}
	}
	if (!rc && wait_for(fd, c)) {
		/* (not the lines themselves: they would be splats in the log) */
		fprintf(stderr, "provoke: %s: the kernel never logged its report within %ds\n",
			c->name, c->timeout);
		rc = 1;
	}
	/* BUG() killed its writer; the others never return. */
	if (pid > 0) {
		int st;

		if (waitpid(pid, &st, WNOHANG) == pid && WIFEXITED(st) && WEXITSTATUS(st)) {
			fprintf(stderr, "provoke: %s: the child could not write the trigger (%d)\n",
				c->name, WEXITSTATUS(st));
			rc = 1;
		}
	}
	mark("end", c->name);
	close(fd);
	say("<5>mmrs-provoke: %s %s\n", c->name, rc ? "NOT provoked" : "provoked");
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	int n = sizeof(classes) / sizeof(classes[0]), done = 0, failed = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	/*
	 * This program and its unpinned children on the first CPU: the lockups
	 * take the last two for good, and a timer of ours queued on the CPU
	 * that spins with interrupts off would never fire (the first hard
	 * lockup provoked here hung in usleep() after the kernel's report).
	 */
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("provoke: sched_setaffinity");
			return 1;
		}
	}
	kmsg_w = open("/dev/kmsg", O_WRONLY);
	if (kmsg_w < 0) {
		perror("provoke: /dev/kmsg");
		return 1;
	}
	if (write_str("/proc/sys/kernel/hung_task_timeout_secs", "5") ||
	    write_str("/proc/sys/kernel/watchdog_thresh", "4")) {
		fprintf(stderr, "provoke: cannot set the detectors' timeouts (no detectors?)\n");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		int want = argc < 2;

		for (int a = 1; a < argc; a++)
			want |= !strcmp(argv[a], classes[i].name);
		if (!want)
			continue;
		failed += provoke(&classes[i]);
		done++;
	}
	for (int a = 1; a < argc; a++) {
		int known = 0;

		for (int i = 0; i < n; i++)
			known |= !strcmp(argv[a], classes[i].name);
		if (!known) {
			fprintf(stderr, "provoke: no class %s\n", argv[a]);
			failed++;
		}
	}
	if (failed) {
		say("<5>mmrs-provoke: %d of %d NOT provoked\n", failed, done);
		return 1;
	}
	say("<5>mmrs-provoke: all %d provoked\n", done);
	/* A CPU may be spinning for good (the lockups): reboot at once. */
	sync();
	write_str("/proc/sysrq-trigger", "b");
	sleep(10);
	fprintf(stderr, "provoke: SysRq-b did not reboot\n");
	return 1;
}
