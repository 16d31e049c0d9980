// SPDX-License-Identifier: GPL-2.0
/*
 * flipkey [N]: QEMU's stale INT3 on demand (docs/testing.rst, "QEMU's stale
 * INT3"). Writes kernel.numa_balancing 1, 0, 1, ... N times (default 3000)
 * while one spinning child per CPU keeps the timer tick, and so
 * task_tick_fair()'s static branch on sched_numa_balancing, running on every
 * CPU. Each write makes the kernel patch that branch with text_poke_bp().
 * On a correct CPU nothing happens; under QEMU 7.2's multi-threaded TCG an
 * x86_64 guest dies of "Oops: int3" within a few hundred writes, and with
 * -accel tcg,thread=single it does not.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define SYSCTL "/proc/sys/kernel/numa_balancing"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000, i;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t kid[64];
	long k;

	if (cpus < 1 || cpus > 64)
		cpus = 64;
	for (k = 0; k < cpus; k++) {
		kid[k] = fork();
		if (kid[k] == 0) {
			for (volatile unsigned long x = 0;; x++)
				;
		}
	}
	for (i = 0; i < n; i++) {
		int fd = open(SYSCTL, O_WRONLY);

		if (fd < 0 || write(fd, i & 1 ? "0" : "1", 1) != 1) {
			perror(SYSCTL);
			n = -1;
			break;
		}
		close(fd);
		if (i % 500 == 0)
			printf("mmrs-flipkey: %ld writes\n", i);
		fflush(stdout);
	}
	for (k = 0; k < cpus; k++)
		if (kid[k] > 0)
			kill(kid[k], SIGKILL);
	while (wait(NULL) > 0)
		;
	if (n < 0)
		return 1;
	printf("mmrs-flipkey: %ld writes, no oops\n", n);
	return 0;
}
