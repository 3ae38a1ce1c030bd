//! The receiving half of an SCTP association: which TSNs have arrived, what the application
//! has been handed, and when and what to acknowledge.
//!
//! - **TSN tracking** (RFC 4960 §6.2, §3.3.4): the cumulative TSN ack point plus a sorted set
//!   of inclusive TSN ranges received above it. The set only ever holds ranges above the
//!   cumulative point and lies within the receive window of it, so wrap-aware [`Tsn`]
//!   comparison is valid. Memory is one entry per gap, not per chunk.
//! - **Delivery** (RFC 4960 §6.5, §6.6): a chunk with the U bit goes to the application at
//!   once; an ordered chunk goes at once when it carries its stream's next stream sequence
//!   number, else it waits in that stream's queue (a `BTreeMap` keyed by the SSN unwrapped to
//!   64 bits). Head-of-line blocking is therefore per stream only. The application reads
//!   whatever is delivered immediately (spec 3 §2.5), so only chunks waiting for an earlier
//!   SSN occupy the receive buffer.
//! - **a_rwnd** (RFC 4960 §6.2; spec 3 §2.5): the configured buffer (`cfg.rwnd`) minus the
//!   user bytes held waiting, floored at zero. When a new chunk above the highest TSN yet seen
//!   does not fit in the free buffer it is dropped unrecorded (RFC 4960 §6.2: such chunks
//!   must be dropped when the window is closed).
//! - **When to SACK** (RFC 4960 §6.2, §6.7; spec 3 §2.5): at the latest `sack_delay` after the
//!   first unacknowledged packet, or on the `sack_every`-th one; immediately for a packet that
//!   arrives while the TSN sequence has a gap (before or after its chunks are processed, so
//!   the packet that fills the last gap is also acknowledged at once) and for a packet with a
//!   duplicate; every packet when `sack_delay` is `None`.
//! - **What a SACK says** (RFC 4960 §3.3.4): the cumulative TSN, a_rwnd, one gap block per
//!   received range above the cumulative point (lowest first), and every duplicate TSN
//!   received since the previous SACK (one entry per duplicate arrival, RFC 2960 §3.3.4),
//!   all cut to what fits in one MTU-sized packet, gap blocks first.

// Until the endpoint (association.rs) drives it, only the tests use the receiver.
#![cfg_attr(not(test), allow(dead_code))]

use super::SctpConfig;
use crate::packet::{
    DataChunk, GapBlock, SackChunk, Tsn, IP_HEADER_BYTES, SACK_CHUNK_BASE_BYTES,
    SCTP_COMMON_HEADER_BYTES,
};
use packetsim_kernel::{Dur, Time};
use std::collections::{BTreeMap, VecDeque};

/// One chunk handed to the application, in delivery order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Stream identifier.
    pub stream: u16,
    /// Stream sequence number (as sent; meaningless for unordered chunks).
    pub ssn: u16,
    /// The chunk's TSN.
    pub tsn: Tsn,
    /// User bytes.
    pub len: u32,
}

/// Counters of the receiving half.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// DATA chunks received, duplicates included.
    pub chunks_received: u64,
    /// DATA chunks that were duplicates.
    pub duplicates: u64,
    /// DATA chunks dropped because the receive buffer had no room (RFC 4960 §6.2).
    pub dropped_no_buffer: u64,
    /// Ordered chunks whose SSN was already delivered on their stream (a peer bug; ignored).
    pub stale_ssn: u64,
    /// User bytes delivered to the application.
    pub bytes_delivered: u64,
    /// SACKs built.
    pub sacks: u64,
}

/// An ordered chunk waiting for an earlier SSN of its stream.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    ssn: u16,
    tsn: Tsn,
    len: u32,
}

/// Per-stream ordered-delivery state (RFC 4960 §6.5).
#[derive(Clone, Debug, Default)]
struct StreamIn {
    /// The next SSN to deliver, unwrapped to 64 bits.
    next: u64,
    /// Chunks waiting, keyed by unwrapped SSN.
    waiting: BTreeMap<u64, Waiting>,
}

impl StreamIn {
    /// `ssn` unwrapped relative to the next expected one; `None` when it lies before it.
    fn unwrap(&self, ssn: u16) -> Option<u64> {
        let d = ssn.wrapping_sub(self.next as u16) as i16;
        (d >= 0).then(|| self.next + d as u64)
    }
}

/// The receiving half of an SCTP association (sans-IO; driven by the endpoint).
#[derive(Debug)]
pub(crate) struct Receiver {
    /// The cumulative TSN ack point.
    cum: Tsn,
    /// The highest TSN received so far.
    highest: Tsn,
    /// Received TSNs above `cum`, inclusive ranges, sorted, neither overlapping nor touching;
    /// the first starts above `cum + 1`.
    above: VecDeque<(Tsn, Tsn)>,
    streams: Vec<StreamIn>,
    /// User bytes held waiting for an earlier SSN.
    buffered: u64,
    /// The receive buffer, bytes.
    rwnd: u64,
    /// Duplicate TSNs since the last SACK, at most `max_entries`.
    dups: Vec<Tsn>,
    /// Gap blocks plus duplicate TSNs that fit in one SACK packet.
    max_entries: usize,
    sack_delay: Option<Dur>,
    sack_every: u32,
    /// Packets with DATA not yet acknowledged.
    unacked_packets: u32,
    /// Arrival of the first of them.
    first_unacked: Option<Time>,
    /// The current packet had a gap on arrival, or a duplicate.
    packet_urgent: bool,
    /// `SctpConfig::sack_after_gap_only`.
    gap_only: bool,
    /// The peer's initial TSN.
    first_tsn: Tsn,
    deliveries: Vec<Delivery>,
    stats: ReceiverStats,
}

impl Receiver {
    /// A receiver whose peer's first TSN is `peer_initial_tsn` (the cumulative point starts
    /// one below it, RFC 4960 §6.1 / §5.1).
    pub fn new(cfg: &SctpConfig, peer_initial_tsn: Tsn) -> Receiver {
        let cum = prev(peer_initial_tsn);
        let room = cfg
            .mtu
            .saturating_sub(IP_HEADER_BYTES + SCTP_COMMON_HEADER_BYTES + SACK_CHUNK_BASE_BYTES);
        Receiver {
            cum,
            highest: cum,
            above: VecDeque::new(),
            streams: vec![StreamIn::default(); cfg.streams.max(1) as usize],
            buffered: 0,
            rwnd: cfg.rwnd,
            dups: Vec::new(),
            max_entries: (room / 4) as usize,
            sack_delay: cfg.sack_delay,
            sack_every: cfg.sack_every.max(1),
            unacked_packets: 0,
            first_unacked: None,
            packet_urgent: false,
            gap_only: cfg.sack_after_gap_only,
            first_tsn: peer_initial_tsn,
            deliveries: Vec::new(),
            stats: ReceiverStats::default(),
        }
    }

    /// One DATA chunk of an arriving packet; returns user bytes newly delivered in order (per
    /// stream rules) to the application.
    pub fn on_data(&mut self, now: Time, d: &DataChunk) -> u64 {
        if self.first_unacked.is_none() {
            self.first_unacked = Some(now);
        }
        self.stats.chunks_received += 1;
        // RFC 4960 §6.7: a packet arriving while there is a gap is acknowledged at once
        // (with `sack_after_gap_only`, ns-2.35: only when a gap remains after it, checked in
        // `end_of_packet`, and for the peer's first TSN).
        if self.gap_only {
            self.packet_urgent |= d.tsn == self.first_tsn;
        } else if !self.above.is_empty() {
            self.packet_urgent = true;
        }
        if d.tsn <= self.cum || self.find(d.tsn).is_ok() {
            // RFC 4960 §6.2: duplicates are reported in the next SACK, which goes at once.
            self.stats.duplicates += 1;
            self.packet_urgent |= !self.gap_only;
            if self.dups.len() < self.max_entries {
                self.dups.push(d.tsn);
            }
            return 0;
        }
        // RFC 4960 §6.2: with no room, drop a new chunk above the highest TSN received.
        let free = self.rwnd.saturating_sub(self.buffered);
        if d.tsn > self.highest && (d.len as u64) > free {
            self.stats.dropped_no_buffer += 1;
            return 0;
        }
        self.highest = self.highest.max(d.tsn);
        self.record(d.tsn);
        self.deliver(d)
    }

    /// Called once after all chunks of a packet that carried DATA: whether a SACK must be
    /// sent now (every `sack_every`-th packet, or immediately when there is a gap or a
    /// duplicate, RFC 4960 §6.2 / §6.7; with `sack_delay` `None`, every packet).
    pub fn end_of_packet(&mut self, now: Time) -> bool {
        if self.first_unacked.is_none() {
            self.first_unacked = Some(now);
        }
        self.unacked_packets += 1;
        let urgent = std::mem::take(&mut self.packet_urgent) || !self.above.is_empty();
        urgent || self.sack_delay.is_none() || self.unacked_packets >= self.sack_every
    }

    /// Builds the SACK now (cum TSN, a_rwnd, gap blocks, duplicate TSNs since the last SACK)
    /// and resets the delayed-SACK state.
    pub fn take_sack(&mut self) -> SackChunk {
        let mut gaps = Vec::with_capacity(self.above.len().min(self.max_entries));
        for &(lo, hi) in &self.above {
            let (start, end) = (lo - self.cum, hi - self.cum);
            // RFC 4960 §3.3.4: offsets are 16-bit; stop at what the field or the MTU holds.
            if end > u16::MAX as u32 || gaps.len() == self.max_entries {
                break;
            }
            gaps.push(GapBlock {
                start: start as u16,
                end: end as u16,
            });
        }
        let mut dups = std::mem::take(&mut self.dups);
        dups.truncate(self.max_entries - gaps.len());
        self.unacked_packets = 0;
        self.first_unacked = None;
        self.packet_urgent = false;
        self.stats.sacks += 1;
        SackChunk {
            cum_tsn: self.cum,
            a_rwnd: self.a_rwnd(),
            gaps,
            dups,
        }
    }

    /// Delayed-SACK deadline (first unacknowledged packet's arrival + `sack_delay`), if one
    /// is pending.
    pub fn next_timeout(&self) -> Option<Time> {
        match (self.first_unacked, self.sack_delay) {
            (Some(t), Some(d)) if self.unacked_packets > 0 => Some(t + d),
            (Some(t), None) if self.unacked_packets > 0 => Some(t),
            _ => None,
        }
    }

    /// The cumulative TSN ack point.
    pub fn cum_tsn(&self) -> Tsn {
        self.cum
    }

    /// Every delivered chunk in delivery order, for tests.
    pub fn deliveries(&self) -> &[Delivery] {
        &self.deliveries
    }

    /// The receiver window that would be advertised now, bytes (RFC 4960 §6.2).
    pub fn a_rwnd(&self) -> u32 {
        self.rwnd.saturating_sub(self.buffered).min(u32::MAX as u64) as u32
    }

    /// User bytes held waiting for an earlier SSN of their stream.
    pub fn buffered_bytes(&self) -> u64 {
        self.buffered
    }

    /// Counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// The received TSN ranges above the cumulative point (inclusive), lowest first.
    pub fn ranges_above(&self) -> impl Iterator<Item = (Tsn, Tsn)> + '_ {
        self.above.iter().copied()
    }

    /// Index of the range holding `tsn` (`Ok`), or of the first range above it (`Err`).
    fn find(&self, tsn: Tsn) -> Result<usize, usize> {
        let i = self.above.partition_point(|r| r.1 < tsn);
        match self.above.get(i) {
            Some(r) if r.0 <= tsn => Ok(i),
            _ => Err(i),
        }
    }

    /// Adds a new TSN (above `cum`, not yet received) and advances the cumulative point.
    fn record(&mut self, tsn: Tsn) {
        let Err(i) = self.find(tsn) else {
            unreachable!("record: TSN {tsn} already received");
        };
        let joins_left = i > 0 && self.above[i - 1].1 + 1 == tsn;
        let joins_right = i < self.above.len() && self.above[i].0 == tsn + 1;
        match (joins_left, joins_right) {
            (true, true) => {
                self.above[i - 1].1 = self.above[i].1;
                self.above.remove(i);
            }
            (true, false) => self.above[i - 1].1 = tsn,
            (false, true) => self.above[i].0 = tsn,
            (false, false) => self.above.insert(i, (tsn, tsn)),
        }
        // RFC 4960 §6.2: the cumulative point is the highest TSN received in sequence.
        if let Some(&(lo, hi)) = self.above.front() {
            if lo == self.cum + 1 {
                self.cum = hi;
                self.above.pop_front();
            }
        }
        debug_assert!(self.above.front().is_none_or(|r| r.0 > self.cum + 1));
    }

    /// Hands `d` (a new chunk) and whatever it unblocks to the application; returns bytes.
    fn deliver(&mut self, d: &DataChunk) -> u64 {
        let s = d.stream as usize;
        if s >= self.streams.len() {
            // A stream the configuration did not open: accept it rather than lose data.
            self.streams.resize_with(s + 1, StreamIn::default);
        }
        if d.unordered {
            // RFC 4960 §6.6: unordered chunks bypass stream ordering.
            return self.push_delivery(d.stream, d.ssn, d.tsn, d.len);
        }
        let st = &mut self.streams[s];
        let Some(key) = st.unwrap(d.ssn) else {
            self.stats.stale_ssn += 1;
            return 0;
        };
        if key != st.next {
            // RFC 4960 §6.5: hold until every earlier SSN of the stream has been delivered.
            let w = Waiting {
                ssn: d.ssn,
                tsn: d.tsn,
                len: d.len,
            };
            if st.waiting.insert(key, w).is_none() {
                self.buffered += d.len as u64;
            } else {
                self.stats.stale_ssn += 1;
            }
            return 0;
        }
        st.next += 1;
        let mut bytes = self.push_delivery(d.stream, d.ssn, d.tsn, d.len);
        loop {
            let st = &mut self.streams[s];
            let Some(entry) = st.waiting.first_entry() else {
                break;
            };
            if *entry.key() != st.next {
                break;
            }
            let w = entry.remove();
            st.next += 1;
            self.buffered -= w.len as u64;
            bytes += self.push_delivery(d.stream, w.ssn, w.tsn, w.len);
        }
        bytes
    }

    fn push_delivery(&mut self, stream: u16, ssn: u16, tsn: Tsn, len: u32) -> u64 {
        self.deliveries.push(Delivery {
            stream,
            ssn,
            tsn,
            len,
        });
        self.stats.bytes_delivered += len as u64;
        len as u64
    }
}

/// The TSN before `t`.
fn prev(t: Tsn) -> Tsn {
    t + u32::MAX
}

#[cfg(test)]
mod tests {
    //! Scripted receiver tests: chunks injected with explicit times, SACKs checked exactly.
    //! Conventions: the peer's initial TSN is 100 (so the cumulative point starts at 99),
    //! chunks carry 1000 bytes, two streams.
    use super::*;
    use crate::packet::Seq;
    use proptest::prelude::*;

    const LEN: u32 = 1000;

    fn cfg() -> SctpConfig {
        SctpConfig {
            streams: 2,
            ..SctpConfig::default()
        }
    }

    fn ms(m: u64) -> Time {
        Time::from_millis(m)
    }

    /// An ordered chunk on stream 0.
    fn data(tsn: u32, ssn: u16) -> DataChunk {
        DataChunk {
            tsn: Seq(tsn),
            stream: 0,
            ssn,
            unordered: false,
            len: LEN,
        }
    }

    fn on(stream: u16, d: DataChunk) -> DataChunk {
        DataChunk { stream, ..d }
    }

    fn unordered(d: DataChunk) -> DataChunk {
        DataChunk {
            unordered: true,
            ..d
        }
    }

    /// Delivers one packet of chunks at `at`; returns (bytes delivered, SACK now?).
    fn packet(r: &mut Receiver, at: Time, chunks: &[DataChunk]) -> (u64, bool) {
        let bytes = chunks.iter().map(|d| r.on_data(at, d)).sum();
        (bytes, r.end_of_packet(at))
    }

    fn gaps(bs: &[(u16, u16)]) -> Vec<GapBlock> {
        bs.iter()
            .map(|&(start, end)| GapBlock { start, end })
            .collect()
    }

    fn tsns(r: &Receiver) -> Vec<u32> {
        r.deliveries().iter().map(|d| d.tsn.0).collect()
    }

    // RFC 4960 §6.1/§6.2: the cumulative point starts one below the peer's initial TSN and
    // advances over chunks received in sequence; §6.5: in-sequence ordered data goes to the
    // application at once.
    #[test]
    fn established_in_order_chunks_delivered_at_once() {
        let mut r = Receiver::new(&cfg(), Seq(100));
        assert_eq!(r.cum_tsn(), Seq(99));
        let (b, _) = packet(&mut r, ms(0), &[data(100, 0), data(101, 1)]);
        assert_eq!(b, 2 * LEN as u64);
        assert_eq!(r.cum_tsn(), Seq(101));
        assert_eq!(
            r.deliveries(),
            &[
                Delivery {
                    stream: 0,
                    ssn: 0,
                    tsn: Seq(100),
                    len: LEN
                },
                Delivery {
                    stream: 0,
                    ssn: 1,
                    tsn: Seq(101),
                    len: LEN
                }
            ]
        );
        let s = r.take_sack();
        assert_eq!(s.cum_tsn, Seq(101));
        assert!(s.gaps.is_empty() && s.dups.is_empty());
        assert_eq!(s.a_rwnd, 65_536);
        assert_eq!(r.stats().bytes_delivered, 2000);
    }

    // RFC 4960 §3.3.4: gap blocks are offsets from the cumulative TSN ack, one per received
    // range above it, lowest first; §6.5: ordered data above a gap waits.
    #[test]
    fn out_of_order_sack_has_exact_gap_blocks() {
        let mut r = Receiver::new(&cfg(), Seq(100));
        packet(&mut r, ms(0), &[data(100, 0), data(101, 1)]);
        // 102 lost; 103, 104 arrive; 105 lost; 106 arrives; 108 arrives.
        assert_eq!(
            packet(&mut r, ms(1), &[data(103, 3), data(104, 4)]).0,
            0,
            "ordered data above a gap waits"
        );
        packet(&mut r, ms(2), &[data(106, 6)]);
        packet(&mut r, ms(3), &[data(108, 8)]);
        let s = r.take_sack();
        assert_eq!(s.cum_tsn, Seq(101));
        assert_eq!(s.gaps, gaps(&[(2, 3), (5, 5), (7, 7)]));
        assert_eq!(
            r.ranges_above()
                .map(|(a, b)| (a.0, b.0))
                .collect::<Vec<_>>(),
            vec![(103, 104), (106, 106), (108, 108)]
        );
        // 105 joins two blocks; 102 then advances the cumulative point over 103..=106.
        packet(&mut r, ms(4), &[data(105, 5)]);
        assert_eq!(r.take_sack().gaps, gaps(&[(2, 5), (7, 7)]));
        let (b, _) = packet(&mut r, ms(5), &[data(102, 2)]);
        assert_eq!(b, 5 * LEN as u64, "102 releases 102..=106");
        let s = r.take_sack();
        assert_eq!(s.cum_tsn, Seq(106));
        assert_eq!(s.gaps, gaps(&[(2, 2)]));
        assert_eq!(tsns(&r), vec![100, 101, 102, 103, 104, 105, 106]);
    }

    // RFC 4960 §6.2: a packet of only duplicates gets a SACK at once listing them; RFC 2960
    // §3.3.4: every duplicate arrival since the last SACK is listed, and the list restarts
    // after each SACK.
    #[test]
    fn duplicate_reported_in_next_sack_then_cleared() {
        let mut r = Receiver::new(&cfg(), Seq(100));
        let (_, now) = packet(&mut r, ms(0), &[data(100, 0)]);
        assert!(!now, "first in-order packet waits (delayed SACK)");
        let (b, now) = packet(&mut r, ms(10), &[data(100, 0)]);
        assert_eq!(b, 0, "a duplicate is not delivered again");
        assert!(now, "a duplicate is acknowledged at once");
        let s = r.take_sack();
        assert_eq!(s.dups, vec![Seq(100)]);
        assert_eq!(s.cum_tsn, Seq(100));
        // Twice more before the next SACK: listed twice; then cleared.
        packet(&mut r, ms(20), &[data(100, 0)]);
        packet(&mut r, ms(21), &[data(100, 0)]);
        assert_eq!(r.take_sack().dups, vec![Seq(100), Seq(100)]);
        assert!(r.take_sack().dups.is_empty());
        // A duplicate of a gap-acked TSN counts too.
        packet(&mut r, ms(30), &[data(102, 2)]);
        r.take_sack();
        let (_, now) = packet(&mut r, ms(31), &[data(102, 2)]);
        assert!(now);
        assert_eq!(r.take_sack().dups, vec![Seq(102)]);
        assert_eq!(r.stats().duplicates, 4);
        assert_eq!(tsns(&r), vec![100]);
    }

    // RFC 4960 §6.7: a packet revealing a gap is acknowledged at once, as is every packet
    // arriving while the gap lasts (spec 3 §2.5), including the one that fills it; after that,
    // delayed SACK resumes.
    #[test]
    fn gap_sacked_immediately_until_filled_then_delayed_again() {
        let mut r = Receiver::new(&cfg(), Seq(100));
        assert!(!packet(&mut r, ms(0), &[data(100, 0)]).1);
        assert!(packet(&mut r, ms(1), &[data(101, 1)]).1, "2nd packet");
        r.take_sack();
        assert!(packet(&mut r, ms(2), &[data(103, 3)]).1, "gap revealed");
        r.take_sack();
        assert!(packet(&mut r, ms(3), &[data(104, 4)]).1, "gap still open");
        r.take_sack();
        assert!(packet(&mut r, ms(4), &[data(102, 2)]).1, "gap filled");
        r.take_sack();
        assert!(!packet(&mut r, ms(5), &[data(105, 5)]).1, "back to delayed");
        assert_eq!(r.next_timeout(), Some(ms(205)));
    }

    // ns-2.35 `SctpAgent::ProcessChunk` (`sack_after_gap_only`): the first DATA chunk (the
    // peer's initial TSN) is acknowledged at once; after that a packet is acknowledged at once
    // only when a gap remains once its chunks are in (`sRecvTsnBlockList.uiLength > 0`), so
    // the packet that fills the last gap, and a duplicate with no gap open, count toward the
    // delayed SACK like any other. By default (RFC 4960 §6.7, spec 3 §2.5) both go at once
    // and the first packet waits for a second.
    #[test]
    fn sack_after_gap_only_delays_the_gap_filling_packet() {
        for on in [false, true] {
            let c = SctpConfig {
                sack_after_gap_only: on,
                ..cfg()
            };
            let mut r = Receiver::new(&c, Seq(100));
            assert_eq!(
                packet(&mut r, ms(0), &[data(100, 0)]).1,
                on,
                "first DATA, {on}"
            );
            if on {
                r.take_sack();
            }
            assert_eq!(
                packet(&mut r, ms(1), &[data(101, 1)]).1,
                !on,
                "2nd packet, {on}"
            );
            r.take_sack();
            assert!(packet(&mut r, ms(2), &[data(103, 3)]).1, "gap revealed");
            r.take_sack();
            assert!(packet(&mut r, ms(3), &[data(104, 4)]).1, "gap still open");
            r.take_sack();
            assert_eq!(
                packet(&mut r, ms(4), &[data(102, 2)]).1,
                !on,
                "gap filled, {on}"
            );
            if on {
                assert_eq!(r.next_timeout(), Some(ms(204)), "delayed SACK");
            }
            r.take_sack();
            assert_eq!(
                packet(&mut r, ms(5), &[data(104, 4)]).1,
                !on,
                "duplicate, {on}"
            );
            assert_eq!(r.stats().duplicates, 1);
        }
    }

    // RFC 4960 §6.2 (spec 3 §2.5): without a gap, a SACK for every 2nd packet with DATA, or
    // 200 ms after the first unacknowledged one; taking the SACK stops the timer.
    #[test]
    fn in_order_delayed_sack_on_second_packet_or_after_200ms() {
        let mut r = Receiver::new(&cfg(), Seq(100));
        assert_eq!(r.next_timeout(), None);
        // Two chunks in one packet count as one packet.
        assert!(!packet(&mut r, ms(7), &[data(100, 0), data(101, 1)]).1);
        assert_eq!(r.next_timeout(), Some(ms(207)));
        assert!(packet(&mut r, ms(50), &[data(102, 2)]).1, "2nd packet");
        assert_eq!(r.take_sack().cum_tsn, Seq(102));
        assert_eq!(r.next_timeout(), None);
        // A lone packet: the deadline is its arrival plus 200 ms.
        assert!(!packet(&mut r, ms(300), &[data(103, 3)]).1);
        assert_eq!(r.next_timeout(), Some(ms(500)));
        assert_eq!(r.take_sack().cum_tsn, Seq(103));
        assert_eq!(r.next_timeout(), None);
    }

    // spec 3 §2.5 / config: `sack_delay` absent means a SACK for every packet; `sack_every`
    // sets the packet count.
    #[test]
    fn no_delay_sacks_every_packet_and_sack_every_counts_packets() {
        let c = SctpConfig {
            sack_delay: None,
            ..cfg()
        };
        let mut r = Receiver::new(&c, Seq(100));
        assert!(packet(&mut r, ms(0), &[data(100, 0)]).1);
        r.take_sack();
        let c = SctpConfig {
            sack_every: 3,
            ..cfg()
        };
        let mut r = Receiver::new(&c, Seq(100));
        assert!(!packet(&mut r, ms(0), &[data(100, 0)]).1);
        assert!(!packet(&mut r, ms(1), &[data(101, 1)]).1);
        assert!(packet(&mut r, ms(2), &[data(102, 2)]).1);
    }

    // RFC 4960 §6.2, spec 3 §2.5: a_rwnd is the buffer minus data held out of order; it
    // recovers as soon as the application can read the data.
    #[test]
    fn out_of_order_data_shrinks_a_rwnd_then_recovers() {
        let mut r = Receiver::new(&cfg(), Seq(100));
        packet(&mut r, ms(0), &[data(100, 0)]);
        assert_eq!(
            r.take_sack().a_rwnd,
            65_536,
            "in-order data is read at once"
        );
        packet(&mut r, ms(1), &[data(102, 2), data(103, 3)]);
        packet(&mut r, ms(2), &[data(105, 5)]);
        assert_eq!(r.buffered_bytes(), 3000);
        assert_eq!(r.take_sack().a_rwnd, 65_536 - 3000);
        packet(&mut r, ms(3), &[data(101, 1)]);
        assert_eq!(r.take_sack().a_rwnd, 65_536 - 1000, "105 still waits");
        packet(&mut r, ms(4), &[data(104, 4)]);
        let s = r.take_sack();
        assert_eq!((s.a_rwnd, s.cum_tsn), (65_536, Seq(105)));
    }

    // RFC 4960 §6.2: with the buffer full, a new chunk above the highest TSN received is
    // dropped (unrecorded, so it is neither acknowledged nor delivered); one filling a gap is
    // still taken.
    #[test]
    fn full_buffer_drops_new_chunk_above_highest() {
        let c = SctpConfig {
            rwnd: 2500,
            ..cfg()
        };
        let mut r = Receiver::new(&c, Seq(100));
        packet(&mut r, ms(0), &[data(101, 1), data(102, 2)]);
        assert_eq!(r.a_rwnd(), 500);
        packet(&mut r, ms(1), &[data(103, 3)]);
        assert_eq!(r.stats().dropped_no_buffer, 1);
        assert_eq!(r.take_sack().gaps, gaps(&[(2, 3)]));
        let (b, _) = packet(&mut r, ms(2), &[data(100, 0)]);
        assert_eq!(b, 3000);
        assert_eq!(r.a_rwnd(), 2500);
    }

    // RFC 4960 §6.6: a chunk with the U bit goes to the application at once, even above a
    // gap, and does not occupy the buffer; it still leaves a gap in the TSN sequence.
    #[test]
    fn unordered_chunk_delivered_across_gap() {
        let mut r = Receiver::new(&cfg(), Seq(100));
        let (b, now) = packet(&mut r, ms(0), &[unordered(data(101, 0))]);
        assert_eq!(b, LEN as u64);
        assert!(now, "a gap: immediate SACK");
        assert_eq!(r.buffered_bytes(), 0);
        let s = r.take_sack();
        assert_eq!(
            (s.cum_tsn, s.gaps, s.a_rwnd),
            (Seq(99), gaps(&[(2, 2)]), 65_536)
        );
        // The ordered chunk 100 (SSN 0) is not blocked by the unordered one's SSN.
        assert_eq!(packet(&mut r, ms(1), &[data(100, 0)]).0, LEN as u64);
        assert_eq!(r.cum_tsn(), Seq(101));
        assert_eq!(tsns(&r), vec![101, 100]);
    }

    // RFC 4960 §6.5: ordering is per stream: a gap on stream 0 does not hold back stream 1.
    #[test]
    fn two_streams_head_of_line_blocking_only_within_stream() {
        let mut r = Receiver::new(&cfg(), Seq(100));
        // Stream 0: TSN 100 (SSN 0, lost), 102 (SSN 1). Stream 1: TSN 101 (SSN 0), 103 (SSN 1).
        let (b, _) = packet(
            &mut r,
            ms(0),
            &[data(102, 1), on(1, data(101, 0)), on(1, data(103, 1))],
        );
        assert_eq!(b, 2 * LEN as u64, "stream 1 delivered across the gap");
        assert_eq!(r.buffered_bytes(), LEN as u64, "stream 0's SSN 1 waits");
        assert_eq!(r.take_sack().gaps, gaps(&[(2, 4)]));
        assert_eq!(packet(&mut r, ms(1), &[data(100, 0)]).0, 2 * LEN as u64);
        let order: Vec<(u16, u16)> = r.deliveries().iter().map(|d| (d.stream, d.ssn)).collect();
        assert_eq!(order, vec![(1, 0), (1, 1), (0, 0), (0, 1)]);
        assert_eq!(r.cum_tsn(), Seq(103));
    }

    // RFC 4960 §1.6: TSNs are serial numbers modulo 2^32.
    #[test]
    fn tsn_wraps_around() {
        let mut r = Receiver::new(&cfg(), Seq(u32::MAX - 1));
        assert_eq!(r.cum_tsn(), Seq(u32::MAX - 2));
        packet(&mut r, ms(0), &[data(u32::MAX - 1, 0)]);
        // u32::MAX lost; 0 and 1 arrive.
        packet(&mut r, ms(1), &[data(0, 2), data(1, 3)]);
        let s = r.take_sack();
        assert_eq!((s.cum_tsn, s.gaps), (Seq(u32::MAX - 1), gaps(&[(2, 3)])));
        let (b, _) = packet(&mut r, ms(2), &[data(u32::MAX, 1)]);
        assert_eq!(b, 3 * LEN as u64);
        assert_eq!(r.cum_tsn(), Seq(1));
        assert_eq!(tsns(&r), vec![u32::MAX - 1, u32::MAX, 0, 1]);
        // A duplicate from before the wrap is recognised.
        assert!(packet(&mut r, ms(3), &[data(u32::MAX, 1)]).1);
        assert_eq!(r.take_sack().dups, vec![Seq(u32::MAX)]);
    }

    // RFC 4960 §6.5: SSNs are 16-bit and wrap to 0 after 65535; a chunk after the wrap still
    // waits for the one before it.
    #[test]
    fn ssn_wraps_around() {
        let mut r = Receiver::new(&cfg(), Seq(0));
        for k in 0..65_535u32 {
            r.on_data(ms(0), &data(k, k as u16));
        }
        // SSN 65535 (TSN 65535) lost; SSN 0 again (TSN 65536) waits for it.
        assert_eq!(r.on_data(ms(1), &data(65_536, 0)), 0);
        assert_eq!(r.buffered_bytes(), LEN as u64);
        assert_eq!(r.on_data(ms(2), &data(65_535, u16::MAX)), 2 * LEN as u64);
        let last: Vec<u16> = r.deliveries()[65_534..].iter().map(|d| d.ssn).collect();
        assert_eq!(last, vec![65_534, 65_535, 0]);
    }

    // RFC 4960 §3.3.4/§6.2: the SACK must fit in one packet: gap blocks first, then
    // duplicates, up to (MTU - IP - common header - SACK header) / 4 entries.
    #[test]
    fn sack_is_cut_to_one_mtu() {
        let c = SctpConfig { mtu: 100, ..cfg() };
        let mut r = Receiver::new(&c, Seq(0));
        // (100 - 20 - 12 - 16) / 4 = 13 entries.
        for k in 0..20u32 {
            r.on_data(ms(0), &unordered(data(2 * k + 1, 0)));
        }
        r.on_data(ms(0), &unordered(data(1, 0)));
        r.end_of_packet(ms(0));
        let s = r.take_sack();
        assert_eq!(s.gaps.len() + s.dups.len(), 13);
        assert_eq!(s.gaps.len(), 13);
        assert_eq!(s.gaps[0], GapBlock { start: 2, end: 2 });
    }

    /// The received set above the cumulative point as the SACK describes it.
    fn sack_set(s: &SackChunk) -> Vec<u32> {
        s.gaps
            .iter()
            .flat_map(|g| (g.start..=g.end).map(|o| (s.cum_tsn + o as u32).0))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        // RFC 4960 §6.2, §6.5, §6.6, §3.3.4: whatever the arrival order, duplication and
        // retransmission pattern, every chunk is delivered exactly once, ordered chunks in SSN
        // order per stream, and every SACK's cumulative TSN and gap blocks describe exactly
        // the TSNs received.
        #[test]
        fn any_arrival_order_delivers_each_chunk_once_in_stream_order(
            initial in any::<u32>(),
            spec in prop::collection::vec((0u16..3, any::<bool>(), 1u32..200, 1usize..4), 1..120),
            nstreams in 1u16..4,
            order_seed in any::<u64>(),
            packet_sizes in prop::collection::vec(1usize..5, 1..64),
        ) {
            // The chunk sequence, SSNs assigned per stream in TSN order (ordered only).
            let mut next_ssn = vec![0u16; nstreams as usize];
            let chunks: Vec<DataChunk> = spec
                .iter()
                .enumerate()
                .map(|(i, &(s, u, len, _))| {
                    let stream = s % nstreams;
                    let ssn = next_ssn[stream as usize];
                    if !u {
                        next_ssn[stream as usize] = ssn.wrapping_add(1);
                    }
                    DataChunk { tsn: Seq(initial) + i as u32, stream, ssn, unordered: u, len }
                })
                .collect();
            // Every chunk arrives 1-3 times (losses then retransmissions, or duplicates), in
            // a random order.
            let mut arrivals: Vec<usize> = spec
                .iter()
                .enumerate()
                .flat_map(|(i, &(.., copies))| std::iter::repeat_n(i, copies))
                .collect();
            let mut rng = packetsim_kernel::Rng::from_seed(order_seed);
            for k in (1..arrivals.len()).rev() {
                arrivals.swap(k, rng.below(k as u64 + 1) as usize);
            }
            let c = SctpConfig { streams: nstreams, ..SctpConfig::default() };
            let mut r = Receiver::new(&c, Seq(initial));
            let mut received = std::collections::BTreeSet::new();
            let mut delivered = 0u64;
            let (mut at, mut p) = (0u64, 0usize);
            let mut rest = &arrivals[..];
            while !rest.is_empty() {
                let n = packet_sizes[p % packet_sizes.len()].min(rest.len());
                p += 1;
                at += 1;
                for &i in &rest[..n] {
                    delivered += r.on_data(ms(at), &chunks[i]);
                    received.insert(i as u32);
                }
                rest = &rest[n..];
                r.end_of_packet(ms(at));
                let s = r.take_sack();
                // Chunks in sequence: those up to and including the cumulative TSN.
                let cum_count = (s.cum_tsn + 1) - Seq(initial);
                let in_seq = (0..).take_while(|i| received.contains(i)).count() as u32;
                prop_assert_eq!(cum_count, in_seq, "cumulative TSN");
                let above: Vec<u32> = received
                    .range(in_seq..)
                    .map(|&i| (Seq(initial) + i).0)
                    .collect();
                prop_assert_eq!(sack_set(&s), above, "gap blocks");
                prop_assert_eq!(s.a_rwnd as u64, c.rwnd - r.buffered_bytes());
            }
            // Exactly once each.
            let ds = r.deliveries();
            prop_assert_eq!(ds.len(), chunks.len());
            let mut seen: Vec<u32> = ds.iter().map(|d| d.tsn - Seq(initial)).collect();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..chunks.len() as u32).collect::<Vec<_>>());
            prop_assert_eq!(delivered, chunks.iter().map(|d| d.len as u64).sum::<u64>());
            prop_assert_eq!(r.buffered_bytes(), 0);
            prop_assert_eq!(r.cum_tsn(), Seq(initial) + (chunks.len() as u32 - 1));
            // In SSN order per stream for ordered chunks.
            for s in 0..nstreams {
                let ssns: Vec<u16> = ds
                    .iter()
                    .filter(|d| d.stream == s)
                    .filter(|d| !chunks[(d.tsn - Seq(initial)) as usize].unordered)
                    .map(|d| d.ssn)
                    .collect();
                let want: Vec<u16> = (0..ssns.len() as u16).collect();
                prop_assert_eq!(ssns, want, "stream {} order", s);
            }
        }
    }
}
