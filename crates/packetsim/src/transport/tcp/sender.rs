//! The TCP sender endpoint: handshake (SYN-SENT → ESTABLISHED), segmentation, the send window
//! min(cwnd, rwnd), RTT sampling (Karn's rule or timestamps) and the RFC 6298 timer, and the
//! loss-recovery phase machine (`Phase`). Congestion control decides how much the window
//! changes (`cc/`), loss recovery how it behaves during recovery (`recovery/`).
//!
//! Decisions recorded here:
//! - The initial send sequence number is 0, so data byte `k` has sequence `1 + k`.
//! - Only full segments go out unless the data ends (sender-side SWS avoidance, RFC 1122
//!   §4.2.3.4; ns-2 behaves the same way with its packet-based window).
//! - Fast retransmit restarts the retransmission timer (ns-2 `reset_rtx_timer`, Linux).
//! - After a timeout, and after Tahoe's fast retransmit, the sender is in `Phase::Loss` until
//!   the cumulative ACK reaches the `snd_max` of that moment; with `cfg.recover_guard =
//!   after_timeout` (the default) duplicate ACKs do not trigger a fast retransmit meanwhile
//!   (RFC 6582 §4.1; ns-2 `bug_fix_`), for every variant. With `none` (spec 2 §2.4, so that
//!   Triplicate Reconnection ACKs restart a backed-off sender) the DupThresh-th duplicate ACK
//!   in `Phase::Loss` enters recovery as in `Open`; `snd_nxt` stays where go-back-N left it,
//!   so the recovery window may also resend from there (as ns-2's `send_much` from
//!   `t_seqno_`).
//! - A duplicate ACK (RFC 5681 §2) acknowledges snd_una, carries no data, arrives while data
//!   is outstanding and (condition (e)) repeats the last window; `cfg.dupack_same_window =
//!   false` drops (e), as ns-2 does (spec 2: the BS-buffer window changes on most ACKs, and
//!   reconnection ACKs may carry a window the sender has not seen). The window is updated
//!   either way.
//! - A shrinking window (RFC 9293 §3.8.6, RFC 1122 §4.2.2.16; spec 2 §2.3): the peer's window
//!   is taken from every acceptable ACK even when its right edge `ack + wnd` moves left; new
//!   data and go-back-N go out only while the segment ends within `snd_una + min(cwnd, wnd)`,
//!   so a shrunk window sends nothing until it reopens. Nothing is revoked: data beyond the
//!   new edge stays in flight, the timer runs on, no retransmission is caused by the shrink.
//!   There is no persist timer (RFC 9293 §3.8.6.1): windows are never below one MSS
//!   (`rcv_window` and `bs_buffer.w_min` are validated), so a zero window cannot occur.
//! - A repeated timeout of the same segment keeps ssthresh (RFC 5681 §3.1, note on eq. 4);
//!   with `cfg.ssthresh_rule = ns2` every timeout and fast retransmit sets ssthresh to half
//!   of min(cwnd, peer window) in whole segments, at least 2 (ns-2 `TcpAgent::slowdown`).
//! - Limited transmit (`cfg.limited_transmit`, RFC 3042 §2; ns-2 `TcpAgent::send_one`): on
//!   each duplicate ACK below DupThresh, outside fast recovery and whatever the recover
//!   guard, one segment from snd_nxt goes out if it ends within the peer's window and within
//!   snd_una + cwnd + dupacks·SMSS. Those bytes are left out of the FlightSize that sets
//!   ssthresh at the fast retransmit that may follow (RFC 5681 §3.2 step 2).
//! - `cfg.recover_guard = after_loss` (ns-2 `bugFix_`, `RenoTcpAgent::dupack_action`): every
//!   fast retransmit and every timeout records recover = snd_max; the DupThresh-th duplicate
//!   ACK retransmits only when snd_una > recover (strictly beyond, as ns-2's
//!   `highest_ack_ > recover_`).
//! - A SACK sender skips SACKed ranges during go-back-N.
//! - RTT timing (no timestamps) follows Karn: one segment of new data at a time, and a
//!   retransmission of it ends the measurement. With `cfg.fast_retransmit_stops_timing`
//!   every fast retransmit ends it too (ns-2 `reset_rtx_timer` clears `rtt_active_`), so a
//!   segment sent before a loss is never timed across the repair.
//! - `cfg.send_overhead` (ns-2 `overhead_`): each send opportunity that would send waits a
//!   uniform [0, overhead) delay (one pending at a time), then sends what the window then
//!   allows; direct retransmissions (fast retransmit, NewReno partial ACK) and limited
//!   transmit are not delayed, as in ns-2 where they call `output` directly.
//! - A controller that samples deliveries itself (`CongestionControl::samples_deliveries`,
//!   BBR; read once into `samples`): the sender reports each newly SACKed and newly
//!   cumulatively acknowledged range to it and every ACK that delivered (`on_ack_delivered`,
//!   with the flight as `model_view` counts it); with SACK it sets the RFC 6675 recovery
//!   window (the `enter_sack_recovery` and `sack_recovery_ack` hooks); pacing holds in
//!   recovery; a timeout keeps the SACKed ranges, and go-back-N is limited by the bytes it has
//!   resent (SACKed ones out) against cwnd, which grows on SACK-only ACKs too (Linux, ns-3
//!   `TcpBbr`). For every other controller `samples` is false and none of this runs.
//! - `cfg.lost_retransmit = rack` (`LostRtx`, RFC 8985 §6.2 with a reordering window of 0):
//!   in the loss phase after a timeout, where the scoreboard is kept, go-back-N resends in
//!   sequence order, so its send order is its sequence order. When an ACK newly SACKs a
//!   resent segment at least RACK.min_RTT after its resend (an earlier one is taken as the
//!   original's, §6.2 step 2), every unSACKed byte that go-back-N resent below it is lost: it
//!   leaves the flight and is resent again before go-back-N goes on (once: a second resend
//!   lost again stays in flight until the timer). Fast recovery is unchanged (RFC 6675).
//! - `cfg.sack_recovery = sack1` (ns-2.35 `Agent/TCP/Sack1`, `recovery/sack1.rs`): outside
//!   fast recovery a duplicate ACK counts only if it SACKs new data and not between a timeout
//!   and the next ACK of new data (`Sack1TcpAgent::recv`, `CheckUpdate`, `timeout_`); the
//!   fast retransmit comes from the DupThresh-th such ACK only (no IsLost trigger); under
//!   `ssthresh_rule = ns2` cwnd becomes half of min(cwnd, peer window) in whole segments,
//!   at least one (`slowdown(CLOSE_CWND_HALF)`); recovery sends by `transmit_sack1`. With
//!   `cfg.sack1_clear_scoreboard` the scoreboard is also kept as ns-2's (`sack1_clears`):
//!   cleared at a timeout and by each ACK of new data outside recovery or ending it (their
//!   SACK blocks unrecorded), not fed by duplicate ACKs between a timeout and the next ACK of
//!   new data, and go-back-N does not skip SACKed ranges.
//! - `cfg.sack_recovery = prr` (RFC 6937, `recovery/prr.rs`): the sender gives PRR each
//!   ACK's DeliveredData before acting on it (`prr_note_delivered`), the pipe after every ACK
//!   of the recovery, the entering one included (`prr_ack`), and the bytes `transmit_sack`
//!   and the fast retransmit send; PRR sets cwnd = pipe + sndcnt.
//! - A SACK loss recovery (the `sack` variant, or `cfg.loss_recovery = sack`) offers SACK in
//!   the SYN; if the peer does not permit it, the sender falls back to NewReno recovery.
//! - A timeout during fast recovery sets ssthresh by RFC 5681 §3.1 eq. 4 on the FlightSize of
//!   that moment (which counts the new data that recovery sent), or with `cfg.rto_ssthresh =
//!   recovery` keeps the ssthresh set on entering recovery (Linux `tcp_enter_loss`;
//!   `Congestion::RecoveryTimeout`). ns-3.37's `TcpSocketBase::ReTxTimeout` does neither: it
//!   asks the controller again with the RFC 6675 pipe before the timeout (NewReno: pipe/2;
//!   CUBIC: β·cwnd, cwnd being the recovery's window); `cfg.rto_ssthresh = pipe` does that
//!   with SACK, on every timeout that is not the same segment's again.
//! - `cfg.sack_partial_ack_timer = impatient` (ns-3.37 `ProcessAck`): in RFC 6675 recovery
//!   only the first partial ACK restarts the timer. `cfg.rtt_sampling = every_segment`
//!   (ns-3.37 `EstimateRtt`): every new segment's send time is kept and each ACK covering
//!   the oldest one, never retransmitted, samples it; a timeout forgets them.
//! - `cfg.sack_pipe = ns3` (ns-3.37 `TcpTxBuffer::BytesInFlight`): a retransmitted segment
//!   that the receiver then SACKs stays in the pipe (and in the flight after a timeout that
//!   keeps the scoreboard) until the cumulative ACK covers it; a timeout forgets them.
//!   RFC 6675's SetPipe, the default, counts only unSACKed octets.
//! - ECN (RFC 3168 §6.1; spec 4 §2.6), when the SYN-ACK agreed to it: new data segments are
//!   ECT(0); the SYN and retransmissions are not (§6.1.5). An ECE ACK reduces the window
//!   (`Congestion::Ecn`, no retransmission, no change of phase) only in `Open`/`Disorder`
//!   and only if it acknowledges data sent after the last reduction of any kind (§6.1.2: at
//!   most once per window; the loss response covers ECE during recovery). It is handled
//!   before the ACK's new data, so FlightSize is the window that was marked. ECE ACKs never
//!   grow cwnd (§6.1.2). After every reduction (ECE, fast retransmit, timeout: §6.1.2 "for
//!   any reason") the first new data segment carries CWR.
//! - Every ACK of new data while ECN is negotiated goes to the controller's `on_ecn_ack`
//!   (with its ECE flag, the bytes it acknowledges and `snd_max` as the window boundary)
//!   before the reduction above: DCTCP (RFC 8257 §3.3) estimates α from it; the reduction
//!   itself (`Congestion::Ecn`) keeps the once-per-window rule for every controller.
//! - A loss after an ECE reduction in the same window is still handled as Reno (spec 4
//!   §2.6); ns-2 would retransmit without a second reduction.

use super::cc::hystart::{HyStartPp, SsStep, CSS_GROWTH_DIVISOR};
use super::cc::{AckInfo, AnyCc, CcState, Congestion, CongestionControl, EcnAck, Phase};
use super::dialect::{
    Dialect, DupAck, EcnCut, FastRetransmitTiming, Halving, HeaderAccounting, LimitedTransmit,
    Sack1Scoreboard, TimeoutScoreboard,
};
use super::rack::Rack;
use super::ranges::RangeSet;
use super::recovery::{AnyRecovery, Entry, LossRecovery, NewReno, PartialAck, Sack1Recovery};
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::{
    BbrRecovery, LossDetection, LostRetransmit, RecoverGuard, RecoveryEntry, RtoBackoffReset,
    RtoRearm, RtoSsthresh, RttSampling, SackPipe, SlowStart, SsthreshRule, TcpConfig, Variant,
};
use crate::app::{AppData, AppSource};
use crate::ids::Addr;
use crate::packet::{Body, Ecn, Packet, Seq, TcpFlags, TcpHeader, Timestamps};
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::{Dur, Rng, Time};
use std::collections::VecDeque;

/// Counters of a TCP sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    /// Payload bytes transmitted, including retransmissions.
    pub bytes_sent: u64,
    /// Payload bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Segments transmitted (data-carrying), including retransmissions.
    pub segments_sent: u64,
    /// Data segments retransmitted (for any reason).
    pub retransmits: u64,
    /// Retransmission timeouts (including SYN retransmissions).
    pub timeouts: u64,
    /// Fast retransmits (entries into loss recovery by duplicate ACKs or SACK).
    pub fast_retransmits: u64,
    /// Window reductions in response to ECN echoes (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// Duplicate ACKs received (counted whether or not fast retransmit is on).
    pub dupacks: u64,
    /// The connection was aborted after `cfg.max_timeouts` consecutive timeouts.
    pub aborted: bool,
}

/// A snapshot of the congestion state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcMetrics {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Current retransmission timeout.
    pub rto: packetsim_kernel::Dur,
}

/// Connection state of the sender (RFC 793 names; the sender never closes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderState {
    /// `open` not yet called.
    Closed,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    /// Data may flow.
    Established,
}

impl std::fmt::Display for SenderState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SenderState::Closed => "CLOSED",
            SenderState::SynSent => "SYN-SENT",
            SenderState::Established => "ESTABLISHED",
        })
    }
}

/// ECN at the sender (RFC 3168 §6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SenderEcn {
    /// Not configured, or the peer did not agree: data is Not-ECT, ECE is ignored.
    Off,
    /// Configured; the SYN offers it (ECE and CWR set), awaiting the SYN-ACK.
    Offered,
    /// Negotiated.
    On {
        /// `snd_max` at the last window reduction: ECE reduces again only on an ACK beyond
        /// it (§6.1.2, once per window).
        recover: Seq,
        /// Set CWR on the next new data segment (§6.1.2).
        cwr_pending: bool,
    },
}

/// A new segment's send time, kept for `rtt_sampling = every_segment`.
#[derive(Clone, Copy, Debug)]
struct RttMark {
    start: Seq,
    end: Seq,
    at: Time,
    /// Retransmitted since: no RTT sample from it (Karn).
    retx: bool,
}

/// `cfg.lost_retransmit = rack`: RACK (RFC 8985) over go-back-N's resends in the loss phase
/// after a timeout (module doc). Boxed in an `Option` so that the default costs the sender
/// 8 bytes and a branch.
#[derive(Clone, Debug, Default)]
struct LostRtx {
    /// This loss phase's go-back-N resends in send (= sequence) order: start, end, time.
    resent: VecDeque<(Seq, Seq, Time)>,
    /// Every unSACKed byte resent by go-back-N below this is lost (RACK's boundary).
    mark: Seq,
    /// The lost bytes in [again, mark) are not yet resent again.
    again: Seq,
    /// RACK.min_RTT: the smallest RTT sample (RFC 8985 §6.2 step 2).
    min_rtt: Option<Dur>,
}

impl LostRtx {
    /// A new loss phase from `una`.
    #[inline(never)]
    fn restart(&mut self, una: Seq) {
        self.resent.clear();
        self.mark = una;
        self.again = una;
    }

    /// `[l, r)` was newly SACKed at `now` (RFC 8985 §6.2 steps 1-2, §6.3 with reo_wnd 0):
    /// the last resend in it old enough not to be the original's moves the boundary.
    #[inline(never)]
    fn on_sacked(&mut self, l: Seq, r: Seq, now: Time) {
        let min_rtt = self.min_rtt.unwrap_or(Dur::ZERO);
        let i = self.resent.partition_point(|m| m.1 <= l.max(self.mark));
        let mut top = None;
        for &(s, e, t) in self.resent.range(i..) {
            if s >= r {
                break;
            }
            if now - t >= min_rtt {
                top = Some(e.min(r));
            }
        }
        if let Some(e) = top {
            self.mark = self.mark.max(e);
        }
    }

    /// Go-back-N sent `[s, e)` at `at`.
    #[cold]
    #[inline(never)]
    fn sent(&mut self, s: Seq, e: Seq, at: Time) {
        self.resent.push_back((s, e, at));
    }

    /// The cumulative ACK reached `una`.
    #[cold]
    #[inline(never)]
    fn advance(&mut self, una: Seq) {
        while self.resent.front().is_some_and(|m| m.1 <= una) {
            self.resent.pop_front();
        }
        self.mark = self.mark.max(una);
        self.again = self.again.max(una);
    }

    /// An RTT sample.
    #[cold]
    #[inline(never)]
    fn on_rtt(&mut self, r: Dur) {
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }
}

/// State of ns-3.37 rules (`TcpSender::ns3`), each None when its option is off.
#[derive(Clone, Debug, Default)]
struct Ns3State {
    /// `rtt_sampling = every_segment`: the send time of every new segment not yet
    /// acknowledged (ns-3.37 `TcpSocketBase::m_history`).
    rtt_hist: Option<VecDeque<RttMark>>,
    /// `sack_pipe = ns3`: the bytes above snd_una that were retransmitted and then SACKed,
    /// since the last timeout. ns-3.37's `TcpTxBuffer::BytesInFlight` counts them (their
    /// `m_retrans` stays set), RFC 6675's pipe does not.
    rexmit_sacked: Option<RangeSet>,
}

impl Ns3State {
    /// The state the dialect's ns-3.37 rules need, if any.
    fn new(d: &Dialect) -> Option<Box<Ns3State>> {
        let every = d.rto.sampling == RttSampling::EverySegment;
        let pipe = d.recovery.sack_pipe == SackPipe::Ns3;
        (every || pipe).then(|| {
            Box::new(Ns3State {
                rtt_hist: every.then(VecDeque::new),
                rexmit_sacked: pipe.then(RangeSet::new),
            })
        })
    }
}

/// ns-2's delayed-send timer (`cfg.send_overhead`, ns-2 `overhead_` and `delsnd_timer_`).
#[derive(Clone, Debug)]
struct SendOverhead {
    /// Delays are drawn uniformly from [0, max).
    max: Dur,
    rng: Rng,
    /// When the delayed send is due, while one is pending.
    at: Option<Time>,
}

/// Which rule sends data now (`TcpSender::send_rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SendRule {
    /// The window: snd_una + min(cwnd, rwnd) (`transmit_window`).
    Window,
    /// RFC 6675 §5 in SACK fast recovery (`transmit_sack`).
    Sack,
    /// ns-2 Sack1 in fast recovery (`transmit_sack1`).
    Sack1,
}

/// The limits of window-based sending for one send opportunity (`TcpSender::window_limits`).
#[derive(Clone, Copy, Debug)]
struct WindowLimits {
    /// min(cwnd, peer window, send buffer): snd_una + outstanding stays within it.
    wnd: u32,
    /// min(peer window, send buffer), the limit when `pipe` is set.
    limit: u32,
    /// Bytes in flight as a delivery-sampling controller counts them, when cwnd limits those
    /// instead of snd_una + outstanding (after a timeout with SACK).
    pipe: Option<u32>,
}

/// A TCP sender.
pub struct TcpSender {
    local: Addr,
    remote: Addr,
    /// The sending application; it counts the bytes taken, i.e. the application bytes below
    /// `snd_max`.
    app: AppSource,
    variant: Variant,
    mss: u32,
    dupthresh: u32,
    /// Window this end advertises (it receives no data; carried for realism).
    own_wnd: u32,
    want_ts: bool,
    /// The dialect's rules (`dialect::Dialect::of`, resolved once here): loss detection,
    /// recovery and the window cut, RTO rules, header accounting.
    d: Dialect,
    /// Bytes sent by limited transmit since the last ACK of new data.
    lt_bytes: u32,
    /// ns-2's `recover_`: snd_max at the last fast retransmit or timeout (`after_loss` guard).
    loss_recover: Option<Seq>,
    state: SenderState,
    /// When the SYN-ACK arrived (the connection became ESTABLISHED).
    /// `Time::MAX` before that (a sentinel, not `Option<Time>`, which takes 16 bytes: see
    /// `endpoint_state_sizes_are_compact`). Read through `established_at()`.
    established_at: Time,
    iss: Seq,
    /// Oldest unacknowledged sequence number.
    snd_una: Seq,
    /// Next sequence number to send (below `snd_max` during go-back-N).
    snd_nxt: Seq,
    /// One past the highest sequence number ever sent.
    snd_max: Seq,
    /// The peer's advertised window, bytes.
    peer_wnd: u32,
    st: CcState,
    cc: AnyCc,
    rec: AnyRecovery,
    dupacks: u32,
    rtt: RttEstimator,
    /// The send time of the one segment being timed when timestamps are off; its start
    /// sequence is `timed_seq` (two fields rather than `Option<(Seq, Time)>`, which pads to
    /// 24 bytes: see `endpoint_state_sizes_are_compact`). Read through `timed()`.
    timed_at: Option<Time>,
    /// Start sequence of the timed segment (meaningful while `timed_at` is set).
    timed_seq: Seq,
    /// The state of the ns-3.37 rules that need more than a flag (`rtt_sampling =
    /// every_segment`, `sack_pipe = ns3`); None when neither is on. Boxed so that the options
    /// cost the sender 8 B (`endpoint_state_sizes_are_compact`).
    ns3: Option<Box<Ns3State>>,
    /// Retransmission timer deadline.
    rto_at: Option<Time>,
    /// snd_una at the last timeout (to spot a repeated timeout of the same segment).
    last_rto_una: Option<Seq>,
    sack_ok: bool,
    ts_ok: bool,
    /// TS.Recent: the peer's latest timestamp, echoed in TSecr (RFC 7323 §4.3).
    ts_recent: Time,
    sb: Scoreboard,
    ecn: SenderEcn,
    /// Fast retransmit on duplicate ACKs (`cfg.fast_retransmit`).
    fast_retransmit: bool,
    /// Unacknowledged data never exceeds this (`cfg.send_buffer`; u32::MAX: unlimited).
    send_buffer: u32,
    /// `cfg.push_buffered`: a frame source's short tail is sent when the window reaches it.
    push_buffered: bool,
    /// Abort after this many consecutive timeouts (`cfg.max_timeouts`; u32::MAX: never).
    max_timeouts: u32,
    /// Timeouts since the last ACK of new data.
    consecutive_timeouts: u32,
    /// The controller samples deliveries (`CongestionControl::samples_deliveries`, read
    /// once): the sender then calls its delivery and SACK-recovery hooks.
    samples: bool,
    /// Any rule with work on every ACK is on: `samples`, PRR, or a dialect rule the
    /// standard dialect has off (`Dialect::has_per_ack_rules`: RACK, `lost_retransmit`,
    /// HyStart++, the backoff reset, ns-3's RTT history and pipe, ns-2's Sack1 scoreboard).
    /// Set once; the recovery's NewReno fallback leaves it set, which only costs the checks.
    /// When false the ACK path is compiled without them (`on_ack_with::<false>`).
    ack_opts: bool,
    /// With `precision_reduce`: half of min(cwnd, peer window) at the last fast retransmit,
    /// bytes (ns-2's `halfwin`), which Reno's recovery ends with.
    halfwin: u32,
    /// ns-2's `overhead_` (`cfg.send_overhead`); None when 0.
    overhead: Option<Box<SendOverhead>>,
    /// `cfg.lost_retransmit = rack`; None when off.
    lost_rtx: Option<Box<LostRtx>>,
    /// `cfg.loss_detection = rack | rack_tlp` (RFC 8985, `rack.rs`); None when off, or once
    /// the peer did not permit SACK.
    rack: Option<Box<Rack>>,
    /// `cfg.slow_start = hystart_pp` (RFC 9406, `cc/hystart.rs`); None when off.
    hystart: Option<Box<HyStartPp>>,
    /// `cfg.bbr_recovery = linux`: a delivery-sampling controller sees the recovery state
    /// once per ACK (Linux `bbr_set_cwnd_to_recover_or_restore`).
    recovery_per_ack: bool,
    /// The ACK being processed began in fast recovery (set with `recovery_per_ack` only).
    ack_from_recovery: bool,
    /// The sender may have a timer besides the RTO and the application's: ns-2's
    /// `send_overhead`, a pacing controller's (only a stateful one paces) or RACK-TLP's.
    /// Set once; false: `next_timeout` looks at the first two only.
    timer_opts: bool,
    stats: SenderStats,
}

impl TcpSender {
    /// A sender from `local` to `remote`.
    pub fn new(cfg: &TcpConfig, local: Addr, remote: Addr, app: AppData) -> TcpSender {
        TcpSender::with_app(cfg, local, remote, app.into())
    }

    /// A sender from `local` to `remote` whose application is `app` (any byte source, e.g.
    /// a frame source).
    pub fn with_app(cfg: &TcpConfig, local: Addr, remote: Addr, app: AppSource) -> TcpSender {
        debug_assert!(
            cfg.validate().is_ok(),
            "invalid TcpConfig: {:?}",
            cfg.validate()
        );
        let (cc, rec) = cfg.variant.build(cfg);
        let samples = cc.samples_deliveries();
        let d = Dialect::of(cfg);
        let ack_opts = samples || matches!(rec, AnyRecovery::Prr(_)) || d.has_per_ack_rules();
        let timer_opts = cfg.send_overhead > Dur::ZERO
            || !matches!(cc, AnyCc::Reno(_))
            || d.loss.detection.rack();
        let mss = cfg.mss;
        let rwnd = cfg.rcv_window.min(u32::MAX as u64 / 2) as u32;
        let ssthresh = cfg
            .initial_ssthresh
            .map(|s| s.min(u32::MAX as u64 / 2) as u32)
            .unwrap_or(rwnd);
        let iss = Seq(0);
        TcpSender {
            local,
            remote,
            app,
            variant: cfg.variant,
            mss,
            dupthresh: cfg.dupack_threshold,
            own_wnd: rwnd,
            want_ts: cfg.timestamps,
            d,
            lt_bytes: 0,
            loss_recover: None,
            state: SenderState::Closed,
            established_at: Time::MAX,
            iss,
            snd_una: iss,
            snd_nxt: iss,
            snd_max: iss,
            peer_wnd: rwnd,
            st: CcState {
                // RFC 5681 §3.1: IW from the configuration.
                cwnd: cfg.initial_cwnd.saturating_mul(mss),
                ssthresh,
                bytes_in_flight: 0,
                mss,
                phase: Phase::Open,
            },
            cc,
            rec,
            dupacks: 0,
            rtt: RttEstimator::new(cfg),
            timed_at: None,
            timed_seq: iss,
            ns3: Ns3State::new(&d),
            rto_at: None,
            last_rto_una: None,
            sack_ok: false,
            ts_ok: false,
            ts_recent: Time::ZERO,
            sb: Scoreboard::default(),
            ecn: if cfg.ecn {
                SenderEcn::Offered
            } else {
                SenderEcn::Off
            },
            fast_retransmit: cfg.fast_retransmit,
            push_buffered: cfg.push_buffered,
            send_buffer: cfg
                .send_buffer
                .map_or(u32::MAX, |b| b.min(u32::MAX as u64) as u32),
            max_timeouts: cfg.max_timeouts.unwrap_or(u32::MAX),
            consecutive_timeouts: 0,
            samples,
            ack_opts,
            halfwin: 0,
            overhead: (cfg.send_overhead > Dur::ZERO).then(|| {
                Box::new(SendOverhead {
                    max: cfg.send_overhead,
                    rng: Rng::from_seed(0),
                    at: None,
                })
            }),
            lost_rtx: (d.loss.lost_retransmit == LostRetransmit::Rack).then(Default::default),
            rack: d.loss.detection.rack().then(|| {
                Box::new(Rack::new(
                    iss + 1,
                    d.loss.detection == LossDetection::RackTlp,
                ))
            }),
            hystart: (d.slow_start.exit == SlowStart::HystartPp).then(Default::default),
            recovery_per_ack: cfg.bbr_recovery == BbrRecovery::Linux,
            ack_from_recovery: false,
            timer_opts,
            stats: SenderStats::default(),
        }
    }

    /// The random stream of the `send_overhead` delays (a scenario gives each flow its own,
    /// `flows.NAME.send_overhead`; without this call the stream of seed 0). No effect when
    /// `send_overhead` is 0.
    pub fn set_overhead_rng(&mut self, rng: Rng) {
        if let Some(o) = &mut self.overhead {
            o.rng = rng;
        }
    }

    /// Opens the connection (sends the SYN).
    pub fn open(&mut self, now: Time, out: &mut Outbox) {
        debug_assert_eq!(self.state, SenderState::Closed, "open called twice");
        self.state = SenderState::SynSent;
        self.app.start(now);
        self.send_syn(now, out);
        self.set_timed(self.iss, now);
    }

    /// When the connection became ESTABLISHED (the SYN-ACK arrived), if it has.
    pub fn established_at(&self) -> Option<Time> {
        (self.established_at != Time::MAX).then_some(self.established_at)
    }

    /// Counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// Congestion state.
    pub fn cc_metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd: self.st.cwnd as u64,
            ssthresh: self.st.ssthresh as u64,
            rto: self.rtt.rto(),
        }
    }

    /// The congestion controller (e.g. DCTCP's α through [`AnyCc::as_dctcp`]).
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }

    /// The shared window state (cwnd, ssthresh, flight, phase).
    pub fn cc_state(&self) -> &CcState {
        &self.st
    }

    /// The connection state.
    pub fn state(&self) -> SenderState {
        self.state
    }

    /// Oldest unacknowledged sequence number.
    pub fn snd_una(&self) -> Seq {
        self.snd_una
    }

    /// One past the highest sequence number sent.
    pub fn snd_max(&self) -> Seq {
        self.snd_max
    }

    /// Smoothed RTT, once sampled.
    pub fn srtt(&self) -> Option<Dur> {
        self.rtt.srtt()
    }

    /// Whether every byte the application offered has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.app.is_done(self.stats.bytes_acked)
    }

    /// The segment being timed (start sequence, send time), if any.
    fn timed(&self) -> Option<(Seq, Time)> {
        self.timed_at.map(|t| (self.timed_seq, t))
    }

    // `rtt_sampling = every_segment` (`Ns3State::rtt_hist`), out of line so that the default
    // sampling's per-segment and per-ACK paths stay small.

    /// Whether `rtt_sampling = every_segment` keeps a send-time history.
    #[inline]
    fn rtt_hist_on(&self) -> bool {
        self.ns3.as_ref().is_some_and(|n| n.rtt_hist.is_some())
    }

    /// Karn with every segment timed: the kept segment holding `seq` gives no sample
    /// (ns-3.37 `UpdateRttHistory` marks it retransmitted).
    #[inline(never)]
    fn rtt_hist_retransmitted(&mut self, seq: Seq) {
        if let Some(h) = self.ns3.as_mut().and_then(|n| n.rtt_hist.as_mut()) {
            if let Some(m) = h.iter_mut().find(|m| seq >= m.start && seq < m.end) {
                m.retx = true;
            }
        }
    }

    /// Keeps the send time of the new segment `[seq, seq + len)`.
    #[inline(never)]
    fn rtt_hist_sent(&mut self, seq: Seq, len: u32, now: Time) {
        if let Some(h) = self.ns3.as_mut().and_then(|n| n.rtt_hist.as_mut()) {
            h.push_back(RttMark {
                start: seq,
                end: seq + len,
                at: now,
                retx: false,
            });
        }
    }

    /// ns-3.37 `EstimateRtt`: the oldest kept segment gives the sample if the ACK of `ack`
    /// covers it and it was never retransmitted; every covered one is forgotten.
    #[inline(never)]
    fn rtt_hist_sample(&mut self, ack: Seq, now: Time) {
        let Some(h) = self.ns3.as_mut().and_then(|n| n.rtt_hist.as_mut()) else {
            return;
        };
        let sample = h.front().filter(|m| !m.retx && ack >= m.end).map(|m| m.at);
        while h.front().is_some_and(|m| m.end <= ack) {
            h.pop_front();
        }
        if let Some(t) = sample {
            self.rtt.on_sample_between(t, now);
            self.rack_rtt(now - t);
        }
    }

    /// An RTT sample for RACK.min_RTT (`cfg.lost_retransmit = rack`).
    #[inline]
    fn rack_rtt(&mut self, r: Dur) {
        if let Some(lr) = &mut self.lost_rtx {
            lr.on_rtt(r);
        }
    }

    fn set_timed(&mut self, seq: Seq, at: Time) {
        self.timed_seq = seq;
        self.timed_at = Some(at);
    }

    // ---- transmission -------------------------------------------------------------------

    fn send_syn(&mut self, now: Time, out: &mut Outbox) {
        // RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR set (and is not ECT).
        let ecn_setup = match self.ecn {
            SenderEcn::Offered => TcpFlags::ECE | TcpFlags::CWR,
            SenderEcn::Off | SenderEcn::On { .. } => TcpFlags::NONE,
        };
        let hdr = TcpHeader {
            seq: self.iss,
            ack: Seq(0),
            flags: TcpFlags::SYN | ecn_setup,
            wnd: self.own_wnd,
            payload: 0,
            // RFC 2018 §2: offered when the loss recovery uses SACK (`cfg.offers_sack`).
            sack_permitted: self.rec.uses_sack(),
            sack: Default::default(),
            ts: self.want_ts.then_some(Timestamps {
                val: now,
                ecr: Time::ZERO,
            }),
            ns2_len: self.d.headers == HeaderAccounting::Ns2,
        };
        out.send(Packet::new(self.local, self.remote, Body::Tcp(hdr)));
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Application bytes available from sequence `s` on.
    fn avail_from(&self, s: Seq) -> u64 {
        let off = self.app.taken() - (self.snd_max - s) as u64;
        self.app.available_from(off)
    }

    /// Sends `[seq, seq + len)`; counts it, times it (Karn) and starts the timer (RFC 6298 §5.1).
    #[inline(never)]
    fn send_segment(&mut self, now: Time, seq: Seq, len: u32, out: &mut Outbox) {
        self.send_segment_inline(now, seq, len, out);
    }

    /// [`Self::send_segment`], inlined into the window loop, which sends nearly every segment
    /// (a call there saved and restored six registers per segment).
    #[inline(always)]
    fn send_segment_inline(&mut self, now: Time, seq: Seq, len: u32, out: &mut Outbox) {
        debug_assert!(len > 0 && len <= self.mss);
        let is_rtx = seq < self.snd_max;
        // A pacing controller (BBR) advances its clock and records the send.
        let off = self.app.taken() - (self.snd_max - seq) as u64;
        self.cc
            .on_send(now, off, len, !is_rtx, self.snd_max - self.snd_una);
        self.stats.bytes_sent += len as u64;
        self.stats.segments_sent += 1;
        if is_rtx {
            self.stats.retransmits += 1;
            // Karn: a retransmitted segment is never timed.
            if let Some((t, _)) = self.timed() {
                if t >= seq && t < seq + len {
                    self.timed_at = None;
                }
            }
            if self.rtt_hist_on() {
                self.rtt_hist_retransmitted(seq);
            }
            if self.d.rto.rearm == RtoRearm::HeadRetransmit && seq == self.snd_una {
                // `cfg.rto_rearm = head_retransmit` (Linux `tcp_xmit_retransmit_queue`: the
                // head of the retransmission queue resent, `tcp_reset_xmit_timer`).
                self.rto_at = Some(now + self.rtt.rto());
            }
        } else if !self.ts_ok {
            if self.rtt_hist_on() {
                self.rtt_hist_sent(seq, len, now);
            } else if self.timed_at.is_none() {
                // RFC 6298 §3: time one segment per RTT.
                self.set_timed(seq, now);
            }
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        // RFC 3168 §6.1.5: only new data is ECT; §6.1.2: CWR on the first new data segment
        // after a reduction.
        let mut flags = TcpFlags::ACK;
        let mut ecn = Ecn::NotEct;
        if let (false, SenderEcn::On { cwr_pending, .. }) = (is_rtx, &mut self.ecn) {
            ecn = Ecn::Ect0;
            if *cwr_pending {
                flags = flags | TcpFlags::CWR;
                *cwr_pending = false;
            }
        }
        let hdr = TcpHeader {
            seq,
            ack: Seq(1),
            flags,
            wnd: self.own_wnd,
            payload: len,
            sack_permitted: false,
            sack: Default::default(),
            ts: self.ts_ok.then_some(Timestamps {
                val: now,
                ecr: self.ts_recent,
            }),
            ns2_len: self.d.headers == HeaderAccounting::Ns2,
        };
        let mut pkt = Packet::new(self.local, self.remote, Body::Tcp(hdr));
        pkt.ecn = ecn;
        out.send(pkt);
        let end = seq + len;
        if let Some(r) = &mut self.rack {
            r.on_send(seq, end, now);
        }
        if end > self.snd_max {
            self.app.take((end - self.snd_max) as u64);
            self.snd_max = end;
        }
    }

    /// Sends what the window allows; with `send_overhead`, waits a random delay first when
    /// something would go (ns-2 `send_much` with `force` 0 and `overhead_` > 0: the
    /// delayed-send timer is set only inside the send loop, and while it is pending nothing
    /// is sent).
    ///
    /// Inline, as is `transmit_now`: an ACK reaches `transmit_window` in one call instead of
    /// three (each saved and restored six registers).
    #[inline]
    fn transmit(&mut self, now: Time, out: &mut Outbox) {
        if self.overhead.is_some() {
            self.delay_send(now);
            return;
        }
        self.transmit_now(now, out);
    }

    /// `transmit` with `send_overhead`: sets the delayed-send timer if something would go
    /// and none is pending.
    #[cold]
    #[inline(never)]
    fn delay_send(&mut self, now: Time) {
        if self.overhead.as_ref().is_some_and(|o| o.at.is_some()) || !self.can_send(now) {
            return;
        }
        let o = self.overhead.as_mut().expect("checked above");
        let d = Dur((o.rng.uniform() * o.max.0 as f64) as u64);
        o.at = Some(now + d);
    }

    /// Whether `transmit_now` would send a segment at `now`: the first step of the same
    /// sending rule (the same `*_next` function), stopped before the send. Two effects of
    /// that step stay, as they would when sending: go-back-N moves snd_nxt past SACKed data
    /// (`skip_sacked`), and a pacing controller that holds the segment asks to be woken.
    /// Only `send_overhead` asks it: kept out of line, off the common path.
    #[cold]
    #[inline(never)]
    fn can_send(&mut self, now: Time) -> bool {
        if !self.may_transmit() {
            return false;
        }
        match self.send_rule() {
            SendRule::Window => {
                let w = self.window_limits();
                let s = self.skip_sacked();
                self.window_next(s, &w).is_some() && self.cc.pacing_allows(now, self.mss)
            }
            SendRule::Sack => {
                let (lost, pipe) = self.lost_and_pipe();
                self.st.cwnd.saturating_sub(pipe) >= self.mss
                    && self.cc.pacing_allows(now, self.mss)
                    && self.sack_next(lost.0).is_some()
            }
            SendRule::Sack1 => self.sack1_next().is_some(),
        }
    }

    #[inline(always)]
    fn transmit_now(&mut self, now: Time, out: &mut Outbox) {
        if !self.may_transmit() {
            return;
        }
        match self.send_rule() {
            SendRule::Window => self.transmit_window(now, out),
            SendRule::Sack => self.transmit_sack(now, out),
            SendRule::Sack1 => self.transmit_sack1(now, out),
        }
        self.check_invariants();
    }

    /// Whether the connection may send data at all.
    #[inline]
    fn may_transmit(&self) -> bool {
        self.state == SenderState::Established && !self.stats.aborted
    }

    /// The sending rule of the moment: RFC 6675 (or ns-2 Sack1) in SACK fast recovery, else
    /// the window.
    #[inline]
    fn send_rule(&self) -> SendRule {
        if self.sack_ok
            && match self.st.phase {
                Phase::Recovery { .. } => true,
                // RACK after a timeout: the records marked lost first (Linux
                // `tcp_xmit_retransmit_queue` in CA_Loss), within cwnd − pipe.
                Phase::Loss { .. } => self.rack.is_some(),
                Phase::Open | Phase::Disorder => false,
            }
        {
            if matches!(self.rec, AnyRecovery::Sack1(_)) {
                SendRule::Sack1
            } else {
                SendRule::Sack
            }
        } else {
            SendRule::Window
        }
    }

    /// The limits of window-based sending at the start of a send opportunity.
    #[inline]
    fn window_limits(&self) -> WindowLimits {
        WindowLimits {
            // spec 1 §2.5: unacknowledged data never exceeds the send buffer.
            wnd: self.st.cwnd.min(self.peer_wnd).min(self.send_buffer),
            limit: self.peer_wnd.min(self.send_buffer),
            // A delivery-sampling controller (BBR) with SACK after a timeout: cwnd limits the
            // bytes in flight as its model counts them (`model_view`: what go-back-N resent,
            // SACKed bytes left out), as Linux and ns-3 limit every send by their pipe; the
            // peer's window and the send buffer still limit snd_una + outstanding.
            // So does any controller with `cfg.keep_sack_on_timeout` (ns-3.37: its window is
            // cwnd − BytesInFlight in CA_LOSS too).
            pipe: (self.sack_ok
                && (self.samples || self.d.rto.scoreboard == TimeoutScoreboard::Keep)
                && matches!(self.st.phase, Phase::Loss { .. }))
            .then(|| self.model_view().bytes_in_flight),
        }
    }

    /// Go-back-N skips what the receiver has SACKed: snd_nxt moves past the SACKed range it
    /// is in, if any. Returns snd_nxt.
    #[inline]
    fn skip_sacked(&mut self) -> Seq {
        let s = self.snd_nxt;
        if self.sack_ok && s < self.snd_max && !self.sack1_keeps_ns2_scoreboard() {
            if let Some((_, r)) = self.sb.sacked.containing(s) {
                self.snd_nxt = r;
                return r;
            }
        }
        s
    }

    /// Window-based sending's next segment from `s` (snd_nxt): its length, if it fits in
    /// snd_una + min(cwnd, rwnd) (or `w.pipe` against cwnd) and sender SWS avoidance lets
    /// it go.
    #[inline]
    fn window_next(&self, s: Seq, w: &WindowLimits) -> Option<u32> {
        let mut len = self.avail_from(s).min(self.mss as u64) as u32;
        if s < self.snd_max {
            len = len.min(self.snd_max - s);
        }
        let blocked = match w.pipe {
            Some(p) => p + len > self.st.cwnd || (s + len) - self.snd_una > w.limit,
            None => (s + len) - self.snd_una > w.wnd,
        };
        if len == 0 || blocked {
            return None;
        }
        // RFC 1122 §4.2.3.4 (sender SWS avoidance): no short new segment while the
        // application will offer more (a frame source, spec 1 §2.5), unless
        // `push_buffered`: the segment then holds all the buffered data and the window
        // reaches its end (checked above), YATS `tcpipsend::calc_send` condition (2).
        if len < self.mss && s >= self.snd_max && self.app.more_expected() && !self.push_buffered {
            return None;
        }
        Some(len)
    }

    /// Window-based sending: while the segment at snd_nxt fits in snd_una + min(cwnd, rwnd).
    fn transmit_window(&mut self, now: Time, out: &mut Outbox) {
        let mut w = self.window_limits();
        if w.pipe.is_some() {
            self.transmit_window_pipe(now, w, out);
            return;
        }
        self.window_loop::<false>(now, &mut w, out);
    }

    /// [`Self::transmit_window`] when cwnd limits the bytes in flight (`w.pipe`: the loss
    /// phase with the scoreboard kept), with `cfg.lost_retransmit = rack`'s resends first.
    /// Out of line: the default window path never has a pipe.
    #[inline(never)]
    fn transmit_window_pipe(&mut self, now: Time, mut w: WindowLimits, out: &mut Outbox) {
        if self.lost_rtx.is_some() && self.rack_resend(now, &mut w, out) {
            return;
        }
        self.window_loop::<true>(now, &mut w, out);
    }

    /// The send loop of both: `PIPE` (a compile-time copy, so that the default loop has no
    /// pipe or RACK test) counts what it sends into `w.pipe` and RACK's record of resends.
    #[inline(always)]
    fn window_loop<const PIPE: bool>(&mut self, now: Time, w: &mut WindowLimits, out: &mut Outbox) {
        loop {
            let s = self.skip_sacked();
            let Some(len) = self.window_next(s, w) else {
                break;
            };
            // Pacing (BBR): not faster than the controller's rate; it wakes the sender.
            if !self.cc.pacing_allows(now, self.mss) {
                break;
            }
            self.send_segment_inline(now, s, len, out);
            self.snd_nxt = s + len;
            if PIPE {
                if let Some(p) = &mut w.pipe {
                    *p += len;
                    if let Some(lr) = &mut self.lost_rtx {
                        lr.sent(s, s + len, now);
                    }
                }
            }
        }
    }

    /// `cfg.lost_retransmit = rack` in the loss phase: resends again, in order, the bytes
    /// RACK marked lost (`LostRtx`), within the same limits as go-back-N. Returns whether a
    /// limit stopped it (go-back-N then sends nothing either).
    #[cold]
    #[inline(never)]
    fn rack_resend(&mut self, now: Time, w: &mut WindowLimits, out: &mut Outbox) -> bool {
        loop {
            let Some(lr) = self.lost_rtx.as_deref_mut() else {
                return false;
            };
            let mut a = lr.again;
            if let Some((_, r)) = self.sb.sacked.containing(a) {
                a = r;
            }
            if a >= lr.mark {
                lr.again = lr.mark;
                return false;
            }
            lr.again = a;
            let end = self
                .sb
                .sacked
                .next_after(a)
                .map_or(lr.mark, |(l, _)| l.min(lr.mark));
            let len = (end - a).min(self.mss);
            let p = w.pipe.unwrap_or(0);
            if p + len > self.st.cwnd
                || (a + len) - self.snd_una > w.limit
                || !self.cc.pacing_allows(now, self.mss)
            {
                return true;
            }
            self.send_segment(now, a, len, out);
            w.pipe = Some(p + len);
            if let Some(lr) = &mut self.lost_rtx {
                lr.again = a + len;
            }
        }
    }

    /// The bytes `cfg.lost_retransmit = rack` has marked lost and not yet resent again.
    fn rack_lost(&self) -> u32 {
        self.lost_rtx.as_deref().map_or(0, |lr| {
            let sacked =
                self.sb.sacked.covered_below(lr.mark) - self.sb.sacked.covered_below(lr.again);
            (lr.mark - lr.again) - sacked
        })
    }

    /// The scoreboard's IsLost boundary (RFC 6675 §4: DupThresh segments SACKed above) and
    /// the pipe it gives (§4 SetPipe), at the current snd_una and snd_max.
    fn lost_and_pipe(&self) -> ((Seq, u32), u32) {
        if let Some(r) = &self.rack {
            // RACK (Linux `tcp_packets_in_flight`): outstanding − SACKed − lost and unsent.
            let pipe = (self.snd_max - self.snd_una)
                .saturating_sub(self.sb.sacked.total())
                .saturating_sub(r.lost_bytes());
            return ((self.snd_una, 0), pipe);
        }
        let lost = self
            .sb
            .lost_boundary(self.snd_una, self.dupthresh, self.mss);
        let pipe = self.sb.pipe(self.snd_una, self.snd_max, lost);
        (lost, pipe + self.ns3_rexmit_sacked())
    }

    // `sack_pipe = ns3` (`Ns3State::rexmit_sacked`), out of line but for the read.

    /// The retransmitted bytes SACKed since, which `sack_pipe = ns3` keeps in flight
    /// (ns-3.37 `TcpTxBuffer::BytesInFlight`) until the cumulative ACK covers them
    /// (`TcpTxBuffer::RemoveFromCounts`); 0 by default. The set keeps what lies below
    /// snd_una until the next SACK blocks prune it, so no ACK of new data pays for it.
    #[inline]
    fn ns3_rexmit_sacked(&self) -> u32 {
        self.ns3
            .as_ref()
            .and_then(|n| n.rexmit_sacked.as_ref())
            .map_or(0, |r| r.total() - r.covered_below(self.snd_una))
    }

    /// Before the SACK blocks of an ACK are recorded: the bytes they newly SACK that were
    /// retransmitted, i.e. below HighRxt in recovery (NextSeg resends the unSACKed bytes in
    /// order) or below snd_nxt and the timeout's recovery point after a timeout (go-back-N
    /// resent every unSACKed byte it passed), join `rexmit_sacked`.
    #[cold]
    #[inline(never)]
    fn ns3_note_sacked_rexmits(&mut self, blocks: &[(Seq, Seq)]) {
        let resent_below = match self.st.phase {
            Phase::Recovery { .. } => self.sb.high_rxt,
            Phase::Loss { recover } => self.snd_nxt.min(recover),
            Phase::Open | Phase::Disorder => return,
        };
        let Some(set) = self.ns3.as_mut().and_then(|n| n.rexmit_sacked.as_mut()) else {
            return;
        };
        set.remove_below(self.snd_una);
        for &(l, r) in blocks {
            let (l, r) = (l.max(self.snd_una), r.min(resent_below));
            if l < r {
                self.sb.for_each_unsacked(l, r, |a, b| {
                    set.insert(a, b);
                });
            }
        }
    }

    /// RFC 6675 §4 NextSeg with the IsLost boundary `lost`: (start, length, whether it is a
    /// retransmission), if any rule gives one.
    fn sack_next(&self, lost: Seq) -> Option<(Seq, u32, bool)> {
        if let Some(r) = &self.rack {
            return self.rack_next(r);
        }
        // Rule 1: the first unSACKed byte above HighRxt that IsLost.
        if let Some((s, len)) = self.sb.next_hole(lost, self.snd_max, self.mss) {
            return Some((s, len, true));
        }
        // Rule 2: new data, within the receiver's window.
        let s = self.snd_max;
        let len = self.avail_from(s).min(self.mss as u64) as u32;
        if len > 0 && (s + len) - self.snd_una <= self.peer_wnd {
            return Some((s, len, false));
        }
        // Rule 3: an unSACKed byte above HighRxt below the highest SACKed byte.
        let high_sacked = self.sb.sacked.last().map_or(self.snd_una, |r| r.1);
        self.sb
            .next_hole(high_sacked, self.snd_max, self.mss)
            .map(|(s, len)| (s, len, true))
    }

    /// With RACK: the lowest record marked lost, else new data within the peer's window (Linux
    /// `tcp_xmit_retransmit_queue` resends only what is marked lost, then `tcp_write_xmit`).
    #[cold]
    #[inline(never)]
    fn rack_next(&self, r: &Rack) -> Option<(Seq, u32, bool)> {
        if let Some((s, len)) = r.first_lost() {
            return Some((s, len.min(self.mss), true));
        }
        let s = self.snd_max;
        let len = self.avail_from(s).min(self.mss as u64) as u32;
        (len > 0 && (s + len) - self.snd_una <= self.peer_wnd.min(self.send_buffer))
            .then_some((s, len, false))
    }

    /// RFC 6675 §5 step (C): while cwnd - pipe >= SMSS, send NextSeg (§4).
    fn transmit_sack(&mut self, now: Time, out: &mut Outbox) {
        let (lost, mut pipe) = self.lost_and_pipe();
        while self.st.cwnd.saturating_sub(pipe) >= self.mss {
            // Pacing (BBR) holds in recovery too.
            if !self.cc.pacing_allows(now, self.mss) {
                break;
            }
            let Some((s, len, rtx)) = self.sack_next(lost.0) else {
                break;
            };
            self.send_segment(now, s, len, out);
            if rtx {
                self.sb.high_rxt = s + len;
            } else {
                self.snd_nxt = self.snd_max;
            }
            pipe += len;
            if let AnyRecovery::Prr(p) = &mut self.rec {
                // RFC 6937 §3.1: prr_out += data sent.
                p.sent(len);
            }
        }
    }

    /// ns-2 `Sack1TcpAgent::send_much` in fast recovery: while pipe < cwnd (pipe in packets),
    /// the lowest hole at or above HighRxt with SACKed data above it
    /// (`ScoreBoardRQ::GetNextRetran`), else new data; each within snd_una + the peer's
    /// window (`highest_ack_ + wnd_`) and each one packet more in the pipe. This gives the
    /// next one: (start, length, whether it is a retransmission).
    fn sack1_next(&self) -> Option<(Seq, u32, bool)> {
        let AnyRecovery::Sack1(Sack1Recovery { pipe }) = self.rec else {
            return None;
        };
        // ns-2 compares its pipe with int(cwnd_); with `precision_reduce` cwnd need not be
        // whole segments.
        let full = if self.d.recovery.halving == Halving::Precise {
            pipe >= self.st.cwnd / self.mss
        } else {
            (pipe as u64) * self.mss as u64 >= self.st.cwnd as u64
        };
        if full {
            return None;
        }
        let high_sacked = self.sb.sacked.last().map_or(self.snd_una, |r| r.1);
        let (s, len, rtx) = match self.sb.next_hole(high_sacked, self.snd_max, self.mss) {
            Some((s, len)) => (s, len, true),
            None => {
                let s = self.snd_max;
                (s, self.avail_from(s).min(self.mss as u64) as u32, false)
            }
        };
        (len > 0 && (s + len) - self.snd_una <= self.peer_wnd).then_some((s, len, rtx))
    }

    /// Sends by `sack1_next` while it gives a segment.
    fn transmit_sack1(&mut self, now: Time, out: &mut Outbox) {
        while let Some((s, len, rtx)) = self.sack1_next() {
            self.send_segment(now, s, len, out);
            if rtx {
                self.sb.high_rxt = s + len;
            } else {
                self.snd_nxt = self.snd_max;
            }
            if let AnyRecovery::Sack1(r) = &mut self.rec {
                r.pipe += 1;
            }
        }
    }

    /// Retransmits the segment at snd_una (fast retransmit, NewReno partial ACK).
    fn retransmit_una(&mut self, now: Time, out: &mut Outbox) {
        if let Some((s, len)) = self.rack.as_deref().and_then(Rack::first_lost) {
            // RACK: the fast retransmit is the lowest record marked lost, sent whatever cwnd
            // − pipe is (RFC 6675 step 4.3; Linux forces one segment on entering recovery,
            // `tcp_cwnd_reduction`).
            let len = len.min(self.mss);
            self.send_segment(now, s, len, out);
            self.sb.high_rxt = self.sb.high_rxt.max(s + len);
            return;
        }
        if self.rack.is_some() && self.d.recovery.entry == RecoveryEntry::LostOut {
            // Recovery entered on `lost_out` alone: every lost segment was resent already
            // (Linux `tcp_xmit_retransmit_queue` skips `TCPCB_SACKED_RETRANS` segments).
            return;
        }
        let s = self.snd_una;
        let mut len = (self.snd_max - s).min(self.mss);
        if let Some((l, _)) = self.sb.sacked.next_after(s) {
            len = len.min(l - s);
        }
        if len > 0 {
            self.send_segment(now, s, len, out);
            self.sb.high_rxt = self.sb.high_rxt.max(s + len);
        }
    }

    // ---- ACK processing -------------------------------------------------------------------

    fn on_syn_ack(&mut self, now: Time, h: &TcpHeader, out: &mut Outbox) {
        if !(h.flags.contains(TcpFlags::SYN | TcpFlags::ACK) && h.ack == self.iss + 1) {
            return;
        }
        self.state = SenderState::Established;
        self.established_at = now;
        self.sack_ok = self.rec.uses_sack() && h.sack_permitted;
        self.ts_ok = self.want_ts && h.ts.is_some();
        // RFC 3168 §6.1.1: ECN is on only if the SYN-ACK is an ECN-setup one (ECE, not CWR).
        let setup = h.flags.contains(TcpFlags::ECE) && !h.flags.contains(TcpFlags::CWR);
        self.ecn = match self.ecn {
            SenderEcn::Offered if setup => SenderEcn::On {
                recover: self.iss + 1,
                cwr_pending: false,
            },
            _ => SenderEcn::Off,
        };
        if !self.sack_ok {
            // RACK needs SACK (RFC 8985 §2).
            self.rack = None;
        }
        if self.rec.uses_sack() && !self.sack_ok {
            let r = self.d.recovery;
            self.rec = AnyRecovery::NewReno(NewReno::new(
                r.newreno_partial_ack_timer,
                r.newreno_full_ack,
            ));
        }
        // RTT sample from the handshake: timestamp echo, or the SYN if never retransmitted.
        match (self.ts_ok, h.ts, self.timed()) {
            (true, Some(ts), _) => {
                self.ts_recent = ts.val;
                self.rtt.on_sample_between(ts.ecr, now);
                self.rack_rtt(now - ts.ecr);
            }
            (false, _, Some((s, t))) if s == self.iss => {
                self.rtt.on_sample_between(t, now);
                self.rack_rtt(now - t);
            }
            _ => {}
        }
        self.timed_at = None;
        self.peer_wnd = h.wnd;
        self.snd_una = self.iss + 1;
        self.snd_nxt = self.snd_una;
        self.snd_max = self.snd_una;
        self.rto_at = None;
        self.transmit(now, out);
        if self.rack.is_some() {
            self.tlp_arm(now);
        }
    }

    #[inline]
    fn on_ack(&mut self, now: Time, h: &TcpHeader, out: &mut Outbox) {
        if self.ack_opts {
            self.on_ack_opts(now, h, out);
        } else {
            self.on_ack_with::<false>(now, h, out);
        }
    }

    /// [`Self::on_ack`] with BBR's sampling, RACK or PRR on: out of line, so that the
    /// default ACK path (`OPTS` false: none of their checks) stays small.
    #[inline(never)]
    fn on_ack_opts(&mut self, now: Time, h: &TcpHeader, out: &mut Outbox) {
        self.on_ack_with::<true>(now, h, out);
    }

    /// An ACK in ESTABLISHED. `OPTS` is `self.ack_opts`: when false, `samples`,
    /// `lost_rtx` and PRR are known off and their checks are compiled out.
    #[inline(always)]
    fn on_ack_with<const OPTS: bool>(&mut self, now: Time, h: &TcpHeader, out: &mut Outbox) {
        let ack = h.ack;
        // RFC 5681 / RFC 793: ignore ACKs of unsent data and old ACKs.
        if ack > self.snd_max || ack < self.snd_una {
            return;
        }
        if self.ts_ok {
            if let Some(ts) = h.ts {
                if ts.val >= self.ts_recent {
                    self.ts_recent = ts.val;
                }
            }
        }
        let wnd_changed = h.wnd != self.peer_wnd;
        self.peer_wnd = h.wnd;
        let was_recovery = matches!(self.st.phase, Phase::Recovery { .. });
        if OPTS && self.samples {
            self.cc.begin_ack();
            self.ack_from_recovery = self.recovery_per_ack && was_recovery;
        }
        // ns-2 Sack1 (`cfg.sack1_clear_scoreboard`): an ACK that clears the scoreboard, or a
        // duplicate ACK while `timeout_` is set, leaves its SACK blocks unrecorded.
        // Off in the default path (a per-ACK rule: `ack_opts`).
        let sack1_clears = OPTS && self.sack1_clears(ack);
        let sack1_skips = sack1_clears
            || (OPTS
                && ack == self.snd_una
                && self.sack1_keeps_ns2_scoreboard()
                && !matches!(self.st.phase, Phase::Recovery { .. })
                && self.sack1_after_timeout());
        let sacked_new = if self.sack_ok && !h.sack.is_empty() && !sack1_skips {
            if OPTS && self.ns3.is_some() {
                self.ns3_note_sacked_rexmits(h.sack.as_slice());
            }
            if OPTS && (self.samples || self.lost_rtx.is_some() || self.rack.is_some()) {
                // BBR counts bytes as delivered when they are SACKed (Linux `tcp_sacktag`
                // → `tcp_rate_skb_delivered`); RACK (`lost_retransmit`) sees what each ACK
                // newly SACKs in the loss phase.
                let (taken, max) = (self.app.taken(), self.snd_max);
                let samples = self.samples;
                let cc = &mut self.cc;
                let in_loss = matches!(self.st.phase, Phase::Loss { .. });
                let mut rack = self.lost_rtx.as_deref_mut().filter(|_| in_loss);
                let mut newly = self.rack.as_mut().map(|r| std::mem::take(&mut r.scratch));
                let n =
                    self.sb
                        .update_each(h.sack.as_slice(), self.snd_una, self.snd_max, |l, r| {
                            if samples {
                                let (l64, r64) =
                                    (taken - (max - l) as u64, taken - (max - r) as u64);
                                cc.on_delivered(now, l64, r64);
                            }
                            if let Some(lr) = rack.as_mut() {
                                lr.on_sacked(l, r, now);
                            }
                            if let Some(v) = newly.as_mut() {
                                v.push((l, r));
                            }
                        });
                if let (Some(mut v), Some(r)) = (newly, self.rack.as_deref_mut()) {
                    // RFC 8985 §6.2 steps 1-3 for the segments this ACK newly SACKs.
                    let sacked = &self.sb.sacked;
                    for &(l, h) in &v {
                        r.on_sacked(l, h, now, |s| sacked.containing(s).map(|c| c.1));
                    }
                    v.clear();
                    r.scratch = v;
                }
                n
            } else {
                self.sb
                    .update(h.sack.as_slice(), self.snd_una, self.snd_max)
            }
        } else {
            0
        };
        if OPTS && matches!(self.rec, AnyRecovery::Prr(_)) {
            self.prr_note_delivered(ack, sacked_new);
        }
        let ecn_on = matches!(self.ecn, SenderEcn::On { .. });
        let ece = ecn_on && h.flags.contains(TcpFlags::ECE);
        if ecn_on && ack > self.snd_una {
            // RFC 8257 §3.3: the controller sees every ACK of new data, and before the
            // reaction below, so a DCTCP cut uses the α this ACK may have just updated.
            self.cc.on_ecn_ack(&EcnAck {
                acked: ack - self.snd_una,
                ece,
                ack,
                snd_nxt: self.snd_max,
            });
        }
        if ece {
            self.on_ece(ack);
        }
        let mut send = true;
        if OPTS && self.samples && ack == self.snd_una && sacked_new > 0 {
            // A SACK-only ACK delivered data: BBR samples it (Linux `bbr_main` runs on
            // every ACK that delivers, SACKed bytes included).
            self.st.bytes_in_flight = self.snd_max - self.snd_una;
            let info = self.ack_info(now, 0);
            let cum = self.app.taken() - (self.snd_max - self.snd_una) as u64;
            let view = self.model_view();
            self.cc.on_ack_delivered(&view, &info, cum);
            if matches!(self.st.phase, Phase::Loss { .. }) {
                // After a timeout BBR's window grows with every delivery, SACKed ones too
                // (Linux `bbr_set_cwnd` on each ACK).
                self.cc.on_ack(&mut self.st, &info);
            }
        }
        let advanced = ack > self.snd_una;
        if ack > self.snd_una {
            self.on_new_ack::<OPTS>(now, h, ece, out);
            if sack1_clears {
                // `Sack1TcpAgent::recv`: `scb_->ClearScoreBoard()` after `newack`.
                self.sb.clear(self.snd_una);
            }
        } else if self.snd_max > self.snd_una
            && h.payload == 0
            && !(wnd_changed && self.d.loss.dupack == DupAck::SameWindow)
        {
            // RFC 5681 §2: a duplicate ACK (condition (e), the same window, unless
            // `cfg.dupack_same_window` is off).
            send = self.on_dupack(now, sacked_new, out);
        }
        if OPTS && self.rack.is_some() {
            self.rack_on_ack(now, advanced, sacked_new, out);
        }
        if OPTS && self.samples && was_recovery && matches!(self.st.phase, Phase::Recovery { .. }) {
            self.model_sack_recovery_ack();
        }
        if OPTS
            && was_recovery
            && matches!(self.st.phase, Phase::Recovery { .. })
            && matches!(self.rec, AnyRecovery::Prr(_))
        {
            self.prr_ack();
        }
        // A frame source with back-pressure sees its buffer drain (spec 1 §2.4).
        self.app.advance(now, self.stats.bytes_acked);
        if send {
            self.transmit(now, out);
        }
        if OPTS && self.rack.is_some() {
            self.tlp_arm(now);
        }
        if OPTS {
            self.ack_from_recovery = false;
        }
    }

    /// What congestion control sees of an ACK of new data.
    fn ack_info(&self, now: Time, acked: u32) -> AckInfo {
        AckInfo {
            acked,
            now,
            srtt: self.rtt.srtt(),
        }
    }

    /// An ACK with ECE (ECN negotiated), before its new data is applied.
    fn on_ece(&mut self, ack: Seq) {
        let SenderEcn::On { recover, .. } = self.ecn else {
            return;
        };
        // RFC 3168 §6.1.2: once per window (only for data sent after the last reduction), and
        // not during loss recovery, whose own reduction covers this congestion.
        if ack <= recover || !matches!(self.st.phase, Phase::Open | Phase::Disorder) {
            return;
        }
        self.st.bytes_in_flight = self.snd_max - self.snd_una;
        let cwnd_before = self.st.cwnd;
        // RFC 3168 §6.1.2, spec 4 §2.6: halve the window; nothing is retransmitted.
        self.cc.on_congestion(&mut self.st, Congestion::Ecn);
        if self.d.recovery.ecn_cut == EcnCut::Ns2 {
            // ns-2.35 `TcpAgent::ecn` -> `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`:
            // halfwin = windowd() / 2, ssthresh_ = (int) halfwin (at least 2), cwnd_ = halfwin.
            self.st.ssthresh = self.ns2_ssthresh(cwnd_before);
            self.st.cwnd = self.ns2_half_cwnd(cwnd_before);
        }
        self.stats.ecn_reductions += 1;
        if let Some(h) = &mut self.hystart {
            h.finish();
        }
        self.window_reduced();
    }

    /// Records a window reduction (ECE, fast retransmit or timeout) for ECN: the next new
    /// data segment carries CWR and ECE is ignored until data sent from now on is
    /// acknowledged (RFC 3168 §6.1.2).
    fn window_reduced(&mut self) {
        if let SenderEcn::On { .. } = self.ecn {
            self.ecn = SenderEcn::On {
                recover: self.snd_max,
                cwr_pending: true,
            };
        }
    }

    /// An ACK of new data; `OPTS` as in [`Self::on_ack_with`].
    fn on_new_ack<const OPTS: bool>(
        &mut self,
        now: Time,
        h: &TcpHeader,
        ece: bool,
        out: &mut Outbox,
    ) {
        let ack = h.ack;
        let acked = ack - self.snd_una;
        // This ACK's RTT sample, for HyStart++.
        let mut rtt_sample = None;
        // RTT sample: RFC 7323 §4.1 from the echoed timestamp of an ACK advancing snd_una,
        // else the timed segment if it is covered (RFC 6298 §3; Karn cleared it on rtx).
        if self.ts_ok {
            if let Some(ts) = h.ts {
                self.rtt.on_sample_seq(ts.ecr, now, ack, self.snd_max);
                if OPTS {
                    self.rack_rtt(now - ts.ecr);
                    rtt_sample = Some(now - ts.ecr);
                }
            }
        } else if OPTS && self.rtt_hist_on() {
            self.rtt_hist_sample(ack, now);
        } else if let Some((s, t)) = self.timed() {
            if ack > s {
                self.rtt.on_sample_seq(t, now, ack, self.snd_max);
                if OPTS {
                    self.rack_rtt(now - t);
                    rtt_sample = Some(now - t);
                }
                self.timed_at = None;
            }
        }
        if OPTS && self.d.rto.backoff_reset == RtoBackoffReset::NewAck {
            // `rto_backoff_reset = new_ack` (Linux): an ACK of new data clears the backoff,
            // whether or not it gave an RTT sample.
            self.rtt.clear_backoff();
        }
        let old_una = self.snd_una;
        self.snd_una = ack;
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        self.stats.bytes_acked += acked as u64;
        if OPTS && self.samples {
            // The bytes this ACK delivers are those below it not SACKed before.
            let (taken, max) = (self.app.taken(), self.snd_max);
            let cc = &mut self.cc;
            self.sb.for_each_unsacked(old_una, ack, |l, r| {
                cc.on_delivered(now, taken - (max - l) as u64, taken - (max - r) as u64)
            });
        }
        self.sb.advance(ack);
        if OPTS {
            if let Some(lr) = &mut self.lost_rtx {
                lr.advance(ack);
            }
            if let Some(r) = &mut self.rack {
                // RFC 8985 §6.2 steps 1-3 for the segments this ACK newly acknowledges.
                r.on_cum_ack(ack, now);
            }
        }
        self.dupacks = 0;
        self.lt_bytes = 0;
        self.consecutive_timeouts = 0;
        self.st.bytes_in_flight = self.snd_max - self.snd_una;
        // A model-based controller (BBR) samples every ACK of new data, in every phase.
        if OPTS && self.samples {
            let sample = self.ack_info(now, acked);
            let cum = self.app.taken() - (self.snd_max - ack) as u64;
            let view = self.model_view();
            self.cc.on_ack_delivered(&view, &sample, cum);
        }
        let mut restart_timer = true;
        match self.st.phase {
            Phase::Open | Phase::Disorder => {
                self.st.phase = Phase::Open;
                // RFC 3168 §6.1.2: an ECE ACK does not increase cwnd.
                if !ece {
                    let mut info = self.ack_info(now, acked);
                    if OPTS && self.hystart.is_some() && self.st.in_slow_start() {
                        self.hystart_step(&mut info, ack, rtt_sample);
                    }
                    self.cc.on_ack(&mut self.st, &info);
                }
            }
            Phase::Loss { recover } => {
                if ack >= recover {
                    self.st.phase = Phase::Open;
                }
                if !ece {
                    let info = self.ack_info(now, acked);
                    self.cc.on_ack(&mut self.st, &info);
                }
            }
            Phase::Recovery { recover } => {
                if ack >= recover {
                    // Full ACK: recovery ends (RFC 6582 §3.2 step 3, RFC 6675 §5).
                    self.rec.exit(&mut self.st);
                    self.reno_exit_at_halfwin();
                    self.st.phase = Phase::Open;
                    self.recovery_exit_ack(now, acked);
                    if matches!(self.rec, AnyRecovery::Sack1(_)) {
                        // ns-2 `Sack1TcpAgent::recv`: `recover_ = 0` at the end of recovery.
                        self.loss_recover = None;
                    }
                } else {
                    match self.rec.on_partial_ack(&mut self.st, acked) {
                        PartialAck::Exit => {
                            self.reno_exit_at_halfwin();
                            self.st.phase = Phase::Open
                        }
                        PartialAck::RetransmitNext { reset_timer } => {
                            // RFC 6582 §3.2 step 5: retransmit the first unacknowledged segment.
                            self.retransmit_una(now, out);
                            restart_timer = reset_timer;
                        }
                        PartialAck::Stay { reset_timer } => restart_timer = reset_timer,
                        // ns-2 Sack1: `newtimer(pkt); t_backoff_ = 1`.
                        PartialAck::StayNewTimer => self.rtt.clear_backoff(),
                    }
                }
            }
        }
        if self.snd_una == self.snd_max {
            // RFC 6298 §5.2: all data acknowledged, stop the timer.
            self.rto_at = None;
        } else if restart_timer {
            // RFC 6298 §5.3: restart the timer on an ACK of new data.
            self.rto_at = Some(now + self.rtt.rto());
        }
    }

    /// A duplicate ACK; `sacked_new` is the bytes its SACK blocks newly covered. Returns
    /// whether the sender may then send as the window allows: always, except for Sack1
    /// outside fast recovery (ns-2 `Sack1TcpAgent::recv` calls `send_much` there only when
    /// `dupacks_ == 0`).
    fn on_dupack(&mut self, now: Time, sacked_new: u32, out: &mut Outbox) -> bool {
        self.stats.dupacks += 1;
        if matches!(self.rec, AnyRecovery::Sack1(_))
            && !matches!(self.st.phase, Phase::Recovery { .. })
        {
            if !self.sack1_ignores_dupack(sacked_new) {
                self.dupacks += 1;
                self.on_counted_dupack(now, out);
            }
            return false;
        }
        self.dupacks += 1;
        self.on_counted_dupack(now, out);
        true
    }

    fn on_counted_dupack(&mut self, now: Time, out: &mut Outbox) {
        if !self.fast_retransmit {
            // spec 1 §2.5: fast retransmit off, only the timer recovers.
            return;
        }
        if self.d.loss.limited_transmit == LimitedTransmit::Rfc3042
            && self.dupacks < self.dupthresh
            && !matches!(self.st.phase, Phase::Recovery { .. })
        {
            self.limited_transmit_one(now, out);
        }
        match (self.st.phase, self.d.loss.recover_guard) {
            // ns-2 `bugFix_`: no fast retransmit until the ACK passes the last loss's recover.
            (Phase::Open | Phase::Disorder | Phase::Loss { .. }, RecoverGuard::AfterLoss)
                if self.loss_recover.is_some_and(|r| self.snd_una <= r) =>
            {
                if matches!(self.st.phase, Phase::Open) {
                    self.st.phase = Phase::Disorder;
                }
            }
            (Phase::Open | Phase::Disorder, _) => {
                self.st.phase = Phase::Disorder;
                self.maybe_fast_retransmit(now, out);
            }
            // RFC 6582 §4.1: no fast retransmit for dupacks covering pre-timeout data.
            (Phase::Loss { .. }, RecoverGuard::AfterTimeout) => {}
            // spec 2 §2.4: without the guard, reconnection ACKs (or any dupacks) may trigger
            // a fast retransmit right after a timeout; the phase stays Loss until then.
            (Phase::Loss { .. }, RecoverGuard::None | RecoverGuard::AfterLoss) => {
                self.maybe_fast_retransmit(now, out)
            }
            (Phase::Recovery { .. }, _) => self.rec.on_dupack(&mut self.st),
        }
    }

    /// ns-2 `Sack1TcpAgent::recv` outside fast recovery: a duplicate ACK is ignored between
    /// a timeout and the next ACK of new data (`timeout_`), and counts only if its SACK
    /// blocks cover new data (`scb_->CheckUpdate()`).
    fn sack1_ignores_dupack(&self, sacked_new: u32) -> bool {
        self.sack1_after_timeout() || sacked_new == 0
    }

    /// ns-2 `RenoTcpAgent` (`cfg.precision_reduce` with `ssthresh_rule = ns2`): recovery
    /// ends with cwnd_ = halfwin as `slowdown(CLOSE_CWND_HALF)` set it, not ssthresh.
    fn reno_exit_at_halfwin(&mut self) {
        if self.d.recovery.halving == Halving::Precise
            && self.d.recovery.ssthresh == SsthreshRule::Ns2
            && matches!(self.rec, AnyRecovery::Reno(_))
        {
            self.st.cwnd = self.halfwin;
        }
    }

    /// ns-2 Sack1's `timeout_`: set at a timeout, cleared by the next ACK of new data.
    fn sack1_after_timeout(&self) -> bool {
        matches!(self.st.phase, Phase::Loss { .. }) && self.last_rto_una == Some(self.snd_una)
    }

    /// Whether the scoreboard is kept as ns-2's Sack1 keeps it (`cfg.sack1_clear_scoreboard`
    /// with Sack1 recovery and SACK agreed).
    fn sack1_keeps_ns2_scoreboard(&self) -> bool {
        self.d.recovery.sack1_scoreboard == Sack1Scoreboard::Ns2Cleared
            && self.sack_ok
            && matches!(self.rec, AnyRecovery::Sack1(_))
    }

    /// Whether an ACK of `ack` clears the scoreboard as ns-2's `Sack1TcpAgent::recv` does
    /// (`ScoreBoard::ClearScoreBoard`): an ACK of new data outside fast recovery, or the one
    /// that ends it (at or beyond `recover_`); a partial ACK in recovery does not.
    fn sack1_clears(&self, ack: Seq) -> bool {
        self.sack1_keeps_ns2_scoreboard()
            && ack > self.snd_una
            && match self.st.phase {
                Phase::Recovery { recover } => ack >= recover,
                _ => true,
            }
    }

    /// RFC 3042 §2 (ns-2 `TcpAgent::send_one`): one segment from snd_nxt, if it ends within
    /// the peer's window and within snd_una + cwnd + dupacks·SMSS.
    fn limited_transmit_one(&mut self, now: Time, out: &mut Outbox) {
        let s = self.snd_nxt;
        let mut len = self.avail_from(s).min(self.mss as u64) as u32;
        if s < self.snd_max {
            len = len.min(self.snd_max - s);
        }
        let end = (s + len) - self.snd_una;
        let allowance = self
            .st
            .cwnd
            .saturating_add(self.dupacks.saturating_mul(self.mss));
        if len == 0 || end > self.peer_wnd || end > allowance || end > self.send_buffer {
            return;
        }
        self.send_segment(now, s, len, out);
        self.snd_nxt = s + len;
        self.lt_bytes += len;
    }

    /// ssthresh after a loss under `cfg.ssthresh_rule = ns2` (ns-2 `TcpAgent::slowdown` with
    /// `CLOSE_SSTHRESH_HALF`): floor(min(cwnd, peer window) / 2) whole segments, at least 2.
    fn ns2_ssthresh(&self, cwnd: u32) -> u32 {
        let w = cwnd.min(self.peer_wnd) / self.mss;
        (w / 2).max(2) * self.mss
    }

    /// ns-2.35 `slowdown(CLOSE_CWND_HALF)`: cwnd_ = half of min(cwnd, peer window), in whole
    /// packets and at least one, or with `precision_reduce` (`precisionReduce_`) unrounded and
    /// at least one MSS (ns-2's `halfwin`). Shared by the fast retransmit (Sack1) and the ECN
    /// cut (`ns2_ecn_cut`).
    fn ns2_half_cwnd(&self, cwnd: u32) -> u32 {
        let win = cwnd.min(self.peer_wnd);
        if self.d.recovery.halving == Halving::Precise {
            (win / 2).max(self.mss)
        } else {
            (win / self.mss / 2).max(1) * self.mss
        }
    }

    /// RFC 5681 §3.2 step 2: fast retransmit on the DupThresh-th dupack; RFC 6675 §5 also
    /// when IsLost(HighACK + 1).
    /// ns-2 Sack1 (`Sack1TcpAgent::recv`): the DupThresh-th duplicate ACK only.
    fn maybe_fast_retransmit(&mut self, now: Time, out: &mut Outbox) {
        if self.rack.is_some() {
            // RACK: recovery starts when RACK marks a loss (Linux `tcp_time_to_recover`
            // skips the DupThresh heuristic with RACK), see `rack_on_ack`.
            return;
        }
        let sack_lost = || {
            self.sack_ok
                && !matches!(self.rec, AnyRecovery::Sack1(_))
                && self
                    .sb
                    .lost_boundary(self.snd_una, self.dupthresh, self.mss)
                    .0
                    > self.snd_una
        };
        if self.dupacks >= self.dupthresh || sack_lost() {
            self.enter_recovery(now, out);
        }
    }

    fn enter_recovery(&mut self, now: Time, out: &mut Outbox) {
        if let Some(h) = &mut self.hystart {
            // RFC 9406 §4.2: a loss ends slow start (and CSS) as usual.
            h.finish();
        }
        // RFC 5681 §3.2 step 2: FlightSize without the limited-transmit segments (RFC 3042).
        self.st.bytes_in_flight = (self.snd_max - self.snd_una).saturating_sub(self.lt_bytes);
        let cwnd_before = self.st.cwnd;
        // RFC 5681 §3.2 step 2 / RFC 6675 §5 step 4.2: ssthresh = max(FlightSize/2, 2 SMSS).
        self.cc.on_congestion(&mut self.st, Congestion::Loss);
        if self.d.recovery.ssthresh == SsthreshRule::Ns2 {
            self.st.ssthresh = self.ns2_ssthresh(cwnd_before);
            // ns-2 `slowdown` with `precisionReduce_`: halfwin = windowd() / 2, at least 1.
            self.halfwin = (cwnd_before.min(self.peer_wnd) / 2).max(self.mss);
        }
        self.st.bytes_in_flight = self.snd_max - self.snd_una;
        self.loss_recover = Some(self.snd_max);
        self.stats.fast_retransmits += 1;
        self.window_reduced();
        let recover = self.snd_max;
        match self.rec.enter(&mut self.st) {
            Entry::GoBackN => {
                self.st.phase = Phase::Loss { recover };
                self.snd_nxt = self.snd_una;
                self.timed_at = None;
                self.transmit_window(now, out);
            }
            Entry::FastRecovery => {
                self.st.phase = Phase::Recovery { recover };
                self.sb.high_rxt = self.snd_una;
                if self.d.rto.fast_retransmit_timing == FastRetransmitTiming::Stops {
                    // ns-2 `reset_rtx_timer(1, 0)`: `rtt_active_ = 0`.
                    self.timed_at = None;
                }
                if matches!(self.rec, AnyRecovery::Sack1(_)) {
                    self.sack1_enter(cwnd_before);
                }
                if self.samples && self.sack_ok {
                    // The controller may set the recovery window itself (BBR: Linux, ns-3
                    // TcpBbr).
                    let (lost, pipe) = self.lost_and_pipe();
                    self.sb.lost_mark = lost.0;
                    if !self.ack_from_recovery {
                        self.cc.enter_sack_recovery(&mut self.st, pipe);
                    }
                    // `cfg.bbr_recovery = linux`: recovery ended and starts again on the
                    // same ACK, which the controller sees as one recovery (it reads the
                    // state once per ACK): no new conservation round.
                }
                if matches!(self.rec, AnyRecovery::Prr(_)) {
                    self.prr_enter(now, out);
                } else {
                    // RFC 5681 §3.2 step 3 / RFC 6675 §5 step 4.3: retransmit the first
                    // segment.
                    self.retransmit_una(now, out);
                }
            }
        }
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// The full ACK that ended recovery, to the controller: ns-3.37's `ProcessAck` grows the
    /// window on it (`CubicNs3`); the other controllers ignore it. Out of line: once per
    /// recovery.
    #[cold]
    #[inline(never)]
    fn recovery_exit_ack(&mut self, now: Time, acked: u32) {
        let info = self.ack_info(now, acked);
        self.cc.on_recovery_exit_ack(&mut self.st, &info);
    }

    /// RFC 6937 DeliveredData of an ACK (cumulative ACK `ack`, `sacked_new` bytes newly
    /// SACKed; the scoreboard has taken its blocks): the bytes newly SACKed plus those it
    /// newly acknowledges cumulatively that were not SACKed before. For PRR only.
    #[cold]
    #[inline(never)]
    fn prr_note_delivered(&mut self, ack: Seq, sacked_new: u32) {
        let cum = if ack > self.snd_una {
            (ack - self.snd_una).saturating_sub(
                self.sb.sacked.covered_below(ack) - self.sb.sacked.covered_below(self.snd_una),
            )
        } else {
            0
        };
        if let AnyRecovery::Prr(p) = &mut self.rec {
            p.delivered = sacked_new + cum;
        }
    }

    /// RFC 6937 on an ACK during recovery: cwnd = pipe + sndcnt, pipe after the ACK.
    #[cold]
    #[inline(never)]
    fn prr_ack(&mut self) {
        let pipe = self.lost_and_pipe().1;
        if let AnyRecovery::Prr(p) = &mut self.rec {
            p.on_ack(&mut self.st, pipe);
        }
    }

    /// RFC 6937 on the ACK that starts recovery: RecoverFS = FlightSize, prr_delivered and
    /// prr_out from 0, cwnd = pipe + sndcnt for this ACK; then the fast retransmit (RFC 6675
    /// step 4.3, whatever sndcnt is), counted in prr_out.
    #[cold]
    #[inline(never)]
    fn prr_enter(&mut self, now: Time, out: &mut Outbox) {
        let flight = self.snd_max - self.snd_una;
        if let AnyRecovery::Prr(p) = &mut self.rec {
            p.begin(flight);
        }
        self.prr_ack();
        let before = self.stats.bytes_sent;
        self.retransmit_una(now, out);
        let sent = (self.stats.bytes_sent - before) as u32;
        if let AnyRecovery::Prr(p) = &mut self.rec {
            p.sent(sent);
        }
    }

    /// ns-2 `Sack1TcpAgent::dupack_action`: pipe_ = maxseq_ - highest_ack_ - numdupacks
    /// (outstanding packets less DupThresh; the retransmission is not counted), and under
    /// `ssthresh_rule = ns2` cwnd = half of min(cwnd, peer window) in whole packets, at least
    /// one (`slowdown(CLOSE_CWND_HALF)`; ssthresh has the floor of 2).
    fn sack1_enter(&mut self, cwnd_before: u32) {
        let outstanding = (self.snd_max - self.snd_una).div_ceil(self.mss);
        if let AnyRecovery::Sack1(r) = &mut self.rec {
            r.pipe = outstanding.saturating_sub(self.dupthresh);
        }
        if self.d.recovery.ssthresh == SsthreshRule::Ns2 {
            self.st.cwnd = self.ns2_half_cwnd(cwnd_before);
        }
    }

    /// The window state as a delivery-sampling controller's model sees it: with SACK, the
    /// bytes in flight are RFC 6675's pipe (SACKed and lost bytes left out; Linux
    /// `tcp_packets_in_flight`), and after a timeout only what go-back-N has resent
    /// (everything sent before it is taken as lost, as Linux `tcp_enter_loss` marks it).
    /// Without SACK, FlightSize.
    fn model_view(&self) -> CcState {
        let mut v = self.st;
        if !self.sack_ok {
            return v;
        }
        v.bytes_in_flight = match self.st.phase {
            _ if self.rack.is_some() => self.lost_and_pipe().1,
            Phase::Loss { .. } => {
                let sacked = self.sb.sacked.covered_below(self.snd_nxt);
                (self.snd_nxt - self.snd_una)
                    .saturating_sub(sacked)
                    .saturating_sub(self.rack_lost())
                    + self.ns3_rexmit_sacked()
            }
            Phase::Open | Phase::Disorder | Phase::Recovery { .. } => self.lost_and_pipe().1,
        };
        v
    }

    /// A delivery-sampling controller in SACK recovery: after each ACK it may set the window
    /// from the pipe and the bytes newly marked lost (the `sack_recovery_ack` hook). No-op
    /// without SACK.
    fn model_sack_recovery_ack(&mut self) {
        if !self.sack_ok {
            return;
        }
        let (lost, pipe) = self.lost_and_pipe();
        let newly = match &mut self.rack {
            Some(r) => r.take_newly_lost(),
            None => self.sb.newly_lost(self.snd_una, lost.0),
        };
        self.cc.sack_recovery_ack(&mut self.st, pipe, newly);
    }

    fn on_rto(&mut self, now: Time, out: &mut Outbox) {
        match self.state {
            SenderState::Closed => {}
            SenderState::SynSent => {
                // RFC 6298 §5.5: back off, and retransmit the SYN (not an RTT sample: Karn).
                self.stats.timeouts += 1;
                self.rtt.on_timeout();
                self.timed_at = None;
                self.send_syn(now, out);
            }
            SenderState::Established => {
                if self.snd_una == self.snd_max {
                    return;
                }
                self.stats.timeouts += 1;
                self.consecutive_timeouts += 1;
                if self.consecutive_timeouts >= self.max_timeouts {
                    // spec 1 §2.5: abort after `max_timeouts` timeouts without progress.
                    self.stats.aborted = true;
                    return;
                }
                self.st.bytes_in_flight = self.snd_max - self.snd_una;
                let old_ssthresh = self.st.ssthresh;
                let cwnd_before = self.st.cwnd;
                let keep = self.d.rto.ssthresh == RtoSsthresh::Recovery
                    && matches!(self.st.phase, Phase::Recovery { .. });
                if keep {
                    // `cfg.rto_ssthresh = recovery` (Linux `tcp_enter_loss`): the ssthresh
                    // set on entering recovery stands, within RFC 5681 §3.1's "no more
                    // than" eq. 4; only the loss window (cwnd = 1 SMSS).
                    self.cc
                        .on_congestion(&mut self.st, Congestion::RecoveryTimeout);
                } else {
                    if self.d.rto.ssthresh == RtoSsthresh::Pipe && self.sack_ok {
                        // `cfg.rto_ssthresh = pipe` (ns-3.37 `ReTxTimeout`): the rule below
                        // applies to RFC 6675's pipe before the timeout.
                        self.st.bytes_in_flight = self.lost_and_pipe().1;
                    }
                    // RFC 5681 §3.1 eq. 4 and the loss window (cwnd = 1 SMSS).
                    self.cc.on_congestion(&mut self.st, Congestion::Timeout);
                    self.st.bytes_in_flight = self.snd_max - self.snd_una;
                }
                self.loss_recover = Some(self.snd_max);
                self.lt_bytes = 0;
                if let Some(h) = &mut self.hystart {
                    h.finish();
                }
                if keep {
                    debug_assert_eq!(self.st.ssthresh, old_ssthresh);
                } else if self.d.recovery.ssthresh == SsthreshRule::Ns2 {
                    // ns-2 `TcpAgent::timeout`: cut on every expiry.
                    self.st.ssthresh = self.ns2_ssthresh(cwnd_before);
                } else if self.last_rto_una == Some(self.snd_una) {
                    // RFC 5681 §3.1: a segment retransmitted by the timer timed out again.
                    self.st.ssthresh = old_ssthresh;
                }
                self.last_rto_una = Some(self.snd_una);
                self.window_reduced();
                // RFC 6298 §5.5: back off the timer.
                self.rtt.on_timeout();
                if (self.samples
                    || self.d.rto.scoreboard == TimeoutScoreboard::Keep
                    || self.rack.is_some())
                    && self.sack_ok
                {
                    // BBR (and `cfg.keep_sack_on_timeout`) keeps the SACKed ranges across a
                    // timeout (Linux `tcp_enter_loss`
                    // keeps SACKed marks; ns-3 `TcpTxBuffer::SetSentListLost` keeps SACKed
                    // items unless reneging): go-back-N skips them, so the resend after a
                    // timeout is not spent on data the receiver holds, which BBR's delivery
                    // rate (each segment counted once) would see as a collapse.
                    self.sb.high_rxt = self.snd_una;
                    if let Some(lr) = &mut self.lost_rtx {
                        lr.restart(self.snd_una);
                    }
                    if let Some(r) = &mut self.rack {
                        // RFC 8985 §6.3, Linux `tcp_timeout_mark_lost`.
                        r.mark_all_lost();
                    }
                } else {
                    // spec 3 §2.3: the scoreboard is cleared on timeout.
                    self.sb.clear(self.snd_una);
                }
                self.st.phase = Phase::Loss {
                    recover: self.snd_max,
                };
                self.dupacks = 0;
                // Go-back-N from snd_una (spec 3 §2.2); RFC 6298 §5.4 retransmits the first.
                self.snd_nxt = self.snd_una;
                self.timed_at = None;
                if let Some(n) = &mut self.ns3 {
                    // ns-3.37 `ReTxTimeout`: `m_history.clear()`, and
                    // `SetSentListLost` clears every item's `m_retrans`.
                    if let Some(h) = &mut n.rtt_hist {
                        h.clear();
                    }
                    if let Some(r) = &mut n.rexmit_sacked {
                        r.clear();
                    }
                }
                self.rto_at = None;
                self.transmit(now, out);
                // RFC 6298 §5.6: the timer restarts with the backed-off RTO.
                self.rto_at = Some(now + self.rtt.rto());
            }
        }
    }

    fn check_invariants(&self) {
        debug_assert!(self.snd_una <= self.snd_nxt, "snd_una > snd_nxt");
        debug_assert!(self.snd_nxt <= self.snd_max, "snd_nxt > snd_max");
        debug_assert!(
            self.st.cwnd >= self.mss,
            "cwnd below one MSS: {}",
            self.st.cwnd
        );
    }
}

impl Endpoint for TcpSender {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) {
        let Some(h) = pkt.tcp() else {
            return;
        };
        match self.state {
            SenderState::Closed => {}
            SenderState::SynSent => self.on_syn_ack(now, h, out),
            SenderState::Established => {
                if h.flags.contains(TcpFlags::ACK) && !h.flags.contains(TcpFlags::SYN) {
                    self.on_ack(now, h, out);
                }
            }
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Outbox) {
        if self.rack.is_some() {
            self.rack_timers(now, out);
        }
        if let Some(t) = self.rto_at {
            if t <= now {
                self.rto_at = None;
                self.on_rto(now, out);
            }
        }
        if let Some(o) = self
            .overhead
            .as_mut()
            .filter(|o| o.at.is_some_and(|t| t <= now))
        {
            // ns-2 `timeout_nonrtx(TCP_TIMER_DELSND)`: send_much with `force` set.
            o.at = None;
            self.transmit_now(now, out);
        }
        if self.app.next_wakeup().is_some_and(|t| t <= now) {
            // New application data (a frame source's next block, spec 1 §2.4).
            self.app.advance(now, self.stats.bytes_acked);
            self.transmit(now, out);
        }
        if self.cc.pacing_wakeup().is_some_and(|t| t <= now) {
            // Pacing let the next segments go.
            self.cc.pacing_unblock();
            self.transmit(now, out);
        }
        if self.rack.is_some() {
            self.tlp_arm(now);
        }
    }

    fn next_timeout(&self) -> Option<Time> {
        let t = match (self.rto_at, self.app.next_wakeup()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if !self.timer_opts {
            return t;
        }
        let t = match (t, self.overhead.as_ref().and_then(|o| o.at)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let t = match (t, self.cc.pacing_wakeup()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match (t, self.rack.as_deref().and_then(Rack::next_timer)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

impl TcpSender {
    /// The application stops offering new data at `now` ([`AppSource::stop`]): what was
    /// already sent is still delivered (and retransmitted as needed), nothing new is sent. A
    /// finite transfer keeps its own end if that comes first.
    pub fn stop_app(&mut self, now: Time) {
        self.app.stop(now);
    }

    /// The application (its counters, e.g. a frame source's pauses).
    pub fn app(&self) -> &AppSource {
        &self.app
    }

    /// The variant this sender runs.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The bytes in flight as the loss phase's window counts them (`model_view`), for tests.
    #[cfg(test)]
    pub(super) fn model_flight(&self) -> u32 {
        self.model_view().bytes_in_flight
    }
}

/// RACK-TLP (RFC 8985; `cfg.loss_detection`), out of line: none of it runs by default.
impl TcpSender {
    /// After an ACK's SACK blocks, cumulative ACK and phase changes (RACK took their
    /// deliveries, §6.2 steps 1-3, on the way): the TLP episode (§7.4), loss detection (§6.2 step 5) and, on a loss outside
    /// recovery and the loss phase, fast recovery (Linux `tcp_time_to_recover`: "the loss is
    /// proven").
    #[cold]
    #[inline(never)]
    fn rack_on_ack(&mut self, now: Time, advanced: bool, sacked_new: u32, out: &mut Outbox) {
        let una = self.snd_una;
        let open = matches!(self.st.phase, Phase::Open | Phase::Disorder);
        let srtt = self.rtt.srtt().unwrap_or(Dur::from_secs(1));
        let dupthresh = self.dupthresh;
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        // §7.4 (Linux `tcp_process_tlp_ack`): an ACK at or beyond TLP.end_seq ends the
        // episode; one beyond it after a retransmitted probe means the probe repaired a loss.
        let mut tlp_loss = false;
        if let Some((end, retrans)) = r.tlp {
            if una >= end {
                if !retrans {
                    r.tlp = None;
                } else if una > end {
                    r.tlp = None;
                    tlp_loss = true;
                } else if !advanced && sacked_new == 0 {
                    // A pure duplicate ACK: the original and the probe both arrived.
                    r.tlp = None;
                }
            }
        }
        let reo = r.reo_wnd(!open, r.sacked_segs(), dupthresh, srtt);
        let lost = r.detect_loss(now, reo);
        // `recovery_entry = "lost_out"` (Linux `tcp_time_to_recover`: `lost_out`): a segment
        // marked lost earlier is still outstanding, e.g. the retransmission in flight when
        // the ACK that ended the last recovery came; `retransmit_una` then resends nothing.
        let proven =
            lost > 0 || (self.d.recovery.entry == RecoveryEntry::LostOut && r.lost_out() > 0);
        if tlp_loss && open {
            r.tlp_recoveries += 1;
            self.tlp_response();
        }
        if proven && matches!(self.st.phase, Phase::Open | Phase::Disorder) {
            self.enter_recovery(now, out);
        }
    }

    /// §7.4.2 (Linux `tcp_process_tlp_ack`: `tcp_init_cwnd_reduction`, CWR,
    /// `tcp_end_cwnd_reduction`): the probe repaired a loss, so the window is reduced once,
    /// as for an ECN echo (ssthresh by the controller's rule, cwnd = ssthresh). A controller
    /// that sets its own window from its model (BBR) is left alone, as Linux's
    /// `cong_control` BBR is.
    fn tlp_response(&mut self) {
        if self.samples {
            return;
        }
        self.st.bytes_in_flight = self.snd_max - self.snd_una;
        self.cc.on_congestion(&mut self.st, Congestion::Ecn);
        self.window_reduced();
    }

    /// §7.2 (Linux `tcp_schedule_loss_probe`): with data outstanding, outside recovery and
    /// the loss phase and with no probe outstanding, the PTO is 2·SRTT (1 s before any
    /// sample), plus the worst-case delayed ACK (200 ms) when one segment is in flight, and
    /// never later than the RTO.
    #[cold]
    #[inline(never)]
    fn tlp_arm(&mut self, now: Time) {
        let flight = self.snd_max - self.snd_una;
        let open = matches!(self.st.phase, Phase::Open | Phase::Disorder);
        let srtt = self.rtt.srtt();
        let (mss, rto_at) = (self.mss, self.rto_at);
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        r.tlp_at = None;
        if !r.tlp_on || r.tlp.is_some() || !open || flight == 0 {
            return;
        }
        let pto = match srtt {
            Some(s) if flight <= mss => s.double() + Dur::from_millis(200),
            Some(s) => s.double(),
            None => Dur::from_secs(1),
        };
        let at = now + pto;
        r.tlp_at = Some(rto_at.map_or(at, |t| t.min(at)));
    }

    /// The reordering timer (§6.3, Linux `tcp_rack_reo_timeout`) and the PTO (§7.3, Linux
    /// `tcp_send_loss_probe`), whichever is due.
    #[cold]
    #[inline(never)]
    fn rack_timers(&mut self, now: Time, out: &mut Outbox) {
        let open = matches!(self.st.phase, Phase::Open | Phase::Disorder);
        let srtt = self.rtt.srtt().unwrap_or(Dur::from_secs(1));
        let dupthresh = self.dupthresh;
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        if r.reo_at.is_some_and(|t| t <= now) {
            let reo = r.reo_wnd(!open, r.sacked_segs(), dupthresh, srtt);
            if r.detect_loss(now, reo) > 0 {
                if open {
                    self.enter_recovery(now, out);
                }
                self.transmit(now, out);
            }
        }
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        if r.tlp_at.is_some_and(|t| t <= now) {
            r.tlp_at = None;
            self.tlp_send(now, out);
        }
    }

    /// §7.3: the probe is a new segment if there is one and the peer's window allows it, else
    /// the highest unSACKed segment again; TLP.end_seq = snd_max after it; the RTO restarts.
    fn tlp_send(&mut self, now: Time, out: &mut Outbox) {
        if !matches!(self.st.phase, Phase::Open | Phase::Disorder)
            || self.snd_una == self.snd_max
            || !self.may_transmit()
        {
            return;
        }
        let s = self.snd_max;
        let len = self.avail_from(s).min(self.mss as u64) as u32;
        let retrans = if len > 0 && (s + len) - self.snd_una <= self.peer_wnd.min(self.send_buffer)
        {
            let at_max = self.snd_nxt == s;
            self.send_segment(now, s, len, out);
            if at_max {
                self.snd_nxt = self.snd_max;
            }
            false
        } else if let Some((s, len)) = self.rack.as_deref().and_then(Rack::last_unsacked) {
            self.send_segment(now, s, len.min(self.mss), out);
            true
        } else {
            return;
        };
        if let Some(r) = self.rack.as_deref_mut() {
            r.tlp = Some((self.snd_max, retrans));
            r.probes += 1;
        }
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// RACK-TLP counters (tail loss probes sent, TLP episodes that reduced the window), for
    /// tests.
    #[cfg(test)]
    pub(super) fn tlp_counts(&self) -> (u64, u64) {
        self.rack
            .as_deref()
            .map_or((0, 0), |r| (r.probes, r.tlp_recoveries))
    }
}

/// HyStart++ (RFC 9406; `cfg.slow_start`), out of line.
impl TcpSender {
    /// An ACK of new data in the initial slow start: HyStart++ decides its growth (§4.2):
    /// slow start's, a quarter of it in CSS, or none but the move to congestion avoidance
    /// (ssthresh = cwnd; the controller then grows the window as in avoidance).
    #[cold]
    #[inline(never)]
    fn hystart_step(&mut self, info: &mut AckInfo, ack: Seq, rtt: Option<Dur>) {
        let Some(h) = self.hystart.as_deref_mut() else {
            return;
        };
        match h.on_ack(ack, self.snd_max, rtt) {
            SsStep::SlowStart => {}
            SsStep::Css => info.acked = info.acked.min(self.mss) / CSS_GROWTH_DIVISOR,
            SsStep::Exit => self.st.ssthresh = self.st.cwnd,
        }
    }

    /// Whether HyStart++ is in Conservative Slow Start, for tests.
    #[cfg(test)]
    pub(super) fn in_css(&self) -> bool {
        self.hystart.as_deref().is_some_and(HyStartPp::in_css)
    }
}
