"""What every build goes through, whichever search tuned it: its outputs checked against a
reference, its time taken in turns with others, its library exported.

A build's outputs on random inputs (:mod:`.inputs`) are compared with the reference's (the
original model in its framework, or an untuned build); a difference over :data:`TOLERANCE` of
the reference's largest value, or a NaN or inf where the reference has a number, is a
:class:`WrongResultError`, not a result. Builds to be compared are timed in turns
(:func:`time_side_by_side`), not one after another.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Hashable, List, Optional

import numpy as np

#: Largest difference from the reference allowed, relative to the reference's largest value.
TOLERANCE = 1e-3


@dataclass
class BuildReport:
    """What building a tuned result gave, whichever search tuned it."""

    latency: float  # median seconds of repeated runs
    error: float  # largest |tuned - reference| / largest |reference| over the outputs
    reference: str  # what the outputs were checked against
    fallback: List[str] = field(default_factory=list)  # tasks built without a tuned schedule
    reference_latency: Optional[float] = None  # the framework's own time (seconds), if any
    exported: Optional[str] = None  # the compiled library's path
    profile: Optional[Any] = None  # where its time goes, if asked (ansor.profile.BuildProfile)


@dataclass
class Built:
    """A tuned build whose outputs were checked against the reference, ready to time."""

    report: BuildReport  # latency 0 until timed
    timer: "Timer"
    lib: Optional[Any] = None  # the compiled network (None for single operators)


class WrongResultError(ValueError):
    """A build's outputs differ from the reference's beyond :data:`TOLERANCE`."""


def relative_error(outputs: List[np.ndarray], expected: List[np.ndarray]) -> float:
    """Largest |output - expected| over all outputs, relative to the largest finite
    |expected|; ``inf`` where an output is NaN or inf and the reference is not the same.

    Raises
    ------
    WrongResultError
        If the outputs are not as many, or not as large, as the reference's.
    """
    if len(outputs) != len(expected):
        raise WrongResultError(f"the build has {len(outputs)} outputs, the reference "
                               f"{len(expected)}")
    worst = 0.0
    for i, (out, ref) in enumerate(zip(outputs, expected)):
        out, ref = np.asarray(out, float), np.asarray(ref, float)
        if out.size != ref.size:
            raise WrongResultError(f"output {i} of the build has shape {out.shape}, the "
                                   f"reference's {ref.shape}")
        ref = ref.reshape(out.shape)
        if nonfinite_mismatches(out, ref):
            return float("inf")
        finite = np.isfinite(ref)
        diff = np.abs(out[finite] - ref[finite]).max(initial=0.0)
        worst = max(worst, float(diff) / max(float(np.abs(ref[finite]).max(initial=0.0)), 1e-12))
    return worst


def nonfinite_mismatches(out: np.ndarray, ref: np.ndarray) -> int:
    """Elements where ``out`` or ``ref`` is NaN or inf and the other is not the same."""
    same = (np.isnan(out) & np.isnan(ref)) | (np.isinf(out) & (out == ref))
    return int(np.count_nonzero(~(np.isfinite(out) & np.isfinite(ref)) & ~same))


def check_outputs(outputs: List[np.ndarray], expected: List[np.ndarray], what: str) -> float:
    """:func:`relative_error` of ``outputs`` against ``expected`` (computed by ``what``);
    raises :class:`WrongResultError`, saying how they differ, beyond :data:`TOLERANCE`."""
    error = relative_error(outputs, expected)
    if error <= TOLERANCE:
        return error
    bad = sum(nonfinite_mismatches(np.asarray(o, float), np.asarray(r, float).reshape(
        np.shape(o))) for o, r in zip(outputs, expected))
    how = (f"have {bad} NaN or inf value(s) where {what} has numbers" if bad else
           f"differ from {what} by {error:.2e} of their largest value (tolerance "
           f"{TOLERANCE:.0e})")
    raise WrongResultError(f"the tuned build's outputs {how}: a schedule in the log computes "
                           "something else; report it, and rebuild without that task's records")


#: (number, repeat, min_repeat_ms) -> seconds of each repeat: what timing a build runs.
Timer = Callable[[int, int, int], List[float]]


def time_side_by_side(timers: Dict[Hashable, Timer], rounds: int = 10, number: int = 10,
                      repeat: int = 3, min_repeat_ms: int = 100) -> Dict[Hashable, float]:
    """Median seconds of each build, timed in turns: ``rounds`` rounds, each timing every
    build for ``repeat`` repeats, starting one build later each round.

    A shared host drifts by tens of percent within minutes; builds timed one after another
    each get their own stretch of it, builds timed in turns share it, so their ratios hold.
    """
    keys = list(timers)
    if not keys:
        return {}
    seconds: Dict[Hashable, List[float]] = {k: [] for k in keys}
    for r in range(rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            seconds[k] += timers[k](number, repeat, min_repeat_ms)
    return {k: float(np.median(v)) for k, v in seconds.items()}


def reference_timer(reference, feeds: Dict[str, np.ndarray]) -> Timer:
    """A :data:`Timer` of the reference (the framework's own inference) on ``feeds``, to be
    timed in turns with builds: each repeat runs it ``number`` times and for at least
    ``min_repeat_ms``, and gives the mean of its runs."""
    reference(feeds)  # warm up

    def timer(number: int, repeat: int, min_repeat_ms: int) -> List[float]:
        seconds = []
        for _ in range(repeat):
            runs, start = 0, time.perf_counter()
            while runs < number or time.perf_counter() - start < min_repeat_ms / 1e3:
                reference(feeds)
                runs += 1
            seconds.append((time.perf_counter() - start) / runs)
        return seconds

    return timer


def time_reference(reference, feeds: Dict[str, np.ndarray], runs: int) -> float:
    """Median seconds of the reference (the framework's own inference) on ``feeds``."""
    return float(np.median(reference_timer(reference, feeds)(1, runs, 0)))


def run_network(lib, dev, feeds: Dict[str, np.ndarray]) -> List[np.ndarray]:
    """Outputs of a network built for TVM's graph executor on ``feeds``."""
    from tvm.contrib import graph_executor

    module = graph_executor.GraphModule(lib["default"](dev))
    module.set_input(**feeds)
    module.run()
    return [module.get_output(i).numpy() for i in range(module.get_num_outputs())]


def graph_timer(lib, dev, feeds: Dict[str, np.ndarray]) -> Timer:
    """A :data:`Timer` of a network built for TVM's graph executor, on ``feeds``."""
    from tvm.contrib import graph_executor

    module = graph_executor.GraphModule(lib["default"](dev))
    module.set_input(**feeds)
    run = module.module.time_evaluator

    def timer(number: int, repeat: int, min_repeat_ms: int) -> List[float]:
        return list(run("run", dev, number=number, repeat=repeat,
                        min_repeat_ms=min_repeat_ms)().results)

    return timer


def export_library(lib, path: str, inputs: Dict, entry: str = "default",
                   executor: str = "graph") -> None:
    """Write the compiled library (load it with ``tvm.runtime.load_module``) and, beside it,
    ``PATH.json`` with its inputs' names, shapes and dtypes, and how to run it: ``entry``
    (the graph executor's ``default``, the Relax VM's ``main``), ``executor``, and
    ``threads``: the threads TVM's runtime timed it with here, which a process that runs it
    should set too as ``TVM_NUM_THREADS`` (TVM's default on x86 is half the logical CPUs)."""
    import tvm

    lib.export_library(path)
    with open(path + ".json", "w") as f:
        json.dump({"inputs": {n: {"shape": list(s), "dtype": d} for n, (s, d) in inputs.items()},
                   "entry": entry, "executor": executor,
                   "threads": tvm.get_global_func("runtime.NumThreads")()}, f, indent=1)


__all__ = ["BuildReport", "Built", "TOLERANCE", "Timer", "WrongResultError", "check_outputs",
           "export_library", "graph_timer", "nonfinite_mismatches", "reference_timer",
           "relative_error", "run_network", "time_reference", "time_side_by_side"]
