//! DCTCP (RFC 8257) through the endpoints: the receiver's per-segment echo (§3.2), the
//! sender's α per observation window and its proportional cut (§3.3-3.4), and a pair run
//! through a step-marking queue (mark above K packets, §1 / the DCTCP paper's switch).

use super::testkit::*;
use super::{AppData, EcnEcho, TcpReceiver, Variant};
use crate::packet::{Ecn, Seq, TcpFlags, TcpHeader};
use packetsim_kernel::{Dur, Time};

fn has_ece(h: &TcpHeader) -> bool {
    h.flags.contains(TcpFlags::ECE)
}

/// A receiver of `variant`'s configuration after the ECN-setup handshake (RFC 3168 §6.1.1).
fn receiver(variant: Variant, delayed_ack: Option<Dur>) -> Script<TcpReceiver> {
    let mut c = cfg(variant);
    c.ecn = true;
    c.delayed_ack = delayed_ack;
    let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
    let sa = r.inject(ms(0), syn().with_flags(TcpFlags::ECE | TcpFlags::CWR));
    assert!(has_ece(&sa[0]), "ECN-setup SYN-ACK");
    r
}

/// Segment `i`, CE-marked or not, with or without CWR, at `at` ms: the ACKs sent as
/// (ack number, ECE).
fn feed(r: &mut Script<TcpReceiver>, at: u64, i: u32, ce: bool, cwr: bool) -> Vec<(u32, bool)> {
    let h = if cwr {
        data(seg(i), MSS).with_flags(TcpFlags::CWR)
    } else {
        data(seg(i), MSS)
    };
    let ecn = if ce { Ecn::Ce } else { Ecn::Ect0 };
    r.inject_ecn(ms(at), h, ecn)
        .iter()
        .map(|h| (h.ack.0, has_ece(h)))
        .collect()
}

// RFC 8257 §3.2 without delayed ACK: each ACK's ECE is its segment's CE mark; CWR changes
// nothing. RFC 3168 §6.1.3 (the default echo) instead latches ECE from a CE segment until a
// CWR segment.
#[test]
fn per_segment_echo_mirrors_each_segments_mark_and_ignores_cwr() {
    let mut r = receiver(Variant::Dctcp, None);
    assert_eq!(feed(&mut r, 1, 0, true, false), vec![(seg(1), true)]);
    assert_eq!(feed(&mut r, 2, 1, false, false), vec![(seg(2), false)]);
    assert_eq!(feed(&mut r, 3, 2, true, true), vec![(seg(3), true)]);
    assert_eq!(feed(&mut r, 4, 3, false, true), vec![(seg(4), false)]);
    assert_eq!(feed(&mut r, 5, 4, false, false), vec![(seg(5), false)]);

    let mut r = receiver(Variant::Reno, None);
    assert_eq!(feed(&mut r, 1, 0, true, false), vec![(seg(1), true)]);
    assert_eq!(feed(&mut r, 2, 1, false, false), vec![(seg(2), true)]);
    assert_eq!(feed(&mut r, 3, 2, false, true), vec![(seg(3), false)]);
}

// RFC 8257 §3.2 with delayed ACK (every second segment, 100 ms): a change of CE state first
// acknowledges the waiting segments with the old ECE; segments of one state are acknowledged
// together as usual, and a CE segment is not acknowledged at once for its mark alone.
#[test]
fn per_segment_echo_with_delayed_ack_acks_at_once_on_a_change_of_state() {
    let mut r = receiver(Variant::Dctcp, Some(Dur::from_millis(100)));
    assert_eq!(feed(&mut r, 1, 0, false, false), vec![]);
    // 0 → 1 with segment 0 waiting: ACK it at once, without ECE; segment 1 waits.
    assert_eq!(feed(&mut r, 2, 1, true, false), vec![(seg(1), false)]);
    assert_eq!(feed(&mut r, 3, 2, true, false), vec![(seg(3), true)]);
    // 1 → 0 with nothing waiting: no extra ACK.
    assert_eq!(feed(&mut r, 4, 3, false, false), vec![]);
    assert_eq!(feed(&mut r, 5, 4, false, false), vec![(seg(5), false)]);
    // A lone CE segment waits for the delayed-ACK timer, then is acknowledged with ECE.
    assert_eq!(feed(&mut r, 6, 5, true, false), vec![]);
    let acks: Vec<_> = r
        .fire(ms(106))
        .iter()
        .map(|h| (h.ack.0, has_ece(h)))
        .collect();
    assert_eq!(acks, vec![(seg(6), true)]);

    // RFC 3168 §6.1.3 (the default): the CE segment is acknowledged at once.
    let mut r = receiver(Variant::Reno, Some(Dur::from_millis(100)));
    assert_eq!(feed(&mut r, 1, 0, false, false), vec![]);
    assert_eq!(feed(&mut r, 2, 1, true, false), vec![(seg(2), true)]);
}

// RFC 8257 §3.3-3.4 through the sender (initial_ssthresh 10 000: congestion avoidance from
// the start, 10 segments out at 100 ms). α = 1 at first; the first ACK closes the first
// observation window (M = 0: α = 15/16, WindowEnd = snd_max = 10 001). The first ECE ACK cuts
// cwnd 10 100 to ⌊10 100·(1 − 15/32)⌋ = 5365 (ssthresh too) once for the window (RFC 3168
// §6.1.2); the next ECE ACK does not cut, and ECE ACKs do not grow cwnd. The ACK that passes
// WindowEnd closes the window: 2000 of 10 000 bytes marked, α = 15/16·15/16 + 1/16·1/5; the
// next ECE ACK beyond the reduction's recovery point cuts with that α.
#[test]
fn sender_alpha_per_window_and_cut_once_per_window() {
    let mut c = cfg(Variant::Dctcp);
    c.initial_ssthresh = Some(10_000);
    let (mut s, sent) = Script::established(&c, AppData::Unlimited);
    assert_eq!(sent.len(), 10);
    let dctcp = |s: &Script<super::TcpSender>| s.ep.cc().as_dctcp().unwrap().clone();
    assert_eq!(dctcp(&s).alpha(), 1.0);

    let sent = s.inject(ms(200), ack(seg(1)));
    assert_eq!(data_seqs(&sent), vec![seg(10)]);
    assert_eq!(dctcp(&s).alpha(), 15.0 / 16.0);
    assert_eq!(dctcp(&s).window_end(), Seq(seg(10)));
    assert_eq!(s.ep.cc_metrics().cwnd, 10_100);

    let ece = |n| ack(n).with_flags(TcpFlags::ECE);
    assert!(s.inject(ms(201), ece(seg(2))).is_empty());
    assert_eq!(
        (s.ep.cc_metrics().cwnd, s.ep.cc_metrics().ssthresh),
        (5365, 5365)
    );
    assert_eq!(s.ep.stats().ecn_reductions, 1);
    assert!(s.inject(ms(202), ece(seg(3))).is_empty());
    assert_eq!(
        s.ep.cc_metrics().cwnd,
        5365,
        "one cut per window, no growth"
    );
    assert_eq!(s.ep.stats().ecn_reductions, 1);
    assert_eq!(dctcp(&s).counters(), (2000, 2000));

    // Seven unmarked ACKs up to WindowEnd grow cwnd by ⌊SMSS²/cwnd⌋ each (RFC 5681).
    let mut cwnd = 5365u64;
    for i in 4..=10 {
        s.inject(ms(199 + i as u64), ack(seg(i)));
        cwnd += 1_000_000 / cwnd;
        assert_eq!(s.ep.cc_metrics().cwnd, cwnd);
    }
    assert_eq!(cwnd, 6554);
    assert_eq!(dctcp(&s).counters(), (9000, 2000));
    assert_eq!(dctcp(&s).alpha(), 15.0 / 16.0);
    let snd_max = s.ep.snd_max();

    s.inject(ms(210), ack(seg(11)));
    let a: f64 = 15.0 / 16.0;
    let alpha = a * (1.0 - 1.0 / 16.0) + (1.0 / 16.0) * (2000.0 / 10_000.0);
    assert_eq!(dctcp(&s).alpha(), alpha);
    assert_eq!(dctcp(&s).window_end(), snd_max);
    cwnd += 1_000_000 / cwnd;
    assert_eq!(s.ep.cc_metrics().cwnd, cwnd);

    // ACK 12 001 is beyond the recovery point 11 001 of the first cut.
    s.inject(ms(211), ece(seg(12)));
    let cut = (cwnd as f64 * (1.0 - alpha / 2.0)).floor() as u64;
    assert_eq!(s.ep.cc_metrics().cwnd, cut);
    assert_eq!(s.ep.stats().ecn_reductions, 2);
}

// RFC 8257 §3.1: DCTCP is only defined with ECN, and needs the §3.2 echo.
#[test]
fn validate_rejects_dctcp_without_ecn_or_per_segment_echo() {
    let mut c = cfg(Variant::Dctcp);
    assert_eq!(c.validate(), Ok(()));
    c.ecn = false;
    assert_eq!(c.validate().unwrap_err().0, "ecn");
    c.ecn = true;
    c.ecn_echo = EcnEcho::Rfc3168;
    assert_eq!(c.validate().unwrap_err().0, "ecn_echo");
    c.ecn_echo = EcnEcho::PerSegment;
    c.dctcp_g = 0.0;
    assert_eq!(c.validate().unwrap_err().0, "dctcp_g");
    c.dctcp_g = 1.5;
    assert_eq!(c.validate().unwrap_err().0, "dctcp_g");
}

/// A 4 MB transfer over the pair (10 Mb/s, 10 ms each way: BDP 25 kB) whose forward queue
/// marks CE above `k` packets; returns (completion time, mean queue after 1 s, pair).
fn through_step_marker(variant: Variant, k: u32) -> (Time, f64, Pair) {
    let mut c = cfg(variant);
    c.ecn = true;
    let bytes = 4_000_000;
    let mut p = Pair::new(&c, AppData::Bytes(bytes));
    p.mark_queue_at = k;
    assert_file_delivered(&mut p, bytes);
    let done = p.now;
    let late: Vec<u32> = p
        .queue_samples
        .iter()
        .filter(|(t, _)| *t >= Time::from_millis(1000))
        .map(|&(_, q)| q)
        .collect();
    let mean = late.iter().map(|&q| q as f64).sum::<f64>() / late.len() as f64;
    (done, mean, p)
}

// RFC 8257 §1 (and the DCTCP paper): with a step-marking queue, DCTCP keeps the queue near K
// and the link busy without loss; NewReno with RFC 3168 ECN halves on every marked window.
#[test]
fn dctcp_through_a_step_marking_queue_holds_the_queue_near_k() {
    let k = 10;
    let (t_d, q_d, p_d) = through_step_marker(Variant::Dctcp, k);
    let (t_r, q_r, p_r) = through_step_marker(Variant::NewReno, k);
    eprintln!(
        "dctcp: done {t_d}, mean queue {q_d:.2}, cuts {}, alpha {:.3}; newreno+ecn: done {t_r}, \
         mean queue {q_r:.2}, cuts {}",
        p_d.snd.stats().ecn_reductions,
        p_d.snd.cc().as_dctcp().unwrap().alpha(),
        p_r.snd.stats().ecn_reductions,
    );
    assert_eq!(p_d.snd.stats().retransmits, 0);
    assert!(p_d.snd.stats().ecn_reductions > 10);
    let alpha = p_d.snd.cc().as_dctcp().unwrap().alpha();
    assert!(alpha > 0.0 && alpha < 0.5, "alpha {alpha}");
    assert!(
        (k as f64 - 3.0..=k as f64 + 3.0).contains(&q_d),
        "mean queue {q_d}"
    );
    assert!(t_d < t_r, "dctcp {t_d} newreno {t_r}");
}
