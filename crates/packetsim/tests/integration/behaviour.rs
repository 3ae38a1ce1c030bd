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

// spec 2 §2.4 through the world: when the radio link (here `out`, the receiver's link) comes
// back after a 4 s outage, the receiver sends its three Triplicate Reconnection ACKs at that
// instant and the sender resumes at once, before its backed-off timer; without them nothing
// happens in the 100 ms after the link returns. In this run the ACK of the last segment that
// reached the receiver before the outage was lost, so the first reconnection ACK is a new ACK
// for the sender (go-back-N resumes from it, RFC 5681 §3.1 slow start after the timeout) and
// the other two are only two duplicates: no fast retransmit. The three-duplicate case is
// scripted in transport/tcp/tests_wireless.rs.
#[test]
fn outage_link_up_reconnection_acks_resume_sender_before_the_timer() {
    use packetsim::kernel::Time;
    use packetsim::world::{Agent, World};
    let counts = |w: &World| {
        let (snd, rcv) = (w.flows[0].sender, w.flows[0].receiver);
        let Agent::TcpSender(s) = &w.agents[snd.idx()].agent else {
            panic!("a TCP sender")
        };
        let Agent::TcpReceiver(r) = &w.agents[rcv.idx()].agent else {
            panic!("a TCP receiver")
        };
        let st = s.stats();
        [
            st.bytes_acked,
            st.retransmits,
            st.timeouts,
            st.fast_retransmits,
            r.stats().acks_sent,
        ]
    };
    for tr in [false, true] {
        let mut sets = vec![
            "simulation.duration=\"20s\"",
            "links.out.outages=[{from=\"5s\",to=\"9s\"}]",
            "tcp.variant=\"reno\"",
        ];
        if tr {
            sets.extend([
                "tcp.reconnection_acks=3",
                "tcp.recover_guard=\"none\"",
                "tcp.dupack_same_window=false",
            ]);
        }
        let sc = load(&line_scenario("2Mbps", "20ms", 50, "app = \"bulk\""), &sets);
        let mut w = scenario::build(&sc, 1).unwrap();
        w.run_until(Time::from_millis(9_000));
        let [acked0, rtx0, to0, fr0, acks0] = counts(&w);
        assert!(to0 >= 1, "the outage caused a timeout");
        // The link is up again at 9 s (run the events at 9 s).
        w.run_until(Time::from_nanos(9_000_000_001));
        assert_eq!(counts(&w)[4] - acks0, if tr { 3 } else { 0 }, "tr={tr}");
        w.run_until(Time::from_millis(9_100));
        let [acked2, rtx2, to2, fr2, _] = counts(&w);
        assert_eq!(to2, to0, "no timeout meanwhile, tr={tr}");
        assert_eq!(fr2, fr0, "the first reconnection ACK was new, tr={tr}");
        assert_eq!(acked2 > acked0, tr, "progress, tr={tr}");
        assert_eq!(rtx2 > rtx0, tr, "go-back-N resumed, tr={tr}");
    }
}

// Issue 12 item 6: a run whose flows are all finite transfers ends when the last one has
// finished, not at the cap (`simulation.duration`), and its averages are over that span.
#[test]
fn finite_transfers_end_the_run_and_averages_cover_the_real_span() {
    use packetsim::report::Summary;
    let file = "app = \"file\"\nsize = \"100KB\"";
    let sc = load(&line_scenario("2Mbps", "20ms", 100, file), &[]);
    let done = scenario::run(&sc, 1).unwrap();
    let s = &done.summary;
    let f = &s.flows["f"];
    let last_byte = f.start_s + f.completion_time_s.expect("finishes");
    assert_eq!(s.ended_by, Some("flows_finished"));
    assert_eq!(s.span_s, Some(last_byte));
    assert_eq!(s.duration_s, 60.0, "duration_s stays the cap");
    assert_eq!(done.world.span().as_secs_f64(), last_byte);
    assert!(done.world.now().as_secs_f64() <= last_byte);

    // The same world run to the cap, as a study that builds its world directly still does.
    let mut w = scenario::build(&sc, 1).unwrap();
    let info = w.run();
    let cap = Summary::new(&w, &info, "test.toml", 1);
    assert_eq!((cap.span_s, cap.ended_by), (None, None));
    assert!(done.info.events < info.events);
    // No loss: every data packet crossed the bottleneck before the last byte arrived, so both
    // runs saw the same packets and the same busy time and queue, over 60 s or over the span.
    let q = "bottleneck:r1->r2";
    let (a, b) = (&s.queues[q], &cap.queues[q]);
    assert_eq!(
        (a.arrivals, a.departures, a.drops),
        (b.arrivals, b.departures, 0)
    );
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs().max(1e-12);
    assert!(close(a.utilisation * last_byte, b.utilisation * 60.0));
    assert!(close(a.mean_len_pkts * last_byte, b.mean_len_pkts * 60.0));
    assert_eq!(f.goodput_bps, cap.flows["f"].goodput_bps);
    assert_eq!(f.bytes_delivered, 100_000);
    // Busy time: every packet of the direction at 2 Mb/s.
    let busy = a.utilisation * last_byte;
    assert!(busy > 100_000.0 * 8.0 / 2e6, "{busy}");
    assert!(s.table().lines().next().unwrap().contains(&format!(
        "{last_byte:.3} s simulated (every flow finished; cap 60 s; averages over {last_byte:.3} s)"
    )));

    // A transfer that cannot finish within the cap: the run goes to the cap and says so.
    let short = load(
        &line_scenario("2Mbps", "20ms", 100, file),
        &["simulation.duration=\"0.2s\""],
    );
    let out = scenario::run(&short, 1).unwrap();
    assert_eq!(out.summary.ended_by, Some("duration"));
    assert_eq!(out.summary.span_s, Some(0.2));
    assert_eq!(out.summary.flows["f"].completion_time_s, None);

    // Any unlimited flow (here a bulk flow beside the file): to the cap, as before.
    let mixed = format!(
        "{}\n[flows.g]\nfrom = \"s\"\nto = \"d\"\napp = \"bulk\"\n",
        line_scenario("2Mbps", "20ms", 100, file)
    );
    let out = scenario::run(&load(&mixed, &["simulation.duration=\"5s\""]), 1).unwrap();
    assert_eq!((out.summary.span_s, out.summary.ended_by), (None, None));
    assert!(out.summary.flows["f"].completion_time_s.is_some());
    assert_eq!(out.world.span().as_secs_f64(), 5.0);
}
