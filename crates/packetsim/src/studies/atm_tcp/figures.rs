//! The study's CSVs and figures (checks.csv and report.md are `studies::finish`'s):
//! runs.csv (every E5/E6, sensitivity and extension run), efficiency.csv and Figs 1-4
//! (E1-E4), fig7.csv/fig8.csv and their queue and sender-1 figures (the traces of
//! replication 1), and the X1/X2 figures.

use super::config::TracePoint;
use super::measure::*;
use crate::experiment::aggregate::CsvText;
use crate::report::chart::{Curve, LineChart};
use crate::report::write_atomic;
use crate::studies::checks::Estimate;
use std::path::Path;

pub(super) fn write(root: &Path, name: &str, s: &str) -> Result<(), String> {
    write_atomic(&root.join(name), s).map_err(|e| format!("{}: {e}", root.join(name).display()))
}

fn curve(label: String, pts: Vec<(f64, Estimate)>) -> Curve {
    Curve {
        label,
        points: pts
            .into_iter()
            .filter(|(_, e)| e.mean.is_finite())
            .map(|(x, e)| {
                let (lo, hi) = if e.half().is_finite() {
                    (e.lo(), e.hi())
                } else {
                    (e.mean, e.mean)
                };
                (x, e.mean, lo, hi)
            })
            .collect(),
    }
}

/// One row of runs.csv (the csv crate quotes a group holding a comma,
/// `sens/B=2000,T=1200/100`).
fn run_row(d: &Done) -> Vec<String> {
    let r = &d.r;
    let s = &r.switch;
    vec![
        d.group.clone(),
        d.x.to_string(),
        d.rep.to_string(),
        format!("{:.6}", r.load()),
        s.dropped().to_string(),
        s.overflow.to_string(),
        s.ppd_tail.to_string(),
        s.epd_refusal.to_string(),
        s.useless.to_string(),
        format!("{:.0}", thr1_bps(r)),
        format!("{:.0}", thr_bps(r)),
        r.conns.iter().map(|c| c.timeouts).sum::<u64>().to_string(),
        r.conns
            .iter()
            .map(|c| c.retransmits)
            .sum::<u64>()
            .to_string(),
        spurious(r).to_string(),
        r.idle_gaps.len().to_string(),
        format!("{:.0}", median_gap(r)),
    ]
}

const RUN_HEADER: [&str; 16] = [
    "group",
    "x",
    "rep",
    "load",
    "loss_cells",
    "overflow",
    "ppd_tail",
    "epd_refusal",
    "useless_cells",
    "goodput1_bps",
    "goodput_bps",
    "timeouts",
    "retransmits",
    "spurious",
    "idle_gaps",
    "median_gap_slots",
];

/// Writes every CSV and figure of the study under `root`.
pub fn write_outputs(root: &Path, cx: &Ctx) -> Result<(), String> {
    runs_csv(root, cx)?;
    efficiency_csv(root, cx)?;
    efficiency_figures(root, cx)?;
    trace_figures(root, cx)?;
    x_figures(root, cx)
}

/// runs.csv: every run but E1-E4's.
fn runs_csv(root: &Path, cx: &Ctx) -> Result<(), String> {
    let mut csv = CsvText::new();
    csv.row(RUN_HEADER);
    for d in cx
        .done
        .iter()
        .filter(|d| !d.group.starts_with('e') && !d.group.starts_with("trace/"))
    {
        csv.row(run_row(d));
    }
    write(root, "runs.csv", &csv.finish())
}

/// efficiency.csv: E1-E4.
fn efficiency_csv(root: &Path, cx: &Ctx) -> Result<(), String> {
    let done = cx.done;
    // Efficiency (E1-E4).
    let mut csv = CsvText::new();
    csv.row([
        "figure",
        "mode",
        "packet_bytes",
        "buffer_cells",
        "rep",
        "efficiency",
        "loss_cells",
        "useless_cells",
    ]);
    for d in done.iter().filter(|d| d.group.starts_with('e')) {
        csv.row([
            d.group[..2].to_string(),
            d.cfg.switch.discard.name().to_string(),
            d.group[3..].parse::<u32>().unwrap_or(0).to_string(),
            d.x.to_string(),
            d.rep.to_string(),
            format!("{:.6}", efficiency(d)),
            d.r.switch.dropped().to_string(),
            d.r.switch.useless.to_string(),
        ]);
    }
    write(root, "efficiency.csv", &csv.finish())?;
    Ok(())
}

/// Figs 1-4: efficiency against buffer per packet size.
fn efficiency_figures(root: &Path, cx: &Ctx) -> Result<(), String> {
    let plan = cx.plan;
    for (fig, title) in [
        (1, "Fig 1: TCP over a packet network (whole-packet drop)"),
        (2, "Fig 2: TCP over ATM, plain cell drop"),
        (3, "Fig 3: TCP over ATM, PPD"),
        (4, "Fig 4: TCP over ATM, EPD (T = B/2)"),
    ] {
        let chart = LineChart {
            title: title.into(),
            x_label: "switch buffer (cells)".into(),
            y_label: "efficiency (goodput / capacity), mean and 95% CI".into(),
            curves: plan
                .bg_sizes
                .iter()
                .map(|&s| {
                    curve(
                        format!("{s} B packets"),
                        plan.bg_buffers
                            .iter()
                            .map(|&b| (b as f64, Estimate::mean(&vals(&cx.eff(fig, s, b)))))
                            .collect(),
                    )
                })
                .collect(),
            non_negative: true,
        };
        write(root, &format!("fig{fig}.svg"), &chart.to_svg())?;
    }
    Ok(())
}

/// Figs 7-8: the traces of replication 1 of the main experiment.
fn trace_figures(root: &Path, cx: &Ctx) -> Result<(), String> {
    let done = cx.done;
    // Figs 7-8: traces of the canonical runs.
    for (rto, fig) in [(450u64, 7), (100, 8)] {
        let d = done
            .iter()
            .find(|d| d.group == format!("trace/{rto}") && d.rep == 0)
            .ok_or("missing canonical run")?;
        let mut csv = CsvText::new();
        csv.row([
            "slot",
            "queue_max_cells",
            "queue_mean_cells",
            "sender1_bytes_sent",
            "sender1_bytes_in_bin",
        ]);
        for p in &d.r.trace {
            csv.row([
                p.slot.to_string(),
                p.q_max.to_string(),
                format!("{:.2}", p.q_mean),
                p.sent1.to_string(),
                p.sent1_bin.to_string(),
            ]);
        }
        write(root, &format!("fig{fig}.csv"), &csv.finish())?;
        let pts = |f: &dyn Fn(&TracePoint) -> f64| {
            d.r.trace
                .iter()
                .map(|p| (p.slot as f64, f(p), f(p), f(p)))
                .collect()
        };
        let q = LineChart {
            title: format!("Fig {fig} (top): switch queue, RTOmin {rto} ms"),
            x_label: "slot".into(),
            y_label: "queue length (cells, max per 500-slot bin)".into(),
            curves: vec![Curve {
                label: "queue".into(),
                points: pts(&|p| p.q_max as f64),
            }],
            non_negative: true,
        };
        write(root, &format!("fig{fig}_queue.svg"), &q.to_svg())?;
        let s = LineChart {
            title: format!("Fig {fig} (bottom): data sent by TCP sender 1, RTOmin {rto} ms"),
            x_label: "slot".into(),
            y_label: "cumulative bytes sent (kB)".into(),
            curves: vec![Curve {
                label: "sender 1".into(),
                points: pts(&|p| p.sent1 as f64 / 1000.0),
            }],
            non_negative: true,
        };
        write(root, &format!("fig{fig}_sender1.svg"), &s.to_svg())?;
    }
    Ok(())
}

/// X1/X2: goodput and spurious retransmissions against RTOmin per policy.
fn x_figures(root: &Path, cx: &Ctx) -> Result<(), String> {
    let (done, plan) = (cx.done, cx.plan);
    // X1/X2 figure.
    for (x, what) in [("x1", "fast retransmit off"), ("x2", "fast retransmit on")] {
        for (name, ylabel, f) in [
            (
                "goodput",
                "aggregate goodput (Mb/s)",
                &(|d: &Done| thr_bps(&d.r) / 1e6) as &dyn Fn(&Done) -> f64,
            ),
            (
                "spurious",
                "spurious retransmissions per run",
                &|d: &Done| spurious(&d.r),
            ),
        ] {
            let chart = LineChart {
                title: format!("ATM-{}: RTOmin sweep, {what}", x.to_uppercase()),
                x_label: "RTOmin (ms)".into(),
                y_label: format!("{ylabel}, mean and 95% CI"),
                curves: ["plain", "ppd", "epd"]
                    .iter()
                    .map(|p| {
                        curve(
                            p.to_string(),
                            plan.x_rto_ms
                                .iter()
                                .map(|&r| (r as f64, est(done, &format!("{x}/{p}"), r as f64, f)))
                                .collect(),
                        )
                    })
                    .collect(),
                non_negative: true,
            };
            write(root, &format!("{x}_{name}.svg"), &chart.to_svg())?;
        }
    }
    Ok(())
}
