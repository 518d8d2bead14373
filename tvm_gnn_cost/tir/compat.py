"""TIR across TVM versions: the node classes and the visitor the graph builders match on.

TVM 0.19 (the project's pinned stack) keeps TIR in ``tvm.tir``. apache-tvm 0.25+ moved it to
``tvm.tirx``, its blocks to ``tvm.s_tir`` (``SBlock``, ``SBlockRealize``), loads to
``tvm.ir.expr.TensorLoad`` (buffer in ``.source``), made buffers ``Var`` s, and has no Python
``post_order_visit``. Everything version-specific about reading TIR lives here::

    from .compat import tir, Block, BufferLoad, post_order_visit
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple

try:  # apache-tvm >= 0.25
    from tvm_ffi import structural_hash
    from tvm import tirx as tir
    from tvm.ir.expr import Call
    from tvm.ir.expr import TensorLoad as BufferLoad
    from tvm.s_tir import SBlock as Block
    from tvm.s_tir import SBlockRealize as BlockRealize
    from tvm.s_tir import Schedule

    MODERN = True
except ImportError:  # TVM 0.19
    from tvm import tir
    from tvm.ir import structural_hash

    Call, BufferLoad, Block, BlockRealize = tir.Call, tir.BufferLoad, tir.Block, tir.BlockRealize
    Schedule = tir.Schedule
    MODERN = False

#: Loads of TE tensors (``te.compute`` bodies, read by the Ansor featurizer); () where absent.
ProducerLoad = getattr(tir, "ProducerLoad", ())
#: Op names of ``if_then_else`` (``tir.`` on 0.19, ``prim.`` on apache-tvm 0.27).
IF_THEN_ELSE = ("tir.if_then_else", "prim.if_then_else")


def expr_dtype(expr) -> str:
    """The dtype of a primitive expression, such as ``float32``."""
    return str(expr.ty.dtype) if MODERN else str(expr.dtype)


def load_buffer(load):
    """The buffer a ``BufferLoad`` reads."""
    return load.source if MODERN else load.buffer


def region_buffer(region):
    """The buffer of a block's read or write region."""
    return region.source if MODERN else region.buffer


# Fields that hold sub-expressions or sub-statements (a TensorLoad's ``source`` is its buffer,
# not an expression read: left out, as TVM 0.19's visitor does).
_CHILD_FIELDS = ("a", "b", "value", "condition", "true_value", "false_value", "args", "indices",
                 "base", "stride", "seq", "init", "body", "then_case", "else_case", "block")
_FIELDS_OF: Dict[type, Tuple[str, ...]] = {}


def _fields(cls: type, node) -> Tuple[str, ...]:
    fields = _FIELDS_OF.get(cls)
    if fields is None:
        fields = _FIELDS_OF[cls] = tuple(f for f in _CHILD_FIELDS if hasattr(node, f))
    return fields


def _python_post_order_visit(node, fvisit: Callable[[object], None]) -> None:
    """Call ``fvisit`` on every expression and statement under ``node``, children first,
    in the order of TVM 0.19's ``post_order_visit``."""
    from tvm_ffi import Array, Object

    stack: List[Tuple[object, bool]] = [(node, False)]
    while stack:
        current, expanded = stack.pop()
        if expanded:
            fvisit(current)
            continue
        stack.append((current, True))
        children: List[object] = []
        for name in _fields(type(current), current):
            child = getattr(current, name)
            if isinstance(child, Array):
                children.extend(child)
            elif isinstance(child, Object):
                children.append(child)
        stack.extend((c, False) for c in reversed(children) if isinstance(c, Object))


post_order_visit = _python_post_order_visit if MODERN else tir.stmt_functor.post_order_visit

__all__ = ["MODERN", "tir", "Block", "BlockRealize", "BufferLoad", "Call", "ProducerLoad",
           "Schedule", "IF_THEN_ELSE", "expr_dtype", "load_buffer", "region_buffer",
           "post_order_visit", "structural_hash"]
