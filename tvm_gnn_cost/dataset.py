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
from typing import Dict, List, Sequence

from tvm import auto_scheduler

from .featurizer import task_key
from .logfile import read_log
from .sampling import measure_states, sample_states

logger = logging.getLogger("tvm_gnn_cost")


def tasks_path(log: str) -> str:
    """Where the tasks of ``log`` are kept: ``x.json`` (or ``x.json.gz``) -> ``x.tasks.pkl``."""
    root, _ = os.path.splitext(log[:-3] if log.endswith(".gz") else log)
    return root + ".tasks.pkl"


def save_tasks(tasks: Sequence[auto_scheduler.SearchTask], path: str) -> None:
    """Add ``tasks`` to the task file ``path`` (atomic; tasks already there are kept)."""
    known: Dict[str, auto_scheduler.SearchTask] = {}
    if os.path.exists(path):
        known = {task_key(t): t for t in load_tasks(path)}
    for t in tasks:
        known.setdefault(task_key(t), t)
    fd, tmp = tempfile.mkstemp(prefix=".tasks-", dir=os.path.dirname(os.path.abspath(path)))
    with os.fdopen(fd, "wb") as f:
        pickle.dump(list(known.values()), f)
    os.chmod(tmp, 0o644)  # a dataset is meant to be shared
    os.replace(tmp, path)


def load_tasks(path: str) -> List[auto_scheduler.SearchTask]:
    """The tasks saved in ``path``, their workloads registered with Ansor again.

    The file is a pickle (as TenSet's), gzip-compressed if ``path`` ends in
    ``.gz``: load only task files you trust.
    """
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        tasks = pickle.load(f)  # SearchTask.__setstate__ registers the workload
    if not isinstance(tasks, list):
        raise ValueError(f"{path} is not a task file written by tvm_gnn_cost.dataset.save_tasks")
    return tasks


def register_logs(logs: Sequence[str]) -> int:
    """Register the workloads of ``logs`` from their task files; returns how many tasks."""
    n = 0
    for log in logs:
        path = tasks_path(log)
        if not os.path.exists(path) and os.path.exists(path + ".gz"):
            path += ".gz"  # a shipped dataset keeps its tasks compressed too
        if os.path.exists(path):
            n += len(load_tasks(path))
        else:
            logger.warning("%s has no task file (%s): its records of network workloads cannot "
                           "be read unless the tasks are extracted again", log, path)
    return n


def _steps(inp) -> str:
    """The transform steps of a measure input, as the log writes them."""
    no_result = auto_scheduler.MeasureResult([0.0], 0, "", 0.0, 0.0)
    record = auto_scheduler.measure_record.dump_record_to_string(inp, no_result)
    return json.dumps(json.loads(record)["i"][1])


def collect(tasks: Sequence[auto_scheduler.SearchTask], per_task: int, log: str,
            seed: int = 0, chunk: int = 16, progress: bool = False,
            builder=None, runner=None) -> int:
    """Measure ``per_task`` random programs of each task into ``log``; returns how many now.

    Programs already in the log (same task, same transform steps) count towards
    ``per_task`` and are not measured again, so an interrupted run loses at
    most one chunk and a rerun continues. The tasks are saved beside the log.
    """
    if log.endswith(".gz"):
        raise ValueError(f"collect appends to a plain Ansor log; {log} is compressed: "
                         "gunzip it first, or collect into a new .json file")
    os.makedirs(os.path.dirname(os.path.abspath(log)), exist_ok=True)
    save_tasks(tasks, tasks_path(log))
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


__all__ = ["collect", "load_tasks", "register_logs", "save_tasks", "tasks_path"]
