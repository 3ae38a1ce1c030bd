//! DropTail: admit while the queue is below its limit, drop arrivals when it is full.
//!
//! The queue holds the packets waiting behind the transmitter; the packet in transmission has
//! left it. With `limit = N` packets, N may wait. ns-2.35's `DropTail::enque` (queue/drop-tail.cc)
//! drops an arrival when `q_->length() + 1 >= qlim_` (bytes: `byteLength() + size >= qlim_ *
//! mean_pktsize_`), so its `qlim_ N` lets N − 1 wait (and a byte limit B admits up to B − 1
//! bytes). [`DropTail::ns2`] builds that rule (scenario key `ns2_limit = true`).

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

    /// A DropTail queue configured with ns-2.35's `qlim_` = `limit` (queue/drop-tail.cc
    /// `DropTail::enque`): an arrival is dropped when the waiting packets plus it reach the limit
    /// (`length() + 1 >= qlim_`), or when the waiting bytes plus it reach a byte limit
    /// (`byteLength() + size >= qlimBytes`). Equivalently, [`DropTail::new`] with one packet
    /// (one byte) less, which is what this builds, so the transmitter's fast path stays as it is.
    /// A limit of 1 packet (1 byte) drops every arrival, as in ns-2.
    pub fn ns2(limit: QueueLimit) -> DropTail {
        let limit = match limit {
            QueueLimit::Packets(n) => QueueLimit::Packets(n.saturating_sub(1)),
            QueueLimit::Bytes(b) => QueueLimit::Bytes(b.saturating_sub(1)),
        };
        DropTail { limit }
    }

    /// The limit as tested (for [`DropTail::ns2`], one less than configured).
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

    /// ns-2.35 queue/drop-tail.cc `DropTail::enque`: `(q_->length() + 1) >= qlim_` drops, so
    /// `qlim_ 3` keeps at most 2 waiting packets (the one in transmission is not in `q_`:
    /// queue/queue.cc `Queue::recv` dequeues it before `LinkDelay` sends it).
    #[test]
    fn ns2_limit_drops_when_the_arrival_would_reach_qlim() {
        let mut d = DropTail::ns2(QueueLimit::Packets(3));
        assert_eq!(admit(&mut d, 0, 0, 1500), Verdict::Queued);
        assert_eq!(admit(&mut d, 1, 1500, 1500), Verdict::Queued);
        assert_eq!(
            admit(&mut d, 2, 3000, 1500),
            Verdict::Dropped(DropReason::Overflow),
            "2 + 1 >= qlim_ 3"
        );
        // qlim_ 1: even an arrival to an empty queue is dropped (0 + 1 >= 1).
        let mut one = DropTail::ns2(QueueLimit::Packets(1));
        assert_eq!(
            admit(&mut one, 0, 0, 40),
            Verdict::Dropped(DropReason::Overflow)
        );
    }

    /// ns-2.35 `DropTail::enque` in bytes (`queue_in_bytes_`): `byteLength() + size >=
    /// qlimBytes` drops, so a packet that would fill the limit exactly is dropped.
    #[test]
    fn ns2_byte_limit_drops_when_the_arrival_would_reach_it() {
        let mut d = DropTail::ns2(QueueLimit::Bytes(3000));
        assert_eq!(admit(&mut d, 1, 1500, 1499), Verdict::Queued);
        assert_eq!(
            admit(&mut d, 1, 1500, 1500),
            Verdict::Dropped(DropReason::Overflow),
            "1500 + 1500 >= 3000"
        );
        // The default rule admits it (1500 + 1500 > 3000 is false).
        let mut std = DropTail::new(QueueLimit::Bytes(3000));
        assert_eq!(admit(&mut std, 1, 1500, 1500), Verdict::Queued);
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
