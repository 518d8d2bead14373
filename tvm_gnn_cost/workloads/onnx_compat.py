"""ONNX graphs as TVM 0.19's Relay frontend reads them correctly.

From opset 18 (``ReduceSum``: 13) a reduction takes its axes as a second input instead of
an attribute, and that is what ``torch.onnx.export`` writes by default (opset 18 and
later). TVM 0.19's Relay frontend mishandles it: ``ReduceMean`` and its kin keep only the
first of several axes (a global average pool over ``(2, 3)`` becomes one over ``2``, a
shape error or a wrong result), and ``ReduceL1``, ``ReduceL2``, ``ReduceSumSquare`` and
``ReduceLogSum`` pass the axes on as a second argument to ``sum`` (``TypeError``). The
frontend reads the axes attribute of the older opsets correctly in every one of them, so
:func:`reduce_axes_as_attributes` moves constant axes back into that attribute. The model
checker then finds an attribute its opset does not define; :data:`CHECKER_WARNING` is the
warning the frontend turns that into.
"""
from __future__ import annotations

import re

import numpy as np

REDUCTIONS = frozenset({
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
    "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare"})

#: The checker's warning for an ``axes`` attribute that the model's opset moved to an input.
CHECKER_WARNING = re.compile(r"(?s).*Unrecognized attribute: axes for operator Reduce")


def reduce_axes_as_attributes(model) -> int:
    """Move every reduction's constant ``axes`` input into an ``axes`` attribute, in place.

    Parameters
    ----------
    model : onnx.ModelProto
        Changed in place; axes that are computed at run time are left as they are (the
        frontend refuses them with its own error).

    Returns
    -------
    int
        How many nodes were changed.
    """
    import onnx
    from onnx import numpy_helper

    constants = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            constants[node.output[0]] = node.attribute[0].t
    changed = 0
    for node in model.graph.node:
        if node.op_type not in REDUCTIONS or len(node.input) < 2:
            continue
        name = node.input[1]
        if name and name not in constants:
            continue
        axes = ([int(a) for a in np.asarray(numpy_helper.to_array(constants[name])).ravel()]
                if name else [])
        noop = any(a.name == "noop_with_empty_axes" and a.i for a in node.attribute)
        kept = [a for a in node.attribute if a.name not in ("axes", "noop_with_empty_axes")]
        del node.input[1:]
        del node.attribute[:]
        if not axes and noop:  # the reduction is the identity
            node.op_type = "Identity"
        else:
            node.attribute.extend(kept)
            if axes:  # no axes: every axis, the frontend's default without the attribute
                node.attribute.append(onnx.helper.make_attribute("axes", axes))
        changed += 1
    return changed


__all__ = ["REDUCTIONS", "CHECKER_WARNING", "reduce_axes_as_attributes"]
