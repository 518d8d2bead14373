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


def demo_tasks(target=None) -> List["auto_scheduler.SearchTask"]:
    """The demo's workload set: a 256^3 matmul and a ResNet-style conv2d+bias+relu."""
    from .targets import host_target

    target = target or host_target()
    return [
        auto_scheduler.SearchTask(func="tvm_gnn_cost.matmul", args=(256, 256, 256), target=target),
        auto_scheduler.SearchTask(func="tvm_gnn_cost.conv2d_bias_relu", args=(1, 14, 14, 64, 64, 3),
                                  target=target),
    ]
