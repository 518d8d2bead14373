"""Foreign Ansor logs into the project's dataset: each record's task rebuilt here, its steps
replayed on it (``tvm-gnn-cost import``).

A log written elsewhere (another project, another TVM, another CPU) names each task by its
workload key: a hash of the compute DAG as that TVM printed it, and the shapes of the DAG's
arguments. The task is rebuilt from candidates of this TVM, first by the key itself, then,
where this TVM hashes the same computation otherwise, by the shapes (the report says which):

- the tasks of a network the caller names (``--network``, as ``tune`` takes it);
- the tasks of the project's registered networks, from the task files shipped in ``data/``;
- a single operator recognized from the shapes (matmul, dense, batch_matmul:
  :func:`tvm_gnn_cost.workloads.operators.from_shapes`).

A record counts as imported when its transform steps replay on the rebuilt task (bounds
inferred). The rebuilt task keeps the record's target, hardware parameters and
layout-rewrite option: labels are normalized within a task, so a task measured on another
CPU is a task of its own. Records are written as the project's datasets are: a gzip Ansor log
and its task file beside it, with a report of what was read, rebuilt, replayed and skipped.
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from tvm import auto_scheduler
from tvm.auto_scheduler.workload_registry import register_workload_tensors

from ..core.files import replaced_whole
from .logs import LogReport, iter_log
from .records import infer_bound
from .taskfile import save_tasks, tasks_path

logger = logging.getLogger("tvm_gnn_cost")

NO_TASK = "no task here computes its workload"
NO_REPLAY = "its steps do not replay on the rebuilt task"


@dataclass
class ImportReport:
    """What importing one log did: records read, rebuilt, replayed (written), skipped and
    why, and how each foreign workload was matched."""

    log: str
    out: str
    read: int = 0
    rebuilt: int = 0  # records whose task was found here
    replayed: int = 0  # of those, records whose steps replay: written to ``out``
    valid: int = 0  # of those, records that measured without error
    skipped: Dict[str, int] = field(default_factory=dict)  # reason -> records
    matched: Dict[str, str] = field(default_factory=dict)  # foreign key -> how, "" if not

    def describe(self) -> str:
        """One line for people."""
        text = (f"{self.log}: {self.read} records read, {self.rebuilt} with their task "
                f"rebuilt, {self.replayed} replayed and written ({self.valid} valid) to "
                f"{self.out}")
        by_shape = sum(1 for how in self.matched.values() if how.startswith("shapes"))
        if by_shape:
            text += (f"; {by_shape} of {len(self.matched)} workloads matched by operator and "
                     "shapes (this TVM hashes them otherwise)")
        if self.skipped:
            text += "; skipped " + ", ".join(f"{n} ({why})" for why, n in self.skipped.items())
        return text


def _shapes(workload_key: str) -> Optional[str]:
    """The argument shapes of a hashed workload key (``["<hash>", [..], ..]``), as a key."""
    try:
        parsed = json.loads(workload_key)
    except ValueError:
        return None
    if not (isinstance(parsed, list) and parsed and isinstance(parsed[0], str)):
        return None
    return json.dumps(parsed[1:])


class TaskMatcher:
    """Finds the task here that computes a foreign workload: by its key, else among the
    candidates with the same argument shapes whose DAG the record's steps replay on, else a
    single operator recognized from the shapes."""

    def __init__(self, candidates: Iterable[auto_scheduler.SearchTask] = (),
                 operators: bool = True):
        self.by_key: Dict[str, auto_scheduler.SearchTask] = {}
        self.by_shapes: Dict[str, List[auto_scheduler.SearchTask]] = {}
        self.operators = operators
        self._chosen: Dict[str, Tuple[Optional[auto_scheduler.SearchTask], str]] = {}
        self.add(candidates)

    def add(self, candidates: Iterable[auto_scheduler.SearchTask]) -> None:
        """More candidate tasks (a network's, a task file's)."""
        for t in candidates:
            self.by_key.setdefault(t.workload_key, t)
            shapes = _shapes(t.workload_key)
            if shapes is not None and t not in self.by_shapes.get(shapes, []):
                self.by_shapes.setdefault(shapes, []).append(t)

    def match(self, inp) -> Tuple[Optional[auto_scheduler.SearchTask], str]:
        """``(task, how)`` for a record's input: ``how`` is ``"key"``, ``"shapes: DESC"``,
        ``"operator: NAME"``, or ``""`` with no task. Decided once per foreign workload, on
        its first record whose steps replay."""
        key = inp.task.workload_key
        if key in self._chosen:
            return self._chosen[key]
        if key in self.by_key:
            found = (self.by_key[key], "key")
        else:
            found = self._by_shapes(inp, key)
        if found[0] is not None:
            self._chosen[key] = found
        return found

    def _by_shapes(self, inp, key: str):
        shapes = _shapes(key)
        for task in self.by_shapes.get(shapes, []) if shapes else []:
            if _replays(rebuild(task, inp.task), inp.state):
                return task, f"shapes: {task.desc or task.workload_key}"
        if self.operators and shapes:
            from ..workloads.operators import from_shapes

            tensors = from_shapes(json.loads(shapes))
            if tensors is not None:
                dag = auto_scheduler.ComputeDAG(tensors)
                own = register_workload_tensors(dag.workload_key(), tensors)
                task = auto_scheduler.SearchTask(compute_dag=dag, workload_key=own,
                                                 target=inp.task.target, desc="operator")
                if _replays(rebuild(task, inp.task), inp.state):
                    return task, "shapes: a single operator recognized from them"
        return None, ""


def rebuild(task: auto_scheduler.SearchTask, foreign) -> auto_scheduler.SearchTask:
    """``task``'s computation with the foreign task's target, host, hardware parameters and
    layout-rewrite option."""
    return auto_scheduler.SearchTask(
        compute_dag=task.compute_dag, workload_key=task.workload_key, target=foreign.target,
        target_host=foreign.target_host, hardware_params=foreign.hardware_params,
        layout_rewrite_option=foreign.layout_rewrite_option,
        task_inputs=list(task.task_input_names), desc=task.desc)


def _replays(task: auto_scheduler.SearchTask, state) -> bool:
    try:
        infer_bound(task, state)
        return True
    except Exception:  # noqa: BLE001 - TVMError and friends: the steps do not fit
        return False


def import_log(log: str, out: str, matcher: TaskMatcher) -> ImportReport:
    """Import one foreign log into ``out`` (a gzip Ansor log; its task file beside it),
    written atomically: a log imported before is not lost to a crash, and one half written
    is never left. Returns the report; ``out + '.import.json'`` keeps it for scripts.
    """
    report = ImportReport(log, out)
    log_report = LogReport(log)
    rebuilt: Dict[str, auto_scheduler.SearchTask] = {}  # foreign task key -> task here
    skipped: Counter = Counter()
    inputs, results = [], []
    for inp, res in iter_log(log, report=log_report):
        report.read += 1
        task, how = matcher.match(inp)
        report.matched[inp.task.workload_key] = how
        if task is None:
            skipped[NO_TASK] += 1
            continue
        report.rebuilt += 1
        foreign = _task_id(inp.task)
        if foreign not in rebuilt:
            rebuilt[foreign] = rebuild(task, inp.task)
        here = rebuilt[foreign]
        if not _replays(here, inp.state):
            skipped[NO_REPLAY] += 1
            continue
        inputs.append(auto_scheduler.MeasureInput(here, inp.state))
        results.append(res)
        report.replayed += 1
        report.valid += int(res.error_no) == 0
    skipped.update(log_report.skipped)
    report.skipped = dict(skipped)
    _write(out, inputs, results, list(rebuilt.values()))
    with open(out + ".import.json", "w") as f:
        json.dump(asdict(report), f, indent=1)
    logger.info("%s", report.describe())
    return report


def _task_id(task) -> str:
    return f"{task.workload_key}|{task.target}|{task.layout_rewrite_option}"


def _write(out: str, inputs: Sequence, results: Sequence, tasks: Sequence) -> None:
    """The records as a gzip Ansor log at ``out`` and the tasks beside it, each file written
    to a temporary name and renamed."""
    folder = os.path.dirname(os.path.abspath(out))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".import-", suffix=".json", dir=folder)
    os.close(fd)
    try:
        if inputs:  # TVM writes records to a path only
            auto_scheduler.save_records(tmp, list(inputs), list(results))
        save_tasks(tasks, tasks_path(out) + ".gz")
        with open(tmp, "rb") as src, replaced_whole(out) as dst:
            dst.write(gzip.compress(src.read(), compresslevel=9, mtime=0))
    finally:
        os.unlink(tmp)


def shipped_tasks(root: str) -> List[auto_scheduler.SearchTask]:
    """The tasks of every task file under ``root`` (the project's registered networks, as
    shipped in ``data/``), registered."""
    import glob

    from .taskfile import load_tasks

    paths = sorted(glob.glob(os.path.join(root, "**", "*.tasks.json*"), recursive=True))
    return [t for path in paths for t in load_tasks(path)]


__all__ = ["ImportReport", "NO_REPLAY", "NO_TASK", "TaskMatcher", "import_log", "rebuild",
           "shipped_tasks"]
