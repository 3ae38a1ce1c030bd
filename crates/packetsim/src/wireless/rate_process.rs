//! Rates that change over time on a radio direction: a cycle of scheduled steps and a
//! two-state (good/bad) Markov process.

use crate::ids::EgressId;
use crate::net::{Element, ElementCtx, LinkChange};
use packetsim_kernel::{Dur, Rate, Rng, Time};
use std::any::Any;

/// The steps of a rate cycle: `rates[0]` from 0, `rates[1]` from `every`, ... wrapping around,
/// up to (not including) `until`. Spec 2 BS-E5: `[0.4, 1.6] Mb/s` every 20 s.
pub fn cycle_steps(rates: &[Rate], every: Dur, until: Time) -> Vec<(Time, Rate)> {
    if rates.is_empty() || every == Dur::ZERO {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut t = Time::ZERO;
    let mut i = 0;
    while t < until {
        out.push((t, rates[i % rates.len()]));
        i += 1;
        t += every;
    }
    out
}

/// A two-state radio channel: mean sojourn times and rates of the good and the bad state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoStateRateConfig {
    /// Rate in the good state.
    pub good_rate: Rate,
    /// Rate in the bad state.
    pub bad_rate: Rate,
    /// Mean time in the good state.
    pub mean_good: Dur,
    /// Mean time in the bad state.
    pub mean_bad: Dur,
}

/// A node element that drives one or more radio directions' rates by a two-state Markov
/// process (exponential sojourn times), starting in the good state at time 0. Its random
/// numbers come from its own stream.
#[derive(Debug)]
pub struct TwoStateRate {
    cfg: TwoStateRateConfig,
    egresses: Vec<EgressId>,
    rng: Rng,
    good: bool,
    next: Time,
    /// Every state change: (time, now good).
    pub history: Vec<(Time, bool)>,
}

impl TwoStateRate {
    /// A process driving `egresses` (declare them variable at build), drawing from `rng`.
    pub fn new(cfg: TwoStateRateConfig, egresses: Vec<EgressId>, mut rng: Rng) -> TwoStateRate {
        let first = Time::ZERO + Dur::from_secs_f64(rng.exponential(cfg.mean_good.as_secs_f64()));
        TwoStateRate {
            cfg,
            egresses,
            rng,
            good: true,
            next: first,
            history: Vec::new(),
        }
    }
}

impl Element for TwoStateRate {
    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        while self.next <= now {
            self.good = !self.good;
            self.history.push((self.next, self.good));
            let (rate, mean) = if self.good {
                (self.cfg.good_rate, self.cfg.mean_good)
            } else {
                (self.cfg.bad_rate, self.cfg.mean_bad)
            };
            for &e in &self.egresses {
                ctx.link(e, LinkChange::Rate(rate));
            }
            // At least 1 ns, so the process always moves forward.
            let stay = Dur::from_secs_f64(self.rng.exponential(mean.as_secs_f64()))
                .max(Dur::from_nanos(1));
            self.next += stay;
        }
    }

    fn next_timeout(&self) -> Option<Time> {
        Some(self.next)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Request;

    // spec 2 §4 BS-E5: "0.4 → 1.6 → 0.4 Mb/s every 20 s".
    #[test]
    fn cycle_steps_alternate_every_period_until_the_end() {
        let r = [Rate::bps(400_000), Rate::bps(1_600_000)];
        let s = cycle_steps(&r, Dur::from_secs(20), Time::from_millis(60_000));
        assert_eq!(
            s,
            vec![
                (Time::ZERO, r[0]),
                (Time::from_millis(20_000), r[1]),
                (Time::from_millis(40_000), r[0]),
            ]
        );
        assert!(cycle_steps(&[], Dur::from_secs(1), Time::from_millis(5)).is_empty());
    }

    // The process alternates states at exponential times drawn from its own stream, and asks
    // for the state's rate on every driven direction at each change.
    #[test]
    fn two_state_rate_alternates_at_drawn_times_and_sets_each_direction() {
        let cfg = TwoStateRateConfig {
            good_rate: Rate::mbps(2),
            bad_rate: Rate::bps(100_000),
            mean_good: Dur::from_secs(4),
            mean_bad: Dur::from_secs(1),
        };
        let (e1, e2) = (EgressId(3), EgressId(4));
        let mut p = TwoStateRate::new(cfg, vec![e1, e2], Rng::from_seed(9));
        // The same draws, by hand.
        let mut rng = Rng::from_seed(9);
        let t1 = Time::ZERO + Dur::from_secs_f64(rng.exponential(4.0));
        let t2 = t1 + Dur::from_secs_f64(rng.exponential(1.0));
        assert_eq!(p.next_timeout(), Some(t1));
        let mut ctx = ElementCtx::default();
        p.on_timer(t1, &mut ctx);
        let bad = LinkChange::Rate(Rate::bps(100_000));
        assert_eq!(
            ctx.requests,
            vec![
                Request::Link {
                    egress: e1,
                    change: bad
                },
                Request::Link {
                    egress: e2,
                    change: bad
                },
            ]
        );
        assert_eq!(p.next_timeout(), Some(t2));
        let mut ctx = ElementCtx::default();
        p.on_timer(t2, &mut ctx);
        assert_eq!(
            ctx.requests[0],
            Request::Link {
                egress: e1,
                change: LinkChange::Rate(Rate::mbps(2))
            }
        );
        assert_eq!(p.history, vec![(t1, false), (t2, true)]);
    }
}
