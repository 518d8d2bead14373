"""Small built-in workloads (TE), registered with Ansor so their logs can be read back. Imports on
apache-tvm without Ansor too (MetaSchedule builds the same operators)."""
from __future__ import annotations

import logging
from typing import List

from tvm import te, topi

try:
    from tvm import auto_scheduler
except ImportError:  # apache-tvm >= 0.20 has no Ansor
    auto_scheduler = None

logger = logging.getLogger("tvm_gnn_cost")


def _ansor_workload(name: str):
    """Register a TE function with Ansor under ``name``, where Ansor exists."""
    return auto_scheduler.register_workload(name) if auto_scheduler else (lambda func: func)


@_ansor_workload("tvm_gnn_cost.matmul")
def matmul(n: int, m: int, k: int, dtype: str = "float32"):
    """``C[i, j] = sum_k A[i, k] * B[k, j]``."""
    a = te.placeholder((n, k), name="A", dtype=dtype)
    b = te.placeholder((k, m), name="B", dtype=dtype)
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((n, m), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    return [a, b, c]


@_ansor_workload("tvm_gnn_cost.conv2d_bias_relu")
def conv2d_bias_relu(n: int, h: int, w: int, ci: int, co: int, kernel: int, stride: int = 1,
                     pad: int = 1, dtype: str = "float32"):
    """NHWC conv2d, bias add and ReLU: the fused operator of a ResNet block."""
    data = te.placeholder((n, h, w, ci), name="data", dtype=dtype)
    weight = te.placeholder((kernel, kernel, ci, co), name="weight", dtype=dtype)
    bias = te.placeholder((co,), name="bias", dtype=dtype)
    conv = topi.nn.conv2d_nhwc(data, weight, stride, pad, 1)
    out = topi.nn.relu(topi.add(conv, bias))
    return [data, weight, bias, out]


#: The demo's operators (``make demo``, ``make demo-modern``): a 256^3 matmul and a
#: ResNet-style conv2d+bias+relu, each once.
DEMO = (("matmul", (256, 256, 256)), ("conv2d_bias_relu", (1, 14, 14, 64, 64, 3)))


def demo_tasks(target=None) -> List["auto_scheduler.SearchTask"]:
    """The Ansor tasks of :data:`DEMO`."""
    from .targets import host_target

    target = target or host_target()
    return [auto_scheduler.SearchTask(func=f"tvm_gnn_cost.{func}", args=args, target=target)
            for func, args in DEMO]


def from_shapes(shapes, dtype: str = "float32"):
    """The TE tensors of a single operator recognized from its arguments' shapes (inputs then
    output, as a workload key lists them), or None: ``matmul`` ``[m, k] [k, n] -> [m, n]``,
    ``dense`` ``[m, k] [n, k] -> [m, n]``, and ``batch_matmul`` with the second operand
    ``[b, k, n]`` or ``[b, n, k]``. What a foreign log's task is rebuilt from when its
    network is not at hand (``tvm-gnn-cost import``)."""
    shapes = [tuple(int(d) for d in s) for s in shapes]
    if len(shapes) != 3 or len({len(s) for s in shapes}) != 1 or len(shapes[0]) not in (2, 3):
        return None
    a, b, out = shapes
    batched = len(a) == 3
    if batched and not (a[0] == out[0] and b[0] in (a[0], 1)):
        return None
    m, k = a[-2:]
    if out[-2] != m:
        return None
    n = out[-1]
    if b[-2:] == (k, n):
        transposed = False
    elif b[-2:] == (n, k):
        transposed = True
    else:
        return None
    x = te.placeholder(a, name="A", dtype=dtype)
    y = te.placeholder(b, name="B", dtype=dtype)
    r = te.reduce_axis((0, k), name="k")

    def at(*idx):  # the second operand at (batch, reduce, column)
        bi, j = idx[:-1], idx[-1]
        lead = (0 if b[0] == 1 else bi[0],) if batched else ()
        return y[lead + ((j, r) if transposed else (r, j))]

    if batched:
        c = te.compute(out, lambda z, i, j: te.sum(x[z, i, r] * at(z, j), axis=r), name="C")
    else:
        c = te.compute(out, lambda i, j: te.sum(x[i, r] * at(j), axis=r), name="C")
    return [x, y, c]
