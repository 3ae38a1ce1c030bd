//! HyStart++ (RFC 9406), the `[tcp]` key `slow_start = "hystart_pp"`: leaves the initial slow
//! start when the RTT grows, through Conservative Slow Start (CSS), before a loss ends it.
//! Run by the sender for any controller on each ACK of new data while cwnd < ssthresh in the
//! open state; it tells the sender how that ACK grows the window ([`SsStep`]).
//!
//! RFC 9406 §4.2, constants of §4.3 (the RECOMMENDED values): rounds are delimited by
//! `window_end` (SND.NXT when a round starts; the round ends when the cumulative ACK reaches
//! it); each round keeps the minimum of its RTT samples; after at least N_RTT_SAMPLE = 8
//! samples in a round, slow start becomes CSS once currentRoundMinRTT >= lastRoundMinRTT +
//! clamp(lastRoundMinRTT / 8, 4 ms, 16 ms). In CSS the window grows by a quarter
//! (CSS_GROWTH_DIVISOR 4) of what slow start would give; if a round's minimum RTT falls below
//! the CSS baseline, slow start resumes; after CSS_ROUNDS = 5 rounds of CSS the sender enters
//! congestion avoidance (ssthresh = cwnd). A loss or ECN reduction ends HyStart++ (the
//! controller's own response sets ssthresh). Only the initial slow start uses it (§4.3 lets a
//! slow start after a timeout use it or not; Linux's HyStart runs only while
//! `tcp_in_initial_slowstart`, the behaviour kept here).

use crate::packet::Seq;
use packetsim_kernel::Dur;

/// RFC 9406 §4.3: RTT samples a round needs before its minimum is compared.
pub const N_RTT_SAMPLE: u32 = 8;
/// RFC 9406 §4.3: CSS grows the window by 1/4 of slow start's growth.
pub const CSS_GROWTH_DIVISOR: u32 = 4;
/// RFC 9406 §4.3: rounds of CSS before congestion avoidance.
pub const CSS_ROUNDS: u32 = 5;
/// RFC 9406 §4.3: the RTT-increase threshold's bounds, and its divisor of lastRoundMinRTT.
pub const MIN_RTT_THRESH: Dur = Dur::from_millis(4);
/// See [`MIN_RTT_THRESH`].
pub const MAX_RTT_THRESH: Dur = Dur::from_millis(16);
/// See [`MIN_RTT_THRESH`].
pub const MIN_RTT_DIVISOR: u64 = 8;

/// How one ACK grows the window in slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsStep {
    /// Standard slow start.
    SlowStart,
    /// Conservative Slow Start: 1/CSS_GROWTH_DIVISOR of slow start's growth.
    Css,
    /// Leave slow start now: ssthresh = cwnd (§4.2, CSS_ROUNDS done).
    Exit,
}

/// HyStart++ state.
#[derive(Clone, Debug, Default)]
pub struct HyStartPp {
    /// SND.NXT when the current round began; None before the first ACK.
    window_end: Option<Seq>,
    last_round_min: Option<Dur>,
    cur_round_min: Option<Dur>,
    samples: u32,
    /// In CSS: cssBaselineMinRtt and the rounds of CSS started so far.
    css: Option<(Dur, u32)>,
    /// HyStart++ has ended (loss, or congestion avoidance reached).
    done: bool,
}

impl HyStartPp {
    /// Whether it still runs (initial slow start not over).
    pub fn active(&self) -> bool {
        !self.done
    }

    /// A loss or ECN reduction, or slow start left by other means: HyStart++ is over.
    pub fn finish(&mut self) {
        self.done = true;
        self.css = None;
    }

    /// Whether the sender is in CSS.
    pub fn in_css(&self) -> bool {
        self.css.is_some()
    }

    /// An ACK of new data up to `ack` in slow start; `snd_nxt` is the next new sequence,
    /// `rtt` the RTT sample this ACK gave, if any.
    pub fn on_ack(&mut self, ack: Seq, snd_nxt: Seq, rtt: Option<Dur>) -> SsStep {
        if self.done {
            return SsStep::SlowStart;
        }
        // §4.2: a new round when the ACK reaches windowEnd.
        if self.window_end.is_none_or(|w| ack >= w) {
            self.window_end = Some(snd_nxt);
            self.last_round_min = self.cur_round_min.or(self.last_round_min);
            self.cur_round_min = None;
            self.samples = 0;
            if let Some((base, rounds)) = self.css {
                if rounds + 1 >= CSS_ROUNDS {
                    // §4.2: CSS_ROUNDS rounds of CSS: congestion avoidance.
                    self.finish();
                    return SsStep::Exit;
                }
                self.css = Some((base, rounds + 1));
            }
        }
        if let Some(r) = rtt {
            self.cur_round_min = Some(self.cur_round_min.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        let enough = self.samples >= N_RTT_SAMPLE;
        match (self.css, self.cur_round_min, self.last_round_min) {
            (None, Some(cur), Some(last)) if enough => {
                let thresh = Dur(last.0 / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if cur >= last + thresh {
                    // §4.2: the RTT grew: CSS from this ACK on.
                    self.css = Some((cur, 0));
                }
            }
            (Some((base, _)), Some(cur), _) if enough && cur < base => {
                // §4.2: the RTT fell below the CSS baseline: a spurious exit, back to slow
                // start.
                self.css = None;
            }
            _ => {}
        }
        if self.css.is_some() {
            SsStep::Css
        } else {
            SsStep::SlowStart
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(m: u64) -> Dur {
        Dur::from_millis(m)
    }

    /// Feeds one round of `n` ACKs (the first starts the round; the round's window ends at
    /// `end`), each with RTT `rtt`; returns the last step.
    fn round(h: &mut HyStartPp, start: u32, end: u32, n: u32, rtt: Dur) -> SsStep {
        let mut last = SsStep::SlowStart;
        for k in 0..n {
            last = h.on_ack(Seq(start + k), Seq(end), Some(rtt));
        }
        last
    }

    // RFC 9406 §4.2: the threshold is clamp(lastRoundMinRTT / 8, 4 ms, 16 ms). With 100 ms
    // rounds it is 12.5 ms: a round at 112 ms stays in slow start, one at 113 ms enters CSS
    // at its 8th sample (N_RTT_SAMPLE), not before.
    #[test]
    fn css_entered_at_eighth_sample_when_rtt_grows_by_threshold() {
        let mut h = HyStartPp::default();
        assert_eq!(round(&mut h, 100, 200, 10, ms(100)), SsStep::SlowStart);
        assert_eq!(round(&mut h, 200, 300, 10, ms(112)), SsStep::SlowStart);
        // lastRoundMinRTT is now 112 ms: threshold 14 ms.
        assert_eq!(round(&mut h, 300, 400, 7, ms(126)), SsStep::SlowStart);
        assert_eq!(h.on_ack(Seq(307), Seq(400), Some(ms(126))), SsStep::Css);
        assert!(h.in_css());
    }

    // RFC 9406 §4.2: thresholds clamped: 10 ms rounds give 4 ms (not 1.25), 200 ms rounds
    // 16 ms (not 25).
    #[test]
    fn threshold_clamped_to_4_and_16_ms() {
        let mut h = HyStartPp::default();
        round(&mut h, 100, 200, 8, ms(10));
        assert_eq!(round(&mut h, 200, 300, 8, ms(13)), SsStep::SlowStart);
        let mut h = HyStartPp::default();
        round(&mut h, 100, 200, 8, ms(10));
        assert_eq!(round(&mut h, 200, 300, 8, ms(14)), SsStep::Css);
        let mut h = HyStartPp::default();
        round(&mut h, 100, 200, 8, ms(200));
        assert_eq!(round(&mut h, 200, 300, 8, ms(215)), SsStep::SlowStart);
        let mut h = HyStartPp::default();
        round(&mut h, 100, 200, 8, ms(200));
        assert_eq!(round(&mut h, 200, 300, 8, ms(216)), SsStep::Css);
    }

    // RFC 9406 §4.2: in CSS, a round whose minimum RTT falls below cssBaselineMinRtt resumes
    // slow start; otherwise after CSS_ROUNDS (5) rounds the first ACK of the next round exits
    // to congestion avoidance.
    #[test]
    fn css_back_to_slow_start_or_exit_after_five_rounds() {
        let mut h = HyStartPp::default();
        round(&mut h, 100, 200, 8, ms(100));
        assert_eq!(round(&mut h, 200, 300, 8, ms(120)), SsStep::Css);
        // Baseline 120 ms; a round at 110 ms goes back to slow start at its 8th sample.
        assert_eq!(round(&mut h, 300, 400, 7, ms(110)), SsStep::Css);
        assert_eq!(
            h.on_ack(Seq(307), Seq(400), Some(ms(110))),
            SsStep::SlowStart
        );

        let mut h = HyStartPp::default();
        round(&mut h, 100, 200, 8, ms(100));
        assert_eq!(round(&mut h, 200, 300, 8, ms(120)), SsStep::Css);
        // CSS rounds 1..4 (the round it was entered in is round 0).
        for k in 0..4 {
            let s = 300 + 100 * k;
            assert_eq!(
                round(&mut h, s, s + 100, 8, ms(125)),
                SsStep::Css,
                "round {k}"
            );
        }
        assert_eq!(h.on_ack(Seq(700), Seq(800), Some(ms(125))), SsStep::Exit);
        assert!(!h.active());
        assert_eq!(
            h.on_ack(Seq(800), Seq(900), Some(ms(125))),
            SsStep::SlowStart
        );
    }
}
