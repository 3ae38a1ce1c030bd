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

use super::air::{Air, HandoffEvent};
use super::channel::{Channel, ChannelConfig, Logged};
use super::dcf::Sta;
use super::stations::{Out, Stations};
use crate::ids::{EgressId, NodeId};
use crate::net::{Disposition, Element, ElementCtx, Net, Via};
use crate::packet::Packet;
use packetsim_kernel::Time;
use std::any::Any;

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
    /// The stations on the channel (`wifi::stations`, shared with study 5's air).
    st: Stations<()>,
    ports: Vec<WifiPort>,
    /// Station of each address (indexed by `Addr`), for the MAC destination.
    station_of_addr: Vec<Option<u16>>,
    mac_drops: u64,
    /// Packets lost at the retry limit and at a full interface queue (never delivered).
    lost: [u64; 2],
    /// Each station's gateway: where its packets for nodes off the channel go.
    gw: Vec<u16>,
    /// The channel's outputs being carried out (kept to reuse its allocation).
    outs: Vec<Out<()>>,
}

impl std::fmt::Debug for ChannelElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelElement")
            .field("ports", &self.ports)
            .field("held", &self.st.held())
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
        let mut st = Stations::new(ports.iter().map(|p| p.node).collect(), cfg, seed);
        st.release_on_delivery();
        ChannelElement {
            st,
            ports,
            station_of_addr,
            mac_drops: 0,
            lost: [0; 2],
            gw: vec![gateway as u16; n],
            outs: Vec::new(),
        }
    }

    /// The channel (MAC counters, who hears whom).
    pub fn channel(&self) -> &Channel {
        self.st.channel()
    }

    /// The channel, to change who hears whom.
    pub fn channel_mut(&mut self) -> &mut Channel {
        self.st.channel_mut()
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
        self.st.with_air(air);
        self
    }

    /// The handoff decisions so far (empty without [`ChannelElement::with_air`]).
    pub fn handoffs(&self) -> &[HandoffEvent] {
        self.st.handoffs()
    }

    /// The station of each port's node, by port order.
    pub fn ports(&self) -> &[WifiPort] {
        &self.ports
    }

    /// After the channel ran to `now`: beacons due are handed to their MACs, loss deadlines
    /// passed are decided (a mobile that joins a base station sends through it).
    fn air_after(&mut self, now: Time) {
        for (m, _, to) in self.st.beacons_due(now) {
            if let Some(to) = to {
                self.gw[m] = to.0;
            }
        }
    }

    /// Keeps every MAC output (frames put on the air, deliveries, drops) from now on, for
    /// [`ChannelElement::trace`] (tests and validation; off by default).
    pub fn keep_trace(&mut self) {
        self.st.keep_trace();
    }

    /// The MAC outputs kept since [`ChannelElement::keep_trace`] (empty if never asked).
    pub fn trace(&self) -> &[Logged] {
        self.st.trace()
    }

    /// Carries out the channel's outputs: deliveries go down the receiver's link; a decoded
    /// beacon feeds the mobile's rule; a delivered packet counts as an exchange for the
    /// outage.
    fn flush(&mut self, ctx: &mut ElementCtx) {
        let mut outs = std::mem::take(&mut self.outs);
        self.st.take_into(&mut outs);
        for o in outs.drain(..) {
            match o {
                Out::Beacon { at, sta, from } => {
                    let d = self.st.beacon_heard(at, sta, from, |radio, a, b| {
                        radio.power(a, b).unwrap_or(0.0)
                    });
                    if let Some((m, _, Some(b))) = d {
                        self.gw[m] = b.0;
                    }
                }
                Out::Delivered {
                    at, sta, from, pkt, ..
                } => {
                    self.st.exchanged(at, from, sta);
                    if let Some(pkt) = pkt {
                        let port = self.ports[sta.0 as usize];
                        ctx.resend(pkt, Via::Egress(port.outbound));
                    }
                }
                Out::Dropped {
                    sta,
                    pkt: Some(pkt),
                    reason,
                    ..
                } => {
                    self.mac_drops += 1;
                    self.lost[usize::from(reason == super::dcf::MacDrop::IfqFull)] += 1;
                    let port = self.ports[sta.0 as usize];
                    ctx.drop(pkt, port.inbound, super::report::drop_reason(reason));
                }
                Out::Dropped { pkt: None, .. } | Out::Sent { .. } => {}
            }
        }
        self.outs = outs;
    }

    /// Runs the channel and the air to `now` and carries out what they did.
    fn advance(&mut self, now: Time, ctx: &mut ElementCtx) {
        self.st.place_if_moved(now);
        self.st.channel_mut().run_until(now);
        self.air_after(now);
        self.flush(ctx);
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
        self.advance(now, ctx);
        let dst = self
            .station_of_addr
            .get(pkt.dst.0 as usize)
            .copied()
            .flatten()
            .unwrap_or(self.gw[from]);
        // An ideal route update: a base station's packet for a mobile leaves from the
        // mobile's current base station (`wifi::air`, `follow_attachment`).
        let from = match self.st.air() {
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
        self.st.enqueue(Sta(from as u16), Sta(dst), pkt, ());
        self.flush(ctx);
        self.st.tell_handoffs(ctx);
        Disposition::Consume
    }

    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        self.advance(now, ctx);
        self.st.tell_handoffs(ctx);
    }

    fn next_timeout(&self) -> Option<Time> {
        let ch = self.st.channel().next_event();
        if self.st.air().is_none() {
            return ch;
        }
        [ch, self.st.next_air_event()].into_iter().flatten().min()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn Any> {
        Some(self)
    }
}
