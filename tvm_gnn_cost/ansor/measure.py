"""How a program is timed: Ansor's runner settings, once, for tuning and for dataset labels.

Tuning times thousands of candidates and needs only to tell far-apart programs apart, so it
measures briefly (:data:`TUNING`). A dataset's labels are learned from and scored against, so
they are measured until a second measurement on the same host ranks the programs alike
(:data:`LABELS`; issue 21 asks pairwise >= 0.93 between two measurements,
``benchmarks/remeasure.py`` checks it).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Optional


@dataclass(frozen=True)
class MeasureSettings:
    """Ansor runner settings.

    Attributes
    ----------
    number : int
        Runs averaged into one repeat.
    repeat : int
        Repeats; a record's cost is their mean (and each is kept in the log).
    min_repeat_ms : int
        A repeat runs at least this long (``number`` grows to reach it).
    timeout : int
        Seconds before a run counts as failed.
    enable_cpu_cache_flush : bool
        Flush the CPU caches before each run.
    """

    number: int = 2
    repeat: int = 2
    min_repeat_ms: int = 20
    timeout: int = 10
    enable_cpu_cache_flush: bool = False

    def runner(self, rpc_key: Optional[str] = None, host: str = "127.0.0.1", port: int = 9190):
        """A ``LocalRunner`` with these settings, or an ``RPCRunner`` for devices of
        ``rpc_key`` at the tracker ``host:port``."""
        from tvm import auto_scheduler

        if rpc_key:  # a remote run waits on the network too
            settings = dict(asdict(self), timeout=max(self.timeout, 20))
            return auto_scheduler.RPCRunner(rpc_key, host, port, n_parallel=1, **settings)
        return auto_scheduler.LocalRunner(**asdict(self))


TUNING = MeasureSettings()
"""What tuning measures with (and the first dataset's labels, collected until December 2026)."""

LABELS = MeasureSettings(number=1, repeat=3, min_repeat_ms=150)
"""What ``collect`` measures a dataset's labels with: a second measurement on the same host
agreed with a first at pairwise 0.945 (0.907 with :data:`TUNING`'s settings), at 1.8x the time
a program (``benchmarks/results/labels.md``)."""

__all__ = ["LABELS", "MeasureSettings", "TUNING"]
