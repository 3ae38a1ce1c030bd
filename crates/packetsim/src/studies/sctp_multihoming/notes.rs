//! Notes for the checks that do not hold or cannot be decided, computed from the runs.

use super::*;

/// Notes for the checks that do not hold or cannot be decided, computed from this run's
/// results (see the checks module doc): measured numbers, or a labelled hypothesis.
pub(super) fn explain(figs: &[Results], checks: &mut [Check]) {
    let f = |dir: &str| figs.iter().find(|r| r.spec.dir == dir);
    let verdict_of =
        |checks: &[Check], id: &str| checks.iter().find(|c| c.id == id).map(|c| c.verdict.word());
    let ext = |id| verdict_of(checks, id);
    let window = window_note(f("fig2"));
    let f4 = f("fig4");
    let cross4 = f4.and_then(|f4| crossing_point(&policy_diffs(f4, "alt_4", "same_4")));
    let wrong_side = |d: &[(f64, Estimate)], tol: &Tolerance| {
        d.iter()
            .filter(|(x, e)| (*x <= tol.lo && e.lo() > 0.0) || (*x >= tol.hi && e.hi() < 0.0))
            .map(|(x, e)| format!("{x}% ({} s)", e.show(2)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ratio_note = |r: Option<&Results>| {
        let mut s = String::new();
        if let Some(r) = r {
            let _ = write!(
                s,
                "Measured: at ratio 1 SAME − ALT = {} s, so 4%/2% is not an equal point here \
                 (the primary-4% pair of Figure 4 crosses at {} by its means). ",
                r.diff("same", "alt", 1.0).show(2),
                show_crossing(cross4)
            );
        }
        match (ext("S12 at crossover"), ext("S13 at crossover")) {
            (Some(a), Some(b)) => {
                let _ = write!(
                    s,
                    "At packetsim's crossover (4%/1%): 'S12 at crossover' {a}, 'S13 at \
                     crossover' {b}."
                );
            }
            _ => s.push_str("The 4%/1% sweeps run only in full mode."),
        }
        s
    };
    let mut notes: Vec<(String, String)> = Vec::new();
    for c in checks.iter().filter(|c| c.verdict != Verdict::Holds) {
        let note = match c.id.as_str() {
            "S1" | "S2" | "S3" => window.clone(),
            "S7" | "S8" => match f4 {
                Some(f4) => {
                    let (pair, tol) = if c.id == "S7" {
                        ("4", Tolerance::about(2.0, "2%"))
                    } else {
                        ("2", Tolerance::about(0.5, "0.5%"))
                    };
                    let d = policy_diffs(f4, &format!("alt_{pair}"), &format!("same_{pair}"));
                    let w = wrong_side(&d, &tol);
                    // The crossover lies between the last point where ALT is significantly
                    // faster and the first where SAME is.
                    let last_neg = d
                        .iter()
                        .take_while(|(_, e)| e.hi() < 0.0)
                        .last()
                        .map(|p| p.0);
                    let first_pos = d.iter().find(|(_, e)| e.lo() > 0.0).map(|p| p.0);
                    let bracket = match (last_neg, first_pos) {
                        (Some(a), Some(b)) => format!(
                            "; the paired CIs place it between {a}% (ALT significantly faster up \
                             to here) and {b}% (SAME significantly faster from here)"
                        ),
                        _ => String::new(),
                    };
                    format!(
                        "Measured: the mean ALT − SAME crosses zero at {}{bracket}; {}",
                        show_crossing(crossing_point(&d)),
                        if w.is_empty() {
                            format!(
                                "that interval overlaps the tolerance [{}%, {}%], so these runs \
                                 can neither confirm nor reject the paper's crossover (more runs \
                                 or sweep points near it would)",
                                tol.lo, tol.hi
                            )
                        } else {
                            format!(
                                "significantly on the wrong side of [{}%, {}%] at {w}",
                                tol.lo, tol.hi
                            )
                        }
                    )
                }
                None => String::new(),
            },
            "S12" => ratio_note(f("fig5")),
            "S13" | "S15" => ratio_note(f("fig6")),
            _ => "No measured explanation in this run.".into(),
        };
        notes.push((c.id.clone(), note));
    }
    for (id, note) in notes {
        if let Some(c) = checks.iter_mut().find(|c| c.id == id) {
            c.note = note;
        }
    }
}

/// The note of S1-S3: the receive-window hypothesis, measured on Figure 2 (`f2`) where it ran.
fn window_note(f2: Option<&Results>) -> String {
    let mut window = String::from(
        "Hypothesis: SCTP's 64 KiB receive window (44 packets) against TCP's 20 segments lets \
         single-homed SCTP keep the ~14-packet pipe full through a fast retransmit.",
    );
    if let Some(f2) = f2 {
        let x = *f2.spec.xs.last().unwrap_or(&1.0);
        let d = f2.diff("sctp_single", "tcp_sack", x);
        let _ = write!(
            window,
            " Measured at {x}%: single-homed − SACK {} s (64 KiB window)",
            d.show(2)
        );
        if !f2.curve("sctp_single_w20").is_empty() {
            let d20 = f2.diff("sctp_single_w20", "tcp_sack", x);
            let (v1, _) = s1_verdict(f2, "sctp_multi_w20", "sctp_single_w20");
            let (v2, _) = s2_verdict(f2, "sctp_single_w20");
            let (v3, _) = s3_verdict(f2, "sctp_multi_w20", "sctp_single_w20");
            let _ = write!(
                window,
                ", {} s with a 20-packet window (same seeds). With equal windows S1 {}, S2 {}, \
                 S3 {}: the window explains {}.",
                d20.show(2),
                v1.word(),
                v2.word(),
                v3.word(),
                if v1 == Verdict::Holds && v2 == Verdict::Holds && v3 == Verdict::Holds {
                    "all three"
                } else {
                    "only the checks that hold with equal windows; the others stay unexplained"
                }
            );
            if v1 != Verdict::Holds {
                let (_, m1) = s1_verdict(f2, "sctp_multi_w20", "sctp_single_w20");
                let _ = write!(window, " S1's gaps with equal windows: {m1}.");
            }
        } else {
            window.push_str("; the equal-window curves that test this run only in full mode.");
        }
    }
    window
}
