//! The sampled time series (`world/sample.rs`, `simulation.sample_interval`; issue 12 item 3):
//! per TCP flow cwnd/ssthresh/srtt/RTO, per SCTP destination the same, per flow the bytes
//! delivered and the delivery rate, each flow sampled only within its life; per queue its length
//! over the whole run (which a run of finite transfers ends at the last byte).

use crate::{line_scenario, load, scenarios_dir};
use packetsim::ids::FlowId;
use packetsim::scenario;
use packetsim_kernel::{Dur, Time};

/// The sample instants k * iv that lie in [from, to].
fn instants(iv: Dur, from: Time, to: Time) -> Vec<Time> {
    let first = from.as_nanos().div_ceil(iv.as_nanos());
    let last = to.as_nanos() / iv.as_nanos();
    (first..=last).map(|k| Time(k * iv.as_nanos())).collect()
}

#[test]
fn a_tcp_transfer_is_sampled_from_its_start_to_its_completion_and_no_longer() {
    let text = line_scenario(
        "10Mbps",
        "20ms",
        100,
        "app = \"file\"\nsize = \"300KB\"\nstart = \"250ms\"",
    );
    let sc = load(
        &text,
        &["simulation.duration=5s", "simulation.sample_interval=50ms"],
    );
    let o = scenario::run(&sc, 1).unwrap();
    let w = &o.world;
    let f = &w.flows[0];
    let done = f.completed_at.expect("the transfer completes");
    assert!(done < Time::from_millis(2000), "{done}");
    let s = w.series.as_ref().unwrap();
    let iv = Dur::from_millis(50);
    let want = instants(iv, f.start, done);
    // The congestion samples: one per instant of the flow's life, none before or after.
    let times: Vec<Time> = s.flows.iter().map(|x| x.time).collect();
    assert_eq!(times, want);
    // At the start instant the sender has not sent: the initial window (2 segments of 1460 B,
    // docs/scenario-format.md), ssthresh = the 64 KiB receive window, no RTT sample yet and the
    // initial RTO of 1 s (RFC 6298 2.1).
    let first = s.flows[0];
    assert_eq!(first.time, Time::from_millis(250));
    assert_eq!((first.cwnd, first.ssthresh), (2 * 1460, 65536));
    assert_eq!((first.srtt, first.rto), (None, Dur::from_secs(1)));
    // Once measured, srtt is at least the path's two-way propagation delay (2 x (1 + 20 + 1)
    // ms) and the RTO at least rto_min; cwnd grew by slow start.
    let measured: Vec<_> = s.flows.iter().filter_map(|x| x.srtt).collect();
    assert!(
        measured.len() + 2 >= s.flows.len(),
        "srtt set after the first RTT"
    );
    assert!(measured
        .iter()
        .all(|&d| d >= Dur::from_millis(44) && d < Dur::from_millis(200)));
    assert!(s.flows.iter().all(|x| x.rto >= Dur::from_secs(1)));
    assert!(s.flows.last().unwrap().cwnd > 10 * 1460);

    // The delivery samples: the same instants; bytes never decrease, never exceed the file;
    // each rate is the bytes since the previous sample (the start, for the first) over the
    // time between them.
    let d: Vec<_> = s.delivered.iter().filter(|x| x.flow == FlowId(0)).collect();
    assert_eq!(d.iter().map(|x| x.time).collect::<Vec<_>>(), want);
    assert_eq!((d[0].bytes, d[0].rate_bps), (0, 0.0));
    for p in d.windows(2) {
        assert!(p[1].bytes >= p[0].bytes && p[1].bytes <= 300_000);
        let rate = (p[1].bytes - p[0].bytes) as f64 * 8.0 / iv.as_secs_f64();
        assert!(
            (p[1].rate_bps - rate).abs() < 1e-6,
            "{rate} {}",
            p[1].rate_bps
        );
        // Never above the bottleneck rate plus one segment that finished in the interval.
        assert!(p[1].rate_bps <= 10e6 + 1500.0 * 8.0 / iv.as_secs_f64());
    }
    assert!(
        d.last().unwrap().bytes > 250_000,
        "most of the file by the last sample"
    );

    // The queues are sampled over the whole run, which ends at the transfer's last byte (all
    // its flows are finite transfers; issue 12 item 6), not at the 5 s cap: 0, 50 ms, ...,
    // 0.7 s, every direction (six).
    assert_eq!(o.summary.span_s, Some(done.as_secs_f64()));
    let n = instants(iv, Time::ZERO, Time(done.as_nanos() - 1)).len();
    assert_eq!(n, 15);
    assert_eq!(s.queues.len(), n * w.net.egresses.len());

    // The files: the columns docs/outputs.md describes, one row per sample, empty srtt
    // before the first RTT sample; no SCTP file without an SCTP flow.
    let csv = packetsim::report::series_csv(w).unwrap();
    let mut lines = csv.flows.lines();
    assert_eq!(
        lines.next(),
        Some("time_s,flow,cwnd_bytes,ssthresh_bytes,srtt_s,rto_s")
    );
    assert_eq!(lines.next(), Some("0.25,f,2920,65536,,1"));
    assert_eq!(csv.flows.lines().count(), want.len() + 1);
    let mut lines = csv.delivered.lines();
    assert_eq!(lines.next(), Some("time_s,flow,delivered_bytes,rate_bps"));
    assert_eq!(lines.next(), Some("0.25,f,0,0"));
    assert!(csv.sctp_paths.is_none());
}

#[test]
fn a_cbr_source_has_a_delivery_series_between_its_start_and_stop_only() {
    let text = line_scenario(
        "10Mbps",
        "20ms",
        100,
        "kind = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 1000\nstart = \"1s\"\nstop = \"3s\"",
    );
    let sc = load(
        &text,
        &["simulation.duration=5s", "simulation.sample_interval=100ms"],
    );
    let o = scenario::run(&sc, 1).unwrap();
    let s = o.world.series.as_ref().unwrap();
    // No congestion state to sample.
    assert!(s.flows.is_empty() && s.paths.is_empty());
    let want = instants(
        Dur::from_millis(100),
        Time::from_millis(1000),
        Time::from_millis(3000),
    );
    assert_eq!(s.delivered.iter().map(|x| x.time).collect::<Vec<_>>(), want);
    // After the first packets cross the 22 ms path, each 100 ms carries 12 or 13 packets of
    // 1000 B: 0.96 or 1.04 Mb/s.
    for x in &s.delivered[2..] {
        assert!(x.bytes % 1000 == 0);
        assert!(
            x.rate_bps == 0.96e6 || x.rate_bps == 1.04e6 || x.rate_bps == 1e6,
            "{}: {}",
            x.time,
            x.rate_bps
        );
    }
}

#[test]
fn every_sctp_destination_is_sampled_and_its_rto_is_the_one_the_association_recorded() {
    let text = std::fs::read_to_string(scenarios_dir().join("sctp-multihoming.toml")).unwrap();
    let sc = load(
        &text,
        &[
            "flows.file.size=\"300KiB\"",
            "simulation.duration=\"60s\"",
            "simulation.sample_interval=\"200ms\"",
        ],
    );
    let o = scenario::run(&sc, 1).unwrap();
    let w = &o.world;
    let f = &w.flows[0];
    let done = f.completed_at.expect("the transfer completes");
    let s = w.series.as_ref().unwrap();
    let want = instants(Dur::from_millis(200), f.start, done);
    assert!(s.flows.is_empty());
    // Two destinations (D0, D1) at every instant of the association's life.
    assert_eq!(s.paths.len(), 2 * want.len());
    let paths = w.agents[f.sender.idx()].agent.sctp().unwrap().paths();
    assert_eq!(paths.len(), 2);
    for (k, t) in want.iter().enumerate() {
        for (d, path) in paths.iter().enumerate() {
            let x = s.paths[2 * k + d];
            assert_eq!((x.time, x.flow, x.destination), (*t, FlowId(0), d as u32));
            assert_eq!(x.addr, path.addr);
            // The RTO in force then: the last change at or before the sample, from the
            // association's own record (timeseries_sctp_rto.csv).
            let rto = path
                .rto_history
                .iter()
                .rev()
                .find(|(at, _)| at <= t)
                .map(|&(_, r)| r)
                .unwrap();
            assert_eq!(x.rto, rto, "{t} destination {d}");
        }
    }
    // At the start the association is not yet open: the initial window of 2 MTUs (RFC 2960
    // 7.2.1, the scenario's initial_cwnd_mtus) on both destinations, no RTT measured.
    assert_eq!((s.paths[0].cwnd, s.paths[0].srtt), (3000, None));
    assert_eq!((s.paths[1].cwnd, s.paths[1].srtt), (3000, None));
    // The primary D0 carries the data: it has an srtt of at least its propagation RTT
    // (2 x (10 + 15 + 10) ms) once measured.
    let d0: Vec<_> = s.paths.iter().filter(|x| x.destination == 0).collect();
    assert!(d0.last().unwrap().srtt.unwrap() >= Dur::from_millis(70));
    let csv = packetsim::report::series_csv(w).unwrap();
    let p = csv.sctp_paths.unwrap();
    assert_eq!(
        p.lines().next(),
        Some("time_s,flow,destination,address,cwnd_bytes,ssthresh_bytes,srtt_s,rto_s")
    );
    assert_eq!(p.lines().count(), s.paths.len() + 1);
}

// Issue 14 item 9: a FIFO RED direction reports its average queue. The summary's mean is the
// time-weighted mean of the sampled step function (it changes only at arrivals), never above
// the max, and the final value is the queue's at the end; the series file gains `red_avg_pkts`,
// empty for the DropTail directions. The TCP flow's delivered data packets split into in-order
// ones and the rest, which are duplicates and out-of-order arrivals after RED's drops.
#[test]
fn red_average_is_reported_and_delivered_packets_split_in_order_and_the_rest() {
    let text = line_scenario("2Mbps", "20ms", 50, "app = \"bulk\"").replace(
        "queue = { kind = \"droptail\", limit = 50 }",
        "queue = { kind = \"red\", red = { weight = 0.02, min_th = 5, max_th = 15, max_p = 0.1, \
         limit = 50 } }",
    );
    let sc = load(
        &text,
        &["simulation.duration=20s", "simulation.sample_interval=10ms"],
    );
    let o = scenario::run(&sc, 1).unwrap();
    let w = &o.world;
    let q = &o.summary.queues["bottleneck:r1->r2"];
    let red = q.red_avg.expect("a RED direction reports its average");
    assert!(
        red.mean_pkts > 2.0 && red.mean_pkts <= red.max_pkts,
        "{red:?}"
    );
    assert!(red.max_pkts < 50.0);
    assert!(q.drops > 0, "RED dropped");
    assert!(o.summary.queues["in:s->r1"].red_avg.is_none());
    let s = w.series.as_ref().unwrap();
    let e = w
        .net
        .egresses
        .iter()
        .position(|e| e.red().is_some())
        .unwrap();
    let samples: Vec<_> = s.queues.iter().filter(|x| x.egress.idx() == e).collect();
    assert_eq!(w.net.egresses[e].red().unwrap().average(), red.final_pkts);
    assert!(samples.iter().all(|x| x.red_avg.unwrap() <= red.max_pkts));
    // The 10 ms samples of the step function average close to the exact time average.
    let mean = samples.iter().map(|x| x.red_avg.unwrap()).sum::<f64>() / samples.len() as f64;
    assert!(
        (mean - red.mean_pkts).abs() < 0.05 * red.mean_pkts,
        "{mean} {red:?}"
    );
    let csv = packetsim::report::series_csv(w).unwrap();
    let mut lines = csv.queues.lines();
    assert_eq!(
        lines.next(),
        Some("time_s,queue,len_pkts,len_bytes,red_avg_pkts")
    );
    assert!(csv
        .queues
        .lines()
        .any(|l| l.starts_with("0.01,in:s->r1,") && l.ends_with(',')));
    let f = &o.summary.flows["f"];
    let (inord, rest) = (
        f.data_packets_in_order.unwrap(),
        f.data_packets_not_in_order.unwrap(),
    );
    assert_eq!(inord + rest, f.data_packets_delivered);
    assert!(rest > 0 && rest < inord, "{inord} {rest}");
    // A run without RED keeps the four columns.
    let plain = load(
        &line_scenario("2Mbps", "20ms", 50, "app = \"bulk\""),
        &["simulation.duration=1s", "simulation.sample_interval=100ms"],
    );
    let o = scenario::run(&plain, 1).unwrap();
    let csv = packetsim::report::series_csv(&o.world).unwrap();
    assert_eq!(
        csv.queues.lines().next(),
        Some("time_s,queue,len_pkts,len_bytes")
    );
}
