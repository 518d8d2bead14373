"""Tuning with any cost model through ``TaskScheduler``, recording the search curve."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from tvm import auto_scheduler
from tvm.auto_scheduler.task_scheduler import TaskSchedulerCallback

logger = logging.getLogger("tvm_gnn_cost")

#: A search small enough for tests and the demo on 2 cores.
SMALL_SEARCH = {
    "evolutionary_search_population": 256,
    "evolutionary_search_num_iters": 2,
    "sample_init_min_population": 64,
}


@dataclass
class CurvePoint:
    """The state of the search after one round."""

    trials: int
    seconds: float
    latency: float  # sum of weight x best cost over tasks (seconds); inf before all are measured
    best: List[float] = field(default_factory=list)  # best cost per task (seconds)


class SearchCurve(TaskSchedulerCallback):
    """Records best estimated latency against trials after every round."""

    def __init__(self):
        self.points: List[CurvePoint] = []
        self._start: Optional[float] = None

    def pre_tune(self, task_scheduler, task_id):
        if self._start is None:
            self._start = time.perf_counter()

    def post_tune(self, task_scheduler, task_id):
        best = [float(c) for c in task_scheduler.best_costs]
        known = all(c < 1e9 for c in best)
        latency = float(task_scheduler.cur_score) if known else float("inf")
        self.points.append(CurvePoint(int(task_scheduler.ct),
                                      time.perf_counter() - (self._start or 0.0), latency, best))
        logger.info("trials %d  estimated latency %.4f ms", task_scheduler.ct, latency * 1e3)


def make_model(name: str, seed: int = 0):
    """A cost model by name: ``gnn``, ``xgb`` or ``random``.

    ``xgb`` is Ansor's ``XGBModel`` with the GNN's warm-up (16 records rather
    than 100), so that both start learning after the same measurements.
    """
    if name == "gnn":
        from .adapter import GNNCostModel

        return GNNCostModel(seed=seed)
    if name == "xgb":
        from .config import TrainerConfig

        return auto_scheduler.XGBModel(seed=seed,
                                       num_warmup_sample=TrainerConfig().num_warmup_sample)
    if name == "random":
        return auto_scheduler.RandomModel()
    raise ValueError(f"unknown cost model {name!r}; use gnn, xgb or random")


def tune(tasks: Sequence[auto_scheduler.SearchTask], model, trials: int, log_file: str,
         weights: Optional[Sequence[float]] = None, seed: int = 0,
         search_params: Optional[Dict] = None, measures_per_round: int = 16,
         runner=None, verbose: int = 0) -> SearchCurve:
    """Tune ``tasks`` with ``model`` for ``trials`` measurements; returns the search curve.

    Parameters
    ----------
    tasks : sequence of SearchTask
    model : CostModel
        Any Ansor cost model (``GNNCostModel``, ``XGBModel``, ``RandomModel``),
        shared by all tasks.
    trials : int
        Total measurement budget.
    log_file : str
        Ansor log the measurements are appended to.
    weights : sequence of float, optional
        How often each task runs in the network (default 1 each).
    seed : int
        Seeds each task's ``SketchPolicy``.
    search_params : dict, optional
        ``SketchPolicy`` parameters (default: Ansor's; :data:`SMALL_SEARCH` for quick runs).
    measures_per_round : int
        Programs measured per round.
    runner : optional
        An Ansor runner (default ``LocalRunner`` with a short repeat).
    """
    policies = [auto_scheduler.SketchPolicy(t, program_cost_model=model, params=search_params,
                                            seed=seed + i, verbose=verbose)
                for i, t in enumerate(tasks)]
    curve = SearchCurve()
    runner = runner or auto_scheduler.LocalRunner(number=2, repeat=2, min_repeat_ms=20,
                                                  enable_cpu_cache_flush=False)
    options = auto_scheduler.TuningOptions(
        num_measure_trials=trials,
        num_measures_per_round=measures_per_round,
        runner=runner,
        measure_callbacks=[auto_scheduler.RecordToFile(log_file)],
        verbose=verbose,
    )
    scheduler = auto_scheduler.TaskScheduler(list(tasks), task_weights=weights, callbacks=[curve])
    scheduler.tune(options, search_policy=policies)
    return curve
