//! Scripted tests of the study-1 TCP options (spec 1 §2.4-2.6). Conventions of `testkit`:
//! MSS 1000, segment `i` starts at `seg(i)`; established at 100 ms with a 100 ms RTT sample,
//! so RTO = 100 + 4·50 = 300 ms (RFC 6298 §2.2).

use super::cc::Phase;
use super::testkit::*;
use super::{AppData, TcpReceiver, TcpSender, Variant};
use crate::app::AppSource;
use crate::transport::Endpoint;
use packetsim_kernel::Dur;

// spec 1 §2.5: fast retransmit off: duplicate ACKs are counted, nothing is resent and the
// phase stays Open; only the timer recovers (go-back-N from snd_una with cwnd = 1 MSS).
#[test]
fn fast_retransmit_off_dupacks_ignored_timer_recovers() {
    let c = super::TcpConfig {
        fast_retransmit: false,
        ..cfg(Variant::Reno)
    };
    let (mut s, sent) = Script::established(&c, AppData::Unlimited);
    assert_eq!(data_seqs(&sent).len(), 10);
    for i in 0..6 {
        assert!(s.inject(ms(200 + i), ack(1)).is_empty());
    }
    assert_eq!(s.ep.stats().dupacks, 6);
    assert_eq!(s.ep.stats().fast_retransmits, 0);
    assert_eq!(s.ep.cc_state().phase, Phase::Open);
    let out = s.fire(ms(400));
    assert_eq!(data_seqs(&out), vec![seg(0)]);
    assert_eq!(s.ep.cc_state().cwnd, MSS);
}

// spec 1 §2.5: unacknowledged data never exceeds the send buffer (3500 B: three 1000-byte
// segments, the fourth would make 4000), whatever cwnd allows.
#[test]
fn send_buffer_limits_flight() {
    let c = super::TcpConfig {
        send_buffer: Some(3500),
        ..cfg(Variant::Reno)
    };
    let (mut s, sent) = Script::established(&c, AppData::Unlimited);
    assert_eq!(data_seqs(&sent), vec![seg(0), seg(1), seg(2)]);
    let out = s.inject(ms(200), ack(seg(1)));
    assert_eq!(data_seqs(&out), vec![seg(3)], "one acked, one more");
}

// spec 1 §2.5: after `max_timeouts` consecutive timeouts without progress the connection is
// aborted: counted, nothing more is sent and no timer remains. Timeouts at 400 ms (RTO 300),
// 1000 ms (600), 2200 ms (1200): the third aborts.
#[test]
fn aborts_after_max_consecutive_timeouts() {
    let c = super::TcpConfig {
        max_timeouts: Some(3),
        ..cfg(Variant::Reno)
    };
    let (mut s, _) = Script::established(&c, AppData::Unlimited);
    assert_eq!(data_seqs(&s.fire(ms(400))), vec![seg(0)]);
    assert_eq!(data_seqs(&s.fire(ms(1000))), vec![seg(0)]);
    assert!(!s.ep.stats().aborted);
    assert!(s.fire(ms(2200)).is_empty());
    assert!(s.ep.stats().aborted);
    assert_eq!(s.ep.next_timeout(), None);
    assert!(
        s.inject(ms(2300), ack(seg(1))).is_empty(),
        "aborted: silent"
    );
}

// spec 1 §2.5: the BSD estimator through the sender: RTT 100 ms = 100 ticks -> RTO =
// 100 + 400 = 500 ms, so the first timeout is at 100 + 500 ms.
#[test]
fn bsd_estimator_sets_sender_timer() {
    let c = super::TcpConfig {
        rtt_estimator: super::RttEstimatorKind::Bsd,
        ..cfg(Variant::Reno)
    };
    let (s, _) = Script::established(&c, AppData::Unlimited);
    assert_eq!(s.ep.next_timeout(), Some(ms(600)));
    assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(500));
}

// spec 1 §2.6, RFC 1122 §4.2.3.3: with delayed ACK and the window-update rule a full-sized
// in-order segment (window reopens by 1 MSS) is acknowledged at once; a 400-byte one waits for
// the 200 ms delayed-ACK timer. Without the rule the full segment waits too.
#[test]
fn receiver_window_update_acks_full_segment_at_once() {
    for (rule, immediate) in [(true, 1), (false, 0)] {
        let c = super::TcpConfig {
            delayed_ack: Some(Dur::from_millis(200)),
            ack_window_update: rule,
            ..cfg(Variant::Reno)
        };
        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        assert_eq!(r.inject(ms(0), syn()).len(), 1);
        let out = r.inject(ms(10), data(seg(0), MSS));
        assert_eq!(out.len(), immediate, "rule {rule}");
        if rule {
            assert_eq!(out[0].ack.0, seg(1));
            assert!(r.inject(ms(20), data(seg(1), 400)).is_empty());
            assert_eq!(r.ep.next_timeout(), Some(ms(220)));
        }
    }
}

// spec 1 §2.4-2.5: a sender fed by a frame source (2500 B every 2 ms into a 6000 B buffer,
// resume at 4000) sends full segments only, follows the source's clock, stops when the
// buffer is full and resumes when the ACK drains it.
#[test]
fn frame_source_drives_sender_full_segments_only() {
    let c = cfg(Variant::Reno);
    let app = AppSource::frames(2500, Dur::from_millis(2), 6000, 4000);
    let mut s = Script::new(TcpSender::with_app(&c, SND, RCV, app));
    s.ep.open(ms(0), &mut Default::default());
    assert!(
        s.fire(ms(0)).is_empty(),
        "2500 B written, not yet established"
    );
    let out = s.inject(ms(1), syn_ack());
    assert_eq!(
        data_seqs(&out),
        vec![seg(0), seg(1)],
        "the 500 B tail waits"
    );
    // 2 ms: 5000 written, the tail and the new block make three full segments.
    assert_eq!(data_seqs(&s.fire(ms(2))), vec![seg(2), seg(3), seg(4)]);
    // 4 ms: room for 1000 of the 2500: buffer full (6000), paused.
    assert_eq!(data_seqs(&s.fire(ms(4))), vec![seg(5)]);
    // RTT 1 ms from the SYN: RTO = rto_min 200 ms from the first data at 1 ms.
    assert_eq!(
        s.ep.next_timeout(),
        Some(ms(201)),
        "only the RTO: the source is paused"
    );
    // All 6000 acked: resume, the other 1500 written (7500); one full segment goes.
    let out = s.inject(ms(5), ack(seg(6)));
    assert_eq!(data_seqs(&out), vec![seg(6)]);
    assert_eq!(s.ep.next_timeout(), Some(ms(6)), "the source's clock again");
}

/// (start, length) of each data segment.
pub(super) fn segs(hs: &[crate::packet::TcpHeader]) -> Vec<(u32, u32)> {
    hs.iter()
        .filter(|h| h.payload > 0)
        .map(|h| (h.seq.0, h.payload))
        .collect()
}

// YATS `tcpipsend::calc_send` (RFC 1122 §4.2.3.4 condition (2) with Nagle off): a segment
// shorter than MSS is sent when it carries all the data in the send buffer and the usable
// window reaches the end of that data (`max_to_send_offset == max_buf_offset`); one the
// window cuts short still waits. Same source and script as
// `frame_source_drives_sender_full_segments_only`, with `push_buffered`.
#[test]
fn push_buffered_sends_the_buffer_tail_when_the_window_reaches_it() {
    let c = super::TcpConfig {
        push_buffered: true,
        ..cfg(Variant::Reno)
    };
    let app = AppSource::frames(2500, Dur::from_millis(2), 6000, 4000);
    let mut s = Script::new(TcpSender::with_app(&c, SND, RCV, app));
    s.ep.open(ms(0), &mut Default::default());
    assert!(s.fire(ms(0)).is_empty());
    // 2500 B written: two full segments and the 500 B tail.
    let out = s.inject(ms(1), syn_ack());
    assert_eq!(
        segs(&out),
        vec![(seg(0), MSS), (seg(1), MSS), (seg(2), 500)]
    );
    // 2 ms: 5000 written: 2000 more full, the new 500 B tail.
    assert_eq!(
        segs(&s.fire(ms(2))),
        vec![
            (seg(2) + 500, MSS),
            (seg(3) + 500, MSS),
            (seg(4) + 500, 500)
        ]
    );
    // 4 ms: room for 1000 of the next 2500 (buffer 6000 full): one full segment, paused.
    assert_eq!(segs(&s.fire(ms(4))), vec![(seg(5), MSS)]);
    // All 6000 acked, but the peer's window is 1200: the source resumes (1500 more, 7500);
    // 6000-7000 fits, the 500 B tail would end at 1500 > 1200 past snd_una: it waits.
    let mut a = ack(seg(6));
    a.wnd = 1200;
    assert_eq!(segs(&s.inject(ms(5), a)), vec![(seg(6), MSS)]);
    // The window opens: the tail goes.
    assert_eq!(
        segs(&s.inject(ms(5) + Dur::from_micros(100), ack(seg(6)))),
        vec![(seg(7), 500)]
    );
}
