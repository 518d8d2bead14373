"""MetaSchedule programs (scheduled TIR) -> :class:`ProgramGraph`, in the Ansor featurizer's schema.

One node per leaf block (a block with no block inside it), with the same
columns as :mod:`..ansor.featurizer`: what the block computes (op counts of its
stored value, reduction, output size, dtype, inputs, memory scope) and how it
is scheduled (the loops around it, their kinds and extents, unrolling, access
patterns of its innermost loop). Edges follow the buffers: the block that
writes a buffer -> every block that reads it.

The loops are laid out as Ansor's printer lays out a state: a loop belongs to
the last block under it, and the other blocks under it see it as a context
loop (they are computed at it). The schedule part of a node's features is
then :func:`..core.features.schedule_features` itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Set

import numpy as np

from ..core.config import FeaturizerConfig
from ..core.features import (OP_CATEGORIES, StageStructure, feature_names, log_feature,
                             schedule_features)
from ..core.graph import ProgramGraph
from ..core.looptree import ANNOTATIONS, Loop, LoopTree, Statement
from ..tir.compat import (Block, BlockRealize, BufferLoad, load_buffer, post_order_visit,
                          region_buffer, tir)
from ..tir.opstats import CATEGORY_INDEX, extent_product, op_category, tvm_dtype_bits

_KIND_ANNOTATION = {0: ANNOTATIONS["for"], 1: ANNOTATIONS["parallel"],
                    2: ANNOTATIONS["vectorize"], 3: ANNOTATIONS["unroll"]}
_UNROLL_KEYS = ("pragma_auto_unroll_max_step", "meta_schedule.unroll_explicit",
                "meta_schedule.unroll_implicit")


@dataclass
class _Block:
    """What the walk records of one leaf block."""

    name: str
    loops: List[int]  # indices into the tree's loops, outermost first
    counts: np.ndarray
    reduce: Set[str] = field(default_factory=set)
    spatial_last: Set[str] = field(default_factory=set)
    accesses: List[tuple] = field(default_factory=list)
    reads: List[object] = field(default_factory=list)  # tir.Buffer
    writes: List[object] = field(default_factory=list)
    reduce_size: int = 1
    out_elems: int = 1
    dtype_bits: int = 32
    scope: str = "global"
    auto_unroll: int = 0


def _int(x, default: int = 1) -> int:
    return int(x.value) if isinstance(x, tir.IntImm) else (int(x) if isinstance(x, int) else default)


def _unroll(annotations, current: int) -> int:
    """The auto-unroll step in force under a loop or block with these annotations."""
    if not len(annotations):  # most loops have none: one FFI call instead of three
        return current
    return max([_int(annotations[k], 0) for k in _UNROLL_KEYS if k in annotations] + [current])


def _vars(expr, loop_of: Dict[object, str]) -> frozenset:
    """Loop names of the loop variables in ``expr``."""
    found = set()

    def visit(node):
        if isinstance(node, tir.Var) and node in loop_of:
            found.add(loop_of[node])

    post_order_visit(expr, visit)
    return frozenset(found)


class _Walker:
    """Walks a PrimFunc once, collecting loops and leaf blocks in program order."""

    def __init__(self):
        self.tree = LoopTree()
        self.blocks: List[_Block] = []
        self.stack: List[int] = []  # loop indices
        self.loop_of: Dict[object, str] = {}  # loop var -> loop name
        self.unroll: List[int] = [0]

    def walk(self, stmt) -> None:
        if isinstance(stmt, tir.For):
            self._for(stmt)
        elif isinstance(stmt, BlockRealize):
            self._block(stmt)
        elif isinstance(stmt, tir.SeqStmt):
            for s in stmt.seq:
                self.walk(s)
        elif isinstance(stmt, tir.IfThenElse):
            self.walk(stmt.then_case)
            if stmt.else_case is not None:
                self.walk(stmt.else_case)
        elif hasattr(stmt, "body") and isinstance(getattr(stmt, "body"), tir.Stmt):
            self.walk(stmt.body)  # LetStmt, AttrStmt, Allocate, DeclBuffer, ...

    def _for(self, loop: tir.For) -> None:
        extent = _int(loop.extent)
        ann = _KIND_ANNOTATION.get(int(loop.kind), 0)
        if int(loop.kind) == 4 and loop.thread_binding is not None:  # thread binding
            ann = ANNOTATIONS.get(str(loop.thread_binding.thread_tag), ANNOTATIONS["vthread"])
        self.unroll.append(_unroll(loop.annotations, self.unroll[-1]))
        index = None
        if extent != 1:  # Ansor's printer leaves out loops of extent 1 too
            index = len(self.tree.loops)
            name = f"L{index}"
            self.tree.loops.append(Loop(name, ann, extent))
            self.loop_of[loop.loop_var] = name
            self.stack.append(index)
        first = len(self.blocks)
        self.walk(loop.body)
        if index is not None:
            self.stack.pop()
            # The loop belongs to the last block under it, as in Ansor's printout.
            self.tree.loops[index].owner = len(self.blocks) - 1 if len(self.blocks) > first else -1
        self.unroll.pop()

    def _block(self, realize: BlockRealize) -> None:
        block = realize.block
        unroll = _unroll(block.annotations, self.unroll[-1])
        self.unroll.append(unroll)
        # Block iterators -> the loop names their bindings use.
        iter_loops = {}
        reduce: Set[str] = set()
        for iv, value in zip(block.iter_vars, realize.iter_values):
            names = _vars(value, self.loop_of)
            iter_loops[iv.var] = names
            if int(iv.iter_type) == 2:  # CommReduce
                reduce |= names
        first = len(self.blocks)
        self.walk(block.body)  # statements only: cheap on a leaf's body
        if len(self.blocks) == first:  # no block inside: a leaf
            self._leaf(block, iter_loops, reduce, unroll)
        self.unroll.pop()

    def _leaf(self, block: Block, iter_loops, reduce: Set[str], unroll: int) -> None:
        counts = np.zeros(len(OP_CATEGORIES))
        writes = [region_buffer(r) for r in block.writes]
        node = _Block(block.name_hint, list(self.stack), counts, reduce=reduce,
                      writes=writes, auto_unroll=unroll)

        def names_of(expr) -> frozenset:
            out = set()

            def visit(n):
                if isinstance(n, tir.Var) and n in iter_loops:
                    out.update(iter_loops[n])
                elif isinstance(n, tir.Var) and n in self.loop_of:
                    out.add(self.loop_of[n])

            post_order_visit(expr, visit)
            return frozenset(out)

        stores = []
        post_order_visit(
            block.body, lambda n: stores.append(n) if isinstance(n, tir.BufferStore) else None)
        written = {s.buffer for s in stores} | set(writes)

        def visit(n):
            if isinstance(n, BufferLoad):
                buffer = load_buffer(n)
                if buffer in written:  # the accumulator of a reduction
                    return
                counts[CATEGORY_INDEX["load"]] += 1
                index_names = [names_of(i) for i in n.indices]
                allv = frozenset().union(*index_names) if index_names else frozenset()
                node.accesses.append((allv, index_names[-1] if index_names else frozenset()))
                if buffer not in node.reads:
                    node.reads.append(buffer)
                return
            cat = op_category(n)
            if cat is not None:
                counts[CATEGORY_INDEX[cat]] += 1

        for s in stores:
            post_order_visit(s.value, visit)
        if stores:
            out = stores[-1]
            node.spatial_last = set(names_of(out.indices[-1])) if len(out.indices) else set()
            node.out_elems = extent_product(out.buffer.shape)
            node.dtype_bits = tvm_dtype_bits(str(out.buffer.dtype))
            node.scope = str(out.buffer.scope())
        node.reduce_size = extent_product(
            iv.dom.extent for iv in block.iter_vars if int(iv.iter_type) == 2)
        self.tree.statements.append(Statement(node.name, node.loops, unroll))
        self.blocks.append(node)


def _static(b: _Block, n_inputs: int) -> List[float]:
    # The columns of featurizer._static_features; MetaSchedule has inlined into the block
    # already, so its op counts include the inlined producers (n_inlined is unknown: 0).
    f = [log_feature(c) for c in b.counts]
    f += [float(bool(b.reduce)), log_feature(b.reduce_size), log_feature(b.out_elems), b.dtype_bits / 32.0,
          float(n_inputs), 0.0, float(b.scope.startswith("shared")),
          float(b.scope.startswith("local")), float("rf" in b.name)]
    return f


def featurize_prim_func(func: tir.PrimFunc, max_loops: int = 8) -> ProgramGraph:
    """The graph of one scheduled PrimFunc: its leaf blocks and the buffers between them."""
    walker = _Walker()
    walker.walk(func.body)
    blocks = walker.blocks
    if not blocks:
        return ProgramGraph.invalid(len(_names(max_loops)))
    writer: Dict[object, List[int]] = {}
    for i, b in enumerate(blocks):
        for buf in b.writes:
            writer.setdefault(buf, []).append(i)
    edges: Dict[tuple, None] = {}  # (producer, consumer), first-seen order
    for j, b in enumerate(blocks):
        for buf in b.reads:
            for i in writer.get(buf, []):
                if i != j:
                    edges[(i, j)] = None
    src = [i for i, _ in edges]
    dst = [j for _, j in edges]
    struct = StageStructure(
        static=np.array([_static(b, len(b.reads)) for b in blocks], dtype=np.float32),
        src=np.array(src, dtype=np.int64),
        dst=np.array(dst, dtype=np.int64),
        reduce=[frozenset(b.reduce) for b in blocks],
        spatial_last=[frozenset(b.spatial_last) for b in blocks],
        accesses=[b.accesses for b in blocks],
        float_ops=np.array([float(b.counts[:4].sum()) for b in blocks]),
    )
    sched = np.array([schedule_features(walker.tree, i, struct, max_loops)
                      for i in range(len(blocks))], dtype=np.float32)
    return ProgramGraph(np.concatenate([struct.static, sched], axis=1), struct.src, struct.dst)


def _names(max_loops: int) -> List[str]:
    return feature_names(FeaturizerConfig(max_loops=max_loops))


def featurize_module(mod, max_loops: int = 8) -> ProgramGraph:
    """The graph of a scheduled IRModule (``MeasureCandidate.sch.mod``): its PrimFuncs joined."""
    funcs = [f for _, f in mod.functions.items() if isinstance(f, tir.PrimFunc)]
    graphs = [featurize_prim_func(f, max_loops) for f in funcs]
    graphs = [g for g in graphs if g.valid]
    if not graphs:
        return ProgramGraph.invalid(len(_names(max_loops)))
    if len(graphs) == 1:
        return graphs[0]
    offsets = np.cumsum([0] + [g.num_nodes for g in graphs[:-1]])
    return ProgramGraph(np.concatenate([g.features for g in graphs]),
                        np.concatenate([g.src + o for g, o in zip(graphs, offsets)]),
                        np.concatenate([g.dst + o for g, o in zip(graphs, offsets)]))


__all__ = ["featurize_module", "featurize_prim_func"]
