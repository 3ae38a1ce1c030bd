//! Class-based queueing: several FIFO class queues, each with its own admission policy
//! (DropTail, RED, RIO, ...), a classifier by DSCP or by destination, and a scheduler that
//! picks which class transmits next: weighted round robin or strict priority.
//!
//! Classified by destination ([`Classful::per_destination`]), the classes are a base
//! station's per-mobile downlink queues behind one radio transmitter (spec 2 §2.1 and its
//! extension "several mobiles sharing one radio channel"): each class takes the packets to
//! one mobile's addresses, and round robin with every weight 1 serves the backlogged mobiles
//! one packet each in turn.
//!
//! Unlike the lazy FIFO egress, a scheduler reorders packets, so departure times are not known
//! on arrival: the link holds packets here by slab index and pulls the next one when its
//! transmitter frees (a TxDone event; see `net::link` and `world`).
//!
//! WRR (spec 4 §2.2 item 4): classes are visited in a fixed cyclic order; on its visit a
//! backlogged class may send up to its weight in packets; an empty class is skipped and its
//! unused quota is lost; the scheduler never idles while any class has a packet.

use super::{Admission, AnyAdmission, QueueLen, QueueStats, QueueView, Verdict};
use crate::packet::{Packet, Precedence};
use packetsim_kernel::stats::TimeAverage;
use packetsim_kernel::{Rng, Time};
use std::collections::VecDeque;

/// Which class transmits next.
#[derive(Clone, Debug)]
pub enum Scheduler {
    /// Weighted round robin in packets.
    Wrr(Wrr),
    /// Strict priority: the first backlogged class in order.
    Priority,
}

/// Packet-based weighted round robin state.
#[derive(Clone, Debug)]
pub struct Wrr {
    weights: Vec<u32>,
    current: usize,
    left: u32,
}

impl Wrr {
    /// A WRR over classes with these weights (all positive).
    pub fn new(weights: Vec<u32>) -> Wrr {
        debug_assert!(!weights.is_empty() && weights.iter().all(|&w| w > 0));
        let left = weights[0];
        Wrr {
            weights,
            current: 0,
            left,
        }
    }

    /// The class to serve next, given which classes are backlogged; `None` when none is.
    pub fn next(&mut self, backlogged: impl Fn(usize) -> bool) -> Option<usize> {
        let n = self.weights.len();
        if !(0..n).any(&backlogged) {
            return None;
        }
        loop {
            if self.left > 0 && backlogged(self.current) {
                self.left -= 1;
                return Some(self.current);
            }
            // Quota used up, or the class is empty (its unused quota is lost): next class.
            self.current = (self.current + 1) % n;
            self.left = self.weights[self.current];
        }
    }
}

impl Scheduler {
    fn next(&mut self, backlogged: impl Fn(usize) -> bool, n: usize) -> Option<usize> {
        match self {
            Scheduler::Wrr(w) => w.next(backlogged),
            Scheduler::Priority => (0..n).find(|&i| backlogged(i)),
        }
    }
}

/// One class: which code points it takes, its admission policy and its FIFO.
#[derive(Debug)]
pub struct ClassQueue {
    /// The class's name in reports (e.g. "af").
    pub name: String,
    /// The DSCPs classified here; empty means "everything no other class takes".
    pub dscps: Vec<u8>,
    /// Counters of this class's queue.
    pub stats: QueueStats,
    admission: AnyAdmission,
    /// Packets waiting: (slab index, size, IN precedence).
    fifo: VecDeque<(u32, u32, bool)>,
    len: QueueLen,
    in_packets: u32,
    /// When this class's queue last became empty.
    empty_since: Time,
}

impl ClassQueue {
    /// A class taking `dscps` (empty: the default class) with this admission policy.
    pub fn new(name: &str, dscps: Vec<u8>, admission: AnyAdmission) -> ClassQueue {
        ClassQueue {
            name: name.to_string(),
            dscps,
            stats: QueueStats {
                len: TimeAverage::new(Time::ZERO),
                ..Default::default()
            },
            admission,
            fifo: VecDeque::new(),
            len: QueueLen::default(),
            in_packets: 0,
            empty_since: Time::ZERO,
        }
    }

    /// Packets and bytes waiting.
    pub fn len(&self) -> QueueLen {
        self.len
    }

    /// Packets waiting.
    pub fn waiting(&self) -> u64 {
        self.fifo.len() as u64
    }
}

/// Class queues under one scheduler.
#[derive(Debug)]
pub struct Classful {
    /// The classes, in scheduling order.
    pub classes: Vec<ClassQueue>,
    sched: Scheduler,
    /// The class of each DSCP (0..64).
    by_dscp: [u8; 64],
    /// Classified by destination: the class of each address (by index); addresses beyond
    /// the table go to `default`. None: classified by DSCP.
    by_addr: Option<Box<[u8]>>,
    /// The class of packets no rule names.
    default: u8,
}

impl Classful {
    /// Class queues under `sched`. Exactly one class should have no DSCPs (the default); if
    /// none has, unlisted code points go to the last class.
    pub fn new(classes: Vec<ClassQueue>, sched: Scheduler) -> Classful {
        debug_assert!(!classes.is_empty());
        let default = classes
            .iter()
            .position(|c| c.dscps.is_empty())
            .unwrap_or(classes.len() - 1);
        let mut by_dscp = [default as u8; 64];
        for (i, c) in classes.iter().enumerate() {
            for &d in &c.dscps {
                by_dscp[(d & 63) as usize] = i as u8;
            }
        }
        Classful {
            classes,
            sched,
            by_dscp,
            by_addr: None,
            default: default as u8,
        }
    }

    /// Class queues under `sched`, classified by destination address: a packet to address
    /// `a` goes to class `by_addr[a]`, and a packet to an address beyond the table to the last
    /// class (the default). The DSCP is not looked at.
    pub fn per_destination(
        classes: Vec<ClassQueue>,
        sched: Scheduler,
        by_addr: Vec<u8>,
    ) -> Classful {
        debug_assert!(!classes.is_empty() && classes.len() <= u8::MAX as usize);
        debug_assert!(by_addr.iter().all(|&c| (c as usize) < classes.len()));
        let default = (classes.len() - 1) as u8;
        Classful {
            classes,
            sched,
            by_dscp: [default; 64],
            by_addr: Some(by_addr.into_boxed_slice()),
            default,
        }
    }

    /// Whether classes are by destination ([`Classful::per_destination`]).
    pub fn is_per_destination(&self) -> bool {
        self.by_addr.is_some()
    }

    /// The class a packet goes to.
    pub fn class_of(&self, pkt: &Packet) -> usize {
        match &self.by_addr {
            None => self.by_dscp[(pkt.dscp & 63) as usize] as usize,
            Some(t) => t.get(pkt.dst.idx()).copied().unwrap_or(self.default) as usize,
        }
    }

    /// Offers packet `id` (whose contents are `pkt`) at `now`; `link_idle` says whether the
    /// transmitter is idle. The caller counts the aggregate statistics.
    pub fn enqueue(
        &mut self,
        now: Time,
        id: u32,
        pkt: &mut Packet,
        link_idle: bool,
        rng: &mut Rng,
    ) -> Verdict {
        let c = self.class_of(pkt);
        let q = &mut self.classes[c];
        let view = QueueView {
            len: q.len,
            in_packets: q.in_packets,
            idle_since: (link_idle && q.fifo.is_empty()).then_some(q.empty_since),
        };
        let arrived_as = pkt.precedence();
        let v = q.admission.admit(now, &view, pkt, rng);
        q.stats.arrivals += 1;
        q.stats.arrival_bytes += pkt.size as u64;
        q.stats.count_verdict(arrived_as, v);
        match v {
            Verdict::Dropped(r) => q.stats.drop(r),
            Verdict::Queued | Verdict::Marked => {
                if v == Verdict::Marked {
                    q.stats.marks += 1;
                }
                let is_in = pkt.precedence() == Precedence::In;
                q.fifo.push_back((id, pkt.size, is_in));
                q.len.packets += 1;
                q.len.bytes += pkt.size as u64;
                q.in_packets += is_in as u32;
                q.stats.len.set(now, q.len.packets as f64);
            }
        }
        v
    }

    /// Takes the next packet to transmit, per the scheduler: (slab index, size, its class).
    pub fn dequeue(&mut self, now: Time) -> Option<(u32, u32, usize)> {
        let n = self.classes.len();
        let classes = &self.classes;
        let c = self.sched.next(|i| !classes[i].fifo.is_empty(), n)?;
        let q = &mut self.classes[c];
        let (id, size, is_in) = q
            .fifo
            .pop_front()
            .expect("scheduler picked a backlogged class");
        q.len.packets -= 1;
        q.len.bytes -= size as u64;
        q.in_packets -= is_in as u32;
        q.stats.departures += 1;
        q.stats.len.set(now, q.len.packets as f64);
        if q.fifo.is_empty() {
            q.empty_since = now;
        }
        Some((id, size, c))
    }

    /// Total packets and bytes waiting.
    pub fn len(&self) -> QueueLen {
        let mut l = QueueLen::default();
        for c in &self.classes {
            l.packets += c.len.packets;
            l.bytes += c.len.bytes;
        }
        l
    }

    /// Checks each class's bookkeeping identity.
    pub fn check_conservation(&self, egress: &str) -> Result<(), String> {
        for c in &self.classes {
            let s = &c.stats;
            if s.arrivals != s.total_drops() + s.departures + c.waiting() {
                return Err(format!(
                    "{egress}/{}: arrivals {} != drops {} + departures {} + waiting {}",
                    c.name,
                    s.arrivals,
                    s.total_drops(),
                    s.departures,
                    c.waiting()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::packet::{dscp, Body};
    use crate::queue::{DropReason, DropTail, QueueLimit};

    fn dt(n: u32) -> AnyAdmission {
        AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(n)))
    }

    // spec 4 §2.2 item 4: under saturation each class gets its weight's share (in packets).
    #[test]
    fn wrr_saturated_classes_share_by_weight() {
        let mut w = Wrr::new(vec![1, 4, 5]);
        let mut counts = [0u32; 3];
        for _ in 0..10_000 {
            counts[w.next(|_| true).unwrap()] += 1;
        }
        assert_eq!(counts, [1_000, 4_000, 5_000]);
    }

    // spec 4 §2.2 item 4: an empty class is skipped and its quota lost; work-conserving.
    #[test]
    fn wrr_empty_class_skipped_quota_lost() {
        let mut w = Wrr::new(vec![2, 3]);
        let order: Vec<usize> = (0..7).map(|_| w.next(|i| i == 1).unwrap()).collect();
        assert_eq!(
            order,
            vec![1; 7],
            "class 0 is empty: class 1 takes every turn"
        );
        assert_eq!(w.next(|_| false), None);
        // Class 0 becomes backlogged mid-round: it waits for its turn in the cycle.
        let mut w = Wrr::new(vec![2, 3]);
        assert_eq!(w.next(|i| i == 1), Some(1));
        let both: Vec<usize> = (0..6).map(|_| w.next(|_| true).unwrap()).collect();
        assert_eq!(both, vec![1, 1, 0, 0, 1, 1]);
    }

    #[test]
    fn priority_serves_the_first_backlogged_class() {
        let mut s = Scheduler::Priority;
        assert_eq!(s.next(|i| i >= 1, 3), Some(1));
        assert_eq!(s.next(|_| false, 3), None);
    }

    #[test]
    fn classifier_sends_code_points_to_their_class_and_the_rest_to_the_default() {
        let mut cq = Classful::new(
            vec![
                ClassQueue::new("ef", vec![dscp::EF], dt(2)),
                ClassQueue::new("af", vec![dscp::AF11, dscp::AF12], dt(2)),
                ClassQueue::new("be", vec![], dt(2)),
            ],
            Scheduler::Wrr(Wrr::new(vec![1, 4, 5])),
        );
        let mut rng = Rng::from_seed(1);
        let pkt = |d: u8| {
            let mut p = Packet::new(
                Addr(0),
                Addr(1),
                Body::Udp {
                    seq: 0,
                    payload: 100,
                },
            );
            p.dscp = d;
            p
        };
        for (id, d) in [
            (0, dscp::AF12),
            (1, dscp::BE),
            (2, 7),
            (3, dscp::EF),
            (4, dscp::BE),
        ] {
            cq.enqueue(Time::ZERO, id, &mut pkt(d), true, &mut rng);
        }
        assert_eq!(
            cq.classes.iter().map(|c| c.waiting()).collect::<Vec<_>>(),
            vec![1, 1, 2]
        );
        assert_eq!(
            cq.classes[2].stats.drops_for(DropReason::Overflow),
            1,
            "be holds 2"
        );
        // WRR order: ef (1), af (up to 4), be (up to 5).
        let order: Vec<u32> = std::iter::from_fn(|| cq.dequeue(Time::ZERO).map(|x| x.0)).collect();
        assert_eq!(order, vec![3, 0, 1, 2]);
        assert!(!cq.is_per_destination());
        cq.check_conservation("x").unwrap();
        assert_eq!(
            cq.classes[1].stats.by_precedence[Precedence::Out as usize].arrivals,
            1
        );
    }

    // spec 2 §2.1 (one downlink queue per mobile) and its extension "several mobiles sharing
    // one radio channel": classes by destination address, whatever the DSCP; an address no
    // class names goes to the last (default) class; each class has its own limit; round robin
    // (every weight 1) serves the backlogged classes one packet each in turn, skipping empty
    // ones, and dequeue says which class it served.
    #[test]
    fn per_destination_classes_alternate_under_round_robin() {
        let mut cq = Classful::per_destination(
            vec![
                ClassQueue::new("ms1", vec![], dt(3)),
                ClassQueue::new("ms2", vec![], dt(3)),
                ClassQueue::new("other", vec![], dt(3)),
            ],
            Scheduler::Wrr(Wrr::new(vec![1, 1, 1])),
            // Address 0 (the server) -> other, 1 -> ms1, 2 -> ms2.
            vec![2, 0, 1],
        );
        assert!(cq.is_per_destination());
        let mut rng = Rng::from_seed(1);
        let to = |a: u32| {
            let mut p = Packet::new(
                Addr(0),
                Addr(a),
                Body::Udp {
                    seq: 0,
                    payload: 100,
                },
            );
            p.dscp = dscp::EF;
            p
        };
        let verdicts: Vec<Verdict> = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (6, 9)]
            .iter()
            .map(|&(id, a)| cq.enqueue(Time::ZERO, id, &mut to(a), true, &mut rng))
            .collect();
        assert_eq!(
            verdicts[3],
            Verdict::Dropped(DropReason::Overflow),
            "ms1 holds 3"
        );
        assert_eq!(
            cq.classes.iter().map(|c| c.waiting()).collect::<Vec<_>>(),
            vec![3, 2, 1]
        );
        let served: Vec<(u32, usize)> = std::iter::from_fn(|| cq.dequeue(Time::ZERO))
            .map(|(id, _, c)| (id, c))
            .collect();
        assert_eq!(
            served,
            vec![(0, 0), (4, 1), (6, 2), (1, 0), (5, 1), (2, 0)],
            "ms1, ms2, other in turn; then ms1 alone"
        );
        cq.check_conservation("x").unwrap();
    }
}
