//! Notes for the checks that do not hold or cannot be decided, computed from the runs and
//! the ns-2.35 data files.

use super::*;

/// Notes for the checks that do not hold or cannot be decided, computed from this run (and
/// the ns-2.35 data files), or labelled as hypotheses.
pub(super) fn explain(checks: &mut [Check], r: &Results, sens: &Results, ns2c: &Results) {
    let wrr = |class_kbps: &str, share: f64, what: &str| {
        format!(
            "{what} class throughput {:.1} -> {:.1} kb/s; a permanently backlogged {what} class \
             gets {share:.1} kb/s under WRR (its weight's share of the 4,600 kb/s EF leaves)",
            r.m(1, "none", class_kbps),
            r.m(1, "af", class_kbps),
        )
    };
    let ns2_s1 = shape_checks(ns2c)
        .into_iter()
        .find(|c| c.id == "S1")
        .map(|c| c.verdict.word());
    for c in checks.iter_mut().filter(|c| c.verdict != Verdict::Holds) {
        c.note = match c.id.as_str() {
            "S1" | "S8" => {
                let q = (r.af_queue_len(1, "none"), r.af_queue_len(1, "af"));
                let mut s = format!(
                    "Measured: {}; the AF queue holds {} / {} packets on average. Hypothesis \
                     (the queue's empty time is not measured): WRR fixes AF's class \
                     throughput because the AF queue is backlogged nearly all the time, so ECN \
                     can only redistribute AF's goodput (S2).",
                    wrr("af_class_kbps", 4600.0 * 4.0 / 9.0, "AF"),
                    q.0.show(1),
                    q.1.show(1)
                );
                if c.id == "S1" {
                    let _ = write!(
                        s,
                        " With ns-2.35's dsRED RED count (section below) S1 {}: AF mean {:.1} -> \
                         {:.1} kb/s, with OUT forced drops of {:.3}% without ECN, which S6 rules \
                         out.",
                        ns2_s1.unwrap_or("n/a"),
                        ns2c.m(1, "none", "af_mean_kbps"),
                        ns2c.m(1, "af", "af_mean_kbps"),
                        ns2c.m(1, "none", "out_forced_pct")
                    );
                } else {
                    let _ = write!(
                        s,
                        " Sim 2: AF std {:.1} -> {:.1} kb/s here, {:.1} -> {:.1} at {SENSITIVITY_DEPTH} B, \
                         {:.1} -> {:.1} in ns-2.35 (stock ECN, {BUCKET_DEPTH} B): ECN evens AF out in Sim 2 \
                         in every model run, against the paper's 'does not improve'.",
                        r.m(2, "none", "af_std_kbps"),
                        r.m(2, "af", "af_std_kbps"),
                        sens.m(2, "none", "af_std_kbps"),
                        sens.m(2, "af", "af_std_kbps"),
                        ns2::get(2, "none", BUCKET_DEPTH, "af_std"),
                        ns2::get(2, "af", BUCKET_DEPTH, "af_std"),
                    );
                }
                s
            }
            "S4" | "S9" => {
                let sim = if c.id == "S4" { 1 } else { 2 };
                format!(
                    "Measured (Sim {sim}, 'ecn to AF' -> 'ecn to AF, BE'): BE class throughput \
                     {:.1} -> {:.1} kb/s (a backlogged BE class gets {:.1}); BE std {:.1} -> \
                     {:.1}; AF std {:.1} -> {:.1}. ns-2.35 ({BUCKET_DEPTH} B): BE mean {:.1} -> {:.1}, \
                     AF std {:.1} -> {:.1}. Hypothesis: with separate class queues behind one \
                     WRR, BE's ECN neither raises BE's share nor touches AF.",
                    BE_FLOWS as f64 * r.m(sim, "af", "be_mean_kbps"),
                    BE_FLOWS as f64 * r.m(sim, "afbe", "be_mean_kbps"),
                    4600.0 * 5.0 / 9.0,
                    r.m(sim, "af", "be_std_kbps"),
                    r.m(sim, "afbe", "be_std_kbps"),
                    r.m(sim, "af", "af_std_kbps"),
                    r.m(sim, "afbe", "af_std_kbps"),
                    ns2::get(sim, "af", BUCKET_DEPTH, "be_mean"),
                    ns2::get(sim, "afbe", BUCKET_DEPTH, "be_mean"),
                    ns2::get(sim, "af", BUCKET_DEPTH, "af_std"),
                    ns2::get(sim, "afbe", BUCKET_DEPTH, "af_std"),
                )
            }
            "S5" | "N1" => format!(
                "Measured: OUT/IN (Sim 1, no ecn) {:.1}% at {BUCKET_DEPTH} B and {:.1}% at \
                 {SENSITIVITY_DEPTH} B; ns-2.35 on the same script {:.1}% at {BUCKET_DEPTH} B. {}. \
                 Hypothesis: WRR serves AF in bursts of up to 4 packets, so window-limited, \
                 ACK-clocked senders send in clumps and a shallow bucket marks much of each \
                 clump OUT: the paper's bucket was deeper than the INFERRED 2 packets.",
                r.m(1, "none", "out_in_pct"),
                sens.m(1, "none", "out_in_pct"),
                ns2::get(1, "none", BUCKET_DEPTH, "out_in"),
                ns2::depth_line()
            ),
            "S7" => format!(
                "Measured: flows below 333.3 kb/s per run {:.2} / {:.2} at {BUCKET_DEPTH} B, {:.2} / \
                 {:.2} at {SENSITIVITY_DEPTH} B; ns-2.35 {:.2} / {:.2} ({BUCKET_DEPTH} B). The paper's \
                 counts are one run's flow identities (spec 4 Q8).",
                r.m(2, "none", "af_below_share"),
                r.m(2, "af", "af_below_share"),
                sens.m(2, "none", "af_below_share"),
                sens.m(2, "af", "af_below_share"),
                ns2::get(2, "none", BUCKET_DEPTH, "af_below"),
                ns2::get(2, "af", BUCKET_DEPTH, "af_below"),
            ),
            "S10" => {
                let nonzero = |k: &str| {
                    let v = r.vals(2, k, "in_forced_pct");
                    format!("{} of {}", v.iter().filter(|&&x| x > 0.0).count(), v.len())
                };
                format!(
                    "Measured: runs with any IN forced drop in Sim 2: {} / {} / {}; OUT/IN with \
                     ECN {:.1}% (Sim 2) vs {:.1}% (Sim 1); ns-2.35's IN forced drop ratio \
                     {:.3} / {:.3} / {:.3}%.",
                    nonzero("none"),
                    nonzero("af"),
                    nonzero("afbe"),
                    r.m(2, "af", "out_in_pct"),
                    r.m(1, "af", "out_in_pct"),
                    ns2::get(2, "none", BUCKET_DEPTH, "in_drops"),
                    ns2::get(2, "af", BUCKET_DEPTH, "in_drops"),
                    ns2::get(2, "afbe", BUCKET_DEPTH, "in_drops"),
                )
            }
            _ if c.verdict == Verdict::NotDecidable => format!(
                "Not decidable with {} runs per scenario: at least one interval in the measured \
                 column straddles the claim's bound (the scenarios share their seeds, so the \
                 comparison is already paired).",
                r.vals(1, "none", "af_mean_kbps").len()
            ),
            _ => "No measured explanation in this run.".into(),
        };
    }
}
