//! Forwarding: where a packet at a node goes next ([`Next`]).
//!
//! Each node answers from three sources, in this order:
//!
//! 1. **Local delivery**: the node owns the destination address ([`Next::Deliver`]).
//! 2. **Host routes** installed at run time ([`HostRoute`]): one destination address, one or
//!    more live next hops (several: a copy down each, Cellular IP's bicast), an optional
//!    expiry. A route is live while `now < expires`; an expired one is removed when a packet
//!    finds it and forwarding goes on as if it had never been installed. Installing a route
//!    for a destination that has one replaces it.
//! 3. **The static table** computed at build (`Node::routes`): least-cost next egress per
//!    address, or none ([`Next::Drop`] with [`DropReason::NoRoute`]). Mobility protocols
//!    clear the static entries of a mobile's address ([`Net::clear_static_route`]) so that
//!    only their host routes lead to it.
//!
//! A node may also hand packets for an address to one of its elements
//! ([`Net::intercept`], [`Next::Element`]), as a Mobile IP home agent takes packets for a
//! mobile that is away. Elements that only watch or tag passing packets do not need this:
//! every element at a node sees every packet arriving there first (see `element`).
//!
//! Forwarding costs nothing extra on the fast path when no host route, interception or element
//! is set at a node: one emptiness check each.

use super::{Net, Node};
use crate::ids::{Addr, EgressId, ElementId, NodeId};
use crate::queue::DropReason;
use packetsim_kernel::Time;

/// Up to [`NextHops::CAPACITY`] egresses, by value (no allocation per packet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextHops {
    len: u8,
    hops: [EgressId; NextHops::CAPACITY],
}

impl NextHops {
    /// Most next hops one route may have.
    pub const CAPACITY: usize = 4;

    /// One next hop.
    pub fn one(e: EgressId) -> NextHops {
        NextHops {
            len: 1,
            hops: [e; Self::CAPACITY],
        }
    }

    /// Several next hops, in order; `None` if empty or more than [`NextHops::CAPACITY`].
    pub fn many(es: &[EgressId]) -> Option<NextHops> {
        if es.is_empty() || es.len() > Self::CAPACITY {
            return None;
        }
        let mut hops = [es[0]; Self::CAPACITY];
        hops[..es.len()].copy_from_slice(es);
        Some(NextHops {
            len: es.len() as u8,
            hops,
        })
    }

    /// The next hops, in order.
    pub fn as_slice(&self) -> &[EgressId] {
        &self.hops[..self.len as usize]
    }
}

/// A host-specific route installed at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostRoute {
    /// The destination address.
    pub dst: Addr,
    /// Where packets to it go (a copy down each).
    pub via: NextHops,
    /// When the route stops being live, if ever.
    pub expires: Option<Time>,
}

/// Where a packet at a node goes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Down one egress.
    Egress(EgressId),
    /// A copy down each of these egresses.
    Many(NextHops),
    /// To the endpoint it is addressed to, at this node.
    Deliver,
    /// To an element at this node.
    Element(ElementId),
    /// Down one egress of equal-cost group `.0` ([`super::Ecmp`]), picked by the packet's
    /// flow hash or at random ([`Net::spread`]).
    Spread(u32),
    /// Nowhere: dropped and counted for this reason.
    Drop(DropReason),
}

impl Net {
    /// Where a packet for `dst` at `node` goes at `now` (see the module doc for the order).
    #[inline(always)]
    pub fn next_hop(&mut self, now: Time, node: NodeId, dst: Addr) -> Next {
        if self.is_local(node, dst) {
            return Next::Deliver;
        }
        let n = &self.nodes[node.idx()];
        if n.plain {
            return self.next_hop_remote(n, dst);
        }
        self.next_hop_special(now, node, dst)
    }

    /// Whether `dst` is an address of `node` (the first question [`Net::next_hop`] asks).
    #[inline(always)]
    pub fn is_local(&self, node: NodeId, dst: Addr) -> bool {
        self.addr_owner[dst.0 as usize] == node
    }

    /// [`Net::next_hop`] at plain node `n` (no interceptions, host routes or elements) for a
    /// `dst` that is not its own: the caller has looked the node up and asked
    /// [`Net::is_local`] already.
    #[inline(always)]
    pub fn next_hop_remote(&self, n: &Node, dst: Addr) -> Next {
        debug_assert!(n.plain);
        match n.routes.get_remote(dst) {
            Some(e) => Next::Egress(e),
            None => Next::Drop(DropReason::NoRoute),
        }
    }

    /// [`Net::next_hop`] at a node with interceptions or host routes.
    #[inline(never)]
    fn next_hop_special(&mut self, now: Time, node: NodeId, dst: Addr) -> Next {
        let n = &self.nodes[node.idx()];
        if let Some(&(_, el)) = n.extra().intercepts.iter().find(|(a, _)| *a == dst) {
            return Next::Element(el);
        }
        self.next_hop_routed(now, node, dst)
    }

    /// Where a packet for `dst` at `node` goes by the routes alone: host routes, then the
    /// static table (no local delivery, no interception).
    pub fn next_hop_routed(&mut self, now: Time, node: NodeId, dst: Addr) -> Next {
        let n = &mut self.nodes[node.idx()];
        if let Some(i) = n.extra().host_routes.iter().position(|r| r.dst == dst) {
            let r = n.extra().host_routes[i];
            if r.expires.is_some_and(|t| now >= t) {
                n.extra_mut().host_routes.remove(i);
                n.refresh();
            } else if r.via.len == 1 {
                return Next::Egress(r.via.hops[0]);
            } else {
                return Next::Many(r.via);
            }
        }
        if n.multipath {
            if let Some(g) = self.ecmp.as_deref().and_then(|e| e.group(node, dst)) {
                return Next::Spread(g);
            }
        }
        match n.routes.get(dst) {
            Some(e) => Next::Egress(e),
            None => Next::Drop(DropReason::NoRoute),
        }
    }

    /// The egress packet `p` at `node` takes from equal-cost group `g` ([`Next::Spread`]).
    pub fn spread(&mut self, node: NodeId, g: u32, p: &crate::packet::Packet) -> EgressId {
        self.ecmp
            .as_deref_mut()
            .expect("a group comes from the ECMP tables")
            .pick(node, g, p)
    }

    /// Installs (or replaces) a host route at `node`. Every next hop must leave `node`.
    pub fn install_route(&mut self, node: NodeId, route: HostRoute) {
        let n = &mut self.nodes[node.idx()];
        debug_assert!(
            route.via.as_slice().iter().all(|e| n.egresses.contains(e)),
            "a host route at {} leaves by an egress of another node",
            n.name
        );
        let host_routes = &mut n.extra_mut().host_routes;
        match host_routes.iter_mut().find(|r| r.dst == route.dst) {
            Some(r) => *r = route,
            None => host_routes.push(route),
        }
        n.refresh();
    }

    /// Removes the host route for `dst` at `node`, if any; returns it.
    pub fn remove_route(&mut self, node: NodeId, dst: Addr) -> Option<HostRoute> {
        let n = &mut self.nodes[node.idx()];
        let i = n.extra().host_routes.iter().position(|r| r.dst == dst)?;
        let r = n.extra_mut().host_routes.remove(i);
        n.refresh();
        Some(r)
    }

    /// The host route for `dst` at `node`, live or not yet found expired.
    pub fn host_route(&self, node: NodeId, dst: Addr) -> Option<&HostRoute> {
        self.nodes[node.idx()]
            .extra()
            .host_routes
            .iter()
            .find(|r| r.dst == dst)
    }

    /// Forgets the static route to `dst` at `node` (a mobile's address: only host routes lead
    /// to it).
    pub fn clear_static_route(&mut self, node: NodeId, dst: Addr) {
        self.nodes[node.idx()].routes.set(dst, None);
    }

    /// Hands every packet for `dst` arriving at `node` (and not owned by it) to `element`.
    pub fn intercept(&mut self, node: NodeId, dst: Addr, element: ElementId) {
        let n = &mut self.nodes[node.idx()];
        let x = n.extra_mut();
        x.intercepts.retain(|(a, _)| *a != dst);
        x.intercepts.push((dst, element));
        n.refresh();
    }

    /// Stops handing packets for `dst` at `node` to an element.
    pub fn release(&mut self, node: NodeId, dst: Addr) {
        let n = &mut self.nodes[node.idx()];
        if let Some(x) = n.extra.as_deref_mut() {
            x.intercepts.retain(|(a, _)| *a != dst);
        }
        n.refresh();
    }

    /// Shows every packet arriving at `node` over a link to `element` (after the elements
    /// added before it).
    pub fn watch(&mut self, node: NodeId, element: ElementId) {
        let n = &mut self.nodes[node.idx()];
        n.extra_mut().elements.push(element);
        n.refresh();
    }
}
