//! Transport endpoints, sans-IO. An endpoint is a plain struct driven by
//! [`Endpoint::on_packet`], [`Endpoint::on_timer`] and [`Endpoint::on_event`] (a [`Notice`]
//! about its surroundings: link up/down, attach/detach) and asked for its next wake-up with
//! [`Endpoint::next_timeout`]. It writes what it sends into an [`Outbox`]; it never touches
//! the event queue, the packet arena or another node. The world's agent adapter
//! (`crate::world`) moves packets between outboxes and the network and keeps one timer event
//! per endpoint at its earliest deadline.
//!
//! Layering: transport uses the kernel, [`crate::ids`], [`crate::packet`] and [`crate::app`]
//! only.

pub mod rtt;
pub mod sctp;
pub mod tcp;
pub mod udp;

use crate::ids::{LinkId, NodeId};
use crate::packet::Packet;
use packetsim_kernel::Time;

/// What an endpoint produced during one call.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Packets to send, in order. The endpoint sets src, dst, body (and ecn); the adapter
    /// fills in flow, recipient and uid, and the size from the body (except for the built-in
    /// TCP ends' answers to a delivery: `Packet::new` sized them, and their bodies are not
    /// changed after).
    pub packets: Vec<Packet>,
    /// Bytes newly handed, in order, to the receiving application during this call.
    pub delivered_bytes: u64,
}

impl Outbox {
    /// Queues a packet to send.
    #[inline]
    pub fn send(&mut self, p: Packet) {
        self.packets.push(p);
    }
    /// Empties the outbox for reuse, keeping its allocation.
    #[inline]
    pub fn clear(&mut self) {
        self.packets.clear();
        self.delivered_bytes = 0;
    }
}

/// Something that happened around an endpoint, told to it by the world through
/// [`Endpoint::on_event`] (DESIGN.md, "Kernel": link up/down, attach/detach).
///
/// When the world delivers them (the dispatch in `crate::world`):
/// - `LinkUp` / `LinkDown`: when a link's state changes (an outage starts or ends, from the
///   scenario's schedule), at the time of the change and after the link's transmitters have
///   changed state, to every endpoint at a node that is an end of that link.
/// - `Attached` / `Detached`: when the point of attachment of an endpoint's node changes (a
///   mobile host's handoff), at the time it happens, to every endpoint at that node:
///   `Detached` from the old point first, then `Attached` at the new one.
///
/// An endpoint acts on the notices it cares about (a sender may retransmit at once after a
/// handoff) and ignores the rest; every endpoint ignores them today.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A link at the endpoint's node came up.
    LinkUp {
        /// The link.
        link: LinkId,
    },
    /// A link at the endpoint's node went down.
    LinkDown {
        /// The link.
        link: LinkId,
    },
    /// The endpoint's node attached to the network at `at` (a base station or access router).
    Attached {
        /// The new point of attachment.
        at: NodeId,
    },
    /// The endpoint's node detached from its point of attachment `from`.
    Detached {
        /// The old point of attachment.
        from: NodeId,
    },
}

/// A sans-IO transport endpoint.
pub trait Endpoint {
    /// A packet addressed to this endpoint arrived at `now`.
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox);
    /// The clock reached [`Endpoint::next_timeout`] (the adapter calls this only when
    /// `next_timeout() <= now`). The endpoint handles every timer that is due.
    fn on_timer(&mut self, now: Time, out: &mut Outbox);
    /// The earliest time at which the endpoint wants `on_timer`, if any.
    fn next_timeout(&self) -> Option<Time>;
    /// The world tells the endpoint of `notice` at `now` (see [`Notice`] for when). The
    /// default ignores it: no state changes, nothing is sent.
    fn on_event(&mut self, now: Time, notice: &Notice, out: &mut Outbox) {
        let _ = (now, notice, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::packet::Body;

    /// An endpoint that implements only what it must, counting what it is driven by.
    #[derive(Debug, Default, PartialEq)]
    struct Minimal {
        packets: u32,
        timers: u32,
    }

    impl Endpoint for Minimal {
        fn on_packet(&mut self, _now: Time, _pkt: &Packet, _out: &mut Outbox) {
            self.packets += 1;
        }
        fn on_timer(&mut self, _now: Time, _out: &mut Outbox) {
            self.timers += 1;
        }
        fn next_timeout(&self) -> Option<Time> {
            None
        }
    }

    // DESIGN.md "Kernel": endpoints are driven by on_event(now, notice, out), "no-op by
    // default": every notice leaves a default endpoint and its outbox as they were.
    #[test]
    fn default_on_event_is_a_no_op() {
        let mut ep = Minimal::default();
        let mut out = Outbox::default();
        let notices = [
            Notice::LinkDown { link: LinkId(0) },
            Notice::LinkUp { link: LinkId(0) },
            Notice::Detached { from: NodeId(1) },
            Notice::Attached { at: NodeId(2) },
        ];
        for n in &notices {
            ep.on_event(Time::from_millis(5), n, &mut out);
        }
        assert_eq!(ep, Minimal::default());
        assert!(out.packets.is_empty());
        assert_eq!(out.delivered_bytes, 0);
        // It is still driven as before.
        let p = Packet::new(Addr(0), Addr(1), Body::Udp { seq: 0, payload: 1 });
        ep.on_packet(Time::from_millis(6), &p, &mut out);
        assert_eq!(ep.packets, 1);
    }
}
