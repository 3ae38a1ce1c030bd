//! A constant-bit-rate message schedule: `payload`-byte messages, one every `interval`, the
//! interval being the time the message's whole packet (`wire_bytes`) takes at the rate, as a
//! link counts it (transport/udp.rs: 1000-byte payloads at 1 Mb/s leave every 8.224 ms).

use packetsim_kernel::{Dur, Rate, Time};

/// A CBR schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cbr {
    /// Payload of each message, bytes.
    payload: u32,
    /// Time between messages.
    interval: Dur,
    /// When the next message is due (`None`: not started, or stopped).
    next: Option<Time>,
    /// No message due at or after this time is sent.
    stop: Option<Time>,
    /// Messages taken.
    sent: u64,
}

impl Cbr {
    /// `payload`-byte messages whose packets are `wire_bytes` long, paced at `rate`.
    pub fn new(rate: Rate, payload: u32, wire_bytes: u32) -> Cbr {
        Cbr {
            payload,
            interval: rate.tx_time(wire_bytes),
            next: None,
            stop: None,
            sent: 0,
        }
    }

    /// Time between messages.
    pub fn interval(&self) -> Dur {
        self.interval
    }

    /// The first message is due at `now`.
    pub fn start(&mut self, now: Time) {
        self.next = Some(now);
    }

    /// No message due at or after `at` is sent.
    pub fn stop_at(&mut self, at: Time) {
        self.stop = Some(at);
    }

    /// When the next message is due, if any. (It may lie at or past the stop time until
    /// `poll_message` finds so.)
    #[inline]
    pub fn next_send(&self) -> Option<Time> {
        self.next
    }

    /// Takes the next message if it is due at or before `now`: its payload.
    pub fn poll_message(&mut self, now: Time) -> Option<u32> {
        let t = self.next?;
        if t > now {
            return None;
        }
        if self.stop.is_some_and(|s| t >= s) {
            self.next = None;
            return None;
        }
        self.sent += 1;
        self.next = Some(t + self.interval);
        Some(self.payload)
    }

    /// Messages taken.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// Payload of each message, bytes.
    pub fn payload(&self) -> u32 {
        self.payload
    }
}
