//! Tests of the sctp-multihoming study.

use super::*;

/// Spec 3 §5.1 on a reduced sweep (the quick figures, 4 points per curve), run on two
/// disjoint seed sets of 10 paired runs each (issue 18): a verdict may be "not decidable"
/// in one set, but never "holds" in one and "does not hold" in the other. The checks that
/// rest on large effects must hold in both, and S2 (single-homed SCTP slower than SACK)
/// must fail in both: single-homed SCTP is significantly faster here.
#[test]
fn shape_check_verdicts_agree_on_disjoint_seed_sets() {
    let run_set = |base_seed: u64| super::super::shape::seed_set(&Sctp, 10, true, base_seed);
    let (a, _) = super::checks::assert_seed_sets_agree(
        [BASE_SEED, BASE_SEED + 1000],
        run_set,
        &["baseline", "S5", "S6", "S9", "S11"],
        &["S2"],
    );
    let paper = a.iter().filter(|c| c.kind == checks::Kind::Paper).count();
    assert_eq!(paper, 15, "the paper's S1-S15");
}

#[test]
fn csv_labels_with_commas_are_quoted() {
    assert_eq!(csv_field("RTX_SAME"), "RTX_SAME");
    assert_eq!(
        csv_field("RTX_TO_ALT, primary 4%"),
        "\"RTX_TO_ALT, primary 4%\""
    );
    assert_eq!(csv_field("a \"b\", c"), "\"a \"\"b\"\", c\"");
}

#[test]
fn axes_write_the_overrides_the_scenarios_understand() {
    assert_eq!(
        Axis::BandwidthRatio.overrides(0.25),
        vec![(
            "links.path1_core.rate".to_string(),
            "\"500000bps\"".to_string()
        )]
    );
    let d = Axis::DelayRatio.overrides(2.0);
    assert_eq!(
        d[1],
        ("links.path1_core.delay".into(), "\"30000us\"".into())
    );
    // Every override of every figure loads.
    for fig in figures(false) {
        for c in &fig.curves {
            for &x in &fig.xs {
                if let Err(e) = point_scenario(&fig, c, x) {
                    panic!("{} {} x={x}: {e}", fig.dir, c.id);
                }
            }
        }
    }
}
