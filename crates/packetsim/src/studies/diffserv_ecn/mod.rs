//! Study 4 (spec/4-diffserv-ecn.md): TCP ECN in a DiffServ Assured Service. One edge router
//! classifies EF (2 CBR), AF (3 or 6 TCP Reno, each policed by a token bucket into IN/OUT,
//! queued in RIO) and BE (5 TCP Reno, RED), scheduled by WRR 1:4:5 onto a 5 Mb/s bottleneck.
//! Between the thresholds, RIO/RED mark ECT packets CE, lower them to IN and queue them (the
//! paper's scheme, deterministic by default, spec 4 §2.5 and Q2). Scenarios: `no ecn`,
//! `ecn to AF`, `ecn to AF, BE`. Simulation 1 (3 AF at 500 kb/s) and 2 (6 AF at 250 kb/s).
//! The reverse (ACK) direction of the bottleneck is a plain 100-packet DropTail (spec 4 §3).
//!
//! The study is on the one driver ([`super::shape`]): [`DiffServ`] states its grid (the main
//! sweep and the marking x bucket-depth sensitivities), each point's scenario and what a run
//! measures. Files: `network.rs` (the scenario of a point), `measure.rs` (a run's metrics and
//! the per-point results), `claims.rs` (S1-S10, N1-N2, one function per claim), `notes.rs`
//! (notes for the checks that do not hold), `ns2.rs` (ns-2.35's runs of the same scenario),
//! `tables.rs` (Tables 3-4), `sensitivity.rs` (the sensitivities' tables and checks),
//! `figures.rs` (Figs 2-5, 8, 9), `report.rs` (report.md).

use super::checks::{self, above, all, below, exceeds, Check, Estimate, Tolerance, Verdict};
use super::shape::{param, Metrics, Pass, Setting, Shape, Sweep, Swept};
use super::{ReproduceOptions, StudyOutcome};
use crate::experiment::aggregate::CsvText;
use crate::experiment::{self, GridPoint, PointSummary, StoredRun};
use crate::report::chart::{BarChart, YAxis};
use crate::report::write_atomic;
use crate::scenario::{Outcome, Scenario};
use packetsim_kernel::{Rate, Rng};
use std::fmt::Write as _;
use std::path::Path;

mod claims;
mod figures;
mod measure;
mod network;
mod notes;
mod ns2;
mod report;
mod sensitivity;
mod tables;

use claims::*;
use figures::*;
use measure::*;
use network::key_text;
pub use network::point_scenario;
use notes::*;
use report::*;
use sensitivity::*;
use tables::*;

/// The study's name on the command line.
pub const NAME: &str = "diffserv-ecn";
/// The base seed of the study's sweep (the reduced test also runs a disjoint seed set).
const BASE_SEED: u64 = 1;

const SCENARIOS: [(&str, &str); 3] = [
    ("none", "no ecn"),
    ("af", "ecn to AF"),
    ("afbe", "ecn to AF, BE"),
];
const BE_FLOWS: usize = 5;
/// Payload and wire size of a TCP data packet (spec 4 §3: 1000 B + 40 B).
const PAYLOAD: f64 = 1000.0;
const WIRE: f64 = 1040.0;
/// Token-bucket depth, bytes (spec 4 §3: 2 packets, INFERRED), the default.
const BUCKET_DEPTH: u64 = 2080;
/// The spec's sensitivity depth (10,000 B). The OUT/IN ratio is very sensitive to the depth
/// here: WRR serves AF in bursts of up to 4 packets, so ACK-clocked senders send in bursts and
/// a 2-packet bucket turns much of each burst OUT. The report shows both.
const SENSITIVITY_DEPTH: u64 = 10_000;

/// The AF flow count and per-flow profile of simulation `sim` (1 or 2).
fn sim_params(sim: u32) -> (usize, Rate, f64) {
    if sim == 1 {
        (3, Rate(500_000), 2000.0 / 3.0)
    } else {
        (6, Rate(250_000), 2000.0 / 6.0)
    }
}

/// RED/RIO `count` handling: F&J's clamp of `p_a` to 1 (spec 4 §2.3, canonical) or ns-2.35
/// dsRED's unclamped `p_a` (a sensitivity run: see `bench/validate/diffserv`); and
/// `ns2_profile`: dsRED's `count` with `profile = "ns2"` as well, i.e. the study as ns-2.35
/// would run it (issue 14: the report's "as ns-2.35 would" column).
const COUNTS: [&str; 3] = ["fj", "ns2", "ns2_profile"];

/// How RIO and RED mark ECT packets between the thresholds (spec 4 Q2): the canonical
/// deterministic reading (every ECT arrival while the average is in the region), and the
/// probabilistic alternative (only the arrivals RED would drop), run as a sensitivity.
const MARKINGS: [&str; 2] = ["deterministic", "probabilistic"];
/// Bucket depths of the sensitivity sweep, bytes: the default beside spec 4 Q5's 10-50 kB.
const SENSITIVITY_DEPTHS: [u64; 4] = [BUCKET_DEPTH, 10_000, 20_000, 50_000];

/// One point of the study: simulation `sim` (1 or 2), ECN scenario `ecn`, token-bucket
/// `depth` (bytes), RED `count` handling (see [`COUNTS`]) and ECN `marking` (see
/// [`MARKINGS`]).
#[derive(Clone, Copy, Debug)]
pub struct Point<'a> {
    /// Simulation 1 (3 AF flows) or 2 (6 AF flows).
    pub sim: u32,
    /// "none", "af" or "afbe".
    pub ecn: &'a str,
    /// Token-bucket depth, bytes.
    pub depth: u64,
    /// RED `count` handling.
    pub count: &'a str,
    /// ECN marking between the thresholds.
    pub marking: &'a str,
}

/// One sweep of the study: the main grid (sim x scenario x depth x `count`) or the
/// sensitivity grid (sim x scenario x marking x depth, in sensitivity/), `duration_s`
/// simulated seconds per run.
#[derive(Clone, Copy, Debug)]
pub struct Def {
    /// Simulated seconds per run.
    duration_s: f64,
}

/// Where the sensitivity sweep and its tables go, under the study's folder.
const SENSITIVITY_DIR: &str = "sensitivity";

/// The study's grid: the main sweep over `depths` x `counts`, and, with `sensitivities`, the
/// marking x depth sweep ([`MARKINGS`] x [`SENSITIVITY_DEPTHS`]).
struct DiffServ<'a> {
    depths: &'a [u64],
    counts: &'a [&'a str],
    sensitivities: bool,
}

/// The full study.
const STUDY: DiffServ<'static> = DiffServ {
    depths: &[BUCKET_DEPTH, SENSITIVITY_DEPTH],
    counts: &COUNTS,
    sensitivities: true,
};

/// The runs of a pass: the main sweep and, when run, the sensitivity sweep.
struct Data {
    duration_s: f64,
    main: Swept<Def>,
    sens: Option<Swept<Def>>,
}

impl Data {
    fn at(&self, depth: u64, count: &str) -> Results<'_> {
        Results::main(&self.main, depth, count)
    }
}

impl Shape for DiffServ<'_> {
    type Def = Def;
    type Results = Data;

    const NAME: &'static str = NAME;
    const BASE_SEED: u64 = BASE_SEED;
    const RUNS: [u32; 2] = [3, 10];

    fn grid(&self, quick: bool, _pass: Pass) -> Vec<Sweep<Def>> {
        let duration_s = if quick { 40.0 } else { 100.0 };
        let def = Def { duration_s };
        let base = Point {
            sim: 1,
            ecn: "none",
            depth: BUCKET_DEPTH,
            count: "fj",
            marking: MARKINGS[0],
        };
        let ecns: Vec<&str> = SCENARIOS.iter().map(|s| s.0).collect();
        let mut sweeps = vec![Sweep {
            def,
            dir: "runs".into(),
            key: experiment::experiment_key(
                &format!("{NAME}-{duration_s}s"),
                &key_text(&base, duration_s),
            ),
            params: vec![
                param("sim", &[1, 2]),
                param("ecn", &ecns),
                param("depth", self.depths),
                param("count", self.counts),
            ],
            // Common random numbers (issue 35): the three ECN scenarios of a (sim, depth,
            // count) share their seeds, so their flows start at the same times and are
            // compared run by run (paired differences).
            shared_seed_params: vec!["ecn".into()],
        }];
        if self.sensitivities {
            let prob = Point {
                marking: MARKINGS[1],
                ..base
            };
            sweeps.push(Sweep {
                def,
                dir: format!("{SENSITIVITY_DIR}/runs"),
                key: experiment::experiment_key(
                    &format!("{NAME}-{SENSITIVITY_DIR}-{duration_s}s"),
                    &key_text(&prob, duration_s),
                ),
                params: vec![
                    param("sim", &[1, 2]),
                    param("ecn", &ecns),
                    param("marking", &MARKINGS),
                    param("depth", &SENSITIVITY_DEPTHS),
                ],
                // Every setting shares its seeds with the others: paired with the default.
                shared_seed_params: vec!["ecn".into(), "marking".into(), "depth".into()],
            });
        }
        sweeps
    }
    fn scenario(&self, def: &Def, point: &GridPoint, seed: u64) -> Result<Scenario, String> {
        let get = |k: &str| point.value(k).unwrap_or_default();
        let p = Point {
            sim: get("sim").parse().map_err(|_| "bad sim".to_string())?,
            ecn: get("ecn"),
            depth: get("depth").parse().map_err(|_| "bad depth".to_string())?,
            count: point.value("count").unwrap_or("fj"),
            marking: point.value("marking").unwrap_or(MARKINGS[0]),
        };
        point_scenario(&p, seed, def.duration_s)
    }
    fn measure(&self, def: &Def, point: &GridPoint, out: &Outcome) -> Metrics {
        let sim = if point.value("sim") == Some("1") {
            1
        } else {
            2
        };
        measure(sim, def.duration_s, &out.summary)
    }
    fn collect(&self, swept: Vec<Swept<Def>>) -> Data {
        let mut it = swept.into_iter();
        let main = it.next().expect("the main sweep");
        Data {
            duration_s: main.def.duration_s,
            main,
            sens: it.next(),
        }
    }
    fn claims(&self, d: &Data) -> Vec<Check> {
        shape_checks(&d.at(BUCKET_DEPTH, "fj"))
    }
    fn explain(&self, d: &Data, checks: &mut [Check]) {
        let (r, sens, ns2c) = (
            d.at(BUCKET_DEPTH, "fj"),
            d.at(SENSITIVITY_DEPTH, "fj"),
            d.at(BUCKET_DEPTH, "ns2"),
        );
        explain(checks, &r, &sens, &ns2c);
    }
    /// Issue 14: the same checks as ns-2.35 would run the study (dsRED's count and
    /// profile = "ns2"), from the main sweep's `count = ns2_profile` points.
    fn ns2_claims(&self, d: &Data) -> Option<Vec<Check>> {
        self.counts
            .contains(&"ns2_profile")
            .then(|| shape_checks(&d.at(BUCKET_DEPTH, "ns2_profile")))
    }
    /// The sensitivity grid's checks (in sensitivity/checks.csv), counted in the headline.
    fn apart(&self, d: &Data) -> Vec<Check> {
        d.sens
            .as_ref()
            .map(|sens| sensitivity_tables(sens).1)
            .unwrap_or_default()
    }
    fn figures(&self, root: &Path, d: &Data) -> Result<(), String> {
        let r = d.at(BUCKET_DEPTH, "fj");
        bar_figures(root, &r)?;
        let mut files = paper_tables(&r).1;
        if let Some(sens) = &d.sens {
            let (csv, checks) = sensitivity_tables(sens);
            files.push((format!("{SENSITIVITY_DIR}/tables.csv"), csv));
            files.push((
                format!("{SENSITIVITY_DIR}/checks.csv"),
                checks::csv(&checks),
            ));
        }
        for (name, text) in files {
            write_atomic(&root.join(name), &text).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
    fn report(&self, d: &Data, checks: &[Check], set: &Setting) -> String {
        let r = d.at(BUCKET_DEPTH, "fj");
        let as_ns2_checks = shape_checks(&d.at(BUCKET_DEPTH, "ns2_profile"));
        let mut md = report(
            checks,
            &as_ns2_checks,
            Tables {
                r: &r,
                sens: &d.at(SENSITIVITY_DEPTH, "fj"),
                ns2c: &d.at(BUCKET_DEPTH, "ns2"),
                md_tables: &paper_tables(&r).0,
                runs: set.runs,
                duration_s: d.duration_s,
                quick: set.quick,
            },
        );
        if let Some(sens) = &d.sens {
            md.push_str(&sensitivity_report(sens));
        }
        md
    }
}

/// Runs the study and writes `<out>/diffserv-ecn/`: figures (SVG), tables (CSV), the
/// sensitivities (sensitivity/) and report.md.
pub fn run(opts: &ReproduceOptions) -> Result<StudyOutcome, String> {
    super::shape::drive(&STUDY, opts)
}

#[cfg(test)]
mod tests;
