//! The `packetsim` command: parses arguments and calls the library. No simulation logic here.

use clap::{CommandFactory, Parser, Subcommand};
use packetsim::experiment::{self, Param, RunOutput, SweepSpec};
use packetsim::report;
use packetsim::scenario::{self, Override, Scenario};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod html;
mod plot;
mod slurm;
mod study_html;
mod sweep_plot;

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
        /// Memory budget for a run's flows and time series, e.g. 2GiB (a run estimated to need
        /// more is refused before it starts).
        #[arg(long, default_value = "2GiB", value_parser = parse_max_memory)]
        max_memory: u64,
        /// A folder, besides the scenario's own, that files the scenario names (size_cdf)
        /// may be read from (repeatable).
        #[arg(long = "allow-dir", value_name = "DIR")]
        allow_dir: Vec<PathBuf>,
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
        /// Show the run's progress (simulated time) on standard error: a bar on a terminal,
        /// where it is shown anyway unless --quiet; elsewhere a line at every 10%. Never in
        /// an output file.
        #[arg(long)]
        progress: bool,
        /// Write one pcap file per link direction into DIR (the scenario's `[trace]` table
        /// chooses directions, flows, time window and snap length; default: every direction).
        #[arg(long, value_name = "DIR")]
        pcap: Option<PathBuf>,
        /// Write the event trace (events.csv: enqueue, mark, drop, dequeue, receive) into DIR
        /// (filtered by the scenario's `[trace]` table).
        #[arg(long, value_name = "DIR")]
        trace: Option<PathBuf>,
        /// Memory budget for a run's flows and time series, e.g. 2GiB (a run estimated to need
        /// more is refused before it starts).
        #[arg(long, default_value = "2GiB", value_parser = parse_max_memory)]
        max_memory: u64,
        /// A folder, besides the scenario's own, that files the scenario names (size_cdf)
        /// may be read from (repeatable).
        #[arg(long = "allow-dir", value_name = "DIR")]
        allow_dir: Vec<PathBuf>,
    },
    /// Run a grid of parameter values times N replications, resumably, in parallel (or one
    /// shard of it; `sweep merge` joins shards).
    Sweep(SweepCommand),
    /// Reproduce a study's experiments: figures (CSV + SVG) and a report against the paper.
    Reproduce {
        /// A study name, or `all` for every study implemented so far.
        study: String,
        /// Output folder (each study writes a subfolder).
        #[arg(long, default_value = "out/reproduce")]
        out: PathBuf,
        /// Replications per point (default: the study's, e.g. the paper's 100; at least 1).
        #[arg(long, allow_negative_numbers = true, value_parser = parse_runs)]
        runs: Option<u32>,
        /// A fast smoke version: few runs, few points.
        #[arg(long)]
        quick: bool,
        /// Parallel jobs (default: all cores; at most 4 per core).
        #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = parse_jobs)]
        jobs: usize,
    },
    /// Tell whether an output folder holds a complete set of results: its manifest.txt
    /// exists and every file it lists matches (exit status 0), or not (exit status 1).
    Verify {
        /// The output folder (of run, sweep, or a study of reproduce).
        dir: PathBuf,
    },
    /// Draw the figures of a run from its time series (the --out folder of `packetsim run`
    /// with simulation.sample_interval set): cwnd, srtt, delivery rate, queue length; or of a
    /// sweep (a folder with results.csv): a metric's mean against a parameter with 95% CIs.
    Plot {
        /// The run's output folder (timeseries_*.csv), or a sweep's (results.csv).
        dir: PathBuf,
        /// Sweeps: a metric to draw, or a pattern where `*` matches any text (repeatable;
        /// default `*goodput_bps`).
        #[arg(long)]
        metric: Vec<String>,
        /// Sweeps: the parameter on the x axis (default: the first that takes several values,
        /// numeric ones first).
        #[arg(long)]
        x: Option<String>,
        /// Where to write the figures (default: DIR/figures).
        #[arg(long)]
        out: Option<PathBuf>,
        /// svg, png or both.
        #[arg(long, value_enum, default_value = "both")]
        format: plot::Format,
    },
    /// Write DIR/index.html: one self-contained page of a run (summary, flows and queues
    /// tables, figures inline) from the --out folder of `packetsim run`.
    Report {
        /// The run's output folder (summary.json, flows.csv, ...).
        dir: PathBuf,
    },
    /// Run the fixed speed benchmarks and print events and packets per wall-second.
    Bench {
        /// dumbbell-10, dumbbell-100, all (those two), dumbbell-1000, dumbbell-10000,
        /// dumbbell-N, or atm-cells (study 1's cell-level main experiment: events are cells,
        /// 20 µs slots, so --duration 20 is 10^6 slots).
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
    /// Print a shell completion script, e.g. `packetsim completions bash > packetsim.bash`
    /// (bash: source it; zsh: save it as _packetsim on $fpath; fish: save it under
    /// ~/.config/fish/completions/).
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to standard output, e.g. `packetsim man | man -l -`, or
    /// write one page per command (packetsim.1, packetsim-run.1, ...) into --out.
    Man {
        /// Write the pages into this folder (created if needed) instead of printing one.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Run many commands in this one process (for the fuzz campaign, bench/fuzz.sh): reads
    /// one command a line from standard input, its arguments separated by tabs, runs it
    /// exactly as `packetsim ARGS` would (the same parsing, `dispatch` and error text) and
    /// after its output prints a line `\x01STATUS\tMESSAGE` (status 101: it panicked).
    #[command(hide = true)]
    Batch,
}

/// `packetsim sweep`: a sweep (or a shard of one), or `sweep merge`.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct SweepCommand {
    #[command(subcommand)]
    action: Option<SweepAction>,
    #[command(flatten)]
    args: SweepArgs,
}

#[derive(Subcommand)]
enum SweepAction {
    /// Merge the stores of sweep shards (or whole sweeps) into OUT, each run exactly once,
    /// and write OUT/results.csv; missing runs are reported, never invented.
    Merge {
        /// Output folder (created if needed; runs already stored there count as an input).
        out: PathBuf,
        /// The shards' output folders (each has sweep.json and results.sqlite).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
}

#[derive(clap::Args)]
struct SweepArgs {
    /// The scenario (TOML).
    #[arg(required = true)]
    file: Option<PathBuf>,
    /// A swept parameter: PATH=V1,V2,... (repeatable; the grid is their product).
    #[arg(long = "param", value_name = "PATH=V1,V2,...")]
    params: Vec<Param>,
    /// Fixed overrides applied before the sweep (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<Override>,
    /// Replications per grid point (at least 1).
    #[arg(long, default_value_t = 10, allow_negative_numbers = true, value_parser = parse_runs)]
    runs: u32,
    /// Parallel jobs (default: all cores; at most 4 per core).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = parse_jobs)]
    jobs: usize,
    /// Base seed, 0 to 2^64-1 (default: the scenario's simulation.seed).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_seed)]
    seed: Option<u64>,
    /// Output folder: results.sqlite (the resumable store), sweep.json, results.csv, runs.csv
    /// (like `run`'s out/run and `reproduce`'s out/reproduce, a default under out/).
    #[arg(long, default_value = "out/sweep")]
    out: Option<PathBuf>,
    /// Memory budget for a run's flows and time series, e.g. 2GiB (a run estimated to need
    /// more is refused before it starts; parallel runs share it).
    #[arg(long, default_value = "2GiB", value_parser = parse_max_memory)]
    max_memory: u64,
    /// A folder, besides the scenario's own, that files the scenario names (size_cdf) may be
    /// read from (repeatable).
    #[arg(long = "allow-dir", value_name = "DIR")]
    allow_dir: Vec<PathBuf>,
    /// Most runs (grid points x --runs) a sweep may ask for.
    #[arg(long, default_value_t = experiment::limits::MAX_RUNS)]
    max_runs: u64,
    /// Compute only shard I of N (0 ≤ I < N): the runs whose number (point × runs +
    /// replication) is I mod N, with the whole sweep's seeds. Writes the store and sweep.json
    /// but no CSV; join the shards with `packetsim sweep merge OUT DIR...`.
    #[arg(long, value_name = "I/N", conflicts_with = "emit")]
    shard: Option<experiment::Shard>,
    /// Run nothing; write job scripts into OUT/slurm instead: `slurm` = an array job of
    /// --shards tasks (each `--shard I/N`), a merge job depending on it, and submit.sh.
    #[arg(long, value_enum)]
    emit: Option<Emit>,
    /// Array tasks (shards) of the emitted job (1 to 10000).
    #[arg(long, default_value_t = 4, requires = "emit",
          value_parser = clap::value_parser!(u32).range(1..=10000))]
    shards: u32,
    /// Slurm --time per task, e.g. 01:00:00.
    #[arg(long, requires = "emit", value_name = "TIME")]
    slurm_time: Option<String>,
    /// Slurm --mem per task, e.g. 2G.
    #[arg(long, requires = "emit", value_name = "MEM")]
    slurm_mem: Option<String>,
    /// Slurm --cpus-per-task (each task's --jobs).
    #[arg(long, requires = "emit", default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    slurm_cpus: u32,
    /// Slurm --partition.
    #[arg(long, requires = "emit", value_name = "NAME")]
    slurm_partition: Option<String>,
    /// Slurm --account.
    #[arg(long, requires = "emit", value_name = "NAME")]
    slurm_account: Option<String>,
    /// Slurm --job-name prefix (jobs are PREFIX-sweep and PREFIX-merge).
    #[arg(
        long,
        requires = "emit",
        default_value = "packetsim",
        value_name = "NAME"
    )]
    slurm_job_name: String,
}

/// What `sweep --emit` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Emit {
    /// Slurm batch scripts (an array job and a dependent merge job).
    Slurm,
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

/// A whole number as typed on the command line (wide and signed, so that `-1` or 2^64 is
/// named as out of range by [`experiment::limits`]).
fn whole_number(s: &str, what: &str) -> Result<i128, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("expected a whole number of {what}; got {:?}", cap(s)))
}

/// A command-line value shown in a message: at most 40 characters of it.
fn cap(s: &str) -> String {
    scenario::files::excerpt(s).trim_matches('"').to_owned()
}

/// `--jobs`: 0 (all cores) up to 4 per core; more would only add threads that wait. The same
/// limit as the Python API's `jobs=` ([`experiment::limits::jobs`]).
fn parse_jobs(s: &str) -> Result<usize, String> {
    experiment::limits::jobs(whole_number(s, "jobs (0 = all cores)")?)
}

/// `--runs`: 1 to 2^32 - 1 replications ([`experiment::limits::runs`], as the Python API's).
fn parse_runs(s: &str) -> Result<u32, String> {
    experiment::limits::runs(whole_number(s, "runs")?)
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
    // The generated scenario writes the duration as `{v}s`: it must be whole nanoseconds.
    packetsim::units::parse_dur(&format!("{v}s"))?;
    Ok(v)
}

/// `--max-memory`: a byte count such as `2GiB` (the scenario's byte units).
fn parse_max_memory(s: &str) -> Result<u64, String> {
    packetsim::units::parse_bytes(s)
}

/// Refuses a run that would not fit in `max_memory` (see `--max-memory`). A scenario is run
/// only if it makes a flow and fits the memory budget ([`experiment::limits::admit`], as the
/// Python API).
fn budget(sc: &Scenario, max_memory: u64) -> Result<(), String> {
    experiment::limits::admit(sc, max_memory).map_err(|e| e.to_string())
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
    if let Cmd::Batch = cli.cmd {
        return batch();
    }
    let (status, msg) = outcome(dispatch(cli.cmd));
    if let Some(msg) = msg {
        warn(format_args!("{msg}"));
    }
    ExitCode::from(status)
}

/// How a command ends: its exit status and the message printed on standard error.
fn outcome(result: Result<(), Failure>) -> (u8, Option<String>) {
    match result {
        Ok(()) => (0, None),
        // The reader went away: stop quietly, with the status a shell gives a process ended
        // by SIGPIPE (128 + 13).
        Err(Failure::Stdout(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => (141, None),
        Err(Failure::Stdout(e)) => (1, Some(format!("error: writing to standard output: {e}"))),
        // No value is echoed whole, however long (issue 38).
        Err(Failure::Msg(msg)) => (
            1,
            Some(format!("error: {}", scenario::files::cap_echo(&msg))),
        ),
    }
}

/// `packetsim batch` (hidden): the commands on standard input, one a line with tab-separated
/// arguments, each parsed by the same parser as `main` and run by the same [`dispatch`] and
/// [`outcome`], so a fuzz campaign exercises the command line's code without starting a
/// process per case. A panic is caught and reported (status 101) instead of ending the
/// batch; an abort or a hang ends or stalls the process, which the caller detects.
fn batch() -> ExitCode {
    use std::io::{BufRead as _, Write as _};
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let args = std::iter::once("packetsim").chain(line.split('\t'));
        let (status, msg) = match Cli::try_parse_from(args) {
            Err(e) => (
                e.exit_code().clamp(0, 255) as u8,
                Some(e.render().to_string()),
            ),
            Ok(cli) => {
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dispatch(cli.cmd))) {
                    Ok(r) => outcome(r),
                    Err(p) => {
                        let what = p
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        (101, Some(format!("panicked: {what}")))
                    }
                }
            }
        };
        let msg = msg.unwrap_or_default().trim_end().replace('\n', "\\n");
        let mut out = std::io::stdout().lock();
        if writeln!(out, "\x01{status}\t{msg}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn load(file: &Path, set: &[Override], limits: &scenario::Limits) -> Result<Scenario, String> {
    scenario::load_file_with(file, set, limits).map_err(|e| e.to_string())
}

fn dispatch(cmd: Cmd) -> Result<(), Failure> {
    match cmd {
        Cmd::Batch => Err(
            "batch reads commands from standard input; it cannot be nested"
                .to_string()
                .into(),
        ),
        Cmd::Check {
            file,
            set,
            max_memory,
            allow_dir,
        } => {
            let limits = scenario::Limits {
                max_memory,
                allow_dirs: allow_dir,
            };
            let sc = load(&file, &set, &limits)?;
            budget(&sc, max_memory)?;
            scenario::check(&sc).map_err(|e| e.to_string())?;
            say!(
                "{}: ok ({} nodes, {} links, {} flows)",
                file.display(),
                sc.nodes.len(),
                sc.links.len(),
                sc.flow_count()
            );
            Ok(())
        }
        Cmd::Run {
            file,
            set,
            seed,
            out,
            quiet,
            progress,
            pcap,
            trace,
            max_memory,
            allow_dir,
        } => {
            let limits = scenario::Limits {
                max_memory,
                allow_dirs: allow_dir,
            };
            let sc = load(&file, &set, &limits)?;
            budget(&sc, max_memory)?;
            let _lock = experiment::lock_dir(&out).map_err(|e| e.to_string())?;
            let seed = seed.unwrap_or(sc.simulation.seed);
            let pcap = pcap.or_else(|| sc.trace.pcap.then(|| out.join("pcap")));
            let trace = trace.or_else(|| sc.trace.events.then(|| out.join("trace")));
            // Every capture folder is locked (one writer each), all before any set begins,
            // so a refused run leaves every folder as it was. A capture folder outside OUT
            // is an output folder of its own, a set with its own manifest; one inside OUT
            // belongs to OUT's set. Folders are compared resolved, however they are spelled.
            let out_at = resolve(&out)?;
            let mut captures: Vec<(PathBuf, &PathBuf)> = Vec::new();
            let mut _locks = Vec::new();
            for dir in pcap.iter().chain(&trace) {
                let at = resolve(dir)?;
                if at != out_at && !captures.iter().any(|(c, _)| *c == at) {
                    _locks.push(experiment::lock_dir(dir).map_err(|e| e.to_string())?);
                    captures.push((at, dir));
                }
            }
            let mut sets = vec![begin_set(&out)?];
            for (at, dir) in &captures {
                if !at.starts_with(&out_at) {
                    sets.push(begin_set(dir)?);
                }
            }
            let mut shown = RunProgress::new(progress, quiet);
            let shown_any = shown.is_some();
            let mut update = |now, end| {
                if let Some(p) = shown.as_mut() {
                    p.update(now, end);
                }
            };
            let report_to: Option<&mut dyn FnMut(_, _)> = match shown_any {
                true => Some(&mut update),
                false => None,
            };
            let (outcome, traced) = scenario::run_traced_with_progress(
                &sc,
                seed,
                pcap.as_deref(),
                trace.as_deref(),
                report_to,
            )?;
            if let Some(p) = shown.as_mut() {
                p.finish(outcome.world.span(), outcome.world.end());
            }
            drop(shown);
            report::write_run(&out, &outcome.summary, &outcome.world)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            report::write_atomic(&out.join("scenario.toml"), &sc.text)
                .map_err(|e| format!("{}: {e}", out.display()))?;
            for path in traced
                .pcap_files
                .iter()
                .map(|f| &f.0)
                .chain(traced.events_file.iter().map(|f| &f.0))
            {
                sets[0].add(path);
            }
            for s in sets {
                commit_set(s)?;
            }
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
        Cmd::Sweep(SweepCommand {
            action: Some(SweepAction::Merge { out, dirs }),
            ..
        }) => {
            let _lock = experiment::lock_dir(&out).map_err(|e| e.to_string())?;
            let set = begin_set(&out)?;
            let report = experiment::merge(&out, &dirs).map_err(|e| e.to_string())?;
            if let Some(text) = dirs
                .iter()
                .find_map(|d| std::fs::read_to_string(d.join("scenario.toml")).ok())
            {
                report::write_atomic(&out.join("scenario.toml"), &text)
                    .map_err(|e| format!("{}: {e}", out.display()))?;
            }
            commit_set(set)?;
            say!(
                "merged {} runs from {} folders ({} found twice, checked equal); wrote {}",
                report.runs,
                dirs.len(),
                report.duplicates,
                out.join("results.csv").display()
            );
            Ok(())
        }
        Cmd::Sweep(SweepCommand { args, .. }) => sweep_cmd(args),
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
            let _lock = experiment::lock_dir(&out).map_err(|e| e.to_string())?;
            let opts = ReproduceOptions {
                out,
                runs,
                quick,
                jobs,
                progress: true,
            };
            let all = study == "all";
            let mut done = Vec::new();
            for s in chosen {
                warn(format_args!("reproducing {}: {}", s.name, s.title));
                // Each study's folder is a set: a killed reproduction leaves it without a
                // manifest; its stores keep the finished runs for the next attempt.
                let set = begin_set(&opts.out.join(s.name))?;
                let o = packetsim::studies::reproduce(s, &opts)?;
                study_html::study_page(&opts.out.join(s.name), s, all)?;
                commit_set(set)?;
                let beyond = if o.beyond.total() > 0 {
                    format!(
                        "; extensions and sensitivities: {} hold, {} do not, {} not decidable",
                        o.beyond.holds, o.beyond.fails, o.beyond.undecided
                    )
                } else {
                    String::new()
                };
                say!(
                    "{}: shape checks of the paper's claims: {} hold, {} do not, {} not decidable\
                     {beyond}{}; \
                     report: {}",
                    o.name,
                    o.paper.holds,
                    o.paper.fails,
                    o.paper.undecided,
                    if quick {
                        " (quick mode: indicative only)"
                    } else {
                        ""
                    },
                    o.report.display()
                );
                done.push((s, o));
            }
            if all {
                let p = study_html::reproduce_index(&opts.out, &done, quick)?;
                say!("index of every study: {}", p.display());
            }
            Ok(())
        }
        Cmd::Verify { dir } if !dir.is_dir() => Err(format!(
            "{}: {}",
            dir.display(),
            if dir.exists() {
                "not a folder: verify reads an output folder of run, sweep or reproduce"
            } else {
                "no such folder"
            }
        )
        .into()),
        Cmd::Verify { dir } => match experiment::verify(&dir) {
            Ok(entries) => {
                say!("{}: complete ({} files)", dir.display(), entries.len());
                Ok(())
            }
            Err(e) => Err(e.to_string().into()),
        },
        Cmd::Report { dir } => {
            let written = derived(&dir, || Ok(vec![html::run_report(&dir)?]))?;
            for p in written {
                say!("wrote {}", p.display());
            }
            Ok(())
        }
        Cmd::Plot {
            dir,
            metric,
            x,
            out,
            format,
        } => {
            let out = out.unwrap_or_else(|| dir.join("figures"));
            let sweep = dir.join("results.csv").is_file();
            if !sweep && (!metric.is_empty() || x.is_some()) {
                return Err(format!(
                    "{}: --metric and --x are for a sweep's folder (results.csv); this folder \
                     has none",
                    dir.display()
                )
                .into());
            }
            let written = derived(&dir, || {
                Ok(if sweep {
                    sweep_plot::plot_sweep(&dir, &out, format, &metric, x.as_deref())?
                } else {
                    plot::plot(&dir, &out, format)?
                })
            })?;
            for p in written {
                say!("wrote {}", p.display());
            }
            Ok(())
        }
        Cmd::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "packetsim", &mut buf);
            say_raw!("{}", String::from_utf8_lossy(&buf));
            Ok(())
        }
        Cmd::Man { out: None } => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut buf)
                .map_err(|e| format!("rendering the man page: {e}"))?;
            say_raw!("{}", String::from_utf8_lossy(&buf));
            Ok(())
        }
        Cmd::Man { out: Some(dir) } => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("creating {}: {e}", dir.display()))?;
            clap_mangen::generate_to(Cli::command(), &dir)
                .map_err(|e| format!("writing man pages into {}: {e}", dir.display()))?;
            say!("wrote man pages into {}", dir.display());
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

fn sweep_cmd(args: SweepArgs) -> Result<(), Failure> {
    let SweepArgs {
        file,
        params,
        set,
        runs,
        jobs,
        seed,
        out,
        max_memory,
        allow_dir,
        max_runs,
        shard,
        emit,
        shards,
        slurm_time,
        slurm_mem,
        slurm_cpus,
        slurm_partition,
        slurm_account,
        slurm_job_name,
    } = args;
    let (Some(file), Some(out)) = (file, out) else {
        return Err("sweep: a scenario file is required".to_string().into());
    };
    // The grid's size is counted, not built: 10^12 points must not be materialised.
    experiment::limits::grid_runs(&params, runs, max_runs).map_err(|e| format!("--param: {e}"))?;
    // Runs in parallel share the budget.
    let parallel = experiment::limits::parallel(jobs);
    let per_run = experiment::limits::per_run_memory(max_memory, jobs);
    let budget = |sc: &Scenario| {
        experiment::limits::admit(sc, per_run).map_err(|e| {
            format!("{e} (--max-memory is shared by {parallel} parallel runs, --jobs)")
        })
    };
    let limits = scenario::Limits {
        max_memory: per_run,
        allow_dirs: allow_dir,
    };
    let sc = load(&file, &set, &limits)?;
    budget(&sc)?;
    for p in &params {
        for v in &p.values {
            let mut all = set.clone();
            all.push(Override {
                path: p.path.clone(),
                value: v.clone(),
            });
            let e = |e: String| format!("--param {}={v}: {e}", p.path);
            let sc = load(&file, &all, &limits).map_err(e)?;
            budget(&sc).map_err(e)?;
        }
    }
    if let Some(Emit::Slurm) = emit {
        let abs = |p: &Path| std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()));
        std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let out = abs(&out)?;
        let mut sweep_args = vec![abs(&file)?.display().to_string()];
        for p in &params {
            sweep_args.extend(["--param".to_string(), p.to_string()]);
        }
        for o in &set {
            sweep_args.extend(["--set".to_string(), o.to_string()]);
        }
        for d in &limits.allow_dirs {
            sweep_args.extend(["--allow-dir".to_string(), abs(d)?.display().to_string()]);
        }
        sweep_args.extend(["--runs".to_string(), runs.to_string()]);
        let base = seed.unwrap_or(sc.simulation.seed);
        sweep_args.extend(["--seed".to_string(), base.to_string()]);
        let exe = std::env::current_exe().map_err(|e| format!("the packetsim executable: {e}"))?;
        let res = slurm::Resources {
            time: slurm_time,
            mem: slurm_mem,
            cpus: slurm_cpus,
            partition: slurm_partition,
            account: slurm_account,
            job_name: slurm_job_name,
        };
        let scripts = slurm::scripts(&exe, &sweep_args, &out, shards, &res);
        std::fs::create_dir_all(&scripts.dir)
            .map_err(|e| format!("{}: {e}", scripts.dir.display()))?;
        for (name, text) in &scripts.files {
            let path = scripts.dir.join(name);
            report::write_atomic(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            make_executable(&path)?;
        }
        say!(
            "wrote {0}/sweep.sbatch (array of {shards} tasks), {0}/merge.sbatch and {0}/submit.sh; \
             submit with: bash {0}/submit.sh",
            scripts.dir.display()
        );
        return Ok(());
    }
    let _lock = experiment::lock_dir(&out).map_err(|e| e.to_string())?;
    let out_set = begin_set(&out)?;
    // Keyed by the file's name and the effective text (after --set), not by the path as
    // typed: `x.toml`, `./x.toml` and `/abs/x.toml` resume the same runs (and every shard
    // of a sweep shares the key wherever its copy of the file sits).
    let label = file
        .file_name()
        .map_or_else(|| sc.origin.clone(), |n| n.to_string_lossy().into_owned());
    let spec = SweepSpec {
        experiment_key: experiment::experiment_key(&label, &sc.text),
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
    let shard = shard.unwrap_or(experiment::Shard::WHOLE);
    let report = experiment::sweep_sharded(&spec, Some(shard), |point, seed| {
        let mut all = set.clone();
        all.extend(point.assignments.iter().map(|(k, v)| Override {
            path: k.clone(),
            value: v.clone(),
        }));
        let sc = load(&file, &all, &limits)?;
        let o = scenario::run(&sc, seed).map_err(|e| e.to_string())?;
        Ok(RunOutput {
            summary_json: o.summary.to_json(),
            metrics: o.summary.metrics(),
        })
    })
    .map_err(|e| e.to_string())?;
    commit_set(out_set)?;
    if shard.count > 1 {
        say!(
            "shard {shard} of {} grid points x {} runs: {} computed, {} reused from the store \
             in {}; merge the shards with `packetsim sweep merge OUT DIR...`",
            report.points.len(),
            runs,
            report.computed,
            report.reused,
            out.display()
        );
    } else {
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
                "warning: {}",
                experiment::identical_replications_warning(runs, p)
            ));
        }
    }
    Ok(())
}

/// Starts the set of files a command writes into `dir` (see `experiment::manifest`).
fn begin_set(dir: &Path) -> Result<experiment::OutputSet, String> {
    experiment::OutputSet::begin(dir).map_err(|e| e.to_string())
}

/// Writes files derived from the results in `dir` (figures, the report page) with `write`.
/// When `dir` holds a complete output set, the new files inside `dir` join it: the manifest
/// is rewritten over the set's files and them, so `verify` checks them too, and the next
/// `run`/`sweep` into `dir` removes them with the rest of the old set (a fresh folder, never
/// figures of an earlier run beside new results). If `write` fails, the set is committed as
/// it was. A folder without a complete set (written by hand, or interrupted) gets the files
/// and no manifest.
fn derived(
    dir: &Path,
    write: impl FnOnce() -> Result<Vec<PathBuf>, Failure>,
) -> Result<Vec<PathBuf>, Failure> {
    let _lock = experiment::lock_dir(dir).map_err(|e| e.to_string())?;
    let Ok(entries) = experiment::verify(dir) else {
        return write();
    };
    let set = begin_set(dir)?;
    for e in &entries {
        set.add(&dir.join(&e.path));
    }
    let written = write();
    if let Ok(files) = &written {
        for f in files {
            set.add(f);
        }
    }
    commit_set(set)?;
    written
}

/// Writes the set's manifest, last.
fn commit_set(set: experiment::OutputSet) -> Result<(), String> {
    set.commit().map(drop).map_err(|e| e.to_string())
}

/// The folder `p` resolved (created if missing): one spelling for every way of writing it.
fn resolve(p: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
    std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()))
}

/// chmod +x (scripts the user runs directly).
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut perm = std::fs::metadata(path).map_err(err)?.permissions();
    perm.set_mode(perm.mode() | 0o111);
    std::fs::set_permissions(path, perm).map_err(err)
}

/// `packetsim run`'s progress on standard error: an indicatif bar of the simulated time on a
/// terminal (unless --quiet), or with --progress elsewhere a line at every 10% (a log file or
/// a pipe gets no bar's control characters). `None` when nothing is shown.
enum RunProgress {
    Bar(indicatif::ProgressBar),
    Lines { next_tenth: u64 },
}

impl RunProgress {
    fn new(forced: bool, quiet: bool) -> Option<RunProgress> {
        use std::io::IsTerminal;
        let terminal = std::io::stderr().is_terminal();
        if terminal && (forced || !quiet) {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(scenario::PROGRESS_STEPS),
                indicatif::ProgressDrawTarget::stderr(),
            );
            let style = indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {msg}, ETA {eta}",
            )
            .expect("the template is valid");
            bar.set_style(style);
            Some(RunProgress::Bar(bar))
        } else if forced {
            Some(RunProgress::Lines { next_tenth: 1 })
        } else {
            None
        }
    }
}

impl RunProgress {
    /// The run has simulated up to `now` of `end`.
    fn update(&mut self, now: packetsim_kernel::Time, end: packetsim_kernel::Time) {
        let secs = |t: packetsim_kernel::Time| t.0 as f64 / 1e9;
        let permille = if end.0 == 0 {
            1000
        } else {
            (now.0 as u128 * 1000 / end.0 as u128).min(1000) as u64
        };
        match self {
            RunProgress::Bar(bar) => {
                bar.set_position(permille * scenario::PROGRESS_STEPS / 1000);
                bar.set_message(format!("{:.3} of {:.3} s simulated", secs(now), secs(end)));
            }
            RunProgress::Lines { next_tenth } => {
                while *next_tenth <= 10 && permille >= *next_tenth * 100 {
                    eprintln!(
                        "progress: {}% ({:.3} of {:.3} s simulated)",
                        *next_tenth * 10,
                        secs(now),
                        secs(end)
                    );
                    *next_tenth += 1;
                }
            }
        }
    }
}

impl RunProgress {
    /// The run is over at `span` (before `end` when its transfers all finished first).
    fn finish(&mut self, span: packetsim_kernel::Time, end: packetsim_kernel::Time) {
        if let RunProgress::Lines { next_tenth } = self {
            if *next_tenth <= 10 {
                eprintln!(
                    "progress: done, every transfer finished at {:.3} s (of at most {:.3} s)",
                    span.0 as f64 / 1e9,
                    end.0 as f64 / 1e9
                );
                *next_tenth = 11;
            }
        }
    }
}

impl Drop for RunProgress {
    fn drop(&mut self) {
        if let RunProgress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
