//! One station's 802.11 DCF MAC as a sans-IO state machine.
//!
//! The MAC never sees the event queue or the other stations. The channel tells it what the
//! medium does ([`Dcf::medium_busy`], [`Dcf::medium_idle`]), hands it the frames it decoded
//! ([`Dcf::on_frame`]) or failed to decode ([`Dcf::on_frame_error`]), and calls
//! [`Dcf::on_timer`] at [`Dcf::next_timeout`]. What the MAC wants done comes out in a
//! `Vec<MacOut>`: a frame to put on the air, an MSDU delivered up, sent, or dropped.
//! Every entry point first runs the timers that are due, so that two stations whose backoff
//! ends in the same slot both transmit (and collide) whichever the channel calls first.
//!
//! The rules, and where each comes from (ns-2.35 `mac/mac-802_11.cc` is the reference; the
//! standard is IEEE 802.11-1999 §9.2):
//! - Access (ns-2.35 `Mac802_11::send`): a frame handed to a MAC with no backoff pending draws
//!   a backoff and waits DIFS + backoff even if the medium has been idle long enough. The
//!   standard (§9.2.5.1) lets such a frame go at once after DIFS; we follow ns-2.35.
//! - Backoff (§9.2.4, ns-2.35 `BackoffTimer`): the counter counts slots while the medium has
//!   been idle for DIFS (EIFS after a frame received in error), freezes when the medium goes
//!   busy (the slots wholly elapsed are taken off, ns-2.35 `BackoffTimer::pause`), and
//!   resumes after the next DIFS. The draw is ns-2.35's `Random::random() % cw`, uniform in
//!   [0, CW-1] ([`BackoffDraw::Ns2`], the default); [`BackoffDraw::Standard`] draws in
//!   [0, CW] as §9.2.4 says (and as Bianchi's model assumes).
//! - Contention window: CWmin 31, CWmax 1023, CW = 2 CW + 1 after each failure
//!   (ns-2.35 `inc_cw`), back to CWmin after a success or a drop (`rst_cw`).
//! - After a success the MAC draws a new backoff at once (post-backoff, §9.2.5.2; ns-2.35
//!   `recvACK` starts the backoff timer), so the next frame always waits a backoff.
//! - ACK timeout (ns-2.35 `check_pktTx`): data airtime + SIFS + ACK airtime + twice the
//!   maximum propagation delay (2 us each) from the start of the data frame; CTS timeout
//!   likewise with the RTS and CTS airtimes. The standard (§9.2.8) uses SIFS + slot + PHY
//!   start delay after the end of the frame; we follow ns-2.35.
//! - After a timeout the backoff counts from the timeout on: the medium has been idle since
//!   our frame ended, longer than DIFS (ns-2.35 `RetransmitDATA` starts the backoff timer
//!   with no DIFS wait when the medium is idle; the standard agrees).
//! - Retry limits (§9.2.5.3, ns-2.35 `RetransmitRTS` / `RetransmitDATA`): frames at or below
//!   the RTS threshold count on the short retry counter (limit 7), longer ones on the long
//!   counter (limit 4); failed RTSs count on the short counter. The MSDU is dropped when the
//!   counter reaches the limit, so a limit of 7 means 7 transmissions in all.
//! - RTS/CTS (§9.2.5.4): used for data frames (MAC bytes) above `rts_threshold`; off by
//!   default (the standard's default threshold 2347 exceeds every frame). ns-2.35's default
//!   `RTSThreshold_ = 0` sends an RTS before every unicast frame: `rts_threshold = Some(0)`.
//! - NAV (§9.2.5.4): set from the duration field of every frame decoded and not addressed to
//!   us; the medium counts as busy until it ends. A station answers an RTS with a CTS only if
//!   its NAV is clear (the standard; ns-2.35 answers when its transmitter is idle).
//! - Duration fields (§7.2.1): RTS = 3 SIFS + CTS + DATA + ACK, CTS = RTS's - SIFS - CTS,
//!   DATA = SIFS + ACK, ACK = 0 (no fragmentation).
//! - EIFS (§9.2.3.4, ns-2.35 sets its NAV to EIFS on a frame received in error): after a frame
//!   received in error the next backoff waits EIFS instead of DIFS, until a frame is decoded.
//! - Duplicates (§9.2.9, ns-2.35 `recvDATA` `DROP_MAC_DUPLICATE`): a retransmitted data frame
//!   whose sequence number was already received from that station is acknowledged again but
//!   not delivered twice.
//! - Broadcast data frames (beacons) are sent once, with no ACK and no retry (§9.2.7).
//! - The interface queue is ns-2's IFQ: drop-tail, 50 packets by default, ahead of the MAC;
//!   the frame at its head is the one the MAC is sending.
//! - Not modelled: fragmentation, power save, the PCF, capture (a collision destroys every
//!   frame involved), ns-2.35's `USE_SLOT_TIME` rounding (off in its default build).

use super::phy::PhyConfig;
use packetsim_kernel::{Dur, Rng, Time};
use std::collections::VecDeque;

/// A station on a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sta(pub u16);

impl Sta {
    /// The broadcast address (beacons).
    pub const BROADCAST: Sta = Sta(u16::MAX);
}

impl std::fmt::Display for Sta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if *self == Sta::BROADCAST {
            write!(f, "sta#bcast")
        } else {
            write!(f, "sta#{}", self.0)
        }
    }
}

/// An upper-layer packet handed to the MAC: its id for the caller, where it goes, its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Msdu {
    /// The caller's id for it.
    pub id: u64,
    /// The station it is for ([`Sta::BROADCAST`] for every station in range).
    pub dst: Sta,
    /// Payload bytes (the IP packet).
    pub bytes: u32,
}

/// The kinds of frame the DCF sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// Request to send.
    Rts,
    /// Clear to send.
    Cts,
    /// A data frame carrying an MSDU.
    Data,
    /// An acknowledgement.
    Ack,
}

/// A frame on the air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// What it is.
    pub kind: FrameKind,
    /// Transmitter.
    pub src: Sta,
    /// Receiver.
    pub dst: Sta,
    /// The duration field: how long after this frame's end the exchange holds the medium.
    pub nav: Dur,
    /// How long the frame is on the air.
    pub airtime: Dur,
    /// The MSDU a data frame carries.
    pub msdu: Option<Msdu>,
    /// A data frame's sequence number (for duplicate detection).
    pub seq: u16,
}

/// Why the MAC dropped an MSDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacDrop {
    /// The interface queue was full (drop-tail).
    IfqFull,
    /// The retry limit was reached (ns-2.35 `DROP_MAC_RETRY_COUNT_EXCEEDED`).
    RetryLimit,
}

/// What the MAC asks of the channel and the layer above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacOut {
    /// Put this frame on the air now.
    Transmit(Frame),
    /// An MSDU from `from` arrived here.
    Deliver {
        /// The MSDU.
        msdu: Msdu,
        /// Its sender.
        from: Sta,
    },
    /// An MSDU was acknowledged (or, broadcast, sent), after `attempts` transmissions.
    Sent {
        /// The MSDU.
        msdu: Msdu,
        /// Data-frame transmissions it took.
        attempts: u32,
    },
    /// An MSDU was dropped.
    Dropped {
        /// The MSDU.
        msdu: Msdu,
        /// Why.
        reason: MacDrop,
    },
}

/// How the backoff is drawn from the contention window CW.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackoffDraw {
    /// Uniform in [0, CW-1] slots (ns-2.35 `Random::random() % cw`).
    #[default]
    Ns2,
    /// Uniform in [0, CW] slots (802.11-1999 §9.2.4).
    Standard,
}

/// A station MAC's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcfConfig {
    /// PHY timing and rates.
    pub phy: PhyConfig,
    /// aCWmin (DSSS: 31).
    pub cw_min: u32,
    /// aCWmax (DSSS: 1023).
    pub cw_max: u32,
    /// dot11ShortRetryLimit (7).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit (4).
    pub long_retry_limit: u32,
    /// Data frames (MAC bytes) longer than this go after an RTS/CTS exchange; `None`: never.
    pub rts_threshold: Option<u32>,
    /// Interface queue limit in packets, the frame being sent included (ns-2: 50).
    pub ifq_limit: usize,
    /// How the backoff is drawn.
    pub backoff_draw: BackoffDraw,
}

impl Default for DcfConfig {
    fn default() -> Self {
        DcfConfig {
            phy: PhyConfig::default(),
            cw_min: 31,
            cw_max: 1023,
            short_retry_limit: 7,
            long_retry_limit: 4,
            rts_threshold: None,
            ifq_limit: 50,
            backoff_draw: BackoffDraw::Ns2,
        }
    }
}

/// Counters of one station's MAC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacStats {
    /// Data frames transmitted (first attempts and retries).
    pub data_tx: u64,
    /// Data-frame retransmissions.
    pub retries: u64,
    /// RTS frames transmitted.
    pub rts_tx: u64,
    /// ACK timeouts and CTS timeouts.
    pub timeouts: u64,
    /// MSDUs acknowledged (or broadcast).
    pub sent: u64,
    /// MSDUs dropped at the retry limit.
    pub retry_drops: u64,
    /// MSDUs dropped by the full interface queue.
    pub ifq_drops: u64,
    /// MSDUs delivered up.
    pub delivered: u64,
    /// Duplicate data frames received (acknowledged, not delivered).
    pub duplicates: u64,
}

/// Where the station's own exchange is (the IEEE state names of §9.2.5, as ns-2.35's
/// `tx_state_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exchange {
    /// No exchange under way: contending if a frame is queued.
    Contend,
    /// Our RTS is on the air until `end`.
    TxRts { end: Time },
    /// Waiting for a CTS until `deadline`.
    WaitCts { deadline: Time },
    /// A CTS arrived; the data frame goes at `at` (SIFS later).
    SifsData { at: Time },
    /// Our data frame is on the air until `end`.
    TxData { end: Time },
    /// Waiting for the ACK until `deadline`.
    WaitAck { deadline: Time },
}

/// The frame at the head of the queue and its retry counters.
#[derive(Clone, Copy, Debug)]
struct Head {
    msdu: Msdu,
    seq: u16,
    /// Short retry counter (RTS failures, short data frames).
    src: u32,
    /// Long retry counter (long data frames).
    lrc: u32,
    /// Data frames sent so far.
    attempts: u32,
    /// When the current (RTS or DATA) transmission started, for the timeout.
    started: Time,
}

/// One station's DCF.
#[derive(Clone, Debug)]
pub struct Dcf {
    cfg: DcfConfig,
    me: Sta,
    rng: Rng,
    ifq: VecDeque<Msdu>,
    head: Option<Head>,
    exchange: Exchange,
    cw: u32,
    /// Backoff slots still to count; `None`: no backoff pending.
    backoff: Option<u32>,
    /// When the current backoff was drawn (it counts no earlier).
    backoff_armed: Time,
    /// The medium is busy with other stations' frames (physical carrier sense).
    phys_busy: bool,
    /// When the other stations' last frame ended.
    phys_idle_since: Time,
    /// When our own last transmission ends or ended.
    own_tx_end: Time,
    /// Virtual carrier sense.
    nav_until: Time,
    /// The last frame was received in error: the next wait is EIFS.
    eifs: bool,
    /// A CTS or ACK to send SIFS after the frame that asked for it.
    response: Option<(Time, Frame)>,
    next_seq: u16,
    /// Last sequence number received from each station (duplicate detection).
    last_seq: Vec<Option<u16>>,
    stats: MacStats,
}

impl Dcf {
    /// A station's MAC with its own random stream.
    pub fn new(me: Sta, cfg: DcfConfig, rng: Rng) -> Dcf {
        Dcf {
            cfg,
            me,
            rng,
            ifq: VecDeque::new(),
            head: None,
            exchange: Exchange::Contend,
            cw: cfg.cw_min,
            backoff: None,
            backoff_armed: Time::ZERO,
            phys_busy: false,
            phys_idle_since: Time::ZERO,
            own_tx_end: Time::ZERO,
            nav_until: Time::ZERO,
            eifs: false,
            response: None,
            next_seq: 0,
            last_seq: Vec::new(),
            stats: MacStats::default(),
        }
    }

    /// This station.
    pub fn sta(&self) -> Sta {
        self.me
    }

    /// The counters.
    pub fn stats(&self) -> MacStats {
        self.stats
    }

    /// The settings.
    pub fn config(&self) -> &DcfConfig {
        &self.cfg
    }

    /// The current contention window.
    pub fn cw(&self) -> u32 {
        self.cw
    }

    /// Backoff slots still to count (`None`: no backoff pending).
    pub fn backoff_slots(&self) -> Option<u32> {
        self.backoff
    }

    /// Packets in the interface queue, the one being sent included.
    pub fn queue_len(&self) -> usize {
        self.ifq.len() + usize::from(self.head.is_some())
    }

    /// Hands an MSDU to the MAC (ns-2's IFQ, then `Mac802_11::send`).
    pub fn enqueue(&mut self, now: Time, msdu: Msdu, out: &mut Vec<MacOut>) {
        self.run_due(now, out);
        if self.queue_len() >= self.cfg.ifq_limit {
            self.stats.ifq_drops += 1;
            out.push(MacOut::Dropped {
                msdu,
                reason: MacDrop::IfqFull,
            });
            return;
        }
        self.ifq.push_back(msdu);
        self.next_head(now);
        self.run_due(now, out);
    }

    /// Hands an MSDU to the MAC ahead of every queued one (behind the frame being sent), and
    /// never drops it for a full queue: a beacon, sent at its time as 802.11's beacons are
    /// (ns-2's `Queue/DropTail/PriQueue` likewise puts routing packets first).
    pub fn enqueue_first(&mut self, now: Time, msdu: Msdu, out: &mut Vec<MacOut>) {
        self.run_due(now, out);
        self.ifq.push_front(msdu);
        self.next_head(now);
        self.run_due(now, out);
    }

    /// The medium went busy with another station's frame (physical carrier sense).
    pub fn medium_busy(&mut self, now: Time, out: &mut Vec<MacOut>) {
        self.run_due(now, out);
        if self.phys_busy {
            return;
        }
        // §9.2.4: the backoff freezes; the slots wholly counted are kept off (ns-2.35
        // `BackoffTimer::pause`).
        if let (Some(slots), Some(from)) = (self.backoff, self.count_start()) {
            if now > from {
                let done = (now - from).as_nanos() / self.cfg.phy.slot.as_nanos();
                self.backoff = Some(slots.saturating_sub(done.min(u32::MAX as u64) as u32));
            }
        }
        self.phys_busy = true;
    }

    /// The medium went idle (the last other station's frame ended).
    pub fn medium_idle(&mut self, now: Time, out: &mut Vec<MacOut>) {
        self.run_due(now, out);
        self.phys_busy = false;
        self.phys_idle_since = now;
    }

    /// A frame ended that this station could not decode (collision or error): EIFS next.
    pub fn on_frame_error(&mut self, now: Time, out: &mut Vec<MacOut>) {
        self.run_due(now, out);
        self.eifs = true;
    }

    /// A frame ended that this station decoded.
    pub fn on_frame(&mut self, now: Time, f: &Frame, out: &mut Vec<MacOut>) {
        self.run_due(now, out);
        self.eifs = false;
        let phy = self.cfg.phy;
        if f.dst != self.me && f.dst != Sta::BROADCAST {
            // §9.2.5.4: the NAV follows the duration field of frames for others.
            self.nav_until = self.nav_until.max(now + f.nav);
            return;
        }
        match f.kind {
            FrameKind::Rts => {
                // Answer only if our NAV is clear (§9.2.5.4).
                if now >= self.nav_until && self.response.is_none() {
                    let cts = Frame {
                        kind: FrameKind::Cts,
                        src: self.me,
                        dst: f.src,
                        nav: Dur::from_nanos(
                            f.nav
                                .as_nanos()
                                .saturating_sub((phy.sifs + phy.cts_airtime()).as_nanos()),
                        ),
                        airtime: phy.cts_airtime(),
                        msdu: None,
                        seq: 0,
                    };
                    self.response = Some((now + phy.sifs, cts));
                }
            }
            FrameKind::Cts => {
                if let Exchange::WaitCts { .. } = self.exchange {
                    if f.src == self.head_dst() {
                        self.head_mut().src = 0;
                        self.exchange = Exchange::SifsData { at: now + phy.sifs };
                    }
                }
            }
            FrameKind::Data => {
                let Some(msdu) = f.msdu else {
                    debug_assert!(false, "a data frame without its MSDU");
                    return;
                };
                let fresh = self.note_seq(f.src, f.seq);
                if f.dst == self.me {
                    let ack = Frame {
                        kind: FrameKind::Ack,
                        src: self.me,
                        dst: f.src,
                        nav: Dur::ZERO,
                        airtime: phy.ack_airtime(),
                        msdu: None,
                        seq: 0,
                    };
                    self.response = Some((now + phy.sifs, ack));
                }
                if fresh {
                    self.stats.delivered += 1;
                    out.push(MacOut::Deliver { msdu, from: f.src });
                } else {
                    self.stats.duplicates += 1;
                }
            }
            FrameKind::Ack => {
                if let Exchange::WaitAck { .. } = self.exchange {
                    if f.src == self.head_dst() {
                        self.finish_head(now, None, out);
                    }
                }
            }
        }
    }

    /// When the MAC next needs [`Dcf::on_timer`].
    pub fn next_timeout(&self) -> Option<Time> {
        let mut t = self.exchange_deadline();
        let mut take = |x: Option<Time>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |t: Time| t.min(x)));
            }
        };
        take(self.response.map(|r| r.0));
        take(self.backoff_done_at());
        t
    }

    /// Runs the timers due at `now`.
    pub fn on_timer(&mut self, now: Time, out: &mut Vec<MacOut>) {
        self.run_due(now, out);
    }

    fn exchange_deadline(&self) -> Option<Time> {
        match self.exchange {
            Exchange::Contend => None,
            Exchange::TxRts { end } | Exchange::TxData { end } => Some(end),
            Exchange::WaitCts { deadline } | Exchange::WaitAck { deadline } => Some(deadline),
            Exchange::SifsData { at } => Some(at),
        }
    }

    /// When the backoff counting starts, if the medium is idle (§9.2.4: after DIFS or EIFS of
    /// idle medium, physical and virtual).
    fn count_start(&self) -> Option<Time> {
        if self.phys_busy {
            return None;
        }
        let ifs = if self.eifs {
            self.cfg.phy.eifs()
        } else {
            self.cfg.phy.difs()
        };
        let idle_from = self
            .phys_idle_since
            .max(self.own_tx_end)
            .max(self.nav_until);
        Some((idle_from + ifs).max(self.backoff_armed))
    }

    /// When the pending backoff reaches 0 if the medium stays idle.
    fn backoff_done_at(&self) -> Option<Time> {
        if self.exchange != Exchange::Contend {
            return None;
        }
        let slots = self.backoff?;
        let from = self.count_start()?;
        Some(from + self.cfg.phy.slot * slots as u64)
    }

    fn run_due(&mut self, now: Time, out: &mut Vec<MacOut>) {
        while let Some(t) = self.next_timeout() {
            if t > now {
                break;
            }
            self.fire(t, out);
        }
    }

    /// Fires the earliest timer, due at `t`.
    fn fire(&mut self, t: Time, out: &mut Vec<MacOut>) {
        let phy = self.cfg.phy;
        if let Some((at, frame)) = self.response {
            if at == t {
                self.response = None;
                if self.own_tx_end > t {
                    return; // busy sending our own frame: no answer
                }
                self.transmit(t, frame, out);
                return;
            }
        }
        if self.exchange_deadline() == Some(t) {
            match self.exchange {
                Exchange::Contend => unreachable!("no deadline while contending"),
                Exchange::TxRts { .. } => {
                    let started = self.head.map_or(t, |h| h.started);
                    self.exchange = Exchange::WaitCts {
                        deadline: started
                            + phy.rts_airtime()
                            + phy.sifs
                            + phy.cts_airtime()
                            + phy.max_propagation * 2,
                    };
                }
                Exchange::TxData { .. } => {
                    if self.head_dst() == Sta::BROADCAST {
                        self.finish_head(t, None, out);
                    } else {
                        let h = self.head.expect("sending a data frame without a head");
                        self.exchange = Exchange::WaitAck {
                            deadline: h.started
                                + phy.data_airtime(h.msdu.bytes)
                                + phy.sifs
                                + phy.ack_airtime()
                                + phy.max_propagation * 2,
                        };
                    }
                }
                Exchange::SifsData { .. } => self.send_data(t, out),
                Exchange::WaitCts { .. } | Exchange::WaitAck { .. } => self.timed_out(t, out),
            }
            return;
        }
        if self.backoff_done_at() == Some(t) {
            self.backoff = None;
            if self.head.is_some() {
                let h = self.head.expect("checked");
                if self.uses_rts(h.msdu) {
                    self.send_rts(t, out);
                } else {
                    self.send_data(t, out);
                }
            }
            return;
        }
        unreachable!("a timer at {t} that is none of the MAC's");
    }

    fn uses_rts(&self, m: Msdu) -> bool {
        m.dst != Sta::BROADCAST
            && self
                .cfg
                .rts_threshold
                .is_some_and(|th| m.bytes + super::phy::DATA_OVERHEAD_BYTES > th)
    }

    fn send_rts(&mut self, now: Time, out: &mut Vec<MacOut>) {
        let phy = self.cfg.phy;
        let h = self.head_mut();
        h.started = now;
        let m = h.msdu;
        let nav = phy.sifs * 3 + phy.cts_airtime() + phy.data_airtime(m.bytes) + phy.ack_airtime();
        let rts = Frame {
            kind: FrameKind::Rts,
            src: self.me,
            dst: m.dst,
            nav,
            airtime: phy.rts_airtime(),
            msdu: None,
            seq: 0,
        };
        self.stats.rts_tx += 1;
        self.exchange = Exchange::TxRts {
            end: now + rts.airtime,
        };
        self.transmit(now, rts, out);
    }

    fn send_data(&mut self, now: Time, out: &mut Vec<MacOut>) {
        let phy = self.cfg.phy;
        let me = self.me;
        let h = self.head_mut();
        h.started = now;
        h.attempts += 1;
        let retry = h.attempts > 1;
        let (m, seq) = (h.msdu, h.seq);
        let data = Frame {
            kind: FrameKind::Data,
            src: me,
            dst: m.dst,
            nav: if m.dst == Sta::BROADCAST {
                Dur::ZERO
            } else {
                phy.sifs + phy.ack_airtime()
            },
            airtime: phy.data_airtime(m.bytes),
            msdu: Some(m),
            seq,
        };
        self.stats.data_tx += 1;
        if retry {
            self.stats.retries += 1;
        }
        self.exchange = Exchange::TxData {
            end: now + data.airtime,
        };
        self.transmit(now, data, out);
    }

    fn transmit(&mut self, now: Time, f: Frame, out: &mut Vec<MacOut>) {
        self.own_tx_end = now + f.airtime;
        out.push(MacOut::Transmit(f));
    }

    /// A CTS or ACK did not come (ns-2.35 `RetransmitRTS` / `RetransmitDATA`).
    fn timed_out(&mut self, now: Time, out: &mut Vec<MacOut>) {
        self.stats.timeouts += 1;
        let was_rts = matches!(self.exchange, Exchange::WaitCts { .. });
        let (short, long) = (self.cfg.short_retry_limit, self.cfg.long_retry_limit);
        let rts_used = self.head.is_some_and(|h| self.uses_rts(h.msdu));
        let h = self.head_mut();
        let (count, limit) = if was_rts || !rts_used {
            (&mut h.src, short)
        } else {
            (&mut h.lrc, long)
        };
        *count += 1;
        if *count >= limit {
            self.finish_head(now, Some(MacDrop::RetryLimit), out);
            return;
        }
        self.cw = (2 * self.cw + 1).min(self.cfg.cw_max);
        self.exchange = Exchange::Contend;
        self.draw_backoff(now);
    }

    /// The head MSDU is done: acknowledged (`None`) or dropped. CW back to CWmin, a new
    /// backoff drawn (post-backoff), the next MSDU to the head.
    fn finish_head(&mut self, now: Time, drop: Option<MacDrop>, out: &mut Vec<MacOut>) {
        let h = self.head.take().expect("finishing without a head");
        match drop {
            None => {
                self.stats.sent += 1;
                out.push(MacOut::Sent {
                    msdu: h.msdu,
                    attempts: h.attempts,
                });
            }
            Some(reason) => {
                self.stats.retry_drops += 1;
                out.push(MacOut::Dropped {
                    msdu: h.msdu,
                    reason,
                });
            }
        }
        self.cw = self.cfg.cw_min;
        self.exchange = Exchange::Contend;
        self.draw_backoff(now);
        self.next_head(now);
    }

    /// Moves the next queued MSDU to the head; draws a backoff if none is pending.
    fn next_head(&mut self, now: Time) {
        if self.head.is_some() {
            return;
        }
        let Some(msdu) = self.ifq.pop_front() else {
            return;
        };
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1) & 0x0fff;
        self.head = Some(Head {
            msdu,
            seq,
            src: 0,
            lrc: 0,
            attempts: 0,
            started: now,
        });
        if self.backoff.is_none() && self.exchange == Exchange::Contend {
            // ns-2.35 `Mac802_11::send`: DIFS + backoff from now, however long the medium
            // has been idle (the counting also waits for DIFS of idle medium, as always).
            self.draw_backoff(now);
            self.backoff_armed = now + self.cfg.phy.difs();
        }
    }

    fn draw_backoff(&mut self, now: Time) {
        let slots = match self.cfg.backoff_draw {
            BackoffDraw::Ns2 => self.rng.below(self.cw as u64),
            BackoffDraw::Standard => self.rng.below(self.cw as u64 + 1),
        };
        self.backoff = Some(slots as u32);
        self.backoff_armed = now;
        // A backoff drawn while the medium is busy waits for the next idle period: the
        // counting start is computed from the idle medium (count_start).
    }

    fn head_mut(&mut self) -> &mut Head {
        self.head
            .as_mut()
            .expect("an exchange without a head frame")
    }

    fn head_dst(&self) -> Sta {
        self.head.map_or(Sta::BROADCAST, |h| h.msdu.dst)
    }

    /// Records `seq` from `from`; whether it is new.
    fn note_seq(&mut self, from: Sta, seq: u16) -> bool {
        if from == Sta::BROADCAST {
            return true;
        }
        let i = from.0 as usize;
        if self.last_seq.len() <= i {
            self.last_seq.resize(i + 1, None);
        }
        let fresh = self.last_seq[i] != Some(seq);
        self.last_seq[i] = Some(seq);
        fresh
    }
}
