//! Whole-network behaviour: capacity use, and the ordering of the TCP variants under loss.

use super::{line_scenario, load, scenarios_dir};
use packetsim::scenario;

#[test]
fn bulk_flow_over_lossfree_bottleneck_fills_95_percent_of_capacity() {
    // 2 Mb/s, 20 ms: the BDP is ~10 KB; a 64 KiB window and a 100-packet queue never limit.
    let sc = load(
        &line_scenario("2Mbps", "20ms", 100, "app = \"bulk\""),
        &["tcp.rcv_window=\"64KiB\""],
    );
    let out = scenario::run(&sc, 1).unwrap();
    let f = &out.summary.flows["f"];
    assert_eq!(f.retransmits, 0, "no loss, no retransmission");
    let share = f.goodput_bps / 2e6;
    assert!(share > 0.95, "goodput {:.4} of capacity", share);
    // Payload can never exceed 1460/1500 of the wire rate.
    assert!(share < 1460.0 / 1500.0);
}

#[test]
fn mean_completion_orders_sack_newreno_reno_at_one_percent_loss() {
    // Spec 3's path: 4 MiB over a 2 Mb/s, 35 ms path with 1% uniform loss, 20 seeds.
    let text = std::fs::read_to_string(scenarios_dir().join("sctp-tcp-path.toml")).unwrap();
    let mean = |variant: &str| {
        let sets = [
            format!("tcp.variant=\"{variant}\""),
            "links.path0_core.loss=0.01".to_string(),
        ];
        let sets: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
        let sc = load(&text, &sets);
        let total: f64 = (1..=20u64)
            .map(|seed| {
                let out = scenario::run(&sc, seed).unwrap();
                out.summary.flows["file"]
                    .completion_time_s
                    .expect("the transfer finishes")
            })
            .sum();
        total / 20.0
    };
    let (sack, newreno, reno) = (mean("sack"), mean("newreno"), mean("reno"));
    eprintln!("mean 4 MiB completion at 1% loss: sack {sack:.3} s, newreno {newreno:.3} s, reno {reno:.3} s");
    assert!(sack <= newreno, "sack {sack} > newreno {newreno}");
    assert!(newreno <= reno, "newreno {newreno} > reno {reno}");
    // Serialisation alone takes 17.2 s at 2 Mb/s.
    assert!(sack > 17.2);
}

#[test]
fn cbr_flow_delivers_its_rate_through_an_idle_path() {
    let sc = load(
        &line_scenario(
            "10Mbps",
            "5ms",
            100,
            "kind = \"cbr\"\nrate = \"1Mbps\"\npacket_size = 972",
        ),
        &[],
    );
    let out = scenario::run(&sc, 1).unwrap();
    let f = &out.summary.flows["f"];
    // 1000-byte packets at 1 Mb/s: one every 8 ms, 7500 in 60 s; payload goodput 972/1000 Mb/s.
    assert_eq!(f.segments_sent, 7500);
    assert!(
        (f.goodput_bps - 972_000.0).abs() < 2_000.0,
        "{}",
        f.goodput_bps
    );
}

#[test]
fn outage_stalls_a_transfer_which_then_recovers_by_timeout() {
    let sc = load(
        &line_scenario("2Mbps", "20ms", 100, "app = \"file\"\nsize = \"1MiB\""),
        &["links.bottleneck.outages=[{ from = \"1s\", to = \"3s\" }]"],
    );
    let out = scenario::run(&sc, 1).unwrap();
    let f = &out.summary.flows["f"];
    assert!(
        f.timeouts >= 1,
        "the outage forces a retransmission timeout"
    );
    let t = f
        .completion_time_s
        .expect("finishes after the link returns");
    // 1 MiB alone takes 4.3 s at 2 Mb/s; the 2 s outage and the timeout add to it.
    assert!(t > 6.3, "{t}");
    assert_eq!(f.bytes_delivered, 1 << 20);
}
