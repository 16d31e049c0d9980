// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mm-rs exec-mapping readahead (mm/mm_rs/exec_ra/): the
 * readahead window against a reference written here in 128-bit arithmetic,
 * which cannot overflow, at the edges the issue lists and at random; the
 * architecture's folio order; and the exec_folio_size knob.
 */

#include <kunit/test.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <linux/mman.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/prandom.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>

#include "mm_rs_kunit.h"

struct win_case {
	unsigned long pgoff, vm_pgoff, vm_pages;
	loff_t i_size;
	unsigned int ra_pages, order;
};

/* The window as the issue states it, computed without overflow. */
static bool ref_window(const struct win_case *c, struct mm_rs_exec_ra *w)
{
	u128 n = (u128)1 << c->order, vm_end, eof, start, end;

	if (!c->ra_pages || c->i_size <= 0)
		return false;
	vm_end = (u128)c->vm_pgoff + c->vm_pages;
	eof = ((u128)c->i_size + PAGE_SIZE - 1) / PAGE_SIZE;
	if (c->pgoff < c->vm_pgoff || c->pgoff >= vm_end || c->pgoff >= eof)
		return false;
	start = max_t(u128, c->pgoff & ~(n - 1), c->vm_pgoff);
	end = (start + c->ra_pages + n - 1) & ~(n - 1);
	/* Saturate where the index space ends, at its last aligned index. */
	end = min_t(u128, end, ULONG_MAX & ~(unsigned long)(n - 1));
	end = min3(end, vm_end, eof);
	if (end <= c->pgoff || end - start > UINT_MAX)
		return false;
	w->start = start;
	w->size = end - start;
	w->order = c->order;
	return true;
}

static void check_case(struct kunit *test, const struct win_case *c, const char *what)
{
	struct mm_rs_exec_ra got = {}, want = {};
	bool g = mm_rs_exec_ra_window(c->pgoff, c->vm_pgoff, c->vm_pages, c->i_size,
				      c->ra_pages, c->order, &got);
	bool r = ref_window(c, &want);

	KUNIT_EXPECT_EQ_MSG(test, g, r, "%s: pgoff %lu vma %lu+%lu i_size %lld ra %u order %u",
			    what, c->pgoff, c->vm_pgoff, c->vm_pages, c->i_size, c->ra_pages,
			    c->order);
	if (!g || !r)
		return;
	KUNIT_EXPECT_EQ_MSG(test, got.start, want.start, "%s: start", what);
	KUNIT_EXPECT_EQ_MSG(test, got.size, want.size, "%s: size", what);
	KUNIT_EXPECT_EQ_MSG(test, got.order, want.order, "%s: order", what);
	/* And what every window must be: it holds the fault, inside VMA and file. */
	KUNIT_EXPECT_LE(test, got.start, c->pgoff);
	KUNIT_EXPECT_GT(test, (u128)got.start + got.size, (u128)c->pgoff);
	KUNIT_EXPECT_GE(test, got.start, c->vm_pgoff);
	KUNIT_EXPECT_LE(test, (u128)got.start + got.size, (u128)c->vm_pgoff + c->vm_pages);
}

/* Expect exactly [@start, @start + @size), or no window for @size 0. */
static void expect_window(struct kunit *test, struct win_case c, unsigned long start,
			  unsigned int size, const char *what)
{
	struct mm_rs_exec_ra w = {};
	bool ok = mm_rs_exec_ra_window(c.pgoff, c.vm_pgoff, c.vm_pages, c.i_size, c.ra_pages,
				       c.order, &w);

	KUNIT_EXPECT_EQ_MSG(test, ok, size != 0, "%s", what);
	if (ok && size) {
		KUNIT_EXPECT_EQ_MSG(test, w.start, start, "%s: start", what);
		KUNIT_EXPECT_EQ_MSG(test, w.size, size, "%s: size", what);
		KUNIT_EXPECT_EQ_MSG(test, w.order, c.order, "%s: order", what);
	}
	check_case(test, &c, what);
}

#define BIG_FILE	((loff_t)SZ_1G)

/* The cases the issue names, with their windows worked out by hand. */
static void window_edges(struct kunit *test)
{
	/* 64K folios with 4K pages, 128K readahead, a 1024-page VMA from file index 0. */
	struct win_case c = {
		.vm_pgoff = 0, .vm_pages = 1024, .i_size = BIG_FILE, .ra_pages = 32, .order = 4,
	};

	c.pgoff = 0;
	expect_window(test, c, 0, 32, "first page of the VMA");
	c.pgoff = 37;
	expect_window(test, c, 32, 32, "aligned down, ra_pages on");
	c.pgoff = 1023;
	expect_window(test, c, 1008, 16, "last page of the VMA");

	/* A VMA whose file offset is not aligned to the order: the start is clamped. */
	c.vm_pgoff = 5;
	c.vm_pages = 95;
	c.pgoff = 5;
	expect_window(test, c, 5, 43, "unaligned vm_pgoff, first page");
	c.pgoff = 99;
	expect_window(test, c, 96, 4, "unaligned VMA end, last page");

	/* A file shorter than the window: 10 pages and a byte. */
	c.vm_pgoff = 0;
	c.vm_pages = 1024;
	c.i_size = 10 * PAGE_SIZE + 1;
	c.pgoff = 3;
	expect_window(test, c, 0, 11, "file shorter than the window");
	c.pgoff = 11;
	expect_window(test, c, 0, 0, "fault past the end of the file");
	c.i_size = 0;
	c.pgoff = 0;
	expect_window(test, c, 0, 0, "empty file");

	/* Readahead off for the file: no window, whatever the order. */
	c.i_size = BIG_FILE;
	c.ra_pages = 0;
	c.pgoff = 40;
	expect_window(test, c, 0, 0, "ra_pages 0");

	/* A fault outside the VMA (cannot happen, must not misbehave). */
	c.ra_pages = 32;
	c.vm_pgoff = 100;
	c.pgoff = 99;
	expect_window(test, c, 0, 0, "fault before the VMA");

	/* Orders larger than the readahead size: the window is one folio. */
	c.vm_pgoff = 0;
	c.pgoff = 700;
	c.order = 9;
	expect_window(test, c, 512, 512, "2M folio, ra_pages 32");
	c.order = 0;
	expect_window(test, c, 700, 32, "order 0: the read-ahead, forward");
}

/* Offsets at the top of the index space: nothing wraps. */
static void window_top_of_range(struct kunit *test)
{
	const unsigned long top = ULONG_MAX;
	struct win_case c = { .ra_pages = UINT_MAX, .order = 4, .i_size = LLONG_MAX };
	unsigned long eof = (unsigned long)(((u128)LLONG_MAX + PAGE_SIZE - 1) / PAGE_SIZE);

	/* The last page of the largest file, in a VMA that reaches past it. */
	c.pgoff = eof - 1;
	c.vm_pgoff = eof - 50;
	c.vm_pages = top - c.vm_pgoff;
	expect_window(test, c, eof - 16, 16, "last page of a LLONG_MAX file");

	/*
	 * vm_pgoff + vm_pages wraps, the fault inside the file: the VMA end
	 * saturates, and the window ends at the file's end. No VMA reaches this
	 * (do_mmap() refuses a pgoff + pages that wraps), but the function takes
	 * any.
	 */
	c.vm_pages = top;
	expect_window(test, c, eof - 16, 16, "VMA end wraps, the fault inside the file");

	/* The same, the fault past the file's end: no window. */
	c.vm_pgoff = top - 10;
	c.vm_pages = 100;
	c.pgoff = top - 5;
	expect_window(test, c, 0, 0, "VMA end past ULONG_MAX, the fault past the file");

	/* ra_pages from a start near the top wraps: the end saturates. */
	c.vm_pgoff = eof - 100;
	c.vm_pages = 100;
	c.pgoff = eof - 90;
	c.order = 9;
	check_case(test, &c, "ra_pages past the end");
	c.ra_pages = 1;
	c.order = 0;
	expect_window(test, c, eof - 90, 1, "one page");
}

/* Every order the knob accepts, at random: the window matches the reference. */
static void window_each_order(struct kunit *test)
{
	struct rnd_state rs;
	unsigned int order;
	int i;

	prandom_seed_state(&rs, mm_rs_kunit_seed(test, 0x65786563));
	for (order = 0; order <= MAX_PAGECACHE_ORDER; order++)
		for (i = 0; i < 2000; i++) {
			struct win_case c = { .order = order };
			unsigned long span = 1 + prandom_u32_state(&rs) % 4096;

			c.vm_pgoff = prandom_u32_state(&rs) % 8192;
			if (i & 1)
				c.vm_pgoff &= ~((1UL << order) - 1);
			c.vm_pages = span;
			c.pgoff = c.vm_pgoff + prandom_u32_state(&rs) % span;
			c.i_size = (loff_t)(c.vm_pgoff + prandom_u32_state(&rs) % (span + 64)) *
				   PAGE_SIZE + prandom_u32_state(&rs) % PAGE_SIZE;
			c.ra_pages = (i % 7 == 0) ? 0 : 1 + prandom_u32_state(&rs) % 1024;
			check_case(test, &c, "random");
		}
}

/* arm64 asks for 64K folios; x86 has no preference. */
static void arch_order(struct kunit *test)
{
	int want = IS_ENABLED(CONFIG_ARM64) ? ilog2(SZ_64K) - PAGE_SHIFT : -1;

	KUNIT_EXPECT_EQ(test, mm_rs_exec_arch_folio_order(), want);
	/* The predicate the C shims use follows the order and VM_EXEC only. */
	WRITE_ONCE(mm_rs_exec_folio_order, 4);
	KUNIT_EXPECT_TRUE(test, mm_rs_exec_ra(VM_EXEC | VM_READ | VM_RAND_READ));
	KUNIT_EXPECT_FALSE(test, mm_rs_exec_ra(VM_READ | VM_RAND_READ));
	WRITE_ONCE(mm_rs_exec_folio_order, -1);
	KUNIT_EXPECT_FALSE(test, mm_rs_exec_ra(VM_EXEC | VM_READ));
	WRITE_ONCE(mm_rs_exec_folio_order, want);
}

/* Every size the knob accepts, and every class of value it rejects. */
static void knob_values(struct kunit *test)
{
	static const char *const bad[] = {
		"", "x", "-4096", "4096 4096", "18446744073709551616", "0x3000",
	};
	int saved = READ_ONCE(mm_rs_exec_folio_order);
	char buf[32];
	int order, i;

	for (order = 0; order <= MAX_PAGECACHE_ORDER; order++) {
		snprintf(buf, sizeof(buf), "%lu\n", PAGE_SIZE << order);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_exec_folio_size_set(buf), 0, "%s", buf);
		KUNIT_EXPECT_EQ(test, READ_ONCE(mm_rs_exec_folio_order), order);
		KUNIT_EXPECT_EQ(test, mm_rs_exec_folio_order_of_size(PAGE_SIZE << order), order);
	}
	WRITE_ONCE(mm_rs_exec_folio_order, 3);
	/* Not a power of two. */
	for (i = 3; i < 64; i += 7) {
		snprintf(buf, sizeof(buf), "%lu", PAGE_SIZE * i);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_exec_folio_size_set(buf), -EINVAL, "%s", buf);
	}
	/* Below the page size. */
	for (i = 1; i < PAGE_SIZE; i <<= 1) {
		snprintf(buf, sizeof(buf), "%d", i);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_exec_folio_size_set(buf), -EINVAL, "%s", buf);
	}
	/* Above the page cache's largest folio, up to the top bit. */
	for (i = PAGE_SHIFT + MAX_PAGECACHE_ORDER + 1; i < 64; i++) {
		snprintf(buf, sizeof(buf), "%llu", 1ULL << i);
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_exec_folio_size_set(buf), -EINVAL, "%s", buf);
		KUNIT_EXPECT_EQ(test, mm_rs_exec_folio_order_of_size(1ULL << i), -EINVAL);
	}
	/* Not a number, or not one number. */
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, mm_rs_exec_folio_size_set(bad[i]), -EINVAL,
				    "'%s'", bad[i]);
	/* None of them changed the setting. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(mm_rs_exec_folio_order), 3);

	/* 0 goes back to the architecture's choice. */
	KUNIT_EXPECT_EQ(test, mm_rs_exec_folio_size_set("0\n"), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(mm_rs_exec_folio_order), mm_rs_exec_arch_folio_order());
	WRITE_ONCE(mm_rs_exec_folio_order, saved);
}

/*
 * The C glue in mm/filemap.c on real faults. A ramfs file (its pages come
 * from readahead and ->read_folio, like any file's; in order-0 folios, since
 * ramfs has no large folios, which the window does not depend on) is mapped
 * and faulted from the test mm, one page at a time, and the test reads back
 * what the fault handed to readahead (file->f_ra, and which pages are now in
 * the page cache) and what it did to mmap_miss.
 */
#define GLUE_PAGES	256	/* the file, and the VMA: 1 MiB with 4K pages */
#define GLUE_RA		32	/* the file's ra_pages */
#define GLUE_ORDER	4	/* exec folios of 16 pages */

struct glue_ctx {
	struct vfsmount *mnt;
	struct file *file;
	unsigned long addr;	/* where the mapping starts */
	unsigned long vm_pgoff;	/* the file page mapped there */
	int files;
	bool large;	/* the file's mapping takes large folios */
};

static void glue_unmount(void *mnt)
{
	kern_unmount(mnt);
}

static void glue_fput(void *file)
{
	fput(file);
}

/*
 * A fresh file of @i_size bytes, none cached, its pages [@vm_pgoff, @vm_pgoff
 * + @vm_pages) mapped with @prot (and @madv): the mapping may end before the
 * file or after it.
 */
static void glue_map_range(struct kunit *test, struct glue_ctx *g, unsigned long prot,
			   int madv, loff_t i_size, unsigned long vm_pgoff,
			   unsigned long vm_pages)
{
	char name[16];
	int err;

	if (!g->mnt) {
		struct file_system_type *type = get_fs_type("ramfs");

		KUNIT_ASSERT_NOT_NULL(test, type);
		g->mnt = kern_mount(type);
		KUNIT_ASSERT_FALSE(test, IS_ERR(g->mnt));
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, glue_unmount, g->mnt), 0);
	}
	snprintf(name, sizeof(name), "text%d", g->files++);
	g->file = file_open_root_mnt(g->mnt, name, O_CREAT | O_RDWR | O_LARGEFILE, 0755);
	KUNIT_ASSERT_FALSE(test, IS_ERR(g->file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, glue_fput, g->file), 0);
	if (g->large)
		mapping_set_large_folios(g->file->f_mapping);
	err = vfs_truncate(&g->file->f_path, i_size);
	KUNIT_ASSERT_EQ(test, err, 0);
	g->file->f_ra.ra_pages = GLUE_RA;
	g->vm_pgoff = vm_pgoff;
	g->addr = kunit_vm_mmap(test, g->file, 0, vm_pages * PAGE_SIZE, prot, MAP_PRIVATE,
				vm_pgoff * PAGE_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(g->addr));
	KUNIT_ASSERT_NE(test, g->addr, 0);
	if (madv)
		KUNIT_ASSERT_EQ(test, do_madvise(current->mm, g->addr, vm_pages * PAGE_SIZE,
						 madv), 0);
}

/* A fresh file of GLUE_PAGES pages, none cached, mapped whole with @prot (and @madv). */
static void glue_map(struct kunit *test, struct glue_ctx *g, unsigned long prot, int madv)
{
	glue_map_range(test, g, prot, madv, GLUE_PAGES * PAGE_SIZE, 0, GLUE_PAGES);
}

/* Faults in page @pgoff of the file, which the mapping maps (a read). */
static void glue_fault(struct kunit *test, struct glue_ctx *g, unsigned long pgoff)
{
	char c;

	KUNIT_ASSERT_GE(test, pgoff, g->vm_pgoff);
	KUNIT_ASSERT_EQ(test, get_user(c, (char __user *)(g->addr +
							  (pgoff - g->vm_pgoff) * PAGE_SIZE)), 0);
}

/* Exactly pages [@start, @end) of the file are in the page cache. */
static void expect_cached(struct kunit *test, struct glue_ctx *g, unsigned long start,
			  unsigned long end)
{
	unsigned long i, in = 0, out = 0;

	for (i = 0; i < GLUE_PAGES; i++) {
		struct folio *folio = filemap_get_folio(g->file->f_mapping, i);
		bool cached = !IS_ERR(folio);

		if (cached)
			folio_put(folio);
		if (cached != (i >= start && i < end)) {
			if (cached)
				out++;
			else
				in++;
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, in, 0UL, "pages of [%lu, %lu) not read", start, end);
	KUNIT_EXPECT_EQ_MSG(test, out, 0UL, "pages outside [%lu, %lu) read", start, end);
}

static void expect_ra(struct kunit *test, struct glue_ctx *g, pgoff_t start,
		      unsigned int size, unsigned int async)
{
	KUNIT_EXPECT_EQ(test, g->file->f_ra.start, start);
	KUNIT_EXPECT_EQ(test, g->file->f_ra.size, size);
	KUNIT_EXPECT_EQ(test, g->file->f_ra.async_size, async);
}

struct glue_saved {
	int order;
	bool on;
	bool exempt;
};

static void glue_restore(void *data)
{
	struct glue_saved *s = data;

	WRITE_ONCE(mm_rs_exec_folio_order, s->order);
	WARN_ON(mm_rs_debugfs_write_test("exec_ra", s->on ? "1" : "0") != 1);
	WARN_ON(mm_rs_debugfs_write_test("exec_ra_miss_exempt", s->exempt ? "1" : "0") != 1);
}

static void glue_setup(struct kunit *test)
{
	struct glue_saved *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->order = READ_ONCE(mm_rs_exec_folio_order);
	s->on = static_branch_likely(&mm_rs_exec_ra_key);
	s->exempt = static_branch_likely(&mm_rs_exec_ra_miss_exempt_key);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, glue_restore, s), 0);
	WRITE_ONCE(mm_rs_exec_folio_order, GLUE_ORDER);
}

/*
 * exec_ra on: a miss in a VM_EXEC mapping reads exactly the window
 * mm_rs_exec_ra_window() gives (aligned to the exec folio, ra_pages long,
 * clamped to the VMA and the file, no asynchronous part), even under
 * MADV_RANDOM, and leaves mmap_miss alone on a miss and on hits; the same
 * file mapped without PROT_EXEC reads around the fault as 6.12 does and
 * counts its miss, which shows the test sees mmap_miss move at all.
 */
static void exec_fault_glue(struct kunit *test)
{
	const unsigned long n = 1UL << GLUE_ORDER;
	struct glue_ctx g = {};
	struct mm_rs_exec_ra win;
	unsigned long pgoff;

	glue_setup(test);
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("exec_ra", "1"), 1);

	/* A miss in the middle: [32, 64) for page 37. */
	glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
	g.file->f_ra.mmap_miss = 5;
	pgoff = 2 * n + 5;
	KUNIT_ASSERT_TRUE(test, mm_rs_exec_ra_window(pgoff, 0, GLUE_PAGES,
						     GLUE_PAGES * PAGE_SIZE, GLUE_RA,
						     GLUE_ORDER, &win));
	KUNIT_EXPECT_EQ(test, win.start, 2 * n);
	KUNIT_EXPECT_EQ(test, win.size, GLUE_RA);
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, win.start, win.size, 0);
	expect_cached(test, &g, win.start, win.start + win.size);
	KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, 5);
	/* A hit in the window (fault-around maps it): mmap_miss still alone. */
	glue_fault(test, &g, win.start + win.size - 1);
	KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, 5);
	expect_cached(test, &g, win.start, win.start + win.size);

	/* At the end of the file: clamped to it. */
	pgoff = GLUE_PAGES - 3;
	KUNIT_ASSERT_TRUE(test, mm_rs_exec_ra_window(pgoff, 0, GLUE_PAGES,
						     GLUE_PAGES * PAGE_SIZE, GLUE_RA,
						     GLUE_ORDER, &win));
	KUNIT_EXPECT_EQ(test, win.start + win.size, GLUE_PAGES);
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, win.start, win.size, 0);
	KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, 5);

	/* MADV_RANDOM does not turn it off. */
	glue_map(test, &g, PROT_READ | PROT_EXEC, MADV_RANDOM);
	g.file->f_ra.mmap_miss = 5;
	pgoff = 5 * n + 1;
	KUNIT_ASSERT_TRUE(test, mm_rs_exec_ra_window(pgoff, 0, GLUE_PAGES,
						     GLUE_PAGES * PAGE_SIZE, GLUE_RA,
						     GLUE_ORDER, &win));
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, win.start, win.size, 0);
	expect_cached(test, &g, win.start, win.start + win.size);
	KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, 5);

	/*
	 * Not exec: 6.12's read-around, and mmap_miss moves (the miss counts
	 * one up, the pages fault-around then maps count it down): the control
	 * that this test sees what the exec faults above leave alone.
	 */
	glue_map(test, &g, PROT_READ, 0);
	g.file->f_ra.mmap_miss = 5;
	pgoff = 2 * n + 5;
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, pgoff - GLUE_RA / 2, GLUE_RA, GLUE_RA / 4);
	expect_cached(test, &g, pgoff - GLUE_RA / 2, pgoff - GLUE_RA / 2 + GLUE_RA);
	KUNIT_EXPECT_NE(test, g.file->f_ra.mmap_miss, 5);
}

/*
 * An exec folio order of 0: exec_folio_size set to one page (as on x86_64
 * with the knob at PAGE_SIZE, or arm64 with 64K base pages, whose 64K folio
 * is one page). The window is still the exec one (from the fault itself,
 * ra_pages long, no asynchronous part, mmap_miss alone), at any offset, and
 * the VMA's last pages clamp it.
 */
static void exec_order_zero_glue(struct kunit *test)
{
	static const unsigned long offsets[] = { 0, 1, 37, GLUE_PAGES - GLUE_RA, GLUE_PAGES - 1 };
	struct glue_ctx g = {};
	struct mm_rs_exec_ra win;
	int i;

	glue_setup(test);
	WRITE_ONCE(mm_rs_exec_folio_order, 0);
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("exec_ra", "1"), 1);
	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		unsigned long pgoff = offsets[i];

		glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
		g.file->f_ra.mmap_miss = 5;
		KUNIT_ASSERT_TRUE(test, mm_rs_exec_ra_window(pgoff, 0, GLUE_PAGES,
							     GLUE_PAGES * PAGE_SIZE, GLUE_RA, 0,
							     &win));
		KUNIT_EXPECT_EQ_MSG(test, win.start, pgoff, "page %lu", pgoff);
		KUNIT_EXPECT_EQ_MSG(test, win.size,
				    min_t(unsigned long, GLUE_RA, GLUE_PAGES - pgoff),
				    "page %lu", pgoff);
		glue_fault(test, &g, pgoff);
		expect_ra(test, &g, win.start, win.size, 0);
		expect_cached(test, &g, win.start, win.start + win.size);
		KUNIT_EXPECT_EQ_MSG(test, g.file->f_ra.mmap_miss, 5, "page %lu", pgoff);
	}
}

/* Page @i of the file is cached in a folio of @order at its aligned block, unmarked. */
static void expect_folio(struct kunit *test, struct glue_ctx *g, unsigned long i, int order)
{
	struct folio *folio = filemap_get_folio(g->file->f_mapping, i);

	if (IS_ERR(folio)) {
		KUNIT_FAIL(test, "page %lu not cached", i);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, folio_order(folio), order, "page %lu", i);
	KUNIT_EXPECT_EQ_MSG(test, folio->index, ALIGN_DOWN(i, 1UL << order), "page %lu", i);
	KUNIT_EXPECT_FALSE_MSG(test, folio_test_readahead(folio), "page %lu", i);
	folio_put(folio);
}

/*
 * A page cache that takes large folios: the ramfs file's mapping allows
 * every order (mapping_set_large_folios(), as a filesystem with large
 * folios sets it; ramfs reads a folio of any size by zeroing it). An exec
 * miss reads its window in folios of the exec order exactly, each at its
 * aligned block, where page_cache_ra_order() would read them two orders
 * larger (page_cache_ra_order_exact(), patch 0008). A page cached before in
 * the window's first block leaves that block to the fault, which reads its
 * own page alone, and the window goes on at the next block. The control,
 * the same miss without PROT_EXEC: 6.12's read-around, which grows order 0
 * to order 2 on this mapping.
 */
static void exec_large_folio_cache(struct kunit *test)
{
	const unsigned long n = 1UL << GLUE_ORDER;
	const unsigned long pgoff = 2 * n + 5;
	const unsigned long early = 2 * n + 3;
	struct glue_ctx g = { .large = true };
	struct folio *folio;
	unsigned long i;

	glue_setup(test);
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("exec_ra", "1"), 1);

	/* The window [2n, 4n): two folios of the exec order. */
	glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, 2 * n, GLUE_RA, 0);
	expect_cached(test, &g, 2 * n, 4 * n);
	for (i = 2 * n; i < 4 * n; i++)
		expect_folio(test, &g, i, GLUE_ORDER);

	/* Page 2n + 3 cached first: its block is the fault's, the next is read. */
	glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
	folio = read_mapping_folio(g.file->f_mapping, early, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
	folio_put(folio);
	glue_fault(test, &g, pgoff);
	for (i = 0; i < GLUE_PAGES; i++) {
		bool want = i == early || i == pgoff || (i >= 3 * n && i < 4 * n);

		folio = filemap_get_folio(g.file->f_mapping, i);
		if (!IS_ERR(folio))
			folio_put(folio);
		KUNIT_EXPECT_EQ_MSG(test, !IS_ERR(folio), want, "page %lu", i);
	}
	expect_folio(test, &g, early, 0);
	expect_folio(test, &g, pgoff, 0);
	for (i = 3 * n; i < 4 * n; i++)
		expect_folio(test, &g, i, GLUE_ORDER);

	/* The control: read-around on the same kind of mapping grows the order. */
	glue_map(test, &g, PROT_READ, 0);
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, pgoff - GLUE_RA / 2, GLUE_RA, GLUE_RA / 4);
	folio = filemap_get_folio(g.file->f_mapping, pgoff);
	KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
	KUNIT_EXPECT_EQ(test, folio_order(folio), 2);
	folio_put(folio);
}

/*
 * Where the fault is in the VMA and in the file, on real faults through the
 * C glue (which hands the window the VMA's file offset and length and the
 * file's size): a mapping that starts at file page 5 (not at an exec folio's
 * boundary) and ends at page 105, before the file does; a file that ends 100
 * bytes before page 200, inside a mapping of 256 pages; and the file's first
 * page. The file's mapping takes large folios, so each window is read in
 * folios of the exec order where it is aligned and fits, and of smaller
 * orders at its unaligned start and where it is clamped. Every window and
 * folio is worked out by hand (GLUE_ORDER 4: 16-page folios; GLUE_RA 32).
 * Last, the largest exec order the knob takes (MAX_PAGECACHE_ORDER) on a
 * file of two such folios: the window is the fault's whole aligned block,
 * read as one folio of that order.
 */
struct offset_case {
	loff_t i_size;
	unsigned long vm_pgoff, vm_pages, pgoff;
	unsigned long start, end;		/* the window */
	struct { unsigned long index; int order; } folios[5];
};

static const struct offset_case offset_cases[] = {
	/* The VMA's first page: from it (not from page 0), to the next boundary past ra_pages. */
	{ GLUE_PAGES * PAGE_SIZE, 5, 100, 5, 5, 48,
	  { { 5, 0 }, { 6, 1 }, { 8, 3 }, { 16, 4 }, { 32, 4 } } },
	/* The middle: the aligned window. */
	{ GLUE_PAGES * PAGE_SIZE, 5, 100, 37, 32, 64, { { 32, 4 }, { 48, 4 } } },
	/* The VMA's last page: clamped to the VMA, before the file's end. */
	{ GLUE_PAGES * PAGE_SIZE, 5, 100, 104, 96, 105, { { 96, 3 }, { 104, 0 } } },
	/* A file ending inside the VMA: clamped to its last page. */
	{ 200 * PAGE_SIZE - 100, 0, GLUE_PAGES, 190, 176, 200, { { 176, 4 }, { 192, 3 } } },
	{ 200 * PAGE_SIZE - 100, 0, GLUE_PAGES, 199, 192, 200, { { 192, 3 } } },
	/* The file's first page. */
	{ GLUE_PAGES * PAGE_SIZE, 0, GLUE_PAGES, 0, 0, 32, { { 0, 4 }, { 16, 4 } } },
};

static void exec_fault_offset_glue(struct kunit *test)
{
	struct glue_ctx g = { .large = true };
	int i, j;

	glue_setup(test);
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("exec_ra", "1"), 1);
	for (i = 0; i < ARRAY_SIZE(offset_cases); i++) {
		const struct offset_case *c = &offset_cases[i];
		unsigned long k, cached = 0;

		kunit_info(test, "i_size %lld, VMA file pages [%lu, %lu), fault at %lu", c->i_size,
			   c->vm_pgoff, c->vm_pgoff + c->vm_pages, c->pgoff);
		glue_map_range(test, &g, PROT_READ | PROT_EXEC, 0, c->i_size, c->vm_pgoff,
			       c->vm_pages);
		g.file->f_ra.mmap_miss = 5;
		glue_fault(test, &g, c->pgoff);
		expect_ra(test, &g, c->start, c->end - c->start, 0);
		expect_cached(test, &g, c->start, c->end);
		KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, 5);
		for (j = 0; j < ARRAY_SIZE(c->folios) && (j == 0 || c->folios[j].index); j++) {
			for (k = 0; k < 1UL << c->folios[j].order; k++)
				expect_folio(test, &g, c->folios[j].index + k, c->folios[j].order);
			cached += 1UL << c->folios[j].order;
		}
		/* The folios listed are the whole window. */
		KUNIT_EXPECT_EQ(test, cached, c->end - c->start);
	}

	{
		const unsigned long n = 1UL << MAX_PAGECACHE_ORDER;
		struct folio *folio;
		unsigned long k;

		WRITE_ONCE(mm_rs_exec_folio_order, MAX_PAGECACHE_ORDER);
		glue_map_range(test, &g, PROT_READ | PROT_EXEC, 0, 2 * n * PAGE_SIZE, 0, 2 * n);
		glue_fault(test, &g, n + n / 4);
		expect_ra(test, &g, n, n, 0);
		folio = filemap_get_folio(g.file->f_mapping, n);
		KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
		/* Readahead does not retry its allocations: say so once, not n times. */
		if (folio_order(folio) != MAX_PAGECACHE_ORDER)
			KUNIT_FAIL(test, "page %lu: order %u, not %d (the allocation failed?)",
				   n, folio_order(folio), MAX_PAGECACHE_ORDER);
		else
			for (k = n; k < 2 * n; k++)
				expect_folio(test, &g, k, MAX_PAGECACHE_ORDER);
		folio_put(folio);
		folio = filemap_get_folio(g.file->f_mapping, n - 1);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(folio), "page %lu cached", n - 1);
		if (!IS_ERR(folio))
			folio_put(folio);
	}
}

/*
 * A page-cache hit of an exec fault on a folio marked PG_readahead (here by
 * a read-around of the same file through a mapping without PROT_EXEC): fault
 * around skips the marked folio, so filemap_fault() finds it and calls
 * do_async_mmap_readahead(), which reads the next window. That hit leaves
 * mmap_miss alone, as exec misses do. The same hit through a second mapping
 * without PROT_EXEC counts down, the control that the test sees it move.
 */
static void exec_hit_on_readahead_mark(struct kunit *test)
{
	const unsigned long pgoff = 2 * (1UL << GLUE_ORDER) + 5;
	const unsigned long start = pgoff - GLUE_RA / 2;
	const unsigned long mark = start + GLUE_RA - GLUE_RA / 4;
	struct glue_ctx g = {};
	struct folio *folio;
	int exec;

	glue_setup(test);
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("exec_ra", "1"), 1);
	for (exec = 1; exec >= 0; exec--) {
		glue_map(test, &g, PROT_READ, 0);
		glue_fault(test, &g, pgoff);
		expect_ra(test, &g, start, GLUE_RA, GLUE_RA / 4);
		folio = filemap_get_folio(g.file->f_mapping, mark);
		KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
		KUNIT_EXPECT_TRUE(test, folio_test_readahead(folio));
		folio_put(folio);

		/* The same file mapped again, with PROT_EXEC or without. */
		g.addr = kunit_vm_mmap(test, g.file, 0, GLUE_PAGES * PAGE_SIZE,
				       exec ? PROT_READ | PROT_EXEC : PROT_READ, MAP_PRIVATE, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(g.addr));
		KUNIT_ASSERT_NE(test, g.addr, 0);
		g.file->f_ra.mmap_miss = 5;
		glue_fault(test, &g, mark);

		/* The asynchronous readahead ran: mark cleared, the next window read. */
		folio = filemap_get_folio(g.file->f_mapping, mark);
		KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
		KUNIT_EXPECT_FALSE(test, folio_test_readahead(folio));
		folio_put(folio);
		KUNIT_EXPECT_EQ(test, g.file->f_ra.start, start + GLUE_RA);
		expect_cached(test, &g, start, start + GLUE_RA + g.file->f_ra.size);
		if (exec)
			KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, 5);
		else
			KUNIT_EXPECT_LT(test, g.file->f_ra.mmap_miss, 5);
	}
}

/* Sets debugfs switch @name to @val ("0" or "1") as a write of "@val\n" does; reads it back. */
static void switch_set(struct kunit *test, const char *name, const char *val, char *buf)
{
	char in[4];

	snprintf(in, sizeof(in), "%s\n", val);
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test(name, in), 2);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_read_test(name, buf), 2);
	KUNIT_EXPECT_STREQ(test, buf, in);
}

/* glue_setup(), and a buffer for reading switches back. */
static char *switch_test_setup(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	glue_setup(test);
	return buf;
}

/*
 * The exec_ra switch in both directions, written as debugfs writes it and seen
 * in what an exec fault reads: "0" gives 6.12's read-around and counts the
 * miss; "1" gives the exec window again. Bad values are refused.
 */
static void exec_ra_switch(struct kunit *test)
{
	const unsigned long pgoff = 2 * (1UL << GLUE_ORDER) + 5;
	char *buf = switch_test_setup(test);
	struct glue_ctx g = {};
	struct mm_rs_exec_ra win;

	switch_set(test, "exec_ra", "0", buf);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("exec_ra", "-1"), -EINVAL);
	glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
	g.file->f_ra.mmap_miss = 5;
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, pgoff - GLUE_RA / 2, GLUE_RA, GLUE_RA / 4);
	KUNIT_EXPECT_NE(test, g.file->f_ra.mmap_miss, 5);

	switch_set(test, "exec_ra", "1", buf);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("exec_ra", "yes"), -EINVAL);
	/* A switch between Rust and C: in debugfs, not in sysfs (ABI). */
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("exec_ra", "1"), -ENOENT);
	KUNIT_EXPECT_GT(test, mm_rs_sysfs_read_test("exec_folio_size", buf), 0);
	glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
	g.file->f_ra.mmap_miss = 5;
	KUNIT_ASSERT_TRUE(test, mm_rs_exec_ra_window(pgoff, 0, GLUE_PAGES,
						     GLUE_PAGES * PAGE_SIZE, GLUE_RA,
						     GLUE_ORDER, &win));
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, win.start, win.size, 0);
	KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, 5);
}

/* mm/filemap.c's MMAP_LOTSAMISS: more net misses than this stop read-ahead. */
#define GLUE_LOTSAMISS	100

/*
 * The exec_ra_miss_exempt switch, for the measurement of the exemption: at
 * "0" exec faults count in mmap_miss as mainline's do (a miss one up, the
 * pages fault-around maps down), and a miss that takes the count past
 * MMAP_LOTSAMISS reads no exec window, only the page faulted; at "1", the
 * default, the same fault on the same count reads the window and leaves the
 * count alone.
 */
static void exec_ra_miss_exempt_switch(struct kunit *test)
{
	const unsigned long pgoff = 2 * (1UL << GLUE_ORDER) + 5;
	char *buf = switch_test_setup(test);
	struct glue_ctx g = {};
	struct mm_rs_exec_ra win;

	KUNIT_ASSERT_TRUE(test, mm_rs_exec_ra_window(pgoff, 0, GLUE_PAGES,
						     GLUE_PAGES * PAGE_SIZE, GLUE_RA,
						     GLUE_ORDER, &win));
	KUNIT_ASSERT_EQ(test, mm_rs_debugfs_write_test("exec_ra", "1"), 1);
	switch_set(test, "exec_ra_miss_exempt", "0", buf);
	KUNIT_EXPECT_EQ(test, mm_rs_debugfs_write_test("exec_ra_miss_exempt", "2"), -EINVAL);
	mm_rs_expect_switch_strict(test, "exec_ra_miss_exempt", true);
	mm_rs_expect_switch_strict(test, "exec_ra", true);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("exec_ra_miss_exempt", "0"), -ENOENT);

	/*
	 * Counted, one below MMAP_LOTSAMISS: the miss takes the count to it,
	 * not past it, so the window is still read. The window's pages that
	 * fault-around maps when the fault is retried (the read dropped the
	 * mmap lock) then count down, so the count falls.
	 */
	glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
	g.file->f_ra.mmap_miss = GLUE_LOTSAMISS - 1;
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, win.start, win.size, 0);
	expect_cached(test, &g, win.start, win.start + win.size);
	KUNIT_EXPECT_LT(test, g.file->f_ra.mmap_miss, GLUE_LOTSAMISS - 1);

	/*
	 * Counted, at MMAP_LOTSAMISS: the miss makes it one more, so no
	 * window is read, only the page faulted.
	 */
	glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
	g.file->f_ra.mmap_miss = GLUE_LOTSAMISS;
	glue_fault(test, &g, pgoff);
	expect_cached(test, &g, pgoff, pgoff + 1);
	KUNIT_EXPECT_GE(test, g.file->f_ra.mmap_miss, GLUE_LOTSAMISS);

	/* Exempt, the default: the same count, the window, the count alone. */
	switch_set(test, "exec_ra_miss_exempt", "1", buf);
	glue_map(test, &g, PROT_READ | PROT_EXEC, 0);
	g.file->f_ra.mmap_miss = GLUE_LOTSAMISS;
	glue_fault(test, &g, pgoff);
	expect_ra(test, &g, win.start, win.size, 0);
	expect_cached(test, &g, win.start, win.start + win.size);
	KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, GLUE_LOTSAMISS);
	glue_fault(test, &g, win.start + win.size - 1);
	KUNIT_EXPECT_EQ(test, g.file->f_ra.mmap_miss, GLUE_LOTSAMISS);
}

static struct kunit_case exec_ra_cases[] = {
	KUNIT_CASE(window_edges),
	KUNIT_CASE(window_top_of_range),
	KUNIT_CASE(window_each_order),
	KUNIT_CASE(arch_order),
	KUNIT_CASE(knob_values),
	KUNIT_CASE(exec_fault_glue),
	KUNIT_CASE(exec_hit_on_readahead_mark),
	KUNIT_CASE(exec_order_zero_glue),
	KUNIT_CASE(exec_large_folio_cache),
	KUNIT_CASE(exec_fault_offset_glue),
	KUNIT_CASE(exec_ra_switch),
	KUNIT_CASE(exec_ra_miss_exempt_switch),
	{}
};

static struct kunit_suite exec_ra_suite = {
	.name = "mm_rs_exec_ra",
	.test_cases = exec_ra_cases,
};

kunit_test_suite(exec_ra_suite);

MODULE_DESCRIPTION("KUnit tests for mm-rs exec-mapping readahead");
MODULE_LICENSE("GPL");
