//! Generated fabrics, ECMP and generated workloads (`topology.rs`, `net/ecmp.rs`): the
//! fat-tree's counts and wiring against Al-Fares et al. (SIGCOMM 2008, §3.2-3.3), ECMP path
//! diversity and per-flow stability, seeded determinism, the workloads' pairs, and located
//! errors.

use super::topology::{derangement, dumbbell, fat_tree, leaf_spine};
use super::*;
use crate::ids::{Addr, FlowId, NodeId};
use crate::net::{EcmpMode, Next};
use crate::packet::{Body, Packet};
use crate::world::{Agent, World};
use packetsim_kernel::Rng;
use std::collections::{BTreeSet, HashSet};

const ORIGIN: &str = "dc.toml";

/// A k-ary fat-tree with a permutation of 1 MB flows; `extra` is appended.
fn fat(k: u32, extra: &str) -> String {
    format!(
        r#"[simulation]
duration = "50ms"
seed = 3

[tcp]
variant = "dctcp"
ecn = true
ecn_echo = "per_segment"
rto_min = "10ms"

[topology]
kind = "fat_tree"
k = {k}
host_link = {{ rate = "10Gbps", delay = "1us", queue = {{ kind = "red", red = {{ step = 65, step_non_ect = "pass", ecn = "standard", limit = 1000 }} }} }}
fabric_link = {{ rate = "10Gbps", delay = "2us", queue = {{ kind = "red", red = {{ step = 65, step_non_ect = "pass", ecn = "standard", limit = 1000 }} }} }}

[workloads.perm]
kind = "permutation"
size = "1MB"
{extra}"#
    )
}

fn load(text: &str) -> Scenario {
    load_str(text, ORIGIN, &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn bad(text: &str) -> ScenarioError {
    match load_str(text, ORIGIN, &[]) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

fn node(w: &World, name: &str) -> NodeId {
    NodeId(
        w.net
            .nodes
            .iter()
            .position(|n| n.name == name)
            .unwrap_or_else(|| panic!("no node {name}")) as u32,
    )
}

fn neighbours(f: &topology::Fabric, name: &str) -> BTreeSet<String> {
    let i = f.nodes.iter().position(|n| n == name).unwrap();
    f.links
        .iter()
        .filter_map(|&(_, a, b, _)| {
            (a == i)
                .then_some(b)
                .or((b == i).then_some(a))
                .map(|j| f.nodes[j].clone())
        })
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

// Al-Fares §3.3: k pods of k/2 edge and k/2 aggregation switches, (k/2)² cores, k³/4 hosts.
#[test]
fn fat_tree_k4_has_the_papers_counts_and_wiring() {
    let f = fat_tree(4);
    assert_eq!((f.nodes.len(), f.hosts.len(), f.links.len()), (36, 16, 48));
    assert_eq!(&f.nodes[..4], ["h0_0_0", "h0_0_1", "h0_1_0", "h0_1_1"]);
    assert_eq!(f.nodes[16], "e0_0");
    assert_eq!(f.nodes[24], "a0_0");
    assert_eq!(f.nodes[32], "c0_0");
    assert_eq!(f.nodes[35], "c1_1");
    // Host 10.1.0.3 (h1_0_1) hangs off edge switch 10.1.0.1 (e1_0) only.
    assert_eq!(neighbours(&f, "h1_0_1"), set(&["e1_0"]));
    // An edge switch: its k/2 hosts and every aggregation switch of its pod.
    assert_eq!(
        neighbours(&f, "e1_0"),
        set(&["h1_0_0", "h1_0_1", "a1_0", "a1_1"])
    );
    // Aggregation switch a of pod p: the pod's edge switches and the k/2 cores of row a.
    assert_eq!(
        neighbours(&f, "a2_1"),
        set(&["e2_0", "e2_1", "c1_0", "c1_1"])
    );
    // A core switch: one port to each pod, on the aggregation switch of its row.
    assert_eq!(
        neighbours(&f, "c1_0"),
        set(&["a0_1", "a1_1", "a2_1", "a3_1"])
    );
    let names: HashSet<&String> = f.links.iter().map(|l| &l.0).collect();
    assert_eq!(names.len(), 48, "link names are unique");
    assert!(names.contains(&"h1_0_1-e1_0".to_string()));
    assert_eq!(f.links.iter().filter(|l| l.3).count(), 16, "host links");
}

#[test]
fn fat_tree_counts_for_every_even_k_and_leaf_spine() {
    for k in (4..=32).step_by(2) {
        let f = fat_tree(k);
        let (k, h) = (k as usize, (k / 2) as usize);
        assert_eq!(f.hosts.len(), k * k * k / 4, "k = {k}");
        assert_eq!(f.nodes.len(), k * k * k / 4 + k * k + h * h, "k = {k}");
        assert_eq!(f.links.len(), 3 * k * k * k / 4, "k = {k}");
        let degree = |i: usize| f.links.iter().filter(|l| l.1 == i || l.2 == i).count();
        // Every switch uses all k ports.
        assert!(
            (f.hosts.end..f.nodes.len()).all(|i| degree(i) == k),
            "k = {k}"
        );
    }
    let f = leaf_spine(3, 2, 4);
    assert_eq!((f.nodes.len(), f.hosts.len(), f.links.len()), (17, 12, 18));
    assert_eq!(
        neighbours(&f, "leaf1"),
        set(&["h1_0", "h1_1", "h1_2", "h1_3", "spine0", "spine1"])
    );
}

#[test]
fn the_loader_generates_nodes_and_links_from_the_templates() {
    let s = load(&fat(4, ""));
    assert_eq!((s.nodes.len(), s.links.len()), (36, 48));
    assert_eq!(
        s.ecmp,
        EcmpMode::Flow,
        "a [topology] defaults to per-flow ECMP"
    );
    let host = s.links.iter().find(|l| l.name == "h0_0_0-e0_0").unwrap();
    let fabric = s.links.iter().find(|l| l.name == "e0_0-a0_0").unwrap();
    assert_eq!((host.a.as_str(), host.b.as_str()), ("h0_0_0", "e0_0"));
    assert_eq!(host.delay, packetsim_kernel::Dur::from_micros(1));
    assert_eq!(fabric.delay, packetsim_kernel::Dur::from_micros(2));
    assert!(
        matches!(host.queue, QueueSpec::Aqm(crate::queue::AqmConfig::Red(_))),
        "{:?}",
        host.queue
    );
    // Without [topology], nothing changes: ECMP off.
    let plain = load("[simulation]\nduration = \"1s\"\n[nodes.a]\n[nodes.b]\n[links.l]\na = \"a\"\nb = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n");
    assert_eq!(plain.ecmp, EcmpMode::Off);
    assert!(plain.workloads.is_empty());
}

#[test]
fn the_workloads_pair_hosts_as_their_kind_says() {
    let s = load(&fat(4, ""));
    let w = &s.workloads[0];
    // One table for the workload's 16 flows (issue 36: 8 bytes a flow, not a table each).
    assert_eq!(
        (w.name.as_str(), w.tables.clone(), w.mss),
        ("perm", 0..1, 1460)
    );
    assert_eq!(s.flow_count(), 16);
    let flows: Vec<FlowSpec> = s.flows().collect();
    let pairs: Vec<(&str, &str)> = flows
        .iter()
        .map(|f| (f.from.as_str(), f.to.as_str()))
        .collect();
    // A permutation: every host sends once and receives once, never to itself.
    let from: HashSet<&str> = pairs.iter().map(|p| p.0).collect();
    let to: HashSet<&str> = pairs.iter().map(|p| p.1).collect();
    assert_eq!((from.len(), to.len()), (16, 16));
    assert!(pairs.iter().all(|(a, b)| a != b));
    let names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!((names[0], names[15]), ("perm_0", "perm_15"));
    // Seeded: another seed, another permutation; the same seed, the same one.
    let again = load(&fat(4, ""));
    assert_eq!(again.flow_tables, s.flow_tables);
    let other = load(&fat(4, "").replace("seed = 3", "seed = 4"));
    assert_ne!(other.flow_tables, s.flow_tables);

    let s = load(&fat(4, "[workloads.in]\nkind = \"incast\"\nsize = \"20KB\"\nreceiver = \"h3_1_1\"\nsenders = 5\nstart = \"1ms\"\n[workloads.all]\nkind = \"all_to_all\"\nsize = \"10KB\"\nhosts = [\"h0_0_0\", \"h1_0_0\", \"h2_0_0\"]\n"));
    let of = |w: usize| -> Vec<FlowSpec> {
        s.flow_tables[s.workloads[w].tables.clone()]
            .iter()
            .flat_map(FlowTable::copies)
            .collect()
    };
    let inc = of(1);
    assert_eq!(inc.len(), 5);
    assert!(inc.iter().all(|f| f.to == "h3_1_1" && f.from != "h3_1_1"));
    assert!(inc
        .iter()
        .all(|f| f.start == packetsim_kernel::Time::from_millis(1)));
    let senders: HashSet<&str> = inc.iter().map(|f| f.from.as_str()).collect();
    assert_eq!(senders.len(), 5, "distinct senders");
    let all = of(2);
    assert_eq!(all.len(), 6, "n(n-1) flows");
    assert_eq!(
        (all[0].from.as_str(), all[0].to.as_str()),
        ("h0_0_0", "h1_0_0")
    );

    let mut rng = Rng::from_seed(9);
    for n in 2..40 {
        let p = derangement(n, &mut rng);
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n).collect::<Vec<_>>());
        assert!(p.iter().enumerate().all(|(i, &x)| i != x));
    }
}

#[test]
fn bad_topologies_and_workloads_name_the_key() {
    let e = bad(&fat(4, "").replace("k = 4", "k = 5"));
    assert_eq!(e.key(), Some("topology.k"), "{e}");
    assert!(e.to_string().contains("even port count"), "{e}");
    assert_eq!(e.line(), Some(13), "{e}");
    let e = bad(&fat(4, "").replace("k = 4", "leaves = 4"));
    assert_eq!(e.key(), Some("topology.leaves"), "{e}");
    let e = bad(&fat(4, "").replace(
        "kind = \"fat_tree\"",
        "kind = \"leaf_spine\"\nleaves = 2\nspines = 2",
    ));
    assert_eq!(e.key(), Some("topology.k"), "{e}");
    let e = bad(&fat(4, "receiver = \"h0_0_0\"\n"));
    assert_eq!(e.key(), Some("workloads.perm.receiver"), "{e}");
    let e = bad(&fat(
        4,
        "[workloads.x]\nkind = \"incast\"\nsize = \"1KB\"\nsenders = 16\n",
    ));
    assert_eq!(e.key(), Some("workloads.x.senders"), "{e}");
    assert!(e.to_string().contains("1 to 15"), "{e}");
    let e = bad(&fat(
        4,
        "[workloads.x]\nkind = \"incast\"\nsize = \"1KB\"\nhosts = [\"h0_0_0\", \"nope\"]\n",
    ));
    assert_eq!(e.key(), Some("workloads.x.hosts[1]"), "{e}");
    let e = bad(&fat(4, "[nodes.e0_0]\n"));
    assert_eq!(e.key(), Some("nodes.e0_0"), "{e}");
    assert!(e.to_string().contains("also made by [topology]"), "{e}");
    let e = bad(&fat(4, "[nodes.x]\nroutes = [{ to = \"h0_0_0\", via = \"x-e0_0\" }]\n[links.x-e0_0]\na = \"x\"\nb = \"e0_0\"\nrate = \"1Gbps\"\ndelay = \"1us\"\n"));
    assert_eq!(e.key(), Some("routing"), "{e}");
    assert!(e.to_string().contains("static routes"), "{e}");
    let e = bad(&fat(4, "").replace(
        "[workloads.perm]",
        "[routing]\necmp = \"sometimes\"\n[workloads.perm]",
    ));
    assert_eq!(e.key(), Some("routing.ecmp"), "{e}");
    let e = bad(&fat(4, "").replace(
        "rate = \"10Gbps\", delay = \"1us\"",
        "rate = \"0bps\", delay = \"1us\"",
    ));
    assert_eq!(e.key(), Some("topology.host_link.rate"), "{e}");
}

/// A data packet of `flow` from `src` to `dst`.
fn pkt(src: Addr, dst: Addr, flow: u32) -> Packet {
    let mut p = Packet::new(
        src,
        dst,
        Body::Udp {
            seq: 0,
            payload: 100,
        },
    );
    p.flow = FlowId(flow);
    p
}

fn world(text: &str) -> World {
    let s = load(text);
    build(&s, s.simulation.seed).unwrap_or_else(|e| panic!("{e}"))
}

/// The nodes packet `p` visits from `from`, choosing at each ECMP group as the net does.
fn walk(w: &mut World, from: NodeId, p: &Packet) -> Vec<String> {
    let mut at = from;
    let mut path = vec![w.net.nodes[at.idx()].name.clone()];
    for _ in 0..10 {
        let e = match w.net.next_hop(packetsim_kernel::Time::ZERO, at, p.dst) {
            Next::Deliver => return path,
            Next::Egress(e) => e,
            Next::Spread(g) => w.net.spread(at, g, p),
            n => panic!("{n:?}"),
        };
        at = w.net.egresses[e.idx()].to;
        path.push(w.net.nodes[at.idx()].name.clone());
    }
    panic!("no delivery: {path:?}")
}

// Al-Fares §2.2/§3: between pods there are (k/2)² shortest paths, one per core switch.
#[test]
fn ecmp_groups_hold_every_least_cost_next_hop() {
    let w = world(&fat(4, ""));
    let ecmp = w.net.ecmp.as_deref().expect("ECMP is on");
    let addr = |n: &str| w.net.addr_of(node(&w, n));
    let names = |g: Option<u32>| -> BTreeSet<String> {
        g.map(|g| {
            ecmp.egresses(g)
                .iter()
                .map(|e| w.net.egresses[e.idx()].name.clone())
                .collect()
        })
        .unwrap_or_default()
    };
    // Up from an edge switch to another pod: both aggregation switches.
    assert_eq!(
        names(ecmp.group(node(&w, "e0_0"), addr("h3_1_1"))),
        set(&["e0_0-a0_0:e0_0->a0_0", "e0_0-a0_1:e0_0->a0_1"])
    );
    // Up from an aggregation switch to another pod: both cores of its row.
    assert_eq!(
        names(ecmp.group(node(&w, "a0_1"), addr("h3_1_1"))),
        set(&["a0_1-c1_0:a0_1->c1_0", "a0_1-c1_1:a0_1->c1_1"])
    );
    // Within the pod, to another edge switch: both aggregation switches.
    assert_eq!(names(ecmp.group(node(&w, "e0_0"), addr("h0_1_0"))).len(), 2);
    // Down: one path only, no group (the single route is used).
    for (at, to) in [
        ("c0_0", "h3_1_1"),
        ("a3_1", "h3_1_1"),
        ("e3_1", "h3_1_1"),
        ("e0_0", "h0_0_1"),
    ] {
        assert_eq!(ecmp.group(node(&w, at), addr(to)), None, "{at} -> {to}");
    }
    // Hosts have one link: no table, still on the fast path.
    assert!(!ecmp.has_groups(node(&w, "h0_0_0")));
    assert!(w.net.nodes[node(&w, "h0_0_0").idx()].is_plain());
    assert!(!w.net.nodes[node(&w, "e0_0").idx()].is_plain());
    // Toward a switch there are groups too: from a0_0 to a1_1 (another pod, the other row)
    // the paths down through e0_x, a0_1, c1_x and up through c0_x, a1_0, e1_x both take
    // four hops, so all four of a0_0's ports are equal.
    assert_eq!(
        ecmp.group(node(&w, "a0_0"), addr("a1_1"))
            .map(|g| ecmp.egresses(g).len()),
        Some(4)
    );
    // Distinct groups: each edge switch's pair of up-links (8), each aggregation switch's
    // pair of core links (8), pair of down-links (toward the other aggregation switch of its
    // pod, 8) and all four ports (above, 8), each core switch's four down-links (toward
    // another core, 4).
    assert_eq!(ecmp.n_groups(), 8 + 8 + 8 + 8 + 4);
}

#[test]
fn per_flow_hashing_spreads_flows_and_keeps_each_on_one_path() {
    let mut w = world(&fat(4, ""));
    let (s, d) = (node(&w, "h0_0_0"), node(&w, "h3_1_1"));
    let (sa, da) = (w.net.addr_of(s), w.net.addr_of(d));
    let mut cores = BTreeSet::new();
    for flow in 0..64 {
        let p = pkt(sa, da, flow);
        let path = walk(&mut w, s, &p);
        assert_eq!(path.len(), 7, "h - e - a - c - a - e - h: {path:?}");
        // The same flow takes the same path every time (no reordering by ECMP).
        for _ in 0..20 {
            assert_eq!(walk(&mut w, s, &p), path);
        }
        cores.insert(path[3].clone());
    }
    assert_eq!(
        cores,
        set(&["c0_0", "c0_1", "c1_0", "c1_1"]),
        "all (k/2)² paths used"
    );

    // Packet spraying: one flow's packets take every path, reproducibly from the seed.
    let spray = fat(4, "").replace(
        "[workloads.perm]",
        "[routing]\necmp = \"packet\"\n[workloads.perm]",
    );
    let mut w = world(&spray);
    let p = pkt(sa, da, 0);
    let paths: Vec<Vec<String>> = (0..64).map(|_| walk(&mut w, s, &p)).collect();
    let cores: BTreeSet<&String> = paths.iter().map(|p| &p[3]).collect();
    assert_eq!(cores.len(), 4);
    let mut again = world(&spray);
    let paths2: Vec<Vec<String>> = (0..64).map(|_| walk(&mut again, s, &p)).collect();
    assert_eq!(paths, paths2, "same seed, same spraying");
}

#[test]
fn the_hash_depends_on_the_seed() {
    let paths = |seed: u32| {
        let mut w = world(&fat(4, "").replace("seed = 3", &format!("seed = {seed}")));
        let (s, d) = (node(&w, "h0_0_0"), node(&w, "h3_1_1"));
        let (sa, da) = (w.net.addr_of(s), w.net.addr_of(d));
        (0..32)
            .map(|f| walk(&mut w, s, &pkt(sa, da, f))[3].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(paths(5), paths(5));
    assert_ne!(paths(5), paths(6));
}

fn out_of_order(w: &World) -> u64 {
    w.agents
        .iter()
        .filter_map(|a| match &a.agent {
            Agent::TcpReceiver(r) => Some(r.stats().out_of_order_segments),
            _ => None,
        })
        .sum()
}

// RFC 2992 §2: hashing keeps a flow on one path, so without loss a receiver never sees a
// segment above a hole; spraying over unequal queues does reorder.
#[test]
fn a_hashed_flow_is_never_reordered_and_runs_repeat() {
    let run = |text: &str| {
        let mut w = world(text);
        w.run();
        w
    };
    let w = run(&fat(4, ""));
    assert_eq!(
        w.books.dropped.iter().sum::<u64>(),
        0,
        "no loss in this setting"
    );
    assert!(
        w.flows.iter().all(|f| f.completed_at.is_some()),
        "all 16 flows complete"
    );
    assert_eq!(out_of_order(&w), 0);
    let fct = |w: &World| w.flows.iter().map(|f| f.completed_at).collect::<Vec<_>>();
    assert_eq!(fct(&run(&fat(4, ""))), fct(&w), "same seed, same run");
    assert_eq!(w.workloads.len(), 1);
    assert_eq!(w.workloads[0].flows, 0..16);

    let sprayed = run(&fat(4, "").replace(
        "[workloads.perm]",
        "[routing]\necmp = \"packet\"\n[workloads.perm]",
    ));
    assert!(out_of_order(&sprayed) > 0, "spraying reorders");
}

#[test]
fn a_leaf_spine_spreads_over_every_spine_and_runs_an_incast() {
    let text = r#"[simulation]
duration = "20ms"
seed = 2

[topology]
kind = "leaf_spine"
leaves = 2
spines = 3
hosts_per_leaf = 3
host_link = { rate = "1Gbps", delay = "5us", queue = { kind = "droptail", limit = 1000 } }
fabric_link = { rate = "4Gbps", delay = "5us" }

[workloads.inc]
kind = "incast"
size = "30KB"
receiver = "h1_2"
"#;
    let s = load(text);
    assert_eq!((s.nodes.len(), s.links.len()), (11, 12));
    assert_eq!(s.flow_count(), 5, "every other host sends");
    assert!(s.flows().all(|f| f.to == "h1_2"));
    let mut w = world(text);
    let ecmp = w.net.ecmp.as_deref().unwrap();
    let (leaf, h) = (node(&w, "leaf0"), node(&w, "h1_2"));
    let g = ecmp
        .group(leaf, w.net.addr_of(h))
        .expect("three equal paths");
    assert_eq!(ecmp.egresses(g).len(), 3);
    let (s0, sa, da) = (
        node(&w, "h0_0"),
        w.net.addr_of(node(&w, "h0_0")),
        w.net.addr_of(h),
    );
    let spines: BTreeSet<String> = (0..48)
        .map(|f| walk(&mut w, s0, &pkt(sa, da, f))[2].clone())
        .collect();
    assert_eq!(spines, set(&["spine0", "spine1", "spine2"]));
    w.run();
    assert!(
        w.flows.iter().all(|f| f.completed_at.is_some()),
        "the incast completes"
    );
    assert_eq!(w.workloads[0].flows, 0..5);
}

/// A dumbbell with `pairs` pairs and a `pairs` workload; `extra` is appended.
fn bell(pairs: u32, workload: &str) -> String {
    format!(
        r#"[simulation]
duration = "2s"

[topology]
kind = "dumbbell"
pairs = {pairs}
host_link = {{ rate = "1Gbps", delay = "1ms" }}
fabric_link = {{ rate = "100Mbps", delay = "10ms" }}

[routing]
ecmp = "off"

[workloads.f]
{workload}
"#
    )
}

// Issue 36 item 2: the dumbbell of `packetsim bench` generated, in the written-out file's
// node and link order (bench.rs `dumbbell_toml`: r0, r1, then s_i, d_i; the bottleneck, then
// s_i-r0 and r1-d_i).
#[test]
fn a_dumbbell_is_made_in_the_written_out_order() {
    let f = dumbbell(3);
    assert_eq!(
        f.nodes,
        ["r0", "r1", "s0", "d0", "s1", "d1", "s2", "d2"].map(String::from)
    );
    assert_eq!(f.hosts, 2..8);
    let links: Vec<(&str, usize, usize, bool)> = f
        .links
        .iter()
        .map(|(n, a, b, h)| (n.as_str(), *a, *b, *h))
        .collect();
    assert_eq!(
        links,
        [
            ("r0-r1", 0, 1, false),
            ("s0-r0", 2, 0, true),
            ("r1-d0", 1, 3, true),
            ("s1-r0", 4, 0, true),
            ("r1-d1", 1, 5, true),
            ("s2-r0", 6, 0, true),
            ("r1-d2", 1, 7, true),
        ]
    );
    // The loaded links take their template: the bottleneck fabric_link's, the rest host_link's.
    let s = load(&bell(3, "kind = \"pairs\"\napp = \"bulk\""));
    assert_eq!(s.nodes, f.nodes);
    assert_eq!(s.links.len(), 7);
    assert_eq!(
        (s.links[0].rate.0, s.links[1].rate.0),
        (100_000_000, 1_000_000_000)
    );
    assert_eq!(
        (s.links[0].delay, s.links[2].delay),
        (Dur::from_millis(10), Dur::from_millis(1))
    );
}

// A `pairs` workload: s_i sends to d_i, flow i starts i x stagger after the first; bulk flows
// have no completion times (no GeneratedWorkload). 100,000 flows are one table of 8-byte ends.
#[test]
fn a_pairs_workload_is_one_table_of_staggered_flows() {
    let s = load(&bell(
        100_000,
        "kind = \"pairs\"\napp = \"bulk\"\nstart = \"1ms\"\nstagger = \"10us\"",
    ));
    assert_eq!(s.flow_tables.len(), 1);
    assert_eq!(s.flow_count(), 100_000);
    assert!(
        s.workloads.is_empty(),
        "bulk flows have no completion times"
    );
    let t = &s.flow_tables[0];
    assert_eq!(t.ends.as_ref().map(|e| e.pairs.len()), Some(100_000));
    let last = t.copy(99_999);
    assert_eq!(
        (last.name.as_str(), last.from.as_str(), last.to.as_str()),
        ("f_99999", "s99999", "d99999")
    );
    assert_eq!(
        last.start,
        packetsim_kernel::Time::from_millis(1) + Dur::from_micros(10) * 99_999
    );
    assert!(matches!(last.kind, FlowKind::Tcp { app: App::Bulk, .. }));
    assert_eq!(s.find_flow("f_99999").map(|(i, _)| i), Some(99_999));
    assert!(s.find_flow("f_100000").is_none());
    // One pair: still named f_0 (a workload's flows are always numbered).
    let s = load(&bell(1, "kind = \"pairs\"\nsize = \"10KB\""));
    let f: Vec<FlowSpec> = s.flows().collect();
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].name.as_str(), f[0].from.as_str()), ("f_0", "s0"));
    assert!(matches!(
        f[0].kind,
        FlowKind::Tcp {
            app: App::File { bytes: 10_000 },
            ..
        }
    ));
    assert_eq!(
        s.workloads.len(),
        1,
        "finite transfers are recorded for FCTs"
    );
    // It runs: the flow completes.
    let out = run(&s, 1).unwrap();
    assert!(out.world.flows[0].completed_at.is_some());
}

#[test]
fn bad_dumbbells_and_pairs_name_the_key() {
    let e = bad(&bell(0, "kind = \"pairs\"\napp = \"bulk\""));
    assert_eq!(e.key(), Some("topology.pairs"), "{e}");
    let e = bad(&bell(1_000_001, "kind = \"pairs\"\napp = \"bulk\""));
    assert_eq!(e.key(), Some("topology.pairs"), "{e}");
    assert!(e.to_string().contains("at most 1000000 pairs"), "{e}");
    let e = bad(&bell(2, "kind = \"pairs\"\napp = \"bulk\"").replace("pairs = 2", "k = 4"));
    assert_eq!(e.key(), Some("topology.k"), "{e}");
    let e = bad(&bell(2, "kind = \"pairs\"\napp = \"bulk\"\nsize = \"1MB\""));
    assert_eq!(e.key(), Some("workloads.f.size"), "{e}");
    assert!(e.to_string().contains("app = \"bulk\""), "{e}");
    let e = bad(&bell(2, "kind = \"pairs\""));
    assert_eq!(e.key(), Some("workloads.f.size"), "{e}");
    assert!(e.to_string().contains("missing required key `size`"), "{e}");
    assert_eq!(e.line(), Some(13), "{e}");
    let e = bad(&bell(
        2,
        "kind = \"pairs\"\napp = \"bulk\"\nhosts = [\"s0\", \"d0\", \"s1\"]",
    ));
    assert_eq!(e.key(), Some("workloads.f.hosts"), "{e}");
    assert!(e.to_string().contains("odd number, 3"), "{e}");
    // The last flow must start before the end (2 s): 3 flows, 1 s apart, is too late.
    let e = bad(&bell(
        3,
        "kind = \"pairs\"\napp = \"bulk\"\nstagger = \"1s\"",
    ));
    assert_eq!(e.key(), Some("workloads.f.stagger"), "{e}");
    bad(&bell(
        2,
        "kind = \"pairs\"\napp = \"bulk\"\nstagger = \"1s\"\nstart = \"1s\"",
    ));
    load(&bell(
        2,
        "kind = \"pairs\"\napp = \"bulk\"\nstagger = \"999ms\"\nstart = \"1ms\"",
    ));
    // Names: a file table of copies with the workload's name, or a flow named as one of
    // its copies, clashes; one named like a copy that does not exist does not.
    let flows = |t: &str| format!("[flows.{t}]\nfrom = \"s0\"\nto = \"d1\"\n");
    let e = bad(&format!(
        "{}{}count = 2\n",
        bell(3, "kind = \"pairs\"\napp = \"bulk\""),
        flows("f")
    ));
    assert_eq!(e.key(), Some("workloads.f"), "{e}");
    assert!(
        e.to_string().contains("flow name `f_0` is used twice"),
        "{e}"
    );
    let e = bad(&format!(
        "{}{}",
        bell(3, "kind = \"pairs\"\napp = \"bulk\""),
        flows("f_2")
    ));
    assert!(
        e.to_string().contains("flow name `f_2` is used twice"),
        "{e}"
    );
    let s = load(&format!(
        "{}{}",
        bell(3, "kind = \"pairs\"\napp = \"bulk\""),
        flows("f_3")
    ));
    assert_eq!(s.flow_count(), 4);
    let s = load(&format!(
        "{}{}",
        bell(3, "kind = \"pairs\"\napp = \"bulk\""),
        flows("f")
    ));
    assert_eq!(
        s.flow_count(),
        4,
        "a one-copy table `f` is no copy of the workload"
    );
}
