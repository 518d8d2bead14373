"""Search curves, one type for every search: best estimated latency against trials and time,
recorded live (Ansor's ``TaskScheduler``, MetaSchedule's measure callbacks) or rebuilt from
logs (:mod:`tvm_gnn_cost.ansor.curves`), and the statistics a comparison takes of them.

Knows nothing of TVM. Reports (tables, plot, verdict) are :mod:`tvm_gnn_cost.report`.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence

import numpy as np

INF = float("inf")


@dataclass
class Curve:
    """One tuning run: the best estimated end-to-end latency after each round, and what its
    build gave."""

    model: str
    seed: int
    trials: List[int] = field(default_factory=list)
    seconds: List[float] = field(default_factory=list)
    latency: List[float] = field(default_factory=list)  # seconds; inf until every task has one
    measured: Optional[float] = None  # latency of the built program, measured (seconds)
    build_error: Optional[str] = None  # why its build failed or computed something else

    @property
    def final(self) -> float:
        return self.latency[-1] if self.latency else INF

    @property
    def wall(self) -> float:
        return self.seconds[-1] if self.seconds else 0.0

    def add(self, trials: int, seconds: float, latency: float) -> None:
        """Append the state after a round (``latency`` in seconds, ``inf`` if not known)."""
        self.trials.append(int(trials))
        self.seconds.append(max(0.0, float(seconds)))
        self.latency.append(float(latency) if math.isfinite(latency) else INF)

    def trials_to_reach(self, latency: float) -> Optional[int]:
        """First trial count at which the curve is at or below ``latency``; None if never."""
        for t, lat in zip(self.trials, self.latency):
            if lat <= latency * (1 + 1e-9):
                return t
        return None

    def seconds_to_reach(self, latency: float) -> Optional[float]:
        """Tuning seconds until the curve is at or below ``latency``; None if never."""
        for s, lat in zip(self.seconds, self.latency):
            if lat <= latency * (1 + 1e-9):
                return s
        return None

    def to_dict(self) -> dict:
        """Plain JSON: an unknown latency (``inf``) is ``null``."""
        return {**asdict(self), "latency": [x if math.isfinite(x) else None
                                            for x in self.latency]}

    @classmethod
    def from_dict(cls, data: dict) -> "Curve":
        """The curve :meth:`to_dict` wrote (``null`` or ``Infinity`` latencies are ``inf``)."""
        return cls(**{**data, "latency": [INF if x is None else float(x)
                                          for x in data.get("latency", [])]})


def write_curves(curves: Sequence[Curve], path: str) -> None:
    """``curves`` as a JSON list at ``path`` (:meth:`Curve.to_dict`)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump([c.to_dict() for c in curves], f, indent=1)


def read_curves(path: str) -> List[Curve]:
    """Curves written by :func:`write_curves` (a folder: its ``curves.json``)."""
    if os.path.isdir(path) or not path.endswith(".json"):
        path = os.path.join(path, "curves.json")
    if not os.path.exists(path):
        folder = os.path.dirname(path)
        raise FileNotFoundError(f"{path} not found; run `tvm-gnn-cost compare --out {folder}` "
                                "first")
    with open(path) as f:
        return [Curve.from_dict(d) for d in json.load(f)]


def by_model(curves: Sequence[Curve]) -> Dict[str, List[Curve]]:
    """Curves grouped by model name, in the order the models first appear."""
    out: Dict[str, List[Curve]] = {}
    for c in curves:
        out.setdefault(c.model, []).append(c)
    return out


def median_final(runs: Sequence[Curve]) -> float:
    """The median final estimated latency over seeds (``inf`` if half or more have none)."""
    return float(np.median([c.final for c in runs]))


def reach_stats(runs: Sequence[Curve], latency: float, budget_trials: int,
                budget_seconds: float) -> dict:
    """How the seeds of one model reach ``latency``: how many did, and the medians over all
    seeds of the trials and seconds it took, a seed that never reached counting as beyond the
    budget (``inf``, so the median is ``inf`` when half or more never did). The protocol of
    ``shared/docs/benchmark-protocol.md``: never a median over only the seeds that reached."""
    trials = [c.trials_to_reach(latency) for c in runs]
    seconds = [c.seconds_to_reach(latency) for c in runs]
    med = lambda xs: float(np.median([INF if x is None else x for x in xs]))  # noqa: E731
    return {"reached": sum(t is not None for t in trials), "seeds": len(runs),
            "trials": med(trials), "seconds": med(seconds), "per_seed_trials": trials,
            "per_seed_seconds": seconds, "budget_trials": budget_trials,
            "budget_seconds": budget_seconds}


def budget(runs: Sequence[Curve]) -> tuple:
    """The most trials and tuning seconds any of ``runs`` took: what "never" is beyond."""
    return (max(c.trials[-1] if c.trials else 0 for c in runs),
            max(c.wall for c in runs))


def built_stats(runs: Sequence[Curve]) -> dict:
    """The builds of one model's seeds: how many were built and checked, the median measured
    latency over those, and why the others failed."""
    ok = [c.measured for c in runs if c.measured is not None]
    return {"built": len(ok), "seeds": len(runs),
            "median": float(np.median(ok)) if ok else None,
            "failed": {c.seed: c.build_error for c in runs if c.build_error}}


__all__ = ["INF", "Curve", "budget", "built_stats", "by_model", "median_final", "reach_stats",
           "read_curves", "write_curves"]
