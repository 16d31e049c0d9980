// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for mm-rs PTE-table reclaim (mm/mm_rs/pt_reclaim/): the
 * reference logic alone (the live-entry count and the decision), then
 * MADV_DONTNEED on real page tables of a test mm, then threads faulting,
 * reading through GUP and zapping one mm at once.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/khugepaged.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mm_rs.h>
#include <linux/mmu_notifier.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/userfaultfd_k.h>
#include <linux/uaccess.h>
#include <linux/vmstat.h>
#include <asm/tlb.h>

#include "internal.h"
#include "mm_rs_kunit.h"

/*
 * What must happen to a table at the end of a pass, written out case by case
 * from what the reclaim promises (docs/design.rst), not computed: a pass that
 * did not reach the end of the table continues; a table the zap did not cover
 * whole, or left a live entry in, stays; an empty table freed under the PTE
 * lock held throughout goes on the fast path, one whose lock was dropped and
 * retaken (faults may have refilled it) only on the slow path's recheck.
 */
static const struct {
	bool whole, relocked;
	unsigned int live;
	int want;
} decisions[] = {
	{ false, false, 0, MM_RS_PT_KEEP },
	{ false, false, 1, MM_RS_PT_KEEP },
	{ false, false, 512, MM_RS_PT_KEEP },
	{ false, false, UINT_MAX, MM_RS_PT_KEEP },
	{ false, true, 0, MM_RS_PT_KEEP },
	{ false, true, 1, MM_RS_PT_KEEP },
	{ false, true, 511, MM_RS_PT_KEEP },
	{ false, true, UINT_MAX, MM_RS_PT_KEEP },
	{ true, false, 0, MM_RS_PT_FAST },
	{ true, false, 1, MM_RS_PT_KEEP },
	{ true, false, 2, MM_RS_PT_KEEP },
	{ true, false, 511, MM_RS_PT_KEEP },
	{ true, false, 512, MM_RS_PT_KEEP },
	{ true, false, UINT_MAX, MM_RS_PT_KEEP },
	{ true, true, 0, MM_RS_PT_SLOW },
	{ true, true, 1, MM_RS_PT_KEEP },
	{ true, true, 2, MM_RS_PT_KEEP },
	{ true, true, 511, MM_RS_PT_KEEP },
	{ true, true, 512, MM_RS_PT_KEEP },
	{ true, true, UINT_MAX, MM_RS_PT_KEEP },
};

/* Each case at the end of the table, and, whatever the state, before it. */
static void decide_each_state(struct kunit *test)
{
	const unsigned long end = 64 * PMD_SIZE;
	static const unsigned long before[] = { PAGE_SIZE, PMD_SIZE / 2, PMD_SIZE };
	int i, j;

	for (i = 0; i < ARRAY_SIZE(decisions); i++) {
		struct mm_rs_pt_zap z = { .pass = {
			.end = end, .whole = decisions[i].whole,
			.relocked = decisions[i].relocked,
			.live = decisions[i].live,
		} };

		KUNIT_EXPECT_EQ_MSG(test, mm_rs_pt_zap_decide_test(&z, end), decisions[i].want,
				    "whole %d relocked %d live %u", decisions[i].whole,
				    decisions[i].relocked, decisions[i].live);
		for (j = 0; j < ARRAY_SIZE(before); j++)
			KUNIT_EXPECT_EQ_MSG(test, mm_rs_pt_zap_decide_test(&z, end - before[j]),
					    MM_RS_PT_CONTINUE, "case %d, %lu before the end",
					    i, before[j]);
		/* Past the end, too: only the end of the pass ends it. */
		KUNIT_EXPECT_EQ(test, mm_rs_pt_zap_decide_test(&z, end + PAGE_SIZE),
				MM_RS_PT_CONTINUE);
	}
}

/* What begin makes of a pass: a whole table, a part, a resumption. */
static void begin_whole_and_resume(struct kunit *test)
{
	const unsigned long t = 16 * PMD_SIZE;
	struct mm_rs_pt_zap z = {};

	mm_rs_pt_zap_begin(&z, t, t + PMD_SIZE);
	KUNIT_EXPECT_TRUE(test, z.pass.whole);
	KUNIT_EXPECT_FALSE(test, z.pass.relocked);
	KUNIT_EXPECT_EQ(test, z.pass.end, t + PMD_SIZE);
	KUNIT_EXPECT_EQ(test, mm_rs_pt_zap_decide_test(&z, t + PMD_SIZE), MM_RS_PT_FAST);

	/* The pass stopped half way and resumes: only the slow path may free. */
	z.pass.live = 0;
	mm_rs_pt_zap_begin(&z, t + PMD_SIZE / 2, t + PMD_SIZE);
	KUNIT_EXPECT_TRUE(test, z.pass.whole);
	KUNIT_EXPECT_TRUE(test, z.pass.relocked);
	KUNIT_EXPECT_EQ(test, mm_rs_pt_zap_decide_test(&z, t + PMD_SIZE), MM_RS_PT_SLOW);

	/* A live entry counted before the restart still keeps the table. */
	z.pass.live = 1;
	mm_rs_pt_zap_begin(&z, t + PMD_SIZE / 2, t + PMD_SIZE);
	KUNIT_EXPECT_EQ(test, z.pass.live, 1);
	KUNIT_EXPECT_EQ(test, mm_rs_pt_zap_decide_test(&z, t + PMD_SIZE), MM_RS_PT_KEEP);

	/* The next table starts afresh. */
	mm_rs_pt_zap_begin(&z, t + PMD_SIZE, t + 2 * PMD_SIZE);
	KUNIT_EXPECT_TRUE(test, z.pass.whole);
	KUNIT_EXPECT_FALSE(test, z.pass.relocked);
	KUNIT_EXPECT_EQ(test, z.pass.live, 0);

	/* Parts of a table: from inside it, or ending inside it. */
	mm_rs_pt_zap_begin(&z, t + PAGE_SIZE, t + PMD_SIZE);
	KUNIT_EXPECT_FALSE(test, z.pass.whole);
	mm_rs_pt_zap_begin(&z, t + 3 * PMD_SIZE, t + 4 * PMD_SIZE - PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, z.pass.whole);
	KUNIT_EXPECT_EQ(test, mm_rs_pt_zap_decide_test(&z, z.pass.end), MM_RS_PT_KEEP);

	/* The last table of the address space: end wraps to 0, no overflow. */
	mm_rs_pt_zap_begin(&z, ULONG_MAX & PMD_MASK, 0);
	KUNIT_EXPECT_FALSE(test, z.pass.whole);
}

/* The live count over entries of every kind, on a table in memory. */
static void count_live_entries(struct kunit *test)
{
	pte_t *table = kunit_kcalloc(test, PTRS_PER_PTE, sizeof(pte_t), GFP_KERNEL);
	struct rnd_state rs;
	int round, i;

	KUNIT_ASSERT_NOT_NULL(test, table);
	prandom_seed_state(&rs, mm_rs_kunit_seed(test, 0x70747263));
	for (round = 0; round < 200; round++) {
		struct mm_rs_pt_zap z = { .pass.live = round & 1 };
		unsigned int want = z.pass.live;
		int start = prandom_u32_state(&rs) % PTRS_PER_PTE;
		int nr = 1 + prandom_u32_state(&rs) % (PTRS_PER_PTE - start);

		for (i = 0; i < PTRS_PER_PTE; i++) {
			switch (prandom_u32_state(&rs) % (round < 100 ? 2 : 5)) {
			case 0:
				table[i] = __pte(0);
				break;
			case 1:
				table[i] = pfn_pte(my_zero_pfn(0), PAGE_READONLY);
				break;
			case 2:
				table[i] = make_pte_marker(PTE_MARKER_UFFD_WP);
				break;
			case 3:
				table[i] = swp_entry_to_pte(swp_entry(0, i + 1));
				break;
			default:
				table[i] = __pte(0);
				break;
			}
		}
		for (i = start; i < start + nr; i++)
			want += !pte_none(table[i]);
		mm_rs_pt_zap_count(&z, table + start, nr);
		KUNIT_EXPECT_EQ_MSG(test, z.pass.live, want, "round %d: %d entries from %d",
				    round, nr, start);
	}

	/* The count saturates rather than wrapping back to "empty". */
	{
		struct mm_rs_pt_zap z = { .pass.live = UINT_MAX - 1 };

		for (i = 0; i < 4; i++)
			table[i] = pfn_pte(my_zero_pfn(0), PAGE_READONLY);
		mm_rs_pt_zap_count(&z, table, 4);
		KUNIT_EXPECT_EQ(test, z.pass.live, UINT_MAX);
	}
}

/* Page-table state of the test mm. */

struct pt_counts {
	unsigned long fast, slow, kept;
};

static void pt_counts_get(struct pt_counts *c)
{
	c->fast = mm_rs_vm_event(PT_RECLAIM_FAST);
	c->slow = mm_rs_vm_event(PT_RECLAIM_SLOW);
	c->kept = mm_rs_vm_event(PT_RECLAIM_KEPT);
}

/* As has_pte_table(), for a caller that holds the mmap lock. */
static bool has_pte_table_locked(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd;
	p4d_t *p4d;
	pud_t *pud;
	pmd_t pmd;

	pgd = pgd_offset(mm, addr);
	if (pgd_none(*pgd))
		return false;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(*p4d))
		return false;
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud))
		return false;
	pmd = pmdp_get_lockless(pmd_offset(pud, addr));
	return pmd_present(pmd) && !pmd_leaf(pmd);
}

/* Whether the PMD of @addr points to a PTE table (it is none after reclaim). */
static bool has_pte_table(struct mm_struct *mm, unsigned long addr)
{
	bool ret;

	mmap_read_lock(mm);
	ret = has_pte_table_locked(mm, addr);
	mmap_read_unlock(mm);
	return ret;
}

/* Whether the PTE and PMD locks of the table at @addr are different locks. */
static bool split_ptlocks(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);

	return pmd && pte_lockptr(mm, pmd) != pmd_lockptr(mm, pmd);
}

/* A PMD-aligned base inside a fresh mapping of @tables tables, THP off. */
static unsigned long map_tables(struct kunit *test, int tables)
{
	unsigned long len = (tables + 1) * PMD_SIZE;
	unsigned long addr = mm_rs_map_anon(test, len);

	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0);
	/* Else a PMD-mapped THP fills the range and there is no PTE table. */
	KUNIT_ASSERT_EQ(test, do_madvise(current->mm, addr, len, MADV_NOHUGEPAGE), 0);
	return ALIGN(addr, PMD_SIZE);
}

/* Writes @val to the first byte of each page of [@start, @start + @len). */
static int touch(unsigned long start, unsigned long len, char val)
{
	unsigned long a;

	for (a = start; a < start + len; a += PAGE_SIZE)
		if (put_user(val, (char __user *)a))
			return -EFAULT;
	return 0;
}

/* How many pages of [@start, @start + @len) do not read @val. */
static int count_not(unsigned long start, unsigned long len, char val)
{
	unsigned long a;
	int bad = 0;
	char c;

	for (a = start; a < start + len; a += PAGE_SIZE)
		if (get_user(c, (char __user *)a) || c != val)
			bad++;
	return bad;
}

static int pt_reclaim_test_init(struct kunit *test)
{
	if (!mm_rs_pt_reclaim_enabled())
		static_branch_enable(&mm_rs_pt_reclaim_key);
	return 0;
}

/*
 * MADV_DONTNEED of [@start, @start + @len) in one uninterrupted pass per table,
 * as far as the scheduler goes: zap_pte_range() stops part way when
 * need_resched() is set, which a fair task waking on this CPU (a kworker, the
 * tick) may do at any time, and a table whose pass stopped may only go on the
 * slow path. As SCHED_FIFO, no fair task sets need_resched() on this thread.
 */
static int dontneed_one_pass(struct mm_struct *mm, unsigned long start,
			     unsigned long len)
{
	int ret;

	sched_set_fifo(current);
	ret = do_madvise(mm, start, len, MADV_DONTNEED);
	sched_set_normal(current, 0);
	return ret;
}

/*
 * The PMD lock, held by another CPU for a while (with preemption off, as
 * any holder of a spinlock), with @held set once it is taken.
 */
struct pmd_holder {
	spinlock_t *ptl;	/* the PMD lock of the table zapped */
	struct completion held;
};

static int pmd_holder_fn(void *data)
{
	struct pmd_holder *h = data;

	spin_lock(h->ptl);
	complete(&h->held);
	mdelay(1000);
	spin_unlock(h->ptl);
	return 0;
}

/*
 * The fast path refused: the PMD lock is busy when the pass ends (another
 * CPU holds it), so the trylock under the PTE lock fails, and the table
 * must still go, on the slow path, once the holder lets go. Needs a second
 * CPU. The pass is one (dontneed_one_pass(); dontneed_frees_whole_table()
 * shows the same table going on the fast path), so the slow path can only
 * come from the trylock: a pass broken by need_resched would take it too.
 * Without split PTE locks (kunit/nosplit.kunitconfig) the PMD lock is the
 * PTE lock: the zap waits for the holder, the fast path refuses a lock
 * it already holds, and the slow path must take that one lock once; the
 * layout found must be the one the kernel was configured with.
 */
static void pmd_lock_busy_takes_slow_path(struct kunit *test)
{
	unsigned long base = map_tables(test, 2);
	struct mm_struct *mm = current->mm;
	struct pmd_holder h;
	struct task_struct *t;
	struct pt_counts c0, c1;

	KUNIT_ASSERT_GE(test, num_online_cpus(), 2);
	KUNIT_ASSERT_EQ(test, touch(base, PMD_SIZE, 7), 0);
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, base));
	KUNIT_ASSERT_EQ(test, split_ptlocks(mm, base), IS_ENABLED(CONFIG_SPLIT_PTE_PTLOCKS));
	h.ptl = pmd_lockptr(mm, mm_find_pmd(mm, base));
	init_completion(&h.held);
	t = kthread_create(pmd_holder_fn, &h, "mm_rs_pmd_holder");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpumask_any_but(cpu_online_mask, raw_smp_processor_id()));
	get_task_struct(t);
	pt_counts_get(&c0);
	wake_up_process(t);
	wait_for_completion(&h.held);
	KUNIT_EXPECT_EQ(test, dontneed_one_pass(mm, base, PMD_SIZE), 0);
	kthread_stop(t);
	put_task_struct(t);
	pt_counts_get(&c1);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, c1.fast - c0.fast, 0);
	KUNIT_EXPECT_EQ(test, c1.slow - c0.slow, 1);
	KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE, 0), 0);
}

/*
 * A pass broken by need_resched(): zap_pte_range() checks it before each
 * entry and stops there, drops the PTE lock, and zap_pmd_range() resumes the
 * table after cond_resched(). A kprobe on folio_remove_rmap_ptes(), which the
 * zap calls for each page it unmaps, sets need_resched on the zapping task
 * half way through the table; the task is SCHED_FIFO (dontneed_one_pass()),
 * so nothing else breaks the pass, and the schedule finds it again at once.
 * The resumed pass may not take the fast path: the table goes on the slow
 * path, once, and is freed. (Without split PTE locks every table goes on
 * the slow path: there the case shows only that a broken pass frees it.)
 */
struct resched_probe {
	struct kprobe kp;
	struct task_struct *task;
	atomic_t hits;
	int at;		/* the hit that sets need_resched */
};

static int resched_probe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct resched_probe *p = container_of(kp, struct resched_probe, kp);

	if (current == p->task && atomic_inc_return(&p->hits) == p->at) {
		set_tsk_need_resched(current);
		set_preempt_need_resched();
	}
	return 0;
}

static void need_resched_break_takes_slow_path(struct kunit *test)
{
	unsigned long base = map_tables(test, 2);
	struct mm_struct *mm = current->mm;
	struct resched_probe *p;
	struct pt_counts c0, c1;
	unsigned long bytes0;
	int ret;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, touch(base, PMD_SIZE, 7), 0);
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, base));
	bytes0 = mm_pgtables_bytes(mm);
	p->task = current;
	p->at = PTRS_PER_PTE / 2;
	p->kp.symbol_name = "folio_remove_rmap_ptes";
	p->kp.pre_handler = resched_probe_pre;
	KUNIT_ASSERT_EQ(test, mm_rs_register_kprobe(test, &p->kp), 0);
	pt_counts_get(&c0);
	ret = dontneed_one_pass(mm, base, PMD_SIZE);
	unregister_kprobe(&p->kp);
	pt_counts_get(&c1);

	KUNIT_EXPECT_EQ(test, ret, 0);
	/* Each page of order 0 (MADV_NOHUGEPAGE) unmapped by itself: the probe fired. */
	KUNIT_EXPECT_EQ(test, atomic_read(&p->hits), PTRS_PER_PTE);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0 - PTRS_PER_PTE * sizeof(pte_t));
	KUNIT_EXPECT_EQ(test, c1.fast - c0.fast, 0);
	KUNIT_EXPECT_EQ(test, c1.slow - c0.slow, 1);
	KUNIT_EXPECT_EQ(test, c1.kept, c0.kept);
	KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE, 0), 0);
}

/* A whole table and one page more: the table goes, the next one stays. */
static void dontneed_frees_whole_table(struct kunit *test)
{
	unsigned long base = map_tables(test, 3);
	struct mm_struct *mm = current->mm;
	struct pt_counts c0, c1;
	unsigned long bytes0;
	bool split;

	KUNIT_ASSERT_EQ(test, touch(base, PMD_SIZE + PAGE_SIZE, 7), 0);
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, base));
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, base + PMD_SIZE));
	split = split_ptlocks(mm, base);
	bytes0 = mm_pgtables_bytes(mm);
	pt_counts_get(&c0);

	KUNIT_ASSERT_EQ(test, dontneed_one_pass(mm, base, PMD_SIZE + PAGE_SIZE), 0);
	pt_counts_get(&c1);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_TRUE(test, has_pte_table(mm, base + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0 - PTRS_PER_PTE * sizeof(pte_t));
	/* One uninterrupted pass: the fast path, unless PTE and PMD lock are one. */
	KUNIT_EXPECT_EQ(test, c1.fast - c0.fast, split ? 1 : 0);
	KUNIT_EXPECT_EQ(test, c1.slow - c0.slow, split ? 0 : 1);
	KUNIT_EXPECT_EQ(test, c1.kept, c0.kept);

	/* Faulting again allocates a fresh table, and reads zeros. */
	KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE, 0), 0);
	KUNIT_EXPECT_TRUE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0);
	KUNIT_EXPECT_EQ(test, touch(base, PMD_SIZE, 3), 0);
	KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE, 3), 0);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), PTRS_PER_PTE);
}

/*
 * The switch in both directions, written as sysfs writes it and seen in what
 * MADV_DONTNEED does: "0" keeps the table, as in 6.12, and reads back 0;
 * "1" frees it again, and reads back 1. Anything else is refused, and
 * changes nothing.
 */
static void switch_off_keeps_table(struct kunit *test)
{
	unsigned long base = map_tables(test, 2);
	struct mm_struct *mm = current->mm;
	unsigned long bytes0;
	char *buf;

	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, touch(base, 2 * PMD_SIZE, 7), 0);
	bytes0 = mm_pgtables_bytes(mm);
	KUNIT_ASSERT_EQ(test, mm_rs_sysfs_write_test("pt_reclaim", "0\n"), 2);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_read_test("pt_reclaim", buf), 2);
	KUNIT_EXPECT_STREQ(test, buf, "0\n");
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("pt_reclaim", "2"), -EINVAL);
	mm_rs_expect_switch_strict(test, "pt_reclaim", false);
	KUNIT_EXPECT_EQ(test, dontneed_one_pass(mm, base, PMD_SIZE), 0);
	KUNIT_EXPECT_TRUE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), PTRS_PER_PTE);

	KUNIT_ASSERT_EQ(test, mm_rs_sysfs_write_test("pt_reclaim", "1"), 1);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_read_test("pt_reclaim", buf), 2);
	KUNIT_EXPECT_STREQ(test, buf, "1\n");
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("pt_reclaim", "on"), -EINVAL);
	KUNIT_EXPECT_EQ(test, dontneed_one_pass(mm, base + PMD_SIZE, PMD_SIZE), 0);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0 - PTRS_PER_PTE * sizeof(pte_t));
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), 0);
}

/*
 * Where userfaultfd is armed (UFFDIO_MOVE may fill tables), tables stay: in
 * each mode, missing, wp and minor (userfaultfd_armed() reads all three);
 * both architectures' 6.12 kernels have all three.
 */
static void uffd_armed_vma_keeps_tables(struct kunit *test)
{
	static const vm_flags_t modes[] = { VM_UFFD_MISSING, VM_UFFD_WP, VM_UFFD_MINOR };
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	unsigned long base, bytes0;
	int m, armed = 0;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		if (modes[m] == VM_NONE)
			continue;
		armed++;
		base = map_tables(test, 1);
		mm = current->mm;
		KUNIT_ASSERT_EQ(test, touch(base, PMD_SIZE, 7), 0);
		bytes0 = mm_pgtables_bytes(mm);
		/* Armed as UFFDIO_REGISTER would; nothing faults here while it is. */
		mmap_write_lock(mm);
		vma = vma_lookup(mm, base);
		MM_RS_ASSERT_MMAP_WRITE(test, vma, mm);
		vm_flags_set(vma, modes[m]);
		mmap_write_unlock(mm);
		KUNIT_EXPECT_EQ(test, do_madvise(mm, base, PMD_SIZE, MADV_DONTNEED), 0);
		KUNIT_EXPECT_TRUE_MSG(test, has_pte_table(mm, base), "mode %#lx",
				      (unsigned long)modes[m]);
		KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0);
		KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), 0);

		mmap_write_lock(mm);
		vm_flags_clear(vma, modes[m]);
		mmap_write_unlock(mm);
		KUNIT_EXPECT_EQ(test, do_madvise(mm, base, PMD_SIZE, MADV_DONTNEED), 0);
		KUNIT_EXPECT_FALSE_MSG(test, has_pte_table(mm, base), "mode %#lx disarmed",
				       (unsigned long)modes[m]);
		KUNIT_ASSERT_EQ(test, vm_munmap(base, PMD_SIZE), 0);
	}
	KUNIT_EXPECT_EQ(test, armed, ARRAY_SIZE(modes));
}

/* A zap of all but the last page keeps the table and that page. */
static void partial_zap_keeps_table(struct kunit *test)
{
	unsigned long base = map_tables(test, 1);
	struct mm_struct *mm = current->mm;
	struct pt_counts c0, c1;
	unsigned long bytes0;

	KUNIT_ASSERT_EQ(test, touch(base, PMD_SIZE, 9), 0);
	bytes0 = mm_pgtables_bytes(mm);
	pt_counts_get(&c0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, PMD_SIZE - PAGE_SIZE, MADV_DONTNEED), 0);
	pt_counts_get(&c1);
	/* Not a whole table: neither freed nor counted as kept (pt_reclaim_kept). */
	KUNIT_EXPECT_EQ(test, c1.fast + c1.slow, c0.fast + c0.slow);
	KUNIT_EXPECT_EQ(test, c1.kept, c0.kept);
	KUNIT_EXPECT_TRUE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0);
	KUNIT_EXPECT_EQ(test, count_not(base + PMD_SIZE - PAGE_SIZE, PAGE_SIZE, 9), 0);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), 1);

	/* And a whole-table zap of a table whose other entries were none frees it. */
	pt_counts_get(&c0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, PMD_SIZE, MADV_DONTNEED), 0);
	pt_counts_get(&c1);
	KUNIT_EXPECT_EQ(test, (c1.fast - c0.fast) + (c1.slow - c0.slow), 1);
	KUNIT_EXPECT_EQ(test, c1.kept, c0.kept);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0 - PTRS_PER_PTE * sizeof(pte_t));
}

/* A range straddling three tables frees only the middle one. */
static void straddling_range(struct kunit *test)
{
	unsigned long base = map_tables(test, 3);
	struct mm_struct *mm = current->mm;
	struct pt_counts c0, c1;
	unsigned long bytes0;

	KUNIT_ASSERT_EQ(test, touch(base, 3 * PMD_SIZE, 5), 0);
	bytes0 = mm_pgtables_bytes(mm);
	pt_counts_get(&c0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base + PMD_SIZE / 2, 2 * PMD_SIZE,
					 MADV_DONTNEED), 0);
	pt_counts_get(&c1);
	/* One table freed; the two partly zapped ones are not "kept" tables. */
	KUNIT_EXPECT_EQ(test, (c1.fast - c0.fast) + (c1.slow - c0.slow), 1);
	KUNIT_EXPECT_EQ(test, c1.kept, c0.kept);
	KUNIT_EXPECT_TRUE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base + PMD_SIZE));
	KUNIT_EXPECT_TRUE(test, has_pte_table(mm, base + 2 * PMD_SIZE));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0 - PTRS_PER_PTE * sizeof(pte_t));
	KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE / 2, 5), 0);
	KUNIT_EXPECT_EQ(test, count_not(base + 2 * PMD_SIZE + PMD_SIZE / 2, PMD_SIZE / 2, 5), 0);
	KUNIT_EXPECT_EQ(test, count_not(base + PMD_SIZE / 2, 2 * PMD_SIZE, 0), 0);
}

/*
 * A uffd-wp marker the zap keeps (a file VMA, no DROP_MARKER) keeps the
 * table; once the marker is gone, the table goes.
 */
static void uffd_wp_marker_keeps_table(struct kunit *test)
{
	struct mm_struct *mm;
	unsigned long addr, base, len = 2 * PMD_SIZE;
	struct pt_counts c0, c1;
	struct file *file;
	spinlock_t *ptl;	/* the PTE table's lock */
	pmd_t *pmd;
	pte_t *pte;

	file = shmem_file_setup("mm_rs_pt_reclaim", len, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	addr = kunit_vm_mmap(test, file, 0, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	fput(file);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_ASSERT_NE(test, addr, 0);
	mm = current->mm;
	base = ALIGN(addr, PMD_SIZE);
	KUNIT_ASSERT_LE(test, base + PMD_SIZE, addr + len);
	KUNIT_ASSERT_EQ(test, touch(base, PMD_SIZE, 1), 0);
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, base));
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base + PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED), 0);

	/* Plant the marker in the slot just zapped, as a uffd-wp unmap leaves it. */
	mmap_read_lock(mm);
	pmd = mm_find_pmd(mm, base);
	MM_RS_ASSERT_MMAP_READ(test, pmd, mm);
	pte = pte_offset_map_lock(mm, pmd, base + PAGE_SIZE, &ptl);
	MM_RS_ASSERT_MMAP_READ(test, pte, mm);
	KUNIT_EXPECT_TRUE(test, pte_none(ptep_get(pte)));
	set_pte_at(mm, base + PAGE_SIZE, pte, make_pte_marker(PTE_MARKER_UFFD_WP));
	pte_unmap_unlock(pte, ptl);
	mmap_read_unlock(mm);

	pt_counts_get(&c0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, PMD_SIZE, MADV_DONTNEED), 0);
	pt_counts_get(&c1);
	KUNIT_EXPECT_TRUE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, c1.kept - c0.kept, 1);
	KUNIT_EXPECT_EQ(test, c1.fast + c1.slow, c0.fast + c0.slow);

	/* Drop the marker; the next zap of the table frees it. */
	mmap_read_lock(mm);
	pte = pte_offset_map_lock(mm, pmd, base + PAGE_SIZE, &ptl);
	MM_RS_ASSERT_MMAP_READ(test, pte, mm);
	KUNIT_EXPECT_TRUE(test, pte_marker_uffd_wp(ptep_get(pte)));
	pte_clear(mm, base + PAGE_SIZE, pte);
	pte_unmap_unlock(pte, ptl);
	mmap_read_unlock(mm);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, PMD_SIZE, MADV_DONTNEED), 0);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base));
	/* The file kept the data. */
	KUNIT_EXPECT_EQ(test, count_not(base, PAGE_SIZE, 1), 0);
}

/*
 * Enough pages that the mmu_gather runs out of batches part way through a
 * table: zap_pte_range() stops, drops the PTE lock and resumes, so that table
 * may only go on the slow path. Every table must still go.
 */
#define BREAK_TABLES	24

static void batch_break_takes_slow_path(struct kunit *test)
{
	unsigned long base = map_tables(test, BREAK_TABLES);
	struct mm_struct *mm = current->mm;
	struct pt_counts c0, c1;
	unsigned long bytes0;
	int i;

	KUNIT_ASSERT_EQ(test, touch(base, BREAK_TABLES * PMD_SIZE, 2), 0);
	bytes0 = mm_pgtables_bytes(mm);
	pt_counts_get(&c0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, BREAK_TABLES * PMD_SIZE, MADV_DONTNEED), 0);
	pt_counts_get(&c1);
	for (i = 0; i < BREAK_TABLES; i++)
		KUNIT_EXPECT_FALSE_MSG(test, has_pte_table(mm, base + i * PMD_SIZE), "table %d", i);
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm),
			bytes0 - BREAK_TABLES * PTRS_PER_PTE * sizeof(pte_t));
	KUNIT_EXPECT_EQ(test, (c1.fast - c0.fast) + (c1.slow - c0.slow), BREAK_TABLES);
	KUNIT_EXPECT_GE(test, c1.slow - c0.slow, 1);
	KUNIT_EXPECT_EQ(test, c1.kept, c0.kept);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), 0);
}

/*
 * Threads of one mm: zappers free and partly zap tables, faulters refill
 * them, a reader walks them through GUP-fast, while guard pages outside every
 * zapped range must keep their data. Run it in the debug flavour (KASAN,
 * lockdep, DEBUG_VM): the kunit checker fails the run on any splat, and mm
 * teardown on a bad RSS counter.
 */
#define CONC_TABLES	3
#define CONC_ITERS	10000

enum conc_role { CONC_ZAP, CONC_FAULT, CONC_GUP, CONC_ROLES };

struct conc_ctx {
	struct mm_struct *mm;
	unsigned long base;	/* CONC_TABLES tables; the last half of the last is guarded */
	atomic_t errors, running;
};

struct conc_worker {
	struct conc_ctx *ctx;
	enum conc_role role;
	struct completion exited;
	u64 seed;
};

#define GUARD_START(c)	((c)->base + (CONC_TABLES - 1) * PMD_SIZE + PMD_SIZE / 2)
#define GUARD_LEN	(PMD_SIZE / 2)
#define GUARD_VAL	0x47

static void conc_step(struct conc_worker *w, struct rnd_state *rs)
{
	struct conc_ctx *ctx = w->ctx;
	unsigned long zap_len = (CONC_TABLES - 1) * PMD_SIZE + PMD_SIZE / 2;
	unsigned long page = prandom_u32_state(rs) % (zap_len >> PAGE_SHIFT);
	unsigned long addr = ctx->base + (page << PAGE_SHIFT);
	struct page *p;

	switch (w->role) {
	case CONC_ZAP: {
		/* A whole table, two tables, or a part of one. */
		int t = prandom_u32_state(rs) % CONC_TABLES;
		unsigned long start = ctx->base + t * PMD_SIZE, len = PMD_SIZE;

		if (t == CONC_TABLES - 1)
			len = PMD_SIZE / 2;
		else if (prandom_u32_state(rs) & 1)
			len = (CONC_TABLES - 1 - t) * PMD_SIZE + PMD_SIZE / 2;
		else if (prandom_u32_state(rs) & 1)
			start += PAGE_SIZE * (prandom_u32_state(rs) % 64);
		if (do_madvise(ctx->mm, start, len - (start & ~PMD_MASK), MADV_DONTNEED))
			atomic_inc(&ctx->errors);
		break;
	}
	case CONC_FAULT: {
		unsigned long len = min(PAGE_SIZE * (1 + prandom_u32_state(rs) % 32),
					ctx->base + zap_len - addr);

		if (touch(addr, len, (char)page))
			atomic_inc(&ctx->errors);
		break;
	}
	case CONC_GUP:
		/* A page anywhere, the guard included, read through GUP-fast. */
		addr = ctx->base + ((prandom_u32_state(rs) %
				     (CONC_TABLES * PTRS_PER_PTE)) << PAGE_SHIFT);
		if (get_user_pages_fast(addr, 1, 0, &p) == 1) {
			char *k = kmap_local_page(p);

			if (addr >= GUARD_START(ctx) && *k != GUARD_VAL)
				atomic_inc(&ctx->errors);
			kunmap_local(k);
			put_page(p);
		}
		break;
	default:
		break;
	}
}

static int conc_worker_fn(void *data)
{
	struct conc_worker *w = data;
	struct rnd_state rs;
	int i;

	prandom_seed_state(&rs, w->seed);
	kthread_use_mm(w->ctx->mm);
	for (i = 0; i < CONC_ITERS; i++) {
		conc_step(w, &rs);
		if (!(i & 15))
			cond_resched();
	}
	kthread_unuse_mm(w->ctx->mm);
	complete(&w->exited);
	return 0;
}

static void concurrent_fault_gup_dontneed(struct kunit *test)
{
	struct conc_worker workers[CONC_ROLES + 1];
	struct conc_ctx ctx = {};
	struct pt_counts c0, c1;
	struct task_struct *task;
	u64 seed;
	int i;

	ctx.base = map_tables(test, CONC_TABLES);
	ctx.mm = current->mm;
	atomic_set(&ctx.errors, 0);
	KUNIT_ASSERT_EQ(test, touch(ctx.base, CONC_TABLES * PMD_SIZE - GUARD_LEN, 1), 0);
	KUNIT_ASSERT_EQ(test, touch(GUARD_START(&ctx), GUARD_LEN, GUARD_VAL), 0);
	pt_counts_get(&c0);
	seed = mm_rs_kunit_seed(test, 0x636f6e63);

	for (i = 0; i <= CONC_ROLES; i++) {
		/* Two zappers, so that zaps also race with each other. */
		workers[i].role = i < CONC_ROLES ? i : CONC_ZAP;
		workers[i].ctx = &ctx;
		workers[i].seed = seed + i;
		init_completion(&workers[i].exited);
		task = kthread_run(conc_worker_fn, &workers[i], "mm_rs_ptr/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	for (i = 0; i <= CONC_ROLES; i++)
		wait_for_completion(&workers[i].exited);
	pt_counts_get(&c1);

	KUNIT_EXPECT_EQ(test, atomic_read(&ctx.errors), 0);
	KUNIT_EXPECT_EQ(test, count_not(GUARD_START(&ctx), GUARD_LEN, GUARD_VAL), 0);
	/* Tables did go (and come back) during the run. */
	KUNIT_EXPECT_GT(test, (c1.fast - c0.fast) + (c1.slow - c0.slow), 0);
	kunit_info(test, "tables freed: %lu fast, %lu slow; %lu kept",
		   c1.fast - c0.fast, c1.slow - c0.slow, c1.kept - c0.kept);

	/* Zap everything but the guard: the counters and tables add up. */
	KUNIT_ASSERT_EQ(test, do_madvise(ctx.mm, ctx.base, (CONC_TABLES - 1) * PMD_SIZE,
					 MADV_DONTNEED), 0);
	for (i = 0; i < CONC_TABLES - 1; i++)
		KUNIT_EXPECT_FALSE(test, has_pte_table(ctx.mm, ctx.base + i * PMD_SIZE));
	KUNIT_EXPECT_EQ(test, do_madvise(ctx.mm, ctx.base + (CONC_TABLES - 1) * PMD_SIZE,
					 PMD_SIZE / 2, MADV_DONTNEED), 0);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(ctx.mm), GUARD_LEN >> PAGE_SHIFT);
}

/*
 * Races with core mm made deterministic: a racer kthread runs MADV_DONTNEED
 * on the test mm (or faults, or turns pt_reclaim off) at the moment another
 * path reaches one of its race windows (mm_rs_test_race(), redirected here
 * with a static stub). The window may be
 * in an RCU read section, so it waits for the racer by spinning: preemptible
 * RCU (CONFIG_PREEMPT) lets the racer run even on one CPU.
 */
struct flush_log;

/* What the racer does at the window. */
enum racer_act {
	RACER_DONTNEED,		/* MADV_DONTNEED of [start, start + len) */
	RACER_FAULT,		/* a write fault at start */
	RACER_PT_OFF,		/* pt_reclaim set to 0, as a write of "0" does */
	RACER_FAULT_MIGRATE,	/* a write fault at start, then the page migrated */
};

struct racer {
	struct kunit *test;
	enum mm_rs_race where;
	enum racer_act act;
	/* Which hits of the window count (any, if NULL); may set start. */
	bool (*match)(struct racer *r, unsigned long addr);
	struct mm_struct *mm;
	struct flush_log *log;	/* starts recording at the window, if set */
	unsigned long start, len;
	struct completion go, exited;
	struct task_struct *task;
	atomic_t done;
	bool skip;
	bool late;	/* the window stopped waiting before the racer was done */
	int hits, ret;
	/* RACER_FAULT_MIGRATE: */
	atomic_t release;	/* the zap is over: the migration may go on */
	bool migrating;		/* start held a migration entry in the migration's window */
	bool held_late;		/* the migration's window stopped waiting for release */
	unsigned long pfn;	/* the page faulted at start, before it moved */
	int windows;		/* the migration's windows */
};

static struct racer *active_racer;

static void flush_log_start(struct flush_log *l);

/*
 * The racer's write at @r->start, which must fault. The zap being raced has
 * cleared the entry but may not have flushed the TLB yet (mmu_gather defers
 * it); a CPU that ran this mm before (the test thread, before it moved) may
 * still hold a translation of the page zapped, and a write through it lands
 * in that page without a fault, so no page is mapped anew. That is legal
 * (the write raced with MADV_DONTNEED and lost), but it is not the refill
 * the tests are about: flush first.
 */
static int racer_fault(struct racer *r)
{
	flush_tlb_mm(r->mm);
	return put_user(5, (char __user *)r->start);
}

#ifdef CONFIG_MIGRATION
/*
 * The migration's window, in the racer (racer_window() sends it here): start's
 * entry is a migration entry now. The zap waiting in its own window goes on
 * (and its slow path rechecks the table with this entry in it); the
 * migration goes on once the zap is over.
 */
static void racer_migrate_window(struct racer *r)
{
	unsigned long deadline = jiffies + 10 * HZ;
	pte_t pte;

	r->migrating = mm_rs_read_ptes(r->mm, r->start, &pte, 1) && is_swap_pte(pte) &&
		       is_migration_entry(pte_to_swp_entry(pte));
	atomic_set_release(&r->done, 1);
	while (!atomic_read_acquire(&r->release) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	r->held_late = !atomic_read_acquire(&r->release);
}

/*
 * The racer's fault at @r->start, then the kernel's own migration of the page
 * it mapped (mm_rs_migrate_folio()). Its window reaches the test's stub,
 * racer_window(), only from a thread that runs as the test's: this one does,
 * while it migrates, and calls nothing of KUnit's itself (the stub is the
 * test thread's to take away, which it may do while this thread is still in
 * the window).
 */
static int racer_fault_migrate(struct racer *r)
{
	struct page *page;
	int ret;

	ret = racer_fault(r);
	if (ret)
		return ret;
	if (get_user_pages_fast(r->start, 1, 0, &page) != 1)
		return -EFAULT;
	r->pfn = page_to_pfn(page);
	current->kunit_test = r->test;
	ret = mm_rs_migrate_folio(page_folio(page));
	current->kunit_test = NULL;
	return ret;
}
#else
static int racer_fault_migrate(struct racer *r)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_MIGRATION */

static int racer_fn(void *data)
{
	struct racer *r = data;

	wait_for_completion(&r->go);
	if (!r->skip) {
		kthread_use_mm(r->mm);
		if (r->act == RACER_DONTNEED)
			r->ret = do_madvise(r->mm, r->start, r->len, MADV_DONTNEED);
		else if (r->act == RACER_FAULT)
			r->ret = racer_fault(r);
		else if (r->act == RACER_FAULT_MIGRATE)
			r->ret = racer_fault_migrate(r);
		else
			r->ret = mm_rs_sysfs_write_test("pt_reclaim", "0") == 1 ? 0 : -EINVAL;
		kthread_unuse_mm(r->mm);
	}
	atomic_set_release(&r->done, 1);
	complete(&r->exited);
	return 0;
}

static void racer_window(enum mm_rs_race where, struct mm_struct *mm,
			 unsigned long addr)
{
	struct racer *r = active_racer;
	unsigned long deadline = jiffies + 10 * HZ;

#ifdef CONFIG_MIGRATION
	/* The racer's own migration (RACER_FAULT_MIGRATE), unmapped. */
	if (r && where == MM_RS_RACE_MIGRATE_UNMAPPED && current == r->task) {
		if (r->act == RACER_FAULT_MIGRATE && !r->windows++)
			racer_migrate_window(r);
		return;
	}
#endif
	if (!r || where != r->where || mm != r->mm)
		return;
	if ((r->match && !r->match(r, addr)) || r->hits++)
		return;
	if (r->log)
		flush_log_start(r->log);
	complete(&r->go);
	while (!atomic_read_acquire(&r->done) && time_before(jiffies, deadline)) {
		/*
		 * A zap between two tables holds no lock but the mmap lock, and
		 * may sleep: the racer's migration may need this CPU (its LRU
		 * drain), whatever the preemption model.
		 */
		if (where == MM_RS_RACE_ZAP_UNLOCKED)
			cond_resched();
		else
			cpu_relax();
	}
	if (!atomic_read_acquire(&r->done))
		r->late = true;
}

/* Arms @r to zap [@start, @start + @len) of the test mm at window @where. */
static void racer_start(struct kunit *test, struct racer *r, enum mm_rs_race where,
			unsigned long start, unsigned long len)
{
	*r = (struct racer){ .test = test, .where = where, .mm = current->mm, .start = start,
			     .len = len };
	init_completion(&r->go);
	init_completion(&r->exited);
	atomic_set(&r->done, 0);
	atomic_set(&r->release, 0);
	r->task = kthread_run(racer_fn, r, "mm_rs_racer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->task));
	active_racer = r;
	kunit_activate_static_stub(test, mm_rs_test_race, racer_window);
}

/* Disarms @r and waits for its kthread. */
static void racer_stop(struct kunit *test, struct racer *r)
{
	kunit_deactivate_static_stub(test, mm_rs_test_race);
	active_racer = NULL;
	if (!r->hits) {
		r->skip = true;
		complete(&r->go);
	}
	wait_for_completion(&r->exited);
	/* Else the racer acted after the window, and the test checks nothing. */
	KUNIT_EXPECT_FALSE_MSG(test, r->late, "the racer was not done in 10 s");
}

/*
 * Every TLB flush of an mm, as the arch code reports it to secondary TLBs
 * (x86 flush_tlb_mm_range(), arm64 __flush_tlb_range_nosync() and
 * flush_tlb_mm(): the range actually flushed, or 0..~0 for all), and by
 * which task.
 */
#define FLUSH_LOG	64

struct flush_log {
	struct mmu_notifier mn;
	spinlock_t lock;	/* protects on, n and e[] */
	bool on;
	int n;
	struct {
		unsigned long start, end;
		struct task_struct *task;
	} e[FLUSH_LOG];
};

static void flush_log_record(struct mmu_notifier *mn, struct mm_struct *mm,
			     unsigned long start, unsigned long end)
{
	struct flush_log *l = container_of(mn, struct flush_log, mn);
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	if (l->on && l->n < FLUSH_LOG) {
		l->e[l->n].start = start;
		l->e[l->n].end = end;
		l->e[l->n].task = current;
	}
	if (l->on)
		l->n++;
	spin_unlock_irqrestore(&l->lock, flags);
}

/*
 * Records from now on. Flushes made before (on arm64, step 2 unfolding each
 * contiguous-PTE block of the THP flushes it, before the entries are cleared)
 * cannot cover entries cleared after them.
 */
static void flush_log_start(struct flush_log *l)
{
	unsigned long flags;

	spin_lock_irqsave(&l->lock, flags);
	l->on = true;
	spin_unlock_irqrestore(&l->lock, flags);
}

static const struct mmu_notifier_ops flush_log_ops = {
	.arch_invalidate_secondary_tlbs = flush_log_record,
};

/* Whether a flush by @task covered [@start, @end); @ranged: not counting whole-mm flushes. */
static bool flush_log_covers(struct flush_log *l, struct task_struct *task,
			     unsigned long start, unsigned long end, bool ranged)
{
	int i;

	for (i = 0; i < min(l->n, FLUSH_LOG); i++) {
		if (ranged && l->e[i].start == 0 && l->e[i].end == ~0UL)
			continue;
		if (l->e[i].task == task && l->e[i].start <= start && l->e[i].end >= end)
			return true;
	}
	return false;
}

static void flush_log_show(struct kunit *test, struct flush_log *l,
			   struct racer *r, unsigned long base)
{
	int i;

	for (i = 0; i < min(l->n, FLUSH_LOG); i++) {
		const char *who = l->e[i].task == r->task ? "the racer" : "collapse";

		if (l->e[i].start == 0 && l->e[i].end == ~0UL)
			kunit_info(test, "flush by %s: the whole mm\n", who);
		else
			kunit_info(test, "flush by %s: base%+ld .. base%+ld\n", who,
				   (long)(l->e[i].start - base), (long)(l->e[i].end - base));
	}
}

static void fput_action(void *file)
{
	fput(file);
}

/*
 * collapse_pte_mapped_thp() clears the PTEs of a PTE-mapped shmem THP
 * (step 2), leaving their TLB flush to pmdp_collapse_flush() in step 4. If
 * MADV_DONTNEED frees the emptied table in between, step 4 gives up: a flush
 * must still cover what step 2 cleared. The racer's own flush does not: its
 * zap found every entry none, so it flushes only for the freed table (x86:
 * the one page at the PMD address; arm64: the PMD address at PMD stride).
 */
/*
 * A PMD-aligned shared mapping of a shmem file whose page cache holds one
 * PMD-size folio (made by MADV_COLLAPSE), mapped by PTEs of one table, as
 * collapse_pte_mapped_thp() finds it after a fault-in with THP off. Returns
 * the mapping's address.
 */
static unsigned long pte_mapped_pmd_folio(struct kunit *test)
{
	struct mm_struct *mm;
	struct file *file;
	struct folio *folio;
	unsigned long hole, base;

	file = shmem_file_setup("mm_rs_collapse", PMD_SIZE, VM_NORESERVE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fput_action, file), 0);
	/* A PMD-aligned shared mapping of the file, at offset 0. */
	hole = mm_rs_map_anon(test, 3 * PMD_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(hole));
	KUNIT_ASSERT_NE(test, hole, 0);
	mm = current->mm;	/* the test mm, attached by the first mapping */
	base = ALIGN(hole, PMD_SIZE);
	KUNIT_ASSERT_EQ(test, kunit_vm_mmap(test, file, base, PMD_SIZE, PROT_READ | PROT_WRITE,
					    MAP_SHARED | MAP_FIXED, 0), base);

	/* A PMD-size folio in the page cache (MADV_COLLAPSE), mapped by PTEs. */
	KUNIT_ASSERT_EQ(test, touch(base, PMD_SIZE, 0x5a), 0);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, PMD_SIZE, MADV_COLLAPSE), 0);
	folio = filemap_get_folio(file->f_mapping, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(folio));
	KUNIT_ASSERT_EQ(test, folio_order(folio), HPAGE_PMD_ORDER);
	folio_put(folio);
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, PMD_SIZE, MADV_DONTNEED), 0);
	set_bit(MMF_DISABLE_THP, &mm->flags);	/* no PMD mapping at fault */
	KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE, 0x5a), 0);
	clear_bit(MMF_DISABLE_THP, &mm->flags);
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, base));
	return base;
}

static void collapse_race_flushes_cleared_ptes(struct kunit *test)
{
	unsigned long base = pte_mapped_pmd_folio(test);
	struct mm_struct *mm = current->mm;
	struct pt_counts c0, c1;
	struct flush_log *log;
	struct racer r;

	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, log);
	spin_lock_init(&log->lock);
	log->mn.ops = &flush_log_ops;
	KUNIT_ASSERT_EQ(test, mmu_notifier_register(&log->mn, mm), 0);

	pt_counts_get(&c0);
	racer_start(test, &r, MM_RS_RACE_COLLAPSE_UNLOCKED, base, PMD_SIZE);
	r.log = log;
	mmap_read_lock(mm);
	collapse_pte_mapped_thp(mm, base, false);
	mmap_read_unlock(mm);
	racer_stop(test, &r);
	pt_counts_get(&c1);
	mmu_notifier_unregister(&log->mn, mm);

	/* The race happened: the racer freed the table step 2 emptied. */
	KUNIT_ASSERT_EQ(test, r.hits, 1);
	KUNIT_EXPECT_EQ(test, r.ret, 0);
	KUNIT_EXPECT_EQ(test, (c1.fast - c0.fast) + (c1.slow - c0.slow), 1);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, percpu_counter_sum(&mm->rss_stat[MM_SHMEMPAGES]), 0);

	flush_log_show(test, log, &r, base);
	KUNIT_EXPECT_LE(test, log->n, FLUSH_LOG);
	/* What the fix flushes, after step 2 cleared the PTEs. */
	KUNIT_EXPECT_TRUE_MSG(test, flush_log_covers(log, current, base, base + PMD_SIZE, false),
			      "no flush of the PTEs collapse_pte_mapped_thp() cleared");
	/*
	 * What makes it needed: the racer's zap flushes only what it freed (x86
	 * reports the one page it flushes). A whole-mm flush the racer may make
	 * on the side does not count, since it does not come from freeing the
	 * table: flush_tlb_batched_pending() at the start of its zap flushes
	 * the whole mm when migration or reclaim left a flush batched on it (as
	 * compaction for the collapse's 2M folio may, seen in the debug
	 * flavour), and a concurrent gather makes the flush fullmm
	 * (mm_tlb_flush_nested()).
	 */
	if (IS_ENABLED(CONFIG_X86))
		KUNIT_EXPECT_FALSE(test, flush_log_covers(log, r.task, base, base + PMD_SIZE,
							  true));

	/* The file's data is intact, mapped again at fault. */
	KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE, 0x5a), 0);
}

/* Whether @addr of @mm is mapped by a PMD leaf (a huge mapping). */
static bool has_pmd_mapping(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd;
	bool ret;

	mmap_read_lock(mm);
	pmd = mm_find_pmd(mm, addr);
	ret = pmd && pmd_leaf(pmdp_get_lockless(pmd));
	mmap_read_unlock(mm);
	return ret;
}

/*
 * MADV_COLLAPSE of a file range whose PTE table MADV_DONTNEED frees at each
 * window of collapse_pte_mapped_thp(): after the PMD check, before step 1
 * maps the table; after step 1, before step 2 maps it again; after step 2,
 * before step 4 retakes the locks. The zap unmapped the range before it
 * freed the table, so the range is as when the PMD is none from the start:
 * MADV_COLLAPSE succeeds and maps the folio by the PMD, with the file's data,
 * instead of failing with -EINVAL.
 */
static void collapse_table_freed_each_window(struct kunit *test)
{
	static const enum mm_rs_race windows[] = {
		MM_RS_RACE_COLLAPSE_SCAN, MM_RS_RACE_COLLAPSE_CLEAR,
		MM_RS_RACE_COLLAPSE_UNLOCKED,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(windows); i++) {
		unsigned long base = pte_mapped_pmd_folio(test);
		struct mm_struct *mm = current->mm;
		struct racer r;
		int ret;

		racer_start(test, &r, windows[i], base, PMD_SIZE);
		ret = do_madvise(mm, base, PMD_SIZE, MADV_COLLAPSE);
		racer_stop(test, &r);
		KUNIT_ASSERT_EQ_MSG(test, r.hits, 1, "window %d was not reached", windows[i]);
		KUNIT_EXPECT_EQ(test, r.ret, 0);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "MADV_COLLAPSE, table freed at window %d",
				    windows[i]);
		KUNIT_EXPECT_TRUE_MSG(test, has_pmd_mapping(mm, base), "window %d", windows[i]);
		KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE, 0x5a), 0);
		KUNIT_EXPECT_EQ(test, vm_munmap(base, PMD_SIZE), 0);
	}
}

/*
 * UFFDIO_MOVE maps the source PTE table, then checks the PMDs. Only the
 * destination is registered with userfaultfd (so PT reclaim skips only it):
 * MADV_DONTNEED may free the source table in between. That must neither
 * warn nor read freed memory (KASAN, in the debug flavour): the move starts
 * over and finds the source a hole.
 */
static void uffd_move_src_reclaimed(struct kunit *test)
{
	unsigned long base = map_tables(test, 2);
	unsigned long src = base, dst = base + PMD_SIZE;
	bool warned = test_taint(TAINT_WARN);
	struct mm_struct *mm = current->mm;
	struct userfaultfd_ctx *ctx;
	struct vm_area_struct *vma;
	struct pt_counts c0, c1;
	struct racer r;
	ssize_t ret;

	/* Two VMAs: the source, and the destination registered with ctx. */
	KUNIT_ASSERT_EQ(test, do_madvise(mm, dst, PMD_SIZE, MADV_DONTFORK), 0);
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	init_rwsem(&ctx->map_changing_lock);
	atomic_set(&ctx->mmap_changing, 0);
	ctx->mm = mm;
	mmap_write_lock(mm);
	vma = vma_lookup(mm, dst);
	MM_RS_ASSERT_MMAP_WRITE(test, vma, mm);
	MM_RS_ASSERT_MMAP_WRITE(test, vma->vm_start == dst, mm);
	vm_flags_set(vma, VM_UFFD_MISSING);
	vma->vm_userfaultfd_ctx.ctx = ctx;
	mmap_write_unlock(mm);

	KUNIT_ASSERT_EQ(test, touch(src, PAGE_SIZE, 9), 0);
	pt_counts_get(&c0);
	racer_start(test, &r, MM_RS_RACE_MOVE_SRC_MAPPED, src, PMD_SIZE);
	ret = move_pages(ctx, dst, src, PAGE_SIZE, 0);
	racer_stop(test, &r);
	pt_counts_get(&c1);

	mmap_write_lock(mm);
	vma->vm_userfaultfd_ctx.ctx = NULL;
	vm_flags_clear(vma, VM_UFFD_MISSING);
	mmap_write_unlock(mm);

	KUNIT_ASSERT_EQ(test, r.hits, 1);
	KUNIT_EXPECT_EQ(test, r.ret, 0);
	KUNIT_EXPECT_EQ(test, (c1.fast - c0.fast) + (c1.slow - c0.slow), 1);
	/* Started over, the move found the source a hole. */
	KUNIT_EXPECT_EQ(test, ret, -ENOENT);
	if (!warned)
		KUNIT_EXPECT_FALSE(test, test_taint(TAINT_WARN));
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, src));
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), 0);
	KUNIT_EXPECT_EQ(test, count_not(dst, PAGE_SIZE, 0), 0);
}

/*
 * A detached table borrows its mm: freeing it through a gather of another mm
 * (whose counters and TLB flush would be the wrong ones) is refused, and the
 * table, given back, is then freed through its own mm's gather.
 */
static void detached_free_other_mm_refused(struct kunit *test)
{
	unsigned long base = map_tables(test, 1);
	struct mm_struct *mm = current->mm, *other;
	struct mmu_gather tlb, tlb_other;
	unsigned long bytes0, other_bytes = 0;
	pmd_t *pmd;
	int ret = -1;

	/* An empty table: fill one entry, zap it with reclaim off. */
	KUNIT_ASSERT_EQ(test, touch(base, PAGE_SIZE, 7), 0);
	static_branch_disable(&mm_rs_pt_reclaim_key);
	KUNIT_EXPECT_EQ(test, do_madvise(mm, base, PAGE_SIZE, MADV_DONTNEED), 0);
	static_branch_enable(&mm_rs_pt_reclaim_key);
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, base));
	bytes0 = mm_pgtables_bytes(mm);

	other = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, other);
	mmap_read_lock(mm);
	pmd = mm_find_pmd(mm, base);
	if (pmd) {
		tlb_gather_mmu(&tlb_other, other);
		tlb_gather_mmu(&tlb, mm);
		ret = mm_rs_pt_free_other_mm_test(&tlb_other, &tlb, pmd, base);
		tlb_finish_mmu(&tlb);
		tlb_finish_mmu(&tlb_other);
	}
	mmap_read_unlock(mm);
	other_bytes = mm_pgtables_bytes(other);
	mmput(other);

	/* Bit 0: refused through the other gather; bit 1: freed through its own. */
	KUNIT_EXPECT_EQ(test, ret, 3);
	KUNIT_EXPECT_EQ(test, other_bytes, 0);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_EQ(test, mm_pgtables_bytes(mm), bytes0 - PTRS_PER_PTE * sizeof(pte_t));
	/* A fault after it allocates a fresh table. */
	KUNIT_EXPECT_EQ(test, count_not(base, PAGE_SIZE, 0), 0);
}

/*
 * The slow path's recheck under both locks, made to matter: a page faulted
 * into a table after its last pass found it empty, before the slow path
 * locks it (the window after zap_pte_range() dropped the PTE lock). The
 * table must stay with the page in it, and count as kept. Passes over the
 * tables break on a full mmu_gather batch as in batch_break_takes_slow_path,
 * so some table goes on the slow path (all of them without split PTE
 * locks); the first one to reach the window with its table still mapped
 * gets the fault.
 */
/*
 * After a MADV_DONTNEED of BREAK_TABLES tables at @base, whose racer wrote 5
 * at the start of the first table left for the slow path (@r->start): every
 * such table hit the window, the racer's alone stays and is counted kept,
 * the others went, and the racer's page is the only one there.
 */
static void expect_refilled_table_kept(struct kunit *test, struct racer *r,
				       unsigned long base, const struct pt_counts *c0,
				       const struct pt_counts *c1)
{
	unsigned long end = base + BREAK_TABLES * PMD_SIZE;
	struct mm_struct *mm = r->mm;
	int i, kept = 0;

	KUNIT_ASSERT_GE_MSG(test, r->hits, 1, "no table went on the slow path");
	KUNIT_EXPECT_EQ(test, r->ret, 0);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED(r->start - base, PMD_SIZE));
	KUNIT_ASSERT_TRUE(test, r->start >= base && r->start < end);
	for (i = 0; i < BREAK_TABLES; i++) {
		bool refilled = base + i * PMD_SIZE == r->start;

		KUNIT_EXPECT_EQ_MSG(test, has_pte_table(mm, base + i * PMD_SIZE), refilled,
				    "table %d", i);
		kept += refilled;
	}
	KUNIT_EXPECT_EQ(test, kept, 1);
	KUNIT_EXPECT_EQ(test, c1->kept - c0->kept, 1);
	KUNIT_EXPECT_EQ(test, (c1->fast - c0->fast) + (c1->slow - c0->slow), BREAK_TABLES - 1);
	KUNIT_EXPECT_EQ(test, count_not(r->start, PAGE_SIZE, 5), 0);
	KUNIT_EXPECT_GE(test, mm_rs_anon_pages(mm), 1);
	KUNIT_EXPECT_EQ(test, count_not(base, r->start - base, 0), 0);
	KUNIT_EXPECT_EQ(test, count_not(r->start + PMD_SIZE, end - r->start - PMD_SIZE, 0), 0);
}

static bool slow_path_pending(struct racer *r, unsigned long addr)
{
	/* A pass that ended a table (the table ends at @addr) but left it mapped. */
	if (!IS_ALIGNED(addr, PMD_SIZE) || !has_pte_table_locked(r->mm, addr - PMD_SIZE))
		return false;
	if (!r->hits)	/* the racer's target: the first such table */
		r->start = addr - PMD_SIZE;
	return true;
}

static void slow_path_refill_keeps_table(struct kunit *test)
{
	unsigned long base = map_tables(test, BREAK_TABLES);
	struct mm_struct *mm = current->mm;
	struct pt_counts c0, c1;
	struct racer r;

	KUNIT_ASSERT_EQ(test, touch(base, BREAK_TABLES * PMD_SIZE, 2), 0);
	pt_counts_get(&c0);
	racer_start(test, &r, MM_RS_RACE_ZAP_UNLOCKED, 0, 0);
	r.act = RACER_FAULT;
	r.match = slow_path_pending;
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, BREAK_TABLES * PMD_SIZE, MADV_DONTNEED), 0);
	racer_stop(test, &r);
	pt_counts_get(&c1);

	/* Every table that went on the slow path hit the window; the first got the fault. */
	kunit_info(test, "windows %d, refilled table %ld, fast %lu slow %lu kept %lu",
		   r.hits, (long)(r.start - base) / (long)PMD_SIZE, c1.fast - c0.fast,
		   c1.slow - c0.slow, c1.kept - c0.kept);
	expect_refilled_table_kept(test, &r, base, &c0, &c1);
}

/*
 * A migration entry where the slow path looks: as in
 * slow_path_refill_keeps_table(), the racer writes to the first table whose
 * pass ended and left it mapped, and then the kernel's own migrate_pages()
 * moves the page it mapped; in the migration's window (between unmap and
 * move, mm_rs_migrate_racing()) the zap goes on, so its slow path rechecks
 * the table with a migration entry in it. The entry is live (not none, though
 * not present): the table stays and is counted kept, and the move then maps
 * the new page there, with the racer's data. The other tables go.
 */
static void slow_path_migration_entry_keeps_table(struct kunit *test)
{
	unsigned long base = map_tables(test, BREAK_TABLES);
	struct mm_struct *mm = current->mm;
	struct pt_counts c0, c1;
	struct page *page;
	struct racer r;

	if (!IS_ENABLED(CONFIG_MIGRATION)) {
		KUNIT_FAIL(test, "the kunitconfig must enable MIGRATION");
		return;
	}
	KUNIT_ASSERT_EQ(test, touch(base, BREAK_TABLES * PMD_SIZE, 2), 0);
	/* The faults' folios off this CPU's LRU batch before the zap waits. */
	lru_add_drain_all();
	pt_counts_get(&c0);
	racer_start(test, &r, MM_RS_RACE_ZAP_UNLOCKED, 0, 0);
	r.act = RACER_FAULT_MIGRATE;
	r.match = slow_path_pending;
	KUNIT_EXPECT_EQ(test, do_madvise(mm, base, BREAK_TABLES * PMD_SIZE, MADV_DONTNEED), 0);
	atomic_set_release(&r.release, 1);
	racer_stop(test, &r);
	pt_counts_get(&c1);

	kunit_info(test, "windows %d, refilled table %ld, migration windows %d, fast %lu slow %lu kept %lu",
		   r.hits, (long)(r.start - base) / (long)PMD_SIZE, r.windows,
		   c1.fast - c0.fast, c1.slow - c0.slow, c1.kept - c0.kept);
	KUNIT_ASSERT_EQ(test, r.windows, 1);
	KUNIT_EXPECT_TRUE_MSG(test, r.migrating, "no migration entry in the window");
	KUNIT_EXPECT_FALSE_MSG(test, r.held_late, "the zap was not over in 10 s");
	/* The migration put the page back, with the racer's byte, moved. */
	expect_refilled_table_kept(test, &r, base, &c0, &c1);
	KUNIT_ASSERT_EQ(test, get_user_pages_fast(r.start, 1, 0, &page), 1);
	KUNIT_EXPECT_NE_MSG(test, page_to_pfn(page), r.pfn, "the page did not move");
	put_page(page);
}

/*
 * The switch read by zap_pmd_range(), not only by madvise: turned off while
 * a MADV_DONTNEED is under way, it stops the tables the zap has not reached.
 * Two tables on either side of a PUD boundary, so zap_pud_range() calls
 * zap_pmd_range() once for each; the switch goes off after the first one's
 * pass. The first table goes, the second stays, and nothing counts it.
 */
static bool first_table_done(struct racer *r, unsigned long addr)
{
	return addr == r->start;
}

static void switch_off_mid_zap(struct kunit *test)
{
	unsigned long bound = 8 * PUD_SIZE, base = bound - PMD_SIZE, addr;
	struct pt_counts c0, c1;
	struct mm_struct *mm;
	struct racer r;

	addr = kunit_vm_mmap(test, NULL, base, 2 * PMD_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE | MAP_FIXED_NOREPLACE, 0);
	KUNIT_ASSERT_EQ(test, addr, base);
	mm = current->mm;
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, 2 * PMD_SIZE, MADV_NOHUGEPAGE), 0);
	KUNIT_ASSERT_EQ(test, touch(base, 2 * PMD_SIZE, 4), 0);
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, base));
	KUNIT_ASSERT_TRUE(test, has_pte_table(mm, bound));
	pt_counts_get(&c0);
	racer_start(test, &r, MM_RS_RACE_ZAP_UNLOCKED, bound, 0);
	r.act = RACER_PT_OFF;
	r.match = first_table_done;
	KUNIT_ASSERT_EQ(test, do_madvise(mm, base, 2 * PMD_SIZE, MADV_DONTNEED), 0);
	racer_stop(test, &r);
	pt_counts_get(&c1);
	KUNIT_EXPECT_EQ(test, mm_rs_sysfs_write_test("pt_reclaim", "1"), 1);

	KUNIT_ASSERT_EQ(test, r.hits, 1);
	KUNIT_EXPECT_EQ(test, r.ret, 0);
	KUNIT_EXPECT_FALSE(test, has_pte_table(mm, base));
	KUNIT_EXPECT_TRUE(test, has_pte_table(mm, bound));
	KUNIT_EXPECT_EQ(test, (c1.fast - c0.fast) + (c1.slow - c0.slow), 1);
	KUNIT_EXPECT_EQ(test, c1.kept, c0.kept);
	KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm), 0);
}

#ifdef CONFIG_MM_RS_KSM_UNMERGE
/*
 * The Rust range walk (rust/kernel/mm/walk.rs, KSM's unmerge) racing PT
 * reclaim: between reading a PMD as a table and mapping that table, a
 * MADV_DONTNEED frees it. pte_offset_map_lock() then finds no table; the
 * walk must read the PMD again (none now), skip it, and go on to the tables
 * after it. Three tables of three pages each; the middle one goes at the
 * window.
 */
static bool walk_at_start(struct racer *r, unsigned long addr)
{
	return addr == r->start;
}

static void walk_table_freed_under_walk(struct kunit *test)
{
	static const unsigned long pg[] = { 0, 100, PTRS_PER_PTE - 1 };
	unsigned long base = map_tables(test, 3), sum = 0;
	struct mm_rs_walk_counts got = {};
	struct vm_area_struct *vma;
	struct pt_counts c0, c1;
	struct racer r;
	int t, i, ret;

	for (t = 0; t < 3; t++)
		for (i = 0; i < ARRAY_SIZE(pg); i++) {
			unsigned long a = base + t * PMD_SIZE + pg[i] * PAGE_SIZE;

			KUNIT_ASSERT_EQ(test, touch(a, PAGE_SIZE, 7), 0);
			if (t != 1)
				sum += a;
		}
	KUNIT_ASSERT_TRUE(test, has_pte_table(current->mm, base + PMD_SIZE));
	pt_counts_get(&c0);
	racer_start(test, &r, MM_RS_RACE_WALK_PMD, base + PMD_SIZE, PMD_SIZE);
	r.match = walk_at_start;
	mmap_read_lock(current->mm);
	vma = vma_lookup(current->mm, base);
	ret = vma ? mm_rs_walk_count(vma, base, base + 3 * PMD_SIZE, 0, &got) : -EFAULT;
	mmap_read_unlock(current->mm);
	racer_stop(test, &r);
	pt_counts_get(&c1);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, r.hits, 1);
	KUNIT_EXPECT_EQ(test, r.ret, 0);
	KUNIT_EXPECT_FALSE(test, has_pte_table(current->mm, base + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, (c1.fast - c0.fast) + (c1.slow - c0.slow), 1);
	/* Every page of the first and the last table, once; nothing of the middle one. */
	KUNIT_EXPECT_EQ(test, got.entries, 6);
	KUNIT_EXPECT_EQ(test, got.tables, 2);
	KUNIT_EXPECT_EQ(test, got.sum, sum);
	KUNIT_EXPECT_EQ(test, got.first, base);
	KUNIT_EXPECT_EQ(test, got.last, base + 2 * PMD_SIZE + (PTRS_PER_PTE - 1) * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, got.stopped, 0);
}
#endif

#ifdef CONFIG_MIGRATION
/* The zap migration_entry_in_zapped_table() runs in the migration's window. */
struct migrating_zap {
	struct mm_struct *mm;
	unsigned long base, addr;	/* the table, the migrating page */
	bool whole;			/* the whole table, else all of it but @addr */
	bool migrating;			/* @addr held a migration entry then */
	bool table;			/* the table was there after the zap */
	int ret;
};

static void migrating_zap_fn(void *arg)
{
	struct migrating_zap *z = arg;
	pte_t pte;

	z->migrating = mm_rs_read_ptes(z->mm, z->addr, &pte, 1) && is_swap_pte(pte) &&
		       is_migration_entry(pte_to_swp_entry(pte));
	if (z->whole) {
		z->ret = dontneed_one_pass(z->mm, z->base, PMD_SIZE);
	} else {
		z->ret = dontneed_one_pass(z->mm, z->base, z->addr - z->base);
		z->ret = z->ret ?: dontneed_one_pass(z->mm, z->addr + PAGE_SIZE,
						     z->base + PMD_SIZE - z->addr - PAGE_SIZE);
	}
	z->table = has_pte_table(z->mm, z->base);
}

/* The folio mapped at @addr of the test mm, with a reference, and the PFN there. */
static struct folio *folio_at(struct kunit *test, unsigned long addr, unsigned long *pfn)
{
	struct page *page;

	KUNIT_ASSERT_EQ(test, get_user_pages_fast(addr, 1, 0, &page), 1);
	*pfn = page_to_pfn(page);
	return page_folio(page);
}

/*
 * The kernel's own migration of a page, and MADV_DONTNEED over its table in
 * the window where the page's entry is a migration entry (migrate_pages_batch()
 * between unmap and move, mm_rs_migrate_racing()):
 * - the whole table: the zap drops the migration entry with the rest, PT
 *   reclaim frees the table under the migration, and the move that follows
 *   finds nothing to put back: nothing is mapped or counted, the range reads
 *   zeros. With pt_reclaim off (6.12) the same, but the table stays.
 * - all of it but the migrating page: the table stays, and the move maps the
 *   new folio there, with the page's data, at another PFN.
 */
static void migration_entry_in_zapped_table(struct kunit *test)
{
	int on, whole;

	for (on = 0; on <= 1; on++) {
		KUNIT_ASSERT_EQ(test, mm_rs_sysfs_write_test("pt_reclaim", on ? "1" : "0"), 1);
		for (whole = 0; whole <= 1; whole++) {
			unsigned long base = map_tables(test, 1), pfn, new_pfn;
			struct mm_struct *mm = current->mm;
			struct migrating_zap z = {
				.mm = mm, .base = base, .addr = base + 37 * PAGE_SIZE,
				.whole = whole,
			};
			struct pt_counts c0, c1;
			struct folio *folio;
			int windows, ret;
			long anon0;

			kunit_info(test, "pt_reclaim %d, whole table %d", on, whole);
			anon0 = mm_rs_anon_pages(mm);
			KUNIT_ASSERT_EQ(test, touch(base, PMD_SIZE, 6), 0);
			folio = folio_at(test, z.addr, &pfn);
			pt_counts_get(&c0);
			ret = mm_rs_migrate_racing(test, folio, migrating_zap_fn, &z, &windows);
			pt_counts_get(&c1);

			KUNIT_EXPECT_EQ(test, ret, 0);
			KUNIT_ASSERT_EQ(test, windows, 1);
			KUNIT_EXPECT_TRUE_MSG(test, z.migrating, "no migration entry then");
			KUNIT_EXPECT_EQ(test, z.ret, 0);
			KUNIT_EXPECT_EQ(test, z.table, !(on && whole));
			KUNIT_EXPECT_EQ(test, has_pte_table(mm, base), !(on && whole));
			KUNIT_EXPECT_EQ(test, (c1.fast - c0.fast) + (c1.slow - c0.slow),
					(unsigned long)(on && whole));
			KUNIT_EXPECT_EQ(test, mm_rs_anon_pages(mm) - anon0, whole ? 0 : 1);
			if (!whole) {
				folio = folio_at(test, z.addr, &new_pfn);
				folio_put(folio);
				KUNIT_EXPECT_NE_MSG(test, new_pfn, pfn, "the page did not move");
				KUNIT_EXPECT_EQ(test, count_not(z.addr, PAGE_SIZE, 6), 0);
				KUNIT_EXPECT_EQ(test, count_not(base, z.addr - base, 0), 0);
			} else {
				KUNIT_EXPECT_EQ(test, count_not(base, PMD_SIZE, 0), 0);
			}
		}
	}
}
#else
static void migration_entry_in_zapped_table(struct kunit *test)
{
	KUNIT_FAIL(test, "the kunitconfig must enable MIGRATION");
}
#endif /* CONFIG_MIGRATION */

static struct kunit_case pt_reclaim_cases[] = {
	KUNIT_CASE(decide_each_state),
	KUNIT_CASE(begin_whole_and_resume),
	KUNIT_CASE(count_live_entries),
	KUNIT_CASE(detached_free_other_mm_refused),
	KUNIT_CASE(dontneed_frees_whole_table),
	KUNIT_CASE(pmd_lock_busy_takes_slow_path),
	KUNIT_CASE(need_resched_break_takes_slow_path),
	KUNIT_CASE(switch_off_keeps_table),
	KUNIT_CASE(uffd_armed_vma_keeps_tables),
	KUNIT_CASE(partial_zap_keeps_table),
	KUNIT_CASE(straddling_range),
	KUNIT_CASE(uffd_wp_marker_keeps_table),
	KUNIT_CASE(migration_entry_in_zapped_table),
	KUNIT_CASE(batch_break_takes_slow_path),
	KUNIT_CASE(collapse_race_flushes_cleared_ptes),
	KUNIT_CASE(collapse_table_freed_each_window),
	KUNIT_CASE(uffd_move_src_reclaimed),
	KUNIT_CASE(slow_path_refill_keeps_table),
	KUNIT_CASE(slow_path_migration_entry_keeps_table),
	KUNIT_CASE(switch_off_mid_zap),
#ifdef CONFIG_MM_RS_KSM_UNMERGE
	KUNIT_CASE(walk_table_freed_under_walk),
#endif
	KUNIT_CASE_SLOW(concurrent_fault_gup_dontneed),
	{}
};

static struct kunit_suite pt_reclaim_suite = {
	.name = "mm_rs_pt_reclaim",
	.init = pt_reclaim_test_init,
	.test_cases = pt_reclaim_cases,
};

kunit_test_suite(pt_reclaim_suite);

MODULE_DESCRIPTION("KUnit tests for mm-rs PTE-table reclaim");
MODULE_LICENSE("GPL");
