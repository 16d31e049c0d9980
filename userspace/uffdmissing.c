// SPDX-License-Identifier: GPL-2.0
/*
 * uffdmissing: the userfaultfd hand-off of anonymous faults, with a real
 * userfaultfd context, on each fault path (/sys/kernel/debug/mm_rs/anon_fault 1
 * and 0, anon_order 1 and 0), as QEMU post-copy and CRIU use it:
 *
 * - a read and a write fault in a VMA registered for missing pages each
 *   reach the monitor as UFFD_EVENT_PAGEFAULT at the faulting page (the
 *   write one with UFFD_PAGEFAULT_FLAG_WRITE), and UFFDIO_COPY resolves
 *   them: the faulting thread reads the monitor's bytes;
 * - a fault in a VMA registered for write protection only is not handed
 *   over (no event; it maps the zero page or a new page as usual).
 *
 * A hand-off replaced by SIGBUS, or a missing event sent to a VMA that did
 * not ask for one, fails it. Exits 0 when every check passed on every path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mmrs-util.h"

#define SYS_MM_RS "/sys/kernel/debug/mm_rs/"

static long page;
static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("uffdmissing: FAILED: " __VA_ARGS__);	\
			printf("\n");					\
			failures++;					\
		}							\
	} while (0)

/* How many of the pages of [@addr, @addr + @len) are resident. */
static int mincore_resident(void *addr, size_t len)
{
	unsigned char vec[16];
	size_t i;
	int n = 0;

	if (len / page > sizeof(vec) || mincore(addr, len, vec))
		return -1;
	for (i = 0; i < len / page; i++)
		n += vec[i] & 1;
	return n;
}

struct toucher {
	volatile char *addr;
	int write;
	char seen;
};

/* Which fault was being made, for the SIGBUS message. */
static const char *volatile touching;

/* A fault that should have reached userfaultfd (or been mapped) got SIGBUS. */
static void on_sigbus(int sig)
{
	static const char msg[] = "uffdmissing: FAILED: SIGBUS: ";
	const char *what = touching ? touching : "?";

	(void)sig;
	write(1, msg, sizeof(msg) - 1);
	write(1, what, strlen(what));
	write(1, "\n", 1);
	_exit(1);
}

static void *touch(void *arg)
{
	struct toucher *t = arg;

	if (t->write)
		*t->addr = 0x11;
	t->seen = *t->addr;
	return NULL;
}

static int new_uffd(uint64_t mode, void *area, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)area, .len = len },
		.mode = mode,
	};
	int fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		printf("uffdmissing: FAILED: userfaultfd: %s\n", strerror(errno));
		exit(2);
	}
	if (ioctl(fd, UFFDIO_API, &api)) {
		printf("uffdmissing: FAILED: UFFDIO_API: %s\n", strerror(errno));
		exit(2);
	}
	if (ioctl(fd, UFFDIO_REGISTER, &reg)) {
		/* Write protection of anonymous memory is not on every architecture. */
		if (mode == UFFDIO_REGISTER_MODE_WP && errno == EINVAL) {
			close(fd);
			return -1;
		}
		printf("uffdmissing: FAILED: UFFDIO_REGISTER: %s\n", strerror(errno));
		exit(2);
	}
	return fd;
}

/*
 * A fault at @off of a VMA registered for missing pages: the event, then
 * UFFDIO_COPY of bytes @fill; the toucher must read @fill (a write fault
 * writes 0x11 after the copy resolved it).
 */
static void missing_fault(int write, const char *path)
{
	char *area = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct toucher t = { .write = write };
	struct uffd_msg msg;
	struct pollfd pfd;
	pthread_t th;
	char *src;
	int fd, n;

	if (area == MAP_FAILED || posix_memalign((void **)&src, page, page)) {
		printf("uffdmissing: FAILED: no memory\n");
		exit(2);
	}
	memset(src, 0x5a, page);
	fd = new_uffd(UFFDIO_REGISTER_MODE_MISSING, area, 4 * page);
	t.addr = area + page + 123;
	touching = write ? "a missing write fault, instead of the hand-off" :
			   "a missing read fault, instead of the hand-off";
	pthread_create(&th, NULL, touch, &t);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	n = poll(&pfd, 1, 10000);
	CHECK(n == 1, "%s %s fault: no userfaultfd event in 10 s (poll %d)", path,
	      write ? "write" : "read", n);
	if (n == 1) {
		struct uffdio_copy copy = {
			.dst = (unsigned long)area + page,
			.src = (unsigned long)src,
			.len = page,
		};

		CHECK(read(fd, &msg, sizeof(msg)) == sizeof(msg), "%s: read event", path);
		CHECK(msg.event == UFFD_EVENT_PAGEFAULT, "%s: event %u, not a page fault",
		      path, msg.event);
		CHECK((msg.arg.pagefault.address & ~(page - 1)) == (unsigned long)area + page,
		      "%s: fault at %#llx, not %p", path,
		      (unsigned long long)msg.arg.pagefault.address, area + page);
		CHECK(!!(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE) == write,
		      "%s: fault flags %#llx for a %s fault", path,
		      (unsigned long long)msg.arg.pagefault.flags, write ? "write" : "read");
		CHECK(!(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP),
		      "%s: a missing fault reported as write-protect", path);
		CHECK(ioctl(fd, UFFDIO_COPY, &copy) == 0 && copy.copy == page,
		      "%s: UFFDIO_COPY: %s (%lld)", path, strerror(errno),
		      (long long)copy.copy);
	}
	pthread_join(th, NULL);
	CHECK(t.seen == (write ? 0x11 : 0x5a),
	      "%s %s fault: read %#x after UFFDIO_COPY", path, write ? "write" : "read",
	      (unsigned char)t.seen);
	/* The rest of the block was not filled behind the monitor's back. */
	CHECK(mincore_resident(area, 4 * page) == 1, "%s: %d pages resident, not 1", path,
	      mincore_resident(area, 4 * page));
	close(fd);
	munmap(area, 4 * page);
	free(src);
}

/* A VMA registered for write protection only gets no missing event. */
static void wp_only_fault(int write, const char *path)
{
	char *area = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct toucher t = { .write = write };
	struct uffd_msg msg;
	pthread_t th;
	int fd;

	if (area == MAP_FAILED)
		exit(2);
	fd = new_uffd(UFFDIO_REGISTER_MODE_WP, area, 4 * page);
	if (fd < 0) {
		if (!write)
			printf("  (no write-protect registration of anonymous memory here)\n");
		munmap(area, 4 * page);
		return;
	}
	t.addr = area + 2 * page;
	touching = "a fault in a VMA registered for write protection only";
	pthread_create(&th, NULL, touch, &t);
	pthread_join(th, NULL);
	CHECK(t.seen == (write ? 0x11 : 0), "%s: wp-only %s fault read %#x", path,
	      write ? "write" : "read", (unsigned char)t.seen);
	CHECK(read(fd, &msg, sizeof(msg)) < 0 && errno == EAGAIN,
	      "%s: wp-only %s fault: an event (%u) was sent", path,
	      write ? "write" : "read", msg.event);
	close(fd);
	munmap(area, 4 * page);
}

int main(void)
{
	static const struct { const char *order, *fault, *name; } paths[] = {
		{ "1", "1", "Rust fault, Rust order" },
		{ "0", "1", "Rust fault, C order" },
		{ "1", "0", "C fault, Rust order" },
		{ "0", "0", "C fault, C order" },
	};
	char saved_order[8] = "", saved_fault[8] = "";
	unsigned int i;

	page = sysconf(_SC_PAGESIZE);
	signal(SIGBUS, on_sigbus);
	read_str(SYS_MM_RS "anon_order", saved_order, sizeof(saved_order));
	read_str(SYS_MM_RS "anon_fault", saved_fault, sizeof(saved_fault));
	if (!saved_fault[0]) {
		printf("uffdmissing: FAILED: no " SYS_MM_RS "anon_fault\n");
		return 2;
	}
	printf("== uffdmissing: userfaultfd missing-page hand-off on each fault path ==\n");
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		int before = failures;

		if ((saved_order[0] && write_str(SYS_MM_RS "anon_order", paths[i].order)) ||
		    write_str(SYS_MM_RS "anon_fault", paths[i].fault)) {
			printf("uffdmissing: FAILED: cannot set %s\n", paths[i].name);
			return 2;
		}
		missing_fault(0, paths[i].name);
		missing_fault(1, paths[i].name);
		wp_only_fault(0, paths[i].name);
		wp_only_fault(1, paths[i].name);
		printf("  %-24s %s\n", paths[i].name, failures == before ? "ok" : "FAILED");
	}
	if (saved_order[0])
		write_str(SYS_MM_RS "anon_order", saved_order);
	write_str(SYS_MM_RS "anon_fault", saved_fault);
	printf("uffdmissing: %s\n", failures ? "FAILED" : "passed");
	return failures ? 1 : 0;
}
