//! Issue 16, the fuzz harness: seeded mutants of every scenario in `scenarios/` through the
//! loader, the budget check and the builder (and a few through a whole run). Bad input must
//! give an error naming file, line and key, never a panic. The mutations are in
//! [`super::mutate`].
//!
//! Case counts: `PACKETSIM_FUZZ_CASES` mutants loaded and built (default 3000, under a second),
//! of which at most `PACKETSIM_FUZZ_RUNS` that load are also run (default 10), and
//! `PACKETSIM_FUZZ_SEED` (default 1). bench/fuzz.sh runs the long campaign through the
//! command line (packetsim-cli/tests/issue38.rs).

use super::mutate::{env, mutant_home, mutate, out_of_range, seeds, Mix};
use packetsim::scenario::{self, ScenarioError};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Every mutant is accepted or refused with file, line and key; none panics. Counts are
/// printed (run with `--nocapture`).
#[test]
fn mutated_scenarios_are_refused_with_a_location_never_a_panic() {
    let cases = env("PACKETSIM_FUZZ_CASES", 3000);
    let max_runs = env("PACKETSIM_FUZZ_RUNS", 10);
    let mut rng = Mix(env("PACKETSIM_FUZZ_SEED", 1));
    let dir = super::scenarios_dir();
    let seeds = seeds(&dir);
    let home = mutant_home(
        &dir,
        std::env::temp_dir().join(format!("packetsim-fuzz-{}", std::process::id())),
    );
    let (mut accepted, mut refused, mut runs) = (0u64, 0u64, 0u64);
    let mut unlocated = Vec::new();
    for case in 0..cases {
        let (name, text) = &seeds[rng.below(seeds.len())];
        let bytes = mutate(text, &mut rng);
        let origin = format!("mutant-{case}-{name}");
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<bool, String> {
            // The CLI's reading: bytes as load_file sees them.
            let path = home.join(&origin);
            std::fs::write(&path, &bytes).unwrap();
            let loaded = scenario::load_file(&path, &[]);
            let _ = std::fs::remove_file(&path);
            let sc = match loaded {
                Ok(sc) => sc,
                Err(e @ (ScenarioError::Syntax { .. } | ScenarioError::Invalid { .. })) => {
                    return match (e.line(), e.key()) {
                        (Some(_), Some(k)) if !k.is_empty() => Ok(false),
                        _ => Err(e.to_string()),
                    };
                }
                Err(e) => return Err(e.to_string()),
            };
            if let Err(e) = scenario::check_flows(&sc) {
                return e.at.is_some().then_some(false).ok_or(e.to_string());
            }
            if let Some(what) = out_of_range(&sc) {
                return Err(format!("accepted out of range: {what}"));
            }
            if let Err(e) = scenario::check_budget(&sc, 2 << 30) {
                return e.at.is_some().then_some(false).ok_or(e.to_string());
            }
            if let Err(e) = scenario::build(&sc, 1) {
                return e.at.is_some().then_some(false).ok_or(e.to_string());
            }
            if runs < max_runs && sc.simulation.duration.as_secs_f64() <= 60.0 {
                runs += 1;
                scenario::run(&sc, 1).map_err(|e| e.to_string())?;
            }
            Ok(true)
        }));
        match outcome {
            Ok(Ok(true)) => accepted += 1,
            Ok(Ok(false)) => refused += 1,
            Ok(Err(msg)) => unlocated.push(format!("{origin}: {msg}")),
            Err(_) => panic!(
                "mutant {case} of {name} panicked (PACKETSIM_FUZZ_SEED={}): {:?}",
                env("PACKETSIM_FUZZ_SEED", 1),
                String::from_utf8_lossy(&bytes)
            ),
        }
    }
    let _ = std::fs::remove_dir_all(&home);
    println!(
        "fuzz: {cases} mutants, {accepted} accepted ({runs} run), {refused} refused with a \
         line and key, {} without",
        unlocated.len()
    );
    assert!(
        unlocated.is_empty(),
        "refused without line and key:\n{}",
        unlocated.join("\n")
    );
}
