//! The network seams (DESIGN.md, Network; issue "Network seams"): transmitter rate changes and
//! outage policies, dequeue tags, run-time host routes, multi-next-hop copies, node elements
//! with control packets and timers. Each test scripts a tiny network through the World API and
//! checks exact times and counts.
//!
//! Timing used throughout: 1500-byte packets on 8 Mb/s take 1.5 ms to send; at 4 Mb/s, 3 ms.

use packetsim::ids::{Addr, EgressId, ElementId, NodeId};
use packetsim::kernel::{Dur, Rate, Time};
use packetsim::net::{
    DequeueHook, DirectionParams, Disposition, Element, ElementCtx, ErrorModel, HostRoute,
    LinkChange, Net, NextHops, OutagePolicy, Request, Via,
};
use packetsim::packet::{Body, ControlHeader, Packet};
use packetsim::queue::{AnyAdmission, DropReason, DropTail, QueueDisc, QueueLimit};
use packetsim::world::World;
use std::any::Any;
use std::collections::VecDeque;

fn ms(x: f64) -> Time {
    Time::from_nanos((x * 1e6).round() as u64)
}

fn dir(rate_mbps: u64, delay: Dur) -> DirectionParams {
    DirectionParams {
        rate: Rate::mbps(rate_mbps),
        delay,
        queue: QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(
            100,
        )))),
        errors: ErrorModel::default(),
    }
}

/// A 1500-byte UDP data packet (1472 B payload) numbered `seq`.
fn data(src: Addr, dst: Addr, seq: u64) -> Packet {
    Packet::new(src, dst, Body::Udp { seq, payload: 1472 })
}

/// A control message of `bytes` above IP.
fn control(src: Addr, dst: Addr, kind: u16, bytes: u32) -> Packet {
    Packet::new(
        src,
        dst,
        Body::Control(ControlHeader {
            family: 7,
            kind,
            bytes,
            args: [0; 4],
        }),
    )
}

/// A test element that carries out scripted requests at scripted times and records when its
/// timer fired.
#[derive(Debug, Default)]
struct Script {
    steps: VecDeque<(Time, Request)>,
    fired: Vec<Time>,
}

impl Script {
    fn at(mut self, t: Time, r: Request) -> Script {
        self.steps.push_back((t, r));
        self
    }
    fn send(self, t: Time, pkt: Packet, via: Via) -> Script {
        self.at(
            t,
            Request::Send {
                pkt,
                via,
                fresh: true,
            },
        )
    }
}

impl Element for Script {
    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        self.fired.push(now);
        while self.steps.front().is_some_and(|(t, _)| *t <= now) {
            let (_, r) = self.steps.pop_front().unwrap();
            ctx.requests.push(r);
        }
    }
    fn next_timeout(&self) -> Option<Time> {
        self.steps.front().map(|(t, _)| *t)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One packet a [`Sink`] took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Got {
    at: Time,
    via: Option<EgressId>,
    uid: u64,
    queue_report: Option<u32>,
}

/// A test element that consumes every packet arriving at its node and records it.
#[derive(Debug, Default)]
struct Sink {
    got: Vec<Got>,
}

impl Element for Sink {
    fn on_packet(
        &mut self,
        now: Time,
        via: Option<EgressId>,
        pkt: &mut Packet,
        _ctx: &mut ElementCtx,
    ) -> Disposition {
        self.got.push(Got {
            at: now,
            via,
            uid: pkt.uid,
            queue_report: pkt.meta.queue_report,
        });
        Disposition::Consume
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn sink(w: &World, id: ElementId) -> &Sink {
    w.elements[id.idx()]
        .element
        .as_any()
        .downcast_ref::<Sink>()
        .expect("a sink")
}

fn script(w: &World, id: ElementId) -> &Script {
    w.elements[id.idx()]
        .element
        .as_any()
        .downcast_ref::<Script>()
        .expect("a script")
}

fn arrivals(w: &World, id: ElementId) -> Vec<Time> {
    sink(w, id).got.iter().map(|g| g.at).collect()
}

/// a -- b, 8 Mb/s, `delay` one way; the a→b direction prepared by `prep`.
fn pair(delay: Dur, prep: impl FnOnce(&mut packetsim::net::Egress)) -> (World, NodeId, NodeId) {
    let mut net = Net::default();
    let a = net.add_node("a");
    let b = net.add_node("b");
    let l = net.add_link("ab", a, b, dir(8, delay), dir(8, delay), 1);
    let ab = net.links[l.idx()].ab;
    prep(&mut net.egresses[ab.idx()]);
    net.compute_routes();
    (World::new(net, Time::from_millis(1_000)), a, b)
}

/// `n` data packets from a to b, all handed to the link at `t`.
fn burst(w: &World, a: NodeId, b: NodeId, t: Time, n: u64, s: Script) -> Script {
    let (sa, db) = (w.net.addr_of(a), w.net.addr_of(b));
    (0..n).fold(s, |s, i| s.send(t, data(sa, db, i), Via::Route))
}

/// `pair` with `n` packets from a to b handed over at 0 and a sink at b: the world, the
/// sink, and the a→b direction.
fn burst_to_sink(
    delay: Dur,
    n: u64,
    prep: impl FnOnce(&mut packetsim::net::Egress),
) -> (World, ElementId, EgressId) {
    let (mut w, a, b) = pair(delay, prep);
    let ab = w.net.links[0].ab;
    let s = burst(&w, a, b, Time::ZERO, n, Script::default());
    w.add_element(a, Box::new(s), false);
    let k = w.add_element(b, Box::new(Sink::default()), true);
    (w, k, ab)
}

// DESIGN.md, Network, Transmitter: "a rate change retimes packets already queued in the pull
// model". Packet 2 started before the change and finishes at the old rate (ns-2 `bandwidth_`
// semantics, net::transmitter doc); packets 3 and 4 take 3 ms each.
#[test]
fn transmitter_rate_change_mid_run_retimes_the_queued_packets() {
    let (mut w, k, ab) = burst_to_sink(Dur::from_millis(10), 4, |e| {
        e.expect_changes(OutagePolicy::Blind)
    });
    w.schedule_link_change(ms(2.0), ab, LinkChange::Rate(Rate::mbps(4)));
    w.run();
    assert_eq!(
        arrivals(&w, k),
        vec![ms(11.5), ms(13.0), ms(16.0), ms(19.0)]
    );
    assert_eq!(w.net.egresses[ab.idx()].rate, Rate::mbps(4));
    assert_eq!(w.check_conservation(), Ok(()));
}

// net::transmitter doc: an undeclared change on a lazy FIFO keeps what it had admitted
// (committed to the wire) and serves later packets in pull mode after the committed ones.
#[test]
fn lazy_transmitter_undeclared_rate_change_keeps_committed_packets_and_retimes_later_ones() {
    let (mut w, a, b) = pair(Dur::from_millis(10), |_| {});
    let ab = w.net.links[0].ab;
    assert!(!w.net.egresses[ab.idx()].is_pull());
    let s = burst(&w, a, b, Time::ZERO, 4, Script::default());
    let (sa, db) = (w.net.addr_of(a), w.net.addr_of(b));
    let s = s.send(ms(3.0), data(sa, db, 9), Via::Route);
    w.add_element(a, Box::new(s), false);
    let k = w.add_element(b, Box::new(Sink::default()), true);
    w.schedule_link_change(ms(2.0), ab, LinkChange::Rate(Rate::mbps(4)));
    w.run();
    // Four committed at 8 Mb/s; the fifth waits until 6 ms, then takes 3 ms.
    assert_eq!(
        arrivals(&w, k),
        vec![ms(11.5), ms(13.0), ms(14.5), ms(16.0), ms(19.0)]
    );
    assert!(w.net.egresses[ab.idx()].is_pull());
}

// spec 2 §2.5 option "the BS link layer knows of the outage and holds its queue, so nothing is
// lost on the air"; net::transmitter doc: the packet in transmission when the link goes down
// finishes.
#[test]
fn hold_outage_loses_nothing_and_resumes_in_order() {
    let (mut w, k, ab) = burst_to_sink(Dur::from_millis(10), 6, |e| {
        e.expect_changes(OutagePolicy::Hold)
    });
    w.schedule_link_change(ms(2.0), ab, LinkChange::Down);
    w.schedule_link_change(ms(10.0), ab, LinkChange::Up);
    w.run();
    assert_eq!(
        arrivals(&w, k),
        vec![ms(11.5), ms(13.0), ms(21.5), ms(23.0), ms(24.5), ms(26.0)]
    );
    let uids: Vec<u64> = sink(&w, k).got.iter().map(|g| g.uid).collect();
    assert_eq!(uids, vec![0, 1, 2, 3, 4, 5], "in order");
    let e = &w.net.egresses[ab.idx()];
    assert_eq!((e.stats.lost_down, e.queue.total_drops()), (0, 0));
    assert!(e.is_up());
}

// spec 2 §2.5 default: "keeps dequeuing and transmitting at rate W, and every data packet sent
// during the outage is lost"; net::transmitter doc: a packet whose transmission or
// propagation overlaps the down interval is lost.
#[test]
fn blind_outage_loses_exactly_the_packets_sent_into_it() {
    let outage = (ms(2.0), ms(5.0));
    let (mut w, a, b) = pair(Dur::from_micros(100), |e| {
        let mut m = e.errors().clone();
        m.outages = vec![outage];
        e.set_errors(m)
    });
    let ab = w.net.links[0].ab;
    let s = burst(&w, a, b, Time::ZERO, 6, Script::default());
    w.add_element(a, Box::new(s), false);
    let k = w.add_element(b, Box::new(Sink::default()), true);
    w.run();
    // Sent 0-1.5 ok; 1.5-3.0, 3.0-4.5, 4.5-6.0 overlap [2, 5): lost; 6.0-7.5, 7.5-9.0 ok.
    let got: Vec<(Time, u64)> = sink(&w, k).got.iter().map(|g| (g.at, g.uid)).collect();
    assert_eq!(got, vec![(ms(1.6), 0), (ms(7.6), 4), (ms(9.1), 5)]);
    assert_eq!(w.net.egresses[ab.idx()].stats.lost_down, 3);
    assert_eq!(w.books.dropped[DropReason::LinkDown as usize], 3);
}

// spec 2 §2.2: the BS writes the mobile's queue occupancy "excluding the packet being sent"
// at dequeue. Four packets handed over at once: at enqueue the last would see 3000 B ahead of
// it; at dequeue the first sees nothing behind it (the others are not yet queued), the second
// 3000 B, then 1500 B, then 0.
#[test]
fn dequeue_tag_carries_the_queue_length_at_dequeue_not_at_enqueue() {
    let hook = DequeueHook::QueueReport { wire_bytes: 0 };
    let (mut w, k, _) = burst_to_sink(Dur::from_millis(10), 4, |e| e.add_dequeue_hook(hook));
    w.run();
    let reports: Vec<Option<u32>> = sink(&w, k).got.iter().map(|g| g.queue_report).collect();
    assert_eq!(reports, vec![Some(0), Some(3000), Some(1500), Some(0)]);
    assert_eq!(
        arrivals(&w, k),
        vec![ms(11.5), ms(13.0), ms(14.5), ms(16.0)],
        "a free side field changes no timing"
    );
}

// Issue "Network seams" item 2, spec 2 §2.2 option: the report may cost 4 bytes on the wire.
#[test]
fn dequeue_tag_with_wire_bytes_lengthens_tagged_packets() {
    let hook = DequeueHook::QueueReport { wire_bytes: 4 };
    let (mut w, k, _) = burst_to_sink(Dur::from_millis(10), 2, |e| e.add_dequeue_hook(hook));
    w.run();
    // 1504 B at 8 Mb/s: 1.504 ms each.
    assert_eq!(arrivals(&w, k), vec![ms(11.504), ms(13.008)]);
}

/// s - r, then two ways from r to d: r - x - d (links in this order, so the static route) and
/// r - y - d. 8 Mb/s, 1 ms everywhere.
struct Diamond {
    w: World,
    s: NodeId,
    r: NodeId,
    d: NodeId,
    r_x: EgressId,
    r_y: EgressId,
    x_d: EgressId,
    y_d: EgressId,
}

fn diamond() -> Diamond {
    let mut net = Net::default();
    let [s, r, x, y, d] = ["s", "r", "x", "y", "d"].map(|n| net.add_node(n));
    let ms1 = Dur::from_millis(1);
    net.add_link("sr", s, r, dir(8, ms1), dir(8, ms1), 1);
    let rx = net.add_link("rx", r, x, dir(8, ms1), dir(8, ms1), 1);
    let xd = net.add_link("xd", x, d, dir(8, ms1), dir(8, ms1), 1);
    let ry = net.add_link("ry", r, y, dir(8, ms1), dir(8, ms1), 1);
    let yd = net.add_link("yd", y, d, dir(8, ms1), dir(8, ms1), 1);
    net.compute_routes();
    let (r_x, x_d) = (net.links[rx.idx()].ab, net.links[xd.idx()].ab);
    let (r_y, y_d) = (net.links[ry.idx()].ab, net.links[yd.idx()].ab);
    Diamond {
        w: World::new(net, Time::from_millis(1_000)),
        s,
        r,
        d,
        r_x,
        r_y,
        x_d,
        y_d,
    }
}

// DESIGN.md, Network, Forwarder: "Mobility installs, replaces and removes host-specific routes
// at run time". A route installed at 5 ms moves the packet handed over at 6 ms, not the one
// that left r at 4.5-6 ms.
#[test]
fn host_route_installed_at_t_moves_the_next_packet_and_not_the_one_already_sent() {
    let mut g = diamond();
    let (sa, da) = (g.w.net.addr_of(g.s), g.w.net.addr_of(g.d));
    let route = HostRoute {
        dst: da,
        via: NextHops::one(g.r_y),
        expires: None,
    };
    let s = Script::default()
        .send(ms(2.0), data(sa, da, 0), Via::Route)
        .at(ms(5.0), Request::InstallRoute { node: g.r, route })
        .send(ms(6.0), data(sa, da, 1), Via::Route);
    g.w.add_element(g.s, Box::new(s), false);
    let k = g.w.add_element(g.d, Box::new(Sink::default()), true);
    g.w.run();
    // Each hop: 1.5 ms sending + 1 ms: 2.5 ms; three hops: 7.5 ms.
    let got: Vec<(Time, Option<EgressId>)> =
        sink(&g.w, k).got.iter().map(|x| (x.at, x.via)).collect();
    assert_eq!(got, vec![(ms(9.5), Some(g.x_d)), (ms(13.5), Some(g.y_d))]);
    assert_eq!(g.w.net.host_route(g.r, da), Some(&route));
}

// spec 5 §2.3 semisoft handoff: the crossover "has two valid mappings and bicasts".
#[test]
fn two_next_hop_route_delivers_two_copies() {
    let mut g = diamond();
    let (sa, da) = (g.w.net.addr_of(g.s), g.w.net.addr_of(g.d));
    let route = HostRoute {
        dst: da,
        via: NextHops::many(&[g.r_x, g.r_y]).unwrap(),
        expires: None,
    };
    let s = Script::default()
        .at(Time::ZERO, Request::InstallRoute { node: g.r, route })
        .send(ms(1.0), data(sa, da, 0), Via::Route);
    g.w.add_element(g.s, Box::new(s), false);
    let k = g.w.add_element(g.d, Box::new(Sink::default()), true);
    g.w.run();
    let got: Vec<(Time, Option<EgressId>, u64)> = sink(&g.w, k)
        .got
        .iter()
        .map(|x| (x.at, x.via, x.uid))
        .collect();
    assert_eq!(
        got,
        vec![(ms(8.5), Some(g.x_d), 0), (ms(8.5), Some(g.y_d), 0)],
        "one copy down each next hop, the same packet"
    );
    assert_eq!((g.w.books.created, g.w.books.copied), (1, 1));
    assert_eq!(g.w.books.consumed, 2);
    assert_eq!(g.w.check_conservation(), Ok(()));
}

// spec 5 §2.3: mappings expire at route_timeout; net::forward doc: an expired host route is
// removed and forwarding goes on by the static table, which a mobility protocol has cleared
// for the mobile's address: the packet is dropped as no-route.
#[test]
fn expired_route_drops_and_counts_the_packet_as_no_route() {
    let mut g = diamond();
    let (sa, da) = (g.w.net.addr_of(g.s), g.w.net.addr_of(g.d));
    g.w.net.clear_static_route(g.r, da);
    g.w.net.install_route(
        g.r,
        HostRoute {
            dst: da,
            via: NextHops::one(g.r_y),
            expires: Some(ms(5.0)),
        },
    );
    // The first reaches r at 2.5 ms (live route); the second at 7.5 ms (expired at 5 ms).
    let s = Script::default()
        .send(Time::ZERO, data(sa, da, 0), Via::Route)
        .send(ms(5.0), data(sa, da, 1), Via::Route);
    g.w.add_element(g.s, Box::new(s), false);
    let k = g.w.add_element(g.d, Box::new(Sink::default()), true);
    g.w.run();
    let got: Vec<u64> = sink(&g.w, k).got.iter().map(|x| x.uid).collect();
    assert_eq!(got, vec![0]);
    assert_eq!(g.w.books.dropped[DropReason::NoRoute as usize], 1);
    assert_eq!(
        g.w.net.host_route(g.r, da),
        None,
        "removed when found expired"
    );
}

/// Consumes control packets of family 7 and records their kinds; passes everything else.
#[derive(Debug, Default)]
struct ControlSink {
    got: Vec<(Time, u16)>,
}

impl Element for ControlSink {
    fn on_packet(
        &mut self,
        now: Time,
        _via: Option<EgressId>,
        pkt: &mut Packet,
        _ctx: &mut ElementCtx,
    ) -> Disposition {
        match pkt.body {
            Body::Control(c) if c.family == 7 => {
                self.got.push((now, c.kind));
                Disposition::Consume
            }
            _ => Disposition::Pass,
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

// DESIGN.md, Network, Node elements: control packets are "real packets with a Body kind and
// size, taking link time", and elements "have their own timers".
#[test]
fn element_consumes_its_control_packet_and_its_timer_fires_at_the_stated_time() {
    let mut g = diamond();
    let (sa, da) = (g.w.net.addr_of(g.s), g.w.net.addr_of(g.d));
    let ra = g.w.net.addr_of(g.r);
    // 40 B above IP: 60 B, 60 µs at 8 Mb/s per hop.
    let s = Script::default()
        .send(ms(7.0), control(sa, da, 3, 40), Via::Route)
        .send(ms(7.0), control(sa, ra, 4, 40), Via::Route)
        .send(ms(9.0), control(sa, da, 5, 40), Via::Egress(EgressId(0)));
    let sid = g.w.add_element(g.s, Box::new(s), false);
    let c = g.w.add_element(g.d, Box::new(ControlSink::default()), true);
    g.w.run();
    assert_eq!(script(&g.w, sid).fired, vec![ms(7.0), ms(9.0)]);
    let got = &g.w.elements[c.idx()]
        .element
        .as_any()
        .downcast_ref::<ControlSink>()
        .unwrap()
        .got;
    // Three hops of 0.06 ms + 1 ms each; the second waits 0.06 ms behind the first at s.
    assert_eq!(got, &vec![(ms(10.18), 3), (ms(12.18), 5)]);
    // Kind 4 went to r, where no element takes it.
    assert_eq!(g.w.books.dropped[DropReason::Unclaimed as usize], 1);
    assert_eq!((g.w.books.created, g.w.books.consumed), (3, 2));
    assert_eq!(g.w.check_conservation(), Ok(()));
}

// net::forward doc: interception hands packets for an address to an element (a home agent),
// which may send them on; passing them returns them to the routes.
#[test]
fn intercepting_element_sees_packets_for_its_address_and_may_redirect_them() {
    let mut g = diamond();
    let (sa, da) = (g.w.net.addr_of(g.s), g.w.net.addr_of(g.d));
    #[derive(Debug)]
    struct Redirect(EgressId, u32);
    impl Element for Redirect {
        fn on_packet(
            &mut self,
            _now: Time,
            via: Option<EgressId>,
            _pkt: &mut Packet,
            _ctx: &mut ElementCtx,
        ) -> Disposition {
            assert_eq!(via, None, "handed over, not arrived over a link");
            self.1 += 1;
            Disposition::Redirect(packetsim::net::Next::Egress(self.0))
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }
    let ha = g.w.add_element(g.r, Box::new(Redirect(g.r_y, 0)), false);
    g.w.net.intercept(g.r, da, ha);
    let s = Script::default().send(Time::ZERO, data(sa, da, 0), Via::Route);
    g.w.add_element(g.s, Box::new(s), false);
    let k = g.w.add_element(g.d, Box::new(Sink::default()), true);
    g.w.run();
    assert_eq!(sink(&g.w, k).got[0].via, Some(g.y_d));
    assert_eq!(
        g.w.elements[ha.idx()]
            .element
            .as_any()
            .downcast_ref::<Redirect>()
            .unwrap()
            .1,
        1
    );
}

/// An endpoint that records the notices it is given.
#[derive(Debug, Default)]
struct Listener {
    heard: Vec<(Time, packetsim::transport::Notice)>,
}

impl packetsim::transport::Endpoint for Listener {
    fn on_packet(&mut self, _: Time, _: &Packet, _: &mut packetsim::transport::Outbox) {}
    fn on_timer(&mut self, _: Time, _: &mut packetsim::transport::Outbox) {}
    fn next_timeout(&self) -> Option<Time> {
        None
    }
    fn on_event(
        &mut self,
        now: Time,
        notice: &packetsim::transport::Notice,
        _: &mut packetsim::transport::Outbox,
    ) {
        self.heard.push((now, *notice));
    }
}

impl packetsim::world::CustomEndpoint for Listener {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn heard(w: &World, agent: packetsim::ids::AgentId) -> &[(Time, packetsim::transport::Notice)] {
    let packetsim::world::Agent::Custom(a) = &w.agents[agent.idx()].agent else {
        panic!("a custom endpoint")
    };
    &a.as_any().downcast_ref::<Listener>().unwrap().heard
}

// DESIGN.md, Kernel: endpoints are driven by `on_event(now, notice, out)` (link up/down,
// attach/detach); world::forward doc: the link is down when either direction is, up when both
// are, and both ends hear each change once.
#[test]
fn endpoints_hear_link_down_and_up_once_each_and_attach_notices_from_elements() {
    use packetsim::transport::Notice;
    use packetsim::world::FlowPlacement;
    let (mut w, a, b) = pair(Dur::from_millis(1), |e| {
        e.expect_changes(OutagePolicy::Hold)
    });
    let l = &w.net.links[0];
    let (link, ab, ba) = (packetsim::ids::LinkId(0), l.ab, l.ba);
    w.net.egresses[ba.idx()].expect_changes(OutagePolicy::Hold);
    let at = FlowPlacement {
        from: a,
        to: b,
        start: Time::ZERO,
        stop: None,
        dscp: 0,
    };
    let f = w.add_custom_flow(
        "f",
        at,
        Box::new(Listener::default()),
        Box::new(Listener::default()),
        None,
    );
    for e in [ab, ba] {
        w.schedule_link_change(ms(5.0), e, LinkChange::Down);
    }
    w.schedule_link_change(ms(9.0), ab, LinkChange::Up);
    w.schedule_link_change(ms(9.5), ba, LinkChange::Up);
    let s = Script::default().at(
        ms(12.0),
        Request::Notify {
            node: b,
            notice: Notice::Attached { at: a },
        },
    );
    w.add_element(a, Box::new(s), false);
    w.run();
    let (snd, rcv) = (w.flows[f.idx()].sender, w.flows[f.idx()].receiver);
    let down = (ms(5.0), Notice::LinkDown { link });
    let up = (ms(9.5), Notice::LinkUp { link });
    assert_eq!(heard(&w, snd), &[down, up]);
    assert_eq!(
        heard(&w, rcv),
        &[down, up, (ms(12.0), Notice::Attached { at: a })]
    );
}

/// A 2 Mb/s, 20 ms line with one bulk TCP flow and a 2 s outage of the bottleneck at 5 s.
fn outage_scenario(policy: &str) -> packetsim::scenario::Scenario {
    let text = super::line_scenario("2Mbps", "20ms", 50, "app = \"bulk\"");
    super::load(
        &text,
        &[
            "simulation.duration=\"20s\"",
            "links.bottleneck.outages=[{from=\"5s\",to=\"7s\"}]",
            &format!("links.bottleneck.outage_policy=\"{policy}\""),
        ],
    )
}

// spec 2 §2.5 and Q5: "Default: blind (losses counted). Option: pause". Through the scenario
// keys: a held outage loses nothing on the wire; a blind one loses what it sends into it.
#[test]
fn scenario_outage_policy_hold_loses_nothing_blind_loses_packets() {
    let hold = packetsim::scenario::run(&outage_scenario("hold"), 1).unwrap();
    let blind = packetsim::scenario::run(&outage_scenario("blind"), 1).unwrap();
    let q = |o: &packetsim::scenario::Outcome, k: &str| o.summary.queues[k].lost_link_down;
    assert_eq!(q(&hold, "bottleneck:r1->r2"), 0);
    assert_eq!(q(&hold, "bottleneck:r2->r1"), 0);
    assert!(q(&blind, "bottleneck:r1->r2") > 0);
    let bn = &hold.world.net.links[1];
    assert!(
        hold.world.net.egresses[bn.ab.idx()].is_pull(),
        "hold needs the pull model"
    );
    assert!(
        hold.world.net.egresses[bn.ab.idx()].is_up(),
        "up again at 7 s"
    );
    let bn = &blind.world.net.links[1];
    assert!(
        !blind.world.net.egresses[bn.ab.idx()].is_pull(),
        "a blind outage stays lazy"
    );
    assert_eq!(hold.world.check_conservation(), Ok(()));
}

// Issue "Network seams" item 5: rate steps written in the scenario become link changes.
#[test]
fn scenario_rate_steps_change_the_rate_at_their_time() {
    let text = super::line_scenario("2Mbps", "20ms", 50, "app = \"bulk\"");
    let sc = super::load(
        &text,
        &[
            "simulation.duration=\"10s\"",
            "links.bottleneck.rate_steps=[{at=\"5s\",rate=\"500kbps\",direction=\"a_to_b\"}]",
        ],
    );
    let mut w = packetsim::scenario::build(&sc, 1).unwrap();
    let bn = (w.net.links[1].ab, w.net.links[1].ba);
    w.run_until(Time::from_millis(5_000));
    assert_eq!(w.net.egresses[bn.0.idx()].rate, Rate::mbps(2));
    w.run_until(Time::from_millis(5_001));
    assert_eq!(w.net.egresses[bn.0.idx()].rate, Rate::bps(500_000));
    assert_eq!(
        w.net.egresses[bn.1.idx()].rate,
        Rate::mbps(2),
        "b to a unchanged"
    );
    // The bottleneck sends at most 500 kb/s from 5 s on.
    let before = w.net.egresses[bn.0.idx()].stats.transmitted_bytes;
    w.run();
    let after = w.net.egresses[bn.0.idx()].stats.transmitted_bytes;
    assert!(
        after - before <= 500_000 / 8 * 5 + 1500,
        "{}",
        after - before
    );
    assert!(
        after - before >= 500_000 / 8 * 5 - 3000,
        "{}",
        after - before
    );
}

// docs/extending.md: a radio link is a declared-variable transmitter whose rate an element
// changes at run time (spec 2 §6 extension: a two-state radio channel).
#[test]
fn two_state_rate_element_changes_the_radio_rate_at_its_drawn_times() {
    use packetsim::kernel::Rng;
    use packetsim::wireless::{TwoStateRate, TwoStateRateConfig};
    let (mut w, a, _b) = pair(Dur::from_millis(1), |e| {
        e.expect_changes(OutagePolicy::Blind)
    });
    let ab = w.net.links[0].ab;
    let cfg = TwoStateRateConfig {
        good_rate: Rate::mbps(8),
        bad_rate: Rate::mbps(1),
        mean_good: Dur::from_millis(100),
        mean_bad: Dur::from_millis(50),
    };
    let el = w.add_element(
        a,
        Box::new(TwoStateRate::new(cfg, vec![ab], Rng::from_seed(5))),
        false,
    );
    let history = |w: &World| {
        w.elements[el.idx()]
            .element
            .as_any()
            .downcast_ref::<TwoStateRate>()
            .unwrap()
            .history
            .clone()
    };
    w.run_until(Time::from_millis(1_000));
    let h = history(&w);
    assert!(h.len() >= 4, "{h:?}");
    let (t_bad, _) = h[0];
    let (t_good, _) = h[1];
    // Just after each change the direction runs at the state's rate.
    let mut w2 = {
        let (mut w2, a2, _) = pair(Dur::from_millis(1), |e| {
            e.expect_changes(OutagePolicy::Blind)
        });
        let ab2 = w2.net.links[0].ab;
        w2.add_element(
            a2,
            Box::new(TwoStateRate::new(cfg, vec![ab2], Rng::from_seed(5))),
            false,
        );
        w2
    };
    w2.run_until(t_bad + Dur::from_nanos(1));
    assert_eq!(w2.net.egresses[ab.idx()].rate, Rate::mbps(1));
    w2.run_until(t_good + Dur::from_nanos(1));
    assert_eq!(w2.net.egresses[ab.idx()].rate, Rate::mbps(8));
}

// spec 2 §2.2–2.3 end to end from a scenario: the bottleneck's queue report (a dequeue hook
// on r1→r2) reaches the receiver's `bs_buffer` window, which then falls below w_max; without
// the report the window never moves.
#[test]
fn scenario_queue_report_drives_the_bs_buffer_window() {
    let rwnd = |report: bool| {
        let text = super::line_scenario("1Mbps", "20ms", 100, "app = \"bulk\"");
        let mut sets = vec![
            "simulation.duration=\"10s\"",
            "tcp.rcv_window=\"64KiB\"",
            "tcp.bs_buffer={w_max=\"16KiB\",alpha=0.5}",
        ];
        if report {
            sets.push("links.bottleneck.queue_report={direction=\"a_to_b\"}");
        }
        let out = packetsim::scenario::run(&super::load(&text, &sets), 1).unwrap();
        let bn = out.world.net.links[1].ab;
        assert_eq!(out.world.net.egresses[bn.idx()].is_pull(), report);
        let rcv = out.world.flows[0].receiver;
        let packetsim::world::Agent::TcpReceiver(r) = &out.world.agents[rcv.idx()].agent else {
            panic!("a TCP receiver")
        };
        match r.window() {
            packetsim::transport::tcp::window::AnyWindow::BsBuffer(b) => b.rwnd(),
            w => panic!("{w:?}"),
        }
    };
    assert_eq!(rwnd(false), 16_384);
    let with = rwnd(true);
    assert!((1460..16_384).contains(&with), "{with}");
}

// spec 2 §6 extension from a scenario: `rate_process` places a two-state process on the link
// (its own random stream), which changes the radio direction's rate at run time.
#[test]
fn scenario_rate_process_drives_the_link_rate() {
    use packetsim::wireless::TwoStateRate;
    let text = super::line_scenario("2Mbps", "20ms", 50, "app = \"bulk\"");
    let sc = super::load(
        &text,
        &[
            "simulation.duration=\"20s\"",
            "links.bottleneck.rate_process={good_rate=\"2Mbps\",bad_rate=\"200kbps\",mean_good=\"2s\",mean_bad=\"1s\",direction=\"a_to_b\"}",
        ],
    );
    let run = |seed| packetsim::scenario::run(&sc, seed).unwrap();
    let out = run(3);
    let w = &out.world;
    let process = w
        .elements
        .iter()
        .find_map(|e| e.element.as_any().downcast_ref::<TwoStateRate>())
        .expect("the process is placed");
    assert!(process.history.len() >= 4, "{:?}", process.history);
    let bn = w.net.links[1].ab;
    let last_good = process.history.last().unwrap().1;
    let want = if last_good {
        Rate::mbps(2)
    } else {
        Rate::bps(200_000)
    };
    assert_eq!(w.net.egresses[bn.idx()].rate, want);
    assert_eq!(
        w.net.egresses[w.net.links[1].ba.idx()].rate,
        Rate::mbps(2),
        "b to a fixed"
    );
    // Seeded: the same seed gives the same process, another seed another one.
    let again = run(3);
    let other = run(4);
    let hist = |o: &packetsim::scenario::Outcome| {
        o.world
            .elements
            .iter()
            .find_map(|e| e.element.as_any().downcast_ref::<TwoStateRate>())
            .unwrap()
            .history
            .clone()
    };
    assert_eq!(hist(&again), process.history);
    assert_ne!(hist(&other), process.history);
}

/// A sender that sends scripted bursts of datagrams of `payload` bytes (numbered from 0) at
/// scripted times, and records when replies reach it.
#[derive(Debug)]
struct Bursts {
    from: Addr,
    to: Addr,
    payload: u32,
    plan: VecDeque<(Time, u64)>,
    next_seq: u64,
    replies: Vec<(Time, u64)>,
}

impl packetsim::transport::Endpoint for Bursts {
    fn on_packet(&mut self, now: Time, p: &Packet, _: &mut packetsim::transport::Outbox) {
        if let Body::Udp { seq, .. } = p.body {
            self.replies.push((now, seq));
        }
    }
    fn on_timer(&mut self, now: Time, out: &mut packetsim::transport::Outbox) {
        while self.plan.front().is_some_and(|(t, _)| *t <= now) {
            let (_, n) = self.plan.pop_front().unwrap();
            for _ in 0..n {
                let body = Body::Udp {
                    seq: self.next_seq,
                    payload: self.payload,
                };
                out.send(Packet::new(self.from, self.to, body));
                self.next_seq += 1;
            }
        }
    }
    fn next_timeout(&self) -> Option<Time> {
        self.plan.front().map(|(t, _)| *t)
    }
}

impl packetsim::world::CustomEndpoint for Bursts {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A receiver that records what it is handed and answers each datagram with an empty one
/// (28 bytes: 28 µs at 8 Mb/s) carrying the same number.
#[derive(Debug, Default)]
struct Echo {
    got: Vec<(Time, u64)>,
}

impl packetsim::transport::Endpoint for Echo {
    fn on_packet(&mut self, now: Time, p: &Packet, out: &mut packetsim::transport::Outbox) {
        if let Body::Udp { seq, .. } = p.body {
            self.got.push((now, seq));
            out.send(Packet::new(p.dst, p.src, Body::Udp { seq, payload: 0 }));
        }
    }
    fn on_timer(&mut self, _: Time, _: &mut packetsim::transport::Outbox) {}
    fn next_timeout(&self) -> Option<Time> {
        None
    }
}

impl packetsim::world::CustomEndpoint for Echo {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn custom<T: 'static>(w: &World, agent: packetsim::ids::AgentId) -> &T {
    let packetsim::world::Agent::Custom(a) = &w.agents[agent.idx()].agent else {
        panic!("a custom endpoint")
    };
    a.as_any().downcast_ref::<T>().unwrap()
}

/// Two flows a -> b (8 Mb/s, 1 ms, so a 1500-byte packet takes 1.5 ms on the wire) with
/// `plan_p` and `plan_q` as their senders' bursts of `payload`-byte datagrams; flow p gets
/// `proc` processing.
fn processing_pair(
    payload: u32,
    plan_p: &[(f64, u64)],
    plan_q: &[(f64, u64)],
    proc: (Option<(Dur, Dur)>, Option<Dur>),
) -> (World, [packetsim::ids::FlowId; 2]) {
    use packetsim::world::FlowPlacement;
    let (mut w, a, b) = pair(Dur::from_millis(1), |_| {});
    let at = FlowPlacement {
        from: a,
        to: b,
        start: Time::ZERO,
        stop: None,
        dscp: 0,
    };
    let (sa, db) = (w.net.addr_of(a), w.net.addr_of(b));
    let mut flow = |name: &str, plan: &[(f64, u64)]| {
        let s = Bursts {
            from: sa,
            to: db,
            payload,
            plan: plan.iter().map(|&(t, n)| (ms(t), n)).collect(),
            next_seq: 0,
            replies: Vec::new(),
        };
        w.add_custom_flow(name, at, Box::new(s), Box::new(Echo::default()), None)
    };
    let (p, q) = (flow("p", plan_p), flow("q", plan_q));
    w.add_processing(p, proc.0, proc.1, 1);
    (w, [p, q])
}

// spec 1 §2.5-2.6 (YATS `PROCTIM`): every packet a sender sends waits its processing time in
// one first-in-first-out server before it leaves the host, and every packet for a receiver
// waits in the receiver's server before the receiver sees it. Flow p: sender processing
// 0.3 ms, receiver processing 2 ms (longer than the 1.5 ms a packet takes on the wire, so the
// receiver's server queues). Three packets at 0 and one at 5 ms:
// - sender server: leave at 0.3, 0.6, 0.9 (queued behind each other), 5.3;
// - wire (1.5 ms each, 1 ms delay): start 0.3, 1.8, 3.3, 5.3; arrive 2.8, 4.3, 5.8, 7.8;
// - receiver server: start max(arrival, free): 2.8, 4.8, 6.8, 8.8; handed over at 4.8, 6.8,
//   8.8, 10.8;
// - the receiver's replies are not held (no server on that side): they reach the sender
//   0.028 + 1 ms after they are sent, and the sender's server does not hold what arrives.
// Flow q, from the same host to the same host without processing, passes untouched: sent at
// 20 ms, handed to its receiver at 22.5 ms, its reply back at 23.528 ms.
#[test]
fn processing_servers_hold_packets_first_in_first_out_at_both_ends() {
    let us = Dur::from_micros;
    let (mut w, [p, q]) = processing_pair(
        1472,
        &[(0.0, 3), (5.0, 1)],
        &[(20.0, 1)],
        (Some((us(300), Dur::ZERO)), Some(us(2000))),
    );
    w.run();
    let f = |id: packetsim::ids::FlowId| (w.flows[id.idx()].sender, w.flows[id.idx()].receiver);
    let (ps, pr) = f(p);
    let (qs, qr) = f(q);
    let got = &custom::<Echo>(&w, pr).got;
    assert_eq!(
        got,
        &[(ms(4.8), 0), (ms(6.8), 1), (ms(8.8), 2), (ms(10.8), 3)]
    );
    assert_eq!(
        custom::<Bursts>(&w, ps).replies,
        [4.8, 6.8, 8.8, 10.8]
            .iter()
            .enumerate()
            .map(|(i, t)| (ms(t + 1.028), i as u64))
            .collect::<Vec<_>>()
    );
    assert_eq!(custom::<Echo>(&w, qr).got, [(ms(22.5), 0)]);
    assert_eq!(custom::<Bursts>(&w, qs).replies, [(ms(23.528), 0)]);
    // Books: each of p's 4 packets was taken and re-sent by each server.
    assert_eq!(w.books.consumed, 8);
    assert_eq!(w.check_conservation(), Ok(()));
}

// spec 1 §2.5: "a uniform random time in [0.3, 0.33] ms", one server: a burst of 20 empty
// datagrams (28 bytes, 28 µs on the wire, so the server is the bottleneck) reaches the
// receiver 0.028 + 1 ms after each leaves the server, in order, 0.3 to 0.33 ms apart (the
// first 0.3 to 0.33 ms after 0); the draws come from the flow's own stream (the same seed
// gives the same times) and are not all equal.
#[test]
fn processing_jitter_draws_each_time_from_the_stated_range_in_order() {
    let us = Dur::from_micros;
    let run = || {
        let (mut w, [p, _]) =
            processing_pair(0, &[(0.0, 20)], &[], (Some((us(300), us(30))), None));
        w.run();
        custom::<Echo>(&w, w.flows[p.idx()].receiver).got.clone()
    };
    let got = run();
    assert_eq!(got.len(), 20);
    assert!(got.windows(2).all(|x| x[0].1 + 1 == x[1].1), "in order");
    let mut leave = vec![0];
    leave.extend(got.iter().map(|(t, _)| t.as_nanos() - 1_028_000));
    let gaps: Vec<u64> = leave.windows(2).map(|x| x[1] - x[0]).collect();
    assert!(
        gaps.iter().all(|g| (300_000..=330_000).contains(g)),
        "{gaps:?}"
    );
    assert!(gaps.iter().any(|g| *g != gaps[0]), "{gaps:?}");
    assert_eq!(got, run(), "seeded");
}
