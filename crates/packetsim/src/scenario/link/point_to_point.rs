//! `kind = "point_to_point"` (the default): a full-duplex link whose two directions are plain
//! transmitters, each with the common link keys (rate, delay, queue, errors, schedules). It
//! has no keys of its own.

use super::{LinkBuild, LinkInput, LinkKindRow};
use crate::ids::LinkId;
use crate::net::{DirectionParams, ErrorModel, LossPosition, Net, OutagePolicy};
use crate::scenario::build::queue_disc;
use crate::scenario::kinds::fields_of;
use crate::scenario::{ErrorDirection, LinkKind, QueueSpec, ScenarioError};
use serde::Deserialize;

/// The registry row.
pub(super) const KIND: LinkKindRow = LinkKindRow {
    name: "point_to_point",
    keys: fields_of::<Keys>,
    load,
    add,
};

/// A point-to-point link's own keys: none.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {}

fn load(l: &LinkInput) -> Result<LinkKind, ScenarioError> {
    let Keys {} = l.keys()?;
    Ok(LinkKind::PointToPoint)
}

fn add(net: &mut Net, b: &LinkBuild) -> LinkId {
    let l = b.spec;
    // Blind outages are known intervals of the error model (losses decided exactly);
    // held ones are only link changes (scheduled by the builder).
    let blind_outages = match l.outage_policy {
        OutagePolicy::Blind => l.outages.clone(),
        OutagePolicy::Hold => Vec::new(),
    };
    let lossy = ErrorModel {
        loss: l.loss,
        ber: l.ber,
        outages: blind_outages.clone(),
        before_queue: l.loss_position == LossPosition::BeforeQueue,
        drop_list: l.loss_packets.clone(),
    };
    let clean = ErrorModel {
        outages: blind_outages,
        ..Default::default()
    };
    let (e_ab, e_ba) = match l.errors {
        ErrorDirection::AToB => (lossy, clean),
        ErrorDirection::BToA => (clean, lossy),
        ErrorDirection::Both => (lossy.clone(), lossy),
    };
    let dir = |q: &QueueSpec, errors| DirectionParams {
        rate: l.rate,
        delay: l.delay,
        queue: queue_disc(q, l.rate),
        errors,
    };
    net.add_link(
        &l.name,
        b.a,
        b.b,
        dir(&l.queue, e_ab),
        dir(l.queue_ba.as_ref().unwrap_or(&l.queue), e_ba),
        b.seed,
    )
}
