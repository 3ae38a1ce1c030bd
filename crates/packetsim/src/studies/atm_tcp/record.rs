//! A run's statistics as the metrics the results store keeps, and back: the store is where
//! the study's runs live between the sweep and the figures, so an interrupted `reproduce
//! atm-tcp` resumes from it.
//!
//! The scalar metrics (names without a dot) are the columns of the study's runs.csv and go to
//! each sweep's results.csv; the lists (per connection, idle intervals, the trace) are named
//! with a dot (`conn.0.delivered`, `gap.3`, `trace.17.q_mean`). Every stored count is below
//! 2^53, so it comes back from the store's floating-point value exactly.

use super::config::{AtmRunResult, ConnResult, TracePoint};
use super::measure::{median_gap, spurious, thr1_bps, thr_bps};
use crate::studies::shape::Metrics;

/// The per-connection fields kept.
const CONN: [&str; 5] = [
    "delivered",
    "delivered_after_warmup",
    "retransmits",
    "timeouts",
    "spurious",
];

fn conn_values(c: &ConnResult) -> [u64; 5] {
    [
        c.delivered,
        c.delivered_after_warmup,
        c.retransmits,
        c.timeouts,
        c.spurious,
    ]
}

/// `r` as metrics.
pub fn metrics(r: &AtmRunResult) -> Metrics {
    let s = &r.switch;
    let mut m: Metrics = Vec::new();
    let mut put = |name: String, v: f64| m.push((name, Some(v)));
    for (n, v) in [
        ("load", r.load()),
        ("loss_cells", s.dropped() as f64),
        ("goodput1_bps", thr1_bps(r)),
        ("goodput_bps", thr_bps(r)),
        ("spurious", spurious(r)),
        ("median_gap_slots", median_gap(r)),
        ("slots", r.slots as f64),
        ("slot_ns", r.slot.0 as f64),
        ("arrived", s.arrived as f64),
        ("sent", s.sent as f64),
        ("overflow", s.overflow as f64),
        ("ppd_tail", s.ppd_tail as f64),
        ("epd_refusal", s.epd_refusal as f64),
        ("useless_cells", s.useless as f64),
        ("frames_damaged", s.frames_damaged as f64),
        ("max_queue", f64::from(s.max_queue)),
        ("connections", r.conns.len() as f64),
        ("idle_gaps", r.idle_gaps.len() as f64),
        ("trace_points", r.trace.len() as f64),
    ] {
        put(n.into(), v);
    }
    for (k, c) in r.conns.iter().enumerate() {
        for (n, v) in CONN.iter().zip(conn_values(c)) {
            put(format!("conn.{k}.{n}"), v as f64);
        }
    }
    for (k, g) in r.idle_gaps.iter().enumerate() {
        put(format!("gap.{k}"), *g as f64);
    }
    for (k, p) in r.trace.iter().enumerate() {
        put(format!("trace.{k}.slot"), p.slot as f64);
        put(format!("trace.{k}.q_max"), f64::from(p.q_max));
        put(format!("trace.{k}.q_mean"), p.q_mean);
        put(format!("trace.{k}.sent1"), p.sent1 as f64);
        put(format!("trace.{k}.sent1_bin"), p.sent1_bin as f64);
    }
    m
}

/// A run's statistics back from its stored metrics (what [`metrics`] kept).
pub fn from_metrics(m: &[(String, Option<f64>)]) -> AtmRunResult {
    let map: std::collections::HashMap<&str, f64> = m
        .iter()
        .filter_map(|(n, v)| v.map(|v| (n.as_str(), v)))
        .collect();
    let f = |name: &str| map.get(name).copied().unwrap_or(0.0);
    let u = |name: &str| f(name) as u64;
    let mut r = AtmRunResult {
        slots: u("slots"),
        slot: packetsim_kernel::Dur(u("slot_ns")),
        ..AtmRunResult::default()
    };
    let s = &mut r.switch;
    (s.arrived, s.sent, s.overflow) = (u("arrived"), u("sent"), u("overflow"));
    (s.ppd_tail, s.epd_refusal, s.useless) = (u("ppd_tail"), u("epd_refusal"), u("useless_cells"));
    (s.frames_damaged, s.max_queue) = (u("frames_damaged"), u("max_queue") as u32);
    r.conns = (0..u("connections"))
        .map(|k| {
            let c = |n: &str| u(&format!("conn.{k}.{n}"));
            ConnResult {
                delivered: c(CONN[0]),
                delivered_after_warmup: c(CONN[1]),
                retransmits: c(CONN[2]),
                timeouts: c(CONN[3]),
                spurious: c(CONN[4]),
                ..ConnResult::default()
            }
        })
        .collect();
    r.idle_gaps = (0..u("idle_gaps"))
        .map(|k| u(&format!("gap.{k}")))
        .collect();
    r.trace = (0..u("trace_points"))
        .map(|k| TracePoint {
            slot: u(&format!("trace.{k}.slot")),
            q_max: u(&format!("trace.{k}.q_max")) as u32,
            q_mean: f(&format!("trace.{k}.q_mean")),
            sent1: u(&format!("trace.{k}.sent1")),
            sent1_bin: u(&format!("trace.{k}.sent1_bin")),
        })
        .collect();
    r
}
