//! SCTP through the whole simulator: interface-bound addresses route each destination over its
//! own path, replies return on the path they were triggered from, and the transfer completes.

use super::{load, scenarios_dir};
use packetsim::scenario;

fn multihoming(sets: &[&str]) -> scenario::Outcome {
    let text = std::fs::read_to_string(scenarios_dir().join("sctp-multihoming.toml")).unwrap();
    let sc = load(&text, sets);
    scenario::run(&sc, 11).unwrap_or_else(|e| panic!("{e}"))
}

/// Data packets (over 1000 B) that crossed a queue, and all packets that crossed it.
fn crossed(out: &scenario::Outcome, queue: &str) -> u64 {
    out.summary.queues[queue].departures
}

#[test]
fn alternate_policy_sends_retransmissions_over_path1_and_sacks_come_back_on_it() {
    // RFC 2960 §6.4: retransmissions to the alternate destination D1, which is bound to path1;
    // the SACKs they trigger return to S1 over path1 (RFC 4960 §6.4, spec 3 Q8).
    let alt = multihoming(&["links.path0_core.loss=0.03"]);
    let f = &alt.summary.flows["file"];
    assert_eq!(f.bytes_delivered, 4 * 1024 * 1024);
    assert!(f.transfer_time_s.is_some() && f.completion_time_s > f.transfer_time_s);
    let sctp = f.sctp.as_ref().expect("sctp diagnostics");
    let rtx1 = sctp.paths["1"].retransmitted_chunks;
    assert!(rtx1 > 20, "retransmissions on path1: {rtx1}");
    assert_eq!(
        sctp.paths["0"].retransmitted_chunks, 0,
        "alternate: nothing resent to D0"
    );
    let fwd1 = crossed(&alt, "path1_core:R1a->R1b");
    let back1 = crossed(&alt, "path1_core:R1b->R1a");
    assert!(fwd1 >= rtx1, "path1 forward carried {fwd1} packets");
    assert!(back1 > 0, "SACKs for path1's chunks return on path1");
    alt.world.check_conservation().unwrap();

    // Under `same`, path1 carries only heartbeats (and their acks).
    let same = multihoming(&[
        "links.path0_core.loss=0.03",
        "flows.file.sctp.rtx_policy=\"same\"",
    ]);
    let s = same.summary.flows["file"].sctp.as_ref().unwrap();
    assert_eq!(s.paths["1"].retransmitted_chunks, 0);
    let hb1 = s.paths["1"].heartbeats_sent;
    assert!(hb1 >= 1, "at least the setup heartbeat");
    assert_eq!(crossed(&same, "path1_core:R1a->R1b"), hb1);
}

#[test]
fn single_homed_association_never_touches_path1() {
    let out = multihoming(&[
        "links.path0_core.loss=0.01",
        "flows.file.from_addresses=[\"S0\"]",
        "flows.file.to_addresses=[\"D0\"]",
    ]);
    assert_eq!(out.summary.flows["file"].bytes_delivered, 4 * 1024 * 1024);
    assert_eq!(crossed(&out, "path1_core:R1a->R1b"), 0);
    assert_eq!(crossed(&out, "path1_core:R1b->R1a"), 0);
    assert!(packetsim::report::sctp_rto_csv(&out.world)
        .unwrap()
        .starts_with("time_s,flow,destination,address,rto_s\n0,file,0,"));
}
