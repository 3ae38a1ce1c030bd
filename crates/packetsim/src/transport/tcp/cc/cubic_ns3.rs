//! CUBIC as ns-3.37's `TcpCubic` computes it (`src/internet/model/tcp-cubic.cc`, after Linux
//! 3.14's `tcp_cubic.c`), chosen by `tcp.cubic_model = "ns3"` with `variant = "cubic"`; the
//! default is RFC 9438 ([`super::Cubic`]). It exists so that a study can reproduce ns-3's
//! CUBIC mechanism for mechanism; where the two differ, see `cubic.rs`'s module comment and
//! bench/validate/ns3/results.md.
//!
//! The rules, each named after the ns-3 function that holds it:
//! - `IncreaseWindow`, slow start (cwnd < ssthresh): cwnd += segmentsAcked·SMSS (every
//!   segment the ACK covers, not RFC 5681's min(N, SMSS)); the same ACK does no congestion
//!   avoidance, even when it carries cwnd past ssthresh.
//! - `IncreaseWindow`, congestion avoidance: a counter of ACKed segments (`m_cWndCnt`) grows
//!   by segmentsAcked; when it reaches `cnt` (from `Update`) cwnd grows by one SMSS and the
//!   counter drops by `cnt` — at most one segment per ACK. The counter is never reset.
//! - `Update`, all in whole segments (segCwnd = ⌊cwnd/SMSS⌋): the first call after a
//!   congestion event starts the epoch: K = ∛((W_last_max − segCwnd)/C) and origin =
//!   W_last_max, or K = 0 and origin = segCwnd when W_last_max ≤ segCwnd. With t = now +
//!   delayMin − epoch start, the target is origin ± ⌊C·|t − K|³⌋ (truncated to whole
//!   segments), cnt = ⌊segCwnd/(target − segCwnd)⌋ when the target is above segCwnd, else
//!   100·segCwnd; at most 20 (`CntClamp`) while W_last_max = 0 (before the first loss and
//!   after a timeout); at least 2. No Reno-friendly region (RFC 9438 §4.3).
//! - `PktsAcked`: delayMin = the smallest smoothed RTT seen (`m_lastRtt` is the estimator's
//!   SRTT), samples ignored for `CubicDelta` = 10 ms after an epoch starts.
//! - `GetSsThresh` (loss, ECN echo, timeout): fast convergence compares whole segments:
//!   W_last_max = ⌊segCwnd·(1 + β)/2⌋ when segCwnd < W_last_max, else segCwnd; the epoch
//!   ends; ssthresh = max(⌊segCwnd·β⌋, 2)·SMSS, from cwnd, not FlightSize.
//! - `CongestionStateSet(CA_LOSS)` → `CubicReset` (a timeout): W_last_max = 0, delayMin
//!   forgotten.
//! - `TcpSocketBase::ProcessAck`: the full ACK that ends fast recovery sets cwnd = ssthresh,
//!   then calls `IncreaseWindow` with every segment that ACK covers (the sender calls
//!   [`CongestionControl::on_recovery_exit_ack`]).
//!
//! Decisions (where packetsim's sender differs from ns-3's socket, or ns-3 is undefined):
//! - segmentsAcked counts whole segments of the bytes ACKed with the remainder carried, as
//!   `ProcessAck`'s `m_bytesAckedNotProcessed`, but only over the ACKs this controller sees.
//! - `PktsAcked` runs on the ACKs that reach `on_ack` and on the recovery's full ACK (ns-3
//!   also runs it on duplicate and partial ACKs); delayMin is a minimum of SRTT values, which
//!   the first round trips set, so this rarely matters. No SRTT yet: no sample (ns-3 would
//!   take its initial 0).
//! - On an ECN echo cwnd = ssthresh at once (ns-3 reduces through its recovery algorithm).
//! - `rto_ssthresh = "recovery"` (`Congestion::RecoveryTimeout`): `CubicReset` and cwnd = 1
//!   SMSS, ssthresh kept.
//! - HyStart is not modelled (ns-3's default has it on; the validation runs turn it off).

use super::{AckInfo, CcState, Congestion, CongestionControl};
use packetsim_kernel::{Dur, Time};

/// β (`TcpCubic::Beta`).
const BETA: f64 = 0.7;
/// C, segments/s³ (`TcpCubic::C`).
const C: f64 = 0.4;
/// `TcpCubic::CntClamp`: the largest cnt while no loss has set W_last_max.
const CNT_CLAMP: u32 = 20;
/// `TcpCubic::CubicDelta`: RTT samples ignored this long after an epoch starts.
const CUBIC_DELTA: Dur = Dur::from_millis(10);
/// Upper bound on cwnd, as Reno's.
const CWND_CAP: u32 = 1 << 30;

/// ns-3.37 `TcpCubic` (fast convergence on, HyStart off).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CubicNs3 {
    /// `m_cWndCnt`: segments ACKed toward the next one-segment increase.
    cwnd_cnt: u32,
    /// `m_lastMaxCwnd`, segments (0: none).
    last_max: u32,
    /// `m_bicOriginPoint`, segments.
    origin: u32,
    /// `m_bicK`, seconds.
    k: f64,
    /// `m_delayMin` (None: `Time::Min()`, no sample).
    delay_min: Option<Dur>,
    /// `m_epochStart` (None: no epoch).
    epoch_start: Option<Time>,
    /// `m_bytesAckedNotProcessed`: bytes ACKed short of a whole segment.
    bytes_pending: u32,
}

impl CubicNs3 {
    /// W_last_max, whole segments (0 before the first loss and after a timeout).
    pub fn w_max(&self) -> u32 {
        self.last_max
    }

    /// K of the current epoch, seconds (None outside an epoch).
    pub fn k(&self) -> Option<f64> {
        self.epoch_start.map(|_| self.k)
    }

    /// delayMin, the smallest SRTT sampled (None before the first, and after a timeout).
    pub fn delay_min(&self) -> Option<Dur> {
        self.delay_min
    }

    /// Whole segments newly ACKed, the remainder carried (`ProcessAck`).
    fn segments(&mut self, acked: u32, mss: u32) -> u32 {
        let mut segs = acked / mss;
        self.bytes_pending += acked % mss;
        if self.bytes_pending >= mss {
            segs += 1;
            self.bytes_pending -= mss;
        }
        segs
    }

    /// `TcpCubic::PktsAcked`.
    fn pkts_acked(&mut self, now: Time, srtt: Option<Dur>) {
        if let Some(e) = self.epoch_start {
            if now.saturating_since(e) < CUBIC_DELTA {
                return;
            }
        }
        if let Some(r) = srtt {
            if self.delay_min.is_none_or(|d| d > r) {
                self.delay_min = Some(r);
            }
        }
    }

    /// `TcpCubic::IncreaseWindow`.
    fn increase_window(&mut self, st: &mut CcState, now: Time, mut segs: u32) {
        if st.cwnd < st.ssthresh {
            st.cwnd = st
                .cwnd
                .saturating_add(segs.saturating_mul(st.mss))
                .min(CWND_CAP);
            segs = 0;
        }
        if st.cwnd >= st.ssthresh && segs > 0 {
            self.cwnd_cnt = self.cwnd_cnt.saturating_add(segs);
            let cnt = self.update(st, now);
            if self.cwnd_cnt >= cnt {
                st.cwnd = st.cwnd.saturating_add(st.mss).min(CWND_CAP);
                self.cwnd_cnt -= cnt;
            }
        }
    }

    /// `TcpCubic::Update`: the number of segments to ACK per one-segment increase.
    fn update(&mut self, st: &CcState, now: Time) -> u32 {
        let seg = st.cwnd / st.mss;
        let start = *self.epoch_start.get_or_insert_with(|| {
            if self.last_max <= seg {
                self.k = 0.0;
                self.origin = seg;
            } else {
                self.k = ((self.last_max - seg) as f64 / C).cbrt();
                self.origin = self.last_max;
            }
            now
        });
        let delay = self.delay_min.map_or(0, |d| d.as_nanos());
        let t = (now.as_nanos() + delay).saturating_sub(start.as_nanos()) as f64 / 1e9;
        let offs = (t - self.k).abs();
        // `delta = m_c * std::pow(offs, 3)` stored in a uint32: whole segments.
        let delta = (C * offs * offs * offs) as u32;
        let target = if t < self.k {
            self.origin.wrapping_sub(delta)
        } else {
            self.origin.saturating_add(delta)
        };
        let mut cnt = if target > seg {
            seg / (target - seg)
        } else {
            seg.saturating_mul(100)
        };
        if self.last_max == 0 && cnt > CNT_CLAMP {
            cnt = CNT_CLAMP;
        }
        cnt.max(2)
    }

    /// `TcpCubic::GetSsThresh`: W_last_max (fast convergence) and the new ssthresh.
    fn get_ssthresh(&mut self, st: &CcState) -> u32 {
        let seg = st.cwnd / st.mss;
        self.last_max = if seg < self.last_max {
            (seg as f64 * (1.0 + BETA) / 2.0) as u32
        } else {
            seg
        };
        self.epoch_start = None;
        ns3_ssthresh(st)
    }

    /// `TcpCubic::CubicReset` (on entering CA_LOSS).
    fn reset(&mut self) {
        self.last_max = 0;
        self.origin = 0;
        self.k = 0.0;
        self.delay_min = None;
    }
}

/// `TcpCubic::GetSsThresh`'s value: max(⌊⌊cwnd/SMSS⌋·β⌋, 2) segments.
fn ns3_ssthresh(st: &CcState) -> u32 {
    let seg = st.cwnd / st.mss;
    ((seg as f64 * BETA) as u32).max(2).saturating_mul(st.mss)
}

impl CongestionControl for CubicNs3 {
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        self.pkts_acked(ack.now, ack.srtt);
        let segs = self.segments(ack.acked, st.mss);
        self.increase_window(st, ack.now, segs);
    }

    fn on_recovery_exit_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        // `ProcessAck` on the ACK that leaves CA_RECOVERY: segmentsAcked is recomputed from
        // the bytes this ACK covers (no carried remainder).
        self.pkts_acked(ack.now, ack.srtt);
        self.increase_window(st, ack.now, ack.acked / st.mss);
    }

    fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
        match cause {
            Congestion::Loss => st.ssthresh = self.get_ssthresh(st),
            Congestion::Ecn => {
                st.ssthresh = self.get_ssthresh(st);
                st.cwnd = st.ssthresh.min(st.cwnd).max(st.mss);
            }
            Congestion::Timeout => {
                // `ReTxTimeout`: GetSsThresh, then CongestionStateSet(CA_LOSS), cwnd = 1 SMSS.
                st.ssthresh = self.get_ssthresh(st);
                self.reset();
                st.cwnd = st.mss;
            }
            Congestion::RecoveryTimeout => {
                self.epoch_start = None;
                self.reset();
                st.cwnd = st.mss;
            }
        }
    }

    fn ssthresh_after(&self, st: &CcState) -> u32 {
        ns3_ssthresh(st)
    }

    fn name(&self) -> &'static str {
        "cubic"
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cubic, Phase};
    use super::*;

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

    /// A loss at cwnd = `w` bytes, then recovery leaving cwnd = ssthresh.
    fn after_loss(c: &mut CubicNs3, w: u32) -> CcState {
        let mut s = st(w, 1 << 30);
        c.on_congestion(&mut s, Congestion::Loss);
        s.cwnd = s.ssthresh;
        s
    }

    /// `n` ACKs of one segment each at `at_ms`; cwnd after each.
    fn acks(c: &mut CubicNs3, s: &mut CcState, at_ms: u64, srtt_ms: u64, n: u32) -> Vec<u32> {
        (0..n)
            .map(|_| {
                c.on_ack(s, &ack(at_ms, MSS, srtt_ms));
                s.cwnd
            })
            .collect()
    }

    // `TcpCubic::GetSsThresh`: fast convergence compares whole segments (segCwnd <
    // m_lastMaxCwnd); a second loss at the same whole-segment window (467.1 after 467.5
    // segments) keeps W_last_max = 467, where RFC 9438 §4.7 on fractional windows converges
    // (467.1·0.85). One segment lower, 466: ⌊466·1.7/2⌋ = ⌊396.1⌋ = 396. ssthresh =
    // ⌊467·0.7⌋ = ⌊326.9⌋ = 326 segments each time.
    #[test]
    fn fast_convergence_compares_whole_segments() {
        let mut c = CubicNs3::default();
        let mut rfc = Cubic::default();
        for (cwnd, w_max) in [(467_500, 467), (467_100, 467), (466_900, 396)] {
            let mut s = st(cwnd, 1 << 30);
            c.on_congestion(&mut s, Congestion::Loss);
            assert_eq!((c.w_max(), s.ssthresh), (w_max, 326_000), "cwnd {cwnd}");
        }
        let mut s = st(467_500, 1 << 30);
        rfc.on_congestion(&mut s, Congestion::Loss);
        let mut s = st(467_100, 1 << 30);
        rfc.on_congestion(&mut s, Congestion::Loss);
        assert!((rfc.w_max().unwrap() - 467.1 * 0.85).abs() < 1e-9);
    }

    // `TcpCubic::GetSsThresh`: ssthresh = max(⌊segCwnd·β⌋, 2)·SMSS from cwnd, whatever the
    // flight (RFC 9438 §4.6 takes flight_size·β).
    #[test]
    fn ssthresh_is_seven_tenths_of_cwnd_in_whole_segments() {
        let mut c = CubicNs3::default();
        let mut s = st(100_700, 1 << 30);
        s.bytes_in_flight = 50_000;
        c.on_congestion(&mut s, Congestion::Loss);
        assert_eq!(s.ssthresh, 70_000);
        let mut s = st(2_500, 1 << 30);
        c.on_congestion(&mut s, Congestion::Loss);
        assert_eq!(s.ssthresh, 2_000, "⌊2·0.7⌋ = 1, at least 2 segments");
    }

    // `TcpCubic::Update` and `IncreaseWindow`: W_last_max = 10, cwnd = ssthresh = 7 segments,
    // SRTT 100 ms. The first ACK (t = 1 s) starts the epoch: K = ∛(3/0.4) = 1.957 s; t = 0 +
    // delayMin = 0.1 s, offs = 1.857, ⌊0.4·offs³⌋ = ⌊2.563⌋ = 2, target = 10 − 2 = 8, cnt =
    // ⌊7/(8 − 7)⌋ = 7: the seventh ACK adds one segment. At cwnd = 8 = target: cnt =
    // 100·8, no growth.
    #[test]
    fn cnt_counts_acks_per_segment_toward_the_whole_segment_target() {
        let mut c = CubicNs3::default();
        let mut s = after_loss(&mut c, 10_000);
        assert_eq!(s.cwnd, 7_000);
        let got = acks(&mut c, &mut s, 1000, 100, 7);
        assert_eq!(got, [7_000, 7_000, 7_000, 7_000, 7_000, 7_000, 8_000]);
        assert!((c.k().unwrap() - 7.5f64.cbrt()).abs() < 1e-12);
        let got = acks(&mut c, &mut s, 1000, 100, 100);
        assert!(got.iter().all(|&w| w == 8_000));
    }

    // `TcpCubic::Update`: the target is W_cubic at t + delayMin. The same epoch with SRTT 500
    // ms: t = 0.5 s, offs = 1.457, ⌊0.4·offs³⌋ = ⌊1.238⌋ = 1, target 9, cnt = ⌊7/2⌋ = 3; the
    // third ACK adds a segment, then at 8 segments cnt = ⌊8/(9 − 8)⌋ = 8 ACKs.
    #[test]
    fn target_looks_delay_min_ahead() {
        let mut c = CubicNs3::default();
        let mut s = after_loss(&mut c, 10_000);
        let got = acks(&mut c, &mut s, 1000, 500, 11);
        let k = 1_000;
        assert_eq!(
            got,
            [7, 7, 8, 8, 8, 8, 8, 8, 8, 8, 9].map(|w| w * k),
            "3 ACKs at 7 segments, 8 at 8"
        );
    }

    // `TcpCubic::PktsAcked`: samples within `CubicDelta` (10 ms) of the epoch's start are
    // ignored. The epoch starts at 1.000 s with delayMin = 500 ms (cnt 3, above); SRTT 100
    // ms at 1.005 and 1.008 s is ignored, so cnt stays 3 and the third ACK adds a segment
    // (with delayMin = 100 ms cnt would be 7). At 1.020 s the sample counts: delayMin = 100
    // ms, t = 0.12 s, target ⌊…⌋ = 10 − 2 = 8 = segCwnd: cnt = 800.
    #[test]
    fn rtt_samples_ignored_for_ten_ms_after_the_epoch_starts() {
        let mut c = CubicNs3::default();
        let mut s = after_loss(&mut c, 10_000);
        c.on_ack(&mut s, &ack(1000, MSS, 500));
        c.on_ack(&mut s, &ack(1005, MSS, 100));
        assert_eq!(c.delay_min(), Some(Dur::from_millis(500)));
        c.on_ack(&mut s, &ack(1008, MSS, 100));
        assert_eq!(s.cwnd, 8_000);
        c.on_ack(&mut s, &ack(1020, MSS, 100));
        assert_eq!(c.delay_min(), Some(Dur::from_millis(100)));
        let got = acks(&mut c, &mut s, 1020, 100, 50);
        assert!(got.iter().all(|&w| w == 8_000));
    }

    // No Reno-friendly region (RFC 9438 §4.3 is absent from `TcpCubic::Update`): W_last_max =
    // 11, the epoch from 7 segments (K = ∛10 = 2.154 s; first ACK: target 8, cnt 7, counter
    // 1). At t = 3.1 s, cwnd = 11 = origin: ⌊0.4·0.946³⌋ = 0, target = 11, cnt = 1100: one
    // segment per 100 windows, where RFC 9438's W_est (α_cubic per RTT for ~70 RTTs) is far
    // above. The 1099th ACK (counter 1 + 1099 = 1100) adds it.
    #[test]
    fn no_reno_friendly_growth_at_the_plateau() {
        let mut c = CubicNs3::default();
        let mut s = after_loss(&mut c, 11_000);
        assert_eq!(s.cwnd, 7_000);
        c.on_ack(&mut s, &ack(1000, MSS, 100));
        assert_eq!(s.cwnd, 7_000);
        s.cwnd = 11_000;
        let got = acks(&mut c, &mut s, 4000, 100, 1099);
        assert!(got[..1098].iter().all(|&w| w == 11_000));
        assert_eq!(got[1098], 12_000);
    }

    // `TcpCubic::Update`: cnt is clamped to `CntClamp` = 20 while m_lastMaxCwnd = 0 (no loss
    // yet): at cwnd = ssthresh = 10 segments the epoch has K = 0, origin 10, target 10, cnt
    // 1000 → 20.
    #[test]
    fn cnt_clamped_to_twenty_before_the_first_loss() {
        let mut c = CubicNs3::default();
        let mut s = st(10_000, 10_000);
        let got = acks(&mut c, &mut s, 1000, 100, 20);
        assert!(got[..19].iter().all(|&w| w == 10_000));
        assert_eq!(got[19], 11_000);
        assert_eq!(c.k(), Some(0.0));
    }

    // `TcpCubic::IncreaseWindow` in slow start: cwnd += segmentsAcked·SMSS (RFC 5681 §3.1:
    // min(N, SMSS)), past ssthresh, and no congestion avoidance on that ACK.
    #[test]
    fn slow_start_adds_every_segment_acked() {
        let mut c = CubicNs3::default();
        let mut s = st(4_000, 10_000);
        c.on_ack(&mut s, &ack(100, 3 * MSS, 50));
        assert_eq!(s.cwnd, 7_000);
        c.on_ack(&mut s, &ack(100, 4 * MSS, 50));
        assert_eq!(s.cwnd, 11_000);
        assert_eq!(c.k(), None, "no epoch yet");
        // Half segments: the remainder is carried (`m_bytesAckedNotProcessed`).
        let mut s = st(4_000, 10_000);
        c.on_ack(&mut s, &ack(100, 500, 50));
        assert_eq!(s.cwnd, 4_000);
        c.on_ack(&mut s, &ack(100, 500, 50));
        assert_eq!(s.cwnd, 5_000);
    }

    // `TcpSocketBase::ReTxTimeout`: GetSsThresh (fast convergence: 30 < 50 → ⌊25.5⌋ = 25;
    // ssthresh 21 segments), then `CubicReset` (CA_LOSS): W_last_max = 0, delayMin
    // forgotten; cwnd = 1 SMSS. The next epoch has cnt clamped to 20 again.
    #[test]
    fn timeout_resets_w_max_and_delay_min() {
        let mut c = CubicNs3::default();
        after_loss(&mut c, 50_000);
        // One ACK in congestion avoidance: delayMin = 100 ms, the counter at 1 (cnt 17).
        let mut s = st(35_000, 35_000);
        acks(&mut c, &mut s, 1000, 100, 1);
        assert_eq!(s.cwnd, 35_000);
        assert_eq!(c.delay_min(), Some(Dur::from_millis(100)));
        let mut s = st(30_000, 1 << 30);
        c.on_congestion(&mut s, Congestion::Timeout);
        assert_eq!((s.cwnd, s.ssthresh), (1_000, 21_000));
        assert_eq!((c.w_max(), c.delay_min(), c.k()), (0, None, None));
        s.cwnd = 21_000;
        let got = acks(&mut c, &mut s, 5000, 200, 20);
        assert_eq!(c.delay_min(), Some(Dur::from_millis(200)));
        // The counter kept 1 from the ACK at 1 s (`m_cWndCnt` is never reset).
        assert!(got[..18].iter().all(|&w| w == 21_000));
        assert_eq!(got[18], 22_000);
    }

    // `TcpSocketBase::ProcessAck` on the ACK that ends recovery: cwnd = ssthresh, then
    // `IncreaseWindow` with all 9 segments it covers: the counter gets 9 ≥ cnt 7 (the epoch
    // of `cnt_counts_acks…`), one segment is added (at most one per ACK) and 2 carried; the
    // next ACK, at 8 segments = target, adds nothing. RFC 9438's controller ignores the hook.
    #[test]
    fn recovery_exit_ack_counts_every_segment_it_covers() {
        let mut c = CubicNs3::default();
        let mut s = after_loss(&mut c, 10_000);
        c.on_recovery_exit_ack(&mut s, &ack(1000, 9 * MSS, 100));
        assert_eq!(s.cwnd, 8_000);
        let got = acks(&mut c, &mut s, 1000, 100, 1);
        assert_eq!(got, [8_000]);
        let mut rfc = Cubic::default();
        let mut s = st(10_000, 1 << 30);
        rfc.on_congestion(&mut s, Congestion::Loss);
        s.cwnd = s.ssthresh;
        rfc.on_recovery_exit_ack(&mut s, &ack(1000, 9 * MSS, 100));
        assert_eq!(s.cwnd, 7_000);
    }
}
