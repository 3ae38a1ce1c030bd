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

use super::checks::{
    self, above, all, below, crossing_point, crossover, equivalent, exceeds, Check, Estimate,
    Tolerance, Verdict,
};
use super::shape::{param, Pass, Setting, Shape, Sweep, Swept};
use super::{csv_field, ReproduceOptions, StudyOutcome};
use crate::experiment::{self, GridPoint, PointSummary, StoredRun};
use crate::report::chart::{Curve, LineChart};
use crate::report::write_atomic;
use crate::scenario::{self, Override};
use std::fmt::Write as _;
use std::path::Path;

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

impl Results {
    fn curve(&self, id: &str) -> &[Point] {
        self.curves
            .iter()
            .find(|c| c.0.id == id)
            .map_or(&[][..], |c| &c.1[..])
    }
    fn at(&self, id: &str, x: f64) -> Option<&Point> {
        self.curve(id).iter().find(|p| (p.x - x).abs() < 1e-9)
    }
    fn mean(&self, id: &str, x: f64) -> f64 {
        self.at(id, x).map_or(f64::NAN, |p| p.mean)
    }
}

/// Diagnostics averaged per point (beside the transfer time), for S4 and S11.
const DIAGNOSTICS: [&str; 8] = [
    "flows.file.sctp.paths.0.t3_expiries",
    "flows.file.sctp.paths.1.t3_expiries",
    "flows.file.sctp.paths.0.fast_retransmits",
    "flows.file.sctp.paths.1.fast_retransmits",
    "flows.file.sctp.paths.0.rto_mean_s",
    "flows.file.sctp.paths.1.rto_mean_s",
    "flows.file.sctp.paths.1.retransmitted_chunks",
    "flows.file.sctp.alt_t3_wait_s",
];

use super::shape::NS2_DIR;

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

fn collect(fig: &FigureSpec, points: &[PointSummary], runs: &[Vec<StoredRun>]) -> Results {
    let mut curves: Vec<(CurveSpec, Vec<Point>)> =
        fig.curves.iter().map(|c| (c.clone(), Vec::new())).collect();
    let per_run = |runs: &[StoredRun], name: &str| -> Vec<(u64, f64)> {
        runs.iter()
            .filter_map(|r| {
                let v = r.metrics.iter().find(|m| m.0 == name)?.1?;
                v.is_finite().then_some((r.seed, v))
            })
            .collect()
    };
    for (i, p) in points.iter().enumerate() {
        let point_runs = runs.get(i).map_or(&[][..], |r| &r[..]);
        let get = |k: &str| p.point.value(k).unwrap_or_default().to_string();
        let x: f64 = get("x").parse().unwrap_or(f64::NAN);
        let id = get("curve");
        let Some(m) = p.metrics.iter().find(|m| m.name == METRIC) else {
            continue;
        };
        let diag = DIAGNOSTICS
            .iter()
            .filter_map(|d| {
                p.metrics
                    .iter()
                    .find(|m| m.name == *d)
                    .map(|m| (d.to_string(), m.mean))
            })
            .collect();
        if let Some(c) = curves.iter_mut().find(|c| c.0.id == id) {
            c.1.push(Point {
                x,
                mean: m.mean,
                lo: m.ci95_low,
                hi: m.ci95_high,
                median: m.median,
                n: m.n,
                diag,
                runs: per_run(point_runs, METRIC),
                diag_runs: DIAGNOSTICS
                    .iter()
                    .map(|d| (d.to_string(), per_run(point_runs, d)))
                    .collect(),
            });
        }
    }
    for c in &mut curves {
        c.1.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    Results {
        spec: fig.clone(),
        curves,
    }
}

fn write_figure(dir: &Path, r: &Results) -> Result<(), String> {
    let chart = LineChart {
        title: r.spec.title.clone(),
        x_label: r.spec.axis.label().into(),
        y_label: "4 MiB transfer time (s), mean and 95% CI".into(),
        curves: r
            .curves
            .iter()
            .map(|(c, pts)| Curve {
                label: c.label.clone(),
                points: pts.iter().map(|p| (p.x, p.mean, p.lo, p.hi)).collect(),
            })
            .collect(),
        non_negative: true,
    };
    let mut csv = String::from("curve,label,x,n,mean_s,ci95_low_s,ci95_high_s,median_s");
    for d in DIAGNOSTICS {
        let _ = write!(csv, ",{}", d.trim_start_matches("flows.file.sctp."));
    }
    csv.push('\n');
    for (c, pts) in &r.curves {
        for p in pts {
            let _ = write!(
                csv,
                "{},{},{},{},{:?},{:?},{:?},{:?}",
                c.id,
                csv_field(&c.label),
                p.x,
                p.n,
                p.mean,
                p.lo,
                p.hi,
                p.median
            );
            for d in DIAGNOSTICS {
                let v = p.diag.iter().find(|x| x.0 == d).map(|x| x.1);
                let _ = write!(csv, ",{}", v.map_or(String::new(), |v| format!("{v:?}")));
            }
            csv.push('\n');
        }
    }
    write_atomic(&dir.join("figure.csv"), &csv).map_err(|e| e.to_string())?;
    write_atomic(&dir.join("figure.svg"), &chart.to_svg()).map_err(|e| e.to_string())
}

/// The figures, full or reduced (`quick`).
fn figures(quick: bool) -> Vec<FigureSpec> {
    let pick = |full: &[f64], few: &[f64]| if quick { few.to_vec() } else { full.to_vec() };
    let four = || {
        vec![
            tcp("reno"),
            tcp("sack"),
            sctp_single(),
            sctp_multi("alternate", "sctp_multi", "SCTP multihomed", &[]),
        ]
    };
    let mut f23 = four();
    if !quick {
        f23.push(tcp("newreno"));
        // Beyond the paper: SCTP single-homed held to TCP's 20-packet window, to separate
        // the window from the rest of SCTP's congestion control.
        let mut w = sctp_single();
        w.id = "sctp_single_w20".into();
        w.label = "SCTP single-homed, rwnd 20 packets (ext.)".into();
        w.fixed
            .push(("flows.file.sctp.rwnd".into(), "29040".into()));
        f23.push(w);
        // Spec 3 Q4 and Q5: TCP with a 1 s RTO floor (RFC 2988) and with an initial window
        // of 2 segments.
        let mut t = tcp("sack");
        t.id = "tcp_sack_iw2".into();
        t.label = "TCP SACK, initial window 2 (Q5)".into();
        t.fixed.push(("tcp.initial_cwnd".into(), "2".into()));
        f23.push(t);
        for v in ["reno", "sack"] {
            let mut t = tcp(v);
            t.id = format!("tcp_{v}_rto1");
            t.label = format!("{}, RTO floor 1 s (Q4)", t.label);
            t.fixed.push(("tcp.rto_min".into(), "\"1s\"".into()));
            f23.push(t);
        }
        f23.push(sctp_multi(
            "alternate",
            "sctp_multi_w20",
            "SCTP multihomed, rwnd 20 packets (ext.)",
            &[("flows.file.sctp.rwnd", "29040")],
        ));
    }
    let policies = |p: f64| {
        vec![
            sctp_multi(
                "alternate",
                &format!("alt_{p}"),
                &format!("RTX_TO_ALT, primary {p}%"),
                &[],
            ),
            sctp_multi(
                "same",
                &format!("same_{p}"),
                &format!("RTX_SAME, primary {p}%"),
                &[],
            ),
        ]
    };
    let mut fig4_curves = Vec::new();
    for p in [0.2, 2.0, 4.0] {
        fig4_curves.extend(policies(p));
    }
    let primary_loss = |pct: f64| {
        (
            "links.path0_core.loss".to_string(),
            format!("{}", pct / 100.0),
        )
    };
    let two_policies = vec![
        sctp_multi("alternate", "alt", "RTX_TO_ALT", &[]),
        sctp_multi("same", "same", "RTX_SAME", &[]),
    ];
    let fixed_losses = vec![
        ("links.path0_core.loss".to_string(), "0.04".to_string()),
        ("links.path1_core.loss".to_string(), "0.02".to_string()),
    ];
    let mut figs = vec![
        FigureSpec {
            dir: "fig2",
            title: "Figure 2: 4 MiB transfer time, path0 loss 0-1%, path1 perfect".into(),
            axis: Axis::PrimaryLoss,
            xs: pick(&FIG2, &[0.0, 0.1, 0.6, 1.0]),
            curves: f23.clone(),
            shared: vec![],
        },
        FigureSpec {
            dir: "fig3",
            title: "Figure 3: 4 MiB transfer time, path0 loss 0-16%, path1 perfect".into(),
            axis: Axis::PrimaryLoss,
            xs: pick(&FIG3, &[0.0, 4.0, 10.0, 16.0]),
            curves: f23,
            shared: vec![],
        },
    ];
    // Figure 4: each primary loss is its own pair of curves; the primary loss is part of the
    // curve (a fixed override), the alternate loss is the axis.
    let mut fig4 = FigureSpec {
        dir: "fig4",
        title: "Figure 4: RTX_TO_ALT vs RTX_SAME, alternate loss 0-5%".into(),
        axis: Axis::AlternateLoss,
        xs: pick(&FIG4, &[0.0, 0.5, 2.0, 5.0]),
        curves: fig4_curves,
        shared: vec![],
    };
    for c in &mut fig4.curves {
        let p: f64 =
            c.id.split('_')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0.0);
        c.fixed.push(primary_loss(p));
    }
    figs.push(fig4);
    figs.push(FigureSpec {
        dir: "fig5",
        title: "Figure 5: alternate bottleneck bandwidth ratio (primary 4%, alternate 2% loss)"
            .into(),
        axis: Axis::BandwidthRatio,
        xs: pick(&RATIOS, &[0.5, 1.0, 2.0, 4.0]),
        curves: two_policies.clone(),
        shared: fixed_losses.clone(),
    });
    figs.push(FigureSpec {
        dir: "fig6",
        title: "Figure 6: alternate one-way delay ratio (primary 4%, alternate 2% loss)".into(),
        axis: Axis::DelayRatio,
        xs: pick(&RATIOS, &[0.25, 1.0, 2.0, 4.0]),
        curves: two_policies,
        shared: fixed_losses,
    });
    if !quick {
        figs.extend(extension_figures());
    }
    figs
}

/// The figures beyond the paper (full runs only).
fn extension_figures() -> Vec<FigureSpec> {
    let mut figs = Vec::new();
    // Figures 5 and 6 again at packetsim's own crossover of the primary-4% pair (about
    // 1% alternate loss, see S7), so that the policies are about equal at ratio 1 by
    // construction, as the paper's 4%/2% point was for ns-2.
    let at_crossover = vec![
        ("links.path0_core.loss".to_string(), "0.04".to_string()),
        ("links.path1_core.loss".to_string(), "0.01".to_string()),
    ];
    for (dir, axis, what) in [
        ("ext-fig5", Axis::BandwidthRatio, "bandwidth"),
        ("ext-fig6", Axis::DelayRatio, "one-way delay"),
    ] {
        figs.push(FigureSpec {
            dir,
            title: format!(
                "Beyond the paper: alternate {what} ratio at packetsim's crossover \
                 (primary 4%, alternate 1% loss)"
            ),
            axis,
            xs: RATIOS.to_vec(),
            curves: vec![
                sctp_multi("alternate", "alt", "RTX_TO_ALT", &[]),
                sctp_multi("same", "same", "RTX_SAME", &[]),
            ],
            shared: at_crossover.clone(),
        });
    }
    figs.push(FigureSpec {
        dir: "ext-fig4",
        title: "Beyond the paper: primary 4%, alternate loss 0-5%, policy and probing variants"
            .into(),
        axis: Axis::AlternateLoss,
        xs: vec![0.0, 1.0, 2.0, 3.0, 5.0],
        curves: vec![
            sctp_multi("alternate", "alt", "RTX_TO_ALT", &[]),
            sctp_multi("same", "same", "RTX_SAME", &[]),
            sctp_multi(
                "alternate_timeouts_only",
                "alt_to_only",
                "RTX_ALT_TIMEOUTS_ONLY",
                &[],
            ),
            sctp_multi(
                "alternate",
                "alt_hb_after_rto",
                "RTX_TO_ALT + heartbeat after RTO",
                &[("flows.file.sctp.hb_after_rto", "true")],
            ),
            sctp_multi(
                "alternate",
                "alt_paper_jitter",
                "RTX_TO_ALT, paper's heartbeat jitter (Q2)",
                &[("flows.file.sctp.hb_jitter", "\"paper\"")],
            ),
            sctp_multi(
                "alternate",
                "alt_both_dirs",
                "RTX_TO_ALT, loss both directions (Q3)",
                &[
                    ("links.path0_core.errors", "\"both\""),
                    ("links.path1_core.errors", "\"both\""),
                ],
            ),
            sctp_multi(
                "same",
                "same_both_dirs",
                "RTX_SAME, loss both directions (Q3)",
                &[
                    ("links.path0_core.errors", "\"both\""),
                    ("links.path1_core.errors", "\"both\""),
                ],
            ),
        ],
        shared: vec![("links.path0_core.loss".into(), "0.04".into())],
    });
    figs
}

impl Results {
    /// The per-run transfer times of curve `id` at `x`, (seed, s).
    fn samples(&self, id: &str, x: f64) -> &[(u64, f64)] {
        self.at(id, x).map_or(&[][..], |p| &p.runs[..])
    }
    /// The per-run values of diagnostic `name` (suffix) of curve `id` at `x`.
    fn diag_samples(&self, id: &str, x: f64, name: &str) -> &[(u64, f64)] {
        self.at(id, x)
            .and_then(|p| p.diag_runs.iter().find(|d| d.0.ends_with(name)))
            .map_or(&[][..], |d| &d.1[..])
    }
    /// Curve `a` minus curve `b` at `x`: paired over the shared seeds (Welch if they differ).
    fn diff(&self, a: &str, b: &str, x: f64) -> Estimate {
        Estimate::difference(self.samples(a, x), self.samples(b, x))
    }
    /// The mean transfer time of curve `id` at `x`, with its CI.
    fn est(&self, id: &str, x: f64) -> Estimate {
        Estimate::mean(&values(self.samples(id, x)))
    }
}

fn values(s: &[(u64, f64)]) -> Vec<f64> {
    s.iter().map(|v| v.1).collect()
}

/// `ok` as a verdict of a part that is not statistical (a curve or point is missing).
fn present(ok: bool) -> Verdict {
    if ok {
        Verdict::Holds
    } else {
        Verdict::NotDecidable
    }
}

const PAIRED: &str = "paired difference of transfer times over the shared seeds (common random \
                      numbers), 95% Student-t CI";
/// "Beats" between the retransmission policies: faster by at least 2% of the transfer time.
const BEATS: f64 = 0.02;
/// "About equal" / "almost the same": within 5% of the transfer time.
const ABOUT_EQUAL: f64 = 0.05;

/// S1 on the SCTP curves `multi` and `single` of Figure 2: at every loss above 0.5% the three
/// gaps of the order multi < SACK < single < Reno are significantly positive, and the Reno −
/// multihomed gap is larger at the last point than at the first.
fn s1_verdict(f2: &Results, multi: &str, single: &str) -> (Verdict, String) {
    let above: Vec<f64> = f2.spec.xs.iter().copied().filter(|&x| x > 0.5).collect();
    let mut parts = vec![present(above.len() >= 2)];
    let mut shown = Vec::new();
    for &x in &above {
        let g = [
            f2.diff("tcp_sack", multi, x),
            f2.diff(single, "tcp_sack", x),
            f2.diff("tcp_reno", single, x),
        ];
        parts.extend(g.iter().map(|d| exceeds(d, 0.0)));
        shown.push(format!(
            "{x}%: SACK−M {}, 1H−SACK {}, Reno−1H {}",
            g[0].show(2),
            g[1].show(2),
            g[2].show(2)
        ));
    }
    if let (Some(&a), Some(&b)) = (above.first(), above.last()) {
        let w = Estimate::combine(
            &[
                (1.0, f2.diff("tcp_reno", multi, b)),
                (-1.0, f2.diff("tcp_reno", multi, a)),
            ],
            "combined",
        );
        parts.push(exceeds(&w, 0.0));
        shown.push(format!("Reno−M gap at {b}% minus at {a}%: {}", w.show(2)));
    }
    (all(&parts), shown.join("; "))
}

/// S2 on `single`: slower than TCP SACK at every loss in 0.5-1%.
fn s2_verdict(f2: &Results, single: &str) -> (Verdict, String) {
    let xs: Vec<f64> = f2.spec.xs.iter().copied().filter(|&x| x >= 0.5).collect();
    let d: Vec<(f64, Estimate)> = xs
        .iter()
        .map(|&x| (x, f2.diff(single, "tcp_sack", x)))
        .collect();
    let mut parts = vec![present(!d.is_empty())];
    parts.extend(d.iter().map(|(_, e)| exceeds(e, 0.0)));
    (
        all(&parts),
        d.iter()
            .map(|(x, e)| format!("{x}%: 1H−SACK {} s", e.show(2)))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// S3 on `multi`/`single`: at 0% and 0.1%, each SCTP curve is slower than each TCP, by less
/// than 5% of the TCP time ("a little").
fn s3_verdict(f2: &Results, multi: &str, single: &str) -> (Verdict, String) {
    let xs: Vec<f64> = f2.spec.xs.iter().copied().filter(|&x| x <= 0.1).collect();
    let mut parts = vec![present(!xs.is_empty())];
    let mut shown = Vec::new();
    for &x in &xs {
        for s in [single, multi] {
            for t in ["tcp_reno", "tcp_sack"] {
                let d = f2.diff(s, t, x);
                parts.push(exceeds(&d, 0.0));
                parts.push(below(&d, 0.05 * f2.mean(t, x)));
                if t == "tcp_sack" {
                    shown.push(format!(
                        "{x}%: {}−SACK {} s",
                        if s == single { "1H" } else { "M" },
                        d.show(3)
                    ));
                }
            }
        }
    }
    (all(&parts), shown.join(", "))
}

/// S5's significance part on TCP curves `tcps`: at every loss ≥ 4% each SCTP curve is
/// significantly faster than each TCP; at the highest loss by at least 10% ("far").
fn s5_verdict(f3: &Results, tcps: [&str; 2]) -> (Verdict, String) {
    let big: Vec<f64> = f3.spec.xs.iter().copied().filter(|&x| x >= 4.0).collect();
    let hi = big.last().copied().unwrap_or(f64::NAN);
    let mut parts = vec![present(!big.is_empty())];
    let mut shown = Vec::new();
    for &x in &big {
        for t in tcps {
            for s in ["sctp_single", "sctp_multi"] {
                let d = f3.diff(t, s, x);
                parts.push(exceeds(&d, 0.0));
                if x == hi {
                    parts.push(exceeds(&d, 0.10 * f3.mean(t, x)));
                    shown.push(format!("{t}−{s} at {x}%: {} s", d.show(1)));
                }
            }
        }
    }
    (all(&parts), shown.join(", "))
}

/// ALT − SAME of a Figure 4 pair at every alternate loss.
fn policy_diffs(f4: &Results, alt: &str, same: &str) -> Vec<(f64, Estimate)> {
    f4.spec
        .xs
        .iter()
        .map(|&x| (x, f4.diff(alt, same, x)))
        .collect()
}

fn show_diffs(d: &[(f64, Estimate)], digits: usize) -> String {
    d.iter()
        .map(|(x, e)| format!("{x}: {}", e.show(digits)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn show_crossing(c: Option<f64>) -> String {
    c.map_or("none".into(), |c| format!("{c:.2}%"))
}

/// S12/S13 on a Figure 5/6 sweep (`above`: bandwidth, ALT should beat SAME only above ratio
/// 1; otherwise delay, only below it). Parts: on the wrong side and at 1, ALT does not beat
/// SAME (SAME − ALT below 2% of SAME's time); at the most favourable ratio it does; and, for
/// the bandwidth sweep, the two are about equal (within 5%) at 1.
fn ratio_verdict(r: &Results, above_one: bool) -> (Verdict, String) {
    let xs = &r.spec.xs;
    let adv = |x: f64| r.diff("same", "alt", x);
    let wrong_side = |x: f64| {
        if above_one {
            x <= 1.0 + 1e-9
        } else {
            x >= 1.0 - 1e-9
        }
    };
    let mut parts = Vec::new();
    for &x in xs.iter().filter(|&&x| wrong_side(x)) {
        parts.push(below(&adv(x), BEATS * r.mean("same", x)));
    }
    let best = if above_one { xs.last() } else { xs.first() };
    match best {
        Some(&x) if !wrong_side(x) => parts.push(exceeds(&adv(x), BEATS * r.mean("same", x))),
        _ => parts.push(Verdict::NotDecidable),
    }
    if above_one {
        match xs.iter().find(|&&x| (x - 1.0).abs() < 1e-9) {
            Some(&x) => parts.push(equivalent(&adv(x), ABOUT_EQUAL * r.mean("same", x))),
            None => parts.push(Verdict::NotDecidable),
        }
    }
    (
        all(&parts),
        format!(
            "SAME − ALT (s): {}",
            xs.iter()
                .map(|&x| format!("{x}: {}", adv(x).show(2)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}

/// Evaluates the shape checks of spec 3 §5.1 on the figures' results.
fn shape_checks(figs: &[Results]) -> Vec<Check> {
    let f = |dir: &str| figs.iter().find(|r| r.spec.dir == dir);
    let (Some(f2), Some(f3), Some(f4), Some(f5), Some(f6)) =
        (f("fig2"), f("fig3"), f("fig4"), f("fig5"), f("fig6"))
    else {
        return Vec::new();
    };
    let mut out = fig23_checks(f2, f3);
    let (fig4, s10) = fig4_checks(f4);
    out.extend(fig4);
    out.extend(fig56_checks(f5, f6, s10));
    out
}

/// The zero-loss baseline and S1-S6 (Figures 2 and 3).
fn fig23_checks(f2: &Results, f3: &Results) -> Vec<Check> {
    let mut out = Vec::new();
    // Zero-loss sanity check (spec 3 §5.2).
    let (r0, s0) = (f2.est("tcp_reno", 0.0), f2.est("sctp_single", 0.0));
    let tol_tcp = Tolerance {
        lo: 17.24,
        hi: 17.9,
        reason: String::new(),
    };
    let tol_sctp = Tolerance {
        lo: 17.33,
        ..tol_tcp.clone()
    };
    out.push(Check::new(
        "baseline",
        "at 0% loss: serialisation alone is 17.24 s (TCP) and 17.33 s (SCTP); about 17.3-17.5 s \
         plus slow start",
        "TCP in [17.24, 17.9] s, SCTP in [17.33, 17.9] s: the serialisation time is a hard \
         floor; slow start from 1-2 packets to the ~14-packet pipe takes about 4 round trips of \
         ~80 ms, so at most 0.4 s above the spec's 17.5 s",
        "mean over runs (all runs identical at 0% loss), 95% CI",
        format!(
            "TCP Reno {} s, SCTP single-homed {} s",
            r0.show(3),
            s0.show(3)
        ),
        all(&[
            checks::within(&r0, &tol_tcp),
            checks::within(&s0, &tol_sctp),
        ]),
    ));
    let (v, m) = s1_verdict(f2, "sctp_multi", "sctp_single");
    out.push(Check::new(
        "S1",
        "for path0 loss > 0.5%: SCTP multihomed < TCP SACK < SCTP single-homed < TCP Reno, and \
         the gaps widen as loss grows",
        "an ordering (no size given): each gap significantly above zero at every point above \
         0.5%; widening: the Reno − multihomed gap significantly larger at the last point than \
         at the first",
        &format!("{PAIRED}; widening: difference of two independent paired estimates"),
        m,
        v,
    ));
    let (v, m) = s2_verdict(f2, "sctp_single");
    out.push(Check::new(
        "S2",
        "loss 0.5-1%: single-homed SCTP is slower than TCP SACK",
        "no size given: significantly slower at every point in 0.5-1%",
        PAIRED,
        m,
        v,
    ));
    let (v, m) = s3_verdict(f2, "sctp_multi", "sctp_single");
    out.push(Check::new(
        "S3",
        "at 0% and 0.1% loss both TCP variants finish a little faster than both SCTP variants",
        "each SCTP curve significantly slower than each TCP; \"a little\": by less than 5% of \
         the TCP time (the paper's cause, 8 B more header per packet, is worth 0.5%)",
        PAIRED,
        m,
        v,
    ));
    let x4 = *f2.spec.xs.last().unwrap_or(&1.0);
    let gain = f2.diff("sctp_single", "sctp_multi", x4);
    let rtx1 = Estimate::mean(&values(f2.diag_samples(
        "sctp_multi",
        x4,
        "paths.1.retransmitted_chunks",
    )));
    out.push(Check::new(
        "S4",
        "multihomed SCTP gains because its retransmissions travel on the loss-free alternate",
        "the gain significantly above zero at the highest Figure 2 loss, and a nonzero number \
         of chunks retransmitted on path1 (the mechanism)",
        &format!("{PAIRED}; mean path1 retransmitted chunks per run"),
        format!(
            "at {x4}%: single − multihomed {} s; {} chunks per run retransmitted on path1",
            gain.show(2),
            rtx1.show(1)
        ),
        all(&[exceeds(&gain, 0.0), above(&rtx1, 0.0)]),
    ));
    let (v, m) = s5_verdict(f3, ["tcp_reno", "tcp_sack"]);
    out.push(Check::new(
        "S5",
        "as loss grows both SCTP variants are far faster than both TCP variants (single-homed \
         too: the gain is SCTP's congestion control)",
        "each SCTP curve significantly faster than each TCP at every loss >= 4% (where the \
         spec's Fig 3 discussion starts); \"far\": by at least 10% of the TCP time at the \
         highest loss",
        PAIRED,
        m,
        v,
    ));
    let over4: Vec<f64> = f3.spec.xs.iter().copied().filter(|&x| x > 4.0).collect();
    let d6: Vec<(f64, Estimate)> = over4
        .iter()
        .map(|&x| (x, f3.diff("sctp_single", "sctp_multi", x)))
        .collect();
    let mut p6 = vec![present(!d6.is_empty())];
    p6.extend(
        d6.iter()
            .map(|(x, e)| exceeds(e, 0.05 * f3.mean("sctp_single", *x))),
    );
    out.push(Check::new(
        "S6",
        "above 4% loss multihomed SCTP is clearly faster than single-homed",
        "\"clearly\": significantly faster by at least 5% of the single-homed time at every \
         point above 4%",
        PAIRED,
        format!("single − multi (s): {}", show_diffs(&d6, 1)),
        all(&p6),
    ));
    out
}

/// S7-S11 (Figure 4), and S10's verdict for S15.
fn fig4_checks(f4: &Results) -> (Vec<Check>, Verdict) {
    let mut out = Vec::new();
    // S7-S9: Figure 4.
    let xs4 = f4.spec.xs.clone();
    let last4 = *xs4.last().unwrap_or(&5.0);
    let d4 = policy_diffs(f4, "alt_4", "same_4");
    let tol7 = Tolerance::about(2.0, "2%");
    let widen_from = xs4.iter().copied().find(|&x| x >= tol7.lo).unwrap_or(last4);
    let widen = Estimate::combine(
        &[
            (1.0, f4.diff("alt_4", "same_4", last4)),
            (-1.0, f4.diff("alt_4", "same_4", widen_from)),
        ],
        "combined",
    );
    out.push(Check::new(
        "S7",
        "primary 4%: with low alternate loss RTX_TO_ALT is faster; once the alternate loss \
         passes about 2% (about 50% of the primary's) RTX_SAME is faster, and the gap widens \
         with alternate loss",
        "crossover in [1.5%, 2.5%] (\"about 2%\" read as ±25%): ALT − SAME significantly \
         negative at every point below 1.5% and significantly positive at every point above \
         2.5%; widening: ALT − SAME significantly larger at the last point than at the first \
         point >= 1.5%",
        &format!("{PAIRED}; widening: difference of two independent paired estimates"),
        format!(
            "ALT − SAME (s): {}; mean crossing {}; widening {} − {}: {} s",
            show_diffs(&d4, 2),
            show_crossing(crossing_point(&d4)),
            last4,
            widen_from,
            widen.show(2)
        ),
        all(&[crossover(&d4, &tol7), exceeds(&widen, 0.0)]),
    ));
    let d2 = policy_diffs(f4, "alt_2", "same_2");
    let tol8 = Tolerance::about(0.5, "0.5%");
    let help0 = f4.diff("same_2", "alt_2", 0.0);
    out.push(Check::new(
        "S8",
        "primary 2%: RTX_TO_ALT helps only slightly, and only while the alternate loss is below \
         about 25% of the primary's (about 0.5%)",
        "crossover in [0.375%, 0.625%] (\"about 0.5%\" read as ±25%), judged as in S7; \
         \"only slightly\": its gain on a perfect alternate below 5% of RTX_SAME's time",
        PAIRED,
        format!(
            "ALT − SAME (s): {}; mean crossing {}",
            show_diffs(&d2, 2),
            show_crossing(crossing_point(&d2))
        ),
        all(&[
            crossover(&d2, &tol8),
            below(&help0, 0.05 * f4.mean("same_2", 0.0)),
        ]),
    ));
    let d02 = policy_diffs(f4, "alt_0.2", "same_0.2");
    let mut p9 = vec![present(!d02.is_empty())];
    p9.extend(
        d02.iter()
            .map(|(x, e)| equivalent(e, ABOUT_EQUAL * f4.mean("same_0.2", *x))),
    );
    out.push(Check::new(
        "S9",
        "primary 0.2%: the two policies give almost the same transfer time over the whole sweep",
        "\"almost the same\": the CI of ALT − SAME within ±5% of RTX_SAME's time at every point",
        PAIRED,
        format!("ALT − SAME (s): {}", show_diffs(&d02, 2)),
        all(&p9),
    ));
    // S10: equal loss is not enough.
    let eq: Vec<(f64, Estimate)> = [2.0, 4.0]
        .iter()
        .filter(|p| xs4.iter().any(|x| (x - **p).abs() < 1e-9))
        .map(|&p| {
            let (a, s) = (format!("alt_{p}"), format!("same_{p}"));
            (p, f4.diff(&s, &a, p))
        })
        .collect();
    let mut p10 = vec![present(!eq.is_empty())];
    p10.extend(
        eq.iter()
            .map(|(p, e)| below(e, BEATS * f4.mean(&format!("same_{p}"), *p))),
    );
    let s10 = all(&p10);
    out.push(Check::new(
        "S10",
        "the alternate path must be clearly more reliable than the primary for RTX_TO_ALT to \
         pay off; equal loss is not enough",
        "\"pays off\" = beats: faster by at least 2% of the transfer time; at equal loss (both \
         2%, both 4%) SAME − ALT must be significantly below that",
        PAIRED,
        eq.iter()
            .map(|(p, e)| format!("both {p}%: SAME − ALT {} s", e.show(2)))
            .collect::<Vec<_>>()
            .join("; "),
        s10,
    ));
    // S11: the mechanism, from the diagnostics of the primary-4% pair at the highest
    // alternate loss.
    let dg = |id: &str, name: &str| f4.diag_samples(id, last4, name);
    let alt_t3 = Estimate::mean(&values(dg("alt_4", "paths.1.t3_expiries")));
    let alt_fr = Estimate::mean(&values(dg("alt_4", "paths.1.fast_retransmits")));
    let alt_rto = Estimate::mean(&values(dg("alt_4", "paths.1.rto_mean_s")));
    let rto_gap = Estimate::difference(
        dg("alt_4", "paths.1.rto_mean_s"),
        dg("same_4", "paths.0.rto_mean_s"),
    );
    let wait = Estimate::mean(&values(dg("alt_4", "alt_t3_wait_s")));
    out.push(Check::new(
        "S11",
        "RTX_TO_ALT with a lossy alternate: chunks lost on the alternate are recovered only by \
         the alternate's T3 expiries; the alternate's RTO stays high for long stretches, \
         changing only at heartbeat samples; under RTX_SAME the primary's RTO is pulled down \
         by new-data samples",
        "path1 T3 expiries significantly above 0 and path1 fast retransmits below 0.5 per run; \
         ALT's time-weighted path1 RTO significantly above RTX_SAME's path0 RTO (same seeds). \
         \"Only at heartbeat samples\" is not measured per run (Karn's rule is tested in the \
         SCTP unit tests)",
        "means per run with 95% CIs; paired difference of the RTOs",
        format!(
            "primary 4%, alternate {last4}%: path1 T3 expiries {}, path1 fast retransmits {}, \
             path1 mean RTO {} s, ALT path1 RTO − SAME path0 RTO {} s, {} s per run waiting on \
             path1's T3",
            alt_t3.show(1),
            alt_fr.show(2),
            alt_rto.show(2),
            rto_gap.show(2),
            wait.show(2)
        ),
        all(&[
            above(&alt_t3, 0.0),
            below(&alt_fr, 0.5),
            exceeds(&rto_gap, 0.0),
        ]),
    ));
    (out, s10)
}

/// S12-S15 (Figures 5 and 6); `s10` is S10's verdict.
fn fig56_checks(f5: &Results, f6: &Results, s10: Verdict) -> Vec<Check> {
    let mut out = Vec::new();
    let (v12, m12) = ratio_verdict(f5, true);
    out.push(Check::new(
        "S12",
        "RTX_TO_ALT beats RTX_SAME only when the alternate's bandwidth is higher (ratio > 1); \
         at ratio 1 the two are about equal (by construction of the 4%/2% point)",
        "beats = significantly faster by at least 2% of the transfer time: not at any ratio <= \
         1, yes at the highest ratio; about equal at 1: SAME − ALT within ±5%",
        PAIRED,
        m12,
        v12,
    ));
    let (v13, m13) = ratio_verdict(f6, false);
    out.push(Check::new(
        "S13",
        "RTX_TO_ALT beats RTX_SAME only when the alternate's delay is shorter (ratio < 1)",
        "beats = significantly faster by at least 2%: not at any ratio >= 1, yes at the lowest \
         ratio",
        PAIRED,
        m13,
        v13,
    ));
    let span = |r: &Results| {
        let xs = &r.spec.xs;
        let (a, b) = (xs.first().copied(), xs.last().copied());
        match (a, b) {
            (Some(a), Some(b)) => {
                let e = Estimate::combine(
                    &[(1.0, r.est("alt", b)), (-1.0, r.est("alt", a))],
                    "combined",
                );
                // Sensitivity is the size of the change, whichever its sign.
                Estimate {
                    mean: e.mean.abs(),
                    ..e
                }
            }
            _ => Estimate::mean(&[]),
        }
    };
    let (sp5, sp6) = (span(f5), span(f6));
    let sens = Estimate::combine(&[(1.0, sp6), (-1.0, sp5)], "combined");
    out.push(Check::new(
        "S14",
        "transfer time is more sensitive to the delay ratio than to the bandwidth ratio",
        "no size given: the change of RTX_TO_ALT's time between the sweep's end ratios (0.25 \
         and 4 in both) significantly larger for delay",
        "difference of independent means at the end ratios, then of the two changes (Welch)",
        format!(
            "RTX_TO_ALT change over the ratios: delay {} s, bandwidth {} s; difference {} s",
            sp6.show(2),
            sp5.show(2),
            sens.show(2)
        ),
        exceeds(&sens, 0.0),
    ));
    out.push(Check::new(
        "S15",
        "when loss rates are similar, retransmitting to the alternate pays off only if its RTT \
         is smaller; the alternate's state needs a better estimate than 30 s heartbeats give",
        "the conjunction of S10 (equal loss is not enough) and S13 (a shorter alternate RTT is \
         what helps); the second sentence is judged by 'ext. probe after RTO' (full runs)",
        "as S10 and S13",
        format!("S10 {}, S13 {}", s10.word(), v13.word()),
        all(&[s10, v13]),
    ));
    out
}

/// Extension checks (spec 3 Q2-Q5 and the §4 extensions), on the full figures' extra curves.
fn extension_checks(figs: &[Results]) -> Vec<Check> {
    let f = |dir: &str| figs.iter().find(|r| r.spec.dir == dir);
    let mut out = Vec::new();
    if let Some(f2) = f("fig2") {
        if !f2.curve("sctp_single_w20").is_empty() {
            let (multi, single) = ("sctp_multi_w20", "sctp_single_w20");
            let (v1, _) = s1_verdict(f2, multi, single);
            let (v2, m2) = s2_verdict(f2, single);
            let (v3, _) = s3_verdict(f2, multi, single);
            out.push(Check::new(
                "S1-S3, equal windows",
                "(beyond the paper; tests the window explanation of S1-S3) with SCTP's window \
                 held to TCP's 20 packets, the paper's Figure 2 orderings S1, S2 and S3 appear",
                "as S1, S2 and S3",
                PAIRED,
                format!(
                    "S1 order {}, S2 {}, S3 {}; S2's differences: {m2}",
                    v1.word(),
                    v2.word(),
                    v3.word()
                ),
                all(&[v1, v2, v3]),
            ));
        }
    }
    if let (Some(f2), Some(f3)) = (f("fig2"), f("fig3")) {
        if !f3.curve("tcp_sack_rto1").is_empty() {
            let (v, m) = s5_verdict(f3, ["tcp_reno_rto1", "tcp_sack_rto1"]);
            out.push(Check::new(
                "Q4",
                "S5 also holds with TCP's RTO floored at 1 s (RFC 2988)",
                "as S5",
                PAIRED,
                m,
                v,
            ));
            let x = 1.0;
            let d1 = f2.diff("sctp_single", "tcp_sack", x);
            let d2 = f2.diff("sctp_single", "tcp_sack_iw2", x);
            let sig = |e: &Estimate| {
                if e.lo() > 0.0 {
                    1
                } else if e.hi() < 0.0 {
                    -1
                } else {
                    0
                }
            };
            let v = match (sig(&d1), sig(&d2)) {
                _ if !(d1.decidable() && d2.decidable()) => Verdict::NotDecidable,
                (a, b) if a != 0 && a == b => Verdict::Holds,
                (a, b) if a != 0 && b != 0 => Verdict::DoesNotHold,
                _ => Verdict::NotDecidable,
            };
            out.push(Check::new(
                "Q5",
                "TCP's initial window (1 or 2 segments) does not change the Figure 2 comparison \
                 of SCTP single-homed with TCP SACK",
                "single-homed − SACK at 1% significant and of the same sign with both windows",
                PAIRED,
                format!(
                    "at {x}%: single-homed − SACK {} s with 1 segment, {} s with 2",
                    d1.show(2),
                    d2.show(2)
                ),
                v,
            ));
        }
    }
    for (dir, id, above_one, what) in [
        (
            "ext-fig5",
            "S12 at crossover",
            true,
            "bandwidth is higher (ratio > 1); about equal at 1",
        ),
        (
            "ext-fig6",
            "S13 at crossover",
            false,
            "delay is shorter (ratio < 1)",
        ),
    ] {
        if let Some(r) = f(dir) {
            let (v, m) = ratio_verdict(r, above_one);
            out.push(Check::new(
                id,
                &format!(
                    "(S12/S13 at packetsim's own crossover, primary 4% / alternate 1%) \
                     RTX_TO_ALT beats RTX_SAME only when the alternate's {what}"
                ),
                "as S12/S13",
                PAIRED,
                m,
                v,
            ));
        }
    }
    if let Some(ext) = f("ext-fig4") {
        out.extend(ext_fig4_checks(ext));
    }
    out
}

/// Spec 3 Q2, Q3 and the §4 extensions on the extension curves of Figure 4 (`ext-fig4`).
fn ext_fig4_checks(ext: &Results) -> Vec<Check> {
    let mut out = Vec::new();
    let xs = ext.spec.xs.clone();
    let (first, last) = (xs[0], *xs.last().unwrap_or(&5.0));
    let dq2 = policy_diffs(ext, "alt_paper_jitter", "same");
    out.push(Check::new(
        "Q2",
        "the paper's heartbeat jitter (30 s ± 15 s) does not change the conclusions",
        "with the paper's jitter RTX_TO_ALT still significantly faster on a perfect alternate \
         and RTX_SAME significantly faster at the highest alternate loss",
        PAIRED,
        format!("ALT (paper's jitter) − SAME (s): {}", show_diffs(&dq2, 2)),
        all(&[
            exceeds(&ext.diff("same", "alt_paper_jitter", first), 0.0),
            exceeds(&ext.diff("alt_paper_jitter", "same", last), 0.0),
        ]),
    ));
    let dq3 = policy_diffs(ext, "alt_both_dirs", "same_both_dirs");
    out.push(Check::new(
        "Q3",
        "with loss in both directions RTX_SAME still wins at high alternate loss",
        "no size given: ALT − SAME significantly positive at the highest alternate loss",
        PAIRED,
        format!("ALT − SAME, both directions (s): {}", show_diffs(&dq3, 2)),
        exceeds(&ext.diff("alt_both_dirs", "same_both_dirs", last), 0.0),
    ));
    let dto = policy_diffs(ext, "alt_to_only", "same");
    let mut pto = vec![present(!dto.is_empty())];
    pto.extend(
        dto.iter()
            .map(|(x, e)| equivalent(e, 0.03 * ext.mean("same", *x))),
    );
    out.push(Check::new(
        "ext. timeouts only",
        "(not in the paper) with fast retransmits kept on the primary and only timeout \
         retransmissions sent to the alternate, the transfer behaves like RTX_SAME",
        "\"behaves like\": the CI of the difference within ±3% of RTX_SAME's time at every point \
         (tighter than 'about equal' because the claim is that the policy barely matters)",
        PAIRED,
        format!("timeouts only − SAME (s): {}", show_diffs(&dto, 2)),
        all(&pto),
    ));
    let dhb = ext.diff("alt", "alt_hb_after_rto", last);
    out.push(Check::new(
        "ext. probe after RTO",
        "(paper's conclusion) a fresher estimate of the alternate (heartbeat after each RTO) \
         makes RTX_TO_ALT less costly on a lossy alternate",
        "no size given: ALT − ALT with heartbeat after RTO significantly positive at the \
         highest alternate loss",
        PAIRED,
        format!(
            "at {last}%: ALT − (ALT + heartbeat after RTO) {} s",
            dhb.show(2)
        ),
        exceeds(&dhb, 0.0),
    ));
    out
}

/// Notes for the checks that do not hold or cannot be decided, computed from this run's
/// results (see the checks module doc): measured numbers, or a labelled hypothesis.
fn explain(figs: &[Results], checks: &mut [Check]) {
    let f = |dir: &str| figs.iter().find(|r| r.spec.dir == dir);
    let verdict_of =
        |checks: &[Check], id: &str| checks.iter().find(|c| c.id == id).map(|c| c.verdict.word());
    let ext = |id| verdict_of(checks, id);
    let mut window = String::from(
        "Hypothesis: SCTP's 64 KiB receive window (44 packets) against TCP's 20 segments lets \
         single-homed SCTP keep the ~14-packet pipe full through a fast retransmit.",
    );
    if let Some(f2) = f("fig2") {
        let x = *f2.spec.xs.last().unwrap_or(&1.0);
        let d = f2.diff("sctp_single", "tcp_sack", x);
        let _ = write!(
            window,
            " Measured at {x}%: single-homed − SACK {} s (64 KiB window)",
            d.show(2)
        );
        if !f2.curve("sctp_single_w20").is_empty() {
            let d20 = f2.diff("sctp_single_w20", "tcp_sack", x);
            let (v1, _) = s1_verdict(f2, "sctp_multi_w20", "sctp_single_w20");
            let (v2, _) = s2_verdict(f2, "sctp_single_w20");
            let (v3, _) = s3_verdict(f2, "sctp_multi_w20", "sctp_single_w20");
            let _ = write!(
                window,
                ", {} s with a 20-packet window (same seeds). With equal windows S1 {}, S2 {}, \
                 S3 {}: the window explains {}.",
                d20.show(2),
                v1.word(),
                v2.word(),
                v3.word(),
                if v1 == Verdict::Holds && v2 == Verdict::Holds && v3 == Verdict::Holds {
                    "all three"
                } else {
                    "only the checks that hold with equal windows; the others stay unexplained"
                }
            );
            if v1 != Verdict::Holds {
                let (_, m1) = s1_verdict(f2, "sctp_multi_w20", "sctp_single_w20");
                let _ = write!(window, " S1's gaps with equal windows: {m1}.");
            }
        } else {
            window.push_str("; the equal-window curves that test this run only in full mode.");
        }
    }
    let f4 = f("fig4");
    let cross4 = f4.and_then(|f4| crossing_point(&policy_diffs(f4, "alt_4", "same_4")));
    let wrong_side = |d: &[(f64, Estimate)], tol: &Tolerance| {
        d.iter()
            .filter(|(x, e)| (*x <= tol.lo && e.lo() > 0.0) || (*x >= tol.hi && e.hi() < 0.0))
            .map(|(x, e)| format!("{x}% ({} s)", e.show(2)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ratio_note = |r: Option<&Results>| {
        let mut s = String::new();
        if let Some(r) = r {
            let _ = write!(
                s,
                "Measured: at ratio 1 SAME − ALT = {} s, so 4%/2% is not an equal point here \
                 (the primary-4% pair of Figure 4 crosses at {} by its means). ",
                r.diff("same", "alt", 1.0).show(2),
                show_crossing(cross4)
            );
        }
        match (ext("S12 at crossover"), ext("S13 at crossover")) {
            (Some(a), Some(b)) => {
                let _ = write!(
                    s,
                    "At packetsim's crossover (4%/1%): 'S12 at crossover' {a}, 'S13 at \
                     crossover' {b}."
                );
            }
            _ => s.push_str("The 4%/1% sweeps run only in full mode."),
        }
        s
    };
    let mut notes: Vec<(String, String)> = Vec::new();
    for c in checks.iter().filter(|c| c.verdict != Verdict::Holds) {
        let note = match c.id.as_str() {
            "S1" | "S2" | "S3" => window.clone(),
            "S7" | "S8" => match f4 {
                Some(f4) => {
                    let (pair, tol) = if c.id == "S7" {
                        ("4", Tolerance::about(2.0, "2%"))
                    } else {
                        ("2", Tolerance::about(0.5, "0.5%"))
                    };
                    let d = policy_diffs(f4, &format!("alt_{pair}"), &format!("same_{pair}"));
                    let w = wrong_side(&d, &tol);
                    // The crossover lies between the last point where ALT is significantly
                    // faster and the first where SAME is.
                    let last_neg = d
                        .iter()
                        .take_while(|(_, e)| e.hi() < 0.0)
                        .last()
                        .map(|p| p.0);
                    let first_pos = d.iter().find(|(_, e)| e.lo() > 0.0).map(|p| p.0);
                    let bracket = match (last_neg, first_pos) {
                        (Some(a), Some(b)) => format!(
                            "; the paired CIs place it between {a}% (ALT significantly faster up \
                             to here) and {b}% (SAME significantly faster from here)"
                        ),
                        _ => String::new(),
                    };
                    format!(
                        "Measured: the mean ALT − SAME crosses zero at {}{bracket}; {}",
                        show_crossing(crossing_point(&d)),
                        if w.is_empty() {
                            format!(
                                "that interval overlaps the tolerance [{}%, {}%], so these runs \
                                 can neither confirm nor reject the paper's crossover (more runs \
                                 or sweep points near it would)",
                                tol.lo, tol.hi
                            )
                        } else {
                            format!(
                                "significantly on the wrong side of [{}%, {}%] at {w}",
                                tol.lo, tol.hi
                            )
                        }
                    )
                }
                None => String::new(),
            },
            "S12" => ratio_note(f("fig5")),
            "S13" | "S15" => ratio_note(f("fig6")),
            _ => "No measured explanation in this run.".into(),
        };
        notes.push((c.id.clone(), note));
    }
    for (id, note) in notes {
        if let Some(c) = checks.iter_mut().find(|c| c.id == id) {
            c.note = note;
        }
    }
}

fn table(r: &Results) -> String {
    let mut md = format!("| {} |", r.spec.axis.label());
    for (c, _) in &r.curves {
        let _ = write!(md, " {} (s) |", c.label);
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(r.curves.len()));
    md.push('\n');
    for &x in &r.spec.xs {
        let _ = write!(md, "| {x} |");
        for (c, _) in &r.curves {
            let cell = r.at(&c.id, x).map_or("-".into(), |p| {
                format!("{:.2} [{:.2}, {:.2}]", p.mean, p.lo, p.hi)
            });
            let _ = write!(md, " {cell} |");
        }
        md.push('\n');
    }
    md
}

/// Runs the study and writes `<out>/sctp-multihoming/{fig2..fig6,ext-fig4}/`, `ns2/` and
/// report.md.
pub fn run(opts: &ReproduceOptions) -> Result<StudyOutcome, String> {
    super::shape::drive(&Sctp, opts)
}

fn report(results: &[Results], checks: &[Check], runs: u32, quick: bool) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Study 3: SCTP multihoming against TCP Reno and SACK\n"
    );
    let _ = writeln!(
        md,
        "Source: spec/3-sctp-multihoming.md. Scenarios: scenarios/sctp-multihoming.toml (SCTP; \
         single-homed by restricting the association to S0/D0) and scenarios/sctp-tcp-path.toml \
         (TCP, path0 only). Each path: 10 Mb/s 10 ms, 2 Mb/s 15 ms, 10 Mb/s 10 ms, DropTail 50; \
         uniform loss on the 2 Mb/s link in the data direction. A 4 MiB file; transfer time \
         from the end of the handshake to the last byte delivered in order. {runs} runs per \
         point{}; mean with a 95% Student-t confidence interval.\n",
        if quick {
            " (quick mode: reduced points)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "## Shape checks\n\n{}. Each check names the whole claim, its tolerance and why, and \
         the statistic; comparisons between curves use paired differences over the shared \
         seeds with 95% Student-t CIs (crates/packetsim/src/studies/checks.rs says how each \
         verdict is reached). Also in checks.csv.\n\n\
         Since issue 18 a comparison holds only when its paired CI clears the claim's bound. \
         Against the earlier rules (point means, crossovers accepted in [1%, 3%] and up to \
         1.25%), three verdicts of the full reproduction moved from \"holds\" to \"not \
         decidable\": S7 and S8, whose crossovers the paired CIs bracket only to an interval \
         that overlaps the paper's tolerance (see their notes), and 'S13 at crossover', where \
         at ratio 1 the CI of RTX_TO_ALT's advantage reaches past the 2% \"beats\" margin, so \
         the runs cannot rule out that it beats RTX_SAME there. README.md lists the counts.\n\n{}",
        checks::counts_line(checks),
        checks::table(checks)
    );
    let _ = writeln!(
        md,
        "{}",
        checks::ns2_section(
            &format!(
                "The paper used ns-2 with the Delaware SCTP module. Every figure was run again \
                 with `profile = \"ns2\"` (ns-2.35's stock mechanisms: limited transmit, Sack1 \
                 recovery, the Reno recover guard, ns-2's tick timers and ssthresh rule, RFC \
                 4960 SCTP; docs/scenario-format.md \"Profiles\"), same seeds, and judged by \
                 the same checks: numbers in {NS2_DIR}/checks.csv, figures in {NS2_DIR}/."
            ),
            checks
        )
    );
    let f = |dir: &str| results.iter().find(|r| r.spec.dir == dir);
    let crossing = |a: &str, b: &str| {
        f("fig4").map_or("n/a".to_string(), |f4| {
            show_crossing(crossing_point(&policy_diffs(f4, a, b)))
        })
    };
    let _ = writeln!(
        md,
        "## Reading the results\n\n\
         - **Mechanism (S11).** Under RTX_TO_ALT a chunk lost again on the alternate can only \
         be recovered by the alternate's T3 (it was fast-retransmitted once already), and the \
         alternate's RTO, fed only by 30-second heartbeats and doubled by each expiry, stays \
         high: the diagnostics columns of fig4/figure.csv give T3 expiries, fast retransmits \
         and the time-weighted RTO per destination, and `alt_t3_wait_s` the time the \
         cumulative ack waited on the alternate's timer. Row 'ext. probe after RTO' (full runs) \
         measures what a heartbeat after each RTO changes.\n\
         - **Crossovers.** The mean ALT − SAME difference of Figure 4 crosses zero at {} for \
         primary 4% (paper: about 2%) and at {} for primary 2% (paper: about 0.5%); S7 and S8 \
         judge them with their CIs. Figures 5 and 6 are therefore also run at 4%/1% (rows 'S12 \
         at crossover', 'S13 at crossover', full runs).\n\
         - **ns-2.35 cross-check.** bench/validate/sctp/results.md runs spec 3's topology in \
         ns-2.35's own SCTP module; its tables are regenerated from its data file by a test. \
         That SCTP follows RFC 4960 (a fast-recovery guard, 4-MTU floors) where spec 3 asks for \
         RFC 2960, so its policy crossovers are not packetsim's.\n\
         - **Curves are paired.** At each x every curve of a figure uses the same run seeds \
         (common random numbers: the same loss draws until the transports' packet sequences \
         diverge); the checks use the per-seed differences, which are much less noisy than \
         the per-curve CIs in the tables below.\n",
        crossing("alt_4", "same_4"),
        crossing("alt_2", "same_2"),
    );
    for r in results {
        let _ = writeln!(
            md,
            "## {}\n\n![{}]({}/figure.svg)\n\n{}",
            r.spec.title,
            r.spec.dir,
            r.spec.dir,
            table(r)
        );
    }
    md
}

#[cfg(test)]
mod tests;
