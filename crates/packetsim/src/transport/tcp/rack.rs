//! RACK-TLP loss detection (RFC 8985), the `[tcp]` key `loss_detection = "rack" | "rack_tlp"`:
//! the per-segment send times, RACK's state, the time-based loss marking and the Tail Loss
//! Probe's episode state. The sender (`sender.rs`) feeds it every transmission, every newly
//! SACKed range and every cumulative ACK, and acts on what it marks lost.
//!
//! Decisions (where RFC 8985 leaves a choice, Linux's, function named):
//! - One record per transmitted segment, in sequence order (`segs`), and the send order as a
//!   queue of (start, send time) (`order`; Linux `tsorted_sent_queue`): a retransmission
//!   updates the record and queues it again, the old queue entry goes stale (its time no
//!   longer matches). Segments are cut once, at their first transmission; a retransmission
//!   covers whole records (the sender's retransmissions start at record boundaries: snd_una,
//!   SACK edges and lost records).
//! - RACK.xmit_ts/end_seq/rtt advance on each newly delivered (cumulatively ACKed or SACKed)
//!   segment sent after the current RACK.xmit_ts (§6.2 step 2, ties broken by end sequence,
//!   Linux `tcp_rack_sent_after`); a retransmitted segment delivered sooner than min_RTT after
//!   its retransmission is taken as the original's delivery and ignored (§6.2 step 2, Linux
//!   `tcp_rack_advance`).
//! - Reordering window (§6.2 step 4; Linux `tcp_rack_reo_wnd`): 0 while no reordering has been
//!   seen and either the sender is in recovery or after a timeout, or DupThresh segments are
//!   SACKed (so RACK enters recovery where RFC 6675's DupThresh would); otherwise min_RTT / 4,
//!   at most SRTT. Reordering is seen when a never-retransmitted segment is delivered below
//!   the highest SACKed sequence (Linux `tcp_check_sack_reordering`). DSACK is not modelled
//!   (the receiver sends none), so the window is never scaled up by DSACK (reo_wnd_steps 1).
//! - Detection (§6.2 step 5, Linux `tcp_rack_detect_loss`): walk the send order from the
//!   oldest; skip records already marked lost and not resent; stop at the first one sent
//!   after RACK.xmit_ts; a record with RACK.rtt + reo_wnd − (now − xmit_ts) <= 0 is lost,
//!   otherwise the reordering timer is due when the largest such remainder has passed.
//! - A timeout marks every unSACKed record lost (Linux `tcp_timeout_mark_lost`, RFC 8985 §6.3).
//! - The sender's pipe with RACK is Linux's `tcp_packets_in_flight`: outstanding − SACKed −
//!   (marked lost and not yet resent).
//! - `lost_out`: the bytes marked lost and not delivered since, resent or not (Linux
//!   `tp->lost_out`: a segment keeps `TCPCB_LOST` when it is retransmitted, until it is
//!   SACKed or cumulatively acknowledged). With `recovery_entry = "lost_out"` the sender
//!   starts recovery on any ACK outside it while this is not 0 (Linux `tcp_time_to_recover`).

use crate::packet::Seq;
use packetsim_kernel::{Dur, Time};
use std::collections::VecDeque;

/// One transmitted segment.
#[derive(Clone, Copy, Debug)]
struct Rec {
    start: Seq,
    end: Seq,
    /// Its latest transmission.
    xmit: Time,
    /// Retransmitted at least once (RFC 8985 §6.2 step 2's ambiguity).
    retx: bool,
    /// Marked lost and not resent since.
    lost: bool,
    /// Marked lost at some time and not delivered since, resent or not (Linux `TCPCB_LOST`,
    /// counted in `lost_out`).
    marked: bool,
    /// SACKed.
    sacked: bool,
}

/// RACK-TLP state of one sender.
#[derive(Clone, Debug)]
pub(super) struct Rack {
    /// Records of the segments above snd_una, in sequence order.
    segs: VecDeque<Rec>,
    /// (start, send time) in send order; stale when the record's `xmit` differs or it is gone.
    order: VecDeque<(Seq, Time)>,
    /// RACK.xmit_ts, RACK.end_seq, RACK.rtt (§6.2), once a segment was delivered.
    rack: Option<(Time, Seq, Dur)>,
    /// RACK.min_RTT.
    min_rtt: Option<Dur>,
    /// Reordering seen (Linux `tp->reord_seen`).
    reord_seen: bool,
    /// The highest SACKed sequence (end), Linux's `fack`.
    fack: Seq,
    /// Bytes marked lost and not resent since.
    lost_bytes: u32,
    /// Bytes marked lost and not delivered since, resent or not (Linux `tp->lost_out`).
    lost_out: u32,
    /// Bytes newly marked lost since the last `take_newly_lost`.
    newly_lost: u32,
    /// SACKed records.
    sacked_count: u32,
    /// Newly SACKed ranges of the ACK being processed (kept to reuse the allocation).
    pub scratch: Vec<(Seq, Seq)>,
    /// No record below this is lost and unsent (a search hint).
    lost_hint: Seq,
    /// The reordering timer (§6.3), when armed.
    pub reo_at: Option<Time>,
    /// The PTO (§7.2), when armed.
    pub tlp_at: Option<Time>,
    /// TLP.end_seq and TLP.is_retrans of the outstanding probe (§7.3), if any.
    pub tlp: Option<(Seq, bool)>,
    /// Tail loss probes sent.
    pub probes: u64,
    /// TLP episodes that ended in a loss response (§7.4.2).
    pub tlp_recoveries: u64,
    /// Whether the Tail Loss Probe is on (`rack_tlp`).
    pub tlp_on: bool,
}

/// Whether (t1, s1) was sent after (t2, s2) (RFC 8985 §6.2, Linux `tcp_rack_sent_after`).
fn sent_after(t1: Time, s1: Seq, t2: Time, s2: Seq) -> bool {
    t1 > t2 || (t1 == t2 && s1 > s2)
}

impl Rack {
    /// Fresh state; `una` is the first data sequence.
    pub fn new(una: Seq, tlp_on: bool) -> Rack {
        Rack {
            segs: VecDeque::new(),
            order: VecDeque::new(),
            rack: None,
            min_rtt: None,
            reord_seen: false,
            fack: una,
            lost_bytes: 0,
            lost_out: 0,
            newly_lost: 0,
            sacked_count: 0,
            scratch: Vec::new(),
            lost_hint: una,
            reo_at: None,
            tlp_at: None,
            tlp: None,
            probes: 0,
            tlp_recoveries: 0,
            tlp_on,
        }
    }

    /// Index of the first record ending after `s`.
    fn idx_after(&self, s: Seq) -> usize {
        self.segs.partition_point(|r| r.end <= s)
    }

    /// `[s, e)` was sent at `now` (new data when `s` is at or beyond the last record's end).
    pub fn on_send(&mut self, s: Seq, e: Seq, now: Time) {
        if self.segs.back().is_none_or(|r| r.end <= s) {
            self.segs.push_back(Rec {
                start: s,
                end: e,
                xmit: now,
                retx: false,
                lost: false,
                marked: false,
                sacked: false,
            });
            self.order.push_back((s, now));
            return;
        }
        // A retransmission: every record starting in [s, e).
        let mut i = self.idx_after(s);
        while let Some(r) = self.segs.get_mut(i) {
            if r.start >= e {
                break;
            }
            if r.lost {
                r.lost = false;
                self.lost_bytes -= r.end - r.start;
                if r.start == self.lost_hint {
                    self.lost_hint = r.end;
                }
            }
            r.retx = true;
            r.xmit = now;
            self.order.push_back((r.start, now));
            i += 1;
        }
    }

    /// Delivery of a record (cumulatively ACKed or SACKed) at `now`: RFC 8985 §6.2 steps 1-2.
    fn delivered(&mut self, r: Rec, now: Time) {
        if r.lost {
            self.lost_bytes -= r.end - r.start;
        }
        if r.marked {
            self.lost_out -= r.end - r.start;
        }
        let rtt = now - r.xmit;
        if !r.retx {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            // Linux `tcp_check_sack_reordering`: an original below the highest SACK.
            if r.end <= self.fack {
                self.reord_seen = true;
            }
        } else if rtt < self.min_rtt.unwrap_or(Dur::ZERO) {
            // §6.2 step 2: too soon to be the retransmission's delivery.
            return;
        }
        if self
            .rack
            .is_none_or(|(t, s, _)| sent_after(r.xmit, r.end, t, s))
        {
            self.rack = Some((r.xmit, r.end, rtt));
        }
    }

    /// The receiver newly SACKed `[l, r)` (after the scoreboard took it): records wholly
    /// inside `sacked_upto(start)` are delivered.
    pub fn on_sacked(
        &mut self,
        l: Seq,
        r: Seq,
        now: Time,
        covered_end: impl Fn(Seq) -> Option<Seq>,
    ) {
        let mut i = self.idx_after(l);
        while i < self.segs.len() {
            let rec = self.segs[i];
            if rec.start >= r {
                break;
            }
            if !rec.sacked && covered_end(rec.start).is_some_and(|ce| ce >= rec.end) {
                // Delivered: no longer lost (`delivered` takes it out of `lost_bytes`).
                self.segs[i].sacked = true;
                self.segs[i].lost = false;
                self.sacked_count += 1;
                self.delivered(rec, now);
                self.fack = self.fack.max(rec.end);
            }
            i += 1;
        }
    }

    /// The cumulative ACK reached `una` at `now`.
    pub fn on_cum_ack(&mut self, una: Seq, now: Time) {
        while let Some(&rec) = self.segs.front() {
            if rec.end > una {
                break;
            }
            self.segs.pop_front();
            if rec.sacked {
                self.sacked_count -= 1;
            } else {
                self.delivered(rec, now);
            }
        }
        self.fack = self.fack.max(una);
        self.lost_hint = self.lost_hint.max(una);
        self.prune_order();
    }

    /// Drops stale entries from the front of the send order.
    fn prune_order(&mut self) {
        while let Some(&(s, t)) = self.order.front() {
            if self.live(s, t).is_some() {
                break;
            }
            self.order.pop_front();
        }
    }

    /// The index of the record `(s, t)` names, if it is still unacknowledged, unSACKed and
    /// this is its latest transmission.
    fn live(&self, s: Seq, t: Time) -> Option<usize> {
        let i = self.idx_after(s);
        let r = self.segs.get(i)?;
        (r.start == s && r.xmit == t && !r.sacked).then_some(i)
    }

    /// The reordering window (Linux `tcp_rack_reo_wnd`): `in_recovery` is true in fast
    /// recovery and after a timeout, `sacked_segs` the SACKed segments, `dupthresh` RFC 5681's.
    pub fn reo_wnd(&self, in_recovery: bool, sacked_segs: u32, dupthresh: u32, srtt: Dur) -> Dur {
        if !self.reord_seen && (in_recovery || sacked_segs >= dupthresh) {
            return Dur::ZERO;
        }
        let m = self.min_rtt.unwrap_or(Dur::ZERO);
        Dur(m.0 / 4).min(srtt)
    }

    /// RFC 8985 §6.2 step 5 (Linux `tcp_rack_detect_loss`) at `now` with reordering window
    /// `reo_wnd`: marks records lost, arms or clears the reordering timer. Returns the bytes
    /// newly marked lost.
    pub fn detect_loss(&mut self, now: Time, reo_wnd: Dur) -> u32 {
        self.reo_at = None;
        let Some((rack_t, rack_s, rack_rtt)) = self.rack else {
            return 0;
        };
        self.prune_order();
        let mut newly = 0;
        let mut wait: Option<Dur> = None;
        let mut k = 0;
        while k < self.order.len() {
            let (s, t) = self.order[k];
            k += 1;
            let Some(i) = self.live(s, t) else {
                continue;
            };
            let rec = self.segs[i];
            if rec.lost {
                continue;
            }
            if !sent_after(rack_t, rack_s, rec.xmit, rec.end) {
                break;
            }
            let deadline = rec.xmit + rack_rtt + reo_wnd;
            if deadline <= now {
                self.segs[i].lost = true;
                let len = rec.end - rec.start;
                if !rec.marked {
                    self.segs[i].marked = true;
                    self.lost_out += len;
                }
                self.lost_bytes += len;
                newly += len;
                self.lost_hint = self.lost_hint.min(rec.start);
            } else {
                let rem = deadline - now;
                wait = Some(wait.map_or(rem, |w| w.max(rem)));
            }
        }
        self.reo_at = wait.map(|w| now + w);
        self.newly_lost += newly;
        newly
    }

    /// A timeout: every unSACKed record is lost (Linux `tcp_timeout_mark_lost`); the
    /// reordering timer and any probe are cancelled.
    pub fn mark_all_lost(&mut self) {
        for r in self.segs.iter_mut().filter(|r| !r.sacked && !r.lost) {
            r.lost = true;
            self.lost_bytes += r.end - r.start;
            self.newly_lost += r.end - r.start;
            if !r.marked {
                r.marked = true;
                self.lost_out += r.end - r.start;
            }
        }
        if let Some(r) = self.segs.front() {
            self.lost_hint = r.start;
        }
        self.reo_at = None;
        self.tlp_at = None;
        self.tlp = None;
    }

    /// Bytes marked lost and not yet resent (out of the pipe).
    pub fn lost_bytes(&self) -> u32 {
        self.lost_bytes
    }

    /// Bytes marked lost and not yet delivered, resent or not (Linux `tp->lost_out`).
    pub fn lost_out(&self) -> u32 {
        self.lost_out
    }

    /// Bytes newly marked lost since the last call (Linux `rs->losses`, for BBR).
    pub fn take_newly_lost(&mut self) -> u32 {
        std::mem::take(&mut self.newly_lost)
    }

    /// The lowest record marked lost and not yet resent: (start, length).
    pub fn first_lost(&self) -> Option<(Seq, u32)> {
        if self.lost_bytes == 0 {
            return None;
        }
        self.segs
            .range(self.idx_after(self.lost_hint)..)
            .find(|r| r.lost && !r.sacked)
            .map(|r| (r.start, r.end - r.start))
    }

    /// The highest unSACKed record (the Tail Loss Probe's retransmission, §7.3): (start,
    /// length).
    pub fn last_unsacked(&self) -> Option<(Seq, u32)> {
        self.segs
            .iter()
            .rev()
            .find(|r| !r.sacked)
            .map(|r| (r.start, r.end - r.start))
    }

    /// SACKed records (for the reordering window's DupThresh test).
    pub fn sacked_segs(&self) -> u32 {
        self.sacked_count
    }

    /// The earlier of the reordering timer and the PTO.
    pub fn next_timer(&self) -> Option<Time> {
        match (self.reo_at, self.tlp_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
