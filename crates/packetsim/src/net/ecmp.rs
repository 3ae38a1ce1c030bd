//! Equal-cost multipath (ECMP): at a node with several least-cost next hops toward an
//! address, which one a packet takes.
//!
//! - **Groups.** For every node `u` with two or more links and every address `a` that is not
//!   bound to an interface, the group is the set of `u`'s egresses `u → v` with
//!   `cost(u → v) + dist(v, a) = dist(u, a)` (every first hop of a least-cost path), in link
//!   order. Only groups of two or more are kept; elsewhere the static table's single route
//!   ([`super::routing::least_cost`]) is used as without ECMP. Because each hop of a group
//!   strictly lowers the remaining cost, ECMP alone never loops.
//! - **Per-flow hashing** ([`EcmpMode::Flow`], the switches' usual rule, RFC 2992 §2 "hash
//!   threshold"): the egress is picked by a hash of the run seed, the node and the packet's
//!   flow identity: source and destination address and the flow (packetsim's flow id stands
//!   for the port pair and protocol of the 5-tuple). Every packet of one flow in one direction
//!   therefore takes the same path at every node: a flow is never reordered by ECMP. The node
//!   is in the hash so that successive switches do not all make the same choice (hash
//!   polarisation).
//! - **Per-packet spraying** ([`EcmpMode::Packet`]): each packet picks an egress of the group
//!   uniformly at random from the stream `routing.spray` (seeded, so runs repeat). Packets of
//!   one flow may then arrive out of order.
//! - **Static routes** win at their node: the group of (node, address) is removed.
//! - **Cost.** Tables are kept only at nodes that have a group (the switches of a fabric),
//!   4 bytes per address each; hosts (single-link nodes) have none and forward as before. A
//!   search runs per multi-link destination; a single-link host's groups are its switch's
//!   (every least-cost path to the host passes through it).
//!
//! Layering: ids, the link table and the packet's addresses; nothing of transports.

use super::Link;
use crate::ids::{Addr, EgressId, LinkId, NodeId};
use crate::packet::Packet;
use packetsim_kernel::rng::{mix_seed, MixPrefix};
use packetsim_kernel::Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// How a node picks among equal-cost next hops (`[routing] ecmp`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EcmpMode {
    /// No ECMP: the single least-cost route of [`super::routing`] (the default).
    #[default]
    Off,
    /// Per-flow hashing of (seed, node, source, destination, flow).
    Flow,
    /// Per-packet spraying, uniformly at random (seeded).
    Packet,
}

/// Every node's equal-cost groups, and how packets pick among them.
#[derive(Clone, Debug)]
pub struct Ecmp {
    /// How a packet picks an egress of a group.
    pub mode: EcmpMode,
    /// The per-flow hash's first word, its salt from the run seed, already mixed.
    salt: MixPrefix,
    /// Per-packet spraying's stream.
    spray: Rng,
    /// Per node: `None` without groups, else by address the group index + 1 (0: none).
    tables: Vec<Option<Box<[u32]>>>,
    /// The distinct groups, each two or more egresses in link order.
    groups: Vec<Box<[EgressId]>>,
}

impl Ecmp {
    /// The group index at `node` toward `addr`, if it has one.
    #[inline]
    pub fn group(&self, node: NodeId, addr: Addr) -> Option<u32> {
        let t = self.tables.get(node.idx())?.as_deref()?;
        match t[addr.idx()] {
            0 => None,
            g => Some(g - 1),
        }
    }

    /// The egresses of group `g`, in link order.
    pub fn egresses(&self, g: u32) -> &[EgressId] {
        &self.groups[g as usize]
    }

    /// Whether `node` has any group.
    pub fn has_groups(&self, node: NodeId) -> bool {
        self.tables.get(node.idx()).is_some_and(Option::is_some)
    }

    /// Number of distinct groups.
    pub fn n_groups(&self) -> usize {
        self.groups.len()
    }

    /// The egress packet `p` takes from group `g` at `node` (module doc).
    #[inline]
    pub fn pick(&mut self, node: NodeId, g: u32, p: &Packet) -> EgressId {
        let hops = &self.groups[g as usize];
        let x = match self.mode {
            EcmpMode::Packet => self.spray.next_u64(),
            EcmpMode::Flow | EcmpMode::Off => flow_hash(self.salt, node, p),
        };
        hops[((x as u128 * hops.len() as u128) >> 64) as usize]
    }

    /// Forgets the group of (`node`, `addr`) (a static route replaces it).
    pub fn clear(&mut self, node: NodeId, addr: Addr) {
        if let Some(Some(t)) = self.tables.get_mut(node.idx()) {
            t[addr.idx()] = 0;
        }
    }

    /// Memory the tables hold, in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.tables
            .iter()
            .flatten()
            .map(|t| t.len() * 4)
            .sum::<usize>()
            + self.groups.iter().map(|g| g.len() * 4).sum::<usize>()
    }
}

/// The per-flow hash of packet `p` at `node`: `mix_seed` of (salt, node, source and
/// destination, flow), with the salt mixed once for the run.
#[inline]
pub fn flow_hash(salt: MixPrefix, node: NodeId, p: &Packet) -> u64 {
    salt.finish(&[
        u64::from(node.0),
        u64::from(p.src.0) << 32 | u64::from(p.dst.0),
        u64::from(p.flow.0),
    ])
}

/// Computes every node's equal-cost groups (module doc). `addr_owner` and `addr_link` are
/// indexed by address, as in [`super::Net`].
pub fn groups(
    n_nodes: usize,
    links: &[Link],
    addr_owner: &[NodeId],
    addr_link: &[Option<LinkId>],
    mode: EcmpMode,
    seed: u64,
) -> Ecmp {
    let n_addrs = addr_owner.len();
    let mut incoming: Vec<Vec<(usize, u64)>> = vec![Vec::new(); n_nodes];
    let mut outgoing: Vec<Vec<(usize, EgressId, u64)>> = vec![Vec::new(); n_nodes];
    let mut degree = vec![0u32; n_nodes];
    let mut neighbour = vec![usize::MAX; n_nodes];
    for l in links {
        let (a, b) = (l.a.idx(), l.b.idx());
        incoming[b].push((a, u64::from(l.cost)));
        incoming[a].push((b, u64::from(l.cost_ba)));
        outgoing[a].push((b, l.ab, u64::from(l.cost)));
        outgoing[b].push((a, l.ba, u64::from(l.cost_ba)));
        degree[a] += 1;
        degree[b] += 1;
        neighbour[a] = b;
        neighbour[b] = a;
    }
    let mut addrs_of: Vec<Vec<Addr>> = vec![Vec::new(); n_nodes];
    for (a, owner) in addr_owner.iter().enumerate() {
        if addr_link[a].is_none() {
            addrs_of[owner.idx()].push(Addr(a as u32));
        }
    }
    // A stub: one link, to a node with several; its groups are its neighbour's.
    let stub = |d: usize| (degree[d] == 1 && degree[neighbour[d]] >= 2).then_some(neighbour[d]);
    let mut needed = vec![false; n_nodes];
    for d in 0..n_nodes {
        if let Some(r) = stub(d) {
            needed[r] = true;
        }
    }
    let mut tables: Vec<Option<Box<[u32]>>> = vec![None; n_nodes];
    let mut groups: Vec<Box<[EgressId]>> = Vec::new();
    let mut interned: HashMap<Vec<EgressId>, u32> = HashMap::new();
    // Per searched node r with stubs: the group (+1) of every node toward r.
    let mut toward: Vec<Option<Vec<u32>>> = vec![None; n_nodes];
    let mut dist = vec![u64::MAX; n_nodes];
    let mut heap = BinaryHeap::new();
    let mut set: Vec<EgressId> = Vec::new();
    let mut gids = vec![0u32; n_nodes];
    for dest in 0..n_nodes {
        if stub(dest).is_some() {
            continue;
        }
        dist.iter_mut().for_each(|d| *d = u64::MAX);
        dist[dest] = 0;
        heap.clear();
        heap.push(Reverse((0u64, dest)));
        while let Some(Reverse((d, v))) = heap.pop() {
            if d != dist[v] {
                continue;
            }
            for &(u, c) in &incoming[v] {
                if d + c < dist[u] {
                    dist[u] = d + c;
                    heap.push(Reverse((d + c, u)));
                }
            }
        }
        for u in 0..n_nodes {
            gids[u] = 0;
            if u == dest || degree[u] < 2 || dist[u] == u64::MAX {
                continue;
            }
            set.clear();
            for &(v, e, c) in &outgoing[u] {
                if dist[v] != u64::MAX && dist[v] + c == dist[u] {
                    set.push(e);
                }
            }
            if set.len() >= 2 {
                let next = groups.len() as u32;
                let g = *interned.entry(set.clone()).or_insert_with(|| {
                    groups.push(set.clone().into_boxed_slice());
                    next
                });
                gids[u] = g + 1;
            }
        }
        for u in 0..n_nodes {
            if gids[u] != 0 {
                let t = tables[u].get_or_insert_with(|| vec![0; n_addrs].into_boxed_slice());
                for a in &addrs_of[dest] {
                    t[a.idx()] = gids[u];
                }
            }
        }
        if needed[dest] {
            toward[dest] = Some(gids.clone());
        }
    }
    for (d, addrs) in addrs_of.iter().enumerate() {
        let Some(r) = stub(d) else { continue };
        let g = toward[r]
            .as_ref()
            .expect("the stub's neighbour was searched");
        for u in 0..n_nodes {
            // At r itself the only least-cost hop is the link to d.
            if g[u] != 0 && u != r && u != d {
                let t = tables[u].get_or_insert_with(|| vec![0; n_addrs].into_boxed_slice());
                for a in addrs {
                    t[a.idx()] = g[u];
                }
            }
        }
    }
    Ecmp {
        mode,
        salt: MixPrefix::new(&[mix_seed(&[seed, 0x6563_6d70])]),
        spray: Rng::for_component(seed, "routing.spray"),
        tables,
        groups,
    }
}
