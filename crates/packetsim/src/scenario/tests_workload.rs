//! Workloads (`app = "poisson"`, `app = "onoff"`): keys, located errors, the shipped CDF
//! files, and runs: seeded reproducibility, the arrival count and the FCT outputs.

use super::*;
use crate::app::SizeDist;

/// A scenario "in" scenarios/workloads/, so that `size_cdf` finds the shipped files.
fn origin() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/workloads/test.toml"
    )
    .to_string()
}

/// Lines 1-22 (`[flows.w]` on line 20); the flow's own keys start on line 23. A missing key
/// is located at the flow's table, line 20.
const BASE: &str = r#"[simulation]
duration = "2s"

[nodes.a]
[nodes.b]
[nodes.c]

[links.l1]
a = "a"
b = "b"
rate = "100Mbps"
delay = "1ms"

[links.l2]
a = "b"
b = "c"
rate = "10Mbps"
delay = "10ms"

[flows.w]
from = "a"
to = "c"
"#;

fn load(keys: &str) -> Result<Scenario, ScenarioError> {
    load_str(&format!("{BASE}{keys}\n"), &origin(), &[])
}

fn app_of(s: &Scenario) -> App {
    match &s.flow_tables[0].first.kind {
        FlowKind::Tcp { app, .. } => app.clone(),
        k => panic!("{k:?}"),
    }
}

// scenario/flow/tcp.rs: each size distribution with its keys.
#[test]
fn poisson_keys_load_each_distribution() {
    let s = load("app = \"poisson\"\narrival_rate = 50.0\nsize_dist = \"pareto\"\nsize_mean = \"100KB\"\nsize_shape = 1.2").unwrap();
    assert_eq!(
        app_of(&s),
        App::Poisson(Box::new(Workload {
            arrival_rate: 50.0,
            sizes: SizeDist::Pareto {
                mean: 100_000.0,
                shape: 1.2
            }
        }))
    );
    let s = load("app = \"poisson\"\narrival_rate = 5.0\nsize_dist = \"lognormal\"\nsize_mean = 20000\nsize_sigma = 1.5").unwrap();
    let App::Poisson(w) = app_of(&s) else {
        panic!()
    };
    assert_eq!(
        w.sizes,
        SizeDist::LogNormal {
            mean: 20_000.0,
            sigma: 1.5
        }
    );
    // `size_cdf` alone implies the empirical distribution; the shipped file's mean.
    let s = load("app = \"poisson\"\narrival_rate = 5.0\nsize_cdf = \"websearch.cdf\"").unwrap();
    let App::Poisson(w) = app_of(&s) else {
        panic!()
    };
    assert_eq!(w.sizes.mean(), 1_711_700.0);
    let s = load("app = \"poisson\"\narrival_rate = 5.0\nsize_dist = \"empirical\"\nsize_cdf = \"datamining.cdf\"").unwrap();
    let App::Poisson(w) = app_of(&s) else {
        panic!()
    };
    assert!((w.sizes.mean() - 7_666_525.0).abs() < 1e-6);
    let s =
        load("app = \"onoff\"\non_time = \"50ms\"\noff_time = \"150ms\"\nonoff_dist = \"fixed\"")
            .unwrap();
    assert_eq!(
        app_of(&s),
        App::OnOff {
            on: Dur::from_millis(50),
            off: Dur::from_millis(150),
            dist: crate::app::PeriodDist::Fixed
        }
    );
}

// Bad input names file, line and key (project rule; scenario/load.rs patterns).
#[test]
fn workload_errors_name_file_line_and_key() {
    let p = "app = \"poisson\"\n";
    let cases: Vec<(String, usize, &str, &str)> = vec![
        (
            p.to_string(),
            20,
            "flows.w.arrival_rate",
            "missing required key `arrival_rate`",
        ),
        (
            format!("{p}arrival_rate = -1.0\nsize_dist = \"exponential\"\nsize_mean = 1000"),
            24,
            "flows.w.arrival_rate",
            "expected a positive number of flows per second; got -1",
        ),
        (
            format!("{p}arrival_rate = 1.0"),
            20,
            "flows.w.size_dist",
            "missing required key `size_dist`",
        ),
        (
            format!("{p}arrival_rate = 1.0\nsize_dist = \"pareto\"\nsize_mean = 1000"),
            20,
            "flows.w.size_shape",
            "missing required key `size_shape`",
        ),
        (
            format!("{p}arrival_rate = 1.0\nsize_dist = \"pareto\"\nsize_mean = 1000\nsize_shape = 1.0"),
            27,
            "flows.w.size_shape",
            "expected a Pareto shape above 1",
        ),
        (
            format!("{p}arrival_rate = 1.0\nsize_dist = \"exponential\"\nsize_mean = 1000\nsize_sigma = 2.0"),
            27,
            "flows.w.size_sigma",
            "`size_sigma` is not read by size_dist = \"exponential\"",
        ),
        (
            format!("{p}arrival_rate = 1.0\nsize_dist = \"exponential\"\nsize_mean = 0"),
            26,
            "flows.w.size_mean",
            "expected a positive byte count",
        ),
        (
            format!("{p}arrival_rate = 1.0\nsize_dist = \"weibull\""),
            25,
            "flows.w.size_dist",
            "weibull",
        ),
        (
            format!("{p}arrival_rate = 1.0\nsize_cdf = \"nowhere.cdf\""),
            25,
            "flows.w.size_cdf",
            "cannot read the CDF file",
        ),
        (
            format!("{p}arrival_rate = 1.0\nsize = 1000"),
            25,
            "flows.w.size",
            "only allowed with app = \"file\"",
        ),
        (
            "arrival_rate = 1.0".to_string(),
            23,
            "flows.w.arrival_rate",
            "only allowed with app = \"poisson\"",
        ),
        (
            "app = \"onoff\"\non_time = \"10ms\"".to_string(),
            20,
            "flows.w.off_time",
            "missing required key `off_time`",
        ),
        (
            "app = \"onoff\"\non_time = \"0s\"\noff_time = \"1s\"".to_string(),
            24,
            "flows.w.on_time",
            "expected a positive duration",
        ),
        (
            "app = \"file\"\nsize = 10\non_time = \"1s\"".to_string(),
            25,
            "flows.w.on_time",
            "only allowed with app = \"onoff\"",
        ),
    ];
    for (keys, line, key, what) in cases {
        let e = load(&keys).expect_err(&keys);
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("{}:{line}: {key}: ", origin())),
            "expected line {line}, key {key}; got: {msg}"
        );
        assert!(msg.contains(what), "expected {what:?} in: {msg}");
    }
}

// A CDF file's own error carries its path and line, under the key `size_cdf`.
#[test]
fn bad_cdf_file_is_located_in_the_file() {
    let dir = std::env::temp_dir().join(format!("packetsim-cdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.cdf"), "# sizes\n1000 0.5\n500 1\n").unwrap();
    let text = format!("{BASE}app = \"poisson\"\narrival_rate = 1.0\nsize_cdf = \"bad.cdf\"\n");
    let origin = dir.join("s.toml").display().to_string();
    let e = load_str(&text, &origin, &[]).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(e.contains(":25: flows.w.size_cdf: "), "{e}");
    assert!(
        e.contains("bad.cdf: line 3: points must not decrease"),
        "{e}"
    );
}

fn poisson_run(seed: u64) -> Outcome {
    let s = load(
        "app = \"poisson\"\narrival_rate = 40.0\nsize_dist = \"exponential\"\nsize_mean = \"20KB\"",
    )
    .unwrap();
    run(&s, seed).unwrap()
}

// scenario/flow/tcp.rs module doc: arrivals and sizes come from the seed's streams only;
// 40 flows/s for 2 s is 80 arrivals expected (standard deviation 8.9); every short transfer
// on an idle 10 Mb/s path finishes, and none faster than its ideal FCT (report/fct.rs).
#[test]
fn poisson_runs_are_reproducible_per_seed_and_report_fct() {
    let a = poisson_run(3);
    let b = poisson_run(3);
    let c = poisson_run(4);
    let csv = |o: &Outcome| crate::report::fct::csv(&o.summary.fct_rows);
    assert_eq!(csv(&a), csv(&b));
    assert_ne!(csv(&a), csv(&c));
    let n = a.summary.fct_rows.len();
    assert!((53..=107).contains(&n), "{n} arrivals");
    assert_eq!(a.world.flows.len(), n);
    assert!(a.summary.flows.contains_key("w_0"));
    let fct = &a.summary.fct.as_ref().unwrap()["w"];
    assert_eq!(fct.flows, n as u64);
    // Flows arriving in the last ~100 ms may not finish; the rest do.
    assert!(fct.completed + 8 >= fct.flows, "{fct:?}");
    for r in &a.summary.fct_rows {
        if let Some(sd) = r.slowdown() {
            assert!(sd >= 1.0, "{r:?}");
        }
        // 3 × 11 ms of propagation plus the bytes with headers at 10 Mb/s.
        let segs = r.bytes.div_ceil(1460);
        let ideal = 0.033 + (r.bytes + 40 * segs) as f64 * 8.0 / 1e7;
        assert!((r.ideal_s - ideal).abs() < 1e-9, "{r:?}");
    }
    // Arrival times are increasing and within [0, 2 s).
    let starts: Vec<f64> = a.summary.fct_rows.iter().map(|r| r.start_s).collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]) && starts[n - 1] < 2.0);
    assert!(a.summary.to_json().contains("\"fct\""));
}

// A scenario without workloads writes no `fct` (golden outputs stay as they were).
#[test]
fn runs_without_workloads_have_no_fct() {
    let s = load("app = \"file\"\nsize = \"10KB\"").unwrap();
    let o = run(&s, 1).unwrap();
    assert!(o.summary.fct.is_none() && o.summary.fct_rows.is_empty());
    assert!(!o.summary.to_json().contains("\"fct\""));
}

// app/onoff.rs: a fixed 100 ms on / 400 ms off source sends only in its on periods.
#[test]
fn onoff_source_sends_only_while_on() {
    let mut s =
        load("app = \"onoff\"\non_time = \"100ms\"\noff_time = \"400ms\"\nonoff_dist = \"fixed\"")
            .unwrap();
    s.simulation.sample_interval = Some(Dur::from_millis(10));
    let o = run(&s, 1).unwrap();
    let series = o.world.series.as_ref().unwrap();
    let delivered: Vec<(f64, u64)> = series
        .delivered
        .iter()
        .map(|d| (d.time.as_secs_f64(), d.bytes))
        .collect();
    // Nothing new is sent from 100 ms to 500 ms: deliveries stop within one RTT (~30 ms
    // plus queueing) of the switch off and resume only after 500 ms.
    let at = |t: f64| delivered.iter().rfind(|d| d.0 <= t + 1e-9).unwrap().1;
    assert!(at(0.1) > 0);
    assert_eq!(at(0.25), at(0.5));
    assert!(at(0.7) > at(0.5));
    assert_eq!(at(1.25), at(1.5));
    assert!(o.summary.flows["w"].bytes_delivered > 0);
}
