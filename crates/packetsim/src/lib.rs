//! # packetsim
//!
//! A packet-level discrete-event network simulator for transport-protocol research.
//!
//! Layers, each a folder; a layer may use the layers listed before it, never one after it:
//!
//! ```text
//! packetsim-kernel   time, event queue, timers, arenas, RNG streams, statistics (own crate)
//! ids, units         typed ids; quantities with units as scenarios write them
//! packet             Packet and typed headers (TCP, UDP), wire lengths, sequence numbers
//! transport          sans-IO endpoints: TCP (sender, receiver, cc, recovery), UDP
//! queue              queue disciplines: DropTail; drop reasons; queue statistics
//! net                nodes, links (rate, delay, error models), routing
//! world              the assembled simulation and its single event dispatch
//! scenario           TOML schema, validation with file/line/key errors, builder
//! experiment         sweeps, replications, seeds, confidence intervals, results store
//! report             summaries, CSV/JSON writers
//! ```

pub use packetsim_kernel as kernel;

pub mod bench;
pub mod experiment;
pub mod ids;
pub mod net;
pub mod packet;
pub mod queue;
pub mod report;
pub mod scenario;
pub mod studies;
pub mod transport;
pub mod units;
pub mod world;
