//! The verdicts several claims share (S1-S3 and S5 on any pair of curves, the policy
//! differences, the bandwidth and delay ratio sweeps), and how their numbers are shown.

use super::*;

/// `ok` as a verdict of a part that is not statistical (a curve or point is missing).
pub(super) fn present(ok: bool) -> Verdict {
    if ok {
        Verdict::Holds
    } else {
        Verdict::NotDecidable
    }
}

pub(super) const PAIRED: &str =
    "paired difference of transfer times over the shared seeds (common random \
                      numbers), 95% Student-t CI";
/// "Beats" between the retransmission policies: faster by at least 2% of the transfer time.
pub(super) const BEATS: f64 = 0.02;
/// "About equal" / "almost the same": within 5% of the transfer time.
pub(super) const ABOUT_EQUAL: f64 = 0.05;

/// S1 on the SCTP curves `multi` and `single` of Figure 2: at every loss above 0.5% the three
/// gaps of the order multi < SACK < single < Reno are significantly positive, and the Reno −
/// multihomed gap is larger at the last point than at the first.
pub(super) fn s1_verdict(f2: &Results, multi: &str, single: &str) -> (Verdict, String) {
    let above: Vec<f64> = f2.spec.xs.iter().copied().filter(|&x| x > 0.5).collect();
    let mut parts = vec![present(above.len() >= 2)];
    let mut shown = Vec::new();
    for &x in &above {
        let g = [
            f2.diff("tcp_sack", multi, x),
            f2.diff(single, "tcp_sack", x),
            f2.diff("tcp_reno", single, x),
        ];
        parts.extend(g.iter().map(|d| exceeds(d, 0.0)));
        shown.push(format!(
            "{x}%: SACK−M {}, 1H−SACK {}, Reno−1H {}",
            g[0].show(2),
            g[1].show(2),
            g[2].show(2)
        ));
    }
    if let (Some(&a), Some(&b)) = (above.first(), above.last()) {
        let w = Estimate::combine(
            &[
                (1.0, f2.diff("tcp_reno", multi, b)),
                (-1.0, f2.diff("tcp_reno", multi, a)),
            ],
            "combined",
        );
        parts.push(exceeds(&w, 0.0));
        shown.push(format!("Reno−M gap at {b}% minus at {a}%: {}", w.show(2)));
    }
    (all(&parts), shown.join("; "))
}

/// S2 on `single`: slower than TCP SACK at every loss in 0.5-1%.
pub(super) fn s2_verdict(f2: &Results, single: &str) -> (Verdict, String) {
    let xs: Vec<f64> = f2.spec.xs.iter().copied().filter(|&x| x >= 0.5).collect();
    let d: Vec<(f64, Estimate)> = xs
        .iter()
        .map(|&x| (x, f2.diff(single, "tcp_sack", x)))
        .collect();
    let mut parts = vec![present(!d.is_empty())];
    parts.extend(d.iter().map(|(_, e)| exceeds(e, 0.0)));
    (
        all(&parts),
        d.iter()
            .map(|(x, e)| format!("{x}%: 1H−SACK {} s", e.show(2)))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// S3 on `multi`/`single`: at 0% and 0.1%, each SCTP curve is slower than each TCP, by less
/// than 5% of the TCP time ("a little").
pub(super) fn s3_verdict(f2: &Results, multi: &str, single: &str) -> (Verdict, String) {
    let xs: Vec<f64> = f2.spec.xs.iter().copied().filter(|&x| x <= 0.1).collect();
    let mut parts = vec![present(!xs.is_empty())];
    let mut shown = Vec::new();
    for &x in &xs {
        for s in [single, multi] {
            for t in ["tcp_reno", "tcp_sack"] {
                let d = f2.diff(s, t, x);
                parts.push(exceeds(&d, 0.0));
                parts.push(below(&d, 0.05 * f2.mean(t, x)));
                if t == "tcp_sack" {
                    shown.push(format!(
                        "{x}%: {}−SACK {} s",
                        if s == single { "1H" } else { "M" },
                        d.show(3)
                    ));
                }
            }
        }
    }
    (all(&parts), shown.join(", "))
}

/// S5's significance part on TCP curves `tcps`: at every loss ≥ 4% each SCTP curve is
/// significantly faster than each TCP; at the highest loss by at least 10% ("far").
pub(super) fn s5_verdict(f3: &Results, tcps: [&str; 2]) -> (Verdict, String) {
    let big: Vec<f64> = f3.spec.xs.iter().copied().filter(|&x| x >= 4.0).collect();
    let hi = big.last().copied().unwrap_or(f64::NAN);
    let mut parts = vec![present(!big.is_empty())];
    let mut shown = Vec::new();
    for &x in &big {
        for t in tcps {
            for s in ["sctp_single", "sctp_multi"] {
                let d = f3.diff(t, s, x);
                parts.push(exceeds(&d, 0.0));
                if x == hi {
                    parts.push(exceeds(&d, 0.10 * f3.mean(t, x)));
                    shown.push(format!("{t}−{s} at {x}%: {} s", d.show(1)));
                }
            }
        }
    }
    (all(&parts), shown.join(", "))
}

/// ALT − SAME of a Figure 4 pair at every alternate loss.
pub(super) fn policy_diffs(f4: &Results, alt: &str, same: &str) -> Vec<(f64, Estimate)> {
    f4.spec
        .xs
        .iter()
        .map(|&x| (x, f4.diff(alt, same, x)))
        .collect()
}

/// `d` as "x: estimate" pairs.
pub(super) fn show_diffs(d: &[(f64, Estimate)], digits: usize) -> String {
    d.iter()
        .map(|(x, e)| format!("{x}: {}", e.show(digits)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A crossing point in percent, or "none".
pub(super) fn show_crossing(c: Option<f64>) -> String {
    c.map_or("none".into(), |c| format!("{c:.2}%"))
}

/// S12/S13 on a Figure 5/6 sweep (`above`: bandwidth, ALT should beat SAME only above ratio
/// 1; otherwise delay, only below it). Parts: on the wrong side and at 1, ALT does not beat
/// SAME (SAME − ALT below 2% of SAME's time); at the most favourable ratio it does; and, for
/// the bandwidth sweep, the two are about equal (within 5%) at 1.
pub(super) fn ratio_verdict(r: &Results, above_one: bool) -> (Verdict, String) {
    let xs = &r.spec.xs;
    let adv = |x: f64| r.diff("same", "alt", x);
    let wrong_side = |x: f64| {
        if above_one {
            x <= 1.0 + 1e-9
        } else {
            x >= 1.0 - 1e-9
        }
    };
    let mut parts = Vec::new();
    for &x in xs.iter().filter(|&&x| wrong_side(x)) {
        parts.push(below(&adv(x), BEATS * r.mean("same", x)));
    }
    let best = if above_one { xs.last() } else { xs.first() };
    match best {
        Some(&x) if !wrong_side(x) => parts.push(exceeds(&adv(x), BEATS * r.mean("same", x))),
        _ => parts.push(Verdict::NotDecidable),
    }
    if above_one {
        match xs.iter().find(|&&x| (x - 1.0).abs() < 1e-9) {
            Some(&x) => parts.push(equivalent(&adv(x), ABOUT_EQUAL * r.mean("same", x))),
            None => parts.push(Verdict::NotDecidable),
        }
    }
    (
        all(&parts),
        format!(
            "SAME − ALT (s): {}",
            xs.iter()
                .map(|&x| format!("{x}: {}", adv(x).show(2)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
}
