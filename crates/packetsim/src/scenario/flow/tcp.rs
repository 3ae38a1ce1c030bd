//! `kind = "tcp"` (the default): a TCP connection carrying a bulk transfer, a file or study
//! 1's frame source. Keys: `tcp` (TcpConfig keys over `[tcp]`, merged key by key), `app`,
//! `size`, and with `app = "frames"` `frame_size`, `frame_interval`, `resume_below`. The
//! TcpConfig keys `sender_processing`, `sender_processing_jitter` and `receiver_processing`
//! are carried out here, by the hosts' processing elements (`net::processing`).

use super::{app_data, FlowBuild, FlowInput, FlowKindRow, RawApp};
use crate::app::AppSource;
use crate::scenario::kinds::fields_of;
use crate::scenario::{App, BuildError, FlowKind, ScenarioError};
use crate::transport::tcp::TcpConfig;
use crate::units;
use crate::world::World;
use packetsim_kernel::Dur;
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
    /// `bulk` (default), `file` or `frames`.
    #[serde(default)]
    app: Option<RawApp>,
    /// The file size with `app = "file"`, bytes.
    #[serde(default, with = "units::bytes::opt")]
    size: Option<u64>,
    /// `app = "frames"`: bytes per block (default 9180).
    #[serde(default, with = "units::bytes::opt")]
    frame_size: Option<u64>,
    /// `app = "frames"`: time between blocks (default 2 ms).
    #[serde(default, with = "units::dur::opt")]
    frame_interval: Option<Dur>,
    /// `app = "frames"`: the source resumes at `send_buffer` minus this (default 4096).
    #[serde(default, with = "units::bytes::opt")]
    resume_below: Option<u64>,
}

/// Spec 1 §2.4's CBRFrame defaults: 9180 bytes every 2 ms, resumed at BUF − 4096.
const FRAME_SIZE: u64 = 9180;
const FRAME_INTERVAL: Dur = Dur::from_millis(2);
const RESUME_BELOW: u64 = 4096;

fn load(f: &FlowInput) -> Result<FlowKind, ScenarioError> {
    let Keys {
        tcp: _,
        app,
        size,
        frame_size,
        frame_interval,
        resume_below,
    } = f.keys()?;
    if app != Some(RawApp::Frames) {
        for (key, given) in [
            ("frame_size", frame_size.is_some()),
            ("frame_interval", frame_interval.is_some()),
            ("resume_below", resume_below.is_some()),
        ] {
            if given {
                return Err(f.err(
                    key,
                    format!("`{key}` is only allowed with app = \"frames\""),
                ));
            }
        }
    }
    let d = f.defaults;
    let tcp = match f.raw_table("tcp") {
        None => d.tcp.clone(),
        Some(own) => {
            f.cx.merge_config(f.name, f.path, "tcp", d.tcp_raw, own, |c: &TcpConfig| {
                c.validate()
            })?
        }
    };
    let app = if app == Some(RawApp::Frames) {
        if size.is_some() {
            return Err(f.err(
                "size",
                "`size` is only allowed with app = \"file\" (a frame source is unlimited)",
            ));
        }
        let Some(buffer) = tcp.send_buffer else {
            return Err(f.err(
                "app",
                "app = \"frames\" writes into the TCP send buffer: set `send_buffer` in [tcp] \
                 or in the flow's tcp table (spec 1: 64000)",
            ));
        };
        let block = frame_size.unwrap_or(FRAME_SIZE);
        if block == 0 {
            return Err(f.err(
                "frame_size",
                "expected a positive byte count, e.g. 9180; got 0",
            ));
        }
        let interval = frame_interval.unwrap_or(FRAME_INTERVAL);
        if interval == Dur::ZERO {
            return Err(f.err(
                "frame_interval",
                "expected a positive duration, e.g. \"2ms\"; got 0",
            ));
        }
        // The sender sends full segments only while the source is on (SWS avoidance), so up
        // to mss − 1 bytes can stay unsent with everything else acknowledged: the source must
        // resume at or above mss bytes of occupancy, or it would wait for ever.
        let mss = u64::from(tcp.mss);
        if buffer <= mss {
            return Err(f.err(
                "app",
                format!(
                    "app = \"frames\" needs a send buffer larger than one segment; got \
                     send_buffer = {buffer}, mss = {mss}"
                ),
            ));
        }
        let most = buffer - mss;
        let resume_below = resume_below.unwrap_or(RESUME_BELOW);
        if resume_below == 0 || resume_below > most {
            return Err(f.err(
                "resume_below",
                format!(
                    "expected 1 to {most} bytes (send_buffer {buffer} - mss {mss}): the source \
                     resumes once the buffer has drained to send_buffer - resume_below, which \
                     must be at least one segment (a shorter remainder is never sent while the \
                     source is paused); got {resume_below}"
                ),
            ));
        }
        App::Frames {
            block,
            interval,
            resume_below,
        }
    } else {
        f.app(app, size)?
    };
    Ok(FlowKind::Tcp { app, tcp })
}

fn add(world: &mut World, b: &FlowBuild) -> Result<(), BuildError> {
    let FlowKind::Tcp { app, tcp } = &b.spec.kind else {
        unreachable!("the tcp row adds tcp flows only")
    };
    let id = match *app {
        App::Frames {
            block,
            interval,
            resume_below,
        } => {
            let buffer = tcp.send_buffer.expect("checked when loaded");
            let source = AppSource::frames(block, interval, buffer, buffer - resume_below);
            world.add_tcp_flow_with_app(&b.spec.name, b.at, tcp, source)
        }
        _ => world.add_tcp_flow(&b.spec.name, b.at, tcp, app_data(app)),
    };
    // spec 1 §2.5-2.6: per-packet processing at the hosts, a node element (net::processing).
    let sender = tcp
        .sender_processing
        .map(|d| (d, tcp.sender_processing_jitter));
    if sender.is_some() || tcp.receiver_processing.is_some() {
        world.add_processing(id, sender, tcp.receiver_processing, b.seed);
    }
    Ok(())
}
