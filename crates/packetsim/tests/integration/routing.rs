//! Routing through the whole simulator (DESIGN.md "Network": a static least-cost table, link
//! `cost` default 1, static routes in the scenario win): which links a flow's packets cross.

use super::load;
use packetsim::scenario;
use packetsim::world::World;

/// s to d directly over a slow link (1 Mb/s, 100 ms), or through r over two fast hops
/// (100 Mb/s, 1 ms each); a CBR flow from s to d and a TCP flow from d to s.
const TRIANGLE: &str = r#"
[simulation]
duration = "2s"

[nodes.s]
[nodes.r]
[nodes.d]

[links.slow]
a = "s"
b = "d"
rate = "1Mbps"
delay = "100ms"

[links.fast1]
a = "s"
b = "r"
rate = "100Mbps"
delay = "1ms"

[links.fast2]
a = "r"
b = "d"
rate = "100Mbps"
delay = "1ms"

[flows.cbr]
from = "s"
to = "d"
kind = "cbr"
rate = "400kbps"

[flows.tcp]
from = "d"
to = "s"
app = "file"
size = "20kB"
"#;

/// Runs the triangle with `sets` and returns the world after the run.
fn run(sets: &[&str]) -> World {
    let sc = load(TRIANGLE, sets);
    let mut world = scenario::build(&sc, 1).unwrap_or_else(|e| panic!("{e}"));
    world.run();
    world.check_conservation().unwrap();
    world
}

/// Packets transmitted over link `name` from its `a` end (`forward`) or its `b` end.
fn sent(world: &World, name: &str, forward: bool) -> u64 {
    let link = world
        .net
        .links
        .iter()
        .find(|l| l.name == name)
        .expect("a link of the triangle");
    let e = if forward { link.ab } else { link.ba };
    world.net.egresses[e.idx()].stats.transmitted
}

#[test]
fn routing_hop_count_by_default_sends_everything_over_the_slow_direct_link() {
    let w = run(&[]);
    assert!(sent(&w, "slow", true) > 50, "CBR data and TCP ACKs s -> d");
    assert!(sent(&w, "slow", false) > 10, "TCP data d -> s");
    for l in ["fast1", "fast2"] {
        assert_eq!(
            (sent(&w, l, true), sent(&w, l, false)),
            (0, 0),
            "{l} unused"
        );
    }
}

#[test]
fn routing_least_cost_takes_the_two_fast_hops_when_the_slow_link_costs_10() {
    let w = run(&["links.slow.cost=10"]);
    assert_eq!((sent(&w, "slow", true), sent(&w, "slow", false)), (0, 0));
    let cbr_and_acks = sent(&w, "fast1", true);
    assert!(cbr_and_acks > 50, "{cbr_and_acks}");
    assert_eq!(
        sent(&w, "fast2", true),
        cbr_and_acks,
        "the same packets, next hop"
    );
    assert!(sent(&w, "fast2", false) > 10, "TCP data d -> r -> s");
    assert_eq!(sent(&w, "fast1", false), sent(&w, "fast2", false));
    // Cost 2 ties with the two hops. The search from d offers s cost 2 over the direct link
    // before r (settled next, at cost 1) offers it cost 2, so the direct link wins the tie
    // (docs/scenario-format.md "Routing").
    let w = run(&["links.slow.cost=2"]);
    assert_eq!(sent(&w, "fast1", true), 0);
    assert!(sent(&w, "slow", true) > 50);
}

#[test]
fn routing_cost_ba_routes_each_direction_by_its_own_cost() {
    // s -> d costs 10 over the direct link, d -> s costs 1: CBR data and TCP ACKs take the
    // fast hops, TCP data comes back directly.
    let w = run(&["links.slow.cost=10", "links.slow.cost_ba=1"]);
    assert_eq!(sent(&w, "slow", true), 0);
    assert!(sent(&w, "fast1", true) > 50);
    assert!(sent(&w, "slow", false) > 10, "TCP data d -> s");
    assert_eq!((sent(&w, "fast1", false), sent(&w, "fast2", false)), (0, 0));
}

#[test]
fn routing_static_route_wins_at_its_node_only() {
    // s is told to reach d over the slow link; d still returns to s by least cost.
    let w = run(&[
        "links.slow.cost=10",
        "nodes.s.routes=[{ to = \"d\", via = \"slow\" }]",
    ]);
    assert!(sent(&w, "slow", true) > 50, "s -> d over slow");
    assert_eq!(sent(&w, "fast1", true), 0);
    assert_eq!(sent(&w, "slow", false), 0, "d -> s keeps the fast hops");
    assert!(sent(&w, "fast2", false) > 10);
    // At r, a static route for d over fast1 would send d's packets back to s: a loop.
    let sc = load(
        TRIANGLE,
        &[
            "links.slow.cost=10",
            "nodes.r.routes=[{ to = \"d\", via = \"fast1\" }]",
        ],
    );
    let e = scenario::build(&sc, 1).err().expect("a loop");
    assert_eq!(
        e.to_string(),
        "test.toml: --set nodes.r.routes=[{ to = \"d\", via = \"fast1\" }]: nodes.r.routes[0]: \
         this static route makes packets to `d` loop: r -> s -> r \
         (a static route applies at its own node only; every other node keeps its least-cost \
         route)"
    );
}
