//! Active queue management end to end: step marking with DCTCP, CoDel, FQ-CoDel and PIE as
//! link queues in whole scenarios, with their bookkeeping identities.

use super::load;
use packetsim::scenario;

/// `n` senders s1..sn into r1 (100 Mb/s), a 10 Mb/s, 5 ms bottleneck r1 -> r2 with `queue`,
/// one receiver d; `[tcp]` from `tcp`, one flow per sender (`extra` appended to each).
fn aqm_net(n: usize, queue: &str, tcp: &str, extra: &str) -> String {
    // profile = "standard": the TCP keys are the ones written (DCTCP alone would imply
    // Linux's, issue 33), as when these tests were written.
    let mut s = String::from(
        "profile = \"standard\"\n[simulation]\nduration = \"10s\"\n\n[nodes.r1]\n[nodes.r2]\n[nodes.d]\n",
    );
    for i in 1..=n {
        s += &format!("[nodes.s{i}]\n");
    }
    for i in 1..=n {
        s += &format!("\n[links.in{i}]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\nqueue = {{ limit = 1000 }}\n");
    }
    s += &format!("\n[links.core]\na = \"r1\"\nb = \"r2\"\nrate = \"10Mbps\"\ndelay = \"5ms\"\nqueue = {queue}\n");
    s += "\n[links.out]\na = \"r2\"\nb = \"d\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\nqueue = { limit = 1000 }\n";
    s += &format!("\n[tcp]\n{tcp}\n");
    for i in 1..=n {
        s += &format!(
            "\n[flows.f{i}]\nfrom = \"s{i}\"\nto = \"d\"\nstart = \"{}ms\"\n{extra}\n",
            100 * i
        );
    }
    s
}

const DCTCP: &str = "variant = \"dctcp\"\necn = true\necn_echo = \"per_segment\"\nmss = 1460\nrcv_window = \"1MiB\"";

/// The queue's books balance: arrivals = departures + drops + still waiting (never negative).
fn balanced(q: &packetsim::report::QueueSummary) {
    assert!(
        q.arrivals >= q.departures + q.drops,
        "arrivals {} < departures {} + drops {}",
        q.arrivals,
        q.departures,
        q.drops
    );
    assert_eq!(
        q.drops,
        q.drops_by_reason.values().sum::<u64>(),
        "drops by reason add up"
    );
}

// RFC 8257 §3.1: a DCTCP switch marks above K and DCTCP senders hold the queue near K. Two
// DCTCP flows through a step queue (K = 20, limit 100): the mean queue stays within a few
// packets of K, nothing overflows, the link stays busy; the same flows through DropTail 100
// fill the buffer.
#[test]
fn dctcp_through_a_step_queue_holds_the_queue_near_k() {
    let step = r#"{ kind = "red", red = { step = 20, ecn = "standard", limit = 100 } }"#;
    let out = scenario::run(&load(&aqm_net(2, step, DCTCP, ""), &[]), 1).unwrap();
    let q = &out.summary.queues["core:r1->r2"];
    balanced(q);
    eprintln!("{q:?}");
    assert!(q.marks > 100, "marks {}", q.marks);
    assert_eq!(q.drops_by_reason.get("overflow"), None, "{q:?}");
    assert!(
        (17.0..=22.0).contains(&q.mean_len_pkts),
        "mean queue {} with K = 20",
        q.mean_len_pkts
    );
    assert!(q.utilisation > 0.97, "utilisation {}", q.utilisation);
    out.world
        .net
        .egresses
        .iter()
        .for_each(|e| e.check_conservation().unwrap());
    let tail = r#"{ kind = "droptail", limit = 100 }"#;
    let out = scenario::run(&load(&aqm_net(2, tail, DCTCP, ""), &[]), 1).unwrap();
    let q = &out.summary.queues["core:r1->r2"];
    assert!(q.mean_len_pkts > 40.0, "droptail mean {}", q.mean_len_pkts);
}

const RENO: &str = "variant = \"newreno\"\nmss = 1460\nrcv_window = \"4MiB\"";

/// Runs `n` flows through the bottleneck `queue` with `[tcp]` `tcp`; checks every direction's
/// books and returns the bottleneck's summary.
fn bottleneck(n: usize, queue: &str, tcp: &str) -> packetsim::report::QueueSummary {
    let out = scenario::run(&load(&aqm_net(n, queue, tcp, ""), &[]), 1).unwrap();
    for e in &out.world.net.egresses {
        e.check_conservation().unwrap();
        let q = &out.summary.queues[&e.name];
        balanced(q);
        assert_eq!(
            q.arrivals,
            q.departures + q.drops + e.len().packets as u64,
            "{}: arrivals = departures + drops + queued",
            e.name
        );
    }
    out.summary.queues["core:r1->r2"].clone()
}

// RFC 8289: CoDel keeps the standing queue short (target 5 ms = about 4 packets of 1500 B at
// 10 Mb/s; the 10 s mean, slow start included, stays under 20 packets) where a 1000-packet
// DropTail fills up, dropping at dequeue (reason early) and keeping the link busy. With
// ECN-capable senders and `ecn = true` it marks instead.
#[test]
fn codel_keeps_the_standing_queue_short_and_marks_with_ecn() {
    let codel = r#"{ kind = "codel" }"#;
    let q = bottleneck(4, codel, RENO);
    eprintln!("codel {q:?}");
    assert!(q.mean_len_pkts < 20.0, "mean queue {}", q.mean_len_pkts);
    assert!(q.drops_by_reason.get("early").copied().unwrap_or(0) > 0);
    assert_eq!(q.drops_by_reason.get("overflow"), None);
    assert!(q.utilisation > 0.9, "utilisation {}", q.utilisation);
    let tail = bottleneck(4, r#"{ kind = "droptail", limit = 1000 }"#, RENO);
    assert!(
        tail.mean_len_pkts > 100.0,
        "droptail mean {}",
        tail.mean_len_pkts
    );
    let ecn = bottleneck(
        4,
        r#"{ kind = "codel", codel = { ecn = true } }"#,
        &format!("{RENO}\necn = true"),
    );
    eprintln!("codel ecn {ecn:?}");
    assert!(ecn.marks > 0);
    assert!(ecn.mean_len_pkts < 25.0, "mean queue {}", ecn.mean_len_pkts);
    assert!(
        ecn.drops * 4 < q.drops,
        "marks replace drops: {} vs {}",
        ecn.drops,
        q.drops
    );
}

// RFC 8290: a thin flow beside fat ones. Three bulk TCP flows fill the bottleneck; a CBR
// flow of 100 kb/s (1% of the link) crosses it too. Through FQ-CoDel the thin flow's packets
// join an empty flow queue and leave almost at once (nothing of it is dropped, its queue
// stays empty), while through a 200-packet DropTail they wait behind the bulk flows and are
// dropped with them.
#[test]
fn fq_codel_isolates_a_thin_flow_from_fat_ones() {
    let thin = "\n[nodes.sc]\n\n[links.inc]\na = \"sc\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n\n[flows.thin]\nfrom = \"sc\"\nto = \"d\"\nkind = \"cbr\"\nrate = \"100kbps\"\npacket_size = 200\n";
    let run = |queue: &str| {
        let text = aqm_net(3, queue, RENO, "") + thin;
        let out = scenario::run(&load(&text, &[]), 1).unwrap();
        for e in &out.world.net.egresses {
            e.check_conservation().unwrap();
        }
        out
    };
    let fq = run(r#"{ kind = "fq_codel", fq_codel = { ecn = false } }"#);
    let tail = run(r#"{ kind = "droptail", limit = 200 }"#);
    let f = &fq.summary.flows["thin"];
    let t = &tail.summary.flows["thin"];
    eprintln!(
        "fq {f:?}\ntail {t:?}\nq {:?}",
        fq.summary.queues["core:r1->r2"]
    );
    let q = &fq.summary.queues["core:r1->r2"];
    balanced(q);
    assert!(q.drops > 0, "the fat flows are dropped: {q:?}");
    // At most one packet in flight at the end; none lost.
    assert!(
        f.bytes_sent - f.bytes_delivered <= 228,
        "the thin flow loses nothing: {f:?}"
    );
    assert!(
        t.bytes_sent - t.bytes_delivered > 1000,
        "behind DropTail it loses packets"
    );
}

// RFC 8033: PIE holds the queue delay near its target (15 ms, about 12.5 packets of 1500 B
// at 10 Mb/s) by early drops at enqueue where a 1000-packet DropTail fills up; with ECN it
// marks instead while the probability is at most 10%.
#[test]
fn pie_holds_the_delay_near_target_and_marks_with_ecn() {
    let q = bottleneck(4, r#"{ kind = "pie" }"#, RENO);
    eprintln!("pie {q:?}");
    assert!(q.mean_len_pkts < 30.0, "mean queue {}", q.mean_len_pkts);
    assert!(q.drops_by_reason.get("early").copied().unwrap_or(0) > 0);
    assert_eq!(q.drops_by_reason.get("overflow"), None);
    assert!(q.utilisation > 0.9, "utilisation {}", q.utilisation);
    let ecn = bottleneck(
        4,
        r#"{ kind = "pie", pie = { ecn = true } }"#,
        &format!("{RENO}\necn = true"),
    );
    eprintln!("pie ecn {ecn:?}");
    assert!(ecn.marks > 0);
    assert!(ecn.mean_len_pkts < 30.0, "mean queue {}", ecn.mean_len_pkts);
}

/// ns-2.35 queue/drop-tail.cc `DropTail::enque` drops when `length() + 1 >= qlim_`: a queue of
/// `qlim_ 10` never holds more than 9 waiting packets. Two Reno flows overflow the same
/// bottleneck with `limit = 10`: the default rule lets 10 wait, `ns2_limit = true` 9.
#[test]
fn droptail_ns2_limit_keeps_one_packet_fewer_waiting() {
    for (queue, max) in [
        (r#"{ kind = "droptail", limit = 10 }"#, 10.0),
        (
            r#"{ kind = "droptail", limit = 10, ns2_limit = true }"#,
            9.0,
        ),
    ] {
        let out = scenario::run(&load(&aqm_net(2, queue, RENO, ""), &[]), 1).unwrap();
        let q = &out.summary.queues["core:r1->r2"];
        balanced(q);
        assert!(q.drops > 10, "{queue}: the flows must overflow it ({q:?})");
        assert_eq!(q.max_len_pkts, max, "{queue}");
    }
}

/// `simulation.tie_order` on the issue 14 dumbbell (bench/validate/ns2profile): flows f0 and
/// f2 have round trips 18 ms = 15 packet times of the 10 Mb/s bottleneck apart, so their
/// packets reach the full DropTail queue at the same nanosecond again and again. FIFO ties go
/// the same way every time (f2's arrival was scheduled first, over its longer access link) and
/// f2 takes six times f0's bytes; ns-2.35, whose floating-point times put such arrivals a
/// rounding error apart in either order, shares the link between them (3.6 and 3.6 Mb/s over
/// 50 seeds). `tie_order = "random"` shares it too, and is reproducible at a seed.
#[test]
fn random_tie_order_shares_the_ties_of_a_droptail_dumbbell() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/validate/ns2profile/dumbbell_aqm.toml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let bytes = |tie: &str| -> Vec<u64> {
        let tie = format!("simulation.tie_order=\"{tie}\"");
        let sc = load(
            &text,
            &[
                "profile=\"ns2\"",
                r#"links.bottleneck.queue={ kind = "droptail", limit = 50, ns2_limit = true }"#,
                &tie,
            ],
        );
        let out = scenario::run(&sc, 1).unwrap();
        (0..4)
            .map(|i| out.summary.flows[&format!("f{i}")].bytes_delivered)
            .collect()
    };
    let fifo = bytes("fifo");
    assert!(fifo[2] > 4 * fifo[0], "FIFO ties favour f2: {fifo:?}");
    let random = bytes("random");
    let ratio = random[2] as f64 / random[0] as f64;
    assert!(
        (0.67..1.5).contains(&ratio),
        "random ties share: {random:?}"
    );
    assert_eq!(bytes("random"), random, "reproducible at a seed");
}
