//! [`SctpEndpoint`]: one end of an association, sans-IO. The client sets the association up
//! (INIT, COOKIE-ECHO with T1 retransmission and backoff, RFC 4960 §5.1), sends the
//! application's data through its [`Sender`], heartbeats idle destinations (RFC 2960 §8.3)
//! and closes with SHUTDOWN once a finite file is fully acknowledged (RFC 4960 §9.2). The
//! server answers INIT statelessly with INIT-ACK, becomes established on COOKIE-ECHO,
//! receives DATA through its `Receiver` and answers every packet from the address it arrived
//! on to its source (RFC 4960 §6.4; spec 3 §2.5, Q8).
//!
//! Decisions recorded here:
//! - Data flows client → server only; the client ignores DATA, the server sends none.
//! - The server does not heartbeat its own idle destinations (it has no data to send, and
//!   the study only measures the sender's paths).
//! - Heartbeats stop when the shutdown starts; after SHUTDOWN-COMPLETE nothing is scheduled.
//! - T1-init and T1-cookie use RTO.Initial doubled per expiry (capped at RTO.Max); they and
//!   T2-shutdown retry forever unless `abort_on_assoc_max`, then at most
//!   Association.Max.Retrans times (Max.Init.Retransmits taken equal to it).
//! - A HEARTBEAT sent off-schedule (on setup, after an RTO) counts as "used" for the current
//!   heartbeat period, so the next periodic one waits a period (spec 3 §2.5 "idle").
//! - A late HEARTBEAT-ACK (after its RTO) still gives an RTT sample.

use super::association::AssocState;
use super::path::Path;
use super::receiver::{Delivery, Receiver};
use super::sender::Sender;
use super::stats::{PathMetrics, SctpStats};
use super::{HeartbeatJitter, SctpConfig, Tsn};
use crate::app::AppData;
use crate::ids::Addr;
use crate::packet::{Body, Chunk, HeartbeatInfo, InitChunk, Packet, SctpPacket};
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::{Dur, Rng, Time};

/// Bytes of the state cookie carried by INIT-ACK and COOKIE-ECHO.
pub const COOKIE_BYTES: u32 = 32;
/// The client's initial TSN.
pub const CLIENT_INITIAL_TSN: Tsn = crate::packet::Seq(1);
/// The server's initial TSN (it sends no data).
pub const SERVER_INITIAL_TSN: Tsn = crate::packet::Seq(1);

/// Which end of the association.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Client,
    Server,
}

/// A retransmitted control chunk's timer (T1-init, T1-cookie, T2-shutdown).
#[derive(Clone, Copy, Debug, Default)]
struct CtlTimer {
    at: Option<Time>,
    rto: Dur,
    tries: u32,
}

/// One end of an SCTP association.
#[derive(Debug)]
pub struct SctpEndpoint {
    cfg: SctpConfig,
    role: Role,
    state: AssocState,
    local: Vec<Addr>,
    snd: Sender,
    rcv: Option<Receiver>,
    rng: Rng,
    stats: SctpStats,
    established_at: Option<Time>,
    t1: CtlTimer,
    t2: CtlTimer,
    /// (our address, peer address) for delayed SACKs and the server's SHUTDOWN-ACK: where
    /// the last packet came from (RFC 4960 §6.4).
    reply_to: Option<(Addr, Addr)>,
    nonce: u64,
    /// Accounting of `alt_t3_wait`: time of the last call and whether the condition held.
    last_call: Time,
    alt_wait: bool,
    /// Destinations not yet confirmed by a HEARTBEAT-ACK (`path_verification`); no DATA
    /// while above 0.
    unverified: u32,
}

impl SctpEndpoint {
    /// The initiating end, which sends `app`'s data. `local[i]` is the source address for
    /// `peer[i]` (`local[0]` beyond `local`'s length); `peer[primary]` is the primary.
    pub fn client(
        cfg: &SctpConfig,
        local: Vec<Addr>,
        peer: Vec<Addr>,
        primary: usize,
        app: AppData,
        rng: Rng,
    ) -> SctpEndpoint {
        debug_assert!(
            cfg.validate().is_ok(),
            "invalid SctpConfig: {:?}",
            cfg.validate()
        );
        assert!(
            !local.is_empty() && primary < peer.len(),
            "client needs a local address and a primary among the peer's"
        );
        let paths = peer
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                Path::new(
                    cfg,
                    a,
                    *local.get(i).unwrap_or(&local[0]),
                    cfg.rwnd,
                    Time::ZERO,
                )
            })
            .collect();
        SctpEndpoint::new(
            cfg,
            Role::Client,
            local,
            Sender::new(cfg, paths, primary, app, CLIENT_INITIAL_TSN),
            rng,
        )
    }

    /// The responding end; it learns the peer's addresses from INIT.
    pub fn server(cfg: &SctpConfig, local: Vec<Addr>, rng: Rng) -> SctpEndpoint {
        debug_assert!(
            cfg.validate().is_ok(),
            "invalid SctpConfig: {:?}",
            cfg.validate()
        );
        assert!(!local.is_empty(), "server needs a local address");
        let snd = Sender::new(cfg, vec![], 0, AppData::Bytes(0), SERVER_INITIAL_TSN);
        SctpEndpoint::new(cfg, Role::Server, local, snd, rng)
    }

    fn new(cfg: &SctpConfig, role: Role, local: Vec<Addr>, snd: Sender, rng: Rng) -> SctpEndpoint {
        SctpEndpoint {
            cfg: cfg.clone(),
            role,
            state: AssocState::Closed,
            local,
            snd,
            rcv: None,
            rng,
            stats: SctpStats::default(),
            established_at: None,
            t1: CtlTimer::default(),
            t2: CtlTimer::default(),
            reply_to: None,
            nonce: 0,
            last_call: Time::ZERO,
            alt_wait: false,
            unverified: 0,
        }
    }

    /// The client sends INIT to the primary and starts T1-init (RFC 4960 §5.1 A).
    pub fn open(&mut self, now: Time, out: &mut Outbox) {
        if self.role != Role::Client || self.state != AssocState::Closed {
            return;
        }
        self.state = AssocState::CookieWait;
        self.t1 = CtlTimer {
            at: Some(now + self.cfg.rto_initial),
            rto: self.cfg.rto_initial,
            tries: 0,
        };
        self.send_init(out);
    }

    /// When the application could start sending (client: COOKIE-ACK received; server:
    /// COOKIE-ECHO received).
    pub fn established_at(&self) -> Option<Time> {
        self.established_at
    }

    /// The association's counters.
    pub fn stats(&self) -> &SctpStats {
        &self.stats
    }

    /// The association state.
    pub fn state(&self) -> AssocState {
        self.state
    }

    /// A snapshot of every destination.
    pub fn paths(&self) -> Vec<PathMetrics> {
        self.snd
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| PathMetrics {
                addr: p.addr,
                primary: i == self.snd.primary,
                cwnd: p.cwnd,
                ssthresh: p.ssthresh,
                rto: p.rto,
                srtt: p.srtt(),
                active: p.active,
                error_count: p.errors,
                fast_retransmits: p.fast_retransmits,
                t3_expiries: p.t3_expiries,
                retransmissions_sent: p.retransmissions_sent,
                heartbeats_sent: p.heartbeats_sent,
                heartbeat_samples: p.heartbeat_samples,
                data_samples: p.data_samples,
                rto_history: p.rto_history.clone(),
            })
            .collect()
    }

    /// The congestion state of every destination, in order, without copying histories (the
    /// time-series sampler's view): (address, cwnd bytes, ssthresh bytes, srtt, rto).
    pub fn path_congestion(&self) -> impl Iterator<Item = (Addr, u64, u64, Option<Dur>, Dur)> + '_ {
        self.snd
            .paths
            .iter()
            .map(|p| (p.addr, p.cwnd, p.ssthresh, p.srtt(), p.rto))
    }

    /// Chunks delivered to the receiving application, in order (server).
    pub fn deliveries(&self) -> &[Delivery] {
        self.rcv.as_ref().map(|r| r.deliveries()).unwrap_or(&[])
    }

    /// The cumulative TSN ack point of the receiving side, once established (server).
    pub fn receiver_cum_tsn(&self) -> Option<Tsn> {
        self.rcv.as_ref().map(|r| r.cum_tsn())
    }

    /// The sender's per-destination state (tests).
    #[cfg(test)]
    pub(crate) fn sender(&self) -> &Sender {
        &self.snd
    }

    /// The sender, to set up a state by hand (tests).
    #[cfg(test)]
    pub(crate) fn sender_mut(&mut self) -> &mut Sender {
        &mut self.snd
    }

    fn emit(&mut self, out: &mut Outbox, src: Addr, dst: Addr, chunks: Vec<Chunk>) {
        self.stats.packets_sent += 1;
        out.send(Packet::new(
            src,
            dst,
            Body::Sctp(Box::new(SctpPacket { chunks })),
        ));
    }

    fn emit_to(&mut self, out: &mut Outbox, d: usize, chunks: Vec<Chunk>) {
        let p = &self.snd.paths[d];
        let (src, dst) = (p.local, p.addr);
        self.emit(out, src, dst, chunks);
    }

    fn our_init(&self, tsn: Tsn) -> InitChunk {
        InitChunk {
            initial_tsn: tsn,
            a_rwnd: self.cfg.rwnd.min(u32::MAX as u64) as u32,
            streams: self.cfg.streams,
            addrs: self.local.clone(),
        }
    }

    fn send_init(&mut self, out: &mut Outbox) {
        let init = self.our_init(CLIENT_INITIAL_TSN);
        let d = self.snd.primary;
        self.emit_to(out, d, vec![Chunk::Init(init)]);
    }

    /// Sends what the sender allows; `immediate`: one retransmission packet regardless of
    /// cwnd first.
    fn pump(&mut self, now: Time, immediate: bool, out: &mut Outbox) {
        if !self.sends_data() {
            return;
        }
        for (d, pkt) in self.snd.send(now, immediate, &mut self.stats) {
            self.emit_to(out, d, pkt.chunks);
        }
        self.maybe_shutdown(now, out);
    }

    /// Whether this endpoint sends DATA now: the client of an established association whose
    /// paths are verified (`pump` and `pump_one_rtx`).
    fn sends_data(&self) -> bool {
        matches!(self.state, AssocState::Established)
            && self.role == Role::Client
            && self.unverified == 0
    }

    /// `rtx_one_packet` after a T3 expiry (ns-2.35 `SctpAgent::Timeout` -> `TimeoutRtx`): one
    /// packet of marked chunks regardless of cwnd, and no new data.
    fn pump_one_rtx(&mut self, now: Time, out: &mut Outbox) {
        if !self.sends_data() {
            return;
        }
        if let Some((d, pkt)) = self.snd.one_rtx_packet(now, &mut self.stats) {
            self.emit_to(out, d, pkt.chunks);
        }
    }

    /// RFC 4960 §9.2: once the whole file is acknowledged, SHUTDOWN (via SHUTDOWN-PENDING).
    fn maybe_shutdown(&mut self, now: Time, out: &mut Outbox) {
        if self.state == AssocState::Established && self.snd.all_acked() {
            self.state = AssocState::ShutdownPending;
            for p in &mut self.snd.paths {
                p.hb_due = None;
                p.hb_pending = None;
                p.t3 = None;
                p.decay_at = None;
            }
            let rto = self.snd.paths[self.snd.primary].rto;
            self.t2 = CtlTimer {
                at: Some(now + rto),
                rto,
                tries: 0,
            };
            self.send_shutdown(out);
        }
    }

    fn send_shutdown(&mut self, out: &mut Outbox) {
        self.state = AssocState::ShutdownSent;
        let d = super::rtx_policy::data_dest(&self.snd.paths, self.snd.primary);
        self.emit_to(
            out,
            d,
            vec![Chunk::Shutdown {
                cum_tsn: crate::packet::Seq(SERVER_INITIAL_TSN.0.wrapping_sub(1)),
            }],
        );
    }

    /// Heartbeat period of destination `d` (spec 3 §2.5, Q2).
    fn hb_period(&mut self, d: usize) -> Dur {
        let hb = self.cfg.hb_interval.as_secs_f64();
        let u = self.rng.uniform() - 0.5;
        let secs = match self.cfg.hb_jitter {
            HeartbeatJitter::Rfc => {
                let rto = self.snd.paths[d].rto.as_secs_f64();
                hb + rto + u * rto
            }
            HeartbeatJitter::Paper => hb + u * hb,
        };
        Dur::from_secs_f64(secs)
    }

    fn send_heartbeat(&mut self, now: Time, d: usize, out: &mut Outbox) {
        self.nonce += 1;
        let nonce = self.nonce;
        let p = &mut self.snd.paths[d];
        let info = HeartbeatInfo {
            sent_at: now,
            dest: p.addr,
            nonce,
        };
        p.hb_pending = Some((nonce, now + p.rto));
        p.heartbeats_sent += 1;
        p.used_in_period = true;
        self.stats.heartbeats_sent += 1;
        self.emit_to(out, d, vec![Chunk::Heartbeat(info)]);
    }

    fn on_established_client(&mut self, now: Time, out: &mut Outbox) {
        self.state = AssocState::Established;
        self.established_at = Some(now);
        self.t1.at = None;
        for d in 0..self.snd.paths.len() {
            let due = now + self.hb_period(d);
            self.snd.paths[d].hb_due = Some(due);
            if self.cfg.path_verification {
                // RFC 4960 §5.4, ns-2.35 on COOKIE-ACK: every destination is UNCONFIRMED and
                // gets a HEARTBEAT; no DATA until all have answered.
                self.snd.paths[d].unconfirmed = true;
                self.unverified += 1;
                self.send_heartbeat(now, d, out);
            } else if self.cfg.hb_on_setup && d != self.snd.primary {
                // INFERRED (spec 3 §2.5, ns-2): one HEARTBEAT to each non-primary destination.
                self.send_heartbeat(now, d, out);
            }
        }
    }

    fn on_heartbeat_ack(&mut self, now: Time, info: &HeartbeatInfo) {
        let Some(d) = self.snd.paths.iter().position(|p| p.addr == info.dest) else {
            return;
        };
        self.stats.heartbeats_acked += 1;
        let p = &mut self.snd.paths[d];
        // RFC 2960 §8.3: an RTT sample, the error counter cleared, the destination active.
        p.on_rtt_sample(now, now - info.sent_at);
        p.heartbeat_samples += 1;
        p.errors = 0;
        p.active = true;
        if p.hb_pending.is_some_and(|(n, _)| n == info.nonce) {
            p.hb_pending = None;
        }
        if p.unconfirmed {
            p.unconfirmed = false;
            self.unverified -= 1;
        }
        self.snd.assoc_errors = 0;
    }

    /// Counts an Association.Max.Retrans excess; aborts when configured to.
    fn assoc_exceeded(&mut self, out: &mut Outbox) {
        self.stats.assoc_max_retrans_events += 1;
        if self.cfg.abort_on_assoc_max {
            let d = super::rtx_policy::data_dest(&self.snd.paths, self.snd.primary);
            self.emit_to(out, d, vec![Chunk::Abort]);
            self.close();
            self.stats.aborts += 1;
        }
    }

    fn close(&mut self) {
        self.state = AssocState::Closed;
        self.t1.at = None;
        self.t2.at = None;
        for p in &mut self.snd.paths {
            p.t3 = None;
            p.hb_due = None;
            p.hb_pending = None;
            p.decay_at = None;
        }
    }

    fn on_packet_server(&mut self, now: Time, pkt: &Packet, sp: &SctpPacket, out: &mut Outbox) {
        let (me, peer) = (pkt.dst, pkt.src);
        let mut reply = vec![];
        let mut had_data = false;
        for c in &sp.chunks {
            match (self.state, c) {
                (_, Chunk::Init(init)) => {
                    // RFC 4960 §5.1 B: answer with INIT-ACK and a cookie, keeping no state;
                    // the peer's address list is learnt here (in the cookie).
                    if self.state == AssocState::Closed {
                        let primary = init.addrs.iter().position(|&a| a == peer).unwrap_or(0);
                        let paths = init
                            .addrs
                            .iter()
                            .enumerate()
                            .map(|(i, &a)| {
                                Path::new(
                                    &self.cfg,
                                    a,
                                    *self.local.get(i).unwrap_or(&self.local[0]),
                                    init.a_rwnd as u64,
                                    now,
                                )
                            })
                            .collect();
                        self.snd = Sender::new(
                            &self.cfg,
                            paths,
                            primary,
                            AppData::Bytes(0),
                            SERVER_INITIAL_TSN,
                        );
                        self.rcv = Some(Receiver::new(&self.cfg, init.initial_tsn));
                    }
                    reply.push(Chunk::InitAck {
                        init: self.our_init(SERVER_INITIAL_TSN),
                        cookie_len: COOKIE_BYTES,
                    });
                }
                (AssocState::Closed, Chunk::CookieEcho { .. }) if self.rcv.is_some() => {
                    self.state = AssocState::Established;
                    self.established_at = Some(now);
                    reply.push(Chunk::CookieAck);
                }
                (AssocState::Established, Chunk::CookieEcho { .. }) => reply.push(Chunk::CookieAck),
                (s, Chunk::Data(d)) if s.is_open() => {
                    if let Some(r) = self.rcv.as_mut() {
                        out.delivered_bytes += r.on_data(now, d);
                        had_data = true;
                    }
                }
                (_, Chunk::Heartbeat(info)) => reply.push(Chunk::HeartbeatAck(*info)),
                (AssocState::Established | AssocState::ShutdownAckSent, Chunk::Shutdown { .. }) => {
                    // RFC 4960 §9.2: nothing of ours is outstanding, so SHUTDOWN-ACK at once.
                    self.state = AssocState::ShutdownAckSent;
                    let rto = self.cfg.rto_initial;
                    if self.t2.at.is_none() {
                        self.t2 = CtlTimer {
                            at: Some(now + rto),
                            rto,
                            tries: 0,
                        };
                    }
                    reply.push(Chunk::ShutdownAck);
                }
                (AssocState::ShutdownAckSent, Chunk::ShutdownComplete) => self.close(),
                _ => {}
            }
        }
        self.reply_to = Some((me, peer));
        if had_data {
            let r = self.rcv.as_mut().expect("data implies a receiver");
            if r.end_of_packet(now) {
                // RFC 4960 §6.4: the SACK returns to the source of the packet that caused it.
                reply.insert(0, Chunk::Sack(r.take_sack()));
                self.stats.sacks_sent += 1;
            }
        }
        if !reply.is_empty() {
            self.emit(out, me, peer, reply);
        }
    }

    fn on_packet_client(&mut self, now: Time, pkt: &Packet, sp: &SctpPacket, out: &mut Outbox) {
        let mut immediate = false;
        let mut reply = vec![];
        for c in &sp.chunks {
            match (self.state, c) {
                (AssocState::CookieWait, Chunk::InitAck { init, cookie_len }) => {
                    // RFC 4960 §5.1 C: COOKIE-ECHO, T1-cookie.
                    self.snd.peer_rwnd = init.a_rwnd as u64;
                    if self.cfg.initial_ssthresh.is_none() {
                        for p in &mut self.snd.paths {
                            p.ssthresh = init.a_rwnd as u64;
                        }
                    }
                    self.state = AssocState::CookieEchoed;
                    self.t1 = CtlTimer {
                        at: Some(now + self.cfg.rto_initial),
                        rto: self.cfg.rto_initial,
                        tries: 0,
                    };
                    let d = self.snd.primary;
                    self.emit_to(
                        out,
                        d,
                        vec![Chunk::CookieEcho {
                            cookie_len: *cookie_len,
                        }],
                    );
                }
                (AssocState::CookieEchoed, Chunk::CookieAck) => {
                    self.on_established_client(now, out)
                }
                (
                    AssocState::Established
                    | AssocState::ShutdownPending
                    | AssocState::ShutdownSent,
                    Chunk::Sack(s),
                ) => {
                    immediate |= self.snd.on_sack(now, s, &mut self.stats);
                }
                (s, Chunk::HeartbeatAck(info)) if s.is_open() => self.on_heartbeat_ack(now, info),
                (_, Chunk::Heartbeat(info)) => reply.push(Chunk::HeartbeatAck(*info)),
                (_, Chunk::ShutdownAck) => {
                    // RFC 4960 §9.2 (and §8.4 item 5 when already closed): SHUTDOWN-COMPLETE.
                    self.close();
                    reply.push(Chunk::ShutdownComplete);
                }
                (_, Chunk::Abort) => self.close(),
                _ => {}
            }
        }
        if !reply.is_empty() {
            self.emit(out, pkt.dst, pkt.src, reply);
        }
        self.pump(now, immediate, out);
    }

    /// Advances `alt_t3_wait` to `now` (before handling an event).
    fn account(&mut self, now: Time) {
        if self.alt_wait {
            self.stats.alt_t3_wait += now.saturating_since(self.last_call);
        }
        self.last_call = now;
    }

    /// Whether the cumulative ack is blocked by a chunk outstanding on a non-primary
    /// destination whose T3 runs (spec 3 §4, "time spent waiting on the alternate's T3").
    fn recompute_alt_wait(&mut self) {
        self.alt_wait = self.snd.queue.front().is_some_and(|c| {
            !c.gap_acked
                && c.pending.is_none()
                && c.tx_count > 0
                && c.dest != self.snd.primary
                && self.snd.paths[c.dest].t3.is_some()
        });
    }

    fn on_timer_inner(&mut self, now: Time, out: &mut Outbox) {
        // Delayed SACK (RFC 4960 §6.2).
        if let Some(r) = self.rcv.as_mut() {
            if r.next_timeout().is_some_and(|t| t <= now) {
                let sack = r.take_sack();
                if let Some((me, peer)) = self.reply_to {
                    self.stats.sacks_sent += 1;
                    self.emit(out, me, peer, vec![Chunk::Sack(sack)]);
                }
            }
        }
        // T1-init / T1-cookie (RFC 4960 §5.1), T2-shutdown (§9.2).
        if self.t1.at.is_some_and(|t| t <= now) {
            self.stats.t1_expiries += 1;
            if self.give_up(self.t1.tries) {
                self.close();
                self.stats.aborts += 1;
            } else {
                self.t1.tries += 1;
                self.t1.rto = self.t1.rto.double().min(self.cfg.rto_max);
                self.t1.at = Some(now + self.t1.rto);
                match self.state {
                    AssocState::CookieWait => self.send_init(out),
                    AssocState::CookieEchoed => {
                        let d = self.snd.primary;
                        self.emit_to(
                            out,
                            d,
                            vec![Chunk::CookieEcho {
                                cookie_len: COOKIE_BYTES,
                            }],
                        );
                    }
                    _ => self.t1.at = None,
                }
            }
        }
        if self.t2.at.is_some_and(|t| t <= now) {
            if self.give_up(self.t2.tries) {
                self.close();
                self.stats.aborts += 1;
            } else {
                self.t2.tries += 1;
                self.t2.rto = self.t2.rto.double().min(self.cfg.rto_max);
                self.t2.at = Some(now + self.t2.rto);
                match self.state {
                    AssocState::ShutdownSent => self.send_shutdown(out),
                    AssocState::ShutdownAckSent => {
                        if let Some((me, peer)) = self.reply_to {
                            self.emit(out, me, peer, vec![Chunk::ShutdownAck]);
                        }
                    }
                    _ => self.t2.at = None,
                }
            }
        }
        if self.role != Role::Client || !self.state.is_open() {
            return;
        }
        // T3-rtx per destination (RFC 2960 §6.3.3).
        let mut t3_fired = false;
        for x in 0..self.snd.paths.len() {
            if self.snd.paths[x].t3.is_some_and(|t| t <= now) {
                t3_fired = true;
                if self.snd.on_t3(now, x, &mut self.stats) {
                    self.assoc_exceeded(out);
                    if self.state == AssocState::Closed {
                        return;
                    }
                }
                // ns-2 HbAfterRto (option): probe the timed-out destination at once.
                if self.cfg.hb_after_rto {
                    self.send_heartbeat(now, x, out);
                }
                if self.cfg.rtx_one_packet {
                    self.pump_one_rtx(now, out);
                } else {
                    self.pump(now, true, out);
                }
            }
        }
        // Heartbeats (RFC 2960 §8.3).
        for d in 0..self.snd.paths.len() {
            if self.snd.paths[d].hb_pending.is_some_and(|(_, t)| t <= now) {
                // Unanswered within RTO: an error, and the RTO doubles.
                self.snd.paths[d].hb_pending = None;
                self.snd.paths[d].back_off(now);
                if self.snd.path_error(d) {
                    self.assoc_exceeded(out);
                    if self.state == AssocState::Closed {
                        return;
                    }
                }
                if self.snd.paths[d].unconfirmed {
                    // ns-2.35 `SctpAgent::Timeout` (HEARTBEAT): an unconfirmed destination
                    // is probed again at once.
                    self.send_heartbeat(now, d, out);
                }
            }
            if self.snd.paths[d].decay_at.is_some_and(|t| t <= now) {
                self.snd.paths[d].on_idle_decay(now);
            }
            if self.snd.paths[d].hb_due.is_some_and(|t| t <= now) {
                if !self.snd.paths[d].used_in_period {
                    self.send_heartbeat(now, d, out);
                }
                self.snd.paths[d].used_in_period = false;
                let due = now + self.hb_period(d);
                self.snd.paths[d].hb_due = Some(due);
            }
        }
        // ns-2.35 `SctpAgent::Timeout` (`rtx_one_packet`): a T3 expiry sends `TimeoutRtx`'s one
        // packet and nothing more; the other marked chunks wait for a SACK.
        if !(t3_fired && self.cfg.rtx_one_packet) {
            self.pump(now, false, out);
        }
    }

    fn give_up(&self, tries: u32) -> bool {
        self.cfg.abort_on_assoc_max && tries >= self.cfg.assoc_max_retrans
    }
}

impl Endpoint for SctpEndpoint {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) {
        let Some(sp) = pkt.sctp() else { return };
        self.account(now);
        match self.role {
            Role::Client => self.on_packet_client(now, pkt, sp, out),
            Role::Server => self.on_packet_server(now, pkt, sp, out),
        }
        self.recompute_alt_wait();
    }

    fn on_timer(&mut self, now: Time, out: &mut Outbox) {
        self.account(now);
        self.on_timer_inner(now, out);
        self.recompute_alt_wait();
    }

    fn next_timeout(&self) -> Option<Time> {
        let mut t: Option<Time> = None;
        let mut add = |x: Option<Time>| {
            if let Some(x) = x {
                t = Some(t.map_or(x, |t| t.min(x)));
            }
        };
        add(self.t1.at);
        add(self.t2.at);
        if let Some(r) = &self.rcv {
            if self.state != AssocState::Closed {
                add(r.next_timeout());
            }
        }
        for p in &self.snd.paths {
            add(p.t3);
            add(p.hb_due);
            add(p.hb_pending.map(|(_, t)| t));
            add(p.decay_at);
        }
        t
    }
}
