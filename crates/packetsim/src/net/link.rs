//! One direction of a link: FIFO queue, transmitter, propagation delay and error model.
//!
//! The queue is lazy: the transmitter's free time is known, so an admitted packet's start of
//! transmission, its end, and its arrival at the far end are all computed on enqueue. Waiting
//! packets are remembered only by their start times, popped as the clock passes them
//! ([`Egress::drain`]), which gives exact queue lengths and time averages.
//!
//! Error model decisions are drawn at enqueue, in FIFO order, from this direction's own RNG
//! stream. A lost packet still occupies the transmitter (it is corrupted on the wire). A packet
//! whose transmission or propagation overlaps a scheduled outage `[from, to)` is lost.

use super::DirectionParams;
use crate::ids::{LinkId, NodeId};
use crate::packet::{Ecn, Packet, Precedence};
use crate::queue::{
    Admission, Classifier, DropReason, QueueDisc, QueueLen, QueueStats, QueueView, Verdict,
};
use packetsim_kernel::stats::TimeAverage;
use packetsim_kernel::{Dur, Rate, Rng, Time};
use std::collections::VecDeque;

/// Random and scheduled losses on one link direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ErrorModel {
    /// Probability that a packet is lost, independently of all others (Bernoulli).
    pub loss: f64,
    /// Probability that a bit is corrupted; a packet of n bits survives with (1 - ber)^n.
    pub ber: f64,
    /// Intervals `[from, to)` during which the link is down, sorted and disjoint.
    pub outages: Vec<(Time, Time)>,
}

impl ErrorModel {
    fn down_during(&self, from: Time, to: Time) -> bool {
        self.outages.iter().any(|&(a, b)| from < b && a <= to)
    }

    fn corrupts(&self, rng: &mut Rng, size: u32) -> bool {
        let mut p = self.loss;
        if self.ber > 0.0 {
            let survive = (1.0 - self.ber).powf(size as f64 * 8.0);
            p = 1.0 - (1.0 - p) * survive;
        }
        p > 0.0 && rng.bernoulli(p)
    }
}

/// Counters of one link direction.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Packets that entered the transmitter.
    pub transmitted: u64,
    /// Bytes that entered the transmitter.
    pub transmitted_bytes: u64,
    /// Packets lost to the error model.
    pub lost_error: u64,
    /// Packets lost to outages.
    pub lost_down: u64,
    /// Packets that reached the far end.
    pub delivered: u64,
    /// Total transmission time (for utilisation).
    pub busy: Dur,
}

/// One direction of a link.
#[derive(Debug)]
pub struct Egress {
    /// `<link>:<from>-><to>`, used in reports.
    pub name: String,
    /// The link this direction belongs to.
    pub link: LinkId,
    /// The sending end.
    pub from: NodeId,
    /// The receiving end.
    pub to: NodeId,
    /// Transmission rate.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Random and scheduled losses.
    pub errors: ErrorModel,
    /// Queue counters.
    pub queue: QueueStats,
    /// Link counters.
    pub stats: LinkStats,
    disc: QueueDisc,
    /// Start-of-transmission time, size and IN-ness of each packet still waiting, in FIFO order.
    waiting: VecDeque<(Time, u32, bool)>,
    len: QueueLen,
    in_packets: u32,
    busy_until: Time,
    /// The error model's random stream.
    rng: Rng,
    /// The admission policy's random stream (RED's drop decisions).
    queue_rng: Rng,
    /// At a DiffServ edge: classifies and meters data packets before the queue.
    classifier: Option<Box<Classifier>>,
}

impl Egress {
    pub(super) fn new(
        name: String,
        link: LinkId,
        from: NodeId,
        to: NodeId,
        p: DirectionParams,
        rng: Rng,
    ) -> Egress {
        Egress {
            name,
            link,
            from,
            to,
            rate: p.rate,
            delay: p.delay,
            errors: p.errors,
            queue: QueueStats {
                len: TimeAverage::new(Time::ZERO),
                ..Default::default()
            },
            stats: LinkStats::default(),
            disc: p.queue,
            waiting: VecDeque::new(),
            len: QueueLen::default(),
            in_packets: 0,
            busy_until: Time::ZERO,
            classifier: None,
            queue_rng: Rng::from_seed(rng.clone().next_u64() ^ 0x5157_5545_5545_0000),
            rng,
        }
    }

    /// Moves every packet whose transmission has started by `now` out of the queue.
    #[inline]
    pub fn drain(&mut self, now: Time) {
        while let Some(&(start, size, is_in)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.len.packets -= 1;
            self.len.bytes -= size as u64;
            self.in_packets -= is_in as u32;
            self.queue.departures += 1;
            self.queue.len.set(start, self.len.packets as f64);
        }
    }

    /// Packets and bytes waiting at `now` (call [`Egress::drain`] first).
    pub fn len(&self) -> QueueLen {
        match &self.disc {
            QueueDisc::Fifo(_) => self.len,
            QueueDisc::Classful(c) => c.len(),
        }
    }

    /// Makes this direction a DiffServ edge: `c` classifies and marks data packets on arrival,
    /// before the queue sees them. Packets without payload (ACKs, SYNs) are left as they are.
    pub fn set_classifier(&mut self, c: Classifier) {
        self.classifier = Some(Box::new(c));
    }

    /// The edge classifier, if this direction is a DiffServ edge.
    pub fn classifier(&self) -> Option<&Classifier> {
        self.classifier.as_deref()
    }

    #[inline]
    fn condition(&mut self, now: Time, pkt: &mut Packet) {
        if let Some(c) = self.classifier.as_mut() {
            if pkt.payload() > 0 {
                c.classify(now, pkt);
            }
        }
    }

    /// Whether this direction schedules class queues (pull model) rather than one lazy FIFO.
    pub fn is_classful(&self) -> bool {
        matches!(self.disc, QueueDisc::Classful(_))
    }

    /// The class queues, for a classful egress.
    pub fn classes(&self) -> Option<&crate::queue::Classful> {
        match &self.disc {
            QueueDisc::Classful(c) => Some(c),
            QueueDisc::Fifo(_) => None,
        }
    }

    /// Pull model: offers packet `id` (held by the caller; `pkt` is its contents) to the class
    /// queues at `now`. On `Err` the caller drops it.
    pub fn enqueue_held(&mut self, now: Time, id: u32, pkt: &mut Packet) -> Result<(), DropReason> {
        let link_idle = self.busy_until <= now;
        let QueueDisc::Classful(c) = &mut self.disc else {
            unreachable!("{}: enqueue_held() on a FIFO egress; use send()", self.name)
        };
        if let Some(cl) = self.classifier.as_mut() {
            if pkt.payload() > 0 {
                cl.classify(now, pkt);
            }
        }
        let arrived_as = pkt.precedence();
        let verdict = c.enqueue(now, id, pkt, link_idle, &mut self.queue_rng);
        let total = c.len().packets;
        self.queue.arrivals += 1;
        self.queue.arrival_bytes += pkt.size as u64;
        self.queue.count_verdict(arrived_as, verdict);
        match verdict {
            Verdict::Dropped(r) => {
                self.queue.drop(r);
                Err(r)
            }
            Verdict::Queued | Verdict::Marked => {
                if verdict == Verdict::Marked {
                    pkt.ecn = Ecn::Ce;
                    self.queue.marks += 1;
                }
                self.queue.len.set(now, total as f64);
                Ok(())
            }
        }
    }

    /// Pull model: if the transmitter is idle at `now` and a packet waits, starts sending the
    /// one the scheduler picks. Returns its id, when it arrives at the far end (or why it is
    /// lost on the wire), and when the transmitter frees again.
    pub fn start_next(&mut self, now: Time) -> Option<(u32, Result<Time, DropReason>, Time)> {
        if self.busy_until > now {
            return None;
        }
        let QueueDisc::Classful(c) = &mut self.disc else {
            return None;
        };
        let (id, size) = c.dequeue(now)?;
        let total = c.len().packets;
        self.queue.departures += 1;
        self.queue.len.set(now, total as f64);
        let tx = self.rate.tx_time(size);
        self.busy_until = now + tx;
        self.stats.transmitted += 1;
        self.stats.transmitted_bytes += size as u64;
        self.stats.busy += tx;
        let arrival = self.busy_until + self.delay;
        let fate = if !self.errors.outages.is_empty() && self.errors.down_during(now, arrival) {
            self.stats.lost_down += 1;
            Err(DropReason::LinkDown)
        } else if self.errors.corrupts(&mut self.rng, size) {
            self.stats.lost_error += 1;
            Err(DropReason::Error)
        } else {
            Ok(arrival)
        };
        Some((id, fate, self.busy_until))
    }

    /// Offers `pkt` to this direction at `now`. Returns when it arrives at the far end, or
    /// why it was dropped (at the queue or on the wire). May set the packet's CE mark.
    #[inline]
    pub fn send(&mut self, now: Time, pkt: &mut Packet) -> Result<Time, DropReason> {
        self.drain(now);
        self.queue.arrivals += 1;
        self.queue.arrival_bytes += pkt.size as u64;
        self.condition(now, pkt);
        let view = QueueView {
            len: self.len,
            in_packets: self.in_packets,
            idle_since: (self.len.packets == 0 && self.busy_until <= now)
                .then_some(self.busy_until),
        };
        let arrived_as = pkt.precedence();
        let QueueDisc::Fifo(admission) = &mut self.disc else {
            unreachable!(
                "{}: send() on a classful egress; use enqueue_held()",
                self.name
            )
        };
        let verdict = admission.admit(now, &view, pkt, &mut self.queue_rng);
        self.queue.count_verdict(arrived_as, verdict);
        match verdict {
            Verdict::Queued => {}
            Verdict::Marked => {
                debug_assert!(
                    pkt.ecn.is_ect() || pkt.ecn == Ecn::Ce,
                    "marking a packet that is not ECN-capable"
                );
                pkt.ecn = Ecn::Ce;
                self.queue.marks += 1;
            }
            Verdict::Dropped(r) => {
                self.queue.drop(r);
                return Err(r);
            }
        }
        let start = now.max(self.busy_until);
        let tx = self.rate.tx_time(pkt.size);
        self.busy_until = start + tx;
        if start > now {
            let is_in = pkt.precedence() == Precedence::In;
            self.waiting.push_back((start, pkt.size, is_in));
            self.len.packets += 1;
            self.len.bytes += pkt.size as u64;
            self.in_packets += is_in as u32;
            self.queue.len.set(now, self.len.packets as f64);
        } else {
            self.queue.departures += 1;
        }
        self.stats.transmitted += 1;
        self.stats.transmitted_bytes += pkt.size as u64;
        self.stats.busy += tx;
        let arrival = self.busy_until + self.delay;
        if !self.errors.outages.is_empty() && self.errors.down_during(start, arrival) {
            self.stats.lost_down += 1;
            return Err(DropReason::LinkDown);
        }
        if self.errors.corrupts(&mut self.rng, pkt.size) {
            self.stats.lost_error += 1;
            return Err(DropReason::Error);
        }
        Ok(arrival)
    }

    /// Fraction of `[0, end)` the transmitter was busy.
    pub fn utilisation(&self, end: Time) -> f64 {
        if end == Time::ZERO {
            return 0.0;
        }
        let overrun = self.busy_until.saturating_since(end);
        (self.stats.busy - overrun).as_nanos() as f64 / end.as_nanos() as f64
    }

    /// Packets in the transmitter or on the wire: transmitted, not yet delivered, not lost.
    pub fn in_flight(&self) -> u64 {
        self.stats.transmitted - self.stats.delivered - self.stats.lost_error - self.stats.lost_down
    }

    /// Checks the bookkeeping identities (debug builds and tests).
    pub fn check_conservation(&self) -> Result<(), String> {
        let q = &self.queue;
        let waiting = match &self.disc {
            QueueDisc::Fifo(_) => self.waiting.len() as u64,
            QueueDisc::Classful(c) => {
                c.check_conservation(&self.name)?;
                c.len().packets as u64
            }
        };
        if q.arrivals != q.total_drops() + q.departures + waiting {
            return Err(format!(
                "{}: queue arrivals {} != drops {} + departures {} + waiting {}",
                self.name,
                q.arrivals,
                q.total_drops(),
                q.departures,
                waiting
            ));
        }
        let entered = self.stats.transmitted;
        let out = self.stats.delivered + self.stats.lost_error + self.stats.lost_down;
        if out > entered {
            return Err(format!(
                "{}: {} packets left the link but only {} entered",
                self.name, out, entered
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::packet::Body;
    use crate::queue::{AnyAdmission, DropTail, QueueLimit};

    fn egress(limit: u32, errors: ErrorModel) -> Egress {
        let p = DirectionParams {
            rate: Rate::mbps(8), // 1500 B take 1.5 ms
            delay: Dur::from_millis(10),
            queue: QueueDisc::Fifo(AnyAdmission::DropTail(DropTail::new(QueueLimit::Packets(
                limit,
            )))),
            errors,
        };
        Egress::new(
            "l:a->b".into(),
            LinkId(0),
            NodeId(0),
            NodeId(1),
            p,
            Rng::from_seed(1),
        )
    }

    fn pkt() -> Packet {
        let mut p = Packet::new(
            Addr(0),
            Addr(1),
            Body::Udp {
                seq: 0,
                payload: 1472,
            },
        );
        p.size = 1500;
        p
    }

    #[test]
    fn back_to_back_packets_queue_behind_the_transmitter() {
        let mut e = egress(10, ErrorModel::default());
        let t0 = Time::ZERO;
        assert_eq!(e.send(t0, &mut pkt()), Ok(Time::from_micros(11_500)));
        assert_eq!(e.send(t0, &mut pkt()), Ok(Time::from_micros(13_000)));
        assert_eq!(
            e.len().packets,
            1,
            "the first is in transmission, the second waits"
        );
        e.drain(Time::from_micros(1_500));
        assert_eq!(e.len().packets, 0);
        // Waited 1.5 ms out of 3 ms: mean length 0.5.
        assert!((e.queue.len.mean(Time::from_micros(3_000)) - 0.5).abs() < 1e-9);
        assert_eq!(e.utilisation(Time::from_micros(3_000)), 1.0);
    }

    #[test]
    fn overflow_drops_and_keeps_the_books_balanced() {
        let mut e = egress(2, ErrorModel::default());
        let verdicts: Vec<_> = (0..5)
            .map(|_| e.send(Time::ZERO, &mut pkt()).is_ok())
            .collect();
        // One in transmission, two waiting, two dropped.
        assert_eq!(verdicts, vec![true, true, true, false, false]);
        assert_eq!(e.queue.drops_for(DropReason::Overflow), 2);
        e.check_conservation().unwrap();
    }

    #[test]
    fn outage_loses_packets_that_overlap_it() {
        let errors = ErrorModel {
            outages: vec![(Time::from_millis(100), Time::from_millis(200))],
            ..Default::default()
        };
        let mut e = egress(10, errors);
        assert!(e.send(Time::from_millis(50), &mut pkt()).is_ok());
        assert_eq!(
            e.send(Time::from_millis(95), &mut pkt()),
            Err(DropReason::LinkDown),
            "arrives during the outage"
        );
        assert_eq!(
            e.send(Time::from_millis(150), &mut pkt()),
            Err(DropReason::LinkDown)
        );
        assert!(e.send(Time::from_millis(200), &mut pkt()).is_ok());
        assert_eq!(e.stats.lost_down, 2);
    }

    #[test]
    fn uniform_loss_rate_is_close_to_p() {
        let mut e = egress(
            u32::MAX,
            ErrorModel {
                loss: 0.1,
                ..Default::default()
            },
        );
        let mut lost = 0;
        for i in 0..20_000u64 {
            if e.send(Time::from_millis(i * 2), &mut pkt()).is_err() {
                lost += 1;
            }
        }
        assert!((1_800..2_200).contains(&lost), "{lost}");
    }

    #[test]
    fn bit_errors_hit_long_packets_more() {
        let m = ErrorModel {
            ber: 1e-5,
            ..Default::default()
        };
        let mut rng = Rng::from_seed(3);
        let long = (0..20_000).filter(|_| m.corrupts(&mut rng, 1500)).count();
        let short = (0..20_000).filter(|_| m.corrupts(&mut rng, 40)).count();
        // 1 - (1 - 1e-5)^12000 = 0.113; 1 - (1 - 1e-5)^320 = 0.0032
        assert!((2_000..2_500).contains(&long), "{long}");
        assert!(short < 150, "{short}");
    }
}
