//! Time series sampled at a fixed interval: cwnd/ssthresh/RTO of every TCP flow and the length
//! of every queue.

use super::{Agent, Event, World};
use crate::ids::{EgressId, FlowId};
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
    /// Retransmission timeout.
    pub rto: Dur,
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
}

/// Time series recorded at a fixed interval.
#[derive(Debug, Default)]
pub struct Series {
    /// Sampling interval.
    pub interval: Dur,
    /// cwnd/ssthresh samples of every TCP flow.
    pub flows: Vec<FlowSample>,
    /// Length samples of every queue.
    pub queues: Vec<QueueSample>,
}

impl World {
    /// Records cwnd/ssthresh of every TCP flow and the length of every queue every `interval`.
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
        for (i, f) in self.flows.iter().enumerate() {
            if let Agent::TcpSender(s) = &self.agents[f.sender.idx()].agent {
                let m = s.cc_metrics();
                series.flows.push(FlowSample {
                    time: now,
                    flow: FlowId(i as u32),
                    cwnd: m.cwnd,
                    ssthresh: m.ssthresh,
                    rto: m.rto,
                });
            }
        }
        for (i, e) in self.net.egresses.iter_mut().enumerate() {
            e.drain(now);
            let len = e.len();
            series.queues.push(QueueSample {
                time: now,
                egress: EgressId(i as u32),
                packets: len.packets,
                bytes: len.bytes,
            });
        }
        let next = now + series.interval;
        if next <= self.end {
            self.queue.schedule(next, Event::Sample);
        }
    }
}
