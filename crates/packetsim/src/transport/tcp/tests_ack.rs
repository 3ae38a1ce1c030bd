//! The receiver's ACK policy as Linux runs it (`ack_policy = "linux"`, issue 33) and D-SACK
//! (RFC 2883): scripted segment sequences on `testkit` (MSS 1000, segment i starts at
//! `seg(i)`), each checking the exact ACKs (which, when, with which blocks) and citing the
//! Linux function (`net/ipv4/tcp_input.c`, `tcp_timer.c`) or RFC rule it follows.

use super::testkit::*;
use super::*;
use crate::packet::TcpHeader;
use crate::transport::Endpoint;
use packetsim_kernel::Time;

/// A SACK receiver with Linux's ACK policy, D-SACK and the window `wnd`, its SYN answered at
/// 0 (so the first segment's arrival gives the handshake RTT).
fn linux_rcv(wnd: u64) -> Script<TcpReceiver> {
    let mut c = cfg(Variant::Sack);
    c.ack_policy = AckPolicy::Linux;
    c.dsack = true;
    c.rcv_window = wnd;
    assert_eq!(c.validate(), Ok(()));
    let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
    let o = r.inject(
        ms(0),
        TcpHeader {
            sack_permitted: true,
            ..syn()
        },
    );
    assert!(o[0].sack_permitted);
    r
}

/// The ACK numbers of `o`.
fn acks(o: &[TcpHeader]) -> Vec<u32> {
    o.iter().map(|h| h.ack.0).collect()
}

/// The SACK blocks of the only ACK in `o`.
fn blocks(o: &[TcpHeader]) -> Vec<(u32, u32)> {
    assert_eq!(o.len(), 1, "one ACK");
    o[0].sack
        .as_slice()
        .iter()
        .map(|&(l, r)| (l.0, r.0))
        .collect()
}

fn at_us(us: u64) -> Time {
    Time(us * 1000)
}

// Quick-ACK mode at the start (`tcp_event_data_recv` → `tcp_incr_quickack`): window 100 kB /
// (2 × rcv_mss 1000) = 50, capped at TCP_MAX_QUICKACKS = 16: segments 0-15 are each ACKed at
// once. Then (`__tcp_ack_snd_check`) segment 16 waits for the timer (one segment, not "more
// than one full frame"), 17 is ACKed at once (2000 bytes > rcv_mss), 18 waits: ato 40 ms
// (TCP_ATO_MIN; 1 ms gaps keep ato/2 + 20 ms = 40 ms), so its ACK goes at 118 + 40 ms.
// The timer that fires doubles ato (`tcp_delack_timer_handler`): 80 ms. Segment 19 at 300 ms
// (gap 182 ms: neither below ato nor above the RTO) waits 80 ms (`tcp_send_delayed_ack`: 80 <
// max(RTT 100 ms, 40 ms)); its timer doubles ato to 160 ms. Segment 20 at 600 ms (gap 300 ms
// = RTO, not above it) waits min(160, RTT 100) = 100 ms; that timer raises ato to
// min(320, RTO 300 ms). Segment 21 at 1100 ms, 500 ms after the last (above the RTO of
// 100 + max(2 × 100, 200) = 300 ms, `__tcp_set_rto` after one sample): quick-ACK mode again,
// ACKed at once.
#[test]
fn quick_acks_at_start_then_every_second_segment_and_an_rtt_bounded_timer() {
    let mut r = linux_rcv(100_000);
    for i in 0..16 {
        let o = r.inject(ms(100 + i as u64), data(seg(i), MSS));
        assert_eq!(acks(&o), vec![seg(i + 1)], "quick ACK of segment {i}");
    }
    assert!(r.inject(ms(116), data(seg(16), MSS)).is_empty());
    assert_eq!(r.ep.next_timeout(), Some(ms(156)));
    assert_eq!(acks(&r.inject(ms(117), data(seg(17), MSS))), vec![seg(18)]);
    assert_eq!(r.ep.next_timeout(), None);
    assert!(r.inject(ms(118), data(seg(18), MSS)).is_empty());
    assert_eq!(acks(&r.fire(ms(158))), vec![seg(19)]);
    assert!(r.inject(ms(300), data(seg(19), MSS)).is_empty());
    assert_eq!(acks(&r.fire(ms(380))), vec![seg(20)]);
    assert!(r.inject(ms(600), data(seg(20), MSS)).is_empty());
    assert_eq!(acks(&r.fire(ms(700))), vec![seg(21)]);
    assert_eq!(acks(&r.inject(ms(1100), data(seg(21), MSS))), vec![seg(22)]);
    assert_eq!(r.ep.stats().acks_sent, 1 + 16 + 1 + 1 + 1 + 1 + 1);
}

// `tcp_incr_quickack` with a small window: 3000 / (2 × 1000) = 1 quick ACK. A pure receiver's
// RTT is the handshake's (1 s here: RTO 1 + max(2, 0.2) = 3 s). The timer's cap: ato above 40
// ms is capped at max(RTT, 40 ms) and at 500 ms (HZ/2), or 200 ms (TCP_DELACK_MAX) when a
// segment shorter than rcv_mss arrived since the last ACK (ICSK_ACK_PUSHED,
// `tcp_measure_rcv_mss`). ato doubles at each timer (40, 80, 160, 320, 640 ms); a gap below
// ato gives ato/2 + gap (`tcp_event_data_recv`).
#[test]
fn delayed_ack_timer_capped_at_500_ms_or_200_ms_when_pushed() {
    let mut r = linux_rcv(3000);
    assert_eq!(
        acks(&r.inject(ms(1000), data(seg(0), MSS))),
        vec![seg(1)],
        "the one quick ACK"
    );
    let mut t = 1001;
    // (arrival, expected timer) with ato 40, 80, 160, 320 ms.
    for (i, wait) in [(1u32, 40u64), (2, 80), (3, 160), (4, 320)] {
        assert!(r.inject(ms(t), data(seg(i), MSS)).is_empty());
        assert_eq!(acks(&r.fire(ms(t + wait))), vec![seg(i + 1)]);
        t += wait + 400;
    }
    // ato 640 ms now: capped at 500 ms.
    assert!(r.inject(ms(t), data(seg(5), MSS)).is_empty());
    assert_eq!(acks(&r.fire(ms(t + 500))), vec![seg(6)]);
    // ato 1280 ms; a 500-byte segment 1500 ms after the last (no change: not below ato, not
    // above the RTO), pushed: 200 ms.
    let t = t + 500 + 1000;
    assert!(r.inject(ms(t), data(seg(6), 500)).is_empty());
    assert_eq!(acks(&r.fire(ms(t + 200))), vec![seg(6) + 500]);
}

// `tcp_send_delayed_ack` with a timer already set: the earlier deadline stands, and when it
// is within a quarter of the new ato the ACK goes at once. Short segments of alternating
// sizes (never "more than one full frame" of 1000 bytes; two equal short sizes in a row would
// make that size rcv_mss, `tcp_measure_rcv_mss`) after the quick ACKs (window 2000: one).
#[test]
fn pending_delayed_ack_kept_or_sent_when_about_to_expire() {
    let mut r = linux_rcv(2000);
    assert_eq!(acks(&r.inject(ms(100), data(seg(0), MSS))).len(), 1);
    let s = seg(1);
    // 300 bytes at 200 ms: ato 40 ms → timer at 240 ms.
    assert!(r.inject(ms(200), data(s, 300)).is_empty());
    assert_eq!(r.ep.next_timeout(), Some(ms(240)));
    // 200 bytes 10 ms later: ato 40/2 + 20 = 40 ms, new deadline 250 ms; 240 ms is earlier
    // and not within 10 ms (ato/4): kept.
    assert!(r.inject(ms(210), data(s + 300, 200)).is_empty());
    assert_eq!(r.ep.next_timeout(), Some(ms(240)));
    assert_eq!(acks(&r.fire(ms(240))), vec![s + 500]);
    // Timer fired: ato 80 ms. 300 bytes at 300 ms (gap 90 ms ≥ ato): timer at 300 + min(80,
    // max(RTT 100, 40)) = 380 ms. 200 bytes at 365 ms (gap 65 < 80): ato = 40 + 65 = 105 ms,
    // capped at RTT 100 ms; 380 <= 365 + 25: ACK at once.
    assert!(r.inject(ms(300), data(s + 500, 300)).is_empty());
    assert_eq!(r.ep.next_timeout(), Some(ms(380)));
    assert_eq!(acks(&r.inject(ms(365), data(s + 800, 200))), vec![s + 1000]);
    assert_eq!(r.ep.next_timeout(), None);
}

// RFC 5681 §4.2 as Linux does it: out-of-order segments are ACKed at once (`__tcp_ack_snd_check`
// with out-of-order data), so is the one that fills the hole (ICSK_ACK_NOW in
// `tcp_data_queue`); a duplicate segment is ACKed at once with a D-SACK block of its range
// (`tcp_dsack_set`, RFC 2883 §4) and enters quick-ACK mode again (`tcp_enter_quickack_mode`:
// window 6000 / 2000 = 3 quick ACKs, one spent on that ACK).
#[test]
fn out_of_order_hole_fill_and_duplicate_acked_at_once_with_dsack() {
    let mut r = linux_rcv(6000);
    for i in 0..3 {
        assert_eq!(
            acks(&r.inject(ms(10 + i as u64), data(seg(i), MSS))),
            vec![seg(i + 1)]
        );
    }
    assert!(r.inject(ms(13), data(seg(3), MSS)).is_empty(), "delayed");
    let o = r.inject(ms(14), data(seg(5), MSS));
    assert_eq!(acks(&o), vec![seg(4)], "out of order: at once");
    assert_eq!(blocks(&o), vec![(seg(5), seg(6))]);
    assert_eq!(r.ep.next_timeout(), None, "the delayed ACK went with it");
    let o = r.inject(ms(15), data(seg(4), MSS));
    assert_eq!(acks(&o), vec![seg(6)], "hole filled: at once");
    assert!(blocks(&o).is_empty());
    assert!(
        r.inject(ms(16), data(seg(6), MSS)).is_empty(),
        "delayed again"
    );
    // Segment 2 again: its range as the D-SACK block, the ACK at once.
    let o = r.inject(ms(20), data(seg(2), MSS));
    assert_eq!(acks(&o), vec![seg(7)]);
    assert_eq!(blocks(&o), vec![(seg(2), seg(3))]);
    // Quick-ACK mode: two more at once, then delayed.
    assert_eq!(acks(&r.inject(ms(21), data(seg(7), MSS))), vec![seg(8)]);
    assert_eq!(acks(&r.inject(ms(22), data(seg(8), MSS))), vec![seg(9)]);
    assert!(r.inject(ms(23), data(seg(9), MSS)).is_empty());
    assert_eq!(r.ep.next_timeout(), Some(ms(63)));
    // The D-SACK is reported once: the timer's ACK has no block.
    assert!(blocks(&r.fire(ms(63))).is_empty());
}

// RFC 2883 §4: a duplicate of out-of-order data is reported as the D-SACK block followed by
// the SACK block that holds it (§4 rule 2: the second block is the larger block containing
// the duplicate); a segment straddling rcv_nxt reports its part below rcv_nxt (Linux
// `tcp_data_queue`: `tcp_dsack_set(seq, rcv_nxt)`). The next ACK carries no D-SACK.
#[test]
fn dsack_of_out_of_order_duplicate_and_of_a_straddling_segment() {
    let mut r = linux_rcv(100_000);
    r.inject(ms(10), data(seg(0), MSS));
    let o = r.inject(ms(11), data(seg(2), MSS));
    assert_eq!(blocks(&o), vec![(seg(2), seg(3))]);
    let o = r.inject(ms(12), data(seg(3), MSS));
    assert_eq!(blocks(&o), vec![(seg(2), seg(4))]);
    let o = r.inject(ms(13), data(seg(3), MSS));
    assert_eq!(acks(&o), vec![seg(1)]);
    assert_eq!(blocks(&o), vec![(seg(3), seg(4)), (seg(2), seg(4))]);
    assert_eq!(r.ep.stats().duplicate_segments, 1);
    // The hole filled: ACK of segment 4's end, no blocks.
    let o = r.inject(ms(14), data(seg(1), MSS));
    assert_eq!((acks(&o), blocks(&o)), (vec![seg(4)], vec![]));
    // [seg(3) + 500, seg(4) + 500): its first 500 bytes are old.
    let o = r.inject(ms(15), data(seg(3) + 500, MSS));
    assert_eq!(acks(&o), vec![seg(4) + 500]);
    assert_eq!(blocks(&o), vec![(seg(3) + 500, seg(4))]);
    let o = r.inject(ms(16), data(seg(5), MSS));
    assert_eq!(blocks(&o), vec![(seg(5), seg(6))], "no D-SACK repeated");
}

// D-SACK is its own key: with the standard ACK policy a duplicate's ACK carries it too; off
// (the default), the ACK has no block (the behaviour before the key); without SACK
// negotiated, none either, and the configuration is refused naming the key.
#[test]
fn dsack_with_the_standard_policy_and_off_by_default() {
    for dsack in [true, false] {
        let mut c = cfg(Variant::Sack);
        c.dsack = dsack;
        let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
        r.inject(
            ms(0),
            TcpHeader {
                sack_permitted: true,
                ..syn()
            },
        );
        r.inject(ms(1), data(seg(0), MSS));
        let o = r.inject(ms(2), data(seg(0), MSS));
        assert_eq!(acks(&o), vec![seg(1)]);
        let want: Vec<(u32, u32)> = if dsack {
            vec![(seg(0), seg(1))]
        } else {
            vec![]
        };
        assert_eq!(blocks(&o), want);
    }
    let c = TcpConfig {
        dsack: true,
        ..cfg(Variant::NewReno)
    };
    assert_eq!(c.validate().unwrap_err().0, "dsack");
    let c = TcpConfig {
        ack_policy: AckPolicy::Linux,
        delayed_ack: Some(packetsim_kernel::Dur::from_millis(40)),
        ..cfg(Variant::Sack)
    };
    assert_eq!(c.validate().unwrap_err().0, "ack_policy");
}

// The standard policy is unchanged by the new state: `delayed_ack` = 200 ms still ACKs every
// second segment, and a lone one after exactly 200 ms (µs arithmetic, no Linux ato).
#[test]
fn standard_delayed_ack_unchanged() {
    let mut c = cfg(Variant::Reno);
    c.delayed_ack = Some(packetsim_kernel::Dur::from_millis(200));
    let mut r = Script::new(TcpReceiver::new(&c, RCV, SND));
    r.inject(ms(0), syn());
    for i in 0..3 {
        assert!(r
            .inject(at_us(1000 + 2 * i as u64), data(seg(2 * i), MSS))
            .is_empty());
        assert_eq!(
            acks(&r.inject(at_us(1001 + 2 * i as u64), data(seg(2 * i + 1), MSS))),
            vec![seg(2 * i + 2)]
        );
    }
    assert!(r.inject(ms(2), data(seg(6), MSS)).is_empty());
    assert_eq!(acks(&r.fire(ms(202))), vec![seg(7)]);
}
