//! `[mobility]` on the 802.11 radio (`radio = "wifi"`): the base stations on a line
//! `spacing` metres apart on one shared 802.11b channel (DCF, TwoRayGround's 250 m range),
//! beaconing every `beacon_interval`, and each mobile moving back and forth along them at
//! `speed` (or at the speed that makes `handoffs` border crossings in `period`), handing off
//! by the beacon rule (`mobility::radio`, study 5's radio). Keys and defaults:
//! docs/scenario-format.md, "Mobility on the 802.11 radio".

use super::error::ScenarioError;
use super::load::Ctx;
use super::locate::KeyPath;
use super::mobility::RawMobility;
use crate::mobility::radio::{ping_pong_path, speed_for, Cells};
use crate::wifi::motion::Path;
use crate::wifi::PhyConfig;
use packetsim_kernel::{Dur, Time};
use serde::Deserialize;

/// `radio = ...`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RawRadio {
    /// A point-to-point link per (mobile, base station), handoffs by schedule (spec 5 Q2).
    Link,
    /// One shared 802.11 channel, mobiles moving, handoffs by beacons.
    Wifi,
}

/// The radio of a `[mobility]` table with `radio = "wifi"`.
#[derive(Clone, Debug, PartialEq)]
pub struct MobilityWifi {
    /// Base station spacing, channel, propagation, beacons and the handoff rule.
    pub cells: Cells,
    /// Each mobile's motion: back and forth along the base stations from the first.
    pub paths: Vec<Path>,
}

/// The keys that set the 802.11 radio.
const WIFI_KEYS: [&str; 5] = [
    "spacing",
    "speed",
    "beacon_interval",
    "beacons_on_air",
    "data_rate",
];

/// The point-to-point radio's keys, which the 802.11 radio does not read.
const LINK_KEYS: [&str; 4] = ["radio_rate", "radio_delay", "handoff_times", "first"];

impl Ctx<'_> {
    /// The 802.11 radio of `m` (`None` for the point-to-point radio of spec 5 Q2).
    pub(super) fn mobility_wifi(
        &self,
        m: &RawMobility,
        duration: Dur,
    ) -> Result<Option<MobilityWifi>, ScenarioError> {
        let path = KeyPath::keys(&["mobility"]);
        let given = |k: &str| match k {
            "spacing" => m.spacing.is_some(),
            "speed" => m.speed.is_some(),
            "beacon_interval" => m.beacon_interval.is_some(),
            "beacons_on_air" => m.beacons_on_air.is_some(),
            "data_rate" => m.data_rate.is_some(),
            "radio_rate" => m.radio_rate.is_some(),
            "radio_delay" => m.radio_delay.is_some(),
            "handoff_times" => m.handoff_times.is_some(),
            "first" => m.first.is_some(),
            _ => false,
        };
        if m.radio != Some(RawRadio::Wifi) {
            if let Some(k) = WIFI_KEYS.into_iter().find(|k| given(k)) {
                return Err(self.err(
                    &path.key(k),
                    format!("`{k}` sets the 802.11 radio: it needs `radio = \"wifi\"`"),
                ));
            }
            return Ok(None);
        }
        if let Some(k) = LINK_KEYS.into_iter().find(|k| given(k)) {
            return Err(self.err(
                &path.key(k),
                format!(
                    "`{k}` belongs to the point-to-point radio (radio = \"link\"); on the \
                     802.11 radio the channel times the frames and the mobiles' motion and \
                     the beacons decide the handoffs"
                ),
            ));
        }
        let mut cells = Cells::default();
        if let Some(x) = m.spacing {
            if !(x.is_finite() && x > 0.0) {
                return Err(self.err(
                    &path.key("spacing"),
                    format!("expected a positive distance in metres, e.g. 200; got {x}"),
                ));
            }
            cells.spacing = x;
        }
        if let Some(d) = m.beacon_interval {
            if d == Dur::ZERO {
                return Err(self.err(
                    &path.key("beacon_interval"),
                    "expected a positive duration, e.g. \"100ms\"; got 0",
                ));
            }
            cells.beacons.interval = d;
        }
        cells.beacons_on_air = m.beacons_on_air.unwrap_or(cells.beacons_on_air);
        if let Some(r) = m.data_rate {
            if !PhyConfig::is_dsss_rate(r) {
                return Err(self.err(
                    &path.key("data_rate"),
                    format!(
                        "expected an 802.11b rate: \"1Mbps\", \"2Mbps\", \"5.5Mbps\" or \
                         \"11Mbps\"; got {r}"
                    ),
                ));
            }
            cells.channel.dcf.phy.data_rate = r;
        }
        let period = m.period.unwrap_or(duration);
        let speed = match (m.speed, m.handoffs) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    &path.key("speed"),
                    "give either `speed` (m/s) or `handoffs` (the speed that makes that many \
                     border crossings in `period`), not both",
                ))
            }
            (Some(v), None) => v,
            (None, Some(h)) => speed_for(h, period, cells.spacing),
            (None, None) => 0.0,
        };
        if !(speed.is_finite() && speed > 0.0) || period == Dur::ZERO {
            return Err(self.err(
                &path.key(if m.speed.is_some() {
                    "speed"
                } else {
                    "handoffs"
                }),
                format!(
                    "expected the mobiles to move: a positive `speed` in m/s, or `handoffs` \
                     above 0 in a positive `period`; got a speed of {speed}"
                ),
            ));
        }
        // Mobile j of N starts j/N of a crossing later with `spread` (it waits at the first
        // base station until then), as MM-X5's mobiles out of phase.
        let n = m.mobiles.len();
        let spread = m.spread.unwrap_or(false);
        let paths = (0..n)
            .map(|j| {
                let lag = if spread {
                    cells.spacing / speed * j as f64 / n as f64
                } else {
                    0.0
                };
                ping_pong_path(
                    m.base_stations.len(),
                    cells.spacing,
                    speed,
                    Time::ZERO + Dur::from_secs_f64(lag),
                )
            })
            .collect();
        Ok(Some(MobilityWifi { cells, paths }))
    }
}
