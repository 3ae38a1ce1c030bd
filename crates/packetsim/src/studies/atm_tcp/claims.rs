//! The paper's claims S1-S7 as data (`studies::checks`): S1-S4 on the E1-E4 grid (paired by
//! seed across policies), S5-S7 on E5/E6 (paired by seed across the two RTOmin values).

use super::measure::*;
use crate::studies::checks::{above, all, exceeds, within, Check, Estimate, Tolerance};
use std::fmt::Write as _;

/// Every claim, judged on the study's runs.
pub fn checks_all(cx: &Ctx) -> Vec<Check> {
    let mut out = vec![s1(cx), s2(cx), s3(cx), s4(cx)];
    out.extend(s5_s6(cx));
    out.push(s7(cx));
    for c in &mut out {
        if !c.holds() && c.note.is_empty() {
            c.note = "No measured explanation beyond the numbers shown.".into();
        }
    }
    out
}

/// S1: the packet switch is efficient at every buffer (Fig 1).
fn s1(cx: &Ctx) -> Check {
    let p = cx.plan;
    let (sizes, bufs) = (&p.bg_sizes, &p.bg_buffers);
    let large = *sizes.last().expect("sizes");
    let mut parts = vec![];
    let mut meas = String::new();
    for &s in sizes {
        let mut worst: Option<Estimate> = None;
        for &b in bufs {
            let e = Estimate::mean(&vals(&cx.eff(1, s, b)));
            parts.push(above(&e, 0.8));
            if worst.is_none_or(|w| e.mean < w.mean) {
                worst = Some(e);
            }
        }
        let w = worst.expect("buffers");
        let _ = write!(meas, "{s} B: lowest {}; ", w.show(3));
    }
    let mut c = Check::new(
        "S1",
        "Fig 1: over a packet network TCP efficiency is already high with small buffers and stays high as the buffer grows",
        "\"high\" read as at least 0.8 of the output's goodput capacity, at every buffer (500-8000 cells) and every packet size, argued before the runs: the ATM curves of Figs 2-4 start well below that",
        "mean efficiency over seeds at each (size, buffer), 95% t interval",
        meas,
        all(&parts),
    );
    if !c.holds() {
        let low: Vec<String> = sizes
            .iter()
            .map(|&s| {
                let e = Estimate::mean(&vals(&cx.eff(1, s, bufs[0])));
                format!("{s} B at B={}: {:.3}", bufs[0], e.mean)
            })
            .collect();
        c.note = format!(
            "Packet-switch efficiency at the smallest buffer: {}. A buffer of {} cells holds {:.1} packets of {large} B for 10 connections.",
            low.join(", "),
            bufs[0],
            bufs[0] as f64 / crate::atm::cells_for(large) as f64
        );
    }
    c
}

/// S2: plain ATM is clearly below the packet switch (Fig 2).
fn s2(cx: &Ctx) -> Check {
    let p = cx.plan;
    let (sizes, bufs) = (&p.bg_sizes, &p.bg_buffers);
    let mut parts = vec![];
    let mut meas = String::new();
    for &b in bufs {
        let d = paired(
            &cx.eff_pooled(1, sizes, &[b]),
            &cx.eff_pooled(2, sizes, &[b]),
        );
        parts.push(exceeds(&d, 0.10));
        let _ = write!(meas, "B={b}: {}; ", d.show(3));
    }
    let mut c = Check::new(
        "S2",
        "Fig 2: over ATM with plain cell drop, efficiency is clearly lower than the Fig 1 value for the same buffer size",
        "\"clearly lower\": by at least 0.10 of capacity (module rule: an adjective of size sets a minimum effect), at every buffer, averaged over packet sizes",
        "paired difference packet − plain ATM per seed (mean over packet sizes), 95% t interval",
        meas,
        all(&parts),
    );
    if !c.holds() {
        c.note = format!(
            "Plain-ATM efficiency at B={} (mean over sizes): {:.3}; packet switch: {:.3}.",
            bufs[0],
            Estimate::mean(&vals(&cx.eff_pooled(2, sizes, &bufs[..1]))).mean,
            Estimate::mean(&vals(&cx.eff_pooled(1, sizes, &bufs[..1]))).mean
        );
    }
    c
}

/// S3: PPD beats plain ATM, more so for large packets (Fig 3).
fn s3(cx: &Ctx) -> Check {
    let p = cx.plan;
    let (sizes, bufs) = (&p.bg_sizes, &p.bg_buffers);
    let (small, large) = (sizes[0], *sizes.last().expect("sizes"));
    let d_all = paired(
        &cx.eff_pooled(3, sizes, bufs),
        &cx.eff_pooled(2, sizes, bufs),
    );
    let gain = |s| {
        diff_series(
            &cx.eff_pooled(3, &[s], bufs),
            &cx.eff_pooled(2, &[s], bufs),
            |a, b| a - b,
        )
    };
    let d_growth = paired(&gain(large), &gain(small));
    let mut c = Check::new(
        "S3",
        "Fig 3: PPD improves on plain ATM, and the gain grows with packet size (the 9180-byte packets gain the most)",
        "no size named: a minimum effect of 0 for both parts (module rule for orderings)",
        "paired differences per seed over all sizes and buffers; gain(9180) − gain(512) paired per seed, gains averaged over buffers",
        format!(
            "PPD − plain: {}; gain({large}) − gain({small}): {}",
            d_all.show(3),
            d_growth.show(3)
        ),
        all(&[exceeds(&d_all, 0.0), exceeds(&d_growth, 0.0)]),
    );
    if !c.holds() {
        c.note = format!(
            "Mean gains: {small} B {:.3}, {large} B {:.3}; PPD-tail drops are the cells a frame loses after its first drop.",
            Estimate::mean(&vals(&gain(small))).mean,
            Estimate::mean(&vals(&gain(large))).mean
        );
    }
    c
}

/// S4: EPD beats PPD, relatively more for small packets (Fig 4).
fn s4(cx: &Ctx) -> Check {
    let p = cx.plan;
    let (sizes, bufs) = (&p.bg_sizes, &p.bg_buffers);
    let (small, large) = (sizes[0], *sizes.last().expect("sizes"));
    let d_all = paired(
        &cx.eff_pooled(4, sizes, bufs),
        &cx.eff_pooled(3, sizes, bufs),
    );
    let rel = |s| {
        diff_series(
            &cx.eff_pooled(4, &[s], bufs),
            &cx.eff_pooled(3, &[s], bufs),
            |a, b| a / b - 1.0,
        )
    };
    let d_rel = paired(&rel(small), &rel(large));
    let mut c = Check::new(
        "S4",
        "Fig 4: EPD with T = B/2 beats PPD overall, and the EPD gain is relatively larger for small packets",
        "no size named: minimum effect 0 for both parts",
        "paired difference EPD − PPD per seed over all sizes and buffers; relative gain EPD/PPD − 1 at 512 minus at 9180, paired per seed",
        format!(
            "EPD − PPD: {}; rel. gain({small}) − rel. gain({large}): {}",
            d_all.show(3),
            d_rel.show(3)
        ),
        all(&[exceeds(&d_all, 0.0), exceeds(&d_rel, 0.0)]),
    );
    if !c.holds() {
        c.note = format!(
            "Mean relative gains: {small} B {:.3}, {large} B {:.3}.",
            Estimate::mean(&vals(&rel(small))).mean,
            Estimate::mean(&vals(&rel(large))).mean
        );
    }
    c
}

/// S5, S6: the idle gap is about RTOmin (Figs 7-8).
fn s5_s6(cx: &Ctx) -> Vec<Check> {
    let mut out = vec![];
    let count = |d: &Done| d.r.idle_gaps.len() as f64;
    for (id, rto, slots, fig) in [("S5", 450u64, 22_500.0, 7), ("S6", 100, 5_000.0, 8)] {
        let g = Estimate::mean(&vals(&cx.main(rto, |d| median_gap(&d.r))));
        let n = Estimate::mean(&vals(&cx.main(rto, count)));
        let tol = Tolerance::about(slots, &format!("{slots} slots"));
        let mut parts = vec![within(&g, &tol), above(&n, 2.0)];
        let mut claim = format!(
            "Fig {fig} (RTOmin {rto} ms): the queue cycles: it fills from the TCP bursts, drains, then stays empty for an interval about equal to RTOmin (≈{slots} slots) while sender 1 sends nothing"
        );
        let mut meas = format!(
            "median idle gap {} slots; idle gaps (≥1000 slots) per run {}",
            g.show(0),
            n.show(1)
        );
        if id == "S6" {
            let more = paired(&cx.main(100, count), &cx.main(450, count));
            parts.push(exceeds(&more, 0.0));
            claim.push_str("; fill/overflow cycles are more frequent than with 450 ms");
            let _ = write!(meas, "; more gaps than 450 ms: {}", more.show(1));
        }
        let mut c = Check::new(
            id,
            &claim,
            &format!(
                "{}; \"repeated\" read as more than 2 gaps per 10^6 slots. An idle interval is one with no cell queued or arriving at the switch, so sender 1 is flat in it by construction",
                tol.reason
            ),
            "median idle gap per run, mean over seeds with 95% t interval",
            meas,
            all(&parts),
        );
        if !c.holds() {
            let t = Estimate::mean(&vals(&cx.main(rto, |d| d.r.conns[0].timeouts as f64)));
            c.note = format!(
                "Median gap / RTOmin = {:.2}; sender-1 timeouts per run {:.1}. The gap runs from the switch's last cell to the first retransmission: RTO minus the time the window took to drain after the loss.",
                g.mean / slots,
                t.mean
            );
        }
        out.push(c);
    }
    out
}

/// S7: RTOmin 450 -> 100 ms raises throughput, load and loss (spec §5.2).
fn s7(cx: &Ctx) -> Check {
    let thr = ratio(
        &cx.main(100, |d| thr1_bps(&d.r)),
        &cx.main(450, |d| thr1_bps(&d.r)),
    );
    let l450 = cx.main(450, |d| d.r.load());
    let l100 = cx.main(100, |d| d.r.load());
    let dl = paired(&l100, &l450);
    let band = Tolerance {
        lo: 0.4,
        hi: 0.8,
        reason: "spec §5.2".into(),
    };
    let (e450, e100) = (Estimate::mean(&vals(&l450)), Estimate::mean(&vals(&l100)));
    let lr = ratio(&cx.main(100, |d| loss(&d.r)), &cx.main(450, |d| loss(&d.r)));
    let thr_tol = Tolerance {
        lo: 1.5,
        hi: 2.6,
        reason: "spec §5.2".into(),
    };
    let mut c = Check::new(
        "S7",
        "RTOmin 450 → 100 ms raises the average throughput (paper ×2.011), the switch load (×1.174) and the cell loss (×3.36)",
        "spec §5.2: throughput ratio in [1.5, 2.6]; load higher with 100 ms and both loads in [0.4, 0.8]; loss ratio > 1.5",
        "per-seed ratios (sender-1 goodput, loss) and the paired load difference, means over seeds with 95% t intervals",
        format!(
            "throughput ×{}; load {} → {} (diff {}); loss ×{}",
            thr.show(3),
            e450.show(3),
            e100.show(3),
            dl.show(3),
            lr.show(2)
        ),
        all(&[
            within(&thr, &thr_tol),
            exceeds(&dl, 0.0),
            within(&e450, &band),
            within(&e100, &band),
            above(&lr, 1.5),
        ]),
    );
    if !c.holds() {
        c.note = format!(
            "Sender-1 goodput {:.2} → {:.2} Mb/s; cells lost {:.0} → {:.0} per run.",
            Estimate::mean(&vals(&cx.main(450, |d| thr1_bps(&d.r)))).mean / 1e6,
            Estimate::mean(&vals(&cx.main(100, |d| thr1_bps(&d.r)))).mean / 1e6,
            Estimate::mean(&vals(&cx.main(450, |d| loss(&d.r)))).mean,
            Estimate::mean(&vals(&cx.main(100, |d| loss(&d.r)))).mean
        );
    }
    c
}
