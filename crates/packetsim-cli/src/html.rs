//! `packetsim report DIR`: one self-contained HTML page of a run (DIR/index.html): the run's
//! summary, its flows and queues tables, and its figures drawn inline as SVG (no external file,
//! no script), so it can be mailed or archived as one file.
//!
//! The CSV files are read with the `csv` crate (quoted fields, embedded commas) and the page is
//! a `minijinja` template, which escapes every value it inserts; only the SVG figures, which
//! plotters drew, are inserted as they are.

use crate::plot;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One table cell: the text shown, whether it is a number (right-aligned), and the exact value
/// from the CSV when the shown text rounds it (as a tooltip).
#[derive(Serialize)]
struct Cell {
    text: String,
    num: bool,
    exact: Option<String>,
}

/// A CSV file as a table.
#[derive(Serialize)]
struct Table {
    title: &'static str,
    header: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

/// A figure: its anchor, its SVG and its caption.
#[derive(Serialize)]
struct Figure {
    id: String,
    svg: String,
    caption: String,
}

/// A number as a reader wants it in a table: integers as they are; other values rounded to
/// what a table can show (1 decimal from 100 up, 3 from 1 up, else 4 significant digits), so
/// that `4754538.666666667` reads `4754538.7`. `None` when `s` is not a finite number.
pub(crate) fn readable_number(s: &str) -> Option<String> {
    let x: f64 = s.trim().parse().ok()?;
    if !x.is_finite() {
        return None;
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return Some(format!("{x:.0}"));
    }
    let a = x.abs();
    let text = if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.3}")
    } else {
        let digits = (3 - a.log10().floor() as i32).clamp(4, 12) as usize;
        format!("{x:.digits$}")
    };
    Some(text)
}

/// A CSV file as a table (numbers right-aligned and rounded for reading), or `None` when absent.
fn table(path: &Path, title: &'static str) -> Result<Option<Table>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let (header, mut reader) = plot::open_csv(path)?;
    let at = |e| plot::csv_error(path, e);
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(at)?;
        let row = record
            .iter()
            .map(|c| match readable_number(c) {
                Some(text) => Cell {
                    exact: (text != c).then(|| c.to_owned()),
                    text,
                    num: true,
                },
                None => Cell {
                    text: c.to_owned(),
                    num: false,
                    exact: None,
                },
            })
            .collect();
        rows.push(row);
    }
    Ok(Some(Table {
        title,
        header,
        rows,
    }))
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;\
color:#222}table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{border:1px solid \
#ccc;padding:3px 6px}th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:\
tabular-nums}figure{margin:1.5em 0}figcaption{font-size:13px;color:#555}.scroll{overflow-x:\
auto}code{background:#f4f4f4;padding:0 3px}";

/// The page. The `.html` name turns on minijinja's HTML escaping of every inserted value.
const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>packetsim run: {{ scenario }}</title>
<style>{{ style|safe }}</style>
</head>
<body>
<h1>packetsim run: <code>{{ scenario }}</code></h1>
<p>Seed {{ seed }}, {{ simulated }}, {{ events }} events, packetsim {{ version }}. Column units and definitions: docs/outputs.md. Rounded numbers show their exact value on hover.</p>
{% for t in tables %}<h2>{{ t.title }}</h2>
<div class="scroll">
<table>
<thead><tr>{% for c in t.header %}<th>{{ c }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in t.rows %}<tr>{% for c in row %}<td{% if c.num %} class="n"{% endif %}{% if c.exact %} title="{{ c.exact }}"{% endif %}>{{ c.text }}</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table>
</div>
{% endfor %}<h2>Figures</h2>
{% if no_series %}<p>No time series: run with <code>simulation.sample_interval</code> set to get figures.</p>
{% endif %}{% for f in figures %}<figure id="{{ f.id }}">
{{ f.svg|safe }}
<figcaption>{{ f.caption }}</figcaption>
</figure>
{% endfor %}</body>
</html>
"#;

/// Writes `dir/index.html` for the run whose outputs are in `dir`; returns its path.
pub fn run_report(dir: &Path) -> Result<PathBuf, String> {
    let summary = dir.join("summary.json");
    let text = std::fs::read_to_string(&summary).map_err(|e| {
        format!(
            "{}: {e} (expected the --out folder of `packetsim run`)",
            summary.display()
        )
    })?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}:{}: {e}", summary.display(), e.line()))?;
    let field = |k: &str| json.get(k).map(|v| v.to_string()).unwrap_or_default();
    let text_of = |k: &str| {
        json.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or("?")
            .to_owned()
    };
    let simulated = packetsim::report::simulated_phrase(
        json.get("duration_s")
            .and_then(|v| v.as_f64())
            .unwrap_or(f64::NAN),
        json.get("span_s").and_then(|v| v.as_f64()),
        json.get("ended_by").and_then(|v| v.as_str()),
    );
    let mut tables = Vec::new();
    for (name, title) in [("flows.csv", "Flows"), ("queues.csv", "Queues")] {
        tables.extend(table(&dir.join(name), title)?);
    }
    let (figures, no_series) = match plot::figures(dir) {
        Ok(figs) => {
            plot::ensure_font()?;
            let mut out = Vec::new();
            for f in &figs {
                out.push(Figure {
                    id: f.stem.to_string(),
                    svg: plot::svg_string(f)?,
                    caption: format!(
                        "{}: {} series, {} against {}",
                        f.title,
                        f.series.len(),
                        f.y_label,
                        f.x_label
                    ),
                });
            }
            (out, false)
        }
        Err(e) if e.contains("no timeseries_*.csv") => (Vec::new(), true),
        Err(e) => return Err(e),
    };
    let mut env = minijinja::Environment::new();
    env.add_template("run.html", PAGE)
        .map_err(|e| format!("report template: {e}"))?;
    let page = env
        .get_template("run.html")
        .and_then(|t| {
            t.render(minijinja::context! {
                scenario => text_of("scenario"),
                seed => field("seed"),
                simulated,
                events => field("events"),
                version => text_of("version"),
                style => STYLE,
                tables,
                figures,
                no_series,
            })
        })
        .map_err(|e| format!("report template: {e}"))?;
    let out = dir.join("index.html");
    packetsim::report::write_atomic(&out, &page).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 37 item 6: `4754538.666666667` bps printed whole in the run report's table.
    #[test]
    fn table_numbers_are_rounded_for_reading_and_integers_kept() {
        assert_eq!(
            readable_number("4754538.666666667").as_deref(),
            Some("4754538.7")
        );
        assert_eq!(readable_number("12.3456789").as_deref(), Some("12.346"));
        assert_eq!(readable_number("0.000123456").as_deref(), Some("0.0001235"));
        assert_eq!(readable_number("0.5").as_deref(), Some("0.5000"));
        assert_eq!(readable_number("1500").as_deref(), Some("1500"));
        assert_eq!(readable_number("-3.25").as_deref(), Some("-3.250"));
        assert_eq!(readable_number("f"), None);
        assert_eq!(readable_number("inf"), None);
        assert_eq!(readable_number(""), None);
    }

    /// A quoted CSV field with a comma stays one cell, and text is escaped in the page.
    #[test]
    fn csv_fields_are_parsed_not_split_and_escaped() {
        let dir = std::env::temp_dir().join(format!("packetsim-html-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("flows.csv");
        std::fs::write(&p, "flow,note,goodput_bps\nf,\"a,<b>\",4754538.666666667\n").unwrap();
        let t = table(&p, "Flows").unwrap().unwrap();
        assert_eq!(t.header, ["flow", "note", "goodput_bps"]);
        assert_eq!(t.rows[0].len(), 3);
        assert_eq!(t.rows[0][1].text, "a,<b>");
        assert_eq!(t.rows[0][2].exact.as_deref(), Some("4754538.666666667"));
        let mut env = minijinja::Environment::new();
        env.add_template("t.html", "{{ x }}").unwrap();
        let s = env
            .get_template("t.html")
            .unwrap()
            .render(minijinja::context! { x => "a,<b>" })
            .unwrap();
        assert_eq!(s, "a,&lt;b&gt;");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
