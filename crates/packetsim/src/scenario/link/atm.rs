//! `kind = "atm"` (study 1, spec 1 §2.1-2.3): a slotted cell link. Each direction is the
//! output port of a cell switch with its AAL5 adapters (`atm::port`): packets become AAL5
//! frames, one virtual circuit per flow, one cell per slot per VC into the switch, one cell
//! per slot out; a frame that lost a cell is discarded (`cell_loss`). The slot is the time of
//! one 53-byte cell at the common `rate` (`rate = "21.2Mbps"` gives spec 1's 20 µs slot;
//! `"149.82Mbps"` about 2.83 µs); `delay` is added after a frame's last cell leaves.
//!
//! Own keys (both directions alike):
//! - `switch_buffer`: B, the switch buffer in cells (default 1000, spec §3.1).
//! - `discard`: `"plain"` (default), `"ppd"`, `"epd"` or `"packet"` (spec §2.3; `packet`
//!   admits whole packets only: the packet-switch reference of Fig. 1).
//! - `epd_threshold`: T in cells, `1 <= T < B` (default B / 2, spec §3.2); only with `epd`.
//! - `keep_eof`: admit a damaged frame's end-of-frame cell (ATM Forum) instead of dropping it
//!   (YATS, default false; spec §6 Q6); only with `ppd` or `epd`.
//! - `arrival_order`: `"random"` (default, YATS: same-slot cells in an order drawn from the
//!   link's seeded stream) or `"port"` (VC order).
//! - `reverse_path`: the b→a direction is `"switch"` (default: a switch output like a→b) or
//!   `"per_vc"` (spec 1 §3.1's ACK path, "separate, uncongested, 1 cell/slot": each VC its own
//!   path, [`Output::PerVc`]; the switch keys then apply to a→b only).
//!
//! The common keys that describe a packet transmitter (`queue`, `queue_ba`, `loss`, `ber`,
//! `errors`, `loss_position`, `loss_packets`, `outages`, `outage_policy`, `rate_steps`, `rate_process`, `queue_report`,
//! `diffserv_edge`) have no meaning on a cell link and are refused with a located error.

use super::{LinkBuild, LinkInput, LinkKindRow};
use crate::atm::port::{ArrivalOrder, CellLinkConfig, CellPort, Output};
use crate::atm::switch::{Discard, SwitchConfig};
use crate::atm::CELL_BYTES;
use crate::ids::LinkId;
use crate::net::Net;
use crate::scenario::kinds::fields_of;
use crate::scenario::{AtmSpec, LinkKind, ScenarioError};
use packetsim_kernel::Rng;
use serde::Deserialize;

/// The registry row.
pub(super) const KIND: LinkKindRow = LinkKindRow {
    name: "atm",
    keys: fields_of::<Keys>,
    load,
    add,
};

/// Spec 1 §3.1: B = 1000 cells.
const DEFAULT_BUFFER: u32 = 1000;

/// A cell link's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    #[serde(default)]
    switch_buffer: Option<u32>,
    #[serde(default)]
    discard: Option<DiscardName>,
    #[serde(default)]
    epd_threshold: Option<u32>,
    #[serde(default)]
    keep_eof: Option<bool>,
    #[serde(default)]
    arrival_order: Option<ArrivalOrder>,
    #[serde(default)]
    reverse_path: Option<ReversePath>,
}

/// The b→a direction's kind of output.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum ReversePath {
    Switch,
    PerVc,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum DiscardName {
    Plain,
    Ppd,
    Epd,
    Packet,
}

fn load(l: &LinkInput) -> Result<LinkKind, ScenarioError> {
    let k: Keys = l.keys()?;
    let c = l.common;
    let refused: [(&str, bool); 13] = [
        ("queue", c.queue.is_some()),
        ("queue_ba", c.queue_ba.is_some()),
        ("loss", c.loss.is_some()),
        ("ber", c.ber.is_some()),
        ("errors", c.errors.is_some()),
        ("loss_position", c.loss_position.is_some()),
        ("loss_packets", c.loss_packets.is_some()),
        ("outages", !c.outages.is_empty()),
        ("outage_policy", c.outage_policy.is_some()),
        ("rate_steps", !c.rate_steps.is_empty()),
        ("rate_process", c.rate_process.is_some()),
        ("queue_report", c.queue_report.is_some()),
        ("diffserv_edge", c.diffserv_edge.is_some()),
    ];
    if let Some((key, _)) = refused.iter().find(|(_, set)| *set) {
        return Err(l.err(
            key,
            format!(
                "not allowed on atm links: a cell link's buffer and losses are its switch's \
                 (`switch_buffer`, `discard`); remove `{key}`"
            ),
        ));
    }
    if c.rate.as_bps() == 0 {
        return Err(l.err(
            "rate",
            "expected a positive rate on an atm link (it sets the slot)",
        ));
    }
    let buffer = k.switch_buffer.unwrap_or(DEFAULT_BUFFER);
    if buffer == 0 {
        return Err(l.err("switch_buffer", "expected at least 1 cell; got 0"));
    }
    let discard = k.discard.unwrap_or(DiscardName::Plain);
    if k.epd_threshold.is_some() && discard != DiscardName::Epd {
        return Err(l.err(
            "epd_threshold",
            "only allowed with discard = \"epd\" (the threshold is EPD's)",
        ));
    }
    if k.keep_eof.is_some() && !matches!(discard, DiscardName::Ppd | DiscardName::Epd) {
        return Err(l.err(
            "keep_eof",
            "only allowed with discard = \"ppd\" or \"epd\" (it says what PPD does with a \
             damaged frame's last cell)",
        ));
    }
    let keep_eof = k.keep_eof.unwrap_or(false);
    let discard = match discard {
        DiscardName::Plain => Discard::Plain,
        DiscardName::Packet => Discard::Packet,
        DiscardName::Ppd => Discard::Ppd { keep_eof },
        DiscardName::Epd => {
            let threshold = k.epd_threshold.unwrap_or(buffer / 2);
            if threshold == 0 || threshold >= buffer {
                return Err(l.err(
                    "epd_threshold",
                    format!("expected 1 <= T < switch_buffer = {buffer} cells; got {threshold}"),
                ));
            }
            Discard::Epd {
                threshold,
                keep_eof,
            }
        }
    };
    let switch = SwitchConfig {
        buffer,
        discard,
        vcs: 1,
    };
    Ok(LinkKind::Atm(AtmSpec {
        port: CellLinkConfig {
            slot: c.rate.tx_time(CELL_BYTES),
            switch,
            order: k.arrival_order.unwrap_or_default(),
            output: Output::Switch,
        },
        reverse: match k.reverse_path {
            None | Some(ReversePath::Switch) => Output::Switch,
            Some(ReversePath::PerVc) => Output::PerVc,
        },
    }))
}

/// A point-to-point link whose two directions are then made cell links.
fn add(net: &mut Net, b: &LinkBuild) -> LinkId {
    let LinkKind::Atm(spec) = &b.spec.kind else {
        unreachable!("the atm row builds atm links")
    };
    let id = (super::point_to_point::KIND.add)(net, b);
    let (ab, ba) = (net.links[id.idx()].ab, net.links[id.idx()].ba);
    for (e, output) in [(ab, Output::Switch), (ba, spec.reverse)] {
        let egress = &mut net.egresses[e.idx()];
        let rng = Rng::for_component(b.seed, &format!("cells.{}", egress.name));
        egress.set_cells(CellPort::new(
            CellLinkConfig {
                output,
                ..spec.port
            },
            rng,
        ));
    }
    id
}
