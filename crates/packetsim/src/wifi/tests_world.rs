//! The channel element in a world: packets cross the 802.11 channel between nodes joined to a
//! hub, with the channel's timing and nothing else (the hub links are instantaneous).

use super::element::{ChannelElement, WifiPort};
use super::*;
use crate::ids::{EgressId, ElementId, NodeId};
use crate::net::{
    DirectionParams, Disposition, Element, ElementCtx, ErrorModel, Net, Request, Via,
};
use crate::packet::{Body, ControlHeader, Packet};
use crate::queue::{AnyAdmission, DropReason, DropTail, QueueDisc, QueueLimit};
use crate::world::World;
use packetsim_kernel::{Dur, Rate, Rng, Time};
use std::any::Any;
use std::collections::VecDeque;

fn instant() -> DirectionParams {
    DirectionParams {
        rate: Rate::bps(1_000_000_000_000),
        delay: Dur::ZERO,
        queue: QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(
            1000,
        )))),
        errors: ErrorModel::default(),
    }
}

/// Sends scripted packets at scripted times.
#[derive(Debug, Default)]
struct Script {
    steps: VecDeque<(Time, Packet)>,
}

impl Element for Script {
    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        while self.steps.front().is_some_and(|(t, _)| *t <= now) {
            let (_, p) = self.steps.pop_front().unwrap();
            ctx.requests.push(Request::Send {
                pkt: p,
                via: Via::Route,
                fresh: true,
            });
        }
    }
    fn next_timeout(&self) -> Option<Time> {
        self.steps.front().map(|(t, _)| *t)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Takes every packet arriving at its node and notes when.
#[derive(Debug, Default)]
struct Sink {
    got: Vec<(Time, u32)>,
}

impl Element for Sink {
    fn on_packet(
        &mut self,
        now: Time,
        _via: Option<EgressId>,
        pkt: &mut Packet,
        _ctx: &mut ElementCtx,
    ) -> Disposition {
        self.got.push((now, pkt.size));
        Disposition::Consume
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn control(net: &Net, from: NodeId, to: NodeId, bytes: u32) -> Packet {
    Packet::new(
        net.addr_of(from),
        net.addr_of(to),
        Body::Control(ControlHeader {
            family: 34,
            kind: 1,
            bytes,
            args: [0; 4],
        }),
    )
}

/// a and b joined to a hub by instantaneous links, the channel element at the hub.
fn star(seed: u64) -> (World, NodeId, NodeId, ElementId) {
    let mut net = Net::default();
    let a = net.add_node("a");
    let hub = net.add_node("air");
    let b = net.add_node("b");
    let la = net.add_link("a_air", a, hub, instant(), instant(), seed);
    let lb = net.add_link("b_air", b, hub, instant(), instant(), seed);
    net.compute_routes();
    let port = |n: NodeId, l: crate::ids::LinkId| WifiPort {
        node: n,
        inbound: net.links[l.idx()].ab,
        outbound: net.links[l.idx()].ba,
    };
    let ports = vec![port(a, la), port(b, lb)];
    let el = ChannelElement::new(&net, ports, 0, ChannelConfig::default(), seed);
    let mut w = World::new(net, Time::from_millis(1_000));
    let id = w.add_element(hub, Box::new(el), true);
    (w, a, b, id)
}

// A packet from a to b crosses the air as one DCF exchange: DIFS + the drawn backoff + the
// data frame (PLCP 192 us + (IP bytes + 28) at 1 Mb/s), as in
// `idle_single_frame_difs_backoff_data_sifs_ack_timeline`, plus 8 ns on each hub link.
#[test]
fn world_packet_crosses_channel_after_difs_backoff_and_data_airtime() {
    let seed = 9;
    let (mut w, a, b, ch) = star(seed);
    let pkt = control(&w.net, a, b, 980); // 1000 bytes with the IP header
    w.add_element(
        a,
        Box::new(Script {
            steps: VecDeque::from(vec![(Time::from_millis(10), pkt)]),
        }),
        false,
    );
    let k = w.add_element(b, Box::new(Sink::default()), true);
    w.run();
    let slots = Rng::for_component(seed, "wifi.backoff.0").below(31);
    let link = Dur::from_nanos(8); // 1000 bytes at 1 Tb/s
    let at =
        Time::from_millis(10) + link + Dur::from_micros(50 + 20 * slots + 192 + 8 * 1028) + link;
    let sink = w.elements[k.idx()]
        .element
        .as_any()
        .downcast_ref::<Sink>()
        .unwrap();
    assert_eq!(sink.got, vec![(at, 1000)]);
    let el = w.elements[ch.idx()]
        .element
        .as_any()
        .downcast_ref::<ChannelElement>()
        .unwrap();
    assert_eq!(el.channel().mac(Sta(0)).stats().sent, 1);
    assert_eq!(el.channel().mac(Sta(1)).stats().delivered, 1);
    assert_eq!(el.mac_drops(), 0);
}

// Both directions at once: a → b and b → a handed over in the same instant contend; both
// arrive, one after the other or after a collision and retries, and every packet is
// accounted for (delivered, none held).
#[test]
fn world_two_senders_contend_and_both_deliver() {
    let (mut w, a, b, ch) = star(4);
    let mut to_b = VecDeque::new();
    let mut to_a = VecDeque::new();
    for i in 0..20 {
        let t = Time::from_millis(5 + i);
        to_b.push_back((t, control(&w.net, a, b, 480)));
        to_a.push_back((t, control(&w.net, b, a, 480)));
    }
    w.add_element(a, Box::new(Script { steps: to_b }), false);
    w.add_element(b, Box::new(Script { steps: to_a }), false);
    let ka = w.add_element(a, Box::new(Sink::default()), true);
    let kb = w.add_element(b, Box::new(Sink::default()), true);
    w.run();
    let got = |k: ElementId| {
        w.elements[k.idx()]
            .element
            .as_any()
            .downcast_ref::<Sink>()
            .unwrap()
            .got
            .len()
    };
    assert_eq!((got(ka), got(kb)), (20, 20));
    let el = w.elements[ch.idx()]
        .element
        .as_any()
        .downcast_ref::<ChannelElement>()
        .unwrap();
    let s0 = el.channel().mac(Sta(0)).stats();
    let s1 = el.channel().mac(Sta(1)).stats();
    assert_eq!((s0.sent, s1.sent), (20, 20));
    // Each 500-byte frame holds the air 192 + 4224 us, then SIFS + ACK: 4.73 ms per
    // exchange, so 40 exchanges offered at 2 per ms back up and contend.
    assert!(s0.data_tx + s1.data_tx >= 40);
}

// A frame whose receiver is out of range is sent 7 times (short retry limit) and dropped:
// the world counts each such packet as a drop for `mac_retry_limit` (not as consumed by the
// channel element), on the sender's link to the hub, and the books still balance.
#[test]
fn world_mac_retry_limit_drops_are_world_drops() {
    let (mut w, a, b, ch) = star(3);
    {
        let el = w.elements[ch.idx()]
            .element
            .as_any_mut()
            .unwrap()
            .downcast_mut::<ChannelElement>()
            .unwrap();
        el.channel_mut().set_hears(Sta(1), Sta(0), false);
        el.channel_mut().set_hears(Sta(0), Sta(1), false);
    }
    let steps = (0..3)
        .map(|i| (Time::from_millis(10 + 100 * i), control(&w.net, a, b, 480)))
        .collect();
    w.add_element(a, Box::new(Script { steps }), false);
    let k = w.add_element(b, Box::new(Sink::default()), true);
    w.run();
    let got = w.elements[k.idx()]
        .element
        .as_any()
        .downcast_ref::<Sink>()
        .unwrap()
        .got
        .len();
    assert_eq!(got, 0);
    let el = w.elements[ch.idx()]
        .element
        .as_any()
        .downcast_ref::<ChannelElement>()
        .unwrap();
    assert_eq!(
        el.channel().mac(Sta(0)).stats().data_tx,
        21,
        "7 transmissions each"
    );
    assert_eq!(el.mac_losses(), (3, 0));
    assert_eq!(w.books.dropped[DropReason::MacRetryLimit as usize], 3);
    assert_eq!(w.books.dropped.iter().sum::<u64>(), 3);
    assert_eq!(w.books.consumed, 0);
    w.check_conservation().unwrap();
}
