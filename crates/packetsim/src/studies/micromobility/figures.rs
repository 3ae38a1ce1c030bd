//! Figs 3-7 (SVG and CSV) and extensions.csv.

use super::*;
use crate::experiment::aggregate::CsvText;

/// Writes the pass's figures: Figs 3-6 (SVG and CSV), Fig 7 and, with the extensions,
/// extensions.csv and the sensitivity checks (sensitivity/checks.csv).
pub(super) fn write_figures(root: &Path, r: &Results, axes: &Axes) -> Result<(), String> {
    for f in figures(axes) {
        write_figure(root, r, &f)?;
    }
    let (csv, _, chart) = fig7(r, axes);
    let mut files = vec![("fig7.csv", csv), ("fig7.svg", chart.to_svg())];
    if axes.ext {
        files.push(("extensions.csv", extensions(r, axes).0));
    }
    let sensitivities = sensitivity_checks(r, axes);
    if !sensitivities.is_empty() {
        let dir = root.join(SENSITIVITY_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        files.push(("sensitivity/checks.csv", checks::csv(&sensitivities)));
    }
    for (name, text) in files {
        write_atomic(&root.join(name), &text).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A figure: per protocol panel, a curve per variant over one axis.
pub(super) struct Figure {
    pub(super) file: &'static str,
    pub(super) title: String,
    pub(super) x_label: &'static str,
    /// (curve label, points with their x).
    pub(super) curves: Vec<(String, Vec<(f64, Point)>)>,
    pub(super) metric: &'static str,
}

pub(super) fn figures(axes: &Axes) -> Vec<Figure> {
    let mut out = Vec::new();
    for (proto, panel) in [(CIP, "a"), (HAW, "b")] {
        let curves = |f: &dyn Fn(Variant) -> Vec<(f64, Point)>| {
            Variant::ALL
                .into_iter()
                .map(|v| (vname(v).to_string(), f(v)))
                .collect::<Vec<_>>()
        };
        out.push(Figure {
            file: if panel == "a" { "fig3a" } else { "fig3b" },
            title: format!(
                "Fig 3{panel}: {}, H = 3, N = 1: throughput vs radio loss",
                pname(proto)
            ),
            x_label: "radio loss rate e (%)",
            curves: curves(&|v| {
                axes.e
                    .iter()
                    .map(|&e| {
                        (
                            e * 100.0,
                            Point {
                                e,
                                ..Point::base(proto, v)
                            },
                        )
                    })
                    .collect()
            }),
            metric: "thr_kbps",
        });
        out.push(Figure {
            file: if panel == "a" { "fig4a" } else { "fig4b" },
            title: format!(
                "Fig 4{panel}: {}, e = 0, N = 1: throughput vs handoffs",
                pname(proto)
            ),
            x_label: "handoffs in 30 s, H",
            curves: curves(&|v| {
                axes.h
                    .iter()
                    .map(|&h| {
                        (
                            h as f64,
                            Point {
                                h,
                                ..Point::base(proto, v)
                            },
                        )
                    })
                    .collect()
            }),
            metric: "thr_kbps",
        });
        for (h, sub) in [(2u32, "a"), (7, "b")] {
            let fig = if proto == CIP { "5" } else { "6" };
            out.push(Figure {
                file: match (fig, sub) {
                    ("5", "a") => "fig5a",
                    ("5", _) => "fig5b",
                    (_, "a") => "fig6a",
                    _ => "fig6b",
                },
                title: format!(
                    "Fig {fig}{sub}: {}, H = {h}, e = 0: aggregate throughput vs connections",
                    pname(proto)
                ),
                x_label: "TCP connections to the mobile, N",
                curves: curves(&|v| {
                    axes.n
                        .iter()
                        .map(|&n| {
                            (
                                n as f64,
                                Point {
                                    h,
                                    n,
                                    ..Point::base(proto, v)
                                },
                            )
                        })
                        .collect()
                }),
                metric: "thr_kbps",
            });
        }
    }
    out
}

pub(super) fn write_figure(root: &Path, r: &Results, f: &Figure) -> Result<(), String> {
    let mut csv = CsvText::new();
    csv.row(
        [
            "curve",
            "x",
            "n",
            "mean_kbps",
            "ci95_low",
            "ci95_high",
            "thr_min_kbps",
        ]
        .into_iter()
        .chain(DIAG),
    );
    let mut chart = LineChart {
        title: f.title.clone(),
        x_label: f.x_label.into(),
        y_label: "throughput over 30 s (kb/s), mean and 95% CI".into(),
        curves: Vec::new(),
        non_negative: true,
    };
    for (label, pts) in &f.curves {
        let mut c = Curve {
            label: label.clone(),
            points: Vec::new(),
        };
        for (x, p) in pts {
            let e = r.est(p, f.metric);
            if !e.mean.is_finite() {
                continue;
            }
            let half = if e.half().is_finite() { e.half() } else { 0.0 };
            c.points.push((*x, e.mean, e.mean - half, e.mean + half));
            let mut row = vec![
                label.clone(),
                x.to_string(),
                e.n.to_string(),
                format!("{:?}", e.mean),
                format!("{:?}", e.mean - half),
                format!("{:?}", e.mean + half),
                format!("{:?}", r.mean(p, "thr_min_kbps")),
            ];
            row.extend(DIAG.iter().map(|d| format!("{:?}", r.mean(p, d))));
            csv.row(row);
        }
        chart.curves.push(c);
    }
    write_atomic(&root.join(format!("{}.csv", f.file)), &csv.finish())
        .map_err(|e| e.to_string())?;
    write_atomic(&root.join(format!("{}.svg", f.file)), &chart.to_svg()).map_err(|e| e.to_string())
}

/// Fig 7: the map of which protocol wins, by handoffs (x) and connections (y): fig7.csv, the
/// report's table and the chart.
pub(super) fn fig7(r: &Results, axes: &Axes) -> (String, String, LineChart) {
    let mut csv = CsvText::new();
    csv.row([
        "h",
        "n",
        "hawaii_gain_mean",
        "ci95_low",
        "ci95_high",
        "winner",
    ]);
    let mut md = String::from("| H \\ N | ");
    md.push_str(
        &axes
            .n
            .iter()
            .map(|n| format!("N = {n}"))
            .collect::<Vec<_>>()
            .join(" | "),
    );
    md.push_str(" |\n|---|");
    md.push_str(&"---|".repeat(axes.n.len()));
    md.push('\n');
    let mut chart = LineChart {
        title: "Fig 7: HAWAII's throughput gain over CIP by connections, at H = 2 and H = 7".into(),
        x_label: "TCP connections to the mobile, N".into(),
        y_label: "(HAWAII − CIP)/CIP, four variants summed (%), mean and 95% CI".into(),
        curves: Vec::new(),
        non_negative: false,
    };
    for h in [2u32, 7] {
        let mut cells = Vec::new();
        let mut curve = Curve {
            label: format!("H = {h}"),
            points: Vec::new(),
        };
        for &n in &axes.n {
            let g = hawaii_gain(r, h, n);
            let winner = match (exceeds(&g, 0.10), equivalent(&g, 0.05)) {
                (Verdict::Holds, _) => "HAWAII",
                (_, Verdict::Holds) => "equal (CIP: simpler)",
                _ if g.decidable() && g.hi() < 0.0 => "CIP",
                _ => "undecided",
            };
            let half = if g.half().is_finite() { g.half() } else { 0.0 };
            curve.points.push((
                n as f64,
                g.mean * 100.0,
                (g.mean - half) * 100.0,
                (g.mean + half) * 100.0,
            ));
            csv.row([
                h.to_string(),
                n.to_string(),
                format!("{:?}", g.mean),
                format!("{:?}", g.mean - half),
                format!("{:?}", g.mean + half),
                winner.to_string(),
            ]);
            cells.push(format!("{winner} ({})", pct(&g)));
        }
        chart.curves.push(curve);
        let _ = writeln!(md, "| H = {h} | {} |", cells.join(" | "));
    }
    (csv.finish(), md, chart)
}

/// The extension runs as extensions.csv and one table (markdown).
pub(super) fn extensions(r: &Results, axes: &Axes) -> (String, String) {
    let mut csv = CsvText::new();
    csv.row(
        [
            "extension",
            "protocol",
            "variant",
            "h",
            "n",
            "size",
            "d_ms",
            "departure",
            "spread",
            "delay_device",
            "ha_ms",
            "runs",
            "thr_kbps",
            "ci95_half",
        ]
        .into_iter()
        .chain(DIAG),
    );
    let mut md = String::from("| ext. | protocol | variant | H | N | size B | D ms | old BS | mobiles | throughput kb/s | handoff loss | duplicates | timeouts | control msgs |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for p in axes.points() {
        if p.q2 || p.sensitivity() {
            continue;
        }
        let b = Point::base(p.protocol, p.variant);
        let ext = if p.ha_ms.is_some() || p.protocol == Protocol::MobileIp {
            "MM-X6"
        } else if p.spread {
            "MM-X5"
        } else if p.size != 1000 {
            "MM-X1"
        } else if p.d_ms != 2 {
            "MM-X2"
        } else if (p.protocol != CIP && p.protocol != HAW) || !p.delay_device || p.ideal_device {
            "MM-X3"
        } else if p.departure == Departure::Blind {
            "MM-X4"
        } else if p.h == 10 && p.n == 1 && p.e == 0.0 && p.variant == Variant::Sack {
            "MM-X1/X3/X4 ref."
        } else {
            continue;
        };
        let _ = b;
        let e = r.est(&p, "thr_kbps");
        let departure = if p.departure == Departure::Blind {
            "blind"
        } else {
            "hold"
        };
        let mut row = vec![
            ext.to_string(),
            p.protocol.name().to_string(),
            p.variant.name().to_string(),
            p.h.to_string(),
            p.n.to_string(),
            p.size.to_string(),
            p.d_ms.to_string(),
            departure.to_string(),
            p.spread.to_string(),
            p.delay_device.to_string(),
            p.ha_ms.map_or(String::new(), |x| x.to_string()),
            e.n.to_string(),
            format!("{:?}", e.mean),
            format!("{:?}", e.half()),
        ];
        row.extend(DIAG.iter().map(|d| format!("{:?}", r.mean(&p, d))));
        csv.row(row);
        let _ = writeln!(
            md,
            "| {ext} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.0} |",
            plabel(&p),
            vname(p.variant),
            p.h,
            p.n,
            p.size,
            p.d_ms,
            departure,
            if p.spread { p.n } else { 1 },
            e.show(0),
            r.mean(&p, "handoff_loss"),
            r.mean(&p, "duplicates"),
            r.mean(&p, "timeouts"),
            r.mean(&p, "control_msgs")
        );
    }
    (csv.finish(), md)
}
