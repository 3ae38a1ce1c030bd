//! `kind = "sctp"`: an SCTP association carrying a bulk transfer or a file, possibly
//! multihomed. Keys: `sctp` (SctpConfig keys over `[sctp]`, merged key by key),
//! `from_addresses`, `to_addresses`, `primary`, `app`, `size`. `stop` is not supported yet.

use super::{app_data, FlowBuild, FlowInput, FlowKindRow, RawApp};
use crate::ids::Addr;
use crate::scenario::kinds::fields_of;
use crate::scenario::{BuildError, FlowKind, ScenarioError};
use crate::transport::sctp::SctpConfig;
use crate::units;
use crate::world::World;
use serde::Deserialize;

/// The registry row.
pub(super) const KIND: FlowKindRow = FlowKindRow {
    name: "sctp",
    keys: fields_of::<Keys>,
    load,
    add,
};

/// An sctp flow's own keys.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    /// The flow's SctpConfig keys (merged over `[sctp]`).
    #[serde(default)]
    #[allow(dead_code)] // read for its located errors; the merge reads the table as written
    sctp: Option<SctpConfig>,
    /// The client's addresses by name (default: the node's primary one).
    #[serde(default)]
    from_addresses: Option<Vec<String>>,
    /// The server's addresses by name (default: the node's primary one).
    #[serde(default)]
    to_addresses: Option<Vec<String>>,
    /// One of `to_addresses` (default: the first).
    #[serde(default)]
    primary: Option<String>,
    /// `bulk` (default) or `file`.
    #[serde(default)]
    app: Option<RawApp>,
    /// The file size with `app = "file"`, bytes.
    #[serde(default, with = "units::bytes::opt")]
    size: Option<u64>,
}

fn load(f: &FlowInput) -> Result<FlowKind, ScenarioError> {
    let Keys {
        sctp: _,
        from_addresses,
        to_addresses,
        primary,
        app,
        size,
    } = f.keys()?;
    let app = f.app(app, size)?;
    if f.common.stop.is_some() {
        return Err(f.err(
            "stop",
            "`stop` is not supported on sctp flows yet: an association sends its \
             whole file (app = \"file\") or runs to the end of the simulation",
        ));
    }
    let d = f.defaults;
    let sctp = match f.raw_table("sctp") {
        None => d.sctp.clone(),
        Some(own) => {
            // A flow's `rfc = N` fills the preset's keys this table does not set.
            let mut own = own.clone();
            SctpConfig::expand_rfc(&mut own)
                .map_err(|m| f.cx.err(&f.path.key("sctp").key("rfc"), m))?;
            f.cx.merge_config(
                f.name,
                f.path,
                "sctp",
                d.sctp_raw,
                &own,
                |c: &SctpConfig| c.validate(),
            )?
        }
    };
    let pick = |key: &str, node: &str, list: Option<Vec<String>>| {
        let list = list.unwrap_or_default();
        for (i, a) in list.iter().enumerate() {
            let at = f.path.key(key).index(i);
            match d.addresses.iter().find(|x| &x.name == a) {
                Some(x) if x.node == node => {}
                Some(x) => {
                    return Err(f.cx.err(
                        &at,
                        format!(
                            "address `{a}` belongs to node `{}`, not to `{node}`",
                            x.node
                        ),
                    ))
                }
                None => {
                    return Err(f.cx.err(
                        &at,
                        format!(
                            "expected the name of an address of node `{node}` (declared in \
                             [nodes.{node}] addresses); `{a}` is not one"
                        ),
                    ))
                }
            }
            if list[..i].contains(a) {
                return Err(f.cx.err(&at, format!("address `{a}` is listed twice")));
            }
        }
        Ok(list)
    };
    let from_addresses = pick("from_addresses", &f.common.from, from_addresses)?;
    let to_addresses = pick("to_addresses", &f.common.to, to_addresses)?;
    let primary = match &primary {
        None => 0,
        Some(p) => to_addresses.iter().position(|a| a == p).ok_or_else(|| {
            f.err(
                "primary",
                if to_addresses.is_empty() {
                    format!(
                        "`primary` needs `to_addresses`: expected one of the peer's \
                         addresses; `{p}` is not one"
                    )
                } else {
                    format!(
                        "expected one of the peer's addresses ({}); `{p}` is not one",
                        to_addresses.join(", ")
                    )
                },
            )
        })?,
    };
    Ok(FlowKind::Sctp {
        app,
        sctp,
        from_addresses,
        to_addresses,
        primary,
    })
}

fn add(world: &mut World, b: &FlowBuild) -> Result<(), BuildError> {
    let FlowKind::Sctp {
        app,
        sctp,
        from_addresses,
        to_addresses,
        primary,
    } = &b.spec.kind
    else {
        unreachable!("the sctp row adds sctp flows only")
    };
    let local: Vec<Addr> = from_addresses.iter().map(|a| b.addrs[a.as_str()]).collect();
    let peer: Vec<Addr> = to_addresses.iter().map(|a| b.addrs[a.as_str()]).collect();
    // Every address pair the association may use must be routable both ways:
    // destination i is reached from local i (or the first local address).
    for (i, &p) in peer.iter().enumerate() {
        let l = local.get(i).or(local.first()).copied();
        let from_ok = world.net.reachable(b.at.from, p);
        let back_ok = l.is_none_or(|l| world.net.reachable(b.at.to, l));
        if !from_ok || !back_ok {
            return Err(b.err(
                &format!("to_addresses[{i}]"),
                format!(
                    "no path between {:?} and address {:?}: the links do not connect them",
                    b.spec.from, to_addresses[i]
                ),
            ));
        }
    }
    world.add_sctp_flow(
        &b.spec.name,
        b.at,
        sctp,
        local,
        peer,
        *primary,
        app_data(app),
        b.seed,
    );
    Ok(())
}
