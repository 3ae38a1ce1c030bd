//! FQ-CoDel (RFC 8290): flow queues served by deficit round robin, each under its own CoDel.
//!
//! - **Classification** (RFC 8290 §4.1.1 allows other schemes than the 5-tuple hash): a
//!   packet goes to flow queue `flow id mod flows`, its simulator flow id (every packet of a
//!   TCP connection, a UDP flow, ... shares one). So distinct flows never share a queue while
//!   there are no more flows than `flows` (a hash of the 5-tuple would collide at random).
//! - **Enqueue** (§4.1): the packet joins its flow queue, stamped with its arrival time; a flow
//!   queue that is in neither list joins the tail of the *new* list with `deficit = quantum`.
//!   When the whole discipline then holds more than `limit` packets, one packet is dropped
//!   from the head of the flow queue holding the most bytes (reason `overflow`; the lowest
//!   index on ties): one packet per excess arrival, as the RFC's text describes. With
//!   `drop_batch_size = n > 1` the overflow drops as Linux's `fq_codel_drop` and ns-3.37's
//!   `FqCoDelQueueDisc::FqCoDelDrop` do: head packets of that queue until `n` are gone or
//!   the bytes dropped reach half of its backlog (at least one; both default to 64).
//! - **Dequeue** (§4.2): take the first queue of the new list, else of the old list. If its
//!   deficit is not positive, add `quantum` and move it to the tail of the old list, and look
//!   again. Else run its CoDel (`queue::codel`, RFC 8289, with the sub-queue's own bytes for
//!   the `maxpacket` test); if that yields a packet, subtract its size from the deficit and
//!   send it. If the queue is empty: a queue from the new list moves to the tail of the old
//!   list when the old list is not empty (so a flow cannot stay "new" by emptying, §4.2), else
//!   it leaves the lists.
//! - ECN (§5.2.7 in spirit, as Linux): on by default; CoDel marks ECN-capable packets instead
//!   of dropping them.

use super::codel::{
    codel_params_valid, CoDelLaw, CoDelParams, CoDelState, DequeueEffects, Held, HeldFifo,
};
use super::{DropReason, QueueLen};
use crate::packet::Packet;
use crate::units;
use packetsim_kernel::{Dur, Slab, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Configuration of an FQ-CoDel queue (`queue = { kind = "fq_codel", fq_codel = { .. } }`).
/// Defaults are RFC 8290's and Linux's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCoDelConfig {
    /// CoDel's target per flow queue (default 5 ms).
    #[serde(with = "units::dur")]
    pub target: Dur,
    /// CoDel's interval (default 100 ms).
    #[serde(with = "units::dur")]
    pub interval: Dur,
    /// Mark ECN-capable packets instead of dropping them (default true, as Linux).
    pub ecn: bool,
    /// Packets held in all flow queues together (default 10240).
    pub limit: u32,
    /// Bytes a flow may send per round (default 1514).
    #[serde(with = "units::bytes")]
    pub quantum: u64,
    /// Number of flow queues (default 1024).
    pub flows: u32,
    /// CoDel's `maxpacket` (default 1500).
    #[serde(with = "units::bytes")]
    pub mtu: u64,
    /// CoDel's interval/√count: exact (RFC 8289, default) or Newton steps (Linux, ns-3).
    pub control_law: CoDelLaw,
    /// Packets one overflow may drop from the fattest flow queue, stopping once half its
    /// bytes are gone (default 1: one per excess arrival; Linux and ns-3.37: 64).
    #[serde(skip_serializing_if = "is_one")]
    pub drop_batch_size: u32,
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl Default for FqCoDelConfig {
    fn default() -> Self {
        FqCoDelConfig {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            ecn: true,
            limit: 10240,
            quantum: 1514,
            flows: 1024,
            mtu: 1500,
            control_law: CoDelLaw::Rfc8289,
            drop_batch_size: 1,
        }
    }
}

impl FqCoDelConfig {
    /// Checks the values; the error names the offending key.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        codel_params_valid(self.target, self.interval, self.mtu)?;
        if self.limit == 0 {
            return Err(("limit", "expected a positive number of packets".into()));
        }
        if self.quantum == 0 || self.quantum > 1 << 20 {
            return Err((
                "quantum",
                format!("expected 1 B to 1 MiB, got {}", self.quantum),
            ));
        }
        if self.drop_batch_size == 0 || self.drop_batch_size > 65_536 {
            return Err((
                "drop_batch_size",
                format!("expected 1 to 65536 packets, got {}", self.drop_batch_size),
            ));
        }
        if self.flows == 0 || self.flows > 65_536 {
            return Err(("flows", format!("expected 1 to 65536, got {}", self.flows)));
        }
        Ok(())
    }
}

/// Which list a flow queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
}

/// One flow queue.
#[derive(Clone, Debug, Default)]
struct FlowQueue {
    fifo: HeldFifo,
    codel: CoDelState,
    deficit: i64,
    list: Option<List>,
}

/// An FQ-CoDel queue.
#[derive(Clone, Debug)]
pub struct FqCoDel {
    params: CoDelParams,
    quantum: i64,
    limit: u32,
    drop_batch: u32,
    flows: Vec<FlowQueue>,
    new: VecDeque<u32>,
    old: VecDeque<u32>,
    len: QueueLen,
}

impl FqCoDel {
    /// An FQ-CoDel queue from a validated config.
    pub fn new(cfg: &FqCoDelConfig) -> FqCoDel {
        debug_assert!(cfg.validate().is_ok(), "FQ-CoDel config not validated");
        FqCoDel {
            params: CoDelParams {
                target: cfg.target,
                interval: cfg.interval,
                ecn: cfg.ecn,
                mtu: cfg.mtu,
                law: cfg.control_law,
            },
            quantum: cfg.quantum as i64,
            limit: cfg.limit,
            drop_batch: cfg.drop_batch_size,
            flows: vec![FlowQueue::default(); cfg.flows as usize],
            new: VecDeque::new(),
            old: VecDeque::new(),
            len: QueueLen::default(),
        }
    }

    /// The flow queue of `pkt`: its flow id modulo the number of queues.
    pub fn queue_of(&self, pkt: &Packet) -> usize {
        pkt.flow.0 as usize % self.flows.len()
    }

    /// Offers packet `id` (contents `pkt`) at `now` (RFC 8290 §4.1). It is always queued; a
    /// packet dropped to keep within the limit goes to `fx.dropped`.
    pub fn enqueue(&mut self, now: Time, id: u32, pkt: &Packet, fx: &mut DequeueEffects) {
        let b = self.queue_of(pkt);
        let q = &mut self.flows[b];
        q.fifo.push(Held {
            id,
            size: pkt.size,
            at: now,
        });
        self.len.packets += 1;
        self.len.bytes += pkt.size as u64;
        if q.list.is_none() {
            q.list = Some(List::New);
            q.deficit = self.quantum;
            self.new.push_back(b as u32);
        }
        if self.len.packets > self.limit {
            // The fattest flow queue (first on ties) loses its head packet, or with a batch
            // (Linux `fq_codel_drop`) head packets until the batch is spent or half its bytes
            // are gone.
            let fat = (0..self.flows.len())
                .max_by_key(|&i| (self.flows[i].fifo.len().bytes, std::cmp::Reverse(i)))
                .expect("at least one flow queue");
            let half = self.flows[fat].fifo.len().bytes / 2;
            let (mut count, mut bytes) = (0, 0u64);
            loop {
                let h = self.flows[fat]
                    .fifo
                    .pop()
                    .expect("the fattest queue holds a packet");
                self.len.packets -= 1;
                self.len.bytes -= h.size as u64;
                fx.dropped.push((h.id, DropReason::Overflow));
                count += 1;
                bytes += h.size as u64;
                if count >= self.drop_batch || bytes >= half {
                    break;
                }
            }
        }
    }

    /// The packet to send at `now` (RFC 8290 §4.2), after CoDel's drops and marks.
    pub fn dequeue(
        &mut self,
        now: Time,
        packets: &mut Slab<Packet>,
        fx: &mut DequeueEffects,
    ) -> Option<Held> {
        loop {
            let (b, from_new) = match (self.new.front(), self.old.front()) {
                (Some(&b), _) => (b as usize, true),
                (None, Some(&b)) => (b as usize, false),
                (None, None) => return None,
            };
            if from_new {
                self.new.pop_front();
            } else {
                self.old.pop_front();
            }
            let q = &mut self.flows[b];
            if q.deficit <= 0 {
                q.deficit += self.quantum;
                q.list = Some(List::Old);
                self.old.push_back(b as u32);
                continue;
            }
            let before = q.fifo.len();
            let h = q.codel.dequeue(&self.params, now, &mut q.fifo, packets, fx);
            let after = q.fifo.len();
            self.len.packets -= before.packets - after.packets;
            self.len.bytes -= before.bytes - after.bytes;
            match h {
                Some(h) => {
                    q.deficit -= h.size as i64;
                    // It stays at the head of its list.
                    if from_new {
                        self.new.push_front(b as u32);
                    } else {
                        self.old.push_front(b as u32);
                    }
                    return Some(h);
                }
                None => {
                    if from_new && !self.old.is_empty() {
                        q.list = Some(List::Old);
                        self.old.push_back(b as u32);
                    } else {
                        q.list = None;
                    }
                }
            }
        }
    }

    /// Packets and bytes waiting in all flow queues.
    pub fn len(&self) -> QueueLen {
        self.len
    }
}


impl super::QueueConfig for FqCoDelConfig {
    type Disc = FqCoDel;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        FqCoDelConfig::validate(self)
    }
    fn build(&self, _rate: packetsim_kernel::Rate) -> FqCoDel {
        FqCoDel::new(self)
    }
}

impl super::DequeueDisc for FqCoDel {
    #[inline]
    fn enqueue(
        &mut self,
        now: Time,
        id: u32,
        pkt: &mut Packet,
        _rng: &mut packetsim_kernel::Rng,
        fx: &mut DequeueEffects,
    ) -> super::Verdict {
        FqCoDel::enqueue(self, now, id, pkt, fx);
        super::Verdict::Queued
    }
    #[inline]
    fn dequeue(
        &mut self,
        now: Time,
        packets: &mut Slab<Packet>,
        fx: &mut DequeueEffects,
    ) -> Option<Held> {
        FqCoDel::dequeue(self, now, packets, fx)
    }
    fn len(&self) -> QueueLen {
        FqCoDel::len(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Addr, FlowId};
    use crate::packet::Body;

    fn pkt(flow: u32, seq: u64) -> Packet {
        let mut p = Packet::new(Addr(0), Addr(1), Body::Udp { seq, payload: 972 });
        p.size = 1000;
        p.flow = FlowId(flow);
        p
    }

    fn fq(limit: u32) -> FqCoDel {
        FqCoDel::new(&FqCoDelConfig {
            quantum: 1000,
            limit,
            ..FqCoDelConfig::default()
        })
    }

    /// Runs `arrivals` (ms, flow, seq) against one dequeue per ms (after that ms's arrivals)
    /// from 0 to `until` ms: (ms, flow, seq) of each packet sent, in order.
    fn run(q: &mut FqCoDel, arrivals: &[(u64, u32, u64)], until: u64) -> Vec<(u64, u32, u64)> {
        let mut slab = Slab::with_capacity(64);
        let mut fx = DequeueEffects::default();
        let mut sent = Vec::new();
        for t in 0..=until {
            let now = Time::from_millis(t);
            for &(_, f, s) in arrivals.iter().filter(|a| a.0 == t) {
                let p = pkt(f, s);
                let id = slab.insert(p.clone());
                q.enqueue(now, id, &p, &mut fx);
            }
            if let Some(h) = q.dequeue(now, &mut slab, &mut fx) {
                let p = slab.remove(h.id);
                let Body::Udp { seq, .. } = p.body else {
                    unreachable!()
                };
                sent.push((t, p.flow.0, seq));
            }
        }
        assert!(fx.dropped.is_empty());
        sent
    }

    // RFC 8290 §4.1-4.2: a fat flow (0) dumps 6 packets at t = 0; a thin flow (1) sends one
    // packet at 2 ms and one at 5 ms; the link sends one 1000-B packet per ms, quantum 1000
    // (one packet per round). Each thin packet arrives to an empty flow queue, joins the
    // new list and is sent in the ms it arrives; the fat flow's queue, moved to the old list
    // once its quantum is spent, waits one packet each time. Through a FIFO, the thin packets
    // would wait behind the whole burst (sent at 6 and 7 ms).
    #[test]
    fn thin_flow_is_served_at_once_beside_a_fat_flow() {
        let mut q = fq(100);
        let mut arrivals: Vec<(u64, u32, u64)> = (0..6).map(|s| (0, 0, s)).collect();
        arrivals.extend([(2, 1, 0), (5, 1, 1)]);
        let sent = run(&mut q, &arrivals, 9);
        assert_eq!(
            sent,
            vec![
                (0, 0, 0),
                (1, 0, 1),
                (2, 1, 0),
                (3, 0, 2),
                (4, 0, 3),
                (5, 1, 1),
                (6, 0, 4),
                (7, 0, 5),
            ]
        );
        assert_eq!(q.len(), QueueLen::default());
        assert!(
            q.new.is_empty() && q.old.is_empty(),
            "idle queues leave the lists"
        );
    }

    // RFC 8290 §4.2 deficit round robin: two backlogged flows with quantum 1000 and packets of
    // 1000 B alternate one packet each; with quantum 2000, two each.
    #[test]
    fn backlogged_flows_share_by_quantum() {
        let arrivals: Vec<(u64, u32, u64)> = (0..4).flat_map(|s| [(0, 0, s), (0, 1, s)]).collect();
        let flows =
            |q: &mut FqCoDel| -> Vec<u32> { run(q, &arrivals, 7).iter().map(|s| s.1).collect() };
        assert_eq!(flows(&mut fq(100)), [0, 1, 0, 1, 0, 1, 0, 1]);
        let mut q2 = FqCoDel::new(&FqCoDelConfig {
            quantum: 2000,
            ..FqCoDelConfig::default()
        });
        assert_eq!(flows(&mut q2), [0, 0, 1, 1, 0, 0, 1, 1]);
    }

    // RFC 8290 §4.1: over the limit, the packet dropped is the head of the flow queue with the
    // most bytes, not the arrival: the thin flow keeps its packet.
    #[test]
    fn over_the_limit_the_fattest_flow_loses_its_head() {
        let mut q = fq(5);
        let mut slab = Slab::with_capacity(8);
        let mut fx = DequeueEffects::default();
        let mut ids = Vec::new();
        for (f, s) in [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1)] {
            let p = pkt(f, s);
            let id = slab.insert(p.clone());
            ids.push(id);
            q.enqueue(Time::ZERO, id, &p, &mut fx);
        }
        assert_eq!(fx.dropped, vec![(ids[0], DropReason::Overflow)]);
        assert_eq!(q.len().packets, 5);
        assert_eq!(q.flows[0].fifo.front().map(|h| h.id), Some(ids[1]));
        assert_eq!(q.flows[1].fifo.len().packets, 2);
    }

    // Linux `fq_codel_drop`, ns-3.37 `FqCoDelQueueDisc::FqCoDelDrop` (`drop_batch_size`):
    // the overflow takes head packets of the fattest queue until the batch is spent or the
    // bytes dropped reach half its backlog. Flow 0 holds 8 packets (8000 B) and flow 1 one
    // when the limit of 9 is passed: batch 64 drops 4 (4000 B = half), batch 3 drops 3,
    // batch 1 one.
    #[test]
    fn drop_batch_takes_up_to_half_the_fattest_queue() {
        for (batch, dropped) in [(64, 4), (3, 3), (1, 1)] {
            let mut q = FqCoDel::new(&FqCoDelConfig {
                quantum: 1000,
                limit: 9,
                drop_batch_size: batch,
                ..FqCoDelConfig::default()
            });
            let mut slab = Slab::with_capacity(16);
            let mut fx = DequeueEffects::default();
            let mut ids = Vec::new();
            for (f, s) in (0..8).map(|s| (0, s)).chain([(1, 0), (1, 1)]) {
                let p = pkt(f, s);
                let id = slab.insert(p.clone());
                ids.push(id);
                q.enqueue(Time::ZERO, id, &p, &mut fx);
            }
            let want: Vec<_> = ids[..dropped]
                .iter()
                .map(|&id| (id, DropReason::Overflow))
                .collect();
            assert_eq!(fx.dropped, want, "batch {batch}");
            assert_eq!(q.len().packets, 10 - dropped as u32);
            assert_eq!(q.flows[1].fifo.len().packets, 2, "the thin flow keeps both");
        }
    }

    #[test]
    fn config_validates_naming_the_key() {
        let bad = |c: FqCoDelConfig| c.validate().unwrap_err().0;
        assert_eq!(
            bad(FqCoDelConfig {
                quantum: 0,
                ..Default::default()
            }),
            "quantum"
        );
        assert_eq!(
            bad(FqCoDelConfig {
                flows: 0,
                ..Default::default()
            }),
            "flows"
        );
        assert_eq!(
            bad(FqCoDelConfig {
                limit: 0,
                ..Default::default()
            }),
            "limit"
        );
        assert_eq!(
            bad(FqCoDelConfig {
                drop_batch_size: 0,
                ..Default::default()
            }),
            "drop_batch_size"
        );
        let c: FqCoDelConfig = toml::from_str("quantum = 300\nflows = 16\necn = false").unwrap();
        assert_eq!((c.quantum, c.flows, c.ecn), (300, 16, false));
        assert!(toml::from_str::<FqCoDelConfig>("quantm = 300").is_err());
    }
}
