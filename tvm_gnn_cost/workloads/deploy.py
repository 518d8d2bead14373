"""Build what was tuned with its best schedules, and time it for real."""
from __future__ import annotations

import logging

import numpy as np
import tvm
from tvm import auto_scheduler, relay
from tvm.contrib import graph_executor

from .networks import Workload
from .targets import without_tophub

logger = logging.getLogger("tvm_gnn_cost")


def build_and_time(workload: Workload, log_file: str, target, number: int = 5,
                   repeat: int = 3) -> float:
    """Measured latency in seconds of ``workload`` built with the best schedules in ``log_file``.

    A network is compiled with ``relay.build`` under ``ApplyHistoryBest`` and run by the
    graph executor; single operators are built with ``task.apply_best``. Weights of the
    tasks' latencies are applied for single operators (one task, weight 1).
    """
    without_tophub()
    target = tvm.target.Target(target)
    dev = tvm.device(target.kind.name, 0)
    if workload.is_network:
        with auto_scheduler.ApplyHistoryBest(log_file):
            with tvm.transform.PassContext(opt_level=3,
                                           config={"relay.backend.use_auto_scheduler": True}):
                lib = relay.build(workload.mod, target=target, params=workload.params)
        module = graph_executor.GraphModule(lib["default"](dev))
        for name, (shape, dtype) in workload.inputs.items():
            module.set_input(name, np.random.uniform(size=shape).astype(dtype))
        timer = module.module.time_evaluator("run", dev, number=number, repeat=repeat)
        return float(np.median(timer().results))
    total = 0.0
    for task, weight in zip(workload.tasks, workload.weights):
        sch, tensors = task.apply_best(log_file)
        func = tvm.build(sch, tensors, target)
        args = [tvm.nd.array(np.random.uniform(size=[int(s) for s in t.shape]).astype(t.dtype), dev)
                for t in tensors]
        timer = func.time_evaluator(func.entry_name, dev, number=number, repeat=repeat)
        total += weight * float(np.median(timer(*args).results))
    return total
