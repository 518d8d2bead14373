"""What each compute stage computes: arithmetic, reductions, memory accesses.

These facts depend only on the ops of a state, not on its loop schedule, so
the featurizer computes them once per stage structure of a task and reuses
them for every state with that structure. Counts include the stages inlined
into a stage, as often as the stage reads them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

import numpy as np
import tvm
from tvm import te

from ..core.features import OP_CATEGORIES
from ..core.looptree import base_names
from .compat import IF_THEN_ELSE, Call, ProducerLoad, expr_dtype, post_order_visit, tir

CATEGORY_INDEX = {name: i for i, name in enumerate(OP_CATEGORIES)}
_BINARY = {
    tir.Add: "add",
    tir.Sub: "add",
    tir.Mul: "mul",
    tir.Div: "div",
    tir.FloorDiv: "div",
    tir.Mod: "mod",
    tir.FloorMod: "mod",
    tir.Min: "minmax",
    tir.Max: "minmax",
}
_COMPARE = (tir.EQ, tir.NE, tir.LT, tir.LE, tir.GT, tir.GE)
_LOGIC = (tir.And, tir.Or, tir.Not)

# One access: the base names of the variables in all its indices, and in its last index.
Access = Tuple[FrozenSet[str], FrozenSet[str]]


@dataclass
class OpSummary:
    """What one op computes, before any inlining."""

    name: str
    counts: np.ndarray  # (len(OP_CATEGORIES),) per output element
    spatial: Tuple[str, ...]  # axis base names, in order
    reduce: FrozenSet[str]
    reduce_size: int
    out_elems: int
    dtype_bits: int
    reads: List[Tuple[te.Operation, List[FrozenSet[str]]]] = field(default_factory=list)


def op_category(node) -> Optional[str]:
    """The arithmetic category (of :data:`OP_CATEGORIES`) a TIR expression node counts in."""
    kind = _BINARY.get(type(node))
    if kind is not None:
        is_float = expr_dtype(node).startswith(("float", "bfloat"))
        if kind == "add":
            return "float_add" if is_float else "int_add"
        if kind == "mul":
            return "float_mul" if is_float else "int_mul"
        if kind == "minmax":
            return "float_minmax" if is_float else "int_add"
        if kind == "div":
            return "float_div" if is_float else "int_divmod"
        return "int_divmod"
    if isinstance(node, _COMPARE):
        return "compare"
    if isinstance(node, _LOGIC):
        return "logic"
    if isinstance(node, tir.Select):
        return "select"
    if isinstance(node, Call):
        return "select" if node.op.name in IF_THEN_ELSE else "math_call"
    if isinstance(node, tir.Cast):
        return "cast"
    if isinstance(node, ProducerLoad):
        return "load"
    return None


def _var_names(expr) -> FrozenSet[str]:
    names = set()

    def visit(node):
        if isinstance(node, tir.Var):
            names.update(base_names(node.name))

    post_order_visit(expr, visit)
    return frozenset(names)


def extent_product(values, analyzer=None) -> int:
    """Product of extents; a symbolic extent counts as its largest value (1 if unbounded)."""
    out = 1
    for v in values:
        if not isinstance(v, (int, tir.IntImm)):
            analyzer = analyzer or tvm.arith.Analyzer()
            v = analyzer.simplify(v)
            if not isinstance(v, tir.IntImm):
                bound = analyzer.const_int_bound(v).max_value
                v = bound if 0 < bound < 2**40 else 1
        out *= int(v)
    return out


def summarize_op(op: te.Operation) -> Optional[OpSummary]:
    """Summarize a ``ComputeOp``; None for placeholders and extern ops."""
    if not isinstance(op, te.ComputeOp):
        return None
    counts = np.zeros(len(OP_CATEGORIES), dtype=np.float64)
    reads: List[Tuple[te.Operation, List[FrozenSet[str]]]] = []

    def visit(node):
        cat = op_category(node)
        if cat is not None:
            counts[CATEGORY_INDEX[cat]] += 1
        if isinstance(node, ProducerLoad):
            reads.append((node.producer.op, [_var_names(i) for i in node.indices]))

    body = op.body[0]
    if isinstance(body, tir.Reduce):
        combiner = body.combiner.result[0]
        cat = op_category(combiner)
        if cat is not None:
            counts[CATEGORY_INDEX[cat]] += 1
    post_order_visit(body, visit)
    out = op.output(0)
    analyzer = tvm.arith.Analyzer()
    for iv in op.axis:  # reduce extents may depend on the output axes (adaptive pooling)
        analyzer.bind(iv.var, iv.dom)
    return OpSummary(
        name=op.name,
        counts=counts,
        spatial=tuple(n for iv in op.axis for n in base_names(iv.var.name)),
        reduce=frozenset(n for iv in op.reduce_axis for n in base_names(iv.var.name)),
        reduce_size=extent_product((iv.dom.extent for iv in op.reduce_axis), analyzer),
        out_elems=extent_product(out.shape),
        dtype_bits=int(tvm_dtype_bits(out.dtype)),
        reads=reads,
    )


def tvm_dtype_bits(dtype: str) -> int:
    """Bits of a scalar dtype string such as ``float32`` or ``int8``."""
    digits = "".join(c for c in dtype if c.isdigit())
    return int(digits) if digits else 32


@dataclass
class StageSummary:
    """A non-inlined stage with the stages inlined into it folded in."""

    op: OpSummary
    counts: np.ndarray
    accesses: List[Access]  # reads of non-inlined tensors, in this stage's variables
    producers: List[int]  # stage indices of non-inlined compute producers
    n_inputs: int
    n_inlined: int


def summarize_stages(
    ops: Sequence[te.Operation], inlined: Sequence[bool]
) -> Dict[int, StageSummary]:
    """Fold inlined stages into their consumers.

    Parameters
    ----------
    ops : sequence of te.Operation
        The op of each stage of a state, by stage index.
    inlined : sequence of bool
        Whether each stage is inlined (``compute_at == 1``).

    Returns
    -------
    dict
        Stage index -> :class:`StageSummary` for every non-inlined compute stage.
    """
    handles = {op.handle.value: i for i, op in enumerate(ops)}
    names = {op.name: i for i, op in enumerate(ops)}
    cache: Dict[int, Optional[OpSummary]] = {}

    def summary(i: int) -> Optional[OpSummary]:
        if i not in cache:
            cache[i] = summarize_op(ops[i])
        return cache[i]

    def stage_of(op: te.Operation) -> Optional[int]:
        i = handles.get(op.handle.value)
        return names.get(op.name) if i is None else i

    out: Dict[int, StageSummary] = {}
    for i, op in enumerate(ops):
        s = summary(i)
        if s is None or inlined[i]:
            continue
        counts = s.counts.copy()
        accesses: List[Access] = []
        producers: List[int] = []
        inputs = set()
        n_inlined = 0
        # (op summary, read list, mapping of that op's axis names to this stage's names)
        todo = [(s, None)]
        while todo:
            cur, mapping = todo.pop()
            for prod_op, index_vars in cur.reads:
                if mapping is not None:
                    index_vars = [frozenset().union(*[mapping.get(n, {n}) for n in v]) if v else v
                                  for v in index_vars]
                j = stage_of(prod_op)
                ps = summary(j) if j is not None else None
                if j is not None and ps is not None and inlined[j]:
                    n_inlined += 1
                    counts += ps.counts
                    sub = {name: index_vars[k] for k, name in enumerate(ps.spatial)
                           if k < len(index_vars)}
                    todo.append((ps, sub))
                    continue
                inputs.add(j if j is not None else prod_op.name)
                allv = frozenset().union(*index_vars) if index_vars else frozenset()
                last = index_vars[-1] if index_vars else frozenset()
                accesses.append((allv, last))
                if j is not None and ps is not None and j not in producers:
                    producers.append(j)
        out[i] = StageSummary(s, counts, accesses, producers, len(inputs), n_inlined)
    return out
