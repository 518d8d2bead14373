"""Build what Ansor tuned with the best schedules of its log, check it, time it, export it.

A network is compiled with ``relay.build`` under the log's best schedules (tasks without a
valid record fall back to TVM's default schedules, and are named); its outputs on random
inputs are checked (:func:`~tvm_gnn_cost.workloads.harness.check_outputs`) against the
original model run by its framework (torch, ONNX Runtime) or, for ``relay.testing`` networks
and single operators, against an untuned TVM build. A tuned program that computes something
else is an error, not a result.
"""
from __future__ import annotations

import logging
from typing import Dict, Hashable, Iterable, List, Optional

import numpy as np
import tvm
from tvm import auto_scheduler, relay
from tvm.auto_scheduler.relay_integration import TracingEnvironment, TracingMode

from ..workloads.harness import (BuildReport, Built, Timer, check_outputs, export_library,
                                 graph_timer, reference_timer, run_network, time_side_by_side)
from ..workloads.inputs import random_inputs
from ..workloads.layout import use_rewritable_dense
from ..workloads.networks import Workload
from ..workloads.targets import without_tophub
from .logs import valid_workloads
from .profile import profile_build

logger = logging.getLogger("tvm_gnn_cost")


class ApplyBest(auto_scheduler.ApplyHistoryBest):
    """``ApplyHistoryBest`` that leaves the weights of ``no_rewrite`` workloads in their
    layout (:mod:`tvm_gnn_cost.workloads.layout`): the build asks for a schedule twice, once
    to plan layout rewrites and once to compile; for those workloads the first is answered
    with none."""

    def __init__(self, records, no_rewrite: Iterable[str] = ()):
        super().__init__(records)
        self.no_rewrite = frozenset(no_rewrite)

    def query(self, target, workload_key, has_complex_op, dag, func_name):
        env = TracingEnvironment.current
        if (workload_key in self.no_rewrite and env is not None
                and env.tracing_mode == TracingMode.PREPARE_LAYOUT_REWRITE):
            return None
        return super().query(target, workload_key, has_complex_op, dag, func_name)


def fallback_tasks(workload: Workload, log_file: str) -> List[str]:
    """Tasks of ``workload`` with no valid record in ``log_file``: the build uses TVM's
    default schedules for them."""
    ok = valid_workloads([log_file])
    return [t.desc or t.workload_key for t in workload.tasks if t.workload_key not in ok]


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
    use_rewritable_dense()  # the dense the tasks were extracted with
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


def build_checked(workload: Workload, log_file: str, target) -> Built:
    """Build ``workload`` with the best schedules in ``log_file`` and check its outputs.

    Raises
    ------
    WrongResultError
        If the outputs differ from the reference's
        (:func:`~tvm_gnn_cost.workloads.harness.check_outputs`).
    """
    target = tvm.target.Target(target)
    dev = tvm.device(target.kind.name, 0)
    if not workload.is_network:
        return _build_operators(workload, log_file, target, dev)
    lib = build_network(workload, target, log_file)
    feeds = workload.feeds()
    outputs = run_network(lib, dev, feeds)
    if workload.reference is not None:
        expected, what = workload.reference(feeds), workload.framework
    else:
        expected, what = run_network(build_network(workload, target), dev, feeds), \
            "the untuned TVM build"
    error = check_outputs(outputs, expected, what)
    report = BuildReport(0.0, error, what, fallback_tasks(workload, log_file))
    return Built(report, graph_timer(lib, dev, feeds), lib)


def build_and_time(workload: Workload, log_file: str, target, number: int = 10,
                   repeat: int = 10, export: Optional[str] = None,
                   min_repeat_ms: int = 100, profile: bool = False) -> BuildReport:
    """Build ``workload`` with the best schedules in ``log_file``, check its outputs, time it
    and, if asked, export the library and profile it (:mod:`.profile`: each fused function
    timed alone).

    The build and the original model in its framework (if it has one) are timed in turns
    (:func:`~tvm_gnn_cost.workloads.harness.time_side_by_side`, ``repeat`` rounds): each gets
    the median of ``repeat`` means of at least ``number`` runs, each repeat at least
    ``min_repeat_ms``, so that a millisecond network is timed over a second and both share
    the host's drift.

    Raises
    ------
    WrongResultError
        If the outputs differ from the reference's.
    """
    built = build_checked(workload, log_file, target)
    report = built.report
    timers: Dict[Hashable, Timer] = {"build": built.timer}
    if workload.reference is not None:
        timers["reference"] = reference_timer(workload.reference, workload.feeds())
    seconds = time_side_by_side(timers, rounds=repeat, number=number, repeat=1,
                                min_repeat_ms=min_repeat_ms)
    report.latency = seconds["build"]
    report.reference_latency = seconds.get("reference")
    if export and built.lib is not None:
        export_library(built.lib, export, workload.inputs)
        report.exported = export
    if profile and built.lib is not None:
        report.profile = profile_build(built.lib, workload, log_file, target)
    return report


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
        worst = max(worst, check_outputs([outs[-1].numpy()], [ref[-1].numpy()],
                                         "the unscheduled compute"))
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
    return Built(report, timer)


__all__ = ["ApplyBest", "BuildReport", "Built", "DEBUG_RECORD_BUG", "build_and_time",
           "build_checked", "build_network", "fallback_tasks"]
