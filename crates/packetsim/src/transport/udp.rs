//! UDP endpoints: a constant-bit-rate source and a counting sink.
//!
//! The source's rate counts whole IP packets (payload + 8 B UDP + 20 B IP), as a link sees them:
//! a 1 Mb/s CBR flow of 1000-byte payloads sends one 1028-byte packet every 8.224 ms.
//! The schedule is the application's ([`crate::app::Cbr`]); the source tells it the wire size.

use super::{Endpoint, Outbox};
use crate::app::AppSource;
use crate::ids::Addr;
use crate::packet::{Body, Packet};
use packetsim_kernel::{Rate, Time};

/// A constant-bit-rate UDP source: one datagram per message of its CBR application
/// ([`crate::app::Cbr`], which keeps the schedule).
#[derive(Debug)]
pub struct CbrSource {
    local: Addr,
    remote: Addr,
    app: AppSource,
}

impl CbrSource {
    /// A source sending `payload`-byte datagrams from `local` to `remote` at `rate`.
    pub fn new(local: Addr, remote: Addr, rate: Rate, payload: u32) -> CbrSource {
        let wire = Packet::new(local, remote, Body::Udp { seq: 0, payload }).size;
        CbrSource {
            local,
            remote,
            app: AppSource::cbr(rate, payload, wire),
        }
    }

    /// Starts sending at `now` (the first datagram goes out at once).
    pub fn start(&mut self, now: Time, out: &mut Outbox) {
        self.app.start(now);
        self.on_timer(now, out);
    }

    /// Stops sending from `at` on.
    pub fn stop_at(&mut self, at: Time) {
        self.app.stop(at);
    }

    /// Datagrams sent.
    pub fn sent(&self) -> u64 {
        self.app.messages_taken()
    }

    /// Payload bytes sent.
    pub fn bytes_sent(&self) -> u64 {
        self.app.taken()
    }
}

impl Endpoint for CbrSource {
    fn on_packet(&mut self, _now: Time, _pkt: &Packet, _out: &mut Outbox) {}

    fn on_timer(&mut self, now: Time, out: &mut Outbox) {
        while let Some(payload) = self.app.poll_message(now) {
            out.send(Packet::new(
                self.local,
                self.remote,
                Body::Udp {
                    seq: self.app.messages_taken() - 1,
                    payload,
                },
            ));
        }
    }

    fn next_timeout(&self) -> Option<Time> {
        self.app.next_send()
    }
}

/// Counts what a CBR source delivers.
#[derive(Debug, Default)]
pub struct UdpSink {
    /// Datagrams received.
    pub received: u64,
    /// Payload bytes received.
    pub bytes: u64,
    /// One more than the highest sequence number seen.
    pub next_expected: u64,
}

impl Endpoint for UdpSink {
    fn on_packet(&mut self, _now: Time, pkt: &Packet, out: &mut Outbox) {
        if let Body::Udp { seq, payload } = pkt.body {
            self.received += 1;
            self.bytes += payload as u64;
            self.next_expected = self.next_expected.max(seq + 1);
            out.delivered_bytes += payload as u64;
        }
    }
    fn on_timer(&mut self, _now: Time, _out: &mut Outbox) {}
    fn next_timeout(&self) -> Option<Time> {
        None
    }
}

impl UdpSink {
    /// Datagrams missing below the highest received (lost or still in flight).
    pub fn missing(&self) -> u64 {
        self.next_expected - self.received.min(self.next_expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packetsim_kernel::Dur;

    #[test]
    fn cbr_spaces_datagrams_by_their_wire_size() {
        let mut s = CbrSource::new(Addr(0), Addr(1), Rate::mbps(1), 1000);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        assert_eq!(out.packets.len(), 1);
        assert_eq!(out.packets[0].size, 1028);
        assert_eq!(s.next_timeout(), Some(Time::ZERO + Dur::from_micros(8_224)));
        s.stop_at(Time::from_millis(20));
        s.on_timer(Time::from_millis(100), &mut out);
        // Sent at 0, 8.224 and 16.448 ms; the next (24.672 ms) is past the stop.
        assert_eq!(s.sent(), 3);
        assert_eq!(s.next_timeout(), None);
    }
}
