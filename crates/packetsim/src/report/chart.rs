//! The study figures (line charts with confidence bands, grouped bars with whiskers), drawn
//! as SVG by plotters, the charting crate `packetsim plot` uses too (issue 37 item 9: one
//! stack instead of hand-written SVG beside plotters).
//!
//! Rules (issues 12 and 37, figure defects readers found):
//! - every series differs from every other in colour (10 colours), dash pattern (4) and
//!   marker (7) at once ([`SeriesStyle::of`]): ten curves never share a colour, and a reader
//!   in greyscale or with a colour-vision deficiency tells them apart by dash and marker;
//! - the legend is in its own column right of the plot, never over the data;
//! - a curve of more than [`BINS`] points (one per 2 pixels) is binned ([`bin`]: [`BINS`]
//!   bins of equal width): its line is each bin's mean and a light band each bin's range,
//!   and the legend column says so, so 100 s of per-packet samples draw as a readable curve,
//!   not a solid block; several such curves, which would cross, get a panel each on the
//!   same axes; markers on every point of a sparse curve (at most [`MARKERS_UP_TO`] points),
//!   about 12 along a dense one;
//! - curves several times above the others would flatten the others' differences on one
//!   axis: the caller chooses panels ([`LineChart::to_svg_in_panels`]), stacked on the same x
//!   axis, each on its own y axis (chosen by the rule below), one legend for every curve;
//!   each panel's caption says what it shows (SCTP Figure 3's RTO-floor curves);
//! - the y axis ([`YAxis`]): by default a line chart leaves 0 out only when that does not
//!   exaggerate (the data all on one side of 0, the nearest at least a third of the way out,
//!   and the curves spanning at least [`ZOOM_SPAN`] of their level); a 4% drop is drawn from
//!   0. An axis without 0 says so in its label ([`NOT_FROM_ZERO`]). Bars start at 0; a bar
//!   chart whose comparison is a few units on a large level asks for [`YAxis::Data`] and is
//!   drawn as points with whiskers (a bar cut off below would mislead);
//! - with `non_negative`, bands and whiskers stop at 0.
//!
//! Text needs a TrueType font ([`ensure_font`]: `PACKETSIM_FONT`, else a usual system font).
//! Without one a figure is an SVG that says so and how to fix it, and the study's CSV tables
//! (the data) are written as always.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::PathBuf;

/// One curve: points `(x, mean, ci_low, ci_high)` in x order.
#[derive(Clone, Debug)]
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// (x, y, band low, band high).
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// Where a chart's y axis starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum YAxis {
    /// A line chart leaves 0 out when that does not exaggerate (see the module doc); bars
    /// start at 0.
    #[default]
    Auto,
    /// 0 is on the axis.
    FromZero,
    /// The axis spans the data (with a margin), 0 or not; bars are drawn as points.
    Data,
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

/// A panel of a line chart drawn by [`LineChart::to_svg_in_panels`]: its caption and the
/// curves it shows (indices into [`LineChart::curves`]; a curve may be in several panels and
/// is drawn in the same style in each).
#[derive(Clone, Debug)]
pub struct Panel {
    /// Text above the panel: what it shows and why it is apart.
    pub caption: String,
    /// The curves, by index.
    pub curves: Vec<usize>,
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
    /// Where the y axis starts: [`YAxis::Data`] draws points with whiskers instead of bars.
    pub y_axis: YAxis,
}

/// Curves with more points than this are drawn with a marker every few points only.
pub const MARKERS_UP_TO: usize = 30;
/// Appended to a y label when the axis leaves 0 out.
pub const NOT_FROM_ZERO: &str = " (y axis not from 0)";
/// A line chart zooms in on its data (leaves 0 out) only when the curves span at least this
/// fraction of their highest value: below it, a zoomed axis makes a few per cent look steep.
pub const ZOOM_SPAN: f64 = 0.15;

/// The plot's width and the figure's height, px; the legend column comes on the right.
const PLOT_W: u32 = 720;
const HEIGHT: u32 = 520;
/// Height of each panel of [`LineChart::to_svg_in_panels`], px.
const PANEL_H: u32 = 330;
/// Width per character of legend text (16-point sans-serif, generous), px.
const CHAR_W: u32 = 8;
/// Most points [`decimate`] keeps by default (`packetsim plot`'s series): two per pixel
/// column of a plot this wide.
pub const MAX_POINTS: usize = 2 * PLOT_W as usize;
/// Bins of a curve of more points than this: one per 2 pixels of the plot.
pub const BINS: usize = PLOT_W as usize / 2;

/// Ten colours that stay apart (Tableau 10).
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
/// Dash patterns (dash, gap px; `None` = solid).
const DASHES: [Option<(u32, u32)>; 4] = [None, Some((10, 5)), Some((3, 4)), Some((16, 5))];

/// A marker shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// Filled circle.
    Dot,
    /// Filled square.
    Square,
    /// Filled triangle.
    Triangle,
    /// Diagonal cross.
    Cross,
    /// Open circle.
    Ring,
    /// Open square.
    Box,
    /// Open triangle.
    Delta,
}

const MARKERS: [Marker; 7] = [
    Marker::Dot,
    Marker::Square,
    Marker::Triangle,
    Marker::Cross,
    Marker::Ring,
    Marker::Box,
    Marker::Delta,
];

/// How series `i` is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeriesStyle {
    /// Line and marker colour.
    pub colour: RGBColor,
    /// Dash and gap, px (`None` = solid).
    pub dash: Option<(u32, u32)>,
    /// Marker shape.
    pub marker: Marker,
}

impl SeriesStyle {
    /// The style of series `i`: colour, dash and marker each cycle with their own period
    /// (10, 4, 7), so series 0..140 all differ, and any two among the first 10 differ in all
    /// three at once unless 4 or 7 divides their distance.
    pub fn of(i: usize) -> SeriesStyle {
        SeriesStyle {
            colour: COLOURS[i % COLOURS.len()],
            dash: DASHES[i % DASHES.len()],
            marker: MARKERS[i % MARKERS.len()],
        }
    }
}

/// The font used for text: `PACKETSIM_FONT`, else the first usual system font found.
fn font_file() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("PACKETSIM_FONT") {
        return Ok(PathBuf::from(p));
    }
    const TRY: &[&str] = &[
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
        "/System/Library/Fonts/Supplemental/Arial.ttf",
    ];
    TRY.iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .ok_or_else(|| {
            format!(
                "no TrueType font found to draw the figures' text: install one (Debian: apt-get \
                 install fonts-dejavu-core) or set PACKETSIM_FONT to a .ttf file; looked for {}",
                TRY.join(", ")
            )
        })
}

/// Registers the font for plotters once per process (every chart of packetsim and of
/// `packetsim plot` calls this first).
pub fn ensure_font() -> Result<(), String> {
    static DONE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        let p = font_file()?;
        let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("{}: not a TrueType/OpenType font", p.display()))
    })
    .clone()
}

/// At most `max` of the indices `0..y.len()` (x in order, bins of equal x width): per bin,
/// its lowest and highest point in x order, so a peak is never lost. A series with at most
/// `max` points keeps them all.
pub fn decimate_indices(x: &[f64], y: &[f64], max: usize) -> Vec<usize> {
    let n = x.len().min(y.len());
    if n <= max || max < 2 {
        return (0..n).collect();
    }
    let bins = max / 2;
    let (x0, x1) = (x[0], x[n - 1]);
    let width = (x1 - x0) / bins as f64;
    let mut out = Vec::with_capacity(max);
    let mut i = 0;
    for b in 0..bins {
        let end = if b + 1 == bins {
            n
        } else {
            let edge = x0 + width * (b + 1) as f64;
            i + x[i..n].partition_point(|v| *v < edge)
        };
        let ys = &y[i..end];
        let lo = (0..ys.len()).min_by(|a, b| ys[*a].total_cmp(&ys[*b]));
        let hi = (0..ys.len()).max_by(|a, b| ys[*a].total_cmp(&ys[*b]));
        if let (Some(lo), Some(hi)) = (lo, hi) {
            out.push(i + lo.min(hi));
            if lo != hi {
                out.push(i + lo.max(hi));
            }
        }
        i = end;
    }
    out
}

/// Points `(x, y)` (x in order) in `bins` bins of equal x width: per non-empty bin, (the
/// bin's middle, the mean, lowest and highest y).
pub fn bin(p: &[(f64, f64)], bins: usize) -> Vec<(f64, f64, f64, f64)> {
    let (Some(first), Some(last)) = (p.first(), p.last()) else {
        return Vec::new();
    };
    let bins = bins.max(1);
    let width = (last.0 - first.0) / bins as f64;
    let mut out = Vec::with_capacity(bins);
    let mut i = 0;
    for b in 0..bins {
        let end = if b + 1 == bins {
            p.len()
        } else {
            let edge = first.0 + width * (b + 1) as f64;
            i + p[i..].partition_point(|q| q.0 < edge)
        };
        let ys = p[i..end].iter().map(|q| q.1);
        if end > i {
            let (sum, lo, hi) = ys.fold((0.0, f64::INFINITY, f64::NEG_INFINITY), |a, y| {
                (a.0 + y, a.1.min(y), a.2.max(y))
            });
            let mid = first.0 + width * (b as f64 + 0.5);
            out.push((mid, sum / (end - i) as f64, lo, hi));
        }
        i = end;
    }
    out
}

/// A tick label: at most 6 decimals, no trailing zeros (`0`, `0.25`, `1910`).
fn tick(v: &f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// [`decimate_indices`] applied to points `(x, y)`.
pub fn decimate(p: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    let (x, y): (Vec<f64>, Vec<f64>) = p.iter().copied().unzip();
    decimate_indices(&x, &y, max)
        .into_iter()
        .map(|i| p[i])
        .collect()
}

/// The legend column's width for these entries: a sample and the longest text.
impl LineChart {
    /// The legend column: the note on binned curves, whether any curve is binned (then the
    /// column also holds the note) and the column's width.
    fn legend_layout(&self) -> (&'static str, bool, u32) {
        let note = "line = mean, band = min to max";
        let dense = self.curves.iter().any(|c| c.points.len() > BINS);
        let legend_w = legend_width(
            self.curves
                .iter()
                .map(|c| c.label.as_str())
                .chain(dense.then_some(note)),
        );
        (note, dense, legend_w)
    }
}

fn legend_width<'a>(entries: impl Iterator<Item = &'a str>) -> u32 {
    let chars = entries.map(|e| e.chars().count()).max().unwrap_or(0) as u32;
    (56 + CHAR_W * chars).max(90)
}

/// Whether a y axis over the data `[lo, hi]` leaves 0 out by default: the data are all on
/// one side of 0, the nearest at least a third of the way from 0 to the farthest, and their
/// span at least [`ZOOM_SPAN`] of the farthest.
fn zoom(lo: f64, hi: f64) -> bool {
    let far = hi.abs().max(lo.abs());
    let one_side = (lo > 0.0 && lo >= hi / 3.0) || (hi < 0.0 && hi <= lo / 3.0);
    one_side && (hi - lo) >= ZOOM_SPAN * far
}

/// The y range to draw for data in `[lo, hi]` under `axis` (`zoomed`: whether 0 is left out
/// when the data allow it), with 5% headroom, and whether 0 is off the axis.
fn y_range(lo: f64, hi: f64, axis: YAxis, zoomed: bool) -> (f64, f64, bool) {
    let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    let leave_zero_out = match axis {
        YAxis::FromZero => false,
        YAxis::Data => lo > 0.0 || hi < 0.0,
        YAxis::Auto => zoomed && zoom(lo, hi),
    };
    if !leave_zero_out {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if hi <= lo {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.05;
    let lo = if leave_zero_out || lo < 0.0 {
        lo - pad
    } else {
        lo
    };
    let hi = if hi > 0.0 || leave_zero_out {
        hi + pad
    } else {
        hi
    };
    // Padding must not carry a positive axis below 0 (or a negative one above it).
    let lo = if leave_zero_out && lo < 0.0 && hi > 0.0 {
        0.0
    } else {
        lo
    };
    (lo, hi, leave_zero_out && (lo > 0.0 || hi < 0.0))
}

/// An SVG saying why a figure could not be drawn (no font): the figure's file is still
/// written, and a reader of the page sees what to do.
fn not_drawn(title: &str, why: &str) -> String {
    // The note goes through minijinja's HTML auto-escaping (XML-safe), not an escape of our own.
    const NOTE: &str =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{{ width }}\" height=\"80\">\n\
         <text x=\"10\" y=\"30\" font-family=\"sans-serif\" font-size=\"15\">{{ title }}</text>\n\
         <text x=\"10\" y=\"56\" font-family=\"sans-serif\" font-size=\"12\">figure not drawn: \
         {{ why }}</text>\n</svg>\n";
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.set_keep_trailing_newline(true);
    env.render_str(NOTE, minijinja::context! { width => PLOT_W, title, why })
        .unwrap_or_else(|e| format!("<svg xmlns=\"http://www.w3.org/2000/svg\"/><!-- {e} -->\n"))
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn fail<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> String {
    format!("drawing: {e}")
}

/// The span `v ± e` of a whisker, cut at `floor`; a missing or non-positive `e` gives none.
fn whisker_span(v: f64, e: f64, floor: f64) -> (f64, f64) {
    let e = if e.is_finite() && e > 0.0 { e } else { 0.0 };
    ((v - e).max(floor), v + e)
}

/// Value `v` at x = `mid` as its series' marker over its whisker `(a, b)` (data coordinates),
/// the whisker left out when it has no length.
fn draw_point_whisker(
    plot: &Area,
    chart: &Chart,
    mid: f64,
    v: f64,
    (a, b): (f64, f64),
    style: SeriesStyle,
) -> Result<(), String> {
    if b > a {
        let (pa, pb) = (
            chart.backend_coord(&(mid, a)),
            chart.backend_coord(&(mid, b)),
        );
        let ink = RGBColor(34, 34, 34).stroke_width(1);
        for seg in [
            vec![pa, pb],
            vec![(pa.0 - 4, pa.1), (pa.0 + 4, pa.1)],
            vec![(pb.0 - 4, pb.1), (pb.0 + 4, pb.1)],
        ] {
            plot.draw(&PathElement::new(seg, ink)).map_err(fail)?;
        }
    }
    draw_marker(
        plot,
        chart.backend_coord(&(mid, v)),
        style.marker,
        style.colour,
    )
}

/// A marker of `shape` centred at backend pixel `c`.
fn draw_marker(area: &Area, c: (i32, i32), shape: Marker, colour: RGBColor) -> Result<(), String> {
    let fill = colour.filled();
    let line = colour.stroke_width(2);
    let r = 4;
    let res = match shape {
        Marker::Dot => area.draw(&Circle::new(c, r, fill)),
        Marker::Ring => area.draw(&Circle::new(c, r, line)),
        Marker::Square => area.draw(&Rectangle::new(
            [(c.0 - r, c.1 - r), (c.0 + r, c.1 + r)],
            fill,
        )),
        Marker::Box => area.draw(&Rectangle::new(
            [(c.0 - r, c.1 - r), (c.0 + r, c.1 + r)],
            line,
        )),
        Marker::Triangle => area.draw(&TriangleMarker::new(c, r + 1, fill)),
        Marker::Delta => area.draw(&Polygon::new(
            vec![
                (c.0, c.1 - r - 1),
                (c.0 + r + 1, c.1 + r),
                (c.0 - r - 1, c.1 + r),
            ],
            line,
        )),
        Marker::Cross => area.draw(&Cross::new(c, r, line)),
    };
    res.map_err(fail)
}

/// A dashed or solid path through backend pixels `p`.
fn draw_path(area: &Area, p: &[(i32, i32)], style: SeriesStyle, width: u32) -> Result<(), String> {
    let s = style.colour.stroke_width(width);
    match style.dash {
        None => area.draw(&PathElement::new(p.to_vec(), s)),
        Some((dash, gap)) => area.draw(&DashedPathElement::new(p.iter().copied(), dash, gap, s)),
    }
    .map_err(fail)
}

/// One legend entry (row `i`) in the legend column: a line sample with the marker, or a bar
/// swatch with the marker, and the text.
fn legend_entry(
    legend: &Area,
    i: usize,
    text: &str,
    style: SeriesStyle,
    bar: bool,
) -> Result<(), String> {
    let y = 44 + 22 * i as i32;
    if bar {
        legend
            .draw(&Rectangle::new(
                [(6, y - 6), (34, y + 6)],
                style.colour.mix(0.55).filled(),
            ))
            .map_err(fail)?;
    } else {
        draw_path(legend, &[(4, y), (38, y)], style, 2)?;
    }
    draw_marker(legend, (20, y), style.marker, style.colour)?;
    legend
        .draw(&Text::new(
            text.to_string(),
            (46, y),
            ("sans-serif", 16)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(fail)
}

/// The figure's areas: the plot on the left, the legend column on the right.
fn areas(s: &mut String, legend_w: u32) -> Result<(Area<'_>, Area<'_>), String> {
    areas_of_height(s, legend_w, HEIGHT)
}

/// [`areas`] in a figure `height` px high.
fn areas_of_height(
    s: &mut String,
    legend_w: u32,
    height: u32,
) -> Result<(Area<'_>, Area<'_>), String> {
    let root = SVGBackend::with_string(s, (PLOT_W + legend_w, height)).into_drawing_area();
    root.fill(&WHITE).map_err(fail)?;
    Ok(root.split_horizontally(PLOT_W))
}

/// The figure `draw` makes, or a note saying why there is none (no font installed).
fn svg_or_note(title: &str, draw: impl FnOnce() -> Result<String, String>) -> String {
    match ensure_font().and_then(|()| draw()) {
        Ok(s) => s,
        Err(e) => not_drawn(title, &e),
    }
}

/// The lowest value a band or whisker may reach: 0 for a quantity that cannot be negative.
fn floor(non_negative: bool) -> f64 {
    if non_negative {
        0.0
    } else {
        f64::NEG_INFINITY
    }
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// What [`chart`] writes around a plot.
struct Frame<'s> {
    /// The caption and its font size.
    caption: (&'s str, u32),
    /// The x axis: `None` for a bar chart (no ticks or vertical grid: the caller writes the
    /// categories below the plot), else its label (`""`: ticks only).
    x_desc: Option<&'s str>,
    /// The y axis label.
    y_desc: &'s str,
    /// Height of the area below the plot, px.
    x_area: u32,
}

/// The chart of `plot` over `x` × `y`: caption, axes, horizontal grid and tick labels.
fn chart<'a, 'b>(
    plot: &'a Area<'b>,
    (x, y): (std::ops::Range<f64>, std::ops::Range<f64>),
    f: &Frame,
) -> Result<Chart<'a, 'b>, String> {
    let (x_desc, y_desc, x_area) = (f.x_desc, f.y_desc, f.x_area);
    let mut chart = ChartBuilder::on(plot)
        .caption(f.caption.0, ("sans-serif", f.caption.1))
        .margin(12)
        .x_label_area_size(x_area)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)
        .map_err(fail)?;
    let mut mesh = chart.configure_mesh();
    mesh.y_desc(y_desc)
        .y_labels(7)
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 15));
    match x_desc {
        Some(d) => mesh.x_desc(d).x_labels(9),
        None => mesh.disable_x_mesh().x_labels(0),
    };
    mesh.draw().map_err(fail)?;
    Ok(chart)
}

/// Curve `c` (series `i`'s style) on `chart`, drawn on `plot`: its band, its line and its
/// markers; binned when it has more than [`BINS`] points. Returns the bin width if binned.
fn draw_curve(
    plot: &Area,
    chart: &mut Chart,
    c: &Curve,
    i: usize,
    non_negative: bool,
) -> Result<Option<f64>, String> {
    let floor = floor(non_negative);
    let band = |lo: f64, hi: f64| (lo.max(floor), hi.max(floor));
    let mut binned = None;
    let style = SeriesStyle::of(i);
    let pts: Vec<_> = c
        .points
        .iter()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .copied()
        .collect();
    let kept: Vec<_> = if pts.len() > BINS {
        let xy: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
        binned = Some((xy[xy.len() - 1].0 - xy[0].0) / BINS as f64);
        bin(&xy, BINS)
    } else {
        pts
    };
    let banded: Vec<(f64, f64)> = kept
        .iter()
        .filter(|p| p.2.is_finite() && p.3.is_finite())
        .map(|p| (p.0, band(p.2, p.3)))
        .map(|(x, (lo, _))| (x, lo))
        .collect();
    if banded.len() >= 2 && kept.iter().any(|p| p.3 > p.2) {
        let top = kept
            .iter()
            .rev()
            .filter(|p| p.2.is_finite() && p.3.is_finite())
            .map(|p| (p.0, band(p.2, p.3).1));
        let poly: Vec<(f64, f64)> = banded.iter().copied().chain(top).collect();
        chart
            .draw_series(std::iter::once(Polygon::new(
                poly,
                style.colour.mix(0.15).filled(),
            )))
            .map_err(fail)?;
    }
    let px: Vec<(i32, i32)> = kept
        .iter()
        .map(|p| chart.backend_coord(&(p.0, p.1)))
        .collect();
    draw_path(plot, &px, style, 2)?;
    // A marker on every point of a sparse curve, on about 12 of a dense one.
    let every = if px.len() <= MARKERS_UP_TO {
        1
    } else {
        px.len().div_ceil(12)
    };
    for (k, &c) in px.iter().enumerate() {
        if k % every == (i * 3) % every {
            draw_marker(plot, c, style.marker, style.colour)?;
        }
    }
    Ok(binned)
}

/// The legend column's note on binned curves (`w`: the widest bin), below `n` entries.
fn binned_note(legend: &Area, n: usize, w: f64, note: &str) -> Result<(), String> {
    let y = 44 + 22 * n as i32 + 10;
    for (k, note) in [
        format!("binned: {} of x per bin;", tick(&((w * 1e4).round() / 1e4))),
        note.to_string(),
    ]
    .into_iter()
    .enumerate()
    {
        legend
            .draw(&Text::new(
                note,
                (4, y + 20 * k as i32),
                ("sans-serif", 15)
                    .into_font()
                    .color(&RGBColor(85, 85, 85))
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(fail)?;
    }
    Ok(())
}

impl LineChart {
    /// The chart as an SVG document (a note instead of the chart when no font is installed).
    pub fn to_svg(&self) -> String {
        svg_or_note(&self.title, || self.draw())
    }

    /// The chart as `panels`, one above the other, on the same x axis, each on its own y
    /// axis over its curves (chosen as [`to_svg`](Self::to_svg) chooses it, from 0 unless
    /// leaving 0 out does not exaggerate, and then saying so), one legend for every curve.
    /// For curves on very different scales: a few far above the rest would flatten the
    /// others' differences on one axis.
    pub fn to_svg_in_panels(&self, panels: &[Panel]) -> String {
        svg_or_note(&self.title, || self.draw_panels(panels))
    }

    /// The x range of every curve and the y range (bands included) of `curves`.
    fn ranges(&self, curves: &[usize]) -> ((f64, f64), (f64, f64)) {
        let floor = floor(self.non_negative);
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for (i, c) in self.curves.iter().enumerate() {
            let spans_y = curves.contains(&i);
            for &(x, y, lo, hi) in &c.points {
                if x.is_finite() {
                    x0 = x0.min(x);
                    x1 = x1.max(x);
                }
                if spans_y {
                    for v in [y, lo.max(floor), hi.max(floor)] {
                        if v.is_finite() {
                            y0 = y0.min(v);
                            y1 = y1.max(v);
                        }
                    }
                }
            }
        }
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        ((x0, x1), (y0, y1))
    }

    fn draw_panels(&self, panels: &[Panel]) -> Result<String, String> {
        if let Some(bad) = panels
            .iter()
            .flat_map(|p| &p.curves)
            .find(|&&i| i >= self.curves.len())
        {
            return Err(format!(
                "panel curve {bad} of a chart with {} curves",
                self.curves.len()
            ));
        }
        let n = panels.len().max(1);
        let (note, _, legend_w) = self.legend_layout();
        let height = HEIGHT.max(60 + PANEL_H * n as u32);
        let mut s = String::new();
        {
            let (plot, legend) = areas_of_height(&mut s, legend_w, height)?;
            let areas = plot
                .titled(&self.title, ("sans-serif", 20))
                .map_err(fail)?
                .split_evenly((n, 1));
            let mut binned: Option<f64> = None;
            for (k, (area, p)) in areas.iter().zip(panels).enumerate() {
                let ((x0, x1), (lo, hi)) = self.ranges(&p.curves);
                let (y0, y1, off_zero) = y_range(lo, hi, YAxis::Auto, true);
                let y_label = if off_zero {
                    format!("{}{NOT_FROM_ZERO}", self.y_label)
                } else {
                    self.y_label.clone()
                };
                let last = k + 1 == n;
                let frame = Frame {
                    caption: (&p.caption, 15),
                    x_desc: Some(if last { &self.x_label } else { "" }),
                    y_desc: &y_label,
                    x_area: if last { 46 } else { 22 },
                };
                let mut chart = chart(area, (x0..x1, y0..y1), &frame)?;
                for &i in &p.curves {
                    let c = &self.curves[i];
                    if let Some(w) = draw_curve(&plot, &mut chart, c, i, self.non_negative)? {
                        binned = Some(binned.unwrap_or(0.0).max(w));
                    }
                }
            }
            for (i, c) in self.curves.iter().enumerate() {
                legend_entry(&legend, i, &c.label, SeriesStyle::of(i), false)?;
            }
            if let Some(w) = binned {
                binned_note(&legend, self.curves.len(), w, note)?;
            }
            plot.present().map_err(fail)?;
        }
        Ok(s)
    }

    fn draw(&self) -> Result<String, String> {
        let all: Vec<usize> = (0..self.curves.len()).collect();
        let ((x0, x1), (y0, y1)) = self.ranges(&all);
        let (y0, y1, off_zero) = y_range(y0, y1, YAxis::Auto, true);
        let y_label = if off_zero {
            format!("{}{NOT_FROM_ZERO}", self.y_label)
        } else {
            self.y_label.clone()
        };
        let (note, dense, legend_w) = self.legend_layout();
        let mut s = String::new();
        {
            let (plot, legend) = areas(&mut s, legend_w)?;
            // Dense curves that would cross each other get a panel each, one above the other,
            // on the same axes (small multiples); otherwise all share one plot.
            let panels = dense && self.curves.len() > 1;
            let panel_areas = if panels {
                plot.titled(&self.title, ("sans-serif", 20))
                    .map_err(fail)?
                    .split_evenly((self.curves.len(), 1))
            } else {
                Vec::new()
            };
            let mut charts = Vec::new();
            if panels {
                let n = self.curves.len();
                for (k, (area, c)) in panel_areas.iter().zip(&self.curves).enumerate() {
                    let last = k + 1 == n;
                    let frame = Frame {
                        caption: (&c.label, 15),
                        x_desc: Some(if last { &self.x_label } else { "" }),
                        y_desc: &y_label,
                        x_area: if last { 46 } else { 22 },
                    };
                    charts.push(chart(area, (x0..x1, y0..y1), &frame)?);
                }
            } else {
                let frame = Frame {
                    caption: (&self.title, 20),
                    x_desc: Some(&self.x_label),
                    y_desc: &y_label,
                    x_area: 46,
                };
                charts.push(chart(&plot, (x0..x1, y0..y1), &frame)?);
            }
            // The widest bin of a binned curve, if any (for the legend's note).
            let mut binned: Option<f64> = None;
            for (i, c) in self.curves.iter().enumerate() {
                let chart = &mut charts[if panels { i } else { 0 }];
                if let Some(w) = draw_curve(&plot, chart, c, i, self.non_negative)? {
                    binned = Some(binned.unwrap_or(0.0).max(w));
                }
                legend_entry(&legend, i, &c.label, SeriesStyle::of(i), false)?;
            }
            if let Some(w) = binned {
                binned_note(&legend, self.curves.len(), w, note)?;
            }
            plot.present().map_err(fail)?;
        }
        Ok(s)
    }
}

impl BarChart {
    /// The chart as an SVG document (a note instead of the chart when no font is installed).
    pub fn to_svg(&self) -> String {
        svg_or_note(&self.title, || self.draw())
    }

    fn draw(&self) -> Result<String, String> {
        let floor = floor(self.non_negative);
        let whisker = |v: f64, e: f64| whisker_span(v, e, floor);
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &(v, e) in self.series.iter().flat_map(|s| s.1.iter()) {
            if v.is_finite() {
                let (a, b) = whisker(v, e);
                lo = lo.min(a);
                hi = hi.max(b);
            }
        }
        if let Some((r, _)) = &self.reference {
            lo = lo.min(*r);
            hi = hi.max(*r);
        }
        let points = self.y_axis == YAxis::Data;
        let (y0, y1, off_zero) = y_range(lo, hi, self.y_axis, false);
        let y_label = if off_zero {
            format!("{}{NOT_FROM_ZERO}", self.y_label)
        } else {
            self.y_label.clone()
        };
        let entries = self
            .series
            .iter()
            .map(|s| s.0.as_str())
            .chain(self.reference.iter().map(|r| r.1.as_str()));
        let legend_w = legend_width(entries);
        let n_cat = self.categories.len().max(1);
        let n_ser = self.series.len().max(1) as f64;
        let group_w = PLOT_W as f64 / n_cat as f64;
        // Category labels turned when the longest would run into its neighbours.
        let widest = self.categories.iter().map(|c| c.chars().count()).max();
        let turn = widest.is_some_and(|n| (CHAR_W as usize * n) as f64 > group_w * 0.85);
        let label_area = if turn {
            24 + CHAR_W * widest.unwrap_or(0) as u32
        } else {
            34
        };
        let mut s = String::new();
        {
            let (plot, legend) = areas(&mut s, legend_w)?;
            let frame = Frame {
                caption: (&self.title, 20),
                x_desc: None,
                y_desc: &y_label,
                x_area: label_area,
            };
            let mut chart = chart(&plot, (0.0..n_cat as f64, y0..y1), &frame)?;
            let width = 0.8 / n_ser;
            for (si, (name, vals)) in self.series.iter().enumerate() {
                let style = SeriesStyle::of(si);
                for (ci, &(v, e)) in vals.iter().enumerate() {
                    if !v.is_finite() {
                        continue;
                    }
                    let left = ci as f64 + 0.1 + width * si as f64;
                    let mid = left + width * 0.46;
                    if !points {
                        let base = y0.max(0.0).min(y1);
                        chart
                            .draw_series(std::iter::once(Rectangle::new(
                                [(left, base), (left + width * 0.92, v)],
                                style.colour.mix(0.55).filled(),
                            )))
                            .map_err(fail)?;
                        chart
                            .draw_series(std::iter::once(Rectangle::new(
                                [(left, base), (left + width * 0.92, v)],
                                style.colour.stroke_width(1),
                            )))
                            .map_err(fail)?;
                    }
                    draw_point_whisker(&plot, &chart, mid, v, whisker(v, e), style)?;
                }
                legend_entry(&legend, si, name, style, !points)?;
            }
            if let Some((r, label)) = &self.reference {
                let grey = SeriesStyle {
                    colour: RGBColor(85, 85, 85),
                    dash: Some((6, 4)),
                    marker: Marker::Cross,
                };
                let (a, b) = (
                    chart.backend_coord(&(0.0, *r)),
                    chart.backend_coord(&(n_cat as f64, *r)),
                );
                draw_path(&plot, &[a, b], grey, 1)?;
                let y = 44 + 22 * self.series.len() as i32;
                draw_path(&legend, &[(4, y), (38, y)], grey, 1)?;
                legend
                    .draw(&Text::new(
                        label.clone(),
                        (46, y),
                        ("sans-serif", 16)
                            .into_font()
                            .color(&RGBColor(85, 85, 85))
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    ))
                    .map_err(fail)?;
            }
            for (ci, c) in self.categories.iter().enumerate() {
                let (x, y) = chart.backend_coord(&(ci as f64 + 0.5, y0));
                let font = ("sans-serif", 15).into_font().color(&BLACK);
                let text = if turn {
                    Text::new(
                        c.clone(),
                        (x, y + 8),
                        font.transform(FontTransform::Rotate270)
                            .pos(Pos::new(HPos::Right, VPos::Center)),
                    )
                } else {
                    Text::new(
                        c.clone(),
                        (x, y + 8),
                        font.pos(Pos::new(HPos::Center, VPos::Top)),
                    )
                };
                plot.draw(&text).map_err(fail)?;
            }
            plot.present().map_err(fail)?;
        }
        Ok(s)
    }
}

/// A panel per category: what [`BarChart::to_svg_by_category`] draws in one of them.
struct CategoryPanel<'c> {
    /// The category (the panel's caption).
    name: &'c str,
    /// Per series, its (value, error half-width) in this category.
    values: Vec<Option<(f64, f64)>>,
}

impl BarChart {
    /// The chart with a panel per category, side by side, each on its own y axis over that
    /// category's values only (points with whiskers, as [`YAxis::Data`]; each axis label says
    /// when 0 is off it): for categories on different levels (DiffServ's AF near 680 kb/s
    /// and BE near 500), where one shared axis would flatten differences of a few units
    /// within each. One legend column for all panels; `y_axis` is not used.
    pub fn to_svg_by_category(&self) -> String {
        svg_or_note(&self.title, || self.draw_by_category())
    }

    fn draw_by_category(&self) -> Result<String, String> {
        let floor = floor(self.non_negative);
        let whisker = |v: f64, e: f64| whisker_span(v, e, floor);
        let panels: Vec<CategoryPanel> = self
            .categories
            .iter()
            .enumerate()
            .map(|(ci, name)| CategoryPanel {
                name,
                values: self
                    .series
                    .iter()
                    .map(|s| s.1.get(ci).copied().filter(|v| v.0.is_finite()))
                    .collect(),
            })
            .collect();
        let legend_w = legend_width(self.series.iter().map(|s| s.0.as_str()));
        let n_ser = self.series.len().max(1) as f64;
        let mut s = String::new();
        {
            let (plot, legend) = areas(&mut s, legend_w)?;
            let areas = plot
                .titled(&self.title, ("sans-serif", 20))
                .map_err(fail)?
                .split_evenly((1, panels.len().max(1)));
            for (area, panel) in areas.iter().zip(&panels) {
                let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                for &(v, e) in panel.values.iter().flatten() {
                    let (a, b) = whisker(v, e);
                    lo = lo.min(a);
                    hi = hi.max(b);
                }
                let (y0, y1, off_zero) = y_range(lo, hi, YAxis::Data, false);
                let y_label = if off_zero {
                    format!("{}{NOT_FROM_ZERO}", self.y_label)
                } else {
                    self.y_label.clone()
                };
                let frame = Frame {
                    caption: (panel.name, 17),
                    x_desc: None,
                    y_desc: &y_label,
                    x_area: 12,
                };
                let chart = chart(area, (0.0..n_ser, y0..y1), &frame)?;
                for (si, value) in panel.values.iter().enumerate() {
                    let Some((v, e)) = *value else { continue };
                    let style = SeriesStyle::of(si);
                    let mid = si as f64 + 0.5;
                    draw_point_whisker(&plot, &chart, mid, v, whisker(v, e), style)?;
                }
            }
            for (si, (name, _)) in self.series.iter().enumerate() {
                legend_entry(&legend, si, name, SeriesStyle::of(si), false)?;
            }
            plot.present().map_err(fail)?;
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests;
