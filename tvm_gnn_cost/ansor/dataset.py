"""Datasets of measured programs: Ansor logs plus the tasks that make them readable later.

:func:`collect` samples random programs of each task from Ansor's sketch space
(TenSet's method), measures them and appends them to the log, resuming where an
interrupted run stopped; the tasks are kept beside the log in a task file
(:mod:`.taskfile`), so that the log can be read on another day.
"""
from __future__ import annotations

import json
import logging
import os
from typing import Dict, Optional, Sequence

from tvm import auto_scheduler

from .featurizer import task_key
from .interrupt import StopOnInterrupt, stop_on_interrupt
from .logs import read_log
from .sampling import measure_states, sample_states
from .taskfile import save_tasks, tasks_path
from .workers import persistent_workers

logger = logging.getLogger("tvm_gnn_cost")


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

    Raises
    ------
    TuningInterrupted
        On Ctrl-C (in the main thread), after the chunk under way; what it measured after
        Ctrl-C is left out of the log.
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
        stop = StopOnInterrupt(log)  # Ctrl-C: stop after the chunk under way
        with persistent_workers(), stop_on_interrupt(stop):  # one pool for all chunks
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
                    stop.check()
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


__all__ = ["collect"]
