"""Ansor's layout rewrite, where TVM 0.19 can do it, and a dense that it can.

On a CPU, Ansor tunes a network's operators for weights stored in the layout their schedule
reads best (``REWRITE_FOR_PRE_TRANSFORMED``) and the build rewrites the weights to match. In
TVM 0.19 that fails for the matrix products of fully connected layers: every schedule of a
``dense`` task fails to build (``IndexRewriter``: ``Check failed: name_it !=
name_to_arg.end()``), and a ``batch_matmul`` whose weight is broadcast over the batch (what
every ``torch.nn.Linear`` on a 3-D input becomes) tunes, then breaks ``relay.build``
(``ValueError: The indices must be expression``). Those tasks are tuned without the rewrite,
and :class:`tvm_gnn_cost.ansor.build.ApplyBest` builds them without it; convolutions keep
it.

The ``dense`` failure is TVM 0.19's ``topi.nn.matmul``, which ``dense`` calls: its compute
takes ``*indices``, so TE names the output's axes ``i0`` and ``i1``. Ansor writes a rewritten
layout as a string of extents and axis names (``"8i16k"``) and reads it back as digits and
letters, so an axis named with a digit cannot be written (``8i1`` reads as 8 of ``i``, then 1
of the next): the rewriter then looks for an axis ``i`` the weight is not indexed by, and
fails. :func:`use_rewritable_dense` gives Relay's CPU dense strategy, when the auto-scheduler
is on, a compute of the same arithmetic whose axes are named ``i``, ``j`` and ``k``, the names
its layout-rewrite path expects.
"""
from __future__ import annotations

import functools
import re
from typing import FrozenSet, Iterable, List, Tuple

from tvm import auto_scheduler, te, tir
from tvm.auto_scheduler.compute_dag import LayoutRewriteOption

#: Fused operators (task names) whose layout rewrite TVM 0.19 cannot build: a ``batch_matmul``
#: (its second operand, where it is a weight, became a ``dense`` by
#: :func:`broadcast_weights_to_dense`) and ``matmul`` (``topi.nn.matmul``'s axes ``i0``,
#: ``i1``); ``dense`` is :func:`rewritable_dense`, which can.
NO_REWRITE_OPS = re.compile(r"nn_(batch_matmul|matmul)")


def without_broken_rewrite(tasks: Iterable) -> Tuple[List, FrozenSet[str]]:
    """``tasks`` with the layout rewrite turned off where it breaks, and their workload keys."""
    out, keys = [], set()
    for t in tasks:
        if (t.layout_rewrite_option != LayoutRewriteOption.NO_REWRITE
                and NO_REWRITE_OPS.search(t.desc or "")):
            t = auto_scheduler.SearchTask(
                workload_key=t.workload_key, target=t.target, hardware_params=t.hardware_params,
                layout_rewrite_option=LayoutRewriteOption.NO_REWRITE,
                task_inputs=list(t.task_input_names), desc=t.desc)
            keys.add(t.workload_key)
        out.append(t)
    return out, frozenset(keys)


def rewritable_dense(data, weight, bias=None, out_dtype=None, auto_scheduler_rewritten_layout=""):
    """``data @ weight.T`` as ``topi.nn.dense`` computes it, its axes named ``i``, ``j`` and
    ``k`` so that Ansor can rewrite the weight's layout (see the module's docstring)."""
    out_dtype = out_dtype or data.dtype
    rows, reduce = data.shape
    if auto_scheduler_rewritten_layout:
        cols, _ = auto_scheduler.get_shape_from_rewritten_layout(
            auto_scheduler_rewritten_layout, ["j", "k"])
        auto_scheduler.remove_index_check(weight)
    else:
        cols = weight.shape[0]
    k = te.reduce_axis((0, reduce), name="k")
    out = te.compute(
        (rows, cols),
        lambda i, j: te.sum(data[i, k].astype(out_dtype) * weight[j, k].astype(out_dtype), axis=k),
        name="T_dense", tag="dense", attrs={"layout_free_placeholders": [weight]})
    if auto_scheduler_rewritten_layout:
        out = auto_scheduler.rewrite_compute_body(out, auto_scheduler_rewritten_layout)
    if bias is not None:
        out = te.compute(out.shape, lambda i, j: out[i, j] + bias[j].astype(out_dtype),
                         name="T_add", tag="broadcast")
    return out


@functools.lru_cache(maxsize=None)  # registered once a process
def use_rewritable_dense() -> None:
    """Make Relay's CPU ``dense`` strategy, while the auto-scheduler is on, compute with
    :func:`rewritable_dense`. Elsewhere (AutoTVM, default schedules) the strategy is TVM's
    own."""
    from tvm.relay.op import strategy
    from tvm.relay.op.strategy.generic import naive_schedule, wrap_compute_dense

    tvm_own = strategy.x86.dense_strategy_cpu

    def dense_strategy_cpu(attrs, inputs, out_type, target):
        chosen = tvm_own(attrs, inputs, out_type, target)
        static = all(isinstance(d, (int, tir.IntImm))
                     for d in (*inputs[0].shape, *inputs[1].shape))
        if auto_scheduler.is_auto_scheduler_enabled() and static:
            chosen.add_implementation(
                wrap_compute_dense(rewritable_dense, need_auto_scheduler_layout=True),
                naive_schedule, name="dense.tvm_gnn_cost", plevel=12)  # above TVM's (11)
        return chosen

    strategy.dense_strategy.register("cpu", override=True)(dense_strategy_cpu)


def broadcast_weights_to_dense(mod):
    """``mod`` with each ``batch_matmul`` whose second operand is one 2-D matrix broadcast over
    the batch (what Relay's PyTorch frontend makes of a ``torch.nn.Linear`` on a 3-D input)
    written as the ``dense`` it is: the batch and rows flattened, multiplied by the matrix,
    reshaped back. A ``dense`` weight is a constant whose layout Ansor rewrites; a broadcast
    ``batch_matmul`` operand is not (TVM 0.19's build fails on it, ``The indices must be
    expression``)."""
    from tvm import relay
    from tvm.relay.dataflow_pattern import (DFPatternCallback, is_op, rewrite, wildcard)

    class ToDense(DFPatternCallback):
        def __init__(self):
            super().__init__()
            self.x, self.w = wildcard(), wildcard()
            shared = is_op("broadcast_to")(self.w)
            self.pattern = is_op("nn.batch_matmul")(self.x, is_op("reshape")(shared) | shared)

        def callback(self, pre, post, node_map):
            x, w = node_map[self.x][0], node_map[self.w][0]
            out_shape = [int(d) for d in pre.checked_type.shape]
            if (len(w.checked_type.shape) != 2 or pre.attrs.transpose_a
                    or len(out_shape) != 3):
                return post
            k = int(x.checked_type.shape[-1])
            weight = w if pre.attrs.transpose_b else relay.transpose(w, [1, 0])  # [N, K]
            flat = relay.nn.dense(relay.reshape(x, [-1, k]), weight,
                                  out_dtype=pre.attrs.out_dtype)
            return relay.reshape(flat, out_shape)

    mod = relay.transform.InferType()(mod)
    mod["main"] = rewrite(ToDense(), mod["main"])
    return relay.transform.InferType()(mod)


__all__ = ["NO_REWRITE_OPS", "broadcast_weights_to_dense", "rewritable_dense",
           "use_rewritable_dense", "without_broken_rewrite"]
