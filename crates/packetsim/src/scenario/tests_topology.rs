//! Generated fabrics, ECMP and generated workloads (`topology.rs`, `net/ecmp.rs`): the
//! fat-tree's counts and wiring against Al-Fares et al. (SIGCOMM 2008, §3.2-3.3), ECMP path
//! diversity and per-flow stability, seeded determinism, the workloads' pairs, and located
//! errors.

use super::topology::{derangement, fat_tree, leaf_spine};
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
    assert_eq!((f.nodes.len(), f.hosts, f.links.len()), (36, 16, 48));
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
        assert_eq!(f.hosts, k * k * k / 4, "k = {k}");
        assert_eq!(f.nodes.len(), k * k * k / 4 + k * k + h * h, "k = {k}");
        assert_eq!(f.links.len(), 3 * k * k * k / 4, "k = {k}");
        let degree = |i: usize| f.links.iter().filter(|l| l.1 == i || l.2 == i).count();
        // Every switch uses all k ports.
        assert!((f.hosts..f.nodes.len()).all(|i| degree(i) == k), "k = {k}");
    }
    let f = leaf_spine(3, 2, 4);
    assert_eq!((f.nodes.len(), f.hosts, f.links.len()), (17, 12, 18));
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
        matches!(host.queue, QueueSpec::Red { .. }),
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
    assert_eq!(
        (w.name.as_str(), w.tables.clone(), w.mss),
        ("perm", 0..16, 1460)
    );
    let pairs: Vec<(&str, &str)> = s.flow_tables[w.tables.clone()]
        .iter()
        .map(|t| (t.first.from.as_str(), t.first.to.as_str()))
        .collect();
    // A permutation: every host sends once and receives once, never to itself.
    let from: HashSet<&str> = pairs.iter().map(|p| p.0).collect();
    let to: HashSet<&str> = pairs.iter().map(|p| p.1).collect();
    assert_eq!((from.len(), to.len()), (16, 16));
    assert!(pairs.iter().all(|(a, b)| a != b));
    assert_eq!(s.flow_tables[0].table, "perm_0");
    // Seeded: another seed, another permutation; the same seed, the same one.
    let again = load(&fat(4, ""));
    assert_eq!(again.flow_tables, s.flow_tables);
    let other = load(&fat(4, "").replace("seed = 3", "seed = 4"));
    assert_ne!(other.flow_tables, s.flow_tables);

    let s = load(&fat(4, "[workloads.in]\nkind = \"incast\"\nsize = \"20KB\"\nreceiver = \"h3_1_1\"\nsenders = 5\nstart = \"1ms\"\n[workloads.all]\nkind = \"all_to_all\"\nsize = \"10KB\"\nhosts = [\"h0_0_0\", \"h1_0_0\", \"h2_0_0\"]\n"));
    let inc = &s.flow_tables[s.workloads[1].tables.clone()];
    assert_eq!(inc.len(), 5);
    assert!(inc
        .iter()
        .all(|t| t.first.to == "h3_1_1" && t.first.from != "h3_1_1"));
    assert!(inc
        .iter()
        .all(|t| t.first.start == packetsim_kernel::Time::from_millis(1)));
    let senders: HashSet<&str> = inc.iter().map(|t| t.first.from.as_str()).collect();
    assert_eq!(senders.len(), 5, "distinct senders");
    let all = &s.flow_tables[s.workloads[2].tables.clone()];
    assert_eq!(all.len(), 6, "n(n-1) flows");
    assert_eq!(
        (all[0].first.from.as_str(), all[0].first.to.as_str()),
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
    assert_eq!(s.flow_tables.len(), 5, "every other host sends");
    assert!(s.flow_tables.iter().all(|t| t.first.to == "h1_2"));
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
