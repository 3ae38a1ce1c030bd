//! The standard dialect: the RFCs, and every option's documented default (`profile =
//! "standard"`, and any file without `profile` whose variant is a classic one). Its rules:
//!
//! - Slow start ends at ssthresh or the first loss (RFC 5681 §3.1).
//! - Loss detection by DupThresh duplicate ACKs, condition (e) included (RFC 5681 §2,
//!   §3.2), and RFC 6675's IsLost with SACK; no limited transmit; no fast retransmit for
//!   duplicate ACKs of data sent before a timeout (RFC 6582 §4.1).
//! - Recovery: ssthresh = max(FlightSize / 2, 2 SMSS) (RFC 5681 §3.1 eq. 4), NewReno's
//!   partial ACKs (RFC 6582 §3.2, the first one restarting the timer) and full ACK at
//!   ssthresh, RFC 6675 with SetPipe over the unSACKed octets, every partial ACK restarting
//!   the timer (RFC 6298 §5.3); an ECE cuts as RFC 3168 §6.1.2.
//! - RTO: RFC 6298 (§2 estimator, §3 Karn, §5.3 restart on new data, §5.5 backoff cleared
//!   by a valid sample); a timeout clears the SACK scoreboard (spec 3 §2.3).
//! - ACKs every segment, or RFC 5681 §4.2's delayed ACK when `delayed_ack` is set; CE echoed
//!   as RFC 3168 §6.1.3.
//! - Headers as RFC 793, RFC 2018 and RFC 7323 lay out their options, padded to 4 bytes.

use super::{
    AckRules, Dialect, DupAck, EcnCut, FastRetransmitTiming, Halving, HeaderAccounting,
    LimitedTransmit, LossRules, RecoveryRules, RtoRules, Sack1Scoreboard, SlowStartRules,
    TimeoutScoreboard,
};
use crate::transport::tcp::rtt::RttEstimatorKind;
use crate::transport::tcp::{
    AckPolicy, EcnEcho, FullAckCwnd, LossDetection, LostRetransmit, PartialAckTimer, RecoverGuard,
    RecoveryEntry, RtoBackoffReset, RtoRearm, RtoSsthresh, RttSampling, SackPipe, SackRecoveryKind,
    SlowStart, SsthreshRule,
};

/// The standard dialect (`TcpConfig::default()`'s rules).
pub const STANDARD: Dialect = Dialect {
    slow_start: SlowStartRules {
        exit: SlowStart::Standard,
    },
    loss: LossRules {
        detection: LossDetection::Dupthresh,
        dupack: DupAck::SameWindow,
        limited_transmit: LimitedTransmit::Off,
        recover_guard: RecoverGuard::AfterTimeout,
        lost_retransmit: LostRetransmit::Off,
    },
    recovery: RecoveryRules {
        ssthresh: SsthreshRule::Rfc5681,
        halving: Halving::Whole,
        ecn_cut: EcnCut::Rfc3168,
        sack: SackRecoveryKind::Rfc6675,
        sack1_scoreboard: Sack1Scoreboard::Kept,
        sack_pipe: SackPipe::Rfc6675,
        sack_partial_ack_timer: PartialAckTimer::SlowButSteady,
        newreno_partial_ack_timer: PartialAckTimer::Impatient,
        newreno_full_ack: FullAckCwnd::Ssthresh,
        entry: RecoveryEntry::NewLoss,
    },
    rto: RtoRules {
        estimator: RttEstimatorKind::Rfc6298,
        sampling: RttSampling::OnePerRtt,
        fast_retransmit_timing: FastRetransmitTiming::Karn,
        backoff_reset: RtoBackoffReset::Sample,
        rearm: RtoRearm::NewAck,
        ssthresh: RtoSsthresh::FlightSize,
        scoreboard: TimeoutScoreboard::Clear,
    },
    ack: AckRules {
        policy: AckPolicy::Standard,
        dsack: false,
        ecn_echo: EcnEcho::Rfc3168,
    },
    headers: HeaderAccounting::Rfc,
};
