//! Checks beyond the paper's claims: spec 3 Q2-Q5 and the §4 extensions, on the full
//! figures' extra curves.

use super::*;

/// Extension checks (spec 3 Q2-Q5 and the §4 extensions), on the full figures' extra curves.
pub(super) fn extension_checks(figs: &[Results]) -> Vec<Check> {
    let f = |dir: &str| figs.iter().find(|r| r.spec.dir == dir);
    let mut out = Vec::new();
    if let Some(f2) = f("fig2") {
        if !f2.curve("sctp_single_w20").is_empty() {
            let (multi, single) = ("sctp_multi_w20", "sctp_single_w20");
            let (v1, _) = s1_verdict(f2, multi, single);
            let (v2, m2) = s2_verdict(f2, single);
            let (v3, _) = s3_verdict(f2, multi, single);
            out.push(Check::new(
                "S1-S3, equal windows",
                "(beyond the paper; tests the window explanation of S1-S3) with SCTP's window \
                 held to TCP's 20 packets, the paper's Figure 2 orderings S1, S2 and S3 appear",
                "as S1, S2 and S3",
                PAIRED,
                format!(
                    "S1 order {}, S2 {}, S3 {}; S2's differences: {m2}",
                    v1.word(),
                    v2.word(),
                    v3.word()
                ),
                all(&[v1, v2, v3]),
            ));
        }
    }
    if let (Some(f2), Some(f3)) = (f("fig2"), f("fig3")) {
        if !f3.curve("tcp_sack_rto1").is_empty() {
            let (v, m) = s5_verdict(f3, ["tcp_reno_rto1", "tcp_sack_rto1"]);
            out.push(Check::new(
                "Q4",
                "S5 also holds with TCP's RTO floored at 1 s (RFC 2988)",
                "as S5",
                PAIRED,
                m,
                v,
            ));
            let x = 1.0;
            let d1 = f2.diff("sctp_single", "tcp_sack", x);
            let d2 = f2.diff("sctp_single", "tcp_sack_iw2", x);
            let sig = |e: &Estimate| {
                if e.lo() > 0.0 {
                    1
                } else if e.hi() < 0.0 {
                    -1
                } else {
                    0
                }
            };
            let v = match (sig(&d1), sig(&d2)) {
                _ if !(d1.decidable() && d2.decidable()) => Verdict::NotDecidable,
                (a, b) if a != 0 && a == b => Verdict::Holds,
                (a, b) if a != 0 && b != 0 => Verdict::DoesNotHold,
                _ => Verdict::NotDecidable,
            };
            out.push(Check::new(
                "Q5",
                "TCP's initial window (1 or 2 segments) does not change the Figure 2 comparison \
                 of SCTP single-homed with TCP SACK",
                "single-homed − SACK at 1% significant and of the same sign with both windows",
                PAIRED,
                format!(
                    "at {x}%: single-homed − SACK {} s with 1 segment, {} s with 2",
                    d1.show(2),
                    d2.show(2)
                ),
                v,
            ));
        }
    }
    for (dir, id, above_one, what) in [
        (
            "ext-fig5",
            "S12 at crossover",
            true,
            "bandwidth is higher (ratio > 1); about equal at 1",
        ),
        (
            "ext-fig6",
            "S13 at crossover",
            false,
            "delay is shorter (ratio < 1)",
        ),
    ] {
        if let Some(r) = f(dir) {
            let (v, m) = ratio_verdict(r, above_one);
            out.push(Check::new(
                id,
                &format!(
                    "(S12/S13 at packetsim's own crossover, primary 4% / alternate 1%) \
                     RTX_TO_ALT beats RTX_SAME only when the alternate's {what}"
                ),
                "as S12/S13",
                PAIRED,
                m,
                v,
            ));
        }
    }
    if let Some(ext) = f("ext-fig4") {
        out.extend(ext_fig4_checks(ext));
    }
    out
}

/// Spec 3 Q2, Q3 and the §4 extensions on the extension curves of Figure 4 (`ext-fig4`).
pub(super) fn ext_fig4_checks(ext: &Results) -> Vec<Check> {
    let mut out = Vec::new();
    let xs = ext.spec.xs.clone();
    let (first, last) = (xs[0], *xs.last().unwrap_or(&5.0));
    let dq2 = policy_diffs(ext, "alt_paper_jitter", "same");
    out.push(Check::new(
        "Q2",
        "the paper's heartbeat jitter (30 s ± 15 s) does not change the conclusions",
        "with the paper's jitter RTX_TO_ALT still significantly faster on a perfect alternate \
         and RTX_SAME significantly faster at the highest alternate loss",
        PAIRED,
        format!("ALT (paper's jitter) − SAME (s): {}", show_diffs(&dq2, 2)),
        all(&[
            exceeds(&ext.diff("same", "alt_paper_jitter", first), 0.0),
            exceeds(&ext.diff("alt_paper_jitter", "same", last), 0.0),
        ]),
    ));
    let dq3 = policy_diffs(ext, "alt_both_dirs", "same_both_dirs");
    out.push(Check::new(
        "Q3",
        "with loss in both directions RTX_SAME still wins at high alternate loss",
        "no size given: ALT − SAME significantly positive at the highest alternate loss",
        PAIRED,
        format!("ALT − SAME, both directions (s): {}", show_diffs(&dq3, 2)),
        exceeds(&ext.diff("alt_both_dirs", "same_both_dirs", last), 0.0),
    ));
    let dto = policy_diffs(ext, "alt_to_only", "same");
    let mut pto = vec![present(!dto.is_empty())];
    pto.extend(
        dto.iter()
            .map(|(x, e)| equivalent(e, 0.03 * ext.mean("same", *x))),
    );
    out.push(Check::new(
        "ext. timeouts only",
        "(not in the paper) with fast retransmits kept on the primary and only timeout \
         retransmissions sent to the alternate, the transfer behaves like RTX_SAME",
        "\"behaves like\": the CI of the difference within ±3% of RTX_SAME's time at every point \
         (tighter than 'about equal' because the claim is that the policy barely matters)",
        PAIRED,
        format!("timeouts only − SAME (s): {}", show_diffs(&dto, 2)),
        all(&pto),
    ));
    let dhb = ext.diff("alt", "alt_hb_after_rto", last);
    out.push(Check::new(
        "ext. probe after RTO",
        "(paper's conclusion) a fresher estimate of the alternate (heartbeat after each RTO) \
         makes RTX_TO_ALT less costly on a lossy alternate",
        "no size given: ALT − ALT with heartbeat after RTO significantly positive at the \
         highest alternate loss",
        PAIRED,
        format!(
            "at {last}%: ALT − (ALT + heartbeat after RTO) {} s",
            dhb.show(2)
        ),
        exceeds(&dhb, 0.0),
    ));
    out
}
