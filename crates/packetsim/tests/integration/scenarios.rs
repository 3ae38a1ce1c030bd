//! Every scenario shipped in scenarios/ (and scenarios/workloads/) loads and assembles.

use super::scenarios_dir;
use packetsim::scenario;

#[test]
fn every_shipped_scenario_builds() {
    let mut n = 0;
    let dirs = [scenarios_dir(), scenarios_dir().join("workloads")];
    for entry in dirs.iter().flat_map(|d| std::fs::read_dir(d).unwrap()) {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let sc = scenario::load_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
            scenario::build(&sc, 1).unwrap_or_else(|e| panic!("{e}"));
            n += 1;
        }
    }
    assert!(n >= 2, "found {n} scenarios");
}
