//! The extension "several mobiles sharing one radio channel": its scenario and its report
//! section and files.

use super::*;
use crate::queue::QueueLimit;
use crate::scenario::{
    ErrorDirection, FlowKeys, LinkKeys, QueueSpec, ScenarioBuilder, SchedulerSpec, Sends,
    SharedChannel, TcpKeys,
};
use crate::transport::tcp::Variant;
use packetsim_kernel::{Dur, Rate};

/// The extension's scenario with two mobiles, shipped in scenarios/ ([`shared_scenario`]
/// builds it for any number; a test checks the shipped file loads as its scenario for 2).
pub const SHARED_SCENARIO: &str =
    include_str!("../../../../../scenarios/wireless-shared-channel.toml");
/// The mobile counts of the extension.
pub(super) const MOBILES: [usize; 4] = [1, 2, 4, 8];
/// The shared channel's rate (kb/s).
pub(super) const SHARED_KBPS: u32 = 1000;

/// The extension's scenario with `n` mobiles `ms1..msN` behind one 1 Mb/s radio channel: the
/// study's topology and TCP settings, the radio link's far end a node `air` joined to each
/// mobile by an ideal hop (1000 Gb/s, no delay: 8.3 ns per packet), one flow per mobile
/// starting at `starts[i]` (0.5 s for any not given), the channel served by `scheduler`.
/// For two mobiles, round robin and no starts it is scenarios/wireless-shared-channel.toml.
pub(super) fn shared_scenario(
    n: usize,
    starts: &[Dur],
    scheduler: SchedulerSpec,
) -> Result<ScenarioBuilder, String> {
    let mut b = ScenarioBuilder::new("scenarios/wireless-shared-channel.toml");
    b.duration(Dur::from_secs(100)).tcp(&TcpKeys {
        variant: Some(Variant::Reno),
        mss: Some(1000),
        initial_cwnd: Some(1),
        rcv_window: Some(16 * 1024),
        rto_initial: Some(Dur::from_secs(3)),
        rto_min: Some(Dur::from_millis(200)),
        rto_max: Some(Dur::from_secs(64)),
        granularity: Some(Dur::from_millis(100)),
        recover_guard: Some(false),
        dupack_same_window: Some(false),
        reconnection_acks: Some(3),
        ..TcpKeys::default()
    });
    let mobiles: Vec<String> = (1..=n).map(|i| format!("ms{i}")).collect();
    b.node("server").node("bs").node("air");
    for m in &mobiles {
        b.node(m);
    }
    let packets = |n| {
        Some(QueueSpec::DropTail {
            limit: QueueLimit::Packets(n),
            ns2_limit: false,
        })
    };
    b.link(
        "wired",
        &LinkKeys {
            queue: packets(50),
            ..LinkKeys::new("server", "bs", Rate(10_000_000), Dur::from_millis(25))
        },
    )?
    .link(
        "radio",
        &LinkKeys {
            queue: packets(100),
            radio_downlink: Some(ErrorDirection::AToB),
            shared_channel: Some(SharedChannel {
                mobiles: mobiles.clone(),
                scheduler,
                weights: vec![1; n],
            }),
            ..LinkKeys::new(
                "bs",
                "air",
                Rate(u64::from(SHARED_KBPS) * 1000),
                Dur::from_millis(2),
            )
        },
    )?;
    for m in &mobiles {
        let hop = LinkKeys::new("air", m, Rate(1_000_000_000_000), Dur::ZERO);
        b.link(&format!("air_{m}"), &hop)?;
    }
    for (i, m) in mobiles.iter().enumerate() {
        let flow = FlowKeys {
            from: "server".into(),
            to: m.clone(),
            start: Some(starts.get(i).copied().unwrap_or(Dur::from_millis(500))),
            kind: Sends::Tcp(TcpKeys::default()),
            diffserv: None,
        };
        b.flow(&format!("f{}", i + 1), &flow)?;
    }
    Ok(b)
}

/// The scenario of one shared-channel run: [`shared_scenario`] of `n` with the flows' starts
/// drawn from `seed` (uniform in [0, 1] s, to the microsecond), `scheduler` ("round_robin"
/// or "priority") and the `window` label's receive window set on every flow ([`set_window`]).
pub(super) fn shared_run_scenario(
    n: usize,
    window: &str,
    scheduler: &str,
    seed: u64,
) -> Result<Scenario, String> {
    let mut rng = Rng::for_component(seed, "studies.wireless-bs-buffer.shared.start");
    let starts: Vec<Dur> = (0..n)
        .map(|_| Dur::from_micros(shape::micros(rng.uniform())))
        .collect();
    let scheduler = match scheduler {
        "round_robin" => SchedulerSpec::Wrr,
        "priority" => SchedulerSpec::Priority,
        other => return Err(format!("unknown shared-channel scheduler {other:?}")),
    };
    let mut sc = shared_scenario(n, &starts, scheduler)?
        .build()
        .map_err(|e| e.to_string())?;
    set_window(&mut sc, window, 0.5)?;
    Ok(sc)
}

pub(super) fn at_nw(n: usize, w: &str) -> Vec<(&'static str, String)> {
    vec![("mobiles", n.to_string()), ("window", w.to_string())]
}

/// The shared-channel extension's report section and files (CSVs, SVGs).
pub(super) fn shared_report(
    rr: &Data,
    prio: &Data,
    mobiles: &[usize],
) -> (String, Vec<(String, String)>) {
    let mut md = String::new();
    let mut files = Vec::new();
    files.push(shared_table(rr, mobiles, &mut md));
    shared_findings(rr, mobiles, &mut md);
    files.push(shared_queues(rr, prio, mobiles, &mut md));
    files.extend(shared_charts(rr, mobiles, &mut md));
    (md, files)
}

/// The section's table of every N and window (written to `md`) and its CSV.
pub(super) fn shared_table(rr: &Data, mobiles: &[usize], md: &mut String) -> (String, String) {
    let _ = writeln!(
        *md,
        "\n## Extension: several mobiles sharing one radio channel\n\n\
         N mobiles behind one {SHARED_KBPS} kb/s radio channel (scenarios/wireless-shared-channel.toml \
         is N = 2; the study writes the same file for N = {}), one bulk transfer from the server to each \
         mobile, starts U[0, 1] s, 100 s, first 10 s discarded. The base station keeps one downlink queue \
         per mobile (100 packets each) behind the channel's one transmitter (`shared_channel`), and writes \
         into each packet the bytes still queued for that packet's mobile, so each mobile's `bs_buffer` \
         window follows its own queue, not the others'. Scheduler: packet round robin, one packet per \
         backlogged mobile in turn. Why: it needs nothing but the per-mobile queues the base station \
         already keeps (no per-connection state, spec §2.1), it is work conserving, and with one packet \
         size (1040 B) it is byte-fair like deficit round robin; every mobile has the same channel here, \
         so a channel-aware (proportional fair) scheduler would have nothing to exploit. Strict priority \
         is run at N = 4 as the contrast. The mobiles hang off the channel by ideal hops (1000 Gb/s, no \
         delay: 8.3 ns per packet). Aggregate goodput = payload delivered in order to all mobiles; \
         fairness = Jain's index over the mobiles' goodputs; BS queue = the sum of the per-mobile \
         queues' exact time averages (packets waiting × 1040 B). Mean (95% CI) over {} runs.\n\n\
         | N | window | aggregate goodput (kb/s) | fraction of W | Jain | per-mobile min / max (kb/s) | \
         BS queue (KB) | largest mobile queue (KB) | drops | delay (ms) | p95 delay (ms) |\n\
         |---|---|---|---|---|---|---|---|---|---|---|",
        mobiles
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        rr.runs.first().map_or(0, |r| r.len())
    );
    let metrics = [
        "agg_kbps",
        "frac",
        "jain",
        "min_kbps",
        "max_kbps",
        "occ_kb",
        "occ_max_kb",
        "drops",
        "delay_ms",
        "delay_p95_ms",
        "timeouts",
    ];
    let mut csv = csv_with_header(&["mobiles", "window"], &metrics);
    for &n in mobiles {
        for w in WINDOWS {
            let e = |m: &str| rr.est(&at_nw(n, w), m);
            let _ = writeln!(
                *md,
                "| {n} | {} | {} | {:.3} | {} | {:.0} / {:.0} | {} | {:.2} | {:.1} | {:.0} | {:.0} |",
                window_label(w),
                e("agg_kbps").show(0),
                e("frac").mean,
                e("jain").show(3),
                e("min_kbps").mean,
                e("max_kbps").mean,
                e("occ_kb").show(2),
                e("occ_max_kb").mean,
                e("drops").mean,
                e("delay_ms").mean,
                e("delay_p95_ms").mean,
            );
            let stats = mean_ci_fields(&metrics, e);
            csv.row([n.to_string(), window_label(w)].into_iter().chain(stats));
        }
    }
    ("ext-mobiles.csv".to_string(), csv.finish())
}

/// What the table shows, from its own numbers.
pub(super) fn shared_findings(rr: &Data, mobiles: &[usize], md: &mut String) {
    if let (Some(&n_max), true) = (mobiles.last(), mobiles.contains(&1)) {
        let e = |n: usize, w: &str, m: &str| rr.est(&at_nw(n, w), m).mean;
        let ratios: Vec<String> = mobiles
            .iter()
            .map(|&n| {
                format!(
                    "{:.2} at N = {n}",
                    e(n, "p16", "occ_kb") / e(n, "16", "occ_kb")
                )
            })
            .collect();
        let min_jain = mobiles
            .iter()
            .flat_map(|&n| WINDOWS.iter().map(move |w| (n, *w)))
            .map(|(n, w)| e(n, w, "jain"))
            .fold(f64::INFINITY, f64::min);
        let pipe = 16.0 - e(1, "16", "occ_kb");
        let _ = writeln!(
            *md,
            "\nBS queue, proposal over fixed 16 KB: {}. From 1 to {n_max} mobiles the proposal's BS \
             queue goes from {:.1} to {:.1} KB (delay {:.0} to {:.0} ms) and fixed 16 KB's from {:.1} to \
             {:.1} KB ({:.0} to {:.0} ms). Each mobile's report counts only its own queue, so every \
             proposal receiver settles where its own queue is half of W_max less its share of the pipe: \
             the total is about (N × 16 − {pipe:.1}) / 2 KB ({pipe:.1} KB = 16 KB less fixed 16 KB's \
             queue at N = 1, the whole channel's pipe), half of a fixed 16 KB window's N × 16 − {pipe:.1}, \
             and it grows with N as the fixed windows' do. Per-mobile queues and reports do not let \
             the proposal see the load the other mobiles put on the channel; a report of the whole \
             base-station queue would bound the total instead (not run: spec §2.3 reports the \
             mobile's queue). With identical mobiles and round robin every window shares the channel \
             evenly (Jain's index at least {min_jain:.3} in every row, aggregate goodput {:.0} kb/s for \
             the proposal at N = {n_max}); unequal shares would need mobiles with different channels or \
             round-trip times, which this extension does not model. Fixed 4 KB leaves the channel \
             {:.0}% idle with one mobile and fills it once several share it ({:.3} of W at N = {n_max}).",
            ratios.join(", "),
            e(1, "p16", "occ_kb"),
            e(n_max, "p16", "occ_kb"),
            e(1, "p16", "delay_ms"),
            e(n_max, "p16", "delay_ms"),
            e(1, "16", "occ_kb"),
            e(n_max, "16", "occ_kb"),
            e(1, "16", "delay_ms"),
            e(n_max, "16", "delay_ms"),
            e(n_max, "p16", "agg_kbps"),
            100.0 * (1.0 - e(1, "4", "frac")),
            e(n_max, "4", "frac"),
        );
    }
}

/// The per-queue report (written to `md`) and its CSV.
pub(super) fn shared_queues(
    rr: &Data,
    prio: &Data,
    mobiles: &[usize],
    md: &mut String,
) -> (String, String) {
    // Per-queue report: every mobile's queue at N = 4 (or the largest N below it).
    let n_q = mobiles
        .iter()
        .copied()
        .filter(|&n| n <= 4)
        .max()
        .unwrap_or(1);
    let mut qcsv = CsvText::new();
    qcsv.row([
        "scheduler",
        "mobiles",
        "window",
        "mobile",
        "occ_kb",
        "drops",
        "sent",
        "goodput_kbps",
        "report_kb",
    ]);
    let _ = writeln!(
        md,
        "\nPer-queue report at N = {n_q} (mean over runs; sent = packets the mobile's queue gave the \
         transmitter in [10 s, 100 s); report = mean Q the mobile received):\n\n\
         | scheduler | window | mobile | occupancy (KB) | drops | sent | goodput (kb/s) | mean report (KB) |\n\
         |---|---|---|---|---|---|---|---|"
    );
    let mut per_queue = |sched: &str, data: &Data, at: Vec<(&'static str, String)>, w: &str| {
        for k in 1..=n_q {
            let e = |m: &str| data.est(&at, &format!("m{k}_{m}")).mean;
            let _ = writeln!(
                md,
                "| {sched} | {} | ms{k} | {:.2} | {:.1} | {:.0} | {:.0} | {:.2} |",
                window_label(w),
                e("occ_kb"),
                e("drops"),
                e("sent"),
                e("kbps"),
                e("report_kb")
            );
            let means =
                ["occ_kb", "drops", "sent", "kbps", "report_kb"].map(|m| format!("{:.4}", e(m)));
            qcsv.row(
                [
                    sched.to_string(),
                    n_q.to_string(),
                    window_label(w),
                    format!("ms{k}"),
                ]
                .into_iter()
                .chain(means),
            );
        }
    };
    for w in ["16", "p16"] {
        per_queue("round robin", rr, at_nw(n_q, w), w);
    }
    if n_q == 4 {
        for w in ["16", "p16"] {
            let mut at = at_nw(4, w);
            at.push(("scheduler", "priority".into()));
            per_queue("priority", prio, at, w);
        }
        let e = |w: &str, m: &str| {
            let mut at = at_nw(4, w);
            at.push(("scheduler", "priority".into()));
            prio.est(&at, m).mean
        };
        let _ = writeln!(
            md,
            "\nStrict priority at N = 4: Jain's index {:.3} (fixed 16 KB) and {:.3} (proposal) against \
             {:.3} and {:.3} with round robin; aggregate goodput {:.0} and {:.0} kb/s.",
            e("16", "jain"),
            e("p16", "jain"),
            rr.est(&at_nw(4, "16"), "jain").mean,
            rr.est(&at_nw(4, "p16"), "jain").mean,
            e("16", "agg_kbps"),
            e("p16", "agg_kbps"),
        );
    }
    ("ext-mobiles-queues.csv".to_string(), qcsv.finish())
}

/// The section's three charts over N (linked from `md`).
pub(super) fn shared_charts(
    rr: &Data,
    mobiles: &[usize],
    md: &mut String,
) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (metric, name, title, y) in [
        (
            "agg_kbps",
            "ext-mobiles-goodput.svg",
            "aggregate goodput",
            "goodput (kb/s)",
        ),
        (
            "jain",
            "ext-mobiles-fairness.svg",
            "fairness",
            "Jain's index",
        ),
        (
            "occ_kb",
            "ext-mobiles-queue.svg",
            "BS queue (all mobiles)",
            "occupancy (KB)",
        ),
    ] {
        let chart = LineChart {
            title: format!("Extension: N mobiles on one {SHARED_KBPS} kb/s channel, {title}"),
            x_label: "mobiles N".into(),
            y_label: format!("{y}, mean and 95% CI"),
            curves: WINDOWS
                .iter()
                .map(|w| {
                    curve(
                        window_label(w),
                        mobiles
                            .iter()
                            .map(|&n| (n as f64, rr.est(&at_nw(n, w), metric)))
                            .collect(),
                    )
                })
                .collect(),
            non_negative: true,
        };
        files.push((name.to_string(), chart.to_svg()));
        let _ = writeln!(md, "\n![{title}]({name})");
    }
    files
}
