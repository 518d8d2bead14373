"""Datasets of measured programs: Ansor logs plus the tasks that make them readable later.

A log of a network's tasks names each workload by a hash of its compute DAG,
registered only in the process that extracted the tasks. :func:`save_tasks`
keeps the tasks beside the log (``data/r18.json`` -> ``data/r18.tasks.pkl``)
and :func:`load_tasks` registers them again, so the log can be read on
another day. :func:`collect` samples random programs of each task from Ansor's
sketch space (TenSet's method), measures them and appends them to the log,
resuming where an interrupted run stopped.
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import pickle
import tempfile
from typing import Dict, List, Optional, Sequence, Tuple

from tvm import auto_scheduler

from .featurizer import task_key
from .logs import read_log
from .sampling import measure_states, sample_states

logger = logging.getLogger("tvm_gnn_cost")


def tasks_path(log: str) -> str:
    """Where the tasks of ``log`` are kept: ``x.json`` (or ``x.json.gz``) -> ``x.tasks.pkl``."""
    root, _ = os.path.splitext(log[:-3] if log.endswith(".gz") else log)
    return root + ".tasks.pkl"


def save_tasks(tasks: Sequence[auto_scheduler.SearchTask], path: str,
               weights: Optional[Sequence[int]] = None) -> None:
    """Add ``tasks`` (with their ``weights`` in the network, default 1) to the task file
    ``path`` (atomic; tasks already there are kept, their weights updated when given).

    The file is TenSet's: a pickle of ``(tasks, weights)``.
    """
    known: Dict[str, Tuple[auto_scheduler.SearchTask, int]] = {}
    if os.path.exists(path):
        known = {task_key(t): (t, w) for t, w in zip(*read_task_file(path))}
    for i, t in enumerate(tasks):
        kept, weight = known.get(task_key(t), (t, 1))
        known[task_key(t)] = (kept, int(weights[i]) if weights is not None else weight)
    fd, tmp = tempfile.mkstemp(prefix=".tasks-", dir=os.path.dirname(os.path.abspath(path)))
    with os.fdopen(fd, "wb") as f:
        pickle.dump(([t for t, _ in known.values()], [w for _, w in known.values()]), f)
    os.chmod(tmp, 0o644)  # a dataset is meant to be shared
    os.replace(tmp, path)


def read_task_file(path: str) -> Tuple[List[auto_scheduler.SearchTask], List[int]]:
    """The tasks saved in ``path`` and their weights, the workloads registered with Ansor again.

    The file is a pickle (as TenSet's), gzip-compressed if ``path`` ends in
    ``.gz``: load only task files you trust. A file of tasks alone (this project's
    first format) gives every task weight 1.
    """
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = pickle.load(f)  # SearchTask.__setstate__ registers the workload
    if isinstance(data, list):
        data = (data, [1] * len(data))
    if not (isinstance(data, tuple) and len(data) == 2 and len(data[0]) == len(data[1])):
        raise ValueError(f"{path} is not a task file written by tvm_gnn_cost.ansor.dataset.save_tasks")
    return list(data[0]), [int(w) for w in data[1]]


def load_tasks(path: str) -> List[auto_scheduler.SearchTask]:
    """The tasks saved in ``path`` (see :func:`read_task_file`)."""
    return read_task_file(path)[0]


def log_tasks(logs: Sequence[str]) -> Tuple[List[auto_scheduler.SearchTask], List[int]]:
    """The tasks kept beside ``logs`` and their weights (loading registers the workloads)."""
    tasks: List[auto_scheduler.SearchTask] = []
    weights: List[int] = []
    for log in logs:
        path = tasks_path(log)
        if not os.path.exists(path) and os.path.exists(path + ".gz"):
            path += ".gz"  # a shipped dataset keeps its tasks compressed too
        if os.path.exists(path):
            t, w = read_task_file(path)
            tasks += t
            weights += w
        else:
            logger.warning("%s has no task file (%s): its records of network workloads cannot "
                           "be read unless the tasks are extracted again", log, path)
    return tasks, weights


def register_logs(logs: Sequence[str]) -> int:
    """Register the workloads of ``logs`` from their task files; returns how many tasks."""
    return len(log_tasks(logs)[0])


def _steps(inp) -> str:
    """The transform steps of a measure input, as the log writes them."""
    no_result = auto_scheduler.MeasureResult([0.0], 0, "", 0.0, 0.0)
    record = auto_scheduler.measure_record.dump_record_to_string(inp, no_result)
    return json.dumps(json.loads(record)["i"][1])


def collect(tasks: Sequence[auto_scheduler.SearchTask], per_task: int, log: str,
            seed: int = 0, chunk: int = 16, progress: bool = False,
            builder=None, runner=None, weights: Optional[Sequence[int]] = None) -> int:
    """Measure ``per_task`` random programs of each task into ``log``; returns how many now.

    Programs already in the log (same task, same transform steps) count towards
    ``per_task`` and are not measured again, so an interrupted run loses at
    most one chunk and a rerun continues. The tasks are saved beside the log,
    with their ``weights`` in the network (how often each runs; default 1).
    """
    if log.endswith(".gz"):
        raise ValueError(f"collect appends to a plain Ansor log; {log} is compressed: "
                         "gunzip it first, or collect into a new .json file")
    os.makedirs(os.path.dirname(os.path.abspath(log)), exist_ok=True)
    save_tasks(tasks, tasks_path(log), weights)
    have: Dict[str, set] = {}
    if os.path.exists(log):
        for inp in read_log(log)[0]:
            have.setdefault(task_key(inp.task), set()).add(_steps(inp))
    missing = {task_key(t): max(0, per_task - len(have.get(task_key(t), ()))) for t in tasks}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=sum(missing.values()), desc="collect", unit="program")
    new = 0
    try:
        for i, task in enumerate(tasks):
            need = missing[task_key(task)]
            if not need:
                continue
            seen = have.setdefault(task_key(task), set())
            states = []
            for s in sample_states(task, per_task + len(seen), seed=seed + i):
                step = _steps(auto_scheduler.MeasureInput(task, s))
                if step not in seen:
                    seen.add(step)
                    states.append(s)
                    if len(states) == need:
                        break
            for s in range(0, len(states), chunk):
                part = states[s:s + chunk]
                measure_states(task, part, log, builder=builder, runner=runner)
                new += len(part)
                if bar:
                    bar.update(len(part))
    finally:
        if bar:
            bar.close()
    total = sum(min(per_task, len(have.get(task_key(t), ()))) for t in tasks)
    logger.info("collect: %d programs measured now, %d of %d in %s", new, total,
                per_task * len(tasks), log)
    return total


__all__ = ["collect", "load_tasks", "log_tasks", "read_task_file", "register_logs", "save_tasks",
           "tasks_path"]
