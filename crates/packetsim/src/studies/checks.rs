//! Shape checks: how a study turns a paper's claim and its own runs into a verdict. Every
//! study judges its claims here, so that a "holds" means the same thing in every report.
//!
//! # The contract of a check
//!
//! A [`Check`] carries five things, all printed in the report's table and in `checks.csv`:
//!
//! 1. **The claim, whole.** The spec's words (§5.1 of each spec), every part of them: "the
//!    order is A < B < C *and the gaps widen*" is two parts, and the check judges both. A
//!    part that cannot be measured is said to be unmeasured in the claim's text, never
//!    silently dropped.
//! 2. **The tolerance and why.** Where the spec's acceptance text gives one (spec 4 §5.2's
//!    "±25% relative"), use it and cite it. Otherwise argue it *before looking at the data*,
//!    in the spec's terms, and write the argument down in [`Check::tolerance`]. Fixed
//!    readings, used by every study unless its spec says otherwise:
//!    - "about X" means [0.75 X, 1.25 X] (so "about 2%" is [1.5%, 2.5%]);
//!    - "almost the same" / "about equal" means the difference is within ±5% of the value;
//!    - "beats" / "faster" / "higher" between two curves means a significant difference (the
//!      CI of the paired difference excludes zero) of at least the claim's minimum effect;
//!      a claim that names no size ("A is slower than B", an ordering) has a minimum effect
//!      of zero and then can only hold, or fail by a significant difference the other way;
//!    - adjectives of size ("markedly", "far", "clearly", "much") set a minimum effect, stated
//!      with the check ("markedly lower std dev: by at least 25%").
//! 3. **The statistic.** Which estimate with which confidence interval: a paired difference
//!    over common random numbers ([`Estimate::paired`]), a Welch difference of independent
//!    samples ([`Estimate::welch`]), the mean of one sample ([`Estimate::mean`]), or a sum of
//!    independent estimates ([`Estimate::combine`]). Always a 95% Student-t interval.
//! 4. **The numbers.** The measured estimates with their intervals, in [`Check::measured`].
//! 5. **The verdict**, three-valued ([`Verdict`]): holds / does not hold / not decidable.
//!
//! # Rules of judgement
//!
//! All rules judge an interval, never a bare mean, and none of them can turn noise into a
//! "holds":
//! - [`exceeds`]`(d, min)`: the claim "d > 0 by at least `min`". Holds when the CI's lower
//!   end is above zero and the mean is at least `min`; does not hold when the CI's upper end
//!   is below `min` (the effect, if any, is smaller than the claim needs; with `min = 0`: a
//!   significant difference the other way); otherwise not decidable.
//! - [`below`]`(e, bound)`: "e < bound". Holds when the CI's upper end is below `bound`, does
//!   not hold when its lower end is above it, otherwise not decidable. [`above`] mirrors it.
//! - [`within`]`(e, tol)`: "e in [lo, hi]". Holds when the whole CI is inside, does not hold
//!   when the whole CI is outside, otherwise not decidable.
//! - [`equivalent`]`(d, margin)`: "about equal": [`within`] on [−margin, +margin].
//! - [`crossover`]: "a − b changes sign from negative to positive at about x₀": holds when
//!   every sweep point below the tolerance has a − b significantly negative and every point
//!   above it significantly positive; does not hold when a point at or below the tolerance's
//!   low end is significantly positive, or one at or above its high end significantly
//!   negative (the crossover is then significantly outside the tolerance).
//! - [`all`] joins the parts of one claim: does not hold if any part does not; else not
//!   decidable if any part is not; else holds.
//!
//! Fewer than [`MIN_RUNS`] runs behind an estimate makes it not decidable, whatever its
//! interval says (a t interval on two or three runs is too fragile to convict or acquit):
//! this is what `--quick` runs get for most comparative checks.
//!
//! # Notes
//!
//! [`Check::note`] explains a verdict that is not "holds". It must cite numbers the study
//! measured in that run (another curve's ordering, a queue's occupancy, a counter), computed
//! when the report is written, or begin with "Hypothesis:" when it is an unmeasured
//! explanation. Canned prose attached to whatever fails is not allowed.
//!
//! # Writing a new study's checks (studies 1, 2 and 5)
//!
//! 1. Give every curve of a figure the same seeds at each x (`shared_seed_params`), so that
//!    comparisons are paired; keep the per-run values (`SweepReport::runs`).
//! 2. For each §5.1 claim, write the claim text first (all its parts), then the tolerance or
//!    minimum effect with its reason (module doc above), then the statistic, and only then
//!    run the study. Do not tune a tolerance after seeing the data; if one was wrong, say so
//!    in the commit and the report.
//! 3. Join the parts with [`all`]; put the estimates with their CIs in `measured`.
//! 4. Write notes from the run (see Notes); a check that does not hold and has no measured
//!    explanation says so.
//! 5. Write `checks.csv` with [`csv`] and the report's table with [`table`]; count with
//!    [`counts`]. The reduced test runs two disjoint seed sets and asserts that no verdict is
//!    "holds" in one and "does not hold" in the other.
//!
//! ```
//! use packetsim::studies::checks::{exceeds, Estimate, Verdict};
//! // Transfer times (seed, s) of two policies at one x, paired by seed.
//! let alt = [(1, 40.0), (2, 42.0), (3, 41.0), (4, 43.0), (5, 40.5)];
//! let same = [(1, 44.0), (2, 45.5), (3, 44.0), (4, 46.0), (5, 44.5)];
//! // "ALT beats SAME": SAME − ALT significantly positive and at least 2% of SAME's time.
//! let d = Estimate::paired(&same, &alt).expect("same seeds");
//! assert_eq!(exceeds(&d, 0.02 * 44.8), Verdict::Holds);
//! ```
//!
//! # Pairing
//!
//! A study's sweep pairs curves by giving them the same seeds at each x
//! (`SweepSpec::shared_seed_params`). [`Estimate::paired`] checks the seeds run by run and
//! refuses (returns `None`) to pair samples whose seeds differ; [`Estimate::difference`]
//! pairs when the seeds match and falls back to Welch when they do not, and says which it
//! used.
//!
//! # Library and formula
//!
//! The Student-t quantile behind every interval is statrs' (`packetsim_kernel::stats::t95`),
//! and means and variances are the kernel's `RunningStats`. The Welch-Satterthwaite degrees
//! of freedom of a difference or a sum of independent estimates ([`Estimate::combine`], which
//! [`Estimate::welch`] uses) stay a formula here, ν = (Σ wᵢ²sᵢ²)² / Σ ((wᵢ²sᵢ²)² / νᵢ) rounded
//! down: statrs has no Welch test and no function for these degrees of freedom (the tests
//! `combine_of_independent_estimates_adds_variances` and
//! `welch_degrees_of_freedom_of_unequal_samples` check the formula).

use packetsim_kernel::stats::{t95, RunningStats};
use std::fmt;

/// Runs below which an estimate's verdict is not decidable.
pub const MIN_RUNS: usize = 5;

/// A check's three-valued verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The measured interval supports the claim.
    Holds,
    /// The measured interval contradicts the claim.
    DoesNotHold,
    /// The runs cannot tell (too few runs, or an interval that straddles the claim's bound).
    NotDecidable,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "DOES NOT HOLD",
            Verdict::NotDecidable => "not decidable",
        })
    }
}

impl Verdict {
    /// The verdict as a lower-case word for prose and CSV.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::NotDecidable => "not decidable",
        }
    }
}

/// A mean (or difference of means) with its 95% Student-t confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Point estimate.
    pub mean: f64,
    /// Standard error of `mean`.
    pub se: f64,
    /// Degrees of freedom of the t interval.
    pub df: u64,
    /// Runs behind it (the smallest sample when several are combined).
    pub n: usize,
    /// Which statistic: "mean", "paired", "Welch", "combined".
    pub how: &'static str,
}

impl Estimate {
    /// Lower end of the 95% CI.
    pub fn lo(&self) -> f64 {
        self.mean - self.half()
    }
    /// Upper end of the 95% CI.
    pub fn hi(&self) -> f64 {
        self.mean + self.half()
    }
    /// CI half-width (infinite with no degrees of freedom, zero when every run agrees).
    pub fn half(&self) -> f64 {
        if self.se == 0.0 {
            0.0
        } else {
            t95(self.df) * self.se
        }
    }
    /// Whether enough runs stand behind it to judge.
    pub fn decidable(&self) -> bool {
        self.n >= MIN_RUNS && self.mean.is_finite()
    }

    /// The mean of `xs` (missing runs left out).
    pub fn mean(xs: &[f64]) -> Estimate {
        let mut s = RunningStats::default();
        xs.iter().filter(|x| x.is_finite()).for_each(|&x| s.push(x));
        let n = s.count() as usize;
        Estimate {
            mean: if n == 0 { f64::NAN } else { s.mean() },
            se: if n < 2 {
                f64::INFINITY
            } else {
                s.std_dev() / (n as f64).sqrt()
            },
            df: (n as u64).saturating_sub(1),
            n,
            how: "mean",
        }
    }

    /// The paired difference a − b over runs with the same seeds, `(seed, value)` in
    /// replication order; `None` if the seeds do not match run for run.
    pub fn paired(a: &[(u64, f64)], b: &[(u64, f64)]) -> Option<Estimate> {
        if a.len() != b.len() || a.iter().zip(b).any(|(x, y)| x.0 != y.0) {
            return None;
        }
        let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x.1 - y.1).collect();
        Some(Estimate {
            how: "paired",
            ..Estimate::mean(&d)
        })
    }

    /// The difference of means a − b of independent samples (Welch's unequal-variance t).
    pub fn welch(a: &[f64], b: &[f64]) -> Estimate {
        let (ea, eb) = (Estimate::mean(a), Estimate::mean(b));
        Estimate::combine(&[(1.0, ea), (-1.0, eb)], "Welch")
    }

    /// a − b: paired when the seeds match run for run, Welch otherwise.
    pub fn difference(a: &[(u64, f64)], b: &[(u64, f64)]) -> Estimate {
        Estimate::paired(a, b).unwrap_or_else(|| {
            let v = |s: &[(u64, f64)]| s.iter().map(|x| x.1).collect::<Vec<_>>();
            Estimate::welch(&v(a), &v(b))
        })
    }

    /// Σ wᵢ·eᵢ of independent estimates, with Welch-Satterthwaite degrees of freedom.
    pub fn combine(terms: &[(f64, Estimate)], how: &'static str) -> Estimate {
        let mean = terms.iter().map(|(w, e)| w * e.mean).sum();
        let var: f64 = terms.iter().map(|(w, e)| (w * e.se).powi(2)).sum();
        let n = terms.iter().map(|t| t.1.n).min().unwrap_or(0);
        let denom: f64 = terms
            .iter()
            .map(|(w, e)| (w * e.se).powi(4) / e.df.max(1) as f64)
            .sum();
        let df = if var == 0.0 || denom == 0.0 {
            terms.iter().map(|t| t.1.df).min().unwrap_or(0)
        } else if !var.is_finite() {
            0
        } else {
            ((var * var / denom).floor() as u64).max(1)
        };
        Estimate {
            mean,
            se: var.sqrt(),
            df,
            n,
            how,
        }
    }

    /// `mean [lo, hi]` with `digits` decimals.
    pub fn show(&self, digits: usize) -> String {
        if !self.mean.is_finite() {
            return "n/a".into();
        }
        if self.se.is_infinite() || self.df == 0 {
            return format!("{:.digits$} (n={})", self.mean, self.n);
        }
        format!(
            "{:.digits$} [{:.digits$}, {:.digits$}]",
            self.mean,
            self.lo(),
            self.hi()
        )
    }
}

/// The claim "d > 0, by at least `min_effect`" (see the module doc).
pub fn exceeds(d: &Estimate, min_effect: f64) -> Verdict {
    if !d.decidable() {
        Verdict::NotDecidable
    } else if d.lo() > 0.0 && d.mean >= min_effect {
        Verdict::Holds
    } else if d.hi() < min_effect {
        Verdict::DoesNotHold
    } else {
        Verdict::NotDecidable
    }
}

/// The claim "e < bound".
pub fn below(e: &Estimate, bound: f64) -> Verdict {
    if !e.decidable() {
        Verdict::NotDecidable
    } else if e.hi() < bound {
        Verdict::Holds
    } else if e.lo() > bound {
        Verdict::DoesNotHold
    } else {
        Verdict::NotDecidable
    }
}

/// The claim "e > bound".
pub fn above(e: &Estimate, bound: f64) -> Verdict {
    if !e.decidable() {
        Verdict::NotDecidable
    } else if e.lo() > bound {
        Verdict::Holds
    } else if e.hi() < bound {
        Verdict::DoesNotHold
    } else {
        Verdict::NotDecidable
    }
}

/// A closed range the spec (or the check's argument) accepts, with the reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerance {
    /// Lowest accepted value.
    pub lo: f64,
    /// Highest accepted value.
    pub hi: f64,
    /// Why this range: the spec's acceptance text, or the argument made before the data.
    pub reason: String,
}

impl Tolerance {
    /// "about `x`": [0.75 x, 1.25 x] (the module doc's reading).
    pub fn about(x: f64, what: &str) -> Tolerance {
        Tolerance {
            lo: 0.75 * x,
            hi: 1.25 * x,
            reason: format!("\"about {what}\" read as ±25%"),
        }
    }
}

/// The claim "e lies in [tol.lo, tol.hi]".
pub fn within(e: &Estimate, tol: &Tolerance) -> Verdict {
    if !e.decidable() {
        Verdict::NotDecidable
    } else if e.lo() >= tol.lo && e.hi() <= tol.hi {
        Verdict::Holds
    } else if e.hi() < tol.lo || e.lo() > tol.hi {
        Verdict::DoesNotHold
    } else {
        Verdict::NotDecidable
    }
}

/// The claim "d is about zero": within ±`margin`.
pub fn equivalent(d: &Estimate, margin: f64) -> Verdict {
    within(
        d,
        &Tolerance {
            lo: -margin,
            hi: margin,
            reason: String::new(),
        },
    )
}

/// The claim "a − b goes from negative to positive, crossing zero inside `tol`", judged on
/// the differences `d` at each sweep point `(x, a − b)` (see the module doc). Points inside
/// the tolerance are not required to be significant either way.
pub fn crossover(d: &[(f64, Estimate)], tol: &Tolerance) -> Verdict {
    if d.iter().any(|(_, e)| !e.decidable()) {
        return Verdict::NotDecidable;
    }
    let sig_pos = |e: &Estimate| e.lo() > 0.0;
    let sig_neg = |e: &Estimate| e.hi() < 0.0;
    let wrong = d
        .iter()
        .any(|(x, e)| (*x <= tol.lo && sig_pos(e)) || (*x >= tol.hi && sig_neg(e)));
    if wrong {
        return Verdict::DoesNotHold;
    }
    let below: Vec<_> = d.iter().filter(|(x, _)| *x < tol.lo).collect();
    let above: Vec<_> = d.iter().filter(|(x, _)| *x > tol.hi).collect();
    if !below.is_empty()
        && !above.is_empty()
        && below.iter().all(|(_, e)| sig_neg(e))
        && above.iter().all(|(_, e)| sig_pos(e))
    {
        Verdict::Holds
    } else {
        Verdict::NotDecidable
    }
}

/// Where the means of `d` (x, a − b) first go from negative to non-negative, linearly
/// interpolated; `None` if they never do. A point estimate for the report, not a verdict.
pub fn crossing_point(d: &[(f64, Estimate)]) -> Option<f64> {
    d.windows(2).find_map(|w| {
        let ((x0, e0), (x1, e1)) = (&w[0], &w[1]);
        (e0.mean < 0.0 && e1.mean >= 0.0).then(|| x0 + (x1 - x0) * (-e0.mean) / (e1.mean - e0.mean))
    })
}

/// The parts of one claim joined: does not hold if any part does not, else not decidable if
/// any part is not, else holds (and holds for no parts).
pub fn all(parts: &[Verdict]) -> Verdict {
    if parts.contains(&Verdict::DoesNotHold) {
        Verdict::DoesNotHold
    } else if parts.contains(&Verdict::NotDecidable) {
        Verdict::NotDecidable
    } else {
        Verdict::Holds
    }
}

/// What a check judges: one of the paper's own claims, or something the study adds to them.
/// Headline counts are split by it (issue 35: a reader must see the paper's claims apart from
/// the study's extensions and sensitivities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A claim the paper makes: a spec §5.1 shape claim ("S7") or a number the paper prints,
    /// judged with the spec's tolerance ("N1").
    Paper,
    /// A check beyond the paper: a baseline of the model, an extension experiment
    /// ("baseline", "ext. ...", "S1-S3, equal windows").
    Extension,
    /// One of the paper's claims judged again under a changed assumption or operating point:
    /// the spec's open questions ("Q4") and claims at another point ("S12 at crossover").
    Sensitivity,
}

impl Kind {
    /// The kind an id names: `S<n>` and `N<n>` are the paper's claims; `Q<n>` and "... at
    /// crossover" sensitivities; anything else an extension. A study whose ids do not follow
    /// this sets [`Check::kind`] itself.
    pub fn of_id(id: &str) -> Kind {
        let numbered = |p: char| {
            id.len() > 1 && id.starts_with(p) && id[1..].bytes().all(|b| b.is_ascii_digit())
        };
        if numbered('S') || numbered('N') {
            Kind::Paper
        } else if numbered('Q') || id.ends_with(" at crossover") {
            Kind::Sensitivity
        } else {
            Kind::Extension
        }
    }

    /// The kind as a word for `checks.csv`.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Paper => "paper",
            Kind::Extension => "extension",
            Kind::Sensitivity => "sensitivity",
        }
    }
}

/// One shape check, as the report and `checks.csv` print it (see the module doc).
#[derive(Clone, Debug)]
pub struct Check {
    /// The spec's id ("S7"), or a name for a check beyond the spec ("Q4", "ext. ...").
    pub id: String,
    /// Whether it is one of the paper's claims ([`Kind::of_id`] unless the study says).
    pub kind: Kind,
    /// The claim as the spec words it, every part.
    pub claim: String,
    /// The tolerance or minimum effect of each part, and the reason for it.
    pub tolerance: String,
    /// The statistic(s) used.
    pub statistic: String,
    /// The measured numbers.
    pub measured: String,
    /// The verdict.
    pub verdict: Verdict,
    /// For a verdict other than "holds": measured reasons, or a labelled hypothesis.
    pub note: String,
    /// The same claim judged on runs with `profile = "ns2"` (issue 14: "as ns-2.35 would"),
    /// when the study ran them; set by [`attach_ns2`].
    pub as_ns2: Option<Ns2Verdict>,
}

/// A check's verdict and numbers on the same experiments run with `profile = "ns2"`
/// (ns-2.35's mechanisms: scenario/profile.rs), for a study whose paper used ns-2.
#[derive(Clone, Debug, PartialEq)]
pub struct Ns2Verdict {
    /// The verdict with the profile.
    pub verdict: Verdict,
    /// The measured numbers with the profile.
    pub measured: String,
}

/// Sets [`Check::as_ns2`] of each check from the check of the same id in `ns2` (the same
/// checks computed on the runs with `profile = "ns2"`). A check with no counterpart keeps
/// `None` and its cell says so.
pub fn attach_ns2(checks: &mut [Check], ns2: &[Check]) {
    for c in checks {
        c.as_ns2 = ns2.iter().find(|o| o.id == c.id).map(|o| Ns2Verdict {
            verdict: o.verdict,
            measured: o.measured.clone(),
        });
    }
}

/// The "as ns-2.35 would" cell of a check: `same` when the profile's verdict equals the
/// check's, the profile's verdict otherwise, `not run` without a counterpart.
fn ns2_cell(c: &Check) -> String {
    match &c.as_ns2 {
        None => "not run".into(),
        Some(n) if n.verdict == c.verdict => "same".into(),
        Some(n) => n.verdict.to_string(),
    }
}

/// Whether any check carries a verdict with `profile = "ns2"` (the table and the CSV then
/// gain their "as ns-2.35 would" column).
fn has_ns2(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.as_ns2.is_some())
}

/// A report's "As ns-2.35 would" section: `how` (what was run again and where its numbers
/// are), then the checks whose verdict the profile changes ([`ns2_changes`]) or a sentence
/// saying that none does.
pub fn ns2_section(how: &str, checks: &[Check]) -> String {
    let changes = ns2_changes(checks);
    format!(
        "## As ns-2.35 would\n\n{how} Column \"as ns-2.35 would\" of the shape checks gives \
         the verdict with ns-2.35's mechanisms (\"same\" when it does not change). {}\n\n{changes}",
        if changes.is_empty() {
            "The profile changes no verdict."
        } else {
            "Verdicts it changes:"
        }
    )
}

/// The checks whose verdict `profile = "ns2"` changes, as a Markdown list with the profile's
/// numbers beside the standard ones; empty when none changes.
pub fn ns2_changes(checks: &[Check]) -> String {
    let mut s = String::new();
    for c in checks {
        if let Some(n) = c.as_ns2.as_ref().filter(|n| n.verdict != c.verdict) {
            s.push_str(&format!(
                "- **{}**: {} (standard: {}) → {} (ns-2.35's mechanisms: {})\n",
                c.id,
                c.verdict.word(),
                c.measured.replace('\n', " "),
                n.verdict.word(),
                n.measured.replace('\n', " ")
            ));
        }
    }
    s
}

impl Check {
    /// A check with no note yet (notes are computed after all checks are judged).
    pub fn new(
        id: &str,
        claim: &str,
        tolerance: &str,
        statistic: &str,
        measured: String,
        verdict: Verdict,
    ) -> Check {
        Check {
            id: id.into(),
            kind: Kind::of_id(id),
            claim: claim.into(),
            tolerance: tolerance.into(),
            statistic: statistic.into(),
            measured,
            verdict,
            note: String::new(),
            as_ns2: None,
        }
    }

    /// Whether it holds.
    pub fn holds(&self) -> bool {
        self.verdict == Verdict::Holds
    }
}

/// For a study's reduced-run test (the issue's stability rule): the same checks, in the same
/// order, with the same verdict on two disjoint seed sets unless one of them is not decidable;
/// every check that does not hold carries a note. Prints both verdicts for the test log.
#[cfg(test)]
pub(crate) fn assert_verdicts_agree(a: &[Check], b: &[Check]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        eprintln!(
            "{} {} / {}: {} / {}",
            x.id, x.verdict, y.verdict, x.measured, y.measured
        );
        assert_eq!(x.id, y.id);
        assert!(
            x.verdict == y.verdict
                || x.verdict == Verdict::NotDecidable
                || y.verdict == Verdict::NotDecidable,
            "{}: {} with one seed set, {} with the other",
            x.id,
            x.verdict,
            y.verdict
        );
        if x.verdict != Verdict::Holds {
            assert!(!x.note.is_empty(), "{} has no note", x.id);
        }
    }
}

/// A study's two-seed-set test (issue 18), one copy for every study: judges the study's
/// checks on `run_set(bases[0])` and `run_set(bases[1])` (disjoint seed sets), asserts with
/// [`assert_verdicts_agree`] that no verdict is "holds" in one and "does not hold" in the
/// other, and that in both sets every id of `hold` holds and every id of `fail` does not
/// hold. Returns both sets for further assertions.
#[cfg(test)]
pub(crate) fn assert_seed_sets_agree(
    bases: [u64; 2],
    run_set: impl Fn(u64) -> Vec<Check>,
    hold: &[&str],
    fail: &[&str],
) -> (Vec<Check>, Vec<Check>) {
    let (a, b) = (run_set(bases[0]), run_set(bases[1]));
    assert_verdicts_agree(&a, &b);
    for set in [&a, &b] {
        let verdict = |id: &str| {
            set.iter()
                .find(|c| c.id == id)
                .unwrap_or_else(|| panic!("no check {id}"))
                .verdict
        };
        for id in hold {
            assert_eq!(verdict(id), Verdict::Holds, "{id}");
        }
        for id in fail {
            assert_eq!(verdict(id), Verdict::DoesNotHold, "{id}");
        }
    }
    (a, b)
}

/// How many checks hold, do not hold, and are not decidable.
pub fn counts(checks: &[Check]) -> (usize, usize, usize) {
    let n = |v| checks.iter().filter(|c| c.verdict == v).count();
    (
        n(Verdict::Holds),
        n(Verdict::DoesNotHold),
        n(Verdict::NotDecidable),
    )
}

/// Verdict counts of a set of checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Checks that hold.
    pub holds: usize,
    /// Checks that do not hold.
    pub fails: usize,
    /// Checks the runs could not decide.
    pub undecided: usize,
}

impl Counts {
    /// The counts of the checks of `checks` that `keep` selects.
    pub fn of(checks: &[Check], keep: impl Fn(&Check) -> bool) -> Counts {
        let kept: Vec<&Check> = checks.iter().filter(|c| keep(c)).collect();
        let n = |v| kept.iter().filter(|c| c.verdict == v).count();
        Counts {
            holds: n(Verdict::Holds),
            fails: n(Verdict::DoesNotHold),
            undecided: n(Verdict::NotDecidable),
        }
    }
    /// The counts of the paper's own claims ([`Kind::Paper`]).
    pub fn paper(checks: &[Check]) -> Counts {
        Counts::of(checks, |c| c.kind == Kind::Paper)
    }
    /// The counts of the extensions and sensitivities (every other kind).
    pub fn beyond(checks: &[Check]) -> Counts {
        Counts::of(checks, |c| c.kind != Kind::Paper)
    }
    /// How many checks.
    pub fn total(&self) -> usize {
        self.holds + self.fails + self.undecided
    }
    /// "a hold, b do not hold, c not decidable (of n)".
    pub fn line(&self) -> String {
        format!(
            "{} hold, {} do not hold, {} not decidable (of {})",
            self.holds,
            self.fails,
            self.undecided,
            self.total()
        )
    }
}

/// The headline counts, the paper's own claims apart from the study's extensions and
/// sensitivities: "The paper's claims: a hold, b do not hold, c not decidable (of n);
/// extensions and sensitivities: ..." (the second part left out when there are none).
pub fn counts_line(checks: &[Check]) -> String {
    let (paper, beyond) = (Counts::paper(checks), Counts::beyond(checks));
    let mut s = format!("The paper's claims: {}", paper.line());
    if beyond.total() > 0 {
        s.push_str(&format!(
            "; extensions and sensitivities: {}",
            beyond.line()
        ));
    }
    s
}

/// Longest note written inside a verdict table; a longer one is written once below the table
/// and its cell holds the mark `[k]` (issue 12: long notes made the tables unreadable).
pub const NOTE_IN_TABLE_CHARS: usize = 80;

/// The checks as a Markdown table. A note longer than [`NOTE_IN_TABLE_CHARS`] characters is
/// written once below the table, as `[k] note` (k = 1, 2, ... in table order; trailing spaces
/// dropped), and its cell holds `[k]`. When any check carries a verdict with `profile =
/// "ns2"` ([`attach_ns2`]), an "as ns-2.35 would" column follows the verdict.
pub fn table(checks: &[Check]) -> String {
    let ns2 = has_ns2(checks);
    let mut s = if ns2 {
        String::from(
            "| check | paper's claim | tolerance and why | statistic | packetsim | verdict | \
             as ns-2.35 would | note |\n|---|---|---|---|---|---|---|---|\n",
        )
    } else {
        String::from(
            "| check | paper's claim | tolerance and why | statistic | packetsim | verdict | note |\n\
             |---|---|---|---|---|---|---|\n",
        )
    };
    let cell = |t: &str| t.replace('|', "/").replace('\n', " ");
    let mut below = Vec::new();
    for c in checks {
        let note = if c.note.chars().count() > NOTE_IN_TABLE_CHARS {
            below.push(c.note.replace('\n', " ").trim_end().to_owned());
            format!("[{}]", below.len())
        } else {
            cell(&c.note)
        };
        let ns2_col = if ns2 {
            format!(" {} |", ns2_cell(c))
        } else {
            String::new()
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |{ns2_col} {} |\n",
            c.id,
            cell(&c.claim),
            cell(&c.tolerance),
            cell(&c.statistic),
            cell(&c.measured),
            c.verdict,
            note
        ));
    }
    for (k, note) in below.iter().enumerate() {
        s.push_str(&format!("\n[{}] {note}\n", k + 1));
    }
    s
}

/// The checks as CSV (`id,kind,verdict,claim,tolerance,statistic,measured,note`, kind as
/// [`Kind::word`]; with verdicts
/// under `profile = "ns2"`, two more columns: `ns2_verdict` and `ns2_measured`, empty for a
/// check that has none).
pub fn csv(checks: &[Check]) -> String {
    let ns2 = has_ns2(checks);
    let mut out = crate::experiment::aggregate::CsvText::new();
    let header = [
        "id",
        "kind",
        "verdict",
        "claim",
        "tolerance",
        "statistic",
        "measured",
        "note",
    ];
    let ns2_header = ["ns2_verdict", "ns2_measured"];
    out.row(header.iter().chain(if ns2 { &ns2_header[..] } else { &[] }));
    for c in checks {
        let mut row = vec![
            c.id.as_str(),
            c.kind.word(),
            c.verdict.word(),
            &c.claim,
            &c.tolerance,
            &c.statistic,
            &c.measured,
            &c.note,
        ];
        if ns2 {
            match &c.as_ns2 {
                Some(n) => row.extend([n.verdict.word(), n.measured.as_str()]),
                None => row.extend(["", ""]),
            }
        }
        out.row(row);
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeded(xs: &[f64]) -> Vec<(u64, f64)> {
        xs.iter().enumerate().map(|(i, &x)| (i as u64, x)).collect()
    }

    #[test]
    fn long_notes_are_written_once_below_the_table() {
        let check = |id: &str, note: &str| {
            let mut c = Check::new(id, "claim", "tol", "stat", "m".into(), Verdict::DoesNotHold);
            c.note = note.into();
            c
        };
        let long_a = format!("A{}", "a".repeat(80)); // 81 characters: below the table
        let exactly_80 = "é".repeat(80); // 80 characters (160 bytes): stays in its cell
                                         // 82 characters with a bar (kept as is below the table) and a trailing space (dropped).
        let long_b = format!("B|{} ", "b".repeat(79));
        let t = table(&[
            check("S1", &long_a),
            check("S2", &exactly_80),
            check("S3", ""),
            check("S4", &long_b),
        ]);
        let want = format!(
            "| check | paper's claim | tolerance and why | statistic | packetsim | verdict | note |\n\
             |---|---|---|---|---|---|---|\n\
             | S1 | claim | tol | stat | m | DOES NOT HOLD | [1] |\n\
             | S2 | claim | tol | stat | m | DOES NOT HOLD | {exactly_80} |\n\
             | S3 | claim | tol | stat | m | DOES NOT HOLD |  |\n\
             | S4 | claim | tol | stat | m | DOES NOT HOLD | [2] |\n\
             \n[1] {long_a}\n\
             \n[2] {}\n",
            long_b.trim_end()
        );
        assert_eq!(t, want);
        // Each long note is written exactly once.
        assert_eq!(t.matches(&long_a).count(), 1);
        assert_eq!(t.matches(long_b.trim_end()).count(), 1);
    }

    #[test]
    fn ns2_column_says_same_or_the_changed_verdict_and_lists_the_changes() {
        // Issue 14: a study run also with profile = "ns2" shows, per check, whether ns-2.35's
        // mechanisms change the verdict.
        let c = |id: &str, v: Verdict, m: &str| Check::new(id, "claim", "tol", "stat", m.into(), v);
        let mut std_checks = vec![
            c("S1", Verdict::Holds, "1.0 [0.9, 1.1]"),
            c("S2", Verdict::Holds, "2.0"),
            c("S3", Verdict::DoesNotHold, "3.0"),
        ];
        // Without the profile's checks the table and CSV are exactly as before.
        assert!(!table(&std_checks).contains("ns-2.35"));
        assert!(csv(&std_checks)
            .starts_with("id,kind,verdict,claim,tolerance,statistic,measured,note\n"));
        let ns2 = vec![
            c("S1", Verdict::Holds, "1.1"),
            c("S2", Verdict::NotDecidable, "2.5 [1.0, 4.0]"),
        ];
        attach_ns2(&mut std_checks, &ns2);
        assert_eq!(
            table(&std_checks),
            "| check | paper's claim | tolerance and why | statistic | packetsim | verdict | \
             as ns-2.35 would | note |\n|---|---|---|---|---|---|---|---|\n\
             | S1 | claim | tol | stat | 1.0 [0.9, 1.1] | holds | same |  |\n\
             | S2 | claim | tol | stat | 2.0 | holds | not decidable |  |\n\
             | S3 | claim | tol | stat | 3.0 | DOES NOT HOLD | not run |  |\n"
        );
        assert_eq!(
            csv(&std_checks),
            "id,kind,verdict,claim,tolerance,statistic,measured,note,ns2_verdict,ns2_measured\n\
             S1,paper,holds,claim,tol,stat,\"1.0 [0.9, 1.1]\",,holds,1.1\n\
             S2,paper,holds,claim,tol,stat,2.0,,not decidable,\"2.5 [1.0, 4.0]\"\n\
             S3,paper,does not hold,claim,tol,stat,3.0,,,\n"
        );
        assert_eq!(
            ns2_changes(&std_checks),
            "- **S2**: holds (standard: 2.0) → not decidable (ns-2.35's mechanisms: 2.5 [1.0, \
             4.0])\n"
        );
    }

    #[test]
    fn headline_counts_keep_the_papers_claims_apart() {
        // Issue 35: SCTP's "14 hold of 25" mixed the paper's S1-S15 with extensions.
        for (id, kind) in [
            ("S7", Kind::Paper),
            ("S15", Kind::Paper),
            ("N2", Kind::Paper),
            ("Q4", Kind::Sensitivity),
            ("S12 at crossover", Kind::Sensitivity),
            ("baseline", Kind::Extension),
            ("ext. probe after RTO", Kind::Extension),
            ("S1-S3, equal windows", Kind::Extension),
            ("S", Kind::Extension),
            ("Sx", Kind::Extension),
        ] {
            assert_eq!(Kind::of_id(id), kind, "{id}");
        }
        let c = |id: &str, v: Verdict| Check::new(id, "claim", "tol", "stat", String::new(), v);
        let set = [
            c("S1", Verdict::Holds),
            c("S2", Verdict::DoesNotHold),
            c("S3", Verdict::NotDecidable),
            c("S4", Verdict::Holds),
            c("Q2", Verdict::Holds),
            c("baseline", Verdict::DoesNotHold),
        ];
        assert_eq!(
            Counts::paper(&set),
            Counts {
                holds: 2,
                fails: 1,
                undecided: 1
            }
        );
        assert_eq!(Counts::beyond(&set).total(), 2);
        assert_eq!(
            counts_line(&set),
            "The paper's claims: 2 hold, 1 do not hold, 1 not decidable (of 4); extensions \
             and sensitivities: 1 hold, 1 do not hold, 0 not decidable (of 2)"
        );
        assert_eq!(
            counts_line(&set[..2]),
            "The paper's claims: 1 hold, 1 do not hold, 0 not decidable (of 2)"
        );
    }

    #[test]
    fn within_tolerance_holds_inside_and_fails_outside() {
        let tol = Tolerance::about(2.0, "2%");
        assert_eq!((tol.lo, tol.hi), (1.5, 2.5));
        let tight = |m: f64| Estimate::mean(&[m - 0.01, m, m + 0.01, m, m - 0.005, m + 0.005]);
        assert_eq!(within(&tight(2.0), &tol), Verdict::Holds);
        assert_eq!(within(&tight(1.09), &tol), Verdict::DoesNotHold);
        assert_eq!(within(&tight(2.9), &tol), Verdict::DoesNotHold);
        // An interval across the edge cannot be judged.
        let wide = Estimate::mean(&[1.0, 2.0, 1.5, 1.2, 1.8]);
        assert_eq!(within(&wide, &tol), Verdict::NotDecidable);
    }

    #[test]
    fn beats_with_overlapping_paired_ci_never_holds() {
        // a − b has mean 0.2 but a spread of ±2: the CI includes zero.
        let a = seeded(&[10.0, 13.0, 9.0, 12.5, 8.0, 11.7]);
        let b = seeded(&[11.0, 11.0, 10.0, 10.0, 10.0, 11.0]);
        let d = Estimate::paired(&a, &b).unwrap();
        assert!(d.lo() < 0.0 && d.hi() > 0.0, "{d:?}");
        assert_ne!(exceeds(&d, 0.0), Verdict::Holds);
        assert_ne!(exceeds(&d, 0.5), Verdict::Holds);
        // ...and the same with no minimum effect is not decidable, not "does not hold".
        assert_eq!(exceeds(&d, 0.0), Verdict::NotDecidable);
    }

    #[test]
    fn beats_holds_only_when_significant_and_large_enough() {
        // Paired: per-seed noise is shared, so a steady 1.0 difference is significant even
        // though the samples overlap widely.
        let b = seeded(&[10.0, 20.0, 15.0, 30.0, 12.0, 25.0]);
        let a: Vec<(u64, f64)> = b
            .iter()
            .zip([1.1, 0.9, 1.0, 1.05, 0.95, 1.0])
            .map(|(&(s, v), e)| (s, v + e))
            .collect();
        let d = Estimate::paired(&a, &b).unwrap();
        assert_eq!(exceeds(&d, 0.0), Verdict::Holds);
        assert_eq!(exceeds(&d, 0.5), Verdict::Holds);
        // A claim that needs an effect of 2 is contradicted: the whole CI is below 2.
        assert_eq!(exceeds(&d, 2.0), Verdict::DoesNotHold);
        // Unpaired, the same numbers are far from significant.
        let v = |s: &[(u64, f64)]| s.iter().map(|x| x.1).collect::<Vec<_>>();
        assert_eq!(
            exceeds(&Estimate::welch(&v(&a), &v(&b)), 0.0),
            Verdict::NotDecidable
        );
    }

    #[test]
    fn pairing_refuses_different_seeds_and_difference_falls_back_to_welch() {
        let a = vec![(1, 1.0), (2, 2.0), (3, 3.0)];
        let b = vec![(1, 1.0), (9, 2.0), (3, 3.0)];
        assert!(Estimate::paired(&a, &b).is_none());
        assert_eq!(Estimate::difference(&a, &b).how, "Welch");
        assert_eq!(Estimate::difference(&a, &a).how, "paired");
    }

    #[test]
    fn too_few_runs_are_not_decidable() {
        let d = Estimate::mean(&[5.0, 5.1, 4.9]);
        assert_eq!(exceeds(&d, 0.0), Verdict::NotDecidable);
        assert_eq!(below(&d, 100.0), Verdict::NotDecidable);
    }

    #[test]
    fn zero_spread_is_judged_exactly() {
        // Deterministic runs (0% loss): every run agrees, the CI has zero width.
        let d = Estimate::mean(&[0.08; 10]);
        assert_eq!((d.lo(), d.hi()), (0.08, 0.08));
        assert_eq!(exceeds(&d, 0.0), Verdict::Holds);
        assert_eq!(below(&d, 0.05), Verdict::DoesNotHold);
    }

    #[test]
    fn crossover_is_judged_on_significant_points_outside_the_tolerance() {
        let pt = |x: f64, m: f64| (x, Estimate::mean(&[m - 0.1, m, m + 0.1, m, m]));
        let tol = Tolerance::about(2.0, "2%");
        // Negative below 1.5, positive above 2.5: holds.
        let good = [
            pt(0.0, -3.0),
            pt(1.0, -1.0),
            pt(2.0, 0.0),
            pt(3.0, 1.0),
            pt(5.0, 4.0),
        ];
        assert_eq!(crossover(&good, &tol), Verdict::Holds);
        assert!((crossing_point(&good).unwrap() - 2.0).abs() < 1e-9);
        // Already significantly positive at 1.5%: the crossover is below the tolerance.
        let early = [pt(0.0, -3.0), pt(1.0, -0.5), pt(1.5, 1.0), pt(3.0, 2.0)];
        assert_eq!(crossover(&early, &tol), Verdict::DoesNotHold);
        // Not yet significant at 1%: cannot tell.
        let vague = [pt(0.0, -3.0), pt(1.0, 0.0), pt(3.0, 2.0)];
        assert_eq!(crossover(&vague, &tol), Verdict::NotDecidable);
    }

    #[test]
    fn all_is_three_valued_conjunction() {
        use Verdict::*;
        assert_eq!(all(&[Holds, Holds]), Holds);
        assert_eq!(all(&[Holds, NotDecidable]), NotDecidable);
        assert_eq!(all(&[NotDecidable, DoesNotHold]), DoesNotHold);
        assert_eq!(all(&[]), Holds);
    }

    #[test]
    fn combine_of_independent_estimates_adds_variances() {
        let a = Estimate::mean(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        let c = Estimate::combine(&[(1.0, a), (-1.0, a)], "combined");
        assert_eq!(c.mean, 0.0);
        assert!((c.se - a.se * 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(c.df, 8, "Welch-Satterthwaite with equal variances: 2(n-1)");
    }

    /// Welch's t for 1..5 against 2, 4, .., 14: s² = 2.5 (n 5) and 18.67 (n 7), standard
    /// errors squared 0.5 and 2.667, so ν = (0.5 + 2.667)² / (0.5² / 4 + 2.667² / 6) = 8.037
    /// (Welch 1947, Satterthwaite 1946), rounded down to 8.
    #[test]
    fn welch_degrees_of_freedom_of_unequal_samples() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0];
        let d = Estimate::welch(&a, &b);
        assert_eq!(d.mean, -5.0);
        let se = (0.5f64 + 56.0 / 21.0).sqrt();
        assert!((d.se - se).abs() < 1e-12, "{}", d.se);
        assert_eq!(d.df, 8);
    }
}
