//! The cell-level network of spec 1 §3.1, on a slotted time base (spec §2.1): N TCP senders,
//! each fed by a frame source (`crate::app::Frames`) and behind an AAL5 adapter on its own
//! access link, share one output-buffered switch ([`CellSwitch`]) whose output leads to the
//! receivers (a demultiplexer by VCI). ACKs return on a separate, uncongested path, one per
//! connection, at one cell per slot (spec §3.1 INFERRED). Propagation delays are zero.
//!
//! ## Time bases
//! Cells always move on the slot grid: every link and the switch output carry at most one
//! cell per slot (an ATM link is cell-synchronous). The time base decides how the rest of the
//! model meets that grid:
//! - [`TimeBase::Slotted`] (YATS, the default, spec §2.1): a delay or timer of `d` seconds set
//!   at slot `t` ends at slot `t + max(1, floor(d / slot))`; the cells arriving at the switch
//!   in one slot are enqueued at the slot's end in an order drawn from the run's seeded random
//!   stream. An endpoint is driven at the start of its slot; a timer whose conversion by floor
//!   lands inside a slot before its exact deadline is delivered with the endpoint's clock at
//!   that deadline (less than one slot ahead of the grid; never backwards).
//! - [`TimeBase::Continuous`]: endpoints run on exact times: a timer or processing delay
//!   ends at its exact time, and what it sends joins the grid at the next slot boundary
//!   (ceiling); same-slot arrivals at the switch are enqueued in input-port order.
//!
//! ## One slot
//! In slot `t`, in this order: (1) endpoints whose timers are due, ACKs that reached their
//! sender and data packets whose receiver processing ended are handled; (2) each sender's
//! AAL5 adapter puts one cell of the frame it is sending on its access link (frames leave
//! back to back, one cell per slot, after the sender's per-packet processing delay); (3) the
//! switch output sends its head cell (queued in an earlier slot: every cell spends at least
//! one slot in the switch) to the receiver's reassembler; (4) the cells that arrived in this
//! slot are enqueued (or dropped) by the discard policy.
//!
//! Nothing is allocated per cell: cells are values in the switch's ring and in a fixed
//! arrival buffer; packets wait in per-host queues whose capacity is reused.

use super::aal5::{cells_for, Reassembler, ReassemblyStats};
use super::cell::{Cell, Vci};
use super::switch::{CellSwitch, SwitchConfig, SwitchStats};
use crate::app::AppSource;
use crate::ids::Addr;
use crate::packet::Packet;
use crate::transport::tcp::{TcpConfig, TcpReceiver, TcpSender};
use crate::transport::{Endpoint, Outbox};
use packetsim_kernel::rng::Rng;
use packetsim_kernel::{Dur, Time};
use std::collections::VecDeque;

/// How the model meets the slot grid (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeBase {
    /// YATS: timers converted by max(1, floor(t / slot)), same-slot arrivals in random order.
    Slotted,
    /// Exact endpoint times, same-slot arrivals in port order.
    Continuous,
}

/// Where a run's random draws come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Draws {
    /// One stream for the run (`Rng::from_seed(seed)`), drawn in the order the slot's steps
    /// need them (the study's runs).
    #[default]
    Shared,
    /// The streams a scenario world of the same network draws from under the same seed
    /// (`scenarios/atm-two-senders.toml` with `time_base = "slotted"`): connection `i`'s
    /// processing times from `flows.tcp<i+1>.sender_processing` (and `receiver_processing`),
    /// the same-slot orders from the switch direction's `cells.cells:senders->receivers`; the
    /// arrivals are shuffled in the order the VCs first sent a cell (the world numbers a
    /// link's VCs by first use). With these the run is the world's, draw for draw
    /// (`tests/integration/atm.rs`).
    World,
}

/// The frame source feeding each sender (spec §2.4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceConfig {
    /// Block size, bytes (9180).
    pub block: u64,
    /// Time between blocks (2 ms).
    pub interval: Dur,
    /// The send buffer BUF, bytes (64,000).
    pub buffer: u64,
    /// The source resumes at BUF − this (4096).
    pub resume_below: u64,
    /// YATS's start-stop protocol: blocks accepted whole, the next block after a resume no
    /// earlier than the slot after it (`crate::app::frames`). False: a block is written as far
    /// as it fits and the rest at the resume.
    pub whole_blocks: bool,
}

/// Configuration of one cell-level run.
#[derive(Clone, Debug)]
pub struct AtmNetConfig {
    /// Number of TCP connections (one VC each).
    pub connections: u16,
    /// Slot length (20 µs; 2.83 µs in the sensitivity case).
    pub slot: Dur,
    /// The time base.
    pub time_base: TimeBase,
    /// The switch output (B, policy).
    pub switch: SwitchConfig,
    /// TCP (both ends).
    pub tcp: TcpConfig,
    /// The frame source; `None`: a greedy (bulk) sender (spec §3.2 background runs).
    pub source: Option<SourceConfig>,
    /// One-way propagation delay, on the switch-to-receiver path and on the ACK path alike
    /// (0 in the main experiment; 0.5 ms for spec §3.2's 1 ms round trip).
    pub prop: Dur,
    /// Slots before measuring goodput (`ConnResult::delivered_after_warmup`).
    pub warmup_slots: u64,
    /// Idle intervals of the switch (no cell queued or arriving) at least this long are
    /// recorded (`AtmRunResult::idle_gaps`).
    pub gap_min_slots: u64,
    /// Sender per-packet processing delay, uniform in [lo, hi] (spec §2.5: 0.3-0.33 ms).
    pub send_proc: (Dur, Dur),
    /// Receiver per-packet processing delay, uniform in [lo, hi] (spec §2.6: 0.3 ms).
    pub recv_proc: (Dur, Dur),
    /// Slots simulated.
    pub slots: u64,
    /// Trace bin, slots (queue and sender-1 series; 0: no trace).
    pub trace_bin: u64,
    /// Trace only the first this many slots.
    pub trace_slots: u64,
    /// Run seed.
    pub seed: u64,
    /// Where the random draws come from.
    pub draws: Draws,
}

/// One point of the trace: a bin of `trace_bin` slots.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TracePoint {
    /// First slot of the bin.
    pub slot: u64,
    /// Largest queue length in the bin, cells.
    pub q_max: u32,
    /// Mean queue length in the bin, cells.
    pub q_mean: f64,
    /// Sender 1: data bytes sent (retransmissions included) up to the end of the bin.
    pub sent1: u64,
    /// Sender 1: data bytes sent in the bin.
    pub sent1_bin: u64,
}

/// Per-connection results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConnResult {
    /// Payload bytes delivered in order to the receiving application (goodput bytes).
    pub delivered: u64,
    /// The same, from the end of the warm-up on.
    pub delivered_after_warmup: u64,
    /// Payload bytes the sender transmitted (retransmissions included).
    pub bytes_sent: u64,
    /// Data segments retransmitted.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Segments that arrived carrying only bytes already received (spurious retransmissions).
    pub spurious: u64,
    /// Frames (IP packets) the receiver's AAL5 discarded for missing cells.
    pub corrupted_frames: u64,
    /// Pauses of the frame source (send buffer full).
    pub source_pauses: u64,
    /// Whether the connection was aborted (too many timeouts).
    pub aborted: bool,
    /// Frames (IP packets, ACK-less data and the SYN) the receiver's AAL5 passed up intact.
    pub data_frames: u64,
}

/// What one run produced.
#[derive(Clone, Debug, Default)]
pub struct AtmRunResult {
    /// Slots simulated.
    pub slots: u64,
    /// Slot length.
    pub slot: Dur,
    /// The switch's counters.
    pub switch: SwitchStats,
    /// Per connection.
    pub conns: Vec<ConnResult>,
    /// Queue and sender-1 series.
    pub trace: Vec<TracePoint>,
    /// Receivers' reassembly counters, summed.
    pub reassembly: ReassemblyStats,
    /// Lengths (slots) of the switch's idle intervals of at least `gap_min_slots`, in order.
    pub idle_gaps: Vec<u64>,
}

impl AtmRunResult {
    /// Load: cells sent on the switch output per slot.
    pub fn load(&self) -> f64 {
        self.switch.sent as f64 / self.slots as f64
    }

    /// Simulated time.
    pub fn elapsed(&self) -> Dur {
        Dur(self.slot.0 * self.slots)
    }

    /// Goodput bytes of all connections after the warm-up.
    pub fn goodput_after_warmup(&self) -> u64 {
        self.conns.iter().map(|c| c.delivered_after_warmup).sum()
    }
}

/// A packet waiting for a time (processing, or travelling the ACK path).
struct Timed {
    at: u64,
    /// Exact time (continuous time base).
    exact: Time,
    pkt: Packet,
}

/// One connection's hosts and adapters.
struct Conn {
    snd: TcpSender,
    rcv: TcpReceiver,
    /// Sender's wake-up slot (u64::MAX: none) and the exact deadline.
    snd_wake: (u64, Time),
    rcv_wake: (u64, Time),
    /// Packets in the sender's processing, in order of completion.
    snd_proc: VecDeque<Timed>,
    snd_proc_free: Time,
    /// Frames being sent by the AAL5 adapter: (frame number, packet), front = on the wire.
    frames: VecDeque<(u32, Packet)>,
    /// Cells of the front frame already sent.
    cell_idx: u32,
    next_frame: u32,
    reasm: Reassembler,
    /// Data packets in the receiver's processing.
    rcv_proc: VecDeque<Timed>,
    rcv_proc_free: Time,
    /// ACKs on the return path (arrival slot).
    acks: VecDeque<Timed>,
    ack_link_free: u64,
    /// Frames that left the adapter and may reach the receiver, oldest first.
    in_flight: VecDeque<(u32, Packet)>,
    /// The last clock each endpoint was driven with (never goes back).
    snd_now: Time,
    rcv_now: Time,
}

/// Simulates one run.
pub fn run(cfg: &AtmNetConfig) -> AtmRunResult {
    Sim::new(cfg).run()
}

struct Sim<'a> {
    cfg: &'a AtmNetConfig,
    slot_ns: u64,
    conns: Vec<Conn>,
    sw: CellSwitch,
    rng: Rng,
    out: Outbox,
    arrivals: Vec<Cell>,
    /// The propagation delay in whole slots.
    prop_slots: u64,
    /// No endpoint has anything due before this slot (a lower bound: step (1) of a slot
    /// before it would do nothing and is skipped).
    due: u64,
    /// [`Draws::World`]: per connection, the sender's and the receiver's processing streams,
    /// the switch's order stream, and each connection's VC rank (order of first use).
    world_draws: Option<WorldDraws>,
}

struct WorldDraws {
    snd: Vec<Rng>,
    rcv: Vec<Rng>,
    cells: Rng,
    rank: Vec<u16>,
    ranked: u16,
}

impl<'a> Sim<'a> {
    fn new(cfg: &'a AtmNetConfig) -> Sim<'a> {
        let conns = (0..cfg.connections)
            .map(|i| {
                let (a, b) = (Addr(2 * i as u32), Addr(2 * i as u32 + 1));
                let app = match &cfg.source {
                    Some(s) if s.whole_blocks => AppSource::frames_whole_blocks(
                        s.block,
                        s.interval,
                        s.buffer,
                        s.buffer - s.resume_below,
                    ),
                    Some(s) => {
                        AppSource::frames(s.block, s.interval, s.buffer, s.buffer - s.resume_below)
                    }
                    None => AppSource::from(crate::app::AppData::Unlimited),
                };
                Conn {
                    snd: TcpSender::with_app(&cfg.tcp, a, b, app),
                    rcv: TcpReceiver::new(&cfg.tcp, b, a),
                    snd_wake: (u64::MAX, Time::ZERO),
                    rcv_wake: (u64::MAX, Time::ZERO),
                    snd_proc: VecDeque::with_capacity(16),
                    snd_proc_free: Time::ZERO,
                    frames: VecDeque::with_capacity(16),
                    cell_idx: 0,
                    next_frame: 0,
                    reasm: Reassembler::new(),
                    rcv_proc: VecDeque::with_capacity(16),
                    rcv_proc_free: Time::ZERO,
                    acks: VecDeque::with_capacity(16),
                    ack_link_free: 0,
                    in_flight: VecDeque::with_capacity(16),
                    snd_now: Time::ZERO,
                    rcv_now: Time::ZERO,
                }
            })
            .collect();
        Sim {
            cfg,
            slot_ns: cfg.slot.0,
            conns,
            sw: CellSwitch::new(cfg.switch),
            rng: Rng::from_seed(cfg.seed),
            out: Outbox::default(),
            arrivals: Vec::with_capacity(cfg.connections as usize),
            prop_slots: cfg.prop.0 / cfg.slot.0,
            due: 0,
            world_draws: (cfg.draws == Draws::World).then(|| {
                let flow = |i: u16, side: &str| {
                    Rng::for_component(cfg.seed, &format!("flows.tcp{}.{side}", i + 1))
                };
                WorldDraws {
                    snd: (0..cfg.connections)
                        .map(|i| flow(i, "sender_processing"))
                        .collect(),
                    rcv: (0..cfg.connections)
                        .map(|i| flow(i, "receiver_processing"))
                        .collect(),
                    cells: Rng::for_component(cfg.seed, "cells.cells:senders->receivers"),
                    rank: vec![u16::MAX; cfg.connections as usize],
                    ranked: 0,
                }
            }),
        }
    }

    fn slotted(&self) -> bool {
        self.cfg.time_base == TimeBase::Slotted
    }

    /// The slot at which something due `d` after the start of slot `t` happens.
    fn after(&self, t: u64, d: Dur) -> u64 {
        t + timer_slots(d, self.cfg.slot)
    }

    /// The slot at which an exact time `x` is reached (ceiling, at least `t + 1`).
    fn ceil_slot(&self, t: u64, x: Time) -> u64 {
        x.0.div_ceil(self.slot_ns).max(t + 1)
    }

    /// Wake-up of an endpoint whose deadline is `d`, computed at slot `t` with clock `now`.
    fn wake(&self, t: u64, now: Time, d: Option<Time>) -> (u64, Time) {
        match d {
            None => (u64::MAX, Time::ZERO),
            Some(x) if self.slotted() => {
                let left = Dur(x.0.saturating_sub(now.0));
                (self.after(t, left), x)
            }
            Some(x) => (self.ceil_slot(t, x), x),
        }
    }

    /// A processing time of connection `i`'s sender (`send`) or receiver.
    fn proc_delay(&mut self, i: usize, send: bool, (lo, hi): (Dur, Dur)) -> Dur {
        if hi <= lo {
            return lo;
        }
        let rng = match self.world_draws.as_mut() {
            None => &mut self.rng,
            Some(w) if send => &mut w.snd[i],
            Some(w) => &mut w.rcv[i],
        };
        Dur(lo.0 + rng.below(hi.0 - lo.0 + 1))
    }

    /// Takes what sender `i` put in the outbox into its processing queue.
    fn sender_out(&mut self, i: usize, t: u64, now: Time) {
        let mut pkts = std::mem::take(&mut self.out.packets);
        for pkt in pkts.drain(..) {
            let d = self.proc_delay(i, true, self.cfg.send_proc);
            let c = &self.conns[i];
            let start = now.max(c.snd_proc_free);
            let exact = start + d;
            let at = if self.slotted() {
                let s0 = start.0 / self.slot_ns;
                self.after(s0.max(t), d)
            } else {
                self.ceil_slot(t, exact)
            };
            let c = &mut self.conns[i];
            c.snd_proc_free = exact;
            c.snd_proc.push_back(Timed { at, exact, pkt });
        }
        self.out.clear();
        self.out.packets = pkts;
    }

    /// Takes the ACKs receiver `i` put in the outbox onto its return path.
    fn receiver_out(&mut self, i: usize, t: u64) {
        let mut pkts = std::mem::take(&mut self.out.packets);
        for pkt in pkts.drain(..) {
            let cells = cells_for(ip_len(&pkt)) as u64;
            let c = &mut self.conns[i];
            let start = c.ack_link_free.max(t);
            c.ack_link_free = start + cells;
            // The last cell arrives at the end of slot start + cells − 1 (plus the propagation
            // delay): handled the next slot.
            let at = start + cells + self.prop_slots;
            c.acks.push_back(Timed {
                at,
                exact: Time(at * self.slot_ns),
                pkt,
            });
        }
        self.out.clear();
        self.out.packets = pkts;
    }

    fn clock(&self, t: u64) -> Time {
        Time(t * self.slot_ns)
    }

    /// The clock an endpoint's timer with deadline `d` is delivered with in slot `t`, its last
    /// clock being `last`: slotted, the slot's start or the deadline if that lies inside the
    /// slot (see the module doc); continuous, the deadline; never before `last`.
    fn timer_clock(&self, t: u64, d: Time, last: Time) -> Time {
        let now = if self.slotted() {
            let start = self.clock(t);
            if d > start && d < self.clock(t + 1) {
                d
            } else {
                start
            }
        } else {
            d
        };
        now.max(last)
    }

    fn run(mut self) -> AtmRunResult {
        let cfg = self.cfg;
        let n = self.conns.len();
        let mut trace = Vec::new();
        let (mut q_max, mut q_sum, mut last_sent1) = (0u32, 0u64, 0u64);
        let mut idle_run = 0u64;
        let mut idle_gaps = Vec::new();
        let mut at_warmup = vec![0u64; n];
        // Open every connection at slot 0.
        for i in 0..n {
            let now = Time::ZERO;
            self.conns[i].snd.open(now, &mut self.out);
            self.sender_out(i, 0, now);
            let w = self.wake(0, now, self.conns[i].snd.next_timeout());
            self.conns[i].snd_wake = w;
        }
        for t in 0..cfg.slots {
            let slot_start = self.clock(t);
            // (1) endpoints (none has anything due before `self.due`).
            let active = if t >= self.due { n } else { 0 };
            let mut due = u64::MAX;
            for i in 0..active {
                // ACKs that reached the sender.
                while self.conns[i].acks.front().is_some_and(|a| a.at <= t) {
                    let a = self.conns[i].acks.pop_front().expect("front");
                    let now = slot_start.max(self.conns[i].snd_now);
                    self.conns[i].snd_now = now;
                    self.conns[i].snd.on_packet(now, &a.pkt, &mut self.out);
                    self.sender_out(i, t, now);
                    let w = self.wake(t, now, self.conns[i].snd.next_timeout());
                    self.conns[i].snd_wake = w;
                }
                if self.conns[i].snd_wake.0 <= t {
                    let now = self.timer_clock(t, self.conns[i].snd_wake.1, self.conns[i].snd_now);
                    self.conns[i].snd_now = now;
                    self.conns[i].snd.on_timer(now, &mut self.out);
                    self.sender_out(i, t, now);
                    let w = self.wake(t, now, self.conns[i].snd.next_timeout());
                    self.conns[i].snd_wake = w;
                }
                // Data packets whose receiver processing ended.
                while self.conns[i].rcv_proc.front().is_some_and(|p| p.at <= t) {
                    let p = self.conns[i].rcv_proc.pop_front().expect("front");
                    let now = if self.slotted() { slot_start } else { p.exact };
                    let now = now.max(self.conns[i].rcv_now);
                    self.conns[i].rcv_now = now;
                    self.conns[i].rcv.on_packet(now, &p.pkt, &mut self.out);
                    self.receiver_out(i, t);
                    let w = self.wake(t, now, self.conns[i].rcv.next_timeout());
                    self.conns[i].rcv_wake = w;
                }
                if self.conns[i].rcv_wake.0 <= t {
                    let now = self.timer_clock(t, self.conns[i].rcv_wake.1, self.conns[i].rcv_now);
                    self.conns[i].rcv_now = now;
                    self.conns[i].rcv.on_timer(now, &mut self.out);
                    self.receiver_out(i, t);
                    let w = self.wake(t, now, self.conns[i].rcv.next_timeout());
                    self.conns[i].rcv_wake = w;
                }
                // Packets whose sender processing ended join the adapter.
                let c = &mut self.conns[i];
                while c.snd_proc.front().is_some_and(|p| p.at <= t) {
                    let p = c.snd_proc.pop_front().expect("front");
                    c.frames.push_back((c.next_frame, p.pkt));
                    c.next_frame = c.next_frame.wrapping_add(1);
                }
                due = due.min(c.due());
            }
            if active > 0 {
                self.due = due;
            }
            // (2) each adapter sends one cell.
            self.arrivals.clear();
            for (i, c) in self.conns.iter_mut().enumerate() {
                if let Some((f, p)) = c.frames.front() {
                    let cells = cells_for(ip_len(p));
                    let cell = Cell {
                        vci: Vci(i as u16),
                        frame: *f,
                        eof: c.cell_idx + 1 == cells,
                        cells: cells as u16,
                    };
                    self.arrivals.push(cell);
                    c.cell_idx += 1;
                    if cell.eof {
                        c.cell_idx = 0;
                        // The packet goes to the receiver side's table of frames in flight.
                        let (f, p) = c.frames.pop_front().expect("front");
                        c.in_flight_push(f, p);
                    }
                }
            }
            // (3) the switch output sends its head cell.
            if let Some(cell) = self.sw.depart() {
                let i = cell.vci.0 as usize;
                let t_now = slot_start;
                if let Some(f) = self.conns[i].reasm.on_cell(cell) {
                    if let Some(pkt) = self.conns[i].in_flight_take(f) {
                        let d = self.proc_delay(i, false, cfg.recv_proc);
                        let c = &self.conns[i];
                        let t_arr = t + self.prop_slots;
                        let start =
                            (t_now + Dur(self.prop_slots * self.slot_ns)).max(c.rcv_proc_free);
                        let exact = start + d;
                        let at = if self.slotted() {
                            self.after(t_arr.max(start.0 / self.slot_ns), d)
                        } else {
                            self.ceil_slot(t_arr, exact)
                        };
                        let c = &mut self.conns[i];
                        c.rcv_proc_free = exact;
                        c.rcv_proc.push_back(Timed { at, exact, pkt });
                        self.due = self.due.min(at);
                    }
                }
            }
            // (4) this slot's arrivals, in random order (slotted) or port order.
            if self.slotted() && self.arrivals.len() > 1 {
                match self.world_draws.as_mut() {
                    None => shuffle(&mut self.arrivals, &mut self.rng),
                    Some(w) => {
                        // The world's port lists a slot's cells by VC, VCs numbered by
                        // first use.
                        for c in &self.arrivals {
                            let r = &mut w.rank[c.vci.0 as usize];
                            if *r == u16::MAX {
                                *r = w.ranked;
                                w.ranked += 1;
                            }
                        }
                        let rank = &w.rank;
                        self.arrivals.sort_by_key(|c| rank[c.vci.0 as usize]);
                        shuffle(&mut self.arrivals, &mut w.cells);
                    }
                }
            } else if let (Some(w), [c]) = (self.world_draws.as_mut(), &self.arrivals[..]) {
                let r = &mut w.rank[c.vci.0 as usize];
                if *r == u16::MAX {
                    *r = w.ranked;
                    w.ranked += 1;
                }
            }
            for k in 0..self.arrivals.len() {
                let c = self.arrivals[k];
                self.sw.arrive(c);
            }
            if self.arrivals.is_empty() && self.sw.is_empty() {
                idle_run += 1;
            } else {
                if idle_run >= cfg.gap_min_slots && cfg.gap_min_slots > 0 {
                    idle_gaps.push(idle_run);
                }
                idle_run = 0;
            }
            if t + 1 == cfg.warmup_slots {
                for (w, c) in at_warmup.iter_mut().zip(&self.conns) {
                    *w = c.rcv.stats().bytes_delivered;
                }
            }
            // Trace.
            if cfg.trace_bin > 0 && t < cfg.trace_slots {
                let q = self.sw.len();
                q_max = q_max.max(q);
                q_sum += q as u64;
                if (t + 1) % cfg.trace_bin == 0 {
                    let sent1 = self.conns[0].snd.stats().bytes_sent;
                    trace.push(TracePoint {
                        slot: t + 1 - cfg.trace_bin,
                        q_max,
                        q_mean: q_sum as f64 / cfg.trace_bin as f64,
                        sent1,
                        sent1_bin: sent1 - last_sent1,
                    });
                    last_sent1 = sent1;
                    q_max = 0;
                    q_sum = 0;
                }
            }
        }
        let mut reassembly = ReassemblyStats::default();
        let conns = self
            .conns
            .iter()
            .zip(&at_warmup)
            .map(|(c, w)| {
                let r = c.reasm.stats();
                reassembly.cells += r.cells;
                reassembly.frames_ok += r.frames_ok;
                reassembly.frames_corrupted += r.frames_corrupted;
                reassembly.cells_wasted += r.cells_wasted;
                let s = c.snd.stats();
                ConnResult {
                    delivered: c.rcv.stats().bytes_delivered,
                    delivered_after_warmup: c.rcv.stats().bytes_delivered - w,
                    bytes_sent: s.bytes_sent,
                    retransmits: s.retransmits,
                    timeouts: s.timeouts,
                    spurious: c.rcv.stats().duplicate_segments,
                    corrupted_frames: r.frames_corrupted,
                    source_pauses: match c.snd.app() {
                        AppSource::Frames(f) => f.pauses(),
                        _ => 0,
                    },
                    aborted: s.aborted,
                    data_frames: r.frames_ok,
                }
            })
            .collect();
        AtmRunResult {
            slots: cfg.slots,
            slot: cfg.slot,
            switch: *self.sw.stats(),
            conns,
            trace,
            reassembly,
            idle_gaps,
        }
    }
}

impl Conn {
    /// The first slot at which step (1) has something to do for this connection: an ACK
    /// reaching the sender, an endpoint's timer, a packet leaving processing.
    fn due(&self) -> u64 {
        let front = |q: &VecDeque<Timed>| q.front().map_or(u64::MAX, |p| p.at);
        front(&self.acks)
            .min(self.snd_wake.0)
            .min(front(&self.rcv_proc))
            .min(self.rcv_wake.0)
            .min(front(&self.snd_proc))
    }

    fn in_flight_push(&mut self, f: u32, p: Packet) {
        self.in_flight.push_back((f, p));
    }

    /// The packet of frame `f` (older frames, lost in the switch, are forgotten).
    fn in_flight_take(&mut self, f: u32) -> Option<Packet> {
        let q = &mut self.in_flight;
        while let Some((g, _)) = q.front() {
            if *g == f {
                return q.pop_front().map(|(_, p)| p);
            }
            // Frame numbers only grow (modulo 2^32: far beyond any run).
            if g.wrapping_sub(f) < u32::MAX / 2 {
                return None;
            }
            q.pop_front();
        }
        None
    }
}

/// A delay of `d` as a whole number of slots: max(1, floor(d / slot)) (YATS, spec §2.1).
pub fn timer_slots(d: Dur, slot: Dur) -> u64 {
    (d.0 / slot.0).max(1)
}

/// The IP packet length of a TCP packet: 20 bytes of IP header plus the TCP segment.
fn ip_len(p: &Packet) -> u32 {
    20 + p.tcp().map_or(0, |h| h.wire_len())
}

/// Shuffles one slot's arrivals with the run's stream (Fisher-Yates).
pub(super) fn shuffle(cells: &mut [Cell], rng: &mut Rng) {
    for k in (1..cells.len()).rev() {
        let j = rng.below(k as u64 + 1) as usize;
        cells.swap(k, j);
    }
}

impl AtmNetConfig {
    /// The main experiment of spec §3.1 (Figs 7-8): two connections, 20 µs slots, the YATS
    /// TCP (MSS 9128, BUF = WND = 64,000 B, timestamps, BSD estimator with a 1 ms tick, no
    /// fast retransmit, initial RTO 3 s, RTO max 64 s, abort after 12 timeouts, delayed ACK
    /// 200 ms with the window-update rule, initial cwnd 1 MSS and ssthresh WND/2, the short
    /// tail of the buffered data sent when the window reaches it as YATS does), CBRFrame
    /// 9180 B every 2 ms, processing 0.3-0.33 ms (sender) and 0.3 ms (receiver), B = 1000
    /// cells with EPD at T = 600, 10^6 slots, a trace of the first 500,000 in bins of 500.
    pub fn paper(rto_min: Dur) -> AtmNetConfig {
        use crate::transport::tcp::{RttEstimatorKind, SsthreshRule, Variant};
        let wnd = 64_000;
        AtmNetConfig {
            connections: 2,
            slot: Dur::from_micros(20),
            time_base: TimeBase::Slotted,
            switch: SwitchConfig {
                buffer: 1000,
                discard: super::Discard::Epd {
                    threshold: 600,
                    keep_eof: false,
                },
                vcs: 2,
            },
            tcp: TcpConfig {
                variant: Variant::Reno,
                mss: 9128,
                initial_cwnd: 1,
                initial_ssthresh: Some(wnd / 2),
                rcv_window: wnd,
                rto_initial: Dur::from_secs(3),
                rto_min,
                rto_max: Dur::from_secs(64),
                timestamps: true,
                delayed_ack: Some(Dur::from_millis(200)),
                ack_window_update: true,
                fast_retransmit: false,
                send_buffer: Some(wnd),
                // YATS `tcpipsend::calc_send` (Nagle off): the short tail of the buffered
                // data goes when the window reaches it; the 9180-byte blocks do not divide
                // into 9128-byte segments, so YATS sends many short segments.
                push_buffered: true,
                max_timeouts: Some(12),
                rtt_estimator: RttEstimatorKind::Bsd,
                tick: Dur::from_millis(1),
                // spec §2.5: on a timeout (and a fast retransmit, when on) ssthresh =
                // max(2, floor(min(cwnd, rwnd) / 2 / MSS)) MSS, cut on every expiry.
                ssthresh_rule: SsthreshRule::Ns2,
                ..TcpConfig::default()
            },
            source: Some(SourceConfig {
                block: 9180,
                interval: Dur::from_millis(2),
                buffer: wnd,
                resume_below: 4096,
                whole_blocks: true,
            }),
            prop: Dur::ZERO,
            warmup_slots: 0,
            gap_min_slots: 1000,
            send_proc: (Dur::from_micros(300), Dur::from_micros(330)),
            recv_proc: (Dur::from_micros(300), Dur::from_micros(300)),
            slots: 1_000_000,
            trace_bin: 500,
            trace_slots: 500_000,
            seed: 1,
            draws: Draws::Shared,
        }
    }
}

impl AtmNetConfig {
    /// The background scenario of spec §3.2 (Figs 1-4, all INFERRED from Romanow & Floyd):
    /// 10 greedy Reno connections with fast retransmit, 64 KB windows, BSD timers with a
    /// 500 ms clock and RTOmin 1 s, IP packets of `packet` bytes (MSS = packet − 40, no
    /// options), a 141.33 Mb/s cell rate (slot 3 µs), a 1 ms round trip, buffer `buffer`
    /// cells under `discard`; `seconds` measured after `warmup` seconds.
    pub fn background(
        packet: u32,
        buffer: u32,
        discard: super::Discard,
        warmup: f64,
        seconds: f64,
    ) -> AtmNetConfig {
        use crate::transport::tcp::{RttEstimatorKind, SsthreshRule, Variant};
        let slot = Dur::from_nanos(3_000);
        let slots = |s: f64| (s / 3e-6).round() as u64;
        AtmNetConfig {
            connections: 10,
            slot,
            time_base: TimeBase::Slotted,
            switch: SwitchConfig {
                buffer,
                discard,
                vcs: 10,
            },
            tcp: TcpConfig {
                variant: Variant::Reno,
                mss: packet - 40,
                initial_cwnd: 1,
                rcv_window: 65_535,
                rto_initial: Dur::from_secs(3),
                rto_min: Dur::from_secs(1),
                rto_max: Dur::from_secs(64),
                rtt_estimator: RttEstimatorKind::Bsd,
                tick: Dur::from_millis(500),
                // BSD Reno's rule, as in the main experiment (spec §2.5).
                ssthresh_rule: SsthreshRule::Ns2,
                ..TcpConfig::default()
            },
            source: None,
            send_proc: (Dur::ZERO, Dur::ZERO),
            recv_proc: (Dur::ZERO, Dur::ZERO),
            prop: Dur::from_micros(500),
            warmup_slots: slots(warmup),
            gap_min_slots: 0,
            slots: slots(warmup + seconds),
            trace_bin: 0,
            trace_slots: 0,
            seed: 1,
            draws: Draws::Shared,
        }
    }

    /// Goodput capacity of the output for this configuration's full-sized packets, payload
    /// bytes per slot: MSS / cells per packet (spec §4 "efficiency": the cell payload less
    /// padding, trailer and headers).
    pub fn payload_per_slot(&self) -> f64 {
        let ip = self.tcp.mss + 40 + if self.tcp.timestamps { 12 } else { 0 };
        self.tcp.mss as f64 / cells_for(ip) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::super::Discard;
    use super::*;

    // spec §2.1: a timer of t seconds is max(1, floor(t / slot)) slots.
    #[test]
    fn timer_conversion_floor_at_least_one() {
        let us = Dur::from_micros;
        assert_eq!(timer_slots(Dur::from_millis(450), us(20)), 22_500);
        assert_eq!(timer_slots(Dur::from_millis(100), us(20)), 5_000);
        assert_eq!(timer_slots(us(330), us(20)), 16);
        assert_eq!(timer_slots(us(319), us(20)), 15, "floor");
        assert_eq!(timer_slots(us(10), us(20)), 1, "at least one slot");
        assert_eq!(timer_slots(Dur::ZERO, us(20)), 1);
        assert_eq!(
            timer_slots(Dur::from_millis(450), Dur::from_nanos(2830)),
            159_010
        );
    }

    // spec §2.1: same-slot arrivals are enqueued in an order drawn from the seeded stream:
    // every order occurs, and the same seed gives the same orders.
    #[test]
    fn same_slot_order_random_and_seeded() {
        let cells: Vec<Cell> = (0..3)
            .map(|v| Cell {
                vci: Vci(v),
                frame: 0,
                eof: true,
                cells: 1,
            })
            .collect();
        let orders = |seed| {
            let mut rng = Rng::from_seed(seed);
            (0..600)
                .map(|_| {
                    let mut c = cells.clone();
                    shuffle(&mut c, &mut rng);
                    c.iter().map(|c| c.vci.0).collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let a = orders(5);
        assert_eq!(a, orders(5), "seeded");
        assert_ne!(a, orders(6));
        let mut distinct = a.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 6, "all 3! orders occur");
        let first0 = a.iter().filter(|o| o[0] == 0).count();
        assert!((150..250).contains(&first0), "about a third: {first0}");
    }

    fn short(slots: u64, conns: u16, discard: Discard) -> AtmNetConfig {
        let mut c = AtmNetConfig::paper(Dur::from_millis(100));
        c.slots = slots;
        c.connections = conns;
        c.switch.vcs = conns;
        c.switch.discard = discard;
        c.trace_slots = slots;
        c
    }

    // spec §2.1-2.3: at most one cell per link per slot (each access link offers at most
    // `slots` cells, the output sends at most `slots`), cell conservation at the switch, and
    // one uncongested connection: nothing dropped, every frame intact, the output busy
    // nearly all the time once the window opens (one cell per slot of 9180-byte frames).
    #[test]
    fn one_cell_per_slot_and_conservation() {
        let r = run(&short(200_000, 1, Discard::Plain));
        let s = r.switch;
        assert!(s.arrived <= r.slots && s.sent <= r.slots);
        assert_eq!(s.dropped(), 0);
        assert_eq!(r.reassembly.frames_corrupted, 0);
        assert!(
            s.arrived - s.sent <= 1,
            "queue holds at most the last slot's cell"
        );
        assert!(r.load() > 0.8, "load {}", r.load());
        let r2 = run(&short(200_000, 2, Discard::Plain));
        let s = r2.switch;
        assert!(s.arrived <= 2 * r2.slots && s.sent <= r2.slots);
        assert!(s.dropped() > 0, "two senders overload the output 2:1");
        assert_eq!(
            s.arrived,
            s.sent + s.overflow + s.ppd_tail + s.epd_refusal + (s.arrived - s.sent - s.dropped())
        );
        assert!(s.max_queue <= 1000);
    }

    // spec §Q8: a run is a function of its seed.
    #[test]
    fn seeded_runs_reproducible() {
        let c = short(100_000, 2, Discard::Ppd { keep_eof: false });
        let (a, b) = (run(&c), run(&c));
        assert_eq!(a.switch, b.switch);
        assert_eq!(a.conns, b.conns);
        let mut c2 = c.clone();
        c2.seed = 2;
        let d = run(&c2);
        assert_ne!((a.switch, a.conns), (d.switch, d.conns));
    }

    /// Prints the main experiment's numbers (not a check; `--ignored --nocapture`).
    #[test]
    #[ignore]
    fn print_main_experiment() {
        for ms in [450, 100] {
            for tb in [TimeBase::Slotted, TimeBase::Continuous] {
                let mut c = AtmNetConfig::paper(Dur::from_millis(ms));
                c.time_base = tb;
                let t0 = std::time::Instant::now();
                let r = run(&c);
                eprintln!(
                    "rto_min {ms} {tb:?}: load {:.4} loss {} sw {:?} conns {:?} ({:?})",
                    r.load(),
                    r.switch.dropped(),
                    r.switch,
                    r.conns,
                    t0.elapsed()
                );
            }
        }
    }
}
