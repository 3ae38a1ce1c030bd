//! Scripted tests for the ns-2.35 mechanisms of issue 14, each an option off by default:
//! limited transmit (`limited_transmit`, RFC 3042 / ns-2 `TcpAgent::send_one`), the recover
//! guard after every loss (`recover_guard = "after_loss"`, ns-2 `RenoTcpAgent::dupack_action`
//! with `bug_fix_`) and ns-2's ssthresh arithmetic (`ssthresh_rule = "ns2"`, ns-2
//! `TcpAgent::slowdown` with `CLOSE_SSTHRESH_HALF`, called on every timeout by
//! `TcpAgent::timeout`).
//!
//! Common script: MSS 1000, initial cwnd 10, established at 100 ms (RTT sample 100 ms, so the
//! RTO is 300 ms), segments 0-9 sent at 100 ms.

use super::testkit::*;
use super::{AppData, RecoverGuard, RttEstimatorKind, SsthreshRule, TcpConfig, Variant};
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
}
