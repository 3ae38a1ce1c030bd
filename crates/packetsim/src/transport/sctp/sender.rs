//! The data sender of an association: the application's byte stream cut into DATA chunks,
//! the queue of chunks not yet cumulatively acknowledged, per-destination congestion windows
//! and outstanding counts (spec 3 §2.5 "Congestion control"), SACK processing with
//! gap-ack-based outstanding accounting, fast retransmit (RFC 2960 §7.2.4 with the
//! implementer's guide: at most once per TSN) and T3-rtx (RFC 2960 §6.3.2 R1-R4, §6.3.3
//! E1-E3), and the error counters of RFC 2960 §8.
//!
//! Decisions recorded here:
//! - Outstanding bytes and cwnd count DATA chunks at their length on the wire (16 + padded
//!   user data), as ns-2 does; the peer's rwnd counts user bytes.
//! - New data may go to a destination while its outstanding < cwnd, checked before each
//!   chunk (RFC 2960 §6.1 B); at most `max_burst` packets per send opportunity (spec 3 §2.5,
//!   ns-2 `useMaxBurst_`), not counting the one immediate retransmission packet.
//! - A chunk counts as "missing" in a SACK when it is above the cumulative ack, not gap-acked,
//!   below the highest TSN a gap block covers and not already waiting for retransmission.
//!   A chunk already fast-retransmitted keeps counting but is never fast-retransmitted again.
//! - cwnd grows only on a SACK that advances the cumulative TSN ack point (RFC 2960 §7.2.1),
//!   never during RFC 4960 fast recovery when that option is on (§7.2.4).
//! - The immediate packet (fast retransmit or T3) carries the lowest-TSN chunk waiting for
//!   retransmission and the following ones bound for the same destination that fit.
//! - The receiver never reneges, so a gap-acked chunk stays acked (R4 never fires).
//! - The association error counter is reset to 0 after it exceeded Association.Max.Retrans
//!   and the event was counted, so each further excess counts again (the run continues).

use super::path::Path;
use super::rtx_policy::{data_dest, rtx_dest, RtxCause};
use super::stats::SctpStats;
use super::{SctpConfig, Tsn};
use crate::app::{AppData, AppSource};
use crate::packet::{
    Chunk, DataChunk, SackChunk, SctpPacket, IP_HEADER_BYTES, SCTP_COMMON_HEADER_BYTES,
};
use packetsim_kernel::Time;
use std::collections::VecDeque;

/// One DATA chunk sent and not yet cumulatively acknowledged.
#[derive(Clone, Debug)]
pub struct SentChunk {
    /// The chunk as sent.
    pub data: DataChunk,
    /// The destination it was last sent to.
    pub dest: usize,
    /// Transmissions so far.
    pub tx_count: u32,
    /// Covered by a gap-ack block.
    pub gap_acked: bool,
    /// Missing reports since it was last sent.
    pub misses: u32,
    /// Fast-retransmitted once already.
    pub fast_rtxed: bool,
    /// Marked for retransmission to this destination.
    pub pending: Option<usize>,
}

impl SentChunk {
    fn wire(&self) -> u64 {
        self.data.wire_len() as u64
    }
}

/// A packet ready to send: destination index and chunks.
pub type Outgoing = (usize, SctpPacket);

/// The sending half of an association.
#[derive(Debug)]
pub struct Sender {
    /// The peer's destinations.
    pub paths: Vec<Path>,
    /// Index of the primary destination.
    pub primary: usize,
    /// Chunks from `cum_ack + 1` to `next_tsn − 1`.
    pub queue: VecDeque<SentChunk>,
    /// TSN of the next new chunk.
    pub next_tsn: Tsn,
    /// Cumulative TSN ack point.
    pub cum_ack: Tsn,
    /// The peer's last advertised receive window, bytes.
    pub peer_rwnd: u64,
    /// Association error counter (RFC 2960 §8.1).
    pub assoc_errors: u32,
    /// RFC 4960 §7.2.4 fast recovery exit point, when in fast recovery (option).
    pub recover: Option<Tsn>,
    /// The last exit point set, kept after fast recovery ends (ns-2.35 `uiRecover`, for
    /// `htna`); TSN 0 before any.
    recover_point: Tsn,
    /// ns-2.35's `uiHighestTsnNewlyAcked` (`htna`): kept across SACKs.
    htna: Tsn,
    /// `max_burst_after_fast_rtx`: a fast-retransmitted chunk was cumulatively acked and no
    /// burst has reached the limit since (ns-2.35 `eApplyMaxBurst`).
    apply_burst: bool,
    /// The sending application; it counts the user bytes handed to DATA chunks so far.
    app: AppSource,
    chunk: u32,
    next_stream: u16,
    ssn: Vec<u16>,
    cfg: SctpConfig,
}

impl Sender {
    /// A sender with `paths`, starting at TSN `initial_tsn`.
    pub fn new(
        cfg: &SctpConfig,
        paths: Vec<Path>,
        primary: usize,
        app: AppData,
        initial_tsn: Tsn,
    ) -> Sender {
        Sender {
            paths,
            primary,
            queue: VecDeque::new(),
            next_tsn: initial_tsn,
            cum_ack: crate::packet::Seq(initial_tsn.0.wrapping_sub(1)),
            peer_rwnd: cfg.rwnd,
            assoc_errors: 0,
            recover: None,
            recover_point: crate::packet::Seq(0),
            htna: crate::packet::Seq(0),
            apply_burst: false,
            app: app.into(),
            chunk: cfg.chunk_data(),
            next_stream: 0,
            ssn: vec![0; cfg.streams as usize],
            cfg: cfg.clone(),
        }
    }

    /// User bytes not yet put into a DATA chunk.
    fn unsent(&self) -> u64 {
        self.app.available()
    }

    /// Every byte of a finite file is sent and cumulatively acknowledged.
    pub fn all_acked(&self) -> bool {
        self.unsent() == 0 && self.queue.is_empty()
    }

    /// User bytes in flight (sent, not acked, not gap-acked), for the peer's rwnd.
    fn flight_user(&self) -> u64 {
        self.queue
            .iter()
            .filter(|c| !c.gap_acked)
            .map(|c| c.data.len as u64)
            .sum()
    }

    /// Bytes of chunks that fit in one packet after the headers.
    fn packet_room(&self) -> u32 {
        self.cfg.mtu - IP_HEADER_BYTES - SCTP_COMMON_HEADER_BYTES
    }

    /// Records the transmission of queue entry `i` to `d` at `now`: outstanding, R1, Karn's
    /// timing (first transmissions only), idle tracking and counters.
    fn transmit(&mut self, now: Time, i: usize, d: usize, stats: &mut SctpStats) -> DataChunk {
        let c = &mut self.queue[i];
        c.dest = d;
        c.tx_count += 1;
        c.pending = None;
        c.misses = 0;
        let (wire, data, tx) = (c.wire(), c.data, c.tx_count);
        let p = &mut self.paths[d];
        p.outstanding += wire;
        if tx == 1 {
            p.used_in_period = true;
            if p.timed.is_none() {
                p.timed = Some((data.tsn, now));
            }
        } else {
            p.retransmissions_sent += 1;
            stats.retransmissions += 1;
            if tx == 3 {
                stats.chunks_lost_twice += 1;
            }
        }
        // RFC 2960 §6.3.2 R1: start T3 with this destination's RTO if not running.
        if p.t3.is_none() {
            p.t3 = Some(now + p.rto);
        }
        p.on_sent(now);
        stats.data_chunks_sent += 1;
        stats.bytes_sent += data.len as u64;
        data
    }

    /// A new DATA chunk from the application, appended to the queue; its index.
    fn new_chunk(&mut self) -> usize {
        let len = (self.chunk as u64).min(self.unsent()) as u32;
        let stream = self.next_stream;
        self.next_stream = (self.next_stream + 1) % self.cfg.streams;
        let ssn = self.ssn[stream as usize];
        self.ssn[stream as usize] = ssn.wrapping_add(1);
        let data = DataChunk {
            tsn: self.next_tsn,
            stream,
            ssn,
            unordered: self.cfg.unordered,
            len,
        };
        self.next_tsn += 1;
        self.app.take(len as u64);
        self.queue.push_back(SentChunk {
            data,
            dest: self.primary,
            tx_count: 0,
            gap_acked: false,
            misses: 0,
            fast_rtxed: false,
            pending: None,
        });
        self.queue.len() - 1
    }

    /// One packet of chunks waiting for retransmission: the lowest-TSN one and the following
    /// ones bound for the same destination that fit, ignoring cwnd when `force` (the
    /// immediate packet of RFC 2960 §7.2.4 / §6.3.3 E3), else while outstanding < cwnd.
    fn rtx_packet(&mut self, now: Time, force: bool, stats: &mut SctpStats) -> Option<Outgoing> {
        let first = self
            .queue
            .iter()
            .position(|c| c.pending.is_some_and(|d| force || self.paths[d].has_room()))?;
        let d = self.queue[first].pending?;
        let mut room = self.packet_room();
        let mut chunks = vec![];
        for i in first..self.queue.len() {
            if self.queue[i].pending != Some(d) {
                continue;
            }
            let w = self.queue[i].data.wire_len();
            if w > room || (!force && !chunks.is_empty() && !self.paths[d].has_room()) {
                break;
            }
            room -= w;
            if self.cfg.t3_restart_on_rtx {
                self.restart_t3_for_rtx(now, i, d);
            }
            chunks.push(Chunk::Data(self.transmit(now, i, d, stats)));
        }
        Some((d, SctpPacket { chunks }))
    }

    /// `t3_restart_on_rtx` (RFC 4960 §7.2.4 rule 5; ns-2.35 `SctpAgent::RtxMarkedChunks`), for
    /// queue entry `i` about to be retransmitted to `d`: if it is the lowest-TSN chunk not
    /// gap-acked last sent to its old destination and that destination still has data
    /// outstanding, the old destination's T3 restarts; if no lower-TSN chunk is outstanding
    /// on `d`, `d`'s T3 restarts.
    fn restart_t3_for_rtx(&mut self, now: Time, i: usize, d: usize) {
        let old = self.queue[i].dest;
        let first_on = |q: &VecDeque<SentChunk>, x: usize| {
            q.iter()
                .position(|c| c.dest == x && !c.gap_acked && c.tx_count > 0)
        };
        if first_on(&self.queue, old) == Some(i) && self.paths[old].outstanding > 0 {
            let p = &mut self.paths[old];
            p.t3 = Some(now + p.rto);
        }
        if first_on(&self.queue, d).is_none_or(|j| j >= i) {
            let p = &mut self.paths[d];
            p.t3 = Some(now + p.rto);
        }
    }

    /// One packet of new data to the data destination, if the window, the peer's rwnd and the
    /// application allow (RFC 2960 §6.1 A, B).
    fn data_packet(&mut self, now: Time, stats: &mut SctpStats) -> Option<Outgoing> {
        let d = data_dest(&self.paths, self.primary);
        let mut flight = self.flight_user();
        let mut room = self.packet_room();
        let mut chunks = vec![];
        while self.unsent() > 0 && self.paths[d].has_room() {
            let len = (self.chunk as u64).min(self.unsent());
            // RFC 2960 §6.1 A: not beyond the peer's rwnd, except one chunk when nothing is in
            // flight.
            if flight + len > self.peer_rwnd && flight > 0 {
                break;
            }
            let w = crate::packet::DATA_CHUNK_HEADER_BYTES + crate::packet::pad4(len as u32);
            if w > room {
                break;
            }
            room -= w;
            flight += len;
            let i = self.new_chunk();
            chunks.push(Chunk::Data(self.transmit(now, i, d, stats)));
        }
        (!chunks.is_empty()).then_some((d, SctpPacket { chunks }))
    }

    /// One packet of chunks waiting for retransmission, regardless of cwnd (`rtx_one_packet`
    /// after a T3 expiry).
    pub fn one_rtx_packet(&mut self, now: Time, stats: &mut SctpStats) -> Option<Outgoing> {
        self.rtx_packet(now, true, stats)
    }

    /// A send opportunity: first, when `immediate`, one packet of chunks waiting for
    /// retransmission regardless of cwnd; then retransmissions and new data as cwnd allows,
    /// at most Max.Burst packets.
    pub fn send(&mut self, now: Time, immediate: bool, stats: &mut SctpStats) -> Vec<Outgoing> {
        let mut out = vec![];
        if immediate {
            out.extend(self.rtx_packet(now, true, stats));
        }
        let limited = !self.cfg.max_burst_after_fast_rtx || self.apply_burst;
        let limit = if self.cfg.max_burst == 0 || !limited {
            usize::MAX
        } else {
            self.cfg.max_burst as usize
        };
        let mut burst = 0;
        // ns-2.35 `ProcessSackChunk`, `Timeout` (`rtx_one_packet`): after the one packet of
        // `FastRtx` or `TimeoutRtx`, no cwnd-limited retransmissions now.
        let rtx_now = !(immediate && self.cfg.rtx_one_packet);
        while burst < limit && rtx_now {
            let Some(p) = self.rtx_packet(now, false, stats) else {
                break;
            };
            out.push(p);
            burst += 1;
        }
        // ns-2.35 `SctpAgent::recv` (`new_data_waits_for_rtx`): no new data while any chunk
        // waits for retransmission.
        let hold =
            self.cfg.new_data_waits_for_rtx && self.queue.iter().any(|c| c.pending.is_some());
        while burst < limit && !hold {
            let Some(p) = self.data_packet(now, stats) else {
                break;
            };
            out.push(p);
            burst += 1;
        }
        if burst >= limit {
            self.apply_burst = false;
        }
        out
    }

    /// Marks queue entry `i` for retransmission (removing it from its destination's
    /// outstanding bytes, spec 3 §2.5 "Outstanding accounting").
    fn mark(&mut self, i: usize, cause: RtxCause) {
        let c = &self.queue[i];
        let (old, wire, tsn) = (c.dest, c.wire(), c.data.tsn);
        let to = rtx_dest(self.cfg.rtx_policy, cause, &self.paths, old);
        let p = &mut self.paths[old];
        p.outstanding -= wire;
        if p.timed.is_some_and(|(t, _)| t == tsn) {
            p.timed = None;
        }
        self.queue[i].pending = Some(to);
    }

    /// An RTT sample (RFC 2960 §6.3.1 C4/C5: only a first transmission, only the timed chunk)
    /// and the error counters' reset (RFC 2960 §8.1, §8.2) for a chunk just acknowledged.
    fn on_chunk_acked(&mut self, now: Time, d: usize, tsn: Tsn, tx_count: u32) {
        let p = &mut self.paths[d];
        if let Some((t, at)) = p.timed {
            if t == tsn {
                p.timed = None;
                if tx_count == 1 {
                    p.on_rtt_sample(now, now - at);
                    p.data_samples += 1;
                }
            }
        }
        p.errors = 0;
        self.assoc_errors = 0;
    }

    /// A SACK arrived (RFC 2960 §6.2.1, §7.2.1-4). Returns whether chunks were newly marked
    /// for fast retransmit (the caller then sends immediately).
    pub fn on_sack(&mut self, now: Time, s: &SackChunk, stats: &mut SctpStats) -> bool {
        // RFC 2960 §6.2.1: a SACK whose cumulative ack is behind the ack point is stale.
        if s.cum_tsn < self.cum_ack || s.cum_tsn >= self.next_tsn {
            return false;
        }
        let n = self.paths.len();
        let was_full: Vec<bool> = self.paths.iter().map(|p| p.outstanding >= p.cwnd).collect();
        let mut earliest: Vec<Option<Tsn>> = vec![None; n];
        for c in &self.queue {
            if !c.gap_acked && c.pending.is_none() && earliest[c.dest].is_none() {
                earliest[c.dest] = Some(c.data.tsn);
            }
        }
        let mut acked = vec![0u64; n];
        let mut earliest_acked = vec![false; n];
        let advanced = s.cum_tsn > self.cum_ack;
        // Cumulatively acknowledged chunks leave the queue.
        while self.queue.front().is_some_and(|c| c.data.tsn <= s.cum_tsn) {
            let c = self.queue.pop_front().expect("front exists");
            stats.bytes_acked += c.data.len as u64;
            if c.fast_rtxed {
                self.apply_burst = true;
            }
            if c.gap_acked {
                continue;
            }
            self.htna = c.data.tsn;
            if c.pending.is_none() {
                self.paths[c.dest].outstanding -= c.wire();
            }
            acked[c.dest] += c.wire();
            earliest_acked[c.dest] |= earliest[c.dest] == Some(c.data.tsn);
            self.on_chunk_acked(now, c.dest, c.data.tsn, c.tx_count);
        }
        self.cum_ack = s.cum_tsn;
        if self.recover.is_some_and(|r| self.cum_ack >= r) {
            self.recover = None;
        }
        // Gap-acked chunks stop counting as outstanding (spec 3 §2.5).
        let mut highest: Option<Tsn> = None;
        let mut highest_sacked = self.htna;
        for g in &s.gaps {
            for off in g.start..=g.end {
                let i = off as usize - 1;
                let Some(c) = self.queue.get_mut(i) else {
                    break;
                };
                highest = Some(c.data.tsn);
                highest_sacked = highest_sacked.max(c.data.tsn);
                if c.gap_acked {
                    continue;
                }
                c.gap_acked = true;
                self.htna = self.htna.max(c.data.tsn);
                let (d, wire, tsn, tx) = (c.dest, c.wire(), c.data.tsn, c.tx_count);
                if c.pending.take().is_none() {
                    self.paths[d].outstanding -= wire;
                }
                acked[d] += wire;
                earliest_acked[d] |= earliest[d] == Some(tsn);
                self.on_chunk_acked(now, d, tsn, tx);
            }
        }
        // RFC 2960 §7.2.4: missing reports; the threshold-th marks a fast retransmit, at
        // most once per TSN (implementer's guide).
        // With `htna`, ns-2.35's rule (`ProcessGapAckBlocks`): below the highest TSN newly
        // acked, or, on a new cumulative ack with that TSN not above the recovery point, below
        // the highest TSN SACKed.
        let mut marked = vec![];
        let (htna, exception) = (self.htna, advanced && self.htna <= self.recover_point);
        if let Some(h) = highest {
            for (i, c) in self.queue.iter_mut().enumerate() {
                if self.cfg.htna {
                    if c.data.tsn >= htna && !(exception && c.data.tsn < highest_sacked) {
                        if c.data.tsn >= highest_sacked {
                            break;
                        }
                        continue;
                    }
                } else if c.data.tsn >= h {
                    break;
                }
                if c.gap_acked || c.pending.is_some() {
                    continue;
                }
                c.misses += 1;
                if c.misses >= self.cfg.fast_rtx_threshold && !c.fast_rtxed {
                    c.fast_rtxed = true;
                    marked.push(i);
                }
            }
        }
        // RFC 2960 §7.2.1/§7.2.2: cwnd growth per destination.
        if advanced && self.recover.is_none() {
            for (d, p) in self.paths.iter_mut().enumerate() {
                p.on_bytes_acked(acked[d], was_full[d]);
            }
        }
        // RFC 2960 §7.2.3: one cut per destination whose chunks are fast-retransmitted.
        let mut cut = vec![false; n];
        for &i in &marked {
            let d = self.queue[i].dest;
            cut[d] = true;
            self.paths[d].fast_retransmits += 1;
            stats.fast_retransmits += 1;
            self.mark(i, RtxCause::Fast);
        }
        if cut.iter().any(|&c| c) {
            // RFC 4960 §7.2.4 (option): no further cut until the exit point is acked; with
            // `cut_above_recover` (ns-2.35 `FastRtx`) a destination with a chunk marked for
            // retransmission above the exit point is cut again.
            let guard = self.cfg.fast_recovery;
            let allowed: Vec<bool> = (0..n)
                .map(|d| match self.recover {
                    Some(r) if guard => {
                        self.cfg.cut_above_recover
                            && self
                                .queue
                                .iter()
                                .any(|c| c.dest == d && c.pending.is_some() && c.data.tsn > r)
                    }
                    _ => true,
                })
                .collect();
            let mut applied = false;
            for (d, p) in self.paths.iter_mut().enumerate() {
                if cut[d] && allowed[d] {
                    applied = true;
                    p.on_fast_rtx_cut();
                    // ns-2.35 `FastRtx` (`cancel_rtt_on_cut`): `eRtoPending = FALSE`.
                    if self.cfg.cancel_rtt_on_cut {
                        p.timed = None;
                    }
                }
            }
            if guard && applied {
                let r = crate::packet::Seq(self.next_tsn.0.wrapping_sub(1));
                self.recover = Some(r);
                self.recover_point = r;
            }
        }
        self.timer_rules(now, &earliest_acked);
        self.peer_rwnd = s.a_rwnd as u64;
        !marked.is_empty()
    }

    /// RFC 2960 §6.3.2 R2 (stop when nothing is outstanding, and then partial_bytes_acked = 0,
    /// §7.2.2) and R3 (restart when the earliest outstanding chunk was acknowledged).
    fn timer_rules(&mut self, now: Time, earliest_acked: &[bool]) {
        for (d, p) in self.paths.iter_mut().enumerate() {
            if p.outstanding == 0 {
                p.t3 = None;
                p.on_drained();
            } else if earliest_acked[d] || p.t3.is_none() {
                p.t3 = Some(now + p.rto);
            }
        }
    }

    /// Adds an error to destination `d` and to the association (RFC 2960 §8.1, §8.2):
    /// beyond Path.Max.Retrans the destination becomes inactive. Returns whether the
    /// association counter exceeded Association.Max.Retrans.
    pub fn path_error(&mut self, d: usize) -> bool {
        let p = &mut self.paths[d];
        p.errors += 1;
        if p.errors > self.cfg.path_max_retrans {
            p.active = false;
        }
        self.assoc_errors += 1;
        if self.assoc_errors > self.cfg.assoc_max_retrans {
            self.assoc_errors = 0;
            return true;
        }
        false
    }

    /// T3-rtx of destination `x` expired (RFC 2960 §6.3.3): E1 cut, E2 backoff, the error
    /// counters (RFC 2960 §8.1, §8.2), then E3: every chunk outstanding on `x` is marked for
    /// retransmission. The error is counted before E3 picks the retransmission destination,
    /// so the expiry that makes `x` inactive already retransmits elsewhere. Chunks that were
    /// waiting to be retransmitted to `x` get a new destination as if last sent to `x`. Returns whether
    /// Association.Max.Retrans was exceeded. The caller sends immediately.
    pub fn on_t3(&mut self, now: Time, x: usize, stats: &mut SctpStats) -> bool {
        stats.t3_expiries += 1;
        let p = &mut self.paths[x];
        p.t3 = None;
        p.t3_expiries += 1;
        p.on_timeout_cut();
        // ns-2 `SctpAgent::Timeout`: the idle-decay timer stops (restarted by what is sent).
        p.decay_at = None;
        p.back_off(now);
        let exceeded = self.path_error(x);
        for i in 0..self.queue.len() {
            let c = &self.queue[i];
            if c.dest == x && !c.gap_acked && c.pending.is_none() && c.tx_count > 0 {
                self.mark(i, RtxCause::Timeout);
            } else if c.pending == Some(x) {
                // Still waiting to be retransmitted to `x`: choose again, as from `x`.
                let to = rtx_dest(self.cfg.rtx_policy, RtxCause::Timeout, &self.paths, x);
                self.queue[i].pending = Some(to);
            }
        }
        debug_assert_eq!(
            self.paths[x].outstanding, 0,
            "E3 leaves nothing outstanding on the destination"
        );
        self.paths[x].on_drained();
        exceeded
    }
}
