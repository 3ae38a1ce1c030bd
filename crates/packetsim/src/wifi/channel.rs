//! A shared 802.11 channel: the stations' DCF MACs ([`Dcf`]) on one medium, with carrier
//! sense, collisions and a per-frame error model, run on its own event queue.
//!
//! Who hears whom is a matrix ([`Channel::set_hears`]); the motion model updates it (a
//! station hears another when the received power is above the receive threshold, see
//! `propagation`). Carrier sense and reception use the same matrix: a station senses every
//! frame it could decode (ns-2.35's default `CSThresh_` is below `RXThresh_`, so ns-2 senses
//! farther than it decodes; here they are equal, a documented simplification).
//!
//! Reception (ns-2.35 `Mac802_11::recv` / `capture` / `collision`, without capture): a station
//! locks on a frame that starts while it senses nothing else and is not itself sending. A frame
//! that starts while it is locked on another destroys both for it (no capture: ns-2.35 keeps
//! the first frame if it is 10 dB stronger, `CPThresh_`; all our stations in range are
//! equal). A station that starts sending while receiving loses the frame (half duplex). At the
//! frame's end it is decoded, or reported as an error (the MAC then waits EIFS), and the data
//! frames that survived collisions are lost with probability `data_loss` (the seeded
//! per-frame error model of the PHY; control frames are not subject to it).
//!
//! Propagation is instantaneous (ns-2 charges distance / c, under 1 us at 250 m; the MAC's
//! timeouts allow 2 us each way).

use super::dcf::{Dcf, DcfConfig, Frame, FrameKind, MacOut, Msdu, Sta};
use packetsim_kernel::{EventQueue, Rng, Time};
use std::collections::VecDeque;

/// The channel's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelConfig {
    /// Every station's MAC settings.
    pub dcf: DcfConfig,
    /// Probability that a data frame which escaped collision is received in error.
    pub data_loss: f64,
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig {
            dcf: DcfConfig::default(),
            data_loss: 0.0,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// Transmission `id` ends.
    TxEnd(u64),
    /// A station's MAC timer (valid if the generation matches).
    Timer(Sta, u64),
}

#[derive(Clone, Debug)]
struct OnAir {
    id: u64,
    frame: Frame,
    /// The stations that sensed its start (they sense its end, whatever the motion did).
    heard_by: Vec<u16>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Radio {
    /// Frames on the air this station senses.
    sensed: u32,
    /// The frame it is locked on and whether it is still intact.
    rx: Option<(u64, bool)>,
    /// Its own transmission ends at.
    tx_until: Time,
    /// Generation of its scheduled MAC timer, and when.
    timer_gen: u64,
    timer_at: Option<Time>,
    /// Keep its queue non-empty with this MSDU (saturation).
    saturate: Option<Msdu>,
}

/// A MAC output, stamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Logged {
    /// When.
    pub at: Time,
    /// Which station's MAC.
    pub sta: Sta,
    /// What.
    pub out: MacOut,
}

/// Channel-wide counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelStats {
    /// Frames put on the air.
    pub frames: u64,
    /// Frame receptions destroyed by an overlapping frame.
    pub collided: u64,
    /// Data frames lost to the error model.
    pub errored: u64,
    /// Events processed.
    pub events: u64,
}

/// Stations on one shared medium.
pub struct Channel {
    cfg: ChannelConfig,
    macs: Vec<Dcf>,
    radios: Vec<Radio>,
    /// `hears[r][s]`: station r senses and can decode station s.
    hears: Vec<Vec<bool>>,
    air: Vec<OnAir>,
    queue: EventQueue<Ev>,
    /// The channel's clock: the last event run, or the time it was last advanced to.
    clock: Time,
    next_id: u64,
    errors: Rng,
    pending: VecDeque<(Sta, MacOut)>,
    scratch: Vec<MacOut>,
    log: Vec<Logged>,
    keep_log: bool,
    stats: ChannelStats,
}

impl Channel {
    /// `n` stations, all hearing each other, seeded from `seed`.
    pub fn new(n: u16, cfg: ChannelConfig, seed: u64) -> Channel {
        let macs = (0..n)
            .map(|i| {
                Dcf::new(
                    Sta(i),
                    cfg.dcf,
                    Rng::for_component(seed, &format!("wifi.backoff.{i}")),
                )
            })
            .collect();
        let n = n as usize;
        Channel {
            cfg,
            macs,
            radios: vec![Radio::default(); n],
            hears: (0..n).map(|r| (0..n).map(|s| s != r).collect()).collect(),
            air: Vec::new(),
            queue: EventQueue::new(),
            clock: Time::ZERO,
            next_id: 0,
            errors: Rng::for_component(seed, "wifi.errors"),
            pending: VecDeque::new(),
            scratch: Vec::new(),
            log: Vec::new(),
            keep_log: true,
            stats: ChannelStats::default(),
        }
    }

    /// Whether MAC outputs are kept for [`Channel::take_log`] (on by default).
    pub fn keep_log(&mut self, on: bool) {
        self.keep_log = on;
    }

    /// Sets whether station `r` hears station `s` (from the next frame on: a frame on the
    /// air ends where it was sensed when it started).
    pub fn set_hears(&mut self, r: Sta, s: Sta, on: bool) {
        self.hears[r.0 as usize][s.0 as usize] = on && r != s;
    }

    /// Whether `r` hears `s`.
    pub fn hears(&self, r: Sta, s: Sta) -> bool {
        self.hears[r.0 as usize][s.0 as usize]
    }

    /// Station `s`'s MAC.
    pub fn mac(&self, s: Sta) -> &Dcf {
        &self.macs[s.0 as usize]
    }

    /// The clock.
    pub fn now(&self) -> Time {
        self.clock
    }

    /// When the channel's next event is due (for a driver that advances it).
    pub fn next_event(&self) -> Option<Time> {
        self.queue.peek_time()
    }

    /// The counters.
    pub fn stats(&self) -> ChannelStats {
        self.stats
    }

    /// The settings.
    pub fn config(&self) -> &ChannelConfig {
        &self.cfg
    }

    /// The MAC outputs since the last call (transmissions included).
    pub fn take_log(&mut self) -> Vec<Logged> {
        std::mem::take(&mut self.log)
    }

    /// Keeps station `s` saturated: whenever its queue empties it gets another `msdu`.
    pub fn saturate(&mut self, s: Sta, msdu: Msdu) {
        self.radios[s.0 as usize].saturate = Some(msdu);
        self.refill(s);
        self.settle();
    }

    /// Hands `msdu` to station `s`'s MAC now.
    pub fn enqueue(&mut self, s: Sta, msdu: Msdu) {
        let now = self.now();
        let mut out = std::mem::take(&mut self.scratch);
        self.macs[s.0 as usize].enqueue(now, msdu, &mut out);
        self.absorb(s, &mut out);
        self.scratch = out;
        self.settle();
    }

    /// Hands `msdu` to station `s`'s MAC now, ahead of its queue ([`Dcf::enqueue_first`]).
    pub fn enqueue_first(&mut self, s: Sta, msdu: Msdu) {
        let now = self.now();
        let mut out = std::mem::take(&mut self.scratch);
        self.macs[s.0 as usize].enqueue_first(now, msdu, &mut out);
        self.absorb(s, &mut out);
        self.scratch = out;
        self.settle();
    }

    /// Runs every event up to and including `until`; the clock is then `until`.
    pub fn run_until(&mut self, until: Time) {
        while let Some((now, ev)) = self.queue.pop_until(until) {
            self.clock = now;
            self.stats.events += 1;
            match ev {
                Ev::TxEnd(id) => self.tx_end(now, id),
                Ev::Timer(s, gen) => {
                    let r = &mut self.radios[s.0 as usize];
                    if r.timer_gen != gen {
                        continue;
                    }
                    r.timer_at = None;
                    let mut out = std::mem::take(&mut self.scratch);
                    self.macs[s.0 as usize].on_timer(now, &mut out);
                    self.absorb(s, &mut out);
                    self.scratch = out;
                }
            }
            self.settle();
        }
        self.clock = self.clock.max(until);
    }

    /// Queues a MAC's outputs for [`Channel::settle`] and re-arms its timer.
    fn absorb(&mut self, s: Sta, out: &mut Vec<MacOut>) {
        for o in out.drain(..) {
            self.pending.push_back((s, o));
        }
        self.rearm(s);
    }

    fn rearm(&mut self, s: Sta) {
        let want = self.macs[s.0 as usize].next_timeout();
        let r = &mut self.radios[s.0 as usize];
        if want == r.timer_at {
            return;
        }
        r.timer_gen += 1;
        r.timer_at = want;
        if let Some(t) = want {
            let gen = r.timer_gen;
            self.queue.schedule(t.max(self.clock), Ev::Timer(s, gen));
        }
    }

    /// Carries out the pending outputs (a transmission can make other MACs act at once).
    fn settle(&mut self) {
        while let Some((s, o)) = self.pending.pop_front() {
            let now = self.now();
            if self.keep_log {
                self.log.push(Logged {
                    at: now,
                    sta: s,
                    out: o,
                });
            }
            match o {
                MacOut::Transmit(f) => self.tx_start(now, s, f),
                MacOut::Sent { .. } | MacOut::Dropped { .. } => self.refill(s),
                MacOut::Deliver { .. } => {}
            }
        }
    }

    fn refill(&mut self, s: Sta) {
        let Some(m) = self.radios[s.0 as usize].saturate else {
            return;
        };
        if self.macs[s.0 as usize].queue_len() == 0 {
            let now = self.now();
            let mut out = std::mem::take(&mut self.scratch);
            self.macs[s.0 as usize].enqueue(now, m, &mut out);
            self.absorb(s, &mut out);
            self.scratch = out;
        }
    }

    fn tx_start(&mut self, now: Time, s: Sta, frame: Frame) {
        self.stats.frames += 1;
        let id = self.next_id;
        self.next_id += 1;
        self.queue.schedule(now + frame.airtime, Ev::TxEnd(id));
        let me = &mut self.radios[s.0 as usize];
        me.tx_until = now + frame.airtime;
        // Half duplex: a frame being received is lost (not counted as a collision).
        me.rx = None;
        let mut heard_by = Vec::new();
        for r in 0..self.radios.len() {
            if r == s.0 as usize || !self.hears[r][s.0 as usize] {
                continue;
            }
            heard_by.push(r as u16);
            let radio = &mut self.radios[r];
            radio.sensed += 1;
            let first = radio.sensed == 1;
            let sending = radio.tx_until > now;
            match radio.rx.as_mut() {
                Some((_, intact)) => {
                    if *intact {
                        self.stats.collided += 1;
                    }
                    *intact = false;
                }
                None if first && !sending => radio.rx = Some((id, true)),
                None => {}
            }
            if first {
                let sta = Sta(r as u16);
                let mut out = std::mem::take(&mut self.scratch);
                self.macs[r].medium_busy(now, &mut out);
                self.absorb(sta, &mut out);
                self.scratch = out;
            }
        }
        self.air.push(OnAir {
            id,
            frame,
            heard_by,
        });
    }

    fn tx_end(&mut self, now: Time, id: u64) {
        let Some(i) = self.air.iter().position(|a| a.id == id) else {
            debug_assert!(false, "the end of a transmission not on the air");
            return;
        };
        let OnAir {
            frame, heard_by, ..
        } = self.air.swap_remove(i);
        for &r in &heard_by {
            self.end_at(now, r as usize, id, &frame);
        }
    }

    /// A frame ends at station `r` that it sensed.
    fn end_at(&mut self, now: Time, r: usize, id: u64, frame: &Frame) {
        let radio = &mut self.radios[r];
        radio.sensed = radio.sensed.saturating_sub(1);
        let idle = radio.sensed == 0;
        let result = match radio.rx {
            Some((rid, intact)) if rid == id => {
                radio.rx = None;
                Some(intact)
            }
            _ => None,
        };
        let sta = Sta(r as u16);
        let mut out = std::mem::take(&mut self.scratch);
        if idle {
            self.macs[r].medium_idle(now, &mut out);
        }
        match result {
            Some(true) => {
                let lost = frame.kind == FrameKind::Data
                    && self.cfg.data_loss > 0.0
                    && self.errors.bernoulli(self.cfg.data_loss);
                if lost {
                    self.stats.errored += 1;
                    self.macs[r].on_frame_error(now, &mut out);
                } else {
                    self.macs[r].on_frame(now, frame, &mut out);
                }
            }
            Some(false) => self.macs[r].on_frame_error(now, &mut out),
            None => {}
        }
        self.absorb(sta, &mut out);
        self.scratch = out;
    }
}
