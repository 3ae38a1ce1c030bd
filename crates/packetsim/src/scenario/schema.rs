//! The scenario file as serde reads it: one struct per table, unknown keys rejected, optional
//! keys as `Option` so that validation can tell "absent" from "default". `load.rs` turns
//! these into the validated types of `mod.rs`.

use super::flow::FLOW_KINDS;
use super::kinds::{fields_of, KindRow};
use super::link::LINK_KINDS;
use super::{ErrorDirection, QueueLimit};
use crate::transport::sctp::SctpConfig;
use crate::transport::tcp::TcpConfig;
use crate::units;
use packetsim_kernel::{Dur, Rate};
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScenario {
    /// `profile = "standard" | "ns2" | "linux"` (issue 14 item 8, issue 33; `profile.rs`).
    #[serde(default)]
    pub profile: Option<super::profile::Profile>,
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
    #[serde(default)]
    pub trace: Option<RawTrace>,
    /// `[mobility]` (spec 5; `mobility.rs`).
    #[serde(default)]
    pub mobility: Option<super::mobility::RawMobility>,
    /// `[routing]` (ECMP; `topology.rs`).
    #[serde(default)]
    pub routing: Option<super::topology::RawRouting>,
    /// `[topology]`: a generated fat-tree or leaf-spine (`topology.rs`).
    #[serde(default)]
    pub topology: Option<super::topology::RawTopology>,
    /// `[workloads.NAME]`: generated permutation, incast, all-to-all flows (`topology.rs`).
    #[serde(default)]
    pub workloads: Named<super::topology::RawWorkload>,
}

/// `[trace]`: what `packetsim run` records of the run (pcap files).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTrace {
    #[serde(default)]
    pub pcap: Option<bool>,
    #[serde(default)]
    pub events: Option<bool>,
    #[serde(default)]
    pub links: Option<Vec<String>>,
    #[serde(default)]
    pub flows: Option<Vec<String>>,
    #[serde(default, with = "units::dur::opt")]
    pub from: Option<Dur>,
    #[serde(default, with = "units::dur::opt")]
    pub to: Option<Dur>,
    #[serde(default)]
    pub snaplen: Option<u32>,
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
    #[serde(default)]
    pub tie_order: super::TieOrder,
    #[serde(default)]
    pub flow_monitor: bool,
}

/// `[nodes.NAME]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawNode {
    #[serde(default)]
    pub addresses: Vec<RawAddress>,
    #[serde(default)]
    pub routes: Vec<RawRoute>,
    /// `position = [x, y]`, metres: a station of a `kind = "wifi"` link (`link/wifi.rs`).
    #[serde(default)]
    pub position: Option<[super::link::wifi::Num; 2]>,
    /// `motion = { waypoints, speed, start, repeat }`: a moving station (`link/wifi.rs`).
    #[serde(default)]
    pub motion: Option<super::link::wifi::RawMotion>,
}

/// `{ to = "d1", via = "uplink" }`: a static route of a node.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRoute {
    pub to: String,
    pub via: String,
}

/// `{ name = "S1", link = "path1_in" }`: an extra address of a node, bound to one of its links.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAddress {
    pub name: String,
    #[serde(default)]
    pub link: Option<String>,
}

/// `[links.NAME]`: the keys every link kind shares. `kind` and the kinds' own keys are left
/// to the kind's row (`link/`, see [`KindKeys`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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
    pub loss_position: Option<crate::net::LossPosition>,
    /// Any TOML value, so that `load.rs` can say what a loss list must be.
    #[serde(default)]
    pub loss_packets: Option<toml::Value>,
    #[serde(default)]
    pub outages: Vec<RawOutage>,
    #[serde(default)]
    pub outage_policy: Option<crate::net::OutagePolicy>,
    #[serde(default)]
    pub rate_steps: Vec<RawRateStep>,
    #[serde(default)]
    pub diffserv_edge: Option<ErrorDirection>,
    /// Any TOML value, so that `load.rs` can say what a cost must be.
    #[serde(default)]
    pub cost: Option<toml::Value>,
    /// As `cost`, for the b→a direction.
    #[serde(default)]
    pub cost_ba: Option<toml::Value>,
    #[serde(default)]
    pub queue_report: Option<RawQueueReport>,
    #[serde(default)]
    pub rate_process: Option<RawRateProcess>,
}

/// `rate_process = { good_rate, bad_rate, mean_good, mean_bad, direction }`: a two-state radio
/// channel (spec 2 §6 extension).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRateProcess {
    #[serde(with = "units::rate")]
    pub good_rate: Rate,
    #[serde(with = "units::rate")]
    pub bad_rate: Rate,
    #[serde(with = "units::dur")]
    pub mean_good: Dur,
    #[serde(with = "units::dur")]
    pub mean_bad: Dur,
    #[serde(default)]
    pub direction: Option<ErrorDirection>,
}

/// `queue_report = { direction = "a_to_b", wire_bytes = 0 }`: the direction's transmitter
/// writes the bytes still queued into each data packet it dequeues (spec 2 §2.2).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawQueueReport {
    #[serde(default)]
    pub direction: Option<ErrorDirection>,
    #[serde(default)]
    pub wire_bytes: Option<u32>,
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

/// Generates [`RawQueue`] from the queue registry (`crate::queue::queue_disciplines!`): the
/// keys of the queue table itself plus one sub-table per registered discipline, named after
/// its kind and read as its config type, so serde locates every error inside it.
macro_rules! raw_queue {
    (
        fifo { $( $(#[$fm:meta])* $F:ident $fk:ident: $FC:ident, )* }
        dequeue { $( $(#[$dm:meta])* $D:ident $dk:ident: $DC:ident, )* }
    ) => {
        /// `queue = { kind = "droptail", limit = 50 }`, a registered discipline with its keys
        /// in a sub-table of its name (`queue = { kind = "pie", pie = { target = "15ms" } }`),
        /// or a classful one: `queue = { kind = "wrr", classes = [{ name = "ef", dscp = [46],
        /// weight = 1, queue = {..} }, ..] }`.
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct RawQueue {
            #[serde(default)]
            pub kind: RawQueueKind,
            #[serde(default)]
            pub limit: Option<QueueLimit>,
            /// DropTail only: ns-2.35's `qlim_` rule ([`crate::queue::DropTail::ns2`]).
            #[serde(default)]
            pub ns2_limit: Option<bool>,
            #[serde(default)]
            pub classes: Option<Vec<RawClass>>,
            $( #[serde(default)] pub $fk: Option<crate::queue::$fk::$FC>, )*
            $( #[serde(default)] pub $dk: Option<crate::queue::$dk::$DC>, )*
        }

        /// Every `kind` of queue, in the order messages list them.
        const QUEUE_KINDS: &[&str] =
            &["droptail", $(stringify!($fk),)* $(stringify!($dk),)* "wrr", "priority"];

        impl RawQueue {
            /// The registered disciplines' sub-tables: name and whether it is written.
            pub fn discipline_tables(&self) -> Vec<(&'static str, bool)> {
                vec![
                    $( (stringify!($fk), self.$fk.is_some()), )*
                    $( (stringify!($dk), self.$dk.is_some()), )*
                ]
            }

            /// The config of the registered discipline `name`: its sub-table, or the
            /// defaults when it is not written.
            pub fn take_config(&mut self, name: &str) -> Option<crate::queue::AqmConfig> {
                use crate::queue::AqmConfig;
                $( if name == stringify!($fk) {
                    return Some(AqmConfig::$F(self.$fk.take().unwrap_or_default()));
                } )*
                $( if name == stringify!($dk) {
                    return Some(AqmConfig::$D(self.$dk.take().unwrap_or_default()));
                } )*
                None
            }
        }
    };
}

crate::queue::queue_disciplines!(raw_queue);

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

/// The `kind` of a queue: DropTail (the default), a registered discipline (by its name in
/// `crate::queue::queue_disciplines!`) or a classful scheduler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum RawQueueKind {
    #[default]
    DropTail,
    /// A registered discipline; its keys are in the sub-table of this name.
    Registered(&'static str),
    /// Weighted round robin over classes.
    Wrr,
    /// Strict priority over classes.
    Priority,
}

impl RawQueueKind {
    /// Whether this kind decides at dequeue (a link direction's whole queue).
    pub fn decides_at_dequeue(self) -> bool {
        matches!(self, RawQueueKind::Registered(k) if crate::queue::AqmConfig::DEQUEUE.contains(&k))
    }

    /// Whether this kind serves classes.
    pub fn is_classful(self) -> bool {
        matches!(self, RawQueueKind::Wrr | RawQueueKind::Priority)
    }
}

impl<'de> Deserialize<'de> for RawQueueKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = RawQueueKind;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the queue kind as a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawQueueKind, E> {
                match s {
                    "droptail" => Ok(RawQueueKind::DropTail),
                    "wrr" => Ok(RawQueueKind::Wrr),
                    "priority" => Ok(RawQueueKind::Priority),
                    _ => match QUEUE_KINDS.iter().find(|k| **k == s) {
                        Some(k) => Ok(RawQueueKind::Registered(k)),
                        None => Err(E::unknown_variant(s, QUEUE_KINDS)),
                    },
                }
            }
        }
        d.deserialize_str(V)
    }
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

/// `[flows.NAME]`: the keys every flow kind shares. `kind` and the kinds' own keys (`tcp`,
/// `rate`, ..) are left to the kind's row (`flow/`, see [`KindKeys`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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
    #[serde(default, with = "units::dur::opt")]
    pub start_jitter: Option<Dur>,
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

impl<'de, T: DeserializeOwned + KindKeys> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: DeserializeOwned + KindKeys> Visitor<'de> for V<T> {
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

impl<'de, T: DeserializeOwned + KindKeys> Deserialize<'de> for OnlyTable<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: DeserializeOwned + KindKeys> Visitor<'de> for V<T> {
            type Value = OnlyTable<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<OnlyTable<T>, A::Error> {
                let later = T::kind_keys();
                if later.is_empty() {
                    return T::deserialize(de::value::MapAccessDeserializer::new(map))
                        .map(OnlyTable);
                }
                let own = fields_of::<T>();
                let skip = SkipLater { map, own, later };
                T::deserialize(de::value::MapAccessDeserializer::new(skip)).map(OnlyTable)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// Keys of a named table that step 3 leaves to a kind registry (step 4): `kind` and every
/// kind's own keys. Step 3 skips them and rejects any other key that the struct does not
/// read, so that a misspelt key is reported as unknown before a required one as missing.
pub(crate) trait KindKeys {
    /// `kind` and the kinds' keys, in registry order; empty: the table has no kinds.
    fn kind_keys() -> Vec<&'static str> {
        Vec::new()
    }
}

impl KindKeys for RawNode {}

impl KindKeys for RawLink {
    fn kind_keys() -> Vec<&'static str> {
        all_kind_keys(LINK_KINDS)
    }
}

impl KindKeys for RawFlow {
    fn kind_keys() -> Vec<&'static str> {
        all_kind_keys(FLOW_KINDS)
    }
}

fn all_kind_keys<R: KindRow>(rows: &[R]) -> Vec<&'static str> {
    let mut keys = vec!["kind"];
    for k in rows.iter().flat_map(|r| r.keys().iter().copied()) {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

/// A table's entries with the `later` keys skipped; a key neither `own` nor `later` is an
/// error raised while reading the key, so that it carries the key's span.
struct SkipLater<A> {
    map: A,
    own: &'static [&'static str],
    later: Vec<&'static str>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for SkipLater<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let mut seed = Some(seed);
        loop {
            let key = KeySeed {
                seed: &mut seed,
                own: self.own,
                later: &self.later,
            };
            match self.map.next_key_seed(key)? {
                None => return Ok(None),
                Some(Some(k)) => return Ok(Some(k)),
                Some(None) => {
                    self.map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// One key of [`SkipLater`]: `Some` for an own key (handed to the struct), `None` for a
/// later one, an "unknown field" error otherwise.
struct KeySeed<'a, K> {
    seed: &'a mut Option<K>,
    own: &'static [&'static str],
    later: &'a [&'static str],
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, K> {
    type Value = Option<K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        use serde::de::IntoDeserializer;
        let key = String::deserialize(d)?;
        if self.own.contains(&key.as_str()) {
            let seed = self
                .seed
                .take()
                .expect("the struct asks for one key at a time");
            seed.deserialize(key.into_deserializer()).map(Some)
        } else if self.later.contains(&key.as_str()) {
            Ok(None)
        } else {
            let expected = self
                .own
                .iter()
                .chain(self.later)
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            Err(de::Error::custom(format!(
                "unknown field `{key}`, expected one of {expected}"
            )))
        }
    }
}
