//! The data-centre scenario (issue 17): a leaf-spine with Poisson web-search arrivals, DCTCP
//! with step marking against CUBIC with FQ-CoDel, shortened to half a second.

use super::scenarios_dir;
use packetsim::report::fct::FctBucket;
use packetsim::report::Summary;
use packetsim::scenario::{self, Override};

/// Runs `scenarios/workloads/leaf-spine-NAME.toml` for 0.5 s at seed 1.
fn leaf_spine(name: &str) -> Summary {
    let path = scenarios_dir().join(format!("workloads/leaf-spine-{name}.toml"));
    let ovs: Vec<Override> = vec!["simulation.duration=\"0.5s\"".parse().unwrap()];
    let sc = scenario::load_file(&path, &ovs).unwrap_or_else(|e| panic!("{e}"));
    let out = scenario::run(&sc, 1).unwrap();
    for e in &out.world.net.egresses {
        e.check_conservation().unwrap();
    }
    out.summary
}

/// Bucket `i` over every workload (summary.json `fct_all`): (completed, p99 FCT).
fn bucket(s: &Summary, i: usize) -> (u64, Option<f64>) {
    let fct = s.fct.as_ref().expect("a Poisson workload writes fct");
    assert_eq!(fct.len(), 32, "one workload per (sender, receiver) pair");
    let all = s.fct_all.as_ref().expect("more than one workload");
    assert_eq!(all.flows, fct.values().map(|w| w.flows).sum::<u64>());
    let b: &FctBucket = &all.by_size.0[i];
    (b.completed, b.p99_fct_s)
}

/// Sum of a queue counter over every port.
fn total(s: &Summary, f: impl Fn(&packetsim::report::QueueSummary) -> u64) -> u64 {
    s.queues.values().map(f).sum()
}

// RFC 8257 §3.1 and Alizadeh et al. 2010 §3: DCTCP senders with switches that mark above
// K = 20 keep every port's queue short by marks, not drops. Through FQ-CoDel (no ECN) CUBIC
// is held back by CoDel's drops instead. Both runs complete short flows (under 10 KB)
// without waiting for a retransmission timeout (the initial RTO is 1 s; these finish within
// a few milliseconds).
#[test]
fn leaf_spine_dctcp_marks_where_cubic_fq_codel_drops() {
    let d = leaf_spine("dctcp");
    let c = leaf_spine("cubic-fqcodel");
    let early = |s: &Summary| s.drops.get("early").copied().unwrap_or(0);
    eprintln!(
        "dctcp marks {} drops {:?}; cubic marks {} drops {:?}",
        total(&d, |q| q.marks),
        d.drops,
        total(&c, |q| q.marks),
        c.drops
    );
    // DCTCP: marks, and no early drop (SYNs and ACKs pass the step unmarked).
    assert!(total(&d, |q| q.marks) > 1000);
    assert_eq!(early(&d), 0, "{:?}", d.drops);
    // CUBIC + FQ-CoDel: no ECN, so CoDel drops.
    assert_eq!(total(&c, |q| q.marks), 0);
    assert!(early(&c) > 100, "{:?}", c.drops);
    // DCTCP holds every port's mean queue under K.
    for (name, q) in &d.queues {
        assert!(q.mean_len_pkts < 20.0, "{name}: mean {}", q.mean_len_pkts);
    }
    // Short flows complete in both, in milliseconds.
    for (s, what) in [(&d, "dctcp"), (&c, "cubic")] {
        let (done, p99) = bucket(s, 0);
        eprintln!("{what}: under_10KB completed {done}, p99 {p99:?}");
        assert!(done >= 10, "{what}: {done} short flows completed");
        let p99 = p99.unwrap();
        assert!(p99 > 0.0 && p99 < 0.05, "{what}: p99 FCT {p99} s");
    }
}
