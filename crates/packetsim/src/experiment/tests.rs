//! Sweep tests with a fake deterministic runner (metrics computed from the seed and point).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::test_support::TempDir;
use super::*;

fn params(args: &[&str]) -> Vec<Param> {
    args.iter().map(|a| a.parse().unwrap()).collect()
}

fn spec(dir: &TempDir, params: Vec<Param>, runs: u32, jobs: usize) -> SweepSpec {
    SweepSpec {
        experiment_key: "test-scenario@v1".into(),
        params,
        runs,
        base_seed: 2024,
        jobs,
        out_dir: dir.path().to_path_buf(),
        progress: false,
        shared_seed_params: Vec::new(),
    }
}

/// Deterministic metrics: from the seed, plus one from the value of `a` if swept, plus one
/// that is not available for odd seeds.
fn fake_output(point: &GridPoint, seed: u64) -> RunOutput {
    let a: f64 = point
        .assignments
        .iter()
        .find(|(p, _)| p == "a")
        .map_or(0.0, |(_, v)| v.parse().unwrap());
    RunOutput {
        summary_json: format!("{{\"seed\":{seed}}}"),
        metrics: vec![
            ("noise".into(), Some((seed % 1000) as f64 / 7.0)),
            ("twice_a".into(), Some(2.0 * a)),
            ("even_only_s".into(), (seed & 1 == 0).then_some(1.0)),
        ],
    }
}

fn fake_runner(point: &GridPoint, seed: u64) -> Result<RunOutput, String> {
    Ok(fake_output(point, seed))
}

fn read(dir: &TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.path().join(name)).unwrap()
}

fn stored_count(dir: &TempDir, key: &str) -> usize {
    ResultsStore::open(dir.path())
        .unwrap()
        .load_runs(key)
        .unwrap()
        .len()
}

#[test]
fn sweep_fresh_computes_all_runs_and_writes_csvs() {
    let dir = TempDir::new("fresh");
    let s = spec(&dir, params(&["a=1,2", "b=x,y,z"]), 3, 2);
    let report = sweep(&s, fake_runner).unwrap();
    assert_eq!((report.computed, report.reused), (18, 0));
    assert_eq!(report.points.len(), 6);
    assert_eq!(stored_count(&dir, &s.experiment_key), 18);

    // Point 4 is (a=2, b=y); check its numbers against the runner directly.
    let p4 = &report.points[4];
    assert_eq!(p4.point.to_string(), "point#4 (a=2, b=y)");
    let names: Vec<&str> = p4.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["noise", "twice_a", "even_only_s"]);
    let noise: Vec<Option<f64>> = (0..3)
        .map(|r| fake_output(&p4.point, run_seed(2024, &p4.point, r)).metrics[0].1)
        .collect();
    assert_eq!(p4.metrics[0], MetricSummary::from_values("noise", &noise));
    assert_eq!((p4.metrics[1].mean, p4.metrics[1].n), (4.0, 3));
    let even = &p4.metrics[2];
    assert_eq!(even.n + even.missing, 3);
    // The per-run values behind point 4, in replication order with their seeds (what paired
    // comparisons use).
    assert_eq!(report.runs.len(), 6);
    let r4: Vec<(u32, u64, Option<f64>)> = report.runs[4]
        .iter()
        .map(|r| (r.replication, r.seed, r.metrics[0].1))
        .collect();
    let want: Vec<(u32, u64, Option<f64>)> = (0..3)
        .map(|r| (r, run_seed(2024, &p4.point, r), noise[r as usize]))
        .collect();
    assert_eq!(r4, want);

    let results = read(&dir, "results.csv");
    let lines: Vec<&str> = results.lines().collect();
    assert_eq!(
        lines[0],
        "a,b,metric,n,missing,mean,std_dev,ci95_low,ci95_high,median,min,max"
    );
    assert_eq!(lines.len(), 1 + 6 * 3);
    assert!(lines[1].starts_with("1,x,noise,3,0,"));
    assert_eq!(lines[14], "2,y,twice_a,3,0,4.0,0.0,4.0,4.0,4.0,4.0,4.0");

    let runs = read(&dir, "runs.csv");
    let lines: Vec<&str> = runs.lines().collect();
    assert_eq!(lines[0], "a,b,replication,seed,metric,value");
    assert_eq!(lines.len(), 1 + 18 * 3);
    let seed = run_seed(2024, &report.points[0].point, 0);
    assert!(lines[1].starts_with(&format!("1,x,0,{seed},noise,")));
}

#[test]
fn parameters_with_units_get_si_columns_at_the_end() {
    // d: durations; r: one rate; q: bytes, one plain and one with a unit; v: words; k: plain
    // numbers. Only d, r and q have units (issue 12: values with units also as SI numbers).
    let dir = TempDir::new("si");
    let s = spec(
        &dir,
        params(&["d=20ms,1s", "r=2Mbps", "q=1500,64KiB", "v=reno", "k=3"]),
        1,
        1,
    );
    let report = sweep(&s, |_: &GridPoint, _| -> Result<RunOutput, String> {
        Ok(RunOutput {
            summary_json: "{}".into(),
            metrics: vec![("m".into(), Some(1.0))],
        })
    })
    .unwrap();
    let results = read(&dir, "results.csv");
    let want = "d,r,q,v,k,metric,n,missing,mean,std_dev,ci95_low,ci95_high,median,min,max,\
                d_s,r_bps,q_bytes\n\
                20ms,2Mbps,1500,reno,3,m,1,0,1.0,,,,1.0,1.0,1.0,0.02,2000000.0,1500.0\n\
                20ms,2Mbps,64KiB,reno,3,m,1,0,1.0,,,,1.0,1.0,1.0,0.02,2000000.0,65536.0\n\
                1s,2Mbps,1500,reno,3,m,1,0,1.0,,,,1.0,1.0,1.0,1.0,2000000.0,1500.0\n\
                1s,2Mbps,64KiB,reno,3,m,1,0,1.0,,,,1.0,1.0,1.0,1.0,2000000.0,65536.0\n";
    assert_eq!(results, want);
    let runs = read(&dir, "runs.csv");
    let lines: Vec<&str> = runs.lines().collect();
    assert_eq!(
        lines[0],
        "d,r,q,v,k,replication,seed,metric,value,d_s,r_bps,q_bytes"
    );
    let seed = run_seed(2024, &report.points[3].point, 0);
    assert_eq!(
        lines[4],
        format!("1s,2Mbps,64KiB,reno,3,0,{seed},m,1.0,1.0,2000000.0,65536.0")
    );
    assert_eq!(lines.len(), 5);
}

#[test]
fn sweep_rerun_reuses_everything_and_rewrites_same_csv() {
    let dir = TempDir::new("rerun");
    let mut s = spec(&dir, params(&["a=1,2"]), 4, 0);
    s.progress = true;
    sweep(&s, fake_runner).unwrap();
    let first = read(&dir, "results.csv");
    let report = sweep(&s, |_: &GridPoint, _| -> Result<RunOutput, String> {
        panic!("nothing should be recomputed")
    })
    .unwrap();
    assert_eq!((report.computed, report.reused), (0, 8));
    assert_eq!(read(&dir, "results.csv"), first);
}

/// Records each successful (point key, replication-seed) call; fails every call from the
/// `fail_from`-th on (counting from 0) while `fail_from` is set.
struct CountingRunner {
    calls: AtomicUsize,
    fail_from: Option<usize>,
    succeeded: Mutex<HashMap<(String, u64), usize>>,
}

impl CountingRunner {
    fn new(fail_from: Option<usize>) -> Self {
        CountingRunner {
            calls: AtomicUsize::new(0),
            fail_from,
            succeeded: Mutex::new(HashMap::new()),
        }
    }

    fn run(&self, point: &GridPoint, seed: u64) -> Result<RunOutput, String> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        if self.fail_from.is_some_and(|k| n >= k) {
            return Err("boom: simulated failure".into());
        }
        *self
            .succeeded
            .lock()
            .unwrap()
            .entry((point.key(), seed))
            .or_default() += 1;
        Ok(fake_output(point, seed))
    }
}

#[test]
fn sweep_failing_runner_keeps_finished_runs_and_resume_computes_the_rest() {
    let dir = TempDir::new("resume");
    let s = spec(&dir, params(&["a=1,2,3", "b=x,y"]), 4, 2);
    let total = 3 * 2 * 4;
    let k = 7;

    let failing = CountingRunner::new(Some(k));
    let err = sweep(&s, |p: &GridPoint, seed| failing.run(p, seed)).unwrap_err();
    match &err {
        ExperimentError::Run {
            point,
            seed,
            message,
            ..
        } => {
            assert!(point.starts_with("point#"), "{point}");
            assert!(message.contains("boom"));
            assert!(err.to_string().contains(&seed.to_string()));
        }
        other => panic!("expected a run error, got {other:?}"),
    }
    assert_eq!(stored_count(&dir, &s.experiment_key), k);
    // No CSV is written for an unfinished sweep.
    assert!(!dir.path().join("results.csv").exists());

    let good = CountingRunner::new(None);
    let report = sweep(&s, |p: &GridPoint, seed| good.run(p, seed)).unwrap();
    assert_eq!((report.computed, report.reused), (total - k, k));
    assert_eq!(good.calls.load(Ordering::SeqCst), total - k);
    assert_eq!(stored_count(&dir, &s.experiment_key), total);

    // Every (point, replication) succeeded exactly once over both sweeps.
    let mut all = failing.succeeded.into_inner().unwrap();
    for (key, n) in good.succeeded.into_inner().unwrap() {
        *all.entry(key).or_default() += n;
    }
    assert_eq!(all.len(), total);
    assert!(all.values().all(|&n| n == 1), "{all:?}");
    for pt in grid(&s.params) {
        for r in 0..s.runs {
            assert!(all.contains_key(&(pt.key(), run_seed(s.base_seed, &pt, r))));
        }
    }

    // The resumed result equals an uninterrupted sweep's.
    let clean = TempDir::new("resume-clean");
    sweep(&spec(&clean, s.params.clone(), 4, 1), fake_runner).unwrap();
    assert_eq!(read(&dir, "results.csv"), read(&clean, "results.csv"));
    assert_eq!(read(&dir, "runs.csv"), read(&clean, "runs.csv"));
}

#[test]
fn sweep_single_job_stops_at_first_failure() {
    let dir = TempDir::new("stop");
    let s = spec(&dir, params(&["a=1,2,3,4"]), 5, 1);
    let runner = CountingRunner::new(Some(3));
    assert!(sweep(&s, |p: &GridPoint, seed| runner.run(p, seed)).is_err());
    assert_eq!(runner.calls.load(Ordering::SeqCst), 4);
    assert_eq!(stored_count(&dir, &s.experiment_key), 3);
}

#[test]
fn sweep_jobs_one_and_two_give_identical_csv() {
    let (d1, d2) = (TempDir::new("jobs1"), TempDir::new("jobs2"));
    let ps = params(&["a=0.5,1.5,2.5", "b=p,q"]);
    // Varying run times scramble the completion order with two jobs.
    let slow = |p: &GridPoint, seed: u64| {
        std::thread::sleep(Duration::from_millis(seed % 4));
        fake_runner(p, seed)
    };
    let r1 = sweep(&spec(&d1, ps.clone(), 6, 1), slow).unwrap();
    let r2 = sweep(&spec(&d2, ps, 6, 2), slow).unwrap();
    assert_eq!(r1.points, r2.points);
    assert_eq!(read(&d1, "results.csv"), read(&d2, "results.csv"));
    assert_eq!(read(&d1, "runs.csv"), read(&d2, "runs.csv"));
}

#[test]
fn sweep_added_value_and_more_runs_reuse_existing_points() {
    let dir = TempDir::new("grow");
    let first = sweep(&spec(&dir, params(&["a=1,2"]), 2, 2), fake_runner).unwrap();
    assert_eq!(first.computed, 4);
    let grown = sweep(&spec(&dir, params(&["a=0,1,2"]), 3, 2), fake_runner).unwrap();
    // Old points keep replications 0 and 1; new: point a=0 (3 runs) + replication 2 twice.
    assert_eq!((grown.computed, grown.reused), (5, 4));
    // Point a=1 moved from index 0 to 1; its first two runs are the same numbers.
    let noise = |r: &SweepReport, i: usize| r.points[i].metrics[0].clone();
    let a1 = &grown.points[1].point;
    let values: Vec<Option<f64>> = (0..3)
        .map(|r| fake_output(a1, run_seed(2024, a1, r)).metrics[0].1)
        .collect();
    assert_eq!(
        noise(&grown, 1),
        MetricSummary::from_values("noise", &values)
    );
    assert_eq!(
        noise(&first, 0),
        MetricSummary::from_values("noise", &values[..2])
    );
    // Asking for fewer runs again aggregates only replications 0..runs.
    let fewer = sweep(&spec(&dir, params(&["a=2,1"]), 2, 2), fake_runner).unwrap();
    assert_eq!((fewer.computed, fewer.reused), (0, 4));
    assert_eq!(noise(&fewer, 1), noise(&first, 0));
}

#[test]
fn sweep_other_experiment_key_shares_nothing() {
    let dir = TempDir::new("keys");
    let mut s = spec(&dir, vec![], 3, 1);
    assert_eq!(sweep(&s, fake_runner).unwrap().computed, 3);
    s.experiment_key = "test-scenario@v2".into();
    let report = sweep(&s, fake_runner).unwrap();
    assert_eq!((report.computed, report.reused), (3, 0));
    // No parameters: one point, no parameter columns.
    assert_eq!(report.points.len(), 1);
    assert!(read(&dir, "results.csv").starts_with("metric,n,missing,"));
}

#[test]
fn sweep_other_base_seed_in_same_store_is_refused() {
    let dir = TempDir::new("seed-mismatch");
    let mut s = spec(&dir, params(&["a=1,2"]), 2, 1);
    sweep(&s, fake_runner).unwrap();
    s.base_seed += 1;
    let err = sweep(&s, fake_runner).unwrap_err();
    assert!(
        matches!(err, ExperimentError::SeedMismatch { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("results.sqlite"), "{err}");
}

#[test]
fn experiment_key_changes_with_scenario_text() {
    let k = experiment_key("dumbbell", "[links.a]\nrate = \"10Mbps\"\n");
    assert!(k.starts_with(&format!("dumbbell@{}#", super::code_version())));
    assert!(super::code_version().starts_with(concat!(env!("CARGO_PKG_VERSION"), "+exe.")));
    assert_eq!(
        k,
        experiment_key("dumbbell", "[links.a]\nrate = \"10Mbps\"\n")
    );
    assert_ne!(
        k,
        experiment_key("dumbbell", "[links.a]\nrate = \"20Mbps\"\n")
    );
}

#[test]
fn sweep_panicking_runner_is_a_run_error() {
    let dir = TempDir::new("panic");
    let s = spec(&dir, params(&["a=1"]), 1, 1);
    let err = sweep(&s, |_: &GridPoint, _| -> Result<RunOutput, String> {
        panic!("scenario exploded")
    })
    .unwrap_err();
    assert!(
        matches!(&err, ExperimentError::Run { message, .. } if message.contains("scenario exploded")),
        "{err:?}"
    );
}

#[test]
fn sweep_metric_reported_twice_is_a_run_error() {
    let dir = TempDir::new("dup-metric");
    let s = spec(&dir, vec![], 1, 1);
    let err = sweep(&s, |_: &GridPoint, _| {
        Ok(RunOutput {
            summary_json: "{}".into(),
            metrics: vec![("m".into(), Some(1.0)), ("m".into(), Some(2.0))],
        })
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("`m` reported more than once"),
        "{err}"
    );
    assert_eq!(stored_count(&dir, &s.experiment_key), 0);
}

#[test]
fn sweep_invalid_params_rejected_before_any_run() {
    let dir = TempDir::new("bad-params");
    let ps = vec![
        Param {
            path: "a".into(),
            values: vec!["1".into()],
        },
        Param {
            path: "a".into(),
            values: vec!["2".into()],
        },
    ];
    let err = sweep(
        &spec(&dir, ps, 1, 1),
        |_: &GridPoint, _| -> Result<RunOutput, String> { panic!("must not run") },
    )
    .unwrap_err();
    assert!(matches!(
        err,
        ExperimentError::Param(ParamError::DuplicatePath { .. })
    ));
}

const KILL_DIR_ENV: &str = "PACKETSIM_EXPERIMENT_KILL_TEST_DIR";

fn kill_test_spec(dir: &std::path::Path) -> SweepSpec {
    SweepSpec {
        experiment_key: "kill-test".into(),
        params: params(&["a=1,2,3,4"]),
        runs: 10,
        base_seed: 9,
        jobs: 2,
        out_dir: dir.to_path_buf(),
        progress: false,
        shared_seed_params: Vec::new(),
    }
}

/// Not a test of its own: the child process of `sweep_killed_process_resumes_cleanly`.
#[test]
#[ignore = "run as a child process by sweep_killed_process_resumes_cleanly"]
fn sweep_child_for_kill_test() {
    let Some(dir) = std::env::var_os(KILL_DIR_ENV) else {
        return;
    };
    let s = kill_test_spec(std::path::Path::new(&dir));
    sweep(&s, |p: &GridPoint, seed| {
        std::thread::sleep(Duration::from_millis(25));
        fake_runner(p, seed)
    })
    .unwrap();
}

#[test]
fn sweep_killed_process_resumes_cleanly() {
    let dir = TempDir::new("killed");
    let s = kill_test_spec(dir.path());
    let total = 4 * 10;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "experiment::tests::sweep_child_for_kill_test",
        ])
        .env(KILL_DIR_ENV, dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it (SIGKILL on Unix) once a few runs are committed.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let stored = dir.path().join("results.sqlite").exists()
            && stored_count(&dir, &s.experiment_key) >= 6;
        if stored || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // Every stored run is whole: all its metrics are there.
    let runs = ResultsStore::open(dir.path())
        .unwrap()
        .load_runs(&s.experiment_key)
        .unwrap();
    assert!(runs.len() >= 6 && runs.len() < total, "{} runs", runs.len());
    for r in &runs {
        assert_eq!(r.metrics.len(), 3, "{r:?}");
    }

    let report = sweep(&s, fake_runner).unwrap();
    assert_eq!(
        (report.computed, report.reused),
        (total - runs.len(), runs.len())
    );
    let clean = TempDir::new("killed-clean");
    let mut cs = kill_test_spec(clean.path());
    cs.jobs = 1;
    sweep(&cs, fake_runner).unwrap();
    assert_eq!(read(&dir, "results.csv"), read(&clean, "results.csv"));
}

// ---- sharded sweeps and merge (experiment/shard.rs) ----

fn sharded(dir: &TempDir, params: Vec<Param>, runs: u32, shard: Shard) -> SweepReport {
    sweep_sharded(&spec(dir, params, runs, 2), Some(shard), fake_runner).unwrap()
}

#[test]
fn shard_parse_accepts_i_of_n_from_zero_and_rejects_the_rest() {
    assert_eq!("0/4".parse::<Shard>().unwrap(), Shard::new(0, 4).unwrap());
    assert_eq!(
        " 3 / 4 ".parse::<Shard>().unwrap(),
        Shard::new(3, 4).unwrap()
    );
    for bad in ["4/4", "1/0", "0/0", "-1/4", "1", "a/b", "1/4/2", ""] {
        let e = bad.parse::<Shard>().unwrap_err();
        assert!(e.contains("I/N"), "{bad}: {e}");
    }
}

#[test]
fn shards_partition_the_runs_round_robin_and_keep_the_seeds() {
    // 3 points x 5 runs = 15 runs over 4 shards: run numbers 0..15, shard = number mod 4.
    let ps = params(&["a=1,2,3"]);
    let whole = TempDir::new("shard-whole-seeds");
    let w = sweep(&spec(&whole, ps.clone(), 5, 2), fake_runner).unwrap();
    let mut seen = HashMap::new();
    for i in 0..4 {
        let dir = TempDir::new("shard-part-seeds");
        let r = sharded(&dir, ps.clone(), 5, Shard::new(i, 4).unwrap());
        let expect = (0..15).filter(|n| n % 4 == i as usize).count();
        assert_eq!(r.computed, expect, "shard {i}");
        // No CSV for a part; a manifest naming the shard.
        assert!(!dir.path().join("results.csv").exists());
        let m = SweepManifest::read(dir.path()).unwrap();
        assert_eq!(m.shard, Shard::new(i, 4).unwrap());
        for run in ResultsStore::open(dir.path())
            .unwrap()
            .load_runs("test-scenario@v1")
            .unwrap()
        {
            let pi = ["[[\"a\",\"1\"]]", "[[\"a\",\"2\"]]", "[[\"a\",\"3\"]]"]
                .iter()
                .position(|k| *k == run.point_key)
                .unwrap();
            assert_eq!((pi * 5 + run.replication as usize) % 4, i as usize);
            assert!(seen
                .insert((run.point_key.clone(), run.replication), run.seed)
                .is_none());
        }
    }
    assert_eq!(seen.len(), 15);
    for (pi, list) in w.runs.iter().enumerate() {
        for r in list {
            assert_eq!(
                seen[&(r.point_key.clone(), r.replication)],
                r.seed,
                "point {pi}"
            );
        }
    }
}

/// The identity: a sweep split in 4 shards and merged gives a results.csv (and
/// runs.csv) byte-identical to the whole sweep's.
#[test]
fn merge_of_four_shards_is_byte_identical_to_the_whole_sweep() {
    let ps = params(&["a=0.5,1,2", "b=x,y"]);
    let whole = TempDir::new("merge-whole");
    sweep(&spec(&whole, ps.clone(), 3, 2), fake_runner).unwrap();
    let parts: Vec<TempDir> = (0..4).map(|_| TempDir::new("merge-part")).collect();
    for (i, dir) in parts.iter().enumerate() {
        sharded(dir, ps.clone(), 3, Shard::new(i as u32, 4).unwrap());
    }
    let out = TempDir::new("merge-out");
    let inputs: Vec<_> = parts.iter().map(|d| d.path().to_path_buf()).collect();
    let rep = merge(out.path(), &inputs).unwrap();
    assert_eq!((rep.runs, rep.duplicates), (18, 0));
    assert_eq!(read(&out, "results.csv"), read(&whole, "results.csv"));
    assert_eq!(read(&out, "runs.csv"), read(&whole, "runs.csv"));
    assert_eq!(SweepManifest::read(out.path()).unwrap().shard, Shard::WHOLE);
    // Merging again (the output now holds every run) changes nothing and counts duplicates.
    let again = merge(out.path(), &inputs).unwrap();
    assert_eq!(again.duplicates, 18);
    assert_eq!(read(&out, "results.csv"), read(&whole, "results.csv"));
}

#[test]
fn merge_reports_missing_runs_and_their_shards_and_writes_no_csv() {
    let ps = params(&["a=1,2"]);
    let parts: Vec<TempDir> = (0..3).map(|_| TempDir::new("merge-miss")).collect();
    for (i, dir) in parts.iter().enumerate().take(2) {
        sharded(dir, ps.clone(), 3, Shard::new(i as u32, 3).unwrap());
    }
    let out = TempDir::new("merge-miss-out");
    let inputs: Vec<_> = parts[..2].iter().map(|d| d.path().to_path_buf()).collect();
    let err = merge(out.path(), &inputs).unwrap_err();
    // Shard 2/3 owns run numbers 2 and 5: (a=1, rep 2) and (a=2, rep 2).
    match &err {
        ExperimentError::MergeMissing {
            missing,
            total,
            shards,
            ..
        } => assert_eq!((*missing, *total, shards.as_str()), (2, 6, "2/3")),
        e => panic!("{e:?}"),
    }
    assert!(err.to_string().contains("replication 2"), "{err}");
    assert!(!out.path().join("results.csv").exists());
    // Computing the missing shard and merging it alone completes the output.
    sharded(&parts[2], ps.clone(), 3, Shard::new(2, 3).unwrap());
    merge(out.path(), &[parts[2].path().to_path_buf()]).unwrap();
    let whole = TempDir::new("merge-miss-whole");
    sweep(&spec(&whole, ps, 3, 1), fake_runner).unwrap();
    assert_eq!(read(&out, "results.csv"), read(&whole, "results.csv"));
}

#[test]
fn merge_refuses_disagreeing_duplicates_and_other_sweeps() {
    let ps = params(&["a=1,2"]);
    let a = TempDir::new("merge-dup-a");
    let b = TempDir::new("merge-dup-b");
    sharded(&a, ps.clone(), 2, Shard::WHOLE);
    // The same sweep computed by a runner that differs in one metric of one run.
    let s = spec(&b, ps.clone(), 2, 1);
    sweep_sharded(&s, Some(Shard::WHOLE), |p, seed| {
        let mut o = fake_output(p, seed);
        if p.index == 1 {
            o.metrics[1].1 = Some(-1.0);
        }
        Ok(o)
    })
    .unwrap();
    let out = TempDir::new("merge-dup-out");
    let err = merge(
        out.path(),
        &[a.path().to_path_buf(), b.path().to_path_buf()],
    )
    .unwrap_err();
    assert!(
        matches!(err, ExperimentError::MergeConflict { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("twice_a"), "{err}");

    // Another sweep (more replications) is refused before anything is read.
    let c = TempDir::new("merge-other");
    sharded(&c, ps, 3, Shard::WHOLE);
    let out2 = TempDir::new("merge-other-out");
    let err = merge(
        out2.path(),
        &[a.path().to_path_buf(), c.path().to_path_buf()],
    )
    .unwrap_err();
    assert!(err.to_string().contains("different sweeps"), "{err}");
    // A directory with no manifest names the file.
    let empty = TempDir::new("merge-nomanifest");
    let err = merge(out2.path(), &[empty.path().to_path_buf()]).unwrap_err();
    assert!(err.to_string().contains("sweep.json"), "{err}");
}

// Issue 12 item 7: a sweep point whose replications all gave the same metrics has no source
// of randomness; the report names it so the caller can warn.
#[test]
fn identical_replications_are_reported_per_point() {
    let dir = TempDir::new("identical");
    // Only `twice_a` (no seed dependence) at a=1; every metric seed-dependent at a=2.
    let report = sweep(&spec(&dir, params(&["a=1,2"]), 3, 1), |point, seed| {
        let mut out = fake_output(point, seed);
        if point.assignments[0].1 == "1" {
            out.metrics.retain(|(n, _)| n == "twice_a");
        }
        Ok(out)
    })
    .unwrap();
    let names: Vec<String> = report
        .identical_points()
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(names, ["point#0 (a=1)"]);

    // One replication proves nothing either way: no point is reported.
    let dir = TempDir::new("identical-one");
    let report = sweep(&spec(&dir, params(&["a=1,2"]), 1, 1), |_, _| {
        Ok(RunOutput {
            summary_json: "{}".into(),
            metrics: vec![("x".into(), Some(1.0))],
        })
    })
    .unwrap();
    assert!(report.identical_points().is_empty());
}

/// Experiment keys name a scenario text by the first 64 bits of its SHA-256 (FIPS 180-4's
/// example: SHA-256("abc") = ba7816bf 8f01cfea ...).
#[test]
fn content_hash_is_the_first_64_bits_of_sha256() {
    assert_eq!(super::content_hash(b"abc"), 0xba78_16bf_8f01_cfea);
    let key = super::experiment_key("x.toml", "abc");
    assert!(
        key.starts_with("x.toml@") && key.ends_with("#ba7816bf8f01cfea"),
        "{key}"
    );
}
