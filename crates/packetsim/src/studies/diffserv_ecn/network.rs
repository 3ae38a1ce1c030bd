//! The study's scenario at one point (spec 4 §3), stated through [`ScenarioBuilder`]: an
//! ingress and an egress router joined by the 5 Mb/s core link (the ingress's DiffServ edge,
//! WRR over EF / AF (RIO) / BE (RED) towards the egress, a 100-packet DropTail back), and per
//! flow a source and a destination on 10 Mb/s, 100 µs access links. TCP flows start at
//! times drawn from the run's seed.

use super::*;
use crate::queue::{
    AqmConfig, Class, EcnAction, EcnMode, FlowClassConfig, MarkerConfig, QueueLimit, RedConfig,
    RedParams, RioConfig, TokenBucketConfig,
};
use crate::scenario::{
    ClassSpec, ErrorDirection, FlowKeys, LinkKeys, Profile, QueueSpec, ScenarioBuilder,
    SchedulerSpec, Sends, TcpKeys,
};
use crate::studies::shape::micros;
use crate::transport::tcp::Variant;
use packetsim_kernel::{Dur, Rate};

/// The study's scenario at point `p`, flow starts drawn from `seed`, `duration_s` long.
pub fn point_scenario(p: &Point, seed: u64, duration_s: f64) -> Result<Scenario, String> {
    let mut b = ScenarioBuilder::new(NAME);
    if p.count == "ns2_profile" {
        b.profile(Profile::Ns2);
    }
    b.duration(Dur::from_secs_f64(duration_s)).tcp(&TcpKeys {
        variant: Some(Variant::Reno),
        mss: Some(1000),
        initial_cwnd: Some(1),
        rcv_window: Some(20_000),
        rto_initial: Some(Dur::from_secs(3)),
        rto_min: Some(Dur::from_millis(200)),
        granularity: Some(Dur::from_millis(100)),
        ..TcpKeys::default()
    });
    let flows = flows(p, seed);
    b.node("ingress").node("egress");
    for (name, _) in &flows {
        b.node(&format!("src_{name}")).node(&format!("dst_{name}"));
    }
    b.link("core", &core_link(p))?;
    let access = |a: &str, z: &str| LinkKeys {
        queue: Some(QueueSpec::DropTail {
            limit: QueueLimit::Packets(1000),
            ns2_limit: false,
        }),
        ..LinkKeys::new(a, z, Rate(10_000_000), Dur::from_micros(100))
    };
    for (name, flow) in &flows {
        b.link(&format!("in_{name}"), &access(&flow.from, "ingress"))?
            .link(&format!("out_{name}"), &access("egress", &flow.to))?
            .flow(name, flow)?;
    }
    b.build().map_err(|e| e.to_string())
}

/// What the experiment key of a sweep holds of its points: the scenario of `p` (seed 0) as
/// the loader read it.
pub(super) fn key_text(p: &Point, duration_s: f64) -> String {
    point_scenario(p, 0, duration_s).map_or_else(|e| e, |sc| sc.text)
}

/// The flows of point `p` in order (2 EF, the AF flows, 5 BE), with their start times drawn
/// from `seed` (spec 4 §3: TCP flows start uniformly in [0, 1] s, to the microsecond; CBR
/// at 0).
fn flows(p: &Point, seed: u64) -> Vec<(String, FlowKeys)> {
    let (n_af, profile, _) = sim_params(p.sim);
    let (af_ecn, be_ecn) = match p.ecn {
        "none" => (false, false),
        "af" => (true, false),
        _ => (true, true),
    };
    let mut rng = Rng::for_component(seed, "studies.diffserv-ecn.starts");
    let mut start = || Some(Dur::from_micros(micros(rng.uniform())));
    let keys = |name: &str, start, sends, class, marker| FlowKeys {
        from: format!("src_{name}"),
        to: format!("dst_{name}"),
        start,
        kind: sends,
        diffserv: Some(FlowClassConfig { class, marker }),
    };
    let tcp = |ecn| {
        Sends::Tcp(TcpKeys {
            ecn: Some(ecn),
            ..TcpKeys::default()
        })
    };
    let mut v = Vec::new();
    for i in 1..=2 {
        let name = format!("ef{i}");
        let cbr = Sends::Cbr {
            rate: Rate(200_000),
            packet_size: 972,
        };
        v.push((name.clone(), keys(&name, None, cbr, Class::Ef, None)));
    }
    for i in 1..=n_af {
        let name = format!("af{i}");
        let marker = MarkerConfig::TokenBucket(TokenBucketConfig {
            rate: profile,
            depth: p.depth,
        });
        let f = keys(&name, start(), tcp(af_ecn), Class::Af, Some(marker));
        v.push((name, f));
    }
    for i in 1..=BE_FLOWS {
        let name = format!("be{i}");
        v.push((
            name.clone(),
            keys(&name, start(), tcp(be_ecn), Class::Be, None),
        ));
    }
    v
}

/// The core link: the ingress's DiffServ edge, WRR 1:4:5 over EF (DropTail 50), AF (RIO,
/// spec 4 Table 2) and BE (RED), each with the point's ECN marking and RED `count`.
fn core_link(p: &Point) -> LinkKeys {
    let ns2_dsred_count = p.count != "fj";
    let ecn = EcnAction::MarkAndDemote {
        mode: if p.marking == "probabilistic" {
            EcnMode::Probabilistic
        } else {
            EcnMode::Deterministic
        },
        lower_precedence: true,
    };
    let droptail = |n| QueueSpec::DropTail {
        limit: QueueLimit::Packets(n),
        ns2_limit: false,
    };
    let rio = RioConfig {
        r#in: RedParams {
            min_th: 45.0,
            max_th: 90.0,
            max_p: 0.02,
        },
        out: RedParams {
            min_th: 20.0,
            max_th: 40.0,
            max_p: 0.04,
        },
        weight: 0.002,
        limit: QueueLimit::Packets(100),
        mean_pkt_size: 1040,
        ns2_dsred_count,
        ecn,
        ..RioConfig::default()
    };
    let red = RedConfig {
        min_th: 50.0,
        max_th: 180.0,
        max_p: 0.05,
        weight: 0.002,
        limit: QueueLimit::Packets(200),
        mean_pkt_size: 1040,
        ns2_dsred_count,
        ecn,
        ..RedConfig::default()
    };
    let class = |name: &str, dscps: &[u8], weight, queue| ClassSpec {
        name: name.into(),
        dscps: dscps.to_vec(),
        weight,
        queue,
    };
    LinkKeys {
        queue: Some(QueueSpec::Classful {
            scheduler: SchedulerSpec::Wrr,
            classes: vec![
                class("ef", &[46], 1, droptail(50)),
                class("af", &[10, 12, 14], 4, QueueSpec::Aqm(AqmConfig::Rio(rio))),
                class("be", &[], 5, QueueSpec::Aqm(AqmConfig::Red(red))),
            ],
        }),
        queue_ba: Some(droptail(100)),
        diffserv_edge: Some(ErrorDirection::AToB),
        ..LinkKeys::new("ingress", "egress", Rate(5_000_000), Dur::from_millis(1))
    }
}
