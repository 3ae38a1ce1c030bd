//! An on-off source (`app = "onoff"`): it alternates on periods, during which it offers an
//! unlimited backlog (a greedy source, as a bulk transfer), and off periods, during which it
//! offers nothing beyond what its transport has already taken. Period lengths are exponential
//! with the configured means, or fixed; they are drawn in order (on, off, on, …) from the
//! source's own random stream, so the schedule depends only on the seed and never on when the
//! transport asks. The source starts in an on period.
//!
//! The transport learns of each switch through [`OnOff::next_wakeup`] (two wake-ups per
//! cycle, none per packet).

use packetsim_kernel::{Dur, Rng, Time};

/// How period lengths are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeriodDist {
    /// Exponential with the configured mean.
    Exponential,
    /// Exactly the configured length.
    Fixed,
}

/// An on-off source's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnOff {
    /// Mean (or fixed) on period.
    on: Dur,
    /// Mean (or fixed) off period.
    off: Dur,
    dist: PeriodDist,
    rng: Rng,
    /// In an on period.
    is_on: bool,
    /// When the current period ends (`None`: not started).
    next: Option<Time>,
    /// Bytes the transport has taken.
    taken: u64,
    /// On periods begun so far.
    on_periods: u64,
}

impl OnOff {
    /// A source with these period means (or lengths), drawing from `rng`.
    pub fn new(on: Dur, off: Dur, dist: PeriodDist, rng: Rng) -> OnOff {
        debug_assert!(on > Dur::ZERO && off > Dur::ZERO);
        OnOff {
            on,
            off,
            dist,
            rng,
            is_on: false,
            next: None,
            taken: 0,
            on_periods: 0,
        }
    }

    fn draw(&mut self, mean: Dur) -> Dur {
        match self.dist {
            PeriodDist::Fixed => mean,
            // At least 1 ns, so that the schedule always advances.
            PeriodDist::Exponential => {
                let s = self.rng.exponential(mean.as_secs_f64());
                Dur(((s * 1e9).round() as u64).max(1))
            }
        }
    }

    /// The first on period begins at `now`.
    pub fn start(&mut self, now: Time) {
        self.is_on = true;
        self.on_periods = 1;
        let d = self.draw(self.on);
        self.next = Some(now + d);
    }

    /// Catches up with `now`: every period that ended at or before it switches.
    pub fn advance(&mut self, now: Time) {
        while let Some(t) = self.next.filter(|&t| t <= now) {
            self.is_on = !self.is_on;
            let mean = if self.is_on {
                self.on_periods += 1;
                self.on
            } else {
                self.off
            };
            let d = self.draw(mean);
            self.next = Some(t + d);
        }
    }

    /// When the current period ends.
    pub fn next_wakeup(&self) -> Option<Time> {
        self.next
    }

    /// Bytes offered from stream offset `from` on.
    pub fn available_from(&self, from: u64) -> u64 {
        if self.is_on {
            u64::MAX
        } else {
            self.taken.saturating_sub(from)
        }
    }

    /// The transport took `n` more bytes.
    pub fn take(&mut self, n: u64) {
        debug_assert!(self.is_on, "an off source offers nothing new");
        self.taken += n;
    }

    /// Bytes taken so far.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Whether the source is in an on period.
    pub fn is_on(&self) -> bool {
        self.is_on
    }

    /// On periods begun so far.
    pub fn on_periods(&self) -> u64 {
        self.on_periods
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Module doc: fixed periods alternate exactly, starting on; off offers only what was taken.
    #[test]
    fn fixed_periods_alternate_and_off_offers_nothing_new() {
        let ms = Time::from_millis;
        let mut s = OnOff::new(
            Dur::from_millis(30),
            Dur::from_millis(70),
            PeriodDist::Fixed,
            Rng::from_seed(1),
        );
        s.start(ms(10));
        assert!(s.is_on());
        assert_eq!(s.next_wakeup(), Some(ms(40)));
        assert_eq!(s.available_from(0), u64::MAX);
        s.take(5000);
        s.advance(ms(40));
        assert!(!s.is_on());
        assert_eq!(s.next_wakeup(), Some(ms(110)));
        assert_eq!((s.available_from(0), s.available_from(5000)), (5000, 0));
        // Catching up over several switches at once: on at 110, off at 140, on at 210.
        s.advance(ms(215));
        assert!(s.is_on());
        assert_eq!((s.next_wakeup(), s.on_periods()), (Some(ms(240)), 3));
    }

    // Module doc: exponential periods have the configured means (20,000 cycles: the standard
    // error of each mean is 0.7%, so within 3%) and depend only on the seed.
    #[test]
    fn exponential_periods_have_the_configured_means() {
        let mut s = OnOff::new(
            Dur::from_millis(10),
            Dur::from_millis(40),
            PeriodDist::Exponential,
            Rng::from_seed(5),
        );
        s.start(Time::ZERO);
        let (mut on, mut off) = (0.0, 0.0);
        let mut t = Time::ZERO;
        for _ in 0..40_000 {
            let end = s.next_wakeup().unwrap();
            let len = (end - t).as_secs_f64();
            if s.is_on() {
                on += len;
            } else {
                off += len;
            }
            t = end;
            s.advance(end);
        }
        let (on, off) = (on / 20_000.0, off / 20_000.0);
        assert!((on / 0.010 - 1.0).abs() < 0.03, "on {on}");
        assert!((off / 0.040 - 1.0).abs() < 0.03, "off {off}");
        let mut a = OnOff::new(
            Dur::from_millis(10),
            Dur::from_millis(40),
            PeriodDist::Exponential,
            Rng::from_seed(5),
        );
        a.start(Time::ZERO);
        let mut b = a.clone();
        a.advance(Time::from_millis(1000));
        b.advance(Time::from_millis(300));
        b.advance(Time::from_millis(1000));
        assert_eq!(
            a, b,
            "the schedule does not depend on when the transport asks"
        );
    }
}
