//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
//! Internet", IEEE JSAC 13(8), 1995), with ns-2's `tcp/tcp-vegas.cc` (`VegasTcpAgent::recv`)
//! as the reference model for the details the paper leaves open.
//!
//! Vegas compares the rate the window should give over an empty path with the rate it does
//! give, once per round trip, and keeps the difference — the data it has queued in the
//! network — between α and β segments (§3.2).
//!
//! What happens on an ACK of new data outside loss recovery (`on_ack`), in ns-2's order:
//! 1. **Once per RTT** (the first ACK of a segment sent after the last decision; ns-2
//!    `tcph->seqno() >= v_begseq_`): RTT = the mean of the per-segment samples taken since the
//!    last decision, or, with none, the time since the last decision. BaseRTT = min(BaseRTT,
//!    RTT), or RTT itself when at most one segment was sent in the round. With Expected =
//!    in-flight / BaseRTT and Actual = (segments sent in the round) / RTT, Diff = (Expected −
//!    Actual)·BaseRTT in segments, rounded as ns-2 (`int(diff + 0.5)`). Then:
//!    - congestion avoidance (§3.2): Diff > β: cwnd −= 1 segment (at least 2) and no growth
//!      this round; Diff < α: grow by 1/cwnd segment per ACK this round (about one segment
//!      per RTT); else hold;
//!    - slow start (§3.3, "modified slow start"): the window may grow only every other RTT
//!      (ns-2 toggles `v_inc_flag_` each round; the first round, ending with the first ACK,
//!      does not grow). In a growing round, Diff > γ ends slow start: ssthresh = 2 segments
//!      and cwnd −= cwnd/8 (at least 2 segments); else cwnd grows by one segment per ACK.
//!
//!    The next round starts with the next segment sent (its first byte = the highest byte
//!    sent so far).
//! 2. Slow-start growth stops once cwnd reaches ssthresh, even within a round.
//! 3. The window grows by this round's increment only while cwnd − in-flight ≤ 2 segments
//!    (ns-2: "unless we haven't been able to keep up with it").
//! 4. The ACK's own RTT sample (now − the send time of the newest segment it acknowledges)
//!    is added to the round's sum and lowers BaseRTT if smaller (ns-2 `v_sumRTT_`,
//!    `v_cntRTT_`, `v_baseRTT_`).
//!
//! Decisions:
//! - Diff counts the bytes in flight after the ACK (the paper's WindowSize, "the number of
//!   bytes in transit"). ns-2 counts `t_seqno_ − last_ack_`, one packet more than its packets
//!   in flight, so its Diff is one higher for the same state and it keeps about one segment
//!   less queued; packetsim follows the paper.
//! - Windows are bytes: one segment = SMSS bytes, and the congestion-avoidance increment
//!   1/cwnd segment per ACK is SMSS·SMSS/cwnd bytes (at least 1), cwnd taken at the decision.
//!   Growth is per ACK, not per segment acknowledged, as ns-2 (with delayed ACKs, slower).
//! - RTT samples are Vegas's own fine-grained send times (ns-2 `v_sendtime_`), kept per new
//!   segment. A retransmission makes every outstanding send time ambiguous and they are all
//!   forgotten (Karn; ns-2 takes a sample only from segments sent once, `transmits == 1`).
//! - Loss, timeout and ECN echo are RFC 5681's (as [`super::Reno`], as Linux `tcp_vegas`,
//!   which uses `tcp_reno_ssthresh`), with NewReno loss recovery (RFC 6582). The paper's
//!   fine-grained retransmission and its 1/4 window cut on a fast retransmit, and ns-2's
//!   `cwnd = 2` after a timeout, are loss-recovery behaviours not modelled here.
//! - Outside Open/Loss (during fast recovery) nothing is decided; samples are still taken
//!   when recovery ends, from the records of segments sent once.

use super::{AckInfo, CcState, Congestion, CongestionControl, Reno};
use packetsim_kernel::{Dur, Time};
use std::collections::VecDeque;

/// ns-2's (and the paper's) α: below this many segments queued, grow (`v_alpha_` = 1).
pub const ALPHA: i64 = 1;
/// ns-2's (and the paper's) β: above this many segments queued, shrink (`v_beta_` = 3).
pub const BETA: i64 = 3;
/// ns-2's γ: above this many segments queued, leave slow start (`v_gamma_` = 1).
pub const GAMMA: i64 = 1;

/// How much the window grows per ACK in the current round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Incr {
    /// No growth this round.
    Hold,
    /// Slow start: one segment per ACK.
    SlowStart,
    /// Congestion avoidance: this many bytes per ACK.
    Linear(u32),
}

/// A new data segment's send record: where it ends (bytes of new data sent, counting from
/// the first) and when it left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sent {
    end: u64,
    at: Time,
}

/// TCP Vegas congestion control.
#[derive(Clone, Debug, PartialEq)]
pub struct Vegas {
    /// α, β, γ in segments.
    alpha: i64,
    beta: i64,
    gamma: i64,
    /// Bytes of new data sent (the highest sequence sent, counted from the first data byte).
    sent: u64,
    /// Send records of segments sent once and not yet acknowledged, oldest first.
    records: VecDeque<Sent>,
    /// BaseRTT, the least RTT seen.
    base_rtt: Option<Dur>,
    /// Sum and count of the RTT samples since the last decision.
    sum_rtt: Dur,
    cnt_rtt: u32,
    /// The round ends with the first ACK beyond this (bytes, as `sent`).
    beg_seq: u64,
    /// When the round began (the first data segment's send time for the first round).
    beg_time: Option<Time>,
    /// Slow start grows in rounds where this is true (toggled each round).
    inc_flag: bool,
    /// This round's growth.
    incr: Incr,
    /// The last Diff computed (segments), for tests and metrics.
    last_diff: Option<i64>,
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas::new(ALPHA, BETA, GAMMA)
    }
}

impl Vegas {
    /// A Vegas controller with thresholds α ≤ β and γ, in segments.
    pub fn new(alpha: i64, beta: i64, gamma: i64) -> Vegas {
        debug_assert!(alpha <= beta, "Vegas alpha {alpha} above beta {beta}");
        Vegas {
            alpha,
            beta,
            gamma,
            sent: 0,
            records: VecDeque::new(),
            base_rtt: None,
            sum_rtt: Dur::ZERO,
            cnt_rtt: 0,
            beg_seq: 0,
            beg_time: None,
            inc_flag: true,
            incr: Incr::Hold,
            last_diff: None,
        }
    }

    /// BaseRTT, once measured.
    pub fn base_rtt(&self) -> Option<Dur> {
        self.base_rtt
    }

    /// The Diff of the last once-per-RTT decision, in segments (rounded as ns-2).
    pub fn last_diff(&self) -> Option<i64> {
        self.last_diff
    }

    /// A data segment of `len` bytes left at `now` (`new_data`: not a retransmission).
    pub fn on_send(&mut self, now: Time, len: u32, new_data: bool) {
        if !new_data {
            // Karn: no sample from anything outstanding now.
            self.records.clear();
            return;
        }
        if self.beg_time.is_none() {
            self.beg_time = Some(now);
        }
        self.sent += len as u64;
        self.records.push_back(Sent {
            end: self.sent,
            at: now,
        });
    }

    /// The once-per-RTT decision (module doc, step 1).
    fn decide(&mut self, st: &mut CcState, now: Time) {
        let Some(beg_time) = self.beg_time else {
            return;
        };
        let rtt = if self.cnt_rtt > 0 {
            Dur::from_nanos(self.sum_rtt.as_nanos() / self.cnt_rtt as u64)
        } else {
            now.saturating_since(beg_time)
        };
        self.sum_rtt = Dur::ZERO;
        self.cnt_rtt = 0;
        let mss = st.mss as f64;
        let rtt_len = (self.sent - self.beg_seq) as f64 / mss;
        if rtt > Dur::ZERO {
            let base = match self.base_rtt {
                Some(b) if rtt >= b && rtt_len > 1.0 => b,
                _ => rtt,
            };
            self.base_rtt = Some(base);
            let base_s = base.as_secs_f64();
            let expected = st.bytes_in_flight as f64 / mss / base_s;
            let actual = rtt_len / rtt.as_secs_f64();
            // ns-2: int((expect - actual) * baseRTT + 0.5), truncating toward zero.
            let diff = ((expected - actual) * base_s + 0.5) as i64;
            self.last_diff = Some(diff);
            let two = 2 * st.mss;
            if st.in_slow_start() {
                // §3.3: grow only every other RTT; leave slow start once Diff > γ.
                self.inc_flag = !self.inc_flag;
                self.incr = if !self.inc_flag {
                    Incr::Hold
                } else if diff > self.gamma {
                    st.ssthresh = two;
                    st.cwnd = (st.cwnd - st.cwnd / 8).max(two);
                    Incr::Hold
                } else {
                    Incr::SlowStart
                };
            } else if diff > self.beta {
                // §3.2: too much queued, one segment less.
                st.cwnd = st.cwnd.saturating_sub(st.mss).max(two);
                self.incr = Incr::Hold;
            } else if diff < self.alpha {
                // §3.2: too little queued, one segment more over the next RTT.
                let inc = (st.mss as u64 * st.mss as u64 / st.cwnd as u64).max(1) as u32;
                self.incr = Incr::Linear(inc);
            } else {
                self.incr = Incr::Hold;
            }
        }
        self.beg_seq = self.sent;
        self.beg_time = Some(now);
    }
}

impl super::Controller for Vegas {
    fn build(_cfg: &crate::transport::tcp::TcpConfig) -> super::StatefulCc {
        super::StatefulCc::Vegas(Vegas::default())
    }
}

impl CongestionControl for Vegas {
    fn on_send(&mut self, now: Time, _off: u64, len: u32, new_data: bool, _in_flight: u32) {
        Vegas::on_send(self, now, len, new_data);
    }
    fn on_ack(&mut self, st: &mut CcState, ack: &AckInfo) {
        let now = ack.now;
        let delivered = self.sent.saturating_sub(st.bytes_in_flight as u64);
        // The newest segment this ACK covers gives the sample (taken after the decision).
        let mut newest = None;
        while let Some(r) = self.records.front() {
            if r.end > delivered {
                break;
            }
            newest = self.records.pop_front();
        }
        // 1. Once per RTT: the ACK covers the first byte sent after the last decision.
        if delivered > self.beg_seq {
            self.decide(st, now);
        }
        // 2. Slow-start growth stops at ssthresh.
        if self.incr == Incr::SlowStart && !st.in_slow_start() {
            self.incr = Incr::Hold;
        }
        // 3. Grow, unless the sender has not kept up with the window.
        let inc = match self.incr {
            Incr::Hold => 0,
            Incr::SlowStart => st.mss,
            Incr::Linear(b) => b,
        };
        if inc > 0 && st.cwnd <= st.bytes_in_flight.saturating_add(2 * st.mss) {
            st.cwnd = st.cwnd.saturating_add(inc).min(1 << 30);
        }
        // 4. This ACK's sample.
        if let Some(r) = newest {
            let rtt = now.saturating_since(r.at);
            if rtt > Dur::ZERO {
                self.sum_rtt += rtt;
                self.cnt_rtt += 1;
                if self.base_rtt.is_none_or(|b| rtt < b) {
                    self.base_rtt = Some(rtt);
                }
            }
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, cause: Congestion) {
        Reno.on_congestion(st, cause);
    }

    fn ssthresh_after(&self, st: &CcState) -> u32 {
        Reno.ssthresh_after(st)
    }

    fn name(&self) -> &'static str {
        "vegas"
    }
}

#[cfg(test)]
mod tests {
    //! Scripted ACK/RTT sequences: every segment of a round is acknowledged at the same
    //! time, one ACK per segment, and after each ACK the script sends as the window allows
    //! (in-flight + SMSS ≤ cwnd), as the sender does.
    use super::super::Phase;
    use super::*;

    const MSS: u32 = 1000;

    struct Script {
        v: Vegas,
        st: CcState,
    }

    impl Script {
        /// cwnd and ssthresh in segments; sends the first window at t = 0.
        fn new(cwnd: u32, ssthresh: u32) -> Script {
            let mut s = Script {
                v: Vegas::default(),
                st: CcState {
                    cwnd: cwnd * MSS,
                    ssthresh: ssthresh * MSS,
                    bytes_in_flight: 0,
                    mss: MSS,
                    phase: Phase::Open,
                },
            };
            s.fill(Time::ZERO);
            s
        }

        fn fill(&mut self, now: Time) {
            while self.st.bytes_in_flight + MSS <= self.st.cwnd {
                self.v.on_send(now, MSS, true);
                self.st.bytes_in_flight += MSS;
            }
        }

        fn ack(&mut self, now: Time) {
            self.st.bytes_in_flight -= MSS;
            let info = AckInfo {
                acked: MSS,
                now,
                srtt: None,
            };
            self.v.on_ack(&mut self.st, &info);
            self.fill(now);
        }

        /// Every segment in flight is acknowledged at `ms` milliseconds.
        fn round(&mut self, ms: u64) {
            let n = self.st.bytes_in_flight / MSS;
            for _ in 0..n {
                self.ack(Time::from_millis(ms));
            }
        }
    }

    // Paper §3.2 (ns-2 `VegasTcpAgent::recv`, congestion avoidance): with the RTT at BaseRTT
    // Diff = 0 < α, so the window grows by 1/cwnd segment per ACK: one segment per RTT.
    #[test]
    fn avoidance_diff_below_alpha_grows_one_segment_per_rtt() {
        let mut s = Script::new(4, 2);
        s.round(100);
        // First decision: RTT 100 ms (since the first send), 4 sent, 3 in flight: Diff =
        // int(3 − 4 + 0.5) = 0; +250 B on each of the 4 ACKs.
        assert_eq!(s.v.base_rtt(), Some(Dur::from_millis(100)));
        assert_eq!(s.v.last_diff(), Some(0));
        assert_eq!(s.st.cwnd, 5000);
        // Second: 5 sent in the round, 4 in flight: Diff 0 again; +200 B on 5 ACKs.
        s.round(200);
        assert_eq!(s.v.last_diff(), Some(0));
        assert_eq!(s.st.cwnd, 6000);
        assert_eq!(s.st.ssthresh, 2000);
    }

    /// Congestion avoidance from 10 segments: a round at RTT 100 ms (cwnd 10000 → 11000, 11
    /// segments sent), a round whose segments take `rtt_ms` (cwnd → 11990: Diff 0 from the
    /// previous round's 100 ms samples, +90 B on 11 ACKs), then the first ACK of the next
    /// round, which decides with RTT = `rtt_ms`, 11 sent and 10 in flight.
    fn avoidance_after(rtt_ms: u64) -> Script {
        let mut s = Script::new(10, 2);
        s.round(100);
        assert_eq!(s.st.cwnd, 11_000);
        s.round(100 + rtt_ms);
        assert_eq!(s.st.cwnd, 11_990);
        s.ack(Time::from_millis(100 + 2 * rtt_ms));
        s
    }

    // Paper §3.2: Diff > β: one segment less, and no growth for the rest of the round.
    #[test]
    fn avoidance_diff_above_beta_shrinks_one_segment() {
        // Diff = 10 − 11·100/200 = 4.5, int(4.5 + 0.5) = 5 > 3.
        let mut s = avoidance_after(200);
        assert_eq!(s.v.last_diff(), Some(5));
        assert_eq!(s.st.cwnd, 10_990);
        s.round(500);
        assert_eq!(s.st.cwnd, 10_990);
    }

    // Paper §3.2: α ≤ Diff ≤ β: hold (β itself holds: ns-2 shrinks on `delta > v_beta_`).
    #[test]
    fn avoidance_diff_between_alpha_and_beta_holds() {
        // Diff = 10 − 11·100/150 = 2.67, int(3.17) = 3.
        let mut s = avoidance_after(150);
        assert_eq!(s.v.last_diff(), Some(3));
        assert_eq!(s.st.cwnd, 11_990);
        s.round(400);
        assert_eq!(s.st.cwnd, 11_990);
        // Diff = 10 − 11·100/125 = 1.2, int(1.7) = 1 = α: hold too.
        let s = avoidance_after(125);
        assert_eq!(s.v.last_diff(), Some(1));
        assert_eq!(s.st.cwnd, 11_990);
    }

    // Paper §3.2: Diff < α again after the RTT came back: growth by SMSS²/cwnd = 83 B.
    #[test]
    fn avoidance_diff_below_alpha_after_rounds_grows() {
        let s = avoidance_after(100);
        assert_eq!(s.v.last_diff(), Some(0));
        assert_eq!(s.st.cwnd, 11_990 + 83);
    }

    // Paper §3.3 (ns-2 `v_inc_flag_`): slow start doubles the window every other RTT, and
    // leaves when a growing round finds Diff > γ: ssthresh = 2 segments, cwnd −= cwnd/8.
    #[test]
    fn slow_start_doubles_every_other_rtt_then_exits_above_gamma() {
        let mut s = Script::new(2, 1000);
        let mut cwnds = vec![];
        // Five rounds at RTT 100 ms: Diff = 0 in each; the first round does not grow.
        for t in [100, 200, 300, 400, 500] {
            s.round(t);
            assert_eq!(s.v.last_diff(), Some(0));
            cwnds.push(s.st.cwnd / MSS);
        }
        assert_eq!(cwnds, [2, 4, 4, 8, 8]);
        assert_eq!(s.st.ssthresh, 1_000_000);
        // The RTT doubles. The next decision still sees the last round's 100 ms samples and
        // grows (16); the one after sees 200 ms, Diff = 15 − 16·100/200 = 7 > γ, but it is a
        // round without growth, so nothing changes; the next growing round exits.
        s.round(700);
        assert_eq!(s.st.cwnd, 16_000);
        s.round(900);
        assert_eq!(s.v.last_diff(), Some(7));
        assert_eq!((s.st.cwnd, s.st.ssthresh), (16_000, 1_000_000));
        s.round(1100);
        assert_eq!(s.v.last_diff(), Some(7));
        assert_eq!((s.st.cwnd, s.st.ssthresh), (14_000, 2000));
        // Now in congestion avoidance: 14 sent, 13 in flight, RTT 200 ms: Diff = 13 − 7 = 6
        // > β, one segment less.
        s.round(1300);
        assert_eq!(s.v.last_diff(), Some(6));
        assert_eq!(s.st.cwnd, 13_000);
    }

    // Karn (ns-2 takes samples only from segments sent once): a retransmission forgets
    // every outstanding send time, so the next decision falls back to the round's duration.
    #[test]
    fn retransmission_forgets_outstanding_send_times() {
        let mut s = Script::new(4, 2);
        s.v.on_send(Time::ZERO, MSS, false);
        s.round(100);
        assert_eq!(s.v.cnt_rtt, 0);
        // The first decision measured the time since the first send.
        assert_eq!(s.v.base_rtt(), Some(Dur::from_millis(100)));
    }

    #[test]
    fn loss_and_timeout_are_reno() {
        let mut s = Script::new(10, 1000);
        s.v.on_congestion(&mut s.st, Congestion::Timeout);
        assert_eq!((s.st.cwnd, s.st.ssthresh), (MSS, 5000));
        assert_eq!(s.v.name(), "vegas");
    }
}
