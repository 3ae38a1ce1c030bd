"""Type stubs of packetsim._native, the Rust extension (use the ``packetsim`` API instead)."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

Columns = List[Tuple[str, str, List[Any]]]
Metrics = List[Tuple[str, Optional[float]]]

__version__: str

def check(
    source: str,
    is_text: bool,
    origin: Optional[str],
    overrides: Sequence[Tuple[str, str]],
    max_memory: Optional[str] = None,
    allow_dirs: Sequence[str] = ...,
) -> Dict[str, Any]: ...
def run(
    source: str,
    is_text: bool,
    origin: Optional[str],
    overrides: Sequence[Tuple[str, str]],
    seed: Optional[int] = None,
    max_memory: Optional[str] = None,
    allow_dirs: Sequence[str] = ...,
) -> Dict[str, Any]: ...
def run_metrics(
    source: str,
    is_text: bool,
    origin: Optional[str],
    overrides: Sequence[Tuple[str, str]],
    seed: int,
    max_memory: Optional[str] = None,
    allow_dirs: Sequence[str] = ...,
) -> Tuple[str, Metrics]: ...
def merge(out: str, dirs: Sequence[str], long: bool = False) -> Tuple[Columns, List[str]]: ...
def reproduce(
    study: str, out: str, runs: Optional[int] = None, quick: bool = False, jobs: int = 0
) -> List[Dict[str, Any]]: ...
def studies() -> List[str]: ...

class NativeSweep:
    def __init__(
        self,
        source: str,
        is_text: bool,
        origin: Optional[str],
        overrides: Sequence[Tuple[str, str]],
        params: Sequence[Tuple[str, Sequence[str]]],
        runs: int,
        seed: Optional[int],
        jobs: int,
        out: str,
        shard: Optional[Tuple[int, int]],
        code_file: str,
        max_memory: Optional[str] = None,
        allow_dirs: Sequence[str] = ...,
        max_runs: Optional[int] = None,
    ) -> None: ...
    def run_local(
        self, progress: Optional[Callable[[int, int], object]] = None, bar: bool = False
    ) -> Tuple[int, int]: ...
    def pending(self) -> List[Tuple[int, int, int, List[Tuple[str, str]]]]: ...
    def record(
        self, point_index: int, replication: int, seed: int, summary_json: str, metrics: Metrics
    ) -> None: ...
    def finish(self, long: bool = False) -> Tuple[Columns, List[str]]: ...
    def owned(self) -> int: ...
    @property
    def experiment_key(self) -> str: ...
    @property
    def run_limits(self) -> Tuple[str, List[str]]: ...
