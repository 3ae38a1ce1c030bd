//! DropTail: admit while the queue is below its limit, drop arrivals when it is full.

use super::{Admission, QueueLen, QueueLimit, Verdict};
use crate::queue::DropReason;
use packetsim_kernel::Time;

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
}

impl Admission for DropTail {
    #[inline]
    fn admit(&mut self, _now: Time, len: QueueLen, size: u32) -> Verdict {
        let full = match self.limit {
            QueueLimit::Packets(n) => len.packets >= n,
            QueueLimit::Bytes(b) => len.bytes + size as u64 > b,
        };
        if full {
            Verdict::Dropped(DropReason::Overflow)
        } else {
            Verdict::Queued
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_limit_drops_the_arrival_that_would_exceed_it() {
        let mut d = DropTail::new(QueueLimit::Packets(2));
        let len = |p| QueueLen {
            packets: p,
            bytes: p as u64 * 1500,
        };
        assert_eq!(d.admit(Time(0), len(0), 1500), Verdict::Queued);
        assert_eq!(d.admit(Time(0), len(1), 1500), Verdict::Queued);
        assert_eq!(
            d.admit(Time(0), len(2), 1500),
            Verdict::Dropped(DropReason::Overflow)
        );
    }

    #[test]
    fn byte_limit_counts_the_arriving_packet() {
        let mut d = DropTail::new(QueueLimit::Bytes(3000));
        assert_eq!(
            d.admit(
                Time(0),
                QueueLen {
                    packets: 1,
                    bytes: 1500
                },
                1500
            ),
            Verdict::Queued
        );
        assert_eq!(
            d.admit(
                Time(0),
                QueueLen {
                    packets: 1,
                    bytes: 1500
                },
                1501
            ),
            Verdict::Dropped(DropReason::Overflow)
        );
    }
}
