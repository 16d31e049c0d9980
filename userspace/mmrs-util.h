/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the mm-rs test programs: sysfs writes, guest
 * time and /proc values. Each program is one .c file built statically (scripts/initramfs.sh).
 */
#ifndef MMRS_UTIL_H
#define MMRS_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Reads @path into @buf (at most @len - 1 bytes), up to its first newline. */
static inline void read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (fd >= 0)
		close(fd);
}

/*
 * The value of a "Key:   N kB" line of @path (/proc/meminfo,
 * /proc/self/status); -1 if there is none.
 */
static inline long proc_kb(const char *path, const char *key)
{
	size_t len = strlen(key);
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			v = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

#endif
