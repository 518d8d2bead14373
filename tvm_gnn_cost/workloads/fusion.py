"""Elementwise work moved next to the matrix product it follows, so that Relay fuses them.

Relay's frontends put a ``reshape`` after every ``dense`` on a 3-D input (the rows flattened
for the product, the batch restored after), and the bias and activation that follow come
after that ``reshape``. Relay fuses a ``dense`` with the elementwise operators right after
it, but not across a ``reshape``: the bias and the activation (GELU's ``erf`` chain) then run
as an untuned operator of their own, with TVM's default schedule, over the whole tensor again
(19% of a small ViT's time). :func:`sink_reshapes` moves such operators before the reshape:
``op(view(x), c) == view(op(x, c))`` when the view keeps the last axis and ``c`` is a scalar
or varies along the last axis only; and it drops the views that show a tensor in the shape it
has, and makes two views in a row one, so that no copy is left between two products.
"""
from __future__ import annotations

import numpy as np

#: Elementwise operators that commute with a reshape keeping the last axis.
UNARY = ("erf", "tanh", "sigmoid", "exp", "nn.relu", "negative", "sqrt", "rsqrt", "log",
         "clip", "fast_erf", "fast_tanh", "fast_exp", "nn.leaky_relu", "abs")
BINARY = ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum")
#: Operators that show a tensor in another shape without computing (``squeeze`` of no axis,
#: a ``broadcast_to`` of the shape it has: what the PyTorch frontend writes around a linear).
VIEWS = ("reshape", "squeeze", "broadcast_to", "contrib_reverse_reshape")


def _shape(expr):
    return tuple(int(d) for d in expr.checked_type.shape)


def _row(c, last: int):
    """``c`` as an operand of the tensor before the view: a scalar as it is, a tensor that
    varies along the last axis only as 1-D; None otherwise."""
    from tvm import relay

    shape = _shape(c)
    if not shape:
        return c
    if shape[-1] in (1, last) and all(d == 1 for d in shape[:-1]):
        return relay.reshape(c, [shape[-1]]) if len(shape) > 1 else c
    return None


def _is_view(expr) -> bool:
    from tvm import relay

    return isinstance(expr, relay.Call) and getattr(expr.op, "name", "") in VIEWS


def _size_kept(view) -> bool:
    """A view with as many elements as the tensor it shows (``broadcast_to`` may add some)."""
    return int(np.prod(_shape(view.args[0]))) == int(np.prod(_shape(view)))


def _keeps_rows(view) -> bool:
    """A view of the same size and last axis as the tensor it shows."""
    a, b = _shape(view.args[0]), _shape(view)
    return bool(a) and bool(b) and a[-1] == b[-1] and int(np.prod(a)) == int(np.prod(b))


def _moved(call):
    """``call`` (typed) with its elementwise operator moved before the view of its tensor
    operand, or None where it cannot be."""
    from tvm import relay

    name = getattr(call.op, "name", "")
    if name in VIEWS and _size_kept(call):
        inner = call.args[0]
        if _shape(inner) == _shape(call):
            return inner  # a view of the shape it has
        if _is_view(inner) and _size_kept(inner):
            return relay.reshape(inner.args[0], _shape(call))  # a view of a view: one
        return None
    if name not in UNARY + BINARY:
        return None
    out = _shape(call)
    args = list(call.args)
    if name in UNARY:
        if not (_is_view(args[0]) and _keeps_rows(args[0])):
            return None
        args[0] = args[0].args[0]
    else:
        views = [i for i, a in enumerate(args) if _is_view(a) and _keeps_rows(a)
                 and _shape(a) == out]
        if not views:
            return None
        i = views[0]
        other = args[1 - i]
        base = args[i].args[0]
        if 1 - i in views and _shape(other.args[0]) == _shape(base):
            other = other.args[0]  # two views of tensors of one shape
        elif _shape(other) == out:
            return None  # a whole tensor of the view's shape: no row operand
        else:
            other = _row(other, out[-1])
            if other is None:
                return None
        args[i], args[1 - i] = base, other
    return relay.reshape(relay.Call(call.op, args, call.attrs, call.type_args), out)


def sink_reshapes(mod, limit: int = 10_000):
    """``mod`` with every elementwise operator on a view (:data:`VIEWS`) of a tensor applied to
    the tensor before the view, where that keeps the result (see the module's docstring); one
    operator at a time, until none is left to move (at most ``limit``)."""
    from tvm import relay
    from tvm.relay.expr_functor import ExprMutator

    class Replace(ExprMutator):
        def __init__(self, old, new):
            super().__init__()
            self.old, self.new = old, new

        def visit(self, expr):
            return self.new if expr.same_as(self.old) else super().visit(expr)

    for _ in range(limit):
        mod = relay.transform.InferType()(mod)
        found = []

        def visit(expr):
            if not found and isinstance(expr, relay.Call):
                new = _moved(expr)
                if new is not None:
                    found.append((expr, new))

        relay.analysis.post_order_visit(mod["main"], visit)
        if not found:
            break
        mod["main"] = Replace(*found[0]).visit(mod["main"])
    mod = relay.transform.InferType()(mod)
    return relay.transform.SimplifyExpr()(mod)


__all__ = ["BINARY", "UNARY", "VIEWS", "sink_reshapes"]
