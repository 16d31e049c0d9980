// SPDX-License-Identifier: GPL-2.0
/*
 * kmsgprobe: log two records through /dev/kmsg, as the kernel logs a WARN:
 * its "WARNING: CPU: ..." line at KERN_WARNING and, without a level, a line
 * at the default message level (CONFIG_MESSAGE_LOGLEVEL_DEFAULT, 4), the
 * level of the registers and call trace that follow it. The console prints
 * a record only when its level is below the console loglevel, so both reach
 * the console log the judges read only if the guest booted with loglevel=5
 * or more (scripts/verdict-boot.sh requires both there, and the run failed).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int kmsg(int fd, const char *rec)
{
	if (write(fd, rec, strlen(rec)) != (ssize_t)strlen(rec)) {
		perror("kmsgprobe: /dev/kmsg");
		return 1;
	}
	return 0;
}

int main(void)
{
	int fd = open("/dev/kmsg", O_WRONLY), rc;

	if (fd < 0) {
		perror("kmsgprobe: /dev/kmsg");
		return 1;
	}
	rc = kmsg(fd, "<4>WARNING: CPU: 0 PID: 1 at kmsgprobe (mm-rs verdict probe, KERN_WARNING)\n");
	rc |= kmsg(fd, "kmsgprobe: mm-rs verdict probe, default message level\n");
	close(fd);
	printf("kmsgprobe: %s\n", rc ? "FAILED" : "logged");
	return rc;
}
