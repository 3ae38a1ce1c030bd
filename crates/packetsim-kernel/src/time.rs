//! Simulated time as an integer count of nanoseconds. There is no floating-point clock:
//! conversions to and from seconds happen only at the edges (configuration and reports).

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

const NS_PER_S: u64 = 1_000_000_000;

impl Time {
    /// The start of every run.
    pub const ZERO: Time = Time(0);
    /// Later than any event of a real run.
    pub const MAX: Time = Time(u64::MAX);

    /// From whole nanoseconds.
    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    /// From whole microseconds.
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000)
    }
    /// From whole milliseconds.
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    /// From seconds given as a float, rounded to the nearest nanosecond.
    pub fn from_secs_f64(s: f64) -> Time {
        Time(Dur::from_secs_f64(s).0)
    }
    /// Nanoseconds since the start of the run.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds since the start of the run, as a float (for reports only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// The span from `earlier` to `self`, or zero when `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    /// No time at all.
    pub const ZERO: Dur = Dur(0);
    /// Longer than any run.
    pub const MAX: Dur = Dur(u64::MAX);

    /// From whole nanoseconds.
    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    /// From whole microseconds.
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    /// From whole milliseconds.
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NS_PER_S)
    }
    /// From seconds given as a float, rounded to the nearest nanosecond; negative becomes zero.
    pub fn from_secs_f64(s: f64) -> Dur {
        if s <= 0.0 || s.is_nan() {
            Dur(0)
        } else {
            Dur((s * NS_PER_S as f64).round() as u64)
        }
    }
    /// Nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds as a float (for reports and estimators only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Doubled, saturating.
    pub fn double(self) -> Dur {
        Dur(self.0.saturating_mul(2))
    }
}

impl Rate {
    /// From bits per second.
    pub const fn bps(b: u64) -> Rate {
        Rate(b)
    }
    /// From megabits per second (10^6 bit/s).
    pub const fn mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    /// Bits per second.
    pub const fn as_bps(self) -> u64 {
        self.0
    }
    /// The time to serialise `bytes` bytes at this rate, rounded up to a whole nanosecond.
    /// A zero rate means "never": [`Dur::MAX`].
    pub fn tx_time(self, bytes: u32) -> Dur {
        if self.0 == 0 {
            return Dur::MAX;
        }
        let bits = bytes as u128 * 8 * NS_PER_S as u128;
        Dur(bits.div_ceil(self.0 as u128) as u64)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    /// Panics in debug builds when `rhs` is later than `self`.
    fn sub(self, rhs: Time) -> Dur {
        debug_assert!(self >= rhs, "time went backwards: {self} - {rhs}");
        Dur(self.0.saturating_sub(rhs.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}
impl Mul<u64> for Dur {
    type Output = Dur;
    fn mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= NS_PER_S {
            write!(f, "{}s", self.as_secs_f64())
        } else if self.0 >= 1_000_000 {
            write!(f, "{}ms", self.0 as f64 / 1e6)
        } else if self.0 >= 1_000 {
            write!(f, "{}us", self.0 as f64 / 1e3)
        } else {
            write!(f, "{}ns", self.0)
        }
    }
}
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b >= 1_000_000_000 && b.is_multiple_of(1_000_000) {
            write!(f, "{}Gbps", b as f64 / 1e9)
        } else if b >= 1_000_000 {
            write!(f, "{}Mbps", b as f64 / 1e6)
        } else if b >= 1_000 {
            write!(f, "{}kbps", b as f64 / 1e3)
        } else {
            write!(f, "{b}bps")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_rounds_up_to_whole_nanoseconds() {
        // 1500 B at 2 Mb/s is exactly 6 ms.
        assert_eq!(Rate::mbps(2).tx_time(1500), Dur::from_millis(6));
        // 1 B at 3 b/s is 8/3 s, rounded up.
        assert_eq!(Rate::bps(3).tx_time(1), Dur(2_666_666_667));
        assert_eq!(Rate::bps(0).tx_time(1), Dur::MAX);
    }

    #[test]
    fn seconds_round_trip_to_the_nanosecond() {
        assert_eq!(Time::from_secs_f64(0.035), Time::from_millis(35));
        assert_eq!(Dur::from_secs_f64(-1.0), Dur::ZERO);
        assert_eq!(Time::from_millis(1500).as_secs_f64(), 1.5);
    }

    #[test]
    fn time_arithmetic_saturates_instead_of_wrapping() {
        assert_eq!(Time::MAX + Dur(5), Time::MAX);
        assert_eq!(Dur(3) - Dur(5), Dur::ZERO);
        assert_eq!(Time(10).saturating_since(Time(20)), Dur::ZERO);
    }
}
