//! A point's configuration (spec 1 §3.1 and §3.2) and a run's statistics, as the study's
//! network (`network.rs`) reads and fills them. (Until issue 35 these were the types of the
//! study's own cell-level engine, `atm/sim.rs`, removed after commit ff13d99.)

use crate::atm::cells_for;
use crate::atm::switch::{Discard, SwitchConfig, SwitchStats};
use crate::transport::tcp::TcpConfig;
use packetsim_kernel::Dur;

pub use crate::scenario::TimeBase;

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
    /// The world's time base (slotted: spec §2.1's grid, YATS).
    pub time_base: TimeBase,
    /// The switch output (B, policy).
    pub switch: SwitchConfig,
    /// TCP (both ends).
    pub tcp: TcpConfig,
    /// The frame source; `None`: a greedy (bulk) sender (spec §3.2 background runs).
    pub source: Option<SourceConfig>,
    /// One-way propagation delay, on the switch-to-receiver path and on the ACK path alike,
    /// in whole slots (0 in the main experiment; 0.5 ms for spec §3.2's 1 ms round trip).
    pub prop: Dur,
    /// Slots before measuring goodput (`ConnResult::delivered_after_warmup`).
    pub warmup_slots: u64,
    /// Idle intervals of the switch (no cell queued or arriving) at least this long are
    /// recorded (`AtmRunResult::idle_gaps`).
    pub gap_min_slots: u64,
    /// Sender per-packet processing delay, uniform in [lo, hi] (spec §2.5: 0.3-0.33 ms).
    pub send_proc: (Dur, Dur),
    /// Receiver per-packet processing delay (spec §2.6: 0.3 ms); the world takes one value,
    /// so `lo` must equal `hi`.
    pub recv_proc: (Dur, Dur),
    /// Slots simulated.
    pub slots: u64,
    /// Trace bin, slots (queue and sender-1 series; 0: no trace).
    pub trace_bin: u64,
    /// Trace only the first this many slots.
    pub trace_slots: u64,
    /// Run seed.
    pub seed: u64,
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
    /// Pauses of the frame source (send buffer full).
    pub source_pauses: u64,
    /// Whether the connection was aborted (too many timeouts).
    pub aborted: bool,
    /// Data packets the receiver got intact.
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
    /// Frames the switch direction lost to cell loss (all connections).
    pub frames_lost: u64,
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
                discard: Discard::Epd {
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
        discard: Discard,
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
