//! Study 2 (spec/2-wireless-bs-buffer.md): wireless TCP whose receive window follows the base
//! station's buffer. A Reno server sends to a mobile over a 10 Mb/s, 25 ms wired link and a
//! radio link of rate W (2 ms); the mobile advertises a fixed 4, 8, 16 or 64 KiB window or the
//! proposal (`bs_buffer`: rwnd ← a·clamp(W_max − Q, MSS, W_max) + (1 − a)·rwnd, W_max 16 KiB,
//! a = 0.5). Triplicate Reconnection ACKs and no recover guard in every arm (spec §2.4).
//!
//! Experiments: Figs 5-7 (occupancy, throughput, delay vs W), Fig 8 (lost + duplicate data
//! packets per outage vs its duration, both outage policies), BS-E5 (Q and rwnd series for
//! a = 1, 0.5, 0.25 at 1 Mb/s and with the 0.4 → 1.6 → 0.4 Mb/s cycle) and the extensions
//! (W_max sweep, rate mode, radio loss 1% and 5%, a two-state random radio rate, and 1-8
//! mobiles sharing one radio channel: per-mobile queues at the base station behind one
//! transmitter, round robin, each mobile's window driven by its own queue).
//!
//! The study is on the one driver ([`super::shape`]): [`Wireless`] states its grid, each
//! point's scenario (the shipped scenario, loaded once, with the point's values set on it as
//! typed values), what the driver watches in a run
//! (two watching elements at the base station and the mobile, a pause at the end of the
//! warm-up), and measures the watched run. Files: `measure.rs` (spec §2.7's measurements),
//! `claims.rs` (the paper's claims as checks), `figures.rs` (figures, CSVs, report),
//! `shared.rs` (the shared-channel extension's scenario and report section).

use super::checks::{
    self, above, all, below, exceeds, within, Check, Estimate, Tolerance, Verdict,
};
use super::shape::{self, param, Metrics, Pass, Setting, Shape, Sweep, Swept, Watch, Watched};
use super::{ReproduceOptions, StudyOutcome};
use crate::experiment::aggregate::CsvText;
use crate::experiment::{self, GridPoint, PointSummary, StoredRun};
use crate::net::{Element, OutagePolicy};
use crate::report::chart::{Curve, LineChart};
use crate::report::{write_atomic, Summary};
use crate::scenario::{
    self, ErrorDirection, LinkKind, LinkSpec, Profile, RateCycle, Scenario, ScenarioBuilder,
};
use crate::transport::tcp::{BsBufferConfig, BsBufferMode};
use crate::wireless::TwoStateRateConfig;
use crate::world::RunInfo;
use packetsim_kernel::{Dur, Rate, Rng, Time};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

mod claims;
mod figures;
mod measure;
mod shared;

use claims::*;
use figures::*;
use measure::*;
use shared::*;

pub const NAME: &str = "wireless-bs-buffer";
/// The study's scenario (fixed 16 KiB window; the proposal by override), shipped in scenarios/.
pub const SCENARIO: &str = include_str!("../../../../../scenarios/wireless-bs-buffer.toml");
const BASE_SEED: u64 = 1;
/// spec §3: Figs 5-7 discard the first 10 s of a 100 s run.
const WARMUP_S: f64 = 10.0;
const RUN_S: f64 = 100.0;
/// Wire and payload bytes of a data packet (spec §3: 1000 B + 40 B).
const WIRE: f64 = 1040.0;
const PAYLOAD: f64 = 1000.0;
/// Wired link (spec §3): the time from the start of a packet's transmission at the server to
/// its arrival at the base station, 25 ms + 1040 B at 10 Mb/s.
const WIRED_S: f64 = 0.025 + WIRE * 8.0 / 10e6;
/// spec §3's radio sweep, kb/s.
const RATES: [u32; 11] = [100, 200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000];
/// The two-state random radio rate of the extension (kb/s; mean sojourn per state, s): the
/// BS-E5 cycle's rates, changing at random times around a 1 Mb/s mean.
const GOOD_KBPS: u32 = 1600;
const BAD_KBPS: u32 = 400;
const MEAN_STATE_S: u32 = 5;
/// Fig 8's outage durations (s).
const OUTAGES: [f64; 9] = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0];
/// Figs 5-7's curves: fixed windows (KiB) and the proposal (`p16`: W_max 16 KiB).
const WINDOWS: [&str; 5] = ["4", "8", "16", "64", "p16"];

fn window_label(w: &str) -> String {
    match w {
        "p16" => "proposal (W_max 16 KB)".into(),
        w if w.starts_with('p') => format!("proposal (W_max {} KB)", &w[1..]),
        w if w.starts_with('r') => format!("rate mode (W_max {} KB)", &w[1..]),
        w => format!("fixed {w} KB"),
    }
}

/// One run's configuration (a grid point).
#[derive(Clone, Debug)]
struct Cfg {
    rate_kbps: u32,
    /// "4" | "8" | "16" | "64" (fixed KiB), "pN" (proposal, W_max N KiB), "rN" (rate mode).
    window: String,
    alpha: f64,
    /// An outage of this many seconds starting uniformly in [20, 30] s.
    outage: Option<f64>,
    hold: bool,
    loss: f64,
    cycle: bool,
    /// The radio rate follows a two-state good/bad process (extension).
    random: bool,
    /// The scenario's `profile` (the sweep parameter `profile`; absent: the file's own).
    profile: Option<Profile>,
}

impl Cfg {
    fn from_point(p: &experiment::GridPoint) -> Result<Cfg, String> {
        let get = |k: &str, d: &str| p.value(k).unwrap_or(d).to_string();
        let num = |k: &str, d: &str| -> Result<f64, String> {
            get(k, d).parse::<f64>().map_err(|e| format!("{k}: {e}"))
        };
        let outage = num("outage", "0")?;
        Ok(Cfg {
            rate_kbps: num("rate", "1000")? as u32,
            window: get("window", "p16"),
            alpha: num("alpha", "0.5")?,
            outage: (outage > 0.0).then_some(outage),
            hold: get("policy", "blind") == "hold",
            loss: num("loss", "0")?,
            cycle: get("sched", "fixed") == "cycle",
            random: get("sched", "fixed") == "random",
            profile: p.value("profile").map(profile_named).transpose()?,
        })
    }
}

/// The draws of one run from its seed: the flow's start (s), the outage (start, duration)
/// and the run's end (s).
fn draws(c: &Cfg, seed: u64) -> (f64, Option<(f64, f64)>, f64) {
    let mut rng = Rng::for_component(seed, "studies.wireless-bs-buffer.start");
    let start = rng.uniform();
    let outage = c.outage.map(|d| (20.0 + 10.0 * rng.uniform(), d));
    let end_s = match outage {
        Some((t0, d)) => t0 + d + 40.0,
        None => RUN_S,
    };
    (start, outage, end_s)
}

/// The profile named `name` (`standard`, `ns2` or `linux`).
fn profile_named(name: &str) -> Result<Profile, String> {
    [Profile::Standard, Profile::Ns2, Profile::Linux]
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| format!("profile: unknown profile {name:?}"))
}

/// The shipped scenario as the loader reads it, under `profile` when a point names one (the
/// profile changes how `[tcp]`'s and the links' defaults resolve, so it is the loader's
/// input, given through [`ScenarioBuilder::profile`]); loaded once per profile.
fn shipped(profile: Option<Profile>) -> Result<Scenario, String> {
    static LOADED: [OnceLock<Result<Scenario, String>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let i = match profile {
        None => 0,
        Some(Profile::Standard) => 1,
        Some(Profile::Ns2) => 2,
        Some(Profile::Linux) => 3,
    };
    LOADED[i]
        .get_or_init(|| {
            let mut b = ScenarioBuilder::from_text(SCENARIO, ORIGIN)?;
            if let Some(p) = profile {
                b.profile(p);
            }
            b.build().map_err(|e| e.to_string())
        })
        .clone()
}

/// The shipped scenario's name in messages.
const ORIGIN: &str = "scenarios/wireless-bs-buffer.toml";

/// `x` seconds (x >= 0) in whole microseconds, rounded as a decimal print of it with six
/// places rounds it ([`shape::micros`] on the fraction; the whole seconds add an even number
/// of microseconds, so ties still go to even): the times the study wrote as `"{x:.6}s"`
/// before it set them as typed values (issue 35), so a drawn time stays the same time.
fn at_micros(x: f64) -> Dur {
    let whole = x.floor();
    // Exact: `x` and its floor share the binade's grid.
    let frac = x - whole;
    Dur::from_micros(whole as u64 * 1_000_000 + shape::micros(frac))
}

/// The scenario of one single-mobile run: the shipped scenario with the point's values (the
/// radio link's rate, outage and its policy, loss, rate cycle or process; the flow's start;
/// the run's end; the receive window) set on it.
fn single_scenario(c: &Cfg, seed: u64) -> Result<Scenario, String> {
    let (start, outage, end_s) = draws(c, seed);
    let mut sc = shipped(c.profile)?;
    // Every outage begins within the run (the loader's check): t0 <= 30 s < t0 + D + 40 s.
    sc.simulation.duration = at_micros(end_s);
    let radio = link_mut(&mut sc, "radio")?;
    radio.rate = Rate(u64::from(c.rate_kbps) * 1000);
    radio.outages = outage
        .map(|(t0, d)| {
            (
                Time(at_micros(t0).as_nanos()),
                Time(at_micros(t0 + d).as_nanos()),
            )
        })
        .into_iter()
        .collect();
    if c.hold {
        radio.outage_policy = OutagePolicy::Hold;
    }
    if c.random {
        radio.rate_process = Some((
            TwoStateRateConfig {
                good_rate: Rate(u64::from(GOOD_KBPS) * 1000),
                bad_rate: Rate(u64::from(BAD_KBPS) * 1000),
                mean_good: Dur::from_secs(u64::from(MEAN_STATE_S)),
                mean_bad: Dur::from_secs(u64::from(MEAN_STATE_S)),
            },
            ErrorDirection::AToB,
        ));
    }
    let LinkKind::Radio(r) = &mut radio.kind else {
        return Err(format!("{ORIGIN}: links.radio is not a radio link"));
    };
    if c.loss > 0.0 {
        r.loss = c.loss;
    }
    if c.cycle {
        // spec 2 BS-E5: 0.4 -> 1.6 -> 0.4 Mb/s, each for 20 s.
        r.rate_cycle = Some(RateCycle {
            rates: vec![Rate(400_000), Rate(1_600_000)],
            every: Dur::from_secs(20),
        });
    }
    // The radio's loss becomes the link's, as the loader folds it.
    radio.fold_kind();
    let ftp = sc
        .flow_tables
        .iter_mut()
        .find(|t| t.table == "ftp")
        .ok_or_else(|| format!("{ORIGIN}: no flow `ftp`"))?;
    ftp.first.start = Time(at_micros(start).as_nanos());
    set_window(&mut sc, &c.window, c.alpha)?;
    Ok(sc)
}

/// The link named `name` of `sc`.
fn link_mut<'a>(sc: &'a mut Scenario, name: &str) -> Result<&'a mut LinkSpec, String> {
    let origin = sc.origin.clone();
    sc.links
        .iter_mut()
        .find(|l| l.name == name)
        .ok_or_else(|| format!("{origin}: no link `{name}`"))
}

/// A shared-channel point: its mobile count, window and scheduler.
fn shared_point(p: &GridPoint) -> Result<(usize, &str, &str), String> {
    let n: usize = p
        .value("mobiles")
        .unwrap_or("1")
        .parse()
        .map_err(|e| format!("mobiles: {e}"))?;
    Ok((
        n,
        p.value("window").unwrap_or("p16"),
        p.value("scheduler").unwrap_or("round_robin"),
    ))
}

/// Sets the receive window of every TCP flow of `sc` to the `window` label's ("4".."64"
/// fixed KiB; "pN" the proposal with W_max N KiB and filter weight `alpha`, "rN" its rate
/// mode), as `[tcp]`'s `rcv_window` and `bs_buffer` keys would, and validates the flows'
/// TCP settings as the loader does ([`TcpConfig::validate`]).
///
/// [`TcpConfig::validate`]: crate::transport::tcp::TcpConfig::validate
fn set_window(sc: &mut Scenario, window: &str, alpha: f64) -> Result<(), String> {
    let (kib, bs_buffer) = match window
        .strip_prefix('p')
        .map(|k| (k, BsBufferMode::Occupancy))
    {
        Some((k, mode)) => (k, Some(mode)),
        None => match window.strip_prefix('r') {
            Some(k) => (k, Some(BsBufferMode::Rate)),
            None => (window, None),
        },
    };
    let bytes = kib
        .parse::<u64>()
        .map_err(|e| format!("window {window:?}: {e}"))?
        * 1024;
    for t in &mut sc.flow_tables {
        if let scenario::FlowKind::Tcp { tcp, .. } = &mut t.first.kind {
            tcp.rcv_window = bytes;
            if let Some(mode) = bs_buffer {
                tcp.bs_buffer = Some(BsBufferConfig {
                    w_max: bytes,
                    alpha,
                    mode,
                    ..BsBufferConfig::default()
                });
            }
            tcp.validate().map_err(|(key, msg)| {
                format!("{}: flows.{}: tcp.{key}: {msg}", sc.origin, t.table)
            })?;
        }
    }
    Ok(())
}

/// One sweep's results: per-point statistics and the per-seed values behind them.
struct Data {
    points: Vec<PointSummary>,
    runs: Vec<Vec<StoredRun>>,
}

impl Data {
    fn index(&self, at: &[(&str, String)]) -> Option<usize> {
        self.points.iter().position(|p| {
            at.iter()
                .all(|(k, v)| p.point.assignments.iter().any(|a| a.0 == *k && a.1 == *v))
        })
    }
    /// Per-seed values of `metric` at the point `at`.
    fn vals(&self, at: &[(&str, String)], metric: &str) -> Vec<(u64, f64)> {
        self.index(at)
            .map(|i| {
                self.runs[i]
                    .iter()
                    .filter_map(|r| {
                        r.metrics
                            .iter()
                            .find(|m| m.0 == metric)
                            .and_then(|m| m.1)
                            .map(|v| (r.seed, v))
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
    fn est(&self, at: &[(&str, String)], metric: &str) -> Estimate {
        let v: Vec<f64> = self.vals(at, metric).iter().map(|x| x.1).collect();
        Estimate::mean(&v)
    }
}

/// `xs` as strings (a sweep parameter's values).
fn strs<T: ToString>(xs: &[T]) -> Vec<String> {
    xs.iter().map(|x| x.to_string()).collect()
}

/// The grid of a reproduction (full, quick or the reduced test's).
#[derive(Clone, Debug)]
struct Grid {
    rates: Vec<u32>,
    outages: Vec<f64>,
    /// Fig 8's replications when they differ from the other sweeps' (the seed-set test's).
    fig8_runs: Option<u32>,
    extensions: bool,
    /// The shared-channel extension's mobile counts.
    mobiles: Vec<usize>,
}

impl Grid {
    fn of(quick: bool) -> Grid {
        if quick {
            Grid {
                rates: vec![100, 400, 1000, 2000],
                outages: vec![1.0, 4.0],
                fig8_runs: None,
                extensions: false,
                mobiles: Vec::new(),
            }
        } else {
            Grid {
                rates: RATES.to_vec(),
                outages: OUTAGES.to_vec(),
                fig8_runs: None,
                extensions: true,
                mobiles: MOBILES.to_vec(),
            }
        }
    }
}

/// What one sweep runs: its name, whether its points are shared-channel runs, and the grid
/// of the pass (with `profile = "ns2"` in [`Pass::AsNs2`]).
#[derive(Clone, Debug)]
struct Def {
    name: &'static str,
    shared: bool,
    grid: Grid,
    ns2: bool,
}

/// The study on the one driver. `grid`: the grid for both modes (the seed-set test's reduced
/// one), `None` for [`Grid::of`].
struct Wireless {
    grid: Option<Grid>,
}

/// Every sweep's results of one pass.
struct AllData {
    g: Grid,
    /// The pass ran with `profile = "ns2"`: no figures of its own.
    ns2: bool,
    figs: Data,
    fig8: Data,
    bse5: Data,
    ext: Option<(Data, Data, Data)>,
    /// The shared-channel extension: round robin over 1-8 mobiles, and priority at 4.
    shared: Option<(Data, Data)>,
}

/// The sweep `name` of `def` over `params`, keyed by its scenario; every point shares the
/// seeds of a replication (common random numbers), so any two curves, rates or durations pair.
fn sweep(
    def: &Def,
    name: &'static str,
    shared: bool,
    mut params: Vec<experiment::Param>,
) -> Sweep<Def> {
    if def.ns2 {
        params.push(param("profile", &["ns2"]));
    }
    let text = if shared { SHARED_SCENARIO } else { SCENARIO };
    Sweep {
        def: Def {
            name,
            shared,
            ..def.clone()
        },
        dir: format!("runs/{name}"),
        key: experiment::experiment_key(&format!("{NAME}-{name}"), text),
        shared_seed_params: params.iter().map(|p| p.path.clone()).collect(),
        params,
    }
}

impl Wireless {
    /// The sweeps of `def`'s grid: Figs 5-7, Fig 8, BS-E5 and, in the study's own pass of a
    /// full run, the extensions.
    fn sweeps(&self, def: &Def) -> Vec<Sweep<Def>> {
        let g = &def.grid;
        let rates = strs(&g.rates);
        let mut out = vec![
            sweep(
                def,
                "figs5-7",
                false,
                vec![param("rate", &rates), param("window", &WINDOWS)],
            ),
            sweep(
                def,
                "fig8",
                false,
                vec![
                    param("outage", &g.outages),
                    param("window", &["16", "p16"]),
                    param("policy", &["blind", "hold"]),
                ],
            ),
            sweep(
                def,
                "bs-e5",
                false,
                vec![
                    param("alpha", &["1", "0.5", "0.25"]),
                    param("sched", &["fixed", "cycle"]),
                ],
            ),
        ];
        if g.extensions && !def.ns2 {
            out.extend([
                sweep(
                    def,
                    "ext-window",
                    false,
                    vec![
                        param("rate", &rates),
                        param("window", &["p8", "p32", "p64", "r16"]),
                    ],
                ),
                sweep(
                    def,
                    "ext-loss",
                    false,
                    vec![
                        param("loss", &["0.01", "0.05"]),
                        param("rate", &rates),
                        param("window", &WINDOWS),
                    ],
                ),
                sweep(
                    def,
                    "ext-random",
                    false,
                    vec![param("sched", &["random"]), param("window", &WINDOWS)],
                ),
            ]);
            out.extend(shared_sweeps(def, &g.mobiles));
        }
        out
    }
}

/// The shared-channel extension's two sweeps: every window with round robin over `mobiles`,
/// and the largest fixed window and the proposal with strict priority at 4 mobiles.
fn shared_sweeps(def: &Def, mobiles: &[usize]) -> [Sweep<Def>; 2] {
    [
        sweep(
            def,
            "ext-mobiles",
            true,
            vec![param("mobiles", mobiles), param("window", &WINDOWS)],
        ),
        sweep(
            def,
            "ext-mobiles-priority",
            true,
            vec![
                param("mobiles", &[4]),
                param("window", &["16", "p16"]),
                param("scheduler", &["priority"]),
            ],
        ),
    ]
}

impl Shape for Wireless {
    type Def = Def;
    type Results = AllData;

    const NAME: &'static str = NAME;
    const BASE_SEED: u64 = BASE_SEED;
    const RUNS: [u32; 2] = [3, 5];

    /// Issue 14: Figs 5-8 and BS-E5 again as ns-2.35 would run them (profile = "ns2"), same
    /// seeds, judged by the same checks; the extensions are not rerun.
    fn passes(&self) -> &'static [Pass] {
        &[Pass::Own, Pass::AsNs2]
    }
    fn grid(&self, quick: bool, pass: Pass) -> Vec<Sweep<Def>> {
        let def = Def {
            name: "",
            shared: false,
            grid: self.grid.clone().unwrap_or_else(|| Grid::of(quick)),
            ns2: pass == Pass::AsNs2,
        };
        self.sweeps(&def)
    }
    fn runs(&self, def: &Def, set: &Setting) -> u32 {
        if def.name != "fig8" {
            return set.runs;
        }
        // Fig 8's counts vary more from run to run: 30 runs per point in a full run.
        def.grid
            .fig8_runs
            .or(set.asked_runs)
            .unwrap_or(if set.quick { set.runs } else { 30 })
    }
    fn scenario(&self, def: &Def, point: &GridPoint, seed: u64) -> Result<Scenario, String> {
        if def.shared {
            let (n, window, scheduler) = shared_point(point)?;
            shared_run_scenario(n, window, scheduler, seed)
        } else {
            single_scenario(&Cfg::from_point(point)?, seed)
        }
    }
    fn watch(&self, def: &Def, point: &GridPoint) -> Option<Watch> {
        let mut nodes = vec!["bs".to_string()];
        if def.shared {
            let n = shared_point(point).map_or(0, |p| p.0);
            nodes.extend((1..=n).map(|i| format!("ms{i}")));
        } else {
            nodes.push("ms".into());
        }
        Some(Watch {
            probes: nodes
                .into_iter()
                .map(|n| (n, Box::new(Probe::default()) as Box<dyn Element>))
                .collect(),
            warmup: Some(warm()),
        })
    }
    fn at_warmup(
        &self,
        def: &Def,
        point: &GridPoint,
        world: &crate::world::World,
        info: &RunInfo,
    ) -> Metrics {
        if def.shared {
            shared_at_warmup(shared_point(point).map_or(0, |p| p.0), world, info)
        } else {
            at_warmup(world, info)
        }
    }
    fn measure_watched(&self, def: &Def, point: &GridPoint, run: &Watched) -> Metrics {
        if def.shared {
            let n = shared_point(point).map_or(0, |p| p.0);
            shared_metrics(n, &shared_run(n, run))
        } else {
            let c = Cfg::from_point(point).expect("read when its scenario was built");
            metrics(&c, &trace(&c, run))
        }
    }
    fn collect(&self, swept: Vec<Swept<Def>>) -> AllData {
        let first = swept.first().expect("the study's sweeps");
        let (g, ns2) = (first.def.grid.clone(), first.def.ns2);
        let mut by_name: std::collections::HashMap<&str, Data> = swept
            .into_iter()
            .map(|s| {
                (
                    s.def.name,
                    Data {
                        points: s.points,
                        runs: s.runs,
                    },
                )
            })
            .collect();
        let mut take = |n: &str| by_name.remove(n);
        let ext = match (take("ext-window"), take("ext-loss"), take("ext-random")) {
            (Some(a), Some(b), Some(c)) => Some((a, b, c)),
            _ => None,
        };
        let shared = take("ext-mobiles").zip(take("ext-mobiles-priority"));
        AllData {
            g,
            ns2,
            figs: take("figs5-7").expect("Figs 5-7"),
            fig8: take("fig8").expect("Fig 8"),
            bse5: take("bs-e5").expect("BS-E5"),
            ext,
            shared,
        }
    }
    fn claims(&self, d: &AllData) -> Vec<Check> {
        shape_checks(d, &d.g)
    }
    fn explain(&self, d: &AllData, checks: &mut [Check]) {
        explain(checks, d, &d.g)
    }
    fn figures(&self, root: &Path, d: &AllData) -> Result<(), String> {
        if d.ns2 {
            return Ok(());
        }
        write_figures(self, root, d)
    }
    fn report(&self, d: &AllData, checks: &[Check], set: &Setting) -> String {
        report(d, checks, set)
    }
}

/// Runs the study and writes `<out>/wireless-bs-buffer/`: figures (SVG), CSVs and report.md.
pub fn run(opts: &ReproduceOptions) -> Result<StudyOutcome, String> {
    shape::drive(&Wireless { grid: None }, opts)
}

#[cfg(test)]
mod tests;
