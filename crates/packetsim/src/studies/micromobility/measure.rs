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

/// Runs one point with `seed` for `secs` seconds; the metrics of spec 5 §2.7.
pub fn run_point(p: &Point, seed: u64, secs: f64) -> RunOutput {
    let (mut w, d, air) = point_world(p, seed, secs);
    let tcp = point_tcp(p);
    let mut jitter = Rng::for_component(seed, "flows.start_jitter");
    let flows: Vec<_> = (0..p.n)
        .map(|i| {
            let to = d.mhs[if p.spread { i as usize } else { 0 }];
            let start = Time::from_nanos((jitter.uniform() * 10e6) as u64);
            let at = FlowPlacement {
                from: d.cn,
                to,
                start,
                stop: None,
                dscp: 0,
            };
            w.add_tcp_flow(&format!("ftp{i}"), at, &tcp, AppData::Unlimited)
        })
        .collect();
    w.run();
    RunOutput {
        summary_json: String::new(),
        metrics: point_metrics(&w, &d, air, &flows, secs),
    }
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

/// The world of a point before its flows: the tree on the 802.11 radio with moving mobiles
/// (with the air's element), or under spec 5 Q2's simplification.
fn point_world(p: &Point, seed: u64, secs: f64) -> (World, Domain, Option<ElementId>) {
    let cfg = point_config(p);
    let params = TreeParams {
        cn_delay: Dur::from_millis(p.d_ms),
        home_agent_delay: p.ha_ms.map(Dur::from_millis),
        duration: Dur::from_secs_f64(secs),
        ..TreeParams::default()
    };
    let period = Dur::from_secs_f64(secs);
    let mobiles = if p.spread { p.n } else { 1 };
    let schedules: Vec<HandoffSchedule> = (0..mobiles)
        .map(|j| HandoffSchedule::ping_pong(p.h, period, 4, j as f64 / mobiles as f64))
        .collect();
    if p.q2 {
        let (w, d) = build_tree(&params, &cfg, &schedules, seed);
        (w, d, None)
    } else {
        // The mobile crosses a cell border every period / H (`radio::speed_for`); MM-X5's
        // mobile j starts j/N of a crossing later (it waits at BS1 until then).
        let mut cells = Cells {
            spacing: p.spacing_m as f64,
            ..Cells::default()
        };
        cells.beacons.interval = Dur::from_millis(p.beacon_ms as u64);
        let speed = speed_for(p.h, period, cells.spacing);
        let paths: Vec<_> = (0..mobiles)
            .map(|j| {
                let lag = cells.spacing / speed * j as f64 / mobiles as f64;
                ping_pong_path(
                    4,
                    cells.spacing,
                    speed,
                    Time::ZERO + Dur::from_secs_f64(lag),
                )
            })
            .collect();
        let (w, rd) = build_radio_tree(&params, &cfg, &cells, &paths, seed);
        let air = rd.air;
        (w, rd.domain, Some(air))
    }
}

/// The TCP of a point: spec 5 §2.6, as ns-2.35 would run it, or Q9's sensitivity.
fn point_tcp(p: &Point) -> TcpConfig {
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
    d: &Domain,
    air: Option<ElementId>,
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
    let r = d.report(w);
    let (mac_drops, retries) = match air {
        Some(a) => {
            let el: &AirElement = w.elements[a.idx()]
                .element
                .as_any()
                .downcast_ref()
                .expect("the air element");
            let s = el.stats();
            (
                s.mac_drops_down.iter().sum::<u64>() as f64,
                s.retries as f64,
            )
        }
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
