//! Tests of the diffserv-ecn study.

use super::*;

/// The shape checks on a reduced run (5 seeds x 100 s, the spec's default depth, F&J's
/// `count`), on two disjoint seed sets (issue 18): a verdict may be "not decidable" in
/// one set, never "holds" in one and "does not hold" in the other. About 1.5 s per set in
/// release on 2 cores. Also pins what both sets must find: S5 and S6 hold (OUT/IN highest
/// without ECN; no IN drops, marks above early drops); S1 does not hold (AF's mean moves by
/// less than 0.5%, CI included); S8 never holds (its std half is contradicted: ECN evens AF
/// out in Sim 2 too). Since the scenarios share seeds (issue 35), S8 does not hold with base
/// seed 1 and is not decidable with 1001 (Sim 2's AF mean gain 3.45 [-0.44, 7.34] kb/s), and
/// S2 holds with base seed 1 (paired std, min and max moves all significant).
#[test]
fn shape_check_verdicts_agree_on_disjoint_seed_sets() {
    let run_set = |base_seed: u64| -> Vec<Check> {
        let dir = std::env::temp_dir().join(format!(
            "packetsim-diffserv-ecn-shape-{}-{base_seed}",
            std::process::id()
        ));
        let grid = Grid {
            runs: 5,
            duration_s: 100.0,
            depths: &[BUCKET_DEPTH],
            counts: &["fj"],
            base_seed,
        };
        let swept = sweep_points(&grid, 2, dir.clone(), false);
        let _ = std::fs::remove_dir_all(&dir);
        let (points, runs) = swept.expect("sweep");
        let r = Results {
            points: &points,
            runs: &runs,
            depth: BUCKET_DEPTH,
            count: "fj",
        };
        let mut checks = shape_checks(&r);
        explain(&mut checks, &r, &r, &r);
        checks
    };
    let (a, b) = super::checks::assert_seed_sets_agree(
        [BASE_SEED, BASE_SEED + 1000],
        run_set,
        &["S5", "S6"],
        &["S1"],
    );
    for set in [&a, &b] {
        let s8 = set.iter().find(|c| c.id == "S8").unwrap();
        assert_ne!(s8.verdict, Verdict::Holds, "S8: {}", s8.measured);
    }
}

/// Quick mode (3 runs) is too few for any statistical verdict: every comparative check
/// is "not decidable" rather than a verdict drawn from noise.
#[test]
fn three_runs_are_not_decidable() {
    let dir = std::env::temp_dir().join(format!(
        "packetsim-diffserv-ecn-quick-{}",
        std::process::id()
    ));
    let grid = Grid {
        runs: 3,
        duration_s: 20.0,
        depths: &[BUCKET_DEPTH],
        counts: &["fj"],
        base_seed: BASE_SEED,
    };
    let swept = sweep_points(&grid, 2, dir.clone(), false);
    let _ = std::fs::remove_dir_all(&dir);
    let (points, runs) = swept.expect("sweep");
    let r = Results {
        points: &points,
        runs: &runs,
        depth: BUCKET_DEPTH,
        count: "fj",
    };
    for c in shape_checks(&r) {
        assert_eq!(c.verdict, Verdict::NotDecidable, "{}: {}", c.id, c.measured);
    }
}

/// bench/validate/diffserv/results.md's tables and depth-sweep line are what the data
/// files give (issue 18: every number in a results.md comes from a file in the repo).
#[test]
fn ns2_results_md_regenerates_from_its_data() {
    let md = include_str!("../../../../../bench/validate/diffserv/results.md");
    let label = |e: &str| SCENARIOS.iter().find(|s| s.0 == e).unwrap().1;
    let means = ns2::means(ns2::RUNS);
    for (sim, ecn, depth) in means.iter().map(|(k, _, _)| k.clone()) {
        let g = |k: &str| ns2::get(sim, &ecn, depth, k);
        let row = format!(
            "| {sim} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} | {:.1} | {:.2} | {:.3} | {:.3} | {:.2} | {:.0} |",
            label(&ecn), g("af_mean"), g("af_std"), g("af_min"), g("af_max"), g("af_below"),
            g("be_mean"), g("be_std"), g("out_in"), g("out_early"), g("out_drops"),
            g("in_drops"), g("ce_af"), g("af_rexmit")
        );
        let section = format!("## ns-2.35, bucket depth {depth} B (10 seeds)");
        let body = md.split(&section).nth(1).expect(&section);
        let body = body.split("\n## ").next().unwrap();
        assert!(body.contains(&row), "{section}: missing row\n{row}");
    }
    assert_eq!(means.len(), 12);
    let sweep = ns2::means(ns2::DEPTH_SWEEP);
    let mut by_depth: Vec<_> = sweep.iter().map(|(k, _, m)| (k.2, m[7], m[8])).collect();
    by_depth.sort_by_key(|x| x.0);
    let fmt_depth = |d: u64| {
        if d >= 1000 {
            format!("{},{:03}", d / 1000, d % 1000)
        } else {
            d.to_string()
        }
    };
    let line1 = by_depth
        .iter()
        .map(|(d, oi, _)| format!("{} B {oi:.1}%", fmt_depth(*d)))
        .collect::<Vec<_>>()
        .join("; ");
    let line2 = by_depth
        .iter()
        .map(|(_, _, e)| format!("{e:.2}"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(md.contains(&format!("{line1} (paper 31.93%).")), "{line1}");
    assert!(
        md.contains(&format!("at those depths: {line2}% (paper 2.92%).")),
        "{line2}"
    );
}
