//! The network: nodes, full-duplex links and static least-cost routing.
//!
//! - A node owns one or more addresses and forwards by destination address through a table
//!   computed at build time ([`Net::compute_routes`]: least total link cost, default 1 per
//!   link, so hop count; ties broken by search order, links in scenario order; static routes
//!   win at their node; the rules are in [`routing`]).
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
//!   packets and change routes and links (`element`); per-packet processing at a host is
//!   one (`processing`, spec 1 §2.5-2.6).
//!
//! Layering: uses the kernel, ids, packet and queue; knows nothing of transport protocols.

pub mod ecmp;
mod element;
mod forward;
pub mod processing;
pub mod routing;
mod slotted;
mod transmitter;

pub use ecmp::{Ecmp, EcmpMode};
pub use element::{Disposition, Element, ElementCtx, Request, Via};
pub use forward::{HostRoute, Next, NextHops};
pub use routing::{RouteLoop, RouteTable, StaticRoute, DEFAULT_COST};
pub use slotted::{Settled, SlottedPort};
pub use transmitter::{
    ArrivalHook, DequeueHook, Egress, ErrorModel, LinkChange, LinkStats, LossPosition,
    OutagePolicy, Started, TransmitterMode,
};

use crate::ids::{Addr, EgressId, ElementId, LinkId, NodeId};
use crate::queue::QueueDisc;
use packetsim_kernel::{Dur, Rate, Rng};

/// A host or router.
#[derive(Debug)]
pub struct Node {
    /// The scenario's name for it.
    pub name: String,
    /// The addresses it owns; the first is its primary address.
    pub addrs: Vec<Addr>,
    /// The static table: next egress toward each address (indexed by address), `None` when
    /// unreachable or local.
    pub routes: RouteTable,
    /// Egresses leaving this node, in link order.
    pub egresses: Vec<EgressId>,
    /// Host routes, interceptions and elements, once any is set (most nodes have none).
    extra: Option<Box<NodeExtras>>,
    /// No host route, interception or watching element: forwarding's fast path (one load).
    plain: bool,
    /// Equal-cost groups at this node ([`Net::enable_ecmp`]): off the fast path.
    multipath: bool,
}

/// What a node may have besides its routes: boxed in [`Node`], which most nodes leave empty.
#[derive(Debug, Default)]
pub(crate) struct NodeExtras {
    /// Host routes installed at run time (few: searched in order).
    pub(crate) host_routes: Vec<HostRoute>,
    /// Addresses whose packets are handed to an element here.
    pub(crate) intercepts: Vec<(Addr, ElementId)>,
    /// Elements at this node, in the order they see arriving packets.
    pub(crate) elements: Vec<ElementId>,
}

/// The extras of a node that has none.
static NO_EXTRAS: NodeExtras = NodeExtras {
    host_routes: Vec::new(),
    intercepts: Vec::new(),
    elements: Vec::new(),
};

impl Node {
    /// Elements at this node that see arriving packets, in order.
    pub fn elements(&self) -> &[ElementId] {
        &self.extra().elements
    }

    /// Host routes, interceptions and elements.
    #[inline]
    pub(crate) fn extra(&self) -> &NodeExtras {
        self.extra.as_deref().unwrap_or(&NO_EXTRAS)
    }

    /// Host routes, interceptions and elements, to change them.
    pub(crate) fn extra_mut(&mut self) -> &mut NodeExtras {
        self.extra.get_or_insert_with(Default::default)
    }

    /// Whether no host route, interception or watching element is set here.
    #[inline(always)]
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    fn refresh(&mut self) {
        let x = self.extra();
        self.plain = x.host_routes.is_empty()
            && x.intercepts.is_empty()
            && x.elements.is_empty()
            && !self.multipath;
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
    /// Routing cost of the a→b direction, positive ([`DEFAULT_COST`] unless set).
    pub cost: u32,
    /// Routing cost of the b→a direction, positive (equal to `cost` unless set apart).
    pub cost_ba: u32,
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
    /// Routes fixed by the scenario, applied over the computed ones in this order.
    pub static_routes: Vec<StaticRoute>,
    /// Equal-cost multipath groups, when enabled ([`Net::enable_ecmp`]).
    pub ecmp: Option<Box<Ecmp>>,
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
            routes: RouteTable::default(),
            egresses: Vec::new(),
            extra: None,
            plain: true,
            multipath: false,
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
            let seed = Rng::component_seed(seed, &format!("links.{ename}"));
            self.egresses
                .push(Egress::new(ename, id, from, to, p, seed));
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
            cost: DEFAULT_COST,
            cost_ba: DEFAULT_COST,
        });
        id
    }

    /// Sets the cost of `link` (both directions) for least-cost routing; positive. Links
    /// cost [`DEFAULT_COST`] (1) until set. Call before [`Net::compute_routes`].
    pub fn set_cost(&mut self, link: LinkId, cost: u32) {
        assert!(cost >= 1, "a link's cost is positive");
        let l = &mut self.links[link.idx()];
        l.cost = cost;
        l.cost_ba = cost;
    }

    /// Sets the cost of `link`'s b→a direction only (after [`Net::set_cost`], which sets
    /// both); positive.
    pub fn set_cost_ba(&mut self, link: LinkId, cost: u32) {
        assert!(cost >= 1, "a link's cost is positive");
        self.links[link.idx()].cost_ba = cost;
    }

    /// Fixes `node`'s route to `addr`: over `link`, which must attach to `node`. It replaces
    /// the computed route at `node` only (see [`routing`]). Call before
    /// [`Net::compute_routes`].
    pub fn add_static_route(&mut self, node: NodeId, addr: Addr, link: LinkId) {
        let l = &self.links[link.idx()];
        assert!(
            l.a == node || l.b == node,
            "a static route leaves over one of its node's links"
        );
        self.static_routes.push(StaticRoute { node, addr, link });
    }

    /// Computes every node's forwarding table: for each address, the first egress of a
    /// least-cost path to the address's owner (ties as [`routing`] documents: at unit costs,
    /// breadth-first order visiting links in scenario order), then applies the static routes.
    pub fn compute_routes(&mut self) {
        let mut routes = routing::least_cost(
            self.nodes.len(),
            &self.links,
            &self.addr_owner,
            &self.addr_link,
        );
        routing::apply_static(&mut routes, &self.links, &self.static_routes);
        for (node, table) in self.nodes.iter_mut().zip(routes) {
            node.routes = table;
        }
    }

    /// Enables equal-cost multipath forwarding (`ecmp`): computes every node's groups of
    /// equal-cost next hops, with `seed` the run seed (the hash salt and the spraying stream).
    /// Call after [`Net::compute_routes`]; static routes keep their single next hop. With
    /// [`EcmpMode::Off`] nothing changes.
    pub fn enable_ecmp(&mut self, mode: EcmpMode, seed: u64) {
        if mode == EcmpMode::Off {
            return;
        }
        let mut e = ecmp::groups(
            self.nodes.len(),
            &self.links,
            &self.addr_owner,
            &self.addr_link,
            mode,
            seed,
        );
        for r in &self.static_routes {
            e.clear(r.node, r.addr);
        }
        for (i, n) in self.nodes.iter_mut().enumerate() {
            n.multipath = e.has_groups(NodeId(i as u32));
            n.refresh();
        }
        self.ecmp = Some(Box::new(e));
    }

    /// A forwarding loop created by the static routes, if any (after
    /// [`Net::compute_routes`]); its `route` indexes [`Net::static_routes`].
    pub fn find_loop(&self) -> Option<RouteLoop> {
        routing::find_loop(self.nodes.len(), &self.static_routes, |u, a| {
            self.nodes[u.idx()]
                .routes
                .get(a)
                .map(|e| self.egresses[e.idx()].to)
        })
    }

    /// Whether `node` can reach `addr` (or owns it).
    pub fn reachable(&self, node: NodeId, addr: Addr) -> bool {
        self.addr_owner[addr.0 as usize] == node
            || self.nodes[node.idx()].routes.get(addr).is_some()
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
            net.nodes[a.idx()].routes.get(da),
            Some(net.links[ad.idx()].ab)
        );
        // c reaches a in two hops either way; the search from a reaches b (link ab) before d
        // (link ad), so c goes through b.
        let ca = net.nodes[c.idx()].routes.get(net.addr_of(a)).unwrap();
        assert_eq!(net.egresses[ca.idx()].to, b);
        assert!(net.reachable(b, da));
        assert_eq!(net.nodes[d.idx()].routes.get(da), None, "local");
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
        let hop = |n: NodeId, a: Addr| net.nodes[n.idx()].routes.get(a);
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
