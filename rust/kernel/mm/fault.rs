// SPDX-License-Identifier: GPL-2.0

//! Page faults.
//!
//! [`VmFault`] is the `struct vm_fault` that C's fault handlers pass around, lent to a Rust
//! handler for the duration of one call: [`VmFault::handle`] lends it by value to a handler that
//! must end the fault ([`FaultOutcome`]), [`VmFault::with`] by reference to code that works on it
//! without ending it (choosing and allocating the folio).
//!
//! Each fault gets its own lifetime `'a`, which no other fault shares (the handlers are
//! `for<'a>` closures, and `'a` is invariant), so everything made for a fault (its PTE lock
//! guard, its new folios, its outcome) carries the fault's `'a` and cannot be used with another
//! fault or outlive the call. Handing the fault to userfaultfd
//! ([`VmFault::handle_userfault_missing`]) consumes it, since userfaultfd may drop the lock that
//! keeps the VMA alive.
//!
//! C header: [`include/linux/mm.h`](srctree/include/linux/mm.h)

use super::{
    order::{folio_size, OrderSet},
    pgtable::{AnonFolioPte, Pte, PteTableGuard, PteTableMap, UserfaultMissing, PTRS_PER_PTE},
    virt::VmaRef,
};
use crate::{bindings, page::PAGE_SHIFT};
use core::{marker::PhantomData, ptr::NonNull};

/// The `vm_fault_t` a fault handler returns: 0 or `VM_FAULT_*` bits.
pub type VmFaultResult = bindings::vm_fault_t;

/// The lifetime of one fault, invariant so that the values of two faults never unify.
pub(super) type FaultBrand<'a> = PhantomData<fn(&'a ()) -> &'a ()>;

/// What a fault handler tells C, made only by consuming the fault's [`VmFault`]: a handler
/// returns exactly one, for its own fault, and cannot claim an outcome (such as
/// `VM_FAULT_RETRY`, which tells C that the fault's lock is gone) that did not happen.
#[must_use = "the outcome must be returned to the fault's C caller"]
pub struct FaultOutcome<'a> {
    ret: VmFaultResult,
    _fault: FaultBrand<'a>,
}

impl FaultOutcome<'_> {
    #[inline]
    fn new(ret: VmFaultResult) -> Self {
        Self {
            ret,
            _fault: PhantomData,
        }
    }
}

/// Why [`VmFault::lock_pte_block`] gave no guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockRefused {
    /// The request can never be met: the VMA is not private anonymous, the order is not one an
    /// anonymous fault maps with PTEs (0, or an mTHP order below `PMD_ORDER`), or the block does
    /// not lie inside the VMA. Retrying would fault again forever; C never asks for this.
    Unsuitable,
    /// The PMD no longer points to a PTE table (it became none, a huge mapping or a migration
    /// entry under us): retry the fault.
    PmdChanged,
}

/// Whether an anonymous fault may map a folio of `order` with PTEs: order 0, or an mTHP order
/// (`THP_ORDERS_ALL_ANON`, never order 1) below `PMD_ORDER` (a PMD-sized folio is PMD-mapped).
#[inline]
pub(super) fn is_anon_pte_order(order: u32) -> bool {
    #[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
    {
        use super::thp::{PMD_ORDER, THP_ORDERS_ALL_ANON};
        order == 0 || (order < PMD_ORDER && THP_ORDERS_ALL_ANON.contains(order))
    }
    #[cfg(not(CONFIG_TRANSPARENT_HUGEPAGE))]
    {
        order == 0
    }
}

/// The large folio orders a fault may allocate its folio in, each checked against the fault
/// once, so that allocating one of them checks nothing more.
///
/// # Invariants
///
/// Every order in `orders` is an mTHP order an anonymous fault maps with PTEs
/// ([`is_anon_pte_order`], not 0), and its naturally aligned block around the address of the
/// fault `'a` lies inside that fault's VMA.
#[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultOrders<'a> {
    orders: OrderSet,
    _fault: FaultBrand<'a>,
}

#[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
impl<'a> FaultOrders<'a> {
    /// The orders an anonymous fault maps with PTEs, less order 0: `THP_ORDERS_ALL_ANON` below
    /// `PMD_ORDER`.
    const ANON_PTE: OrderSet = super::thp::THP_ORDERS_ALL_ANON
        .and(OrderSet::range(0, super::thp::PMD_ORDER.saturating_sub(1)));

    /// The empty set.
    pub const EMPTY: Self = Self {
        orders: OrderSet::EMPTY,
        _fault: PhantomData,
    };

    /// The orders, as C's bitmask.
    #[inline]
    pub fn orders(self) -> OrderSet {
        self.orders
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.orders.is_empty()
    }

    /// Whether `order` is in the set.
    #[inline]
    pub fn contains(self, order: u32) -> bool {
        self.orders.contains(order)
    }

    /// The orders both in the set and in `orders`.
    #[inline]
    pub fn and(self, orders: OrderSet) -> Self {
        // INVARIANT: A subset of orders that satisfy the invariant.
        Self {
            orders: self.orders.and(orders),
            _fault: PhantomData,
        }
    }
}

/// The orders of `orders` from the highest whose naturally aligned block around `addr` lies
/// inside `vma` down, as C's `thp_vma_suitable_orders()` for an anonymous VMA: the block of every
/// lower order lies inside that one. Orders whose folio does not fit in the address space are
/// never suitable.
#[inline(always)]
pub fn anon_suitable_orders(vma: &VmaRef, addr: usize, orders: OrderSet) -> OrderSet {
    let (start, end) = (vma.start(), vma.end());
    let mut left = orders;
    while let Some(order) = left.highest() {
        if let Some(size) = folio_size(order) {
            let first = addr & !(size - 1);
            if first >= start && first.checked_add(size).is_some_and(|last| last <= end) {
                return left;
            }
        }
        left = left.without(order);
    }
    OrderSet::EMPTY
}

/// A page fault in a private anonymous VMA being handled: the faults `do_anonymous_page()`
/// handles, the only ones Rust handles.
///
/// Not `Clone`, and only lent out by [`Self::handle`] and [`Self::with`]: the value stands for
/// the handler's right to use the fault, which [`Self::handle_userfault_missing`] gives up.
///
/// # Invariants
///
/// For `'a`, or until the value is consumed: the fault handler holds the mmap read lock or the
/// VMA read lock of `vmf->vma`, a private anonymous VMA (no `vm_ops`, not `VM_SHARED`) of a user
/// address space; `vmf->address` is a page of that VMA; `vmf->pmd` points to the PMD entry
/// covering it in the VMA's page tables (which may be none, no PTE table allocated yet, and may
/// change under us: every use of it rechecks); the fields read here (`vma`,
/// `address`, `pmd`, `flags`, `orig_pte`) are not changed by anyone else; no page table lock is
/// held; and no other `VmFault` exists for this `vm_fault`.
pub struct VmFault<'a> {
    vmf: NonNull<bindings::vm_fault>,
    _fault: FaultBrand<'a>,
}

impl VmFault<'_> {
    /// Lends the fault `vmf` to `f`, which must end it, and returns the outcome for C.
    ///
    /// # Safety
    ///
    /// `vmf` must be a fault being handled by the caller as the type invariants describe, for the
    /// duration of the call (`do_anonymous_page()` establishes the VMA's kind: it refuses a
    /// `VM_SHARED` VMA, and only runs for `vma_is_anonymous()` ones); the caller must not use
    /// `vmf` during the call, must return the result to the fault's C caller as the fault's
    /// `vm_fault_t`, and must not use the VMA or `vmf->pmd` afterwards if the result has
    /// `VM_FAULT_RETRY` or `VM_FAULT_COMPLETED` set.
    #[inline]
    pub unsafe fn handle<F>(vmf: NonNull<bindings::vm_fault>, f: F) -> VmFaultResult
    where
        F: for<'a> FnOnce(VmFault<'a>) -> FaultOutcome<'a>,
    {
        // INVARIANT: Guaranteed by the caller for the call; `f` works for any lifetime, so
        // nothing it gets can leave the call.
        f(VmFault {
            vmf,
            _fault: PhantomData,
        })
        .ret
    }

    /// Lends the fault `vmf` to `f` by reference: `f` may work on the fault (allocate a folio
    /// for it) but cannot end it.
    ///
    /// # Safety
    ///
    /// `vmf` must be a fault being handled by the caller as the type invariants describe, for the
    /// duration of the call, and the caller must not use `vmf` during the call.
    #[inline]
    pub unsafe fn with<R, F>(vmf: NonNull<bindings::vm_fault>, f: F) -> R
    where
        F: for<'a> FnOnce(&mut VmFault<'a>) -> R,
    {
        // INVARIANT: Guaranteed by the caller for the call; `f` works for any lifetime and `R`
        // cannot name it, so nothing it gets can leave the call.
        f(&mut VmFault {
            vmf,
            _fault: PhantomData,
        })
    }
}

impl<'a> VmFault<'a> {
    /// Returns a raw pointer to the fault.
    #[inline]
    pub fn as_ptr(&self) -> *mut bindings::vm_fault {
        self.vmf.as_ptr()
    }

    /// The faulting VMA.
    #[inline]
    pub fn vma(&self) -> &VmaRef {
        // SAFETY: The handler holds the VMA's read lock while `self` lives (type invariants),
        // and the borrow keeps `self` alive.
        unsafe { VmaRef::from_raw((*self.as_ptr()).__bindgen_anon_1.vma) }
    }

    /// The faulting address, aligned down to its page (`vmf->address`).
    #[inline]
    pub fn address(&self) -> usize {
        // SAFETY: `address` is set before the handler runs and not changed meanwhile.
        unsafe { (*self.as_ptr()).__bindgen_anon_1.address }
    }

    /// The fault's PMD entry (`vmf->pmd`).
    #[inline]
    pub(super) fn pmd(&self) -> *mut bindings::pmd_t {
        // SAFETY: `pmd` is set before the handler runs and not changed meanwhile.
        unsafe { (*self.as_ptr()).pmd }
    }

    /// Allocates the PTE table of the fault's PMD entry unless it has one, as C's `pte_alloc()`.
    /// Returns `false` if there was no memory for it. May sleep (borrows the fault mutably).
    #[inline(always)]
    pub fn pte_alloc(&mut self) -> bool {
        let mm = self.vma().mm();
        // SAFETY: `vmf->pmd` is a PMD entry of the read-locked VMA's mm (type invariants); the
        // table is installed under the PMD lock if the entry is still none.
        !unsafe { bindings::mm_rs_pte_alloc(mm.as_raw(), self.pmd()) }
    }

    /// Whether the fault's mm may not map the shared zero page (`mm_forbids_zeropage()`).
    #[inline(always)]
    pub fn mm_forbids_zeropage(&self) -> bool {
        // SAFETY: The mm is valid (the VMA's, read-locked).
        unsafe { bindings::mm_rs_mm_forbids_zeropage(self.vma().mm().as_raw()) }
    }

    /// Gives the VMA an anon_vma unless it has one, as C's `vmf_anon_prepare()`, which anonymous
    /// folios need for their rmap.
    ///
    /// This consumes the fault and gives it back on success: with only the VMA lock held, it may
    /// have to drop it (`VM_FAULT_RETRY`), after which the fault can only return that outcome.
    #[inline(always)]
    pub fn anon_prepare(self) -> Result<Self, FaultOutcome<'a>> {
        if self.vma().has_anon_vma() {
            return Ok(self);
        }
        // SAFETY: The fault is being handled with the VMA read-locked and no page table lock
        // held (type invariants; `self` is moved here, so no guard borrows it).
        let ret = unsafe { bindings::mm_rs_vmf_anon_prepare(self.as_ptr()) };
        if ret == 0 {
            Ok(self)
        } else {
            // VM_FAULT_OOM, or VM_FAULT_RETRY with the VMA lock dropped: `self` is gone.
            Err(FaultOutcome::new(ret))
        }
    }

    /// Whether this is a write fault (`FAULT_FLAG_WRITE`).
    #[inline]
    pub fn is_write(&self) -> bool {
        // SAFETY: `flags` is set before the handler runs and not changed meanwhile.
        let flags = unsafe { (*self.as_ptr()).flags };
        flags & bindings::fault_flag_FAULT_FLAG_WRITE != 0
    }

    /// Maps the PTE table that `vmf->pmd` points to (`pte_offset_map()`), for lockless reads.
    ///
    /// The mapping holds an RCU read-side section, which is what keeps the table allocated while
    /// it lives (PT reclaim may free an empty table under the mmap read lock). It borrows the
    /// fault mutably, so nothing of this API that may sleep (allocating, charging, zeroing) can
    /// run while it lives.
    #[inline]
    pub fn map_pte_table(&mut self) -> Option<PteTableMap<'_>> {
        // SAFETY: `vmf->pmd` is a PMD entry of the read-locked VMA's page tables, which (down to
        // the PMD level) stay allocated while the lock is held, that is while `self` is borrowed.
        unsafe { PteTableMap::map(self.pmd()) }
    }

    /// The fault's original entry, if the fault read one (`FAULT_FLAG_ORIG_PTE_VALID`).
    #[inline(always)]
    pub fn orig_pte(&self) -> Option<Pte> {
        // SAFETY: `flags` and `orig_pte` are set before the handler runs.
        let (flags, orig) = unsafe {
            (
                (*self.as_ptr()).flags,
                (*self.as_ptr()).__bindgen_anon_2.orig_pte,
            )
        };
        (flags & bindings::fault_flag_FAULT_FLAG_ORIG_PTE_VALID != 0).then(|| Pte::from_table(orig))
    }

    /// Whether the original entry was a userfaultfd write-protect marker in a VMA registered
    /// for write protection, as C's `vmf_orig_pte_uffd_wp()`.
    #[inline(always)]
    pub fn orig_pte_uffd_wp(&self) -> bool {
        if !self.vma().userfaultfd_wp() {
            return false;
        }
        self.orig_pte().is_some_and(|pte| pte.is_uffd_wp_marker())
    }

    /// The naturally aligned block of `1 << order` pages around the fault address, if `order` is
    /// one an anonymous fault maps with PTEs and the block lies inside the VMA: `(first address,
    /// number of pages)`. The block lies in one PTE table: it is aligned to its size, which is
    /// below the PMD size.
    #[inline(always)]
    pub(super) fn block(&self, order: u32) -> Option<(usize, usize)> {
        if order == 0 {
            // The faulting page, which lies in the VMA (type invariants).
            return Some((self.address(), 1));
        }
        if !is_anon_pte_order(order) {
            return None;
        }
        let (addr, nr) = aligned_block(self.address(), order);
        // `nr << PAGE_SHIFT` does not overflow (see `aligned_block()`).
        let size = nr.wrapping_shl(PAGE_SHIFT as u32);
        let vma = self.vma();
        let in_vma = addr >= vma.start() && addr.checked_add(size).is_some_and(|e| e <= vma.end());
        in_vma.then_some((addr, nr))
    }

    /// The orders of `orders` an anonymous fault maps with PTEs (mTHP orders below `PMD_ORDER`)
    /// from the highest whose naturally aligned block around the fault address lies inside the
    /// VMA down ([`anon_suitable_orders`]): one check for the set, none for each allocation.
    #[cfg(CONFIG_TRANSPARENT_HUGEPAGE)]
    #[inline(always)]
    pub fn suitable_orders(&self, orders: OrderSet) -> FaultOrders<'a> {
        let orders = orders.and(FaultOrders::ANON_PTE);
        // INVARIANT: Anonymous PTE orders (masked above) whose blocks around the fault address
        // lie inside the fault's VMA (`anon_suitable_orders()`).
        FaultOrders {
            orders: anon_suitable_orders(self.vma(), self.address(), orders),
            _fault: PhantomData,
        }
    }

    /// The large orders C's `anon_folio_orders()` (`mm/memory.c`) lets this fault try before
    /// it looks at the page table: C's order decision, for the Rust fault path when the Rust
    /// one is switched off.
    #[cfg(all(CONFIG_MM_RS_ANON_FAULT, CONFIG_TRANSPARENT_HUGEPAGE))]
    #[inline]
    pub fn anon_folio_orders_c(&self) -> FaultOrders<'a> {
        // SAFETY: The VMA is valid and read-locked (type invariants); the function only reads
        // it and the THP knobs.
        let bits = unsafe { bindings::anon_folio_orders(self.vma().as_ptr(), self.address()) };
        // INVARIANT: `anon_folio_orders()` returns `thp_vma_suitable_orders(vma, vmf->address,
        // orders)` of orders `thp_vma_allowable_orders()` took from `THP_ORDERS_ALL_ANON` below
        // `PMD_ORDER` (`BIT(PMD_ORDER) - 1`): for the fault's anonymous VMA, only orders whose
        // naturally aligned block around the fault address lies inside it. The mask changes
        // nothing; it keeps an order that is no anonymous PTE order out of the set whatever C
        // returns.
        FaultOrders {
            orders: OrderSet::from_bits(bits).and(FaultOrders::ANON_PTE),
            _fault: PhantomData,
        }
    }

    /// Maps and locks the PTE table of the fault (`pte_offset_map_lock()`), positioned at the
    /// naturally aligned block of `1 << order` pages around the fault address.
    ///
    /// Refused with [`LockRefused::Unsuitable`] if `order` is not one an anonymous fault maps with
    /// PTEs, or if the block does not lie inside the VMA; with [`LockRefused::PmdChanged`] if the
    /// PMD no longer points to a PTE table.
    ///
    /// The guard borrows the fault mutably: the PTE lock cannot be taken a second time while it
    /// is held (a self-deadlock), nothing of this API that sleeps can run under it, and what the
    /// fault is needed for meanwhile goes through the guard.
    #[inline(always)]
    pub fn lock_pte_block(&mut self, order: u32) -> Result<PteTableGuard<'_, 'a>, LockRefused> {
        let (addr, nr) = self.block(order).ok_or(LockRefused::Unsuitable)?;
        let this: &Self = self;
        // SAFETY: The VMA is private anonymous, `vmf->pmd` is the PMD entry covering the fault
        // address in its page tables (type invariants), and the block is the naturally aligned
        // one around the fault address, of an order an anonymous fault maps with PTEs, inside
        // the VMA, as just checked.
        unsafe { PteTableGuard::lock(this, addr, nr) }.ok_or(LockRefused::PmdChanged)
    }

    /// Maps and locks the PTE table of the fault (`pte_offset_map_lock()`), positioned at the
    /// block `folio` is to fill: the naturally aligned block of its order around the fault
    /// address, which lies inside the VMA (the folio's invariants), so that nothing is checked
    /// again here. Refused only with [`LockRefused::PmdChanged`].
    ///
    /// The guard borrows the fault mutably, as [`Self::lock_pte_block`]'s does.
    #[inline(always)]
    pub fn lock_folio_block(
        &mut self,
        folio: &AnonFolioPte<'a>,
    ) -> Result<PteTableGuard<'_, 'a>, LockRefused> {
        // The order is an anonymous PTE order (the folio's invariants).
        let (addr, nr) = aligned_block(self.address(), folio.order());
        let this: &Self = self;
        // SAFETY: The VMA is private anonymous, `vmf->pmd` is the PMD entry covering the fault
        // address in its page tables (type invariants), and the block is the naturally aligned
        // one around the fault address of an order an anonymous fault maps with PTEs, inside
        // the VMA: `folio` is of this fault (its brand) and `NewAnonFolio`'s invariants say so.
        unsafe { PteTableGuard::lock(this, addr, nr) }.ok_or(LockRefused::PmdChanged)
    }

    /// Hands a missing-page fault to userfaultfd (`handle_userfault(vmf, VM_UFFD_MISSING)`),
    /// with the proof, found under the PTE lock, that the VMA is registered for missing pages:
    /// 6.12's `handle_userfault()` does not check that itself, and the event must go only to a
    /// context that asked for it.
    ///
    /// This consumes the fault: userfaultfd may sleep and drop the mmap or VMA lock (returning
    /// `VM_FAULT_RETRY`), after which neither the VMA nor `vmf->pmd` may be used. No PTE lock
    /// can be held here, since every guard borrows the fault.
    ///
    /// What userfaultfd returns is the handler's outcome: no other can be made once the fault
    /// is consumed, so the handler cannot report the fault's lock still held when userfaultfd
    /// dropped it, or the reverse.
    #[inline]
    pub fn handle_userfault_missing(self, proof: UserfaultMissing<'a>) -> FaultOutcome<'a> {
        // The proof is of this fault (its brand) and says the VMA is registered for missing
        // pages (its invariants); the registration cannot change while the fault holds its lock.
        let _ = proof;
        // SAFETY: The fault is being handled with the VMA read-locked and no page table lock
        // held: every guard and mapping borrows `self`, which is moved here (a guard leaked with
        // `mem::forget` would still hold its lock; leaking guards is a bug this cannot see).
        // `self` is gone afterwards, so nothing uses the fault, and its outcome is this one.
        FaultOutcome::new(unsafe {
            bindings::mm_rs_handle_userfault(self.as_ptr(), bindings::MM_RS_VM_UFFD_MISSING)
        })
    }

    /// Ends the fault as handled: the entry was mapped, or the access is to be retried
    /// (another thread mapped it, or the page table changed). C's 0.
    #[inline]
    pub fn done(self) -> FaultOutcome<'a> {
        FaultOutcome::new(0)
    }

    /// Ends the fault with `VM_FAULT_SIGBUS`.
    #[inline]
    pub fn sigbus(self) -> FaultOutcome<'a> {
        FaultOutcome::new(bindings::MM_RS_VM_FAULT_SIGBUS)
    }

    /// Ends the fault with `VM_FAULT_OOM`: no memory for the folio, or no charge.
    #[inline]
    pub fn oom(self) -> FaultOutcome<'a> {
        FaultOutcome::new(bindings::MM_RS_VM_FAULT_OOM)
    }
}

/// The first address and the number of pages of the naturally aligned block of `order` around
/// `addr`, for an `order` that [`is_anon_pte_order`]: below `PMD_ORDER`, so that neither shift
/// overflows. Written once, so that the compiler sees the same block wherever it is computed.
#[inline(always)]
pub(super) fn aligned_block(addr: usize, order: u32) -> (usize, usize) {
    let nr = 1usize.wrapping_shl(order);
    let mask = nr.wrapping_shl(PAGE_SHIFT as u32).wrapping_sub(1);
    (addr & !mask, nr)
}

// `block()` hands out blocks of at most a table; the guard relies on it.
const _: () = assert!(PTRS_PER_PTE <= i32::MAX as usize);
