// SPDX-License-Identifier: GPL-2.0
/*
 * sudo [-u root|nobody] COMMAND [ARGS...]: the little of sudo that the mm
 * selftests' run_vmtests.sh uses (on-fault-limit runs as nobody). The guest
 * runs everything as root, so this only drops to nobody (65534) when asked.
 */
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i = 1;

	if (i + 1 < argc && !strcmp(argv[i], "-u")) {
		if (!strcmp(argv[i + 1], "nobody")) {
			if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
				perror("sudo: setuid");
				return 1;
			}
		} else if (strcmp(argv[i + 1], "root")) {
			fprintf(stderr, "sudo: unknown user %s\n", argv[i + 1]);
			return 1;
		}
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: sudo [-u root|nobody] COMMAND [ARGS...]\n");
		return 1;
	}
	execvp(argv[i], argv + i);
	perror("sudo: exec");
	return 127;
}
