"""What a measured cost means: the one failed-cost convention and the labels learned from costs.

Every search and log states a failed measurement its own way: Ansor writes ``1e10`` seconds,
MetaSchedule gives no run time (``inf`` here), a broken record may carry ``0`` or ``NaN``.
All of them enter the project through :func:`clean_costs`, which keeps the cost of a program
that ran and makes every other ``inf``; the labels are computed from that.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

#: Cost of a failed measurement as Ansor records it (seconds). Any cost at or above it, not
#: finite, or not positive marks a program that did not run.
FAILED_COST = 1e10


def clean_costs(costs) -> np.ndarray:
    """Costs in seconds as float64, ``inf`` for every program that did not run."""
    c = np.array(costs, dtype=float, copy=True).reshape(-1)
    c[~np.isfinite(c) | (c <= 0) | (c >= FAILED_COST)] = np.inf
    return c


def ran(costs) -> np.ndarray:
    """Mask of the programs that ran (see :func:`clean_costs`)."""
    return np.isfinite(clean_costs(costs))


def task_best(costs, groups) -> np.ndarray:
    """For each program, the lowest cost of its task among programs that ran (``inf`` if none)."""
    costs = clean_costs(costs)
    if not len(costs):
        return costs
    ids = np.unique(np.asarray(groups), return_inverse=True)[1].reshape(-1)
    best = np.full(ids.max() + 1, np.inf)
    np.minimum.at(best, ids, costs)
    return best[ids]


def normalized_throughput(costs, groups: Optional[Sequence] = None,
                          best: Optional[Sequence[float]] = None) -> np.ndarray:
    """``best cost of the task / cost`` in (0, 1]; 0 for programs that did not run.

    Parameters
    ----------
    costs : array-like
        Costs in seconds.
    groups : array-like, optional
        Task of each program: the best cost is taken over the programs given.
    best : array-like, optional
        The best cost of each program's task, known from elsewhere (a corpus streamed in
        parts keeps each task's best in a summary). Give ``groups`` or ``best``.
    """
    costs = clean_costs(costs)
    if best is None:
        if groups is None:
            raise ValueError("normalized_throughput needs the task of each program (groups) "
                             "or the best cost of its task (best)")
        best = task_best(costs, groups)
    best = np.asarray(best, dtype=float)
    y = np.zeros(len(costs))
    ok = np.isfinite(costs) & np.isfinite(best)
    y[ok] = best[ok] / costs[ok]
    return y


def log_throughput(costs) -> np.ndarray:
    """``ln(1 ms / cost)``: 0 for a program that takes a millisecond, +ln 2 for one twice as
    fast; ``-inf`` for programs that did not run.

    Unlike :func:`normalized_throughput` it does not move when a faster program of the task
    is found, and it compares programs of different tasks.
    """
    costs = clean_costs(costs)
    out = np.full(len(costs), -np.inf)
    ok = np.isfinite(costs)
    out[ok] = -np.log(costs[ok] * 1e3)
    return out


def labels(costs, groups=None, log: bool = False, best=None) -> np.ndarray:
    """The training labels of a loss: :func:`log_throughput` if ``log``, else
    :func:`normalized_throughput` (per task, from ``groups`` or ``best``)."""
    if log:
        return log_throughput(costs)
    return normalized_throughput(costs, groups, best)


__all__ = ["FAILED_COST", "clean_costs", "labels", "log_throughput", "normalized_throughput",
           "ran", "task_best"]
