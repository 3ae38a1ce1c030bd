"""packetsim: a fast packet-level network simulator, from Python.

Load a scenario (a TOML file or string), override keys, run it with a seed and get the
summary as a dict and the flows, queues and time series as pandas DataFrames; run a sweep
(grid of parameter values x replications, resumable, optionally sharded or spread by any
``concurrent.futures.Executor``) into one DataFrame, wide (a row per run) or long (a row per
run, entity and metric); reproduce a study.

Every simulation runs in Rust with the GIL released. See docs/python.md.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import json
import numbers
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _native
from ._errors import IdenticalReplicationsWarning, ScenarioError

if TYPE_CHECKING:
    import pandas as pd

__version__: str = _native.__version__

__all__ = [
    "Scenario",
    "RunResult",
    "ScenarioError",
    "IdenticalReplicationsWarning",
    "Shape",
    "Progress",
    "load",
    "loads",
    "run",
    "sweep",
    "merge",
    "reproduce",
    "studies",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]
Value = Union[str, bool, int, float]
#: A memory budget: bytes (``1 << 30``) or a byte count as the scenario format writes one
#: (``"2GiB"``), as ``packetsim --max-memory`` takes it.
Memory = Union[int, str]
#: The shape of a sweep's frame: ``"wide"`` (one row per run, one column per metric) or
#: ``"long"`` (one row per run and metric: ``run_id, seed, params..., replication, entity,
#: metric, value``).
Shape = Literal["wide", "long"]
#: Progress of a sweep: ``None``/``False`` (none), ``True`` (a tqdm bar when tqdm is
#: installed, else the command line's bar on a terminal's stderr) or a callable taking
#: ``(done, total)`` runs.
Progress = Union[None, bool, Callable[[int, int], object]]


def _memory(max_memory: Optional[Memory]) -> Optional[str]:
    """``max_memory`` as the extension takes it: the byte count's text (checked there by the
    command line's own parser), or None for the default 2 GiB."""
    if max_memory is None:
        return None
    if isinstance(max_memory, bool) or not isinstance(max_memory, (int, str)):
        raise TypeError(f"max_memory: expected bytes (an int) or a string such as '2GiB'; got {max_memory!r}")
    return str(max_memory)


def _dirs(allow_dirs: Optional[Iterable[PathLike]]) -> Tuple[str, ...]:
    """``allow_dirs`` as a tuple of paths."""
    if allow_dirs is None:
        return ()
    if isinstance(allow_dirs, (str, bytes, os.PathLike)):
        raise TypeError(f"allow_dirs: expected a list of folders; got {allow_dirs!r}")
    return tuple(os.fspath(d) for d in allow_dirs)


def _value(path: str, v: Any) -> str:
    """An override value as the scenario format reads it (TOML text, or a bare string)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    if isinstance(v, str):
        return v
    raise TypeError(
        f"{path}: expected a str, bool, int or float value (quantities as strings, "
        f"e.g. '10Mbps'); got {type(v).__name__} {v!r}"
    )


def _overrides(overrides: Optional[Mapping[str, Any]]) -> Tuple[Tuple[str, str], ...]:
    """The overrides as (dotted key path, value text) pairs, in the mapping's order."""
    if overrides is None:
        return ()
    if not isinstance(overrides, Mapping):
        raise TypeError("overrides must be a dict of {'dotted.key.path': value}")
    return tuple((str(k), _value(str(k), v)) for k, v in overrides.items())


@dataclass(frozen=True)
class Scenario:
    """A checked scenario: where it comes from plus its overrides.

    Make one with :func:`load` (a file) or :func:`loads` (a TOML string). ``text`` is the
    effective TOML after overrides; ``seed`` its ``simulation.seed``.
    """

    source: str
    is_text: bool
    origin: Optional[str]
    overrides: Tuple[Tuple[str, str], ...]
    text: str = field(repr=False)
    seed: int
    nodes: int
    links: int
    flows: int
    max_memory: Optional[str] = None
    allow_dirs: Tuple[str, ...] = ()

    def with_overrides(self, overrides: Mapping[str, Any]) -> "Scenario":
        """This scenario with more overrides applied (checked again, within its limits)."""
        return _check(
            self.source,
            self.is_text,
            self.origin,
            self.overrides + _overrides(overrides),
            self.max_memory,
            self.allow_dirs,
        )

    def _args(self) -> Tuple[str, bool, Optional[str]]:
        """(source, is_text, origin) as the extension takes them."""
        return (self.source, self.is_text, self.origin)


def _check(
    source: str,
    is_text: bool,
    origin: Optional[str],
    ovs: Tuple[Tuple[str, str], ...],
    max_memory: Optional[str] = None,
    allow_dirs: Tuple[str, ...] = (),
) -> Scenario:
    """Checks a scenario in the extension, within the limits, and records what it found."""
    info = _native.check(source, is_text, origin, list(ovs), max_memory, list(allow_dirs))
    return Scenario(
        source=source,
        is_text=is_text,
        origin=origin,
        overrides=ovs,
        text=info["text"],
        seed=info["seed"],
        nodes=info["nodes"],
        links=info["links"],
        flows=info["flows"],
        max_memory=max_memory,
        allow_dirs=allow_dirs,
    )


def load(
    path: PathLike,
    overrides: Optional[Mapping[str, Any]] = None,
    *,
    max_memory: Optional[Memory] = None,
    allow_dirs: Optional[Iterable[PathLike]] = None,
) -> Scenario:
    """Loads and checks the scenario file ``path``.

    ``overrides`` maps dotted key paths to values, e.g. ``{"links.bottleneck.loss": 0.01,
    "tcp.variant": "sack", "links.bottleneck.rate": "5Mbps"}``; each is checked like a value
    written in the file. Raises :class:`ScenarioError` (with ``file``, ``line``, ``key``) on
    a bad scenario.

    The command line's limits (``packetsim check``): ``max_memory`` (bytes or ``"2GiB"``;
    default 2 GiB) is the budget a run of the scenario must fit, refused naming the key to
    lower (a ``ScenarioError``); ``allow_dirs`` are folders, besides the scenario's own,
    that files it names (``size_cdf``) may be read from (``--allow-dir``). The returned
    :class:`Scenario` keeps both for :func:`run` and :func:`sweep`.
    """
    return _check(
        os.fspath(path), False, None, _overrides(overrides), _memory(max_memory), _dirs(allow_dirs)
    )


def loads(
    text: str,
    overrides: Optional[Mapping[str, Any]] = None,
    name: str = "<string>",
    *,
    max_memory: Optional[Memory] = None,
    allow_dirs: Optional[Iterable[PathLike]] = None,
) -> Scenario:
    """Loads and checks a scenario given as TOML text; ``name`` is the file name in errors.
    ``max_memory`` and ``allow_dirs`` as for :func:`load`."""
    return _check(text, True, name, _overrides(overrides), _memory(max_memory), _dirs(allow_dirs))


def _scenario(
    scenario: Union[Scenario, PathLike],
    overrides: Optional[Mapping[str, Any]],
    max_memory: Optional[Memory] = None,
    allow_dirs: Optional[Iterable[PathLike]] = None,
) -> Scenario:
    """A :class:`Scenario` as given, or the file loaded, with ``overrides`` applied and, when
    given, the limits replaced (and checked again)."""
    if isinstance(scenario, Scenario):
        if max_memory is None and allow_dirs is None:
            return scenario.with_overrides(overrides) if overrides else scenario
        return _check(
            scenario.source,
            scenario.is_text,
            scenario.origin,
            scenario.overrides + _overrides(overrides),
            scenario.max_memory if max_memory is None else _memory(max_memory),
            scenario.allow_dirs if allow_dirs is None else _dirs(allow_dirs),
        )
    return load(scenario, overrides, max_memory=max_memory, allow_dirs=allow_dirs)


def _frame(columns: Optional[Sequence[Tuple[str, str, List[Any]]]]) -> Optional[pd.DataFrame]:
    """A DataFrame from the extension's typed columns [(name, dtype, values)]."""
    import pandas as pd

    if columns is None:
        return None
    return pd.DataFrame(
        {name: pd.Series(values, dtype=dtype) for name, dtype, values in columns}
    )


@dataclass(frozen=True)
class RunResult:
    """One run's results.

    - ``summary``: the dict ``summary.json`` holds (flows, queues, drops, events, seed, ...).
    - ``flows``: one row per flow (goodput_bps, completion_time_s, retransmits, ...).
    - ``queues``: one row per link direction (arrivals, drops, marks, utilisation, ...).
    - ``flow_series`` / ``queue_series`` / ``delivery_series``: the sampled time series
      (per TCP flow cwnd, ssthresh, srtt (NaN before the first RTT sample), RTO; queue
      length; per flow bytes delivered and delivery rate), each flow only within its life,
      or ``None`` unless the scenario sets ``simulation.sample_interval``.
    - ``rtt_series``: every RTT sample of the TCP flows (flow, time_s, rtt_s), or ``None``
      unless the scenario sets ``simulation.flow_monitor`` (which also adds one-way delay,
      jitter, loss and RTT columns to ``flows`` and sojourn columns to ``queues``; see
      docs/outputs.md, "Flow monitor").

    Times are seconds, rates bit/s, sizes bytes (the column names say so).
    """

    summary: Dict[str, Any]
    flows: pd.DataFrame
    queues: pd.DataFrame
    flow_series: Optional[pd.DataFrame] = None
    queue_series: Optional[pd.DataFrame] = None
    delivery_series: Optional[pd.DataFrame] = None
    rtt_series: Optional[pd.DataFrame] = None

    @property
    def seed(self) -> int:
        """The seed the run used."""
        return int(self.summary["seed"])


def run(
    scenario: Union[Scenario, PathLike],
    *,
    seed: Optional[int] = None,
    overrides: Optional[Mapping[str, Any]] = None,
    max_memory: Optional[Memory] = None,
    allow_dirs: Optional[Iterable[PathLike]] = None,
) -> RunResult:
    """Runs a scenario (a :class:`Scenario` or a file path) once.

    ``seed`` defaults to the scenario's ``simulation.seed``; the same seed gives the same
    results, bit for bit. The simulation runs with the GIL released.

    Raises :class:`ScenarioError` for a bad scenario or override (naming the
    ``overrides={...}`` entry) or one that does not fit ``max_memory``, and ``ValueError``
    for a seed outside 0 to 2**64 - 1. ``max_memory`` and ``allow_dirs`` are the command
    line's ``--max-memory`` and ``--allow-dir`` (see :func:`load`; default: the scenario's).
    """
    sc = _scenario(scenario, overrides, max_memory, allow_dirs)
    out = _native.run(
        *sc._args(), list(sc.overrides), seed, sc.max_memory, list(sc.allow_dirs)
    )
    flows, queues = _frame(out["flows"]), _frame(out["queues"])
    assert flows is not None and queues is not None
    return RunResult(
        summary=json.loads(out["summary_json"]),
        flows=flows,
        queues=queues,
        flow_series=_frame(out["flow_series"]),
        queue_series=_frame(out["queue_series"]),
        delivery_series=_frame(out["delivery_series"]),
        rtt_series=_frame(out["rtt_series"]),
    )


def _run_task(
    task: Tuple[str, bool, Optional[str], List[Tuple[str, str]], int, str, List[str]],
) -> Tuple[str, List[Tuple[str, Optional[float]]]]:
    """One sweep run in an executor's worker (module-level, so it pickles), within the
    sweep's per-run memory budget and allowed folders."""
    source, is_text, origin, ovs, seed, max_memory, allow_dirs = task
    return _native.run_metrics(source, is_text, origin, ovs, seed, max_memory, allow_dirs)


def _shard(shard: Union[None, str, Tuple[int, int]]) -> Optional[Tuple[int, int]]:
    """``"I/N"`` or ``(I, N)`` as (I, N), refused with ``ValueError`` unless 0 <= I < N < 2**32."""
    if shard is None:
        return None
    if isinstance(shard, str):
        a, sep, b = shard.partition("/")
        try:
            i, n = int(a), int(b)
        except ValueError:
            sep = ""
        if not sep:
            raise ValueError(f"shard: expected 'I/N' or (I, N); got {shard!r}")
    else:
        i, n = (int(x) for x in shard)
    if not 0 <= i < n <= 2**32 - 1:
        raise ValueError(f"shard must be (I, N) with 0 <= I < N <= 4294967295; got ({i}, {n})")
    return (i, n)


def _executor(executor: Any) -> concurrent.futures.Executor:
    """A ``concurrent.futures.Executor`` from ``executor`` (or a Dask Client's)."""
    # A Dask distributed Client is not itself a concurrent.futures.Executor, but gives one.
    if not isinstance(executor, concurrent.futures.Executor) and hasattr(executor, "get_executor"):
        ex: concurrent.futures.Executor = executor.get_executor()
        return ex
    if not hasattr(executor, "submit"):
        raise TypeError("executor must be a concurrent.futures.Executor (or a Dask Client)")
    ok: concurrent.futures.Executor = executor
    return ok


def sweep(
    scenario: Union[Scenario, PathLike],
    params: Mapping[str, Iterable[Value]],
    *,
    runs: int = 10,
    seed: Optional[int] = None,
    jobs: int = 0,
    out: Optional[PathLike] = None,
    shard: Union[None, str, Tuple[int, int]] = None,
    executor: Any = None,
    overrides: Optional[Mapping[str, Any]] = None,
    max_memory: Optional[Memory] = None,
    allow_dirs: Optional[Iterable[PathLike]] = None,
    max_runs: int = 1_000_000,
    shape: Shape = "wide",
    progress: Progress = None,
) -> pd.DataFrame:
    """Runs a grid of parameter values x ``runs`` replications; returns one DataFrame.

    ``params`` maps dotted key paths to their values, e.g. ``{"links.bottleneck.loss":
    [0, 0.01, 0.02], "tcp.variant": ["reno", "sack"]}`` (the grid is the product, first key
    slowest). Seeds derive from (base ``seed``, the point's values, the replication), as in
    ``packetsim sweep``.

    ``shape="wide"`` (the default) gives one row per run: one column per parameter (float64
    in SI units, e.g. ``"10Mbps"`` -> 1e7 and ``"5ms"`` -> 0.005, when every value is a
    number or a quantity; text otherwise), ``replication``, ``seed`` (uint64), then one
    float64 column per metric (``flows.NAME.goodput_bps``, ``queues.NAME.drops``, ...; NaN =
    not available). ``shape="long"`` gives the same values one per row: ``run_id`` (uint64,
    the run number point x ``runs`` + replication), ``seed``, the parameter columns,
    ``replication``, ``entity`` (``flow:NAME``, ``queue:LINK:FROM->TO``, ``workload:NAME``
    or ``run``), ``metric`` (named as flows.csv and queues.csv name their columns, units in
    the name: ``goodput_bps``, ``delay_p99_s``, ``sojourn_mean_s``) and ``value`` (float64).
    :func:`merge` returns the same shapes.

    ``progress``: a callable gets ``(done, total)`` (runs stored of this sweep or shard,
    reused ones included) whenever ``done`` moves, from this thread; raising from it, or
    Ctrl-C, stops the sweep after the runs under way (they stay stored; calling again
    resumes). ``True`` shows a tqdm bar if tqdm is installed, else the command line's bar on
    stderr when that is a terminal.

    When every replication of a grid point gives identical metrics (no source of randomness:
    no loss, random process or ``start_jitter``), a
    :class:`IdenticalReplicationsWarning` says so, as ``packetsim sweep`` does.

    - ``out``: the results directory (``results.sqlite``, ``sweep.json``, ``results.csv``,
      ``runs.csv``). Runs already stored there are reused, so an interrupted sweep resumes.
      Without ``out`` a temporary directory is used and removed.
    - ``shard``: ``"I/N"`` or ``(I, N)``: compute only shard I of N (needs ``out``; no CSV;
      join the directories with :func:`merge`). The frame then holds that shard's runs.
    - ``executor``: a ``concurrent.futures.Executor`` (a process pool, a Dask ``Client``
      or its ``get_executor()``, Ray's, ...) that runs each (point, replication) as a task;
      results are stored by this process as they arrive, exactly once. Without one, runs use
      ``jobs`` Rust threads (0 = all cores) with the GIL released.

    ``df.attrs`` holds ``computed`` and ``reused`` (runs computed by this call and found
    stored) and the ``experiment_key``.

    The command line's limits (``packetsim sweep``), through the same code: ``max_memory``
    (bytes or ``"2GiB"``; default the scenario's, 2 GiB) is shared by the ``jobs`` runs in
    parallel, and the scenario and every parameter value must fit their share;
    ``allow_dirs`` as for :func:`load`; ``max_runs`` caps grid points x ``runs``
    (``--max-runs``).

    Raises ``ValueError`` naming the argument and its range for ``runs`` (1 to 2**32 - 1,
    and at most ``max_runs`` runs in all), ``jobs`` (0 to 4 per core), ``seed`` (0 to
    2**64 - 1), ``max_memory``, ``shard`` and ``shape``, and :class:`ScenarioError` for a
    bad scenario, override or parameter value, or one over its share of the memory budget.
    """
    long = _long(shape)
    callback, bar, close = _progress(progress)
    sc = _scenario(scenario, overrides, None, allow_dirs)
    memory = sc.max_memory if max_memory is None else _memory(max_memory)
    plist: List[Tuple[str, List[str]]] = []
    for path, values in params.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise TypeError(f"params[{path!r}]: expected a list of values; got {values!r}")
        plist.append((str(path), [_value(str(path), v) for v in values]))
    sh = _shard(shard)
    if sh is not None and sh[1] > 1 and out is None:
        raise ValueError("a shard needs out=: its runs are merged from there")
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="packetsim-sweep-")
        out = tmp
    try:
        native = _native.NativeSweep(
            *sc._args(),
            list(sc.overrides),
            plist,
            int(runs),
            seed,
            int(jobs),
            os.fspath(out),
            sh,
            str(_native.__file__),
            memory,
            list(sc.allow_dirs),
            max_runs,
        )
        try:
            if executor is None:
                computed, reused = native.run_local(callback, bar)
            else:
                computed, reused = _run_on(native, sc, _executor(executor), callback)
        finally:
            if close is not None:
                close()
        columns, said = native.finish(long)
        df = _frame(columns)
        assert df is not None
        _warn(said)
        df.attrs.update(computed=computed, reused=reused, experiment_key=native.experiment_key)
        return df
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _long(shape: object) -> bool:
    """``shape`` checked: True for ``"long"``, False for ``"wide"``."""
    if shape not in ("wide", "long"):
        raise ValueError(f"shape must be 'wide' or 'long'; got {shape!r}")
    return shape == "long"


def _progress(
    progress: object,
) -> Tuple[Optional[Callable[[int, int], object]], bool, Optional[Callable[[], object]]]:
    """``progress`` as (callback or None, whether to show the command line's bar, what to
    call when the sweep ends): ``True`` is a tqdm bar when tqdm can be imported."""
    if progress is None or progress is False:
        return None, False, None
    if progress is True:
        try:
            tqdm: Any = importlib.import_module("tqdm.auto").tqdm
        except ImportError:
            return None, True, None
        bar = tqdm(total=0, unit="run", desc="sweep")

        def show(done: int, total: int) -> None:
            if bar.total != total:
                bar.total = total
            bar.update(done - bar.n)

        return show, False, bar.close
    if callable(progress):
        return progress, False, None
    raise TypeError(f"progress: expected None, a bool or a callable(done, total); got {progress!r}")


def _warn(said: Sequence[str]) -> None:
    """The engine's identical-replications warnings, as Python warnings (attributed to the
    caller of sweep() or merge())."""
    for message in said:
        warnings.warn(message, IdenticalReplicationsWarning, stacklevel=3)


def _run_on(
    native: _native.NativeSweep,
    sc: Scenario,
    ex: concurrent.futures.Executor,
    progress: Optional[Callable[[int, int], object]] = None,
) -> Tuple[int, int]:
    """Runs the sweep's pending runs on ``ex``, recording each as it completes (and telling
    ``progress`` (done, total) after each)."""
    pending = native.pending()
    total = native.owned()
    reused = total - len(pending)
    if progress is not None:
        progress(reused, total)
    memory, dirs = native.run_limits
    futures = {
        ex.submit(_run_task, (sc.source, sc.is_text, sc.origin, ovs, seed, memory, dirs)): (
            pi,
            rep,
            seed,
        )
        for pi, rep, seed, ovs in pending
    }
    done = reused
    try:
        for fut in concurrent.futures.as_completed(futures):
            pi, rep, seed = futures[fut]
            summary_json, metrics = fut.result()
            native.record(pi, rep, seed, summary_json, metrics)
            done += 1
            if progress is not None:
                progress(done, total)
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    return len(pending), reused


def merge(out: PathLike, dirs: Sequence[PathLike], *, shape: Shape = "wide") -> pd.DataFrame:
    """Merges sweep directories (shards) into ``out``, each run exactly once; returns the
    merged sweep's runs in the shape :func:`sweep` gives (``shape`` as there: ``"wide"``,
    one row per run, or ``"long"``, one row per run and metric).

    A run found in two directories is kept once after checking that its results agree; a
    run found in none raises ``RuntimeError`` naming the shards to rerun. ``out`` then holds
    the whole sweep's files (``results.csv`` with means and 95% CIs per point and metric,
    ``runs.csv``), byte-identical to an unsharded sweep's. Gives the
    :class:`IdenticalReplicationsWarning` as :func:`sweep` does. Raises ``ValueError`` for a
    bad ``shape``.
    """
    long = _long(shape)
    if isinstance(dirs, (str, bytes, os.PathLike)):
        raise TypeError(f"dirs: expected a list of sweep folders; got {dirs!r}")
    columns, said = _native.merge(os.fspath(out), [os.fspath(d) for d in dirs], long)
    df = _frame(columns)
    assert df is not None
    _warn(said)
    return df


def reproduce(
    study: str,
    *,
    out: PathLike = "out/reproduce",
    runs: Optional[int] = None,
    quick: bool = False,
    jobs: int = 0,
) -> pd.DataFrame:
    """Reproduces a study (or ``"all"``) like ``packetsim reproduce``.

    Writes figures, tables and ``report.md`` under ``out`` and returns a DataFrame with one
    row per study: ``name``, ``passed``, ``failed``, ``undecided`` (shape-check verdicts) and
    ``report`` (path of report.md).

    Raises ``ValueError`` for an unknown study, ``runs`` outside 1 to 2**32 - 1 or ``jobs``
    outside 0 to 4 per core.
    """
    import pandas as pd

    rows = _native.reproduce(study, os.fspath(out), runs, quick, int(jobs))
    return pd.DataFrame(rows, columns=["name", "passed", "failed", "undecided", "report"])


def studies() -> List[str]:
    """The names :func:`reproduce` accepts (besides ``"all"``)."""
    return list(_native.studies())
