//! The domain on the 802.11 air (`radio`): handoff times from a path and the beacons, and the
//! frames lost while the mobile is out of range.

use super::radio::{
    beacon_schedule, bs_positions, build_radio_tree, ping_pong_path, speed_for, Cells, RadioDomain,
};
use super::*;
use crate::wifi::motion::{Path, Traversal};
use crate::wifi::propagation::Pos;
use crate::world::World;
use packetsim_kernel::{Dur, Time};

fn ms(x: u64) -> Time {
    Time::from_millis(x)
}

/// Base stations 200 m apart (x = 0, 200, 400, 600), beacons every 100 ms staggered by 25 ms
/// (BS i at i·25 ms), a mobile at 20 m/s from BS1. TwoRayGround power falls with distance,
/// so the rule of `wifi::motion` hands off at the first beacon of the next base station that
/// is nearer than the current one was at its last beacon: past the midpoint x = 100 m
/// (t = 5 s) BS2's beacon at 5.025 s (99.5 m against BS1's 100 m at 5.000 s); past x = 300 m
/// BS3's at 15.050 s (99 m against 100.5 m at 15.025 s; at 14.950 s it is 101 m against
/// 98.5 m); past x = 500 m BS4's at 25.075 s (98.5 m against 101 m). Back over x = 500 m at
/// 35 s: BS3's at 35.050 s. Under Cellular IP semisoft the switch is `S` = 100 ms after each.
#[test]
fn beacon_handoffs_follow_the_midpoints_within_one_interval() {
    let cells = Cells::default();
    let bss = bs_positions(4, 200.0);
    let path = ping_pong_path(4, 200.0, 20.0, Time::ZERO);
    let s = beacon_schedule(&path, &bss, &cells, ms(40_000), Dur::ZERO);
    let got: Vec<(Time, usize, usize)> = s.handoffs.iter().map(|h| (h.at, h.from, h.to)).collect();
    assert_eq!(s.first, 0);
    assert_eq!(
        got,
        vec![
            (ms(5_025), 0, 1),
            (ms(15_050), 1, 2),
            (ms(25_075), 2, 3),
            (ms(35_050), 3, 2)
        ]
    );
    assert!(s.extra_gap.iter().all(|g| *g == Dur::ZERO));
    let semi = beacon_schedule(&path, &bss, &cells, ms(30_000), Dur::from_millis(100));
    let at: Vec<Time> = semi.handoffs.iter().map(|h| h.at).collect();
    assert_eq!(at, vec![ms(5_125), ms(15_150), ms(25_175)]);
}

/// The handoff count in 30 s follows from speed and spacing: `speed_for(h)` gives exactly h
/// for every handoff count of spec 5's Table 1, with and without the semisoft lead.
#[test]
fn speed_for_gives_the_handoff_count() {
    let cells = Cells::default();
    let bss = bs_positions(4, cells.spacing);
    let t = Dur::from_secs(30);
    for h in [2, 3, 4, 7, 10, 18] {
        let path = ping_pong_path(4, cells.spacing, speed_for(h, t, cells.spacing), Time::ZERO);
        for lead in [Dur::ZERO, Dur::from_millis(100)] {
            let s = beacon_schedule(&path, &bss, &cells, Time::ZERO + t, lead);
            let done = s.handoffs.iter().filter(|x| x.at <= Time::ZERO + t).count();
            assert_eq!(done, h as usize, "h = {h}, lead = {lead}");
        }
    }
}

/// Cells that do not touch: BS1 at 0, BS2 at 600 m, 250 m range, a mobile at 21 m/s. It
/// leaves BS1's range at x = 250 m (11.905 s); BS1's last beacon it hears is at 11.9 s, so it
/// loses BS1 three intervals later, at 12.2 s (rule 2), detached until BS2's first beacon in
/// range (x >= 350 m: 16.667 s; BS2 beacons at 50 ms past each 100 ms): 16.75 s.
#[test]
fn lost_base_station_is_a_handoff_with_the_gap_until_the_next_beacon() {
    let cells = Cells::default();
    let bss = vec![Pos { x: 0.0, y: 0.0 }, Pos { x: 600.0, y: 0.0 }];
    let path = Path {
        waypoints: bss.clone(),
        speed: 21.0,
        start: Time::ZERO,
        traversal: Traversal::Once,
    };
    let s = beacon_schedule(&path, &bss, &cells, ms(30_000), Dur::ZERO);
    assert_eq!(
        s.handoffs,
        vec![Handoff {
            at: ms(12_200),
            from: 0,
            to: 1
        }]
    );
    assert_eq!(s.extra_gap, vec![Dur::from_millis(4_550)]);
    assert_eq!(s.serving(ms(12_199)), Some(0));
    assert_eq!(s.serving(ms(12_200)), None);
    assert_eq!(s.serving(ms(16_749)), None);
    assert_eq!(s.serving(ms(16_750)), Some(1));
}

/// The tree on the air with cells 600 m apart (no overlap) and a mobile at 21 m/s from BS1
/// toward BS2, Cellular IP hard handoff, 1 Mb/s of 1000-byte UDP packets from CN (one every
/// 8 ms). Handoff as in the test above, with four base stations' beacons staggered by 25 ms:
/// BS1 lost at 12.2 s, BS2 (beacons at 25 ms past each 100 ms) attached at 16.725 s. While in
/// range every packet arrives (the channel carries it after contention, with MAC retries).
/// From x = 250 m (11.905 s; the air re-reads positions every 10 ms, so from 11.91 s, and a
/// frame started before then ends by 11.915 s) BS1's frames reach nobody: each is retried to
/// the retry limit and dropped by the MAC (counted in the air's stats); after the attachment
/// to BS2 and its route-update, packets flow again. So nothing arrives between 11.915 s and
/// 16.725 s.
#[test]
fn frames_to_a_mobile_out_of_range_are_dropped_by_the_mac_until_the_next_cell() {
    let (mut w, rd) = apart_600m(&Cells {
        spacing: 600.0,
        beacons_on_air: false,
        ..Cells::default()
    });
    assert_eq!(
        rd.schedules[0].snapshot().handoffs,
        vec![Handoff {
            at: ms(12_200),
            from: 0,
            to: 1
        }]
    );
    assert_eq!(
        rd.schedules[0].snapshot().extra_gap,
        vec![Dur::from_millis(4_525)]
    );
    let d = rd.domain.clone();
    super::tests::downlink(&mut w, &d);
    w.run_until(ms(11_900));
    let h = &d.host(&w, 0).stats;
    // Sent at 0, 8, .., 11_888 ms; the last few may still be on their way.
    let sent = 11_888 / 8 + 1;
    assert!(
        h.data_received <= sent && h.data_received + 3 >= sent,
        "{}",
        h.data_received
    );
    assert_eq!(rd.air(&w).stats().mac_drops[0], 0, "no loss in range");
    w.run();
    let h = &d.host(&w, 0).stats;
    let air = rd.air(&w).stats();
    assert!(
        air.mac_drops_down[0] >= 1,
        "BS1's frames after 11.905 s are dropped"
    );
    assert!(
        air.retries >= 6 * air.mac_drops_down[0],
        "each drop took 7 transmissions"
    );
    // The MAC's drops are the world's (data, and the mobile's control messages to a base
    // station it cannot reach), and the books balance.
    let mac = w.books.dropped[crate::queue::DropReason::MacRetryLimit as usize];
    assert!(mac >= air.mac_drops[0], "{mac} {:?}", air.mac_drops);
    w.check_conservation().unwrap();
    let (before, after): (Vec<Time>, Vec<Time>) = h.arrivals.iter().partition(|&&t| t < ms(11_915));
    assert!(after.iter().all(|&t| t > ms(16_725)), "{:?}", after.first());
    assert!(
        after.len() > 300,
        "data flows again after the attachment: {}",
        after.len()
    );
    let outage = d.host(&w, 0).outages();
    assert_eq!(outage.len(), 1);
    assert!(outage[0] > Dur::from_millis(4_810), "{:?}", outage[0]);
    assert_eq!(outage[0], after[0] - *before.last().unwrap());
}

/// Cells whose MACs never back off (CWmin 1: `Dcf::draw_backoff` draws below 1), so that a
/// beacon on an idle channel goes exactly DIFS after its time and is decoded at the end of
/// its frame: 50 us + 192 us PLCP + (50 + 28) bytes at 2 Mb/s = 554 us later.
fn no_backoff(spacing: f64) -> Cells {
    let mut cells = Cells {
        spacing,
        ..Cells::default()
    };
    cells.channel.dcf.cw_min = 1;
    cells
}

fn us(x: u64) -> Dur {
    Dur::from_micros(x)
}

/// Beacons on the air (the default): the first test's layout and motion with no traffic. The
/// rule hears each beacon when its frame ends, 554 us after its time (`no_backoff`), so every
/// handoff is the computed one plus 554 us: 5.025554, 15.050554, 25.075554, 35.050554 s, and
/// under Cellular IP semisoft the switch is S = 100 ms after each decision. The decisions are
/// the air's events (mobile station 4 = the fifth, base station i = station i - 1), and the
/// mobile's host made each handoff (its schedule, shared, is the one the air grew).
#[test]
fn beacons_on_the_air_decide_the_handoffs_when_their_frames_end() {
    let p = TreeParams {
        duration: Dur::from_secs(40),
        ..TreeParams::default()
    };
    let path = ping_pong_path(4, 200.0, 20.0, Time::ZERO);
    let air = DIFS_PLUS_BEACON;
    for (protocol, lead) in [
        (Protocol::Cip(CipHandoff::Hard), Dur::ZERO),
        (Protocol::Cip(CipHandoff::Semisoft), Dur::from_millis(100)),
        (Protocol::Hawaii(HawaiiScheme::Msf), Dur::ZERO),
    ] {
        let cfg = MobilityConfig::new(protocol);
        let (mut w, rd) =
            build_radio_tree(&p, &cfg, &no_backoff(200.0), std::slice::from_ref(&path), 5);
        assert!(
            rd.schedules[0].snapshot().handoffs.is_empty(),
            "none before the run"
        );
        w.run();
        let s = rd.schedules[0].snapshot();
        let got: Vec<(Time, usize, usize)> =
            s.handoffs.iter().map(|h| (h.at, h.from, h.to)).collect();
        assert_eq!(
            got,
            vec![
                (ms(5_025) + us(air) + lead, 0, 1),
                (ms(15_050) + us(air) + lead, 1, 2),
                (ms(25_075) + us(air) + lead, 2, 3),
                (ms(35_050) + us(air) + lead, 3, 2)
            ],
            "{protocol:?}"
        );
        let ev: Vec<(Time, Option<u16>, Option<u16>)> = rd
            .air(&w)
            .handoffs()
            .iter()
            .map(|e| (e.at, e.from.map(|b| b.0), e.to.map(|b| b.0)))
            .collect();
        assert_eq!(ev[0], (ms(0) + us(air), None, Some(0)), "first attach");
        assert_eq!(ev[1], (ms(5_025) + us(air), Some(0), Some(1)));
        assert_eq!(ev.len(), 5);
        assert!(rd.air(&w).handoffs().iter().all(|e| e.mobile.0 == 4));
        let host = rd.domain.host(&w, 0);
        assert_eq!(host.handoffs_done(), 4, "{protocol:?}");
        assert_eq!(host.schedule(), s);
    }
}

/// The fourth test's layout: cells 600 m apart, a mobile at 21 m/s from BS1 toward BS2,
/// Cellular IP hard handoff, 20 s, on `cells`.
fn apart_600m(cells: &Cells) -> (World, RadioDomain) {
    let cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Hard));
    let p = TreeParams {
        duration: Dur::from_secs(20),
        ..TreeParams::default()
    };
    let path = Path {
        waypoints: bs_positions(2, 600.0),
        speed: 21.0,
        start: Time::ZERO,
        traversal: Traversal::Once,
    };
    build_radio_tree(&p, &cfg, cells, &[path], 5)
}

/// DIFS + the beacon frame at 2 Mb/s, microseconds (see `no_backoff`).
const DIFS_PLUS_BEACON: u64 = 50 + 192 + (50 + 28) * 8 / 2;

/// Beacons on the air, cells that do not touch (the fourth test's layout, no traffic): BS1's
/// last beacon the mobile hears is the one of 11.9 s (it leaves the range at 11.905 s; the
/// air re-reads positions every 10 ms, so a frame started at 11.90005 s is heard), decoded at
/// 11.900554 s; three intervals later, at 12.200554 s, BS1 is lost (rule 2). BS2's first
/// beacon in range (x >= 350 m at 16.667 s, positions re-read at 16.67 s; BS2 beacons 25 ms
/// past each 100 ms) is decoded at 16.725554 s: one handoff at the loss with 4.525 s of
/// extra gap, pushed at the attachment, and the mobile attaches then.
#[test]
fn beacons_on_the_air_lost_base_station_is_a_handoff_pushed_at_the_attachment() {
    let (mut w, rd) = apart_600m(&no_backoff(600.0));
    w.run_until(ms(16_725));
    let s = rd.schedules[0].snapshot();
    assert!(s.handoffs.is_empty(), "detached, not yet attached: {s:?}");
    let ev = rd.air(&w).handoffs().to_vec();
    assert_eq!(ev.len(), 2);
    assert_eq!(
        (ev[1].at, ev[1].from, ev[1].to),
        (ms(12_200) + us(554), Some(crate::wifi::Sta(0)), None)
    );
    w.run();
    let s = rd.schedules[0].snapshot();
    assert_eq!(
        s.handoffs,
        vec![Handoff {
            at: ms(12_200) + us(554),
            from: 0,
            to: 1
        }]
    );
    assert_eq!(s.extra_gap, vec![Dur::from_millis(4_525)]);
    assert_eq!(s.serving(ms(16_725) + us(553)), None);
    assert_eq!(s.serving(ms(16_725) + us(554)), Some(1));
    assert_eq!(rd.domain.host(&w, 0).handoffs_done(), 1);
}

/// The event trace of a radio run: each decision of the beacon rule is a `handoff` row
/// (the mobile's node as `link`, `FROM->TO` as `reason`), here the first attachment, the loss
/// of BS1 and the attachment to BS2 of the test above (with a 1 Mb/s CBR flow on the air);
/// and a packet the MAC gave up is a `drop` row with reason `mac_retry_limit` on the link it came over.
#[test]
fn handoff_decisions_and_mac_drops_are_in_the_event_trace() {
    let (mut w, rd) = apart_600m(&no_backoff(600.0));
    let dir = std::env::temp_dir().join(format!("packetsim-radio-trace-{}", std::process::id()));
    let tc = crate::trace::TraceConfig {
        pcap_dir: None,
        events_dir: Some(dir.clone()),
        snaplen: 64,
        filter: crate::trace::TraceFilter::default(),
    };
    let names: Vec<String> = w.net.egresses.iter().map(|e| e.name.clone()).collect();
    w.set_tracer(crate::trace::Tracer::new(&tc, &names, &["cbr".to_string()]).unwrap());
    let d = rd.domain.clone();
    super::tests::downlink(&mut w, &d);
    w.run();
    w.take_tracer().unwrap().finish().unwrap();
    let text = std::fs::read_to_string(dir.join("events.csv")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let handoffs: Vec<&str> = text.lines().filter(|l| l.contains(",handoff,")).collect();
    let mh = &w.net.nodes[d.mhs[0].idx()].name;
    let (bs1, bs2) = (
        &w.net.nodes[d.bss[0].idx()].name,
        &w.net.nodes[d.bss[1].idx()].name,
    );
    // With the CBR flow on the air, BS1's beacon of 11.9 s contends with BS1's own data
    // frames: it goes after the exchange in progress, at most a 1000-byte frame at 2 Mb/s
    // (192 + 4112 us), SIFS, ACK (304 us) and DIFS later than on an idle channel, so the loss
    // is that much after 12.200554 s at most.
    let lost = rd.air(&w).handoffs()[1].at;
    assert!(lost >= ms(12_200) + us(554), "{lost}");
    assert!(
        lost <= ms(12_200) + us(554 + 4304 + 10 + 304 + 50),
        "{lost}"
    );
    assert_eq!(
        handoffs,
        vec![
            format!("0.000554,handoff,->{bs1},{mh},,,,,,,,,"),
            format!("{},handoff,{bs1}->,{mh},,,,,,,,,", lost.as_secs_f64()),
            format!("16.725554,handoff,->{bs2},{mh},,,,,,,,,"),
        ]
    );
    let mac_drops = text
        .lines()
        .filter(|l| l.contains(",drop,mac_retry_limit,"))
        .count() as u64;
    assert!(mac_drops >= 1);
    assert_eq!(
        mac_drops,
        w.books.dropped[crate::queue::DropReason::MacRetryLimit as usize]
    );
}
