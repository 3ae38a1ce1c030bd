//! TCP, byte-based: sender and receiver endpoints (sans-IO), with congestion control and loss
//! recovery as separate parts (see STYLE.md habits 2-4).
//!
//! PUBLIC API (used by the world adapter; keep these names and signatures):
//! - `TcpConfig`, `Variant`
//! - `AppData::{Unlimited, Bytes(u64)}`: how much the sending application offers (it lives
//!   in `crate::app`, re-exported here; the sender runs it as a `crate::app::AppSource`)
//! - `TcpSender::new(cfg: &TcpConfig, local: Addr, remote: Addr, app: AppData) -> TcpSender`,
//!   `TcpSender::open(&mut self, now: Time, out: &mut Outbox)` (sends the SYN),
//!   `TcpSender::stats(&self) -> &SenderStats`, `TcpSender::cc_metrics(&self) -> CcMetrics`
//! - `TcpReceiver::new(cfg: &TcpConfig, local: Addr, remote: Addr) -> TcpReceiver`,
//!   `TcpReceiver::stats(&self) -> &ReceiverStats`
//! - both implement `crate::transport::Endpoint`.
//!
//! Layout: `sender.rs` and `receiver.rs` (endpoints; the sender owns the `Phase` machine),
//! `rtt.rs` (RFC 6298), `cc/` (`CongestionControl`, `CcState`, `AnyCc`: RFC 5681 AIMD, RFC 9438 CUBIC,
//! RFC 8257 DCTCP),
//! `recovery/` (`LossRecovery`, `AnyRecovery`: Tahoe, Reno RFC 5681, NewReno RFC 6582,
//! SACK RFC 6675, ns-2 Sack1), `scoreboard.rs` (RFC 6675 IsLost/pipe/NextSeg), `ranges.rs` (sorted byte
//! ranges shared by the scoreboard and the receiver's out-of-order buffer), `window.rs`
//! (`WindowPolicy`; `window/bs_buffer.rs`, study 2's base-station-buffer window), `variant.rs`
//! (the variant table), `config.rs`. Tests: `tests.rs`, `tests_wireless.rs` (study 2: the
//! BS-buffer window, shrinking windows, reconnection ACKs), on `testkit.rs`.
//!
//! Study 2 (spec 2 §2.3-2.4) options, all off by default: `cfg.bs_buffer` (receiver window),
//! `cfg.reconnection_acks` (receiver, on `Notice::LinkUp`), `cfg.recover_guard` and
//! `cfg.dupack_same_window` (sender's duplicate-ACK rules).
//!
//! Study 1 (spec 1 §2.5-2.6) options, all off by default: `cfg.rtt_estimator = bsd` with
//! `cfg.tick`, `cfg.rto_min_srtt_factor` (adaptive floor), `cfg.fast_retransmit = false`,
//! `cfg.send_buffer`, `cfg.max_timeouts` (sender), `cfg.ack_window_update` (receiver).
//!
//! Invariants (debug-asserted): snd_una <= snd_nxt <= snd_max, sequence spaces move forward
//! only, cwnd >= 1 MSS; range sets are sorted, disjoint and their totals are exact.
//! Data is one-directional (sender → receiver); there is no FIN: a file is done when all of
//! its bytes are acknowledged.
//!
//! ECN (RFC 3168 §6.1; spec 4 §2.6): with `cfg.ecn` on both ends the handshake negotiates it;
//! the sender then sends new data ECT(0) and halves its window at most once per window on an
//! ECE ACK (`Congestion::Ecn`, counted in `SenderStats::ecn_reductions`), setting CWR on the
//! next new data segment; the receiver echoes ECE from a CE segment until a CWR segment
//! (`ReceiverStats::ce_received`). See `sender.rs` and `receiver.rs` for the decisions.
//!
//! Layering: uses the kernel, `crate::ids`, `crate::packet`, `crate::app` and
//! `crate::transport` only.

pub mod cc;
mod config;
pub mod dialect;
mod rack;
mod ranges;
mod receiver;
pub mod recovery;
pub mod rtt;
mod scoreboard;
mod sender;
mod variant;
pub mod window;

#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_ack;
#[cfg(test)]
mod tests_atm;
#[cfg(test)]
mod tests_bbr;
#[cfg(test)]
mod tests_dctcp;
#[cfg(test)]
mod tests_linux;
#[cfg(test)]
mod tests_loss_recovery;
#[cfg(test)]
mod tests_ns2;
#[cfg(test)]
mod tests_wireless;

pub use crate::app::AppData;
pub use config::AckPolicy;
pub use config::{BbrRecovery, BbrTimeoutFullBw, RecoveryEntry, RtoRearm};
pub use config::{
    BbrSendQuantum, BsBufferConfig, BsBufferMode, CubicModel, EcnEcho, FullAckCwnd, LossDetection,
    LossRecoveryKind, LostRetransmit, PartialAckTimer, RecoverGuard, RtoBackoffReset, RtoSsthresh,
    RttSampling, SackPipe, SackRecoveryKind, SlowStart, SsthreshRule, TcpConfig,
};
pub use receiver::{ReceiverStats, TcpReceiver};
pub use rtt::RttEstimatorKind;
pub use sender::{CcMetrics, SenderState, SenderStats, TcpSender};
pub use variant::Variant;
