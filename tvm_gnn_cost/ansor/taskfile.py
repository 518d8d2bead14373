"""Task files: the search tasks beside an Ansor log, so that the log can be read on another day.

A log of a network's tasks names each workload by a hash of its compute DAG,
registered only in the process that extracted the tasks. :func:`save_tasks` keeps
the tasks beside the log (``data/r18.json`` -> ``data/r18.tasks.json``) and
:func:`read_task_file` registers them again.

The file is JSON that loading runs no code from: for every task its compute DAG
(TVM's own serialization, ``tvm.ir.save_json`` of its tensors), workload key,
target and host, hardware parameters, layout-rewrite option, description and
weight in the network (how often it runs)::

    {"format": "tvm-gnn-cost-tasks", "version": 1, "tasks": [{...}, ...]}

TenSet's format, a pickle of ``(tasks, weights)`` (``x.tasks.pkl``, this
project's format until December 2026), runs code when loaded: it is read only
when asked with ``trust_pickle=True`` (``--trust-pickle`` on the command line),
and :func:`convert_task_file` rewrites it as JSON.
"""
from __future__ import annotations

import gzip
import json
import logging
import os
from typing import Dict, List, Optional, Sequence, Tuple

import tvm
from tvm import auto_scheduler

from ..core.files import replaced_whole
from .featurizer import task_key

logger = logging.getLogger("tvm_gnn_cost")

FORMAT = "tvm-gnn-cost-tasks"
VERSION = 1
_HARDWARE_FIELDS = ("num_cores", "vector_unit_bytes", "cache_line_bytes",
                    "max_shared_memory_per_block", "max_local_memory_per_block",
                    "max_threads_per_block", "max_vthread_extent", "warp_size")


class UntrustedPickleError(ValueError):
    """A task file is a pickle and loading it was not allowed."""


def tasks_path(log: str) -> str:
    """Where the tasks of ``log`` are kept: ``x.json`` (or ``x.json.gz``) -> ``x.tasks.json``."""
    root, _ = os.path.splitext(log[:-3] if log.endswith(".gz") else log)
    return root + ".tasks.json"


def is_task_file(path: str) -> bool:
    """Whether ``path`` is named as a task file (``x.tasks.json``, ``.json.gz``, ``.pkl``)."""
    name = path[:-3] if path.endswith(".gz") else path
    return name.endswith((".tasks.json", ".tasks.pkl"))


def find_task_file(log: str) -> Optional[str]:
    """The task file beside ``log``, compressed or not, JSON before a pickle; None if none."""
    root = tasks_path(log)[:-len(".json")]
    for path in (root + ".json", root + ".json.gz", root + ".pkl", root + ".pkl.gz"):
        if os.path.exists(path):
            return path
    return None


def task_to_dict(task: auto_scheduler.SearchTask, weight: int = 1) -> dict:
    """``task`` as plain JSON values (see the module docstring)."""
    hw = task.hardware_params
    return {
        "workload_key": task.workload_key,
        "compute_dag": tvm.ir.save_json(task.compute_dag.tensors),
        "target": str(task.target),
        "target_host": str(task.target_host) if task.target_host is not None else None,
        "hardware_params": {k: int(getattr(hw, k)) for k in _HARDWARE_FIELDS},
        "layout_rewrite_option": int(task.layout_rewrite_option),
        "task_input_names": [str(n) for n in task.task_input_names],
        "desc": str(task.desc),
        "weight": int(weight),
    }


def task_from_dict(d: dict) -> Tuple[auto_scheduler.SearchTask, int]:
    """The task (its workload registered with Ansor) and weight written by :func:`task_to_dict`."""
    from tvm.auto_scheduler.workload_registry import register_workload_tensors

    tensors = tvm.ir.load_json(d["compute_dag"])
    if json.loads(d["workload_key"])[0] not in auto_scheduler.workload_registry.WORKLOAD_FUNC_REGISTRY:
        register_workload_tensors(d["workload_key"], tensors)
    target = tvm.target.Target(d["target"], d["target_host"])
    task = auto_scheduler.SearchTask(
        compute_dag=auto_scheduler.ComputeDAG(list(tensors)), workload_key=d["workload_key"],
        target=target, hardware_params=auto_scheduler.HardwareParams(**d["hardware_params"]),
        layout_rewrite_option=d["layout_rewrite_option"],
        task_inputs=list(d["task_input_names"]) or None, desc=d["desc"])
    return task, int(d.get("weight", 1))


def save_tasks(tasks: Sequence[auto_scheduler.SearchTask], path: str,
               weights: Optional[Sequence[int]] = None) -> None:
    """Add ``tasks`` (with their ``weights`` in the network, default 1) to the task file
    ``path`` (JSON, gzip-compressed if it ends in ``.gz``; atomic; tasks already there are
    kept, their weights updated when given)."""
    if not (path.endswith(".json") or path.endswith(".json.gz")):
        raise ValueError(f"a task file is written as JSON (.json or .json.gz), got {path}")
    known: Dict[str, Tuple[auto_scheduler.SearchTask, int]] = {}
    if os.path.exists(path):
        known = {task_key(t): (t, w) for t, w in zip(*read_task_file(path))}
    for i, t in enumerate(tasks):
        kept, weight = known.get(task_key(t), (t, 1))
        known[task_key(t)] = (kept, int(weights[i]) if weights is not None else weight)
    doc = {"format": FORMAT, "version": VERSION,
           "tasks": [task_to_dict(t, w) for t, w in known.values()]}
    data = json.dumps(doc, indent=1).encode()
    with replaced_whole(path) as f:
        f.write(gzip.compress(data, mtime=0) if path.endswith(".gz") else data)


def read_task_file(path: str, trust_pickle: bool = False
                   ) -> Tuple[List[auto_scheduler.SearchTask], List[int]]:
    """The tasks saved in ``path`` and their weights, the workloads registered with Ansor again.

    Parameters
    ----------
    path : str
        A JSON task file (``.json``, ``.json.gz``) or, with ``trust_pickle``, a pickle
        (``.pkl``, ``.pkl.gz``) of TenSet's format.
    trust_pickle : bool
        Allow reading a pickle, which runs whatever code it holds: only for files you trust.

    Raises
    ------
    UntrustedPickleError
        ``path`` is a pickle and ``trust_pickle`` is False.
    """
    opener = gzip.open if path.endswith(".gz") else open
    if path.endswith(".pkl") or path.endswith(".pkl.gz"):
        if not trust_pickle:
            raise UntrustedPickleError(
                f"{path} is a pickle, which runs code when loaded. If you trust where it came "
                "from, pass --trust-pickle (trust_pickle=True); "
                "tvm_gnn_cost.ansor.taskfile.convert_task_file rewrites it as JSON.")
        import pickle

        with opener(path, "rb") as f:
            data = pickle.load(f)  # SearchTask.__setstate__ registers the workload
        if isinstance(data, list):  # this project's first format: tasks alone
            data = (data, [1] * len(data))
        if not (isinstance(data, tuple) and len(data) == 2 and len(data[0]) == len(data[1])):
            raise ValueError(f"{path} is not a pickle of (tasks, weights)")
        return list(data[0]), [int(w) for w in data[1]]
    with opener(path, "rt") as f:
        doc = json.load(f)
    if not (isinstance(doc, dict) and doc.get("format") == FORMAT):
        raise ValueError(f"{path} is not a task file written by tvm_gnn_cost "
                         f"(no \"format\": \"{FORMAT}\")")
    if doc.get("version", 0) > VERSION:
        raise ValueError(f"{path} is a task file of version {doc['version']}; this "
                         f"tvm_gnn_cost reads up to version {VERSION}: upgrade it")
    pairs = [task_from_dict(d) for d in doc["tasks"]]
    return [t for t, _ in pairs], [w for _, w in pairs]


def convert_task_file(path: str, out: Optional[str] = None) -> str:
    """Rewrite the pickle task file ``path`` (trusted) as JSON beside it; returns the new path."""
    root = path[:-3] if path.endswith(".gz") else path
    if not root.endswith(".pkl"):
        raise ValueError(f"{path} is not a pickle task file (.pkl or .pkl.gz)")
    out = out or root[:-len(".pkl")] + ".json" + (".gz" if path.endswith(".gz") else "")
    tasks, weights = read_task_file(path, trust_pickle=True)
    save_tasks(tasks, out, weights)
    return out


def load_tasks(path: str, trust_pickle: bool = False) -> List[auto_scheduler.SearchTask]:
    """The tasks saved in ``path`` (see :func:`read_task_file`)."""
    return read_task_file(path, trust_pickle)[0]


def log_tasks(logs: Sequence[str], trust_pickle: bool = False
              ) -> Tuple[List[auto_scheduler.SearchTask], List[int]]:
    """The tasks kept beside ``logs`` and their weights (loading registers the workloads)."""
    tasks: List[auto_scheduler.SearchTask] = []
    weights: List[int] = []
    for log in logs:
        path = find_task_file(log)
        if path:
            t, w = read_task_file(path, trust_pickle)
            tasks += t
            weights += w
        else:
            logger.warning("%s has no task file (%s): its records of network workloads cannot "
                           "be read unless the tasks are extracted again", log, tasks_path(log))
    return tasks, weights


def register_logs(logs: Sequence[str], trust_pickle: bool = False) -> int:
    """Register the workloads of ``logs`` from their task files; returns how many tasks."""
    return len(log_tasks(logs, trust_pickle)[0])


__all__ = ["UntrustedPickleError", "convert_task_file", "find_task_file", "load_tasks",
           "log_tasks", "read_task_file", "register_logs", "save_tasks", "task_from_dict",
           "task_to_dict", "tasks_path"]
