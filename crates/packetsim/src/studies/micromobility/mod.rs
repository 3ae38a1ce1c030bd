//! Study 5 (spec/5-micromobility.md): TCP Tahoe, Reno, NewReno and SACK over the micro-mobility
//! protocols Cellular IP (semisoft handoff) and HAWAII (MSF path setup), on the spec's tree of
//! four base stations (`crate::mobility`).
//!
//! - Fig 3 (MM-E1): radio loss 0–10% at H = 3 handoffs in 30 s, N = 1.
//! - Fig 4 (MM-E2): H = 2..18 handoffs in 30 s, no radio loss.
//! - Figs 5 and 6 (MM-E3/E4): N = 1..16 connections to one mobile at H = 2 and H = 7.
//! - Fig 7 (MM-E5): which protocol wins, by handoff rate and scale, from the runs of Figs 4–6.
//! - Extensions MM-X1..X6 (NewReno and SACK only, to keep the run short): packet size, CN–GW
//!   delay, CIP hard vs semisoft (with and without the delay device) and HAWAII UNF vs MSF,
//!   blind vs holding old base station, N mobiles out of phase, and the Mobile IP baseline
//!   (home agent at GW or 50 ms beyond it).
//!
//! Metric: throughput over [0, 30 s] (in-order payload bytes delivered × 8 / 30 s, kb/s),
//! aggregate and per connection; diagnostics: handoff losses, duplicates, out-of-order
//! arrivals, fast retransmits, timeouts, control messages. Every point runs on the same seeds
//! (common random numbers), so comparisons between protocols and variants are paired.
//!
//! The study is on the one driver ([`super::shape`]): [`Micromobility`] states its grid (one
//! sweep over typed [`Point`]s, named by their ids; again as ns-2.35 would run them), each
//! point's run, its claims, figures and report. Files: `point.rs` (the typed point and its
//! id), `grid.rs` (the points of every figure, extension, sensitivity and Q2 comparison),
//! `sensitivity.rs` (the sensitivities judged as checks),
//! `measure.rs` (one point's run and its metrics, the runs' results), `claims.rs` (S1-S9),
//! `figures.rs` (Figs 3-7, extensions.csv), `report.rs` (report.md).
//!
//! A point is a typed `Scenario` built through the scenario format ([`point_scenario`]): the
//! spec's tree with `[mobility]` on the 802.11 radio with moving mobiles (`radio = "wifi"`,
//! `mobility::radio`), or under spec 5 Q2's simplification (point-to-point radio links,
//! scheduled handoffs); the driver runs it like any study's (`scenario::run`) and
//! [`Shape::measure`] reads the metrics from the finished world.

use super::checks::{
    self, all, below, equivalent, exceeds, within, Check, Estimate, Tolerance, Verdict,
};
use super::shape::{self, Pass, Setting, Shape, Sweep, Swept};
use super::{ReproduceOptions, StudyOutcome};
use crate::experiment::{self, GridPoint, Param, RunOutput, StoredRun};
use crate::ids::FlowId;
use crate::mobility::radio::{AirElement, AirStats};
use crate::mobility::{
    CipHandoff, Departure, DiscardReason, HawaiiScheme, MobilityConfig, MobilityReport, Protocol,
    TreeParams,
};
use crate::report::chart::{Curve, LineChart};
use crate::report::write_atomic;
use crate::scenario::{
    FlowKeys, FlowKind, LinkKeys, MobilityKeys, Outcome, Profile, QueueLimit, QueueSpec, Scenario,
    ScenarioBuilder, Sends, TcpKeys,
};
use crate::transport::tcp::{FullAckCwnd, PartialAckTimer, RecoverGuard, TcpConfig, Variant};
use crate::world::World;
use packetsim_kernel::{Dur, Rng, Time};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

mod claims;
mod figures;
mod grid;
mod measure;
mod point;
mod report;
mod sensitivity;

use claims::*;
use figures::*;
use grid::*;
use measure::*;
pub use measure::{point_scenario, run_point, tcp_config, tcp_config_ns2};
pub use point::Point;
use point::*;
use report::*;
use sensitivity::*;

/// The study's name on the command line.
pub const NAME: &str = "micromobility";

const BASE_SEED: u64 = 5;
const T: f64 = 30.0;

/// What the study's one sweep runs: the grid of `--quick` or of a full run, as the study
/// runs it or as ns-2.35 would ([`Pass::AsNs2`]: the figures' points with `ns2` set).
struct Def {
    quick: bool,
    ns2: bool,
}

impl Def {
    /// The pass's sweep values (the ns-2.35 pass reruns no extension or sensitivity).
    fn axes(&self) -> Axes {
        Axes {
            ext: !self.ns2 && Axes::new(self.quick).ext,
            ..Axes::new(self.quick)
        }
    }
    /// The points the sweep runs: the grid's, with `ns2` set in the ns-2.35 pass (whose runs
    /// are filed under the standard points' ids, so the same checks read them).
    fn points(&self) -> Vec<Point> {
        self.axes()
            .points()
            .into_iter()
            .filter(|p| !self.ns2 || !(p.q2 || p.sensitivity()))
            .map(|p| Point { ns2: self.ns2, ..p })
            .collect()
    }
}

/// One pass's runs, as the claims, figures and report read them.
struct Data {
    ns2: bool,
    axes: Axes,
    r: Results,
}

/// Study 5 on the one driver.
struct Micromobility;

impl Shape for Micromobility {
    type Def = Def;
    type Results = Data;

    const NAME: &'static str = NAME;
    const BASE_SEED: u64 = BASE_SEED;
    const RUNS: [u32; 2] = [3, 10];

    /// Issue 14: the figures' points again as ns-2.35 would run them (profile = "ns2" under
    /// the study's TCP, [`tcp_config_ns2`]), same seeds, judged by the same checks; the
    /// extensions, sensitivities and Q2 comparison are not rerun.
    fn passes(&self) -> &'static [Pass] {
        &[Pass::Own, Pass::AsNs2]
    }
    fn grid(&self, quick: bool, pass: Pass) -> Vec<Sweep<Def>> {
        let def = Def {
            quick,
            ns2: pass == Pass::AsNs2,
        };
        let values = def.points().iter().map(Point::id).collect();
        vec![Sweep {
            def,
            dir: "runs".into(),
            key: experiment::experiment_key(&format!("{NAME}-{T}s"), "spec5 v1"),
            params: vec![Param {
                path: "point".into(),
                values,
            }],
            shared_seed_params: vec!["point".into()],
        }]
    }
    fn scenario(&self, _def: &Def, point: &GridPoint, seed: u64) -> Result<Scenario, String> {
        point_scenario(&grid_point(point)?, seed, T)
    }
    fn measure(&self, _def: &Def, point: &GridPoint, out: &Outcome) -> shape::Metrics {
        match grid_point(point) {
            Ok(p) => outcome_metrics(&p, out, T),
            Err(_) => Vec::new(),
        }
    }
    fn collect(&self, swept: Vec<Swept<Def>>) -> Data {
        let s = swept.into_iter().next().expect("the study's sweep");
        let mut runs = BTreeMap::new();
        for (summary, stored) in s.points.iter().zip(&s.runs) {
            let id = summary.point.value("point").unwrap_or_default();
            let id = Point::parse(id).map_or(id.to_string(), |p| Point { ns2: false, ..p }.id());
            runs.insert(id, by_metric(stored));
        }
        Data {
            ns2: s.def.ns2,
            axes: s.def.axes(),
            r: Results { runs },
        }
    }
    fn claims(&self, d: &Data) -> Vec<Check> {
        shape_checks(&d.r, &d.axes)
    }
    fn explain(&self, d: &Data, checks: &mut [Check]) {
        explain(checks, &d.r, &d.axes)
    }
    /// Spec 5's sensitivities as checks of kind sensitivity (full runs), written to
    /// sensitivity/checks.csv by [`Shape::figures`].
    fn apart(&self, d: &Data) -> Vec<Check> {
        if d.ns2 {
            return Vec::new();
        }
        sensitivity_checks(&d.r, &d.axes)
    }
    fn figures(&self, root: &Path, d: &Data) -> Result<(), String> {
        if d.ns2 {
            return Ok(());
        }
        write_figures(root, &d.r, &d.axes)
    }
    fn report(&self, d: &Data, checks: &[Check], set: &Setting) -> String {
        report(checks, &d.r, &d.axes, set)
    }
}

/// The typed point of a grid point.
fn grid_point(point: &GridPoint) -> Result<Point, String> {
    let id = point.value("point").unwrap_or_default();
    Point::parse(id).ok_or_else(|| format!("{NAME}: bad point {id:?}"))
}

/// Runs the study and writes `<out>/micromobility/`: figures (SVG and CSV), fig7 map,
/// extensions.csv, checks.csv and report.md.
pub fn run(opts: &ReproduceOptions) -> Result<StudyOutcome, String> {
    shape::drive(&Micromobility, opts)
}

#[cfg(test)]
mod tests;
