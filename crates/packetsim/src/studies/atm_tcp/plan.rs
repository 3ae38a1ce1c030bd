//! The study's grid: what the quick and the full reproduction run ([`Plan`]), its sweeps
//! ([`sweeps`]) and the configuration of each grid point ([`config_of`]).

use super::config::{AtmNetConfig, TimeBase};
use crate::atm::Discard;
use crate::experiment::GridPoint;
use crate::studies::shape::{param, Sweep};
use packetsim_kernel::Dur;

/// The two RTOmin values of the main experiment (E5/E6), ms, in the order of its rows.
pub(super) const MAIN_RTO_MS: [u64; 2] = [450, 100];

/// What the study runs: the full reproduction or the quick one.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Seeds of E5/E6 (filled from the stored runs by `collect`).
    pub main_seeds: u32,
    /// Seeds of E1-E4, sensitivities and extensions (filled likewise).
    pub seeds: u32,
    pub main_slots: u64,
    pub bg_sizes: Vec<u32>,
    pub bg_buffers: Vec<u32>,
    pub bg_warmup: f64,
    pub bg_seconds: f64,
    pub x_rto_ms: Vec<u64>,
    pub x3_k: Vec<f64>,
    /// Run the 2.83 µs slot sensitivity (20 s at 2.83 µs is 7·10^6 slots).
    pub fine_slot: bool,
    /// Run the sensitivities and extensions (not needed by the checks).
    pub extras: bool,
}

impl Plan {
    /// The quick or the full plan.
    pub fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                main_seeds: 2,
                seeds: 2,
                main_slots: 1_000_000,
                bg_sizes: vec![512, 9180],
                bg_buffers: vec![500, 2000, 8000],
                bg_warmup: 1.0,
                bg_seconds: 3.0,
                x_rto_ms: vec![50, 100, 450],
                x3_k: vec![4.0],
                fine_slot: false,
                extras: true,
            }
        } else {
            Plan {
                main_seeds: 10,
                seeds: 5,
                main_slots: 1_000_000,
                bg_sizes: vec![512, 1500, 4352, 9180],
                bg_buffers: vec![500, 1000, 2000, 3000, 4000, 6000, 8000],
                bg_warmup: 2.0,
                bg_seconds: 20.0,
                x_rto_ms: vec![10, 25, 50, 100, 200, 300, 450, 1000, 1500],
                x3_k: vec![2.0, 4.0, 8.0],
                fine_slot: true,
                extras: true,
            }
        }
    }
}

/// Which part of the study a sweep is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// E5/E6: the main experiment at both RTOmin values.
    Main,
    /// The traces of Figs 7-8: replication 1 of the main experiment again, read every
    /// trace bin (the same run: reading the world part-way does not change it), apart so
    /// that only these runs keep the trace's 1,000 bins in the store.
    Trace,
    /// The sensitivities of spec §6 and the time base, at both RTOmin values.
    Sens,
    /// X1/X2: RTOmin sweep under each policy, fast retransmit off and on.
    X,
    /// X3: the adaptive floor k·SRTT.
    X3,
    /// E1-E4: efficiency against buffer and packet size.
    E,
}

/// One sweep's definition: its part and the plan it belongs to.
pub struct Def {
    pub part: Part,
    pub plan: Plan,
}

/// A sensitivity case: its value in the grid, its name in the report and CSV, its change to
/// the main configuration.
pub(super) struct Case {
    pub slug: &'static str,
    pub name: &'static str,
    pub tweak: fn(&mut AtmNetConfig),
}

fn epd(t: u32) -> Discard {
    Discard::Epd {
        threshold: t,
        keep_eof: false,
    }
}

const PPD: Discard = Discard::Ppd { keep_eof: false };

/// Spec §6 Q1, Q2, the model before the YATS harness, the discard policies, the time base and
/// the 2.83 µs slot (full runs only), in the report's order.
pub(super) const CASES: [Case; 8] = [
    Case {
        slug: "T500",
        name: "T=500",
        tweak: |c| c.switch.discard = epd(500),
    },
    Case {
        slug: "B500-T300",
        name: "B=500,T=300",
        tweak: |c| {
            c.switch.buffer = 500;
            c.switch.discard = epd(300);
        },
    },
    Case {
        slug: "B2000-T1200",
        name: "B=2000,T=1200",
        tweak: |c| {
            c.switch.buffer = 2000;
            c.switch.discard = epd(1200);
        },
    },
    Case {
        slug: "ppd",
        name: "ppd",
        tweak: |c| c.switch.discard = PPD,
    },
    // The model before the YATS harness (spec §2.5's "every segment is full size", §2.4's
    // split block) at T = 500, where it differs most from YATS.
    Case {
        slug: "T500-held-tails",
        name: "T=500-held-tails",
        tweak: |c| {
            c.switch.discard = epd(500);
            c.tcp.push_buffered = false;
            if let Some(s) = c.source.as_mut() {
                s.whole_blocks = false;
            }
        },
    },
    Case {
        slug: "plain",
        name: "plain",
        tweak: |c| c.switch.discard = Discard::Plain,
    },
    Case {
        slug: "continuous",
        name: "continuous",
        tweak: |c| c.time_base = TimeBase::Continuous,
    },
    Case {
        slug: "slot2.83us",
        name: "slot=2.83us",
        tweak: |c| {
            c.slot = Dur::from_nanos(2_830);
            c.slots = 20_000_000_000 / 2_830;
        },
    },
];

/// The discard policies of X1/X2 and of E1-E4, by name.
pub(super) fn policy(name: &str, buffer: u32) -> Discard {
    match name {
        "packet" => Discard::Packet,
        "plain" => Discard::Plain,
        "ppd" => PPD,
        "epd" if buffer > 0 => epd(buffer / 2),
        _ => epd(600),
    }
}

/// E1-E4: the figure of each mode.
pub(super) const MODES: [(&str, u32); 4] = [("packet", 1), ("plain", 2), ("ppd", 3), ("epd", 4)];

/// The study's sweeps, in the order of the old job list (so runs.csv keeps its row order):
/// E5/E6, sensitivities, X1/X2, X3, E1-E4. Every parameter shares the run seeds: replication
/// k of every point runs the same seed, as before the driver (pairing across points).
pub fn sweeps(plan: &Plan) -> Vec<Sweep<Def>> {
    let main = [param("rto_ms", &MAIN_RTO_MS)];
    let mut v = vec![
        (Part::Main, "main", main.to_vec()),
        (Part::Trace, "trace", main.to_vec()),
    ];
    if plan.extras {
        let n = if plan.fine_slot {
            CASES.len()
        } else {
            CASES.len() - 1
        };
        let slugs: Vec<&str> = CASES[..n].iter().map(|c| c.slug).collect();
        v.push((
            Part::Sens,
            "sens",
            vec![param("case", &slugs), main[0].clone()],
        ));
        v.push((
            Part::X,
            "x",
            vec![
                param("fast_retransmit", &[false, true]),
                param("policy", &["plain", "ppd", "epd"]),
                param("rto_ms", &plan.x_rto_ms),
            ],
        ));
        v.push((Part::X3, "x3", vec![param("k", &plan.x3_k)]));
    }
    let modes: Vec<&str> = MODES.iter().map(|m| m.0).collect();
    v.push((
        Part::E,
        "e",
        vec![
            param("mode", &modes),
            param("packet_bytes", &plan.bg_sizes),
            param("buffer_cells", &plan.bg_buffers),
        ],
    ));
    v.into_iter()
        .map(|(part, dir, params)| Sweep {
            key: format!("atm-tcp/2/{dir}/{plan:?}"),
            dir: format!("sweeps/{dir}"),
            shared_seed_params: params.iter().map(|p| p.path.clone()).collect(),
            params,
            def: Def {
                part,
                plan: plan.clone(),
            },
        })
        .collect()
}

/// The value of `path` at `point` ("" when the point has none).
pub(super) fn value<'a>(point: &'a GridPoint, path: &str) -> &'a str {
    point
        .assignments
        .iter()
        .find(|a| a.0 == path)
        .map_or("", |a| a.1.as_str())
}

fn num<T: std::str::FromStr + Default>(point: &GridPoint, path: &str) -> T {
    value(point, path).parse().unwrap_or_default()
}

fn main_cfg(plan: &Plan, rto_ms: u64, seed: u64) -> AtmNetConfig {
    let mut c = AtmNetConfig::paper(Dur::from_millis(rto_ms));
    c.slots = plan.main_slots;
    c.seed = seed;
    c.trace_bin = 0;
    c
}

/// The configuration of `point` of the sweep `def` run with `seed` (the trace of Figs 7-8
/// only in [`Part::Trace`]).
pub fn config_of(def: &Def, point: &GridPoint, seed: u64) -> AtmNetConfig {
    let plan = &def.plan;
    let rto: u64 = num(point, "rto_ms");
    match def.part {
        Part::Main => main_cfg(plan, rto, seed),
        Part::Trace => {
            let mut c = main_cfg(plan, rto, seed);
            c.trace_bin = AtmNetConfig::paper(Dur::ZERO).trace_bin;
            c
        }
        Part::Sens => {
            let mut c = main_cfg(plan, rto, seed);
            if let Some(case) = CASES.iter().find(|c| c.slug == value(point, "case")) {
                (case.tweak)(&mut c);
            }
            c
        }
        Part::X => {
            let mut c = main_cfg(plan, rto, seed);
            c.switch.discard = policy(value(point, "policy"), 0);
            c.tcp.fast_retransmit = value(point, "fast_retransmit") == "true";
            c
        }
        Part::X3 => {
            let mut c = main_cfg(plan, 10, seed);
            c.tcp.rto_min_srtt_factor = Some(num(point, "k"));
            c
        }
        Part::E => {
            let b: u32 = num(point, "buffer_cells");
            let d = policy(value(point, "mode"), b);
            let size = num(point, "packet_bytes");
            let mut c = AtmNetConfig::background(size, b, d, plan.bg_warmup, plan.bg_seconds);
            c.seed = seed;
            c
        }
    }
}

/// The row's group and x of a run of `point` (the old job list's names: `main/450`,
/// `sens/T=500/100`, `x1/ppd`, `x3`, `e4/9180`).
pub fn group_of(def: &Def, point: &GridPoint) -> (String, f64) {
    let rto: f64 = num(point, "rto_ms");
    match def.part {
        Part::Main => (format!("main/{rto}"), rto),
        Part::Trace => (format!("trace/{rto}"), rto),
        Part::Sens => {
            let slug = value(point, "case");
            let name = CASES
                .iter()
                .find(|c| c.slug == slug)
                .map_or(slug, |c| c.name);
            (format!("sens/{name}/{rto}"), rto)
        }
        Part::X => {
            let x = if value(point, "fast_retransmit") == "true" {
                2
            } else {
                1
            };
            (format!("x{x}/{}", value(point, "policy")), rto)
        }
        Part::X3 => ("x3".into(), num(point, "k")),
        Part::E => {
            let mode = value(point, "mode");
            let fig = MODES.iter().find(|m| m.0 == mode).map_or(0, |m| m.1);
            (
                format!("e{fig}/{}", value(point, "packet_bytes")),
                num(point, "buffer_cells"),
            )
        }
    }
}
