//! TCP Vegas end to end (Brakmo & Peterson 1995): a flow alone keeps a few segments queued at
//! the bottleneck at near full utilisation, where a loss-based variant fills the buffer.

use super::{line_scenario, load};
use packetsim::scenario;

/// One bulk flow of `variant` over a 10 Mb/s, 10 ms bottleneck with a 100-packet DropTail
/// for 20 s; the bottleneck's queue summary and the flow's retransmissions.
fn alone(variant: &str) -> (packetsim::report::QueueSummary, u64) {
    let flow = format!("app = \"bulk\"\ntcp = {{ variant = \"{variant}\" }}");
    let sc = load(
        &line_scenario("10Mbps", "10ms", 100, &flow),
        &["tcp.rcv_window=\"1MiB\"", "simulation.duration=\"20s\""],
    );
    let out = scenario::run(&sc, 1).unwrap();
    let q = out.summary.queues["bottleneck:r1->r2"].clone();
    (q, out.summary.flows["f"].retransmits)
}

// Paper §3.2 (ns-2 `VegasTcpAgent::recv`): Vegas keeps between α = 1 and β = 3 segments of
// its own in the bottleneck queue (Diff rounded as ns-2: it shrinks from 3.5 up, and after
// slow start it comes down to the top of that band). Alone on the path its mean queue stays
// under 4.5 packets (measured 3.7, at most 8), nothing is dropped or retransmitted and the
// link is busy over 95% of the run, slow start included (measured 99%); NewReno on the same
// path fills the 100-packet buffer until it overflows (mean 46, 175 drops).
#[test]
fn vegas_alone_keeps_the_bottleneck_queue_small_at_full_rate() {
    let (q, rtx) = alone("vegas");
    eprintln!("vegas {q:?}");
    assert!(q.mean_len_pkts < 4.5, "mean queue {}", q.mean_len_pkts);
    assert!(q.mean_len_pkts > 0.5, "mean queue {}", q.mean_len_pkts);
    assert_eq!(q.drops, 0, "{q:?}");
    assert_eq!(rtx, 0);
    assert!(q.utilisation > 0.95, "utilisation {}", q.utilisation);
    let (reno, _) = alone("newreno");
    eprintln!("newreno {reno:?}");
    assert!(
        reno.mean_len_pkts > 30.0,
        "newreno mean {}",
        reno.mean_len_pkts
    );
    assert!(reno.drops > 0);
}
