//! A station set on one 802.11 channel inside a world: the one mapping between the world's
//! packets and the channel's frames, shared by the two elements that put packets on the air
//! (issue 34 item 1 of the follow-up: one wifi builder).
//!
//! - [`super::element::ChannelElement`] (`kind = "wifi"` links): a station per node, a
//!   packet's receiving station from its destination address.
//! - `mobility::radio::AirElement` (study 5's radio): the base stations then the mobiles, a
//!   packet's (sender, receiver) pair from the link it arrived on.
//!
//! What they share is here: the channel, the packets held while their frames are on the air
//! (an MSDU id per packet, each packet tagged with what its element needs to send it on),
//! the channel's outputs turned into [`Out`]s in the channel's order, the positions, motion
//! and who hears whom (`wifi::air`), the base stations' beacons handed to their MACs ahead
//! of their queues, each mobile's beacon rule fed the beacons it decodes and its loss
//! deadlines, and the decisions handed to the world's event trace. What differs stays in the
//! elements: how a packet's stations are found, when hearing is re-computed (at every run of
//! the channel element; at fixed motion steps on study 5's air), what a decision does (a new
//! gateway station; the mobility protocol's schedule and notices) and how a decoded
//! beacon's power is weighed (`power` of [`Stations::beacon_heard`]).

use super::air::{Air, AirState, HandoffEvent, Radio, BEACON};
use super::channel::{Channel, ChannelConfig, Logged};
use super::dcf::{MacDrop, MacOut, Msdu, Sta};
use super::motion::Decision;
use super::propagation::Pos;
use crate::ids::NodeId;
use crate::net::ElementCtx;
use crate::packet::Packet;
use packetsim_kernel::Time;
use std::collections::HashMap;

/// One output of the channel, in the channel's order.
#[derive(Debug)]
pub enum Out<T> {
    /// A frame that is not a beacon was delivered at station `sta` from `from`: the packet
    /// on its first delivery (none after, or for a frame no packet is held for), with its tag.
    Delivered {
        /// When.
        at: Time,
        /// The receiving station.
        sta: Sta,
        /// The sending station.
        from: Sta,
        /// The packet, on its first delivery.
        pkt: Option<Packet>,
        /// Its tag, while the packet is held.
        tag: Option<T>,
    },
    /// The sending MAC is done with a held packet's frame (acknowledged, or sent broadcast).
    Sent {
        /// The packet's tag.
        tag: T,
    },
    /// The sending MAC (station `sta`) dropped a held packet's frame: the packet, unless it
    /// was delivered before (its ACKs lost).
    Dropped {
        /// The sending station.
        sta: Sta,
        /// The packet, if it never reached its receiver.
        pkt: Option<Packet>,
        /// Its tag.
        tag: T,
        /// Why.
        reason: MacDrop,
    },
    /// A beacon of base station `from` decoded at station `sta`.
    Beacon {
        /// When.
        at: Time,
        /// The station that decoded it.
        sta: Sta,
        /// The base station that sent it.
        from: Sta,
    },
}

/// A decision of a mobile's beacon rule: the mobile's station index, the decision, and the
/// base station it joined (if it joined one).
pub type Decided = (usize, Decision, Option<Sta>);

/// The stations of one channel in a world (module doc).
pub struct Stations<T> {
    ch: Channel,
    /// MSDU id → (the packet until delivered, its tag), until the sender is done with it.
    held: HashMap<u64, (Option<Packet>, T)>,
    next_id: u64,
    /// Positions, motion, beacons and handoff ([`Stations::with_air`]).
    air: Option<Box<AirState>>,
    /// Each station's node, for the event trace.
    nodes: Vec<NodeId>,
    /// Handoff decisions already handed to the world's event trace.
    told: usize,
    /// Every MAC output, when kept ([`Stations::keep_trace`]).
    trace: Option<Vec<Logged>>,
    /// A packet is let go at its first delivery ([`Stations::release_on_delivery`]).
    release_on_delivery: bool,
}

impl<T: Copy> Stations<T> {
    /// A channel of one station per node of `nodes` (in station order), every station
    /// hearing every other.
    pub fn new(nodes: Vec<NodeId>, cfg: ChannelConfig, seed: u64) -> Stations<T> {
        assert!(nodes.len() < u16::MAX as usize, "too many stations");
        let mut ch = Channel::new(nodes.len() as u16, cfg, seed);
        ch.keep_log(true);
        Stations {
            ch,
            held: HashMap::new(),
            next_id: 0,
            air: None,
            nodes,
            told: 0,
            trace: None,
            release_on_delivery: false,
        }
    }

    /// Lets a packet go at its first delivery: no [`Out::Sent`] and no [`Out::Dropped`]
    /// follows for it (for an element that acts on neither once the packet got through).
    pub fn release_on_delivery(&mut self) {
        self.release_on_delivery = true;
    }

    /// Places the stations (one position and one path or none each) and runs their motion,
    /// beacons and handoff rule: who hears whom is set from the positions at time zero.
    pub fn with_air(&mut self, air: Air) {
        let n = self.nodes.len();
        assert!(
            air.positions.len() == n && air.paths.len() == n,
            "one position and one path (or none) per station"
        );
        assert!(
            air.base_stations.iter().all(|b| (b.0 as usize) < n),
            "base stations are stations"
        );
        let mut st = AirState::new(air);
        Self::place_on(&mut self.ch, &mut st, Time::ZERO, true);
        st.placed_at = Some(Time::ZERO);
        self.air = Some(Box::new(st));
    }

    /// The channel.
    pub fn channel(&self) -> &Channel {
        &self.ch
    }

    /// The channel, to run it or change who hears whom.
    pub fn channel_mut(&mut self) -> &mut Channel {
        &mut self.ch
    }

    /// The air's state ([`Stations::with_air`]), if placed.
    pub(crate) fn air(&self) -> Option<&AirState> {
        self.air.as_deref()
    }

    /// Where station `s` is at `t` (placed stations only).
    pub fn position(&self, s: usize, t: Time) -> Pos {
        self.air.as_ref().expect("placed stations").pos(s, t)
    }

    /// Sets who hears whom from the positions at `t`: every pair, or only the pairs with a
    /// moving station.
    fn place_on(ch: &mut Channel, st: &mut AirState, t: Time, all: bool) {
        let n = st.air.positions.len();
        let at: Vec<Pos> = (0..n).map(|i| st.pos(i, t)).collect();
        let moves: Vec<bool> = st.air.paths.iter().map(Option::is_some).collect();
        for r in 0..n {
            for s in 0..n {
                if r != s && (all || moves[r] || moves[s]) {
                    let on = st.air.radio.hears(at[s], at[r]);
                    ch.set_hears(Sta(r as u16), Sta(s as u16), on);
                }
            }
        }
    }

    /// Re-computes who hears whom for the moving stations at `t`.
    pub fn place(&mut self, t: Time) {
        if let Some(st) = self.air.as_mut() {
            Self::place_on(&mut self.ch, st, t, false);
            st.placed_at = Some(t);
        }
    }

    /// [`Stations::place`] at `now`, if a station moves and hearing was not computed at `now`.
    pub fn place_if_moved(&mut self, now: Time) {
        if self
            .air
            .as_ref()
            .is_some_and(|st| st.moving() && st.placed_at != Some(now))
        {
            self.place(now);
        }
    }

    /// Hands `pkt` (tagged `tag`) to station `from`'s MAC, addressed to `to`.
    pub fn enqueue(&mut self, from: Sta, to: Sta, pkt: &Packet, tag: T) {
        let id = self.next_id;
        self.next_id += 1;
        self.held.insert(id, (Some(pkt.clone()), tag));
        self.ch.enqueue(
            from,
            Msdu {
                id,
                dst: to,
                bytes: pkt.size,
            },
        );
    }

    /// The next instant the air must act at by itself: a beacon due or a loss deadline.
    pub fn next_air_event(&self) -> Option<Time> {
        let st = self.air.as_ref()?;
        [st.next_beacon().map(|(t, _)| t), st.next_deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// At `now` (the channel run to it): the beacons due go to their base stations' MACs
    /// ahead of their queues (`Dcf::enqueue_first`), and the mobiles' loss deadlines passed
    /// are decided (in station order; each decision already applied to the air's state).
    pub fn beacons_due(&mut self, now: Time) -> Vec<Decided> {
        let Some(mut st) = self.air.take() else {
            return Vec::new();
        };
        while let Some((t, i)) = st.next_beacon() {
            if t > now {
                break;
            }
            let k = st.next_beacon[i];
            st.next_beacon[i] += 1;
            self.ch.enqueue_first(
                st.air.base_stations[i],
                Msdu {
                    id: BEACON | ((i as u64) << 40) | k,
                    dst: Sta::BROADCAST,
                    bytes: st.air.beacons.bytes,
                },
            );
        }
        let mut decided = Vec::new();
        for m in 0..st.mobiles.len() {
            if let Some(d) = st.mobiles[m].as_mut().and_then(|x| x.monitor.on_timer(now)) {
                let to = st.apply(now, m, d);
                decided.push((m, d, to));
            }
        }
        self.air = Some(st);
        decided
    }

    /// A beacon of base station `from` decoded at station `to` at `at`: if `to` is a mobile,
    /// its rule weighs it at the power `power(radio, sender's position, receiver's)` gives.
    pub fn beacon_heard(
        &mut self,
        at: Time,
        to: Sta,
        from: Sta,
        power: impl FnOnce(&Radio, Pos, Pos) -> f64,
    ) -> Option<Decided> {
        let st = self.air.as_mut()?;
        let m = to.0 as usize;
        let j = st.bs_index(from)?;
        st.mobiles[m].as_ref()?;
        let p = power(&st.air.radio, st.pos(from.0 as usize, at), st.pos(m, at));
        let d = st.mobiles[m]
            .as_mut()
            .expect("a mobile")
            .monitor
            .on_beacon(at, j, p)?;
        let joined = st.apply(at, m, d);
        Some((m, d, joined))
    }

    /// A packet (not a beacon) was delivered between stations `a` and `b` at `at`: counts
    /// for the outage of a handoff (`wifi::air`).
    pub fn exchanged(&mut self, at: Time, a: Sta, b: Sta) {
        if let Some(st) = self.air.as_mut() {
            st.exchanged(at, a, b);
        }
    }

    /// The handoff decisions so far (empty without [`Stations::with_air`]).
    pub fn handoffs(&self) -> &[HandoffEvent] {
        self.air.as_ref().map_or(&[], |a| &a.events[..])
    }

    /// Hands the handoff decisions made since the last call to the world's event trace.
    pub fn tell_handoffs(&mut self, ctx: &mut ElementCtx) {
        let Some(st) = &self.air else { return };
        for e in &st.events[self.told..] {
            let node = |s: Sta| self.nodes[s.0 as usize];
            ctx.handoff(node(e.mobile), e.from.map(node), e.to.map(node));
        }
        self.told = st.events.len();
    }

    /// Keeps every MAC output from now on, for [`Stations::trace`].
    pub fn keep_trace(&mut self) {
        self.trace.get_or_insert_with(Vec::new);
    }

    /// The MAC outputs kept since [`Stations::keep_trace`] (empty if never asked).
    pub fn trace(&self) -> &[Logged] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// The channel's outputs since the last call, in its order (module doc), appended to
    /// `out` (an element keeps one such buffer, so that no output allocates).
    pub fn take_into(&mut self, out: &mut Vec<Out<T>>) {
        let log = self.ch.take_log();
        if let Some(t) = &mut self.trace {
            t.extend_from_slice(&log);
        }
        for l in log {
            match l.out {
                MacOut::Deliver { msdu, from } if msdu.id & BEACON != 0 => {
                    out.push(Out::Beacon {
                        at: l.at,
                        sta: l.sta,
                        from,
                    });
                }
                MacOut::Deliver { msdu, from } => {
                    let (pkt, tag) = if self.release_on_delivery {
                        match self.held.remove(&msdu.id) {
                            Some((pkt, tag)) => (pkt, Some(tag)),
                            None => (None, None),
                        }
                    } else {
                        match self.held.get_mut(&msdu.id) {
                            Some((pkt, tag)) => (pkt.take(), Some(*tag)),
                            None => (None, None),
                        }
                    };
                    out.push(Out::Delivered {
                        at: l.at,
                        sta: l.sta,
                        from,
                        pkt,
                        tag,
                    });
                }
                MacOut::Sent { msdu, .. } => {
                    if let Some((_, tag)) = self.held.remove(&msdu.id) {
                        out.push(Out::Sent { tag });
                    }
                }
                MacOut::Dropped { msdu, reason } => {
                    if let Some((pkt, tag)) = self.held.remove(&msdu.id) {
                        out.push(Out::Dropped {
                            sta: l.sta,
                            pkt,
                            tag,
                            reason,
                        });
                    }
                }
                MacOut::Transmit(_) => {}
            }
        }
    }

    /// Packets held while their frames are on the air.
    pub fn held(&self) -> usize {
        self.held.len()
    }
}
