//! The `packetsim` command: parses arguments and calls the library. No simulation logic here.

use clap::{Parser, Subcommand};
use packetsim::experiment::{self, Param, RunOutput, SweepSpec};
use packetsim::report;
use packetsim::scenario::{self, Override, Scenario};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "packetsim",
    version,
    about = "A fast packet-level network simulator for transport-protocol research"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Validate a scenario file (parse, check, assemble) without running it.
    Check {
        /// The scenario (TOML).
        file: PathBuf,
        /// Override a value: PATH=VALUE, PATH being the TOML key path (repeatable).
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<Override>,
    },
    /// Run one scenario, print a summary table and write the results.
    Run {
        /// The scenario (TOML).
        file: PathBuf,
        /// Override a value: PATH=VALUE, e.g. links.bottleneck.loss=0.01 (repeatable).
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<Override>,
        /// Run seed, 0 to 2^64-1 (default: the scenario's simulation.seed).
        #[arg(long, allow_negative_numbers = true, value_parser = parse_seed)]
        seed: Option<u64>,
        /// Where to write summary.json, flows.csv, queues.csv and time series.
        #[arg(long, default_value = "out/run")]
        out: PathBuf,
        /// Print nothing but errors.
        #[arg(long)]
        quiet: bool,
        /// Write one pcap file per link direction into DIR (the scenario's `[trace]` table
        /// chooses directions, flows, time window and snap length; default: every direction).
        #[arg(long, value_name = "DIR")]
        pcap: Option<PathBuf>,
        /// Write the event trace (events.csv: enqueue, mark, drop, dequeue, receive) into DIR
        /// (filtered by the scenario's `[trace]` table).
        #[arg(long, value_name = "DIR")]
        trace: Option<PathBuf>,
    },
    /// Run a grid of parameter values times N replications, resumably, in parallel.
    Sweep {
        /// The scenario (TOML).
        file: PathBuf,
        /// A swept parameter: PATH=V1,V2,... (repeatable; the grid is their product).
        #[arg(long = "param", value_name = "PATH=V1,V2,...")]
        params: Vec<Param>,
        /// Fixed overrides applied before the sweep (repeatable).
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<Override>,
        /// Replications per grid point (at least 1).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
        /// Parallel jobs (default: all cores; at most 4 per core).
        #[arg(long, default_value_t = 0, value_parser = parse_jobs)]
        jobs: usize,
        /// Base seed, 0 to 2^64-1 (default: the scenario's simulation.seed).
        #[arg(long, allow_negative_numbers = true, value_parser = parse_seed)]
        seed: Option<u64>,
        /// Output folder: results.sqlite (the resumable store), results.csv, runs.csv.
        #[arg(long)]
        out: PathBuf,
    },
    /// Reproduce a study's experiments: figures (CSV + SVG) and a report against the paper.
    Reproduce {
        /// A study name, or `all` for every study implemented so far.
        study: String,
        /// Output folder (each study writes a subfolder).
        #[arg(long, default_value = "out/reproduce")]
        out: PathBuf,
        /// Replications per point (default: the study's, e.g. the paper's 100; at least 1).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        runs: Option<u32>,
        /// A fast smoke version: few runs, few points.
        #[arg(long)]
        quick: bool,
        /// Parallel jobs (default: all cores; at most 4 per core).
        #[arg(long, default_value_t = 0, value_parser = parse_jobs)]
        jobs: usize,
    },
    /// Run the fixed speed benchmarks and print events and packets per wall-second.
    Bench {
        /// dumbbell-10, dumbbell-100, all (those two), dumbbell-1000, dumbbell-10000 or
        /// dumbbell-N.
        #[arg(long, default_value = "all")]
        workload: String,
        /// Run the dumbbell with this many flows (the workload dumbbell-N) instead.
        #[arg(long, conflicts_with = "workload", value_parser = parse_bench_flows)]
        flows: Option<u32>,
        /// Simulated seconds per workload (more than 0, at most 1000000).
        #[arg(long, default_value_t = 60.0, allow_negative_numbers = true,
              value_parser = parse_bench_duration)]
        duration: f64,
        /// Print one JSON line per workload instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// Writes a line to standard output. A closed pipe (`packetsim run ... | head -1`) is not an
/// error of ours: it ends the program quietly (see `main`); any other write error is reported.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*).map_err(Failure::Stdout)?
    }};
}

/// Writes to standard output without a newline (see [`say!`]).
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*).map_err(Failure::Stdout)?
    }};
}

/// Why a command did not finish.
enum Failure {
    /// A user-facing error: printed as `error: ...`, exit status 1.
    Msg(String),
    /// Writing to standard output failed.
    Stdout(std::io::Error),
}

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure::Msg(s)
    }
}

/// `--jobs`: 0 (all cores) up to 4 per core; more would only add threads that wait.
fn parse_jobs(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("expected a whole number of jobs (0 = all cores); got {s:?}"))?;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let max = 4 * cores;
    if n > max {
        return Err(format!(
            "at most {max} jobs on this machine (4 per core, {cores} cores); got {n}"
        ));
    }
    Ok(n)
}

/// `--seed`: a whole number from 0 to 2^64-1 (a negative one gets its own message rather
/// than clap's "unexpected argument").
fn parse_seed(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.starts_with('-') && t.len() > 1 && t[1..].bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("seed must be ≥ 0; got {s}"));
    }
    t.parse().map_err(|_| {
        format!(
            "expected a whole number from 0 to {} as the seed; got {s:?}",
            u64::MAX
        )
    })
}

/// Largest `bench --duration`, simulated seconds (a bench of more would run for days).
const MAX_BENCH_SECONDS: f64 = 1e6;

/// `bench --duration`: simulated seconds, positive, finite, at most [`MAX_BENCH_SECONDS`].
fn parse_bench_duration(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of simulated seconds, e.g. 60; got {s:?}"))?;
    if v.is_nan() || v <= 0.0 || v > MAX_BENCH_SECONDS {
        return Err(format!(
            "expected more than 0 and at most {MAX_BENCH_SECONDS} simulated seconds; got {s}"
        ));
    }
    // Below a nanosecond the generated scenario's duration would round to 0.
    if v < 1e-9 {
        return Err(format!(
            "expected at least 1 ns (1e-9 simulated seconds); got {s}"
        ));
    }
    Ok(v)
}

/// `bench --flows`: 1 up to the scenario limit on a flow table's `count`.
fn parse_bench_flows(s: &str) -> Result<u32, String> {
    let max = scenario::MAX_FLOW_COUNT;
    match s.trim().parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a whole number of flows from 1 to {max}; got {s:?}"
        )),
    }
}

/// Writes a line to standard error. Unlike `eprintln!`, a closed or full standard error is
/// not a panic: the message is lost, the exit status still tells.
fn warn(msg: std::fmt::Arguments) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{msg}");
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.cmd) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away: stop quietly, with the status a shell gives a process ended
        // by SIGPIPE (128 + 13).
        Err(Failure::Stdout(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(141)
        }
        Err(Failure::Stdout(e)) => {
            warn(format_args!("error: writing to standard output: {e}"));
            ExitCode::FAILURE
        }
        Err(Failure::Msg(msg)) => {
            warn(format_args!("error: {msg}"));
            ExitCode::FAILURE
        }
    }
}

fn load(file: &Path, set: &[Override]) -> Result<Scenario, String> {
    scenario::load_file(file, set).map_err(|e| e.to_string())
}

fn dispatch(cmd: Cmd) -> Result<(), Failure> {
    match cmd {
        Cmd::Check { file, set } => {
            let sc = load(&file, &set)?;
            scenario::build(&sc, sc.simulation.seed).map_err(|e| e.to_string())?;
            say!(
                "{}: ok ({} nodes, {} links, {} flows)",
                file.display(),
                sc.nodes.len(),
                sc.links.len(),
                sc.flows.len()
            );
            Ok(())
        }
        Cmd::Run {
            file,
            set,
            seed,
            out,
            quiet,
            pcap,
            trace,
        } => {
            let sc = load(&file, &set)?;
            let seed = seed.unwrap_or(sc.simulation.seed);
            let pcap = pcap.or_else(|| sc.trace.pcap.then(|| out.join("pcap")));
            let trace = trace.or_else(|| sc.trace.events.then(|| out.join("trace")));
            let (outcome, traced) =
                scenario::run_traced(&sc, seed, pcap.as_deref(), trace.as_deref())?;
            report::write_run(&out, &outcome.summary, &outcome.world)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            report::write_atomic(&out.join("scenario.toml"), &sc.text)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            if !quiet {
                say_raw!("{}", outcome.summary.table());
                say!("\nwrote {}", out.display());
                if let Some(dir) = &pcap {
                    let packets: u64 = traced.pcap_files.iter().map(|f| f.1).sum();
                    say!(
                        "wrote {} pcap files ({packets} packets) into {}",
                        traced.pcap_files.len(),
                        dir.display()
                    );
                }
                if let Some((path, rows)) = &traced.events_file {
                    say!("wrote {} ({rows} events)", path.display());
                }
            }
            Ok(())
        }
        Cmd::Sweep {
            file,
            params,
            set,
            runs,
            jobs,
            seed,
            out,
        } => {
            let sc = load(&file, &set)?;
            for p in &params {
                for v in &p.values {
                    let mut all = set.clone();
                    all.push(Override {
                        path: p.path.clone(),
                        value: v.clone(),
                    });
                    load(&file, &all).map_err(|e| format!("--param {}={v}: {e}", p.path))?;
                }
            }
            let spec = SweepSpec {
                experiment_key: experiment::experiment_key(&sc.origin, &sc.text),
                params,
                runs,
                base_seed: seed.unwrap_or(sc.simulation.seed),
                jobs,
                out_dir: out.clone(),
                progress: true,
                shared_seed_params: Vec::new(),
            };
            std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            report::write_atomic(&out.join("scenario.toml"), &sc.text)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            let report = experiment::sweep(&spec, |point, seed| {
                let mut all = set.clone();
                all.extend(point.assignments.iter().map(|(k, v)| Override {
                    path: k.clone(),
                    value: v.clone(),
                }));
                let sc = load(&file, &all)?;
                let o = scenario::run(&sc, seed).map_err(|e| e.to_string())?;
                Ok(RunOutput {
                    summary_json: o.summary.to_json(),
                    metrics: o.summary.metrics(),
                })
            })
            .map_err(|e| e.to_string())?;
            say!(
                "{} grid points x {} runs: {} computed, {} reused from the store; wrote {}",
                report.points.len(),
                runs,
                report.computed,
                report.reused,
                out.join("results.csv").display()
            );
            // Replications that all came out the same have no source of randomness: their
            // confidence intervals are empty, which a reader would take for certainty.
            for p in report.identical_points() {
                warn(format_args!(
                    "warning: all {runs} replications of {p} gave identical metrics: the \
                     scenario has no source of randomness there (add loss, a random process, \
                     or flows.NAME.start_jitter)"
                ));
            }
            Ok(())
        }
        Cmd::Reproduce {
            study,
            out,
            runs,
            quick,
            jobs,
        } => {
            use packetsim::studies::{ReproduceOptions, STUDIES};
            let chosen: Vec<_> = STUDIES
                .iter()
                .filter(|s| study == "all" || s.name == study)
                .collect();
            if chosen.is_empty() {
                let names: Vec<&str> = STUDIES.iter().map(|s| s.name).collect();
                return Err(format!(
                    "unknown study {study:?}; expected `all` or one of: {}",
                    names.join(", ")
                )
                .into());
            }
            let opts = ReproduceOptions {
                out,
                runs,
                quick,
                jobs,
                progress: true,
            };
            for s in chosen {
                warn(format_args!("reproducing {}: {}", s.name, s.title));
                let o = (s.run)(&opts)?;
                say!(
                    "{}: {} shape checks hold, {} do not, {} not decidable; report: {}",
                    o.name,
                    o.passed,
                    o.failed,
                    o.undecided,
                    o.report.display()
                );
            }
            Ok(())
        }
        Cmd::Bench {
            workload,
            flows,
            duration,
            json,
        } => {
            let workload = match flows {
                Some(n) => format!("dumbbell-{n}"),
                None => workload,
            };
            let names: Vec<&str> = if workload == "all" {
                packetsim::bench::WORKLOADS.iter().map(|w| w.0).collect()
            } else {
                vec![workload.as_str()]
            };
            // An unknown workload is refused before the table's header is printed.
            for name in &names {
                if packetsim::bench::workload_flows(name).is_none() {
                    packetsim::bench::run_workload(name, duration)
                        .map_err(|e| format!("--workload: {e}"))?;
                }
            }
            if !json {
                say!(
                    "{:<14} {:>10} {:>12} {:>14} {:>16} {:>10} {:>12} {:>10} {:>10}",
                    "workload",
                    "wall s",
                    "events/s",
                    "data pkts",
                    "data pkts/s",
                    "ev/pkt",
                    "goodput Mb/s",
                    "peak MiB",
                    "KiB/flow"
                );
            }
            for name in names {
                let r = packetsim::bench::run_workload(name, duration)?;
                if json {
                    say!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
                } else {
                    say!(
                        "{:<14} {:>10.3} {:>12.0} {:>14} {:>16.0} {:>10.2} {:>12.3} {:>10.1} {:>10.1}",
                        r.workload,
                        r.wall_s,
                        r.events_per_s,
                        r.data_packets_delivered,
                        r.data_packets_per_s,
                        r.events_per_packet,
                        r.goodput_bps / 1e6,
                        r.peak_rss_kib as f64 / 1024.0,
                        // The whole process's peak over the flows (start-up included).
                        r.peak_rss_kib as f64 / r.flows as f64
                    );
                }
            }
            Ok(())
        }
    }
}
