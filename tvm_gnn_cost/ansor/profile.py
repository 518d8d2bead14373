"""Where a built network's time goes: each fused function timed alone by TVM's debug
executor, with its share, whether Ansor tuned it, and the tuned task's estimate beside it.

The estimated latency a search reports is the sum of its tasks' best measured programs; a
build also runs the functions that are no task (injective work Ansor leaves to TVM's default
schedules: reshapes, layer norms' elementwise parts), and a task's program can take longer in
the network than it did alone. The profile says which of the two makes the difference.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import tvm

from ..curves import INF
from ..workloads.networks import Workload
from .curves import task_costs


@dataclass
class FunctionTime:
    """One fused function of the build."""

    function: str  # fused_nn_dense_add_1, without the build's or the task's prefix
    calls: int
    ms: float  # all its calls, each timed alone (median of repeats)
    tuned: bool  # a task of the network, scheduled from the log
    estimate_ms: Optional[float] = None  # its task's best measured program x calls


@dataclass
class BuildProfile:
    """The functions of a build, slowest first, and their sums."""

    rows: List[FunctionTime] = field(default_factory=list)

    @property
    def total_ms(self) -> float:
        return sum(r.ms for r in self.rows)

    @property
    def tuned_ms(self) -> float:
        return sum(r.ms for r in self.rows if r.tuned)

    @property
    def estimate_ms(self) -> float:
        return sum(r.estimate_ms or 0.0 for r in self.rows)

    def describe(self, built_ms: Optional[float] = None, top: int = 12) -> str:
        """A table of the ``top`` slowest functions and the sums, for people."""
        lines = [f"{'function':52s} {'calls':>5s} {'ms':>8s} {'share':>6s} {'tuned':>5s} "
                 f"{'estimate':>8s}"]
        for r in self.rows[:top]:
            est = f"{r.estimate_ms:8.4f}" if r.estimate_ms else f"{'-':>8s}"
            lines.append(f"{r.function[:52]:52s} {r.calls:5d} {r.ms:8.4f} "
                         f"{r.ms / max(self.total_ms, 1e-12):6.1%} {'yes' if r.tuned else 'no':>5s} "
                         f"{est}")
        if len(self.rows) > top:
            rest = self.rows[top:]
            lines.append(f"{f'... {len(rest)} more':52s} {sum(r.calls for r in rest):5d} "
                         f"{sum(r.ms for r in rest):8.4f}")
        untuned = self.total_ms - self.tuned_ms
        text = (f"functions timed alone: {self.total_ms:.4f} ms; tuned tasks "
                f"{self.tuned_ms:.4f} ms (their estimate {self.estimate_ms:.4f} ms), functions "
                f"that are no task {untuned:.4f} ms")
        if built_ms:
            text += f"; the whole network runs in {built_ms:.4f} ms"
        return "\n".join(lines + [text])

    def to_dict(self) -> dict:
        return {"rows": [asdict(r) for r in self.rows], "total_ms": self.total_ms,
                "tuned_ms": self.tuned_ms, "estimate_ms": self.estimate_ms}


@contextlib.contextmanager
def _native_stderr_to(path: str):
    """Send what C++ writes to stderr to ``path`` for the block: TVM's debug executor logs a
    line per node and repeat (hundreds), which is not for the user's terminal."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(path, "w") as sink:
            os.dup2(sink.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _function(name: str) -> str:
    """``tvmgen_default_fused_nn_dense_add_1`` (the build's) and ``vm_mod_fused_nn_dense_add_1``
    (the task's) -> ``fused_nn_dense_add_1``."""
    return re.sub(r"^(tvmgen_default_|vm_mod_)", "", name)


def profile_build(lib, workload: Workload, log_file: str, target,
                  repeat: int = 20) -> BuildProfile:
    """Time each fused function of ``lib`` (``workload`` built with the best schedules of
    ``log_file``) alone with TVM's debug executor."""
    from tvm.contrib.debugger import debug_executor

    target = tvm.target.Target(target)
    dev = tvm.device(target.kind.name, 0)
    graph = json.loads(lib.get_graph_json())["nodes"]
    with tempfile.TemporaryDirectory() as dump:
        module = debug_executor.create(lib.get_graph_json(), lib.get_lib(), dev, dump_root=dump)
        module.set_input(**lib.get_params())
        module.set_input(**workload.feeds())
        with _native_stderr_to(os.path.join(dump, "timing.log")):
            times = module.run_individual(number=10, repeat=repeat, min_repeat_ms=10)
    ops = [n for n in graph if n["op"] == "tvm_op"]
    # a time for every node of the graph (inputs and parameters take none), or for each op
    names = [n["name"] for n in (graph if len(times) == len(graph) else ops)]
    if len(names) != len(times):
        raise RuntimeError(f"{len(times)} timings for {len(graph)} graph nodes")
    per_node = {name: float(np.median(t)) * 1e3 for name, t in zip(names, times)}
    keys = [t.workload_key for t in workload.tasks]
    best = {key: min(costs, default=INF) for key, costs in task_costs(log_file, keys).items()}
    tasks = {_function(t.desc): t for t in workload.tasks}
    sums = defaultdict(lambda: [0, 0.0])
    for n in ops:
        if n["attrs"]["func_name"] == "__nop":
            continue
        fn = _function(n["attrs"]["func_name"])
        sums[fn][0] += 1
        sums[fn][1] += per_node[n["name"]]
    rows = []
    for fn, (calls, ms) in sums.items():
        task = tasks.get(fn)
        cost = best[task.workload_key] if task is not None else INF
        rows.append(FunctionTime(fn, calls, ms, task is not None,
                                 cost * 1e3 * calls if cost < INF else None))
    return BuildProfile(sorted(rows, key=lambda r: -r.ms))


#: Bounds of the factor :func:`profile_weights` gives a task: a function timed a few
#: microseconds alone is noisy, and one misread function must not take every trial.
RATIO_BOUNDS = (0.5, 4.0)


def profile_weights(profile: dict, tasks, weights: Optional[Sequence[float]] = None
                    ) -> Tuple[List[float], Dict[str, float]]:
    """Task weights for the task scheduler from a build profile (``tune --profile``'s
    ``LOG.profile.json``): each task's weight (default 1) times what its function took in the
    build over its estimate (in :data:`RATIO_BOUNDS`), so trials go where the built network
    spends its time rather than where the measured programs alone say. A task the profile
    does not time keeps its weight. Returns the weights and the factor of each task timed,
    by function name."""
    rows = {r["function"]: r for r in profile.get("rows", [])}
    weights = list(weights) if weights is not None else [1.0] * len(tasks)
    out, factors = [], {}
    for task, w in zip(tasks, weights):
        row = rows.get(_function(task.desc or ""))
        if row and row.get("estimate_ms") and row.get("ms"):
            low, high = RATIO_BOUNDS
            factors[row["function"]] = min(high, max(low, row["ms"] / row["estimate_ms"]))
            w *= factors[row["function"]]
        out.append(float(w))
    return out, factors


__all__ = ["BuildProfile", "FunctionTime", "RATIO_BOUNDS", "profile_build", "profile_weights"]
