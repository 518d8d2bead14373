"""Ansor's layout rewrite, where TVM 0.19 can do it.

On a CPU, Ansor tunes a network's operators for weights stored in the layout their schedule
reads best (``REWRITE_FOR_PRE_TRANSFORMED``) and the build rewrites the weights to match. In
TVM 0.19 that fails for the matrix products of fully connected layers: every schedule of a
``dense`` task fails to build (``IndexRewriter``: ``Check failed: name_it !=
name_to_arg.end()``), and a ``batch_matmul`` whose weight is broadcast over the batch (what
every ``torch.nn.Linear`` on a 3-D input becomes) tunes, then breaks ``relay.build``
(``ValueError: The indices must be expression``). Those tasks are tuned without the rewrite,
and :class:`tvm_gnn_cost.ansor.build.ApplyBest` builds them without it; convolutions keep
it.
"""
from __future__ import annotations

import re
from typing import FrozenSet, Iterable, List, Tuple

from tvm import auto_scheduler
from tvm.auto_scheduler.compute_dag import LayoutRewriteOption

#: Fused operators (task names) whose layout rewrite TVM 0.19 cannot build.
NO_REWRITE_OPS = re.compile(r"nn_(dense|batch_matmul|matmul)")


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


__all__ = ["NO_REWRITE_OPS", "without_broken_rewrite"]
