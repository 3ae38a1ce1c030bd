//! Cellular IP paging (spec 5 §2.3, the option the paper's always-active runs leave off): the
//! paging cache's lifetime, an idle mobile reached through it, and paging changing nothing for
//! a mobile that stays active.
//!
//! Timing (as in `tests`): the spec 5 §3 tree with 2 ms intra-domain links; 1000-byte UDP
//! packets from CN (0.8 ms to send at 10 Mb/s: CN → GW, GW → R1, R1 → BS each take 2.8 ms;
//! 4 ms on the 2 Mb/s radio + 1 ms); 40-byte control messages (0.16 ms + 1 ms on the radio,
//! 2.032 ms per wired hop).

use super::*;
use crate::world::{FlowPlacement, World};
use packetsim_kernel::{Dur, Rate, Time};

fn ms(x: f64) -> Time {
    Time::from_nanos((x * 1e6).round() as u64)
}

/// Paging on: a mobile with no data for 1 s turns idle; paging-updates every
/// `paging_update` when idle; paging cache 9 s.
fn paging_cfg(paging_update: Dur) -> MobilityConfig {
    let mut cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Hard));
    cfg.paging = true;
    cfg.active_timeout = Dur::from_secs(1);
    cfg.paging_update_time = paging_update;
    cfg.paging_timeout = Dur::from_secs(9);
    cfg
}

/// BS1 → BS2 at 2.5 s, 2 ms intra-domain links, a run of `end` seconds.
fn tree(cfg: &MobilityConfig, end: f64) -> (World, Domain) {
    let p = TreeParams {
        duration: Dur::from_nanos((end * 1e9) as u64),
        ..TreeParams::default()
    };
    let schedule = HandoffSchedule::explicit(0, &[(ms(2500.0), 1)]);
    build_tree(&p, cfg, &[schedule], 1)
}

/// 1000-byte UDP packets from CN to the mobile every `every_ms` from `start_ms` until
/// `stop_ms`.
fn packets(w: &mut World, d: &Domain, start_ms: f64, stop_ms: f64, every_ms: u64) {
    let at = FlowPlacement {
        from: d.cn,
        to: d.mhs[0],
        start: ms(start_ms),
        stop: Some(ms(stop_ms)),
        dscp: 0,
    };
    w.add_cbr_flow("cbr", at, Rate::bps(8_000_000 / every_ms), 972);
}

fn egress(w: &World, a: crate::ids::NodeId, b: crate::ids::NodeId) -> crate::ids::EgressId {
    *w.net.nodes[a.idx()]
        .egresses
        .iter()
        .find(|e| w.net.egresses[e.idx()].to == b)
        .expect("a link")
}

/// (paged, flooded) at domain node `k` (0 GW, 1 R1, 2 R2, 3.. BS1..).
fn paging_counts(w: &World, d: &Domain, k: usize) -> (u64, u64) {
    let s = &d.node(w, k).stats;
    (s.paged, s.flooded)
}

/// Spec 5 §2.3: a paging-cache mapping lives exactly `paging_timeout` after its last refresh.
/// The mobile turns idle at 1 s (no data since 0) and sends no route-update; its only uplink
/// is the paging-update its move to BS2 at 2.5 s makes, which reaches BS2 at 2501.16 ms, R1 at
/// 2503.192 ms and GW at 2505.224 ms; the routing caches (time 0 + 3 s) lapse at 3 s. A packet
/// reaching GW at 11505.1 ms (sent at 11502.3) still finds GW's mapping and goes to R1 only;
/// one reaching GW at 11505.3 ms (sent at 11502.5) finds none and is flooded to R1 and R2. At
/// R1 (11507.9 / 11508.1 ms) both mappings have lapsed (BS1's at 9 s, BS2's at
/// 11503.192 ms): flooded to BS1, where the mobile is not (a page miss), and BS2, which
/// delivers it. R2's flood reaches BS3 and BS4: two more page misses.
#[test]
fn cip_paging_cache_expires_paging_timeout_after_last_refresh() {
    let cfg = paging_cfg(Dur::from_secs(100));
    for (sent, gw_flooded) in [(11502.3, false), (11502.5, true)] {
        let (mut w, d) = tree(&cfg, 12.0);
        packets(&mut w, &d, sent, sent + 500.0, 1000);
        w.run_until(ms(5000.0));
        let gw_r1 = egress(&w, d.gw, d.routers[0]);
        let r1_bs1 = egress(&w, d.routers[0], d.bss[0]);
        let r1_bs2 = egress(&w, d.routers[0], d.bss[1]);
        assert_eq!(d.node(&w, 0).paging_entries(0), &[(gw_r1, ms(11505.224))]);
        assert_eq!(
            d.node(&w, 1).paging_entries(0),
            &[(r1_bs1, ms(9000.0)), (r1_bs2, ms(11503.192))],
            "the time-0 mapping and the paging-update's"
        );
        assert_eq!(
            d.node(&w, 4).paging_entries(0),
            &[(d.radios[0][1].0, ms(11501.16))]
        );
        assert!(d.node(&w, 0).routes(0, ms(5000.0)).is_empty(), "RC lapsed");
        assert!(!d.host(&w, 0).is_active());
        let sent_by = d.host(&w, 0).stats.control_sent;
        assert_eq!(sent_by[kind::PAGING_UPDATE as usize], 1);
        assert_eq!(sent_by[kind::ROUTE_UPDATE as usize], 0, "idle from 1 s");
        w.run();
        let expect_gw = if gw_flooded { (0, 1) } else { (1, 0) };
        assert_eq!(paging_counts(&w, &d, 0), expect_gw, "GW, sent at {sent}");
        assert_eq!(paging_counts(&w, &d, 1), (0, 1), "R1");
        assert_eq!(
            paging_counts(&w, &d, 2),
            if gw_flooded { (0, 1) } else { (0, 0) },
            "R2"
        );
        assert_eq!(paging_counts(&w, &d, 4), (0, 1), "BS2 broadcasts it");
        let r = d.report(&w);
        let misses = if gw_flooded { 3 } else { 1 };
        assert_eq!(r.wasted_copies, 1, "one packet, its missed copies");
        assert_eq!(r.handoff_losses(), 0);
        let page_misses: usize = (3..7)
            .map(|k| {
                d.node(&w, k)
                    .stats
                    .discards
                    .iter()
                    .filter(|x| x.reason == DiscardReason::PageMiss)
                    .count()
            })
            .sum();
        assert_eq!(page_misses, misses);
        assert_eq!(d.host(&w, 0).stats.data_received, 1);
        assert!(d.host(&w, 0).is_active(), "paged: active again");
    }
}

/// Spec 5 §2.3: an idle mobile's first downlink packet reaches it through the paging caches and
/// its route-update then builds the routing caches, so the next packets follow them. Idle from
/// 1 s, the mobile sends paging-updates at 2 s (through BS1) and 2.5 s (its move to BS2), then
/// every 2 s (4.5 s). Packets every 20 ms from 5 s: the first meets no routing-cache mapping
/// (lapsed at 3 s) and is paged GW → R1 → BS1 and BS2 (R1's paging cache has both cells: BS1's
/// mapping from 2 s lives to 11 s); BS1 misses, BS2 delivers at 5013.4 ms. The mobile, active
/// again, sends a route-update: BS2's routing cache at 5014.56 ms, R1's at 5016.592 ms, GW's at
/// 5018.624 ms. The second packet reaches GW at 5022.8 ms and follows the routing caches to
/// BS2 only: nothing more is paged, nothing lost.
#[test]
fn cip_idle_mobile_is_paged_then_its_route_update_installs_the_path() {
    let cfg = paging_cfg(Dur::from_secs(2));
    let (mut w, d) = tree(&cfg, 5.5);
    packets(&mut w, &d, 5000.0, 5090.0, 20);
    w.run();
    let gw_r1 = egress(&w, d.gw, d.routers[0]);
    let r1_bs2 = egress(&w, d.routers[0], d.bss[1]);
    assert_eq!(d.node(&w, 0).entries(0), &[(gw_r1, ms(8018.624))]);
    assert_eq!(d.node(&w, 1).entries(0), &[(r1_bs2, ms(8016.592))]);
    assert_eq!(d.node(&w, 4).entries(0), &[(d.radios[0][1].0, ms(8014.56))]);
    assert!(
        d.node(&w, 3).entries(0).is_empty(),
        "BS1: nothing since time 0"
    );
    for (k, what) in [(0, "GW"), (1, "R1"), (4, "BS2")] {
        assert_eq!(paging_counts(&w, &d, k), (1, 0), "{what}: the first packet");
    }
    let h = d.host(&w, 0);
    assert!(h.is_active());
    assert_eq!(h.stats.data_received, 5);
    assert_eq!(h.stats.control_sent[kind::PAGING_UPDATE as usize], 3);
    assert_eq!(h.stats.control_sent[kind::ROUTE_UPDATE as usize], 1);
    let r = d.report(&w);
    assert_eq!((r.handoff_losses(), r.wasted_copies), (0, 1));
    assert_eq!((r.paged, r.flooded), (3, 0));
    let bs1 = &d.node(&w, 3).stats.discards;
    assert_eq!(bs1.len(), 1);
    assert_eq!(bs1[0].reason, DiscardReason::PageMiss);
}

/// Paging changes nothing for a mobile that never turns idle: with 1 Mb/s downlink (a packet
/// every 8 ms, far inside active_timeout) and a semisoft handoff at 2.5 s, the run with paging
/// on counts exactly what the run with paging off counts, sends no paging-update and pages
/// nothing. (Paging off everywhere else: the golden outputs stay as they were.)
#[test]
fn cip_paging_leaves_an_active_mobile_as_it_was() {
    let run = |paging: bool| {
        let mut cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Semisoft));
        cfg.paging = paging;
        let (mut w, d) = tree(&cfg, 5.0);
        packets(&mut w, &d, 0.0, 5000.0, 8);
        w.run();
        let h = d.host(&w, 0);
        assert!(h.is_active());
        (d.report(&w), h.stats.data_received, h.stats.duplicates)
    };
    let (on, off) = (run(true), run(false));
    assert_eq!(on, off);
    assert_eq!(on.0.control_sent[kind::PAGING_UPDATE as usize], 0);
    assert_eq!((on.0.paged, on.0.flooded), (0, 0));
    assert!(on.1 > 600, "delivered {}", on.1);
}

/// A TCP connection opened to an idle mobile: its SYN (no payload) is paged like data, the
/// mobile turns active and routes the rest (GW pages exactly one packet), and the transfer
/// runs. Without paging the SYN would meet no state at GW and be dropped, again and again.
#[test]
fn cip_paging_reaches_an_idle_mobile_with_a_syn() {
    let cfg = paging_cfg(Dur::from_secs(2));
    let (mut w, d) = tree(&cfg, 8.0);
    let tcp = crate::studies::micromobility::tcp_config(crate::transport::tcp::Variant::Sack, 1000);
    let at = FlowPlacement {
        from: d.cn,
        to: d.mhs[0],
        start: ms(5000.0),
        stop: None,
        dscp: 0,
    };
    let f = w.add_tcp_flow("ftp", at, &tcp, crate::app::AppData::Unlimited);
    w.run();
    assert_eq!(paging_counts(&w, &d, 0), (1, 0), "GW pages the SYN only");
    assert!(d.host(&w, 0).is_active());
    assert!(
        w.flows[f.idx()].delivered > 300_000,
        "delivered {}",
        w.flows[f.idx()].delivered
    );
    assert_eq!(d.report(&w).handoff_losses(), 0);
}
