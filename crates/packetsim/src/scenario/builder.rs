//! A scenario stated in code (issue 35 item 1): a study names its nodes, links, flows and
//! queues with the simulator's own types (rates, durations, [`QueueSpec`], queue and class
//! configs), and [`ScenarioBuilder::build`] loads them through the one loader, exactly as a
//! file holding those keys in that order would be loaded: the same validation, profile
//! resolution and defaults, the same errors (naming the builder's origin and the key). The
//! caller writes no TOML; the builder keeps its keys in an order-preserving document (nodes,
//! links and flows keep the order they were added in, which fixes ids and random streams).
//!
//! Only the keys a study sets are written: a `[tcp]` key left `None` in [`TcpKeys`] keeps
//! the profile's or the documented default, as an absent key in a file does.

use super::{load_str, ErrorDirection, Override, Profile, QueueSpec, Scenario, ScenarioError};
use super::{SchedulerSpec, SharedChannel};
use crate::queue::FlowClassConfig;
use crate::transport::tcp::Variant;
use crate::units::{format_dur, format_rate};
use packetsim_kernel::{Dur, Rate};
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

/// A scenario being stated in code (see the module doc).
#[derive(Clone, Debug)]
pub struct ScenarioBuilder {
    origin: String,
    doc: DocumentMut,
}

/// The TCP keys a builder sets, in `[tcp]` or in one flow's `tcp` table; `None` leaves a key
/// out (the profile's value or the documented default applies).
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpKeys {
    /// `variant`.
    pub variant: Option<Variant>,
    /// `mss`, bytes.
    pub mss: Option<u32>,
    /// `initial_cwnd`, segments.
    pub initial_cwnd: Option<u32>,
    /// `rcv_window`, bytes.
    pub rcv_window: Option<u64>,
    /// `rto_initial`.
    pub rto_initial: Option<Dur>,
    /// `rto_min`.
    pub rto_min: Option<Dur>,
    /// `rto_max`.
    pub rto_max: Option<Dur>,
    /// `granularity` (timer tick).
    pub granularity: Option<Dur>,
    /// `ecn`.
    pub ecn: Option<bool>,
    /// `recover_guard = "none"` when `Some(false)` (`Some(true)`: the documented guard).
    pub recover_guard: Option<bool>,
    /// `dupack_same_window`.
    pub dupack_same_window: Option<bool>,
    /// `reconnection_acks`.
    pub reconnection_acks: Option<u32>,
}

/// The `[mobility]` keys a builder sets; the protocol's settings beyond its name are the
/// documented defaults (a study sets its typed `MobilityConfig` on the built scenario).
#[derive(Clone, Debug)]
pub struct MobilityKeys {
    /// `protocol`.
    pub protocol: crate::mobility::Protocol,
    /// `gateway`.
    pub gateway: String,
    /// `base_stations`, in walk order.
    pub base_stations: Vec<String>,
    /// `mobiles`.
    pub mobiles: Vec<String>,
    /// `handoffs` in the run.
    pub handoffs: u32,
    /// `spread`.
    pub spread: bool,
    /// `home_agent`.
    pub home_agent: Option<String>,
    /// `radio = "wifi"` with `spacing` (metres) and `beacon_interval` (`None`: spec 5 Q2's
    /// point-to-point radio links).
    pub wifi: Option<(f64, Dur)>,
}

/// One full-duplex link's keys.
#[derive(Clone, Debug)]
pub struct LinkKeys {
    /// One end (node name).
    pub a: String,
    /// The other end.
    pub b: String,
    /// Rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// `queue`: each direction's queue (`None`: the default DropTail).
    pub queue: Option<QueueSpec>,
    /// `queue_ba`: the b→a direction's queue when it differs.
    pub queue_ba: Option<QueueSpec>,
    /// `diffserv_edge`: the directions that classify and mark as a DiffServ edge.
    pub diffserv_edge: Option<ErrorDirection>,
    /// `kind = "radio"` with this downlink (`None`: a point-to-point link).
    pub radio_downlink: Option<ErrorDirection>,
    /// A radio link's `shared_channel`.
    pub shared_channel: Option<SharedChannel>,
}

impl LinkKeys {
    /// A point-to-point link from `a` to `b` with the default queue.
    pub fn new(a: &str, b: &str, rate: Rate, delay: Dur) -> LinkKeys {
        LinkKeys {
            a: a.into(),
            b: b.into(),
            rate,
            delay,
            queue: None,
            queue_ba: None,
            diffserv_edge: None,
            radio_downlink: None,
            shared_channel: None,
        }
    }
}

/// What a flow sends.
#[derive(Clone, Debug)]
pub enum Sends {
    /// A bulk TCP transfer with these `tcp` keys over `[tcp]`.
    Tcp(TcpKeys),
    /// Constant bit rate (`kind = "cbr"`): `rate`, packets of `packet_size` bytes.
    Cbr {
        /// Sending rate.
        rate: Rate,
        /// Payload bytes per packet.
        packet_size: u32,
    },
}

/// One flow's keys.
#[derive(Clone, Debug)]
pub struct FlowKeys {
    /// The sending node.
    pub from: String,
    /// The receiving node.
    pub to: String,
    /// `start` (`None`: the default, 0).
    pub start: Option<Dur>,
    /// What it sends.
    pub kind: Sends,
    /// `diffserv`: its forwarding class and marker.
    pub diffserv: Option<FlowClassConfig>,
}

impl ScenarioBuilder {
    /// An empty scenario; `origin` names it in messages (as a file name would).
    pub fn new(origin: &str) -> ScenarioBuilder {
        ScenarioBuilder {
            origin: origin.into(),
            doc: DocumentMut::new(),
        }
    }

    /// `profile`.
    pub fn profile(&mut self, p: Profile) -> &mut Self {
        let name = match p {
            Profile::Standard => "standard",
            Profile::Ns2 => "ns2",
            Profile::Linux => "linux",
        };
        self.doc["profile"] = toml_edit::value(name);
        self
    }

    /// `[simulation] duration`.
    pub fn duration(&mut self, d: Dur) -> &mut Self {
        self.table("simulation")["duration"] = toml_edit::value(format_dur(d));
        self
    }

    /// `[tcp]`: the keys set in `t`.
    pub fn tcp(&mut self, t: &TcpKeys) -> &mut Self {
        let mut tcp = Table::new();
        for (k, v) in tcp_keys(t) {
            tcp[k] = Item::Value(v);
        }
        self.doc["tcp"] = Item::Table(tcp);
        self
    }

    /// `[nodes.NAME]`, after the nodes added so far.
    pub fn node(&mut self, name: &str) -> &mut Self {
        self.table("nodes")[name] = Item::Table(Table::new());
        self
    }

    /// `[links.NAME]`, after the links added so far.
    pub fn link(&mut self, name: &str, l: &LinkKeys) -> Result<&mut Self, String> {
        let mut t = Table::new();
        t["a"] = toml_edit::value(l.a.as_str());
        t["b"] = toml_edit::value(l.b.as_str());
        if let Some(d) = l.radio_downlink {
            t["kind"] = toml_edit::value("radio");
            t["downlink"] = toml_edit::value(direction(d));
        }
        t["rate"] = toml_edit::value(format_rate(l.rate));
        t["delay"] = toml_edit::value(format_dur(l.delay));
        if let Some(d) = l.diffserv_edge {
            t["diffserv_edge"] = toml_edit::value(direction(d));
        }
        if let Some(q) = &l.queue {
            t["queue"] = Item::Value(queue_value(q)?);
        }
        if let Some(q) = &l.queue_ba {
            t["queue_ba"] = Item::Value(queue_value(q)?);
        }
        if let Some(sc) = &l.shared_channel {
            t["shared_channel"] = Item::Value(shared_value(sc));
        }
        self.table("links")[name] = Item::Table(t);
        Ok(self)
    }

    /// `[mobility]`: the keys set in `m` (`scenario/mobility.rs`, docs/scenario-format.md).
    pub fn mobility(&mut self, m: &MobilityKeys) -> &mut Self {
        let names =
            |v: &[String]| Value::Array(v.iter().map(|x| Value::from(x.as_str())).collect());
        let mut t = Table::new();
        t["protocol"] = toml_edit::value(m.protocol.name());
        t["gateway"] = toml_edit::value(m.gateway.as_str());
        t["base_stations"] = toml_edit::value(names(&m.base_stations));
        t["mobiles"] = toml_edit::value(names(&m.mobiles));
        if let Some((spacing, beacon_interval)) = m.wifi {
            t["radio"] = toml_edit::value("wifi");
            t["spacing"] = toml_edit::value(spacing);
            t["beacon_interval"] = toml_edit::value(format_dur(beacon_interval));
        }
        t["handoffs"] = toml_edit::value(i64::from(m.handoffs));
        if m.spread {
            t["spread"] = toml_edit::value(true);
        }
        if let Some(ha) = &m.home_agent {
            t["home_agent"] = toml_edit::value(ha.as_str());
        }
        self.doc["mobility"] = Item::Table(t);
        self
    }

    /// `[flows.NAME]`, after the flows added so far.
    pub fn flow(&mut self, name: &str, f: &FlowKeys) -> Result<&mut Self, String> {
        let mut t = Table::new();
        t["from"] = toml_edit::value(f.from.as_str());
        t["to"] = toml_edit::value(f.to.as_str());
        match &f.kind {
            Sends::Cbr { rate, packet_size } => {
                t["kind"] = toml_edit::value("cbr");
                t["rate"] = toml_edit::value(format_rate(*rate));
                t["packet_size"] = toml_edit::value(i64::from(*packet_size));
            }
            Sends::Tcp(keys) => {
                if let Some(s) = f.start {
                    t["start"] = toml_edit::value(format_dur(s));
                }
                let keys = tcp_keys(keys);
                if !keys.is_empty() {
                    let mut inline = InlineTable::new();
                    for (k, v) in keys {
                        inline.insert(k, v);
                    }
                    t["tcp"] = toml_edit::value(inline);
                }
            }
        }
        if let (Sends::Cbr { .. }, Some(s)) = (&f.kind, f.start) {
            t["start"] = toml_edit::value(format_dur(s));
        }
        if let Some(d) = &f.diffserv {
            t["diffserv"] = Item::Value(serialized(d)?);
        }
        self.table("flows")[name] = Item::Table(t);
        Ok(self)
    }

    /// The scenario, loaded as a file with these keys would be.
    pub fn build(&self) -> Result<Scenario, ScenarioError> {
        self.build_with(&[])
    }

    /// The scenario with `overrides` applied, as `--set` applies them to a file.
    pub fn build_with(&self, overrides: &[Override]) -> Result<Scenario, ScenarioError> {
        load_str(&self.doc.to_string(), &self.origin, overrides)
    }

    /// The top-level table `name`, made (implicit, as a file's `[name.x]` headers make it)
    /// when absent.
    fn table(&mut self, name: &str) -> &mut Table {
        let item = self.doc.entry(name).or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        });
        item.as_table_mut().expect("a table the builder made")
    }
}

/// A direction as scenarios write it.
fn direction(d: ErrorDirection) -> &'static str {
    match d {
        ErrorDirection::AToB => "a_to_b",
        ErrorDirection::BToA => "b_to_a",
        ErrorDirection::Both => "both",
    }
}

/// The keys set in `t`, in `[tcp]`'s documented order.
fn tcp_keys(t: &TcpKeys) -> Vec<(&'static str, Value)> {
    let dur = |d: Option<Dur>| d.map(|d| Value::from(format_dur(d)));
    let int = |n: Option<u64>| n.map(|n| Value::from(n as i64));
    [
        ("variant", t.variant.map(|v| Value::from(v.name()))),
        ("mss", int(t.mss.map(u64::from))),
        ("initial_cwnd", int(t.initial_cwnd.map(u64::from))),
        ("rcv_window", int(t.rcv_window)),
        ("rto_initial", dur(t.rto_initial)),
        ("rto_min", dur(t.rto_min)),
        ("rto_max", dur(t.rto_max)),
        ("granularity", dur(t.granularity)),
        (
            "recover_guard",
            t.recover_guard
                .and_then(|g| (!g).then(|| Value::from("none"))),
        ),
        ("dupack_same_window", t.dupack_same_window.map(Value::from)),
        ("reconnection_acks", int(t.reconnection_acks.map(u64::from))),
        ("ecn", t.ecn.map(Value::from)),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some((k, v?)))
    .collect()
}

/// A serializable config as an inline table.
fn serialized<T: serde::Serialize>(c: &T) -> Result<Value, String> {
    let doc = toml_edit::ser::to_document(c).map_err(|e| e.to_string())?;
    Ok(Value::InlineTable(
        doc.as_table().clone().into_inline_table(),
    ))
}

/// A queue discipline as a link's `queue` key writes it.
fn queue_value(q: &QueueSpec) -> Result<Value, String> {
    let mut t = InlineTable::new();
    let (kind, own) = match q {
        QueueSpec::DropTail { limit, ns2_limit } => {
            t.insert("kind", "droptail".into());
            t.insert("limit", limit_value(*limit));
            if *ns2_limit {
                t.insert("ns2_limit", true.into());
            }
            return Ok(Value::InlineTable(t));
        }
        QueueSpec::Aqm(c) => (c.name(), aqm_table(c)?),
        QueueSpec::Classful { scheduler, classes } => {
            let kind = match scheduler {
                SchedulerSpec::Wrr => "wrr",
                SchedulerSpec::Priority => "priority",
            };
            let mut list = Array::new();
            for c in classes {
                let mut ct = InlineTable::new();
                ct.insert("name", c.name.as_str().into());
                if !c.dscps.is_empty() {
                    ct.insert(
                        "dscp",
                        Value::Array(c.dscps.iter().map(|&d| i64::from(d)).collect()),
                    );
                }
                ct.insert("weight", i64::from(c.weight).into());
                ct.insert("queue", queue_value(&c.queue)?);
                list.push(Value::InlineTable(ct));
            }
            t.insert("kind", kind.into());
            t.insert("classes", Value::Array(list));
            return Ok(Value::InlineTable(t));
        }
    };
    t.insert("kind", kind.into());
    t.insert(kind, own);
    Ok(Value::InlineTable(t))
}

/// A registered discipline's own table, for every row of `queue_disciplines!` (its `kind`
/// names it, [`crate::queue::AqmConfig::name`]).
macro_rules! aqm_table {
    (
        fifo { $( $(#[$fm:meta])* $F:ident $fk:ident: $FC:ident, )* }
        dequeue { $( $(#[$dm:meta])* $D:ident $dk:ident: $DC:ident, )* }
    ) => {
        fn aqm_table(c: &crate::queue::AqmConfig) -> Result<Value, String> {
            match c {
                $( crate::queue::AqmConfig::$F(c) => serialized(c), )*
                $( crate::queue::AqmConfig::$D(c) => serialized(c), )*
            }
        }
    };
}
crate::queue::queue_disciplines!(aqm_table);

/// A queue limit as scenarios write it: packets as an integer, bytes with a unit.
fn limit_value(l: crate::queue::QueueLimit) -> Value {
    match l {
        crate::queue::QueueLimit::Packets(n) => i64::from(n).into(),
        crate::queue::QueueLimit::Bytes(b) => format!("{b}B").into(),
    }
}

/// A radio link's `shared_channel`.
fn shared_value(sc: &SharedChannel) -> Value {
    let mut t = InlineTable::new();
    t.insert(
        "mobiles",
        Value::Array(sc.mobiles.iter().map(String::as_str).collect()),
    );
    let scheduler = match sc.scheduler {
        SchedulerSpec::Wrr => "round_robin",
        SchedulerSpec::Priority => "priority",
    };
    t.insert("scheduler", scheduler.into());
    if sc.weights.iter().any(|&w| w != 1) {
        t.insert(
            "weights",
            Value::Array(sc.weights.iter().map(|&w| i64::from(w)).collect()),
        );
    }
    Value::InlineTable(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{QueueLimit, RedConfig};

    fn two_nodes() -> ScenarioBuilder {
        let mut b = ScenarioBuilder::new("built-test");
        b.duration(Dur::from_secs(1)).node("x").node("y");
        b
    }

    // A builder's values are checked by the loader as a file's are: a wrong one is an error
    // naming the builder's origin and the key, never a silent default.
    #[test]
    fn a_wrong_value_is_an_error_naming_the_origin_and_key() {
        let red = RedConfig {
            min_th: 20.0,
            max_th: 10.0,
            ..RedConfig::default()
        };
        let mut b = two_nodes();
        let link = LinkKeys {
            queue: Some(QueueSpec::Aqm(crate::queue::AqmConfig::Red(red))),
            ..LinkKeys::new("x", "y", Rate(1_000_000), Dur::from_millis(1))
        };
        b.link("l", &link).unwrap();
        let e = b.build().unwrap_err().to_string();
        assert!(e.starts_with("built-test:"), "{e}");
        assert!(e.contains("links.l.queue"), "{e}");
    }

    // Nodes, links and flows keep the order they were added in (ids and random streams
    // follow it), and each key reaches the loaded scenario with its value.
    #[test]
    fn keys_reach_the_scenario_in_the_order_added() {
        let mut b = two_nodes();
        b.node("a");
        for (name, q) in [("l2", 7), ("l1", 9)] {
            let link = LinkKeys {
                queue: Some(QueueSpec::DropTail {
                    limit: QueueLimit::Packets(q),
                    ns2_limit: false,
                }),
                ..LinkKeys::new(
                    "x",
                    if q == 7 { "y" } else { "a" },
                    Rate(2_000_000),
                    Dur::from_micros(250),
                )
            };
            b.link(name, &link).unwrap();
        }
        for (name, to) in [("f2", "y"), ("f1", "a")] {
            let f = FlowKeys {
                from: "x".into(),
                to: to.into(),
                start: Some(Dur::from_micros(123_456)),
                kind: Sends::Tcp(TcpKeys {
                    ecn: Some(true),
                    ..TcpKeys::default()
                }),
                diffserv: None,
            };
            b.flow(name, &f).unwrap();
        }
        let sc = b.build().unwrap();
        assert_eq!(sc.nodes, ["x", "y", "a"]);
        let links: Vec<_> = sc
            .links
            .iter()
            .map(|l| (l.name.as_str(), l.queue.clone()))
            .collect();
        assert_eq!(links[0].0, "l2");
        assert_eq!(links[1].0, "l1");
        assert_eq!(
            links[0].1,
            QueueSpec::DropTail {
                limit: QueueLimit::Packets(7),
                ns2_limit: false
            }
        );
        assert_eq!(sc.links[0].rate, Rate(2_000_000));
        assert_eq!(sc.links[0].delay, Dur::from_micros(250));
        let names: Vec<_> = sc.flow_tables.iter().map(|t| t.table.as_str()).collect();
        assert_eq!(names, ["f2", "f1"]);
    }
}
