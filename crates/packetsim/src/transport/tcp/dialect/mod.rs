//! TCP dialects (issue 33 item 3): the rules in which the TCPs researchers compare against
//! differ, as small policy types resolved once when a sender is built ([`Dialect::of`]),
//! and the four dialects packetsim knows, one file each with its sources:
//!
//! - [`standard`]: the RFCs (5681, 6298, 6582, 6675, 3168, 793 / 2018 / 7323); every
//!   option's default.
//! - [`ns2`]: ns-2.35's `Agent/TCP` family (`tcp.cc`, `tcp-reno.cc`, `tcp-sack1.cc`,
//!   `tcp-sink.cc`); `profile = "ns2"`.
//! - [`ns3`]: ns-3.37's `TcpSocketBase` and `TcpTxBuffer`; the keys `bench/validate/ns3`
//!   writes (no `profile` value yet).
//! - [`linux`]: Linux 6.x `net/ipv4/tcp_*.c` and its sysctl defaults; `profile = "linux"`,
//!   and what `variant = "cubic" | "bbr" | "dctcp"` alone implies.
//!
//! A scenario still names the rules key by key (docs/scenario-format.md, unchanged): a
//! profile is a table of keys under the file's own ([`ProfileOption`], the tables in each
//! dialect file), so a key the file writes overrides its dialect's, and its errors are
//! located as before (`scenario/profile.rs`). What changes is where the sender reads them:
//! [`Dialect::of`] turns the flow's [`TcpConfig`] into one [`Dialect`] value of small `Copy`
//! enums when the sender is built, and the sender matches on those; the rules whose work
//! is per ACK and off in the standard dialect are behind the sender's one `ack_opts` test
//! (the default ACK path is compiled without them).
//!
//! # Inventory of `TcpConfig` (60 keys, 15 of them booleans)
//!
//! **Dialect choices** (what [`Dialect`] holds; the dialect that sets each is in brackets):
//!
//! | policy | keys |
//! |---|---|
//! | [`SlowStartRules`] (slow-start exit) | `slow_start` [linux CUBIC] |
//! | [`LossRules`] (loss detection) | `loss_detection` [linux], `dupack_same_window` [ns2], `limited_transmit` [ns2], `recover_guard` [ns2], `lost_retransmit` |
//! | [`RecoveryRules`] (recovery and the loss response) | `ssthresh_rule` [ns2], `precision_reduce` [ns2], `ns2_ecn_cut` [ns2], `sack_recovery` [ns2 Sack1, linux PRR], `sack1_clear_scoreboard` [ns2], `sack_pipe` [ns3], `sack_partial_ack_timer` [ns3], `newreno_partial_ack_timer`, `newreno_full_ack` |
//! | [`RtoRules`] (RTO and RTT timing) | `rtt_estimator` [ns2, linux BBR], `rtt_sampling` [ns3], `rto_backoff_reset` [linux], `rto_rearm` [linux BBR], `rto_ssthresh` [linux, ns3], `keep_sack_on_timeout` [ns3], `fast_retransmit_stops_timing` [ns2] |
//! | [`AckRules`] (the receiver's ACK policy) | `ack_policy` [linux], `dsack` [linux], `ecn_echo` [linux DCTCP] |
//! | [`HeaderAccounting`] | `ns2_header_sizes` [ns2] |
//!
//! **Parameters with a dialect's default** (numbers a profile sets, which the sender keeps as
//! numbers, not rules): `initial_cwnd` [linux 10], `rto_initial` [ns2 3 s], `rto_min` [ns2,
//! linux 200 ms], `rto_max` [ns2 60 s, linux 120 s], `tick` [ns2 10 ms]; and two switches a
//! profile turns on: `timestamps` [linux], `loss_recovery = "sack"` [linux].
//!
//! **The controller's own rules** (read by the congestion control `variant.build` makes, not
//! by the sender's phase machine): `cubic_model` [ns3], `bbr_send_quantum` [ns3],
//! `bbr_inflight_quanta` [ns3], `bbr_timeout_full_bw` [linux BBR], `bbr_recovery` [linux
//! BBR; the sender keeps it as `recovery_per_ack`], `dctcp_g`.
//!
//! **User parameters** (no dialect sets them): `variant`, `mss`, `initial_ssthresh`,
//! `rcv_window`, `granularity`, `delayed_ack`, `dupack_threshold`, `sack_blocks`, `ecn`
//! (set for DCTCP by linux), `bs_buffer`, `reconnection_acks`, `rto_min_srtt_factor`,
//! `fast_retransmit`, `send_buffer`, `push_buffered`, `ack_window_update`, `max_timeouts`,
//! `sender_processing`, `sender_processing_jitter`, `receiver_processing`,
//! `send_overhead` (ns-2's `overhead_`, 0 in ns-2.35 too).
//!
//! The dialect choices' fourteen booleans of the issue are now enums here (`ns2_ecn_cut` is
//! [`EcnCut`], `precision_reduce` [`Halving`], ...); the keys stay booleans in the file.

pub mod linux;
pub mod ns2;
pub mod ns3;
pub mod standard;
#[cfg(test)]
mod tests;

use super::config::{
    AckPolicy, EcnEcho, FullAckCwnd, LossDetection, LostRetransmit, PartialAckTimer, RecoverGuard,
    RecoveryEntry, RtoBackoffReset, RtoRearm, RtoSsthresh, RttSampling, SackPipe, SackRecoveryKind,
    SlowStart, SsthreshRule, TcpConfig,
};
use super::rtt::RttEstimatorKind;

/// Which table an option of a profile belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// `[tcp]`.
    Tcp,
    /// `[sctp]`.
    Sctp,
    /// Every `[links.NAME]` that does not set the key.
    Link,
}

/// One option of a profile: table, key, value (TOML), the reference stack's setting it
/// follows and where that stack implements it.
pub struct ProfileOption {
    /// Where the key goes.
    pub table: Table,
    /// The key.
    pub key: &'static str,
    /// Its value, as TOML.
    pub value: &'static str,
    /// The reference stack's variable or rule (ns-2.35's, or Linux's sysctl or constant).
    pub ns2: &'static str,
    /// The reference source file (and function) that implements it.
    pub source: &'static str,
}

/// A TCP dialect: every rule in which the reference stacks differ, resolved once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    /// How the initial slow start ends.
    pub slow_start: SlowStartRules,
    /// How losses are detected outside the timer.
    pub loss: LossRules,
    /// Loss recovery and the window cut.
    pub recovery: RecoveryRules,
    /// The retransmission timer and RTT timing.
    pub rto: RtoRules,
    /// When and what the receiver acknowledges.
    pub ack: AckRules,
    /// How segment sizes count their headers.
    pub headers: HeaderAccounting,
}

/// Initial window and slow-start exit (the initial window itself is a number,
/// `initial_cwnd`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlowStartRules {
    /// `slow_start`: RFC 5681 §3.1, or RFC 9406 HyStart++.
    pub exit: SlowStart,
}

/// Loss detection outside the timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossRules {
    /// `loss_detection`: duplicate ACKs, or RFC 8985 RACK (with or without TLP).
    pub detection: LossDetection,
    /// `dupack_same_window`: what counts as a duplicate ACK.
    pub dupack: DupAck,
    /// `limited_transmit`: RFC 3042.
    pub limited_transmit: LimitedTransmit,
    /// `recover_guard`: when duplicate ACKs may start a fast retransmit.
    pub recover_guard: RecoverGuard,
    /// `lost_retransmit`: retransmissions lost again in the loss phase.
    pub lost_retransmit: LostRetransmit,
}

/// What counts as a duplicate ACK (the key `dupack_same_window`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAck {
    /// RFC 5681 §2 with condition (e): the ACK repeats the last window.
    SameWindow,
    /// Any ACK of snd_una without data while data is outstanding (ns-2.35
    /// `RenoTcpAgent::recv`).
    AnyWindow,
}

/// RFC 3042 limited transmit (the key `limited_transmit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitedTransmit {
    /// Off (RFC 5681 alone).
    Off,
    /// One new segment on each of the first DupThresh - 1 duplicate ACKs.
    Rfc3042,
}

/// Loss recovery and the window cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryRules {
    /// `ssthresh_rule`: RFC 5681 §3.1 eq. 4, or ns-2.35's `slowdown`.
    pub ssthresh: SsthreshRule,
    /// `precision_reduce`: whether ns-2's halved window is rounded.
    pub halving: Halving,
    /// `ns2_ecn_cut`: the response to ECE.
    pub ecn_cut: EcnCut,
    /// `sack_recovery`: the SACK recovery (RFC 6675, PRR, ns-2 Sack1).
    pub sack: SackRecoveryKind,
    /// `sack1_clear_scoreboard`: how Sack1 keeps its scoreboard.
    pub sack1_scoreboard: Sack1Scoreboard,
    /// `sack_pipe`: what RFC 6675 recovery counts in flight.
    pub sack_pipe: SackPipe,
    /// `sack_partial_ack_timer`: which partial ACKs restart the timer in SACK recovery.
    pub sack_partial_ack_timer: PartialAckTimer,
    /// `newreno_partial_ack_timer`: which partial ACKs restart the timer in NewReno.
    pub newreno_partial_ack_timer: PartialAckTimer,
    /// `newreno_full_ack`: cwnd on the ACK that ends NewReno recovery.
    pub newreno_full_ack: FullAckCwnd,
    /// `recovery_entry`: what starts fast recovery with RACK (new losses only, or Linux's
    /// `lost_out`, `tcp_time_to_recover`).
    pub entry: RecoveryEntry,
}

/// Whether ns-2's halved window keeps its fraction (the key `precision_reduce`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halving {
    /// Whole segments.
    Whole,
    /// Unrounded, as ns-2.35's `precisionReduce_` (`TcpAgent::slowdown`).
    Precise,
}

/// The window cut on an ECE ACK (the key `ns2_ecn_cut`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnCut {
    /// RFC 3168 §6.1.2 as the controller makes it.
    Rfc3168,
    /// ns-2.35 `TcpAgent::ecn`: half of min(cwnd, peer window).
    Ns2,
}

/// How ns-2's Sack1 keeps its scoreboard (the key `sack1_clear_scoreboard`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sack1Scoreboard {
    /// Every SACK block above snd_una is kept.
    Kept,
    /// Cleared where `Sack1TcpAgent::recv` and `timeout` clear it.
    Ns2Cleared,
}

/// The retransmission timer and RTT timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoRules {
    /// `rtt_estimator`: the RTO arithmetic.
    pub estimator: RttEstimatorKind,
    /// `rtt_sampling`: which segments are timed without timestamps.
    pub sampling: RttSampling,
    /// `fast_retransmit_stops_timing`: whether a fast retransmit ends the RTT measurement.
    pub fast_retransmit_timing: FastRetransmitTiming,
    /// `rto_backoff_reset`: what clears the backoff.
    pub backoff_reset: RtoBackoffReset,
    /// `rto_rearm`: what restarts the timer.
    pub rearm: RtoRearm,
    /// `rto_ssthresh`: ssthresh on a timeout in recovery.
    pub ssthresh: RtoSsthresh,
    /// `keep_sack_on_timeout`: the scoreboard across a timeout.
    pub scoreboard: TimeoutScoreboard,
}

/// Whether a fast retransmit ends the RTT measurement (the key
/// `fast_retransmit_stops_timing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastRetransmitTiming {
    /// Karn's rule alone (RFC 6298 §3): only a retransmitted segment loses its sample.
    Karn,
    /// ns-2.35 `reset_rtx_timer(1, 0)` clears `rtt_active_`.
    Stops,
}

/// The SACK scoreboard across a timeout (the key `keep_sack_on_timeout`; BBR keeps it
/// whatever this says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutScoreboard {
    /// Cleared (spec 3 §2.3).
    Clear,
    /// Kept (RFC 6675 §5.1 with Errata 1610; Linux `tcp_enter_loss`, ns-3.37
    /// `SetSentListLost(false)`).
    Keep,
}

/// The receiver's ACK policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckRules {
    /// `ack_policy`: when in-order data is acknowledged.
    pub policy: AckPolicy,
    /// `dsack`: RFC 2883 D-SACK.
    pub dsack: bool,
    /// `ecn_echo`: how CE marks are echoed.
    pub ecn_echo: EcnEcho,
}

/// How a segment's size counts its headers (the key `ns2_header_sizes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderAccounting {
    /// RFC 793 / 2018 / 7323 option layouts padded to 4 bytes.
    Rfc,
    /// ns-2.35's `tcpip_base_hdr_size_` and 8 bytes per SACK block.
    Ns2,
}

impl Dialect {
    /// The rules `cfg` names: its dialect's, with the file's own keys over them.
    pub fn of(cfg: &TcpConfig) -> Dialect {
        Dialect {
            slow_start: SlowStartRules {
                exit: cfg.slow_start,
            },
            loss: LossRules {
                detection: cfg.loss_detection,
                dupack: pick(
                    cfg.dupack_same_window,
                    DupAck::AnyWindow,
                    DupAck::SameWindow,
                ),
                limited_transmit: pick(
                    cfg.limited_transmit,
                    LimitedTransmit::Off,
                    LimitedTransmit::Rfc3042,
                ),
                recover_guard: cfg.recover_guard,
                lost_retransmit: cfg.lost_retransmit,
            },
            recovery: RecoveryRules {
                ssthresh: cfg.ssthresh_rule,
                halving: pick(cfg.precision_reduce, Halving::Whole, Halving::Precise),
                ecn_cut: pick(cfg.ns2_ecn_cut, EcnCut::Rfc3168, EcnCut::Ns2),
                sack: cfg.sack_recovery,
                sack1_scoreboard: pick(
                    cfg.sack1_clear_scoreboard,
                    Sack1Scoreboard::Kept,
                    Sack1Scoreboard::Ns2Cleared,
                ),
                sack_pipe: cfg.sack_pipe,
                sack_partial_ack_timer: cfg.sack_partial_ack_timer,
                newreno_partial_ack_timer: cfg.newreno_partial_ack_timer,
                newreno_full_ack: cfg.newreno_full_ack,
                entry: cfg.recovery_entry,
            },
            rto: RtoRules {
                estimator: cfg.rtt_estimator,
                sampling: cfg.rtt_sampling,
                fast_retransmit_timing: pick(
                    cfg.fast_retransmit_stops_timing,
                    FastRetransmitTiming::Karn,
                    FastRetransmitTiming::Stops,
                ),
                backoff_reset: cfg.rto_backoff_reset,
                rearm: cfg.rto_rearm,
                ssthresh: cfg.rto_ssthresh,
                scoreboard: pick(
                    cfg.keep_sack_on_timeout,
                    TimeoutScoreboard::Clear,
                    TimeoutScoreboard::Keep,
                ),
            },
            ack: AckRules {
                policy: cfg.ack_policy,
                dsack: cfg.dsack,
                ecn_echo: cfg.ecn_echo,
            },
            headers: pick(
                cfg.ns2_header_sizes,
                HeaderAccounting::Rfc,
                HeaderAccounting::Ns2,
            ),
        }
    }

    /// Whether a rule with work on every ACK, which the standard dialect has off, is on:
    /// the sender then takes its ACK path with those rules compiled in (`ack_opts`; PRR,
    /// which needs a SACK recovery to run, the sender adds from its recovery).
    pub fn has_per_ack_rules(&self) -> bool {
        self.loss.detection != LossDetection::Dupthresh
            || self.loss.lost_retransmit != LostRetransmit::Off
            || self.slow_start.exit != SlowStart::Standard
            || self.rto.backoff_reset != RtoBackoffReset::Sample
            || self.rto.sampling != RttSampling::OnePerRtt
            || self.recovery.sack_pipe != SackPipe::Rfc6675
            || self.recovery.sack1_scoreboard != Sack1Scoreboard::Kept
    }
}

/// `off` when the key is false, `on` when it is true.
fn pick<T>(key: bool, off: T, on: T) -> T {
    if key {
        on
    } else {
        off
    }
}
