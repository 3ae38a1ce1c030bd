//! Study 1's cell link from a scenario file (`kind = "atm"`, `atm::port`) against the
//! self-contained cell-level driver (`atm::sim`) on the same configuration.
//!
//! What must agree: the scenario path puts a link of `kind = "atm"` between a host with the
//! TCP senders and a host with the receivers; its a→b direction is the senders' AAL5 adapters
//! (one VC per flow) and the switch output, its b→a direction carries the ACKs as cells. The
//! driver with `TimeBase::Continuous` (exact endpoint times, cells on the slot grid, same-slot
//! arrivals in port order), zero processing delays, greedy senders and the same TCP
//! configuration models the same network, with one difference: its ACK path is one
//! uncongested path per connection, while the scenario's ACKs of all connections share the
//! b→a cell port (one cell per slot). With one connection there is nothing to share; with two,
//! the runs below still give the same counters (see the second test).

use super::load;
use packetsim::atm::sim::{self, AtmNetConfig, TimeBase};
use packetsim::atm::Discard;
use packetsim::queue::DropReason;
use packetsim::scenario::{self, FlowKind};
use packetsim_kernel::Dur;

/// `n` greedy Reno flows from `h` to `r` over one atm link of 21.2 Mb/s (20 µs slots) with a
/// 0.5 ms delay, B = 200 cells, run for `slots` slots.
fn scenario_text(n: u32, discard: &str, slots: u64) -> String {
    let mut s = format!(
        r#"
[simulation]
duration = "{}us"

[tcp]
variant = "reno"
mss = 4312
initial_cwnd = 1
rcv_window = 65535
rto_initial = "3s"
rto_min = "200ms"
rtt_estimator = "bsd"
tick = "10ms"

[nodes.h]
[nodes.r]

[links.cells]
a = "h"
b = "r"
kind = "atm"
rate = "21.2Mbps"
delay = "500us"
switch_buffer = 200
{discard}
arrival_order = "port"
"#,
        slots * 20
    );
    for i in 0..n {
        s.push_str(&format!("\n[flows.f{i}]\nfrom = \"h\"\nto = \"r\"\n"));
    }
    s
}

/// The driver's configuration for the same network.
fn driver(sc: &scenario::Scenario, n: u16, discard: Discard, slots: u64) -> AtmNetConfig {
    let FlowKind::Tcp { tcp, .. } = &sc.flow_tables[0].first.kind else {
        panic!("a tcp flow")
    };
    let mut cfg = AtmNetConfig::background(4352, 200, discard, 0.0, 1.0);
    cfg.connections = n;
    cfg.switch.vcs = n;
    cfg.slot = Dur::from_micros(20);
    cfg.time_base = TimeBase::Continuous;
    cfg.tcp = tcp.clone();
    cfg.prop = Dur::from_micros(500);
    cfg.slots = slots;
    cfg
}

struct Both {
    /// Per flow: bytes sent, retransmits, timeouts, bytes delivered (scenario path).
    world: Vec<[u64; 4]>,
    /// The same from the driver.
    drv: Vec<[u64; 4]>,
    /// Cells sent, cells dropped by the a→b switch (scenario path), the same from the driver.
    cells: [u64; 4],
    /// Packets the a→b direction lost to cell loss.
    cell_loss: u64,
}

fn compare(n: u16, discard_key: &str, discard: Discard, slots: u64) -> Both {
    compare_with(n, discard_key, discard, slots, false, None)
}

/// [`compare`]; `frames`: every flow is fed by spec 1 §2.4's frame source (`app = "frames"`,
/// 9180 B every 2 ms into a 64,000-byte send buffer, resumed at 64,000 − 4096) in the scenario
/// and by the driver's `SourceConfig` with the same values. `proc`: both hosts process each
/// packet for this long (spec 1 §2.5-2.6; the scenario's `sender_processing` and
/// `receiver_processing`, the driver's `send_proc` and `recv_proc`), and the ACKs take a path
/// per connection (`reverse_path = "per_vc"`, the driver's ACK path).
fn compare_with(
    n: u16,
    discard_key: &str,
    discard: Discard,
    slots: u64,
    frames: bool,
    proc: Option<Dur>,
) -> Both {
    let mut text = scenario_text(n as u32, discard_key, slots);
    if frames {
        text = text.replace("tick = \"10ms\"", "tick = \"10ms\"\nsend_buffer = 64000");
        text = text.replace("to = \"r\"\n", "to = \"r\"\napp = \"frames\"\n");
    }
    if let Some(d) = proc {
        let us = d.as_nanos() / 1000;
        text = text.replace(
            "tick = \"10ms\"",
            &format!(
                "tick = \"10ms\"\nsender_processing = \"{us}us\"\nreceiver_processing = \"{us}us\""
            ),
        );
        text = text.replace(
            "arrival_order = \"port\"",
            "arrival_order = \"port\"\nreverse_path = \"per_vc\"",
        );
    }
    let sc = load(&text, &[]);
    let out = scenario::run(&sc, 1).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.world.check_conservation(), Ok(()));
    let world: Vec<[u64; 4]> = (0..n)
        .map(|i| {
            let f = &out.summary.flows[&format!("f{i}")];
            [f.bytes_sent, f.retransmits, f.timeouts, f.bytes_delivered]
        })
        .collect();
    let ab = out.world.net.links[0].ab;
    let egress = &out.world.net.egresses[ab.idx()];
    let st = *packetsim::atm::port::CellPort::of(egress)
        .expect("a cell link")
        .switch_stats();
    let cell_loss = egress.queue.drops_for(DropReason::CellLoss);
    let mut cfg = driver(&sc, n, discard, slots);
    if let Some(d) = proc {
        cfg.send_proc = (d, d);
        cfg.recv_proc = (d, d);
    }
    if frames {
        cfg.source = Some(sim::SourceConfig {
            block: 9180,
            interval: Dur::from_millis(2),
            buffer: 64_000,
            resume_below: 4096,
            whole_blocks: false,
        });
    }
    let r = sim::run(&cfg);
    let drv: Vec<[u64; 4]> = r
        .conns
        .iter()
        .map(|c| [c.bytes_sent, c.retransmits, c.timeouts, c.delivered])
        .collect();
    Both {
        world,
        drv,
        cells: [st.sent, st.dropped(), r.switch.sent, r.switch.dropped()],
        cell_loss,
    }
}

/// One connection (no loss is possible: one VC's adapter puts one cell per slot into a switch
/// that sends one per slot, so the queue never holds more than one cell): the scenario path and
/// the driver send, retransmit, time out and deliver the same bytes and send the same cells.
/// This checks the timing convention of the two (first cell in the slot after the offer, a
/// packet delivered `delay` after the slot its last cell left) and the ACK path. The last
/// packet may differ by one: the driver drops what falls after its last slot.
#[test]
fn one_connection_scenario_and_driver_agree() {
    let slots = 100_000; // 2 s
    let b = compare(1, "discard = \"plain\"", Discard::Plain, slots);
    let (w, d) = (b.world[0], b.drv[0]);
    eprintln!("RECORD one: world {:?} cells {:?} cell_loss {}", b.world, b.cells, b.cell_loss);
    assert_eq!(
        &w[..3],
        &d[..3],
        "sent, retransmits, timeouts: world {w:?}, driver {d:?}"
    );
    assert!(w[0] > 2_000_000, "the flow must run: {w:?}");
    assert_eq!(b.cells[1], 0, "one VC cannot overflow its switch");
    assert!(
        b.cells[0].abs_diff(b.cells[2]) <= 91,
        "cells sent {:?}",
        b.cells
    );
    assert!(
        w[3].abs_diff(d[3]) <= 4312,
        "delivered: world {} driver {}",
        w[3],
        d[3]
    );
}

/// Two connections overload the switch 2:1 (spec §3.1's shape), under plain discard and under
/// EPD: cells are dropped, every frame that lost a cell is discarded and counted as a
/// `cell_loss` drop of the direction, the world's books balance, and the scenario path gives
/// the driver's counters exactly, per flow (sent, retransmits, timeouts, delivered within one
/// packet) and at the switch (cells sent and dropped). The two differ in one respect: the
/// scenario's ACKs of both connections share the b→a cell port, the driver's do not; in these
/// runs no two ACK cells met in a slot in a way that moved a data packet. (Under plain discard
/// the second flow loses its first window before any RTT sample and backs off from the 3 s
/// initial RTO: one flow takes the link, in both paths.)
#[test]
fn two_connections_lose_cells_and_the_scenario_path_gives_the_drivers_counters() {
    let slots = 500_000; // 10 s
    for (key, discard) in [
        ("discard = \"plain\"", Discard::Plain),
        (
            "discard = \"epd\"\nepd_threshold = 100",
            Discard::Epd {
                threshold: 100,
                keep_eof: false,
            },
        ),
    ] {
        let b = compare(2, key, discard, slots);
        eprintln!(
            "RECORD two {key}: world {:?} driver {:?} cells {:?} cell_loss {}",
            b.world, b.drv, b.cells, b.cell_loss
        );
        assert!(
            b.cells[1] > 0 && b.cell_loss > 0,
            "{key}: cells {:?}",
            b.cells
        );
        let timeouts: u64 = b.world.iter().map(|w| w[2]).sum();
        assert!(
            timeouts > 0,
            "{key}: fast retransmit is off, so losses end in timeouts"
        );
        for (w, d) in b.world.iter().zip(&b.drv) {
            assert_eq!(&w[..3], &d[..3], "{key}: world {w:?} driver {d:?}");
            assert!(
                w[3].abs_diff(d[3]) <= 4312,
                "{key}: world {w:?} driver {d:?}"
            );
        }
        assert_eq!(b.cells[..2], b.cells[2..], "{key}: cells sent, dropped");
    }
}

/// Issue 11 item 5 on the scenario path: two connections fed by `app = "frames"` (the
/// CBRFrame source, 36.7 Mb/s each into a 21.2 Mb/s cell link, so both are backlogged and
/// paused by the full send buffer) under EPD give the driver's counters with its
/// `SourceConfig`: the same bytes sent, retransmits and timeouts per flow, delivered within
/// one packet, and the same cells sent and dropped at the switch.
#[test]
fn frame_sources_scenario_and_driver_agree() {
    let b = compare_with(
        2,
        "discard = \"epd\"\nepd_threshold = 100",
        Discard::Epd {
            threshold: 100,
            keep_eof: false,
        },
        250_000,
        true,
        None,
    );
    eprintln!("RECORD frames: world {:?} driver {:?} cells {:?} cell_loss {}", b.world, b.drv, b.cells, b.cell_loss);
    assert!(b.cells[1] > 0 && b.cell_loss > 0, "cells {:?}", b.cells);
    for (w, d) in b.world.iter().zip(&b.drv) {
        assert!(w[0] > 300_000, "the flows must run: {w:?}");
        assert_eq!(&w[..3], &d[..3], "world {w:?} driver {d:?}");
        assert!(w[3].abs_diff(d[3]) <= 4312, "world {w:?} driver {d:?}");
    }
    assert_eq!(b.cells[..2], b.cells[2..], "cells sent, dropped");
}

/// Two CBR flows of 100-byte UDP payloads (128-byte packets: ceil(136 / 48) = 3 cells), one
/// packet each every 1 ms from t = 0, both offered at the same instants to one atm link of
/// 20 µs slots, same-slot cells in port order (the first flow's VC first). 10 ms = 500 slots:
/// 10 pairs of frames, each pair settled within 5 slots, so every count is 10 times one pair's.
fn two_cbr(discard: &str) -> String {
    format!(
        r#"
[simulation]
duration = "10ms"

[nodes.h]
[nodes.r]

[links.cells]
a = "h"
b = "r"
kind = "atm"
rate = "21.2Mbps"
delay = "0s"
arrival_order = "port"
{discard}

[flows.a]
from = "h"
to = "r"
kind = "cbr"
rate = "1.024Mbps"
packet_size = 100

[flows.b]
from = "h"
to = "r"
kind = "cbr"
rate = "1.024Mbps"
packet_size = 100
"#
    )
}

/// The standard outputs of a cell link direction (issue 11: "counters split by cause, cells
/// sent, useless cells, per-slot queue length"), worked slot by slot for one pair of frames
/// A (VC 0) and B (VC 1), cells a0..a2 and b0..b2, spec 1 §2.1's slot order (adapters emit,
/// output sends its head cell, the slot's cells are enqueued in port order):
///
/// - plain, B = 2 (§2.3.1): slot 1 a0 b0 queued (Q 2); slot 2 a0 out, a1 in, b1 overflow
///   (Q 2); slot 3 b0 out (useless: B is damaged), a2 in, b2 overflow: B lost (Q 2); slot 4
///   a1 out (Q 1); slot 5 a2 out: A sent (Q 0). Per pair: 6 arrived, 4 sent, 2 overflow, 1
///   useless, 1 frame damaged, queue sum 7; frames pending 2 for 3 slots then 1 for 2 slots.
/// - ppd, B = 2 (§2.3.2): the same, but b2 is dropped as B's tail (1 overflow + 1 PPD tail).
/// - epd, B = 2, T = 1 (§2.3.3): b0 finds Q = 1 >= T: B refused whole (3 EPD refusals); A's
///   cells in slots 1-3, out in slots 2-4 (Q 1, 1, 1, 0): 3 sent, no useless cell, queue sum 3;
///   B lost in slot 3, A sent in slot 4.
///
/// summary.json's `queues.<q>.cells`, queues.csv's cell columns, the utilisation (cells sent
/// per slot, §4's load), the packet queue columns (frames offered and not settled, time
/// average) and the event trace (an enqueue per packet, a dequeue when a frame's last cell
/// leaves, a `cell_loss` drop when a damaged frame is settled) must give exactly these.
#[test]
fn standard_outputs_carry_the_switch_counters_by_cause() {
    struct Want {
        key: &'static str,
        // arrived, sent, overflow, ppd tail, epd refusal, useless, damaged, queue sum, max
        cells: [u64; 9],
        // slots both frames pending, slots one pending, slot A leaves
        pending: (u64, u64, u64),
    }
    let cases = [
        Want {
            key: "discard = \"plain\"\nswitch_buffer = 2",
            cells: [6, 4, 2, 0, 0, 1, 1, 7, 2],
            pending: (3, 2, 5),
        },
        Want {
            key: "discard = \"ppd\"\nswitch_buffer = 2",
            cells: [6, 4, 1, 1, 0, 1, 1, 7, 2],
            pending: (3, 2, 5),
        },
        Want {
            key: "discard = \"epd\"\nswitch_buffer = 2\nepd_threshold = 1",
            cells: [6, 3, 0, 0, 3, 0, 1, 3, 1],
            pending: (3, 1, 4),
        },
    ];
    for w in cases {
        let sc = load(&two_cbr(w.key), &[]);
        let dir = std::env::temp_dir().join(format!(
            "packetsim-atm-outputs-{}-{}",
            std::process::id(),
            w.cells[4]
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let (o, written) = scenario::run_traced(&sc, 1, None, Some(&dir)).unwrap();
        assert_eq!(o.world.check_conservation(), Ok(()));
        let key = w.key.replace('\n', " ");
        let q = &o.summary.queues["cells:h->r"];
        let c = q.cells.expect("a cell link has cell counters");
        let [arr, sent, ovf, ppd, epd, useless, damaged, qsum, qmax] = w.cells.map(|x| x * 10);
        assert_eq!(
            (c.arrived, c.sent, c.dropped_overflow, c.dropped_ppd_tail),
            (arr, sent, ovf, ppd),
            "{key}"
        );
        assert_eq!(
            (c.dropped_epd_refusal, c.useless, c.frames_damaged),
            (epd, useless, damaged),
            "{key}"
        );
        assert_eq!(c.dropped, ovf + ppd + epd, "{key}");
        assert_eq!(c.queued, 0, "{key}");
        assert_eq!(
            (c.max_len_cells as u64, c.slot_s),
            (qmax / 10, 20e-6),
            "{key}"
        );
        assert_eq!(c.mean_len_cells, qsum as f64 / 500.0, "{key}");
        assert_eq!(
            q.utilisation,
            sent as f64 / 500.0,
            "{key}: cells sent per slot"
        );
        // Packets: 20 offered, A's 10 sent, B's 10 lost to cell loss.
        assert_eq!((q.arrivals, q.departures, q.drops), (20, 10, 10), "{key}");
        assert_eq!(q.drops_by_reason.get("cell_loss"), Some(&10), "{key}");
        let (both, one, _) = w.pending;
        let area = (2 * both + one) as f64 * 20e-6 * 10.0;
        assert!(
            (q.mean_len_pkts - area / 10e-3).abs() < 1e-9,
            "{key}: mean frames pending {} want {}",
            q.mean_len_pkts,
            area / 10e-3
        );
        assert_eq!(q.max_len_pkts, 2.0, "{key}");
        // The reverse direction carried nothing, and says so.
        let back = o.summary.queues["cells:r->h"].cells.expect("cell counters");
        assert_eq!((back.arrived, back.sent, back.mean_len_cells), (0, 0, 0.0));
        // flows: A delivered everything, B nothing.
        assert_eq!(o.summary.flows["a"].bytes_delivered, 1000, "{key}");
        assert_eq!(o.summary.flows["b"].bytes_delivered, 0, "{key}");

        // queues.csv: the cell columns after the usual ones, empty for no row here.
        let csv = o.summary.queues_csv();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(
            header[16..],
            [
                "cells_arrived",
                "cells_sent",
                "cells_dropped",
                "cells_dropped_overflow",
                "cells_dropped_ppd_tail",
                "cells_dropped_epd_refusal",
                "cells_useless",
                "frames_damaged",
                "mean_len_cells",
                "max_len_cells"
            ]
        );
        let row: Vec<&str> = lines
            .find(|l| l.starts_with("cells:h->r,"))
            .unwrap()
            .split(',')
            .collect();
        assert_eq!(row.len(), header.len());
        let want =
            [arr, sent, ovf + ppd + epd, ovf, ppd, epd, useless, damaged].map(|x| x.to_string());
        assert_eq!(row[16..24], want, "{key}");
        assert_eq!(row[24], (qsum as f64 / 500.0).to_string(), "{key}");
        assert_eq!(row[25], (qmax / 10).to_string(), "{key}");
        // summary.json carries the same object.
        let json: serde_json::Value = serde_json::from_str(&o.summary.to_json()).unwrap();
        assert_eq!(
            json["queues"]["cells:h->r"]["cells"]["dropped_epd_refusal"], epd,
            "{key}"
        );

        // The event trace: per pair, two enqueues at k ms, B's cell_loss drop when it is
        // settled (slot 3), A's dequeue when its last cell leaves and its arrival then
        // (delay 0).
        let (path, _) = written.events_file.unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let rows: Vec<Vec<String>> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_string).collect())
            .filter(|r: &Vec<String>| r[3] == "cells:h->r")
            .collect();
        let at = |ev: &str, flow: &str| -> Vec<f64> {
            rows.iter()
                .filter(|r| r[1] == ev && r[4] == flow)
                .map(|r| r[0].parse().unwrap())
                .collect()
        };
        let ms = |k: u64, slots: u64| k as f64 * 1e-3 + slots as f64 * 20e-6;
        let near = |got: Vec<f64>, want: Vec<f64>, what: &str| {
            assert_eq!(got.len(), want.len(), "{key}: {what} {got:?}");
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-12, "{key}: {what} at {g}, want {w}");
            }
        };
        let (_, _, leave) = w.pending;
        near(
            at("enqueue", "a"),
            (0..10).map(|k| ms(k, 0)).collect(),
            "A enqueue",
        );
        near(
            at("enqueue", "b"),
            (0..10).map(|k| ms(k, 0)).collect(),
            "B enqueue",
        );
        near(
            at("dequeue", "a"),
            (0..10).map(|k| ms(k, leave)).collect(),
            "A dequeue",
        );
        near(
            at("receive", "a"),
            (0..10).map(|k| ms(k, leave)).collect(),
            "A receive",
        );
        near(
            at("drop", "b"),
            (0..10).map(|k| ms(k, 3)).collect(),
            "B drop",
        );
        assert!(
            at("dequeue", "b").is_empty() && at("drop", "a").is_empty(),
            "{key}"
        );
        assert!(
            rows.iter()
                .filter(|r| r[1] == "drop")
                .all(|r| r[2] == "cell_loss"),
            "{key}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Issue 11, the processing delay and the ACK path on the scenario path: two frame-fed
/// connections under EPD with 0.307 ms of processing per packet at both hosts (spec 1
/// §2.5-2.6; 307 µs is not a multiple of the 20 µs slot, see below) and the ACKs on a path per
/// connection (§3.1) give the driver's counters with the same processing (`TimeBase::
/// Continuous`): bytes sent, retransmits and timeouts per flow, delivered within one packet,
/// cells sent and dropped at the switch. The processing must matter: the same runs without it
/// differ.
///
/// Why not 300 µs: the driver's continuous time base puts a packet whose processing ends at
/// an exact time `x` on the grid at slot `ceil(x / slot)`, the scenario's cell port at
/// `floor(x / slot) + 1`; they differ by one slot exactly when `x` is a slot boundary, which
/// 300 µs after a boundary always is (15 slots). With 307 µs a boundary is hit only after 20
/// back-to-back packets in one server.
#[test]
fn processing_and_per_vc_ack_path_scenario_and_driver_agree() {
    let key = "discard = \"epd\"\nepd_threshold = 100";
    let discard = Discard::Epd {
        threshold: 100,
        keep_eof: false,
    };
    let d = Dur::from_micros(307);
    let b = compare_with(2, key, discard, 250_000, true, Some(d));
    eprintln!("RECORD proc: world {:?} driver {:?} cells {:?} cell_loss {}", b.world, b.drv, b.cells, b.cell_loss);
    assert!(b.cells[1] > 0 && b.cell_loss > 0, "cells {:?}", b.cells);
    for (w, d) in b.world.iter().zip(&b.drv) {
        // The second flow loses its first windows and backs off from the 3 s initial RTO.
        assert!(
            w[0] > 50_000 && w[2] > 0,
            "the flows must run and time out: {w:?}"
        );
        assert_eq!(&w[..3], &d[..3], "world {w:?} driver {d:?}");
        assert!(w[3].abs_diff(d[3]) <= 4312, "world {w:?} driver {d:?}");
    }
    assert_eq!(b.cells[..2], b.cells[2..], "cells sent, dropped");
    let without = compare_with(2, key, discard, 250_000, true, None);
    assert_ne!(without.world, b.world, "processing changes the run");
}

/// Prints spec 1's main experiment (§3.1, 10^6 slots, RTOmin 450 and 100 ms) three ways:
/// `scenarios/atm-two-senders.toml` on the world path, and the driver `atm::sim` with its
/// slotted time base (what `reproduce atm-tcp` runs) and its continuous one. Not a check: the
/// numbers for the issue note (`--ignored --nocapture`). `ATM_SEEDS` (default 1) seeds each.
///
/// Measured at seed 1 (2026-11-26): load / cells lost / sender-1 goodput B/s
///
/// | RTOmin | world path | driver, continuous | driver, slotted (the study) |
/// | --- | --- | --- | --- |
/// | 450 ms | 0.1465 / 15936 / 177083 | 0.1448 / 15744 / 168868 | 0.4092 / 22464 / 479220 |
/// | 100 ms | 0.6165 / 68928 / 732066 | 0.5614 / 62016 / 654934 | 0.6800 / 75456 / 786377 |
///
/// The world path follows the driver's continuous time base (exact endpoint times, cells on
/// the grid), not its slotted one. The 2.8-fold load at 450 ms is seed 1's, not the
/// engines': the experiment is chaotic in the seed (single seeds range from 0.14 to 0.40 on
/// every engine; at seed 5 the slotted driver gives 0.1432, at seed 2 the world 0.4033).
/// Over seeds 1-30 (2026-12-07), mean load ± standard deviation / loss / sender-1 goodput:
///
/// | RTOmin | world path | driver, continuous | driver, slotted |
/// | --- | --- | --- | --- |
/// | 450 ms | 0.2545 ± 0.0955 / 18651 / 2.40 Mb/s | 0.2483 ± 0.0899 / 18392 / 2.29 | 0.2727 ± 0.1009 / 19081 / 2.59 |
/// | 100 ms | 0.6095 ± 0.0405 / 69793 / 5.62 Mb/s | 0.6190 ± 0.0420 / 70855 / 5.63 | 0.6250 ± 0.0298 / 71844 / 5.74 |
///
/// No difference of means is significant (Welch, 30 seeds each). `scenario::run_on_world`
/// runs the driver's configuration on the world, and `scenario/link/atm.rs`'s tests compare
/// the two engines over seeds.
///
/// Since issue 35 item 2 the file sets `time_base = "slotted"` (the tables above were measured
/// with the world's continuous time base, now `--set simulation.time_base=\"continuous\"`):
/// the world path is then the slotted driver draw for draw when the driver takes the world's
/// streams (`slotted_world_gives_the_study_drivers_statistics`), and the study runs on the
/// world (`the_scenario_file_gives_the_studys_main_statistics`).
#[test]
#[ignore]
fn print_main_experiment_world_and_driver() {
    let seeds: u64 = std::env::var("ATM_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let path = super::scenarios_dir().join("atm-two-senders.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    for ms in [450u64, 100] {
        for seed in 1..=seeds {
            let sc = load(&text, &[&format!("tcp.rto_min=\"{ms}ms\"")]);
            let o = scenario::run(&sc, seed).unwrap();
            let ab = o.world.net.links[0].ab;
            let st = *packetsim::atm::port::CellPort::of(&o.world.net.egresses[ab.idx()])
                .unwrap()
                .switch_stats();
            let f1 = &o.summary.flows["tcp1"];
            let f2 = &o.summary.flows["tcp2"];
            eprintln!(
                "world     rto {ms} seed {seed}: load {:.6} loss {} thr1 {:.0} B/s thr2 {:.0} B/s \
                 timeouts {}+{}",
                st.sent as f64 / 1e6,
                st.dropped(),
                f1.bytes_delivered as f64 / 20.0,
                f2.bytes_delivered as f64 / 20.0,
                f1.timeouts,
                f2.timeouts,
            );
            for tb in [TimeBase::Slotted, TimeBase::Continuous] {
                let mut c = AtmNetConfig::paper(Dur::from_millis(ms));
                c.time_base = tb;
                c.seed = seed;
                c.trace_bin = 0;
                let r = sim::run(&c);
                eprintln!(
                    "{:<10}rto {ms} seed {seed}: load {:.6} loss {} thr1 {:.0} B/s thr2 {:.0} B/s \
                     timeouts {}+{}",
                    format!("{tb:?}"),
                    r.load(),
                    r.switch.dropped(),
                    r.conns[0].delivered as f64 / 20.0,
                    r.conns[1].delivered as f64 / 20.0,
                    r.conns[0].timeouts,
                    r.conns[1].timeouts,
                );
            }
        }
    }
}

/// One run's main statistics: cells sent by the switch output (the load's numerator), cells
/// dropped at the switch (all causes), and per sender: bytes delivered to its receiver, bytes
/// sent, timeouts.
#[derive(Debug, PartialEq, Eq)]
struct Main {
    sent: u64,
    lost: u64,
    flows: Vec<[u64; 3]>,
}

/// `scenarios/atm-two-senders.toml` on time base `base` at `seed` and RTOmin `ms`, over `slots`
/// slots.
fn world_run(base: &str, ms: u64, seed: u64, slots: u64) -> Main {
    let path = super::scenarios_dir().join("atm-two-senders.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let sc = load(
        &text,
        &[
            &format!("tcp.rto_min=\"{ms}ms\""),
            &format!("simulation.time_base=\"{base}\""),
            &format!("simulation.duration=\"{}us\"", slots * 20),
        ],
    );
    let o = scenario::run(&sc, seed).unwrap();
    let ab = o.world.net.links[0].ab;
    let st = *packetsim::atm::port::CellPort::of(&o.world.net.egresses[ab.idx()])
        .unwrap()
        .switch_stats();
    Main {
        sent: st.sent,
        lost: st.dropped(),
        flows: ["tcp1", "tcp2"]
            .iter()
            .map(|f| {
                let f = &o.summary.flows[*f];
                [f.bytes_delivered, f.bytes_sent, f.timeouts]
            })
            .collect(),
    }
}

/// The study's driver on the same configuration (`AtmNetConfig::paper`, slotted time base)
/// with the given draws.
fn driver_slotted(ms: u64, seed: u64, slots: u64, draws: sim::Draws) -> Main {
    let mut c = AtmNetConfig::paper(Dur::from_millis(ms));
    c.seed = seed;
    c.slots = slots;
    c.trace_bin = 0;
    c.draws = draws;
    let r = sim::run(&c);
    Main {
        sent: r.switch.sent,
        lost: r.switch.dropped(),
        flows: r
            .conns
            .iter()
            .map(|k| [k.delivered, k.bytes_sent, k.timeouts])
            .collect(),
    }
}

/// Issue 35 item 2: the ATM scenario on the world's slotted time base (`[simulation]
/// time_base = "slotted"`, `world/slotted.rs`) gives the study driver's statistics (`atm::sim`,
/// `TimeBase::Slotted`, spec 1 §2.1: timers of max(1, floor(t / slot)) slots, processing
/// ends on slot boundaries, same-slot arrivals in seeded random order) for the same seed:
/// the load (cells sent by the switch), the cells lost and each sender's goodput, bytes sent
/// and timeouts, exactly, at both RTOmin values of the paper over 10^6 slots (spec §3.1).
///
/// The driver runs with `Draws::World`: it takes its random draws from the streams the world
/// draws the same things from (each sender's processing times from
/// `flows.tcpN.sender_processing`, the switch's same-slot orders from the link direction's own
/// stream, its cells listed by VC in the order the VCs were first used). That is the one
/// difference between the world and the study's runs (`Draws::Shared`: one stream for the
/// run, drawn in slot order), and it is a difference of draws, not of model: the same seed
/// gives another run of the same experiment, which `docs/studies/atm-tcp.md` tabulates. The
/// world's continuous time base on the same file does not give the driver's numbers, which
/// the test checks too.
#[test]
fn slotted_world_gives_the_study_drivers_statistics() {
    let slots = 1_000_000;
    for (ms, seed) in [(450, 1), (100, 1), (450, 2)] {
        let w = world_run("slotted", ms, seed, slots);
        let d = driver_slotted(ms, seed, slots, sim::Draws::World);
        eprintln!("RECORD slotted rto {ms} seed {seed}: world {w:?} driver {d:?}");
        assert!(
            w.lost > 0 && w.flows.iter().all(|f| f[0] > 0 && f[2] > 0),
            "{w:?}"
        );
        assert_eq!(w, d, "RTOmin {ms} ms, seed {seed}");
        let c = world_run("continuous", ms, seed, slots);
        assert_ne!(c, d, "continuous world, RTOmin {ms} ms, seed {seed}");
        let shared = driver_slotted(ms, seed, slots, sim::Draws::Shared);
        eprintln!("RECORD continuous rto {ms} seed {seed}: {c:?}\n  study's draws {shared:?}");
    }
}

/// Issue 35 "Done means": `packetsim run scenarios/atm-two-senders.toml --seed S` (here
/// `scenario::run` of the file) gives the study's main statistics for seed `S`: the study
/// runs each main point through `scenario::run_on_world` (`AtmNetConfig::paper` as a typed
/// scenario over the same file), and both give the same cells sent and lost and the same
/// bytes delivered and sent and timeouts per sender, at both RTOmin values. The seed is the
/// study's first replication's (`mix_seed([0x1A7, 0])`).
#[test]
fn the_scenario_file_gives_the_studys_main_statistics() {
    let seed = packetsim_kernel::rng::mix_seed(&[0x1A7, 0]);
    for ms in [450, 100] {
        let file = world_run("slotted", ms, seed, 1_000_000);
        let mut c = AtmNetConfig::paper(Dur::from_millis(ms));
        c.seed = seed;
        c.trace_bin = 0;
        let r = packetsim::studies::atm_tcp::run_on_world(&c).unwrap();
        let study = Main {
            sent: r.switch.sent,
            lost: r.switch.dropped(),
            flows: r
                .conns
                .iter()
                .map(|k| [k.delivered, k.bytes_sent, k.timeouts])
                .collect(),
        };
        assert_eq!(file, study, "RTOmin {ms} ms");
    }
}
