//! # packetsim-kernel
//!
//! The generic discrete-event core of packetsim. It knows nothing of packets, links or
//! protocols: the compiler keeps it so, because the simulator library depends on this crate and
//! never the other way round.
//!
//! - [`time`]: integer-nanosecond [`Time`] and [`Dur`], and [`Rate`] in bit/s.
//! - [`queue`]: [`EventQueue`], earliest time first, ties in the order they were scheduled
//!   (a monotone radix heap on the integer time).
//! - [`id`]: a slab arena that reuses freed slots.
//! - [`rng`]: one PRNG stream per component, derived from (run seed, component name).
//! - [`stats`]: counters, time-weighted averages, running mean/variance, Student-t intervals.
//!
//! Timers are cancelled lazily without any kernel support: a component schedules a wake-up
//! only when its deadline moves earlier, and a wake-up that finds the component not yet due
//! re-arms at the current deadline (see the simulator's `world` module).
//!
//! Invariant: the same sequence of calls gives bit-identical results on every machine.

pub mod id;
pub mod queue;
pub mod rng;
pub mod stats;
pub mod time;

pub use id::Slab;
pub use queue::EventQueue;
pub use rng::Rng;
pub use time::{Dur, Rate, Time};
