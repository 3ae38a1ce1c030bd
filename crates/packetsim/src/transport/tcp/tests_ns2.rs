//! Scripted tests for the ns-2.35 mechanisms of issue 14, each an option off by default:
//! limited transmit (`limited_transmit`, RFC 3042 / ns-2 `TcpAgent::send_one`), the recover
//! guard after every loss (`recover_guard = "after_loss"`, ns-2 `RenoTcpAgent::dupack_action`
//! with `bug_fix_`) and ns-2's ssthresh arithmetic (`ssthresh_rule = "ns2"`, ns-2
//! `TcpAgent::slowdown` with `CLOSE_SSTHRESH_HALF`, called on every timeout by
//! `TcpAgent::timeout`) and Sack1 loss recovery (`sack_recovery = "sack1"`, ns-2
//! `tcp/tcp-sack1.cc` `Sack1TcpAgent::recv`, `dupack_action`, `send_much`).
//!
//! Common script: MSS 1000, initial cwnd 10, established at 100 ms (RTT sample 100 ms, so the
//! RTO is 300 ms), segments 0-9 sent at 100 ms.

use super::testkit::*;
use super::{
    AppData, RecoverGuard, RttEstimatorKind, SackRecoveryKind, SsthreshRule, TcpConfig, Variant,
};
use crate::packet::Seq;
use packetsim_kernel::Dur;

fn sender(c: &TcpConfig) -> Script<super::TcpSender> {
    let (s, sent) = Script::established(c, AppData::Unlimited);
    assert_eq!(data_seqs(&sent), (0..10).map(seg).collect::<Vec<_>>());
    s
}

/// After the ACK of segment 0 at 200 ms: cwnd 11 segments, segments 1-11 in flight.
fn after_first_ack(c: &TcpConfig) -> Script<super::TcpSender> {
    let mut s = sender(c);
    assert_eq!(
        data_seqs(&s.inject(ms(200), ack(seg(1)))),
        vec![seg(10), seg(11)]
    );
    assert_eq!(s.ep.cc_state().cwnd, 11_000);
    s
}

mod limited_transmit {
    use super::*;

    // RFC 3042 §2 and ns-2 `TcpAgent::recv` -> `TcpAgent::send_one`: each of the first two
    // duplicate ACKs (DupThresh - 1) sends one new segment, provided the peer's window allows
    // it and the flight stays within cwnd + 2 SMSS; cwnd itself does not change. The third
    // triggers fast retransmit with ssthresh = FlightSize/2 where FlightSize excludes the
    // two limited-transmit segments (RFC 5681 §3.2 step 2, "MUST NOT be included").
    #[test]
    fn first_two_dupacks_send_one_new_segment_each() {
        let c = TcpConfig {
            limited_transmit: true,
            ..cfg(Variant::Reno)
        };
        let mut s = after_first_ack(&c);
        assert_eq!(data_seqs(&s.inject(ms(201), ack(seg(1)))), vec![seg(12)]);
        assert_eq!(data_seqs(&s.inject(ms(202), ack(seg(1)))), vec![seg(13)]);
        assert_eq!(s.ep.cc_state().cwnd, 11_000, "cwnd unchanged");
        // Third dupack: fast retransmit of segment 1 only (flight 13000 > cwnd 8500).
        assert_eq!(data_seqs(&s.inject(ms(203), ack(seg(1)))), vec![seg(1)]);
        let st = *s.ep.cc_state();
        assert_eq!((st.ssthresh, st.cwnd), (5500, 8500));
        assert_eq!(s.ep.stats().retransmits, 1);
    }

    // Off (the default): the first two duplicate ACKs send nothing (RFC 5681 §3.2).
    #[test]
    fn off_by_default_sends_nothing_on_first_dupacks() {
        let c = cfg(Variant::Reno);
        assert!(!c.limited_transmit);
        let mut s = after_first_ack(&c);
        assert!(s.inject(ms(201), ack(seg(1))).is_empty());
        assert!(s.inject(ms(202), ack(seg(1))).is_empty());
        assert_eq!(data_seqs(&s.inject(ms(203), ack(seg(1)))), vec![seg(1)]);
        assert_eq!(s.ep.cc_state().ssthresh, 5500);
    }

    // ns-2 `send_one`: nothing when the peer's window is full (t_seqno_ <= highest_ack_ +
    // wnd_). Window 11000 advertised on the ACK of segment 0: segments 1-11 fill it.
    #[test]
    fn respects_the_peer_window() {
        let c = TcpConfig {
            limited_transmit: true,
            ..cfg(Variant::Reno)
        };
        let mut s = sender(&c);
        let a = |n| crate::packet::TcpHeader {
            wnd: 11_000,
            ..ack(n)
        };
        assert_eq!(
            data_seqs(&s.inject(ms(200), a(seg(1)))),
            vec![seg(10), seg(11)]
        );
        assert!(s.inject(ms(201), a(seg(1))).is_empty());
        assert!(s.inject(ms(202), a(seg(1))).is_empty());
    }
}

mod recover_guard {
    use super::*;

    /// Reno, segments 0 and 5 lost of 0-9: three dupacks fast-retransmit 0 (recover =
    /// seg(10)), six more inflate cwnd to 14000 and send 10-13; the partial ACK of 0-4 at
    /// 210 ms ends Reno's recovery (cwnd = ssthresh = 5000).
    fn reno_after_partial_ack(guard: RecoverGuard) -> Script<super::super::TcpSender> {
        let c = TcpConfig {
            recover_guard: guard,
            ..cfg(Variant::Reno)
        };
        let mut s = sender(&c);
        assert!(s.inject(ms(200), ack(1)).is_empty());
        assert!(s.inject(ms(200), ack(1)).is_empty());
        assert_eq!(data_seqs(&s.inject(ms(200), ack(1))), vec![seg(0)]);
        let mut sent = vec![];
        for _ in 0..6 {
            sent.extend(data_seqs(&s.inject(ms(201), ack(1))));
        }
        assert_eq!(sent, (10..14).map(seg).collect::<Vec<_>>());
        assert!(s.inject(ms(210), ack(seg(5))).is_empty());
        assert_eq!(s.ep.cc_state().cwnd, 5000);
        s
    }

    // Without the ns-2 guard (RFC 5681 Reno, and `after_timeout`, the default): three more
    // dupacks below `recover` trigger a second fast retransmit in the same window.
    #[test]
    fn default_allows_second_fast_retransmit_in_one_window() {
        let mut s = reno_after_partial_ack(RecoverGuard::AfterTimeout);
        s.inject(ms(211), ack(seg(5)));
        s.inject(ms(211), ack(seg(5)));
        assert_eq!(data_seqs(&s.inject(ms(211), ack(seg(5)))), vec![seg(5)]);
        assert_eq!(s.ep.stats().fast_retransmits, 2);
    }

    // ns-2 `RenoTcpAgent::dupack_action` with `bug_fix_`: no fast retransmit unless
    // highest_ack_ > recover_ (recover_ = maxseq_ at the last fast retransmit or timeout).
    // Blocked below and AT recover (the cumulative ACK must pass it), allowed beyond.
    #[test]
    fn after_loss_blocks_until_the_ack_passes_recover() {
        let mut s = reno_after_partial_ack(RecoverGuard::AfterLoss);
        for _ in 0..4 {
            assert!(data_seqs(&s.inject(ms(211), ack(seg(5)))).is_empty());
        }
        assert_eq!(s.ep.stats().fast_retransmits, 1, "blocked below recover");
        // The timer recovers segment 5 (RTO 300 ms from the partial ACK at 210 ms)...
        assert_eq!(data_seqs(&s.fire(ms(510))), vec![seg(5)]);
        // ...which sets recover = snd_max = seg(14). An ACK up to exactly seg(14), then
        // three dupacks of it: still blocked (ns-2: highest_ack_ == recover_).
        s.inject(ms(520), ack(seg(14)));
        let una = s.ep.snd_una();
        assert_eq!(una, Seq(seg(14)));
        for _ in 0..3 {
            s.inject(ms(521), ack(seg(14)));
        }
        assert_eq!(s.ep.stats().fast_retransmits, 1, "blocked at recover");
        // One segment beyond recover: three dupacks fast-retransmit it.
        s.inject(ms(530), ack(seg(15)));
        s.inject(ms(531), ack(seg(15)));
        s.inject(ms(531), ack(seg(15)));
        let out = s.inject(ms(531), ack(seg(15)));
        assert_eq!(data_seqs(&out).first(), Some(&seg(15)));
        assert_eq!(s.ep.stats().fast_retransmits, 2, "allowed beyond recover");
    }
}

mod ssthresh_rule {
    use super::*;

    // ns-2 `TcpAgent::slowdown(CLOSE_SSTHRESH_HALF)`: ssthresh = floor(window()/2) whole
    // packets, window() = min(cwnd, the peer's window), at least 2. With 11 segments the
    // RFC 5681 rule gives FlightSize/2 = 5500 bytes, ns-2 gives 5 packets.
    #[test]
    fn fast_retransmit_halves_the_window_in_whole_segments() {
        for (rule, want) in [(SsthreshRule::Rfc5681, 5500), (SsthreshRule::Ns2, 5000)] {
            let c = TcpConfig {
                ssthresh_rule: rule,
                ..cfg(Variant::Reno)
            };
            let mut s = after_first_ack(&c);
            for _ in 0..3 {
                s.inject(ms(201), ack(seg(1)));
            }
            let st = *s.ep.cc_state();
            assert_eq!((st.ssthresh, st.cwnd), (want, want + 3000), "{rule:?}");
        }
    }

    // ns-2 `TcpAgent::timeout` cuts on every expiry: after the first, cwnd = 1 packet, so a
    // second timeout of the same segment gives floor(1/2) -> the floor of 2 packets. RFC 5681
    // §3.1 (the default) keeps ssthresh when a retransmitted segment times out again.
    #[test]
    fn repeated_timeout_cuts_to_two_segments() {
        for (rule, want) in [
            (SsthreshRule::Rfc5681, [5000, 5000]),
            (SsthreshRule::Ns2, [5000, 2000]),
        ] {
            let c = TcpConfig {
                ssthresh_rule: rule,
                ..cfg(Variant::Reno)
            };
            let mut s = sender(&c);
            assert_eq!(data_seqs(&s.fire(ms(400))), vec![seg(0)]);
            let first = s.ep.cc_state().ssthresh;
            assert_eq!(data_seqs(&s.fire(ms(1000))), vec![seg(0)]);
            let second = s.ep.cc_state().ssthresh;
            assert_eq!([first, second], want, "{rule:?}");
            assert_eq!(s.ep.cc_state().cwnd, 1000);
        }
    }
}

mod ns2_ecn_cut {
    use super::*;
    use crate::packet::{TcpFlags, TcpHeader};
    use crate::transport::tcp::cc::Phase;

    fn ece(n: u32) -> TcpHeader {
        ack(n).with_flags(TcpFlags::ECE)
    }

    // ns-2.35 `TcpAgent::ecn` -> `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`: halfwin =
    // windowd() / 2 with windowd() = min(cwnd_, wnd_), whatever is in flight; ssthresh_ =
    // (int) halfwin, cwnd_ = halfwin. An application with 5 segments to send leaves 5000
    // bytes in flight under a 10000-byte cwnd; an ECE ACK of segment 0 then gives
    // RFC 3168's min(cwnd, FlightSize)/2 = 2500 bytes of cwnd and ssthresh without the
    // option, and ns-2's 5000 / 5000 with it (precision_reduce or not: 10 segments halve
    // to a whole 5). From cwnd 11000 (one more ACK first), ns-2 halves to 5500 unrounded
    // with `precision_reduce`, 5000 without; ssthresh 5000 in both.
    #[test]
    fn ece_halves_the_window_not_the_flight() {
        assert!(!TcpConfig::default().ns2_ecn_cut);
        for (ns2, precise, want) in [
            (false, false, (2500, 2500)),
            (true, false, (5000, 5000)),
            (true, true, (5000, 5000)),
        ] {
            let c = TcpConfig {
                ecn: true,
                ns2_ecn_cut: ns2,
                precision_reduce: precise,
                ..cfg(Variant::Reno)
            };
            let (mut s, sent) = Script::established(&c, AppData::Bytes(5000));
            assert_eq!(data_seqs(&sent).len(), 5);
            s.inject(ms(200), ece(seg(1)));
            let st = *s.ep.cc_state();
            assert_eq!((st.cwnd, st.ssthresh), want, "ns2 {ns2}, precise {precise}");
            assert_eq!(st.phase, Phase::Open);
            assert_eq!(s.ep.stats().ecn_reductions, 1);
        }
        for (precise, want_cwnd) in [(false, 5000), (true, 5500)] {
            let c = TcpConfig {
                ecn: true,
                ns2_ecn_cut: true,
                precision_reduce: precise,
                ..cfg(Variant::Reno)
            };
            let (mut s, _) = Script::established(&c, AppData::Unlimited);
            s.inject(ms(200), ack(seg(1)));
            assert_eq!(s.ep.cc_state().cwnd, 11_000);
            s.inject(ms(201), ece(seg(2)));
            let st = *s.ep.cc_state();
            assert_eq!(
                (st.cwnd, st.ssthresh),
                (want_cwnd, 5000),
                "precise {precise}"
            );
        }
    }
}

mod precision_reduce {
    use super::*;
    use crate::transport::tcp::cc::Phase;

    fn ns2(variant: Variant, precise: bool) -> TcpConfig {
        TcpConfig {
            ssthresh_rule: SsthreshRule::Ns2,
            precision_reduce: precise,
            ..cfg(variant)
        }
    }

    // ns-2.35 `TcpAgent::slowdown` with `precisionReduce_ true` (ns-default.tcl's default
    // since 2006): halfwin = windowd() / 2, a real number; ssthresh = (int) halfwin and
    // cwnd_ = halfwin. `RenoTcpAgent::dupack_action` cuts with CLOSE_CWND_HALF and inflates
    // only `dupwnd_`, so the ACK that ends recovery leaves cwnd_ = halfwin. 11 segments out,
    // segment 1 lost: ssthresh 5 packets in both, cwnd after recovery 5.5 packets with
    // `precision_reduce`, 5 without (RFC 5681 §3.2 step 6: cwnd = ssthresh).
    #[test]
    fn reno_recovery_ends_at_half_the_window_unrounded() {
        assert!(!TcpConfig::default().precision_reduce);
        for (precise, want) in [(false, 5000), (true, 5500)] {
            let mut s = after_first_ack(&ns2(Variant::Reno, precise));
            for _ in 0..3 {
                s.inject(ms(201), ack(seg(1)));
            }
            let st = *s.ep.cc_state();
            assert_eq!((st.ssthresh, st.cwnd), (5000, 8000), "{precise}");
            s.inject(ms(300), ack(seg(12)));
            let st = *s.ep.cc_state();
            assert_eq!((st.phase, st.ssthresh, st.cwnd), (Phase::Open, 5000, want));
        }
    }

    // `Sack1TcpAgent::dupack_action` -> slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF):
    // cwnd_ = 11 / 2 = 5.5 packets, and `send_much` sends in recovery while
    // `pipe_ < int(cwnd_)`, i.e. below 5. pipe_ starts at 11 - 3 = 8; the 4th ACK after
    // the retransmission brings it to 4 and exactly one hole (segment 5) goes: not a second,
    // as comparing pipe with 5.5 packets would allow.
    #[test]
    fn sack1_cwnd_is_half_the_window_and_pipe_compares_with_its_whole_part() {
        for precise in [false, true] {
            let c = TcpConfig {
                sack_recovery: SackRecoveryKind::Sack1,
                ..ns2(Variant::Sack, precise)
            };
            let mut s = after_first_ack(&c);
            let t = ms(201);
            let sacks = |hi: u32| sack_ack(seg(1), &[(seg(6), seg(hi)), (seg(2), seg(5))]);
            s.inject(t, sack_ack(seg(1), &[(seg(2), seg(3))]));
            s.inject(t, sack_ack(seg(1), &[(seg(2), seg(4))]));
            let out = s.inject(t, sack_ack(seg(1), &[(seg(2), seg(5))]));
            assert_eq!(data_seqs(&out), vec![seg(1)]);
            let st = *s.ep.cc_state();
            let cwnd = if precise { 5500 } else { 5000 };
            assert_eq!((st.ssthresh, st.cwnd), (5000, cwnd));
            let mut sent = vec![];
            for hi in 7..=11 {
                sent.push(data_seqs(&s.inject(t, sacks(hi))));
            }
            let want: Vec<Vec<u32>> = vec![vec![], vec![], vec![], vec![seg(5)], vec![seg(12)]];
            assert_eq!(sent, want, "{precise}");
        }
    }
}

mod ns2_estimator {
    use super::*;
    use crate::transport::Endpoint;

    // ns-2.35 `TcpAgent::rtt_update` / `rtt_timeout` / `rtt_backoff` driven by the sender:
    // tick 10 ms, minrto_ 0.2 s, rtxcur_init_ 3 s. The SYN (sent at 0, answered at 100 ms) is
    // 10 ticks: RTO = (20·8 + 80) >> 3 = 30 ticks, so the data sent at 100 ms times out at
    // 400 ms. The ACK of segment 0 at 215 ms is 21 - 10 = 11 ticks: d = 1, t_srtt 81,
    // t_rttvar 20 + 1 - 5 = 16, RTO = (128 + 81) >> 3 = 26 ticks = 260 ms from 215 ms, i.e.
    // 475 ms. The expiry doubles it (t_backoff_ 2): the retransmission times out 520 ms later.
    #[test]
    fn sender_arms_the_timer_with_ns2_rtos() {
        let c = TcpConfig {
            rtt_estimator: RttEstimatorKind::Ns2,
            tick: Dur::from_millis(10),
            rto_min: Dur::from_millis(200),
            rto_initial: Dur::from_secs(3),
            ..cfg(Variant::Reno)
        };
        let mut s = sender(&c);
        assert_eq!(s.ep.next_timeout(), Some(ms(400)));
        assert_eq!(
            data_seqs(&s.inject(ms(215), ack(seg(1)))),
            vec![seg(10), seg(11)]
        );
        assert_eq!(s.ep.next_timeout(), Some(ms(475)));
        assert_eq!(data_seqs(&s.fire(ms(475))), vec![seg(1)]);
        assert_eq!(s.ep.next_timeout(), Some(ms(995)));
    }

    /// The ns-2 estimator at tick 10 ms with segment 1 lost: the SYN and segment 0 give 10-tick
    /// samples (t_srtt 80, t_rttvar 15, RTO 250 ms); segments 10-11 go out at 200 ms, 10
    /// timed; the third duplicate ACK at 302 ms fast-retransmits segment 1; the full ACK of
    /// 0-11 arrives at 500 ms. Returns the script after that ACK.
    fn fast_retransmit_then_full_ack(stop: bool) -> Script<super::super::TcpSender> {
        let c = TcpConfig {
            rtt_estimator: RttEstimatorKind::Ns2,
            tick: Dur::from_millis(10),
            rto_min: Dur::from_millis(200),
            rto_initial: Dur::from_secs(3),
            fast_retransmit_stops_timing: stop,
            ..cfg(Variant::Reno)
        };
        let mut s = after_first_ack(&c);
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(250));
        assert!(s.inject(ms(300), ack(seg(1))).is_empty());
        assert!(s.inject(ms(301), ack(seg(1))).is_empty());
        assert_eq!(data_seqs(&s.inject(ms(302), ack(seg(1)))), vec![seg(1)]);
        // Reno exits recovery with cwnd = ssthresh = 5500: segments 12-16 go out.
        assert_eq!(
            data_seqs(&s.inject(ms(500), ack(seg(12)))),
            (12..17).map(seg).collect::<Vec<_>>()
        );
        s
    }

    // ns-2.35 `RenoTcpAgent::dupack_action` (and `Sack1TcpAgent::dupack_action`) call
    // `reset_rtx_timer(1, 0)`, which sets `rtt_active_ = 0`: the measurement of segment 10
    // is dropped, so the ACK at 500 ms is no sample and the RTO stays 250 ms (timer 750 ms).
    // The next new segment (12, sent at 500 ms; `TcpAgent::output` times `seqno > maxseq_`)
    // is timed: acked at 600 ms it is a 10-tick sample, t_rttvar 15 - 3 = 12, RTO = (96 +
    // 80) >> 3 = 22 ticks = 220 ms.
    #[test]
    fn fast_retransmit_stops_the_measurement_as_ns2() {
        let mut s = fast_retransmit_then_full_ack(true);
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(250), "no sample");
        assert_eq!(s.ep.next_timeout(), Some(ms(750)));
        assert_eq!(data_seqs(&s.inject(ms(600), ack(seg(13)))), vec![seg(17)]);
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(220));
    }

    // Default (RFC 6298 §3 with Karn's rule: only a retransmitted segment loses its
    // measurement): segment 10, sent at 200 ms and acknowledged at 500 ms behind the hole,
    // is a 30-tick sample: d = 20, t_srtt 100, t_rttvar 15 + 20 - 3 = 32, RTO = (256 + 100)
    // >> 3 = 44 ticks = 440 ms (timer 940 ms).
    #[test]
    fn default_keeps_timing_across_fast_retransmit() {
        assert!(!TcpConfig::default().fast_retransmit_stops_timing);
        let s = fast_retransmit_then_full_ack(false);
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(440));
        assert_eq!(s.ep.next_timeout(), Some(ms(940)));
    }
}

mod sack1 {
    use super::*;
    use crate::transport::tcp::cc::Phase;
    use crate::transport::Endpoint;

    fn sack1() -> TcpConfig {
        TcpConfig {
            sack_recovery: SackRecoveryKind::Sack1,
            ssthresh_rule: SsthreshRule::Ns2,
            ..cfg(Variant::Sack)
        }
    }

    /// Segments 2, 5 and 7 lost of 0-9; the ACKs of 0 and 1 at 200 ms open cwnd to 12 and
    /// send 10-13 (12 segments outstanding, 2-13).
    fn after_two_acks(c: &TcpConfig) -> Script<super::super::TcpSender> {
        let mut s = sender(c);
        assert_eq!(
            data_seqs(&s.inject(ms(200), ack(seg(1)))),
            vec![seg(10), seg(11)]
        );
        assert_eq!(
            data_seqs(&s.inject(ms(200), ack(seg(2)))),
            vec![seg(12), seg(13)]
        );
        s
    }

    // The scripted losses of `tests::sack::recovery_three_losses_in_window_retransmitted_by
    // _nextseg`, with ns-2's Sack1. `dupack_action` on the third SACKing duplicate ACK:
    // ssthresh = cwnd = 12/2 = 6 packets (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)`),
    // pipe_ = maxseq_ - highest_ack_ - numdupacks = 12 - 3 = 9, segment 2 resent outside the
    // pipe. Every further ACK takes one off the pipe (`recv`: `--pipe_`); `send_much` sends
    // only once pipe_ < cwnd_: the 4th to 6th ACKs send nothing (RFC 6675's SetPipe would
    // already have sent 5 and 7), the 7th and 8th resend 5 and 7 (`GetNextRetran`: holes
    // below the highest SACK first), the 9th new data (14). The partial ACK of 2-4 takes two
    // off the pipe (`partial_ack_` false) and restarts the timer; two new segments go out.
    // The ACK beyond `recover` (14) ends recovery with cwnd as set on entry (`newack`).
    #[test]
    fn recovers_the_scripted_losses_with_the_segments_ns2_sends() {
        let mut s = after_two_acks(&sack1());
        let t = ms(201);
        let sacks = |hi: u32| {
            sack_ack(
                seg(2),
                &[(seg(8), seg(hi)), (seg(6), seg(7)), (seg(3), seg(5))],
            )
        };
        assert!(s
            .inject(t, sack_ack(seg(2), &[(seg(3), seg(4))]))
            .is_empty());
        assert!(s
            .inject(t, sack_ack(seg(2), &[(seg(3), seg(5))]))
            .is_empty());
        let out = s.inject(t, sack_ack(seg(2), &[(seg(6), seg(7)), (seg(3), seg(5))]));
        assert_eq!(data_seqs(&out), vec![seg(2)]);
        let st = *s.ep.cc_state();
        assert_eq!((st.cwnd, st.ssthresh), (6000, 6000));
        assert!(matches!(st.phase, Phase::Recovery { recover } if recover == Seq(seg(14))));
        let mut sent = vec![];
        for hi in 9..=14 {
            sent.push(data_seqs(&s.inject(t, sacks(hi))));
        }
        let want: Vec<Vec<u32>> = vec![
            vec![],
            vec![],
            vec![],
            vec![seg(5)],
            vec![seg(7)],
            vec![seg(14)],
        ];
        assert_eq!(sent, want);
        // Partial ACK of 2-4 (the resent 2 arrived): pipe 6 - 2 = 4, two new segments.
        let partial = sack_ack(seg(5), &[(seg(8), seg(14)), (seg(6), seg(7))]);
        assert_eq!(
            data_seqs(&s.inject(ms(300), partial)),
            vec![seg(15), seg(16)]
        );
        // RTO 250 ms (RFC 6298, the 100 ms handshake sample): restarted, not the 451 ms of
        // the fast retransmit.
        assert_eq!(
            s.ep.next_timeout(),
            Some(ms(550)),
            "newtimer on the partial ACK"
        );
        // Full ACK: recovery over, cwnd 6 packets as set on entry, 17-20 go out.
        assert_eq!(
            data_seqs(&s.inject(ms(310), ack(seg(15)))),
            (17..21).map(seg).collect::<Vec<_>>()
        );
        let st = *s.ep.cc_state();
        assert_eq!((st.phase, st.cwnd), (Phase::Open, 6000));
        let stats = s.ep.stats();
        assert_eq!(
            (stats.retransmits, stats.fast_retransmits, stats.timeouts),
            (3, 1, 0)
        );
    }

    // `Sack1TcpAgent::recv`: a duplicate ACK counts towards numdupacks only if its SACK
    // blocks acknowledge new data (`scb_->CheckUpdate()`). Three identical SACKs count once;
    // RFC 6675 (the default) counts all three and fast-retransmits on the third.
    #[test]
    fn duplicate_acks_count_only_when_they_sack_new_data() {
        let same = sack_ack(seg(2), &[(seg(3), seg(4))]);
        let mut s = after_two_acks(&cfg(Variant::Sack));
        s.inject(ms(201), same);
        s.inject(ms(201), same);
        assert_eq!(data_seqs(&s.inject(ms(201), same)), vec![seg(2)], "rfc6675");
        let mut s = after_two_acks(&sack1());
        for _ in 0..3 {
            assert!(s.inject(ms(201), same).is_empty());
        }
        assert!(s
            .inject(ms(201), sack_ack(seg(2), &[(seg(3), seg(5))]))
            .is_empty());
        let out = s.inject(ms(201), sack_ack(seg(2), &[(seg(3), seg(6))]));
        assert_eq!(data_seqs(&out), vec![seg(2)], "third SACKing duplicate");
        assert_eq!(s.ep.stats().dupacks, 5);
    }

    // `Sack1TcpAgent::timeout` sets `timeout_`; until the next ACK of new data `recv` ignores
    // duplicate ACKs altogether: no limited transmit (`send_one`), no fast retransmit. The
    // RFC 6675 sender with limited transmit resends segment 1 on the first of them (RFC 3042
    // §2: snd_nxt is back at snd_una + 1 segment after the timeout's go-back-N).
    #[test]
    fn duplicate_acks_after_a_timeout_are_ignored_until_new_data_is_acked() {
        for (rec, first) in [
            (SackRecoveryKind::Rfc6675, vec![seg(1)]),
            (SackRecoveryKind::Sack1, vec![]),
        ] {
            let c = TcpConfig {
                limited_transmit: true,
                sack_recovery: rec,
                ..sack1()
            };
            let mut s = sender(&c);
            assert_eq!(data_seqs(&s.fire(ms(400))), vec![seg(0)]);
            let dup = |hi| sack_ack(seg(0), &[(seg(2), seg(hi))]);
            assert_eq!(data_seqs(&s.inject(ms(401), dup(3))), first, "{rec:?}");
            if rec == SackRecoveryKind::Sack1 {
                for hi in 4..7 {
                    assert!(s.inject(ms(401), dup(hi)).is_empty());
                }
                assert_eq!(s.ep.stats().fast_retransmits, 0);
                assert_eq!(s.ep.stats().dupacks, 4);
            }
        }
    }

    fn sack1_clearing(clear: bool) -> TcpConfig {
        TcpConfig {
            sack1_clear_scoreboard: clear,
            ..sack1()
        }
    }

    // `Sack1TcpAgent::timeout` clears the scoreboard (`ScoreBoard::ClearScoreBoard`) and sets
    // `timeout_`, under which `recv` does not call `UpdateScoreBoard` for duplicate ACKs;
    // the next ACK of new data clears it again before anything is sent, so `send_much`'s
    // `GetNextRetran` finds nothing and the go-back-N sends from `t_seqno_` whatever the
    // receiver holds. Segment 1 lost, 2-5 held: after the timeout's resend of 0 is acked
    // (cwnd 2), ns-2 sends 1 and 2. Without the option the sender remembers 2-5 SACKed,
    // skips them, and the window (snd_una + 2 segments) lets only 1 go.
    #[test]
    fn timeout_go_back_n_resends_what_the_receiver_holds() {
        assert!(!TcpConfig::default().sack1_clear_scoreboard);
        for (clear, want) in [(false, vec![seg(1)]), (true, vec![seg(1), seg(2)])] {
            let mut s = sender(&sack1_clearing(clear));
            assert_eq!(data_seqs(&s.fire(ms(400))), vec![seg(0)]);
            for hi in 3..7 {
                let dup = sack_ack(seg(0), &[(seg(2), seg(hi))]);
                assert!(s.inject(ms(401), dup).is_empty());
            }
            let new = sack_ack(seg(1), &[(seg(2), seg(6))]);
            assert_eq!(data_seqs(&s.inject(ms(500), new)), want, "clear {clear}");
            assert_eq!(s.ep.cc_state().cwnd, 2000);
        }
    }

    // `Sack1TcpAgent::recv` outside fast recovery: an ACK of new data calls
    // `ClearScoreBoard` (its SACK blocks unrecorded), so the next duplicate ACK rebuilds the
    // scoreboard and counts (`CheckUpdate`) even if its block was reported before. Segment
    // 0 reordered behind 3, segments 1 and 2 lost: the ACK of 0 repeats the block 3, and so
    // does the first duplicate ACK after it (a duplicate arrival). With the clear, that
    // duplicate counts and the third SACKing duplicate retransmits 1 (`dupack_action`);
    // without it only two count and nothing is sent.
    #[test]
    fn new_ack_outside_recovery_forgets_the_sacked_blocks() {
        for (clear, want) in [(false, vec![]), (true, vec![seg(1)])] {
            let mut s = sender(&sack1_clearing(clear));
            let held = |hi| sack_ack(seg(1), &[(seg(3), seg(hi))]);
            assert!(s
                .inject(ms(200), sack_ack(seg(0), &[(seg(3), seg(4))]))
                .is_empty());
            assert_eq!(
                data_seqs(&s.inject(ms(201), held(4))),
                vec![seg(10), seg(11)]
            );
            assert!(s.inject(ms(202), held(4)).is_empty());
            assert!(s.inject(ms(203), held(5)).is_empty());
            let out = s.inject(ms(204), held(6));
            assert_eq!(data_seqs(&out), want, "clear {clear}");
            assert_eq!(s.ep.stats().fast_retransmits, u64::from(clear));
        }
    }

    // `Sack1TcpAgent::recv` in fast recovery: the ACK at or beyond `recover_` ends recovery
    // and calls `ClearScoreBoard`. After the scripted recovery of segments 2, 5 and 7 (as
    // `recovers_the_scripted_losses_with_the_segments_ns2_sends`), segment 15 is lost and
    // the full ACK (of 0-14) already SACKs 16: the duplicate ACKs repeating 16 and adding
    // 17, 18 count three times with the clear (fast retransmit of 15), twice without.
    #[test]
    fn full_ack_ending_recovery_forgets_the_sacked_blocks() {
        for clear in [false, true] {
            let mut s = after_two_acks(&sack1_clearing(clear));
            let t = ms(201);
            s.inject(t, sack_ack(seg(2), &[(seg(3), seg(4))]));
            s.inject(t, sack_ack(seg(2), &[(seg(3), seg(5))]));
            let out = s.inject(t, sack_ack(seg(2), &[(seg(6), seg(7)), (seg(3), seg(5))]));
            assert_eq!(data_seqs(&out), vec![seg(2)]);
            for hi in 9..=14 {
                s.inject(
                    t,
                    sack_ack(
                        seg(2),
                        &[(seg(8), seg(hi)), (seg(6), seg(7)), (seg(3), seg(5))],
                    ),
                );
            }
            let partial = sack_ack(seg(5), &[(seg(8), seg(14)), (seg(6), seg(7))]);
            assert_eq!(
                data_seqs(&s.inject(ms(300), partial)),
                vec![seg(15), seg(16)]
            );
            // Full ACK of 14 with 16 SACKed (15 lost): recovery ends, cwnd 6, 17-20 go out.
            let full = |hi| sack_ack(seg(15), &[(seg(16), seg(hi))]);
            assert_eq!(
                data_seqs(&s.inject(ms(310), full(17))),
                (17..21).map(seg).collect::<Vec<_>>()
            );
            assert!(matches!(s.ep.cc_state().phase, Phase::Open));
            assert!(s.inject(ms(320), full(17)).is_empty());
            assert!(s.inject(ms(321), full(18)).is_empty());
            let out = s.inject(ms(322), full(19));
            let want = if clear { vec![seg(15)] } else { vec![] };
            assert_eq!(data_seqs(&out), want, "clear {clear}");
            assert_eq!(s.ep.stats().fast_retransmits, 1 + u64::from(clear));
        }
    }

    // The option is `[tcp] sack_recovery`; RFC 6675 stays the default, and other variants
    // ignore it. In the pair harness Sack1 repairs three drops in one window by exactly three
    // retransmissions, without a timeout (as `tests::sack::pair_three_drops...`).
    #[test]
    fn pair_three_drops_repaired_and_default_unchanged() {
        assert_eq!(
            TcpConfig::default().sack_recovery,
            SackRecoveryKind::Rfc6675
        );
        let mut p = Pair::new(&sack1(), AppData::Bytes(100_000));
        p.drop_once = vec![seg(22), seg(25), seg(27)];
        assert_file_delivered(&mut p, 100_000);
        assert_eq!(p.retransmitted(), vec![seg(22), seg(25), seg(27)]);
        assert_eq!(p.snd.stats().timeouts, 0);
        assert_eq!(p.snd.stats().fast_retransmits, 1);
    }
}

mod send_overhead {
    use super::*;
    use crate::transport::Endpoint;
    use packetsim_kernel::Rng;

    /// The first `n` delays a stream seeded `seed` gives, uniform on [0, max).
    fn draws(seed: u64, n: usize, max: Dur) -> Vec<Dur> {
        let mut r = Rng::from_seed(seed);
        (0..n)
            .map(|_| Dur((r.uniform() * max.0 as f64) as u64))
            .collect()
    }

    // ns-2.35 `TcpAgent::send_much` with `overhead_` > 0 (force 0): when a packet could go,
    // the delayed-send timer is set to Random::uniform(overhead_) and nothing is sent; while
    // it is pending, send_much returns at once; when it fires (`timeout_nonrtx`,
    // TCP_TIMER_DELSND) send_much(1) sends all the window allows. The fast retransmission
    // (`dupack_action` -> `output`) is not delayed; the timeout's go-back-N (`timeout` ->
    // send_much(0)) is.
    #[test]
    fn each_send_burst_waits_a_uniform_delay() {
        let c = TcpConfig {
            send_overhead: Dur::from_millis(1),
            ..cfg(Variant::Reno)
        };
        assert_eq!(TcpConfig::default().send_overhead, Dur::ZERO);
        let (mut s, _) = Script::opened(&c, AppData::Unlimited);
        s.ep.set_overhead_rng(Rng::from_seed(7));
        let d = draws(7, 3, Dur::from_millis(1));
        assert!(
            s.inject(ms(100), syn_ack()).is_empty(),
            "the first window waits"
        );
        assert_eq!(
            data_seqs(&s.fire(ms(100) + d[0])),
            (0..10).map(seg).collect::<Vec<_>>()
        );
        // Two ACKs during one wait: a single draw, and the burst is what both opened.
        assert!(s.inject(ms(200), ack(seg(1))).is_empty());
        assert!(s.inject(ms(200), ack(seg(2))).is_empty());
        assert_eq!(
            data_seqs(&s.fire(ms(200) + d[1])),
            (10..14).map(seg).collect::<Vec<_>>()
        );
        // Segment 2 lost: the third duplicate ACK retransmits it at once; nothing else can go,
        // so no delay is drawn.
        assert!(s.inject(ms(300), ack(seg(2))).is_empty());
        assert!(s.inject(ms(300), ack(seg(2))).is_empty());
        assert_eq!(data_seqs(&s.inject(ms(300), ack(seg(2)))), vec![seg(2)]);
        // The timer expires: its go-back-N waits the next draw.
        let t = s.ep.next_timeout().expect("the retransmission timer runs");
        assert!(s.fire(t).is_empty());
        assert_eq!(data_seqs(&s.fire(t + d[2])), vec![seg(2)]);
    }

    // Each flow of a scenario draws from its own stream (`flows.NAME.send_overhead`): the
    // same seed gives the same run, and the option off leaves the run as before.
    #[test]
    fn scenario_flows_draw_from_their_own_streams() {
        let run = |overhead: &str, seed: u64| {
            let text = format!(
                "[simulation]\nduration = \"5s\"\nseed = {seed}\n\n[tcp]\nsend_overhead = \
                 \"{overhead}\"\n\n[nodes.a]\n[nodes.b]\n\n[links.l]\na = \"a\"\nb = \"b\"\n\
                 rate = \"10Mbps\"\ndelay = \"10ms\"\n\n[flows.f]\nfrom = \"a\"\nto = \"b\"\n\
                 app = \"file\"\nsize = \"200KB\"\n"
            );
            let sc = crate::scenario::load_str(&text, "overhead.toml", &[]).unwrap();
            let out = crate::scenario::run(&sc, seed).unwrap();
            out.summary.flows["f"].completion_time_s.unwrap()
        };
        let (off, on, again, other) = (run("0s", 1), run("5ms", 1), run("5ms", 1), run("5ms", 2));
        assert_eq!(on, again, "reproducible");
        assert!(on > off, "delays only add time: {on} vs {off}");
        assert_ne!(on, other, "another seed, other draws");
    }
}

mod ns2_header_sizes {
    use super::*;
    use crate::packet::{Body, Packet, TcpHeader};
    use crate::transport::tcp::TcpReceiver;

    /// The size on the wire (IP header included) of a segment the endpoint sent.
    fn size(h: TcpHeader) -> u32 {
        Packet::new(SND, RCV, Body::Tcp(h)).size
    }

    // ns-2.35: the SYN is `tcpip_base_hdr_size_` 40 bytes (`TcpAgent::output`, seqno 0 with
    // `syn_`), a data segment `packetSize_` + 40 (`TcpAgent::headersize`). Without the option
    // the SACK sender's SYN carries SACK-permitted (RFC 2018 §2): 44 bytes.
    #[test]
    fn sender_syn_is_40_bytes_and_data_mss_plus_40() {
        for (ns2, syn_bytes) in [(false, 44), (true, 40)] {
            let c = TcpConfig {
                ns2_header_sizes: ns2,
                ..cfg(Variant::Sack)
            };
            let (_, syn) = Script::opened(&c, AppData::Unlimited);
            assert!(syn.sack_permitted, "the SYN still offers SACK");
            assert_eq!(size(syn), syn_bytes, "ns2 {ns2}");
            let (_, sent) = Script::established(&c, AppData::Unlimited);
            assert_eq!(size(sent[0]), 1000 + 40, "ns2 {ns2}");
        }
    }

    // ns-2.35 `Agent/TCPSink/Sack1`: an ACK is `packetSize_` 40 bytes plus 8 per SACK block
    // (`tcp/tcp-sink.cc` `Sacker::append_ack`, `size() += sack_index * 8`), at most
    // `maxSackBlocks_` 3. RFC 2018 §3 layout (the default): 2 bytes of kind and length, padded
    // to 4: 52, 60, 68; its SYN-ACK carries SACK-permitted: 44.
    #[test]
    fn receiver_acks_are_40_bytes_plus_8_per_sack_block() {
        for (ns2, want) in [(false, [44, 40, 52, 60, 68]), (true, [40, 40, 48, 56, 64])] {
            let c = TcpConfig {
                ns2_header_sizes: ns2,
                ..cfg(Variant::Sack)
            };
            let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
            let sa = r.inject(
                ms(0),
                TcpHeader {
                    sack_permitted: true,
                    ..syn()
                },
            );
            // The SYN-ACK agrees to SACK; ns-2 answers the SYN with a plain 40-byte ACK.
            assert!(sa[0].sack_permitted);
            let mut got = vec![size(sa[0])];
            for (t, s) in [(1, 0), (2, 2), (3, 4), (4, 6)] {
                let o = r.inject(ms(t), data(seg(s), MSS));
                got.push(size(o[0]));
            }
            assert_eq!(got, want, "ns2 {ns2}");
        }
    }

    // With timestamps, ns-2 adds `ts_option_size_` 10 (unpadded) to the sender's data
    // segments only (`TcpAgent::headersize`); the sink's ACKs stay `packetSize_` 40.
    #[test]
    fn timestamps_add_10_bytes_to_data_and_none_to_acks() {
        let c = TcpConfig {
            ns2_header_sizes: true,
            timestamps: true,
            ..cfg(Variant::Sack)
        };
        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        r.inject(
            ms(0),
            TcpHeader {
                sack_permitted: true,
                ts: data_ts(0, 0, ms(0)).ts,
                ..syn()
            },
        );
        let o = r.inject(ms(1), data_ts(seg(0), MSS, ms(1)));
        assert!(o[0].ts.is_some(), "the ACK echoes the timestamp");
        assert_eq!(size(o[0]), 40);
        let h = TcpHeader {
            ns2_len: true,
            ..data_ts(seg(0), MSS, ms(1))
        };
        assert_eq!(size(h), MSS + 50);
    }
}
