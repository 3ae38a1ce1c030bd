//! The BSD fixed-point estimator (`rtt_estimator = "bsd"`; Jacobson '88 as coded in 4.3BSD
//! Reno `tcp_xmit_timer` and in YATS `TCPIPsend`, spec 1 §2.5). Samples are whole clock ticks
//! (`tick`, default 1 ms): M = floor(RTT / tick). `SA` holds 8·SRTT and `SD` 4·mean deviation,
//! both in ticks:
//! - first sample: SA = 8M, SD = 4M (spec 1 §2.5);
//! - later: M −= SA>>3; SA += M; M = |M|; M −= SD>>2; SD += M;
//! - RTO = (SA>>3) + SD ticks, clamped to [rto_min, rto_max].
//!
//! Before the first sample the RTO is `rto_initial`. On expiry the RTO doubles, capped at
//! rto_max, until the next sample (spec 1 §2.5: "returns to the computed RTO on the next ACK
//! of new data"; with timestamps every such ACK is a sample).

use super::super::TcpConfig;
use packetsim_kernel::Dur;

/// BSD estimator state.
#[derive(Clone, Debug)]
pub struct Bsd {
    /// 8 × SRTT, ticks.
    sa: i64,
    /// 4 × mean deviation, ticks.
    sd: i64,
    has_sample: bool,
    tick: Dur,
    /// RTO before backoff.
    base_rto: Dur,
    backoff: u32,
    rto_min: Dur,
    rto_max: Dur,
}

impl Bsd {
    /// A fresh estimator: RTO = `cfg.rto_initial`.
    pub fn new(cfg: &TcpConfig) -> Bsd {
        Bsd {
            sa: 0,
            sd: 0,
            has_sample: false,
            tick: cfg.tick,
            base_rto: cfg.rto_initial.min(cfg.rto_max),
            backoff: 0,
            rto_min: cfg.rto_min,
            rto_max: cfg.rto_max,
        }
    }

    /// A measurement `r`, taken as floor(r / tick) ticks; clears the backoff.
    pub fn on_sample(&mut self, r: Dur) {
        let mut m = (r.0 / self.tick.0) as i64;
        if !self.has_sample {
            self.sa = m << 3;
            self.sd = m << 2;
            self.has_sample = true;
        } else {
            m -= self.sa >> 3;
            self.sa += m;
            m = m.abs();
            m -= self.sd >> 2;
            self.sd += m;
        }
        let ticks = ((self.sa >> 3) + self.sd).max(0) as u64;
        let rto = Dur(ticks.saturating_mul(self.tick.0));
        self.base_rto = rto.max(self.rto_min).min(self.rto_max);
        self.backoff = 0;
    }

    /// The timer expired: the RTO doubles, capped at rto_max.
    pub fn on_timeout(&mut self) {
        self.backoff = super::shift_after_timeout(self.base_rto, self.backoff, self.rto_max);
    }

    /// Clears the backoff without a sample (ns-2 Sack1's partial ACK, `t_backoff_ = 1`).
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
    }

    /// The current RTO, including backoff.
    pub fn rto(&self) -> Dur {
        super::backed_off(self.base_rto, self.backoff, self.rto_max)
    }

    /// SRTT = SA / 8 ticks, once sampled.
    pub fn srtt(&self) -> Option<Dur> {
        self.has_sample
            .then(|| Dur((self.sa.max(0) as u64).saturating_mul(self.tick.0) / 8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rto_min_ms: u64) -> TcpConfig {
        TcpConfig {
            rto_initial: Dur::from_secs(3),
            rto_min: Dur::from_millis(rto_min_ms),
            rto_max: Dur::from_secs(64),
            tick: Dur::from_millis(1),
            ..TcpConfig::default()
        }
    }

    // spec 1 §2.5, worked by hand (ticks of 1 ms, no floor):
    // M=40: SA=320, SD=160, RTO=40+160=200.
    // M=48: M=48-40=8, SA=328, M=8-40=-32, SD=128, RTO=41+128=169.
    // M=20: M=20-41=-21, SA=307, M=21-32=-11, SD=117, RTO=38+117=155.
    // M=100: M=100-38=62, SA=369, M=62-29=33, SD=150, RTO=46+150=196.
    // 40.9 ms is 40 ticks (floor): SA=369-46+40=363, M=|40-46|=6, 6-37=-31, SD=119, RTO=45+119=164.
    #[test]
    fn scripted_samples_give_exact_rtos() {
        let mut e = Bsd::new(&cfg(0));
        assert_eq!(e.rto(), Dur::from_secs(3), "initial RTO");
        let mut got = vec![];
        for us in [40_000, 48_000, 20_000, 100_000, 40_900] {
            e.on_sample(Dur::from_micros(us));
            got.push(e.rto().0 / 1_000_000);
        }
        assert_eq!(got, [200, 169, 155, 196, 164]);
        assert_eq!(
            e.srtt(),
            Some(Dur::from_micros(45_375)),
            "SA/8 = 363/8 ticks"
        );
    }

    // spec 1 §2.5: RTO clamped to [RTOmin, 64 s]; expiry doubles up to 64 s and a sample
    // returns it to the computed value.
    #[test]
    fn floor_backoff_and_cap() {
        let mut e = Bsd::new(&cfg(450));
        e.on_sample(Dur::from_millis(40));
        assert_eq!(e.rto(), Dur::from_millis(450), "RTOmin floor");
        let mut seen = vec![];
        for _ in 0..9 {
            e.on_timeout();
            seen.push(e.rto().0 / 1_000_000);
        }
        assert_eq!(
            seen,
            [900, 1800, 3600, 7200, 14_400, 28_800, 57_600, 64_000, 64_000]
        );
        e.on_sample(Dur::from_millis(40));
        assert_eq!(e.rto(), Dur::from_millis(450));
    }
}
