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

use super::{checks_table, csv_field, ReproduceOptions, ShapeCheck, StudyOutcome};
use crate::experiment::{self, Param, PointSummary, RunOutput, SweepSpec};
use crate::report::svg::{Curve, LineChart};
use crate::report::write_atomic;
use crate::scenario::{self, Override};
use std::fmt::Write as _;
use std::path::Path;

/// The study's name on the command line.
pub const NAME: &str = "sctp-multihoming";

/// The SCTP scenario (multihomed; single-homed by overrides), shipped in scenarios/.
pub const SCTP_SCENARIO: &str = include_str!("../../../../scenarios/sctp-multihoming.toml");
/// The TCP scenario (path0 only), shipped in scenarios/.
pub const TCP_SCENARIO: &str = include_str!("../../../../scenarios/sctp-tcp-path.toml");

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

fn run_figure(
    root: &Path,
    fig: &FigureSpec,
    opts: &ReproduceOptions,
    runs: u32,
) -> Result<Results, String> {
    let params = vec![
        Param {
            path: "curve".into(),
            values: fig.curves.iter().map(|c| c.id.clone()).collect(),
        },
        Param {
            path: "x".into(),
            values: fig.xs.iter().map(|x| format!("{x}")).collect(),
        },
    ];
    let label = format!("{NAME}/{}", fig.dir);
    let mut keyed = String::from(SCTP_SCENARIO);
    keyed.push_str(TCP_SCENARIO);
    for (k, v) in &fig.shared {
        let _ = writeln!(keyed, "{k}={v}");
    }
    for c in &fig.curves {
        let _ = writeln!(keyed, "{}:{:?}", c.id, c.fixed);
    }
    let dir = root.join(fig.dir);
    let spec = SweepSpec {
        experiment_key: experiment::experiment_key(&label, &keyed),
        params,
        runs,
        base_seed: 3,
        jobs: opts.jobs,
        out_dir: dir.clone(),
        progress: opts.progress,
        shared_seed_params: vec!["curve".into()],
    };
    let report = experiment::sweep(&spec, |point, seed| {
        let get = |k: &str| point.value(k).unwrap_or_default().to_string();
        let curve = fig
            .curves
            .iter()
            .find(|c| c.id == get("curve"))
            .ok_or("unknown curve")?;
        let x: f64 = get("x").parse().map_err(|_| "bad x")?;
        let sc = point_scenario(fig, curve, x).map_err(|e| e.to_string())?;
        let out = scenario::run(&sc, seed).map_err(|e| e.to_string())?;
        Ok(RunOutput {
            summary_json: out.summary.to_json(),
            metrics: out.summary.metrics(),
        })
    })
    .map_err(|e| e.to_string())?;
    let res = collect(fig, &report.points);
    write_figure(&dir, &res)?;
    Ok(res)
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

fn collect(fig: &FigureSpec, points: &[PointSummary]) -> Results {
    let mut curves: Vec<(CurveSpec, Vec<Point>)> =
        fig.curves.iter().map(|c| (c.clone(), Vec::new())).collect();
    for p in points {
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
    }
    figs
}

/// Where curve `a` minus curve `b` changes sign along x (linear interpolation), if it does
/// exactly once from negative to positive.
fn crossover(r: &Results, a: &str, b: &str) -> Option<f64> {
    let d: Vec<(f64, f64)> = r
        .curve(a)
        .iter()
        .filter_map(|p| r.at(b, p.x).map(|q| (p.x, p.mean - q.mean)))
        .collect();
    let mut found = None;
    for w in d.windows(2) {
        if w[0].1 < 0.0 && w[1].1 >= 0.0 {
            if found.is_some() {
                return None;
            }
            found = Some(w[0].0 + (w[1].0 - w[0].0) * (-w[0].1) / (w[1].1 - w[0].1));
        }
    }
    found
}

fn fmt_pts(r: &Results, id: &str, xs: &[f64]) -> String {
    xs.iter()
        .map(|&x| format!("{x}: {:.2}", r.mean(id, x)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the CIs of two points do not overlap and `a` is below `b`.
fn clearly_below(a: Option<&Point>, b: Option<&Point>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a.hi < b.lo)
}

fn diag(p: Option<&Point>, name: &str) -> f64 {
    p.and_then(|p| p.diag.iter().find(|d| d.0.ends_with(name)).map(|d| d.1))
        .unwrap_or(f64::NAN)
}

/// Evaluates the shape checks of spec 3 §5.1 on the figures' results.
fn checks(figs: &[Results]) -> Vec<ShapeCheck> {
    let f = |dir: &str| figs.iter().find(|r| r.spec.dir == dir);
    let mut out = Vec::new();
    let (Some(f2), Some(f3), Some(f4), Some(f5), Some(f6)) =
        (f("fig2"), f("fig3"), f("fig4"), f("fig5"), f("fig6"))
    else {
        return out;
    };
    let xs2: Vec<f64> = f2.spec.xs.clone();
    let xs3: Vec<f64> = f3.spec.xs.clone();
    // Zero-loss sanity check (spec 3 §5.2).
    let (r0, s0) = (f2.mean("tcp_reno", 0.0), f2.mean("sctp_single", 0.0));
    out.push(ShapeCheck {
        id: "baseline",
        claim: "at 0% loss: serialisation alone is 17.24 s (TCP) and 17.33 s (SCTP); about \
                17.3-17.5 s plus slow start"
            .into(),
        measured: format!("TCP Reno {r0:.3} s, SCTP single-homed {s0:.3} s"),
        holds: r0 > 17.24 && r0 < 19.5 && s0 > 17.33 && s0 < 19.5,
        note: String::new(),
    });
    // S1.
    let above: Vec<f64> = xs2.iter().copied().filter(|&x| x > 0.5).collect();
    let ordered: Vec<f64> = above
        .iter()
        .copied()
        .filter(|&x| s1_order_at(f2, "sctp_multi", "sctp_single", x))
        .collect();
    let gap = |x: f64| f2.mean("tcp_reno", x) - f2.mean("sctp_multi", x);
    let widen = above.len() >= 2 && gap(*above.last().unwrap()) > gap(above[0]);
    out.push(ShapeCheck {
        id: "S1",
        claim: "path0 loss > 0.5%: SCTP multihomed < TCP SACK < SCTP single-homed < TCP Reno, \
                gaps widening"
            .into(),
        measured: format!(
            "order holds at {} of {} points above 0.5% ({}); Reno - multihomed gap {:.2} s at \
             {}% and {:.2} s at {}%",
            ordered.len(),
            above.len(),
            above
                .iter()
                .map(|&x| format!(
                    "{x}%: M {:.2} / S {:.2} / 1 {:.2} / R {:.2}",
                    f2.mean("sctp_multi", x),
                    f2.mean("tcp_sack", x),
                    f2.mean("sctp_single", x),
                    f2.mean("tcp_reno", x)
                ))
                .collect::<Vec<_>>()
                .join("; "),
            above.first().map_or(f64::NAN, |&x| gap(x)),
            above.first().unwrap_or(&f64::NAN),
            above.last().map_or(f64::NAN, |&x| gap(x)),
            above.last().unwrap_or(&f64::NAN),
        ),
        holds: !above.is_empty() && ordered.len() == above.len() && widen,
        note: String::new(),
    });
    // S2.
    let lossy2: Vec<f64> = xs2.iter().copied().filter(|&x| x >= 0.5).collect();
    let s2 = lossy2
        .iter()
        .all(|&x| s2_single_behind_sack_at(f2, "sctp_single", x));
    out.push(ShapeCheck {
        id: "S2",
        claim: "loss 0.5-1%: SCTP single-homed is slower than TCP SACK".into(),
        measured: format!(
            "single-homed - SACK: {}",
            lossy2
                .iter()
                .map(|&x| format!(
                    "{x}%: {:+.2} s",
                    f2.mean("sctp_single", x) - f2.mean("tcp_sack", x)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        holds: !lossy2.is_empty() && s2,
        note: String::new(),
    });
    // S3.
    let low: Vec<f64> = xs2.iter().copied().filter(|&x| x <= 0.1).collect();
    let s3 = low
        .iter()
        .all(|&x| s3_tcp_ahead_at(f2, "sctp_multi", "sctp_single", x));
    out.push(ShapeCheck {
        id: "S3",
        claim: "at 0% and 0.1% loss both TCPs finish a little faster than both SCTPs".into(),
        measured: low
            .iter()
            .map(|&x| {
                format!(
                    "{x}%: Reno {:.3}, SACK {:.3}, single {:.3}, multi {:.3}",
                    f2.mean("tcp_reno", x),
                    f2.mean("tcp_sack", x),
                    f2.mean("sctp_single", x),
                    f2.mean("sctp_multi", x)
                )
            })
            .collect::<Vec<_>>()
            .join("; "),
        holds: !low.is_empty() && s3,
        note: String::new(),
    });
    // S4: the multihomed gain comes from retransmissions on the loss-free path.
    let x4 = *xs2.last().unwrap_or(&1.0);
    let pm = f2.at("sctp_multi", x4);
    let rtx_alt = diag(pm, "paths.1.retransmitted_chunks");
    out.push(ShapeCheck {
        id: "S4",
        claim: "multihomed SCTP gains because its retransmissions travel on the loss-free \
                alternate"
            .into(),
        measured: format!(
            "at {x4}%: multihomed {:.2} s vs single-homed {:.2} s; {rtx_alt:.1} chunks per \
             run retransmitted on path1",
            f2.mean("sctp_multi", x4),
            f2.mean("sctp_single", x4)
        ),
        holds: f2.mean("sctp_multi", x4) < f2.mean("sctp_single", x4) && rtx_alt > 0.0,
        note: String::new(),
    });
    // S5.
    let big: Vec<f64> = xs3.iter().copied().filter(|&x| x >= 4.0).collect();
    let s5 = big.iter().all(|&x| {
        let s = f3.mean("sctp_single", x).max(f3.mean("sctp_multi", x));
        let t = f3.mean("tcp_reno", x).min(f3.mean("tcp_sack", x));
        s < t
    });
    let hi = *xs3.last().unwrap_or(&16.0);
    out.push(ShapeCheck {
        id: "S5",
        claim: "as loss grows both SCTP variants are far faster than both TCP variants (single-\
                homed too: the gain is SCTP's congestion control)"
            .into(),
        measured: format!(
            "at {hi}%: Reno {:.1}, SACK {:.1}, single {:.1}, multi {:.1} s; SCTP < TCP at {} of \
             {} points >= 4%",
            f3.mean("tcp_reno", hi),
            f3.mean("tcp_sack", hi),
            f3.mean("sctp_single", hi),
            f3.mean("sctp_multi", hi),
            big.iter()
                .filter(
                    |&&x| f3.mean("sctp_single", x).max(f3.mean("sctp_multi", x))
                        < f3.mean("tcp_reno", x).min(f3.mean("tcp_sack", x))
                )
                .count(),
            big.len()
        ),
        holds: !big.is_empty() && s5,
        note: String::new(),
    });
    // S6.
    let over4: Vec<f64> = xs3.iter().copied().filter(|&x| x > 4.0).collect();
    let s6 = over4
        .iter()
        .all(|&x| clearly_below(f3.at("sctp_multi", x), f3.at("sctp_single", x)));
    out.push(ShapeCheck {
        id: "S6",
        claim: "above 4% loss multihomed SCTP is clearly faster than single-homed (CIs apart)"
            .into(),
        measured: format!(
            "multi / single: {}",
            over4
                .iter()
                .map(|&x| format!(
                    "{x}%: {:.1} / {:.1}",
                    f3.mean("sctp_multi", x),
                    f3.mean("sctp_single", x)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        holds: !over4.is_empty() && s6,
        note: String::new(),
    });
    // S7-S9: Figure 4.
    let xs4 = f4.spec.xs.clone();
    let last4 = *xs4.last().unwrap_or(&5.0);
    let pair = |p: f64| (format!("alt_{p}"), format!("same_{p}"));
    let (a4, s4) = pair(4.0);
    let c4 = crossover(f4, &a4, &s4);
    out.push(ShapeCheck {
        id: "S7",
        claim: "primary 4%: RTX_TO_ALT faster at low alternate loss, RTX_SAME faster once the \
                alternate loss passes about 2%, gap widening"
            .into(),
        measured: format!(
            "ALT: {}; SAME: {}; crossover {}",
            fmt_pts(f4, &a4, &xs4),
            fmt_pts(f4, &s4, &xs4),
            c4.map_or("none".into(), |c| format!("at {c:.2}%"))
        ),
        holds: f4.mean(&a4, 0.0) < f4.mean(&s4, 0.0)
            && f4.mean(&s4, last4) < f4.mean(&a4, last4)
            && c4.is_some_and(|c| (1.0..=3.0).contains(&c)),
        note: String::new(),
    });
    let (a2, s2p) = pair(2.0);
    let c2 = crossover(f4, &a2, &s2p);
    out.push(ShapeCheck {
        id: "S8",
        claim: "primary 2%: RTX_TO_ALT helps only slightly and only below about 0.5% alternate \
                loss"
            .into(),
        measured: format!(
            "ALT: {}; SAME: {}; crossover {}",
            fmt_pts(f4, &a2, &xs4),
            fmt_pts(f4, &s2p, &xs4),
            c2.map_or("none".into(), |c| format!("at {c:.2}%"))
        ),
        holds: f4.mean(&s2p, last4) < f4.mean(&a2, last4)
            && c2.is_none_or(|c| c <= 1.25)
            && (c2.is_some() || f4.mean(&a2, 0.0) >= f4.mean(&s2p, 0.0)),
        note: String::new(),
    });
    let (a02, s02) = pair(0.2);
    let rel: Vec<f64> = xs4
        .iter()
        .map(|&x| (f4.mean(&a02, x) - f4.mean(&s02, x)) / f4.mean(&s02, x))
        .collect();
    let max_rel = rel.iter().fold(0.0f64, |m, r| m.max(r.abs()));
    out.push(ShapeCheck {
        id: "S9",
        claim: "primary 0.2%: both policies give almost the same transfer time over the sweep"
            .into(),
        measured: format!("largest relative difference {:.1}%", 100.0 * max_rel),
        holds: max_rel < 0.05,
        note: "'almost the same' read as within 5%".into(),
    });
    // S10: equal loss is not enough.
    let eq: Vec<(f64, f64, f64)> = [2.0, 4.0]
        .iter()
        .filter(|p| xs4.iter().any(|x| (x - **p).abs() < 1e-9))
        .map(|&p| {
            let (a, s) = pair(p);
            (p, f4.mean(&a, p), f4.mean(&s, p))
        })
        .collect();
    out.push(ShapeCheck {
        id: "S10",
        claim: "with equal loss on both paths RTX_TO_ALT does not pay off".into(),
        measured: eq
            .iter()
            .map(|(p, a, s)| format!("both {p}%: ALT {a:.2} s, SAME {s:.2} s"))
            .collect::<Vec<_>>()
            .join("; "),
        holds: !eq.is_empty() && eq.iter().all(|(_, a, s)| a >= s),
        note: String::new(),
    });
    // S11: the mechanism, from the diagnostics of the primary-4% curves at the highest
    // alternate loss.
    let pa = f4.at(&a4, last4);
    let ps = f4.at(&s4, last4);
    let alt_t3 = diag(pa, "paths.1.t3_expiries");
    let alt_fr = diag(pa, "paths.1.fast_retransmits");
    let alt_rto = diag(pa, "paths.1.rto_mean_s");
    let same_rto = diag(ps, "paths.0.rto_mean_s");
    out.push(ShapeCheck {
        id: "S11",
        claim: "RTX_TO_ALT with a lossy alternate: chunks lost on the alternate wait for its T3; \
                its RTO stays high; under RTX_SAME the primary's RTO is pulled down by new-data \
                samples"
            .into(),
        measured: format!(
            "primary 4%, alternate {last4}%: ALT has {alt_t3:.1} path1 T3 expiries and \
             {alt_fr:.1} path1 fast retransmits per run, path1 mean RTO {alt_rto:.2} s \
             (time-weighted), {:.2} s per run waiting on path1's T3; SAME's path0 mean RTO \
             {same_rto:.2} s",
            diag(pa, "alt_t3_wait_s")
        ),
        holds: alt_t3 > 0.0 && alt_rto > same_rto && alt_rto >= 1.0,
        note: String::new(),
    });
    // S12-S14: Figures 5 and 6 (see `ratio_check` for what "beats" means).
    let xs5 = f5.spec.xs.clone();
    let s12 = ratio_check(f5, true);
    out.push(ShapeCheck {
        id: "S12",
        claim: "RTX_TO_ALT beats RTX_SAME only when the alternate's bandwidth is higher (ratio > \
                1); about equal at 1"
            .into(),
        measured: format!("SAME - ALT: {}", show_adv(f5, &xs5)),
        holds: s12,
        note: "beats = faster by more than 2%".into(),
    });
    let xs6 = f6.spec.xs.clone();
    let s13 = ratio_check(f6, false);
    out.push(ShapeCheck {
        id: "S13",
        claim: "RTX_TO_ALT beats RTX_SAME only when the alternate's delay is shorter (ratio < 1)"
            .into(),
        measured: format!("SAME - ALT: {}", show_adv(f6, &xs6)),
        holds: s13,
        note: "beats = faster by more than 2%".into(),
    });
    let span = |r: &Results| {
        let v: Vec<f64> = r.curve("alt").iter().map(|p| p.mean).collect();
        v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min)
    };
    let (sp5, sp6) = (span(f5), span(f6));
    out.push(ShapeCheck {
        id: "S14",
        claim: "transfer time is more sensitive to the delay ratio than to the bandwidth ratio"
            .into(),
        measured: format!(
            "RTX_TO_ALT range over the ratios: {sp6:.2} s for delay, {sp5:.2} s for bandwidth"
        ),
        holds: sp6 > sp5,
        note: "both sweeps cover the same ratios, 0.25 to 4".into(),
    });
    let s10 = out.iter().find(|c| c.id == "S10").is_some_and(|c| c.holds);
    out.push(ShapeCheck {
        id: "S15",
        claim: "with similar losses, retransmitting to the alternate pays off only if its RTT is \
                smaller"
            .into(),
        measured: format!("S10 {}, S13 {}", verdict(s10), verdict(s13)),
        holds: s10 && s13,
        note: "the conclusion combines S10 (equal loss is not enough) and S13 (a shorter \
               alternate RTT is what helps)"
            .into(),
    });
    out
}

/// S1's order at loss `x` of Figure 2: multihomed < TCP SACK < single-homed < TCP Reno, for
/// the SCTP curves `multi` and `single`.
fn s1_order_at(f2: &Results, multi: &str, single: &str, x: f64) -> bool {
    let m = |id| f2.mean(id, x);
    m(multi) < m("tcp_sack") && m("tcp_sack") < m(single) && m(single) < m("tcp_reno")
}

/// S2 at loss `x`: the single-homed SCTP curve `single` is slower than TCP SACK.
fn s2_single_behind_sack_at(f2: &Results, single: &str, x: f64) -> bool {
    f2.mean(single, x) > f2.mean("tcp_sack", x)
}

/// S3 at loss `x`: both TCPs finish before both SCTP curves.
fn s3_tcp_ahead_at(f2: &Results, multi: &str, single: &str, x: f64) -> bool {
    f2.mean("tcp_reno", x).max(f2.mean("tcp_sack", x)) < f2.mean(single, x).min(f2.mean(multi, x))
}

/// SAME's transfer time minus ALT's at `x` (positive: RTX_TO_ALT is faster).
fn adv(r: &Results, x: f64) -> f64 {
    r.mean("same", x) - r.mean("alt", x)
}

fn show_adv(r: &Results, xs: &[f64]) -> String {
    xs.iter()
        .map(|&x| format!("{x}: {:+.2} s", adv(r, x)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether RTX_TO_ALT beats RTX_SAME only on one side of ratio 1 of a Figure 5/6 sweep: above
/// it (`above`, bandwidth) or below it (delay). "Beats" means faster by more than 2% of the
/// slower curve (the curves are paired by common random numbers); closer counts as equal.
/// Holds when ALT never beats SAME on the wrong side (ratio 1 included) and does beat it at
/// the most favourable ratio.
fn ratio_check(r: &Results, above: bool) -> bool {
    let beats = |x: f64| adv(r, x) > 0.02 * r.mean("same", x).max(r.mean("alt", x));
    let xs = &r.spec.xs;
    let wrong_side = |x: f64| {
        if above {
            x <= 1.0 + 1e-9
        } else {
            x >= 1.0 - 1e-9
        }
    };
    let best = if above { xs.last() } else { xs.first() };
    xs.iter().all(|&x| !wrong_side(x) || !beats(x))
        && best.is_some_and(|&x| !wrong_side(x) && beats(x))
}

/// Why a check that does not hold disagrees with the paper: the evidence is in the extension
/// checks and curves named here (the notes are only attached to checks that fail).
fn explain(checks: &mut [ShapeCheck]) {
    let window = "SCTP's 64 KiB receive window (44 packets) against TCP's 20 segments: after a \
                  fast retransmit SCTP's halved window still covers the path's ~14-packet pipe \
                  while TCP's (at most 10) does not, so single-homed SCTP recovers without \
                  idling and overtakes SACK. See 'S1-S3, equal windows': with SCTP held to 20 \
                  packets single-homed SCTP falls behind SACK, as in the paper. The 8-byte \
                  header difference the paper \
                  cites is worth about 0.09 s. ns-2.35's own SCTP agrees with packetsim \
                  (bench/validate/sctp/results.md): single-homed SCTP is faster than SACK at \
                  0.5-1% loss there too, and slower with a 20-packet window.";
    let point = "4%/2% is not packetsim's crossover: S7 puts it near 1% alternate loss, so at \
                 4%/2% RTX_SAME leads by several seconds at ratio 1 and the ratio has to undo \
                 that lead first. See the same sweep at packetsim's crossover (4%/1%) below. \
                 The crossover depends on the SCTP implementation: ns-2.35's module (RFC 4960 \
                 style, one cwnd cut per window, 4-MTU floors) puts it near 2.7%, the paper's \
                 older module near 2%, canonical RFC 2960 packetsim near 1% \
                 (bench/validate/sctp/results.md).";
    for c in checks.iter_mut().filter(|c| !c.holds) {
        let why = match c.id {
            "S1" | "S2" | "S3" => window.to_string(),
            "S12" => format!(
                "{point} Bandwidth also matters little here: only retransmissions use the \
                 alternate, and their cost is its propagation delay and its RTO (at least 1 s), \
                 not 6 ms of serialisation."
            ),
            "S13" | "S15" => format!(
                "{point} The trend is the paper's: RTX_TO_ALT gains on RTX_SAME as the \
                 alternate's delay shrinks."
            ),
            "S8" => "the crossover sits above the paper's 0.5%: see S7 for the primary-4% pair, \
                     whose crossover is also lower than the paper's"
                .to_string(),
            _ => continue,
        };
        c.note = why;
    }
}

fn verdict(b: bool) -> &'static str {
    if b {
        "holds"
    } else {
        "does not hold"
    }
}

/// Extension checks (spec 3 Q2, Q3 and the §4 extensions), on the `ext-fig4` results.
fn extension_checks(figs: &[Results]) -> Vec<ShapeCheck> {
    let f = |dir: &str| figs.iter().find(|r| r.spec.dir == dir);
    let mut out = Vec::new();
    // S1-S3 again with SCTP held to TCP's 20-packet window.
    if let Some(f2) = f("fig2") {
        if !f2.curve("sctp_single_w20").is_empty() {
            let above: Vec<f64> = f2.spec.xs.iter().copied().filter(|&x| x > 0.5).collect();
            let low: Vec<f64> = f2.spec.xs.iter().copied().filter(|&x| x <= 0.1).collect();
            let m = |id: &str, x: f64| f2.mean(id, x);
            let (multi, single) = ("sctp_multi_w20", "sctp_single_w20");
            let s1 = above.iter().all(|&x| s1_order_at(f2, multi, single, x));
            let s2 = f2
                .spec
                .xs
                .iter()
                .filter(|&&x| x >= 0.5)
                .all(|&x| s2_single_behind_sack_at(f2, single, x));
            let s3 = low.iter().all(|&x| s3_tcp_ahead_at(f2, multi, single, x));
            out.push(ShapeCheck {
                id: "S1-S3, equal windows",
                claim: "(explains S1-S3) with SCTP's window held to TCP's 20 packets, the \
                        paper's Figure 2 orderings appear"
                    .into(),
                measured: format!(
                    "S1 order {}, S2 {}, S3 {}; at 1%: multi {:.2}, SACK {:.2}, single {:.2}, \
                     Reno {:.2} s",
                    verdict(s1),
                    verdict(s2),
                    verdict(s3),
                    m("sctp_multi_w20", 1.0),
                    m("tcp_sack", 1.0),
                    m("sctp_single_w20", 1.0),
                    m("tcp_reno", 1.0)
                ),
                holds: s1 && s2 && s3,
                note: "rwnd 29,040 B (20 x 1452) instead of 65,536 B; curves marked (ext.) in \
                       Figures 2 and 3"
                    .into(),
            });
        }
    }
    // Q4 and Q5: S5 with TCP's RTO floored at 1 s, and S2's sign with an initial window of 2.
    if let (Some(f2), Some(f3)) = (f("fig2"), f("fig3")) {
        if !f3.curve("tcp_sack_rto1").is_empty() {
            let big: Vec<f64> = f3.spec.xs.iter().copied().filter(|&x| x >= 4.0).collect();
            let s5 = big.iter().all(|&x| {
                f3.mean("sctp_single", x).max(f3.mean("sctp_multi", x))
                    < f3.mean("tcp_reno_rto1", x).min(f3.mean("tcp_sack_rto1", x))
            });
            let hi = *f3.spec.xs.last().unwrap_or(&16.0);
            out.push(ShapeCheck {
                id: "Q4",
                claim: "S5 also holds with TCP's RTO floored at 1 s (RFC 2988)".into(),
                measured: format!(
                    "at {hi}%: Reno {:.1}, SACK {:.1} s with the floor (without: {:.1}, {:.1} s); \
                     SCTP single {:.1}, multi {:.1} s",
                    f3.mean("tcp_reno_rto1", hi),
                    f3.mean("tcp_sack_rto1", hi),
                    f3.mean("tcp_reno", hi),
                    f3.mean("tcp_sack", hi),
                    f3.mean("sctp_single", hi),
                    f3.mean("sctp_multi", hi)
                ),
                holds: !big.is_empty() && s5,
                note: String::new(),
            });
            let x = 1.0;
            let d1 = f2.mean("sctp_single", x) - f2.mean("tcp_sack", x);
            let d2 = f2.mean("sctp_single", x) - f2.mean("tcp_sack_iw2", x);
            out.push(ShapeCheck {
                id: "Q5",
                claim: "TCP's initial window (1 or 2 segments) does not change the Figure 2 \
                        comparison of SCTP single-homed with TCP SACK"
                    .into(),
                measured: format!(
                    "at {x}%: single-homed - SACK = {d1:+.2} s with 1 segment, {d2:+.2} s with 2"
                ),
                holds: d1.signum() == d2.signum(),
                note: String::new(),
            });
        }
    }
    for (dir, id, above, what) in [
        (
            "ext-fig5",
            "S12 at crossover",
            true,
            "bandwidth is higher (ratio > 1)",
        ),
        (
            "ext-fig6",
            "S13 at crossover",
            false,
            "delay is shorter (ratio < 1)",
        ),
    ] {
        if let Some(r) = f(dir) {
            out.push(ShapeCheck {
                id,
                claim: format!(
                    "(S12/S13 at packetsim's own crossover, primary 4% / alternate 1%) \
                     RTX_TO_ALT beats RTX_SAME only when the alternate's {what}"
                ),
                measured: format!("SAME - ALT: {}", show_adv(r, &r.spec.xs)),
                holds: ratio_check(r, above),
                note: "beats = faster by more than 2%".into(),
            });
        }
    }
    let Some(ext) = f("ext-fig4") else {
        return out;
    };
    let xs = ext.spec.xs.clone();
    let last = *xs.last().unwrap_or(&5.0);
    let c = |a: &str, b: &str| crossover(ext, a, b);
    let show = |id: &str| fmt_pts(ext, id, &xs);
    let base = c("alt", "same");
    let paper = c("alt_paper_jitter", "same");
    let both = c("alt_both_dirs", "same_both_dirs");
    out.extend([
        ShapeCheck {
            id: "Q2",
            claim: "the paper's heartbeat jitter (30 s ± 15 s) does not change the conclusions"
                .into(),
            measured: format!(
                "crossover with RFC jitter {}, with the paper's {}",
                base.map_or("none".into(), |c| format!("{c:.2}%")),
                paper.map_or("none".into(), |c| format!("{c:.2}%"))
            ),
            holds: base.is_some() == paper.is_some()
                && ext.mean("same", last) < ext.mean("alt_paper_jitter", last),
            note: String::new(),
        },
        ShapeCheck {
            id: "Q3",
            claim: "with loss in both directions RTX_SAME still wins at high alternate loss".into(),
            measured: format!(
                "ALT {}; SAME {}; crossover {}",
                show("alt_both_dirs"),
                show("same_both_dirs"),
                both.map_or("none".into(), |c| format!("{c:.2}%"))
            ),
            holds: ext.mean("same_both_dirs", last) < ext.mean("alt_both_dirs", last),
            note: String::new(),
        },
        ShapeCheck {
            id: "ext. timeouts only",
            claim: "(not in the paper) with fast retransmits kept on the primary and only \
                    timeout retransmissions sent to the alternate, the transfer behaves like \
                    RTX_SAME (within 3%): at 4% loss fast retransmits carry most of the repair"
                .into(),
            measured: format!(
                "timeouts only: {}; RTX_SAME: {}",
                show("alt_to_only"),
                show("same")
            ),
            holds: xs
                .iter()
                .all(|&x| (ext.mean("alt_to_only", x) / ext.mean("same", x) - 1.0).abs() < 0.03),
            note: String::new(),
        },
        ShapeCheck {
            id: "ext. probe after RTO",
            claim: "(paper's conclusion) a fresher estimate of the alternate (heartbeat after \
                    each RTO) makes RTX_TO_ALT less costly on a lossy alternate"
                .into(),
            measured: format!(
                "at {last}% alternate loss: ALT {:.2} s, ALT + heartbeat after RTO {:.2} s",
                ext.mean("alt", last),
                ext.mean("alt_hb_after_rto", last)
            ),
            holds: ext.mean("alt_hb_after_rto", last) < ext.mean("alt", last),
            note: String::new(),
        },
    ]);
    out
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

/// Runs the study and writes `<out>/sctp-multihoming/{fig2..fig6,ext-fig4}/` and report.md.
pub fn run(opts: &ReproduceOptions) -> Result<StudyOutcome, String> {
    let root = opts.out.join(NAME);
    let runs = opts.runs.unwrap_or(if opts.quick { 10 } else { 100 });
    let mut results = Vec::new();
    for fig in figures(opts.quick) {
        results.push(run_figure(&root, &fig, opts, runs)?);
    }
    let mut checks = checks(&results);
    checks.extend(extension_checks(&results));
    explain(&mut checks);
    let passed = checks.iter().filter(|c| c.holds).count();
    let md = report(&results, &checks, runs, opts.quick);
    let report = root.join("report.md");
    write_atomic(&report, &md).map_err(|e| e.to_string())?;
    Ok(StudyOutcome {
        name: NAME,
        report,
        passed,
        failed: checks.len() - passed,
    })
}

fn report(results: &[Results], checks: &[ShapeCheck], runs: u32, quick: bool) -> String {
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
    let _ = writeln!(md, "## Shape checks\n\n{}", checks_table(checks));
    let _ = writeln!(
        md,
        "## Reading the results\n\n\
         - **Mechanism (S11).** Under RTX_TO_ALT a chunk lost again on the alternate can only \
         be recovered by the alternate's T3 (it was fast-retransmitted once already), and the \
         alternate's RTO, fed only by 30-second heartbeats and doubled by each expiry, stays \
         high: the diagnostics columns of fig4/figure.csv give T3 expiries, fast retransmits \
         and the time-weighted RTO per destination, and `alt_t3_wait_s` the time the \
         cumulative ack waited on the alternate's timer. A heartbeat after each RTO (row \
         'ext. probe after RTO') removes most of the penalty, which supports the paper's \
         conclusion that the alternate needs a fresher estimate.\n\
         - **Where packetsim and the paper differ.** Single-homed SCTP beats TCP SACK here \
         (S1-S3) because SCTP's 64 KiB window keeps the pipe full through a loss while TCP's \
         20 segments do not; with equal windows single-homed SCTP falls behind SACK as in \
         the paper (row 'S1-S3, equal windows'). The policy crossovers come at lower alternate loss than the paper's \
         (S7 about 1% instead of 2%), so Figures 5 and 6 at the paper's 4%/2% point start \
         with RTX_SAME ahead; at packetsim's own crossover the delay ratio separates the \
         policies as the paper says (row 'S13 at crossover') while the bandwidth ratio barely \
         matters.\n\
         - **ns-2.35 cross-check** (bench/validate/sctp/results.md, 50 seeds per point): \
         TCP and single-homed SCTP agree with packetsim within about 2.5% at 0-1% loss and \
         single-homed SCTP within 2% at 10%; ns-2 orders the Figure 2 curves as packetsim does \
         (single-homed SCTP ahead of SACK). Its multihomed SCTP is faster at high loss and its \
         policy crossovers later, because its SCTP follows RFC 4960 (a fast-recovery guard and \
         4-MTU floors) where spec 3 asks for RFC 2960; `fast_recovery = true` moves packetsim \
         towards it.\n\
         - **Curves are paired.** At each x every curve of a figure uses the same run seeds \
         (common random numbers: the same loss draws until the transports' packet sequences \
         diverge), so differences between curves are much less noisy than the CIs suggest.\n"
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
mod tests {
    use super::*;

    fn res(points: &[(&str, &[(f64, f64)])]) -> Results {
        let curves = points
            .iter()
            .map(|(id, pts)| {
                (
                    CurveSpec {
                        id: id.to_string(),
                        label: id.to_string(),
                        tcp: false,
                        fixed: vec![],
                    },
                    pts.iter()
                        .map(|&(x, m)| Point {
                            x,
                            mean: m,
                            lo: m - 0.1,
                            hi: m + 0.1,
                            median: m,
                            n: 10,
                            diag: vec![],
                        })
                        .collect(),
                )
            })
            .collect();
        Results {
            spec: FigureSpec {
                dir: "t",
                title: String::new(),
                axis: Axis::AlternateLoss,
                xs: vec![],
                curves: vec![],
                shared: vec![],
            },
            curves,
        }
    }

    /// The study's shape checks on a reduced sweep: the quick figures (4 points per curve),
    /// 20 paired runs per point. Asserts the checks that hold robustly there, the parts of the
    /// Figure 4 checks that separate at 4 points, and the measured state of S2, which does
    /// not hold for an explained reason (SCTP's larger window, see `explain`).
    #[test]
    fn shape_checks_on_a_reduced_sweep() {
        let dir = std::env::temp_dir().join(format!("packetsim-sctp-shape-{}", std::process::id()));
        let opts = ReproduceOptions {
            out: dir.clone(),
            runs: Some(20),
            quick: true,
            jobs: 2,
            progress: false,
        };
        let results: Vec<Results> = figures(true)
            .iter()
            .map(|f| run_figure(&dir, f, &opts, 20).expect("figure"))
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        let checks = checks(&results);
        for c in &checks {
            eprintln!("{} {} {}", c.id, verdict(c.holds), c.measured);
        }
        let holds = |id: &str| checks.iter().find(|c| c.id == id).expect(id).holds;
        for id in ["baseline", "S4", "S5", "S6", "S9", "S11"] {
            assert!(holds(id), "{id} should hold on the reduced sweep");
        }
        let f2 = &results[0];
        let f4 = results.iter().find(|r| r.spec.dir == "fig4").unwrap();
        // S7: at primary 4%, RTX_TO_ALT wins on a perfect alternate, RTX_SAME at 5%.
        assert!(f4.mean("alt_4", 0.0) < f4.mean("same_4", 0.0));
        assert!(f4.mean("same_4", 5.0) < f4.mean("alt_4", 5.0));
        assert!(crossover(f4, "alt_4", "same_4").is_some());
        // S8: at primary 2%, RTX_SAME wins clearly at 5% alternate loss.
        assert!(clearly_below(f4.at("same_2", 5.0), f4.at("alt_2", 5.0)));
        // S2's measured state: single-homed SCTP (64 KiB window) beats TCP SACK (20 segments)
        // at 1% loss, and both beat Reno.
        let m = |id: &str| f2.mean(id, 1.0);
        assert!(m("sctp_single") < m("tcp_sack") && m("tcp_sack") < m("tcp_reno"));
    }

    #[test]
    fn csv_labels_with_commas_are_quoted() {
        assert_eq!(csv_field("RTX_SAME"), "RTX_SAME");
        assert_eq!(
            csv_field("RTX_TO_ALT, primary 4%"),
            "\"RTX_TO_ALT, primary 4%\""
        );
        assert_eq!(csv_field("a \"b\", c"), "\"a \"\"b\"\", c\"");
    }

    #[test]
    fn crossover_interpolates_the_single_sign_change() {
        let r = res(&[
            ("a", &[(0.0, 10.0), (2.0, 12.0), (4.0, 16.0)]),
            ("b", &[(0.0, 11.0), (2.0, 13.0), (4.0, 14.0)]),
        ]);
        // a - b: -1, -1, +2: crosses between 2 and 4, at 2 + 2 * 1/3.
        let c = crossover(&r, "a", "b").unwrap();
        assert!((c - (2.0 + 2.0 / 3.0)).abs() < 1e-9);
        assert_eq!(crossover(&r, "b", "a"), None, "b - a goes from + to -");
    }

    #[test]
    fn axes_write_the_overrides_the_scenarios_understand() {
        assert_eq!(
            Axis::BandwidthRatio.overrides(0.25),
            vec![(
                "links.path1_core.rate".to_string(),
                "\"500000bps\"".to_string()
            )]
        );
        let d = Axis::DelayRatio.overrides(2.0);
        assert_eq!(
            d[1],
            ("links.path1_core.delay".into(), "\"30000us\"".into())
        );
        // Every override of every figure loads.
        for fig in figures(false) {
            for c in &fig.curves {
                for &x in &fig.xs {
                    if let Err(e) = point_scenario(&fig, c, x) {
                        panic!("{} {} x={x}: {e}", fig.dir, c.id);
                    }
                }
            }
        }
    }
}
