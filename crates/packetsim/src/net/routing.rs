//! Route computation: every node's next egress toward every address, computed once at build
//! from the node, link and address tables (pure functions; [`super::Net::compute_routes`] is
//! the entry point that stores the result in each [`super::Node::routes`]).
//!
//! - **Least cost.** Each link direction has an integer cost (default [`DEFAULT_COST`] = 1;
//!   [`Link::cost`] for a→b, [`Link::cost_ba`] for b→a, equal unless the scenario gives
//!   `cost_ba`); a route is the first egress of a path of least total cost, counting the cost
//!   of each direction the path uses. Costs are
//!   integers so that sums are exact: "equal cost" is well defined and a tie never depends on
//!   rounding or on the order of additions (with floats, 0.1 + 0.2 ≠ 0.3). Only ratios matter,
//!   so `cost = 10` against 1 says what a fractional cost would.
//! - **The search.** For each destination, Dijkstra's algorithm runs from the destination over
//!   reversed edges. Nodes are settled in order of (cost to the destination, the moment that
//!   cost was reached); a settled node `v` then offers itself, over each link into `v` in
//!   scenario order, to its neighbour `u` as `u`'s next hop; `u` takes an offer only when it
//!   is strictly cheaper than the best it already has.
//! - **Tie rule.** So among equal-cost paths, the one this search finds first wins: the offer
//!   that came from the node settled earliest, and from one node the link listed first. At
//!   unit costs the search is exactly the breadth-first search packetsim used before costs
//!   existed (a FIFO frontier visiting links in scenario order), and gives the same routes;
//!   a test checks this against that search, kept as the reference.
//! - **Interface addresses.** An address bound to one of its node's links is searched on its
//!   own: the only last hop is the neighbour across that link, and no path passes through the
//!   owner itself (spec 3 §2.5: traffic to D1 uses path 1).
//! - **Static routes** ([`StaticRoute`]) replace the computed route at their node only; every
//!   other node keeps its least-cost route. A static route can therefore send packets into a
//!   loop (x sends to y, whose least-cost route leads back to x). [`find_loop`] finds such a
//!   loop after the routes are installed, so the scenario builder can reject it.
//!
//! Layering: uses ids and the link table of `net`; knows nothing of packets or transports.

use super::Link;
use crate::ids::{Addr, EgressId, LinkId, NodeId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The cost of a link whose scenario gives none.
pub const DEFAULT_COST: u32 = 1;

/// A route fixed by the scenario: at `node`, packets to `addr` leave over `link`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticRoute {
    /// The node whose table it sets.
    pub node: NodeId,
    /// The destination address.
    pub addr: Addr,
    /// The link (attached to `node`) packets to `addr` leave by.
    pub link: LinkId,
}

/// A forwarding loop: packets to `addr` go round `cycle` forever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteLoop {
    /// The destination whose packets loop.
    pub addr: Addr,
    /// The nodes of the loop in forwarding order, starting at the node of `route`.
    pub cycle: Vec<NodeId>,
    /// Index (in the list given to [`find_loop`]) of the first static route on the loop.
    pub route: usize,
}

/// One node's static forwarding table: the next egress toward each address.
///
/// Two shapes, chosen at build and invisible to a lookup:
///
/// - a node with a single link (a host on an access link: most nodes of a large topology)
///   sends everything it can reach out of that link, so its table is that egress plus the
///   few addresses it does not send there (its own, and any it cannot reach): O(1) memory
///   per host instead of one entry per address in the network;
/// - every other node keeps one entry per address (4 bytes each).
///
/// Without this, the tables took nodes × addresses × 8 bytes: 3.2 GiB at 10,000 flows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteTable {
    /// One entry per address: the egress index, or [`RouteTable::NONE`].
    Dense(Vec<u32>),
    /// A single-link node: every address leaves by `egress` except its own and those it
    /// cannot reach.
    Single {
        /// The node's only egress.
        egress: EgressId,
        /// The node's own addresses, sorted.
        local: Vec<Addr>,
        /// Addresses it cannot reach, sorted (none in a connected network).
        unreachable: Vec<Addr>,
    },
}

impl Default for RouteTable {
    fn default() -> Self {
        RouteTable::Dense(Vec::new())
    }
}

/// Whether sorted `list` holds `addr` (a scan for the usual short list).
#[inline(always)]
fn listed(list: &[Addr], addr: Addr) -> bool {
    if list.len() <= 8 {
        list.contains(&addr)
    } else {
        list.binary_search(&addr).is_ok()
    }
}

impl RouteTable {
    /// The dense entry that means "no route".
    const NONE: u32 = u32::MAX;

    /// The next egress toward `addr`, `None` when unreachable or local.
    #[inline(always)]
    pub fn get(&self, addr: Addr) -> Option<EgressId> {
        match self {
            RouteTable::Dense(v) => match v[addr.idx()] {
                RouteTable::NONE => None,
                e => Some(EgressId(e)),
            },
            RouteTable::Single {
                egress,
                local,
                unreachable,
            } => (!listed(local, addr) && !listed(unreachable, addr)).then_some(*egress),
        }
    }

    /// [`RouteTable::get`] for an address the node does not own (forwarding checks that
    /// first): a single-link node that reaches everything answers without a search.
    #[inline(always)]
    pub fn get_remote(&self, addr: Addr) -> Option<EgressId> {
        match self {
            RouteTable::Single {
                egress,
                unreachable,
                ..
            } if unreachable.is_empty() => Some(*egress),
            _ => self.get(addr),
        }
    }

    /// Sets the route toward `addr` (a static route, a route forgotten at run time).
    pub fn set(&mut self, addr: Addr, to: Option<EgressId>) {
        match self {
            RouteTable::Dense(v) => v[addr.idx()] = to.map_or(RouteTable::NONE, |e| e.0),
            RouteTable::Single {
                egress,
                local,
                unreachable,
            } => match (to, unreachable.binary_search(&addr)) {
                (None, Err(i)) if !listed(local, addr) => unreachable.insert(i, addr),
                (Some(e), Ok(i)) if e == *egress => {
                    unreachable.remove(i);
                }
                (Some(e), _) if e != *egress => {
                    // Not the node's only egress: cannot happen for a single-link node (a
                    // static route leaves over a link of its node); keep it exact anyway.
                    unreachable!("{e}: a single-link node has only {egress}")
                }
                _ => {}
            },
        }
    }

    /// Memory the table holds, in bytes (for the bench's per-flow figures and tests).
    pub fn heap_bytes(&self) -> usize {
        match self {
            RouteTable::Dense(v) => v.capacity() * 4,
            RouteTable::Single {
                local, unreachable, ..
            } => (local.capacity() + unreachable.capacity()) * 4,
        }
    }
}

/// Every node's least-cost table: `result[node].get(addr)` is the next egress from `node`
/// toward `addr`, `None` when `addr` is unreachable or local. `addr_owner` and `addr_link` are
/// indexed by address ([`super::Net`]'s tables).
///
/// One search runs per destination node, except for a *stub*: a node with a single link to a
/// node that has several, whose addresses are not bound to an interface. The search from a
/// stub `d` attached to `r` settles `d`, then `r`, then every other node exactly as the search
/// from `r` does (costs shifted by the link's, the order of offers kept), so its result is
/// `r`'s own with `r` itself sending over the link to `d`. A test checks this against the
/// search run for every node. With it, building the tables of N hosts on a few routers costs
/// O(N × routers) rather than O(N²).
pub fn least_cost(
    n_nodes: usize,
    links: &[Link],
    addr_owner: &[NodeId],
    addr_link: &[Option<LinkId>],
) -> Vec<RouteTable> {
    let n_addrs = addr_owner.len();
    // incoming[v]: every (u, egress u -> v, cost), in link order.
    let mut incoming: Vec<Vec<(NodeId, EgressId, u64)>> = vec![Vec::new(); n_nodes];
    // The node's only link, for nodes with exactly one.
    let mut degree = vec![0u32; n_nodes];
    let mut only_link: Vec<Option<LinkId>> = vec![None; n_nodes];
    for (i, link) in links.iter().enumerate() {
        debug_assert!(link.cost >= 1 && link.cost_ba >= 1, "{}: cost 0", link.name);
        incoming[link.b.idx()].push((link.a, link.ab, link.cost as u64));
        incoming[link.a.idx()].push((link.b, link.ba, link.cost_ba as u64));
        for end in [link.a, link.b] {
            degree[end.idx()] += 1;
            only_link[end.idx()] = Some(LinkId(i as u32));
        }
    }
    let mut addrs_of: Vec<Vec<Addr>> = vec![Vec::new(); n_nodes];
    for (addr, owner) in addr_owner.iter().enumerate() {
        addrs_of[owner.idx()].push(Addr(addr as u32));
    }
    // A single-link node: (its egress, the neighbour, the neighbour's egress back to it).
    let single = |u: usize| -> Option<(EgressId, usize, EgressId)> {
        if degree[u] != 1 {
            return None;
        }
        let l = &links[only_link[u]?.idx()];
        Some(if l.a.idx() == u {
            (l.ab, l.b.idx(), l.ba)
        } else {
            (l.ba, l.a.idx(), l.ab)
        })
    };
    let mut tables: Vec<RouteTable> = (0..n_nodes)
        .map(|u| match single(u) {
            Some((egress, _, _)) => RouteTable::Single {
                egress,
                local: addrs_of[u].clone(),
                unreachable: Vec::new(),
            },
            None => RouteTable::Dense(vec![RouteTable::NONE; n_addrs]),
        })
        .collect();
    // Stub destinations, derived from their neighbour's search: d -> (r, r's egress to d).
    let stub = |d: usize| -> Option<(usize, EgressId)> {
        let (_, r, back) = single(d)?;
        let unbound = addrs_of[d].iter().all(|a| addr_link[a.idx()].is_none());
        (unbound && degree[r] >= 2).then_some((r, back))
    };
    let mut needed = vec![false; n_nodes];
    for d in 0..n_nodes {
        if let Some((r, _)) = stub(d) {
            needed[r] = true;
        }
    }
    // For each neighbour r of stubs: its search's next hops at the multi-link nodes, and the
    // single-link nodes that cannot reach it.
    type Kept = (Vec<(usize, Option<EgressId>)>, Vec<usize>);
    let mut kept: Vec<Option<Kept>> = vec![None; n_nodes];
    let mut search = Search {
        dist: vec![u64::MAX; n_nodes],
        next_hop: vec![None; n_nodes],
        settled: vec![false; n_nodes],
        heap: BinaryHeap::new(),
        seq: 0,
    };
    let write =
        |tables: &mut [RouteTable], u: usize, addr: Addr, h: Option<EgressId>| match &mut tables[u]
        {
            RouteTable::Dense(v) => v[addr.idx()] = h.map_or(RouteTable::NONE, |e| e.0),
            RouteTable::Single {
                egress,
                local,
                unreachable,
            } => match h {
                None if !local.contains(&addr) => unreachable.push(addr),
                None => {}
                Some(e) => debug_assert_eq!(e, *egress, "a single-link node's route"),
            },
        };
    for dest in 0..n_nodes {
        if stub(dest).is_some() {
            continue;
        }
        // One search for the node's unbound addresses, one per interface address.
        let mut searches: Vec<Option<LinkId>> = vec![None];
        for &addr in &addrs_of[dest] {
            if let Some(l) = addr_link[addr.idx()] {
                if !searches.contains(&Some(l)) {
                    searches.push(Some(l));
                }
            }
        }
        for via in searches {
            search.reset();
            match via {
                None => search.offer(dest, None, 0),
                Some(l) => {
                    // Bound to link l: the only last hop is the neighbour across l, and no
                    // path passes through dest itself.
                    let link = &links[l.idx()];
                    let (nb, e, cost) = if link.a.idx() == dest {
                        (link.b, link.ba, link.cost_ba)
                    } else {
                        (link.a, link.ab, link.cost)
                    };
                    search.settled[dest] = true;
                    search.offer(nb.idx(), Some(e), cost as u64);
                }
            }
            search.run(&incoming);
            for &addr in &addrs_of[dest] {
                if addr_link[addr.idx()] == via {
                    for u in 0..n_nodes {
                        let h = if u == dest { None } else { search.next_hop[u] };
                        write(&mut tables, u, addr, h);
                    }
                }
            }
            if via.is_none() && needed[dest] {
                let mut multi = Vec::new();
                let mut cut_off = Vec::new();
                for (u, &h) in search.next_hop.iter().enumerate() {
                    if single(u).is_some() {
                        if h.is_none() && u != dest {
                            cut_off.push(u);
                        }
                    } else {
                        multi.push((u, h));
                    }
                }
                kept[dest] = Some((multi, cut_off));
            }
        }
    }
    for (d, addrs) in addrs_of.iter().enumerate() {
        let Some((r, back)) = stub(d) else { continue };
        let (multi, cut_off) = kept[r].as_ref().expect("the stub's neighbour was searched");
        for &addr in addrs {
            for &(u, h) in multi {
                write(&mut tables, u, addr, if u == r { Some(back) } else { h });
            }
            for &u in cut_off {
                if u != d {
                    write(&mut tables, u, addr, None);
                }
            }
            write(&mut tables, d, addr, None);
        }
    }
    for t in &mut tables {
        if let RouteTable::Single { unreachable, .. } = t {
            unreachable.sort_unstable();
            unreachable.dedup();
            unreachable.shrink_to_fit();
        }
    }
    tables
}

/// Dijkstra's state for one destination, reused across destinations.
struct Search {
    /// Least cost found so far from each node to the destination.
    dist: Vec<u64>,
    /// The egress that gives `dist`.
    next_hop: Vec<Option<EgressId>>,
    /// Nodes whose cost is final (and the excluded owner of a bound address).
    settled: Vec<bool>,
    /// (cost, when that cost was reached, node), least first.
    heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    /// Counts offers taken, so that equal costs settle in the order they were reached.
    seq: u64,
}

impl Search {
    fn reset(&mut self) {
        self.dist.iter_mut().for_each(|d| *d = u64::MAX);
        self.next_hop.iter_mut().for_each(|h| *h = None);
        self.settled.iter_mut().for_each(|s| *s = false);
        self.heap.clear();
    }

    /// Node `u` may reach the destination by `e` at cost `d`: taken only if strictly cheaper.
    fn offer(&mut self, u: usize, e: Option<EgressId>, d: u64) {
        if !self.settled[u] && d < self.dist[u] {
            self.dist[u] = d;
            self.next_hop[u] = e;
            self.seq += 1;
            self.heap.push(Reverse((d, self.seq, u as u32)));
        }
    }

    fn run(&mut self, incoming: &[Vec<(NodeId, EgressId, u64)>]) {
        while let Some(Reverse((d, _, v))) = self.heap.pop() {
            let v = v as usize;
            if self.settled[v] || d != self.dist[v] {
                continue; // an outdated entry
            }
            self.settled[v] = true;
            // Every egress u -> v makes v's cost plus the link's available to u.
            for &(u, e, c) in &incoming[v] {
                self.offer(u.idx(), Some(e), d + c);
            }
        }
    }
}

/// Overwrites the computed tables with `statics`, each at its own node only (a later entry
/// for the same node and address wins).
pub fn apply_static(routes: &mut [RouteTable], links: &[Link], statics: &[StaticRoute]) {
    for r in statics {
        let link = &links[r.link.idx()];
        let e = if link.a == r.node {
            link.ab
        } else {
            debug_assert_eq!(link.b, r.node, "a static route leaves over its node's link");
            link.ba
        };
        routes[r.node.idx()].set(r.addr, Some(e));
    }
}

/// The first forwarding loop toward an address that `statics` name, if any: `next(node,
/// addr)` is the node a packet to `addr` goes to from `node` (`None` when it is delivered or
/// dropped there). Least-cost routes alone never loop (the cost to the destination falls at
/// every hop), so every loop passes through a static route; the one first in `statics` is
/// reported.
pub fn find_loop(
    n_nodes: usize,
    statics: &[StaticRoute],
    next: impl Fn(NodeId, Addr) -> Option<NodeId>,
) -> Option<RouteLoop> {
    let mut checked: Vec<Addr> = Vec::new();
    // 0: not seen, 1: on the walk under way, 2: known to end (delivered or dropped).
    let mut state = vec![0u8; n_nodes];
    let mut walk: Vec<NodeId> = Vec::new();
    for r in statics {
        if checked.contains(&r.addr) {
            continue;
        }
        checked.push(r.addr);
        state.iter_mut().for_each(|s| *s = 0);
        for start in 0..n_nodes {
            walk.clear();
            let mut at = Some(NodeId(start as u32));
            while let Some(u) = at {
                match state[u.idx()] {
                    2 => break,
                    1 => {
                        let from = walk.iter().position(|&w| w == u).expect("u is on the walk");
                        let cycle = &walk[from..];
                        let route = statics
                            .iter()
                            .position(|s| s.addr == r.addr && cycle.contains(&s.node))
                            .expect("a loop passes through a static route");
                        let first = cycle
                            .iter()
                            .position(|&n| n == statics[route].node)
                            .expect("on the cycle");
                        let mut cycle = cycle.to_vec();
                        cycle.rotate_left(first);
                        return Some(RouteLoop {
                            addr: r.addr,
                            cycle,
                            route,
                        });
                    }
                    _ => {
                        state[u.idx()] = 1;
                        walk.push(u);
                        at = next(u, r.addr);
                    }
                }
            }
            for w in &walk {
                state[w.idx()] = 2;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::VecDeque;

    /// The node, link and address tables, numbered as [`super::super::Net`] numbers them:
    /// link i's directions are egresses 2i (a→b) and 2i+1 (b→a); node i's primary address
    /// is address i.
    #[derive(Debug, Default)]
    struct Tables {
        n: usize,
        links: Vec<Link>,
        owner: Vec<NodeId>,
        bound: Vec<Option<LinkId>>,
    }

    impl Tables {
        fn new(n: usize) -> Tables {
            Tables {
                n,
                links: Vec::new(),
                owner: (0..n as u32).map(NodeId).collect(),
                bound: vec![None; n],
            }
        }
        fn link(&mut self, a: u32, b: u32, cost: u32) -> LinkId {
            self.link2(a, b, cost, cost)
        }
        fn link2(&mut self, a: u32, b: u32, cost: u32, cost_ba: u32) -> LinkId {
            let i = self.links.len() as u32;
            self.links.push(Link {
                name: format!("l{i}"),
                a: NodeId(a),
                b: NodeId(b),
                ab: EgressId(2 * i),
                ba: EgressId(2 * i + 1),
                cost,
                cost_ba,
            });
            LinkId(i)
        }
        fn bound_addr(&mut self, node: u32, link: LinkId) -> Addr {
            self.owner.push(NodeId(node));
            self.bound.push(Some(link));
            Addr(self.owner.len() as u32 - 1)
        }
        fn tables(&self) -> Vec<RouteTable> {
            least_cost(self.n, &self.links, &self.owner, &self.bound)
        }
        fn routes(&self) -> Vec<Vec<Option<EgressId>>> {
            self.expand(&self.tables())
        }
        /// Tables as one entry per (node, address).
        fn expand(&self, tables: &[RouteTable]) -> Vec<Vec<Option<EgressId>>> {
            tables
                .iter()
                .map(|t| {
                    (0..self.owner.len() as u32)
                        .map(|a| t.get(Addr(a)))
                        .collect()
                })
                .collect()
        }
        /// The node an egress leads to.
        fn to(&self, e: EgressId) -> NodeId {
            let l = &self.links[e.idx() / 2];
            if e == l.ab {
                l.b
            } else {
                l.a
            }
        }
        /// The nodes a packet from `from` to `addr` visits, `from` first (at most n + 1).
        fn path(&self, routes: &[Vec<Option<EgressId>>], from: u32, addr: Addr) -> Vec<u32> {
            let mut at = NodeId(from);
            let mut out = vec![from];
            while let Some(e) = routes[at.idx()][addr.idx()] {
                at = self.to(e);
                out.push(at.0);
                if out.len() > self.n + 1 {
                    break;
                }
            }
            out
        }
    }

    /// The search run for every destination node, as packetsim built its tables before stub
    /// destinations were derived from their neighbour's search (commit 82c2a17): the
    /// reference for the shortcut.
    fn dijkstra_reference(
        n_nodes: usize,
        links: &[Link],
        addr_owner: &[NodeId],
        addr_link: &[Option<LinkId>],
    ) -> Vec<Vec<Option<EgressId>>> {
        let n_addrs = addr_owner.len();
        let mut routes = vec![vec![None; n_addrs]; n_nodes];
        // incoming[v]: every (u, egress u -> v, cost), in link order.
        let mut incoming: Vec<Vec<(NodeId, EgressId, u64)>> = vec![Vec::new(); n_nodes];
        for link in links {
            debug_assert!(link.cost >= 1 && link.cost_ba >= 1, "{}: cost 0", link.name);
            incoming[link.b.idx()].push((link.a, link.ab, link.cost as u64));
            incoming[link.a.idx()].push((link.b, link.ba, link.cost_ba as u64));
        }
        let mut search = Search {
            dist: vec![u64::MAX; n_nodes],
            next_hop: vec![None; n_nodes],
            settled: vec![false; n_nodes],
            heap: BinaryHeap::new(),
            seq: 0,
        };
        for dest in 0..n_nodes {
            // One search for the node's unbound addresses, one per interface address.
            let mut searches: Vec<Option<LinkId>> = vec![None];
            for (addr, owner) in addr_owner.iter().enumerate() {
                if owner.idx() == dest {
                    if let Some(l) = addr_link[addr] {
                        if !searches.contains(&Some(l)) {
                            searches.push(Some(l));
                        }
                    }
                }
            }
            for via in searches {
                search.reset();
                match via {
                    None => search.offer(dest, None, 0),
                    Some(l) => {
                        // Bound to link l: the only last hop is the neighbour across l, and no
                        // path passes through dest itself.
                        let link = &links[l.idx()];
                        let (nb, e, cost) = if link.a.idx() == dest {
                            (link.b, link.ba, link.cost_ba)
                        } else {
                            (link.a, link.ab, link.cost)
                        };
                        search.settled[dest] = true;
                        search.offer(nb.idx(), Some(e), cost as u64);
                    }
                }
                search.run(&incoming);
                for (addr, owner) in addr_owner.iter().enumerate() {
                    if owner.idx() == dest && addr_link[addr] == via {
                        for (u, table) in routes.iter_mut().enumerate() {
                            table[addr] = if u == dest { None } else { search.next_hop[u] };
                        }
                    }
                }
            }
        }
        routes
    }

    /// The breadth-first search packetsim used before link costs (the `Net::compute_routes`
    /// of commit ce6990c), kept verbatim as the reference for unit costs.
    fn bfs_reference(t: &Tables) -> Vec<Vec<Option<EgressId>>> {
        let n_nodes = t.n;
        let n_addrs = t.owner.len();
        let mut routes = vec![vec![None; n_addrs]; n_nodes];
        let mut next_hop: Vec<Option<EgressId>> = vec![None; n_nodes];
        let mut seen = vec![false; n_nodes];
        let mut frontier = VecDeque::new();
        let mut incoming: Vec<Vec<(NodeId, EgressId)>> = vec![Vec::new(); n_nodes];
        for link in &t.links {
            incoming[link.b.idx()].push((link.a, link.ab));
            incoming[link.a.idx()].push((link.b, link.ba));
        }
        for dest in 0..n_nodes {
            let mut searches: Vec<Option<LinkId>> = vec![None];
            for (addr, owner) in t.owner.iter().enumerate() {
                if owner.idx() == dest {
                    if let Some(l) = t.bound[addr] {
                        if !searches.contains(&Some(l)) {
                            searches.push(Some(l));
                        }
                    }
                }
            }
            for via in searches {
                next_hop.iter_mut().for_each(|h| *h = None);
                seen.iter_mut().for_each(|s| *s = false);
                seen[dest] = true;
                frontier.clear();
                match via {
                    None => frontier.push_back(dest),
                    Some(l) => {
                        let link = &t.links[l.idx()];
                        let (nb, e) = if link.a.idx() == dest {
                            (link.b, link.ba)
                        } else {
                            (link.a, link.ab)
                        };
                        seen[nb.idx()] = true;
                        next_hop[nb.idx()] = Some(e);
                        frontier.push_back(nb.idx());
                    }
                }
                while let Some(v) = frontier.pop_front() {
                    for &(u, e) in &incoming[v] {
                        if !seen[u.idx()] {
                            seen[u.idx()] = true;
                            next_hop[u.idx()] = Some(e);
                            frontier.push_back(u.idx());
                        }
                    }
                }
                for (addr, owner) in t.owner.iter().enumerate() {
                    if owner.idx() == dest && t.bound[addr] == via {
                        for (u, table) in routes.iter_mut().enumerate() {
                            table[addr] = if u == dest { None } else { next_hop[u] };
                        }
                    }
                }
            }
        }
        routes
    }

    // DESIGN.md "Network": the default is a static least-cost table (link cost, default 1).
    #[test]
    fn least_cost_two_fast_hops_beat_a_slow_direct_link_given_cost_10() {
        // a(0) - b(1) - c(2) fast, and a direct a - c listed first.
        for (direct_cost, want) in [(1, vec![0, 2]), (10, vec![0, 1, 2]), (2, vec![0, 2])] {
            let mut t = Tables::new(3);
            t.link(0, 2, direct_cost);
            t.link(0, 1, 1);
            t.link(1, 2, 1);
            let r = t.routes();
            assert_eq!(t.path(&r, 0, Addr(2)), want, "direct cost {direct_cost}");
            // The same holds the other way: both directions share the cost.
            let back: Vec<u32> = want.iter().rev().copied().collect();
            assert_eq!(t.path(&r, 2, Addr(0)), back, "direct cost {direct_cost}");
        }
    }

    // DESIGN.md "Network": ties by link order. Exactly: the search from the destination
    // settles nodes in the order they reach their cost, and offers over links in scenario
    // order; the first offer of the least cost is kept.
    #[test]
    fn least_cost_equal_paths_go_the_way_the_search_from_the_destination_finds_first() {
        // a(0) to d(3) over b(1) or c(2), both 2 hops. Links: a-c, a-b, b-d, c-d.
        let mut t = Tables::new(4);
        t.link(0, 2, 1);
        t.link(0, 1, 1);
        t.link(1, 3, 1);
        t.link(2, 3, 1);
        let r = t.routes();
        // From d, b-d (link 2) is listed before c-d (link 3): b settles first and is a's
        // first offer at cost 2, although a-c comes before a-b in the file.
        assert_eq!(t.path(&r, 0, Addr(3)), [0, 1, 3]);
        // Toward a, the offers to d come from c (over c-d) and b (over b-d); c settled first
        // (a-c is listed before a-b), so d goes through c.
        assert_eq!(t.path(&r, 3, Addr(0)), [3, 2, 0]);
    }

    #[test]
    fn least_cost_each_direction_uses_its_own_cost() {
        // a(0) - b(1) - c(2) at 1 + 1; direct a - c costs 10 from a, 1 from c.
        let mut t = Tables::new(3);
        t.link2(0, 2, 10, 1);
        t.link(0, 1, 1);
        t.link(1, 2, 1);
        let r = t.routes();
        assert_eq!(t.path(&r, 0, Addr(2)), [0, 1, 2]);
        assert_eq!(t.path(&r, 2, Addr(0)), [2, 0]);
    }

    #[test]
    fn least_cost_parallel_links_first_listed_wins_a_tie_and_the_cheaper_wins_otherwise() {
        for (costs, want) in [((1, 1), 0), ((3, 3), 0), ((2, 1), 1), ((1, 2), 0)] {
            let mut t = Tables::new(2);
            t.link(0, 1, costs.0);
            t.link(0, 1, costs.1);
            let r = t.routes();
            assert_eq!(r[0][1], Some(EgressId(2 * want)), "costs {costs:?}");
            assert_eq!(r[1][0], Some(EgressId(2 * want + 1)), "costs {costs:?}");
        }
    }

    #[test]
    fn least_cost_a_costlier_first_offer_is_replaced_by_a_cheaper_later_one() {
        // d(0) - a(1) cost 5 direct; d - b(2) - a cost 1 + 1. a hears from d first, at 5,
        // then from b at 2, and must take b.
        let mut t = Tables::new(3);
        t.link(1, 0, 5);
        t.link(0, 2, 1);
        t.link(2, 1, 1);
        let r = t.routes();
        assert_eq!(t.path(&r, 1, Addr(0)), [1, 2, 0]);
    }

    // spec 3 §2.5: traffic to an interface address arrives over its own link, costs or not.
    #[test]
    fn least_cost_interface_addresses_arrive_over_their_link_even_when_costlier() {
        // s(0) - r0(1) - d(2) and s - r1(3) - d; path 1's last link costs 10.
        let mut t = Tables::new(4);
        t.link(0, 1, 1);
        t.link(1, 2, 1);
        t.link(0, 3, 1);
        let r1_d = t.link(3, 2, 10);
        let d1 = t.bound_addr(2, r1_d);
        let r = t.routes();
        assert_eq!(t.path(&r, 0, d1), [0, 3, 2]);
        // r0 cannot pass through d: back through s, then path 1.
        assert_eq!(t.path(&r, 1, d1), [1, 0, 3, 2]);
        // d's primary address avoids the costly link: from r1, through s and r0.
        assert_eq!(t.path(&r, 3, Addr(2)), [3, 0, 1, 2]);
        assert_eq!(r[2][d1.idx()], None, "local");
    }

    #[test]
    fn unit_costs_give_exactly_the_bfs_routes_on_fixed_topologies() {
        // The dumbbell, a ring with a chord, and the multihomed topology of spec 3.
        let mut dumbbell = Tables::new(6);
        for (a, b) in [(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)] {
            dumbbell.link(a, b, 1);
        }
        let mut ring = Tables::new(6);
        for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (1, 4)] {
            ring.link(a, b, 1);
        }
        let mut mh = Tables::new(6);
        let s_r0 = mh.link(0, 1, 1);
        let r0_c = mh.link(1, 2, 1);
        let c_d0 = mh.link(2, 5, 1);
        let s_r1 = mh.link(0, 3, 1);
        let r1_c = mh.link(3, 4, 1);
        let c_d1 = mh.link(4, 5, 1);
        mh.link(2, 4, 1);
        for (n, l) in [
            (0, s_r0),
            (0, s_r1),
            (5, c_d0),
            (5, c_d1),
            (1, r0_c),
            (3, r1_c),
        ] {
            mh.bound_addr(n, l);
        }
        for t in [dumbbell, ring, mh] {
            assert_eq!(t.routes(), bfs_reference(&t), "{t:?}");
        }
    }

    /// A random small graph: `n` nodes, links as (a, b, cost a→b, cost b→a) (parallel links
    /// allowed), and bound addresses as (node, link index) (kept when the link attaches to
    /// the node).
    fn tables(n: usize, links: &[(usize, usize, u32, u32)], bound: &[(usize, usize)]) -> Tables {
        let mut t = Tables::new(n);
        for &(a, b, c, c_ba) in links {
            let (a, b) = (a % n, b % n);
            if a != b {
                t.link2(a as u32, b as u32, c, c_ba);
            }
        }
        for &(node, l) in bound {
            if t.links.is_empty() {
                break;
            }
            let l = LinkId((l % t.links.len()) as u32);
            let link = &t.links[l.idx()];
            if link.a.idx() == node % n || link.b.idx() == node % n {
                t.bound_addr((node % n) as u32, l);
            }
        }
        t
    }

    /// Least cost from every node to every node (Floyd–Warshall), `u64::MAX` if unreachable.
    fn distances(t: &Tables) -> Vec<Vec<u64>> {
        let mut d = vec![vec![u64::MAX; t.n]; t.n];
        for (i, row) in d.iter_mut().enumerate() {
            row[i] = 0;
        }
        for l in &t.links {
            let (a, b) = (l.a.idx(), l.b.idx());
            d[a][b] = d[a][b].min(l.cost as u64);
            d[b][a] = d[b][a].min(l.cost_ba as u64);
        }
        for k in 0..t.n {
            for i in 0..t.n {
                for j in 0..t.n {
                    if d[i][k] != u64::MAX && d[k][j] != u64::MAX {
                        d[i][j] = d[i][j].min(d[i][k] + d[k][j]);
                    }
                }
            }
        }
        d
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        // The refactor keeps behaviour: at unit costs, Dijkstra gives the BFS tables exactly.
        #[test]
        fn unit_costs_give_exactly_the_bfs_routes_on_random_graphs(
            n in 1usize..8,
            links in proptest::collection::vec((0usize..8, 0usize..8, Just(1u32), Just(1u32)), 0..14),
            bound in proptest::collection::vec((0usize..8, 0usize..14), 0..5),
        ) {
            let t = tables(n, &links, &bound);
            prop_assert_eq!(t.routes(), bfs_reference(&t));
        }

        // The stub shortcut keeps behaviour: on random graphs with hosts hanging off them
        // (single-link nodes, some with interface addresses) and random costs, the tables are
        // exactly those of the search run for every destination.
        #[test]
        fn derived_stub_routes_equal_a_search_from_every_node(
            n in 1usize..8,
            links in proptest::collection::vec((0usize..8, 0usize..8, 1u32..4, 1u32..4), 0..12),
            hosts in proptest::collection::vec((0usize..8, 1u32..4, 1u32..4), 0..8),
            bound in proptest::collection::vec((0usize..16, 0usize..20), 0..4),
        ) {
            let mut all = links.clone();
            for (i, &(at, c, c_ba)) in hosts.iter().enumerate() {
                all.push((n + i, at % n, c, c_ba));
            }
            let t = tables(n + hosts.len(), &all, &bound);
            let want = dijkstra_reference(t.n, &t.links, &t.owner, &t.bound);
            prop_assert_eq!(t.routes(), want);
        }

        // DESIGN.md "Network": least cost. Following the tables from any node to any primary
        // address costs exactly the least cost, and reaches it iff it is reachable.
        #[test]
        fn least_cost_tables_follow_a_cheapest_path(
            n in 1usize..8,
            links in proptest::collection::vec((0usize..8, 0usize..8, 1u32..20, 1u32..20), 0..14),
        ) {
            let t = tables(n, &links, &[]);
            let r = t.routes();
            let d = distances(&t);
            for (from, row) in d.iter().enumerate() {
                for (to, &least) in row.iter().enumerate() {
                    let mut cost = 0u64;
                    let mut at = NodeId(from as u32);
                    let mut hops = 0;
                    while let Some(e) = r[at.idx()][to] {
                        let l = &t.links[e.idx() / 2];
                        cost += if e == l.ab { l.cost } else { l.cost_ba } as u64;
                        at = t.to(e);
                        hops += 1;
                        prop_assert!(hops <= n, "loop from {} to {}", from, to);
                    }
                    if least == u64::MAX {
                        prop_assert_eq!(at.idx(), from, "unreachable, so no route");
                    } else {
                        prop_assert_eq!(at.idx(), to);
                        prop_assert_eq!(cost, least);
                    }
                }
            }
        }
    }

    // Issue "Speed" (scale): a host on one access link keeps O(1) routing state, so N hosts
    // on two routers cost O(N) in all, not N² entries.
    #[test]
    fn hosts_on_one_link_keep_constant_route_state() {
        let hosts = 500u32;
        let mut t = Tables::new(2 + 2 * hosts as usize);
        t.link(0, 1, 1);
        for i in 0..hosts {
            t.link(2 + i, 0, 1);
            t.link(0, 2 + hosts + i, 1);
            t.link(1, 2 + hosts + i, 1);
        }
        // The last 500 nodes have two links (to both routers): dense tables, searched fully.
        let tables = t.tables();
        let n_addrs = t.owner.len();
        for (u, table) in tables.iter().enumerate() {
            match table {
                RouteTable::Single {
                    local, unreachable, ..
                } => {
                    assert!((2..2 + hosts as usize).contains(&u), "node {u} is a host");
                    assert_eq!(local, &[Addr(u as u32)]);
                    assert!(unreachable.is_empty());
                }
                RouteTable::Dense(v) => assert_eq!(v.len(), n_addrs, "node {u}"),
            }
        }
        let single = tables
            .iter()
            .filter(|t| matches!(t, RouteTable::Single { .. }))
            .count();
        assert_eq!(single, hosts as usize);
        let host_bytes: usize = tables[2..2 + hosts as usize]
            .iter()
            .map(RouteTable::heap_bytes)
            .sum();
        assert_eq!(host_bytes, hosts as usize * 4, "one own address each");
        assert_eq!(
            t.routes(),
            dijkstra_reference(t.n, &t.links, &t.owner, &t.bound)
        );
    }

    // DESIGN.md "Network": static routes in the scenario win, at their node only.
    #[test]
    fn static_route_wins_at_its_node_and_others_keep_least_cost() {
        // a(0) - b(1) - c(2) cheap; a - c direct at cost 10.
        let mut t = Tables::new(3);
        let direct = t.link(0, 2, 10);
        t.link(0, 1, 1);
        t.link(1, 2, 1);
        let mut tables = t.tables();
        let statics = [StaticRoute {
            node: NodeId(0),
            addr: Addr(2),
            link: direct,
        }];
        apply_static(&mut tables, &t.links, &statics);
        let r = t.expand(&tables);
        assert_eq!(t.path(&r, 0, Addr(2)), [0, 2]);
        // b still goes straight to c; c still returns to a through b.
        assert_eq!(t.path(&r, 1, Addr(2)), [1, 2]);
        assert_eq!(t.path(&r, 2, Addr(0)), [2, 1, 0]);
        let next = |u: NodeId, a: Addr| r[u.idx()][a.idx()].map(|e| t.to(e));
        assert_eq!(find_loop(3, &statics, next), None);
    }

    #[test]
    fn static_route_into_a_neighbour_that_routes_back_is_a_loop() {
        // a(0) - b(1) - c(2): b is told to reach c through a, a's least-cost route is b.
        let mut t = Tables::new(3);
        let ab = t.link(0, 1, 1);
        t.link(1, 2, 1);
        let mut tables = t.tables();
        let statics = [
            // A harmless route first (another destination), then the looping one.
            StaticRoute {
                node: NodeId(2),
                addr: Addr(0),
                link: LinkId(1),
            },
            StaticRoute {
                node: NodeId(1),
                addr: Addr(2),
                link: ab,
            },
        ];
        apply_static(&mut tables, &t.links, &statics);
        let r = t.expand(&tables);
        let next = |u: NodeId, a: Addr| r[u.idx()][a.idx()].map(|e| t.to(e));
        assert_eq!(
            find_loop(3, &statics, next),
            Some(RouteLoop {
                addr: Addr(2),
                cycle: vec![NodeId(1), NodeId(0)],
                route: 1,
            })
        );
    }
}
