//! `[mobility]` (spec 5 as scenario keys): the scenario file runs the same domain as the
//! study's builder, its defaults are spec 5 §3's, and every bad key is refused with file, line
//! and key.

use super::*;
use crate::mobility::{
    build_tree, CipHandoff, Departure, HandoffSchedule, MobilityConfig, MobilityReport, Protocol,
    TreeParams,
};
use crate::transport::tcp::AppData;
use crate::world::FlowPlacement;

const ORIGIN: &str = "mm.toml";

/// The text of `scenarios/<name>`.
pub(super) fn repository_scenario(name: &str) -> String {
    let path = format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("scenarios/{name}: {e}"))
}

fn scenario_file() -> String {
    repository_scenario("micromobility.toml")
}

/// `text` with `sets` loaded as the file `origin`.
pub(super) fn load_as(
    origin: &str,
    text: &str,
    sets: &[&str],
) -> std::result::Result<Scenario, ScenarioError> {
    let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    load_str(text, origin, &sets)
}

fn load(text: &str, sets: &[&str]) -> std::result::Result<Scenario, ScenarioError> {
    load_as(ORIGIN, text, sets)
}

/// The error for `text` with `sets` loaded as `origin`, asserted to name `line` (0: an
/// override) and `key`, and to say `what`.
#[track_caller]
pub(super) fn refused_as(
    origin: &str,
    text: &str,
    sets: &[&str],
    line: usize,
    key: &str,
    what: &str,
) {
    let e = load_as(origin, text, sets).expect_err("an error");
    let msg = e.to_string();
    if line > 0 {
        assert_eq!(e.line(), Some(line), "{msg}");
    } else {
        assert!(msg.starts_with(&format!("{origin}: --set ")), "{msg}");
    }
    assert_eq!(e.key(), Some(key), "{msg}");
    assert!(msg.contains(what), "expected {what:?} in: {msg}");
}

#[track_caller]
fn refused(text: &str, sets: &[&str], line: usize, key: &str, what: &str) {
    refused_as(ORIGIN, text, sets, line, key, what);
}

/// The line of the first line of `text` that starts with `prefix`.
fn line_of(text: &str, prefix: &str) -> usize {
    1 + text
        .lines()
        .position(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?}"))
}

/// The file's `[mobility]` table gives spec 5 §3's settings and §2.2's schedule: H = 3 in
/// 30 s at 7.5, 15, 22.5 s, BS1 → BS2 → BS3 → BS4.
#[test]
fn the_scenario_file_is_spec_5s_tree() {
    let sc = load(&scenario_file(), &[]).unwrap();
    let m = sc.mobility.as_ref().expect("[mobility]");
    assert_eq!(
        m.config,
        MobilityConfig::new(Protocol::Cip(CipHandoff::Semisoft))
    );
    assert_eq!(m.radio_rate, packetsim_kernel::Rate::mbps(2));
    assert_eq!(m.radio_delay, Dur::from_millis(1));
    assert_eq!(
        m.schedules,
        vec![HandoffSchedule::ping_pong(3, Dur::from_secs(30), 4, 0.0)]
    );
    let text = scenario_file().replace("handoffs = 3 ", "# ");
    let sc = load(
        &text,
        &[
            "mobility.protocol=\"hawaii_unf\"",
            "mobility.departure=\"blind\"",
            "mobility.radio_loss=0.05",
            "mobility.handoff_times=[{at=\"1s\",to=\"bs3\"},{at=\"2s\",to=\"bs1\"}]",
        ],
    )
    .unwrap();
    let m = sc.mobility.unwrap();
    assert_eq!(m.config.departure, Departure::Blind);
    assert_eq!(m.config.radio_loss, 0.05);
    assert_eq!(
        m.schedules[0],
        HandoffSchedule::explicit(
            0,
            &[(Time::from_millis(1000), 2), (Time::from_millis(2000), 0)]
        )
    );
}

/// The scenario, without start jitter, runs exactly the world the study's builder makes
/// (same nodes and links in the same order, same elements): same bytes delivered, same
/// handoff losses, duplicates and control messages, for each protocol. The summary's
/// `mobility` object reports them.
#[test]
fn the_scenario_runs_the_studys_domain() {
    for (name, protocol) in [
        ("cip_semisoft", Protocol::Cip(CipHandoff::Semisoft)),
        ("cip_hard", Protocol::Cip(CipHandoff::Hard)),
        (
            "hawaii_msf",
            Protocol::Hawaii(crate::mobility::HawaiiScheme::Msf),
        ),
        ("mobile_ip", Protocol::MobileIp),
    ] {
        let set = format!("mobility.protocol=\"{name}\"");
        let sc = load(
            &scenario_file(),
            &[&set, "flows.ftp.start_jitter=\"0s\"", "mobility.handoffs=7"],
        )
        .unwrap();
        let out = run(&sc, 1).unwrap();
        let from_file = MobilityReport::of_world(&out.world).expect("mobility elements");
        let summary = out.summary.mobility.as_ref().expect("a mobility summary");
        let delivered = out.world.flows[0].delivered;

        let cfg = MobilityConfig::new(protocol);
        let schedule = HandoffSchedule::ping_pong(7, Dur::from_secs(30), 4, 0.0);
        let (mut w, d) = build_tree(&TreeParams::default(), &cfg, &[schedule], 1);
        let FlowKind::Tcp { tcp, .. } = &sc.flow_tables[0].first.kind else {
            panic!("a tcp flow")
        };
        let at = FlowPlacement {
            from: d.cn,
            to: d.mhs[0],
            start: Time::ZERO,
            stop: None,
            dscp: 0,
        };
        w.add_tcp_flow("ftp", at, tcp, AppData::Unlimited);
        w.run();
        assert_eq!(delivered, w.flows[0].delivered, "{name}");
        assert_eq!(from_file, d.report(&w), "{name}");
        assert!(delivered > 5_000_000, "{name}: {delivered}");
        assert_eq!(summary.handoffs, 7, "{name}");
        assert_eq!(summary.handoff_loss, from_file.handoff_losses(), "{name}");
        assert_eq!(
            summary.control_sent.values().sum::<u64>(),
            from_file.control_messages(),
            "{name}"
        );
    }
}

/// Every refusal names the file, the line (or the override) and the key.
#[test]
fn bad_mobility_keys_are_located() {
    let text = scenario_file();
    let proto = line_of(&text, "protocol = ");
    let bss = line_of(&text, "base_stations = ");
    let mhs = line_of(&text, "mobiles = ");
    let loss = line_of(&text, "radio_loss = ");
    refused(
        &text.replace("\"cip_semisoft\"  ", "\"cellular\""),
        &[],
        proto,
        "mobility.protocol",
        "unknown value `cellular`",
    );
    refused(
        &text.replace("\"bs3\", \"bs4\"]", "\"bs3\", \"bs5\"]"),
        &[],
        bss,
        "mobility.base_stations[3]",
        "`bs5` is not one",
    );
    refused(
        &text.replace("\"bs3\", \"bs4\"]", "\"bs3\", \"bs3\"]"),
        &[],
        bss,
        "mobility.base_stations[3]",
        "named twice",
    );
    refused(
        &text.replace("mobiles = [\"mh\"]", "mobiles = [\"r1\"]"),
        &[],
        mhs,
        "mobility.mobiles[0]",
        "an end of links.gw_r1",
    );
    refused(
        &text.replace("mobiles = [\"mh\"]", "mobiles = []"),
        &[],
        mhs,
        "mobility.mobiles",
        "at least one mobile",
    );
    refused(
        &text.replace("radio_loss = 0.0 ", "radio_loss = 1.5 "),
        &[],
        loss,
        "mobility.radio_loss",
        "from 0 to 1; got 1.5",
    );
    refused(
        &text,
        &["mobility.handoff_times=[{at=\"1s\",to=\"bs2\"}]"],
        0,
        "mobility.handoff_times",
        "not both",
    );
    let explicit = text.replace("handoffs = 3 ", "first = \"bs2\" ");
    for (set, key, what) in [
        (
            "[{at=\"1s\",to=\"bs2\"}]",
            "mobility.handoff_times[0].to",
            "already at `bs2`",
        ),
        (
            "[{at=\"2s\",to=\"bs1\"},{at=\"1s\",to=\"bs2\"}]",
            "mobility.handoff_times[1].at",
            "increasing order",
        ),
        (
            "[{at=\"31s\",to=\"bs1\"}]",
            "mobility.handoff_times[0].at",
            "inside the run",
        ),
        (
            "[{at=\"1s\",to=\"bs9\"}]",
            "mobility.handoff_times[0].to",
            "got `bs9`",
        ),
    ] {
        refused(
            &explicit,
            &[&format!("mobility.handoff_times={set}")],
            0,
            key,
            what,
        );
    }
    refused(
        &text,
        &["mobility.route_timeout=\"0s\""],
        0,
        "mobility.route_timeout",
        "positive duration",
    );
    refused(
        &text,
        &["mobility.home_agent=\"cn\""],
        0,
        "mobility.home_agent",
        "mobile_ip",
    );
    refused(
        &text,
        &[
            "mobility.protocol=\"mobile_ip\"",
            "mobility.home_agent=\"bs1\"",
        ],
        0,
        "mobility.home_agent",
        "a node of its own",
    );
    // Cellular IP paging (spec 5 §2.3).
    refused(
        &text,
        &["mobility.protocol=\"hawaii_msf\"", "mobility.paging=true"],
        0,
        "mobility.paging",
        "belongs to Cellular IP",
    );
    refused(
        &text,
        &["mobility.paging_timeout=\"20s\""],
        0,
        "mobility.paging_timeout",
        "needs `paging = true`",
    );
    refused(
        &text,
        &["mobility.paging=true", "mobility.active_timeout=\"0s\""],
        0,
        "mobility.active_timeout",
        "positive duration",
    );
    refused(
        &text,
        &["mobility.paging=true", "mobility.paging_timeout=\"2s\""],
        0,
        "mobility.paging_timeout",
        "paging_timeout (2 s) above paging_update_time (3 s)",
    );
    let sc = load(
        &text,
        &["mobility.paging=true", "mobility.paging_update_time=\"4s\""],
    )
    .unwrap();
    let c = sc.mobility.expect("[mobility]").config;
    assert!(c.paging);
    assert_eq!(c.paging_update_time, Dur::from_secs(4));
    assert_eq!(c.paging_timeout, Dur::from_secs(9), "the default");
    refused(
        &text,
        &["mobility.colour=\"red\""],
        0,
        "mobility.colour",
        "unknown key",
    );
}

/// A base station whose only way to the gateway is through a mobile's radio is refused when
/// building, at its key and line.
#[test]
fn a_base_station_off_the_domain_is_refused_when_building() {
    let text = scenario_file().replace("[nodes.mh]", "[nodes.mh]\n[nodes.bs5]");
    let text = text.replace("\"bs3\", \"bs4\"]", "\"bs3\", \"bs4\", \"bs5\"]");
    let sc = load(&text, &[]).unwrap();
    let e = build(&sc, 1).err().expect("a build error");
    let msg = e.to_string();
    let line = line_of(&text, "base_stations = ");
    assert!(
        msg.starts_with(&format!("{ORIGIN}:{line}: mobility.base_stations: ")),
        "{msg}"
    );
    assert!(
        msg.contains("`bs5` reaches the gateway only through a mobile"),
        "{msg}"
    );
}

/// `crossover_delay` (issue 34 item 3): Cellular IP semisoft's delay device as the Cellular
/// IP papers and CIMS place it, a fixed delay on the new path at the crossover
/// (`MobilityConfig::crossover_delay`), beside the spec's ideal device at the new base
/// station (`delay_device`). The file's run with the key is the builder's run with that
/// setting, packet for packet; a protocol without semisoft bicasting and a zero delay are
/// refused with the key.
#[test]
fn crossover_delay_is_semisofts_fixed_delay_on_the_new_path() {
    let text = scenario_file();
    let sets = [
        "flows.ftp.start_jitter=\"0s\"",
        "mobility.handoffs=7",
        "mobility.delay_device=false",
        "mobility.crossover_delay=\"100ms\"",
    ];
    let sc = load(&text, &sets).unwrap();
    let spec = sc.mobility.as_ref().expect("[mobility]");
    assert_eq!(spec.config.crossover_delay, Some(Dur::from_millis(100)));
    assert!(!spec.config.delay_device);
    let out = run(&sc, 1).unwrap();
    let from_file = MobilityReport::of_world(&out.world).expect("mobility elements");

    let mut cfg = MobilityConfig::new(Protocol::Cip(CipHandoff::Semisoft));
    cfg.delay_device = false;
    cfg.crossover_delay = Some(Dur::from_millis(100));
    let schedule = HandoffSchedule::ping_pong(7, Dur::from_secs(30), 4, 0.0);
    let (mut w, d) = build_tree(&TreeParams::default(), &cfg, &[schedule], 1);
    let FlowKind::Tcp { tcp, .. } = &sc.flow_tables[0].first.kind else {
        panic!("a tcp flow")
    };
    let at = FlowPlacement {
        from: d.cn,
        to: d.mhs[0],
        start: Time::ZERO,
        stop: None,
        dscp: 0,
    };
    w.add_tcp_flow("ftp", at, tcp, AppData::Unlimited);
    w.run();
    assert_eq!(out.world.flows[0].delivered, w.flows[0].delivered);
    assert_eq!(from_file, d.report(&w));
    // Without the key the default stays: no delay at the crossover.
    let plain = load(&text, &sets[..3]).unwrap();
    assert_eq!(plain.mobility.unwrap().config.crossover_delay, None);

    refused(
        &text,
        &[
            "mobility.protocol=\"hawaii_msf\"",
            "mobility.crossover_delay=\"100ms\"",
        ],
        0,
        "mobility.crossover_delay",
        "Cellular IP semisoft's delay device",
    );
    refused(
        &text,
        &["mobility.crossover_delay=\"0s\""],
        0,
        "mobility.crossover_delay",
        "expected a positive duration",
    );
}
