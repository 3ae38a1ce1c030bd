//! The base-station-buffer window of study 2 (spec 2 §2.3): the mobile's receiver lowers the
//! window it advertises by the data queued for it at the base station, smoothed by an
//! exponential filter against the yo-yo effect (§2.3 item 3).
//!
//! Decisions recorded here (the scripted tests check each one exactly):
//! - Occupancy mode (§2.3 item 2, the default): on each arriving *data* segment (payload > 0)
//!   that carries `meta.queue_report = Some(Q)`,
//!   `target = clamp(W_max − Q, W_min, W_max)` and `rwnd = ⌊a·target + (1 − a)·rwnd⌋`.
//!   A segment without a report (or a pure ACK, SYN) leaves rwnd unchanged: a BS that sent
//!   nothing recently sends no update and the MS keeps its last value (§2.3 item 1).
//! - Rounding: rwnd is a whole number of bytes, rounded down after every step (§2.3 item 2,
//!   "rounded down to a whole byte"); the rounded value is the next step's `rwnd_old`. The
//!   arithmetic is in f64, exact for a = 1, 0.5, 0.25 and windows below 2^31 bytes. Because
//!   W_min and the previous rwnd are whole bytes in [W_min, W_max], the result stays in that
//!   range.
//! - Initial rwnd = W_max (§2.3 item 2), advertised on the SYN-ACK too.
//! - Rate mode (§2.3 last paragraph, §6 Q2), with the fixed interval τ (`rate_interval`; the
//!   receiver has no RTT estimate of its own): the first data segment opens interval 0 at its
//!   arrival time; payload bytes of every data segment (duplicates included: they crossed
//!   the radio link) count towards the interval they arrive in. The first data segment at or
//!   after an interval's end closes it with one filter step of
//!   `target = clamp(bytes + MSS, W_min, W_max)`, and each further whole interval that passed
//!   without data (an outage) is one more step with `bytes = 0`, at most 64 steps in all;
//!   then that segment counts towards the interval it arrived in. Queue reports are ignored.
//! - The advertised window does not subtract out-of-order bytes (as `FixedWindow`).

use super::WindowPolicy;
use crate::packet::Packet;
use crate::transport::tcp::config::{BsBufferConfig, BsBufferMode};
use packetsim_kernel::Time;

/// `start_ns` before the first data segment.
const NO_START: u64 = u64::MAX;

/// Most filter steps one arriving segment applies in rate mode (after a long outage).
const MAX_RATE_STEPS: u64 = 64;

/// The base-station-buffer window (spec 2 §2.3), built from a validated [`BsBufferConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct BsBufferWindow {
    /// Largest window advertised, bytes.
    w_max: u32,
    /// Smallest window advertised, bytes.
    w_min: u32,
    /// Segment size, bytes (rate mode adds one to the measured bytes).
    mss: u32,
    /// Current advertised window, bytes.
    rwnd: u32,
    /// Filter weight a of the new target, in (0, 1].
    alpha: f64,
    /// Rate mode: payload bytes received in the current interval.
    bytes: u32,
    /// Rate mode: interval τ in ns; 0 in occupancy mode (a valid τ is positive). Plain
    /// integers rather than `Option`s keep the receiver small (see the size test).
    interval_ns: u64,
    /// Rate mode: start of the current interval in ns; `NO_START` until data arrives.
    start_ns: u64,
}

impl BsBufferWindow {
    /// The policy for segments of `mss` bytes; `cfg` must be valid (`TcpConfig::validate`).
    pub fn new(cfg: &BsBufferConfig, mss: u32) -> BsBufferWindow {
        let w_max = cfg.w_max.min(u32::MAX as u64 / 2) as u32;
        let w_min = cfg.w_min.map_or(mss, |w| w.min(w_max as u64) as u32);
        BsBufferWindow {
            w_max,
            w_min,
            mss,
            // spec 2 §2.3 item 2: initial rwnd_old = W_max.
            rwnd: w_max,
            alpha: cfg.alpha,
            bytes: 0,
            interval_ns: match cfg.mode {
                BsBufferMode::Occupancy => 0,
                BsBufferMode::Rate => cfg.rate_interval.as_nanos().max(1),
            },
            start_ns: NO_START,
        }
    }

    /// The window the next ACK carries, bytes.
    pub fn rwnd(&self) -> u32 {
        self.rwnd
    }

    /// One filter step towards `target` (spec 2 §2.3 item 2): clamp, smooth, round down.
    fn step(&mut self, target: u64) {
        let target = target.clamp(self.w_min as u64, self.w_max as u64) as f64;
        let new = self.alpha * target + (1.0 - self.alpha) * self.rwnd as f64;
        self.rwnd = (new.floor() as u32).clamp(self.w_min, self.w_max);
    }

    /// Rate mode (spec 2 §2.3, §6 Q2): closes the intervals that ended by `now`, then counts
    /// `payload` in the current one.
    fn on_data_rate(&mut self, now: Time, payload: u32) {
        let now = now.as_nanos();
        if self.start_ns == NO_START {
            self.start_ns = now;
        }
        let tau = self.interval_ns;
        let elapsed = (now - self.start_ns) / tau;
        if elapsed > 0 {
            // target = bytes delivered per interval + MSS, one step per whole interval.
            self.step(self.bytes as u64 + self.mss as u64);
            for _ in 1..elapsed.min(MAX_RATE_STEPS) {
                self.step(self.mss as u64);
            }
            self.start_ns += elapsed * tau;
            self.bytes = 0;
        }
        self.bytes = self.bytes.saturating_add(payload);
    }
}

impl WindowPolicy for BsBufferWindow {
    fn on_segment(&mut self, now: Time, pkt: &Packet) {
        let Some(h) = pkt.tcp() else {
            return;
        };
        if h.payload == 0 {
            return;
        }
        match (self.interval_ns, pkt.meta.queue_report) {
            (1.., _) => self.on_data_rate(now, h.payload),
            // spec 2 §2.3 item 2: target = clamp(W_max − Q, W_min, W_max).
            (0, Some(q)) => self.step((self.w_max as u64).saturating_sub(q as u64)),
            // spec 2 §2.3 item 1: no report, keep the last value.
            (0, None) => {}
        }
    }

    fn advertised(&mut self, _now: Time, _ooo: u32) -> u32 {
        self.rwnd
    }
}
