"""Ansor states -> :class:`ProgramGraph`: one node per non-inlined compute stage.

Each state is read from its printout (:mod:`..core.looptree`): one C++ call gives
every stage's loop nest, annotations, extents and attach point. What a stage
computes (:mod:`..tir.opstats`) depends only on the stage structure, so it is
computed once per task and structure, and reused for every state that has it.
"""
from __future__ import annotations

import json
import logging
from collections import OrderedDict
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..core.config import FeaturizerConfig
from ..core.features import (N_STATIC, StageStructure, feature_names, log_feature,
                             loop_footprints, schedule_features)
from ..core.graph import ProgramGraph
from ..core.looptree import LoopTree, LoopTreeError, parse_loop_tree
from ..core.steps import TOKEN_WIDTH, step_tokens
from ..tir.opstats import StageSummary, summarize_stages

logger = logging.getLogger("tvm_gnn_cost")

GPU_TARGETS = ("cuda", "rocm", "opencl", "vulkan", "metal", "webgpu")


class _TaskCache:
    def __init__(self, limit: int, n_ops: int = 0):
        self.limit = limit
        self.n_ops = n_ops  # operations of the task's compute DAG, for the step tokens
        self.structures: "OrderedDict[Tuple[str, ...], StageStructure]" = OrderedDict()

    def get(self, key):
        s = self.structures.get(key)
        if s is not None:
            self.structures.move_to_end(key)
        return s

    def put(self, key, value):
        self.structures[key] = value
        if len(self.structures) > self.limit:
            self.structures.popitem(last=False)


def task_key(task) -> str:
    """A string that identifies a search task: workload key and target."""
    return f"{task.workload_key}|{task.target}"


class StateFeaturizer:
    """Builds one :class:`ProgramGraph` per state of a task.

    Parameters
    ----------
    config : FeaturizerConfig, optional
        Featurizer settings; the defaults just run.

    Examples
    --------
    >>> featurizer = StateFeaturizer()
    >>> graphs = featurizer.featurize(task, states)  # doctest: +SKIP
    """

    def __init__(self, config: Optional[FeaturizerConfig] = None):
        self.config = config or FeaturizerConfig()
        self.names = feature_names(self.config)
        self.n_features = len(self.names)
        self.n_store_features = _n_store_features() if self.config.lowered else 0
        self._tasks: Dict[str, _TaskCache] = {}

    def featurize(self, task, states: Sequence) -> List[ProgramGraph]:
        """Graphs of bound-inferred states of ``task``, invalid ones flagged.

        Parameters
        ----------
        task : tvm.auto_scheduler.SearchTask
            The task the states belong to.
        states : sequence of State or StateObject
            Bound-inferred states (as the search passes them to ``predict``).

        Returns
        -------
        list of ProgramGraph
            One per state, in order; ``valid`` is False for a state that
            cannot be read or breaks the target's limits.
        """
        key = task_key(task)
        cache = self._tasks.get(key)
        if cache is None:
            cache = self._tasks[key] = _TaskCache(self.config.max_structures_per_task,
                                                  len(task.compute_dag.ops))
        limits = _gpu_limits(task)
        if self.config.step_tokens:
            graphs = [self._one(cache, state, limits, _transform_steps(task, state))
                      for state in states]
        else:
            graphs = [self._one(cache, state, limits) for state in states]
        if self.config.lowered:
            _add_store_features(task, states, graphs, self.n_store_features)
        return graphs

    def _one(self, cache: _TaskCache, state, limits, steps=None) -> ProgramGraph:
        try:
            tree = parse_loop_tree(str(state))
        except LoopTreeError as err:
            logger.debug("state not featurized: %s", err)
            return ProgramGraph.invalid(self.n_features)
        names = tuple(st.name for st in tree.statements)
        if not names:
            return ProgramGraph.invalid(self.n_features)
        struct = cache.get(names)
        if struct is None:
            try:
                struct = self._structure(state, names)
            except Exception as err:  # noqa: BLE001 - one odd state must not stop the search
                # Scoring every state of a task -inf would make Ansor's sampling loop
                # forever; score them from their loop nests alone instead.
                logger.warning("cannot summarize the stages of %s (%s); using loop features "
                               "only", names, err)
                struct = self._loops_only(names)
            cache.put(names, struct)
        if limits is not None and not _within_gpu_limits(tree, limits):
            return ProgramGraph.invalid(self.n_features)
        sched = np.array([schedule_features(tree, i, struct, self.config.max_loops)
                          for i in range(len(names))],
                         dtype=np.float32)
        parts = [struct.static, sched]
        if self.config.loop_footprints:
            parts.append(np.array([loop_footprints(tree, i, struct, self.config.max_loops)
                                   for i in range(len(names))], dtype=np.float32))
        k = self.config.step_tokens
        if k and struct.stage_of_node is not None:
            parts.append(step_tokens(steps, cache.n_ops, struct.n_stages, struct.stage_of_node, k))
        elif k:
            parts.append(np.zeros((len(names), k * TOKEN_WIDTH), np.float32))
        return ProgramGraph(np.concatenate(parts, axis=1), struct.src, struct.dst)

    def _structure(self, state, names: Tuple[str, ...]) -> StageStructure:
        stages = list(state.stages)
        ops = [s.op for s in stages]
        inlined = [int(s.compute_at) == 1 for s in stages]
        summaries = summarize_stages(ops, inlined)
        # The k-th statement named n is the k-th non-inlined compute stage named n.
        by_name: Dict[str, List[int]] = {}
        for i in sorted(summaries):
            by_name.setdefault(ops[i].name, []).append(i)
        node_of_stage: Dict[int, int] = {}
        order: List[int] = []
        seen: Dict[str, int] = {}
        for node, name in enumerate(names):
            k = seen.get(name, 0)
            seen[name] = k + 1
            cands = by_name.get(name, [])
            if k >= len(cands):
                logger.warning("statement %s has no matching stage; using loop features only",
                               name)
                return self._loops_only(names)
            node_of_stage[cands[k]] = node
            order.append(cands[k])
        src, dst = [], []
        static, reduce, last, accesses, float_ops = [], [], [], [], []
        for node, stage in enumerate(order):
            s: StageSummary = summaries[stage]
            for p in s.producers:
                if p in node_of_stage:
                    src.append(node_of_stage[p])
                    dst.append(node)
            static.append(_static_features(s))
            reduce.append(s.op.reduce)
            last.append(frozenset(s.op.spatial[-1:]))
            accesses.append(s.accesses)
            float_ops.append(float(s.counts[:4].sum()))
        return StageStructure(
            static=np.array(static, dtype=np.float32),
            src=np.array(src, dtype=np.int64),
            dst=np.array(dst, dtype=np.int64),
            reduce=reduce,
            spatial_last=last,
            accesses=accesses,
            float_ops=np.array(float_ops),
            stage_of_node=np.array(order, dtype=np.int64),
            n_stages=len(stages),
        )

    def _loops_only(self, names: Tuple[str, ...]) -> StageStructure:
        n = len(names)
        empty = np.zeros(0, dtype=np.int64)
        return StageStructure(static=np.zeros((n, N_STATIC), np.float32), src=empty, dst=empty,
                              reduce=[frozenset()] * n, spatial_last=[frozenset()] * n,
                              accesses=[[] for _ in range(n)], float_ops=np.zeros(n))


def _transform_steps(task, state) -> list:
    """The state's transform steps as Ansor writes them in its logs (one C++ call)."""
    from tvm.auto_scheduler import MeasureInput, _ffi_api

    return json.loads(_ffi_api.SerializeMeasureInput(MeasureInput(task, state)))[1][1]


def _n_store_features() -> int:
    from tvm.auto_scheduler.feature import get_per_store_feature_names

    return len(get_per_store_feature_names())


def _add_store_features(task, states: Sequence, graphs: List[ProgramGraph], width: int) -> None:
    """Ansor's per-store features of each valid graph's lowered state (C++, in parallel; a
    state that fails to lower gets no rows)."""
    from tvm.auto_scheduler.feature import get_per_store_features_from_states

    valid = [i for i, g in enumerate(graphs) if g.valid]
    if not valid:
        return
    rows = get_per_store_features_from_states([states[i] for i in valid], task)
    for i, r in zip(valid, rows):
        r = np.asarray(r, dtype=np.float32).reshape(-1, width)
        graphs[i].stores = r


def _static_features(s: StageSummary) -> List[float]:
    name = s.op.name
    f = [log_feature(c) for c in s.counts]
    f += [float(bool(s.op.reduce)), log_feature(s.op.reduce_size), log_feature(s.op.out_elems),
          s.op.dtype_bits / 32.0, float(s.n_inputs), float(s.n_inlined),
          float(".shared" in name), float(".local" in name), float(".rf" in name)]
    return f


def _gpu_limits(task) -> Optional[Tuple[int, int]]:
    if task.target.kind.name not in GPU_TARGETS:
        return None
    hw = task.hardware_params
    return int(hw.max_threads_per_block), int(hw.max_vthread_extent)


def _within_gpu_limits(tree: LoopTree, limits: Tuple[int, int]) -> bool:
    """Threads per block and vthreads within the target's limits, as Ansor checks.

    A thread axis bound twice in one kernel (cooperative fetching re-binds
    ``threadIdx.x``) is one axis: its size is the largest extent bound to it.
    """
    max_threads, max_vthread = limits
    for st in tree.statements:
        axes = {6: 1, 8: 1, 10: 1}
        vthreads = 1
        for li in st.loops:
            lp = tree.loops[li]
            if lp.annotation in axes:
                axes[lp.annotation] = max(axes[lp.annotation], lp.extent)
            elif lp.annotation == 4:
                vthreads *= lp.extent
        if axes[6] * axes[8] * axes[10] > max_threads or vthreads > max_vthread:
            return False
    return True
