// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers of the mm-rs KUnit suites.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kprobes.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <linux/mman.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/pgtable.h>
#include <linux/sched/mm.h>

#include "internal.h"
#include "mm_rs_kunit.h"

/*
 * Called from the race windows of core mm (enum mm_rs_race): nothing, unless
 * a test redirects it to run the other side of the race there.
 */
void mm_rs_test_race(enum mm_rs_race where, struct mm_struct *mm,
		     unsigned long addr)
{
	KUNIT_STATIC_STUB_REDIRECT(mm_rs_test_race, where, mm, addr);
}

#ifdef CONFIG_MIGRATION
/* What mm_rs_migrate_racing() runs in the window, and how often it ran. */
static struct {
	void (*fn)(void *arg);
	void *arg;
	int calls;
} migrate_window;

static void migrate_window_stub(enum mm_rs_race where, struct mm_struct *mm,
				unsigned long addr)
{
	if (where != MM_RS_RACE_MIGRATE_UNMAPPED || !migrate_window.fn)
		return;
	migrate_window.calls++;
	migrate_window.fn(migrate_window.arg);
}

/* Isolates @folio (taking over the caller's reference) and migrates it. */
static int migrate_isolated(struct folio *folio, struct kunit *test)
{
	struct migration_target_control mtc = {
		.nid = folio_nid(folio),
		.gfp_mask = GFP_HIGHUSER_MOVABLE | __GFP_THISNODE,
		.reason = MR_SYSCALL,
	};
	unsigned int succeeded = 0;
	LIST_HEAD(list);
	int ret;

	/* Off the per-CPU LRU batches, which hold references of their own. */
	lru_add_drain_all();
	if (!isolate_folio_to_list(folio, &list)) {
		folio_put(folio);
		return -EBUSY;
	}
	/* Migration wants no reference but its own (isolation's) and the maps'. */
	folio_put(folio);
	if (test)
		kunit_activate_static_stub(test, mm_rs_test_race, migrate_window_stub);
	ret = migrate_pages(&list, alloc_migration_target, NULL, (unsigned long)&mtc,
			    MIGRATE_SYNC, MR_SYSCALL, &succeeded);
	if (test)
		kunit_deactivate_static_stub(test, mm_rs_test_race);
	if (!list_empty(&list))
		putback_movable_pages(&list);
	return ret ?: (succeeded ? 0 : -EAGAIN);
}

int mm_rs_migrate_racing(struct kunit *test, struct folio *folio,
			 void (*fn)(void *arg), void *arg, int *windows)
{
	int ret;

	migrate_window.fn = fn;
	migrate_window.arg = arg;
	migrate_window.calls = 0;
	ret = migrate_isolated(folio, test);
	*windows = migrate_window.calls;
	migrate_window.fn = NULL;
	return ret;
}

int mm_rs_migrate_folio(struct folio *folio)
{
	return migrate_isolated(folio, NULL);
}
#endif /* CONFIG_MIGRATION */

/*
 * mm_rs_kunit.seed=N on the kernel command line: the randomised sweeps run
 * from seeds derived from N instead of their fixed ones (make check-full
 * passes a new N each run; make test runs the fixed seeds).
 */
static unsigned long seed;
module_param(seed, ulong, 0444);

u64 mm_rs_kunit_seed(struct kunit *test, u64 fixed)
{
	u64 s = seed ? fixed ^ seed : fixed;

	kunit_info(test, "seed %#llx (mm_rs_kunit.seed=%#lx)", s, seed);
	return s;
}

void mm_rs_knobs_get(struct thp_knobs *k)
{
	k->always = READ_ONCE(huge_anon_orders_always);
	k->madvise = READ_ONCE(huge_anon_orders_madvise);
	k->inherit = READ_ONCE(huge_anon_orders_inherit);
	k->tpf = READ_ONCE(transparent_hugepage_flags);
}

void mm_rs_knobs_set(const struct thp_knobs *k)
{
	WRITE_ONCE(huge_anon_orders_always, k->always);
	WRITE_ONCE(huge_anon_orders_madvise, k->madvise);
	WRITE_ONCE(huge_anon_orders_inherit, k->inherit);
	WRITE_ONCE(transparent_hugepage_flags, k->tpf);
}

unsigned long mm_rs_tpf_with_global(unsigned long tpf, enum global_mode g)
{
	tpf &= ~(BIT(TRANSPARENT_HUGEPAGE_FLAG) |
		 BIT(TRANSPARENT_HUGEPAGE_REQ_MADV_FLAG));
	if (g == GLOBAL_ALWAYS)
		tpf |= BIT(TRANSPARENT_HUGEPAGE_FLAG);
	else if (g == GLOBAL_MADVISE)
		tpf |= BIT(TRANSPARENT_HUGEPAGE_REQ_MADV_FLAG);
	return tpf;
}

void mm_rs_knobs_only(struct thp_knobs *k, int order, enum knob_mode mode)
{
	k->always = 0;
	k->madvise = 0;
	k->inherit = 0;
	if (order < FIRST_ORDER)
		return;
	if (mode == KNOB_ALWAYS)
		k->always = BIT(order);
	else if (mode == KNOB_MADVISE)
		k->madvise = BIT(order);
	else if (mode == KNOB_INHERIT)
		k->inherit = BIT(order);
}

/*
 * Sets a switch of /sys/kernel/debug/mm_rs/ as a write(2) of "1"
 * or "0" does, so that every test that chooses a path goes through the store
 * in both directions; a refused write warns, which fails the run.
 */
static void set_switch(const char *name, bool on)
{
	WARN_ON(mm_rs_debugfs_write_test(name, on ? "1" : "0") != 1);
}

void mm_rs_expect_switch_strict(struct kunit *test, const char *name, bool debugfs)
{
	static const char * const bad[] = {
		"", "\n", "2", "-1", "x", "on", "01", "00", "+1", "+0", "000000001",
		"0x1", "10", "1 1", "1x", " 1", "1 ", "1\n\n", "1\n1",
	};
	char *before, *after;
	ssize_t n;
	int i;

	before = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	after = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	n = debugfs ? mm_rs_debugfs_read_test(name, before) : mm_rs_sysfs_read_test(name, before);
	KUNIT_ASSERT_EQ_MSG(test, n, 2, "%s", name);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		n = debugfs ? mm_rs_debugfs_write_test(name, bad[i]) :
			      mm_rs_sysfs_write_test(name, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, n, -EINVAL, "%s took \"%s\"", name, bad[i]);
		n = debugfs ? mm_rs_debugfs_read_test(name, after) :
			      mm_rs_sysfs_read_test(name, after);
		KUNIT_EXPECT_EQ(test, n, 2);
		KUNIT_EXPECT_STREQ_MSG(test, after, before, "%s after \"%s\"", name, bad[i]);
		/* Put back what a taken value changed, so each value is judged alone. */
		if (strcmp(after, before))
			WARN_ON(debugfs ? mm_rs_debugfs_write_test(name, before) != 2 :
				mm_rs_sysfs_write_test(name, before) != 2);
	}
}

void mm_rs_paths_get(struct mm_rs_paths *p)
{
	p->anon_order = mm_rs_anon_order_enabled();
	p->anon_fault = mm_rs_anon_fault_enabled();
}

void mm_rs_paths_set(const struct mm_rs_paths *p)
{
#ifdef CONFIG_MM_RS_ANON_ORDER
	set_switch("anon_order", p->anon_order);
#endif
#ifdef CONFIG_MM_RS_ANON_FAULT
	set_switch("anon_fault", p->anon_fault);
#endif
}

void mm_rs_paths_all(bool rust)
{
	struct mm_rs_paths p = { .anon_order = rust, .anon_fault = rust };

	mm_rs_paths_set(&p);
}

long mm_rs_anon_pages(struct mm_struct *mm)
{
	return percpu_counter_sum(&mm->rss_stat[MM_ANONPAGES]);
}

unsigned long mm_rs_sum_mthp(int order, enum mthp_stat_item item)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(mthp_stats, cpu).stats[order][item];
	return sum;
}

unsigned long mm_rs_vm_event(enum vm_event_item item)
{
	unsigned long *ev = kcalloc(NR_VM_EVENT_ITEMS, sizeof(*ev), GFP_KERNEL);
	unsigned long v = 0;

	if (ev) {
		all_vm_events(ev);
		v = ev[item];
		kfree(ev);
	}
	return v;
}

int mm_rs_kern_file(const char *fstype, const char *path, char *old, size_t size,
		    const char *val)
{
	struct file_system_type *type = get_fs_type(fstype);
	struct vfsmount *mnt;
	struct file *f;
	loff_t pos = 0;
	ssize_t n = 0;

	if (!type)
		return -ENODEV;
	mnt = vfs_kern_mount(type, 0, fstype, NULL);
	put_filesystem(type);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	f = file_open_root_mnt(mnt, path, O_RDWR, 0);
	if (IS_ERR(f)) {
		mntput(mnt);
		return PTR_ERR(f);
	}
	if (old) {
		n = kernel_read(f, old, size - 1, &pos);
		old[n > 0 ? n : 0] = '\0';
		strim(old);
		pos = 0;
	}
	if (n >= 0)
		n = kernel_write(f, val, strlen(val), &pos);
	fput(f);
	mntput(mnt);
	return n < 0 ? n : 0;
}

void mm_rs_poison_free_pages(int order)
{
	/* Movable, as user folios are: the same free lists they come from. */
	struct page *page = alloc_pages(GFP_HIGHUSER_MOVABLE, order);

	if (!page)
		return;
	memset(page_address(page), 0x5a, PAGE_SIZE << order);
	__free_pages(page, order);
}

unsigned long mm_rs_map_anon(struct kunit *test, unsigned long len)
{
	return kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
}

pmd_t *mm_rs_find_pmd(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud;

	if (pgd_none_or_clear_bad(pgd))
		return NULL;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none_or_clear_bad(p4d))
		return NULL;
	pud = pud_offset(p4d, addr);
	if (pud_none_or_clear_bad(pud))
		return NULL;
	return pmd_offset(pud, addr);
}

bool mm_rs_read_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptes, int nr)
{
	spinlock_t *ptl;	/* the PTE table's lock */
	pmd_t *pmd;
	pte_t *pte;
	bool ok = false;
	int i;

	mmap_read_lock(mm);
	pmd = mm_rs_find_pmd(mm, addr);
	if (!pmd)
		goto out;
	pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
	if (!pte)
		goto out;
	for (i = 0; i < nr; i++)
		ptes[i] = ptep_get(pte + i);
	pte_unmap_unlock(pte, ptl);
	ok = true;
out:
	mmap_read_unlock(mm);
	return ok;
}

static int probe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	atomic_inc(&container_of(kp, struct mm_rs_probe, kp)->hits);
	return 0;
}

static void probe_post_nop(struct kprobe *kp, struct pt_regs *regs, unsigned long flags)
{
}

/*
 * Whether @kp's probe is jump-optimized or queued to be: optimize_kprobe()
 * sets KPROBE_FLAG_OPTIMIZED when it queues the probe for kprobe_optimizer(),
 * so this needs no wait for the optimizer to run.
 */
static bool kprobe_jump_optimized(struct kprobe *kp)
{
	struct kprobe *ap;
	bool optimized;

	rcu_read_lock();
	ap = get_kprobe(kp->addr);
	optimized = ap && kprobe_optimized(ap);
	rcu_read_unlock();
	return optimized;
}

/*
 * Registers @kp so that it stays a breakpoint and is never jump-optimized
 * (CONFIG_OPTPROBES, x86_64): a probe with a post_handler is not (see
 * optimize_kprobe()). An optimized probe is unoptimized when it is
 * unregistered, by kprobe_optimizer(), which holds kprobe_mutex across a
 * synchronize_rcu_tasks(). The next register_kprobe() or unregister_kprobe()
 * then waits for an RCU-tasks grace period, which any task that does not
 * schedule voluntarily holds up: a test that registers a probe in each of
 * its rounds (the KSM suite's) took one such wait a round, and its hangs on
 * the x86_64 debug kernel came with an RCU-tasks stall report.
 *
 * Checked here, not assumed: the probe must not be optimized or queued to be.
 * 0 or register_kprobe()'s error; the caller unregisters.
 * mm_rs_kprobe_optimizes() shows that the check sees an optimizable probe.
 */
int mm_rs_register_kprobe(struct kunit *test, struct kprobe *kp)
{
	int ret;

	if (!kp->post_handler)
		kp->post_handler = probe_post_nop;
	ret = register_kprobe(kp);
	if (ret)
		return ret;
	KUNIT_EXPECT_FALSE_MSG(test, kprobe_jump_optimized(kp), "kprobe on %s was jump-optimized",
			       kp->symbol_name);
	return 0;
}

/*
 * The check of mm_rs_register_kprobe(), on a probe registered as @kp is set
 * up, optimizable if it has no post_handler: registers it, tells in
 * @optimized whether the check saw it optimized (or queued), and unregisters
 * it. Registering kicked kprobe_optimizer(), which waits for an RCU-tasks
 * grace period holding kprobe_mutex whatever it has to do: the wait is taken
 * here, in the calling case, not left to the next registration.
 * 0 or register_kprobe()'s error.
 */
int mm_rs_kprobe_optimizes(struct kprobe *kp, bool *optimized)
{
	int ret;

	ret = register_kprobe(kp);
	if (ret)
		return ret;
	*optimized = kprobe_jump_optimized(kp);
	unregister_kprobe(kp);
	wait_for_kprobe_optimizer();
	return 0;
}

static void probe_action(void *data)
{
	unregister_kprobe(&((struct mm_rs_probe *)data)->kp);
}

struct mm_rs_probe *mm_rs_probe(struct kunit *test, const char *symbol)
{
	/* Test-lifetime memory: the probe is unregistered after the case returns. */
	struct mm_rs_probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->kp.symbol_name = symbol;
	p->kp.pre_handler = probe_hit;
	KUNIT_ASSERT_EQ_MSG(test, mm_rs_register_kprobe(test, &p->kp), 0, "kprobe on %s", symbol);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, probe_action, p), 0);
	return p;
}

int mm_rs_probe_hits(struct mm_rs_probe *p)
{
	return atomic_xchg(&p->hits, 0);
}

/*
 * No stale contiguous entry in the @nr entries @ptes: a block of
 * CONT_PTES entries has the contiguous bit on every entry or on none, and
 * where on every one, they map consecutive PFNs from an aligned one, all
 * with the same write permission. Nothing to check without contpte.
 */
void mm_rs_expect_cont_sane(struct kunit *test, const pte_t *ptes, int nr, const char *what)
{
#ifdef CONFIG_ARM64_CONTPTE
	int b, i;

	for (b = 0; b + CONT_PTES <= nr; b += CONT_PTES) {
		int cont = 0;

		for (i = b; i < b + CONT_PTES; i++)
			cont += mm_rs_pte_cont(ptes[i]);
		KUNIT_EXPECT_TRUE_MSG(test, cont == 0 || cont == CONT_PTES,
				      "%s: %d of %d entries of block %d contiguous", what, cont,
				      CONT_PTES, b / CONT_PTES);
		if (cont != CONT_PTES)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, pte_pfn(ptes[b]) % CONT_PTES, 0, "%s: block %d",
				    what, b / CONT_PTES);
		for (i = b; i < b + CONT_PTES; i++) {
			KUNIT_EXPECT_EQ_MSG(test, pte_pfn(ptes[i]), pte_pfn(ptes[b]) + i - b,
					    "%s: entry %d", what, i);
			KUNIT_EXPECT_EQ_MSG(test, pte_write(ptes[i]), pte_write(ptes[b]),
					    "%s: entry %d", what, i);
		}
	}
#endif
}
