//! Active queue management end to end: step marking with DCTCP.

use super::load;
use packetsim::scenario;

/// `n` senders s1..sn into r1 (100 Mb/s), a 10 Mb/s, 5 ms bottleneck r1 -> r2 with `queue`,
/// one receiver d; `[tcp]` from `tcp`, one flow per sender (`extra` appended to each).
fn aqm_net(n: usize, queue: &str, tcp: &str, extra: &str) -> String {
    let mut s =
        String::from("[simulation]\nduration = \"10s\"\n\n[nodes.r1]\n[nodes.r2]\n[nodes.d]\n");
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
