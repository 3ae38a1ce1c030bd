//! STUB to be replaced by the TCP implementation: only the public API is fixed here.
use super::TcpConfig;
use crate::ids::Addr;
use crate::packet::Packet;
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::Time;

/// How much data the sending application offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppData {
    /// An unlimited backlog (bulk transfer).
    Unlimited,
    /// Exactly this many bytes (a file), then the connection idles.
    Bytes(u64),
}

/// Counters of a TCP sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Payload bytes transmitted, including retransmissions.
    pub bytes_sent: u64,
    /// Payload bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Segments transmitted (data-carrying), including retransmissions.
    pub segments_sent: u64,
    /// Data segments retransmitted (for any reason).
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits (entries into loss recovery by duplicate ACKs or SACK).
    pub fast_retransmits: u64,
}

/// A snapshot of the congestion state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcMetrics {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Current retransmission timeout.
    pub rto: packetsim_kernel::Dur,
}

/// A TCP sender (stub).
pub struct TcpSender {
    stats: SenderStats,
}

impl TcpSender {
    /// A sender from `local` to `remote`.
    pub fn new(_cfg: &TcpConfig, _local: Addr, _remote: Addr, _app: AppData) -> TcpSender {
        TcpSender {
            stats: SenderStats::default(),
        }
    }
    /// Opens the connection (sends the SYN).
    pub fn open(&mut self, _now: Time, _out: &mut Outbox) {}
    /// Counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// Congestion state.
    pub fn cc_metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: 0,
            ssthresh: 0,
            rto: packetsim_kernel::Dur::ZERO,
        }
    }
}

impl Endpoint for TcpSender {
    fn on_packet(&mut self, _now: Time, _pkt: &Packet, _out: &mut Outbox) {}
    fn on_timer(&mut self, _now: Time, _out: &mut Outbox) {}
    fn next_timeout(&self) -> Option<Time> {
        None
    }
}

impl TcpSender {
    /// The application stops offering new data at `now` (stub).
    pub fn stop_app(&mut self, _now: Time) {}
}

impl TcpSender {
    /// The variant (stub).
    pub fn variant(&self) -> super::Variant {
        super::Variant::NewReno
    }
}
