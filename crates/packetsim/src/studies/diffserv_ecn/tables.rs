//! Tables 3 and 4 (spec 4 §5.2): the paper's printed values beside packetsim's.

use super::*;

/// Tables 3 and 4 (spec 4 §5.2): label, metric, the paper's Sim 1 and Sim 2 values per
/// scenario ("." = does not occur).
pub(super) const TABLE_ROWS: [(&str, &str, [&str; 3], [&str; 3]); 6] = [
    (
        "Average OUT/IN packets ratio (%)",
        "out_in_pct",
        ["31.93", "27.88", "27.75"],
        ["39.02", "32.86", "32.8"],
    ),
    (
        "IN packets forced drop ratio (%)",
        "in_forced_pct",
        [".", ".", "."],
        ["0.043", "0.041", "0.041"],
    ),
    (
        "OUT packets early drop ratio (%)",
        "out_early_pct",
        ["2.92", ".", "."],
        ["10.9", ".", "."],
    ),
    (
        "OUT packets forced drop ratio (%)",
        "out_forced_pct",
        [".", "0.5", "0.6"],
        ["0.14", "0.2", "0.2"],
    ),
    (
        "OUT packets CE-bit marking ratio (%)",
        "out_ce_pct",
        [".", "4.38", "4.92"],
        [".", "20.17", "18.52"],
    ),
    (
        "IN packets early drop ratio (%)",
        "in_early_pct",
        [".", ".", "."],
        [".", ".", "."],
    ),
];

/// Tables 3 and 4 at `r`: their markdown for the report, and their CSV files (name, text).
pub(super) fn paper_tables(r: &Results) -> (String, Vec<(String, String)>) {
    let mut md_tables = String::new();
    let mut files = Vec::new();
    for (sim, table) in [(1u32, "table3"), (2, "table4")] {
        let mut csv = CsvText::new();
        csv.row([
            "statistic",
            "scenario",
            "packetsim_mean",
            "packetsim_ci95",
            "paper",
        ]);
        let _ = writeln!(
            md_tables,
            "### {} (Sim {sim}, AF queue at the ingress router)\n",
            if sim == 1 { "Table 3" } else { "Table 4" }
        );
        let _ = writeln!(
            md_tables,
            "| statistic | {} |\n|---|---|---|---|",
            SCENARIOS
                .map(|s| format!("{} (packetsim / paper)", s.1))
                .join(" | ")
        );
        for (label, metric, p1, p2) in TABLE_ROWS.iter() {
            let paper = if sim == 1 { p1 } else { p2 };
            let mut cells = Vec::new();
            for (i, (k, l)) in SCENARIOS.iter().enumerate() {
                let (mean, ci) = r.get(sim, k, metric);
                csv.row([
                    label.to_string(),
                    l.to_string(),
                    format!("{mean:?}"),
                    format!("{ci:?}"),
                    paper[i].to_string(),
                ]);
                cells.push(format!("{mean:.3} ± {ci:.3} / {}", paper[i]));
            }
            let _ = writeln!(md_tables, "| {label} | {} |", cells.join(" | "));
        }
        let _ = writeln!(md_tables);
        files.push((format!("{table}.csv"), csv.finish()));
    }
    (md_tables, files)
}

/// The row of [`TABLE_ROWS`] for `metric`.
pub(super) fn table_row(
    metric: &str,
) -> &'static (
    &'static str,
    &'static str,
    [&'static str; 3],
    [&'static str; 3],
) {
    TABLE_ROWS
        .iter()
        .find(|r| r.1 == metric)
        .expect("a Table 3-4 statistic")
}

/// Tables 3-4's printed values of `metric` for simulations `sims` judged at `r`: each within ±25% relative (spec 4
/// §5.2's tolerance for OUT/IN), the cells the paper leaves empty skipped. The verdicts and
/// the numbers shown.
pub(super) fn printed_values(
    r: &Results,
    metric: &str,
    sims: &[u32],
    digits: usize,
) -> (Vec<Verdict>, Vec<String>) {
    let (_, _, p1, p2) = table_row(metric);
    let mut verdicts = Vec::new();
    let mut shown = Vec::new();
    for (sim, vals) in [(1u32, p1), (2, p2)] {
        if !sims.contains(&sim) {
            continue;
        }
        for ((k, _), p) in SCENARIOS.iter().zip(vals) {
            let Ok(p) = p.parse::<f64>() else { continue };
            let e = r.est(sim, k, metric);
            verdicts.push(checks::within(&e, &range(0.75 * p, 1.25 * p, "")));
            shown.push(format!("Sim {sim} {k}: {} (paper {p})", e.show(digits)));
        }
    }
    (verdicts, shown)
}
