//! Link kinds: one file per `kind = "..."` of a `[links.NAME]` table, and the registry
//! [`LINK_KINDS`] that maps the name to it.
//!
//! Every link is full duplex between two nodes, and each direction has a transmitter (rate,
//! changeable by `rate_steps`), a propagation delay, an egress queue (`queue`, `queue_ba`), an
//! error model (`loss`, `ber`, `errors`, `outages`, `outage_policy`) and may be a DiffServ
//! edge (`diffserv_edge`). These keys are common to every kind (`schema::RawLink`, read with
//! the whole file; validated in `load.rs`), because a radio link or a cell link has them too.
//! A kind adds its own keys (a serde struct, like the flow kinds in `flow/`), validates them
//! into its [`LinkKind`] variant ([`LinkInput`]) and creates the link in the `Net` at build
//! ([`LinkBuild`]). The loader rejects a key that no kind reads and a key of another kind.
//!
//! `point_to_point` (the default): nothing beyond the common keys. `radio` (spec 2): a base
//! station's radio link, with its downlink report, rate cycle and radio loss (`radio.rs`).
//! `atm` (spec 1): a slotted cell link whose directions are cell switch ports with AAL5
//! adapters (`atm.rs`, `crate::atm::port`). `wifi` (issue 34): a shared 802.11b channel whose
//! stations are `a` (the access point), `b` and `stations` (`wifi.rs`, `crate::wifi`).
//!
//! A new kind: a file here with its keys struct, `load`, `add` and a `KIND` row; its variant
//! in [`LinkKind`] (`scenario/mod.rs`); a row in [`LINK_KINDS`] and an arm in
//! [`LinkKind::row`] (the compiler asks for the arm). `docs/extending.md` has the steps.

mod atm;
mod point_to_point;
mod radio;
pub(crate) mod wifi;

use super::error::ScenarioError;
use super::kinds::KindRow;
use super::load::Ctx;
use super::locate::KeyPath;
use super::schema::RawLink;
use super::{LinkKind, LinkSpec};
use crate::ids::{LinkId, NodeId};
use crate::net::Net;
use serde::de::DeserializeOwned;
use toml_edit::InlineTable;

/// The link kinds, by `kind = "..."`; the first is the default.
pub(crate) const LINK_KINDS: &[LinkKindRow] =
    &[point_to_point::KIND, radio::KIND, atm::KIND, wifi::KIND];

impl LinkKind {
    /// This kind's registry row.
    pub(crate) fn row(&self) -> &'static LinkKindRow {
        match self {
            LinkKind::PointToPoint => &point_to_point::KIND,
            LinkKind::Radio(_) => &radio::KIND,
            LinkKind::Atm(_) => &atm::KIND,
            LinkKind::Wifi(_) => &wifi::KIND,
        }
    }
}

/// One link kind: its name, its own keys, how it loads and how it is built.
pub(crate) struct LinkKindRow {
    /// `kind = "..."`.
    pub name: &'static str,
    /// The keys of the kind's own struct (`kinds::fields_of::<Keys>`).
    pub keys: fn() -> &'static [&'static str],
    /// Reads and validates the kind's keys into its [`LinkKind`] variant.
    pub load: fn(&LinkInput) -> Result<LinkKind, ScenarioError>,
    /// Creates the link (both directions, as the spec says) in the network.
    pub add: fn(&mut Net, &LinkBuild) -> LinkId,
}

impl KindRow for LinkKindRow {
    fn name(&self) -> &'static str {
        self.name
    }
    fn keys(&self) -> &'static [&'static str] {
        (self.keys)()
    }
}

/// What a kind's `load` gets: the link's common keys and its own keys.
pub(crate) struct LinkInput<'a> {
    /// For located errors.
    pub(super) cx: &'a Ctx<'a>,
    /// `links.NAME`.
    pub path: &'a KeyPath,
    /// The common keys (already deserialized).
    pub common: &'a RawLink,
    /// The kind's own keys, as written (spans kept).
    pub(super) own: InlineTable,
}

impl LinkInput<'_> {
    /// The kind's own keys, deserialized by its struct (errors name the key).
    pub fn keys<T: DeserializeOwned>(&self) -> Result<T, ScenarioError> {
        self.cx.kind_keys(self.path, &self.own)
    }

    /// An error about `key` of this link.
    pub fn err(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        self.cx.err(&self.path.key(key), message)
    }
}

/// What a kind's `add` gets at build time.
pub(crate) struct LinkBuild<'a> {
    /// The link, as loaded.
    pub spec: &'a LinkSpec,
    /// The node at end `a`.
    pub a: NodeId,
    /// The node at end `b`.
    pub b: NodeId,
    /// The run seed.
    pub seed: u64,
}
