//! Tests of the micromobility study.

use super::*;
use crate::transport::tcp::{RttEstimatorKind, SackRecoveryKind, SsthreshRule};

/// A point's id parses back to the point.
#[test]
fn point_ids_round_trip() {
    for p in Axes::new(false).points() {
        assert_eq!(Point::parse(&p.id()), Some(p));
    }
}

/// The "as ns-2.35 would" runs (issue 14): a point with `ns2` keeps its id's suffix
/// through parsing, and its TCP is the ns2 profile under the study's own keys: ns-2.35's
/// limited transmit (`singledup_`), tick estimator counting in the spec's 100 ms tick
/// (spec 5 Q9), ssthresh rule and Sack1, with the spec's RTO max 64 s and `bugFix_` kept.
#[test]
fn ns2_points_run_the_profile_under_the_studys_tcp() {
    let p = Point {
        ns2: true,
        ..Point::base(CIP, Variant::Sack)
    };
    assert!(p.id().ends_with("|ns2"), "{}", p.id());
    assert_eq!(Point::parse(&p.id()), Some(p.clone()));
    let std = tcp_config(Variant::Sack, 1000);
    let ns2 = tcp_config_ns2(Variant::Sack, 1000);
    assert!(ns2.limited_transmit && !std.limited_transmit);
    assert_eq!(ns2.rtt_estimator, RttEstimatorKind::Ns2);
    assert_eq!(ns2.tick, Dur::from_millis(100));
    assert_eq!(ns2.ssthresh_rule, SsthreshRule::Ns2);
    assert_eq!(ns2.sack_recovery, SackRecoveryKind::Sack1);
    assert!(!ns2.dupack_same_window);
    assert_eq!(
        (ns2.rto_min, ns2.rto_initial, ns2.rto_max),
        (std.rto_min, std.rto_initial, Dur::from_secs(64))
    );
    assert_eq!(ns2.recover_guard, RecoverGuard::AfterLoss);
    assert_eq!(
        (ns2.mss, ns2.initial_cwnd, ns2.rcv_window, ns2.granularity),
        (1000, 1, 20_000, Dur::from_millis(100))
    );
}

/// The reduced run: the quick axes with 6 seeds on two disjoint seed sets; the checks that
/// hold with both are asserted, and no check flips.
#[test]
fn reduced_run_checks() {
    let axes = Axes::new(true);
    let run_set = |base: u64| {
        let dir = std::env::temp_dir().join(format!("packetsim-mm-{}-{base}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = ReproduceOptions {
            out: dir.clone(),
            runs: Some(6),
            quick: true,
            jobs: 1,
            progress: false,
        };
        let r = sweep(&opts, &axes, 6, T, base, false).expect("sweep");
        let mut c = shape_checks(&r, &axes);
        explain(&mut c, &r, &axes);
        let _ = std::fs::remove_dir_all(&dir);
        c
    };
    let (a, _) = checks::assert_seed_sets_agree([BASE_SEED, 1000], run_set, &[], &[]);
    let v = |id: &str| a.iter().find(|c| c.id == id).unwrap().verdict;
    assert_eq!(v("S6"), Verdict::Holds);
}
