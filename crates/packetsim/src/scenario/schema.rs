//! The scenario file as serde reads it: one struct per table, unknown keys rejected, optional
//! keys as `Option` so that validation can tell "absent" from "default". `load.rs` turns
//! these into the validated types of `mod.rs`.

use super::{ErrorDirection, QueueLimit};
use crate::transport::sctp::SctpConfig;
use crate::transport::tcp::TcpConfig;
use crate::units;
use packetsim_kernel::{Dur, Rate};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScenario {
    pub simulation: RawSimulation,
    #[serde(default)]
    pub tcp: Option<TcpConfig>,
    #[serde(default)]
    pub sctp: Option<SctpConfig>,
    #[serde(default)]
    pub nodes: Named<RawNode>,
    #[serde(default)]
    pub links: Named<RawLink>,
    #[serde(default)]
    pub flows: Named<RawFlow>,
}

/// `[simulation]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSimulation {
    #[serde(with = "units::dur")]
    pub duration: Dur,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default, with = "units::dur::opt")]
    pub sample_interval: Option<Dur>,
}

/// `[nodes.NAME]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawNode {
    #[serde(default)]
    pub addresses: Vec<RawAddress>,
}

/// `{ name = "S1", link = "path1_in" }`: an extra address of a node, bound to one of its links.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAddress {
    pub name: String,
    #[serde(default)]
    pub link: Option<String>,
}

/// `[links.NAME]`: the keys every link kind shares. `kind` and the kind's own keys are read
/// by the kind's row (`link/`): serde skips them here, and the loader rejects a key that
/// neither this struct nor a kind reads (so no `deny_unknown_fields`).
#[derive(Debug, Deserialize)]
pub(crate) struct RawLink {
    pub a: String,
    pub b: String,
    #[serde(with = "units::rate")]
    pub rate: Rate,
    #[serde(with = "units::dur")]
    pub delay: Dur,
    #[serde(default)]
    pub queue: Option<RawQueue>,
    #[serde(default)]
    pub queue_ba: Option<RawQueue>,
    #[serde(default)]
    pub loss: Option<f64>,
    #[serde(default)]
    pub ber: Option<f64>,
    #[serde(default)]
    pub errors: Option<ErrorDirection>,
    #[serde(default)]
    pub outages: Vec<RawOutage>,
    #[serde(default)]
    pub outage_policy: Option<crate::net::OutagePolicy>,
    #[serde(default)]
    pub rate_steps: Vec<RawRateStep>,
    #[serde(default)]
    pub diffserv_edge: Option<ErrorDirection>,
}

/// `{ at = "20s", rate = "1.6Mbps", direction = "both" }`: the link's rate from `at` on.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRateStep {
    #[serde(with = "units::dur")]
    pub at: Dur,
    #[serde(with = "units::rate")]
    pub rate: Rate,
    #[serde(default)]
    pub direction: Option<ErrorDirection>,
}

/// `queue = { kind = "droptail", limit = 50 }`, or a classful one:
/// `queue = { kind = "wrr", classes = [{ name = "ef", dscp = [46], weight = 1, queue = {..} }, ..] }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawQueue {
    #[serde(default)]
    pub kind: RawQueueKind,
    #[serde(default)]
    pub limit: Option<QueueLimit>,
    #[serde(default)]
    pub classes: Option<Vec<RawClass>>,
    #[serde(default)]
    pub red: Option<crate::queue::RedConfig>,
    #[serde(default)]
    pub rio: Option<crate::queue::RioConfig>,
}

/// One class of a classful queue.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawClass {
    pub name: String,
    #[serde(default)]
    pub dscp: Vec<u8>,
    #[serde(default)]
    pub weight: Option<i64>,
    #[serde(default)]
    pub queue: Option<Box<RawQueue>>,
}

/// Queue disciplines a link can name.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RawQueueKind {
    #[default]
    DropTail,
    /// RED; parameters in `red = { .. }`.
    Red,
    /// RIO; parameters in `rio = { .. }`.
    Rio,
    /// Weighted round robin over classes.
    Wrr,
    /// Strict priority over classes.
    Priority,
}

/// `{ from = "10s", to = "12s" }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawOutage {
    #[serde(with = "units::dur")]
    pub from: Dur,
    #[serde(with = "units::dur")]
    pub to: Dur,
}

/// `[flows.NAME]`: the keys every flow kind shares. `kind` and the kind's own keys (`tcp`,
/// `rate`, ..) are read by the kind's row (`flow/`): serde skips them here, and the loader
/// rejects a key that neither this struct nor a kind reads.
#[derive(Debug, Deserialize)]
pub(crate) struct RawFlow {
    pub from: String,
    pub to: String,
    #[serde(default, with = "units::dur::opt")]
    pub start: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub stop: Option<Dur>,
    #[serde(default)]
    pub count: Option<u32>,
    #[serde(default, with = "units::dur::opt")]
    pub stagger: Option<Dur>,
    #[serde(default)]
    pub dscp: Option<i64>,
    #[serde(default)]
    pub diffserv: Option<crate::queue::FlowClassConfig>,
}

/// A table of named sub-tables, kept in file order (ids are assigned in this order).
#[derive(Debug)]
pub(crate) struct Named<T>(pub Vec<(String, T)>);

impl<T> Default for Named<T> {
    fn default() -> Self {
        Named(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Named<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table of named tables")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Named<T>, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, OnlyTable<T>>()? {
                    out.push((k, v.0));
                }
                Ok(Named(out))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// A `T` that must be written as a table (serde would also accept an array for a struct).
struct OnlyTable<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OnlyTable<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = OnlyTable<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<OnlyTable<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(OnlyTable)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}
