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
//! Under Mobile IP (RFC 5944) the nodes between the home agent and the foreign agents are
//! plain routers: the home agent rewrites a downlink packet's destination to the foreign
//! agent of the mobile's binding (the outer header of the tunnel, `tunnel_bytes` more on the
//! wire) and the foreign agent restores it and puts the packet in its radio queue. The inner
//! header travels beside the packet in a [`Tunnel`] table keyed by the packet's uid, shared by
//! the home agent and the foreign agents of one domain.

use super::schedule::{Listen, SharedSchedule};
use super::{
    kind, Departure, Discard, DiscardReason, HawaiiScheme, MobilityConfig, Protocol, FAMILY_CIP,
    FAMILY_HAWAII, FAMILY_MIP,
};
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
    queue: VecDeque<Packet>,
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
struct Mobile {
    addr: Addr,
    schedule: SharedSchedule,
    /// Live-until downlink egresses: several for a Cellular IP cache, at most one for HAWAII.
    routes: Vec<(EgressId, Time)>,
    /// At a base station: the radio toward this mobile.
    radio: Option<Radio>,
    /// Mobile IP, at the home agent: the binding (foreign agent's base-station index, expiry).
    binding: Option<(usize, Time)>,
    /// Cellular IP paging cache: live-until downlink egresses.
    paging: Vec<(EgressId, Time)>,
    /// Cellular IP semisoft: the routing-cache egresses a semisoft packet refreshed last (the
    /// new path, until a route-update or uplink data confirms it).
    semisoft: Vec<EgressId>,
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
    addr: Addr,
    cfg: MobilityConfig,
    /// This node's index among the base stations, if it is one.
    bs: Option<usize>,
    /// The gateway's (domain root's) address.
    gateway: Addr,
    /// For every egress of the network (by index), the other direction of its link.
    back: Arc<Vec<EgressId>>,
    /// Addresses of the base stations, by index.
    bs_addrs: Arc<Vec<Addr>>,
    /// This node's static next egress toward each base station (by index; `None` at itself).
    toward: Vec<Option<EgressId>>,
    mobiles: Vec<Mobile>,
    rng: Rng,
    next_refresh: Option<Time>,
    wake: Option<Time>,
    /// Mobile IP: the home agent's address and the domain's tunnel table.
    mip: Option<(Addr, Tunnel)>,
    /// Its downlink interfaces (toward the base stations below it; at a base station, none:
    /// its radios), where Cellular IP paging floods.
    children: Vec<EgressId>,
    /// Cellular IP semisoft's fixed delay device at the crossover
    /// ([`MobilityConfig::crossover_delay`]): (release time, mobile, packet, egress), in
    /// release order (one delay for every copy).
    delayed: VecDeque<(Time, usize, Packet, EgressId)>,
    /// What it counted.
    pub stats: NodeStats,
}

fn is_data(p: &Packet) -> bool {
    p.payload() > 0
}

/// Soft state: drops the lapsed mappings, then `via`'s lives `life` from `now`.
fn refresh(map: &mut Vec<(EgressId, Time)>, now: Time, via: EgressId, life: packetsim_kernel::Dur) {
    let until = now + life;
    map.retain(|r| r.1 > now);
    match map.iter_mut().find(|r| r.0 == via) {
        Some(r) => r.1 = until,
        None => map.push((via, until)),
    }
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
        let next_refresh = match (cfg.protocol, bs) {
            (Protocol::Hawaii(_), Some(_)) => Some(Time::ZERO + cfg.refresh),
            _ => None,
        };
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

    fn mobile_by_addr(&self, a: Addr) -> Option<usize> {
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

    fn send_control(
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

    /// Cellular IP: a mapping for mobile `j` on `via` lives `route_timeout` from now (with
    /// paging, its paging-cache mapping `paging_timeout`: every uplink packet refreshes both,
    /// spec 5 §2.3).
    fn cip_refresh(&mut self, now: Time, j: usize, via: EgressId) {
        // Any uplink packet but a semisoft one confirms the path it came up (see
        // `semisoft_refresh`).
        self.mobiles[j].semisoft.retain(|&e| e != via);
        refresh(
            &mut self.mobiles[j].routes,
            now,
            via,
            self.cfg.route_timeout,
        );
        if self.cfg.paging {
            self.pc_refresh(now, j, via);
        }
    }

    /// Cellular IP: a semisoft packet came up from `via`: its mapping is refreshed and marked as
    /// the new path (spec 5 §2.3), whose copies the crossover's fixed delay device holds back.
    fn semisoft_refresh(&mut self, now: Time, j: usize, via: EgressId) {
        self.cip_refresh(now, j, via);
        self.mobiles[j].semisoft.push(via);
    }

    /// Cellular IP paging: mobile `j`'s paging-cache mapping on `via` lives `paging_timeout`
    /// from now.
    fn pc_refresh(&mut self, now: Time, j: usize, via: EgressId) {
        refresh(
            &mut self.mobiles[j].paging,
            now,
            via,
            self.cfg.paging_timeout,
        );
    }

    /// HAWAII: mobile `j`'s single entry points at `via` for `3·T_ref` from now.
    fn hawaii_set(&mut self, now: Time, j: usize, via: EgressId) {
        let until = now + self.cfg.entry_timeout();
        self.mobiles[j].routes = vec![(via, until)];
    }

    fn discard(&mut self, now: Time, j: usize, p: &Packet, reason: DiscardReason) {
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

    /// A downlink packet for mobile `j`: forwarded by the live soft state.
    fn downlink(&mut self, now: Time, j: usize, pkt: &Packet, ctx: &mut ElementCtx) -> Disposition {
        let paging = self.cfg.paging && matches!(self.cfg.protocol, Protocol::Cip(_));
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

    /// Cellular IP paging (spec 5 §2.3): a downlink packet (data, a SYN, an ACK) for mobile
    /// `j`, which has no
    /// routing-cache mapping here, follows the live paging-cache mappings, or where there are
    /// none every downlink interface. A base station broadcasts it in its cell: it reaches the
    /// mobile's radio queue if the mobile hears the cell and is lost otherwise.
    fn page(&mut self, now: Time, j: usize, pkt: &Packet, ctx: &mut ElementCtx) -> Disposition {
        let m = &mut self.mobiles[j];
        m.paging.retain(|r| r.1 > now);
        if let Some(bs) = self.bs {
            if m.schedule.read().listen(now, bs) == Listen::Hears {
                if m.paging.is_empty() {
                    self.stats.flooded += 1;
                } else {
                    self.stats.paged += 1;
                }
                self.radio_enqueue(now, j, pkt.clone(), ctx);
                return Disposition::Consume;
            }
            self.discard(now, j, pkt, DiscardReason::PageMiss);
            return Disposition::Redirect(Next::Drop(DropReason::NoRoute));
        }
        let mut hops = [EgressId(0); NextHops::CAPACITY];
        let mut n = 0;
        let from: Vec<EgressId> = if m.paging.is_empty() {
            self.stats.flooded += 1;
            self.children.clone()
        } else {
            self.stats.paged += 1;
            m.paging.iter().map(|r| r.0).collect()
        };
        for e in from {
            if n < hops.len() && !hops[..n].contains(&e) {
                hops[n] = e;
                n += 1;
            }
        }
        match n {
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

    fn radio_enqueue(&mut self, now: Time, j: usize, pkt: Packet, ctx: &mut ElementCtx) {
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

    /// A control message of this node's protocol family.
    fn on_control(
        &mut self,
        now: Time,
        via: EgressId,
        pkt: &Packet,
        c: ControlHeader,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let mine = pkt.dst == self.addr;
        let Some(j) = self.mobile_by_addr(Addr(c.args[0])) else {
            return Disposition::Pass;
        };
        let back = self.back[via.idx()];
        match (self.cfg.protocol, c.kind) {
            (Protocol::Cip(_), kind::ROUTE_UPDATE) => {
                self.cip_refresh(now, j, back);
            }
            (Protocol::Cip(_), kind::SEMISOFT) => {
                self.semisoft_refresh(now, j, back);
            }
            (Protocol::Cip(_), kind::PAGING_UPDATE) if self.cfg.paging => {
                self.pc_refresh(now, j, back);
            }
            (Protocol::Hawaii(scheme), kind::REGISTER) if mine => {
                // The new base station: its entry points at the radio; the path setup leaves
                // for the old base station (spec 5 §2.4, MSF step 2 / UNF).
                let radio = self.mobiles[j].radio.as_ref().expect("a base station").down;
                self.hawaii_set(now, j, radio);
                let me = self.bs.expect("registration at a base station") as u32;
                if c.args[1] > 0 {
                    let old = self.bs_addrs[c.args[1] as usize - 1];
                    let k = match scheme {
                        HawaiiScheme::Msf => kind::PATH_SETUP,
                        HawaiiScheme::Unf => kind::PATH_SETUP_UNF,
                    };
                    self.send_control(ctx, k, old, [c.args[0], me, 1, 0], Via::Route);
                }
            }
            (Protocol::Hawaii(_), kind::PATH_SETUP) => {
                let new = c.args[1] as usize;
                if c.args[2] == 1 {
                    if mine {
                        // MSF step 3: the old base station points at the new one, sends the
                        // path setup on, then its held packets behind it (the message goes
                        // first so that each router is re-pointed before they reach it).
                        let up = self.toward[new].expect("a route to the new base station");
                        self.hawaii_set(now, j, up);
                        let dst = self.bs_addrs[new];
                        self.send_control(
                            ctx,
                            kind::PATH_SETUP,
                            dst,
                            [c.args[0], c.args[1], 2, 0],
                            Via::Egress(up),
                        );
                        if let Some(r) = self.mobiles[j].radio.as_mut() {
                            for p in r.queue.drain(..) {
                                self.stats.forwarded += 1;
                                ctx.resend(p, Via::Egress(up));
                            }
                        }
                    }
                    // On its way to the old base station: entries untouched (MSF step 2).
                } else if !mine {
                    // MSF step 4: every node from the old base station to the new one.
                    let e = self.toward[new].expect("a route to the new base station");
                    self.hawaii_set(now, j, e);
                }
            }
            (Protocol::Hawaii(_), kind::PATH_SETUP_UNF) if !mine => {
                // UNF: every node on the way, crossover included, points back toward the new
                // base station; the old base station keeps its entry (what is below the
                // crossover reaches the mobile only if it still hears the old cell).
                self.hawaii_set(now, j, back);
            }
            (Protocol::Hawaii(_), kind::REFRESH) => self.hawaii_set(now, j, back),
            _ => {}
        }
        if mine {
            Disposition::Consume
        } else {
            Disposition::Pass
        }
    }
}

impl DomainNode {
    fn is_home_agent(&self) -> bool {
        self.mip.as_ref().is_some_and(|m| m.0 == self.addr)
    }

    /// Mobile IP registration messages (RFC 5944 §3).
    fn on_mip_control(
        &mut self,
        now: Time,
        pkt: &Packet,
        c: ControlHeader,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        if pkt.dst != self.addr {
            return Disposition::Pass;
        }
        let Some(j) = self.mobile_by_addr(Addr(c.args[0])) else {
            return Disposition::Consume;
        };
        let fa = c.args[1] as usize;
        let until = now + self.cfg.mip_lifetime;
        let args = [c.args[0], c.args[1], 0, 0];
        match c.kind {
            kind::REG_REQUEST if self.is_home_agent() => {
                // §3.8.3: the home agent accepts, records the care-of address (the foreign
                // agent) with the lifetime, and replies to the foreign agent.
                self.mobiles[j].binding = Some((fa, until));
                let dst = self.bs_addrs[fa];
                self.send_control(ctx, kind::REG_REPLY, dst, args, Via::Route);
            }
            kind::REG_REQUEST if self.bs.is_some() => {
                // §3.7.2: the foreign agent relays the request to the home agent.
                let ha = self.mip.as_ref().expect("a Mobile IP node").0;
                self.send_control(ctx, kind::REG_REQUEST, ha, args, Via::Route);
            }
            kind::REG_REPLY if self.bs.is_some() => {
                // §3.7.3: a successful reply makes the visitor-list entry (delivery over this
                // radio for the lifetime) and is relayed to the mobile.
                let radio = self.mobiles[j].radio.as_ref().expect("a base station").down;
                self.mobiles[j].routes = vec![(radio, until)];
                self.stats.control_sent[kind::REG_REPLY as usize] += 1;
                let p = self.control(kind::REG_REPLY, self.mobiles[j].addr, args);
                ctx.send(p, Via::Egress(radio));
            }
            _ => {}
        }
        Disposition::Consume
    }

    /// Mobile IP data: the home agent tunnels what is addressed to a mobile, a foreign agent
    /// detunnels what is addressed to it; nothing else reaches a mobile.
    fn mip_data(&mut self, now: Time, pkt: &mut Packet, ctx: &mut ElementCtx) -> Disposition {
        let (_, tunnel) = self.mip.as_ref().expect("a Mobile IP node");
        if pkt.dst == self.addr && self.bs.is_some() {
            let inner = tunnel.borrow_mut().remove(&pkt.uid);
            let Some(j) = inner else {
                return Disposition::Pass;
            };
            pkt.dst = self.mobiles[j].addr;
            pkt.size -= self.cfg.tunnel_bytes;
            let radio = self.mobiles[j].radio.as_ref().expect("a base station").down;
            if self.mobiles[j]
                .routes
                .iter()
                .any(|r| r.0 == radio && r.1 > now)
            {
                self.radio_enqueue(now, j, pkt.clone(), ctx);
                return Disposition::Consume;
            }
            self.stats.no_state += is_data(pkt) as u64;
            self.discard(now, j, pkt, DiscardReason::NoState);
            return Disposition::Redirect(Next::Drop(DropReason::NoRoute));
        }
        let Some(j) = self.mobile_by_addr(pkt.dst) else {
            return Disposition::Pass;
        };
        let binding = self.mobiles[j].binding.filter(|b| b.1 > now);
        match binding {
            Some((fa, _)) if self.is_home_agent() => {
                tunnel.borrow_mut().insert(pkt.uid, j);
                pkt.dst = self.bs_addrs[fa];
                pkt.size += self.cfg.tunnel_bytes;
                Disposition::Pass
            }
            _ => {
                self.stats.no_state += is_data(pkt) as u64;
                self.discard(now, j, pkt, DiscardReason::NoState);
                Disposition::Redirect(Next::Drop(DropReason::NoRoute))
            }
        }
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
        let d = match &pkt.body {
            Body::Control(c) if c.family == FAMILY_CIP || c.family == FAMILY_HAWAII => {
                let c = *c;
                self.on_control(now, via, pkt, c, ctx)
            }
            Body::Control(c) if c.family == FAMILY_MIP => {
                let c = *c;
                self.on_mip_control(now, pkt, c, ctx)
            }
            _ if self.mip.is_some() => {
                if self.mobile_by_addr(pkt.src).is_some() {
                    Disposition::Pass
                } else {
                    self.mip_data(now, pkt, ctx)
                }
            }
            _ => {
                if let Some(j) = self.mobile_by_addr(pkt.src) {
                    // Uplink data refreshes a Cellular IP cache (spec 5 §2.3).
                    if matches!(self.cfg.protocol, Protocol::Cip(_)) {
                        let back = self.back[via.idx()];
                        self.cip_refresh(now, j, back);
                    }
                    Disposition::Pass
                } else if let Some(j) = self.mobile_by_addr(pkt.dst) {
                    self.downlink(now, j, pkt, ctx)
                } else {
                    Disposition::Pass
                }
            }
        };
        self.plan(now);
        d
    }

    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        if self.next_refresh.is_some_and(|t| t <= now) {
            let bs = self.bs.expect("refreshes at base stations");
            for j in 0..self.mobiles.len() {
                let radio = self.mobiles[j].radio.as_ref().expect("a radio").down;
                let registered = self.mobiles[j]
                    .routes
                    .iter()
                    .any(|r| r.0 == radio && r.1 > now);
                if registered && self.mobiles[j].schedule.read().serving(now) == Some(bs) {
                    // HAWAII soft state: the base station serving a registered mobile refreshes
                    // its own entry and sends a refresh toward the domain root.
                    self.hawaii_set(now, j, radio);
                    let args = [self.mobiles[j].addr.0, 0, 0, 0];
                    self.send_control(ctx, kind::REFRESH, self.gateway, args, Via::Route);
                }
            }
            self.next_refresh = Some(now + self.cfg.refresh);
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
