//! Per-packet processing at a host (spec 1 §2.5-2.6, YATS `PROCTIM`): a first-in-first-out
//! server per endpoint that holds each packet for a processing time before it goes on. As a
//! node element, so that a run without it pays nothing: the world's per-packet path changes
//! only at nodes that have one (a node with an element or an interception is not "plain").
//!
//! One [`Processing`] element per node holds the node's servers, each bound to one endpoint
//! (the packet's recipient, `Packet::to`) and one side:
//! - [`Side::Outgoing`], the sending host's server: packets an endpoint at the node sends
//!   toward the bound recipient are handed to the element by an interception of their
//!   destination address ([`crate::net::Net::intercept`]); when held long enough, they leave
//!   by the routes, past the interception ([`Via::Onward`]).
//! - [`Side::Incoming`], the receiving host's server: the element watches the node; packets
//!   arriving over a link for the bound recipient are held, then delivered ([`Via::Route`]
//!   finds the local endpoint).
//!
//! A server's timing (spec 1 §2.5: "each outgoing packet waits a uniform random time in
//! [0.3, 0.33] ms"; FIFO, as YATS's single processor): a packet offered at `t` starts when
//! the server is free, `s = max(t, free)`, and leaves at `s + d`, `d` drawn uniformly from
//! `[base, base + jitter]` in whole nanoseconds from the server's own stream. Packets leave in
//! the order they came. Packets of other endpoints pass untouched.
//!
//! Packet books: a held packet counts as consumed when taken and created when it leaves
//! (module doc of [`crate::net::element`]).

use super::{Disposition, Element, ElementCtx, Via};
use crate::ids::{AgentId, EgressId};
use crate::packet::Packet;
use packetsim_kernel::{Dur, Rng, Time};
use std::any::Any;
use std::collections::VecDeque;

/// Which way a server's packets go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Packets an endpoint at the node sends (handed over by an interception).
    Outgoing,
    /// Packets arriving over a link for an endpoint at the node.
    Incoming,
}

/// One endpoint's processing server.
#[derive(Debug)]
struct Server {
    /// The recipient of the packets it holds.
    to: AgentId,
    side: Side,
    /// Shortest processing time.
    base: Dur,
    /// Width of the uniform draw added to `base`.
    jitter: Dur,
    rng: Rng,
    /// When the server finishes the last packet taken.
    free: Time,
    /// Packets held, with the time each leaves, in order.
    held: VecDeque<(Time, Packet)>,
    /// Packets that went through.
    done: u64,
}

/// The processing servers of one node (see the module doc).
#[derive(Debug, Default)]
pub struct Processing {
    servers: Vec<Server>,
    /// The slot of a slotted world ([`Processing::set_grid`]), if any.
    grid: Option<Dur>,
}

impl Processing {
    /// An element with no server yet.
    pub fn new() -> Processing {
        Processing::default()
    }

    /// Adds a server for packets to `to` on `side`: each held for `base` plus a uniform draw
    /// from `[0, jitter]` (from `rng`).
    pub fn add(&mut self, to: AgentId, side: Side, base: Dur, jitter: Dur, rng: Rng) {
        self.servers.push(Server {
            to,
            side,
            base,
            jitter,
            rng,
            free: Time::ZERO,
            held: VecDeque::new(),
            done: 0,
        });
    }

    /// Puts the servers on a slot grid (the world's slotted time base, spec 1 §2.1 and
    /// `world/slotted.rs`): a packet offered in slot `k` (its start, or a few nanoseconds into
    /// it, where a slotted world delivers) starts at `s = max(k × slot, free)` and leaves at
    /// the start of slot `floor(s / slot) + max(1, floor(d / slot))`; the server is free again
    /// at the exact `s + d` (as the ATM study's former engine, `atm/sim.rs`, removed after ff13d99, did).
    pub fn set_grid(&mut self, slot: Dur) {
        self.grid = Some(slot);
    }

    /// Packets held now, over all servers.
    pub fn held(&self) -> usize {
        self.servers.iter().map(|s| s.held.len()).sum()
    }

    /// Packets that went through the server for `to` on `side`.
    pub fn processed(&self, to: AgentId, side: Side) -> u64 {
        self.servers
            .iter()
            .filter(|s| s.to == to && s.side == side)
            .map(|s| s.done)
            .sum()
    }
}

impl Element for Processing {
    fn on_packet(
        &mut self,
        now: Time,
        via: Option<EgressId>,
        pkt: &mut Packet,
        _ctx: &mut ElementCtx,
    ) -> Disposition {
        let side = if via.is_some() {
            Side::Incoming
        } else {
            Side::Outgoing
        };
        let Some(s) = self
            .servers
            .iter_mut()
            .find(|s| s.to == pkt.to && s.side == side)
        else {
            return Disposition::Pass;
        };
        let d = if s.jitter > Dur::ZERO {
            Dur(s.base.0 + s.rng.below(s.jitter.0 + 1))
        } else {
            s.base
        };
        // spec 1 §2.5: one processor, first in first out.
        let leave = match self.grid {
            None => {
                let leave = now.max(s.free) + d;
                s.free = leave;
                leave
            }
            Some(slot) => {
                let start = super::slotted::grid_instant(now, slot).max(s.free);
                s.free = start + d;
                super::slotted::after_slots(start, d, slot)
            }
        };
        s.held.push_back((leave, pkt.clone()));
        Disposition::Consume
    }

    fn on_timer(&mut self, now: Time, ctx: &mut ElementCtx) {
        for s in &mut self.servers {
            while s.held.front().is_some_and(|(t, _)| *t <= now) {
                let (_, p) = s.held.pop_front().expect("front");
                s.done += 1;
                let via = match s.side {
                    Side::Outgoing => Via::Onward,
                    Side::Incoming => Via::Route,
                };
                ctx.resend(p, via);
            }
        }
    }

    fn next_timeout(&self) -> Option<Time> {
        self.servers
            .iter()
            .filter_map(|s| s.held.front().map(|(t, _)| *t))
            .min()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn Any> {
        Some(self)
    }
}
