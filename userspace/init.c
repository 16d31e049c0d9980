// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the mm-rs test initramfs: mount the pseudo filesystems, run the
 * programs named on the kernel command line (mmrs.run=a,b:arg1:arg2,c;
 * default: demo), then end the guest. An x86 guest without ACPI cannot power off, so it
 * reboots, which QEMU's -no-reboot turns into an exit on both architectures.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs /bin/PROG with the arguments that follow it, colon-separated. */
static void run(char *prog)
{
	char path[256], *argv[16];
	int status, argc = 1;
	pid_t pid;

	argv[0] = path;
	for (char *a = strchr(prog, ':'); a && argc < 15; a = strchr(a, ':')) {
		*a++ = 0;
		argv[argc++] = a;
	}
	argv[argc] = NULL;
	snprintf(path, sizeof(path), "/bin/%s", prog);
	pid = fork();
	if (pid == 0) {
		execv(path, argv);
		fprintf(stderr, "init: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "init: %s did not run\n", prog);
		return;
	}
	printf("mmrs-init: %s exited %d\n", prog, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

int main(void)
{
	char cmdline[4096] = "", *p, *list = "demo";
	FILE *f;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/tmp", 0777);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	setvbuf(stdout, NULL, _IONBF, 0);

	f = fopen("/proc/cmdline", "r");
	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = 0;
		fclose(f);
	}
	p = strstr(cmdline, "mmrs.run=");
	if (p) {
		list = p + strlen("mmrs.run=");
		list[strcspn(list, " \n")] = 0;
	}
	for (p = strtok(list, ","); p; p = strtok(NULL, ","))
		run(p);
	printf("mmrs-init: done\n");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
