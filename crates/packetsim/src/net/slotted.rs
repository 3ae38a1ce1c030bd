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
    /// Runs each slot `phase` after the slot's start (a slotted world does, so that what
    /// endpoints hand over at a slot's start joins that slot; `world/slotted.rs`). A port that
    /// has no use for it ignores it.
    fn set_phase(&mut self, _phase: Dur) {}
    /// The phase set ([`SlottedPort::set_phase`]): what a slot settles reaches the far end
    /// this long after the slot's start (plus the link's delay).
    fn phase(&self) -> Dur {
        Dur::ZERO
    }
    /// The port as its own type, mutably (to set up what it records).
    fn as_any_mut(&mut self) -> Option<&mut dyn Any> {
        None
    }
    /// The port as its own type (a report of its counters reads them through it).
    fn as_any(&self) -> &dyn Any;
}

/// How far into a slot a slotted world may deliver and still mean the slot's start: its cell
/// ports run 1 ns into the slot and its endpoint timers 2 ns (`world/slotted.rs`).
pub const GRID_PHASES: Dur = Dur(2);

/// The instant `now` as a slotted world means it: the start of its slot when `now` lies at
/// most [`GRID_PHASES`] into the slot, else `now` itself (an exact time off the grid).
pub fn grid_instant(now: Time, slot: Dur) -> Time {
    let into = now.as_nanos() % slot.as_nanos();
    if into <= GRID_PHASES.as_nanos() {
        Time::from_nanos(now.as_nanos() - into)
    } else {
        now
    }
}

/// The start of the slot in which something that takes `d` from `start` ends on the slot
/// grid: slot `floor(start / slot) + max(1, floor(d / slot))` (YATS's conversion, spec 1
/// §2.1: a time of `d` is `max(1, floor(d / slot))` slots).
pub fn after_slots(start: Time, d: Dur, slot: Dur) -> Time {
    let s = slot.as_nanos();
    let k = start.as_nanos() / s + (d.as_nanos() / s).max(1);
    Time::from_nanos(k * s)
}
