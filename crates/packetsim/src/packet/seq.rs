//! TCP sequence numbers: 32-bit, compared modulo 2^32 (RFC 793 §3.3). Never compare raw u32s.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A wrap-aware 32-bit sequence number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Seq(pub u32);

impl Seq {
    /// The signed distance from `other` to `self` (positive when `self` is later).
    pub fn distance(self, other: Seq) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }
    /// The later of two sequence numbers.
    pub fn max(self, other: Seq) -> Seq {
        if self >= other {
            self
        } else {
            other
        }
    }
    /// The earlier of two sequence numbers.
    pub fn min(self, other: Seq) -> Seq {
        if self <= other {
            self
        } else {
            other
        }
    }
}

impl PartialOrd for Seq {
    fn partial_cmp(&self, other: &Seq) -> Option<Ordering> {
        Some(self.distance(*other).cmp(&0))
    }
}

impl Add<u32> for Seq {
    type Output = Seq;
    fn add(self, n: u32) -> Seq {
        Seq(self.0.wrapping_add(n))
    }
}
impl AddAssign<u32> for Seq {
    fn add_assign(&mut self, n: u32) {
        self.0 = self.0.wrapping_add(n);
    }
}
impl Sub<Seq> for Seq {
    type Output = u32;
    /// The number of bytes from `rhs` up to `self`; `rhs` must not be later than `self`.
    fn sub(self, rhs: Seq) -> u32 {
        let d = self.distance(rhs);
        debug_assert!(d >= 0, "sequence subtraction went negative: {self} - {rhs}");
        d.max(0) as u32
    }
}
impl fmt::Display for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_wraps_around() {
        let a = Seq(u32::MAX - 10);
        let b = a + 20;
        assert!(b > a);
        assert_eq!(b - a, 20);
        assert_eq!(b.0, 9);
        assert_eq!(a.distance(b), -20);
    }
}
