//! The element at every node of the access domain (spec 5 §2.1): per-mobile soft state
//! (Cellular IP routing cache, spec 5 §2.3; HAWAII forwarding entry, spec 5 §2.4), downlink
//! forwarding by it, the control messages, and at a base station the radio link layer
//! (spec 5 §2.2).
//!
//! Downlink packets (addressed to a mobile) never follow the static table: the domain's nodes
//! have none for a mobile's address, and this element redirects every such packet by its soft
//! state — down one egress, down several (Cellular IP bicast, [`Next::Many`]), into the radio
//! queue, or dropped ([`DropReason::NoRoute`]) when no live state exists. Uplink packets pass
//! and follow the static routes toward the gateway.
//!
//! What a protocol does with its control messages and data is in its own file (`cip.rs`,
//! `hawaii.rs`, `mobile_ip.rs`: [`super::MobilityProtocol`]); this element keeps the state
//! they share and calls the protocol of its [`MobilityConfig`]. Under Mobile IP (RFC 5944)
//! the nodes between the home agent and the foreign agents are plain routers; the inner
//! header of a tunnelled packet travels beside it in a [`Tunnel`] table keyed by the
//! packet's uid, shared by the home agent and the foreign agents of one domain.

use super::schedule::{Listen, SharedSchedule};
use super::{kind, Departure, Discard, DiscardReason, MobilityConfig, Protocol};
use crate::ids::{Addr, EgressId};
use crate::net::{Disposition, Element, ElementCtx, Next, NextHops, Via};
use crate::packet::{Body, ControlHeader, Packet};
use crate::queue::DropReason;
use packetsim_kernel::{Rate, Rng, Time};
use std::any::Any;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

/// Mobile IP: the inner destination (mobile index) of every packet in a tunnel, by uid.
pub type Tunnel = Rc<RefCell<HashMap<u64, usize>>>;

/// A base station's radio toward one mobile: the FIFO downlink queue (`B_bs`) and the
/// transmitter's next free instant. The radio link's egress carries one packet at a time,
/// handed over when this transmitter is free, so the queue lives here, where the base station
/// can hold it, discard it or send it on.
#[derive(Debug)]
pub struct Radio {
    /// Base station → mobile.
    pub down: EgressId,
    /// Mobile → base station.
    pub up: EgressId,
    /// The radio rate (the `down` egress's rate).
    pub rate: Rate,
    pub(super) queue: VecDeque<Packet>,
    busy_until: Time,
}

impl Radio {
    /// A radio over `down`/`up` at `rate`.
    pub fn new(down: EgressId, up: EgressId, rate: Rate) -> Radio {
        Radio {
            down,
            up,
            rate,
            queue: VecDeque::new(),
            busy_until: Time::ZERO,
        }
    }
}

/// One mobile as a node sees it.
#[derive(Debug)]
pub(super) struct Mobile {
    pub(super) addr: Addr,
    pub(super) schedule: SharedSchedule,
    /// Live-until downlink egresses: several for a Cellular IP cache, at most one for HAWAII.
    pub(super) routes: Vec<(EgressId, Time)>,
    /// At a base station: the radio toward this mobile.
    pub(super) radio: Option<Radio>,
    /// Mobile IP, at the home agent: the binding (foreign agent's base-station index, expiry).
    pub(super) binding: Option<(usize, Time)>,
    /// Cellular IP paging cache: live-until downlink egresses.
    pub(super) paging: Vec<(EgressId, Time)>,
    /// Cellular IP semisoft: the routing-cache egresses a semisoft packet refreshed last (the
    /// new path, until a route-update or uplink data confirms it).
    pub(super) semisoft: Vec<EgressId>,
}

/// What a node counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeStats {
    /// Control messages sent, by kind (index = kind).
    pub control_sent: [u64; kind::COUNT],
    /// Downlink data packets dropped for want of live soft state.
    pub no_state: u64,
    /// Data packets a holding base station discarded after `hold_time`.
    pub hold_discards: u64,
    /// Downlink packets dropped because the radio queue was full.
    pub radio_overflow: u64,
    /// Uplink TCP packets lost on the radio.
    pub uplink_radio_lost: u64,
    /// Uplink packets sent while the mobile was not attached here (lost).
    pub uplink_unheard: u64,
    /// Held packets an old base station forwarded to the new one (HAWAII MSF).
    pub forwarded: u64,
    /// Cellular IP paging: downlink packets that met no routing-cache mapping and left by the
    /// paging cache.
    pub paged: u64,
    /// Cellular IP paging: downlink packets that met neither cache and left on every downlink
    /// interface.
    pub flooded: u64,
    /// Data packets thrown away on a mobile's path (see [`Discard`]).
    pub discards: Vec<Discard>,
}

/// The element at one node of the domain (see the module doc).
#[derive(Debug)]
pub struct DomainNode {
    pub(super) addr: Addr,
    pub(super) cfg: MobilityConfig,
    /// This node's index among the base stations, if it is one.
    pub(super) bs: Option<usize>,
    /// The gateway's (domain root's) address.
    pub(super) gateway: Addr,
    /// For every egress of the network (by index), the other direction of its link.
    pub(super) back: Arc<Vec<EgressId>>,
    /// Addresses of the base stations, by index.
    pub(super) bs_addrs: Arc<Vec<Addr>>,
    /// This node's static next egress toward each base station (by index; `None` at itself).
    pub(super) toward: Vec<Option<EgressId>>,
    pub(super) mobiles: Vec<Mobile>,
    rng: Rng,
    /// When the protocol's periodic refresh next runs ([`super::MobilityProtocol::on_refresh`]).
    next_refresh: Option<Time>,
    wake: Option<Time>,
    /// Mobile IP: the home agent's address and the domain's tunnel table.
    pub(super) mip: Option<(Addr, Tunnel)>,
    /// Its downlink interfaces (toward the base stations below it; at a base station, none:
    /// its radios), where Cellular IP paging floods.
    pub(super) children: Vec<EgressId>,
    /// Cellular IP semisoft's fixed delay device at the crossover
    /// ([`MobilityConfig::crossover_delay`]): (release time, mobile, packet, egress), in
    /// release order (one delay for every copy).
    delayed: VecDeque<(Time, usize, Packet, EgressId)>,
    /// What it counted.
    pub stats: NodeStats,
}

pub(super) fn is_data(p: &Packet) -> bool {
    p.payload() > 0
}

impl DomainNode {
    /// A node with address `addr`; `bs`: its base-station index; `toward`: its static next
    /// egress toward each base station. `rng` draws the uplink radio losses.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        addr: Addr,
        cfg: MobilityConfig,
        bs: Option<usize>,
        gateway: Addr,
        back: Arc<Vec<EgressId>>,
        bs_addrs: Arc<Vec<Addr>>,
        toward: Vec<Option<EgressId>>,
        rng: Rng,
    ) -> DomainNode {
        let next_refresh = cfg
            .protocol
            .refresh_period(&cfg, bs)
            .map(|p| Time::ZERO + p);
        DomainNode {
            addr,
            cfg,
            bs,
            gateway,
            back,
            bs_addrs,
            toward,
            mobiles: Vec::new(),
            rng,
            next_refresh,
            wake: next_refresh,
            mip: None,
            children: Vec::new(),
            delayed: VecDeque::new(),
            stats: NodeStats::default(),
        }
    }

    /// Adds a mobile this node serves (every node of the domain knows every mobile); `radio`
    /// at a base station.
    pub fn add_mobile(&mut self, addr: Addr, schedule: SharedSchedule, radio: Option<Radio>) {
        self.mobiles.push(Mobile {
            addr,
            schedule,
            routes: Vec::new(),
            radio,
            binding: None,
            paging: Vec::new(),
            semisoft: Vec::new(),
        });
    }

    /// Cellular IP paging: this node's downlink interfaces (toward the base stations below it),
    /// where a packet meeting neither cache is flooded.
    pub fn set_children(&mut self, children: Vec<EgressId>) {
        self.children = children;
    }

    /// Cellular IP paging: sets mobile `j`'s paging cache here to `via` until `until` (the
    /// path that exists at time 0).
    pub fn preinstall_paging(&mut self, j: usize, via: EgressId, until: Time) {
        self.mobiles[j].paging = vec![(via, until)];
    }

    /// Cellular IP paging: mobile `j`'s paging-cache mappings here (egress, expiry), live or
    /// not.
    pub fn paging_entries(&self, j: usize) -> &[(EgressId, Time)] {
        &self.mobiles[j].paging
    }

    /// Mobile IP: this node belongs to a domain whose home agent is at `home_agent` and whose
    /// tunnel table is `tunnel` (the node is the home agent if `home_agent` is its address).
    pub fn set_mobile_ip(&mut self, home_agent: Addr, tunnel: Tunnel) {
        self.mip = Some((home_agent, tunnel));
    }

    /// Mobile IP, at the home agent: mobile `j`'s binding `fa` (base-station index) until
    /// `until` (the binding that exists at time 0).
    pub fn preinstall_binding(&mut self, j: usize, fa: usize, until: Time) {
        self.mobiles[j].binding = Some((fa, until));
    }

    /// Mobile IP, at the home agent: mobile `j`'s binding (foreign agent, expiry), live or not.
    pub fn binding(&self, j: usize) -> Option<(usize, Time)> {
        self.mobiles[j].binding
    }

    /// Sets mobile `j`'s downlink state here to `via` until `until` (the path that exists at
    /// time 0).
    pub fn preinstall(&mut self, j: usize, via: EgressId, until: Time) {
        self.mobiles[j].routes = vec![(via, until)];
    }

    /// Mobile `j`'s live downlink egresses at `now`, in installation order.
    pub fn routes(&self, j: usize, now: Time) -> Vec<EgressId> {
        self.mobiles[j]
            .routes
            .iter()
            .filter(|r| r.1 > now)
            .map(|r| r.0)
            .collect()
    }

    /// Copies waiting in this node's semisoft delay line
    /// ([`MobilityConfig::crossover_delay`]).
    pub fn delayed_len(&self) -> usize {
        self.delayed.len()
    }

    /// Mobile `j`'s downlink state here: (egress, expiry), live or not.
    pub fn entries(&self, j: usize) -> &[(EgressId, Time)] {
        &self.mobiles[j].routes
    }

    /// Packets queued in the radio toward mobile `j`.
    pub fn radio_queue_len(&self, j: usize) -> usize {
        self.mobiles[j].radio.as_ref().map_or(0, |r| r.queue.len())
    }

    /// The uids of the packets in this base station's radio queues, every mobile's (held or
    /// waiting to be sent; none at a node that is not a base station).
    pub fn radio_queue_uids(&self) -> impl Iterator<Item = u64> + '_ {
        self.mobiles
            .iter()
            .flat_map(|m| m.radio.iter())
            .flat_map(|r| r.queue.iter().map(|p| p.uid))
            .chain(self.delayed.iter().map(|d| d.2.uid))
    }

    pub(super) fn mobile_by_addr(&self, a: Addr) -> Option<usize> {
        self.mobiles.iter().position(|m| m.addr == a)
    }

    fn control(&self, kind: u16, dst: Addr, args: [u32; 4]) -> Packet {
        Packet::new(
            self.addr,
            dst,
            Body::Control(ControlHeader {
                family: self.cfg.protocol.family(),
                kind,
                bytes: self.cfg.control_bytes,
                args,
            }),
        )
    }

    pub(super) fn send_control(
        &mut self,
        ctx: &mut ElementCtx,
        kind: u16,
        dst: Addr,
        args: [u32; 4],
        via: Via,
    ) {
        self.stats.control_sent[kind as usize] += 1;
        let p = self.control(kind, dst, args);
        ctx.send(p, via);
    }

    /// A control message addressed to this node ends here; one on its way passes.
    pub(super) fn consume_if_mine(&self, pkt: &Packet) -> Disposition {
        if pkt.dst == self.addr {
            Disposition::Consume
        } else {
            Disposition::Pass
        }
    }

    /// Sends the packets held in the radio queue toward mobile `j` on over `via` (HAWAII
    /// MSF's old base station).
    pub(super) fn forward_held(&mut self, j: usize, via: EgressId, ctx: &mut ElementCtx) {
        if let Some(r) = self.mobiles[j].radio.as_mut() {
            for p in r.queue.drain(..) {
                self.stats.forwarded += 1;
                ctx.resend(p, Via::Egress(via));
            }
        }
    }

    pub(super) fn discard(&mut self, now: Time, j: usize, p: &Packet, reason: DiscardReason) {
        if is_data(p) {
            let handoff = self.mobiles[j].schedule.read().done_by(now);
            self.stats.discards.push(Discard {
                mh: j,
                uid: p.uid,
                handoff,
                reason,
            });
        }
    }

    /// A downlink packet for mobile `j`: forwarded by the live soft state (with Cellular IP
    /// paging, by the paging cache where there is none).
    pub(super) fn downlink(
        &mut self,
        now: Time,
        j: usize,
        pkt: &Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let paging = self.cfg.paging && self.cfg.protocol.pages();
        let m = &mut self.mobiles[j];
        m.routes.retain(|r| r.1 > now);
        if paging && m.routes.is_empty() {
            return self.page(now, j, pkt, ctx);
        }
        let radio_down = m.radio.as_ref().map(|r| r.down);
        let mut hops = [EgressId(0); NextHops::CAPACITY];
        let mut n = 0;
        let mut to_radio = false;
        // Cellular IP semisoft's fixed delay device (`crossover_delay`): at the crossover
        // (bicasting: a new-path mapping beside a confirmed one) the new path's copy waits.
        let crossover = self.cfg.crossover_delay.filter(|_| {
            m.semisoft
                .iter()
                .any(|e| m.routes.iter().any(|r| r.0 == *e))
                && m.routes.iter().any(|r| !m.semisoft.contains(&r.0))
        });
        let mut held = false;
        for &(e, _) in &m.routes {
            if let Some(d) = crossover.filter(|_| m.semisoft.contains(&e)) {
                self.delayed.push_back((now + d, j, pkt.clone(), e));
                held = true;
                continue;
            }
            if self.delayed.iter().any(|x| x.1 == j && x.3 == e) {
                // The path is confirmed but copies still wait in the delay line: this one
                // leaves behind them (the line is FIFO), not ahead.
                self.delayed.push_back((now, j, pkt.clone(), e));
                held = true;
                continue;
            }
            if Some(e) == radio_down {
                to_radio = true;
            } else if n < hops.len() {
                hops[n] = e;
                n += 1;
            }
        }
        if to_radio {
            self.radio_enqueue(now, j, pkt.clone(), ctx);
            if n == 0 {
                return Disposition::Consume;
            }
        }
        match n {
            0 if held => Disposition::Consume,
            0 => {
                self.stats.no_state += is_data(pkt) as u64;
                self.discard(now, j, pkt, DiscardReason::NoState);
                Disposition::Redirect(Next::Drop(DropReason::NoRoute))
            }
            1 => Disposition::Redirect(Next::Egress(hops[0])),
            _ => Disposition::Redirect(Next::Many(
                NextHops::many(&hops[..n]).expect("at most CAPACITY hops"),
            )),
        }
    }

    /// Releases the copies the crossover's delay device held whose time has come.
    fn release_delayed(&mut self, now: Time, ctx: &mut ElementCtx) {
        while self.delayed.front().is_some_and(|d| d.0 <= now) {
            let (_, j, p, e) = self.delayed.pop_front().expect("due");
            if self.mobiles[j].radio.as_ref().map(|r| r.down) == Some(e) {
                self.radio_enqueue(now, j, p, ctx);
            } else {
                ctx.resend(p, Via::Egress(e));
            }
        }
    }

    pub(super) fn radio_enqueue(&mut self, now: Time, j: usize, pkt: Packet, ctx: &mut ElementCtx) {
        let limit = self.cfg.radio_queue;
        let r = self.mobiles[j]
            .radio
            .as_mut()
            .expect("a radio at a base station");
        if r.queue.len() >= limit {
            self.stats.radio_overflow += 1;
            // A full queue of a mobile that is not here (held or early bicast copies) is part
            // of the handoff; at the serving base station it is congestion.
            let bs = self.bs.expect("a radio at a base station");
            if self.mobiles[j].schedule.read().listen(now, bs) != Listen::Hears {
                self.discard(now, j, &pkt, DiscardReason::RadioFull);
            }
            return;
        }
        r.queue.push_back(pkt);
        self.pump(now, j, ctx);
    }

    /// Runs mobile `j`'s radio at `now`: transmits the head if the transmitter is free and the
    /// base station may transmit; discards what a holding base station kept too long.
    fn pump(&mut self, now: Time, j: usize, ctx: &mut ElementCtx) {
        let Some(bs) = self.bs else { return };
        let cfg = self.cfg;
        let m = &mut self.mobiles[j];
        let Some(r) = m.radio.as_mut() else { return };
        if r.queue.is_empty() {
            return;
        }
        let transmit = match m.schedule.read().listen(now, bs) {
            Listen::Hears => true,
            Listen::PreAttach => !cfg.delay_device,
            Listen::Departed { since } => match cfg.departure {
                Departure::Blind => true,
                Departure::Hold => {
                    if now >= since + cfg.hold_time {
                        let k = m.schedule.read().done_by(now);
                        for p in r.queue.drain(..) {
                            if is_data(&p) {
                                self.stats.hold_discards += 1;
                                self.stats.discards.push(Discard {
                                    mh: j,
                                    uid: p.uid,
                                    handoff: k,
                                    reason: DiscardReason::Hold,
                                });
                            }
                        }
                    }
                    false
                }
            },
        };
        if transmit && r.busy_until <= now {
            let p = r.queue.pop_front().expect("not empty");
            // On the 802.11 air the MAC's notice frees the transmitter (`on_packet`).
            r.busy_until = if cfg.radio_mac {
                Time::MAX
            } else {
                now + r.rate.tx_time(p.size)
            };
            ctx.resend(p, Via::Egress(r.down));
        }
    }

    /// When this node next needs its timer.
    fn plan(&mut self, now: Time) {
        let mut wake = self.next_refresh;
        let mut at = |t: Time| wake = Some(wake.map_or(t, |w| w.min(t)));
        if let Some(d) = self.delayed.front() {
            at(d.0);
        }
        if let Some(bs) = self.bs {
            for m in &self.mobiles {
                let Some(r) = &m.radio else { continue };
                if r.queue.is_empty() {
                    continue;
                }
                if r.busy_until > now && r.busy_until != Time::MAX {
                    at(r.busy_until);
                }
                if let Some(t) = m.schedule.read().next_change(now) {
                    at(t);
                }
                if let Listen::Departed { since } = m.schedule.read().listen(now, bs) {
                    let t = since + self.cfg.hold_time;
                    if t > now {
                        at(t);
                    }
                }
            }
        }
        self.wake = wake;
    }
}

impl Element for DomainNode {
    fn on_packet(
        &mut self,
        now: Time,
        via: Option<EgressId>,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let Some(via) = via else {
            return Disposition::Pass;
        };
        // Uplink over the radio of one of the mobiles.
        if let Some(j) = self
            .mobiles
            .iter()
            .position(|m| m.radio.as_ref().is_some_and(|r| r.up == via))
        {
            if let Body::Control(c) = &pkt.body {
                if c.family == super::FAMILY_AIR {
                    // The MAC is done with the packet it had: the next may go. A handoff
                    // notice changes what the radio sees of the mobile: pump and re-plan.
                    if c.kind == super::AIR_MAC_DONE {
                        if let Some(r) = self.mobiles[j].radio.as_mut() {
                            r.busy_until = now;
                        }
                    }
                    self.pump(now, j, ctx);
                    self.plan(now);
                    return Disposition::Consume;
                }
            }
            if !matches!(pkt.body, Body::Control(_)) {
                let bs = self.bs.expect("a radio at a base station");
                if !self.mobiles[j].schedule.read().hears(now, bs) {
                    self.stats.uplink_unheard += 1;
                    return Disposition::Consume;
                }
                if self.cfg.loss_uplink
                    && self.cfg.radio_loss > 0.0
                    && pkt.tcp().is_some()
                    && self.rng.bernoulli(self.cfg.radio_loss)
                {
                    self.stats.uplink_radio_lost += 1;
                    return Disposition::Consume;
                }
            }
        }
        let protocol = self.cfg.protocol;
        let d = match &pkt.body {
            Body::Control(c) if Protocol::is_family(c.family) => {
                let c = *c;
                if c.family == protocol.family() {
                    protocol.on_control(self, now, via, pkt, c, ctx)
                } else {
                    // Another protocol's message: none of this domain's elements sends one.
                    Disposition::Pass
                }
            }
            _ => protocol.on_data(self, now, via, pkt, ctx),
        };
        self.plan(now);
        d
    }

    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        if self.next_refresh.is_some_and(|t| t <= now) {
            let protocol = self.cfg.protocol;
            protocol.on_refresh(self, now, ctx);
            let period = protocol.refresh_period(&self.cfg, self.bs);
            self.next_refresh = period.map(|p| now + p);
        }
        self.release_delayed(now, ctx);
        for j in 0..self.mobiles.len() {
            self.pump(now, j, ctx);
        }
        self.plan(now);
    }

    fn next_timeout(&self) -> Option<Time> {
        self.wake
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
