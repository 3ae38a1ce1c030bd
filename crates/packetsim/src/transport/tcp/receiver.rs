//! The TCP receiver endpoint: answers the SYN (LISTEN → ESTABLISHED; the SYN-ACK is resent
//! for every SYN), buffers out-of-order data as sorted ranges, delivers in-order bytes, and
//! acknowledges:
//! - every segment by default; with `cfg.delayed_ack`, every second in-order segment or when
//!   the delay expires (RFC 5681 §4.2; RFC 1122 §4.2.3.2);
//! - with `cfg.ack_window_update` and delayed ACK, also at once when the in-order bytes just
//!   delivered (the application reads at once, so the window reopens by as much) reach
//!   min(MSS, rcv_window/2) (RFC 1122 §4.2.3.3 window update; spec 1 §2.6);
//! - at once for an out-of-order or duplicate segment, and for one that fills a hole
//!   (RFC 5681 §4.2);
//! - with SACK blocks when negotiated (RFC 2018 §4: the first block holds the segment that
//!   triggered the ACK, then the most recently reported other blocks);
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
//! The advertised window comes from a `WindowPolicy` (`window.rs`), told of every arriving
//! segment (`on_segment`) before the receiver handles it. The receiver is generic over its
//! policy, `AnyWindow` by default (the built-ins, enum dispatch); tests plug in their own.

use super::ranges::RangeSet;
use super::window::{AnyWindow, WindowPolicy};
use super::{EcnEcho, TcpConfig};
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
    delayed_ack: Option<Dur>,
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
            delayed_ack: cfg.delayed_ack,
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
                    self.send_ack(now, None, out);
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
            self.send_ack(now, None, out);
        } else if l <= self.rcv_nxt {
            // In order (possibly overlapping what was delivered).
            let had_hole = !self.ooo.is_empty();
            let before = self.rcv_nxt;
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
            match self.delayed_ack {
                // RFC 5681 §4.2: ACK at once when the segment fills (part of) a hole;
                // RFC 3168 §6.1.3: and when it was marked CE.
                Some(d) if !had_hole && !ce_at_once => {
                    self.unacked_segments += 1;
                    // RFC 1122 §4.2.3.3 (spec 1 §2.6): the application reads at once, so the
                    // window reopens by `n`; a large enough update is sent at once.
                    if self.unacked_segments >= 2 || n >= self.window_update as u64 {
                        self.send_ack(now, None, out);
                    } else if self.ack_at.is_none() {
                        self.ack_at = Some(now + d);
                    }
                }
                _ => self.send_ack(now, None, out),
            }
        } else {
            // Above a hole: buffer and send an immediate duplicate ACK (RFC 5681 §4.2).
            self.stats.out_of_order_segments += 1;
            if self.ooo.insert(l, r) == 0 {
                self.stats.duplicate_segments += 1;
            }
            self.send_ack(now, Some(l), out);
        }
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
        let max = self.max_sack_blocks as usize;
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
            if blocks.as_slice().iter().any(|&(bl, _)| bl == b.0) {
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

    fn send_ack(&mut self, now: Time, trigger: Option<Seq>, out: &mut Outbox) {
        self.unacked_segments = 0;
        self.ack_at = None;
        let sack = if self.sack_ok && !self.ooo.is_empty() {
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
        self.stats.acks_sent += 1;
        out.send(Packet::new(self.local, self.remote, Body::Tcp(hdr)));
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
                self.send_ack(now, None, out);
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
                self.send_ack(now, None, out);
            }
        }
    }
}
