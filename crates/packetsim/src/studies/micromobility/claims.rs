//! The paper's claims S1-S9 as checks, and notes for the ones that do not hold.

use super::*;

/// Per seed, (HAWAII − CIP) / CIP of the throughput averaged over the four variants, at
/// (H, N) with e = 0.
pub(super) fn hawaii_gain(r: &Results, h: u32, n: u32) -> Estimate {
    gain_of(r, h, n, &Variant::ALL)
}

/// Per seed, (HAWAII − CIP) / CIP of the throughput summed over the variants `vs`, at (H, N)
/// with e = 0.
pub(super) fn gain_of(r: &Results, h: u32, n: u32, vs: &[Variant]) -> Estimate {
    let mut pts = Vec::new();
    for proto in [HAW, CIP] {
        for &v in vs {
            pts.push(Point {
                h,
                n,
                ..Point::base(proto, v)
            });
        }
    }
    r.derived(&pts, "thr_kbps", |x| {
        let haw: f64 = x[..vs.len()].iter().sum();
        let cip: f64 = x[vs.len()..].iter().sum();
        (haw - cip) / cip
    })
}

/// Per seed, 1 − thr(H = b)/thr(H = a) of `proto`, averaged over the variants (e = 0, N = 1).
pub(super) fn drop_between(r: &Results, proto: Protocol, a: u32, b: u32) -> Estimate {
    drop_of(r, proto, a, b, &Variant::ALL)
}

/// Per seed, 1 − thr(H = b)/thr(H = a) of `proto`, the variants `vs` summed (e = 0, N = 1).
pub(super) fn drop_of(r: &Results, proto: Protocol, a: u32, b: u32, vs: &[Variant]) -> Estimate {
    let mut pts = Vec::new();
    for h in [a, b] {
        for &v in vs {
            pts.push(Point {
                h,
                ..Point::base(proto, v)
            });
        }
    }
    r.derived(&pts, "thr_kbps", |x| {
        let ta: f64 = x[..vs.len()].iter().sum();
        let tb: f64 = x[vs.len()..].iter().sum();
        1.0 - tb / ta
    })
}

pub(super) fn pct(e: &Estimate) -> String {
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        e.mean * 100.0,
        e.lo() * 100.0,
        e.hi() * 100.0
    )
}

/// Records one part of a claim and, when it does not hold, its label.
pub(super) fn push(parts: &mut Vec<Verdict>, fails: &mut Vec<String>, v: Verdict, label: &str) {
    parts.push(v);
    if v != Verdict::Holds {
        fails.push(format!("{label} ({})", v.word()));
    }
}

/// Names the parts of the last check that do not hold (the start of its note).
pub(super) fn set_fails(out: &mut [Check], fails: &[String]) {
    if let Some(c) = out.last_mut() {
        if !fails.is_empty() {
            c.note = format!("Parts not holding: {}. ", fails.join("; "));
        }
    }
}

/// The paper's claims S1-S9 judged on `r`.
pub(super) fn shape_checks(r: &Results, axes: &Axes) -> Vec<Check> {
    let mut out = Vec::new();
    s1_s3(r, axes, &mut out);
    s4(r, axes, &mut out);
    s5_s6(r, axes, &mut out);
    s7_s9(r, axes, &mut out);
    out
}

/// The radio-loss axis without e = 0.
fn lossy(axes: &Axes) -> Vec<f64> {
    axes.e.iter().copied().filter(|&e| e > 0.0).collect()
}

/// The point of `proto` and `v` at radio loss `e` (Fig 3).
fn at(proto: Protocol, v: Variant, e: f64) -> Point {
    Point {
        e,
        ..Point::base(proto, v)
    }
}

/// S1 (Fig 3a's ordering), S2 (its 10% ratio) and S3 (Fig 3b: HAWAII above CIP).
fn s1_s3(r: &Results, axes: &Axes, out: &mut Vec<Check>) {
    let lossy = lossy(axes);
    // S1.
    let mut parts = Vec::new();
    let mut fails: Vec<String> = Vec::new();
    let mut m = String::new();
    for &e in &lossy {
        for v in [Variant::Tahoe, Variant::Reno, Variant::NewReno] {
            let d = r.diff(&at(CIP, Variant::Sack, e), &at(CIP, v, e), "thr_kbps");
            let label = format!("e={e}: SACK−{} {}", vname(v), d.show(1));
            push(&mut parts, &mut fails, exceeds(&d, 0.0), &label);
            let _ = write!(m, "{label}; ");
        }
        for v in [Variant::Tahoe, Variant::NewReno] {
            let d = r.diff(&at(CIP, v, e), &at(CIP, Variant::Reno, e), "thr_kbps");
            let label = format!("e={e}: {}−Reno {}", vname(v), d.show(1));
            push(&mut parts, &mut fails, exceeds(&d, 0.0), &label);
            let _ = write!(m, "{label}; ");
        }
    }
    out.push(Check::new(
        "S1",
        "Fig 3a (CIP): SACK gives the highest throughput of the four variants at every error rate > 0, and Reno the lowest",
        "an ordering with no size named: minimum effect 0 (checks module rule)",
        "paired differences of throughput (kb/s) over common seeds, each e > 0",
        m,
        all(&parts),
    ));
    set_fails(out, &fails);
    // S2 (soft, spec 5 Q5).
    let s2 = r.derived(
        &[at(CIP, Variant::Sack, 0.1), at(CIP, Variant::Sack, 0.0)],
        "thr_kbps",
        |x| x[0] / x[1],
    );
    out.push(Check::new(
        "S2",
        "Fig 3a: SACK's throughput at e = 10% is about 1/3 to 1/4 of its error-free value (reading A; soft, spec 5 Q5)",
        "reading A: ratio in [0.2, 0.4] (spec 5 §5.1); reading B would be [0.67, 0.75]",
        "mean over seeds of thr(10%)/thr(0%), paired by seed",
        format!("ratio {}", s2.show(3)),
        within(&s2, &Tolerance { lo: 0.2, hi: 0.4, reason: "spec 5 §5.1 reading A".into() }),
    ));
    // S3.
    let mut parts = Vec::new();
    let mut fails: Vec<String> = Vec::new();
    let mut m = String::new();
    for &e in &axes.e {
        for v in Variant::ALL {
            let d = r.diff(&at(HAW, v, e), &at(CIP, v, e), "thr_kbps");
            let label = format!("e={e} {}: HAWAII−CIP {}", vname(v), d.show(1));
            push(&mut parts, &mut fails, exceeds(&d, 0.0), &label);
            let _ = write!(m, "{label}; ");
        }
    }
    for &e in &lossy {
        let pts = [
            Variant::NewReno,
            Variant::Sack,
            Variant::Tahoe,
            Variant::Reno,
        ]
        .map(|v| at(HAW, v, e));
        let d = r.derived(&pts, "thr_kbps", |x| (x[0] + x[1] - x[2] - x[3]) / 2.0);
        parts.push(exceeds(&d, 0.0));
        let _ = write!(
            m,
            "HAWAII e={e}: (NewReno+SACK)/2 − (Tahoe+Reno)/2 {}; ",
            d.show(1)
        );
    }
    out.push(Check::new(
        "S3",
        "Fig 3b: HAWAII gives higher throughput than CIP for every variant and error rate, and on HAWAII NewReno and SACK are slightly ahead (the smallness of the differences is shown, not judged)",
        "\"higher\" and \"ahead\" name no size: minimum effect 0",
        "paired differences over common seeds",
        m,
        all(&parts),
    ));
    set_fails(out, &fails);
}

/// S4: NewReno without timeouts under radio loss.
fn s4(r: &Results, axes: &Axes, out: &mut Vec<Check>) {
    let lossy = lossy(axes);
    // S4.
    let mut parts = Vec::new();
    let mut fails: Vec<String> = Vec::new();
    let mut m = String::new();
    for &e in &lossy {
        let (nr_pt, reno_pt) = (at(CIP, Variant::NewReno, e), at(CIP, Variant::Reno, e));
        let d = r.diff(&reno_pt, &nr_pt, "timeouts");
        let nr = r.est(&nr_pt, "timeouts");
        let l1 = format!("e={e}: Reno−NewReno timeouts {}", d.show(2));
        push(&mut parts, &mut fails, exceeds(&d, 0.0), &l1);
        let l2 = format!("e={e}: NewReno timeouts {}", nr.show(2));
        push(&mut parts, &mut fails, below(&nr, 1.0), &l2);
        let _ = write!(m, "CIP {l2}, {l1}; ");
    }
    out.push(Check::new(
        "S4",
        "with several losses in one window NewReno (slow-but-steady) shows no retransmission timeout (fewer than Reno, and under one per run) and repairs one loss per RTT (the per-RTT repair is checked by the scripted test transport::tcp, not here)",
        "\"no timeout\": mean timeouts per 30 s run below 1; \"fewer than Reno\": minimum effect 0",
        "mean and paired difference of timeouts per run (CIP, e > 0)",
        m,
        all(&parts),
    ));
    set_fails(out, &fails);
}

/// S5 and S6: the fall of Fig 4 with the handoff rate.
fn s5_s6(r: &Results, axes: &Axes, out: &mut Vec<Check>) {
    // S5, S6.
    let before7 = axes.h.iter().copied().filter(|&h| h < 7).max().unwrap_or(2);
    let d5 = drop_between(r, CIP, before7, 7);
    out.push(Check::new(
        "S5",
        "Fig 4a (CIP): throughput falls sharply once H >= 7 handoffs per 30 s",
        "\"sharply\": a drop of at least 25% from the largest H below 7 to H = 7",
        "per seed 1 − thr(7)/thr(H<7) of the four variants' summed throughput, mean",
        format!("drop H={before7}→7: {}", pct(&d5)),
        exceeds(&d5, 0.25),
    ));
    let h10 = axes
        .h
        .iter()
        .copied()
        .filter(|&h| h <= 10)
        .max()
        .unwrap_or(7);
    let d6 = drop_between(r, HAW, axes.h[0], h10);
    out.push(Check::new(
        "S6",
        "Fig 4b (HAWAII): throughput falls only mildly up to H ≈ 10 per 30 s",
        "\"mildly\": a drop below 20% from the smallest H to H = 10",
        "per seed 1 − thr(10)/thr(H min), four variants summed, mean",
        format!("drop H={}→{h10}: {}", axes.h[0], pct(&d6)),
        below(&d6, 0.2),
    ));
}

/// S7-S9: CIP against HAWAII by connections (Figs 5-7).
fn s7_s9(r: &Results, axes: &Axes, out: &mut Vec<Check>) {
    // S7, S8.
    let mut parts = Vec::new();
    let mut fails: Vec<String> = Vec::new();
    let mut m = String::new();
    for &n in &axes.n {
        let g = hawaii_gain(r, 2, n);
        push(
            &mut parts,
            &mut fails,
            equivalent(&g, 0.05),
            &format!("N={n}: {}", pct(&g)),
        );
        let _ = write!(m, "N={n}: {}; ", pct(&g));
    }
    out.push(Check::new(
        "S7",
        "Figs 5a/6a (H = 2): CIP and HAWAII behave about the same as N grows",
        "\"about the same\": (HAWAII − CIP)/CIP within ±5% (checks module rule)",
        "per seed (HAWAII − CIP)/CIP of the four variants' summed aggregate throughput",
        m,
        all(&parts),
    ));
    set_fails(out, &fails);
    let mut parts = Vec::new();
    let mut fails: Vec<String> = Vec::new();
    let mut m = String::new();
    for &n in axes.n.iter().filter(|&&n| n > 1) {
        let g = hawaii_gain(r, 7, n);
        push(
            &mut parts,
            &mut fails,
            exceeds(&g, 0.10),
            &format!("N={n}: {}", pct(&g)),
        );
        let _ = write!(m, "N={n}: {}; ", pct(&g));
    }
    out.push(Check::new(
        "S8",
        "Figs 5b/6b (H = 7): HAWAII gives clearly better TCP throughput than CIP as N grows",
        "\"clearly\": at least 10% more at every N > 1",
        "per seed (HAWAII − CIP)/CIP of the four variants' summed aggregate throughput",
        m,
        all(&parts),
    ));
    set_fails(out, &fails);
    let nmax = *axes.n.last().expect("an N");
    let (g1, g2) = (hawaii_gain(r, 2, 1), hawaii_gain(r, 7, nmax));
    out.push(Check::new(
        "S9",
        "Fig 7: few handoffs and small scale prefer CIP (equal performance, simpler), many handoffs and large scale prefer HAWAII",
        "equal: within ±5%; prefer HAWAII: at least 10% more",
        "per seed (HAWAII − CIP)/CIP at (H = 2, N = 1) and (H = 7, N = max)",
        format!("H=2 N=1: {}; H=7 N={nmax}: {}", pct(&g1), pct(&g2)),
        all(&[equivalent(&g1, 0.05), exceeds(&g2, 0.10)]),
    ));
}

/// Notes for the checks that do not hold, from the runs' diagnostics.
pub(super) fn explain(checks: &mut [Check], r: &Results, axes: &Axes) {
    let emax = *axes.e.last().expect("an e");
    let hmax = *axes.h.last().expect("an H");
    let nmax = *axes.n.last().expect("an N");
    for c in checks.iter_mut().filter(|c| !c.holds()) {
        let pts: Vec<Point> = match c.id.as_str() {
            "S1" | "S2" | "S4" => Variant::ALL
                .map(|v| Point {
                    e: emax,
                    ..Point::base(CIP, v)
                })
                .to_vec(),
            "S3" => vec![
                Point {
                    e: emax,
                    ..Point::base(CIP, Variant::Sack)
                },
                Point {
                    e: emax,
                    ..Point::base(HAW, Variant::Sack)
                },
                Point {
                    e: 0.0,
                    ..Point::base(CIP, Variant::NewReno)
                },
                Point {
                    e: 0.0,
                    ..Point::base(HAW, Variant::NewReno)
                },
            ],
            "S5" | "S6" => vec![
                Point {
                    h: 2,
                    ..Point::base(CIP, Variant::Sack)
                },
                Point {
                    h: hmax,
                    ..Point::base(CIP, Variant::Sack)
                },
                Point {
                    h: hmax,
                    ..Point::base(HAW, Variant::Sack)
                },
                Point {
                    h: hmax,
                    ..Point::base(CIP, Variant::NewReno)
                },
            ],
            _ => vec![
                Point {
                    h: 7,
                    n: nmax,
                    ..Point::base(CIP, Variant::Sack)
                },
                Point {
                    h: 7,
                    n: nmax,
                    ..Point::base(HAW, Variant::Sack)
                },
            ],
        };
        let lines: Vec<String> = pts.iter().map(|p| diag(r, p)).collect();
        let cause = "Measured on the 802.11 radio (per-handoff outage and loss of every check: \
                     section 'The radio's handoffs, check by check'): ";
        c.note = format!("{}{cause}{}.", c.note, lines.join("; "));
    }
}

/// The points a check reads (its figure's points).
pub(super) fn check_points(id: &str, axes: &Axes) -> Vec<Point> {
    let mut out = Vec::new();
    let both = [CIP, HAW];
    let protos: &[Protocol] = match id {
        "S1" | "S2" | "S4" | "S5" => &both[..1],
        "S6" => &both[1..],
        _ => &both,
    };
    for &proto in protos {
        for v in Variant::ALL {
            let b = Point::base(proto, v);
            match id {
                "S1" | "S2" | "S3" | "S4" => {
                    out.extend(axes.e.iter().map(|&e| Point { e, ..b.clone() }))
                }
                "S5" | "S6" => out.extend(axes.h.iter().map(|&h| Point { h, ..b.clone() })),
                "S7" | "S8" => {
                    let h = if id == "S7" { 2 } else { 7 };
                    out.extend(axes.n.iter().map(|&n| Point { h, n, ..b.clone() }))
                }
                _ => {
                    out.extend(axes.h.iter().map(|&h| Point { h, ..b.clone() }));
                    for h in [2, 7] {
                        out.extend(axes.n.iter().map(|&n| Point { h, n, ..b.clone() }));
                    }
                }
            }
        }
    }
    out
}
