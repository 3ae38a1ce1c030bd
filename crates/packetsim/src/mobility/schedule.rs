//! The handoff model (spec 5 §2.2): which base station a mobile host is attached to and hears
//! at each instant, from a list of handoffs, a layer-2 gap and an optional lingering of the old
//! cell (HAWAII UNF's `S_unf`, spec 5 §2.4).

use packetsim_kernel::{Dur, Time};
use std::sync::{Arc, RwLock, RwLockReadGuard};

/// One handoff: at `at` the mobile leaves base station `from` and, after the gap, attaches to
/// `to` (indices into the domain's base stations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handoff {
    /// When the mobile stops hearing `from` (`t_k`).
    pub at: Time,
    /// The base station it leaves.
    pub from: usize,
    /// The base station it attaches to at `at + gap`.
    pub to: usize,
}

/// What a base station's radio sees of one mobile at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listen {
    /// The mobile hears this base station: it may transmit.
    Hears,
    /// The mobile will attach here at its next handoff and does not hear it yet (Cellular IP's
    /// semisoft window, the layer-2 gap).
    PreAttach,
    /// The mobile left (or never came): it stopped hearing this base station at `since`.
    Departed {
        /// When the mobile stopped hearing it (time 0 if it never did).
        since: Time,
    },
}

/// A mobile host's movement: where it starts, its handoffs in time order, the layer-2 gap
/// `g` and how long it still hears the old base station after leaving it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandoffSchedule {
    /// The base station it is attached to at time 0.
    pub first: usize,
    /// Handoffs, in time order.
    pub handoffs: Vec<Handoff>,
    /// Layer-2 gap `g`: attached to nobody during `[t_k, t_k + g)`.
    pub gap: Dur,
    /// After `t_k` the mobile still hears the old base station this long (UNF's `S_unf`; 0
    /// for every other protocol).
    pub linger: Dur,
    /// The new base station is "pre-attach" from `t_k - lead` (Cellular IP semisoft: `S`, when
    /// its bicast copies start to arrive; 0 for every other protocol). Before that a base
    /// station the mobile left is still departed, even if it is the next one (ping-pong).
    pub lead: Dur,
    /// Per handoff, detached time beyond `gap` (empty: none): a mobile that lost its base
    /// station before it heard another (the beacon rule's loss, `mobility::radio`) is
    /// attached to nobody from `at` to `at + gap + extra_gap[k]`.
    pub extra_gap: Vec<Dur>,
}

/// A mobile's schedule as the domain's elements (its host, every domain node) share it: fixed
/// before the run (the scheduled mode, `radio::beacon_schedule`), or grown during the run by
/// the 802.11 air as the mobile's beacon rule decides (`radio`, beacons on the air). Growth is
/// append-only: a handoff is pushed when it is decided, at or after the decision (a loss of
/// the current base station is pushed when the mobile attaches again, at the loss time with
/// the detached time as its extra gap, as [`HandoffSchedule::extra_gap`] describes), so what
/// an element read of it for an instant before the push stays what happened.
#[derive(Clone, Debug)]
pub struct SharedSchedule(Arc<RwLock<HandoffSchedule>>);

impl SharedSchedule {
    /// Shares `s`.
    pub fn new(s: HandoffSchedule) -> SharedSchedule {
        SharedSchedule(Arc::new(RwLock::new(s)))
    }

    /// The schedule as it is now.
    pub fn read(&self) -> RwLockReadGuard<'_, HandoffSchedule> {
        self.0.read().expect("no writer panicked")
    }

    /// A copy of the schedule as it is now.
    pub fn snapshot(&self) -> HandoffSchedule {
        self.read().clone()
    }

    /// Appends handoff `h` with `extra_gap` of detached time beyond the gap.
    pub fn push(&self, h: Handoff, extra_gap: Dur) {
        let mut s = self.0.write().expect("no writer panicked");
        let n = s.handoffs.len();
        s.extra_gap.resize(n, Dur::ZERO);
        s.handoffs.push(h);
        s.extra_gap.push(extra_gap);
    }
}

/// The `k`-th position (k = 0, 1, ...) of a ping-pong walk over `n` base stations:
/// 0, 1, .., n-1, n-2, .., 0, 1, ...
fn bounce(k: usize, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let period = 2 * (n - 1);
    let m = k % period;
    if m < n {
        m
    } else {
        period - m
    }
}

impl HandoffSchedule {
    /// Spec 5 §2.2: `h` handoffs in `period` at `t_k = (k - phase)·period/(h+1)`, k = 1..h, the
    /// mobile walking BS1 → BS2 → .. → BSn → BSn-1 → .. (ping-pong) from BS1. `phase` in
    /// [0, 1) shifts every handoff earlier by that fraction of the spacing (MM-X5: mobiles out
    /// of step); the paper's runs use 0.
    pub fn ping_pong(h: u32, period: Dur, n_bs: usize, phase: f64) -> HandoffSchedule {
        let spacing = period.as_nanos() as f64 / (h as f64 + 1.0);
        let handoffs = (1..=h as usize)
            .map(|k| Handoff {
                at: Time::from_nanos(((k as f64 - phase) * spacing).round() as u64),
                from: bounce(k - 1, n_bs),
                to: bounce(k, n_bs),
            })
            .collect();
        HandoffSchedule {
            first: 0,
            handoffs,
            gap: Dur::ZERO,
            linger: Dur::ZERO,
            lead: Dur::ZERO,
            extra_gap: Vec::new(),
        }
    }

    /// Explicit handoff times and targets, starting at `first`.
    pub fn explicit(first: usize, moves: &[(Time, usize)]) -> HandoffSchedule {
        let mut at = first;
        let handoffs = moves
            .iter()
            .map(|&(t, to)| {
                let h = Handoff {
                    at: t,
                    from: at,
                    to,
                };
                at = to;
                h
            })
            .collect();
        HandoffSchedule {
            first,
            handoffs,
            gap: Dur::ZERO,
            linger: Dur::ZERO,
            lead: Dur::ZERO,
            extra_gap: Vec::new(),
        }
    }

    /// The detached time of handoff `k`: `gap` plus its own extra gap.
    pub fn gap_of(&self, k: usize) -> Dur {
        self.gap + self.extra_gap.get(k).copied().unwrap_or(Dur::ZERO)
    }

    /// The number of handoffs that have happened by `now` (`t_k <= now`).
    pub fn done_by(&self, now: Time) -> usize {
        self.handoffs.partition_point(|h| h.at <= now)
    }

    /// The base station the mobile is attached to at `now` (`None` inside a layer-2 gap).
    pub fn serving(&self, now: Time) -> Option<usize> {
        match self.done_by(now) {
            0 => Some(self.first),
            k => {
                let h = &self.handoffs[k - 1];
                (now >= h.at + self.gap_of(k - 1)).then_some(h.to)
            }
        }
    }

    /// Whether the mobile hears base station `bs` at `now`: it is attached there, or it left
    /// it less than `linger` ago.
    pub fn hears(&self, now: Time, bs: usize) -> bool {
        if self.serving(now) == Some(bs) {
            return true;
        }
        let k = self.done_by(now);
        k > 0 && {
            let h = &self.handoffs[k - 1];
            h.from == bs && now < h.at + self.linger
        }
    }

    /// What base station `bs`'s radio sees of the mobile at `now`: pre-attach from `lead`
    /// before the next handoff to it until the attachment, departed otherwise.
    pub fn listen(&self, now: Time, bs: usize) -> Listen {
        if self.hears(now, bs) {
            return Listen::Hears;
        }
        let next = (0..self.handoffs.len()).find(|&k| self.handoffs[k].at + self.gap_of(k) > now);
        if let Some(h) = next.map(|k| &self.handoffs[k]) {
            if h.to == bs && now + self.lead >= h.at {
                return Listen::PreAttach;
            }
        }
        let since = self
            .handoffs
            .iter()
            .take(self.done_by(now))
            .rev()
            .find(|h| h.from == bs)
            .map_or(Time::ZERO, |h| h.at + self.linger);
        Listen::Departed { since }
    }

    /// The first instant after `now` at which [`HandoffSchedule::listen`] may change.
    pub fn next_change(&self, now: Time) -> Option<Time> {
        self.handoffs
            .iter()
            .enumerate()
            .flat_map(|(k, h)| {
                let pre = Time(h.at.0.saturating_sub(self.lead.0));
                [pre, h.at, h.at + self.gap_of(k), h.at + self.linger]
            })
            .filter(|&t| t > now)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(t: Time) -> f64 {
        t.as_secs_f64()
    }

    /// Spec 5 §2.2: H = 3 in 30 s gives t_k = 7.5, 15, 22.5 s and exactly one pass
    /// BS1 → BS2 → BS3 → BS4.
    #[test]
    fn three_handoffs_are_one_pass() {
        let s = HandoffSchedule::ping_pong(3, Dur::from_secs(30), 4, 0.0);
        let times: Vec<f64> = s.handoffs.iter().map(|h| secs(h.at)).collect();
        assert_eq!(times, vec![7.5, 15.0, 22.5]);
        let moves: Vec<(usize, usize)> = s.handoffs.iter().map(|h| (h.from, h.to)).collect();
        assert_eq!(moves, vec![(0, 1), (1, 2), (2, 3)]);
    }

    /// H = 7: t_k = k·3.75 s, and the walk turns at BS4 and again at BS1 (ping-pong).
    #[test]
    fn seven_handoffs_ping_pong() {
        let s = HandoffSchedule::ping_pong(7, Dur::from_secs(30), 4, 0.0);
        let times: Vec<f64> = s.handoffs.iter().map(|h| secs(h.at)).collect();
        assert_eq!(times, vec![3.75, 7.5, 11.25, 15.0, 18.75, 22.5, 26.25]);
        let to: Vec<usize> = s.handoffs.iter().map(|h| h.to).collect();
        assert_eq!(to, vec![1, 2, 3, 2, 1, 0, 1]);
        assert_eq!(s.handoffs[3].from, 3);
    }

    /// The gap leaves the mobile attached to nobody; the linger keeps the old cell audible; a
    /// base station is pre-attach until the mobile attaches, then the old one is departed.
    #[test]
    fn gap_linger_and_listen() {
        let mut s = HandoffSchedule::explicit(0, &[(Time::from_millis(1000), 1)]);
        s.gap = Dur::from_millis(50);
        s.linger = Dur::from_millis(20);
        let ms = Time::from_millis;
        assert_eq!(s.serving(ms(999)), Some(0));
        assert_eq!(s.serving(ms(1000)), None);
        assert_eq!(s.serving(ms(1049)), None);
        assert_eq!(s.serving(ms(1050)), Some(1));
        assert!(s.hears(ms(1019), 0) && !s.hears(ms(1020), 0));
        assert_eq!(s.listen(ms(500), 1), Listen::Departed { since: ms(0) });
        assert_eq!(s.listen(ms(1000), 1), Listen::PreAttach);
        assert_eq!(s.listen(ms(1049), 1), Listen::PreAttach);
        assert_eq!(s.listen(ms(1050), 1), Listen::Hears);
        assert_eq!(s.listen(ms(1030), 0), Listen::Departed { since: ms(1020) });
        assert_eq!(s.next_change(ms(0)), Some(ms(1000)));
        assert_eq!(s.next_change(ms(1000)), Some(ms(1020)));
        assert_eq!(s.next_change(ms(1050)), None);
        s.lead = Dur::from_millis(100);
        assert_eq!(s.listen(ms(899), 1), Listen::Departed { since: ms(0) });
        assert_eq!(s.listen(ms(900), 1), Listen::PreAttach);
        assert_eq!(s.next_change(ms(0)), Some(ms(900)));
    }

    /// Ping-pong: a base station the mobile has just left is also the next one (BS4 → BS3
    /// after BS3 → BS4). It stays departed (its held packets age out after hold_time) until
    /// `lead` before the return, not pre-attach for the whole stay at the other one.
    #[test]
    fn the_next_base_station_is_departed_until_the_lead() {
        let ms = Time::from_millis;
        let mut s = HandoffSchedule::explicit(2, &[(ms(18_000), 3), (ms(24_000), 2)]);
        s.lead = Dur::from_millis(100);
        assert_eq!(
            s.listen(ms(19_000), 2),
            Listen::Departed { since: ms(18_000) }
        );
        assert_eq!(
            s.listen(ms(23_899), 2),
            Listen::Departed { since: ms(18_000) }
        );
        assert_eq!(s.listen(ms(23_900), 2), Listen::PreAttach);
        assert_eq!(s.listen(ms(24_000), 2), Listen::Hears);
        assert_eq!(s.listen(ms(19_000), 3), Listen::Hears);
        assert_eq!(s.next_change(ms(18_000)), Some(ms(23_900)));
    }
}
