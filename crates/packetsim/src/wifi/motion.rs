//! Motion and beacon-driven handoff (issue 34 item 2).
//!
//! - [`Path`]: a mobile host moving along waypoints at a constant speed, once or back and
//!   forth (BS1 → BS4 → BS1 …, spec 5 §2.2's ping-pong, now produced by motion); ns-2's
//!   `setdest` moves a node in a straight line at a speed, and a path is a chain of them.
//! - [`Beacons`]: each base station broadcasts a beacon every `interval`, starting at its own
//!   offset (so that the base stations' beacons do not all fall in the same instant).
//! - [`HandoffMonitor`]: the mobile's rule, sans-IO. It is fed every beacon it decodes with the
//!   received power and answers with a handoff decision. The rule (Cellular IP's: "the mobile
//!   host listens to the beacons of the base stations and initiates a handoff on their signal
//!   strength", Campbell et al., IEEE Personal Communications 2000; CIMS's exact test could
//!   not be read here, so this is our statement of it, documented in
//!   docs/scenario-format.md):
//!   1. a beacon from another base station received with power above the current one's last
//!      beacon power times `hysteresis` (linear, default 1: any stronger beacon) hands off to
//!      it;
//!   2. when `lost_after` beacon intervals (default 3) pass without a beacon from the current
//!      base station, the mobile is detached and attaches to the next base station it hears.
//!
//!   The detection delay follows: a handoff happens at the first beacon after the new base
//!   station becomes stronger (up to one interval late), and a lost base station is noticed
//!   `lost_after` intervals after its last beacon.

use super::propagation::Pos;
use packetsim_kernel::{Dur, Time};

/// How a path is followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Traversal {
    /// To the last waypoint, then stop there.
    #[default]
    Once,
    /// To the last waypoint, back to the first, and so on.
    PingPong,
}

/// A mobile host's motion: waypoints at a constant speed from `start`.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// The waypoints, in order (at least one).
    pub waypoints: Vec<Pos>,
    /// Speed, metres per second.
    pub speed: f64,
    /// When it leaves the first waypoint.
    pub start: Time,
    /// Once or back and forth.
    pub traversal: Traversal,
}

impl Path {
    /// Length of one pass, metres.
    pub fn length(&self) -> f64 {
        self.waypoints.windows(2).map(|w| w[0].dist(w[1])).sum()
    }

    /// Position at `t`.
    pub fn position(&self, t: Time) -> Pos {
        let first = self.waypoints[0];
        let len = self.length();
        if t <= self.start || len == 0.0 || self.speed <= 0.0 {
            return first;
        }
        let mut s = self.speed * (t - self.start).as_secs_f64();
        match self.traversal {
            Traversal::Once => s = s.min(len),
            Traversal::PingPong => {
                s %= 2.0 * len;
                if s > len {
                    s = 2.0 * len - s;
                }
            }
        }
        for w in self.waypoints.windows(2) {
            let d = w[0].dist(w[1]);
            if s <= d {
                let f = if d == 0.0 { 0.0 } else { s / d };
                return Pos {
                    x: w[0].x + f * (w[1].x - w[0].x),
                    y: w[0].y + f * (w[1].y - w[0].y),
                };
            }
            s -= d;
        }
        *self.waypoints.last().expect("a path has a waypoint")
    }
}

/// Beacon timing of the base stations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beacons {
    /// Time between two beacons of one base station.
    pub interval: Dur,
    /// Beacon payload bytes (sent as a broadcast data frame on the channel).
    pub bytes: u32,
}

impl Default for Beacons {
    fn default() -> Self {
        Beacons {
            interval: Dur::from_millis(100),
            bytes: 50,
        }
    }
}

impl Beacons {
    /// The `k`th beacon time of base station `i` of `n`: staggered by `interval / n`.
    pub fn at(&self, i: usize, n: usize, k: u64) -> Time {
        let off = self.interval.as_nanos() / n.max(1) as u64 * i as u64;
        Time::from_nanos(off + k * self.interval.as_nanos())
    }
}

/// The handoff rule's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandoffConfig {
    /// A beacon must be this many times stronger than the current base station's (linear).
    pub hysteresis: f64,
    /// Beacon intervals without the current base station's beacon before it counts as lost.
    pub lost_after: u32,
    /// The beacon interval.
    pub interval: Dur,
}

impl Default for HandoffConfig {
    fn default() -> Self {
        HandoffConfig {
            hysteresis: 1.0,
            lost_after: 3,
            interval: Beacons::default().interval,
        }
    }
}

/// What the monitor decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Attach to base station `to` (from `from`, if attached).
    Handoff {
        /// The base station left.
        from: Option<usize>,
        /// The base station joined.
        to: usize,
    },
    /// The current base station was lost; the mobile is detached.
    Lost {
        /// The base station lost.
        from: usize,
    },
}

/// The mobile's handoff rule, fed beacons (sans-IO).
#[derive(Clone, Debug)]
pub struct HandoffMonitor {
    cfg: HandoffConfig,
    current: Option<usize>,
    /// The current base station's last beacon: when, and its power (watts).
    last: Option<(Time, f64)>,
}

impl HandoffMonitor {
    /// A detached mobile.
    pub fn new(cfg: HandoffConfig) -> HandoffMonitor {
        HandoffMonitor {
            cfg,
            current: None,
            last: None,
        }
    }

    /// The base station it is attached to.
    pub fn current(&self) -> Option<usize> {
        self.current
    }

    /// When [`HandoffMonitor::on_timer`] must run: the loss deadline of the current base station.
    pub fn next_timeout(&self) -> Option<Time> {
        let (t, _) = self.last?;
        Some(t + self.cfg.interval * self.cfg.lost_after as u64)
    }

    /// The loss deadline passed.
    pub fn on_timer(&mut self, now: Time) -> Option<Decision> {
        let due = self.next_timeout()?;
        if now < due {
            return None;
        }
        let from = self
            .current
            .take()
            .expect("a deadline without a base station");
        self.last = None;
        Some(Decision::Lost { from })
    }

    /// A beacon of base station `bs` was decoded at `now` with power `power` watts.
    pub fn on_beacon(&mut self, now: Time, bs: usize, power: f64) -> Option<Decision> {
        if self.on_timer(now).is_some() {
            // The loss deadline passed before this beacon (the caller did not run the timer):
            // the loss is folded into this attach.
            self.current = Some(bs);
            self.last = Some((now, power));
            return Some(Decision::Handoff { from: None, to: bs });
        }
        match self.current {
            None => {
                self.current = Some(bs);
                self.last = Some((now, power));
                Some(Decision::Handoff { from: None, to: bs })
            }
            Some(c) if c == bs => {
                self.last = Some((now, power));
                None
            }
            Some(c) => {
                let (_, cur) = self.last.expect("attached with a last beacon");
                if power > cur * self.cfg.hysteresis {
                    self.current = Some(bs);
                    self.last = Some((now, power));
                    Some(Decision::Handoff {
                        from: Some(c),
                        to: bs,
                    })
                } else {
                    None
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::propagation::Propagation;

    fn p(x: f64) -> Pos {
        Pos { x, y: 0.0 }
    }

    #[test]
    fn path_ping_pong_positions() {
        let path = Path {
            waypoints: vec![p(0.0), p(100.0), p(300.0)],
            speed: 10.0,
            start: Time::from_millis(1000),
            traversal: Traversal::PingPong,
        };
        assert_eq!(path.length(), 300.0);
        assert_eq!(path.position(Time::ZERO), p(0.0));
        assert_eq!(path.position(Time::from_millis(6000)), p(50.0));
        assert_eq!(path.position(Time::from_millis(21000)), p(200.0));
        assert_eq!(path.position(Time::from_millis(31000)), p(300.0));
        // 400 m travelled: 300 out, 100 back.
        assert_eq!(path.position(Time::from_millis(41000)), p(200.0));
        assert_eq!(path.position(Time::from_millis(61000)), p(0.0));
        let once = Path {
            traversal: Traversal::Once,
            ..path
        };
        assert_eq!(once.position(Time::from_millis(41000)), p(300.0));
    }

    #[test]
    fn beacons_staggered_per_base_station() {
        let b = Beacons::default();
        assert_eq!(b.at(0, 4, 0), Time::ZERO);
        assert_eq!(b.at(1, 4, 0), Time::from_millis(25));
        assert_eq!(b.at(3, 4, 2), Time::from_millis(275));
    }

    // The rule of the module doc, step 1: a stronger beacon hands off at once; a weaker one
    // (or one under the hysteresis) does not.
    #[test]
    fn attached_stronger_beacon_hands_off_weaker_does_not() {
        let mut m = HandoffMonitor::new(HandoffConfig {
            hysteresis: 2.0,
            ..HandoffConfig::default()
        });
        let t = Time::from_millis;
        assert_eq!(
            m.on_beacon(t(0), 0, 1e-9),
            Some(Decision::Handoff { from: None, to: 0 })
        );
        assert_eq!(m.on_beacon(t(25), 1, 1.5e-9), None, "under the hysteresis");
        assert_eq!(m.on_beacon(t(100), 0, 1e-9), None);
        assert_eq!(
            m.on_beacon(t(125), 1, 2.5e-9),
            Some(Decision::Handoff {
                from: Some(0),
                to: 1
            })
        );
        assert_eq!(m.current(), Some(1));
    }

    // Step 2: lost after 3 intervals without the current base station's beacon.
    #[test]
    fn attached_silent_base_station_lost_after_three_intervals() {
        let mut m = HandoffMonitor::new(HandoffConfig::default());
        let t = Time::from_millis;
        m.on_beacon(t(10), 0, 1e-9);
        assert_eq!(m.next_timeout(), Some(t(310)));
        assert_eq!(m.on_timer(t(309)), None);
        assert_eq!(m.on_timer(t(310)), Some(Decision::Lost { from: 0 }));
        assert_eq!(m.current(), None);
        assert_eq!(
            m.on_beacon(t(335), 1, 1e-12),
            Some(Decision::Handoff { from: None, to: 1 })
        );
    }

    // Motion + propagation + rule: a mobile at 20 m/s from BS0 (x = 0) to BS1 (x = 400 m)
    // hands off at the first beacon of BS1 after the midpoint (200 m, t = 10 s), i.e. with a
    // detection delay under one beacon interval.
    #[test]
    fn moving_mobile_hands_off_after_midpoint_within_one_interval() {
        let prop = Propagation::default();
        let bss = [p(0.0), p(400.0)];
        let path = Path {
            waypoints: vec![p(0.0), p(400.0)],
            speed: 20.0,
            start: Time::ZERO,
            traversal: Traversal::Once,
        };
        let b = Beacons::default();
        let mut m = HandoffMonitor::new(HandoffConfig::default());
        let mut handoff = None;
        'outer: for k in 0..300u64 {
            for (i, bs) in bss.iter().enumerate() {
                let at = b.at(i, 2, k);
                let pr = prop.received_power(path.position(at).dist(*bs));
                if pr < prop.rx_threshold {
                    continue;
                }
                if let Some(Decision::Handoff {
                    from: Some(0),
                    to: 1,
                }) = m.on_beacon(at, i, pr)
                {
                    handoff = Some(at);
                    break 'outer;
                }
            }
        }
        let at = handoff.expect("a handoff");
        assert!(at > Time::from_millis(10_000), "{at}");
        assert!(at <= Time::from_millis(10_100), "{at}");
    }
}
