"""Build what MetaSchedule tuned for a Relax model with the best programs of its database,
check it, time it, export it (apache-tvm).

The prepared module (:func:`.relax_models.prepare`) gets each tuned function's best program
(``MetaScheduleApplyDatabase``); functions without a valid record keep their unscheduled
TIR, and are named. With weight prepacking, the weight layout changes the programs chose are
split out and folded into the constant weights (``SplitLayoutRewritePreproc``,
``FoldConstant``). Then Relax's CPU lowering and ``relax.build``. The library runs on the
Relax VM: ``relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())["main"](...)``.
Its outputs are checked against the original model with the same check, and the same error,
as an Ansor build (:mod:`tvm_gnn_cost.workloads.harness`).
"""
from __future__ import annotations

import logging
from typing import Dict, Hashable, List, Optional

import numpy as np

from ..workloads.harness import (BuildReport, Built, Timer, check_outputs, export_library,
                                 reference_timer, time_side_by_side)
from .relax_models import RelaxModel
from .tuning import fallback_tasks, open_database

logger = logging.getLogger("tvm_gnn_cost")


def compile_tuned(model: RelaxModel, database, target):
    """``relax.build`` of ``model`` with the best programs of ``database``: a
    ``relax.VMExecutable`` (``export_library`` writes it)."""
    import tvm
    from tvm import relax
    from tvm.relax import transform as T
    # relax.pipeline's CPU lowering; apache-tvm 0.27's cpu_generic package does not export it
    from tvm.relax.backend.cpu_generic.pipeline import dataflow_lower_passes, finalize_passes

    target = tvm.target.Target(target)

    @tvm.transform.module_pass(opt_level=0)
    def pipeline(mod, _ctx):
        passes = [T.MetaScheduleApplyDatabase()]  # reads the target and database in effect
        if model.weight_prepack:
            passes += [T.SplitLayoutRewritePreproc(), T.FoldConstant()]
        passes += dataflow_lower_passes(target) + finalize_passes(target)
        return tvm.transform.Sequential(passes)(mod)

    with target, database, tvm.transform.PassContext(opt_level=3):
        return relax.build(model.mod, target=target, relax_pipeline=pipeline)


def vm_outputs(vm, feeds: Dict[str, np.ndarray], dev) -> List[np.ndarray]:
    """Outputs of ``main`` on the Relax VM ``vm``, flattened to a list of arrays."""
    import tvm

    out = vm["main"](*[tvm.runtime.tensor(x, dev) for x in feeds.values()])
    return [o.numpy() for o in _flatten(out)]


def _flatten(out) -> list:
    if hasattr(out, "numpy"):
        return [out]
    return [leaf for item in out for leaf in _flatten(item)]  # a tuple of outputs


def vm_timer(vm, feeds: Dict[str, np.ndarray], dev) -> Timer:
    """A :data:`~tvm_gnn_cost.workloads.harness.Timer` of ``main`` on the Relax VM."""
    import tvm

    args = [tvm.runtime.tensor(x, dev) for x in feeds.values()]

    def timer(number: int, repeat: int, min_repeat_ms: int) -> List[float]:
        evaluate = vm.time_evaluator("main", dev, number=number, repeat=repeat,
                                     min_repeat_ms=min_repeat_ms)
        return list(evaluate(*args).results)

    return timer


def build_checked(model: RelaxModel, tasks, work_dir: str, target) -> Built:
    """Build ``model`` with the best programs of the database in ``work_dir`` and check its
    outputs against the original; ``tasks`` are the tuned ``(name, module)`` pairs, for
    naming those that fell back.

    Raises
    ------
    WrongResultError
        If the outputs differ from the original's.
    """
    import tvm
    from tvm import relax

    database = open_database(work_dir)
    executable = compile_tuned(model, database, target)
    dev = tvm.cpu()
    vm = relax.VirtualMachine(executable, dev)
    feeds = model.feeds()
    error = check_outputs(vm_outputs(vm, feeds, dev), model.reference(feeds), model.framework)
    report = BuildReport(0.0, error, model.framework, fallback_tasks(tasks, database, target))
    return Built(report, vm_timer(vm, feeds, dev), executable)


def build_and_time(model: RelaxModel, tasks, work_dir: str, target, number: int = 10,
                   repeat: int = 10, min_repeat_ms: int = 100,
                   export: Optional[str] = None) -> BuildReport:
    """:func:`build_checked`, then the build and the original timed in turns
    (:func:`~tvm_gnn_cost.workloads.harness.time_side_by_side`, ``repeat`` rounds) and the
    library exported if asked.

    Raises
    ------
    WrongResultError
        If the outputs differ from the original's.
    """
    built = build_checked(model, tasks, work_dir, target)
    timers: Dict[Hashable, Timer] = {"build": built.timer,
                                     "reference": reference_timer(model.reference, model.feeds())}
    seconds = time_side_by_side(timers, rounds=repeat, number=number, repeat=1,
                                min_repeat_ms=min_repeat_ms)
    report = built.report
    report.latency, report.reference_latency = seconds["build"], seconds["reference"]
    if export:
        export_library(built.lib, export, model.inputs, entry="main", executor="relax-vm")
        report.exported = export
    return report


__all__ = ["build_and_time", "build_checked", "compile_tuned", "vm_outputs", "vm_timer"]
