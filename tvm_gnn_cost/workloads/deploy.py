"""Build what was tuned with its best schedules, check that it computes what the original does,
time it, and export it.

A network is compiled with ``relay.build`` under the log's best schedules (tasks without a
valid record fall back to TVM's default schedules, and are named); its outputs on random
inputs are compared with the original model run by its framework (torch, ONNX Runtime) or,
for ``relay.testing`` networks and single operators, with an untuned TVM build. A tuned
program that computes something else is an error, not a result. Builds to be compared are
timed in turns (:func:`time_side_by_side`), not one after another.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Callable, Dict, Hashable, List, Optional

import numpy as np
import tvm
from tvm import relay
from tvm.contrib import graph_executor

from .layout import ApplyBest
from .networks import Workload
from .targets import without_tophub

logger = logging.getLogger("tvm_gnn_cost")

#: Largest difference from the reference allowed, relative to the reference's largest value.
TOLERANCE = 1e-3


class WrongResultError(ValueError):
    """The tuned build's outputs differ from the reference's beyond :data:`TOLERANCE`."""


@dataclass
class BuildReport:
    """What building the tuned result gave."""

    latency: float  # median seconds of repeated runs
    error: float  # largest |tuned - reference| / largest |reference| over the outputs
    reference: str  # what the outputs were checked against
    fallback: List[str] = field(default_factory=list)  # tasks built with default schedules
    reference_latency: Optional[float] = None  # the framework's own time (seconds), if any
    exported: Optional[str] = None  # the compiled library's path


def fallback_tasks(workload: Workload, log_file: str) -> List[str]:
    """Tasks of ``workload`` with no valid record in ``log_file``: the build uses TVM's
    default schedules for them."""
    from ..curves import valid_workloads

    ok = valid_workloads([log_file])
    return [t.desc or t.workload_key for t in workload.tasks if t.workload_key not in ok]


def random_inputs(inputs: Dict, seed: int = 0) -> Dict[str, np.ndarray]:
    """Inputs of the given (shape, dtype): uniform in [0, 1) (integers: 0 or 1)."""
    rng = np.random.default_rng(seed)
    return {n: (rng.uniform(size=shape) if "float" in dtype
                else rng.integers(0, 2, size=shape)).astype(dtype)
            for n, (shape, dtype) in inputs.items()}


#: What the LLVM verifier says of the debug records TVM 0.19 writes for a float variable that
#: TIR's common-subexpression elimination binds (apache/tvm#18585; the wheel's LLVM is 22): a
#: bilinear resize, for one, then fails to build, tuned or not.
DEBUG_RECORD_BUG = "#dbg_declare must be a pointer or int"


def build_network(workload: Workload, target, log_file: Optional[str] = None):
    """``relay.build`` of the workload's network, with the best schedules of ``log_file``
    (None: untuned, TVM's default schedules).

    A network that TVM's LLVM code generation rejects for :data:`DEBUG_RECORD_BUG` is built
    again without TIR's common-subexpression elimination (LLVM's own still runs), with a
    warning.
    """
    without_tophub()
    try:
        return _relay_build(workload, target, log_file, {})
    except tvm.TVMError as err:
        if DEBUG_RECORD_BUG not in str(err):
            raise
    logger.warning("%s: TVM's LLVM code generation failed on a float variable's debug record "
                   "(apache/tvm#18585); built without TIR's common-subexpression elimination "
                   "(tir.disable_cse_tir)", workload.name)
    return _relay_build(workload, target, log_file, {"tir.disable_cse_tir": True})


def _relay_build(workload: Workload, target, log_file: Optional[str], config: Dict):
    if log_file is None:
        with tvm.transform.PassContext(opt_level=3, config=config):
            return relay.build(workload.mod, target=target, params=workload.params)
    with ApplyBest(log_file, workload.no_rewrite):
        with tvm.transform.PassContext(
                opt_level=3, config={"relay.backend.use_auto_scheduler": True, **config}):
            return relay.build(workload.mod, target=target, params=workload.params)


def run_network(lib, dev, feeds: Dict[str, np.ndarray]) -> List[np.ndarray]:
    """Outputs of a built network on ``feeds``."""
    module = graph_executor.GraphModule(lib["default"](dev))
    module.set_input(**feeds)
    module.run()
    return [module.get_output(i).numpy() for i in range(module.get_num_outputs())]


def relative_error(outputs: List[np.ndarray], expected: List[np.ndarray]) -> float:
    """Largest |output - expected| over all outputs, relative to the largest |expected|."""
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
        worst = max(worst, float(np.abs(out - ref).max(initial=0.0))
                    / max(float(np.abs(ref).max(initial=0.0)), 1e-12))
    return worst


#: (number, repeat, min_repeat_ms) -> seconds of each repeat: what timing a build runs.
Timer = Callable[[int, int, int], List[float]]


@dataclass
class Built:
    """A tuned build whose outputs were checked against the reference, ready to time."""

    report: BuildReport  # latency 0 until timed
    timer: Timer
    lib: Optional[object] = None  # the compiled network (None for single operators)


def build_checked(workload: Workload, log_file: str, target) -> Built:
    """Build ``workload`` with the best schedules in ``log_file`` and check its outputs.

    Raises
    ------
    WrongResultError
        If the outputs differ from the reference by more than :data:`TOLERANCE`.
    """
    target = tvm.target.Target(target)
    dev = tvm.device(target.kind.name, 0)
    if not workload.is_network:
        return _build_operators(workload, log_file, target, dev)
    lib = build_network(workload, target, log_file)
    feeds = random_inputs(workload.inputs)
    outputs = run_network(lib, dev, feeds)
    if workload.reference is not None:
        expected, what = workload.reference(feeds), workload.framework
    else:
        expected, what = run_network(build_network(workload, target), dev, feeds), \
            "the untuned TVM build"
    report = BuildReport(0.0, relative_error(outputs, expected), what,
                         fallback_tasks(workload, log_file))
    _check(report)
    module = graph_executor.GraphModule(lib["default"](dev))
    module.set_input(**feeds)
    run = module.module.time_evaluator

    def timer(number: int, repeat: int, min_repeat_ms: int) -> List[float]:
        return list(run("run", dev, number=number, repeat=repeat,
                        min_repeat_ms=min_repeat_ms)().results)

    return Built(report, timer, lib)


def build_and_time(workload: Workload, log_file: str, target, number: int = 10,
                   repeat: int = 10, export: Optional[str] = None,
                   min_repeat_ms: int = 100) -> BuildReport:
    """Build ``workload`` with the best schedules in ``log_file``, check its outputs, time it
    and, if asked, export the library.

    The build and the original model in its framework (if it has one) are timed in turns
    (:func:`time_side_by_side`, ``repeat`` rounds): each gets the median of ``repeat`` means of
    at least ``number`` runs, each repeat at least ``min_repeat_ms``, so that a millisecond
    network is timed over a second and both share the host's drift.

    Raises
    ------
    WrongResultError
        If the outputs differ from the reference by more than :data:`TOLERANCE`.
    """
    built = build_checked(workload, log_file, target)
    report = built.report
    timers: Dict[Hashable, Timer] = {"build": built.timer}
    if workload.reference is not None:
        timers["reference"] = reference_timer(workload.reference, random_inputs(workload.inputs))
    seconds = time_side_by_side(timers, rounds=repeat, number=number, repeat=1,
                                min_repeat_ms=min_repeat_ms)
    report.latency = seconds["build"]
    report.reference_latency = seconds.get("reference")
    if export and built.lib is not None:
        export_library(built.lib, export, workload.inputs)
        report.exported = export
    return report


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


def _check(report: BuildReport) -> None:
    if not report.error <= TOLERANCE:
        raise WrongResultError(
            f"the tuned build's outputs differ from {report.reference} by {report.error:.2e} "
            f"of their largest value (tolerance {TOLERANCE:.0e}): a schedule in the log "
            "computes something else; report it, and rebuild without that task's records")


def reference_timer(reference, feeds: Dict[str, np.ndarray]) -> Timer:
    """A :data:`Timer` of the reference (the framework's own inference) on ``feeds``, to be
    timed in turns with builds: each repeat runs it ``number`` times and for at least
    ``min_repeat_ms``, and gives the mean of its runs."""
    import time

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


def export_library(lib, path: str, inputs: Dict) -> None:
    """Write the compiled library (load it with ``tvm.runtime.load_module``) and, beside it,
    ``PATH.json`` with its inputs' names, shapes and dtypes."""
    lib.export_library(path)
    with open(path + ".json", "w") as f:
        json.dump({"inputs": {n: {"shape": list(s), "dtype": d} for n, (s, d) in inputs.items()},
                   "entry": "default", "executor": "graph"}, f, indent=1)


def _build_operators(workload: Workload, log_file: str, target, dev) -> Built:
    """Single operators: each task built with ``task.apply_best`` and checked against its
    unscheduled compute; the latency is the weighted sum of the tasks' times."""
    worst, timers = 0.0, []
    for task, weight in zip(workload.tasks, workload.weights):
        sch, tensors = task.apply_best(log_file)
        func = tvm.build(sch, tensors, target)
        args = random_inputs({i: ([int(s) for s in t.shape], t.dtype)
                              for i, t in enumerate(tensors)})
        plain, plain_tensors = task.compute_dag.apply_steps_from_state(
            task.compute_dag.get_init_state())
        outs = [tvm.nd.array(a, dev) for a in args.values()]
        ref = [tvm.nd.array(a, dev) for a in args.values()]
        func(*outs)
        tvm.build(plain, plain_tensors, target)(*ref)
        worst = max(worst, relative_error([outs[-1].numpy()], [ref[-1].numpy()]))
        timers.append((weight, func, outs))

    def timer(number: int, repeat: int, min_repeat_ms: int) -> List[float]:
        total = np.zeros(repeat)
        for weight, func, outs in timers:
            total += weight * np.asarray(func.time_evaluator(
                func.entry_name, dev, number=number, repeat=repeat,
                min_repeat_ms=min_repeat_ms)(*outs).results)
        return list(total)

    report = BuildReport(0.0, worst, "the unscheduled compute",
                         fallback_tasks(workload, log_file))
    _check(report)
    return Built(report, timer)


__all__ = ["BuildReport", "Built", "DEBUG_RECORD_BUG", "TOLERANCE", "Timer", "WrongResultError",
           "build_and_time", "build_checked", "build_network", "export_library",
           "fallback_tasks", "random_inputs", "reference_timer", "relative_error",
           "run_network", "time_reference", "time_side_by_side"]
