//! Run summaries and their writers: `summary.json`, `flows.csv`, `queues.csv`, the time
//! series CSVs, and the readable table `packetsim run` prints.
//!
//! Contract other tools rely on (summary.json): `flows.<name>.goodput_bps`,
//! `flows.<name>.completion_time_s` (null when the transfer did not finish),
//! `flows.<name>.retransmits`, `.timeouts`, `.fast_retransmits`, `queues.<name>.arrivals`,
//! `queues.<name>.drops`, `events` and `wall_time_s`. Queue names are `<link>:<from>-><to>`.
//! Everything but `wall_time_s` is a pure function of the scenario and seed.

pub mod chart;
pub mod fct;

use crate::experiment::aggregate::CsvText;
use crate::queue::{DropReason, PrecedenceStats, QueueStats};
use crate::trace::monitor::{FlowMonitorSummary, SojournSummary};
use crate::world::{FlowKind, RunInfo, World};
use packetsim_kernel::Dur;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// What a run simulated, for the console line and the run page, from summary.json's
/// `duration_s`, `span_s` and `ended_by`: `"60.000 s simulated"`; for a run of finite
/// transfers `"12.345 s simulated (every flow finished; cap 60 s; averages over 12.345 s)"`
/// or `"60.000 s simulated (the cap: a transfer did not finish)"`.
pub fn simulated_phrase(duration_s: f64, span_s: Option<f64>, ended_by: Option<&str>) -> String {
    match (span_s, ended_by) {
        (Some(span), Some("flows_finished")) => format!(
            "{span:.3} s simulated (every flow finished; cap {duration_s} s; averages over \
             {span:.3} s)"
        ),
        (Some(span), _) => format!("{span:.3} s simulated (the cap: a transfer did not finish)"),
        _ => format!("{duration_s:.3} s simulated"),
    }
}

/// Per-flow results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSummary {
    /// "tcp" or "cbr".
    pub kind: &'static str,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// TCP variant, or null for CBR.
    pub variant: Option<String>,
    /// When the application started, s.
    pub start_s: f64,
    /// Payload bytes transmitted, retransmissions included.
    pub bytes_sent: u64,
    /// Payload bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// bytes_delivered × 8 over the flow's active time (start to completion, stop or end).
    pub goodput_bps: f64,
    /// Completion time of a finite transfer (last byte delivered − start), s; null if unfinished
    /// or not a finite transfer.
    pub completion_time_s: Option<f64>,
    /// Transfer time of a finite transfer with the handshake excluded (last byte delivered −
    /// connection or association established), s, as spec 3 §4 defines it; null if unfinished.
    pub transfer_time_s: Option<f64>,
    /// Data segments (TCP) or datagrams (CBR) sent, retransmissions included.
    pub segments_sent: u64,
    /// Data segments retransmitted.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Data segments received that carried only bytes already received.
    pub duplicate_segments: u64,
    /// Data packets that reached the receiver (duplicates included).
    pub data_packets_delivered: u64,
    /// TCP: of `data_packets_delivered`, those that arrived in order with new bytes (advanced
    /// the receiver's cumulative point).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_packets_in_order: Option<u64>,
    /// TCP: the rest of `data_packets_delivered`: duplicates and out-of-order arrivals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_packets_not_in_order: Option<u64>,
    /// ECN: congestion-window reductions on ECE (TCP).
    pub ecn_reductions: u64,
    /// ECN: data segments received with CE (TCP).
    pub ce_received: u64,
    /// DiffServ edge: data packets metered in profile (green/IN).
    pub marked_in: u64,
    /// DiffServ edge: data packets metered out of profile (yellow or red/OUT).
    pub marked_out: u64,
    /// SCTP associations: the sender's per-destination diagnostics (spec 3 §4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sctp: Option<SctpSummary>,
    /// With `simulation.flow_monitor = true`: one-way delay, jitter, loss and RTT
    /// ([`crate::trace::monitor`]); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_monitor: Option<FlowMonitorSummary>,
}

/// The sending end of an SCTP association, as spec 3 §4 asks to log it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SctpSummary {
    /// Per destination, by index in the association's address list ("0" is the first).
    pub paths: BTreeMap<String, SctpPathSummary>,
    /// HEARTBEAT chunks sent.
    pub heartbeats_sent: u64,
    /// Chunks retransmitted more than once.
    pub chunks_lost_twice: u64,
    /// Time with a T3-rtx running on a non-primary destination while the cumulative ack was
    /// blocked by a chunk outstanding there, s.
    pub alt_t3_wait_s: f64,
    /// Times the association error count passed Association.Max.Retrans.
    pub assoc_max_retrans_events: u64,
}

/// One destination of an SCTP association.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SctpPathSummary {
    /// T3-rtx expiries.
    pub t3_expiries: u64,
    /// Chunks fast-retransmitted that had last been sent to this destination.
    pub fast_retransmits: u64,
    /// Chunks retransmitted to this destination (fast or after a timeout).
    pub retransmitted_chunks: u64,
    /// HEARTBEATs sent to it.
    pub heartbeats_sent: u64,
    /// RTT samples from HEARTBEAT-ACKs.
    pub heartbeat_samples: u64,
    /// RTT samples from DATA chunks.
    pub data_samples: u64,
    /// RTO at the end, s.
    pub rto_final_s: f64,
    /// Time-weighted mean RTO from the end of the handshake to the transfer's completion (or
    /// the end of the run), s.
    pub rto_mean_s: f64,
}

/// The time-weighted mean of a step function given by its changes, over `[from, to)`.
fn step_mean(
    changes: &[(packetsim_kernel::Time, packetsim_kernel::Dur)],
    from: packetsim_kernel::Time,
    to: packetsim_kernel::Time,
) -> f64 {
    if to <= from || changes.is_empty() {
        return changes.last().map_or(f64::NAN, |c| c.1.as_secs_f64());
    }
    let mut area = 0.0;
    for (i, &(t, v)) in changes.iter().enumerate() {
        let start = t.max(from);
        let end = changes.get(i + 1).map_or(to, |n| n.0).min(to);
        if end > start {
            area += v.as_secs_f64() * (end - start).as_secs_f64();
        }
    }
    // Before the first change the value is the first one.
    if changes[0].0 > from {
        area += changes[0].1.as_secs_f64() * (changes[0].0.min(to) - from).as_secs_f64();
    }
    area / (to - from).as_secs_f64()
}

/// Per-queue results (one per link direction).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct QueueSummary {
    /// The link.
    pub link: String,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Packets offered.
    pub arrivals: u64,
    /// Packets that went on to the transmitter.
    pub departures: u64,
    /// Packets dropped at the queue (all reasons).
    pub drops: u64,
    /// Drops by reason (only reasons that occurred).
    pub drops_by_reason: BTreeMap<&'static str, u64>,
    /// Packets ECN-marked.
    pub marks: u64,
    /// Time-average number of packets waiting.
    pub mean_len_pkts: f64,
    /// Most packets waiting at once.
    pub max_len_pkts: f64,
    /// Fraction of the run the transmitter was busy.
    pub utilisation: f64,
    /// Packets lost on the wire (error model).
    pub lost_error: u64,
    /// Packets lost to outages.
    pub lost_link_down: u64,
    /// IN-precedence arrivals and their fates (as they arrived).
    pub precedence_in: PrecedenceStats,
    /// OUT-precedence arrivals and their fates (as they arrived).
    pub precedence_out: PrecedenceStats,
    /// A slotted cell link direction (`kind = "atm"`): its switch's cell counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells: Option<CellQueueSummary>,
    /// A FIFO RED direction: its average queue (F&J's `avg`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red_avg: Option<RedAvgSummary>,
    /// With `simulation.flow_monitor = true`, link directions only: time from admission to
    /// the start of transmission ([`crate::trace::monitor`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sojourn: Option<SojournSummary>,
}

/// RED's average queue over a run, in packets (typical packets in byte mode). The average
/// changes only at arrivals and holds its value in between.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct RedAvgSummary {
    /// Time-weighted mean over the run (over `[0, span_s)` when finite transfers end it).
    pub mean_pkts: f64,
    /// Largest value.
    pub max_pkts: f64,
    /// Value at the end.
    pub final_pkts: f64,
}

/// The cell switch of one cell link direction (spec 1 §2.3's counters), over the whole run.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct CellQueueSummary {
    /// The slot (one 53-byte cell at the link rate), s.
    pub slot_s: f64,
    /// Cells that reached the switch from the adapters.
    pub arrived: u64,
    /// Cells the switch output sent (load = sent / slots of the run, the `utilisation`).
    pub sent: u64,
    /// Cells dropped, all causes.
    pub dropped: u64,
    /// Cells dropped because the buffer held B cells.
    pub dropped_overflow: u64,
    /// Cells dropped as the tail of a frame that had lost a cell (PPD, and EPD after overflow).
    pub dropped_ppd_tail: u64,
    /// Cells dropped with a frame EPD refused at its first cell.
    pub dropped_epd_refusal: u64,
    /// Cells admitted that belong to frames that lost a cell here (carried for nothing).
    pub useless: u64,
    /// Frames that lost at least one cell here (EPD refusals included).
    pub frames_damaged: u64,
    /// Cells queued at the end of the run.
    pub queued: u32,
    /// Mean of the per-slot queue length (after each slot's arrivals) over the run, cells.
    pub mean_len_cells: f64,
    /// Largest queue length, cells.
    pub max_len_cells: u32,
}

/// Everything `packetsim run` reports.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// Where the scenario came from.
    pub scenario: String,
    /// The run seed.
    pub seed: u64,
    /// Simulated duration, s: the scenario's `duration`, the cap.
    pub duration_s: f64,
    /// Only for a run whose flows are all finite transfers: the span it covered, s, from 0 to
    /// the last flow's last byte when every flow finished (else the duration). Utilisation,
    /// mean queue length and goodput are over `[0, span_s)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_s: Option<f64>,
    /// Only for a run whose flows are all finite transfers: `"flows_finished"` when every flow
    /// finished and so ended the run, `"duration"` when it reached the cap first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<&'static str>,
    /// Events processed.
    pub events: u64,
    /// Wall-clock time of the event loop, s (the only non-deterministic field).
    pub wall_time_s: f64,
    /// packetsim version.
    pub version: &'static str,
    /// Per flow, by name.
    pub flows: BTreeMap<String, FlowSummary>,
    /// Per queue, by `<link>:<from>-><to>`.
    pub queues: BTreeMap<String, QueueSummary>,
    /// Drops anywhere in the network, by reason.
    pub drops: BTreeMap<&'static str, u64>,
    /// Flow completion times of workloads (`app = "poisson"`), by workload; only in runs
    /// with one (`report/fct.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct: Option<BTreeMap<String, fct::WorkloadFct>>,
    /// Flow completion times of every workload together; only in runs with more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct_all: Option<fct::WorkloadFct>,
    /// One row per workload flow (fct.csv).
    #[serde(skip)]
    pub fct_rows: Vec<fct::FctRow>,
    /// A scenario with `[mobility]`: the mobility metrics (spec 5 §2.7); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mobility: Option<MobilitySummary>,
    /// A scenario with `kind = "wifi"` links: MAC counters and handoffs; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wifi: Option<crate::wifi::report::WifiSummary>,
    /// With `simulation.flow_monitor = true`: every RTT sample of the TCP flows as (flow,
    /// time s, RTT s), in time order (rtt.csv).
    #[serde(skip)]
    pub rtt_rows: Vec<(String, f64, f64)>,
}

/// The mobility metrics of a run (`[mobility]`, spec 5 §2.7), over all mobiles.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MobilitySummary {
    /// Handoffs made, all mobiles.
    pub handoffs: u64,
    /// Data packets discarded on the way to a mobile of which no copy reached it.
    pub handoff_loss: u64,
    /// The same by the number of handoffs made when discarded (`"0"`: before the first).
    pub handoff_loss_by_handoff: BTreeMap<String, u64>,
    /// Discarded data packets of which a copy did reach the mobile (bicast waste).
    pub wasted_copies: u64,
    /// Data packets that reached a mobile twice or more.
    pub duplicates: u64,
    /// Data packets below the highest sequence number seen on their flow.
    pub out_of_order: u64,
    /// TCP packets lost on the radio, both directions.
    pub radio_lost: u64,
    /// Downlink packets dropped at a full base-station radio queue.
    pub radio_overflow: u64,
    /// Held packets an old base station sent on (HAWAII MSF).
    pub forwarded: u64,
    /// Control messages sent, by kind (`route_update`, `semisoft`, `register`, `path_setup`,
    /// `path_setup_unf`, `refresh`, `reg_request`, `reg_reply`).
    pub control_sent: BTreeMap<&'static str, u64>,
}

impl MobilitySummary {
    fn of_world(world: &World) -> Option<MobilitySummary> {
        let r = crate::mobility::MobilityReport::of_world(world)?;
        Some(MobilitySummary {
            handoffs: r.handoffs,
            handoff_loss: r.handoff_losses(),
            handoff_loss_by_handoff: r
                .handoff_loss
                .iter()
                .enumerate()
                .filter(|x| *x.1 > 0)
                .map(|(k, &n)| (k.to_string(), n))
                .collect(),
            wasted_copies: r.wasted_copies,
            duplicates: r.duplicates,
            out_of_order: r.out_of_order,
            radio_lost: r.radio_lost,
            radio_overflow: r.radio_overflow,
            forwarded: r.forwarded,
            control_sent: r
                .control_sent
                .iter()
                .enumerate()
                .filter(|x| *x.1 > 0)
                .map(|(k, &n)| (crate::mobility::kind::name(r.family, k as u16), n))
                .collect(),
        })
    }
}

impl Summary {
    /// Summarises a finished world.
    pub fn new(world: &World, info: &RunInfo, scenario: &str, seed: u64) -> Summary {
        // Averages are over the span the run covered (the end, unless its finite transfers
        // all finished before it: `World::stop_when_done`).
        let end = world.span();
        let ended_by = world.ended_by();
        let node = |n: crate::ids::NodeId| world.net.nodes[n.idx()].name.clone();
        let mut flows = BTreeMap::new();
        // The DiffServ edge's classifier, if any (looked up once: per flow it made building
        // the summary quadratic in the number of flows).
        let classifier = world.net.egresses.iter().find_map(|e| e.classifier());
        for (fi, f) in world.flows.iter().enumerate() {
            let snd = &world.agents[f.sender.idx()];
            let rcv = &world.agents[f.receiver.idx()];
            let mut s = FlowSummary {
                kind: match f.kind {
                    FlowKind::Tcp => "tcp",
                    FlowKind::Sctp => "sctp",
                    FlowKind::Cbr => "cbr",
                    FlowKind::Custom => "custom",
                },
                from: node(snd.node),
                to: node(rcv.node),
                variant: None,
                start_s: f.start.as_secs_f64(),
                bytes_sent: 0,
                bytes_delivered: f.delivered,
                goodput_bps: 0.0,
                completion_time_s: f.completed_at.map(|t| (t - f.start).as_secs_f64()),
                transfer_time_s: f
                    .completed_at
                    .zip(world.established_at(crate::ids::FlowId(fi as u32)))
                    .map(|(done, est)| (done - est).as_secs_f64()),
                segments_sent: 0,
                retransmits: 0,
                timeouts: 0,
                fast_retransmits: 0,
                duplicate_segments: 0,
                data_packets_delivered: f.data_packets_delivered,
                data_packets_in_order: None,
                data_packets_not_in_order: None,
                ecn_reductions: 0,
                ce_received: 0,
                marked_in: 0,
                marked_out: 0,
                sctp: None,
                flow_monitor: world
                    .flow_monitor()
                    .and_then(|m| m.flow(crate::ids::FlowId(fi as u32))),
            };
            if let Some(c) = classifier {
                let [g, y, r] = c.counts(crate::ids::FlowId(fi as u32));
                s.marked_in = g;
                s.marked_out = y + r;
            }
            let m = snd.agent.metrics();
            s.variant = m.variant.map(str::to_string);
            s.bytes_sent = m.bytes_sent;
            s.segments_sent = m.segments_sent;
            s.retransmits = m.retransmits;
            s.timeouts = m.timeouts;
            s.fast_retransmits = m.fast_retransmits;
            s.ecn_reductions = m.ecn_reductions;
            let r = rcv.agent.metrics();
            s.duplicate_segments = r.duplicate_segments;
            s.ce_received = r.ce_received;
            if let Some(n) = r.in_order_segments {
                s.data_packets_in_order = Some(n);
                s.data_packets_not_in_order = Some(f.data_packets_delivered.saturating_sub(n));
            }
            if let Some(a) = snd.agent.sctp() {
                let st = a.stats();
                let from = m.established_at.unwrap_or(f.start);
                let to = f.completed_at.unwrap_or(end);
                let paths = a
                    .paths()
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        (
                            i.to_string(),
                            SctpPathSummary {
                                t3_expiries: p.t3_expiries,
                                fast_retransmits: p.fast_retransmits,
                                retransmitted_chunks: p.retransmissions_sent,
                                heartbeats_sent: p.heartbeats_sent,
                                heartbeat_samples: p.heartbeat_samples,
                                data_samples: p.data_samples,
                                rto_final_s: p.rto.as_secs_f64(),
                                rto_mean_s: step_mean(&p.rto_history, from, to),
                            },
                        )
                    })
                    .collect();
                s.sctp = Some(SctpSummary {
                    paths,
                    heartbeats_sent: st.heartbeats_sent,
                    chunks_lost_twice: st.chunks_lost_twice,
                    alt_t3_wait_s: st.alt_t3_wait.as_secs_f64(),
                    assoc_max_retrans_events: st.assoc_max_retrans_events,
                });
            }
            let active_end = f.completed_at.unwrap_or(f.stop.map_or(end, |t| t.min(end)));
            let active = active_end.saturating_since(f.start).as_secs_f64();
            s.goodput_bps = if active > 0.0 {
                f.delivered as f64 * 8.0 / active
            } else {
                0.0
            };
            flows.insert(f.name.clone(), s);
        }
        // One entry per link direction, plus one per class of a classful direction
        // (`<egress>/<class>`, with no wire losses of its own).
        let mut queues = BTreeMap::new();
        let monitor = world.flow_monitor();
        for (ei, e) in world.net.egresses.iter().enumerate() {
            let mut entry = |name: String, q: &QueueStats, wire: bool| {
                let drops_by_reason = DropReason::ALL
                    .iter()
                    .filter(|&&r| q.drops_for(r) > 0)
                    .map(|&r| (r.name(), q.drops_for(r)))
                    .collect();
                let summary = QueueSummary {
                    link: world.net.links[e.link.idx()].name.clone(),
                    from: node(e.from),
                    to: node(e.to),
                    arrivals: q.arrivals,
                    departures: q.departures,
                    drops: q.total_drops(),
                    drops_by_reason,
                    marks: q.marks,
                    mean_len_pkts: q.len.mean(end),
                    max_len_pkts: q.len.max(),
                    utilisation: e.utilisation(end),
                    lost_error: if wire { e.stats.lost_error } else { 0 },
                    lost_link_down: if wire { e.stats.lost_down } else { 0 },
                    precedence_in: q.by_precedence[0],
                    precedence_out: q.by_precedence[1],
                    cells: if wire {
                        crate::atm::port::CellPort::of(e).map(|c| cell_summary(c, end))
                    } else {
                        None
                    },
                    red_avg: if wire {
                        e.red().map(|r| RedAvgSummary {
                            mean_pkts: r.average_mean(end),
                            max_pkts: r.average_max(),
                            final_pkts: r.average(),
                        })
                    } else {
                        None
                    },
                    sojourn: monitor
                        .filter(|_| wire)
                        .and_then(|m| m.sojourn(crate::ids::EgressId(ei as u32))),
                };
                queues.insert(name, summary);
            };
            entry(e.name.clone(), &e.queue, true);
            for c in e.classes().map_or(&[][..], |cq| &cq.classes[..]) {
                entry(format!("{}/{}", e.name, c.name), &c.stats, false);
            }
        }
        let mut drops: BTreeMap<&'static str, u64> = DropReason::ALL
            .iter()
            .filter(|&&r| world.books.dropped[r as usize] > 0)
            .map(|&r| (r.name(), world.books.dropped[r as usize]))
            .collect();
        // An 802.11 MAC's drops (the channel element keeps the packets it consumed).
        let wifi = crate::wifi::report::WifiSummary::of_world(world);
        if let Some(w) = &wifi {
            for (k, n) in [
                ("mac_retry_limit", w.lost_retry_limit),
                ("mac_queue", w.lost_queue),
            ] {
                if n > 0 {
                    drops.insert(k, n);
                }
            }
        }
        let fct_rows = fct::rows(world);
        Summary {
            fct: (!world.workloads.is_empty()).then(|| fct::summarise(&fct_rows)),
            fct_all: fct::summarise_all(&fct_rows),
            fct_rows,
            scenario: scenario.to_string(),
            seed,
            duration_s: world.end().as_secs_f64(),
            span_s: ended_by.map(|_| end.as_secs_f64()),
            ended_by: ended_by.map(|e| e.word()),
            events: info.events,
            wall_time_s: info.wall.as_secs_f64(),
            version: env!("CARGO_PKG_VERSION"),
            flows,
            queues,
            drops,
            mobility: MobilitySummary::of_world(world),
            wifi,
            rtt_rows: monitor.map_or_else(Vec::new, |m| {
                m.rtt_series()
                    .map(|(f, t, r)| (world.flows[f.idx()].name.clone(), t.as_secs_f64(), r))
                    .collect()
            }),
        }
    }

    /// The summary as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a summary always serialises")
    }

    /// Every numeric value except `wall_time_s`, flattened to `a.b.c` paths (null kept as
    /// `None`), for sweeps.
    pub fn metrics(&self) -> Vec<(String, Option<f64>)> {
        let v = serde_json::to_value(self).expect("a summary always serialises");
        let mut out = Vec::new();
        flatten("", &v, &mut out);
        out.retain(|(k, _)| k != "wall_time_s" && k != "seed" && k != "duration_s");
        out
    }

    /// What was simulated, for the console line ([`simulated_phrase`]).
    pub fn simulated(&self) -> String {
        simulated_phrase(self.duration_s, self.span_s, self.ended_by)
    }

    /// A readable table of flows and queues.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}  seed {}  {}  {} events  {:.3} s wall",
            self.scenario,
            self.seed,
            self.simulated(),
            self.events,
            self.wall_time_s
        );
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "{:<16} {:<8} {:>12} {:>12} {:>10} {:>8} {:>8} {:>8}",
            "flow", "kind", "goodput Mb/s", "delivered B", "done s", "retx", "timeouts", "fast rx"
        );
        for (name, f) in &self.flows {
            let kind = f.variant.as_deref().unwrap_or(f.kind);
            let done = f
                .completion_time_s
                .map_or("-".to_string(), |t| format!("{t:.3}"));
            let _ = writeln!(
                s,
                "{:<16} {:<8} {:>12.3} {:>12} {:>10} {:>8} {:>8} {:>8}",
                name,
                kind,
                f.goodput_bps / 1e6,
                f.bytes_delivered,
                done,
                f.retransmits,
                f.timeouts,
                f.fast_retransmits
            );
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "{:<28} {:>10} {:>8} {:>8} {:>9} {:>8} {:>7}",
            "queue", "arrivals", "drops", "lost", "mean len", "max len", "util"
        );
        for (name, q) in &self.queues {
            if q.arrivals == 0 {
                continue;
            }
            let _ = writeln!(
                s,
                "{:<28} {:>10} {:>8} {:>8} {:>9.2} {:>8} {:>6.1}%",
                name,
                q.arrivals,
                q.drops,
                q.lost_error + q.lost_link_down,
                q.mean_len_pkts,
                q.max_len_pkts,
                q.utilisation * 100.0
            );
        }
        s
    }

    /// flows.csv: one row per flow.
    pub fn flows_csv(&self) -> String {
        let mut c = CsvText::new();
        let monitored = self.flows.values().any(|f| f.flow_monitor.is_some());
        let extra: &[&str] = if monitored { FLOW_MONITOR_COLUMNS } else { &[] };
        c.row(FLOW_COLUMNS.iter().chain(extra));
        let o = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
        for (n, f) in &self.flows {
            let mut row = vec![
                n.clone(),
                f.kind.to_string(),
                f.variant.clone().unwrap_or_default(),
                f.from.to_string(),
                f.to.to_string(),
                f.start_s.to_string(),
                f.bytes_sent.to_string(),
                f.bytes_delivered.to_string(),
                f.goodput_bps.to_string(),
                o(f.completion_time_s),
                f.segments_sent.to_string(),
                f.retransmits.to_string(),
                f.timeouts.to_string(),
                f.fast_retransmits.to_string(),
                f.duplicate_segments.to_string(),
                f.data_packets_delivered.to_string(),
            ];
            if monitored {
                match &f.flow_monitor {
                    Some(m) => row.extend([
                        m.tx_packets.to_string(),
                        m.tx_bytes.to_string(),
                        m.rx_packets.to_string(),
                        m.rx_bytes.to_string(),
                        m.lost_packets.to_string(),
                        o(m.loss_ratio),
                        m.delay_sum_s.to_string(),
                        o(m.delay_mean_s),
                        o(m.delay_min_s),
                        o(m.delay_p50_s),
                        o(m.delay_p99_s),
                        o(m.delay_max_s),
                        m.jitter_sum_s.to_string(),
                        o(m.jitter_mean_s),
                        m.rtt_samples.to_string(),
                        o(m.rtt_min_s),
                        o(m.rtt_mean_s),
                        o(m.rtt_p50_s),
                        o(m.rtt_p99_s),
                        o(m.rtt_max_s),
                    ]),
                    None => row.extend(FLOW_MONITOR_COLUMNS.iter().map(|_| String::new())),
                }
            }
            c.row(row);
        }
        c.finish()
    }

    /// rtt.csv (with `simulation.flow_monitor`): one row per RTT sample of a TCP flow.
    pub fn rtt_csv(&self) -> Option<String> {
        let monitored = self.flows.values().any(|f| f.flow_monitor.is_some());
        if !monitored {
            return None;
        }
        let mut c = CsvText::new();
        c.row(RTT_COLUMNS);
        for (flow, t, r) in &self.rtt_rows {
            c.row([flow.to_string(), t.to_string(), r.to_string()]);
        }
        Some(c.finish())
    }

    /// queues.csv: one row per queue (link direction).
    pub fn queues_csv(&self) -> String {
        let mut c = CsvText::new();
        let cells = self.queues.values().any(|q| q.cells.is_some());
        let monitored = self.queues.values().any(|q| q.sojourn.is_some());
        let cell_columns: &[&str] = if cells { CELL_COLUMNS } else { &[] };
        let sojourn_columns: &[&str] = if monitored { SOJOURN_COLUMNS } else { &[] };
        c.row(
            QUEUE_COLUMNS
                .iter()
                .chain(cell_columns)
                .chain(sojourn_columns),
        );
        let o = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
        for (n, q) in &self.queues {
            let r = |k: &str| q.drops_by_reason.get(k).copied().unwrap_or(0).to_string();
            let mut row = vec![
                n.clone(),
                q.link.to_string(),
                q.from.to_string(),
                q.to.to_string(),
                q.arrivals.to_string(),
                q.departures.to_string(),
                q.drops.to_string(),
                r("overflow"),
                r("early"),
                r("forced"),
                q.marks.to_string(),
                q.mean_len_pkts.to_string(),
                q.max_len_pkts.to_string(),
                q.utilisation.to_string(),
                q.lost_error.to_string(),
                q.lost_link_down.to_string(),
            ];
            if cells {
                match &q.cells {
                    Some(c) => row.extend([
                        c.arrived.to_string(),
                        c.sent.to_string(),
                        c.dropped.to_string(),
                        c.dropped_overflow.to_string(),
                        c.dropped_ppd_tail.to_string(),
                        c.dropped_epd_refusal.to_string(),
                        c.useless.to_string(),
                        c.frames_damaged.to_string(),
                        c.mean_len_cells.to_string(),
                        c.max_len_cells.to_string(),
                    ]),
                    None => row.extend(CELL_COLUMNS.iter().map(|_| String::new())),
                }
            }
            if monitored {
                match &q.sojourn {
                    Some(j) => row.extend([
                        j.samples.to_string(),
                        o(j.sojourn_mean_s),
                        o(j.sojourn_p50_s),
                        o(j.sojourn_p99_s),
                        o(j.sojourn_max_s),
                    ]),
                    None => row.extend(SOJOURN_COLUMNS.iter().map(|_| String::new())),
                }
            }
            c.row(row);
        }
        c.finish()
    }
}

/// The cell counters of a cell link direction at the end of a run.
fn cell_summary(c: &crate::atm::port::CellPort, end: packetsim_kernel::Time) -> CellQueueSummary {
    let st = c.switch_stats();
    CellQueueSummary {
        slot_s: c.config().slot.as_secs_f64(),
        arrived: st.arrived,
        sent: st.sent,
        dropped: st.dropped(),
        dropped_overflow: st.overflow,
        dropped_ppd_tail: st.ppd_tail,
        dropped_epd_refusal: st.epd_refusal,
        useless: st.useless,
        frames_damaged: st.frames_damaged,
        queued: c.queued_cells(),
        mean_len_cells: c.mean_queue(end),
        max_len_cells: st.max_queue,
    }
}

/// The columns of flows.csv.
const FLOW_COLUMNS: &[&str] = &[
    "flow",
    "kind",
    "variant",
    "from",
    "to",
    "start_s",
    "bytes_sent",
    "bytes_delivered",
    "goodput_bps",
    "completion_time_s",
    "segments_sent",
    "retransmits",
    "timeouts",
    "fast_retransmits",
    "duplicate_segments",
    "data_packets_delivered",
];

/// Extra flows.csv columns with `simulation.flow_monitor = true` (names as ns-3 FlowMonitor's
/// counters, units in the name; [`crate::trace::monitor`]).
pub const FLOW_MONITOR_COLUMNS: &[&str] = &[
    "tx_packets",
    "tx_bytes",
    "rx_packets",
    "rx_bytes",
    "lost_packets",
    "loss_ratio",
    "delay_sum_s",
    "delay_mean_s",
    "delay_min_s",
    "delay_p50_s",
    "delay_p99_s",
    "delay_max_s",
    "jitter_sum_s",
    "jitter_mean_s",
    "rtt_samples",
    "rtt_min_s",
    "rtt_mean_s",
    "rtt_p50_s",
    "rtt_p99_s",
    "rtt_max_s",
];

/// The columns of queues.csv.
const QUEUE_COLUMNS: &[&str] = &[
    "queue",
    "link",
    "from",
    "to",
    "arrivals",
    "departures",
    "drops",
    "drops_overflow",
    "drops_early",
    "drops_forced",
    "marks",
    "mean_len_pkts",
    "max_len_pkts",
    "utilisation",
    "lost_error",
    "lost_link_down",
];

/// Extra queues.csv columns with `simulation.flow_monitor = true` (link directions only).
pub const SOJOURN_COLUMNS: &[&str] = &[
    "sojourn_samples",
    "sojourn_mean_s",
    "sojourn_p50_s",
    "sojourn_p99_s",
    "sojourn_max_s",
];

/// The columns of rtt.csv.
pub const RTT_COLUMNS: &[&str] = &["flow", "time_s", "rtt_s"];

/// Extra queues.csv columns of cell link directions (written only when the run has one).
const CELL_COLUMNS: &[&str] = &[
    "cells_arrived",
    "cells_sent",
    "cells_dropped",
    "cells_dropped_overflow",
    "cells_dropped_ppd_tail",
    "cells_dropped_epd_refusal",
    "cells_useless",
    "frames_damaged",
    "mean_len_cells",
    "max_len_cells",
];

fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, Option<f64>)>) {
    use serde_json::Value;
    let key = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                flatten(&key(k), v, out);
            }
        }
        Value::Number(n) => out.push((prefix.to_string(), n.as_f64())),
        Value::Null => out.push((prefix.to_string(), None)),
        _ => {}
    }
}

/// The sampled time series as CSV text (when sampling is on), see docs/outputs.md.
pub struct SeriesCsv {
    /// timeseries_flows.csv: cwnd, ssthresh, srtt and RTO of every TCP flow.
    pub flows: String,
    /// timeseries_queues.csv: the length of every queue.
    pub queues: String,
    /// timeseries_delivered.csv: bytes delivered and delivery rate of every flow.
    pub delivered: String,
    /// timeseries_sctp_paths.csv: cwnd, ssthresh, srtt and RTO of every destination of every
    /// SCTP association; `None` when the run has no SCTP flow.
    pub sctp_paths: Option<String>,
}

/// An optional duration in seconds, or an empty field.
fn opt_secs(d: Option<Dur>) -> String {
    d.map_or(String::new(), |d| d.as_secs_f64().to_string())
}

/// The sampled time series, when `simulation.sample_interval` is set.
pub fn series_csv(world: &World) -> Option<SeriesCsv> {
    let series = world.series.as_ref()?;
    let name = |f: crate::ids::FlowId| world.flows[f.idx()].name.clone();
    let secs = |t: packetsim_kernel::Time| t.as_secs_f64().to_string();
    let mut f = CsvText::new();
    f.row([
        "time_s",
        "flow",
        "cwnd_bytes",
        "ssthresh_bytes",
        "srtt_s",
        "rto_s",
    ]);
    for x in &series.flows {
        f.row([
            secs(x.time),
            name(x.flow),
            x.cwnd.to_string(),
            x.ssthresh.to_string(),
            opt_secs(x.srtt),
            x.rto.as_secs_f64().to_string(),
        ]);
    }
    // RED's average (as of the last arrival) only in runs with a FIFO RED direction.
    let has_red = world.net.egresses.iter().any(|e| e.red().is_some());
    let mut q = CsvText::new();
    let red_column: &[&str] = if has_red { &["red_avg_pkts"] } else { &[] };
    q.row(
        ["time_s", "queue", "len_pkts", "len_bytes"]
            .iter()
            .chain(red_column),
    );
    for x in &series.queues {
        let mut row = vec![
            secs(x.time),
            world.net.egresses[x.egress.idx()].name.clone(),
            x.packets.to_string(),
            x.bytes.to_string(),
        ];
        if has_red {
            row.push(x.red_avg.map_or(String::new(), |a| a.to_string()));
        }
        q.row(row);
    }
    let mut d = CsvText::new();
    d.row(["time_s", "flow", "delivered_bytes", "rate_bps"]);
    for x in &series.delivered {
        d.row([
            secs(x.time),
            name(x.flow),
            x.bytes.to_string(),
            x.rate_bps.to_string(),
        ]);
    }
    let has_sctp = world
        .flows
        .iter()
        .any(|f| world.agents[f.sender.idx()].agent.sctp().is_some());
    let sctp_paths = has_sctp.then(|| {
        let mut p = CsvText::new();
        p.row([
            "time_s",
            "flow",
            "destination",
            "address",
            "cwnd_bytes",
            "ssthresh_bytes",
            "srtt_s",
            "rto_s",
        ]);
        for x in &series.paths {
            p.row([
                secs(x.time),
                name(x.flow),
                x.destination.to_string(),
                x.addr.0.to_string(),
                x.cwnd.to_string(),
                x.ssthresh.to_string(),
                opt_secs(x.srtt),
                x.rto.as_secs_f64().to_string(),
            ]);
        }
        p.finish()
    });
    Some(SeriesCsv {
        flows: f.finish(),
        queues: q.finish(),
        delivered: d.finish(),
        sctp_paths,
    })
}

/// Writes `contents` to `path` atomically (a synced temporary file renamed into place), so an
/// interrupted run never leaves a half-written file. The experiment engine's writer, as
/// `io::Result` for report callers.
pub fn write_atomic(path: &Path, contents: &str) -> io::Result<()> {
    crate::experiment::aggregate::write_atomic(path, contents)
        .map_err(|e| io::Error::other(e.to_string()))
}

/// Every RTO change of every destination of every SCTP association's sending end (spec 3 §4:
/// "time series of RTO for each destination"), or `None` when the world has no SCTP flow.
pub fn sctp_rto_csv(world: &World) -> Option<String> {
    let mut c = CsvText::new();
    c.row(["time_s", "flow", "destination", "address", "rto_s"]);
    let mut any = false;
    for f in &world.flows {
        let Some(a) = world.agents[f.sender.idx()].agent.sctp() else {
            continue;
        };
        any = true;
        for (i, p) in a.paths().iter().enumerate() {
            for (t, rto) in &p.rto_history {
                c.row([
                    t.as_secs_f64().to_string(),
                    f.name.clone(),
                    i.to_string(),
                    p.addr.0.to_string(),
                    rto.as_secs_f64().to_string(),
                ]);
            }
        }
    }
    any.then(|| c.finish())
}

/// Writes summary.json, flows.csv, queues.csv, (when sampled) timeseries_flows.csv,
/// timeseries_queues.csv, timeseries_delivered.csv and (with SCTP flows)
/// timeseries_sctp_paths.csv, (with SCTP flows) timeseries_sctp_rto.csv and (with workloads)
/// fct.csv into `dir`, removing
/// those of them an earlier run left there and this one does not write.
pub fn write_run(dir: &Path, summary: &Summary, world: &World) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    write_atomic(&dir.join("summary.json"), &summary.to_json())?;
    write_atomic(&dir.join("flows.csv"), &summary.flows_csv())?;
    write_atomic(&dir.join("queues.csv"), &summary.queues_csv())?;
    // A reused folder keeps no series of an earlier run: a file this run does not write is
    // removed.
    let stale = |name: &str| match std::fs::remove_file(dir.join(name)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    };
    match summary.rtt_csv() {
        Some(rtt) => write_atomic(&dir.join("rtt.csv"), &rtt)?,
        None => stale("rtt.csv")?,
    }
    if summary.fct.is_some() {
        write_atomic(&dir.join("fct.csv"), &fct::csv(&summary.fct_rows))?;
    } else {
        stale("fct.csv")?;
    }
    match sctp_rto_csv(world) {
        Some(rto) => write_atomic(&dir.join("timeseries_sctp_rto.csv"), &rto)?,
        None => stale("timeseries_sctp_rto.csv")?,
    }
    let series = series_csv(world);
    let files = [
        ("timeseries_flows.csv", series.as_ref().map(|s| &s.flows)),
        ("timeseries_queues.csv", series.as_ref().map(|s| &s.queues)),
        (
            "timeseries_delivered.csv",
            series.as_ref().map(|s| &s.delivered),
        ),
        (
            "timeseries_sctp_paths.csv",
            series.as_ref().and_then(|s| s.sctp_paths.as_ref()),
        ),
    ];
    for (file, text) in files {
        match text {
            Some(t) => write_atomic(&dir.join(file), t)?,
            None => stale(file)?,
        }
    }
    Ok(())
}
