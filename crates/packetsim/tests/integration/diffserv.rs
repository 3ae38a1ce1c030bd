//! DiffServ and ECN end to end: WRR shares, the edge token-bucket marker, ECN through RED.

use super::load;
use packetsim::scenario;

/// Three senders into an edge router r1, a 5 Mb/s bottleneck r1 -> r2 with `queue`, one
/// receiver; `flows` appended verbatim.
fn diffserv_net(queue: &str, edge: bool, flows: &str) -> String {
    let edge = if edge {
        "diffserv_edge = \"a_to_b\""
    } else {
        ""
    };
    let mut s = String::from("[simulation]\nduration = \"20s\"\n\n[nodes.s1]\n[nodes.s2]\n[nodes.s3]\n[nodes.r1]\n[nodes.r2]\n[nodes.d]\n");
    for i in 1..=3 {
        s += &format!("\n[links.in{i}]\na = \"s{i}\"\nb = \"r1\"\nrate = \"10Mbps\"\ndelay = \"100us\"\nqueue = {{ limit = 1000 }}\n");
    }
    s += &format!("\n[links.core]\na = \"r1\"\nb = \"r2\"\nrate = \"5Mbps\"\ndelay = \"1ms\"\nqueue = {queue}\n{edge}\n");
    s += "\n[links.out]\na = \"r2\"\nb = \"d\"\nrate = \"100Mbps\"\ndelay = \"100us\"\nqueue = { limit = 1000 }\n";
    s + flows
}

const WRR_QUEUE: &str = r#"{ kind = "wrr", classes = [
    { name = "ef", dscp = [46], weight = 1, queue = { kind = "droptail", limit = 50 } },
    { name = "af", dscp = [10, 12, 14], weight = 4, queue = { kind = "rio" } },
    { name = "be", weight = 5, queue = { kind = "red", red = { min_th = 50, max_th = 180, max_p = 0.05, limit = 200 } } },
] }"#;

// spec 4 §2.2 item 4: under saturation each class gets its weight's share of the link.
#[test]
fn wrr_saturated_classes_get_their_weight_share_within_2_percent() {
    let flows = r#"
[flows.ef]
from = "s1"
to = "d"
kind = "cbr"
rate = "4Mbps"
dscp = 46

[flows.af]
from = "s2"
to = "d"
kind = "cbr"
rate = "4Mbps"
dscp = 10

[flows.be]
from = "s3"
to = "d"
kind = "cbr"
rate = "4Mbps"
"#;
    let sc = load(&diffserv_net(WRR_QUEUE, false, flows), &[]);
    let out = scenario::run(&sc, 1).unwrap();
    let g = |f: &str| out.summary.flows[f].goodput_bps;
    let total = g("ef") + g("af") + g("be");
    for (f, w) in [("ef", 0.1), ("af", 0.4), ("be", 0.5)] {
        let share = g(f) / total;
        assert!(
            (share - w).abs() <= 0.02 * w,
            "{f}: share {share:.4}, weight share {w}"
        );
    }
    let core = &out.summary.queues["core:r1->r2"];
    assert!(core.utilisation > 0.99, "saturated: {}", core.utilisation);
    assert!(
        out.summary.queues.contains_key("core:r1->r2/af"),
        "per-class queues are reported"
    );
    assert_eq!(out.world.check_conservation(), Ok(()));
}

// spec 4 §2.2 item 2: a token bucket at the edge marks exactly the traffic beyond the profile OUT.
#[test]
fn edge_token_bucket_marks_traffic_beyond_the_profile_out() {
    let flows = r#"
[flows.af]
from = "s1"
to = "d"
kind = "cbr"
rate = "1Mbps"
packet_size = 1000
diffserv = { class = "af", marker = { kind = "token_bucket", rate = "500kbps", depth = 2056 } }

[flows.be]
from = "s2"
to = "d"
kind = "cbr"
rate = "1Mbps"
"#;
    let sc = load(&diffserv_net(WRR_QUEUE, true, flows), &[]);
    let out = scenario::run(&sc, 1).unwrap();
    let af = &out.summary.flows["af"];
    let marked = (af.marked_in + af.marked_out) as f64;
    assert_eq!(
        af.marked_in + af.marked_out,
        af.segments_sent,
        "every data packet is metered"
    );
    let in_share = af.marked_in as f64 / marked;
    assert!(
        (in_share - 0.5).abs() < 0.01,
        "profile is half the rate: IN share {in_share}"
    );
    let q = &out.summary.queues["core:r1->r2/af"];
    assert_eq!(q.precedence_in.arrivals, af.marked_in);
    assert_eq!(q.precedence_out.arrivals, af.marked_out);
    assert_eq!(
        out.summary.flows["be"].marked_in + out.summary.flows["be"].marked_out,
        0,
        "BE has no profile: not metered"
    );
    assert_eq!(
        out.summary.queues["core:r1->r2/be"].arrivals,
        out.summary.flows["be"].segments_sent
    );
}

// RFC 3168 with RED (RFC 3168 §5: mark ECT packets instead of dropping them early).
#[test]
fn ecn_through_red_marks_instead_of_dropping() {
    let flows = r#"
[tcp]
variant = "reno"
mss = 1000
rcv_window = "200KiB"
rto_min = "200ms"

[flows.t]
from = "s1"
to = "d"
count = 4
stagger = "100ms"
"#;
    let red = r#"{ kind = "red", red = { min_th = 5, max_th = 15, max_p = 0.1, limit = 60, weight = 0.002, ecn = "standard" } }"#;
    let run = |ecn: bool| {
        let sc = load(
            &diffserv_net(red, false, flows),
            &[&format!("tcp.ecn={ecn}")],
        );
        scenario::run(&sc, 3).unwrap()
    };
    let (with, without) = (run(true), run(false));
    let q = &with.summary.queues["core:r1->r2"];
    assert!(q.marks > 0, "RED marks ECT packets");
    let ce: u64 = with.summary.flows.values().map(|f| f.ce_received).sum();
    let cuts: u64 = with.summary.flows.values().map(|f| f.ecn_reductions).sum();
    assert_eq!(
        ce, q.marks,
        "every mark reaches a receiver (no loss after the queue)"
    );
    assert!(cuts > 0 && cuts <= ce);
    let early_without = without.summary.queues["core:r1->r2"]
        .drops_by_reason
        .get("early")
        .copied()
        .unwrap_or(0);
    let early_with = q.drops_by_reason.get("early").copied().unwrap_or(0);
    // With ECN only packets that may not carry ECT are dropped early: retransmissions and SYNs
    // (RFC 3168 §6.1.5, §6.1.1).
    assert!(
        early_without > 0 && early_with * 10 < early_without,
        "early drops {early_without} without ECN, {early_with} with"
    );
    let rtx = |o: &scenario::Outcome| o.summary.flows.values().map(|f| f.retransmits).sum::<u64>();
    assert!(
        rtx(&with) < rtx(&without),
        "ECN avoids retransmissions: {} vs {}",
        rtx(&with),
        rtx(&without)
    );
}

#[test]
fn bad_diffserv_input_names_the_key() {
    let cbr = "\n[flows.f]\nfrom = \"s1\"\nto = \"d\"\nkind = \"cbr\"\nrate = \"1Mbps\"\n";
    let cases = [
        (WRR_QUEUE.replace("weight = 4", "weight = 0"), cbr.to_string(), "links.core.queue.classes[1].weight"),
        (WRR_QUEUE.replace("min_th = 50, max_th = 180", "min_th = 180, max_th = 50"), cbr.to_string(), "links.core.queue.classes[2].queue.red"),
        (
            WRR_QUEUE.to_string(),
            cbr.to_string() + "diffserv = { class = \"af\", marker = { kind = \"token_bucket\", depth = 2000 } }\n",
            "flows.f.diffserv.marker",
        ),
        (WRR_QUEUE.replace(", queue = { kind = \"droptail\", limit = 50 }", ""), cbr.to_string(), "links.core.queue.classes[0]"),
    ];
    for (queue, flows, key) in cases {
        let text = diffserv_net(&queue, true, &flows);
        let err = scenario::load_str(&text, "ds.toml", &[])
            .err()
            .unwrap_or_else(|| panic!("accepted: {key}"))
            .to_string();
        assert!(err.starts_with("ds.toml:"), "{err}");
        assert!(err.contains(key), "expected {key} in: {err}");
    }
}

#[test]
fn queue_ba_gives_the_reverse_direction_its_own_queue() {
    let text = diffserv_net(WRR_QUEUE, true, "").replace(
        "diffserv_edge",
        "queue_ba = { kind = \"droptail\", limit = 7 }\n# diffserv_edge",
    );
    let sc = load(&text, &[]);
    let core = sc.links.iter().find(|l| l.name == "core").unwrap();
    assert!(core.queue_ba.is_some());
    let world = scenario::build(&sc, 1).unwrap();
    let link = world.net.links.iter().find(|l| l.name == "core").unwrap();
    assert!(world.net.egresses[link.ab.idx()].is_classful());
    assert!(
        !world.net.egresses[link.ba.idx()].is_classful(),
        "r2 -> r1 is a plain FIFO"
    );
}
