//! The `packetsim` command end to end: bad input, run outputs, sweeps.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::GOOD;

fn packetsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .args(args)
        .output()
        .expect("runs")
}

fn tmp(name: &str) -> PathBuf {
    common::scratch("cli", name)
}

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

/// How many SVG files a folder and its direct subfolders hold.
fn count_svgs(dir: &Path, depth: u32) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() && depth > 0 {
            n += count_svgs(&p, depth - 1);
        } else if p.extension().is_some_and(|x| x == "svg") {
            n += 1;
        }
    }
    n
}

/// Runs bench/html-check.sh on `page`: `None` (after printing SKIPPED) without Chromium, else
/// its output; panics when the check fails.
fn html_check(page: &Path) -> Option<String> {
    let has_chromium = Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_chromium {
        eprintln!(
            "SKIPPED the Chromium check of {}: chromium not installed (Debian: apt-get install \
             chromium; or bench/html-check.sh PAGE --install)",
            page.display()
        );
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/html-check.sh");
    let c = Command::new("bash")
        .arg(&script)
        .arg(page)
        .output()
        .unwrap();
    let msg = format!(
        "{}{}",
        String::from_utf8_lossy(&c.stdout),
        String::from_utf8_lossy(&c.stderr)
    );
    assert!(c.status.success(), "{}: {msg}", page.display());
    Some(msg)
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
    // Quick verdicts are marked indicative, on the console and at the top of every report.
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("shape checks"))
        .collect();
    assert_eq!(lines.len(), packetsim::studies::STUDIES.len(), "{stdout}");
    for l in &lines {
        assert!(l.contains("(quick mode: indicative only)"), "{l}");
        // Issue 35: the paper's claims are counted apart from extensions and sensitivities.
        assert!(l.contains("shape checks of the paper's claims: "), "{l}");
    }
    assert!(
        lines.iter().any(|l| l.starts_with("sctp-multihoming:")
            && l.contains("; extensions and sensitivities: ")),
        "{stdout}"
    );
    for s in packetsim::studies::STUDIES {
        let md = std::fs::read_to_string(out.join(s.name).join("report.md")).unwrap();
        assert!(
            md.starts_with(packetsim::studies::QUICK_BANNER),
            "{}",
            s.name
        );
    }
    // Issue 14: the studies whose papers used ns-2 judge every check with ns-2.35's
    // mechanisms too (profile = "ns2"): a column in the report, two in checks.csv, and the
    // profile's own checks in ns2/checks.csv.
    for s in ["sctp-multihoming", "diffserv-ecn", "micromobility"] {
        let study = out.join(s);
        let md = std::fs::read_to_string(study.join("report.md")).unwrap();
        assert!(md.contains("| verdict | as ns-2.35 would | note |"), "{s}");
        assert!(md.contains("## As ns-2.35 would"), "{s}");
        let csv = std::fs::read_to_string(study.join("checks.csv")).unwrap();
        assert!(
            csv.starts_with("id,kind,verdict,claim,tolerance,statistic,measured,note,ns2_verdict,"),
            "{s}"
        );
        let own = std::fs::read_to_string(study.join("ns2").join("checks.csv")).unwrap();
        assert_eq!(own.lines().count(), csv.lines().count(), "{s}");
    }
    // Each study has an index.html beside its report, and `all` an index of every study.
    for s in packetsim::studies::STUDIES {
        let page = std::fs::read_to_string(out.join(s.name).join("index.html")).unwrap();
        let paper = packetsim::studies::paper(s.name).unwrap();
        // The paper is named in full (as the page's template engine escapes text: a title's
        // `/` and `'` are written as character references); the page is one file: SVG inline,
        // no script or image.
        let html = |t: &str| minijinja::HtmlEscape(t).to_string();
        assert!(page.contains(&html(paper.title)), "{}", s.name);
        assert!(page.contains(&html(paper.authors)), "{}", s.name);
        assert!(page.contains("<h2>Verdicts</h2>") && page.contains("<h2>Glossary</h2>"));
        assert!(
            !page.contains("<script") && !page.contains("<img"),
            "{}",
            s.name
        );
        assert!(page.contains("<figure>\n<svg"), "{}", s.name);
        // The quick banner comes once, above the verdicts.
        assert_eq!(page.matches("indicative only").count(), 1, "{}", s.name);
        assert!(page.find("indicative only") < page.find("<h2>Verdicts</h2>"));
        // Every check of checks.csv is in the verdict table with its colour.
        let checks = std::fs::read_to_string(out.join(s.name).join("checks.csv")).unwrap();
        let n = checks.lines().skip(1).filter(|l| !l.is_empty()).count();
        let coloured = [
            "class=\"holds\">holds<",
            "class=\"nothold\">does not hold<",
            "class=\"undecided\">not decidable<",
        ];
        let table = &page[page.find("<h2>Verdicts</h2>").unwrap()..page.find("<hr>").unwrap()];
        assert_eq!(
            coloured
                .iter()
                .map(|c| table.matches(c).count())
                .sum::<usize>(),
            n,
            "{}",
            s.name
        );
        // Figures the report does not show are added below it; every SVG of the folder is on
        // the page once.
        let svgs = count_svgs(&out.join(s.name), 1);
        assert_eq!(page.matches("<svg").count(), svgs, "{}", s.name);
    }
    // The T3 timer of the SCTP report is explained in its glossary; ATM terms are not.
    let sctp_page = std::fs::read_to_string(out.join("sctp-multihoming/index.html")).unwrap();
    assert!(sctp_page.contains("<dt>T3</dt>") && !sctp_page.contains("<dt>EPD</dt>"));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains("<th colspan=\"3\">the paper's claims</th>")
            && index.contains("<th colspan=\"3\">extensions and sensitivities</th>"),
        "{index}"
    );
    for s in packetsim::studies::STUDIES {
        assert!(
            index.contains(&format!("href=\"{}/index.html\"", s.name)),
            "{}",
            s.name
        );
    }
    for t in [
        "<dt>T3</dt>",
        "<dt>RTX_TO_ALT</dt>",
        "<dt>OUT</dt>",
        "<dt>IN</dt>",
        "<dt>EPD</dt>",
    ] {
        assert!(index.contains(t), "{t}");
    }
    assert!(stdout.contains("index of every study:"));
    for page in [out.join("index.html"), out.join("diffserv-ecn/index.html")] {
        if let Some(msg) = html_check(&page) {
            assert!(msg.contains("ok: "), "{msg}");
        }
    }
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
    // The capture folder also holds its lock (issue 16): only the captures are checked.
    let mut files = 0;
    for f in std::fs::read_dir(&pcap).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_some_and(|e| e == "pcap") {
            check(&path);
            files += 1;
        }
    }
    assert_eq!(files, 6);
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
    // A capture folder outside OUT also holds its lock and manifest (issue 16).
    for f in std::fs::read_dir(&sctp_pcap).unwrap() {
        let path = f.unwrap().path();
        if path.extension().is_some_and(|e| e == "pcap") {
            check(&path);
        }
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
    assert!(out.join("timeseries_delivered.csv").exists());
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
    assert!(!out.join("timeseries_delivered.csv").exists());
    assert!(out.join("flows.csv").exists());
    assert!(pcap.join("ab_a-b.pcap").exists());
    assert!(!pcap.join("ab_b-a.pcap").exists(), "stale capture left");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `packetsim args` under a limit of `mib` MiB of address space (`ulimit -v`).
fn packetsim_within(mib: u64, args: &[&str]) -> Output {
    let mut cmd = format!("ulimit -v {} && exec \"$0\"", mib * 1024);
    for i in 1..=args.len() {
        cmd.push_str(&format!(" \"${{{i}}}\""));
    }
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .arg(env!("CARGO_BIN_EXE_packetsim"))
        .args(args)
        .output()
        .expect("runs")
}

// Issue 16 item 1: `count = 1000000`, the documented maximum, made `check` take 1.3-3.6 GB
// and `run` abort. `check` now stays within 64 MiB of address space; `run` within the default
// budget is refused before anything is made, naming the key, its line and the estimate.
#[test]
fn a_million_copies_are_checked_cheaply_and_their_run_refused_up_front() {
    let dir = tmp("million");
    let file = dir.join("big.toml");
    std::fs::write(
        &file,
        GOOD.replace("size = \"100KB\"", "size = \"100KB\"\ncount = 1000000"),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let o = dir.join("out");
    let o = o.to_str().unwrap();
    let start = std::time::Instant::now();
    let out = packetsim_within(64, &["check", f, "--max-memory", "8GiB"]);
    let secs = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("ok (2 nodes, 1 links, 1000000 flows)"),
        "{stdout}"
    );
    // Milliseconds alone; generous for a loaded machine (the old check took 1.5-16 s).
    assert!(secs < 5.0, "check took {secs} s");
    for args in [vec!["check", f], vec!["run", f, "--out", o]] {
        let out = packetsim_within(64, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(
                "big.toml:13: flows.f.count: 1000000 flows in all (1000000 from this table) \
                 need about 3906.2 MiB in memory, more than the budget of 2048.0 MiB"
            ) && stderr.contains("--max-memory"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!Path::new(o).exists(), "nothing was written");
    let _ = std::fs::remove_dir_all(&dir);
}

// Issue 16, resource limits: `sample_interval = "1ns"` took 2.5 GB and aborted, and a
// 10^12-point grid asked for 32 TB; both are refused before any work, naming what to change.
#[test]
fn budgets_refuse_runs_that_cannot_fit_before_starting() {
    let dir = tmp("budget");
    let file = dir.join("good.toml");
    std::fs::write(
        &file,
        GOOD.replace(
            "duration = \"2s\"",
            "duration = \"2s\"\nsample_interval = \"10ns\"",
        ),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let o = dir.join("out");
    let o = o.to_str().unwrap();
    for args in [vec!["check", f], vec!["run", f, "--out", o]] {
        let out = packetsim(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("good.toml:3: simulation.sample_interval: sampling every 10ns for 2s")
                && stderr.contains("--max-memory"),
            "{args:?}: {stderr}"
        );
    }
    // A larger budget lets `check` through (it does not run).
    assert!(packetsim(&["check", f, "--max-memory", "100GiB"])
        .status
        .success());
    // Flows count too: 1000 copies at 4 KiB each do not fit in 1 MiB; the table's count is
    // named with its line.
    let many = dir.join("many.toml");
    std::fs::write(
        &many,
        GOOD.replace("size = \"100KB\"", "size = \"100KB\"\ncount = 1000"),
    )
    .unwrap();
    let m = many.to_str().unwrap();
    let out = packetsim(&["check", m, "--max-memory", "1MiB"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("many.toml:13: flows.f.count: 1000 flows in all (1000 from this table)")
            && stderr.contains("--max-memory"),
        "{stderr}"
    );
    assert!(packetsim(&["check", m, "--max-memory", "4MiB"])
        .status
        .success());
    // A sweep's parallel runs share the budget: 2 jobs of 1000 flows need 8 MiB.
    let out = packetsim(&[
        "sweep",
        m,
        "--param",
        "simulation.seed=1,2",
        "--runs",
        "1",
        "--jobs",
        "2",
        "--max-memory",
        "6MiB",
        "--out",
        o,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("shared by 2 parallel runs"), "{stderr}");
    assert!(!Path::new(o).exists(), "nothing was written");
    let values: Vec<String> = (0..10_000).map(|i| i.to_string()).collect();
    let p1 = format!("simulation.seed={}", values.join(","));
    let list = |unit: &str| -> String {
        (1..=10_000)
            .map(|i| format!("\"{i}{unit}\""))
            .collect::<Vec<_>>()
            .join(",")
    };
    let p2 = format!("links.ab.delay={}", list("us"));
    let p3 = format!("links.ab.rate={}", list("kbps"));
    let good = dir.join("good2.toml");
    std::fs::write(&good, GOOD).unwrap();
    let out = packetsim(&[
        "sweep",
        good.to_str().unwrap(),
        "--param",
        &p1,
        "--param",
        &p2,
        "--param",
        &p3,
        "--runs",
        "1",
        "--out",
        o,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("10000 x 10000 x 10000 values") && stderr.contains("--max-runs"),
        "{stderr}"
    );
    assert!(!Path::new(o).exists(), "nothing was written");
}

// Issue 16, one writer per output directory: two sweeps writing one directory both reported
// success and only the last results.csv survived. While a writer holds the directory's lock,
// run, sweep and reproduce are refused before writing anything; a killed writer's temporaries
// are removed by the next one.
#[test]
fn a_second_writer_of_an_output_directory_is_refused() {
    let dir = tmp("lock");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let f = file.to_str().unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let held = packetsim::experiment::lock_dir(&out).unwrap();
    for args in [
        vec!["run", f, "--out", o],
        vec!["sweep", f, "--param", "simulation.seed=1", "--out", o],
        vec!["reproduce", "sctp-multihoming", "--quick", "--out", o],
    ] {
        let r = packetsim(&args);
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(1), "{args:?}: {stderr}");
        let pid = format!("another packetsim (pid {}) is writing", std::process::id());
        assert!(stderr.contains(&pid), "{args:?}: {stderr}");
    }
    let written: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written, vec![".packetsim.lock"], "nothing else was written");
    drop(held);
    std::fs::write(out.join(".flows.csv.tmp-4242"), "half a file").unwrap();
    let r = packetsim(&["run", f, "--out", o, "--quiet"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(out.join("flows.csv").exists());
    assert!(
        !out.join(".flows.csv.tmp-4242").exists(),
        "leftover temporary kept"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// Issue 16, resume keyed by content: `x.toml`, `./x.toml` and an absolute path each stored
// their own copy of the same runs. Spelled differently, the same scenario reuses every run.
#[test]
fn sweep_resume_does_not_depend_on_how_the_path_is_spelled() {
    let dir = tmp("resume-path");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/x.toml"), GOOD).unwrap();
    let out = dir.join("out");
    let sweep = |path: &Path| {
        let r = packetsim(&[
            "sweep",
            path.to_str().unwrap(),
            "--param",
            "simulation.seed=1,2",
            "--runs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        String::from_utf8_lossy(&r.stdout).into_owned()
    };
    let first = sweep(&dir.join("sub/x.toml"));
    assert!(first.contains("2 computed, 0 reused"), "{first}");
    for spelling in [dir.join("sub/./x.toml"), dir.join("sub/../sub/x.toml")] {
        let again = sweep(&spelling);
        assert!(
            again.contains("0 computed, 2 reused"),
            "{spelling:?}: {again}"
        );
    }
    // Relative spellings from another working directory (the issue's `scenarios/x.toml` and
    // `./scenarios/x.toml` beside an absolute path).
    for spelling in ["sub/x.toml", "./sub/x.toml"] {
        let r = Command::new(env!("CARGO_BIN_EXE_packetsim"))
            .current_dir(&dir)
            .args([
                "sweep",
                spelling,
                "--param",
                "simulation.seed=1,2",
                "--runs",
                "1",
                "--out",
                "out",
            ])
            .output()
            .unwrap();
        let again = String::from_utf8_lossy(&r.stdout);
        assert!(
            r.status.success() && again.contains("0 computed, 2 reused"),
            "{spelling}: {again}{}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 13: `sweep --shard I/4` four times plus `sweep merge` gives the whole sweep's
/// results.csv and runs.csv byte for byte; a merge missing a shard fails naming it.
#[test]
fn sweep_in_four_shards_merged_equals_the_whole_sweep() {
    let dir = tmp("shards");
    let file = dir.join("s.toml");
    std::fs::write(&file, GOOD).unwrap();
    let sweep = |out: &Path, shard: Option<&str>| {
        let mut args = vec![
            "sweep",
            file.to_str().unwrap(),
            "--param",
            "links.ab.loss=0,0.02,0.05",
            "--runs",
            "3",
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let o = packetsim(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let whole = dir.join("whole");
    sweep(&whole, None);
    let parts: Vec<PathBuf> = (0..4).map(|i| dir.join(format!("part{i}"))).collect();
    for (i, p) in parts.iter().enumerate() {
        sweep(p, Some(&format!("{i}/4")));
        assert!(!p.join("results.csv").exists());
    }
    let merged = dir.join("merged");
    let m = |dirs: &[PathBuf]| {
        let mut args = vec!["sweep", "merge", merged.to_str().unwrap()];
        args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
        packetsim(&args)
    };
    let o = m(&parts[..3]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("shards 3/4 are incomplete"), "{err}");
    let o = m(&parts);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["results.csv", "runs.csv", "scenario.toml"] {
        assert_eq!(
            std::fs::read(merged.join(f)).unwrap(),
            std::fs::read(whole.join(f)).unwrap(),
            "{f}"
        );
    }
}

/// Issue 13: `sweep --emit slurm` writes an array job (one task per shard, each running this
/// sweep with `--shard I/N`), a merge job and submit.sh chaining them with afterok. Without a
/// cluster, the test runs the array script once per task id and then the merge script with
/// bash, and checks the merged results.csv against the sweep run whole.
#[test]
fn emit_slurm_writes_an_array_and_a_dependent_merge_that_reproduce_the_sweep() {
    let dir = tmp("slurm");
    let file = dir.join("s.toml");
    std::fs::write(&file, GOOD).unwrap();
    let out = dir.join("cluster out");
    let common = [
        "sweep",
        file.to_str().unwrap(),
        "--param",
        "links.ab.loss=0,0.02",
        "--set",
        "links.ab.delay=\"7ms\"",
        "--runs",
        "3",
    ];
    let mut args = common.to_vec();
    args.extend([
        "--out",
        out.to_str().unwrap(),
        "--emit",
        "slurm",
        "--shards",
        "3",
        "--slurm-time",
        "00:10:00",
        "--slurm-mem",
        "1G",
        "--slurm-cpus",
        "2",
        "--slurm-partition",
        "debug",
    ]);
    let o = packetsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = std::fs::canonicalize(&out).unwrap();
    assert!(!out.join("results.sqlite").exists(), "--emit runs nothing");
    let read = |n: &str| std::fs::read_to_string(out.join("slurm").join(n)).unwrap();
    let (sweep, merge, submit) = (
        read("sweep.sbatch"),
        read("merge.sbatch"),
        read("submit.sh"),
    );
    for line in [
        "#SBATCH --array=0-2",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --time=00:10:00",
        "#SBATCH --mem=1G",
        "#SBATCH --partition=debug",
        "#SBATCH --job-name=packetsim-sweep",
    ] {
        assert!(sweep.lines().any(|l| l == line), "{line} in\n{sweep}");
    }
    assert!(
        sweep.contains("--shard \"$SLURM_ARRAY_TASK_ID/3\""),
        "{sweep}"
    );
    assert!(sweep.contains("--param 'links.ab.loss=0,0.02'"), "{sweep}");
    assert!(sweep.contains("--set 'links.ab.delay=\"7ms\"'"), "{sweep}");
    assert!(sweep.contains("--seed 1"), "{sweep}");
    assert!(merge.contains(" sweep merge "), "{merge}");
    assert!(
        merge.lines().any(|l| l == "#SBATCH --cpus-per-task=1"),
        "{merge}"
    );
    assert!(
        submit.contains("sbatch --parsable --dependency=afterok:\"$array\""),
        "{submit}"
    );
    assert!(submit.contains("/slurm'/sweep.sbatch") || submit.contains("/slurm/sweep.sbatch"));

    // What Slurm would do: each array task, then the merge.
    for i in 0..3 {
        let o = std::process::Command::new("bash")
            .arg(out.join("slurm/sweep.sbatch"))
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("SLURM_CPUS_PER_TASK", "1")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "task {i}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = std::process::Command::new("bash")
        .arg(out.join("slurm/merge.sbatch"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let whole = dir.join("whole");
    let mut args = common.to_vec();
    args.extend(["--out", whole.to_str().unwrap()]);
    assert!(packetsim(&args).status.success());
    assert_eq!(
        std::fs::read(out.join("results.csv")).unwrap(),
        std::fs::read(whole.join("results.csv")).unwrap()
    );
}

#[test]
fn emit_options_need_emit_and_shard_excludes_it() {
    let dir = tmp("slurm-bad");
    let file = dir.join("s.toml");
    std::fs::write(&file, GOOD).unwrap();
    let f = file.to_str().unwrap();
    let o = dir.join("o");
    let o = o.to_str().unwrap();
    for (args, want) in [
        (vec!["sweep", f, "--out", o, "--shards", "3"], "--emit"),
        (
            vec!["sweep", f, "--out", o, "--emit", "slurm", "--shard", "0/2"],
            "--shard",
        ),
        (vec!["sweep", f, "--out", o, "--emit", "pbs"], "slurm"),
        (
            vec!["sweep", f, "--out", o, "--emit", "slurm", "--shards", "0"],
            "--shards",
        ),
    ] {
        let r = packetsim(&args);
        assert!(!r.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// The files of an output folder as a reader compares them: every file but the lock, the
/// manifest, the pending record, temporaries and stores; summary.json without its wall-clock
/// line.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
                continue;
            }
            let name = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let base = e.file_name().to_string_lossy().into_owned();
            if base.starts_with('.') || base == "manifest.txt" || base.contains("sqlite") {
                continue;
            }
            let mut bytes = std::fs::read(&p).unwrap();
            if base == "summary.json" {
                let text = String::from_utf8(bytes).unwrap();
                bytes = text
                    .lines()
                    .filter(|l| !l.contains("\"wall_time_s\""))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .into_bytes();
            }
            out.insert(name, bytes);
        }
    }
    out
}

/// `packetsim verify DIR`: (complete, stdout + stderr).
fn verify(dir: &Path) -> (bool, String) {
    let r = packetsim(&["verify", dir.to_str().unwrap()]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(
        r.status.code() == Some(0) || r.status.code() == Some(1),
        "{text}"
    );
    (r.status.success(), text)
}

// Issue 16 item 5: the files a command owns form a set with a manifest written last. run,
// sweep, sweep merge and each study of reproduce write one; `verify` tells a complete folder
// from an incomplete one; a capture folder outside OUT is locked and gets its own manifest.
#[test]
fn outputs_are_committed_as_a_set_with_a_manifest_written_last() {
    let dir = tmp("manifest");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let f = file.to_str().unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let pcap = dir.join("captures");
    let r = packetsim(&[
        "run",
        f,
        "--out",
        o,
        "--quiet",
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let (ok, text) = verify(&out);
    assert!(ok && text.contains("complete (4 files)"), "{text}");
    let listed: Vec<String> = std::fs::read_to_string(out.join("manifest.txt"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.splitn(3, ' ').nth(2).unwrap().to_string())
        .collect();
    assert_eq!(
        listed,
        ["flows.csv", "queues.csv", "scenario.toml", "summary.json"]
    );
    let (ok, text) = verify(&pcap);
    assert!(ok && text.contains("complete (2 files)"), "{text}");
    assert!(
        pcap.join(".packetsim.lock").exists(),
        "capture folder locked"
    );

    // A changed file, or a pending record left by a killed writer, is incomplete.
    std::fs::write(out.join("flows.csv"), "edited").unwrap();
    let (ok, text) = verify(&out);
    assert!(!ok && text.contains("flows.csv: incomplete"), "{text}");
    std::fs::remove_file(out.join("manifest.txt")).unwrap();
    std::fs::write(out.join(".manifest.pending"), "stale_series.csv\n").unwrap();
    std::fs::write(out.join("stale_series.csv"), "from a killed run").unwrap();
    let (ok, text) = verify(&out);
    assert!(
        !ok && text.contains("incomplete: no manifest.txt"),
        "{text}"
    );
    // The next run removes what the killed one wrote and it does not, and commits.
    let r = packetsim(&["run", f, "--out", o, "--quiet"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(!out.join("stale_series.csv").exists());
    assert!(!out.join(".manifest.pending").exists());
    assert!(verify(&out).0);

    // A capture folder outside OUT held by another writer is refused before anything runs.
    let held = packetsim::experiment::lock_dir(&pcap).unwrap();
    let r = packetsim(&["run", f, "--out", o, "--pcap", pcap.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(
        !r.status.success() && stderr.contains("is writing this directory"),
        "{stderr}"
    );
    drop(held);

    let sw = dir.join("sweep");
    let r = packetsim(&[
        "sweep",
        f,
        "--param",
        "simulation.seed=1,2",
        "--runs",
        "1",
        "--out",
        sw.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let (ok, text) = verify(&sw);
    // scenario.toml, sweep.json, results.csv, runs.csv; not the store.
    assert!(ok && text.contains("complete (4 files)"), "{text}");
    let merged = dir.join("merged");
    let r = packetsim(&[
        "sweep",
        "merge",
        merged.to_str().unwrap(),
        sw.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(verify(&merged).0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small xorshift for kill delays (seeded: the campaign is the same every time, up to
/// the machine's timing).
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Starts `args`, kills it with SIGKILL after `delay`, and waits for it. Returns whether it
/// had already finished.
fn kill_after(args: &[&str], delay: std::time::Duration) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_packetsim"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let finished = child.try_wait().unwrap().is_some();
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
    finished
}

// Issue 16, "Done means": kill -9 at random points leaves every output folder complete and
// identical to an uninterrupted run, or incomplete, never mixed; a resumed sweep loses and
// duplicates no run. A reduced campaign (24 kills); bench/kill9.sh runs the long one.
#[test]
fn kill_9_leaves_output_complete_and_identical_or_incomplete_never_mixed() {
    let dir = tmp("kill9");
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/dumbbell.toml");
    let seeds = ["1", "2"];
    let run_args = |out: &Path, seed: &'static str| -> Vec<String> {
        [
            "run",
            scenario,
            "--quiet",
            "--seed",
            seed,
            "--set",
            "simulation.duration=\"20s\"",
            "--set",
            "links.bottleneck.loss=0.01",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.to_string_lossy().into_owned()])
        .collect()
    };
    let refs: Vec<_> = seeds
        .iter()
        .map(|seed| {
            let d = dir.join(format!("ref-{seed}"));
            let a = run_args(&d, seed);
            let r = packetsim(&a.iter().map(String::as_str).collect::<Vec<_>>());
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
            snapshot(&d)
        })
        .collect();
    assert_ne!(refs[0], refs[1]);
    let out = dir.join("run");
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let (mut complete, mut incomplete) = (0, 0);
    for _ in 0..14 {
        let i = (xorshift(&mut rng) % 2) as usize;
        let a = run_args(&out, seeds[i]);
        let delay = std::time::Duration::from_millis(xorshift(&mut rng) % 250);
        kill_after(&a.iter().map(String::as_str).collect::<Vec<_>>(), delay);
        let (ok, text) = verify(&out);
        if ok {
            complete += 1;
            let snap = snapshot(&out);
            assert!(
                snap == refs[0] || snap == refs[1],
                "a manifest over mixed files"
            );
        } else {
            incomplete += 1;
            assert!(text.contains("incomplete"), "{text}");
        }
    }
    let a = run_args(&out, seeds[0]);
    let r = packetsim(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(verify(&out).0);
    assert_eq!(snapshot(&out), refs[0]);
    eprintln!("run: {complete} complete, {incomplete} incomplete after kill -9");

    // A sweep killed ten times, then finished: the same files as an uninterrupted one, and
    // each run stored once (runs.csv has one row per run and metric).
    let sweep_args = |out: &Path| -> Vec<String> {
        [
            "sweep",
            scenario,
            "--param",
            "tcp.variant=reno,sack,newreno",
            "--runs",
            "3",
            "--jobs",
            "2",
            "--set",
            "simulation.duration=\"5s\"",
            "--set",
            "links.bottleneck.loss=0.01",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.to_string_lossy().into_owned()])
        .collect()
    };
    let reference = dir.join("ref-sweep");
    let a = sweep_args(&reference);
    let r = packetsim(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let sw = dir.join("sweep");
    let a = sweep_args(&sw);
    let args: Vec<&str> = a.iter().map(String::as_str).collect();
    for _ in 0..10 {
        let delay = std::time::Duration::from_millis(xorshift(&mut rng) % 150);
        kill_after(&args, delay);
        let (ok, _) = verify(&sw);
        if ok {
            assert_eq!(
                snapshot(&sw),
                snapshot(&reference),
                "a manifest over mixed files"
            );
        }
    }
    let r = packetsim(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(verify(&sw).0);
    assert_eq!(snapshot(&sw), snapshot(&reference));
}

// Issue 12 item 4: `packetsim plot DIR` draws a run's series as SVG and PNG; bad input is an
// error naming the file, line and column.
#[test]
fn plot_draws_a_sweep_metric_against_a_parameter_with_confidence_intervals() {
    let dir = tmp("plot-sweep");
    let file = dir.join("s.toml");
    std::fs::write(&file, GOOD).unwrap();
    let out = dir.join("sweep");
    let o = out.to_str().unwrap();
    let r = packetsim(&[
        "sweep",
        file.to_str().unwrap(),
        "--param",
        "links.ab.loss=0,0.01,0.03",
        "--param",
        "links.ab.delay=\"5ms\",\"20ms\"",
        "--runs",
        "3",
        "--out",
        o,
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let p = packetsim(&["plot", o]);
    let stderr = String::from_utf8_lossy(&p.stderr);
    if stderr.contains("no TrueType font found") {
        eprintln!("SKIPPED plot_draws_a_sweep_metric_against_a_parameter_with_confidence_intervals: {stderr}");
        return;
    }
    assert!(p.status.success(), "{stderr}");
    // Default: the goodput metrics, against the first numeric parameter with several values,
    // one line per value of the other parameter, a marker per point.
    let svg = std::fs::read_to_string(out.join("figures/sweep_flows.f.goodput_bps.svg")).unwrap();
    assert!(svg.contains("\nflows.f.goodput_bps: mean and 95% CI\n"));
    assert!(svg.contains("\nlinks.ab.loss\n"), "x label");
    assert!(
        svg.contains("\ndelay=5ms\n") && svg.contains("\ndelay=20ms\n"),
        "legend"
    );
    assert_eq!(
        svg.matches("r=\"3\" opacity=\"1\" fill=").count(),
        6,
        "3 loss values x 2 delays"
    );
    let png = std::fs::read(out.join("figures/sweep_flows.f.goodput_bps.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // Against the delay, in seconds (SI), one line per loss value.
    let f2 = dir.join("f2");
    let p = packetsim(&[
        "plot",
        o,
        "--x",
        "links.ab.delay",
        "--metric",
        "flows.f.goodput_*",
        "--format",
        "svg",
        "--out",
        f2.to_str().unwrap(),
    ]);
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    let svg = std::fs::read_to_string(f2.join("sweep_flows.f.goodput_bps.svg")).unwrap();
    assert!(
        svg.contains("\nlinks.ab.delay (s)\n"),
        "x label with the SI unit"
    );
    for l in ["loss=0", "loss=0.01", "loss=0.03"] {
        assert!(svg.contains(&format!("\n{l}\n")), "{l}");
    }
    assert!(
        !f2.join("sweep_flows.f.goodput_bps.png").exists(),
        "--format svg"
    );
    // Bad input: a clear error.
    let bad = |args: &[&str], want: &str| {
        let p = packetsim(args);
        assert_eq!(p.status.code(), Some(1), "{args:?}");
        let e = String::from_utf8_lossy(&p.stderr);
        assert!(e.contains(want), "{args:?}: {e}");
    };
    bad(&["plot", o, "--x", "nope"], "links.ab.loss, links.ab.delay");
    bad(&["plot", o, "--metric", "nope"], "no metric matches nope");
    let run = dir.join("run");
    let r = packetsim(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(r.status.success());
    bad(
        &["plot", run.to_str().unwrap(), "--metric", "x"],
        "for a sweep's folder",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plot_draws_the_series_of_a_run_and_locates_bad_input() {
    let dir = tmp("plot");
    let file = dir.join("sampled.toml");
    std::fs::write(
        &file,
        GOOD.replace(
            "duration = \"2s\"",
            "duration = \"2s\"\nsample_interval = \"20ms\"",
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let r = packetsim(&["run", file.to_str().unwrap(), "--out", o, "--quiet"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let p = packetsim(&["plot", o]);
    let stderr = String::from_utf8_lossy(&p.stderr);
    if stderr.contains("no TrueType font found") {
        eprintln!("SKIPPED plot_draws_the_series_of_a_run_and_locates_bad_input: {stderr}");
        return;
    }
    assert!(p.status.success(), "{stderr}");
    let figs = out.join("figures");
    let stdout = String::from_utf8_lossy(&p.stdout);
    for (stem, title, y) in [
        ("cwnd", "Congestion window", "cwnd (kB)"),
        ("srtt", "Smoothed round-trip time", "srtt (ms)"),
        ("rate", "Delivery rate", "rate (Mb/s)"),
        ("queue", "Queue length", "packets waiting"),
    ] {
        let svg = std::fs::read_to_string(figs.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{stem}");
        // Title, axis labels and the flow's (or queue's) name in the legend.
        for want in [title, y, "time (s)"] {
            assert!(svg.contains(want), "{stem}.svg lacks {want}");
        }
        let legend = if stem == "queue" {
            "ab:a-&gt;b"
        } else {
            ">\nf\n<"
        };
        assert!(
            svg.contains(legend),
            "{stem}.svg lacks the series name {legend}"
        );
        assert!(svg.contains("<polyline"), "{stem}.svg has no line");
        let png = std::fs::read(figs.join(format!("{stem}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}.png");
        // 1000 x 520 pixels (IHDR): the plot and, right of it, the legend's column.
        assert_eq!(&png[16..24], &[0, 0, 3, 0xe8, 0, 0, 2, 8]);
        assert!(stdout.contains(&format!("{stem}.svg")));
    }
    // --format svg writes SVG only, into --out.
    let only = dir.join("only");
    let p = packetsim(&[
        "plot",
        o,
        "--out",
        only.to_str().unwrap(),
        "--format",
        "svg",
    ]);
    assert!(p.status.success());
    assert!(only.join("cwnd.svg").exists() && !only.join("cwnd.png").exists());

    // A value that is not a number: file, line and column named.
    let csv = out.join("timeseries_flows.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[2] = lines[2].replacen(",f,", ",f,abc", 1);
    std::fs::write(&csv, lines.join("\n")).unwrap();
    let p = packetsim(&["plot", o]);
    let stderr = String::from_utf8_lossy(&p.stderr);
    assert_eq!(p.status.code(), Some(1), "{stderr}");
    assert!(
        stderr
            .contains("timeseries_flows.csv:3: column `cwnd_bytes`: expected a number, found `abc"),
        "{stderr}"
    );
    // A folder without series says how to get them.
    let plain = dir.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("flows.csv"), "flow\n").unwrap();
    let p = packetsim(&["plot", plain.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&p.stderr);
    assert_eq!(p.status.code(), Some(1));
    assert!(
        stderr.contains("no timeseries_*.csv") && stderr.contains("sample_interval"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// Issue 12 item 5: `packetsim report DIR` writes one self-contained page of a run, and it
// renders in headless Chromium with every figure (bench/html-check.sh).
#[test]
fn a_finished_transfer_ends_the_run_and_the_console_says_so() {
    // GOOD: 100 KB over 10 Mb/s, 5 ms, with a 2 s cap (issue 12, item 6).
    let dir = tmp("span");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let out = dir.join("out");
    let r = packetsim(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["ended_by"], "flows_finished");
    assert_eq!(summary["duration_s"], 2.0);
    let span = summary["span_s"].as_f64().expect("span_s");
    let done = summary["flows"]["f"]["completion_time_s"].as_f64().unwrap();
    assert_eq!(
        span, done,
        "the flow starts at 0: the run ends at its last byte"
    );
    let stdout = String::from_utf8_lossy(&r.stdout);
    let first = stdout.lines().next().unwrap();
    assert!(
        first.contains(&format!(
            "{span:.3} s simulated (every flow finished; cap 2 s; averages over {span:.3} s)"
        )),
        "{first}"
    );
}

#[test]
fn report_writes_a_self_contained_page_that_renders_in_chromium() {
    let dir = tmp("report");
    let file = dir.join("sampled.toml");
    std::fs::write(
        &file,
        GOOD.replace(
            "duration = \"2s\"",
            "duration = \"2s\"\nsample_interval = \"20ms\"",
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let r = packetsim(&["run", file.to_str().unwrap(), "--out", o, "--quiet"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let p = packetsim(&["report", o]);
    let stderr = String::from_utf8_lossy(&p.stderr);
    if stderr.contains("no TrueType font found") {
        eprintln!("SKIPPED report_writes_a_self_contained_page_that_renders_in_chromium: {stderr}");
        return;
    }
    assert!(p.status.success(), "{stderr}");
    let page = out.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // Issue 12: the transfer ended the run at its last byte, and the page says so.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let span = summary["span_s"].as_f64().expect("span_s");
    assert!(html.contains(&format!(
        "{span:.3} s simulated (every flow finished; cap 2 s; averages over {span:.3} s)"
    )));
    // The flows and queues tables, with the run's flow and its goodput column.
    assert!(html.contains("<h2>Flows</h2>") && html.contains("<th>goodput_bps</th>"));
    assert!(html.contains("<td>f</td>") && html.contains("<h2>Queues</h2>"));
    // Issue 37 item 6: a wide table scrolls in its own box instead of overflowing the page.
    let tables = html.matches("<table>").count();
    assert!(tables >= 2);
    assert_eq!(
        html.matches("<div class=\"scroll\">\n<table>").count(),
        tables
    );
    // Four figures, each an inline SVG; nothing loaded from elsewhere.
    assert_eq!(html.matches("<figure").count(), 4);
    assert_eq!(html.matches("<svg").count(), 4);
    assert!(!html.contains("src=") && !html.contains("href=") && !html.contains("<script"));
    // A folder that is not a run's: a clear error.
    let p = packetsim(&["report", dir.to_str().unwrap()]);
    assert_eq!(p.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&p.stderr).contains("summary.json"));

    let has_chromium = Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_chromium {
        eprintln!(
            "SKIPPED the Chromium half of report_writes_a_self_contained_page_that_renders_in_chromium: \
             chromium not installed (Debian: apt-get install chromium; or bench/html-check.sh PAGE --install)"
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/html-check.sh");
    let c = Command::new("bash")
        .arg(&script)
        .arg(&page)
        .output()
        .unwrap();
    let msg = format!(
        "{}{}",
        String::from_utf8_lossy(&c.stdout),
        String::from_utf8_lossy(&c.stderr)
    );
    assert!(c.status.success(), "{msg}");
    assert!(msg.contains("ok: 4 figures rendered"), "{msg}");
    assert!(out.join("index.png").metadata().unwrap().len() > 10_000);
    let _ = std::fs::remove_dir_all(&dir);
}

// Issue 16 item 5: one writer per folder, capture folders included. A `--pcap`/`--trace`
// folder, outside OUT or inside it, is locked; every lock is taken before any set begins, so
// a refused run leaves every folder as it was (complete); one folder spelled two ways is one
// folder, not a conflict with itself.
#[test]
fn capture_and_trace_folders_have_one_writer_each() {
    let dir = tmp("capture-locks");
    let file = dir.join("good.toml");
    std::fs::write(&file, GOOD).unwrap();
    let f = file.to_str().unwrap();
    let (out, cap, ev) = (dir.join("out"), dir.join("cap"), dir.join("ev"));
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", f, "--out", out.to_str().unwrap(), "--quiet"];
        args.extend_from_slice(extra);
        packetsim(&args)
    };
    let r = run(&["--pcap", &s(&cap), "--trace", &s(&ev)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    for d in [&out, &cap, &ev] {
        let (ok, text) = verify(d);
        assert!(ok, "{}: {text}", d.display());
        assert!(d.join(".packetsim.lock").exists(), "{}", d.display());
    }
    assert!(ev.join("events.csv").exists());
    let before = (snapshot(&out), snapshot(&cap), snapshot(&ev));

    // The trace folder held by another writer: refused before anything is written or
    // removed, and OUT's and the capture folder's sets are still complete.
    let held = packetsim::experiment::lock_dir(&ev).unwrap();
    let r = run(&["--pcap", &s(&cap), "--trace", &s(&ev)]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: another packetsim (pid {}) is writing this directory",
            ev.display(),
            std::process::id()
        )),
        "{stderr}"
    );
    for d in [&out, &cap, &ev] {
        assert!(
            verify(d).0,
            "{} left incomplete by a refused run",
            d.display()
        );
    }
    assert_eq!(before, (snapshot(&out), snapshot(&cap), snapshot(&ev)));
    drop(held);

    // A trace folder inside OUT is locked too.
    let inner = out.join("trace");
    let held = packetsim::experiment::lock_dir(&inner).unwrap();
    let r = run(&["--trace", &s(&inner)]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(
        r.status.code() == Some(1) && stderr.contains("is writing this directory"),
        "{stderr}"
    );
    assert!(verify(&out).0, "OUT left incomplete by a refused run");
    drop(held);
    let r = run(&["--trace", &s(&inner)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(inner.join("events.csv").exists() && verify(&out).0);

    // One folder written two ways (and OUT itself as a capture folder): no self-conflict.
    let again = dir.join("cap").join("..").join("cap");
    let r = run(&["--pcap", &s(&cap), "--trace", &s(&again)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(cap.join("events.csv").exists() && verify(&cap).0);
    let r = run(&["--trace", &s(&out)]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

// Issue 16, accepted nonsense: a truncated file was accepted as "0 nodes, 0 links, 0 flows".
// check, run and sweep refuse a scenario without flows at its last line, writing nothing.
#[test]
fn a_file_cut_short_is_refused_not_run_as_an_empty_scenario() {
    let dir = tmp("cut-short");
    let o = dir.join("out");
    let o = o.to_str().unwrap();
    for (cut, line) in [
        (&GOOD[..29], 2),
        (&GOOD[..GOOD.find("[flows.f]").unwrap()], 11),
    ] {
        let file = dir.join("cut.toml");
        std::fs::write(&file, cut).unwrap();
        let f = file.to_str().unwrap();
        for args in [
            vec!["check", f],
            vec!["run", f, "--out", o],
            vec!["sweep", f, "--out", o, "--param", "simulation.seed=1,2"],
        ] {
            let out = packetsim(&args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(
                stderr.contains(&format!(
                    "cut.toml:{line}: flows: expected at least one [flows.NAME] table"
                )) && stderr.contains("cut short"),
                "{args:?}: {stderr}"
            );
        }
        assert!(!Path::new(o).exists(), "nothing was written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 37 item 7: `run`, `sweep` and `reproduce` all default their output folder under
/// out/ (out/run, out/sweep, out/reproduce), so a sweep needs no `--out`; a second, different
/// sweep into the same default folder writes its own results only.
#[test]
fn sweep_defaults_its_output_folder_like_run() {
    let dir = tmp("default-out");
    std::fs::write(dir.join("x.toml"), GOOD).unwrap();
    std::fs::write(
        dir.join("y.toml"),
        GOOD.replace("size = \"100KB\"", "size = \"200KB\""),
    )
    .unwrap();
    let in_dir = |args: &[&str]| {
        let r = Command::new(env!("CARGO_BIN_EXE_packetsim"))
            .current_dir(&dir)
            .args(args)
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    };
    in_dir(&["run", "x.toml", "--quiet"]);
    assert!(dir.join("out/run/summary.json").is_file());
    let sweep = [
        "sweep",
        "x.toml",
        "--param",
        "simulation.seed=1,2",
        "--runs",
        "1",
    ];
    in_dir(&sweep);
    // runs.csv is long: one row per run and metric. Each sweep's rows: two runs, each with the
    // bytes its scenario delivers.
    let delivered = || {
        let text = std::fs::read_to_string(dir.join("out/sweep/runs.csv")).unwrap();
        let mut rows: Vec<String> = text
            .lines()
            .filter(|l| l.contains(",flows.f.bytes_delivered,"))
            .map(|l| l.split(',').next_back().unwrap().to_owned())
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(delivered(), ["100000.0", "100000.0"]);
    // Another scenario into the same default folder: its own two runs, none of the first's.
    in_dir(&[
        "sweep",
        "y.toml",
        "--param",
        "simulation.seed=1,2",
        "--runs",
        "1",
    ]);
    assert_eq!(delivered(), ["200000.0", "200000.0"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 37 item 7: a long single `run` shows its progress on standard error, with --progress
/// as lines at every 10% where stderr is not a terminal (here), and not at all without it;
/// progress runs the simulated time in slices (`World::run_until`), and every output file
/// stays the same bytes as one uninterrupted run: runs that end at their duration, runs that
/// end when their transfers finish (SCTP, the fat-tree workload), sampled series, flow
/// monitor, cell links and an event trace.
#[test]
fn run_progress_leaves_every_output_file_as_it_was() {
    let dir = tmp("run-progress");
    let cases: [(&str, &[&str]); 4] = [
        (
            "scenarios/dumbbell.toml",
            &[
                "--seed",
                "5",
                "--set",
                "simulation.flow_monitor=true",
                "--set",
                "tcp.ecn=true",
                "--set",
                "links.bottleneck.queue={kind=\"red\",red={min_th=5,max_th=15,max_p=0.1,limit=50,ecn=\"standard\"}}",
                "--set",
                "simulation.duration=\"8s\"",
            ],
        ),
        ("scenarios/sctp-multihoming.toml", &["--seed", "2"]),
        ("scenarios/workloads/fat-tree-permutation.toml", &["--seed", "1"]),
        ("scenarios/atm-two-senders.toml", &["--seed", "7"]),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (i, (file, extra)) in cases.iter().enumerate() {
        let scenario = root.join(file);
        let mut outs = Vec::new();
        for progress in [false, true] {
            let out = dir.join(format!("{i}-{progress}"));
            let trace = out.join("trace");
            let mut args = vec![
                "run",
                scenario.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--trace",
                trace.to_str().unwrap(),
            ];
            args.extend_from_slice(extra);
            if progress {
                args.push("--progress");
            }
            let r = packetsim(&args);
            let err = String::from_utf8_lossy(&r.stderr).into_owned();
            assert!(r.status.success(), "{file}: {err}");
            if progress {
                let lines: Vec<&str> = err
                    .lines()
                    .filter(|l| l.starts_with("progress: "))
                    .collect();
                let last = lines.last().copied().unwrap_or_default();
                if i == 0 {
                    // Ends at its duration: a line at every 10%.
                    assert_eq!(lines.len(), 10, "{file}: {err}");
                    assert!(lines[0].starts_with("progress: 10% ("), "{file}: {err}");
                    assert_eq!(
                        last, "progress: 100% (8.000 of 8.000 s simulated)",
                        "{file}"
                    );
                } else if i == 1 {
                    // Ends when its transfers have finished (the SCTP association shut
                    // down, long before the 3600 s cap): the last line says when.
                    assert!(
                        last.starts_with("progress: done, every transfer finished at ")
                            && last.ends_with(" s (of at most 3600.000 s)"),
                        "{file}: {err}"
                    );
                } else {
                    assert!(
                        last.starts_with("progress: 100% (")
                            || last.starts_with("progress: done, every transfer finished at "),
                        "{file}: {err}"
                    );
                }
            } else {
                assert!(!err.contains("progress"), "{file}: {err}");
            }
            outs.push((snapshot(&out), r.stdout));
        }
        let (plain, plain_stdout) = &outs[0];
        let (shown, shown_stdout) = &outs[1];
        assert!(plain.contains_key("flows.csv") && plain.contains_key("trace/events.csv"));
        assert_eq!(
            plain.keys().collect::<Vec<_>>(),
            shown.keys().collect::<Vec<_>>(),
            "{file}"
        );
        for (name, bytes) in plain {
            assert!(
                shown[name] == *bytes,
                "{file}: {name} differs with --progress"
            );
        }
        let table = |b: &[u8]| {
            String::from_utf8_lossy(b)
                .lines()
                .filter(|l| !l.starts_with("wrote ") && !l.ends_with(" s wall"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(table(plain_stdout), table(shown_stdout), "{file}");
    }
}
