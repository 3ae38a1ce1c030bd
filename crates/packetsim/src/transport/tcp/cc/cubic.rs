//! CUBIC, RFC 9438: the window grows as a cubic function of the time since the last
//! congestion event, W_cubic(t) = C·(t − K)³ + W_max (§4.2 eq. 1), with K = ∛((W_max −
//! cwnd_epoch)/C) (§4.2 eq. 2), C = 0.4 and β_cubic = 0.7 (§4.1.1).
//!
//! What each hook does, and the RFC rule it follows:
//! - Slow start (cwnd < ssthresh) is RFC 5681's (§4.10 allows it), as [`super::Reno`].
//! - Congestion avoidance (§4.2-4.5): the first ACK with cwnd >= ssthresh starts an epoch
//!   (t_epoch = now, cwnd_epoch = cwnd, W_est = cwnd_epoch). On every ACK, W_est grows by
//!   α·segments_acked/cwnd (§4.3 eq. 4; α = α_cubic = 3(1 − β)/(1 + β) until W_est reaches
//!   cwnd_prior, then 1). If W_cubic(t) < W_est the sender is in the Reno-friendly region and
//!   cwnd = W_est (§4.3); otherwise target = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd]
//!   (§4.2) and cwnd grows by (target − cwnd)/cwnd segments (§4.4, §4.5). RTT is the
//!   smoothed RTT (0 before the first sample).
//! - A congestion event (loss, ECN echo, §4.6): W_max = cwnd, or cwnd·(1 + β)/2 when cwnd is
//!   below the previous W_max (fast convergence, §4.7); cwnd_prior = cwnd; ssthresh =
//!   max(FlightSize·β, 2 SMSS). After a loss the loss recovery sets cwnd (it reaches ssthresh
//!   when recovery ends); after an ECN echo cwnd = max(FlightSize·β, 1 SMSS) (§4.6).
//! - A timeout (§4.8): ssthresh as above, cwnd = 1 SMSS; the next epoch starts with W_max =
//!   cwnd_epoch, so K = 0 and W_est = cwnd_epoch. A timeout during fast recovery under
//!   `tcp.rto_ssthresh = "recovery"` (`Congestion::RecoveryTimeout`) does the same but keeps
//!   ssthresh and cwnd_prior from the loss that started recovery.
//!
//! Decisions (where the RFC leaves room):
//! - Windows are computed in segments (f64) and applied to the byte cwnd with the fraction
//!   carried to the next ACK, so growth by fractions of a byte is not lost; the carry is
//!   dropped when anything else (loss recovery, a timeout) sets cwnd.
//! - The §4.4/§4.5 increment is scaled by the segments the ACK acknowledges (acked/SMSS), as
//!   W_est's is in §4.3 and as Linux and ns-3 count it, so delayed ACKs do not halve growth.
//! - In the Reno-friendly region cwnd is never lowered to W_est (§4.3 says "set to W_est";
//!   W_est can fall below a cwnd that the previous ACK's target raised).
//! - An epoch with no W_max (the first one, ended by ssthresh alone, and the first after a
//!   timeout) or with W_max below cwnd_epoch uses W_max = cwnd_epoch, K = 0 (§4.8; Linux
//!   does the same); cwnd_prior defaults to cwnd_epoch, so α = 1 in such an epoch.
//! - ssthresh = FlightSize·7/10 in integer bytes (exact), as RFC 9438 §4.6 writes it with
//!   flight_size.
//! - No HyStart++ and no spurious-congestion undo (§4.9): the sender does not detect them.
//!
//! ns-3.37's `TcpCubic` departs from RFC 9438 in each of the following; this controller
//! follows the RFC, and `tcp.cubic_model = "ns3"` selects ns-3's arithmetic instead
//! (`cubic_ns3.rs`, [`super::CubicNs3`]):
//! - ssthresh = β·cwnd in whole segments (`GetSsThresh`); here β·FlightSize in bytes (§4.6).
//! - No Reno-friendly region (§4.3); here W_est.
//! - Target W_cubic(t + delayMin), delayMin the least SRTT, samples ignored for 10 ms after an
//!   epoch starts (`Update`, `PktsAcked`); here W_cubic(t + SRTT) (§4.2).
//! - Whole segments: the increment ⌊C·|t − K|³⌋ and cnt = ⌊segCwnd/(target − segCwnd)⌋,
//!   and fast convergence comparing ⌊cwnd/SMSS⌋ with W_max (a loss at the same whole-segment
//!   window does not converge fast); here windows with their fractions.
//! - cnt clamped to 20 before the first loss; slow start adding every segment an ACK covers;
//!   a timeout forgetting W_max; growth on the ACK that ends fast recovery.

use super::{AckInfo, CcState, Congestion, CongestionControl};
use crate::transport::tcp::CubicModel;
/// The second type of CUBIC's row (`tcp.cubic_model = "ns3"`).
pub use super::cubic_ns3::CubicNs3;

impl super::Controller for Cubic {
    fn build(cfg: &crate::transport::tcp::TcpConfig) -> super::StatefulCc {
        match cfg.cubic_model {
            CubicModel::Rfc9438 => super::StatefulCc::Cubic(Cubic::default()),
            CubicModel::Ns3 => super::StatefulCc::CubicNs3(CubicNs3::default()),
        }
    }
}

/// β_cubic, as the exact fraction 7/10 for ssthresh (RFC 9438 §4.1.1).
const BETA_NUM: u64 = 7;
const BETA_DEN: u64 = 10;
/// β_cubic (RFC 9438 §4.1.1).
pub const BETA: f64 = 0.7;
/// C, segments/s³ (RFC 9438 §4.1.1).
pub const C: f64 = 0.4;
/// α_cubic = 3(1 − β)/(1 + β) (RFC 9438 §4.3).
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// Upper bound on cwnd, as Reno's.
const CWND_CAP: u32 = 1 << 30;

/// One congestion-avoidance epoch (RFC 9438 §4.1.1 t_epoch, cwnd_epoch, K, W_est).
#[derive(Clone, Debug, PartialEq)]
struct Epoch {
    /// t_epoch, seconds.
    start: f64,
    /// W_max of this epoch, segments.
    w_max: f64,
    /// K, seconds.
    k: f64,
    /// W_est, segments.
    w_est: f64,
    /// cwnd_prior, segments.
    cwnd_prior: f64,
}

/// RFC 9438 CUBIC congestion control.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cubic {
    /// W_max, segments, once a congestion event set it (None after a timeout, §4.8).
    w_max: Option<f64>,
    /// cwnd_prior, segments: cwnd at the last congestion event.
    cwnd_prior: Option<f64>,
    epoch: Option<Epoch>,
    /// Fraction of a byte of cwnd carried to the next ACK.
    carry: f64,
    /// cwnd as this controller last set it (to spot changes made by others).
    last_cwnd: u32,
}

impl Cubic {
    /// W_cubic(t) of the current epoch, segments (RFC 9438 §4.2 eq. 1); None outside an epoch.
    pub fn w_cubic(&self, t: f64) -> Option<f64> {
        self.epoch.as_ref().map(|e| cubic(e, t))
    }

    /// K of the current epoch, seconds (RFC 9438 §4.2 eq. 2).
    pub fn k(&self) -> Option<f64> {
        self.epoch.as_ref().map(|e| e.k)
    }

    /// W_max, segments.
    pub fn w_max(&self) -> Option<f64> {
        self.epoch.as_ref().map(|e| e.w_max).or(self.w_max)
    }

    /// W_est of the current epoch, segments (RFC 9438 §4.3).
    pub fn w_est(&self) -> Option<f64> {
        self.epoch.as_ref().map(|e| e.w_est)
    }

    fn start_epoch(&mut self, now: f64, cwnd: f64) -> &mut Epoch {
        // RFC 9438 §4.8 (and no W_max yet): W_max = cwnd_epoch, so K = 0.
        let w_max = self.w_max.filter(|w| *w >= cwnd).unwrap_or(cwnd);
        self.w_max = Some(w_max);
        self.epoch.insert(Epoch {
            start: now,
            w_max,
            // RFC 9438 §4.2 eq. 2.
            k: ((w_max - cwnd) / C).cbrt(),
            // RFC 9438 §4.3: W_est starts at cwnd_epoch.
            w_est: cwnd,
            cwnd_prior: self.cwnd_prior.unwrap_or(cwnd),
        })
    }
}

/// RFC 9438 §4.2 eq. 1.
fn cubic(e: &Epoch, t: f64) -> f64 {
    let d = t - e.k;
    C * d * d * d + e.w_max
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        if st.in_slow_start() {
            // RFC 9438 §4.10 / RFC 5681 §3.1: cwnd += min(N, SMSS).
            self.epoch = None;
            st.cwnd = st.cwnd.saturating_add(ack.acked.min(st.mss)).min(CWND_CAP);
            self.last_cwnd = st.cwnd;
            return;
        }
        if st.cwnd != self.last_cwnd {
            self.carry = 0.0;
        }
        let mss = st.mss as f64;
        let cwnd_bytes = st.cwnd as f64 + self.carry;
        let cwnd = cwnd_bytes / mss;
        let now = ack.now.as_secs_f64();
        let rtt = ack.srtt.map_or(0.0, |d| d.as_secs_f64());
        let segs = ack.acked as f64 / mss;
        let e = match self.epoch {
            Some(ref mut e) => e,
            None => self.start_epoch(now, cwnd),
        };
        let t = now - e.start;
        // RFC 9438 §4.3 eq. 4, α = 1 once W_est has reached cwnd_prior.
        let alpha = if e.w_est >= e.cwnd_prior { 1.0 } else { ALPHA };
        e.w_est += alpha * segs / cwnd;
        let next = if cubic(e, t) < e.w_est {
            // RFC 9438 §4.3: the Reno-friendly region.
            e.w_est.max(cwnd)
        } else {
            // RFC 9438 §4.2: target = W_cubic(t + RTT) within [cwnd, 1.5 cwnd]; §4.4, §4.5.
            let target = cubic(e, t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * segs
        };
        let bytes = (next * mss).min(CWND_CAP as f64);
        let whole = bytes.floor();
        st.cwnd = (whole as u32).max(st.cwnd);
        self.carry = if st.cwnd == whole as u32 {
            bytes - whole
        } else {
            0.0
        };
        self.last_cwnd = st.cwnd;
    }

    fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
        if cause == Congestion::RecoveryTimeout {
            // RFC 9438 §4.8 with the recovery's ssthresh kept: Reno's loss window, and the
            // next epoch starts from W_max = cwnd_epoch (K = 0); cwnd_prior and ssthresh stay
            // as the loss that started recovery set them (nothing is learnt from the
            // window of this moment, which fast recovery may have inflated).
            st.cwnd = st.mss;
            self.epoch = None;
            self.carry = 0.0;
            self.w_max = None;
            self.last_cwnd = st.cwnd;
            return;
        }
        let cwnd = (st.cwnd as f64 + self.carry) / st.mss as f64;
        // RFC 9438 §4.7: fast convergence.
        self.w_max = Some(match self.w_max() {
            Some(w) if cwnd < w => cwnd * (1.0 + BETA) / 2.0,
            _ => cwnd,
        });
        self.cwnd_prior = Some(cwnd);
        self.epoch = None;
        self.carry = 0.0;
        let reduced = (st.bytes_in_flight as u64 * BETA_NUM / BETA_DEN) as u32;
        // RFC 9438 §4.6: ssthresh = max(flight_size·β, 2 SMSS).
        st.ssthresh = self.ssthresh_after(st);
        match cause {
            Congestion::Loss => {}
            // RFC 9438 §4.6: on an ECN echo cwnd = max(flight_size·β, 1 SMSS).
            Congestion::Ecn => st.cwnd = reduced.max(st.mss),
            // RFC 9438 §4.8: Reno's loss window; W_max is set when the next epoch starts.
            Congestion::Timeout => {
                st.cwnd = st.mss;
                self.w_max = None;
            }
            Congestion::RecoveryTimeout => unreachable!("handled above"),
        }
        self.last_cwnd = st.cwnd;
    }

    fn ssthresh_after(&self, st: &CcState) -> u32 {
        // RFC 9438 §4.6.
        ((st.bytes_in_flight as u64 * BETA_NUM / BETA_DEN) as u32).max(2 * st.mss)
    }

    fn name(&self) -> &'static str {
        "cubic"
    }
}

#[cfg(test)]
mod tests {
    use super::super::Phase;
    use super::*;
    use packetsim_kernel::{Dur, Time};

    const MSS: u32 = 1000;

    fn st(cwnd: u32, ssthresh: u32) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            bytes_in_flight: cwnd,
            mss: MSS,
            phase: Phase::Open,
        }
    }

    fn ack(at_ms: u64, acked: u32, srtt_ms: u64) -> AckInfo {
        AckInfo {
            acked,
            now: Time::from_millis(at_ms),
            srtt: Some(Dur::from_millis(srtt_ms)),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// A loss at cwnd = FlightSize = `w` bytes, then recovery leaving cwnd = ssthresh.
    fn after_loss(c: &mut Cubic, w: u32) -> CcState {
        let mut s = st(w, 1 << 30);
        c.on_congestion(&mut s, Congestion::Loss);
        s.cwnd = s.ssthresh;
        s
    }

    // RFC 9438 §4.6: ssthresh = flight_size·β_cubic (β = 0.7), at least 2 SMSS; §4.7 with no
    // earlier W_max: W_max = cwnd.
    #[test]
    fn loss_sets_ssthresh_to_seven_tenths_of_flight_and_w_max_to_cwnd() {
        let mut c = Cubic::default();
        let s = after_loss(&mut c, 100_000);
        assert_eq!(s.ssthresh, 70_000);
        assert_eq!(c.w_max(), Some(100.0));
        let mut s = st(2500, 1 << 30);
        c.on_congestion(&mut s, Congestion::Loss);
        assert_eq!(s.ssthresh, 2000);
    }

    // RFC 9438 §4.2 eqs. 1-2: W_max = 36 segments, cwnd_epoch = 25.2, so K = ∛(10.8/0.4) = 3 s;
    // W_cubic(0) = cwnd_epoch, W_cubic(K) = W_max, W_cubic(K ± 1) = W_max ± 0.4,
    // W_cubic(K + 2) = W_max + 3.2.
    #[test]
    fn w_cubic_after_a_loss_follows_the_cubic_through_w_max_at_k() {
        let mut c = Cubic::default();
        let mut s = after_loss(&mut c, 36_000);
        assert_eq!(s.cwnd, 25_200);
        c.on_ack(&mut s, &ack(1000, MSS, 100));
        assert!(close(c.k().unwrap(), 3.0), "K = {:?}", c.k());
        assert!(close(c.w_cubic(0.0).unwrap(), 25.2));
        assert!(close(c.w_cubic(3.0).unwrap(), 36.0));
        assert!(close(c.w_cubic(2.0).unwrap(), 35.6));
        assert!(close(c.w_cubic(4.0).unwrap(), 36.4));
        assert!(close(c.w_cubic(5.0).unwrap(), 39.2));
    }

    // RFC 9438 §4.3 (the first ACK of an epoch: W_cubic(0) = cwnd_epoch < W_est, so cwnd =
    // W_est = 70 + α_cubic/70) then §4.2 and §4.5: at t = 10 s W_cubic(t + RTT) is far above
    // 1.5·cwnd, so target = 1.5·cwnd and cwnd grows by exactly half a segment per ACK.
    #[test]
    fn cwnd_at_given_times_after_a_loss() {
        let mut c = Cubic::default();
        let mut s = after_loss(&mut c, 100_000);
        c.on_ack(&mut s, &ack(2000, MSS, 100));
        let w_est = 70.0 + ALPHA / 70.0;
        assert_eq!(s.cwnd, (w_est * 1000.0).floor() as u32);
        assert_eq!(s.cwnd, 70_007);
        c.on_ack(&mut s, &ack(12_000, MSS, 100));
        assert_eq!(s.cwnd, 70_507);
        c.on_ack(&mut s, &ack(12_000, MSS, 100));
        assert_eq!(s.cwnd, 71_007);
    }

    // RFC 9438 §4.4 (concave region): W_max = 36, K = 3 s; an ACK at t = 1 s with RTT 0.1 s:
    // target = W_cubic(1.1) = 0.4·(−1.9)³ + 36 = 33.2564 segments, cwnd grows by
    // (target − cwnd)/cwnd; W_cubic(1) = 32.8 > W_est, so it is not Reno-friendly.
    #[test]
    fn concave_region_moves_cwnd_toward_w_cubic_one_rtt_ahead() {
        let mut c = Cubic::default();
        let mut s = after_loss(&mut c, 36_000);
        c.on_ack(&mut s, &ack(0, MSS, 100));
        let w0 = (25.2 + ALPHA / 25.2) * 1000.0;
        assert_eq!(s.cwnd, w0.floor() as u32);
        c.on_ack(&mut s, &ack(1000, MSS, 100));
        let cw = w0 / 1000.0;
        let target: f64 = 0.4 * (-1.9f64).powi(3) + 36.0;
        assert!(close(target, 33.2564));
        let expect = (cw + (target - cw) / cw) * 1000.0;
        assert_eq!(s.cwnd, expect.floor() as u32);
        assert_eq!(s.cwnd, 25_539);
    }

    // RFC 9438 §4.3: while W_cubic(t) < W_est the window follows W_est, which grows by
    // α_cubic·segments_acked/cwnd per ACK (eq. 4); an ACK of two segments adds twice as much.
    #[test]
    fn reno_friendly_region_follows_w_est() {
        let mut c = Cubic::default();
        let mut s = after_loss(&mut c, 100_000);
        // cwnd (with its carried fraction) equals W_est after every ACK here.
        let mut w_est = 70.0f64;
        for _ in 0..10 {
            c.on_ack(&mut s, &ack(0, 2 * MSS, 100));
            w_est += ALPHA * 2.0 / w_est;
        }
        // Every ACK came at t = 0, where W_cubic(0) = 70 < W_est.
        assert!((c.w_est().unwrap() - w_est).abs() < 1e-6);
        assert_eq!(s.cwnd, (c.w_est().unwrap() * 1000.0).floor() as u32);
        assert_eq!(s.cwnd, 70_151);
    }

    // RFC 9438 §4.3: α = 1 once W_est >= cwnd_prior (here an epoch that starts above it).
    #[test]
    fn alpha_becomes_one_once_w_est_reaches_cwnd_prior() {
        let mut c = Cubic::default();
        let mut s = after_loss(&mut c, 10_000);
        // Recovery left cwnd above cwnd_prior (10 segments): W_est starts at 12 >= 10.
        s.cwnd = 12_000;
        s.ssthresh = 12_000;
        c.on_ack(&mut s, &ack(0, MSS, 100));
        assert!(close(c.w_est().unwrap(), 12.0 + 1.0 / 12.0));
    }

    // RFC 9438 §4.7: a loss below the previous W_max sets W_max = cwnd·(1 + β)/2.
    #[test]
    fn fast_convergence_lowers_w_max_when_cwnd_is_below_it() {
        let mut c = Cubic::default();
        let mut s = after_loss(&mut c, 36_000);
        assert_eq!(c.w_max(), Some(36.0));
        s.cwnd = 30_000;
        s.bytes_in_flight = 30_000;
        c.on_congestion(&mut s, Congestion::Loss);
        assert!(close(c.w_max().unwrap(), 25.5));
        assert_eq!(s.ssthresh, 21_000);
        // Above the previous W_max: W_max = cwnd.
        s.cwnd = 40_000;
        c.on_congestion(&mut s, Congestion::Loss);
        assert_eq!(c.w_max(), Some(40.0));
    }

    // RFC 9438 §4.6: an ECN echo sets cwnd = flight_size·β (at least 1 SMSS) directly.
    #[test]
    fn ecn_echo_reduces_cwnd_to_seven_tenths_of_flight() {
        let mut c = Cubic::default();
        let mut s = st(50_000, 1 << 30);
        s.bytes_in_flight = 40_000;
        c.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.cwnd, s.ssthresh), (28_000, 28_000));
    }

    // RFC 9438 §4.8: a timeout sets ssthresh by β and cwnd = 1 SMSS; the first epoch after it
    // has W_max = cwnd_epoch and K = 0, so W_cubic(t) = cwnd_epoch + C·t³.
    #[test]
    fn timeout_restarts_with_k_zero_at_the_next_epoch() {
        let mut c = Cubic::default();
        let mut s = st(50_000, 1 << 30);
        c.on_congestion(&mut s, Congestion::Timeout);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 35_000));
        // Slow start up to ssthresh: no epoch.
        s.cwnd = 34_500;
        c.on_ack(&mut s, &ack(500, MSS, 100));
        assert_eq!(s.cwnd, 35_500);
        assert_eq!(c.k(), None);
        // The first ACK in congestion avoidance starts the epoch at cwnd_epoch = 35.5.
        c.on_ack(&mut s, &ack(600, MSS, 100));
        assert_eq!(c.k(), Some(0.0));
        assert!(close(c.w_cubic(2.0).unwrap(), 35.5 + 0.4 * 8.0));
    }

    // RFC 9438 §4.8 under `rto_ssthresh = "recovery"`: a timeout during fast recovery keeps
    // the ssthresh (and cwnd_prior) of the loss that started it, sets cwnd = 1 SMSS, and the
    // next epoch starts from W_max = cwnd_epoch (K = 0), not from the inflated window.
    #[test]
    fn recovery_timeout_keeps_ssthresh_and_restarts_with_k_zero() {
        let mut c = Cubic::default();
        let mut s = st(50_000, 1 << 30);
        s.bytes_in_flight = 40_000;
        c.on_congestion(&mut s, Congestion::Loss);
        assert_eq!(s.ssthresh, 28_000);
        assert_eq!(c.w_max(), Some(50.0));
        // Fast recovery inflated cwnd to 90 segments, then the timer expired.
        s.cwnd = 90_000;
        s.bytes_in_flight = 95_000;
        c.on_congestion(&mut s, Congestion::RecoveryTimeout);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 28_000));
        assert_eq!(c.w_max(), None, "W_max is set when the next epoch starts");
        // Slow start to ssthresh, then the epoch: K = 0 at cwnd_epoch = 28.5 segments; W_est
        // grows by α_cubic (cwnd_prior = 50 from the loss, not 90) per window.
        s.cwnd = 27_500;
        c.on_ack(&mut s, &ack(500, MSS, 100));
        assert_eq!(s.cwnd, 28_500);
        c.on_ack(&mut s, &ack(600, MSS, 100));
        assert_eq!(c.k(), Some(0.0));
        assert!(close(c.w_max().unwrap(), 28.5));
        assert!(close(c.w_est().unwrap(), 28.5 + ALPHA / 28.5));
    }
}
