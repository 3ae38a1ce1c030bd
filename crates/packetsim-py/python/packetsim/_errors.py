"""The exceptions of the packetsim package."""

from __future__ import annotations

from typing import Optional, Tuple, Type


class ScenarioError(ValueError):
    """A scenario that cannot be loaded, checked or assembled.

    ``str(e)`` is the simulator's full message (file, line or override, key, what was
    expected). The parts are also attributes:

    - ``file``: the scenario file (or the name given to a TOML string, ``<string>`` by default);
    - ``line``: the 1-based line in that file, or ``None`` when the value came from an
      override (or the error is not about one line);
    - ``key``: the dotted key path, e.g. ``links.bottleneck.rate``, or ``None``.
    """

    def __init__(
        self, message: str, file: str, line: Optional[int] = None, key: Optional[str] = None
    ) -> None:
        super().__init__(message, file, line, key)
        self.message = message
        self.file = file
        self.line = line
        self.key = key

    def __str__(self) -> str:
        return self.message

    def __reduce__(
        self,
    ) -> Tuple[Type["ScenarioError"], Tuple[str, str, Optional[int], Optional[str]]]:
        """Picklable across process pools (the four fields, not ``args``)."""
        return (ScenarioError, (self.message, self.file, self.line, self.key))


class IdenticalReplicationsWarning(UserWarning):
    """Every replication of a sweep's grid point gave identical metrics.

    The scenario has no source of randomness there (no loss, random process or
    ``flows.NAME.start_jitter``), so the replications are one run repeated and their
    confidence interval says nothing. The message names the point, as the ``warning:`` line
    of ``packetsim sweep`` does (the same Rust code). Silence it with
    ``warnings.simplefilter("ignore", packetsim.IdenticalReplicationsWarning)``.
    """
