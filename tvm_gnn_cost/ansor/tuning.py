"""Tuning with any cost model through ``TaskScheduler``, recording the search curve."""
from __future__ import annotations

import logging
import math
import os
import time
from typing import Dict, Optional, Sequence

from tvm import auto_scheduler
from tvm.auto_scheduler.task_scheduler import TaskSchedulerCallback

from ..core.labels import FAILED_COST
from ..core.prior import PRIOR_RECORDS
from ..curves import Curve
from .interrupt import StopOnInterrupt, stop_on_interrupt
from .logs import read_log, repair_log
from .taskfile import save_tasks, tasks_path
from .measure import TUNING
from .workers import persistent_workers
from ..workloads.targets import check_runs_here, check_target

logger = logging.getLogger("tvm_gnn_cost")

#: A search small enough for tests and the demo on 2 cores.
SMALL_SEARCH = {
    "evolutionary_search_population": 256,
    "evolutionary_search_num_iters": 2,
    "sample_init_min_population": 64,
}


class CurveRecorder(TaskSchedulerCallback):
    """Adds a point to a :class:`~tvm_gnn_cost.curves.Curve` after every round: trials, seconds
    since the first round, and the estimated latency (``inf`` until every task has a valid
    measurement). ``offset`` trials (already in the log when a run resumes) are added to the
    counts."""

    def __init__(self, curve: Curve, offset: int = 0):
        self.curve = curve
        self.offset = offset
        self._start: Optional[float] = None

    def pre_tune(self, task_scheduler, task_id):
        if self._start is None:
            self._start = time.perf_counter()

    def post_tune(self, task_scheduler, task_id):
        latency = estimated_latency(task_scheduler)
        trials = self.offset + int(task_scheduler.ct)
        self.curve.add(trials, time.perf_counter() - (self._start or 0.0), latency)
        logger.info("trials %d  estimated latency %.4f ms", trials, latency * 1e3)


def estimated_latency(task_scheduler) -> float:
    """Sum of weight x best cost over the tasks (seconds); ``inf`` while a task has none."""
    if any(float(c) >= FAILED_COST for c in task_scheduler.best_costs):
        return float("inf")
    return float(task_scheduler.cur_score)


class ProgressBar(TaskSchedulerCallback):
    """A progress bar: trials done, best estimated latency, elapsed time."""

    def __init__(self, total: int, done: int = 0, desc: str = "tuning"):
        from tqdm import tqdm

        self.bar = tqdm(total=total, initial=done, desc=desc, unit="trial", dynamic_ncols=True)
        self.done = done

    def post_tune(self, task_scheduler, task_id):
        now = self.done + int(task_scheduler.ct)
        self.bar.update(now - self.bar.n)
        latency = estimated_latency(task_scheduler)
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


#: Programs in a task's first round for a model with a pretrained prior (chosen on validation,
#: ``benchmarks/results/default-model.md``).
PRIOR_FIRST_ROUND = 8


def first_round_size(with_prior: bool, measures_per_round: int) -> int:
    """Programs in each task's first round when :func:`tune` is not told: at most
    :data:`PRIOR_FIRST_ROUND` for a model with a pretrained prior, which ranks a task's first
    programs without records of its own; a full round otherwise, as ``TaskScheduler`` does (the
    warm-up of stock ``XGBModel`` is one full round of every task)."""
    return min(PRIOR_FIRST_ROUND, measures_per_round) if with_prior else measures_per_round


def default_first_round(model, measures_per_round: int) -> int:
    """:func:`first_round_size` for ``model`` (a cost model, with or without a ``prior``)."""
    return first_round_size(getattr(model, "prior", None) is not None, measures_per_round)


class _BudgetSpent(Exception):
    pass


class _StopAfter(TaskSchedulerCallback):
    """Ends ``TaskScheduler.tune`` after the round that reaches ``trials`` measurements."""

    def __init__(self, trials: int):
        self.trials = trials

    def post_tune(self, task_scheduler, task_id):
        if task_scheduler.ct >= self.trials:
            raise _BudgetSpent


#: Cost models by name: ``gnn`` (the default: online GNN, with the shipped prior where the
#: target fits), ``xgb`` (Ansor's XGBModel as TaskScheduler builds it), ``xgb-w16`` (XGBModel
#: with the GNN's 16-record warm-up) and ``random``.
MODELS = ("gnn", "xgb", "xgb-w16", "random")

#: ``prior=`` of :func:`make_model`: the shipped checkpoint, where the target is a CPU it fits.
DEFAULT_PRIOR = "default"


def make_model(name: str, seed: int = 0, tasks: Sequence = (), trials: int = 0,
               measures_per_round: int = 16, prior: Optional[str] = DEFAULT_PRIOR,
               pretrained: Optional[str] = None, prior_records: float = PRIOR_RECORDS):
    """A cost model of :data:`MODELS` for tuning ``trials`` measurements of ``tasks``.

    Parameters
    ----------
    name : str
        ``gnn``: a :class:`GNNCostModel` with ``prior`` as a frozen prior (``"default"``: the
        shipped checkpoint where the tasks' target fits it, see
        :meth:`GNNCostModel.pretrained`; None: the online GNN alone; or a checkpoint), or
        started from the checkpoint ``pretrained`` (fine-tuned, no prior). ``xgb``: Ansor's
        ``XGBModel`` exactly as ``TaskScheduler`` builds it for ``sketch.xgb``: warm-up of one
        round of every task (``len(tasks) x measures per round``, the round cut to
        ``trials // len(tasks)`` as TaskScheduler cuts it). ``xgb-w16``: XGBModel with the
        GNN's 16-record warm-up. ``random``: Ansor's RandomModel.
    seed : int
        Seeds the model.
    """
    if name not in MODELS:
        raise ValueError(f"unknown cost model {name!r}; use one of {', '.join(MODELS)}")
    if name == "gnn":
        from .cost_model import GNNCostModel

        if pretrained:
            model = GNNCostModel(seed=seed)
            model.load(pretrained)
            return model
        if prior == DEFAULT_PRIOR:
            target = tasks[0].target if len(tasks) else None
            return GNNCostModel.pretrained(target, seed=seed, prior_records=prior_records)
        return GNNCostModel(seed=seed, prior=prior, prior_records=prior_records)
    if pretrained or prior not in (None, DEFAULT_PRIOR):
        raise ValueError("a pretrained checkpoint or a prior needs the gnn model")
    if name == "xgb":
        if not len(tasks) or trials <= 0:
            raise ValueError("the stock xgb model needs the tasks and the trial budget "
                             "(its warm-up is one round of every task)")
        per_round = min(measures_per_round, max(1, trials // len(tasks)))
        return auto_scheduler.XGBModel(seed=seed, num_warmup_sample=len(tasks) * per_round)
    if name == "xgb-w16":
        from ..core.config import TrainerConfig

        return auto_scheduler.XGBModel(seed=seed,
                                       num_warmup_sample=TrainerConfig().num_warmup_sample)
    return auto_scheduler.RandomModel()


def _resume(model, tasks, log_file: str):
    """Records of ``tasks`` already in ``log_file``, with ``model`` trained on them, and the
    search callbacks that start from their states."""
    repair_log(log_file)  # a kill while writing leaves a line TVM's readers stop at
    done = count_records(log_file, tasks)
    if not done:
        return 0, []
    logger.info("resuming from %d records in %s", done, log_file)
    if hasattr(model, "update_from_file"):
        model.update_from_file(log_file)
    return done, [auto_scheduler.PreloadMeasuredStates(log_file)]


def count_records(log_file: str, tasks: Sequence[auto_scheduler.SearchTask]) -> int:
    """Records of ``tasks`` (same workload and target) already in ``log_file``."""
    if not log_file or not os.path.exists(log_file):
        return 0
    keys = {(t.workload_key, str(t.target)) for t in tasks}
    inputs, _, _ = read_log(log_file)
    return sum(1 for inp in inputs if (inp.task.workload_key, str(inp.task.target)) in keys)


def check_budget(tasks: Sequence, trials: int, measures_per_round: int = 16) -> None:
    """Refuse ``trials`` under one a task for a search that starts afresh, which
    ``TaskScheduler`` refuses only once tuning starts, with a traceback.

    Raises
    ------
    ValueError
        Saying how many trials the tasks need.
    """
    if 0 < trials < len(tasks):
        raise ValueError(
            f"{trials} trial{'s' if trials > 1 else ''} cannot tune {len(tasks)} tasks: Ansor "
            f"measures every task at least once, so give at least {len(tasks)} trials "
            f"({len(tasks) * measures_per_round} give every task one round of "
            f"{measures_per_round})")


def tune(tasks: Sequence[auto_scheduler.SearchTask], model, trials: int, log_file: str,
         weights: Optional[Sequence[float]] = None, seed: int = 0,
         search_params: Optional[Dict] = None, measures_per_round: int = 16,
         first_round: Optional[int] = None, builder=None, runner=None,
         resume: bool = False, progress: bool = False,
         verbose: int = 0, name: str = "") -> Curve:
    """Tune ``tasks`` with ``model`` until ``trials`` measurements; returns the search curve.

    Parameters
    ----------
    tasks : sequence of SearchTask
    model : CostModel
        Any Ansor cost model (``GNNCostModel``, ``XGBModel``, ``RandomModel``),
        shared by all tasks.
    trials : int
        Total measurement budget, including records already in the log when resuming.
    log_file : str
        Ansor log the measurements are appended to; the tasks are kept beside it
        (``x.json`` -> ``x.tasks.json``, :mod:`.taskfile`), so that ``pretrain`` and
        ``evaluate`` can read it later.
    weights : sequence of float, optional
        How often each task runs in the network (default 1 each).
    seed : int
        Seeds each task's ``SketchPolicy``.
    search_params : dict, optional
        ``SketchPolicy`` parameters (default: Ansor's; :data:`SMALL_SEARCH` for quick runs).
    measures_per_round : int
        Programs measured per round.
    first_round : int, optional
        Programs measured in each task's first round (default :func:`default_first_round`:
        8 for a model with a prior, ``measures_per_round`` otherwise).
    builder, runner : optional
        Ansor builder and runner (default ``LocalBuilder`` and a ``LocalRunner`` with a
        short repeat; pass an ``RPCRunner`` to measure on remote devices).
    resume : bool
        Continue from the records in ``log_file``: the model is trained on them first, the
        search does not measure them again, and the scheduler starts from their best costs.
    progress : bool
        Show a progress bar.
    name : str
        The model's name in the returned curve.

    Raises
    ------
    TuningInterrupted
        On Ctrl-C (SIGINT, in the main thread), after the round under way; the log keeps
        what was measured before Ctrl-C, and ``resume=True`` continues from it.
    """
    for target in {str(t.target) for t in tasks}:
        check_target(target)
        if runner is None or isinstance(runner, auto_scheduler.LocalRunner):
            check_runs_here(target)
    done, init = _resume(model, tasks, log_file) if resume else (0, [])
    if not done:
        check_budget(tasks, trials, measures_per_round)
    # the tasks beside the log: without them a network's log cannot be read another day
    # (pretrain, evaluate), its workloads being registered only in this process
    os.makedirs(os.path.dirname(os.path.abspath(log_file)), exist_ok=True)
    save_tasks(tasks, tasks_path(log_file), weights)
    policies = [auto_scheduler.SketchPolicy(t, program_cost_model=model, params=search_params,
                                            seed=seed + i, verbose=verbose,
                                            init_search_callbacks=init)
                for i, t in enumerate(tasks)]
    curve = Curve(name, seed)
    stop = StopOnInterrupt(log_file)  # Ctrl-C: first, so that no callback sees the round
    callbacks: list = [stop, CurveRecorder(curve, offset=done)]
    bar = ProgressBar(trials, done) if progress else None
    if bar:
        callbacks.append(bar)
    runner = runner or TUNING.runner()
    left = max(0, trials - done)
    # TaskScheduler shrinks the round (or refuses to start) when the budget is under one
    # round per task, which is common when resuming; keep the round and stop on budget.
    asked = left if not done else max(left, measures_per_round * len(tasks))
    if asked > left:
        callbacks.append(_StopAfter(left))
    if first_round is None:
        first_round = default_first_round(model, measures_per_round)
    if first_round != measures_per_round:
        callbacks.append(FirstRound(first_round, budget=left))
    options = auto_scheduler.TuningOptions(
        num_measure_trials=asked,
        num_measures_per_round=measures_per_round,
        builder=builder or "local",
        runner=runner,
        measure_callbacks=[auto_scheduler.RecordToFile(log_file)],
        verbose=verbose,
    )
    scheduler = auto_scheduler.TaskScheduler(list(tasks), task_weights=weights, callbacks=callbacks,
                                             load_log_file=log_file if done else None)
    try:
        if left:
            with persistent_workers(), stop_on_interrupt(stop):  # workers: 2.6x faster
                scheduler.tune(options, search_policy=policies)
    except _BudgetSpent:
        pass
    finally:
        if bar:
            bar.close()
    return curve
