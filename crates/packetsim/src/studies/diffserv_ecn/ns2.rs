//! ns-2.35's runs of the same scenario (bench/validate/diffserv/data/), as compare.py reads
//! them: per (sim, scenario, depth) the means over seeds of the table's statistics, and the
//! report's comparison with them.

use super::{pop_std, Results, BUCKET_DEPTH, SCENARIOS, SENSITIVITY_DEPTH};
use std::fmt::Write as _;
/// The grid's runs (compare.py).
pub const RUNS: &str = include_str!("../../../../../bench/validate/diffserv/data/ns2_runs.jsonl");
/// The no-ECN Sim 1 bucket-depth sweep (compare.py --depth-sweep).
pub const DEPTH_SWEEP: &str =
    include_str!("../../../../../bench/validate/diffserv/data/ns2_depth_sweep.jsonl");
/// The statistics compare.py prints, in its column order.
pub const STATS: [&str; 14] = [
    "af_mean",
    "af_std",
    "af_min",
    "af_max",
    "af_below",
    "be_mean",
    "be_std",
    "out_in",
    "out_early",
    "out_drops",
    "in_drops",
    "ce_af",
    "af_rexmit",
    "in_early",
];

/// (sim, scenario, bucket depth B).
pub type Key = (u32, String, u64);

/// compare.py's `metrics` of one run, in [`STATS`] order.
fn metrics(r: &serde_json::Value) -> Option<[f64; 14]> {
    let sim = r["sim"].as_u64()?;
    let n_af = if sim == 1 { 3 } else { 6 };
    let share = 2000.0 / n_af as f64;
    let f = |k: &str| r[k].as_f64();
    let af: Vec<f64> = (1..=n_af)
        .map(|i| f(&format!("af{i}_kbps")))
        .collect::<Option<_>>()?;
    let be: Vec<f64> = (1..=5)
        .map(|i| f(&format!("be{i}_kbps")))
        .collect::<Option<_>>()?;
    let (pin, pout) = (f("cp10_pkts")?, f("cp11_pkts")?);
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    Some([
        mean(&af),
        pop_std(&af),
        af.iter().cloned().fold(f64::INFINITY, f64::min),
        af.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        af.iter().filter(|&&g| g < share).count() as f64,
        mean(&be),
        pop_std(&be),
        100.0 * pout / pin,
        100.0 * f("cp11_edrops")? / pout,
        100.0 * f("cp11_drops")? / pout,
        100.0 * f("cp10_drops")? / pin,
        100.0 * f("ce_af")? / pout,
        (1..=n_af)
            .map(|i| f(&format!("af{i}_rexmit")).unwrap_or(0.0))
            .sum(),
        100.0 * f("cp10_edrops")? / pin,
    ])
}

/// Per (sim, ecn, depth): (seeds, mean of each statistic), from `text` (JSON lines).
pub fn means(text: &str) -> Vec<(Key, usize, [f64; 14])> {
    let mut acc: Vec<(Key, Vec<[f64; 14]>)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(r) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let (Some(sim), Some(ecn), Some(depth), Some(m)) = (
            r["sim"].as_u64(),
            r["ecn"].as_str(),
            r["depth"].as_u64(),
            metrics(&r),
        ) else {
            continue;
        };
        let key = (sim as u32, ecn.to_string(), depth);
        match acc.iter_mut().find(|a| a.0 == key) {
            Some(a) => a.1.push(m),
            None => acc.push((key, vec![m])),
        }
    }
    acc.into_iter()
        .map(|(k, v)| {
            let mut mean = [0.0; 14];
            for (i, slot) in mean.iter_mut().enumerate() {
                *slot = v.iter().map(|m| m[i]).sum::<f64>() / v.len() as f64;
            }
            (k, v.len(), mean)
        })
        .collect()
}

/// One statistic of the grid runs at (sim, ecn, depth).
pub fn get(sim: u32, ecn: &str, depth: u64, stat: &str) -> f64 {
    let i = STATS.iter().position(|s| *s == stat).unwrap_or(0);
    means(RUNS)
        .into_iter()
        .find(|(k, _, _)| k.0 == sim && k.1 == ecn && k.2 == depth)
        .map_or(f64::NAN, |(_, _, m)| m[i])
}

/// The report's comparison with ns-2.35, every number computed from
/// bench/validate/diffserv/data/ns2_runs.jsonl.
pub(super) fn comparison(r: &Results, sens: &Results) -> String {
    let mut md = String::from(
        "## Comparison with ns-2.35 (same scenario, stock DiffServ module)\n\n\
         `bench/validate/diffserv/diffserv_ecn.tcl` builds this scenario in ns-2.35's Nortel DiffServ module \
         (Queue/dsRED/edge: `TokenBucket` policy per AF flow, RIO-C AF queue, RED BE queue, `WRR` 1:4:5); \
         `compare.py` runs it over 10 seeds; the ns-2 columns below are computed from its data file \
         (bench/validate/diffserv/data/ns2_runs.jsonl). The paper used a different patch (spec 4 §1), so \
         ns-2.35 is evidence about the model, not the paper. ns-2's token bucket counts bytes, starts full and \
         spends no tokens on OUT packets; its WRR is packet-based (a class sends up to its weight per visit, an \
         empty class loses its turn); its meter sits in the edge queue's enqueue, just before RIO: all as packetsim. \
         Stock ns-2 ECN differs from the paper's scheme (probabilistic marks, marks instead of forced drops above \
         max_th, no precedence lowering), so only its no-ECN rows compare like for like.\n\n\
         | depth | sim | scenario | AF mean ps / ns-2 | AF std ps / ns-2 | BE mean ps / ns-2 | BE std ps / ns-2 | OUT/IN % ps / ns-2 | OUT early % ps / ns-2 | CE/OUT % ps / ns-2 |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for depth in [BUCKET_DEPTH, SENSITIVITY_DEPTH] {
        let res = if depth == BUCKET_DEPTH { r } else { sens };
        for sim in [1u32, 2] {
            for (ecn, label) in SCENARIOS {
                let m = |k| res.m(sim, ecn, k);
                let n = |k| get(sim, ecn, depth, k);
                let _ = writeln!(
                    md,
                    "| {depth} | {sim} | {label} | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} / {:.1} | {:.2} / {:.2} | {:.2} / {:.2} |",
                    m("af_mean_kbps"), n("af_mean"), m("af_std_kbps"), n("af_std"),
                    m("be_mean_kbps"), n("be_mean"), m("be_std_kbps"), n("be_std"),
                    m("out_in_pct"), n("out_in"), m("out_early_pct"), n("out_early"),
                    m("out_ce_pct"), n("ce_af")
                );
            }
        }
    }
    let _ = write!(
        md,
        "\nCE-marking ratio (Table 3, 'ecn to AF'): {:.2}% here against the paper's 4.38%. The canonical \
         reading (spec 4 Q2) marks every ECT arrival while the average is in the region; ns-2.35's stock, \
         probabilistic ECN gives {:.2}% at {BUCKET_DEPTH} B and {:.2}% at {SENSITIVITY_DEPTH} B, and its no-ECN \
         early-drop ratio at {SENSITIVITY_DEPTH} B is {:.2}% (paper 2.92%). Hypothesis: the paper's Table 3 \
         came from probabilistic marking and a bucket nearer {SENSITIVITY_DEPTH} B than {BUCKET_DEPTH} B.\n",
        r.m(1, "af", "out_ce_pct"),
        get(1, "af", BUCKET_DEPTH, "ce_af"),
        get(1, "af", SENSITIVITY_DEPTH, "ce_af"),
        get(1, "none", SENSITIVITY_DEPTH, "out_early"),
    );
    md
}

/// ns-2.35's no-ECN Sim 1 OUT/IN per bucket depth (data/ns2_depth_sweep.jsonl), as text.
pub(super) fn depth_line() -> String {
    let means = means(DEPTH_SWEEP);
    let seeds = means.first().map_or(0, |m| m.1);
    let mut parts: Vec<(u64, f64)> = means.iter().map(|(k, _, m)| (k.2, m[7])).collect();
    parts.sort_by_key(|p| p.0);
    format!(
        "ns-2.35's no-ECN Sim 1 OUT/IN by bucket depth ({seeds} seeds each, \
         bench/validate/diffserv/data/ns2_depth_sweep.jsonl): {}",
        parts
            .iter()
            .map(|(d, v)| format!("{d} B {v:.1}%"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}
