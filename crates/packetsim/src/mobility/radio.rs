//! The access domain on a real radio (issue 34, spec 5 Q2 revised): the base stations and
//! the mobiles on one shared 802.11 DCF channel (`wifi`), the mobiles moving along the line of
//! base stations, and the handoffs produced by the base stations' beacons and the mobile's
//! beacon rule (`wifi::motion`) instead of a schedule.
//!
//! - **One shared channel.** ns-2's wireless model, on which CIMS ran, puts every node on one
//!   `Channel/WirelessChannel`; who hears whom follows from positions and the propagation
//!   model only (ns-2.35's 802.11 has no channel assignment). So here too: one [`Channel`], the
//!   base stations at `spacing` metres on a line, and neighbouring base stations that are in
//!   range of each other share the medium (carrier sense, collisions, hidden stations).
//! - **Motion.** A mobile moves along the base stations at a constant speed, BS1 → BS4 → BS1 …
//!   ([`ping_pong_path`]). Its handoffs are where the beacon rule switches, near the midpoints
//!   between neighbours: one every `spacing / speed`; [`speed_for`] gives the speed that makes
//!   `h` of them in the run.
//! - **Beacons and handoff.** Every base station beacons every `interval`, staggered
//!   (`Beacons::at`). With [`Cells::beacons_on_air`] (the default) a beacon is a 50-byte
//!   broadcast frame that the base station's MAC sends at its time ahead of its queue
//!   (`Dcf::enqueue_first`): it waits DIFS and a backoff, waits for a frame on the air, can
//!   collide and is lost out of range, like any frame. The mobile decodes the beacons that
//!   reach it and feeds each, with its received power (TwoRayGround at the positions of that
//!   instant), to its [`HandoffMonitor`]: a stronger beacon of another base station hands off
//!   at once, and the current base station unheard for `lost_after` intervals is lost (the
//!   mobile attaches to the next base station it hears; detached until then). So the
//!   detection delay (up to one interval after the border, plus the beacon's wait for the
//!   medium) and what is lost meanwhile follow from the mechanism. Each decision grows the
//!   mobile's [`SharedSchedule`] (append-only; a loss is pushed when the mobile attaches
//!   again, at the loss time with the detached time as extra gap) and the air tells the
//!   mobile's host and every base station with a [`FAMILY_AIR`] / [`AIR_HANDOFF`] notice, so
//!   the protocol elements act on it as they act on a scheduled handoff; under Cellular IP
//!   semisoft the decision sends the semisoft packet and the switch follows `semisoft_delay`
//!   later (the schedule's lead). The decisions are the air's [`AirElement::handoffs`] and
//!   rows of the event trace. Without `beacons_on_air` the beacons are computed from the
//!   motion before the run and take no airtime ([`beacon_schedule`]), the earlier model.
//! - **The radio.** Each (base station, mobile) pair is joined through an `AIR` hub node by two
//!   instantaneous links, and the [`AirElement`] at the hub puts every packet crossing it on
//!   the channel, from the sender's station to the receiver's, and sends it on when the
//!   receiving MAC delivers it. The base station's radio queue (`B_bs`) stays in its
//!   [`super::DomainNode`] (so that it can hold, discard or forward it as before): it hands
//!   the MAC one packet at a time ([`super::MobilityConfig::radio_mac`]) and the air tells it
//!   when the MAC is done ([`super::FAMILY_AIR`]). A frame to a mobile out of range is retried
//!   up to the retry limit and dropped: those MAC drops are the radio's handoff losses,
//!   counted in [`AirStats`] and handed to the world as drops (`mac_retry_limit`,
//!   `mac_queue`).
//!
//! What the schedule's "hears" means here: the base station the mobile is associated with (it
//! takes packets from that base station only); whether a frame gets through is the channel's.

use super::domain::{add_wired, install_with, Domain, Layout, TreeParams};
use super::schedule::{Handoff, HandoffSchedule, SharedSchedule};
use super::{MobilityConfig, AIR_HANDOFF, AIR_MAC_DONE, FAMILY_AIR};
use crate::ids::{Addr, EgressId, ElementId, NodeId};
use crate::net::{DirectionParams, Disposition, Element, ElementCtx, ErrorModel, Net, Via};
use crate::packet::{Body, ControlHeader, Packet};
use crate::queue::{AnyAdmission, DropTail, QueueDisc, QueueLimit};
use crate::wifi::air::{Air, HandoffEvent, Radio};
use crate::wifi::motion::{Beacons, Decision, HandoffConfig, HandoffMonitor, Path, Traversal};
use crate::wifi::propagation::{Pos, Propagation};
use crate::wifi::stations::{Decided, Out, Stations};
use crate::wifi::{Channel, ChannelConfig, Sta};
use crate::world::World;
use packetsim_kernel::{Dur, Rate, Time};
use std::any::Any;

/// The cells: where the base stations are, the radio, the beacons and the handoff rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cells {
    /// Distance between neighbouring base stations on the line, metres (200).
    pub spacing: f64,
    /// Propagation and receive threshold (ns-2's TwoRayGround defaults: 250 m range).
    pub propagation: Propagation,
    /// Beacon interval (100 ms) and size.
    pub beacons: Beacons,
    /// The beacon rule (any stronger beacon; lost after 3 silent intervals).
    pub handoff: HandoffConfig,
    /// The channel: DCF settings (802.11b DSSS timing, data at 2 Mb/s, basic rate 1 Mb/s,
    /// ns-2.35's retry limits and 50-packet interface queue).
    pub channel: ChannelConfig,
    /// How often the air re-reads the mobiles' positions (10 ms).
    pub motion_step: Dur,
    /// Beacons are frames on the channel (true, the default): each base station's MAC sends
    /// a broadcast beacon at its time, contending with the data frames (DIFS, backoff) and
    /// lost to collisions or range like any frame; the mobile's rule hears the beacons it
    /// decodes, and its decisions grow the mobile's [`SharedSchedule`] during the run. False:
    /// the beacons are computed from the motion before the run ([`beacon_schedule`]; no
    /// airtime, never lost), the handoffs known in advance.
    pub beacons_on_air: bool,
}

impl Default for Cells {
    fn default() -> Cells {
        let mut channel = ChannelConfig::default();
        channel.dcf.phy.data_rate = Rate::mbps(2);
        Cells {
            spacing: 200.0,
            propagation: Propagation::default(),
            beacons: Beacons::default(),
            handoff: HandoffConfig::default(),
            channel,
            motion_step: Dur::from_millis(10),
            beacons_on_air: true,
        }
    }
}

/// The positions of `n` base stations `spacing` apart on the x axis from the origin.
pub fn bs_positions(n: usize, spacing: f64) -> Vec<Pos> {
    (0..n)
        .map(|i| Pos {
            x: i as f64 * spacing,
            y: 0.0,
        })
        .collect()
}

/// A mobile moving back and forth over the base stations' line at `speed` from `start`.
pub fn ping_pong_path(n_bs: usize, spacing: f64, speed: f64, start: Time) -> Path {
    Path {
        waypoints: bs_positions(n_bs, spacing),
        speed,
        start,
        traversal: Traversal::PingPong,
    }
}

/// The speed (m/s) at which a mobile starting at the first base station crosses `h` cell
/// borders in `period`: one every `period / h`, the k-th at `(k - 1/2) period / h` (plus the
/// detection delay), so exactly `h` handoffs happen in `period` when the detection delay is
/// under half a spacing's travel time.
pub fn speed_for(h: u32, period: Dur, spacing: f64) -> f64 {
    h as f64 * spacing / period.as_secs_f64()
}

/// The handoffs of a mobile moving along `path`, from the beacons of base stations at `bss`
/// and the beacon rule, up to `until` (see the module doc). A handoff decided at `t` switches
/// at `t + lead` (Cellular IP semisoft: the semisoft packet leaves at the decision). A loss
/// of the current base station at `t` followed by an attachment at `t'` is a handoff at `t`
/// with `t' - t` of extra gap.
pub fn beacon_schedule(
    path: &Path,
    bss: &[Pos],
    cells: &Cells,
    until: Time,
    lead: Dur,
) -> HandoffSchedule {
    let n = bss.len();
    let prop = &cells.propagation;
    let mut m = HandoffMonitor::new(HandoffConfig {
        interval: cells.beacons.interval,
        ..cells.handoff
    });
    let mut first = None;
    let mut lost: Option<(Time, usize)> = None;
    let mut s = HandoffSchedule::explicit(0, &[]);
    'beacons: for k in 0.. {
        for (i, bs) in bss.iter().enumerate() {
            let at = cells.beacons.at(i, n, k);
            if at > until {
                break 'beacons;
            }
            if let Some(due) = m.next_timeout().filter(|&t| t <= at) {
                if let Some(Decision::Lost { from }) = m.on_timer(due) {
                    lost = Some((due, from));
                }
            }
            let pr = prop.received_power(path.position(at).dist(*bs));
            if pr < prop.rx_threshold {
                continue;
            }
            match m.on_beacon(at, i, pr) {
                Some(Decision::Handoff { from: None, to }) => match (first, lost.take()) {
                    (None, _) => first = Some(to),
                    (Some(_), Some((t, from))) => {
                        s.handoffs.push(Handoff { at: t, from, to });
                        s.extra_gap.push(at - t);
                    }
                    (Some(_), None) => {}
                },
                Some(Decision::Handoff {
                    from: Some(from),
                    to,
                }) => {
                    s.handoffs.push(Handoff {
                        at: at + lead,
                        from,
                        to,
                    });
                    s.extra_gap.push(Dur::ZERO);
                }
                _ => {}
            }
        }
    }
    s.first = first.unwrap_or(0);
    s
}

/// What the air counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AirStats {
    /// Packets the MACs dropped (retry limit, full interface queue), data packets only, per
    /// mobile (downlink and uplink).
    pub mac_drops: Vec<u64>,
    /// Of those, the downlink ones (base station → mobile).
    pub mac_drops_down: Vec<u64>,
    /// Retransmissions (MAC `retries`), all stations.
    pub retries: u64,
    /// Frames lost to collisions at a receiver, all stations.
    pub collided: u64,
}

/// One direction of one (base station, mobile) pair through the air.
#[derive(Clone, Copy, Debug)]
struct Port {
    /// Arrives at the hub over this egress.
    inbound: EgressId,
    from: Sta,
    to: Sta,
    /// Leaves the hub toward the receiver.
    out: EgressId,
    /// Base station senders: the notice egress (hub → base station) and its address.
    notice: Option<(EgressId, Addr)>,
    /// Which mobile.
    mh: usize,
}

/// What the air does for one mobile when its beacon rule decides (beacons on the air).
#[derive(Clone, Debug)]
struct Live {
    /// The mobile's schedule, shared with its host and the domain's nodes.
    schedule: SharedSchedule,
    /// The switch follows the decision by this much (Cellular IP semisoft: `S`).
    lead: Dur,
    /// Notices to the mobile (an egress from the hub to its node).
    host: EgressId,
    /// Notices to each base station (hub → base station egress, its address).
    bss: Vec<(EgressId, Addr)>,
    /// The current base station was lost at this time (detached since).
    lost: Option<(Time, usize)>,
    /// The mobile's first attachment was heard.
    attached: bool,
}

/// The shared 802.11 channel of a radio domain as a node element at its `AIR` hub: the
/// stations of `wifi::stations` (the base stations, then the mobiles) and the ports that map
/// a packet arriving at the hub to its (sender, receiver) pair.
pub struct AirElement {
    /// The stations (`wifi::stations`, shared with the `wifi` link kind's element); each held
    /// packet tagged with its port.
    st: Stations<usize>,
    ports: Vec<Port>,
    /// Base stations (the first stations).
    n_bs: usize,
    /// Mobiles (the stations after the base stations).
    n_mh: usize,
    step: Dur,
    next_move: Time,
    stats: AirStats,
    /// Per mobile, with beacons on the air.
    live: Vec<Live>,
    /// The channel's outputs being carried out (kept to reuse its allocation).
    outs: Vec<Out<usize>>,
}

impl std::fmt::Debug for AirElement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AirElement")
            .field("ports", &self.ports.len())
            .field("held", &self.st.held())
            .finish()
    }
}

impl AirElement {
    /// The air of base stations at `fixed` (nodes `nodes[..fixed.len()]`) and mobiles moving
    /// along `paths` (the rest of `nodes`). With beacons on the air the base stations beacon
    /// and each mobile's rule decides its handoffs, handed to `live`; without, no station
    /// beacons (the handoffs were computed before the run, [`beacon_schedule`]).
    fn new(
        cells: &Cells,
        fixed: Vec<Pos>,
        paths: Vec<Path>,
        ports: Vec<Port>,
        nodes: Vec<NodeId>,
        live: Vec<Live>,
        seed: u64,
    ) -> Self {
        let (n_bs, n_mh) = (fixed.len(), paths.len());
        let mut st = Stations::new(nodes, cells.channel, seed);
        let mut positions = fixed;
        positions.extend(paths.iter().map(|p| p.position(Time::ZERO)));
        let mut moving: Vec<Option<Path>> = vec![None; n_bs];
        moving.extend(paths.into_iter().map(Some));
        let base_stations = match cells.beacons_on_air {
            true => (0..n_bs as u16).map(Sta).collect(),
            false => Vec::new(),
        };
        st.with_air(Air {
            radio: Radio::Propagation(cells.propagation),
            positions,
            paths: moving,
            base_stations,
            beacons: cells.beacons,
            handoff: HandoffConfig {
                interval: cells.beacons.interval,
                ..cells.handoff
            },
            follow_attachment: false,
        });
        AirElement {
            st,
            ports,
            n_bs,
            n_mh,
            step: cells.motion_step,
            next_move: Time::ZERO,
            stats: AirStats {
                mac_drops: vec![0; n_mh],
                mac_drops_down: vec![0; n_mh],
                ..AirStats::default()
            },
            live: if cells.beacons_on_air {
                live
            } else {
                Vec::new()
            },
            outs: Vec::new(),
        }
    }

    /// The mobiles' handoff decisions (beacons on the air; empty otherwise): when, which
    /// mobile (station `n_bs + j`), from and to which base station (station `i` is BS i+1).
    pub fn handoffs(&self) -> &[HandoffEvent] {
        self.st.handoffs()
    }

    /// The beacon rule decided `d` for station `m`: see [`AirElement::decide`].
    fn decided(&mut self, at: Time, decided: Vec<Decided>, ctx: &mut ElementCtx) {
        for (m, d, _) in decided {
            self.decide(at, m, d, ctx);
        }
    }

    /// Station `m`'s rule decided `d` at `at`: the handoff goes into the mobile's schedule
    /// (see [`SharedSchedule`]) and the mobile and its base stations are told.
    fn decide(&mut self, at: Time, m: usize, d: Decision, ctx: &mut ElementCtx) {
        let j = m - self.n_bs;
        let live = &mut self.live[j];
        let first = live.schedule.read().first;
        let pushed = match d {
            Decision::Lost { from } => {
                live.lost = Some((at, from));
                None
            }
            Decision::Handoff {
                from: Some(from),
                to,
            } => Some((
                Handoff {
                    at: at + live.lead,
                    from,
                    to,
                },
                Dur::ZERO,
            )),
            Decision::Handoff { from: None, to } => match live.lost.take() {
                // Detached since `t`: a handoff at the loss, the wait its extra gap.
                Some((t, from)) => Some((Handoff { at: t, from, to }, at - t)),
                None if !live.attached => {
                    live.attached = true;
                    (to != first).then_some((
                        Handoff {
                            at,
                            from: first,
                            to,
                        },
                        Dur::ZERO,
                    ))
                }
                None => None,
            },
        };
        if let Some((h, extra)) = pushed {
            live.schedule.push(h, extra);
            let live = self.live[j].clone();
            let notice = |addr: Addr| {
                Packet::new(
                    addr,
                    addr,
                    Body::Control(ControlHeader {
                        family: FAMILY_AIR,
                        kind: AIR_HANDOFF,
                        bytes: 0,
                        args: [j as u32, 0, 0, 0],
                    }),
                )
            };
            for &(e, addr) in &live.bss {
                ctx.send(notice(addr), Via::Egress(e));
            }
            ctx.send(notice(Addr(0)), Via::Egress(live.host));
        }
    }

    /// The channel (MAC counters).
    pub fn channel(&self) -> &Channel {
        self.st.channel()
    }

    /// Runs the channel, the motion and the beacons up to `now`: who hears whom is
    /// re-computed every motion step.
    fn advance(&mut self, now: Time, ctx: &mut ElementCtx) {
        loop {
            let air = self.st.next_air_event().filter(|&t| t <= now);
            let step = air.map_or(self.next_move, |t| t.min(self.next_move));
            if step > now {
                break;
            }
            self.st.channel_mut().run_until(step);
            self.flush(ctx);
            if self.next_move == step {
                self.st.place(step);
                self.next_move += self.step;
            }
            if air == Some(step) {
                let decided = self.st.beacons_due(step);
                self.decided(step, decided, ctx);
                self.flush(ctx);
            }
        }
        self.st.channel_mut().run_until(now);
        self.flush(ctx);
        self.st.tell_handoffs(ctx);
    }

    fn notice(&self, port: &Port, ctx: &mut ElementCtx) {
        if let Some((e, addr)) = port.notice {
            let p = Packet::new(
                addr,
                addr,
                Body::Control(ControlHeader {
                    family: FAMILY_AIR,
                    kind: AIR_MAC_DONE,
                    bytes: 0,
                    args: [0; 4],
                }),
            );
            ctx.send(p, Via::Egress(e));
        }
    }

    fn flush(&mut self, ctx: &mut ElementCtx) {
        let mut outs = std::mem::take(&mut self.outs);
        self.st.take_into(&mut outs);
        for o in outs.drain(..) {
            match o {
                Out::Beacon { at, sta, from } => {
                    // Weighed at its power then, in range or not (hearing follows the
                    // motion steps).
                    let d = self
                        .st
                        .beacon_heard(at, sta, from, |radio, a, b| match radio {
                            Radio::Propagation(p) => p.received_power(a.dist(b)),
                            Radio::Range(_) => radio.power(a, b).unwrap_or(0.0),
                        });
                    if let Some((m, d, _)) = d {
                        self.decide(at, m, d, ctx);
                    }
                }
                Out::Delivered {
                    pkt: Some(p),
                    tag: Some(port),
                    ..
                } => {
                    ctx.resend(p, Via::Egress(self.ports[port].out));
                }
                Out::Delivered { .. } => {}
                Out::Sent { tag } => {
                    let port = self.ports[tag];
                    self.notice(&port, ctx);
                }
                Out::Dropped {
                    pkt, tag, reason, ..
                } => {
                    let port = self.ports[tag];
                    if let Some(p) = pkt {
                        if p.payload() > 0 {
                            self.stats.mac_drops[port.mh] += 1;
                            if port.notice.is_some() {
                                self.stats.mac_drops_down[port.mh] += 1;
                            }
                        }
                        ctx.drop(p, port.inbound, crate::wifi::report::drop_reason(reason));
                    }
                    self.notice(&port, ctx);
                }
            }
        }
        self.outs = outs;
    }

    /// What it counted, with the channel's counters.
    pub fn stats(&self) -> AirStats {
        let n = (self.n_bs + self.n_mh) as u16;
        let ch = self.st.channel();
        AirStats {
            retries: (0..n).map(|s| ch.mac(Sta(s)).stats().retries).sum(),
            collided: ch.stats().collided,
            ..self.stats.clone()
        }
    }
}

impl Element for AirElement {
    fn on_packet(
        &mut self,
        now: Time,
        via: Option<EgressId>,
        pkt: &mut Packet,
        ctx: &mut ElementCtx,
    ) -> Disposition {
        let Some(k) = via.and_then(|v| self.ports.iter().position(|p| p.inbound == v)) else {
            return Disposition::Pass;
        };
        self.advance(now, ctx);
        let port = self.ports[k];
        self.st.enqueue(port.from, port.to, pkt, k);
        self.flush(ctx);
        self.st.tell_handoffs(ctx);
        Disposition::Consume
    }

    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        self.advance(now, ctx);
    }

    fn next_timeout(&self) -> Option<Time> {
        [self.st.channel().next_event(), self.st.next_air_event()]
            .into_iter()
            .flatten()
            .fold(self.next_move, Time::min)
            .into()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn instant() -> DirectionParams {
    DirectionParams {
        rate: Rate::bps(1_000_000_000_000),
        delay: Dur::ZERO,
        queue: QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(
            10_000,
        )))),
        errors: ErrorModel::default(),
    }
}

/// A radio domain as built: the domain, the air's element and the mobiles' schedules.
#[derive(Clone, Debug)]
pub struct RadioDomain {
    /// The domain (its `radios` are the base stations' ends of the air links).
    pub domain: Domain,
    /// The `AIR` hub node.
    pub air_node: NodeId,
    /// The air's element.
    pub air: ElementId,
    /// Each mobile's handoffs, from its motion and the beacons (on the air: grown during
    /// the run, the handoffs decided so far).
    pub schedules: Vec<SharedSchedule>,
}

impl RadioDomain {
    /// The air's element.
    pub fn air<'w>(&self, world: &'w World) -> &'w AirElement {
        world.elements[self.air.idx()]
            .element
            .as_any()
            .downcast_ref()
            .expect("the air element")
    }
}

/// The air of a radio domain before the protocol is installed: the `AIR` hub node, a pair of
/// instantaneous links per (base station, mobile) through it ([`add_air`]), and the ports
/// that map a packet at the hub to its stations.
#[derive(Clone, Debug)]
pub struct AirLinks {
    /// The `AIR` hub node.
    pub air_node: NodeId,
    /// Per mobile, per base station: the base station's (sends, hears) egresses.
    pub bs_side: Vec<Vec<(EgressId, EgressId)>>,
    /// Per mobile, per base station: the mobile's (hears, sends) egresses.
    pub mh_side: Vec<Vec<(EgressId, EgressId)>>,
    ports: Vec<Port>,
    /// The stations' nodes: the base stations, then the mobiles.
    nodes: Vec<NodeId>,
}

/// Adds the `AIR` hub node and, per mobile, per base station, the links `air_bs<i>_mh<j>`
/// (base station → hub) and `air_mh<j>_bs<i>` (hub → mobile), instantaneous and of cost 1000
/// (no wired route crosses the air). Call before [`Net::compute_routes`].
pub fn add_air(net: &mut Net, bss: &[NodeId], mhs: &[NodeId], seed: u64) -> AirLinks {
    let air_node = net.add_node("AIR");
    let mut bs_side = Vec::new();
    let mut mh_side = Vec::new();
    let mut ports = Vec::new();
    for (j, &m) in mhs.iter().enumerate() {
        let (mut bs_per, mut mh_per) = (Vec::new(), Vec::new());
        for (i, &b) in bss.iter().enumerate() {
            let a = net.add_link(
                &format!("air_bs{}_mh{}", i + 1, j + 1),
                b,
                air_node,
                instant(),
                instant(),
                seed,
            );
            let c = net.add_link(
                &format!("air_mh{}_bs{}", j + 1, i + 1),
                air_node,
                m,
                instant(),
                instant(),
                seed,
            );
            net.set_cost(a, 1000);
            net.set_cost(c, 1000);
            let (a_ab, a_ba) = (net.links[a.idx()].ab, net.links[a.idx()].ba);
            let (c_ab, c_ba) = (net.links[c.idx()].ab, net.links[c.idx()].ba);
            // The base station's radio: sends on bs → air, hears the mobile on air → bs.
            bs_per.push((a_ab, a_ba));
            // The mobile's: hears the base station on air → mh, sends on mh → air.
            mh_per.push((c_ab, c_ba));
            let bs_sta = Sta(i as u16);
            let mh_sta = Sta((bss.len() + j) as u16);
            ports.push(Port {
                inbound: a_ab,
                from: bs_sta,
                to: mh_sta,
                out: c_ab,
                notice: Some((a_ba, net.addr_of(b))),
                mh: j,
            });
            ports.push(Port {
                inbound: c_ba,
                from: mh_sta,
                to: bs_sta,
                out: a_ba,
                notice: None,
                mh: j,
            });
        }
        bs_side.push(bs_per);
        mh_side.push(mh_per);
    }
    AirLinks {
        air_node,
        bs_side,
        mh_side,
        ports,
        nodes: bss.iter().chain(mhs).copied().collect(),
    }
}

/// Each mobile's schedule at the start of a run on the air: with beacons on the air, empty
/// (decided during the run; until the first beacon, at the nearest base station); without,
/// computed from the motion and the beacons ([`beacon_schedule`]) up to `until`.
pub fn air_schedules(
    cells: &Cells,
    bss: &[Pos],
    paths: &[Path],
    until: Time,
    lead: Dur,
) -> Vec<HandoffSchedule> {
    paths
        .iter()
        .map(|path| {
            if cells.beacons_on_air {
                let at = path.position(Time::ZERO);
                let first = (0..bss.len())
                    .min_by(|&a, &b| bss[a].dist(at).total_cmp(&bss[b].dist(at)))
                    .unwrap_or(0);
                HandoffSchedule::explicit(first, &[])
            } else {
                beacon_schedule(path, bss, cells, until, lead)
            }
        })
        .collect()
}

/// The protocol on the air: [`super::install`] with the mobiles' ends of the radios on the
/// hub's links, `cfg.radio_mac` set, and the air element ready to be put at the hub
/// ([`AirInstalled::place`]).
pub struct AirInstalled {
    /// The protocol's elements, to be placed after the air's.
    pub parts: super::Parts,
    air_node: NodeId,
    air: AirElement,
}

/// Installs the protocol `cfg` of `layout` (whose `radios` are `links.bs_side`) on the air of
/// `links`, with base stations at `bss` and mobiles moving along `paths` under `cells`; the
/// handoffs start from `schedules` ([`air_schedules`]).
#[allow(clippy::too_many_arguments)]
pub fn install_air(
    net: &mut Net,
    layout: Layout,
    links: AirLinks,
    cfg: &MobilityConfig,
    cells: &Cells,
    bss: Vec<Pos>,
    paths: &[Path],
    schedules: &[HandoffSchedule],
    seed: u64,
) -> Result<AirInstalled, String> {
    let mut cfg = *cfg;
    cfg.radio_mac = true;
    let AirLinks {
        air_node,
        mh_side,
        ports,
        nodes,
        ..
    } = links;
    let parts = install_with(
        net,
        layout,
        Some(mh_side),
        &cfg,
        schedules,
        Rate::mbps(2),
        seed,
    )?;
    let live: Vec<Live> = parts
        .schedules()
        .iter()
        .enumerate()
        .map(|(j, sched)| {
            let mine = || ports.iter().filter(move |p| p.mh == j);
            Live {
                schedule: sched.clone(),
                lead: cfg.lead(),
                host: mine().find(|p| p.notice.is_some()).expect("a port").out,
                bss: mine().filter_map(|p| p.notice).collect(),
                lost: None,
                attached: false,
            }
        })
        .collect();
    let air = AirElement::new(cells, bss, paths.to_vec(), ports, nodes, live, seed);
    Ok(AirInstalled {
        parts,
        air_node,
        air,
    })
}

impl AirInstalled {
    /// Puts the air's element at its hub, then the protocol's elements: the domain and the
    /// air's element.
    pub fn place(self, world: &mut World) -> (super::Domain, ElementId) {
        let air = world.add_element(self.air_node, Box::new(self.air), true);
        (self.parts.place(world), air)
    }
}

/// The tree of [`super::build_tree`] (same nodes, wired links and protocol elements) on the
/// radio of the module doc: one mobile per path, handoffs from the beacons. `cfg.radio_mac`
/// is set here.
pub fn build_radio_tree(
    p: &TreeParams,
    cfg: &MobilityConfig,
    cells: &Cells,
    paths: &[Path],
    seed: u64,
) -> (World, RadioDomain) {
    let mut net = Net::default();
    let w = add_wired(&mut net, p, paths.len(), seed);
    let links = add_air(&mut net, &w.bss, &w.mhs, seed);
    let air_node = links.air_node;
    let fixed = bs_positions(w.bss.len(), cells.spacing);
    net.compute_routes();
    let until = Time::ZERO + p.duration;
    let schedules = air_schedules(cells, &fixed, paths, until, cfg.lead());
    let layout = Layout {
        gw: w.gw,
        bss: w.bss.clone(),
        mhs: w.mhs.clone(),
        ha: w.ha,
        radios: links.bs_side.clone(),
    };
    let installed = install_air(
        &mut net, layout, links, cfg, cells, fixed, paths, &schedules, seed,
    )
    .expect("the canonical tree is a valid domain");
    let mut world = World::new(net, until);
    let (mut domain, air) = installed.place(&mut world);
    domain.cn = w.cn;
    (
        world,
        RadioDomain {
            schedules: domain.schedules.clone(),
            domain,
            air_node,
            air,
        },
    )
}
