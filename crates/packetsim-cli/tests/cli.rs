//! The `packetsim` command end to end: bad input, run outputs, sweeps.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn packetsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .args(args)
        .output()
        .expect("runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("packetsim-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const GOOD: &str = r#"[simulation]
duration = "2s"

[nodes.a]
[nodes.b]

[links.ab]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"

[flows.f]
from = "a"
to = "b"
app = "file"
size = "100KB"
"#;

/// Writes GOOD with line `line` (1-based) replaced, runs `check`, and returns (exit ok, stderr).
fn check_with(dir: &Path, line: usize, replacement: &str) -> (bool, String) {
    let mut lines: Vec<&str> = GOOD.lines().collect();
    lines[line - 1] = replacement;
    let file = dir.join("bad.toml");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let out = packetsim(&["check", file.to_str().unwrap()]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn good_scenario_checks() {
    let dir = tmp("good");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let out = packetsim(&["check", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bad_input_names_file_line_and_key() {
    let dir = tmp("bad");
    let cases = [
        (10, "rat = \"10Mbps\"", ":10", "links.ab.rat"), // unknown key
        (10, "rate = \"10 Mbs\"", ":10", "links.ab.rate"), // malformed unit
        (11, "delay = \"-5ms\"", ":11", "links.ab.delay"), // negative delay
        (15, "to = \"nowhere\"", ":15", "flows.f.to"),   // unknown node
        (10, "# rate removed", ":7", "rate"),            // missing field: the table's line
    ];
    for (line, text, want_line, want_key) in cases {
        let (ok, err) = check_with(&dir, line, text);
        assert!(!ok, "{text}: accepted");
        assert!(err.contains("bad.toml"), "{text}: no file name in {err:?}");
        assert!(
            err.contains(want_line),
            "{text}: no line {want_line} in {err:?}"
        );
        assert!(
            err.contains(want_key),
            "{text}: no key {want_key} in {err:?}"
        );
        assert!(!err.contains("panicked"), "{text}: panic: {err}");
    }
}

#[test]
fn run_writes_the_summary_contract() {
    let dir = tmp("run");
    let file = dir.join("s.toml");
    std::fs::write(&file, GOOD).unwrap();
    let outdir = dir.join("out");
    let out = packetsim(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        outdir.to_str().unwrap(),
        "--seed",
        "3",
        "--set",
        "links.ab.loss=0.01",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(outdir.join("summary.json")).unwrap())
            .unwrap();
    for key in [
        "goodput_bps",
        "completion_time_s",
        "retransmits",
        "timeouts",
        "fast_retransmits",
    ] {
        assert!(v["flows"]["f"].get(key).is_some(), "flows.f.{key} missing");
    }
    assert!(v["flows"]["f"]["completion_time_s"].as_f64().unwrap() > 0.08);
    assert!(v["queues"]["ab:a->b"]["arrivals"].as_u64().unwrap() > 60);
    assert!(v["queues"]["ab:a->b"].get("drops").is_some());
    assert!(v["events"].as_u64().unwrap() > 0);
    assert!(v.get("wall_time_s").is_some());
    assert!(outdir.join("flows.csv").exists() && outdir.join("queues.csv").exists());
    let recorded = std::fs::read_to_string(outdir.join("scenario.toml")).unwrap();
    assert!(
        recorded.contains("loss = 0.01"),
        "the effective scenario, overrides applied: {recorded}"
    );
}

#[test]
fn sweep_results_do_not_depend_on_jobs_and_resume_skips_done_runs() {
    let dir = tmp("sweep");
    let file = dir.join("s.toml");
    std::fs::write(&file, GOOD).unwrap();
    let sweep = |out: &Path, jobs: &str| {
        let o = packetsim(&[
            "sweep",
            file.to_str().unwrap(),
            "--param",
            "links.ab.loss=0,0.02",
            "--param",
            "tcp.variant=reno,sack",
            "--runs",
            "3",
            "--jobs",
            jobs,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let (a, b) = (dir.join("j1"), dir.join("j2"));
    let first = sweep(&a, "1");
    assert!(first.contains("12 computed"), "{first}");
    sweep(&b, "2");
    let ra = std::fs::read_to_string(a.join("results.csv")).unwrap();
    let rb = std::fs::read_to_string(b.join("results.csv")).unwrap();
    assert_eq!(ra, rb);
    assert!(ra.contains("flows.f.completion_time_s"));
    let again = sweep(&a, "2");
    assert!(again.contains("0 computed, 12 reused"), "{again}");
}

/// Issue 12 item 7: a point whose replications are all identical is named in a warning;
/// `start_jitter` (or loss) makes them differ and the warning goes.
#[test]
fn identical_replications_warn_and_start_jitter_makes_them_differ() {
    let dir = tmp("identical");
    let file = dir.join("s.toml");
    std::fs::write(&file, GOOD).unwrap();
    let sweep = |out: &str, extra: &[&str]| {
        let out = dir.join(out);
        let mut args = vec![
            "sweep",
            file.to_str().unwrap(),
            "--param",
            "links.ab.loss=0,0.02",
            "--runs",
            "3",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = packetsim(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
        (String::from_utf8_lossy(&o.stderr).into_owned(), runs)
    };
    let (err, _) = sweep("plain", &[]);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].contains("all 3 replications of point#0 (links.ab.loss=0) gave identical"),
        "{err}"
    );
    let (err, runs) = sweep("jitter", &["--set", "flows.f.start_jitter=\"50ms\""]);
    assert!(!err.contains("warning:"), "{err}");
    // The jitter shows in the runs (runs.csv: loss,replication,seed,metric,value): three
    // different start times at loss 0.
    let starts: std::collections::HashSet<&str> = runs
        .lines()
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[0] == "0" && c[3] == "flows.f.start_s")
        .map(|c| c[4])
        .collect();
    assert_eq!(starts.len(), 3, "{runs}");
}

#[test]
fn bad_override_and_unknown_workload_fail_cleanly() {
    let dir = tmp("ovr");
    let file = dir.join("s.toml");
    std::fs::write(&file, GOOD).unwrap();
    let o = packetsim(&[
        "run",
        file.to_str().unwrap(),
        "--set",
        "links.ab.rate=fast",
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("links.ab.rate"), "{err}");
    let o = packetsim(&["bench", "--workload", "nope"]);
    assert!(!o.status.success());
}

#[test]
fn reproduce_quick_writes_figures_and_a_report_and_resumes() {
    let dir = tmp("repro");
    let out = dir.join("r");
    let args = [
        "reproduce",
        "all",
        "--quick",
        "--runs",
        "3",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = packetsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let root = out.join("sctp-multihoming");
    for f in [
        "fig2/figure.svg",
        "fig2/figure.csv",
        "fig2/results.csv",
        "fig3/figure.svg",
        "fig4/figure.svg",
        "fig5/figure.svg",
        "fig6/figure.svg",
        "fig6/figure.csv",
        "report.md",
    ] {
        assert!(root.join(f).exists(), "{f} missing");
    }
    let report = std::fs::read_to_string(root.join("report.md")).unwrap();
    for s in ["| S1 |", "| S7 |", "| S11 |", "| S15 |"] {
        assert!(
            report.contains(s),
            "{s} missing from the sctp report:\n{report}"
        );
    }
    let ds = out.join("diffserv-ecn");
    for f in [
        "fig2.svg",
        "fig3.svg",
        "fig4.svg",
        "fig5.svg",
        "fig8.svg",
        "fig9.svg",
        "table3.csv",
        "table4.csv",
        "runs/results.csv",
        "report.md",
    ] {
        assert!(ds.join(f).exists(), "diffserv-ecn/{f} missing");
    }
    let ds_report = std::fs::read_to_string(ds.join("report.md")).unwrap();
    for s in [
        "| S1 |",
        "| S6 |",
        "| S10 |",
        "Average OUT/IN packets ratio",
    ] {
        assert!(
            ds_report.contains(s),
            "{s} missing from the diffserv report"
        );
    }
    let csv = std::fs::read_to_string(root.join("fig2/figure.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 4 * 4,
        "4 transports x 4 loss points:\n{csv}"
    );
    // A second run finds every run in the store and writes the same figures.
    let o = packetsim(&args);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read_to_string(root.join("fig2/figure.csv")).unwrap(),
        csv
    );
}

#[test]
fn reproduce_unknown_study_fails_cleanly() {
    let o = packetsim(&["reproduce", "no-such-study"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("sctp-multihoming") && err.contains("diffserv-ecn"),
        "{err}"
    );
}

// Issue "Bad input never aborts": a closed pipe (`packetsim run ... | head -1`) ends the
// program quietly with the status a shell reports for SIGPIPE, never a panic.
#[test]
fn closed_stdout_ends_quietly_with_the_sigpipe_status() {
    use std::process::Stdio;
    let dir = tmp("pipe");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .args(["run", file.to_str().unwrap(), "--out"])
        .arg(dir.join("out"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away before anything is written
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

// Issue "Bad input never aborts": "stdout on /dev/full" is a clean error, not a panic.
#[cfg(target_os = "linux")]
#[test]
fn full_stdout_is_a_clean_error() {
    let dir = tmp("full");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .args(["run", file.to_str().unwrap(), "--out"])
        .arg(dir.join("out"))
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: writing to standard output"),
        "{stderr}"
    );
}

// Issue "Bad input never aborts": `--runs 0` is refused (it printed verdicts over no data),
// and `--jobs` is bounded by the cores (10000 threads hung a one-run sweep).
#[test]
fn zero_runs_and_absurd_jobs_are_refused_naming_the_flag() {
    let dir = tmp("runs0");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let f = file.to_str().unwrap();
    let o = dir.join("sweep");
    let o = o.to_str().unwrap();
    for args in [
        vec!["sweep", f, "--runs", "0", "--out", o],
        vec!["reproduce", "all", "--runs", "0", "--out", o],
        vec!["sweep", f, "--jobs", "10000", "--out", o],
    ] {
        let out = packetsim(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        let flag = if args.contains(&"--jobs") {
            "--jobs"
        } else {
            "--runs"
        };
        assert!(stderr.contains(flag), "{args:?}: {stderr}");
    }
    assert!(
        !Path::new(o).join("results.csv").exists(),
        "nothing was run"
    );
}

// Issue 16: `--seed -1` was answered as an unknown argument; it now says what a seed is.
#[test]
fn negative_seed_is_refused_as_a_seed() {
    let dir = tmp("seed");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let f = file.to_str().unwrap();
    let o = dir.join("out");
    let o = o.to_str().unwrap();
    for args in [
        vec!["run", f, "--seed", "-1", "--out", o],
        vec!["run", f, "--seed=-1", "--out", o],
        vec!["sweep", f, "--seed", "-7", "--out", o],
    ] {
        let out = packetsim(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains("--seed"), "{args:?}: {stderr}");
        assert!(stderr.contains("seed must be ≥ 0"), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("unexpected argument"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!Path::new(o).exists(), "nothing was run");
}

// Issue 16: `bench --duration 0` blamed an internal file name ("dumbbell-10:2"); the flag is
// now checked as given, and an impossible workload is refused before any output.
#[test]
fn bench_flags_are_checked_naming_the_flag() {
    for (args, flag) in [
        (vec!["bench", "--duration", "0"], "--duration"),
        (vec!["bench", "--duration", "-1"], "--duration"),
        (vec!["bench", "--duration", "nan"], "--duration"),
        (vec!["bench", "--duration", "1e308"], "--duration"),
        (vec!["bench", "--flows", "0"], "--flows"),
        (vec!["bench", "--flows", "2000000"], "--flows"),
        (
            vec![
                "bench",
                "--workload",
                "dumbbell-99999999",
                "--duration",
                "1",
            ],
            "--workload",
        ),
    ] {
        let out = packetsim(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(flag), "{args:?}: {stderr}");
        assert!(!stderr.contains("dumbbell-10:"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed output");
    }
}

// Issue 16: a file that is not UTF-8 is located (line, column, key) through the CLI too.
#[test]
fn invalid_utf8_is_located() {
    let dir = tmp("utf8");
    let file = dir.join("bad.toml");
    let mut bytes = GOOD.as_bytes().to_vec();
    let at = GOOD.find("10Mbps").unwrap();
    bytes[at] = 0xC3; // a lead byte followed by an ASCII digit
    std::fs::write(&file, &bytes).unwrap();
    let out = packetsim(&["check", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bad.toml:10:9: links.ab.rate: invalid TOML: the file is not UTF-8 text"),
        "{stderr}"
    );
}

// Issue 16 ("no panic outside bugs"): an error message to a closed standard error was a
// panic (exit 101) in `eprintln!`; the message is lost but the status is the error's.
#[test]
fn closed_stderr_is_not_a_panic() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .args(["check", "/nonexistent/x.toml"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take()); // the reader goes away before anything is written
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// Runs tshark with `args`, or `None` when it is not installed.
fn tshark(args: &[&str]) -> Option<String> {
    let out = Command::new("tshark").args(args).output().ok()?;
    assert!(
        out.status.success(),
        "tshark {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The pcap files of a run, opened by tshark (Debian's package): no malformed packet, no
/// expert error, IP/TCP/SCTP checksums good, and on the senders' first link (which sees every
/// transmission) tshark flags exactly the segments packetsim retransmitted, flow by flow.
#[test]
fn pcap_opens_in_tshark_with_sequence_analysis_matching_the_run() {
    if tshark(&["--version"]).is_none() {
        eprintln!(
            "SKIPPED pcap_opens_in_tshark...: tshark is not installed (apt-get install tshark); \
             the pcap files were not checked by tshark"
        );
        return;
    }
    let dir = tmp("pcap-tshark");
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let pcap = dir.join("pcap");
    let out = packetsim(&[
        "run",
        scenarios.join("dumbbell.toml").to_str().unwrap(),
        "--set",
        "simulation.duration=5s",
        "--set",
        "tcp.variant=\"sack\"",
        "--set",
        "tcp.timestamps=true",
        "--out",
        dir.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrote 6 pcap files"));
    let bad = "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0 \
               || tcp.checksum.status == 0 || sctp.checksum.status == 0";
    let check = |file: &Path| {
        let f = file.to_str().unwrap();
        let all = tshark(&["-r", f]).unwrap();
        assert!(all.lines().count() > 0, "{f} is empty");
        let errs = tshark(&[
            "-r",
            f,
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "sctp.checksum:CRC-32C",
            "-Y",
            bad,
        ])
        .unwrap();
        assert!(errs.is_empty(), "{f}:\n{errs}");
    };
    for f in std::fs::read_dir(&pcap).unwrap() {
        check(&f.unwrap().path());
    }
    let flagged = tshark(&[
        "-r",
        pcap.join("access_s1-r1.pcap").to_str().unwrap(),
        "-T",
        "fields",
        "-e",
        "tcp.srcport",
        "-Y",
        "tcp.analysis.retransmission || tcp.analysis.fast_retransmission \
         || tcp.analysis.out_of_order || tcp.analysis.spurious_retransmission",
    ])
    .unwrap();
    let csv = std::fs::read_to_string(dir.join("flows.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "retransmits").unwrap();
    let mut total = 0;
    for (i, line) in csv.lines().skip(1).enumerate() {
        let retx: usize = line.split(',').nth(col).unwrap().parse().unwrap();
        let port = (20000 + i).to_string();
        let seen = flagged.lines().filter(|l| l.trim() == port).count();
        assert_eq!(seen, retx, "flow {i} (port {port})");
        total += retx;
    }
    assert!(
        total > 0,
        "the dumbbell must retransmit for this test to mean anything"
    );

    // SCTP: chunks dissected, CRC32c good, on both paths of the multihoming scenario.
    let sctp_pcap = dir.join("pcap-sctp");
    let out = packetsim(&[
        "run",
        scenarios.join("sctp-multihoming.toml").to_str().unwrap(),
        "--out",
        dir.join("sctp").to_str().unwrap(),
        "--pcap",
        sctp_pcap.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in std::fs::read_dir(&sctp_pcap).unwrap() {
        check(&f.unwrap().path());
    }
    let chunks = tshark(&[
        "-r",
        sctp_pcap.join("path0_in_S-R0a.pcap").to_str().unwrap(),
        "-T",
        "fields",
        "-e",
        "sctp.chunk_type",
    ])
    .unwrap();
    for kind in ["1", "0", "10"] {
        // INIT, DATA, COOKIE ECHO from the sender.
        assert!(
            chunks.lines().any(|l| l.split(',').any(|c| c == kind)),
            "chunk type {kind} missing"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 12: a reused `--out` (and `--pcap`) folder is cleared of the files an earlier run
/// wrote and this one does not.
#[test]
fn a_reused_out_folder_keeps_no_stale_series_or_captures() {
    let dir = tmp("stale");
    let out = dir.join("out");
    let pcap = dir.join("pcap");
    let sampled = dir.join("sampled.toml");
    std::fs::write(
        &sampled,
        GOOD.replace(
            "duration = \"2s\"",
            "duration = \"2s\"\nsample_interval = \"100ms\"",
        ),
    )
    .unwrap();
    let run = |file: &Path, extra: &[&str]| {
        let mut args = vec![
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--pcap",
            pcap.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        let o = packetsim(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&sampled, &[]);
    assert!(out.join("timeseries_flows.csv").exists());
    assert!(out.join("timeseries_queues.csv").exists());
    assert!(pcap.join("ab_a-b.pcap").exists() && pcap.join("ab_b-a.pcap").exists());
    let plain = dir.join("plain.toml");
    std::fs::write(
        &plain,
        format!("{GOOD}\n[trace]\nlinks = [\"ab:a_to_b\"]\n"),
    )
    .unwrap();
    run(&plain, &[]);
    assert!(!out.join("timeseries_flows.csv").exists());
    assert!(!out.join("timeseries_queues.csv").exists());
    assert!(out.join("flows.csv").exists());
    assert!(pcap.join("ab_a-b.pcap").exists());
    assert!(!pcap.join("ab_b-a.pcap").exists(), "stale capture left");
    let _ = std::fs::remove_dir_all(&dir);
}
