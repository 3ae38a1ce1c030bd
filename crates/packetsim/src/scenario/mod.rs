//! Scenarios: the TOML description of a network and its traffic, read into typed, validated
//! structs. The format is documented, with a complete example, in `docs/scenario-format.md`.
//!
//! Loading runs in four steps, each of which reports errors naming the file, the line (or the
//! `--set` override) and the key path, and saying what was expected ([`ScenarioError`]):
//!
//! 1. parse the text as TOML (syntax errors);
//! 2. apply `--set path=value` overrides ([`Override`]) to the document;
//! 3. deserialize into the serde schema (`schema.rs`: unknown keys, missing keys, types,
//!    units, enumerated values); for links and flows only their common keys, with `kind`
//!    and every kind's keys skipped for step 4 (any other key is unknown here already);
//! 4. validate and normalise (`load.rs`: ranges, names, references between tables, tcp merge,
//!    `count` expansion). A link's or flow's `kind` picks a row of its registry
//!    (`link::LINK_KINDS`, `flow::FLOW_KINDS`); `kinds.rs` rejects keys of another kind,
//!    and the row deserializes and validates its own keys (cut
//!    from the effective document with their spans, so errors keep their lines) into its
//!    [`LinkKind`] or [`FlowKind`] variant.
//!
//! Config is owned by each kind (STYLE habit 6): a kind is one file in `link/` or `flow/`
//! declaring its keys as a serde struct, loading them, and adding itself to the network or
//! the world at build (`build.rs` calls the row; it has no arm per kind). A new kind adds that
//! file, its variant and a registry row (`docs/extending.md`, "Scenario keys for a new kind").
//!
//! Everything keeps file order ([`Scenario::nodes`], [`Scenario::links`], [`Scenario::flows`]),
//! because the builder assigns ids in this order and ids feed the per-component RNG streams:
//! the same file gives the same run.
//!
//! Loading uses `units`, `queue` configs and the transports' configs ([`TcpConfig`],
//! [`SctpConfig`]) only; building a `World` from a [`Scenario`] (`build.rs`, the kinds' `add`)
//! is the builder's job.

mod build;
mod builder;
pub mod cost;
mod error;
pub mod files;
mod flow;
mod kinds;
mod link;
mod load;
mod locate;
mod mobility;
mod mobility_wifi;
mod overrides;
mod profile;
mod schema;
mod suggest;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_mobility;
#[cfg(test)]
mod tests_mobility_wifi;
#[cfg(test)]
mod tests_profile;
#[cfg(test)]
mod tests_topology;
#[cfg(test)]
mod tests_wifi;
#[cfg(test)]
mod tests_workload;
pub(crate) mod topology;

pub use crate::queue::QueueLimit;
pub use build::{
    build, build_owned, check, check_budget, check_flows, memory_estimate, run, run_traced,
    run_traced_with_progress, series_samples, trace_config, BuildError, Outcome, FLOW_BYTES,
    PROGRESS_STEPS, SERIES_SAMPLE_BYTES,
};
pub use builder::{FlowKeys, LinkKeys, MobilityKeys, ScenarioBuilder, Sends, TcpKeys};
pub use cost::Limits;
pub use error::{KeyLines, Location, ScenarioError};
pub use link::wifi::{WifiRadio, WifiSpec};
pub use load::{
    load_file, load_file_with, load_str, load_str_with, DEFAULT_CBR_PACKET_SIZE,
    DEFAULT_QUEUE_PACKETS, MAX_FLOW_COUNT, MAX_QUEUE_REPORT_BYTES, MAX_UDP_PAYLOAD,
};
pub use mobility::MobilitySpec;
pub use mobility_wifi::MobilityWifi;
pub use overrides::{Override, OverrideParseError};
#[cfg(test)]
pub(crate) use profile::{rows_table as profile_rows_table, TcpProfile};
pub use profile::{Profile, ProfileOption, Table as ProfileTable, NS2_OPTIONS};

pub use crate::net::OutagePolicy;
use crate::transport::sctp::SctpConfig;
use crate::transport::tcp::TcpConfig;
use packetsim_kernel::{Dur, Rate, Time};
use serde::Deserialize;
use std::collections::HashMap;

/// A loaded, validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The file name used in messages (as given to [`load_str`] or [`load_file`]).
    pub origin: String,
    /// The effective TOML text, after overrides: record it with the results of a run.
    pub text: String,
    /// `[simulation]`: run length, seed, sampling.
    pub simulation: SimulationSpec,
    /// Node names, in file order.
    pub nodes: Vec<String>,
    /// Extra (named) node addresses, in file order; every node also has an unnamed primary
    /// address, which TCP and CBR flows use.
    pub addresses: Vec<AddressSpec>,
    /// Links, in file order.
    pub links: Vec<LinkSpec>,
    /// Static routes (`[nodes.NAME] routes = [..]`), in file order.
    pub routes: Vec<RouteSpec>,
    /// The `[flows.NAME]` tables, in file order. A table stands for its `count` copies, which
    /// are never all held in memory ([`Scenario::flows`] makes them one at a time): `check`
    /// of a table with a million copies stays cheap (issue 16).
    pub flow_tables: Vec<FlowTable>,
    /// Where nodes, links, flows and routes are written, for errors found when building.
    pub lines: KeyLines,
    /// `[trace]`: what a run records of itself (pcap), when asked.
    pub trace: TraceSpec,
    /// `[mobility]`: mobiles, base stations, protocol and handoffs, when present.
    pub mobility: Option<MobilitySpec>,
    /// `[routing] ecmp`: how nodes pick among equal-cost next hops (`Off` unless asked for,
    /// or `Flow` with a `[topology]`).
    pub ecmp: crate::net::EcmpMode,
    /// `[workloads.NAME]`: each generated workload's flow tables (a range of `flow_tables`),
    /// recorded as a workload for flow completion times.
    pub workloads: Vec<GeneratedWorkload>,
}

/// The flow tables a `[workloads.NAME]` table made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedWorkload {
    /// The workload's name.
    pub name: String,
    /// Its tables: indices into [`Scenario::flow_tables`].
    pub tables: std::ops::Range<usize>,
    /// The flows' TCP MSS, bytes (for the ideal completion time).
    pub mss: u32,
}

/// `[trace]`: which link directions, flows and time window a run's pcap files and event
/// trace cover, and whether the scenario asks for them itself (`pcap = true`: into
/// `OUT/pcap`; `events = true`: into `OUT/trace`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceSpec {
    /// Write pcap files even without `--pcap` (into the run's output folder, `pcap/`).
    pub pcap: bool,
    /// Write the event trace even without `--trace` (into the run's output folder, `trace/`).
    pub events: bool,
    /// Link directions covered: a link's name with its direction (`links = ["l"]` is both,
    /// `"l:a_to_b"` one); empty: every direction of every link.
    pub links: Vec<(String, ErrorDirection)>,
    /// Flows covered by name; empty: every flow (and packets of no flow).
    pub flows: Vec<String>,
    /// Start of the time window (default 0).
    pub from: Time,
    /// End of the time window, exclusive (default: the end of the run).
    pub to: Option<Time>,
    /// Bytes kept of each packet in pcap files (default 65535, at least 20).
    pub snaplen: u32,
}

impl Default for TraceSpec {
    fn default() -> TraceSpec {
        TraceSpec {
            pcap: false,
            events: false,
            links: Vec::new(),
            flows: Vec::new(),
            from: Time::ZERO,
            to: None,
            snaplen: crate::trace::DEFAULT_SNAPLEN,
        }
    }
}

/// `[simulation]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimulationSpec {
    /// The run stops at this simulated time (positive).
    pub duration: Dur,
    /// Run seed (default 1); the CLI's `--seed` overrides it.
    pub seed: u64,
    /// When present, time series (cwnd/ssthresh per TCP flow, length per queue) are sampled
    /// at this interval (positive).
    pub sample_interval: Option<Dur>,
    /// The order of events due at the same instant (`tie_order`).
    pub tie_order: TieOrder,
    /// Per-flow delay, jitter, loss and RTT and per-queue sojourn statistics
    /// (`flow_monitor`, default off: [`crate::trace::monitor`]).
    pub flow_monitor: bool,
    /// Exact times (the default) or the slot grid of the scenario's atm links (`time_base`).
    pub time_base: TimeBase,
}

/// How the world meets time: `[simulation] time_base`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeBase {
    /// Exact times (the default): only cells move on a slot grid, on atm links.
    #[default]
    Continuous,
    /// Spec 1 §2.1's slot grid (YATS), the slot being the scenario's atm links' (all alike):
    /// endpoint timers of `max(1, floor(t / slot))` slots, processing ends on slot
    /// boundaries, same-slot arrivals at a switch in seeded random order (`World::set_slotted`).
    Slotted,
}

impl TimeBase {
    /// The slot of a slotted world over `links`: the atm links' slot, `None` when there is no
    /// atm link. `Err((link, other))` names an atm link whose slot differs from the first's.
    pub fn atm_slot(links: &[LinkSpec]) -> Result<Option<Dur>, (String, Dur, Dur)> {
        let mut slot: Option<Dur> = None;
        for l in links {
            if let LinkKind::Atm(a) = &l.kind {
                match slot {
                    None => slot = Some(a.port.slot),
                    Some(s) if s != a.port.slot => {
                        return Err((l.name.clone(), a.port.slot, s));
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(slot)
    }
}

/// The order in which events due at the same nanosecond run: `[simulation] tie_order`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TieOrder {
    /// In the order they were scheduled (the default; NeXosim, ns-3).
    #[default]
    Fifo,
    /// Those pending when the instant is reached in an order drawn from the run's stream
    /// `simulation.tie_order` (`EventQueue::shuffle_ties`): as in a simulator with
    /// floating-point time (ns-2.35), where events simultaneous in exact arithmetic come out a
    /// rounding error apart in no decided order.
    Random,
}

/// A named address of a node (`[nodes.NAME] addresses = [{ name, link }]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddressSpec {
    /// The address's name, unique in the scenario.
    pub name: String,
    /// The node that owns it.
    pub node: String,
    /// The link (interface) it is bound to: traffic to it arrives over this link.
    pub link: Option<String>,
}

/// A static route: at `node`, packets to `to` leave over link `via`
/// (`[nodes.NAME] routes = [{ to, via }]`). It replaces the least-cost route at `node` only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteSpec {
    /// The node whose table it sets.
    pub node: String,
    /// The destination: another node (its primary address and its named addresses bound to
    /// no link), or a named address of another node.
    pub to: String,
    /// A link attached to `node`.
    pub via: String,
    /// Its position in the node's `routes` list (for messages: `nodes.NODE.routes[index]`).
    pub index: usize,
}

/// One full-duplex link between two nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// The link's name (the key of its `[links.NAME]` table).
    pub name: String,
    /// The link's kind (`kind`) and its kind-specific settings.
    pub kind: LinkKind,
    /// One end (node name).
    pub a: String,
    /// The other end (node name, different from `a`).
    pub b: String,
    /// Transmission rate of each direction, bit/s.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Egress queue discipline of each direction.
    pub queue: QueueSpec,
    /// The b→a direction's queue when it differs (`queue_ba`); `None`: the same as `queue`.
    pub queue_ba: Option<QueueSpec>,
    /// Uniform per-packet loss probability, in [0, 1].
    pub loss: f64,
    /// Per-bit error rate, in [0, 1).
    pub ber: f64,
    /// Which directions `loss` and `ber` apply to.
    pub errors: ErrorDirection,
    /// Where `loss`, `ber` and `loss_packets` act: on the wire (default) or before the queue
    /// (ns-2).
    pub loss_position: crate::net::LossPosition,
    /// Indices (from 0, strictly increasing) of the packets each direction in `errors` loses
    /// for certain, on top of `loss` and `ber` (ns-2.35 `ErrorModel/List`); empty: none.
    pub loss_packets: Vec<u64>,
    /// Intervals `[from, to)` during which the link is down in both directions, file order.
    pub outages: Vec<(Time, Time)>,
    /// What the transmitters do while the link is down (`blind` by default).
    pub outage_policy: OutagePolicy,
    /// Rate changes at given times, in time order.
    pub rate_steps: Vec<RateStep>,
    /// Directions whose egress classifies and marks packets as a DiffServ edge.
    pub diffserv_edge: Option<ErrorDirection>,
    /// Directions whose transmitter reports its queue into each data packet it dequeues.
    pub queue_report: Option<QueueReportSpec>,
    /// A two-state (good/bad) random rate process driving the link's rate, and its directions.
    pub rate_process: Option<(crate::wireless::TwoStateRateConfig, ErrorDirection)>,
    /// Routing cost of the a→b direction, positive (default 1: routes are then fewest-hop).
    pub cost: u32,
    /// Routing cost of the b→a direction (`cost_ba`; default: `cost`).
    pub cost_ba: u32,
}

/// A link's kind (`kind = "..."`, registry in `scenario/link/`) with its own settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LinkKind {
    /// `point_to_point` (the default): both directions are plain transmitters with the
    /// common link keys.
    #[default]
    PointToPoint,
    /// `radio` (spec 2): a base station's radio link (`scenario/link/radio.rs`).
    Radio(RadioSpec),
    /// `atm` (spec 1): a slotted cell link (`scenario/link/atm.rs`).
    Atm(AtmSpec),
    /// `wifi` (issue 34): a shared 802.11b channel (`scenario/link/wifi.rs`).
    Wifi(WifiSpec),
}

/// A cell link's own settings (`kind = "atm"`): both directions alike, but for the b→a
/// direction's output.
#[derive(Clone, Debug, PartialEq)]
pub struct AtmSpec {
    /// Slot (one cell at the link rate), switch buffer and discard policy, arrival order (the
    /// a→b direction's output: a switch).
    pub port: crate::atm::port::CellLinkConfig,
    /// The b→a direction's output (`reverse_path`).
    pub reverse: crate::atm::port::Output,
}

/// A radio link's own settings (`kind = "radio"`).
#[derive(Clone, Debug, PartialEq)]
pub struct RadioSpec {
    /// The base station's direction (`AToB` or `BToA`).
    pub downlink: ErrorDirection,
    /// The downlink's queue report and its bytes on the wire; None: no report.
    pub report: Option<u32>,
    /// A rate cycle on both directions.
    pub rate_cycle: Option<RateCycle>,
    /// Per-packet loss probability on both directions.
    pub loss: f64,
    /// Several mobiles sharing the downlink's transmitter, one queue each.
    pub shared: Option<SharedChannel>,
}

/// Several mobiles sharing one radio channel (`shared_channel`, spec 2 §4 extension): the
/// downlink keeps one queue per mobile behind its one transmitter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedChannel {
    /// The mobiles' node names, in scheduling order.
    pub mobiles: Vec<String>,
    /// Round robin (`Wrr`, with `weights`) or strict priority in list order.
    pub scheduler: SchedulerSpec,
    /// Packets per round for each mobile (all 1 by default; 1 under priority).
    pub weights: Vec<u32>,
}

/// Rates taken in turn, each for `every`, from time 0 (spec 2 BS-E5).
#[derive(Clone, Debug, PartialEq)]
pub struct RateCycle {
    /// The rates, in order; the cycle wraps around.
    pub rates: Vec<Rate>,
    /// How long each rate lasts.
    pub every: Dur,
}

impl LinkSpec {
    /// Folds a kind's settings into the common ones at load: a radio link's report becomes
    /// its downlink's `queue_report`, its `radio_loss` the loss of both directions.
    pub(crate) fn fold_kind(&mut self) {
        if let LinkKind::Radio(r) = &self.kind {
            if let Some(wire_bytes) = r.report {
                self.queue_report = Some(QueueReportSpec {
                    direction: r.downlink,
                    wire_bytes,
                });
            }
            if r.loss > 0.0 {
                self.loss = r.loss;
                self.errors = ErrorDirection::Both;
            }
        }
    }

    /// The link's scheduled rate changes over a run ending at `end`: its `rate_steps`, or a
    /// radio link's rate cycle.
    pub fn scheduled_rates(&self, end: Time) -> Vec<RateStep> {
        match &self.kind {
            LinkKind::Radio(RadioSpec {
                rate_cycle: Some(c),
                ..
            }) => crate::wireless::cycle_steps(&c.rates, c.every, end)
                .into_iter()
                .map(|(at, rate)| RateStep {
                    at,
                    rate,
                    direction: ErrorDirection::Both,
                })
                .collect(),
            _ => self.rate_steps.clone(),
        }
    }
}

/// A link's egress queue discipline (one instance per direction).
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    /// First in, first out; arrivals to a full queue are dropped.
    DropTail {
        /// Capacity (default 100 packets).
        limit: QueueLimit,
        /// Count `limit` as ns-2.35's `qlim_` (`ns2_limit = true`): an arrival is dropped when
        /// it would make the waiting packets reach the limit ([`crate::queue::DropTail::ns2`]).
        ns2_limit: bool,
    },
    /// A discipline of the queue registry (`crate::queue::queue_disciplines!`): RED, RIO
    /// on one FIFO; CoDel, FQ-CoDel, PIE, head-drop deciding at dequeue.
    Aqm(crate::queue::AqmConfig),
    /// Class queues under a scheduler.
    Classful {
        /// Weighted round robin (weights in packets) or strict priority (class order).
        scheduler: SchedulerSpec,
        /// The classes, in scheduling order.
        classes: Vec<ClassSpec>,
    },
}

/// How a classful queue picks the next class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerSpec {
    /// Weighted round robin.
    Wrr,
    /// Strict priority, first class first.
    Priority,
}

/// One class of a classful queue.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassSpec {
    /// Its name in reports.
    pub name: String,
    /// DSCPs it takes; empty = every code point no other class takes.
    pub dscps: Vec<u8>,
    /// WRR weight in packets per round (1 under priority).
    pub weight: u32,
    /// Its own queue (not classful).
    pub queue: QueueSpec,
}

/// A base station's queue report on a link (`queue_report = { direction, wire_bytes }`,
/// spec 2 §2.2): the transmitter writes the bytes queued behind each data packet at dequeue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueReportSpec {
    /// Which directions report (`a_to_b` by default: the base station is `a`).
    pub direction: ErrorDirection,
    /// Bytes the report adds on the wire (0 by default: a side field; spec 2 option: 4).
    pub wire_bytes: u32,
}

/// A scheduled change of a link's rate (`rate_steps = [{ at, rate, direction }]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateStep {
    /// When, from the start of the run.
    pub at: Time,
    /// The new rate (positive).
    pub rate: Rate,
    /// Which directions change (both by default).
    pub direction: ErrorDirection,
}

/// Which directions of a link an error model applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum ErrorDirection {
    /// From `a` to `b` only (default).
    #[default]
    #[serde(rename = "a_to_b")]
    AToB,
    /// From `b` to `a` only.
    #[serde(rename = "b_to_a")]
    BToA,
    /// Both directions.
    #[serde(rename = "both")]
    Both,
}

/// A `[flows.NAME]` table: `count` copies of one flow, copy `i` starting `i * stagger` after
/// the first (before jitter) and named `NAME_i` (plain `NAME` when `count` is 1).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowTable {
    /// The table's key (`NAME`).
    pub table: String,
    /// Copies made (1 to [`MAX_FLOW_COUNT`]).
    pub count: u32,
    /// Start of copy `i` minus start of copy `i - 1`.
    pub stagger: Dur,
    /// Copy 0; the other copies differ from it only in name and start (and, with `ends`, in
    /// their endpoints).
    pub first: FlowSpec,
    /// A generated table's endpoints copy by copy (`[workloads.NAME]`); `None`: every copy
    /// runs between `first.from` and `first.to`.
    pub ends: Option<std::sync::Arc<FlowEnds>>,
}

/// The endpoints of a generated table's copies: copy `i` runs from `hosts[pairs[i].0]` to
/// `hosts[pairs[i].1]`. Eight bytes a flow, where a table per flow took about 600 (issue 36).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowEnds {
    /// The hosts taking part, each named once.
    pub hosts: Vec<String>,
    /// (sender, receiver) of each copy, indices into `hosts`.
    pub pairs: Vec<(u32, u32)>,
}

impl FlowTable {
    /// Copy `i` (`i < count`).
    pub fn copy(&self, i: u32) -> FlowSpec {
        debug_assert!(i < self.count);
        let mut f = FlowSpec {
            name: self.copy_name(i),
            start: self.first.start + self.stagger * i as u64,
            ..self.first.clone()
        };
        if let Some(e) = &self.ends {
            let (a, b) = e.pairs[i as usize];
            f.from.clone_from(&e.hosts[a as usize]);
            f.to.clone_from(&e.hosts[b as usize]);
        }
        f
    }

    /// Whether the copies are named `NAME_i`: a table of several copies, or a generated one
    /// (whose flows are `NAME_0, NAME_1, ..` however many there are).
    pub fn numbered(&self) -> bool {
        self.count > 1 || self.ends.is_some()
    }

    /// The name of copy `i`: `NAME_i`, or `NAME` when the table makes one copy.
    pub fn copy_name(&self, i: u32) -> String {
        if !self.numbered() {
            self.table.clone()
        } else {
            format!("{}_{i}", self.table)
        }
    }

    /// The copies, made one at a time.
    pub fn copies(&self) -> impl Iterator<Item = FlowSpec> + '_ {
        (0..self.count).map(|i| self.copy(i))
    }

    /// Which copy `name` is, if it names one of this table's.
    pub fn copy_index(&self, name: &str) -> Option<u32> {
        if !self.numbered() {
            return (name == self.table).then_some(0);
        }
        let digits = name.strip_prefix(self.table.as_str())?.strip_prefix('_')?;
        // Copy names are written without leading zeros.
        let canonical = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'))
            && digits.len() <= 10;
        let i: u64 = if canonical {
            digits.parse().ok()?
        } else {
            return None;
        };
        (i < self.count as u64).then_some(i as u32)
    }
}

/// The flow tables read so far, indexed by name, so that a new table's name clash is found
/// without comparing it with every earlier table (that scan was quadratic: most of the 174 s
/// of loading a 100,000-flow dumbbell). A one-copy table `X` clashes with a one-copy table
/// `X` or with a table `T` of count > i where `X = T_i`; copy names have no `_` after `T`, so
/// `T` is `X` up to its last `_`.
#[derive(Default)]
pub(crate) struct FlowNames {
    /// Table name -> its first index in the table list.
    by_table: HashMap<String, usize>,
    /// `T` -> the one-copy tables named `T_...`, in list order.
    one_copy_by_stem: HashMap<String, Vec<usize>>,
}

impl FlowNames {
    /// The first table of `tables` (the tables added so far, in order) whose flow names
    /// share one with `t`: the shared name and the table's index. The same answer as
    /// [`FlowNames::clash_by_scan`].
    pub fn clash(&self, tables: &[FlowTable], t: &FlowTable) -> Option<(String, usize)> {
        if !t.numbered() {
            let same = self
                .by_table
                .get(&t.table)
                .copied()
                .filter(|&i| !tables[i].numbered());
            let copy = t.table.rsplit_once('_').and_then(|(stem, _)| {
                let i = *self.by_table.get(stem)?;
                let o = &tables[i];
                o.numbered()
                    .then(|| o.copy_index(&t.table).map(|k| (i, k)))?
            });
            match (same, copy) {
                (Some(i), Some((j, k))) if j < i => Some((tables[j].copy_name(k), j)),
                (Some(i), _) => Some((tables[i].table.clone(), i)),
                (None, Some((j, k))) => Some((tables[j].copy_name(k), j)),
                (None, None) => None,
            }
        } else {
            // Two numbered tables share names only when they share the table name (a
            // generated workload and a `[flows.NAME]` table of the same name).
            let same = self
                .by_table
                .get(&t.table)
                .copied()
                .filter(|&i| tables[i].numbered())
                .map(|i| (tables[i].copy_name(0), i));
            let single = self.one_copy_by_stem.get(&t.table).and_then(|v| {
                v.iter()
                    .find(|&&i| t.copy_index(&tables[i].table).is_some())
                    .map(|&i| (tables[i].table.clone(), i))
            });
            match (same, single) {
                (Some(a), Some(b)) => Some(if a.1 < b.1 { a } else { b }),
                (a, b) => a.or(b),
            }
        }
    }

    /// [`FlowNames::clash`] by comparing `t` with every table in turn (the reference).
    #[cfg(test)]
    pub fn clash_by_scan(tables: &[FlowTable], t: &FlowTable) -> Option<(String, usize)> {
        tables.iter().enumerate().find_map(|(i, o)| {
            if !t.numbered() {
                o.copy_index(&t.table).map(|k| (o.copy_name(k), i))
            } else if o.numbered() {
                (o.table == t.table).then(|| (o.copy_name(0), i))
            } else {
                t.copy_index(&o.table)
                    .is_some()
                    .then(|| (o.table.clone(), i))
            }
        })
    }

    /// Records `tables[i]` (added after every earlier one).
    pub fn add(&mut self, tables: &[FlowTable], i: usize) {
        let t = &tables[i];
        self.by_table.entry(t.table.clone()).or_insert(i);
        if !t.numbered() {
            if let Some((stem, _)) = t.table.rsplit_once('_') {
                self.one_copy_by_stem
                    .entry(stem.to_owned())
                    .or_default()
                    .push(i);
            }
        }
    }
}

impl Scenario {
    /// Every flow, copies of one table adjacent, in file order; made one at a time.
    pub fn flows(&self) -> impl Iterator<Item = FlowSpec> + '_ {
        self.flow_tables.iter().flat_map(FlowTable::copies)
    }

    /// How many flows the scenario makes (the sum of the tables' `count`).
    pub fn flow_count(&self) -> u64 {
        self.flow_tables.iter().map(|t| t.count as u64).sum()
    }

    /// The flow named `name`: its index in [`Scenario::flows`] order, and its table.
    pub fn find_flow(&self, name: &str) -> Option<(u64, &FlowTable)> {
        let mut base = 0u64;
        for t in &self.flow_tables {
            if let Some(i) = t.copy_index(name) {
                return Some((base + i as u64, t));
            }
            base += t.count as u64;
        }
        None
    }
}

/// One flow (a copy of a [`FlowTable`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// The flow's name: the table key, or `NAME_i` for copy `i` when `count > 1`.
    pub name: String,
    /// Sending node.
    pub from: String,
    /// Receiving node (different from `from`).
    pub to: String,
    /// When the source starts (for copy `i`: `start + i * stagger`), before jitter.
    pub start: Time,
    /// `start_jitter`: the built flow starts at `start` plus a delay drawn uniformly from
    /// `[0, start_jitter]` (whole nanoseconds) with the run seed, from a stream of the flow's
    /// own; zero (the default) draws nothing.
    pub start_jitter: Dur,
    /// When the source stops offering data, if ever (later than `start`).
    pub stop: Option<Time>,
    /// DiffServ code point of the sender's packets (0 = best effort; ACKs stay 0).
    pub dscp: u8,
    /// DiffServ class and meter/marker applied at an edge egress (`diffserv_edge` links).
    pub diffserv: Option<crate::queue::FlowClassConfig>,
    /// Transport and application.
    pub kind: FlowKind,
}

/// A flow's transport and application (`kind = "..."`, registry in `scenario/flow/`).
#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// A TCP connection carrying `app`.
    Tcp {
        /// What the sending application offers.
        app: App,
        /// The connection's configuration: `[tcp]` merged key by key with the flow's `tcp`.
        tcp: TcpConfig,
    },
    /// An SCTP association carrying `app` from the first to the second node.
    Sctp {
        /// What the sending application offers.
        app: App,
        /// The association's configuration: `[sctp]` merged key by key with the flow's `sctp`.
        sctp: SctpConfig,
        /// The sender's addresses by name (`from_addresses`); empty: the node's primary one.
        from_addresses: Vec<String>,
        /// The receiver's addresses by name (`to_addresses`); empty: the node's primary one.
        to_addresses: Vec<String>,
        /// Index into `to_addresses` of the primary destination (`primary`; default 0).
        primary: usize,
    },
    /// A UDP constant-bit-rate source.
    Cbr {
        /// Sending rate, bit/s of whole IP packets.
        rate: Rate,
        /// UDP payload per packet, bytes.
        packet_size: u32,
    },
}

/// The application on a TCP flow.
#[derive(Clone, Debug, PartialEq)]
pub enum App {
    /// An unlimited backlog of data (FTP bulk transfer).
    Bulk,
    /// A transfer of a fixed size; the flow completes when it is delivered.
    File {
        /// Size of the file, bytes.
        bytes: u64,
    },
    /// Study 1's CBRFrame source (spec 1 §2.4, `app = "frames"`): `block` bytes every
    /// `interval` into the TCP send buffer (`send_buffer` bytes), paused while it is full and
    /// resumed once it has drained to `send_buffer − resume_below`.
    Frames {
        /// Bytes per block.
        block: u64,
        /// Time between blocks.
        interval: packetsim_kernel::Dur,
        /// The source resumes at the send buffer minus this many bytes.
        resume_below: u64,
        /// YATS's start-stop protocol (`flows.X.whole_blocks`, `app::Frames::whole_blocks`):
        /// a block is taken whole while the buffer is not full.
        whole_blocks: bool,
    },
    /// A greedy source switched on and off (`app = "onoff"`, `app::OnOff`).
    OnOff {
        /// Mean (or fixed) on period.
        on: packetsim_kernel::Dur,
        /// Mean (or fixed) off period.
        off: packetsim_kernel::Dur,
        /// How period lengths are drawn.
        dist: crate::app::PeriodDist,
    },
    /// Poisson flow arrivals (`app = "poisson"`): built as one finite TCP transfer per
    /// arrival, named `NAME_k` (see `scenario/flow/tcp.rs`).
    Poisson(Box<Workload>),
}

/// A Poisson workload: arrivals and flow sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// Mean flow arrivals per second.
    pub arrival_rate: f64,
    /// Flow sizes.
    pub sizes: crate::app::SizeDist,
}
