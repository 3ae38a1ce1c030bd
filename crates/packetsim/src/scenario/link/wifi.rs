//! `kind = "wifi"` (issue 34): a shared 802.11b channel (`crate::wifi`) that several nodes
//! join as stations, written as one `[links.NAME]` table:
//!
//! - `a`: the access point. Packets for a node that is not on the channel go over the air to
//!   it (it is the stations' gateway); `b` and `stations = [..]` are the other stations.
//! - `rate`: the data rate, one of 802.11b's 1, 2, 5.5 and 11 Mb/s; `basic_rate` (default
//!   1 Mb/s): the rate of RTS, CTS and ACK frames. `delay` must be `"0s"`: the channel times
//!   every frame itself (DIFS, backoff, PLCP, airtime, SIFS, ACK).
//! - `queue = { limit = N }`: each station's interface queue (drop-tail, N packets, the frame
//!   being sent included; default 50, ns-2's IFQ). `loss`: the per-frame error rate of data
//!   frames that escaped collision (the PHY's seeded error model).
//! - `rts_threshold` (bytes; absent: RTS/CTS off), `short_retry_limit` (7),
//!   `long_retry_limit` (4): the DCF's settings (`wifi::dcf`).
//! - `propagation`: `"two_ray_ground"` (default, ns-2's TwoRayGround with its default radio:
//!   250 m), `"free_space"` (Friis), or `"range"` with `range = METRES` (a disc). Stations are
//!   placed by `[nodes.X] position = [x, y]` (metres); with no position on any station every
//!   station hears every other.
//! - `base_stations = [..]`: the stations that send beacons every `beacon_interval` (default
//!   100 ms), staggered; the other stations with a `motion` pick their base station by the
//!   rule of `wifi::motion` (`handoff = { hysteresis = 1.0, lost_after = 3 }`).
//!
//! Built as `wifi::element` says: a hub node `NAME.hub` standing for the air, each station
//! joined to it by an instantaneous link (the access point's link is `NAME` itself, at the
//! link's position in the file; the others, `NAME.STATION`, are added after every file link),
//! and the channel as a node element at the hub.

use super::{LinkBuild, LinkInput, LinkKindRow};
use crate::ids::{LinkId, NodeId};
use crate::net::{DirectionParams, ErrorModel, Net};
use crate::queue::{AnyAdmission, DropTail, QueueDisc};
use crate::scenario::kinds::fields_of;
use crate::scenario::locate::KeyPath;
use crate::scenario::schema::RawQueueKind;
use crate::scenario::{LinkKind, LinkSpec, QueueLimit, ScenarioError};
use crate::units;
use crate::wifi::motion::{Beacons, HandoffConfig, Path, Traversal};
use crate::wifi::propagation::{Model, Pos, Propagation};
use crate::wifi::{ChannelConfig, DcfConfig, PhyConfig};
use packetsim_kernel::{Dur, Rate, Time};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::collections::HashSet;
use std::fmt;

/// The registry row.
pub(super) const KIND: LinkKindRow = LinkKindRow {
    name: "wifi",
    keys: fields_of::<Keys>,
    load,
    add,
};

/// The interface queue when `queue` is absent (ns-2's `Queue/DropTail/PriQueue` of 50).
pub const DEFAULT_IFQ: usize = 50;

pub use crate::wifi::air::Radio as WifiRadio;

/// A `kind = "wifi"` link's own settings.
#[derive(Clone, Debug, PartialEq)]
pub struct WifiSpec {
    /// The stations' nodes: `a` (the access point, station 0), `b`, then `stations`.
    pub stations: Vec<String>,
    /// MAC, PHY and error model.
    pub channel: ChannelConfig,
    /// Who hears whom.
    pub radio: WifiRadio,
    /// Each station's position (`[nodes.X] position`), in station order; all `None` when no
    /// station has one (every station hears every other).
    pub positions: Vec<Option<Pos>>,
    /// Each station's motion (`[nodes.X] motion`), in station order.
    pub motion: Vec<Option<Path>>,
    /// The stations that send beacons (indices into `stations`).
    pub base_stations: Vec<usize>,
    /// Beacon interval and size.
    pub beacons: Beacons,
    /// The mobiles' handoff rule.
    pub handoff: HandoffConfig,
}

/// A wifi link's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    #[serde(default)]
    stations: Option<Vec<String>>,
    #[serde(default, with = "units::rate::opt")]
    basic_rate: Option<Rate>,
    #[serde(default)]
    rts_threshold: Option<i64>,
    #[serde(default)]
    short_retry_limit: Option<i64>,
    #[serde(default)]
    long_retry_limit: Option<i64>,
    #[serde(default)]
    propagation: Option<RawPropagation>,
    #[serde(default)]
    range: Option<Num>,
    #[serde(default)]
    base_stations: Option<Vec<String>>,
    #[serde(default, with = "units::dur::opt")]
    beacon_interval: Option<Dur>,
    #[serde(default)]
    handoff: Option<RawHandoff>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum RawPropagation {
    TwoRayGround,
    FreeSpace,
    Range,
}

/// `handoff = { hysteresis = 1.0, lost_after = 3 }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHandoff {
    #[serde(default)]
    hysteresis: Option<Num>,
    #[serde(default)]
    lost_after: Option<i64>,
}

/// A number written as an integer or a float (`position = [0, 12.5]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Num(pub f64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// `[nodes.X] motion = { waypoints = [[x, y], ..], speed = 20, start = "5s", repeat = "once" }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMotion {
    waypoints: Vec<[Num; 2]>,
    speed: Num,
    #[serde(default, with = "units::dur::opt")]
    start: Option<Dur>,
    #[serde(default)]
    repeat: Option<RawRepeat>,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum RawRepeat {
    Once,
    BackAndForth,
}

/// A node's `position` and `motion` as written, for [`place_stations`].
pub(crate) struct NodePlace {
    pub name: String,
    pub position: Option<[Num; 2]>,
    pub motion: Option<RawMotion>,
}

/// The common keys a wifi link does not read (set: an error naming the key).
fn unused_common(l: &LinkInput) -> Option<&'static str> {
    let c = l.common;
    [
        ("queue_ba", c.queue_ba.is_some()),
        ("ber", c.ber.is_some()),
        ("errors", c.errors.is_some()),
        ("loss_packets", c.loss_packets.is_some()),
        ("outages", !c.outages.is_empty()),
        ("outage_policy", c.outage_policy.is_some()),
        ("rate_steps", !c.rate_steps.is_empty()),
        ("diffserv_edge", c.diffserv_edge.is_some()),
        ("cost", c.cost.is_some()),
        ("cost_ba", c.cost_ba.is_some()),
        ("queue_report", c.queue_report.is_some()),
        ("rate_process", c.rate_process.is_some()),
    ]
    .into_iter()
    .find(|(_, set)| *set)
    .map(|(k, _)| k)
}

fn dsss(l: &LinkInput, key: &str, r: Rate) -> Result<Rate, ScenarioError> {
    if PhyConfig::is_dsss_rate(r) {
        Ok(r)
    } else {
        Err(l.err(
            key,
            format!(
                "expected an 802.11b rate: \"1Mbps\", \"2Mbps\", \"5.5Mbps\" or \"11Mbps\"; got {r}"
            ),
        ))
    }
}

fn load(l: &LinkInput) -> Result<LinkKind, ScenarioError> {
    let k: Keys = l.keys()?;
    if let Some(key) = unused_common(l) {
        return Err(l.err(
            key,
            "not read on a wifi link: the channel's own keys set its MAC, queue and errors \
             (docs/scenario-format.md, \"Wifi links\")",
        ));
    }
    let data_rate = dsss(l, "rate", l.common.rate)?;
    let basic_rate = match k.basic_rate {
        None => Rate::mbps(1),
        Some(r) => dsss(l, "basic_rate", r)?,
    };
    if l.common.delay != Dur::ZERO {
        return Err(l.err(
            "delay",
            format!(
                "expected \"0s\" on a wifi link: the channel times every frame itself (DIFS, \
                 backoff, PLCP, airtime, SIFS, ACK); got {}",
                l.common.delay
            ),
        ));
    }
    let ifq_limit = match &l.common.queue {
        None => DEFAULT_IFQ,
        Some(q) => {
            let plain = q.kind == RawQueueKind::DropTail
                && q.classes.is_none()
                && q.ns2_limit.is_none()
                && q.discipline_tables().iter().all(|&(_, written)| !written);
            match q.limit {
                Some(QueueLimit::Packets(n)) if plain && n >= 1 => n as usize,
                _ => {
                    return Err(l.err(
                        "queue",
                        "expected the stations' interface queue as { limit = N } with N >= 1 \
                         packets (drop-tail, ns-2's IFQ; default 50)",
                    ))
                }
            }
        }
    };
    let data_loss = l.common.loss.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&data_loss) {
        return Err(l.err(
            "loss",
            format!("expected a per-frame error rate in [0, 1]; got {data_loss}"),
        ));
    }
    let limit = |key: &str, v: Option<i64>, default: u32| match v {
        None => Ok(default),
        Some(n) if (1..=255).contains(&n) => Ok(n as u32),
        Some(n) => Err(l.err(
            key,
            format!("expected a retry limit from 1 to 255 transmissions; got {n}"),
        )),
    };
    let d = DcfConfig::default();
    let short_retry_limit = limit(
        "short_retry_limit",
        k.short_retry_limit,
        d.short_retry_limit,
    )?;
    let long_retry_limit = limit("long_retry_limit", k.long_retry_limit, d.long_retry_limit)?;
    let rts_threshold = match k.rts_threshold {
        None => None,
        Some(n) if (0..=u32::MAX as i64).contains(&n) => Some(n as u32),
        Some(n) => {
            return Err(l.err(
                "rts_threshold",
                format!(
                    "expected a frame length in bytes >= 0 (RTS/CTS before longer data \
                     frames; leave it out for no RTS/CTS); got {n}"
                ),
            ))
        }
    };
    let radio = match (
        k.propagation.unwrap_or(RawPropagation::TwoRayGround),
        k.range,
    ) {
        (RawPropagation::Range, None) => {
            return Err(l.err(
                "propagation",
                "with propagation = \"range\", `range` (metres) is required: the distance \
                 within which stations hear each other, e.g. range = 250",
            ))
        }
        (RawPropagation::Range, Some(Num(r))) if r.is_finite() && r > 0.0 => WifiRadio::Range(r),
        (RawPropagation::Range, Some(Num(r))) => {
            return Err(l.err(
                "range",
                format!("expected a positive distance in metres; got {r}"),
            ))
        }
        (_, Some(_)) => {
            return Err(l.err(
                "range",
                "only read with propagation = \"range\" (the other models have ns-2's radio: \
                 250 m with two_ray_ground)",
            ))
        }
        (RawPropagation::TwoRayGround, None) => WifiRadio::Propagation(Propagation::default()),
        (RawPropagation::FreeSpace, None) => WifiRadio::Propagation(Propagation {
            model: Model::FreeSpace,
            ..Propagation::default()
        }),
    };
    let mut stations = vec![l.common.a.clone(), l.common.b.clone()];
    stations.extend(k.stations.unwrap_or_default());
    for (i, s) in stations.iter().enumerate().skip(2) {
        if stations[..i].contains(s) {
            return Err(l.cx.err(
                &l.path.key("stations").index(i - 2),
                format!("`{s}` is already a station of this channel (a, b and stations are each one node)"),
            ));
        }
    }
    if stations.len() > 1000 {
        return Err(l.err(
            "stations",
            format!(
                "expected at most 1000 stations on one channel; got {}",
                stations.len()
            ),
        ));
    }
    let mut base_stations = Vec::new();
    for (i, b) in k.base_stations.iter().flatten().enumerate() {
        let p = l.path.key("base_stations").index(i);
        let Some(at) = stations.iter().position(|s| s == b) else {
            return Err(l.cx.err(
                &p,
                format!(
                    "expected a station of this channel ({}); `{b}` is not one",
                    stations.join(", ")
                ),
            ));
        };
        if base_stations.contains(&at) {
            return Err(l.cx.err(&p, format!("`{b}` is listed twice")));
        }
        base_stations.push(at);
    }
    if base_stations.is_empty() {
        for key in ["beacon_interval", "handoff"] {
            let set = match key {
                "beacon_interval" => k.beacon_interval.is_some(),
                _ => k.handoff.is_some(),
            };
            if set {
                return Err(l.err(
                    key,
                    "only read with `base_stations` (the stations that send beacons)",
                ));
            }
        }
    }
    let beacons = Beacons {
        interval: match k.beacon_interval {
            None => Beacons::default().interval,
            Some(d) if d > Dur::ZERO => d,
            Some(_) => {
                return Err(l.err(
                    "beacon_interval",
                    "expected a positive interval, e.g. \"100ms\"; got 0",
                ))
            }
        },
        ..Beacons::default()
    };
    let mut handoff = HandoffConfig {
        interval: beacons.interval,
        ..HandoffConfig::default()
    };
    if let Some(h) = k.handoff {
        let p = l.path.key("handoff");
        if let Some(Num(x)) = h.hysteresis {
            if !(x.is_finite() && x > 0.0) {
                return Err(l.cx.err(
                    &p.key("hysteresis"),
                    format!("expected a positive power ratio (1 = any stronger beacon); got {x}"),
                ));
            }
            handoff.hysteresis = x;
        }
        if let Some(n) = h.lost_after {
            if !(1..=1000).contains(&n) {
                return Err(l.cx.err(
                    &p.key("lost_after"),
                    format!("expected a whole number of beacon intervals from 1 to 1000; got {n}"),
                ));
            }
            handoff.lost_after = n as u32;
        }
    }
    let n = stations.len();
    Ok(LinkKind::Wifi(WifiSpec {
        stations,
        channel: ChannelConfig {
            dcf: DcfConfig {
                phy: PhyConfig {
                    basic_rate,
                    data_rate,
                    ..PhyConfig::default()
                },
                short_retry_limit,
                long_retry_limit,
                rts_threshold,
                ifq_limit,
                ..d
            },
            data_loss,
        },
        radio,
        positions: vec![None; n],
        motion: vec![None; n],
        base_stations,
        beacons,
        handoff,
    }))
}

/// Checks the stations are nodes, and gives them their `position` and `motion`. A node with a
/// position or motion must be a station of a wifi link, and if one station of a channel has
/// a position every station of it must.
pub(in crate::scenario) fn place_stations(
    cx: &crate::scenario::load::Ctx,
    links: &mut [LinkSpec],
    places: Vec<NodePlace>,
    nodes: &[String],
    node_set: &HashSet<&str>,
) -> Result<(), ScenarioError> {
    let mut on_channel: HashSet<&str> = HashSet::new();
    for l in links.iter() {
        let LinkKind::Wifi(w) = &l.kind else { continue };
        let path = KeyPath::keys(&["links", &l.name]);
        for (i, s) in w.stations.iter().enumerate().skip(2) {
            cx.check_node(&path.key("stations").index(i - 2), s, nodes, node_set)?;
        }
        on_channel.extend(w.stations.iter().map(String::as_str));
    }
    let mut pos: Vec<(String, Pos, Option<Path>)> = Vec::new();
    for p in places {
        let at = KeyPath::keys(&["nodes", &p.name]);
        let Some([Num(x), Num(y)]) = p.position else {
            if p.motion.is_some() {
                return Err(cx.err(
                    &at.key("motion"),
                    "a node with `motion` needs its starting `position = [x, y]` (metres)",
                ));
            }
            continue;
        };
        if !on_channel.contains(p.name.as_str()) {
            return Err(cx.err(
                &at.key("position"),
                format!(
                    "`{}` is a station of no kind = \"wifi\" link: positions place stations \
                     on a channel",
                    p.name
                ),
            ));
        }
        if !(x.is_finite() && y.is_finite()) {
            return Err(cx.err(
                &at.key("position"),
                "expected finite coordinates in metres, e.g. [0, 100]",
            ));
        }
        let start = Pos { x, y };
        let path = match p.motion {
            None => None,
            Some(m) => Some(motion(cx, &at.key("motion"), start, m)?),
        };
        pos.push((p.name, start, path));
    }
    for l in links.iter_mut() {
        let name = l.name.clone();
        let LinkKind::Wifi(w) = &mut l.kind else {
            continue;
        };
        let placed: Vec<Option<&(String, Pos, Option<Path>)>> = w
            .stations
            .iter()
            .map(|s| pos.iter().find(|(n, _, _)| n == s))
            .collect();
        if placed.iter().all(Option::is_none) {
            if !w.base_stations.is_empty() {
                return Err(cx.err(
                    &KeyPath::keys(&["links", &name, "base_stations"]),
                    "beacons need the stations placed: give each station a \
                     [nodes.X] position = [x, y]",
                ));
            }
            continue;
        }
        if let Some(i) = placed.iter().position(Option::is_none) {
            return Err(cx.err(
                &KeyPath::keys(&["nodes", &w.stations[i]]),
                format!(
                    "missing required key `position`: the other stations of link `{name}` \
                     are placed, so `{}` must be too",
                    w.stations[i]
                ),
            ));
        }
        w.positions = placed.iter().map(|p| p.map(|p| p.1)).collect();
        w.motion = placed.iter().map(|p| p.and_then(|p| p.2.clone())).collect();
    }
    Ok(())
}

/// Validates a node's `motion` (starting at its `position`).
fn motion(
    cx: &crate::scenario::load::Ctx,
    at: &KeyPath,
    start: Pos,
    m: RawMotion,
) -> Result<Path, ScenarioError> {
    if m.waypoints.is_empty() {
        return Err(cx.err(
            &at.key("waypoints"),
            "expected at least one waypoint [x, y] to move to",
        ));
    }
    let mut waypoints = vec![start];
    for (i, [Num(x), Num(y)]) in m.waypoints.into_iter().enumerate() {
        if !(x.is_finite() && y.is_finite()) {
            return Err(cx.err(
                &at.key("waypoints").index(i),
                "expected finite coordinates in metres",
            ));
        }
        waypoints.push(Pos { x, y });
    }
    let Num(speed) = m.speed;
    if !(speed.is_finite() && speed > 0.0) {
        return Err(cx.err(
            &at.key("speed"),
            format!("expected a positive speed in metres per second; got {speed}"),
        ));
    }
    Ok(Path {
        waypoints,
        speed,
        start: Time::ZERO + m.start.unwrap_or(Dur::ZERO),
        traversal: match m.repeat.unwrap_or(RawRepeat::Once) {
            RawRepeat::Once => Traversal::Once,
            RawRepeat::BackAndForth => Traversal::PingPong,
        },
    })
}

/// An instantaneous direction between a station and the hub (the channel does the timing):
/// 1 Tb/s (8 ns for 1000 bytes), no delay, a queue that never fills in practice.
pub fn hub_direction() -> DirectionParams {
    DirectionParams {
        rate: Rate::bps(1_000_000_000_000),
        delay: Dur::ZERO,
        queue: QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(
            100_000,
        )))),
        errors: ErrorModel::default(),
    }
}

/// The hub node (`NAME.hub`) and the access point's link to it (`NAME`).
fn add(net: &mut Net, b: &LinkBuild) -> LinkId {
    let hub = net.add_node(&format!("{}.hub", b.spec.name));
    net.add_link(
        &b.spec.name,
        b.a,
        hub,
        hub_direction(),
        hub_direction(),
        b.seed,
    )
}

/// The links of the stations after the access point (`NAME.STATION`), after every file link.
/// `ids`: node ids by name.
pub(crate) fn add_station_links(
    net: &mut Net,
    links: &[LinkSpec],
    node: &dyn Fn(&str) -> NodeId,
    seed: u64,
) {
    for (li, l) in links.iter().enumerate() {
        let LinkKind::Wifi(w) = &l.kind else { continue };
        let hub = net.links[li].b;
        for s in &w.stations[1..] {
            net.add_link(
                &format!("{}.{s}", l.name),
                node(s),
                hub,
                hub_direction(),
                hub_direction(),
                seed,
            );
        }
    }
}

/// The seed of a channel's random streams (backoff, errors), from the run seed and the
/// link's name, so that adding a link changes no other's draws.
pub fn channel_seed(seed: u64, link: &str) -> u64 {
    packetsim_kernel::Rng::for_component(seed, &format!("links.{link}.wifi")).next_u64()
}

/// The channel elements, at each wifi link's hub (after the world is made).
pub(crate) fn place_channels(world: &mut crate::world::World, links: &[LinkSpec], seed: u64) {
    use crate::wifi::element::{ChannelElement, WifiPort};
    for (li, l) in links.iter().enumerate() {
        let LinkKind::Wifi(w) = &l.kind else { continue };
        let net = &world.net;
        let hub = net.links[li].b;
        let ports: Vec<WifiPort> = w
            .stations
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let id = if i == 0 {
                    &net.links[li]
                } else {
                    let name = format!("{}.{s}", l.name);
                    net.links
                        .iter()
                        .find(|x| x.name == name)
                        .expect("add_station_links made it")
                };
                WifiPort {
                    node: id.a,
                    inbound: id.ab,
                    outbound: id.ba,
                }
            })
            .collect();
        let mut el = ChannelElement::new(net, ports, 0, w.channel, channel_seed(seed, &l.name));
        if w.positions.iter().all(Option::is_some) {
            el = el.with_air(crate::wifi::air::Air {
                radio: w.radio,
                positions: w.positions.iter().map(|p| p.expect("placed")).collect(),
                paths: w.motion.clone(),
                base_stations: w
                    .base_stations
                    .iter()
                    .map(|&b| crate::wifi::Sta(b as u16))
                    .collect(),
                beacons: w.beacons,
                handoff: w.handoff,
                follow_attachment: true,
            });
        }
        world.add_element(hub, Box::new(el), true);
    }
}
