//! `kind = "cbr"`: a UDP constant-bit-rate source. Keys: `rate` (required), `packet_size`.

use super::{FlowBuild, FlowInput, FlowKindRow};
use crate::scenario::kinds::fields_of;
use crate::scenario::{
    BuildError, FlowKind, ScenarioError, DEFAULT_CBR_PACKET_SIZE, MAX_UDP_PAYLOAD,
};
use crate::units;
use crate::world::World;
use packetsim_kernel::Rate;
use serde::Deserialize;

/// The registry row.
pub(super) const KIND: FlowKindRow = FlowKindRow {
    name: "cbr",
    keys: fields_of::<Keys>,
    load,
    add,
};

/// A cbr flow's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    /// Sending rate, bit/s of whole IP packets (required).
    #[serde(default, with = "units::rate::opt")]
    rate: Option<Rate>,
    /// UDP payload per packet, bytes (default [`DEFAULT_CBR_PACKET_SIZE`]).
    #[serde(default, with = "units::bytes::opt")]
    packet_size: Option<u64>,
}

fn load(f: &FlowInput) -> Result<FlowKind, ScenarioError> {
    let k: Keys = f.keys()?;
    let rate = k.rate.ok_or_else(|| {
        f.err(
            "rate",
            "missing required key `rate`: a cbr flow needs its sending rate, e.g. \"1Mbps\"",
        )
    })?;
    if rate.as_bps() == 0 {
        return Err(f.err("rate", "expected a positive rate, e.g. \"1Mbps\"; got 0"));
    }
    let packet_size = match k.packet_size {
        None => DEFAULT_CBR_PACKET_SIZE,
        Some(n) if (1..=MAX_UDP_PAYLOAD).contains(&n) => n as u32,
        Some(n) => {
            return Err(f.err(
                "packet_size",
                format!("expected a UDP payload of 1 to {MAX_UDP_PAYLOAD} bytes; got {n}"),
            ))
        }
    };
    Ok(FlowKind::Cbr { rate, packet_size })
}

fn add(world: &mut World, b: &FlowBuild) -> Result<(), BuildError> {
    let FlowKind::Cbr { rate, packet_size } = &b.spec.kind else {
        unreachable!("the cbr row adds cbr flows only")
    };
    world.add_cbr_flow(&b.spec.name, b.at, *rate, *packet_size);
    Ok(())
}
