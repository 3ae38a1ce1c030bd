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
