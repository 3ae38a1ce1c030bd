//! Small SVG charts (line and grouped bar): curves with shaded confidence bands or bars with
//! whiskers, labelled axes with "nice" ticks, and a legend. Written by hand (no plotting
//! dependency): the figures packetsim draws are simple, and plain SVG text diffs well.
//!
//! Layout rules (issue 12, figure defects a new user found):
//! - the legend (and a bar chart's reference-line label) is in its own column right of the
//!   plot, never over the data; the column is as wide as its longest entry;
//! - with `non_negative`, bands and whiskers stop at 0 (a mean ± CI of a quantity that cannot
//!   be negative is not drawn below 0);
//! - a line chart leaves 0 out of its y axis when the data are far from it (its lowest value
//!   at least a third of its highest), and its y label says so; bars always start at 0;
//! - markers only on sparse curves (at most [`MARKERS_UP_TO`] points).

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
    /// The quantity cannot be negative: bands stop at 0.
    pub non_negative: bool,
}

const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];
/// Plot area: width and height, and the margins left, above and below it.
const PW: f64 = 620.0;
const PH: f64 = 340.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const H: f64 = TOP + PH + BOTTOM;
/// The plot's right edge; the legend column starts [`GAP`] to its right.
const PLOT_RIGHT: f64 = LEFT + PW;
const GAP: f64 = 16.0;
/// Width per character of legend text (12 px sans-serif, generous), px.
const CHAR_W: f64 = 7.0;
/// Curves with more points than this are drawn without markers.
pub const MARKERS_UP_TO: usize = 30;
/// Appended to a line chart's y label when its axis leaves 0 out.
pub const NOT_FROM_ZERO: &str = " (y axis not from 0)";

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

/// The legend column's width for these entries: a swatch and the longest text.
fn legend_width<'a>(entries: impl Iterator<Item = &'a str>) -> f64 {
    let chars = entries.map(|e| e.chars().count()).max().unwrap_or(0);
    (30.0 + CHAR_W * chars as f64).max(60.0)
}

/// The whole figure's width: plot, gap, legend column and a margin.
fn total_width(legend_w: f64) -> f64 {
    PLOT_RIGHT + GAP + legend_w + 10.0
}

/// The y of legend entry `i`.
fn legend_y(i: usize) -> f64 {
    TOP + 12.0 + 18.0 * i as f64
}

/// Whether a y axis over `[lo, hi]` should leave 0 out: the data are all on one side of 0 and
/// the nearest is at least a third of the way from 0 to the farthest (with 0 in, the data
/// would fill at most two thirds of the axis).
fn far_from_zero(lo: f64, hi: f64) -> bool {
    (lo > 0.0 && lo >= hi / 3.0) || (hi < 0.0 && hi <= lo / 3.0)
}

/// The start of a chart: document, background, title and the horizontal grid with its labels.
fn open_svg(width: f64, title: &str, y_ticks: &[f64], py: impl Fn(f64) -> f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{H}" viewBox="0 0 {width} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        LEFT + PW / 2.0,
        esc(title)
    );
    for &t in y_ticks {
        let y = py(t);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{PLOT_RIGHT:.1}" y2="{y:.1}" stroke="#e0e0e0"/>"##
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
        r##"<rect x="{LEFT}" y="{TOP}" width="{PW:.1}" height="{PH:.1}" fill="none" stroke="#333"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18,{:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        TOP + PH / 2.0,
        esc(y_label)
    );
    s.push_str("</svg>\n");
    s
}

impl LineChart {
    /// The chart as an SVG document.
    pub fn to_svg(&self) -> String {
        let floor = if self.non_negative {
            0.0
        } else {
            f64::NEG_INFINITY
        };
        let band = |lo: f64, hi: f64| (lo.max(floor), hi.max(floor));
        let pts = self.curves.iter().flat_map(|c| c.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for &(x, y, lo, hi) in pts {
            let (lo, hi) = band(lo, hi);
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
            (x0, x1) = (0.0, 1.0);
        }
        if !y0.is_finite() {
            (y0, y1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let not_from_zero = far_from_zero(y0, y1);
        if !not_from_zero {
            y0 = y0.min(0.0);
            y1 = y1.max(0.0);
        }
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
        let xt = nice_ticks(x0, x1, 8);
        // 5% headroom above (and below, when the axis does not start at 0).
        let pad = (y1 - y0) * 0.05;
        let (y0, y1) = (if not_from_zero { y0 - pad } else { y0 }, y1 + pad);
        let yt = nice_ticks(y0, y1, 6);
        let (x0, x1) = (xt[0].min(x0), xt.last().copied().unwrap_or(x1).max(x1));
        let (y0, y1) = (yt[0].min(y0), yt.last().copied().unwrap_or(y1).max(y1));
        let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * PW;
        let py = |y: f64| TOP + PH - (y - y0) / (y1 - y0) * PH;
        let legend_w = legend_width(self.curves.iter().map(|c| c.label.as_str()));
        let mut s = open_svg(total_width(legend_w), &self.title, &yt, py);
        for &t in &xt {
            let x = px(t);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#999"/>"##,
                TOP + PH,
                TOP + PH + 5.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                TOP + PH + 18.0,
                fmt_tick(t)
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + PW / 2.0,
            H - 16.0,
            esc(&self.x_label)
        );
        for (i, c) in self.curves.iter().enumerate() {
            let col = COLOURS[i % COLOURS.len()];
            let banded: Vec<(f64, f64, f64)> = c
                .points
                .iter()
                .filter(|p| p.2.is_finite() && p.3.is_finite())
                .map(|p| {
                    let (lo, hi) = band(p.2, p.3);
                    (p.0, lo, hi)
                })
                .collect();
            let poly: Vec<String> = banded
                .iter()
                .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.2)))
                .chain(
                    banded
                        .iter()
                        .rev()
                        .map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1))),
                )
                .collect();
            if poly.len() >= 4 {
                let _ = writeln!(
                    s,
                    r#"<polygon points="{}" fill="{col}" fill-opacity="0.18" stroke="none"/>"#,
                    poly.join(" ")
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
            if c.points.len() <= MARKERS_UP_TO {
                for p in c.points.iter().filter(|p| p.1.is_finite()) {
                    let _ = writeln!(
                        s,
                        r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{col}"/>"#,
                        px(p.0),
                        py(p.1)
                    );
                }
            }
            let ly = legend_y(i);
            let lx = PLOT_RIGHT + GAP;
            let _ = writeln!(
                s,
                r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{col}" stroke-width="3"/>"#,
                lx + 22.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                lx + 28.0,
                ly + 4.0,
                esc(&c.label)
            );
        }
        let y_label = if not_from_zero {
            format!("{}{NOT_FROM_ZERO}", self.y_label)
        } else {
            self.y_label.clone()
        };
        close_svg(s, &y_label)
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
            non_negative: true,
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
    /// Optional horizontal reference line (value, label); the label is in the legend column.
    pub reference: Option<(f64, String)>,
    /// The quantity cannot be negative: whiskers stop at 0.
    pub non_negative: bool,
}

impl BarChart {
    /// The chart as an SVG document.
    pub fn to_svg(&self) -> String {
        let floor = if self.non_negative {
            0.0
        } else {
            f64::NEG_INFINITY
        };
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
        let py = |y: f64| TOP + PH - y / y1 * PH;
        let n_cat = self.categories.len().max(1) as f64;
        let n_ser = self.series.len().max(1) as f64;
        let group_w = PW / n_cat;
        let bar_w = group_w * 0.8 / n_ser;
        let entries = self
            .series
            .iter()
            .map(|s| s.0.as_str())
            .chain(self.reference.iter().map(|r| r.1.as_str()));
        let legend_w = legend_width(entries);
        let lx = PLOT_RIGHT + GAP;
        let mut s = open_svg(total_width(legend_w), &self.title, &yt, py);
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
                    let (lo, hi) = ((v - e).max(floor), v + e);
                    let _ = writeln!(
                        s,
                        r##"<line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{:.1}" stroke="#222"/>"##,
                        py(lo),
                        py(hi)
                    );
                    for yy in [lo, hi] {
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
            let ly = legend_y(si);
            let _ = writeln!(
                s,
                r#"<rect x="{lx:.1}" y="{:.1}" width="14" height="10" fill="{col}"/>"#,
                ly - 5.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                lx + 28.0,
                ly + 4.0,
                esc(name)
            );
        }
        if let Some((r, label)) = &self.reference {
            let y = py(*r);
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{PLOT_RIGHT:.1}" y2="{y:.1}" stroke="#555" stroke-dasharray="6,4"/>"##
            );
            let ly = legend_y(self.series.len());
            let _ = writeln!(
                s,
                r##"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="#555" stroke-dasharray="6,4"/>"##,
                lx + 22.0
            );
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" fill="#555">{}</text>"##,
                lx + 28.0,
                ly + 4.0,
                esc(label)
            );
        }
        // Category labels under their groups; turned when the longest is wider than a group,
        // so that neighbours do not run into each other.
        let widest = self.categories.iter().map(|c| c.chars().count()).max();
        let turn = widest.is_some_and(|n| CHAR_W * n as f64 > group_w * 0.95);
        for (ci, c) in self.categories.iter().enumerate() {
            let x = LEFT + group_w * (ci as f64 + 0.5);
            let y = TOP + PH + 18.0;
            if turn {
                let _ = writeln!(
                    s,
                    r#"<text transform="translate({x:.1},{y:.1}) rotate(-30)" text-anchor="end">{}</text>"#,
                    esc(c)
                );
            } else {
                let _ = writeln!(
                    s,
                    r#"<text x="{x:.1}" y="{y:.1}" text-anchor="middle">{}</text>"#,
                    esc(c)
                );
            }
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
            non_negative: true,
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

#[cfg(test)]
mod layout_tests {
    use super::*;

    /// The value of attribute `name` in each line of `svg` that starts with `tag`.
    fn attr(svg: &str, tag: &str, name: &str) -> Vec<String> {
        let key = format!(" {name}=\"");
        svg.lines()
            .filter(|l| l.starts_with(tag))
            .filter_map(|l| l.split(&key).nth(1))
            .map(|r| r.split('"').next().unwrap_or("").to_owned())
            .collect()
    }

    fn num(svg: &str, tag: &str, name: &str) -> Vec<f64> {
        attr(svg, tag, name)
            .iter()
            .map(|v| v.parse().unwrap())
            .collect()
    }

    /// Every coordinate pair of the `points` attributes of `tag` elements.
    fn points(svg: &str, tag: &str) -> Vec<(f64, f64)> {
        attr(svg, tag, "points")
            .iter()
            .flat_map(|p| p.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .map(|xy| {
                let (x, y) = xy.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    /// Texts without `text-anchor`: the legend entries (titles and ticks are anchored).
    fn legend_texts(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.starts_with("<text x=") && !l.contains("text-anchor"))
            .collect()
    }

    /// A curve's points: (x, y, band low, band high).
    type Points = Vec<(f64, f64, f64, f64)>;

    fn line(curves: Vec<(&str, Points)>, non_negative: bool) -> LineChart {
        LineChart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y (s)".into(),
            curves: curves
                .into_iter()
                .map(|(l, p)| Curve {
                    label: l.into(),
                    points: p,
                })
                .collect(),
            non_negative,
        }
    }

    #[test]
    fn legend_sits_in_its_own_column_right_of_the_plot() {
        let long = "a rather long legend entry"; // 26 characters
        let c = line(
            vec![
                ("a", vec![(0.0, 1.0, 1.0, 1.0), (10.0, 5.0, 5.0, 5.0)]),
                (long, vec![(0.0, 4.0, 4.0, 4.0), (10.0, 2.0, 2.0, 2.0)]),
            ],
            true,
        );
        let svg = c.to_svg();
        // The column is as wide as its longest entry: 700 + 16 + (30 + 7 × 26) + 10.
        assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="938" "#));
        // Data inside the plot [80, 700]; every legend item at 716 or right of it.
        for (x, _) in points(&svg, "<polyline") {
            assert!((LEFT..=PLOT_RIGHT).contains(&x), "{x}");
        }
        assert_eq!(num(&svg, "<line x1=\"716", "x1"), vec![716.0, 716.0]);
        let texts = legend_texts(&svg);
        assert_eq!(texts.len(), 2);
        for t in texts {
            assert!(t.starts_with("<text x=\"744.0\""), "{t}");
        }

        let b = BarChart {
            title: "t".into(),
            y_label: "y".into(),
            categories: vec!["A".into(), "B".into()],
            series: vec![("s1".into(), vec![(5.0, 1.0), (6.0, 1.0)])],
            reference: Some((5.5, "the profile share".into())),
            non_negative: true,
        };
        let svg = b.to_svg();
        // Bars end at the plot's right edge at most; the swatch and the reference label are in
        // the column (the reference line itself spans the plot).
        for (x, w) in num(&svg, "<rect x=", "x")
            .iter()
            .zip(num(&svg, "<rect x=", "width"))
        {
            assert!(x + w <= PLOT_RIGHT || *x >= PLOT_RIGHT + GAP, "{x} {w}");
        }
        let texts = legend_texts(&svg);
        assert_eq!(texts.len(), 2);
        assert!(texts[1].contains("744.0") && texts[1].contains("the profile share"));
    }

    #[test]
    fn bands_and_whiskers_of_non_negative_quantities_stop_at_zero() {
        let pts = vec![(0.0, 1.0, -0.5, 2.5), (1.0, 2.0, 1.0, 3.0)];
        let clipped = line(vec![("a", pts.clone())], true).to_svg();
        // The band's lowest point is 0, the plot's bottom edge (y = 380); no negative tick.
        let lowest = points(&clipped, "<polygon")
            .iter()
            .map(|p| p.1)
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(lowest, TOP + PH);
        assert!(!clipped.contains(">-"), "a negative tick label");
        // A signed quantity keeps its band: the axis goes down to -1.
        let signed = line(vec![("a", pts)], false).to_svg();
        assert!(signed.contains(r#"text-anchor="end">-1</text>"#));

        let bar = |non_negative| BarChart {
            title: "t".into(),
            y_label: "y".into(),
            categories: vec!["A".into()],
            series: vec![("s".into(), vec![(1.0, 3.0)])],
            reference: None,
            non_negative,
        };
        // The whisker of 1 ± 3 goes from 0 (y = 380) up to 4 (380 − 4/4.32 × 340).
        let svg = bar(true).to_svg();
        let whisker = r##"stroke="#222"/>"##;
        let v: Vec<&str> = svg.lines().filter(|l| l.ends_with(whisker)).collect();
        assert_eq!(v.len(), 3);
        let top = TOP + PH - 4.0 / 4.32 * PH;
        assert_eq!(
            v[0],
            format!(r##"<line x1="370.2" y1="380.0" x2="370.2" y2="{top:.1}" stroke="#222"/>"##)
        );
        // Without the option the whisker would reach −2, below the frame.
        let svg = bar(false).to_svg();
        assert!(svg.contains(r#"<line x1="370.2" y1="537.4""#));
    }

    #[test]
    fn line_charts_leave_zero_out_when_the_data_are_far_from_it() {
        let far: Vec<_> = (0..5)
            .map(|i| {
                let y = 38.0 + 7.0 * i as f64 / 4.0;
                (i as f64, y, y, y)
            })
            .collect();
        let svg = line(vec![("a", far)], true).to_svg();
        // 38..45 with 5% headroom each side: ticks 36, 38, ..., 44, and the label says so.
        let ticks: Vec<&str> = svg
            .lines()
            .filter(|l| l.starts_with("<text x=\"74.0\""))
            .map(|l| l.split('>').nth(1).unwrap().trim_end_matches("</text"))
            .collect();
        assert_eq!(ticks, vec!["36", "38", "40", "42", "44"]);
        assert!(svg.contains(&format!(">y (s){NOT_FROM_ZERO}</text>")));
        // 10..45: 0 stays in, the label is as given.
        let near = vec![(0.0, 10.0, 10.0, 10.0), (1.0, 45.0, 45.0, 45.0)];
        let svg = line(vec![("a", near)], true).to_svg();
        assert!(svg.contains(r#"text-anchor="end">0</text>"#));
        assert!(svg.contains(">y (s)</text>"));
        // The threshold: lowest value a third of the highest.
        assert!(far_from_zero(15.0, 45.0) && !far_from_zero(14.9, 45.0));
        assert!(far_from_zero(-45.0, -15.0) && !far_from_zero(-45.0, 0.0));
    }

    #[test]
    fn dense_series_have_no_markers() {
        let series = |n: usize| -> Vec<_> {
            (0..n)
                .map(|i| (i as f64, 1.0 + i as f64, 1.0, 1.0))
                .collect()
        };
        let sparse = line(vec![("a", series(MARKERS_UP_TO))], true).to_svg();
        assert_eq!(sparse.matches("<circle").count(), MARKERS_UP_TO);
        let dense = line(vec![("a", series(MARKERS_UP_TO + 1))], true).to_svg();
        assert_eq!(dense.matches("<circle").count(), 0);
        assert_eq!(dense.matches("<polyline").count(), 1);
    }

    #[test]
    fn long_category_labels_are_turned() {
        let bar = |cats: Vec<&str>| BarChart {
            title: "t".into(),
            y_label: "y".into(),
            categories: cats.into_iter().map(String::from).collect(),
            series: vec![("s".into(), vec![(1.0, 0.0); 14])],
            reference: None,
            non_negative: true,
        };
        // 14 groups of 620/14 = 44.3 px: "std dev" (7 × 7 = 49 px) would overlap its neighbours.
        let mut cats = vec!["AF1"; 13];
        cats.push("std dev");
        assert_eq!(bar(cats).to_svg().matches("rotate(-30)").count(), 14);
        assert_eq!(
            bar(vec!["AF1"; 14]).to_svg().matches("rotate(-30)").count(),
            0
        );
    }
}
