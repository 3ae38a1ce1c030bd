//! Aggregation of stored runs into per-point statistics, and the two CSV files.
//!
//! Determinism: each point's replications are pushed into a kernel [`RunningStats`] in
//! replication order, whatever order they finished in and however many threads ran them, so
//! the same stored runs always give bit-identical numbers.
//!
//! Statistics of one metric at one point, over the runs that have a value for it:
//! - `n` runs with a value, `missing` runs without one (value `None`, or the metric absent
//!   from that run); missing values are counted, never averaged.
//! - `mean`, `std_dev` (sample, n − 1), `ci95_low/high` = mean ∓ t95(n − 1)·s/√n (Student t),
//!   `median` (mean of the two middle values for even n), `min`, `max`.
//! - Undefined statistics are NaN: all of them when n = 0; `std_dev` and the CI when n = 1
//!   (one run says nothing about spread, and a zero-width interval would mislead).
//!
//! CSV (RFC 4180 quoting when a field holds `,`, `"` or a line break):
//! - `results.csv`: one column per parameter path (header = the path), then
//!   `metric,n,missing,mean,std_dev,ci95_low,ci95_high,median,min,max`; rows by point index,
//!   then metric in first-seen order over the whole sweep (points by index, runs by
//!   replication, metrics in the runner's order). Every point lists every metric.
//! - `runs.csv`: parameter columns, then `replication,seed,metric,value`; one row per
//!   (point, replication, metric), ordered by point index, replication, the runner's order.
//! - Both files end with one SI column per parameter with units, named `PATH_s`, `PATH_bps`
//!   or `PATH_bytes`: the parameter's value in seconds, bit/s or bytes
//!   ([`crate::units::si_value`]; `"20ms"` → `0.02`). A parameter has units when every one of
//!   its values is a number or a quantity, at least one is written with a unit, and all units
//!   are of one kind; plain numbers (`1500` bytes) are taken as they are.
//! - Floats are Rust's `{:?}` format: the shortest decimal that parses back to the same
//!   `f64` (round-trip exact), e.g. `5.5`, `3.0`, `0.1`, `1e-7`, `1.5e16`. Undefined values
//!   (NaN) and missing values are empty fields.
//!
//! A parameter path equal to one of the fixed column names would give a repeated header; such
//! paths are not scenario paths, so this is not checked.

use std::io::Write as _;
use std::path::Path;

use packetsim_kernel::stats::{t95, RunningStats};

use super::grid::{GridPoint, Param};
use super::store::StoredRun;
use super::ExperimentError;
use crate::units::{si_value, SiUnit};

/// Statistics of one metric at one grid point.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricSummary {
    /// Metric name as the runner gave it (units in the name, e.g. `goodput_bps`).
    pub name: String,
    /// Runs with a value.
    pub n: u64,
    /// Runs without a value.
    pub missing: u64,
    /// Sample mean (NaN when n = 0).
    pub mean: f64,
    /// Sample standard deviation, n − 1 denominator (NaN when n < 2).
    pub std_dev: f64,
    /// Lower bound of the 95% Student-t confidence interval of the mean (NaN when n < 2).
    pub ci95_low: f64,
    /// Upper bound of the 95% Student-t confidence interval of the mean (NaN when n < 2).
    pub ci95_high: f64,
    /// Median (NaN when n = 0).
    pub median: f64,
    /// Smallest value (NaN when n = 0).
    pub min: f64,
    /// Largest value (NaN when n = 0).
    pub max: f64,
}

impl MetricSummary {
    /// Summarizes one metric's values, given in replication order (`None` = missing).
    pub fn from_values(name: &str, values: &[Option<f64>]) -> MetricSummary {
        let mut stats = RunningStats::default();
        let mut present: Vec<f64> = Vec::with_capacity(values.len());
        for v in values.iter().flatten() {
            stats.push(*v);
            present.push(*v);
        }
        let n = stats.count();
        let missing = values.len() as u64 - n;
        let nan = f64::NAN;
        if n == 0 {
            return MetricSummary {
                name: name.to_string(),
                n,
                missing,
                mean: nan,
                std_dev: nan,
                ci95_low: nan,
                ci95_high: nan,
                median: nan,
                min: nan,
                max: nan,
            };
        }
        present.sort_by(f64::total_cmp);
        let mid = present.len() / 2;
        let median = if present.len() % 2 == 1 {
            present[mid]
        } else {
            (present[mid - 1] + present[mid]) / 2.0
        };
        let mean = stats.mean();
        let (std_dev, half) = if n < 2 {
            (nan, nan)
        } else {
            let s = stats.std_dev();
            (s, t95(n - 1) * s / (n as f64).sqrt())
        };
        MetricSummary {
            name: name.to_string(),
            n,
            missing,
            mean,
            std_dev,
            ci95_low: mean - half,
            ci95_high: mean + half,
            median,
            min: stats.min(),
            max: stats.max(),
        }
    }
}

/// The statistics of every metric at one grid point.
#[derive(Clone, Debug, PartialEq)]
pub struct PointSummary {
    /// The grid point.
    pub point: GridPoint,
    /// One entry per metric, in first-seen order over the sweep.
    pub metrics: Vec<MetricSummary>,
}

/// The stored runs of each point with replication < `runs`, indexed like `points`, each list
/// in replication order. Runs of other points or higher replications are left out.
pub fn runs_by_point<'a>(
    points: &[GridPoint],
    runs: u32,
    stored: &'a [StoredRun],
) -> Vec<Vec<&'a StoredRun>> {
    let index: std::collections::HashMap<String, usize> =
        points.iter().map(|p| (p.key(), p.index)).collect();
    let mut out: Vec<Vec<&StoredRun>> = vec![Vec::new(); points.len()];
    for r in stored {
        if r.replication >= runs {
            continue;
        }
        if let Some(&i) = index.get(&r.point_key) {
            out[i].push(r);
        }
    }
    for list in &mut out {
        list.sort_by_key(|r| r.replication);
    }
    out
}

/// Aggregates stored runs per point (see the module doc). `points` must be indexed 0..len as
/// [`super::grid()`] makes them; only replications `0..runs` count.
pub fn summarize(points: &[GridPoint], runs: u32, stored: &[StoredRun]) -> Vec<PointSummary> {
    let by_point = runs_by_point(points, runs, stored);
    let mut names: Vec<&str> = Vec::new();
    for run in by_point.iter().flatten() {
        for (name, _) in &run.metrics {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    points
        .iter()
        .zip(&by_point)
        .map(|(point, point_runs)| PointSummary {
            point: point.clone(),
            metrics: names
                .iter()
                .map(|&name| {
                    let values: Vec<Option<f64>> = point_runs
                        .iter()
                        .map(|r| r.metrics.iter().find(|(n, _)| n == name).and_then(|m| m.1))
                        .collect();
                    MetricSummary::from_values(name, &values)
                })
                .collect(),
        })
        .collect()
}

/// Formats a float for CSV: shortest round-trip repr (`{:?}`), empty for NaN.
pub fn fmt_float(x: f64) -> String {
    if x.is_nan() {
        String::new()
    } else {
        format!("{x:?}")
    }
}

/// CSV text built in memory by the csv crate, as every packetsim CSV file outside the event
/// trace is written: `,` between fields, `\n` after each record, a field quoted (RFC 4180, `"`
/// doubled) only when it holds `,`, `"`, `\r` or `\n`. The fields are given as text, formatted
/// by the caller: serde's serialization of an `f64` (ryu: `1.0`) is not the `Display` form
/// (`1`) the run files have always used, so serializing row structs would change their bytes.
#[derive(Debug)]
pub struct CsvText {
    w: csv::Writer<Vec<u8>>,
}

impl Default for CsvText {
    fn default() -> Self {
        Self::new()
    }
}

impl CsvText {
    /// An empty text. Records may have different lengths (a header's optional column
    /// groups are the callers' business).
    pub fn new() -> Self {
        CsvText {
            w: csv::WriterBuilder::new()
                .flexible(true)
                .from_writer(Vec::new()),
        }
    }

    /// Appends one record.
    pub fn row<I: IntoIterator<Item = S>, S: AsRef<str>>(&mut self, fields: I) {
        self.w
            .write_record(fields.into_iter().map(|f| f.as_ref().to_owned()))
            .expect("writing CSV to memory cannot fail");
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        let bytes = self
            .w
            .into_inner()
            .expect("flushing CSV to memory cannot fail");
        String::from_utf8(bytes).expect("the fields were UTF-8")
    }
}

/// The parameters with units, by index, and their unit (module doc): the SI columns.
fn si_columns(params: &[Param]) -> Vec<(usize, SiUnit)> {
    let mut cols = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let Some(parsed) = p
            .values
            .iter()
            .map(|v| si_value(v))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let mut units = parsed
            .iter()
            .map(|(_, u)| *u)
            .filter(|&u| u != SiUnit::Plain);
        if let Some(first) = units.next() {
            if units.all(|u| u == first) {
                cols.push((i, first));
            }
        }
    }
    cols
}

/// The SI columns' header names.
fn si_header(params: &[Param], cols: &[(usize, SiUnit)]) -> Vec<String> {
    cols.iter()
        .map(|&(i, u)| format!("{}_{}", params[i].path, u.suffix()))
        .collect()
}

/// A point's values in the SI columns.
fn si_fields(point: &GridPoint, cols: &[(usize, SiUnit)]) -> Vec<String> {
    cols.iter()
        .map(|&(i, _)| {
            si_value(&point.assignments[i].1).map_or_else(String::new, |(v, _)| fmt_float(v))
        })
        .collect()
}

/// The text of `results.csv` (format in the module doc).
pub fn results_csv(params: &[Param], summaries: &[PointSummary]) -> String {
    let mut out = CsvText::new();
    let si = si_columns(params);
    let si_names = si_header(params, &si);
    let header = params.iter().map(|p| p.path.as_str()).chain([
        "metric",
        "n",
        "missing",
        "mean",
        "std_dev",
        "ci95_low",
        "ci95_high",
        "median",
        "min",
        "max",
    ]);
    out.row(header.chain(si_names.iter().map(String::as_str)));
    for ps in summaries {
        let si_values = si_fields(&ps.point, &si);
        for m in &ps.metrics {
            let values = ps.point.assignments.iter().map(|(_, v)| v.clone());
            let stats = [
                m.name.clone(),
                m.n.to_string(),
                m.missing.to_string(),
                fmt_float(m.mean),
                fmt_float(m.std_dev),
                fmt_float(m.ci95_low),
                fmt_float(m.ci95_high),
                fmt_float(m.median),
                fmt_float(m.min),
                fmt_float(m.max),
            ];
            out.row(values.chain(stats).chain(si_values.iter().cloned()));
        }
    }
    out.finish()
}

/// The text of `runs.csv` (format in the module doc).
pub fn runs_csv(params: &[Param], points: &[GridPoint], runs: u32, stored: &[StoredRun]) -> String {
    let mut out = CsvText::new();
    let si = si_columns(params);
    let si_names = si_header(params, &si);
    let header = params
        .iter()
        .map(|p| p.path.as_str())
        .chain(["replication", "seed", "metric", "value"])
        .chain(si_names.iter().map(String::as_str));
    out.row(header);
    for (point, point_runs) in points.iter().zip(runs_by_point(points, runs, stored)) {
        let si_values = si_fields(point, &si);
        for r in point_runs {
            for (name, value) in &r.metrics {
                let fields = point.assignments.iter().map(|(_, v)| v.clone()).chain([
                    r.replication.to_string(),
                    r.seed.to_string(),
                    name.clone(),
                    value.map_or_else(String::new, fmt_float),
                ]);
                out.row(fields.chain(si_values.iter().cloned()));
            }
        }
    }
    out.finish()
}

/// Writes `contents` to `path` atomically: a temporary file in the same directory, synced,
/// then renamed over `path`. If an [`OutputSet`](super::manifest::OutputSet) is being written
/// into a folder containing `path`, the file becomes one of its members.
pub fn write_atomic(path: &Path, contents: &str) -> Result<(), ExperimentError> {
    super::manifest::note_written(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| ExperimentError::Io { path: p, source }
    };
    let written = (|| {
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(contents.as_bytes()).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        drop(f);
        std::fs::rename(&tmp, path).map_err(io(path))
    })();
    // A failed write (a full disk) leaves no temporary behind (issue 38).
    super::manifest::remove_tmp_on_error(&tmp, written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::grid::grid;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn summary_one_to_ten_has_textbook_ci() {
        let values: Vec<Option<f64>> = (1..=10).map(|x| Some(x as f64)).collect();
        let m = MetricSummary::from_values("x", &values);
        assert_eq!((m.n, m.missing), (10, 0));
        assert_eq!(m.mean, 5.5);
        // s² = 82.5 / 9; half-width = t(0.975, 9) · s / √10 = 2.2622 · 3.02765 / 3.16228.
        assert!(close(m.std_dev, (82.5f64 / 9.0).sqrt(), 1e-12));
        assert!(close(m.mean - m.ci95_low, 2.1659, 1e-4), "{m:?}");
        assert!(close(m.ci95_high - m.mean, 2.1659, 1e-4), "{m:?}");
        assert_eq!((m.median, m.min, m.max), (5.5, 1.0, 10.0));
    }

    #[test]
    fn summary_missing_values_counted_not_averaged() {
        let m = MetricSummary::from_values("x", &[Some(1.0), None, Some(3.0), None, Some(8.0)]);
        assert_eq!((m.n, m.missing), (3, 2));
        assert_eq!(m.mean, 4.0);
        assert_eq!(m.median, 3.0);
        assert_eq!((m.min, m.max), (1.0, 8.0));
    }

    #[test]
    fn summary_single_value_has_no_spread() {
        let m = MetricSummary::from_values("x", &[None, Some(2.5)]);
        assert_eq!((m.n, m.missing, m.mean, m.median), (1, 1, 2.5, 2.5));
        assert!(m.std_dev.is_nan() && m.ci95_low.is_nan() && m.ci95_high.is_nan());
    }

    #[test]
    fn summary_all_missing_is_all_nan() {
        let m = MetricSummary::from_values("x", &[None, None]);
        assert_eq!((m.n, m.missing), (0, 2));
        assert!(m.mean.is_nan() && m.median.is_nan() && m.min.is_nan() && m.max.is_nan());
    }

    #[test]
    fn summary_even_count_median_is_middle_mean() {
        let m = MetricSummary::from_values("x", &[Some(4.0), Some(1.0), Some(3.0), Some(2.0)]);
        assert_eq!(m.median, 2.5);
    }

    fn run(point: &GridPoint, rep: u32, metrics: &[(&str, Option<f64>)]) -> StoredRun {
        StoredRun {
            point_key: point.key(),
            params: point.assignments.clone(),
            replication: rep,
            seed: 100 + u64::from(rep),
            summary_json: "{}".into(),
            metrics: metrics.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            code_version: "0".into(),
            created_unix_s: 0,
        }
    }

    #[test]
    fn summarize_orders_points_and_metrics_and_fills_absent_metrics() {
        let params: Vec<Param> = vec!["a=1,2".parse().unwrap()];
        let pts = grid(&params);
        // Stored out of order; a metric only at point 1; a replication beyond `runs`.
        let stored = vec![
            run(&pts[1], 1, &[("b", Some(4.0)), ("late", Some(1.0))]),
            run(&pts[0], 1, &[("b", Some(2.0))]),
            run(&pts[1], 0, &[("b", None)]),
            run(&pts[0], 0, &[("b", Some(1.0)), ("c", Some(0.1))]),
            run(&pts[0], 2, &[("b", Some(1000.0))]),
        ];
        let s = summarize(&pts, 2, &stored);
        let names: Vec<Vec<&str>> = s
            .iter()
            .map(|p| p.metrics.iter().map(|m| m.name.as_str()).collect())
            .collect();
        assert_eq!(names, [["b", "c", "late"], ["b", "c", "late"]]);
        assert_eq!((s[0].metrics[0].n, s[0].metrics[0].mean), (2, 1.5));
        assert_eq!((s[0].metrics[1].n, s[0].metrics[1].missing), (1, 1));
        assert_eq!((s[0].metrics[2].n, s[0].metrics[2].missing), (0, 2));
        assert_eq!((s[1].metrics[0].n, s[1].metrics[0].missing), (1, 1));

        let csv = results_csv(&params, &s);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "a,metric,n,missing,mean,std_dev,ci95_low,ci95_high,median,min,max"
        );
        assert_eq!(lines.len(), 1 + 6);
        assert!(lines[1].starts_with("1,b,2,0,1.5,"), "{}", lines[1]);
        assert_eq!(lines[2], "1,c,1,1,0.1,,,,0.1,0.1,0.1");
        assert_eq!(lines[3], "1,late,0,2,,,,,,,");

        let runs = runs_csv(&params, &pts, 2, &stored);
        let lines: Vec<&str> = runs.lines().collect();
        assert_eq!(lines[0], "a,replication,seed,metric,value");
        assert_eq!(
            &lines[1..],
            [
                "1,0,100,b,1.0",
                "1,0,100,c,0.1",
                "1,1,101,b,2.0",
                "2,0,100,b,",
                "2,1,101,b,4.0",
                "2,1,101,late,1.0"
            ]
        );
    }

    #[test]
    fn fmt_float_round_trips_and_blanks_nan() {
        for x in [0.1, 1.0 / 3.0, 1e-7, 1.5e16, -2.0, 5e-324, f64::MAX] {
            assert_eq!(fmt_float(x).parse::<f64>().unwrap().to_bits(), x.to_bits());
        }
        assert_eq!(fmt_float(3.0), "3.0");
        assert_eq!(fmt_float(f64::NAN), "");
    }

    /// The csv crate quotes exactly as the hand-written writer it replaced did (RFC 4180,
    /// only when needed), so every file keeps its bytes: plain and empty fields bare, a field
    /// with `,`, `"`, `\n` or `\r` quoted with `"` doubled, one `\n` per record.
    #[test]
    fn csv_field_with_comma_or_quote_is_quoted() {
        let mut c = CsvText::new();
        c.row([
            "plain",
            "",
            "a,b",
            "say \"hi\"",
            "two\nlines",
            "cr\r",
            "1e-7",
            " sp ",
        ]);
        c.row(["x", ""]);
        assert_eq!(
            c.finish(),
            "plain,,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",1e-7, sp \nx,\n"
        );
    }
}
