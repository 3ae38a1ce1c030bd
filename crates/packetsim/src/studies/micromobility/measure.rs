//! One point's run and what it measures (spec 5 §2.7), and the runs' results as the claims,
//! figures and report read them.

use super::*;

/// TCP as spec 5 §2.6 and §3 set it: IW 1, 20-segment window, 100 ms tick, RTO min 0.2 s,
/// initial 3 s, max 64 s, NewReno slow-but-steady with the full ACK's min(ssthresh, flight+1).
pub fn tcp_config(variant: Variant, size: u32) -> TcpConfig {
    TcpConfig {
        variant,
        mss: size,
        initial_cwnd: 1,
        rcv_window: 20 * size as u64,
        rto_initial: Dur::from_secs(3),
        rto_min: Dur::from_millis(200),
        rto_max: Dur::from_secs(64),
        granularity: Dur::from_millis(100),
        sack_blocks: 3,
        newreno_partial_ack_timer: PartialAckTimer::SlowButSteady,
        newreno_full_ack: FullAckCwnd::FlightSize,
        // ns-2's `bugFix_` (on by default in the ns-2 of 2000-2002 the spec follows; RFC 6582
        // §3.2 step 2): no new fast retransmit until the cumulative ACK passes the `recover`
        // of the last fast retransmit or timeout. Spec 5 §2.5 mentions it only after a
        // timeout; without it, the held bicast copies a semisoft handoff releases start a
        // spiral of spurious fast retransmits (mobility::tests_tcp,
        // semisoft_duplicates_cost_newreno_one_spurious_fast_retransmit).
        recover_guard: RecoverGuard::AfterLoss,
        ..TcpConfig::default()
    }
}

/// The keys [`tcp_config`] sets, as a scenario file's `[tcp]` table would (`tick`: the spec's
/// 100 ms tick, which ns-2's tick-based estimator counts in; the RFC 6298 estimator of the
/// standard runs uses `granularity`).
pub(super) const OWN_TCP_KEYS: [&str; 13] = [
    "variant",
    "mss",
    "initial_cwnd",
    "rcv_window",
    "rto_initial",
    "rto_min",
    "rto_max",
    "granularity",
    "tick",
    "sack_blocks",
    "newreno_partial_ack_timer",
    "newreno_full_ack",
    "recover_guard",
];

/// [`tcp_config`] as ns-2.35 would run it (issue 14): `profile = "ns2"` under the study's own
/// keys, with the spec's 100 ms tick as ns-2's `tcpTick_` (spec 5 Q9, "ns-2 of the CIMS era
/// (IW 1, 100 ms tick)"). Gains limited transmit, ns-2's tick estimator and ssthresh rule, its
/// duplicate-ACK test and Sack1; keeps the spec's RTO bounds and `bugFix_`.
pub fn tcp_config_ns2(variant: Variant, size: u32) -> TcpConfig {
    let own = TcpConfig {
        tick: Dur::from_millis(100),
        ..tcp_config(variant, size)
    };
    Profile::Ns2.apply_tcp(&own, &OWN_TCP_KEYS)
}

/// Runs one point with `seed` for `secs` seconds (its scenario, [`point_scenario`], run by
/// `scenario::run`); the metrics of spec 5 §2.7.
pub fn run_point(p: &Point, seed: u64, secs: f64) -> RunOutput {
    let sc = point_scenario(p, seed, secs).expect("the study's point is a valid scenario");
    let out = crate::scenario::run(&sc, seed).expect("the study's point builds");
    RunOutput {
        summary_json: out.summary.to_json(),
        metrics: outcome_metrics(p, &out, secs),
    }
}

/// The scenario of a point run with `seed` for `secs` seconds: the spec's tree (`CN`, `HA`
/// for MM-X6, `GW`, `R1`, `R2`, `BS1`-`BS4`, the mobiles `MH1`.., the wired links of
/// `mobility::build_tree`), `[mobility]` on the 802.11 radio with moving mobiles
/// (`radio = "wifi"`) or under spec 5 Q2's simplification, and one bulk TCP flow `ftp<i>`
/// per connection from CN. Built through the scenario format ([`ScenarioBuilder`]); the
/// protocol's settings ([`point_config`]), each flow's TCP ([`point_tcp`]) and its start
/// (drawn from the seed, up to 10 ms, from one stream for all the point's flows) are then
/// set as typed values.
pub fn point_scenario(p: &Point, seed: u64, secs: f64) -> Result<Scenario, String> {
    let tree = TreeParams::default();
    let mut b = ScenarioBuilder::new(&format!("{NAME}:{}", p.id()));
    b.duration(Dur::from_secs_f64(secs));
    let mobiles: Vec<String> = (1..=if p.spread { p.n } else { 1 })
        .map(|j| format!("MH{j}"))
        .collect();
    let bss: Vec<String> = (1..=4).map(|i| format!("BS{i}")).collect();
    b.node("CN");
    if p.ha_ms.is_some() {
        b.node("HA");
    }
    for n in ["GW", "R1", "R2"]
        .iter()
        .map(|x| x.to_string())
        .chain(bss.clone())
    {
        b.node(&n);
    }
    for m in &mobiles {
        b.node(m);
    }
    let wired = |a: &str, z: &str, delay: Dur| LinkKeys {
        queue: Some(QueueSpec::DropTail {
            limit: QueueLimit::Packets(tree.wired_queue),
            ns2_limit: false,
        }),
        ..LinkKeys::new(a, z, tree.wired_rate, delay)
    };
    let cn = Dur::from_millis(p.d_ms);
    match p.ha_ms {
        Some(ms) => {
            b.link("cn_ha", &wired("CN", "HA", cn))?;
            b.link("ha_gw", &wired("HA", "GW", Dur::from_millis(ms)))?;
        }
        None => {
            b.link("cn_gw", &wired("CN", "GW", cn))?;
        }
    }
    for r in 1..=2 {
        b.link(
            &format!("gw_r{r}"),
            &wired("GW", &format!("R{r}"), tree.domain_delay),
        )?;
    }
    for i in 1..=4 {
        let r = (i - 1) / 2 + 1;
        b.link(
            &format!("r{r}_bs{i}"),
            &wired(&format!("R{r}"), &format!("BS{i}"), tree.domain_delay),
        )?;
    }
    b.mobility(&MobilityKeys {
        protocol: p.protocol,
        gateway: "GW".into(),
        base_stations: bss,
        mobiles: mobiles.clone(),
        handoffs: p.h,
        spread: p.spread,
        home_agent: p.ha_ms.map(|_| "HA".into()),
        wifi: (!p.q2).then(|| {
            (
                f64::from(p.spacing_m),
                Dur::from_millis(u64::from(p.beacon_ms)),
            )
        }),
    });
    for i in 0..p.n {
        let to = &mobiles[if p.spread { i as usize } else { 0 }];
        let f = FlowKeys {
            from: "CN".into(),
            to: to.clone(),
            start: None,
            kind: Sends::Tcp(TcpKeys::default()),
            diffserv: None,
        };
        b.flow(&format!("ftp{i}"), &f)?;
    }
    let mut sc = b.build().map_err(|e| e.to_string())?;
    sc.mobility.as_mut().expect("[mobility]").config = point_config(p);
    let tcp = point_tcp(p);
    let mut jitter = Rng::for_component(seed, "flows.start_jitter");
    for t in &mut sc.flow_tables {
        t.first.start = Time::from_nanos((jitter.uniform() * 10e6) as u64);
        if let FlowKind::Tcp { tcp: own, .. } = &mut t.first.kind {
            *own = tcp.clone();
        }
    }
    Ok(sc)
}

/// The metrics of a point's finished run.
pub(super) fn outcome_metrics(p: &Point, out: &Outcome, secs: f64) -> shape::Metrics {
    let w = &out.world;
    let r = MobilityReport::of_world(w).expect("the point's mobility elements");
    let air = w
        .elements
        .iter()
        .find_map(|e| e.element.as_any().downcast_ref::<AirElement>())
        .map(AirElement::stats);
    let flows: Vec<FlowId> = (0..p.n).map(FlowId).collect();
    point_metrics(w, &r, air, &flows, secs)
}

/// The protocol's settings of a point.
pub(super) fn point_config(p: &Point) -> MobilityConfig {
    let mut cfg = MobilityConfig::new(p.protocol);
    cfg.radio_loss = p.e;
    cfg.departure = p.departure;
    cfg.delay_device = p.delay_device;
    cfg.gap = Dur::from_millis(p.gap_ms);
    cfg.loss_uplink = !p.down_only;
    if !p.q2 && p.delay_device && !p.ideal_device {
        // On the radio, Cellular IP semisoft's delay device is the Cellular IP papers' (a
        // fixed delay at the crossover on the new path, S = 100 ms, so that the new path's
        // copies reach the new base station about when the mobile tunes in), not the spec's
        // ideal device at the new base station.
        cfg.delay_device = false;
        cfg.crossover_delay = Some(cfg.semisoft_delay);
    }
    cfg
}

/// The TCP of a point: spec 5 §2.6, as ns-2.35 would run it, or Q9's sensitivity.
pub(super) fn point_tcp(p: &Point) -> TcpConfig {
    let mut tcp = if p.ns2 {
        tcp_config_ns2(p.variant, p.size)
    } else {
        tcp_config(p.variant, p.size)
    };
    if p.q9 {
        // Spec 5 Q9's sensitivity: IW 2, 10 ms tick, RTO min 1 s.
        tcp.initial_cwnd = 2;
        tcp.granularity = Dur::from_millis(10);
        tcp.tick = Dur::from_millis(10);
        tcp.rto_min = Dur::from_secs(1);
    }
    tcp
}

/// The metrics of a finished run.
fn point_metrics(
    w: &World,
    r: &MobilityReport,
    air: Option<AirStats>,
    flows: &[FlowId],
    secs: f64,
) -> shape::Metrics {
    let kbps: Vec<f64> = flows
        .iter()
        .map(|f| w.flows[f.idx()].delivered as f64 * 8.0 / secs / 1000.0)
        .collect();
    let (mut frx, mut rto) = (0u64, 0u64);
    for f in flows {
        let m = w.agents[w.flows[f.idx()].sender.idx()].agent.metrics();
        frx += m.fast_retransmits;
        rto += m.timeouts;
    }
    let (mac_drops, retries) = match air {
        Some(s) => (
            s.mac_drops_down.iter().sum::<u64>() as f64,
            s.retries as f64,
        ),
        None => (0.0, 0.0),
    };
    let handoffs = r.handoffs as f64;
    let outage_ms = if r.outages.is_empty() {
        None
    } else {
        Some(r.outages.iter().map(|o| o.as_secs_f64() * 1e3).sum::<f64>() / r.outages.len() as f64)
    };
    let total: f64 = kbps.iter().sum();
    let mut metrics = vec![
        ("thr_kbps".to_string(), Some(total)),
        ("thr_mean_kbps".into(), Some(total / kbps.len() as f64)),
        ("thr_min_kbps".into(), kbps.iter().copied().reduce(f64::min)),
        ("handoff_loss".into(), Some(r.handoff_losses() as f64)),
        ("wasted_copies".into(), Some(r.wasted_copies as f64)),
        ("duplicates".into(), Some(r.duplicates as f64)),
        ("out_of_order".into(), Some(r.out_of_order as f64)),
        ("radio_lost".into(), Some(r.radio_lost as f64)),
        ("fast_retransmits".into(), Some(frx as f64)),
        ("timeouts".into(), Some(rto as f64)),
        ("control_msgs".into(), Some(r.control_messages() as f64)),
        ("hold_discards".into(), Some(r.hold_discards as f64)),
        ("radio_overflow".into(), Some(r.radio_overflow as f64)),
        ("handoffs".into(), Some(handoffs)),
        ("mac_drops".into(), Some(mac_drops)),
        ("mac_retries".into(), Some(retries)),
        ("outage_ms".into(), outage_ms),
        (
            "loss_per_handoff".into(),
            (handoffs > 0.0).then(|| (r.handoff_losses() as f64 + mac_drops) / handoffs),
        ),
    ];
    // The handoff losses by why they were discarded (section "Why the failing checks fail").
    for reason in DiscardReason::ALL {
        let n = r.loss_by_reason[reason.index()] as f64;
        metrics.push((format!("loss_{}", reason.name()), Some(n)));
    }
    metrics
}

/// Per metric: (seed, value) in replication order.
pub(super) type Metrics = Vec<(String, Vec<(u64, f64)>)>;

/// Per point id, its runs' metrics.
pub(super) struct Results {
    pub(super) runs: BTreeMap<String, Metrics>,
}

impl Results {
    pub(super) fn series(&self, p: &Point, metric: &str) -> Vec<(u64, f64)> {
        self.runs
            .get(&p.id())
            .and_then(|m| m.iter().find(|x| x.0 == metric))
            .map_or(Vec::new(), |x| x.1.clone())
    }
    pub(super) fn est(&self, p: &Point, metric: &str) -> Estimate {
        let v: Vec<f64> = self.series(p, metric).iter().map(|x| x.1).collect();
        Estimate::mean(&v)
    }
    pub(super) fn mean(&self, p: &Point, metric: &str) -> f64 {
        self.est(p, metric).mean
    }
    /// The runs of `tag(p)` filed under `p`'s id, for every point `p` of `pts` (the same
    /// checks then read another model's runs).
    pub(super) fn relabel(&self, pts: &[Point], tag: impl Fn(&Point) -> Point) -> Results {
        let runs = pts
            .iter()
            .filter_map(|p| Some((p.id(), self.runs.get(&tag(p).id())?.clone())))
            .collect();
        Results { runs }
    }
    /// a − b over the shared seeds.
    pub(super) fn diff(&self, a: &Point, b: &Point, metric: &str) -> Estimate {
        Estimate::difference(&self.series(a, metric), &self.series(b, metric))
    }
    /// Per seed: f(values of the points), paired by seed.
    pub(super) fn derived(
        &self,
        pts: &[Point],
        metric: &str,
        f: impl Fn(&[f64]) -> f64,
    ) -> Estimate {
        let s: Vec<Vec<(u64, f64)>> = pts.iter().map(|p| self.series(p, metric)).collect();
        let n = s.iter().map(|x| x.len()).min().unwrap_or(0);
        let v: Vec<f64> = (0..n)
            .map(|i| f(&s.iter().map(|x| x[i].1).collect::<Vec<_>>()))
            .collect();
        Estimate::mean(&v)
    }
}

pub(super) fn by_metric(runs: &[StoredRun]) -> Metrics {
    let mut m: Metrics = Vec::new();
    for r in runs {
        for (name, v) in &r.metrics {
            let Some(v) = v.filter(|v| v.is_finite()) else {
                continue;
            };
            match m.iter_mut().find(|x| &x.0 == name) {
                Some(x) => x.1.push((r.seed, v)),
                None => m.push((name.clone(), vec![(r.seed, v)])),
            }
        }
    }
    m
}

pub(super) const DIAG: [&str; 10] = [
    "outage_ms",
    "loss_per_handoff",
    "mac_drops",
    "handoff_loss",
    "duplicates",
    "out_of_order",
    "fast_retransmits",
    "timeouts",
    "radio_lost",
    "control_msgs",
];

/// One line of diagnostics of a point, for notes.
pub(super) fn diag(r: &Results, p: &Point) -> String {
    format!(
        "{} {} e={} H={} N={}: {:.0} kb/s, outage {:.0} ms and loss {:.1} per handoff, handoff loss {:.1}, duplicates {:.1}, out of order {:.1}, fast rtx {:.1}, timeouts {:.1}",
        pname(p.protocol),
        vname(p.variant),
        p.e,
        p.h,
        p.n,
        r.mean(p, "thr_kbps"),
        r.mean(p, "outage_ms"),
        r.mean(p, "loss_per_handoff"),
        r.mean(p, "handoff_loss"),
        r.mean(p, "duplicates"),
        r.mean(p, "out_of_order"),
        r.mean(p, "fast_retransmits"),
        r.mean(p, "timeouts")
    )
}

/// The mean of `metric` over `pts` (points without it left out).
pub(super) fn mean_over(r: &Results, pts: &[Point], metric: &str) -> f64 {
    let v: Vec<f64> = pts
        .iter()
        .map(|p| r.mean(p, metric))
        .filter(|x| x.is_finite())
        .collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}
