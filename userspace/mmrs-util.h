/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the mm-rs test programs: sysfs writes and guest
 * time. Each program is one .c file built statically (scripts/initramfs.sh).
 */
#ifndef MMRS_UTIL_H
#define MMRS_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Writes @val to @path: 0, or -errno (a sysfs knob's -EINVAL among them). */
static inline int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* CLOCK_MONOTONIC in ns: guest time, instruction-counted under -icount. */
static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#endif
