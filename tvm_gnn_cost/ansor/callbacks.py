"""``TaskScheduler`` callbacks: the search curve, a progress bar, a short first round, and a
stop at the budget."""
from __future__ import annotations

import logging
import math
import time
from typing import Optional, Sequence

from tvm.auto_scheduler.task_scheduler import TaskSchedulerCallback

from ..core.labels import FAILED_COST
from ..curves import Curve

logger = logging.getLogger("tvm_gnn_cost")


def estimated_latency(task_scheduler, weights: Optional[Sequence[float]] = None) -> float:
    """Sum of weight x best cost over the tasks (seconds); ``inf`` while a task has none.
    ``weights``: how often each task runs in the network (default once each). This is the
    network's estimate even where the scheduler minimizes another sum
    (``tune(scheduler_weights=...)``), so it is never the scheduler's own score."""
    costs = [float(c) for c in task_scheduler.best_costs]
    if any(c >= FAILED_COST for c in costs):
        return float("inf")
    weights = [1.0] * len(costs) if weights is None else weights
    return float(sum(c * float(w) for c, w in zip(costs, weights)))


class CurveRecorder(TaskSchedulerCallback):
    """Adds a point to a :class:`~tvm_gnn_cost.curves.Curve` after every round: trials, seconds
    since the first round, and the estimated latency (``inf`` until every task has a valid
    measurement). ``offset`` trials (already in the log when a run resumes) are added to the
    counts; ``weights`` as :func:`estimated_latency` takes them."""

    def __init__(self, curve: Curve, offset: int = 0,
                 weights: Optional[Sequence[float]] = None):
        self.curve = curve
        self.offset = offset
        self.weights = weights
        self._start: Optional[float] = None

    def pre_tune(self, task_scheduler, task_id):
        if self._start is None:
            self._start = time.perf_counter()

    def post_tune(self, task_scheduler, task_id):
        latency = estimated_latency(task_scheduler, self.weights)
        trials = self.offset + int(task_scheduler.ct)
        self.curve.add(trials, time.perf_counter() - (self._start or 0.0), latency)
        logger.info("trials %d  estimated latency %.4f ms", trials, latency * 1e3)


class ProgressBar(TaskSchedulerCallback):
    """A progress bar: trials done, best estimated latency, elapsed time."""

    def __init__(self, total: int, done: int = 0, desc: str = "tuning",
                 weights: Optional[Sequence[float]] = None):
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=done, desc=desc, unit="trial", dynamic_ncols=True)
        self.done = done
        self.weights = weights

    def post_tune(self, task_scheduler, task_id):
        now = self.done + int(task_scheduler.ct)
        self.bar.update(now - self.bar.n)
        latency = estimated_latency(task_scheduler, self.weights)
        self.bar.set_postfix_str(f"best {latency * 1e3:.4f} ms" if math.isfinite(latency)
                                 else "best: not all tasks yet")

    def close(self):
        self.bar.close()


class FirstRound(TaskSchedulerCallback):
    """Measures at most ``first`` programs in a task's first round, the scheduler's round size
    in the others, and no round past ``budget`` measurements.

    ``TaskScheduler`` gives every task one full round before it turns to the tasks that matter
    most; a cost model that ranks well from the start (a pretrained prior) needs fewer
    programs to get every task an estimate, so the first pass over the tasks can be shorter.
    A short first round puts the later rounds off the budget's grid (one task, 64 trials: 8,
    then 16 a round, would end at 72), so the last round is cut to what the budget leaves.
    """

    def __init__(self, first: int, budget: Optional[int] = None):
        self.first = first
        self.budget = budget
        self._per_round: Optional[int] = None

    def pre_tune(self, task_scheduler, task_id):
        if self._per_round is None:  # TaskScheduler's own, cut to the budget
            self._per_round = int(task_scheduler.num_measures_per_round)
        fresh = not task_scheduler.task_cts[task_id]
        n = min(self.first, self._per_round) if fresh else self._per_round
        if self.budget is not None:
            n = min(n, max(1, self.budget - int(task_scheduler.ct)))
        task_scheduler.num_measures_per_round = n

    def post_tune(self, task_scheduler, task_id):
        task_scheduler.num_measures_per_round = self._per_round


class BudgetSpent(Exception):
    """Raised by :class:`StopAfter` to end ``TaskScheduler.tune``."""


class StopAfter(TaskSchedulerCallback):
    """Ends ``TaskScheduler.tune`` (raising :class:`BudgetSpent`) after the round that reaches
    ``trials`` measurements."""

    def __init__(self, trials: int):
        self.trials = trials

    def post_tune(self, task_scheduler, task_id):
        if task_scheduler.ct >= self.trials:
            raise BudgetSpent


__all__ = ["BudgetSpent", "CurveRecorder", "FirstRound", "ProgressBar", "StopAfter",
           "estimated_latency"]
