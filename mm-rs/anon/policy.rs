// SPDX-License-Identifier: GPL-2.0

//! Which large orders an anonymous fault tries, by policy
//! (`/sys/kernel/mm/mm_rs/anon_order_policy`).
//!
//! - `mthp` (default): mainline's per-size mTHP knobs, exactly as C's `alloc_anon_folio()`
//!   ([`super::order`]).
//! - `arch`: the policy of the LARGE_ANON_FOLIO RFC (v4, 2023): no large folio where THP is
//!   disabled (`MADV_NOHUGEPAGE`, `PR_SET_THP_DISABLE`, THP `never`); otherwise the larger of the
//!   architecture's preferred order ([`arch_wants_pte_order`]; arm64: its contiguous-PTE size)
//!   and `PAGE_ALLOC_COSTLY_ORDER`, capped at 64K in a VMA that did not opt in to THP, falling
//!   back through `PAGE_ALLOC_COSTLY_ORDER` to order 0.
//! - `auto`: a per-VMA controller ([`AutoState`]) that grows the order while faults continue the
//!   last folio and, from time to time, maps one page alone (a *probe*) to see whether its
//!   neighbours get touched: if the next fault is the probe's neighbour the VMA is dense and gets
//!   the largest order; if it skips ahead the VMA is sparse and gets order 0. Bounded by the
//!   eligibility of `arch`, and by its 64K cap (or the arch order, if larger, where the VMA
//!   opted in to THP). Density decides first; then `auto` caps that order by what the page
//!   allocator could supply lately on the faulting CPU's node ([`FailEntry`]): an order whose
//!   allocation failed [`FAIL_THRESHOLD`] times in a row is skipped, and tried again after a
//!   backoff that doubles with each failed try, so a fragmented node stops paying for orders it
//!   cannot give, and gets them back once it can. While a smaller order is given up, a larger
//!   one is not tried (a free block of it would have served the smaller): the smallest given up
//!   is the one probed, and its first success sends the larger ones to be tried again at once.
//!
//! Every policy only chooses the orders to try; which of them fit the VMA and have no populated
//! entry, the allocation, the charge and the fallback are common ([`super::alloc`]).

use super::alloc::{alloc_orders, alloc_orders_seen, AnonFolio};
use core::sync::atomic::{AtomicI32, AtomicU32, Ordering::Relaxed};
use kernel::bindings;
use kernel::error::code::EINVAL;
use kernel::ffi::c_int;
use kernel::mm::{
    fault::VmFault,
    numa_node_id,
    order::OrderSet,
    thp::{AnonThpKnobs, MthpStat, PMD_ORDER, THP_ORDERS_ALL_ANON},
    virt::{flags, VmaRef},
    vmstat::{count_vm_event, VmEvent},
};
use kernel::page::PAGE_SHIFT;

/// An anonymous order policy, as C's `enum mm_rs_anon_order_policy` numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Policy(c_int);

/// The policy in force (`/sys/kernel/mm/mm_rs/anon_order_policy`), read without a lock by the
/// faults as C reads a knob with `READ_ONCE()`; always a valid policy.
static POLICY: AtomicI32 = AtomicI32::new(Policy::MTHP.0);

impl Policy {
    /// Mainline's mTHP knobs, as C decides.
    pub(crate) const MTHP: Self =
        Self(bindings::mm_rs_anon_order_policy_MM_RS_ANON_ORDER_MTHP as c_int);
    /// The RFC's arch-preferred order.
    pub(crate) const ARCH: Self =
        Self(bindings::mm_rs_anon_order_policy_MM_RS_ANON_ORDER_ARCH as c_int);
    /// The per-VMA controller.
    pub(crate) const AUTO: Self =
        Self(bindings::mm_rs_anon_order_policy_MM_RS_ANON_ORDER_AUTO as c_int);

    /// The policy in force.
    #[inline(always)]
    pub(crate) fn get() -> Self {
        Self(POLICY.load(Relaxed))
    }

    /// Whether this is the `mthp` policy: one comparison on the fault path.
    #[inline(always)]
    pub(crate) fn is_mthp(self) -> bool {
        self == Self::MTHP
    }
}

/// Sets the policy in force to `policy` (an `enum mm_rs_anon_order_policy`); `-EINVAL`, and
/// nothing changes, for a value that is no policy. For `mm/mm_rs/sysfs.c`, which parses the
/// names.
#[no_mangle]
pub extern "C" fn mm_rs_anon_order_policy_store(policy: c_int) -> c_int {
    let policy = Policy(policy);
    if policy != Policy::MTHP && policy != Policy::ARCH && policy != Policy::AUTO {
        return EINVAL.to_errno();
    }
    POLICY.store(policy.0, Relaxed);
    0
}

/// The policy in force, an `enum mm_rs_anon_order_policy`.
#[no_mangle]
pub extern "C" fn mm_rs_anon_order_policy_load() -> c_int {
    Policy::get().0
}

export_check!(mm_rs_anon_order_policy_store, mm_rs_anon_order_policy_load);

/// Allocates the large folio of an anonymous fault under the `arch` or `auto` policy, as
/// [`super::alloc::alloc_anon_folio`] does under `mthp`.
#[inline(never)]
pub(crate) fn alloc_anon_folio<'a>(vmf: &mut VmFault<'a>, policy: Policy) -> AnonFolio<'a> {
    let vma = vmf.vma();
    let Some(hinted) = rfc_eligible(vma, &AnonThpKnobs::read()) else {
        return AnonFolio::Fallback;
    };
    let arch = arch_wants_pte_order();
    if policy == Policy::ARCH {
        let orders = vmf.suitable_orders(arch_orders(arch, hinted));
        return alloc_orders(vmf, orders);
    }

    let page = vmf.address() >> PAGE_SHIFT;
    let mut state = AutoState::from_words(vma.anon_order_hint());
    let choice = state.decide(page, auto_max_order(arch, hinted));
    match choice.event {
        AutoEvent::None => {}
        AutoEvent::Grow => count_vm_event(VmEvent::AnonAutoGrow),
        AutoEvent::Dense => count_vm_event(VmEvent::AnonAutoDense),
        AutoEvent::Sparse => count_vm_event(VmEvent::AnonAutoSparse),
    }
    if choice.probe {
        count_vm_event(VmEvent::AnonAutoProbe);
    }
    // Density chose; what the node could supply lately caps it.
    let node = numa_node_id();
    let order = if choice.order > 0 {
        fail_cap(node, choice.order)
    } else {
        0
    };
    // Below the cap, no order is given up (`fail_cap`): the walk can try every one.
    let orders = vmf.suitable_orders(auto_orders(order));
    // Only the allocator's failures are learnt: a charge that fails says the memcg is at its
    // limit, which reclaim may change at once, not that the node is fragmented.
    let mut charge_failed = OrderSet::EMPTY;
    let folio = alloc_orders_seen(vmf, orders, |o, stat| match stat {
        MthpStat::AnonFaultFallbackCharge => charge_failed = charge_failed.or(OrderSet::single(o)),
        MthpStat::AnonFaultFallback if !charge_failed.contains(o) => fail_record(node, o, false),
        _ => {}
    });
    let mapped = match &folio {
        AnonFolio::Large(folio) => folio.order(),
        AnonFolio::Fallback | AnonFolio::Retry => 0,
    };
    if mapped > 0 {
        fail_record(node, mapped, true);
    }
    state.mapped(page, mapped, &choice);
    vmf.vma().set_anon_order_hint(state.to_words());
    folio
}

/// Consecutive allocation failures of an order on a node before `auto` stops asking for it: one
/// unlucky fault (a momentary shortage another CPU's free will end) does not count.
pub(crate) const FAIL_THRESHOLD: u8 = 4;
/// The first backoff's exponent: an order given up is skipped by the next `1 << 4` faults that
/// would have asked for it, then tried once.
const FAIL_BACKOFF_MIN: u8 = 4;
/// The largest backoff's exponent: an order is tried at least once every 512 faults that
/// would ask for it (2 MiB of order-0 faults, at most), so none starves for long once the
/// allocator could supply it: after a node recovers, a dense pass over 64 MiB maps at most
/// 1/32 of it small before the smallest order given up is tried again (1024 measured 94%
/// of the unfragmented 64K coverage on arm64, below the 95% asked for).
const FAIL_BACKOFF_MAX: u8 = 9;
/// Nodes kept apart; a node beyond shares the entries of `node % FAIL_NODES` (a hint only).
const FAIL_NODES: usize = 64;
/// Orders kept: every order below `PMD_ORDER` (at most 15 with 4K pages on 64-bit).
const FAIL_ORDERS: usize = 16;

/// What `auto` remembers of the page allocator's recent answers for one order on one node,
/// packed into a `u32` so that it is read and written with one atomic access, without a lock.
/// Faults on several CPUs of a node may race on it and lose an update: the entry is a hint, a
/// lost update only delays learning or forgetting by one fault, and every order still goes
/// through the allocator, which decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FailEntry {
    /// Allocation failures in a row (saturating at 15).
    fails: u8,
    /// The exponent of the next backoff.
    backoff: u8,
    /// Faults that are still to skip this order before it is tried again.
    skip: u16,
}

impl FailEntry {
    /// Unpacks an entry.
    #[inline]
    pub(crate) fn from_bits(b: u32) -> Self {
        Self {
            fails: (b & 0xf) as u8,
            backoff: ((b >> 4) & 0xf) as u8,
            skip: (b >> 8) as u16,
        }
    }

    /// Packs an entry.
    #[inline]
    pub(crate) fn bits(self) -> u32 {
        u32::from(self.fails & 0xf) | u32::from(self.backoff & 0xf) << 4 | u32::from(self.skip) << 8
    }

    /// Whether a fault must skip the order now; counts the skip.
    #[inline]
    pub(crate) fn take_skip(&mut self) -> bool {
        if self.skip == 0 {
            return false;
        }
        self.skip = self.skip.saturating_sub(1);
        true
    }

    /// The allocator could not supply the order: after [`FAIL_THRESHOLD`] failures in a row,
    /// skip it for the next backoff, and double the backoff for the time after.
    #[inline]
    pub(crate) fn failed(&mut self) {
        self.fails = self.fails.saturating_add(1).min(15);
        if self.fails >= FAIL_THRESHOLD {
            let exp = self.backoff.clamp(FAIL_BACKOFF_MIN, FAIL_BACKOFF_MAX);
            self.skip = 1u16.checked_shl(u32::from(exp)).unwrap_or(u16::MAX);
            self.backoff = exp.saturating_add(1).min(FAIL_BACKOFF_MAX);
        }
    }

    /// The allocator supplied the order: forget every failure.
    #[inline]
    pub(crate) fn succeeded(&mut self) {
        *self = Self::default();
    }

    /// Whether the order is given up: [`FAIL_THRESHOLD`] failures in a row or more, skipped now
    /// or tried again after the backoff.
    #[inline]
    pub(crate) fn given_up(self) -> bool {
        self.fails >= FAIL_THRESHOLD
    }
}

/// An entry of the table, all zero (no failure known).
#[expect(clippy::declare_interior_mutable_const)]
const FAIL_ZERO: AtomicU32 = AtomicU32::new(0);
/// A node's row of the table.
#[expect(clippy::declare_interior_mutable_const)]
const FAIL_ROW: [AtomicU32; FAIL_ORDERS] = [FAIL_ZERO; FAIL_ORDERS];
/// The failure memory: one [`FailEntry`] per node (folded into [`FAIL_NODES`]) and order.
static FAIL: [[AtomicU32; FAIL_ORDERS]; FAIL_NODES] = [FAIL_ROW; FAIL_NODES];

/// The entry of `order` on `node`, if the table keeps that order.
#[inline]
fn fail_slot(node: usize, order: u32) -> Option<&'static AtomicU32> {
    FAIL.get(node % FAIL_NODES)?
        .get(usize::try_from(order).ok()?)
}

/// The largest order at or below `order` that `auto` asks for on `node`. Read bottom-up: the
/// smallest mTHP order given up, if any, caps the orders above it (a free block of theirs would
/// have served it: their allocation would fail too), and is itself asked for only once its
/// backoff is over (each skip counted); so with every size failing a fault reads one entry
/// and writes one, and only the smallest order is ever tried. Otherwise `order` itself; 0 if
/// the cap falls below every mTHP order (order 1 is no anonymous folio's).
#[inline]
pub(crate) fn fail_cap(node: usize, order: u32) -> u32 {
    for o in 2..=order {
        let Some(slot) = fail_slot(node, o) else {
            break;
        };
        let mut e = FailEntry::from_bits(slot.load(Relaxed));
        if !e.given_up() {
            continue;
        }
        if !e.take_skip() {
            return o;
        }
        slot.store(e.bits(), Relaxed);
        // The orders below `o` are not given up: the next mTHP order down, if any.
        return if o > 2 { o - 1 } else { 0 };
    }
    order
}

/// Records the allocator's answer for `order` on `node`: supplied (`ok`) or not.
#[inline]
pub(crate) fn fail_record(node: usize, order: u32, ok: bool) {
    let Some(slot) = fail_slot(node, order) else {
        return;
    };
    let mut e = FailEntry::from_bits(slot.load(Relaxed));
    if ok {
        if e == FailEntry::default() {
            // The common case, unfragmented: no store, no cache line made dirty.
            return;
        }
        let recovered = e.given_up();
        e.succeeded();
        slot.store(e.bits(), Relaxed);
        if recovered {
            // The node supplies an order it had given up: the larger ones given up, passed
            // over while this one was, are tried again at the next faults.
            for s in (order.saturating_add(1)..).map_while(|o| fail_slot(node, o)) {
                let mut big = FailEntry::from_bits(s.load(Relaxed));
                if big.given_up() && big.skip != 0 {
                    big.skip = 0;
                    s.store(big.bits(), Relaxed);
                }
            }
        }
        return;
    }
    e.failed();
    slot.store(e.bits(), Relaxed);
}

/// `PAGE_ALLOC_COSTLY_ORDER`: the RFC's default, and its first fallback.
pub(crate) const COSTLY_ORDER: u32 = kernel::bindings::MM_RS_PAGE_ALLOC_COSTLY_ORDER;

/// The RFC's cap for a VMA that did not opt in to THP, `ANON_FOLIO_MAX_ORDER_UNHINTED`: 64K, or
/// order 0 where a page is 64K or more.
pub(crate) const UNHINTED_MAX_ORDER: u32 = 16u32.saturating_sub(PAGE_SHIFT as u32);

/// The orders an anonymous fault maps with PTEs: the mTHP orders below `PMD_ORDER`.
#[inline]
pub(crate) fn anon_pte_orders() -> OrderSet {
    THP_ORDERS_ALL_ANON.and(OrderSet::range(0, PMD_ORDER.saturating_sub(1)))
}

/// The architecture's preferred order for PTE-mapped anonymous memory, as the RFC's
/// `arch_wants_pte_order()`: arm64 maps naturally aligned blocks of `CONT_PTES` entries with one
/// TLB entry (64K with 4K pages, 2M with 16K or 64K pages); x86 has no preference.
#[inline]
pub(crate) fn arch_wants_pte_order() -> Option<u32> {
    u32::try_from(kernel::bindings::MM_RS_ARCH_PTE_ORDER).ok()
}

/// Whether the RFC policies allow large folios for an anonymous fault in `vma`, and if so
/// whether the VMA opted in to THP: `Some(hinted)`.
///
/// Not where THP is disabled: by the hardware, for the VMA (`MADV_NOHUGEPAGE`) or the process
/// (`PR_SET_THP_DISABLE`), or globally (`never`); not in a VMA armed with userfaultfd (which
/// needs a fault per page) or a stack that `execve()` is still setting up, as for `mthp`. It
/// opted in when THP is `always`, or `madvise` and the VMA has `MADV_HUGEPAGE`, as the RFC's
/// `hugepage_vma_check()`.
#[inline]
pub(crate) fn rfc_eligible(vma: &VmaRef, knobs: &AnonThpKnobs) -> Option<bool> {
    let vm_flags = vma.flags();
    if !vma.is_anonymous()
        || vm_flags & (flags::UFFD_ANY | flags::NOHUGEPAGE) != 0
        || knobs.disabled_by_hw
        || !knobs.global_enabled
        || vma.mm().thp_disabled()
        || vma.is_temporary_stack()
    {
        return None;
    }
    Some(knobs.global_always || vm_flags & flags::HUGEPAGE != 0)
}

/// The `arch` policy's orders, largest first: the preferred order, then
/// `PAGE_ALLOC_COSTLY_ORDER` if the preferred one is larger, as the RFC's `{prefer, costly, 0}`
/// (order 0 is the common fallback).
///
/// The preferred order is the larger of the architecture's and `PAGE_ALLOC_COSTLY_ORDER`,
/// capped at [`UNHINTED_MAX_ORDER`] unless the VMA opted in to THP (`hinted`).
#[inline]
pub(crate) fn arch_orders(arch: Option<u32>, hinted: bool) -> OrderSet {
    let prefer = arch.map_or(COSTLY_ORDER, |order| order.max(COSTLY_ORDER));
    let prefer = if hinted {
        prefer
    } else {
        prefer.min(UNHINTED_MAX_ORDER)
    };
    let mut orders = OrderSet::single(prefer);
    if prefer > COSTLY_ORDER {
        orders = orders.or(OrderSet::single(COSTLY_ORDER));
    }
    orders.and(anon_pte_orders())
}

/// The largest order `auto` grows to: the `arch` cap ([`UNHINTED_MAX_ORDER`]), or where the VMA
/// opted in to THP the larger of that and the arch order; never above the orders a fault maps
/// with PTEs.
#[inline]
pub(crate) fn auto_max_order(arch: Option<u32>, hinted: bool) -> u32 {
    let max = if hinted {
        arch.map_or(COSTLY_ORDER, |o| o.max(COSTLY_ORDER))
            .max(UNHINTED_MAX_ORDER)
    } else {
        UNHINTED_MAX_ORDER
    };
    anon_pte_orders().at_or_below(max).highest().unwrap_or(0)
}

/// The orders to try for `auto`'s choice `order`, largest first: every mTHP order up to it.
#[inline]
pub(crate) fn auto_orders(order: u32) -> OrderSet {
    anon_pte_orders().at_or_below(order)
}

/// The probe interval's largest exponent: a dense VMA is probed at least every 4096 faults.
const MAX_BACKOFF: u8 = 12;

/// Flag: the state has been set up (a VMA starts zeroed).
const F_INIT: u8 = 1 << 0;
/// Flag: the last fault's page was mapped alone as a probe.
const F_PROBE: u8 = 1 << 1;
/// Flag: `last` holds a fault.
const F_LAST: u8 = 1 << 2;
/// Flag: the last probe's verdict looked sparse; the probe that followed at once confirms it
/// only at the same stride.
const F_SUSPECT: u8 = 1 << 3;

/// What the `auto` controller learnt from a fault, counted in `/proc/vmstat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AutoEvent {
    /// Nothing.
    None,
    /// The fault continued the last folio: the order went up a step.
    Grow,
    /// The fault touched the last probe's neighbour: the VMA is dense, the order is the largest.
    Dense,
    /// The fault skipped the last probe's neighbours: the VMA is sparse, the order is 0.
    Sparse,
}

/// The choice of `auto` for one fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AutoChoice {
    /// The largest order to try (0: order 0 only).
    pub(crate) order: u32,
    /// This fault is a probe: map its page alone.
    pub(crate) probe: bool,
    /// What the controller learnt.
    pub(crate) event: AutoEvent,
}

/// The `auto` controller's state for one VMA: two words of `vm_area_struct`, read and written
/// without a lock by the faults of the VMA (as `struct file_ra_state` is by readahead), so a
/// concurrent fault's update may be lost; every choice is still checked against the VMA and the
/// page table before anything is mapped.
///
/// The state is a prediction of the next fault of the VMA's main access stream: where the last
/// one was, the distance from the one before, and the order the controller wants. It is copied
/// with the VMA on split, `mremap()` and `fork()` (the copy predicts the same stream), and the
/// survivor's is kept on a merge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AutoState {
    /// The page index (`address >> PAGE_SHIFT`) of the last fault.
    last: usize,
    /// Pages from the fault before the last one to the last one; 0 if not known.
    stride: i32,
    /// Faults since the last probe.
    count: u16,
    /// The order the controller wants.
    order: u8,
    /// The order of the last fault's folio.
    last_order: u8,
    /// The next probe comes `1 << backoff` faults after the last one.
    backoff: u8,
    /// `F_*`.
    flags: u8,
}

impl AutoState {
    /// Unpacks the state from its two words.
    #[inline]
    pub(crate) fn from_words(w: [usize; 2]) -> Self {
        let c = w[1] as u64;
        Self {
            last: w[0],
            stride: c as u32 as i32,
            count: (c >> 32) as u16,
            order: ((c >> 48) & 0xf) as u8,
            last_order: ((c >> 52) & 0xf) as u8,
            backoff: ((c >> 56) & 0xf) as u8,
            flags: ((c >> 60) & 0xf) as u8,
        }
    }

    /// Packs the state into its two words.
    #[inline]
    pub(crate) fn to_words(self) -> [usize; 2] {
        let c = u64::from(self.stride as u32)
            | u64::from(self.count) << 32
            | u64::from(self.order & 0xf) << 48
            | u64::from(self.last_order & 0xf) << 52
            | u64::from(self.backoff & 0xf) << 56
            | u64::from(self.flags & 0xf) << 60;
        [self.last, c as usize]
    }

    /// Decides a fault at page index `page` in a VMA whose largest order is `max` (below 16),
    /// and records it: the largest order to try, whether it is a probe, and what was learnt.
    /// [`Self::mapped`] then records the order that was mapped.
    #[inline]
    pub(crate) fn decide(&mut self, page: usize, max: u32) -> AutoChoice {
        let max = max.min(15) as u8;
        if self.flags & F_INIT == 0 {
            // A new VMA: start at the largest order; its first fault is a probe.
            *self = Self {
                order: max,
                flags: F_INIT,
                ..Self::default()
            };
        }
        self.order = self.order.min(max);
        let mut event = AutoEvent::None;
        let mut stride = 0;
        if self.flags & F_LAST != 0 {
            let d = page.wrapping_sub(self.last) as isize;
            stride = i32::try_from(d).unwrap_or(0);
            if self.flags & F_PROBE != 0 && d != 0 {
                self.flags &= !F_PROBE;
                event = self.probe_verdict(d, max);
            } else if self.adjacent(page) && self.order < max {
                // 0 grows to the smallest mTHP order; no anonymous folio has order 1.
                self.order = self.order.saturating_add(1).max(2).min(max);
                event = AutoEvent::Grow;
            }
        }
        self.stride = stride;
        self.count = self.count.saturating_add(1);
        let interval = 1u32
            .checked_shl(u32::from(self.backoff))
            .unwrap_or(u32::MAX);
        let probe = self.order > 0 && u32::from(self.count) >= interval;
        if probe {
            self.count = 0;
        }
        AutoChoice {
            order: if probe { 0 } else { u32::from(self.order) },
            probe,
            event,
        }
    }

    /// What the fault `d` pages from the last probe says of the VMA.
    ///
    /// A sparse verdict takes two probes in a row at the same stride: the first one that looks
    /// sparse only makes the fault that follows a probe too (`F_SUSPECT`). A dense VMA touched
    /// at random fills the holes its probes left, so one probe in a few hundred is followed by
    /// a fault in its own block; taken alone as sparse, that sent the VMA to order 0 for good,
    /// since only a fault that continues the last folio grows the order again. A strided scan
    /// repeats its stride and is told apart for the cost of one more order-0 fault.
    #[inline]
    fn probe_verdict(&mut self, d: isize, max: u8) -> AutoEvent {
        let span = 1usize.checked_shl(u32::from(max)).unwrap_or(usize::MAX);
        let suspect = self.flags & F_SUSPECT != 0;
        self.flags &= !F_SUSPECT;
        if d == 1 || d == -1 {
            // The probe's neighbour: pages are touched one after the other.
            self.order = max;
            self.backoff = self.backoff.saturating_add(1).min(MAX_BACKOFF);
            AutoEvent::Dense
        } else if (d.unsigned_abs() > 1 && d.unsigned_abs() <= span)
            || (self.stride != 0 && d == self.stride as isize)
        {
            // Past the probe's neighbours but within a block of the largest order (which would
            // have been mapped whole for one page), or a strided scan going on at the stride
            // that reached the probe: one page of several is touched, if the probe before
            // said so at the same stride. Else probe again at once.
            if suspect && self.stride != 0 && d == self.stride as isize {
                self.order = 0;
                self.backoff = 0;
                AutoEvent::Sparse
            } else {
                self.flags |= F_SUSPECT;
                self.count = u16::MAX;
                AutoEvent::None
            }
        } else {
            // Elsewhere: a random access, or another stream. No verdict: probe less often; but
            // at once again if the stride that led to the probe was not known (the VMA's first
            // probe), to tell a scan with a stride past the largest block by its stride.
            if self.stride != 0 {
                self.backoff = self.backoff.saturating_add(1).min(MAX_BACKOFF);
            }
            AutoEvent::None
        }
    }

    /// Whether a fault at `page` continues the last folio, forwards or backwards.
    #[inline]
    fn adjacent(&self, page: usize) -> bool {
        let nr = 1usize.checked_shl(u32::from(self.last_order)).unwrap_or(1);
        let start = self.last & !(nr - 1);
        page == start.wrapping_add(nr) || page.wrapping_add(1) == start
    }

    /// Records that the fault at `page` that [`Self::decide`] chose for mapped a folio of
    /// `order` (0 also when it fell back, or was a probe).
    #[inline]
    pub(crate) fn mapped(&mut self, page: usize, order: u32, choice: &AutoChoice) {
        self.last = page;
        self.last_order = order.min(15) as u8;
        self.flags |= F_LAST;
        if choice.probe {
            self.flags |= F_PROBE;
        }
    }
}

/// KUnit entry for [`arch_orders`]; `arch` < 0 is no preference.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub extern "C" fn mm_rs_anon_arch_orders_test(arch: c_int, hinted: bool) -> kernel::ffi::c_ulong {
    arch_orders(u32::try_from(arch).ok(), hinted).bits()
}

/// KUnit entry for [`auto_max_order`]; `arch` < 0 is no preference.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub extern "C" fn mm_rs_anon_auto_max_order_test(arch: kernel::ffi::c_int, hinted: bool) -> u32 {
    auto_max_order(u32::try_from(arch).ok(), hinted)
}

/// KUnit entry for [`rfc_eligible`] with the knobs as they are: -1 no large folios, 0 large
/// folios, 1 large folios and the VMA opted in to THP.
///
/// # Safety
///
/// `vma` must be a valid VMA of a user address space whose mmap read lock the caller holds.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_rfc_eligible_test(
    vma: *mut kernel::bindings::vm_area_struct,
) -> kernel::ffi::c_int {
    // SAFETY: Guaranteed by the caller.
    let vma = unsafe { VmaRef::from_raw(vma) };
    match rfc_eligible(vma, &AnonThpKnobs::read()) {
        None => -1,
        Some(hinted) => kernel::ffi::c_int::from(hinted),
    }
}

/// KUnit entry for [`AutoState::decide`] on the state in `state[0..2]`.
///
/// # Safety
///
/// `state` must point to two `unsigned long`s and `choice` to a `struct mm_rs_auto_choice`, both
/// writable and used by nobody else for the call.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_auto_decide_test(
    state: *mut kernel::ffi::c_ulong,
    page: kernel::ffi::c_ulong,
    max: u32,
    choice: *mut kernel::bindings::mm_rs_auto_choice,
) {
    // SAFETY: Guaranteed by the caller.
    let (words, out) = unsafe { (&mut *state.cast::<[usize; 2]>(), &mut *choice) };
    let mut st = AutoState::from_words(*words);
    let c = st.decide(page, max);
    *words = st.to_words();
    out.order = c.order;
    out.probe = c.probe;
    out.event = match c.event {
        AutoEvent::None => kernel::bindings::mm_rs_auto_event_MM_RS_AUTO_NONE,
        AutoEvent::Grow => kernel::bindings::mm_rs_auto_event_MM_RS_AUTO_GROW,
        AutoEvent::Dense => kernel::bindings::mm_rs_auto_event_MM_RS_AUTO_DENSE,
        AutoEvent::Sparse => kernel::bindings::mm_rs_auto_event_MM_RS_AUTO_SPARSE,
    } as kernel::ffi::c_int;
}

/// KUnit entry for [`AutoState::mapped`] on the state in `state[0..2]`.
///
/// # Safety
///
/// As for [`mm_rs_anon_auto_decide_test`]; `choice` is only read.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub unsafe extern "C" fn mm_rs_anon_auto_mapped_test(
    state: *mut kernel::ffi::c_ulong,
    page: kernel::ffi::c_ulong,
    order: u32,
    choice: *const kernel::bindings::mm_rs_auto_choice,
) {
    // SAFETY: Guaranteed by the caller.
    let (words, c) = unsafe { (&mut *state.cast::<[usize; 2]>(), &*choice) };
    let mut st = AutoState::from_words(*words);
    let c = AutoChoice {
        order: c.order,
        probe: c.probe,
        event: AutoEvent::None,
    };
    st.mapped(page, order, &c);
    *words = st.to_words();
}

/// KUnit entry for the failure memory of `auto`: `op` 0 forgets everything, 1 records a failure
/// of `order` on `node`, 2 a success, 3 returns [`fail_cap`] of `order`, 4 the entry's bits.
#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
#[no_mangle]
pub extern "C" fn mm_rs_anon_auto_fail_test(node: c_int, op: c_int, order: u32) -> u32 {
    let node = usize::try_from(node).unwrap_or(0);
    match op {
        0 => {
            for row in &FAIL {
                for slot in row {
                    slot.store(0, Relaxed);
                }
            }
            0
        }
        1 => {
            fail_record(node, order, false);
            0
        }
        2 => {
            fail_record(node, order, true);
            0
        }
        3 => fail_cap(node, order),
        _ => fail_slot(node, order).map_or(u32::MAX, |s| s.load(Relaxed)),
    }
}

#[cfg(CONFIG_MM_RS_KUNIT_TEST)]
export_check!(
    mm_rs_anon_auto_fail_test,
    mm_rs_anon_arch_orders_test,
    mm_rs_anon_auto_max_order_test,
    mm_rs_anon_rfc_eligible_test,
    mm_rs_anon_auto_decide_test,
    mm_rs_anon_auto_mapped_test,
);
