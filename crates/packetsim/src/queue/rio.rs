//! RIO: RED with IN and OUT (Clark & Fang 1998), coupled variant, as spec 4 §2.4 describes it.
//!
//! One FIFO holds both precedences; two RED averages judge the arrivals:
//! - `avg_in`, from `q_in` (IN packets waiting, [`QueueView::in_packets`]), updated on IN
//!   arrivals only; an IN arrival is judged with it and the IN thresholds;
//! - `avg_total`, from all packets waiting, updated on every arrival; an OUT arrival is judged
//!   with it and the OUT thresholds (coupled: OUT sees the IN load too).
//!
//! Each precedence keeps its own `count`. Both averages use the same weight and idle
//! correction (see [`super::red`] for the RED rules, `s`, gentle and wait). A full physical
//! queue drops either kind (overflow). The ECN actions are RED's: with the study's
//! `mark_and_demote`, an ECT OUT packet given the action is marked CE, lowered to IN and
//! queued (spec 4 §2.5), so the caller counts it in `q_in` from then on (§6 Q3).
//!
//! Known approximation, as the spec words it: `avg_in` moves only on IN arrivals, so its idle
//! correction applies only when an IN packet is the first arrival after an idle period.
//! There is no byte mode: `q_in` is counted in packets.

use super::red::{self, limit_serde, typical_tx_time, EcnAction, RedCore, RedOptions, RedParams};
use super::{Admission, DropTail, QueueLimit, QueueView, Verdict};
use crate::packet::{Packet, Precedence};
use crate::units;
use packetsim_kernel::{Rate, Rng, Time};
use serde::{Deserialize, Serialize};

/// Configuration of a RIO queue (spec 4 §2.4). Defaults are the study's AF queue (spec 4 §3,
/// Table 2): IN 45/90/0.02, OUT 20/40/0.04, weight 0.002, 100 packets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RioConfig {
    /// Thresholds (packets) and `max_p` for IN arrivals, judged against `avg_in`.
    pub r#in: RedParams,
    /// Thresholds (packets) and `max_p` for OUT arrivals, judged against `avg_total`.
    pub out: RedParams,
    /// EWMA weight of both averages, in (0, 1] (default 0.002).
    pub weight: f64,
    /// Physical queue limit shared by both precedences: an integer is packets, a byte count
    /// with a unit is bytes (default 100 packets).
    #[serde(with = "limit_serde")]
    pub limit: QueueLimit,
    /// Bytes of a typical packet; the idle correction's `s` is its transmission time at the
    /// link rate (default 1040, the study's TCP packet on the wire).
    #[serde(with = "units::bytes")]
    pub mean_pkt_size: u64,
    /// ns-2's gentle ramp above `max_th`, for both precedences (default false).
    pub gentle: bool,
    /// What ECT packets get instead of an early drop (default `off`).
    pub ecn: EcnAction,
    /// ns-2's wait variant of `p_a`, for both precedences (default false).
    pub wait: bool,
}

impl Default for RioConfig {
    fn default() -> Self {
        RioConfig {
            r#in: RedParams {
                min_th: 45.0,
                max_th: 90.0,
                max_p: 0.02,
            },
            out: RedParams {
                min_th: 20.0,
                max_th: 40.0,
                max_p: 0.04,
            },
            weight: 0.002,
            limit: QueueLimit::Packets(100),
            mean_pkt_size: 1040,
            gentle: false,
            ecn: EcnAction::Off,
            wait: false,
        }
    }
}

impl RioConfig {
    /// Checks the values; the error names the offending key (`in.min_th`, `weight`, ...).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        red::validate_common(self.weight, self.limit, self.mean_pkt_size)?;
        self.r#in
            .validate_as(["in.min_th", "in.max_th", "in.max_p"])?;
        self.out
            .validate_as(["out.min_th", "out.max_th", "out.max_p"])
    }
}

/// A snapshot of RIO's two averages and counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RioState {
    /// Average of `q_in`, in packets.
    pub avg_in: f64,
    /// Average of all packets waiting.
    pub avg_total: f64,
    /// `count` of IN arrivals.
    pub count_in: i64,
    /// `count` of OUT arrivals.
    pub count_out: i64,
}

/// A coupled RIO queue's admission policy.
#[derive(Clone, Debug)]
pub struct Rio {
    /// `avg_in` with the IN thresholds and IN count.
    core_in: RedCore,
    /// `avg_total` with the OUT thresholds and OUT count.
    core_out: RedCore,
    opts: RedOptions,
    tail: DropTail,
    ecn: EcnAction,
}

impl Rio {
    /// A RIO queue from a validated config, on a link of `link_rate` (which sets `s`).
    pub fn new(cfg: &RioConfig, link_rate: Rate) -> Rio {
        debug_assert!(cfg.validate().is_ok(), "RIO config not validated: {cfg:?}");
        Rio {
            core_in: RedCore::new(cfg.r#in),
            core_out: RedCore::new(cfg.out),
            opts: RedOptions {
                weight: cfg.weight,
                s: typical_tx_time(cfg.mean_pkt_size, link_rate),
                gentle: cfg.gentle,
                wait: cfg.wait,
            },
            tail: DropTail::new(cfg.limit),
            ecn: cfg.ecn,
        }
    }

    /// The average of IN packets waiting.
    pub fn avg_in(&self) -> f64 {
        self.core_in.avg()
    }

    /// The average of all packets waiting.
    pub fn avg_total(&self) -> f64 {
        self.core_out.avg()
    }

    /// The state snapshot.
    pub fn state(&self) -> RioState {
        let (i, o) = (self.core_in.state(), self.core_out.state());
        RioState {
            avg_in: i.avg,
            avg_total: o.avg,
            count_in: i.count,
            count_out: o.count,
        }
    }
}

impl Admission for Rio {
    #[inline]
    fn admit(&mut self, now: Time, q: &QueueView, pkt: &mut Packet, rng: &mut Rng) -> Verdict {
        // Spec 4 §2.4: avg_total on every arrival, avg_in on IN arrivals only.
        let total = q.len.packets as f64;
        self.core_out.update(&self.opts, now, total, q.idle_since);
        let core = match pkt.precedence() {
            Precedence::In => {
                let q_in = q.in_packets as f64;
                self.core_in.update(&self.opts, now, q_in, q.idle_since);
                &mut self.core_in
            }
            Precedence::Out => &mut self.core_out,
        };
        let d = core.decide(&self.opts, 1.0, rng);
        let full = self.tail.is_full(q.len, pkt.size);
        red::verdict(core, d, self.ecn, full, pkt)
    }
}
