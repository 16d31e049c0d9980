// SPDX-License-Identifier: GPL-2.0

//! Sets of folio orders.
//!
//! C's mTHP code passes the orders it may use as a bitmask in an `unsigned long` (bit `n` set:
//! order `n` allowed) and walks it from the highest order down with `highest_order()` and
//! `next_order()`. [`OrderSet`] is that bitmask with the walk as an iterator.
//!
//! C header: [`include/linux/huge_mm.h`](srctree/include/linux/huge_mm.h)

use crate::ffi::c_ulong;
use crate::page::PAGE_SHIFT;

/// The number of orders an [`OrderSet`] can hold (the bits of an `unsigned long`).
pub const MAX_ORDERS: u32 = c_ulong::BITS;

/// A set of folio orders, as C's `unsigned long orders` bitmask.
///
/// # Examples
///
/// ```
/// use kernel::mm::order::OrderSet;
///
/// let orders = OrderSet::from_bits(0b1_0100);
/// assert_eq!(orders.highest(), Some(4));
/// assert!(orders.contains(2) && !orders.contains(3));
/// assert_eq!(orders.without(4).highest(), Some(2));
/// assert_eq!(OrderSet::EMPTY.highest(), None);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
#[repr(transparent)]
pub struct OrderSet(c_ulong);

impl OrderSet {
    /// The empty set.
    pub const EMPTY: Self = Self(0);

    /// Wraps a C order bitmask.
    #[inline]
    pub const fn from_bits(bits: c_ulong) -> Self {
        Self(bits)
    }

    /// Returns the C order bitmask.
    #[inline]
    pub const fn bits(self) -> c_ulong {
        self.0
    }

    /// The orders `lo..=hi` (empty if `lo > hi`; orders at or above [`MAX_ORDERS`] are ignored).
    ///
    /// ```
    /// use kernel::mm::order::OrderSet;
    ///
    /// assert_eq!(OrderSet::range(2, 9).bits(), 0x3fc);
    /// assert_eq!(OrderSet::range(3, 2), OrderSet::EMPTY);
    /// assert_eq!(OrderSet::range(0, 200).bits(), !0);
    /// ```
    #[inline]
    pub const fn range(lo: u32, hi: u32) -> Self {
        if lo > hi || lo >= MAX_ORDERS {
            return Self::EMPTY;
        }
        let top = if hi >= MAX_ORDERS - 1 {
            !0
        } else {
            (1 << (hi + 1)) - 1
        };
        Self(top & !((1 << lo) - 1))
    }

    /// The set holding `order` alone (empty if `order` is at or above [`MAX_ORDERS`]).
    #[inline]
    pub const fn single(order: u32) -> Self {
        Self::range(order, order)
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `order` is in the set.
    #[inline]
    pub const fn contains(self, order: u32) -> bool {
        order < MAX_ORDERS && self.0 & (1 << order) != 0
    }

    /// The orders in both sets.
    #[inline]
    pub const fn and(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    /// The orders in either set.
    #[inline]
    pub const fn or(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The set without `order`.
    #[inline]
    pub const fn without(self, order: u32) -> Self {
        // `checked_shl` is `None` at or above `MAX_ORDERS`, which removes nothing.
        match (1 as c_ulong).checked_shl(order) {
            Some(bit) => Self(self.0 & !bit),
            None => self,
        }
    }

    /// The highest order in the set, as C's `highest_order()` (which returns -1 for none).
    #[inline]
    pub const fn highest(self) -> Option<u32> {
        match self.0.checked_ilog2() {
            Some(order) => Some(order),
            None => None,
        }
    }

    /// The set of `order` and every order below it that is in this set.
    ///
    /// ```
    /// use kernel::mm::order::OrderSet;
    ///
    /// let orders = OrderSet::from_bits(0b1011_0100);
    /// assert_eq!(orders.at_or_below(5).bits(), 0b0011_0100);
    /// ```
    #[inline]
    pub const fn at_or_below(self, order: u32) -> Self {
        // The orders below `order + 1`; all of them at or above `MAX_ORDERS - 1`.
        match (2 as c_ulong).checked_shl(order) {
            Some(top) if order < MAX_ORDERS - 1 => Self(self.0 & top.wrapping_sub(1)),
            _ => self,
        }
    }

    /// Iterates from the highest order down, as C's `highest_order()`/`next_order()` loop.
    ///
    /// ```
    /// use kernel::mm::order::OrderSet;
    ///
    /// let mut it = OrderSet::from_bits(0b1001_0100).iter_desc();
    /// assert_eq!((it.next(), it.next(), it.next(), it.next()), (Some(7), Some(4), Some(2), None));
    /// ```
    #[inline]
    pub const fn iter_desc(self) -> Descending {
        Descending(self)
    }
}

/// Iterator over an [`OrderSet`] from the highest order down.
#[derive(Clone, Copy, Debug)]
pub struct Descending(OrderSet);

impl Descending {
    /// The orders not yet returned.
    #[inline]
    pub const fn remaining(&self) -> OrderSet {
        self.0
    }
}

impl Iterator for Descending {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let order = self.0.highest()?;
        self.0 = self.0.without(order);
        Some(order)
    }
}

/// The bytes a folio of `order` spans, or [`None`] if that does not fit in a `usize`.
///
/// ```
/// use kernel::mm::order::folio_size;
/// use kernel::page::PAGE_SIZE;
///
/// assert_eq!(folio_size(0), Some(PAGE_SIZE));
/// assert_eq!(folio_size(4), Some(16 * PAGE_SIZE));
/// assert_eq!(folio_size(usize::BITS), None);
/// ```
#[inline]
pub const fn folio_size(order: u32) -> Option<usize> {
    // PAGE_SHIFT is far below usize::BITS, so the addition cannot overflow.
    let shift = order.saturating_add(PAGE_SHIFT as u32);
    if shift >= usize::BITS {
        None
    } else {
        Some(1 << shift)
    }
}

/// `addr` aligned down to a folio of `order`, as C's `ALIGN_DOWN(addr, PAGE_SIZE << order)`.
///
/// Returns [`None`] if a folio of `order` does not fit in the address space.
///
/// ```
/// use kernel::mm::order::align_down;
/// use kernel::page::PAGE_SIZE;
///
/// assert_eq!(align_down(17 * PAGE_SIZE + 5, 4), Some(16 * PAGE_SIZE));
/// assert_eq!(align_down(usize::MAX, 0), Some(usize::MAX & !(PAGE_SIZE - 1)));
/// ```
#[inline]
pub const fn align_down(addr: usize, order: u32) -> Option<usize> {
    match folio_size(order) {
        Some(size) => Some(addr & !(size - 1)),
        None => None,
    }
}
