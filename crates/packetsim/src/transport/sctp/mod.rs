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
//! Application data uses `crate::transport::tcp::AppData` (`Unlimited` or `Bytes(n)`).

mod config;
mod receiver;
#[cfg(test)]
mod testkit;
// The end-to-end property test needs `SctpEndpoint` (client/server/deliveries); enable it
// once the endpoint has landed:
// #[cfg(test)]
// mod proptests;

pub use config::{HeartbeatJitter, RtxPolicy, SctpConfig};
pub use receiver::Delivery;
