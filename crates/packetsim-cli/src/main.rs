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
        /// Run seed (default: the scenario's simulation.seed).
        #[arg(long)]
        seed: Option<u64>,
        /// Where to write summary.json, flows.csv, queues.csv and time series.
        #[arg(long, default_value = "out/run")]
        out: PathBuf,
        /// Print nothing but errors.
        #[arg(long)]
        quiet: bool,
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
        /// Replications per grid point.
        #[arg(long, default_value_t = 10)]
        runs: u32,
        /// Parallel jobs (default: all cores).
        #[arg(long, default_value_t = 0)]
        jobs: usize,
        /// Base seed (default: the scenario's simulation.seed).
        #[arg(long)]
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
        /// Replications per point (default: the study's, e.g. the paper's 100).
        #[arg(long)]
        runs: Option<u32>,
        /// A fast smoke version: few runs, few points.
        #[arg(long)]
        quick: bool,
        /// Parallel jobs (default: all cores).
        #[arg(long, default_value_t = 0)]
        jobs: usize,
    },
    /// Run the fixed speed benchmarks and print events and packets per wall-second.
    Bench {
        /// dumbbell-10, dumbbell-100 or all.
        #[arg(long, default_value = "all")]
        workload: String,
        /// Simulated seconds per workload.
        #[arg(long, default_value_t = 60.0)]
        duration: f64,
        /// Print one JSON line per workload instead of a table.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.cmd) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn load(file: &Path, set: &[Override]) -> Result<Scenario, String> {
    scenario::load_file(file, set).map_err(|e| e.to_string())
}

fn dispatch(cmd: Cmd) -> Result<(), String> {
    match cmd {
        Cmd::Check { file, set } => {
            let sc = load(&file, &set)?;
            scenario::build(&sc, sc.simulation.seed).map_err(|e| e.to_string())?;
            println!(
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
        } => {
            let sc = load(&file, &set)?;
            let seed = seed.unwrap_or(sc.simulation.seed);
            let outcome = scenario::run(&sc, seed).map_err(|e| e.to_string())?;
            report::write_run(&out, &outcome.summary, &outcome.world)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            report::write_atomic(&out.join("scenario.toml"), &sc.text)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            if !quiet {
                print!("{}", outcome.summary.table());
                println!("\nwrote {}", out.display());
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
            println!(
                "{} grid points x {} runs: {} computed, {} reused from the store; wrote {}",
                report.points.len(),
                runs,
                report.computed,
                report.reused,
                out.join("results.csv").display()
            );
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
                ));
            }
            let opts = ReproduceOptions {
                out,
                runs,
                quick,
                jobs,
                progress: true,
            };
            for s in chosen {
                eprintln!("reproducing {}: {}", s.name, s.title);
                let o = (s.run)(&opts)?;
                println!(
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
            duration,
            json,
        } => {
            let names: Vec<&str> = if workload == "all" {
                packetsim::bench::WORKLOADS.iter().map(|w| w.0).collect()
            } else {
                vec![workload.as_str()]
            };
            if !json {
                println!(
                    "{:<14} {:>10} {:>12} {:>14} {:>16} {:>10} {:>12} {:>10}",
                    "workload",
                    "wall s",
                    "events/s",
                    "data pkts",
                    "data pkts/s",
                    "ev/pkt",
                    "goodput Mb/s",
                    "peak MiB"
                );
            }
            for name in names {
                let r = packetsim::bench::run_workload(name, duration)?;
                if json {
                    println!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
                } else {
                    println!(
                        "{:<14} {:>10.3} {:>12.0} {:>14} {:>16.0} {:>10.2} {:>12.3} {:>10.1}",
                        r.workload,
                        r.wall_s,
                        r.events_per_s,
                        r.data_packets_delivered,
                        r.data_packets_per_s,
                        r.events_per_packet,
                        r.goodput_bps / 1e6,
                        r.peak_rss_kib as f64 / 1024.0
                    );
                }
            }
            Ok(())
        }
    }
}
