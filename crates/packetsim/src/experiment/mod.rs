//! Experiments: parameter sweeps × replications on all cores, with seeds derived from (base
//! seed, grid point, replication), an embedded SQLite results store that makes sweeps
//! resumable, and per-point statistics with Student-t confidence intervals.
//!
//! The engine knows nothing of networks: [`sweep()`] calls a runner closure `run(point, seed)`
//! that builds and runs whatever the point describes and returns flattened metrics. The
//! `packetsim sweep` command and each study's `reproduce` command supply their own runner.
//!
//! - [`grid`](mod@grid): `--param PATH=V1,V2,...` ([`Param`]), the cartesian product ([`GridPoint`],
//!   first parameter slowest), run seeds ([`run_seed`]), which depend on a point's
//!   assignments, not its index, so adding a value to a sweep reseeds no other point.
//! - [`store`]: `DIR/results.sqlite` ([`ResultsStore`]); one committed transaction per run.
//! - [`sweep`](mod@sweep): the driver ([`sweep()`], [`SweepSpec`], [`SweepReport`]).
//! - [`shard`]: sharded sweeps (`--shard I/N`, [`Shard`]), the `sweep.json` manifest and
//!   [`merge()`], which joins shards' stores exactly once.
//! - [`lock`] and [`manifest`]: one writer per output folder, and the files a command writes
//!   there committed as a set with a manifest written last ([`OutputSet`], [`verify`]).
//! - [`aggregate`]: statistics ([`MetricSummary`]), `DIR/results.csv` and `DIR/runs.csv`
//!   (formats in that module's doc; floats in shortest round-trip form).
//!
//! Invariants: a (experiment key, point, replication) is computed at most once per results
//! directory, however often a sweep is interrupted and restarted; a run counts as done only
//! once it is committed; the numbers written depend only on the stored runs, never on `jobs`
//! or completion order. The experiment key must change whenever the scenario text or the code
//! changes, or stale runs would be reused; choosing it is the caller's job.
//!
//! Uses: the kernel crate (`rng::mix_seed`, `stats`), rusqlite, rayon, indicatif, sha2, fs4. No other
//! packetsim layer.

pub mod aggregate;
pub mod grid;
pub mod limits;
pub mod lock;
pub mod manifest;
pub mod shard;
pub mod store;
pub mod sweep;

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub use aggregate::{MetricSummary, PointSummary};
pub use grid::{grid, run_seed, run_seed_sharing, validate_params, GridPoint, Param, ParamError};
pub use lock::{lock_dir, DirLock, LockError};
pub use manifest::{verify, Incomplete, OutputSet, OUTPUT_MANIFEST};
pub use shard::{merge, MergeReport, Shard, SweepManifest, MANIFEST_FILE};
pub use store::{ResultsStore, StoredRun};
pub use sweep::{
    identical_replications_warning, sweep, sweep_sharded, RunOutput, SweepReport, SweepSpec,
};

/// An experiment key for `label` (e.g. the scenario file name or a study's experiment name)
/// that changes whenever the scenario text or the code changes: `label@CODE_VERSION#HASH`,
/// HASH = [`content_hash`] of the scenario text in hex. Callers with other inputs that change
/// results (fixed overrides) should fold them into `scenario_text`.
pub fn experiment_key(label: &str, scenario_text: &str) -> String {
    let hash = content_hash(scenario_text.as_bytes());
    format!("{label}@{}#{hash:016x}", code_version())
}

/// The first 64 bits (big-endian) of the SHA-256 of `bytes`: what experiment keys and code
/// versions name a scenario text or an executable by. (Until 2026-12-07 this was 64-bit
/// FNV-1a, which is not collision-resistant; stores written before then simply miss.)
pub fn content_hash(bytes: &[u8]) -> u64 {
    use sha2::Digest;
    let d = sha2::Sha256::digest(bytes);
    let mut first = [0u8; 8];
    first.copy_from_slice(&d[..8]);
    u64::from_be_bytes(first)
}

/// The version of the code computing results: the package version plus a hash of the running
/// executable, so that results stored by an older build (committed or not) are never reused
/// by a newer one. Falls back to the package version alone if the executable cannot be read.
pub fn code_version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        let exe = std::env::current_exe().and_then(std::fs::read);
        match exe {
            Ok(bytes) => format!(
                "{}+exe.{:016x}",
                env!("CARGO_PKG_VERSION"),
                content_hash(&bytes)
            ),
            Err(_) => env!("CARGO_PKG_VERSION").to_string(),
        }
    })
}

/// Why an experiment could not be run or its results not be stored or written.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The swept parameters are unusable.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The results store could not be opened or set up.
    #[error("cannot open results store {}: {source}", path.display())]
    StoreOpen {
        /// The store file.
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A read or write of the results store failed.
    #[error("results store {}: {source}", path.display())]
    Store {
        /// The store file.
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// The results store holds something this code cannot read.
    #[error("results store {}: {detail}", path.display())]
    StoreCorrupt {
        /// The store file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// A file or directory could not be created or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A run failed (returned an error, panicked, or returned malformed output). Runs finished
    /// before it stay stored.
    #[error("run failed at {point}, replication {replication}, seed {seed}: {message}")]
    Run {
        /// The grid point, as displayed by [`GridPoint`].
        point: String,
        /// Replication number, from 0.
        replication: u32,
        /// The seed it was given.
        seed: u64,
        /// The runner's error message.
        message: String,
    },
    /// A stored run was computed with another seed than this sweep derives for it (another
    /// base seed under the same experiment key).
    #[error(
        "results store {}: {point}, replication {replication} was computed with seed {stored}, \
         but this sweep derives seed {expected} (another base seed?); use another output \
         directory or the same seed",
        path.display()
    )]
    SeedMismatch {
        /// The store file.
        path: PathBuf,
        /// The grid point, as displayed by [`GridPoint`].
        point: String,
        /// Replication number, from 0.
        replication: u32,
        /// The seed in the store.
        stored: u64,
        /// The seed this sweep derives.
        expected: u64,
    },
    /// Result directories cannot be merged (no manifest, another sweep, no inputs).
    #[error("merge: {detail}")]
    Merge {
        /// What is wrong, naming the directory.
        detail: String,
    },
    /// The same run is stored in two merge inputs with different results.
    #[error(
        "merge: {point}, replication {replication} is in {} and {} with different results \
         ({detail}); a run must not depend on where it ran",
        first.display(),
        second.display()
    )]
    MergeConflict {
        /// The grid point, as displayed by [`GridPoint`].
        point: String,
        /// Replication number, from 0.
        replication: u32,
        /// Where it was found first.
        first: PathBuf,
        /// Where it was found again.
        second: PathBuf,
        /// What differs.
        detail: String,
    },
    /// Runs of the sweep are in none of the merged directories.
    #[error(
        "merge: {missing} of {total} runs are in no input (shards {shards} are incomplete; \
         rerun them and merge again), e.g. {examples}; no results.csv written"
    )]
    MergeMissing {
        /// How many runs are missing.
        missing: usize,
        /// Runs in the whole sweep.
        total: usize,
        /// The shards (`I/N`) that should have computed them.
        shards: String,
        /// The first few, as `point, replication R`.
        examples: String,
    },
    /// The worker pool could not be started.
    #[error("cannot start {jobs} worker threads: {source}")]
    ThreadPool {
        /// Requested thread count (0 = number of cores).
        jobs: usize,
        /// rayon's error.
        #[source]
        source: rayon::ThreadPoolBuildError,
    },
}
