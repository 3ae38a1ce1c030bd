//! RED: Random Early Detection (Floyd & Jacobson 1993, "F&J"), as spec 4 §2.3 describes it,
//! with the ECN actions of RFC 3168 §7 and of the DiffServ/ECN study (spec 4 §2.5).
//!
//! On every arrival RED updates an exponentially weighted average of the queue length
//! (F&J §4, with the idle-time correction), then judges the packet by where the average lies:
//!
//! | average                  | decision                                                    |
//! |--------------------------|-------------------------------------------------------------|
//! | `avg < min_th`           | queue; `count = -1`                                         |
//! | `min_th <= avg < max_th` | `count += 1`; chosen with probability `p_a`; `count = 0` if chosen |
//! | `avg >= max_th`          | forced drop of every arrival, ECT or not; `count = 0`       |
//!
//! with `p_b = max_p (avg - min_th)/(max_th - min_th)` and `p_a = p_b/(1 - count p_b)` (1 once
//! `count p_b >= 1`), F&J §4. A chosen packet is dropped early, or gets the ECN action
//! ([`EcnAction`]). An arrival the policy would queue (or mark) is still dropped for overflow
//! when the physical queue is full.
//!
//! Decisions taken here, documented for the scenario writer:
//! - **The typical transmission time `s`** of the idle correction is derived, not configured:
//!   `s = mean_pkt_size` serialised at the link rate, which the builder passes to [`Red::new`]
//!   (the link already knows its rate; spec 4 §2.3 takes 1040 B at the bottleneck rate).
//!   `m = (now - idle_since)/s` is real-valued (F&J §4: `f(t)` is linear in `t`); ns-2 rounds
//!   it down to whole packets.
//! - **The drop-selection process is the same whatever the ECN setting**: every arrival in the
//!   early region increments `count` and draws against `p_a`; a chosen arrival resets `count`.
//!   The ECN action only changes what happens to the packet: with [`EcnMode::Deterministic`]
//!   every ECT arrival in the region gets the action (chosen or not), so non-ECT traffic sees
//!   exactly the drops it would see without ECN.
//! - **Gentle** (`gentle = true`, ns-2's `gentle_`): between `max_th` and `2 max_th`, `p_b`
//!   ramps linearly from `max_p` to 1 and the region behaves like the early region (chosen
//!   packets are dropped early or get the ECN action, as ns-2 does); forced drops start at
//!   `2 max_th`. The study runs without it.
//! - **Byte mode** (`byte_mode = true`, F&J §4 "byte mode"): the queue length is taken in
//!   bytes divided by `mean_pkt_size`, so thresholds stay in (typical) packets, and `p_b` is
//!   scaled by `size / mean_pkt_size` before the count correction.
//! - **An arrival already CE** counts as ECN-capable (RFC 3168 §5): it may get the ECN
//!   action (CE kept) instead of an early drop.
//! - **Overflow resets `count`** when the average is in the early region, as ns-2 does: a
//!   packet was dropped.
//! - **Step marking** (`step = K`, DCTCP's switch, RFC 8257 §3.1 and Alizadeh et al. 2010
//!   §3.1): every arrival that finds more than `K` packets waiting (the instantaneous queue, not
//!   the average; not counting the packet in transmission nor the arrival; typical packets in
//!   byte mode) is chosen: marked CE if ECN-capable and `ecn` is on, else dropped early (or,
//!   with `step_non_ect = "pass"`, queued unmarked when not ECN-capable). At or below `K`
//!   nothing is chosen. The thresholds, `max_p`, `gentle` and `wait` are then unused
//!   and not checked against each other (a step is the `min_th = max_th` RED cannot write);
//!   the average is still kept, for the reports.

use super::{Admission, DropReason, DropTail, QueueLimit, QueueView, Verdict};
use crate::packet::{Ecn, Packet, Precedence};
use crate::units;
use packetsim_kernel::stats::TimeAverage;
use packetsim_kernel::{Dur, Rate, Rng, Time};
use serde::{Deserialize, Serialize};

/// What RED (or RIO) does with an ECN-capable packet instead of an early drop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum EcnAction {
    /// No ECN: every chosen packet is dropped early, ECT or not (default).
    #[default]
    Off,
    /// RFC 3168 §7: a chosen ECT packet is marked CE and queued instead of dropped; the
    /// choice is RED's usual one, with probability `p_a`.
    Standard,
    /// The study's scheme (spec 4 §2.5): an ECT packet in the early region is marked CE, its
    /// drop precedence lowered (OUT becomes IN) and it is queued instead of dropped.
    MarkAndDemote {
        /// Which ECT arrivals in the region get the action.
        #[serde(default)]
        mode: EcnMode,
        /// Lower the precedence of a marked OUT packet to IN (spec 4 §6 Q3; default true).
        #[serde(default = "yes")]
        lower_precedence: bool,
    },
}

fn yes() -> bool {
    true
}

/// Which ECT arrivals in the early region get the study's ECN action (spec 4 §2.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnMode {
    /// Every ECT arrival while the average is in `[min_th, max_th)` (the literal reading,
    /// spec 4 §6 Q2; default).
    #[default]
    Deterministic,
    /// Only those RED chooses, with probability `p_a` (as standard ECN-RED).
    Probabilistic,
}

impl EcnAction {
    /// Whether an ECT packet in the early region gets the action, given whether RED chose it.
    #[inline]
    fn applies(self, chosen: bool) -> bool {
        match self {
            EcnAction::Off => false,
            EcnAction::Standard => chosen,
            EcnAction::MarkAndDemote { mode, .. } => match mode {
                EcnMode::Deterministic => true,
                EcnMode::Probabilistic => chosen,
            },
        }
    }

    /// Marks `pkt` CE and, for the study's scheme, lowers its precedence (spec 4 §2.5 steps 1-2).
    #[inline]
    fn apply(self, pkt: &mut Packet) {
        pkt.ecn = Ecn::Ce;
        if let EcnAction::MarkAndDemote {
            lower_precedence: true,
            ..
        } = self
        {
            pkt.set_precedence(Precedence::In);
        }
    }
}

/// The three RED thresholds of one average (RIO has one set per precedence).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedParams {
    /// Minimum threshold of the average queue, in packets (or typical packets in byte mode).
    pub min_th: f64,
    /// Maximum threshold, in the same unit; must exceed `min_th`.
    pub max_th: f64,
    /// Drop probability `p_b` as the average reaches `max_th`, in (0, 1].
    pub max_p: f64,
}

impl RedParams {
    /// Checks the values; the error names the offending key (from `keys`: min_th, max_th,
    /// max_p as the caller spells them).
    pub(crate) fn validate_as(
        &self,
        keys: [&'static str; 3],
    ) -> Result<(), (&'static str, String)> {
        let [k_min, k_max, k_p] = keys;
        if !(self.min_th.is_finite() && self.min_th >= 0.0) {
            return Err((
                k_min,
                format!(
                    "expected a non-negative number of packets, got {}",
                    self.min_th
                ),
            ));
        }
        if !self.max_th.is_finite() {
            return Err((
                k_max,
                format!("expected a number of packets, got {}", self.max_th),
            ));
        }
        if self.min_th >= self.max_th {
            return Err((
                k_min,
                format!(
                    "expected {k_min} < {k_max}, got {k_min} = {} and {k_max} = {}",
                    self.min_th, self.max_th
                ),
            ));
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return Err((
                k_p,
                format!("expected a probability in (0, 1], got {}", self.max_p),
            ));
        }
        Ok(())
    }

    /// Checks the values, naming keys `min_th`, `max_th`, `max_p`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        self.validate_as(["min_th", "max_th", "max_p"])
    }
}

/// Configuration of a RED queue (spec 4 §2.3). Defaults are ns-2's / F&J's recommendations;
/// the study's BE queue sets min_th 50, max_th 180, max_p 0.05, limit 200 (spec 4 §3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedConfig {
    /// EWMA weight `w_q` of the average, in (0, 1] (default 0.002, F&J §11).
    pub weight: f64,
    /// Minimum threshold in packets (default 5, ns-2 `thresh_`).
    pub min_th: f64,
    /// Maximum threshold in packets (default 15, ns-2 `maxthresh_`).
    pub max_th: f64,
    /// `p_b` at `max_th`, in (0, 1] (default 0.1, ns-2 `linterm_` 10).
    pub max_p: f64,
    /// Physical queue limit: an integer is packets, a byte count with a unit is bytes
    /// (default 50 packets, ns-2's default queue limit).
    pub limit: QueueLimit,
    /// Bytes of a typical packet: the idle correction's `s` is its transmission time at the
    /// link rate, and byte mode's unit (default 1000; ns-2 uses 500, the study 1040).
    #[serde(with = "units::bytes")]
    pub mean_pkt_size: u64,
    /// Ramp `p_b` from `max_p` to 1 between `max_th` and `2 max_th` (default false).
    pub gentle: bool,
    /// Measure the queue in bytes / `mean_pkt_size` and scale `p_b` by packet size
    /// (default false: packets).
    pub byte_mode: bool,
    /// What ECT packets get instead of an early drop (default `off`).
    pub ecn: EcnAction,
    /// ns-2's `wait_` variant: `p_a = p_b/(2 - count p_b)`, zero while `count p_b < 1`
    /// (default false).
    pub wait: bool,
    /// ns-2 dsRED's `p_a` (diffserv/dsredq.cc): `p_b/(1 - count p_b)` with no clamp, so once
    /// `count p_b` steps past 1 without a choice, `p_a` is negative and nothing is chosen until
    /// the average leaves the region (default false: F&J's clamp to 1, spec 4 §2.3).
    pub ns2_dsred_count: bool,
    /// Step marking at this instantaneous queue length in packets (DCTCP's `K`, RFC 8257
    /// §3.1): every arrival finding more than `K` waiting is chosen. Default none: RED.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<f64>,
    /// With `step`: what a chosen packet that is not ECN-capable gets (default `drop`).
    #[serde(skip_serializing_if = "StepNonEct::is_drop")]
    pub step_non_ect: StepNonEct,
    /// ns-2.35's backlog test (`REDQueue::enque`: early and forced action only when
    /// `qavg >= th_min && qlen > 1`): an arrival that finds at most one packet waiting (one
    /// byte in byte mode) is neither chosen nor force-dropped whatever the average, and
    /// `count` restarts as below `min_th` (ns-2 clears `old`). Default false (F&J: the average
    /// alone decides).
    #[serde(skip_serializing_if = "is_false")]
    pub ns2_backlog_test: bool,
    /// ns-2.35's `count` on entering the early region (`REDQueue::enque`: with `old` clear
    /// the arrival sets `count = 1` and `old = 1` and is not drawn; the next arrival draws
    /// with count 2). Default false (F&J §4: the entry arrival counts 0 and is drawn).
    #[serde(skip_serializing_if = "is_false")]
    pub ns2_region_count: bool,
    /// ns-2.35's `use_mark_p_` with `mark_p_` (`queue/red.cc` `REDQueue::drop_early`): a
    /// chosen ECN-capable arrival is marked only while `p_b` (before the count correction
    /// and the byte scaling) is below this value; from it on the arrival is dropped early
    /// like a packet that is not ECN-capable. ns-2.35's defaults are `use_mark_p_ true`,
    /// `mark_p_ 0.1`. Default none: every chosen ECN-capable arrival gets the ECN action.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ns2_mark_p: Option<f64>,
    /// ns-2.35's idle-time decay (`queue/red.cc` `REDQueue::enque` and `estimator`): an
    /// arrival to an idle link decays the average `int(ptc (now - idletime)) + 1` times
    /// (whole typical packet times, rounded down, plus the arrival's own update with an empty
    /// queue). Default false: `(1 - w)^m` with `m` real (F&J §4).
    #[serde(skip_serializing_if = "is_false")]
    pub ns2_idle_decay: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// What a step queue does with a chosen arrival that is not ECN-capable (a SYN, a pure ACK,
/// a retransmission, a flow without ECN).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepNonEct {
    /// Drop it early, as RED with ECN does (RFC 3168 §5; ns-3 `RedQueueDisc`).
    #[default]
    Drop,
    /// Queue it unmarked: the step only marks, and only overflow drops (the DCTCP paper's
    /// switch marks above K and drops only when full, Alizadeh et al. 2010 §3.1).
    Pass,
}

impl StepNonEct {
    /// Whether this is the default (left out when a config is written).
    pub fn is_drop(&self) -> bool {
        *self == StepNonEct::Drop
    }
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            weight: 0.002,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            limit: QueueLimit::Packets(50),
            mean_pkt_size: 1000,
            gentle: false,
            byte_mode: false,
            ecn: EcnAction::Off,
            wait: false,
            ns2_dsred_count: false,
            step: None,
            step_non_ect: StepNonEct::Drop,
            ns2_backlog_test: false,
            ns2_region_count: false,
            ns2_mark_p: None,
            ns2_idle_decay: false,
        }
    }
}

/// Checks the weight, limit and typical packet size shared by RED and RIO.
pub(crate) fn validate_common(
    weight: f64,
    limit: QueueLimit,
    mean_pkt_size: u64,
) -> Result<(), (&'static str, String)> {
    if !(weight > 0.0 && weight <= 1.0) {
        return Err((
            "weight",
            format!("expected a weight in (0, 1], got {weight}"),
        ));
    }
    match limit {
        QueueLimit::Packets(0) | QueueLimit::Bytes(0) => {
            return Err(("limit", "expected a positive queue limit".into()))
        }
        _ => {}
    }
    if mean_pkt_size == 0 || mean_pkt_size > 65_535 {
        return Err((
            "mean_pkt_size",
            format!("expected 1 to 65535 bytes, got {mean_pkt_size}"),
        ));
    }
    Ok(())
}

impl RedConfig {
    /// The thresholds as one [`RedParams`].
    pub fn params(&self) -> RedParams {
        RedParams {
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
        }
    }

    /// Checks the values; the error names the offending key and says what was expected.
    /// With `step`, the thresholds are unused and not checked.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        validate_common(self.weight, self.limit, self.mean_pkt_size)?;
        if self.step.is_none() && self.step_non_ect != StepNonEct::Drop {
            return Err((
                "step_non_ect",
                "expected `step` with it (it applies to step marking only)".into(),
            ));
        }
        if let Some(m) = self.ns2_mark_p {
            if !(m > 0.0 && m <= 1.0) {
                return Err((
                    "ns2_mark_p",
                    format!("expected a probability in (0, 1], got {m}"),
                ));
            }
        }
        match self.step {
            Some(k) if !(k.is_finite() && k >= 0.0) => Err((
                "step",
                format!("expected a non-negative number of packets, got {k}"),
            )),
            Some(_) => Ok(()),
            None => self.params().validate(),
        }
    }
}

/// The options that shape RED's decision, shared by every average of a queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedOptions {
    /// EWMA weight `w_q`.
    pub weight: f64,
    /// Typical transmission time `s` of the idle correction.
    pub s: Dur,
    /// ns-2's gentle ramp above `max_th`.
    pub gentle: bool,
    /// ns-2's wait variant of `p_a`.
    pub wait: bool,
    /// ns-2 dsRED's unclamped `p_a` (see [`RedConfig::ns2_dsred_count`]).
    pub ns2_dsred_count: bool,
    /// ns-2.35's `count = 1` on entering the region (see [`RedConfig::ns2_region_count`]).
    pub ns2_region_count: bool,
    /// ns-2.35's whole-packet idle decay (see [`RedConfig::ns2_idle_decay`]).
    pub ns2_idle_decay: bool,
}

/// Where the average put an arrival, after the random choice (before ECN and overflow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedDecision {
    /// Below `min_th`: no early action.
    Below,
    /// In the early region, not chosen.
    Spared,
    /// In the early region, chosen (early drop or ECN action).
    Chosen,
    /// At or above `max_th` (`2 max_th` when gentle): forced drop.
    Forced,
}

/// One RED average with its thresholds and `count`: RED has one, RIO one per precedence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedCore {
    /// The thresholds.
    pub params: RedParams,
    /// The average queue, in packets.
    avg: f64,
    /// Arrivals in the early region since the last chosen one; -1 below `min_th` (F&J §4).
    count: i64,
}

/// A snapshot of one RED average, for tests and traces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedState {
    /// The average queue, in packets.
    pub avg: f64,
    /// F&J's `count`.
    pub count: i64,
}

impl RedCore {
    /// A fresh average (0) with `count = -1`.
    pub fn new(params: RedParams) -> RedCore {
        RedCore {
            params,
            avg: 0.0,
            count: -1,
        }
    }

    /// The average queue, in packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The state snapshot.
    pub fn state(&self) -> RedState {
        RedState {
            avg: self.avg,
            count: self.count,
        }
    }

    /// Updates the average for an arrival that sees `q` packets waiting (F&J §4, spec 4
    /// §2.3): `avg = (1 - w) avg + w q`; when the link has been idle since `idle_since`,
    /// `avg = (1 - w)^m avg` with `m = (now - idle_since)/s` instead.
    #[inline]
    pub fn update(&mut self, opts: &RedOptions, now: Time, q: f64, idle_since: Option<Time>) {
        let w = opts.weight;
        match idle_since {
            // An average of zero decays to zero (the factor is finite): the power, a libm
            // call, is skipped, and the result is the same bits. Most arrivals at an idle
            // queue of a fat tree find it so.
            Some(_) if self.avg == 0.0 => {}
            Some(t) if opts.ns2_idle_decay => {
                // ns-2.35 `estimator(q, m + 1, ..)` with `m = int(ptc * idle)`, q = 0.
                let m = now.saturating_since(t).as_nanos() / opts.s.as_nanos();
                let m = i32::try_from(m.saturating_add(1)).unwrap_or(i32::MAX);
                self.avg *= (1.0 - w).powi(m);
            }
            Some(t) => {
                let m = now.saturating_since(t).as_nanos() as f64 / opts.s.as_nanos() as f64;
                self.avg *= (1.0 - w).powf(m);
            }
            None => self.avg = (1.0 - w) * self.avg + w * q,
        }
    }

    /// `p_b` for the current average (F&J §4), including the gentle ramp; `None` outside the
    /// early region (below `min_th`, or forced).
    #[inline]
    pub fn p_b(&self, gentle: bool) -> Option<f64> {
        let RedParams {
            min_th,
            max_th,
            max_p,
        } = self.params;
        let avg = self.avg;
        if avg < min_th {
            None
        } else if avg < max_th {
            Some(max_p * (avg - min_th) / (max_th - min_th))
        } else if gentle && avg < 2.0 * max_th {
            // ns-2 gentle_: linear from max_p at max_th to 1 at 2 max_th.
            Some(max_p + (1.0 - max_p) * (avg - max_th) / max_th)
        } else {
            None
        }
    }

    /// `p_a` from `p_b` and `count` (F&J §4: `p_b/(1 - count p_b)`, 1 once `count p_b >= 1`;
    /// ns-2 wait: 0 while `count p_b < 1`, then `p_b/(2 - count p_b)`, 1 from 2).
    #[inline]
    pub fn p_a(p_b: f64, count: i64, wait: bool) -> f64 {
        let cp = count as f64 * p_b;
        if wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        }
    }

    /// ns-2 dsRED's `p_a` (diffserv/dsredq.cc): `p_b/(1 - count p_b)` unclamped. At
    /// `count p_b = 1` it is infinite (certain choice); beyond, negative (never chosen), which
    /// happens when `p_b` grows between arrivals so that `count p_b` skips over 1.
    #[inline]
    pub fn p_a_ns2_dsred(p_b: f64, count: i64) -> f64 {
        let d = 1.0 - count as f64 * p_b;
        if d == 0.0 {
            1.0
        } else {
            (p_b / d).min(1.0)
        }
    }

    /// Judges an arrival with the current average (update it first). `scale` multiplies
    /// `p_b` (byte mode: size / mean size; else 1). Updates `count` (F&J §4, spec 4 §2.3).
    #[inline]
    pub fn decide(&mut self, opts: &RedOptions, scale: f64, rng: &mut Rng) -> RedDecision {
        if self.avg < self.params.min_th {
            self.count = -1;
            return RedDecision::Below;
        }
        let Some(p_b) = self.p_b(opts.gentle) else {
            self.count = 0;
            return RedDecision::Forced;
        };
        if opts.ns2_region_count && self.count < 0 {
            // ns-2.35 `REDQueue::enque`, `old == 0`: count = 1, old = 1, no draw.
            self.count = 1;
            return RedDecision::Spared;
        }
        self.count += 1;
        let p_b = (p_b * scale).min(1.0);
        let p_a = if opts.ns2_dsred_count {
            RedCore::p_a_ns2_dsred(p_b, self.count)
        } else {
            RedCore::p_a(p_b, self.count, opts.wait)
        };
        if rng.bernoulli(p_a) {
            self.count = 0;
            RedDecision::Chosen
        } else {
            RedDecision::Spared
        }
    }

    /// The arrival takes no early action outside the average's test (ns-2's backlog test):
    /// `count` restarts as below `min_th`.
    #[inline]
    pub fn leave_region(&mut self) {
        self.count = -1;
    }

    /// Notes that the arrival was dropped for overflow: `count` restarts if in the region (ns-2).
    #[inline]
    pub fn overflowed(&mut self) {
        if self.count > 0 {
            self.count = 0;
        }
    }
}

/// What becomes of `pkt`, given RED's decision, the ECN action and whether the physical queue
/// is full (spec 4 §2.3-2.5): forced drops and overflow hit every packet, ECT or not; a chosen
/// non-ECT packet is dropped early; an ECT packet in the region may get the ECN action.
#[inline]
pub(crate) fn verdict(
    core: &mut RedCore,
    d: RedDecision,
    ecn: EcnAction,
    full: bool,
    pkt: &mut Packet,
) -> Verdict {
    let (chosen, in_region) = match d {
        RedDecision::Forced => return Verdict::Dropped(DropReason::Forced),
        RedDecision::Below => (false, false),
        RedDecision::Spared => (false, true),
        RedDecision::Chosen => (true, true),
    };
    // RFC 3168 §5: a packet already marked CE (by an upstream router) is ECN-capable too; a
    // router that would drop it early forwards it with CE kept instead.
    let capable = pkt.ecn.is_ect() || pkt.ecn == Ecn::Ce;
    let ecn_action = in_region && capable && ecn.applies(chosen);
    if chosen && !ecn_action {
        return Verdict::Dropped(DropReason::Early);
    }
    if full {
        core.overflowed();
        return Verdict::Dropped(DropReason::Overflow);
    }
    if ecn_action {
        ecn.apply(pkt);
        Verdict::Marked
    } else {
        Verdict::Queued
    }
}

/// A RED queue's admission policy.
#[derive(Clone, Debug)]
pub struct Red {
    core: RedCore,
    opts: RedOptions,
    tail: DropTail,
    ecn: EcnAction,
    /// Byte mode: the typical packet size in bytes; `None` in packet mode.
    byte_unit: Option<f64>,
    /// The average over time (it changes only at arrivals), for the reports.
    track: TimeAverage,
    /// Step marking threshold `K` (see the module doc).
    step: Option<f64>,
    /// What a chosen non-ECN-capable arrival gets under `step`.
    step_non_ect: StepNonEct,
    /// ns-2.35's `qlen > 1` test ([`RedConfig::ns2_backlog_test`]).
    ns2_backlog_test: bool,
    /// ns-2.35's `mark_p_` ([`RedConfig::ns2_mark_p`]).
    ns2_mark_p: Option<f64>,
}

impl Red {
    /// A RED queue from a validated config, on a link of `link_rate` (which sets `s`).
    pub fn new(cfg: &RedConfig, link_rate: Rate) -> Red {
        debug_assert!(cfg.validate().is_ok(), "RED config not validated: {cfg:?}");
        Red {
            core: RedCore::new(cfg.params()),
            opts: RedOptions {
                weight: cfg.weight,
                s: typical_tx_time(cfg.mean_pkt_size, link_rate),
                gentle: cfg.gentle,
                wait: cfg.wait,
                ns2_dsred_count: cfg.ns2_dsred_count,
                ns2_region_count: cfg.ns2_region_count,
                ns2_idle_decay: cfg.ns2_idle_decay,
            },
            tail: DropTail::new(cfg.limit),
            ecn: cfg.ecn,
            byte_unit: cfg.byte_mode.then_some(cfg.mean_pkt_size as f64),
            track: TimeAverage::new(Time::ZERO),
            step: cfg.step,
            step_non_ect: cfg.step_non_ect,
            ns2_backlog_test: cfg.ns2_backlog_test,
            ns2_mark_p: cfg.ns2_mark_p,
        }
    }

    /// The time-weighted mean of the average over `[0, end)`: each arrival's value holds until
    /// the next arrival.
    pub fn average_mean(&self, end: Time) -> f64 {
        self.track.mean(end)
    }

    /// The largest average seen.
    pub fn average_max(&self) -> f64 {
        self.track.max()
    }

    /// The average queue, in packets (typical packets in byte mode).
    pub fn average(&self) -> f64 {
        self.core.avg()
    }

    /// The state snapshot.
    pub fn state(&self) -> RedState {
        self.core.state()
    }

    /// The typical transmission time `s` of the idle correction.
    pub fn s(&self) -> Dur {
        self.opts.s
    }
}

/// `s`: the time to send `mean_pkt_size` bytes at `rate`, at least 1 ns (a zero rate never
/// decays the average).
pub(crate) fn typical_tx_time(mean_pkt_size: u64, rate: Rate) -> Dur {
    let size = u32::try_from(mean_pkt_size).unwrap_or(u32::MAX);
    Dur(rate.tx_time(size).as_nanos().max(1))
}

impl Admission for Red {
    // Always inlined into the admission's dispatch: out of line, its register saves and
    // restores were 18 of its 72 instructions a packet on the fat tree.
    #[inline(always)]
    fn admit(&mut self, now: Time, q: &QueueView, pkt: &mut Packet, rng: &mut Rng) -> Verdict {
        let (len, scale) = match self.byte_unit {
            None => (q.len.packets as f64, 1.0),
            Some(unit) => (q.len.bytes as f64 / unit, pkt.size as f64 / unit),
        };
        self.core.update(&self.opts, now, len, q.idle_since);
        self.track.set(now, self.core.avg());
        let backlog = match self.byte_unit {
            None => q.len.packets as u64,
            Some(_) => q.len.bytes,
        };
        let d = match self.step {
            // ns-2.35 `REDQueue::enque`: `if (qavg >= th_min && qlen > 1)`, else `old = 0`.
            None if self.ns2_backlog_test && backlog <= 1 => {
                self.core.leave_region();
                RedDecision::Below
            }
            None => self.core.decide(&self.opts, scale, rng),
            // `step_non_ect = "pass"`: the step marks ECN-capable arrivals and lets the
            // others in (CE counts as capable, RFC 3168 §5).
            Some(k)
                if len > k
                    && !(self.step_non_ect == StepNonEct::Pass && pkt.ecn == Ecn::NotEct) =>
            {
                RedDecision::Chosen
            }
            Some(_) => RedDecision::Below,
        };
        if let (RedDecision::Chosen, Some(mark_p)) = (d, self.ns2_mark_p) {
            // ns-2.35 `REDQueue::drop_early`: mark only `if (!use_mark_p || v_prob1 < mark_p)`.
            if self.core.p_b(self.opts.gentle).is_some_and(|p| p >= mark_p) {
                return Verdict::Dropped(DropReason::Early);
            }
        }
        let full = self.tail.is_full(q.len, pkt.size);
        verdict(&mut self.core, d, self.ecn, full, pkt)
    }
}


impl super::QueueConfig for RedConfig {
    type Disc = Red;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        RedConfig::validate(self)
    }
    fn build(&self, rate: Rate) -> Red {
        Red::new(self, rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::packet::{dscp, Body};
    use crate::queue::QueueLen;

    /// 1000-byte packets at 8 Mb/s: s = 1 ms exactly.
    const RATE: Rate = Rate::mbps(8);

    fn cfg(weight: f64, min_th: f64, max_th: f64, max_p: f64) -> RedConfig {
        RedConfig {
            weight,
            min_th,
            max_th,
            max_p,
            limit: QueueLimit::Packets(1000),
            ..RedConfig::default()
        }
    }

    fn pkt(ecn: Ecn, dscp: u8) -> Packet {
        let mut p = Packet::new(Addr(0), Addr(1), Body::Udp { seq: 0, payload: 0 });
        p.size = 1000;
        p.ecn = ecn;
        p.dscp = dscp;
        p
    }

    fn busy(packets: u32) -> QueueView {
        QueueView {
            len: QueueLen {
                packets,
                bytes: packets as u64 * 1000,
            },
            ..Default::default()
        }
    }

    fn arrive(red: &mut Red, now: Time, q: QueueView, p: &mut Packet, rng: &mut Rng) -> Verdict {
        red.admit(now, &q, p, rng)
    }

    // ns-2.35 `REDQueue::enque`: `if (qavg >= th_min && qlen > 1)` gates both the early and
    // the forced action. w = 1 (avg = q), min_th 0.2, max_th 0.5, not gentle: any arrival
    // that finds a packet waiting has avg >= max_th, a forced drop (F&J). With the test, one
    // waiting packet (qlen 1) is queued and count restarts (-1); two are still dropped.
    #[test]
    fn ns2_backlog_test_spares_arrivals_behind_one_packet() {
        let mut c = cfg(1.0, 0.2, 0.5, 0.1);
        let mut rng = Rng::from_seed(1);
        let mut p = pkt(Ecn::NotEct, dscp::BE);
        let mut red = Red::new(&c, RATE);
        assert_eq!(
            arrive(&mut red, Time::ZERO, busy(1), &mut p, &mut rng),
            Verdict::Dropped(DropReason::Forced)
        );
        c.ns2_backlog_test = true;
        let mut red = Red::new(&c, RATE);
        assert_eq!(
            arrive(&mut red, Time::ZERO, busy(1), &mut p, &mut rng),
            Verdict::Queued
        );
        assert_eq!(red.state().count, -1);
        assert_eq!(red.average(), 1.0, "the average is still updated");
        assert_eq!(
            arrive(&mut red, Time::ZERO, busy(2), &mut p, &mut rng),
            Verdict::Dropped(DropReason::Forced)
        );
        assert!(!RedConfig::default().ns2_backlog_test);
    }

    // ns-2.35 `REDQueue::enque`: the arrival that finds the average in the region with `old`
    // clear sets `count = 1` and `old = 1` without a draw; the next one draws with count 2
    // (`++edv_.count` first). F&J (the default) counts the entry arrival as 0 and draws. wait
    // variant, w = 1 (avg = q = 11), min_th 2, max_th 12, max_p 1: p_b = 0.9, p_a = 0 while
    // count < 2 (count p_b < 1) and 1 from count 2 (count p_b >= 2 - p_b): the second arrival
    // is dropped early with the option, the third without it.
    #[test]
    fn ns2_region_count_enters_the_region_at_count_one_without_a_draw() {
        for (ns2, dropped_at) in [(false, 2), (true, 1)] {
            let mut c = cfg(1.0, 2.0, 12.0, 1.0);
            c.wait = true;
            c.ns2_region_count = ns2;
            let mut red = Red::new(&c, RATE);
            let mut rng = Rng::from_seed(1);
            let mut p = pkt(Ecn::NotEct, dscp::BE);
            let verdicts: Vec<Verdict> = (0..3)
                .map(|_| arrive(&mut red, Time::ZERO, busy(11), &mut p, &mut rng))
                .collect();
            for (i, v) in verdicts.iter().enumerate() {
                let want = if i == dropped_at {
                    Verdict::Dropped(DropReason::Early)
                } else {
                    Verdict::Queued
                };
                assert_eq!(*v, want, "ns2 {ns2}, arrival {i}");
            }
        }
        assert!(!RedConfig::default().ns2_region_count);
    }

    // ns-2.35 `REDQueue::drop_early`: a chosen ECT arrival gets CE only
    // `if (!use_mark_p_ || v_prob1 < mark_p_)`, else it is dropped; v_prob1 is
    // `calculate_p_new`'s p_b. w = 1 (avg = q), min_th 2, max_th 12, max_p 0.1, gentle, mark_p
    // 0.1: q = 6 gives p_b 0.04 (marked either way); q = 12 gives p_b = max_p = 0.1 exactly
    // and q = 23 gives 0.925 (dropped early with the option, marked without). The first
    // arrival that is not queued is checked (count grows until one is chosen).
    #[test]
    fn ns2_mark_p_drops_chosen_ect_arrivals_from_mark_p_on() {
        for (mark_p, q, want) in [
            (None, 6, Verdict::Marked),
            (Some(0.1), 6, Verdict::Marked),
            (None, 12, Verdict::Marked),
            (Some(0.1), 12, Verdict::Dropped(DropReason::Early)),
            (None, 23, Verdict::Marked),
            (Some(0.1), 23, Verdict::Dropped(DropReason::Early)),
        ] {
            let mut c = cfg(1.0, 2.0, 12.0, 0.1);
            c.gentle = true;
            c.ecn = EcnAction::Standard;
            c.ns2_mark_p = mark_p;
            let mut red = Red::new(&c, RATE);
            let mut rng = Rng::from_seed(3);
            let first = (0..1000)
                .map(|_| {
                    let mut p = pkt(Ecn::Ect0, dscp::BE);
                    arrive(&mut red, Time::ZERO, busy(q), &mut p, &mut rng)
                })
                .find(|v| *v != Verdict::Queued);
            assert_eq!(first, Some(want), "mark_p {mark_p:?}, q {q}");
        }
        assert_eq!(RedConfig::default().ns2_mark_p, None);
        let c = RedConfig {
            ns2_mark_p: Some(0.0),
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "ns2_mark_p");
    }

    // ns-2.35 `REDQueue::enque`: after idle time T the arrival runs `estimator(0, m + 1, ..)`
    // with `m = int(ptc T)`, i.e. int(T/s) + 1 decays; F&J's m = T/s is real. w = 0.25,
    // s = 1 ms, avg 1 (one arrival at q = 4), idle 2.5 ms: 0.75^3 = 27/64 with the option,
    // 0.75^2.5 without; idle 0 (arrival as the link frees): one decay, 0.75, against none.
    #[test]
    fn ns2_idle_decay_rounds_down_and_adds_the_arrivals_update() {
        for (ns2, idle_us, want) in [
            (true, 2500, 27.0 / 64.0),
            (false, 2500, 0.75f64.powf(2.5)),
            (true, 0, 0.75),
            (false, 0, 1.0),
        ] {
            let mut c = cfg(0.25, 5.0, 15.0, 0.1);
            c.ns2_idle_decay = ns2;
            let mut red = Red::new(&c, RATE);
            let mut rng = Rng::from_seed(1);
            let mut p = pkt(Ecn::NotEct, dscp::BE);
            arrive(&mut red, Time::ZERO, busy(4), &mut p, &mut rng);
            assert_eq!(red.average(), 1.0);
            let t = Time::from_millis(1);
            let idle = QueueView {
                idle_since: Some(t),
                ..Default::default()
            };
            arrive(
                &mut red,
                t + Dur::from_micros(idle_us),
                idle,
                &mut p,
                &mut rng,
            );
            assert!(
                (red.average() - want).abs() < 1e-15,
                "ns2 {ns2}, idle {idle_us} us: {} vs {want}",
                red.average()
            );
        }
        assert!(!RedConfig::default().ns2_idle_decay);
    }

    // The report's RED average (issue 14 item 9): each arrival's value holds until the next
    // one. w = 0.5, 1 ms per packet: arrivals at 0 (q 0 -> avg 0), 1 ms (q 4 -> 2) and 3 ms
    // (q 0 -> 1); over [0, 4 ms) the mean is (0·1 + 2·2 + 1·1)/4 = 1.25, the max 2, the end 1.
    #[test]
    fn average_over_time_holds_each_arrivals_value() {
        let mut red = Red::new(&cfg(0.5, 50.0, 100.0, 0.1), RATE);
        let mut rng = Rng::from_seed(1);
        let mut p = pkt(Ecn::NotEct, dscp::BE);
        for (t, q) in [(0, 0), (1, 4), (3, 0)] {
            arrive(&mut red, Time::from_millis(t), busy(q), &mut p, &mut rng);
        }
        assert_eq!(red.average(), 1.0);
        assert_eq!(red.average_max(), 2.0);
        assert_eq!(red.average_mean(Time::from_millis(4)), 1.25);
        assert_eq!(red.average_mean(Time::from_millis(3)), 4.0 / 3.0);
    }

    // F&J §4, spec 4 §2.3: avg = (1-w) avg + w q on arrivals to a busy link, and
    // avg = (1-w)^m avg with m = (now - idle_since)/s after an idle period.
    #[test]
    fn average_follows_ewma_and_idle_correction_on_scripted_lengths() {
        let mut red = Red::new(&cfg(0.25, 5.0, 15.0, 0.1), RATE);
        assert_eq!(red.s(), Dur::from_millis(1));
        let mut rng = Rng::from_seed(1);
        let mut p = pkt(Ecn::NotEct, dscp::BE);
        let mut now = Time::from_millis(1);
        // Powers of two: every value below is exact in binary floating point.
        for (q, want) in [(4, 1.0), (8, 2.75), (0, 2.0625), (2, 2.046875)] {
            arrive(&mut red, now, busy(q), &mut p, &mut rng);
            assert_eq!(red.average(), want, "after q = {q}");
            now += Dur::from_millis(1);
        }
        // Idle for 3 ms = 3 s: avg *= 0.75^3 = 27/64.
        let idle = QueueView {
            idle_since: Some(now),
            ..Default::default()
        };
        arrive(&mut red, now + Dur::from_millis(3), idle, &mut p, &mut rng);
        let want = 2.046875 * 27.0 / 64.0;
        assert!(
            (red.average() - want).abs() < 1e-15,
            "{} vs {want}",
            red.average()
        );
        // m is real-valued: half a packet time decays by (1-w)^0.5.
        let before = red.average();
        let t = now + Dur::from_millis(10);
        let idle = QueueView {
            idle_since: Some(t),
            ..Default::default()
        };
        arrive(&mut red, t + Dur::from_micros(500), idle, &mut p, &mut rng);
        assert!((red.average() - before * 0.75f64.sqrt()).abs() < 1e-15);
    }

    // Spec 4 §2.3 with the study's weight 0.002: the average after n arrivals to a constant
    // queue q from 0 is q (1 - (1-w)^n).
    #[test]
    fn average_with_small_weight_converges_geometrically() {
        let mut red = Red::new(&cfg(0.002, 50.0, 180.0, 0.05), RATE);
        let mut rng = Rng::from_seed(1);
        let mut p = pkt(Ecn::NotEct, dscp::BE);
        for _ in 0..500 {
            arrive(&mut red, Time::ZERO, busy(40), &mut p, &mut rng);
        }
        let want = 40.0 * (1.0 - 0.998f64.powi(500));
        assert!((red.average() - want).abs() < 1e-9);
    }

    // F&J §4: p_b = max_p (avg - min_th)/(max_th - min_th); p_a = p_b/(1 - count p_b), 1 once
    // count p_b >= 1; ns-2 wait: 0 below count p_b = 1, p_b/(2 - count p_b), 1 from 2.
    #[test]
    fn p_a_follows_count_formula_for_given_avg_and_count() {
        let mut core = RedCore::new(RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
        });
        core.avg = 10.0;
        let p_b = core.p_b(false).unwrap();
        assert!((p_b - 0.05).abs() < 1e-15);
        assert_eq!(RedCore::p_a(0.05, 0, false), 0.05);
        assert!((RedCore::p_a(0.05, 10, false) - 0.1).abs() < 1e-15);
        assert!((RedCore::p_a(0.05, 18, false) - 0.5).abs() < 1e-12);
        assert_eq!(RedCore::p_a(0.05, 20, false), 1.0);
        assert_eq!(RedCore::p_a(0.05, 25, false), 1.0);
        assert_eq!(RedCore::p_a(0.05, 10, true), 0.0);
        assert!((RedCore::p_a(0.05, 30, true) - 0.1).abs() < 1e-15);
        assert_eq!(RedCore::p_a(0.05, 40, true), 1.0);
        core.avg = 4.999;
        assert_eq!(core.p_b(false), None, "below min_th");
        core.avg = 15.0;
        assert_eq!(core.p_b(false), None, "at max_th: forced");
    }

    // F&J §4 (count spreading), spec 4 §2.3 and §6 Q2: with the average fixed in the region
    // (w = 1 makes avg = q), count restarts at 0 after a drop and the k-th arrival after it
    // is dropped with p_b/(1 - k p_b), so the gaps between drops are uniform on
    // {1, .., 1/p_b - 1} = {1, .., 19} for p_b = 0.05: mean gap 10, drop rate 0.1 (about
    // 2 p_b), and no gap exceeds 1/p_b.
    #[test]
    fn between_thresholds_early_drop_rate_matches_count_spread_mean() {
        let mut red = Red::new(&cfg(1.0, 5.0, 15.0, 0.1), RATE);
        let mut rng = Rng::from_seed(7);
        let n = 200_000;
        let (mut drops, mut since, mut max_gap) = (0u32, 0u32, 0u32);
        let mut gaps = [0u32; 21];
        for _ in 0..n {
            let mut p = pkt(Ecn::NotEct, dscp::BE);
            since += 1;
            match arrive(&mut red, Time::ZERO, busy(10), &mut p, &mut rng) {
                Verdict::Dropped(DropReason::Early) => {
                    drops += 1;
                    max_gap = max_gap.max(since);
                    gaps[since.min(20) as usize] += 1;
                    since = 0;
                }
                Verdict::Queued => {}
                v => panic!("unexpected {v:?}"),
            }
        }
        let rate = drops as f64 / n as f64;
        assert!((rate - 0.1).abs() < 0.003, "early-drop rate {rate}");
        assert!(max_gap <= 20, "a gap of {max_gap} arrivals");
        // Uniform gaps: each of 1..=19 holds about 1/19 of the drops.
        for (g, &c) in gaps.iter().enumerate().take(20).skip(1) {
            let share = c as f64 / drops as f64;
            assert!((share - 1.0 / 19.0).abs() < 0.01, "gap {g}: {share}");
        }
    }

    // Spec 4 §2.3: avg < min_th queues every arrival and holds count at -1.
    #[test]
    fn below_min_th_never_drops_early() {
        let mut red = Red::new(&cfg(0.002, 5.0, 15.0, 0.1), RATE);
        let mut rng = Rng::from_seed(3);
        for i in 0..100_000u32 {
            let mut p = pkt(Ecn::NotEct, dscp::BE);
            let v = arrive(&mut red, Time::ZERO, busy(i % 9), &mut p, &mut rng);
            assert_eq!(v, Verdict::Queued);
        }
        assert!(red.average() < 5.0);
        assert_eq!(red.state().count, -1);
    }

    // Spec 4 §2.3 and §2.5: avg >= max_th force-drops every arrival, ECT or not, whatever the
    // ECN action (RFC 3168 §7 also drops above max_th), and resets count.
    #[test]
    fn above_max_th_forces_drop_of_every_arrival_even_ect() {
        let actions = [
            EcnAction::Off,
            EcnAction::Standard,
            EcnAction::MarkAndDemote {
                mode: EcnMode::Deterministic,
                lower_precedence: true,
            },
            EcnAction::MarkAndDemote {
                mode: EcnMode::Probabilistic,
                lower_precedence: true,
            },
        ];
        for ecn in actions {
            let mut red = Red::new(
                &RedConfig {
                    ecn,
                    ..cfg(1.0, 5.0, 15.0, 0.1)
                },
                RATE,
            );
            let mut rng = Rng::from_seed(3);
            for q in [15, 16, 100] {
                for e in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1] {
                    let mut p = pkt(e, dscp::AF12);
                    let v = arrive(&mut red, Time::ZERO, busy(q), &mut p, &mut rng);
                    assert_eq!(v, Verdict::Dropped(DropReason::Forced), "{ecn:?} {e:?}");
                    assert_eq!(p.ecn, e, "a dropped packet is not marked");
                    assert_eq!(red.state().count, 0);
                }
            }
        }
    }

    // RFC 3168 §7 (ECN-RED): a chosen ECT packet is marked CE and queued instead of dropped,
    // with RED's usual probability; non-ECT packets are still dropped early.
    #[test]
    fn standard_ecn_marks_chosen_ect_and_drops_chosen_non_ect() {
        let c = RedConfig {
            ecn: EcnAction::Standard,
            ..cfg(1.0, 5.0, 15.0, 0.1)
        };
        let mut red = Red::new(&c, RATE);
        let mut rng = Rng::from_seed(11);
        let n = 100_000;
        let (mut marks, mut early) = (0u32, 0u32);
        for i in 0..n {
            let ecn = if i % 2 == 0 { Ecn::Ect0 } else { Ecn::NotEct };
            let mut p = pkt(ecn, dscp::AF12);
            match arrive(&mut red, Time::ZERO, busy(10), &mut p, &mut rng) {
                Verdict::Marked => {
                    assert_eq!((ecn, p.ecn), (Ecn::Ect0, Ecn::Ce));
                    assert_eq!(p.dscp, dscp::AF12, "standard ECN keeps the precedence");
                    marks += 1;
                }
                Verdict::Dropped(DropReason::Early) => {
                    assert_eq!(ecn, Ecn::NotEct);
                    early += 1;
                }
                Verdict::Queued => assert_ne!(p.ecn, Ecn::Ce),
                v => panic!("unexpected {v:?}"),
            }
        }
        // Each half sees the 10% selection rate of the count-spread process.
        let (m, e) = (marks as f64 / n as f64, early as f64 / n as f64);
        assert!(
            (m - 0.05).abs() < 0.003 && (e - 0.05).abs() < 0.003,
            "{m} {e}"
        );
    }

    // Spec 4 §2.5, ecn_mode = deterministic: every ECT arrival in [min_th, max_th) is marked
    // CE, lowered OUT -> IN and queued; non-ECT arrivals get the normal early drop.
    #[test]
    fn mark_and_demote_deterministic_marks_every_ect_arrival_in_region() {
        let c = RedConfig {
            ecn: EcnAction::MarkAndDemote {
                mode: EcnMode::Deterministic,
                lower_precedence: true,
            },
            ..cfg(1.0, 5.0, 15.0, 0.1)
        };
        let mut red = Red::new(&c, RATE);
        let mut rng = Rng::from_seed(5);
        let mut early = 0;
        for i in 0..10_000u32 {
            let q = 5 + i % 10; // avg = q in [5, 15)
            let mut p = pkt(Ecn::Ect1, dscp::AF12);
            assert_eq!(
                arrive(&mut red, Time::ZERO, busy(q), &mut p, &mut rng),
                Verdict::Marked
            );
            assert_eq!(p.ecn, Ecn::Ce);
            assert_eq!(p.precedence(), Precedence::In);
            let mut p = pkt(Ecn::NotEct, dscp::AF12);
            match arrive(&mut red, Time::ZERO, busy(q), &mut p, &mut rng) {
                Verdict::Dropped(DropReason::Early) => early += 1,
                Verdict::Queued => assert_eq!(p.precedence(), Precedence::Out),
                v => panic!("unexpected {v:?}"),
            }
        }
        assert!(early > 0, "non-ECT packets are still dropped early");
        // Below min_th nothing is marked.
        let mut red = Red::new(&c, RATE);
        let mut p = pkt(Ecn::Ect0, dscp::AF12);
        assert_eq!(
            arrive(&mut red, Time::ZERO, busy(4), &mut p, &mut rng),
            Verdict::Queued
        );
        assert_eq!((p.ecn, p.precedence()), (Ecn::Ect0, Precedence::Out));
    }

    // RFC 3168 §5: an arrival already marked CE upstream is ECN-capable: marked again (CE
    // kept) instead of an early drop; with ECN off it is dropped like any other.
    #[test]
    fn ce_arrival_is_treated_as_ecn_capable() {
        for (ecn, want) in [
            (EcnAction::Standard, Verdict::Marked),
            (EcnAction::Off, Verdict::Dropped(DropReason::Early)),
        ] {
            // max_p = 1 at avg = max_th - tiny: p_b ≈ 1, so the arrival is chosen.
            let mut red = Red::new(
                &RedConfig {
                    ecn,
                    ..cfg(1.0, 5.0, 15.0, 1.0)
                },
                RATE,
            );
            let mut rng = Rng::from_seed(1);
            let mut p = pkt(Ecn::Ce, dscp::BE);
            let mut v = Verdict::Queued;
            for _ in 0..3 {
                v = arrive(&mut red, Time::ZERO, busy(14), &mut p, &mut rng);
                if v != Verdict::Queued {
                    break;
                }
            }
            assert_eq!((v, p.ecn), (want, Ecn::Ce), "{ecn:?}");
        }
    }

    // Spec 4 §2.5 and §6 Q3: ecn_mode = probabilistic marks only the arrivals RED chooses
    // (rate as for early drops); lower_precedence = false keeps OUT.
    #[test]
    fn mark_and_demote_probabilistic_marks_at_red_rate_and_may_keep_precedence() {
        let c = RedConfig {
            ecn: EcnAction::MarkAndDemote {
                mode: EcnMode::Probabilistic,
                lower_precedence: false,
            },
            ..cfg(1.0, 5.0, 15.0, 0.1)
        };
        let mut red = Red::new(&c, RATE);
        let mut rng = Rng::from_seed(9);
        let n = 100_000;
        let mut marks = 0;
        for _ in 0..n {
            let mut p = pkt(Ecn::Ect0, dscp::AF12);
            match arrive(&mut red, Time::ZERO, busy(10), &mut p, &mut rng) {
                Verdict::Marked => {
                    assert_eq!((p.ecn, p.precedence()), (Ecn::Ce, Precedence::Out));
                    marks += 1;
                }
                Verdict::Queued => {}
                v => panic!("ECT packets are never early-dropped: {v:?}"),
            }
        }
        let m = marks as f64 / n as f64;
        assert!((m - 0.1).abs() < 0.003, "marking rate {m}");
    }

    // ns-2 gentle_: p_b ramps from max_p at max_th to 1 at 2 max_th; forced from 2 max_th.
    #[test]
    fn gentle_ramps_p_b_to_one_at_twice_max_th() {
        let mut core = RedCore::new(RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
        });
        core.avg = 22.5;
        assert!((core.p_b(true).unwrap() - 0.55).abs() < 1e-15);
        assert_eq!(core.p_b(false), None);
        core.avg = 30.0;
        assert_eq!(core.p_b(true), None);
        let c = RedConfig {
            gentle: true,
            ..cfg(1.0, 5.0, 15.0, 0.1)
        };
        let mut red = Red::new(&c, RATE);
        let mut rng = Rng::from_seed(2);
        let (mut early, mut queued) = (0, 0);
        for _ in 0..10_000 {
            let mut p = pkt(Ecn::NotEct, dscp::BE);
            match arrive(&mut red, Time::ZERO, busy(20), &mut p, &mut rng) {
                Verdict::Dropped(DropReason::Early) => early += 1,
                Verdict::Queued => queued += 1,
                v => panic!("unexpected {v:?}"),
            }
        }
        assert!(early > 0 && queued > 0);
        let mut p = pkt(Ecn::NotEct, dscp::BE);
        let v = arrive(&mut red, Time::ZERO, busy(30), &mut p, &mut rng);
        assert_eq!(v, Verdict::Dropped(DropReason::Forced));
    }

    // Spec 4 §2.3: a full physical queue drops the arrival (overflow) even below min_th, and
    // a packet that would be marked is dropped instead (spec 4 §2.5).
    #[test]
    fn full_queue_drops_for_overflow_even_when_marking() {
        let c = RedConfig {
            limit: QueueLimit::Packets(10),
            ecn: EcnAction::MarkAndDemote {
                mode: EcnMode::Deterministic,
                lower_precedence: true,
            },
            ..cfg(1.0, 5.0, 15.0, 0.1)
        };
        let mut red = Red::new(&c, RATE);
        let mut rng = Rng::from_seed(2);
        let mut p = pkt(Ecn::Ect0, dscp::AF12);
        let v = arrive(&mut red, Time::ZERO, busy(10), &mut p, &mut rng);
        assert_eq!(v, Verdict::Dropped(DropReason::Overflow));
        assert_eq!((p.ecn, p.precedence()), (Ecn::Ect0, Precedence::Out));
        let c = RedConfig {
            limit: QueueLimit::Packets(3),
            ..cfg(1.0, 5.0, 15.0, 0.1)
        };
        let mut red = Red::new(&c, RATE);
        let mut p = pkt(Ecn::NotEct, dscp::BE);
        let v = arrive(&mut red, Time::ZERO, busy(3), &mut p, &mut rng);
        assert_eq!(v, Verdict::Dropped(DropReason::Overflow));
    }

    // F&J §4 byte mode: the queue counts in bytes / mean_pkt_size and p_b scales with the
    // packet's size; tiny packets are almost never dropped.
    #[test]
    fn byte_mode_measures_bytes_and_scales_p_b_by_size() {
        let c = RedConfig {
            byte_mode: true,
            ..cfg(0.5, 5.0, 15.0, 0.1)
        };
        let mut red = Red::new(&c, RATE);
        let mut rng = Rng::from_seed(2);
        let mut p = pkt(Ecn::NotEct, dscp::BE);
        let q = QueueView {
            len: QueueLen {
                packets: 1,
                bytes: 8000,
            },
            ..Default::default()
        };
        arrive(&mut red, Time::ZERO, q, &mut p, &mut rng);
        assert_eq!(red.average(), 4.0);
        let q = QueueView {
            len: QueueLen {
                packets: 1,
                bytes: 11_000,
            },
            ..Default::default()
        };
        let mut drops = 0;
        for _ in 0..50_000 {
            let mut p = pkt(Ecn::NotEct, dscp::BE);
            p.size = 40;
            if arrive(&mut red, Time::ZERO, q, &mut p, &mut rng) != Verdict::Queued {
                drops += 1;
            }
        }
        // avg -> 11: p_b = 0.1 · 6/10 · 40/1000 = 0.0024 before the count correction, and
        // the count-spread drop rate is about 2 p_b (F&J §4).
        let r = drops as f64 / 50_000.0;
        assert!(r > 0.0036 && r < 0.006, "{r}");
    }

    // STYLE 6: validate names the key; spec 4 §2.3 needs min_th < max_th.
    #[test]
    fn validate_rejects_bad_values_naming_the_key() {
        assert_eq!(RedConfig::default().validate(), Ok(()));
        let bad = |c: RedConfig| c.validate().unwrap_err().0;
        assert_eq!(bad(cfg(0.002, 15.0, 15.0, 0.1)), "min_th");
        assert_eq!(bad(cfg(0.002, 20.0, 15.0, 0.1)), "min_th");
        assert_eq!(bad(cfg(0.0, 5.0, 15.0, 0.1)), "weight");
        assert_eq!(bad(cfg(1.5, 5.0, 15.0, 0.1)), "weight");
        assert_eq!(bad(cfg(0.002, 5.0, 15.0, 0.0)), "max_p");
        assert_eq!(bad(cfg(0.002, 5.0, 15.0, 1.01)), "max_p");
        assert_eq!(bad(cfg(0.002, -1.0, 15.0, 0.1)), "min_th");
        let c = RedConfig {
            mean_pkt_size: 0,
            ..RedConfig::default()
        };
        assert_eq!(bad(c), "mean_pkt_size");
        let c = RedConfig {
            limit: QueueLimit::Packets(0),
            ..RedConfig::default()
        };
        assert_eq!(bad(c), "limit");
    }

    // STYLE 6: the config reads from a scenario table with unit-bearing values, rejects
    // unknown keys and fills documented defaults.
    #[test]
    fn config_reads_from_toml() {
        let c: RedConfig = toml::from_str(
            r#"
            weight = 0.002
            min_th = 50
            max_th = 180
            max_p = 0.05
            limit = 200
            mean_pkt_size = 1040
            ecn = { mark_and_demote = { mode = "probabilistic" } }
            "#,
        )
        .unwrap();
        assert_eq!(c.limit, QueueLimit::Packets(200));
        assert_eq!((c.min_th, c.max_th), (50.0, 180.0));
        assert_eq!(
            c.ecn,
            EcnAction::MarkAndDemote {
                mode: EcnMode::Probabilistic,
                lower_precedence: true
            }
        );
        assert!(!c.gentle && !c.wait && !c.byte_mode);
        let c: RedConfig = toml::from_str("limit = \"64KiB\"\necn = \"standard\"").unwrap();
        assert_eq!(
            (c.limit, c.ecn),
            (QueueLimit::Bytes(65536), EcnAction::Standard)
        );
        assert!(toml::from_str::<RedConfig>("min_thresh = 5").is_err());
        let typo = "ecn = { mark_and_demote = { mod = \"probabilistic\" } }";
        assert!(toml::from_str::<RedConfig>(typo).is_err());
        assert!(toml::from_str::<RedConfig>("ecn = \"on\"").is_err());
        assert!(toml::from_str::<RedConfig>("limit = \"50\"").is_err());
        let round = toml::to_string(&RedConfig::default()).unwrap();
        assert_eq!(
            toml::from_str::<RedConfig>(&round).unwrap(),
            RedConfig::default()
        );
    }

    fn step(k: f64, ecn: EcnAction, limit: u32) -> Red {
        let c = RedConfig {
            step: Some(k),
            ecn,
            limit: QueueLimit::Packets(limit),
            // Thresholds a plain RED would refuse: a step does not use them.
            min_th: 20.0,
            max_th: 20.0,
            ..RedConfig::default()
        };
        assert_eq!(c.validate(), Ok(()));
        Red::new(&c, RATE)
    }

    // RFC 8257 §3.1 (DCTCP's switch): mark CE when the instantaneous queue is above K. With
    // K = 3, arrivals finding 0..=3 waiting are queued, 4 and 5 are marked (ECT) or dropped
    // early (not ECT): the instantaneous length decides, never the average (which stays
    // near 0 with w = 0.002) and never a random draw.
    #[test]
    fn step_chooses_every_arrival_above_k_and_none_at_or_below() {
        let mut red = step(3.0, EcnAction::Standard, 100);
        let mut rng = Rng::from_seed(1);
        let got: Vec<Verdict> = (0..=5)
            .map(|q| {
                arrive(
                    &mut red,
                    Time::ZERO,
                    busy(q),
                    &mut pkt(Ecn::Ect0, dscp::BE),
                    &mut rng,
                )
            })
            .collect();
        use Verdict::*;
        assert_eq!(got, [Queued, Queued, Queued, Queued, Marked, Marked]);
        assert!(red.average() < 0.1, "the average is not what decides");
        let mut p = pkt(Ecn::NotEct, dscp::BE);
        assert_eq!(
            arrive(&mut red, Time::ZERO, busy(4), &mut p, &mut rng),
            Dropped(DropReason::Early)
        );
        assert_eq!(
            arrive(&mut red, Time::ZERO, busy(3), &mut p, &mut rng),
            Queued
        );
        // Without ECN every arrival above K is dropped early, ECT or not.
        let mut off = step(3.0, EcnAction::Off, 100);
        let mut p = pkt(Ecn::Ect0, dscp::BE);
        assert_eq!(
            arrive(&mut off, Time::ZERO, busy(4), &mut p, &mut rng),
            Dropped(DropReason::Early)
        );
        // A full queue still drops for overflow (RED's physical limit), marked or not.
        let mut small = step(3.0, EcnAction::Standard, 5);
        let mut p = pkt(Ecn::Ect0, dscp::BE);
        assert_eq!(
            arrive(&mut small, Time::ZERO, busy(5), &mut p, &mut rng),
            Dropped(DropReason::Overflow)
        );
    }

    // `step_non_ect = "pass"` (the DCTCP paper's marking-only switch, §3.1): above K an
    // ECN-capable arrival is marked as before, one that is not (a SYN, a pure ACK) is queued
    // unmarked instead of dropped early; overflow still drops both. Refused without `step`.
    #[test]
    fn step_non_ect_pass_queues_what_it_cannot_mark() {
        let c = RedConfig {
            step: Some(3.0),
            step_non_ect: StepNonEct::Pass,
            ecn: EcnAction::Standard,
            limit: QueueLimit::Packets(6),
            ..RedConfig::default()
        };
        assert_eq!(c.validate(), Ok(()));
        let mut red = Red::new(&c, RATE);
        let mut rng = Rng::from_seed(1);
        use Verdict::*;
        let mut at = |q: u32, ecn: Ecn| {
            let mut p = pkt(ecn, dscp::BE);
            let v = arrive(&mut red, Time::ZERO, busy(q), &mut p, &mut rng);
            (v, p.ecn)
        };
        assert_eq!(at(4, Ecn::NotEct), (Queued, Ecn::NotEct));
        assert_eq!(at(4, Ecn::Ect0), (Marked, Ecn::Ce));
        assert_eq!(at(3, Ecn::Ect0), (Queued, Ecn::Ect0));
        assert_eq!(
            at(6, Ecn::NotEct),
            (Dropped(DropReason::Overflow), Ecn::NotEct)
        );
        let c: RedConfig = toml::from_str("step_non_ect = \"pass\"").unwrap();
        assert_eq!(c.validate().unwrap_err().0, "step_non_ect");
        let c: RedConfig = toml::from_str("step = 2\nstep_non_ect = \"pass\"").unwrap();
        assert_eq!(c.step_non_ect, StepNonEct::Pass);
    }

    // A step is what `min_th = max_th` would mean: it validates with thresholds plain RED
    // refuses, and its own key is checked.
    #[test]
    fn step_validates_without_thresholds_and_checks_its_own_key() {
        let c: RedConfig = toml::from_str("step = 20\necn = \"standard\"").unwrap();
        assert_eq!(c.step, Some(20.0));
        assert_eq!(c.validate(), Ok(()));
        let c = RedConfig {
            step: Some(-1.0),
            ..RedConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "step");
        let c = RedConfig {
            step: Some(f64::NAN),
            ..RedConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "step");
        assert_eq!(
            cfg(0.002, 20.0, 20.0, 0.1).validate().unwrap_err().0,
            "min_th",
            "without step, min_th = max_th is still refused"
        );
    }
}
