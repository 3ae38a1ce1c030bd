//! A point's network on the world (spec 1 §3.1): its configuration as a typed scenario over
//! `scenarios/atm-two-senders.toml` on the world's slotted time base, what the study sets on
//! the built world and reads part-way, and the run's statistics read from the finished world.
//!
//! The driver runs a point as [`scenario_of`] built, [`prepare`]d, paused at [`pauses`] (read
//! by [`at_pause`]) and run to the end; [`record`] turns that into the study's statistics.
//! [`run_on_world`] makes the same run outside the driver (tests, the cell benchmark).

use super::config::{AtmNetConfig, AtmRunResult, ConnResult, TracePoint};
use crate::atm::port::{ArrivalOrder, CellLinkConfig, CellPort, Output};
use crate::atm::CELL_BYTES;
use crate::queue::DropReason;
use crate::report::Summary;
use crate::scenario::{self, App, AtmSpec, FlowKind, LinkKind, Scenario};
use crate::studies::shape::Metrics;
use crate::world::{Agent, World};
use packetsim_kernel::{Dur, Rate, Time};

const BASE: &str = include_str!("../../../../../scenarios/atm-two-senders.toml");

/// The configuration as a scenario: `connections` TCP flows `tcp1..tcpN` over one atm link
/// whose a→b direction is the switch output (same-slot arrivals in a seeded random order) and
/// whose b→a direction is a path per VC (spec 1 §3.1's ACK path), `slot` as the link's cell
/// rate, `prop` as its delay in whole slots, `tcp` at both ends, `send_proc` as
/// `sender_processing` + `sender_processing_jitter` (uniform in [lo, hi]), `recv_proc` as
/// `receiver_processing`, `source` as `app = "frames"` (or `bulk` when `None`), a run of
/// `slots` slots under `seed`.
pub fn scenario_of(cfg: &AtmNetConfig) -> Result<Scenario, String> {
    if cfg.warmup_slots >= cfg.slots {
        return Err("atm-tcp: the warm-up must end before the run (warmup_slots < slots)".into());
    }
    if cfg.recv_proc.1 > cfg.recv_proc.0 {
        return Err(
            "atm-tcp: the receiver's processing time has no jitter on the world \
                    (recv_proc must be one value)"
                .into(),
        );
    }
    if cfg.connections == 0 {
        return Err("atm-tcp: at least one connection".into());
    }
    let mut sc = scenario::load_str(BASE, "atm-two-senders.toml", &[])
        .map_err(|e| format!("atm-tcp: the base scenario: {e}"))?;
    sc.simulation.duration = Dur(cfg.slot.0 * cfg.slots);
    sc.simulation.seed = cfg.seed;
    sc.simulation.time_base = cfg.time_base;
    let link = &mut sc.links[0];
    // The cell rate whose 53-byte cell takes one slot (the slot itself is set below).
    link.rate = Rate(((CELL_BYTES as u128 * 8 * 1_000_000_000) / cfg.slot.0 as u128) as u64);
    // Propagation delay in whole slots (floor), both directions.
    link.delay = Dur(cfg.prop.0 / cfg.slot.0 * cfg.slot.0);
    link.kind = LinkKind::Atm(AtmSpec {
        port: CellLinkConfig {
            slot: cfg.slot,
            switch: cfg.switch,
            order: ArrivalOrder::Random,
            output: Output::Switch,
        },
        reverse: Output::PerVc,
    });
    let mut tcp = cfg.tcp.clone();
    let (lo, hi) = cfg.send_proc;
    tcp.sender_processing = (hi > Dur::ZERO).then_some(lo);
    tcp.sender_processing_jitter = Dur(hi.0.saturating_sub(lo.0));
    tcp.receiver_processing = (cfg.recv_proc.0 > Dur::ZERO).then_some(cfg.recv_proc.0);
    let app = match &cfg.source {
        Some(s) => {
            tcp.send_buffer = Some(s.buffer);
            App::Frames {
                block: s.block,
                interval: s.interval,
                resume_below: s.resume_below,
                whole_blocks: s.whole_blocks,
            }
        }
        None => App::Bulk,
    };
    let template = sc.flow_tables[0].clone();
    sc.flow_tables = (0..cfg.connections)
        .map(|i| {
            let mut t = template.clone();
            t.table = format!("tcp{}", i + 1);
            t.first.name = t.table.clone();
            t.first.kind = FlowKind::Tcp {
                app: app.clone(),
                tcp: tcp.clone(),
            };
            t
        })
        .collect();
    Ok(sc)
}

/// The a→b direction's cell port.
fn port(world: &World) -> Result<&CellPort, String> {
    CellPort::of(&world.net.egresses[world.net.links[0].ab.idx()])
        .ok_or_else(|| "atm-tcp: the link is not a cell link".into())
}

/// Before the run: the switch port keeps its idle intervals of at least `gap_min_slots` and
/// its largest queue per trace bin (`CellPort::keep_statistics`).
pub fn prepare(world: &mut World, cfg: &AtmNetConfig) {
    let ab = world.net.links[0].ab;
    if let Some(p) = world.net.egresses[ab.idx()]
        .cells_mut()
        .and_then(|p| p.as_any_mut())
        .and_then(|a| a.downcast_mut::<CellPort>())
    {
        p.keep_statistics(
            cfg.gap_min_slots,
            cfg.trace_bin,
            cfg.trace_slots.min(cfg.slots),
        );
    }
}

/// The slots to pause at: each trace bin's end and the end of the warm-up, increasing.
fn stop_slots(cfg: &AtmNetConfig) -> Vec<u64> {
    let bin = cfg.trace_bin;
    let mut stops: Vec<u64> = if bin > 0 {
        (1..=cfg.trace_slots.min(cfg.slots) / bin)
            .map(|k| k * bin)
            .collect()
    } else {
        Vec::new()
    };
    if cfg.warmup_slots > 0 {
        stops.push(cfg.warmup_slots);
    }
    stops.sort_unstable();
    stops.dedup();
    stops
}

/// The instants to pause the run at ([`stop_slots`] in time).
pub fn pauses(cfg: &AtmNetConfig) -> Vec<Time> {
    stop_slots(cfg)
        .into_iter()
        .map(|s| Time::from_nanos(s * cfg.slot.0))
        .collect()
}

/// What a pause reads: the switch's queue sum so far, and per connection (agent order) the
/// sender's bytes sent and the receiver's bytes delivered.
pub fn at_pause(world: &World) -> Metrics {
    let mut m: Metrics = vec![(
        "qsum".into(),
        port(world).ok().map(|p| p.queue_sum() as f64),
    )];
    let (mut s, mut r) = (0, 0);
    for a in &world.agents {
        match &a.agent {
            Agent::TcpSender(x) => {
                m.push((format!("sent.{s}"), Some(x.stats().bytes_sent as f64)));
                s += 1;
            }
            Agent::TcpReceiver(x) => {
                m.push((
                    format!("delivered.{r}"),
                    Some(x.stats().bytes_delivered as f64),
                ));
                r += 1;
            }
            _ => {}
        }
    }
    m
}

/// The value `name` in a pause's metrics (0 when absent).
fn read(m: &Metrics, name: &str) -> u64 {
    m.iter()
        .find(|x| x.0 == name)
        .and_then(|x| x.1)
        .map_or(0, |v| v as u64)
}

/// The trace (one point per bin) and the bytes delivered per connection at the end of the
/// warm-up, from the values read at the pauses ([`stop_slots`] order).
fn from_pauses(
    cfg: &AtmNetConfig,
    peaks: &[u32],
    paused: &[Metrics],
) -> (Vec<TracePoint>, Vec<u64>) {
    let bin = cfg.trace_bin;
    let mut at_warmup = vec![0u64; cfg.connections as usize];
    let mut trace = Vec::new();
    let (mut last_qsum, mut last_sent1) = (0u64, 0u64);
    for (s, m) in stop_slots(cfg).into_iter().zip(paused) {
        if s == cfg.warmup_slots && s > 0 {
            for (k, w) in at_warmup.iter_mut().enumerate() {
                *w = read(m, &format!("delivered.{k}"));
            }
        }
        if bin > 0 && s > 0 && s % bin == 0 && s <= cfg.trace_slots {
            let (qsum, sent1) = (read(m, "qsum"), read(m, "sent.0"));
            trace.push(TracePoint {
                slot: s - bin,
                q_max: peaks.get(((s - bin) / bin) as usize).copied().unwrap_or(0),
                q_mean: (qsum - last_qsum) as f64 / bin as f64,
                sent1,
                sent1_bin: sent1 - last_sent1,
            });
            (last_qsum, last_sent1) = (qsum, sent1);
        }
    }
    (trace, at_warmup)
}

/// The run's statistics from the finished world, its summary and the values read at the
/// pauses: the switch's counters (a→b), per connection the bytes delivered (also after the
/// warm-up), sent, retransmits, timeouts, spurious segments (the receiver's duplicates),
/// source pauses, aborted, data frames; the frames lost to cell loss (per direction: the port
/// does not count them per VC); the trace and the idle intervals.
pub fn record(
    cfg: &AtmNetConfig,
    world: &World,
    summary: &Summary,
    paused: &[Metrics],
) -> Result<AtmRunResult, String> {
    let port = port(world)?;
    let mut conns: Vec<ConnResult> = Vec::new();
    let mut rcvs = Vec::new();
    for slot in &world.agents {
        match &slot.agent {
            Agent::TcpSender(s) => {
                let st = s.stats();
                conns.push(ConnResult {
                    bytes_sent: st.bytes_sent,
                    retransmits: st.retransmits,
                    timeouts: st.timeouts,
                    aborted: st.aborted,
                    source_pauses: match s.app() {
                        crate::app::AppSource::Frames(f) => f.pauses(),
                        _ => 0,
                    },
                    ..ConnResult::default()
                });
            }
            Agent::TcpReceiver(r) => {
                let st = r.stats();
                rcvs.push((st.bytes_delivered, st.duplicate_segments));
            }
            _ => {}
        }
    }
    if conns.len() != rcvs.len() {
        return Err("atm-tcp: a sender without its receiver".into());
    }
    let (trace, at_warmup) = from_pauses(cfg, port.bin_peaks(), paused);
    for (k, ((c, r), w0)) in conns.iter_mut().zip(&rcvs).zip(&at_warmup).enumerate() {
        (c.delivered, c.spurious) = *r;
        c.delivered_after_warmup = c.delivered - w0;
        c.data_frames = summary
            .flows
            .get(&format!("tcp{}", k + 1))
            .map_or(0, |f| f.data_packets_delivered);
    }
    let ab = &world.net.egresses[world.net.links[0].ab.idx()];
    Ok(AtmRunResult {
        slots: cfg.slots,
        slot: cfg.slot,
        switch: *port.switch_stats(),
        conns,
        trace,
        idle_gaps: port.idle_gaps().to_vec(),
        frames_lost: ab.queue.drops_for(DropReason::CellLoss),
    })
}

/// The run the driver makes of `cfg`, outside the driver: built from [`scenario_of`],
/// [`prepare`]d, paused at [`pauses`], run to the end and [`record`]ed. `packetsim run
/// scenarios/atm-two-senders.toml --seed S` makes the same run as the main configuration
/// (`AtmNetConfig::paper`) with seed S.
pub fn run_on_world(cfg: &AtmNetConfig) -> Result<AtmRunResult, String> {
    let sc = scenario_of(cfg)?;
    let mut world = scenario::build(&sc, cfg.seed).map_err(|e| format!("atm-tcp: {e}"))?;
    world.stop_when_done(true);
    prepare(&mut world, cfg);
    let mut paused = Vec::new();
    for t in pauses(cfg) {
        world.run_until(t);
        paused.push(at_pause(&world));
    }
    let info = world.run();
    let summary = Summary::new(&world, &info, &sc.origin, cfg.seed);
    record(cfg, &world, &summary, &paused)
}
