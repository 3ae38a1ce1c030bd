//! Scripted handoffs on the spec 5 §3 tree with constant-rate downlink traffic: the exact
//! route-update sequence, soft-state lifetimes and the packets lost, duplicated and reordered
//! around one handoff, for each protocol (spec 5 §2.2–§2.4).
//!
//! Timing used throughout (unless a test says otherwise): 1000-byte data packets every 8 ms
//! (1 Mb/s CBR from CN), 40-byte control messages. Wired links 10 Mb/s: a data packet takes
//! 0.8 ms to send, a control message 0.032 ms. Radio 2 Mb/s, 1 ms: a data packet takes 4 ms
//! to send, a control message 0.16 ms.

use super::*;
use crate::world::{FlowPlacement, World};
use packetsim_kernel::{Dur, Rate, Time};

fn ms(x: f64) -> Time {
    Time::from_nanos((x * 1e6).round() as u64)
}

/// The tree with intra-domain links of `domain_ms` and one mobile moving by `schedule`.
fn tree(
    cfg: &MobilityConfig,
    domain_ms: u64,
    schedule: HandoffSchedule,
    end: f64,
) -> (World, Domain) {
    let p = TreeParams {
        domain_delay: Dur::from_millis(domain_ms),
        duration: Dur::from_nanos((end * 1e9) as u64),
        ..TreeParams::default()
    };
    build_tree(&p, cfg, &[schedule], 1)
}

/// 1000-byte UDP packets (972 B payload) at `rate` from `from` to `to`, from `start` to `stop`.
fn cbr(
    w: &mut World,
    from: crate::ids::NodeId,
    to: crate::ids::NodeId,
    rate: Rate,
    payload: u32,
    stop: Option<Time>,
) {
    let at = FlowPlacement {
        from,
        to,
        start: Time::ZERO,
        stop,
        dscp: 0,
    };
    w.add_cbr_flow("cbr", at, rate, payload);
}

fn one_handoff_at(t: Time) -> HandoffSchedule {
    HandoffSchedule::explicit(0, &[(t, 1)])
}

/// Downlink CBR, 1 Mb/s of 1000-byte packets: one every 8 ms from t = 0.
pub(super) fn downlink(w: &mut World, d: &Domain) {
    cbr(w, d.cn, d.mhs[0], Rate::mbps(1), 972, None);
}

/// Egress from node `a` to node `b` (the first link between them).
fn egress(w: &World, a: crate::ids::NodeId, b: crate::ids::NodeId) -> crate::ids::EgressId {
    *w.net.nodes[a.idx()]
        .egresses
        .iter()
        .find(|e| w.net.egresses[e.idx()].to == b)
        .expect("a link")
}

/// Spec 5 §2.3: a mapping refreshed by uplink data expires exactly `route_timeout` after its
/// last refresh, at every node; downlink packets meeting an expired mapping are dropped there.
/// Uplink: 100-byte UDP packets every 10 ms until 500 ms (the last leaves at 500 ms). It
/// reaches BS1 after 0.4 + 1 ms, R1 after 2.08 ms more, GW after 2.08 ms more (5.56 ms).
#[test]
fn cip_mapping_expires_route_timeout_after_last_uplink() {
    let mut cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Hard));
    cfg.route_update_time = Dur::from_secs(100); // only data refreshes here
    let (mut w, d) = tree(&cfg, 2, HandoffSchedule::explicit(0, &[]), 3.6);
    cbr(
        &mut w,
        d.mhs[0],
        d.cn,
        Rate::bps(80_000),
        72,
        Some(ms(505.0)),
    );
    downlink(&mut w, &d);
    w.run_until(ms(3400.0));
    let gw_r1 = egress(&w, d.gw, d.routers[0]);
    let r1_bs1 = egress(&w, d.routers[0], d.bss[0]);
    assert_eq!(d.node(&w, 0).entries(0), &[(gw_r1, ms(3505.56))]);
    assert_eq!(d.node(&w, 1).entries(0), &[(r1_bs1, ms(3503.48))]);
    assert_eq!(d.node(&w, 3).entries(0), &[(d.radios[0][0].0, ms(3501.4))]);
    w.run();
    // Downlink packet t (a multiple of 8 ms) reaches GW at t + 2.8, R1 at t + 5.6, BS1 at
    // t + 8.4 ms: t = 3496 finds BS1's mapping gone (3504.4 > 3501.4); from t = 3504 on GW's
    // (3506.8 > 3505.56), up to t = 3592 (the last to reach GW before 3.6 s).
    assert_eq!(d.node(&w, 3).stats.no_state, 1);
    assert_eq!(d.node(&w, 1).stats.no_state, 0);
    assert_eq!(d.node(&w, 0).stats.no_state, 12);
    // Delivered: t = 0 ..= 3488.
    assert_eq!(d.host(&w, 0).stats.data_received, 437);
    assert_eq!(
        d.host(&w, 0).stats.control_sent,
        [0; kind::COUNT],
        "no route-update"
    );
}

/// Spec 5 §2.3: a mobile with no uplink data sends a route-update every route_update_time
/// (here at 1, 2 and 3 s); the last one reaches GW 5.224 ms after it leaves (0.16 + 1 ms
/// radio, 2.032 ms per wired hop), and GW's mapping lives route_timeout from then.
#[test]
fn cip_silent_mobile_sends_route_updates() {
    let cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Semisoft));
    let (mut w, d) = tree(&cfg, 2, HandoffSchedule::explicit(0, &[]), 3.5);
    w.run();
    let h = d.host(&w, 0);
    assert_eq!(h.stats.control_sent[kind::ROUTE_UPDATE as usize], 3);
    let gw_r1 = egress(&w, d.gw, d.routers[0]);
    assert_eq!(d.node(&w, 0).entries(0), &[(gw_r1, ms(3005.224 + 3000.0))]);
    assert_eq!(w.books.consumed, 3, "GW takes each route-update");
}

/// Spec 5 §2.3, semisoft handoff BS1 → BS2 at 1 s (crossover R1), 10 ms intra-domain links, no
/// radio loss. The semisoft packet leaves at 900 ms and reaches R1 at 911.192 ms; R1 bicasts
/// every packet reaching it after that (t + 13.6 ms: t >= 904). BS2 holds the copies that
/// arrive before the mobile attaches (t + 24.4 < 1000: t = 904..968, 9 packets) and sends them
/// at 1 s; the mobile has already had them from BS1 (t + 29.4 < 1000), so 9 duplicates, none
/// lost, none out of order. BS1's copies of t = 976.. are held then discarded: wasted.
#[test]
fn cip_semisoft_loses_nothing_and_duplicates_the_bicast() {
    let cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Semisoft));
    let (mut w, d) = tree(&cfg, 10, one_handoff_at(ms(1000.0)), 3.5);
    downlink(&mut w, &d);
    w.run_until(ms(950.0));
    let r1_bs1 = egress(&w, d.routers[0], d.bss[0]);
    let r1_bs2 = egress(&w, d.routers[0], d.bss[1]);
    assert_eq!(
        d.node(&w, 1).routes(0, ms(950.0)),
        vec![r1_bs1, r1_bs2],
        "the crossover has both mappings"
    );
    assert_eq!(
        d.node(&w, 4).radio_queue_len(0),
        3,
        "t = 904, 912, 920 held at BS2"
    );
    w.run();
    let r = d.report(&w);
    let h = &d.host(&w, 0).stats;
    assert_eq!(r.handoff_losses(), 0);
    assert_eq!(h.duplicates, 9);
    assert_eq!(h.out_of_order, 0);
    assert_eq!(h.control_sent[kind::SEMISOFT as usize], 1);
    // The old mapping at R1 lives until 3 s (installed at 0 and never refreshed through BS1):
    // every packet reaching R1 before then (t <= 2984) also went to BS1; of those from t = 976
    // on, BS1 could deliver none.
    assert_eq!(r.wasted_copies, (2984 - 976) / 8 + 1);
    // Every packet sent was delivered once, except those still on their way at the end
    // (t + 29.4 >= 3500: t >= 3472).
    assert_eq!(h.data_received - h.duplicates, 3472 / 8);
}

/// Spec 5 §2.2–§2.3, semisoft there and back (ping-pong): BS1 → BS2 at 1 s, BS2 → BS1 at 4 s,
/// 10 ms intra-domain links. BS1, the old base station, holds what it has for the mobile for
/// hold_time and then discards it (at 2 s), and discards on arrival the copies R1 still sends
/// it until its mapping ends at 3 s; it is pre-attach again only from the second semisoft
/// packet (3.9 s). So the return is the first handoff's mirror image: the copies t = 3904..3968
/// are held at BS1 and are duplicates, 9 each way, none lost, none out of order, nothing
/// older released. (A BS1 pre-attach from 1 s, because it is the next base station, kept 50
/// copies of 1 s old packets in its queue, sent them at 4 s as duplicates and dropped the new
/// bicast copies behind them: handoff losses.)
#[test]
fn cip_semisoft_ping_pong_releases_nothing_stale() {
    let cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Semisoft));
    let schedule = HandoffSchedule::explicit(0, &[(ms(1000.0), 1), (ms(4000.0), 0)]);
    let (mut w, d) = tree(&cfg, 10, schedule, 6.5);
    downlink(&mut w, &d);
    w.run_until(ms(3500.0));
    assert_eq!(
        d.node(&w, 3).radio_queue_len(0),
        0,
        "BS1 holds nothing stale"
    );
    w.run();
    let r = d.report(&w);
    let h = &d.host(&w, 0).stats;
    assert_eq!(r.handoff_losses(), 0);
    assert_eq!(h.duplicates, 18);
    assert_eq!(h.out_of_order, 0);
    assert_eq!(h.control_sent[kind::SEMISOFT as usize], 2);
    assert_eq!(h.data_received - h.duplicates, 6472 / 8);
}

/// Spec 5 §2.2–§2.3, semisoft handoff BS1 → BS2 at 1 s with S = 5 ms, 10 ms intra-domain
/// links, run ending at 2.5 s while R1's old mapping (until 3 s) still sends BS1 copies. The
/// semisoft packet leaves at 995 ms and reaches R1 at 1006.192 ms, so R1 bicasts from t = 1000
/// (t + 13.6 ms); t = 976, 984, 992 passed R1 toward BS1 alone and reach it after the mobile
/// left: BS1 holds them (with the copies t = 1000..1368, its 50 packets; t = 1376..1968 meet
/// the full queue) and discards them at 2 s: 3 genuine hold losses. From 2 s BS1 discards
/// each copy on arrival (t + 24.4 ms, t = 1976..2472) while its twin reaches the mobile through
/// BS2 at t + 29.4 ms: the twin of t = 2472 is still on the air at 2.5 s and is not a loss.
/// Before 2 s, copies BS1 still holds are not discarded at all: no loss yet.
#[test]
fn cip_semisoft_copy_discarded_at_the_end_with_its_twin_on_its_way_is_not_a_loss() {
    let mut cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Semisoft));
    cfg.semisoft_delay = Dur::from_millis(5);
    let (mut w, d) = tree(&cfg, 10, one_handoff_at(ms(1000.0)), 2.5);
    downlink(&mut w, &d);
    w.run_until(ms(1500.0));
    let r = d.report(&w);
    assert_eq!(d.node(&w, 3).radio_queue_len(0), 50, "t = 976..1368 held");
    assert_eq!(r.handoff_losses(), 0, "held copies are not discarded");
    // RadioFull at BS1: t = 1376..1472 (t + 24.4 < 1500), every twin delivered.
    assert_eq!(r.wasted_copies, 13);
    w.run();
    let r = d.report(&w);
    let h = &d.host(&w, 0).stats;
    let bs1 = &d.node(&w, 3).stats;
    // t = 976..1368 at 2 s, then t = 1976..2472 on arrival.
    assert_eq!(bs1.hold_discards, 50 + (2472 - 1976) / 8 + 1);
    assert_eq!(bs1.radio_overflow, (1968 - 1376) / 8 + 1);
    // The one discarded copy neither received nor radio-lost: t = 2472, its twin on the air.
    let pending = bs1
        .discards
        .iter()
        .filter(|x| !h.received.contains(&x.uid))
        .count();
    assert_eq!(
        pending,
        3 + 1,
        "976, 984, 992 and 2472's twin still on its way"
    );
    assert_eq!(r.handoff_loss, vec![0, 3]);
    assert_eq!(r.loss_by_reason[DiscardReason::Hold.index()], 3);
    assert_eq!(
        r.wasted_copies,
        bs1.hold_discards + bs1.radio_overflow - 3,
        "every other discarded copy is bicast waste"
    );
    assert_eq!((h.duplicates, h.out_of_order), (0, 0));
    // Delivered: t = 0..968 through BS1, t = 1000..2464 through BS2.
    assert_eq!(h.data_received, 968 / 8 + 1 + (2464 - 1000) / 8 + 1);
}

/// Spec 5 §2.3, hard handoff BS1 → BS2 at 1 s: the route-update leaves through BS2 at 1 s and
/// reaches the crossover R1 at 1011.192 ms. Packets that passed R1 toward BS1 before then and
/// had not been sent on the air by 1 s — t = 976, 984, 992 — are held at BS1 and discarded: the
/// packets in flight toward the old BS past the crossover, exactly 3. From t = 1000 R1 bicasts.
/// BS1 keeps receiving copies until its own mapping ends at 3 s (t + 24.4 < 3000: t <= 2968):
/// 250 packets, of which it holds 50 (its queue) and drops 75 while holding (1–2 s), then
/// discards the held 50 at 2 s and the 125 arriving after.
#[test]
fn cip_hard_handoff_loses_the_packets_past_the_crossover() {
    let cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Hard));
    let (mut w, d) = tree(&cfg, 10, one_handoff_at(ms(1000.0)), 3.5);
    downlink(&mut w, &d);
    w.run();
    let r = d.report(&w);
    assert_eq!(r.handoff_loss, vec![0, 3]);
    let bs1 = &d.node(&w, 3).stats;
    assert_eq!((bs1.hold_discards, bs1.radio_overflow), (175, 75));
    let h = &d.host(&w, 0).stats;
    assert_eq!((h.duplicates, h.out_of_order), (0, 0));
    assert_eq!(h.data_received, 3472 / 8 - 3);
}

/// Spec 5 §2.2 "blind" old base station: it keeps transmitting into the air, so the same
/// three packets are lost at the mobile instead of at BS1, and every later copy (t = 976..2968)
/// is sent into the air.
#[test]
fn cip_hard_handoff_with_a_blind_old_base_station() {
    let mut cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Hard));
    cfg.departure = Departure::Blind;
    let (mut w, d) = tree(&cfg, 10, one_handoff_at(ms(1000.0)), 3.5);
    downlink(&mut w, &d);
    w.run();
    let r = d.report(&w);
    assert_eq!(r.handoff_loss, vec![0, 3]);
    assert_eq!(d.node(&w, 3).stats.hold_discards, 0);
    assert_eq!(d.host(&w, 0).stats.unheard, (2968 - 976) / 8 + 1);
}

/// Spec 5 §2.4 MSF, BS1 → BS2 at 1 s. The registration reaches BS2 at 1001.16 ms; the path
/// setup goes BS2 → R1 → BS1 untouched (BS1 at 1021.224 ms). BS1 then points up, sends the
/// path setup on and its 3 held packets (t = 976, 984, 992) behind it; R1 is re-pointed at
/// 1031.256 ms, so t = 1000, 1008, 1016 still reach BS1 and are sent back up. Nothing is lost;
/// the direct stream (t = 1024 reaches R1 at 1037.6) overtakes t = 1008 (R1 at 1043.2) and
/// t = 1016 (R1 at 1051.2, after t = 1032 at 1045.6): 2 out-of-order arrivals.
#[test]
fn hawaii_msf_forwards_held_packets_and_loses_none() {
    let cfg = MobilityConfig::new(Protocol::Hawaii(HawaiiScheme::Msf));
    let (mut w, d) = tree(&cfg, 10, one_handoff_at(ms(1000.0)), 3.5);
    downlink(&mut w, &d);
    w.run_until(ms(1040.0));
    let r1_bs2 = egress(&w, d.routers[0], d.bss[1]);
    let bs1_r1 = egress(&w, d.bss[0], d.routers[0]);
    assert_eq!(d.node(&w, 1).entries(0)[0], (r1_bs2, ms(1031.256 + 3000.0)));
    assert_eq!(d.node(&w, 3).entries(0)[0], (bs1_r1, ms(1021.224 + 3000.0)));
    w.run();
    let r = d.report(&w);
    assert_eq!(r.handoff_losses(), 0);
    assert_eq!(r.forwarded, 3);
    let h = &d.host(&w, 0).stats;
    assert_eq!((h.duplicates, h.out_of_order), (0, 2));
    assert_eq!(h.data_received, 3472 / 8);
    let c = r.control_sent;
    assert_eq!(
        (c[kind::REGISTER as usize], c[kind::PATH_SETUP as usize]),
        (1, 2),
        "one registration, the path setup sent twice (new → old, old → new)"
    );
}

/// Spec 5 §2.4 UNF with S_unf = 0: the path setup re-points R1 (the crossover) at 1011.192 ms;
/// the packets already below it (t = 976, 984, 992, at BS1 after the mobile left) are lost.
/// With S_unf = 100 ms the mobile still hears BS1 and gets them.
#[test]
fn hawaii_unf_loses_what_is_below_the_crossover_unless_it_hears_the_old_cell() {
    for (linger, lost) in [(0, 3), (100, 0)] {
        let mut cfg = MobilityConfig::new(Protocol::Hawaii(HawaiiScheme::Unf));
        cfg.unf_linger = Dur::from_millis(linger);
        let (mut w, d) = tree(&cfg, 10, one_handoff_at(ms(1000.0)), 3.5);
        downlink(&mut w, &d);
        w.run();
        let r = d.report(&w);
        assert_eq!(r.handoff_losses(), lost, "S_unf = {linger} ms");
        assert_eq!(r.forwarded, 0);
        let h = &d.host(&w, 0).stats;
        assert_eq!(h.data_received, 3472 / 8 - lost);
    }
}

/// Spec 5 §2.4: the serving base station refreshes the path every T_ref (1 s) toward GW, so
/// entries stay alive past their 3 s timeout; after a handoff, the old branch's entries are no
/// longer refreshed and expire.
#[test]
fn hawaii_refresh_keeps_the_path_and_old_entries_expire() {
    let cfg = MobilityConfig::new(Protocol::Hawaii(HawaiiScheme::Msf));
    let (mut w, d) = tree(&cfg, 2, one_handoff_at(ms(5504.0)), 10.0);
    downlink(&mut w, &d);
    w.run();
    let r = d.report(&w);
    assert_eq!(r.handoff_losses(), 0);
    // BS1 refreshes at 1..5 s, BS2 (registered at 5.5 s) at 6..9 s.
    assert_eq!(r.control_sent[kind::REFRESH as usize], 9);
    // BS1's entry (pointed up by the path setup, about 5.5 s) expired 3 s later.
    assert!(d.node(&w, 3).routes(0, ms(9999.0)).is_empty());
    assert_eq!(d.node(&w, 4).routes(0, ms(9999.0)), vec![d.radios[0][1].0]);
    let h = &d.host(&w, 0).stats;
    assert_eq!(h.duplicates, 0);
}

/// The tree with a home-agent node `ha_ms` from GW (see [`TreeParams::home_agent_delay`]).
fn tree_with_home_agent(
    cfg: &MobilityConfig,
    ha_ms: u64,
    schedule: HandoffSchedule,
    end: f64,
) -> (World, Domain) {
    let p = TreeParams {
        domain_delay: Dur::from_millis(10),
        duration: Dur::from_nanos((end * 1e9) as u64),
        home_agent_delay: Some(Dur::from_millis(ha_ms)),
        ..TreeParams::default()
    };
    build_tree(&p, cfg, &[schedule], 1)
}

/// Mobile IP (RFC 5944) with the home agent at GW, BS1 → BS2 at 1 s. The Registration Request
/// reaches BS2 (the new foreign agent) at 1001.16 ms, is relayed (§3.7.2) and reaches the home
/// agent at 1021.224 ms, which binds the new care-of address (§3.8.3) and replies; the reply
/// makes BS2's visitor entry at 1041.288 ms (§3.7.3) and is relayed to the mobile. A tunnelled
/// packet (1020 bytes: IP in IP, RFC 2003) leaves GW 0.816 ms after reaching it and reaches
/// BS1 at t + 24.432 ms. Those tunnelled to BS1 (GW at t + 2.8 < 1021.224: t <= 1016) that
/// reach it after the mobile left (t >= 976) are held and discarded — 976..1016, 6 packets,
/// twice the 3 of Cellular IP hard handoff (whose crossover is R1, not GW). From t = 1024 the
/// tunnel ends at BS2 (t + 24.432 > 1041.288): nothing else lost, nothing duplicated or
/// reordered (no bicast, no forwarding).
#[test]
fn mobile_ip_loses_what_was_tunnelled_to_the_old_foreign_agent() {
    let cfg = MobilityConfig::new(Protocol::MobileIp);
    let (mut w, d) = tree(&cfg, 10, one_handoff_at(ms(1000.0)), 3.5);
    downlink(&mut w, &d);
    w.run_until(ms(1100.0));
    assert_eq!(
        d.home_agent(&w).binding(0),
        Some((1, ms(1021.224 + 30_000.0)))
    );
    assert_eq!(
        d.node(&w, 4).entries(0),
        &[(d.radios[0][1].0, ms(1041.288 + 30_000.0))]
    );
    w.run();
    let r = d.report(&w);
    assert_eq!(r.handoff_loss, vec![0, 6]);
    assert_eq!(d.node(&w, 3).stats.hold_discards, 6);
    let h = &d.host(&w, 0).stats;
    assert_eq!((h.duplicates, h.out_of_order), (0, 0));
    assert_eq!(h.data_received, 3472 / 8 - 6);
    let c = r.control_sent;
    assert_eq!(
        (c[kind::REG_REQUEST as usize], c[kind::REG_REPLY as usize]),
        (2, 2),
        "request: mobile → FA → HA; reply: HA → FA → mobile"
    );
}

/// Mobile IP's handoff goes through the home agent; Cellular IP's stays at the crossover. With
/// the home agent 50 ms beyond GW the request reaches it at 1071.256 ms; a tunnelled packet
/// reaches BS1 at t + 75.248 ms. t = 920 is on the air from 995.248 to 999.248 ms and arrives
/// at 1000.248 ms, after the mobile left: lost. t = 928..1064 (HA at t + 2.8 < 1071.256) reach
/// BS1 after it left and are held and discarded: 18 more, 19 in all. Cellular IP hard handoff
/// on the same tree (untunnelled packets reach BS1 at t + 75.2 ms) loses t = 920 on the air
/// and t = 928, 936, 944 (past R1 before the route-update reached it at 1011.192 ms): 4 — the
/// same for any distance of the home node, as the crossover is inside the domain.
#[test]
fn mobile_ip_loss_grows_with_home_agent_distance_cellular_ip_does_not() {
    for (protocol, lost) in [
        (Protocol::MobileIp, 19),
        (Protocol::Cip(CipHandoff::Hard), 4),
    ] {
        let cfg = MobilityConfig::new(protocol);
        let (mut w, d) = tree_with_home_agent(&cfg, 50, one_handoff_at(ms(1000.0)), 3.5);
        downlink(&mut w, &d);
        w.run();
        let r = d.report(&w);
        assert_eq!(r.handoff_loss, vec![0, lost], "{protocol:?}");
    }
}

/// RFC 5944 §3.6.1.2 / §3.8.3: a binding lives for the registration lifetime. With a 2 s
/// lifetime and no handoff the mobile registers again every second (half the lifetime): at 1,
/// 2 and 3 s; the last reaches the home agent (GW) 21.224 ms later and the binding runs 2 s
/// from there. No packet is lost. With no re-registration the binding would lapse at 2 s.
#[test]
fn mobile_ip_reregisters_before_the_lifetime_ends() {
    let mut cfg = MobilityConfig::new(Protocol::MobileIp);
    cfg.mip_lifetime = Dur::from_secs(2);
    let (mut w, d) = tree(&cfg, 10, HandoffSchedule::explicit(0, &[]), 3.5);
    downlink(&mut w, &d);
    w.run();
    assert_eq!(
        d.host(&w, 0).stats.control_sent[kind::REG_REQUEST as usize],
        3
    );
    assert_eq!(
        d.home_agent(&w).binding(0),
        Some((0, ms(3021.224 + 2000.0)))
    );
    assert_eq!(d.report(&w).handoff_losses(), 0);
    assert_eq!(d.host(&w, 0).stats.data_received, 3472 / 8);
}

/// Cellular IP semisoft with the delay device where the Cellular IP papers put it (Campbell et
/// al. 2000; `crossover_delay`): the same handoff as
/// `cip_semisoft_loses_nothing_and_duplicates_the_bicast` (BS1 → BS2 at 1 s, 10 ms links,
/// semisoft packet at 900 ms reaching R1 at 911.192 ms), no holding at BS2, 100 ms fixed
/// delay at R1. The new-path copies of t = 904.. wait at R1 100 ms and reach BS2 at
/// t + 124.4 ms >= 1028.4 ms, after the mobile tuned in: BS2 sends them at once and none is
/// lost. The route-update (1 s) confirms the new path at R1 at 1011.192 ms; the packets after
/// it (t >= 1000) queue behind the delayed ones, so nothing is reordered. The copies of
/// t = 904..968 also came through BS1 before the switch: 9 duplicates, as with the ideal device.
#[test]
fn cip_semisoft_fixed_delay_at_the_crossover_loses_nothing_and_keeps_order() {
    let mut cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Semisoft));
    cfg.delay_device = false;
    cfg.crossover_delay = Some(Dur::from_millis(100));
    let (mut w, d) = tree(&cfg, 10, one_handoff_at(ms(1000.0)), 3.5);
    downlink(&mut w, &d);
    w.run_until(ms(950.0));
    assert_eq!(
        d.node(&w, 1).delayed_len(),
        5,
        "t = 904..936 wait at the crossover R1"
    );
    assert_eq!(d.node(&w, 0).delayed_len(), 0, "GW is not the crossover");
    assert_eq!(d.node(&w, 4).radio_queue_len(0), 0, "BS2 holds nothing");
    w.run_until(ms(1028.0));
    assert_eq!(
        d.node(&w, 4).radio_queue_len(0) + d.host(&w, 0).stats.duplicates as usize,
        0,
        "no new-path copy reached BS2 before 1028.4 ms"
    );
    w.run();
    let r = d.report(&w);
    let h = &d.host(&w, 0).stats;
    assert_eq!(r.handoff_losses(), 0);
    assert_eq!(h.unheard, 0, "no copy sent before the mobile tuned in");
    assert_eq!(h.duplicates, 9);
    assert_eq!(h.out_of_order, 0);
    assert_eq!(d.node(&w, 1).delayed_len(), 0);
    assert_eq!(h.data_received - h.duplicates, 3472 / 8);
}
