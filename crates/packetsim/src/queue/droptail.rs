//! DropTail: admit while the queue is below its limit, drop arrivals when it is full.

use super::{Admission, QueueLen, QueueLimit, QueueView, Verdict};
use crate::packet::Packet;
use crate::queue::DropReason;
use packetsim_kernel::{Rng, Time};

/// Tail drop with a limit in packets or bytes.
#[derive(Clone, Debug)]
pub struct DropTail {
    limit: QueueLimit,
}

impl DropTail {
    /// A DropTail queue with this limit.
    pub fn new(limit: QueueLimit) -> DropTail {
        DropTail { limit }
    }

    /// The limit.
    #[inline]
    pub fn limit(&self) -> QueueLimit {
        self.limit
    }

    /// Whether a packet of `size` bytes would overflow a queue of length `len`.
    #[inline]
    pub fn is_full(&self, len: QueueLen, size: u32) -> bool {
        Self::full(self.limit, len, size)
    }

    /// Whether a packet of `size` bytes would overflow a queue of length `len` under `limit`.
    #[inline(always)]
    pub fn full(limit: QueueLimit, len: QueueLen, size: u32) -> bool {
        match limit {
            QueueLimit::Packets(n) => len.packets >= n,
            QueueLimit::Bytes(b) => len.bytes + size as u64 > b,
        }
    }
}

impl Admission for DropTail {
    #[inline(always)]
    fn admit(&mut self, _now: Time, q: &QueueView, pkt: &mut Packet, _rng: &mut Rng) -> Verdict {
        if self.is_full(q.len, pkt.size) {
            Verdict::Dropped(DropReason::Overflow)
        } else {
            Verdict::Queued
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::packet::Body;

    fn admit(d: &mut DropTail, packets: u32, bytes: u64, size: u32) -> Verdict {
        let q = QueueView {
            len: QueueLen { packets, bytes },
            ..Default::default()
        };
        let mut p = Packet::new(Addr(0), Addr(1), Body::Udp { seq: 0, payload: 0 });
        p.size = size;
        d.admit(Time(0), &q, &mut p, &mut Rng::from_seed(1))
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_would_exceed_it() {
        let mut d = DropTail::new(QueueLimit::Packets(2));
        assert_eq!(admit(&mut d, 0, 0, 1500), Verdict::Queued);
        assert_eq!(admit(&mut d, 1, 1500, 1500), Verdict::Queued);
        assert_eq!(
            admit(&mut d, 2, 3000, 1500),
            Verdict::Dropped(DropReason::Overflow)
        );
    }

    #[test]
    fn byte_limit_counts_the_arriving_packet() {
        let mut d = DropTail::new(QueueLimit::Bytes(3000));
        assert_eq!(admit(&mut d, 1, 1500, 1500), Verdict::Queued);
        assert_eq!(
            admit(&mut d, 1, 1500, 1501),
            Verdict::Dropped(DropReason::Overflow)
        );
    }
}
