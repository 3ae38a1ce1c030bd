//! A slotted transmitter: the seam through which a link direction hands its packets to a
//! port that sends on a slot grid (an ATM cell switch output, `atm::port::CellPort`, is the
//! one implementation), so that `net` needs nothing from the layers above it.
//!
//! A direction in [`TransmitterMode::Slotted`](super::TransmitterMode::Slotted) takes every
//! packet offered to it ([`SlottedPort::offer`]); the port segments it, decides slot by slot
//! what leaves, and reports each packet's fate once it is known ([`SlottedPort::take_settled`]).
//! The world drives the port with one TxDone per busy slot ([`SlottedPort::next_tick`]).

use crate::ids::FlowId;
use packetsim_kernel::{Dur, Time};
use std::any::Any;

/// What became of a packet offered to a slotted port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Intact: its last unit (cell) left the port in slot `slot`.
    Sent {
        /// The packet's arena id.
        pkt: u32,
        /// The slot its last unit left in.
        slot: u64,
        /// The units (cells) it took on the wire.
        cells: u32,
    },
    /// A unit of it was dropped: the receiver discards the packet.
    Lost {
        /// The packet's arena id.
        pkt: u32,
    },
}

/// A transmitter that sends on a slot grid (see the module doc).
pub trait SlottedPort: std::fmt::Debug + Send {
    /// The slot's length.
    fn slot(&self) -> Dur;
    /// Takes packet `pkt` (arena id) of `flow`, `size` bytes, arriving at `now`.
    fn offer(&mut self, now: Time, pkt: u32, flow: FlowId, size: u32);
    /// Runs the slots up to `now`.
    fn advance(&mut self, now: Time);
    /// When the world should next drive the port (the next busy slot), if any.
    fn next_tick(&mut self) -> Option<Time>;
    /// Moves the packets settled since the last call into `into`.
    fn take_settled(&mut self, into: &mut Vec<Settled>);
    /// Packets offered and not yet settled.
    fn pending(&self) -> u64;
    /// Their bytes.
    fn pending_bytes(&self) -> u64;
    /// The fraction of the slots in `[0, end)` in which the port sent.
    fn load(&self, end: Time) -> f64;
    /// The port as its own type (a report of its counters reads them through it).
    fn as_any(&self) -> &dyn Any;
}
