//! A small SVG line chart: curves with shaded confidence bands, labelled axes with "nice" ticks
//! and a legend. Written by hand (no plotting dependency): the figures packetsim draws are
//! simple, and plain SVG text diffs well.

use std::fmt::Write as _;

/// One curve: points `(x, mean, ci_low, ci_high)` in x order.
#[derive(Clone, Debug)]
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// (x, y, band low, band high).
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// A line chart.
#[derive(Clone, Debug)]
pub struct LineChart {
    /// Title above the plot.
    pub title: String,
    /// X-axis label, with its unit.
    pub x_label: String,
    /// Y-axis label, with its unit.
    pub y_label: String,
    /// The curves.
    pub curves: Vec<Curve>,
}

const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];
const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

/// Tick positions covering [lo, hi] with a 1/2/5 × 10^k step.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater)
        || !lo.is_finite()
        || !hi.is_finite()
    {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).floor() * step;
    let mut ticks = Vec::new();
    let mut t = first;
    while t <= hi + step * 1e-9 {
        ticks.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    ticks
}

fn fmt_tick(v: f64) -> String {
    let s = format!("{:.6}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The start of a chart: document, background, title and the horizontal grid with its labels.
fn open_svg(title: &str, y_ticks: &[f64], py: impl Fn(f64) -> f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        W / 2.0,
        esc(title)
    );
    for &t in y_ticks {
        let y = py(t);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e0e0e0"/>"##,
            W - RIGHT
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            y + 4.0,
            fmt_tick(t)
        );
    }
    s
}

/// The end of a chart: the plot frame, the y-axis label and the closing tag.
fn close_svg(mut s: String, y_label: &str) -> String {
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{:.1}" height="{:.1}" fill="none" stroke="#333"/>"##,
        W - LEFT - RIGHT,
        H - TOP - BOTTOM
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        (TOP + H - BOTTOM) / 2.0,
        esc(y_label)
    );
    s.push_str("</svg>\n");
    s
}

impl LineChart {
    /// The chart as an SVG document.
    pub fn to_svg(&self) -> String {
        let pts = self.curves.iter().flat_map(|c| c.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for &(x, y, lo, hi) in pts {
            for v in [y, lo, hi] {
                if v.is_finite() {
                    y0 = y0.min(v);
                    y1 = y1.max(v);
                }
            }
            x0 = x0.min(x);
            x1 = x1.max(x);
        }
        if !x0.is_finite() {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        y0 = y0.min(0.0);
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
        let xt = nice_ticks(x0, x1, 8);
        let yt = nice_ticks(y0, y1 * 1.05, 6);
        let (x0, x1) = (xt[0].min(x0), xt.last().copied().unwrap_or(x1).max(x1));
        let (y0, y1) = (yt[0].min(y0), yt.last().copied().unwrap_or(y1).max(y1));
        let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
        let py = |y: f64| H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM);
        let mut s = open_svg(&self.title, &yt, py);
        for &t in &xt {
            let x = px(t);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#999"/>"##,
                H - BOTTOM,
                H - BOTTOM + 5.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                H - BOTTOM + 18.0,
                fmt_tick(t)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            (LEFT + W - RIGHT) / 2.0,
            H - 16.0,
            esc(&self.x_label)
        );
        for (i, c) in self.curves.iter().enumerate() {
            let col = COLOURS[i % COLOURS.len()];
            let band: Vec<String> = c
                .points
                .iter()
                .filter(|p| p.2.is_finite() && p.3.is_finite())
                .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.3)))
                .chain(
                    c.points
                        .iter()
                        .rev()
                        .filter(|p| p.2.is_finite() && p.3.is_finite())
                        .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.2))),
                )
                .collect();
            if band.len() >= 4 {
                let _ = writeln!(
                    s,
                    r#"<polygon points="{}" fill="{col}" fill-opacity="0.18" stroke="none"/>"#,
                    band.join(" ")
                );
            }
            let line: Vec<String> = c
                .points
                .iter()
                .filter(|p| p.1.is_finite())
                .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{col}" stroke-width="2"/>"#,
                line.join(" ")
            );
            for p in c.points.iter().filter(|p| p.1.is_finite()) {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{col}"/>"#,
                    px(p.0),
                    py(p.1)
                );
            }
            let ly = TOP + 16.0 + 18.0 * i as f64;
            let _ = writeln!(
                s,
                r#"<line x1="{:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{col}" stroke-width="3"/>"#,
                LEFT + 12.0,
                LEFT + 36.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                LEFT + 42.0,
                ly + 4.0,
                esc(&c.label)
            );
        }
        close_svg(s, &self.y_label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_use_round_steps() {
        assert_eq!(
            nice_ticks(0.0, 1.0, 5),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(
            nice_ticks(0.0, 16.0, 8),
            vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0]
        );
    }

    #[test]
    fn chart_has_one_polyline_and_band_per_curve() {
        let c = LineChart {
            title: "t".into(),
            x_label: "loss (%)".into(),
            y_label: "time (s)".into(),
            curves: vec![
                Curve {
                    label: "a".into(),
                    points: vec![(0.0, 1.0, 0.9, 1.1), (1.0, 2.0, 1.8, 2.2)],
                },
                Curve {
                    label: "b<c".into(),
                    points: vec![(0.0, 1.5, 1.4, 1.6), (1.0, 3.0, 2.5, 3.5)],
                },
            ],
        };
        let svg = c.to_svg();
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<polygon").count(), 2);
        assert!(svg.contains("b&lt;c"));
        assert!(svg.contains("loss (%)") && svg.contains("time (s)"));
    }
}

/// A grouped bar chart: for each category on the x axis, one bar per series, with an error bar.
#[derive(Clone, Debug)]
pub struct BarChart {
    /// Title above the plot.
    pub title: String,
    /// Y-axis label, with its unit.
    pub y_label: String,
    /// Category names along the x axis.
    pub categories: Vec<String>,
    /// (series name, per category (value, error half-width)).
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// Optional horizontal reference line (value, label).
    pub reference: Option<(f64, String)>,
}

impl BarChart {
    /// The chart as an SVG document.
    pub fn to_svg(&self) -> String {
        let mut hi = self
            .series
            .iter()
            .flat_map(|s| s.1.iter())
            .map(|(v, e)| v + e.max(0.0))
            .fold(0.0, f64::max);
        if let Some((r, _)) = &self.reference {
            hi = hi.max(*r);
        }
        if hi <= 0.0 || !hi.is_finite() {
            hi = 1.0;
        }
        let yt = nice_ticks(0.0, hi * 1.08, 6);
        let y1 = yt.last().copied().unwrap_or(hi).max(hi * 1.08);
        let py = |y: f64| H - BOTTOM - y / y1 * (H - TOP - BOTTOM);
        let n_cat = self.categories.len().max(1) as f64;
        let n_ser = self.series.len().max(1) as f64;
        let group_w = (W - LEFT - RIGHT) / n_cat;
        let bar_w = group_w * 0.8 / n_ser;
        let mut s = open_svg(&self.title, &yt, py);
        for (si, (name, vals)) in self.series.iter().enumerate() {
            let col = COLOURS[si % COLOURS.len()];
            for (ci, &(v, e)) in vals.iter().enumerate() {
                if !v.is_finite() {
                    continue;
                }
                let x = LEFT + group_w * ci as f64 + group_w * 0.1 + bar_w * si as f64;
                let _ = writeln!(
                    s,
                    r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{col}"/>"#,
                    py(v),
                    bar_w * 0.92,
                    (py(0.0) - py(v)).max(0.0)
                );
                if e.is_finite() && e > 0.0 {
                    let cx = x + bar_w * 0.46;
                    let _ = writeln!(
                        s,
                        r##"<line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{:.1}" stroke="#222"/>"##,
                        py(v - e),
                        py(v + e)
                    );
                    for yy in [v - e, v + e] {
                        let _ = writeln!(
                            s,
                            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#222"/>"##,
                            cx - 4.0,
                            py(yy),
                            cx + 4.0,
                            py(yy)
                        );
                    }
                }
            }
            let ly = TOP + 16.0 + 18.0 * si as f64;
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="14" height="10" fill="{col}"/>"#,
                W - RIGHT - 190.0,
                ly - 8.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                W - RIGHT - 170.0,
                ly + 1.0,
                esc(name)
            );
        }
        if let Some((r, label)) = &self.reference {
            let y = py(*r);
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#555" stroke-dasharray="6,4"/>"##,
                W - RIGHT
            );
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" fill="#555">{}</text>"##,
                LEFT + 6.0,
                y - 4.0,
                esc(label)
            );
        }
        for (ci, c) in self.categories.iter().enumerate() {
            let x = LEFT + group_w * (ci as f64 + 0.5);
            let _ = writeln!(
                s,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                H - BOTTOM + 18.0,
                esc(c)
            );
        }
        close_svg(s, &self.y_label)
    }
}

#[cfg(test)]
mod bar_tests {
    use super::*;

    #[test]
    fn one_bar_per_series_and_category_with_error_bars() {
        let c = BarChart {
            title: "t".into(),
            y_label: "goodput (kb/s)".into(),
            categories: vec!["AF1".into(), "AF2".into()],
            series: vec![
                ("no ecn".into(), vec![(600.0, 10.0), (700.0, 0.0)]),
                ("ecn".into(), vec![(650.0, 5.0), (680.0, 5.0)]),
            ],
            reference: Some((666.7, "share".into())),
        };
        let svg = c.to_svg();
        // 4 bars + 2 legend swatches + the frame and background.
        assert_eq!(svg.matches("<rect x=").count(), 4 + 2 + 1);
        // Every bar stays inside the plot area (y >= TOP).
        for part in svg.split("<rect x=").skip(1) {
            let y: f64 = part
                .split("y=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(y >= TOP - 1e-9, "bar above the frame: y = {y}");
        }
        assert!(svg.contains("stroke-dasharray") && svg.contains("goodput (kb/s)"));
    }
}
