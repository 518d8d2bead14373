"""The node feature schema, shared by both searches: names, and the schedule half of a node.

A node is one computation stage: what it computes (op counts, reduction, output size, dtype,
memory scope) and how it is scheduled (its loop nest, annotations, attach point, access
pattern of its innermost loop). The Ansor featurizer and the MetaSchedule graph builder fill
the first half each from their own IR; the second half is :func:`schedule_features` of a
:class:`.looptree.LoopTree` for both. Knows nothing of TVM.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from .config import FeaturizerConfig
from .looptree import Loop, LoopTree, base_names
from .steps import step_token_names

#: Bump when the node features change meaning; checkpoints of another schema are refused.
FEATURE_SCHEMA_VERSION = 1

#: Arithmetic categories counted per output element of a stage.
OP_CATEGORIES = (
    "float_add",
    "float_mul",
    "float_div",
    "float_minmax",
    "int_add",
    "int_mul",
    "int_divmod",
    "compare",
    "logic",
    "select",
    "math_call",
    "cast",
    "load",
)
# Annotation values 1..10 (unroll ... threadIdx.z) as in looptree.ANNOTATIONS.
_N_ANN = 10
# Compact annotation classes for the per-loop encoding: none, parallel, vectorize, unroll, gpu.
_ANN_CLASS = [0, 3, 2, 1, 4, 4, 4, 4, 4, 4, 4, 0]
_PER_LOOP = 7
#: Columns of the "what it computes" half of a node.
N_STATIC = len(OP_CATEGORIES) + 9


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
    if config.loop_footprints:
        names += [f"loop{k}_footprint" for k in range(config.max_loops)]
    return names + step_token_names(config.step_tokens)


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
    # Where the structure comes from a TVM stage list: each node's stage index, and the
    # number of stages (for the step tokens of FeaturizerConfig.step_tokens).
    stage_of_node: Optional[np.ndarray] = None
    n_stages: int = 0


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


def loop_footprints(tree: LoopTree, node: int, struct: StageStructure,
                    max_loops: int) -> List[float]:
    """Working set of node ``node`` at each of its own loops, innermost first: ``log_feature``
    of the elements its reads and its output touch inside that loop (an access touches the
    extent of each loop inside whose name it indexes by). Where a tile's data fits in cache
    shows here, and not in one footprint of the whole nest."""
    own = [tree.loops[li] for li in tree.statements[node].loops if tree.loops[li].owner == node]
    names = [frozenset(base_names(lp.name)) for lp in own]
    red = struct.reduce[node]
    indexed = [allv for allv, _ in struct.accesses[node]]
    touched = np.ones(len(indexed) + 1)  # the reads, then the output (its spatial loops)
    out = []
    for lp, n in zip(reversed(own[-max_loops:]), reversed(names[-max_loops:])):
        for a, allv in enumerate(indexed):
            if not n.isdisjoint(allv):
                touched[a] *= lp.extent
        if red.isdisjoint(n):
            touched[-1] *= lp.extent
        out.append(log_feature(float(touched.sum())))
    return out + [0.0] * (max_loops - len(out))


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


__all__ = ["FEATURE_SCHEMA_VERSION", "N_STATIC", "OP_CATEGORIES", "StageStructure", "feature_names",
           "log_feature", "loop_footprints", "schedule_features"]
