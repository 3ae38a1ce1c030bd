//! Positions, motion, beacons and handoff inside a world (issue 34 item 2): what the channel
//! element ([`super::element::ChannelElement::with_air`]) does with the stations' places.
//!
//! - Hearing follows motion: whenever the element runs (a packet reaches the air, or the
//!   channel's next event, or a beacon is due) and a station moves, `Channel::set_hears` is
//!   re-computed for the moving stations at that instant from the positions and the
//!   [`Radio`]. A frame that starts later is heard where the stations then are (a frame on the
//!   air ends where it was sensed when it started). So a mobile that moves out of range of its
//!   base station loses its frames to the retry limit.
//! - Beacons: each base station hands its MAC a broadcast beacon ([`Beacons`], 50 bytes) at
//!   [`Beacons::at`], ahead of its queue and never dropped for a full one
//!   (`Dcf::enqueue_first`: 802.11 sends beacons at their time; ns-2's PriQueue puts routing
//!   packets first). The beacon still contends for the medium (DIFS and backoff).
//! - Handoff: every mobile (a station with a [`Path`], on a channel with base stations) has a
//!   [`HandoffMonitor`], fed each beacon it decodes with the power received at that instant;
//!   its decisions are recorded as [`HandoffEvent`]s. On a handoff the mobile's packets for
//!   nodes off the channel go to its new base station. With `follow_attachment` a packet that
//!   reaches the air from a base station for a mobile leaves from the mobile's current base
//!   station: an ideal route update (the wired side learns the attachment at once and at no
//!   cost; Cellular IP's and HAWAII's messages are `mobility/`'s business, not modelled here).
//! - Outage of a handoff: from the last packet exchanged (either direction, beacons not
//!   counted) between the mobile and the base station it left to the first one exchanged with
//!   the base station it joined (none yet: `None`). After a loss ([`Decision::Lost`]) the
//!   next attach is measured from the last exchange with the base station lost.

use super::dcf::Sta;
use super::motion::{Beacons, Decision, HandoffConfig, HandoffMonitor, Path};
use super::propagation::{Pos, Propagation};
use packetsim_kernel::{Dur, Time};

/// Who hears whom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Radio {
    /// A propagation model with a receive threshold (two-ray ground, free space).
    Propagation(Propagation),
    /// Within this many metres.
    Range(f64),
}

impl Radio {
    /// Whether a frame sent at `a` is received at `b`.
    pub fn hears(&self, a: Pos, b: Pos) -> bool {
        match self {
            Radio::Propagation(p) => p.hears(a, b),
            Radio::Range(r) => a.dist(b) <= *r,
        }
    }

    /// The power a frame sent at `a` is received with at `b` (watts; for `Range`, the inverse
    /// square of the distance, so that nearer is stronger), or `None` out of range.
    pub fn power(&self, a: Pos, b: Pos) -> Option<f64> {
        if !self.hears(a, b) {
            return None;
        }
        Some(match self {
            Radio::Propagation(p) => p.received_power(a.dist(b)),
            Radio::Range(_) => 1.0 / a.dist(b).max(1e-3).powi(2),
        })
    }
}

/// Where the stations are and how they move, and the beacons and handoff rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Air {
    /// Who hears whom.
    pub radio: Radio,
    /// Each station's position (its start, for a moving station).
    pub positions: Vec<Pos>,
    /// Each station's motion, if it moves.
    pub paths: Vec<Option<Path>>,
    /// The stations that send beacons.
    pub base_stations: Vec<Sta>,
    /// Beacon interval and size.
    pub beacons: Beacons,
    /// The mobiles' rule.
    pub handoff: HandoffConfig,
    /// Downlink packets for a mobile leave from its current base station.
    pub follow_attachment: bool,
}

/// A handoff decision of a mobile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandoffEvent {
    /// When (the end of the beacon that decided it, or the loss deadline).
    pub at: Time,
    /// The mobile.
    pub mobile: Sta,
    /// The base station left (`None`: the mobile was detached).
    pub from: Option<Sta>,
    /// The base station joined (`None`: the current one was lost).
    pub to: Option<Sta>,
    /// The outage (module doc), once the mobile exchanged a packet with the new base station.
    pub outage: Option<Dur>,
}

/// A mobile's handoff state.
#[derive(Clone, Debug)]
pub(crate) struct Mobile {
    pub monitor: HandoffMonitor,
    /// Last packet exchanged with each base station (by index in `base_stations`).
    pub last_with: Vec<Option<Time>>,
    /// The base station it was last attached to.
    pub prev: Option<usize>,
    /// The handoff awaiting its first exchange: (event index, base station index, since).
    pub pending: Option<(usize, usize, Time)>,
}

/// The element's state for [`Air`].
#[derive(Clone, Debug)]
pub(crate) struct AirState {
    pub air: Air,
    /// Per station: its mobile state, if it is a mobile.
    pub mobiles: Vec<Option<Mobile>>,
    /// Next beacon number of each base station.
    pub next_beacon: Vec<u64>,
    /// When hearing was last computed.
    pub placed_at: Option<Time>,
    pub events: Vec<HandoffEvent>,
}

/// The id bit of beacon MSDUs (the element's own packets count up from 0).
pub(crate) const BEACON: u64 = 1 << 63;

impl AirState {
    pub fn new(air: Air) -> AirState {
        let n = air.positions.len();
        let nb = air.base_stations.len();
        let mobiles = (0..n)
            .map(|i| {
                let moving = air.paths.get(i).is_some_and(Option::is_some);
                let is_bs = air.base_stations.contains(&Sta(i as u16));
                (moving && nb > 0 && !is_bs).then(|| Mobile {
                    monitor: HandoffMonitor::new(air.handoff),
                    last_with: vec![None; nb],
                    prev: None,
                    pending: None,
                })
            })
            .collect();
        AirState {
            next_beacon: vec![0; nb],
            mobiles,
            placed_at: None,
            events: Vec::new(),
            air,
        }
    }

    /// Where station `s` is at `t`.
    pub fn pos(&self, s: usize, t: Time) -> Pos {
        match &self.air.paths[s] {
            Some(p) => p.position(t),
            None => self.air.positions[s],
        }
    }

    /// Whether any station moves.
    pub fn moving(&self) -> bool {
        self.air.paths.iter().any(Option::is_some)
    }

    /// The next beacon: (time, base station index).
    pub fn next_beacon(&self) -> Option<(Time, usize)> {
        let n = self.air.base_stations.len();
        (0..n)
            .map(|i| (self.air.beacons.at(i, n, self.next_beacon[i]), i))
            .min()
    }

    /// The earliest loss deadline of a mobile's monitor.
    pub fn next_deadline(&self) -> Option<Time> {
        self.mobiles
            .iter()
            .flatten()
            .filter_map(|m| m.monitor.next_timeout())
            .min()
    }

    /// The base station index of station `s`.
    pub fn bs_index(&self, s: Sta) -> Option<usize> {
        self.air.base_stations.iter().position(|&b| b == s)
    }

    /// Applies a decision of mobile `m` at `now`; returns its new base station, if it joined one.
    pub fn apply(&mut self, now: Time, m: usize, d: Decision) -> Option<Sta> {
        let bss = self.air.base_stations.clone();
        let idx = self.events.len();
        let mob = self.mobiles[m].as_mut().expect("a mobile");
        match d {
            Decision::Handoff { from, to } => {
                // The first attach has no outage; a handoff (or a re-attach after a loss) is
                // measured from the last exchange with the base station left.
                let left = from.or(mob.prev);
                mob.pending = left.map(|b| (idx, to, mob.last_with[b].unwrap_or(now)));
                mob.prev = Some(to);
                self.events.push(HandoffEvent {
                    at: now,
                    mobile: Sta(m as u16),
                    from: from.map(|b| bss[b]),
                    to: Some(bss[to]),
                    outage: None,
                });
                Some(bss[to])
            }
            Decision::Lost { from } => {
                self.events.push(HandoffEvent {
                    at: now,
                    mobile: Sta(m as u16),
                    from: Some(bss[from]),
                    to: None,
                    outage: None,
                });
                None
            }
        }
    }

    /// A packet (not a beacon) was delivered between stations `a` and `b` at `now`.
    pub fn exchanged(&mut self, now: Time, a: Sta, b: Sta) {
        for (m, s) in [(a, b), (b, a)] {
            let Some(j) = self.bs_index(s) else { continue };
            let Some(Some(mob)) = self.mobiles.get_mut(m.0 as usize) else {
                continue;
            };
            mob.last_with[j] = Some(now);
            if let Some((idx, to, since)) = mob.pending {
                if to == j {
                    self.events[idx].outage = Some(now - since);
                    mob.pending = None;
                }
            }
        }
    }
}
