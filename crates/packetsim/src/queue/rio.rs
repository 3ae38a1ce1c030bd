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

use super::red::{self, typical_tx_time, EcnAction, RedCore, RedOptions, RedParams};
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
    /// ns-2 dsRED's unclamped `p_a`, for both precedences (see
    /// [`super::red::RedConfig::ns2_dsred_count`]; default false).
    pub ns2_dsred_count: bool,
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
            ns2_dsred_count: false,
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
                ns2_dsred_count: cfg.ns2_dsred_count,
                ns2_region_count: false,
                ns2_idle_decay: false,
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


impl super::QueueConfig for RioConfig {
    type Disc = Rio;
    fn validate(&self) -> Result<(), (&'static str, String)> {
        RioConfig::validate(self)
    }
    fn build(&self, rate: Rate) -> Rio {
        Rio::new(self, rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Addr;
    use crate::packet::{dscp, Body, Ecn};
    use crate::queue::{DropReason, EcnMode, QueueLen};

    /// 1000-byte packets at 8 Mb/s: s = 1 ms exactly.
    const RATE: Rate = Rate::mbps(8);

    fn pkt(prec: Precedence, ecn: Ecn) -> Packet {
        let mut p = Packet::new(Addr(0), Addr(1), Body::Udp { seq: 0, payload: 0 });
        p.size = 1000;
        p.ecn = ecn;
        p.dscp = match prec {
            Precedence::In => dscp::AF11,
            Precedence::Out => dscp::AF12,
        };
        p
    }

    fn view(total: u32, in_packets: u32) -> QueueView {
        QueueView {
            len: QueueLen {
                packets: total,
                bytes: total as u64 * 1000,
            },
            in_packets,
            idle_since: None,
        }
    }

    fn with_weight(weight: f64) -> RioConfig {
        RioConfig {
            weight,
            mean_pkt_size: 1000,
            ..RioConfig::default()
        }
    }

    fn arrive(rio: &mut Rio, q: QueueView, p: &mut Packet, rng: &mut Rng) -> Verdict {
        rio.admit(Time::ZERO, &q, p, rng)
    }

    // Spec 4 §2.4: avg_in follows q_in and moves on IN arrivals only; avg_total follows all
    // waiting packets and moves on every arrival.
    #[test]
    fn in_average_ignores_out_arrivals() {
        let mut rio = Rio::new(&with_weight(0.5), RATE);
        let mut rng = Rng::from_seed(1);
        let script = [
            // (precedence, q_total, q_in, avg_in, avg_total)
            (Precedence::In, 4, 2, 1.0, 2.0),
            (Precedence::Out, 8, 6, 1.0, 5.0),
            (Precedence::Out, 12, 6, 1.0, 8.5),
            (Precedence::In, 8, 4, 2.5, 8.25),
        ];
        for (prec, total, q_in, want_in, want_total) in script {
            let mut p = pkt(prec, Ecn::NotEct);
            assert_eq!(
                arrive(&mut rio, view(total, q_in), &mut p, &mut rng),
                Verdict::Queued
            );
            assert_eq!(
                (rio.avg_in(), rio.avg_total()),
                (want_in, want_total),
                "{prec:?}"
            );
        }
    }

    // F&J §4 idle correction, applied by RIO to both averages (spec 4 §2.3-2.4): an IN
    // arrival after an idle period of 2 s decays both by (1-w)^2.
    #[test]
    fn idle_period_decays_both_averages_on_an_in_arrival() {
        let mut rio = Rio::new(&with_weight(0.5), RATE);
        let mut rng = Rng::from_seed(1);
        let mut p = pkt(Precedence::In, Ecn::NotEct);
        arrive(&mut rio, view(8, 4), &mut p, &mut rng);
        assert_eq!((rio.avg_in(), rio.avg_total()), (2.0, 4.0));
        let idle = QueueView {
            idle_since: Some(Time::from_millis(1)),
            ..Default::default()
        };
        rio.admit(Time::from_millis(3), &idle, &mut p, &mut rng);
        assert_eq!((rio.avg_in(), rio.avg_total()), (0.5, 1.0));
    }

    // Spec 4 §2.4: IN is judged with avg_in and (45, 90, 0.02), OUT with avg_total and
    // (20, 40, 0.04), so at the same load OUT is dropped earlier and more than IN.
    #[test]
    fn out_dropped_earlier_than_in_at_same_load() {
        let mut rio = Rio::new(&with_weight(1.0), RATE);
        let mut rng = Rng::from_seed(4);
        let (mut in_drops, mut out_drops) = (0u32, 0u32);
        let mut first_out_drop = None;
        for round in 0..200u32 {
            for len in 0..100u32 {
                // Every waiting packet is IN: the IN average sees as much load as the total.
                let q = view(len, len);
                let mut p = pkt(Precedence::In, Ecn::NotEct);
                if let Verdict::Dropped(r) = arrive(&mut rio, q, &mut p, &mut rng) {
                    assert!(len >= 45, "IN dropped ({r}) below min_th_in at {len}");
                    in_drops += 1;
                }
                let mut p = pkt(Precedence::Out, Ecn::NotEct);
                if let Verdict::Dropped(r) = arrive(&mut rio, q, &mut p, &mut rng) {
                    assert!(len >= 20, "OUT dropped ({r}) below min_th_out at {len}");
                    if round == 0 && first_out_drop.is_none() {
                        first_out_drop = Some(len);
                    }
                    if len >= 40 {
                        assert_eq!(r, DropReason::Forced, "avg_total >= max_th_out");
                    }
                    out_drops += 1;
                }
            }
        }
        assert!(first_out_drop.unwrap() < 45);
        assert!(
            out_drops > 2 * in_drops,
            "OUT drops {out_drops}, IN drops {in_drops}"
        );
        assert!(in_drops > 0, "IN is dropped early between 45 and 90");
    }

    // Spec 4 §2.4: a separate count per precedence: OUT arrivals in the OUT region advance
    // count_out and leave count_in alone.
    #[test]
    fn counts_are_kept_per_precedence() {
        let mut rio = Rio::new(&with_weight(1.0), RATE);
        let mut rng = Rng::from_seed(4);
        let mut model = -1;
        for _ in 0..50 {
            let mut p = pkt(Precedence::Out, Ecn::NotEct);
            model += 1;
            if arrive(&mut rio, view(30, 0), &mut p, &mut rng) != Verdict::Queued {
                model = 0;
            }
            assert_eq!(rio.state().count_out, model);
            assert_eq!(rio.state().count_in, -1);
        }
        assert!(model > 0);
        let mut p = pkt(Precedence::In, Ecn::NotEct);
        arrive(&mut rio, view(30, 0), &mut p, &mut rng);
        assert_eq!((rio.state().count_in, rio.state().count_out), (-1, model));
    }

    // Spec 4 §2.5 (deterministic, with precedence lowering): every ECT OUT arrival while
    // avg_total is in [min_th_out, max_th_out) is marked CE, lowered to IN and queued; IN
    // arrivals below min_th_in are left alone.
    #[test]
    fn mark_and_demote_deterministic_marks_every_ect_out_arrival_in_region() {
        let cfg = RioConfig {
            ecn: EcnAction::MarkAndDemote {
                mode: EcnMode::Deterministic,
                lower_precedence: true,
            },
            ..with_weight(1.0)
        };
        let mut rio = Rio::new(&cfg, RATE);
        let mut rng = Rng::from_seed(8);
        for len in (20..40).cycle().take(5_000) {
            let mut p = pkt(Precedence::Out, Ecn::Ect0);
            assert_eq!(
                arrive(&mut rio, view(len, 10), &mut p, &mut rng),
                Verdict::Marked
            );
            assert_eq!((p.ecn, p.precedence()), (Ecn::Ce, Precedence::In));
            let mut p = pkt(Precedence::In, Ecn::Ect0);
            assert_eq!(
                arrive(&mut rio, view(len, 10), &mut p, &mut rng),
                Verdict::Queued
            );
            assert_eq!((p.ecn, p.precedence()), (Ecn::Ect0, Precedence::In));
        }
        // Above max_th_out the ECT OUT packet is dropped, not marked (spec 4 §2.5).
        let mut p = pkt(Precedence::Out, Ecn::Ect0);
        let v = arrive(&mut rio, view(40, 10), &mut p, &mut rng);
        assert_eq!(v, Verdict::Dropped(DropReason::Forced));
    }

    // Spec 4 §2.5: non-ECT packets get the normal RIO early drop: with the same random stream
    // and arrivals, their verdicts are the same with and without the study's ECN scheme.
    #[test]
    fn non_ect_packets_are_early_dropped_as_without_ecn() {
        let run = |ecn: EcnAction| {
            let mut rio = Rio::new(
                &RioConfig {
                    ecn,
                    ..with_weight(1.0)
                },
                RATE,
            );
            let mut rng = Rng::from_seed(21);
            let mut non_ect = Vec::new();
            for i in 0..20_000u32 {
                let ect = if i % 3 == 0 { Ecn::NotEct } else { Ecn::Ect1 };
                let mut p = pkt(Precedence::Out, ect);
                let v = arrive(&mut rio, view(30, 5), &mut p, &mut rng);
                if ect == Ecn::NotEct {
                    non_ect.push(v);
                }
            }
            non_ect
        };
        let off = run(EcnAction::Off);
        let ecn = run(EcnAction::MarkAndDemote {
            mode: EcnMode::Deterministic,
            lower_precedence: true,
        });
        assert_eq!(off, ecn);
        let early = off
            .iter()
            .filter(|v| **v == Verdict::Dropped(DropReason::Early))
            .count();
        assert!(early > 100, "{early} early drops");
    }

    // Spec 4 §2.4: overflow of the physical queue drops either precedence, even below min_th
    // and even a packet that would be marked.
    #[test]
    fn overflow_drops_either_precedence() {
        let cfg = RioConfig {
            limit: QueueLimit::Packets(10),
            ecn: EcnAction::MarkAndDemote {
                mode: EcnMode::Deterministic,
                lower_precedence: true,
            },
            ..with_weight(0.002)
        };
        let mut rio = Rio::new(&cfg, RATE);
        let mut rng = Rng::from_seed(8);
        for prec in [Precedence::In, Precedence::Out] {
            let mut p = pkt(prec, Ecn::Ect0);
            let v = arrive(&mut rio, view(10, 5), &mut p, &mut rng);
            assert_eq!(v, Verdict::Dropped(DropReason::Overflow));
            assert_eq!(p.precedence(), prec);
        }
    }

    // STYLE 6: validate names the key, with the precedence as a prefix.
    #[test]
    fn validate_rejects_bad_thresholds_naming_the_key() {
        assert_eq!(RioConfig::default().validate(), Ok(()));
        let mut c = RioConfig::default();
        c.r#in.min_th = 90.0;
        assert_eq!(c.validate().unwrap_err().0, "in.min_th");
        let mut c = RioConfig::default();
        c.out.max_p = 0.0;
        assert_eq!(c.validate().unwrap_err().0, "out.max_p");
        let c = RioConfig {
            weight: 0.0,
            ..RioConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().0, "weight");
    }

    // STYLE 6: the study's AF queue (spec 4 §3, Table 2) reads from TOML; unknown keys fail.
    #[test]
    fn config_reads_from_toml() {
        let c: RioConfig = toml::from_str(
            r#"
            in = { min_th = 45, max_th = 90, max_p = 0.02 }
            out = { min_th = 20, max_th = 40, max_p = 0.04 }
            weight = 0.002
            limit = 100
            ecn = { mark_and_demote = { mode = "deterministic", lower_precedence = false } }
            "#,
        )
        .unwrap();
        assert_eq!(c.r#in, RioConfig::default().r#in);
        assert_eq!(c.out, RioConfig::default().out);
        assert_eq!(c.limit, QueueLimit::Packets(100));
        assert_eq!(
            c.ecn,
            EcnAction::MarkAndDemote {
                mode: EcnMode::Deterministic,
                lower_precedence: false
            }
        );
        assert!(toml::from_str::<RioConfig>("in = { min_th = 45 }").is_err());
        assert!(toml::from_str::<RioConfig>("byte_mode = true").is_err());
        let round = toml::to_string(&RioConfig::default()).unwrap();
        assert_eq!(
            toml::from_str::<RioConfig>(&round).unwrap(),
            RioConfig::default()
        );
    }
}
