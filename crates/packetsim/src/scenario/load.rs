//! Loading: TOML text → overrides → serde schema → validated [`Scenario`]. Every error is
//! turned into a [`ScenarioError`] naming the file, the line (or the `--set`), the key path
//! and what was expected. Nothing here panics on any input.

use super::cost::Limits;
use super::error::{KeyLines, Location, ScenarioError};
use super::flow::{FlowInput, FLOW_KINDS};
use super::kinds::fields_of;
use super::link::{LinkInput, LINK_KINDS};
use super::locate::{is_bare, KeyPath, SpanIndex};
use super::overrides::Override;
use super::profile::{Profile, Table as ProfileTable, TcpProfile};
use super::schema::{
    RawAddress, RawFlow, RawLink, RawQueue, RawQueueKind, RawRoute, RawScenario, RawTrace,
};
use super::{
    AddressSpec, ClassSpec, ErrorDirection, FlowNames, FlowSpec, FlowTable, LinkKind, LinkSpec,
    QueueLimit, QueueReportSpec, QueueSpec, RadioSpec, RateStep, RouteSpec, Scenario,
    SchedulerSpec, SimulationSpec, TraceSpec,
};
use crate::transport::sctp::SctpConfig;
use crate::transport::tcp::TcpConfig;
use packetsim_kernel::{Dur, Time};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use toml_edit::ImDocument;

/// The [`KeyLines`] entry of the file's last line holding a key (not a key path).
pub(super) const END_OF_FILE: &str = "(end of file)";
/// Queue capacity when a link gives none, packets.
pub const DEFAULT_QUEUE_PACKETS: u32 = 100;
/// Largest `count` a flow table may ask for (its copies are made one at a time, never held
/// together by the scenario: [`super::FlowTable`]).
pub const MAX_FLOW_COUNT: u32 = 1_000_000;
/// Largest UDP payload of a CBR packet, bytes (IPv4 limit).
pub const MAX_UDP_PAYLOAD: u64 = 65_507;
/// Largest wire cost of a queue report, bytes.
pub const MAX_QUEUE_REPORT_BYTES: u32 = 64;
/// Default UDP payload of a CBR packet, bytes.
pub const DEFAULT_CBR_PACKET_SIZE: u32 = 1000;

type Result<T> = std::result::Result<T, ScenarioError>;

/// Reads and loads a scenario file; `overrides` are applied in order (a later one wins).
/// With the default [`Limits`] (see [`load_file_with`]).
pub fn load_file(path: &Path, overrides: &[Override]) -> Result<Scenario> {
    load_file_with(path, overrides, &Limits::default())
}

/// Reads and loads a scenario file within `limits`: the file is read only if it is a regular
/// file ([`super::files::read_regular`], never blocking on a FIFO) whose parsing fits the
/// memory budget, and every file it names is read through [`super::files::read_named`].
pub fn load_file_with(path: &Path, overrides: &[Override], limits: &Limits) -> Result<Scenario> {
    let text_budget = limits.max_memory / super::cost::TEXT_BYTE_BYTES;
    let cap = super::files::MAX_SCENARIO_BYTES.min(text_budget);
    let bytes = super::files::read_regular(path, cap, "scenario file").map_err(|e| {
        if let super::files::FileError::Io { source, .. } = e {
            return ScenarioError::Read {
                path: path.to_owned(),
                source,
            };
        }
        let hint = match e {
            super::files::FileError::TooLarge { .. } if cap < super::files::MAX_SCENARIO_BYTES => {
                format!(
                    " (parsing costs about {} bytes of memory per byte of text: raise the \
                     budget with --max-memory)",
                    super::cost::TEXT_BYTE_BYTES
                )
            }
            _ => String::new(),
        };
        ScenarioError::File(format!(
            "{}: cannot read the scenario file: {}{hint}",
            super::files::shown_path(&path.to_string_lossy()),
            e.reason()
        ))
    })?;
    let origin = path.display().to_string();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            // The text up to the bad byte is valid: it locates the line, column and key.
            let valid = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
            return Err(syntax_error(
                &origin,
                valid,
                at,
                &format!(
                    "the file is not UTF-8 text: byte 0x{:02X} at offset {at} cannot start or \
                     continue a character (save the file as UTF-8)",
                    bytes[at]
                ),
            ));
        }
    };
    load_str_with(&text, &origin, overrides, limits)
}

/// A syntax error at byte `offset` of `text`, with its line, column, the key being written
/// there, and a message that is never empty.
fn syntax_error(origin: &str, text: &str, offset: usize, message: &str) -> ScenarioError {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = 1 + text[..line_start].bytes().filter(|b| *b == b'\n').count();
    let column = 1 + text[line_start..offset].chars().count();
    let message = one_line(message);
    let message = if !message.is_empty() {
        message
    } else {
        match text[offset..].chars().next() {
            None => "the file ends in the middle of a key, value or table header".to_owned(),
            Some(c) if c.is_control() && c != '\t' && c != '\n' && c != '\r' => format!(
                "control character U+{:04X} is not allowed in TOML text (tab is the only one \
                 allowed besides line ends)",
                c as u32
            ),
            Some(c) => format!("unexpected {c:?} here"),
        }
    };
    ScenarioError::Syntax {
        origin: origin.to_owned(),
        line,
        column,
        key: key_near(text, line_start),
        message,
    }
}

/// The key being written on the line starting at `line_start`, read from the
/// text alone (it does not parse): the last table header before it, then the key before `=`
/// on its line. Best effort, for messages only.
fn key_near(text: &str, line_start: usize) -> String {
    fn header(l: &str) -> Option<&str> {
        let t = l.trim();
        let inner = t.strip_prefix('[')?;
        let inner = inner.strip_prefix('[').unwrap_or(inner);
        Some(inner.split(']').next().unwrap_or("").trim())
    }
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let line = &text[line_start..line_end];
    if let Some(h) = header(line) {
        return if h.is_empty() {
            "(table header)".to_owned()
        } else {
            h.to_owned()
        };
    }
    let table = text[..line_start]
        .lines()
        .rev()
        .filter_map(header)
        .next()
        .unwrap_or("");
    let key = match line.find('=') {
        Some(eq) if !line.trim_start().starts_with('#') => line[..eq].trim(),
        _ => "",
    };
    match (table, key) {
        ("", "") => "(top level)".to_owned(),
        (t, "") => t.to_owned(),
        ("", k) => k.to_owned(),
        (t, k) => format!("{t}.{k}"),
    }
}

/// Loads a scenario from its text; `origin` is the file name used in messages (and files the
/// scenario names are relative to its folder). With the default [`Limits`].
pub fn load_str(text: &str, origin: &str, overrides: &[Override]) -> Result<Scenario> {
    load_str_with(text, origin, overrides, &Limits::default())
}

/// [`load_str`] within `limits`: sizes the loader allocates are costed against the budget
/// first ([`super::cost`]), and files the scenario names are read only from the scenario's
/// folder or `limits.allow_dirs`.
pub fn load_str_with(
    text: &str,
    origin: &str,
    overrides: &[Override],
    limits: &Limits,
) -> Result<Scenario> {
    let original = ImDocument::parse(text)
        .map_err(|e| syntax_error(origin, text, e.span().map_or(0, |s| s.start), e.message()))?;
    let orig = SpanIndex::new(&original, text);

    // Without overrides the effective document is the file itself: parsed and indexed once
    // (a 10,000-flow scenario's document and index are hundreds of MB).
    let effective = if overrides.is_empty() {
        None
    } else {
        let mut doc = original.clone().into_mut();
        for o in overrides {
            o.apply(&mut doc)
                .map_err(|message| ScenarioError::Override {
                    origin: origin.to_owned(),
                    set: o.to_string(),
                    message,
                })?;
        }
        Some(doc.to_string())
    };
    let eff_parsed = match &effective {
        None => None,
        Some(effective) => {
            let doc = ImDocument::parse(effective.as_str()).map_err(|e| {
                syntax_error(
                    &format!("{origin} (after --set overrides)"),
                    effective,
                    e.span().map_or(0, |s| s.start),
                    e.message(),
                )
            })?;
            let index = SpanIndex::new(&doc, effective);
            Some((doc, index))
        }
    };
    let (eff_doc, eff) = match eff_parsed {
        Some((doc, index)) => (doc, Some(index)),
        None => (original, None),
    };
    let eff_text = effective.as_deref().unwrap_or(text);

    let ctx = Ctx {
        origin,
        orig,
        eff,
        overrides: overrides
            .iter()
            .filter_map(|o| o.keys().ok().map(|k| (KeyPath::keys(&k), o)))
            .collect(),
        limits,
    };
    let raw: RawScenario = toml::from_str(eff_text).map_err(|e| ctx.serde_err(&e))?;
    let table: toml::Table = toml::from_str(eff_text).map_err(|e| ctx.serde_err(&e))?;
    let mut s = ctx.validate(raw, &table, &eff_doc)?;
    s.text = effective.unwrap_or_else(|| text.to_owned());
    Ok(s)
}

/// A parser message on one line: `first; second`.
fn one_line(msg: &str) -> String {
    msg.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The loader's view of one scenario: its file name, spans and overrides, for errors.
pub(super) struct Ctx<'a> {
    origin: &'a str,
    /// Spans of the file as written: lines in messages refer to it.
    orig: SpanIndex,
    /// Spans of the document after overrides, when there are overrides (else `orig`): serde
    /// error spans refer to it.
    eff: Option<SpanIndex>,
    overrides: Vec<(KeyPath, &'a Override)>,
    /// The memory budget and the folders files may be read from.
    limits: &'a Limits,
}

impl Ctx<'_> {
    /// The scenario file's name as given (files a scenario names are relative to it).
    pub(super) fn origin(&self) -> &str {
        self.origin
    }

    /// The limits the scenario is loaded within.
    pub(super) fn limits(&self) -> &Limits {
        self.limits
    }

    /// Where the value at `path` came from: an override, else its line in the file.
    fn locate(&self, path: &KeyPath) -> Location {
        let by_override = |f: &dyn Fn(&KeyPath) -> bool| {
            self.overrides
                .iter()
                .rev()
                .find(|(p, _)| f(p))
                .map(|(_, o)| Location::Override(o.to_string()))
        };
        // The value at `path` (or a table holding it) was set by an override.
        if let Some(l) = by_override(&|p| path.starts_with(p)) {
            return l;
        }
        if self.orig.contains(path) {
            if let Some(l) = self.orig.line_of_path(path) {
                return Location::Line(l);
            }
        }
        // Not in the file: was its first missing ancestor created by an override?
        let mut missing = KeyPath::default();
        for seg in &path.0 {
            missing.0.push(seg.clone());
            if !self.orig.contains(&missing) {
                break;
            }
        }
        if let Some(l) = by_override(&|p| p.starts_with(&missing)) {
            return l;
        }
        Location::Line(self.orig.line_of_path(path).unwrap_or(1))
    }

    /// An error at `path`, located in the file or at the override that set it.
    pub(super) fn err(&self, path: &KeyPath, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Invalid {
            origin: self.origin.to_owned(),
            at: self.locate(path),
            key: path.to_string(),
            message: super::suggest::with_suggestion(message.into()),
        }
    }

    fn serde_err(&self, e: &toml::de::Error) -> ScenarioError {
        self.located(e.span(), e.message(), &KeyPath::default())
    }

    /// A serde error at `span` of the effective document (`fallback` when it has none),
    /// reworded for the user: tables, keys and values rather than structs, fields, variants.
    pub(super) fn located(
        &self,
        span: Option<std::ops::Range<usize>>,
        message: &str,
        fallback: &KeyPath,
    ) -> ScenarioError {
        let mut path = span
            .and_then(|s| self.eff.as_ref().unwrap_or(&self.orig).path_at(&s))
            .unwrap_or_else(|| fallback.clone());
        let msg = message.trim();
        let message = if let Some(field) = between(msg, "missing field `", "`") {
            // The span toml gives for the root table is that of its first key or header, so
            // a key missing at the root (`simulation`, its one required key) would be put in
            // whatever table the file starts with (`nodes.a.simulation`, issue 16).
            if field == "simulation" {
                path = KeyPath::default();
            }
            path = path.key(field);
            format!("missing required key `{field}`")
        } else {
            table_not_struct(
                &msg.replacen("unknown field", "unknown key", 1)
                    .replacen(", there are no fields", "; this table takes no keys", 1)
                    .replacen(", expected", "; expected", 1)
                    .replacen("unknown variant", "unknown value", 1)
                    .replacen("expected u64", "expected a non-negative integer", 1)
                    .replacen(
                        "expected u32",
                        "expected an integer from 0 to 4294967295",
                        1,
                    ),
            )
        };
        self.err(&path, message)
    }

    fn validate(
        &self,
        raw: RawScenario,
        table: &toml::Table,
        doc: &ImDocument<&str>,
    ) -> Result<Scenario> {
        let sim_path = KeyPath::keys(&["simulation"]);
        let sim = raw.simulation;
        if sim.duration == Dur::ZERO {
            return Err(self.err(
                &sim_path.key("duration"),
                "expected a positive duration, e.g. \"60s\"; got 0",
            ));
        }
        if sim.sample_interval == Some(Dur::ZERO) {
            return Err(self.err(
                &sim_path.key("sample_interval"),
                "expected a positive duration, e.g. \"100ms\"; got 0",
            ));
        }
        let simulation = SimulationSpec {
            duration: sim.duration,
            seed: sim.seed.unwrap_or(1),
            sample_interval: sim.sample_interval,
            tie_order: sim.tie_order,
            flow_monitor: sim.flow_monitor,
            time_base: sim.time_base,
        };

        // A profile's options sit under the file's `[tcp]` / `[sctp]` (profile.rs).
        // Without `profile`, [tcp]'s variant implies one (issue 33; profile.rs).
        let profile = raw.profile.unwrap_or_default();
        let tcp_file = table
            .get("tcp")
            .and_then(|t| t.as_table())
            .cloned()
            .unwrap_or_default();
        let tcp_profile = TcpProfile::resolve(raw.profile, &tcp_file);
        let (tcp_defaults, _) = self.with_profile(
            tcp_profile.table(),
            ProfileTable::Tcp,
            "tcp",
            table,
            raw.tcp,
        )?;
        tcp_profile
            .check(&tcp_defaults, &tcp_file)
            .map_err(|(key, msg)| self.err(&KeyPath::keys(&["tcp"]).dotted(key), msg))?;
        let (sctp_defaults, sctp_defaults_raw) = self.with_profile(
            profile.table(ProfileTable::Sctp),
            ProfileTable::Sctp,
            "sctp",
            table,
            raw.sctp,
        )?;
        sctp_defaults.validate().map_err(|(key, msg)| {
            self.err(
                &KeyPath::keys(&["sctp", key]),
                profile_note(profile, ProfileTable::Sctp, table, "sctp", key, msg),
            )
        })?;
        let link_profile = profile.table(ProfileTable::Link);
        let profile_loss_position = link_profile
            .get("loss_position")
            .map(|v| v.clone().try_into::<crate::net::LossPosition>())
            .transpose()
            .map_err(|e| self.err(&KeyPath::keys(&["profile"]), e.message().trim().to_owned()))?;

        let mut nodes = Vec::with_capacity(raw.nodes.0.len());
        let mut raw_addresses = Vec::new();
        let mut raw_routes = Vec::new();
        let mut places = Vec::new();
        for (name, n) in raw.nodes.0 {
            self.check_name(&KeyPath::keys(&["nodes", &name]), &name, "node")?;
            if n.position.is_some() || n.motion.is_some() {
                places.push(super::link::wifi::NodePlace {
                    name: name.clone(),
                    position: n.position,
                    motion: n.motion,
                });
            }
            raw_addresses.push((name.clone(), n.addresses));
            raw_routes.push((name.clone(), n.routes));
            nodes.push(name);
        }
        let file_nodes = nodes.len();
        // A generated fabric's nodes come after the file's own.
        let fabric = match &raw.topology {
            None => None,
            Some(t) => {
                let f = self.fabric(t)?;
                let own: HashSet<&str> = nodes.iter().map(String::as_str).collect();
                if let Some(n) = f.nodes.iter().find(|n| own.contains(n.as_str())) {
                    return Err(self.err(
                        &KeyPath::keys(&["nodes", n]),
                        format!(
                            "node `{n}` is also made by [topology] (its generated names are \
                             listed in docs/datacentre.md); rename this node"
                        ),
                    ));
                }
                nodes.extend(f.nodes.iter().cloned());
                Some(f)
            }
        };
        let node_set: HashSet<&str> = nodes.iter().map(String::as_str).collect();

        let mut links = Vec::with_capacity(raw.links.0.len());
        for (name, mut l) in raw.links.0 {
            if l.loss_position.is_none() {
                l.loss_position = profile_loss_position;
            }
            let item = doc.get("links").and_then(|t| t.get(&name));
            links.push(self.link(name, l, item, &nodes, &node_set, simulation.duration)?);
        }
        super::link::wifi::place_stations(self, &mut links, places, &nodes, &node_set)?;
        let file_links = links.len();
        if let (Some(t), Some(f)) = (raw.topology, &fabric) {
            let made = self.fabric_links(t, f, &nodes, &node_set, simulation.duration)?;
            let own: HashSet<&str> = links.iter().map(|l| l.name.as_str()).collect();
            if let Some(l) = made.iter().find(|l| own.contains(l.name.as_str())) {
                return Err(self.err(
                    &KeyPath::keys(&["links", &l.name]),
                    format!(
                        "link `{}` is also made by [topology]; rename this link",
                        l.name
                    ),
                ));
            }
            links.extend(made);
        }
        if simulation.time_base == super::TimeBase::Slotted {
            match super::TimeBase::atm_slot(&links) {
                Ok(Some(_)) => {}
                Ok(None) => {
                    return Err(self.err(
                        &sim_path.key("time_base"),
                        "\"slotted\" takes its slot from the scenario's atm links, and there is \
                         none: add a link of kind = \"atm\", or leave time_base out \
                         (\"continuous\")",
                    ))
                }
                Err((name, slot, first)) => {
                    return Err(self.err(
                        &KeyPath::keys(&["links", &name, "rate"]),
                        format!(
                            "with time_base = \"slotted\" every atm link has the same slot (one \
                             cell at its rate): this link's is {slot}, another's {first}"
                        ),
                    ))
                }
            }
        }
        let addresses = self.addresses(raw_addresses, &node_set, &links)?;
        let routes = self.routes(raw_routes, &node_set, &addresses, &links)?;
        let ecmp_given = raw.routing.as_ref().and_then(|r| r.ecmp);
        let ecmp = ecmp_given.unwrap_or(if fabric.is_some() {
            crate::net::EcmpMode::Flow
        } else {
            crate::net::EcmpMode::Off
        });
        if ecmp != crate::net::EcmpMode::Off {
            if let Some(r) = routes.first() {
                let path = if ecmp_given.is_some() {
                    KeyPath::keys(&["routing", "ecmp"])
                } else {
                    KeyPath::keys(&["routing"])
                };
                return Err(self.err(
                    &path,
                    format!(
                        "ECMP (routing.ecmp, \"flow\" by default with a [topology]) cannot be \
                         combined with static routes (nodes.{}.routes): set ecmp = \"off\" or \
                         remove the routes",
                        r.node
                    ),
                ));
            }
        }

        let defaults = Defaults {
            tcp: &tcp_defaults,
            tcp_file: &tcp_file,
            profile: raw.profile,
            sctp: &sctp_defaults,
            sctp_raw: &sctp_defaults_raw,
            addresses: &addresses,
            duration: simulation.duration,
        };
        let mut flows: Vec<FlowTable> = Vec::new();
        let mut flow_names = FlowNames::default();
        for (name, f) in raw.flows.0 {
            let path = KeyPath::keys(&["flows", &name]);
            let raw_flow = table
                .get("flows")
                .and_then(|t| t.get(&name))
                .and_then(|t| t.as_table());
            let item = doc.get("flows").and_then(|t| t.get(&name));
            let t = self.flow(&name, f, (item, raw_flow), &nodes, &node_set, &defaults)?;
            // Names are compared table by table, never copy by copy: copies are named NAME_i
            // with i in decimal, so two tables of several copies never share a name, and a
            // one-copy table `X` clashes only with a table `T` of count > i where X = T_i.
            if let Some((copy, i)) = flow_names.clash(&flows, &t) {
                let other = &flows[i].table;
                return Err(self.err(
                    &path,
                    format!(
                        "flow name `{copy}` is used twice: by flows.{other} and by flows.{name} \
                         (a table with count = N > 1 makes flows NAME_0 .. NAME_{{N-1}})"
                    ),
                ));
            }
            flows.push(t);
            flow_names.add(&flows, flows.len() - 1);
        }
        let file_flows = flows.len();
        let fabric_hosts: &[String] = match &fabric {
            Some(f) => &f.nodes[f.hosts.clone()],
            None => &[],
        };
        let mut workloads = Vec::with_capacity(raw.workloads.0.len());
        for (name, w) in raw.workloads.0 {
            let (t, finite) = self.workload(
                &name,
                w,
                fabric_hosts,
                &node_set,
                &nodes,
                &defaults,
                simulation.seed,
            )?;
            let first = flows.len();
            if let Some((copy, i)) = flow_names.clash(&flows, &t) {
                let other = &flows[i].table;
                return Err(self.err(
                    &KeyPath::keys(&["workloads", &name]),
                    format!(
                        "flow name `{copy}` is used twice: by flows.{other} and by \
                         workloads.{name} (whose flows are NAME_0, NAME_1, ..)"
                    ),
                ));
            }
            flows.push(t);
            flow_names.add(&flows, flows.len() - 1);
            // Completion times are those of finite transfers; bulk flows never complete.
            if finite {
                workloads.push(super::GeneratedWorkload {
                    name,
                    tables: first..flows.len(),
                    mss: tcp_defaults.mss,
                });
            }
        }

        let mobility = match raw.mobility {
            Some(m) => Some(self.mobility(m, &nodes, &node_set, &links, simulation.duration)?),
            None => None,
        };
        let mut lines = self.key_lines(
            &nodes[..file_nodes],
            &links[..file_links],
            &routes,
            flows[..file_flows].iter().map(|t| &t.table),
        );
        for k in ["topology", "routing"] {
            let p = KeyPath::keys(&[k]);
            if self.orig.contains(&p) {
                lines.0.insert(k.to_owned(), self.locate(&p));
            }
        }
        for w in &workloads {
            let p = KeyPath::keys(&["workloads", &w.name]);
            lines
                .0
                .insert(format!("workloads.{}", w.name), self.locate(&p));
        }
        if mobility.is_some() {
            for k in ["base_stations", "home_agent", "gateway"] {
                let p = KeyPath::keys(&["mobility", k]);
                if self.orig.contains(&p) {
                    lines.0.insert(format!("mobility.{k}"), self.locate(&p));
                }
            }
            lines.0.insert(
                "mobility".into(),
                self.locate(&KeyPath::keys(&["mobility"])),
            );
        }
        let trace = self.trace(raw.trace.unwrap_or_default(), &links, &flows)?;
        Ok(Scenario {
            origin: self.origin.to_owned(),
            text: String::new(),
            simulation,
            nodes,
            addresses,
            links,
            routes,
            flow_tables: flows,
            lines,
            trace,
            mobility,
            ecmp,
            workloads,
        })
    }

    /// Where the named items are written, for errors found after loading.
    fn key_lines<'n>(
        &self,
        nodes: &[String],
        links: &[LinkSpec],
        routes: &[RouteSpec],
        flow_tables: impl Iterator<Item = &'n String>,
    ) -> KeyLines {
        let mut m = HashMap::new();
        let mut put = |path: KeyPath, key: String| {
            m.entry(key).or_insert_with(|| self.locate(&path));
        };
        for k in ["duration", "sample_interval", "tie_order", "time_base"] {
            put(KeyPath::keys(&["simulation", k]), format!("simulation.{k}"));
        }
        for n in nodes {
            put(KeyPath::keys(&["nodes", n]), format!("nodes.{n}"));
        }
        for l in links {
            let p = KeyPath::keys(&["links", &l.name]);
            put(p.clone(), format!("links.{}", l.name));
            put(p.key("a"), format!("links.{}.a", l.name));
            put(p.key("b"), format!("links.{}.b", l.name));
        }
        for r in routes {
            let p = KeyPath::keys(&["nodes", &r.node, "routes"]).index(r.index);
            put(p, format!("nodes.{}.routes[{}]", r.node, r.index));
        }
        // For `scenario::check_flows`: the `flows` table if written, and the file's last line.
        if self.orig.contains(&KeyPath::keys(&["flows"])) {
            put(KeyPath::keys(&["flows"]), "flows".to_owned());
        }
        for t in flow_tables {
            let p = KeyPath::keys(&["flows", t]);
            put(p.clone(), format!("flows.{t}"));
            put(p.key("from"), format!("flows.{t}.from"));
            put(p.key("to"), format!("flows.{t}.to"));
        }
        m.insert(
            END_OF_FILE.to_owned(),
            Location::Line(self.orig.last_line()),
        );
        KeyLines(m)
    }

    /// `[trace]`: links named with an optional `:a_to_b` / `:b_to_a` / `:both`, flows by
    /// name, a window with `from < to`, a snap length of at least 20 bytes.
    fn trace(&self, t: RawTrace, links: &[LinkSpec], flows: &[FlowTable]) -> Result<TraceSpec> {
        let path = KeyPath::keys(&["trace"]);
        let mut spec = TraceSpec {
            pcap: t.pcap.unwrap_or(false),
            events: t.events.unwrap_or(false),
            ..TraceSpec::default()
        };
        for (i, l) in t.links.unwrap_or_default().into_iter().enumerate() {
            let at = path.key("links").index(i);
            let (name, dir) = match l.split_once(':') {
                None => (l.as_str(), ErrorDirection::Both),
                Some((n, "a_to_b")) => (n, ErrorDirection::AToB),
                Some((n, "b_to_a")) => (n, ErrorDirection::BToA),
                Some((n, "both")) => (n, ErrorDirection::Both),
                Some((_, d)) => {
                    return Err(self.err(
                        &at,
                        format!(
                            "expected LINK or LINK:DIRECTION with DIRECTION one of a_to_b, \
                             b_to_a, both; got direction {d:?}"
                        ),
                    ))
                }
            };
            if !links.iter().any(|x| x.name == name) {
                let known: Vec<&str> = links.iter().map(|x| x.name.as_str()).collect();
                return Err(self.err(
                    &at,
                    format!(
                        "unknown link {name:?}; expected one of: {}",
                        known.join(", ")
                    ),
                ));
            }
            spec.links.push((name.to_owned(), dir));
        }
        for (i, f) in t.flows.unwrap_or_default().into_iter().enumerate() {
            if !flows.iter().any(|x| x.copy_index(&f).is_some()) {
                return Err(self.err(
                    &path.key("flows").index(i),
                    format!(
                        "unknown flow {f:?}; expected a flow's name (NAME_i for the copies of \
                         a table with count > 1)"
                    ),
                ));
            }
            spec.flows.push(f);
        }
        spec.from = Time::ZERO + t.from.unwrap_or(Dur::ZERO);
        spec.to = t.to.map(|d| Time::ZERO + d);
        if let Some(to) = spec.to {
            if to <= spec.from {
                return Err(self.err(
                    &path.key("to"),
                    "expected the end of the trace window to come after its start (`from`)",
                ));
            }
        }
        if let Some(n) = t.snaplen {
            if n < 20 {
                return Err(self.err(
                    &path.key("snaplen"),
                    format!("expected at least 20 bytes (the IPv4 header); got {n}"),
                ));
            }
            spec.snaplen = n;
        }
        Ok(spec)
    }

    /// Every node's static routes: `to` is another node or another node's named address,
    /// named once per node; `via` is one of the node's own links.
    fn routes(
        &self,
        raw: Vec<(String, Vec<RawRoute>)>,
        node_set: &HashSet<&str>,
        addresses: &[AddressSpec],
        links: &[LinkSpec],
    ) -> Result<Vec<RouteSpec>> {
        let mut out: Vec<RouteSpec> = Vec::new();
        for (node, list) in raw {
            let first = out.len();
            for (index, r) in list.into_iter().enumerate() {
                let path = KeyPath::keys(&["nodes", &node, "routes"]).index(index);
                let own = match addresses.iter().find(|a| a.name == r.to) {
                    _ if r.to == node => Some(format!("`{node}` is node `{node}` itself")),
                    Some(a) if a.node == node => {
                        Some(format!("`{}` is an address of node `{node}` itself", r.to))
                    }
                    Some(_) => None,
                    None if node_set.contains(r.to.as_str()) => None,
                    None => {
                        return Err(self.err(
                            &path.key("to"),
                            format!(
                                "expected the name of a node or of a named address; `{}` is \
                                 neither",
                                r.to
                            ),
                        ))
                    }
                };
                if let Some(what) = own {
                    return Err(self.err(
                        &path.key("to"),
                        format!(
                            "{what}: a static route leads to another node or to another node's \
                             address"
                        ),
                    ));
                }
                if let Some(other) = out[first..].iter().find(|o| o.to == r.to) {
                    return Err(self.err(
                        &path.key("to"),
                        format!(
                            "`{}` already has a route at node `{node}` (routes[{}]): give each \
                             destination one route",
                            r.to, other.index
                        ),
                    ));
                }
                match links.iter().find(|l| l.name == r.via) {
                    None => {
                        return Err(self.err(
                            &path.key("via"),
                            format!(
                                "expected the name of a link of node `{node}`; `{}` is not a link",
                                r.via
                            ),
                        ))
                    }
                    Some(l) if l.a != node && l.b != node => {
                        return Err(self.err(
                            &path.key("via"),
                            format!(
                                "link `{}` joins `{}` and `{}`, not node `{node}`: a static \
                                 route leaves over one of its own node's links",
                                r.via, l.a, l.b
                            ),
                        ))
                    }
                    Some(_) => {}
                }
                out.push(RouteSpec {
                    node: node.clone(),
                    to: r.to,
                    via: r.via,
                    index,
                });
            }
        }
        Ok(out)
    }

    /// Every node's named addresses: names unique among addresses and nodes, links that
    /// exist and attach to the node.
    fn addresses(
        &self,
        raw: Vec<(String, Vec<RawAddress>)>,
        node_set: &HashSet<&str>,
        links: &[LinkSpec],
    ) -> Result<Vec<AddressSpec>> {
        let mut out: Vec<AddressSpec> = Vec::new();
        for (node, list) in raw {
            for (i, a) in list.into_iter().enumerate() {
                let path = KeyPath::keys(&["nodes", &node, "addresses"]).index(i);
                self.check_name(&path.key("name"), &a.name, "address")?;
                if let Some(other) = out.iter().find(|o| o.name == a.name) {
                    return Err(self.err(
                        &path.key("name"),
                        format!(
                            "address name `{}` is already used by node `{}`: address names \
                             are unique in a scenario",
                            a.name, other.node
                        ),
                    ));
                }
                if node_set.contains(a.name.as_str()) {
                    return Err(self.err(
                        &path.key("name"),
                        format!(
                            "`{}` is a node's name; give the address its own name",
                            a.name
                        ),
                    ));
                }
                if let Some(l) = &a.link {
                    match links.iter().find(|x| &x.name == l) {
                        None => {
                            return Err(self.err(
                                &path.key("link"),
                                format!("expected the name of a link; `{l}` is not one"),
                            ))
                        }
                        Some(x) if x.a != node && x.b != node => {
                            return Err(self.err(
                                &path.key("link"),
                                format!(
                                    "link `{l}` joins `{}` and `{}`, not node `{node}`: an \
                                     address is bound to one of its own node's links",
                                    x.a, x.b
                                ),
                            ))
                        }
                        Some(_) => {}
                    }
                }
                out.push(AddressSpec {
                    name: a.name,
                    node: node.clone(),
                    link: a.link,
                });
            }
        }
        Ok(out)
    }

    pub(super) fn check_name(&self, path: &KeyPath, name: &str, what: &str) -> Result<()> {
        if is_bare(name) {
            Ok(())
        } else {
            Err(self.err(
                path,
                format!(
                    "expected a {what} name made of letters, digits, `_` and `-`; got {name:?}"
                ),
            ))
        }
    }

    pub(super) fn check_node(
        &self,
        path: &KeyPath,
        name: &str,
        nodes: &[String],
        node_set: &HashSet<&str>,
    ) -> Result<()> {
        if node_set.contains(name) {
            return Ok(());
        }
        let known = if nodes.is_empty() {
            "there are no [nodes.NAME] tables".to_owned()
        } else {
            let mut list: Vec<&str> = nodes.iter().take(12).map(String::as_str).collect();
            if nodes.len() > 12 {
                list.push("...");
            }
            format!("known nodes: {}", list.join(", "))
        };
        Err(self.err(
            path,
            format!("expected the name of a node; `{name}` is not one ({known})"),
        ))
    }

    /// A discipline that decides at dequeue is a link direction's whole queue, never a class's.
    fn single_queue_only(&self, path: &KeyPath, top: bool) -> Result<()> {
        if top {
            return Ok(());
        }
        use crate::queue::AqmConfig;
        let fifo: Vec<&str> = ["droptail"]
            .into_iter()
            .chain(AqmConfig::FIFO.iter().copied())
            .collect();
        Err(self.err(
            &path.key("kind"),
            format!(
                "expected a FIFO queue ({}) inside a class: {} are a link direction's whole queue",
                super::suggest::listed(&fifo, "or"),
                super::suggest::listed(AqmConfig::DEQUEUE, "and"),
            ),
        ))
    }

    /// A queue table; `top` says whether classes are allowed (not inside a class).
    /// A link's `loss_packets`: an array of packet indices, integers >= 0, strictly increasing.
    fn loss_packets(&self, path: &KeyPath, v: &toml::Value) -> Result<Vec<u64>> {
        let toml::Value::Array(items) = v else {
            return Err(self.err(
                path,
                format!(
                    "expected an array of packet indices, e.g. [17, 40, 41]; got a {}",
                    v.type_str()
                ),
            ));
        };
        let mut out: Vec<u64> = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let at = path.index(i);
            let n = match item {
                toml::Value::Integer(n) if *n >= 0 => *n as u64,
                toml::Value::Integer(n) => {
                    return Err(self.err(
                        &at,
                        format!("expected a packet index, an integer >= 0; got {n}"),
                    ))
                }
                toml::Value::Float(x) => {
                    return Err(self.err(
                        &at,
                        format!("expected a packet index, an integer >= 0; got {x:?}"),
                    ))
                }
                other => {
                    return Err(self.err(
                        &at,
                        format!(
                            "expected a packet index, an integer >= 0; got a {}",
                            other.type_str()
                        ),
                    ))
                }
            };
            if let Some(&prev) = out.last() {
                if n <= prev {
                    return Err(self.err(
                        &at,
                        format!(
                            "expected strictly increasing packet indices: {n} is not above \
                             the previous index {prev}"
                        ),
                    ));
                }
            }
            out.push(n);
        }
        Ok(out)
    }

    fn queue(&self, path: &KeyPath, mut q: RawQueue, top: bool) -> Result<QueueSpec> {
        let only = |allowed: &[&str], q: &RawQueue| -> Result<()> {
            let own = [
                ("limit", q.limit.is_some()),
                ("ns2_limit", q.ns2_limit.is_some()),
                ("classes", q.classes.is_some()),
            ];
            for (key, present) in own.into_iter().chain(q.discipline_tables()) {
                if present && !allowed.contains(&key) {
                    return Err(self.err(
                        &path.key(key),
                        format!(
                            "`{key}` does not belong to this kind of queue; it takes: kind{}",
                            allowed.iter().map(|k| format!(", {k}")).collect::<String>()
                        ),
                    ));
                }
            }
            Ok(())
        };
        let scheduler = match q.kind {
            RawQueueKind::DropTail => {
                only(&["limit", "ns2_limit"], &q)?;
                return Ok(QueueSpec::DropTail {
                    limit: q
                        .limit
                        .unwrap_or(QueueLimit::Packets(DEFAULT_QUEUE_PACKETS)),
                    ns2_limit: q.ns2_limit.unwrap_or(false),
                });
            }
            RawQueueKind::Registered(name) => {
                only(&[name], &q)?;
                let cfg = q
                    .take_config(name)
                    .expect("a registered kind has a sub-table");
                if cfg.decides_at_dequeue() {
                    self.single_queue_only(path, top)?;
                }
                cfg.validate().map_err(|(k, m)| {
                    let mut p = path.key(name);
                    for part in k.split('.') {
                        p = p.key(part);
                    }
                    self.err(&p, m)
                })?;
                return Ok(QueueSpec::Aqm(cfg));
            }
            RawQueueKind::Wrr => SchedulerSpec::Wrr,
            RawQueueKind::Priority => SchedulerSpec::Priority,
        };
        only(&["classes"], &q)?;
        if !top {
            return Err(self.err(
                &path.key("kind"),
                "expected a single queue (droptail) inside a class; classes do not nest",
            ));
        }
        if q.limit.is_some() {
            return Err(self.err(
                &path.key("limit"),
                "a classful queue has no limit of its own; give each class's queue a limit",
            ));
        }
        let Some(raw) = q.classes.filter(|c| !c.is_empty()) else {
            return Err(self.err(&path.key("classes"), "expected at least one class: classes = [{ name = \"ef\", dscp = [46], weight = 1, queue = { kind = \"droptail\", limit = 50 } }, ...]"));
        };
        let mut classes = Vec::with_capacity(raw.len());
        let mut defaults = 0;
        for (i, c) in raw.into_iter().enumerate() {
            let cp = path.key("classes").index(i);
            if c.name.is_empty() || classes.iter().any(|x: &ClassSpec| x.name == c.name) {
                return Err(self.err(
                    &cp.key("name"),
                    format!(
                        "expected a non-empty class name used once; got {:?}",
                        c.name
                    ),
                ));
            }
            if let Some(&d) = c.dscp.iter().find(|&&d| d > 63) {
                return Err(self.err(
                    &cp.key("dscp"),
                    format!("expected code points 0 to 63; got {d}"),
                ));
            }
            defaults += c.dscp.is_empty() as usize;
            let weight = match (scheduler, c.weight) {
                (SchedulerSpec::Wrr, None) => {
                    return Err(self.err(
                        &cp,
                        "expected `weight`, a positive number of packets per round",
                    ))
                }
                (SchedulerSpec::Wrr, Some(w)) if w <= 0 || w > u32::MAX as i64 => {
                    return Err(self.err(
                        &cp.key("weight"),
                        format!("expected a positive weight; got {w}"),
                    ))
                }
                (SchedulerSpec::Wrr, Some(w)) => w as u32,
                (SchedulerSpec::Priority, Some(_)) => {
                    return Err(self.err(
                        &cp.key("weight"),
                        "a priority class has no weight: classes are served in order",
                    ))
                }
                (SchedulerSpec::Priority, None) => 1,
            };
            let Some(inner) = c.queue else {
                return Err(self.err(&cp, "expected `queue`, the class's own queue, e.g. queue = { kind = \"droptail\", limit = 50 }"));
            };
            let queue = self.queue(&cp.key("queue"), *inner, false)?;
            classes.push(ClassSpec {
                name: c.name,
                dscps: c.dscp,
                weight,
                queue,
            });
        }
        if defaults > 1 {
            return Err(self.err(
                &path.key("classes"),
                "expected at most one default class (a class without `dscp`)",
            ));
        }
        Ok(QueueSpec::Classful { scheduler, classes })
    }

    fn link(
        &self,
        name: String,
        l: RawLink,
        item: Option<&toml_edit::Item>,
        nodes: &[String],
        node_set: &HashSet<&str>,
        duration: Dur,
    ) -> Result<LinkSpec> {
        let path = KeyPath::keys(&["links", &name]);
        self.link_at(path, name, l, item, nodes, node_set, duration)
    }

    /// [`Ctx::link`] with errors at `path` (a generated link's template: `topology.host_link`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn link_at(
        &self,
        path: KeyPath,
        name: String,
        l: RawLink,
        item: Option<&toml_edit::Item>,
        nodes: &[String],
        node_set: &HashSet<&str>,
        duration: Dur,
    ) -> Result<LinkSpec> {
        self.check_name(&path, &name, "link")?;
        let (row, own) = self.pick_kind(&path, "link", item, fields_of::<RawLink>(), LINK_KINDS)?;
        let kind = (row.load)(&LinkInput {
            cx: self,
            path: &path,
            common: &l,
            own,
        })?;
        self.check_node(&path.key("a"), &l.a, nodes, node_set)?;
        self.check_node(&path.key("b"), &l.b, nodes, node_set)?;
        if let LinkKind::Radio(RadioSpec {
            shared: Some(sh),
            downlink,
            ..
        }) = &kind
        {
            let bs = if *downlink == ErrorDirection::BToA {
                &l.b
            } else {
                &l.a
            };
            for (i, m) in sh.mobiles.iter().enumerate() {
                let p = path.key("shared_channel").key("mobiles").index(i);
                self.check_node(&p, m, nodes, node_set)?;
                if m == bs {
                    return Err(self.err(
                        &p,
                        format!(
                            "`{m}` is the base station (the downlink's sending end), not a mobile"
                        ),
                    ));
                }
            }
        }
        if l.a == l.b {
            return Err(self.err(
                &path.key("b"),
                format!(
                    "expected a node other than a = `{}`: a link joins two different nodes",
                    l.a
                ),
            ));
        }
        if l.rate.as_bps() == 0 {
            return Err(self.err(
                &path.key("rate"),
                "expected a positive rate, e.g. \"10Mbps\"; got 0",
            ));
        }
        let queue = match l.queue {
            None => QueueSpec::DropTail {
                limit: QueueLimit::Packets(DEFAULT_QUEUE_PACKETS),
                ns2_limit: false,
            },
            Some(q) => self.queue(&path.key("queue"), q, true)?,
        };
        let queue_ba = match l.queue_ba {
            None => None,
            Some(q) => Some(self.queue(&path.key("queue_ba"), q, true)?),
        };
        let loss = l.loss.unwrap_or(0.0);
        if !(0.0..=1.0).contains(&loss) {
            return Err(self.err(
                &path.key("loss"),
                format!("expected a probability in [0, 1]; got {loss}"),
            ));
        }
        let ber = l.ber.unwrap_or(0.0);
        if !(0.0..1.0).contains(&ber) {
            return Err(self.err(
                &path.key("ber"),
                format!("expected a bit error rate in [0, 1), e.g. 1e-6; got {ber}"),
            ));
        }
        let loss_packets = match &l.loss_packets {
            None => Vec::new(),
            Some(v) => self.loss_packets(&path.key("loss_packets"), v)?,
        };
        let cost_of = |key: &str, v: &toml::Value| match v {
            toml::Value::Integer(c) if (1..=u32::MAX as i64).contains(c) => Ok(*c as u32),
            v => {
                let got = match v {
                    toml::Value::Integer(c) => c.to_string(),
                    toml::Value::Float(c) => format!("{c:?}"),
                    toml::Value::String(c) => format!("a string {c:?}"),
                    other => format!("a {}", other.type_str()),
                };
                Err(self.err(
                    &path.key(key),
                    format!(
                        "expected a positive integer cost (1 to {}), e.g. 10; got {got}",
                        u32::MAX
                    ),
                ))
            }
        };
        let cost = match &l.cost {
            None => crate::net::DEFAULT_COST,
            Some(v) => cost_of("cost", v)?,
        };
        let cost_ba = match &l.cost_ba {
            None => cost,
            Some(v) => cost_of("cost_ba", v)?,
        };
        let mut outages = Vec::with_capacity(l.outages.len());
        for (i, o) in l.outages.iter().enumerate() {
            if o.from >= o.to {
                return Err(self.err(
                    &path.key("outages").index(i).key("to"),
                    format!("expected `to` later than `from` ({}); got {}", o.from, o.to),
                ));
            }
            // An outage may last past the end of the run, but must begin within it.
            if o.from >= duration {
                return Err(self.err(
                    &path.key("outages").index(i).key("from"),
                    format!(
                        "expected a time before the end of the run (simulation.duration = \
                         {duration}); got {}",
                        o.from
                    ),
                ));
            }
            outages.push((Time(o.from.as_nanos()), Time(o.to.as_nanos())));
        }
        let mut rate_steps: Vec<RateStep> = Vec::with_capacity(l.rate_steps.len());
        for (i, r) in l.rate_steps.iter().enumerate() {
            let at = Time(r.at.as_nanos());
            let p = path.key("rate_steps").index(i);
            if r.rate.as_bps() == 0 {
                return Err(self.err(
                    &p.key("rate"),
                    "expected a positive rate, e.g. \"1.6Mbps\"; got 0",
                ));
            }
            if r.at >= duration {
                return Err(self.err(
                    &p.key("at"),
                    format!(
                        "expected a time before the end of the run (simulation.duration = \
                         {duration}); got {}",
                        r.at
                    ),
                ));
            }
            if let Some(prev) = rate_steps.last() {
                if at <= prev.at {
                    return Err(self.err(
                        &p.key("at"),
                        format!(
                            "expected rate steps in increasing time order: {} is not after \
                             the previous step's {}",
                            r.at,
                            Dur::from_nanos(prev.at.as_nanos())
                        ),
                    ));
                }
            }
            rate_steps.push(RateStep {
                at,
                rate: r.rate,
                direction: r.direction.unwrap_or(ErrorDirection::Both),
            });
        }
        let queue_report = match &l.queue_report {
            None => None,
            Some(q) => {
                let wire_bytes = q.wire_bytes.unwrap_or(0);
                if wire_bytes > MAX_QUEUE_REPORT_BYTES {
                    return Err(self.err(
                        &path.key("queue_report").key("wire_bytes"),
                        format!(
                            "expected at most {MAX_QUEUE_REPORT_BYTES} bytes for the report on \
                             the wire (spec 2's option is 4); got {wire_bytes}"
                        ),
                    ));
                }
                Some(QueueReportSpec {
                    direction: q.direction.unwrap_or_default(),
                    wire_bytes,
                })
            }
        };
        let rate_process = match &l.rate_process {
            None => None,
            Some(r) => {
                let p = path.key("rate_process");
                for (key, rate) in [("good_rate", r.good_rate), ("bad_rate", r.bad_rate)] {
                    if rate.as_bps() == 0 {
                        return Err(self.err(
                            &p.key(key),
                            "expected a positive rate, e.g. \"1Mbps\"; got 0",
                        ));
                    }
                }
                for (key, d) in [("mean_good", r.mean_good), ("mean_bad", r.mean_bad)] {
                    if d == Dur::ZERO {
                        return Err(self.err(
                            &p.key(key),
                            "expected a positive mean sojourn time, e.g. \"5s\"; got 0",
                        ));
                    }
                }
                Some((
                    crate::wireless::TwoStateRateConfig {
                        good_rate: r.good_rate,
                        bad_rate: r.bad_rate,
                        mean_good: r.mean_good,
                        mean_bad: r.mean_bad,
                    },
                    r.direction.unwrap_or(ErrorDirection::Both),
                ))
            }
        };
        let mut spec = LinkSpec {
            name,
            kind,
            a: l.a,
            b: l.b,
            rate: l.rate,
            delay: l.delay,
            queue,
            queue_ba,
            loss,
            ber,
            errors: l.errors.unwrap_or_default(),
            loss_position: l.loss_position.unwrap_or_default(),
            loss_packets,
            outages,
            outage_policy: l.outage_policy.unwrap_or_default(),
            rate_steps,
            diffserv_edge: l.diffserv_edge,
            queue_report,
            rate_process,
            cost,
            cost_ba,
        };
        spec.fold_kind();
        Ok(spec)
    }

    fn flow(
        &self,
        name: &str,
        f: RawFlow,
        (item, raw): (Option<&toml_edit::Item>, Option<&toml::Table>),
        nodes: &[String],
        node_set: &HashSet<&str>,
        defaults: &Defaults,
    ) -> Result<FlowTable> {
        let path = KeyPath::keys(&["flows", name]);
        self.check_name(&path, name, "flow")?;
        let (row, own) = self.pick_kind(&path, "flow", item, fields_of::<RawFlow>(), FLOW_KINDS)?;
        self.check_node(&path.key("from"), &f.from, nodes, node_set)?;
        self.check_node(&path.key("to"), &f.to, nodes, node_set)?;
        if f.from == f.to {
            return Err(self.err(
                &path.key("to"),
                format!(
                    "expected a node other than from = `{}`: a flow joins two different nodes",
                    f.from
                ),
            ));
        }
        let kind = (row.load)(&FlowInput {
            cx: self,
            name,
            path: &path,
            common: &f,
            own,
            raw,
            defaults,
        })?;
        let start = Time(f.start.unwrap_or(Dur::ZERO).as_nanos());
        let stop = f.stop.map(|d| Time(d.as_nanos()));
        if let Some(stop) = stop {
            if stop <= start {
                return Err(self.err(
                    &path.key("stop"),
                    format!(
                        "expected a time later than start ({}); got {}",
                        Dur(start.as_nanos()),
                        Dur(stop.as_nanos())
                    ),
                ));
            }
        }
        let end = Time::ZERO + defaults.duration;
        if start >= end {
            return Err(self.err(
                &path.key("start"),
                format!(
                    "expected a time before the end of the run (simulation.duration = {}); got {}",
                    defaults.duration,
                    Dur(start.as_nanos())
                ),
            ));
        }
        if let Some(stop) = stop.filter(|&s| s > end) {
            return Err(self.err(
                &path.key("stop"),
                format!(
                    "expected a time no later than the end of the run (simulation.duration = \
                     {}); got {}",
                    defaults.duration,
                    Dur(stop.as_nanos())
                ),
            ));
        }
        let count = f.count.unwrap_or(1);
        if !(1..=MAX_FLOW_COUNT).contains(&count) {
            return Err(self.err(
                &path.key("count"),
                format!("expected 1 to {MAX_FLOW_COUNT} copies; got {count}"),
            ));
        }
        let dscp = match f.dscp {
            None => 0,
            Some(d) if (0..=63).contains(&d) => d as u8,
            Some(d) => {
                return Err(self.err(
                    &path.key("dscp"),
                    format!(
                    "expected a code point from 0 to 63 (EF = 46, AF11 = 10, AF12 = 12); got {d}"
                ),
                ))
            }
        };
        if let Some(ds) = &f.diffserv {
            ds.validate().map_err(|(k, m)| {
                let mut p = path.key("diffserv");
                for part in k.split('.') {
                    p = p.key(part);
                }
                self.err(&p, m)
            })?;
        }
        let stagger = f.stagger.unwrap_or(Dur::ZERO);
        // Computed without saturating: a last start past the clock's range is an error too.
        let last_start = stagger
            .as_nanos()
            .checked_mul(count as u64 - 1)
            .and_then(|d| d.checked_add(start.as_nanos()))
            .map(Time);
        let Some(last_start) = last_start.filter(|&t| t < end) else {
            return Err(self.err(
                &path.key("stagger"),
                format!(
                    "the last copy ({name}_{}) would start at start + {} x stagger, not before \
                     the end of the run (simulation.duration = {})",
                    count - 1,
                    count - 1,
                    defaults.duration
                ),
            ));
        };
        if let Some(stop) = stop {
            if last_start >= stop {
                return Err(self.err(
                    &path.key("stagger"),
                    format!(
                        "the last copy ({name}_{}) would start at {}, not before stop ({})",
                        count - 1,
                        Dur(last_start.as_nanos()),
                        Dur(stop.as_nanos())
                    ),
                ));
            }
        }
        // The jitter delays each copy's start by up to `start_jitter`: the latest start must
        // still come before the end of the run and before `stop`.
        let start_jitter = f.start_jitter.unwrap_or(Dur::ZERO);
        if start_jitter > Dur::ZERO {
            let latest = last_start
                .as_nanos()
                .checked_add(start_jitter.as_nanos())
                .map(Time);
            let limit = stop.map_or(end, |s| s.min(end));
            if latest.is_none_or(|t| t >= limit) {
                return Err(self.err(
                    &path.key("start_jitter"),
                    format!(
                        "the last copy could start at {} + start_jitter ({start_jitter}), \
                         not before {}",
                        Dur(last_start.as_nanos()),
                        match stop {
                            Some(s) if s < end => format!("stop ({})", Dur(s.as_nanos())),
                            _ => format!(
                                "the end of the run (simulation.duration = {})",
                                defaults.duration
                            ),
                        }
                    ),
                ));
            }
        }
        let mut table = FlowTable {
            table: name.to_owned(),
            count,
            stagger,
            first: FlowSpec {
                name: String::new(),
                from: f.from,
                to: f.to,
                start,
                start_jitter,
                stop,
                dscp,
                diffserv: f.diffserv,
                kind,
            },
            ends: None,
        };
        table.first.name = table.copy_name(0);
        Ok(table)
    }

    /// A defaults table (`[tcp]`, `[sctp]`) overlaid key by key with the flow's own table of
    /// the same name, then validated.
    pub(super) fn merge_config<T: serde::de::DeserializeOwned>(
        &self,
        name: &str,
        path: &KeyPath,
        table: &str,
        defaults_raw: &toml::Table,
        own: &toml::Table,
        validate: impl Fn(&T) -> std::result::Result<(), (&'static str, String)>,
    ) -> Result<T> {
        let tcp_path = path.key(table);
        let mut merged = defaults_raw.clone();
        for (k, v) in own {
            merged.insert(k.clone(), v.clone());
        }
        // Both halves were deserialized on their own already, so this only fails on a bug.
        let cfg: T = toml::Value::Table(merged)
            .try_into()
            .map_err(|e: toml::de::Error| self.err(&tcp_path, e.message().trim().to_owned()))?;
        validate(&cfg).map_err(|(key, msg)| {
            // A nested key (`bs_buffer.w_max`) belongs to the table that holds its first part.
            let top = key.split('.').next().unwrap_or(key);
            let p = if own.contains_key(top) || !defaults_raw.contains_key(top) {
                tcp_path.dotted(key)
            } else {
                KeyPath::keys(&[table]).dotted(key)
            };
            self.err(
                &p,
                format!(
                    "{msg} ({} configuration of flow `{name}`)",
                    table.to_uppercase()
                ),
            )
        })?;
        Ok(cfg)
    }
}

impl Ctx<'_> {
    /// The `[tcp]` or `[sctp]` defaults under a profile: the profile's options for `which`
    /// (`base`), overridden key by key by the file's table `name`; also the merged raw table
    /// (what a flow's own table is merged over). Without profile options, the file's table as
    /// parsed.
    fn with_profile<T: serde::de::DeserializeOwned + Default>(
        &self,
        base: toml::Table,
        which: ProfileTable,
        name: &str,
        table: &toml::Table,
        parsed: Option<T>,
    ) -> Result<(T, toml::Table)> {
        let mut own = table
            .get(name)
            .and_then(|t| t.as_table())
            .cloned()
            .unwrap_or_default();
        // `[sctp] rfc = N` fills the preset's keys the table does not set (over the profile's).
        if which == ProfileTable::Sctp {
            SctpConfig::expand_rfc(&mut own)
                .map_err(|m| self.err(&KeyPath::keys(&[name, "rfc"]), m))?;
        }
        if base.is_empty() && !own.contains_key("rfc") {
            return Ok((parsed.unwrap_or_default(), own));
        }
        let mut merged = base;
        for (k, v) in own {
            merged.insert(k.clone(), v.clone());
        }
        // The file's table was deserialised on its own already, so this fails only on a bug.
        let cfg: T =
            toml::Value::Table(merged.clone())
                .try_into()
                .map_err(|e: toml::de::Error| {
                    self.err(&KeyPath::keys(&[name]), e.message().trim().to_owned())
                })?;
        Ok((cfg, merged))
    }
}

/// `msg`, plus where the value came from when `key` was set by the profile, not the file.
fn profile_note(
    profile: Profile,
    which: ProfileTable,
    table: &toml::Table,
    name: &str,
    key: &str,
    msg: String,
) -> String {
    let top = key.split('.').next().unwrap_or(key);
    let in_file = table
        .get(name)
        .and_then(|t| t.as_table())
        .is_some_and(|t| t.contains_key(top));
    if !in_file && profile.table(which).contains_key(top) {
        format!("{msg} (`{top}` set by profile = \"{}\")", profile.name())
    } else {
        msg
    }
}

/// The defaults a flow table is merged with, and the scenario's named addresses.
pub(super) struct Defaults<'a> {
    /// `[tcp]`, validated.
    pub tcp: &'a TcpConfig,
    /// `[tcp]` as the file writes it (no profile options).
    pub tcp_file: &'a toml::Table,
    /// The file's `profile`, if it sets one (a flow's table resolves under it or under the
    /// one its variant implies: `TcpProfile::resolve`).
    pub profile: Option<Profile>,
    /// `[sctp]`, validated.
    pub sctp: &'a SctpConfig,
    /// `[sctp]` as written.
    pub sctp_raw: &'a toml::Table,
    /// Every named address.
    pub addresses: &'a [AddressSpec],
    /// `simulation.duration`: flows start (and stop) within the run.
    pub duration: Dur,
}

/// Serde names our schema structs (`struct RawLink`); the user sees tables.
fn table_not_struct(msg: &str) -> String {
    match msg.find("struct ") {
        Some(i) => {
            let rest = &msg[i + "struct ".len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            format!("{}a table{}", &msg[..i], &rest[end..])
        }
        None => msg.to_owned(),
    }
}

/// The text between `prefix` (at the start of `s`) and the next `end`.
fn between<'s>(s: &'s str, prefix: &str, end: &str) -> Option<&'s str> {
    let rest = s.strip_prefix(prefix)?;
    rest.find(end).map(|i| &rest[..i])
}
