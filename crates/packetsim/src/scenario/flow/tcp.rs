//! `kind = "tcp"` (the default): a TCP connection carrying a bulk transfer, a file, study
//! 1's frame source or an on-off source; or a workload of many connections. Keys: `tcp`
//! (TcpConfig keys over `[tcp]`, merged key by key), `app`, `size`; with `app = "frames"`
//! `frame_size`, `frame_interval`, `resume_below`, `whole_blocks`; with `app = "onoff"`
//! `on_time`, `off_time`, `onoff_dist`; with `app = "poisson"` `arrival_rate`, `size_dist`,
//! `size_mean`, `size_shape`, `size_sigma`, `size_cdf`. The TcpConfig keys
//! `sender_processing`, `sender_processing_jitter` and `receiver_processing` are carried out
//! here, by the hosts' processing elements (`net::processing`), for every connection.
//!
//! A Poisson workload (`app = "poisson"`) is built up front: arrival times from the stream
//! `flows.NAME.arrivals` (exponential gaps of mean 1/`arrival_rate`, the first one after the
//! flow's start, none at or after its `stop` or the end of the run), sizes from the stream
//! `flows.NAME.sizes` (so changing the size distribution moves no arrival). Arrival `k` is a
//! TCP connection of its own carrying a file of the drawn size, named `NAME_k`; the world
//! records the table's flows as a workload, for flow completion times (`report/fct.rs`).

use super::{app_data, FlowBuild, FlowInput, FlowKindRow, RawApp};
use crate::app::{AppSource, Cdf, OnOff, PeriodDist, SizeDist};
use crate::ids::FlowId;
use crate::scenario::kinds::fields_of;
use crate::scenario::profile::TcpProfile;
use crate::scenario::{App, BuildError, FlowKind, ScenarioError, Workload, MAX_FLOW_COUNT};
use crate::transport::tcp::{AppData, TcpConfig};
use crate::units;
use crate::world::{FlowPlacement, World};
use packetsim_kernel::{Dur, Rng};
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
    /// `app = "frames"`: YATS's start-stop protocol, blocks taken whole (default false).
    #[serde(default)]
    whole_blocks: Option<bool>,
    /// `app = "onoff"`: mean (or fixed) on period.
    #[serde(default, with = "units::dur::opt")]
    on_time: Option<Dur>,
    /// `app = "onoff"`: mean (or fixed) off period.
    #[serde(default, with = "units::dur::opt")]
    off_time: Option<Dur>,
    /// `app = "onoff"`: `exponential` (default) or `fixed` periods.
    #[serde(default)]
    onoff_dist: Option<RawPeriodDist>,
    /// `app = "poisson"`: mean flow arrivals per second.
    #[serde(default)]
    arrival_rate: Option<f64>,
    /// `app = "poisson"`: `exponential`, `pareto`, `lognormal` or `empirical`.
    #[serde(default)]
    size_dist: Option<RawSizeDist>,
    /// `app = "poisson"`: mean flow size (exponential, Pareto, log-normal), bytes.
    #[serde(default, with = "units::bytes::opt")]
    size_mean: Option<u64>,
    /// `app = "poisson"`, Pareto: shape α (> 1).
    #[serde(default)]
    size_shape: Option<f64>,
    /// `app = "poisson"`, log-normal: σ of ln(size) (> 0).
    #[serde(default)]
    size_sigma: Option<f64>,
    /// `app = "poisson"`, empirical: a CDF file, relative to the scenario file.
    #[serde(default)]
    size_cdf: Option<String>,
}

/// `onoff_dist`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RawPeriodDist {
    Exponential,
    Fixed,
}

/// `size_dist`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RawSizeDist {
    Exponential,
    Pareto,
    Lognormal,
    Empirical,
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
        whole_blocks,
        on_time,
        off_time,
        onoff_dist,
        arrival_rate,
        size_dist,
        size_mean,
        size_shape,
        size_sigma,
        size_cdf,
    } = f.keys()?;
    // Each application's own keys, refused with any other application.
    for (key, given, only) in [
        ("frame_size", frame_size.is_some(), RawApp::Frames),
        ("frame_interval", frame_interval.is_some(), RawApp::Frames),
        ("resume_below", resume_below.is_some(), RawApp::Frames),
        ("whole_blocks", whole_blocks.is_some(), RawApp::Frames),
        ("on_time", on_time.is_some(), RawApp::Onoff),
        ("off_time", off_time.is_some(), RawApp::Onoff),
        ("onoff_dist", onoff_dist.is_some(), RawApp::Onoff),
        ("arrival_rate", arrival_rate.is_some(), RawApp::Poisson),
        ("size_dist", size_dist.is_some(), RawApp::Poisson),
        ("size_mean", size_mean.is_some(), RawApp::Poisson),
        ("size_shape", size_shape.is_some(), RawApp::Poisson),
        ("size_sigma", size_sigma.is_some(), RawApp::Poisson),
        ("size_cdf", size_cdf.is_some(), RawApp::Poisson),
    ] {
        if given && app != Some(only) {
            let name = match only {
                RawApp::Frames => "frames",
                RawApp::Onoff => "onoff",
                _ => "poisson",
            };
            return Err(f.err(
                key,
                format!("`{key}` is only allowed with app = \"{name}\""),
            ));
        }
    }
    if matches!(app, Some(RawApp::Poisson | RawApp::Onoff)) && size.is_some() {
        return Err(f.err(
            "size",
            "`size` is only allowed with app = \"file\" (a Poisson workload draws its sizes \
             from `size_dist`; an on-off source is unlimited while on)",
        ));
    }
    let d = f.defaults;
    let tcp = match f.raw_table("tcp") {
        None => d.tcp.clone(),
        Some(own) => {
            // The flow's table resolves on its own (issue 33, profile.rs): without `profile`,
            // its variant (the flow's or [tcp]'s) implies the profile under both tables.
            let mut written = d.tcp_file.clone();
            for (k, v) in own {
                written.insert(k.clone(), v.clone());
            }
            let tp = TcpProfile::resolve(d.profile, &written);
            let mut base = tp.table();
            for (k, v) in d.tcp_file {
                base.insert(k.clone(), v.clone());
            }
            f.cx.merge_config(f.name, f.path, "tcp", &base, own, |c: &TcpConfig| {
                tp.check(c, &written)
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
            whole_blocks: whole_blocks.unwrap_or(false),
        }
    } else if app == Some(RawApp::Onoff) {
        let positive = |key: &str, d: Option<Dur>| {
            match d {
            None => Err(f.err(
                key,
                format!("missing required key `{key}`: app = \"onoff\" needs the mean on and off periods, e.g. \"100ms\""),
            )),
            Some(Dur::ZERO) => Err(f.err(key, "expected a positive duration, e.g. \"100ms\"; got 0")),
            Some(d) => Ok(d),
        }
        };
        App::OnOff {
            on: positive("on_time", on_time)?,
            off: positive("off_time", off_time)?,
            dist: match onoff_dist {
                None | Some(RawPeriodDist::Exponential) => PeriodDist::Exponential,
                Some(RawPeriodDist::Fixed) => PeriodDist::Fixed,
            },
        }
    } else if app == Some(RawApp::Poisson) {
        App::Poisson(Box::new(load_workload(
            f,
            arrival_rate,
            size_dist,
            size_mean,
            size_shape,
            size_sigma,
            size_cdf,
        )?))
    } else {
        f.app(app, size)?
    };
    Ok(FlowKind::Tcp { app, tcp })
}

/// The keys of `app = "poisson"`, checked.
fn load_workload(
    f: &FlowInput,
    arrival_rate: Option<f64>,
    size_dist: Option<RawSizeDist>,
    size_mean: Option<u64>,
    size_shape: Option<f64>,
    size_sigma: Option<f64>,
    size_cdf: Option<String>,
) -> Result<Workload, ScenarioError> {
    let arrival_rate = match arrival_rate {
        None => {
            return Err(f.err(
                "arrival_rate",
                "missing required key `arrival_rate`: app = \"poisson\" needs the mean flow \
                 arrivals per second, e.g. 100.0",
            ))
        }
        Some(r) if !(r.is_finite() && r > 0.0) => {
            return Err(f.err(
                "arrival_rate",
                format!("expected a positive number of flows per second; got {r}"),
            ))
        }
        Some(r) => r,
    };
    let dist = match (size_dist, &size_cdf) {
        (Some(d), _) => d,
        (None, Some(_)) => RawSizeDist::Empirical,
        (None, None) => {
            return Err(f.err(
                "size_dist",
                "missing required key `size_dist`: expected \"exponential\", \"pareto\", \
                 \"lognormal\" or \"empirical\" (with `size_cdf`)",
            ))
        }
    };
    let name = match dist {
        RawSizeDist::Exponential => "exponential",
        RawSizeDist::Pareto => "pareto",
        RawSizeDist::Lognormal => "lognormal",
        RawSizeDist::Empirical => "empirical",
    };
    // Which size keys each distribution reads; the others are refused.
    let (mean_used, shape_used, sigma_used, cdf_used) = match dist {
        RawSizeDist::Exponential => (true, false, false, false),
        RawSizeDist::Pareto => (true, true, false, false),
        RawSizeDist::Lognormal => (true, false, true, false),
        RawSizeDist::Empirical => (false, false, false, true),
    };
    for (key, given, used) in [
        ("size_mean", size_mean.is_some(), mean_used),
        ("size_shape", size_shape.is_some(), shape_used),
        ("size_sigma", size_sigma.is_some(), sigma_used),
        ("size_cdf", size_cdf.is_some(), cdf_used),
    ] {
        if given && !used {
            return Err(f.err(
                key,
                format!("`{key}` is not read by size_dist = \"{name}\""),
            ));
        }
        if used && !given {
            return Err(f.err(
                key,
                format!("missing required key `{key}`: size_dist = \"{name}\" needs it"),
            ));
        }
    }
    let mean = match size_mean {
        Some(0) => {
            return Err(f.err(
                "size_mean",
                "expected a positive byte count, e.g. \"100KB\"; got 0",
            ))
        }
        Some(m) => m as f64,
        None => 0.0,
    };
    let sizes = match dist {
        RawSizeDist::Exponential => SizeDist::Exponential { mean },
        RawSizeDist::Pareto => {
            let shape = size_shape.unwrap_or_default();
            if !(shape.is_finite() && shape > 1.0) {
                return Err(f.err(
                    "size_shape",
                    format!(
                        "expected a Pareto shape above 1 (the mean is infinite at 1 or below), \
                         e.g. 1.2; got {shape}"
                    ),
                ));
            }
            SizeDist::Pareto { mean, shape }
        }
        RawSizeDist::Lognormal => {
            let sigma = size_sigma.unwrap_or_default();
            if !(sigma.is_finite() && sigma > 0.0 && sigma <= 10.0) {
                return Err(f.err(
                    "size_sigma",
                    format!("expected a positive σ of ln(size), at most 10, e.g. 1.5; got {sigma}"),
                ));
            }
            SizeDist::LogNormal { mean, sigma }
        }
        RawSizeDist::Empirical => {
            let rel = size_cdf.unwrap_or_default();
            // One resolver for every file a scenario names (issue 38): a regular file of
            // bounded size inside the scenario's folder or an --allow-dir folder.
            let text =
                super::super::files::read_named(f.cx.origin(), &rel, &f.cx.limits().allow_dirs)
                    .map_err(|e| {
                        f.err(
                            "size_cdf",
                            format!(
                                "cannot read the CDF file (relative to the scenario file): {e}"
                            ),
                        )
                    })?;
            let cdf = Cdf::parse(&text).map_err(|e| {
                f.err(
                    "size_cdf",
                    format!("{}: {e}", super::super::files::shown_path(&rel)),
                )
            })?;
            SizeDist::Empirical(cdf)
        }
    };
    Ok(Workload {
        arrival_rate,
        sizes,
    })
}

/// The frame source of `app = "frames"` feeding a send buffer of `buffer` bytes (`None` for
/// another application).
pub(crate) fn frames_source(app: &App, buffer: u64) -> Option<AppSource> {
    let &App::Frames {
        block,
        interval,
        resume_below,
        whole_blocks,
    } = app
    else {
        return None;
    };
    let resume_at = buffer - resume_below;
    Some(if whole_blocks {
        AppSource::frames_whole_blocks(block, interval, buffer, resume_at)
    } else {
        AppSource::frames(block, interval, buffer, resume_at)
    })
}

fn add(world: &mut World, b: &FlowBuild) -> Result<(), BuildError> {
    let FlowKind::Tcp { app, tcp } = &b.spec.kind else {
        unreachable!("the tcp row adds tcp flows only")
    };
    let ids = match app {
        App::Frames { .. } => {
            let buffer = tcp.send_buffer.expect("checked when loaded");
            let source = frames_source(app, buffer).expect("a frames app");
            let id = world.add_tcp_flow_with_app(&b.spec.name, b.at, tcp, source);
            id.0..id.0 + 1
        }
        &App::OnOff { on, off, dist } => {
            let rng = Rng::for_component(b.seed, &format!("flows.{}.onoff", b.spec.name));
            let source = AppSource::OnOff(Box::new(OnOff::new(on, off, dist, rng)));
            let id = world.add_tcp_flow_with_app(&b.spec.name, b.at, tcp, source);
            id.0..id.0 + 1
        }
        App::Poisson(w) => add_workload(world, b, tcp, w)?,
        _ => {
            let id = world.add_tcp_flow(&b.spec.name, b.at, tcp, app_data(app));
            id.0..id.0 + 1
        }
    };
    // ns-2 `overhead_`: each sender draws its send delays from its own stream.
    if tcp.send_overhead > Dur::ZERO {
        for i in ids.clone() {
            world.seed_tcp_send_overhead(FlowId(i), b.seed);
        }
    }
    // spec 1 §2.5-2.6: per-packet processing at the hosts, a node element (net::processing).
    let sender = tcp
        .sender_processing
        .map(|d| (d, tcp.sender_processing_jitter));
    if sender.is_some() || tcp.receiver_processing.is_some() {
        for i in ids {
            world.add_processing(FlowId(i), sender, tcp.receiver_processing, b.seed);
        }
    }
    Ok(())
}

/// Adds one finite transfer per Poisson arrival (module doc).
fn add_workload(
    world: &mut World,
    b: &FlowBuild,
    tcp: &TcpConfig,
    w: &Workload,
) -> Result<std::ops::Range<u32>, BuildError> {
    let name = &b.spec.name;
    let mut arrivals = Rng::for_component(b.seed, &format!("flows.{name}.arrivals"));
    let mut sizes = Rng::for_component(b.seed, &format!("flows.{name}.sizes"));
    let end = b.at.stop.map_or(b.until, |s| s.min(b.until));
    let mean_gap = 1.0 / w.arrival_rate;
    let first = world.flows.len() as u32;
    let mut t = b.at.start;
    for k in 0u64.. {
        let gap = arrivals.exponential(mean_gap);
        t += Dur((gap * 1e9).round() as u64);
        if t >= end {
            break;
        }
        if k >= MAX_FLOW_COUNT as u64 {
            return Err(b.err(
                "arrival_rate",
                format!(
                    "more than {MAX_FLOW_COUNT} arrivals before the end of the run: lower \
                     arrival_rate or the duration"
                ),
            ));
        }
        let bytes = w.sizes.sample(&mut sizes);
        let at = FlowPlacement {
            start: t,
            stop: None,
            ..b.at
        };
        world.add_tcp_flow(&format!("{name}_{k}"), at, tcp, AppData::Bytes(bytes));
    }
    let ids = first..world.flows.len() as u32;
    world.add_workload(name, ids.clone(), tcp.mss);
    Ok(ids)
}
