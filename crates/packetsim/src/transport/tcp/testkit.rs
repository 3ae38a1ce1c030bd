//! Test kit for TCP (compiled for tests only): segment templates, a one-endpoint script driver
//! with explicit times (`Script::inject`, `Script::fire`), and a two-endpoint `Pair` harness on
//! virtual time (one-way delay, serialisation rate, drop-by-sequence, seeded random loss and
//! CE marking of chosen or periodic data segments, as a congested ECN router would).
//!
//! Conventions: MSS = 1000 bytes, the sender's ISS is 0, so segment `i` starts at
//! `seg(i) = 1 + 1000·i`.

use super::{AppData, EcnEcho, TcpConfig, TcpReceiver, TcpSender, Variant};
use crate::ids::Addr;
use crate::packet::{Body, Ecn, Packet, SackBlocks, Seq, TcpFlags, TcpHeader, Timestamps};
use crate::transport::{Endpoint, Notice, Outbox};
use packetsim_kernel::{Dur, Rate, Time};
use std::collections::BTreeMap;
use std::collections::VecDeque;

/// Segment size used by the scripted tests.
pub const MSS: u32 = 1000;
/// Window advertised by scripted peers.
pub const WND: u32 = 100_000;
/// Sender address.
pub const SND: Addr = Addr(1);
/// Receiver address.
pub const RCV: Addr = Addr(2);

/// Start of segment `i`.
pub fn seg(i: u32) -> u32 {
    1 + i * MSS
}

/// Milliseconds as a `Time`.
pub fn ms(m: u64) -> Time {
    Time::from_millis(m)
}

/// A test configuration: MSS 1000, rcv_window 100 kB, RTO initial 1 s, min 200 ms, max 60 s;
/// `dctcp` also gets what it needs, ECN with the per-segment echo (RFC 8257 §3.2).
pub fn cfg(variant: Variant) -> TcpConfig {
    let dctcp = variant == Variant::Dctcp;
    TcpConfig {
        ecn: dctcp,
        ecn_echo: if dctcp {
            EcnEcho::PerSegment
        } else {
            EcnEcho::Rfc3168
        },
        variant,
        mss: MSS,
        initial_cwnd: 10,
        initial_ssthresh: None,
        rcv_window: WND as u64,
        rto_initial: Dur::from_secs(1),
        rto_min: Dur::from_millis(200),
        rto_max: Dur::from_secs(60),
        granularity: Dur::from_millis(1),
        ..TcpConfig::default()
    }
}

/// Template of a pure ACK from the receiver.
pub fn ack(n: u32) -> TcpHeader {
    TcpHeader {
        seq: Seq(1),
        ack: Seq(n),
        flags: TcpFlags::ACK,
        wnd: WND,
        ..Default::default()
    }
}

/// An ACK with SACK blocks.
pub fn sack_ack(n: u32, blocks: &[(u32, u32)]) -> TcpHeader {
    let bs: Vec<(Seq, Seq)> = blocks.iter().map(|&(l, r)| (Seq(l), Seq(r))).collect();
    TcpHeader {
        sack: SackBlocks::from_slice(&bs),
        ..ack(n)
    }
}

/// Template of a SYN-ACK answering the sender's SYN.
pub fn syn_ack() -> TcpHeader {
    TcpHeader {
        seq: Seq(0),
        ack: Seq(1),
        flags: TcpFlags::SYN | TcpFlags::ACK,
        wnd: WND,
        ..Default::default()
    }
}

/// Template of a SYN.
pub fn syn() -> TcpHeader {
    TcpHeader {
        seq: Seq(0),
        flags: TcpFlags::SYN,
        wnd: WND,
        ..Default::default()
    }
}

/// A data segment `[start, start + len)`.
pub fn data(start: u32, len: u32) -> TcpHeader {
    TcpHeader {
        seq: Seq(start),
        ack: Seq(1),
        flags: TcpFlags::ACK,
        wnd: WND,
        payload: len,
        ..Default::default()
    }
}

/// A data segment with a timestamp.
pub fn data_ts(start: u32, len: u32, val: Time) -> TcpHeader {
    TcpHeader {
        ts: Some(Timestamps {
            val,
            ecr: Time::ZERO,
        }),
        ..data(start, len)
    }
}

/// Start sequence numbers of the data segments among `hs`.
pub fn data_seqs(hs: &[TcpHeader]) -> Vec<u32> {
    hs.iter()
        .filter(|h| h.payload > 0)
        .map(|h| h.seq.0)
        .collect()
}

/// One endpoint driven by a script with explicit times.
pub struct Script<E: Endpoint> {
    /// The endpoint under test.
    pub ep: E,
    /// Bytes delivered so far (receiver).
    pub delivered: u64,
    /// ECN codepoints of the packets returned by the last `inject`/`fire`, in order.
    pub last_ecn: Vec<Ecn>,
    out: Outbox,
    now: Time,
}

impl<E: Endpoint> Script<E> {
    /// A script around `ep`.
    pub fn new(ep: E) -> Script<E> {
        Script {
            ep,
            delivered: 0,
            last_ecn: Vec::new(),
            out: Outbox::default(),
            now: Time::ZERO,
        }
    }

    fn take(&mut self) -> Vec<TcpHeader> {
        self.delivered += self.out.delivered_bytes;
        self.last_ecn = self.out.packets.iter().map(|p| p.ecn).collect();
        let hs = self
            .out
            .packets
            .iter()
            .map(|p| *p.tcp().expect("a TCP endpoint sent a non-TCP packet"))
            .collect();
        self.out.clear();
        hs
    }

    /// Injects `hdr` at `at` (the timer must not be due before); returns what was sent.
    pub fn inject(&mut self, at: Time, hdr: TcpHeader) -> Vec<TcpHeader> {
        self.inject_ecn(at, hdr, Ecn::NotEct)
    }

    /// As `inject`, with the packet's ECN codepoint set to `ecn` (e.g. `Ce` as a router
    /// marked it).
    pub fn inject_ecn(&mut self, at: Time, hdr: TcpHeader, ecn: Ecn) -> Vec<TcpHeader> {
        let mut p = Packet::new(RCV, SND, Body::Tcp(hdr));
        p.ecn = ecn;
        self.inject_packet(at, p)
    }

    /// As `inject`, with the base station's queue report `q` in the packet's side fields
    /// (`meta.queue_report`, spec 2 §2.3 item 1).
    pub fn inject_report(&mut self, at: Time, hdr: TcpHeader, q: Option<u32>) -> Vec<TcpHeader> {
        let mut p = Packet::new(RCV, SND, Body::Tcp(hdr));
        p.meta.queue_report = q;
        self.inject_packet(at, p)
    }

    /// Injects the packet `p` at `at` (the timer must not be due before); returns what was sent.
    pub fn inject_packet(&mut self, at: Time, p: Packet) -> Vec<TcpHeader> {
        assert!(at >= self.now, "script went back in time");
        if let Some(t) = self.ep.next_timeout() {
            assert!(t >= at, "timer due at {t} before injection at {at}");
        }
        self.now = at;
        self.ep.on_packet(at, &p, &mut self.out);
        self.take()
    }

    /// Delivers the world's notice `n` at `at` (the timer must not be due before); returns
    /// what was sent.
    pub fn notify(&mut self, at: Time, n: Notice) -> Vec<TcpHeader> {
        assert!(at >= self.now, "script went back in time");
        if let Some(t) = self.ep.next_timeout() {
            assert!(t >= at, "timer due at {t} before notice at {at}");
        }
        self.now = at;
        self.ep.on_event(at, &n, &mut self.out);
        self.take()
    }

    /// Asserts that the next timer is due exactly at `at`, fires it; returns what was sent.
    pub fn fire(&mut self, at: Time) -> Vec<TcpHeader> {
        assert_eq!(
            self.ep.next_timeout(),
            Some(at),
            "timer not due when expected"
        );
        self.now = at;
        self.ep.on_timer(at, &mut self.out);
        self.take()
    }
}

impl Script<TcpSender> {
    /// A sender opened at 0; also returns its SYN (its ECN codepoint is in `last_ecn`).
    pub fn opened(cfg: &TcpConfig, app: AppData) -> (Script<TcpSender>, TcpHeader) {
        let mut s = Script::new(TcpSender::new(cfg, SND, RCV, app));
        s.ep.open(Time::ZERO, &mut s.out);
        let syn = s.take();
        assert_eq!(syn.len(), 1);
        assert!(syn[0].flags.contains(TcpFlags::SYN));
        (s, syn[0])
    }

    /// A sender opened at 0 and established by a SYN-ACK at 100 ms (RTT sample 100 ms);
    /// also returns what it sent on establishment. The SYN-ACK agrees to SACK for the sack
    /// variant and to ECN when `cfg.ecn` (RFC 3168 §6.1.1: ECE set, CWR clear).
    pub fn established(cfg: &TcpConfig, app: AppData) -> (Script<TcpSender>, Vec<TcpHeader>) {
        let (mut s, _) = Script::opened(cfg, app);
        let sa = TcpHeader {
            sack_permitted: cfg.offers_sack(),
            ..syn_ack()
        };
        let sa = if cfg.ecn {
            sa.with_flags(TcpFlags::ECE)
        } else {
            sa
        };
        let sent = s.inject(ms(100), sa);
        (s, sent)
    }

    /// The SACK scenario of the recovery tests: of segments 0..9 (the established sender's
    /// first window), 2, 5 and 7 are lost. Two ACKs of new data at 200 ms (slow start sends
    /// 10..13 meanwhile), then at 201 ms three duplicate ACKs whose SACK blocks report 3, then
    /// 3-4, then 3-4 and 6. Returns the time of the duplicates and what the third one sent;
    /// the first two must send nothing.
    pub fn sack_losses_2_5_7_to_third_dupack(&mut self) -> (Time, Vec<TcpHeader>) {
        self.inject(ms(200), ack(seg(1)));
        self.inject(ms(200), ack(seg(2)));
        let t = ms(201);
        assert!(self
            .inject(t, sack_ack(seg(2), &[(seg(3), seg(4))]))
            .is_empty());
        assert!(self
            .inject(t, sack_ack(seg(2), &[(seg(3), seg(5))]))
            .is_empty());
        let out = self.inject(t, sack_ack(seg(2), &[(seg(6), seg(7)), (seg(3), seg(5))]));
        (t, out)
    }
}

/// Adds flags to a header template.
pub trait WithFlags {
    /// The header with `f` added to its flags.
    fn with_flags(self, f: TcpFlags) -> Self;
}

impl WithFlags for TcpHeader {
    fn with_flags(mut self, f: TcpFlags) -> Self {
        self.flags = self.flags | f;
        self
    }
}

/// Direction of a packet in the pair harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Sender to receiver.
    Fwd,
    /// Receiver to sender.
    Rev,
}

/// Two endpoints on virtual time: per direction a FIFO transmitter of fixed rate followed by a
/// fixed one-way delay, and a lossy point before the transmitter.
pub struct Pair {
    /// The sender.
    pub snd: TcpSender,
    /// The receiver.
    pub rcv: TcpReceiver,
    /// Current virtual time.
    pub now: Time,
    /// Bytes delivered in order to the receiving application.
    pub delivered: u64,
    /// Data segments (time, start seq, len) the sender transmitted, in order.
    pub sent: Vec<(Time, u32, u32)>,
    /// Data segments to drop at their next transmission (by start sequence number).
    pub drop_once: Vec<u32>,
    /// Random per-packet loss probability.
    pub loss: f64,
    /// Whether random loss applies to ACKs and handshake packets too.
    pub loss_both_ways: bool,
    /// Data segments to mark CE at their next transmission (by start sequence number), if
    /// they are ECN-capable (a router marks only ECT packets, RFC 3168 §5).
    pub mark_once: Vec<u32>,
    /// Mark CE every `n`-th ECN-capable data segment transmitted (0: never).
    pub mark_every: u32,
    /// Step marking (a DCTCP-style threshold, RFC 8257 §1 / the DCTCP paper's K): mark CE an
    /// ECN-capable data segment that arrives at the forward transmitter while at least this
    /// many packets are in it (queued or being sent); 0: off.
    pub mark_queue_at: u32,
    /// The forward queue length (packets, including the arriving one) at each data segment's
    /// arrival: (time, length).
    pub queue_samples: Vec<(Time, u32)>,
    /// Departure times of the packets in the forward transmitter.
    fwd_queue: VecDeque<Time>,
    /// Data segments marked CE so far.
    pub marked: u64,
    ect_seen: u64,
    delay: Dur,
    rate: Rate,
    link_free: [Time; 2],
    rng: u64,
    seqno: u64,
    events: BTreeMap<(Time, u64), (Dir, Packet)>,
    out: Outbox,
}

impl Pair {
    /// A pair with the given config and application data, 10 ms one-way delay, 10 Mb/s.
    pub fn new(cfg: &TcpConfig, app: AppData) -> Pair {
        Pair {
            snd: TcpSender::new(cfg, SND, RCV, app),
            rcv: TcpReceiver::new(cfg, RCV, SND),
            now: Time::ZERO,
            delivered: 0,
            sent: Vec::new(),
            drop_once: Vec::new(),
            loss: 0.0,
            loss_both_ways: false,
            mark_once: Vec::new(),
            mark_every: 0,
            marked: 0,
            mark_queue_at: 0,
            queue_samples: Vec::new(),
            fwd_queue: VecDeque::new(),
            ect_seen: 0,
            delay: Dur::from_millis(10),
            rate: Rate::mbps(10),
            link_free: [Time::ZERO; 2],
            rng: 0x9E37_79B9_7F4A_7C15,
            seqno: 0,
            events: BTreeMap::new(),
            out: Outbox::default(),
        }
    }

    /// Seeds the random loss.
    pub fn seed(&mut self, seed: u64) {
        self.rng = seed ^ 0x9E37_79B9_7F4A_7C15;
    }

    fn uniform(&mut self) -> f64 {
        // SplitMix64.
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    fn flush(&mut self, dir: Dir) {
        self.delivered += self.out.delivered_bytes;
        let pkts: Vec<Packet> = self.out.packets.drain(..).collect();
        self.out.delivered_bytes = 0;
        for mut p in pkts {
            let h = *p.tcp().unwrap();
            if dir == Dir::Fwd && h.payload > 0 {
                self.sent.push((self.now, h.seq.0, h.payload));
                if let Some(i) = self.drop_once.iter().position(|&s| s == h.seq.0) {
                    self.drop_once.remove(i);
                    continue;
                }
                while self.fwd_queue.front().is_some_and(|&t| t <= self.now) {
                    self.fwd_queue.pop_front();
                }
                let qlen = self.fwd_queue.len() as u32 + 1;
                self.queue_samples.push((self.now, qlen));
                if p.ecn.is_ect() && self.mark_queue_at > 0 && qlen > self.mark_queue_at {
                    p.ecn = Ecn::Ce;
                    self.marked += 1;
                } else if p.ecn.is_ect() {
                    self.ect_seen += 1;
                    let periodic =
                        self.mark_every > 0 && self.ect_seen.is_multiple_of(self.mark_every as u64);
                    let chosen = self.mark_once.iter().position(|&s| s == h.seq.0);
                    if let Some(i) = chosen {
                        self.mark_once.remove(i);
                    }
                    if periodic || chosen.is_some() {
                        p.ecn = Ecn::Ce;
                        self.marked += 1;
                    }
                }
            }
            let lossy = dir == Dir::Fwd && h.payload > 0 || self.loss_both_ways;
            if lossy && self.loss > 0.0 && self.uniform() < self.loss {
                continue;
            }
            let k = (dir == Dir::Rev) as usize;
            let start = self.now.max(self.link_free[k]);
            let done = start + self.rate.tx_time(p.size);
            self.link_free[k] = done;
            if dir == Dir::Fwd {
                self.fwd_queue.push_back(done);
            }
            self.seqno += 1;
            self.events
                .insert((done + self.delay, self.seqno), (dir, p));
        }
    }

    /// Opens the connection at the current time.
    pub fn open(&mut self) {
        self.snd.open(self.now, &mut self.out);
        self.flush(Dir::Fwd);
    }

    /// Runs until nothing is pending or `end` is reached; returns the time of the last event.
    pub fn run_until(&mut self, end: Time) -> Time {
        loop {
            let ev = self.events.keys().next().map(|k| k.0);
            let ts = self.snd.next_timeout();
            let tr = self.rcv.next_timeout();
            let next = [ev, ts, tr].into_iter().flatten().min();
            let Some(t) = next else {
                return self.now;
            };
            if t > end {
                return self.now;
            }
            self.now = t;
            if ev == Some(t) {
                let (_, (dir, p)) = self.events.pop_first().unwrap();
                match dir {
                    Dir::Fwd => {
                        self.rcv.on_packet(t, &p, &mut self.out);
                        self.flush(Dir::Rev);
                    }
                    Dir::Rev => {
                        self.snd.on_packet(t, &p, &mut self.out);
                        self.flush(Dir::Fwd);
                    }
                }
            } else if ts == Some(t) {
                self.snd.on_timer(t, &mut self.out);
                self.flush(Dir::Fwd);
            } else {
                self.rcv.on_timer(t, &mut self.out);
                self.flush(Dir::Rev);
            }
        }
    }

    /// Start sequence numbers of every retransmitted data segment, in order.
    pub fn retransmitted(&self) -> Vec<u32> {
        let mut max = 0u32;
        let mut v = Vec::new();
        for &(_, s, l) in &self.sent {
            if s + l <= max {
                v.push(s);
            }
            max = max.max(s + l);
        }
        v
    }
}

/// Runs a file transfer of `bytes` through a pair and asserts exact, once, in-order delivery.
pub fn assert_file_delivered(pair: &mut Pair, bytes: u64) {
    pair.open();
    pair.run_until(Time::from_secs_f64(100_000.0));
    assert_eq!(pair.delivered, bytes, "bytes delivered to the application");
    assert_eq!(pair.rcv.stats().bytes_delivered, bytes);
    assert_eq!(
        pair.rcv.rcv_nxt(),
        Seq(1) + bytes as u32,
        "receiver's next sequence"
    );
    assert_eq!(pair.rcv.out_of_order_bytes(), 0);
    assert!(
        pair.snd.is_done(),
        "sender did not see every byte acknowledged"
    );
    assert_eq!(pair.snd.stats().bytes_acked, bytes);
    assert_eq!(pair.snd.next_timeout(), None, "timer left running");
}
