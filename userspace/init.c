// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the mm-rs test initramfs: mount the pseudo filesystems, run the
 * programs named on the kernel command line (mmrs.run=a,b:arg1:arg2,c;
 * default: demo), then end the guest. On a kernel with zram (the prod
 * flavour) it first sets up what the mm selftests expect of a distribution:
 * swap on zram0, cgroup v2 at /sys/fs/cgroup, hugetlbfs at /dev/hugepages,
 * and an ext2 filesystem on zram1 at /mnt/ext2 for khugepaged's file mode
 * (KHUGEPAGED_FILE_DIR). An x86 guest without ACPI cannot power off, so it
 * reboots, which QEMU's -no-reboot turns into an exit on both architectures.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* A version-1 swap header on all of DEV (SIZE bytes): what mkswap writes. */
static int mkswap(const char *dev, unsigned long long size)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *page = calloc(1, psz);
	uint32_t *info = (uint32_t *)(page + 1024);
	int fd = open(dev, O_WRONLY), ok;

	if (fd < 0 || !page)
		return -1;
	info[0] = 1;				/* version */
	info[1] = size / psz - 1;		/* last_page */
	memcpy(page + psz - 10, "SWAPSPACE2", 10);
	ok = pwrite(fd, page, psz, 0) == psz && fsync(fd) == 0;
	close(fd);
	free(page);
	return ok ? 0 : -1;
}

static void setup_prod(void)
{
	char *mke2fs[] = { "/bin/mke2fs", "-q", "/dev/zram1", NULL };
	char id[16] = "";
	int status, fd;
	pid_t pid;

	if (access("/sys/class/zram-control", F_OK))
		return;
	mkdir("/sys/fs/cgroup", 0755);
	if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
		printf("mmrs-init: mount cgroup2: %s\n", strerror(errno));
	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+hugetlb");
	mkdir("/dev/hugepages", 0755);
	if (mount("hugetlbfs", "/dev/hugepages", "hugetlbfs", 0, NULL))
		printf("mmrs-init: mount hugetlbfs: %s\n", strerror(errno));
	/* zram0 (1 GiB) is the swap */
	if (write_str("/sys/block/zram0/disksize", "1G") || mkswap("/dev/zram0", 1ULL << 30) ||
	    swapon("/dev/zram0", 0))
		printf("mmrs-init: swap on zram0: %s\n", strerror(errno));
	/* zram1 (512 MiB) carries ext2 for khugepaged's file mode */
	fd = open("/sys/class/zram-control/hot_add", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, id, sizeof(id) - 1) < 0)
			id[0] = 0;
		close(fd);
	}
	if (strtol(id, NULL, 10) != 1 || write_str("/sys/block/zram1/disksize", "512M")) {
		printf("mmrs-init: no zram1\n");
		return;
	}
	if (access(mke2fs[0], X_OK))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(open("/dev/null", O_WRONLY), 1);
		execv(mke2fs[0], mke2fs);
		_exit(127);
	}
	mkdir("/mnt", 0755);
	mkdir("/mnt/ext2", 0755);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || status ||
	    mount("/dev/zram1", "/mnt/ext2", "ext2", 0, NULL)) {
		printf("mmrs-init: ext2 on zram1 failed\n");
		return;
	}
	chmod("/mnt/ext2", 01777);
	setenv("KHUGEPAGED_FILE_DIR", "/mnt/ext2", 1);
}

/* One line on what the prod set-up gave: nodes, CPUs, swap, cgroup v2. */
static void report_prod(void)
{
	char line[256], swap[64] = "none";
	int nodes = 0;
	FILE *f;

	if (access("/sys/class/zram-control", F_OK))
		return;
	for (int i = 0; i < 64; i++) {
		snprintf(line, sizeof(line), "/sys/devices/system/node/node%d", i);
		nodes += !access(line, F_OK);
	}
	f = fopen("/proc/swaps", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "/dev/", 5)) {
				unsigned long kb = 0;
				char dev[32];

				if (sscanf(line, "%31s %*s %lu", dev, &kb) == 2)
					snprintf(swap, sizeof(swap), "%s %lu MiB", dev, kb >> 10);
			}
		fclose(f);
	}
	printf("mmrs-init: prod: %d NUMA node(s), %ld CPUs, swap: %s, cgroup2 %s, hugetlbfs %s, %s\n",
	       nodes, sysconf(_SC_NPROCESSORS_ONLN), swap,
	       access("/sys/fs/cgroup/cgroup.controllers", F_OK) ? "missing" : "mounted",
	       access("/dev/hugepages", F_OK) ? "missing" : "mounted",
	       getenv("KHUGEPAGED_FILE_DIR") ? "ext2 at /mnt/ext2" : "no ext2");
}

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
	setenv("PATH", "/bin", 1);
	setup_prod();
	report_prod();

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
