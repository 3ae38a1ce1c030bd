"""The packetsim Python API (issue 13): load/run/sweep/merge/reproduce, errors, dtypes,
sharding, executors. Run by ./test.sh."""

import concurrent.futures
import filecmp
import json
import os
import pathlib
import subprocess
import threading
import time

import pandas as pd
import pytest

import packetsim

# Most tests sweep grids with a point without loss (identical replications); the warning
# that gives is tested on its own (test_identical_replications_warn_as_the_cli_does).
pytestmark = pytest.mark.filterwarnings("ignore::packetsim.IdenticalReplicationsWarning")

REPO = pathlib.Path(__file__).resolve().parents[3]
DUMBBELL = REPO / "scenarios" / "dumbbell.toml"

SMALL = """[simulation]
duration = "2s"
seed = 5

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
size = "200KB"
"""

GRID = {"links.ab.loss": [0, 0.02, 0.05], "links.ab.rate": ["5Mbps", "10Mbps"]}


def test_load_file_and_string_and_overrides():
    sc = packetsim.load(DUMBBELL)
    assert (sc.nodes, sc.links, sc.flows) == (4, 3, 4)
    s2 = packetsim.loads(SMALL, {"links.ab.loss": 0.01, "tcp.variant": "sack"}, name="small.toml")
    assert s2.origin == "small.toml" and s2.seed == 5
    assert "loss = 0.01" in s2.text and 'variant = "sack"' in s2.text


def test_run_summary_dict_and_dataframe_dtypes():
    r = packetsim.run(packetsim.loads(SMALL), seed=11)
    assert r.seed == 11 and r.summary["seed"] == 11
    # The summary is the one `packetsim run` writes: flows.f.* are there.
    assert r.summary["flows"]["f"]["bytes_delivered"] == 200_000
    f = r.flows
    assert list(f["flow"]) == ["f"]
    assert f["bytes_delivered"].dtype == "int64" and f["retransmits"].dtype == "int64"
    assert f["goodput_bps"].dtype == "float64" and f["completion_time_s"].dtype == "float64"
    assert f.loc[0, "goodput_bps"] == r.summary["flows"]["f"]["goodput_bps"]
    q = r.queues
    assert set(q["queue"]) == {"ab:a->b", "ab:b->a"}
    assert q["drops"].dtype == "int64" and q["utilisation"].dtype == "float64"
    assert r.flow_series is None and r.queue_series is None


def test_run_same_seed_same_results_other_seed_differs():
    sc = packetsim.loads(SMALL, {"links.ab.loss": 0.03})
    a, b, c = (packetsim.run(sc, seed=s) for s in (1, 1, 2))
    pd.testing.assert_frame_equal(a.flows, b.flows)
    assert a.flows.loc[0, "completion_time_s"] != c.flows.loc[0, "completion_time_s"]


def test_run_matches_the_cli(tmp_path):
    cli = REPO / "target" / "release" / "packetsim"
    if not cli.exists():
        pytest.skip("target/release/packetsim not built")
    subprocess.run(
        [cli, "run", DUMBBELL, "--seed", "3", "--quiet", "--out", tmp_path], check=True
    )
    want = json.loads((tmp_path / "summary.json").read_text())
    got = packetsim.run(DUMBBELL, seed=3).summary
    for d in (want, got):
        d.pop("wall_time_s")
        d.pop("scenario")
    assert got == want


def test_series_frames_when_the_scenario_samples():
    r = packetsim.run(packetsim.loads(SMALL, {"simulation.sample_interval": "100ms"}))
    assert list(r.flow_series.columns) == [
        "time_s", "flow", "cwnd_bytes", "ssthresh_bytes", "srtt_s", "rto_s"
    ]
    assert r.flow_series["cwnd_bytes"].dtype == "int64"
    assert len(r.queue_series) > 0 and r.queue_series["len_pkts"].dtype == "int64"
    # The 200 KB transfer finishes well before the 2 s end: no flow sample after it.
    done = r.flows["completion_time_s"][0]
    assert r.flow_series["time_s"].max() <= done < 2.0
    d = r.delivery_series
    assert list(d.columns) == ["time_s", "flow", "delivered_bytes", "rate_bps"]
    assert d["delivered_bytes"].max() <= 200_000 and d["time_s"].max() <= done


def test_bad_scenario_raises_with_file_line_and_key(tmp_path):
    bad = SMALL.replace('rate = "10Mbps"', 'rate = "10 Mbs"')
    p = tmp_path / "bad.toml"
    p.write_text(bad)
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.load(p)
    assert e.value.file == str(p)
    assert e.value.line == 11
    assert e.value.key == "links.ab.rate"
    assert "expected a rate" in str(e.value)
    assert isinstance(e.value, ValueError)
    # A TOML syntax error in a string.
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads("[simulation\n", name="s.toml")
    assert (e.value.file, e.value.line) == ("s.toml", 1)
    # An override: no line, the key it set.
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads(SMALL, {"links.ab.loss": 2})
    assert (e.value.line, e.value.key) == (None, "links.ab.loss")
    # An unknown node found while assembling (a build error) is located too.
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads(SMALL.replace('to = "b"', 'to = "zz"'))
    assert e.value.key.startswith("flows.f") and e.value.line is not None
    # A file cut short before its flows is refused, not taken as an empty scenario (issue 16),
    # at the file's last key.
    cut = SMALL[: SMALL.index("[flows.f]")]
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads(cut, name="cut.toml")
    assert (e.value.file, e.value.key) == ("cut.toml", "flows")
    assert "cut short" in str(e.value) and e.value.line is not None
    # A missing file.
    with pytest.raises(packetsim.ScenarioError):
        packetsim.load(tmp_path / "nope.toml")
    # Values Python cannot express as an override are a TypeError, not a silent string.
    with pytest.raises(TypeError):
        packetsim.loads(SMALL, {"links.ab.loss": [0.1]})


def test_sweep_is_one_tidy_frame_with_si_parameters_and_seeds(tmp_path):
    df = packetsim.sweep(packetsim.loads(SMALL), GRID, runs=2, out=tmp_path / "s")
    assert len(df) == 3 * 2 * 2
    assert df["links.ab.loss"].dtype == "float64"
    assert df["links.ab.rate"].dtype == "float64"
    assert sorted(df["links.ab.rate"].unique()) == [5e6, 1e7]
    assert df["seed"].dtype == "uint64" and df["replication"].dtype == "int64"
    assert df["flows.f.goodput_bps"].dtype == "float64"
    # Every run of the grid once.
    assert not df.duplicated(["links.ab.loss", "links.ab.rate", "replication"]).any()
    # The CSV files of the CLI's sweep are there, and agree with the frame.
    runs = pd.read_csv(tmp_path / "s" / "runs.csv")
    g = runs[runs.metric == "flows.f.goodput_bps"]["value"].to_numpy()
    assert list(g) == list(df["flows.f.goodput_bps"])
    # Text parameters stay text.
    df2 = packetsim.sweep(packetsim.loads(SMALL), {"tcp.variant": ["reno", "sack"]}, runs=1)
    assert list(df2["tcp.variant"]) == ["reno", "sack"]


def test_sweep_resumes_from_its_store(tmp_path):
    sc = packetsim.loads(SMALL)
    out = tmp_path / "s"
    a = packetsim.sweep(sc, GRID, runs=2, out=out)
    assert (a.attrs["computed"], a.attrs["reused"]) == (12, 0)
    b = packetsim.sweep(sc, GRID, runs=2, out=out)
    assert (b.attrs["computed"], b.attrs["reused"]) == (0, 12)
    pd.testing.assert_frame_equal(a, b)
    # More replications compute only the new ones, also through an executor.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        c = packetsim.sweep(sc, GRID, runs=3, out=out, executor=ex)
    assert (c.attrs["computed"], c.attrs["reused"]) == (6, 12)


def test_sharded_equals_unsharded_byte_for_byte(tmp_path):
    sc = packetsim.loads(SMALL)
    whole = packetsim.sweep(sc, GRID, runs=3, out=tmp_path / "whole")
    parts = [tmp_path / f"part{i}" for i in range(4)]
    sizes = [len(packetsim.sweep(sc, GRID, runs=3, out=p, shard=f"{i}/4")) for i, p in enumerate(parts)]
    assert sizes == [5, 5, 4, 4]  # 18 runs, round robin
    with pytest.raises(RuntimeError, match="shards 3/4"):
        packetsim.merge(tmp_path / "merged", parts[:3])
    merged = packetsim.merge(tmp_path / "merged", parts)
    for f in ("results.csv", "runs.csv"):
        assert filecmp.cmp(tmp_path / "merged" / f, tmp_path / "whole" / f, shallow=False), f
    # merge() returns what sweep() returns (issue 37: it returned results.csv's statistics).
    pd.testing.assert_frame_equal(merged, whole)
    assert len(whole) == 18


def test_run_releases_the_gil():
    # About 5 million events: a few tenths of a second.
    big = SMALL.replace('"200KB"', '"8GB"').replace('"2s"', '"600s"').replace('"10Mbps"', '"100Mbps"')
    sc = packetsim.loads(big)
    done = threading.Event()
    ticks = 0

    def work():
        packetsim.run(sc)
        done.set()

    t = threading.Thread(target=work)
    start = time.monotonic()
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    elapsed = time.monotonic() - start
    # With the GIL held for the whole run, this thread could not tick at all meanwhile.
    assert elapsed > 0.1, f"the run ({elapsed:.3f} s) is too short to tell"
    assert ticks >= 20, (ticks, elapsed)


def test_executor_process_pool_gives_the_same_frame(tmp_path):
    sc = packetsim.loads(SMALL)
    local = packetsim.sweep(sc, GRID, runs=2, out=tmp_path / "local")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as ex:
        pooled = packetsim.sweep(sc, GRID, runs=2, out=tmp_path / "pool", executor=ex)
    pd.testing.assert_frame_equal(local, pooled)
    assert filecmp.cmp(tmp_path / "local" / "results.csv", tmp_path / "pool" / "results.csv", shallow=False)


def _worker_lost():
    raise OSError("worker lost")


class FlakyPool(concurrent.futures.ThreadPoolExecutor):
    """A pool whose third task fails, as a lost cluster worker would."""

    def __init__(self):
        super().__init__(max_workers=1)
        self.n = 0

    def submit(self, fn, *args, **kwargs):
        self.n += 1
        if self.n == 3:
            return super().submit(_worker_lost)
        return super().submit(fn, *args, **kwargs)


def test_executor_failure_propagates_and_a_rerun_completes_exactly_once(tmp_path):
    sc = packetsim.loads(SMALL)
    grid = {"links.ab.loss": [0, 0.02, 0.05]}
    out = tmp_path / "x"
    with FlakyPool() as ex, pytest.raises(OSError, match="worker lost"):
        packetsim.sweep(sc, grid, runs=2, out=out, executor=ex)
    assert not (out / "results.csv").exists()
    again = packetsim.sweep(sc, grid, runs=2, out=out)
    assert again.attrs["computed"] + again.attrs["reused"] == 6
    assert again.attrs["computed"] >= 1
    pd.testing.assert_frame_equal(again, packetsim.sweep(sc, grid, runs=2))


def test_dask_local_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        sc = packetsim.loads(SMALL)
        via_dask = packetsim.sweep(sc, GRID, runs=2, executor=client)
    local = packetsim.sweep(packetsim.loads(SMALL), GRID, runs=2)
    pd.testing.assert_frame_equal(local, via_dask)


def test_reproduce_unknown_study_and_names():
    assert "sctp-multihoming" in packetsim.studies()
    with pytest.raises(ValueError, match="unknown study"):
        packetsim.reproduce("nope")


def test_reproduce_quick_study(tmp_path):
    t = time.monotonic()
    df = packetsim.reproduce("diffserv-ecn", out=tmp_path, quick=True, runs=1)
    assert list(df["name"]) == ["diffserv-ecn"]
    assert os.path.exists(df.loc[0, "report"])
    assert df.loc[0, ["passed", "failed", "undecided"]].sum() > 0
    # Quick verdicts are indicative: the report says so at its top (issue 12 item 6).
    with open(df.loc[0, "report"]) as f:
        assert f.read().startswith("> **Quick mode (`--quick`): indicative only.**")


def test_docs_example_runs_and_prints_what_the_doc_shows():
    import re
    import sys

    doc = (REPO / "docs" / "python.md").read_text()
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    shown = re.search(r"Output:\n\n```text\n(.*?)```", doc, re.S).group(1)
    script = REPO / "docs" / "python_example.py"
    assert script.read_text().endswith(code), "docs/python_example.py differs from the doc"
    got = subprocess.run(
        [sys.executable, script], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout
    assert got == shown


def test_flow_monitor_columns_and_rtt_series():
    """`simulation.flow_monitor`: delay, jitter, loss and RTT columns appended to the flows
    frame (same values as summary.json), sojourn columns to the queues frame, the RTT samples
    as a frame; without it the frames are as before and `rtt_series` is None."""
    plain = packetsim.run(DUMBBELL, seed=3, overrides={"simulation.duration": "5s"})
    assert "delay_mean_s" not in plain.flows.columns
    assert "sojourn_mean_s" not in plain.queues.columns
    assert plain.rtt_series is None
    r = packetsim.run(
        DUMBBELL,
        seed=3,
        overrides={"simulation.duration": "5s", "simulation.flow_monitor": True},
    )
    # The usual columns keep their values: the monitor only watches.
    pd.testing.assert_frame_equal(r.flows[plain.flows.columns], plain.flows)
    f = r.flows.set_index("flow")
    for name, m in r.summary["flows"].items():
        fm = m["flow_monitor"]
        assert f.loc[name, "delay_mean_s"] == fm["delay_mean_s"]
        assert f.loc[name, "rtt_p99_s"] == fm["rtt_p99_s"]
        assert f.loc[name, "rx_packets"] == fm["rx_packets"]
        assert fm["delay_min_s"] <= fm["delay_p50_s"] <= fm["delay_p99_s"] <= fm["delay_max_s"] * 1.001
    assert list(r.rtt_series.columns) == ["flow", "time_s", "rtt_s"]
    counts = r.rtt_series.groupby("flow").size()
    for name, n in counts.items():
        assert n == r.summary["flows"][name]["flow_monitor"]["rtt_samples"]
    assert r.rtt_series.time_s.is_monotonic_increasing
    q = r.queues.set_index("queue")
    assert q.loc["bottleneck:r1->r2", "sojourn_p99_s"] > 0


def test_sweep_and_reproduce_have_exactly_the_clis_limits(tmp_path):
    # Issue 38: jobs=100000 started hundreds of threads and runs=10**7 ten million runs; the
    # CLI refuses both. The same Rust code (experiment::limits) checks both front ends.
    sc = packetsim.loads(SMALL)
    for kw, msg in [
        (dict(jobs=100000), "jobs must be from 0 \\(all cores\\) to"),
        (dict(jobs=-1), "jobs must be from 0"),
        (dict(runs=10**7), "more than 1000000 runs"),
        (dict(runs=-1), "runs must be from 1 to 4294967295; got -1"),
        (dict(seed=-1), "seed must be from 0 to"),
        (dict(seed=2**64), "seed must be from 0 to"),
    ]:
        with pytest.raises(ValueError, match=msg):
            packetsim.sweep(sc, GRID, out=tmp_path / "s", **kw)
    assert not (tmp_path / "s" / "results.csv").exists()
    with pytest.raises(ValueError, match="jobs must be from 0"):
        packetsim.reproduce("diffserv-ecn", out=tmp_path / "r", jobs=100000)
    with pytest.raises(ValueError, match="runs must be from 1"):
        packetsim.reproduce("diffserv-ecn", out=tmp_path / "r", runs=-1)


def test_bad_arguments_are_value_errors_naming_the_argument_and_its_range(tmp_path):
    # Issue 37: run(sc, seed=-1) raised OverflowError. Every integer argument goes through the
    # CLI's limits (experiment::limits), however wide the Python int.
    sc = packetsim.loads(SMALL)
    top = "18446744073709551615"
    for seed in (-1, 2**64, 2**200, -(2**200)):
        with pytest.raises(ValueError) as e:
            packetsim.run(sc, seed=seed)
        assert str(e.value) == f"seed must be from 0 to {top}; got {seed}"
        assert not isinstance(e.value, OverflowError)
    assert packetsim.run(sc, seed=2**64 - 1).seed == 2**64 - 1
    for kw, want in [
        (dict(seed=2**200), f"seed must be from 0 to {top}; got {2**200}"),
        (dict(runs=2**200), f"runs must be from 1 to 4294967295; got {2**200}"),
        (dict(runs=-(2**70)), f"runs must be from 1 to 4294967295; got {-(2**70)}"),
        (dict(shard=(-1, 2)), "shard must be (I, N) with 0 <= I < N <= 4294967295; got (-1, 2)"),
        (dict(shard="3/2"), "shard must be (I, N) with 0 <= I < N <= 4294967295; got (3, 2)"),
        (dict(shard=(0, 2**40)), f"shard must be (I, N) with 0 <= I < N <= 4294967295; got (0, {2**40})"),
        (dict(shard="a/b"), "shard: expected 'I/N' or (I, N); got 'a/b'"),
    ]:
        with pytest.raises(ValueError) as e:
            packetsim.sweep(sc, GRID, out=tmp_path / "s", **kw)
        assert str(e.value) == want and not isinstance(e.value, OverflowError)
    with pytest.raises(ValueError) as e:
        packetsim.sweep(sc, GRID, out=tmp_path / "s", jobs=2**200)
    assert str(e.value).startswith("jobs must be from 0 (all cores) to ")
    assert str(e.value).endswith(f"; got {2**200}")
    with pytest.raises(ValueError) as e:
        packetsim.reproduce("diffserv-ecn", out=tmp_path / "r", runs=2**64)
    assert str(e.value) == f"runs must be from 1 to 4294967295; got {2**64}"
    with pytest.raises(ValueError) as e:
        packetsim.reproduce("diffserv-ecn", out=tmp_path / "r", jobs=-(2**200))
    assert str(e.value).endswith(f"; got {-(2**200)}")
    assert not (tmp_path / "s" / "results.csv").exists()


def test_errors_quote_python_overrides_not_the_command_line():
    # Issue 37: from Python an override error said `--set links.ab.loss=2`; it names the
    # overrides= entry instead (the CLI's message is unchanged: scenario/tests.rs).
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads(SMALL, {"links.ab.loss": 2})
    assert str(e.value) == (
        '<string>: overrides={"links.ab.loss": 2}: links.ab.loss: expected a probability in '
        "[0, 1]; got 2"
    )
    assert (e.value.file, e.value.line, e.value.key) == ("<string>", None, "links.ab.loss")
    # A value that cannot be applied to the document at all (rate is a string, not a table).
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads(SMALL, {"links.ab.rate.x": 3})
    assert str(e.value).startswith('<string>: overrides={"links.ab.rate.x": 3}: links.ab.rate is a string')
    assert e.value.key == "links.ab.rate.x"
    # Strings are quoted, booleans and floats written as Python writes them.
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads(SMALL, {"links.ab.rate": "10 Mbs"}, name="x.toml")
    assert str(e.value).startswith('x.toml: overrides={"links.ab.rate": "10 Mbs"}: links.ab.rate: expected a rate')
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads(SMALL, {"links.ab.loss": 1.5})
    assert str(e.value).startswith('<string>: overrides={"links.ab.loss": 1.5}: links.ab.loss:')
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.loads(SMALL, {"links.ab.colour": True})
    assert str(e.value).startswith('<string>: overrides={"links.ab.colour": True}: links.ab.colour: unknown key')
    for err in (str(e.value),):
        assert "--set" not in err


def test_memory_budget_allowed_folders_and_max_runs_are_the_clis(tmp_path):
    # Issue 38: the Python API had no budget and no allowed folders. check, run and sweep now
    # take max_memory, allow_dirs (and sweep max_runs) and apply them through the CLI's code
    # (experiment::limits::admit, scenario::Limits): the same refusal, word for word.
    f = tmp_path / "small.toml"
    f.write_text(SMALL)
    # A size that aborted check on allocation is refused naming its key, before allocating.
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.load(REPO / "scenarios" / "micromobility.toml", {"mobility.handoffs": 4294967295})
    assert e.value.key == "mobility.handoffs"
    assert "more than the budget of 2048.0 MiB" in str(e.value)
    # A run over the default budget (2.5 GB of time series) is refused before it starts.
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.run(f, overrides={"simulation.sample_interval": "1ns"})
    assert e.value.key == "simulation.sample_interval"
    # max_memory: the same message as `packetsim check FILE --max-memory 32KiB`.
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.load(f, max_memory="32KiB")
    # The largest part of so small a scenario is parsing its text (96 bytes a byte).
    assert e.value.key == "(the scenario text)"
    assert "more than the budget of 0.0 MiB: split the scenario" in str(e.value)
    cli = REPO / "target" / "release" / "packetsim"
    if cli.exists():
        out = subprocess.run(
            [cli, "check", f, "--max-memory", "32KiB"], capture_output=True, text=True
        )
        assert out.returncode == 1
        assert out.stderr == f"error: {e.value}\n"
    sc = packetsim.load(f, max_memory=1 << 20)
    assert sc.max_memory == str(1 << 20)
    assert packetsim.run(sc).flows.shape[0] == 1
    # The limit travels with the Scenario and can be replaced.
    with pytest.raises(packetsim.ScenarioError):
        packetsim.run(sc, max_memory="32KiB")
    for bad, msg in [("abc", "max_memory: expected a byte count"), (-1, "max_memory: a byte count cannot be negative")]:
        with pytest.raises(ValueError, match=msg):
            packetsim.load(f, max_memory=bad)
    with pytest.raises(TypeError, match="max_memory"):
        packetsim.load(f, max_memory=1.5)  # type: ignore[arg-type]
    # A sweep's runs in parallel share the budget, as `packetsim sweep --jobs 2`.
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.sweep(f, GRID, runs=1, jobs=2, max_memory="64KiB", out=tmp_path / "s")
    assert "(max_memory is shared by 2 parallel runs, jobs=)" in str(e.value)
    df = packetsim.sweep(f, GRID, runs=1, jobs=2, max_memory="1MiB", out=tmp_path / "s")
    assert len(df) == 6
    with pytest.raises(ValueError, match="more than 5 runs"):
        packetsim.sweep(f, GRID, runs=1, max_runs=5, out=tmp_path / "s5")
    # Files a scenario names resolve inside its folder or an allowed one (--allow-dir).
    data = tmp_path / "data"
    data.mkdir()
    (data / "sizes.cdf").write_text("1000 0.5\n20000 1\n")
    poisson = SMALL.replace(
        'app = "file"\nsize = "200KB"',
        f'app = "poisson"\narrival_rate = 5.0\nsize_cdf = "{data / "sizes.cdf"}"',
    )
    g = tmp_path / "sub" / "p.toml"
    g.parent.mkdir()
    g.write_text(poisson)
    with pytest.raises(packetsim.ScenarioError) as e:
        packetsim.load(g)
    assert e.value.key == "flows.f.size_cdf" and "outside the scenario's folder" in str(e.value)
    for shadow in ("/etc/shadow", "../../../../../../etc/passwd"):
        with pytest.raises(packetsim.ScenarioError, match="outside the scenario's folder"):
            packetsim.load(g, {"flows.f.size_cdf": shadow})
    sc = packetsim.load(g, allow_dirs=[data])
    assert sc.allow_dirs == (str(data),)
    assert packetsim.run(sc).summary["flows"]
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        df = packetsim.sweep(sc, {"links.ab.loss": [0, 0.01]}, runs=1, executor=ex, out=tmp_path / "p")
    assert len(df) == 2
    with pytest.raises(TypeError, match="allow_dirs"):
        packetsim.load(g, allow_dirs=str(data))  # type: ignore[arg-type]


def test_long_frame_one_row_per_run_entity_and_metric_named_as_the_csv_files(tmp_path):
    """Issue 37: sweep(shape="long") is the tidy frame (run_id, seed, params, replication,
    entity, metric, value) holding exactly the wide frame's values, metrics named as
    flows.csv / queues.csv name their columns; merge() gives both shapes like sweep()."""
    sc = packetsim.loads(SMALL, {"simulation.flow_monitor": True})
    out = tmp_path / "s"
    wide = packetsim.sweep(sc, GRID, runs=2, out=out)
    long = packetsim.sweep(sc, GRID, runs=2, out=out, shape="long")
    assert long.attrs["reused"] == 12  # the same stored runs, another shape
    assert list(long.columns) == [
        "run_id", "seed", "links.ab.loss", "links.ab.rate", "replication", "entity", "metric", "value",
    ]
    assert [str(long[c].dtype) for c in ("run_id", "seed", "links.ab.loss", "replication", "value")] == [
        "uint64", "uint64", "float64", "int64", "float64",
    ]
    metrics = [c for c in wide.columns if c not in ("links.ab.loss", "links.ab.rate", "replication", "seed")]
    # A row for every metric each run reported (NaN = reported as not available); a metric
    # a run did not report at all (drops.error of a run without loss) has no row, and is NaN
    # in the wide frame.
    assert len(long) == int(wide[metrics].notna().sum().sum()) + int(long.value.isna().sum())
    assert long.groupby("run_id").size().max() <= len(metrics)
    # run_id is the run number (point x runs + replication): 0..11, one per run.
    per_run = long.drop_duplicates("run_id")
    assert sorted(per_run.run_id) == list(range(12))
    assert list(per_run.seed) == list(wide.seed)
    assert list(per_run.replication) == list(wide.replication)
    assert list(per_run.run_id % 2) == list(wide.replication)
    # The same values: each wide metric column is one (entity, metric) of the long frame.
    names = {
        "flows.f.goodput_bps": ("flow:f", "goodput_bps"),
        "flows.f.flow_monitor.delay_p99_s": ("flow:f", "delay_p99_s"),
        "queues.ab:a->b.drops": ("queue:ab:a->b", "drops"),
        "queues.ab:a->b.sojourn.sojourn_mean_s": ("queue:ab:a->b", "sojourn_mean_s"),
        "queues.ab:a->b.sojourn.samples": ("queue:ab:a->b", "sojourn_samples"),
        "events": ("run", "events"),
    }
    for col, (entity, metric) in names.items():
        rows = long[(long.entity == entity) & (long.metric == metric)]
        assert list(rows.run_id) == list(range(12)), col
        pd.testing.assert_series_equal(
            rows.value.reset_index(drop=True), wide[col].reset_index(drop=True), check_names=False
        )
    # Metric names are the columns of the run frames (flows.csv, queues.csv), same values.
    one = long[long.run_id == 5]
    point = {"links.ab.loss": one["links.ab.loss"].iloc[0], "links.ab.rate": f'{one["links.ab.rate"].iloc[0] / 1e6:g}Mbps'}
    r = packetsim.run(sc, seed=int(one.seed.iloc[0]), overrides=point)
    for entity, frame, key in (("flow:f", r.flows, "flow"), ("queue:ab:a->b", r.queues, "queue")):
        row = frame.set_index(key).loc[entity.split(":", 1)[1]]
        got = one[one.entity == entity].set_index("metric").value
        shared = [m for m in got.index if m in row.index]
        assert {"goodput_bps", "delay_mean_s", "rtt_p50_s", "jitter_mean_s"} <= set(shared) or key == "queue"
        assert {"drops", "sojourn_p99_s", "sojourn_samples", "utilisation"} <= set(shared) or key == "flow"
        for m in shared:
            assert got[m] == pytest.approx(float(row[m]), nan_ok=True), (entity, m)
    # merge() gives sweep()'s shapes, from the same Rust function.
    parts = [tmp_path / f"p{i}" for i in range(2)]
    for i, p in enumerate(parts):
        packetsim.sweep(sc, GRID, runs=2, out=p, shard=(i, 2))
    pd.testing.assert_frame_equal(packetsim.merge(tmp_path / "m", parts), wide)
    pd.testing.assert_frame_equal(packetsim.merge(tmp_path / "m", parts, shape="long"), long)
    for bad in ("tall", "Long", None):
        with pytest.raises(ValueError, match="shape must be 'wide' or 'long'; got"):
            packetsim.sweep(sc, GRID, runs=2, out=out, shape=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="shape must be 'wide' or 'long'"):
            packetsim.merge(tmp_path / "m", parts, shape=bad)  # type: ignore[arg-type]


def test_progress_callback_reports_done_and_total_and_can_stop(tmp_path, capsys):
    sc = packetsim.loads(SMALL)
    out = tmp_path / "s"
    calls = []
    packetsim.sweep(sc, GRID, runs=2, out=out, jobs=1, progress=lambda d, t: calls.append((d, t)))
    assert calls[0] == (0, 12) and calls[-1] == (12, 12)
    assert all(t == 12 for _, t in calls)
    assert [d for d, _ in calls] == sorted(set(d for d, _ in calls))  # moving, never repeated
    # Resumed: everything is stored already.
    calls.clear()
    packetsim.sweep(sc, GRID, runs=2, out=out, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(12, 12)]
    # Through an executor: one call per run as it is recorded.
    calls.clear()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        packetsim.sweep(sc, GRID, runs=3, out=out, executor=ex, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(d, 18) for d in range(12, 19)]
    # A callback that raises stops the sweep; its exception comes out; a rerun completes.
    # (It raises at its first call, made as the engine starts: with one job, runs of tens of
    # milliseconds each, the sweep stops long before its 24 runs are done.)
    def stop(done, total):
        raise KeyError("enough")

    big = SMALL.replace('"2s"', '"60s"').replace('"200KB"', '"60MB"')
    with pytest.raises(KeyError, match="enough"):
        packetsim.sweep(packetsim.loads(big), GRID, runs=4, out=tmp_path / "b", jobs=1, progress=stop)
    again = packetsim.sweep(packetsim.loads(big), GRID, runs=4, out=tmp_path / "b", jobs=1)
    assert again.attrs["computed"] >= 1
    assert again.attrs["reused"] + again.attrs["computed"] == 24
    with pytest.raises(TypeError, match="progress"):
        packetsim.sweep(sc, GRID, runs=2, out=out, progress="yes")  # type: ignore[arg-type]
    # progress=True: a tqdm bar on stderr when tqdm is installed.
    pytest.importorskip("tqdm")
    capsys.readouterr()
    packetsim.sweep(sc, GRID, runs=2, out=tmp_path / "t", progress=True)
    err = capsys.readouterr().err
    assert "sweep" in err and "12/12" in err, err


def test_identical_replications_warn_as_the_cli_does(tmp_path):
    """Issue 37: the CLI warns when every replication of a point gave identical metrics (no
    source of randomness); Python gives the same text as an IdenticalReplicationsWarning."""
    import warnings

    f = tmp_path / "small.toml"
    f.write_text(SMALL)  # no loss, no random process: every replication is the same run
    grid = {"links.ab.rate": ["5Mbps", "10Mbps"]}
    with pytest.warns(packetsim.IdenticalReplicationsWarning) as got:
        packetsim.sweep(f, grid, runs=2, out=tmp_path / "s")
    said = [str(w.message) for w in got]
    assert len(said) == 2
    assert said[0].startswith("all 2 replications of point#0 (links.ab.rate=5Mbps) gave identical metrics")
    assert all(w.filename == __file__ for w in got)  # attributed to the caller
    assert issubclass(packetsim.IdenticalReplicationsWarning, UserWarning)
    cli = REPO / "target" / "release" / "packetsim"
    if cli.exists():
        out = subprocess.run(
            [cli, "sweep", f, "--runs", "2", "--param", "links.ab.rate=5Mbps,10Mbps", "--out", tmp_path / "c"],
            capture_output=True, text=True,
        )
        lines = [l for l in out.stderr.splitlines() if l.startswith("warning: ")]
        assert lines == [f"warning: {m}" for m in said], out.stderr
    # With a source of randomness, no warning; a shard alone never warns, merge() does.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        packetsim.sweep(f, {"links.ab.loss": [0.02]}, runs=2, out=tmp_path / "l")
        parts = [tmp_path / f"p{i}" for i in range(2)]
        for i, p in enumerate(parts):
            packetsim.sweep(f, grid, runs=2, out=p, shard=(i, 2))
    with pytest.warns(packetsim.IdenticalReplicationsWarning) as got:
        packetsim.merge(tmp_path / "m", parts)
    assert [str(w.message) for w in got] == said


def test_docs_plotting_page_runs(tmp_path):
    """docs/python.md's plotting section, run as written (in a scratch folder): per-flow
    delay and throughput of the reader's own scenario, written as a PNG."""
    import re
    import sys

    pytest.importorskip("matplotlib")
    doc = (REPO / "docs" / "python.md").read_text()
    section = doc.split("## Your own scenario", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    got = subprocess.run(
        [sys.executable, "-c", blocks[0]], cwd=tmp_path, check=True, capture_output=True, text=True
    )
    for name in ("mine-delay-throughput.png", "mine-delay-vs-loss.png"):
        png = tmp_path / name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000, name
    for col in ("goodput_bps", "delay_mean_s", "sojourn_p99_s"):
        assert col in got.stdout


def test_every_public_name_has_a_docstring_and_hints():
    """Issue 37: type hints and docstrings on every public function (mypy --strict in
    test.sh checks the hints' consistency; this checks that none is missing)."""
    import inspect

    for name in packetsim.__all__:
        obj = getattr(packetsim, name)
        if name == "__version__" or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        assert inspect.getdoc(obj), name
        if inspect.isfunction(obj):
            sig = inspect.signature(obj)
            assert sig.return_annotation is not inspect.Signature.empty, name
            for p in sig.parameters.values():
                assert p.annotation is not inspect.Parameter.empty, (name, p.name)
