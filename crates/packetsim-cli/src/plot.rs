//! `packetsim plot DIR`: figures of one run from the time series it wrote (`timeseries_*.csv`,
//! docs/outputs.md), as SVG and PNG with the `plotters` crate. Text is laid out and drawn with
//! a TrueType font read at run time (`PACKETSIM_FONT`, else a usual system font).

use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A named line: (series name, points in time order).
pub type Line = (String, Vec<(f64, f64)>);

/// One figure: named lines over a shared x axis.
pub struct Figure {
    /// File stem (`cwnd` gives cwnd.svg / cwnd.png).
    pub stem: &'static str,
    /// Title drawn above the plot.
    pub title: &'static str,
    /// x axis label.
    pub x_label: &'static str,
    /// y axis label.
    pub y_label: &'static str,
    /// (series name, points in time order).
    pub series: Vec<Line>,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// SVG only.
    Svg,
    /// PNG only.
    Png,
    /// Both.
    Both,
}

/// Largest magnitude a figure draws: far above any quantity a run writes (rates up to 10^13
/// bit/s, byte counts up to 2^50, times up to 10^7 s), far below where axis arithmetic
/// overflows (issue 38: a series of 1e308 hung `plot` and `report`).
pub const MAX_PLOT_MAGNITUDE: f64 = 1e15;

/// A CSV field as a number a figure can draw: finite and at most [`MAX_PLOT_MAGNITUDE`] in
/// magnitude (issue 38: `inf` in results.csv made `plot` spin). The error says what was
/// expected and shows at most a short excerpt of the field.
pub fn plot_number(v: &str) -> Result<f64, String> {
    let shown = if v.chars().count() <= packetsim::scenario::files::EXCERPT_CHARS {
        format!("`{}`", v.escape_debug())
    } else {
        packetsim::scenario::files::excerpt(v)
    };
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x.abs() <= MAX_PLOT_MAGNITUDE => Ok(x),
        Ok(_) => Err(format!(
            "expected a finite number of magnitude at most {MAX_PLOT_MAGNITUDE:e}, found {shown}"
        )),
        Err(_) => Err(format!("expected a number, found {shown}")),
    }
}

/// A `csv` crate error as a message naming the file and, when known, the line.
pub(crate) fn csv_error(path: &Path, e: csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Io(io) => format!("{}: {io}", path.display()),
        _ => {
            let line = e
                .position()
                .map_or(String::new(), |p| format!(":{}", p.line()));
            format!("{}{line}: {e}", path.display())
        }
    }
}

/// `path` opened with the `csv` crate (rows may differ in length: callers check) and its
/// header; an empty file is an error naming it.
pub(crate) fn open_csv(path: &Path) -> Result<(Vec<String>, csv::Reader<std::fs::File>), String> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| csv_error(path, e))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| csv_error(path, e))?
        .iter()
        .map(str::to_owned)
        .collect();
    if header.iter().all(String::is_empty) {
        return Err(format!(
            "{}:1: empty file, expected a CSV header",
            path.display()
        ));
    }
    Ok((header, reader))
}

/// A CSV file read as text rows, with the located errors of its values.
struct Table {
    path: PathBuf,
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
}

impl Table {
    /// Reads `path` with the `csv` crate (quoted fields may hold commas); a row whose field
    /// count differs from the header's is an error naming its line.
    fn read(path: &Path) -> Result<Table, String> {
        let (header, mut reader) = open_csv(path)?;
        let at = |e| csv_error(path, e);
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(at)?;
            let line = record.position().map_or(0, |p| p.line() as usize);
            let f: Vec<String> = record.iter().map(str::to_owned).collect();
            if f.len() != header.len() {
                return Err(format!(
                    "{}:{line}: expected {} fields ({}), found {}",
                    path.display(),
                    header.len(),
                    header.join(","),
                    f.len()
                ));
            }
            rows.push((line, f));
        }
        Ok(Table {
            path: path.to_owned(),
            header,
            rows,
        })
    }

    fn col(&self, name: &str) -> Result<usize, String> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            format!(
                "{}:1: expected a column `{name}` in the header `{}`",
                self.path.display(),
                self.header.join(",")
            )
        })
    }

    /// The value of column `c` in row `r` as a number; `None` for an empty field when
    /// `optional`.
    fn num(
        &self,
        r: &(usize, Vec<String>),
        c: usize,
        optional: bool,
    ) -> Result<Option<f64>, String> {
        let v = &r.1[c];
        if v.is_empty() && optional {
            return Ok(None);
        }
        plot_number(v).map(Some).map_err(|e| {
            format!(
                "{}:{}: column `{}`: {e}",
                self.path.display(),
                r.0,
                self.header[c]
            )
        })
    }

    /// Lines of `y` (scaled by `scale`) over `time_s`, one per distinct `key` column value
    /// (in first-seen order), skipping empty `y` fields.
    fn lines(&self, key: &[&str], y: &str, scale: f64) -> Result<Vec<Line>, String> {
        let t = self.col("time_s")?;
        let keys: Vec<usize> = key.iter().map(|k| self.col(k)).collect::<Result<_, _>>()?;
        let yc = self.col(y)?;
        let mut order: Vec<String> = Vec::new();
        let mut by: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for r in &self.rows {
            let x = self.num(r, t, false)?.unwrap_or(0.0);
            let Some(v) = self.num(r, yc, true)? else {
                continue;
            };
            let name = keys
                .iter()
                .map(|&k| r.1[k].as_str())
                .collect::<Vec<_>>()
                .join(" dest ");
            if !by.contains_key(&name) {
                order.push(name.clone());
            }
            by.entry(name).or_default().push((x, v * scale));
        }
        Ok(order
            .into_iter()
            .map(|n| {
                let p = by.remove(&n).unwrap_or_default();
                (n, p)
            })
            .collect())
    }
}

/// The figures of the run whose outputs are in `dir`: congestion window, smoothed RTT,
/// delivery rate, queue length (each when its series exists).
pub fn figures(dir: &Path) -> Result<Vec<Figure>, String> {
    if !dir.is_dir() {
        return Err(format!(
            "{}: not a folder (expected the --out folder of `packetsim run`)",
            dir.display()
        ));
    }
    let read = |name: &str| -> Result<Option<Table>, String> {
        let p = dir.join(name);
        if p.exists() {
            Table::read(&p).map(Some)
        } else {
            Ok(None)
        }
    };
    let flows = read("timeseries_flows.csv")?;
    let paths = read("timeseries_sctp_paths.csv")?;
    let delivered = read("timeseries_delivered.csv")?;
    let queues = read("timeseries_queues.csv")?;
    if flows.is_none() && queues.is_none() && delivered.is_none() {
        return Err(format!(
            "{}: no timeseries_*.csv: run the scenario with simulation.sample_interval set \
             (e.g. --set simulation.sample_interval=\"100ms\")",
            dir.display()
        ));
    }
    let mut figs = Vec::new();
    let both = |key_f: &str, key_p: &str, scale: f64| -> Result<Vec<Line>, String> {
        let mut v = Vec::new();
        if let Some(t) = &flows {
            v.extend(t.lines(&["flow"], key_f, scale)?);
        }
        if let Some(t) = &paths {
            v.extend(t.lines(&["flow", "destination"], key_p, scale)?);
        }
        Ok(v)
    };
    let cwnd = both("cwnd_bytes", "cwnd_bytes", 1e-3)?;
    if !cwnd.is_empty() {
        figs.push(Figure {
            stem: "cwnd",
            title: "Congestion window",
            x_label: "time (s)",
            y_label: "cwnd (kB)",
            series: cwnd,
        });
    }
    let srtt = both("srtt_s", "srtt_s", 1e3)?;
    if !srtt.is_empty() {
        figs.push(Figure {
            stem: "srtt",
            title: "Smoothed round-trip time",
            x_label: "time (s)",
            y_label: "srtt (ms)",
            series: srtt,
        });
    }
    if let Some(t) = &delivered {
        figs.push(Figure {
            stem: "rate",
            title: "Delivery rate",
            x_label: "time (s)",
            y_label: "rate (Mb/s)",
            series: t.lines(&["flow"], "rate_bps", 1e-6)?,
        });
    }
    if let Some(t) = &queues {
        let all = t.lines(&["queue"], "len_pkts", 1.0)?;
        // Queues that never held a packet add only a line at 0.
        let busy: Vec<_> = all
            .iter()
            .filter(|(_, p)| p.iter().any(|&(_, y)| y > 0.0))
            .cloned()
            .collect();
        figs.push(Figure {
            stem: "queue",
            title: "Queue length (queues that held a packet)",
            x_label: "time (s)",
            y_label: "packets waiting",
            series: if busy.is_empty() { all } else { busy },
        });
    }
    Ok(figs)
}

// The font (`PACKETSIM_FONT`, else a usual system font) and the thinning of long series are
// the study figures' (packetsim::report::chart): one charting setup for every figure.
pub use packetsim::report::chart::{decimate, ensure_font};

const SIZE: (u32, u32) = (1000, 520);
/// Width of the legend column right of the plot (the legend never covers data).
const LEGEND_W: u32 = 190;
/// Most points drawn per series: about two per pixel column of the plot. Longer series are
/// thinned by [`decimate`], which keeps each column's extremes, so a peak is never lost and
/// 100 s of per-packet samples do not overplot into a solid block.
const MAX_POINTS: usize = 2 * (SIZE.0 - LEGEND_W) as usize;

/// The dash pattern of series `i` (dash length, gap; `None` = solid), so that series are told
/// apart by line style as well as colour (colour alone fails in greyscale and for colour-blind
/// readers, and the palette repeats).
fn dash(i: usize) -> Option<(u32, u32)> {
    [None, Some((10, 5)), Some((3, 4)), Some((18, 6))][i % 4]
}

fn draw<DB: DrawingBackend>(
    fig: &Figure,
    root: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("drawing {}: {e}", fig.stem);
    root.fill(&WHITE).map_err(err)?;
    let (root, legend) = root.split_horizontally(SIZE.0 - LEGEND_W);
    let pts = fig.series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    // The y axis spans the data (from 0 when the data come near it), with a margin, so that
    // differences are not flattened against an axis at 0; an axis that does not start at 0
    // says so in its label.
    if y0 >= 0.0 && y0 < 0.25 * y1 {
        y0 = 0.0;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-9);
    let (y0, y1) = (if y0 == 0.0 { 0.0 } else { y0 - pad }, y1 + pad);
    let y_desc = if y0 > 0.0 {
        format!("{} (axis does not start at 0)", fig.y_label)
    } else {
        fig.y_label.to_owned()
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(fig.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(fig.x_label)
        .y_desc(y_desc)
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(err)?;
    for (i, (name, p)) in fig.series.iter().enumerate() {
        let c = Palette99::pick(i).to_rgba();
        let p = decimate(p, MAX_POINTS);
        match dash(i) {
            None => {
                chart
                    .draw_series(LineSeries::new(p.iter().copied(), c.stroke_width(2)))
                    .map_err(err)?;
            }
            Some((len, gap)) => {
                chart
                    .draw_series(DashedLineSeries::new(
                        p.iter().copied(),
                        len,
                        gap,
                        c.stroke_width(2),
                    ))
                    .map_err(err)?;
            }
        }
        let y = 40 + 22 * i as i32;
        let sample = match dash(i) {
            None => vec![(4, y), (30, y)],
            Some((len, gap)) => {
                let (len, gap) = (len.min(12) as i32, gap as i32);
                vec![
                    (4, y),
                    (4 + len, y),
                    (4 + len + gap, y),
                    (4 + 2 * len + gap, y),
                ]
            }
        };
        for seg in sample.chunks(2) {
            legend
                .draw(&PathElement::new(seg.to_vec(), c.stroke_width(2)))
                .map_err(err)?;
        }
        legend
            .draw(&Text::new(name.as_str(), (36, y - 7), ("sans-serif", 13)))
            .map_err(err)?;
    }
    legend
        .draw(&Text::new("series:", (4, 14), ("sans-serif", 13)))
        .map_err(err)?;
    root.present().map_err(err)?;
    legend.present().map_err(err)?;
    Ok(())
}

/// `fig` as SVG text (for pages that inline their figures).
pub fn svg_string(fig: &Figure) -> Result<String, String> {
    ensure_font()?;
    let mut s = String::new();
    draw(
        fig,
        SVGBackend::with_string(&mut s, SIZE).into_drawing_area(),
    )?;
    Ok(s)
}

/// Writes every figure of `dir` into `out` in `format`; returns the files written.
pub fn plot(dir: &Path, out: &Path, format: Format) -> Result<Vec<PathBuf>, String> {
    let figs = figures(dir)?;
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

    /// Issue 37 item 6: a long series is thinned to each bin's extremes, in x order, so the
    /// figure keeps every peak and trough without overplotting.
    #[test]
    fn decimate_keeps_each_bins_extremes_in_order() {
        let p: Vec<(f64, f64)> = (0..8)
            .map(|i| (i as f64, [1.0, 5.0, 2.0, 0.0, 3.0, 3.0, 9.0, 4.0][i]))
            .collect();
        // 4 points allowed: 2 bins over x in [0, 7): [0, 3.5) and [3.5, 7].
        assert_eq!(
            decimate(&p, 4),
            vec![(1.0, 5.0), (3.0, 0.0), (4.0, 3.0), (6.0, 9.0)]
        );
        // Short series are untouched.
        assert_eq!(decimate(&p, 8), p);
    }

    /// Series are told apart by dash pattern as well as colour, and the legend sits in its own
    /// column right of the plot area.
    #[test]
    fn series_differ_in_line_style_and_the_legend_is_beside_the_plot() {
        assert_eq!(dash(0), None);
        assert!((1..4).all(|i| dash(i).is_some() && dash(i) != dash(i - 1)));
        if ensure_font().is_err() {
            eprintln!("SKIPPED the drawing half: no TrueType font");
            return;
        }
        let fig = Figure {
            stem: "t",
            title: "t",
            x_label: "time (s)",
            y_label: "cwnd",
            series: vec![
                ("flow-a".into(), vec![(0.0, 1.0), (1.0, 2.0)]),
                ("flow-b".into(), vec![(0.0, 2.0), (1.0, 1.0)]),
            ],
        };
        let svg = svg_string(&fig).unwrap();
        for name in ["flow-a", "flow-b"] {
            let at = svg.find(&format!(">\n{name}\n<")).expect(name);
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            let x: f64 = tag
                .split("x=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(
                x >= f64::from(SIZE.0 - LEGEND_W),
                "{name} at x = {x}: over the plot"
            );
        }
    }
}
