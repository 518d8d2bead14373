"""Tuning with any cost model through ``TaskScheduler``: resume, budget, progress, and the
search curve (the callbacks are :mod:`.callbacks`)."""
from __future__ import annotations

import logging
import os
from typing import Dict, Optional, Sequence

from tvm import auto_scheduler

from ..core.prior import first_round_size
from ..curves import Curve
from ..workloads.targets import check_runs_here, check_target
from .callbacks import BudgetSpent, CurveRecorder, FirstRound, ProgressBar, StopAfter
from .interrupt import StopOnInterrupt, stop_on_interrupt
from .logs import read_log, repair_log
from .measure import TUNING
from .taskfile import save_tasks, tasks_path
from .workers import persistent_workers

logger = logging.getLogger("tvm_gnn_cost")

#: A search small enough for tests and the demo on 2 cores.
SMALL_SEARCH = {
    "evolutionary_search_population": 256,
    "evolutionary_search_num_iters": 2,
    "sample_init_min_population": 64,
}


def default_first_round(model, measures_per_round: int) -> int:
    """Programs in each task's first round for ``model`` (a cost model, with or without a
    ``prior``): :func:`~tvm_gnn_cost.core.prior.first_round_size`."""
    return first_round_size(getattr(model, "prior", None) is not None, measures_per_round)


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


def first_rounds_only(n_tasks: int, trials: int, first_round: int,
                      measures_per_round: int) -> Optional[str]:
    """A warning when ``trials`` leave tasks in their first round (``TaskScheduler`` gives
    every task one round before any gets a second), saying the budget that would not; None
    when every task can have a second round."""
    needed = n_tasks * (first_round + measures_per_round)
    if trials >= needed:
        return None
    return (f"{trials} trials leave tasks in their first round of {first_round} programs "
            f"(every task gets one before any gets a second, {n_tasks * first_round} trials): "
            f"{needed} trials ({first_round + measures_per_round} a task) give every task a "
            "second round")


def trials_by_task(log_file: str, tasks: Sequence[auto_scheduler.SearchTask]) -> Dict[str, int]:
    """Records of each of ``tasks`` (by description, else workload key) in ``log_file``."""
    names = {(t.workload_key, str(t.target)): t.desc or t.workload_key for t in tasks}
    counts = {name: 0 for name in names.values()}
    for inp in read_log(log_file)[0] if os.path.exists(log_file) else []:
        name = names.get((inp.task.workload_key, str(inp.task.target)))
        if name is not None:
            counts[name] += 1
    return counts


def tune(tasks: Sequence[auto_scheduler.SearchTask], model, trials: int, log_file: str,
         weights: Optional[Sequence[float]] = None, seed: int = 0,
         search_params: Optional[Dict] = None, measures_per_round: int = 16,
         first_round: Optional[int] = None, builder=None, runner=None,
         resume: bool = False, progress: bool = False,
         verbose: int = 0, name: str = "",
         scheduler_weights: Optional[Sequence[float]] = None) -> Curve:
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
    scheduler_weights : sequence of float, optional
        What a task's latency counts for in the gradient task scheduler's choice of the next
        task (default ``weights``), e.g. ``weights`` times each task's time in the built
        network over its estimate (:func:`.profile.profile_weights`). The curve's estimated
        latency stays the sum of ``weights`` x best costs.

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
    latency_weights = list(weights) if weights is not None else [1.0] * len(tasks)
    callbacks: list = [CurveRecorder(curve, offset=done, weights=latency_weights)]
    bar = ProgressBar(trials, done, weights=latency_weights) if progress else None
    if bar:
        callbacks.append(bar)
    runner = runner or TUNING.runner()
    left = max(0, trials - done)
    # TaskScheduler shrinks the round (or refuses to start) when the budget is under one
    # round per task, which is common when resuming; keep the round and stop on budget.
    asked = left if not done else max(left, measures_per_round * len(tasks))
    if asked > left:
        callbacks.append(StopAfter(left))
    if first_round is None:
        first_round = default_first_round(model, measures_per_round)
    if first_round != measures_per_round:
        callbacks.append(FirstRound(first_round, budget=left))
    stop = StopOnInterrupt(log_file)  # Ctrl-C: last, once the round is recorded everywhere
    callbacks.append(stop)
    options = auto_scheduler.TuningOptions(
        num_measure_trials=asked,
        num_measures_per_round=measures_per_round,
        builder=builder or "local",
        runner=runner,
        measure_callbacks=[auto_scheduler.RecordToFile(log_file)],
        verbose=verbose,
    )
    objective = None
    if scheduler_weights is not None:
        counted = [float(w) for w in scheduler_weights]
        objective = lambda costs: sum(c * w for c, w in zip(costs, counted))  # noqa: E731
    scheduler = auto_scheduler.TaskScheduler(list(tasks), task_weights=weights,
                                             objective_func=objective, callbacks=callbacks,
                                             load_log_file=log_file if done else None)
    try:
        if left:
            with persistent_workers(), stop_on_interrupt(stop):  # workers: 2.6x faster
                scheduler.tune(options, search_policy=policies)
    except BudgetSpent:
        pass
    finally:
        if bar:
            bar.close()
    return curve
