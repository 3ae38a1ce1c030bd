//! Scripted tests for study 2's TCP side (spec 2 §2.3, §2.4): the base-station-buffer window,
//! a sender facing a shrinking window, Triplicate Reconnection ACKs and the post-timeout
//! fast-retransmit guard. Each test cites the rule it checks.

use super::cc::Phase;
use super::testkit::*;
use super::{AppData, BsBufferConfig, BsBufferMode, RecoverGuard, TcpConfig, TcpReceiver, Variant};
use crate::ids::LinkId;
use crate::packet::{Seq, TcpHeader};
use crate::transport::{Endpoint, Notice};
use packetsim_kernel::Dur;

/// W_max = 16 KiB, the spec's default (spec 2 §6 Q1).
const W_MAX: u32 = 16_384;

fn bs_cfg(alpha: f64, mode: BsBufferMode) -> TcpConfig {
    TcpConfig {
        bs_buffer: Some(BsBufferConfig {
            alpha,
            mode,
            ..BsBufferConfig::default()
        }),
        ..cfg(Variant::Reno)
    }
}

/// A receiver that has answered the SYN at 0; also returns the SYN-ACK's window.
fn receiver(c: &TcpConfig) -> (Script<TcpReceiver>, u32) {
    let mut r = Script::new(TcpReceiver::new(c, RCV, SND));
    let sa = r.inject(ms(0), syn());
    assert_eq!(sa.len(), 1);
    (r, sa[0].wnd)
}

/// The windows of the ACKs in `hs`.
fn wnds(hs: &[TcpHeader]) -> Vec<u32> {
    hs.iter().map(|h| h.wnd).collect()
}

mod bs_buffer_window {
    use super::*;

    // spec 2 §2.3 item 2: target = clamp(W_max − Q, W_min, W_max), rwnd = a·target +
    // (1 − a)·rwnd_old with a = 0.5, initial rwnd = W_max, rounded down to a whole byte;
    // W_min = 1 MSS; item 1: a data segment without a report keeps the last value.
    #[test]
    fn established_scripted_occupancies_give_exact_filtered_rwnd() {
        let (mut r, syn_ack_wnd) = receiver(&bs_cfg(0.5, BsBufferMode::Occupancy));
        assert_eq!(syn_ack_wnd, W_MAX, "initial rwnd_old = W_max");
        // (queue report, advertised window of the ACK the segment triggers)
        let script: [(Option<u32>, u32); 10] = [
            (Some(0), 16_384),    // target 16384
            (Some(4000), 14_384), // target 12384: (12384 + 16384) / 2
            (Some(8000), 11_384), // target 8384: (8384 + 14384) / 2
            (Some(16_000), 6192), // W_max − Q = 384, clamped up to W_min = 1000
            (Some(20_000), 3596), // Q > W_max: target W_min
            (Some(15_385), 2298), // W_max − Q = 999 < W_min
            (None, 2298),         // no report: keep the last value
            (Some(0), 9341),      // (16384 + 2298) / 2
            (Some(1), 12_862),    // (16383 + 9341) / 2
            (Some(3), 14_621),    // (16381 + 12862) / 2 = 14621.5, rounded down
        ];
        for (i, &(q, want)) in script.iter().enumerate() {
            let out = r.inject_report(ms(10 + i as u64), data(seg(i as u32), MSS), q);
            assert_eq!(out.len(), 1, "one ACK per segment");
            assert_eq!(
                (out[0].ack, out[0].wnd),
                (Seq(seg(i as u32 + 1)), want),
                "step {i}"
            );
            assert!((MSS..=W_MAX).contains(&out[0].wnd), "within [W_min, W_max]");
        }
        // A duplicate data segment with a report updates the window too: the base station
        // sent it.
        let out = r.inject_report(ms(30), data(seg(0), MSS), Some(16_384));
        assert_eq!(wnds(&out), vec![(1000 + 14_621) / 2]);
    }

    // spec 2 §2.3 items 2-3: with a = 1 there is no filter; rwnd tracks W_max − Q exactly,
    // bounded by W_min = 1 MSS and W_max.
    #[test]
    fn established_alpha_one_tracks_occupancy_exactly() {
        let (mut r, _) = receiver(&bs_cfg(1.0, BsBufferMode::Occupancy));
        let qs = [0u32, 5000, 15_384, 1, 12_345, 15_385, 40_000, 7];
        let want = [16_384u32, 11_384, 1000, 16_383, 4039, 1000, 1000, 16_377];
        let mut got = vec![];
        for (i, &q) in qs.iter().enumerate() {
            got.extend(wnds(&r.inject_report(
                ms(10 + i as u64),
                data(seg(i as u32), MSS),
                Some(q),
            )));
        }
        assert_eq!(got, want);
    }

    // spec 2 §2.3 item 2: the receiver accepts any data it had allowed when the window shrinks
    // (and the ACKs keep the policy's window).
    #[test]
    fn established_window_shrunk_data_beyond_new_edge_still_accepted() {
        let (mut r, _) = receiver(&bs_cfg(1.0, BsBufferMode::Occupancy));
        // Window 16384 allowed segments 0..16; Q = 15384 shrinks it to 1000 at segment 0.
        assert_eq!(
            wnds(&r.inject_report(ms(10), data(seg(0), MSS), Some(15_384))),
            vec![1000]
        );
        // Segment 5, beyond the new right edge seg(1) + 1000 and out of order, is buffered.
        let out = r.inject_report(ms(11), data(seg(5), MSS), None);
        assert_eq!((out[0].ack, out[0].wnd), (Seq(seg(1)), 1000));
        assert_eq!(r.ep.out_of_order_bytes(), MSS);
        // Segments 1-4 fill the hole; everything through segment 5 is delivered.
        for i in 1..5 {
            r.inject_report(ms(12), data(seg(i), MSS), None);
        }
        assert_eq!(r.ep.rcv_nxt(), Seq(seg(6)));
        assert_eq!(r.delivered, 6 * MSS as u64);
    }

    // spec 2 §2.3 and §6 Q2, rate mode with τ = 100 ms: target = bytes received in the last
    // interval + MSS, the same filter; one step per whole interval, empty ones with 0 bytes.
    #[test]
    fn established_rate_mode_interval_bytes_give_exact_rwnd() {
        let (mut r, _) = receiver(&bs_cfg(0.5, BsBufferMode::Rate));
        // Queue reports are ignored in rate mode.
        let w = |r: &mut Script<TcpReceiver>, t: u64, i: u32| {
            wnds(&r.inject_report(ms(t), data(seg(i), MSS), Some(10_000)))[0]
        };
        assert_eq!(w(&mut r, 10, 0), W_MAX, "opens interval [10, 110) ms");
        assert_eq!(w(&mut r, 60, 1), W_MAX);
        // Closes [10, 110) with 2000 bytes: target 3000, (3000 + 16384) / 2.
        assert_eq!(w(&mut r, 110, 2), 9692);
        // 3 intervals ended by 460 ms: [110, 210) with 1000 bytes, then two empty ones.
        // (2000 + 9692) / 2 = 5846; (1000 + 5846) / 2 = 3423; (1000 + 3423) / 2 = 2211.
        assert_eq!(w(&mut r, 460, 3), 2211);
        // [410, 510) held 1000 bytes: (2000 + 2211) / 2 = 2105.
        assert_eq!(w(&mut r, 510, 4), 2105);
    }
}

mod shrinking_window {
    use super::*;

    fn ack_w(n: u32, wnd: u32) -> TcpHeader {
        TcpHeader { wnd, ..ack(n) }
    }

    // RFC 9293 §3.8.6 (RFC 1122 §4.2.2.16): a sender must cope with a window whose right edge
    // moves left: it sends nothing beyond snd_una + wnd, keeps what it already sent (no
    // revocation, no retransmission), and resumes when the window reopens. spec 2 §2.3 item 2.
    #[test]
    fn established_right_edge_moves_left_sends_nothing_until_reopened() {
        let (mut s, sent) = Script::established(&cfg(Variant::Reno), AppData::Unlimited);
        assert_eq!(data_seqs(&sent), (0..10).map(seg).collect::<Vec<_>>());
        // Right edge seg(2) + 3000 = seg(5), below snd_max = seg(10).
        assert!(s.inject(ms(200), ack_w(seg(2), 3000)).is_empty());
        // Right edge seg(7): still below snd_max.
        assert!(s.inject(ms(210), ack_w(seg(4), 3000)).is_empty());
        let rto = s.ep.cc_metrics().rto;
        assert_eq!(s.ep.next_timeout(), Some(ms(210) + rto), "timer runs on");
        // Right edge seg(11): exactly one new segment fits.
        assert_eq!(
            data_seqs(&s.inject(ms(230), ack_w(seg(8), 3000))),
            vec![seg(10)]
        );
        // Right edge seg(10) < snd_max = seg(11): nothing.
        assert!(s.inject(ms(240), ack_w(seg(9), 1000)).is_empty());
        // A window update (same ACK, larger window) reopens it: right edge seg(12).
        assert_eq!(
            data_seqs(&s.inject(ms(245), ack_w(seg(9), 3000))),
            vec![seg(11)]
        );
        // Right edge seg(17): five more.
        assert_eq!(
            data_seqs(&s.inject(ms(250), ack_w(seg(12), 5000))),
            (12..17).map(seg).collect::<Vec<_>>()
        );
        let st = s.ep.stats();
        assert_eq!(
            (st.retransmits, st.fast_retransmits, st.timeouts),
            (0, 0, 0)
        );
        assert_eq!(s.ep.cc_state().phase, Phase::Open);
        assert_eq!(s.ep.snd_max(), Seq(seg(17)));
    }
}

mod reconnection_acks {
    use super::*;

    const UP: Notice = Notice::LinkUp { link: LinkId(0) };

    // spec 2 §2.4: when the link comes back up the receiver sends three identical ACKs of the
    // highest in-order byte, each carrying the current rwnd (here the BS-buffer window).
    #[test]
    fn established_link_up_sends_three_identical_acks_with_current_rwnd() {
        let c = TcpConfig {
            reconnection_acks: 3,
            ..bs_cfg(0.5, BsBufferMode::Occupancy)
        };
        let (mut r, _) = receiver(&c);
        r.inject_report(ms(10), data(seg(0), MSS), Some(4000));
        r.inject_report(ms(20), data(seg(1), MSS), Some(8000));
        assert!(r
            .notify(ms(30), Notice::LinkDown { link: LinkId(0) })
            .is_empty());
        let out = r.notify(ms(2000), UP);
        assert_eq!(out.len(), 3);
        assert!(out.iter().all(|h| *h == out[0]), "identical");
        assert_eq!(
            (out[0].ack, out[0].wnd, out[0].payload),
            (Seq(seg(2)), 11_384, 0)
        );
        assert_eq!(r.ep.stats().acks_sent, 1 + 2 + 3);
    }

    // spec 2 §2.4: off by default (reconnection_acks = 0); and never before the connection
    // exists.
    #[test]
    fn link_up_default_or_unestablished_sends_nothing() {
        let (mut r, _) = receiver(&cfg(Variant::Reno));
        r.inject(ms(10), data(seg(0), MSS));
        assert!(r.notify(ms(2000), UP).is_empty());
        let c = TcpConfig {
            reconnection_acks: 3,
            ..cfg(Variant::Reno)
        };
        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        assert!(r.notify(ms(2000), UP).is_empty());
    }

    /// A Reno sender whose 10 segments sent at 100 ms are all lost in an outage, timed out
    /// twice (at 400 ms and 1000 ms, each retransmitting segment 0, also lost); the next
    /// backed-off timeout is due at 2200 ms.
    fn backed_off_sender(
        guard: RecoverGuard,
        same_window: bool,
    ) -> Script<super::super::TcpSender> {
        let c = TcpConfig {
            recover_guard: guard,
            dupack_same_window: same_window,
            ..cfg(Variant::Reno)
        };
        let (mut s, _) = Script::established(&c, AppData::Unlimited);
        assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(300));
        assert_eq!(data_seqs(&s.fire(ms(400))), vec![seg(0)]);
        assert_eq!(data_seqs(&s.fire(ms(1000))), vec![seg(0)]);
        assert_eq!(
            s.ep.next_timeout(),
            Some(ms(2200)),
            "RTO backed off to 1.2 s"
        );
        assert_eq!(
            s.ep.cc_state().phase,
            Phase::Loss {
                recover: Seq(seg(10))
            }
        );
        s
    }

    // spec 2 §2.4 (guard off, ns-2 bugFix_ off): the three reconnection ACKs are three
    // duplicate ACKs; the third triggers exactly one fast retransmit of segment 0 at once and
    // Reno fast recovery (RFC 5681 §3.2: ssthresh = max(FlightSize/2, 2 SMSS) = 5000, cwnd =
    // ssthresh + 3 SMSS), without waiting for the backed-off timer. The window then also
    // lets go-back-N resend segments 1-7 (snd_nxt was left at segment 1 by the timeouts).
    #[test]
    fn loss_backed_off_three_reconnection_acks_fast_retransmit_at_once_without_guard() {
        let mut s = backed_off_sender(RecoverGuard::None, true);
        assert!(s.inject(ms(1500), ack(1)).is_empty());
        assert!(s.inject(ms(1500), ack(1)).is_empty());
        let out = s.inject(ms(1500), ack(1));
        assert_eq!(data_seqs(&out), (0..8).map(seg).collect::<Vec<_>>());
        assert_eq!(s.ep.stats().fast_retransmits, 1, "exactly one");
        let st = *s.ep.cc_state();
        assert_eq!((st.ssthresh, st.cwnd), (5000, 8000));
        assert_eq!(
            st.phase,
            Phase::Recovery {
                recover: Seq(seg(10))
            }
        );
        // Fast retransmit restarts the timer with the (still backed-off) RTO.
        assert_eq!(s.ep.next_timeout(), Some(ms(1500) + Dur::from_millis(1200)));
    }

    // RFC 5681 §2 condition (e): an ACK whose window differs from the last one is not a
    // duplicate, so reconnection ACKs carrying a window the sender has not seen (its last
    // ACK was lost in the outage) count as two dupacks and trigger nothing; with
    // `dupack_same_window = false` (ns-2, spec 2 §2.4) all three count.
    #[test]
    fn loss_backed_off_reconnection_acks_new_window_need_dupack_window_check_off() {
        for (same_window, fast_retransmits) in [(true, 0), (false, 1)] {
            let mut s = backed_off_sender(RecoverGuard::None, same_window);
            let tr = TcpHeader {
                wnd: W_MAX,
                ..ack(1)
            };
            let mut sent = vec![];
            for _ in 0..3 {
                sent.extend(data_seqs(&s.inject(ms(1500), tr)));
            }
            assert_eq!(
                s.ep.stats().fast_retransmits,
                fast_retransmits,
                "{same_window}"
            );
            let want: Vec<u32> = match fast_retransmits {
                0 => vec![],
                // cwnd 8000 and the new window 16384: segments 0-7 as above.
                _ => (0..8).map(seg).collect(),
            };
            assert_eq!(sent, want, "{same_window}");
        }
    }

    // RFC 6582 §4.1 (ns-2 bugFix_ on, the default): duplicate ACKs below `recover` after a
    // timeout cause no fast retransmit, so the reconnection ACKs change nothing and the
    // sender waits for its backed-off timer.
    #[test]
    fn loss_backed_off_three_reconnection_acks_nothing_with_guard() {
        let mut s = backed_off_sender(RecoverGuard::AfterTimeout, true);
        for _ in 0..3 {
            assert!(s.inject(ms(1500), ack(1)).is_empty());
        }
        assert_eq!(s.ep.stats().fast_retransmits, 0);
        assert_eq!(s.ep.next_timeout(), Some(ms(2200)));
        assert_eq!(data_seqs(&s.fire(ms(2200))), vec![seg(0)]);
    }
}
