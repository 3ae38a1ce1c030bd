//! Flow kinds: one file per `kind = "..."` of a `[flows.NAME]` table, and the registry
//! [`FLOW_KINDS`] that maps the name to it.
//!
//! A flow table has common keys (`from`, `to`, `start`, `stop`, `count`, `stagger`, `dscp`,
//! `diffserv`: `schema::RawFlow`, read with the whole file) and its kind's own keys. Each kind
//! file declares its own keys as a serde struct (`deny_unknown_fields`; the struct's fields
//! are the kind's key list, see `kinds::fields_of`), validates them with errors naming the
//! key ([`FlowInput`]), yields its [`FlowKind`] variant, and adds the flow to the `World` at
//! build ([`FlowBuild`]). The loader rejects a key that no kind reads ("unknown key") and a
//! key of another kind ("`rate` is only allowed on cbr flows") from these lists, so no kind
//! writes those checks by hand.
//!
//! The kinds live here, not beside their transport (`transport::sctp`), because their keys
//! name scenario things (nodes, named addresses, the `[tcp]`/`[sctp]` defaults) and their
//! build step uses the `World`: the transport layer stays free of both.
//!
//! A new kind: a file here with its keys struct, `load`, `add` and a `KIND` row; its variant
//! in [`FlowKind`] (`scenario/mod.rs`); a row in [`FLOW_KINDS`] and an arm in
//! [`FlowKind::row`] (the compiler asks for the arm). `docs/extending.md` has the steps.

mod cbr;
mod sctp;
pub(super) mod tcp;

use super::error::ScenarioError;
use super::kinds::KindRow;
use super::load::{Ctx, Defaults};
use super::locate::KeyPath;
use super::schema::RawFlow;
use super::{App, BuildError, FlowKind, FlowSpec};
use crate::ids::Addr;
use crate::transport::tcp::AppData;
use crate::world::{FlowPlacement, World};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::HashMap;
use toml_edit::InlineTable;

/// The flow kinds, by `kind = "..."`; the first is the default.
pub(crate) const FLOW_KINDS: &[FlowKindRow] = &[tcp::KIND, sctp::KIND, cbr::KIND];

impl FlowKind {
    /// This kind's registry row.
    pub(crate) fn row(&self) -> &'static FlowKindRow {
        match self {
            FlowKind::Tcp { .. } => &tcp::KIND,
            FlowKind::Sctp { .. } => &sctp::KIND,
            FlowKind::Cbr { .. } => &cbr::KIND,
        }
    }
}

/// One flow kind: its name, its own keys, how it loads and how it is built.
pub(crate) struct FlowKindRow {
    /// `kind = "..."`.
    pub name: &'static str,
    /// The keys of the kind's own struct (`kinds::fields_of::<Keys>`).
    pub keys: fn() -> &'static [&'static str],
    /// Reads and validates the kind's keys into its [`FlowKind`] variant.
    pub load: fn(&FlowInput) -> Result<FlowKind, ScenarioError>,
    /// Adds a flow of this kind (its spec, as `load` made it) to the world.
    pub add: fn(&mut World, &FlowBuild) -> Result<(), BuildError>,
}

impl KindRow for FlowKindRow {
    fn name(&self) -> &'static str {
        self.name
    }
    fn keys(&self) -> &'static [&'static str] {
        (self.keys)()
    }
}

/// What a kind's `load` gets: the flow's common keys, its own keys and the scenario's
/// defaults and addresses.
pub(crate) struct FlowInput<'a> {
    /// For located errors.
    pub(super) cx: &'a Ctx<'a>,
    /// The flow table's name.
    pub name: &'a str,
    /// `flows.NAME`.
    pub path: &'a KeyPath,
    /// The common keys (already deserialized).
    pub common: &'a RawFlow,
    /// The kind's own keys, as written (spans kept).
    pub(super) own: InlineTable,
    /// The flow table as plain TOML, for key-by-key merges over defaults.
    pub raw: Option<&'a toml::Table>,
    /// `[tcp]`, `[sctp]` and the named addresses.
    pub(super) defaults: &'a Defaults<'a>,
}

impl FlowInput<'_> {
    /// The kind's own keys, deserialized by its struct (errors name the key).
    pub fn keys<T: DeserializeOwned>(&self) -> Result<T, ScenarioError> {
        self.cx.kind_keys(self.path, &self.own)
    }

    /// An error about `key` of this flow.
    pub fn err(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        self.cx.err(&self.path.key(key), message)
    }

    /// The flow's own sub-table `key` as plain TOML (`tcp = { .. }`), if present.
    pub fn raw_table(&self, key: &str) -> Option<&toml::Table> {
        self.raw.and_then(|t| t.get(key)).and_then(|t| t.as_table())
    }

    /// The application from `app` and `size` (kinds that carry a byte stream share these).
    pub fn app(&self, app: Option<RawApp>, size: Option<u64>) -> Result<App, ScenarioError> {
        Ok(match (app.unwrap_or(RawApp::Bulk), size) {
            (RawApp::File, Some(0)) => {
                return Err(self.err(
                    "size",
                    "expected a positive byte count, e.g. \"4MiB\"; got 0",
                ))
            }
            (RawApp::File, Some(bytes)) => App::File { bytes },
            (RawApp::File, None) => {
                return Err(self.err(
                    "size",
                    "missing required key `size`: app = \"file\" needs the file size, \
                     a byte count such as \"4MiB\"",
                ))
            }
            (RawApp::Bulk, Some(_)) => {
                return Err(self.err(
                    "size",
                    "`size` is only allowed with app = \"file\" (bulk transfers are unlimited)",
                ))
            }
            (RawApp::Bulk, None) => App::Bulk,
            (RawApp::Frames | RawApp::Poisson | RawApp::Onoff, _) => {
                return Err(self.err(
                    "app",
                    "app = \"frames\", \"poisson\" and \"onoff\" are available on tcp flows \
                     only; expected \"bulk\" or \"file\"",
                ))
            }
        })
    }
}

/// `app = "bulk" | "file" | "frames" | "poisson" | "onoff"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RawApp {
    /// Unlimited data.
    Bulk,
    /// A file of `size` bytes.
    File,
    /// Blocks into the send buffer with back-pressure (tcp flows only; spec 1 §2.4).
    Frames,
    /// Poisson arrivals of finite transfers (tcp flows only).
    Poisson,
    /// A greedy source switched on and off (tcp flows only).
    Onoff,
}

/// What a kind's `add` gets at build time.
pub(crate) struct FlowBuild<'a> {
    /// The flow, as loaded.
    pub spec: &'a FlowSpec,
    /// Its nodes (routable both ways), start, stop and DSCP.
    pub at: FlowPlacement,
    /// Named addresses, by name.
    pub addrs: &'a HashMap<&'a str, Addr>,
    /// The run seed.
    pub seed: u64,
    /// The end of the run (`simulation.duration`).
    pub until: packetsim_kernel::Time,
    /// The scenario file, for build errors.
    pub origin: &'a str,
}

impl FlowBuild<'_> {
    /// A build error about `key` of this flow (a dotted path below `flows.NAME`).
    pub fn err(&self, key: &str, msg: String) -> BuildError {
        BuildError {
            origin: self.origin.to_owned(),
            at: None,
            key: format!("flows.{}.{key}", self.spec.name),
            msg,
        }
    }
}

/// The application data of `app` for a byte-stream transport.
fn app_data(app: &App) -> AppData {
    match app {
        App::Bulk => AppData::Unlimited,
        App::File { bytes } => AppData::Bytes(*bytes),
        App::Frames { .. } | App::OnOff { .. } | App::Poisson(_) => {
            unreachable!("only the tcp kind loads these applications and builds them")
        }
    }
}
