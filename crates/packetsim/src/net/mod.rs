//! The network: nodes, full-duplex links and static shortest-path routing.
//!
//! - A node owns one or more addresses and forwards by destination address through a table
//!   computed at build time ([`Net::compute_routes`], hop count, ties broken by link order).
//! - An extra address may be bound to one of its node's links, an interface
//!   ([`Net::add_address`]): traffic to it then arrives over that link only, which is how a
//!   multihomed host's addresses each map to a path (spec 3 §2.5: "traffic to D0 uses path0
//!   and traffic to D1 uses path1, in both directions").
//! - A link is two [`Egress`]es, one per direction: each is a transmitter with its own queue,
//!   rate (changeable at run time), propagation delay, error model, link state and hooks
//!   (`transmitter`).
//! - Each node forwards by asking [`Net::next_hop`]: local delivery, run-time host routes,
//!   then the static table (`forward`).
//! - Node elements see packets arriving at their node and may consume, tag, redirect or send
//!   packets and change routes and links (`element`).
//!
//! Layering: uses the kernel, ids, packet and queue; knows nothing of transport protocols.

mod element;
mod forward;
mod transmitter;

pub use element::{Disposition, Element, ElementCtx, Request, Via};
pub use forward::{HostRoute, Next, NextHops};
pub use transmitter::{
    ArrivalHook, DequeueHook, Egress, ErrorModel, LinkChange, LinkStats, OutagePolicy, Started,
};

use crate::ids::{Addr, EgressId, ElementId, LinkId, NodeId};
use crate::queue::QueueDisc;
use packetsim_kernel::{Dur, Rate, Rng};
use std::collections::VecDeque;

/// A host or router.
#[derive(Debug)]
pub struct Node {
    /// The scenario's name for it.
    pub name: String,
    /// The addresses it owns; the first is its primary address.
    pub addrs: Vec<Addr>,
    /// The static table: next egress toward each address (indexed by address), `None` when
    /// unreachable or local.
    pub routes: Vec<Option<EgressId>>,
    /// Egresses leaving this node, in link order.
    pub egresses: Vec<EgressId>,
    /// Host routes installed at run time (few: searched in order).
    host_routes: Vec<HostRoute>,
    /// Addresses whose packets are handed to an element here.
    intercepts: Vec<(Addr, ElementId)>,
    /// Elements at this node, in the order they see arriving packets.
    elements: Vec<ElementId>,
    /// No host route, interception or watching element: forwarding's fast path (one load).
    plain: bool,
}

impl Node {
    /// Elements at this node that see arriving packets, in order.
    pub fn elements(&self) -> &[ElementId] {
        &self.elements
    }

    /// Whether no host route, interception or watching element is set here.
    #[inline(always)]
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    fn refresh(&mut self) {
        self.plain =
            self.host_routes.is_empty() && self.intercepts.is_empty() && self.elements.is_empty();
    }
}

/// A full-duplex link.
#[derive(Debug)]
pub struct Link {
    /// The scenario's name for it.
    pub name: String,
    /// One end.
    pub a: NodeId,
    /// The other end.
    pub b: NodeId,
    /// The a→b direction.
    pub ab: EgressId,
    /// The b→a direction.
    pub ba: EgressId,
}

/// Everything needed to build one direction of a link.
#[derive(Debug)]
pub struct DirectionParams {
    /// Transmission rate.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// The queueing discipline.
    pub queue: QueueDisc,
    /// The error model of this direction.
    pub errors: ErrorModel,
}

/// Nodes, links and routes.
#[derive(Debug, Default)]
pub struct Net {
    /// Nodes, indexed by [`NodeId`].
    pub nodes: Vec<Node>,
    /// Links, indexed by [`LinkId`].
    pub links: Vec<Link>,
    /// Link directions, indexed by [`EgressId`].
    pub egresses: Vec<Egress>,
    /// The node owning each address, indexed by [`Addr`].
    pub addr_owner: Vec<NodeId>,
    /// The link each address is bound to (its interface), if any, indexed by [`Addr`].
    pub addr_link: Vec<Option<LinkId>>,
}

impl Net {
    /// Adds a node with one address and returns its id.
    pub fn add_node(&mut self, name: &str) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        let addr = Addr(self.addr_owner.len() as u32);
        self.addr_owner.push(id);
        self.addr_link.push(None);
        self.nodes.push(Node {
            name: name.to_string(),
            addrs: vec![addr],
            routes: Vec::new(),
            egresses: Vec::new(),
            host_routes: Vec::new(),
            intercepts: Vec::new(),
            elements: Vec::new(),
            plain: true,
        });
        id
    }

    /// Gives `node` another address, bound to `link` (which must attach to `node`) when given:
    /// packets to it are routed so that they arrive over that link. Call before
    /// [`Net::compute_routes`].
    pub fn add_address(&mut self, node: NodeId, link: Option<LinkId>) -> Addr {
        if let Some(l) = link {
            let l = &self.links[l.idx()];
            assert!(
                l.a == node || l.b == node,
                "an interface's link must attach to its node"
            );
        }
        let addr = Addr(self.addr_owner.len() as u32);
        self.addr_owner.push(node);
        self.addr_link.push(link);
        self.nodes[node.idx()].addrs.push(addr);
        addr
    }

    /// The primary address of `node`.
    pub fn addr_of(&self, node: NodeId) -> Addr {
        self.nodes[node.idx()].addrs[0]
    }

    /// Adds a full-duplex link between `a` and `b`. `seed` is the run seed: each direction
    /// draws its errors from its own stream named `links.<name>.<from>-><to>`.
    pub fn add_link(
        &mut self,
        name: &str,
        a: NodeId,
        b: NodeId,
        ab: DirectionParams,
        ba: DirectionParams,
        seed: u64,
    ) -> LinkId {
        let id = LinkId(self.links.len() as u32);
        let mut mk = |from: NodeId, to: NodeId, p: DirectionParams| {
            let eid = EgressId(self.egresses.len() as u32);
            let ename = format!(
                "{}:{}->{}",
                name,
                self.nodes[from.idx()].name,
                self.nodes[to.idx()].name
            );
            let rng = Rng::for_component(seed, &format!("links.{ename}"));
            self.egresses.push(Egress::new(ename, id, from, to, p, rng));
            self.nodes[from.idx()].egresses.push(eid);
            eid
        };
        let e_ab = mk(a, b, ab);
        let e_ba = mk(b, a, ba);
        self.links.push(Link {
            name: name.to_string(),
            a,
            b,
            ab: e_ab,
            ba: e_ba,
        });
        id
    }

    /// Computes every node's forwarding table: for each address, the first egress of a
    /// shortest path (in hops) to the address's owner. Among equal-hop paths the one a
    /// breadth-first search from the destination finds first wins, visiting links in scenario
    /// order, so the result depends only on the scenario.
    pub fn compute_routes(&mut self) {
        let n_nodes = self.nodes.len();
        let n_addrs = self.addr_owner.len();
        for node in &mut self.nodes {
            node.routes = vec![None; n_addrs];
        }
        // Breadth-first search from each destination node over reversed edges: the egress by
        // which a node is first reached toward the destination is its next hop.
        let mut next_hop: Vec<Option<EgressId>> = vec![None; n_nodes];
        let mut seen = vec![false; n_nodes];
        let mut frontier = VecDeque::new();
        // incoming[v]: every (u, egress u -> v), in link order.
        let mut incoming: Vec<Vec<(NodeId, EgressId)>> = vec![Vec::new(); n_nodes];
        for link in &self.links {
            incoming[link.b.idx()].push((link.a, link.ab));
            incoming[link.a.idx()].push((link.b, link.ba));
        }
        for dest in 0..n_nodes {
            // One search for the node's unbound addresses, one per interface address.
            let mut searches: Vec<Option<LinkId>> = vec![None];
            for (addr, owner) in self.addr_owner.iter().enumerate() {
                if owner.idx() == dest {
                    if let Some(l) = self.addr_link[addr] {
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
                        // Bound to link l: the only last hop is the neighbour across l, and
                        // no path passes through dest itself.
                        let link = &self.links[l.idx()];
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
                    // Every egress u -> v makes u one hop closer to dest.
                    for &(u, e) in &incoming[v] {
                        if !seen[u.idx()] {
                            seen[u.idx()] = true;
                            next_hop[u.idx()] = Some(e);
                            frontier.push_back(u.idx());
                        }
                    }
                }
                for (addr, owner) in self.addr_owner.iter().enumerate() {
                    if owner.idx() == dest && self.addr_link[addr] == via {
                        for (u, node) in self.nodes.iter_mut().enumerate() {
                            node.routes[addr] = if u == dest { None } else { next_hop[u] };
                        }
                    }
                }
            }
        }
    }

    /// Whether `node` can reach `addr` (or owns it).
    pub fn reachable(&self, node: NodeId, addr: Addr) -> bool {
        self.addr_owner[addr.0 as usize] == node
            || self.nodes[node.idx()].routes[addr.0 as usize].is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{AnyAdmission, DropTail, QueueLimit};

    fn dir() -> DirectionParams {
        DirectionParams {
            rate: Rate::mbps(10),
            delay: Dur::from_millis(1),
            queue: QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(
                10,
            )))),
            errors: ErrorModel::default(),
        }
    }

    #[test]
    fn routes_follow_the_fewest_hops() {
        // a - b - c - d, plus a shortcut a - d.
        let mut net = Net::default();
        let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| net.add_node(n));
        net.add_link("ab", a, b, dir(), dir(), 1);
        net.add_link("bc", b, c, dir(), dir(), 1);
        net.add_link("cd", c, d, dir(), dir(), 1);
        let ad = net.add_link("ad", a, d, dir(), dir(), 1);
        net.compute_routes();
        let da = net.addr_of(d);
        assert_eq!(
            net.nodes[a.idx()].routes[da.0 as usize],
            Some(net.links[ad.idx()].ab)
        );
        // c reaches a in two hops either way; the search from a reaches b (link ab) before d
        // (link ad), so c goes through b.
        let ca = net.nodes[c.idx()].routes[net.addr_of(a).0 as usize].unwrap();
        assert_eq!(net.egresses[ca.idx()].to, b);
        assert!(net.reachable(b, da));
        assert_eq!(net.nodes[d.idx()].routes[da.0 as usize], None, "local");
    }

    #[test]
    fn interface_addresses_arrive_over_their_own_link() {
        // Two disjoint two-hop paths s - r0 - d and s - r1 - d (spec 3's topology, shortened).
        // Each host has an address bound to each path; traffic to d1 must take path 1 even
        // from s, whose first link (toward r0) is listed first.
        let mut net = Net::default();
        let [s, r0, r1, d] = ["s", "r0", "r1", "d"].map(|n| net.add_node(n));
        let s_r0 = net.add_link("s_r0", s, r0, dir(), dir(), 1);
        let r0_d = net.add_link("r0_d", r0, d, dir(), dir(), 1);
        let s_r1 = net.add_link("s_r1", s, r1, dir(), dir(), 1);
        let r1_d = net.add_link("r1_d", r1, d, dir(), dir(), 1);
        let s1 = net.add_address(s, Some(s_r1));
        let d0 = net.add_address(d, Some(r0_d));
        let d1 = net.add_address(d, Some(r1_d));
        net.compute_routes();
        let hop = |n: NodeId, a: Addr| net.nodes[n.idx()].routes[a.0 as usize];
        assert_eq!(hop(s, d1), Some(net.links[s_r1.idx()].ab));
        assert_eq!(hop(s, d0), Some(net.links[s_r0.idx()].ab));
        assert_eq!(hop(r1, d1), Some(net.links[r1_d.idx()].ab));
        // r0 cannot reach d1 through d: it goes back through s and path 1.
        assert_eq!(hop(r0, d1), Some(net.links[s_r0.idx()].ba));
        // Replies to s1 leave d over path 1; the unbound primary address of s is reached
        // the ordinary way (first link in order).
        assert_eq!(hop(d, s1), Some(net.links[r1_d.idx()].ba));
        assert_eq!(hop(d, net.addr_of(s)), Some(net.links[r0_d.idx()].ba));
        assert_eq!(hop(d, d1), None, "local");
        assert_eq!(net.nodes[d.idx()].addrs, vec![net.addr_of(d), d0, d1]);
    }

    #[test]
    fn unreachable_destinations_have_no_route() {
        let mut net = Net::default();
        let a = net.add_node("a");
        let b = net.add_node("b");
        net.compute_routes();
        assert!(!net.reachable(a, net.addr_of(b)));
    }
}
