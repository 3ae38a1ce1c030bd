//! Spec 4 §5.1's claims S1-S10 and §5.2's numbers N1-N2 as checks, one function per claim.

use super::*;

pub(super) const WELCH: &str =
    "paired difference between scenarios over their shared seeds (common \
                     random numbers; 95% t CI)";
/// "Higher / raises / improves" goodput: at least 0.5% (3.4 kb/s at 680 kb/s), the smallest
/// change the paper's kb/s bar charts and its one-decimal numbers would show as a gain.
pub(super) const GAIN: f64 = 0.005;
/// "Clearly improves" goodput: at least 1%.
pub(super) const CLEAR_GAIN: f64 = 0.01;
/// "Improves / worsens fairness" (std dev of goodput): a change of at least 10%.
pub(super) const FAIR: f64 = 0.10;
/// "Markedly" / "clearly" for the std dev: a change of at least 25%.
pub(super) const MARKED: f64 = 0.25;

/// A count that must be zero in every run: not decidable under [`checks::MIN_RUNS`] runs.
pub(super) fn zero_in_every_run(xs: &[f64]) -> Verdict {
    if xs.len() < checks::MIN_RUNS {
        Verdict::NotDecidable
    } else if xs.iter().all(|&x| x == 0.0) {
        Verdict::Holds
    } else {
        Verdict::DoesNotHold
    }
}

pub(super) fn rel(x: f64, of: f64) -> f64 {
    x * of.abs()
}

/// The range [lo, hi] as a tolerance.
pub(super) fn range(lo: f64, hi: f64, reason: &str) -> Tolerance {
    Tolerance {
        lo,
        hi,
        reason: reason.into(),
    }
}

/// Spec 4 §5.1's claims S1-S10 and §5.2's numbers N1-N2, judged on `r`.
pub(super) fn shape_checks(r: &Results) -> Vec<Check> {
    [s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, n1, n2]
        .iter()
        .map(|claim| claim(r))
        .collect()
}

/// ECN to BE against ECN to AF in simulation `sim`: BE's std dev drop, BE's mean gain, AF's
/// std dev rise (paired).
pub(super) fn ecn_be(r: &Results, sim: u32) -> (Estimate, Estimate, Estimate) {
    let d = |s, a, b, k| r.diff(s, a, b, k);
    (
        d(sim, "af", "afbe", "be_std_kbps"),
        d(sim, "afbe", "af", "be_mean_kbps"),
        d(sim, "afbe", "af", "af_std_kbps"),
    )
}

/// S1 (Sim 1, Fig 2): 'ecn to AF' raises the AF mean goodput.
pub(super) fn s1(r: &Results) -> Check {
    let m = |s, e, k| r.m(s, e, k);
    let est = |s, e, k| r.est(s, e, k);
    let d = |s, a, b, k| r.diff(s, a, b, k);
    let g1 = d(1, "af", "none", "af_mean_kbps");
    Check::new(
        "S1",
        "Sim 1 (Fig 2): 'ecn to AF' gives higher average AF goodput than 'no ecn'",
        "\"higher\": by at least 0.5% of the no-ECN mean (the smallest gain the paper's kb/s \
         figures show)",
        WELCH,
        format!(
            "AF mean {} -> {} kb/s; difference {} kb/s",
            est(1, "none", "af_mean_kbps").show(1),
            est(1, "af", "af_mean_kbps").show(1),
            g1.show(2)
        ),
        exceeds(&g1, rel(GAIN, m(1, "none", "af_mean_kbps"))),
    )
}

/// S2 (Sim 1, Fig 2): ECN lowers the AF std dev markedly, raises the worst flow, lowers the best.
pub(super) fn s2(r: &Results) -> Check {
    let m = |s, e, k| r.m(s, e, k);
    let est = |s, e, k| r.est(s, e, k);
    let d = |s, a, b, k| r.diff(s, a, b, k);
    let std_drop = d(1, "none", "af", "af_std_kbps");
    let min_up = d(1, "af", "none", "af_min_kbps");
    let max_down = d(1, "none", "af", "af_max_kbps");
    Check::new(
        "S2",
        "Sim 1 (Fig 2): the std dev of AF goodput drops markedly with ECN; the minimum flow \
         goes up and the maximum flow comes down",
        "\"markedly\": the std dev falls by at least 25%; min and max: significant moves in the \
         stated directions (no size given)",
        &format!("{WELCH}; per-run population std dev, min and max over the AF flows"),
        format!(
            "std {} -> {}; min {} -> {}; max {} -> {} kb/s",
            est(1, "none", "af_std_kbps").show(1),
            est(1, "af", "af_std_kbps").show(1),
            est(1, "none", "af_min_kbps").show(1),
            est(1, "af", "af_min_kbps").show(1),
            est(1, "none", "af_max_kbps").show(1),
            est(1, "af", "af_max_kbps").show(1)
        ),
        all(&[
            exceeds(&std_drop, rel(MARKED, m(1, "none", "af_std_kbps"))),
            exceeds(&min_up, 0.0),
            exceeds(&max_down, 0.0),
        ]),
    )
}

/// S3 (Sim 1): the worst AF flow below its share without ECN, above it with ECN.
pub(super) fn s3(r: &Results) -> Check {
    let est = |s, e, k| r.est(s, e, k);
    let share1 = 2000.0 / 3.0;
    Check::new(
        "S3",
        "Sim 1: in 'no ecn' the worst AF flow ends below the 666.7 kb/s share (2000/3); with \
         ECN the worst flow ends above it",
        "the CI of the mean per-run minimum entirely below / above 666.7 kb/s (wire level, spec \
         4 Q4)",
        "mean over seeds of the per-run minimum AF goodput, 95% CI",
        format!(
            "worst flow {} / {} kb/s",
            est(1, "none", "af_min_kbps").show(1),
            est(1, "af", "af_min_kbps").show(1)
        ),
        all(&[
            below(&est(1, "none", "af_min_kbps"), share1),
            above(&est(1, "af", "af_min_kbps"), share1),
        ]),
    )
}

/// S4 (Sim 1, Figs 3-4): ECN for BE as well helps BE and harms AF's fairness.
pub(super) fn s4(r: &Results) -> Check {
    let m = |s, e, k| r.m(s, e, k);
    let est = |s, e, k| r.est(s, e, k);
    let (be_fair1, be_gain1, af_harm1) = ecn_be(r, 1);
    Check::new(
        "S4",
        "Sim 1 (Figs 3-4): ECN for BE as well ('ecn to AF, BE') clearly improves BE fairness \
         and BE average goodput, but makes AF fairness worse than 'ecn to AF'",
        "\"clearly\": BE std dev down by at least 25% and BE mean up by at least 1%; AF \
         fairness worse: AF std dev up by at least 10%",
        WELCH,
        format!(
            "BE std {} -> {}, BE mean {} -> {} kb/s (difference {}), AF std {} -> {}",
            est(1, "af", "be_std_kbps").show(1),
            est(1, "afbe", "be_std_kbps").show(1),
            est(1, "af", "be_mean_kbps").show(2),
            est(1, "afbe", "be_mean_kbps").show(2),
            be_gain1.show(2),
            est(1, "af", "af_std_kbps").show(1),
            est(1, "afbe", "af_std_kbps").show(1)
        ),
        all(&[
            exceeds(&be_fair1, rel(MARKED, m(1, "af", "be_std_kbps"))),
            exceeds(&be_gain1, rel(CLEAR_GAIN, m(1, "af", "be_mean_kbps"))),
            exceeds(&af_harm1, rel(FAIR, m(1, "af", "af_std_kbps"))),
        ]),
    )
}

/// S5 (Sim 1, Table 3): OUT/IN highest without ECN.
pub(super) fn s5(r: &Results) -> Check {
    let est = |s, e, k| r.est(s, e, k);
    let d = |s, a, b, k| r.diff(s, a, b, k);
    Check::new(
        "S5",
        "Sim 1 (Table 3): without ECN the OUT/IN ratio is the highest of the three scenarios",
        "an ordering (no size given): 'no ecn' significantly above each ECN scenario",
        WELCH,
        SCENARIOS
            .iter()
            .map(|(k, l)| format!("{l}: {}%", est(1, k, "out_in_pct").show(1)))
            .collect::<Vec<_>>()
            .join(", "),
        all(&[
            exceeds(&d(1, "none", "af", "out_in_pct"), 0.0),
            exceeds(&d(1, "none", "afbe", "out_in_pct"), 0.0),
        ]),
    )
}

/// S6 (Sim 1, Table 3): no IN drop or mark; early drops without ECN, more marks and far fewer drops with it.
pub(super) fn s6(r: &Results) -> Check {
    let est = |s, e, k| r.est(s, e, k);
    let d = |s, a, b, k| r.diff(s, a, b, k);
    let in_runs: Vec<f64> = SCENARIOS
        .iter()
        .flat_map(|(k, _)| {
            ["in_forced_pct", "in_early_pct", "in_ce_pct"]
                .iter()
                .flat_map(|metric| r.vals(1, k, metric))
                .collect::<Vec<_>>()
        })
        .collect();
    let in_runs_ok = if SCENARIOS
        .iter()
        .all(|(k, _)| r.vals(1, k, "in_forced_pct").len() >= checks::MIN_RUNS)
    {
        zero_in_every_run(&in_runs)
    } else {
        Verdict::NotDecidable
    };
    let mark_over_early = d(1, "af", "none", "out_ce_pct").mean;
    let half_early: Vec<(u64, f64)> = r
        .seeded(1, "none", "out_early_pct")
        .iter()
        .map(|&(s, x)| (s, x / 2.0))
        .collect();
    let much_lower = Estimate::difference(&half_early, &r.seeded(1, "af", "out_forced_pct"));
    Check::new(
        "S6",
        "Sim 1 (Table 3): no IN packet is ever dropped or marked; 'no ecn' has early drops but \
         no forced drops; with ECN the marking ratio is higher than the no-ECN early-drop ratio, \
         yet the total drop ratio (forced only) is much lower",
        "\"no\"/\"never\": zero in every run; early drops: mean significantly above 0; \
         \"higher\": significant (no size given); \"much lower\": at most half the no-ECN \
         early-drop ratio, significantly",
        &format!("counts per run; {WELCH}"),
        format!(
            "IN drops/marks nonzero in {} of {} runs; no ecn early {}%, forced {}%; ecn to AF CE \
             {}%, forced {}% (CE − early {:.2} points)",
            in_runs.iter().filter(|&&x| x != 0.0).count(),
            in_runs.len() / 3,
            est(1, "none", "out_early_pct").show(2),
            est(1, "none", "out_forced_pct").show(3),
            est(1, "af", "out_ce_pct").show(2),
            est(1, "af", "out_forced_pct").show(3),
            mark_over_early
        ),
        all(&[
            in_runs_ok,
            above(&est(1, "none", "out_early_pct"), 0.0),
            zero_in_every_run(&r.vals(1, "none", "out_forced_pct")),
            exceeds(&d(1, "af", "none", "out_ce_pct"), 0.0),
            exceeds(&much_lower, 0.0),
        ]),
    )
}

/// S7 (Sim 2, Fig 5): AF flows below the 333.3 kb/s share, without and with ECN.
pub(super) fn s7(r: &Results) -> Check {
    let est = |s, e, k| r.est(s, e, k);
    Check::new(
        "S7",
        "Sim 2 (Fig 5): in 'no ecn' four of the six AF flows get less than 333.3 kb/s; in 'ecn \
         to AF' every flow except one (AF4) gets at least 333.3 kb/s",
        "spec 4 Q8: flow identities depend on seeds, so counted per run: 'no ecn' at least 2 \
         (\"several\"), 'ecn to AF' at most 1; the CI of the mean count inside those ranges",
        "mean over seeds of the per-run count of AF flows below 333.3 kb/s, 95% CI",
        format!(
            "flows below the share per run: {} / {}",
            est(2, "none", "af_below_share").show(2),
            est(2, "af", "af_below_share").show(2)
        ),
        all(&[
            checks::within(&est(2, "none", "af_below_share"), &range(2.0, 6.0, "")),
            checks::within(&est(2, "af", "af_below_share"), &range(0.0, 1.0, "")),
        ]),
    )
}

/// S8 (Sim 2, Figs 5-6): ECN raises the AF mean; the AF std dev does not improve.
pub(super) fn s8(r: &Results) -> Check {
    let m = |s, e, k| r.m(s, e, k);
    let est = |s, e, k| r.est(s, e, k);
    let d = |s, a, b, k| r.diff(s, a, b, k);
    let g2 = d(2, "af", "none", "af_mean_kbps");
    let std2 = d(2, "none", "af", "af_std_kbps");
    let rg = |sim: u32| m(sim, "af", "af_mean_kbps") / m(sim, "none", "af_mean_kbps") - 1.0;
    Check::new(
        "S8",
        "Sim 2 (Figs 5-6): ECN raises AF average goodput (soft, spec 4 Q9: by relatively more \
         than in Sim 1); the AF std dev does not improve and may be slightly higher",
        "raises: by at least 0.5% (as S1); \"does not improve\": any fall of the std dev below \
         10% (the fairness threshold), significantly; the soft part is reported, not judged \
         (Q9)",
        WELCH,
        format!(
            "AF mean difference {} kb/s (gain {:.2}%, Sim 1 {:.2}%); AF std {} -> {} kb/s",
            g2.show(2),
            100.0 * rg(2),
            100.0 * rg(1),
            est(2, "none", "af_std_kbps").show(1),
            est(2, "af", "af_std_kbps").show(1)
        ),
        all(&[
            exceeds(&g2, rel(GAIN, m(2, "none", "af_mean_kbps"))),
            below(&std2, rel(FAIR, m(2, "none", "af_std_kbps"))),
        ]),
    )
}

/// S9 (Sim 2, Figs 8-9): ECN for BE helps BE; its harm to AF much smaller than in Sim 1.
pub(super) fn s9(r: &Results) -> Check {
    let m = |s, e, k| r.m(s, e, k);
    let est = |s, e, k| r.est(s, e, k);
    let (_, _, af_harm1) = ecn_be(r, 1);
    let (be_fair2, be_gain2, af_harm2) = ecn_be(r, 2);
    let smaller = Estimate::combine(&[(0.5, af_harm1), (-1.0, af_harm2)], "combined");
    Check::new(
        "S9",
        "Sim 2 (Figs 8-9): as in Sim 1, ECN for BE improves BE fairness and goodput; the harm to \
         AF (its std dev rising) is much smaller than in Sim 1",
        "BE std dev down by at least 10%, BE mean up by at least 0.5%; \"much smaller\": the AF \
         std rise at most half Sim 1's, significantly",
        &format!("{WELCH}; harm comparison: combination of the two independent differences"),
        format!(
            "BE std {} -> {}, BE mean difference {} kb/s; AF std rise {} (Sim 1 {})",
            est(2, "af", "be_std_kbps").show(1),
            est(2, "afbe", "be_std_kbps").show(1),
            be_gain2.show(2),
            af_harm2.show(1),
            af_harm1.show(1)
        ),
        all(&[
            exceeds(&be_fair2, rel(FAIR, m(2, "af", "be_std_kbps"))),
            exceeds(&be_gain2, rel(GAIN, m(2, "af", "be_mean_kbps"))),
            exceeds(&smaller, 0.0),
        ]),
    )
}

/// S10 (Sim 2, Table 4): IN forced drops in every scenario; OUT/IN above Sim 1's.
pub(super) fn s10(r: &Results) -> Check {
    let est = |s, e, k| r.est(s, e, k);
    let mut p10 = Vec::new();
    for (k, _) in SCENARIOS {
        p10.push(above(&est(2, k, "in_forced_pct"), 0.0));
        p10.push(exceeds(
            &Estimate::welch(&r.vals(2, k, "out_in_pct"), &r.vals(1, k, "out_in_pct")),
            0.0,
        ));
    }
    Check::new(
        "S10",
        "Sim 2 (Table 4): IN packets suffer forced drops in all three scenarios; OUT/IN ratios \
         are higher than in Sim 1 in every scenario",
        "IN forced drop ratio significantly above 0 in each scenario; OUT/IN Sim 2 − Sim 1 \
         significantly positive in each (no size given)",
        "mean over seeds, 95% CI; Welch for Sim 2 − Sim 1",
        SCENARIOS
            .iter()
            .map(|(k, l)| {
                format!(
                    "{l}: IN forced {}%, OUT/IN {}% (Sim 1 {}%)",
                    est(2, k, "in_forced_pct").show(3),
                    est(2, k, "out_in_pct").show(1),
                    est(1, k, "out_in_pct").show(1)
                )
            })
            .collect::<Vec<_>>()
            .join("; "),
        all(&p10),
    )
}

/// N1 (spec 4 §5.2): Tables 3-4's OUT/IN ratios within ±25%.
pub(super) fn n1(r: &Results) -> Check {
    let (pn1, shown) = printed_values(r, "out_in_pct", &[1, 2], 1);
    Check::new(
        "N1",
        "Tables 3-4: OUT/IN ratios of 31.93 / 27.88 / 27.75% (Sim 1) and 39.02 / 32.86 / 32.8% \
         (Sim 2)",
        "spec 4 §5.2: within ±25% relative of each printed value (the ordering is S5)",
        "mean over seeds, 95% CI",
        shown.join("; "),
        all(&pn1),
    )
}

/// N2 (spec 4 §5.2): Sim 1's minimum and maximum AF goodputs within ±5%.
pub(super) fn n2(r: &Results) -> Check {
    let est = |s, e, k| r.est(s, e, k);
    let mut pn2 = Vec::new();
    let mut shown = Vec::new();
    for (k, metric, p) in [
        ("none", "af_min_kbps", 660.7),
        ("af", "af_min_kbps", 669.6),
        ("af", "af_max_kbps", 691.7),
    ] {
        let e = est(1, k, metric);
        pn2.push(checks::within(&e, &range(0.95 * p, 1.05 * p, "")));
        shown.push(format!("{k} {metric}: {} (paper {p})", e.show(1)));
    }
    Check::new(
        "N2",
        "Sim 1: minimum AF flow goodput 660.7 kb/s without ECN and 669.6 kb/s with it; maximum \
         with ECN 691.7 kb/s",
        "spec 4 §5.2: within ±5% of each printed value (wire level, spec 4 Q4)",
        "mean over seeds of the per-run minimum / maximum, 95% CI",
        shown.join("; "),
        all(&pn2),
    )
}
