"""Measured programs shared by the benchmarks, collected once and cached as an Ansor log."""
from __future__ import annotations

import logging
import os
import time
from typing import List, Tuple

import numpy as np
from tvm import auto_scheduler

from tvm_gnn_cost.ansor.records import measured_cost
from tvm_gnn_cost.ansor.sampling import measure_states, sample_states
from tvm_gnn_cost.workloads.operators import demo_tasks

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
logger = logging.getLogger("bench")


def measured_records(per_task: int = 512, log: str = os.path.join(DATA, "demo_tasks.json"),
                     chunk: int = 64) -> Tuple[list, list, List[auto_scheduler.SearchTask]]:
    """``per_task`` random programs of each demo task, measured on this machine.

    Measures only what the cached log lacks, in chunks, so an interrupted run
    loses at most one chunk.
    """
    os.makedirs(DATA, exist_ok=True)
    tasks = demo_tasks()
    have = {}
    if os.path.exists(log):
        for inp, _ in auto_scheduler.RecordReader(log):
            have[inp.task.workload_key] = have.get(inp.task.workload_key, 0) + 1
    for i, task in enumerate(tasks):
        missing = per_task - have.get(task.workload_key, 0)
        if missing <= 0:
            continue
        states = sample_states(task, per_task, seed=100 + i,
                               params={"sample_init_min_population": 256})[-missing:]
        start = time.time()
        for s in range(0, len(states), chunk):
            measure_states(task, states[s:s + chunk], log)
            logger.info("task %d: measured %d/%d (%.0f s)", i, s + chunk, len(states),
                        time.time() - start)
    inputs, results = auto_scheduler.RecordReader(log).read_lines()
    return list(inputs), list(results), tasks


def split_by_task(inputs, results, seed: int = 0):
    """3/4 of each task's programs to train on, 1/4 to test, at random."""
    rng = np.random.default_rng(seed)
    keys = np.array([inp.task.workload_key for inp in inputs])
    train, test = [], []
    for k in np.unique(keys):
        idx = rng.permutation(np.flatnonzero(keys == k))
        cut = len(idx) * 3 // 4
        train += idx[:cut].tolist()
        test += idx[cut:].tolist()
    return sorted(train), sorted(test)


def costs_of(results) -> np.ndarray:
    return np.array([measured_cost(r) for r in results])
