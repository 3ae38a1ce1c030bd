//! Scenario loading: the documented example, expansion, merging, overrides, and one test per
//! kind of error asserting file, line and key path. Plus a never-panics property test.

use super::*;
use crate::transport::tcp::Variant;
use proptest::prelude::*;

const ORIGIN: &str = "x.toml";

/// Every flow of `s`, copies made.
fn fl(s: &Scenario) -> Vec<FlowSpec> {
    s.flows().collect()
}

fn doc_example() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario-format.md");
    let md = std::fs::read_to_string(path).expect("docs/scenario-format.md exists");
    let start = md.find("```toml\n").expect("the doc has a ```toml block") + "```toml\n".len();
    let len = md[start..].find("```").expect("the toml block is closed");
    md[start..start + len].to_owned()
}

fn ok(text: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    load_str(text, ORIGIN, &sets).unwrap_or_else(|e| panic!("{e}"))
}

fn bad(text: &str, sets: &[&str]) -> ScenarioError {
    let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    match load_str(text, ORIGIN, &sets) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts the message names the file and line, the key path, and contains `what`.
#[track_caller]
fn assert_at(e: &ScenarioError, line: usize, key: &str, what: &str) {
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("{ORIGIN}:{line}: {key}: ")),
        "expected {ORIGIN}:{line}: {key}: ..., got: {msg}"
    );
    assert!(msg.contains(what), "expected {what:?} in: {msg}");
    assert_eq!(e.line(), Some(line), "{msg}");
    assert_eq!(e.key(), Some(key), "{msg}");
}

const BASE: &str = r#"[simulation]
duration = "10s"

[nodes.a]
[nodes.b]
[nodes.c]

[links.l1]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"

[links.l2]
a = "b"
b = "c"
rate = "2Mbps"
delay = "20ms"

[flows.f]
from = "a"
to = "c"
"#;

// ---- good input ----------------------------------------------------------------------

#[test]
fn doc_example_loads_with_every_key() {
    let s = ok(&doc_example(), &[]);
    assert_eq!(s.simulation.duration, Dur::from_secs(60));
    assert_eq!(s.simulation.seed, 1);
    assert_eq!(s.simulation.sample_interval, Some(Dur::from_millis(100)));
    assert_eq!(s.nodes, ["s1", "s2", "r1", "r2", "d1", "d2"]);
    let names: Vec<&str> = s.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        ["access1", "access2", "bottleneck", "egress1", "egress2"]
    );
    let b = &s.links[2];
    assert_eq!((b.a.as_str(), b.b.as_str()), ("r1", "r2"));
    assert_eq!(b.rate, Rate::mbps(2));
    assert_eq!(b.delay, Dur::from_millis(15));
    assert_eq!(
        b.queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(50),
            ns2_limit: false
        }
    );
    assert_eq!(
        (b.loss, b.ber, b.errors),
        (0.01, 1e-6, ErrorDirection::AToB)
    );
    assert_eq!(
        b.outages,
        [(Time::from_millis(10_000), Time::from_millis(12_000))]
    );
    assert_eq!(
        s.links[3].queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Bytes(150_000),
            ns2_limit: false
        }
    );
    assert_eq!(
        s.links[0].queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(DEFAULT_QUEUE_PACKETS),
            ns2_limit: false
        }
    );
    let flows = fl(&s);
    let names: Vec<&str> = flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["ftp", "web_0", "web_1", "web_2", "web_3", "video"]);
    match &fl(&s)[0].kind {
        FlowKind::Tcp { app, tcp } => {
            assert_eq!(*app, App::File { bytes: 4 << 20 });
            assert_eq!(tcp.variant, Variant::Sack);
        }
        k => panic!("ftp is tcp, got {k:?}"),
    }
    assert_eq!(
        fl(&s)[5].kind,
        FlowKind::Cbr {
            rate: Rate::mbps(1),
            packet_size: 1000
        }
    );
    assert_eq!(fl(&s)[5].stop, Some(Time::from_millis(45_000)));
    assert_eq!(s.text, doc_example());
}

#[test]
fn count_expands_into_staggered_copies_with_a_shared_stop() {
    let text = format!("{BASE}count = 3\nstart = \"1s\"\nstagger = \"10ms\"\nstop = \"5s\"\n");
    let s = ok(&text, &[]);
    let flows = fl(&s);
    let got: Vec<(&str, Time, Option<Time>)> = flows
        .iter()
        .map(|f| (f.name.as_str(), f.start, f.stop))
        .collect();
    let stop = Some(Time::from_millis(5000));
    assert_eq!(
        got,
        [
            ("f_0", Time::from_millis(1000), stop),
            ("f_1", Time::from_millis(1010), stop),
            ("f_2", Time::from_millis(1020), stop),
        ]
    );
    assert_eq!(
        fl(&s)[0].kind,
        FlowKind::Tcp {
            app: App::Bulk,
            tcp: TcpConfig::default()
        }
    );
}

/// Issue 12 item 7: `start_jitter` delays each copy's start by a draw from U[0, jitter] made
/// with the run seed (ns-2 and ns-3 studies add such a jitter so replications differ).
#[test]
fn start_jitter_delays_each_copy_by_a_seeded_draw_within_the_bound() {
    let text =
        format!("{BASE}count = 20\nstart = \"1s\"\nstagger = \"10ms\"\nstart_jitter = \"100ms\"\n");
    let s = ok(&text, &[]);
    // The loaded spec keeps the nominal start; the draw is made when the world is built.
    assert_eq!(fl(&s)[3].start, Time::from_millis(1030));
    assert_eq!(fl(&s)[3].start_jitter, Dur::from_millis(100));
    let starts = |seed| -> Vec<Time> {
        let w = build(&s, seed).unwrap();
        w.flows.iter().map(|f| f.start).collect()
    };
    let one = starts(1);
    assert_eq!(one, starts(1), "the same seed draws the same starts");
    assert_ne!(one, starts(2), "another seed draws other starts");
    let mut offsets = std::collections::HashSet::new();
    for (i, &t) in one.iter().enumerate() {
        let nominal = Time::from_millis(1000 + 10 * i as u64);
        assert!(
            t >= nominal && t <= nominal + Dur::from_millis(100),
            "copy {i} starts at {t:?}, outside [{nominal:?}, +100ms]"
        );
        offsets.insert((t - nominal).as_nanos());
    }
    assert!(
        offsets.len() >= 19,
        "the copies draw independently: {offsets:?}"
    );
    // Without the key nothing is drawn: the built starts are the nominal ones.
    let plain = ok(
        &format!("{BASE}count = 3\nstart = \"1s\"\nstagger = \"10ms\"\n"),
        &[],
    );
    let w = build(&plain, 1).unwrap();
    let got: Vec<Time> = w.flows.iter().map(|f| f.start).collect();
    assert_eq!(
        got,
        [1000, 1010, 1020].map(Time::from_millis),
        "no jitter, no change"
    );
    // A jitter that could push the last start to the end of the run or to `stop` is refused,
    // naming the key.
    let e = bad(
        &format!("{BASE}start = \"9s\"\nstart_jitter = \"1s\"\n"),
        &[],
    );
    assert_at(
        &e,
        24,
        "flows.f.start_jitter",
        "not before the end of the run (simulation.duration = 10s)",
    );
    let e = bad(
        &format!("{BASE}start = \"1s\"\nstop = \"2s\"\nstart_jitter = \"1s\"\n"),
        &[],
    );
    assert_at(&e, 25, "flows.f.start_jitter", "not before stop (2s)");
    ok(
        &format!("{BASE}start = \"1s\"\nstop = \"2s\"\nstart_jitter = \"999ms\"\n"),
        &[],
    );
}

#[test]
fn count_one_keeps_the_plain_name_and_defaults_apply() {
    let s = ok(BASE, &[]);
    assert_eq!(s.flow_count() as usize, 1);
    assert_eq!(fl(&s)[0].name, "f");
    assert_eq!(fl(&s)[0].start, Time::ZERO);
    assert_eq!(fl(&s)[0].stop, None);
    assert_eq!(s.simulation.seed, 1);
    assert_eq!(s.links[0].errors, ErrorDirection::AToB);
    assert_eq!((s.links[0].loss, s.links[0].ber), (0.0, 0.0));
}

#[test]
fn flow_tcp_is_merged_key_by_key_over_tcp_defaults() {
    let text = BASE.replace(
        "[nodes.a]",
        "[tcp]\nvariant = \"reno\"\nmss = 1000\ntimestamps = true\n\n[nodes.a]",
    )
        + "tcp = { mss = 500, variant = \"sack\" }\n\n[flows.g]\nfrom = \"c\"\nto = \"a\"\n";
    let s = ok(&text, &[]);
    let tcp = |i: usize| match &fl(&s)[i].kind {
        FlowKind::Tcp { tcp, .. } => tcp.clone(),
        k => panic!("{k:?}"),
    };
    let f = tcp(0);
    assert_eq!((f.variant, f.mss, f.timestamps), (Variant::Sack, 500, true));
    assert_eq!(f.rcv_window, TcpConfig::default().rcv_window);
    let g = tcp(1);
    assert_eq!(
        (g.variant, g.mss, g.timestamps),
        (Variant::Reno, 1000, true)
    );
}

// docs/scenario-format.md, TCP variants: `cubic` is selectable by name and runs RFC 9438.
#[test]
fn tcp_variant_cubic_is_selectable_by_name() {
    use crate::transport::tcp::cc::CongestionControl;
    let s = ok(&format!("{BASE}tcp = {{ variant = \"cubic\" }}\n"), &[]);
    let flow0 = s.flows().next().expect("one flow");
    match &flow0.kind {
        FlowKind::Tcp { tcp, .. } => {
            assert_eq!(tcp.variant, Variant::Cubic);
            assert_eq!(tcp.variant.build(tcp).0.name(), "cubic");
        }
        k => panic!("{k:?}"),
    }
}

// docs/scenario-format.md, TCP variants: `dctcp` is selectable by name with ECN and the
// RFC 8257 §3.2 echo; without them the error names the key and what is expected.
#[test]
fn tcp_variant_dctcp_is_selectable_by_name_and_needs_ecn() {
    use crate::transport::tcp::cc::CongestionControl;
    use crate::transport::tcp::EcnEcho;
    let s = ok(
        &format!(
            "{BASE}tcp = {{ variant = \"dctcp\", ecn = true, ecn_echo = \"per_segment\", \
             dctcp_g = 0.125 }}\n"
        ),
        &[],
    );
    let flow0 = s.flows().next().expect("one flow");
    match &flow0.kind {
        FlowKind::Tcp { tcp, .. } => {
            assert_eq!(tcp.variant, Variant::Dctcp);
            assert_eq!((tcp.ecn_echo, tcp.dctcp_g), (EcnEcho::PerSegment, 0.125));
            assert_eq!(tcp.variant.build(tcp).0.name(), "dctcp");
        }
        k => panic!("{k:?}"),
    }
    // Without `profile`, dctcp implies ECN and the per-segment echo (issue 33, profile.rs);
    // under profile = "standard" they must be written.
    let std = format!("profile = \"standard\"\n{BASE}");
    let e = bad(&format!("{std}tcp = {{ variant = \"dctcp\" }}\n"), &[]);
    assert_at(&e, 24, "flows.f.tcp.ecn", "expected ecn = true");
    let e = bad(
        &format!("{std}tcp = {{ variant = \"dctcp\", ecn = true }}\n"),
        &[],
    );
    assert_at(
        &e,
        24,
        "flows.f.tcp.ecn_echo",
        "expected ecn_echo = \"per_segment\"",
    );
    let e = bad(&format!("{BASE}tcp = {{ ecn_echo = \"dctcp\" }}\n"), &[]);
    assert_at(&e, 23, "flows.f.tcp.ecn_echo", "unknown value `dctcp`");
}

#[test]
fn overrides_set_numbers_strings_nested_keys_and_create_missing_ones() {
    let s = ok(
        BASE,
        &[
            "links.l2.loss=0.01",
            "links.l2.rate=10Mbps",
            "flows.f.tcp.variant=sack",
            "simulation.seed=7",
            "links.l1.queue={ limit = \"64KiB\" }",
            "flows.f.stop = 3s",
        ],
    );
    assert_eq!(s.links[1].loss, 0.01);
    assert_eq!(s.links[1].rate, Rate::mbps(10));
    assert_eq!(s.simulation.seed, 7);
    assert_eq!(
        s.links[0].queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Bytes(65536),
            ns2_limit: false
        }
    );
    assert_eq!(fl(&s)[0].stop, Some(Time::from_millis(3000)));
    match &fl(&s)[0].kind {
        FlowKind::Tcp { tcp, .. } => assert_eq!(tcp.variant, Variant::Sack),
        k => panic!("{k:?}"),
    }
    // The effective text records the overrides and reloads to the same scenario.
    let again = ok(&s.text, &[]);
    assert_eq!(again.links, s.links);
    assert_eq!(again.flow_tables, s.flow_tables);
}

#[test]
fn overrides_can_add_a_whole_table_and_later_ones_win() {
    let s = ok(
        BASE,
        &[
            "nodes.d={}",
            "flows.h.from=a",
            "flows.h.to=d",
            "links.l3={ a = \"c\", b = \"d\", rate = \"1Mbps\", delay = \"1ms\" }",
            "links.l1.loss=0.5",
            "links.l1.loss=0.25",
        ],
    );
    assert_eq!(s.nodes, ["a", "b", "c", "d"]);
    assert_eq!(s.links.len(), 3);
    assert_eq!(s.links[2].name, "l3");
    assert_eq!(fl(&s)[1].name, "h");
    assert_eq!(s.links[0].loss, 0.25);
}

#[test]
fn override_syntax_needs_a_path_and_an_equals_sign() {
    assert!("links.l1.loss".parse::<Override>().is_err());
    assert!("=3".parse::<Override>().is_err());
    let o: Override = "a.b=c=d".parse().unwrap();
    assert_eq!((o.path.as_str(), o.value.as_str()), ("a.b", "c=d"));
}

#[test]
fn file_order_is_kept_not_sorted() {
    let text = "[simulation]\nduration = \"1s\"\n[nodes.z]\n[nodes.m]\n[nodes.a]\n\
        [links.zz]\na = \"z\"\nb = \"m\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
        [links.aa]\na = \"m\"\nb = \"a\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
        [flows.q]\nfrom = \"z\"\nto = \"a\"\n[flows.b]\nfrom = \"a\"\nto = \"z\"\n";
    let s = ok(text, &[]);
    assert_eq!(s.nodes, ["z", "m", "a"]);
    assert_eq!(s.links[0].name, "zz");
    assert_eq!(fl(&s)[0].name, "q");
}

// ---- bad input: file, line, key ------------------------------------------------------

#[test]
fn unknown_key_is_rejected_with_the_allowed_keys() {
    let e = bad(
        &BASE.replace("delay = \"5ms\"", "delay = \"5ms\"\njitter = 3"),
        &[],
    );
    assert_at(
        &e,
        13,
        "links.l1.jitter",
        "unknown key `jitter`; expected one of `a`, `b`",
    );
    let e = bad(&format!("{BASE}\n[routes]\n"), &[]);
    assert_at(&e, 24, "routes", "unknown key `routes`");
    let e = bad(&BASE.replace("[nodes.b]", "[nodes.b]\nx = 1"), &[]);
    assert_at(
        &e,
        6,
        "nodes.b.x",
        "unknown key `x`; expected one of `addresses`, `routes`, `position`, `motion`",
    );
}

#[test]
fn malformed_unit_names_the_expected_form() {
    let e = bad(&BASE.replace("rate = \"2Mbps\"", "rate = \"10 Mbs\""), &[]);
    assert_at(
        &e,
        17,
        "links.l2.rate",
        "expected a rate with a unit (bps, kbps, Mbps, Gbps), e.g. \"10Mbps\"; got \"10 Mbs\"",
    );
    let e = bad(&BASE.replace("rate = \"2Mbps\"", "rate = 2"), &[]);
    assert_at(&e, 17, "links.l2.rate", "expected a rate with a unit");
}

#[test]
fn negative_delay_is_rejected() {
    let e = bad(&BASE.replace("delay = \"20ms\"", "delay = \"-5ms\""), &[]);
    assert_at(&e, 18, "links.l2.delay", "cannot be negative");
}

#[test]
fn unknown_node_in_a_link_or_flow_lists_the_known_nodes() {
    let e = bad(&BASE.replace("b = \"c\"", "b = \"q\""), &[]);
    assert_at(
        &e,
        16,
        "links.l2.b",
        "`q` is not one (known nodes: a, b, c)",
    );
    let e = bad(&BASE.replace("to = \"c\"", "to = \"zz\""), &[]);
    assert_at(&e, 22, "flows.f.to", "`zz` is not one");
}

#[test]
fn missing_required_key_points_at_the_table_header() {
    let e = bad(&BASE.replace("delay = \"20ms\"\n", ""), &[]);
    assert_at(&e, 14, "links.l2.delay", "missing required key `delay`");
    let e = bad(&BASE.replace("[simulation]\nduration = \"10s\"\n", ""), &[]);
    assert_at(&e, 1, "simulation", "missing required key `simulation`");
    // Issue 16: a file starting with another table used to get `nodes.a.simulation`.
    let e = bad(
        &BASE.replace("[simulation]\nduration = \"10s\"\n\n", ""),
        &[],
    );
    assert_at(&e, 1, "simulation", "missing required key `simulation`");
    let e = bad("seed = 1\n[nodes.a]\n", &[]);
    assert_ne!(e.key(), Some("seed.simulation"), "{e}");
}

/// Issue 16: a truncated file was accepted as "0 nodes, 0 links, 0 flows". A scenario without
/// flows is refused before a run (`check_flows`, called by check, run and sweep), at the
/// `[flows]` table if written, else at the file's last key.
#[test]
fn a_scenario_without_flows_is_refused_at_the_end_of_the_file() {
    let cut = BASE.split("[flows.f]").next().unwrap();
    let sc = ok(cut, &[]);
    assert!(
        build(&sc, 1).is_ok(),
        "the library still builds a flowless network"
    );
    let e = check_flows(&sc).unwrap_err();
    assert_eq!(e.key, "flows");
    assert_eq!(e.at, Some(Location::Line(18)), "{e}");
    assert!(e.msg.contains("is the file cut short?"), "{e}");
    let sc = ok(&format!("{cut}[flows]\n"), &[]);
    let e = check_flows(&sc).unwrap_err();
    assert_eq!(e.at, Some(Location::Line(20)), "{e}");
    assert_eq!(
        e.msg,
        "expected at least one [flows.NAME] table: a scenario without flows sends nothing"
    );
    check_flows(&ok(BASE, &[])).unwrap();
}

#[test]
fn loss_above_one_is_out_of_range() {
    let e = bad(
        &BASE.replace("delay = \"5ms\"", "delay = \"5ms\"\nloss = 1.5"),
        &[],
    );
    assert_at(
        &e,
        13,
        "links.l1.loss",
        "expected a probability in [0, 1]; got 1.5",
    );
    let e = bad(
        &BASE.replace("delay = \"5ms\"", "delay = \"5ms\"\nber = 1"),
        &[],
    );
    assert_at(&e, 13, "links.l1.ber", "[0, 1)");
}

#[test]
fn bad_override_path_names_the_override() {
    let e = bad(BASE, &["links.l1.rate.x=3"]);
    let msg = e.to_string();
    assert!(
        msg.starts_with("x.toml: --set links.l1.rate.x=3: links.l1.rate is a string"),
        "{msg}"
    );
    let e = bad(BASE, &["links..rate=3"]);
    assert!(
        e.to_string()
            .starts_with("x.toml: --set links..rate=3: expected a dotted key path"),
        "{e}"
    );
}

#[test]
fn bad_override_value_names_the_override_not_a_line() {
    let e = bad(BASE, &["links.l1.loss=2"]);
    assert_eq!(
        e.to_string(),
        "x.toml: --set links.l1.loss=2: links.l1.loss: expected a probability in [0, 1]; got 2"
    );
    let e = bad(BASE, &["links.l1.rate=10 Mbs"]);
    assert!(
        e.to_string()
            .starts_with("x.toml: --set links.l1.rate=10 Mbs: links.l1.rate: expected a rate"),
        "{e}"
    );
    let e = bad(BASE, &["links.l1.colour=red"]);
    assert!(
        e.to_string()
            .contains("--set links.l1.colour=red: links.l1.colour: unknown key"),
        "{e}"
    );
    // An error unrelated to the override still points at its line.
    let e = bad(
        &BASE.replace("delay = \"20ms\"", "delay = \"-5ms\""),
        &["links.l1.loss=0.1"],
    );
    assert_at(&e, 18, "links.l2.delay", "negative");
}

#[test]
fn syntax_errors_name_the_line() {
    let e = bad(&BASE.replace("rate = \"2Mbps\"", "rate = \"2Mbps"), &[]);
    assert!(
        e.to_string()
            .starts_with("x.toml:17:14: links.l2.rate: invalid TOML: "),
        "{e}"
    );
    let e = bad(&format!("{BASE}[links.l1]\n"), &[]);
    assert!(
        e.to_string().starts_with(
            "x.toml:23:1: links.l1: invalid TOML: invalid table header; duplicate key `l1`"
        ),
        "{e}"
    );
}

// Issue 16: "number too large to fit in target type" named no key; it now names the key
// being written on the line (from the text, since the document does not parse).
#[test]
fn number_overflow_names_line_column_and_key() {
    let e = bad(
        &BASE.replace("duration = \"10s\"", "seed = 99999999999999999999"),
        &[],
    );
    assert_eq!(
        e.to_string(),
        "x.toml:2:8: simulation.seed: invalid TOML: number too large to fit in target type"
    );
    assert_eq!((e.line(), e.key()), (Some(2), Some("simulation.seed")));
    // The same number given with --set is located at the override.
    let e = bad(BASE, &["simulation.seed=99999999999999999999"]);
    assert!(
        e.to_string()
            .contains("--set simulation.seed=99999999999999999999"),
        "{e}"
    );
}

// Issue 16: some syntax errors came out as "invalid TOML: " with nothing after it (the TOML
// parser gives no message for a control character or a file cut after `key = `).
#[test]
fn syntax_errors_never_have_an_empty_message() {
    let e = bad(&BASE.replace("[nodes.c]", "[nodes.c]\n#\u{b}"), &[]);
    assert_eq!(
        e.to_string(),
        "x.toml:7:2: nodes.c: invalid TOML: control character U+000B is not allowed in TOML \
         text (tab is the only one allowed besides line ends)"
    );
    let cut = &BASE[..BASE.find("\"2Mbps\"").unwrap()];
    let e = bad(cut, &[]);
    assert_eq!(
        e.to_string(),
        "x.toml:17:8: links.l2.rate: invalid TOML: the file ends in the middle of a key, value \
         or table header"
    );
}

// Issue 16: invalid UTF-8 was "stream did not contain valid UTF-8" with no line; the byte
// offset now gives the line, column and key.
#[test]
fn invalid_utf8_names_line_column_and_key() {
    let dir = std::env::temp_dir().join(format!("packetsim-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("x.toml");
    let mut bytes = BASE
        .replace("delay = \"5ms\"", "delay = \"5ms\" # \u{1}")
        .into_bytes();
    let at = bytes.iter().position(|b| *b == 1).unwrap();
    bytes[at] = 0xFF;
    std::fs::write(&file, &bytes).unwrap();
    let e = load_file(&file, &[]).expect_err("not UTF-8");
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!(
            "{}:12:17: links.l1.delay: invalid TOML: the file is not UTF-8 text: byte 0xFF at \
             offset {at}",
            file.display()
        )),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// Issue 16: "no route" named neither node's line; it now names the flow's line and both
// nodes' lines.
#[test]
fn no_route_names_the_flow_and_both_nodes_lines() {
    let text = BASE
        .replace("[nodes.c]", "[nodes.c]\n[nodes.z]")
        .replace("to = \"c\"", "to = \"z\"");
    let sc = ok(&text, &[]);
    let e = build(&sc, 1).err().expect("z is an island");
    assert_eq!(
        e.to_string(),
        "x.toml:21: flows.f: no route between \"a\" (nodes.a, line 4) and \"z\" (nodes.z, line \
         7): the links do not connect them"
    );
    // A flow copy made by `count` is located at its table.
    let sc = ok(&text, &["flows.f.count=3"]);
    let e = build(&sc, 1).err().expect("z is an island");
    assert!(
        e.to_string().starts_with("x.toml:21: flows.f_0: no route"),
        "{e}"
    );
}

#[test]
fn inconsistent_flows_and_links_are_rejected() {
    let with = |extra: &str| format!("{BASE}{extra}");
    assert_at(
        &bad(&with("app = \"file\"\n"), &[]),
        20,
        "flows.f.size",
        "app = \"file\" needs",
    );
    assert_at(
        &bad(&with("size = \"1MiB\"\n"), &[]),
        23,
        "flows.f.size",
        "only allowed with app = \"file\"",
    );
    assert_at(
        &bad(&with("kind = \"cbr\"\n"), &[]),
        20,
        "flows.f.rate",
        "a cbr flow needs",
    );
    assert_at(
        &bad(
            &with("kind = \"cbr\"\nrate = \"1Mbps\"\ntcp = { mss = 500 }\n"),
            &[],
        ),
        25,
        "flows.f.tcp",
        "only allowed on tcp flows",
    );
    assert_at(
        &bad(&with("rate = \"1Mbps\"\n"), &[]),
        23,
        "flows.f.rate",
        "only allowed on cbr flows",
    );
    assert_at(
        &bad(&with("start = \"2s\"\nstop = \"2s\"\n"), &[]),
        24,
        "flows.f.stop",
        "later than start",
    );
    assert_at(
        &bad(&with("kind = \"udp\"\n"), &[]),
        23,
        "flows.f.kind",
        "unknown value `udp`",
    );
    assert_at(
        &bad(&with("count = 0\n"), &[]),
        23,
        "flows.f.count",
        "expected 1 to",
    );
    assert_at(
        &bad(&BASE.replace("to = \"c\"", "to = \"a\""), &[]),
        22,
        "flows.f.to",
        "other than from",
    );
    assert_at(
        &bad(&BASE.replace("b = \"c\"", "b = \"b\""), &[]),
        16,
        "links.l2.b",
        "other than a",
    );
    assert_at(
        &bad(
            &BASE.replace("delay = \"5ms\"", "delay = \"5ms\"\nouttages = 1"),
            &[],
        ),
        13,
        "links.l1.outtages",
        "unknown key",
    );
    assert_at(
        &bad(
            &BASE.replace(
                "delay = \"5ms\"",
                "delay = \"5ms\"\noutages = [\n  { from = \"1s\", to = \"2s\" },\n  { from = \"3s\", to = \"3s\" },\n]",
            ),
            &[],
        ),
        15,
        "links.l1.outages[1].to",
        "later than `from`",
    );
    assert_at(
        &bad(
            &with("count = 2\n[flows.f_1]\nfrom = \"a\"\nto = \"b\"\n"),
            &[],
        ),
        24,
        "flows.f_1",
        "used twice",
    );
    assert_at(
        &bad(&BASE.replace("[nodes.c]", "[nodes.\"c d\"]"), &[]),
        6,
        "nodes.\"c d\"",
        "name made of letters",
    );
}

#[test]
fn tcp_validation_errors_name_the_table_holding_the_key() {
    let e = bad(
        &BASE.replace("[nodes.a]", "[tcp]\nsack_blocks = 9\n[nodes.a]"),
        &[],
    );
    assert_at(&e, 5, "tcp.sack_blocks", "expected 1 to 4");
    let e = bad(&format!("{BASE}tcp = {{ mss = 0 }}\n"), &[]);
    assert_at(&e, 23, "flows.f.tcp.mss", "expected 1..=65000");
    let e = bad(&format!("{BASE}tcp = {{ variant = \"vegass\" }}\n"), &[]);
    assert_at(&e, 23, "flows.f.tcp.variant", "unknown value `vegass`");
}

// spec 1 §2.5-2.6: the processing keys are checked where they are written; jitter needs a
// base time, and a second or more is refused as a typo.
#[test]
fn tcp_processing_errors_name_the_key() {
    let e = bad(
        &BASE.replace(
            "[nodes.a]",
            "[tcp]\nsender_processing_jitter = \"30us\"\n[nodes.a]",
        ),
        &[],
    );
    assert_at(
        &e,
        5,
        "tcp.sender_processing_jitter",
        "only allowed with sender_processing",
    );
    let e = bad(
        &format!("{BASE}tcp = {{ receiver_processing = \"2s\" }}\n"),
        &[],
    );
    assert_at(
        &e,
        23,
        "flows.f.tcp.receiver_processing",
        "below 1 s, e.g. \"0.3ms\"",
    );
    let e = bad(
        &format!("{BASE}tcp = {{ sender_processing = \"fast\" }}\n"),
        &[],
    );
    assert_at(&e, 23, "flows.f.tcp.sender_processing", "fast");
    // Set in [tcp], the per-flow table may still turn the jitter on.
    let s = ok(
        &(BASE.replace(
            "[nodes.a]",
            "[tcp]\nsender_processing = \"0.3ms\"\n[nodes.a]",
        ) + "tcp = { sender_processing_jitter = \"30us\" }\n"),
        &[],
    );
    let FlowKind::Tcp { tcp, .. } = &fl(&s)[0].kind else {
        panic!("a tcp flow")
    };
    assert_eq!(
        (tcp.sender_processing, tcp.sender_processing_jitter),
        (Some(Dur::from_micros(300)), Dur::from_micros(30))
    );
}

// spec 2 §2.3: the base-station-buffer window's keys are checked, and an error names the nested
// key in the table that holds it.
#[test]
fn tcp_bs_buffer_errors_name_the_nested_key() {
    let e = bad(
        &BASE.replace("[nodes.a]", "[tcp]\nbs_buffer = { alpha = 2.0 }\n[nodes.a]"),
        &[],
    );
    assert_at(&e, 5, "tcp.bs_buffer.alpha", "expected a weight in (0, 1]");
    let e = bad(
        &format!("{BASE}tcp = {{ mss = 1000, bs_buffer = {{ w_min = 10 }} }}\n"),
        &[],
    );
    assert_at(&e, 23, "flows.f.tcp.bs_buffer.w_min", "expected one MSS");
    let e = bad(
        &format!("{BASE}tcp = {{ recover_guard = \"sometimes\" }}\n"),
        &[],
    );
    assert_at(
        &e,
        23,
        "flows.f.tcp.recover_guard",
        "unknown value `sometimes`",
    );
}

#[test]
fn missing_file_is_a_read_error() {
    let e = load_file(std::path::Path::new("/nonexistent/x.toml"), &[]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/x.toml: cannot read"),
        "{e}"
    );
}

// ---- never panics --------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = load_str(&text, ORIGIN, &[]);
    }

    #[test]
    fn mutated_scenarios_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0usize..4, "[ -~\\n]{0,8}"), 1..6),
        set in "[a-z_.]{1,20}=[ -~]{0,12}",
    ) {
        let mut text = doc_example();
        for (at, n, ins) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) { i -= 1; }
            let mut j = (i + n).min(text.len());
            while !text.is_char_boundary(j) { j -= 1; }
            text.replace_range(i..j.max(i), &ins);
        }
        let _ = load_str(&text, ORIGIN, &[]);
        if let Ok(o) = set.parse::<Override>() {
            let _ = load_str(&doc_example(), ORIGIN, std::slice::from_ref(&o));
            let _ = load_str(&text, ORIGIN, &[o]);
        }
    }
}

#[test]
fn queue_limits_need_packets_or_a_byte_unit() {
    let q = |v: &str| {
        BASE.replace(
            "delay = \"5ms\"",
            &format!("delay = \"5ms\"\nqueue = {{ limit = {v} }}"),
        )
    };
    assert_at(
        &bad(&q("\"100\""), &[]),
        13,
        "links.l1.queue.limit",
        "without a unit",
    );
    assert_at(
        &bad(&q("0"), &[]),
        13,
        "links.l1.queue.limit",
        "expected a queue limit of 1 to",
    );
    assert_at(
        &bad(&q("1.5"), &[]),
        13,
        "links.l1.queue.limit",
        "an integer number of packets",
    );
    let e = bad(
        &BASE.replace(
            "delay = \"5ms\"",
            "delay = \"5ms\"\nqueue = { kind = \"fifo\" }",
        ),
        &[],
    );
    assert_at(
        &e,
        13,
        "links.l1.queue.kind",
        "unknown value `fifo`; expected one of `droptail`",
    );
}

/// `[simulation] tie_order`: "fifo" by default, "random" by name, anything else refused with
/// the line and the allowed values.
#[test]
fn simulation_tie_order_is_fifo_or_random() {
    assert_eq!(ok(BASE, &[]).simulation.tie_order, super::TieOrder::Fifo);
    let s = ok(BASE, &["simulation.tie_order=\"random\""]);
    assert_eq!(s.simulation.tie_order, super::TieOrder::Random);
    let e = bad(
        &BASE.replace(
            "duration = \"10s\"",
            "duration = \"10s\"\ntie_order = \"lifo\"",
        ),
        &[],
    );
    assert_at(
        &e,
        3,
        "simulation.tie_order",
        "unknown value `lifo`; expected `fifo` or `random`",
    );
}

/// `ns2_limit` (ns-2.35 queue/drop-tail.cc `DropTail::enque`, `length() + 1 >= qlim_`) is a
/// DropTail key: off by default, read as a boolean, refused on other kinds of queue.
#[test]
fn droptail_ns2_limit_is_a_droptail_key() {
    let q = |v: &str| BASE.replace("delay = \"5ms\"", &format!("delay = \"5ms\"\nqueue = {v}"));
    let s = ok(&q("{ limit = 50, ns2_limit = true }"), &[]);
    assert_eq!(
        s.links[0].queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(50),
            ns2_limit: true
        }
    );
    let s = ok(&q("{ limit = 50 }"), &[]);
    assert_eq!(
        s.links[0].queue,
        QueueSpec::DropTail {
            limit: QueueLimit::Packets(50),
            ns2_limit: false
        }
    );
    assert_at(
        &bad(&q("{ limit = 50, ns2_limit = 1 }"), &[]),
        13,
        "links.l1.queue.ns2_limit",
        "expected a boolean",
    );
    assert_at(
        &bad(
            &q("{ kind = \"red\", ns2_limit = true, red = { limit = 50 } }"),
            &[],
        ),
        13,
        "links.l1.queue.ns2_limit",
        "`ns2_limit` does not belong to this kind of queue",
    );
}

#[test]
fn a_table_created_by_an_override_is_blamed_on_the_override() {
    let e = bad(BASE, &["links.l9.rate=1Mbps"]);
    assert_eq!(
        e.to_string(),
        "x.toml: --set links.l9.rate=1Mbps: links.l9.a: missing required key `a`"
    );
    let e = bad(BASE, &["simulation.seed=-1"]);
    assert!(
        e.to_string().ends_with(
            "simulation.seed: invalid value: integer `-1`; expected a non-negative integer"
        ),
        "{e}"
    );
}

#[test]
fn named_tables_must_be_tables() {
    assert_at(
        &bad(&format!("{BASE}\n[[flows.g]]\n"), &[]),
        24,
        "flows.g[0]",
        "expected a table",
    );
    let e = bad(
        &BASE.replace("[simulation]\nduration = \"10s\"", "simulation = 5"),
        &[],
    );
    assert_at(
        &e,
        1,
        "simulation",
        "invalid type: integer `5`; expected a table",
    );
}

const MULTIHOMED: &str = r#"[simulation]
duration = "10s"

[nodes.s]
addresses = [{ name = "s0", link = "s_r0" }, { name = "s1", link = "s_r1" }]
[nodes.r0]
[nodes.r1]
[nodes.d]
addresses = [{ name = "d0", link = "r0_d" }, { name = "d1", link = "r1_d" }]

[links.s_r0]
a = "s"
b = "r0"
rate = "10Mbps"
delay = "5ms"

[links.r0_d]
a = "r0"
b = "d"
rate = "10Mbps"
delay = "5ms"

[links.s_r1]
a = "s"
b = "r1"
rate = "10Mbps"
delay = "5ms"

[links.r1_d]
a = "r1"
b = "d"
rate = "10Mbps"
delay = "5ms"

[flows.f]
kind = "sctp"
from = "s"
to = "d"
app = "file"
size = "100kB"
from_addresses = ["s0", "s1"]
to_addresses = ["d0", "d1"]
primary = "d1"
sctp = { rtx_policy = "same" }
"#;

#[test]
fn sctp_flows_name_addresses_a_primary_and_a_merged_configuration() {
    let sc = ok(MULTIHOMED, &["sctp.rto_min=\"500ms\""]);
    assert_eq!(sc.addresses.len(), 4);
    assert_eq!(
        sc.addresses[3],
        AddressSpec {
            name: "d1".into(),
            node: "d".into(),
            link: Some("r1_d".into())
        }
    );
    let flows = fl(&sc);
    let FlowKind::Sctp {
        app,
        sctp,
        from_addresses,
        to_addresses,
        primary,
    } = &flows[0].kind
    else {
        panic!("an sctp flow")
    };
    assert_eq!(*app, App::File { bytes: 100_000 });
    assert_eq!(from_addresses, &["s0", "s1"]);
    assert_eq!(to_addresses, &["d0", "d1"]);
    assert_eq!(*primary, 1);
    assert_eq!(sctp.rtx_policy, crate::transport::sctp::RtxPolicy::Same);
    assert_eq!(
        sctp.rto_min,
        Dur::from_millis(500),
        "[sctp] defaults merge under the flow's"
    );
}

#[test]
fn sctp_bad_addresses_primaries_and_policies_name_the_key() {
    // A primary that is not one of the peer's addresses.
    let e = bad(MULTIHOMED, &["flows.f.primary=\"s0\""]);
    assert!(
        e.to_string()
            .contains("flows.f.primary: expected one of the peer's addresses (d0, d1)"),
        "{e}"
    );
    // An address of the wrong node.
    let e = bad(MULTIHOMED, &["flows.f.to_addresses=[\"d0\", \"s1\"]"]);
    assert!(
        e.to_string()
            .contains("flows.f.to_addresses[1]: address `s1` belongs to node `s`"),
        "{e}"
    );
    // An unknown address.
    let e = bad(MULTIHOMED, &["flows.f.from_addresses=[\"s7\"]"]);
    assert!(
        e.to_string()
            .contains("flows.f.from_addresses[0]: expected the name of an address of node `s`"),
        "{e}"
    );
    // An unknown policy.
    let e = bad(MULTIHOMED, &["flows.f.sctp.rtx_policy=\"sideways\""]);
    let m = e.to_string();
    assert!(
        m.contains("flows.f.sctp.rtx_policy") && m.contains("alternate"),
        "{m}"
    );
    // An address bound to a link of another node, and to no link at all.
    let e = bad(
        MULTIHOMED,
        &["nodes.s.addresses=[{ name = \"s0\", link = \"r1_d\" }]"],
    );
    assert!(
        e.to_string()
            .contains("nodes.s.addresses[0].link: link `r1_d` joins `r1` and `d`, not node `s`"),
        "{e}"
    );
    let e = bad(
        MULTIHOMED,
        &["nodes.s.addresses=[{ name = \"s0\", link = \"nowhere\" }]"],
    );
    assert!(
        e.to_string()
            .contains("nodes.s.addresses[0].link: expected the name of a link"),
        "{e}"
    );
    // Duplicate names.
    let e = bad(MULTIHOMED, &["nodes.d.addresses=[{ name = \"s0\" }]"]);
    assert!(e.to_string().contains("already used by node `s`"), "{e}");
    // SCTP keys on a TCP flow, and bad SCTP values.
    let e = bad(MULTIHOMED, &["flows.f.kind=\"tcp\""]);
    assert!(
        e.to_string()
            .contains("`sctp` is only allowed on sctp flows"),
        "{e}"
    );
    let e = bad(MULTIHOMED, &["flows.f.sctp.rto_min=\"0s\""]);
    assert!(
        e.to_string()
            .contains("flows.f.sctp.rto_min: expected a positive duration"),
        "{e}"
    );
}

#[test]
fn sctp_an_address_with_no_path_is_a_build_error_naming_the_address() {
    // Path1 now starts at an island node, so s has no way to d1 (bound to r1_d).
    let text = MULTIHOMED
        .replace("[nodes.d]\n", "[nodes.island]\n[nodes.d]\n")
        .replace("[links.s_r1]\na = \"s\"", "[links.s_r1]\na = \"island\"")
        .replace(", { name = \"s1\", link = \"s_r1\" }", "")
        .replace(
            "from_addresses = [\"s0\", \"s1\"]",
            "from_addresses = [\"s0\"]",
        );
    let sc = ok(&text, &[]);
    let e = match build(&sc, 1) {
        Ok(_) => panic!("expected a build error"),
        Err(e) => e,
    };
    assert_eq!(e.key, "flows.f.to_addresses[1]", "{e}");
    assert!(e.msg.contains("no path"), "{e}");
}

// ---- routing: link costs and static routes (docs/scenario-format.md "Routing") -------------

const TRIANGLE: &str = r#"[simulation]
duration = "2s"

[nodes.s]
routes = [{ to = "d", via = "slow" }]
[nodes.r]
[nodes.d]

[links.slow]
a = "s"
b = "d"
rate = "1Mbps"
delay = "100ms"
cost = 10

[links.fast1]
a = "s"
b = "r"
rate = "100Mbps"
delay = "1ms"

[links.fast2]
a = "r"
b = "d"
rate = "100Mbps"
delay = "1ms"
"#;

// DESIGN.md "Network": link `cost`, default 1; static routes in the scenario.
#[test]
fn routing_link_cost_defaults_to_one_and_routes_keep_file_order() {
    let s = ok(TRIANGLE, &[]);
    let costs: Vec<(u32, u32)> = s.links.iter().map(|l| (l.cost, l.cost_ba)).collect();
    assert_eq!(costs, [(10, 10), (1, 1), (1, 1)]);
    let s = ok(TRIANGLE, &["links.slow.cost_ba=1", "links.fast1.cost_ba=3"]);
    let costs: Vec<(u32, u32)> = s.links.iter().map(|l| (l.cost, l.cost_ba)).collect();
    assert_eq!(costs, [(10, 1), (1, 3), (1, 1)]);
    let s = ok(
        TRIANGLE,
        &["nodes.d.routes=[{ to = \"r\", via = \"fast2\" }, { to = \"s\", via = \"slow\" }]"],
    );
    let route = |node: &str, to: &str, via: &str, index| RouteSpec {
        node: node.into(),
        to: to.into(),
        via: via.into(),
        index,
    };
    assert_eq!(
        s.routes,
        [
            route("s", "d", "slow", 0),
            route("d", "r", "fast2", 0),
            route("d", "s", "slow", 1)
        ]
    );
    // The array-of-tables form reads the same.
    let text = TRIANGLE.replace(
        "routes = [{ to = \"d\", via = \"slow\" }]\n",
        "[[nodes.s.routes]]\nto = \"d\"\nvia = \"slow\"\n",
    );
    assert_eq!(ok(&text, &[]).routes, [route("s", "d", "slow", 0)]);
}

#[test]
fn routing_link_cost_must_be_a_positive_integer() {
    for (v, what) in [
        ("0", "got 0"),
        ("-3", "got -3"),
        ("1.5", "got 1.5"),
        ("\"10\"", "got a string"),
        ("4294967296", "got 4294967296"),
    ] {
        let e = bad(&TRIANGLE.replace("cost = 10", &format!("cost = {v}")), &[]);
        assert_at(
            &e,
            14,
            "links.slow.cost",
            "expected a positive integer cost (1 to 4294967295), e.g. 10",
        );
        assert!(e.to_string().contains(what), "{e}");
    }
    let e = bad(
        &TRIANGLE.replace("cost = 10", "cost = 10\ncost_ba = 1.0"),
        &[],
    );
    assert_at(
        &e,
        15,
        "links.slow.cost_ba",
        "expected a positive integer cost (1 to 4294967295), e.g. 10; got 1.0",
    );
    let e = bad(TRIANGLE, &["links.fast1.cost=0"]);
    assert_eq!(
        e.to_string(),
        "x.toml: --set links.fast1.cost=0: links.fast1.cost: expected a positive integer cost \
         (1 to 4294967295), e.g. 10; got 0"
    );
}

#[test]
fn routing_static_route_errors_name_the_key() {
    let with = |routes: &str| {
        TRIANGLE.replace(
            "routes = [{ to = \"d\", via = \"slow\" }]",
            &format!("routes = {routes}"),
        )
    };
    assert_at(
        &bad(&with("[{ to = \"q\", via = \"slow\" }]"), &[]),
        5,
        "nodes.s.routes[0].to",
        "expected the name of a node or of a named address; `q` is neither",
    );
    assert_at(
        &bad(&with("[{ to = \"d\", via = \"nope\" }]"), &[]),
        5,
        "nodes.s.routes[0].via",
        "expected the name of a link of node `s`; `nope` is not a link",
    );
    assert_at(
        &bad(&with("[{ to = \"d\", via = \"fast2\" }]"), &[]),
        5,
        "nodes.s.routes[0].via",
        "link `fast2` joins `r` and `d`, not node `s`",
    );
    assert_at(
        &bad(
            &with("[{ to = \"d\", via = \"slow\" }, { to = \"d\", via = \"fast1\" }]"),
            &[],
        ),
        5,
        "nodes.s.routes[1].to",
        "`d` already has a route at node `s` (routes[0])",
    );
    assert_at(
        &bad(&with("[{ to = \"s\", via = \"slow\" }]"), &[]),
        5,
        "nodes.s.routes[0].to",
        "`s` is node `s` itself",
    );
    assert_at(
        &bad(&with("[{ to = \"d\" }]"), &[]),
        5,
        "nodes.s.routes[0].via",
        "missing required key `via`",
    );
    assert_at(
        &bad(&with("[{ to = \"d\", via = \"slow\", metric = 2 }]"), &[]),
        5,
        "nodes.s.routes[0].metric",
        "unknown key `metric`",
    );
}

#[test]
fn routing_static_route_to_an_own_address_is_rejected_and_to_another_nodes_accepted() {
    // An address of the node itself is not a destination it routes to.
    let e = bad(
        MULTIHOMED,
        &["nodes.s.routes=[{ to = \"s1\", via = \"s_r0\" }]"],
    );
    assert!(
        e.to_string()
            .contains("nodes.s.routes[0].to: `s1` is an address of node `s` itself"),
        "{e}"
    );
    // A named address of another node is a valid destination.
    let sc = ok(
        MULTIHOMED,
        &["nodes.r0.routes=[{ to = \"d1\", via = \"r0_d\" }]"],
    );
    assert_eq!(sc.routes[0].to, "d1");
}

// Static routes win at their node only, so one can make a loop: the builder finds it and
// names the route.
#[test]
fn routing_static_route_loop_is_a_build_error_naming_the_route() {
    // r sends d's packets back to s, whose least-cost route (fast1, fast2) is through r.
    let sc = ok(
        TRIANGLE,
        &[
            "nodes.s.routes=[]",
            "nodes.r.routes=[{ to = \"d\", via = \"fast1\" }]",
        ],
    );
    let e = build(&sc, 1).err().expect("a loop");
    assert_eq!(e.key, "nodes.r.routes[0]", "{e}");
    assert_eq!(
        e.msg,
        "this static route makes packets to `d` loop: r -> s -> r (a static route applies at \
         its own node only; every other node keeps its least-cost route)"
    );
    // spec 3 §2.5: d1 is bound to r1_d, so r0 reaches it back through s; sending it from s
    // toward r0 loops, and the message names the address.
    let sc = ok(
        MULTIHOMED,
        &["nodes.s.routes=[{ to = \"d1\", via = \"s_r0\" }]"],
    );
    let e = build(&sc, 1).err().expect("a loop");
    assert_eq!(e.key, "nodes.s.routes[0]", "{e}");
    assert!(e.msg.contains("packets to `d1` loop: s -> r0 -> s"), "{e}");
    // Without the loop, it builds.
    assert!(build(&ok(TRIANGLE, &[]), 1).is_ok());
}

// docs/scenario-format.md "Routing": a node in `to` covers its primary address and its
// unbound named addresses, unless the node routes one by name; bound addresses keep their link.
#[test]
fn routing_static_route_to_a_node_covers_its_unbound_addresses_only() {
    let addresses = "nodes.d.addresses=[{ name = \"d0\", link = \"r0_d\" }, \
                     { name = \"d1\", link = \"r1_d\" }, { name = \"dx\" }, { name = \"dy\" }]";
    let table = |routes: &str| {
        let sc = ok(MULTIHOMED, &[addresses, routes]);
        let w = build(&sc, 1).unwrap_or_else(|e| panic!("{e}"));
        let link = |name: &str| {
            let l = w.net.links.iter().find(|l| l.name == name).unwrap();
            l.ab
        };
        let (s_r0, s_r1) = (link("s_r0"), link("s_r1"));
        let s = &w.net.nodes[0];
        assert_eq!(s.name, "s");
        // d's addresses: primary, d0, d1, dx, dy.
        let d = &w.net.nodes[3].addrs;
        d.iter()
            .map(|a| match s.routes.get(*a) {
                Some(e) if e == s_r0 => "r0",
                Some(e) if e == s_r1 => "r1",
                other => panic!("{other:?}"),
            })
            .collect::<Vec<_>>()
    };
    // Least cost (ties by link order): the primary and unbound addresses go by s_r0.
    assert_eq!(table("nodes.s.routes=[]"), ["r0", "r0", "r1", "r0", "r0"]);
    assert_eq!(
        table("nodes.s.routes=[{ to = \"d\", via = \"s_r1\" }]"),
        ["r1", "r0", "r1", "r1", "r1"]
    );
    assert_eq!(
        table("nodes.s.routes=[{ to = \"dx\", via = \"s_r0\" }, { to = \"d\", via = \"s_r1\" }]"),
        ["r1", "r0", "r1", "r0", "r1"]
    );
}

// ---- link schedules (issue "Network seams" item 5) ------------------------------------

#[test]
fn rate_steps_and_outage_policy_load_with_defaults() {
    let s = ok(
        &BASE.replace(
            "delay = \"5ms\"",
            "delay = \"5ms\"\noutage_policy = \"hold\"\nrate_steps = [\n  { at = \"20s\", rate = \"1.6Mbps\" },\n  { at = \"40s\", rate = \"400kbps\", direction = \"a_to_b\" },\n]",
        ),
        // The steps must fall within the run (issue 16).
        &["simulation.duration=\"60s\""],
    );
    let l = &s.links[0];
    assert_eq!(l.outage_policy, OutagePolicy::Hold);
    assert_eq!(
        l.rate_steps,
        vec![
            RateStep {
                at: Time::from_millis(20_000),
                rate: Rate::bps(1_600_000),
                direction: ErrorDirection::Both,
            },
            RateStep {
                at: Time::from_millis(40_000),
                rate: Rate::bps(400_000),
                direction: ErrorDirection::AToB,
            },
        ]
    );
    assert_eq!(s.links[1].outage_policy, OutagePolicy::Blind, "the default");
    assert!(s.links[1].rate_steps.is_empty());
}

#[test]
fn rate_steps_out_of_order_zero_rates_and_unknown_policies_name_the_key() {
    let steps = |v: &str| BASE.replace("delay = \"5ms\"", &format!("delay = \"5ms\"\n{v}"));
    assert_at(
        &bad(
            &steps("rate_steps = [\n  { at = \"2s\", rate = \"1Mbps\" },\n  { at = \"2s\", rate = \"2Mbps\" },\n]"),
            &[],
        ),
        15,
        "links.l1.rate_steps[1].at",
        "increasing time order",
    );
    assert_at(
        &bad(
            &steps("rate_steps = [ { at = \"2s\", rate = \"0Mbps\" } ]"),
            &[],
        ),
        13,
        "links.l1.rate_steps[0].rate",
        "positive rate",
    );
    assert_at(
        &bad(&steps("outage_policy = \"pause\""), &[]),
        13,
        "links.l1.outage_policy",
        "`blind`",
    );
}

// ---- kind registries (issue "Network seams" item 10) ------------------------------------

#[test]
fn unknown_flow_and_link_kinds_are_rejected_listing_the_known_kinds() {
    let with = |extra: &str| format!("{BASE}{extra}");
    assert_at(
        &bad(&with("kind = \"atm\"\n"), &[]),
        23,
        "flows.f.kind",
        "unknown value `atm`; expected one of `tcp`, `sctp`, `cbr`",
    );
    assert_at(
        &bad(&with("kind = 3\n"), &[]),
        23,
        "flows.f.kind",
        "expected the flow kind as a string, one of `tcp`, `sctp`, `cbr`; got 3",
    );
    let link = |v: &str| BASE.replace("delay = \"5ms\"", &format!("delay = \"5ms\"\n{v}"));
    assert_at(
        &bad(&link("kind = \"ethernet\""), &[]),
        13,
        "links.l1.kind",
        "unknown value `ethernet`; expected one of `point_to_point`, `radio`, `atm`",
    );
    let e = bad(BASE, &["links.l2.kind=wireless"]);
    assert_eq!(
        e.to_string(),
        "x.toml: --set links.l2.kind=wireless: links.l2.kind: unknown value `wireless`; \
         expected one of `point_to_point`, `radio`, `atm`, `wifi`"
    );
    let s = ok(&link("kind = \"point_to_point\""), &[]);
    assert_eq!(s.links[0].kind, LinkKind::PointToPoint);
    assert_eq!(s.links[1].kind, LinkKind::PointToPoint, "the default");
}

#[test]
fn each_kind_rejects_the_keys_of_other_kinds_and_unknown_keys_naming_line_and_key() {
    let with = |extra: &str| format!("{BASE}{extra}");
    // tcp (the default kind)
    assert_at(
        &bad(&with("packet_size = 100\n"), &[]),
        23,
        "flows.f.packet_size",
        "`packet_size` is only allowed on cbr flows; this flow has kind = \"tcp\"",
    );
    // sctp
    assert_at(
        &bad(&with("kind = \"sctp\"\ntcp = { mss = 500 }\n"), &[]),
        24,
        "flows.f.tcp",
        "`tcp` is only allowed on tcp flows; this flow has kind = \"sctp\"",
    );
    // cbr: a key two kinds share is named with both
    assert_at(
        &bad(
            &with("kind = \"cbr\"\nrate = \"1Mbps\"\napp = \"bulk\"\n"),
            &[],
        ),
        25,
        "flows.f.app",
        "`app` is only allowed on tcp or sctp flows; this flow has kind = \"cbr\"",
    );
    assert_at(
        &bad(
            &with("kind = \"cbr\"\nrate = \"1Mbps\"\nprimary = \"x\"\n"),
            &[],
        ),
        25,
        "flows.f.primary",
        "`primary` is only allowed on sctp flows",
    );
    // A key no kind knows lists the common keys, then `kind` and every kind's keys.
    assert_at(
        &bad(&with("kind = \"cbr\"\nrat = \"1Mbps\"\n"), &[]),
        24,
        "flows.f.rat",
        "unknown key `rat`; expected one of `from`, `to`, `start`, `stop`, `count`, \
         `stagger`, `start_jitter`, `dscp`, `diffserv`, `kind`, `tcp`, `app`, `size`, `frame_size`, `frame_interval`, `resume_below`, `whole_blocks`, `on_time`, \
         `off_time`, `onoff_dist`, `arrival_rate`, `size_dist`, `size_mean`, `size_shape`, \
         `size_sigma`, `size_cdf`, `sctp`, `from_addresses`, `to_addresses`, `primary`, `rate`, `packet_size`",
    );
    // A misspelt required key is reported as unknown, not as missing.
    assert_at(
        &bad(&BASE.replace("rate = \"2Mbps\"", "rat = \"2Mbps\""), &[]),
        17,
        "links.l2.rat",
        "unknown key `rat`",
    );
    assert_at(
        &bad(&BASE.replace("to = \"c\"", "too = \"c\""), &[]),
        22,
        "flows.f.too",
        "unknown key `too`",
    );
    // point_to_point links: their unknown keys list the common link keys and `kind`.
    let e = bad(
        &BASE.replace(
            "delay = \"5ms\"",
            "delay = \"5ms\"\nkind = \"point_to_point\"\nslots = 3",
        ),
        &[],
    );
    assert_at(
        &e,
        14,
        "links.l1.slots",
        "unknown key `slots`; expected one of `a`, `b`",
    );
    assert!(e.to_string().contains("`rate_process`, `kind`"), "{e}");
}

#[test]
fn kind_keys_keep_their_lines_types_and_overrides() {
    let with = |extra: &str| format!("{BASE}{extra}");
    // A type error inside a kind's key, written as a sub-table.
    assert_at(
        &bad(&with("\n[flows.f.tcp]\nmss = \"big\"\n"), &[]),
        25,
        "flows.f.tcp.mss",
        "invalid type",
    );
    assert_at(
        &bad(
            &with("kind = \"cbr\"\nrate = \"1Mbps\"\npacket_size = \"big\"\n"),
            &[],
        ),
        25,
        "flows.f.packet_size",
        "big",
    );
    assert_at(
        &bad(&with("kind = \"sctp\"\nfrom_addresses = 3\n"), &[]),
        24,
        "flows.f.from_addresses",
        "invalid type: integer `3`",
    );
    let e = bad(
        &with("kind = \"cbr\"\nrate = \"1Mbps\"\n"),
        &["flows.f.packet_size=0"],
    );
    assert_eq!(
        e.to_string(),
        "x.toml: --set flows.f.packet_size=0: flows.f.packet_size: expected a UDP payload of \
         1 to 65507 bytes; got 0"
    );
}

/// Every ```toml block of docs/scenario-format.md that parses on its own.
fn doc_blocks() -> Vec<toml::Table> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario-format.md");
    let md = std::fs::read_to_string(path).expect("docs/scenario-format.md exists");
    md.split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .filter_map(|b| b.parse::<toml::Table>().ok())
        .collect()
}

/// The `kind` values written in the `section` tables of the doc's examples.
fn documented_kinds(section: &str) -> Vec<String> {
    doc_blocks()
        .iter()
        .filter_map(|t| t.get(section).and_then(|s| s.as_table()))
        .flat_map(|s| s.values())
        .filter_map(|t| t.get("kind").and_then(|k| k.as_str()).map(str::to_owned))
        .collect()
}

#[test]
fn every_registered_kind_has_a_documented_example() {
    let flows = documented_kinds("flows");
    for row in flow::FLOW_KINDS {
        assert!(
            flows.iter().any(|k| k == row.name),
            "docs/scenario-format.md has no [flows.NAME] example with kind = {:?}",
            row.name
        );
    }
    let links = documented_kinds("links");
    for row in link::LINK_KINDS {
        assert!(
            links.iter().any(|k| k == row.name),
            "docs/scenario-format.md has no [links.NAME] example with kind = {:?}",
            row.name
        );
    }
}

#[test]
fn every_kind_loads_to_the_variant_of_its_own_row_and_declares_its_keys() {
    for text in [doc_example(), MULTIHOMED.to_owned()] {
        let s = ok(&text, &[]);
        let raw: toml::Table = s.text.parse().unwrap();
        let kind_of = |section: &str, name: &str| {
            raw[section][name]
                .get("kind")
                .and_then(|k| k.as_str())
                .map(str::to_owned)
        };
        for f in &fl(&s) {
            // A copy of a `count` table is named NAME_i.
            let table = match raw["flows"].get(&f.name) {
                Some(_) => f.name.as_str(),
                None => f.name.rsplit_once('_').unwrap().0,
            };
            let want = kind_of("flows", table).unwrap_or_else(|| "tcp".into());
            assert_eq!(f.kind.row().name, want, "flows.{}", f.name);
        }
        for l in &s.links {
            let want = kind_of("links", &l.name).unwrap_or_else(|| "point_to_point".into());
            assert_eq!(l.kind.row().name, want, "links.{}", l.name);
        }
    }
    // The key lists are read off the kinds' structs.
    let keys = |name: &str| {
        let row = flow::FLOW_KINDS.iter().find(|r| r.name == name).unwrap();
        (row.keys)()
    };
    assert_eq!(
        keys("tcp"),
        [
            "tcp",
            "app",
            "size",
            "frame_size",
            "frame_interval",
            "resume_below",
            "whole_blocks",
            "on_time",
            "off_time",
            "onoff_dist",
            "arrival_rate",
            "size_dist",
            "size_mean",
            "size_shape",
            "size_sigma",
            "size_cdf"
        ]
    );
    assert_eq!(keys("cbr"), ["rate", "packet_size"]);
    assert!(keys("sctp").starts_with(&["sctp", "from_addresses", "to_addresses", "primary"]));
    assert!((link::LINK_KINDS[0].keys)().is_empty());
}

#[test]
fn queue_report_loads_with_defaults_and_bounds_its_wire_bytes() {
    let s = ok(
        &BASE.replace("delay = \"5ms\"", "delay = \"5ms\"\nqueue_report = {}"),
        &[],
    );
    assert_eq!(
        s.links[0].queue_report,
        Some(QueueReportSpec {
            direction: ErrorDirection::AToB,
            wire_bytes: 0
        })
    );
    assert_eq!(s.links[1].queue_report, None);
    assert_at(
        &bad(
            &BASE.replace(
                "delay = \"5ms\"",
                "delay = \"5ms\"\nqueue_report = { direction = \"both\", wire_bytes = 100 }",
            ),
            &[],
        ),
        13,
        "links.l1.queue_report.wire_bytes",
        "at most 64 bytes",
    );
}

#[test]
fn rate_process_loads_and_refuses_zero_rates_and_means_naming_the_key() {
    let with = |v: &str| BASE.replace("delay = \"5ms\"", &format!("delay = \"5ms\"\n{v}"));
    let s = ok(
        &with("rate_process = { good_rate = \"2Mbps\", bad_rate = \"100kbps\", mean_good = \"4s\", mean_bad = \"1s\" }"),
        &[],
    );
    let (cfg, dir) = s.links[0].rate_process.unwrap();
    assert_eq!(dir, ErrorDirection::Both, "both directions by default");
    assert_eq!(
        (cfg.good_rate, cfg.bad_rate, cfg.mean_good, cfg.mean_bad),
        (
            Rate::mbps(2),
            Rate::bps(100_000),
            Dur::from_secs(4),
            Dur::from_secs(1)
        )
    );
    assert_at(
        &bad(
            &with("rate_process = { good_rate = \"2Mbps\", bad_rate = \"0bps\", mean_good = \"4s\", mean_bad = \"1s\" }"),
            &[],
        ),
        13,
        "links.l1.rate_process.bad_rate",
        "positive rate",
    );
    assert_at(
        &bad(
            &with("rate_process = { good_rate = \"2Mbps\", bad_rate = \"1Mbps\", mean_good = \"0s\", mean_bad = \"1s\" }"),
            &[],
        ),
        13,
        "links.l1.rate_process.mean_good",
        "positive mean",
    );
}

// ---- kind = "radio" (spec 2 §2.1, §2.3, §2.5, BS-E5) -----------------------------------

fn radio(keys: &str) -> String {
    BASE.replace(
        "delay = \"20ms\"",
        &format!("delay = \"20ms\"\nkind = \"radio\"\n{keys}"),
    )
}

#[test]
fn radio_link_reports_on_its_downlink_by_default_and_folds_its_loss() {
    let s = ok(&radio(""), &[]);
    let l = &s.links[1];
    assert_eq!(
        l.kind,
        LinkKind::Radio(RadioSpec {
            downlink: ErrorDirection::AToB,
            report: Some(0),
            rate_cycle: None,
            loss: 0.0,
            shared: None,
        })
    );
    // spec 2 §2.3 step 1: the base station's report, zero bytes on the wire.
    assert_eq!(
        l.queue_report,
        Some(QueueReportSpec {
            direction: ErrorDirection::AToB,
            wire_bytes: 0
        })
    );
    assert_eq!((l.loss, l.outage_policy), (0.0, OutagePolicy::Blind));
    let s = ok(
        &radio("downlink = \"b_to_a\"\nreport_bytes = 4\nradio_loss = 0.05"),
        &[],
    );
    let l = &s.links[1];
    assert_eq!(
        l.queue_report,
        Some(QueueReportSpec {
            direction: ErrorDirection::BToA,
            wire_bytes: 4
        })
    );
    assert_eq!((l.loss, l.errors), (0.05, ErrorDirection::Both));
    let s = ok(&radio("report = false"), &[]);
    assert_eq!(s.links[1].queue_report, None);
}

// spec 2 BS-E5: 0.4 → 1.6 → 0.4 Mb/s every 20 s, on both directions, to the end of the run.
#[test]
fn radio_rate_cycle_steps_both_directions_every_period() {
    let text = radio("rate_cycle = { rates = [\"400kbps\", \"1.6Mbps\"], every = \"20s\" }")
        .replace("duration = \"10s\"", "duration = \"50s\"");
    let s = ok(&text, &[]);
    let steps = s.links[1].scheduled_rates(Time::from_millis(50_000));
    let at: Vec<(u64, u64)> = steps
        .iter()
        .map(|r| (r.at.as_nanos() / 1_000_000_000, r.rate.as_bps()))
        .collect();
    assert_eq!(at, [(0, 400_000), (20, 1_600_000), (40, 400_000)]);
    assert!(steps.iter().all(|r| r.direction == ErrorDirection::Both));
    // The built world runs at the cycle's rate: 1.6 Mb/s between 20 and 40 s.
    let mut w = build(&s, 1).unwrap();
    w.run_until(Time::from_millis(25_000));
    let (ab, ba) = (w.net.links[1].ab, w.net.links[1].ba);
    assert_eq!(w.net.egresses[ab.idx()].rate, Rate::bps(1_600_000));
    assert_eq!(w.net.egresses[ba.idx()].rate, Rate::bps(1_600_000));
    w.run_until(Time::from_millis(45_000));
    assert_eq!(w.net.egresses[ab.idx()].rate, Rate::bps(400_000));
    // A point-to-point link's schedule is its rate_steps.
    assert!(s.links[0]
        .scheduled_rates(Time::from_millis(50_000))
        .is_empty());
}

#[test]
fn radio_link_errors_name_the_key() {
    // The radio keys start at line 20 (after `kind = "radio"` on 19).
    let cases = [
        ("downlink = \"both\"", "links.l2.downlink", "\"a_to_b\" or \"b_to_a\""),
        ("report_bytes = 65", "links.l2.report_bytes", "at most 64 bytes"),
        ("report = false\nreport_bytes = 4", "links.l2.report_bytes", "report = false"),
        ("queue_report = {}\nreport = true", "links.l2.report", "`queue_report`"),
        (
            "rate_steps = [{ at = \"1s\", rate = \"1Mbps\" }]\nrate_cycle = { rates = [\"1Mbps\"], every = \"1s\" }",
            "links.l2.rate_cycle",
            "`rate_steps`",
        ),
        (
            "rate_process = { good_rate = \"2Mbps\", bad_rate = \"100kbps\", mean_good = \"4s\", mean_bad = \"1s\" }\nrate_cycle = { rates = [\"1Mbps\"], every = \"1s\" }",
            "links.l2.rate_cycle",
            "`rate_process`",
        ),
        ("rate_cycle = { rates = [], every = \"1s\" }", "links.l2.rate_cycle", "at least one rate"),
        ("rate_cycle = { rates = [\"0bps\"], every = \"1s\" }", "links.l2.rate_cycle", "positive rates"),
        ("rate_cycle = { rates = [\"1Mbps\"], every = \"0s\" }", "links.l2.rate_cycle", "positive period"),
        ("loss = 0.1\nradio_loss = 0.01", "links.l2.radio_loss", "`loss`"),
        ("radio_loss = 1.5", "links.l2.radio_loss", "probability in [0, 1]"),
    ];
    for (keys, key, what) in cases {
        let e = bad(&radio(keys), &[]);
        let line = 20 + keys.lines().count() - 1;
        assert_at(&e, line, key, what);
    }
    // A radio key on a point-to-point link names the kind that takes it.
    let e = bad(
        &BASE.replace("delay = \"5ms\"", "delay = \"5ms\"\nradio_loss = 0.01"),
        &[],
    );
    assert_at(&e, 13, "links.l1.radio_loss", "only allowed on radio links");
}

// ---- kind = "atm" (spec 1 §2.1-2.3: slotted cell link, AAL5 adapters, cell switch) -------

/// Link l2 as an atm link at 21.2 Mb/s (a 20 µs slot); its own keys start at line 20.
fn atm(keys: &str) -> String {
    BASE.replace(
        "rate = \"2Mbps\"\ndelay = \"20ms\"",
        &format!("rate = \"21.2Mbps\"\ndelay = \"20ms\"\nkind = \"atm\"\n{keys}"),
    )
}

#[test]
fn atm_link_defaults_and_every_key() {
    use crate::atm::port::{ArrivalOrder, CellLinkConfig};
    use crate::atm::switch::{Discard, SwitchConfig};
    let spec = |buffer, discard, order| {
        LinkKind::Atm(AtmSpec {
            port: CellLinkConfig {
                slot: Dur::from_micros(20),
                switch: SwitchConfig {
                    buffer,
                    discard,
                    vcs: 1,
                },
                order,
                output: crate::atm::port::Output::Switch,
            },
            reverse: crate::atm::port::Output::Switch,
        })
    };
    // spec §3.1: B = 1000; plain discard and YATS's random same-slot order by default.
    let s = ok(&atm(""), &[]);
    assert_eq!(
        s.links[1].kind,
        spec(1000, Discard::Plain, ArrivalOrder::Random)
    );
    // EPD's threshold defaults to B / 2 (spec §3.2).
    let s = ok(&atm("discard = \"epd\"\nswitch_buffer = 2000"), &[]);
    let epd = Discard::Epd {
        threshold: 1000,
        keep_eof: false,
    };
    assert_eq!(s.links[1].kind, spec(2000, epd, ArrivalOrder::Random));
    let s = ok(
        &atm("discard = \"epd\"\nepd_threshold = 600\nkeep_eof = true\narrival_order = \"port\""),
        &[],
    );
    let epd = Discard::Epd {
        threshold: 600,
        keep_eof: true,
    };
    assert_eq!(s.links[1].kind, spec(1000, epd, ArrivalOrder::Port));
    let s = ok(&atm("discard = \"ppd\""), &["links.l2.switch_buffer=500"]);
    let ppd = Discard::Ppd { keep_eof: false };
    assert_eq!(s.links[1].kind, spec(500, ppd, ArrivalOrder::Random));
    // The built world makes both directions cell links; l1 stays a plain transmitter.
    let w = build(&s, 1).unwrap();
    let (ab, ba) = (w.net.links[1].ab, w.net.links[1].ba);
    assert!(w.net.egresses[ab.idx()].is_cells() && w.net.egresses[ba.idx()].is_cells());
    assert!(!w.net.egresses[w.net.links[0].ab.idx()].is_cells());
    // spec 1 §3.1: `reverse_path = "per_vc"` gives the b→a direction a path per VC; a→b
    // keeps its switch.
    use crate::atm::port::Output;
    let s = ok(&atm("reverse_path = \"per_vc\""), &[]);
    let LinkKind::Atm(a) = &s.links[1].kind else {
        panic!("an atm link")
    };
    assert_eq!((a.port.output, a.reverse), (Output::Switch, Output::PerVc));
    let w = build(&s, 1).unwrap();
    let out = |e: crate::ids::EgressId| {
        crate::atm::port::CellPort::of(&w.net.egresses[e.idx()])
            .unwrap()
            .config()
            .output
    };
    let (ab, ba) = (w.net.links[1].ab, w.net.links[1].ba);
    assert_eq!((out(ab), out(ba)), (Output::Switch, Output::PerVc));
}

#[test]
fn atm_link_errors_name_the_key() {
    let cases = [
        (
            "switch_buffer = 0",
            "links.l2.switch_buffer",
            "at least 1 cell",
        ),
        (
            "epd_threshold = 5",
            "links.l2.epd_threshold",
            "only allowed with discard = \"epd\"",
        ),
        (
            "discard = \"epd\"\nswitch_buffer = 100\nepd_threshold = 100",
            "links.l2.epd_threshold",
            "expected 1 <= T < switch_buffer = 100 cells; got 100",
        ),
        (
            "discard = \"epd\"\nepd_threshold = 0",
            "links.l2.epd_threshold",
            "got 0",
        ),
        (
            "keep_eof = true",
            "links.l2.keep_eof",
            "only allowed with discard = \"ppd\" or \"epd\"",
        ),
        ("discard = \"red\"", "links.l2.discard", "plain"),
        (
            "arrival_order = \"fifo\"",
            "links.l2.arrival_order",
            "random",
        ),
        ("reverse_path = \"none\"", "links.l2.reverse_path", "per_vc"),
        (
            "queue = { limit = 10 }",
            "links.l2.queue",
            "not allowed on atm links",
        ),
        ("loss = 0.01", "links.l2.loss", "not allowed on atm links"),
        (
            "outages = [ { from = \"1s\", to = \"2s\" } ]",
            "links.l2.outages",
            "not allowed on atm links",
        ),
    ];
    for (keys, key, what) in cases {
        let e = bad(&atm(keys), &[]);
        let line = 20 + keys.lines().count() - 1;
        assert_at(&e, line, key, what);
    }
    // A cell key on a point-to-point link names the kind that takes it.
    let e = bad(
        &BASE.replace("delay = \"5ms\"", "delay = \"5ms\"\nswitch_buffer = 100"),
        &[],
    );
    assert_at(
        &e,
        13,
        "links.l1.switch_buffer",
        "only allowed on atm links",
    );
}

// ---- shared_channel (spec 2 §4 extension: several mobiles sharing one radio channel) ----

/// A server, a base station, a node for the air and two mobiles behind it; the radio link's
/// `shared_channel` line is line 20.
fn shared(keys: &str) -> String {
    format!(
        r#"[simulation]
duration = "3s"

[nodes.server]
[nodes.bs]
[nodes.air]
[nodes.ms1]
[nodes.ms2]

[links.wired]
a = "server"
b = "bs"
rate = "10Mbps"
delay = "5ms"

[links.radio]
a = "bs"
b = "air"
kind = "radio"
{keys}
rate = "1Mbps"
delay = "2ms"
queue = {{ limit = 7 }}

[links.air1]
a = "air"
b = "ms1"
rate = "1000Gbps"
delay = "0s"

[links.air2]
a = "air"
b = "ms2"
rate = "1000Gbps"
delay = "0s"

[flows.f1]
from = "server"
to = "ms1"

[flows.f2]
from = "server"
to = "ms2"
"#
    )
}

// The keys load into the radio's settings (round robin, weights 1 by default), and the built
// downlink has one queue per mobile (the link's `queue` limit each) and `other`, classified by
// destination; both mobiles get data and each queue's counters are in the summary
// (`radio:bs->air/ms1`, ...).
#[test]
fn shared_channel_builds_one_downlink_queue_per_mobile() {
    let s = ok(
        &shared("shared_channel = { mobiles = [\"ms1\", \"ms2\"] }"),
        &[],
    );
    let LinkKind::Radio(r) = &s.links[1].kind else {
        panic!("a radio link")
    };
    assert_eq!(
        r.shared,
        Some(SharedChannel {
            mobiles: vec!["ms1".into(), "ms2".into()],
            scheduler: SchedulerSpec::Wrr,
            weights: vec![1, 1],
        })
    );
    let s2 = ok(
        &shared("shared_channel = { mobiles = [\"ms2\", \"ms1\"], weights = [3, 1] }"),
        &[],
    );
    let LinkKind::Radio(r2) = &s2.links[1].kind else {
        panic!("a radio link")
    };
    assert_eq!(r2.shared.as_ref().unwrap().weights, vec![3, 1]);
    let s3 = ok(
        &shared("shared_channel = { mobiles = [\"ms1\"], scheduler = \"priority\" }"),
        &[],
    );
    let LinkKind::Radio(r3) = &s3.links[1].kind else {
        panic!("a radio link")
    };
    assert_eq!(
        r3.shared.as_ref().unwrap().scheduler,
        SchedulerSpec::Priority
    );

    let mut w = build(&s, 1).unwrap();
    let down = w.net.links[1].ab;
    let e = &w.net.egresses[down.idx()];
    let c = e.classes().expect("classful");
    assert!(c.is_per_destination() && e.is_pull());
    let names: Vec<&str> = c.classes.iter().map(|q| q.name.as_str()).collect();
    assert_eq!(names, ["ms1", "ms2", "other"]);
    let info = w.run();
    let sum = crate::report::Summary::new(&w, &info, "x", 1);
    for m in ["ms1", "ms2"] {
        let q = &sum.queues[&format!("radio:bs->air/{m}")];
        assert!(q.departures > 50, "{m}: {}", q.departures);
        assert!(q.max_len_pkts <= 7.0, "{m}: limit 7 each");
    }
    assert_eq!(sum.queues["radio:bs->air/other"].arrivals, 0);
    w.net.egresses[down.idx()].check_conservation().unwrap();
}

#[test]
fn shared_channel_errors_name_the_key() {
    let line = 20;
    let cases = [
        (
            "shared_channel = { mobiles = [] }",
            "links.radio.shared_channel.mobiles",
            "at least one mobile",
        ),
        (
            "shared_channel = { mobiles = [\"ms1\", \"ms1\"] }",
            "links.radio.shared_channel.mobiles[1]",
            "listed twice",
        ),
        (
            "shared_channel = { mobiles = [\"ms1\", \"ms3\"] }",
            "links.radio.shared_channel.mobiles[1]",
            "expected the name of a node",
        ),
        (
            "shared_channel = { mobiles = [\"bs\"] }",
            "links.radio.shared_channel.mobiles[0]",
            "the base station",
        ),
        (
            "shared_channel = { mobiles = [\"ms1\"], scheduler = \"priority\", weights = [1] }",
            "links.radio.shared_channel.weights",
            "not allowed with scheduler = \"priority\"",
        ),
        (
            "shared_channel = { mobiles = [\"ms1\", \"ms2\"], weights = [1] }",
            "links.radio.shared_channel.weights",
            "one weight per mobile (2); got 1",
        ),
        (
            "shared_channel = { mobiles = [\"ms1\", \"ms2\"], weights = [1, 0] }",
            "links.radio.shared_channel.weights[1]",
            "positive weight",
        ),
        (
            "shared_channel = { mobiles = [\"ms1\"], scheduler = \"fifo\" }",
            "links.radio.shared_channel.scheduler",
            "expected `round_robin` or `priority`",
        ),
        (
            "shared_channel = { mobiles = [\"ms1\"], share = 1 }",
            "links.radio.shared_channel.share",
            "expected one of `mobiles`, `scheduler`, `weights`",
        ),
    ];
    for (keys, key, what) in cases {
        let e = bad(&shared(keys), &[]);
        assert_at(&e, line, key, what);
    }
    // The per-mobile queue is a single queue: a classful `queue` is refused.
    let text = shared("shared_channel = { mobiles = [\"ms1\"] }").replace(
        "queue = { limit = 7 }",
        "queue = { kind = \"priority\", classes = [{ name = \"a\", queue = { limit = 5 } }] }",
    );
    assert_at(&bad(&text, &[]), 23, "links.radio.queue", "single queue");
    // Only radio links take it.
    let text = shared("").replace(
        "delay = \"5ms\"",
        "delay = \"5ms\"\nshared_channel = { mobiles = [\"ms1\"] }",
    );
    assert_at(
        &bad(&text, &[]),
        15,
        "links.wired.shared_channel",
        "only allowed on radio links",
    );
}

// ---- [trace] ---------------------------------------------------------------------------

#[test]
fn trace_table_reads_links_with_directions_flows_window_and_snaplen() {
    let text = format!(
        "{BASE}\n[trace]\npcap = true\nevents = true\nlinks = [\"l1\", \"l2:b_to_a\"]\nflows = [\"f\"]\n\
         from = \"1s\"\nto = \"2500ms\"\nsnaplen = 96\n"
    );
    let s = ok(&text, &[]);
    assert_eq!(
        s.trace,
        TraceSpec {
            pcap: true,
            events: true,
            links: vec![
                ("l1".into(), ErrorDirection::Both),
                ("l2".into(), ErrorDirection::BToA)
            ],
            flows: vec!["f".into()],
            from: Time::from_millis(1000),
            to: Some(Time::from_millis(2500)),
            snaplen: 96,
        }
    );
    assert_eq!(ok(BASE, &[]).trace, TraceSpec::default());
}

#[test]
fn trace_errors_name_the_key_and_what_was_expected() {
    let line = BASE.lines().count() + 3;
    let e = bad(
        &format!("{BASE}\n[trace]\nlinks = [\"l1\", \"nope\"]\n"),
        &[],
    );
    assert_at(
        &e,
        line,
        "trace.links[1]",
        "unknown link \"nope\"; expected one of: l1, l2",
    );
    let e = bad(&format!("{BASE}\n[trace]\nlinks = [\"l1:up\"]\n"), &[]);
    assert_at(
        &e,
        line,
        "trace.links[0]",
        "a_to_b, b_to_a, both; got direction \"up\"",
    );
    let e = bad(&format!("{BASE}\n[trace]\nflows = [\"g\"]\n"), &[]);
    assert_at(&e, line, "trace.flows[0]", "unknown flow \"g\"");
    let e = bad(&format!("{BASE}\n[trace]\nsnaplen = 19\n"), &[]);
    assert_at(&e, line, "trace.snaplen", "at least 20 bytes");
    let e = bad(
        &format!("{BASE}\n[trace]\nfrom = \"2s\"\nto = \"1s\"\n"),
        &[],
    );
    assert_at(&e, line + 1, "trace.to", "after its start");
    let e = bad(&format!("{BASE}\n[trace]\npcaps = true\n"), &[]);
    assert_at(&e, line, "trace.pcaps", "unknown key");
}

// Issue 16, range checks: every quantity has a bound, and overflow is an error naming the key
// (before, "1e308s" saturated at 584 years, "1e99 Gbps" at u64::MAX, "1e30GiB" likewise).
#[test]
fn out_of_range_quantities_name_the_key() {
    let e = bad(&BASE.replace("\"10s\"", "\"1e308s\""), &[]);
    assert_at(&e, 2, "simulation.duration", "at most 1e7 s");
    let e = bad(&BASE.replace("\"2Mbps\"", "\"1e99Gbps\""), &[]);
    assert_at(&e, 17, "links.l2.rate", "at most 10Tbps");
    let e = bad(&BASE.replace("\"20ms\"", "\"0.1ns\""), &[]);
    assert_at(&e, 18, "links.l2.delay", "at least 1 ns");
    let e = bad(
        BASE,
        &["links.l1.queue={ kind = \"droptail\", limit = \"1e30GiB\" }"],
    );
    assert!(e.to_string().contains("at most 2^50"), "{e}");
    assert_eq!(e.key(), Some("links.l1.queue.limit"), "{e}");
}

// Issue 16, relational checks: rto_min <= rto_initial <= rto_max (RFC 6298 (2.4)); a flow
// starts before the run ends and stops no later; its last copy starts before the run ends.
#[test]
fn relational_checks_name_the_key() {
    let e = bad(BASE, &["tcp.rto_initial=\"90s\""]);
    assert!(
        e.to_string().contains(
            "tcp.rto_initial: expected rto_min (1s) <= rto_initial <= rto_max (60s); got 90s"
        ),
        "{e}"
    );
    let e = bad(BASE, &["tcp.rto_min=\"2s\""]);
    assert_eq!(e.key(), Some("tcp.rto_initial"), "{e}");
    let e = bad(
        &BASE.replace("to = \"c\"", "to = \"c\"\nstart = \"10s\""),
        &[],
    );
    assert_at(
        &e,
        23,
        "flows.f.start",
        "before the end of the run (simulation.duration = 10s)",
    );
    let e = bad(
        &BASE.replace("to = \"c\"", "to = \"c\"\nstop = \"11s\""),
        &[],
    );
    assert_at(&e, 23, "flows.f.stop", "no later than the end of the run");
    let text = BASE.replace(
        "to = \"c\"",
        "to = \"c\"\ncount = 1000000\nstagger = \"1e7s\"",
    );
    let e = bad(&text, &[]);
    assert_at(
        &e,
        24,
        "flows.f.stagger",
        "would start at start + 999999 x stagger",
    );
    // At the bounds, accepted.
    ok(
        &BASE.replace("to = \"c\"", "to = \"c\"\nstart = \"9s\"\nstop = \"10s\""),
        &[],
    );
    ok(BASE, &["tcp.rto_initial=\"60s\""]);
    // Issue 16: an outage or a rate step beginning at or after the end of the run never
    // happens; it is refused naming its time. An outage may last past the end.
    let e = bad(BASE, &["links.l1.outages=[{from=\"10s\",to=\"12s\"}]"]);
    assert_eq!(e.key(), Some("links.l1.outages[0].from"), "{e}");
    assert!(
        e.to_string()
            .contains("before the end of the run (simulation.duration = 10s); got 10s"),
        "{e}"
    );
    ok(BASE, &["links.l1.outages=[{from=\"9s\",to=\"12s\"}]"]);
    let e = bad(
        BASE,
        &["links.l1.rate_steps=[{at=\"1s\",rate=\"1Mbps\"},{at=\"20s\",rate=\"2Mbps\"}]"],
    );
    assert_eq!(e.key(), Some("links.l1.rate_steps[1].at"), "{e}");
    assert!(e.to_string().contains("got 20s"), "{e}");
}

// Issue 14 item 6: `loss_position` (default `wire`); `before_queue` is ns-2's `lossmodel`;
// a bad value is refused naming the key and its line.
#[test]
fn link_loss_position_parses_and_bad_value_is_located() {
    use crate::net::LossPosition;
    let s = ok(BASE, &[]);
    assert_eq!(s.links[1].loss_position, LossPosition::Wire);
    let with = |v: &str| {
        BASE.replace(
            "delay = \"20ms\"\n",
            &format!("delay = \"20ms\"\nloss_position = {v}\n"),
        )
    };
    let s = ok(&with("\"before_queue\""), &[]);
    assert_eq!(s.links[1].loss_position, LossPosition::BeforeQueue);
    let e = bad(&with("\"early\""), &[]);
    assert_at(
        &e,
        19,
        "links.l2.loss_position",
        "unknown value `early`; expected `wire` or `before_queue`",
    );
}

// `loss_packets`: a loss list (ns-2.35 `ErrorModel/List`) on the directions `errors` names,
// built into those directions' error models only; bad lists are refused naming the entry.
#[test]
fn link_loss_packets_parse_build_and_bad_lists_are_located() {
    let with = |v: &str, errors: &str| {
        BASE.replace(
            "delay = \"20ms\"\n",
            &format!("delay = \"20ms\"\nloss_packets = {v}\n{errors}"),
        )
    };
    let s = ok(&with("[0, 4, 9]", ""), &[]);
    assert_eq!(s.links[1].loss_packets, vec![0, 4, 9]);
    assert!(s.links[0].loss_packets.is_empty());
    let lists = |s: &Scenario| {
        let w = build(s, 1).unwrap();
        let of = |name: &str| {
            let e = w.net.egresses.iter().find(|e| e.name == name).unwrap();
            e.errors().drop_list.clone()
        };
        (of("l2:b->c"), of("l2:c->b"))
    };
    assert_eq!(lists(&s), (vec![0, 4, 9], vec![]));
    let both = ok(&with("[2]", "errors = \"both\"\n"), &[]);
    assert_eq!(lists(&both), (vec![2], vec![2]));
    let by_set = ok(BASE, &["links.l2.loss_packets=[1, 2]"]);
    assert_eq!(by_set.links[1].loss_packets, vec![1, 2]);

    let e = bad(&with("[3, 7, 7]", ""), &[]);
    assert_at(
        &e,
        19,
        "links.l2.loss_packets[2]",
        "expected strictly increasing packet indices: 7 is not above the previous index 7",
    );
    let e = bad(&with("[5, -1]", ""), &[]);
    assert_at(
        &e,
        19,
        "links.l2.loss_packets[1]",
        "expected a packet index, an integer >= 0; got -1",
    );
    let e = bad(&with("[1.5]", ""), &[]);
    assert_at(
        &e,
        19,
        "links.l2.loss_packets[0]",
        "expected a packet index, an integer >= 0; got 1.5",
    );
    let e = bad(&with("\"1 2 3\"", ""), &[]);
    assert_at(
        &e,
        19,
        "links.l2.loss_packets",
        "expected an array of packet indices, e.g. [17, 40, 41]; got a string",
    );
}

// ---- profile = "ns2" (issue 14 item 8; profile.rs) ------------------------------------

// The profile sets every option of profile::NS2_OPTIONS; `[tcp]`, a flow's own `tcp` and a
// link's own `loss_position` each override it key by key; "standard" and no key change nothing.
#[test]
fn profile_ns2_sets_its_options_and_explicit_keys_override_them() {
    use crate::net::LossPosition;
    use crate::transport::tcp::{RecoverGuard, RttEstimatorKind, SsthreshRule};
    let text = format!(
        "profile = \"ns2\"\n{}",
        BASE.replace("[nodes.a]", "[tcp]\nrto_min = \"1s\"\n\n[nodes.a]")
            .replace(
                "delay = \"5ms\"\n",
                "delay = \"5ms\"\nloss_position = \"wire\"\n"
            )
    ) + "tcp = { limited_transmit = false }\n\n[flows.g]\nfrom = \"c\"\nto = \"a\"\n";
    let s = ok(&text, &[]);
    let tcp = |s: &Scenario, i: usize| match &fl(s)[i].kind {
        FlowKind::Tcp { tcp, .. } => tcp.clone(),
        k => panic!("{k:?}"),
    };
    let (f, g) = (tcp(&s, 0), tcp(&s, 1));
    assert!(!f.limited_transmit, "the flow's own table wins");
    assert!(g.limited_transmit, "the profile's value");
    for c in [&f, &g] {
        assert_eq!(c.rto_min, Dur::from_secs(1), "[tcp] wins over the profile");
        assert_eq!(c.recover_guard, RecoverGuard::AfterLoss);
        assert_eq!(c.ssthresh_rule, SsthreshRule::Ns2);
        assert_eq!(c.rtt_estimator, RttEstimatorKind::Ns2);
        assert_eq!(c.tick, Dur::from_millis(10));
        assert_eq!(c.rto_initial, Dur::from_secs(3));
        assert!(!c.dupack_same_window);
    }
    assert_eq!(
        s.links[0].loss_position,
        LossPosition::Wire,
        "the link's own key"
    );
    assert_eq!(s.links[1].loss_position, LossPosition::BeforeQueue);

    let plain = ok(BASE, &[]);
    let standard = ok(&format!("profile = \"standard\"\n{BASE}"), &[]);
    for sc in [&plain, &standard] {
        assert_eq!(tcp(sc, 0), TcpConfig::default());
        assert_eq!(sc.links[1].loss_position, LossPosition::Wire);
    }
    let by_set = ok(BASE, &["profile=ns2"]);
    assert_eq!(tcp(&by_set, 0).rtt_estimator, RttEstimatorKind::Ns2);
    assert_eq!(by_set.links[1].loss_position, LossPosition::BeforeQueue);
}

// The profile's [sctp] options reach an SCTP flow; the file's [sctp] overrides them.
#[test]
fn profile_ns2_sets_sctp_options() {
    let sc = ok(&format!("profile = \"ns2\"\n{MULTIHOMED}"), &[]);
    let flows = fl(&sc);
    let FlowKind::Sctp { sctp, .. } = &flows[0].kind else {
        panic!("an sctp flow")
    };
    assert!(sctp.fast_recovery);
    assert_eq!(sctp.fast_rtx_threshold, 3);
    assert_eq!(sctp.ssthresh_floor_mtus, 4);
    assert!(sctp.t3_cut_above_one_mtu);
    let sc = ok(
        &format!("profile = \"ns2\"\n{MULTIHOMED}"),
        &["sctp.fast_rtx_threshold=4"],
    );
    let flows = fl(&sc);
    let FlowKind::Sctp { sctp, .. } = &flows[0].kind else {
        panic!("an sctp flow")
    };
    assert_eq!((sctp.fast_rtx_threshold, sctp.fast_recovery), (4, true));
}

// An unknown profile is located at its key; an inconsistency between a file key and a profile
// value names the key and says that the profile set it.
#[test]
fn profile_errors_are_located() {
    let e = bad(&format!("profile = \"ns3\"\n{BASE}"), &[]);
    assert_at(
        &e,
        1,
        "profile",
        "unknown value `ns3`; expected one of `standard`, `ns2`, `linux`",
    );
    let text = format!(
        "profile = \"ns2\"\n{}",
        BASE.replace("[nodes.a]", "[tcp]\nrto_max = \"100ms\"\n\n[nodes.a]")
    );
    let e = bad(&text, &[]);
    let msg = e.to_string();
    assert_eq!(e.key(), Some("tcp.rto_min"), "{msg}");
    assert!(
        msg.contains("expected rto_min <= rto_max")
            && msg.contains("(`rto_min` set by profile = \"ns2\")"),
        "{msg}"
    );
}

// RFC 4960 floor key: a value outside 1..=64 is located at its key.
#[test]
fn sctp_ssthresh_floor_out_of_range_is_located() {
    let e = bad(
        &MULTIHOMED.replace(
            "sctp = { rtx_policy = \"same\" }",
            "sctp = { ssthresh_floor_mtus = 0 }",
        ),
        &[],
    );
    let msg = e.to_string();
    assert!(
        msg.contains("ssthresh_floor_mtus") && msg.contains("expected 1 to 64"),
        "{msg}"
    );
}

// `rfc = 2960 | 4960` (issue 14 item 7): a preset filling the keys its table does not set.
// `[sctp] rfc = 4960` gives RFC 4960 §7.2.1, §7.2.3, §7.2.4's values but the table's own
// `fast_rtx_threshold` wins; over the ns2 profile `rfc = 2960` restores RFC 2960 and leaves
// the ns-2-only keys (t3_cut_above_one_mtu, path_verification) as the profile set them; a
// flow's own `rfc` works the same way; another value is located at `sctp.rfc`.
#[test]
fn sctp_rfc_preset_fills_the_keys_its_table_does_not_set() {
    use crate::transport::sctp::{RtxPolicy, SctpConfig};
    let sctp_of = |sc: &Scenario| match &fl(sc)[0].kind {
        FlowKind::Sctp { sctp, .. } => sctp.clone(),
        k => panic!("{k:?}"),
    };
    let with = |t: &str| MULTIHOMED.replace("[nodes.s]", &format!("[sctp]\n{t}\n\n[nodes.s]"));
    let c = sctp_of(&ok(&with("rfc = 4960\nfast_rtx_threshold = 4"), &[]));
    assert!(c.fast_recovery && c.initial_cwnd_rfc4960 && c.idle_cwnd_decay);
    assert_eq!((c.fast_rtx_threshold, c.ssthresh_floor_mtus), (4, 4));
    assert!(!c.path_verification && !c.t3_cut_above_one_mtu);
    let c = sctp_of(&ok(
        &format!("profile = \"ns2\"\n{}", with("rfc = 2960")),
        &[],
    ));
    assert!(!c.fast_recovery && !c.initial_cwnd_rfc4960 && !c.idle_cwnd_decay);
    assert_eq!((c.fast_rtx_threshold, c.ssthresh_floor_mtus), (4, 2));
    assert!(c.path_verification && c.t3_cut_above_one_mtu);
    let own = MULTIHOMED.replace(
        "sctp = { rtx_policy = \"same\" }",
        "sctp = { rfc = 4960, idle_cwnd_decay = false }",
    );
    let c = sctp_of(&ok(&own, &[]));
    assert!(c.fast_recovery && !c.idle_cwnd_decay);
    assert_eq!(c.ssthresh_floor_mtus, 4);
    let c = sctp_of(&ok(MULTIHOMED, &[]));
    assert_eq!(
        c,
        SctpConfig {
            rtx_policy: RtxPolicy::Same,
            ..SctpConfig::default()
        },
        "no preset: the RFC 2960 defaults"
    );
    assert_at(
        &bad(&with("rfc = 4961"), &[]),
        5,
        "sctp.rfc",
        "expected 2960 or 4960",
    );
}

/// `BASE` with `keys` added to its tcp flow `f` (from line 23 on).
fn frames_flow(keys: &str) -> String {
    format!("{BASE}{keys}\n")
}

/// `app = "frames"` (spec 1 §2.4, issue 11 item 5): the defaults are the paper's CBRFrame
/// (9180 B every 2 ms, resumed at BUF − 4096), every key is read, and the sender is fed by the
/// frame source in the built world.
#[test]
fn frames_app_defaults_and_every_key() {
    let sc = load_str(
        &frames_flow("app = \"frames\"\ntcp = { send_buffer = 64000 }"),
        ORIGIN,
        &[],
    )
    .unwrap();
    let flow0 = sc.flows().next().expect("one flow");
    let FlowKind::Tcp { app, tcp } = &flow0.kind else {
        panic!("a tcp flow")
    };
    assert_eq!(
        *app,
        App::Frames {
            block: 9180,
            interval: Dur::from_millis(2),
            resume_below: 4096,
            whole_blocks: false
        }
    );
    assert_eq!(tcp.send_buffer, Some(64000));
    let sc = load_str(
        &frames_flow(
            "app = \"frames\"\ntcp = { send_buffer = \"8KB\" }\nframe_size = \"1KB\"\nframe_interval = \"1ms\"\nresume_below = 6540",
        ),
        ORIGIN,
        &[],
    )
    .unwrap();
    let flow0 = sc.flows().next().expect("one flow");
    let FlowKind::Tcp { app, .. } = &flow0.kind else {
        panic!("a tcp flow")
    };
    assert_eq!(
        *app,
        App::Frames {
            block: 1000,
            interval: Dur::from_millis(1),
            resume_below: 6540,
            whole_blocks: false
        }
    );
    // Built: 1000 B per ms (8 Mb/s) into an 8000-byte buffer over a 50 ms propagation round
    // trip: the buffer, not the source or the 2 Mb/s link, limits the flow: at most 8000 B (5
    // full segments) per round trip, so under 8000 B / 50 ms = 1.28 Mb/s.
    let out = crate::scenario::run(&sc, 1).unwrap();
    let f = &out.summary.flows["f"];
    assert!(
        f.goodput_bps < 1.28e6 && f.goodput_bps > 0.5e6 && f.retransmits == 0,
        "buffer-limited: {f:?}"
    );
    // A slow source (1000 B every 100 ms, 80 kb/s) drives the sender: by 10 s it has written
    // 100 blocks (t = 0, 0.1, ..., 9.9 s) = 100,000 B, sent in full segments only (SWS
    // avoidance while more is expected), so what is delivered is at most that and at least
    // that minus one segment held back and the segments still in flight at the end.
    let sc = load_str(
        &frames_flow(
            "app = \"frames\"\ntcp = { send_buffer = 64000 }\nframe_size = 1000\nframe_interval = \"100ms\"",
        ),
        ORIGIN,
        &[],
    )
    .unwrap();
    let out = crate::scenario::run(&sc, 1).unwrap();
    let f = &out.summary.flows["f"];
    assert!(
        f.bytes_sent <= 100_000 && f.bytes_delivered >= 100_000 - 3 * 1460,
        "source-limited: {f:?}"
    );
    assert_eq!(f.bytes_sent % 1460, 0, "full segments only: {f:?}");
}

/// `whole_blocks = true` (issue 11: YATS's start-stop protocol, `app::Frames::whole_blocks`)
/// is read and chooses the whole-block source for the built flow; `false` (the default) the
/// split-block one.
#[test]
fn frames_app_whole_blocks_reaches_the_source() {
    use crate::app::AppSource;
    for whole in [true, false] {
        let sc = load_str(
            &frames_flow(&format!(
                "app = \"frames\"\ntcp = {{ send_buffer = 4000 }}\nframe_size = 1500\nframe_interval = \"1ms\"\nresume_below = 1000\nwhole_blocks = {whole}"
            )),
            ORIGIN,
            &[],
        )
        .unwrap();
        let FlowKind::Tcp { app, .. } = &sc.flows().next().expect("one flow").kind else {
            panic!("a tcp flow")
        };
        assert_eq!(
            *app,
            App::Frames {
                block: 1500,
                interval: Dur::from_millis(1),
                resume_below: 1000,
                whole_blocks: whole
            }
        );
        let want = if whole {
            AppSource::frames_whole_blocks(1500, Dur::from_millis(1), 4000, 3000)
        } else {
            AppSource::frames(1500, Dur::from_millis(1), 4000, 3000)
        };
        assert_eq!(
            flow::tcp::frames_source(app, 4000),
            Some(want),
            "whole = {whole}"
        );
    }
}

#[test]
fn frames_app_errors_name_the_key() {
    let with_buf = "app = \"frames\"\ntcp = { send_buffer = 64000 }\n";
    let cases = [
        ("app = \"frames\"", 23, "flows.f.app", "set `send_buffer`"),
        (
            "app = \"frames\"\ntcp = { send_buffer = 1460 }",
            23,
            "flows.f.app",
            "larger than one segment; got send_buffer = 1460, mss = 1460",
        ),
        (
            &*format!("{with_buf}frame_size = 0"),
            25,
            "flows.f.frame_size",
            "expected a positive byte count, e.g. 9180; got 0",
        ),
        (
            &*format!("{with_buf}frame_interval = \"0s\""),
            25,
            "flows.f.frame_interval",
            "expected a positive duration",
        ),
        (
            &*format!("{with_buf}resume_below = 70000"),
            25,
            "flows.f.resume_below",
            "expected 1 to 62540 bytes (send_buffer 64000 - mss 1460)",
        ),
        (
            &*format!("{with_buf}resume_below = 0"),
            25,
            "flows.f.resume_below",
            "got 0",
        ),
        (
            &*format!("{with_buf}size = \"1MB\""),
            25,
            "flows.f.size",
            "only allowed with app = \"file\"",
        ),
        (
            "frame_size = 9180",
            23,
            "flows.f.frame_size",
            "only allowed with app = \"frames\"",
        ),
        (
            "app = \"file\"\nsize = 100\nresume_below = 10",
            25,
            "flows.f.resume_below",
            "only allowed with app = \"frames\"",
        ),
        (
            "app = \"file\"\nsize = 100\nwhole_blocks = true",
            25,
            "flows.f.whole_blocks",
            "only allowed with app = \"frames\"",
        ),
        (
            &*format!("{with_buf}whole_blocks = 1"),
            25,
            "flows.f.whole_blocks",
            "bool",
        ),
        ("app = \"stream\"", 23, "flows.f.app", "frames"),
    ];
    for (keys, line, key, what) in cases {
        let e = bad(&frames_flow(keys), &[]);
        assert_at(&e, line, key, what);
    }
    // Another kind that carries a byte stream refuses it, naming the key.
    let e = bad(&frames_flow("kind = \"sctp\"\napp = \"frames\""), &[]);
    assert_at(&e, 24, "flows.f.app", "tcp flows only");
}

/// Issue 16 item 1: `count = 1000000` (the documented maximum) made `check` take 1.3-3.6 GB
/// and 16 s, because the loader made every copy. A table is now kept as one [`FlowTable`];
/// its copies are made one at a time where they are needed, and `check` builds one copy of
/// each table (the copies differ only in name and start).
#[test]
fn a_million_copies_stay_one_table_and_check_builds_one_copy() {
    let text = BASE.replace(
        "to = \"c\"",
        "to = \"c\"\ncount = 1000000\nstart = \"1s\"\nstagger = \"1us\"",
    );
    let s = ok(&text, &[]);
    assert_eq!(s.flow_tables.len(), 1, "one table, not a million specs");
    assert_eq!(s.flow_count(), 1_000_000);
    let t = &s.flow_tables[0];
    assert_eq!(t.first.name, "f_0");
    let last = t.copy(999_999);
    assert_eq!(last.name, "f_999999");
    assert_eq!(
        last.start,
        Time::from_millis(1000) + Dur::from_micros(999_999)
    );
    assert_eq!(last.kind, t.first.kind);
    // The iterator makes the copies lazily, in order.
    let mut it = s.flows();
    assert_eq!(it.next().map(|f| f.name), Some("f_0".into()));
    assert_eq!(it.nth(999_998).map(|f| f.name), Some("f_999999".into()));
    assert!(it.next().is_none());
    // Names are found without a table of names; leading zeros and "f_1000000" are no copy.
    assert_eq!(s.find_flow("f_999999").map(|(i, _)| i), Some(999_999));
    for name in ["f", "f_1000000", "f_01", "f_", "f_-1", "f_x", "g_0"] {
        assert!(s.find_flow(name).is_none(), "{name}");
    }
    // `check` finds nothing wrong and builds one copy; the budget is computed from the count.
    check(&s).unwrap();
    // The flows, and (issue 38) the few KiB of its nodes, links and text.
    let flows = 1_000_000 * FLOW_BYTES as u128;
    let est = memory_estimate(&s);
    assert!(est >= flows && est < flows + (1 << 20), "{est}");
    let e = check_budget(&s, 2 << 30).unwrap_err();
    assert_eq!(e.key, "flows.f.count");
    assert_eq!(e.at, Some(Location::Line(20)), "the table's line");
    assert!(
        e.msg
            .starts_with("1000000 flows in all (1000000 from this table) need about 3906.2 MiB"),
        "{}",
        e.msg
    );
    check_budget(&s, 4 << 30).unwrap();
    // A build error is still found by `check` (one copy stands for all): no route.
    let e = check(&ok(&text, &["links.l2.b=\"a\"", "links.l2.a=\"b\""])).unwrap_err();
    assert_eq!(e.key, "flows.f_0", "{e}");
    assert!(e.msg.contains("no route between \"a\""), "{e}");
    // The trace may name any copy, and no other.
    ok(&text, &["trace.flows=[\"f_999999\"]"]);
    let e = bad(&text, &["trace.flows=[\"f_1000000\"]"]);
    assert_eq!(e.key(), Some("trace.flows[0]"), "{e}");
}

/// Flow names are compared table by table: a one-copy table clashes with a copy of a table of
/// several, in either file order; a name that only looks like a copy does not clash.
#[test]
fn copy_names_clash_in_either_order_and_only_when_the_copy_exists() {
    let multi = "[flows.f]\nfrom = \"a\"\nto = \"c\"\ncount = 3\n";
    let single = |name: &str| format!("[flows.{name}]\nfrom = \"a\"\nto = \"b\"\n");
    let head = BASE.split("[flows.f]").next().unwrap();
    // The single table after the table of copies: the error is at the single one.
    let e = bad(&format!("{head}{multi}{}", single("f_2")), &[]);
    assert_at(
        &e,
        24,
        "flows.f_2",
        "flow name `f_2` is used twice: by flows.f and by flows.f_2",
    );
    // Before it: the error is at the table of copies.
    let e = bad(&format!("{head}{}{multi}", single("f_2")), &[]);
    assert_at(
        &e,
        23,
        "flows.f",
        "flow name `f_2` is used twice: by flows.f_2 and by flows.f",
    );
    // f_3 (count is 3), f_02 and f_2_0 are no copy of f.
    for name in ["f_3", "f_02", "f_2_0"] {
        let s = ok(&format!("{head}{multi}{}", single(name)), &[]);
        assert_eq!(s.flow_count(), 4, "{name}");
    }
    // Two tables of several copies never clash: f_2 makes f_2_0, f_2_1.
    let s = ok(
        &format!("{head}{multi}[flows.f_2]\nfrom = \"a\"\nto = \"b\"\ncount = 2\n"),
        &[],
    );
    let names: Vec<String> = s.flows().map(|f| f.name).collect();
    assert_eq!(names, ["f_0", "f_1", "f_2", "f_2_0", "f_2_1"]);
}

// Issue 17 item 2: AQM queues are selectable by name with their parameters, and bad values
// are located (file, line, key). `red.step` lifts RED's `min_th < max_th`.
#[test]
fn aqm_queues_load_by_name_and_bad_keys_are_located() {
    let q = |v: &str| BASE.replace("delay = \"5ms\"", &format!("delay = \"5ms\"\nqueue = {v}"));
    let s = ok(
        &q("{ kind = \"red\", red = { step = 20, min_th = 20, max_th = 20, ecn = \"standard\" } }"),
        &[],
    );
    let QueueSpec::Aqm(crate::queue::AqmConfig::Red(r)) = &s.links[0].queue else {
        panic!("{:?}", s.links[0].queue)
    };
    assert_eq!(r.step, Some(20.0));
    let e = bad(&q("{ kind = \"red\", red = { step = -1 } }"), &[]);
    assert_at(&e, 13, "links.l1.queue.red.step", "non-negative");
    let s = ok(
        &q("{ kind = \"codel\", codel = { target = \"2ms\", interval = \"40ms\", ecn = true } }"),
        &[],
    );
    let QueueSpec::Aqm(crate::queue::AqmConfig::CoDel(c)) = &s.links[0].queue else {
        panic!("{:?}", s.links[0].queue)
    };
    assert_eq!(
        (c.target, c.interval, c.ecn),
        (Dur::from_millis(2), Dur::from_millis(40), true)
    );
    let e = bad(
        &q("{ kind = \"codel\", codel = { target = \"200ms\" } }"),
        &[],
    );
    assert_at(&e, 13, "links.l1.queue.codel.target", "below interval");
    let e = bad(&q("{ kind = \"codel\", codel = { targt = \"2ms\" } }"), &[]);
    assert_at(&e, 13, "links.l1.queue.codel.targt", "unknown");
    let e = bad(&q("{ kind = \"codel\", red = { step = 2 } }"), &[]);
    assert_at(&e, 13, "links.l1.queue.red", "does not belong");
    let e = bad(
        &q("{ kind = \"wrr\", classes = [{ name = \"a\", weight = 1, queue = { kind = \"codel\" } }] }"),
        &[],
    );
    assert_at(
        &e,
        13,
        "links.l1.queue.classes[0].queue.kind",
        "whole queue",
    );
}

// Issue 17 item 2: FQ-CoDel and PIE by name, bad keys located.
#[test]
fn fq_codel_and_pie_load_by_name_and_bad_keys_are_located() {
    let q = |v: &str| BASE.replace("delay = \"5ms\"", &format!("delay = \"5ms\"\nqueue = {v}"));
    let s = ok(
        &q("{ kind = \"fq_codel\", fq_codel = { quantum = 300, flows = 16 } }"),
        &[],
    );
    let QueueSpec::Aqm(crate::queue::AqmConfig::FqCoDel(f)) = &s.links[0].queue else {
        panic!("{:?}", s.links[0].queue)
    };
    assert_eq!((f.quantum, f.flows, f.ecn), (300, 16, true));
    let e = bad(
        &q("{ kind = \"fq_codel\", fq_codel = { quantum = 0 } }"),
        &[],
    );
    assert_at(&e, 13, "links.l1.queue.fq_codel.quantum", "expected 1 B");
    let s = ok(
        &q("{ kind = \"pie\", pie = { target = \"20ms\", ecn = true } }"),
        &[],
    );
    let QueueSpec::Aqm(crate::queue::AqmConfig::Pie(p)) = &s.links[0].queue else {
        panic!("{:?}", s.links[0].queue)
    };
    assert_eq!((p.target, p.ecn), (Dur::from_millis(20), true));
    let s = ok(
        &q("{ kind = \"pie\", pie = { burst_mode = \"ns3\" } }"),
        &[],
    );
    let QueueSpec::Aqm(crate::queue::AqmConfig::Pie(p)) = &s.links[0].queue else {
        panic!("{:?}", s.links[0].queue)
    };
    assert_eq!(p.burst_mode, crate::queue::PieBurstMode::Ns3);
    let e = bad(
        &q("{ kind = \"pie\", pie = { burst_mode = \"linux\" } }"),
        &[],
    );
    assert_at(&e, 13, "links.l1.queue.pie.burst_mode", "rfc8033");
    let e = bad(&q("{ kind = \"pie\", pie = { t_update = \"0s\" } }"), &[]);
    assert_at(&e, 13, "links.l1.queue.pie.t_update", "positive");
    let e = bad(&q("{ kind = \"pie\", codel = {} }"), &[]);
    assert_at(&e, 13, "links.l1.queue.codel", "does not belong");
}

// The registry's worked example (docs/extending.md): `kind = "drophead"` loads by name with
// its own sub-table, runs as a link direction's whole queue, and its errors are located
// like every other discipline's (file, line, key, what was expected, a suggestion).
#[test]
fn drophead_loads_by_name_from_its_registry_row_and_bad_keys_are_located() {
    use crate::queue::drophead::DropHeadConfig;
    use crate::queue::{AqmConfig, QueueLimit};
    let q = |v: &str| BASE.replace("delay = \"5ms\"", &format!("delay = \"5ms\"\nqueue = {v}"));
    let s = ok(&q("{ kind = \"drophead\", drophead = { limit = 7 } }"), &[]);
    assert_eq!(
        s.links[0].queue,
        QueueSpec::Aqm(AqmConfig::DropHead(DropHeadConfig {
            limit: QueueLimit::Packets(7)
        }))
    );
    let s = ok(&q("{ kind = \"drophead\" }"), &[]);
    assert_eq!(
        s.links[0].queue,
        QueueSpec::Aqm(AqmConfig::DropHead(DropHeadConfig::default()))
    );
    let e = bad(&q("{ kind = \"drophead\", drophead = { limt = 7 } }"), &[]);
    assert_at(&e, 13, "links.l1.queue.drophead.limt", "unknown key `limt`");
    let e = bad(&q("{ kind = \"drophead\", drophead = { limit = 0 } }"), &[]);
    assert_at(&e, 13, "links.l1.queue.drophead.limit", "1 to");
    let e = bad(&q("{ kind = \"drophead\", limit = 7 }"), &[]);
    assert_at(&e, 13, "links.l1.queue.limit", "does not belong");
    let e = bad(&q("{ kind = \"drophed\" }"), &[]);
    assert_at(&e, 13, "links.l1.queue.kind", "did you mean `drophead`?");
    let e = bad(
        &q("{ kind = \"wrr\", classes = [{ name = \"a\", weight = 1, queue = { kind = \"drophead\" } }] }"),
        &[],
    );
    assert_at(
        &e,
        13,
        "links.l1.queue.classes[0].queue.kind",
        "codel, fq_codel, pie and drophead are a link direction's whole queue",
    );
}

/// The indexed clash check of the loader (`FlowNames`) gives the scan's answer, table by table,
/// for names that are, look like, or nearly are each other's copies (tables have distinct
/// names, as TOML keys do).
#[test]
fn flow_name_index_matches_the_scan() {
    const NAMES: [&str; 14] = [
        "f", "f_0", "f_1", "f_2", "f_02", "f_2_0", "f_2_1", "f_", "f__1", "_1", "g", "g_10",
        "f_2_", "f_x",
    ];
    let table = |name: &str, count: u32| {
        let mut t = ok(BASE, &[]).flow_tables[0].clone();
        t.table = name.to_owned();
        t.count = count;
        t
    };
    proptest!(ProptestConfig::with_cases(500), |(
        order in Just((0..NAMES.len()).collect::<Vec<_>>()).prop_shuffle(),
        counts in proptest::collection::vec(1u32..=12, NAMES.len()),
        len in 1usize..=NAMES.len(),
    )| {
        let mut tables: Vec<FlowTable> = Vec::new();
        let mut names = FlowNames::default();
        for &k in &order[..len] {
            let t = table(NAMES[k], counts[k]);
            let want = FlowNames::clash_by_scan(&tables, &t);
            prop_assert_eq!(names.clash(&tables, &t), want, "{} x{}", &t.table, t.count);
            tables.push(t);
            names.add(&tables, tables.len() - 1);
        }
    });
}

// ---- "did you mean" (issue 37) --------------------------------------------------------

#[test]
fn a_misspelt_key_or_value_gets_a_suggestion() {
    let e = bad(&BASE.replace("delay = \"5ms\"", "dealy = \"5ms\""), &[]);
    assert_eq!(
        e.to_string(),
        format!(
            "{ORIGIN}:12: links.l1.dealy: unknown key `dealy`; expected one of `a`, `b`, \
             `rate`, `delay`, `queue`, `queue_ba`, `loss`, `ber`, `errors`, `loss_position`, \
             `loss_packets`, `outages`, `outage_policy`, `rate_steps`, `diffserv_edge`, `cost`, \
             `cost_ba`, `queue_report`, `rate_process`, `kind`, `downlink`, `report`, \
             `report_bytes`, `rate_cycle`, `radio_loss`, `shared_channel`, `switch_buffer`, \
             `discard`, `epd_threshold`, `keep_eof`, `arrival_order`, `reverse_path`, \
             `stations`, `basic_rate`, `rts_threshold`, `short_retry_limit`, \
             `long_retry_limit`, `propagation`, `range`, `base_stations`, `beacon_interval`, \
             `handoff`; did you mean `delay`?"
        )
    );
    assert_eq!(e.line(), Some(12));
    assert_eq!(e.key(), Some("links.l1.dealy"));
    // A kind (kinds.rs) and a serde enum value (load.rs) take the same path.
    let e = bad(
        &BASE.replace("to = \"c\"", "to = \"c\"\nkind = \"tpc\""),
        &[],
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{ORIGIN}:23: flows.f.kind: unknown value `tpc`; expected one of `tcp`, `sctp`, \
             `cbr`; did you mean `tcp`?"
        )
    );
    let e = bad(
        &BASE.replace("to = \"c\"", "to = \"c\"\ntcp = { variant = \"cubik\" }"),
        &[],
    );
    // Every registered variant, in registry order (`cc::congestion_controls!`).
    let variants = crate::transport::tcp::Variant::EVERY
        .iter()
        .map(|v| format!("`{}`", v.name()))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(variants.starts_with("`tahoe`, `reno`, `newreno`, `sack`, `cubic`, `dctcp`, `bbr`"));
    assert_eq!(
        e.to_string(),
        format!(
            "{ORIGIN}:23: flows.f.tcp.variant: unknown value `cubik`; expected one of \
             {variants}; did you mean `cubic`?"
        )
    );
    // Nothing close: the message is as before, with no guess.
    let e = bad(
        &BASE.replace("delay = \"5ms\"", "delay = \"5ms\"\njitter = 3"),
        &[],
    );
    assert!(!e.to_string().contains("did you mean"), "{e}");
    let e = bad(
        &BASE.replace("to = \"c\"", "to = \"c\"\nkind = \"quic\""),
        &[],
    );
    assert!(
        e.to_string()
            .ends_with("unknown value `quic`; expected one of `tcp`, `sctp`, `cbr`"),
        "{e}"
    );
}
