//! Time series sampled at a fixed interval: cwnd/ssthresh/srtt/RTO of every TCP flow and of
//! every destination of every SCTP association, the bytes delivered (and the delivery rate) of
//! every flow, and the length of every queue. A flow is sampled only within its life: from its
//! start to its end (the completion of a finite transfer, else its stop time, else the end of
//! the run), both included.

use super::{Agent, Event, World};
use crate::ids::{Addr, EgressId, FlowId};
use packetsim_kernel::{Dur, Time};

/// One sample of a TCP flow's congestion state.
#[derive(Clone, Copy, Debug)]
pub struct FlowSample {
    /// When.
    pub time: Time,
    /// Which flow.
    pub flow: FlowId,
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Smoothed round-trip time, once a sample was taken.
    pub srtt: Option<Dur>,
    /// Retransmission timeout.
    pub rto: Dur,
}

/// One sample of one destination of an SCTP association's sending end.
#[derive(Clone, Copy, Debug)]
pub struct PathSample {
    /// When.
    pub time: Time,
    /// Which flow (association).
    pub flow: FlowId,
    /// The destination's index in the association's list (0 = first address).
    pub destination: u32,
    /// The destination address.
    pub addr: Addr,
    /// Congestion window of this destination, bytes.
    pub cwnd: u64,
    /// Slow-start threshold of this destination, bytes.
    pub ssthresh: u64,
    /// Smoothed round-trip time of this destination, once a sample was taken.
    pub srtt: Option<Dur>,
    /// Retransmission timeout of this destination (with backoff).
    pub rto: Dur,
}

/// One sample of what a flow (any kind) delivered to its receiving application.
#[derive(Clone, Copy, Debug)]
pub struct DeliverySample {
    /// When.
    pub time: Time,
    /// Which flow.
    pub flow: FlowId,
    /// Payload bytes delivered in order since the start of the run.
    pub bytes: u64,
    /// Delivery rate since the flow's previous sample (or since its start, for its first
    /// sample), bit/s; 0 for a sample at the flow's start instant.
    pub rate_bps: f64,
}

/// One sample of a queue's length.
#[derive(Clone, Copy, Debug)]
pub struct QueueSample {
    /// When.
    pub time: Time,
    /// Which queue.
    pub egress: EgressId,
    /// Packets waiting.
    pub packets: u32,
    /// Bytes waiting.
    pub bytes: u64,
    /// A FIFO RED direction: its average queue as of the last arrival, packets.
    pub red_avg: Option<f64>,
}

/// Time series recorded at a fixed interval.
#[derive(Debug, Default)]
pub struct Series {
    /// Sampling interval.
    pub interval: Dur,
    /// cwnd/ssthresh/srtt/RTO samples of every TCP flow.
    pub flows: Vec<FlowSample>,
    /// Per-destination samples of every SCTP association.
    pub paths: Vec<PathSample>,
    /// Delivery samples of every flow.
    pub delivered: Vec<DeliverySample>,
    /// Length samples of every queue.
    pub queues: Vec<QueueSample>,
    /// Per flow, the time and delivered bytes of its previous delivery sample.
    last: Vec<Option<(Time, u64)>>,
}

impl World {
    /// Records the flow, destination, delivery and queue series every `interval`.
    pub fn enable_sampling(&mut self, interval: Dur) {
        if interval == Dur::ZERO {
            return;
        }
        self.series = Some(Series {
            interval,
            ..Default::default()
        });
        self.queue.schedule(Time::ZERO, Event::Sample);
    }

    pub(super) fn sample(&mut self, now: Time) {
        let Some(series) = self.series.as_mut() else {
            return;
        };
        series.last.resize(self.flows.len(), None);
        for (i, f) in self.flows.iter().enumerate() {
            let end = f.completed_at.or(f.stop).unwrap_or(Time::MAX);
            if now < f.start || now > end {
                continue;
            }
            let flow = FlowId(i as u32);
            let agent = &self.agents[f.sender.idx()].agent;
            if let Agent::TcpSender(s) = agent {
                let m = s.cc_metrics();
                series.flows.push(FlowSample {
                    time: now,
                    flow,
                    cwnd: m.cwnd,
                    ssthresh: m.ssthresh,
                    srtt: s.srtt(),
                    rto: m.rto,
                });
            } else if let Some(a) = agent.sctp() {
                for (d, (addr, cwnd, ssthresh, srtt, rto)) in a.path_congestion().enumerate() {
                    series.paths.push(PathSample {
                        time: now,
                        flow,
                        destination: d as u32,
                        addr,
                        cwnd,
                        ssthresh,
                        srtt,
                        rto,
                    });
                }
            }
            let (t0, b0) = series.last[i].unwrap_or((f.start, 0));
            let span = (now - t0).as_secs_f64();
            let rate_bps = if span > 0.0 {
                f.delivered.saturating_sub(b0) as f64 * 8.0 / span
            } else {
                0.0
            };
            series.delivered.push(DeliverySample {
                time: now,
                flow,
                bytes: f.delivered,
                rate_bps,
            });
            series.last[i] = Some((now, f.delivered));
        }
        for (i, e) in self.net.egresses.iter_mut().enumerate() {
            e.drain(now);
            let len = e.waiting();
            series.queues.push(QueueSample {
                time: now,
                egress: EgressId(i as u32),
                packets: len.packets,
                bytes: len.bytes,
                red_avg: e.red().map(|r| r.average()),
            });
        }
        let next = now + series.interval;
        if next <= self.end {
            self.queue.schedule(next, Event::Sample);
        }
    }
}
