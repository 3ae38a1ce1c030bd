//! Node elements: components at a node that belong to no flow (a base station's link layer,
//! a Cellular IP or HAWAII router agent, a Mobile IP home agent, an AAL5 adapter).
//!
//! An element is sans-IO, like a transport endpoint: the world calls it and it answers through
//! its return value and an [`ElementCtx`] of requests, which the world carries out after the
//! call, in order. It never touches the event queue, the packet arena or another component.
//!
//! - [`Element::on_packet`]: every packet arriving at the element's node over a link (and
//!   every packet handed to it by an interception, [`crate::net::Next::Element`]) is shown to
//!   the node's elements in the order they were added, before forwarding. Each may tag it
//!   (it gets `&mut Packet`), let it pass ([`Disposition::Pass`]), consume it
//!   ([`Disposition::Consume`]: its own control packet, or a packet it keeps a copy of to
//!   re-send later), or send it on somewhere else ([`Disposition::Redirect`]).
//! - [`Element::on_timer`] when the clock reaches [`Element::next_timeout`] (one wake-up per
//!   element, at its earliest deadline, as for endpoints).
//! - Requests ([`ElementCtx`]): send a new control packet (real bytes, taking link time; see
//!   [`crate::packet::ControlHeader`]), re-send a packet it kept, install or remove host routes
//!   ([`crate::net::HostRoute`]), change a link direction ([`LinkChange`]).
//!
//! Elements are trait objects (`Box<dyn Element>`), unlike endpoints and queue disciplines
//! (enums, STYLE habit 2): their kinds live in layers after `net` (atm, wireless, mobility) and
//! in tests, and there are a handful per run, called once per packet at their own node only,
//! so the open set is worth one indirect call where an element exists and nothing elsewhere.
//!
//! Packet books: a consumed packet counts as taken by an element; a sent or re-sent one as
//! created; copies made by [`crate::net::Next::Many`] as copied. The world's conservation
//! identity is `created + copied = delivered + consumed + dropped + in flight`.

use super::{HostRoute, LinkChange, Next};
use crate::ids::{Addr, EgressId, NodeId};
use crate::packet::Packet;
use crate::transport::Notice;
use packetsim_kernel::Time;
use std::any::Any;
use std::fmt;

/// What an element decided for a packet it was shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// Not mine: forward it as usual (later elements at the node see it first).
    Pass,
    /// Taken: the packet leaves the network here.
    Consume,
    /// Send it this way instead of the node's forwarding answer.
    Redirect(Next),
}

/// How a packet an element sends leaves its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// By the node's forwarding (host routes, then the static table).
    Route,
    /// Down this egress of the node, whatever the routes say (a message to a neighbour).
    Egress(EgressId),
    /// By the routes alone, past this node's interceptions and local delivery (a packet an
    /// interceptor held and now lets go: `net::processing`).
    Onward,
}

/// Something an element asks the world to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Send `pkt` from the element's node. `fresh`: a new packet (the world gives it a uid
    /// and counts it created); otherwise a packet the element kept, sent on unchanged.
    Send {
        /// The packet.
        pkt: Packet,
        /// How it leaves.
        via: Via,
        /// Whether it is new.
        fresh: bool,
    },
    /// Install or replace a host route at a node.
    InstallRoute {
        /// Where.
        node: NodeId,
        /// The route.
        route: HostRoute,
    },
    /// Remove the host route to `dst` at `node`.
    RemoveRoute {
        /// Where.
        node: NodeId,
        /// Its destination.
        dst: Addr,
    },
    /// Change a link direction now.
    Link {
        /// Which direction.
        egress: EgressId,
        /// The change.
        change: LinkChange,
    },
    /// A packet the element consumed earlier is dropped (an 802.11 MAC gave it up): the
    /// world counts it as dropped for `reason` instead of consumed, and traces the drop on
    /// direction `egress` (the one it arrived over).
    Drop {
        /// The packet.
        pkt: Packet,
        /// The direction it is traced on.
        egress: EgressId,
        /// Why.
        reason: crate::queue::DropReason,
    },
    /// A mobile's handoff decision (a wireless channel's beacon rule), for the event trace:
    /// the mobile's node, the base station's node it left (`None`: detached before), the one
    /// it joined (`None`: it lost `from`).
    Handoff {
        /// The mobile.
        mobile: NodeId,
        /// The base station left.
        from: Option<NodeId>,
        /// The base station joined.
        to: Option<NodeId>,
    },
    /// Tell the endpoints at `node` of `notice` (a mobile attached or detached).
    Notify {
        /// Where.
        node: NodeId,
        /// What.
        notice: Notice,
    },
}

/// Requests an element makes during one call, carried out by the world after it returns.
#[derive(Debug, Default)]
pub struct ElementCtx {
    /// In order.
    pub requests: Vec<Request>,
}

impl ElementCtx {
    /// Sends a new packet (a control message) from the element's node.
    pub fn send(&mut self, pkt: Packet, via: Via) {
        self.requests.push(Request::Send {
            pkt,
            via,
            fresh: true,
        });
    }
    /// Sends on a packet the element kept (same uid, flow and recipient).
    pub fn resend(&mut self, pkt: Packet, via: Via) {
        self.requests.push(Request::Send {
            pkt,
            via,
            fresh: false,
        });
    }
    /// Installs or replaces a host route at `node`.
    pub fn install_route(&mut self, node: NodeId, route: HostRoute) {
        self.requests.push(Request::InstallRoute { node, route });
    }
    /// Removes the host route to `dst` at `node`.
    pub fn remove_route(&mut self, node: NodeId, dst: Addr) {
        self.requests.push(Request::RemoveRoute { node, dst });
    }
    /// Tells the endpoints at `node` of `notice`.
    pub fn notify(&mut self, node: NodeId, notice: Notice) {
        self.requests.push(Request::Notify { node, notice });
    }
    /// Changes a link direction now.
    pub fn link(&mut self, egress: EgressId, change: LinkChange) {
        self.requests.push(Request::Link { egress, change });
    }
    /// Records a handoff decision in the event trace (see [`Request::Handoff`]).
    pub fn handoff(&mut self, mobile: NodeId, from: Option<NodeId>, to: Option<NodeId>) {
        self.requests.push(Request::Handoff { mobile, from, to });
    }
    /// Drops `pkt`, a packet this element consumed when it arrived over `egress`, for
    /// `reason` (see [`Request::Drop`]).
    pub fn drop(&mut self, pkt: Packet, egress: EgressId, reason: crate::queue::DropReason) {
        self.requests.push(Request::Drop {
            pkt,
            egress,
            reason,
        });
    }
}

/// A component at a node that sees the packets arriving there (see the module doc).
pub trait Element: fmt::Debug {
    /// `pkt` arrived at the element's node at `now`, over `via` (`None`: handed over by an
    /// interception at this node). By default the element lets it pass (an element that only
    /// has timers, such as a rate process, need not see packets).
    fn on_packet(
        &mut self,
        _now: Time,
        _via: Option<EgressId>,
        _pkt: &mut Packet,
        _ctx: &mut ElementCtx,
    ) -> Disposition {
        Disposition::Pass
    }

    /// The clock reached [`Element::next_timeout`]; handle every timer that is due.
    fn on_timer(&mut self, _now: Time, _ctx: &mut ElementCtx) {}

    /// The earliest time the element wants [`Element::on_timer`], if any.
    fn next_timeout(&self) -> Option<Time> {
        None
    }

    /// For reports and tests: the concrete element.
    fn as_any(&self) -> &dyn Any;

    /// For the builder, to add to an element already at a node: the concrete element, if it
    /// allows that (by default not).
    fn as_any_mut(&mut self) -> Option<&mut dyn Any> {
        None
    }
}
