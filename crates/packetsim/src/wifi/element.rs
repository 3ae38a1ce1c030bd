//! The 802.11 channel in a world: a node element at a hub node standing for the air
//! (`docs/extending.md`, "How to add a node element"), so that nothing in the world's hot path
//! or in `net::transmitter` changes.
//!
//! Each station is a node joined to the hub by an ordinary link (give it an unbounded rate and
//! no delay: the channel does the timing). A packet arriving at the hub over station i's link
//! is taken by the element ([`Disposition::Consume`]) and handed to station i's MAC, addressed
//! to the station whose node owns the packet's destination address, or to the `gateway`
//! station (the access point) for any other destination. When the receiving MAC delivers it,
//! the element sends the same packet on down the receiver's link from the hub
//! ([`Via::Egress`]). The element's timer is the channel's next event.
//!
//! Packet books: a packet the MAC drops (full interface queue, retry limit) is counted in
//! [`ChannelElement::mac_drops`] and handed back to the world as a drop
//! (`DropReason::MacRetryLimit`, `DropReason::MacQueue`, `ElementCtx::drop`): it is in the
//! world's drops table and, traced, in events.csv on the sender's link to the hub.

use super::air::{Air, AirState, HandoffEvent, BEACON};
use super::channel::{Channel, ChannelConfig, Logged};
use super::dcf::{MacOut, Msdu, Sta};
use super::propagation::Pos;
use crate::ids::{EgressId, NodeId};
use crate::net::{Disposition, Element, ElementCtx, Net, Via};
use crate::packet::Packet;
use packetsim_kernel::Time;
use std::any::Any;
use std::collections::HashMap;

/// One station's attachment to the hub.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WifiPort {
    /// The station's node.
    pub node: NodeId,
    /// The direction station → hub (packets the station sends).
    pub inbound: EgressId,
    /// The direction hub → station (packets the station receives).
    pub outbound: EgressId,
}

/// A shared 802.11 channel as a node element at the hub.
pub struct ChannelElement {
    ch: Channel,
    ports: Vec<WifiPort>,
    /// Station of each address (indexed by `Addr`), for the MAC destination.
    station_of_addr: Vec<Option<u16>>,
    held: HashMap<u64, Packet>,
    next_id: u64,
    mac_drops: u64,
    /// Packets lost at the retry limit and at a full interface queue (never delivered).
    lost: [u64; 2],
    /// Every MAC output, when kept ([`ChannelElement::keep_trace`]).
    trace: Option<Vec<Logged>>,
    /// Each station's gateway: where its packets for nodes off the channel go.
    gw: Vec<u16>,
    /// Positions, motion, beacons and handoff ([`ChannelElement::with_air`]).
    air: Option<Box<AirState>>,
    /// Handoff decisions already handed to the world's event trace.
    told: usize,
}

impl std::fmt::Debug for ChannelElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelElement")
            .field("ports", &self.ports)
            .field("held", &self.held.len())
            .finish()
    }
}

impl ChannelElement {
    /// A channel whose station i is `ports[i]`; packets to no station's node go to station
    /// `gateway`. Every station hears every other (use [`ChannelElement::channel_mut`] to
    /// change that).
    pub fn new(
        net: &Net,
        ports: Vec<WifiPort>,
        gateway: usize,
        cfg: ChannelConfig,
        seed: u64,
    ) -> ChannelElement {
        assert!(
            gateway < ports.len(),
            "the gateway must be one of the stations"
        );
        assert!(ports.len() < u16::MAX as usize, "too many stations");
        let mut station_of_addr = vec![None; net.addr_owner.len()];
        for (a, owner) in net.addr_owner.iter().enumerate() {
            station_of_addr[a] = ports
                .iter()
                .position(|p| p.node == *owner)
                .map(|i| i as u16);
        }
        let n = ports.len();
        let mut ch = Channel::new(ports.len() as u16, cfg, seed);
        ch.keep_log(true);
        ChannelElement {
            ch,
            ports,
            station_of_addr,
            held: HashMap::new(),
            next_id: 0,
            mac_drops: 0,
            lost: [0; 2],
            trace: None,
            gw: vec![gateway as u16; n],
            air: None,
            told: 0,
        }
    }

    /// The channel (MAC counters, who hears whom).
    pub fn channel(&self) -> &Channel {
        &self.ch
    }

    /// The channel, to change who hears whom.
    pub fn channel_mut(&mut self) -> &mut Channel {
        &mut self.ch
    }

    /// Packets the MACs dropped before any receiver got them: (at the retry limit, at a full
    /// interface queue). A packet whose receiver got it but whose ACKs were all lost counts
    /// in the sender's `MacStats::retry_drops`, not here.
    pub fn mac_losses(&self) -> (u64, u64) {
        (self.lost[0], self.lost[1])
    }

    /// Packets the MACs dropped.
    pub fn mac_drops(&self) -> u64 {
        self.mac_drops
    }

    /// Places the stations and runs motion, beacons and the handoff rule (`wifi::air`): who
    /// hears whom is set from the positions now and re-computed as stations move.
    pub fn with_air(mut self, air: Air) -> ChannelElement {
        let n = self.ports.len();
        assert!(
            air.positions.len() == n && air.paths.len() == n,
            "one position and one path (or none) per station"
        );
        assert!(
            air.base_stations.iter().all(|b| (b.0 as usize) < n),
            "base stations are stations"
        );
        let mut st = AirState::new(air);
        self.place(&mut st, Time::ZERO, true);
        st.placed_at = Some(Time::ZERO);
        self.air = Some(Box::new(st));
        self
    }

    /// The handoff decisions so far (empty without [`ChannelElement::with_air`]).
    pub fn handoffs(&self) -> &[HandoffEvent] {
        self.air.as_ref().map_or(&[], |a| &a.events[..])
    }

    /// The station of each port's node, by port order.
    pub fn ports(&self) -> &[WifiPort] {
        &self.ports
    }

    /// Sets who hears whom from the positions at `t`: every pair, or only the pairs with a
    /// moving station.
    fn place(&mut self, st: &mut AirState, t: Time, all: bool) {
        let n = self.ports.len();
        let at: Vec<Pos> = (0..n).map(|i| st.pos(i, t)).collect();
        let moves: Vec<bool> = st.air.paths.iter().map(Option::is_some).collect();
        for r in 0..n {
            for s in 0..n {
                if r != s && (all || moves[r] || moves[s]) {
                    let on = st.air.radio.hears(at[s], at[r]);
                    self.ch.set_hears(Sta(r as u16), Sta(s as u16), on);
                }
            }
        }
    }

    /// Before the channel runs at `now`: hearing follows motion, and the beacons and loss
    /// deadlines due are carried out (the channel's clock must be at `now` for beacons).
    fn air_before(&mut self, now: Time) {
        let Some(mut st) = self.air.take() else {
            return;
        };
        if st.moving() && st.placed_at != Some(now) {
            self.place(&mut st, now, false);
            st.placed_at = Some(now);
        }
        self.air = Some(st);
    }

    /// After the channel ran to `now`: beacons due are handed to their MACs, loss deadlines
    /// passed are decided.
    fn air_after(&mut self, now: Time) {
        let Some(mut st) = self.air.take() else {
            return;
        };
        while let Some((t, i)) = st.next_beacon() {
            if t > now {
                break;
            }
            let k = st.next_beacon[i];
            st.next_beacon[i] += 1;
            let bs = st.air.base_stations[i];
            self.ch.enqueue_first(
                bs,
                Msdu {
                    id: BEACON | ((i as u64) << 40) | k,
                    dst: Sta::BROADCAST,
                    bytes: st.air.beacons.bytes,
                },
            );
        }
        for m in 0..st.mobiles.len() {
            let d = match st.mobiles[m].as_mut() {
                Some(mob) => mob.monitor.on_timer(now),
                None => None,
            };
            if let Some(d) = d {
                if let Some(to) = st.apply(now, m, d) {
                    self.gw[m] = to.0;
                }
            }
        }
        self.air = Some(st);
    }

    /// A frame `msdu` from `from` was delivered at station `to` at `at`: a beacon feeds the
    /// mobile's monitor; a packet counts as an exchange for the outage.
    fn air_delivered(&mut self, at: Time, to: Sta, from: Sta, msdu: &Msdu) {
        let Some(mut st) = self.air.take() else {
            return;
        };
        if msdu.id & BEACON != 0 {
            let m = to.0 as usize;
            if let (Some(j), true) = (st.bs_index(from), st.mobiles[m].is_some()) {
                let power = st
                    .air
                    .radio
                    .power(st.pos(from.0 as usize, at), st.pos(m, at))
                    .unwrap_or(0.0);
                let d = st.mobiles[m]
                    .as_mut()
                    .expect("a mobile")
                    .monitor
                    .on_beacon(at, j, power);
                if let Some(d) = d {
                    if let Some(b) = st.apply(at, m, d) {
                        self.gw[m] = b.0;
                    }
                }
            }
        } else {
            st.exchanged(at, from, to);
        }
        self.air = Some(st);
    }

    /// Hands the handoff decisions made since the last call to the world's event trace.
    fn tell_handoffs(&mut self, ctx: &mut ElementCtx) {
        let Some(st) = &self.air else { return };
        for e in &st.events[self.told..] {
            let node = |s: Sta| self.ports[s.0 as usize].node;
            ctx.handoff(node(e.mobile), e.from.map(node), e.to.map(node));
        }
        self.told = st.events.len();
    }

    /// Keeps every MAC output (frames put on the air, deliveries, drops) from now on, for
    /// [`ChannelElement::trace`] (tests and validation; off by default).
    pub fn keep_trace(&mut self) {
        self.trace.get_or_insert_with(Vec::new);
    }

    /// The MAC outputs kept since [`ChannelElement::keep_trace`] (empty if never asked).
    pub fn trace(&self) -> &[Logged] {
        self.trace.as_deref().unwrap_or(&[])
    }

    /// Carries out the channel's outputs: deliveries go down the receiver's link.
    fn flush(&mut self, ctx: &mut ElementCtx) {
        let log = self.ch.take_log();
        if let Some(t) = &mut self.trace {
            t.extend_from_slice(&log);
        }
        for l in log {
            match l.out {
                MacOut::Deliver { msdu, from } => {
                    if self.air.is_some() {
                        self.air_delivered(l.at, l.sta, from, &msdu);
                    }
                    if let Some(pkt) = self.held.remove(&msdu.id) {
                        let port = self.ports[l.sta.0 as usize];
                        ctx.resend(pkt, Via::Egress(port.outbound));
                    }
                }
                MacOut::Dropped { msdu, reason } => {
                    if let Some(pkt) = self.held.remove(&msdu.id) {
                        self.mac_drops += 1;
                        self.lost[usize::from(reason == super::dcf::MacDrop::IfqFull)] += 1;
                        let port = self.ports[l.sta.0 as usize];
                        ctx.drop(pkt, port.inbound, super::report::drop_reason(reason));
                    }
                }
                MacOut::Sent { .. } | MacOut::Transmit(_) => {}
            }
        }
    }
}

impl Element for ChannelElement {
    fn on_packet(
        &mut self,
        now: Time,
        via: Option<EgressId>,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let Some(from) = via.and_then(|v| self.ports.iter().position(|p| p.inbound == v)) else {
            return Disposition::Pass;
        };
        self.air_before(now);
        self.ch.run_until(now);
        self.air_after(now);
        self.flush(ctx);
        let dst = self
            .station_of_addr
            .get(pkt.dst.0 as usize)
            .copied()
            .flatten()
            .unwrap_or(self.gw[from]);
        // An ideal route update: a base station's packet for a mobile leaves from the
        // mobile's current base station (`wifi::air`, `follow_attachment`).
        let from = match &self.air {
            Some(st) if st.air.follow_attachment && st.bs_index(Sta(from as u16)).is_some() => st
                .mobiles
                .get(dst as usize)
                .and_then(|m| m.as_ref())
                .and_then(|m| m.monitor.current())
                .map_or(from, |j| st.air.base_stations[j].0 as usize),
            _ => from,
        };
        if dst as usize == from {
            // Nowhere to send it over the air (a packet for beyond the gateway that came from
            // the gateway): ordinary forwarding decides.
            return Disposition::Pass;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.held.insert(id, pkt.clone());
        self.ch.enqueue(
            Sta(from as u16),
            Msdu {
                id,
                dst: Sta(dst),
                bytes: pkt.size,
            },
        );
        self.flush(ctx);
        self.tell_handoffs(ctx);
        Disposition::Consume
    }

    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        self.air_before(now);
        self.ch.run_until(now);
        self.air_after(now);
        self.flush(ctx);
        self.tell_handoffs(ctx);
    }

    fn next_timeout(&self) -> Option<Time> {
        let ch = self.ch.next_event();
        let Some(st) = &self.air else {
            return ch;
        };
        [ch, st.next_beacon().map(|(t, _)| t), st.next_deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn Any> {
        Some(self)
    }
}
