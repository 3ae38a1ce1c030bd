//! Endpoint scripts for SCTP: one endpoint driven by hand with packets built here and
//! explicit times, asserting what it sends and its per-destination state; plus a small
//! two-endpoint run. Each test cites the rule it checks (RFC 2960 / RFC 4960 / spec 3 §2.5).
//!
//! Conventions: the client has S0, S1 and the server D0, D1; D0 is the primary; MTU 1500, so
//! a full DATA chunk carries 1452 user bytes and is 1468 bytes on the wire; the client's TSNs
//! start at 1; the association is established at 70 ms.

use super::*;
use crate::ids::Addr;
use crate::packet::{
    Body, Chunk, DataChunk, GapBlock, HeartbeatInfo, InitChunk, Packet, SackChunk, SctpPacket, Seq,
};
use crate::transport::tcp::AppData;
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::{Dur, Rng, Time};

const S0: Addr = Addr(1);
const S1: Addr = Addr(2);
const D0: Addr = Addr(11);
const D1: Addr = Addr(12);
/// A full DATA chunk on the wire.
const CHUNK: u64 = 1468;

fn ms(m: u64) -> Time {
    Time::from_millis(m)
}

fn pkt(src: Addr, dst: Addr, chunks: Vec<Chunk>) -> Packet {
    Packet::new(src, dst, Body::Sctp(Box::new(SctpPacket { chunks })))
}

fn chunks(p: &Packet) -> &[Chunk] {
    &p.sctp().expect("an SCTP packet").chunks
}

/// (TSN, destination) of every DATA chunk sent.
fn data(out: &[Packet]) -> Vec<(u32, Addr)> {
    out.iter()
        .flat_map(|p| {
            chunks(p).iter().filter_map(move |c| match c {
                Chunk::Data(d) => Some((d.tsn.0, p.dst)),
                _ => None,
            })
        })
        .collect()
}

fn heartbeats(out: &[Packet]) -> Vec<(Addr, Addr, HeartbeatInfo)> {
    out.iter()
        .flat_map(|p| {
            chunks(p).iter().filter_map(move |c| match c {
                Chunk::Heartbeat(h) => Some((p.src, p.dst, *h)),
                _ => None,
            })
        })
        .collect()
}

/// A SACK from D0 with cumulative ack `cum` and gap blocks (offsets from `cum`).
fn sack(cum: u32, gaps: &[(u16, u16)]) -> Packet {
    sack_from(D0, cum, gaps)
}

fn sack_from(from: Addr, cum: u32, gaps: &[(u16, u16)]) -> Packet {
    let to = if from == D0 { S0 } else { S1 };
    pkt(
        from,
        to,
        vec![Chunk::Sack(SackChunk {
            cum_tsn: Seq(cum),
            a_rwnd: 1_000_000,
            gaps: gaps
                .iter()
                .map(|&(start, end)| GapBlock { start, end })
                .collect(),
            dups: vec![],
        })],
    )
}

fn init_ack() -> Packet {
    pkt(
        D0,
        S0,
        vec![Chunk::InitAck {
            init: InitChunk {
                initial_tsn: Seq(1),
                a_rwnd: 1_000_000,
                streams: 1,
                addrs: vec![D0, D1],
            },
            cookie_len: 32,
        }],
    )
}

/// A client driven by hand.
struct Script {
    ep: SctpEndpoint,
}

impl Script {
    fn inject(&mut self, t: Time, p: Packet) -> Vec<Packet> {
        let mut out = Outbox::default();
        self.ep.on_packet(t, &p, &mut out);
        out.packets
    }
    /// Fires the timer at `t` (asserting it is due).
    fn fire(&mut self, t: Time) -> Vec<Packet> {
        let due = self.ep.next_timeout().expect("a timer is pending");
        assert!(due <= t, "timer due at {due}, not by {t}");
        let mut out = Outbox::default();
        self.ep.on_timer(t, &mut out);
        out.packets
    }
    fn path(&self, i: usize) -> PathMetrics {
        self.ep.paths()[i].clone()
    }
    fn cwnd(&self, i: usize) -> u64 {
        self.ep.sender().paths[i].cwnd
    }
    fn outstanding(&self, i: usize) -> u64 {
        self.ep.sender().paths[i].outstanding
    }
}

/// A dual-homed client established at 70 ms (peer rwnd 1 MB), with what it sent on
/// COOKIE-ACK; its setup HEARTBEAT to D1 is answered at 140 ms when `answer_hb`.
fn established(cfg: &SctpConfig, app: AppData, answer_hb: bool) -> (Script, Vec<Packet>) {
    let rng = Rng::from_seed(7);
    let mut s = Script {
        ep: SctpEndpoint::client(cfg, vec![S0, S1], vec![D0, D1], 0, app, rng),
    };
    let mut out = Outbox::default();
    s.ep.open(Time::ZERO, &mut out);
    assert_eq!(chunks(&out.packets[0]).len(), 1);
    s.inject(ms(35), init_ack());
    let sent = s.inject(ms(70), pkt(D0, S0, vec![Chunk::CookieAck]));
    assert_eq!(s.ep.state(), AssocState::Established);
    if answer_hb {
        let hb = heartbeats(&sent);
        assert_eq!(hb.len(), 1);
        let (src, dst, info) = hb[0];
        assert!(s
            .inject(ms(140), pkt(dst, src, vec![Chunk::HeartbeatAck(info)]))
            .is_empty());
    }
    (s, sent)
}

/// Lots of window: cwnd 10 MTUs, no burst limit.
fn wide(policy: RtxPolicy) -> SctpConfig {
    SctpConfig {
        initial_cwnd_mtus: 10,
        max_burst: 0,
        rtx_policy: policy,
        ..SctpConfig::default()
    }
}

mod handshake {
    use super::*;

    // RFC 4960 §5.1 A, C, E: INIT to the primary, COOKIE-ECHO on INIT-ACK, ESTABLISHED on
    // COOKIE-ACK; spec 3 §2.5 (INFERRED, ns-2): one HEARTBEAT to the non-primary destination
    // right after setup; data starts at once to the primary.
    #[test]
    fn cookie_wait_to_established_sends_data_and_setup_heartbeat() {
        let c = SctpConfig::default();
        let mut s = Script {
            ep: SctpEndpoint::client(
                &c,
                vec![S0, S1],
                vec![D0, D1],
                0,
                AppData::Unlimited,
                Rng::from_seed(1),
            ),
        };
        let mut out = Outbox::default();
        s.ep.open(Time::ZERO, &mut out);
        assert_eq!(s.ep.state().to_string(), "COOKIE-WAIT");
        let p = &out.packets[0];
        assert_eq!((p.src, p.dst), (S0, D0));
        assert!(matches!(&chunks(p)[0], Chunk::Init(i) if i.addrs == vec![S0, S1]));
        let out = s.inject(ms(35), init_ack());
        assert_eq!(s.ep.state().to_string(), "COOKIE-ECHOED");
        assert!(matches!(
            chunks(&out[0])[0],
            Chunk::CookieEcho { cookie_len: 32 }
        ));
        assert_eq!(s.ep.established_at(), None);
        let out = s.inject(ms(70), pkt(D0, S0, vec![Chunk::CookieAck]));
        assert_eq!(s.ep.established_at(), Some(ms(70)));
        let hb = heartbeats(&out);
        assert_eq!(hb.len(), 1);
        assert_eq!((hb[0].0, hb[0].1), (S1, D1));
        // RFC 2960 §6.1 B: new data while outstanding < cwnd (3000): three 1468-byte chunks.
        assert_eq!(data(&out), vec![(1, D0), (2, D0), (3, D0)]);
    }

    // RFC 4960 §5.1 A / §4 note: an unanswered INIT is resent on T1-init with the timer
    // doubled each time; likewise COOKIE-ECHO on T1-cookie.
    #[test]
    fn cookie_wait_init_lost_retransmits_with_backoff() {
        let c = SctpConfig::default();
        let mut s = Script {
            ep: SctpEndpoint::client(
                &c,
                vec![S0],
                vec![D0],
                0,
                AppData::Unlimited,
                Rng::from_seed(1),
            ),
        };
        let mut out = Outbox::default();
        s.ep.open(Time::ZERO, &mut out);
        assert_eq!(s.ep.next_timeout(), Some(ms(3000)));
        let out = s.fire(ms(3000));
        assert!(matches!(chunks(&out[0])[0], Chunk::Init(_)));
        assert_eq!(s.ep.next_timeout(), Some(ms(9000)), "T1 doubled to 6 s");
        s.inject(ms(9100), init_ack());
        assert_eq!(
            s.ep.next_timeout(),
            Some(ms(12_100)),
            "T1-cookie starts at RTO.Initial"
        );
        let out = s.fire(ms(12_100));
        assert!(matches!(chunks(&out[0])[0], Chunk::CookieEcho { .. }));
        assert_eq!(s.ep.stats().t1_expiries, 2);
    }

    // RFC 4960 §5.1 B, D and §6.4 (spec 3 Q8): the server answers from the address a packet
    // arrived on to its source: INIT-ACK, COOKIE-ACK, SACK and HEARTBEAT-ACK.
    #[test]
    fn server_answers_each_packet_from_arrival_address_to_source() {
        let c = SctpConfig::default();
        let mut srv = SctpEndpoint::server(&c, vec![D0, D1], Rng::from_seed(3));
        let mut out = Outbox::default();
        let init = InitChunk {
            initial_tsn: Seq(1),
            a_rwnd: 65_536,
            streams: 1,
            addrs: vec![S0, S1],
        };
        srv.on_packet(ms(0), &pkt(S0, D0, vec![Chunk::Init(init)]), &mut out);
        let p = &out.packets[0];
        assert_eq!((p.src, p.dst), (D0, S0));
        assert!(matches!(&chunks(p)[0], Chunk::InitAck { init, .. } if init.addrs == vec![D0, D1]));
        out.clear();
        srv.on_packet(
            ms(70),
            &pkt(S0, D0, vec![Chunk::CookieEcho { cookie_len: 32 }]),
            &mut out,
        );
        assert_eq!(chunks(&out.packets[0])[0], Chunk::CookieAck);
        assert_eq!(srv.established_at(), Some(ms(70)));
        out.clear();
        // A retransmitted chunk arriving on path1: the SACK goes back on path1.
        let d = |tsn| {
            Chunk::Data(DataChunk {
                tsn: Seq(tsn),
                stream: 0,
                ssn: (tsn - 1) as u16,
                unordered: false,
                len: 1452,
            })
        };
        srv.on_packet(ms(100), &pkt(S1, D1, vec![d(2)]), &mut out);
        let p = &out.packets[0];
        assert_eq!(
            (p.src, p.dst),
            (D1, S1),
            "immediate SACK on a gap, to the source"
        );
        assert!(
            matches!(&chunks(p)[0], Chunk::Sack(s) if s.cum_tsn == Seq(0) && s.gaps == vec![GapBlock { start: 2, end: 2 }])
        );
        out.clear();
        srv.on_packet(ms(110), &pkt(S1, D1, vec![d(1)]), &mut out);
        assert_eq!(out.delivered_bytes, 2 * 1452);
        out.clear();
        let info = HeartbeatInfo {
            sent_at: ms(120),
            dest: D1,
            nonce: 9,
        };
        srv.on_packet(
            ms(150),
            &pkt(S1, D1, vec![Chunk::Heartbeat(info)]),
            &mut out,
        );
        let p = &out.packets[0];
        assert_eq!((p.src, p.dst), (D1, S1));
        assert_eq!(chunks(p)[0], Chunk::HeartbeatAck(info));
    }

    // Spec 3 §2.5 packet format: IP 20 + common header 12 + DATA 16 + 1452 = 1500 bytes.
    #[test]
    fn established_full_data_packet_is_1500_bytes_with_1452_user_bytes() {
        let (_, sent) = established(&SctpConfig::default(), AppData::Unlimited, false);
        let p = sent
            .iter()
            .find(|p| !data(std::slice::from_ref(p)).is_empty())
            .unwrap();
        assert_eq!(p.size, 1500);
        assert_eq!(p.payload(), 1452);
    }

    // Spec 3 §2.5 / RFC 4960 §6.10: small chunks are bundled up to the MTU; streams are
    // served round-robin with their own SSNs; the U bit follows the configuration.
    #[test]
    fn established_small_chunks_bundle_and_rotate_streams() {
        let c = SctpConfig {
            max_chunk_data: Some(100),
            streams: 2,
            unordered: true,
            ..SctpConfig::default()
        };
        let (_, sent) = established(&c, AppData::Unlimited, false);
        let dp: Vec<&Packet> = sent
            .iter()
            .filter(|p| !data(std::slice::from_ref(*p)).is_empty())
            .collect();
        // 1468 bytes of room / 116 per chunk = 12 chunks per packet; cwnd 3000 allows 26.
        let per: Vec<usize> = dp.iter().map(|p| chunks(p).len()).collect();
        assert_eq!(per, vec![12, 12, 2]);
        let ds: Vec<DataChunk> = chunks(dp[0])
            .iter()
            .map(|c| match c {
                Chunk::Data(d) => *d,
                _ => panic!(),
            })
            .collect();
        assert_eq!(
            ds.iter()
                .map(|d| (d.stream, d.ssn))
                .take(4)
                .collect::<Vec<_>>(),
            vec![(0, 0), (1, 0), (0, 1), (1, 1)]
        );
        assert!(ds.iter().all(|d| d.unordered && d.len == 100));
        assert_eq!(dp[0].size, 20 + 12 + 12 * 116);
    }

    // RFC 4960 §9.2: once the file is acknowledged, SHUTDOWN; SHUTDOWN-ACK is answered with
    // SHUTDOWN-COMPLETE and the association closes with no timer left.
    #[test]
    fn established_file_acked_shuts_down_and_goes_quiet() {
        let (mut s, sent) = established(&SctpConfig::default(), AppData::Bytes(2000), true);
        assert_eq!(data(&sent), vec![(1, D0), (2, D0)]);
        let out = s.inject(ms(200), sack(2, &[]));
        assert_eq!(s.ep.state().to_string(), "SHUTDOWN-SENT");
        assert!(matches!(chunks(&out[0])[0], Chunk::Shutdown { .. }));
        let out = s.inject(ms(270), pkt(D0, S0, vec![Chunk::ShutdownAck]));
        assert_eq!(chunks(&out[0])[0], Chunk::ShutdownComplete);
        assert_eq!(s.ep.state(), AssocState::Closed);
        assert_eq!(s.ep.next_timeout(), None, "no heartbeats after close");
        assert_eq!(s.ep.stats().bytes_acked, 2000);
    }
}

mod congestion {
    use super::*;

    // RFC 2960 §7.2.1 / spec 3 §2.5: slow start while cwnd <= ssthresh grows by
    // min(bytes newly acked, MTU) only when the window was full; at cwnd == ssthresh it is
    // still slow start (the "<="); above it, congestion avoidance by partial_bytes_acked
    // (RFC 2960 §7.2.2).
    #[test]
    fn slow_start_grows_by_bytes_through_boundary_then_partial_bytes_acked() {
        let c = SctpConfig {
            initial_ssthresh: Some(4500),
            ..SctpConfig::default()
        };
        let (mut s, sent) = established(&c, AppData::Unlimited, true);
        assert_eq!(data(&sent).len(), 3);
        assert_eq!(s.outstanding(0), 3 * CHUNK);
        // Two chunks acked, window full (4404 >= 3000): +min(2936, 1500).
        let out = s.inject(ms(200), sack(2, &[]));
        assert_eq!(s.cwnd(0), 4500);
        // outstanding 1468 -> 4404 < 4500 after two more, so three new chunks go.
        assert_eq!(data(&out), vec![(4, D0), (5, D0), (6, D0)]);
        // cwnd == ssthresh: still slow start, +1468 for one chunk (window full: 5872 >= 4500).
        let out = s.inject(ms(210), sack(3, &[]));
        assert_eq!(s.cwnd(0), 4500 + CHUNK);
        // outstanding 4404 -> two more chunks (5872 < 5968 still allows the second).
        assert_eq!(data(&out), vec![(7, D0), (8, D0)]);
        // Congestion avoidance: partial_bytes_acked accumulates, no growth until >= cwnd.
        s.inject(ms(300), sack(5, &[]));
        assert_eq!(s.cwnd(0), 5968);
        assert_eq!(s.ep.sender().paths[0].partial_bytes_acked, 2 * CHUNK);
        s.inject(ms(310), sack(7, &[]));
        assert_eq!(s.cwnd(0), 5968);
        assert_eq!(s.ep.sender().paths[0].partial_bytes_acked, 4 * CHUNK);
        s.inject(ms(320), sack(9, &[]));
        assert_eq!(s.cwnd(0), 5968 + 1500);
        assert_eq!(s.ep.sender().paths[0].partial_bytes_acked, 6 * CHUNK - 5968);
    }

    // RFC 2960 §7.2.1: no growth when the window was not full before the SACK.
    #[test]
    fn slow_start_window_not_full_no_growth() {
        let c = SctpConfig {
            initial_cwnd_mtus: 4,
            ..SctpConfig::default()
        };
        let (mut s, _) = established(&c, AppData::Bytes(2 * 1452), true);
        assert_eq!(s.outstanding(0), 2 * CHUNK);
        s.inject(ms(200), sack(1, &[]));
        assert_eq!(s.cwnd(0), 6000);
    }

    // Spec 3 §2.5 (INFERRED, ns-2 useMaxBurst): at most Max.Burst = 4 packets per send
    // opportunity even when cwnd allows more.
    #[test]
    fn established_large_cwnd_sends_at_most_max_burst_packets() {
        let c = SctpConfig {
            initial_cwnd_mtus: 20,
            ..SctpConfig::default()
        };
        let (mut s, sent) = established(&c, AppData::Unlimited, false);
        assert_eq!(data(&sent).len(), 4);
        let out = s.inject(ms(200), sack(1, &[]));
        assert_eq!(
            data(&out).len(),
            4,
            "one chunk acked, but four more packets go"
        );
    }

    // Spec 3 §2.5: gap-acked chunks stop counting as outstanding, so new data flows during
    // loss recovery without inflating cwnd.
    #[test]
    fn established_gap_acks_release_outstanding_bytes() {
        let (mut s, sent) = established(&wide(RtxPolicy::Alternate), AppData::Unlimited, true);
        assert_eq!(data(&sent).len(), 11);
        let out = s.inject(ms(200), sack(0, &[(2, 3)]));
        assert_eq!(s.outstanding(0), 11 * CHUNK - 2 * CHUNK + 2 * CHUNK);
        assert_eq!(data(&out), vec![(12, D0), (13, D0)]);
        assert_eq!(
            s.cwnd(0),
            15_000,
            "no growth: the cumulative ack did not advance"
        );
    }
}

mod fast_rtx {
    use super::*;

    /// Feeds SACKs reporting TSN 1 missing (cum 0, gap 2..=k+1 for k = 1..=n); returns the
    /// DATA sent after each.
    fn miss_reports(s: &mut Script, from: u16, n: u16, t0: u64) -> Vec<Vec<(u32, Addr)>> {
        (from..from + n)
            .map(|k| data(&s.inject(ms(t0 + k as u64), sack(0, &[(2, k + 1)]))))
            .collect()
    }

    // RFC 2960 §7.2.4 + implementer's guide (spec 3 §2.5): the 4th missing report triggers
    // the fast retransmit, sent at once (regardless of cwnd) to the alternate under
    // RTX_TO_ALT; ssthresh = max(cwnd/2, 2 MTU), cwnd = ssthresh (RFC 2960 §7.2.3).
    #[test]
    fn established_fourth_missing_report_fast_retransmits_to_alternate() {
        let (mut s, _) = established(&wide(RtxPolicy::Alternate), AppData::Unlimited, true);
        let sent = miss_reports(&mut s, 1, 3, 200);
        // Each gap ack frees a chunk of outstanding: one new chunk each time, no rtx.
        assert!(sent.iter().all(|d| d.iter().all(|&(tsn, _)| tsn > 11)));
        let out = s.inject(ms(204), sack(0, &[(2, 5)]));
        let sent = data(&out);
        assert_eq!(sent[0], (1, D1), "TSN 1 to the alternate first");
        assert_eq!(out[0].src, S1);
        assert_eq!(s.ep.stats().fast_retransmits, 1);
        assert_eq!(s.path(0).fast_retransmits, 1);
        assert_eq!((s.path(0).ssthresh, s.path(0).cwnd), (7500, 7500));
        assert_eq!(s.outstanding(1), CHUNK);
        assert!(
            s.ep.sender().paths[1].t3.is_some(),
            "R1: T3 started on the alternate"
        );
    }

    // RFC 4960 §7.2.4 uses 3: the threshold is configurable.
    #[test]
    fn established_configured_third_missing_report_fast_retransmits() {
        let c = SctpConfig {
            fast_rtx_threshold: 3,
            ..wide(RtxPolicy::Alternate)
        };
        let (mut s, _) = established(&c, AppData::Unlimited, true);
        miss_reports(&mut s, 1, 2, 200);
        assert_eq!(s.ep.stats().fast_retransmits, 0);
        let out = s.inject(ms(203), sack(0, &[(2, 4)]));
        assert_eq!(data(&out)[0], (1, D1));
        assert_eq!(s.ep.stats().fast_retransmits, 1);
    }

    // Implementer's guide (spec 3 §2.5): a TSN is fast-retransmitted at most once; a second
    // round of missing reports does not resend it; only the T3 of the destination it went
    // to recovers it, and that retransmission goes back to the primary under RTX_TO_ALT.
    #[test]
    fn fast_retransmitted_chunk_lost_again_waits_for_alternate_t3() {
        let (mut s, _) = established(&wide(RtxPolicy::Alternate), AppData::Bytes(30 * 1452), true);
        miss_reports(&mut s, 1, 4, 200);
        assert_eq!(s.ep.stats().fast_retransmits, 1);
        // The alternate's RTO is 1 s after the setup heartbeat's 70 ms sample.
        assert_eq!(s.path(1).rto, Dur::from_secs(1));
        let rtx_at = ms(204);
        let later = miss_reports(&mut s, 5, 20, 300);
        assert!(
            later.iter().all(|d| !d.iter().any(|&(tsn, _)| tsn == 1)),
            "not resent"
        );
        assert_eq!(s.ep.stats().fast_retransmits, 1);
        // Acknowledge everything else so that only the alternate's T3 remains.
        let top = s.ep.sender().next_tsn.0 - 1;
        s.inject(ms(400), sack(0, &[(2, top as u16)]));
        assert_eq!(
            s.ep.sender().paths[0].t3,
            None,
            "R2: nothing outstanding on D0"
        );
        assert_eq!(s.ep.next_timeout(), Some(rtx_at + Dur::from_secs(1)));
        let out = s.fire(rtx_at + Dur::from_secs(1));
        assert_eq!(
            data(&out)[0],
            (1, D0),
            "T3 on D1; RTX_TO_ALT sends it back to D0"
        );
        assert_eq!(s.path(1).t3_expiries, 1);
        assert_eq!(
            s.path(1).rto,
            Dur::from_secs(2),
            "E2: the alternate's RTO doubled"
        );
        assert_eq!(s.ep.stats().chunks_lost_twice, 1);
    }

    // Spec 3 §2.5 RTX_SAME: the fast retransmission stays on the destination the chunk was
    // last sent to.
    #[test]
    fn established_same_policy_fast_retransmits_to_original_destination() {
        let (mut s, _) = established(&wide(RtxPolicy::Same), AppData::Unlimited, true);
        miss_reports(&mut s, 1, 3, 200);
        let out = s.inject(ms(204), sack(0, &[(2, 5)]));
        assert_eq!(data(&out)[0], (1, D0));
        assert_eq!(out[0].src, S0);
    }

    // RFC 4960 §7.2.4 (option `fast_recovery`): one cwnd cut per window; off (RFC 2960), a
    // second loss in the same window cuts again.
    #[test]
    fn fast_recovery_option_cuts_once_per_window() {
        for (guard, cwnd) in [(false, 3750), (true, 7500)] {
            let c = SctpConfig {
                fast_recovery: guard,
                ..wide(RtxPolicy::Alternate)
            };
            let (mut s, _) = established(&c, AppData::Unlimited, true);
            miss_reports(&mut s, 1, 4, 200);
            assert_eq!(s.cwnd(0), 7500);
            // TSNs 1 and 6 missing: gaps 2..5 and 7..k.
            for k in 7..11u16 {
                s.inject(ms(300 + k as u64), sack(0, &[(2, 5), (7, k)]));
            }
            assert_eq!(s.ep.stats().fast_retransmits, 2);
            assert_eq!(s.cwnd(0), cwnd, "guard {guard}");
        }
    }
}

/// A single-homed client (S0 to D0) opened at 0, INIT-ACK at 35 ms, COOKIE-ACK at 70 ms;
/// also what it sent on the COOKIE-ACK (the timer and ns-2 tests start from it).
fn single(cfg: &SctpConfig, app: AppData) -> (Script, Vec<Packet>) {
    let mut s = Script {
        ep: SctpEndpoint::client(cfg, vec![S0], vec![D0], 0, app, Rng::from_seed(5)),
    };
    let mut out = Outbox::default();
    s.ep.open(Time::ZERO, &mut out);
    s.inject(ms(35), init_ack());
    let sent = s.inject(ms(70), pkt(D0, S0, vec![Chunk::CookieAck]));
    (s, sent)
}

mod timer {
    use super::*;

    // RFC 2960 §6.3.1 C2/C3 and C5 (Karn): a first-transmission sample sets the RTO; the
    // T3 expiry doubles it (E2, capped at RTO.max) and the doubled value stays when the
    // retransmitted chunk is acknowledged (no sample from it); the next new chunk's sample
    // brings it down.
    #[test]
    fn rto_karn_backoff_kept_until_new_sample() {
        let c = SctpConfig {
            rto_min: Dur::from_millis(100),
            ..SctpConfig::default()
        };
        let (mut s, sent) = single(&c, AppData::Unlimited);
        assert_eq!(data(&sent).len(), 3);
        // TSN 1 was timed: 100 ms sample -> SRTT 100, RTTVAR 50, RTO 300 ms.
        s.inject(ms(170), sack(1, &[]));
        assert_eq!(s.path(0).rto, Dur::from_millis(300));
        assert_eq!(s.path(0).data_samples, 1);
        // Everything is lost now; T3 fires 300 ms after the restart at 170 ms (R3).
        assert_eq!(s.ep.next_timeout(), Some(ms(470)));
        let out = s.fire(ms(470));
        assert_eq!(data(&out)[0], (2, D0), "single-homed: retransmission to D0");
        assert_eq!(s.path(0).rto, Dur::from_millis(600));
        assert_eq!((s.path(0).cwnd, s.path(0).ssthresh), (1500, 3000), "E1");
        // The retransmitted chunks are acked: no sample (Karn), the backoff stays.
        let out = s.inject(ms(600), sack(2, &[]));
        assert_eq!(s.path(0).rto, Dur::from_millis(600));
        assert_eq!(s.path(0).data_samples, 1);
        // New data goes out now and is timed; its ack gives a sample that clears the backoff.
        let _ = out;
        s.inject(ms(650), sack(5, &[]));
        assert_eq!(
            s.path(0).rto,
            Dur::from_millis(600),
            "no sample from retransmissions"
        );
        assert_eq!(s.path(0).data_samples, 1);
        let fresh = s.ep.sender().next_tsn.0 - 1;
        assert!(fresh > 5, "new data went out");
        s.inject(ms(750), sack(fresh, &[]));
        assert_eq!(s.path(0).data_samples, 2);
        // Second 100 ms sample: RTTVAR 3/4·50 = 37.5, SRTT 100: RTO 250 ms.
        assert_eq!(s.path(0).rto, Dur::from_millis(250));
    }

    // RFC 2960 §6.3.3 E2: repeated expiries double the RTO up to RTO.max (60 s).
    #[test]
    fn rto_repeated_expiry_doubles_to_rto_max() {
        let c = SctpConfig {
            hb_interval: Dur::from_secs(10_000),
            ..SctpConfig::default()
        };
        let (mut s, _) = single(&c, AppData::Unlimited);
        let mut rtos = vec![];
        for _ in 0..6 {
            let t = s.ep.next_timeout().unwrap();
            s.fire(t);
            rtos.push(s.path(0).rto.0 / 1_000_000_000);
        }
        assert_eq!(rtos, vec![6, 12, 24, 48, 60, 60]);
        let hist: Vec<u64> = s
            .path(0)
            .rto_history
            .iter()
            .map(|&(_, r)| r.0 / 1_000_000_000)
            .collect();
        assert_eq!(hist, vec![3, 6, 12, 24, 48, 60]);
    }

    // RFC 2960 §6.3.3 E3 under RTX_TO_ALT: the timed-out chunks go to the alternate, whose
    // T3 starts with its own RTO; under RTX_SAME they stay on the primary.
    #[test]
    fn t3_expiry_retransmits_per_policy() {
        for (policy, to) in [(RtxPolicy::Alternate, D1), (RtxPolicy::Same, D0)] {
            let (mut s, _) = established(
                &SctpConfig {
                    rtx_policy: policy,
                    ..SctpConfig::default()
                },
                AppData::Unlimited,
                true,
            );
            // D0's T3 started at 70 ms with RTO.Initial 3 s.
            let out = s.fire(ms(3070));
            let d = data(&out);
            assert_eq!(d[0], (1, to), "{policy:?}");
            assert_eq!(s.path(0).t3_expiries, 1);
            assert_eq!(s.path(0).cwnd, 1500);
            if to == D1 {
                assert_eq!(
                    s.ep.sender().paths[1].t3,
                    Some(ms(3070) + Dur::from_secs(1)),
                    "D1's own RTO"
                );
                assert!(d.contains(&(4, D0)), "new data stays on the primary: {d:?}");
            }
        }
    }

    // RFC 2960 §8.2 / spec 3 §2.5: after more than Path.Max.Retrans (5) consecutive expiries
    // the primary is inactive and new data fails over to the alternate.
    #[test]
    fn primary_failure_after_path_max_retrans_fails_over() {
        let c = SctpConfig {
            rtx_policy: RtxPolicy::Same,
            hb_interval: Dur::from_secs(10_000),
            ..SctpConfig::default()
        };
        let (mut s, _) = established(&c, AppData::Unlimited, true);
        for k in 1..=5 {
            let t = s.ep.next_timeout().unwrap();
            let out = s.fire(t);
            assert!(
                data(&out).iter().all(|&(_, d)| d == D0),
                "expiry {k} stays on D0"
            );
            assert!(s.path(0).active);
            assert_eq!(s.path(0).error_count, k);
        }
        let t = s.ep.next_timeout().unwrap();
        let out = s.fire(t);
        assert!(!s.path(0).active, "6 errors > Path.Max.Retrans");
        let d = data(&out);
        assert!(
            d.iter().all(|&(_, a)| a == D1),
            "everything moves to D1: {d:?}"
        );
        // New data now goes to D1 as well (failover).
        let out = s.inject(t + Dur::from_millis(70), sack_from(D1, 3, &[]));
        let d = data(&out);
        assert!(
            !d.is_empty() && d.iter().all(|&(tsn, a)| tsn > 3 && a == D1),
            "{d:?}"
        );
        // The association error counter passed 10? No: 6 errors so far.
        assert_eq!(s.ep.stats().assoc_max_retrans_events, 0);
    }

    // RFC 2960 §8.1 / spec 3 §2.5 (INFERRED): exceeding Association.Max.Retrans is counted
    // and the association continues unless `abort_on_assoc_max`.
    #[test]
    fn assoc_max_retrans_counted_or_aborts() {
        for abort in [false, true] {
            let c = SctpConfig {
                abort_on_assoc_max: abort,
                hb_interval: Dur::from_secs(100_000),
                ..SctpConfig::default()
            };
            let (mut s, _) = single(&c, AppData::Unlimited);
            for _ in 0..11 {
                let t = s.ep.next_timeout().unwrap();
                s.fire(t);
            }
            assert_eq!(s.ep.stats().assoc_max_retrans_events, 1);
            assert_eq!(s.ep.state() == AssocState::Closed, abort);
        }
    }
}

mod heartbeat {
    use super::*;

    // RFC 2960 §8.3 / spec 3 §2.5: the HEARTBEAT-ACK is an RTT sample for that destination:
    // the alternate's RTO goes from RTO.Initial 3 s to RTO.Min 1 s after a 70 ms sample.
    #[test]
    fn heartbeat_ack_updates_alternate_rto() {
        let (s, _) = established(&SctpConfig::default(), AppData::Unlimited, false);
        assert_eq!(s.path(1).rto, Dur::from_secs(3));
        let (s, _) = established(&SctpConfig::default(), AppData::Unlimited, true);
        let p = s.path(1);
        assert_eq!(p.rto, Dur::from_secs(1));
        assert_eq!(p.srtt, Some(Dur::from_millis(70)));
        assert_eq!(p.heartbeat_samples, 1);
        assert_eq!(
            p.rto_history,
            vec![
                (Time::ZERO, Dur::from_secs(3)),
                (ms(140), Dur::from_secs(1))
            ]
        );
        assert_eq!(s.ep.stats().heartbeats_acked, 1);
        assert_eq!(s.path(0).rto, Dur::from_secs(3), "the primary is untouched");
    }

    // RFC 2960 §8.3: an unanswered HEARTBEAT (none within RTO) counts an error and doubles
    // that destination's RTO; an idle destination is heartbeaten once per period,
    // HB.interval + RTO ± RTO/2 (Rfc jitter), and one carrying new data is not.
    #[test]
    fn heartbeat_unanswered_counts_error_and_idle_period_reprobes() {
        let c = SctpConfig {
            hb_interval: Dur::from_secs(30),
            ..SctpConfig::default()
        };
        let (mut s, _) = established(&c, AppData::Unlimited, false);
        // D0's T3 (3.07 s) and D1's heartbeat deadline (70 ms + 3 s) coincide.
        s.fire(ms(3070));
        assert_eq!(s.path(1).error_count, 1);
        assert_eq!(s.path(1).rto, Dur::from_secs(6));
        // D1's first period: busy with the setup HEARTBEAT, so no periodic one.
        let first_due = s.ep.sender().paths[1].hb_due.unwrap();
        let rto0 = Dur::from_secs(3).as_secs_f64();
        let len0 = (first_due - ms(70)).as_secs_f64();
        assert!(
            len0 >= 30.0 + rto0 / 2.0 && len0 <= 30.0 + 1.5 * rto0,
            "{len0}"
        );
        let mut hbs = vec![];
        let mut t = s.ep.next_timeout().unwrap();
        while t <= first_due {
            let out = s.fire(t);
            hbs.extend(heartbeats(&out).into_iter().map(|h| (t, h.1)));
            t = s.ep.next_timeout().unwrap();
        }
        assert!(hbs.is_empty(), "{hbs:?}");
        // The next period is drawn with D1's RTO of that moment (backed off by its T3s).
        let p1 = &s.ep.sender().paths[1];
        let (due, rto) = (p1.hb_due.unwrap(), p1.rto.as_secs_f64());
        let len = (due - first_due).as_secs_f64();
        assert!(
            len >= 30.0 + rto / 2.0 && len <= 30.0 + 1.5 * rto,
            "{len} with RTO {rto}"
        );
        while t <= due {
            let out = s.fire(t);
            hbs.extend(heartbeats(&out).into_iter().map(|h| (t, h.1)));
            t = s.ep.next_timeout().unwrap();
        }
        // Idle (it only carried retransmissions): one HEARTBEAT at the period's end.
        assert_eq!(hbs, vec![(due, D1)]);
        assert!(
            hbs.iter().all(|h| h.1 != D0),
            "D0 carried new data: not idle"
        );
    }
}

mod rfc4960 {
    use super::*;

    // RFC 4960 §5.4 (path verification) as ns-2.35 does it on COOKIE-ACK (`ProcessChunk`):
    // every destination, the primary too, is UNCONFIRMED and gets a HEARTBEAT; no DATA until
    // all have answered. An unanswered one is probed again when its HEARTBEAT times out
    // (ns-2 `SctpAgent::Timeout` for SCTP_CHUNK_HB), with the error counted.
    #[test]
    fn path_verification_holds_data_until_every_destination_answers() {
        let c = SctpConfig {
            path_verification: true,
            ..SctpConfig::default()
        };
        let (mut s, sent) = established(&c, AppData::Unlimited, false);
        let hb = heartbeats(&sent);
        let to: Vec<(Addr, Addr)> = hb.iter().map(|h| (h.0, h.1)).collect();
        assert_eq!(to, vec![(S0, D0), (S1, D1)]);
        assert!(data(&sent).is_empty(), "no DATA before verification");
        let ack = |h: &(Addr, Addr, HeartbeatInfo)| pkt(h.1, h.0, vec![Chunk::HeartbeatAck(h.2)]);
        assert!(
            data(&s.inject(ms(140), ack(&hb[0]))).is_empty(),
            "D1 unconfirmed"
        );
        assert_eq!(
            s.path(0).rto,
            Dur::from_secs(1),
            "the primary's RTT sampled"
        );
        // D1's HEARTBEAT goes unanswered: at 70 ms + 3 s it is sent again, still no DATA.
        let out = s.fire(ms(3070));
        assert_eq!(s.path(1).error_count, 1);
        let again = heartbeats(&out);
        assert_eq!(again.len(), 1);
        assert_eq!((again[0].0, again[0].1), (S1, D1));
        assert!(data(&out).is_empty());
        // Its answer releases the data: three chunks to the primary (cwnd 3000).
        let out = s.inject(ms(3140), ack(&again[0]));
        assert_eq!(data(&out), vec![(1, D0), (2, D0), (3, D0)]);
        // Off (the default): DATA right after COOKIE-ACK, one setup HEARTBEAT to D1 only.
        let (_, sent) = established(&SctpConfig::default(), AppData::Unlimited, false);
        assert_eq!(data(&sent).len(), 3);
        assert_eq!(heartbeats(&sent).len(), 1);
    }

    // RFC 4960 §7.2.1 / ns-2.35: the idle-decay timer restarts at each send with the RTO and
    // stops at a T3 expiry (`SctpAgent::Timeout`: force_cancel); what is sent after the expiry
    // restarts it: the retransmissions on D1 (RTO 1 s), new data on D0 with its backed-off
    // RTO of 6 s. After the expiry D0's cwnd is 1 MTU.
    #[test]
    fn idle_decay_timer_follows_sends_and_t3() {
        let c = SctpConfig {
            idle_cwnd_decay: true,
            ..SctpConfig::default()
        };
        let (mut s, sent) = established(&c, AppData::Unlimited, true);
        assert_eq!(data(&sent).len(), 3);
        assert_eq!(s.ep.sender().paths[0].decay_at, Some(ms(3070)));
        assert_eq!(s.ep.sender().paths[1].decay_at, None, "nothing sent to D1");
        // T3 on D0 at 3.07 s: the chunks go to D1 (RTO 1 s after the HEARTBEAT sample).
        let out = s.fire(ms(3070));
        assert_eq!(data(&out)[0].1, D1);
        assert!(data(&out).iter().any(|d| d.1 == D0), "new data on D0");
        assert_eq!(s.ep.sender().paths[0].decay_at, Some(ms(9070)));
        assert_eq!(s.ep.sender().paths[1].decay_at, Some(ms(4070)));
        assert_eq!(s.cwnd(0), 1500);
    }
}

mod pair {
    use super::*;
    use std::collections::BTreeMap;

    /// Client and server on two paths with 35 ms one way, no serialisation, and seeded loss
    /// on path0's forward direction; returns (client, server, time of the last event).
    fn run(
        cfg: &SctpConfig,
        file: u64,
        loss0: f64,
        seed: u64,
    ) -> (SctpEndpoint, SctpEndpoint, Time) {
        let mut cl = SctpEndpoint::client(
            cfg,
            vec![S0, S1],
            vec![D0, D1],
            0,
            AppData::Bytes(file),
            Rng::from_seed(seed),
        );
        let mut sv = SctpEndpoint::server(cfg, vec![D0, D1], Rng::from_seed(seed + 1));
        let mut loss = Rng::from_seed(seed + 2);
        let mut q: BTreeMap<(Time, u64), Packet> = BTreeMap::new();
        let mut n = 0u64;
        let mut out = Outbox::default();
        cl.open(Time::ZERO, &mut out);
        let mut push =
            |q: &mut BTreeMap<(Time, u64), Packet>, now: Time, out: &mut Outbox, loss: &mut Rng| {
                for p in out.packets.drain(..) {
                    let fwd_path0 = p.dst == D0
                        && !matches!(chunks(&p)[0], Chunk::Init(_) | Chunk::CookieEcho { .. });
                    if fwd_path0 && loss.bernoulli(loss0) {
                        continue;
                    }
                    n += 1;
                    q.insert((now + Dur::from_millis(35), n), p);
                }
            };
        push(&mut q, Time::ZERO, &mut out, &mut loss);
        let mut last = Time::ZERO;
        for _ in 0..2_000_000 {
            let tq = q.keys().next().map(|k| k.0);
            let tc = cl.next_timeout();
            let ts = sv.next_timeout();
            let Some(t) = [tq, tc, ts].into_iter().flatten().min() else {
                break;
            };
            last = t;
            out.clear();
            if tq == Some(t) {
                let k = *q.keys().next().unwrap();
                let p = q.remove(&k).unwrap();
                if p.dst == D0 || p.dst == D1 {
                    sv.on_packet(t, &p, &mut out);
                } else {
                    cl.on_packet(t, &p, &mut out);
                }
            } else if tc == Some(t) {
                cl.on_timer(t, &mut out);
            } else {
                sv.on_timer(t, &mut out);
            }
            push(&mut q, t, &mut out, &mut loss);
        }
        (cl, sv, last)
    }

    // End to end: every byte arrives once and in order, the association closes and the
    // simulation goes quiet (spec 3 §2.5; RFC 4960 §9.2), with and without loss.
    #[test]
    fn pair_lossy_transfer_delivers_everything_then_closes() {
        for (policy, loss) in [
            (RtxPolicy::Alternate, 0.0),
            (RtxPolicy::Alternate, 0.05),
            (RtxPolicy::Same, 0.05),
            (RtxPolicy::Alternate, 0.2),
        ] {
            let c = SctpConfig {
                rtx_policy: policy,
                ..SctpConfig::default()
            };
            let file = 300_000;
            let (cl, sv, last) = run(&c, file, loss, 42);
            let got: u64 = sv.deliveries().iter().map(|d| d.len as u64).sum();
            assert_eq!(got, file, "{policy:?} {loss}");
            let ssns: Vec<u16> = sv.deliveries().iter().map(|d| d.ssn).collect();
            assert!(ssns.windows(2).all(|w| w[1] == w[0] + 1));
            assert_eq!(cl.state(), AssocState::Closed, "{policy:?} {loss}");
            assert_eq!(sv.state(), AssocState::Closed);
            assert!(last < ms(600_000), "{last}");
            if loss > 0.0 {
                assert!(cl.stats().retransmissions > 0);
            }
        }
    }
}

// ---- ns-2.35 mechanisms (issue 14 item 7; `profile = "ns2"`) ------------------------------
mod ns2 {
    use super::*;

    // ns-2.35 `SctpAgent::Timeout`: after a T3 expiry cwnd = 1 * uiMaxDataSize, the MTU minus
    // the IP and common headers (1468 B: one full DATA chunk), so one chunk goes out. With
    // the MTU as the unit (default), cwnd = 1500 B admits a second 1468-byte chunk
    // (outstanding 1468 < 1500, RFC 4960 §6.1 B). The other cwnd rules use the same unit:
    // ssthresh floor 4 * 1468 (`FastRtx`), slow-start increments of at most 1468 (`AdjustCwnd`).
    #[test]
    fn cwnd_unit_max_data_is_one_chunk_after_t3() {
        for (unit, first, rtx, cwnd) in [
            (CwndUnit::Mtu, 3, vec![1, 2], 1500),
            (CwndUnit::MaxData, 2, vec![1], 1468),
        ] {
            let c = SctpConfig {
                cwnd_unit: unit,
                ssthresh_floor_mtus: 4,
                ..SctpConfig::default()
            };
            let (mut s, sent) = single(&c, AppData::Unlimited);
            // Initial cwnd 2 units: 3000 B admits 3 chunks, 2 * 1468 B exactly 2.
            assert_eq!(data(&sent).len(), first, "{unit:?}");
            let out = s.fire(ms(3070));
            let tsns: Vec<u32> = data(&out).iter().map(|d| d.0).collect();
            assert_eq!(tsns, rtx, "{unit:?}");
            let p = &s.ep.sender().paths[0];
            assert_eq!(
                (p.cwnd, p.ssthresh),
                (cwnd, 4 * cwnd),
                "{unit:?}: floor 4 units"
            );
            // The retransmission is acked with cwnd full: slow start adds min(1468, unit).
            s.inject(ms(3170), sack(1, &[]));
            assert_eq!(s.cwnd(0), cwnd + CHUNK, "{unit:?}");
        }
    }

    // RFC 4960 §7.2.4 rule 5 as ns-2.35's `SctpAgent::RtxMarkedChunks` codes it: a fast
    // retransmission of the lowest-TSN chunk outstanding on a destination restarts that
    // destination's T3 (here at 204 ms, RTO 3 s: due 3.204 s). Without the option T3 keeps
    // the deadline it got when TSN 1 was sent (70 ms + 3 s), R1/R3 only.
    #[test]
    fn t3_restarts_when_the_first_outstanding_chunk_is_retransmitted() {
        for (on, due) in [(false, 3070), (true, 3204)] {
            let c = SctpConfig {
                t3_restart_on_rtx: on,
                ..wide(RtxPolicy::Same)
            };
            let (mut s, _) = established(&c, AppData::Unlimited, true);
            for k in 1..=4u16 {
                s.inject(ms(200 + k as u64), sack(0, &[(2, k + 1)]));
            }
            assert_eq!(s.ep.stats().fast_retransmits, 1);
            assert_eq!(s.ep.sender().paths[0].t3, Some(ms(due)), "option {on}");
            // A later retransmission that is not the first outstanding restarts nothing:
            // TSN 6 is fast-retransmitted while TSN 1 is still outstanding.
            for k in 6..=9u16 {
                s.inject(ms(300 + k as u64), sack(0, &[(2, 5), (7, k + 1)]));
            }
            assert_eq!(s.ep.stats().fast_retransmits, 2);
            assert_eq!(s.ep.sender().paths[0].t3, Some(ms(due)), "option {on}");
        }
    }

    // ns-2.35 `SctpAgent::recv`: new DATA only when no chunk is marked for retransmission
    // (`eMarkedChunksPending == FALSE`). After D0's T3 the 11 chunks go to D1, whose cwnd
    // (set to 1 MTU here) takes 2 of them; by default D0, empty with cwnd 1 MTU, gets new
    // data (RFC 4960 §6.1 C is per destination); with the option nothing new goes out.
    #[test]
    fn new_data_waits_while_retransmissions_are_pending() {
        for (on, new) in [(false, vec![12, 13]), (true, vec![])] {
            let c = SctpConfig {
                new_data_waits_for_rtx: on,
                ..wide(RtxPolicy::Alternate)
            };
            let (mut s, sent) = established(&c, AppData::Unlimited, true);
            assert_eq!(data(&sent).len(), 11);
            s.ep.sender_mut().paths[1].cwnd = 1500;
            let out = s.fire(ms(3070));
            let d = data(&out);
            assert_eq!(&d[..2], &[(1, D1), (2, D1)], "option {on}");
            let fresh: Vec<u32> = d.iter().filter(|x| x.0 > 11).map(|x| x.0).collect();
            assert_eq!(fresh, new, "option {on}");
            assert!(d[2..].iter().all(|x| x.1 == D0), "new data only on D0");
        }
    }

    // ns-2.35 `SctpAgent::ProcessSackChunk`: a SACK that needs a fast retransmit calls
    // `FastRtx`, which sends one packet (`RtxMarkedChunks(RTX_LIMIT_ONE_PACKET)`); the
    // cwnd-limited `RtxMarkedChunks(RTX_LIMIT_CWND)` is the `else` branch, so the other marked
    // chunks wait for the next SACK. TSNs 1 and 2 lost: the 4th missing report marks both for
    // D1 (empty, cwnd 10 MTU). By default both go at once; with the option only TSN 1 (one
    // full chunk is one packet), and TSN 2 on the next SACK.
    #[test]
    fn fast_rtx_sack_sends_one_packet() {
        for on in [false, true] {
            let c = SctpConfig {
                rtx_one_packet: on,
                new_data_waits_for_rtx: true,
                ..wide(RtxPolicy::Alternate)
            };
            let (mut s, sent) = established(&c, AppData::Unlimited, true);
            assert_eq!(data(&sent).len(), 11);
            let mut out = vec![];
            for k in 1..=4u16 {
                out = s.inject(ms(200 + k as u64), sack(0, &[(3, k + 2)]));
            }
            assert_eq!(s.ep.stats().fast_retransmits, 2, "option {on}");
            let want = if on {
                vec![(1, D1)]
            } else {
                vec![(1, D1), (2, D1)]
            };
            assert_eq!(data(&out), want, "option {on}");
            let out = s.inject(ms(210), sack(0, &[(3, 7)]));
            let d = data(&out);
            assert_eq!(d.first() == Some(&(2, D1)), on, "option {on}: {d:?}");
        }
    }

    // ns-2.35 `SctpAgent::Timeout` -> `TimeoutRtx` -> `RtxMarkedChunks(RTX_LIMIT_ONE_PACKET)`:
    // a T3 expiry sends one packet and nothing else. D0's T3 (RTO 3 s) marks the 11 chunks
    // for D1 (cwnd 10 MTU): by default 10 go at once (cwnd-limited, RFC 4960 §6.1 C) and new
    // data to D0, with the option only TSN 1, no new data; the SACK of TSN 1 from D1 then releases the rest.
    #[test]
    fn t3_expiry_sends_one_packet() {
        for on in [false, true] {
            let c = SctpConfig {
                rtx_one_packet: on,
                ..wide(RtxPolicy::Alternate)
            };
            let (mut s, sent) = established(&c, AppData::Unlimited, true);
            assert_eq!(data(&sent).len(), 11);
            let d = data(&s.fire(ms(3070)));
            assert_eq!(d[0], (1, D1), "option {on}");
            if on {
                assert_eq!(d, vec![(1, D1)]);
                let d = data(&s.inject(ms(3150), sack_from(D1, 1, &[])));
                assert_eq!(d.first(), Some(&(2, D1)), "{d:?}");
            } else {
                assert!(d.len() >= 10, "{d:?}");
            }
        }
    }

    // ns-2.35 `eApplyMaxBurst` (`SendBufferDequeueUpTo`, `SendMuch`): Max.Burst (4) applies
    // only after a SACK cumulatively acks a fast-retransmitted chunk, for one burst that
    // reaches it. At setup, cwnd 10 MTU: 11 packets at once with the option, 4 without.
    // After TSN 1 is fast-retransmitted and acked, the next send is limited to 4 packets
    // with the option too; the send after that is not.
    #[test]
    fn max_burst_only_after_a_fast_retransmitted_chunk_is_acked() {
        for on in [false, true] {
            let c = SctpConfig {
                initial_cwnd_mtus: 10,
                max_burst_after_fast_rtx: on,
                rtx_policy: RtxPolicy::Same,
                ..SctpConfig::default()
            };
            let (mut s, sent) = single(&c, AppData::Unlimited);
            assert_eq!(data(&sent).len(), if on { 11 } else { 4 }, "option {on}");
            let top = s.ep.sender().next_tsn.0 - 1;
            // TSN 1 lost: four missing reports fast-retransmit it (cwnd 15000 -> 7500).
            for k in 1..=4u16 {
                s.inject(ms(200 + k as u64), sack(0, &[(2, k + 1)]));
            }
            assert_eq!(s.ep.stats().fast_retransmits, 1);
            assert_eq!(s.cwnd(0), 7500);
            // Everything sent so far is acked (cwnd 7500 + 1500 in slow start): 9000 B of
            // room, 7 packets' worth.
            let top2 = s.ep.sender().next_tsn.0 - 1;
            assert!(top2 >= top);
            let out = s.inject(ms(300), sack(top2, &[]));
            assert_eq!(s.cwnd(0), 9000);
            assert_eq!(
                data(&out).len(),
                4,
                "option {on}: limited after the ack of TSN 1"
            );
            let top3 = s.ep.sender().next_tsn.0 - 1;
            let out = s.inject(ms(400), sack(top3, &[]));
            assert_eq!(data(&out).len(), if on { 7 } else { 4 }, "option {on}");
        }
    }

    // ns-2.35 `SctpAgent::ProcessGapAckBlocks` (HTNA): a TSN gets a missing report only when
    // it is below the highest TSN newly acknowledged, a value kept across SACKs that the
    // cumulative ack sets (to the last chunk it newly acks) and gap blocks raise. TSNs 1 and 5
    // are missing (trigger 2). SACK A (gaps 2-4, 6) reports both once. SACK B moves the
    // cumulative ack to 4 (TSN 1 arrived) and repeats the gap at 6: HTNA is 1, no fast
    // recovery is in progress, so TSN 5 gets no report; by the highest-TSN-SACKed rule
    // (default, RFC 2960) it gets its second and is fast-retransmitted. SACK C newly acks 7:
    // HTNA 7, TSN 5's second report.
    #[test]
    fn htna_counts_only_below_the_highest_newly_acked_tsn() {
        for (on, after_b, after_c) in [(false, 1, 1), (true, 0, 1)] {
            let c = SctpConfig {
                htna: on,
                fast_rtx_threshold: 2,
                ..wide(RtxPolicy::Same)
            };
            let (mut s, _) = established(&c, AppData::Unlimited, true);
            s.inject(ms(200), sack(0, &[(2, 4), (6, 6)]));
            assert_eq!(s.ep.stats().fast_retransmits, 0);
            let out = s.inject(ms(201), sack(4, &[(2, 2)]));
            assert_eq!(s.ep.stats().fast_retransmits, after_b, "option {on}");
            assert_eq!(data(&out).iter().any(|d| d.0 == 5), after_b == 1);
            s.inject(ms(202), sack(4, &[(2, 3)]));
            assert_eq!(s.ep.stats().fast_retransmits, after_c, "option {on}");
        }
    }

    // ns-2.35 `SctpAgent::FastRtx`: the cwnd cut sets `eRtoPending = FALSE`, dropping the
    // RTT measurement in progress on that destination (TSN 12, sent at 170 ms). By default
    // the measurement survives the fast retransmit of TSN 2 and its ack at 300 ms gives a
    // second sample (130 ms); with the option there is none.
    #[test]
    fn fast_rtx_cut_cancels_the_rtt_measurement() {
        for (on, timed, samples) in [(false, Some((Seq(12), ms(170))), 2), (true, None, 1)] {
            let c = SctpConfig {
                initial_cwnd_mtus: 10,
                max_burst: 0,
                fast_recovery: true,
                cancel_rtt_on_cut: on,
                ..SctpConfig::default()
            };
            let (mut s, sent) = single(&c, AppData::Unlimited);
            assert_eq!(data(&sent).len(), 11);
            let out = s.inject(ms(170), sack(1, &[]));
            assert_eq!(data(&out)[0].0, 12);
            assert_eq!(s.ep.sender().paths[0].timed, Some((Seq(12), ms(170))));
            for k in 1..=4u16 {
                s.inject(ms(200 + k as u64), sack(1, &[(2, k + 1)]));
            }
            assert_eq!(s.ep.stats().fast_retransmits, 1);
            assert_eq!(s.ep.sender().paths[0].timed, timed, "option {on}");
            let top = s.ep.sender().next_tsn.0 - 1;
            s.inject(ms(300), sack(top, &[]));
            assert_eq!(s.path(0).data_samples, samples, "option {on}");
        }
    }
    // ns-2.35 `SctpAgent::FastRtx` cuts cwnd for every marked chunk above `uiRecover`, and
    // then raises `uiRecover` to the highest TSN sent, even while the cumulative ack is still
    // below the old value; `ProcessSackChunk` grows cwnd only when the cumulative ack is at
    // or beyond `uiRecover`. RFC 4960 §7.2.4 (the default): no second cut until the exit
    // point is acked. TSN 1 is lost (first cut, 15000 -> 7500, exit point `r1`), then
    // TSN r1 + 1, sent after that cut, is lost too while TSN 1 is still missing. With the
    // option its fast retransmit cuts again (7500 -> 3750) and moves the exit point beyond
    // r1, so the SACK that acks everything up to r1 grows nothing; by default it ends fast
    // recovery and slow start adds one chunk.
    #[test]
    fn cut_above_recover_cuts_again_and_raises_the_exit_point() {
        for (on, second_cut, after) in [(false, 7500, 7500 + CHUNK), (true, 3750, 3750)] {
            let c = SctpConfig {
                initial_cwnd_mtus: 10,
                max_burst: 0,
                fast_recovery: true,
                rtx_policy: RtxPolicy::Same,
                cut_above_recover: on,
                ..SctpConfig::default()
            };
            let (mut s, sent) = single(&c, AppData::Unlimited);
            assert_eq!(data(&sent).len(), 11);
            for k in 1..=4u16 {
                s.inject(ms(200 + k as u64), sack(0, &[(2, k + 1)]));
            }
            assert_eq!(s.ep.stats().fast_retransmits, 1);
            assert_eq!(s.cwnd(0), 7500);
            let r1 = s.ep.sender().recover.expect("in fast recovery").0;
            // Everything up to r1 but TSN 1 arrives: five new chunks r1+1.. go out.
            let out = s.inject(ms(300), sack(0, &[(2, r1 as u16)]));
            let fresh: Vec<u32> = data(&out).iter().map(|d| d.0).collect();
            assert_eq!(
                fresh,
                (r1 + 1..=r1 + 5).collect::<Vec<u32>>(),
                "option {on}"
            );
            // TSN r1 + 1 is lost: four SACKs ack r1 + 2, r1 + 3, ... one more each.
            let x = r1 as u16 + 1;
            for k in 1..=4u16 {
                s.inject(ms(300 + k as u64), sack(0, &[(2, x - 1), (x + 1, x + k)]));
            }
            assert_eq!(s.ep.stats().fast_retransmits, 2, "option {on}");
            assert_eq!(s.cwnd(0), second_cut, "option {on}");
            let r = s.ep.sender().recover.expect("in fast recovery").0;
            assert_eq!(r > r1, on, "option {on}: exit point {r} vs {r1}");
            // TSN 1's retransmission arrives: the cumulative ack reaches r1.
            s.inject(ms(400), sack(r1, &[(2, 5)]));
            assert_eq!(s.cwnd(0), after, "option {on}");
        }
    }
}
