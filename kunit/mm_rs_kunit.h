/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the mm-rs KUnit suites (mm_rs_kunit.c).
 */
#ifndef _MM_RS_KUNIT_H
#define _MM_RS_KUNIT_H

#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/mmap_lock.h>

/*
 * A failed KUNIT_ASSERT_*() ends the case's kthread at once, with whatever it
 * holds. If that is the mmap lock, the case's own cleanup (mmput() of the
 * kunit_vm_mmap() mm, whose exit_mmap() takes the lock) or a later case waits
 * for it until KUnit's timeout, and a mutation run loses minutes a case.
 * Under @mm's mmap lock, assert with these instead: they drop the lock (read
 * or write) before the case aborts. scripts/kunit-lock-assert.py, in make
 * lint, finds an aborting assertion made under a lock.
 */
#define __MM_RS_ASSERT_MMAP(test, cond, mm, unlock, mode)			\
	do {									\
		if (!(cond)) {							\
			unlock(mm);						\
			KUNIT_FAIL_AND_ABORT(test, "%s is false (mmap %s lock "	\
					     "dropped)", #cond, mode);		\
		}								\
	} while (0)
#define MM_RS_ASSERT_MMAP_READ(test, cond, mm)					\
	__MM_RS_ASSERT_MMAP(test, cond, mm, mmap_read_unlock, "read")
#define MM_RS_ASSERT_MMAP_WRITE(test, cond, mm)					\
	__MM_RS_ASSERT_MMAP(test, cond, mm, mmap_write_unlock, "write")

/* The large orders alloc_anon_folio() may use: 2 .. PMD_ORDER - 1. */
#define FIRST_ORDER		2

enum knob_mode { KNOB_NEVER, KNOB_ALWAYS, KNOB_MADVISE, KNOB_INHERIT };
enum global_mode { GLOBAL_NEVER, GLOBAL_MADVISE, GLOBAL_ALWAYS };

/* The anonymous THP knobs: per-size modes as order masks, and the global flags. */
struct thp_knobs {
	unsigned long always, madvise, inherit, tpf;
};

void mm_rs_knobs_get(struct thp_knobs *k);
void mm_rs_knobs_set(const struct thp_knobs *k);
/* @tpf with the global mode set to @g, the other flags kept. */
unsigned long mm_rs_tpf_with_global(unsigned long tpf, enum global_mode g);
/* Only @order enabled, in @mode (no order at all for KNOB_NEVER or order 0). */
void mm_rs_knobs_only(struct thp_knobs *k, int order, enum knob_mode mode);

/* Which paths run in Rust: the sysfs switches, set through their store. */
struct mm_rs_paths {
	bool anon_order, anon_fault;
};

void mm_rs_paths_get(struct mm_rs_paths *p);
void mm_rs_paths_set(const struct mm_rs_paths *p);
/* All Rust, or all C. */
void mm_rs_paths_all(bool rust);
/*
 * A 0/1 switch refuses everything but "0" and "1" (a trailing newline
 * allowed) with -EINVAL and keeps its value: "01", "+1", "000000001", "1 ",
 * an empty write, among others. @debugfs: /sys/kernel/debug/mm_rs/@name,
 * else /sys/kernel/mm/mm_rs/@name.
 */
void mm_rs_expect_switch_strict(struct kunit *test, const char *name, bool debugfs);

/* The exact MM_ANONPAGES of @mm (get_mm_counter() is approximate on SMP). */
long mm_rs_anon_pages(struct mm_struct *mm);

/* The sum over CPUs of an mTHP counter. */
unsigned long mm_rs_sum_mthp(int order, enum mthp_stat_item item);

/* The sum over CPUs of a VM event counter (/proc/vmstat); 0 without memory. */
unsigned long mm_rs_vm_event(enum vm_event_item item);

/*
 * Reads @path of a kernel mount of @fstype ("sysfs", "proc": KUnit runs
 * before userspace mounts them) into @old, trimmed (if not NULL), then
 * writes @val to it. 0 or a negative errno.
 */
int mm_rs_kern_file(const char *fstype, const char *path, char *old, size_t size,
		    const char *val);

/*
 * Leaves freed, poisoned pages of @order where the next allocation of that
 * order on this CPU is likely to find them, so that a folio the fault path
 * forgot to zero shows up as non-zero data.
 */
void mm_rs_poison_free_pages(int order);

/* A fresh anonymous private mapping of @len bytes in the test mm. */
unsigned long mm_rs_map_anon(struct kunit *test, unsigned long len);

/* The seed of a randomised sweep: @fixed, or one from mm_rs_kunit.seed; logged. */
u64 mm_rs_kunit_seed(struct kunit *test, u64 fixed);

/*
 * The PMD entry of @addr in @mm, or NULL if a level above it is empty; the
 * mmap lock is held.
 */
pmd_t *mm_rs_find_pmd(struct mm_struct *mm, unsigned long addr);

/*
 * Copies the @nr entries from @addr (all in one PTE table) of @mm's page
 * tables into @ptes. Returns false if there is no PTE table there.
 */
bool mm_rs_read_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptes, int nr);

/*
 * The contiguous bit of an entry read with ptep_get() (arm64 with contpte:
 * PTE_CONT), and whether a folio of @order mapped naturally aligned by one
 * fault must carry it (CONT_PTES pages or more, below a PMD); false and
 * false elsewhere.
 */
/* No stale contiguous entry in @ptes (mm_rs_kunit.c says what that is). */
void mm_rs_expect_cont_sane(struct kunit *test, const pte_t *ptes, int nr, const char *what);

#ifdef CONFIG_ARM64_CONTPTE
static inline bool mm_rs_pte_cont(pte_t pte) { return pte_cont(pte); }
static inline bool mm_rs_cont_order(int order) { return (1 << order) >= CONT_PTES; }
#else
static inline bool mm_rs_pte_cont(pte_t pte) { return false; }
static inline bool mm_rs_cont_order(int order) { return false; }
#endif

/*
 * Counts the calls of a kernel function (a kprobe on its entry), so that a
 * test sees which code ran, not only what a switch reads: which of the Rust
 * entry points handled a fault, say. Unregistered when the test ends.
 */
struct mm_rs_probe {
	struct kprobe kp;
	atomic_t hits;
};

/*
 * register_kprobe() for a test's probe, never jump-optimized: see
 * mm_rs_kunit.c. A probe that sets its own post_handler keeps it.
 */
int mm_rs_register_kprobe(struct kunit *test, struct kprobe *kp);
/* Whether that check sees @kp jump-optimized, for the test of the check. */
int mm_rs_kprobe_optimizes(struct kprobe *kp, bool *optimized);
struct mm_rs_probe *mm_rs_probe(struct kunit *test, const char *symbol);
/* The calls since the last read, and starts counting afresh. */
int mm_rs_probe_hits(struct mm_rs_probe *p);

#ifdef CONFIG_MIGRATION
/*
 * Migrates @folio, mapped in the test mm, by the kernel's own migration
 * (migrate_pages(), MIGRATE_SYNC, to a new folio on its node), and calls
 * @fn(@arg) in the window MM_RS_RACE_MIGRATE_UNMAPPED, where the folio is
 * locked and each of its entries is a migration entry. Takes over the
 * caller's reference to @folio. Returns 0 once the folio moved, else what
 * migrate_pages() said (or -EBUSY: it was not on the LRU); *@windows is how
 * often @fn ran.
 */
int mm_rs_migrate_racing(struct kunit *test, struct folio *folio,
			 void (*fn)(void *arg), void *arg, int *windows);
/*
 * The same migration, with no stub of its own: for a thread other than the
 * test's, whose window the caller's own stub of mm_rs_test_race() handles.
 */
int mm_rs_migrate_folio(struct folio *folio);
#endif /* CONFIG_MIGRATION */

#endif /* _MM_RS_KUNIT_H */
