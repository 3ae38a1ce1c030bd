//! Endpoint scripts and pair-harness tests for TCP. Each test cites the rule it checks.

use super::cc::Phase;
use super::testkit::*;
use super::{AppData, FullAckCwnd, PartialAckTimer, TcpReceiver, Variant};
use crate::packet::{Seq, TcpFlags};
use crate::transport::Endpoint;
use packetsim_kernel::{Dur, Time};

fn recovery(recover: u32) -> Phase {
    Phase::Recovery {
        recover: Seq(recover),
    }
}

mod reno {
    use super::*;

    // RFC 5681 §3.2 steps 2-6: fast retransmit on exactly the 3rd duplicate ACK,
    // ssthresh = max(FlightSize/2, 2 SMSS) (eq. 4), cwnd = ssthresh + 3 SMSS, +SMSS per further
    // dupack (new data when the window allows), deflation to ssthresh on the first new ACK.
    #[test]
    fn open_third_dupack_fast_retransmits_inflates_then_deflates() {
        let c = cfg(Variant::Reno);
        let (mut s, sent) = Script::established(&c, AppData::Unlimited);
        assert_eq!(data_seqs(&sent), (0..10).map(seg).collect::<Vec<_>>());
        // Segment 0 is lost; segments 1.. produce duplicate ACKs of 1.
        assert!(s.inject(ms(200), ack(1)).is_empty());
        assert!(
            s.inject(ms(201), ack(1)).is_empty(),
            "no fast retransmit on the 2nd dupack"
        );
        assert_eq!(s.ep.cc_state().phase, Phase::Disorder);
        let out = s.inject(ms(202), ack(1));
        assert_eq!(
            data_seqs(&out),
            vec![seg(0)],
            "fast retransmit on the 3rd dupack"
        );
        let st = *s.ep.cc_state();
        assert_eq!(
            st.ssthresh, 5000,
            "max(FlightSize/2, 2 SMSS) with FlightSize 10000"
        );
        assert_eq!(st.cwnd, 8000, "ssthresh + 3 SMSS");
        assert_eq!(st.phase, recovery(seg(10)));
        assert_eq!(s.ep.stats().fast_retransmits, 1);
        // Inflation: +1 MSS per dupack; new data once cwnd exceeds the 10000 bytes in flight.
        assert!(s.inject(ms(203), ack(1)).is_empty());
        assert_eq!(s.ep.cc_state().cwnd, 9000);
        assert!(s.inject(ms(204), ack(1)).is_empty());
        assert_eq!(s.ep.cc_state().cwnd, 10_000);
        assert_eq!(data_seqs(&s.inject(ms(205), ack(1))), vec![seg(10)]);
        assert_eq!(s.ep.cc_state().cwnd, 11_000);
        // First ACK of new data, a partial one: deflate to ssthresh and leave recovery.
        let out = s.inject(ms(300), ack(seg(2)));
        assert!(
            out.is_empty(),
            "flight 9000 exceeds the deflated window 5000"
        );
        let st = *s.ep.cc_state();
        assert_eq!((st.cwnd, st.ssthresh, st.phase), (5000, 5000, Phase::Open));
    }
}

mod newreno {
    use super::*;

    // Spec 5 §5.1 S4 (RFC 6582 §3.2 step 5, §4 slow-but-steady): five losses in one window are
    // repaired by one fast retransmit and then one retransmission per partial ACK, i.e. one
    // hole per round trip (20 ms of propagation plus transmission here), with no timeout.
    #[test]
    fn pair_slow_but_steady_repairs_one_loss_per_rtt_without_timeout() {
        let mut c = cfg(Variant::NewReno);
        c.newreno_partial_ack_timer = PartialAckTimer::SlowButSteady;
        let mut p = Pair::new(&c, AppData::Bytes(100_000));
        let holes = vec![seg(22), seg(24), seg(26), seg(28), seg(30)];
        p.drop_once = holes.clone();
        assert_file_delivered(&mut p, 100_000);
        assert_eq!(p.retransmitted(), holes);
        assert_eq!(p.snd.stats().timeouts, 0);
        assert_eq!(p.snd.stats().fast_retransmits, 1);
        // When each hole was sent again: one round trip apart (at least the 20 ms of
        // propagation, less than two round trips).
        let again: Vec<Time> = holes
            .iter()
            .map(|&h| p.sent.iter().filter(|s| s.1 == h).nth(1).unwrap().0)
            .collect();
        for w in again.windows(2) {
            let gap = w[1] - w[0];
            assert!(
                gap >= Dur::from_millis(20) && gap < Dur::from_millis(40),
                "{again:?}"
            );
        }
    }

    // RFC 6582 §3.2 step 5: a partial ACK retransmits the first unacknowledged segment,
    // deflates cwnd by the bytes acked and adds back SMSS, stays in recovery and (impatient,
    // first partial ACK) restarts the timer; step 3: the full ACK exits with
    // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
    #[test]
    fn recovery_partial_ack_retransmits_next_hole_full_ack_exits() {
        // RFC 6582 §3.2 step 3: the full ACK sets cwnd to ssthresh (option 2, the default) or to
        // min(ssthresh, FlightSize + SMSS) (option 1).
        for (full_ack, cwnd_after, sent_after) in [
            (
                FullAckCwnd::Ssthresh,
                5000,
                vec![seg(14), seg(15), seg(16), seg(17)],
            ),
            (FullAckCwnd::FlightSize, 2000, vec![seg(14)]),
        ] {
            let mut c = cfg(Variant::NewReno);
            c.newreno_full_ack = full_ack;
            let (mut s, _) = Script::established(&c, AppData::Unlimited);
            // Segments 0 and 5 lost: 4 dupacks (segments 1-4), fast retransmit on the 3rd.
            s.inject(ms(200), ack(1));
            s.inject(ms(200), ack(1));
            assert_eq!(data_seqs(&s.inject(ms(200), ack(1))), vec![seg(0)]);
            s.inject(ms(200), ack(1));
            // Segments 6-9: 4 more dupacks; cwnd 10000 -> 13000 sends segments 10, 11, 12.
            let mut new = vec![];
            for _ in 0..4 {
                new.extend(data_seqs(&s.inject(ms(201), ack(1))));
            }
            assert_eq!(new, vec![seg(10), seg(11), seg(12)]);
            assert_eq!(s.ep.cc_state().cwnd, 13_000);
            // The retransmission of segment 0 arrives: partial ACK up to the hole at segment 5.
            let out = s.inject(ms(300), ack(seg(5)));
            assert_eq!(
                data_seqs(&out),
                vec![seg(5), seg(13)],
                "next hole, then new data"
            );
            let st = *s.ep.cc_state();
            assert_eq!(st.cwnd, 13_000 - 5000 + 1000);
            assert_eq!(st.phase, recovery(seg(10)), "stays in recovery");
            assert_eq!(
                s.ep.next_timeout(),
                Some(ms(300) + s.ep.cc_metrics().rto),
                "timer restarted"
            );
            // Full ACK (everything up to segment 12 received): recovery ends.
            let out = s.inject(ms(400), ack(seg(13)));
            let st = *s.ep.cc_state();
            assert_eq!(st.phase, Phase::Open);
            assert_eq!(st.cwnd, cwnd_after, "{full_ack:?}");
            assert_eq!(data_seqs(&out), sent_after, "{full_ack:?}");
        }
    }

    // RFC 6582 §4 / spec 5 §2.6: impatient restarts the timer on the first partial ACK only;
    // slow-but-steady on every one.
    #[test]
    fn recovery_second_partial_ack_timer_depends_on_policy() {
        for (policy, restarted) in [
            (PartialAckTimer::Impatient, false),
            (PartialAckTimer::SlowButSteady, true),
        ] {
            let mut c = cfg(Variant::NewReno);
            c.newreno_partial_ack_timer = policy;
            let (mut s, _) = Script::established(&c, AppData::Unlimited);
            for _ in 0..3 {
                s.inject(ms(200), ack(1));
            }
            s.inject(ms(300), ack(seg(3)));
            let t1 = s.ep.next_timeout().unwrap();
            s.inject(ms(350), ack(seg(6)));
            let t2 = s.ep.next_timeout().unwrap();
            assert_eq!(t2 != t1, restarted, "{policy:?}");
        }
    }

    // RFC 6582 §4.1: after a timeout, duplicate ACKs for data sent before it do not trigger a
    // fast retransmit.
    #[test]
    fn loss_dupacks_below_recover_no_fast_retransmit() {
        let c = cfg(Variant::NewReno);
        let (mut s, _) = Script::established(&c, AppData::Unlimited);
        let rto = s.ep.cc_metrics().rto;
        let out = s.fire(ms(100) + rto);
        assert_eq!(data_seqs(&out), vec![seg(0)]);
        assert_eq!(
            s.ep.cc_state().phase,
            Phase::Loss {
                recover: Seq(seg(10))
            }
        );
        let t = ms(100) + rto + Dur::from_millis(50);
        // ACK of segment 0 then dupacks caused by go-back-N duplicates.
        s.inject(t, ack(seg(1)));
        for _ in 0..4 {
            let out = s.inject(t, ack(seg(1)));
            assert!(out.iter().all(|h| h.seq.0 != seg(1)), "no fast retransmit");
        }
        assert_eq!(s.ep.stats().fast_retransmits, 0);
    }
}

mod tahoe {
    use super::*;

    // spec 5 §2.6 Tahoe (RFC 5681 §3.2 step 2 without fast recovery): on the 3rd dupack,
    // ssthresh = max(FlightSize/2, 2 SMSS), cwnd = 1 SMSS, retransmit, then slow start.
    #[test]
    fn open_third_dupack_one_mss_then_slow_start() {
        let c = cfg(Variant::Tahoe);
        let (mut s, _) = Script::established(&c, AppData::Unlimited);
        s.inject(ms(200), ack(1));
        s.inject(ms(200), ack(1));
        let out = s.inject(ms(200), ack(1));
        assert_eq!(data_seqs(&out), vec![seg(0)]);
        let st = *s.ep.cc_state();
        assert_eq!((st.cwnd, st.ssthresh), (1000, 5000));
        assert!(s.inject(ms(201), ack(1)).is_empty());
        // The retransmission fills the hole: slow start +1 SMSS -> 2 segments.
        let out = s.inject(ms(300), ack(seg(10)));
        assert_eq!(data_seqs(&out), vec![seg(10), seg(11)]);
        assert_eq!(s.ep.cc_state().cwnd, 2000);
        assert_eq!(s.ep.cc_state().phase, Phase::Open);
        let out = s.inject(ms(400), ack(seg(11)));
        assert_eq!(data_seqs(&out), vec![seg(12), seg(13)]);
        assert_eq!(s.ep.cc_state().cwnd, 3000);
    }
}

mod sack {
    use super::*;

    // RFC 6675 §5: on the 3rd dupack, ssthresh = cwnd = max(FlightSize/2, 2 SMSS), retransmit
    // the first hole; then while cwnd - pipe >= SMSS send NextSeg (§4): the holes judged lost,
    // in order; no timeout.
    #[test]
    fn recovery_three_losses_in_window_retransmitted_by_nextseg() {
        let c = cfg(Variant::Sack);
        let (mut s, _) = Script::established(&c, AppData::Unlimited);
        // Segments 2, 5, 7 lost out of 0..9; slow start sent 10..13 meanwhile, not lost.
        let (t, out) = s.sack_losses_2_5_7_to_third_dupack();
        assert_eq!(
            data_seqs(&out),
            vec![seg(2)],
            "3rd dupack: first hole, then pipe >= cwnd"
        );
        let st = *s.ep.cc_state();
        assert_eq!(st.phase, recovery(seg(14)));
        assert_eq!((st.cwnd, st.ssthresh), (6000, 6000), "FlightSize 12000 / 2");
        // SACK of 8 and 9: the hole at 5 becomes lost and pipe drops.
        let out = s.inject(
            t,
            sack_ack(
                seg(2),
                &[(seg(8), seg(9)), (seg(6), seg(7)), (seg(3), seg(5))],
            ),
        );
        let out2 = s.inject(
            t,
            sack_ack(
                seg(2),
                &[(seg(8), seg(10)), (seg(6), seg(7)), (seg(3), seg(5))],
            ),
        );
        let out3 = s.inject(
            t,
            sack_ack(
                seg(2),
                &[(seg(8), seg(11)), (seg(6), seg(7)), (seg(3), seg(5))],
            ),
        );
        let rtx: Vec<u32> = [out, out2, out3]
            .iter()
            .flat_map(|o| data_seqs(o))
            .filter(|&q| q < seg(14))
            .collect();
        assert_eq!(rtx, vec![seg(5), seg(7)]);
        assert_eq!(s.ep.stats().timeouts, 0);
        assert_eq!(s.ep.stats().retransmits, 3);
        // The retransmissions arrive: the cumulative ACK passes recover, recovery ends.
        s.inject(ms(300), ack(seg(14)));
        assert_eq!(s.ep.cc_state().phase, Phase::Open);
    }

    // spec 3 §2.3 and RFC 6675 §5.1: in the pair harness, three drops in one window are
    // repaired by exactly three retransmissions, with no timeout.
    #[test]
    fn pair_three_drops_in_one_window_repaired_without_timeout() {
        let c = cfg(Variant::Sack);
        let mut p = Pair::new(&c, AppData::Bytes(100_000));
        p.drop_once = vec![seg(22), seg(25), seg(27)];
        assert_file_delivered(&mut p, 100_000);
        assert_eq!(p.retransmitted(), vec![seg(22), seg(25), seg(27)]);
        assert_eq!(p.snd.stats().timeouts, 0);
        assert_eq!(p.snd.stats().fast_retransmits, 1);
    }

    // RFC 2018 §2: SACK is used only if the SYN-ACK carries SACK-permitted; otherwise the
    // sack variant recovers as NewReno (partial ACK retransmits the next hole).
    #[test]
    fn syn_sent_no_sack_permitted_falls_back_to_newreno() {
        let c = cfg(Variant::Sack);
        let mut s = Script::new(super::super::TcpSender::new(
            &c,
            SND,
            RCV,
            AppData::Unlimited,
        ));
        let mut out = crate::transport::Outbox::default();
        s.ep.open(Time::ZERO, &mut out);
        assert!(
            out.packets[0].tcp().unwrap().sack_permitted,
            "SYN offers SACK"
        );
        s.inject(ms(100), syn_ack());
        for _ in 0..3 {
            s.inject(ms(200), sack_ack(1, &[(seg(2), seg(3))]));
        }
        let st = *s.ep.cc_state();
        assert_eq!(st.cwnd, 8000, "NewReno inflation: ssthresh + 3 SMSS");
        let out = s.inject(ms(300), ack(seg(1)));
        assert_eq!(
            data_seqs(&out)[0],
            seg(1),
            "partial ACK retransmits the next hole"
        );
    }

    // Contrast (spec 3 §2.2): Reno usually needs a timeout for three losses in one window.
    #[test]
    fn pair_reno_three_drops_in_one_window_still_delivered() {
        let c = cfg(Variant::Reno);
        let mut p = Pair::new(&c, AppData::Bytes(100_000));
        p.drop_once = vec![seg(22), seg(25), seg(27)];
        assert_file_delivered(&mut p, 100_000);
    }
}

mod rto {
    use super::*;

    // RFC 6298 §2.1: the initial RTO is used before any sample; §5.5: it doubles on each
    // expiry (SYN retransmissions) and §2.5 caps at rto_max.
    #[test]
    fn syn_sent_repeated_expiry_backoff_doubles_and_caps() {
        let mut c = cfg(Variant::NewReno);
        c.rto_max = Dur::from_secs(5);
        let mut s = Script::new(super::super::TcpSender::new(
            &c,
            SND,
            RCV,
            AppData::Unlimited,
        ));
        let mut out = crate::transport::Outbox::default();
        s.ep.open(Time::ZERO, &mut out);
        let mut t = Time::ZERO;
        let mut gaps = vec![];
        for _ in 0..5 {
            let next = s.ep.next_timeout().unwrap();
            gaps.push((next - t).as_secs_f64());
            t = next;
            let sent = s.fire(t);
            assert!(sent[0].flags.contains(TcpFlags::SYN), "SYN retransmitted");
        }
        assert_eq!(gaps, vec![1.0, 2.0, 4.0, 5.0, 5.0]);
        assert_eq!(s.ep.stats().timeouts, 5);
    }

    // RFC 6298 §5.5/§5.6 on data, Karn & Partridge / RFC 6298 §3: the ACK of a retransmitted
    // segment gives no sample, so the RTO stays backed off until a fresh segment is timed.
    #[test]
    fn established_ack_of_retransmission_no_sample_rto_stays_backed_off() {
        let mut c = cfg(Variant::Reno);
        c.initial_cwnd = 1;
        let (mut s, sent) = Script::established(&c, AppData::Unlimited);
        assert_eq!(data_seqs(&sent), vec![seg(0)]);
        // SYN-ACK after 100 ms: SRTT 100, RTTVAR 50 -> RTO 300 ms.
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(300));
        let out = s.fire(ms(400));
        assert_eq!(data_seqs(&out), vec![seg(0)]);
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(600));
        assert_eq!(s.ep.next_timeout(), Some(ms(1000)));
        let out = s.fire(ms(1000));
        assert_eq!(data_seqs(&out), vec![seg(0)]);
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(1200));
        // ACK of the retransmitted segment: no sample (Karn), RTO still backed off.
        let out = s.inject(ms(1050), ack(seg(1)));
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(1200));
        assert_eq!(data_seqs(&out), vec![seg(1), seg(2)]);
        assert_eq!(s.ep.next_timeout(), Some(ms(1050 + 1200)));
        // A fresh segment is timed: a valid sample of 100 ms resets the backoff.
        s.inject(ms(1150), ack(seg(2)));
        // SRTT 100, RTTVAR = 3/4*50 = 37.5 -> RTO 250 ms.
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(250));
    }

    // RFC 6298 §2.4: RTO below rto_min is rounded up.
    #[test]
    fn established_tiny_rtt_rto_min_honoured() {
        let c = cfg(Variant::Reno);
        let mut s = Script::new(super::super::TcpSender::new(
            &c,
            SND,
            RCV,
            AppData::Unlimited,
        ));
        let mut out = crate::transport::Outbox::default();
        s.ep.open(Time::ZERO, &mut out);
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_secs(1), "initial RTO");
        s.inject(Time::from_micros(10), syn_ack());
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(200));
        assert_eq!(
            s.ep.next_timeout(),
            Some(Time::from_micros(10) + Dur::from_millis(200))
        );
    }

    // RFC 6298 §5.2/§5.3: restart on new ACK, stop when everything is acknowledged.
    #[test]
    fn established_all_acked_timer_stops() {
        let mut c = cfg(Variant::Reno);
        c.initial_cwnd = 2;
        let (mut s, _) = Script::established(&c, AppData::Bytes(1500));
        s.inject(ms(200), ack(seg(1)));
        assert_eq!(s.ep.next_timeout(), Some(ms(200) + s.ep.cc_metrics().rto));
        s.inject(ms(250), ack(1501));
        assert_eq!(s.ep.next_timeout(), None);
        assert!(s.ep.is_done());
    }

    // RFC 5681 §3.1 eq. 4 + loss window; spec 3 §2.2: go-back-N from snd_una.
    #[test]
    fn established_timeout_halves_flight_one_mss_go_back_n() {
        let c = cfg(Variant::Reno);
        let (mut s, _) = Script::established(&c, AppData::Unlimited);
        let out = s.fire(ms(400));
        assert_eq!(data_seqs(&out), vec![seg(0)]);
        let st = *s.ep.cc_state();
        assert_eq!((st.cwnd, st.ssthresh), (1000, 5000));
        // ACK of segment 0 (no sample): slow start, resend 1 and 2.
        let out = s.inject(ms(450), ack(seg(1)));
        assert_eq!(data_seqs(&out), vec![seg(1), seg(2)]);
    }

    // RFC 7323 §4.1: with timestamps every ACK of new data gives a sample from TSecr, even
    // for a retransmitted segment.
    #[test]
    fn timestamps_ack_of_retransmission_samples_echo() {
        let mut c = cfg(Variant::Reno);
        c.timestamps = true;
        c.initial_cwnd = 1;
        let mut s = Script::new(super::super::TcpSender::new(
            &c,
            SND,
            RCV,
            AppData::Unlimited,
        ));
        let mut out = crate::transport::Outbox::default();
        s.ep.open(Time::ZERO, &mut out);
        let syn = &out.packets[0].tcp().unwrap();
        assert!(syn.ts.is_some());
        let sa = crate::packet::TcpHeader {
            ts: Some(crate::packet::Timestamps {
                val: ms(50),
                ecr: Time::ZERO,
            }),
            ..syn_ack()
        };
        let sent = s.inject(ms(100), sa);
        assert_eq!(sent[0].ts.unwrap().ecr, ms(50), "TS.Recent echoed");
        let rtx = s.fire(ms(400));
        let val = rtx[0].ts.unwrap().val;
        let a = crate::packet::TcpHeader {
            ts: Some(crate::packet::Timestamps {
                val: ms(420),
                ecr: val,
            }),
            ..ack(seg(1))
        };
        s.inject(ms(440), a);
        // Sample 40 ms: SRTT = 7/8*100 + 1/8*40 = 92.5; RTTVAR = 3/4*50 + 1/4*60 = 52.5.
        assert_eq!(s.ep.srtt(), Some(Dur::from_micros(92_500)));
    }
}

mod receiver {
    use super::*;

    fn established(variant: Variant) -> Script<TcpReceiver> {
        let c = cfg(variant);
        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        let out = r.inject(
            ms(0),
            crate::packet::TcpHeader {
                sack_permitted: true,
                ..syn()
            },
        );
        assert_eq!(out.len(), 1);
        assert!(out[0].flags.contains(TcpFlags::SYN | TcpFlags::ACK));
        assert_eq!(out[0].ack, Seq(1));
        assert_eq!(out[0].sack_permitted, variant == Variant::Sack);
        r
    }

    // RFC 5681 §4.2: an out-of-order segment triggers an immediate duplicate ACK; only the
    // in-order bytes are delivered; filling the hole delivers the buffered bytes at once.
    #[test]
    fn established_out_of_order_dupack_and_exact_delivery() {
        let mut r = established(Variant::Reno);
        let out = r.inject(ms(1), data(seg(0), MSS));
        assert_eq!((out.len(), out[0].ack), (1, Seq(seg(1))));
        assert_eq!(r.delivered, 1000);
        let out = r.inject(ms(2), data(seg(2), MSS));
        assert_eq!((out.len(), out[0].ack), (1, Seq(seg(1))), "dup ACK");
        assert!(out[0].sack.is_empty(), "no SACK without negotiation");
        assert_eq!(r.delivered, 1000);
        let out = r.inject(ms(3), data(seg(1), MSS));
        assert_eq!(out[0].ack, Seq(seg(3)));
        assert_eq!(r.delivered, 3000);
        assert_eq!(r.ep.stats().bytes_delivered, 3000);
        assert_eq!(r.ep.stats().segments_received, 3);
    }

    // RFC 2018 §4: the first block holds the segment that triggered the ACK, then the most
    // recently reported blocks; a segment that advances the ACK is not reported.
    #[test]
    fn established_sack_blocks_most_recent_first() {
        let mut r = established(Variant::Sack);
        r.inject(ms(1), data(seg(0), MSS));
        let b = |o: &Vec<crate::packet::TcpHeader>| -> Vec<(u32, u32)> {
            o[0].sack
                .as_slice()
                .iter()
                .map(|&(l, r)| (l.0, r.0))
                .collect()
        };
        let o = r.inject(ms(2), data(seg(2), MSS));
        assert_eq!(b(&o), vec![(seg(2), seg(3))]);
        let o = r.inject(ms(3), data(seg(4), MSS));
        assert_eq!(b(&o), vec![(seg(4), seg(5)), (seg(2), seg(3))]);
        let o = r.inject(ms(4), data(seg(6), MSS));
        assert_eq!(
            b(&o),
            vec![(seg(6), seg(7)), (seg(4), seg(5)), (seg(2), seg(3))]
        );
        let o = r.inject(ms(5), data(seg(8), MSS));
        assert_eq!(
            b(&o),
            vec![(seg(8), seg(9)), (seg(6), seg(7)), (seg(4), seg(5))],
            "at most sack_blocks = 3"
        );
        // Segment 3 joins blocks 2 and 4: that block comes first, then the recent ones.
        let o = r.inject(ms(6), data(seg(3), MSS));
        assert_eq!(
            b(&o),
            vec![(seg(2), seg(5)), (seg(8), seg(9)), (seg(6), seg(7))]
        );
        // Segment 1 advances the ACK: no block for it; the rest remain, most recent first.
        let o = r.inject(ms(7), data(seg(1), MSS));
        assert_eq!(o[0].ack, Seq(seg(5)));
        assert_eq!(b(&o), vec![(seg(8), seg(9)), (seg(6), seg(7))]);
        assert_eq!(r.delivered, 5000);
    }

    // RFC 5681 §4.2: duplicates are acknowledged at once and counted.
    #[test]
    fn established_duplicate_segment_counted_and_acked() {
        let mut r = established(Variant::Sack);
        r.inject(ms(1), data(seg(0), MSS));
        let o = r.inject(ms(2), data(seg(0), MSS));
        assert_eq!((o.len(), o[0].ack), (1, Seq(seg(1))));
        r.inject(ms(3), data(seg(2), MSS));
        r.inject(ms(4), data(seg(2), MSS));
        assert_eq!(r.ep.stats().duplicate_segments, 2);
        assert_eq!(r.ep.stats().segments_received, 4);
        assert_eq!(r.delivered, 1000);
    }

    // RFC 5681 §4.2 / RFC 1122 §4.2.3.2: with delayed ACK, every second segment is ACKed at
    // once, a lone one after the delay.
    #[test]
    fn delayed_ack_second_segment_or_timeout() {
        let mut c = cfg(Variant::Reno);
        c.delayed_ack = Some(Dur::from_millis(200));
        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        r.inject(ms(0), syn());
        assert!(r.inject(ms(1), data(seg(0), MSS)).is_empty());
        assert_eq!(r.inject(ms(2), data(seg(1), MSS))[0].ack, Seq(seg(2)));
        assert!(r.inject(ms(3), data(seg(2), MSS)).is_empty());
        let o = r.fire(ms(203));
        assert_eq!(o[0].ack, Seq(seg(3)));
        // Out of order: immediate.
        assert_eq!(r.inject(ms(300), data(seg(4), MSS)).len(), 1);
    }

    // Issue 14 item 9: the receiver counts segments that advance its cumulative point
    // (in order with new bytes) apart from out-of-order and duplicate ones: 0 in order, 2
    // above the hole, 1 fills it (in order), 0 again and 2 again (duplicates).
    #[test]
    fn established_in_order_segments_split_from_duplicates_and_out_of_order() {
        let c = cfg(Variant::Reno);
        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        r.inject(ms(0), syn());
        for (t, s) in [(1, 0), (2, 2), (3, 1), (4, 0), (5, 2)] {
            r.inject(ms(t), data(seg(s), MSS));
        }
        let st = r.ep.stats();
        assert_eq!(st.segments_received, 5);
        assert_eq!(st.in_order_segments, 2);
        assert_eq!((st.out_of_order_segments, st.duplicate_segments), (1, 2));
        assert_eq!(st.bytes_delivered, 3 * MSS as u64);
    }

    // RFC 7323 §4.3: TS.Recent is taken from a segment covering Last.ACK.sent; an
    // out-of-order segment does not update it.
    #[test]
    fn timestamps_ts_recent_only_from_in_sequence_segments() {
        let mut c = cfg(Variant::Reno);
        c.timestamps = true;
        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        r.inject(ms(0), data_ts(0, 0, ms(0)).with_syn());
        let o = r.inject(ms(10), data_ts(seg(0), MSS, ms(5)));
        assert_eq!(o[0].ts.unwrap().ecr, ms(5));
        let o = r.inject(ms(20), data_ts(seg(2), MSS, ms(15)));
        assert_eq!(
            o[0].ts.unwrap().ecr,
            ms(5),
            "out of order: TS.Recent unchanged"
        );
    }
}

mod window_policy {
    use super::*;
    use crate::packet::{Packet, TcpHeader};
    use crate::transport::tcp::window::WindowPolicy;

    /// A test policy: records (seq, payload) of every segment it is shown, and advertises
    /// 64 000 B minus the payload bytes shown so far minus the bytes held out of order.
    #[derive(Debug, Default)]
    struct Recording {
        shown: Vec<(u32, u32)>,
        returned: Vec<u32>,
    }

    impl WindowPolicy for Recording {
        fn on_segment(&mut self, _now: Time, pkt: &Packet) {
            let h = pkt.tcp().expect("the receiver shows TCP segments only");
            self.shown.push((h.seq.0, h.payload));
        }
        fn advertised(&mut self, _now: Time, out_of_order_bytes: u32) -> u32 {
            let shown: u32 = self.shown.iter().map(|&(_, len)| len).sum();
            let w = 64_000 - shown - out_of_order_bytes;
            self.returned.push(w);
            w
        }
    }

    // DESIGN.md "Transport": the advertised window comes from a WindowPolicy that sees each
    // arriving segment. Every segment (SYN, in order, out of order, filling the hole,
    // duplicate) is shown to the policy in arrival order, before the window of the ACK it
    // triggers is computed; that ACK carries exactly what the policy returned.
    #[test]
    fn established_each_segment_shown_in_order_ack_carries_policy_window() {
        let c = cfg(Variant::Reno);
        let mut r = Script::new(TcpReceiver::with_window(&c, RCV, SND, Recording::default()));
        let script: [(u64, TcpHeader, u32, u32); 5] = [
            // (time ms, segment, expected ACK number, expected window)
            (0, syn(), 1, 64_000),
            (1, data(seg(0), MSS), seg(1), 63_000),
            // Out of order: 500 B held, so 64 000 − 1 500 − 500.
            (2, data(seg(2), 500), seg(1), 62_000),
            // Fills the hole: nothing held.
            (3, data(seg(1), MSS), seg(2) + 500, 61_500),
            // A duplicate is shown too.
            (4, data(seg(0), MSS), seg(2) + 500, 60_500),
        ];
        for (i, &(t, hdr, ack_no, wnd)) in script.iter().enumerate() {
            let o = r.inject(ms(t), hdr);
            assert_eq!(o.len(), 1, "one ACK for segment {i}");
            assert_eq!(o[0].ack, Seq(ack_no), "ACK number after segment {i}");
            assert_eq!(o[0].wnd, wnd, "window after segment {i}");
            assert_eq!(Some(&o[0].wnd), r.ep.window().returned.last());
            assert_eq!(r.ep.window().shown.len(), i + 1, "shown before its ACK");
        }
        let shown: Vec<(u32, u32)> = script.iter().map(|s| (s.1.seq.0, s.1.payload)).collect();
        assert_eq!(r.ep.window().shown, shown);
        assert_eq!(r.ep.window().returned.len(), 5, "one window per ACK");
    }
}

mod notices {
    use super::*;
    use crate::ids::{LinkId, NodeId};
    use crate::transport::{Notice, Outbox};

    const ALL: [Notice; 4] = [
        Notice::LinkDown { link: LinkId(0) },
        Notice::LinkUp { link: LinkId(0) },
        Notice::Detached { from: NodeId(1) },
        Notice::Attached { at: NodeId(2) },
    ];

    fn sender_state(s: &super::super::TcpSender) -> impl PartialEq + std::fmt::Debug {
        (
            s.state(),
            *s.cc_state(),
            (s.snd_una(), s.snd_max()),
            s.stats().clone(),
            s.cc_metrics(),
            (s.srtt(), s.next_timeout(), s.is_done()),
        )
    }

    // DESIGN.md "Kernel": on_event(now, notice, out) is a no-op by default, and TCP does not
    // act on notices yet: a sender with data in flight and a receiver holding out-of-order
    // data keep their exact state, send nothing, and go on exactly as twins that were told
    // nothing.
    #[test]
    fn established_any_notice_ignored_state_and_behaviour_unchanged() {
        let c = cfg(Variant::NewReno);
        let (mut told, _) = Script::established(&c, AppData::Bytes(30_000));
        let (mut twin, _) = Script::established(&c, AppData::Bytes(30_000));
        for s in [&mut told, &mut twin] {
            s.inject(ms(200), ack(seg(2)));
        }
        let before = sender_state(&told.ep);
        let mut out = Outbox::default();
        for n in &ALL {
            told.ep.on_event(ms(250), n, &mut out);
        }
        assert!(out.packets.is_empty() && out.delivered_bytes == 0);
        assert_eq!(sender_state(&told.ep), before);
        assert_eq!(sender_state(&told.ep), sender_state(&twin.ep));
        assert_eq!(
            told.inject(ms(300), ack(seg(5))),
            twin.inject(ms(300), ack(seg(5)))
        );
        let rto = twin.ep.next_timeout().expect("data in flight");
        assert_eq!(told.fire(rto), twin.fire(rto));
        assert_eq!(sender_state(&told.ep), sender_state(&twin.ep));

        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        r.inject(ms(0), syn());
        r.inject(ms(1), data(seg(0), MSS));
        r.inject(ms(2), data(seg(2), MSS));
        let rcv_state = |r: &TcpReceiver| {
            (
                r.rcv_nxt(),
                r.out_of_order_bytes(),
                r.stats().clone(),
                r.next_timeout(),
            )
        };
        let before = rcv_state(&r.ep);
        for n in &ALL {
            r.ep.on_event(ms(3), n, &mut out);
        }
        assert!(out.packets.is_empty() && out.delivered_bytes == 0);
        assert_eq!(rcv_state(&r.ep), before);
        let o = r.inject(ms(4), data(seg(1), MSS));
        assert_eq!(o[0].ack, Seq(seg(3)), "the held data is still there");
    }
}

trait WithSyn {
    fn with_syn(self) -> Self;
}
impl WithSyn for crate::packet::TcpHeader {
    fn with_syn(mut self) -> Self {
        self.flags = TcpFlags::SYN;
        self
    }
}

mod pair {
    use super::*;
    use proptest::prelude::*;

    // RFC 793 reliability: every byte delivered exactly once, in order, for each variant, with
    // scripted drops (including the first and last segments and a retransmission).
    #[test]
    fn pair_file_with_drops_delivered_exactly_each_variant() {
        for v in Variant::EVERY {
            let c = cfg(v);
            let n = 250_500;
            let mut p = Pair::new(&c, AppData::Bytes(n));
            p.drop_once = vec![seg(0), seg(40), seg(41), seg(43), seg(40), seg(250)];
            assert_file_delivered(&mut p, n);
        }
    }

    // RFC 6298 §5.5, RFC 793 §3.4: SYN and SYN-ACK loss are repaired by the RTO.
    #[test]
    fn pair_handshake_loss_retried() {
        let c = cfg(Variant::Sack);
        let mut p = Pair::new(&c, AppData::Bytes(10_000));
        p.loss = 0.5;
        p.loss_both_ways = true;
        p.seed(3);
        assert_file_delivered(&mut p, 10_000);
    }

    #[test]
    fn pair_bulk_no_loss_no_retransmission() {
        for v in Variant::EVERY {
            let mut c = cfg(v);
            c.timestamps = true;
            c.delayed_ack = Some(Dur::from_millis(100));
            let mut p = Pair::new(&c, AppData::Bytes(1_000_000));
            assert_file_delivered(&mut p, 1_000_000);
            assert_eq!(p.snd.stats().retransmits, 0, "{v}");
            assert_eq!(p.rcv.stats().duplicate_segments, 0);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        // Exact delivery with no panic under random loss in both directions.
        #[test]
        fn pair_random_loss_file_delivered_exactly(
            vi in 0usize..Variant::EVERY.len(),
            seed in any::<u64>(),
            loss in 0.0f64..0.2,
            size in 1u64..120_000,
            ts in any::<bool>(),
            delack in any::<bool>(),
        ) {
            let mut c = cfg(Variant::EVERY[vi]);
            c.timestamps = ts;
            c.delayed_ack = delack.then_some(Dur::from_millis(100));
            c.initial_cwnd = 2;
            let mut p = Pair::new(&c, AppData::Bytes(size));
            p.loss = loss;
            p.loss_both_ways = true;
            p.seed(seed);
            assert_file_delivered(&mut p, size);
        }
    }
}

mod ecn {
    //! RFC 3168 §6.1 (ECN in TCP) and spec 4 §2.6 (Reno + ECN as the DiffServ study needs it).
    use super::*;
    use crate::packet::{Ecn, TcpHeader};

    fn ecn_cfg(variant: Variant) -> crate::transport::tcp::TcpConfig {
        let mut c = cfg(variant);
        c.ecn = true;
        c
    }

    /// An ACK with ECE set.
    fn ece(n: u32) -> TcpHeader {
        ack(n).with_flags(TcpFlags::ECE)
    }

    fn has(h: &TcpHeader, f: TcpFlags) -> bool {
        h.flags.contains(f)
    }

    /// A receiver that has completed the ECN-setup handshake (RFC 3168 §6.1.1).
    fn receiver(c: &crate::transport::tcp::TcpConfig) -> Script<TcpReceiver> {
        let mut r = Script::new(TcpReceiver::new(c, RCV, SND));
        let sa = r.inject(ms(0), syn().with_flags(TcpFlags::ECE | TcpFlags::CWR));
        assert_eq!(has(&sa[0], TcpFlags::ECE), c.ecn);
        r
    }

    // RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR set; §6.1.1/§6.1.5: the SYN is not
    // ECT. Without `ecn` neither flag is set.
    #[test]
    fn syn_sent_ecn_enabled_syn_carries_ece_and_cwr_not_ect() {
        let (s, syn) = Script::opened(&ecn_cfg(Variant::Reno), AppData::Unlimited);
        assert!(has(&syn, TcpFlags::ECE | TcpFlags::CWR));
        assert_eq!(s.last_ecn, vec![Ecn::NotEct]);
        let (_, syn) = Script::opened(&cfg(Variant::Reno), AppData::Unlimited);
        assert!(!has(&syn, TcpFlags::ECE) && !has(&syn, TcpFlags::CWR));
    }

    // RFC 3168 §6.1.1: the receiver answers an ECN-setup SYN with an ECN-setup SYN-ACK (ECE
    // set, CWR clear) only if it is ECN-capable itself; the SYN-ACK is not ECT.
    #[test]
    fn listen_ecn_setup_syn_syn_ack_carries_ece_only_when_enabled() {
        for (rcv_ecn, syn_flags, want_ece) in [
            (true, TcpFlags::ECE | TcpFlags::CWR, true),
            (false, TcpFlags::ECE | TcpFlags::CWR, false),
            (true, TcpFlags::NONE, false),
        ] {
            let mut c = cfg(Variant::Reno);
            c.ecn = rcv_ecn;
            let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
            let sa = r.inject(ms(0), syn().with_flags(syn_flags));
            assert!(has(&sa[0], TcpFlags::SYN | TcpFlags::ACK));
            assert_eq!(
                has(&sa[0], TcpFlags::ECE),
                want_ece,
                "{rcv_ecn} {syn_flags:?}"
            );
            assert!(!has(&sa[0], TcpFlags::CWR), "CWR is never set on a SYN-ACK");
            assert_eq!(r.last_ecn, vec![Ecn::NotEct]);
        }
    }

    // RFC 3168 §6.1.1: ECN is used only if negotiated; a sender whose SYN-ACK lacks ECE (or
    // carries ECE and CWR together) sends Not-ECT data and ignores ECE.
    #[test]
    fn syn_sent_peer_did_not_agree_data_not_ect_and_ece_ignored() {
        for sa_flags in [TcpFlags::NONE, TcpFlags::ECE | TcpFlags::CWR] {
            let (mut s, _) = Script::opened(&ecn_cfg(Variant::Reno), AppData::Unlimited);
            let sent = s.inject(ms(100), syn_ack().with_flags(sa_flags));
            assert_eq!(data_seqs(&sent).len(), 10);
            assert!(s.last_ecn.iter().all(|&e| e == Ecn::NotEct), "{sa_flags:?}");
            s.inject(ms(200), ece(seg(1)));
            assert_eq!(s.ep.stats().ecn_reductions, 0);
            assert_eq!(s.ep.cc_state().cwnd, 11_000, "ordinary slow start");
        }
    }

    // RFC 3168 §6.1.2/§6.1.5: once negotiated, new data segments are ECT(0) (spec 4 §2.6:
    // "ECT on all data packets"), without CWR until a reduction.
    #[test]
    fn established_negotiated_new_data_ect0() {
        let (s, sent) = Script::established(&ecn_cfg(Variant::Reno), AppData::Unlimited);
        assert_eq!(data_seqs(&sent), (0..10).map(seg).collect::<Vec<_>>());
        assert_eq!(s.last_ecn, vec![Ecn::Ect0; 10]);
        assert!(sent.iter().all(|h| !has(h, TcpFlags::CWR)));
    }

    // RFC 3168 §6.1.3: after a CE data segment every ACK carries ECE (in-order, duplicate
    // and out-of-order alike) until a data segment with CWR arrives; then ECE stops. ACKs
    // are not ECT (§6.1.4).
    #[test]
    fn established_ce_data_every_ack_echoes_until_cwr() {
        let c = ecn_cfg(Variant::Reno);
        let mut r = receiver(&c);
        let o = r.inject_ecn(ms(1), data(seg(0), MSS), Ecn::Ce);
        assert!(has(&o[0], TcpFlags::ECE), "ACK of the CE segment");
        assert_eq!(r.ep.stats().ce_received, 1);
        for (t, sq) in [(2, 1), (3, 3), (4, 2), (5, 2)] {
            // In order, out of order (dupack), filling the hole, duplicate.
            let o = r.inject_ecn(ms(t), data(seg(sq), MSS), Ecn::Ect0);
            assert!(has(&o[0], TcpFlags::ECE), "segment {sq} still echoes");
            assert_eq!(r.last_ecn, vec![Ecn::NotEct]);
        }
        let o = r.inject_ecn(
            ms(6),
            data(seg(4), MSS).with_flags(TcpFlags::CWR),
            Ecn::Ect0,
        );
        assert!(!has(&o[0], TcpFlags::ECE), "CWR received: echo stops");
        let o = r.inject_ecn(ms(7), data(seg(5), MSS), Ecn::Ect0);
        assert!(!has(&o[0], TcpFlags::ECE));
        assert_eq!(r.ep.stats().ce_received, 1);
    }

    // RFC 3168 §6.1.3: a CE mark on the CWR segment itself (or after it) starts the echo
    // again.
    #[test]
    fn established_ce_on_cwr_segment_echo_restarts() {
        let c = ecn_cfg(Variant::Reno);
        let mut r = receiver(&c);
        r.inject_ecn(ms(1), data(seg(0), MSS), Ecn::Ce);
        let o = r.inject_ecn(ms(2), data(seg(1), MSS).with_flags(TcpFlags::CWR), Ecn::Ce);
        assert!(has(&o[0], TcpFlags::ECE));
        let o = r.inject_ecn(ms(3), data(seg(2), MSS), Ecn::Ect0);
        assert!(has(&o[0], TcpFlags::ECE));
        assert_eq!(r.ep.stats().ce_received, 2);
    }

    // RFC 3168 §6.1.3 / §6.1.1: without negotiation a CE mark is not echoed.
    #[test]
    fn established_not_negotiated_ce_not_echoed() {
        let mut r = Script::new(TcpReceiver::new(&ecn_cfg(Variant::Reno), RCV, SND));
        r.inject(ms(0), syn());
        let o = r.inject_ecn(ms(1), data(seg(0), MSS), Ecn::Ce);
        assert!(!has(&o[0], TcpFlags::ECE));
    }

    // RFC 3168 §6.1.3 (delayed ACK): a CE segment is acknowledged at once, with ECE, rather
    // than waiting for a second segment or the delayed-ACK timer.
    #[test]
    fn delayed_ack_ce_segment_acked_at_once() {
        let mut c = ecn_cfg(Variant::Reno);
        c.delayed_ack = Some(Dur::from_millis(200));
        let mut r = receiver(&c);
        assert!(r.inject_ecn(ms(1), data(seg(0), MSS), Ecn::Ect0).is_empty());
        assert_eq!(r.inject_ecn(ms(2), data(seg(1), MSS), Ecn::Ect0).len(), 1);
        let o = r.inject_ecn(ms(3), data(seg(2), MSS), Ecn::Ce);
        assert_eq!(o.len(), 1, "immediate ACK");
        assert_eq!(o[0].ack, Seq(seg(3)));
        assert!(has(&o[0], TcpFlags::ECE));
        assert_eq!(r.ep.next_timeout(), None, "no delayed ACK pending");
    }

    /// A Reno ECN sender with 10 segments out (seg 0..9, FlightSize 10000, cwnd 10000) that
    /// receives an ECE ACK of segment 0 at 200 ms.
    fn reduced() -> Script<super::super::TcpSender> {
        let (mut s, _) = Script::established(&ecn_cfg(Variant::Reno), AppData::Unlimited);
        let out = s.inject(ms(200), ece(seg(1)));
        assert!(out.is_empty(), "flight 9000 exceeds the reduced window");
        s
    }

    // RFC 3168 §6.1.2, spec 4 §2.6: an ECE halves the window, ssthresh = cwnd =
    // max(cwnd/2, 2 SMSS) (here cwnd = FlightSize = 10000), without retransmitting, without
    // entering recovery and without growing cwnd on ECE ACKs; the next new data segment
    // carries CWR (and ECT(0)); later ones do not.
    #[test]
    fn open_ece_halves_window_and_sets_cwr_on_next_new_data() {
        let mut s = reduced();
        let st = *s.ep.cc_state();
        assert_eq!((st.cwnd, st.ssthresh, st.phase), (5000, 5000, Phase::Open));
        assert_eq!(s.ep.stats().ecn_reductions, 1);
        // Stale ECE ACKs of segments 1-4: no growth, flight falls to 5000, nothing sent.
        for i in 2..=5 {
            assert!(s.inject(ms(200 + i as u64), ece(seg(i))).is_empty());
        }
        assert_eq!(s.ep.cc_state().cwnd, 5000, "no increase on ECE ACKs");
        let out = s.inject(ms(206), ece(seg(6)));
        assert_eq!(data_seqs(&out), vec![seg(10)]);
        assert!(has(&out[0], TcpFlags::CWR), "CWR on the first new segment");
        assert_eq!(s.last_ecn, vec![Ecn::Ect0]);
        let out = s.inject(ms(207), ece(seg(7)));
        assert_eq!(data_seqs(&out), vec![seg(11)]);
        assert!(!has(&out[0], TcpFlags::CWR), "CWR only once");
        assert_eq!(s.ep.stats().retransmits, 0, "no retransmission on a mark");
        assert_eq!(s.ep.stats().fast_retransmits, 0);
    }

    // RFC 3168 §6.1.2: at most one reduction per window: ECE ACKs up to and including the
    // snd_max of the reduction (segment 10) do not reduce again.
    #[test]
    fn open_second_ece_same_window_no_second_reduction() {
        let mut s = reduced();
        for i in 2..=10 {
            s.inject(ms(200 + i as u64), ece(seg(i)));
        }
        // A duplicate ACK with ECE below the point does not reduce either.
        s.inject(ms(211), ece(seg(10)));
        let st = *s.ep.cc_state();
        assert_eq!((st.cwnd, st.ssthresh), (5000, 5000));
        assert_eq!(s.ep.stats().ecn_reductions, 1);
    }

    // RFC 3168 §6.1.2, spec 4 §2.6: once the cumulative ACK covers data sent after the last
    // reduction, an ECE reduces again: ssthresh = max(min(cwnd, FlightSize)/2, 2 SMSS)
    // (cwnd 5200 after one congestion-avoidance ACK, FlightSize 5000 → 2500).
    #[test]
    fn open_ece_after_window_passed_reduces_again() {
        let mut s = reduced();
        for i in 2..=10 {
            s.inject(ms(200 + i as u64), ece(seg(i)));
        }
        // The receiver saw CWR on segment 10: the ACK of segment 10 carries no ECE and grows
        // cwnd in congestion avoidance (RFC 5681 §3.1 eq. 3: +1000·1000/5000).
        let out = s.inject(ms(211), ack(seg(11)));
        assert_eq!(s.ep.cc_state().cwnd, 5200);
        assert_eq!(data_seqs(&out), vec![seg(15)]);
        // Segment 11 (sent after the reduction) was marked.
        let out = s.inject(ms(212), ece(seg(12)));
        assert!(out.is_empty());
        let st = *s.ep.cc_state();
        assert_eq!((st.cwnd, st.ssthresh), (2500, 2500));
        assert_eq!(s.ep.stats().ecn_reductions, 2);
        // Flight 4000 -> 2000 after two more ACKs; then the next new segment carries CWR.
        s.inject(ms(213), ece(seg(13)));
        let out = s.inject(ms(214), ece(seg(14)));
        assert!(out.is_empty());
        let out = s.inject(ms(215), ece(seg(15)));
        assert_eq!(data_seqs(&out), vec![seg(16)]);
        assert!(has(&out[0], TcpFlags::CWR));
        assert_eq!(s.ep.stats().retransmits, 0);
    }

    // RFC 3168 §6.1.2: no reaction to ECE during fast recovery beyond the loss response;
    // §6.1.5: the fast retransmission is not ECT and has no CWR; §6.1.2: the window was
    // reduced (for a loss), so the first new segment afterwards carries CWR.
    #[test]
    fn recovery_ece_no_further_reduction_retransmission_not_ect() {
        let (mut s, _) = Script::established(&ecn_cfg(Variant::Reno), AppData::Unlimited);
        s.inject(ms(200), ack(1));
        s.inject(ms(200), ack(1));
        let out = s.inject(ms(200), ack(1));
        assert_eq!(data_seqs(&out), vec![seg(0)]);
        assert_eq!(s.last_ecn, vec![Ecn::NotEct], "retransmission is not ECT");
        assert!(!has(&out[0], TcpFlags::CWR));
        assert!(s.inject(ms(201), ece(1)).is_empty());
        let st = *s.ep.cc_state();
        assert_eq!((st.cwnd, st.ssthresh), (9000, 5000), "inflation only");
        assert_eq!(s.ep.stats().ecn_reductions, 0);
        s.inject(ms(202), ece(1));
        let out = s.inject(ms(203), ece(1));
        assert_eq!(data_seqs(&out), vec![seg(10)]);
        assert!(has(&out[0], TcpFlags::CWR));
        assert_eq!(s.last_ecn, vec![Ecn::Ect0]);
        assert_eq!(s.ep.stats().ecn_reductions, 0);
    }

    // RFC 3168 §6.1.5: go-back-N retransmissions after a timeout are not ECT; new data after
    // them is ECT(0), the first with CWR (§6.1.2: the timeout reduced the window).
    #[test]
    fn loss_timeout_retransmissions_not_ect_then_cwr_on_new_data() {
        let (mut s, _) = Script::established(&ecn_cfg(Variant::Reno), AppData::Unlimited);
        let out = s.fire(ms(400));
        assert_eq!(data_seqs(&out), vec![seg(0)]);
        assert_eq!(s.last_ecn, vec![Ecn::NotEct]);
        // An ECE during the loss phase does not reduce further.
        let out = s.inject(ms(450), ece(seg(1)));
        assert_eq!(data_seqs(&out), vec![seg(1)]);
        assert_eq!(s.last_ecn, vec![Ecn::NotEct]);
        assert_eq!(s.ep.stats().ecn_reductions, 0);
        let out = s.inject(ms(500), ack(seg(10)));
        assert_eq!(data_seqs(&out), vec![seg(10), seg(11)]);
        assert_eq!(s.last_ecn, vec![Ecn::Ect0, Ecn::Ect0]);
        assert!(has(&out[0], TcpFlags::CWR) && !has(&out[1], TcpFlags::CWR));
    }

    // spec 4 §2.6 / RFC 3168 §6.1.2 end to end: a bulk transfer whose data is CE-marked
    // every 50th segment completes without a single retransmission, every mark is received,
    // and the sender reduces once per marked window: the first mark (segment 49) is echoed
    // in slow start when about 90 segments are out, so the second (segment 99) falls in the
    // same window and is not reacted to; afterwards the window stays below 50 segments and
    // every mark reduces.
    #[test]
    fn pair_bulk_periodic_marks_no_retransmission_one_reduction_per_mark() {
        for v in [Variant::Reno, Variant::NewReno, Variant::Sack] {
            let c = ecn_cfg(v);
            let mut p = Pair::new(&c, AppData::Bytes(1_000_000));
            p.mark_every = 50;
            assert_file_delivered(&mut p, 1_000_000);
            let (snd, rcv) = (p.snd.stats(), p.rcv.stats());
            eprintln!("{v}: marked {} reductions {}", p.marked, snd.ecn_reductions);
            assert_eq!(p.marked, 20, "{v}");
            assert_eq!(rcv.ce_received, p.marked, "{v}");
            assert_eq!(snd.retransmits, 0, "{v}");
            assert_eq!((snd.timeouts, snd.fast_retransmits), (0, 0), "{v}");
            assert_eq!(snd.ecn_reductions, p.marked - 1, "{v}");
        }
    }

    // RFC 3168 §6.1.2: several marks within one window cause one reduction.
    #[test]
    fn pair_marks_in_one_window_one_reduction() {
        let c = ecn_cfg(Variant::Reno);
        let mut p = Pair::new(&c, AppData::Bytes(100_000));
        p.mark_once = vec![seg(30), seg(31), seg(35)];
        assert_file_delivered(&mut p, 100_000);
        assert_eq!(p.marked, 3);
        assert_eq!(p.snd.stats().ecn_reductions, 1);
        assert_eq!(p.snd.stats().retransmits, 0);
    }

    // RFC 3168 §6.1.1: a sender with ECN towards a receiver without it sends Not-ECT data,
    // so a marking router has nothing to mark.
    #[test]
    fn pair_receiver_without_ecn_nothing_marked() {
        let mut p = Pair::new(&ecn_cfg(Variant::Reno), AppData::Bytes(100_000));
        p.rcv = TcpReceiver::new(&cfg(Variant::Reno), RCV, SND);
        p.mark_every = 10;
        assert_file_delivered(&mut p, 100_000);
        assert_eq!(p.marked, 0);
        assert_eq!(p.snd.stats().ecn_reductions, 0);
    }
}

// Per-flow state stays compact (DESIGN: 100,000 concurrent flows). The sender limit was 320 B;
// ECN (RFC 3168) added 16 B: its negotiated state and the ecn_reductions counter; the time the
// connection was established (spec 3's transfer time excludes the handshake) another 16 B.
// The receiver limit was 192 B; study 2's base-station-buffer window (spec 2 §2.3) lives inline
// in `AnyWindow` (enum dispatch, no per-flow allocation): bounds, filter weight and rate-mode
// interval state, 56 B instead of the fixed window's 4, and the reconnection-ACK count (§2.4).
// Study 1 (spec 1 §2.5-2.6) added 64 B to the sender (the estimator enum with the BSD state
// and the adaptive floor, the send-buffer/timeout-abort/fast-retransmit options, the dupack
// and abort counters) and 8 B to the receiver (the window-update threshold).
// Issue 14 (ns-2.35 mechanisms) added 16 B to the sender: ns-2's `recover_` for the
// `after_loss` guard, the limited-transmit byte count and two option bytes; then 8 B to the
// sender (Sack1's pipe counter in the recovery enum) and 8 B to the receiver (the in-order
// segment count of the delivered split); then 8 B to the sender: the boxed `send_overhead`
// timer (ns-2 `overhead_`; `None`, no allocation, unless the option is set), its two probe
// flags and `fast_retransmit_stops_timing` fitting in padding (440 -> 448 B). Issue 17's BBR
// with SACK added 8 B: its per-segment delivery sample (the candidate send record, the
// cumulative delivered count and the recovery-window state) in the controller enum, which is
// as large as its largest controller (448 -> 456 B). Issue 15's sender clean-up (the BBR
// hooks and the `send_overhead` predicate: two probe flags out, one capability flag in)
// measures 448 B. Issue 14's `precision_reduce` added ns-2's `halfwin` (a u32) and two
// option flags (`sack1_clear_scoreboard`, `precision_reduce`): 448 -> 456 B. Issue 17's
// ns-3.37 TCP rules added 8 B: the boxed send-time history of `rtt_sampling =
// "every_segment"` (`None`, no allocation, by default), the `keep_sack_on_timeout` flag
// fitting in padding (456 -> 464 B). Merged with issue 14's `ns2_header_sizes` (the sender's
// `ns2_len` flag, which fitted in padding on its own branch) the flags no longer fit in the
// padding left: 464 -> 472 B. Issue 17's `lost_retransmit` added its boxed RACK state (8 B,
// `None` by default) and BBR's two option flags (in padding); `established_at` became a
// `Time` with a `Time::MAX` sentinel instead of an `Option<Time>` (16 -> 8 B): 472 B. Issue
// 17's PRR (`sack_recovery = "prr"`) added 8 B: its row of the recovery enum is a box (its
// counters inline would cost more), and a pointer makes the enum 16 B where its largest row
// (Sack1's u32 pipe) kept it at 8 (472 -> 480 B). ns-3.37's `sack_pipe` keeps its set of
// SACKed retransmissions in the same box as the `rtt_sampling` history (`Ns3State`, `None`
// when both options are off): no growth. Issue 33's RACK-TLP (`loss_detection`) and HyStart++
// (`slow_start`) each add a boxed state, `None` by default (480 -> 496 B); the
// `rto_backoff_reset` flag fits in padding. Issue 33's Linux ACK policy and D-SACK keep their
// receiver state in one box, `None` unless `ack_policy = "linux"` or `dsack` (inline it cost
// 80 B): the receiver grows by its pointer (248 -> 256 B at most). Issue 33's dialects: the
// sender keeps its rules as one `dialect::Dialect` (26 one-byte enums and flags, the
// construction-time choices and the receiver's ACK rules included, in place of 15 option
// bytes) and a `timer_opts` flag: 496 -> 512 B.
#[test]
fn endpoint_state_sizes_are_compact() {
    let snd = std::mem::size_of::<super::TcpSender>();
    let rcv = std::mem::size_of::<TcpReceiver>();
    eprintln!("TcpSender {snd} B, TcpReceiver {rcv} B");
    assert!(snd <= 512 && rcv <= 256, "sender {snd} B, receiver {rcv} B");
}

mod cubic {
    //! RFC 9438 CUBIC through the sender: the reduction is 0.7 of the FlightSize NewReno
    //! halves on the same loss (identical slow start up to it), and recovery ends at it.
    use super::*;

    fn ssthresh_after_one_drop(v: Variant) -> (u64, u64, u64) {
        let mut c = cfg(v);
        c.initial_cwnd = 2;
        let mut p = Pair::new(&c, AppData::Bytes(60_000));
        p.drop_once = vec![seg(20)];
        assert_file_delivered(&mut p, 60_000);
        let m = p.snd.cc_metrics();
        (p.snd.stats().fast_retransmits, m.ssthresh, m.cwnd)
    }

    // RFC 9438 §4.6 (ssthresh = flight_size·β_cubic) vs RFC 5681 §3.1 eq. 4 (FlightSize/2).
    #[test]
    fn cubic_reduces_to_seven_tenths_where_newreno_halves() {
        let (fr_n, ss_n, _) = ssthresh_after_one_drop(Variant::NewReno);
        let (fr_c, ss_c, cwnd_c) = ssthresh_after_one_drop(Variant::Cubic);
        assert_eq!((fr_n, fr_c), (1, 1));
        let flight = 2 * ss_n;
        assert_eq!(ss_c, flight * 7 / 10, "newreno ssthresh {ss_n}");
        // Congestion avoidance after recovery grew cwnd from ssthresh, never below it.
        assert!(cwnd_c >= ss_c);
    }
}

// The window loop (`TcpSender::window_loop`) against the application it asks for data, per
// segment: the segments at a file's end and after a stop mid-transfer.
mod app_view {
    use super::super::tests_atm::segs;
    use super::*;

    // RFC 793 §3.7 (Data Communication: data are sent in segments of at most the MSS, the
    // last one short): a 2,500-byte file within the initial window goes as 1000 + 1000 + 500
    // in one loop, the application has given exactly its 2,500 bytes, and nothing more is
    // sent; done when all is acknowledged (RFC 6298 §5.2: the timer stops).
    #[test]
    fn one_loop_takes_a_file_to_its_end() {
        let c = cfg(Variant::Reno);
        let (mut s, sent) = Script::established(&c, AppData::Bytes(2500));
        assert_eq!(segs(&sent), vec![(1, 1000), (1001, 1000), (2001, 500)]);
        assert_eq!((s.ep.app().taken(), s.ep.app().available()), (2500, 0));
        assert!(s.inject(ms(200), ack(seg(1))).is_empty());
        assert!(s.inject(ms(210), ack(2501)).is_empty());
        assert!(s.ep.is_done());
        assert_eq!(s.ep.next_timeout(), None);
    }

    // DESIGN.md "Events" (App stop) and `TcpSender::stop_app`: after a stop mid-transfer no
    // new byte is sent, however much the window opens, and the bytes already taken are still
    // resent in full segments by go-back-N after a timeout (RFC 5681 §3.1: cwnd one SMSS,
    // then slow start) up to snd_max and not beyond.
    #[test]
    fn stop_mid_transfer_resends_only_what_was_taken() {
        let c = cfg(Variant::Reno);
        let (mut s, sent) = Script::established(&c, AppData::Unlimited);
        assert_eq!(data_seqs(&sent), (0..10).map(seg).collect::<Vec<_>>());
        s.ep.stop_app(ms(150));
        assert!(
            s.inject(ms(200), ack(seg(5))).is_empty(),
            "slow start would send 10 new segments"
        );
        assert_eq!((s.ep.app().taken(), s.ep.app().available()), (10_000, 0));
        let rto = s.ep.next_timeout().expect("data outstanding");
        assert_eq!(data_seqs(&s.fire(rto)), vec![seg(5)]);
        let t = rto + Dur::from_millis(10);
        assert_eq!(data_seqs(&s.inject(t, ack(seg(6)))), vec![seg(6), seg(7)]);
        // cwnd 3 SMSS from snd_una = segment 8 would reach segment 10, which was never taken.
        assert_eq!(
            segs(&s.inject(t + Dur::from_millis(1), ack(seg(8)))),
            vec![(seg(8), 1000), (seg(9), 1000)]
        );
        assert_eq!(s.ep.app().taken(), 10_000);
        assert!(s.inject(t + Dur::from_millis(2), ack(seg(10))).is_empty());
        assert!(s.ep.is_done());
        assert_eq!(s.ep.next_timeout(), None);
    }
}
