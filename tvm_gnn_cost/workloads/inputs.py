"""What a network is fed when its build is checked: random values over the range each input
accepts.

A float input is drawn from [0, 1). An integer input that indexes a table (an embedding:
torch's ``Embedding``, ONNX's ``Gather``, both Relay's ``take``; or ``gather``) is drawn
over the table's rows, so that a token-id model's check reads its whole embedding and not
two of its rows; another integer input (a mask, say) is 0 or 1. ``--input-range`` sets any
input's range.
"""
from __future__ import annotations

import logging
import re
from typing import Dict, Optional, Tuple

import numpy as np

logger = logging.getLogger("tvm_gnn_cost")

#: (low, high): values drawn from low (inclusive) to high (exclusive), as numpy draws them.
InputRange = Tuple[float, float]

FLOAT_RANGE: InputRange = (0.0, 1.0)
#: An integer input that indexes no table: a mask, a flag.
INT_RANGE: InputRange = (0, 2)

# Ops an index passes through unchanged on its way to the table it indexes.
_PASS_THROUGH = {"cast", "reshape", "expand_dims", "squeeze", "transpose", "copy",
                 "layout_transform", "reverse_reshape", "annotation.stop_fusion"}
_RANGE = re.compile(r"([^\s\[\]]+?)\s*:\s*(-?[0-9.eE+-]+)\s*:\s*(-?[0-9.eE+-]+)")


def parse_input_ranges(text: Optional[str]) -> Dict[str, InputRange]:
    """``"ids:0:30522 x:-1:1"`` (``--input-range``) as a dict: each input's values drawn from
    the first number (inclusive) to the second (exclusive)."""
    if not text:
        return {}
    found = _RANGE.findall(text)
    if not found or _RANGE.sub("", text).strip():
        raise ValueError(f"--input-range takes NAME:LOW:HIGH separated by spaces, values drawn "
                         f"from LOW up to, not including, HIGH (for example 'ids:0:30522'); "
                         f"got {text!r}")
    out = {}
    for name, low, high in found:
        low, high = float(low), float(high)
        if not high > low:
            raise ValueError(f"--input-range {name}:{low:g}:{high:g}: HIGH must be above LOW")
        out[name] = (low, high)
    return out


def table_rows(mod) -> Dict[str, int]:
    """For each input of the Relay module ``mod`` that indexes a table (``take``, ``gather``),
    the rows of the smallest table it indexes."""
    import tvm
    from tvm import relay

    mod = relay.transform.InferType()(mod)
    found: Dict[str, int] = {}

    def index_var(expr):
        while isinstance(expr, relay.Call):
            op = getattr(expr.op, "name", "")
            if op == "where":  # ONNX's Gather: where(i < 0, i + rows, i)
                expr = expr.args[2]
            elif op in _PASS_THROUGH:
                expr = expr.args[0]
            else:
                break
        return expr.name_hint if isinstance(expr, relay.Var) else None

    def visit(expr):
        if not isinstance(expr, relay.Call) or not isinstance(expr.op, tvm.ir.Op):
            return
        if expr.op.name == "take" and expr.attrs.axis is not None:
            data, indices, axis = expr.args[0], expr.args[1], int(expr.attrs.axis)
        elif expr.op.name == "gather":
            data, indices, axis = expr.args[0], expr.args[1], int(expr.attrs.axis)
        else:
            return
        name = index_var(indices)
        shape = data.checked_type.shape
        if name is None or not shape:
            return
        rows = shape[axis]
        if isinstance(rows, tvm.tir.IntImm):
            found[name] = min(found.get(name, int(rows)), int(rows))

    relay.analysis.post_order_visit(mod["main"], visit)
    return found


def input_ranges(inputs: Dict[str, Tuple[Tuple[int, ...], str]], mod=None,
                 given: Optional[Dict[str, InputRange]] = None,
                 rows: Optional[Dict[str, int]] = None) -> Dict[str, InputRange]:
    """The range each of ``inputs`` (name -> (shape, dtype)) is drawn from: ``given``'s, else
    over the table it indexes (``rows``, or :func:`table_rows` of ``mod``, a Relay module, if
    any), else :data:`FLOAT_RANGE` or :data:`INT_RANGE`.

    Raises
    ------
    ValueError
        If ``given`` names an input the model does not have.
    """
    given = dict(given or {})
    unknown = sorted(set(given) - set(inputs))
    if unknown:
        raise ValueError(f"--input-range names {unknown}, which the model does not take; its "
                         f"inputs: {list(inputs)}")
    if rows is None:
        rows = table_rows(mod) if mod is not None and any(
            "int" in dtype for _, dtype in inputs.values()) else {}
    out = {}
    for name, (_, dtype) in inputs.items():
        if name in given:
            out[name] = given[name]
        elif "int" not in dtype:
            out[name] = FLOAT_RANGE
        elif name in rows:
            out[name] = (0, rows[name])
        else:
            out[name] = INT_RANGE
            logger.info("integer input %r indexes no table: checked with 0 and 1 (--input-range "
                        "%s:LOW:HIGH sets its values)", name, name)
    return out


def random_inputs(inputs: Dict[str, Tuple[Tuple[int, ...], str]], seed: int = 0,
                  ranges: Optional[Dict[str, InputRange]] = None) -> Dict[str, np.ndarray]:
    """Inputs of the given (shape, dtype), each drawn uniformly over its range in ``ranges``
    (default :data:`FLOAT_RANGE`, :data:`INT_RANGE` for integers)."""
    rng = np.random.default_rng(seed)
    ranges = ranges or {}
    feeds = {}
    for name, (shape, dtype) in inputs.items():
        integer = "int" in dtype
        low, high = ranges.get(name, INT_RANGE if integer else FLOAT_RANGE)
        values = (rng.integers(int(low), int(high), size=shape) if integer
                  else rng.uniform(low, high, size=shape))
        feeds[name] = values.astype(dtype)
    return feeds


__all__ = ["FLOAT_RANGE", "INT_RANGE", "InputRange", "input_ranges", "parse_input_ranges",
           "random_inputs", "table_rows"]
