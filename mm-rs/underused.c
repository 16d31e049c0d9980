// SPDX-License-Identifier: GPL-2.0
/*
 * mm-rs: underused anonymous mTHPs. The C side of the decision in
 * mm/mm_rs/anon/underused.rs: the candidates the fault paths hand to the
 * deferred-split shrinker, the switch, and the counters of a split.
 */

#include <linux/mm.h>
#include <linux/khugepaged.h>
#include <linux/mm_rs.h>

/*
 * auto's own verdict. A user who chose the order policy "auto" asked the
 * kernel to choose, and auto maps 64K folios where it has not yet told
 * sparse access from dense (a VMA's first faults, a random scan). So while
 * the policy is auto, at max_ptes_none's default, 511, where 6.12's verdict
 * never splits, mTHPs are judged as at max_ptes_none 255: underused when
 * half their pages or more are zero-filled; dense ones never are. The
 * mthp and arch policies stay bound to max_ptes_none, as 6.12 keeps PMD
 * THPs; a max_ptes_none below 511 is the user's choice under every policy.
 */
#define MM_RS_AUTO_MAX_PTES_NONE	(HPAGE_PMD_NR / 2 - 1)

static unsigned int underused_max_none(void)
{
	unsigned int max_none = READ_ONCE(khugepaged_max_ptes_none);

	if (max_none >= HPAGE_PMD_NR - 1 &&
	    mm_rs_anon_order_policy_load() == MM_RS_ANON_ORDER_AUTO)
		return MM_RS_AUTO_MAX_PTES_NONE;
	return max_none;
}

/*
 * An anonymous mTHP a fault just mapped, with its PTE lock held, goes on the
 * deferred-split queue as a PMD THP does in __do_huge_pmd_anonymous_page():
 * the shrinker then asks mm_rs_mthp_underused() whether to split it. Order 1
 * folios have no deferred list (deferred_split_folio() skips them), and
 * split_underused 0, or max_ptes_none 511, keeps every folio off the queue.
 */
void mm_rs_anon_underused_candidate(struct folio *folio)
{
	/*
	 * With max_ptes_none at 511 (its default) and a policy other than auto
	 * the verdict never splits, at any order: skip split_queue_lock and the
	 * shrinker bit, which this path would otherwise pay once per 16-64K
	 * where the PMD path pays once per 2M. A folio mapped meanwhile stays
	 * off the queue if max_ptes_none is lowered later.
	 */
	if (static_branch_likely(&mm_rs_split_underused_key) &&
	    underused_max_none() < HPAGE_PMD_NR - 1)
		deferred_split_folio(folio, false);
}

/*
 * The shrinker's question for an mTHP it holds a reference to: while the
 * switch is off, none is underused (not even those queued before).
 */
int mm_rs_mthp_underused(struct folio *folio)
{
	if (!static_branch_likely(&mm_rs_split_underused_key))
		return 0;
	return mm_rs_thp_underused(folio, underused_max_none());
}

/*
 * An underused mTHP of @order was split, and its remap mapped @zero_pages of
 * its pages to the shared zero page: what the split gave back, which can be
 * fewer than the verdict saw (a page written since, a VM_LOCKED mapping, a
 * tagged page on arm64 with MTE).
 */
void mm_rs_count_underused_split(int order, int zero_pages)
{
	count_mthp_stat(order, MTHP_STAT_UNDERUSED_SPLIT);
	mod_mthp_stat(order, MTHP_STAT_UNDERUSED_ZERO_PAGES, zero_pages);
}
