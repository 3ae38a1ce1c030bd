//! Properties over random seeds and loss rates: exact delivery and packet conservation.

use super::{line_scenario, load};
use packetsim::scenario;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A file transfer delivers exactly N bytes, in order, once, for every variant, any seed and
    /// any uniform loss rate up to 20% (loss in both directions, so ACKs are lost too).
    #[test]
    fn file_transfer_delivers_exactly_n_bytes(
        variant in prop::sample::select(vec!["tahoe", "reno", "newreno", "sack"]),
        seed in any::<u64>(),
        loss in 0.0f64..0.2,
        size in 1u64..200_000,
    ) {
        let flow = format!("app = \"file\"\nsize = {size}");
        let sc = load(
            &line_scenario("10Mbps", "5ms", 50, &flow),
            &[
                &format!("tcp.variant=\"{variant}\""),
                &format!("links.bottleneck.loss={loss}"),
                "links.bottleneck.errors=\"both\"",
                "simulation.duration=\"20000s\"",
                "tcp.rto_max=\"8s\"",
            ],
        );
        let out = scenario::run(&sc, seed).unwrap();
        let f = &out.summary.flows["f"];
        prop_assert_eq!(f.bytes_delivered, size);
        prop_assert!(f.completion_time_s.is_some());
        prop_assert_eq!(out.world.check_conservation(), Ok(()));
    }

    /// Packets are conserved at every queue and link, whenever the run is stopped.
    #[test]
    fn packets_are_conserved_at_every_queue_and_link(
        seed in any::<u64>(),
        loss in 0.0f64..0.2,
        stop_ms in 1u64..5_000,
        flows in 1u32..6,
    ) {
        // Copies 7 ms apart, closer when the run is shorter: every copy must start before the
        // end of the run (a scenario whose last copy starts later is refused at load).
        let stagger_us = (stop_ms * 1000 / u64::from(flows)).min(7000);
        let flow = format!("app = \"bulk\"\ncount = {flows}\nstagger = \"{stagger_us}us\"");
        let sc = load(
            &line_scenario("5Mbps", "10ms", 8, &flow),
            &[&format!("links.bottleneck.loss={loss}"), &format!("simulation.duration=\"{stop_ms}ms\"")],
        );
        let out = scenario::run(&sc, seed).unwrap();
        prop_assert_eq!(out.world.check_conservation(), Ok(()));
        for q in out.summary.queues.values() {
            prop_assert!(q.arrivals >= q.departures + q.drops);
        }
    }
}

/// Every packet alive has the size of its body plus the IP header (`Body::transport_len`),
/// whenever the run is stopped: the agent adapter no longer sizes the built-in TCP ends'
/// answers again (`world/agent.rs` `deliver_to`), so their `Packet::new` size must be the
/// final one. With SACK blocks, D-SACK, timestamps and ECN on a lossy, marking path, and with
/// ns-2's header sizes, the options that change a segment's length.
#[test]
fn tcp_packets_keep_the_size_of_their_body() {
    let cases: [&[&str]; 2] = [
        &[
            "tcp.variant=\"sack\"",
            "tcp.timestamps=true",
            "tcp.dsack=true",
            "tcp.ecn=true",
            "links.bottleneck.loss=0.02",
            "links.bottleneck.errors=\"both\"",
        ],
        &[
            "tcp.variant=\"sack\"",
            "tcp.ns2_header_sizes=true",
            "links.bottleneck.loss=0.02",
        ],
    ];
    for sets in cases {
        let mut sets = sets.to_vec();
        sets.push("simulation.duration=\"3s\"");
        let sc = load(
            &line_scenario("5Mbps", "10ms", 20, "app = \"bulk\"\ncount = 3"),
            &sets,
        );
        let mut w = scenario::build(&sc, 7).unwrap();
        let (mut checked, mut sacks) = (0u64, 0u64);
        for ms in (1..3000).step_by(3) {
            w.run_until(packetsim_kernel::Time::from_millis(ms));
            for p in w.packets_alive() {
                let body = packetsim::packet::IP_HEADER_BYTES + p.body.transport_len();
                assert_eq!(p.size, body, "{sets:?}: packet {} at {ms} ms", p.uid);
                if let packetsim::packet::Body::Tcp(h) = &p.body {
                    sacks += u64::from(!h.sack.is_empty());
                }
                checked += 1;
            }
        }
        // The check saw many packets, and ACKs with SACK blocks among them.
        assert!(checked > 1000, "{sets:?}: {checked} packets checked");
        assert!(sacks > 0, "{sets:?}: no ACK with SACK blocks was in flight");
    }
}
