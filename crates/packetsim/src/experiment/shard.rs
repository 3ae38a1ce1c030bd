//! Sharded sweeps: one sweep split over N independent processes (cluster array tasks,
//! machines, notebooks), each writing its own store, then merged into one.
//!
//! - [`Shard`] `I/N` (`0 ≤ I < N`) owns the runs whose *run number* `point.index × runs +
//!   replication` is `I mod N`: a round-robin over the (grid point, replication) runs, so
//!   every shard gets points from the whole grid (costly corners of a sweep are spread) and
//!   the shards' sizes differ by at most one. Seeds are the unsharded sweep's
//!   ([`super::run_seed_sharing`]); a shard changes which runs a process computes, never what
//!   they compute.
//! - A sweep run through [`sweep_sharded`] writes `DIR/sweep.json` ([`SweepManifest`]): the
//!   experiment key, parameters, replications, base seed, shared-seed parameters and the
//!   shard. A shard of more than one writes no CSV files (its statistics would be partial).
//! - [`merge`] reads the manifests of several result directories (shards, or whole sweeps),
//!   refuses directories of another sweep, and copies every run into the output store exactly
//!   once. A run present in two inputs (a shard run twice, a resumed task) is kept once after
//!   checking that its seed and every metric agree bit for bit (the JSON summary is not
//!   compared: it holds the wall-clock time). A run present in no input is reported, with the
//!   shards that should have computed it, and no CSV is written: nothing is invented. With
//!   every run present, the output's `results.csv` and `runs.csv` go through the same code as
//!   the unsharded sweep's and are byte-identical to them.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::aggregate::{results_csv, runs_csv, summarize, write_atomic, PointSummary};
use super::grid::{grid, run_seed_sharing, validate_params, Param};
use super::store::{ResultsStore, StoredRun};
use super::sweep::{RESULTS_CSV, RUNS_CSV};
use super::ExperimentError;

/// File name of a sweep's manifest in its output directory.
pub const MANIFEST_FILE: &str = "sweep.json";

/// Format version of [`MANIFEST_FILE`] this code writes and reads.
const MANIFEST_FORMAT: u32 = 1;

/// One share of a sweep's runs: shard `index` of `count` (0-based: `0/4` … `3/4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which share, `0 ≤ index < count`.
    pub index: u32,
    /// How many shares the sweep is split into, at least 1.
    pub count: u32,
}

impl Shard {
    /// The whole sweep (`0/1`).
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// A shard, if `index < count`.
    pub fn new(index: u32, count: u32) -> Option<Shard> {
        (index < count).then_some(Shard { index, count })
    }

    /// Whether this shard computes the run numbered `run_number` (`point.index × runs +
    /// replication`).
    pub fn owns(&self, run_number: u64) -> bool {
        run_number % u64::from(self.count) == u64::from(self.index)
    }

    /// The shard that computes run `run_number` in a split into `count`.
    pub fn of_run(run_number: u64, count: u32) -> u32 {
        (run_number % u64::from(count)) as u32
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// Parses `I/N`, e.g. `0/4` (shards count from 0, like Slurm's `--array=0-3`).
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || {
            format!(
                "expected I/N with 0 ≤ I < N, e.g. 0/4 (shards count from 0, like a Slurm \
                 array 0-3); got {s:?}"
            )
        };
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let i: u32 = i.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n).ok_or_else(bad)
    }
}

/// What `DIR/sweep.json` records: enough to check that directories belong to one sweep and
/// to aggregate their merged runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepManifest {
    /// Format version ([`MANIFEST_FORMAT`]).
    pub format: u32,
    /// The experiment key the runs are stored under.
    pub experiment_key: String,
    /// The swept parameters, as `(path, values)`.
    pub params: Vec<(String, Vec<String>)>,
    /// Replications per grid point.
    pub runs: u32,
    /// Base seed, as decimal text (JSON numbers beyond 2^53 are not safe in every reader).
    pub base_seed: String,
    /// Parameters left out of the seeds.
    pub shared_seed_params: Vec<String>,
    /// Which share this directory holds (`0/1` for a whole or merged sweep).
    pub shard: Shard,
}

impl SweepManifest {
    /// The manifest of `spec` run as `shard`.
    pub fn of(spec: &super::SweepSpec, shard: Shard) -> SweepManifest {
        SweepManifest {
            format: MANIFEST_FORMAT,
            experiment_key: spec.experiment_key.clone(),
            params: spec
                .params
                .iter()
                .map(|p| (p.path.clone(), p.values.clone()))
                .collect(),
            runs: spec.runs,
            base_seed: spec.base_seed.to_string(),
            shared_seed_params: spec.shared_seed_params.clone(),
            shard,
        }
    }

    /// The parameters as [`Param`]s.
    pub fn params(&self) -> Vec<Param> {
        self.params
            .iter()
            .map(|(path, values)| Param {
                path: path.clone(),
                values: values.clone(),
            })
            .collect()
    }

    /// Writes `dir/sweep.json` (atomically).
    pub fn write(&self, dir: &Path) -> Result<(), ExperimentError> {
        let text = serde_json::to_string_pretty(self).expect("a manifest always serializes");
        write_atomic(&dir.join(MANIFEST_FILE), &(text + "\n"))
    }

    /// Reads `dir/sweep.json`.
    pub fn read(dir: &Path) -> Result<SweepManifest, ExperimentError> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| ExperimentError::Io {
            path: path.clone(),
            source,
        })?;
        let m: SweepManifest = serde_json::from_str(&text).map_err(|e| ExperimentError::Merge {
            detail: format!("{}: not a sweep manifest: {e}", path.display()),
        })?;
        if m.format != MANIFEST_FORMAT {
            return Err(ExperimentError::Merge {
                detail: format!(
                    "{}: manifest format {} (this packetsim reads {MANIFEST_FORMAT})",
                    path.display(),
                    m.format
                ),
            });
        }
        if m.shard.index >= m.shard.count {
            return Err(ExperimentError::Merge {
                detail: format!(
                    "{}: shard {} is not I/N with I < N",
                    path.display(),
                    m.shard
                ),
            });
        }
        Ok(m)
    }

    /// The base seed as a number.
    pub fn base_seed(&self) -> Result<u64, ExperimentError> {
        self.base_seed.parse().map_err(|_| ExperimentError::Merge {
            detail: format!("manifest base_seed `{}` is not a u64", self.base_seed),
        })
    }

    /// Whether `other` describes the same sweep (everything but the shard agrees).
    fn same_sweep(&self, other: &SweepManifest) -> bool {
        self.experiment_key == other.experiment_key
            && self.params == other.params
            && self.runs == other.runs
            && self.base_seed == other.base_seed
            && self.shared_seed_params == other.shared_seed_params
    }
}

/// What a merge did.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeReport {
    /// Runs in the merged sweep (grid points × replications).
    pub runs: usize,
    /// Runs found in more than one input (or already in the output) and checked to agree.
    pub duplicates: usize,
    /// Statistics per grid point, as the unsharded sweep reports them.
    pub points: Vec<PointSummary>,
}

fn same_metrics(a: &StoredRun, b: &StoredRun) -> Result<(), String> {
    if a.seed != b.seed {
        return Err(format!("seeds {} and {}", a.seed, b.seed));
    }
    if a.metrics.len() != b.metrics.len() {
        return Err(format!(
            "{} and {} metrics",
            a.metrics.len(),
            b.metrics.len()
        ));
    }
    for ((na, va), (nb, vb)) in a.metrics.iter().zip(&b.metrics) {
        let bits = |v: &Option<f64>| v.map(f64::to_bits);
        if na != nb || bits(va) != bits(vb) {
            return Err(format!("metric {na} = {va:?} but {nb} = {vb:?}"));
        }
    }
    Ok(())
}

/// Merges the result directories `inputs` (each with a `sweep.json` of one and the same
/// sweep) into `out`: its store receives every run once, then `results.csv`, `runs.csv` and
/// a whole-sweep `sweep.json` are written. Runs already in `out`'s store count as an input.
/// See the module doc for the checks; a missing run is an [`ExperimentError::MergeMissing`]
/// (the runs found are still copied into `out`, so a re-merge after computing the missing
/// shards only adds them).
pub fn merge(out: &Path, inputs: &[PathBuf]) -> Result<MergeReport, ExperimentError> {
    let Some(first) = inputs.first() else {
        return Err(ExperimentError::Merge {
            detail: "no input directories to merge".into(),
        });
    };
    let manifest = SweepManifest::read(first)?;
    for dir in &inputs[1..] {
        let m = SweepManifest::read(dir)?;
        if !manifest.same_sweep(&m) {
            return Err(ExperimentError::Merge {
                detail: format!(
                    "{} and {} hold different sweeps (experiment key, parameters, runs, base \
                     seed or shared-seed parameters differ): {} vs {}",
                    first.display(),
                    dir.display(),
                    manifest.experiment_key,
                    m.experiment_key
                ),
            });
        }
    }
    let params = manifest.params();
    validate_params(&params)?;
    let base_seed = manifest.base_seed()?;
    let points = grid(&params);
    let key = &manifest.experiment_key;

    // The output's own runs first, then each input's: (point key, replication) → (run, source).
    let mut out_store = ResultsStore::open(out)?;
    let mut found: HashMap<(String, u32), (StoredRun, PathBuf)> = HashMap::new();
    let mut duplicates = 0;
    let mut to_copy: Vec<StoredRun> = Vec::new();
    for r in out_store.load_runs(key)? {
        found.insert((r.point_key.clone(), r.replication), (r, out.to_path_buf()));
    }
    let index: HashMap<String, usize> = points.iter().map(|p| (p.key(), p.index)).collect();
    for dir in inputs {
        let store = ResultsStore::open(dir)?;
        for r in store.load_runs(key)? {
            let Some(&pi) = index.get(&r.point_key) else {
                continue; // not a point of this grid (cannot happen with equal manifests)
            };
            if r.replication >= manifest.runs {
                continue;
            }
            let seed = run_seed_sharing(
                base_seed,
                &points[pi],
                r.replication,
                &manifest.shared_seed_params,
            );
            if r.seed != seed {
                return Err(ExperimentError::SeedMismatch {
                    path: store.path().to_path_buf(),
                    point: points[pi].to_string(),
                    replication: r.replication,
                    stored: r.seed,
                    expected: seed,
                });
            }
            let k = (r.point_key.clone(), r.replication);
            match found.get(&k) {
                Some((prev, source)) => {
                    same_metrics(prev, &r).map_err(|detail| ExperimentError::MergeConflict {
                        point: points[pi].to_string(),
                        replication: r.replication,
                        first: source.clone(),
                        second: dir.clone(),
                        detail,
                    })?;
                    duplicates += 1;
                }
                None => {
                    to_copy.push(r.clone());
                    found.insert(k, (r, dir.clone()));
                }
            }
        }
    }
    out_store.copy_runs(key, &to_copy)?;
    SweepManifest {
        shard: Shard::WHOLE,
        ..manifest.clone()
    }
    .write(out)?;

    let mut missing = Vec::new();
    let mut shards = BTreeSet::new();
    for p in &points {
        let pk = p.key();
        for rep in 0..manifest.runs {
            if !found.contains_key(&(pk.clone(), rep)) {
                let run_number = p.index as u64 * u64::from(manifest.runs) + u64::from(rep);
                missing.push(format!("{p}, replication {rep}"));
                shards.insert(Shard::of_run(run_number, manifest.shard.count));
            }
        }
    }
    let total = points.len() * manifest.runs as usize;
    if !missing.is_empty() {
        return Err(ExperimentError::MergeMissing {
            missing: missing.len(),
            total,
            shards: shards
                .iter()
                .map(|s| format!("{s}/{}", manifest.shard.count))
                .collect::<Vec<_>>()
                .join(", "),
            examples: missing.into_iter().take(5).collect::<Vec<_>>().join("; "),
        });
    }

    let stored = out_store.load_runs(key)?;
    let summaries = summarize(&points, manifest.runs, &stored);
    write_atomic(&out.join(RESULTS_CSV), &results_csv(&params, &summaries))?;
    write_atomic(
        &out.join(RUNS_CSV),
        &runs_csv(&params, &points, manifest.runs, &stored),
    )?;
    Ok(MergeReport {
        runs: total,
        duplicates,
        points: summaries,
    })
}
