// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the small initramfs that boots the Debian userland (make shell,
 * make workload, scripts/rootfs.sh). It mounts the EROFS image on the virtio
 * disk whose serial is "root" (QEMU's virt machine probes its virtio-mmio
 * disks in reverse order, so the name alone does not tell) read-only as the
 * lower layer of an overlayfs whose
 * upper layer is a tmpfs, binds the initramfs's /mmrs (the guest scripts,
 * userspace/rootfs/guest/) into it, chroots there and runs
 * "/mmrs/init.sh ARGS" with bash, ARGS being the colon-separated words of
 * mmrs.run= on the kernel command line (shell, workload:NAME, configure).
 * It stays PID 1 outside the chroot, reaps orphans, and ends the guest when
 * that script is done, the way userspace/init.c does: "mmrs-init: done",
 * then a reboot that QEMU's -no-reboot turns into an exit. The same binary
 * run as poweroff, reboot or halt (/mmrs/bin/) ends the guest at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	printf("mmrs-init: %s: %s\n", what, strerror(errno));
	printf("mmrs-init: stage1 exited 1\nmmrs-init: done\n");
	sync();
	reboot(RB_AUTOBOOT);
	_exit(1);
}

int main(int argc, char **argv)
{
	char cmdline[4096] = "", run[512] = "shell", root[64] = "", *p, *args[16];
	const char *me = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int status, nargs = 0, fd;
	pid_t pid, w;
	FILE *f;

	if (!strcmp(me, "poweroff") || !strcmp(me, "reboot") || !strcmp(me, "halt")) {
		printf("mmrs-init: %s\n", me);
		sync();
		reboot(RB_AUTOBOOT);
		perror(me);
		return 1;
	}
	(void)argc;
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	setvbuf(stdout, NULL, _IONBF, 0);

	f = fopen("/proc/cmdline", "r");
	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = 0;
		fclose(f);
	}
	p = strstr(cmdline, "mmrs.run=");
	if (p)
		sscanf(p + strlen("mmrs.run="), "%511s", run);
	/* The virtio disks are probed before init runs; wait a little anyway. */
	for (int i = 0; i < 100 && !root[0]; i++) {
		for (char c = 'a'; c <= 'z' && !root[0]; c++) {
			char path[64], serial[64] = "";

			snprintf(path, sizeof(path), "/sys/block/vd%c/serial", c);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(serial, sizeof(serial), f) && !strcmp(strtok(serial, "\n") ?: "", "root"))
				snprintf(root, sizeof(root), "/dev/vd%c", c);
			fclose(f);
		}
		if (!root[0])
			usleep(100000);
	}
	if (!root[0]) {
		errno = ENODEV;
		die("no virtio disk with the serial root");
	}
	mkdir("/lower", 0755);
	mkdir("/rw", 0755);
	mkdir("/newroot", 0755);
	if (mount(root, "/lower", "erofs", MS_RDONLY, NULL))
		die("mount the EROFS root");
	if (mount("tmpfs", "/rw", "tmpfs", 0, "mode=0755"))
		die("mount tmpfs");
	mkdir("/rw/upper", 0755);
	mkdir("/rw/work", 0755);
	if (mount("overlay", "/newroot", "overlay", 0,
		  "lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work"))
		die("mount overlay");
	mkdir("/newroot/mmrs", 0755);
	if (mount("/mmrs", "/newroot/mmrs", NULL, MS_BIND, NULL))
		die("bind /mmrs");
	mkdir("/newroot/proc", 0555);
	mkdir("/newroot/sys", 0555);
	mkdir("/newroot/dev", 0755);
	if (mount("/proc", "/newroot/proc", NULL, MS_MOVE, NULL) ||
	    mount("/sys", "/newroot/sys", NULL, MS_MOVE, NULL) ||
	    mount("/dev", "/newroot/dev", NULL, MS_MOVE, NULL))
		die("move /proc, /sys, /dev");

	args[nargs++] = "bash";
	args[nargs++] = "/mmrs/init.sh";
	for (p = strtok(run, ":"); p && nargs < 15; p = strtok(NULL, ":"))
		args[nargs++] = p;
	args[nargs] = NULL;
	pid = fork();
	if (pid == 0) {
		if (chdir("/newroot") || chroot(".") || chdir("/"))
			die("chroot");
		fd = open("/dev/console", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		clearenv();
		setenv("PATH", "/mmrs/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
		setenv("HOME", "/root", 1);
		setenv("TERM", "linux", 1);
		setenv("LANG", "C.UTF-8", 1);
		execv("/bin/bash", args);
		die("exec /bin/bash /mmrs/init.sh");
	}
	if (pid < 0)
		die("fork");
	/* PID 1: reap every orphan until the init script is done. */
	for (;;) {
		w = wait(&status);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || w == pid)
			break;
	}
	printf("mmrs-init: %s exited %d\n", args[2] ? args[2] : "init.sh",
	       w == pid && WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	printf("mmrs-init: done\n");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
