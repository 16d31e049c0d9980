// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the mm selftests listed in /etc/selftests.list inside the test kernel
 * and prints TAP on the console: one "selftest: ok|not ok N NAME" line a
 * test, "# SKIP" for the kselftest skip code (4). Each test runs from
 * /selftests with its arguments, under a time limit given in the list.
 *
 * List format, one test a line:  SECONDS NAME PROGRAM [ARGS...]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KSFT_SKIP 4
#define MAX_ARGS 16

static int run_one(int n, int secs, const char *name, char **argv)
{
	struct timespec t0, t1;
	int status, waited = 0;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);	/* a timeout kills the test's whole group */
		if (chdir("/selftests"))
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "selftest: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited >= secs * 10) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			printf("selftest: not ok %d %s # TIMEOUT %ds\n", n, name, secs);
			return 1;
		}
		usleep(100000);
		waited++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		printf("selftest: ok %d %s # %.1fs\n", n, name,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP)
		printf("selftest: ok %d %s # SKIP\n", n, name);
	else
		printf("selftest: not ok %d %s # exit %d\n", n, name,
		       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

int main(void)
{
	char line[512], *argv[MAX_ARGS + 1];
	FILE *f = fopen("/etc/selftests.list", "r");
	int n = 0, total = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!f) {
		printf("selftest: no /etc/selftests.list\n");
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && line[0] != '\n')
			total++;
	rewind(f);
	printf("selftest: TAP version 13\nselftest: 1..%d\n", total);
	while (fgets(line, sizeof(line), f)) {
		char *tok, *name, *save;
		int secs, argc = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		tok = strtok_r(line, " ", &save);
		secs = tok ? atoi(tok) : 0;
		name = strtok_r(NULL, " ", &save);
		while (argc < MAX_ARGS && (tok = strtok_r(NULL, " ", &save)))
			argv[argc++] = tok;
		argv[argc] = NULL;
		if (!name || !argc || secs <= 0) {
			printf("selftest: bad list line\n");
			continue;
		}
		n++;
		printf("selftest: # running %s\n", name);
		run_one(n, secs, name, argv);
	}
	fclose(f);
	printf("selftest: done\n");
	return 0;
}
