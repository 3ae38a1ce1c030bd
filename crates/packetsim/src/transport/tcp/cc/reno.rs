//! RFC 5681 AIMD: slow start (§3.1, +min(acked, SMSS) per ACK, RFC 3465 L = 1), congestion
//! avoidance (§3.1 eq. 3, +max(1, SMSS·SMSS/cwnd) per ACK) and ssthresh = max(FlightSize/2,
//! 2·SMSS) on congestion (§3.1 eq. 4).

use super::{AckInfo, CcState, Congestion, CongestionControl};

/// Upper bound on cwnd, so inflation and growth never overflow.
const CWND_CAP: u32 = 1 << 30;

/// RFC 5681 congestion control.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reno;

impl CongestionControl for Reno {
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
        st.ssthresh = self.ssthresh_after(st);
        match cause {
            // Loss recovery decides cwnd (Tahoe 1 MSS, Reno ssthresh + 3 MSS, SACK ssthresh).
            Congestion::Loss => {}
            // RFC 3168 §6.1.2: reduce as for a loss, without retransmitting.
            Congestion::Ecn => st.cwnd = st.ssthresh,
            // RFC 5681 §3.1: after a timeout cwnd = loss window = 1 SMSS.
            Congestion::Timeout => st.cwnd = st.mss,
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
        Reno.on_ack(&mut s, &AckInfo { acked: 1000 });
        assert_eq!(s.cwnd, 3000);
        Reno.on_ack(&mut s, &AckInfo { acked: 3000 });
        assert_eq!(s.cwnd, 4000);
    }

    // RFC 5681 §3.1 eq. 3: in congestion avoidance cwnd += SMSS*SMSS/cwnd.
    #[test]
    fn congestion_avoidance_new_ack_adds_mss_squared_over_cwnd() {
        let mut s = st(10_000, 5000);
        Reno.on_ack(&mut s, &AckInfo { acked: 1000 });
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
}
