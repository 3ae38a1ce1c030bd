//! Transport endpoints, sans-IO. An endpoint is a plain struct driven by
//! [`Endpoint::on_packet`] and [`Endpoint::on_timer`] and asked for its next wake-up with
//! [`Endpoint::next_timeout`]. It writes what it sends into an [`Outbox`]; it never touches
//! the event queue, the packet arena or another node. The world's agent adapter
//! (`crate::world`) moves packets between outboxes and the network and keeps one timer event
//! per endpoint at its earliest deadline.
//!
//! Layering: transport uses the kernel, [`crate::ids`] and [`crate::packet`] only.

pub mod rtt;
pub mod sctp;
pub mod tcp;
pub mod udp;

use crate::packet::Packet;
use packetsim_kernel::Time;

/// What an endpoint produced during one call.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Packets to send, in order. The endpoint sets src, dst, body (and ecn); the adapter
    /// fills in flow, recipient, size and uid.
    pub packets: Vec<Packet>,
    /// Bytes newly handed, in order, to the receiving application during this call.
    pub delivered_bytes: u64,
}

impl Outbox {
    /// Queues a packet to send.
    pub fn send(&mut self, p: Packet) {
        self.packets.push(p);
    }
    /// Empties the outbox for reuse, keeping its allocation.
    pub fn clear(&mut self) {
        self.packets.clear();
        self.delivered_bytes = 0;
    }
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
}
