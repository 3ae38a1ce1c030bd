//! Scalable TCP (T. Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", CCR 33(2), 2003), as Linux's `tcp_scalable.c` runs it: in congestion avoidance
//! cwnd grows by one segment per `min(cwnd, 100)` segments acknowledged
//! (`tcp_scalable_cong_avoid`: `tcp_cong_avoid_ai(tp, min(cwnd, TCP_SCALABLE_AI_CNT),
//! acked)`, `TCP_SCALABLE_AI_CNT` = 100), so a large window grows by 1% per round trip
//! whatever its size; on congestion ssthresh = max(cwnd − cwnd/8, 2) segments
//! (`tcp_scalable_ssthresh`, `TCP_SCALABLE_MD_SCALE` = 3: the window falls by 1/8, not 1/2).
//! Below 100 segments it is Reno's +1 segment per window.
//!
//! Decisions:
//! - Slow start is RFC 5681's (+min(acked, SMSS) per ACK, as [`super::Reno`] and the other
//!   controllers here); Linux's `tcp_slow_start` adds the whole `acked` up to ssthresh and
//!   hands the rest to congestion avoidance.
//! - The AI counter counts bytes (Linux counts segments in `snd_cwnd_cnt`): one segment per
//!   `min(cwnd/SMSS, 100)·SMSS` bytes acknowledged, the remainder carried; any congestion
//!   signal clears it.
//! - ssthresh is computed on cwnd in whole segments, as Linux's is; after an ECN echo cwnd =
//!   ssthresh at once (Linux reduces to it through PRR, which the sender runs only when
//!   `sack_recovery = "prr"`).
//!
//! It is the worked example of `docs/extending.md` ("How to add a congestion control"):
//! this file and its row in `cc::congestion_controls!` are the whole change.

use super::{AckInfo, CcState, Congestion, CongestionControl, Reno, StatefulCc};
use crate::transport::tcp::TcpConfig;

/// `TCP_SCALABLE_AI_CNT`: at most this many segments acknowledged per segment of growth.
const AI_CNT: u32 = 100;
/// `TCP_SCALABLE_MD_SCALE`: the window falls by cwnd >> 3 on congestion.
const MD_SCALE: u32 = 3;

/// Scalable TCP's controller: the bytes acknowledged towards the next segment of growth.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scalable {
    acked: u64,
}

impl super::Controller for Scalable {
    fn build(_cfg: &TcpConfig) -> StatefulCc {
        StatefulCc::Scalable(Scalable::default())
    }
}

impl CongestionControl for Scalable {
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        if st.in_slow_start() {
            Reno.on_ack(st, ack);
            return;
        }
        // tcp_cong_avoid_ai with w = min(cwnd, TCP_SCALABLE_AI_CNT) segments.
        let w = (st.cwnd / st.mss).clamp(1, AI_CNT) as u64 * st.mss as u64;
        self.acked += ack.acked as u64;
        let grow = self.acked / w;
        self.acked -= grow * w;
        st.cwnd = st
            .cwnd
            .saturating_add((grow as u32).saturating_mul(st.mss))
            .min(1 << 30);
    }

    fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
        self.acked = 0;
        match cause {
            // Loss recovery then sets cwnd (NewReno: ssthresh + 3 SMSS, then ssthresh).
            Congestion::Loss => st.ssthresh = self.ssthresh_after(st),
            Congestion::Ecn => {
                st.ssthresh = self.ssthresh_after(st);
                st.cwnd = st.ssthresh;
            }
            Congestion::Timeout => {
                st.ssthresh = self.ssthresh_after(st);
                st.cwnd = st.mss;
            }
            Congestion::RecoveryTimeout => st.cwnd = st.mss,
        }
    }

    fn ssthresh_after(&self, st: &CcState) -> u32 {
        // tcp_scalable_ssthresh: max(cwnd - (cwnd >> 3), 2) segments.
        let segs = st.cwnd / st.mss;
        (segs - (segs >> MD_SCALE)).max(2) * st.mss
    }

    fn name(&self) -> &'static str {
        "scalable"
    }
}

#[cfg(test)]
mod tests {
    use super::super::Phase;
    use super::*;
    use packetsim_kernel::Time;

    const MSS: u32 = 1000;

    fn st(cwnd_segs: u32) -> CcState {
        CcState {
            cwnd: cwnd_segs * MSS,
            ssthresh: MSS,
            bytes_in_flight: cwnd_segs * MSS,
            mss: MSS,
            phase: Phase::Open,
        }
    }

    fn ack(acked: u32) -> AckInfo {
        AckInfo {
            acked,
            now: Time::ZERO,
            srtt: None,
        }
    }

    // tcp_scalable_cong_avoid: w = min(cwnd, 100) segments per segment of growth. At 50
    // segments (below 100: Reno's rate) the 50th ACKed segment grows cwnd, not the 49th.
    #[test]
    fn below_100_segments_one_segment_per_window() {
        let mut c = Scalable::default();
        let mut s = st(50);
        for _ in 0..49 {
            c.on_ack(&mut s, &ack(MSS));
        }
        assert_eq!(s.cwnd, 50 * MSS);
        c.on_ack(&mut s, &ack(MSS));
        assert_eq!(s.cwnd, 51 * MSS);
    }

    // Above 100 segments w stays 100: a 400-segment window grows one segment per 100 ACKed
    // (1% per round trip, four segments per window), where Reno would take 400.
    #[test]
    fn above_100_segments_one_segment_per_100_acked() {
        let mut c = Scalable::default();
        let mut s = st(400);
        for _ in 0..99 {
            c.on_ack(&mut s, &ack(MSS));
        }
        assert_eq!(s.cwnd, 400 * MSS);
        c.on_ack(&mut s, &ack(MSS));
        assert_eq!(s.cwnd, 401 * MSS);
        // A stretch ACK of 250 segments: two segments of growth, 50 carried.
        c.on_ack(&mut s, &ack(250 * MSS));
        assert_eq!(s.cwnd, 403 * MSS);
        assert_eq!(c.acked, 50 * MSS as u64);
    }

    // tcp_scalable_ssthresh: cwnd − cwnd/8 in whole segments, at least 2; a loss leaves cwnd
    // to the recovery, a timeout sets the loss window, and both clear the AI counter.
    #[test]
    fn congestion_takes_an_eighth_off() {
        let mut c = Scalable { acked: 700 };
        let mut s = st(80);
        c.on_congestion(&mut s, Congestion::Loss);
        assert_eq!((s.ssthresh, s.cwnd, c.acked), (70 * MSS, 80 * MSS, 0));
        assert_eq!(c.ssthresh_after(&st(10)), 9 * MSS);
        assert_eq!(c.ssthresh_after(&st(2)), 2 * MSS);
        let mut s = st(16);
        c.on_congestion(&mut s, Congestion::Timeout);
        assert_eq!((s.ssthresh, s.cwnd), (14 * MSS, MSS));
        let mut s = st(16);
        c.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.ssthresh, s.cwnd), (14 * MSS, 14 * MSS));
    }

    // Slow start is RFC 5681's: +min(acked, SMSS) per ACK while cwnd < ssthresh.
    #[test]
    fn slow_start_is_rfc5681() {
        let mut c = Scalable::default();
        let mut s = st(4);
        s.ssthresh = 100 * MSS;
        c.on_ack(&mut s, &ack(3 * MSS));
        assert_eq!(s.cwnd, 5 * MSS);
        assert_eq!(c.acked, 0);
    }
}
