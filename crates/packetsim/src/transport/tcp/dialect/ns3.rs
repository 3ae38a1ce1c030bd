//! ns-3.37's TCP (`src/internet/model/tcp-socket-base.cc`, `tcp-tx-buffer.cc`,
//! `tcp-prr-recovery.cc`) where it differs from the RFCs' defaults. There is no `profile =
//! "ns3"` yet: `bench/validate/ns3/run.py` writes these keys itself (its `NS3TCP` set, and
//! `sack_recovery = "prr"` in the cases compared with ns-3's default PRR), and [`OPTIONS`]
//! lists them with their sources so that they resolve to [`NS3`] (`dialect::tests`). What
//! ns-3.37 does differently:
//!
//! - Recovery: PRR (RFC 6937) is the default `TcpSocketBase` `RecoveryType`
//!   (`TcpPrrRecovery`); with SACK, RFC 6675's pipe counts a retransmitted segment the
//!   receiver then SACKs until the cumulative ACK passes it (`TcpTxBuffer::BytesInFlight`,
//!   whose `Update` leaves `m_retrans` set); only the first partial ACK of a recovery
//!   restarts the timer (`TcpSocketBase::ProcessAck`: `NewAck(ack, m_isFirstPartialAck)`).
//! - RTO: every new segment is timed, and an ACK covering the oldest one never
//!   retransmitted gives a sample (`TcpSocketBase::UpdateRttHistory`, `EstimateRtt`); a
//!   timeout sets ssthresh from the controller's rule on RFC 6675's pipe
//!   (`TcpSocketBase::ReTxTimeout`: `GetSsThresh(m_tcb, BytesInFlight())`) and keeps the
//!   SACKed data (`TcpTxBuffer::SetSentListLost(false)`).
//! - Loss detection, slow start, the ACK policy and header accounting as the RFCs (ns-3.37's
//!   `TcpSocketBase::ProcessAck` counts duplicate ACKs by RFC 5681 §2).
//!
//! ns-3.37's controllers' own rules (`cubic_model = "ns3"`, `bbr_send_quantum = "segment"`,
//! `bbr_inflight_quanta`) belong to the controllers (`cc/`), not to this dialect.

use super::standard::STANDARD;
use super::{Dialect, ProfileOption, Table, TimeoutScoreboard};
use crate::transport::tcp::{
    PartialAckTimer, RtoSsthresh, RttSampling, SackPipe, SackRecoveryKind,
};

/// The ns-3.37 dialect: the rules [`OPTIONS`] sets, over the standard ones.
pub const NS3: Dialect = {
    let mut d = STANDARD;
    // TcpSocketBase RecoveryType = TcpPrrRecovery; TcpTxBuffer::BytesInFlight; ProcessAck.
    d.recovery.sack = SackRecoveryKind::Prr;
    d.recovery.sack_pipe = SackPipe::Ns3;
    d.recovery.sack_partial_ack_timer = PartialAckTimer::Impatient;
    // TcpSocketBase::EstimateRtt, ReTxTimeout; TcpTxBuffer::SetSentListLost.
    d.rto.sampling = RttSampling::EverySegment;
    d.rto.ssthresh = RtoSsthresh::Pipe;
    d.rto.scoreboard = TimeoutScoreboard::Keep;
    d
};

/// The keys that select the ns-3.37 dialect (the `ns2` column is ns-3.37's attribute or
/// rule; not a `profile` value, so not in docs/scenario-format.md's profile tables).
pub const OPTIONS: &[ProfileOption] = &[
    ProfileOption {
        table: Table::Tcp,
        key: "sack_recovery",
        value: "\"prr\"",
        ns2: "RecoveryType TcpPrrRecovery (the TcpSocketBase default)",
        source: "src/internet/model/tcp-prr-recovery.cc TcpPrrRecovery::DoRecovery",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "sack_pipe",
        value: "\"ns3\"",
        ns2: "a SACKed retransmission keeps m_retrans until cumulatively acknowledged",
        source: "src/internet/model/tcp-tx-buffer.cc TcpTxBuffer::BytesInFlight, Update",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "sack_partial_ack_timer",
        value: "\"impatient\"",
        ns2: "NewAck(ack, m_isFirstPartialAck): the first partial ACK restarts the timer",
        source: "src/internet/model/tcp-socket-base.cc TcpSocketBase::ProcessAck",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rtt_sampling",
        value: "\"every_segment\"",
        ns2: "m_history: every new segment's send time, sampled unless retransmitted",
        source: "src/internet/model/tcp-socket-base.cc UpdateRttHistory, EstimateRtt",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "rto_ssthresh",
        value: "\"pipe\"",
        ns2: "GetSsThresh(m_tcb, BytesInFlight()) on a timeout",
        source: "src/internet/model/tcp-socket-base.cc TcpSocketBase::ReTxTimeout",
    },
    ProfileOption {
        table: Table::Tcp,
        key: "keep_sack_on_timeout",
        value: "true",
        ns2: "SetSentListLost(false): SACKed items stay SACKed across a timeout",
        source: "src/internet/model/tcp-tx-buffer.cc TcpTxBuffer::SetSentListLost",
    },
];
