// SPDX-License-Identifier: GPL-2.0
/* writefile PATH VALUE: write VALUE to PATH (sysctl and sysfs set-up in the guest). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: writefile PATH VALUE\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0 || write(fd, argv[2], strlen(argv[2])) < 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	return 0;
}
