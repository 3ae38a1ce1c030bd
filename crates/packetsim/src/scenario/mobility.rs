//! `[mobility]`: mobile hosts moving between the base stations of one access domain under a
//! micro-mobility protocol (spec 5; `crate::mobility`). The scenario declares the nodes (the
//! mobiles among them, with no links) and the wired links; this table names the gateway, the
//! base stations and the mobiles, the protocol, the radio and the handoff schedule. Building
//! adds a radio link between every mobile and every base station and the protocol's elements
//! (`mobility::install`). Keys and defaults: docs/scenario-format.md, "Mobility".

use super::error::ScenarioError;
use super::load::Ctx;
use super::locate::KeyPath;
use super::LinkSpec;
use crate::mobility::{Departure, HandoffSchedule, MobilityConfig, Protocol};
use crate::units;
use packetsim_kernel::{Dur, Rate, Time};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::collections::HashSet;
use std::fmt;

/// `[mobility]` as serde reads it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMobility {
    pub protocol: RawProtocol,
    pub gateway: String,
    pub base_stations: Vec<String>,
    pub mobiles: Vec<String>,
    #[serde(default, with = "units::rate::opt")]
    pub radio_rate: Option<Rate>,
    #[serde(default, with = "units::dur::opt")]
    pub radio_delay: Option<Dur>,
    #[serde(default)]
    pub radio_queue: Option<usize>,
    #[serde(default)]
    pub radio_loss: Option<f64>,
    #[serde(default)]
    pub loss_uplink: Option<bool>,
    #[serde(default)]
    pub handoffs: Option<u32>,
    #[serde(default, with = "units::dur::opt")]
    pub period: Option<Dur>,
    #[serde(default)]
    pub spread: Option<bool>,
    #[serde(default)]
    pub handoff_times: Option<Vec<RawMove>>,
    #[serde(default)]
    pub first: Option<String>,
    #[serde(default, with = "units::dur::opt")]
    pub gap: Option<Dur>,
    #[serde(default)]
    pub departure: Option<RawDeparture>,
    #[serde(default, with = "units::dur::opt")]
    pub hold_time: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub route_update_time: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub route_timeout: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub semisoft_delay: Option<Dur>,
    #[serde(default)]
    pub delay_device: Option<bool>,
    #[serde(default, with = "units::dur::opt")]
    pub crossover_delay: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub refresh: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub unf_linger: Option<Dur>,
    #[serde(default)]
    pub control_bytes: Option<u32>,
    #[serde(default)]
    pub home_agent: Option<String>,
    #[serde(default, with = "units::dur::opt")]
    pub mip_lifetime: Option<Dur>,
    #[serde(default)]
    pub tunnel_bytes: Option<u32>,
    #[serde(default)]
    pub paging: Option<bool>,
    #[serde(default, with = "units::dur::opt")]
    pub paging_update_time: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub paging_timeout: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub active_timeout: Option<Dur>,
    /// The 802.11 radio (`radio = "wifi"`; [`super::mobility_wifi`]).
    #[serde(default)]
    pub radio: Option<super::mobility_wifi::RawRadio>,
    #[serde(default)]
    pub spacing: Option<f64>,
    #[serde(default)]
    pub speed: Option<f64>,
    #[serde(default, with = "units::dur::opt")]
    pub beacon_interval: Option<Dur>,
    #[serde(default)]
    pub beacons_on_air: Option<bool>,
    #[serde(default, with = "units::rate::opt")]
    pub data_rate: Option<Rate>,
}

/// `{ at = "7.5s", to = "bs2" }`: one explicit handoff.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMove {
    #[serde(with = "units::dur")]
    pub at: Dur,
    pub to: String,
}

/// `protocol = ...`: a name of [`Protocol::NAMES`] (the rows of `mobility_protocols!`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawProtocol(pub Protocol);

impl<'de> Deserialize<'de> for RawProtocol {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RawProtocol;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the mobility protocol as a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawProtocol, E> {
                Protocol::from_name(s)
                    .map(RawProtocol)
                    .ok_or_else(|| E::unknown_variant(s, Protocol::NAMES))
            }
        }
        d.deserialize_str(V)
    }
}

/// `departure = ...`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RawDeparture {
    Hold,
    Blind,
}

/// A validated `[mobility]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct MobilitySpec {
    /// Protocol and its settings (spec 5 §3 defaults for the keys not written).
    pub config: MobilityConfig,
    /// The gateway node.
    pub gateway: String,
    /// The base stations, in order (the ping-pong walk goes through them in this order).
    pub base_stations: Vec<String>,
    /// The mobile nodes.
    pub mobiles: Vec<String>,
    /// Radio rate (2 Mb/s).
    pub radio_rate: Rate,
    /// Radio delay (1 ms).
    pub radio_delay: Dur,
    /// Per mobile, its handoff schedule (base stations by index).
    pub schedules: Vec<HandoffSchedule>,
    /// Mobile IP: the home agent's node when it is not the gateway.
    pub home_agent: Option<String>,
    /// The 802.11 radio with moving mobiles (`radio = "wifi"`), instead of a point-to-point
    /// radio link per (mobile, base station) under a handoff schedule.
    pub wifi: Option<super::mobility_wifi::MobilityWifi>,
}

impl Ctx<'_> {
    /// Validates `[mobility]` against the nodes and links.
    pub(super) fn mobility(
        &self,
        m: RawMobility,
        nodes: &[String],
        node_set: &HashSet<&str>,
        links: &[LinkSpec],
        duration: Dur,
    ) -> Result<MobilitySpec, ScenarioError> {
        let path = KeyPath::keys(&["mobility"]);
        let wifi = self.mobility_wifi(&m, duration)?;
        let protocol = m.protocol.0;
        self.check_node(&path.key("gateway"), &m.gateway, nodes, node_set)?;
        let mut named: HashSet<&str> = HashSet::from([m.gateway.as_str()]);
        for (key, list, what) in [
            ("base_stations", &m.base_stations, "base station"),
            ("mobiles", &m.mobiles, "mobile"),
        ] {
            let p = path.key(key);
            if list.is_empty() {
                return Err(self.err(&p, format!("expected at least one {what}; got none")));
            }
            for (i, n) in list.iter().enumerate() {
                self.check_node(&p.index(i), n, nodes, node_set)?;
                if !named.insert(n.as_str()) {
                    return Err(self.err(
                        &p.index(i),
                        format!(
                            "node `{n}` is named twice in [mobility] (the gateway, the base \
                             stations and the mobiles are distinct nodes)"
                        ),
                    ));
                }
            }
        }
        for (i, mh) in m.mobiles.iter().enumerate() {
            if let Some(l) = links.iter().find(|l| &l.a == mh || &l.b == mh) {
                return Err(self.err(
                    &path.key("mobiles").index(i),
                    format!(
                        "mobile `{mh}` is an end of links.{}: a mobile's only links are the \
                         radios [mobility] adds to every base station",
                        l.name
                    ),
                ));
            }
        }
        let positive = |key: &str, d: Option<Dur>, default: Dur| -> Result<Dur, ScenarioError> {
            match d {
                Some(Dur::ZERO) => Err(self.err(
                    &path.key(key),
                    "expected a positive duration, e.g. \"1s\"; got 0",
                )),
                Some(d) => Ok(d),
                None => Ok(default),
            }
        };
        let mut cfg = MobilityConfig::new(protocol);
        cfg.route_update_time = positive(
            "route_update_time",
            m.route_update_time,
            cfg.route_update_time,
        )?;
        cfg.route_timeout = positive("route_timeout", m.route_timeout, cfg.route_timeout)?;
        cfg.refresh = positive("refresh", m.refresh, cfg.refresh)?;
        cfg.mip_lifetime = positive("mip_lifetime", m.mip_lifetime, cfg.mip_lifetime)?;
        cfg.semisoft_delay = m.semisoft_delay.unwrap_or(cfg.semisoft_delay);
        cfg.delay_device = m.delay_device.unwrap_or(cfg.delay_device);
        if let Some(d) = m.crossover_delay {
            if !protocol.bicasts() {
                return Err(self.err(
                    &path.key("crossover_delay"),
                    "crossover_delay is Cellular IP semisoft's delay device (protocol = \
                     \"cip_semisoft\")",
                ));
            }
            cfg.crossover_delay = Some(positive("crossover_delay", Some(d), d)?);
        }
        cfg.unf_linger = m.unf_linger.unwrap_or(cfg.unf_linger);
        cfg.gap = m.gap.unwrap_or(cfg.gap);
        cfg.hold_time = m.hold_time.unwrap_or(cfg.hold_time);
        cfg.departure = match m.departure {
            Some(RawDeparture::Blind) => Departure::Blind,
            Some(RawDeparture::Hold) | None => Departure::Hold,
        };
        cfg.loss_uplink = m.loss_uplink.unwrap_or(cfg.loss_uplink);
        cfg.paging = m.paging.unwrap_or(false);
        if cfg.paging && !protocol.pages() {
            return Err(self.err(
                &path.key("paging"),
                "paging belongs to Cellular IP (protocol = \"cip_semisoft\" or \"cip_hard\")",
            ));
        }
        for (key, given) in [
            ("paging_update_time", m.paging_update_time),
            ("paging_timeout", m.paging_timeout),
            ("active_timeout", m.active_timeout),
        ] {
            if given.is_some() && !cfg.paging {
                return Err(self.err(
                    &path.key(key),
                    format!("`{key}` sets Cellular IP paging: it needs `paging = true`"),
                ));
            }
        }
        cfg.paging_update_time = positive(
            "paging_update_time",
            m.paging_update_time,
            cfg.paging_update_time,
        )?;
        cfg.paging_timeout = positive("paging_timeout", m.paging_timeout, cfg.paging_timeout)?;
        cfg.active_timeout = positive("active_timeout", m.active_timeout, cfg.active_timeout)?;
        if cfg.paging && cfg.paging_timeout <= cfg.paging_update_time {
            return Err(self.err(
                &path.key(if m.paging_timeout.is_some() {
                    "paging_timeout"
                } else {
                    "paging_update_time"
                }),
                format!(
                    "expected paging_timeout ({} s) above paging_update_time ({} s): an idle \
                     mobile's paging-cache mappings would lapse between its paging-updates",
                    cfg.paging_timeout.as_secs_f64(),
                    cfg.paging_update_time.as_secs_f64()
                ),
            ));
        }
        cfg.control_bytes = m.control_bytes.unwrap_or(cfg.control_bytes);
        cfg.tunnel_bytes = m.tunnel_bytes.unwrap_or(cfg.tunnel_bytes);
        if let Some(q) = m.radio_queue {
            if q == 0 {
                return Err(self.err(
                    &path.key("radio_queue"),
                    "expected a positive number of packets; got 0",
                ));
            }
            cfg.radio_queue = q;
        }
        if let Some(e) = m.radio_loss {
            if !(0.0..=1.0).contains(&e) {
                return Err(self.err(
                    &path.key("radio_loss"),
                    format!("expected a probability from 0 to 1; got {e}"),
                ));
            }
            cfg.radio_loss = e;
        }
        let radio_rate = m.radio_rate.unwrap_or(Rate::mbps(2));
        if radio_rate.as_bps() == 0 {
            return Err(self.err(&path.key("radio_rate"), "expected a positive rate; got 0"));
        }
        let bs_index = |p: &KeyPath, name: &str| -> Result<usize, ScenarioError> {
            m.base_stations
                .iter()
                .position(|b| b == name)
                .ok_or_else(|| {
                    self.err(
                        p,
                        format!(
                            "expected one of mobility.base_stations ({}); got `{name}`",
                            m.base_stations.join(", ")
                        ),
                    )
                })
        };
        let schedule = match (m.handoffs, &m.handoff_times) {
            (Some(_), Some(_)) => return Err(self.err(
                &path.key("handoff_times"),
                "give either `handoffs` (evenly spaced, ping-pong) or `handoff_times`, not both",
            )),
            (_, Some(moves)) => {
                let first = match &m.first {
                    Some(f) => bs_index(&path.key("first"), f)?,
                    None => 0,
                };
                let mut at = first;
                let mut last = None;
                let mut out = Vec::with_capacity(moves.len());
                for (i, mv) in moves.iter().enumerate() {
                    let p = path.key("handoff_times").index(i);
                    let to = bs_index(&p.key("to"), &mv.to)?;
                    if to == at {
                        return Err(self.err(
                            &p.key("to"),
                            format!("the mobile is already at `{}` then", mv.to),
                        ));
                    }
                    if last.is_some_and(|t| mv.at <= t) || mv.at >= duration {
                        return Err(self.err(
                            &p.key("at"),
                            "expected times in increasing order, inside the run (below \
                             simulation.duration)",
                        ));
                    }
                    last = Some(mv.at);
                    at = to;
                    out.push((Time::ZERO + mv.at, to));
                }
                HandoffSchedule::explicit(first, &out)
            }
            (h, None) => {
                if m.first.is_some() {
                    return Err(self.err(
                        &path.key("first"),
                        "`first` goes with handoff_times; evenly spaced handoffs (`handoffs`) \
                         start at the first of mobility.base_stations",
                    ));
                }
                let h = h.unwrap_or(0);
                if h > 0 && m.base_stations.len() < 2 {
                    return Err(self.err(
                        &path.key("handoffs"),
                        "handoffs need at least two base stations",
                    ));
                }
                // Costed before the schedules are made (issue 38: 2^32 - 1 handoffs asked
                // for 103 GB): one schedule per mobile and the one checked here.
                let schedules = m.mobiles.len() as u64 + 1;
                let bytes = super::cost::handoffs(u64::from(h), schedules);
                let budget = self.limits().max_memory;
                if bytes > u128::from(budget) {
                    return Err(self.err(
                        &path.key("handoffs"),
                        format!(
                            "{h} handoffs for each of {} mobiles need about {:.1} MiB in \
                             memory, more than the budget of {:.1} MiB: lower handoffs, or \
                             raise the budget with --max-memory",
                            m.mobiles.len(),
                            bytes as f64 / 1048576.0,
                            budget as f64 / 1048576.0
                        ),
                    ));
                }
                positive("period", m.period, duration)?;
                HandoffSchedule::ping_pong(h, Dur::ZERO, 0, 0.0)
            }
        };
        let spread = m.spread.unwrap_or(false);
        if spread && m.handoff_times.is_some() {
            return Err(self.err(
                &path.key("spread"),
                "`spread` shifts evenly spaced handoffs (`handoffs`); explicit handoff_times \
                 are the same for every mobile",
            ));
        }
        let n = m.mobiles.len();
        let schedules = (0..n)
            .map(|j| match m.handoff_times {
                Some(_) => schedule.clone(),
                None => {
                    // Spec 5 §2.2: t_k = k·T/(H+1), ping-pong from the first base station;
                    // `spread` shifts mobile j by j/N of the spacing (MM-X5).
                    let phase = if spread { j as f64 / n as f64 } else { 0.0 };
                    let period = m.period.unwrap_or(duration);
                    let h = m.handoffs.unwrap_or(0);
                    HandoffSchedule::ping_pong(h, period, m.base_stations.len(), phase)
                }
            })
            .collect();
        if let Some(ha) = &m.home_agent {
            let p = path.key("home_agent");
            if !protocol.home_agent() {
                return Err(self.err(&p, "a home agent belongs to protocol = \"mobile_ip\""));
            }
            self.check_node(&p, ha, nodes, node_set)?;
            if named.contains(ha.as_str()) {
                return Err(self.err(
                    &p,
                    "the home agent is a node of its own on the correspondents' side of the \
                     gateway (leave the key out to make the gateway the home agent)",
                ));
            }
        }
        Ok(MobilitySpec {
            config: cfg,
            gateway: m.gateway,
            base_stations: m.base_stations,
            mobiles: m.mobiles,
            radio_rate,
            radio_delay: m.radio_delay.unwrap_or(Dur::from_millis(1)),
            schedules,
            home_agent: m.home_agent,
            wifi,
        })
    }
}
