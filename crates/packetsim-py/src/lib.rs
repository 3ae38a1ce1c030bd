//! `packetsim._native`: the Rust side of the `packetsim` Python package.
//!
//! Thin glue over the `packetsim` crate (which stays free of Python): load, run, sweep and
//! reproduce, each releasing the GIL while the simulator works. Tables cross the boundary as
//! plain columns, `[(name, dtype, list)]`, which the Python side (`python/packetsim/`) turns
//! into pandas DataFrames with those dtypes; see docs/python.md for why not Arrow.
//!
//! Scenario errors are raised as `packetsim.ScenarioError` (defined in Python, in
//! `packetsim/_errors.py`) with the message, file, line and key.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use packetsim::experiment::{
    self, GridPoint, Param, ResultsStore, RunOutput, Shard, StoredRun, SweepSpec,
};
use packetsim::report::Summary;
use packetsim::scenario::{self, Location, Override, Scenario, ScenarioError};
use packetsim::world::World;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Where a scenario comes from: a file, or TOML text with a name for messages; and the
/// command line's limits on loading and running it (`max_memory=`, `allow_dirs=`).
#[derive(Clone)]
struct Source {
    text: Option<String>,
    path: String,
    limits: scenario::Limits,
}

impl Source {
    fn new(
        source: String,
        is_text: bool,
        origin: Option<String>,
        limits: scenario::Limits,
    ) -> Source {
        if is_text {
            Source {
                text: Some(source),
                path: origin.unwrap_or_else(|| "<string>".into()),
                limits,
            }
        } else {
            Source {
                text: None,
                path: source,
                limits,
            }
        }
    }

    /// Loads the scenario within the limits and refuses one that makes no flow (a file cut
    /// short) or does not fit the memory budget, exactly as the command line's check, run
    /// and sweep do (issues 16 and 38: `experiment::limits::admit`).
    fn load(&self, overrides: &[Override]) -> Result<Scenario, Failure> {
        let sc = match &self.text {
            Some(t) => scenario::load_str_with(t, &self.path, overrides, &self.limits),
            None => scenario::load_file_with(Path::new(&self.path), overrides, &self.limits),
        }
        .map_err(Failure::Scenario)?;
        experiment::limits::admit(&sc, self.limits.max_memory).map_err(Failure::Build)?;
        Ok(sc)
    }
}

/// The command line's `--max-memory` and `--allow-dir` as the Python API takes them:
/// `max_memory` a byte count as text (`"2GiB"`, `"1500"`; default 2 GiB), parsed by the
/// same function as the flag; `allow_dirs` folders besides the scenario's own.
fn limits(max_memory: Option<String>, allow_dirs: Vec<PathBuf>) -> PyResult<scenario::Limits> {
    let max_memory = match max_memory {
        Some(m) => experiment::limits::max_memory(&m).map_err(PyValueError::new_err)?,
        None => scenario::Limits::default().max_memory,
    };
    Ok(scenario::Limits {
        max_memory,
        allow_dirs,
    })
}

/// Why a call failed, before it becomes a Python exception (built with the GIL held).
enum Failure {
    Scenario(ScenarioError),
    Build(scenario::BuildError),
    Experiment(experiment::ExperimentError),
    Value(String),
    Runtime(String),
}

/// `packetsim.ScenarioError(message, file, line, key)`.
fn scenario_exception(
    py: Python<'_>,
    message: String,
    file: String,
    line: Option<usize>,
    key: Option<String>,
) -> PyErr {
    let made = py
        .import("packetsim._errors")
        .and_then(|m| m.getattr("ScenarioError"))
        .and_then(|cls| cls.call1((message.clone(), file, line, key)));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

fn located_line(at: &Option<Location>) -> Option<usize> {
    match at {
        Some(Location::Line(l)) => Some(*l),
        _ => None,
    }
}

/// An integer argument checked by one of the CLI's limits (`experiment::limits`), whose
/// messages name the argument and its range and end `got N`. A Python int too wide even for
/// i128 (e.g. `2**200`) is refused by the same message with its own digits, as a
/// `ValueError`, never pyo3's `OverflowError`.
fn limited<T>(v: &Bound<'_, PyAny>, check: fn(i128) -> Result<T, String>) -> PyResult<T> {
    match v.extract::<i128>() {
        Ok(n) => check(n).map_err(PyValueError::new_err),
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(v.py()) => {
            let edge = if v.lt(0)? { i128::MIN } else { i128::MAX };
            let msg = match check(edge) {
                Ok(_) => return Err(e),
                Err(m) => m,
            };
            let head = msg.strip_suffix(&format!("got {edge}")).unwrap_or(&msg);
            Err(PyValueError::new_err(format!("{head}got {}", v.str()?)))
        }
        Err(e) => Err(e),
    }
}

/// An override as a Python caller wrote it: `overrides={"path": value}` (the value as Python
/// would print what `packetsim._value` turned into this text), instead of the CLI's
/// `--set path=value`.
fn py_override(set: &str) -> String {
    let (path, value) = set.split_once('=').unwrap_or((set, ""));
    let shown = match value {
        "true" => "True".to_string(),
        "false" => "False".to_string(),
        v if v.parse::<i64>().is_ok() || v.parse::<f64>().is_ok_and(f64::is_finite) => {
            v.to_string()
        }
        v => format!("{v:?}"),
    };
    format!("overrides={{{path:?}: {shown}}}")
}

/// A scenario error's message in Python syntax: an override is named as the `overrides=`
/// entry it came from; every other message is the CLI's, unchanged.
fn python_message(e: &ScenarioError) -> String {
    use packetsim::scenario::files::cap_echo;
    match e {
        ScenarioError::Override {
            origin,
            set,
            message,
        } => format!(
            "{}: {}: {}",
            cap_echo(origin),
            cap_echo(&py_override(set)),
            cap_echo(message)
        ),
        ScenarioError::Invalid {
            origin,
            at: Location::Override(o),
            key,
            message,
        } => format!(
            "{}: {}: {}: {}",
            cap_echo(origin),
            cap_echo(&py_override(o)),
            cap_echo(key),
            cap_echo(message)
        ),
        e => e.to_string(),
    }
}

/// A build error's message in Python syntax (see [`python_message`]).
fn python_build_message(e: &scenario::BuildError) -> String {
    use packetsim::scenario::files::cap_echo;
    match &e.at {
        Some(Location::Override(o)) => format!(
            "{}: {}: {}: {}",
            cap_echo(&e.origin),
            cap_echo(&py_override(o)),
            cap_echo(&e.key),
            cap_echo(&e.msg)
        ),
        _ => e.to_string(),
    }
}

impl Failure {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Scenario(e) => {
                let file = match &e {
                    ScenarioError::Read { path, .. } => path.display().to_string(),
                    // "PATH: cannot read the scenario file: REASON" (scenario::files)
                    ScenarioError::File(m) => m.split(": ").next().unwrap_or(m).to_string(),
                    ScenarioError::Syntax { origin, .. }
                    | ScenarioError::Override { origin, .. }
                    | ScenarioError::Invalid { origin, .. } => origin.clone(),
                };
                let key = match &e {
                    ScenarioError::Override { set, .. } => Some(
                        set.split_once('=')
                            .map_or(set.as_str(), |s| s.0)
                            .to_string(),
                    ),
                    _ => e.key().map(str::to_string),
                };
                scenario_exception(py, python_message(&e), file, e.line(), key)
            }
            Failure::Build(e) => {
                let line = located_line(&e.at);
                let message = python_build_message(&e);
                scenario_exception(py, message, e.origin, line, Some(e.key))
            }
            Failure::Experiment(e) => PyRuntimeError::new_err(e.to_string()),
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Runtime(m) => PyRuntimeError::new_err(m),
        }
    }
}

fn overrides(list: Vec<(String, String)>) -> Vec<Override> {
    list.into_iter()
        .map(|(path, value)| Override { path, value })
        .collect()
}

/// A typed column on its way to pandas.
enum Col {
    Str(Vec<String>),
    Int(Vec<i64>),
    UInt(Vec<u64>),
    Float(Vec<f64>),
}

type Columns = Vec<(String, Col)>;

/// Metric name → value (`None` = not available), as a sweep stores a run.
type Metrics = Vec<(String, Option<f64>)>;

/// A run still to do: (point index, replication, seed, every override including the point's).
type PendingRun = (usize, u32, u64, Vec<(String, String)>);

fn columns_to_py<'py>(py: Python<'py>, cols: Columns) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (name, col) in cols {
        let (dtype, values) = match col {
            Col::Str(v) => ("str", v.into_pyobject(py)?.into_any()),
            Col::Int(v) => ("int64", v.into_pyobject(py)?.into_any()),
            Col::UInt(v) => ("uint64", v.into_pyobject(py)?.into_any()),
            Col::Float(v) => ("float64", v.into_pyobject(py)?.into_any()),
        };
        out.append((name, dtype, values))?;
    }
    Ok(out)
}

fn nan_if_none(x: Option<f64>) -> f64 {
    x.unwrap_or(f64::NAN)
}

/// One row per flow, the columns of flows.csv plus the transfer time and ECN counters.
fn flow_columns(s: &Summary) -> Columns {
    let f: Vec<_> = s.flows.iter().collect();
    let strs = |g: &dyn Fn(&packetsim::report::FlowSummary) -> String| {
        Col::Str(f.iter().map(|(_, x)| g(x)).collect())
    };
    let ints = |g: &dyn Fn(&packetsim::report::FlowSummary) -> u64| {
        Col::Int(f.iter().map(|(_, x)| g(x) as i64).collect())
    };
    let floats = |g: &dyn Fn(&packetsim::report::FlowSummary) -> f64| {
        Col::Float(f.iter().map(|(_, x)| g(x)).collect())
    };
    let mut cols: Columns = vec![
        (
            "flow".into(),
            Col::Str(f.iter().map(|(n, _)| n.to_string()).collect()),
        ),
        ("kind".into(), strs(&|x| x.kind.to_string())),
        (
            "variant".into(),
            strs(&|x| x.variant.clone().unwrap_or_default()),
        ),
        ("from".into(), strs(&|x| x.from.clone())),
        ("to".into(), strs(&|x| x.to.clone())),
        ("start_s".into(), floats(&|x| x.start_s)),
        ("bytes_sent".into(), ints(&|x| x.bytes_sent)),
        ("bytes_delivered".into(), ints(&|x| x.bytes_delivered)),
        ("goodput_bps".into(), floats(&|x| x.goodput_bps)),
        (
            "completion_time_s".into(),
            floats(&|x| nan_if_none(x.completion_time_s)),
        ),
        (
            "transfer_time_s".into(),
            floats(&|x| nan_if_none(x.transfer_time_s)),
        ),
        ("segments_sent".into(), ints(&|x| x.segments_sent)),
        ("retransmits".into(), ints(&|x| x.retransmits)),
        ("timeouts".into(), ints(&|x| x.timeouts)),
        ("fast_retransmits".into(), ints(&|x| x.fast_retransmits)),
        ("duplicate_segments".into(), ints(&|x| x.duplicate_segments)),
        (
            "data_packets_delivered".into(),
            ints(&|x| x.data_packets_delivered),
        ),
        ("ecn_reductions".into(), ints(&|x| x.ecn_reductions)),
        ("ce_received".into(), ints(&|x| x.ce_received)),
    ];
    // With `simulation.flow_monitor`: flows.csv's appended columns, same names.
    if f.iter().any(|(_, x)| x.flow_monitor.is_some()) {
        type M = packetsim::trace::monitor::FlowMonitorSummary;
        let m_int = |g: fn(&M) -> u64| {
            Col::Float(
                f.iter()
                    .map(|(_, x)| x.flow_monitor.as_ref().map_or(f64::NAN, |m| g(m) as f64))
                    .collect(),
            )
        };
        let m_f = |g: fn(&M) -> Option<f64>| {
            Col::Float(
                f.iter()
                    .map(|(_, x)| nan_if_none(x.flow_monitor.as_ref().and_then(g)))
                    .collect(),
            )
        };
        let ints: [(&str, fn(&M) -> u64); 6] = [
            ("tx_packets", |m| m.tx_packets),
            ("tx_bytes", |m| m.tx_bytes),
            ("rx_packets", |m| m.rx_packets),
            ("rx_bytes", |m| m.rx_bytes),
            ("lost_packets", |m| m.lost_packets),
            ("rtt_samples", |m| m.rtt_samples),
        ];
        let floats: [(&str, fn(&M) -> Option<f64>); 14] = [
            ("loss_ratio", |m| m.loss_ratio),
            ("delay_sum_s", |m| Some(m.delay_sum_s)),
            ("delay_mean_s", |m| m.delay_mean_s),
            ("delay_min_s", |m| m.delay_min_s),
            ("delay_p50_s", |m| m.delay_p50_s),
            ("delay_p99_s", |m| m.delay_p99_s),
            ("delay_max_s", |m| m.delay_max_s),
            ("jitter_sum_s", |m| Some(m.jitter_sum_s)),
            ("jitter_mean_s", |m| m.jitter_mean_s),
            ("rtt_min_s", |m| m.rtt_min_s),
            ("rtt_mean_s", |m| m.rtt_mean_s),
            ("rtt_p50_s", |m| m.rtt_p50_s),
            ("rtt_p99_s", |m| m.rtt_p99_s),
            ("rtt_max_s", |m| m.rtt_max_s),
        ];
        for (name, g) in ints {
            cols.push((name.into(), m_int(g)));
        }
        for (name, g) in floats {
            cols.push((name.into(), m_f(g)));
        }
    }
    cols
}

/// With `simulation.flow_monitor`: every RTT sample (rtt.csv's columns).
fn rtt_columns(s: &Summary) -> Option<Columns> {
    s.flows.values().any(|f| f.flow_monitor.is_some()).then(|| {
        vec![
            (
                "flow".into(),
                Col::Str(s.rtt_rows.iter().map(|r| r.0.clone()).collect()),
            ),
            (
                "time_s".into(),
                Col::Float(s.rtt_rows.iter().map(|r| r.1).collect()),
            ),
            (
                "rtt_s".into(),
                Col::Float(s.rtt_rows.iter().map(|r| r.2).collect()),
            ),
        ]
    })
}

/// One row per queue (link direction), the columns of queues.csv.
fn queue_columns(s: &Summary) -> Columns {
    let q: Vec<_> = s.queues.iter().collect();
    let strs = |g: &dyn Fn(&packetsim::report::QueueSummary) -> String| {
        Col::Str(q.iter().map(|(_, x)| g(x)).collect())
    };
    let ints = |g: &dyn Fn(&packetsim::report::QueueSummary) -> u64| {
        Col::Int(q.iter().map(|(_, x)| g(x) as i64).collect())
    };
    let floats = |g: &dyn Fn(&packetsim::report::QueueSummary) -> f64| {
        Col::Float(q.iter().map(|(_, x)| g(x)).collect())
    };
    let reason = |r: &'static str| {
        Col::Int(
            q.iter()
                .map(|(_, x)| x.drops_by_reason.get(r).copied().unwrap_or(0) as i64)
                .collect(),
        )
    };
    let mut cols: Columns = vec![
        (
            "queue".into(),
            Col::Str(q.iter().map(|(n, _)| n.to_string()).collect()),
        ),
        ("link".into(), strs(&|x| x.link.clone())),
        ("from".into(), strs(&|x| x.from.clone())),
        ("to".into(), strs(&|x| x.to.clone())),
        ("arrivals".into(), ints(&|x| x.arrivals)),
        ("departures".into(), ints(&|x| x.departures)),
        ("drops".into(), ints(&|x| x.drops)),
        ("drops_overflow".into(), reason("overflow")),
        ("drops_early".into(), reason("early")),
        ("drops_forced".into(), reason("forced")),
        ("marks".into(), ints(&|x| x.marks)),
        ("mean_len_pkts".into(), floats(&|x| x.mean_len_pkts)),
        ("max_len_pkts".into(), floats(&|x| x.max_len_pkts)),
        ("utilisation".into(), floats(&|x| x.utilisation)),
        ("lost_error".into(), ints(&|x| x.lost_error)),
        ("lost_link_down".into(), ints(&|x| x.lost_link_down)),
    ];
    // With `simulation.flow_monitor`: queues.csv's appended sojourn columns.
    if q.iter().any(|(_, x)| x.sojourn.is_some()) {
        type J = packetsim::trace::monitor::SojournSummary;
        let col = |g: fn(&J) -> Option<f64>| {
            Col::Float(
                q.iter()
                    .map(|(_, x)| nan_if_none(x.sojourn.as_ref().and_then(g)))
                    .collect(),
            )
        };
        let list: [(&str, fn(&J) -> Option<f64>); 5] = [
            ("sojourn_samples", |j| Some(j.samples as f64)),
            ("sojourn_mean_s", |j| j.sojourn_mean_s),
            ("sojourn_p50_s", |j| j.sojourn_p50_s),
            ("sojourn_p99_s", |j| j.sojourn_p99_s),
            ("sojourn_max_s", |j| j.sojourn_max_s),
        ];
        for (name, g) in list {
            cols.push((name.into(), col(g)));
        }
    }
    cols
}

/// The sampled time series (when `simulation.sample_interval` is set): (flows, queues,
/// deliveries).
fn series_columns(world: &World) -> Option<(Columns, Columns, Columns)> {
    let s = world.series.as_ref()?;
    let flows = vec![
        (
            "time_s".into(),
            Col::Float(s.flows.iter().map(|x| x.time.as_secs_f64()).collect()),
        ),
        (
            "flow".into(),
            Col::Str(
                s.flows
                    .iter()
                    .map(|x| world.flows[x.flow.idx()].name.clone())
                    .collect(),
            ),
        ),
        (
            "cwnd_bytes".into(),
            Col::Int(s.flows.iter().map(|x| x.cwnd as i64).collect()),
        ),
        (
            "ssthresh_bytes".into(),
            Col::Int(s.flows.iter().map(|x| x.ssthresh as i64).collect()),
        ),
        (
            "srtt_s".into(),
            Col::Float(
                s.flows
                    .iter()
                    .map(|x| x.srtt.map_or(f64::NAN, |d| d.as_secs_f64()))
                    .collect(),
            ),
        ),
        (
            "rto_s".into(),
            Col::Float(s.flows.iter().map(|x| x.rto.as_secs_f64()).collect()),
        ),
    ];
    let delivered = vec![
        (
            "time_s".into(),
            Col::Float(s.delivered.iter().map(|x| x.time.as_secs_f64()).collect()),
        ),
        (
            "flow".into(),
            Col::Str(
                s.delivered
                    .iter()
                    .map(|x| world.flows[x.flow.idx()].name.clone())
                    .collect(),
            ),
        ),
        (
            "delivered_bytes".into(),
            Col::Int(s.delivered.iter().map(|x| x.bytes as i64).collect()),
        ),
        (
            "rate_bps".into(),
            Col::Float(s.delivered.iter().map(|x| x.rate_bps).collect()),
        ),
    ];
    let queues = vec![
        (
            "time_s".into(),
            Col::Float(s.queues.iter().map(|x| x.time.as_secs_f64()).collect()),
        ),
        (
            "queue".into(),
            Col::Str(
                s.queues
                    .iter()
                    .map(|x| world.net.egresses[x.egress.idx()].name.clone())
                    .collect(),
            ),
        ),
        (
            "len_pkts".into(),
            Col::Int(s.queues.iter().map(|x| i64::from(x.packets)).collect()),
        ),
        (
            "len_bytes".into(),
            Col::Int(s.queues.iter().map(|x| x.bytes as i64).collect()),
        ),
    ];
    Some((flows, queues, delivered))
}

/// Loads and checks a scenario (parse, validate, assemble). Returns a dict: `origin`, `text`
/// (the effective TOML after overrides), `seed` (its simulation.seed), `nodes`, `links`,
/// `flows` (counts).
#[pyfunction]
#[pyo3(signature = (source, is_text, origin, overrides, max_memory=None, allow_dirs=Vec::new()))]
fn check<'py>(
    py: Python<'py>,
    source: String,
    is_text: bool,
    origin: Option<String>,
    overrides: Vec<(String, String)>,
    max_memory: Option<String>,
    allow_dirs: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let src = Source::new(source, is_text, origin, limits(max_memory, allow_dirs)?);
    let ovs = self::overrides(overrides);
    let sc = py
        .detach(|| {
            let sc = src.load(&ovs)?;
            scenario::check(&sc).map_err(Failure::Build)?;
            Ok(sc)
        })
        .map_err(|f: Failure| f.into_py(py))?;
    let d = PyDict::new(py);
    d.set_item("origin", &sc.origin)?;
    d.set_item("text", &sc.text)?;
    d.set_item("seed", sc.simulation.seed)?;
    d.set_item("nodes", sc.nodes.len())?;
    d.set_item("links", sc.links.len())?;
    d.set_item("flows", sc.flow_count())?;
    Ok(d)
}

/// Runs a scenario with `seed` (default: its simulation.seed). Returns a dict:
/// `summary_json`, `flows`, `queues` (columns), `flow_series`, `queue_series`,
/// `delivery_series` (columns or None when the scenario does not sample), `rtt_series`
/// (columns or None without `simulation.flow_monitor`).
#[pyfunction]
#[pyo3(signature = (source, is_text, origin, overrides, seed=None, max_memory=None,
                    allow_dirs=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    source: String,
    is_text: bool,
    origin: Option<String>,
    overrides: Vec<(String, String)>,
    seed: Option<Bound<'py, PyAny>>,
    max_memory: Option<String>,
    allow_dirs: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    // The CLI's seed range, through the same code as sweep's (`experiment::limits`).
    let seed = seed
        .map(|s| limited(&s, packetsim::experiment::limits::seed))
        .transpose()?;
    let src = Source::new(source, is_text, origin, limits(max_memory, allow_dirs)?);
    let ovs = self::overrides(overrides);
    type Ran = (
        String,
        Columns,
        Columns,
        Option<(Columns, Columns, Columns)>,
        Option<Columns>,
    );
    let (json, flows, queues, series, rtt) = py
        .detach(|| -> Result<Ran, Failure> {
            let sc = src.load(&ovs)?;
            let seed = seed.unwrap_or(sc.simulation.seed);
            let o = scenario::run(&sc, seed).map_err(Failure::Build)?;
            Ok((
                o.summary.to_json(),
                flow_columns(&o.summary),
                queue_columns(&o.summary),
                series_columns(&o.world),
                rtt_columns(&o.summary),
            ))
        })
        .map_err(|f| f.into_py(py))?;
    let d = PyDict::new(py);
    match rtt {
        Some(r) => d.set_item("rtt_series", columns_to_py(py, r)?)?,
        None => d.set_item("rtt_series", py.None())?,
    }
    d.set_item("summary_json", json)?;
    d.set_item("flows", columns_to_py(py, flows)?)?;
    d.set_item("queues", columns_to_py(py, queues)?)?;
    match series {
        Some((f, q, del)) => {
            d.set_item("flow_series", columns_to_py(py, f)?)?;
            d.set_item("queue_series", columns_to_py(py, q)?)?;
            d.set_item("delivery_series", columns_to_py(py, del)?)?;
        }
        None => {
            d.set_item("flow_series", py.None())?;
            d.set_item("queue_series", py.None())?;
            d.set_item("delivery_series", py.None())?;
        }
    }
    Ok(d)
}

/// One run as a sweep stores it: (summary JSON, metrics). What an executor's worker calls.
#[pyfunction]
#[pyo3(signature = (source, is_text, origin, overrides, seed, max_memory=None,
                    allow_dirs=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn run_metrics(
    py: Python<'_>,
    source: String,
    is_text: bool,
    origin: Option<String>,
    overrides: Vec<(String, String)>,
    seed: u64,
    max_memory: Option<String>,
    allow_dirs: Vec<PathBuf>,
) -> PyResult<(String, Metrics)> {
    let src = Source::new(source, is_text, origin, limits(max_memory, allow_dirs)?);
    let ovs = self::overrides(overrides);
    let o = py
        .detach(|| run_output(&src, &ovs, seed))
        .map_err(|f| f.into_py(py))?;
    Ok((o.summary_json, o.metrics))
}

fn run_output(src: &Source, ovs: &[Override], seed: u64) -> Result<RunOutput, Failure> {
    let sc = src.load(ovs)?;
    let o = scenario::run(&sc, seed).map_err(Failure::Build)?;
    Ok(RunOutput {
        summary_json: o.summary.to_json(),
        metrics: o.summary.metrics(),
    })
}

fn failure_message(f: Failure) -> String {
    match f {
        Failure::Scenario(e) => python_message(&e),
        Failure::Build(e) => python_build_message(&e),
        Failure::Experiment(e) => e.to_string(),
        Failure::Value(m) | Failure::Runtime(m) => m,
    }
}

/// A sweep on the Rust engine: one results store, run here (`run_local`) or by any Python
/// executor (`pending` → run elsewhere → `record`), then `finish`.
#[pyclass(module = "packetsim._native")]
struct NativeSweep {
    src: Source,
    base: Vec<Override>,
    spec: SweepSpec,
    shard: Shard,
    points: Vec<GridPoint>,
    store: Mutex<Option<ResultsStore>>,
}

impl NativeSweep {
    fn assignments(&self, point: &GridPoint) -> Vec<Override> {
        let mut all = self.base.clone();
        all.extend(point.assignments.iter().map(|(k, v)| Override {
            path: k.clone(),
            value: v.clone(),
        }));
        all
    }

    fn seed(&self, point: &GridPoint, replication: u32) -> u64 {
        experiment::run_seed_sharing(
            self.spec.base_seed,
            point,
            replication,
            &self.spec.shared_seed_params,
        )
    }

    fn with_store<T>(
        &self,
        f: impl FnOnce(&mut ResultsStore) -> Result<T, experiment::ExperimentError>,
    ) -> Result<T, Failure> {
        let mut guard = self.store.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(ResultsStore::open(&self.spec.out_dir).map_err(Failure::Experiment)?);
        }
        f(guard.as_mut().expect("opened above")).map_err(Failure::Experiment)
    }

    /// The engine's sweep with `run`, writing the manifest (and the CSVs when whole); `bar`:
    /// the command line's progress bar on stderr (shown only on a terminal).
    fn engine<F>(&self, bar: bool, run: F) -> Result<experiment::SweepReport, Failure>
    where
        F: Fn(&GridPoint, u64) -> Result<RunOutput, String> + Sync,
    {
        // The engine opens its own connection; ours is closed first (WAL allows both, but
        // one writer at a time is simpler to reason about).
        *self.store.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let spec = SweepSpec {
            progress: bar,
            ..self.spec.clone()
        };
        experiment::sweep_sharded(&spec, Some(self.shard), run).map_err(Failure::Experiment)
    }

    /// How many runs of this shard are stored already.
    fn stored(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.owned() - self.pending(py)?.len())
    }
}

#[pymethods]
impl NativeSweep {
    /// Checks the scenario and every parameter value, and prepares the store in `out`.
    /// `code_file` is the extension module's file: its hash is part of the experiment key,
    /// so a rebuilt package never reuses runs stored by an older one.
    #[new]
    #[pyo3(signature = (source, is_text, origin, overrides, params, runs, seed, jobs, out,
                        shard, code_file, max_memory=None, allow_dirs=Vec::new(), max_runs=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        source: String,
        is_text: bool,
        origin: Option<String>,
        overrides: Vec<(String, String)>,
        params: Vec<(String, Vec<String>)>,
        runs: Bound<'_, PyAny>,
        seed: Option<Bound<'_, PyAny>>,
        jobs: Bound<'_, PyAny>,
        out: PathBuf,
        shard: Option<(u32, u32)>,
        code_file: String,
        max_memory: Option<String>,
        allow_dirs: Vec<PathBuf>,
        max_runs: Option<Bound<'_, PyAny>>,
    ) -> PyResult<NativeSweep> {
        use packetsim::experiment::limits;
        // As `packetsim sweep`: runs in parallel share the memory budget (`--max-memory`
        // divided by the jobs), and the grid is capped at `max_runs` (`--max-runs`).
        let mut lim = self::limits(max_memory, allow_dirs)?;
        let jobs = limited(&jobs, limits::jobs)?;
        let parallel = limits::parallel(jobs);
        lim.max_memory = limits::per_run_memory(lim.max_memory, jobs);
        let max_runs = match max_runs {
            Some(m) => limited(&m, |n| {
                u64::try_from(n)
                    .map_err(|_| format!("max_runs must be from 0 to {}; got {n}", u64::MAX))
            })?,
            None => limits::MAX_RUNS,
        };
        let src = Source::new(source, is_text, origin, lim);
        let base = self::overrides(overrides);
        let params: Vec<Param> = params
            .into_iter()
            .map(|(path, values)| Param { path, values })
            .collect();
        let shard = match shard {
            None => Shard::WHOLE,
            Some((i, n)) => Shard::new(i, n).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "shard must be (I, N) with 0 <= I < N; got ({i}, {n})"
                ))
            })?,
        };
        // Exactly the CLI's limits, through the same code (issue 38: jobs=100000 started
        // hundreds of threads, runs=10**7 ten million runs).
        let runs = limited(&runs, limits::runs)?;
        let seed = seed.map(|s| limited(&s, limits::seed)).transpose()?;
        limits::grid_runs(&params, runs, max_runs).map_err(PyValueError::new_err)?;
        let shared = |f: Failure| match f {
            Failure::Build(mut e) if e.msg.contains("more than the budget") => {
                e.msg = format!(
                    "{} (max_memory is shared by {parallel} parallel runs, jobs=)",
                    e.msg
                );
                Failure::Build(e)
            }
            f => f,
        };
        let built = py.detach(|| -> Result<SweepSpec, Failure> {
            experiment::validate_params(&params).map_err(|e| Failure::Value(e.to_string()))?;
            let sc = src.load(&base).map_err(shared)?;
            for p in &params {
                for v in &p.values {
                    let mut all = base.clone();
                    all.push(Override {
                        path: p.path.clone(),
                        value: v.clone(),
                    });
                    src.load(&all).map_err(shared)?;
                }
            }
            let code = std::fs::read(&code_file)
                .map_err(|e| Failure::Runtime(format!("{code_file}: {e}")))?;
            let hash = packetsim::experiment::content_hash(sc.text.as_bytes());
            let experiment_key = format!(
                "{}@{}+py.{:016x}#{hash:016x}",
                sc.origin,
                env!("CARGO_PKG_VERSION"),
                packetsim::experiment::content_hash(&code)
            );
            Ok(SweepSpec {
                experiment_key,
                params,
                runs,
                base_seed: seed.unwrap_or(sc.simulation.seed),
                jobs,
                out_dir: out,
                progress: false,
                shared_seed_params: Vec::new(),
            })
        });
        let spec = built.map_err(|f| f.into_py(py))?;
        let points = experiment::grid(&spec.params);
        Ok(NativeSweep {
            src,
            base,
            spec,
            shard,
            points,
            store: Mutex::new(None),
        })
    }

    /// Runs every run of this shard not yet stored on the Rust thread pool. Returns
    /// (computed, reused).
    ///
    /// The engine works on its own thread while this one, holding the GIL only between
    /// naps, calls `progress(done, total)` (runs of this shard stored, reused ones included)
    /// whenever the count moved, and checks for Ctrl-C. A callback that raises, or Ctrl-C,
    /// stops the sweep after the runs under way (those stay stored: calling again resumes)
    /// and is raised here. `bar`: the command line's own progress bar on stderr instead.
    #[pyo3(signature = (progress=None, bar=false))]
    fn run_local(
        &self,
        py: Python<'_>,
        progress: Option<Bound<'_, PyAny>>,
        bar: bool,
    ) -> PyResult<(usize, usize)> {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let total = self.owned();
        let reused = match &progress {
            Some(_) => self.stored(py)?,
            None => 0,
        };
        let done = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let outcome = std::thread::scope(|s| {
            let engine = s.spawn(|| {
                self.engine(bar, |point, seed| {
                    if stop.load(Ordering::Relaxed) {
                        return Err("stopped from Python (Ctrl-C or the progress callback)".into());
                    }
                    let r = run_output(&self.src, &self.assignments(point), seed)
                        .map_err(failure_message);
                    done.fetch_add(1, Ordering::Relaxed);
                    r
                })
            });
            let mut shown = usize::MAX;
            let mut raised: Option<PyErr> = None;
            loop {
                let finished = engine.is_finished();
                let n = done.load(Ordering::Relaxed);
                if raised.is_none() {
                    let called = match &progress {
                        Some(cb) if n != shown => {
                            shown = n;
                            cb.call1(((reused + n).min(total), total)).map(|_| ())
                        }
                        _ => Ok(()),
                    };
                    if let Err(e) = called.and_then(|()| py.check_signals()) {
                        raised = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                if finished {
                    break;
                }
                py.detach(|| std::thread::sleep(std::time::Duration::from_millis(50)));
            }
            let report = engine
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            match raised {
                Some(e) => Err(e),
                None => report.map_err(|f| f.into_py(py)),
            }
        })?;
        Ok((outcome.computed, outcome.reused))
    }

    /// The runs of this shard not yet stored: (point index, replication, seed, overrides).
    fn pending(&self, py: Python<'_>) -> PyResult<Vec<PendingRun>> {
        let done = py
            .detach(|| self.with_store(|s| s.done_runs(&self.spec.experiment_key)))
            .map_err(|f| f.into_py(py))?;
        let mut out = Vec::new();
        for p in &self.points {
            let key = p.key();
            for rep in 0..self.spec.runs {
                let number = p.index as u64 * u64::from(self.spec.runs) + u64::from(rep);
                if !self.shard.owns(number) || done.contains_key(&(key.clone(), rep)) {
                    continue;
                }
                let ovs = self
                    .assignments(p)
                    .into_iter()
                    .map(|o| (o.path, o.value))
                    .collect();
                out.push((p.index, rep, self.seed(p, rep), ovs));
            }
        }
        Ok(out)
    }

    /// Stores one run computed elsewhere (committed before returning). The seed must be the
    /// one this sweep derives for (point, replication).
    fn record(
        &self,
        py: Python<'_>,
        point_index: usize,
        replication: u32,
        seed: u64,
        summary_json: String,
        metrics: Vec<(String, Option<f64>)>,
    ) -> PyResult<()> {
        let point = self
            .points
            .get(point_index)
            .ok_or_else(|| PyValueError::new_err(format!("no grid point {point_index}")))?;
        let want = self.seed(point, replication);
        if seed != want || replication >= self.spec.runs {
            return Err(PyValueError::new_err(format!(
                "{point}, replication {replication}: seed {seed} is not this sweep's ({want})"
            )));
        }
        py.detach(|| {
            self.with_store(|s| {
                s.insert_run(
                    &self.spec.experiment_key,
                    point,
                    replication,
                    seed,
                    &summary_json,
                    &metrics,
                )
            })
        })
        .map_err(|f| f.into_py(py))
    }

    /// Writes sweep.json (and results.csv, runs.csv when not a part of a split) from the
    /// stored runs, and returns them as a frame's columns ([`runs_frame`]: one row per stored
    /// run of this shard's directory when `long` is false, one per run and metric when true)
    /// and the identical-replications warnings ([`identical_warnings`]). Refuses if runs of
    /// this shard are still missing.
    fn finish<'py>(
        &self,
        py: Python<'py>,
        long: bool,
    ) -> PyResult<(Bound<'py, PyList>, Vec<String>)> {
        let report = py
            .detach(|| {
                self.engine(false, |point, seed| {
                    Err(format!(
                        "{point} (seed {seed}) was not computed: call run_local or record it \
                         before finish"
                    ))
                })
            })
            .map_err(|f| f.into_py(py))?;
        let by_point: Vec<Vec<&StoredRun>> =
            report.runs.iter().map(|l| l.iter().collect()).collect();
        let cols = runs_frame(&self.spec.params, self.spec.runs, &by_point, long);
        let warnings = if self.shard.count == 1 {
            identical_warnings(&report, self.spec.runs)
        } else {
            Vec::new() // a part of a split: its points lack the other parts' runs
        };
        Ok((columns_to_py(py, cols)?, warnings))
    }

    /// How many runs this shard owns (all of them when whole).
    fn owned(&self) -> usize {
        let total = self.points.len() as u64 * u64::from(self.spec.runs);
        (0..total).filter(|&n| self.shard.owns(n)).count()
    }

    /// The experiment key runs are stored under.
    #[getter]
    fn experiment_key(&self) -> String {
        self.spec.experiment_key.clone()
    }

    /// (one run's memory budget in bytes, as text; the allowed folders): what an executor's
    /// worker passes to `run_metrics`, so its runs have this sweep's limits.
    #[getter]
    fn run_limits(&self) -> (String, Vec<String>) {
        let dirs = &self.src.limits.allow_dirs;
        (
            self.src.limits.max_memory.to_string(),
            dirs.iter()
                .map(|d| d.to_string_lossy().into_owned())
                .collect(),
        )
    }
}

/// Merges sweep result directories (shards) into `out`, exactly once. Returns the merged
/// sweep's runs as [`runs_frame`] columns (the shape `sweep()` gives: `long` as there) and
/// its identical-replications warnings. Raises on missing runs or disagreeing duplicates.
#[pyfunction]
#[pyo3(signature = (out, dirs, long=false))]
fn merge<'py>(
    py: Python<'py>,
    out: PathBuf,
    dirs: Vec<PathBuf>,
    long: bool,
) -> PyResult<(Bound<'py, PyList>, Vec<String>)> {
    let merged = py.detach(|| -> Result<_, experiment::ExperimentError> {
        let r = experiment::merge(&out, &dirs)?;
        let manifest = experiment::SweepManifest::read(&out)?;
        let stored = ResultsStore::open(&out)?.load_runs(&manifest.experiment_key)?;
        Ok((r, manifest, stored))
    });
    let (report, manifest, stored) = merged.map_err(|e| Failure::Experiment(e).into_py(py))?;
    let params = manifest.params();
    let points = experiment::grid(&params);
    let by_point = experiment::aggregate::runs_by_point(&points, manifest.runs, &stored);
    let cols = runs_frame(&params, manifest.runs, &by_point, long);
    let whole = experiment::SweepReport {
        computed: 0,
        reused: report.runs,
        points: report.points,
        runs: by_point
            .iter()
            .map(|l| l.iter().map(|r| (*r).clone()).collect())
            .collect(),
    };
    let warnings = identical_warnings(&whole, manifest.runs);
    Ok((columns_to_py(py, cols)?, warnings))
}

/// The command line's identical-replications warning for every point of `report` whose
/// replications all gave the same metrics (the same code as `packetsim sweep`).
fn identical_warnings(report: &experiment::SweepReport, runs: u32) -> Vec<String> {
    report
        .identical_points()
        .into_iter()
        .map(|p| experiment::identical_replications_warning(runs, p))
        .collect()
}

/// A parameter's column from its value in each row: float64 in SI units
/// (`packetsim::units::si_value`: `10Mbps` → 1e7, `5ms` → 0.005) when every value is a
/// number or a quantity, text otherwise.
fn param_column(texts: Vec<String>) -> Col {
    let numbers: Option<Vec<f64>> = texts
        .iter()
        .map(|t| packetsim::units::si_value(t).map(|(v, _)| v))
        .collect();
    match numbers {
        Some(v) => Col::Float(v),
        None => Col::Str(texts),
    }
}

/// A metric name of a sweep (summary.json's path, `flows.f1.flow_monitor.delay_mean_s`) as
/// (entity, metric) of the long frame, the metric named as flows.csv and queues.csv name
/// their columns (docs/outputs.md):
/// - `flows.NAME.X` → (`flow:NAME`, X without the `flow_monitor.` group);
/// - `queues.NAME.X` → (`queue:NAME`, X; `sojourn.samples` → `sojourn_samples`,
///   `sojourn.sojourn_p99_s` → `sojourn_p99_s`, `drops_by_reason.R` → `drops_R`);
/// - `fct.NAME.X` → (`workload:NAME`, X);
/// - anything else → (`run`, the name unchanged: `events`, `drops.overflow`, `fct_all...`).
///
/// Flow, queue and workload names have no `.` (the scenario loader allows letters, digits,
/// `_` and `-`; a queue is `LINK:FROM->TO`), so the first `.` after the name ends it.
fn entity_metric(name: &str) -> (String, String) {
    let within = |family: &str| {
        name.strip_prefix(family)
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(|rest| rest.split_once('.'))
    };
    if let Some((flow, m)) = within("flows") {
        let m = m.strip_prefix("flow_monitor.").unwrap_or(m);
        return (format!("flow:{flow}"), m.to_string());
    }
    if let Some((queue, m)) = within("queues") {
        let m = if let Some(j) = m.strip_prefix("sojourn.") {
            if j.starts_with("sojourn_") {
                j.to_string()
            } else {
                format!("sojourn_{j}")
            }
        } else if let Some(reason) = m.strip_prefix("drops_by_reason.") {
            format!("drops_{reason}")
        } else {
            m.to_string()
        };
        return (format!("queue:{queue}"), m);
    }
    if let Some((workload, m)) = within("fct") {
        return (format!("workload:{workload}"), m.to_string());
    }
    ("run".into(), name.to_string())
}

/// A sweep's runs as one frame, the one function behind `sweep()` and `merge()`. `by_point`:
/// the stored runs of each grid point (index order), each list in replication order.
///
/// - wide (`long` false): one row per run; one column per parameter ([`param_column`]),
///   `replication` (int64), `seed` (uint64), then one float64 column per metric name
///   (NaN = not available), in the order the names first appear;
/// - long (`long` true): one row per run and metric: `run_id` (uint64: the run number
///   point index × `runs` + replication, which shards are cut by), `seed`, the parameter
///   columns, `replication`, `entity`, `metric` ([`entity_metric`]) and `value` (float64).
fn runs_frame(params: &[Param], runs: u32, by_point: &[Vec<&StoredRun>], long: bool) -> Columns {
    let all: Vec<(u64, &StoredRun)> = by_point
        .iter()
        .enumerate()
        .flat_map(|(pi, list)| {
            list.iter()
                .map(move |r| (pi as u64 * u64::from(runs) + u64::from(r.replication), *r))
        })
        .collect();
    // The run behind each row (and, long, the metric's position in its run).
    let rows: Vec<(usize, usize)> = if long {
        all.iter()
            .enumerate()
            .flat_map(|(i, (_, r))| (0..r.metrics.len()).map(move |m| (i, m)))
            .collect()
    } else {
        (0..all.len()).map(|i| (i, 0)).collect()
    };
    let run_of = |row: &(usize, usize)| all[row.0].1;
    let mut cols: Columns = Vec::new();
    if long {
        cols.push((
            "run_id".into(),
            Col::UInt(rows.iter().map(|row| all[row.0].0).collect()),
        ));
        cols.push((
            "seed".into(),
            Col::UInt(rows.iter().map(|row| run_of(row).seed).collect()),
        ));
    }
    for (i, p) in params.iter().enumerate() {
        let texts = rows
            .iter()
            .map(|row| run_of(row).params[i].1.clone())
            .collect();
        cols.push((p.path.clone(), param_column(texts)));
    }
    cols.push((
        "replication".into(),
        Col::Int(
            rows.iter()
                .map(|row| i64::from(run_of(row).replication))
                .collect(),
        ),
    ));
    if long {
        let (entity, metric): (Vec<String>, Vec<String>) = rows
            .iter()
            .map(|row| entity_metric(&run_of(row).metrics[row.1].0))
            .unzip();
        cols.push(("entity".into(), Col::Str(entity)));
        cols.push(("metric".into(), Col::Str(metric)));
        cols.push((
            "value".into(),
            Col::Float(
                rows.iter()
                    .map(|row| nan_if_none(run_of(row).metrics[row.1].1))
                    .collect(),
            ),
        ));
        return cols;
    }
    cols.push((
        "seed".into(),
        Col::UInt(rows.iter().map(|row| run_of(row).seed).collect()),
    ));
    let mut names: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (_, r) in &all {
        for (n, _) in &r.metrics {
            if seen.insert(n.as_str()) {
                names.push(n);
            }
        }
    }
    for name in names {
        let v = all
            .iter()
            .map(|(_, r)| {
                let x = r.metrics.iter().find(|(n, _)| n == name).and_then(|m| m.1);
                nan_if_none(x)
            })
            .collect();
        cols.push((name.to_string(), Col::Float(v)));
    }
    cols
}

/// Reproduces a study (or `all`) like `packetsim reproduce`. Returns one dict per study:
/// `name`, `report` (path of report.md), `passed`, `failed`, `undecided`.
#[pyfunction]
#[pyo3(signature = (study, out, runs=None, quick=false, jobs=None))]
fn reproduce<'py>(
    py: Python<'py>,
    study: String,
    out: PathBuf,
    runs: Option<Bound<'py, PyAny>>,
    quick: bool,
    jobs: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    use packetsim::studies::{ReproduceOptions, STUDIES};
    let chosen: Vec<_> = STUDIES
        .iter()
        .filter(|s| study == "all" || s.name == study)
        .collect();
    if chosen.is_empty() {
        let names: Vec<&str> = STUDIES.iter().map(|s| s.name).collect();
        return Err(PyValueError::new_err(format!(
            "unknown study {study:?}; expected `all` or one of: {}",
            names.join(", ")
        )));
    }
    // The CLI's limits, through the same code (`reproduce --runs`, `--jobs`).
    use packetsim::experiment::limits;
    let runs = runs.map(|r| limited(&r, limits::runs)).transpose()?;
    let jobs = match jobs {
        Some(j) => limited(&j, limits::jobs)?,
        None => 0,
    };
    let opts = ReproduceOptions {
        out,
        runs,
        quick,
        jobs,
        progress: false,
    };
    let list = PyList::empty(py);
    for s in chosen {
        let o = py
            .detach(|| packetsim::studies::reproduce(s, &opts))
            .map_err(PyRuntimeError::new_err)?;
        let d = PyDict::new(py);
        d.set_item("name", o.name)?;
        d.set_item("report", o.report.display().to_string())?;
        d.set_item("passed", o.passed)?;
        d.set_item("failed", o.failed)?;
        d.set_item("undecided", o.undecided)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The names of the studies `reproduce` knows.
#[pyfunction]
fn studies() -> Vec<&'static str> {
    packetsim::studies::STUDIES.iter().map(|s| s.name).collect()
}

/// The Rust side of the `packetsim` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(studies, m)?)?;
    m.add_class::<NativeSweep>()?;
    Ok(())
}
