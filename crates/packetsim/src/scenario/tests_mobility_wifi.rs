//! `[mobility]` with `radio = "wifi"`: scenarios/micromobility-wifi.toml runs study 5's
//! default point on the 802.11 radio (same world, same numbers at the same seed), and every
//! bad key of the radio is refused with file, line and key.

use super::tests_mobility::{load_as, refused_as, repository_scenario};
use super::*;
use crate::mobility::radio::AirElement;
use crate::mobility::{CipHandoff, MobilityReport, Protocol};
use crate::studies::micromobility::{run_point, Point};
use crate::transport::tcp::Variant;

const ORIGIN: &str = "mmw.toml";

fn scenario_file() -> String {
    repository_scenario("micromobility-wifi.toml")
}

fn load(text: &str, sets: &[&str]) -> std::result::Result<Scenario, ScenarioError> {
    load_as(ORIGIN, text, sets)
}

#[track_caller]
fn refused(text: &str, sets: &[&str], line: usize, key: &str, what: &str) {
    refused_as(ORIGIN, text, sets, line, key, what);
}

/// The metric `name` of a study run.
fn metric(m: &[(String, Option<f64>)], name: &str) -> Option<f64> {
    m.iter().find(|x| x.0 == name).and_then(|x| x.1)
}

/// The file is the study's default point (cip_semisoft, SACK, H = 3, N = 1, e = 0 on the
/// radio, `studies::micromobility::run_point`): with the flow started when the study's draw
/// starts it, the same bytes arrive, the same handoffs happen at the same outage and the
/// MACs drop and retry the same frames, at each seed.
#[test]
fn the_wifi_scenario_file_is_the_studys_default_point() {
    let point = Point::base(Protocol::Cip(CipHandoff::Semisoft), Variant::Sack);
    for seed in [5, 6] {
        // The study draws its flows' starts from one stream (`measure::run_point`).
        let mut jitter = packetsim_kernel::Rng::for_component(seed, "flows.start_jitter");
        let start = (jitter.uniform() * 10e6) as u64;
        let mut sc = load(&scenario_file(), &["flows.ftp0.start_jitter=\"0s\""]).unwrap();
        sc.flow_tables[0].first.start = Time::from_nanos(start);
        let out = run(&sc, seed).unwrap();
        let report = MobilityReport::of_world(&out.world).expect("mobility elements");
        let air = out
            .world
            .elements
            .iter()
            .find_map(|e| e.element.as_any().downcast_ref::<AirElement>())
            .expect("the air's element")
            .stats();
        let thr = out.world.flows[0].delivered as f64 * 8.0 / 30.0 / 1000.0;

        let study = run_point(&point, seed, 30.0).metrics;
        assert_eq!(metric(&study, "thr_kbps"), Some(thr), "seed {seed}");
        assert!(thr > 500.0, "seed {seed}: {thr} kb/s");
        assert_eq!(
            metric(&study, "handoffs"),
            Some(report.handoffs as f64),
            "seed {seed}"
        );
        assert!(report.handoffs >= 3, "seed {seed}: {report:?}");
        assert_eq!(
            metric(&study, "handoff_loss"),
            Some(report.handoff_losses() as f64),
            "seed {seed}"
        );
        let drops: u64 = air.mac_drops_down.iter().sum();
        assert_eq!(
            metric(&study, "mac_drops"),
            Some(drops as f64),
            "seed {seed}"
        );
        assert_eq!(
            metric(&study, "mac_retries"),
            Some(air.retries as f64),
            "seed {seed}"
        );
        let outage = (!report.outages.is_empty()).then(|| {
            report
                .outages
                .iter()
                .map(|o| o.as_secs_f64() * 1e3)
                .sum::<f64>()
                / report.outages.len() as f64
        });
        assert_eq!(metric(&study, "outage_ms"), outage, "seed {seed}");
    }
}

/// The radio's keys: defaults as `mobility::radio::Cells`, the speed from `handoffs`.
#[test]
fn the_wifi_keys_set_the_cells_and_the_motion() {
    let sc = load(
        &scenario_file(),
        &[
            "mobility.spacing=500",
            "mobility.beacon_interval=\"1s\"",
            "mobility.data_rate=\"11Mbps\"",
            "mobility.beacons_on_air=false",
        ],
    )
    .unwrap();
    let w = sc
        .mobility
        .as_ref()
        .unwrap()
        .wifi
        .as_ref()
        .expect("radio = wifi");
    assert_eq!(w.cells.spacing, 500.0);
    assert_eq!(w.cells.beacons.interval, Dur::from_secs(1));
    assert_eq!(
        w.cells.channel.dcf.phy.data_rate,
        packetsim_kernel::Rate::mbps(11)
    );
    assert!(!w.cells.beacons_on_air);
    // Three crossings of 500 m in 30 s.
    assert_eq!(w.paths[0].speed, 50.0);
    let sc = load(
        &scenario_file(),
        &["mobility.handoffs=0", "mobility.speed=12.5"],
    );
    assert!(sc.is_err(), "handoffs and speed together");
    let text = scenario_file().replace("handoffs = 3 ", "speed = 12.5");
    let sc = load(&text, &[]).unwrap();
    assert_eq!(sc.mobility.unwrap().wifi.unwrap().paths[0].speed, 12.5);
}

/// Every refusal names the file, the line (or the override) and the key.
#[test]
fn bad_wifi_mobility_keys_are_located() {
    let text = scenario_file();
    let at = |prefix: &str| {
        1 + text
            .lines()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?}"))
    };
    let spacing = text.replace("spacing = 200 ", "spacing = -5  ");
    refused(
        &spacing,
        &[],
        at("spacing = "),
        "mobility.spacing",
        "positive distance",
    );
    let rate = text.replace("data_rate = \"2Mbps\"", "data_rate = \"3Mbps\"");
    refused(
        &rate,
        &[],
        at("data_rate = "),
        "mobility.data_rate",
        "802.11b rate",
    );
    let beacon = text.replace("beacon_interval = \"100ms\"", "beacon_interval = \"0s\"  ");
    refused(
        &beacon,
        &[],
        at("beacon_interval = "),
        "mobility.beacon_interval",
        "positive duration",
    );
    let link_key = text.replace("radio_queue = 50", "radio_rate = \"2Mbps\"");
    refused(
        &link_key,
        &[],
        at("radio_queue = "),
        "mobility.radio_rate",
        "point-to-point radio",
    );
    let both = text.replace("handoffs = 3 ", "handoffs = 3\nspeed = 10");
    refused(
        &both,
        &[],
        at("handoffs = ") + 1,
        "mobility.speed",
        "not both",
    );
    let still = text.replace("handoffs = 3 ", "handoffs = 0 ");
    refused(
        &still,
        &[],
        at("handoffs = "),
        "mobility.handoffs",
        "expected the mobiles to move",
    );
    // A radio key without the radio: on the override that gives it.
    let p2p = text.replace("radio = \"wifi\"", "radio = \"link\"");
    refused(
        &p2p,
        &[],
        at("spacing = "),
        "mobility.spacing",
        "needs `radio = \"wifi\"`",
    );
    let q2 = text
        .lines()
        .filter(|l| {
            ![
                "radio = ",
                "spacing",
                "beacon",
                "data_rate",
                "delay_device",
                "crossover",
            ]
            .iter()
            .any(|k| l.starts_with(k))
        })
        .collect::<Vec<_>>()
        .join("\n");
    load(&q2, &[]).expect("without the radio's keys, spec 5 Q2's radio links");
    refused(
        &q2,
        &["mobility.speed=3"],
        0,
        "mobility.speed",
        "needs `radio",
    );
}
