//! `packetsim plot DIR` for a sweep (DIR/results.csv, docs/outputs.md): one figure per chosen
//! metric, its mean against one swept parameter with the 95% confidence interval of each point
//! as a whisker, one line per combination of the other parameters' values.
//!
//! The x axis is the parameter's value in SI units when every value is a number or a quantity
//! with a unit (`"20ms"` is 0.02 s, `"2Mbps"` 2e6 bit/s, `"64KiB"` 65536 B); otherwise its values
//! are categories in the order the sweep lists them.

use crate::plot::{ensure_font, Format};
use packetsim::units::si_value;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// One point: x, mean, and the 95% CI (None when undefined, e.g. one replication).
type Point = (f64, f64, Option<(f64, f64)>);

/// A figure of a sweep metric.
pub struct SweepFigure {
    /// File stem.
    pub stem: String,
    /// The metric.
    pub metric: String,
    /// x axis label (parameter and unit).
    pub x_label: String,
    /// Category names when the x axis is categorical.
    pub categories: Option<Vec<String>>,
    /// (line name, points in x order).
    pub series: Vec<(String, Vec<Point>)>,
}

/// Whether `name` matches `pattern`, where `*` matches any text.
fn matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// The figures of the sweep in `dir`: `metrics` are names or `*` patterns (default
/// `*goodput_bps`); `x` the parameter on the x axis (default: the first with more than one
/// value, preferring numeric ones).
pub fn sweep_figures(
    dir: &Path,
    metrics: &[String],
    x: Option<&str>,
) -> Result<Vec<SweepFigure>, String> {
    let path = dir.join("results.csv");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rows = crate::study_html::csv_records(&text);
    let Some(header) = rows.first() else {
        return Err(format!(
            "{}:1: empty file, expected a CSV header",
            path.display()
        ));
    };
    let col = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| {
            format!(
                "{}:1: expected a column `{name}` (a sweep's results.csv: parameters, then \
                 metric,n,missing,mean,...)",
                path.display()
            )
        })
    };
    let (mc, mean_c, lo_c, hi_c) = (
        col("metric")?,
        col("mean")?,
        col("ci95_low")?,
        col("ci95_high")?,
    );
    let params: Vec<String> = header[..mc].to_vec();
    if params.is_empty() {
        return Err(format!(
            "{}:1: no parameter column before `metric`: nothing to plot against",
            path.display()
        ));
    }
    let body = &rows[1..];
    for (i, r) in body.iter().enumerate() {
        if r.len() != header.len() {
            return Err(format!(
                "{}: record {}: {} fields, expected {}",
                path.display(),
                i + 2,
                r.len(),
                header.len()
            ));
        }
    }
    // Each parameter's values in first-seen order.
    let values: Vec<Vec<String>> = (0..params.len())
        .map(|p| {
            let mut v: Vec<String> = Vec::new();
            for r in body {
                if !v.contains(&r[p]) {
                    v.push(r[p].clone());
                }
            }
            v
        })
        .collect();
    // A parameter is a numeric axis only if every value is drawable (a non-finite or absurd
    // value makes it categories: issue 38).
    let numeric = |p: usize| {
        values[p].iter().all(|v| {
            si_value(v)
                .is_some_and(|(x, _)| x.is_finite() && x.abs() <= crate::plot::MAX_PLOT_MAGNITUDE)
        })
    };
    let xi = match x {
        Some(name) => params.iter().position(|p| p == name).ok_or_else(|| {
            format!(
                "--x {name}: not a parameter of this sweep; its parameters: {}",
                params.join(", ")
            )
        })?,
        None => (0..params.len())
            .find(|&p| values[p].len() > 1 && numeric(p))
            .or_else(|| (0..params.len()).find(|&p| values[p].len() > 1))
            .unwrap_or(0),
    };
    let is_num = numeric(xi);
    let unit = if is_num {
        values[xi]
            .iter()
            .filter_map(|v| si_value(v))
            .map(|(_, u)| u.label())
            .find(|u| !u.is_empty())
            .unwrap_or("")
    } else {
        ""
    };
    let x_label = if unit.is_empty() {
        params[xi].clone()
    } else {
        format!("{} ({unit})", params[xi])
    };
    let patterns: Vec<String> = if metrics.is_empty() {
        vec!["*goodput_bps".to_owned()]
    } else {
        metrics.to_vec()
    };
    let mut names: Vec<&str> = Vec::new();
    for r in body {
        if patterns.iter().any(|p| matches(p, &r[mc])) && !names.contains(&r[mc].as_str()) {
            names.push(&r[mc]);
        }
    }
    if names.is_empty() {
        let mut all: Vec<&str> = body.iter().map(|r| r[mc].as_str()).collect();
        all.dedup();
        all.sort_unstable();
        all.dedup();
        return Err(format!(
            "{}: no metric matches {} (choose with --metric NAME, repeatable, `*` matches any \
             text); its metrics include: {}",
            path.display(),
            patterns.join(", "),
            all.iter().take(12).copied().collect::<Vec<_>>().join(", ")
        ));
    }
    let num = |r: &Vec<String>, c: usize, line: usize| -> Result<Option<f64>, String> {
        if r[c].is_empty() {
            return Ok(None);
        }
        crate::plot::plot_number(&r[c]).map(Some).map_err(|e| {
            format!(
                "{}: record {line}: column `{}`: {e}",
                path.display(),
                header[c]
            )
        })
    };
    let mut figs = Vec::new();
    for m in names {
        let mut series: Vec<(String, Vec<Point>)> = Vec::new();
        for (i, r) in body.iter().enumerate().filter(|(_, r)| r[mc] == m) {
            let line = i + 2;
            let Some(mean) = num(r, mean_c, line)? else {
                continue;
            };
            let ci = match (num(r, lo_c, line)?, num(r, hi_c, line)?) {
                (Some(l), Some(h)) => Some((l, h)),
                _ => None,
            };
            let xv = if is_num {
                si_value(&r[xi]).map(|(v, _)| v).unwrap_or(0.0)
            } else {
                values[xi].iter().position(|v| v == &r[xi]).unwrap_or(0) as f64
            };
            let others: Vec<String> = (0..params.len())
                .filter(|&p| p != xi && values[p].len() > 1)
                .map(|p| format!("{}={}", short(&params[p]), r[p].trim_matches('"')))
                .collect();
            let name = if others.is_empty() {
                "mean, 95% CI".to_owned()
            } else {
                others.join(", ")
            };
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pts)) => pts.push((xv, mean, ci)),
                None => series.push((name, vec![(xv, mean, ci)])),
            }
        }
        for (_, pts) in &mut series {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        figs.push(SweepFigure {
            stem: format!(
                "sweep_{}",
                m.replace(
                    |c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '_',
                    "_"
                )
            ),
            metric: m.to_owned(),
            x_label: x_label.clone(),
            categories: (!is_num).then(|| {
                values[xi]
                    .iter()
                    .map(|v| v.trim_matches('"').to_owned())
                    .collect()
            }),
            series,
        });
    }
    Ok(figs)
}

/// The last part of a parameter path (`links.bottleneck.loss` -> `loss`) for legends.
fn short(p: &str) -> &str {
    p.rsplit('.').next().unwrap_or(p)
}

const SIZE: (u32, u32) = (1000, 520);
/// Width of the legend column.
const LEGEND_W: u32 = 200;

/// A tick label: at most 4 significant digits, SI prefix k/M/G for large values.
fn tick(v: f64) -> String {
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            s
        }
    };
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    if scaled == 0.0 {
        return "0".to_owned();
    }
    let digits = (3 - scaled.abs().log10().floor() as i32).clamp(0, 9) as usize;
    format!("{}{suffix}", trim(format!("{scaled:.digits$}")))
}

fn draw<DB: DrawingBackend>(
    fig: &SweepFigure,
    root: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing {}: {e}", fig.stem);
    root.fill(&WHITE).map_err(err)?;
    // The legend gets its own column right of the plot, so it never covers data.
    let (root, legend) = root.split_horizontally(SIZE.0 - LEGEND_W);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (x, m, ci) in fig.series.iter().flat_map(|(_, p)| p.iter()) {
        x0 = x0.min(*x);
        x1 = x1.max(*x);
        let (l, h) = ci.unwrap_or((*m, *m));
        y0 = y0.min(l.min(*m));
        y1 = y1.max(h.max(*m));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    // Categories sit at 0..n-1 with half a step of room either side; numbers get 5% margins.
    let xpad = if fig.categories.is_some() {
        0.5
    } else {
        ((x1 - x0) * 0.05).max(1e-12)
    };
    let (x0, x1) = (x0 - xpad, x1 + xpad);
    // The y axis spans the data and their intervals; it starts at 0 only when the data come
    // within a quarter of their maximum of it (so differences are not flattened).
    if y0 >= 0.0 && y0 < 0.25 * y1 {
        y0 = 0.0;
    }
    let pad = ((y1 - y0) * 0.08).max(1e-9 * y1.abs().max(1.0));
    let (y0, y1) = (if y0 == 0.0 { 0.0 } else { y0 - pad }, y1 + pad);
    let title = format!("{}: mean and 95% CI", fig.metric);
    let mut chart = ChartBuilder::on(&root)
        .caption(&title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let cats = fig.categories.clone();
    let fmt_x = move |v: &f64| match &cats {
        Some(c) => {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                c.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        }
        None => tick(*v),
    };
    let fmt_y = |v: &f64| tick(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(fig.x_label.as_str())
        .y_desc(fig.metric.as_str())
        .label_style(("sans-serif", 13))
        .x_label_formatter(&fmt_x)
        .y_label_formatter(&fmt_y);
    if let Some(c) = &fig.categories {
        mesh.x_labels(c.len() * 4 + 1);
    }
    mesh.draw().map_err(err)?;
    // Lines sharing x values are drawn a little apart (a dodge of 0.8% of the x span per
    // line) so their whiskers do not hide one another.
    let n = fig.series.len() as f64;
    for (i, (name, pts)) in fig.series.iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        let dodge = (i as f64 - (n - 1.0) / 2.0) * 0.008 * (x1 - x0);
        let pts: Vec<Point> = pts.iter().map(|&(x, m, ci)| (x + dodge, m, ci)).collect();
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|&(x, m, _)| (x, m)),
                c.stroke_width(2),
            ))
            .map_err(err)?;
        let y = 40 + 22 * i as i32;
        legend
            .draw(&PathElement::new(vec![(4, y), (24, y)], c.stroke_width(2)))
            .map_err(err)?;
        legend
            .draw(&Text::new(name.as_str(), (30, y - 7), ("sans-serif", 13)))
            .map_err(err)?;
        chart
            .draw_series(
                pts.iter()
                    .map(|&(x, m, _)| Circle::new((x, m), 3, c.filled())),
            )
            .map_err(err)?;
        chart
            .draw_series(pts.iter().filter_map(|&(x, m, ci)| {
                ci.map(|(l, h)| ErrorBar::new_vertical(x, l, m, h, c.stroke_width(1), 8))
            }))
            .map_err(err)?;
    }
    legend
        .draw(&Text::new("lines:", (4, 14), ("sans-serif", 13)))
        .map_err(err)?;
    root.present().map_err(err)?;
    legend.present().map_err(err)?;
    Ok(())
}

/// Writes the figures of the sweep in `dir` into `out`; returns the files written.
pub fn plot_sweep(
    dir: &Path,
    out: &Path,
    format: Format,
    metrics: &[String],
    x: Option<&str>,
) -> Result<Vec<PathBuf>, String> {
    let figs = sweep_figures(dir, metrics, x)?;
    ensure_font()?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut written = Vec::new();
    for f in &figs {
        if format != Format::Png {
            let p = out.join(format!("{}.svg", f.stem));
            draw(f, SVGBackend::new(&p, SIZE).into_drawing_area())?;
            written.push(p);
        }
        if format != Format::Svg {
            let p = out.join(format!("{}.png", f.stem));
            draw(f, BitMapBackend::new(&p, SIZE).into_drawing_area())?;
            written.push(p);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick(0.018000000000000002), "0.018");
        assert_eq!(tick(3_500_000.0), "3.5M");
        assert_eq!(tick(25_000.0), "25k");
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(1234.0), "1234");
        assert_eq!(tick(-0.5), "-0.5");
    }

    #[test]
    fn star_patterns() {
        assert!(matches("*goodput_bps", "flows.a.goodput_bps"));
        assert!(matches("flows.*.goodput_bps", "flows.a.goodput_bps"));
        assert!(!matches("flows.*.goodput_bps", "queues.a.utilisation"));
        assert!(matches("events", "events"));
        assert!(!matches("events", "events2"));
        assert!(!matches("a*a", "a"));
    }
}
