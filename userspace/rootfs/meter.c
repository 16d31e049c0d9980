// SPDX-License-Identifier: GPL-2.0
/*
 * mmrs-meter ID COMMAND [ARG...]: run COMMAND inside measurement window ID
 * (0-15) of the mmrs-meter QEMU plugin (userspace/qemu-plugin/README).
 *
 * The begin marker executes before the fork, the end marker after the
 * child has been reaped, so the window holds everything the step costs:
 * the fork and exec, every process COMMAND starts, the kernel work they
 * cause on any vCPU, and their exit. Exits with COMMAND's status (128 + N
 * for signal N), 127 if it cannot be started. Without the plugin (or on
 * hardware) the markers are no-ops and this is a plain fork and exec.
 *
 * /mmrs/workload.sh's measure() uses it for W=bench when the kernel command
 * line has mmrs.meter=1 (scripts/workload.sh adds both the plugin and that).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../qemu-plugin/mmrs-meter.h"

int main(int argc, char **argv)
{
	unsigned int id;
	char *end;
	pid_t pid;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: mmrs-meter ID COMMAND [ARG...]\n");
		return 2;
	}
	errno = 0;
	id = strtoul(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || id >= MMRS_METER_NR_IDS) {
		fprintf(stderr, "mmrs-meter: ID must be 0-%d, not %s\n",
			MMRS_METER_NR_IDS - 1, argv[1]);
		return 2;
	}

	mmrs_meter_begin(id);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "mmrs-meter: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		mmrs_meter_end(id);
		perror("mmrs-meter: fork");
		return 127;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			mmrs_meter_end(id);
			perror("mmrs-meter: waitpid");
			return 127;
		}
	}
	mmrs_meter_end(id);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
