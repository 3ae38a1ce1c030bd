//! Same scenario and seed, same bytes out.

use super::{load, scenarios_dir};
use packetsim::scenario;

fn summary_without_wall_time(seed: u64) -> String {
    let text = std::fs::read_to_string(scenarios_dir().join("dumbbell.toml")).unwrap();
    let sc = load(
        &text,
        &["simulation.duration=\"5s\"", "links.bottleneck.loss=0.001"],
    );
    let mut s = scenario::run(&sc, seed).unwrap().summary;
    s.wall_time_s = 0.0;
    s.to_json()
}

#[test]
fn same_seed_gives_byte_identical_summary() {
    assert_eq!(summary_without_wall_time(7), summary_without_wall_time(7));
}

#[test]
fn different_seeds_give_different_runs() {
    assert_ne!(summary_without_wall_time(7), summary_without_wall_time(8));
}
