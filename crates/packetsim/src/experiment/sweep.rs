//! The sweep driver: grid × replications on a rayon pool, each run committed to the store as
//! soon as it finishes, then aggregation and the CSV files.
//!
//! Order of work: validate the spec, open the store, list the (point, replication) pairs not
//! yet stored under the experiment key, run those on `jobs` threads, then load *all* stored
//! runs of the grid (reused and new alike, so both go through the same store round trip) and
//! aggregate them. Only store writes are serialised (one connection behind a `Mutex`).
//!
//! Stored runs are reused only if their seed is the one this spec derives: a results directory
//! filled with another base seed is refused ([`ExperimentError::SeedMismatch`]) rather than
//! silently mixed. (Put the base seed in the experiment key to keep both in one directory.)
//!
//! A run that returns `Err` or panics stops the sweep: no new runs start, runs already in
//! flight finish and are stored, and the first error seen is returned (with several jobs,
//! which failing run is reported first is not deterministic). A runner returning a metric name
//! twice is an error of that run. Non-finite metric values count as not available.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use super::aggregate::{
    results_csv, runs_by_point, runs_csv, summarize, write_atomic, PointSummary,
};
use super::grid::{grid, run_seed_sharing, validate_params, GridPoint, Param};
use super::shard::{Shard, SweepManifest};
use super::store::{ResultsStore, StoredRun};
use super::ExperimentError;

/// File name of the per-point statistics in the output directory.
pub const RESULTS_CSV: &str = "results.csv";
/// File name of the per-run metrics in the output directory.
pub const RUNS_CSV: &str = "runs.csv";

/// What one run hands back to the engine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOutput {
    /// A free-form JSON summary of the run, stored as given.
    pub summary_json: String,
    /// Flattened metric name → value (`None` = not available, e.g. a transfer that did not
    /// finish). Names carry units (`goodput_bps`); each name at most once.
    pub metrics: Vec<(String, Option<f64>)>,
}

/// A sweep to run (configuration only; nothing here changes while it runs).
#[derive(Clone, Debug)]
pub struct SweepSpec {
    /// Identifies the scenario text and code version; runs are stored under it, so a change
    /// of either must change the key.
    pub experiment_key: String,
    /// Swept parameters (the grid is their cartesian product).
    pub params: Vec<Param>,
    /// Replications per grid point.
    pub runs: u32,
    /// Base seed that run seeds are derived from.
    pub base_seed: u64,
    /// Worker threads; 0 = number of cores.
    pub jobs: usize,
    /// Output directory: `results.sqlite`, `results.csv`, `runs.csv`.
    pub out_dir: PathBuf,
    /// Show a progress bar on stderr (hidden anyway when stderr is not a terminal).
    pub progress: bool,
    /// Parameters left out of the run seeds: points that differ only in these share their
    /// seeds (common random numbers, for paired comparisons of curves). Usually empty.
    pub shared_seed_params: Vec<String>,
}

/// What a finished sweep did and found.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepReport {
    /// Runs computed by this call.
    pub computed: usize,
    /// Runs found already stored and not recomputed.
    pub reused: usize,
    /// Statistics per grid point, in point index order.
    pub points: Vec<PointSummary>,
    /// The stored runs behind them, per point (index order), each list in replication order
    /// (replications `0..runs` only): the per-seed values that paired comparisons need.
    pub runs: Vec<Vec<StoredRun>>,
}

impl SweepReport {
    /// The points with at least two replications whose metrics were all identical: runs
    /// that had no source of randomness (no loss, no random process, no start jitter), so
    /// their confidence intervals say nothing. The caller warns about them.
    pub fn identical_points(&self) -> Vec<&GridPoint> {
        self.points
            .iter()
            .zip(&self.runs)
            .filter(|(_, runs)| {
                runs.len() >= 2 && runs.iter().all(|r| r.metrics == runs[0].metrics)
            })
            .map(|(p, _)| &p.point)
            .collect()
    }
}

/// What a sweep says about a point of [`SweepReport::identical_points`] with `runs`
/// replications: the command line prints it after `warning: `, the Python API gives it as a
/// `packetsim.IdenticalReplicationsWarning`.
pub fn identical_replications_warning(runs: u32, point: &GridPoint) -> String {
    format!(
        "all {runs} replications of {point} gave identical metrics: the scenario has no \
         source of randomness there (add loss, a random process, or flows.NAME.start_jitter)"
    )
}

/// One run to do.
struct Job<'a> {
    point: &'a GridPoint,
    replication: u32,
}

fn progress_bar(total: u64, done: u64, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} runs, ETA {eta} {msg}",
    )
    .expect("the template is valid");
    bar.set_style(style);
    bar.set_position(done);
    if done > 0 {
        bar.set_message(format!("({done} reused)"));
    }
    bar.reset_eta();
    bar
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_string()
    }
}

fn check_output(out: &RunOutput) -> Result<(), String> {
    let mut seen = HashSet::new();
    for (name, _) in &out.metrics {
        if !seen.insert(name.as_str()) {
            return Err(format!("metric `{name}` reported more than once"));
        }
    }
    Ok(())
}

/// Runs the sweep described by `spec`, calling `run(point, seed)` for each (point,
/// replication) not already stored under `spec.experiment_key`, and writes `results.csv` and
/// `runs.csv` in `spec.out_dir`. See the module doc for error behaviour.
pub fn sweep<F>(spec: &SweepSpec, run: F) -> Result<SweepReport, ExperimentError>
where
    F: Fn(&GridPoint, u64) -> Result<RunOutput, String> + Sync,
{
    sweep_sharded(spec, None, run)
}

/// [`sweep()`] restricted to the runs of `shard` (see [`super::shard`]), which also writes
/// `sweep.json` in the output directory. A shard of a split (`count > 1`) writes no CSV files
/// and reports statistics over the runs stored in its directory only; merge the shards'
/// directories with [`super::merge()`]. `Some(Shard::WHOLE)` is the whole sweep plus its
/// manifest; `None` is exactly [`sweep()`].
pub fn sweep_sharded<F>(
    spec: &SweepSpec,
    shard: Option<Shard>,
    run: F,
) -> Result<SweepReport, ExperimentError>
where
    F: Fn(&GridPoint, u64) -> Result<RunOutput, String> + Sync,
{
    validate_params(&spec.params)?;
    let owner = shard.unwrap_or(Shard::WHOLE);
    let points = grid(&spec.params);
    let store = ResultsStore::open(&spec.out_dir)?;
    let done = store.done_runs(&spec.experiment_key)?;

    let mut jobs: Vec<Job> = Vec::new();
    let mut owned = 0usize;
    for point in &points {
        let key = point.key();
        for replication in 0..spec.runs {
            let seed =
                run_seed_sharing(spec.base_seed, point, replication, &spec.shared_seed_params);
            let run_number = point.index as u64 * u64::from(spec.runs) + u64::from(replication);
            let mine = owner.owns(run_number);
            if mine {
                owned += 1;
            }
            match done.get(&(key.clone(), replication)) {
                None if mine => jobs.push(Job { point, replication }),
                None => {}
                Some(&stored) if stored == seed => {}
                Some(&stored) => {
                    return Err(ExperimentError::SeedMismatch {
                        path: store.path().to_path_buf(),
                        point: point.to_string(),
                        replication,
                        stored,
                        expected: seed,
                    })
                }
            }
        }
    }
    let total = owned;
    let reused = total - jobs.len();

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(spec.jobs)
        .thread_name(|i| format!("packetsim-sweep-{i}"))
        .build()
        .map_err(|source| ExperimentError::ThreadPool {
            jobs: spec.jobs,
            source,
        })?;
    let bar = progress_bar(total as u64, reused as u64, spec.progress);
    let store = Mutex::new(store);
    let computed = AtomicUsize::new(0);

    let outcome = pool.install(|| {
        jobs.par_iter().try_for_each(|job| {
            let seed = run_seed_sharing(
                spec.base_seed,
                job.point,
                job.replication,
                &spec.shared_seed_params,
            );
            let run_err = |message: String| ExperimentError::Run {
                point: job.point.to_string(),
                replication: job.replication,
                seed,
                message,
            };
            let output = catch_unwind(AssertUnwindSafe(|| run(job.point, seed)))
                .map_err(|payload| run_err(panic_message(payload.as_ref())))?
                .map_err(&run_err)?;
            check_output(&output).map_err(&run_err)?;
            store
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .insert_run(
                    &spec.experiment_key,
                    job.point,
                    job.replication,
                    seed,
                    &output.summary_json,
                    &output.metrics,
                )?;
            computed.fetch_add(1, Ordering::Relaxed);
            bar.inc(1);
            Ok(())
        })
    });
    if let Err(e) = outcome {
        bar.abandon_with_message("stopped by an error");
        return Err(e);
    }
    bar.finish_and_clear();

    let store = store
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let stored = store.load_runs(&spec.experiment_key)?;
    let summaries = summarize(&points, spec.runs, &stored);
    if let Some(shard) = shard {
        SweepManifest::of(spec, shard).write(&spec.out_dir)?;
    }
    if owner.count == 1 {
        write_csvs(spec, &points, &stored, &summaries)?;
    }
    let runs = runs_by_point(&points, spec.runs, &stored)
        .into_iter()
        .map(|list| list.into_iter().cloned().collect())
        .collect();
    Ok(SweepReport {
        computed: computed.into_inner(),
        reused,
        points: summaries,
        runs,
    })
}

fn write_csvs(
    spec: &SweepSpec,
    points: &[GridPoint],
    stored: &[StoredRun],
    summaries: &[PointSummary],
) -> Result<(), ExperimentError> {
    write_atomic(
        &spec.out_dir.join(RESULTS_CSV),
        &results_csv(&spec.params, summaries),
    )?;
    write_atomic(
        &spec.out_dir.join(RUNS_CSV),
        &runs_csv(&spec.params, points, spec.runs, stored),
    )
}
