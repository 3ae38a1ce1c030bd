//! RFC 5681 AIMD: slow start (§3.1, +min(acked, SMSS) per ACK, RFC 3465 L = 1), congestion
//! avoidance (§3.1 eq. 3, +max(1, SMSS·SMSS/cwnd) per ACK) and ssthresh = max(FlightSize/2,
//! 2·SMSS) on congestion (§3.1 eq. 4). An ECN echo halves the window without retransmitting
//! (RFC 3168 §6.1.2; spec 4 §2.6): ssthresh = cwnd = max(min(cwnd, FlightSize)/2, 2·SMSS).
//! Spec 4 writes cwnd/2; ns-2 halves `window()` = min(⌊cwnd⌋, rwnd), so the smaller of cwnd
//! and FlightSize is halved: when the receive window limits the sender (cwnd keeps growing
//! past it), halving cwnd alone would not slow it down.

use super::{AckInfo, CcState, Congestion, CongestionControl};

/// Upper bound on cwnd, so inflation and growth never overflow.
const CWND_CAP: u32 = 1 << 30;

/// RFC 5681 congestion control.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reno;

impl CongestionControl for Reno {
    // Inline: `AnyCc::on_ack` calls it for every ACK of new data of the RFC 5681 variants.
    #[inline]
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        let inc = if st.in_slow_start() {
            // RFC 5681 §3.1: slow start, cwnd += min(N, SMSS).
            ack.acked.min(st.mss)
        } else {
            // RFC 5681 §3.1 eq. 3: congestion avoidance, cwnd += SMSS*SMSS/cwnd, at least 1.
            ((st.mss as u64 * st.mss as u64) / st.cwnd as u64).max(1) as u32
        };
        st.cwnd = st.cwnd.saturating_add(inc).min(CWND_CAP);
    }

    fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
        match cause {
            // Loss recovery decides cwnd (Tahoe 1 MSS, Reno ssthresh + 3 MSS, SACK ssthresh).
            Congestion::Loss => st.ssthresh = self.ssthresh_after(st),
            // RFC 3168 §6.1.2, spec 4 §2.6: halve the window, without retransmitting.
            Congestion::Ecn => {
                st.ssthresh = (st.cwnd.min(st.bytes_in_flight) / 2).max(2 * st.mss);
                st.cwnd = st.ssthresh;
            }
            // RFC 5681 §3.1: after a timeout cwnd = loss window = 1 SMSS.
            Congestion::Timeout => {
                st.ssthresh = self.ssthresh_after(st);
                st.cwnd = st.mss;
            }
            // RFC 5681 §3.1: the loss window; ssthresh stays as recovery set it (eq. 4 is an
            // upper bound: "no more than").
            Congestion::RecoveryTimeout => st.cwnd = st.mss,
        }
    }

    fn ssthresh_after(&self, st: &CcState) -> u32 {
        // RFC 5681 §3.1 eq. 4.
        (st.bytes_in_flight / 2).max(2 * st.mss)
    }

    fn name(&self) -> &'static str {
        "reno"
    }
}

#[cfg(test)]
mod tests {
    use super::super::Phase;
    use super::*;

    fn ack(acked: u32) -> AckInfo {
        AckInfo {
            acked,
            now: packetsim_kernel::Time::ZERO,
            srtt: None,
        }
    }

    fn st(cwnd: u32, ssthresh: u32) -> CcState {
        CcState {
            cwnd,
            ssthresh,
            bytes_in_flight: cwnd,
            mss: 1000,
            phase: Phase::Open,
        }
    }

    // RFC 5681 §3.1: in slow start cwnd grows by min(acked, SMSS) per ACK.
    #[test]
    fn slow_start_new_ack_adds_at_most_one_mss() {
        let mut s = st(2000, 10_000);
        Reno.on_ack(&mut s, &ack(1000));
        assert_eq!(s.cwnd, 3000);
        Reno.on_ack(&mut s, &ack(3000));
        assert_eq!(s.cwnd, 4000);
    }

    // RFC 5681 §3.1 eq. 3: in congestion avoidance cwnd += SMSS*SMSS/cwnd.
    #[test]
    fn congestion_avoidance_new_ack_adds_mss_squared_over_cwnd() {
        let mut s = st(10_000, 5000);
        Reno.on_ack(&mut s, &ack(1000));
        assert_eq!(s.cwnd, 10_100);
    }

    // RFC 5681 §3.1 eq. 4 and the loss window.
    #[test]
    fn open_timeout_sets_half_flight_and_one_mss() {
        let mut s = st(10_000, 64_000);
        Reno.on_congestion(&mut s, Congestion::Timeout);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 5000));
        let mut s = st(3000, 64_000);
        Reno.on_congestion(&mut s, Congestion::Loss);
        assert_eq!(s.ssthresh, 2000);
    }

    // RFC 5681 §3.1: eq. 4 gives ssthresh "no more than" max(FlightSize/2, 2 SMSS); a timeout
    // during fast recovery under `rto_ssthresh = "recovery"` keeps the recovery's ssthresh
    // (Linux `tcp_enter_loss`) and still sets the loss window of 1 SMSS.
    #[test]
    fn recovery_timeout_keeps_ssthresh_one_mss() {
        let mut s = st(14_000, 5000);
        Reno.on_congestion(&mut s, Congestion::RecoveryTimeout);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 5000));
    }

    // RFC 3168 §6.1.2, spec 4 §2.6: an ECN echo sets ssthresh = cwnd = max(half the window,
    // 2 SMSS), the window being the smaller of cwnd and FlightSize (ns-2 `window()`).
    #[test]
    fn open_ecn_halves_smaller_of_cwnd_and_flight() {
        let mut s = st(10_000, 64_000);
        Reno.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.cwnd, s.ssthresh), (5000, 5000));
        // Receive-window limited: cwnd 30000 but only 8000 in flight.
        let mut s = st(30_000, 64_000);
        s.bytes_in_flight = 8000;
        Reno.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.cwnd, s.ssthresh), (4000, 4000));
        // Never below 2 SMSS.
        let mut s = st(3000, 64_000);
        Reno.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.cwnd, s.ssthresh), (2000, 2000));
    }
}
