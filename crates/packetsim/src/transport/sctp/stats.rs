//! Observation of an association: counters ([`SctpStats`]) and a per-destination snapshot
//! ([`PathMetrics`]) with the RTO history the study's S11 diagnostics need (spec 3 §4).

use crate::ids::Addr;
use packetsim_kernel::{Dur, Time};

/// Counters of one SCTP endpoint (both ends keep them; the data counters move at the sender).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SctpStats {
    /// SCTP packets sent, of any kind.
    pub packets_sent: u64,
    /// DATA chunks sent, including retransmissions.
    pub data_chunks_sent: u64,
    /// User bytes sent in DATA chunks, including retransmissions.
    pub bytes_sent: u64,
    /// User bytes cumulatively acknowledged by the peer.
    pub bytes_acked: u64,
    /// DATA chunks retransmitted, for any reason.
    pub retransmissions: u64,
    /// DATA chunks fast-retransmitted (each TSN at most once).
    pub fast_retransmits: u64,
    /// T3-rtx expiries, all destinations.
    pub t3_expiries: u64,
    /// HEARTBEAT chunks sent.
    pub heartbeats_sent: u64,
    /// HEARTBEAT-ACK chunks received (each an RTT sample).
    pub heartbeats_acked: u64,
    /// Chunks retransmitted more than once ("lost twice", spec 3 §4).
    pub chunks_lost_twice: u64,
    /// Times the association error counter exceeded Association.Max.Retrans.
    pub assoc_max_retrans_events: u64,
    /// Associations aborted (Association.Max.Retrans with `abort_on_assoc_max`, or the
    /// handshake given up).
    pub aborts: u64,
    /// Time with a T3-rtx running on a non-primary destination while the cumulative ack was
    /// blocked by a chunk outstanding on it (spec 3 §4, "time spent waiting on the alternate's
    /// T3").
    pub alt_t3_wait: Dur,
    /// INIT and COOKIE-ECHO retransmissions (T1-init / T1-cookie expiries).
    pub t1_expiries: u64,
    /// SACK chunks sent (receiving end).
    pub sacks_sent: u64,
}

/// A snapshot of one destination's state (per-destination diagnostics, spec 3 §4).
#[derive(Clone, Debug, PartialEq)]
pub struct PathMetrics {
    /// The destination address.
    pub addr: Addr,
    /// Whether it is the primary destination.
    pub primary: bool,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Current RTO (including backoff).
    pub rto: Dur,
    /// Smoothed RTT, once a sample was taken.
    pub srtt: Option<Dur>,
    /// Active (reachable) or inactive.
    pub active: bool,
    /// The destination's error counter.
    pub error_count: u32,
    /// Chunks fast-retransmitted that had last been sent to this destination.
    pub fast_retransmits: u64,
    /// T3-rtx expiries of this destination.
    pub t3_expiries: u64,
    /// Chunks retransmitted to this destination (fast or after a timeout).
    pub retransmissions_sent: u64,
    /// HEARTBEATs sent to this destination.
    pub heartbeats_sent: u64,
    /// RTT samples taken from HEARTBEAT-ACKs of this destination.
    pub heartbeat_samples: u64,
    /// RTT samples taken from DATA chunks sent to this destination.
    pub data_samples: u64,
    /// Every change of the RTO: (when, new value), starting with the initial RTO.
    pub rto_history: Vec<(Time, Dur)>,
}
