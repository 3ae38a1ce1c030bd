//! `packetsim report DIR`: one self-contained HTML page of a run (DIR/index.html): the run's
//! summary, its flows and queues tables, and its figures drawn inline as SVG (no external file,
//! no script), so it can be mailed or archived as one file.

use crate::plot;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A CSV file as an HTML table (numbers right-aligned), or `None` when absent.
fn table(path: &Path) -> Result<Option<String>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return Err(format!(
            "{}:1: empty file, expected a CSV header",
            path.display()
        ));
    };
    let mut h = String::from("<table>\n<thead><tr>");
    for c in header.split(',') {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for l in lines.filter(|l| !l.is_empty()) {
        h.push_str("<tr>");
        for c in l.split(',') {
            let num = c.parse::<f64>().is_ok();
            let _ = write!(
                h,
                "<td{}>{}</td>",
                if num { " class=\"n\"" } else { "" },
                esc(c)
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n");
    Ok(Some(h))
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;\
color:#222}table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{border:1px solid \
#ccc;padding:3px 6px}th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:\
tabular-nums}figure{margin:1.5em 0}figcaption{font-size:13px;color:#555}.scroll{overflow-x:\
auto}code{background:#f4f4f4;padding:0 3px}";

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
    let scenario = json
        .get("scenario")
        .and_then(|v| v.as_str())
        .unwrap_or("?")
        .to_owned();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>packetsim run: {t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>packetsim run: <code>{t}</code></h1>\n<p>Seed {seed}, {sim}, {ev} \
         events, packetsim {ver}. Column units and definitions: docs/outputs.md.</p>\n",
        t = esc(&scenario),
        seed = esc(&field("seed")),
        sim = esc(&packetsim::report::simulated_phrase(
            json.get("duration_s")
                .and_then(|v| v.as_f64())
                .unwrap_or(f64::NAN),
            json.get("span_s").and_then(|v| v.as_f64()),
            json.get("ended_by").and_then(|v| v.as_str()),
        )),
        ev = esc(&field("events")),
        ver = esc(json.get("version").and_then(|v| v.as_str()).unwrap_or("?")),
    );
    for (name, title) in [("flows.csv", "Flows"), ("queues.csv", "Queues")] {
        if let Some(t) = table(&dir.join(name))? {
            let _ = write!(h, "<h2>{title}</h2>\n<div class=\"scroll\">\n{t}</div>\n");
        }
    }
    h.push_str("<h2>Figures</h2>\n");
    match plot::figures(dir) {
        Ok(figs) => {
            plot::ensure_font()?;
            for f in &figs {
                let svg = plot::svg_string(f)?;
                let _ = write!(
                    h,
                    "<figure id=\"{}\">\n{svg}\n<figcaption>{}: {} series, {} against {}</figcaption>\n</figure>\n",
                    f.stem,
                    esc(f.title),
                    f.series.len(),
                    esc(f.y_label),
                    esc(f.x_label)
                );
            }
        }
        Err(e) if e.contains("no timeseries_*.csv") => {
            h.push_str(
                "<p>No time series: run with <code>simulation.sample_interval</code> set to \
                 get figures.</p>\n",
            );
        }
        Err(e) => return Err(e),
    }
    h.push_str("</body>\n</html>\n");
    let out = dir.join("index.html");
    packetsim::report::write_atomic(&out, &h).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}
