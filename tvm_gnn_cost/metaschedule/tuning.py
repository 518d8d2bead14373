"""Tuning with MetaSchedule and any cost model, recording the same search curve as Ansor runs.

    curve = ms_tune(ms_workload("matmul", target), GNNMetaCostModel(seed=0), trials=64,
                    work_dir="runs/ms", target=target, seed=0)

Any MetaSchedule cost model (:class:`GNNMetaCostModel`, MetaSchedule's own ``xgb``, ``mlp``
and ``random``: :func:`tvm_gnn_cost.experiments.registry.make_ms_model`). Every measured
batch adds one point to the :class:`Curve`: trials so far, seconds since the start, and the
estimated latency (sum of task weight x best latency; inf until every task has a valid
measurement).
"""
from __future__ import annotations

import json
import logging
import math
import os
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..core.labels import FAILED_COST
from ..curves import Curve
from ..tir.compat import structural_hash
from .builder import local_builder
from .cost_model import derived_object, ms, run_cost
from .relax_models import RelaxModel, load_relax_model, model_from_torch

logger = logging.getLogger("tvm_gnn_cost")

@dataclass
class MSWorkload:
    """Named TIR modules to tune and the weight of each in the end-to-end latency."""

    name: str
    modules: List[Tuple[str, object]]  # (task name, IRModule)
    weights: List[float]
    #: the model they come from, to build: a Relax model (apache-tvm, :mod:`.relax_build`) or a
    #: Relay network (:class:`~tvm_gnn_cost.workloads.networks.Workload`, TVM 0.19,
    #: :mod:`.relay_build`); None for operators
    model: Optional[object] = None


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
    if name in ("matmul", "conv2d", "demo"):  # the same operators and shapes as the Ansor runs
        ops = operators.DEMO if name == "demo" else [single_op(name, batch_size, input_shape)]
        return MSWorkload(name, [(func, tvm.IRModule({"main": te.create_prim_func(
            getattr(operators, func)(*args))})) for func, args in ops], [1.0] * len(ops))
    if relay is not None:
        mod, params, _ = relay_network(name, batch_size, input_shape)
        extracted = ms.relay_integration.extract_tasks(mod, target, params)
        return _from_extracted(name, extracted, target)
    return _from_model(relax_network(name, target, batch_size, input_shape), target)


def ms_workload_from_torch(name: str, module, example_inputs: Sequence, target) -> MSWorkload:
    """The MetaSchedule tasks of any ``torch.nn.Module``: through Relay on TVM 0.19, through
    ``torch.export`` and Relax on apache-tvm."""
    from ..workloads.networks import from_torch, relay
    from ..workloads.targets import without_tophub

    without_tophub()
    if relay is not None:
        mod, params, _ = from_torch(module, example_inputs)
        extracted = ms.relay_integration.extract_tasks(mod, target, params)
        return _from_extracted(name, extracted, target)
    return _from_model(model_from_torch(name, module, example_inputs, target), target)


def ms_workload_from_model(spec: str, target,
                           input_shapes: Optional[Dict[str, Tuple[int, ...]]] = None,
                           input_dtypes: Optional[Dict[str, str]] = None,
                           input_ranges: Optional[Dict[str, Tuple[float, float]]] = None,
                           weight_prepack: bool = True,
                           layout: Optional[str] = None) -> MSWorkload:
    """The MetaSchedule tasks of a user's model, as ``tune --network`` takes it.

    On TVM 0.19: an ONNX or TorchScript file or an entry point, through Relay (in the model's
    own layout); the workload's ``model`` is the Relay network (:mod:`.relay_build` builds
    it). On apache-tvm: an ONNX file or an entry point, through Relax
    (:func:`.relax_models.load_relax_model`, with ``input_ranges``, ``weight_prepack`` and
    ``layout``); the workload's ``model`` builds it (:mod:`.relax_build`).
    """
    from ..workloads.inputs import input_ranges as ranges_of
    from ..workloads.models import load_model
    from ..workloads.networks import Workload, relay
    from ..workloads.targets import without_tophub

    without_tophub()
    if relay is not None:
        source = load_model(spec, input_shapes, layout=None, input_dtypes=input_dtypes)
        extracted = ms.relay_integration.extract_tasks(source.mod, target, source.params)
        workload = _from_extracted(source.name, extracted, target)
        workload.model = Workload(source.name, [], [], source.mod, source.params, source.inputs,
                                  reference=source.reference, framework=source.framework,
                                  input_ranges=ranges_of(source.inputs, source.mod, input_ranges))
        return workload
    return _from_model(load_relax_model(spec, target, input_shapes, input_dtypes, input_ranges,
                                        weight_prepack, layout), target)


def _from_model(model: RelaxModel, target) -> MSWorkload:
    workload = _from_extracted(model.name, ms.relax_integration.extract_tasks(model.mod, target),
                               target)
    workload.model = model
    return workload


def _from_extracted(name: str, extracted, target) -> MSWorkload:
    """The extracted tasks that need a schedule, as ``tune_relax`` keeps them."""
    extracted = [t for t in extracted if not _scheduled(t.dispatched[0])]
    if not extracted:
        raise ValueError(f"no tunable task found in {name} for target {target}")
    return MSWorkload(name, [(t.task_name, t.dispatched[0]) for t in extracted],
                      [float(t.weight) for t in extracted])


def _scheduled(mod) -> bool:
    attrs = mod.attrs or {}
    return bool(attrs.get("tirx.is_scheduled", False) or attrs.get("tir.is_scheduled", False))


def relax_network(name: str, target, batch_size: int = 1,
                  input_shape: Optional[Sequence[int]] = None) -> RelaxModel:
    """A built-in network as a :class:`RelaxModel` (apache-tvm without Relay): the BERT-style
    encoders (``bert``, ``bert-tiny``, ``bert-medium``), from PyTorch, input ``data``."""
    from ..workloads.networks import BERT_SIZES, bert_module

    if name not in BERT_SIZES:
        raise ValueError(f"{name!r} needs Relay (relay.testing), which this TVM does not have; "
                         "with apache-tvm, tune bert, matmul or conv2d, or your own model (an "
                         "ONNX file or a package.module:function entry point)")
    seq_len = input_shape[0] if input_shape else 64
    d_model, heads = BERT_SIZES[name]
    module, examples = bert_module(batch_size, seq_len, d_model, heads)
    return model_from_torch(name, module, examples, target, ["data"])


@derived_object
class _CurveCallback(ms.measure_callback.PyMeasureCallback):
    """Adds a curve point after every measured batch (and hands the curve to ``on_point``),
    and keeps the first build or run error of each task."""

    def __init__(self, curve: Curve, weights: Sequence[float], start: float,
                 best: Optional[List[float]] = None, trials: int = 0,
                 on_point: Optional[Callable[[Curve], None]] = None):
        super().__init__()
        self.curve, self.weights, self.start = curve, list(weights), start
        self.best = list(best) if best else [FAILED_COST] * len(self.weights)
        self.first_error: Dict[int, str] = {}
        self.trials = trials
        self.on_point = on_point
        if trials and (not curve.trials or curve.trials[-1] != trials):
            self._add_point()  # resumed: where the records so far left the search

    def apply(self, task_scheduler, task_id, measure_candidates, builder_results,
              runner_results) -> None:
        for built, res in zip(builder_results, runner_results):
            self.best[task_id] = min(self.best[task_id], run_cost(res))
            error = built.error_msg or res.error_msg
            if error and task_id not in self.first_error:
                self.first_error[task_id] = str(error)
        self.trials += len(runner_results)
        self._add_point()
        if self.on_point:
            self.on_point(self.curve)

    def _add_point(self) -> None:
        known = all(b < FAILED_COST for w, b in zip(self.weights, self.best) if w)
        latency = sum(w * b for w, b in zip(self.weights, self.best) if w) if known else math.inf
        self.curve.add(self.trials, time.time() - self.start, latency)


def ms_tune(workload: MSWorkload, model, trials: int, work_dir: str, target, seed: int = 0,
            per_iter: int = 16, builder=None, name: str = "", resume: bool = False,
            curve: Optional[Curve] = None,
            on_point: Optional[Callable[[Curve], None]] = None) -> Curve:
    """Tune ``workload`` with MetaSchedule and the cost model ``model``; returns its curve,
    named ``name``. The records go to the JSON database in ``work_dir``, as ``tune_relax``
    writes them, each as soon as it is measured.

    ``builder`` defaults to :func:`.builder.local_builder` (MetaSchedule's ``LocalBuilder``,
    without apache-tvm's per-batch tensor-intrinsic import). A task none of whose candidates
    built and ran is logged with its first error. With ``resume``, the records already in
    ``work_dir`` count against ``trials``, start the curve, and train ``model`` before the
    search goes on (the search itself starts from the database's best programs, as it
    always does); ``curve``, the resumed run's curve so far, is continued, its tuning time
    counted and the pause left out. ``on_point(curve)`` is called after every measured batch
    (to keep the curve on disk).
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
    if resume:
        repair_database(work_dir)
    database = ms.database.JSONDatabase(work_dir=work_dir)
    best = [FAILED_COST] * len(names)
    done = _learn_measured(database, contexts, model, best) if resume else 0
    curve = Curve(name, seed) if curve is None else curve
    callback = _CurveCallback(curve, workload.weights, time.time() - curve.wall, best, done,
                              on_point)
    if trials > done:
        ms.tune_tasks(tasks=contexts, task_weights=workload.weights, work_dir=work_dir,
                      max_trials_global=trials - done, num_trials_per_iter=per_iter,
                      builder=builder or local_builder(), database=database, cost_model=model,
                      measure_callbacks=list(ms.MeasureCallback.create("default")) + [callback],
                      task_scheduler="gradient")
    for task_id, task in enumerate(names):
        if callback.best[task_id] >= FAILED_COST:
            logger.warning("[%s seed %d] no candidate of task %s built and ran; first error: %s",
                           name, seed, task,
                           callback.first_error.get(task_id, "none (never measured)"))
    return curve


#: The files of MetaSchedule's JSON database in a work folder: the tasks' modules, a line
#: each (``[shash, module]``), and the records in measuring order (``[task line, record]``).
WORKLOADS_FILE, RECORDS_FILE = "database_workload.json", "database_tuning_record.json"


def has_records(work_dir: str) -> bool:
    """Whether MetaSchedule's JSON database in ``work_dir`` holds a tuning record."""
    records = os.path.join(work_dir, RECORDS_FILE)
    return os.path.exists(records) and os.path.getsize(records) > 0


def repair_database(work_dir: str) -> None:
    """Cut a line that a kill left half-written at the end of the JSON database's files, which
    MetaSchedule could not read back; the records before it are kept."""
    for name in (WORKLOADS_FILE, RECORDS_FILE):
        path = os.path.join(work_dir, name)
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        whole = data[:data.rfind(b"\n") + 1]
        if len(whole) < len(data):
            logger.warning("%s: cut a half-written last line (%d bytes), written when the run "
                           "was killed", path, len(data) - len(whole))
            with open(path, "r+b") as f:
                f.truncate(len(whole))


def task_costs(work_dir: str, mods) -> List[List[float]]:
    """The measured costs (mean seconds, ``inf`` for a failure) of each task's module in
    ``mods``, in measuring order, from the JSON database in ``work_dir`` (whose queries give
    records best first: the files keep the order)."""
    costs: List[List[float]] = [[] for _ in mods]
    if not has_records(work_dir):
        return costs
    with open(os.path.join(work_dir, WORKLOADS_FILE)) as f:  # shash: the unsigned 64-bit hash
        line_of = {int(json.loads(line)[0]): i for i, line in enumerate(f) if line.strip()}
    task_of = {line_of.get(structural_hash(mod) & (2 ** 64 - 1)): t for t, mod in enumerate(mods)}
    with open(os.path.join(work_dir, RECORDS_FILE)) as f:
        for line in f:
            if not line.strip():
                continue
            try:
                task, record = json.loads(line)
            except ValueError:  # half-written by a kill (repair_database cuts it)
                continue
            if task in task_of:
                secs = record[1] or []
                cost = float(np.mean(secs)) if secs else math.inf
                costs[task_of[task]].append(cost if cost < FAILED_COST else math.inf)
    return costs


def measured_records(database, mods) -> List[list]:
    """The valid records in ``database`` of each task's module in ``mods``, best first."""
    out = []
    for mod in mods:
        if not database.has_workload(mod):
            out.append([])
            continue
        workload = database.commit_workload(mod)
        out.append(list(database.get_top_k(workload, 1 << 30)))
    return out


def open_database(work_dir: str):
    """The JSON database MetaSchedule wrote in ``work_dir`` (``tune --log``)."""
    return ms.database.JSONDatabase(work_dir=work_dir, allow_missing=False)


def fallback_tasks(names_and_modules, database, target) -> List[str]:
    """Tasks (``(name, module)``) without a valid record in ``database``: built without a
    tuned program (unscheduled on Relax, with TVM's default schedule on Relay)."""
    import tvm

    target = tvm.target.Target(target)
    return [name for name, mod in names_and_modules
            if database.query_tuning_record(mod, target, name) is None]


def _learn_measured(database, contexts, model, best: List[float]) -> int:
    """Train ``model`` on the records ``database`` holds for ``contexts`` and set each
    task's ``best``; returns how many records there were."""
    seen = 0
    mods = [context.mod for context in contexts]
    for task_id, (context, records) in enumerate(zip(contexts, measured_records(database, mods))):
        if not records:
            continue
        results = [ms.runner.RunnerResult([float(x) for x in r.run_secs], None)
                   for r in records]
        model.update(context, [r.as_measure_candidate() for r in records], results)
        best[task_id] = min(run_cost(res) for res in results)
        seen += len(records)
    return seen


__all__ = ["MSWorkload", "RECORDS_FILE", "WORKLOADS_FILE", "fallback_tasks", "has_records",
           "measured_records", "open_database", "repair_database", "task_costs", "ms_tune",
           "ms_workload", "ms_workload_from_model", "ms_workload_from_torch", "relax_network"]
