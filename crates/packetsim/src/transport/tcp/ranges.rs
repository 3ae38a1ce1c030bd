//! A set of disjoint, sorted, non-touching byte ranges `[left, right)` in sequence space.
//! Used by the receiver (out-of-order data, RFC 2018 blocks) and by the SACK sender
//! (scoreboard, RFC 6675). Stored in a `VecDeque` so that trimming below the cumulative ACK
//! is O(1) per removed range; lookups are binary searches. The deque keeps its capacity, so
//! the steady state allocates nothing.
//!
//! Invariant: every range is non-empty, ranges are sorted, and consecutive ranges neither
//! overlap nor touch (touching ranges are merged). All ranges lie within 2^31 bytes of each
//! other, so wrap-aware [`Seq`] ordering is valid.

use crate::packet::Seq;
use std::collections::VecDeque;

/// Disjoint sorted byte ranges with their total length.
#[derive(Clone, Debug, Default)]
pub struct RangeSet {
    ranges: VecDeque<(Seq, Seq)>,
    total: u32,
}

impl RangeSet {
    /// An empty set (no allocation until the first insert).
    pub fn new() -> RangeSet {
        RangeSet::default()
    }
    /// Total bytes covered.
    pub fn total(&self) -> u32 {
        self.total
    }
    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
    /// The ranges, lowest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (Seq, Seq)> + '_ {
        self.ranges.iter().copied()
    }
    /// The lowest range.
    pub fn first(&self) -> Option<(Seq, Seq)> {
        self.ranges.front().copied()
    }
    /// The highest range.
    pub fn last(&self) -> Option<(Seq, Seq)> {
        self.ranges.back().copied()
    }
    /// Removes everything.
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.total = 0;
    }

    /// Adds `[l, r)`, merging with overlapping or touching ranges; returns the bytes that were
    /// not already covered.
    pub fn insert(&mut self, l: Seq, r: Seq) -> u32 {
        if l >= r {
            return 0;
        }
        // At or above the start of the highest range, the common case (segments arriving in
        // order above a hole, SACK blocks growing at their right end): no earlier range can
        // touch `[l, r)`, so no search. The same result as the general path below.
        match self.ranges.back_mut() {
            None => {}
            Some(last) if l > last.1 => {}
            Some(last) if l >= last.0 => {
                let added = r.max(last.1) - last.1;
                last.1 = last.1.max(r);
                self.total += added;
                self.debug_check();
                return added;
            }
            Some(_) => return self.insert_search(l, r),
        }
        self.ranges.push_back((l, r));
        self.total += r - l;
        self.debug_check();
        r - l
    }

    /// [`RangeSet::insert`] of a non-empty `[l, r)` that starts below the highest range.
    fn insert_search(&mut self, l: Seq, r: Seq) -> u32 {
        // First range that ends at or after l (may touch or overlap).
        let i = self.ranges.partition_point(|rg| rg.1 < l);
        // First range that starts strictly after r.
        let j = self.ranges.partition_point(|rg| rg.0 <= r);
        let added = if i == j {
            self.ranges.insert(i, (l, r));
            r - l
        } else {
            let new_l = l.min(self.ranges[i].0);
            let new_r = r.max(self.ranges[j - 1].1);
            let covered: u32 = (i..j).map(|k| self.ranges[k].1 - self.ranges[k].0).sum();
            self.ranges[i] = (new_l, new_r);
            self.ranges.drain(i + 1..j);
            (new_r - new_l) - covered
        };
        self.total += added;
        self.debug_check();
        added
    }

    /// Removes all bytes below `x`; returns the bytes removed.
    pub fn remove_below(&mut self, x: Seq) -> u32 {
        let mut removed = 0;
        while let Some(&(l, r)) = self.ranges.front() {
            if r <= x {
                removed += r - l;
                self.ranges.pop_front();
            } else {
                if l < x {
                    removed += x - l;
                    self.ranges[0].0 = x;
                }
                break;
            }
        }
        self.total -= removed;
        removed
    }

    /// The range containing byte `x`, if any.
    pub fn containing(&self, x: Seq) -> Option<(Seq, Seq)> {
        let i = self.ranges.partition_point(|rg| rg.1 <= x);
        match self.ranges.get(i) {
            Some(&(l, r)) if l <= x && x < r => Some((l, r)),
            _ => None,
        }
    }

    /// The first range that starts after byte `x` (`left > x`).
    pub fn next_after(&self, x: Seq) -> Option<(Seq, Seq)> {
        let i = self.ranges.partition_point(|rg| rg.0 <= x);
        self.ranges.get(i).copied()
    }

    /// Bytes covered below `x` (a scan from the low end; cheap when `x` is near it).
    pub fn covered_below(&self, x: Seq) -> u32 {
        let mut n = 0;
        for &(l, r) in &self.ranges {
            if l >= x {
                break;
            }
            n += r.min(x) - l;
        }
        n
    }

    fn debug_check(&self) {
        #[cfg(debug_assertions)]
        {
            let mut sum = 0;
            let mut prev: Option<Seq> = None;
            for &(l, r) in &self.ranges {
                debug_assert!(l < r, "empty range {l}..{r}");
                if let Some(p) = prev {
                    debug_assert!(p < l, "ranges overlap or touch at {p}/{l}");
                }
                prev = Some(r);
                sum += r - l;
            }
            debug_assert_eq!(sum, self.total, "range total out of date");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_overlapping_and_touching_ranges() {
        let mut s = RangeSet::new();
        assert_eq!(s.insert(Seq(10), Seq(20)), 10);
        assert_eq!(s.insert(Seq(30), Seq(40)), 10);
        assert_eq!(s.insert(Seq(20), Seq(30)), 10);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(Seq(10), Seq(40))]);
        assert_eq!(s.insert(Seq(5), Seq(45)), 10);
        assert_eq!(s.total(), 40);
        assert_eq!(s.insert(Seq(50), Seq(60)), 10);
        assert_eq!(s.containing(Seq(55)), Some((Seq(50), Seq(60))));
        assert_eq!(s.containing(Seq(47)), None);
        assert_eq!(s.next_after(Seq(47)), Some((Seq(50), Seq(60))));
        assert_eq!(s.covered_below(Seq(55)), 45);
        assert_eq!(s.remove_below(Seq(52)), 42);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(Seq(52), Seq(60))]);
        assert_eq!(s.total(), 8);
    }

    /// Inserts at and above the start of the highest range (the path without a search):
    /// appended apart, merged when touching or overlapping, nothing added when covered; and
    /// each result equals the general path's, checked against a brute-force byte set.
    #[test]
    fn inserts_at_the_top_merge_as_anywhere() {
        let mut s = RangeSet::new();
        assert_eq!(s.insert(Seq(100), Seq(110)), 10);
        assert_eq!(s.insert(Seq(120), Seq(130)), 10, "apart: a new range");
        assert_eq!(s.insert(Seq(130), Seq(140)), 10, "touching: merged");
        assert_eq!(
            s.insert(Seq(125), Seq(150)),
            10,
            "overlapping the top range"
        );
        assert_eq!(s.insert(Seq(121), Seq(149)), 0, "inside the top range");
        assert_eq!(s.insert(Seq(120), Seq(120)), 0, "empty");
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![(Seq(100), Seq(110)), (Seq(120), Seq(150))]
        );
        assert_eq!(s.total(), 40);
        // Every insert of a small sequence, top or not, against a set of bytes.
        let mut s = RangeSet::new();
        let mut bytes = std::collections::BTreeSet::new();
        let mut x: u32 = 7;
        for _ in 0..2000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let l = (x >> 8) % 300;
            let len = (x >> 20) % 12;
            let new = (l..l + len).filter(|b| bytes.insert(*b)).count() as u32;
            assert_eq!(s.insert(Seq(l), Seq(l + len)), new, "insert {l}+{len}");
            assert_eq!(s.total() as usize, bytes.len());
            if x % 97 == 0 {
                let cut = (x >> 4) % 300;
                s.remove_below(Seq(cut));
                bytes.retain(|b| *b >= cut);
            }
        }
        // The ranges are the maximal runs of the byte set.
        let mut runs: Vec<(Seq, Seq)> = Vec::new();
        for &b in &bytes {
            match runs.last_mut() {
                Some(r) if r.1 == Seq(b) => r.1 = Seq(b + 1),
                _ => runs.push((Seq(b), Seq(b + 1))),
            }
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), runs);
    }
}
