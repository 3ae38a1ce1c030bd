//! Spec 5's sensitivity runs judged as checks of kind sensitivity: the paper's claims that a
//! sensitivity's points reach, judged again on its runs (NewReno and SACK, the variants the
//! sensitivities run), with the same tolerances. They are counted apart from the paper's
//! claims ([`Shape::apart`]) and written to `sensitivity/checks.csv`.
//!
//! The sensitivities: a 50 ms layer-2 gap at each switch (spec 5 §3's table, over Fig 4's
//! handoff axis), radio loss on the downlink only (Q7, over Fig 3's loss axis), e = 0.01 for
//! Figs 4-6 (Q8), Q9's TCP (IW 2, 10 ms tick, RTO min 1 s, over Fig 4's axis) and the cell
//! layout on S5's points (issue 34: cells 500 m apart, beacons every 1 s, both).

use super::*;

/// The variants the sensitivity runs use.
const VS: [Variant; 2] = [Variant::NewReno, Variant::Sack];

/// Where the sensitivity checks are written, under the study's folder.
pub(super) const SENSITIVITY_DIR: &str = "sensitivity";

/// One sensitivity: its label, the claims its points reach, and the run it makes of a
/// default point.
struct Sensitivity {
    label: &'static str,
    claims: &'static [&'static str],
    tag: fn(&Point) -> Point,
}

const SENSITIVITIES: [Sensitivity; 7] = [
    Sensitivity {
        label: "50 ms layer-2 gap",
        claims: &["S5", "S6"],
        tag: |p| Point {
            gap_ms: 50,
            ..p.clone()
        },
    },
    Sensitivity {
        label: "downlink-only radio loss (Q7)",
        claims: &["S1", "S2", "S4"],
        tag: |p| Point {
            down_only: p.e > 0.0,
            ..p.clone()
        },
    },
    Sensitivity {
        label: "e = 0.01 (Q8)",
        claims: &["S5", "S6", "S7", "S8"],
        tag: |p| Point {
            e: if p.e == 0.0 { 0.01 } else { p.e },
            ..p.clone()
        },
    },
    Sensitivity {
        label: "Q9 TCP",
        claims: &["S5", "S6"],
        tag: |p| Point {
            q9: true,
            ..p.clone()
        },
    },
    Sensitivity {
        label: "cells 500 m apart",
        claims: &["S5"],
        tag: |p| Point {
            spacing_m: 500,
            ..p.clone()
        },
    },
    Sensitivity {
        label: "beacons every 1 s",
        claims: &["S5"],
        tag: |p| Point {
            beacon_ms: 1000,
            ..p.clone()
        },
    },
    Sensitivity {
        label: "cells 500 m apart, beacons every 1 s",
        claims: &["S5"],
        tag: |p| Point {
            spacing_m: 500,
            beacon_ms: 1000,
            ..p.clone()
        },
    },
];

/// Every sensitivity's checks (none without the sensitivity runs, e.g. in quick mode).
pub(super) fn sensitivity_checks(r: &Results, axes: &Axes) -> Vec<Check> {
    if !axes.ext {
        return Vec::new();
    }
    let defaults: Vec<Point> = axes
        .points()
        .into_iter()
        .filter(|p| !p.q2 && !p.sensitivity())
        .collect();
    let mut out = Vec::new();
    for s in &SENSITIVITIES {
        // Its runs filed under the default points' ids, so the claims read them as theirs.
        let rs = r.relabel(&defaults, s.tag);
        for &id in s.claims {
            let mut c = judge(id, &rs, axes);
            let pts: Vec<Point> = check_points(id, axes)
                .iter()
                .filter(|p| VS.contains(&p.variant))
                .map(s.tag)
                .collect();
            c.id = format!("{id}, {}", s.label);
            c.kind = checks::Kind::Sensitivity;
            c.note = format!(
                "{}Per handoff on its points: outage {:.0} ms, loss {:.2} packets ({:.1} MAC drops \
                 per run); at the default points: outage {:.0} ms, loss {:.2}.",
                c.note,
                mean_over(r, &pts, "outage_ms"),
                mean_over(r, &pts, "loss_per_handoff"),
                mean_over(r, &pts, "mac_drops"),
                mean_over(r, &check_points(id, axes), "outage_ms"),
                mean_over(r, &check_points(id, axes), "loss_per_handoff"),
            );
            out.push(c);
        }
    }
    out
}

/// The claim `id` judged on `r` with the sensitivity variants ([`VS`]) only.
fn judge(id: &str, r: &Results, axes: &Axes) -> Check {
    let lossy: Vec<f64> = axes.e.iter().copied().filter(|&e| e > 0.0).collect();
    let at = |v, e| Point {
        e,
        ..Point::base(CIP, v)
    };
    let (mut parts, mut m) = (Vec::new(), String::new());
    let (claim, tolerance, statistic) = match id {
        "S1" => {
            for &e in &lossy {
                let d = r.diff(&at(Variant::Sack, e), &at(Variant::NewReno, e), "thr_kbps");
                parts.push(exceeds(&d, 0.0));
                let _ = write!(m, "e={e}: SACK−NewReno {}; ", d.show(1));
            }
            (
                "S1's part the sensitivity runs reach: SACK above NewReno at every e > 0 (CIP)",
                "an ordering: minimum effect 0",
                "paired differences of throughput (kb/s), each e > 0",
            )
        }
        "S2" => {
            let s2 = r.derived(
                &[at(Variant::Sack, 0.1), at(Variant::Sack, 0.0)],
                "thr_kbps",
                |x| x[0] / x[1],
            );
            parts.push(within(
                &s2,
                &Tolerance {
                    lo: 0.2,
                    hi: 0.4,
                    reason: "spec 5 §5.1 reading A".into(),
                },
            ));
            let _ = write!(m, "ratio {}", s2.show(3));
            (
                "S2: SACK's throughput at e = 10% is about 1/3 to 1/4 of its error-free value",
                "reading A: ratio in [0.2, 0.4]",
                "mean over seeds of thr(10%)/thr(0%), paired by seed",
            )
        }
        "S4" => {
            for &e in &lossy {
                let nr = r.est(&at(Variant::NewReno, e), "timeouts");
                parts.push(below(&nr, 1.0));
                let _ = write!(m, "e={e}: NewReno timeouts {}; ", nr.show(2));
            }
            (
                "S4's part the sensitivity runs reach: NewReno shows no retransmission timeout (CIP)",
                "\"no timeout\": mean timeouts per 30 s run below 1",
                "mean timeouts per run, each e > 0",
            )
        }
        _ => return judge_handoffs(id, r, axes),
    };
    Check::new(id, claim, tolerance, statistic, m, all(&parts))
}

/// S5-S8 judged on NewReno and SACK.
fn judge_handoffs(id: &str, r: &Results, axes: &Axes) -> Check {
    let (mut parts, mut m) = (Vec::new(), String::new());
    let (claim, tolerance, statistic) = match id {
        "S5" => {
            let before7 = axes.h.iter().copied().filter(|&h| h < 7).max().unwrap_or(2);
            let d = drop_of(r, CIP, before7, 7, &VS);
            parts.push(exceeds(&d, 0.25));
            let _ = write!(m, "drop H={before7}→7: {}", pct(&d));
            (
                "S5: CIP's throughput falls sharply once H >= 7 handoffs per 30 s",
                "\"sharply\": a drop of at least 25% from the largest H below 7 to H = 7",
                "per seed 1 − thr(7)/thr(H<7), NewReno and SACK summed, mean",
            )
        }
        "S6" => {
            let h10 = axes
                .h
                .iter()
                .copied()
                .filter(|&h| h <= 10)
                .max()
                .unwrap_or(7);
            let d = drop_of(r, HAW, axes.h[0], h10, &VS);
            parts.push(below(&d, 0.2));
            let _ = write!(m, "drop H={}→{h10}: {}", axes.h[0], pct(&d));
            (
                "S6: HAWAII's throughput falls only mildly up to H ≈ 10 per 30 s",
                "\"mildly\": a drop below 20% from the smallest H to H = 10",
                "per seed 1 − thr(10)/thr(H min), NewReno and SACK summed, mean",
            )
        }
        "S7" => {
            for &n in &axes.n {
                let g = gain_of(r, 2, n, &VS);
                parts.push(equivalent(&g, 0.05));
                let _ = write!(m, "N={n}: {}; ", pct(&g));
            }
            (
                "S7: at H = 2 CIP and HAWAII behave about the same as N grows",
                "\"about the same\": (HAWAII − CIP)/CIP within ±5%",
                "per seed (HAWAII − CIP)/CIP, NewReno and SACK summed",
            )
        }
        _ => {
            for &n in axes.n.iter().filter(|&&n| n > 1) {
                let g = gain_of(r, 7, n, &VS);
                parts.push(exceeds(&g, 0.10));
                let _ = write!(m, "N={n}: {}; ", pct(&g));
            }
            (
                "S8: at H = 7 HAWAII gives clearly better TCP throughput than CIP as N grows",
                "\"clearly\": at least 10% more at every N > 1",
                "per seed (HAWAII − CIP)/CIP, NewReno and SACK summed",
            )
        }
    };
    Check::new(id, claim, tolerance, statistic, m, all(&parts))
}
