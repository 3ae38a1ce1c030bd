//! `kind = "wifi"` (issue 34): a TOML scenario builds the channel the Rust API builds, frames
//! cross it with the DCF's exact timing, and every bad key is refused with file, line and key.

use super::link::wifi::{channel_seed, hub_direction};
use super::*;
use crate::ids::NodeId;
use crate::wifi::element::{ChannelElement, WifiPort};
use crate::wifi::motion::{Beacons, HandoffConfig, Path, Traversal};
use crate::wifi::propagation::{Pos, Propagation};
use crate::wifi::{ChannelConfig, DcfConfig, FrameKind, Logged, MacOut, PhyConfig, Sta};
use crate::world::{FlowPlacement, World};
use packetsim_kernel::{Dur, Rate, Rng, Time};

const ORIGIN: &str = "w.toml";

/// An access point and a mobile 100 m apart (two-ray ground: in range), 1 Mb/s, and `extra`
/// appended to the link table; one CBR packet from the mobile to the access point at 10 ms.
fn cell(extra: &str) -> String {
    format!(
        r#"[simulation]
duration = "1s"
seed = 3

[nodes.ap]
position = [0, 0]
[nodes.mh]
position = [100, 0]

[links.air]
kind = "wifi"
a = "ap"
b = "mh"
rate = "1Mbps"
delay = "0s"
{extra}
[flows.one]
kind = "cbr"
from = "mh"
to = "ap"
rate = "8kbps"
packet_size = 972
start = "10ms"
stop = "20ms"
"#
    )
}

fn load(text: &str) -> Result<Scenario, ScenarioError> {
    load_str(text, ORIGIN, &[])
}

/// The line of the first occurrence of `needle` in `text` (1-based).
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the text"))
        + 1
}

/// `text` is refused at the line holding `at_line`, key `key`, with `what` in the message.
#[track_caller]
fn refused(text: &str, at_line: &str, key: &str, what: &str) {
    let e = load(text).expect_err("an error");
    let msg = e.to_string();
    let line = line_of(text, at_line);
    assert!(
        msg.starts_with(&format!("{ORIGIN}:{line}: {key}: ")),
        "expected {ORIGIN}:{line}: {key}: ..., got: {msg}"
    );
    assert!(msg.contains(what), "expected {what:?} in: {msg}");
}

fn channel_of(w: &World) -> &ChannelElement {
    w.elements
        .iter()
        .find_map(|e| e.element.as_any().downcast_ref::<ChannelElement>())
        .expect("a channel element")
}

fn channel_of_mut(w: &mut World) -> &mut ChannelElement {
    w.elements
        .iter_mut()
        .find_map(|e| {
            e.element
                .as_any_mut()
                .and_then(|a| a.downcast_mut::<ChannelElement>())
        })
        .expect("a channel element")
}

/// Builds and runs `sc` with the channel's trace kept; returns the world and the trace.
fn run_traced(sc: &Scenario, seed: u64) -> (World, Vec<Logged>) {
    let mut w = build(sc, seed).unwrap_or_else(|e| panic!("{e}"));
    channel_of_mut(&mut w).keep_trace();
    w.run();
    let t = channel_of(&w).trace().to_vec();
    (w, t)
}

/// (time, station, kind, airtime) of every frame put on the air.
fn frames(t: &[Logged]) -> Vec<(Time, Sta, FrameKind, Dur, Option<u32>)> {
    t.iter()
        .filter_map(|l| match l.out {
            MacOut::Transmit(f) => Some((l.at, l.sta, f.kind, f.airtime, f.msdu.map(|m| m.bytes))),
            _ => None,
        })
        .collect()
}

// Every key of the table lands in the channel's settings as the Rust API would set them.
#[test]
fn wifi_keys_build_the_rust_api_channel_config() {
    let text = cell(
        r#"basic_rate = "2Mbps"
rts_threshold = 500
short_retry_limit = 5
long_retry_limit = 3
queue = { limit = 20 }
loss = 0.01
base_stations = ["ap"]
beacon_interval = "50ms"
handoff = { hysteresis = 2, lost_after = 4 }
"#,
    )
    .replace("rate = \"1Mbps\"", "rate = \"11Mbps\"")
    .replace("position = [100, 0]", "position = [100, 0]\nmotion = { waypoints = [[300, 0], [300, 40.5]], speed = 20, start = \"2s\", repeat = \"back_and_forth\" }");
    let sc = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let LinkKind::Wifi(w) = &sc.links[0].kind else {
        panic!("a wifi link")
    };
    let want = ChannelConfig {
        dcf: DcfConfig {
            phy: PhyConfig {
                basic_rate: Rate::mbps(2),
                data_rate: Rate::mbps(11),
                ..PhyConfig::default()
            },
            short_retry_limit: 5,
            long_retry_limit: 3,
            rts_threshold: Some(500),
            ifq_limit: 20,
            ..DcfConfig::default()
        },
        data_loss: 0.01,
    };
    assert_eq!(w.channel, want);
    assert_eq!(w.stations, vec!["ap".to_owned(), "mh".to_owned()]);
    assert_eq!(w.radio, WifiRadio::Propagation(Propagation::default()));
    assert_eq!(
        w.positions,
        vec![Some(Pos { x: 0.0, y: 0.0 }), Some(Pos { x: 100.0, y: 0.0 })]
    );
    assert_eq!(
        w.motion,
        vec![
            None,
            Some(Path {
                waypoints: vec![
                    Pos { x: 100.0, y: 0.0 },
                    Pos { x: 300.0, y: 0.0 },
                    Pos { x: 300.0, y: 40.5 }
                ],
                speed: 20.0,
                start: Time::from_millis(2000),
                traversal: Traversal::PingPong,
            })
        ]
    );
    assert_eq!(w.base_stations, vec![0]);
    assert_eq!(
        w.beacons,
        Beacons {
            interval: Dur::from_millis(50),
            ..Beacons::default()
        }
    );
    assert_eq!(
        w.handoff,
        HandoffConfig {
            hysteresis: 2.0,
            lost_after: 4,
            interval: Dur::from_millis(50),
        }
    );
    // The defaults: ns-2's DCF and IFQ, 1 Mb/s basic rate, no RTS/CTS, no errors.
    let sc = load(&cell("")).unwrap();
    let LinkKind::Wifi(w) = &sc.links[0].kind else {
        panic!("a wifi link")
    };
    assert_eq!(w.channel, ChannelConfig::default());
    assert!(w.base_stations.is_empty());
}

// One packet from the mobile: DIFS + the drawn backoff after it reaches the air (8 ns over
// the mobile's hub link at 1 Tb/s), the data frame (192 us PLCP + (1000 + 28) bytes at
// 1 Mb/s), the access point's ACK SIFS later (192 + 14 x 8 = 304 us at the basic rate), and
// delivery at the data frame's end (802.11-1999 §9.2.5.1, §9.2.8; ns-2.35 `Mac802_11::send`,
// `recvDATA`; the same timeline as wifi::tests::idle_single_frame_difs_backoff_data_sifs_ack_timeline).
#[test]
fn wifi_toml_cbr_packet_exact_data_and_ack_times() {
    let sc = load(&cell("")).unwrap_or_else(|e| panic!("{e}"));
    let seed = 3;
    let (w, t) = run_traced(&sc, seed);
    let k = Rng::for_component(channel_seed(seed, "air"), "wifi.backoff.1").below(31);
    let reach = Time::from_millis(10) + Dur::from_nanos(8); // 1000 bytes at 1 Tb/s
    let data_at = reach + Dur::from_micros(50 + 20 * k);
    let data_end = data_at + Dur::from_micros(8416);
    let f = frames(&t);
    assert_eq!(
        f,
        vec![
            (
                data_at,
                Sta(1),
                FrameKind::Data,
                Dur::from_micros(8416),
                Some(1000)
            ),
            (
                data_end + Dur::from_micros(10),
                Sta(0),
                FrameKind::Ack,
                Dur::from_micros(304),
                None
            ),
        ]
    );
    let delivered: Vec<Time> = t
        .iter()
        .filter(|l| matches!(l.out, MacOut::Deliver { .. }))
        .map(|l| l.at)
        .collect();
    assert_eq!(delivered, vec![data_end]);
    assert_eq!(w.flows[0].data_packets_delivered, 1);
}

// The scenario builds the network and channel the Rust API builds by hand (hub node, links,
// element, seed): the two runs put the same frames on the air at the same instants.
#[test]
fn wifi_toml_equals_the_rust_api_world() {
    let text = cell("stations = [\"mh2\"]\n")
        .replace("[nodes.mh]", "[nodes.mh2]\nposition = [0, 50]\n[nodes.mh]")
        .replace("stop = \"20ms\"", "stop = \"500ms\"")
        .replace("rate = \"8kbps\"", "rate = \"400kbps\"")
        + "\n[flows.two]\nkind = \"cbr\"\nfrom = \"mh2\"\nto = \"mh\"\nrate = \"400kbps\"\npacket_size = 472\nstart = \"10ms\"\nstop = \"500ms\"\n";
    let sc = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let seed = 7;
    let (_, from_toml) = run_traced(&sc, seed);

    let mut net = crate::net::Net::default();
    let ap = net.add_node("ap");
    let mh2 = net.add_node("mh2");
    let mh = net.add_node("mh");
    let hub = net.add_node("air.hub");
    let l0 = net.add_link("air", ap, hub, hub_direction(), hub_direction(), seed);
    let l1 = net.add_link("air.mh", mh, hub, hub_direction(), hub_direction(), seed);
    let l2 = net.add_link("air.mh2", mh2, hub, hub_direction(), hub_direction(), seed);
    net.compute_routes();
    let port = |n: NodeId, l: crate::ids::LinkId| WifiPort {
        node: n,
        inbound: net.links[l.idx()].ab,
        outbound: net.links[l.idx()].ba,
    };
    let ports = vec![port(ap, l0), port(mh, l1), port(mh2, l2)];
    let mut el = ChannelElement::new(
        &net,
        ports,
        0,
        ChannelConfig::default(),
        channel_seed(seed, "air"),
    );
    el.keep_trace();
    let mut w = World::new(net, Time::from_millis(1000));
    w.add_element(hub, Box::new(el), true);
    let place = |from, to| FlowPlacement {
        from,
        to,
        start: Time::from_millis(10),
        stop: Some(Time::from_millis(500)),
        dscp: 0,
    };
    w.add_cbr_flow("one", place(mh, ap), Rate::bps(400_000), 972);
    w.add_cbr_flow("two", place(mh2, mh), Rate::bps(400_000), 472);
    w.run();
    let by_hand = channel_of(&w).trace().to_vec();
    assert!(frames(&by_hand).len() > 100, "{}", frames(&by_hand).len());
    assert_eq!(from_toml, by_hand);
}

// A station out of range (two-ray ground: 250 m) hears nothing: its frames are retried to
// the limit and dropped (7 transmissions each: the short retry limit, ns-2.35
// `RetransmitDATA`), and nothing is delivered.
#[test]
fn wifi_station_out_of_range_retries_to_the_limit() {
    let text = cell("").replace("position = [100, 0]", "position = [260, 0]");
    let sc = load(&text).unwrap();
    let (w, t) = run_traced(&sc, 3);
    let data = frames(&t).iter().filter(|f| f.2 == FrameKind::Data).count();
    assert_eq!(data, 7);
    assert!(t.iter().any(|l| matches!(
        l.out,
        MacOut::Dropped {
            reason: crate::wifi::MacDrop::RetryLimit,
            ..
        }
    )));
    assert_eq!(w.flows[0].data_packets_delivered, 0);
    assert_eq!(channel_of(&w).mac_drops(), 1);
}

#[test]
fn wifi_bad_keys_are_refused_with_line_and_key() {
    let c = cell("");
    refused(
        &c.replace("rate = \"1Mbps\"", "rate = \"54Mbps\""),
        "rate = \"54Mbps\"",
        "links.air.rate",
        "expected an 802.11b rate",
    );
    refused(
        &c.replace("delay = \"0s\"", "delay = \"1ms\""),
        "delay = \"1ms\"",
        "links.air.delay",
        "expected \"0s\" on a wifi link",
    );
    refused(
        &cell("basic_rate = \"3Mbps\"\n"),
        "basic_rate",
        "links.air.basic_rate",
        "expected an 802.11b rate",
    );
    refused(
        &cell("queue = { kind = \"red\", limit = 50 }\n"),
        "queue =",
        "links.air.queue",
        "interface queue as { limit = N }",
    );
    refused(
        &cell("short_retry_limit = 0\n"),
        "short_retry_limit",
        "links.air.short_retry_limit",
        "from 1 to 255",
    );
    refused(
        &cell("rts_threshold = -1\n"),
        "rts_threshold",
        "links.air.rts_threshold",
        "bytes >= 0",
    );
    refused(
        &cell("loss = 1.5\n"),
        "loss = 1.5",
        "links.air.loss",
        "in [0, 1]",
    );
    refused(
        &cell("ber = 1e-6\n"),
        "ber =",
        "links.air.ber",
        "not read on a wifi link",
    );
    refused(
        &cell("propagation = \"range\"\n"),
        "propagation",
        "links.air.propagation",
        "`range` (metres) is required",
    );
    refused(
        &cell("range = 100\n"),
        "range = 100",
        "links.air.range",
        "only read with propagation = \"range\"",
    );
    refused(
        &cell("propagation = \"cellular\"\n"),
        "propagation",
        "links.air.propagation",
        "two_ray_ground",
    );
    refused(
        &cell("stations = [\"nowhere\"]\n"),
        "stations",
        "links.air.stations[0]",
        "expected the name of a node",
    );
    refused(
        &cell("stations = [\"mh\"]\n"),
        "stations",
        "links.air.stations[0]",
        "already a station",
    );
    refused(
        &cell("base_stations = [\"w\"]\n"),
        "base_stations",
        "links.air.base_stations[0]",
        "expected a station of this channel (ap, mh)",
    );
    refused(
        &cell("beacon_interval = \"1s\"\n"),
        "beacon_interval",
        "links.air.beacon_interval",
        "only read with `base_stations`",
    );
    refused(
        &cell("base_stations = [\"ap\"]\nhandoff = { lost_after = 0 }\n"),
        "handoff",
        "links.air.handoff.lost_after",
        "from 1 to 1000",
    );
    // Positions and motion.
    refused(
        &c.replace("[nodes.mh]\nposition = [100, 0]", "[nodes.mh]"),
        "[nodes.mh]",
        "nodes.mh",
        "missing required key `position`",
    );
    refused(
        &c.replace("[nodes.mh]", "[nodes.w]\nposition = [1, 1]\n[nodes.mh]"),
        "position = [1, 1]",
        "nodes.w.position",
        "a station of no kind = \"wifi\" link",
    );
    refused(
        &c.replace(
            "position = [100, 0]",
            "position = [100, 0]\nmotion = { waypoints = [[1, 2]], speed = 0 }",
        ),
        "motion",
        "nodes.mh.motion.speed",
        "expected a positive speed",
    );
    refused(
        &c.replace(
            "position = [100, 0]",
            "position = [100, 0]\nmotion = { waypoints = [], speed = 1 }",
        ),
        "motion",
        "nodes.mh.motion.waypoints",
        "at least one waypoint",
    );
    refused(
        &c.replace(
            "position = [100, 0]",
            "motion = { waypoints = [[1, 2]], speed = 1 }",
        ),
        "motion",
        "nodes.mh.motion",
        "needs its starting `position",
    );
}

// No positions at all: one cell where every station hears every other; a node off the
// channel (a wired host behind the access point) is reached through the access point.
#[test]
fn wifi_unplaced_stations_share_one_cell_and_reach_a_wired_host() {
    let text = r#"[simulation]
duration = "2s"

[nodes.w]
[nodes.ap]
[nodes.m1]
[nodes.m2]

[links.wired]
a = "w"
b = "ap"
rate = "10Mbps"
delay = "2ms"

[links.air]
kind = "wifi"
a = "ap"
b = "m1"
stations = ["m2"]
rate = "11Mbps"
delay = "0s"

[flows.up]
kind = "tcp"
from = "m1"
to = "w"
app = "file"
size = "20KB"
start = "100ms"

[flows.down]
kind = "tcp"
from = "w"
to = "m2"
app = "file"
size = "20KB"
start = "100ms"
"#;
    let sc = load(text).unwrap_or_else(|e| panic!("{e}"));
    let (w, t) = run_traced(&sc, 1);
    assert!(w.flows.iter().all(|f| f.delivered >= 20_000));
    // m1's data frames go to the access point (station 0); the access point's to m2 (2).
    let c = channel_of(&w);
    let to = |from: u16| -> Vec<Sta> {
        t.iter()
            .filter_map(|l| match l.out {
                MacOut::Transmit(f) if f.kind == FrameKind::Data && f.src == Sta(from) => {
                    Some(f.dst)
                }
                _ => None,
            })
            .collect()
    };
    assert!(to(1).iter().all(|&d| d == Sta(0)) && !to(1).is_empty());
    assert!(to(0).contains(&Sta(2)) && to(0).contains(&Sta(1)));
    assert_eq!(c.mac_drops(), 0);
}

/// Two base stations 400 m apart on one channel (bs0 the access point), a mobile moving from
/// `from` to `to` (x, metres, y = 0) at 20 m/s from `start`; `extra` appended to the file.
fn two_cells(from: u32, to: u32, start: &str, extra: &str) -> String {
    format!(
        r#"[simulation]
duration = "12s"

[nodes.bs0]
position = [0, 0]
[nodes.mh]
position = [{from}, 0]
motion = {{ waypoints = [[{to}, 0]], speed = 20, start = "{start}" }}
[nodes.bs1]
position = [400, 0]

[links.air]
kind = "wifi"
a = "bs0"
b = "mh"
stations = ["bs1"]
rate = "1Mbps"
delay = "0s"
base_stations = ["bs0", "bs1"]
{extra}"#
    )
}

// The beacon rule of wifi::motion (docs/scenario-format.md): the mobile attaches to bs0 at the
// end of bs0's first beacon (t = 0; bs1, 399 m away, is out of range), and hands off to bs1 at
// the end of the first bs1 beacon after the midpoint (x = 200 m at t = 10 s): bs1 beacons at
// 50 ms + k 100 ms (staggered by interval / 2), so the one enqueued at 10.05 s (x = 201 m; the
// 9.95 s one found x = 199 m, nearer bs0: no handoff). Exact to the nanosecond: the beacon
// frame's start is read from the channel's trace, its end is start + airtime.
#[test]
fn wifi_handoff_at_the_end_of_the_first_stronger_beacon() {
    let sc = load(&two_cells(0, 400, "0s", "")).unwrap_or_else(|e| panic!("{e}"));
    let (w, t) = run_traced(&sc, 1);
    let beacon_end = |bs: u16, after: Time| {
        frames(&t)
            .into_iter()
            .find(|f| f.1 == Sta(bs) && f.2 == FrameKind::Data && f.0 >= after)
            .map(|f| f.0 + f.3)
            .expect("a beacon")
    };
    let attach = beacon_end(0, Time::ZERO);
    let handoff = beacon_end(2, Time::from_millis(10_050));
    assert!(handoff < Time::from_millis(10_060), "{handoff}");
    let h = channel_of(&w).handoffs();
    use crate::wifi::air::HandoffEvent;
    assert_eq!(
        h,
        &[
            HandoffEvent {
                at: attach,
                mobile: Sta(1),
                from: None,
                to: Some(Sta(0)),
                outage: None,
            },
            HandoffEvent {
                at: handoff,
                mobile: Sta(1),
                from: Some(Sta(0)),
                to: Some(Sta(2)),
                outage: None,
            },
        ]
    );
    let s = crate::wifi::report::WifiSummary::of_world(&w).expect("a channel");
    assert_eq!((s.attaches, s.handoffs, s.base_station_lost), (1, 1, 0));
    assert_eq!(s.handoff_log[1].1, "mh");
    assert_eq!(
        (s.handoff_log[1].2.as_str(), s.handoff_log[1].3.as_str()),
        ("bs0", "bs1")
    );
}

// Moving out of range loses frames: the mobile leaves bs0's 250 m range at x = 250 m
// (t = 7.5 s from x = 100 at 20 m/s; hearing is re-computed whenever the channel runs); its packets (one every 50 ms) get through while it is in
// range when the frame starts, and after that every frame is retried to the limit and dropped.
#[test]
fn wifi_mobile_moving_out_of_range_loses_its_frames() {
    let text = two_cells(100, 400, "0s", "")
        .replace("stations = [\"bs1\"]\n", "stations = [\"bs1\"]\n")
        .replace("base_stations = [\"bs0\", \"bs1\"]\n", "")
        .replace("[nodes.bs1]\nposition = [400, 0]", "[nodes.bs1]\nposition = [0, 10]")
        + "\n[flows.up]\nkind = \"cbr\"\nfrom = \"mh\"\nto = \"bs0\"\nrate = \"160kbps\"\npacket_size = 972\nstart = \"0s\"\n";
    let sc = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let (w, t) = run_traced(&sc, 2);
    let ok_starts: Vec<Time> = {
        let ends: Vec<Time> = t
            .iter()
            .filter(|l| l.sta == Sta(0) && matches!(l.out, MacOut::Deliver { from: Sta(1), .. }))
            .map(|l| l.at)
            .collect();
        frames(&t)
            .into_iter()
            .filter(|f| f.1 == Sta(1) && f.2 == FrameKind::Data && ends.contains(&(f.0 + f.3)))
            .map(|f| f.0)
            .collect()
    };
    let last = *ok_starts.last().expect("deliveries");
    // The two-ray range at ns-2's defaults is 250.01 m (wifi::propagation).
    let range = Propagation::default().range();
    let cross = Time::ZERO + Dur::from_secs_f64((range - 100.0) / 20.0);
    assert!(last <= cross, "{last} {cross}");
    assert!(last + Dur::from_millis(100) > cross, "{last} {cross}");
    let s = crate::wifi::report::WifiSummary::of_world(&w).unwrap();
    // 4.5 s out of range at 20 packets/s: about 90 packets, each sent 7 times then dropped
    // (about 86 ms a packet: 7 transmissions and their backoffs, so about 50 drops).
    assert!(s.mac_drops_retry_limit >= 30, "{s:?}");
    // Packets lost (never delivered) are the MAC drops but for those delivered whose ACKs
    // were lost (the frame started in range, its ACK after the mobile left: at most one).
    let c = channel_of(&w);
    assert_eq!(c.mac_losses(), (s.lost_retry_limit, s.lost_queue));
    assert_eq!(c.mac_drops(), s.lost_retry_limit + s.lost_queue);
    let sent_drops = s.mac_drops_retry_limit + s.mac_drops_queue;
    assert!(sent_drops - c.mac_drops() <= 1, "{s:?}");
}

// A TCP transfer from a wired host to the mobile carries on across the handoff: both base
// stations are wired to the host; after the handoff the mobile's ACKs go to bs1 (its new
// gateway) and the packets for it leave from bs1 whichever base station they reach
// (`follow_attachment`); the mobile ends 300 m from bs0, out of its range, so the transfer
// completes only through bs1. The handoff's outage is measured.
#[test]
fn wifi_tcp_to_a_mobile_carries_on_across_the_handoff() {
    let text = two_cells(100, 300, "2s", "").replace("duration = \"12s\"", "duration = \"40s\"")
        + r#"
[nodes.w]
[links.wired]
a = "w"
b = "bs0"
rate = "10Mbps"
delay = "2ms"

[links.wired1]
a = "w"
b = "bs1"
rate = "10Mbps"
delay = "2ms"

[flows.down]
kind = "tcp"
from = "w"
to = "mh"
app = "file"
size = "1MB"
start = "1s"
"#;
    let sc = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let (w, t) = run_traced(&sc, 1);
    assert!(
        w.flows[0].completed_at.is_some(),
        "{:?}",
        w.flows[0].delivered
    );
    let all = channel_of(&w).handoffs();
    // One handoff between base stations (beacon collisions could add a loss and re-attach
    // to bs0 before it, not another handoff: bs1 is out of range until x = 150 m).
    let h: Vec<_> = all
        .iter()
        .filter(|e| e.from.is_some() && e.to.is_some())
        .collect();
    assert_eq!(h.len(), 1, "{all:?}");
    assert_eq!((h[0].from, h[0].to), (Some(Sta(0)), Some(Sta(2))));
    // bs1 (400 m from bs0) cannot sense bs0's frames (carrier sense = the 250 m receive
    // range here; ns-2 senses to 550 m), so its beacons collide at the mobile with bs0's data
    // (hidden terminal): the handoff comes after the midpoint (t = 7 s) and at the latest at
    // the first bs1 beacon after bs0 goes out of range (x = 250 m, t = 9.5 s).
    assert!(h[0].at > Time::from_millis(7_000), "{all:?}");
    assert!(h[0].at < Time::from_millis(9_600), "{all:?}");
    let outage = h[0].outage.expect("an exchange after the handoff");
    assert!(outage < Dur::from_millis(3_000), "{outage} {all:?}");
    let h = h[0];
    // After the handoff bs1 sends the mobile its data (bs0 only drains what it had queued).
    let from_bs1 = frames(&t)
        .iter()
        .filter(|f| f.0 > h.at && f.2 == FrameKind::Data && f.1 == Sta(2) && f.4 != Some(50))
        .count();
    assert!(from_bs1 > 100, "{from_bs1}");
}
