//! The flow monitor: per-flow delay, jitter, loss and RTT statistics and per-queue sojourn
//! times, the statistics ns-3's FlowMonitor gives its users, switched on by the scenario key
//! `simulation.flow_monitor = true`.
//!
//! It rides on the tracer's path ([`super::Tracer`]): a run without a tracer compiles and runs
//! the untraced code, so the monitor costs nothing when it is off. When it is on, the world
//! shows it every enqueue, dequeue and drop at a queue and every packet handed to an endpoint.
//!
//! Definitions (each a column of flows.csv / queues.csv and a key of summary.json; see
//! docs/outputs.md, "Flow monitor"):
//!
//! - A flow's *data direction* is from its sender to its receiver (ns-3's FlowMonitor
//!   classifies by 5-tuple, so its flows are one direction each; this is the sender's one).
//!   `tx_packets`/`tx_bytes` count the data direction's packets (handshake, data and
//!   retransmissions; IP bytes) when the sender hands them to the network, `rx_packets`/
//!   `rx_bytes` those handed to the receiver, `lost_packets` those dropped anywhere on the way
//!   (by a queue, the wire's error model, an outage, a routing failure).
//! - One-way delay: from the packet's hand-over at the sender to its hand-over to the
//!   receiver, queueing, transmission and propagation included (FlowMonitor's `delaySum` /
//!   `rxPackets` is `delay_mean_s`).
//! - Jitter as FlowMonitor defines it (`FlowMonitor::ReportLastRx`): for each received packet
//!   after the first, |its delay − the previous received packet's delay|; `jitter_sum_s` is
//!   FlowMonitor's `jitterSum`, `jitter_mean_s` = jitter_sum / (rx_packets − 1).
//! - RTT (TCP flows): a sample per ACK that newly acknowledges data at the sender, from the
//!   first transmission of the newest segment it covers to the ACK's arrival, taken only when
//!   no segment it covers was sent twice (Karn's rule, RFC 6298 §3). These are the samples a
//!   sender timing every segment takes; the sender's own estimator may time fewer (one
//!   segment per RTT without timestamps), so its SRTT is not their mean.
//! - Sojourn time of a queue (link direction): from a packet's admission to the start of its
//!   transmission (a cell link: until its last cell leaves the switch).
//!
//! Percentiles come from an HDR histogram with 3 significant digits (values within 0.1%);
//! means, minima and maxima are exact.

use super::EventKind;
use crate::ids::{AgentId, EgressId, FlowId, NodeId};
use crate::packet::{Body, Packet};
use hdrhistogram::Histogram;
use packetsim_kernel::Time;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// Nanosecond samples: count, exact sum, min and max, and a histogram for percentiles.
#[derive(Clone, Debug)]
struct Samples {
    n: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
    hist: Histogram<u64>,
}

impl Default for Samples {
    fn default() -> Samples {
        Samples {
            n: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            // 3 significant digits, resized as values grow: cannot fail.
            hist: Histogram::new(3).expect("3 significant digits is valid"),
        }
    }
}

impl Samples {
    fn record(&mut self, ns: u64) {
        self.n += 1;
        self.sum_ns += ns as u128;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
        // `record` grows the histogram to the value (auto-resize); it fails only if growing
        // fails, and then the sample is kept at the largest trackable value.
        if self.hist.record(ns).is_err() {
            self.hist.saturating_record(ns);
        }
    }
    fn mean_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ns as f64 / self.n as f64 / 1e9)
    }
    fn quantile_s(&self, q: f64) -> Option<f64> {
        (self.n > 0).then(|| {
            self.hist
                .value_at_quantile(q)
                .clamp(self.min_ns, self.max_ns) as f64
                / 1e9
        })
    }
    fn min_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.min_ns as f64 / 1e9)
    }
    fn max_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.max_ns as f64 / 1e9)
    }
}

/// A TCP segment of new data, from its first transmission until an ACK covers it.
#[derive(Clone, Copy, Debug)]
struct Timed {
    end: u32,
    sent: Time,
    resent: bool,
}

/// What the monitor keeps per flow.
#[derive(Clone, Debug, Default)]
struct FlowState {
    tx_packets: u64,
    tx_bytes: u64,
    rx_packets: u64,
    rx_bytes: u64,
    lost_packets: u64,
    delay: Samples,
    jitter_sum_ns: u128,
    last_delay_ns: Option<u64>,
    rtt: Samples,
    /// TCP: segments of new data not yet acknowledged, in sending order.
    timed: VecDeque<Timed>,
}

/// The flow monitor of one run (see the module doc).
#[derive(Debug)]
pub struct FlowMonitor {
    flows: Vec<FlowState>,
    /// Per flow: its receiving endpoint (a packet to it is in the data direction) and its
    /// sender's node (a queue there is a data packet's first).
    receiver: Vec<AgentId>,
    sender_node: Vec<NodeId>,
    /// Per egress: the node it leaves.
    egress_from: Vec<NodeId>,
    /// Per egress: its sojourn times.
    sojourn: Vec<Samples>,
    /// When each data-direction packet (by uid) was handed to the network.
    sent_at: HashMap<u64, Time>,
    /// When each packet (by egress and uid) was admitted to a queue.
    queued_at: HashMap<(u32, u64), Time>,
    /// TCP flows' RTT samples as (flow, when, RTT) in time order, for rtt.csv.
    rtt_series: Vec<(FlowId, Time, u64)>,
}

impl FlowMonitor {
    /// A monitor for flows with these receiving endpoints and sending nodes, over link
    /// directions leaving these nodes (indexed by flow and egress id).
    pub fn new(
        receiver: Vec<AgentId>,
        sender_node: Vec<NodeId>,
        egress_from: Vec<NodeId>,
    ) -> FlowMonitor {
        FlowMonitor {
            flows: vec![FlowState::default(); receiver.len()],
            sojourn: vec![Samples::default(); egress_from.len()],
            receiver,
            sender_node,
            egress_from,
            sent_at: HashMap::new(),
            queued_at: HashMap::new(),
            rtt_series: Vec::new(),
        }
    }

    /// Packet `p` of a flow's data direction is offered to its first queue at `now`, just
    /// handed over by its endpoint.
    fn first_seen(&mut self, now: Time, p: &Packet) {
        let Some(f) = self.flows.get_mut(p.flow.idx()) else {
            return;
        };
        if self.sent_at.contains_key(&p.uid) {
            return;
        }
        self.sent_at.insert(p.uid, now);
        f.tx_packets += 1;
        f.tx_bytes += u64::from(p.size);
        if let Body::Tcp(h) = &p.body {
            let len = p.payload();
            if len == 0 {
                return;
            }
            let end = h.seq.0.wrapping_add(len);
            let newest = f.timed.back().map(|t| t.end);
            if newest.is_none_or(|n| (end.wrapping_sub(n) as i32) > 0) {
                f.timed.push_back(Timed {
                    end,
                    sent: now,
                    resent: false,
                });
            } else {
                // A retransmission: every timed segment it overlaps gives no sample.
                let start = h.seq.0;
                for t in f.timed.iter_mut() {
                    if (t.end.wrapping_sub(start) as i32) > 0 {
                        t.resent = true;
                    }
                    if (t.end.wrapping_sub(end) as i32) >= 0 {
                        break;
                    }
                }
            }
        }
    }

    /// Whether `p` goes from its flow's sender to its receiver.
    fn forward(&self, p: &Packet) -> bool {
        !matches!(p.body, Body::Control(_))
            && self.receiver.get(p.flow.idx()).is_some_and(|&r| r == p.to)
    }

    /// Whether `p`, in its flow's data direction, is at its first queue (at the sender's node).
    fn first_queue(&self, e: EgressId, p: &Packet) -> bool {
        self.egress_from.get(e.idx()) == self.sender_node.get(p.flow.idx())
    }

    /// What happened to `p` at queue `e` at `t` (the tracer's events).
    pub fn event(&mut self, t: Time, kind: EventKind, e: EgressId, p: &Packet) {
        match kind {
            EventKind::Enqueue => {
                if self.forward(p) && self.first_queue(e, p) {
                    self.first_seen(t, p);
                }
                self.queued_at.insert((e.0, p.uid), t);
            }
            EventKind::Dequeue => {
                if let Some(q) = self.queued_at.remove(&(e.0, p.uid)) {
                    if let Some(s) = self.sojourn.get_mut(e.idx()) {
                        s.record(t.saturating_since(q).0);
                    }
                }
            }
            EventKind::Drop(_) => {
                self.queued_at.remove(&(e.0, p.uid));
                if self.forward(p) {
                    if self.first_queue(e, p) {
                        // Refused by its first queue: it was still sent.
                        self.first_seen(t, p);
                    }
                    if self.sent_at.remove(&p.uid).is_some() {
                        if let Some(f) = self.flows.get_mut(p.flow.idx()) {
                            f.lost_packets += 1;
                        }
                    }
                }
            }
            EventKind::Mark | EventKind::Receive => {}
        }
    }

    /// Packet `p` is handed to its endpoint at `now`: to the receiver, or to the sender (an
    /// ACK: for TCP flows an RTT sample).
    pub fn deliver(&mut self, now: Time, p: &Packet) {
        let forward = self.forward(p);
        let fi = p.flow;
        let Some(f) = self.flows.get_mut(fi.idx()) else {
            return;
        };
        if forward {
            f.rx_packets += 1;
            f.rx_bytes += u64::from(p.size);
            if let Some(t) = self.sent_at.remove(&p.uid) {
                let d = now.saturating_since(t).0;
                f.delay.record(d);
                if let Some(last) = f.last_delay_ns {
                    f.jitter_sum_ns += u128::from(d.abs_diff(last));
                }
                f.last_delay_ns = Some(d);
            }
            return;
        }
        let Body::Tcp(h) = &p.body else {
            return;
        };
        if !h.flags.contains(crate::packet::TcpFlags::ACK) {
            return;
        }
        let ack = h.ack.0;
        let mut newest = None;
        let mut resent = false;
        while let Some(t) = f.timed.front() {
            if (ack.wrapping_sub(t.end) as i32) < 0 {
                break;
            }
            resent |= t.resent;
            newest = Some(t.sent);
            f.timed.pop_front();
        }
        if let (Some(sent), false) = (newest, resent) {
            let r = now.saturating_since(sent).0;
            f.rtt.record(r);
            self.rtt_series.push((fi, now, r));
        }
    }

    /// The statistics of flow `f`.
    pub fn flow(&self, f: FlowId) -> Option<FlowMonitorSummary> {
        let s = self.flows.get(f.idx())?;
        let received = s.rx_packets + s.lost_packets;
        Some(FlowMonitorSummary {
            tx_packets: s.tx_packets,
            tx_bytes: s.tx_bytes,
            rx_packets: s.rx_packets,
            rx_bytes: s.rx_bytes,
            lost_packets: s.lost_packets,
            loss_ratio: (received > 0).then(|| s.lost_packets as f64 / received as f64),
            delay_sum_s: s.delay.sum_ns as f64 / 1e9,
            delay_mean_s: s.delay.mean_s(),
            delay_min_s: s.delay.min_s(),
            delay_p50_s: s.delay.quantile_s(0.5),
            delay_p99_s: s.delay.quantile_s(0.99),
            delay_max_s: s.delay.max_s(),
            jitter_sum_s: s.jitter_sum_ns as f64 / 1e9,
            jitter_mean_s: (s.delay.n > 1)
                .then(|| s.jitter_sum_ns as f64 / (s.delay.n - 1) as f64 / 1e9),
            rtt_samples: s.rtt.n,
            rtt_min_s: s.rtt.min_s(),
            rtt_mean_s: s.rtt.mean_s(),
            rtt_p50_s: s.rtt.quantile_s(0.5),
            rtt_p99_s: s.rtt.quantile_s(0.99),
            rtt_max_s: s.rtt.max_s(),
        })
    }

    /// The sojourn statistics of link direction `e`.
    pub fn sojourn(&self, e: EgressId) -> Option<SojournSummary> {
        let s = self.sojourn.get(e.idx())?;
        Some(SojournSummary {
            samples: s.n,
            sojourn_mean_s: s.mean_s(),
            sojourn_p50_s: s.quantile_s(0.5),
            sojourn_p99_s: s.quantile_s(0.99),
            sojourn_max_s: s.max_s(),
        })
    }

    /// Every RTT sample in time order: (flow, when, RTT).
    pub fn rtt_series(&self) -> impl Iterator<Item = (FlowId, Time, f64)> + '_ {
        self.rtt_series
            .iter()
            .map(|&(f, t, r)| (f, t, r as f64 / 1e9))
    }
}

/// A flow's monitor statistics (`summary.json`: `flows.NAME.flow_monitor`). Times in seconds;
/// null where there is no sample.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowMonitorSummary {
    /// Data-direction packets handed to the network by the sender.
    pub tx_packets: u64,
    /// Their IP bytes.
    pub tx_bytes: u64,
    /// Data-direction packets handed to the receiver.
    pub rx_packets: u64,
    /// Their IP bytes.
    pub rx_bytes: u64,
    /// Data-direction packets dropped on the way.
    pub lost_packets: u64,
    /// lost / (rx + lost).
    pub loss_ratio: Option<f64>,
    /// Sum of one-way delays (FlowMonitor's delaySum), s.
    pub delay_sum_s: f64,
    /// Mean one-way delay, s.
    pub delay_mean_s: Option<f64>,
    /// Least one-way delay, s.
    pub delay_min_s: Option<f64>,
    /// Median one-way delay, s.
    pub delay_p50_s: Option<f64>,
    /// 99th percentile of the one-way delay, s.
    pub delay_p99_s: Option<f64>,
    /// Largest one-way delay, s.
    pub delay_max_s: Option<f64>,
    /// Sum of |delay − previous delay| (FlowMonitor's jitterSum), s.
    pub jitter_sum_s: f64,
    /// jitter_sum / (received packets with a delay − 1), s.
    pub jitter_mean_s: Option<f64>,
    /// RTT samples taken (TCP flows).
    pub rtt_samples: u64,
    /// Least RTT sample, s.
    pub rtt_min_s: Option<f64>,
    /// Mean RTT sample, s.
    pub rtt_mean_s: Option<f64>,
    /// Median RTT sample, s.
    pub rtt_p50_s: Option<f64>,
    /// 99th percentile of the RTT samples, s.
    pub rtt_p99_s: Option<f64>,
    /// Largest RTT sample, s.
    pub rtt_max_s: Option<f64>,
}

/// A queue's sojourn statistics (`summary.json`: `queues.NAME.sojourn`), s.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SojournSummary {
    /// Packets whose transmission started.
    pub samples: u64,
    /// Mean time from admission to the start of transmission, s.
    pub sojourn_mean_s: Option<f64>,
    /// Its median, s.
    pub sojourn_p50_s: Option<f64>,
    /// Its 99th percentile, s.
    pub sojourn_p99_s: Option<f64>,
    /// Its largest value, s.
    pub sojourn_max_s: Option<f64>,
}

#[cfg(test)]
mod tests {
    //! Scripted event sequences with hand-computed outcomes; the definitions checked are
    //! ns-3's `FlowMonitor::ReportLastRx` (delaySum, jitterSum over consecutive received
    //! packets) and RFC 6298 §3 (Karn: no sample from a retransmitted segment).
    use super::*;
    use crate::ids::Addr;
    use crate::packet::{Seq, TcpFlags, TcpHeader};
    use crate::queue::DropReason;

    const MS: u64 = 1_000_000;

    fn at(ms: u64) -> Time {
        Time::from_nanos(ms * MS)
    }

    /// One flow (id 0) from node 0 to node 1, receiver agent 1; egress 0 leaves node 0 (the
    /// sender's), egress 1 leaves node 1.
    fn monitor() -> FlowMonitor {
        FlowMonitor::new(
            vec![AgentId(1)],
            vec![NodeId(0)],
            vec![NodeId(0), NodeId(1)],
        )
    }

    fn datagram(uid: u64, to: u32) -> Packet {
        let mut p = Packet::new(
            Addr(0),
            Addr(1),
            Body::Udp {
                seq: uid,
                payload: 960,
            },
        );
        p.uid = uid;
        p.to = AgentId(to);
        p
    }

    fn segment(uid: u64, seq: u32, ack: u32, payload: u32, to: u32) -> Packet {
        let h = TcpHeader {
            seq: Seq(seq),
            ack: Seq(ack),
            flags: TcpFlags::ACK,
            payload,
            ..Default::default()
        };
        let mut p = Packet::new(Addr(0), Addr(1), Body::Tcp(h));
        p.uid = uid;
        p.to = AgentId(to);
        p
    }

    #[test]
    fn delay_jitter_and_loss_as_flowmonitor_defines_them() {
        let mut m = monitor();
        let e0 = EgressId(0);
        // uid 1: sent at 0, straight through, received at 10 ms (delay 10).
        let p1 = datagram(1, 1);
        m.event(at(0), EventKind::Enqueue, e0, &p1);
        m.event(at(0), EventKind::Dequeue, e0, &p1);
        // uid 2: sent at 1 ms, waits 2 ms, received at 14 ms (delay 13).
        let p2 = datagram(2, 1);
        m.event(at(1), EventKind::Enqueue, e0, &p2);
        m.event(at(3), EventKind::Dequeue, e0, &p2);
        // uid 3: refused by its first queue at 2 ms: sent and lost.
        let p3 = datagram(3, 1);
        m.event(at(2), EventKind::Drop(DropReason::Overflow), e0, &p3);
        // uid 4: sent at 3 ms, waits 1 ms, received at 11 ms (delay 8), before uid 2.
        let p4 = datagram(4, 1);
        m.event(at(3), EventKind::Enqueue, e0, &p4);
        m.event(at(4), EventKind::Dequeue, e0, &p4);
        m.deliver(at(10), &p1);
        m.deliver(at(11), &p4);
        m.deliver(at(14), &p2);
        let s = m.flow(FlowId(0)).unwrap();
        assert_eq!((s.tx_packets, s.rx_packets, s.lost_packets), (4, 3, 1));
        assert_eq!(s.tx_bytes, 4 * u64::from(p1.size));
        assert_eq!(s.loss_ratio, Some(0.25));
        assert!((s.delay_sum_s - 0.031).abs() < 1e-12, "{s:?}");
        assert!((s.delay_mean_s.unwrap() - 0.031 / 3.0).abs() < 1e-12);
        assert_eq!(s.delay_min_s, Some(0.008));
        assert_eq!(s.delay_max_s, Some(0.013));
        // The median of {8, 10, 13} ms, to the histogram's 3 significant digits.
        assert!(
            (s.delay_p50_s.unwrap() - 0.010).abs() <= 0.010 * 1e-3,
            "{s:?}"
        );
        // Jitter in order of reception: |8 - 10| + |13 - 8| = 7 ms over 2 pairs.
        assert!((s.jitter_sum_s - 0.007).abs() < 1e-12, "{s:?}");
        assert!((s.jitter_mean_s.unwrap() - 0.0035).abs() < 1e-12);
        // Sojourn at egress 0: 0, 2 and 1 ms; the dropped packet has none.
        let q = m.sojourn(e0).unwrap();
        assert_eq!(q.samples, 3);
        assert_eq!(q.sojourn_max_s, Some(0.002));
        assert!((q.sojourn_mean_s.unwrap() - 0.001).abs() < 1e-12);
        assert_eq!(m.sojourn(EgressId(1)).unwrap().samples, 0);
        assert_eq!(m.sojourn(EgressId(1)).unwrap().sojourn_mean_s, None);
    }

    #[test]
    fn a_later_hop_does_not_count_as_a_new_transmission_and_acks_are_not_data() {
        let mut m = monitor();
        let p = datagram(7, 1);
        m.event(at(0), EventKind::Enqueue, EgressId(0), &p);
        m.event(at(0), EventKind::Dequeue, EgressId(0), &p);
        // The same packet at a queue of another node (egress 1 leaves node 1).
        m.event(at(5), EventKind::Enqueue, EgressId(1), &p);
        m.event(at(6), EventKind::Dequeue, EgressId(1), &p);
        // A packet to the sender (agent 0): the reverse direction, not counted.
        let ack = datagram(8, 0);
        m.event(at(7), EventKind::Enqueue, EgressId(1), &ack);
        m.deliver(at(9), &ack);
        m.deliver(at(12), &p);
        let s = m.flow(FlowId(0)).unwrap();
        assert_eq!((s.tx_packets, s.rx_packets, s.lost_packets), (1, 1, 0));
        assert_eq!(s.delay_mean_s, Some(0.012));
        assert_eq!(s.jitter_mean_s, None, "one packet has no jitter");
        assert_eq!(m.sojourn(EgressId(1)).unwrap().sojourn_max_s, Some(0.001));
    }

    #[test]
    fn rtt_samples_skip_acks_covering_a_retransmission() {
        let mut m = monitor();
        let e0 = EgressId(0);
        let send = |m: &mut FlowMonitor, uid, seq, t| {
            m.event(
                at(t),
                EventKind::Enqueue,
                e0,
                &segment(uid, seq, 0, 1000, 1),
            );
        };
        send(&mut m, 1, 0, 0);
        send(&mut m, 2, 1000, 1);
        // [0, 1000) again at 5 ms (a retransmission).
        send(&mut m, 3, 0, 5);
        // ACK 2000 at 20 ms covers the retransmitted segment: no sample (Karn).
        m.deliver(at(20), &segment(4, 0, 2000, 0, 0));
        send(&mut m, 5, 2000, 21);
        send(&mut m, 6, 3000, 22);
        // ACK 3000 at 30 ms: [2000, 3000), sent once at 21 ms: 9 ms.
        m.deliver(at(30), &segment(7, 0, 3000, 0, 0));
        // A duplicate ACK gives nothing.
        m.deliver(at(31), &segment(8, 0, 3000, 0, 0));
        // ACK 4000 at 40 ms: [3000, 4000) sent at 22 ms: 18 ms.
        m.deliver(at(40), &segment(9, 0, 4000, 0, 0));
        let s = m.flow(FlowId(0)).unwrap();
        assert_eq!(s.rtt_samples, 2);
        assert_eq!(s.rtt_min_s, Some(0.009));
        assert_eq!(s.rtt_max_s, Some(0.018));
        assert!((s.rtt_mean_s.unwrap() - 0.0135).abs() < 1e-12);
        let series: Vec<_> = m.rtt_series().collect();
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].1, at(30));
        assert_eq!(series[1].2, 0.018);
    }
}
