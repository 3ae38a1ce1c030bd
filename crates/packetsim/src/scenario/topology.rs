//! Generated data-centre fabrics and workloads: `[topology]` (a k-ary fat-tree or a
//! leaf-spine), `[routing]` (ECMP) and `[workloads.NAME]` (permutation, incast, all-to-all).
//!
//! A few lines of TOML stand for the whole fabric: the loader makes its nodes and links after
//! the file's own (so the file can add to it) and its workloads' flows after the file's flows.
//! Nothing is written out; errors name the `[topology]` or `[workloads.NAME]` key they come
//! from.
//!
//! **Fat-tree** (`kind = "fat_tree"`, Al-Fares, Loukissas and Vahdat, SIGCOMM 2008, §3): `k`
//! pods, each with k/2 edge and k/2 aggregation switches; (k/2)² core switches; k/2 hosts on
//! each edge switch, k³/4 hosts in all. Every edge switch links to every aggregation switch of
//! its pod; aggregation switch `a` of every pod links to the k/2 core switches of row `a`.
//! Names follow the paper's addresses (10.pod.switch.id): host `h{p}_{e}_{i}` is 10.p.e.(i+2)
//! on edge switch `e{p}_{e}` (10.p.e.1); aggregation switch `a{p}_{a}` is 10.p.(a+k/2).1;
//! core switch `c{a}_{i}` is 10.k.(a+1).(i+1). Node order: hosts, edge, aggregation, core
//! switches; links: host-edge, edge-aggregation, aggregation-core, each named `x-y`.
//!
//! **Leaf-spine** (`kind = "leaf_spine"`): `leaves` leaf switches `leaf{l}`, `spines` spine
//! switches `spine{s}`, every leaf linked to every spine, `hosts_per_leaf` hosts `h{l}_{i}` on
//! each leaf.
//!
//! **Dumbbell** (`kind = "dumbbell"`): routers `r0` and `r1` joined by the bottleneck `r0-r1`,
//! and `pairs` senders `s{i}` on `r0` with their receivers `d{i}` on `r1` (links `s{i}-r0`
//! and `r1-d{i}`). Node order `r0, r1, s0, d0, s1, d1, ..`, links the bottleneck then
//! `s{i}-r0, r1-d{i}` pair by pair: the order of `packetsim bench`'s written-out dumbbell,
//! so that both build the same world. Its hosts are `s0, d0, s1, d1, ..`: a `pairs`
//! workload over them runs `s{i}` to `d{i}`.
//!
//! Host links take `host_link`'s rate, delay and queue; switch-to-switch links (a dumbbell's
//! bottleneck) `fabric_link`'s (default: `host_link`'s).
//!
//! A workload is one flow table whose copies carry their own endpoints ([`FlowEnds`]: 8
//! bytes a flow), so that a million generated flows are not a million tables (issue 36).

use super::error::ScenarioError;
use super::load::{Ctx, Defaults};
use super::locate::KeyPath;
use super::schema::{KindKeys, RawLink, RawQueue};
use super::{App, FlowKind, FlowSpec, FlowTable, LinkSpec};
use crate::net::EcmpMode;
use crate::units;
use packetsim_kernel::{Dur, Rate, Rng, Time};
use serde::Deserialize;
use std::collections::HashSet;

type Result<T> = std::result::Result<T, ScenarioError>;

/// Most hosts a generated fat-tree or leaf-spine may have (a dumbbell: two per flow, up to
/// `MAX_FLOW_COUNT` pairs).
pub const MAX_HOSTS: u64 = 1 << 20;

/// `[routing]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRouting {
    /// `ecmp = "off" | "flow" | "packet"`; default `flow` with a `[topology]`, else `off`.
    #[serde(default)]
    pub ecmp: Option<EcmpMode>,
}

/// `kind` of `[topology]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TopologyKind {
    FatTree,
    LeafSpine,
    Dumbbell,
}

/// `[topology]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTopology {
    pub kind: TopologyKind,
    /// Fat-tree: the switches' port count (even).
    #[serde(default)]
    pub k: Option<u32>,
    /// Leaf-spine: leaf switches.
    #[serde(default)]
    pub leaves: Option<u32>,
    /// Leaf-spine: spine switches.
    #[serde(default)]
    pub spines: Option<u32>,
    /// Leaf-spine: hosts on each leaf.
    #[serde(default)]
    pub hosts_per_leaf: Option<u32>,
    /// Dumbbell: sender-receiver pairs.
    #[serde(default)]
    pub pairs: Option<u32>,
    /// Links between a host and its switch.
    pub host_link: RawLinkTemplate,
    /// Links between switches (default: `host_link`).
    #[serde(default)]
    pub fabric_link: Option<RawLinkTemplate>,
}

/// `host_link = { rate, delay, queue }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLinkTemplate {
    #[serde(with = "units::rate")]
    pub rate: Rate,
    #[serde(with = "units::dur")]
    pub delay: Dur,
    #[serde(default)]
    pub queue: Option<RawQueue>,
}

/// `kind` of `[workloads.NAME]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WorkloadKind {
    /// Every host sends to one other and receives from one (a random derangement).
    Permutation,
    /// `senders` hosts send to `receiver` at once.
    Incast,
    /// Every host sends to every other.
    AllToAll,
    /// The hosts in twos, in list order: the first sends to the second, the third to the
    /// fourth, .. (a dumbbell's `s{i}` to `d{i}`).
    Pairs,
}

/// `app` of `[workloads.NAME]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WorkloadApp {
    /// A transfer of `size` bytes per flow (the default).
    #[default]
    File,
    /// An unlimited backlog (no `size`; no completion times).
    Bulk,
}

/// `[workloads.NAME]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawWorkload {
    pub kind: WorkloadKind,
    /// What each flow's application offers (`file` by default).
    #[serde(default)]
    pub app: WorkloadApp,
    /// Bytes per flow (each flow a TCP file transfer); required with `app = "file"`.
    #[serde(default, with = "units::bytes::opt")]
    pub size: Option<u64>,
    /// When the first flow starts (default 0).
    #[serde(default, with = "units::dur::opt")]
    pub start: Option<Dur>,
    /// Flow `i` starts `i * stagger` after the first (default 0: all at once).
    #[serde(default, with = "units::dur::opt")]
    pub stagger: Option<Dur>,
    /// The hosts taking part (default: the `[topology]`'s hosts).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
    /// Incast: the receiving host (default: the first host).
    #[serde(default)]
    pub receiver: Option<String>,
    /// Incast: how many senders, drawn at random from the other hosts (default: all of them).
    #[serde(default)]
    pub senders: Option<u32>,
}

impl KindKeys for RawWorkload {}

/// What a `[topology]` makes.
pub(crate) struct Fabric {
    /// Node names in order (hosts first).
    pub nodes: Vec<String>,
    /// Which of `nodes` are hosts.
    pub hosts: std::ops::Range<usize>,
    /// (name, a, b, whether a host link), in order.
    pub links: Vec<(String, usize, usize, bool)>,
}

/// The nodes and links of a fat-tree with `k` ports per switch (module doc).
pub(crate) fn fat_tree(k: u32) -> Fabric {
    let h = k / 2;
    let mut nodes = Vec::new();
    for p in 0..k {
        for e in 0..h {
            for i in 0..h {
                nodes.push(format!("h{p}_{e}_{i}"));
            }
        }
    }
    let hosts = nodes.len();
    let edge0 = nodes.len();
    for p in 0..k {
        for e in 0..h {
            nodes.push(format!("e{p}_{e}"));
        }
    }
    let agg0 = nodes.len();
    for p in 0..k {
        for a in 0..h {
            nodes.push(format!("a{p}_{a}"));
        }
    }
    let core0 = nodes.len();
    for a in 0..h {
        for i in 0..h {
            nodes.push(format!("c{a}_{i}"));
        }
    }
    let (h, k) = (h as usize, k as usize);
    let mut links = Vec::new();
    let mut link = |x: usize, y: usize, host: bool, nodes: &[String]| {
        links.push((format!("{}-{}", nodes[x], nodes[y]), x, y, host));
    };
    for p in 0..k {
        for e in 0..h {
            for i in 0..h {
                link((p * h + e) * h + i, edge0 + p * h + e, true, &nodes);
            }
        }
    }
    for p in 0..k {
        for e in 0..h {
            for a in 0..h {
                link(edge0 + p * h + e, agg0 + p * h + a, false, &nodes);
            }
        }
    }
    for p in 0..k {
        for a in 0..h {
            for i in 0..h {
                link(agg0 + p * h + a, core0 + a * h + i, false, &nodes);
            }
        }
    }
    Fabric {
        nodes,
        hosts: 0..hosts,
        links,
    }
}

/// The nodes and links of a leaf-spine fabric (module doc).
pub(crate) fn leaf_spine(leaves: u32, spines: u32, per_leaf: u32) -> Fabric {
    let mut nodes = Vec::new();
    for l in 0..leaves {
        for i in 0..per_leaf {
            nodes.push(format!("h{l}_{i}"));
        }
    }
    let hosts = nodes.len();
    let leaf0 = nodes.len();
    nodes.extend((0..leaves).map(|l| format!("leaf{l}")));
    let spine0 = nodes.len();
    nodes.extend((0..spines).map(|s| format!("spine{s}")));
    let mut links = Vec::new();
    let (per, leaves, spines) = (per_leaf as usize, leaves as usize, spines as usize);
    for l in 0..leaves {
        for i in 0..per {
            let (x, y) = (l * per + i, leaf0 + l);
            links.push((format!("{}-{}", nodes[x], nodes[y]), x, y, true));
        }
    }
    for l in 0..leaves {
        for s in 0..spines {
            let (x, y) = (leaf0 + l, spine0 + s);
            links.push((format!("{}-{}", nodes[x], nodes[y]), x, y, false));
        }
    }
    Fabric {
        nodes,
        hosts: 0..hosts,
        links,
    }
}

/// The nodes and links of a dumbbell with `pairs` sender-receiver pairs (module doc).
pub(crate) fn dumbbell(pairs: u32) -> Fabric {
    let n = pairs as usize;
    let mut nodes = Vec::with_capacity(2 + 2 * n);
    nodes.push("r0".to_owned());
    nodes.push("r1".to_owned());
    for i in 0..n {
        nodes.push(format!("s{i}"));
        nodes.push(format!("d{i}"));
    }
    let mut links = Vec::with_capacity(1 + 2 * n);
    links.push(("r0-r1".to_owned(), 0, 1, false));
    for i in 0..n {
        let (s, d) = (2 + 2 * i, 3 + 2 * i);
        links.push((format!("s{i}-r0"), s, 0, true));
        links.push((format!("r1-d{i}"), 1, d, true));
    }
    Fabric {
        nodes,
        hosts: 2..2 + 2 * n,
        links,
    }
}

/// A uniformly random derangement of 0..n (n ≥ 2): shuffles until no point is fixed (about
/// e tries on average).
pub(crate) fn derangement(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    loop {
        for i in (1..n).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        if p.iter().enumerate().all(|(i, &x)| i != x) {
            return p;
        }
    }
}

impl Ctx<'_> {
    /// The fabric of `[topology]`, checked.
    pub(super) fn fabric(&self, t: &RawTopology) -> Result<Fabric> {
        let path = KeyPath::keys(&["topology"]);
        let forbid = |keys: &[(&str, bool)], kind: &str| -> Result<()> {
            match keys.iter().find(|(_, given)| *given) {
                Some((k, _)) => Err(self.err(
                    &path.key(k),
                    format!("`{k}` is not a key of kind = \"{kind}\""),
                )),
                None => Ok(()),
            }
        };
        let need = |key: &str, v: Option<u32>, what: &str| -> Result<u32> {
            match v {
                None => Err(self.err(
                    &path.key(key),
                    format!("missing required key `{key}`: {what}"),
                )),
                Some(0) => Err(self.err(&path.key(key), format!("expected {what}; got 0"))),
                Some(x) => Ok(x),
            }
        };
        let f = match t.kind {
            TopologyKind::FatTree => {
                forbid(
                    &[
                        ("leaves", t.leaves.is_some()),
                        ("spines", t.spines.is_some()),
                        ("hosts_per_leaf", t.hosts_per_leaf.is_some()),
                        ("pairs", t.pairs.is_some()),
                    ],
                    "fat_tree",
                )?;
                let k = need(
                    "k",
                    t.k,
                    "the switches' port count, an even number from 2 to 64",
                )?;
                if k % 2 != 0 || k > 64 {
                    return Err(self.err(
                        &path.key("k"),
                        format!("expected an even port count from 2 to 64; got {k}"),
                    ));
                }
                fat_tree(k)
            }
            TopologyKind::LeafSpine => {
                forbid(
                    &[("k", t.k.is_some()), ("pairs", t.pairs.is_some())],
                    "leaf_spine",
                )?;
                let l = need("leaves", t.leaves, "a positive number of leaf switches")?;
                let s = need("spines", t.spines, "a positive number of spine switches")?;
                let h = need(
                    "hosts_per_leaf",
                    t.hosts_per_leaf,
                    "a positive number of hosts on each leaf",
                )?;
                if u64::from(l) * u64::from(h) > MAX_HOSTS || l > 65_536 || s > 65_536 {
                    return Err(self.err(
                        &path,
                        format!(
                            "expected at most {MAX_HOSTS} hosts and 65536 switches of each tier; \
                             got {l} leaves x {h} hosts and {s} spines"
                        ),
                    ));
                }
                leaf_spine(l, s, h)
            }
            TopologyKind::Dumbbell => {
                forbid(
                    &[
                        ("k", t.k.is_some()),
                        ("leaves", t.leaves.is_some()),
                        ("spines", t.spines.is_some()),
                        ("hosts_per_leaf", t.hosts_per_leaf.is_some()),
                    ],
                    "dumbbell",
                )?;
                let p = need(
                    "pairs",
                    t.pairs,
                    "a positive number of sender-receiver pairs",
                )?;
                // One flow a pair at most: up to the most flows a scenario may have.
                if p > super::MAX_FLOW_COUNT {
                    return Err(self.err(
                        &path.key("pairs"),
                        format!(
                            "expected at most {} pairs (the most flows a scenario may have); \
                             got {p}",
                            super::MAX_FLOW_COUNT
                        ),
                    ));
                }
                dumbbell(p)
            }
        };
        Ok(f)
    }

    /// The fabric's links as specs: each a copy of its template, checked once as
    /// `topology.host_link` / `topology.fabric_link`.
    pub(super) fn fabric_links(
        &self,
        t: RawTopology,
        f: &Fabric,
        nodes: &[String],
        node_set: &HashSet<&str>,
        duration: Dur,
    ) -> Result<Vec<LinkSpec>> {
        let template = |key: &str, tl: RawLinkTemplate, host: bool| -> Result<Option<LinkSpec>> {
            let Some((name, a, b, _)) = f.links.iter().find(|l| l.3 == host) else {
                return Ok(None);
            };
            let raw = RawLink {
                a: f.nodes[*a].clone(),
                b: f.nodes[*b].clone(),
                rate: tl.rate,
                delay: tl.delay,
                queue: tl.queue,
                queue_ba: None,
                loss: None,
                ber: None,
                errors: None,
                loss_position: None,
                loss_packets: None,
                outages: Vec::new(),
                outage_policy: None,
                rate_steps: Vec::new(),
                diffserv_edge: None,
                cost: None,
                cost_ba: None,
                queue_report: None,
                rate_process: None,
            };
            let path = KeyPath::keys(&["topology", key]);
            self.link_at(path, name.clone(), raw, None, nodes, node_set, duration)
                .map(Some)
        };
        let fabric_raw = t.fabric_link;
        let host = template("host_link", t.host_link, true)?;
        let fabric = match fabric_raw {
            Some(tl) => template("fabric_link", tl, false)?,
            None => host.clone(),
        };
        let mut out = Vec::with_capacity(f.links.len());
        for (name, a, b, is_host) in &f.links {
            let mut l = if *is_host {
                host.clone()
            } else {
                fabric.clone()
            }
            .expect("a template for every kind of link present");
            l.name.clone_from(name);
            l.a.clone_from(&f.nodes[*a]);
            l.b.clone_from(&f.nodes[*b]);
            out.push(l);
        }
        Ok(out)
    }

    /// The flows of `[workloads.NAME]`, named `NAME_i`: one table whose copies carry their
    /// endpoints, and whether they are finite transfers (recorded for completion times).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn workload(
        &self,
        name: &str,
        w: RawWorkload,
        fabric_hosts: &[String],
        node_set: &HashSet<&str>,
        nodes: &[String],
        defaults: &Defaults,
        seed: u64,
    ) -> Result<(FlowTable, bool)> {
        let path = KeyPath::keys(&["workloads", name]);
        self.check_name(&path, name, "workload")?;
        let app = match (w.app, w.size) {
            (WorkloadApp::File, None) => {
                return Err(self.err(
                    &path.key("size"),
                    "missing required key `size`: bytes per flow, e.g. \"1MB\" (or app = \
                     \"bulk\" for an unlimited backlog)",
                ))
            }
            (WorkloadApp::File, Some(0)) => {
                return Err(self.err(
                    &path.key("size"),
                    "expected a positive byte count, e.g. \"1MB\"; got 0",
                ))
            }
            (WorkloadApp::File, Some(bytes)) => App::File { bytes },
            (WorkloadApp::Bulk, Some(_)) => {
                return Err(self.err(
                    &path.key("size"),
                    "`size` is not a key of app = \"bulk\" (an unlimited backlog); remove \
                     it or set app = \"file\"",
                ))
            }
            (WorkloadApp::Bulk, None) => App::Bulk,
        };
        let start = w.start.unwrap_or(Dur::ZERO);
        if start >= defaults.duration {
            return Err(self.err(
                &path.key("start"),
                format!(
                    "expected a time before the end of the run (simulation.duration = {}); got \
                     {start}",
                    defaults.duration
                ),
            ));
        }
        let hosts: Vec<String> = match w.hosts {
            Some(h) => {
                for (i, n) in h.iter().enumerate() {
                    self.check_node(&path.key("hosts").index(i), n, nodes, node_set)?;
                    if h[..i].contains(n) {
                        return Err(self.err(
                            &path.key("hosts").index(i),
                            format!("`{n}` is listed twice"),
                        ));
                    }
                }
                h
            }
            None if fabric_hosts.is_empty() => {
                return Err(self.err(
                    &path.key("hosts"),
                    "missing required key `hosts`: the hosts taking part (without a \
                     [topology], whose hosts are the default)",
                ))
            }
            None => fabric_hosts.to_vec(),
        };
        if hosts.len() < 2 {
            return Err(self.err(
                &path.key("hosts"),
                format!("expected at least 2 hosts; got {}", hosts.len()),
            ));
        }
        let wrong = |key: &str, given: bool| -> Result<()> {
            if given && w.kind != WorkloadKind::Incast {
                return Err(self.err(
                    &path.key(key),
                    format!("`{key}` is only allowed with kind = \"incast\""),
                ));
            }
            Ok(())
        };
        wrong("receiver", w.receiver.is_some())?;
        wrong("senders", w.senders.is_some())?;
        let n = hosts.len();
        let pairs: Vec<(usize, usize)> = match w.kind {
            WorkloadKind::Pairs => {
                if !n.is_multiple_of(2) {
                    return Err(self.err(
                        &path.key("hosts"),
                        format!(
                            "kind = \"pairs\" takes the hosts in twos (sender, receiver); got \
                             an odd number, {n}"
                        ),
                    ));
                }
                (0..n / 2).map(|i| (2 * i, 2 * i + 1)).collect()
            }
            WorkloadKind::Permutation => {
                let mut rng = Rng::for_component(seed, &format!("workloads.{name}.permutation"));
                derangement(n, &mut rng).into_iter().enumerate().collect()
            }
            WorkloadKind::AllToAll => {
                if (n as u64) * (n as u64 - 1) > u64::from(super::MAX_FLOW_COUNT) {
                    return Err(self.err(
                        &path.key("kind"),
                        format!(
                            "all-to-all over {n} hosts makes {} flows, more than {}",
                            n as u64 * (n as u64 - 1),
                            super::MAX_FLOW_COUNT
                        ),
                    ));
                }
                (0..n)
                    .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
                    .collect()
            }
            WorkloadKind::Incast => {
                let r = match &w.receiver {
                    None => 0,
                    Some(r) => hosts.iter().position(|h| h == r).ok_or_else(|| {
                        self.err(
                            &path.key("receiver"),
                            format!("expected one of the workload's hosts; `{r}` is not one"),
                        )
                    })?,
                };
                let mut others: Vec<usize> = (0..n).filter(|&i| i != r).collect();
                let senders = match w.senders {
                    None => others.len(),
                    Some(s) if s >= 1 && s as usize <= others.len() => s as usize,
                    Some(s) => {
                        return Err(self.err(
                            &path.key("senders"),
                            format!("expected 1 to {} senders (the other hosts); got {s}", n - 1),
                        ))
                    }
                };
                if senders < others.len() {
                    // The first `senders` of a seeded shuffle, kept in host order.
                    let mut rng = Rng::for_component(seed, &format!("workloads.{name}.senders"));
                    for i in (1..others.len()).rev() {
                        let j = rng.below(i as u64 + 1) as usize;
                        others.swap(i, j);
                    }
                    others.truncate(senders);
                    others.sort_unstable();
                }
                others.into_iter().map(|s| (s, r)).collect()
            }
        };
        let count = u32::try_from(pairs.len())
            .ok()
            .filter(|&c| c <= super::MAX_FLOW_COUNT)
            .ok_or_else(|| {
                self.err(
                    &path.key("kind"),
                    format!(
                        "this workload makes {} flows, more than {}",
                        pairs.len(),
                        super::MAX_FLOW_COUNT
                    ),
                )
            })?;
        let stagger = w.stagger.unwrap_or(Dur::ZERO);
        let last = start
            .as_nanos()
            .checked_add(stagger.as_nanos().saturating_mul(u64::from(count) - 1));
        if last.is_none_or(|l| l >= defaults.duration.as_nanos()) {
            return Err(self.err(
                &path.key("stagger"),
                format!(
                    "the last of the {count} flows would start at start + {} x stagger, not \
                     before the end of the run (simulation.duration = {})",
                    count - 1,
                    defaults.duration
                ),
            ));
        }
        let ends = super::FlowEnds {
            hosts,
            pairs: pairs
                .into_iter()
                .map(|(s, d)| (s as u32, d as u32))
                .collect(),
        };
        let (s, d) = ends.pairs[0];
        let finite = matches!(app, App::File { .. });
        let first = FlowSpec {
            name: format!("{name}_0"),
            from: ends.hosts[s as usize].clone(),
            to: ends.hosts[d as usize].clone(),
            start: Time(start.as_nanos()),
            start_jitter: Dur::ZERO,
            stop: None,
            dscp: 0,
            diffserv: None,
            kind: FlowKind::Tcp {
                app,
                tcp: defaults.tcp.clone(),
            },
        };
        Ok((
            FlowTable {
                table: name.to_owned(),
                count,
                stagger,
                first,
                ends: Some(std::sync::Arc::new(ends)),
            },
            finite,
        ))
    }
}
