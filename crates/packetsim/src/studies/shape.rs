//! The shape every study follows ([`Shape`]) and the one driver that runs it ([`drive`]).
//!
//! A study states five things and nothing else:
//! - its **grid** ([`Shape::grid`]): one or more resumable sweeps, each a cartesian product of
//!   named parameters stored in its own folder, for each [`Pass`] it runs;
//! - the **scenario** of a grid point ([`Shape::scenario`]): a typed
//!   [`Scenario`](crate::scenario::Scenario) built through `scenario/`;
//! - what to **measure** from the finished run ([`Shape::measure`]), by default the summary's
//!   flattened metrics; a study that needs more than the summary asks the driver to
//!   [`Shape::watch`] its runs (watching elements at named nodes, a pause at the end of a
//!   warm-up) and measures the [`Watched`] run ([`Shape::measure_watched`]);
//! - its **claims** as data ([`Shape::claims`], judged through [`super::checks`]);
//! - its **figures** and tables ([`Shape::figures`]) and its report prose
//!   ([`Shape::report`]).
//!
//! [`drive`] runs the sweeps through the resumable results store (the experiment layer), collects
//! each pass, writes its figures, judges the claims (again on the runs "as ns-2.35 would" when
//! the study has that pass) and ends in [`super::finish`], which writes `checks.csv` and
//! `report.md`. [`seed_set`] runs the same grid from another base seed for the two-seed-set
//! test (`checks::assert_seed_sets_agree`). The command line writes each study's index.html
//! from what the driver wrote.

use super::checks::Check;
use super::{ReproduceOptions, StudyOutcome};
use crate::experiment::{self, GridPoint, Param, PointSummary, RunOutput, StoredRun, SweepSpec};
use crate::ids::{ElementId, NodeId};
use crate::net::Element;
use crate::report::Summary;
use crate::scenario::{self, Outcome, Scenario};
use crate::world::{RunInfo, World};
use packetsim_kernel::Time;
use std::path::{Path, PathBuf};

/// Which set of runs a sweep belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// The study as its spec asks for it (written in the study's folder).
    Own,
    /// The same grid as ns-2.35 would run it (`profile = "ns2"`, issue 14), written under
    /// `ns2/` and judged by the same claims for the report's "as ns-2.35 would" column.
    AsNs2,
}

/// One resumable sweep of a study: a grid over named parameters, stored in its own folder.
pub struct Sweep<D> {
    /// What the study needs to turn one of its points into a scenario (a figure's curves, ...).
    pub def: D,
    /// Its folder under the pass's folder ("" for the pass's folder itself).
    pub dir: String,
    /// The experiment key ([`experiment::experiment_key`]): it must change whenever what the
    /// points run changes, or stored runs would be reused.
    pub key: String,
    /// The swept parameters (first slowest).
    pub params: Vec<Param>,
    /// Parameters whose points share their run seeds (common random numbers).
    pub shared_seed_params: Vec<String>,
}

/// The stored runs of one sweep, as the study's `collect` receives them.
pub struct Swept<D> {
    /// The sweep's definition.
    pub def: D,
    /// Where its runs are stored.
    pub dir: PathBuf,
    /// Per-point statistics, grid order.
    pub points: Vec<PointSummary>,
    /// Per point, its runs in replication order.
    pub runs: Vec<Vec<StoredRun>>,
}

/// How a run of the driver is set: shared by every sweep of a pass.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// Replications per point.
    pub runs: u32,
    /// Reduced grid and run lengths (`--quick`).
    pub quick: bool,
    /// The base seed of every sweep.
    pub base_seed: u64,
    /// Parallel jobs (0 = all cores).
    pub jobs: usize,
    /// Progress bars.
    pub progress: bool,
    /// The replications the command line (or the seed-set test) asked for, if it did: a
    /// study whose sweeps differ in their default ([`Shape::runs`]) gives way to it.
    pub asked_runs: Option<u32>,
}

/// What the driver watches in a run beyond its summary, for a study that asks
/// ([`Shape::watch`]). Watching is part of the run the driver makes: the study never builds
/// or steps a world itself.
#[derive(Default)]
pub struct Watch {
    /// Watching elements, each put at the named node before the run starts, in this order:
    /// each is shown every packet arriving at its node over a link and must let it pass.
    pub probes: Vec<(String, Box<dyn Element>)>,
    /// The end of a warm-up: the driver pauses the run there and gives the world to
    /// [`Shape::at_warmup`], whose values reach [`Shape::measure_watched`] in [`Watched::warm`].
    pub warmup: Option<Time>,
}

/// A run the driver watched ([`Watch`]), finished.
pub struct Watched {
    /// The finished run, as [`scenario::run`] gives it.
    pub out: Outcome,
    /// The run's seed.
    pub seed: u64,
    /// The watching elements, in [`Watch::probes`] order.
    pub probes: Vec<ElementId>,
    /// What [`Shape::at_warmup`] noted at the end of the warm-up (empty without one).
    pub warm: Metrics,
    /// What [`Shape::at_pause`] noted at each of [`Shape::pauses`], in order.
    pub paused: Vec<Metrics>,
}

impl Watched {
    /// The `i`-th watching element, as the type the study put there.
    pub fn probe<T: 'static>(&self, i: usize) -> &T {
        self.out.world.elements[self.probes[i].0 as usize]
            .element
            .as_any()
            .downcast_ref::<T>()
            .expect("the watching element the study put there")
    }
    /// The value named `name` noted at the end of the warm-up (NaN when not noted).
    pub fn warm(&self, name: &str) -> f64 {
        self.warm
            .iter()
            .find(|m| m.0 == name)
            .and_then(|m| m.1)
            .unwrap_or(f64::NAN)
    }
}

/// A reproducible study (see the module doc).
pub trait Shape: Sync {
    /// What one sweep's points need beyond their parameter values.
    type Def: Sync;
    /// The measured results of one pass, as the claims, figures and report read them.
    type Results;

    /// The study's name on the command line (and its output folder).
    const NAME: &'static str;
    /// The base seed of its sweeps (the seed-set test also runs a disjoint one).
    const BASE_SEED: u64;
    /// Replications per point when the command line does not say: `[quick, full]`.
    const RUNS: [u32; 2];
    /// The passes it runs; [`Pass::Own`] first.
    fn passes(&self) -> &'static [Pass] {
        &[Pass::Own]
    }
    /// Its grid: the sweeps of `pass`.
    fn grid(&self, quick: bool, pass: Pass) -> Vec<Sweep<Self::Def>>;
    /// The scenario of `point` of the sweep `def` for the run with `seed` (a study whose
    /// scenario draws from the seed, e.g. flow start times, does so here).
    fn scenario(&self, def: &Self::Def, point: &GridPoint, seed: u64) -> Result<Scenario, String>;
    /// The metrics of a finished run (default: the summary's flattened metrics).
    fn measure(&self, _def: &Self::Def, _point: &GridPoint, out: &Outcome) -> Metrics {
        out.summary.metrics()
    }
    /// What the driver should watch in the runs of `point` beyond the summary (default:
    /// nothing; the run is [`scenario::run`] and [`Shape::measure`] measures it).
    fn watch(&self, _def: &Self::Def, _point: &GridPoint) -> Option<Watch> {
        None
    }
    /// Values noted at the end of the warm-up of a watched run ([`Watch::warmup`]).
    fn at_warmup(
        &self,
        _def: &Self::Def,
        _point: &GridPoint,
        _world: &World,
        _info: &RunInfo,
    ) -> Metrics {
        Vec::new()
    }
    /// Called on the built world of a watched run before it starts, for what the scenario
    /// format does not state (atm-tcp: the cell port's idle-gap and per-bin statistics).
    fn prepare(&self, _def: &Self::Def, _point: &GridPoint, _world: &mut World) {}
    /// Further instants, in increasing order, at which the driver pauses a watched run and
    /// gives the world to [`Shape::at_pause`] (default: none). atm-tcp reads its trace bins
    /// and warm-up this way.
    fn pauses(&self, _def: &Self::Def, _point: &GridPoint) -> Vec<Time> {
        Vec::new()
    }
    /// Values noted at one of [`Shape::pauses`] (`at`), kept in [`Watched::paused`].
    fn at_pause(&self, _def: &Self::Def, _point: &GridPoint, _world: &World, _at: Time) -> Metrics {
        Vec::new()
    }
    /// The seed the run of `replication` uses, given the sweep's base seed and the seed the
    /// driver derived for it (default: that one). atm-tcp keeps the seeds it had before it
    /// ran on the driver (kernel `mix_seed` over base seed and replication), so that its
    /// recorded outputs stay the same; the store keys the run by the derived seed.
    fn run_seed(&self, _base_seed: u64, _replication: u32, derived: u64) -> u64 {
        derived
    }
    /// The metrics of a watched run (default: [`Shape::measure`] of its outcome).
    fn measure_watched(&self, def: &Self::Def, point: &GridPoint, run: &Watched) -> Metrics {
        self.measure(def, point, &run.out)
    }
    /// Replications per point of the sweep `def` (default: the setting's for every sweep).
    fn runs(&self, _def: &Self::Def, set: &Setting) -> u32 {
        set.runs
    }
    /// One pass's results from its sweeps' stored runs.
    fn collect(&self, swept: Vec<Swept<Self::Def>>) -> Self::Results;
    /// Its claims judged on `r` (every kind: the paper's, extensions, sensitivities).
    fn claims(&self, r: &Self::Results) -> Vec<Check>;
    /// Notes computed from the study's own runs, added to the claims of [`Pass::Own`].
    fn explain(&self, _r: &Self::Results, _checks: &mut [Check]) {}
    /// The claims as ns-2.35 would judge them, for a study that runs those points inside its
    /// own grid rather than as a [`Pass::AsNs2`] (default: none).
    fn ns2_claims(&self, _r: &Self::Results) -> Option<Vec<Check>> {
        None
    }
    /// Checks judged apart from [`Shape::claims`] and written by the study itself (a
    /// sensitivity grid's own checks.csv, from [`Shape::figures`]): not in the study's
    /// checks.csv, but counted in the outcome's headline counts with their kind (default:
    /// none).
    fn apart(&self, _r: &Self::Results) -> Vec<Check> {
        Vec::new()
    }
    /// Writes one pass's figures and tables under `root` (the pass's folder).
    fn figures(&self, root: &Path, r: &Self::Results) -> Result<(), String>;
    /// The report of the study's own pass, given its claims (with the ns-2.35 column attached).
    fn report(&self, r: &Self::Results, checks: &[Check], set: &Setting) -> String;
}

/// A run's metrics: names and values (`None` when not defined for the run).
pub type Metrics = Vec<(String, Option<f64>)>;

/// Runs `study` with `opts` and writes its folder: per-sweep results, figures, `checks.csv`,
/// `ns2/` when it has [`Pass::AsNs2`], and `report.md`.
pub fn drive<S: Shape>(study: &S, opts: &ReproduceOptions) -> Result<StudyOutcome, String> {
    let root = opts.out.join(S::NAME);
    let set = Setting {
        runs: opts.runs.unwrap_or(S::RUNS[usize::from(!opts.quick)]),
        quick: opts.quick,
        base_seed: S::BASE_SEED,
        jobs: opts.jobs,
        progress: opts.progress,
        asked_runs: opts.runs,
    };
    let own = run_pass(study, &root, Pass::Own, &set)?;
    let mut checks = study.claims(&own);
    study.explain(&own, &mut checks);
    let ns2 = if study.passes().contains(&Pass::AsNs2) {
        let r = run_pass(study, &root.join(NS2_DIR), Pass::AsNs2, &set)?;
        Some(study.claims(&r))
    } else {
        study.ns2_claims(&own)
    };
    let o = super::finish(S::NAME, &root, checks, ns2.as_deref(), |checks| {
        Ok(study.report(&own, checks, &set))
    })?;
    Ok(o.counting(&study.apart(&own)))
}

/// Where [`Pass::AsNs2`] is written, under the study's folder.
pub const NS2_DIR: &str = "ns2";

/// The claims of the study's own pass run with `runs` replications from `base_seed` in a
/// scratch folder (removed after), with notes: one seed set of the two-seed-set test.
pub fn seed_set<S: Shape>(study: &S, runs: u32, quick: bool, base_seed: u64) -> Vec<Check> {
    // One folder per call: tests of one study run in parallel threads of one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "packetsim-{}-seeds-{}-{call}-{base_seed}",
        S::NAME,
        std::process::id()
    ));
    let set = Setting {
        runs,
        quick,
        base_seed,
        jobs: 2,
        progress: false,
        asked_runs: Some(runs),
    };
    let r = run_pass(study, &dir, Pass::Own, &set);
    let _ = std::fs::remove_dir_all(&dir);
    let r = r.expect("the seed set's sweeps");
    let mut checks = study.claims(&r);
    study.explain(&r, &mut checks);
    checks
}

/// Runs every sweep of `pass` into `root`, collects them and writes the pass's figures.
fn run_pass<S: Shape>(
    study: &S,
    root: &Path,
    pass: Pass,
    set: &Setting,
) -> Result<S::Results, String> {
    let swept = study
        .grid(set.quick, pass)
        .into_iter()
        .map(|sw| run_sweep(study, root, sw, set))
        .collect::<Result<Vec<_>, _>>()?;
    let r = study.collect(swept);
    study.figures(root, &r)?;
    Ok(r)
}

/// Runs one sweep of `study` into `root`/its folder through the resumable store.
pub fn run_sweep<S: Shape>(
    study: &S,
    root: &Path,
    sw: Sweep<S::Def>,
    set: &Setting,
) -> Result<Swept<S::Def>, String> {
    let dir = root.join(&sw.dir);
    let spec = SweepSpec {
        experiment_key: sw.key,
        params: sw.params,
        runs: study.runs(&sw.def, set),
        base_seed: set.base_seed,
        jobs: set.jobs,
        out_dir: dir.clone(),
        progress: set.progress,
        shared_seed_params: sw.shared_seed_params,
    };
    let def = sw.def;
    let report = experiment::sweep(&spec, |point, seed| {
        // The replication the driver derived `seed` for (the sweep gives only the seed).
        let rep = (0..spec.runs)
            .find(|&r| {
                experiment::run_seed_sharing(spec.base_seed, point, r, &spec.shared_seed_params)
                    == seed
            })
            .unwrap_or(0);
        let seed = study.run_seed(spec.base_seed, rep, seed);
        run_point(study, &def, point, seed)
    })
    .map_err(|e| e.to_string())?;
    Ok(Swept {
        def,
        dir,
        points: report.points,
        runs: report.runs,
    })
}

/// One run: the point's scenario, built and run with `seed`, then measured (watched when the
/// study asks, [`Shape::watch`]).
pub fn run_point<S: Shape>(
    study: &S,
    def: &S::Def,
    point: &GridPoint,
    seed: u64,
) -> Result<RunOutput, String> {
    let (out, metrics) = if study.watch(def, point).is_some() {
        let run = watched_run(study, def, point, seed)?;
        let metrics = study.measure_watched(def, point, &run);
        (run.out, metrics)
    } else {
        let sc = study.scenario(def, point, seed)?;
        let out = scenario::run(&sc, seed).map_err(|e| e.to_string())?;
        let metrics = study.measure(def, point, &out);
        (out, metrics)
    };
    Ok(RunOutput {
        summary_json: out.summary.to_json(),
        metrics,
    })
}

/// The run of `point` with `seed` as the driver watches it ([`Shape::watch`]; nothing watched
/// when the study asks for nothing): built from the point's scenario, the watching elements
/// added, paused at the warm-up, run to the end as [`scenario::run`] runs it (the
/// scenario's flow monitor is not attached). A study's figures that show one run over time
/// read it through here.
pub fn watched_run<S: Shape>(
    study: &S,
    def: &S::Def,
    point: &GridPoint,
    seed: u64,
) -> Result<Watched, String> {
    let sc = study.scenario(def, point, seed)?;
    let watch = study.watch(def, point).unwrap_or_default();
    let mut world = scenario::build(&sc, seed).map_err(|e| e.to_string())?;
    world.stop_when_done(true);
    let mut probes = Vec::new();
    for (node, el) in watch.probes {
        let at = world
            .net
            .nodes
            .iter()
            .position(|n| n.name == node)
            .ok_or_else(|| format!("{}: no node {node:?} to watch", S::NAME))?;
        probes.push(world.add_element(NodeId(at as u32), el, true));
    }
    study.prepare(def, point, &mut world);
    // The pauses, and the warm-up after a pause at the same instant.
    let mut stops: Vec<(Time, bool)> = study
        .pauses(def, point)
        .into_iter()
        .map(|t| (t, false))
        .chain(watch.warmup.map(|t| (t, true)))
        .collect();
    stops.sort_by_key(|s| s.0);
    let (mut warm, mut paused) = (Vec::new(), Vec::new());
    for (t, is_warmup) in stops {
        let info = world.run_until(t);
        if is_warmup {
            warm = study.at_warmup(def, point, &world, &info);
        } else {
            paused.push(study.at_pause(def, point, &world, t));
        }
    }
    let info = world.run();
    let summary = Summary::new(&world, &info, &sc.origin, seed);
    Ok(Watched {
        out: Outcome {
            world,
            info,
            summary,
        },
        seed,
        probes,
        warm,
        paused,
    })
}

/// A swept parameter `path` over `values`.
pub fn param<T: ToString>(path: &str, values: &[T]) -> Param {
    Param {
        path: path.into(),
        values: values.iter().map(T::to_string).collect(),
    }
}

/// `x` (seconds, in [0, 1)) in whole microseconds, rounded as a decimal print of it with six
/// places rounds it (to nearest, ties to even), computed exactly from the float's bits: the
/// start times studies wrote as `"{x:.6}s"` before they built their scenarios in code
/// (issue 35), so a drawn start time stays the same time.
pub fn micros(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let (mant, shift) = if exp == 0 {
        (bits & ((1 << 52) - 1), 1074)
    } else {
        ((bits & ((1 << 52) - 1)) | (1 << 52), 1075 - exp)
    };
    // x = mant / 2^shift exactly; below 2^-47 it rounds to 0 µs, and from 1 on (outside the
    // documented range) the float product is near enough.
    if shift > 100 {
        return 0;
    }
    if shift < 53 {
        return (x * 1e6).round() as u64;
    }
    let num = u128::from(mant) * 1_000_000;
    let q = num >> shift;
    let rem = num - (q << shift);
    let half = 1u128 << (shift - 1);
    let up = rem > half || (rem == half && q % 2 == 1);
    (q + u128::from(up)) as u64
}
