//! How a TCP table resolves under `profile` and the variant (issue 33 item 3, profile.rs):
//! `variant = "cubic" | "bbr" | "dctcp"` without `profile` gives Linux's settings and what Linux
//! ties to that controller; the classic variants and `profile = "standard"` keep the
//! documented defaults; written keys win; contradictions are located errors.

use super::*;
use crate::transport::tcp::{
    AckPolicy, BbrRecovery, BbrTimeoutFullBw, EcnEcho, LossDetection, LossRecoveryKind,
    RecoveryEntry, RtoBackoffReset, RtoRearm, RtoSsthresh, RttEstimatorKind, SackRecoveryKind,
    SlowStart, Variant,
};

const ORIGIN: &str = "p.toml";

const NET: &str = r#"[simulation]
duration = "10s"

[nodes.a]
[nodes.b]

[links.l]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"

[flows.f]
from = "a"
to = "b"
"#;

/// `head` (top-level keys and tables before the network), then the network, then `tail`
/// (more keys of flow `f`, or more flows).
fn text(head: &str, tail: &str) -> String {
    format!("{head}\n{NET}{tail}")
}

fn ok(text: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    load_str(text, ORIGIN, &sets).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn bad(text: &str) -> ScenarioError {
    match load_str(text, ORIGIN, &[] as &[Override]) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

/// The 1-based line of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    1 + text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in\n{text}"))
}

/// Asserts the error is at `key` on the line holding `needle`, and its message has `what`.
#[track_caller]
fn assert_at(e: &ScenarioError, text: &str, needle: &str, key: &str, what: &[&str]) {
    let msg = e.to_string();
    let line = line_of(text, needle);
    assert!(
        msg.starts_with(&format!("{ORIGIN}:{line}: {key}: ")),
        "expected {ORIGIN}:{line}: {key}: ..., got: {msg}"
    );
    for w in what {
        assert!(msg.contains(w), "expected {w:?} in: {msg}");
    }
}

/// The TCP configuration of the `i`-th flow.
fn tcp(s: &Scenario, i: usize) -> TcpConfig {
    match &s.flows().nth(i).expect("the flow").kind {
        FlowKind::Tcp { tcp, .. } => tcp.clone(),
        k => panic!("{k:?}"),
    }
}

/// What `profile = "linux"` sets whatever the variant (profile::LINUX_OPTIONS), over `c`.
fn linux_common(c: TcpConfig) -> TcpConfig {
    TcpConfig {
        timestamps: true,
        initial_cwnd: 10,
        rto_min: Dur::from_millis(200),
        rto_max: Dur::from_secs(120),
        loss_recovery: Some(LossRecoveryKind::Sack),
        loss_detection: LossDetection::RackTlp,
        rto_backoff_reset: RtoBackoffReset::NewAck,
        rto_ssthresh: RtoSsthresh::Recovery,
        ack_policy: AckPolicy::Linux,
        dsack: true,
        ..c
    }
}

/// The whole configuration `variant = V` alone gives, key by key (docs/scenario-format.md,
/// Profiles): the linux profile's common options, and CUBIC: HyStart++ and PRR
/// (`tcp_cubic.c` hystart, `tcp_cwnd_reduction`); BBR: Linux's RTO estimator and re-arming
/// (`tcp_set_rto`, `tcp_xmit_retransmit_queue`), the full-pipe reset on a timeout
/// (`bbr_set_state`) and recovery read per ACK (`bbr_set_cwnd_to_recover_or_restore`), no PRR
/// (it sets cwnd in `bbr_main`); DCTCP: ECN, the per-segment echo and PRR
/// (`dctcp_init`, `dctcp_ece_ack_update`).
fn linux_for(variant: Variant) -> TcpConfig {
    let c = linux_common(TcpConfig {
        variant,
        ..TcpConfig::default()
    });
    match variant {
        Variant::Cubic => TcpConfig {
            slow_start: SlowStart::HystartPp,
            sack_recovery: SackRecoveryKind::Prr,
            ..c
        },
        Variant::Dctcp => TcpConfig {
            ecn: true,
            ecn_echo: EcnEcho::PerSegment,
            sack_recovery: SackRecoveryKind::Prr,
            ..c
        },
        Variant::Bbr => TcpConfig {
            rtt_estimator: RttEstimatorKind::Linux,
            rto_rearm: RtoRearm::HeadRetransmit,
            bbr_timeout_full_bw: BbrTimeoutFullBw::Reset,
            bbr_recovery: BbrRecovery::Linux,
            recovery_entry: RecoveryEntry::LostOut,
            ..c
        },
        _ => c,
    }
}

// `variant` alone, in [tcp] or in the flow's own table: the whole configuration is Linux's
// for that controller, every other key at its default.
#[test]
fn a_modern_variant_alone_gives_linux_and_what_linux_ties_to_it() {
    for v in [Variant::Cubic, Variant::Bbr, Variant::Dctcp] {
        let in_tcp = ok(&text(&format!("[tcp]\nvariant = \"{v}\""), ""), &[]);
        assert_eq!(tcp(&in_tcp, 0), linux_for(v), "[tcp] variant = {v}");
        let in_flow = ok(&text("", &format!("tcp = {{ variant = \"{v}\" }}\n")), &[]);
        assert_eq!(tcp(&in_flow, 0), linux_for(v), "flow variant = {v}");
        let by_set = ok(&text("", ""), &[&format!("tcp.variant={v}")]);
        assert_eq!(tcp(&by_set, 0), linux_for(v), "--set tcp.variant={v}");
    }
    // The values differ from the defaults where the test says so (a test that cannot fail
    // otherwise): BBR's PRR and HyStart stay off, CUBIC's are on.
    assert_eq!(
        linux_for(Variant::Bbr).sack_recovery,
        SackRecoveryKind::Rfc6675
    );
    assert_eq!(linux_for(Variant::Bbr).slow_start, SlowStart::Standard);
    assert_eq!(
        linux_for(Variant::Cubic).rtt_estimator,
        RttEstimatorKind::Rfc6298
    );
    assert_eq!(linux_for(Variant::Bbr).bbr_recovery, BbrRecovery::Linux);
    assert_ne!(linux_for(Variant::Cubic), linux_for(Variant::Bbr));
}

// The classic variants without `profile`, and every variant under profile = "standard"
// (file key or --set), keep the documented defaults: the outputs from before issue 33.
#[test]
fn classic_variants_and_profile_standard_keep_the_defaults() {
    for v in [
        Variant::Tahoe,
        Variant::Reno,
        Variant::NewReno,
        Variant::Sack,
        Variant::Vegas,
    ] {
        let s = ok(&text(&format!("[tcp]\nvariant = \"{v}\""), ""), &[]);
        let want = TcpConfig {
            variant: v,
            ..TcpConfig::default()
        };
        assert_eq!(tcp(&s, 0), want, "{v}");
    }
    let s = ok(&text("", ""), &[]);
    assert_eq!(tcp(&s, 0), TcpConfig::default());
    // profile = "standard", with ECN written for DCTCP (the standard profile implies nothing).
    for (v, extra) in [
        (Variant::Cubic, ""),
        (Variant::Bbr, ""),
        (Variant::Dctcp, "\necn = true\necn_echo = \"per_segment\""),
    ] {
        let s = ok(
            &text(
                &format!("profile = \"standard\"\n[tcp]\nvariant = \"{v}\"{extra}"),
                "",
            ),
            &[],
        );
        let want = TcpConfig {
            variant: v,
            ecn: v == Variant::Dctcp,
            ecn_echo: if v == Variant::Dctcp {
                EcnEcho::PerSegment
            } else {
                EcnEcho::Rfc3168
            },
            ..TcpConfig::default()
        };
        assert_eq!(tcp(&s, 0), want, "standard {v}");
        let by_set = ok(
            &text(&format!("[tcp]\nvariant = \"{v}\"{extra}"), ""),
            &["profile=standard"],
        );
        assert_eq!(tcp(&by_set, 0), want, "--set profile=standard {v}");
    }
}

// A key the file writes wins over an implied one, in [tcp] and in the flow's table; the
// flow's beats [tcp]'s.
#[test]
fn written_keys_override_the_implied_ones() {
    let s = ok(
        &text(
            "[tcp]\nvariant = \"cubic\"\ninitial_cwnd = 4\nsack_recovery = \"rfc6675\"",
            "tcp = { slow_start = \"standard\", initial_cwnd = 3 }\n\n[flows.g]\nfrom = \"b\"\nto = \"a\"\n",
        ),
        &[],
    );
    let f = tcp(&s, 0);
    assert_eq!(
        f,
        TcpConfig {
            initial_cwnd: 3,
            sack_recovery: SackRecoveryKind::Rfc6675,
            slow_start: SlowStart::Standard,
            ..linux_for(Variant::Cubic)
        }
    );
    let g = tcp(&s, 1);
    assert_eq!(
        g,
        TcpConfig {
            initial_cwnd: 4,
            sack_recovery: SackRecoveryKind::Rfc6675,
            ..linux_for(Variant::Cubic)
        }
    );
}

// Each flow's table resolves on its own: in a file whose [tcp] is CUBIC, a flow naming BBR
// gets BBR's Linux defaults (no PRR, no HyStart++: no contradiction to write away), and in a
// file whose [tcp] is NewReno, a flow naming DCTCP gets ECN; the NewReno flow keeps the
// defaults.
#[test]
fn each_flow_resolves_under_its_own_variant() {
    let two = |tcp_head: &str, f_tail: &str| {
        text(
            tcp_head,
            &format!("{f_tail}\n[flows.g]\nfrom = \"b\"\nto = \"a\"\n"),
        )
    };
    let s = ok(
        &two(
            "[tcp]\nvariant = \"cubic\"\nmss = 1000",
            "tcp = { variant = \"bbr\" }\n",
        ),
        &[],
    );
    assert_eq!(
        tcp(&s, 0),
        TcpConfig {
            mss: 1000,
            ..linux_for(Variant::Bbr)
        }
    );
    assert_eq!(
        tcp(&s, 1),
        TcpConfig {
            mss: 1000,
            ..linux_for(Variant::Cubic)
        }
    );
    let s = ok(&two("", "tcp = { variant = \"dctcp\" }\n"), &[]);
    assert_eq!(tcp(&s, 0), linux_for(Variant::Dctcp));
    assert_eq!(tcp(&s, 1), TcpConfig::default());
    // A flow naming a classic variant in a CUBIC file: the standard defaults under it, [tcp]'s
    // written keys over them.
    let s = ok(
        &two(
            "[tcp]\nvariant = \"cubic\"\nmss = 1000",
            "tcp = { variant = \"reno\" }\n",
        ),
        &[],
    );
    assert_eq!(
        tcp(&s, 0),
        TcpConfig {
            variant: Variant::Reno,
            mss: 1000,
            ..TcpConfig::default()
        }
    );
}

// profile = "linux" written: the variant's options too (CUBIC), only the common ones for a
// classic variant; profile = "ns2" with BBR: ns-2's options, none of Linux's.
#[test]
fn explicit_profiles_with_a_variant() {
    let s = ok(
        &text("profile = \"linux\"\n[tcp]\nvariant = \"cubic\"", ""),
        &[],
    );
    assert_eq!(tcp(&s, 0), linux_for(Variant::Cubic));
    let s = ok(
        &text("profile = \"linux\"\n[tcp]\nvariant = \"reno\"", ""),
        &[],
    );
    assert_eq!(
        tcp(&s, 0),
        linux_common(TcpConfig {
            variant: Variant::Reno,
            ..TcpConfig::default()
        })
    );
    let s = ok(
        &text("profile = \"ns2\"\n[tcp]\nvariant = \"bbr\"", ""),
        &[],
    );
    let c = tcp(&s, 0);
    let ns2 = Profile::Ns2.apply_tcp(
        &TcpConfig {
            variant: Variant::Bbr,
            ..TcpConfig::default()
        },
        &["variant"],
    );
    assert_eq!(c, ns2);
    assert!(!c.timestamps && c.ack_policy == AckPolicy::Standard);
}

// Contradictions. A written key against the variant: at that key. A key the variant implied
// that a written key makes impossible: at the variant, naming the implied key, its value and
// the ways out. A written key against an explicit profile's: at the key, with the profile.
#[test]
fn contradictions_are_located_errors() {
    // ecn = false with dctcp (RFC 8257 needs ECN).
    let t = text("[tcp]\nvariant = \"dctcp\"\necn = false", "");
    assert_at(
        &bad(&t),
        &t,
        "ecn = false",
        "tcp.ecn",
        &["expected ecn = true with variant = \"dctcp\""],
    );
    // PRR written with BBR.
    let t = text("", "tcp = { variant = \"bbr\", sack_recovery = \"prr\" }\n");
    assert_at(
        &bad(&t),
        &t,
        "sack_recovery = \"prr\"",
        "flows.f.tcp.sack_recovery",
        &["\"prr\" does not apply to variant = \"bbr\""],
    );
    // loss_recovery = "newreno" leaves the implied RACK-TLP without SACK.
    let t = text(
        "[tcp]\nvariant = \"cubic\"\nloss_recovery = \"newreno\"",
        "",
    );
    assert_at(
        &bad(&t),
        &t,
        "variant = \"cubic\"",
        "tcp.variant",
        &[
            "`loss_detection = \"rack_tlp\"` comes from the Linux defaults that variant = \"cubic\" implies",
            "RACK (RFC 8985 §2) needs SACK",
            "profile = \"standard\"",
        ],
    );
    // The same from a flow's own table: at the flow's variant.
    let t = text(
        "",
        "tcp = { variant = \"bbr\", loss_recovery = \"newreno\" }\n",
    );
    assert_at(
        &bad(&t),
        &t,
        "loss_recovery = \"newreno\"",
        "flows.f.tcp.variant",
        &["`loss_detection = \"rack_tlp\"` comes from the Linux defaults that variant = \"bbr\" implies"],
    );
    // delayed_ack written with a modern variant: the implied Linux ACK policy replaces it.
    let t = text("[tcp]\nvariant = \"cubic\"\ndelayed_ack = \"200ms\"", "");
    assert_at(
        &bad(&t),
        &t,
        "variant = \"cubic\"",
        "tcp.variant",
        &[
            "`ack_policy = \"linux\"` comes from the Linux defaults",
            "delayed_ack",
        ],
    );
    // profile = "ns2" with BBR and a key that cannot hold for BBR.
    let t = text(
        "profile = \"ns2\"\n[tcp]\nvariant = \"bbr\"\nslow_start = \"hystart_pp\"",
        "",
    );
    assert_at(
        &bad(&t),
        &t,
        "slow_start",
        "tcp.slow_start",
        &["\"hystart_pp\" does not apply to variant = \"bbr\""],
    );
    // A written key against an explicit linux profile's value: at the key, profile named.
    let t = text("profile = \"linux\"\n[tcp]\nrto_max = \"100ms\"", "");
    assert_at(
        &bad(&t),
        &t,
        "[tcp]",
        "tcp.rto_min",
        &[
            "expected rto_min <= rto_max",
            "(`rto_min` set by profile = \"linux\")",
        ],
    );
}

// Issue 33 item 3: a flow runs its profile's dialect (transport/tcp/dialect/), and a key the
// file writes replaces that one rule, in [tcp] or in the flow's own table; a modern variant
// alone runs Linux's dialect for that controller.
#[test]
fn a_flow_runs_its_profiles_dialect_with_its_own_keys_over_it() {
    use crate::transport::tcp::dialect::{linux, ns2, Dialect, DupAck, Halving, LossRules};
    use crate::transport::tcp::dialect::{RecoveryRules, Sack1Scoreboard};
    let head = "profile = \"ns2\"\n[tcp]\nvariant = \"sack\"\nprecision_reduce = false\n";
    let s = ok(&text(head, ""), &[]);
    let whole = Dialect {
        recovery: RecoveryRules {
            halving: Halving::Whole,
            ..ns2::NS2.recovery
        },
        ..ns2::NS2
    };
    assert_eq!(Dialect::of(&tcp(&s, 0)), whole);
    let tail = "tcp = { dupack_same_window = true, sack1_clear_scoreboard = false }\n";
    let s = ok(&text(head, tail), &[]);
    let mut own = whole;
    own.loss = LossRules {
        dupack: DupAck::SameWindow,
        ..whole.loss
    };
    own.recovery.sack1_scoreboard = Sack1Scoreboard::Kept;
    assert_eq!(Dialect::of(&tcp(&s, 0)), own);
    for v in [Variant::Cubic, Variant::Bbr, Variant::Dctcp] {
        let s = ok(&text("", &format!("tcp = {{ variant = \"{v}\" }}\n")), &[]);
        assert_eq!(Dialect::of(&tcp(&s, 0)), linux::for_variant(v), "{v}");
    }
    let s = ok(&text("", "tcp = { variant = \"newreno\" }\n"), &[]);
    assert_eq!(
        Dialect::of(&tcp(&s, 0)),
        crate::transport::tcp::dialect::standard::STANDARD
    );
}
