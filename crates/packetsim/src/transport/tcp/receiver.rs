//! The TCP receiver endpoint: answers the SYN (LISTEN → ESTABLISHED; the SYN-ACK is resent
//! for every SYN), buffers out-of-order data as sorted ranges, delivers in-order bytes, and
//! acknowledges:
//! - every segment by default; with `cfg.delayed_ack`, every second in-order segment or when
//!   the delay expires (RFC 5681 §4.2; RFC 1122 §4.2.3.2);
//! - with `cfg.ack_window_update` and delayed ACK, also at once when the in-order bytes just
//!   delivered (the application reads at once, so the window reopens by as much) reach
//!   min(MSS, rcv_window/2) (RFC 1122 §4.2.3.3 window update; spec 1 §2.6);
//! - with `cfg.ack_policy = linux`, as Linux does (`net/ipv4/tcp_input.c`), instead of
//!   `cfg.delayed_ack`: see [Linux's ACK policy](#linuxs-ack-policy) below;
//! - at once for an out-of-order or duplicate segment, and for one that fills a hole
//!   (RFC 5681 §4.2);
//! - with SACK blocks when negotiated (RFC 2018 §4: the first block holds the segment that
//!   triggered the ACK, then the most recently reported other blocks);
//! - with `cfg.dsack` and SACK negotiated, a D-SACK block first (RFC 2883 §4; Linux
//!   `tcp_dsack_set`): the range of a segment that carried only bytes already received (below
//!   rcv_nxt, or all inside one out-of-order block), or the part below rcv_nxt of a segment
//!   that straddles it; reported once, on the ACK that the segment triggers. A partial overlap
//!   with out-of-order data is not reported (Linux's `tcp_dsack_extend` is not modelled).
//! - echoing TS.Recent, updated per RFC 7323 §4.3 (TSval of a segment that covers
//!   Last.ACK.sent).
//!
//! - with ECE, when ECN was negotiated (RFC 3168 §6.1.1: the SYN had ECE and CWR and
//!   `cfg.ecn` is set; the SYN-ACK then carries ECE), on every ACK from a CE data segment
//!   until a data segment with CWR arrives (§6.1.3; a CE mark on that segment starts the
//!   echo again). A CE segment is acknowledged at once even with delayed ACK (§6.1.3
//!   recommends it). ACKs are never ECT (§6.1.4).
//!   With `cfg.ecn_echo = per_segment` (RFC 8257 §3.2, for DCTCP) the receiver keeps
//!   DCTCP.CE, the CE mark of the last data segment, and sets ECE on an ACK exactly when it
//!   is set; CWR is ignored. A CE segment is not acknowledged at once for its mark; instead,
//!   with delayed ACK, a segment whose mark differs from DCTCP.CE first makes the receiver
//!   acknowledge the segments before it (if any wait) with the old ECE, so every ACK
//!   covers segments of one mark only.
//!
//! - three times (`cfg.reconnection_acks`) at once, identically, when a link at its node comes
//!   up (`Notice::LinkUp`) and the connection is established: Triplicate Reconnection ACKs
//!   (spec 2 §2.4, Freeze-TCP) of `rcv_nxt` with the current window; SACK blocks, ECE and
//!   timestamps as on any ACK. A pending delayed ACK is subsumed. Off (0) by default.
//!
//! # Linux's ACK policy
//!
//! `ack_policy = "linux"` follows Linux 6.x (`net/ipv4/tcp_input.c`, `tcp_timer.c`, constants
//! from `include/net/tcp.h`), read for behaviour, not copied:
//! - the receiver's RTT estimate is the handshake's, from the SYN-ACK to the first in-order
//!   segment after it (`tcp_synack_rtt_meas`, which samples the handshake's ACK); its RTO is then RTT + max(2 RTT, 200 ms)
//!   (`tcp_rtt_estimator`'s first sample, `__tcp_set_rto`), 1 s before (`TCP_TIMEOUT_INIT`);
//! - rcv_mss starts at 536 bytes (`tcp_initialize_rcv_mss`) and becomes the largest segment
//!   seen, at most `mss` (`tcp_measure_rcv_mss`); a shorter segment marks the ACK as pushed;
//! - each in-order segment (`tcp_event_data_recv`): the first one starts quick-ACK mode
//!   (`tcp_incr_quickack` with `TCP_MAX_QUICKACKS` 16: min(16, window / (2 rcv_mss)) ACKs,
//!   at least 2) and sets ato = 40 ms (`TCP_ATO_MIN`); later ones adapt ato to the
//!   inter-arrival time m: m <= 20 ms gives ato/2 + 20 ms, m < ato gives min(ato/2 + m, RTO),
//!   and m > RTO (a restart after idle) quick-ACK mode again;
//! - a duplicate segment enters quick-ACK mode (`tcp_data_queue` → `tcp_enter_quickack_mode`,
//!   ato = 40 ms) and is acknowledged at once;
//! - then (`__tcp_ack_snd_check`) an ACK at once when more than rcv_mss bytes arrived since
//!   the last ACK (every second full segment), in quick-ACK mode, or while or just after data
//!   was out of order; otherwise the delayed-ACK timer (`tcp_send_delayed_ack`): ato, capped
//!   (when above 40 ms, `TCP_DELACK_MIN`) at 500 ms, 200 ms (`TCP_DELACK_MAX`) for a pushed
//!   ACK, and at max(RTT, 40 ms); a timer already set keeps its earlier deadline, and if that
//!   deadline is within a quarter of the new ato the ACK goes at once;
//! - each ACK sent counts down quick-ACK mode (`tcp_dec_quickack_mode`, leaving it with ato =
//!   40 ms); a timer that fires doubles ato, at most the RTO (`tcp_delack_timer_handler`).
//!
//! Not modelled: SACK compression (`net.ipv4.tcp_comp_sack_*`, Linux 4.18+: after three
//! immediate duplicate ACKs for the same rcv_nxt, further SACKs wait up to 5% of the RTT or
//! 1 ms), interactive (ping-pong) mode (the receiver sends no data), receive-buffer autotuning.
//!
//! The advertised window comes from a `WindowPolicy` (`window.rs`), told of every arriving
//! segment (`on_segment`) before the receiver handles it. The receiver is generic over its
//! policy, `AnyWindow` by default (the built-ins, enum dispatch); tests plug in their own.

use super::ranges::RangeSet;
use super::window::{AnyWindow, WindowPolicy};
use super::{AckPolicy, EcnEcho, TcpConfig};
use crate::ids::Addr;
use crate::packet::{Body, Ecn, Packet, SackBlocks, Seq, TcpFlags, TcpHeader, Timestamps};
use crate::transport::{Endpoint, Notice, Outbox};
use packetsim_kernel::{Dur, Time};

/// Counters of a TCP receiver.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReceiverStats {
    /// Payload bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Data segments received (including duplicates and out-of-order ones).
    pub segments_received: u64,
    /// Data segments that carried only bytes already received.
    pub duplicate_segments: u64,
    /// ACKs sent.
    pub acks_sent: u64,
    /// Data segments that arrived above a hole (out of order).
    pub out_of_order_segments: u64,
    /// Data segments that arrived marked CE (RFC 3168).
    pub ce_received: u64,
    /// Data segments that advanced the cumulative point (in order, new bytes).
    pub in_order_segments: u64,
}

/// ECN at the receiver (RFC 3168 §6.1.1, §6.1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReceiverEcn {
    /// Not configured, or the SYN did not ask for it.
    Off,
    /// Configured; waiting for an ECN-setup SYN.
    Willing,
    /// Configured with `ecn_echo = per_segment`; waiting for an ECN-setup SYN.
    WillingPerSegment,
    /// Negotiated, RFC 3168 echo.
    On {
        /// Set ECE on every ACK (a CE segment arrived since the last CWR segment).
        echo: bool,
    },
    /// Negotiated, RFC 8257 §3.2 per-segment echo.
    PerSegment {
        /// DCTCP.CE: whether the last data segment received was CE; ECE on ACKs iff set.
        ce: bool,
    },
}

/// How in-order data is acknowledged (`cfg.delayed_ack`, `cfg.ack_policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckMode {
    /// Every segment.
    Every,
    /// Every second segment or after this delay (RFC 5681 §4.2).
    Delayed(Dur),
    /// Linux's quick-ACK mode and delayed-ACK timer (module doc).
    Linux,
}

/// `TCP_ATO_MIN` and `TCP_DELACK_MIN` (HZ / 25).
const LX_ATO_MIN: Dur = Dur::from_millis(40);
/// `TCP_DELACK_MAX` (HZ / 5).
const LX_DELACK_MAX: Dur = Dur::from_millis(200);
/// `tcp_send_delayed_ack`'s cap on ato when the ACK is not pushed (HZ / 2).
const LX_ATO_MAX: Dur = Dur::from_millis(500);
/// `TCP_MAX_QUICKACKS`.
const LX_MAX_QUICKACKS: u32 = 16;
/// `TCP_MSS_DEFAULT`: rcv_mss before a segment is seen.
const LX_MSS_DEFAULT: u32 = 536;
/// `TCP_MIN_MSS`.
const LX_MIN_MSS: u32 = 88;

/// `d / 2` (Linux's `>> 1`).
fn half(d: Dur) -> Dur {
    Dur(d.0 / 2)
}

/// Linux's delayed-ACK state (`struct inet_connection_sock`'s `icsk_ack`).
#[derive(Clone, Copy, Debug)]
struct LinuxAck {
    /// `icsk_ack.quick`: ACKs still to send at once.
    quick: u32,
    /// `icsk_ack.ato`: the delayed-ACK timeout; zero before the first in-order segment.
    ato: Dur,
    /// `icsk_ack.lrcvtime`: arrival of the last in-order segment.
    lrcvtime: Time,
    /// `icsk_ack.rcv_mss`.
    rcv_mss: u32,
    /// `icsk_ack.last_seg_size`.
    last_seg_size: u32,
    /// `ICSK_ACK_PUSHED`: a segment shorter than rcv_mss since the last ACK.
    pushed: bool,
    /// `tp->rcv_wup`: rcv_nxt when the last ACK was sent.
    rcv_wup: Seq,
    /// `tp->rcv_wnd`: the window last advertised.
    rcv_wnd: u32,
    /// The largest segment the sender sends (`tp->advmss`).
    advmss: u32,
    /// When the last SYN-ACK was sent.
    synack_at: Time,
    /// The handshake RTT (`tp->srtt_us`), once sampled.
    srtt: Option<Dur>,
}

impl LinuxAck {
    /// `icsk_rto` after the handshake's one sample (`tcp_rtt_estimator`: mdev = 2 RTT,
    /// rttvar = max(mdev, `TCP_RTO_MIN`); `__tcp_set_rto`: srtt + rttvar), else
    /// `TCP_TIMEOUT_INIT`.
    fn rto(&self) -> Dur {
        match self.srtt {
            None => Dur::from_secs(1),
            Some(r) => r + (r + r).max(Dur::from_millis(200)),
        }
    }

    /// `tcp_incr_quickack`.
    fn incr_quickack(&mut self, max: u32) {
        let mut q = self.rcv_wnd / (2 * self.rcv_mss);
        if q == 0 {
            q = 2;
        }
        self.quick = self.quick.max(q.min(max));
    }

    /// `tcp_measure_rcv_mss` for a segment of `len` payload bytes.
    fn measure_rcv_mss(&mut self, len: u32) {
        let lss = self.last_seg_size;
        self.last_seg_size = 0;
        if len >= self.rcv_mss {
            self.rcv_mss = len.min(self.advmss);
        } else {
            if len >= LX_MIN_MSS {
                self.last_seg_size = len;
                if len == lss {
                    self.rcv_mss = len;
                    return;
                }
            }
            self.pushed = true;
        }
    }
}

/// The receiver's optional ACK state (boxed: most runs use neither).
#[derive(Clone, Copy, Debug)]
struct AckExt {
    /// Linux's ACK state (read with `AckMode::Linux` only).
    lx: LinuxAck,
    /// D-SACK configured (`cfg.dsack`).
    dsack_on: bool,
    /// The D-SACK block of the next ACK (RFC 2883).
    dsack: Option<(Seq, Seq)>,
}

/// A TCP receiver whose advertised window comes from `W`.
pub struct TcpReceiver<W: WindowPolicy = AnyWindow> {
    local: Addr,
    remote: Addr,
    /// Whether a SYN has been received.
    established: bool,
    /// Next in-order sequence number expected.
    rcv_nxt: Seq,
    /// Out-of-order data above `rcv_nxt`.
    ooo: RangeSet,
    want_sack: bool,
    want_ts: bool,
    sack_ok: bool,
    ts_ok: bool,
    max_sack_blocks: u8,
    /// ACKs count their header bytes as ns-2 does (`cfg.ns2_header_sizes`).
    ns2_len: bool,
    /// TS.Recent (RFC 7323 §4.3).
    ts_recent: Time,
    /// The ACK number last sent (Last.ACK.sent).
    last_ack_sent: Seq,
    /// A byte inside each recently reported SACK block, most recent first (RFC 2018 §4).
    sack_hist: [Seq; SackBlocks::MAX],
    sack_hist_len: u8,
    window: W,
    ack_mode: AckMode,
    /// Linux's ACK state and D-SACK; boxed, `None` unless `ack_policy = linux` or `dsack`.
    ext: Option<Box<AckExt>>,
    /// With delayed ACK, ACK at once when delivery reopens the window by this many bytes
    /// (`cfg.ack_window_update`: min(MSS, rcv_window/2); u32::MAX: off).
    window_update: u32,
    /// In-order segments received and not yet acknowledged (delayed ACK).
    unacked_segments: u32,
    /// Delayed-ACK deadline.
    ack_at: Option<Time>,
    ecn: ReceiverEcn,
    /// Identical ACKs sent when a link comes up (spec 2 §2.4); 0: none.
    reconnection_acks: u8,
    stats: ReceiverStats,
}

impl TcpReceiver {
    /// A receiver at `local` for a connection from `remote`, advertising the window of the
    /// policy `cfg` selects (`AnyWindow::from_config`: the fixed `cfg.rcv_window` unless
    /// `cfg.bs_buffer` is set).
    pub fn new(cfg: &TcpConfig, local: Addr, remote: Addr) -> TcpReceiver {
        let window = AnyWindow::from_config(cfg);
        TcpReceiver::with_window(cfg, local, remote, window)
    }
}

impl<W: WindowPolicy> TcpReceiver<W> {
    /// A receiver at `local` for a connection from `remote` whose advertised window comes
    /// from `window`.
    pub fn with_window(cfg: &TcpConfig, local: Addr, remote: Addr, window: W) -> TcpReceiver<W> {
        TcpReceiver {
            local,
            remote,
            established: false,
            rcv_nxt: Seq(0),
            ooo: RangeSet::new(),
            want_sack: cfg.offers_sack(),
            want_ts: cfg.timestamps,
            sack_ok: false,
            ts_ok: false,
            max_sack_blocks: cfg.sack_blocks.clamp(1, SackBlocks::MAX as u32) as u8,
            ns2_len: cfg.ns2_header_sizes,
            ts_recent: Time::ZERO,
            last_ack_sent: Seq(0),
            sack_hist: [Seq(0); SackBlocks::MAX],
            sack_hist_len: 0,
            window,
            ack_mode: match (cfg.ack_policy, cfg.delayed_ack) {
                (AckPolicy::Linux, _) => AckMode::Linux,
                (AckPolicy::Standard, Some(d)) => AckMode::Delayed(d),
                (AckPolicy::Standard, None) => AckMode::Every,
            },
            ext: (cfg.ack_policy == AckPolicy::Linux || cfg.dsack).then(|| {
                Box::new(AckExt {
                    lx: LinuxAck {
                        quick: 0,
                        ato: Dur::ZERO,
                        lrcvtime: Time::ZERO,
                        rcv_mss: LX_MSS_DEFAULT.min(cfg.mss).max(LX_MIN_MSS.min(cfg.mss)),
                        last_seg_size: 0,
                        pushed: false,
                        rcv_wup: Seq(0),
                        rcv_wnd: 0,
                        advmss: cfg.mss,
                        synack_at: Time::ZERO,
                        srtt: None,
                    },
                    dsack_on: cfg.dsack,
                    dsack: None,
                })
            }),
            window_update: if cfg.ack_window_update {
                (cfg.mss as u64).min(cfg.rcv_window / 2) as u32
            } else {
                u32::MAX
            },
            unacked_segments: 0,
            ack_at: None,
            ecn: match (cfg.ecn, cfg.ecn_echo) {
                (false, _) => ReceiverEcn::Off,
                (true, EcnEcho::Rfc3168) => ReceiverEcn::Willing,
                (true, EcnEcho::PerSegment) => ReceiverEcn::WillingPerSegment,
            },
            reconnection_acks: cfg.reconnection_acks.min(u8::MAX as u32) as u8,
            stats: ReceiverStats::default(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// Next in-order sequence number expected.
    pub fn rcv_nxt(&self) -> Seq {
        self.rcv_nxt
    }

    /// Bytes held out of order.
    pub fn out_of_order_bytes(&self) -> u32 {
        self.ooo.total()
    }

    /// The window policy.
    pub fn window(&self) -> &W {
        &self.window
    }

    fn on_syn(&mut self, now: Time, h: &TcpHeader, out: &mut Outbox) {
        if !self.established {
            self.established = true;
            self.rcv_nxt = h.seq + 1;
            self.sack_ok = self.want_sack && h.sack_permitted;
            self.ts_ok = self.want_ts && h.ts.is_some();
            // RFC 3168 §6.1.1: an ECN-setup SYN has both ECE and CWR.
            let setup = h.flags.contains(TcpFlags::ECE | TcpFlags::CWR);
            self.ecn = match self.ecn {
                ReceiverEcn::Willing if setup => ReceiverEcn::On { echo: false },
                ReceiverEcn::WillingPerSegment if setup => ReceiverEcn::PerSegment { ce: false },
                _ => ReceiverEcn::Off,
            };
        }
        if let (true, Some(ts)) = (self.ts_ok, h.ts) {
            self.ts_recent = self.ts_recent.max(ts.val);
        }
        let wnd = self.window.advertised(now, self.ooo.total());
        // RFC 3168 §6.1.1: the ECN-setup SYN-ACK has ECE set and CWR clear.
        let ece = match self.ecn {
            ReceiverEcn::On { .. } | ReceiverEcn::PerSegment { .. } => TcpFlags::ECE,
            ReceiverEcn::Off | ReceiverEcn::Willing | ReceiverEcn::WillingPerSegment => {
                TcpFlags::NONE
            }
        };
        let hdr = TcpHeader {
            seq: Seq(0),
            ack: self.rcv_nxt,
            flags: TcpFlags::SYN | TcpFlags::ACK | ece,
            wnd,
            payload: 0,
            sack_permitted: self.sack_ok,
            sack: SackBlocks::default(),
            ts: self.ts_ok.then_some(Timestamps {
                val: now,
                ecr: self.ts_recent,
            }),
            ns2_len: self.ns2_len,
        };
        self.last_ack_sent = self.rcv_nxt;
        if let Some(x) = &mut self.ext {
            x.lx.synack_at = now;
            x.lx.rcv_wnd = wnd;
            x.lx.rcv_wup = self.rcv_nxt;
        }
        self.stats.acks_sent += 1;
        out.send(Packet::new(self.local, self.remote, Body::Tcp(hdr)));
    }

    fn on_data(&mut self, now: Time, h: &TcpHeader, ecn: Ecn, out: &mut Outbox) {
        self.stats.segments_received += 1;
        let ce = ecn == Ecn::Ce;
        if ce {
            self.stats.ce_received += 1;
        }
        if let ReceiverEcn::On { echo } = &mut self.ecn {
            // RFC 3168 §6.1.3: CWR ends the echo; a CE mark (even on the CWR segment) starts it.
            if h.flags.contains(TcpFlags::CWR) {
                *echo = false;
            }
            if ce {
                *echo = true;
            }
        }
        if let ReceiverEcn::PerSegment { ce: state } = self.ecn {
            if state != ce {
                // RFC 8257 §3.2: the CE state changes; segments received before this one and
                // not yet acknowledged are acknowledged at once, with the old ECE.
                if self.unacked_segments > 0 {
                    self.ack_lx(now, None, out);
                }
                self.ecn = ReceiverEcn::PerSegment { ce };
            }
        }
        // RFC 3168 §6.1.3 acknowledges a CE segment at once; RFC 8257 §3.2 does not (the
        // change of state above already did what is needed).
        let ce_at_once = ce && !matches!(self.ecn, ReceiverEcn::PerSegment { .. });
        let l = h.seq;
        let r = h.seq + h.payload;
        // RFC 7323 §4.3 (R3): remember TSval if the segment covers Last.ACK.sent.
        if let (true, Some(ts)) = (self.ts_ok, h.ts) {
            if l <= self.last_ack_sent && ts.val >= self.ts_recent {
                self.ts_recent = ts.val;
            }
        }
        if r <= self.rcv_nxt {
            // Every byte already delivered: a duplicate; ACK at once (RFC 5681 §4.2).
            self.stats.duplicate_segments += 1;
            self.set_dsack(l, r);
            if self.ack_mode == AckMode::Linux {
                // `tcp_data_queue`: old data enters quick-ACK mode (`tcp_enter_quickack_mode`).
                let lx = self.lx();
                lx.incr_quickack(LX_MAX_QUICKACKS);
                lx.ato = LX_ATO_MIN;
            }
            self.ack_lx(now, None, out);
        } else if l <= self.rcv_nxt {
            // In order (possibly overlapping what was delivered).
            let had_hole = !self.ooo.is_empty();
            let before = self.rcv_nxt;
            if l < before {
                // RFC 2883 §4 (Linux `tcp_data_queue`: `tcp_dsack_set(seq, rcv_nxt)`).
                self.set_dsack(l, before);
            }
            self.rcv_nxt = r;
            while let Some((ol, or)) = self.ooo.first() {
                if ol > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(or);
                self.ooo.remove_below(or);
            }
            let n = (self.rcv_nxt - before) as u64;
            self.stats.in_order_segments += 1;
            out.delivered_bytes += n;
            self.stats.bytes_delivered += n;
            match self.ack_mode {
                AckMode::Linux => self.linux_in_order(now, h.payload, had_hole || ce_at_once, out),
                // RFC 5681 §4.2: ACK at once when the segment fills (part of) a hole;
                // RFC 3168 §6.1.3: and when it was marked CE.
                AckMode::Delayed(d) if !had_hole && !ce_at_once => {
                    self.unacked_segments += 1;
                    // RFC 1122 §4.2.3.3 (spec 1 §2.6): the application reads at once, so the
                    // window reopens by `n`; a large enough update is sent at once.
                    if self.unacked_segments >= 2 || n >= self.window_update as u64 {
                        self.send_ack(now, None, out);
                    } else if self.ack_at.is_none() {
                        self.ack_at = Some(now + d);
                    }
                }
                _ => {
                    self.send_ack_inline(now, None, out);
                }
            }
        } else {
            // Above a hole: buffer and send an immediate duplicate ACK (RFC 5681 §4.2).
            self.stats.out_of_order_segments += 1;
            if self.ooo.insert(l, r) == 0 {
                self.stats.duplicate_segments += 1;
                self.set_dsack(l, r);
            }
            self.ack_lx(now, Some(l), out);
        }
    }

    /// Records `[l, r)` as the next ACK's D-SACK block, when D-SACK is on and negotiated.
    fn set_dsack(&mut self, l: Seq, r: Seq) {
        if let (true, Some(x)) = (self.sack_ok, &mut self.ext) {
            if x.dsack_on {
                x.dsack = Some((l, r));
            }
        }
    }

    /// Linux's ACK state (`ack_policy = linux` only).
    fn lx(&mut self) -> &mut LinuxAck {
        &mut self
            .ext
            .as_mut()
            .expect("ack_policy = linux has its state")
            .lx
    }

    /// Linux's decision for an in-order segment of `len` bytes (`tcp_event_data_recv`, then
    /// `__tcp_ack_snd_check`); `now_anyway`: the segment filled (part of) a hole or asks for
    /// an immediate ACK (CE).
    fn linux_in_order(&mut self, now: Time, len: u32, now_anyway: bool, out: &mut Outbox) {
        let lx = &mut self
            .ext
            .as_mut()
            .expect("ack_policy = linux has its state")
            .lx;
        if lx.srtt.is_none() {
            // `tcp_synack_rtt_meas`: the first segment after the SYN-ACK acknowledges it (here
            // the first in-order one).
            lx.srtt = Some(now - lx.synack_at);
        }
        lx.measure_rcv_mss(len);
        if lx.ato == Dur::ZERO {
            lx.incr_quickack(LX_MAX_QUICKACKS);
            lx.ato = LX_ATO_MIN;
        } else {
            let m = now - lx.lrcvtime;
            let rto = lx.rto();
            if m <= half(LX_ATO_MIN) {
                lx.ato = half(lx.ato) + half(LX_ATO_MIN);
            } else if m < lx.ato {
                lx.ato = (half(lx.ato) + m).min(rto);
            } else if m > rto {
                lx.incr_quickack(LX_MAX_QUICKACKS);
            }
        }
        lx.lrcvtime = now;
        // `__tcp_ack_snd_check`: more than one full segment unacknowledged (the application
        // reads at once, so the window test holds), quick-ACK mode, or out-of-order data.
        if now_anyway || (self.rcv_nxt - lx.rcv_wup) > lx.rcv_mss || lx.quick > 0 {
            let wnd = self.send_ack(now, None, out);
            self.linux_acked(wnd);
            return;
        }
        // `tcp_send_delayed_ack`.
        let mut ato = lx.ato;
        if ato > LX_ATO_MIN {
            let mut max_ato = if lx.pushed { LX_DELACK_MAX } else { LX_ATO_MAX };
            if let Some(rtt) = lx.srtt {
                max_ato = max_ato.min(rtt.max(LX_ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        let mut timeout = now + ato;
        if let Some(t) = self.ack_at {
            // A timer about to expire: ACK now; else the earlier deadline stands.
            if t <= now + half(half(ato)) {
                let wnd = self.send_ack(now, None, out);
                self.linux_acked(wnd);
                return;
            }
            timeout = timeout.min(t);
        }
        self.ack_at = Some(timeout);
    }

    /// Builds the SACK blocks (RFC 2018 §4): the block holding `trigger` first, then the most
    /// recently reported blocks still above rcv_nxt, without repeats. Out of line: only ACKs
    /// sent while data is out of order need it, and inlined into `send_ack` it costs every
    /// other ACK spilled registers.
    #[inline(never)]
    fn sack_blocks(&mut self, trigger: Option<Seq>) -> SackBlocks {
        let mut blocks = SackBlocks::default();
        let mut hist = [Seq(0); SackBlocks::MAX];
        let mut n = 0usize;
        let mut max = self.max_sack_blocks as usize;
        // RFC 2883 §4: the D-SACK block first; it takes one of the blocks.
        let first = if let Some(d) = self.ext.as_mut().and_then(|x| x.dsack.take()) {
            blocks.push(d);
            max -= 1;
            1
        } else {
            0
        };
        let candidates = trigger.into_iter().chain(
            self.sack_hist[..self.sack_hist_len as usize]
                .iter()
                .copied(),
        );
        for x in candidates {
            if n >= max {
                break;
            }
            if x < self.rcv_nxt {
                continue;
            }
            let Some(b) = self.ooo.containing(x) else {
                continue;
            };
            if blocks.as_slice()[first..].iter().any(|&(bl, _)| bl == b.0) {
                continue;
            }
            blocks.push(b);
            hist[n] = b.0;
            n += 1;
        }
        self.sack_hist = hist;
        self.sack_hist_len = n as u8;
        blocks
    }

    /// `send_ack`, then Linux's bookkeeping of an ACK sent (`ack_policy = linux`). The
    /// standard policy's in-order path calls `send_ack` itself, so it pays no test.
    fn ack_lx(&mut self, now: Time, trigger: Option<Seq>, out: &mut Outbox) {
        let wnd = self.send_ack(now, trigger, out);
        if self.ack_mode == AckMode::Linux {
            self.linux_acked(wnd);
        }
    }

    /// `tcp_event_ack_sent` after an ACK advertising `wnd`: `tcp_dec_quickack_mode`
    /// (leaving quick-ACK mode resets ato to 40 ms), ICSK_ACK_PUSHED cleared;
    /// `tcp_select_window`: rcv_wup = rcv_nxt, rcv_wnd = the window sent.
    fn linux_acked(&mut self, wnd: u32) {
        let rcv_nxt = self.rcv_nxt;
        let lx = self.lx();
        if lx.quick > 0 {
            lx.quick -= 1;
            if lx.quick == 0 {
                lx.ato = LX_ATO_MIN;
            }
        }
        lx.pushed = false;
        lx.rcv_wup = rcv_nxt;
        lx.rcv_wnd = wnd;
    }

    /// Sends an ACK of rcv_nxt (SACK blocks for `trigger` first); returns the window it
    /// advertises.
    #[inline(never)]
    fn send_ack(&mut self, now: Time, trigger: Option<Seq>, out: &mut Outbox) -> u32 {
        self.send_ack_inline(now, trigger, out)
    }

    /// [`Self::send_ack`], inlined where an in-order segment is acknowledged at once (most
    /// ACKs by default; a call there saved and restored six registers per ACK).
    #[inline(always)]
    fn send_ack_inline(&mut self, now: Time, trigger: Option<Seq>, out: &mut Outbox) -> u32 {
        self.unacked_segments = 0;
        self.ack_at = None;
        let sack = if self.sack_ok
            && (!self.ooo.is_empty() || self.ext.as_ref().is_some_and(|x| x.dsack.is_some()))
        {
            self.sack_blocks(trigger)
        } else {
            self.sack_hist_len = 0;
            SackBlocks::default()
        };
        // RFC 3168 §6.1.3: ECE on every ACK while the echo is on; RFC 8257 §3.2: ECE iff
        // DCTCP.CE.
        let ece = match self.ecn {
            ReceiverEcn::On { echo: true } | ReceiverEcn::PerSegment { ce: true } => TcpFlags::ECE,
            _ => TcpFlags::NONE,
        };
        let hdr = TcpHeader {
            seq: Seq(1),
            ack: self.rcv_nxt,
            flags: TcpFlags::ACK | ece,
            wnd: self.window.advertised(now, self.ooo.total()),
            payload: 0,
            sack_permitted: false,
            sack,
            ts: self.ts_ok.then_some(Timestamps {
                val: now,
                ecr: self.ts_recent,
            }),
            ns2_len: self.ns2_len,
        };
        self.last_ack_sent = self.rcv_nxt;
        let wnd = hdr.wnd;
        self.stats.acks_sent += 1;
        out.send(Packet::new(self.local, self.remote, Body::Tcp(hdr)));
        wnd
    }
}

impl<W: WindowPolicy> Endpoint for TcpReceiver<W> {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) {
        let Some(h) = pkt.tcp() else {
            return;
        };
        // DESIGN.md "Transport": the window policy sees each arriving segment, before the
        // window of the ACK it triggers is computed.
        self.window.on_segment(now, pkt);
        if h.flags.contains(TcpFlags::SYN) {
            self.on_syn(now, h, out);
        } else if self.established && h.payload > 0 {
            self.on_data(now, h, pkt.ecn, out);
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Outbox) {
        if let Some(t) = self.ack_at {
            if t <= now {
                if self.ack_mode == AckMode::Linux {
                    // `tcp_delack_timer_handler`: a missed delayed ACK inflates ato.
                    let lx = self.lx();
                    lx.ato = (lx.ato + lx.ato).min(lx.rto());
                }
                self.ack_lx(now, None, out);
            }
        }
    }

    fn next_timeout(&self) -> Option<Time> {
        self.ack_at
    }

    fn on_event(&mut self, now: Time, notice: &Notice, out: &mut Outbox) {
        // spec 2 §2.4: Triplicate Reconnection ACKs the moment the link comes back up.
        if let (Notice::LinkUp { .. }, true) = (notice, self.established) {
            for _ in 0..self.reconnection_acks {
                self.ack_lx(now, None, out);
            }
        }
    }
}
