//! SCTP (RFC 4960, with the RFC 2960 behaviours study 3 relies on selectable where they
//! differ), sans-IO: one [`SctpEndpoint`] per end of an association.
//!
//! PUBLIC API (used by the world adapter and the scenario builder; keep these names):
//! - [`SctpConfig`], [`RtxPolicy`], [`HeartbeatJitter`] (config.rs)
//! - `SctpEndpoint::client(cfg: &SctpConfig, local: Vec<Addr>, peer: Vec<Addr>,
//!   primary: usize, app: AppData, rng: Rng) -> SctpEndpoint`: the initiating end, which
//!   sends the application's data. `local[i]` is the source address used when sending to
//!   `peer[i]` (`local[0]` when `i >= local.len()`); `peer[primary]` is the primary
//!   destination.
//! - `SctpEndpoint::server(cfg: &SctpConfig, local: Vec<Addr>, rng: Rng) -> SctpEndpoint`: the
//!   responding end; it learns the peer's addresses from INIT and answers every packet from the
//!   address it arrived on (`pkt.dst`) to its source (`pkt.src`), RFC 4960 §6.4.
//! - `SctpEndpoint::open(&mut self, now: Time, out: &mut Outbox)`: the client sends INIT.
//! - `SctpEndpoint::established_at(&self) -> Option<Time>`: when the application could start
//!   sending (client: COOKIE-ACK received; server: COOKIE-ECHO received).
//! - `SctpEndpoint::stats(&self) -> &SctpStats` and `SctpEndpoint::paths(&self) ->
//!   Vec<PathMetrics>` (per destination: address, cwnd, ssthresh, rto, srtt, active,
//!   error count, fast retransmits, T3 expiries, heartbeats sent, heartbeat RTT samples).
//! - it implements `crate::transport::Endpoint`.
//!
//! Application data uses `crate::app::AppData` (`Unlimited` or `Bytes(n)`), run as a
//! `crate::app::AppSource` by the sender.
//!
//! Layout (one concept per file): `association.rs` (the RFC states), `endpoint.rs` (the
//! endpoint: handshake, shutdown, heartbeats, the receiving side's glue), `sender.rs` (DATA
//! chunks, the retransmission queue, SACK processing, fast retransmit, T3-rtx), `path.rs`
//! (per-destination congestion, RTO and heartbeat state), `rtx_policy.rs` (which destination
//! new data and retransmissions use), `receiver.rs` (TSN map, SACK generation, reassembly),
//! `stats.rs` (counters and per-destination snapshots), `config.rs`.
//!
//! Invariants: a destination's outstanding bytes equal the wire length of the chunks last
//! sent to it that are neither acknowledged, gap-acknowledged nor marked for
//! retransmission; its T3-rtx runs exactly while something is outstanding there (after each
//! SACK and timer event). Data flows from the client to the server only.
//!
//! Layering: uses the kernel, `crate::ids`, `crate::packet`, `crate::app` and
//! `crate::transport` only.

mod association;
mod config;
mod endpoint;
mod path;
#[cfg(test)]
mod proptests;
mod receiver;
mod rtx_policy;
mod sender;
mod stats;
#[cfg(test)]
mod testkit;

#[cfg(test)]
mod tests;

pub use crate::packet::Tsn;
pub use association::AssocState;
pub use config::{CwndUnit, HeartbeatJitter, RtxPolicy, SctpConfig};
pub use endpoint::SctpEndpoint;
pub use receiver::Delivery;
pub use stats::{PathMetrics, SctpStats};
