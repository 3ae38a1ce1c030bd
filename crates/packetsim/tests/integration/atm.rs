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
    let sc = load(&scenario_text(n as u32, discard_key, slots), &[]);
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
    let st = *egress.cells().expect("a cell link").switch_stats();
    let cell_loss = egress.queue.drops_for(DropReason::CellLoss);
    let r = sim::run(&driver(&sc, n, discard, slots));
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
            "{key}: world {:?} driver {:?} cells {:?} cell_loss {}",
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
