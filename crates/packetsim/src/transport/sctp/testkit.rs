//! Test kit for SCTP (compiled for tests only): a two-endpoint, multihomed harness on virtual
//! time for any pair of [`Endpoint`]s (quinn's `Pair`, with paths).
//!
//! **Addresses and paths.** End A has addresses `addr_a(0..n)` = `addr#10, addr#11, ..`; end
//! B has `addr_b(0..n)` = `addr#20, addr#21, ..`, where `n` is the number of paths. Path `i`
//! joins A's address `i` and B's address `i`. A packet is routed by its **destination**: one
//! from A to `addr_b(i)` and one from B to `addr_a(i)` both cross path `i` (spec 3 §2.5:
//! traffic to D0 uses path0, to D1 path1, in both directions). The source must be one of the
//! sender's own addresses; anything else (or a destination that is not the peer's) is a bug
//! in the endpoint and panics with the packet in the message.
//!
//! **A path direction** is a FIFO transmitter of fixed rate followed by a fixed one-way delay,
//! with a lossy point before the transmitter: first the scripted [`DropRule`]s, then a
//! Bernoulli loss with the direction's rate, drawn from its own seeded [`Rng`] stream
//! (`Rng::for_component(seed, "path{i}.{ab|ba}")`), so changing one direction's loss rate does
//! not change which packets the other loses. Loss applies to every packet (DATA, SACK,
//! HEARTBEAT, handshake), as spec 3 §2.1 says; set a direction's rate to 0 for a clean one.
//!
//! **Run loop.** Events in time order (packet arrivals first, then A's timer, then B's, at
//! equal times); an endpoint's `on_timer` is called when its `next_timeout() <= now`. Runs stop
//! at a time limit, when a predicate holds, or when both ends are quiet (nothing in flight and
//! no timer). Bytes each end handed to its application are summed in `delivered`.
//!
//! ```ignore
//! let mut h = Harness::new(client, server, vec![PathSpec::new(ms(35), Rate::mbps(2)); 2], seed);
//! h.paths[0].loss_ab = 0.05;
//! h.drops.push(DropRule::NthData { path: 0, dir: Dir::AtoB, n: 3 });
//! h.with_a(|c, now, out| c.open(now, out));
//! h.run_until(secs(600), |h| h.delivered[B] == FILE);
//! ```

use crate::ids::Addr;
use crate::packet::{Chunk, Packet, Tsn};
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::{Dur, Rate, Rng, Time};
use std::collections::BTreeMap;

/// Index of end A in per-end arrays.
pub const A: usize = 0;
/// Index of end B in per-end arrays.
pub const B: usize = 1;

/// End A's address on path `i`.
pub fn addr_a(i: usize) -> Addr {
    Addr(10 + i as u32)
}

/// End B's address on path `i`.
pub fn addr_b(i: usize) -> Addr {
    Addr(20 + i as u32)
}

/// Milliseconds as a `Time`.
pub fn ms(m: u64) -> Time {
    Time::from_millis(m)
}

/// Whole seconds as a `Time`.
pub fn secs(s: u64) -> Time {
    Time::from_millis(s * 1000)
}

/// Direction of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// From end A to end B.
    AtoB,
    /// From end B to end A.
    BtoA,
}

impl Dir {
    fn idx(self) -> usize {
        match self {
            Dir::AtoB => 0,
            Dir::BtoA => 1,
        }
    }
}

/// One path: the same delay and rate both ways, a loss rate per direction.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSpec {
    /// One-way propagation delay.
    pub delay: Dur,
    /// Serialisation rate of each direction's transmitter.
    pub rate: Rate,
    /// Bernoulli loss probability from A to B.
    pub loss_ab: f64,
    /// Bernoulli loss probability from B to A.
    pub loss_ba: f64,
}

impl PathSpec {
    /// A loss-free path.
    pub fn new(delay: Dur, rate: Rate) -> PathSpec {
        PathSpec {
            delay,
            rate,
            loss_ab: 0.0,
            loss_ba: 0.0,
        }
    }
    /// The path with the given loss rates (A to B, B to A).
    pub fn with_loss(self, loss_ab: f64, loss_ba: f64) -> PathSpec {
        PathSpec {
            loss_ab,
            loss_ba,
            ..self
        }
    }
    fn loss(&self, d: Dir) -> f64 {
        match d {
            Dir::AtoB => self.loss_ab,
            Dir::BtoA => self.loss_ba,
        }
    }
}

/// A scripted drop. Each rule drops one packet and is then used up, except `Tsn` which drops
/// `times` packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropRule {
    /// The `n`-th packet carrying DATA (counting from 1) sent on `path` in `dir`.
    NthData {
        /// Path index.
        path: usize,
        /// Direction.
        dir: Dir,
        /// Which DATA packet, from 1.
        n: u64,
    },
    /// The `n`-th packet of any kind (counting from 1) sent on `path` in `dir`.
    NthPacket {
        /// Path index.
        path: usize,
        /// Direction.
        dir: Dir,
        /// Which packet, from 1.
        n: u64,
    },
    /// The next `times` packets carrying the DATA chunk `tsn` in `dir`, on any path.
    Tsn {
        /// Direction.
        dir: Dir,
        /// The chunk's TSN.
        tsn: Tsn,
        /// How many transmissions to drop.
        times: u32,
    },
}

/// What happened to a packet handed to a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// It was put on the path (and will arrive).
    Sent,
    /// A scripted [`DropRule`] dropped it.
    Dropped,
    /// The Bernoulli loss dropped it.
    Lost,
}

/// One packet handed to a path, as recorded in [`Harness::log`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// When the endpoint sent it.
    pub at: Time,
    /// Direction.
    pub dir: Dir,
    /// Path index.
    pub path: usize,
    /// TSNs of the DATA chunks it carried.
    pub tsns: Vec<Tsn>,
    /// It carried a SACK.
    pub sack: bool,
    /// It carried a HEARTBEAT or HEARTBEAT-ACK.
    pub heartbeat: bool,
    /// What became of it.
    pub fate: Fate,
}

/// Counters of one direction of one path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirStats {
    /// Packets handed to the path.
    pub packets: u64,
    /// Of which carried DATA.
    pub data_packets: u64,
    /// Dropped by a scripted rule.
    pub dropped: u64,
    /// Dropped by random loss.
    pub lost: u64,
}

struct PathState {
    spec: PathSpec,
    /// When each direction's transmitter is next free.
    free: [Time; 2],
    rng: [Rng; 2],
    stats: [DirStats; 2],
}

/// Two endpoints joined by several paths, on virtual time.
pub struct Harness<EA: Endpoint, EB: Endpoint> {
    /// End A.
    pub a: EA,
    /// End B.
    pub b: EB,
    /// Current virtual time.
    pub now: Time,
    /// Bytes handed to each end's application (`[A]`, `[B]`).
    pub delivered: [u64; 2],
    /// Scripted drops still to apply.
    pub drops: Vec<DropRule>,
    /// Every packet handed to a path, when `record` is set (default).
    pub log: Vec<Sent>,
    /// Whether to fill `log`.
    pub record: bool,
    paths: Vec<PathState>,
    events: BTreeMap<(Time, u64), (Dir, Packet)>,
    seqno: u64,
    out: Outbox,
}

impl<EA: Endpoint, EB: Endpoint> Harness<EA, EB> {
    /// A harness with one path per entry of `paths`; `seed` seeds every loss stream.
    pub fn new(a: EA, b: EB, paths: Vec<PathSpec>, seed: u64) -> Harness<EA, EB> {
        assert!(!paths.is_empty(), "a harness needs at least one path");
        let paths = paths
            .into_iter()
            .enumerate()
            .map(|(i, spec)| PathState {
                spec,
                free: [Time::ZERO; 2],
                rng: [
                    Rng::for_component(seed, &format!("path{i}.ab")),
                    Rng::for_component(seed, &format!("path{i}.ba")),
                ],
                stats: [DirStats::default(); 2],
            })
            .collect();
        Harness {
            a,
            b,
            now: Time::ZERO,
            delivered: [0; 2],
            drops: Vec::new(),
            log: Vec::new(),
            record: true,
            paths,
            events: BTreeMap::new(),
            seqno: 0,
            out: Outbox::default(),
        }
    }

    /// End A's addresses, one per path.
    pub fn addrs_a(&self) -> Vec<Addr> {
        (0..self.paths.len()).map(addr_a).collect()
    }

    /// End B's addresses, one per path.
    pub fn addrs_b(&self) -> Vec<Addr> {
        (0..self.paths.len()).map(addr_b).collect()
    }

    /// The spec of path `i`; changes apply to packets sent from now on.
    pub fn path_mut(&mut self, i: usize) -> &mut PathSpec {
        &mut self.paths[i].spec
    }

    /// Counters of path `i` in direction `dir`.
    pub fn stats(&self, i: usize, dir: Dir) -> DirStats {
        self.paths[i].stats[dir.idx()]
    }

    /// TSNs of the DATA chunks put on path `i` in `dir` (sent, dropped or lost), in order.
    pub fn tsns_on(&self, i: usize, dir: Dir) -> Vec<Tsn> {
        self.log
            .iter()
            .filter(|s| s.path == i && s.dir == dir)
            .flat_map(|s| s.tsns.iter().copied())
            .collect()
    }

    /// Lets end A act at the current time (e.g. open the association); sends what it sent.
    pub fn with_a(&mut self, f: impl FnOnce(&mut EA, Time, &mut Outbox)) {
        f(&mut self.a, self.now, &mut self.out);
        self.flush(Dir::AtoB);
    }

    /// Lets end B act at the current time; sends what it sent.
    pub fn with_b(&mut self, f: impl FnOnce(&mut EB, Time, &mut Outbox)) {
        f(&mut self.b, self.now, &mut self.out);
        self.flush(Dir::BtoA);
    }

    /// Runs until both ends are quiet or the next event is after `end`; returns the time of
    /// the last event handled.
    pub fn run(&mut self, end: Time) -> Time {
        self.run_until(end, |_| false)
    }

    /// Runs until `stop` holds (checked after every event), both ends are quiet, or the next
    /// event is after `end`; returns the time of the last event handled.
    pub fn run_until(&mut self, end: Time, mut stop: impl FnMut(&Self) -> bool) -> Time {
        let mut same_time = 0u32;
        loop {
            if stop(self) {
                return self.now;
            }
            let ev = self.events.keys().next().map(|k| k.0);
            let ta = self.a.next_timeout();
            let tb = self.b.next_timeout();
            let Some(t) = [ev, ta, tb].into_iter().flatten().min() else {
                return self.now;
            };
            if t > end {
                return self.now;
            }
            let t = t.max(self.now);
            same_time = if t == self.now { same_time + 1 } else { 0 };
            assert!(
                same_time < 1_000_000,
                "an endpoint keeps asking for a timer at {t} without progress"
            );
            self.now = t;
            if ev.is_some_and(|e| e <= t) {
                let (_, (dir, p)) = self.events.pop_first().expect("an event is due");
                match dir {
                    Dir::AtoB => {
                        self.b.on_packet(t, &p, &mut self.out);
                        self.flush(Dir::BtoA);
                    }
                    Dir::BtoA => {
                        self.a.on_packet(t, &p, &mut self.out);
                        self.flush(Dir::AtoB);
                    }
                }
            } else if ta.is_some_and(|x| x <= t) {
                self.a.on_timer(t, &mut self.out);
                self.flush(Dir::AtoB);
            } else {
                self.b.on_timer(t, &mut self.out);
                self.flush(Dir::BtoA);
            }
        }
    }

    /// Moves what the acting end (the sender in `dir`) produced onto the paths.
    fn flush(&mut self, dir: Dir) {
        let receiving_end = match dir {
            Dir::AtoB => A,
            Dir::BtoA => B,
        };
        self.delivered[receiving_end] += self.out.delivered_bytes;
        self.out.delivered_bytes = 0;
        let mut pkts = std::mem::take(&mut self.out.packets);
        for p in pkts.drain(..) {
            self.transmit(dir, p);
        }
        // Keep the allocation for the next call.
        self.out.packets = pkts;
    }

    /// Routes `p` by destination, applies the drops and the loss, and schedules its arrival.
    fn transmit(&mut self, dir: Dir, p: Packet) {
        let n = self.paths.len();
        let (own, peer) = match dir {
            Dir::AtoB => (addr_a as fn(usize) -> Addr, addr_b as fn(usize) -> Addr),
            Dir::BtoA => (addr_b as fn(usize) -> Addr, addr_a as fn(usize) -> Addr),
        };
        assert!(
            (0..n).any(|i| own(i) == p.src),
            "{dir:?}: source {} is not one of the sender's addresses: {p:?}",
            p.src
        );
        let Some(path) = (0..n).find(|&i| peer(i) == p.dst) else {
            panic!(
                "{dir:?}: destination {} is not one of the peer's addresses: {p:?}",
                p.dst
            );
        };
        let (tsns, sack, heartbeat) = summarise(&p);
        let d = dir.idx();
        let st = &mut self.paths[path].stats[d];
        st.packets += 1;
        st.data_packets += !tsns.is_empty() as u64;
        let (nth_pkt, nth_data) = (st.packets, st.data_packets);
        let scripted = self.drops.iter().position(|r| match *r {
            DropRule::NthData { path: q, dir: e, n } => {
                q == path && e == dir && !tsns.is_empty() && n == nth_data
            }
            DropRule::NthPacket { path: q, dir: e, n } => q == path && e == dir && n == nth_pkt,
            DropRule::Tsn { dir: e, tsn, times } => e == dir && times > 0 && tsns.contains(&tsn),
        });
        let ps = &mut self.paths[path];
        let fate = if let Some(k) = scripted {
            match &mut self.drops[k] {
                DropRule::Tsn { times, .. } if *times > 1 => *times -= 1,
                _ => {
                    self.drops.remove(k);
                }
            }
            ps.stats[d].dropped += 1;
            Fate::Dropped
        } else if ps.rng[d].bernoulli(ps.spec.loss(dir)) {
            ps.stats[d].lost += 1;
            Fate::Lost
        } else {
            Fate::Sent
        };
        if self.record {
            self.log.push(Sent {
                at: self.now,
                dir,
                path,
                tsns,
                sack,
                heartbeat,
                fate,
            });
        }
        if fate != Fate::Sent {
            return;
        }
        let start = self.now.max(ps.free[d]);
        let done = start + ps.spec.rate.tx_time(p.size);
        ps.free[d] = done;
        self.seqno += 1;
        self.events
            .insert((done + ps.spec.delay, self.seqno), (dir, p));
    }
}

/// DATA TSNs, whether a SACK and whether a heartbeat is carried.
fn summarise(p: &Packet) -> (Vec<Tsn>, bool, bool) {
    let Some(s) = p.sctp() else {
        return (Vec::new(), false, false);
    };
    let mut tsns = Vec::new();
    let (mut sack, mut hb) = (false, false);
    for c in &s.chunks {
        match c {
            Chunk::Data(d) => tsns.push(d.tsn),
            Chunk::Sack(_) => sack = true,
            Chunk::Heartbeat(_) | Chunk::HeartbeatAck(_) => hb = true,
            _ => {}
        }
    }
    (tsns, sack, hb)
}

#[cfg(test)]
mod tests {
    //! The harness itself, driven by two toy endpoints: a sender of numbered DATA chunks (one
    //! per packet, to a chosen destination, with a retransmission timer) and an echoing sink
    //! built on the real [`Receiver`](super::super::receiver::Receiver).
    use super::*;
    use crate::packet::{Body, DataChunk, SctpPacket, Seq};
    use crate::transport::sctp::receiver::Receiver;
    use crate::transport::sctp::SctpConfig;

    /// Sends chunks 0..n (1000 B each) to `addr_b(dest)` from `addr_a(dest)` at start, and
    /// again on a 1 s timer until everything is acknowledged cumulatively.
    struct ToySender {
        n: u32,
        dest: usize,
        acked: Option<Tsn>,
        timer: Option<Time>,
    }

    impl ToySender {
        fn send_unacked(&mut self, now: Time, out: &mut Outbox) {
            let from = self.acked.map_or(0, |a| a.0 + 1);
            for k in from..self.n {
                let d = DataChunk {
                    tsn: Seq(k),
                    stream: 0,
                    ssn: k as u16,
                    unordered: false,
                    len: 1000,
                };
                let body = Body::Sctp(Box::new(SctpPacket::single(Chunk::Data(d))));
                out.send(Packet::new(addr_a(self.dest), addr_b(self.dest), body));
            }
            self.timer = (from < self.n).then_some(now + Dur::from_secs(1));
        }
    }

    impl Endpoint for ToySender {
        fn on_packet(&mut self, _now: Time, pkt: &Packet, _out: &mut Outbox) {
            for c in &pkt.sctp().unwrap().chunks {
                if let Chunk::Sack(s) = c {
                    self.acked = Some(s.cum_tsn);
                    if s.cum_tsn.0 + 1 == self.n {
                        self.timer = None;
                    }
                }
            }
        }
        fn on_timer(&mut self, now: Time, out: &mut Outbox) {
            self.send_unacked(now, out);
        }
        fn next_timeout(&self) -> Option<Time> {
            self.timer
        }
    }

    /// Feeds DATA to a [`Receiver`], SACKs to the packet's source from its destination.
    struct ToySink {
        rx: Receiver,
        last_src: (Addr, Addr),
    }

    impl ToySink {
        fn sack(&mut self, out: &mut Outbox) {
            let s = self.rx.take_sack();
            let body = Body::Sctp(Box::new(SctpPacket::single(Chunk::Sack(s))));
            out.send(Packet::new(self.last_src.0, self.last_src.1, body));
        }
    }

    impl Endpoint for ToySink {
        fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) {
            self.last_src = (pkt.dst, pkt.src);
            for c in &pkt.sctp().unwrap().chunks {
                if let Chunk::Data(d) = c {
                    out.delivered_bytes += self.rx.on_data(now, d);
                }
            }
            if self.rx.end_of_packet(now) {
                self.sack(out);
            }
        }
        fn on_timer(&mut self, _now: Time, out: &mut Outbox) {
            self.sack(out);
        }
        fn next_timeout(&self) -> Option<Time> {
            self.rx.next_timeout()
        }
    }

    fn pair(n: u32, dest: usize, paths: Vec<PathSpec>, seed: u64) -> Harness<ToySender, ToySink> {
        pair_with(n, dest, paths, seed, Vec::new())
    }

    /// As `pair`, with scripted drops in place before the first packet.
    fn pair_with(
        n: u32,
        dest: usize,
        paths: Vec<PathSpec>,
        seed: u64,
        drops: Vec<DropRule>,
    ) -> Harness<ToySender, ToySink> {
        let a = ToySender {
            n,
            dest,
            acked: None,
            timer: None,
        };
        let b = ToySink {
            rx: Receiver::new(&SctpConfig::default(), Seq(0)),
            last_src: (addr_b(0), addr_a(0)),
        };
        let mut h = Harness::new(a, b, paths, seed);
        assert_eq!(h.addrs_a(), vec![addr_a(0), addr_a(1)][..h.paths.len()]);
        assert_eq!(h.addrs_b(), vec![addr_b(0), addr_b(1)][..h.paths.len()]);
        h.drops = drops;
        h.with_a(|s, now, out| s.send_unacked(now, out));
        h
    }

    fn two_paths() -> Vec<PathSpec> {
        vec![
            PathSpec::new(Dur::from_millis(35), Rate::mbps(2)),
            PathSpec::new(Dur::from_millis(50), Rate::mbps(8)),
        ]
    }

    // Routing by destination, serialisation then propagation: 1048 B at 2 Mb/s is 4.192 ms,
    // the second packet queues behind the first; the SACK returns on the same path.
    #[test]
    fn packets_cross_the_path_of_their_destination_with_rate_and_delay() {
        let mut h = pair(2, 0, two_paths(), 1);
        h.run(secs(10));
        assert_eq!(h.delivered, [0, 2000]);
        assert_eq!(h.stats(0, Dir::AtoB).data_packets, 2);
        assert_eq!(h.stats(1, Dir::AtoB).packets, 0);
        // Delayed SACK on the 2nd packet (1048 B: 4.192 ms at 2 Mb/s), arriving at
        // 2 * 4.192 + 35 ms; the SACK takes 48 B of serialisation plus 35 ms back.
        let sack = h.log.iter().find(|s| s.sack).unwrap();
        assert_eq!((sack.dir, sack.path), (Dir::BtoA, 0));
        assert_eq!(sack.at, Time::from_nanos(2 * 4_192_000 + 35_000_000));
        assert_eq!(h.a.acked, Some(Seq(1)));
        assert_eq!(
            h.now,
            sack.at + Rate::mbps(2).tx_time(20 + 12 + 16) + Dur::from_millis(35)
        );
        // Sent on path 1: the other delay applies.
        let mut h = pair(1, 1, two_paths(), 1);
        h.run(secs(10));
        assert_eq!(h.tsns_on(1, Dir::AtoB), vec![Seq(0)]);
        assert_eq!(h.log[1].path, 1, "the SACK goes back on path 1");
        // Lone packet: SACK after the 200 ms delay.
        assert_eq!(
            h.log[1].at,
            Time::from_nanos(1_048_000 + 50_000_000 + 200_000_000)
        );
    }

    // Scripted drops: the 2nd DATA packet on path 0 and the first transmission of TSN 3.
    #[test]
    fn scripted_drops_hit_exactly_the_named_packets() {
        let drops = vec![
            DropRule::NthData {
                path: 0,
                dir: Dir::AtoB,
                n: 2,
            },
            DropRule::Tsn {
                dir: Dir::AtoB,
                tsn: Seq(3),
                times: 1,
            },
        ];
        let mut h2 = pair_with(5, 0, two_paths(), 1, drops);
        h2.run(secs(10));
        let dropped: Vec<Vec<Tsn>> = h2
            .log
            .iter()
            .filter(|s| s.fate == Fate::Dropped)
            .map(|s| s.tsns.clone())
            .collect();
        assert_eq!(dropped, vec![vec![Seq(1)], vec![Seq(3)]]);
        assert!(h2.drops.is_empty());
        assert_eq!(h2.delivered[B], 5000, "recovered by the 1 s timer");
        assert_eq!(h2.b.rx.cum_tsn(), Seq(4));
    }

    // Seeded Bernoulli loss: the same seed loses the same packets; each direction has its own
    // stream; loss 1 loses everything, loss 0 nothing.
    #[test]
    fn random_loss_is_seeded_per_direction() {
        let lossy = |ab: f64, ba: f64, seed: u64| {
            let paths =
                vec![PathSpec::new(Dur::from_millis(10), Rate::mbps(100)).with_loss(ab, ba)];
            let mut h = pair(200, 0, paths, seed);
            h.run(secs(1_000));
            h
        };
        let fates = |h: &Harness<ToySender, ToySink>, d: Dir| -> Vec<Fate> {
            h.log
                .iter()
                .filter(|s| s.dir == d)
                .map(|s| s.fate)
                .collect()
        };
        let h1 = lossy(0.2, 0.0, 7);
        let h2 = lossy(0.2, 0.0, 7);
        assert_eq!(fates(&h1, Dir::AtoB), fates(&h2, Dir::AtoB));
        assert_eq!(h1.delivered[B], 200_000);
        let lost = fates(&h1, Dir::AtoB)[..200]
            .iter()
            .filter(|&&f| f == Fate::Lost)
            .count();
        assert!(
            (20..=80).contains(&lost),
            "about 20% of the first 200 lost: {lost}"
        );
        assert_eq!(h1.stats(0, Dir::BtoA).lost, 0);
        // The first flight's fates do not depend on the reverse direction's loss rate.
        let h3 = lossy(0.2, 0.5, 7);
        assert_eq!(fates(&h3, Dir::AtoB)[..200], fates(&h1, Dir::AtoB)[..200]);
        let h4 = lossy(1.0, 0.0, 7);
        assert_eq!(h4.delivered[B], 0);
        assert_eq!(h4.stats(0, Dir::AtoB).lost, h4.stats(0, Dir::AtoB).packets);
    }

    // The run stops at the time limit, on the predicate, or when both ends are quiet.
    #[test]
    fn run_stops_at_limit_predicate_or_quiet() {
        let mut h = pair(3, 0, two_paths(), 1);
        let t = h.run(ms(20));
        assert_eq!(t, Time::ZERO, "nothing arrives before 35 ms");
        h.run_until(secs(10), |h| h.delivered[B] >= 1000);
        assert_eq!(h.delivered[B], 1000);
        h.run(secs(10));
        assert_eq!(h.delivered[B], 3000);
        assert_eq!((h.a.next_timeout(), h.b.next_timeout()), (None, None));
    }

    // NthPacket counts every packet (here the first SACK back on path 0); `path_mut` changes
    // the delay for packets sent afterwards; `with_b` lets end B act.
    #[test]
    fn nth_packet_drop_path_change_and_acting_end_b() {
        let drops = vec![DropRule::NthPacket {
            path: 0,
            dir: Dir::BtoA,
            n: 1,
        }];
        let mut h = pair_with(2, 0, two_paths(), 1, drops);
        h.path_mut(0).delay = Dur::from_millis(5);
        h.run(secs(10));
        assert_eq!(h.stats(0, Dir::BtoA).dropped, 1);
        assert_eq!(h.delivered[B], 2000);
        // The first flight (sent before the change) took 35 ms; the retransmission at 1 s, 5 ms.
        assert_eq!(h.b.rx.stats().duplicates, 2);
        h.with_b(|sink, _, out| sink.sack(out));
        let last = h.log.last().unwrap();
        assert!(last.sack && last.dir == Dir::BtoA);
    }

    #[test]
    #[should_panic(expected = "not one of the peer's addresses")]
    fn unknown_destination_panics() {
        let mut h = pair(0, 0, two_paths(), 1);
        h.with_a(|_, _, out| {
            out.send(Packet::new(
                addr_a(0),
                addr_b(5),
                Body::Sctp(Box::default()),
            ))
        });
    }
}
