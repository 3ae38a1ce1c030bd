//! The flow monitor (`simulation.flow_monitor = true`) on whole scenarios: delays computed by
//! hand from rates and propagation delays, and a monitored run that is otherwise the same run.

use super::{line_scenario, load, scenarios_dir};
use packetsim::scenario;

/// Seconds for `bytes` at `bps`.
fn tx(bytes: f64, bps: f64) -> f64 {
    bytes * 8.0 / bps
}

#[test]
fn cbr_one_way_delay_is_transmission_plus_propagation_with_no_jitter_or_sojourn() {
    // 1 Mb/s of 1000-byte datagrams (1028 bytes with UDP and IP headers): one every 8 ms, far
    // apart, so no packet ever waits: each takes 1 + 5 + 1 ms of propagation and the three
    // links' transmission times.
    let sc = load(
        &line_scenario("10Mbps", "5ms", 100, "kind = \"cbr\"\nrate = \"1Mbps\""),
        &["simulation.duration=\"2s\"", "simulation.flow_monitor=true"],
    );
    let out = scenario::run(&sc, 1).unwrap();
    let m = out.summary.flows["f"]
        .flow_monitor
        .clone()
        .expect("monitored");
    let want = 0.007 + tx(1028.0, 100e6) * 2.0 + tx(1028.0, 10e6);
    for (name, v) in [
        ("min", m.delay_min_s),
        ("max", m.delay_max_s),
        ("mean", m.delay_mean_s),
    ] {
        let v = v.expect("delays measured");
        assert!((v - want).abs() < 1e-9, "delay {name} {v} s, want {want} s");
    }
    assert_eq!(m.lost_packets, 0);
    assert!(m.rx_packets >= 240 && m.rx_packets <= m.tx_packets, "{m:?}");
    assert!(
        m.tx_packets - m.rx_packets <= 1,
        "at most one in flight at the end: {m:?}"
    );
    assert_eq!(m.tx_bytes, 1028 * m.tx_packets);
    assert_eq!(m.jitter_sum_s, 0.0);
    assert_eq!(m.rtt_samples, 0, "UDP has no RTT");
    let q = out.summary.queues["bottleneck:r1->r2"]
        .sojourn
        .clone()
        .expect("monitored");
    assert_eq!(q.sojourn_max_s, Some(0.0));
    assert_eq!(q.samples, m.tx_packets.min(q.samples).max(m.rx_packets));
    // The CSV has the columns, appended.
    let csv = out.summary.flows_csv();
    let header = csv.lines().next().unwrap();
    assert!(header.starts_with("flow,kind,variant,"));
    assert!(
        header.ends_with(",rtt_p50_s,rtt_p99_s,rtt_max_s"),
        "{header}"
    );
    assert!(header.contains(",delay_mean_s,delay_min_s,delay_p50_s,delay_p99_s,"));
    let queues = out.summary.queues_csv();
    assert!(queues.lines().next().unwrap().ends_with(",sojourn_max_s"));
}

#[test]
fn tcp_rtt_min_is_the_unloaded_path_and_queueing_shows_in_p99() {
    // One bulk flow through a 2 Mb/s bottleneck with a 100-packet queue: the first data
    // segment crosses empty queues (1500 bytes out, a 40-byte ACK back, 7 ms each way); later
    // ones wait behind the queue the flow builds.
    let sc = load(
        &line_scenario("2Mbps", "5ms", 100, "app = \"bulk\""),
        &[
            "simulation.duration=\"10s\"",
            "simulation.flow_monitor=true",
        ],
    );
    let out = scenario::run(&sc, 1).unwrap();
    let m = out.summary.flows["f"]
        .flow_monitor
        .clone()
        .expect("monitored");
    let base =
        0.014 + tx(1500.0, 100e6) * 2.0 + tx(1500.0, 2e6) + tx(40.0, 100e6) * 2.0 + tx(40.0, 2e6);
    let min = m.rtt_min_s.unwrap();
    assert!(
        (min - base).abs() < 1e-9,
        "rtt min {min}, unloaded path {base}"
    );
    assert!(m.rtt_samples > 100, "{m:?}");
    let (p50, p99, max) = (
        m.rtt_p50_s.unwrap(),
        m.rtt_p99_s.unwrap(),
        m.rtt_max_s.unwrap(),
    );
    assert!(min <= p50 && p50 <= p99 && p99 <= max * 1.001, "{m:?}");
    // A standing queue: well above the unloaded path.
    assert!(p99 > base + 0.1, "{m:?}");
    let j = out.summary.queues["bottleneck:r1->r2"]
        .sojourn
        .clone()
        .unwrap();
    assert!(j.sojourn_p99_s.unwrap() > 0.1, "{j:?}");
    // rtt.csv: one row per sample, in time order.
    let rtt = out.summary.rtt_csv().unwrap();
    assert_eq!(rtt.lines().count() as u64, m.rtt_samples + 1);
    assert_eq!(rtt.lines().next(), Some("flow,time_s,rtt_s"));
}

#[test]
fn a_monitored_run_is_the_same_run() {
    let path = scenarios_dir().join("dumbbell.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let sets = ["links.bottleneck.loss=0.01", "tcp.variant=\"sack\""];
    let plain = scenario::run(&load(&text, &sets), 3).unwrap();
    let mut with = sets.to_vec();
    with.push("simulation.flow_monitor=true");
    let monitored = scenario::run(&load(&text, &with), 3).unwrap();
    assert_eq!(plain.info.events, monitored.info.events);
    // Every column the plain run writes, the monitored run writes with the same values.
    let first = |csv: String, n: usize| -> Vec<String> {
        csv.lines()
            .map(|l| l.split(',').take(n).collect::<Vec<_>>().join(","))
            .collect()
    };
    let cols = |csv: &str| csv.lines().next().unwrap().split(',').count();
    let (f, q) = (plain.summary.flows_csv(), plain.summary.queues_csv());
    assert_eq!(
        first(monitored.summary.flows_csv(), cols(&f)),
        first(f.clone(), cols(&f))
    );
    assert_eq!(
        first(monitored.summary.queues_csv(), cols(&q)),
        first(q.clone(), cols(&q))
    );
    assert!(plain.summary.rtt_csv().is_none());
    assert!(!plain.summary.to_json().contains("flow_monitor"));
    // Loss shows: each flow lost packets and the counts add up.
    for (name, fl) in &monitored.summary.flows {
        let m = fl.flow_monitor.as_ref().unwrap();
        assert!(m.lost_packets > 0, "{name}: {m:?}");
        assert!(
            m.rx_packets + m.lost_packets <= m.tx_packets,
            "{name}: {m:?}"
        );
        assert!(
            m.tx_packets - m.rx_packets - m.lost_packets < 200,
            "{name}: {m:?}"
        );
    }
}
