//! The ns-2.35 estimator (`rtt_estimator = "ns2"`; issue 14 item 4): the arithmetic of
//! ns-2.35 `tcp/tcp.cc`, `TcpAgent::rtt_init`, `rtt_update`, `rtt_timeout` and `rtt_backoff`,
//! with ns-2.35's stock parameters (`T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2, `rttvar_exp_` 2,
//! `srtt_init_` 0, `rfc2988_` true). The tick is the `[tcp]` key `tick` (ns-2 `tcpTick_`,
//! 10 ms in ns-2.35), the floor `rto_min` (`minrto_`, 0.2 s), the cap `rto_max` (`maxrto_`,
//! 60 s) and the RTO before any sample `rto_initial` (`rtxcur_init_`, 3 s).
//!
//! - A sample is a whole number of ticks, at least 1 (`rtt_update`). Without timestamps it is
//!   the number of tick boundaries between the send and the ACK, floor(now/tick) −
//!   floor(sent/tick): ns-2 adds the send time's offset within its tick to the RTT before
//!   truncating. ns-2 offsets its tick clock by a per-agent uniform draw (`boot_time_`);
//!   here the phase is 0, so runs stay reproducible without a random stream. With timestamps
//!   it is the RTT rounded to the nearest tick (`int(tao/tcp_tick_ + 0.5)`).
//! - `t_srtt` holds 8·SRTT and `t_rttvar` 4·RTTVAR, in ticks. First sample (t_srtt = 0):
//!   t_srtt = 8m, t_rttvar = 2m (RTTVAR = m/2). Later: d = m − (t_srtt >> 3); t_srtt += d
//!   (at least 1); t_rttvar += |d| − (t_rttvar >> 2) (at least 1).
//! - The RTO before backoff, in ticks, is ((t_rttvar << 3) + t_srtt) >> 3, i.e.
//!   floor(SRTT + 4·RTTVAR) with the fractional bits of both kept until the last shift.
//! - `rtt_timeout` (rfc2988_): max(rtxcur, minrto) × backoff, capped at maxrto, and never
//!   below 2 ticks.
//! - `rtt_backoff`: the multiplier doubles while it is below 64 or the RTO is still below
//!   maxrto; once it exceeds 8, SRTT is folded into RTTVAR and cleared, so the next sample
//!   starts the estimate afresh. A valid sample resets the multiplier to 1 (ns-2 does this in
//!   `TcpAgent::newack` when the timed segment is acknowledged).
//!
//! Left out: ns-2 computes `d` in a 16-bit `short`, which wraps for samples above 32767 ticks
//! (327 s at the stock tick); here it does not wrap.

use super::super::TcpConfig;
use packetsim_kernel::{Dur, Time};

/// Fractional bits of `t_srtt` (ns-2 `T_SRTT_BITS`).
const SRTT_BITS: u32 = 3;
/// Fractional bits of `t_rttvar` (ns-2 `T_RTTVAR_BITS`).
const RTTVAR_BITS: u32 = 2;
/// RTO = SRTT + 2^RTTVAR_EXP · RTTVAR (ns-2 `rttvar_exp_`).
const RTTVAR_EXP: u32 = 2;
/// `rtt_backoff` keeps doubling below this multiplier even when the RTO is at maxrto.
const BACKOFF_FREE: u64 = 64;
/// Beyond this multiplier `rtt_backoff` discards SRTT.
const BACKOFF_CLOBBER: u64 = 8;

/// ns-2.35 estimator state.
#[derive(Clone, Debug)]
pub struct Ns2 {
    /// 8 × SRTT in ticks; 0 means "no estimate" (as ns-2's `t_srtt_ != 0` test).
    t_srtt: i64,
    /// 4 × RTTVAR in ticks.
    t_rttvar: i64,
    /// RTO before backoff and floor (ns-2 `t_rtxcur_`).
    rtxcur: Dur,
    /// Backoff multiplier (ns-2 `t_backoff_`), a power of two.
    backoff: u64,
    tick: Dur,
    /// Round samples to the nearest tick (timestamps on) instead of counting tick boundaries.
    round: bool,
    rto_min: Dur,
    rto_max: Dur,
}

impl Ns2 {
    /// A fresh estimator (`rtt_init` with `srtt_init_` 0): RTO = `cfg.rto_initial`.
    pub fn new(cfg: &TcpConfig) -> Ns2 {
        Ns2 {
            t_srtt: 0,
            t_rttvar: 0,
            rtxcur: cfg.rto_initial,
            backoff: 1,
            tick: cfg.tick,
            round: cfg.timestamps,
            rto_min: cfg.rto_min,
            rto_max: cfg.rto_max,
        }
    }

    /// A segment sent at `sent` was acknowledged at `now` (`rtt_update`); resets the backoff.
    pub fn on_sample(&mut self, sent: Time, now: Time) {
        let tick = self.tick.0;
        let m = if self.round {
            (now.0.saturating_sub(sent.0) + tick / 2) / tick
        } else {
            now.0 / tick - sent.0 / tick
        };
        let m = (m as i64).max(1);
        if self.t_srtt != 0 {
            let mut d = m - (self.t_srtt >> SRTT_BITS);
            self.t_srtt += d;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            d = d.abs() - (self.t_rttvar >> RTTVAR_BITS);
            self.t_rttvar += d;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = m << SRTT_BITS;
            self.t_rttvar = m << (RTTVAR_BITS - 1);
        }
        let ticks =
            ((self.t_rttvar << (RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS)) + self.t_srtt) >> SRTT_BITS;
        self.rtxcur = Dur((ticks as u64).saturating_mul(tick));
        self.backoff = 1;
    }

    /// The timer expired (`rtt_backoff`).
    pub fn on_timeout(&mut self) {
        if self.backoff < BACKOFF_FREE || self.rto() < self.rto_max {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if self.backoff > BACKOFF_CLOBBER {
            self.t_rttvar += self.t_srtt >> SRTT_BITS;
            self.t_srtt = 0;
        }
    }

    /// Clears the backoff without a sample (ns-2 Sack1's partial ACK, `t_backoff_ = 1`).
    pub fn clear_backoff(&mut self) {
        self.backoff = 1;
    }

    /// The current RTO (`rtt_timeout` with `rfc2988_`).
    pub fn rto(&self) -> Dur {
        let base = self.rtxcur.max(self.rto_min);
        let rto = Dur(base.0.saturating_mul(self.backoff)).min(self.rto_max);
        rto.max(Dur(2 * self.tick.0))
    }

    /// SRTT = t_srtt / 8 ticks, while an estimate is held.
    pub fn srtt(&self) -> Option<Dur> {
        (self.t_srtt != 0).then(|| Dur((self.t_srtt as u64).saturating_mul(self.tick.0) / 8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2.35's stock timer parameters (`Agent/TCP set ...` in ns-default.tcl).
    fn ns2_cfg() -> TcpConfig {
        TcpConfig {
            rtt_estimator: super::super::RttEstimatorKind::Ns2,
            tick: Dur::from_millis(10),
            rto_initial: Dur::from_secs(3),
            rto_min: Dur::from_millis(200),
            rto_max: Dur::from_secs(60),
            ..TcpConfig::default()
        }
    }

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    // rtt_update worked by hand, ticks of 10 ms, samples without timestamps:
    // sent 0, acked 103 ms: boundaries 10 - 0 = 10 ticks; t_srtt = 80, t_rttvar = 20,
    //   rtxcur = ((20 << 3) + 80) >> 3 = 30 ticks = 300 ms.
    // sent 1005, acked 1102 (97 ms, but 110 - 100 = 10 ticks): d = 0, t_srtt 80, t_rttvar
    //   = 20 + 0 - 5 = 15; rtxcur = (120 + 80) >> 3 = 25 ticks = 250 ms.
    // sent 2009, acked 2151 (142 ms; 215 - 200 = 15 ticks): d = 5, t_srtt 85, t_rttvar =
    //   15 + 5 - 3 = 17; rtxcur = (136 + 85) >> 3 = 221 >> 3 = 27 ticks = 270 ms.
    // sent 3000, acked 3041 (4 ticks): d = 4 - 10 = -6, t_srtt 79, t_rttvar = 17 + 6 - 4 =
    //   19; rtxcur = (152 + 79) >> 3 = 231 >> 3 = 28 ticks = 280 ms.
    // 40 samples of 1 tick drive rtxcur under minrto_: RTO = 200 ms (rtt_timeout floor).
    #[test]
    fn scripted_samples_give_ns2_rtos() {
        let mut e = Ns2::new(&ns2_cfg());
        assert_eq!(e.rto(), Dur::from_secs(3), "rtxcur_init_ before any sample");
        assert_eq!(e.srtt(), None);
        let mut got = vec![];
        for (s, a) in [(0, 103), (1005, 1102), (2009, 2151), (3000, 3041)] {
            e.on_sample(ms(s), ms(a));
            got.push(e.rto().0 / 1_000_000);
        }
        assert_eq!(got, [300, 250, 270, 280]);
        assert_eq!(e.srtt(), Some(Dur::from_micros(98_750)), "79/8 ticks");
        for i in 0..40 {
            e.on_sample(ms(5000 + 100 * i), ms(5010 + 100 * i));
        }
        assert_eq!(e.rto(), Dur::from_millis(200), "minrto_ floor");
    }

    // A sample under one tick counts as one tick (rtt_update: t_rtt_ < 1 -> 1); with
    // timestamps (ts_option_) the RTT is rounded to the nearest tick instead.
    #[test]
    fn sample_quantisation_with_and_without_timestamps() {
        let mut e = Ns2::new(&ns2_cfg());
        e.on_sample(ms(11), ms(12));
        // m = 1: t_srtt 8, t_rttvar 2, rtxcur = (16 + 8) >> 3 = 3 ticks; floor 200 ms.
        assert_eq!(e.srtt(), Some(Dur::from_millis(10)));
        let mut ts = Ns2::new(&TcpConfig {
            timestamps: true,
            ..ns2_cfg()
        });
        ts.on_sample(ms(9), ms(9 + 104));
        assert_eq!(
            ts.srtt(),
            Some(Dur::from_millis(100)),
            "104 ms rounds to 10 ticks"
        );
        let mut ts2 = Ns2::new(&TcpConfig {
            timestamps: true,
            ..ns2_cfg()
        });
        ts2.on_sample(ms(9), ms(9 + 105));
        assert_eq!(
            ts2.srtt(),
            Some(Dur::from_millis(110)),
            "105 ms rounds to 11 ticks"
        );
    }

    // rtt_backoff + rtt_timeout: RTO 300 ms doubles on each expiry up to maxrto_ 60 s; past a
    // multiplier of 8 SRTT is cleared (the 4th expiry), and the next sample restarts the
    // estimate as a first sample (t_srtt = 8m, t_rttvar = 2m) with the multiplier back at 1.
    #[test]
    fn backoff_clobbers_srtt_and_caps_at_maxrto() {
        let mut e = Ns2::new(&ns2_cfg());
        e.on_sample(ms(0), ms(100));
        assert_eq!(e.rto(), Dur::from_millis(300));
        let mut seen = vec![];
        for _ in 0..10 {
            e.on_timeout();
            seen.push(e.rto().0 / 1_000_000);
        }
        assert_eq!(
            seen,
            [600, 1200, 2400, 4800, 9600, 19_200, 38_400, 60_000, 60_000, 60_000]
        );
        assert_eq!(e.srtt(), None, "SRTT clobbered past backoff 8");
        // t_rttvar was 20 + (80 >> 3) = 30, now overwritten by the first-sample rule.
        e.on_sample(ms(20_000), ms(20_050));
        assert_eq!(e.srtt(), Some(Dur::from_millis(50)));
        // t_srtt 40, t_rttvar 10: rtxcur = (80 + 40) >> 3 = 15 ticks = 150 ms -> floor 200 ms.
        assert_eq!(e.rto(), Dur::from_millis(200));
    }

    // rtt_timeout never returns less than two ticks, even with minrto_ 0.
    #[test]
    fn rto_at_least_two_ticks() {
        let mut e = Ns2::new(&TcpConfig {
            rto_min: Dur::ZERO,
            rto_initial: Dur::from_millis(10),
            ..ns2_cfg()
        });
        assert_eq!(e.rto(), Dur::from_millis(20));
        e.on_sample(ms(0), ms(1));
        assert_eq!(e.rto(), Dur::from_millis(30), "(16 + 8) >> 3 = 3 ticks");
    }
}
