//! Congestion control: *how much* the window changes (slow start, congestion avoidance, the
//! reaction to a congestion signal). *When* to react is the sender's decision (it owns the
//! [`Phase`] machine); how the window behaves during loss recovery is `recovery/`'s.
//!
//! Policies share one plain [`CcState`] passed `&mut` (STYLE habit 4). Built-ins are rows of
//! [`AnyCc`] (enum dispatch). Controllers with state of their own are rows of [`StatefulCc`],
//! boxed once in `AnyCc::Stateful`, so `AnyCc` stays one pointer wide and the sender compact
//! (the classic variants' Reno row has no state and no allocation). All windows are in bytes.
//!
//! Invariant: `cwnd >= mss` after every hook (checked by the sender in debug builds).

pub mod bbr;
mod cubic;
mod cubic_ns3;
pub mod dctcp;
pub mod hystart;
mod reno;
pub mod vegas;

pub use bbr::{Bbr, BbrState};
pub use cubic::Cubic;
pub use cubic_ns3::CubicNs3;
pub use dctcp::Dctcp;
pub use reno::Reno;
pub use vegas::Vegas;

use crate::packet::Seq;
use packetsim_kernel::{Dur, Time};
use std::fmt;

/// The sender's loss-recovery phase (after ns-3 `TcpCongState_t`; Linux `tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Normal operation: no duplicate ACKs outstanding.
    Open,
    /// Some duplicate ACKs (fewer than the threshold) were received.
    Disorder,
    /// Fast recovery, until the cumulative ACK reaches `recover` (RFC 6582 / RFC 6675).
    Recovery {
        /// The highest sequence sent (exclusive end) when recovery began.
        recover: Seq,
    },
    /// After a retransmission timeout (or Tahoe's fast retransmit): go-back-N from snd_una
    /// until the cumulative ACK reaches `recover`; duplicate ACKs do not trigger another fast
    /// retransmit meanwhile (RFC 6582 §4.1, ns-2 `bug_fix_`).
    Loss {
        /// `snd_max` when the loss was detected.
        recover: Seq,
    },
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Phase::Open => f.write_str("Open"),
            Phase::Disorder => f.write_str("Disorder"),
            Phase::Recovery { recover } => write!(f, "Recovery(recover={recover})"),
            Phase::Loss { recover } => write!(f, "Loss(recover={recover})"),
        }
    }
}

/// Window state shared by the sender, congestion control and loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcState {
    /// Congestion window, bytes.
    pub cwnd: u32,
    /// Slow-start threshold, bytes.
    pub ssthresh: u32,
    /// FlightSize: bytes sent and not cumulatively acknowledged (`snd_max - snd_una`).
    pub bytes_in_flight: u32,
    /// Sender maximum segment size, bytes.
    pub mss: u32,
    /// Loss-recovery phase.
    pub phase: Phase,
}

impl CcState {
    /// Whether the sender is in slow start (RFC 5681 §3.1: cwnd < ssthresh).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What a new cumulative ACK acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckInfo {
    /// Bytes newly acknowledged.
    pub acked: u32,
    /// When the ACK arrived.
    pub now: Time,
    /// The sender's smoothed RTT, once sampled.
    pub srtt: Option<Dur>,
}

/// What an ACK of new data said about ECN, for controllers that estimate the extent of
/// congestion (RFC 8257 §3.3). Given for every such ACK while ECN is negotiated, in every
/// phase, before the sender's own reaction to the ECE flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcnAck {
    /// Bytes newly acknowledged (SEG.ACK − SND.UNA).
    pub acked: u32,
    /// Whether the ACK carried ECE.
    pub ece: bool,
    /// The cumulative acknowledgment (SEG.ACK).
    pub ack: Seq,
    /// One past the highest sequence sent (SND.NXT in RFC 8257; `snd_max` here).
    pub snd_nxt: Seq,
}

/// A congestion signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// Loss detected by duplicate ACKs or SACK.
    Loss,
    /// An ECN echo (RFC 3168 §6.1.2), at most once per window; no retransmission follows.
    Ecn,
    /// The retransmission timer expired.
    Timeout,
    /// The retransmission timer expired during fast recovery and the ssthresh set on entering
    /// recovery stands (`tcp.rto_ssthresh = "recovery"`, Linux `tcp_enter_loss`): the loss
    /// window (cwnd = 1 SMSS) and whatever the controller resets on a timeout, but no new
    /// ssthresh and nothing learnt from the window of this moment.
    RecoveryTimeout,
}

/// A congestion controller (STYLE habit 2).
pub trait CongestionControl {
    /// A new cumulative ACK outside loss recovery: grow the window.
    fn on_ack(&mut self, _st: &mut CcState, _ack: &AckInfo) {}
    /// An ACK of new data while ECN is negotiated (see [`EcnAck`]); most controllers ignore it.
    fn on_ecn_ack(&mut self, _ack: &EcnAck) {}
    /// The full ACK that ends fast recovery, after the recovery set cwnd (`acked`: every byte
    /// it covers). RFC 5681 and RFC 9438 grow nothing on it; ns-3.37's `ProcessAck` calls
    /// `IncreaseWindow` ([`CubicNs3`]).
    fn on_recovery_exit_ack(&mut self, _st: &mut CcState, _ack: &AckInfo) {}
    /// A congestion signal: set ssthresh (and cwnd for `Ecn`/`Timeout`; after `Loss` the loss
    /// recovery sets cwnd). `RecoveryTimeout` sets cwnd only.
    fn on_congestion(&mut self, _st: &mut CcState, _cause: Congestion) {}
    /// The slow-start threshold after a congestion signal.
    fn ssthresh_after(&self, st: &CcState) -> u32;
    /// Scenario name.
    fn name(&self) -> &'static str;

    // ---- delivery sampling (model-based controllers, BBR) -------------------------------
    // The sender reads `samples_deliveries` once, when it is built, and calls the hooks below
    // only if it is true; the defaults are no-ops for every other controller.

    /// Whether the controller counts delivered bytes itself, SACKed ones included, and takes
    /// the hooks below (a capability fixed for the controller's life).
    fn samples_deliveries(&self) -> bool {
        false
    }
    /// A new ACK arrives: nothing delivered by it yet.
    fn begin_ack(&mut self) {}
    /// Bytes `[l, r)` (stream offsets) were delivered at `now`: newly SACKed, or newly
    /// cumulatively acknowledged without having been SACKed.
    fn on_delivered(&mut self, _now: Time, _l: u64, _r: u64) {}
    /// An ACK that delivered data, in any phase, the cumulative ACK now at stream offset
    /// `cum`; `st.bytes_in_flight` is the flight after the ACK as the model counts it (with
    /// SACK, RFC 6675's pipe).
    fn on_ack_delivered(&mut self, _st: &CcState, _ack: &AckInfo, _cum: u64) {}
    /// SACK loss recovery begins (RFC 6675 fast retransmit) with `pipe` bytes in flight
    /// (SetPipe, lost segments out): the controller may set the recovery window.
    fn enter_sack_recovery(&mut self, _st: &mut CcState, _pipe: u32) {}
    /// An ACK during SACK recovery, with `pipe` bytes in flight after it and `lost` bytes it
    /// newly marked lost: the controller may set the window.
    fn sack_recovery_ack(&mut self, _st: &mut CcState, _pipe: u32, _lost: u32) {}
}

/// The built-in congestion controllers. Two levels keep the sender compact: the stateless
/// RFC 5681 row inline, every controller with state of its own behind one box, so `AnyCc` is
/// one pointer wide whatever rows are added (`endpoint_state_sizes_are_compact`).
#[derive(Clone, Debug, PartialEq)]
pub enum AnyCc {
    /// RFC 5681 AIMD, shared by Tahoe, Reno, NewReno and SACK.
    Reno(Reno),
    /// A controller with state of its own.
    Stateful(Box<StatefulCc>),
}

/// The built-in controllers that keep state of their own (boxed in [`AnyCc::Stateful`]).
#[derive(Clone, Debug, PartialEq)]
pub enum StatefulCc {
    /// RFC 9438 CUBIC.
    Cubic(Cubic),
    /// CUBIC as ns-3.37's `TcpCubic` (`tcp.cubic_model = "ns3"`).
    CubicNs3(CubicNs3),
    /// RFC 8257 DCTCP.
    Dctcp(Dctcp),
    /// BBR v1 (with pacing).
    Bbr(Bbr),
    /// TCP Vegas (Brakmo & Peterson 1995).
    Vegas(Vegas),
}

impl AnyCc {
    /// The boxed row for `c`.
    pub fn stateful(c: StatefulCc) -> AnyCc {
        AnyCc::Stateful(Box::new(c))
    }

    /// The DCTCP controller, if this is one (its α, for tests and metrics).
    pub fn as_dctcp(&self) -> Option<&Dctcp> {
        match self {
            AnyCc::Stateful(b) => match &**b {
                StatefulCc::Dctcp(c) => Some(c),
                StatefulCc::Cubic(_)
                | StatefulCc::CubicNs3(_)
                | StatefulCc::Bbr(_)
                | StatefulCc::Vegas(_) => None,
            },
            AnyCc::Reno(_) => None,
        }
    }

    /// The BBR controller, if this is one (its state, for tests and metrics).
    pub fn as_bbr(&self) -> Option<&Bbr> {
        match self {
            AnyCc::Stateful(b) => match &**b {
                StatefulCc::Bbr(c) => Some(c),
                StatefulCc::Cubic(_)
                | StatefulCc::CubicNs3(_)
                | StatefulCc::Dctcp(_)
                | StatefulCc::Vegas(_) => None,
            },
            AnyCc::Reno(_) => None,
        }
    }

    /// The pacing controller, if this is one (only BBR paces).
    #[inline]
    fn pacer(&mut self) -> Option<&mut Bbr> {
        match self {
            AnyCc::Stateful(b) => match &mut **b {
                StatefulCc::Bbr(c) => Some(c),
                StatefulCc::Cubic(_)
                | StatefulCc::CubicNs3(_)
                | StatefulCc::Dctcp(_)
                | StatefulCc::Vegas(_) => None,
            },
            AnyCc::Reno(_) => None,
        }
    }

    /// Whether pacing lets a segment leave at `now` (always, without pacing); see
    /// [`Bbr::pacing_allows`].
    #[inline]
    pub fn pacing_allows(&mut self, now: Time, mss: u32) -> bool {
        self.pacer().is_none_or(|c| c.pacing_allows(now, mss))
    }

    /// When a sender that pacing stopped may send again (None: not stopped, or no pacing).
    #[inline]
    pub fn pacing_wakeup(&self) -> Option<Time> {
        match self {
            AnyCc::Stateful(b) => match &**b {
                StatefulCc::Bbr(c) => c.pacing_wakeup(),
                StatefulCc::Cubic(_)
                | StatefulCc::CubicNs3(_)
                | StatefulCc::Dctcp(_)
                | StatefulCc::Vegas(_) => None,
            },
            AnyCc::Reno(_) => None,
        }
    }

    /// The pacing wake-up came.
    #[inline]
    pub fn pacing_unblock(&mut self) {
        if let Some(c) = self.pacer() {
            c.unblock();
        }
    }

    /// A data segment of `len` bytes left (see [`Bbr::on_send`], [`Vegas::on_send`]); a
    /// no-op for the others.
    #[inline]
    pub fn on_send(&mut self, now: Time, off: u64, len: u32, new_data: bool, in_flight: u32) {
        if let AnyCc::Stateful(b) = self {
            match &mut **b {
                StatefulCc::Bbr(c) => c.on_send_at(now, off, len, new_data, in_flight),
                StatefulCc::Vegas(c) => c.on_send(now, len, new_data),
                StatefulCc::Cubic(_) | StatefulCc::CubicNs3(_) | StatefulCc::Dctcp(_) => {}
            }
        }
    }

    /// The Vegas controller, if this is one (its BaseRTT and Diff, for tests and metrics).
    pub fn as_vegas(&self) -> Option<&Vegas> {
        match self {
            AnyCc::Stateful(b) => match &**b {
                StatefulCc::Vegas(c) => Some(c),
                StatefulCc::Cubic(_)
                | StatefulCc::CubicNs3(_)
                | StatefulCc::Dctcp(_)
                | StatefulCc::Bbr(_) => None,
            },
            AnyCc::Reno(_) => None,
        }
    }

    /// An ACK of new data in any phase, before the phase's own handling (see
    /// [`Bbr::on_ack_sample`]); a no-op for the others.
    #[inline]
    pub fn on_ack_sample(&mut self, st: &CcState, ack: &AckInfo) {
        if let Some(c) = self.pacer() {
            c.on_ack_sample(st, ack);
        }
    }
}

/// Applies `$e` to the controller `$c` inside `$self` (an `AnyCc`), by reference or mutably.
macro_rules! dispatch {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($c) => $e,
            AnyCc::Stateful(b) => match &mut **b {
                StatefulCc::Cubic($c) => $e,
                StatefulCc::CubicNs3($c) => $e,
                StatefulCc::Dctcp($c) => $e,
                StatefulCc::Bbr($c) => $e,
                StatefulCc::Vegas($c) => $e,
            },
        }
    };
    (ref $self:expr, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($c) => $e,
            AnyCc::Stateful(b) => match &**b {
                StatefulCc::Cubic($c) => $e,
                StatefulCc::CubicNs3($c) => $e,
                StatefulCc::Dctcp($c) => $e,
                StatefulCc::Bbr($c) => $e,
                StatefulCc::Vegas($c) => $e,
            },
        }
    };
}

impl CongestionControl for AnyCc {
    #[inline]
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        dispatch!(self, c => c.on_ack(st, ack))
    }
    #[inline]
    fn on_ecn_ack(&mut self, ack: &EcnAck) {
        if let AnyCc::Stateful(b) = self {
            if let StatefulCc::Dctcp(c) = &mut **b {
                c.on_ecn_ack(ack);
            }
        }
    }
    fn on_recovery_exit_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        if let AnyCc::Stateful(b) = self {
            if let StatefulCc::CubicNs3(c) = &mut **b {
                c.on_recovery_exit_ack(st, ack);
            }
        }
    }
    #[inline]
    fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
        dispatch!(self, c => c.on_congestion(st, cause))
    }
    fn ssthresh_after(&self, st: &CcState) -> u32 {
        dispatch!(ref self, c => c.ssthresh_after(st))
    }
    fn name(&self) -> &'static str {
        dispatch!(ref self, c => c.name())
    }
    fn samples_deliveries(&self) -> bool {
        match self {
            AnyCc::Stateful(b) => match &**b {
                StatefulCc::Bbr(c) => c.samples_deliveries(),
                StatefulCc::Cubic(_)
                | StatefulCc::CubicNs3(_)
                | StatefulCc::Dctcp(_)
                | StatefulCc::Vegas(_) => false,
            },
            AnyCc::Reno(_) => false,
        }
    }
    #[inline]
    fn begin_ack(&mut self) {
        if let Some(c) = self.pacer() {
            c.begin_ack();
        }
    }
    #[inline]
    fn on_delivered(&mut self, now: Time, l: u64, r: u64) {
        if let Some(c) = self.pacer() {
            c.on_delivered(now, l, r);
        }
    }
    #[inline]
    fn on_ack_delivered(&mut self, st: &CcState, ack: &AckInfo, cum: u64) {
        if let Some(c) = self.pacer() {
            c.on_ack_delivered(st, ack, cum);
        }
    }
    fn enter_sack_recovery(&mut self, st: &mut CcState, pipe: u32) {
        if let Some(c) = self.pacer() {
            c.enter_sack_recovery(st, pipe);
        }
    }
    fn sack_recovery_ack(&mut self, st: &mut CcState, pipe: u32, lost: u32) {
        if let Some(c) = self.pacer() {
            c.sack_recovery_ack(st, pipe, lost);
        }
    }
}
