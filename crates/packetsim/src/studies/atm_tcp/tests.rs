//! Tests of the atm-tcp study.

use super::*;

// The reduced run (checks module rule 5): the quick plan's grid without the sensitivities
// and extensions, on two disjoint seed sets of 5 seeds (so the checks are decidable), must
// not give opposite verdicts; S3 (PPD gain grows with packet size) and S5 (idle gap about
// RTOmin = 450 ms) hold in both.
#[test]
fn verdicts_agree_on_disjoint_seed_sets() {
    let run_set = |base| {
        let mut p = Plan::new(true, Some(5), base);
        p.extras = false;
        let done = execute(jobs(&p), 2).expect("runs");
        checks_all(&Ctx {
            done: &done,
            plan: &p,
        })
    };
    // The checks that hold on this grid (see report.md for the others and why).
    checks::assert_seed_sets_agree([11, 12], run_set, &["S3", "S5"], &[]);
}

// The quick plan runs and writes every file; with 2 seeds nothing is decidable.
#[test]
fn quick_plan_writes_outputs() {
    let mut p = Plan::new(true, Some(1), BASE_SEED);
    p.bg_buffers = vec![500, 2000];
    p.main_slots = 200_000;
    p.x_rto_ms = vec![100];
    let done = execute(jobs(&p), 2).expect("runs");
    let cx = Ctx {
        done: &done,
        plan: &p,
    };
    let checks = checks_all(&cx);
    assert_eq!(checks.len(), 7);
    assert!(checks.iter().all(|c| c.verdict == Verdict::NotDecidable));
    let dir = std::env::temp_dir().join(format!("packetsim-atm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    write_outputs(&dir, &cx).unwrap();
    super::super::finish(NAME, &dir, checks, None, |c| Ok(report(&cx, c))).unwrap();
    for f in [
        "report.md",
        "runs.csv",
        "efficiency.csv",
        "fig7.csv",
        "fig1.svg",
        "checks.csv",
    ] {
        assert!(dir.join(f).exists(), "{f}");
    }
    // Every record of runs.csv has the header's 16 fields: a group with a comma
    // (`sens/B=2000,T=1200/100`) is quoted (RFC 4180).
    let runs = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    let fields = |line: &str| {
        let mut quoted = false;
        1 + line
            .chars()
            .filter(|&c| {
                if c == '"' {
                    quoted = !quoted;
                }
                c == ',' && !quoted
            })
            .count()
    };
    assert!(runs.contains("\n\"sens/B=2000,T=1200/100\",100,"));
    for line in runs.lines() {
        assert_eq!(fields(line), 16, "{line}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Prints, for the main experiment's seeds (`Plan::seed(rep)`, reps 0-9; quick mode runs
/// reps 0-1), the study's statistics before it ran on the world (the driver `atm::sim` with
/// one stream, `Draws::Shared`) and on the world (`run_on_world`): load, cells lost, sender-1
/// goodput (Mb/s). Not a check: the table of docs/studies/atm-tcp.md (`--ignored
/// --nocapture`).
#[test]
#[ignore]
fn print_old_and_new_main_statistics() {
    let plan = Plan::new(false, None, BASE_SEED);
    for (rto, _, _, _) in PAPER {
        for rep in 0..10 {
            let mut c = main_cfg(&plan, rto, rep);
            c.trace_bin = 0;
            let old = sim::run(&c);
            let new = crate::scenario::run_on_world(&c).unwrap();
            let row = |r: &AtmRunResult| {
                format!(
                    "{:.6} | {} | {:.3}",
                    r.load(),
                    r.switch.dropped(),
                    thr1_bps(r) / 1e6
                )
            };
            eprintln!(
                "| {rto} | {rep} | {} | {} | {} |",
                c.seed,
                row(&old),
                row(&new)
            );
        }
    }
}
