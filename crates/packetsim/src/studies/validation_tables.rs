//! The ns-2.35 cross-checks' results.md tables, regenerated from the data files beside them
//! and compared (issue 18: every number in a results.md comes from a file in the repo). Each
//! test reimplements the script that wrote the table (`bench/validate/compare.sh`,
//! `bench/validate/sctp/run.py`), rounding included, so that a hand edit of a table, or a
//! data file changed without rerunning the script, fails here. The DiffServ cross-check's
//! tables are regenerated in `diffserv_ecn`'s tests, from the same code the report uses.

use std::collections::BTreeMap;

/// The scripts' Student-t table (two-sided 95%), with their fallbacks.
fn t95_script(df: usize, table: &[(usize, f64)], above: f64) -> f64 {
    if let Some(&(_, t)) = table.iter().find(|e| e.0 == df) {
        return t;
    }
    if df > table.last().map_or(0, |e| e.0) {
        return above;
    }
    table.iter().rfind(|e| e.0 <= df).map_or(f64::NAN, |e| e.1)
}

const T95_BASE: [(usize, f64); 22] = [
    (1, 12.706),
    (2, 4.303),
    (3, 3.182),
    (4, 2.776),
    (5, 2.571),
    (6, 2.447),
    (7, 2.365),
    (8, 2.306),
    (9, 2.262),
    (10, 2.228),
    (11, 2.201),
    (12, 2.179),
    (13, 2.160),
    (14, 2.145),
    (15, 2.131),
    (16, 2.120),
    (17, 2.110),
    (18, 2.101),
    (19, 2.093),
    (20, 2.086),
    (25, 2.060),
    (30, 2.042),
];

/// Mean and CI half-width as the scripts compute them (sample std dev, t from `table`).
fn mean_half(xs: &[f64], t: impl Fn(usize) -> f64) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (m, f64::NAN);
    }
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, t(xs.len() - 1) * var.sqrt() / n.sqrt())
}

/// The records of a CSV file's text after its header row, read by the csv crate.
fn csv_records(text: &str) -> Vec<Vec<String>> {
    csv::Reader::from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("CSV record").iter().map(str::to_string).collect())
        .collect()
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn assert_rows(md: &str, rows: &[String], what: &str) {
    assert!(!rows.is_empty(), "{what}: no rows regenerated");
    for row in rows {
        assert!(md.contains(row.as_str()), "{what}: results.md lacks\n{row}");
    }
}

/// bench/validate/results.md (compare.sh): TCP on spec 3's path, ns-2.35 against packetsim.
#[test]
fn tcp_path_results_md_regenerates_from_its_data() {
    let md = include_str!("../../../../bench/validate/results.md");
    let ns = json_lines(include_str!(
        "../../../../bench/validate/data/ns2_runs.jsonl"
    ));
    let ps_csv = include_str!("../../../../bench/validate/data/packetsim/results.csv");
    // (loss in ppm, variant) -> ((loss as printed, variant), ns-2 times, retransmits, timeouts).
    type Cell = ((String, String), Vec<f64>, Vec<f64>, Vec<f64>);
    let mut by: BTreeMap<(u64, String), Cell> = BTreeMap::new();
    for r in &ns {
        let loss = r["loss"].as_f64().unwrap();
        let variant = r["variant"].as_str().unwrap().to_string();
        let e = by
            .entry(((loss * 1e6).round() as u64, variant.clone()))
            .or_insert_with(|| ((format!("{loss}"), variant), vec![], vec![], vec![]));
        if r["completed"].as_bool() == Some(true) {
            e.1.push(r["completion_time_s"].as_f64().unwrap());
            e.2.push(r["retransmits"].as_f64().unwrap());
            e.3.push(r["timeouts"].as_f64().unwrap());
        }
    }
    // (loss as printed, variant, metric) -> (mean, half, n).
    let mut ps: BTreeMap<(String, String, String), (f64, f64, u64)> = BTreeMap::new();
    for f in csv_records(ps_csv) {
        let loss: f64 = f[0].parse().unwrap();
        let mean: f64 = f[5].parse().unwrap();
        let lo: f64 = f[7].parse().unwrap_or(mean);
        // The variant is the TOML string the sweep set (`"reno"`, quotes included).
        let variant = f[1].trim_matches('"').to_string();
        ps.insert(
            (format!("{loss}"), variant, f[2].clone()),
            (mean, mean - lo, f[3].parse().unwrap()),
        );
    }
    let t = |df| t95_script(df, &T95_BASE, 1.96);
    let mut rows = Vec::new();
    let mut recovery = Vec::new();
    for ((loss, variant), times, rtx, to) in by.values() {
        let (nm, nh) = mean_half(times, t);
        let p = |m: &str| ps[&(loss.clone(), variant.clone(), format!("flows.file.{m}"))];
        let (pm, ph, pn) = p("completion_time_s");
        let overlap = if (pm - nm).abs() <= nh + ph + 1e-9 {
            "yes"
        } else {
            "no"
        };
        let close = if (pm / nm - 1.0).abs() <= 0.05 {
            "yes"
        } else {
            "no"
        };
        rows.push(format!(
            "| {loss} | {variant} | {nm:.3} ± {nh:.3} (n={}) | {pm:.3} ± {ph:.3} (n={pn}) | {:.3} | {overlap} | {close} |",
            times.len(),
            pm / nm
        ));
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
        recovery.push(format!(
            "| {loss} | {variant} | {:.1} | {:.1} | {:.1} | {:.1} |",
            mean(rtx),
            p("retransmits").0,
            mean(to),
            p("timeouts").0
        ));
    }
    assert_eq!(rows.len(), 10);
    assert_rows(md, &rows, "bench/validate/results.md");
    // bench/validate/README.md quotes the same table.
    let readme = include_str!("../../../../bench/validate/README.md");
    assert_rows(readme, &rows, "bench/validate/README.md");
    assert_rows(md, &recovery, "bench/validate/results.md (recovery)");
}

/// bench/validate/sctp/results.md (run.py): spec 3's Figures 2-4 points in ns-2.35, with
/// packetsim's means at the same points from data/packetsim_points.csv.
#[test]
fn sctp_results_md_regenerates_from_its_data() {
    let md = include_str!("../../../../bench/validate/sctp/results.md");
    let ns = json_lines(include_str!(
        "../../../../bench/validate/sctp/data/ns2_runs.jsonl"
    ));
    let ps_csv = include_str!("../../../../bench/validate/sctp/data/packetsim_points.csv");
    let milli = |x: f64| (x * 1e5).round() as i64;
    // (proto, loss0, loss1, rtx_to_alt, rwnd, trigger, delayed_sack) -> (times, unfinished).
    type Key = (String, i64, i64, i64, i64, i64, i64);
    let mut by: BTreeMap<Key, (Vec<f64>, usize)> = BTreeMap::new();
    let mut by_seed: BTreeMap<Key, BTreeMap<u64, f64>> = BTreeMap::new();
    for r in &ns {
        let k = (
            r["proto"].as_str().unwrap().to_string(),
            milli(r["loss0"].as_f64().unwrap()),
            milli(r["loss1"].as_f64().unwrap()),
            r["rtx_to_alt"].as_i64().unwrap(),
            r["rwnd"].as_i64().unwrap(),
            r["frtx_trigger"].as_i64().unwrap(),
            r["delayed_sack"].as_i64().unwrap_or(1),
        );
        let e = by.entry(k.clone()).or_default();
        match (r["completed"].as_bool(), r["time_s"].as_f64()) {
            (Some(true), Some(t)) => {
                e.0.push(t);
                by_seed
                    .entry(k)
                    .or_default()
                    .insert(r["seed"].as_u64().unwrap(), t);
            }
            _ => e.1 += 1,
        }
    }
    let mut ps: BTreeMap<(String, i64, i64, i64), f64> = BTreeMap::new();
    for f in csv_records(ps_csv) {
        ps.insert(
            (
                f[0].clone(),
                milli(f[1].parse().unwrap()),
                milli(f[2].parse().unwrap()),
                f[3].parse().unwrap(),
            ),
            f[5].parse().unwrap(),
        );
    }
    // run.py's table: compare.sh's plus 29, 40, 49 and 60 degrees of freedom.
    let mut table: Vec<(usize, f64)> = T95_BASE.to_vec();
    table.extend([(29, 2.045), (40, 2.021), (49, 2.010), (60, 2.000)]);
    table.sort_by_key(|e| e.0);
    let t = |df| t95_script(df, &table, 1.98);
    let cell = |k: &Key| -> (String, Option<f64>) {
        match by.get(k) {
            Some((ts, miss)) if !ts.is_empty() => {
                let (m, h) = mean_half(ts, t);
                let extra = if *miss > 0 {
                    format!(" ({miss} unfinished)")
                } else {
                    String::new()
                };
                (format!("{m:.2} ± {h:.2}{extra}"), Some(m))
            }
            _ => ("-".into(), None),
        }
    };
    let key = |p: &str, l0: f64, l1: f64, alt: i64, rwnd: i64, trig: i64, ds: i64| -> Key {
        (p.to_string(), milli(l0), milli(l1), alt, rwnd, trig, ds)
    };
    let label = |x: f64| format!("{}%", (x * 100.0 * 1e6).round() / 1e6);
    let mut rows = Vec::new();
    for l0 in [0.0, 0.005, 0.01, 0.04, 0.1] {
        let mut cells = Vec::new();
        let mut means: Vec<(&str, f64)> = Vec::new();
        for p in ["reno", "sack", "sctp1", "sctp2"] {
            let (c, m) = cell(&key(p, l0, 0.0, 1, 65536, 4, 1));
            let pv = ps.get(&(p.to_string(), milli(l0), 0, 1));
            cells.push(match pv {
                Some(v) => format!("{c} [ps {v:.2}]"),
                None => c,
            });
            if let Some(m) = m {
                means.push((p, m));
            }
        }
        means.sort_by(|a, b| a.1.total_cmp(&b.1));
        let order: Vec<&str> = means.iter().map(|m| m.0).collect();
        rows.push(format!(
            "| {} | {} | {} |",
            label(l0),
            cells.join(" | "),
            order.join(" < ")
        ));
    }
    for l0 in [0.02, 0.04] {
        for l1 in [0.0, 0.005, 0.01, 0.02, 0.03, 0.05] {
            let (ka, ks) = (
                key("sctp2", l0, l1, 1, 65536, 4, 1),
                key("sctp2", l0, l1, 0, 65536, 4, 1),
            );
            let (ca, cs) = (cell(&ka).0, cell(&ks).0);
            // ALT − SAME paired by seed, over the seeds both finished.
            let d: Vec<f64> = by_seed[&ka]
                .iter()
                .filter_map(|(seed, a)| by_seed[&ks].get(seed).map(|s| a - s))
                .collect();
            let d = if d.len() < 2 {
                "-".to_string()
            } else {
                let (m, h) = mean_half(&d, t);
                format!("{m:+.2} ± {h:.2}")
            };
            let p = |alt| ps.get(&("sctp2".to_string(), milli(l0), milli(l1), alt));
            let psc = match (p(1), p(0)) {
                (Some(a), Some(s)) => format!("{a:.2} / {s:.2}"),
                _ => String::new(),
            };
            rows.push(format!(
                "| {} | {} | {ca} | {cs} | {d} | {psc} |",
                label(l0),
                label(l1)
            ));
        }
    }
    for l0 in [0.005, 0.01, 0.04] {
        let cs: Vec<String> = [
            key("sack", l0, 0.0, 1, 65536, 4, 1),
            key("sctp1", l0, 0.0, 1, 65536, 4, 1),
            key("sctp1", l0, 0.0, 1, 29040, 4, 1),
            key("sctp1", l0, 0.0, 1, 29360, 4, 1),
            key("sctp1", l0, 0.0, 1, 65536, 3, 1),
            key("sctp2", l0, 0.0, 1, 65536, 3, 1),
            key("sctp1", l0, 0.0, 1, 29360, 4, 0),
            key("sctp1", l0, 0.0, 1, 65536, 4, 0),
        ]
        .iter()
        .map(|k| cell(k).0)
        .collect();
        rows.push(format!("| {} | {} |", label(l0), cs.join(" | ")));
    }
    assert_eq!(rows.len(), 20);
    assert_rows(md, &rows, "bench/validate/sctp/results.md");
}
