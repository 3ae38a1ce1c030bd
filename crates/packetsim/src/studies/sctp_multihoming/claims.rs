//! Spec 3 §5.1's claims S1-S15 and the zero-loss baseline as checks, one function per claim.

use super::*;

/// Evaluates the shape checks of spec 3 §5.1 on the figures' results.
pub(super) fn shape_checks(figs: &[Results]) -> Vec<Check> {
    let f = |dir: &str| figs.iter().find(|r| r.spec.dir == dir);
    let (Some(f2), Some(f3), Some(f4), Some(f5), Some(f6)) =
        (f("fig2"), f("fig3"), f("fig4"), f("fig5"), f("fig6"))
    else {
        return Vec::new();
    };
    vec![
        baseline(f2),
        s1(f2),
        s2(f2),
        s3(f2),
        s4(f2),
        s5(f3),
        s6(f3),
        s7(f4),
        s8(f4),
        s9(f4),
        s10(f4),
        s11(f4),
        s12(f5),
        s13(f6),
        s14(f5, f6),
        s15(f4, f6),
    ]
}

/// The zero-loss baseline (spec 3 §5.2).
fn baseline(f2: &Results) -> Check {
    let (r0, s0) = (f2.est("tcp_reno", 0.0), f2.est("sctp_single", 0.0));
    let tol_tcp = Tolerance {
        lo: 17.24,
        hi: 17.9,
        reason: String::new(),
    };
    let tol_sctp = Tolerance {
        lo: 17.33,
        ..tol_tcp.clone()
    };
    Check::new(
        "baseline",
        "at 0% loss: serialisation alone is 17.24 s (TCP) and 17.33 s (SCTP); about 17.3-17.5 s \
         plus slow start",
        "TCP in [17.24, 17.9] s, SCTP in [17.33, 17.9] s: the serialisation time is a hard \
         floor; slow start from 1-2 packets to the ~14-packet pipe takes about 4 round trips of \
         ~80 ms, so at most 0.4 s above the spec's 17.5 s",
        "mean over runs (all runs identical at 0% loss), 95% CI",
        format!(
            "TCP Reno {} s, SCTP single-homed {} s",
            r0.show(3),
            s0.show(3)
        ),
        all(&[
            checks::within(&r0, &tol_tcp),
            checks::within(&s0, &tol_sctp),
        ]),
    )
}

/// S1 (Figure 2): the order above 0.5% loss, and the gaps widening.
fn s1(f2: &Results) -> Check {
    let (v, m) = s1_verdict(f2, "sctp_multi", "sctp_single");
    Check::new(
        "S1",
        "for path0 loss > 0.5%: SCTP multihomed < TCP SACK < SCTP single-homed < TCP Reno, and \
         the gaps widen as loss grows",
        "an ordering (no size given): each gap significantly above zero at every point above \
         0.5%; widening: the Reno − multihomed gap significantly larger at the last point than \
         at the first",
        &format!("{PAIRED}; widening: difference of two independent paired estimates"),
        m,
        v,
    )
}

/// S2 (Figure 2): single-homed SCTP slower than TCP SACK at 0.5-1%.
fn s2(f2: &Results) -> Check {
    let (v, m) = s2_verdict(f2, "sctp_single");
    Check::new(
        "S2",
        "loss 0.5-1%: single-homed SCTP is slower than TCP SACK",
        "no size given: significantly slower at every point in 0.5-1%",
        PAIRED,
        m,
        v,
    )
}

/// S3 (Figure 2): TCP a little faster than SCTP at 0% and 0.1%.
fn s3(f2: &Results) -> Check {
    let (v, m) = s3_verdict(f2, "sctp_multi", "sctp_single");
    Check::new(
        "S3",
        "at 0% and 0.1% loss both TCP variants finish a little faster than both SCTP variants",
        "each SCTP curve significantly slower than each TCP; \"a little\": by less than 5% of \
         the TCP time (the paper's cause, 8 B more header per packet, is worth 0.5%)",
        PAIRED,
        m,
        v,
    )
}

/// S4 (Figure 2): the multihomed gain comes from retransmissions on the alternate.
fn s4(f2: &Results) -> Check {
    let x4 = *f2.spec.xs.last().unwrap_or(&1.0);
    let gain = f2.diff("sctp_single", "sctp_multi", x4);
    let rtx1 = Estimate::mean(&values(f2.diag_samples(
        "sctp_multi",
        x4,
        "paths.1.retransmitted_chunks",
    )));
    Check::new(
        "S4",
        "multihomed SCTP gains because its retransmissions travel on the loss-free alternate",
        "the gain significantly above zero at the highest Figure 2 loss, and a nonzero number \
         of chunks retransmitted on path1 (the mechanism)",
        &format!("{PAIRED}; mean path1 retransmitted chunks per run"),
        format!(
            "at {x4}%: single − multihomed {} s; {} chunks per run retransmitted on path1",
            gain.show(2),
            rtx1.show(1)
        ),
        all(&[exceeds(&gain, 0.0), above(&rtx1, 0.0)]),
    )
}

/// S5 (Figure 3): both SCTP variants far faster than both TCPs as loss grows.
fn s5(f3: &Results) -> Check {
    let (v, m) = s5_verdict(f3, ["tcp_reno", "tcp_sack"]);
    Check::new(
        "S5",
        "as loss grows both SCTP variants are far faster than both TCP variants (single-homed \
         too: the gain is SCTP's congestion control)",
        "each SCTP curve significantly faster than each TCP at every loss >= 4% (where the \
         spec's Fig 3 discussion starts); \"far\": by at least 10% of the TCP time at the \
         highest loss",
        PAIRED,
        m,
        v,
    )
}

/// S6 (Figure 3): multihomed clearly faster than single-homed above 4%.
fn s6(f3: &Results) -> Check {
    let over4: Vec<f64> = f3.spec.xs.iter().copied().filter(|&x| x > 4.0).collect();
    let d6: Vec<(f64, Estimate)> = over4
        .iter()
        .map(|&x| (x, f3.diff("sctp_single", "sctp_multi", x)))
        .collect();
    let mut p6 = vec![present(!d6.is_empty())];
    p6.extend(
        d6.iter()
            .map(|(x, e)| exceeds(e, 0.05 * f3.mean("sctp_single", *x))),
    );
    Check::new(
        "S6",
        "above 4% loss multihomed SCTP is clearly faster than single-homed",
        "\"clearly\": significantly faster by at least 5% of the single-homed time at every \
         point above 4%",
        PAIRED,
        format!("single − multi (s): {}", show_diffs(&d6, 1)),
        all(&p6),
    )
}

/// S7 (Figure 4, primary 4%): the crossover near 2% alternate loss, widening after.
fn s7(f4: &Results) -> Check {
    let xs4 = f4.spec.xs.clone();
    let last4 = *xs4.last().unwrap_or(&5.0);
    let d4 = policy_diffs(f4, "alt_4", "same_4");
    let tol7 = Tolerance::about(2.0, "2%");
    let widen_from = xs4.iter().copied().find(|&x| x >= tol7.lo).unwrap_or(last4);
    let widen = Estimate::combine(
        &[
            (1.0, f4.diff("alt_4", "same_4", last4)),
            (-1.0, f4.diff("alt_4", "same_4", widen_from)),
        ],
        "combined",
    );
    Check::new(
        "S7",
        "primary 4%: with low alternate loss RTX_TO_ALT is faster; once the alternate loss \
         passes about 2% (about 50% of the primary's) RTX_SAME is faster, and the gap widens \
         with alternate loss",
        "crossover in [1.5%, 2.5%] (\"about 2%\" read as ±25%): ALT − SAME significantly \
         negative at every point below 1.5% and significantly positive at every point above \
         2.5%; widening: ALT − SAME significantly larger at the last point than at the first \
         point >= 1.5%",
        &format!("{PAIRED}; widening: difference of two independent paired estimates"),
        format!(
            "ALT − SAME (s): {}; mean crossing {}; widening {} − {}: {} s",
            show_diffs(&d4, 2),
            show_crossing(crossing_point(&d4)),
            last4,
            widen_from,
            widen.show(2)
        ),
        all(&[crossover(&d4, &tol7), exceeds(&widen, 0.0)]),
    )
}

/// S8 (Figure 4, primary 2%): a slight help below about 0.5%.
fn s8(f4: &Results) -> Check {
    let d2 = policy_diffs(f4, "alt_2", "same_2");
    let tol8 = Tolerance::about(0.5, "0.5%");
    let help0 = f4.diff("same_2", "alt_2", 0.0);
    Check::new(
        "S8",
        "primary 2%: RTX_TO_ALT helps only slightly, and only while the alternate loss is below \
         about 25% of the primary's (about 0.5%)",
        "crossover in [0.375%, 0.625%] (\"about 0.5%\" read as ±25%), judged as in S7; \
         \"only slightly\": its gain on a perfect alternate below 5% of RTX_SAME's time",
        PAIRED,
        format!(
            "ALT − SAME (s): {}; mean crossing {}",
            show_diffs(&d2, 2),
            show_crossing(crossing_point(&d2))
        ),
        all(&[
            crossover(&d2, &tol8),
            below(&help0, 0.05 * f4.mean("same_2", 0.0)),
        ]),
    )
}

/// S9 (Figure 4, primary 0.2%): the policies almost the same.
fn s9(f4: &Results) -> Check {
    let d02 = policy_diffs(f4, "alt_0.2", "same_0.2");
    let mut p9 = vec![present(!d02.is_empty())];
    p9.extend(
        d02.iter()
            .map(|(x, e)| equivalent(e, ABOUT_EQUAL * f4.mean("same_0.2", *x))),
    );
    Check::new(
        "S9",
        "primary 0.2%: the two policies give almost the same transfer time over the whole sweep",
        "\"almost the same\": the CI of ALT − SAME within ±5% of RTX_SAME's time at every point",
        PAIRED,
        format!("ALT − SAME (s): {}", show_diffs(&d02, 2)),
        all(&p9),
    )
}

/// S10 (Figure 4): at equal loss RTX_TO_ALT does not pay off.
fn s10(f4: &Results) -> Check {
    let xs4 = &f4.spec.xs;
    let eq: Vec<(f64, Estimate)> = [2.0, 4.0]
        .iter()
        .filter(|p| xs4.iter().any(|x| (x - **p).abs() < 1e-9))
        .map(|&p| {
            let (a, s) = (format!("alt_{p}"), format!("same_{p}"));
            (p, f4.diff(&s, &a, p))
        })
        .collect();
    let mut p10 = vec![present(!eq.is_empty())];
    p10.extend(
        eq.iter()
            .map(|(p, e)| below(e, BEATS * f4.mean(&format!("same_{p}"), *p))),
    );
    let s10 = all(&p10);
    Check::new(
        "S10",
        "the alternate path must be clearly more reliable than the primary for RTX_TO_ALT to \
         pay off; equal loss is not enough",
        "\"pays off\" = beats: faster by at least 2% of the transfer time; at equal loss (both \
         2%, both 4%) SAME − ALT must be significantly below that",
        PAIRED,
        eq.iter()
            .map(|(p, e)| format!("both {p}%: SAME − ALT {} s", e.show(2)))
            .collect::<Vec<_>>()
            .join("; "),
        s10,
    )
}

/// S11 (Figure 4): the mechanism, from the primary-4% pair's diagnostics at the highest
/// alternate loss.
fn s11(f4: &Results) -> Check {
    let last4 = *f4.spec.xs.last().unwrap_or(&5.0);
    let dg = |id: &str, name: &str| f4.diag_samples(id, last4, name);
    let alt_t3 = Estimate::mean(&values(dg("alt_4", "paths.1.t3_expiries")));
    let alt_fr = Estimate::mean(&values(dg("alt_4", "paths.1.fast_retransmits")));
    let alt_rto = Estimate::mean(&values(dg("alt_4", "paths.1.rto_mean_s")));
    let rto_gap = Estimate::difference(
        dg("alt_4", "paths.1.rto_mean_s"),
        dg("same_4", "paths.0.rto_mean_s"),
    );
    let wait = Estimate::mean(&values(dg("alt_4", "alt_t3_wait_s")));
    Check::new(
        "S11",
        "RTX_TO_ALT with a lossy alternate: chunks lost on the alternate are recovered only by \
         the alternate's T3 expiries; the alternate's RTO stays high for long stretches, \
         changing only at heartbeat samples; under RTX_SAME the primary's RTO is pulled down \
         by new-data samples",
        "path1 T3 expiries significantly above 0 and path1 fast retransmits below 0.5 per run; \
         ALT's time-weighted path1 RTO significantly above RTX_SAME's path0 RTO (same seeds). \
         \"Only at heartbeat samples\" is not measured per run (Karn's rule is tested in the \
         SCTP unit tests)",
        "means per run with 95% CIs; paired difference of the RTOs",
        format!(
            "primary 4%, alternate {last4}%: path1 T3 expiries {}, path1 fast retransmits {}, \
             path1 mean RTO {} s, ALT path1 RTO − SAME path0 RTO {} s, {} s per run waiting on \
             path1's T3",
            alt_t3.show(1),
            alt_fr.show(2),
            alt_rto.show(2),
            rto_gap.show(2),
            wait.show(2)
        ),
        all(&[
            above(&alt_t3, 0.0),
            below(&alt_fr, 0.5),
            exceeds(&rto_gap, 0.0),
        ]),
    )
}

/// S12 (Figure 5): ALT beats SAME only on a faster alternate.
fn s12(f5: &Results) -> Check {
    let (v12, m12) = ratio_verdict(f5, true);
    Check::new(
        "S12",
        "RTX_TO_ALT beats RTX_SAME only when the alternate's bandwidth is higher (ratio > 1); \
         at ratio 1 the two are about equal (by construction of the 4%/2% point)",
        "beats = significantly faster by at least 2% of the transfer time: not at any ratio <= \
         1, yes at the highest ratio; about equal at 1: SAME − ALT within ±5%",
        PAIRED,
        m12,
        v12,
    )
}

/// S13 (Figure 6): ALT beats SAME only on a shorter alternate.
fn s13(f6: &Results) -> Check {
    let (v13, m13) = ratio_verdict(f6, false);
    Check::new(
        "S13",
        "RTX_TO_ALT beats RTX_SAME only when the alternate's delay is shorter (ratio < 1)",
        "beats = significantly faster by at least 2%: not at any ratio >= 1, yes at the lowest \
         ratio",
        PAIRED,
        m13,
        v13,
    )
}

/// S14 (Figures 5 and 6): more sensitive to the delay ratio than to the bandwidth ratio.
fn s14(f5: &Results, f6: &Results) -> Check {
    let span = |r: &Results| {
        let xs = &r.spec.xs;
        let (a, b) = (xs.first().copied(), xs.last().copied());
        match (a, b) {
            (Some(a), Some(b)) => {
                let e = Estimate::combine(
                    &[(1.0, r.est("alt", b)), (-1.0, r.est("alt", a))],
                    "combined",
                );
                // Sensitivity is the size of the change, whichever its sign.
                Estimate {
                    mean: e.mean.abs(),
                    ..e
                }
            }
            _ => Estimate::mean(&[]),
        }
    };
    let (sp5, sp6) = (span(f5), span(f6));
    let sens = Estimate::combine(&[(1.0, sp6), (-1.0, sp5)], "combined");
    Check::new(
        "S14",
        "transfer time is more sensitive to the delay ratio than to the bandwidth ratio",
        "no size given: the change of RTX_TO_ALT's time between the sweep's end ratios (0.25 \
         and 4 in both) significantly larger for delay",
        "difference of independent means at the end ratios, then of the two changes (Welch)",
        format!(
            "RTX_TO_ALT change over the ratios: delay {} s, bandwidth {} s; difference {} s",
            sp6.show(2),
            sp5.show(2),
            sens.show(2)
        ),
        exceeds(&sens, 0.0),
    )
}

/// S15: the conjunction of S10 and S13.
fn s15(f4: &Results, f6: &Results) -> Check {
    let s10 = s10(f4).verdict;
    let (v13, _) = ratio_verdict(f6, false);
    Check::new(
        "S15",
        "when loss rates are similar, retransmitting to the alternate pays off only if its RTT \
         is smaller; the alternate's state needs a better estimate than 30 s heartbeats give",
        "the conjunction of S10 (equal loss is not enough) and S13 (a shorter alternate RTT is \
         what helps); the second sentence is judged by 'ext. probe after RTO' (full runs)",
        "as S10 and S13",
        format!("S10 {}, S13 {}", s10.word(), v13.word()),
        all(&[s10, v13]),
    )
}
