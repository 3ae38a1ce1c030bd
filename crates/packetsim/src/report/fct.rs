//! Flow completion times of workloads (`app = "poisson"`): one row per arrival (`fct.csv`)
//! and, per workload and flow-size bucket, counts, means and percentiles of the FCT and of
//! the slowdown (summary.json `fct`).
//!
//! FCT is the flow's completion time as everywhere else: from its start (the arrival; the SYN
//! is sent then) to the delivery of its last byte to the receiving application.
//!
//! The ideal FCT is a lower bound on it for a flow alone in the network:
//! `ideal = d_fwd + d_rev + d_fwd + W·8/R`, where `d_fwd` and `d_rev` are the sums of the
//! propagation delays along the routed forward (sender to receiver) and reverse paths (SYN,
//! SYN-ACK, then the data), `R` is the lowest rate on the forward path, and `W` is the size
//! plus 40 bytes of IP and TCP headers per segment of `mss` bytes. It leaves out the
//! handshake's own transmission times and the store-and-forward time of one packet at each
//! faster hop, so slowdown = FCT / ideal is at least 1. Flows that did not finish by the
//! end of the run are counted (`flows` − `completed`) and left out of the statistics.
//!
//! Buckets (decimal units): under 10 KB, 10-100 KB, 100 KB-1 MB, 1-10 MB, 10 MB and over.
//! Percentiles are nearest-rank: the ⌈p·n⌉-th smallest value.

use crate::ids::{Addr, NodeId};
use crate::net::Net;
use crate::world::World;
use packetsim_kernel::Dur;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;

/// IP and TCP headers without options, per segment, bytes.
const HEADER_BYTES: u64 = 40;

/// The bucket names (summary.json keys, fct.csv `bucket`), in size order.
pub const BUCKETS: [&str; 5] = [
    "under_10KB",
    "10KB_100KB",
    "100KB_1MB",
    "1MB_10MB",
    "10MB_plus",
];

/// The bucket of a flow of `bytes`.
pub fn bucket_of(bytes: u64) -> usize {
    match bytes {
        0..=9_999 => 0,
        10_000..=99_999 => 1,
        100_000..=999_999 => 2,
        1_000_000..=9_999_999 => 3,
        _ => 4,
    }
}

/// One flow of a workload.
#[derive(Clone, Debug, PartialEq)]
pub struct FctRow {
    /// The workload (flow table) name.
    pub workload: String,
    /// The flow's name (`NAME_k`).
    pub flow: String,
    /// Transfer size, bytes.
    pub bytes: u64,
    /// Arrival, s.
    pub start_s: f64,
    /// Completion time, s (None: unfinished).
    pub fct_s: Option<f64>,
    /// Ideal completion time (module doc), s.
    pub ideal_s: f64,
}

impl FctRow {
    /// FCT over the ideal FCT.
    pub fn slowdown(&self) -> Option<f64> {
        self.fct_s.map(|f| f / self.ideal_s)
    }
}

/// Statistics of one bucket.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FctBucket {
    /// Flows that arrived.
    pub flows: u64,
    /// Flows that finished.
    pub completed: u64,
    /// Mean FCT of the finished flows, s.
    pub mean_fct_s: Option<f64>,
    /// Median FCT, s.
    pub p50_fct_s: Option<f64>,
    /// 99th-percentile FCT, s.
    pub p99_fct_s: Option<f64>,
    /// Mean slowdown.
    pub mean_slowdown: Option<f64>,
    /// Median slowdown.
    pub p50_slowdown: Option<f64>,
    /// 99th-percentile slowdown.
    pub p99_slowdown: Option<f64>,
}

/// The buckets of one workload, written as a map in size order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Buckets(pub [FctBucket; 5]);

impl Serialize for Buckets {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(BUCKETS.len()))?;
        for (name, b) in BUCKETS.iter().zip(&self.0) {
            m.serialize_entry(name, b)?;
        }
        m.end()
    }
}

/// One workload's summary.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WorkloadFct {
    /// Flows that arrived.
    pub flows: u64,
    /// Flows that finished.
    pub completed: u64,
    /// All sizes together.
    pub all: FctBucket,
    /// By flow size.
    pub by_size: Buckets,
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

fn bucket_stats(rows: &[&FctRow]) -> FctBucket {
    let mut fct: Vec<f64> = rows.iter().filter_map(|r| r.fct_s).collect();
    let mut sd: Vec<f64> = rows.iter().filter_map(|r| r.slowdown()).collect();
    fct.sort_by(f64::total_cmp);
    sd.sort_by(f64::total_cmp);
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    FctBucket {
        flows: rows.len() as u64,
        completed: fct.len() as u64,
        mean_fct_s: mean(&fct),
        p50_fct_s: percentile(&fct, 0.5),
        p99_fct_s: percentile(&fct, 0.99),
        mean_slowdown: mean(&sd),
        p50_slowdown: percentile(&sd, 0.5),
        p99_slowdown: percentile(&sd, 0.99),
    }
}

/// The routed path's total propagation delay and lowest rate from `from` to `to`'s address;
/// None without a route (or on a loop).
fn path(net: &Net, from: NodeId, to: Addr) -> Option<(Dur, u64)> {
    let (mut n, mut delay, mut rate) = (from, Dur::ZERO, u64::MAX);
    for _ in 0..=net.nodes.len() {
        if net.addr_owner[to.0 as usize] == n {
            return Some((delay, rate));
        }
        let e = &net.egresses[net.nodes[n.idx()].routes.get(to)?.idx()];
        delay += e.delay;
        rate = rate.min(e.rate.0);
        n = e.to;
    }
    None
}

/// One row per flow of every workload of `world`.
pub fn rows(world: &World) -> Vec<FctRow> {
    let net = &world.net;
    let mut out = Vec::new();
    for w in &world.workloads {
        for fi in w.flows.clone() {
            let f = &world.flows[fi as usize];
            let (from, to) = (
                world.agents[f.sender.idx()].node,
                world.agents[f.receiver.idx()].node,
            );
            let bytes = f.app_bytes.unwrap_or(0);
            let fwd = path(net, from, net.addr_of(to));
            let rev = path(net, to, net.addr_of(from));
            let ideal_s = match (fwd, rev) {
                (Some((d_fwd, rate)), Some((d_rev, _))) if rate > 0 => {
                    let segments = bytes.div_ceil(u64::from(w.mss.max(1)));
                    let wire = bytes + segments * HEADER_BYTES;
                    (d_fwd + d_rev + d_fwd).as_secs_f64() + wire as f64 * 8.0 / rate as f64
                }
                _ => f64::NAN,
            };
            out.push(FctRow {
                workload: w.name.clone(),
                flow: f.name.clone(),
                bytes,
                start_s: f.start.as_secs_f64(),
                fct_s: f.completed_at.map(|t| (t - f.start).as_secs_f64()),
                ideal_s,
            });
        }
    }
    out
}

/// Per workload: totals and buckets.
pub fn summarise(rows: &[FctRow]) -> BTreeMap<String, WorkloadFct> {
    let mut by: BTreeMap<&str, Vec<&FctRow>> = BTreeMap::new();
    for r in rows {
        by.entry(r.workload.as_str()).or_default().push(r);
    }
    by.into_iter()
        .map(|(name, rs)| (name.to_string(), workload(&rs)))
        .collect()
}

/// Every workload's flows together, when the run has more than one workload (summary.json
/// `fct_all`); `None` with one or none.
pub fn summarise_all(rows: &[FctRow]) -> Option<WorkloadFct> {
    let first = rows.first()?;
    if rows.iter().all(|r| r.workload == first.workload) {
        return None;
    }
    let rs: Vec<&FctRow> = rows.iter().collect();
    Some(workload(&rs))
}

/// Totals and buckets of some flows.
fn workload(rs: &[&FctRow]) -> WorkloadFct {
    let mut parts: [Vec<&FctRow>; 5] = Default::default();
    for &r in rs {
        parts[bucket_of(r.bytes)].push(r);
    }
    let all = bucket_stats(rs);
    WorkloadFct {
        flows: all.flows,
        completed: all.completed,
        by_size: Buckets(parts.map(|p| bucket_stats(&p))),
        all,
    }
}

/// fct.csv: one row per workload flow.
pub fn csv(rows: &[FctRow]) -> String {
    let mut c = crate::experiment::aggregate::CsvText::new();
    c.row([
        "workload",
        "flow",
        "bytes",
        "bucket",
        "start_s",
        "fct_s",
        "ideal_fct_s",
        "slowdown",
    ]);
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
    for r in rows {
        c.row([
            r.workload.clone(),
            r.flow.clone(),
            r.bytes.to_string(),
            BUCKETS[bucket_of(r.bytes)].to_string(),
            r.start_s.to_string(),
            opt(r.fct_s),
            r.ideal_s.to_string(),
            opt(r.slowdown()),
        ]);
    }
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bytes: u64, fct: Option<f64>, ideal: f64) -> FctRow {
        FctRow {
            workload: "w".into(),
            flow: "w_0".into(),
            bytes,
            start_s: 0.0,
            fct_s: fct,
            ideal_s: ideal,
        }
    }

    // Module doc: bucket edges are decimal and each lower edge belongs to its bucket.
    #[test]
    fn bucket_edges() {
        let b = |x| BUCKETS[bucket_of(x)];
        assert_eq!(b(1), "under_10KB");
        assert_eq!(b(9_999), "under_10KB");
        assert_eq!(b(10_000), "10KB_100KB");
        assert_eq!(b(999_999), "100KB_1MB");
        assert_eq!(b(1_000_000), "1MB_10MB");
        assert_eq!(b(10_000_000), "10MB_plus");
    }

    // Module doc: nearest-rank percentiles, unfinished flows counted but not averaged.
    #[test]
    fn bucket_statistics_skip_unfinished_flows() {
        let mut rows: Vec<FctRow> = (1..=100)
            .map(|i| row(5000, Some(i as f64 / 100.0), 0.01))
            .collect();
        rows.push(row(5000, None, 0.01));
        rows.push(row(50_000, Some(0.2), 0.05));
        let s = summarise(&rows);
        let w = &s["w"];
        assert_eq!((w.flows, w.completed), (102, 101));
        let small = &w.by_size.0[0];
        assert_eq!((small.flows, small.completed), (101, 100));
        assert_eq!(small.p50_fct_s, Some(0.5));
        assert_eq!(small.p99_fct_s, Some(0.99));
        assert!((small.mean_fct_s.unwrap() - 0.505).abs() < 1e-12);
        assert!((small.p99_slowdown.unwrap() - 99.0).abs() < 1e-9);
        assert_eq!(w.by_size.0[1].mean_slowdown, Some(4.0));
        assert_eq!(w.by_size.0[4].flows, 0);
        assert_eq!(w.by_size.0[4].mean_fct_s, None);
        let json = serde_json::to_string(&w.by_size).unwrap();
        assert!(json.starts_with("{\"under_10KB\":"), "{json}");
        assert!(csv(&rows)
            .lines()
            .nth(101)
            .unwrap()
            .ends_with(",5000,under_10KB,0,,0.01,"));
    }

    // summary.json `fct_all`: with two workloads, every flow counts once in the union; with
    // one workload there is none (the workload's own entry says it all).
    #[test]
    fn all_workloads_together_only_with_more_than_one() {
        let mut rows = vec![row(5000, Some(0.01), 0.01), row(50_000, Some(0.03), 0.01)];
        assert_eq!(summarise_all(&rows), None);
        let mut other = row(5000, Some(0.02), 0.01);
        other.workload = "v".into();
        rows.push(other);
        let all = summarise_all(&rows).unwrap();
        assert_eq!((all.flows, all.completed), (3, 3));
        let small = &all.by_size.0[0];
        assert_eq!((small.flows, small.mean_fct_s), (2, Some(0.015)));
        assert_eq!(small.p99_fct_s, Some(0.02));
        assert_eq!(all.by_size.0[1].flows, 1);
        assert_eq!(summarise_all(&[]), None);
    }
}
