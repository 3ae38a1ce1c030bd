//! DCTCP, RFC 8257: the sender estimates the fraction of its bytes that met congestion (ECN
//! marks echoed per segment by the receiver, §3.2) once per window of data and cuts cwnd in
//! proportion to it, instead of halving it.
//!
//! What each hook does, and the RFC rule it follows:
//! - Every ACK of new data while ECN is negotiated (`on_ecn_ack`, in every phase, before the
//!   sender reacts to its ECE flag): BytesAcked += SEG.ACK − SND.UNA, and BytesMarked by the
//!   same if ECE is set (§3.3 steps 1-3). When the ACK passes WindowEnd, the observation window
//!   ends: M = BytesMarked/BytesAcked, α = α·(1 − g) + g·M, WindowEnd = SND.NXT and both counters
//!   restart at 0 (§3.3 steps 4-8). α starts at 1 and WindowEnd at 0 (the ISS), so the first
//!   ACK of data closes the first window (§3.3 initial values).
//! - An ECN echo (`Congestion::Ecn`; the sender calls it at most once per window, RFC 3168
//!   §6.1.2 as §3.4 requires): cwnd = cwnd·(1 − α/2) with the α of this ACK (§3.4), at least
//!   2 SMSS, and ssthresh = the new cwnd (RFC 3168 §6.1.2 reduces both; Linux `dctcp_ssthresh`
//!   floors at 2 segments).
//! - Window growth, loss and timeout: RFC 5681, as [`super::Reno`] (§3.4 keeps the standard
//!   growth; §3.5: loss is handled as conventional TCP).
//!
//! Decisions:
//! - SND.NXT for WindowEnd is the highest sequence sent (`snd_max`): after a timeout the
//!   sender's `snd_nxt` goes back to snd_una for go-back-N, while the window whose marks are
//!   being counted still ends at the highest data sent (Linux's `snd_nxt` is that too).
//! - ECE ACKs never grow cwnd (the sender's RFC 3168 §6.1.2 rule, kept for every variant);
//!   Linux grows nothing during its CWR state either.
//! - cwnd·(1 − α/2) is rounded down to a whole byte.

use super::{AckInfo, CcState, Congestion, CongestionControl, EcnAck, Reno};
use crate::packet::Seq;

/// The default estimation gain g = 1/16 (RFC 8257 §4.2: 1/16 suits typical data centres;
/// Linux `dctcp_shift_g` = 4).
pub const G_DEFAULT: f64 = 1.0 / 16.0;

/// RFC 8257 DCTCP congestion control.
#[derive(Clone, Debug, PartialEq)]
pub struct Dctcp {
    /// g, the weight of the newest window's marked fraction.
    g: f64,
    /// DCTCP.Alpha, the estimated fraction of marked bytes.
    alpha: f64,
    /// DCTCP.WindowEnd.
    window_end: Seq,
    /// DCTCP.BytesAcked in the current observation window.
    bytes_acked: u64,
    /// DCTCP.BytesMarked in the current observation window.
    bytes_marked: u64,
}

impl Dctcp {
    /// A DCTCP controller with gain `g` (0 < g <= 1), α = 1 (RFC 8257 §3.3).
    pub fn new(g: f64) -> Dctcp {
        debug_assert!(g > 0.0 && g <= 1.0, "DCTCP g out of (0, 1]: {g}");
        Dctcp {
            g,
            alpha: 1.0,
            window_end: Seq(0),
            bytes_acked: 0,
            bytes_marked: 0,
        }
    }

    /// DCTCP.Alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// DCTCP.WindowEnd: the observation window ends with the first ACK beyond it.
    pub fn window_end(&self) -> Seq {
        self.window_end
    }

    /// (BytesAcked, BytesMarked) of the observation window in progress.
    pub fn counters(&self) -> (u64, u64) {
        (self.bytes_acked, self.bytes_marked)
    }
}

impl super::Controller for Dctcp {
    fn build(cfg: &crate::transport::tcp::TcpConfig) -> super::StatefulCc {
        super::StatefulCc::Dctcp(Dctcp::new(cfg.dctcp_g))
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        Reno.on_ack(st, ack);
    }

    fn on_ecn_ack(&mut self, ack: &EcnAck) {
        // RFC 8257 §3.3 steps 1-3.
        self.bytes_acked += ack.acked as u64;
        if ack.ece {
            self.bytes_marked += ack.acked as u64;
        }
        // Step 4: the observation window ends with the first ACK beyond WindowEnd.
        if ack.ack <= self.window_end {
            return;
        }
        // Steps 5-8.
        let m = self.bytes_marked as f64 / self.bytes_acked as f64;
        self.alpha = self.alpha * (1.0 - self.g) + self.g * m;
        self.window_end = ack.snd_nxt;
        self.bytes_acked = 0;
        self.bytes_marked = 0;
    }

    fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
        match cause {
            // RFC 8257 §3.4: cwnd = cwnd·(1 − α/2); ssthresh follows (RFC 3168 §6.1.2).
            Congestion::Ecn => {
                let cut = (st.cwnd as f64 * (1.0 - self.alpha / 2.0)).floor() as u32;
                st.cwnd = cut.max(2 * st.mss);
                st.ssthresh = st.cwnd;
            }
            // RFC 8257 §3.5: loss as conventional TCP.
            Congestion::Loss | Congestion::Timeout | Congestion::RecoveryTimeout => {
                Reno.on_congestion(st, cause)
            }
        }
    }

    fn ssthresh_after(&self, st: &CcState) -> u32 {
        Reno.ssthresh_after(st)
    }

    fn name(&self) -> &'static str {
        "dctcp"
    }
}

#[cfg(test)]
mod tests {
    use super::super::Phase;
    use super::*;

    const MSS: u32 = 1000;

    fn st(cwnd: u32) -> CcState {
        CcState {
            cwnd,
            ssthresh: 1 << 30,
            bytes_in_flight: cwnd,
            mss: MSS,
            phase: Phase::Open,
        }
    }

    /// An ACK of one segment ending at `end` (exclusive), highest sent `snd_nxt`.
    fn seg_ack(end: u32, ece: bool, snd_nxt: u32) -> EcnAck {
        EcnAck {
            acked: MSS,
            ece,
            ack: Seq(end),
            snd_nxt: Seq(snd_nxt),
        }
    }

    /// One observation window of `n` one-segment ACKs starting after `from`, the first
    /// `marked` of them with ECE; every ACK reports `snd_nxt`.
    fn window(c: &mut Dctcp, from: u32, n: u32, marked: u32, snd_nxt: u32) -> u32 {
        let mut end = from;
        for i in 0..n {
            end += MSS;
            c.on_ecn_ack(&seg_ack(end, i < marked, snd_nxt));
        }
        end
    }

    // RFC 8257 §3.3: α starts at 1; the first ACK beyond WindowEnd (0 at start) closes the
    // first window: M = 0 gives α = 1·(1 − 1/16) = 15/16, WindowEnd = SND.NXT.
    #[test]
    fn first_ack_closes_the_initial_window() {
        let mut c = Dctcp::new(G_DEFAULT);
        assert_eq!(c.alpha(), 1.0);
        c.on_ecn_ack(&seg_ack(1001, false, 10_001));
        assert_eq!(c.alpha(), 15.0 / 16.0);
        assert_eq!(c.window_end(), Seq(10_001));
        assert_eq!(c.counters(), (0, 0));
    }

    // RFC 8257 §3.3 steps 1-8: the first ACK closes window 1 (M = 0, α = 15/16) and sets
    // WindowEnd = SND.NXT = 10 001; the nine ACKs up to it only count (5 of them ECE); the
    // ACK of 11 001 passes it: M = 5000/10 000 = 1/2 and α = 15/16·15/16 + 1/16·1/2 = 233/256.
    // A following window with every byte marked: α = 233/256·15/16 + 1/16.
    #[test]
    fn alpha_after_a_window_with_half_its_bytes_marked() {
        let mut c = Dctcp::new(G_DEFAULT);
        c.on_ecn_ack(&seg_ack(1001, false, 10_001));
        assert_eq!(c.alpha(), 15.0 / 16.0);
        let end = window(&mut c, 1001, 9, 5, 20_001);
        assert_eq!(end, 10_001);
        assert_eq!(c.counters(), (9000, 5000));
        assert_eq!(
            c.alpha(),
            15.0 / 16.0,
            "alpha changes only when the window ends"
        );
        c.on_ecn_ack(&seg_ack(11_001, false, 20_001));
        assert_eq!(c.alpha(), 233.0 / 256.0);
        assert_eq!(c.window_end(), Seq(20_001));
        assert_eq!(c.counters(), (0, 0));
        let end = window(&mut c, 11_001, 10, 10, 30_001);
        assert_eq!(end, 21_001);
        assert_eq!(c.alpha(), 233.0 / 256.0 * 15.0 / 16.0 + 1.0 / 16.0);
        assert_eq!(c.window_end(), Seq(30_001));
    }

    // RFC 8257 §3.3: with g = 1/2, a first ACK with ECE keeps α = 1 (M = 1); the next
    // window of 16 segments with 15 marked gives α = 1/2 + 1/2·15/16 = 31/32.
    // §3.4: cwnd = cwnd·(1 − α/2), ssthresh = cwnd: α = 1 halves, α = 31/32 takes 64 000 to
    // 64 000·33/64 = 33 000.
    #[test]
    fn ecn_cut_is_proportional_to_alpha() {
        let mut c = Dctcp::new(G_DEFAULT);
        let mut s = st(64_000);
        c.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.cwnd, s.ssthresh), (32_000, 32_000));

        let mut c = Dctcp::new(0.5);
        c.on_ecn_ack(&seg_ack(1001, true, 16_001));
        assert_eq!(c.alpha(), 1.0);
        let end = window(&mut c, 1001, 16, 15, 40_001);
        assert_eq!(end, 17_001);
        assert_eq!(c.alpha(), 31.0 / 32.0);
        let mut s = st(64_000);
        c.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.cwnd, s.ssthresh), (33_000, 33_000));
    }

    // RFC 8257 §3.4 with a small α: g = 15/16 and an unmarked first window give α = 1/16;
    // cwnd 10 000 → 10 000·(1 − 1/32) = 9687.5, rounded down. Never below 2 SMSS.
    #[test]
    fn small_alpha_cuts_little_and_the_floor_is_two_segments() {
        let mut c = Dctcp::new(15.0 / 16.0);
        c.on_ecn_ack(&seg_ack(1001, false, 1001));
        assert_eq!(c.alpha(), 1.0 / 16.0);
        let mut s = st(10_000);
        c.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.cwnd, s.ssthresh), (9687, 9687));
        let mut c = Dctcp::new(G_DEFAULT);
        let mut s = st(3000);
        c.on_congestion(&mut s, Congestion::Ecn);
        assert_eq!((s.cwnd, s.ssthresh), (2000, 2000));
    }

    // RFC 8257 §3.5 (loss as RFC 5681: ssthresh = FlightSize/2) and §3.4 (RFC 5681 growth).
    #[test]
    fn loss_timeout_and_growth_are_reno() {
        let mut c = Dctcp::new(G_DEFAULT);
        let mut s = st(20_000);
        c.on_congestion(&mut s, Congestion::Loss);
        assert_eq!((s.cwnd, s.ssthresh), (20_000, 10_000));
        c.on_congestion(&mut s, Congestion::Timeout);
        assert_eq!((s.cwnd, s.ssthresh), (1000, 10_000));
        let info = AckInfo {
            acked: MSS,
            now: packetsim_kernel::Time::ZERO,
            srtt: None,
        };
        c.on_ack(&mut s, &info);
        assert_eq!(s.cwnd, 2000, "slow start");
        s.cwnd = 10_000;
        c.on_ack(&mut s, &info);
        assert_eq!(s.cwnd, 10_100, "congestion avoidance");
    }
}
