//! Study 3 (spec/3-sctp-multihoming.md): SCTP multihoming against TCP Reno and TCP SACK, and
//! the retransmission-path policy. A 4 MiB file crosses one of two identical disjoint paths
//! (2 Mb/s bottleneck, 35 ms one way) whose bottlenecks drop packets uniformly at random.
//!
//! - Figures 2 and 3: path0 loss 0-1% and 0-16%, path1 perfect: TCP Reno, TCP SACK, SCTP
//!   single-homed, SCTP multihomed (retransmissions to the alternate); TCP NewReno as an
//!   extension.
//! - Figure 4: primary loss 0.2%, 2%, 4%; alternate loss 0-5%; policy `alternate` vs `same`.
//! - Figures 5 and 6: primary 4%, alternate 2%; the alternate's bottleneck bandwidth, then its
//!   delay (all three path1 links scaled, spec 3 Q7), as ratios of the primary's.
//! - Beyond the paper (spec 3 §4 extensions and Q2/Q3): at primary 4%, the policy
//!   `alternate_timeouts_only`, a heartbeat after every RTO, the paper's heartbeat jitter, and
//!   loss in both directions.
//!
//! Metric: `flows.file.transfer_time_s` (the handshake excluded, spec 3 §4), mean and 95% CI
//! over `runs` replications (100 by default, as in the paper). Each figure is one resumable
//! sweep whose grid is (curve, x); the points run in parallel.
//!
//! The study is on the one driver ([`super::shape`]): [`Sctp`] states its grid and each
//! point's scenario (the shipped scenario with overrides). Files: `grid.rs` (the figures and
//! their curves), `measure.rs` (per-point results), `verdicts.rs` (verdicts several claims
//! share), `claims.rs` (S1-S15, one function per claim), `extensions.rs` (Q2-Q5 and the §4
//! extensions), `notes.rs` (notes for the checks that do not hold), `figures.rs` (figure.svg
//! and figure.csv), `report.rs` (report.md).

use super::checks::{
    self, above, all, below, crossing_point, crossover, equivalent, exceeds, Check, Estimate,
    Tolerance, Verdict,
};
use super::shape::NS2_DIR;
use super::shape::{param, Pass, Setting, Shape, Sweep, Swept};
use super::{ReproduceOptions, StudyOutcome};
use crate::experiment::aggregate::CsvText;
use crate::experiment::{self, GridPoint, PointSummary, StoredRun};
use crate::report::chart::{Curve, LineChart};
use crate::report::write_atomic;
use crate::scenario::{self, Override};
use std::fmt::Write as _;
use std::path::Path;

mod claims;
mod extensions;
mod figures;
mod grid;
mod measure;
mod notes;
mod report;
mod verdicts;

use claims::*;
use extensions::*;
use figures::*;
use grid::*;
use measure::*;
use notes::*;
use report::*;
use verdicts::*;

/// The study's name on the command line.
pub const NAME: &str = "sctp-multihoming";

/// The SCTP scenario (multihomed; single-homed by overrides), shipped in scenarios/.
pub const SCTP_SCENARIO: &str = include_str!("../../../../../scenarios/sctp-multihoming.toml");
/// The TCP scenario (path0 only), shipped in scenarios/.
pub const TCP_SCENARIO: &str = include_str!("../../../../../scenarios/sctp-tcp-path.toml");

const METRIC: &str = "flows.file.transfer_time_s";

/// Figure 2's path0 loss points, percent (spec 3 §3).
const FIG2: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
/// Figure 3's path0 loss points, percent.
const FIG3: [f64; 10] = [0.0, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0];
/// Figure 4's alternate-path loss points, percent.
const FIG4: [f64; 11] = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0];
/// Figures 5 and 6: alternate / primary ratios.
const RATIOS: [f64; 9] = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0];

/// A transport configuration: which scenario, and the overrides that make it.
#[derive(Clone, Debug)]
struct CurveSpec {
    /// Short id (the grid value).
    id: String,
    /// Legend label.
    label: String,
    /// TCP (path0 only) or SCTP.
    tcp: bool,
    /// Overrides on top of the scenario, fixed along the curve.
    fixed: Vec<(String, String)>,
}

fn tcp(variant: &str) -> CurveSpec {
    CurveSpec {
        id: format!("tcp_{variant}"),
        label: format!(
            "TCP {}",
            match variant {
                "sack" => "SACK",
                "newreno" => "NewReno (ext.)",
                _ => "Reno",
            }
        ),
        tcp: true,
        fixed: vec![("tcp.variant".into(), format!("\"{variant}\""))],
    }
}

fn sctp_single() -> CurveSpec {
    CurveSpec {
        id: "sctp_single".into(),
        label: "SCTP single-homed".into(),
        tcp: false,
        fixed: vec![
            ("flows.file.from_addresses".into(), "[\"S0\"]".into()),
            ("flows.file.to_addresses".into(), "[\"D0\"]".into()),
        ],
    }
}

fn sctp_multi(policy: &str, id: &str, label: &str, extra: &[(&str, &str)]) -> CurveSpec {
    let mut fixed = vec![(
        "flows.file.sctp.rtx_policy".to_string(),
        format!("\"{policy}\""),
    )];
    fixed.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    CurveSpec {
        id: id.into(),
        label: label.into(),
        tcp: false,
        fixed,
    }
}

/// How a figure's x value becomes overrides.
#[derive(Clone, Copy, Debug)]
enum Axis {
    /// Path0 (primary) loss, percent.
    PrimaryLoss,
    /// Path1 (alternate) loss, percent.
    AlternateLoss,
    /// Path1 bottleneck rate / 2 Mb/s.
    BandwidthRatio,
    /// Path1 one-way delay / 35 ms (all three links scaled).
    DelayRatio,
}

impl Axis {
    fn label(self) -> &'static str {
        match self {
            Axis::PrimaryLoss => "path0 (primary) loss rate (%)",
            Axis::AlternateLoss => "path1 (alternate) loss rate (%)",
            Axis::BandwidthRatio => "alternate / primary bottleneck bandwidth",
            Axis::DelayRatio => "alternate / primary one-way delay",
        }
    }

    fn overrides(self, x: f64) -> Vec<(String, String)> {
        let loss =
            |link: &str, pct: f64| (format!("links.{link}.loss"), format!("{}", pct / 100.0));
        match self {
            Axis::PrimaryLoss => vec![loss("path0_core", x)],
            Axis::AlternateLoss => vec![loss("path1_core", x)],
            Axis::BandwidthRatio => vec![(
                "links.path1_core.rate".into(),
                format!("\"{}bps\"", (2e6 * x).round() as u64),
            )],
            Axis::DelayRatio => [
                ("path1_in", 10.0),
                ("path1_core", 15.0),
                ("path1_out", 10.0),
            ]
            .iter()
            .map(|(l, ms)| {
                (
                    format!("links.{l}.delay"),
                    format!("\"{}us\"", (ms * 1000.0 * x).round() as u64),
                )
            })
            .collect(),
        }
    }
}

/// One figure: its curves over one x axis, with overrides shared by every point.
#[derive(Clone, Debug)]
struct FigureSpec {
    dir: &'static str,
    title: String,
    axis: Axis,
    xs: Vec<f64>,
    curves: Vec<CurveSpec>,
    shared: Vec<(String, String)>,
}

/// One point of a curve: x, mean, CI low, CI high, n, and the point's mean diagnostics.
#[derive(Clone, Debug)]
struct Point {
    x: f64,
    mean: f64,
    lo: f64,
    hi: f64,
    median: f64,
    n: u64,
    diag: Vec<(String, f64)>,
    /// Per run (replication order): (seed, transfer time, s); unfinished runs left out.
    runs: Vec<(u64, f64)>,
    /// Per diagnostic, per run: (seed, value).
    diag_runs: Vec<(String, Vec<(u64, f64)>)>,
}

/// A figure's results, per curve id.
struct Results {
    spec: FigureSpec,
    curves: Vec<(CurveSpec, Vec<Point>)>,
}

/// `fig` with ns-2.35's mechanisms: `profile = "ns2"` among its shared overrides (the
/// experiment key includes it, so these runs are stored apart from the standard ones).
fn with_ns2_profile(mut fig: FigureSpec) -> FigureSpec {
    fig.shared.push(("profile".into(), "\"ns2\"".into()));
    fig.title = format!("{} (profile ns2)", fig.title);
    fig
}

/// The base seed of the study's sweeps (the reduced test also runs a disjoint seed set).
const BASE_SEED: u64 = 3;

/// The study on the one driver ([`super::shape::drive`]): each figure one sweep whose grid is
/// (curve, x), curves sharing their seeds; the same figures again with `profile = "ns2"`.
struct Sctp;

impl Shape for Sctp {
    type Def = FigureSpec;
    type Results = Vec<Results>;

    const NAME: &'static str = NAME;
    const BASE_SEED: u64 = BASE_SEED;
    const RUNS: [u32; 2] = [10, 100];

    fn passes(&self) -> &'static [Pass] {
        &[Pass::Own, Pass::AsNs2]
    }
    fn grid(&self, quick: bool, pass: Pass) -> Vec<Sweep<FigureSpec>> {
        figures(quick)
            .into_iter()
            .map(|fig| match pass {
                Pass::Own => fig,
                // Issue 14: ns-2.35's mechanisms (limited transmit, Sack1, the recover guard,
                // ns-2's timers, RFC 4960 SCTP), same seeds.
                Pass::AsNs2 => with_ns2_profile(fig),
            })
            .map(figure_sweep)
            .collect()
    }
    fn scenario(
        &self,
        fig: &FigureSpec,
        point: &GridPoint,
        _seed: u64,
    ) -> Result<scenario::Scenario, String> {
        let get = |k: &str| point.value(k).unwrap_or_default().to_string();
        let curve = fig
            .curves
            .iter()
            .find(|c| c.id == get("curve"))
            .ok_or("unknown curve")?;
        let x: f64 = get("x").parse().map_err(|_| "bad x")?;
        point_scenario(fig, curve, x).map_err(|e| e.to_string())
    }
    fn collect(&self, swept: Vec<Swept<FigureSpec>>) -> Vec<Results> {
        swept
            .iter()
            .map(|s| collect(&s.def, &s.points, &s.runs))
            .collect()
    }
    fn claims(&self, figs: &Vec<Results>) -> Vec<Check> {
        let mut checks = shape_checks(figs);
        checks.extend(extension_checks(figs));
        checks
    }
    fn explain(&self, figs: &Vec<Results>, checks: &mut [Check]) {
        explain(figs, checks)
    }
    fn figures(&self, root: &Path, figs: &Vec<Results>) -> Result<(), String> {
        figs.iter()
            .try_for_each(|r| write_figure(&root.join(r.spec.dir), r))
    }
    fn report(&self, figs: &Vec<Results>, checks: &[Check], set: &Setting) -> String {
        report(figs, checks, set.runs, set.quick)
    }
}

/// Figure `fig` as a sweep over (curve, x); its key folds in the scenarios and every fixed
/// override, so changing a curve reruns it.
fn figure_sweep(fig: FigureSpec) -> Sweep<FigureSpec> {
    let mut keyed = String::from(SCTP_SCENARIO);
    keyed.push_str(TCP_SCENARIO);
    for (k, v) in &fig.shared {
        let _ = writeln!(keyed, "{k}={v}");
    }
    for c in &fig.curves {
        let _ = writeln!(keyed, "{}:{:?}", c.id, c.fixed);
    }
    let ids: Vec<&str> = fig.curves.iter().map(|c| c.id.as_str()).collect();
    Sweep {
        dir: fig.dir.into(),
        key: experiment::experiment_key(&format!("{NAME}/{}", fig.dir), &keyed),
        params: vec![param("curve", &ids), param("x", &fig.xs)],
        shared_seed_params: vec!["curve".into()],
        def: fig,
    }
}

/// The scenario of `curve` at `x`: the figure's shared overrides, the curve's, then the
/// axis's, on the TCP or the SCTP scenario. TCP runs use path0 only, so path1 and SCTP
/// settings are left out for them.
fn point_scenario(
    fig: &FigureSpec,
    curve: &CurveSpec,
    x: f64,
) -> Result<scenario::Scenario, scenario::ScenarioError> {
    let ovs: Vec<Override> = fig
        .shared
        .iter()
        .chain(&curve.fixed)
        .cloned()
        .chain(fig.axis.overrides(x))
        .filter(|(k, _)| {
            !(curve.tcp && (k.starts_with("links.path1") || k.starts_with("flows.file.sctp")))
        })
        .map(|(path, value)| Override { path, value })
        .collect();
    let (text, origin) = if curve.tcp {
        (TCP_SCENARIO, "scenarios/sctp-tcp-path.toml")
    } else {
        (SCTP_SCENARIO, "scenarios/sctp-multihoming.toml")
    };
    scenario::load_str(text, origin, &ovs)
}

/// Runs the study and writes `<out>/sctp-multihoming/{fig2..fig6,ext-fig4}/`, `ns2/` and
/// report.md.
pub fn run(opts: &ReproduceOptions) -> Result<StudyOutcome, String> {
    super::shape::drive(&Sctp, opts)
}

#[cfg(test)]
mod tests;
