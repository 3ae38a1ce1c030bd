//! Tests of the atm-tcp study.

use super::config::AtmNetConfig;
use super::*;
use crate::atm::Discard;
use crate::studies::checks::{self, Verdict};
use packetsim_kernel::Dur;

#[path = "tests_network.rs"]
mod tests_network;

/// The quick plan without the sensitivities and extensions.
fn checks_only(p: &mut Plan) {
    p.extras = false;
}

// The reduced run (checks module rule 5): the quick plan's grid without the sensitivities
// and extensions, on two disjoint seed sets of 5 seeds (so the checks are decidable), must
// not give opposite verdicts; S3 (PPD gain grows with packet size) and S5 (idle gap about
// RTOmin = 450 ms) hold in both.
#[test]
fn verdicts_agree_on_disjoint_seed_sets() {
    let study = AtmTcp {
        adjust: checks_only,
    };
    let run_set = |base| super::super::shape::seed_set(&study, 5, true, base);
    // The checks that hold on this grid (see report.md for the others and why).
    checks::assert_seed_sets_agree([11, 12], run_set, &["S3", "S5"], &[]);
}

/// A small plan: 2 buffers, 200,000-slot main runs, one RTOmin in X1/X2.
fn small(p: &mut Plan) {
    p.bg_buffers = vec![500, 2000];
    p.main_slots = 200_000;
    p.x_rto_ms = vec![100];
}

fn files(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

// A small plan runs through the driver and writes every file; with 1 seed nothing is
// decidable. Run again into the same folder, it takes every run from the results store
// (each sweep's results.sqlite) and writes the same CSVs and figures.
#[test]
fn small_plan_writes_outputs_and_resumes_from_the_store() {
    let dir = std::env::temp_dir().join(format!("packetsim-atm-{}", std::process::id()));
    let opts = ReproduceOptions {
        out: dir.clone(),
        runs: Some(1),
        quick: true,
        jobs: 2,
        progress: false,
    };
    let study = AtmTcp { adjust: small };
    super::super::shape::drive(&study, &opts).unwrap();
    let root = dir.join(NAME);
    let checks = std::fs::read_to_string(root.join("checks.csv")).unwrap();
    assert_eq!(checks.lines().count(), 8, "S1-S7");
    for f in [
        "report.md",
        "runs.csv",
        "efficiency.csv",
        "fig7.csv",
        "fig1.svg",
        "checks.csv",
        "sweeps/main/results.sqlite",
        "sweeps/e/results.csv",
    ] {
        assert!(root.join(f).exists(), "{f}");
    }
    let first = files(&root);
    // Every record of runs.csv has the header's 16 fields: a group with a comma
    // (`sens/B=2000,T=1200/100`) is quoted (RFC 4180).
    let runs = std::fs::read_to_string(root.join("runs.csv")).unwrap();
    let mut rd = csv::Reader::from_reader(runs.as_bytes());
    assert_eq!(rd.headers().unwrap().len(), 16);
    for r in rd.records() {
        assert_eq!(r.unwrap().len(), 16);
    }
    assert!(runs.contains("\n\"sens/B=2000,T=1200/100\",100,"));
    // Resumed: the same files from the stored runs.
    std::fs::remove_file(root.join("runs.csv")).unwrap();
    super::super::shape::drive(&study, &opts).unwrap();
    let again = files(&root);
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&again), names(&first));
    for (a, b) in first.iter().zip(&again) {
        if a.0 != "report.md" {
            assert!(a.1 == b.1, "{} differs after resuming", a.0);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

// Every check is "not decidable" with one seed (the quick run's checks stay honest).
#[test]
fn one_seed_decides_nothing() {
    let study = AtmTcp {
        adjust: |p| {
            small(p);
            checks_only(p);
        },
    };
    let checks = super::super::shape::seed_set(&study, 1, true, 3);
    assert_eq!(checks.len(), 7);
    assert!(checks.iter().all(|c| c.verdict == Verdict::NotDecidable));
}

// A run's statistics come back from the store's metrics as they were: every field the
// study reads (the switch's counters, per connection, idle gaps, trace).
#[test]
fn a_runs_statistics_survive_the_store() {
    let mut c = AtmNetConfig::paper(Dur::from_millis(100));
    c.slots = 100_000;
    c.trace_slots = 20_000;
    let r = run_on_world(&c).unwrap();
    assert!(!r.idle_gaps.is_empty() && r.trace.len() == 40);
    // Through the store's form: f64 values read back.
    let m: Vec<(String, Option<f64>)> = record::metrics(&r);
    let back = record::from_metrics(&m);
    assert_eq!(
        (back.slots, back.slot, back.switch),
        (r.slots, r.slot, r.switch)
    );
    let key = |r: &config::AtmRunResult| -> Vec<[u64; 5]> {
        r.conns
            .iter()
            .map(|k| {
                [
                    k.delivered,
                    k.delivered_after_warmup,
                    k.retransmits,
                    k.timeouts,
                    k.spurious,
                ]
            })
            .collect()
    };
    assert_eq!(key(&back), key(&r));
    assert_eq!(back.idle_gaps, r.idle_gaps);
    assert_eq!(back.trace, r.trace);
    // The packet switch emulation of Fig. 1 is a discard policy of the same link.
    assert_eq!(plan::policy("packet", 500), Discard::Packet);
}
