//! Issue 38, "the last ways in": each reproducer of the issue through the `packetsim` command,
//! under a 4 GiB address-space limit and a time limit (a hang fails the test instead of
//! stalling it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::GOOD;

#[path = "../../packetsim/tests/integration/mutate.rs"]
mod mutate;

const BIN: &str = env!("CARGO_BIN_EXE_packetsim");

/// Runs `packetsim ARGS` under `ulimit -v 4 GiB` and `timeout 60`: exit status 124 is a hang,
/// a signal an abort.
fn packetsim(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4194304; exec timeout 60 \"$@\"")
        .arg("sh")
        .arg(BIN)
        .args(args)
        .output()
        .expect("runs")
}

/// `packetsim ARGS` must fail cleanly (exit 1, or 2 for a flag's value refused while parsing
/// the command line; one `error:` message, no abort or hang); returns its standard error.
fn refused(args: &[&str]) -> String {
    let out = packetsim(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_ne!(out.status.code(), Some(124), "{args:?} hung: {stderr}");
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{args:?}: {:?} {stderr}",
        out.status
    );
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    stderr
}

fn tmp(name: &str) -> PathBuf {
    common::scratch("i38", name)
}

fn repo(p: &str) -> String {
    format!("{}/../../{p}", env!("CARGO_MANIFEST_DIR"))
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

// Item 1: sizes that aborted `check` on allocation are refused naming the key.
#[test]
fn huge_handoffs_and_switch_buffers_are_refused_naming_the_key() {
    for (file, set, key) in [
        (
            "scenarios/micromobility.toml",
            "mobility.handoffs=4294967295",
            "mobility.handoffs",
        ),
        (
            "scenarios/atm-two-senders.toml",
            "links.cells.switch_buffer=4294967295",
            "links.cells.switch_buffer",
        ),
    ] {
        let e = refused(&["check", &repo(file), "--set", set]);
        assert!(e.contains(&format!(": {key}: ")), "{e}");
        assert!(e.contains("more than the budget of 2048.0 MiB"), "{e}");
    }
}

// Item 2: Poisson arrivals and links count against the budget.
#[test]
fn poisson_arrivals_and_links_count_against_the_budget() {
    let e = refused(&[
        "check",
        &repo("scenarios/workloads/websearch-dumbbell.toml"),
        "--set",
        "flows.web.arrival_rate=33000",
    ]);
    assert!(e.contains(": flows.web.arrival_rate: "), "{e}");
    let dir = tmp("links");
    let mut t = String::from("[simulation]\nduration = \"1s\"\n\n[nodes.n0]\n");
    for i in 1..=20_000 {
        t.push_str(&format!(
            "[nodes.n{i}]\n[links.l{i}]\na = \"n{}\"\nb = \"n{i}\"\nrate = \"1Mbps\"\n\
             delay = \"1ms\"\n",
            i - 1
        ));
    }
    t.push_str("[flows.f]\nfrom = \"n0\"\nto = \"n1\"\n");
    let f = dir.join("chain.toml");
    std::fs::write(&f, t).unwrap();
    let e = refused(&["check", f.to_str().unwrap(), "--max-memory", "256MiB"]);
    // The chain's inner nodes have two links each: each holds a route to every address, the
    // largest part (19999 x 20001 x 4 bytes).
    assert!(
        e.contains(
            ": nodes.n19999: route tables of 19999 nodes (those without exactly one link) \
                    to 20001 addresses need about 1525.9 MiB"
        ),
        "{e}"
    );
    let e = refused(&["check", f.to_str().unwrap(), "--max-memory", "1536MiB"]);
    assert!(e.contains(", and the whole run about "), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

// Items 3 and 4: a FIFO as the scenario or as its CDF does not block; a scenario's files stay
// in its folder and their contents are never shown.
#[test]
fn special_files_and_files_outside_the_folder_are_refused() {
    let dir = tmp("files");
    let fifo = dir.join("fifo.toml");
    mkfifo(&fifo);
    let e = refused(&["check", fifo.to_str().unwrap()]);
    assert!(e.contains("expected a regular file; this is a FIFO"), "{e}");
    let e = refused(&["check", "/dev/zero"]);
    assert!(e.contains("this is a device"), "{e}");
    let e = refused(&["check", dir.to_str().unwrap()]);
    assert!(e.contains("this is a folder"), "{e}");

    let poisson = |cdf: &str| {
        GOOD.replace(
            "app = \"file\"\nsize = \"100KB\"",
            &format!("app = \"poisson\"\narrival_rate = 10.0\nsize_cdf = {cdf:?}"),
        )
    };
    let f = dir.join("p.toml");
    mkfifo(&dir.join("pipe.cdf"));
    for (cdf, want) in [
        ("pipe.cdf", "this is a FIFO"),
        ("/etc/passwd", "outside the scenario's folder"),
        (
            "../../../../../../etc/passwd",
            "outside the scenario's folder",
        ),
    ] {
        std::fs::write(&f, poisson(cdf)).unwrap();
        let e = refused(&["check", f.to_str().unwrap()]);
        assert!(
            e.contains(": flows.f.size_cdf: ") && e.contains(want),
            "{cdf}: {e}"
        );
        assert!(!e.contains("root:"), "{e}");
    }
    // A folder named on the command line is allowed; a bad line shows a short excerpt only.
    let data = tmp("files-data");
    std::fs::write(data.join("bad.cdf"), format!("{}\n", "s3cr3t:".repeat(100))).unwrap();
    std::fs::write(&f, poisson(data.join("bad.cdf").to_str().unwrap())).unwrap();
    let e = refused(&["check", f.to_str().unwrap()]);
    assert!(e.contains("outside the scenario's folder"), "{e}");
    let allow = data.to_str().unwrap();
    let e = refused(&["check", f.to_str().unwrap(), "--allow-dir", allow]);
    assert!(
        e.contains("expected two numbers") && e.contains("(16 of 700 characters)"),
        "{e}"
    );
    assert!(e.matches("s3cr3t").count() <= 3, "{e}");
    std::fs::write(data.join("ok.cdf"), "1000 0.5\n2000 1\n").unwrap();
    std::fs::write(&f, poisson(data.join("ok.cdf").to_str().unwrap())).unwrap();
    let ok = packetsim(&["check", f.to_str().unwrap(), "--allow-dir", allow]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&data);
}

// Item 3: non-finite and absurd values in results.csv and series files are located errors.
#[test]
fn plot_and_report_refuse_infinite_and_absurd_values() {
    let dir = tmp("plot");
    let sweep = dir.join("sweep");
    std::fs::create_dir_all(&sweep).unwrap();
    std::fs::write(
        sweep.join("results.csv"),
        "links.ab.loss,metric,n,missing,mean,ci95_low,ci95_high\n\
         0,x,1,0,1,0.5,1.5\n0.01,x,1,0,inf,0.5,1.5\n",
    )
    .unwrap();
    let e = refused(&["plot", sweep.to_str().unwrap(), "--metric", "x"]);
    assert!(
        e.contains("results.csv: record 3: column `mean`: expected a finite number"),
        "{e}"
    );

    let f = dir.join("s.toml");
    std::fs::write(
        &f,
        GOOD.replace(
            "duration = \"2s\"",
            "duration = \"2s\"\nsample_interval = \"100ms\"",
        ),
    )
    .unwrap();
    let out = dir.join("run");
    let o = out.to_str().unwrap();
    let r = packetsim(&["run", f.to_str().unwrap(), "--out", o, "--quiet"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let csv = out.join("timeseries_flows.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = lines[2].find(",f,").unwrap() + 3;
    let end = lines[2][at..].find(',').map_or(lines[2].len(), |e| at + e);
    lines[2].replace_range(at..end, "1e308");
    std::fs::write(&csv, lines.join("\n")).unwrap();
    for cmd in ["plot", "report"] {
        let e = refused(&[cmd, o]);
        assert!(
            e.contains(
                "timeseries_flows.csv:3: column `cwnd_bytes`: expected a finite number \
                        of magnitude at most 1e15, found `1e308`"
            ),
            "{cmd}: {e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// Items 6 to 8: silent rounding, --runs -1, verify of a missing folder, long values.
#[test]
fn rounding_ranges_missing_folders_and_long_values_are_named() {
    let dir = tmp("misc");
    let f = dir.join("g.toml");
    std::fs::write(&f, GOOD).unwrap();
    let g = f.to_str().unwrap();
    let e = refused(&["check", g, "--set", "links.ab.rate=\"0.5bps\""]);
    assert!(
        e.contains(
            "links.ab.rate: expected a whole number of bits per second, 0 or 1bps to \
                    10Tbps; got \"0.5bps\""
        ),
        "{e}"
    );
    let e = refused(&["check", g, "--set", "links.ab.delay=\"1.5ns\""]);
    assert!(
        e.contains("links.ab.delay: expected a whole number of nanoseconds"),
        "{e}"
    );
    let o = dir.join("out");
    let o = o.to_str().unwrap();
    let e = refused(&["sweep", g, "--runs", "-1", "--out", o]);
    assert!(
        e.contains("runs must be from 1 to 4294967295; got -1"),
        "{e}"
    );
    assert!(!e.contains("unexpected argument"), "{e}");
    let e = refused(&["reproduce", "all", "--runs", "-1", "--out", o]);
    assert!(e.contains("runs must be from 1"), "{e}");
    let missing = dir.join("no-such-folder");
    let e = refused(&["verify", missing.to_str().unwrap()]);
    assert!(e.contains("no-such-folder: no such folder"), "{e}");
    let long = "9".repeat(100_000);
    for args in [
        vec!["check", g, "--set", &format!("links.ab.rate=\"{long}bps\"")],
        vec!["check", g, "--set", &format!("links.ab.delay=\"{long}\"")],
        vec!["check", g, "--set", &format!("flows.f.from=\"{long}\"")],
    ] {
        let e = refused(&args);
        assert!(e.len() < 2000, "{} bytes: {}", e.len(), &e[..300]);
    }
    assert!(!Path::new(o).exists(), "nothing was run");
    let _ = std::fs::remove_dir_all(&dir);
}

// Item 7: after the store loses its run_metrics table, a resumed sweep is refused (it exited
// 0 with a header-only results.csv).
#[test]
fn a_resumed_sweep_on_a_damaged_store_is_refused() {
    let dir = tmp("store");
    let f = dir.join("g.toml");
    std::fs::write(&f, GOOD).unwrap();
    let g = f.to_str().unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let args = [
        "sweep",
        g,
        "--param",
        "links.ab.loss=0,0.01",
        "--runs",
        "1",
        "--out",
        o,
    ];
    let r = packetsim(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let conn = rusqlite::Connection::open(out.join("results.sqlite")).unwrap();
    conn.execute_batch("DROP TABLE run_metrics;").unwrap();
    drop(conn);
    let e = refused(&args);
    assert!(e.contains("table run_metrics is missing"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// How one command of a `packetsim batch` process ended.
#[derive(Debug)]
enum Ended {
    /// Its exit status and error message, as `packetsim ARGS` gives them (101: a panic).
    Status(i32, String),
    /// The process died (an abort on allocation failure, a signal).
    Died(String),
    /// No answer within the time limit.
    Hung,
}

/// A `packetsim batch` process (the command line's parser, `dispatch` and error text, many
/// commands per process) under `ulimit -v 4 GiB`, niced.
struct Batch {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    answers: std::sync::mpsc::Receiver<String>,
}

impl Batch {
    fn start(stderr: &Path) -> Batch {
        use std::io::BufRead as _;
        use std::process::Stdio;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 4194304; exec nice -n 10 \"$@\" batch")
            .arg("sh")
            // bench/fuzz.sh runs a copy, so that rebuilding during a campaign changes nothing.
            .arg(std::env::var_os("PACKETSIM_FUZZ_BIN").unwrap_or_else(|| BIN.into()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(stderr).unwrap())
            .spawn()
            .expect("starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = std::io::BufReader::new(stdout);
            let mut line = Vec::new();
            while r.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                if let Some(a) = line.strip_prefix(b"\x01") {
                    let a = String::from_utf8_lossy(a).trim_end().to_owned();
                    if tx.send(a).is_err() {
                        break;
                    }
                }
                line.clear();
            }
        });
        Batch {
            child,
            stdin,
            answers,
        }
    }

    /// Runs `packetsim ARGS` in the batch, waiting at most `limit`.
    fn call(&mut self, args: &[&str], limit: std::time::Duration) -> Ended {
        use std::io::Write as _;
        use std::sync::mpsc::RecvTimeoutError;
        if writeln!(self.stdin, "{}", args.join("\t")).is_err() {
            return self.died();
        }
        let _ = self.stdin.flush();
        match self.answers.recv_timeout(limit) {
            Ok(a) => {
                let (status, msg) = a.split_once('\t').unwrap_or((&a, ""));
                Ended::Status(status.parse().unwrap_or(-1), msg.to_owned())
            }
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                Ended::Hung
            }
            Err(RecvTimeoutError::Disconnected) => self.died(),
        }
    }

    fn died(&mut self) -> Ended {
        Ended::Died(format!("{:?}", self.child.wait()))
    }

    /// Peak resident memory of the process so far, KiB (`VmHWM`).
    fn peak_kib(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            })
            .unwrap_or(0)
    }

    fn end(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

/// Whether `packetsim`'s error message for the scenario `path` names the file, a line and a
/// key: `error: PATH:LINE[:COLUMN]: KEY: what was expected`.
fn located(msg: &str, path: &str) -> bool {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let Some(rest) = msg
        .strip_prefix("error: ")
        .and_then(|m| m.strip_prefix(path))
        .and_then(|m| m.strip_prefix(':'))
    else {
        return false;
    };
    let n = digits(rest);
    if n == 0 {
        return false;
    }
    let mut rest = &rest[n..];
    // A column, for a syntax error.
    if let Some(r) = rest.strip_prefix(':').filter(|r| digits(r) > 0) {
        rest = &r[digits(r)..];
    }
    rest.strip_prefix(": ")
        .and_then(|r| r.split_once(": "))
        .is_some_and(|(key, _)| !key.trim().is_empty())
}

/// Issue 38's campaign, through the command line: seeded type-aware mutants of every shipped
/// scenario (the mutator of packetsim/tests/integration/mutate.rs) through `packetsim check`,
/// and those accepted and simulating at most 60 s through `packetsim run --quiet` (up to a
/// cap), in `packetsim batch` processes under `ulimit -v 4 GiB`. Fails on any panic, abort
/// (the process dies; it is restarted for the next mutant), hang (no answer within the
/// time limit), refusal without file, line and key, accepted value out of the documented
/// bounds (the library's reading of the same file, `mutate::out_of_range`) or run that
/// fails. Small by default; bench/fuzz.sh runs the long campaign in chunks:
/// `PACKETSIM_FUZZ_CASES`, `PACKETSIM_FUZZ_RUNS` (run cap), `PACKETSIM_FUZZ_SEED`,
/// `PACKETSIM_FUZZ_LIMIT_S` (per command, default 600; commands over 60 s are counted as
/// slow and named, not failed), `PACKETSIM_FUZZ_DIR` (where mutants
/// are written), `PACKETSIM_FUZZ_KEEP` (a folder to copy failing mutants into),
/// `PACKETSIM_FUZZ_BIN` (the `packetsim` to test, default this build's).
#[test]
fn mutants_through_check_and_run_never_panic_abort_or_hang() {
    use mutate::{env, mutant_home, mutate, out_of_range, seeds, Mix};
    let cases = env("PACKETSIM_FUZZ_CASES", 200);
    let max_runs = env("PACKETSIM_FUZZ_RUNS", 10);
    let seed = env("PACKETSIM_FUZZ_SEED", 1);
    let limit = std::time::Duration::from_secs(env("PACKETSIM_FUZZ_LIMIT_S", 600));
    let keep = std::env::var_os("PACKETSIM_FUZZ_KEEP").map(PathBuf::from);
    let base =
        std::env::var_os("PACKETSIM_FUZZ_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let dir = PathBuf::from(repo("scenarios"));
    let seeds = seeds(&dir);
    let home = mutant_home(
        &dir,
        base.join(format!("packetsim-clifuzz-{}-{seed}", std::process::id())),
    );
    let out = home.join("out");
    let log = home.join("stderr.log");
    let mut rng = Mix(seed);
    let mut batch = Batch::start(&log);
    let started = std::time::Instant::now();
    let (mut accepted, mut refused, mut runs, mut peak) = (0u64, 0u64, 0u64, 0u64);
    let mut failures: Vec<(&str, String)> = Vec::new();
    let mut slow: Vec<String> = Vec::new();
    for case in 0..cases {
        let (name, text) = &seeds[rng.below(seeds.len())];
        let bytes = mutate(text, &mut rng);
        let path = home.join(format!("mutant-{case}-{name}"));
        std::fs::write(&path, &bytes).unwrap();
        let p = path.to_str().unwrap();
        let mut failed = |class: &'static str, what: String| {
            if let Some(k) = &keep {
                let _ = std::fs::create_dir_all(k);
                let _ = std::fs::copy(&path, k.join(format!("seed{seed}-{class}-{case}-{name}")));
            }
            failures.push((
                class,
                format!("mutant {case} of {name} (seed {seed}): {what}"),
            ));
        };
        let mut ended = |batch: &mut Batch, args: &[&str], what: &str| -> Option<(i32, String)> {
            let t = std::time::Instant::now();
            let ended = batch.call(args, limit);
            let secs = t.elapsed().as_secs_f64();
            if secs > 60.0 {
                slow.push(format!("{what} of mutant {case} of {name}: {secs:.0} s"));
            }
            match ended {
                Ended::Status(101, msg) => failed("panic", format!("{what}: {msg}")),
                Ended::Status(s, msg) => return Some((s, msg)),
                Ended::Died(how) => failed("abort", format!("{what}: died: {how}")),
                Ended::Hung => failed("hang", format!("{what}: no answer in {limit:?}")),
            }
            peak = peak.max(batch.peak_kib());
            *batch = Batch::start(&log);
            None
        };
        match ended(&mut batch, &["check", p], "check") {
            None => {}
            Some((1, msg)) if located(&msg, p) => refused += 1,
            Some((0, _)) => {
                accepted += 1;
                // The library's reading of the same file, for the bounds oracle.
                match packetsim::scenario::load_file(&path, &[]) {
                    Err(e) => failed("differs", format!("check accepted, load_file: {e}")),
                    Ok(sc) => {
                        if let Some(what) = out_of_range(&sc) {
                            failed("out of range", format!("accepted out of range: {what}"));
                        } else if runs < max_runs && sc.simulation.duration.as_secs_f64() <= 60.0 {
                            runs += 1;
                            let o = out.to_str().unwrap();
                            match ended(&mut batch, &["run", p, "--out", o, "--quiet"], "run") {
                                None | Some((0, _)) => {}
                                Some((s, msg)) => failed("run error", format!("run: {s}: {msg}")),
                            }
                        }
                    }
                }
            }
            Some((s, msg)) => failed("unlocated", format!("check: {s}: {msg}")),
        }
        let _ = std::fs::remove_file(&path);
    }
    peak = peak.max(batch.peak_kib());
    batch.end();
    let mut classes: Vec<&str> = failures.iter().map(|f| f.0).collect();
    classes.sort();
    classes.dedup();
    let by_class: Vec<String> = classes
        .iter()
        .map(|c| format!("{} {c}", failures.iter().filter(|f| f.0 == *c).count()))
        .collect();
    println!(
        "cli fuzz: seed {seed}: {cases} mutants through check: {accepted} accepted ({runs} run), \
         {refused} refused with file, line and key; {} failures{}{}; {:.0} s, peak {peak} KiB; \
         {} slow (over 60 s){}",
        failures.len(),
        if by_class.is_empty() { "" } else { ": " },
        by_class.join(", "),
        started.elapsed().as_secs_f64(),
        slow.len(),
        if slow.is_empty() {
            String::new()
        } else {
            format!(": {}", slow.join("; "))
        }
    );
    let _ = std::fs::remove_dir_all(&home);
    assert!(
        failures.is_empty(),
        "{}",
        failures
            .iter()
            .map(|f| format!("{}: {}", f.0, f.1))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
