"""Tuning with MetaSchedule and any cost model, recording the same search curve as Ansor runs.

    curve = ms_tune(ms_workload("matmul", target), GNNMetaCostModel(seed=0), trials=64,
                    work_dir="runs/ms", target=target, seed=0)

Any MetaSchedule cost model (:class:`GNNMetaCostModel`, MetaSchedule's own ``xgb``, ``mlp``
and ``random``: :func:`tvm_gnn_cost.experiments.registry.make_ms_model`). Every measured batch adds one point to the :class:`Curve`: trials so far,
seconds since the start, and the estimated latency (sum of task weight x best latency; inf
until every task has a valid measurement).
"""
from __future__ import annotations

import logging
import math
import os
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..core.labels import FAILED_COST
from ..curves import Curve
from .cost_model import derived_object, ms, run_cost
from .builder import local_builder

logger = logging.getLogger("tvm_gnn_cost")

@dataclass
class MSWorkload:
    """Named TIR modules to tune and the weight of each in the end-to-end latency."""

    name: str
    modules: List[Tuple[str, object]]  # (task name, IRModule)
    weights: List[float]


def ms_workload(name: str, target, batch_size: int = 1,
                input_shape: Optional[Sequence[int]] = None,
                input_shapes: Optional[Dict[str, Tuple[int, ...]]] = None,
                input_dtypes: Optional[Dict[str, str]] = None) -> MSWorkload:
    """The MetaSchedule tasks of an operator (``matmul``, ``conv2d``), a network, or a
    user's model (:func:`ms_workload_from_model`, with ``input_shapes`` and
    ``input_dtypes``).

    Networks come through Relay on TVM 0.19 and through Relax (from PyTorch: ``bert``) on
    apache-tvm without Relay.
    """
    import tvm
    from tvm import te

    from ..workloads import operators
    from ..workloads.models import is_model_spec
    from ..workloads.networks import NETWORKS, relay, relay_network, single_op
    from ..workloads.targets import without_tophub

    without_tophub()

    if name not in NETWORKS and is_model_spec(name):
        return ms_workload_from_model(name, target, input_shapes, input_dtypes)
    if name in ("matmul", "conv2d"):  # the same operators and shapes as the Ansor runs
        func, args = single_op(name, batch_size, input_shape)
        tensors = getattr(operators, func)(*args)
        return MSWorkload(name, [(name, tvm.IRModule({"main": te.create_prim_func(tensors)}))],
                          [1.0])
    if relay is not None:
        mod, params, _ = relay_network(name, batch_size, input_shape)
        extracted = ms.relay_integration.extract_tasks(mod, target, params)
    else:
        extracted = ms.relax_integration.extract_tasks(
            relax_network(name, batch_size, input_shape), target)
    return _from_extracted(name, extracted, target)


def ms_workload_from_torch(name: str, module, example_inputs: Sequence, target) -> MSWorkload:
    """The MetaSchedule tasks of any ``torch.nn.Module``: through Relay on TVM 0.19, through
    Relax on apache-tvm."""
    from ..workloads.networks import from_torch, relay
    from ..workloads.targets import without_tophub

    without_tophub()
    if relay is not None:
        mod, params, _ = from_torch(module, example_inputs)
        extracted = ms.relay_integration.extract_tasks(mod, target, params)
    else:
        extracted = ms.relax_integration.extract_tasks(
            relax_from_torch(module, example_inputs), target)
    return _from_extracted(name, extracted, target)


def ms_workload_from_model(spec: str, target,
                           input_shapes: Optional[Dict[str, Tuple[int, ...]]] = None,
                           input_dtypes: Optional[Dict[str, str]] = None) -> MSWorkload:
    """The MetaSchedule tasks of a user's model, as ``tune --network`` takes it: an ONNX or
    TorchScript file or an entry point through Relay on TVM 0.19 (in the model's own
    layout); on apache-tvm, without Relay, an entry point through ``torch.export`` and
    Relax."""
    from ..workloads.models import load_entry_point, load_model
    from ..workloads.networks import relay
    from ..workloads.targets import without_tophub

    without_tophub()
    if relay is not None:
        source = load_model(spec, input_shapes, layout=None, input_dtypes=input_dtypes)
        extracted = ms.relay_integration.extract_tasks(source.mod, target, source.params)
        return _from_extracted(source.name, extracted, target)
    if ":" not in spec or os.path.isfile(spec):
        raise ValueError(f"{spec}: model files come in through Relay, which this TVM (without "
                         "Relay) lacks; pass a package.module:function entry point returning "
                         "the torch module, or tune the file with TVM 0.19")
    name, module, examples, _ = load_entry_point(spec, input_shapes, input_dtypes)
    return ms_workload_from_torch(name, module, examples, target)


def _from_extracted(name: str, extracted, target) -> MSWorkload:
    if not extracted:
        raise ValueError(f"no tunable task found in {name} for target {target}")
    return MSWorkload(name, [(t.task_name, t.dispatched[0]) for t in extracted],
                      [float(t.weight) for t in extracted])


def relax_network(name: str, batch_size: int = 1, input_shape: Optional[Sequence[int]] = None):
    """A network as a fused Relax module (apache-tvm without Relay): the BERT-style encoders
    (``bert``, ``bert-tiny``, ``bert-medium``), from PyTorch."""
    from ..workloads.networks import BERT_SIZES, bert_module

    if name not in BERT_SIZES:
        raise ValueError(f"{name!r} needs Relay (relay.testing), which this TVM does not have; "
                         "with apache-tvm, tune bert, matmul or conv2d, or a torch module "
                         "through relax_from_torch")
    seq_len = input_shape[0] if input_shape else 64
    d_model, heads = BERT_SIZES[name]
    return relax_from_torch(*bert_module(batch_size, seq_len, d_model, heads))


def relax_from_torch(module, example_inputs: Sequence):
    """Any ``torch.nn.Module`` as a Relax module with its operators legalized and fused, the
    form ``meta_schedule.relax_integration.extract_tasks`` takes (apache-tvm)."""
    import torch
    import tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    with torch.no_grad():
        exported = torch.export.export(module.eval(), tuple(example_inputs))
    mod = from_exported_program(exported, keep_params_as_input=False)
    return tvm.ir.transform.Sequential([
        relax.transform.LegalizeOps(), relax.transform.AnnotateTIROpPattern(),
        relax.transform.FoldConstant(), relax.transform.FuseOps(), relax.transform.FuseTIR(),
    ])(mod)


@derived_object
class _CurveCallback(ms.measure_callback.PyMeasureCallback):
    """Adds a curve point after every measured batch, and keeps the first build or run error
    of each task."""

    def __init__(self, curve: Curve, weights: Sequence[float], start: float):
        super().__init__()
        self.curve, self.weights, self.start = curve, list(weights), start
        self.best = [FAILED_COST] * len(self.weights)
        self.first_error: Dict[int, str] = {}
        self.trials = 0

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results,
              runner_results) -> None:
        for built, res in zip(builder_results, runner_results):
            self.best[task_id] = min(self.best[task_id], run_cost(res))
            error = built.error_msg or res.error_msg
            if error and task_id not in self.first_error:
                self.first_error[task_id] = str(error)
        self.trials += len(runner_results)
        known = all(b < FAILED_COST for w, b in zip(self.weights, self.best) if w)
        latency = sum(w * b for w, b in zip(self.weights, self.best) if w) if known else math.inf
        self.curve.add(self.trials, time.time() - self.start, latency)


def ms_tune(workload: MSWorkload, model, trials: int, work_dir: str, target, seed: int = 0,
            per_iter: int = 16, builder=None, name: str = "") -> Curve:
    """Tune ``workload`` with MetaSchedule and the cost model ``model``; returns its curve,
    named ``name``.

    ``builder`` defaults to :func:`.builder.local_builder` (MetaSchedule's ``LocalBuilder``,
    without apache-tvm's per-batch tensor-intrinsic import). A task none of whose candidates
    built and ran is logged with its first error.
    """
    get_loggers_from_work_dir, fork_seed = ms.logging.get_loggers_from_work_dir, ms.utils.fork_seed
    os.makedirs(work_dir, exist_ok=True)
    # MetaSchedule's get_loggers_from_work_dir lists the names of the handlers already on its
    # logger and crashes on one without a name (a test harness's, a user's); its dictConfig
    # replaces that logger's handlers anyway.
    ms_logger = logging.getLogger(ms.__name__)  # tvm.meta_schedule, tvm.s_tir.meta_schedule
    for handler in [h for h in ms_logger.handlers if h.get_name() is None]:
        ms_logger.removeHandler(handler)
    names = [n for n, _ in workload.modules]
    contexts = [
        ms.TuneContext(mod=mod, target=target, space_generator="post-order-apply",
                       search_strategy="evolutionary", task_name=task, rand_state=rs,
                       num_threads=os.cpu_count() or 1, logger=log).clone()
        for (task, mod), log, rs in zip(workload.modules,
                                        get_loggers_from_work_dir(work_dir, names),
                                        fork_seed(seed, n=len(names)))
    ]
    curve = Curve(name, seed)
    callback = _CurveCallback(curve, workload.weights, time.time())
    ms.tune_tasks(tasks=contexts, task_weights=workload.weights, work_dir=work_dir,
                  max_trials_global=trials, num_trials_per_iter=per_iter,
                  builder=builder or local_builder(),
                  cost_model=model,
                  measure_callbacks=list(ms.MeasureCallback.create("default")) + [callback],
                  task_scheduler="gradient")
    for task_id, task in enumerate(names):
        if callback.best[task_id] >= FAILED_COST:
            logger.warning("[%s seed %d] no candidate of task %s built and ran; first error: %s",
                           name, seed, task,
                           callback.first_error.get(task_id, "none (never measured)"))
    return curve


__all__ = ["MSWorkload", "ms_tune", "ms_workload", "ms_workload_from_model",
           "ms_workload_from_torch", "relax_from_torch", "relax_network"]
