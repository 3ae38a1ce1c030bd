//! Linux's loss detection and RTO rules as options (issue 33): `rto_backoff_reset`,
//! `loss_detection = "rack" | "rack_tlp"` (RFC 8985). Scripted segment sequences on
//! `testkit` (MSS 1000, segment i starts at `seg(i)`), each checking the exact outcome and
//! citing the RFC section or Linux function it follows.

use super::cc::Phase;
use super::testkit::*;
use super::*;
use crate::packet::Seq;
use crate::transport::Endpoint;
use packetsim_kernel::Dur;

/// A NewReno sender without timestamps (Karn's rule decides the samples), established at
/// 100 ms (SRTT 100 ms, RTO 300 ms), its first ten segments out, then two timeouts (RTO 400
/// ms and 1000 ms, the second with the RTO backed off to 1.2 s); then an ACK of the
/// retransmitted segment 0 at 1050 ms. Returns the timer that ACK sets.
fn timer_after_two_timeouts_and_an_ack(reset: RtoBackoffReset) -> Option<packetsim_kernel::Time> {
    let mut c = cfg(Variant::NewReno);
    c.rto_backoff_reset = reset;
    let (mut s, sent) = Script::established(&c, AppData::Unlimited);
    assert_eq!(data_seqs(&sent).len(), 10);
    assert_eq!(data_seqs(&s.fire(ms(400))), vec![seg(0)]);
    assert_eq!(data_seqs(&s.fire(ms(1000))), vec![seg(0)]);
    assert_eq!(s.ep.cc_metrics().rto, Dur::from_millis(1200));
    s.inject(ms(1050), ack(seg(1)));
    s.ep.next_timeout()
}

// RFC 6298 §5.5 and Karn: the ACK of a retransmitted segment gives no sample, so the backoff
// stays (timer at 1050 + 1200 ms). Linux (`rto_backoff_reset = "new_ack"`): the ACK of new
// data clears it (`tcp_ack_update_rtt` sets `icsk_backoff = 0`): 1050 + 300 ms.
#[test]
fn rto_backoff_cleared_by_ack_of_new_data_only_with_new_ack() {
    assert_eq!(
        timer_after_two_timeouts_and_an_ack(RtoBackoffReset::Sample),
        Some(ms(2250))
    );
    assert_eq!(
        timer_after_two_timeouts_and_an_ack(RtoBackoffReset::NewAck),
        Some(ms(1350))
    );
}

#[test]
fn linux_keys_parse_and_validate() {
    let c: TcpConfig = toml::from_str(
        "variant = \"sack\"\nrto_backoff_reset = \"new_ack\"\nloss_detection = \"rack_tlp\"",
    )
    .unwrap();
    assert_eq!(c.rto_backoff_reset, RtoBackoffReset::NewAck);
    assert_eq!(c.loss_detection, LossDetection::RackTlp);
    assert_eq!(c.validate(), Ok(()));
    let d = TcpConfig::default();
    assert!(!toml::to_string(&d).unwrap().contains("loss_detection"));
    let bad = TcpConfig {
        loss_detection: LossDetection::Rack,
        ..cfg(Variant::NewReno)
    };
    assert_eq!(bad.validate().unwrap_err().0, "loss_detection");
    assert!(toml::from_str::<TcpConfig>("loss_detection = \"fack\"").is_err());
}

/// A SACK sender with `loss_detection = ld`, IW `iw`, established at 100 ms (SRTT 100 ms,
/// RTO 300 ms), its first window sent at 100 ms.
fn rack_sender(ld: LossDetection, iw: u32, app: AppData) -> Script<TcpSender> {
    let mut c = cfg(Variant::Sack);
    c.loss_detection = ld;
    c.initial_cwnd = iw;
    let (s, sent) = Script::established(&c, app);
    assert_eq!(data_seqs(&sent), (0..iw).map(seg).collect::<Vec<_>>());
    s
}

// RFC 8985 §6.2 steps 4-5 and §6.3: segment 1 is SACKed at 200 ms (RACK.rtt 100 ms, min_RTT
// 100 ms); segment 0, sent at the same time below it, is lost only once RACK.rtt + reo_wnd
// has passed since its send time. With one segment SACKed and no reordering seen, reo_wnd is
// min_RTT/4 = 25 ms (Linux `tcp_rack_reo_wnd`), so the reordering timer fires at 100 + 100 +
// 25 = 225 ms, marks it lost and enters recovery with its retransmission.
#[test]
fn rack_reordering_timer_marks_loss_after_rtt_plus_quarter_min_rtt() {
    let mut s = rack_sender(LossDetection::Rack, 10, AppData::Unlimited);
    assert!(s
        .inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(2))]))
        .is_empty());
    assert_eq!(s.ep.next_timeout(), Some(ms(225)));
    assert_eq!(data_seqs(&s.fire(ms(225))), vec![seg(0)]);
    assert_eq!(s.ep.stats().fast_retransmits, 1);
    assert_eq!(s.ep.stats().timeouts, 0);
}

// Linux `tcp_rack_reo_wnd`: with no reordering seen, reo_wnd is 0 once DupThresh (3) segments
// are SACKed, so the third SACK marks segment 0 lost at once (100 + 100 + 0 <= 200 ms), as
// RFC 6675's DupThresh rule would; the first two only arm the 225 ms timer.
#[test]
fn rack_reo_wnd_zero_at_dupthresh_sacked_segments() {
    let mut s = rack_sender(LossDetection::Rack, 10, AppData::Unlimited);
    assert!(s
        .inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(2))]))
        .is_empty());
    assert!(s
        .inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(3))]))
        .is_empty());
    assert_eq!(s.ep.next_timeout(), Some(ms(225)));
    let out = s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(4))]));
    assert_eq!(data_seqs(&out)[0], seg(0));
    assert_eq!(s.ep.stats().fast_retransmits, 1);
}

/// IW 4, segment 0 lost: three SACKs at 200 ms enter recovery (ssthresh = cwnd = 2 segments),
/// retransmitting segment 0 and sending segment 4 (pipe 1 segment). Then the retransmission is
/// lost too and segment 4's SACK arrives at 300 ms. Returns what that ACK sent.
fn lost_retransmission(ld: LossDetection) -> (Script<TcpSender>, Vec<u32>) {
    let mut s = rack_sender(ld, 4, AppData::Unlimited);
    s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(2))]));
    s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(3))]));
    let out = s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(4))]));
    assert_eq!(data_seqs(&out), vec![seg(0), seg(4)]);
    let out = s.inject(ms(300), sack_ack(seg(0), &[(seg(1), seg(5))]));
    (s, data_seqs(&out))
}

// RFC 8985 §6.2 (and §2's motivation): segment 4, sent with the retransmission of segment 0
// at 200 ms but after it, is SACKed at 300 ms; in recovery reo_wnd is 0, so the
// retransmission (200 + 100 + 0 <= 300 ms) is lost and is sent again at once, ahead of new
// data (Linux `tcp_rack_detect_loss` on a TCPCB_SACKED_RETRANS segment). RFC 6675 alone
// (`dupthresh`) never resends below HighRxt: only the timer would.
#[test]
fn rack_detects_lost_retransmission_without_timer() {
    let (s, out) = lost_retransmission(LossDetection::Rack);
    assert_eq!(out[0], seg(0));
    assert_eq!(s.ep.stats().timeouts, 0);
    let (_, out) = lost_retransmission(LossDetection::Dupthresh);
    assert!(
        !out.contains(&seg(0)),
        "RFC 6675 resent below HighRxt: {out:?}"
    );
}

// RFC 8985 §7.2-7.3 and §7.4: a 4-segment file whose last two segments are lost. The ACK of
// segment 1 at 200 ms arms the PTO at 200 + 2·SRTT = 400 ms (two segments in flight, no
// delayed-ACK allowance; before the RTO at 450 ms). With no new data, the probe is the last
// segment again. Its SACK at 500 ms makes RACK mark segment 2 lost (sent at 100 ms, RACK.rtt
// 100 ms + reo_wnd 25 ms long past), so the hole is repaired by fast recovery, not the RTO.
// Without TLP (`rack`) the RTO at 450 ms resends segment 2.
#[test]
fn tlp_probes_last_segment_and_rack_repairs_tail_without_timeout() {
    let mut s = rack_sender(LossDetection::RackTlp, 4, AppData::Bytes(4000));
    s.inject(ms(200), ack(seg(1)));
    s.inject(ms(200), ack(seg(2)));
    assert_eq!(s.ep.next_timeout(), Some(ms(400)));
    assert_eq!(data_seqs(&s.fire(ms(400))), vec![seg(3)]);
    assert_eq!(s.ep.tlp_counts(), (1, 0));
    let out = s.inject(ms(500), sack_ack(seg(2), &[(seg(3), seg(4))]));
    assert_eq!(data_seqs(&out), vec![seg(2)]);
    assert!(s.inject(ms(600), ack(seg(4))).is_empty());
    assert!(s.ep.is_done());
    assert_eq!(s.ep.stats().timeouts, 0);
    assert_eq!(s.ep.stats().fast_retransmits, 1);

    let mut s = rack_sender(LossDetection::Rack, 4, AppData::Bytes(4000));
    s.inject(ms(200), ack(seg(1)));
    s.inject(ms(200), ack(seg(2)));
    assert_eq!(s.ep.next_timeout(), Some(ms(450)));
    assert_eq!(data_seqs(&s.fire(ms(450))), vec![seg(2)]);
    assert_eq!(s.ep.stats().timeouts, 1);
}

// RFC 8985 §7.3: with unsent data and the peer's window open, the probe is a new segment,
// sent beyond cwnd; its ACK ends the episode without a window reduction (§7.4, Linux
// `tcp_process_tlp_ack`: `!tp->tlp_retrans`).
#[test]
fn tlp_sends_new_data_when_available() {
    let mut s = rack_sender(LossDetection::RackTlp, 4, AppData::Unlimited);
    s.inject(ms(200), ack(seg(1)));
    s.inject(ms(200), ack(seg(2)));
    // Slow start: cwnd 6 segments, segments 2-7 in flight.
    assert_eq!(s.ep.cc_metrics().cwnd, 6000);
    assert_eq!(s.ep.next_timeout(), Some(ms(400)));
    assert_eq!(data_seqs(&s.fire(ms(400))), vec![seg(8)]);
    s.inject(ms(500), ack(seg(9)));
    assert_eq!(s.ep.tlp_counts(), (1, 0));
    assert!(s.ep.cc_metrics().cwnd > 6000, "no reduction");
}

// Random loss both ways, seeded: RACK-TLP delivers the file and keeps its invariants
// (debug-asserted in the sender); fewer timeouts than RFC 6675 alone on the same losses.
#[test]
fn rack_tlp_delivers_under_random_loss_with_fewer_timeouts() {
    let run = |ld: LossDetection| {
        let mut c = cfg(Variant::Sack);
        c.loss_detection = ld;
        let mut p = Pair::new(&c, AppData::Bytes(2_000_000));
        p.seed(7);
        p.loss = 0.03;
        assert_file_delivered(&mut p, 2_000_000);
        p.snd.stats().timeouts
    };
    let (rack, plain) = (run(LossDetection::RackTlp), run(LossDetection::Dupthresh));
    assert!(rack < plain, "timeouts: rack-tlp {rack}, dupthresh {plain}");
}

/// CUBIC with timestamps (an RTT sample on every ACK) over the pair harness (10 Mb/s, 10 ms
/// each way, an unbounded queue, no loss), a 3 MB file and a 1 MB receive window: returns
/// (ssthresh at the end, fast retransmits + timeouts, whether CSS was seen).
fn cubic_slow_start(ss: SlowStart) -> (u64, u64, bool) {
    let mut c = cfg(Variant::Cubic);
    c.timestamps = true;
    c.slow_start = ss;
    c.rcv_window = 1_000_000;
    let mut p = Pair::new(&c, AppData::Bytes(3_000_000));
    p.open();
    let mut css = false;
    let mut t = ms(0);
    while !p.snd.is_done() && t < ms(20_000) {
        t += Dur::from_millis(1);
        p.run_until(t);
        css |= p.snd.in_css();
    }
    assert!(p.snd.is_done());
    let st = p.snd.stats();
    (
        p.snd.cc_metrics().ssthresh,
        st.fast_retransmits + st.timeouts,
        css,
    )
}

// RFC 9406 §4.2: as the queue builds, a round's minimum RTT exceeds the last round's by the
// threshold (4 ms here), CSS begins, and after CSS_ROUNDS rounds slow start ends with
// ssthresh = cwnd, without a loss. Standard slow start never leaves it here (ssthresh stays
// at the receive window: the queue is unbounded).
#[test]
fn hystart_pp_leaves_slow_start_without_loss_as_rtt_grows() {
    let (ss, losses, css) = cubic_slow_start(SlowStart::HystartPp);
    assert_eq!(losses, 0);
    assert!(css, "CSS never entered");
    assert!(ss < 1_000_000, "ssthresh {ss}");
    let (ss, losses, css) = cubic_slow_start(SlowStart::Standard);
    assert_eq!((ss, losses, css), (1_000_000, 0, false));
}

// Regression (found by scenarios/linux/mixed-fq-codel.toml, where CUBIC flows stalled): a
// segment RACK marked lost and not yet resent that the receiver then SACKs (the original was
// only late) is delivered: it leaves the lost set (RFC 8985 §6.2 step 1 and Linux
// `tcp_sacktag_one` clearing TCPCB_LOST's count), is never resent, and the pipe no longer
// subtracts it. Segments 0 and 1 are missing; SACKs of 2, 2-3 and 2-4 at 200 ms mark both
// lost (reo_wnd 0 at DupThresh SACKed segments) and resend 0 (cwnd 5 segments, pipe 6);
// at 201 ms segment 1 and 5-9 are SACKed: pipe is segment 0's resend only, so four new
// segments go, not segment 1 again.
#[test]
fn rack_lost_mark_cleared_when_segment_is_sacked() {
    let mut s = rack_sender(LossDetection::Rack, 10, AppData::Unlimited);
    s.inject(ms(200), sack_ack(seg(0), &[(seg(2), seg(3))]));
    s.inject(ms(200), sack_ack(seg(0), &[(seg(2), seg(4))]));
    let out = s.inject(ms(200), sack_ack(seg(0), &[(seg(2), seg(5))]));
    assert_eq!(data_seqs(&out), vec![seg(0)]);
    let out = s.inject(ms(201), sack_ack(seg(0), &[(seg(1), seg(10))]));
    assert_eq!(data_seqs(&out), vec![seg(10), seg(11), seg(12), seg(13)]);
}

/// `lost_retransmission` with `cfg.rto_rearm = rearm`: the timer after the SACK at 300 ms that
/// made RACK resend segment 0 again.
fn timer_after_lost_retransmission(rearm: RtoRearm) -> Option<packetsim_kernel::Time> {
    let mut c = cfg(Variant::Sack);
    c.loss_detection = LossDetection::Rack;
    c.initial_cwnd = 4;
    c.rto_rearm = rearm;
    let (mut s, _) = Script::established(&c, AppData::Unlimited);
    s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(2))]));
    s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(3))]));
    s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(4))]));
    let out = s.inject(ms(300), sack_ack(seg(0), &[(seg(1), seg(5))]));
    assert_eq!(data_seqs(&out)[0], seg(0));
    s.ep.next_timeout()
}

// Linux `tcp_xmit_retransmit_queue` re-arms the RTO (`tcp_reset_xmit_timer`) when it resends
// the head of the retransmission queue. The fast retransmit of segment 0 at 200 ms set the
// timer to 200 + 300 ms (SRTT 100 ms, RTO 300 ms); RACK finds that retransmission lost at
// 300 ms and resends it. By default (RFC 6298 §5.3: only ACKs of new data restart it) the
// timer stays at 500 ms, before the second resend's ACK can come back (400 ms at the
// earliest, later behind a queue); with `head_retransmit` it restarts: 300 + 300 ms.
#[test]
fn rto_rearmed_when_the_head_is_resent_with_head_retransmit() {
    assert_eq!(
        timer_after_lost_retransmission(RtoRearm::NewAck),
        Some(ms(500))
    );
    assert_eq!(
        timer_after_lost_retransmission(RtoRearm::HeadRetransmit),
        Some(ms(600))
    );
}

/// A NewReno sender with `rtt_estimator = est` (no timestamps: Karn's one timed segment),
/// established at 100 ms, its ten segments ACKed at 200 ms and the next 20 at 300 ms, every
/// RTT 100 ms: the RTO then.
fn rto_on_a_steady_100ms_path(est: RttEstimatorKind) -> Dur {
    let mut c = cfg(Variant::NewReno);
    c.rtt_estimator = est;
    let (mut s, sent) = Script::established(&c, AppData::Unlimited);
    assert_eq!(data_seqs(&sent).len(), 10);
    s.inject(ms(200), ack(seg(10)));
    s.inject(ms(300), ack(seg(30)));
    s.ep.cc_metrics().rto
}

// Linux `tcp_rtt_estimator` / `tcp_set_rto`: RTO = SRTT + rttvar with rttvar never below
// TCP_RTO_MIN (200 ms), so a steady 100 ms path keeps an RTO of 300 ms. RFC 6298 (§2.3-2.4):
// RTTVAR decays by 3/4 per equal sample (50 ms, then 37.5 ms after the second of the two
// samples this script gives), RTO = 100 + 4 × 37.5 = 250 ms, and towards 200 ms.
#[test]
fn linux_estimator_adds_rto_min_to_srtt() {
    assert_eq!(
        rto_on_a_steady_100ms_path(RttEstimatorKind::Linux),
        Dur::from_millis(300)
    );
    assert_eq!(
        rto_on_a_steady_100ms_path(RttEstimatorKind::Rfc6298),
        Dur::from_millis(250)
    );
}

#[test]
fn issue33_bbr_keys_parse_and_need_bbr() {
    let c: TcpConfig = toml::from_str(
        "variant = \"bbr\"\nrtt_estimator = \"linux\"\nrto_rearm = \"head_retransmit\"\n\
         bbr_timeout_full_bw = \"reset\"\nbbr_recovery = \"linux\"",
    )
    .unwrap();
    assert_eq!(c.rtt_estimator, RttEstimatorKind::Linux);
    assert_eq!(c.rto_rearm, RtoRearm::HeadRetransmit);
    assert_eq!(c.bbr_timeout_full_bw, BbrTimeoutFullBw::Reset);
    assert_eq!(c.bbr_recovery, BbrRecovery::Linux);
    assert_eq!(c.validate(), Ok(()));
    let d = toml::to_string(&TcpConfig::default()).unwrap();
    for k in ["rto_rearm", "bbr_timeout_full_bw", "bbr_recovery"] {
        assert!(!d.contains(k), "{k} serialised by default");
    }
    for (k, bad) in [
        ("bbr_timeout_full_bw", "bbr_timeout_full_bw = \"reset\""),
        ("bbr_recovery", "bbr_recovery = \"linux\""),
    ] {
        let c: TcpConfig = toml::from_str(&format!("variant = \"cubic\"\n{bad}")).unwrap();
        assert_eq!(c.validate().unwrap_err().0, k);
    }
}

/// `rack_sender` (IW 10, SACK recovery, Reno's window) with `recovery_entry = entry`, driven
/// until recovery ends with a retransmission still in flight, and the ACK that ends it.
/// 200 ms: three SACKs mark segment 0 lost (reo_wnd 0 at DupThresh), recovery to segment 10,
/// segment 0 resent. 250 ms: segments 1-9 SACKed, pipe 1, segments 10-13 go. 350 ms: 11-13
/// SACKed (sent at 250 ms): RACK marks segment 0's resend (sent at 200 ms) and segment 10
/// lost (in recovery reo_wnd is 0; 250 + 100 <= 350), pipe 0: both are resent, then 14-16.
/// 450 ms: the cumulative ACK reaches segment 10 = recover (segment 0's second resend
/// arrived), while segment 10's resend, sent after it, is still in flight. Returns the
/// sender and what that ACK sent.
fn recovery_ends_with_lost_resend_in_flight(entry: RecoveryEntry) -> (Script<TcpSender>, Vec<u32>) {
    let mut c = cfg(Variant::Sack);
    c.loss_detection = LossDetection::Rack;
    c.recovery_entry = entry;
    let (mut s, _) = Script::established(&c, AppData::Unlimited);
    s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(2))]));
    s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(3))]));
    let out = s.inject(ms(200), sack_ack(seg(0), &[(seg(1), seg(4))]));
    assert_eq!(data_seqs(&out), vec![seg(0)]);
    let out = s.inject(ms(250), sack_ack(seg(0), &[(seg(1), seg(10))]));
    assert_eq!(data_seqs(&out), vec![seg(10), seg(11), seg(12), seg(13)]);
    let out = s.inject(
        ms(350),
        sack_ack(seg(0), &[(seg(11), seg(14)), (seg(1), seg(10))]),
    );
    assert_eq!(
        data_seqs(&out),
        vec![seg(0), seg(10), seg(14), seg(15), seg(16)]
    );
    assert_eq!(s.ep.stats().fast_retransmits, 1);
    let out = s.inject(ms(450), sack_ack(seg(10), &[(seg(11), seg(14))]));
    (s, data_seqs(&out))
}

// Linux `tcp_fastretrans_alert`: the ACK that reaches high_seq ends recovery
// (`tcp_try_undo_recovery` sets TCP_CA_Open), then, on the same ACK, `tcp_time_to_recover`
// finds `lost_out` > 0 (segment 10 keeps TCPCB_LOST while its resend is in flight) and
// `tcp_enter_recovery` starts the next recovery (ssthresh and cwnd cut again: FlightSize 7
// segments, so 3.5); `tcp_xmit_retransmit_queue` resends nothing (segment 10 is
// TCPCB_SACKED_RETRANS) and pipe (segments 10, 14-16) fills cwnd. By default
// (`new_loss`) the sender stays open, in one recovery, and waits with FlightSize (7) above cwnd.
#[test]
fn lost_out_reenters_recovery_when_recovery_ends_with_a_lost_resend_in_flight() {
    let (s, out) = recovery_ends_with_lost_resend_in_flight(RecoveryEntry::LostOut);
    assert_eq!(out, Vec::<u32>::new(), "segment 10 resent again");
    assert_eq!(s.ep.stats().fast_retransmits, 2);
    assert_eq!(
        s.ep.cc_state().phase,
        Phase::Recovery {
            recover: Seq(seg(17))
        }
    );
    assert_eq!(s.ep.cc_state().ssthresh, 7 * 1000 / 2);
    let (s, out) = recovery_ends_with_lost_resend_in_flight(RecoveryEntry::NewLoss);
    assert_eq!(out, Vec::<u32>::new());
    assert_eq!(s.ep.stats().fast_retransmits, 1);
    assert_eq!(s.ep.cc_state().phase, Phase::Open);
}

#[test]
fn recovery_entry_parses_and_needs_rack() {
    let c: TcpConfig = toml::from_str(
        "variant = \"sack\"\nloss_detection = \"rack_tlp\"\nrecovery_entry = \"lost_out\"",
    )
    .unwrap();
    assert_eq!(c.recovery_entry, RecoveryEntry::LostOut);
    assert_eq!(c.validate(), Ok(()));
    let d = toml::to_string(&TcpConfig::default()).unwrap();
    assert!(!d.contains("recovery_entry"));
    let c: TcpConfig = toml::from_str("variant = \"sack\"\nrecovery_entry = \"lost_out\"").unwrap();
    assert_eq!(c.validate().unwrap_err().0, "recovery_entry");
    assert!(toml::from_str::<TcpConfig>("recovery_entry = \"always\"").is_err());
}
