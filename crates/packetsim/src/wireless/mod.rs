//! Radio links (spec 2 §2.1, §2.5): what makes a link direction a radio channel, built on the
//! network seams (`net::transmitter`, `net::element`), not beside them.
//!
//! - A radio direction is an ordinary transmitter declared variable
//!   (`Egress::expect_changes`): its rate changes at run time and retimes queued packets;
//!   outages follow the link's `OutagePolicy` (`blind`, the spec's default, or `hold`).
//! - Scheduled rates: explicit steps (the scenario's `rate_steps`) or a cycle
//!   ([`cycle_steps`]: spec 2 BS-E5's 0.4 → 1.6 → 0.4 Mb/s every 20 s).
//! - A random rate process ([`TwoStateRate`], the spec's extension): a two-state good/bad
//!   channel with exponential sojourn times, run by a node element that changes the rate.
//! - The base station's report of a mobile's queue is the transmitter's
//!   `DequeueHook::QueueReport` on the downlink direction (spec 2 §2.2).
//!
//! Layering: uses kernel, ids and net.

mod rate_process;

pub use rate_process::{cycle_steps, TwoStateRate, TwoStateRateConfig};
