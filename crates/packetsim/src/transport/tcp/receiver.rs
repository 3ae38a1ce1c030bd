//! STUB to be replaced by the TCP implementation: only the public API is fixed here.
use super::TcpConfig;
use crate::ids::Addr;
use crate::packet::Packet;
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::Time;

/// Counters of a TCP receiver.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReceiverStats {
    /// Payload bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Data segments received (including duplicates and out-of-order ones).
    pub segments_received: u64,
    /// Data segments that carried only bytes already received.
    pub duplicate_segments: u64,
    /// ACKs sent.
    pub acks_sent: u64,
}

/// A TCP receiver (stub).
pub struct TcpReceiver {
    stats: ReceiverStats,
}

impl TcpReceiver {
    /// A receiver at `local` for a connection from `remote`.
    pub fn new(_cfg: &TcpConfig, _local: Addr, _remote: Addr) -> TcpReceiver {
        TcpReceiver {
            stats: ReceiverStats::default(),
        }
    }
    /// Counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
}

impl Endpoint for TcpReceiver {
    fn on_packet(&mut self, _now: Time, _pkt: &Packet, _out: &mut Outbox) {}
    fn on_timer(&mut self, _now: Time, _out: &mut Outbox) {}
    fn next_timeout(&self) -> Option<Time> {
        None
    }
}
