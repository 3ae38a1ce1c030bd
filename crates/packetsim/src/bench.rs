//! The fixed workloads behind `packetsim bench`, shared with the criterion benchmarks and the
//! ns-2/ns-3 peers in `bench/` (which build the same topology).
//!
//! Dumbbell: N senders s_i — r0 (1 Gb/s, 1 ms, DropTail 1000), r0 — r1 bottleneck
//! (100 Mb/s, 10 ms, DropTail 100), r1 — d_i (1 Gb/s, 1 ms, DropTail 1000). Flow i is TCP
//! NewReno from s_i to d_i starting at i·(1 s/N), unlimited data, 1500-byte packets, ACK
//! every segment, initial cwnd 2, RTO min 200 ms, initial 1 s, receive window of 10,000
//! segments (never limiting).

use crate::scenario::{self, Override};
use std::fmt::Write as _;

/// The named workloads (`packetsim bench --workload all` runs these).
pub const WORKLOADS: [(&str, u32); 2] = [("dumbbell-10", 10), ("dumbbell-100", 100)];

/// Larger named workloads, for scale and memory per flow (run on request only). The
/// bottleneck stays 100 Mb/s, so each flow's share is small (100 kb/s at N = 1000, 10 kb/s,
/// under one packet per second, at N = 10,000): the simulated packet rate stays that of
/// N = 10 while the per-flow state, timers and start-up grow with N.
pub const LARGE_WORKLOADS: [(&str, u32); 2] = [("dumbbell-1000", 1000), ("dumbbell-10000", 10000)];

/// The number of flows of workload `name`: a named one, or `dumbbell-N` for any N >= 1
/// (`packetsim bench --flows N`).
pub fn workload_flows(name: &str) -> Option<u32> {
    WORKLOADS
        .iter()
        .chain(LARGE_WORKLOADS.iter())
        .find(|(w, _)| *w == name)
        .map(|&(_, n)| n)
        .or_else(|| {
            name.strip_prefix("dumbbell-")?
                .parse()
                .ok()
                .filter(|&n| (1..=crate::scenario::MAX_FLOW_COUNT).contains(&n))
        })
}

/// The dumbbell scenario with `n` flows running for `duration_s` seconds, as TOML.
pub fn dumbbell_toml(n: u32, duration_s: f64) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "[simulation]\nduration = \"{duration_s}s\"\n\n[tcp]\nvariant = \"newreno\"\nmss = 1460\ninitial_cwnd = 2\n\
         rcv_window = {}\nrto_min = \"200ms\"\nrto_initial = \"1s\"\n\n[nodes.r0]\n[nodes.r1]\n",
        10_000u64 * 1460
    );
    for i in 0..n {
        let _ = write!(s, "[nodes.s{i}]\n[nodes.d{i}]\n");
    }
    s.push_str("\n[links.bottleneck]\na = \"r0\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = { kind = \"droptail\", limit = 100 }\n");
    for i in 0..n {
        let _ = write!(
            s,
            "\n[links.in{i}]\na = \"s{i}\"\nb = \"r0\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\nqueue = {{ kind = \"droptail\", limit = 1000 }}\n\
             \n[links.out{i}]\na = \"r1\"\nb = \"d{i}\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\nqueue = {{ kind = \"droptail\", limit = 1000 }}\n"
        );
    }
    let spacing_ns = 1_000_000_000u64 / n as u64;
    for i in 0..n {
        let _ = write!(
            s,
            "\n[flows.f{i}]\nfrom = \"s{i}\"\nto = \"d{i}\"\nstart = \"{}ns\"\n",
            i as u64 * spacing_ns
        );
    }
    s
}

/// The same dumbbell in a few lines (issue 36): `[topology] kind = "dumbbell"` generates the
/// hosts and links and a `pairs` workload the staggered bulk flows `f_0 .. f_{n-1}`, so that
/// loading costs the same at any `n` and nothing is kept per flow but its endpoints. It builds
/// the world of [`dumbbell_toml`] (same node, link and flow order; only the names differ):
/// the test `compact_dumbbell_runs_as_the_written_out_one` compares the two runs.
pub fn dumbbell_compact_toml(n: u32, duration_s: f64) -> String {
    let spacing_ns = 1_000_000_000u64 / n as u64;
    format!(
        "[simulation]\nduration = \"{duration_s}s\"\n\n[tcp]\nvariant = \"newreno\"\nmss = 1460\n\
         initial_cwnd = 2\nrcv_window = {}\nrto_min = \"200ms\"\nrto_initial = \"1s\"\n\n\
         [topology]\nkind = \"dumbbell\"\npairs = {n}\n\
         host_link = {{ rate = \"1Gbps\", delay = \"1ms\", queue = {{ kind = \"droptail\", limit = 1000 }} }}\n\
         fabric_link = {{ rate = \"100Mbps\", delay = \"10ms\", queue = {{ kind = \"droptail\", limit = 100 }} }}\n\n\
         [routing]\necmp = \"off\"\n\n\
         [workloads.f]\nkind = \"pairs\"\napp = \"bulk\"\nstagger = \"{spacing_ns}ns\"\n",
        10_000u64 * 1460
    )
}

/// What one benchmark run measured.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchResult {
    /// Always "packetsim".
    pub sim: &'static str,
    /// Workload name.
    pub workload: String,
    /// Number of flows.
    pub flows: u32,
    /// Simulated seconds.
    pub sim_s: f64,
    /// Events processed.
    pub events: u64,
    /// Wall-clock seconds of the event loop (building excluded).
    pub wall_s: f64,
    /// Events per wall-second.
    pub events_per_s: f64,
    /// Data packets that reached the receivers.
    pub data_packets_delivered: u64,
    /// Data packets delivered per wall-second.
    pub data_packets_per_s: f64,
    /// Total goodput of all flows, bit/s: payload bytes delivered in order to the receivers
    /// × 8 ÷ the whole simulated duration (bench/README.md's definition, as the ns-2 and ns-3
    /// peers compute it), not each flow's goodput over its own active time.
    pub goodput_bps: f64,
    /// Events per delivered data packet.
    pub events_per_packet: f64,
    /// Peak resident memory of this process, KiB (Linux; 0 elsewhere).
    pub peak_rss_kib: u64,
}

/// The peak resident set size of this process in KiB (VmHWM), or 0 when unknown.
pub fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Total goodput of a run, bit/s: every flow's in-order payload bytes × 8 ÷ `duration_s`.
/// (Summing the flows' `goodput_bps` instead divides each by its own active time, from its
/// staggered start, and overstates the total by about 0.8% on `dumbbell-10`.)
pub fn goodput_over(summary: &crate::report::Summary, duration_s: f64) -> f64 {
    let bytes: u64 = summary.flows.values().map(|f| f.bytes_delivered).sum();
    bytes as f64 * 8.0 / duration_s
}

/// The cell-level workload (study 1's main experiment on the world, as `reproduce atm-tcp`
/// runs it: `studies::atm_tcp::run_on_world`): two CBRFrame-fed TCP senders through one EPD
/// switch, RTOmin 100 ms, 20 µs slots (10^6 slots = 20 s).
/// Requested by name only; its "events" are the cells that reached the switch, so
/// `events_per_s` is cells per wall-second.
pub const CELL_WORKLOAD: &str = "atm-cells";

fn run_cells(duration_s: f64) -> Result<BenchResult, String> {
    use crate::studies::atm_tcp::{config::AtmNetConfig, run_on_world};
    let mut c = AtmNetConfig::paper(packetsim_kernel::Dur::from_millis(100));
    c.slots = (duration_s / 20e-6).round() as u64;
    c.trace_bin = 0;
    let t0 = std::time::Instant::now();
    let r = run_on_world(&c)?;
    let wall = t0.elapsed().as_secs_f64().max(1e-9);
    let cells = r.switch.arrived;
    let delivered: u64 = r.conns.iter().map(|c| c.data_frames).sum();
    let bytes: u64 = r.conns.iter().map(|c| c.delivered).sum();
    Ok(BenchResult {
        sim: "packetsim",
        workload: CELL_WORKLOAD.to_string(),
        flows: c.connections as u32,
        sim_s: duration_s,
        events: cells,
        wall_s: wall,
        events_per_s: cells as f64 / wall,
        data_packets_delivered: delivered,
        data_packets_per_s: delivered as f64 / wall,
        goodput_bps: bytes as f64 * 8.0 / duration_s,
        events_per_packet: cells as f64 / delivered.max(1) as f64,
        peak_rss_kib: peak_rss_kib(),
    })
}

/// Runs workload `name` for `duration_s` simulated seconds.
pub fn run_workload(name: &str, duration_s: f64) -> Result<BenchResult, String> {
    if name == CELL_WORKLOAD {
        return run_cells(duration_s);
    }
    let n = workload_flows(name).ok_or_else(|| {
        format!(
            "unknown workload {name:?}; expected one of: {}, {CELL_WORKLOAD}, or dumbbell-N with N from 1 to {}",
            WORKLOADS
                .iter()
                .chain(LARGE_WORKLOADS.iter())
                .map(|w| w.0)
                .collect::<Vec<_>>()
                .join(", "),
            crate::scenario::MAX_FLOW_COUNT
        )
    })?;
    let text = dumbbell_compact_toml(n, duration_s);
    // The scenario is generated from the flags: an error in it is reported against them.
    let sc = scenario::load_str(&text, name, &[] as &[Override]).map_err(|e| {
        format!("--workload {name} --duration {duration_s}: the generated scenario: {e}")
    })?;
    // The run of `scenario::run` without its summary.json (per-flow and per-queue report
    // tables the bench does not read: 3.6 KiB a flow on the dumbbell at 10,000 flows), and
    // with the scenario given up to the build (nothing reads it afterwards), which frees its
    // link specs before making the flows. So the peak is loading, the world and the loop:
    // what a run of this many flows needs.
    let mut world = scenario::build_owned(sc, 1).map_err(|e| e.to_string())?;
    world.stop_when_done(true);
    let info = world.run();
    let wall = info.wall.as_secs_f64();
    let delivered: u64 = world.flows.iter().map(|f| f.data_packets_delivered).sum();
    // summary.json's `bytes_delivered` of each flow is its `delivered` (goodput_over).
    let bytes: u64 = world.flows.iter().map(|f| f.delivered).sum();
    let goodput = bytes as f64 * 8.0 / duration_s;
    Ok(BenchResult {
        sim: "packetsim",
        workload: name.to_string(),
        flows: n,
        sim_s: duration_s,
        events: info.events,
        wall_s: wall,
        events_per_s: info.events as f64 / wall,
        data_packets_delivered: delivered,
        data_packets_per_s: delivered as f64 / wall,
        goodput_bps: goodput,
        events_per_packet: info.events as f64 / delivered.max(1) as f64,
        peak_rss_kib: peak_rss_kib(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_names_give_the_number_of_flows() {
        assert_eq!(workload_flows("dumbbell-10"), Some(10));
        assert_eq!(workload_flows("dumbbell-10000"), Some(10_000));
        assert_eq!(workload_flows("dumbbell-7"), Some(7));
        assert_eq!(workload_flows("dumbbell-0"), None);
        assert_eq!(workload_flows("dumbbell"), None);
        assert_eq!(workload_flows("star-10"), None);
    }

    /// The generated dumbbell is the written-out one: the same events, and every flow the
    /// same bytes and packets, at sizes where flows start apart and where they crowd.
    #[test]
    fn compact_dumbbell_runs_as_the_written_out_one() {
        for (n, d) in [(1, 1.0), (10, 3.0), (37, 2.0)] {
            let run = |text: String| {
                let sc = scenario::load_str(&text, "t", &[] as &[Override]).unwrap();
                scenario::run(&sc, 1).unwrap()
            };
            let a = run(dumbbell_toml(n, d));
            let b = run(dumbbell_compact_toml(n, d));
            assert_eq!(a.info.events, b.info.events, "n = {n}");
            assert_eq!(a.world.flows.len(), n as usize);
            assert_eq!(b.world.flows.len(), n as usize);
            for (i, (x, y)) in a.world.flows.iter().zip(&b.world.flows).enumerate() {
                assert_eq!(
                    (x.name.clone(), y.name.clone()),
                    (format!("f{i}"), format!("f_{i}"))
                );
                assert_eq!(x.start, y.start, "n = {n}, flow {i}");
                assert_eq!(x.delivered, y.delivered, "n = {n}, flow {i}");
                assert_eq!(x.data_packets_delivered, y.data_packets_delivered);
            }
            let started = a.world.flows.iter().filter(|f| f.delivered > 0).count();
            assert!(
                started * 4 >= n as usize * 3,
                "n = {n}: {started} flows delivered"
            );
            // The same ends: s_i sends to d_i, nodes in the same order.
            let names = |o: &scenario::Outcome| -> Vec<String> {
                o.world.net.nodes.iter().map(|n| n.name.clone()).collect()
            };
            assert_eq!(names(&a), names(&b));
            assert_eq!(a.world.net.links.len(), b.world.net.links.len());
        }
    }

    /// bench/README.md: goodput = in-order payload × 8 ÷ the simulated duration, all flows
    /// together. With staggered starts this is below the sum of per-flow goodputs over each
    /// flow's active time, by about the mean start delay over the duration.
    #[test]
    fn goodput_divides_by_the_whole_duration() {
        let r = run_workload("dumbbell-10", 5.0).expect("bench");
        let text = dumbbell_toml(10, 5.0);
        let sc = scenario::load_str(&text, "t", &[] as &[Override]).unwrap();
        let out = scenario::run(&sc, 1).unwrap();
        let bytes: u64 = out.summary.flows.values().map(|f| f.bytes_delivered).sum();
        assert_eq!(r.goodput_bps, bytes as f64 * 8.0 / 5.0);
        let per_active: f64 = out.summary.flows.values().map(|f| f.goodput_bps).sum();
        // Flows start at 0, 0.1, ..., 0.9 s: over 5 s the active-time sum is clearly higher.
        assert!(
            per_active > r.goodput_bps * 1.05,
            "{per_active} vs {}",
            r.goodput_bps
        );
        assert!(r.goodput_bps < 100e6, "{}", r.goodput_bps);
    }
}
