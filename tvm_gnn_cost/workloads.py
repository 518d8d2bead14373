"""Small built-in workloads (TE), registered with Ansor so their logs can be read back, and the
host target. Imports on apache-tvm without Ansor too (MetaSchedule builds the same operators)."""
from __future__ import annotations

import logging
import os
from typing import List

import tvm
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


def host_target() -> tvm.target.Target:
    """LLVM for this machine's CPU, with its ``-mcpu`` (plain ``llvm`` is generic x86-64)."""
    # The dict form: apache-tvm 0.27 no longer parses "llvm -mcpu=..." (same target on 0.19).
    return tvm.target.Target({"kind": "llvm", "mcpu": tvm.target.codegen.llvm_get_system_cpu()})


def with_num_cores(target, num_cores: int = 0) -> tvm.target.Target:
    """``target`` with ``num-cores`` set (MetaSchedule's CPU rules need it); this machine's
    core count unless given."""
    target = tvm.target.Target(target)
    if "num-cores" in target.attrs:
        return target
    cores = num_cores or os.cpu_count() or 1
    return tvm.target.Target({**dict(target.export()), "num-cores": cores})


def check_target(target) -> None:
    """Raise ``ValueError`` if this TVM build cannot compile code for ``target``; warn
    about an LLVM CPU target without ``-mcpu``.

    A CUDA target on a TVM built without CUDA otherwise fails every single
    measurement with a build error, hours into a tuning job.
    """
    target = tvm.target.Target(target)
    kind = target.kind.name
    if tvm.get_global_func(f"target.build.{kind}", allow_missing=True) is None:
        raise ValueError(
            f"this TVM build cannot compile for target kind {kind!r} (no target.build.{kind}). "
            f"Install a TVM built with {kind} support (for CUDA: USE_CUDA=ON), or tune for the "
            "host CPU (the default target).")
    if kind == "llvm" and not target.mcpu:
        logger.warning("target %r has no -mcpu: LLVM emits generic x86-64 code. "
                       "Add -mcpu=%s for this machine.", str(target),
                       tvm.target.codegen.llvm_get_system_cpu())


def demo_tasks(target=None) -> List["auto_scheduler.SearchTask"]:
    """The demo's workload set: a 256^3 matmul and a ResNet-style conv2d+bias+relu."""
    target = target or host_target()
    return [
        auto_scheduler.SearchTask(func="tvm_gnn_cost.matmul", args=(256, 256, 256), target=target),
        auto_scheduler.SearchTask(func="tvm_gnn_cost.conv2d_bias_relu", args=(1, 14, 14, 64, 64, 3),
                                  target=target),
    ]
