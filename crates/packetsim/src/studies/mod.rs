//! Reproductions of published studies: each module runs a study's experiments through the
//! sweep engine (parallel, resumable), writes per-figure CSVs and SVG plots, and a report.md
//! that sets each of the paper's claims beside the measured result with a verdict.
//!
//! Implemented so far:
//! - `sctp-multihoming`: study 3 (spec/3-sctp-multihoming.md), Figures 2-6: SCTP single- and
//!   multihomed against TCP Reno and SACK (NewReno as an extension), the retransmission-path
//!   policies, and extension runs. It replaced `tcp-baselines`, which held the TCP curves only.
//! - `diffserv-ecn`: study 4 (spec/4-diffserv-ecn.md), Figures 2-5, 8, 9 and Tables 3-4.
//! - `wireless-bs-buffer`: study 2 (spec/2-wireless-bs-buffer.md), Figures 5-8, BS-E5 and
//!   the extensions (W_max, rate mode, radio loss).
//! - `atm-tcp`: study 1 (spec/1-atm.md), Figs 1-4, 7-8, the printed statistics, the
//!   sensitivities of §6 and extensions X1-X3.
//! - `micromobility`: study 5 (spec/5-micromobility.md), Figures 3-7 and extensions MM-X1..X5.
//!
//! Every study states and judges its claims through [`checks`] (read its module doc before
//! writing a study's checks): the whole claim, its tolerance and why, the statistic, the
//! numbers, a three-valued verdict, and notes computed from the run. Each study writes its
//! checks to `report.md` and to `checks.csv`.

pub mod atm_tcp;
pub mod checks;
pub mod diffserv_ecn;
pub mod micromobility;
pub mod sctp_multihoming;
pub mod shape;
#[cfg(test)]
mod validation_tables;
pub mod wireless_bs_buffer;

use std::path::{Path, PathBuf};

/// Options shared by every study's reproduction.
#[derive(Clone, Debug)]
pub struct ReproduceOptions {
    /// Output folder; each study writes into a subfolder named after it.
    pub out: PathBuf,
    /// Replications per point (None: the study's default, e.g. the paper's 100).
    pub runs: Option<u32>,
    /// A fast smoke version: few runs, few points.
    pub quick: bool,
    /// Parallel jobs (0 = all cores).
    pub jobs: usize,
    /// Show progress bars.
    pub progress: bool,
}

/// What a reproduction produced.
#[derive(Clone, Debug)]
pub struct StudyOutcome {
    /// The study's name.
    pub name: &'static str,
    /// Where its report is.
    pub report: PathBuf,
    /// Shape checks that held (all kinds).
    pub passed: usize,
    /// Shape checks that did not (all kinds).
    pub failed: usize,
    /// Shape checks the runs could not decide (all kinds).
    pub undecided: usize,
    /// The verdicts on the paper's own claims ([`checks::Kind::Paper`]).
    pub paper: checks::Counts,
    /// The verdicts on the study's extensions and sensitivities.
    pub beyond: checks::Counts,
}

impl StudyOutcome {
    /// The outcome with `more` checks (judged apart, [`shape::Shape::apart`]) added to its
    /// counts, each by its kind.
    pub fn counting(mut self, more: &[checks::Check]) -> StudyOutcome {
        let (p, f, u) = checks::counts(more);
        self.passed += p;
        self.failed += f;
        self.undecided += u;
        for (total, add) in [
            (&mut self.paper, checks::Counts::paper(more)),
            (&mut self.beyond, checks::Counts::beyond(more)),
        ] {
            total.holds += add.holds;
            total.fails += add.fails;
            total.undecided += add.undecided;
        }
        self
    }
}

/// A reproducible study: the shape every study follows.
///
/// A study is a folder `studies/<name>/` whose `mod.rs` holds its grid, its runs and its
/// figures. On the one driver ([`shape::drive`]) a study states them through
/// [`shape::Shape`] and its `run` is that call (sctp-multihoming, diffserv-ecn,
/// wireless-bs-buffer); the others' `run` still sweeps by itself. Every `run` ends in [`finish`], the one tail shared by every
/// study: it writes
/// `checks.csv` (and `ns2/checks.csv` for a study also run as ns-2.35 would) and `report.md`,
/// and counts the paper's claims apart from the rest. Its claims are judged through
/// [`checks`], and its reduced-run test through `checks::assert_seed_sets_agree`. The engine
/// a study runs on is chosen in its `run` alone, so moving a study to another engine changes
/// that one function.
pub struct Study {
    /// Its name on the command line.
    pub name: &'static str,
    /// One line about it.
    pub title: &'static str,
    /// The paper it reproduces, as its spec names it.
    pub paper: Paper,
    /// Runs it: its sweeps, its figures and CSVs, then [`finish`].
    pub run: fn(&ReproduceOptions) -> Result<StudyOutcome, String>,
}

/// The one outcome-writing tail of every study. `checks` are the study's judged checks; `ns2`
/// the same checks judged on its runs with `profile = "ns2"` when it ran them (written to
/// `root/ns2/checks.csv` and attached as the "as ns-2.35 would" column). Then writes
/// `root/checks.csv`, and `root/report.md` from `report`, which is given the checks with that
/// column attached; returns the outcome with its counts split by [`checks::Kind`].
pub fn finish(
    name: &'static str,
    root: &Path,
    mut checks: Vec<checks::Check>,
    ns2: Option<&[checks::Check]>,
    report: impl FnOnce(&[checks::Check]) -> Result<String, String>,
) -> Result<StudyOutcome, String> {
    let write = |path: PathBuf, text: &str| {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        crate::report::write_atomic(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    if let Some(ns2) = ns2 {
        write(root.join("ns2").join("checks.csv"), &checks::csv(ns2))?;
        checks::attach_ns2(&mut checks, ns2);
    }
    write(root.join("checks.csv"), &checks::csv(&checks))?;
    let md = report(&checks)?;
    let path = root.join("report.md");
    write(path.clone(), &md)?;
    let (passed, failed, undecided) = checks::counts(&checks);
    Ok(StudyOutcome {
        name,
        report: path,
        passed,
        failed,
        undecided,
        paper: checks::Counts::paper(&checks),
        beyond: checks::Counts::beyond(&checks),
    })
}

/// Every study implemented so far, in the order `reproduce all` runs them.
pub const STUDIES: &[Study] = &[
    Study {
        name: sctp_multihoming::NAME,
        title:
            "SCTP multihoming vs TCP Reno/SACK, retransmission-path policies (study 3, Figs 2-6)",
        paper: Paper {
            title: "Performance Evaluation on SCTP multi-homing Feature",
            authors: "Jeonghwa Song, Meejeong Lee (Ewha Womans University) and Seokjoo Koh (ETRI)",
            venue: "A journal paper, received 26 Aug 2003 and accepted 23 Feb 2004 (the spec does \
                not name the journal)",
            tool: "ns-2 with its TCP Reno and SACK agents and the University of Delaware SCTP \
               module",
            spec: "spec/3-sctp-multihoming.md",
        },
        run: sctp_multihoming::run,
    },
    Study {
        name: diffserv_ecn::NAME,
        title: "TCP ECN in a DiffServ Assured Service: token bucket, RIO, RED, WRR (study 4)",
        paper: Paper {
            title: "Study on TCP ECN's Capability of Improving the Performance of \
                Differentiated Services Architecture",
            authors: "Jong Chae Oh and Jae-il Jung (Hanyang University)",
            venue: "A Korean paper (the spec does not name the venue)",
            tool: "ns-2 with Sean Murphy's DiffServ patch, extended by the authors with ECN",
            spec: "spec/4-diffserv-ecn.md",
        },
        run: diffserv_ecn::run,
    },
    Study {
        name: wireless_bs_buffer::NAME,
        title: "Wireless TCP with the receive window driven by the BS buffer (study 2, Figs 5-8)",
        paper: Paper {
            title: "Improving Wireless TCP Performance Using BS Buffer State",
            authors: "Namgi Kim, Dongwook Kim and Hyunsoo Yoon (KAIST)",
            venue: "A Korean paper (the spec does not name the venue)",
            tool: "the ns network simulator (ns-2 assumed)",
            spec: "spec/2-wireless-bs-buffer.md",
        },
        run: wireless_bs_buffer::run,
    },
    Study {
        name: atm_tcp::NAME,
        title: "TCP over ATM: AAL5, slotted cell switch, PPD/EPD, minimum RTO (study 1)",
        paper: Paper {
            title: "Efficient TCP Traffic Control Over ATM Networks",
            authors: "Jae-Won Lee and Hyunsoo Yoon (KAIST)",
            venue: "A Korean paper (the spec does not name the venue)",
            tool: "YATS 0.1, a slotted cell-level ATM simulator from TU Dresden",
            spec: "spec/1-atm.md",
        },
        run: atm_tcp::run,
    },
    Study {
        name: micromobility::NAME,
        title: "TCP Tahoe/Reno/NewReno/SACK over Cellular IP and HAWAII micro-mobility (study 5)",
        paper: Paper {
            title: "Evaluating the performance of Variant TCP over Micro-mobility protocols",
            authors: "Wondong Yun, Dongkyun Kim and Yanghee Choi (Seoul National University)",
            venue: "A Korean paper (the spec does not name the venue)",
            tool: "ns-2 with the Columbia IP Micro-mobility Suite (CIMS)",
            spec: "spec/5-micromobility.md",
        },
        run: micromobility::run,
    },
];

/// The published paper a study reproduces, as its spec names it (shared/spec/N-*.md §1).
#[derive(Clone, Copy, Debug)]
pub struct Paper {
    /// The English title as printed.
    pub title: &'static str,
    /// The authors and their institutions.
    pub authors: &'static str,
    /// Where it appeared, as far as the spec says.
    pub venue: &'static str,
    /// The simulator the authors used.
    pub tool: &'static str,
    /// The spec file that describes it.
    pub spec: &'static str,
}

/// The paper the study named `study` reproduces, if [`STUDIES`] has it.
pub fn paper(study: &str) -> Option<&'static Paper> {
    STUDIES.iter().find(|s| s.name == study).map(|s| &s.paper)
}

/// The first lines of a report written in quick mode (issue 12: quick verdicts are indicative).
pub const QUICK_BANNER: &str = "> **Quick mode (`--quick`): indicative only.** Few runs and few \
points: every verdict below is a smoke result, not a finding; run without `--quick` to decide.\n\n";

/// Runs `study` with `opts`; in quick mode its report.md then starts with [`QUICK_BANNER`]
/// (once, however often the study is resumed).
pub fn reproduce(study: &Study, opts: &ReproduceOptions) -> Result<StudyOutcome, String> {
    let o = (study.run)(opts)?;
    if opts.quick {
        mark_indicative(&o.report)?;
    }
    Ok(o)
}

/// Puts [`QUICK_BANNER`] at the top of the report at `path` unless it is already there.
pub fn mark_indicative(path: &std::path::Path) -> Result<(), String> {
    let md = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if md.starts_with(QUICK_BANNER) {
        return Ok(());
    }
    crate::report::write_atomic(path, &format!("{QUICK_BANNER}{md}"))
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod quick_tests {
    use super::*;

    /// Checks judged apart (DiffServ's sensitivity grid) join the headline counts by kind.
    #[test]
    fn checks_judged_apart_join_the_counts_by_kind() {
        let check = |id: &str, kind: checks::Kind, verdict: checks::Verdict| {
            let mut c = checks::Check::new(id, "claim", "tol", "stat", String::new(), verdict);
            c.kind = kind;
            c
        };
        let own = [check("S1", checks::Kind::Paper, checks::Verdict::Holds)];
        let o = StudyOutcome {
            name: "x",
            report: PathBuf::new(),
            passed: 1,
            failed: 0,
            undecided: 0,
            paper: checks::Counts::paper(&own),
            beyond: checks::Counts::beyond(&own),
        };
        let more = [
            check(
                "T1",
                checks::Kind::Sensitivity,
                checks::Verdict::DoesNotHold,
            ),
            check("T2", checks::Kind::Sensitivity, checks::Verdict::Holds),
        ];
        let o = o.counting(&more);
        assert_eq!((o.passed, o.failed, o.undecided), (2, 1, 0));
        assert_eq!((o.paper.holds, o.paper.total()), (1, 1));
        assert_eq!(
            (o.beyond.holds, o.beyond.fails, o.beyond.total()),
            (1, 1, 2)
        );
    }

    #[test]
    fn every_study_names_its_paper() {
        for s in STUDIES {
            let p = paper(s.name).unwrap_or_else(|| panic!("{} has no paper", s.name));
            assert!(!p.title.is_empty() && !p.authors.is_empty(), "{}", s.name);
            assert!(
                p.spec.starts_with("spec/") && p.spec.ends_with(".md"),
                "{}",
                p.spec
            );
        }
        assert!(paper("no-such-study").is_none());
    }

    #[test]
    fn a_quick_report_is_marked_indicative_once() {
        let d = std::env::temp_dir().join(format!("packetsim-quick-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("report.md");
        std::fs::write(&p, "# Study\n\n| S1 | holds |\n").unwrap();
        mark_indicative(&p).unwrap();
        mark_indicative(&p).unwrap();
        let md = std::fs::read_to_string(&p).unwrap();
        assert_eq!(md, format!("{QUICK_BANNER}# Study\n\n| S1 | holds |\n"));
        assert!(mark_indicative(&d.join("absent.md"))
            .unwrap_err()
            .contains("absent.md"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
