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

/// The reduced run: the quick axes with 6 seeds on two disjoint seed sets (the driver's
/// seed sets, `shape::seed_set`); the checks that hold with both are asserted, and no check
/// flips.
#[test]
fn reduced_run_checks() {
    let run_set = |base: u64| shape::seed_set(&Micromobility, 6, true, base);
    let (a, _) = checks::assert_seed_sets_agree([BASE_SEED, 1000], run_set, &[], &[]);
    let v = |id: &str| a.iter().find(|c| c.id == id).unwrap().verdict;
    assert_eq!(v("S6"), Verdict::Holds);
}

/// Spec 5's sensitivities are judged on their own runs (issue 34 item 5): each reads the runs
/// of its changed assumption filed under the default points, with the paper's tolerance, and
/// is a check of kind sensitivity. Here only the 50 ms gap's CIP runs lose 40% at H >= 7: S5
/// with the gap holds, S5 under Q9's TCP (same throughput at every H) does not, and the
/// paper's own S5 on the default runs does not either. A quick grid has no sensitivity runs
/// and no sensitivity checks.
#[test]
fn sensitivities_are_judged_on_their_own_runs() {
    let axes = Axes::new(false);
    let mut runs = BTreeMap::new();
    for p in axes.points() {
        let cut = p.gap_ms == 50 && p.protocol == CIP && p.h >= 7;
        let thr = |s: u64| if cut { 600.0 } else { 1000.0 } + s as f64;
        let series = (1..=6).map(|s| (s, thr(s))).collect();
        runs.insert(p.id(), vec![("thr_kbps".to_string(), series)]);
    }
    let r = Results { runs };
    let sens = sensitivity_checks(&r, &axes);
    assert_eq!(sens.len(), 2 + 3 + 4 + 2 + 1 + 1 + 1);
    assert!(sens.iter().all(|c| c.kind == checks::Kind::Sensitivity));
    let get = |id: &str| {
        sens.iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no check {id}"))
    };
    let gap = get("S5, 50 ms layer-2 gap");
    assert_eq!(gap.verdict, Verdict::Holds, "{}", gap.measured);
    assert!(
        gap.measured.starts_with("drop H=4→7: 39."),
        "{}",
        gap.measured
    );
    assert_eq!(get("S5, Q9 TCP").verdict, Verdict::DoesNotHold);
    assert_eq!(get("S6, 50 ms layer-2 gap").verdict, Verdict::Holds);
    let paper = shape_checks(&r, &axes);
    let s5 = paper.iter().find(|c| c.id == "S5").unwrap();
    assert_eq!(s5.verdict, Verdict::DoesNotHold);
    assert!(sensitivity_checks(&r, &Axes::new(true)).is_empty());
}

/// Cellular IP semisoft's delay device (issue 34 item 3): on the radio it is the Cellular IP
/// papers' fixed delay S on the new path at the crossover (`crossover_delay`), with the
/// ideal device at the new base station (spec 5 §2.3) as MM-X3's `ideal_device` option and
/// under Q2's simplification; `delay_device = false` (MM-X3's "no delay device") has neither.
#[test]
fn the_radio_delays_the_new_path_at_the_crossover_unless_the_ideal_device_is_asked_for() {
    let base = Point::base(CIP, Variant::Sack);
    let device = |p: &Point| {
        let c = point_config(p);
        (c.delay_device, c.crossover_delay)
    };
    let s = Some(Dur::from_millis(100));
    assert_eq!(device(&base), (false, s));
    let ideal = Point {
        ideal_device: true,
        ..base.clone()
    };
    assert!(ideal.id().ends_with("|ideal"), "{}", ideal.id());
    assert_eq!(device(&ideal), (true, None));
    assert_eq!(
        device(&Point {
            q2: true,
            ..base.clone()
        }),
        (true, None)
    );
    let none = Point {
        delay_device: false,
        ..base
    };
    assert_eq!(device(&none), (false, None));
}
