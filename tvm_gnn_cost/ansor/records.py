"""Measured programs from the search or from Ansor logs, ready to featurize."""
from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from tvm import auto_scheduler

from ..workloads import operators  # noqa: F401 - registers the built-in workloads, so their logs read back
from .featurizer import task_key
from ..core.labels import FAILED_COST

logger = logging.getLogger("tvm_gnn_cost")


def repeat_costs(result) -> List[float]:
    """The cost in seconds of each repeat of a ``MeasureResult``, as Python floats."""
    return [float(c.value) if hasattr(c, "value") else float(c) for c in result.costs]


def measured_cost(result) -> float:
    """Mean cost in seconds of a ``MeasureResult``; ``FAILED_COST`` if it failed."""
    if int(result.error_no) != 0:
        return FAILED_COST
    costs = repeat_costs(result)
    cost = sum(costs) / len(costs) if costs else FAILED_COST
    return cost if math.isfinite(cost) and cost > 0 else FAILED_COST


@dataclass
class TaskGroup:
    """Bound-inferred states of one task with their measured costs."""

    task: auto_scheduler.SearchTask
    states: List = field(default_factory=list)
    costs: List[float] = field(default_factory=list)
    name: str = ""  # the task's name (``SearchTask.desc``) where known
    weight: int = 1  # how often the task runs in its network, where known


class TaskRebuilder:
    """Rebuilds the ``SearchTask`` of log records, once per workload and target.

    Records read from a log carry a task without its compute DAG; rebuilding
    it needs the workload registered (import the module that defines it, or
    re-run ``extract_tasks``).
    """

    def __init__(self):
        self._tasks: Dict[str, Optional[auto_scheduler.SearchTask]] = {}
        self.skipped: Counter = Counter()

    def task_of(self, inp) -> Optional[auto_scheduler.SearchTask]:
        task = inp.task
        if task.compute_dag is not None:
            return task
        key = task_key(task)
        if key not in self._tasks:
            try:
                self._tasks[key] = auto_scheduler.SearchTask(
                    workload_key=task.workload_key,
                    target=task.target,
                    hardware_params=task.hardware_params,
                    layout_rewrite_option=task.layout_rewrite_option,
                    task_inputs=list(task.task_input_names),
                )
            except Exception as err:  # noqa: BLE001 - an unregistered workload raises various errors
                logger.warning("skipping records of workload %s: cannot rebuild its task (%s). "
                               "Register the workload first (import its module or re-run "
                               "extract_tasks).", task.workload_key[:80], str(err).splitlines()[0])
                self._tasks[key] = None
        return self._tasks[key]


def group_by_task(inputs: Sequence, results: Sequence,
                  rebuilder: Optional[TaskRebuilder] = None) -> List[TaskGroup]:
    """Group measure pairs by task, with costs in seconds.

    Records whose task cannot be rebuilt are skipped and counted in
    ``rebuilder.skipped``.
    """
    rebuilder = rebuilder or TaskRebuilder()
    groups: Dict[str, TaskGroup] = {}
    for inp, res in zip(inputs, results):
        task = rebuilder.task_of(inp)
        if task is None:
            rebuilder.skipped["unregistered workload"] += 1
            continue
        g = groups.setdefault(task_key(task), TaskGroup(task))
        g.states.append(inp.state)
        g.costs.append(measured_cost(res))
    return list(groups.values())


def infer_bound(task: auto_scheduler.SearchTask, state):
    """``state`` with the extents of all its loops filled in (a ``StateObject``)."""
    obj = state if isinstance(state, auto_scheduler.loop_state.StateObject) else state.state_object
    return auto_scheduler._ffi_api.ComputeDAGInferBoundFromState(task.compute_dag, obj)


def featurize_measured(featurizer, task: auto_scheduler.SearchTask, states: Sequence) -> list:
    """Graphs (:class:`~tvm_gnn_cost.ansor.featurizer.StateFeaturizer` ``featurizer``) of
    measured states, from the search or read from a log.

    States from the search are bound-inferred; those read from a log have no stages yet:
    bounds are inferred only where the plain read fails.
    """
    graphs = featurizer.featurize(task, states)
    redo = [i for i, g in enumerate(graphs) if not g.valid]
    if redo:
        fixed = []
        for i in redo:
            try:
                fixed.append(infer_bound(task, states[i]))
            except Exception as err:  # noqa: BLE001 - a state that cannot replay stays invalid
                logger.debug("cannot infer bounds of a measured state: %s", err)
                fixed.append(states[i])
        for i, g in zip(redo, featurizer.featurize(task, fixed)):
            graphs[i] = g
    return graphs
