//! Issue 38, "the last ways in": each reproducer of the issue through the `packetsim` command,
//! under a 4 GiB address-space limit and a time limit (a hang fails the test instead of
//! stalling it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::GOOD;

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
    let e = refused(&["check", f.to_str().unwrap(), "--max-memory", "128MiB"]);
    assert!(
        e.contains(": links.l20000: 20000 links need about 312.5 MiB"),
        "{e}"
    );
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
