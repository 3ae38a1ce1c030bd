//! BBR v1: a model-based controller that estimates the bottleneck bandwidth (BtlBw) and the
//! round-trip propagation time (RTprop) and sets a pacing rate and a window from them. Sources:
//! N. Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016 (the
//! paper; its pseudocode for the delivery rate), and draft-cardwell-iccrg-bbr-congestion-
//! control-00 (2017), cited as "draft §x".
//!
//! The model (draft §4.1):
//! - Delivery rate samples (draft-cheng-iccrg-delivery-rate-estimation, as Linux
//!   `tcp_rate.c` and ns-3 `TcpRateLinux`): every data segment records, when it is sent (a
//!   retransmission overwrites the record), the bytes delivered, the time of the last delivery
//!   (the send time when nothing is in flight) and the send time of the segment sampled last.
//!   A segment counts as delivered once, when it is first SACKed or cumulatively acknowledged
//!   (`on_delivered`; a cumulative ACK over SACKed data adds nothing). Of the segments an ACK
//!   delivers, the one with the largest delivered count at its send, P, gives `rate =
//!   (delivered − P.delivered) / max(now − P.delivered_time, P.sent_at − P.first_sent)`, no
//!   rate when that interval is below RTprop, and an RTT sample `now − P.sent_at` unless P
//!   was retransmitted. Every ACK that delivers something samples, SACK-only ones included.
//! - BtlBw: the windowed maximum of the rate samples over the last 10 round trips (draft
//!   §4.1.1.5, BBRBtlBwFilterLen). A round trip ends when a segment sent after the previous
//!   round's end is acknowledged (draft §4.1.1.3, `next_round_delivered`).
//! - RTprop: the minimum RTT sample over the last 10 s (draft §4.1.2.3, RTpropFilterLen): a
//!   sample at or below it, or any sample once it is 10 s old, replaces it.
//!
//! The state machine (draft §4.3):
//! - Startup: pacing and cwnd gain 2/ln 2 ≈ 2.885. The pipe is full when BtlBw has not grown
//!   by 25% in three round trips (draft §4.3.2.2, checked at each round start); then Drain.
//! - Drain: pacing gain ln 2/2 (the inverse), cwnd gain 2/ln 2, until the bytes in flight are
//!   at most one BDP (BtlBw × RTprop); then ProbeBW (draft §4.3.3).
//! - ProbeBW: cwnd gain 2; the pacing gain cycles through 5/4, 3/4, 1, 1, 1, 1, 1, 1 (draft
//!   §4.3.4.3). A phase lasts at least RTprop; the 5/4 phase also waits for a loss or for the
//!   bytes in flight (before this ACK) to reach 5/4 BDP; the 3/4 phase ends early once they
//!   are at most one BDP (draft BBRIsNextCyclePhase).
//! - ProbeRTT: entered from any state when RTprop has not been refreshed for 10 s (draft
//!   §4.3.5): cwnd ≤ 4 segments; once the bytes in flight are at most 4 segments it stays
//!   max(200 ms, one round trip), then refreshes the RTprop stamp and returns to ProbeBW (or
//!   Startup if the pipe was never full). Pacing gain 1.
//!
//! Pacing rate and window (draft §4.2): pacing rate = pacing gain × BtlBw, lowered only once
//! the pipe is full (before the first sample: 2/ln 2 × initial window / (SRTT or 1 ms));
//! target window = cwnd gain × BDP + 3 send quanta (+ 2 segments in the 5/4 phase), at least
//! 4 segments. Each ACK outside loss recovery grows cwnd by the bytes it delivered, up to the
//! target once the pipe is full (before: without limit below the target and in the first
//! initial window).
//!
//! Pacing is a sender capability (sender.rs): a segment may leave while the pacing clock is
//! less than one send quantum ahead of now, and each segment advances the clock by its payload
//! over the pacing rate (payload bytes, the unit of the rate samples). A sender stopped by
//! pacing wakes when the clock is due, and then sends up to a quantum: bursts of at most one
//! quantum, and one timer per quantum, not one per packet. The
//! quantum is draft §4.2.2's: 1 segment below 1.2 Mb/s, 2 below 24 Mb/s, else 1 ms at the
//! pacing rate, at most 64 KB; with `bbr_send_quantum = "segment"` always one segment
//! (ns-3.37 `TcpBbr::SetSendQuantum`).
//!
//! The ProbeBW phase checks and Drain's exit compare the flight with gain × BDP; with
//! `bbr_inflight_quanta` with the target window's budget (quanta and the 5/4 phase's 2
//! segments included), as ns-3.37's `TcpBbr::InFlight` does (draft BBRInflight, §4.2.3.2,
//! has the quanta but not the 2 segments).
//!
//! Departures from the draft, and decisions where it leaves room:
//! - Loss recovery without SACK is the variant table's NewReno: a loss sets ssthresh to the
//!   bytes in flight, so fast recovery's window (ssthresh + 3 segments, + 1 per duplicate ACK)
//!   holds the flight as the draft's packet conservation does (§4.2.3.4). With SACK
//!   (`loss_recovery = "sack"`) BBR sets the RFC 6675 recovery window itself, as Linux
//!   `bbr_set_cwnd_to_recover_or_restore` and ns-3 `TcpBbr` do: on entry the pipe plus the
//!   bytes the ACK delivered; bytes newly marked lost leave the window; for the first round
//!   trip at least pipe + delivered (packet conservation), then growth as outside recovery.
//!   The model's bytes in flight are then RFC 6675's pipe (after a timeout: what go-back-N
//!   has resent), and a timeout keeps the SACKed ranges (Linux, ns-3), so go-back-N skips
//!   them. The window before the loss is saved and restored (max of the two) on the first
//!   ACK after recovery ends. A timeout sets
//!   cwnd to 1 segment, restored the same way once the loss phase ends (all data sent before
//!   the timeout acknowledged; until then cwnd grows by the bytes acknowledged). The model (rates, RTT, states) is updated by
//!   every ACK of new data, during recovery too.
//! - No app-limited marking of rate samples (the delivery-rate draft's `is_app_limited`):
//!   every sample enters the max filter; an app-limited sample can only be low, and the
//!   filter keeps the maximum.
//! - A timeout counts as a round start for Startup's full-pipe check (Linux `bbr_set_state`;
//!   the draft is silent), keeping the plateau reference: after a timeout no new segment is
//!   acknowledged until go-back-N has passed the hole, so rounds would stop and Startup's
//!   gain outlive every timeout. With `bbr_timeout_full_bw = "reset"` the check starts over
//!   instead, as Linux's (issue 33).
//! - `bbr_recovery = "linux"` (issue 33): leaving ProbeRTT restores the saved window on the
//!   next window update whatever the recovery state (Linux `bbr_check_probe_rtt_done`);
//!   entering recovery starts a round trip (Linux `bbr_set_cwnd_to_recover_or_restore`:
//!   `next_rtt_delivered = tp->delivered`), so packet conservation lasts a whole round and a
//!   recovery found mid-round delays the next round start (Startup's full-pipe check counts
//!   fewer rounds while early recoveries hold the window small); the sender does the rest
//!   (the recovery state read once per ACK, `sender.rs`).
//! - ProbeBW starts in the first 1.0 phase (index 2), not a random one: runs stay a function
//!   of the seed without giving the controller a random stream.
//! - ECN is ignored (BBR v1 does not use it).

use super::{AckInfo, CcState, Congestion, CongestionControl, Phase};
use crate::transport::tcp::{BbrRecovery, BbrSendQuantum, BbrTimeoutFullBw, TcpConfig};
use packetsim_kernel::{Dur, Time};
use std::collections::VecDeque;
use std::fmt;

/// Startup's pacing and cwnd gain, 2/ln 2 (draft §4.3.2.1, BBRHighGain).
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;
/// Drain's pacing gain, ln 2/2 (draft §4.3.3).
pub const DRAIN_GAIN: f64 = std::f64::consts::LN_2 / 2.0;
/// ProbeBW's pacing gain cycle (draft §4.3.4.3).
pub const GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// ProbeBW's cwnd gain (draft §4.3.4).
pub const PROBE_BW_CWND_GAIN: f64 = 2.0;
/// BtlBw filter window, round trips (draft §4.1.1.5).
pub const BW_WINDOW_ROUNDS: u64 = 10;
/// RTprop filter window (draft §4.1.2.3).
pub const RTPROP_WINDOW: Dur = Dur::from_secs(10);
/// Minimum time in ProbeRTT at the low window (draft §4.3.5).
pub const PROBE_RTT_DURATION: Dur = Dur::from_millis(200);
/// The window floor and ProbeRTT's window, segments (draft §4.2.3.1, BBRMinPipeCwnd).
pub const MIN_PIPE_SEGMENTS: u32 = 4;
/// The ProbeBW phase a flow starts in (module doc).
const FIRST_CYCLE_INDEX: usize = 2;

/// BBR's states (draft §4.3), displayed as the draft names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrState {
    /// Exponential search for the bandwidth.
    Startup,
    /// Drain the queue Startup made.
    Drain,
    /// Cycle the pacing gain around BtlBw.
    ProbeBw,
    /// Lower the window to measure RTprop.
    ProbeRtt,
}

impl fmt::Display for BbrState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BbrState::Startup => "Startup",
            BbrState::Drain => "Drain",
            BbrState::ProbeBw => "ProbeBW",
            BbrState::ProbeRtt => "ProbeRTT",
        })
    }
}

/// What the sender knew when it last sent a data segment (the paper's per-packet state;
/// a retransmission overwrites it, as Linux `tcp_rate_skb_sent` and ns-3
/// `TcpRateLinux::SkbSent` do).
#[derive(Clone, Copy, Debug, PartialEq)]
struct SendRecord {
    /// Stream offset one past the segment's last byte.
    end: u64,
    /// Its length, bytes.
    len: u32,
    /// When it was last sent.
    sent_at: Time,
    /// Bytes delivered (acknowledged or SACKed) when it was sent.
    delivered: u64,
    /// When `delivered` last grew, as of its send.
    delivered_time: Time,
    /// The send time of the segment sampled last, as of its send (delivery-rate draft
    /// `first_sent_time`: the start of its send phase).
    first_sent: Time,
    /// It was retransmitted (no RTT sample from it: Karn).
    retransmitted: bool,
    /// It was delivered (SACKed): counted once, even if SACKed again after a timeout
    /// cleared the sender's scoreboard.
    done: bool,
}

/// BBR v1 congestion control with pacing.
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr {
    state: BbrState,
    /// BtlBw filter: (round, rate bytes/s), rounds increasing and rates decreasing.
    bw_filter: VecDeque<(u64, f64)>,
    /// RTprop, once sampled.
    rtprop: Option<Dur>,
    /// When RTprop was last set.
    rtprop_stamp: Time,
    /// Whether RTprop had expired at the last sample (draft `rtprop_expired`).
    rtprop_expired: bool,
    /// Bytes delivered: SACKed, or cumulatively acknowledged without having been SACKed
    /// (Linux `tp->delivered`, ns-3 `TcpRateConnection::m_delivered`).
    delivered: u64,
    /// Stream offset of the cumulative ACK.
    cum: u64,
    /// The send time of the segment sampled last (delivery-rate draft `first_sent_time`).
    first_sent_time: Time,
    /// This ACK's sample candidate: of the segments it delivered, the one sent last (the
    /// largest `delivered` at send, ns-3 `TcpRateLinux::SkbDelivered`).
    candidate: Option<SendRecord>,
    /// Bytes the current ACK delivered (Linux `rs->acked_sacked`).
    acked_sacked: u32,
    /// SACK recovery's first round: the window only conserves packets (Linux
    /// `packet_conservation`).
    packet_conservation: bool,
    /// When `delivered` last grew (or the flight restarted from empty).
    delivered_time: Time,
    /// Stream offset of the next new byte (bytes of new data sent).
    sent: u64,
    /// New data segments not yet acknowledged.
    records: VecDeque<SendRecord>,
    /// Round trips counted.
    round_count: u64,
    /// `delivered` at which the next round trip starts.
    next_round_delivered: u64,
    /// Whether the last ACK started a round trip.
    round_start: bool,
    filled_pipe: bool,
    /// BtlBw at the last 25% growth, bytes/s.
    full_bw: f64,
    /// Round starts without 25% growth.
    full_bw_count: u32,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// ProbeBW phase index into [`GAIN_CYCLE`].
    cycle_index: usize,
    /// When the phase began.
    cycle_stamp: Time,
    /// A loss since the phase began.
    loss_in_phase: bool,
    /// ProbeRTT: when the low window may end (set once the flight is low).
    probe_rtt_done: Option<Time>,
    /// ProbeRTT: a round trip passed since `probe_rtt_done` was set.
    probe_rtt_round_done: bool,
    /// The window saved at a loss, a timeout or ProbeRTT, bytes.
    prior_cwnd: u32,
    /// A loss or timeout cut the window; restore it once the sender is Open again.
    restore_pending: bool,
    /// Pacing rate, payload bytes/s (0 before the first estimate).
    pacing_rate: f64,
    /// The pacing clock: when the next byte is due at the pacing rate.
    next_send: Time,
    /// The sender stopped because of pacing: it wants a wake-up at `pacing_wakeup`.
    blocked: bool,
    /// Initial window, bytes.
    initial_cwnd: u32,
    /// The last target window, bytes.
    target: u32,
    /// `bbr_send_quantum = "segment"`: the send quantum is one segment (ns-3.37
    /// `TcpBbr::SetSendQuantum`), not draft §4.2.2's.
    segment_quantum: bool,
    /// `bbr_inflight_quanta`: the ProbeBW phase checks and Drain's exit compare the flight
    /// with BBRInflight (the target window's budget, quanta included), not gain × BDP.
    inflight_quanta: bool,
    /// `bbr_timeout_full_bw = "reset"`: a timeout restarts the full-pipe check (Linux
    /// `bbr_set_state`), instead of counting as a round without growth.
    timeout_reset: bool,
    /// `bbr_recovery = "linux"`: leaving ProbeRTT restores the saved window at once.
    linux_recovery: bool,
    /// ProbeRTT ended with `linux_recovery`: the next window update restores `prior_cwnd`.
    restore_now: bool,
}

impl Bbr {
    /// A controller for a sender whose initial window is `initial_cwnd` bytes.
    pub fn new(initial_cwnd: u32) -> Bbr {
        Bbr {
            state: BbrState::Startup,
            bw_filter: VecDeque::new(),
            rtprop: None,
            rtprop_stamp: Time::ZERO,
            rtprop_expired: false,
            delivered: 0,
            cum: 0,
            first_sent_time: Time::ZERO,
            candidate: None,
            acked_sacked: 0,
            packet_conservation: false,
            delivered_time: Time::ZERO,
            sent: 0,
            records: VecDeque::new(),
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            cycle_index: FIRST_CYCLE_INDEX,
            cycle_stamp: Time::ZERO,
            loss_in_phase: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            restore_pending: false,
            pacing_rate: 0.0,
            next_send: Time::ZERO,
            blocked: false,
            initial_cwnd,
            target: 0,
            segment_quantum: false,
            inflight_quanta: false,
            timeout_reset: false,
            linux_recovery: false,
            restore_now: false,
        }
    }

    /// The `[tcp]` keys `bbr_send_quantum = "segment"` (`segment_quantum`) and
    /// `bbr_inflight_quanta` (see the fields).
    pub fn with_options(mut self, segment_quantum: bool, inflight_quanta: bool) -> Bbr {
        self.segment_quantum = segment_quantum;
        self.inflight_quanta = inflight_quanta;
        self
    }

    /// The `[tcp]` key `bbr_timeout_full_bw = "reset"` (`reset`; see the field).
    pub fn with_timeout_reset(mut self, reset: bool) -> Bbr {
        self.timeout_reset = reset;
        self
    }

    /// The `[tcp]` key `bbr_recovery = "linux"` (the ProbeRTT part; the sender does the
    /// rest).
    pub fn with_linux_recovery(mut self, linux: bool) -> Bbr {
        self.linux_recovery = linux;
        self
    }

    /// The state.
    pub fn state(&self) -> BbrState {
        self.state
    }

    /// BtlBw, payload bytes/s (0 before the first sample).
    pub fn btl_bw(&self) -> f64 {
        self.bw_filter.front().map_or(0.0, |s| s.1)
    }

    /// RTprop, once sampled.
    pub fn rtprop(&self) -> Option<Dur> {
        self.rtprop
    }

    /// The pacing gain in force.
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    /// The pacing rate, payload bytes/s.
    pub fn pacing_rate(&self) -> f64 {
        self.pacing_rate
    }

    /// Round trips counted.
    pub fn rounds(&self) -> u64 {
        self.round_count
    }

    /// Whether Startup found the pipe full.
    pub fn filled_pipe(&self) -> bool {
        self.filled_pipe
    }

    /// The ProbeBW phase index.
    pub fn cycle_index(&self) -> usize {
        self.cycle_index
    }

    /// The target window of the last ACK, bytes.
    pub fn target_cwnd(&self) -> u32 {
        self.target
    }

    /// Bytes in flight that make `gain` BDPs (draft BBRInflight), without the quantum budget;
    /// None before both estimates exist.
    fn bdp(&self, gain: f64) -> Option<f64> {
        let rtt = self.rtprop?;
        let bw = self.btl_bw();
        (bw > 0.0).then(|| gain * bw * rtt.as_secs_f64())
    }

    /// The send quantum, bytes (draft §4.2.2; one segment with `segment_quantum`).
    fn quantum(&self, mss: u32) -> u32 {
        let bps = self.pacing_rate * 8.0;
        if bps < 1.2e6 || self.segment_quantum {
            mss
        } else if bps < 24e6 {
            2 * mss
        } else {
            ((self.pacing_rate / 1000.0) as u32).clamp(2 * mss, 65_536)
        }
    }

    // ---- pacing (the sender asks these) --------------------------------------------------

    /// Whether a segment may leave at `now`: the pacing clock is less than one send quantum
    /// ahead. If not, the sender is blocked until [`Bbr::pacing_wakeup`].
    pub fn pacing_allows(&mut self, now: Time, mss: u32) -> bool {
        if self.pacing_rate <= 0.0 || self.next_send <= now {
            return true;
        }
        let ahead = (self.next_send - now).as_secs_f64() * self.pacing_rate;
        if ahead < self.quantum(mss) as f64 {
            return true;
        }
        self.blocked = true;
        false
    }

    /// When a blocked sender may send again: when the pacing clock is due, so that it can
    /// then send a whole quantum.
    pub fn pacing_wakeup(&self) -> Option<Time> {
        self.blocked.then_some(self.next_send)
    }

    /// The wake-up came: the sender will try again.
    pub fn unblock(&mut self) {
        self.blocked = false;
    }

    /// A data segment of `len` bytes left at `now` (`new_data`: not a retransmission), with
    /// `in_flight` bytes outstanding before it; a retransmission is taken to start at the
    /// oldest unacknowledged byte (see [`Bbr::on_send_at`] for the sender's exact offset).
    pub fn on_send(&mut self, now: Time, len: u32, new_data: bool, in_flight: u32) {
        let off = if new_data { self.sent } else { self.cum };
        self.on_send_at(now, off, len, new_data, in_flight);
    }

    /// A data segment `[off, off + len)` (stream offsets) of `len` bytes left at `now`
    /// (`new_data`: not a retransmission), with `in_flight` bytes outstanding before it.
    pub fn on_send_at(&mut self, now: Time, off: u64, len: u32, new_data: bool, in_flight: u32) {
        if self.pacing_rate > 0.0 {
            let start = self.next_send.max(now);
            self.next_send = start + Dur::from_secs_f64(len as f64 / self.pacing_rate);
        }
        if in_flight == 0 {
            // The flight restarts: rate samples start from here (delivery-rate draft §3.2).
            self.delivered_time = now;
            self.first_sent_time = now;
        }
        if !new_data {
            // A retransmission refreshes the record of the segment it starts in.
            let i = self.records.partition_point(|r| r.end <= off);
            if let Some(r) = self.records.get_mut(i) {
                if r.end - r.len as u64 <= off {
                    r.sent_at = now;
                    r.delivered = self.delivered;
                    r.delivered_time = self.delivered_time;
                    r.first_sent = self.first_sent_time;
                    r.retransmitted = true;
                }
            }
            return;
        }
        self.sent += len as u64;
        self.records.push_back(SendRecord {
            end: self.sent,
            len,
            sent_at: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent: self.first_sent_time,
            retransmitted: false,
            done: false,
        });
    }

    // ---- the model (every ACK of new data) ---------------------------------------------

    /// An ACK of new data without SACK information, in any phase: its `ack.acked` bytes are
    /// delivered from the cumulative ACK on, then [`Bbr::on_ack_delivered`].
    pub fn on_ack_sample(&mut self, st: &CcState, ack: &AckInfo) {
        self.begin_ack();
        let cum = self.cum + ack.acked as u64;
        self.on_delivered(ack.now, self.cum, cum);
        self.on_ack_delivered(st, ack, cum);
    }

    /// Draft §4.1.1.5: the windowed maximum over BW_WINDOW_ROUNDS round trips.
    fn update_bw(&mut self, rate: f64) {
        let round = self.round_count;
        while self.bw_filter.back().is_some_and(|b| b.1 <= rate) {
            self.bw_filter.pop_back();
        }
        self.bw_filter.push_back((round, rate));
        while self
            .bw_filter
            .front()
            .is_some_and(|f| f.0 + BW_WINDOW_ROUNDS <= round)
        {
            self.bw_filter.pop_front();
        }
    }

    /// Draft §4.1.2.3.
    fn update_rtprop(&mut self, now: Time, rtt: Dur) {
        self.rtprop_expired = now > self.rtprop_stamp + RTPROP_WINDOW;
        if self.rtprop.is_none_or(|m| rtt <= m) || self.rtprop_expired {
            self.rtprop = Some(rtt);
            self.rtprop_stamp = now;
        }
    }

    /// A timeout ends a round trip for the full-pipe check (Linux `bbr_set_state`: "treat
    /// RTO like end of a round"): after a timeout the next new segment waits behind the
    /// go-back-N resend, so without this Startup's gain outlives any number of timeouts.
    /// Unlike Linux, the plateau reference (`full_bw`) is kept.
    /// With `timeout_reset` (Linux `bbr_set_state` on `TCP_CA_Loss`: `full_bw = 0`, and
    /// `round_start`, which the next ACK's `bbr_update_bw` clears before any check reads
    /// it): the check starts over, the next round start taking the bandwidth then as the
    /// new reference with a count of 0; a pipe already found full stays full.
    fn timeout_round(&mut self) {
        if self.timeout_reset {
            self.full_bw = 0.0;
            self.full_bw_count = 0;
            return;
        }
        self.round_start = true;
        self.check_full_pipe();
        self.round_start = false;
        if self.state == BbrState::Startup && self.filled_pipe {
            self.enter_drain();
        }
    }

    /// Draft §4.3.2.2: full when BtlBw grew by less than 25% in three round starts.
    fn check_full_pipe(&mut self) {
        if self.filled_pipe || !self.round_start {
            return;
        }
        let bw = self.btl_bw();
        if bw >= self.full_bw * 1.25 {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= 3 {
            self.filled_pipe = true;
        }
    }

    fn enter_drain(&mut self) {
        self.state = BbrState::Drain;
        self.pacing_gain = DRAIN_GAIN;
        self.cwnd_gain = HIGH_GAIN;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.state = BbrState::ProbeBw;
        self.cwnd_gain = PROBE_BW_CWND_GAIN;
        self.cycle_index = FIRST_CYCLE_INDEX;
        self.pacing_gain = GAIN_CYCLE[self.cycle_index];
        self.cycle_stamp = now;
        self.loss_in_phase = false;
    }

    /// Draft BBRCheckCyclePhase / BBRIsNextCyclePhase.
    fn update_cycle(&mut self, now: Time, prior_inflight: u32, mss: u32) {
        let Some(rtprop) = self.rtprop else { return };
        let full_length = now.saturating_since(self.cycle_stamp) > rtprop;
        let inflight = prior_inflight as f64;
        let next = if self.pacing_gain > 1.0 {
            full_length
                && (self.loss_in_phase
                    || self
                        .check_inflight(self.pacing_gain, mss)
                        .is_some_and(|b| inflight >= b))
        } else if self.pacing_gain < 1.0 {
            full_length || self.check_inflight(1.0, mss).is_some_and(|b| inflight <= b)
        } else {
            full_length
        };
        if next {
            self.cycle_index = (self.cycle_index + 1) % GAIN_CYCLE.len();
            self.pacing_gain = GAIN_CYCLE[self.cycle_index];
            self.cycle_stamp = now;
            self.loss_in_phase = false;
        }
    }

    /// Draft §4.3.5 (BBRCheckProbeRTT).
    fn check_probe_rtt(&mut self, now: Time, st: &CcState) {
        if self.state != BbrState::ProbeRtt && self.rtprop_expired {
            self.state = BbrState::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.prior_cwnd = self.saved_cwnd(st.cwnd);
            self.probe_rtt_done = None;
            // Entering once per expiry.
            self.rtprop_expired = false;
        }
        if self.state != BbrState::ProbeRtt {
            return;
        }
        match self.probe_rtt_done {
            None if st.bytes_in_flight <= MIN_PIPE_SEGMENTS * st.mss => {
                self.probe_rtt_done = Some(now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = self.delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now >= done {
                    self.rtprop_stamp = now;
                    self.restore_pending = true;
                    // Linux `bbr_check_probe_rtt_done`: `snd_cwnd = max(snd_cwnd,
                    // prior_cwnd)` there and then, whatever the recovery state.
                    self.restore_now = self.linux_recovery;
                    if self.filled_pipe {
                        self.enter_probe_bw(now);
                    } else {
                        self.state = BbrState::Startup;
                        self.pacing_gain = HIGH_GAIN;
                        self.cwnd_gain = HIGH_GAIN;
                    }
                }
            }
        }
    }

    /// Draft §4.2.1 (BBRSetPacingRateWithGain, BBRInitPacingRate).
    fn set_pacing_rate(&mut self, ack: &AckInfo) {
        let bw = self.btl_bw();
        if bw <= 0.0 {
            let rtt = ack.srtt.map_or(0.001, |d| d.as_secs_f64().max(1e-6));
            self.pacing_rate = HIGH_GAIN * self.initial_cwnd as f64 / rtt;
            return;
        }
        let rate = self.pacing_gain * bw;
        if self.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Draft BBRInflight plus the quantization budget, at least MIN_PIPE_SEGMENTS.
    fn target_cwnd_for(&self, gain: f64, mss: u32) -> u32 {
        let floor = MIN_PIPE_SEGMENTS * mss;
        let Some(t) = self.inflight_budget(gain, mss) else {
            return self.initial_cwnd.max(floor);
        };
        (t.min((1u32 << 30) as f64) as u32).max(floor)
    }

    /// Draft BBRInflight(gain) (§4.2.3.2: gain × BDP + 3 send quanta) plus 2 segments in the
    /// 5/4 phase (Linux since 2019, ns-3.37 `TcpBbr::InFlight`), bytes; None before both
    /// estimates exist.
    fn inflight_budget(&self, gain: f64, mss: u32) -> Option<f64> {
        let mut t = self.bdp(gain)? + 3.0 * self.quantum(mss) as f64;
        if self.state == BbrState::ProbeBw && self.cycle_index == 0 {
            t += 2.0 * mss as f64;
        }
        Some(t)
    }

    /// The flight the ProbeBW phase checks and Drain's exit compare with: gain × BDP, or
    /// with `inflight_quanta` the same budget as the target window (ns-3.37 `TcpBbr::InFlight`
    /// in `IsNextCyclePhase` and `CheckDrain`; draft §4.3.3, §4.3.4.3 without the 2 segments).
    fn check_inflight(&self, gain: f64, mss: u32) -> Option<f64> {
        if self.inflight_quanta {
            self.inflight_budget(gain, mss)
        } else {
            self.bdp(gain)
        }
    }

    /// With `linux_recovery`, the first window update after ProbeRTT ended restores the
    /// saved window (Linux `bbr_check_probe_rtt_done`).
    fn restore_after_probe_rtt(&mut self, st: &mut CcState) {
        if self.restore_now {
            self.restore_now = false;
            st.cwnd = st.cwnd.max(self.prior_cwnd);
        }
    }

    /// Draft BBRSaveCwnd: the window to restore later.
    fn saved_cwnd(&self, cwnd: u32) -> u32 {
        if self.restore_pending || self.state == BbrState::ProbeRtt {
            self.prior_cwnd.max(cwnd)
        } else {
            cwnd
        }
    }
}

impl super::Controller for Bbr {
    fn build(cfg: &TcpConfig) -> super::StatefulCc {
        super::StatefulCc::Bbr(
            Bbr::new(cfg.initial_cwnd.saturating_mul(cfg.mss))
                .with_options(
                    cfg.bbr_send_quantum == BbrSendQuantum::Segment,
                    cfg.bbr_inflight_quanta,
                )
                .with_timeout_reset(cfg.bbr_timeout_full_bw == BbrTimeoutFullBw::Reset)
                .with_linux_recovery(cfg.bbr_recovery == BbrRecovery::Linux),
        )
    }
}

impl CongestionControl for Bbr {
    fn on_ack_sample(&mut self, st: &CcState, ack: &AckInfo) {
        Bbr::on_ack_sample(self, st, ack);
    }
    fn on_send(&mut self, now: Time, off: u64, len: u32, new_data: bool, in_flight: u32) {
        self.on_send_at(now, off, len, new_data, in_flight);
    }
    fn pacing_allows(&mut self, now: Time, mss: u32) -> bool {
        Bbr::pacing_allows(self, now, mss)
    }
    fn pacing_wakeup(&self) -> Option<Time> {
        Bbr::pacing_wakeup(self)
    }
    fn pacing_unblock(&mut self) {
        self.unblock();
    }
    /// Draft §4.2.3 (BBRSetCwnd), outside loss recovery; the model was updated first.
    fn on_ack(&mut self, st: &mut CcState, _ack: &AckInfo) {
        let mss = st.mss;
        self.restore_after_probe_rtt(st);
        if self.restore_pending && matches!(st.phase, Phase::Open | Phase::Disorder) {
            // Draft §4.2.3.4: on leaving recovery (or ProbeRTT) restore the saved window; after
            // a timeout that is when the loss phase ends (the sender calls this hook in
            // `Phase::Loss` too, where cwnd grows from the loss window meanwhile).
            st.cwnd = st.cwnd.max(self.prior_cwnd);
            self.restore_pending = false;
        }
        // The bytes this ACK delivered, SACKed ones included (Linux `rs->acked_sacked`, ns-3
        // `m_ackedSacked`): a cumulative ACK over SACKed data does not count it twice.
        let grown = st.cwnd.saturating_add(self.acked_sacked);
        st.cwnd = if self.filled_pipe {
            grown.min(self.target)
        } else if st.cwnd < self.target || self.delivered < self.initial_cwnd as u64 {
            grown
        } else {
            st.cwnd
        };
        st.cwnd = st.cwnd.max(MIN_PIPE_SEGMENTS * mss);
        if self.state == BbrState::ProbeRtt {
            st.cwnd = st.cwnd.min(MIN_PIPE_SEGMENTS * mss);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
        match cause {
            // BBR v1 does not use ECN.
            Congestion::Ecn => {}
            Congestion::Loss => {
                self.prior_cwnd = self.saved_cwnd(st.cwnd);
                self.restore_pending = true;
                self.loss_in_phase = true;
                st.ssthresh = self.ssthresh_after(st);
            }
            Congestion::Timeout => {
                self.timeout_round();
                self.prior_cwnd = self.saved_cwnd(st.cwnd);
                self.restore_pending = true;
                self.loss_in_phase = true;
                st.ssthresh = self.ssthresh_after(st);
                st.cwnd = st.mss;
            }
            // As a timeout, the ssthresh of the recovery kept (the window before the
            // recovery was saved on entering it).
            Congestion::RecoveryTimeout => {
                self.timeout_round();
                self.restore_pending = true;
                self.loss_in_phase = true;
                st.cwnd = st.mss;
            }
        }
    }

    /// The bytes in flight (module doc: recovery then holds the flight).
    fn ssthresh_after(&self, st: &CcState) -> u32 {
        st.bytes_in_flight.max(2 * st.mss)
    }

    fn name(&self) -> &'static str {
        "bbr"
    }

    fn samples_deliveries(&self) -> bool {
        true
    }

    /// The bytes `[l, r)` (stream offsets) were delivered at `now`: newly SACKed, or newly
    /// cumulatively acknowledged without having been SACKed. Each segment counts once, when
    /// first delivered (Linux `tcp_rate_skb_delivered`, ns-3 `TcpRateLinux::SkbDelivered`).
    fn on_delivered(&mut self, now: Time, l: u64, r: u64) {
        let mut i = self.records.partition_point(|x| x.end <= l);
        while let Some(rec) = self.records.get_mut(i) {
            if rec.end - rec.len as u64 >= r {
                break;
            }
            i += 1;
            if rec.done {
                continue;
            }
            rec.done = true;
            let rec = *rec;
            self.delivered += rec.len as u64;
            self.acked_sacked += rec.len;
            self.delivered_time = now;
            if self.candidate.is_none_or(|c| {
                rec.delivered > c.delivered
                    || (rec.delivered == c.delivered && rec.sent_at > c.sent_at)
            }) {
                self.candidate = Some(rec);
            }
        }
    }

    /// An ACK that delivered data (reported by [`Bbr::on_delivered`]), in any phase, with the
    /// cumulative ACK now at stream offset `cum`: update the model and the state (draft
    /// BBRUpdateOnACK). `st.bytes_in_flight` is after the ACK.
    fn on_ack_delivered(&mut self, st: &CcState, ack: &AckInfo, cum: u64) {
        let now = ack.now;
        self.cum = self.cum.max(cum);
        while self.records.front().is_some_and(|r| r.end <= self.cum) {
            self.records.pop_front();
        }
        self.round_start = false;
        if let Some(p) = self.candidate.take() {
            // Draft §4.1.1.3: a round trip ends when a segment sent in it is delivered.
            if p.delivered >= self.next_round_delivered {
                self.next_round_delivered = self.delivered;
                self.round_count += 1;
                self.round_start = true;
                self.packet_conservation = false;
            }
            // The rate sample (delivery-rate draft §3.3, Linux `tcp_rate_gen`, ns-3
            // `TcpRateLinux::GenerateSample`): over the longer of the send and ACK phases, and
            // no sample from an interval shorter than RTprop (it would overestimate).
            let interval = now
                .saturating_since(p.delivered_time)
                .max(p.sent_at.saturating_since(p.first_sent));
            self.first_sent_time = p.sent_at;
            if interval > Dur::ZERO && self.rtprop.is_none_or(|m| interval >= m) {
                let rate = (self.delivered - p.delivered) as f64 / interval.as_secs_f64();
                self.update_bw(rate);
            }
            if !p.retransmitted {
                self.update_rtprop(now, now.saturating_since(p.sent_at));
            }
        }
        self.check_full_pipe();
        let prior_inflight = st.bytes_in_flight + ack.acked;
        match self.state {
            BbrState::Startup if self.filled_pipe => self.enter_drain(),
            BbrState::ProbeBw => self.update_cycle(now, prior_inflight, st.mss),
            BbrState::Startup | BbrState::Drain | BbrState::ProbeRtt => {}
        }
        if self.state == BbrState::Drain
            && self
                .check_inflight(1.0, st.mss)
                .is_some_and(|b| st.bytes_in_flight as f64 <= b)
        {
            // Draft §4.3.3: the queue is drained.
            self.enter_probe_bw(now);
        }
        self.check_probe_rtt(now, st);
        self.set_pacing_rate(ack);
        self.target = self.target_cwnd_for(self.cwnd_gain, st.mss);
    }

    /// A new ACK arrives: nothing delivered by it yet.
    fn begin_ack(&mut self) {
        self.acked_sacked = 0;
    }

    /// SACK recovery begins (RFC 6675 fast retransmit) with `pipe` bytes in flight (RFC 6675
    /// SetPipe, lost segments excluded): the window is the flight plus what this ACK
    /// delivered, at least one segment, and conserves packets for a round trip (Linux
    /// `bbr_set_cwnd_to_recover_or_restore`, ns-3 `TcpBbr::CongestionStateSet(CA_RECOVERY)`).
    /// With `linux_recovery` that round starts now, as Linux's does; by default it ends with
    /// the round in progress.
    fn enter_sack_recovery(&mut self, st: &mut CcState, pipe: u32) {
        st.cwnd = pipe.saturating_add(self.acked_sacked.max(st.mss));
        self.packet_conservation = true;
        if self.linux_recovery {
            // Linux `bbr_set_cwnd_to_recover_or_restore` ("start round now",
            // `next_rtt_delivered = tp->delivered`): conservation lasts until a segment sent
            // from now on is delivered, and that is the next round start.
            self.next_round_delivered = self.delivered;
        }
    }

    /// An ACK during SACK recovery with `pipe` bytes in flight after it, having marked `lost`
    /// bytes newly lost (Linux `bbr_set_cwnd_to_recover_or_restore` and `bbr_set_cwnd`, ns-3
    /// `TcpBbr::ModulateCwndForRecovery` and `SetCwnd`): lost bytes leave the window (they
    /// are not replaced); in the first round it is at least the flight plus what the ACK
    /// delivered; after it, the window grows by the bytes delivered, as outside recovery.
    /// An ACK that delivered nothing changes nothing.
    fn sack_recovery_ack(&mut self, st: &mut CcState, pipe: u32, lost: u32) {
        self.restore_after_probe_rtt(st);
        let acked = self.acked_sacked;
        if acked == 0 {
            return;
        }
        if lost > 0 {
            st.cwnd = st.cwnd.saturating_sub(lost).max(st.mss);
        }
        if self.packet_conservation {
            st.cwnd = st.cwnd.max(pipe.saturating_add(acked));
        } else {
            let grown = st.cwnd.saturating_add(acked);
            if self.filled_pipe {
                st.cwnd = grown.min(self.target);
            } else if st.cwnd < self.target || self.delivered < self.initial_cwnd as u64 {
                st.cwnd = grown;
            }
            st.cwnd = st.cwnd.max(MIN_PIPE_SEGMENTS * st.mss);
        }
        if self.state == BbrState::ProbeRtt {
            st.cwnd = st.cwnd.min(MIN_PIPE_SEGMENTS * st.mss);
        }
    }
}
