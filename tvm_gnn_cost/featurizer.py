"""Ansor states -> :class:`ProgramGraph`: one node per non-inlined compute stage.

Each state is read from its printout (:mod:`.looptree`): one C++ call gives
every stage's loop nest, annotations, extents and attach point. What a stage
computes (:mod:`.opstats`) depends only on the stage structure, so it is
computed once per task and structure, and reused for every state that has it.
"""
from __future__ import annotations

import logging
import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .config import FeaturizerConfig
from .graph import ProgramGraph
from .looptree import Loop, LoopTree, LoopTreeError, base_names, parse_loop_tree
from .opstats import OP_CATEGORIES, StageSummary, summarize_stages

logger = logging.getLogger("tvm_gnn_cost")

GPU_TARGETS = ("cuda", "rocm", "opencl", "vulkan", "metal", "webgpu")
# Annotation values 1..10 (unroll ... threadIdx.z) as in looptree.ANNOTATIONS.
_N_ANN = 10
# Compact annotation classes for the per-loop encoding: none, parallel, vectorize, unroll, gpu.
_ANN_CLASS = [0, 3, 2, 1, 4, 4, 4, 4, 4, 4, 4, 0]
_PER_LOOP = 7
_N_STATIC = len(OP_CATEGORIES) + 9  # columns of _static_features


def feature_names(config: Optional[FeaturizerConfig] = None) -> List[str]:
    """Names of the node features, in column order."""
    config = config or FeaturizerConfig()
    names = [f"op_{c}" for c in OP_CATEGORIES]
    names += ["is_reduction", "reduce_size", "out_elems", "dtype_bits", "n_inputs", "n_inlined",
              "is_shared", "is_local", "is_rfactor", "total_float_ops"]
    names += ["n_own_loops", "n_ctx_loops", "own_iters", "ctx_iters", "own_spatial", "own_reduce"]
    names += ["ann_" + a for a in ("unroll", "vectorize", "parallel", "vthread", "blockIdx.x",
                                   "threadIdx.x", "blockIdx.y", "threadIdx.y", "blockIdx.z",
                                   "threadIdx.z")]
    names += ["inner_extent", "inner_vectorized", "inner_unrolled", "inner_reduce",
              "auto_unroll", "is_attached"]
    names += ["write_contiguous", "reduce_innermost", "reads_contiguous", "reads_reused",
              "reads_strided", "max_reuse", "footprint", "traffic"]
    for k in range(config.max_loops):
        names += [f"loop{k}_extent", f"loop{k}_reduce", f"loop{k}_none", f"loop{k}_parallel",
                  f"loop{k}_vectorize", f"loop{k}_unroll", f"loop{k}_gpu"]
    return names


def log_feature(x: float) -> float:
    """``log2(1 + x)`` for positive ``x``, else 0: how counts and sizes enter the features."""
    return math.log2(1.0 + x) if x > 0 else 0.0


@dataclass
class StageStructure:
    """What all programs of one task with the same stages share: static node features,
    edges, and the axis names each node's loops are matched against."""

    static: np.ndarray  # (n_nodes, n_static)
    src: np.ndarray
    dst: np.ndarray
    reduce: List[frozenset]  # reduce axis base names per node
    spatial_last: List[frozenset]  # base name of the last output axis per node
    accesses: List[list]  # per node: [(all index names, last index names)]
    float_ops: np.ndarray  # float ops per output element, per node


class _TaskCache:
    def __init__(self, limit: int):
        self.limit = limit
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
            cache = self._tasks[key] = _TaskCache(self.config.max_structures_per_task)
        limits = _gpu_limits(task)
        return [self._one(cache, state, limits) for state in states]

    def _one(self, cache: _TaskCache, state, limits) -> ProgramGraph:
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
        feats = np.concatenate([struct.static, sched], axis=1)
        return ProgramGraph(feats, struct.src, struct.dst)

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
        )

    def _loops_only(self, names: Tuple[str, ...]) -> StageStructure:
        n = len(names)
        empty = np.zeros(0, dtype=np.int64)
        return StageStructure(static=np.zeros((n, _N_STATIC), np.float32), src=empty, dst=empty,
                              reduce=[frozenset()] * n, spatial_last=[frozenset()] * n,
                              accesses=[[] for _ in range(n)], float_ops=np.zeros(n))


def schedule_features(tree: LoopTree, node: int, struct: StageStructure,
                      max_loops: int) -> List[float]:
    """Features of how node ``node`` is scheduled: its loops, annotations, accesses."""
    loops = tree.loops
    own: List[Loop] = []
    ctx: List[Loop] = []
    for li in tree.statements[node].loops:
        (own if loops[li].owner == node else ctx).append(loops[li])
    red_names = struct.reduce[node]
    is_red = [bool(red_names) and not red_names.isdisjoint(base_names(lp.name)) for lp in own]
    prod_own = prod_ctx = prod_sp = prod_red = 1
    for lp, r in zip(own, is_red):
        prod_own *= lp.extent
        if r:
            prod_red *= lp.extent
        else:
            prod_sp *= lp.extent
    # Loop extents per annotation; a GPU thread axis bound twice (cooperative
    # fetching) is one axis, so block/thread annotations take the largest extent.
    ann = [1] * (_N_ANN + 1)
    for lp in ctx:
        prod_ctx *= lp.extent
    for lp in ctx + own:
        a = lp.annotation if lp.annotation <= _N_ANN else 0
        ann[a] = max(ann[a], lp.extent) if a >= 5 else ann[a] * lp.extent
    f = [len(own), len(ctx), log_feature(prod_own), log_feature(prod_ctx), log_feature(prod_sp), log_feature(prod_red)]
    f += [log_feature(a) if a > 1 else 0.0 for a in ann[1:]]
    if own:
        inner = own[-1]
        f += [log_feature(inner.extent), float(inner.annotation == 2), float(inner.annotation == 1),
              float(is_red[-1])]
    else:
        f += [0.0, 0.0, 0.0, 0.0]
    f += [log_feature(tree.statements[node].auto_unroll), float(bool(ctx))]
    f += _memory_features(own, struct, node, prod_ctx)
    # One slot per own loop, innermost first.
    for k in range(max_loops):
        if k < len(own):
            lp = own[-1 - k]
            onehot = [0.0] * 5
            onehot[_ANN_CLASS[lp.annotation]] = 1.0
            f += [log_feature(lp.extent), float(is_red[-1 - k])] + onehot
        else:
            f += [0.0] * _PER_LOOP
    f.insert(0, log_feature(prod_own * prod_ctx * struct.float_ops[node]))
    return f


def _static_features(s: StageSummary) -> List[float]:
    name = s.op.name
    f = [log_feature(c) for c in s.counts]
    f += [float(bool(s.op.reduce)), log_feature(s.op.reduce_size), log_feature(s.op.out_elems),
          s.op.dtype_bits / 32.0, float(s.n_inputs), float(s.n_inlined),
          float(".shared" in name), float(".local" in name), float(".rf" in name)]
    return f


def _memory_features(own: List[Loop], struct: StageStructure, node: int,
                     prod_ctx: int) -> List[float]:
    """Access pattern of the innermost loop and the data each access touches."""
    if not own:
        return [0.0] * 8
    loop_names = [frozenset(base_names(lp.name)) for lp in own]
    inner = loop_names[-1]
    last = struct.spatial_last[node]
    red = struct.reduce[node]
    write_contig = float(not inner.isdisjoint(last))
    reduce_inner = float(bool(red) and not inner.isdisjoint(red))
    contig = reused = strided = 0
    max_reuse = 0
    footprint = 0
    for allv, lastv in struct.accesses[node]:
        if not inner.isdisjoint(lastv):
            contig += 1
        elif inner.isdisjoint(allv):
            reused += 1
        else:
            strided += 1
        reuse = 1
        for names, lp in zip(reversed(loop_names), reversed(own)):
            if not names.isdisjoint(allv):
                break
            reuse *= lp.extent
        max_reuse = max(max_reuse, reuse)
        touched = 1
        for names, lp in zip(loop_names, own):
            if not names.isdisjoint(allv):
                touched *= lp.extent
        footprint += touched
    return [write_contig, reduce_inner, float(contig), float(reused), float(strided),
            log_feature(max_reuse), log_feature(footprint), log_feature(footprint * prod_ctx)]


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
