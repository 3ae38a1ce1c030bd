//! The RFC 6298 estimator (`rtt_estimator = "rfc6298"`, the default): SRTT and RTTVAR with alpha = 1/8 and
//! beta = 1/4 (§2.3), RTO = SRTT + max(G, 4·RTTVAR) clamped to [rto_min, rto_max] (§2.4, §2.5),
//! the initial RTO before the first sample (§2.1), and exponential backoff on expiry (§5.5),
//! kept until the next valid sample (Karn & Partridge; RFC 6298 §5.7 note). Which segments
//! give samples (Karn's rule, timestamps) is the sender's business.

use super::super::TcpConfig;
use crate::transport::rtt::RttSmoother;
use packetsim_kernel::Dur;

/// RFC 6298 estimator state.
#[derive(Clone, Debug)]
pub struct Rfc6298 {
    /// SRTT and RTTVAR.
    smooth: RttSmoother,
    /// RTO before backoff.
    base_rto: Dur,
    /// Number of doublings applied since the last valid sample.
    backoff: u32,
    rto_min: Dur,
    rto_max: Dur,
    granularity: Dur,
}

impl Rfc6298 {
    /// A fresh estimator: RTO = `cfg.rto_initial` (RFC 6298 §2.1).
    pub fn new(cfg: &TcpConfig) -> Rfc6298 {
        Rfc6298 {
            smooth: RttSmoother::default(),
            base_rto: cfg.rto_initial.min(cfg.rto_max),
            backoff: 0,
            rto_min: cfg.rto_min,
            rto_max: cfg.rto_max,
            granularity: cfg.granularity,
        }
    }

    /// A valid RTT measurement `r`: RFC 6298 §2.2 (first) or §2.3 (later); clears the backoff.
    pub fn on_sample(&mut self, r: Dur) {
        // RFC 6298 §2.2 (first) and §2.3 (later samples).
        self.smooth.sample(r);
        let rto = self.smooth.rto(self.granularity);
        self.base_rto = rto.max(self.rto_min).min(self.rto_max);
        self.backoff = 0;
    }

    /// The retransmission timer expired: double the RTO (RFC 6298 §5.5), capped at rto_max.
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

    /// Smoothed RTT, if a sample has been taken.
    pub fn srtt(&self) -> Option<Dur> {
        self.smooth.srtt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> TcpConfig {
        TcpConfig {
            rto_initial: Dur::from_secs(3),
            rto_min: Dur::from_millis(200),
            rto_max: Dur::from_secs(20),
            granularity: Dur::from_millis(10),
            ..TcpConfig::default()
        }
    }

    // RFC 6298 §2.1: before any sample, RTO = the initial RTO.
    #[test]
    fn fresh_before_sample_uses_initial_rto() {
        let e = Rfc6298::new(&cfg());
        assert_eq!(e.rto(), Dur::from_secs(3));
        assert_eq!(e.srtt(), None);
    }

    // RFC 6298 §2.2: first sample SRTT = R, RTTVAR = R/2, RTO = R + max(G, 2R).
    #[test]
    fn fresh_first_sample_sets_srtt_and_rttvar() {
        let mut e = Rfc6298::new(&cfg());
        e.on_sample(Dur::from_millis(100));
        assert_eq!(e.srtt(), Some(Dur::from_millis(100)));
        assert_eq!(e.rto(), Dur::from_millis(300));
        // RFC 6298 §2.3: second sample 100 ms: RTTVAR = 3/4*50 = 37.5, SRTT = 100.
        e.on_sample(Dur::from_millis(100));
        assert_eq!(e.rto(), Dur::from_millis(250));
    }

    // RFC 6298 §2.4: the minimum is honoured when samples are tiny.
    #[test]
    fn sampled_tiny_rtt_rto_min_honoured() {
        let mut e = Rfc6298::new(&cfg());
        for _ in 0..20 {
            e.on_sample(Dur::from_micros(10));
        }
        assert_eq!(e.rto(), Dur::from_millis(200));
    }

    // RFC 6298 §5.5: the RTO doubles on each expiry and is capped at rto_max (§2.5).
    #[test]
    fn backed_off_repeated_expiry_doubles_then_caps() {
        let mut e = Rfc6298::new(&cfg());
        let mut seen = vec![e.rto()];
        for _ in 0..5 {
            e.on_timeout();
            seen.push(e.rto());
        }
        let s = Dur::from_secs;
        assert_eq!(seen, vec![s(3), s(6), s(12), s(20), s(20), s(20)]);
        // A new valid sample clears the backoff.
        e.on_sample(Dur::from_millis(100));
        assert_eq!(e.rto(), Dur::from_millis(300));
    }
}
