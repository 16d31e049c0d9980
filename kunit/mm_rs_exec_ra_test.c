// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mm-rs exec-mapping readahead (mm/mm_rs/exec_ra/): the
 * readahead window against a reference written here in 128-bit arithmetic,
 * which cannot overflow, at the edges the issue lists and at random; the
 * architecture's folio order; and the exec_folio_size knob.
 */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <linux/pagemap.h>
#include <linux/prandom.h>
#include <linux/sizes.h>

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

	/* vm_pgoff + vm_pages wraps: the VMA end saturates. */
	c.vm_pgoff = top - 10;
	c.vm_pages = 100;
	c.pgoff = top - 5;
	check_case(test, &c, "VMA end past ULONG_MAX");

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

	prandom_seed_state(&rs, 0x65786563);
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

static struct kunit_case exec_ra_cases[] = {
	KUNIT_CASE(window_edges),
	KUNIT_CASE(window_top_of_range),
	KUNIT_CASE(window_each_order),
	KUNIT_CASE(arch_order),
	KUNIT_CASE(knob_values),
	{}
};

static struct kunit_suite exec_ra_suite = {
	.name = "mm_rs_exec_ra",
	.test_cases = exec_ra_cases,
};

kunit_test_suite(exec_ra_suite);

MODULE_DESCRIPTION("KUnit tests for mm-rs exec-mapping readahead");
MODULE_LICENSE("GPL");
