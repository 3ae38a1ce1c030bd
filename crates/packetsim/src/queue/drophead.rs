//! Head-drop FIFO (`queue = { kind = "drophead", drophead = { limit = 50 } }`): when the
//! queue is full, the oldest waiting packet is dropped so that the arrival can join the tail,
//! as Linux's `pfifo_head_drop` does (net/sched/sch_fifo.c, `pfifo_tail_enqueue`: below the
//! limit `qdisc_enqueue_tail`, else `__qdisc_queue_drop_head` then `qdisc_enqueue_tail`,
//! counted as a drop, `NET_XMIT_CN`). Fresh packets get through a standing queue and stale
//! ones go first, which shortens the feedback loop of a sender's loss detection.
//!
//! It drops a packet other than the arrival, so the link cannot fix each packet's departure
//! when it admits it: it is a dequeue-side discipline ([`super::DequeueDisc`], the pull
//! model), one row of `queue_disciplines!`. It is also the worked example of
//! `docs/extending.md` ("How to add a queue discipline"): this file and that row are the
//! whole change.
//!
//! A byte limit drops as many head packets as the arrival needs room for; an arrival larger
//! than the whole limit is itself dropped (nothing could make room for it).

use super::{DequeueEffects, DropReason, DropTail, Held, HeldFifo, QueueLen, QueueLimit, Verdict};
use crate::packet::Packet;
use packetsim_kernel::{Rate, Rng, Slab, Time};
use serde::{Deserialize, Serialize};

/// Configuration of a head-drop FIFO (the `drophead = { .. }` sub-table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DropHeadConfig {
    /// Capacity: an integer is packets, a byte count with a unit bytes (default 100 packets,
    /// a link's default DropTail limit).
    pub limit: QueueLimit,
}

impl Default for DropHeadConfig {
    fn default() -> Self {
        DropHeadConfig {
            limit: QueueLimit::Packets(100),
        }
    }
}

/// A head-drop FIFO.
#[derive(Clone, Debug)]
pub struct DropHead {
    limit: QueueLimit,
    fifo: HeldFifo,
}

impl super::QueueConfig for DropHeadConfig {
    type Disc = DropHead;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        // `QueueLimit` is positive by construction (its deserializer refuses 0).
        Ok(())
    }
    fn build(&self, _rate: Rate) -> DropHead {
        DropHead {
            limit: self.limit,
            fifo: HeldFifo::default(),
        }
    }
}

impl super::DequeueDisc for DropHead {
    fn enqueue(
        &mut self,
        now: Time,
        id: u32,
        pkt: &mut Packet,
        _rng: &mut Rng,
        fx: &mut DequeueEffects,
    ) -> Verdict {
        if DropTail::full(self.limit, QueueLen::default(), pkt.size) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        while DropTail::full(self.limit, self.fifo.len(), pkt.size) {
            let Some(head) = self.fifo.pop() else { break };
            fx.dropped.push((head.id, DropReason::Overflow));
        }
        self.fifo.push(Held {
            id,
            size: pkt.size,
            at: now,
        });
        Verdict::Queued
    }

    fn dequeue(
        &mut self,
        _now: Time,
        _packets: &mut Slab<Packet>,
        _fx: &mut DequeueEffects,
    ) -> Option<Held> {
        self.fifo.pop()
    }

    fn len(&self) -> QueueLen {
        self.fifo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{test_packet, DequeueDisc, QueueConfig};

    fn offer(q: &mut DropHead, ids: std::ops::Range<u32>, fx: &mut DequeueEffects) {
        let mut rng = Rng::from_seed(1);
        for id in ids {
            let v = q.enqueue(Time::ZERO, id, &mut test_packet(false), &mut rng, fx);
            assert_eq!(v, Verdict::Queued, "packet {id}");
        }
    }

    // sch_fifo.c `pfifo_tail_enqueue`: at the limit the head is dropped and the arrival
    // joins the tail; below it, nothing is dropped.
    #[test]
    fn full_queue_drops_the_oldest_packet_and_admits_the_arrival() {
        let cfg = DropHeadConfig {
            limit: QueueLimit::Packets(3),
        };
        let mut q = cfg.build(Rate::bps(10_000_000));
        let mut fx = DequeueEffects::default();
        offer(&mut q, 0..3, &mut fx);
        assert!(fx.dropped.is_empty());
        offer(&mut q, 3..5, &mut fx);
        assert_eq!(
            fx.dropped,
            vec![(0, DropReason::Overflow), (1, DropReason::Overflow)]
        );
        assert_eq!(q.len().packets, 3);
        let mut packets = Slab::with_capacity(0);
        let out: Vec<u32> = std::iter::from_fn(|| q.dequeue(Time::ZERO, &mut packets, &mut fx))
            .map(|h| h.id)
            .collect();
        assert_eq!(out, vec![2, 3, 4]);
    }

    // A byte limit: as many heads go as the arrival needs room for (1000-byte packets).
    #[test]
    fn byte_limit_drops_heads_until_the_arrival_fits() {
        let cfg = DropHeadConfig {
            limit: QueueLimit::Bytes(2500),
        };
        let mut q = cfg.build(Rate::bps(10_000_000));
        let mut fx = DequeueEffects::default();
        offer(&mut q, 0..3, &mut fx);
        assert_eq!(fx.dropped, vec![(0, DropReason::Overflow)]);
        assert_eq!(q.len(), QueueLen { packets: 2, bytes: 2000 });
        let small = DropHeadConfig {
            limit: QueueLimit::Bytes(999),
        };
        let mut q = small.build(Rate::bps(10_000_000));
        let v = q.enqueue(
            Time::ZERO,
            7,
            &mut test_packet(false),
            &mut Rng::from_seed(1),
            &mut fx,
        );
        assert_eq!(v, Verdict::Dropped(DropReason::Overflow));
    }
}
