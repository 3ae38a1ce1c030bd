//! Congestion control: *how much* the window changes (slow start, congestion avoidance, the
//! reaction to a congestion signal). *When* to react is the sender's decision (it owns the
//! [`Phase`] machine); how the window behaves during loss recovery is `recovery/`'s.
//!
//! Policies share one plain [`CcState`] passed `&mut` (STYLE habit 4). Built-ins are rows of
//! [`AnyCc`] (enum dispatch). Controllers with state of their own are a registry: one file
//! here and one row in `congestion_controls!` each, from which [`StatefulCc`] (boxed once in
//! `AnyCc::Stateful`, so `AnyCc` stays one pointer wide and the sender compact) and
//! [`super::Variant`] are generated; the classic variants' Reno row has no state and no
//! allocation. A controller's own state is reached by [`AnyCc::controller`] (a downcast).
//! `docs/extending.md` ("How to add a congestion control") walks through one. All windows
//! are in bytes.
//!
//! Invariant: `cwnd >= mss` after every hook (checked by the sender in debug builds).

mod cubic_ns3;
pub mod hystart;
mod reno;

pub use bbr::{Bbr, BbrState};
pub use cubic::Cubic;
pub use cubic_ns3::CubicNs3;
pub use dctcp::Dctcp;
pub use reno::Reno;
pub use vegas::Vegas;

use super::{LossRecoveryKind, TcpConfig};
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
    /// An ACK of new data in any phase, before the phase's own handling, for a model that
    /// samples without SACK ([`Bbr::on_ack_sample`]).
    fn on_ack_sample(&mut self, _st: &CcState, _ack: &AckInfo) {}

    // ---- sending (pacing, per-segment records) --------------------------------------------

    /// A data segment `[off, off + len)` (stream offsets) left at `now` (`new_data`: not a
    /// retransmission), with `in_flight` bytes outstanding before it ([`Bbr::on_send_at`],
    /// [`Vegas::on_send`]).
    fn on_send(&mut self, _now: Time, _off: u64, _len: u32, _new_data: bool, _in_flight: u32) {}
    /// Whether pacing lets a segment leave at `now` (always, without pacing); see
    /// [`Bbr::pacing_allows`].
    fn pacing_allows(&mut self, _now: Time, _mss: u32) -> bool {
        true
    }
    /// When a sender that pacing stopped may send again (None: not stopped, or no pacing).
    fn pacing_wakeup(&self) -> Option<Time> {
        None
    }
    /// The pacing wake-up came.
    fn pacing_unblock(&mut self) {}
}

/// How a row of `congestion_controls!` is built: the `variant = "..."` that names it pairs
/// the controller with a loss recovery and builds it from the `[tcp]` configuration.
/// Implemented, in the controller's own file, by the row's first type.
pub trait Controller {
    /// The loss recovery of the variant's pair, unless `tcp.loss_recovery` replaces it.
    const RECOVERY: LossRecoveryKind = LossRecoveryKind::NewReno;
    /// The controller of a sender configured by `cfg` (validated).
    fn build(cfg: &TcpConfig) -> StatefulCc;
}

/// The congestion controllers with state of their own: the registry. One row each, read
/// `Variant file => Type, ..;`: the [`super::Variant`] and its scenario spelling
/// (`variant = "file"`, which is also the name of its file in `cc/`, declared as a module by
/// the row), then the controller types the row may build (boxed in [`AnyCc::Stateful`] as
/// rows of [`StatefulCc`]); the first implements [`Controller`] (loss recovery,
/// construction) and every one [`CongestionControl`] (the hooks, with defaults for those it
/// does not take).
///
/// The table is a macro that hands the rows to another macro (`$then`), so that each place
/// generates its closed enum from the one list: [`StatefulCc`] and its dispatch here,
/// [`super::Variant`] in `variant.rs`. Dispatch stays an enum `match` (no `Box<dyn>`, no
/// allocation per segment). The RFC 5681 family (tahoe, reno, newreno, sack) is not a row:
/// they share the stateless [`Reno`], inline in [`AnyCc`].
macro_rules! congestion_controls {
    ($then:ident) => {
        $then! {
            /// CUBIC congestion control (RFC 9438) with NewReno loss recovery (RFC 6582);
            /// `tcp.cubic_model = "ns3"` builds ns-3.37's `TcpCubic` instead.
            Cubic cubic => Cubic, CubicNs3;
            /// DCTCP congestion control (RFC 8257) with NewReno loss recovery (RFC 6582); needs
            /// `ecn = true` and `ecn_echo = "per_segment"` (validated).
            Dctcp dctcp => Dctcp;
            /// BBR v1 (Cardwell et al. 2016; draft-cardwell-iccrg-bbr-congestion-control-00)
            /// with pacing, and NewReno loss recovery (RFC 6582).
            Bbr bbr => Bbr;
            /// TCP Vegas (Brakmo & Peterson 1995; ns-2 `tcp-vegas.cc`: α = 1, β = 3, γ = 1)
            /// with NewReno loss recovery (RFC 6582).
            Vegas vegas => Vegas;
            /// Scalable TCP (Kelly 2003; Linux `tcp_scalable.c`): +1 segment per 100 ACKed
            /// segments, ×7/8 on congestion, with NewReno loss recovery (RFC 6582).
            Scalable scalable => Scalable;
        }
    };
}
pub(crate) use congestion_controls;

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

/// `match` over the rows of [`StatefulCc`] (listed by the generated code), binding `$c`.
macro_rules! each_row {
    ($self:expr, [$($C:ident)*], $c:ident => $e:expr) => {
        match $self {
            $( StatefulCc::$C($c) => $e, )*
        }
    };
}

/// Generates [`StatefulCc`], its module declarations and its dispatch from the rows of
/// `congestion_controls!`.
macro_rules! stateful_cc {
    ( $( $(#[$m:meta])* $V:ident $file:ident => $($C:ident),+ ; )* ) => {
        $( pub mod $file; )*

        /// The built-in controllers that keep state of their own (boxed in
        /// [`AnyCc::Stateful`]): the types of the rows of `congestion_controls!`.
        #[derive(Clone, Debug, PartialEq)]
        pub enum StatefulCc {
            $( $(
                #[doc = concat!("`cc::", stringify!($file), "::", stringify!($C), "`.")]
                $C($file::$C),
            )+ )*
        }

        impl StatefulCc {
            /// The controller as `Any`, to be downcast to its type ([`AnyCc::controller`]).
            pub fn as_any(&self) -> &dyn std::any::Any {
                each_row!(self, [$($($C)+)*], c => c as &dyn std::any::Any)
            }
        }

        // Out of line: the RFC 5681 variants' path through `AnyCc` stays a tag test, and
        // the sender's hot functions do not carry every row's code inlined.
        impl CongestionControl for StatefulCc {
            #[inline(never)]
            fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
                each_row!(self, [$($($C)+)*], c => c.on_ack(st, ack))
            }
            #[inline(never)]
            fn on_ecn_ack(&mut self, ack: &EcnAck) {
                each_row!(self, [$($($C)+)*], c => c.on_ecn_ack(ack))
            }
            fn on_recovery_exit_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
                each_row!(self, [$($($C)+)*], c => c.on_recovery_exit_ack(st, ack))
            }
            #[inline(never)]
            fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
                each_row!(self, [$($($C)+)*], c => c.on_congestion(st, cause))
            }
            fn ssthresh_after(&self, st: &CcState) -> u32 {
                each_row!(self, [$($($C)+)*], c => c.ssthresh_after(st))
            }
            fn name(&self) -> &'static str {
                each_row!(self, [$($($C)+)*], c => c.name())
            }
            fn samples_deliveries(&self) -> bool {
                each_row!(self, [$($($C)+)*], c => c.samples_deliveries())
            }
            #[inline(never)]
            fn begin_ack(&mut self) {
                each_row!(self, [$($($C)+)*], c => c.begin_ack())
            }
            #[inline(never)]
            fn on_delivered(&mut self, now: Time, l: u64, r: u64) {
                each_row!(self, [$($($C)+)*], c => c.on_delivered(now, l, r))
            }
            #[inline(never)]
            fn on_ack_delivered(&mut self, st: &CcState, ack: &AckInfo, cum: u64) {
                each_row!(self, [$($($C)+)*], c => c.on_ack_delivered(st, ack, cum))
            }
            fn enter_sack_recovery(&mut self, st: &mut CcState, pipe: u32) {
                each_row!(self, [$($($C)+)*], c => c.enter_sack_recovery(st, pipe))
            }
            fn sack_recovery_ack(&mut self, st: &mut CcState, pipe: u32, lost: u32) {
                each_row!(self, [$($($C)+)*], c => c.sack_recovery_ack(st, pipe, lost))
            }
            #[inline(never)]
            fn on_ack_sample(&mut self, st: &CcState, ack: &AckInfo) {
                each_row!(self, [$($($C)+)*], c => CongestionControl::on_ack_sample(c, st, ack))
            }
            #[inline(never)]
            fn on_send(&mut self, now: Time, off: u64, len: u32, new_data: bool, in_flight: u32) {
                each_row!(self, [$($($C)+)*], c => CongestionControl::on_send(c, now, off, len, new_data, in_flight))
            }
            #[inline(never)]
            fn pacing_allows(&mut self, now: Time, mss: u32) -> bool {
                each_row!(self, [$($($C)+)*], c => CongestionControl::pacing_allows(c, now, mss))
            }
            // Inline: a field read for BBR, and a call here would make the sender's
            // `next_timeout` set up a frame on every call.
            #[inline(always)]
            fn pacing_wakeup(&self) -> Option<Time> {
                each_row!(self, [$($($C)+)*], c => CongestionControl::pacing_wakeup(c))
            }
            #[inline(never)]
            fn pacing_unblock(&mut self) {
                each_row!(self, [$($($C)+)*], c => CongestionControl::pacing_unblock(c))
            }
        }
    };
}

congestion_controls!(stateful_cc);

impl AnyCc {
    /// The boxed row for `c`.
    pub fn stateful(c: StatefulCc) -> AnyCc {
        AnyCc::Stateful(Box::new(c))
    }

    /// The controller, if it is a `T` (its state, for tests, traces and metrics): a
    /// downcast, so a new controller needs no accessor of its own.
    pub fn controller<T: 'static>(&self) -> Option<&T> {
        match self {
            AnyCc::Reno(c) => (c as &dyn std::any::Any).downcast_ref(),
            AnyCc::Stateful(b) => b.as_any().downcast_ref(),
        }
    }

    /// The DCTCP controller, if this is one (its α, for tests and metrics).
    pub fn as_dctcp(&self) -> Option<&Dctcp> {
        self.controller()
    }

    /// The BBR controller, if this is one (its state, for tests and metrics).
    pub fn as_bbr(&self) -> Option<&Bbr> {
        self.controller()
    }

    /// The Vegas controller, if this is one (its BaseRTT and Diff, for tests and metrics).
    pub fn as_vegas(&self) -> Option<&Vegas> {
        self.controller()
    }
}

/// Applies `$e` to the controller inside `$self` (an `AnyCc`): the inline Reno or the boxed
/// row (whose own dispatch is [`StatefulCc`]'s).
macro_rules! dispatch {
    ($self:expr, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($c) => $e,
            AnyCc::Stateful(b) => {
                let $c = &mut **b;
                $e
            }
        }
    };
    (ref $self:expr, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($c) => $e,
            AnyCc::Stateful(b) => {
                let $c = &**b;
                $e
            }
        }
    };
}

/// Calls a hook that only the boxed rows take: [`Reno`] keeps the trait's default for it
/// (a no-op, or `$default`), so the RFC 5681 variants pay one tag test and no call.
macro_rules! stateful_only {
    ($self:expr, $c:ident => $e:expr) => {
        if let AnyCc::Stateful($c) = $self {
            $e
        }
    };
    ($self:expr, $c:ident => $e:expr, else $default:expr) => {
        match $self {
            AnyCc::Stateful($c) => $e,
            AnyCc::Reno(_) => $default,
        }
    };
}

impl CongestionControl for AnyCc {
    #[inline]
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        dispatch!(self, c => c.on_ack(st, ack))
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
    // The hooks below are the trait's defaults for `Reno` (it takes only the four above).
    #[inline]
    fn on_ecn_ack(&mut self, ack: &EcnAck) {
        stateful_only!(self, c => c.on_ecn_ack(ack))
    }
    fn on_recovery_exit_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        stateful_only!(self, c => c.on_recovery_exit_ack(st, ack))
    }
    fn samples_deliveries(&self) -> bool {
        stateful_only!(self, c => c.samples_deliveries(), else false)
    }
    #[inline]
    fn begin_ack(&mut self) {
        stateful_only!(self, c => c.begin_ack())
    }
    #[inline]
    fn on_delivered(&mut self, now: Time, l: u64, r: u64) {
        stateful_only!(self, c => c.on_delivered(now, l, r))
    }
    #[inline]
    fn on_ack_delivered(&mut self, st: &CcState, ack: &AckInfo, cum: u64) {
        stateful_only!(self, c => c.on_ack_delivered(st, ack, cum))
    }
    fn enter_sack_recovery(&mut self, st: &mut CcState, pipe: u32) {
        stateful_only!(self, c => c.enter_sack_recovery(st, pipe))
    }
    fn sack_recovery_ack(&mut self, st: &mut CcState, pipe: u32, lost: u32) {
        stateful_only!(self, c => c.sack_recovery_ack(st, pipe, lost))
    }
    #[inline]
    fn on_ack_sample(&mut self, st: &CcState, ack: &AckInfo) {
        stateful_only!(self, c => c.on_ack_sample(st, ack))
    }
    #[inline]
    fn on_send(&mut self, now: Time, off: u64, len: u32, new_data: bool, in_flight: u32) {
        stateful_only!(self, c => c.on_send(now, off, len, new_data, in_flight))
    }
    #[inline]
    fn pacing_allows(&mut self, now: Time, mss: u32) -> bool {
        stateful_only!(self, c => c.pacing_allows(now, mss), else true)
    }
    #[inline]
    fn pacing_wakeup(&self) -> Option<Time> {
        stateful_only!(self, c => c.pacing_wakeup(), else None)
    }
    #[inline]
    fn pacing_unblock(&mut self) {
        stateful_only!(self, c => c.pacing_unblock())
    }
}
