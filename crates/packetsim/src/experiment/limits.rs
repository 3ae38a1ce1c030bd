//! The limits of a sweep, one definition for the CLI's flags and the Python API's arguments
//! (issue 38: `sweep(..., jobs=100000)` started hundreds of threads and `runs=10**7` ten
//! million runs, where the CLI refused both). Each function takes the value as given (wide
//! and signed, so that `-1` is named as out of range rather than refused as a type) and
//! answers the value to use or a message naming the argument, its range and what was given.

use super::Param;

/// The most runs (grid points × runs per point) a sweep may ask for unless raised
/// (`--max-runs`).
pub const MAX_RUNS: u64 = 1_000_000;

/// Parallel jobs per core at most: more only adds threads that wait.
pub const JOBS_PER_CORE: usize = 4;

/// The cores of this machine (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |c| c.get())
}

/// Parallel jobs: 0 (all cores) up to [`JOBS_PER_CORE`] per core.
pub fn jobs(n: i128) -> Result<usize, String> {
    let cores = cores();
    let max = JOBS_PER_CORE * cores;
    if n < 0 || n > max as i128 {
        return Err(format!(
            "jobs must be from 0 (all cores) to {max} on this machine ({JOBS_PER_CORE} per \
             core, {cores} cores); got {n}"
        ));
    }
    Ok(n as usize)
}

/// Replications per grid point: 1 to 2^32 - 1 (and the grid times them at most the run cap,
/// [`grid_runs`]).
pub fn runs(n: i128) -> Result<u32, String> {
    if n < 1 || n > u32::MAX as i128 {
        return Err(format!("runs must be from 1 to {}; got {n}", u32::MAX));
    }
    Ok(n as u32)
}

/// A base seed: 0 to 2^64 - 1.
pub fn seed(n: i128) -> Result<u64, String> {
    if n < 0 || n > u64::MAX as i128 {
        return Err(format!("seed must be from 0 to {}; got {n}", u64::MAX));
    }
    Ok(n as u64)
}

/// A memory budget (`--max-memory`, `max_memory=`): a byte count as the scenario writes one
/// (`"2GiB"`, `1500`), at most [`crate::units::MAX_BYTES`].
pub fn max_memory(text: &str) -> Result<u64, String> {
    crate::units::parse_bytes(text).map_err(|e| format!("max_memory: {e}"))
}

/// The jobs that run at once for `jobs` (0: one per core).
pub fn parallel(jobs: usize) -> usize {
    match jobs {
        0 => cores(),
        n => n,
    }
}

/// One run's share of `max_memory` when `jobs` runs go at once (a sweep's runs in parallel
/// share `--max-memory`).
pub fn per_run_memory(max_memory: u64, jobs: usize) -> u64 {
    max_memory / parallel(jobs) as u64
}

/// Whether `sc` may be run within `max_memory`: it makes a flow (a file cut short does not)
/// and its costed size fits ([`crate::scenario::check_budget`]). What `check`, `run` and
/// `sweep` ask of every scenario before any work, and the Python API likewise.
pub fn admit(
    sc: &crate::scenario::Scenario,
    max_memory: u64,
) -> Result<(), crate::scenario::BuildError> {
    crate::scenario::check_flows(sc)?;
    crate::scenario::check_budget(sc, max_memory)
}

/// The sweep's runs (grid points × `runs`), counted without building the grid, refused above
/// `max_runs`.
pub fn grid_runs(params: &[Param], runs: u32, max_runs: u64) -> Result<u64, String> {
    params
        .iter()
        .try_fold(u64::from(runs), |n, p| n.checked_mul(p.values.len() as u64))
        .filter(|&n| n <= max_runs)
        .ok_or_else(|| {
            let sizes: Vec<String> = params.iter().map(|p| p.values.len().to_string()).collect();
            format!(
                "the grid ({} values) times {runs} runs asks for more than {max_runs} runs; \
                 sweep fewer values or raise the most runs (--max-runs, max_runs=)",
                if sizes.is_empty() {
                    "1 point".to_owned()
                } else {
                    sizes.join(" x ")
                }
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_name_the_argument_and_its_range() {
        let max = JOBS_PER_CORE * cores();
        assert_eq!(jobs(0), Ok(0));
        assert_eq!(jobs(max as i128), Ok(max));
        for bad in [-1, max as i128 + 1, 100_000] {
            let e = jobs(bad).unwrap_err();
            assert!(
                e.starts_with(&format!("jobs must be from 0 (all cores) to {max}")),
                "{e}"
            );
            assert!(e.ends_with(&format!("got {bad}")), "{e}");
        }
        assert_eq!(runs(1), Ok(1));
        assert_eq!(
            runs(-1).unwrap_err(),
            "runs must be from 1 to 4294967295; got -1"
        );
        assert!(runs(0).is_err() && runs(1 << 32).is_err());
        assert_eq!(seed(u64::MAX as i128), Ok(u64::MAX));
        assert!(seed(-1).unwrap_err().contains("seed must be from 0 to"));
        let p = |n: usize| Param {
            path: "x".into(),
            values: vec!["1".into(); n],
        };
        assert_eq!(grid_runs(&[p(10), p(10)], 10_000, MAX_RUNS), Ok(MAX_RUNS));
        let e = grid_runs(&[p(10), p(10)], 10_001, MAX_RUNS).unwrap_err();
        assert!(e.contains("(10 x 10 values) times 10001 runs"), "{e}");
        assert!(grid_runs(&[], 10_000_000, MAX_RUNS).is_err());
        // A product beyond u64 is refused, not wrapped.
        assert!(grid_runs(&[p(1 << 16), p(1 << 16), p(2)], u32::MAX, u64::MAX).is_err());
    }
}
