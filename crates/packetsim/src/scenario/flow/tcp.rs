//! `kind = "tcp"` (the default): a TCP connection carrying a bulk transfer or a file. Keys:
//! `tcp` (TcpConfig keys over `[tcp]`, merged key by key), `app`, `size`.

use super::{app_data, FlowBuild, FlowInput, FlowKindRow, RawApp};
use crate::scenario::kinds::fields_of;
use crate::scenario::{BuildError, FlowKind, ScenarioError};
use crate::transport::tcp::TcpConfig;
use crate::units;
use crate::world::World;
use serde::Deserialize;

/// The registry row.
pub(super) const KIND: FlowKindRow = FlowKindRow {
    name: "tcp",
    keys: fields_of::<Keys>,
    load,
    add,
};

/// A tcp flow's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    /// The flow's TcpConfig keys (merged over `[tcp]`).
    #[serde(default)]
    #[allow(dead_code)] // read for its located errors; the merge reads the table as written
    tcp: Option<TcpConfig>,
    /// `bulk` (default) or `file`.
    #[serde(default)]
    app: Option<RawApp>,
    /// The file size with `app = "file"`, bytes.
    #[serde(default, with = "units::bytes::opt")]
    size: Option<u64>,
}

fn load(f: &FlowInput) -> Result<FlowKind, ScenarioError> {
    let Keys { tcp: _, app, size } = f.keys()?;
    let app = f.app(app, size)?;
    let d = f.defaults;
    let tcp = match f.raw_table("tcp") {
        None => d.tcp.clone(),
        Some(own) => {
            f.cx.merge_config(f.name, f.path, "tcp", d.tcp_raw, own, |c: &TcpConfig| {
                c.validate()
            })?
        }
    };
    Ok(FlowKind::Tcp { app, tcp })
}

fn add(world: &mut World, b: &FlowBuild) -> Result<(), BuildError> {
    let FlowKind::Tcp { app, tcp } = &b.spec.kind else {
        unreachable!("the tcp row adds tcp flows only")
    };
    world.add_tcp_flow(&b.spec.name, b.at, tcp, app_data(app));
    Ok(())
}
