"""How soon each run came near the best program of the tasks that carry a network's latency;
TVM-free.

A model that leads on the whole network can be level on the few tasks that decide when it
reaches another model's final latency. For the ``top`` tasks with the largest share of the
best estimated latency (task weight x the best program any run found), each run's count of
the task's own trials until its best program was within ``within`` of that best: read beside
the search curves, it shows where a change acts.

    rows = heavy_task_progress(costs, weights, names)
    print(progress_table(rows))
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

#: How close to the best program a run must come (0.05: within 5%).
WITHIN = 0.05
#: How many tasks the table shows, the heaviest first.
TOP = 4

Run = Tuple[str, int]  # (model, seed)


@dataclass
class TaskProgress:
    """One heavy task: its share of the best latency, and each run's trials to come near it."""

    name: str
    share: float  # of the best estimated latency, 0..1
    best: float  # seconds: the fastest program of the task in any run
    trials: Dict[str, List[Optional[int]]] = field(default_factory=dict)  # model -> per seed
    measured: Dict[str, List[int]] = field(default_factory=dict)  # model -> per seed


def trials_within(costs: Sequence[float], target: float) -> Optional[int]:
    """The trials (1-based) until the best of ``costs`` (in measuring order, failures ``inf``)
    is at most ``target``; None if never."""
    if not len(costs):
        return None
    hit = np.flatnonzero(np.minimum.accumulate(np.asarray(costs, dtype=float)) <= target)
    return int(hit[0]) + 1 if len(hit) else None


def heavy_task_progress(costs: Dict[Run, Dict[str, Sequence[float]]], weights: Dict[str, float],
                        names: Optional[Dict[str, str]] = None, top: int = TOP,
                        within: float = WITHIN) -> List[TaskProgress]:
    """The ``top`` heaviest tasks' progress in every run.

    Parameters
    ----------
    costs : dict
        ``(model, seed)`` -> task key -> the task's measured costs in seconds, in measuring
        order (``inf`` for a failure).
    weights : dict
        Task key -> its weight in the network's latency (0: left out).
    names : dict, optional
        Task key -> a name to show (default: the key).
    top, within : int, float
        How many tasks; how close to the best program counts as near.
    """
    best = {k: min((min(c[k], default=math.inf) for c in costs.values() if k in c),
                   default=math.inf) for k, w in weights.items() if w > 0}
    best = {k: b for k, b in best.items() if math.isfinite(b)}
    total = sum(weights[k] * b for k, b in best.items())
    heavy = sorted(best, key=lambda k: weights[k] * best[k], reverse=True)[:top]
    rows = []
    for key in heavy:
        row = TaskProgress((names or {}).get(key, key), weights[key] * best[key] / total,
                           best[key])
        for (model, _), run in costs.items():
            task = run.get(key, [])
            row.trials.setdefault(model, []).append(
                trials_within(task, best[key] * (1 + within)))
            row.measured.setdefault(model, []).append(len(task))
        rows.append(row)
    return rows


def _median_cell(trials: List[Optional[int]], measured: List[int]) -> str:
    """``median of N (reached/seeds) [seed by seed]``: the median over all seeds, one that
    never came near counted as beyond any (so ``never`` when half or more did not), as
    :func:`tvm_gnn_cost.curves.reach_stats` counts."""
    mid = float(np.median([math.inf if t is None else t for t in trials]))
    seeds = ", ".join("never" if t is None else str(t) for t in trials)
    reached = sum(t is not None for t in trials)
    return (f"{'never' if math.isinf(mid) else f'{mid:g}'} of {max(measured)} "
            f"({reached}/{len(trials)}) [{seeds}]")


def progress_table(rows: Sequence[TaskProgress], within: float = WITHIN) -> str:
    """Markdown: a task a row, a model a column (median over seeds, then each seed)."""
    if not rows:
        return ""
    models = list(rows[0].trials)
    lines = [f"Heavy tasks: each task's own trials until its best program was within "
             f"{within:.0%} of the best any run found (median, runs that got there, each seed)",
             "",
             "| task | share | best (us) | " + " | ".join(models) + " |",
             "|---|---:|---:|" + "---|" * len(models)]
    for row in rows:
        cells = [_median_cell(row.trials[m], row.measured[m]) for m in models]
        lines.append(f"| {row.name} | {row.share:.0%} | {row.best * 1e6:.1f} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_progress(rows: Sequence[TaskProgress], path: str) -> None:
    """``rows`` as JSON, for scripts (``never`` is ``null``)."""
    with open(path, "w") as f:
        json.dump([asdict(r) for r in rows], f, indent=1)


__all__ = ["TOP", "WITHIN", "TaskProgress", "heavy_task_progress", "progress_table",
           "trials_within", "write_progress"]
