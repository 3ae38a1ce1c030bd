//! The element at a mobile host: the radio it hears (spec 5 §2.2), random loss of downlink TCP
//! packets, its handoff actions (Cellular IP semisoft packet and route-update, spec 5 §2.3;
//! HAWAII registration, spec 5 §2.4; Mobile IP registration through the new foreign agent,
//! RFC 5944 §3.3, and again when half the lifetime has passed, §3.6.1.2), Cellular IP's
//! periodic route-update, and what arrives
//! (duplicates, reordering, the copies received, for handoff-loss accounting). What each
//! protocol does at those instants is in its own file ([`super::MobilityProtocol`]).
//!
//! The mobile's own packets leave its node by host routes this element installs toward its
//! current base station's radio, for every address it talks to. An element sees only packets
//! arriving at its node, not those its node's endpoints send, so "the mobile sent uplink data"
//! is read from what it received: the TCP receivers acknowledge every segment at once
//! (spec 5 §2.6), so a TCP packet handed to them is an uplink packet sent at that instant.

use super::schedule::{HandoffSchedule, SharedSchedule};
use super::{Discard, DiscardReason, MobilityConfig, Protocol};
use crate::ids::{Addr, EgressId, NodeId};
use crate::net::{Disposition, Element, ElementCtx, HostRoute, NextHops, Via};
use crate::packet::{Body, ControlHeader, Packet};
use packetsim_kernel::{Dur, Rng, Time};
use std::any::Any;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

/// Something the mobile does at a scheduled instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    /// The protocol's announcement of the switch to base station `to`, `lead` before it
    /// (Cellular IP semisoft's semisoft packet).
    Announce { to: usize },
    /// Attach to `to` (leaving `from`): uplink routes, route-update or registration.
    Attach { from: usize, to: usize },
}

/// What a mobile counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostStats {
    /// Control messages sent, by kind.
    pub control_sent: [u64; super::kind::COUNT],
    /// Data packets handed to the endpoints.
    pub data_received: u64,
    /// Data packets whose sequence number had arrived before (bicast copies, spurious
    /// retransmissions).
    pub duplicates: u64,
    /// Data packets below the highest sequence number seen on their flow (not duplicates).
    pub out_of_order: u64,
    /// Downlink TCP packets lost on the radio.
    pub radio_lost: u64,
    /// Downlink packets from a base station the mobile could not hear (lost).
    pub unheard: u64,
    /// Data packets sent to it that it could not hear (see [`Discard`]).
    pub discards: Vec<Discard>,
    /// Uids of the data packets it received (copies share a uid).
    pub received: HashSet<u64>,
    /// Uids of the data packets lost on its radio (to radio error, not to the handoff).
    pub radio_lost_uids: HashSet<u64>,
    /// When each data packet that was not a duplicate arrived, in order.
    pub arrivals: Vec<Time>,
}

/// The element at a mobile host (see the module doc).
#[derive(Debug)]
pub struct MobileHost {
    index: usize,
    node: NodeId,
    pub(super) addr: Addr,
    pub(super) cfg: MobilityConfig,
    pub(super) schedule: SharedSchedule,
    pub(super) gateway: Addr,
    pub(super) bs_addrs: Arc<Vec<Addr>>,
    /// Per base station: (mobile → base station, base station → mobile).
    radios: Vec<(EgressId, EgressId)>,
    /// Addresses the mobile's uplink packets go to.
    peers: Vec<Addr>,
    actions: VecDeque<(Time, Action)>,
    /// Handoffs of the schedule already turned into actions.
    known: usize,
    /// The base station it attached to last.
    pub(super) attached: usize,
    /// Cellular IP: when it last sent something uplink (data or a route-update).
    pub(super) last_uplink: Time,
    /// Cellular IP paging: whether the mobile is active (always, without paging).
    pub(super) active: bool,
    /// Cellular IP paging: when a packet last reached its endpoints.
    pub(super) last_data: Time,
    /// Mobile IP: when it last sent a Registration Request.
    pub(super) last_registration: Time,
    rng: Rng,
    /// Per flow (by sender address and flow id): the sequence numbers seen and the highest.
    seen: HashMap<u32, (HashSet<u64>, u64)>,
    /// What it counted.
    pub stats: HostStats,
}

impl MobileHost {
    /// Mobile number `index` at `node` (address `addr`), moving by `schedule` over base
    /// stations whose radios (up, down) are `radios`; `peers`: the addresses its uplink goes
    /// to. `rng` draws the downlink radio losses.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        index: usize,
        node: NodeId,
        addr: Addr,
        cfg: MobilityConfig,
        schedule: SharedSchedule,
        gateway: Addr,
        bs_addrs: Arc<Vec<Addr>>,
        radios: Vec<(EgressId, EgressId)>,
        peers: Vec<Addr>,
        rng: Rng,
    ) -> MobileHost {
        let first = schedule.read().first;
        let mut h = MobileHost {
            index,
            node,
            addr,
            cfg,
            attached: first,
            schedule,
            gateway,
            bs_addrs,
            radios,
            peers,
            actions: VecDeque::new(),
            known: 0,
            last_uplink: Time::ZERO,
            active: true,
            last_data: Time::ZERO,
            last_registration: Time::ZERO,
            rng,
            seen: HashMap::new(),
            stats: HostStats::default(),
        };
        h.sync(Time::ZERO);
        h
    }

    /// Turns the handoffs its schedule gained since the last call into actions (all of them
    /// at construction; on the air, each one the air decided, when its notice arrives): the
    /// protocol's announcement `lead` before the switch (Cellular IP semisoft's semisoft
    /// packet, `semisoft_delay`), the attachment after the gap. An action whose time has
    /// passed (a loss of the base station, pushed when the mobile attaches again) is done now.
    fn sync(&mut self, now: Time) {
        let s = self.schedule.read();
        for (k, h) in s.handoffs.iter().enumerate().skip(self.known) {
            if let Some(lead) = self.cfg.protocol.lead(&self.cfg) {
                let at = Time(h.at.0.saturating_sub(lead.0));
                self.actions
                    .push_back((at.max(now), Action::Announce { to: h.to }));
            }
            self.actions.push_back((
                (h.at + s.gap_of(k)).max(now),
                Action::Attach {
                    from: h.from,
                    to: h.to,
                },
            ));
        }
        self.known = s.handoffs.len();
        drop(s);
        self.actions.make_contiguous().sort_by_key(|a| a.0);
    }

    /// Its schedule as it is now (on the air: the handoffs decided so far).
    pub fn schedule(&self) -> HandoffSchedule {
        self.schedule.snapshot()
    }

    /// The host routes that send the mobile's packets to base station `bs` (installed at
    /// build for the first one).
    pub fn uplink_routes(&self, bs: usize) -> Vec<HostRoute> {
        let up = self.radios[bs].0;
        self.peers
            .iter()
            .map(|&dst| HostRoute {
                dst,
                via: NextHops::one(up),
                expires: None,
            })
            .collect()
    }

    /// Its protocol.
    pub fn protocol(&self) -> Protocol {
        self.cfg.protocol
    }

    /// Cellular IP paging: whether it is active (always true without paging).
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Per handoff made, its outage as the mobile saw it: from the last new data packet that
    /// arrived before the switch (`t_k`) to the first one after it (a handoff with no data
    /// after it yet is left out).
    pub fn outages(&self) -> Vec<Dur> {
        let a = &self.stats.arrivals;
        let s = self.schedule.read();
        s.handoffs[..self.handoffs_done()]
            .iter()
            .filter_map(|h| {
                let i = a.partition_point(|&t| t < h.at);
                let after = a.get(i)?;
                let before = if i == 0 { Time::ZERO } else { a[i - 1] };
                Some(*after - before)
            })
            .collect()
    }

    /// Handoffs it has made (switches to another base station begun).
    pub fn handoffs_done(&self) -> usize {
        self.known - self.pending_attachments()
    }

    fn pending_attachments(&self) -> usize {
        self.actions
            .iter()
            .filter(|a| matches!(a.1, Action::Attach { .. }))
            .count()
    }

    /// Sends a control message of its protocol's family to `dst` over its radio to base
    /// station `bs`.
    pub(super) fn send_control(
        &mut self,
        ctx: &mut ElementCtx,
        k: u16,
        dst: Addr,
        args: [u32; 4],
        bs: usize,
    ) {
        self.stats.control_sent[k as usize] += 1;
        let p = Packet::new(
            self.addr,
            dst,
            Body::Control(ControlHeader {
                family: self.cfg.protocol.family(),
                kind: k,
                bytes: self.cfg.control_bytes,
                args,
            }),
        );
        ctx.send(p, Via::Egress(self.radios[bs].0));
    }

    fn record(&mut self, now: Time, p: &Packet) {
        let (flow, seq) = match &p.body {
            Body::Tcp(h) if h.payload > 0 => (p.flow.0, h.seq.0 as u64),
            Body::Udp { seq, payload } if *payload > 0 => (p.flow.0, *seq),
            _ => return,
        };
        self.stats.data_received += 1;
        self.stats.received.insert(p.uid);
        let (set, max) = self.seen.entry(flow).or_default();
        if !set.insert(seq) {
            self.stats.duplicates += 1;
        } else {
            self.stats.arrivals.push(now);
            if seq < *max {
                self.stats.out_of_order += 1;
            }
        }
        *max = (*max).max(seq);
    }
}

impl Element for MobileHost {
    fn on_packet(
        &mut self,
        now: Time,
        via: Option<EgressId>,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let Some(bs) = self.radios.iter().position(|r| Some(r.1) == via) else {
            return Disposition::Pass;
        };
        if let Body::Control(c) = &pkt.body {
            if c.family == super::FAMILY_AIR && c.kind == super::AIR_HANDOFF {
                // The air decided a handoff (beacons on the air, `radio`).
                self.sync(now);
            }
            return Disposition::Consume;
        }
        if !self.schedule.read().hears(now, bs) {
            self.stats.unheard += 1;
            if pkt.payload() > 0 {
                self.stats.discards.push(Discard {
                    mh: self.index,
                    uid: pkt.uid,
                    handoff: self.schedule.read().done_by(now),
                    reason: DiscardReason::Unheard,
                });
            }
            return Disposition::Consume;
        }
        if pkt.tcp().is_some()
            && self.cfg.radio_loss > 0.0
            && self.rng.bernoulli(self.cfg.radio_loss)
        {
            self.stats.radio_lost += 1;
            if pkt.payload() > 0 {
                self.stats.radio_lost_uids.insert(pkt.uid);
            }
            return Disposition::Consume;
        }
        self.record(now, pkt);
        let protocol = self.cfg.protocol;
        protocol.on_delivered(self, now, pkt, ctx);
        Disposition::Pass
    }

    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        let protocol = self.cfg.protocol;
        protocol.wake(self, now);
        while self.actions.front().is_some_and(|a| a.0 <= now) {
            let (_, action) = self.actions.pop_front().expect("due");
            match action {
                Action::Announce { to } => protocol.announce(self, now, to, ctx),
                Action::Attach { from, to } => {
                    self.attached = to;
                    for r in self.uplink_routes(to) {
                        ctx.install_route(self.node, r);
                    }
                    protocol.on_attach(self, now, from, to, ctx);
                }
            }
        }
        protocol.on_host_timer(self, now, ctx);
    }

    fn next_timeout(&self) -> Option<Time> {
        let action = self.actions.front().map(|a| a.0);
        let update = self.cfg.protocol.next_update(self);
        match (action, update) {
            (Some(a), Some(u)) => Some(a.min(u)),
            (a, u) => a.or(u),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
