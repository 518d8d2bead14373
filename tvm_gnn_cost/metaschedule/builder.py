"""MetaSchedule's ``LocalBuilder`` without apache-tvm's tensor-intrinsic import in every batch.

    db = ms.tune_tir(mod, target, work_dir, max_trials_global=64, cost_model=model,
                     builder=local_builder())

apache-tvm 0.27's default build function imports ``tvm.s_tir.tensor_intrin``, which parses
about 250 TVMScript functions (each parse walks ``inspect.stack()`` over every loaded module,
torch's included, since ``tvm_ffi`` imports torch). MetaSchedule starts new builder processes
for every batch, so every batch pays it again (18-23 s on a 2-core machine, against well under
a second for the build itself), and since the import falls inside each process's first job, it
counts against the builder's 30 s timeout: on a CI machine 3.7x slower than that one, every
build timed out.
The build needs none of those intrinsics: a tensorized schedule already holds their bodies.
TVM 0.19's default build does not import them, so there the builder is MetaSchedule's own.

This module is imported by the builder processes: keep it free of torch and DGL.
"""
from __future__ import annotations

from typing import Optional


def build_module(mod, target, params=None):
    """MetaSchedule's default build (apache-tvm), without importing the tensor intrinsics.

    Same steps as ``meta_schedule.builder.local_builder.default_build``: drop the weight
    layout-rewrite blocks, then ``tvm.build``. ``params`` must be None, as there.
    """
    from tvm.driver import build
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
    return build(mod, target=target)


def local_builder(max_workers: Optional[int] = None, timeout_sec: float = 30.0):
    """A MetaSchedule ``LocalBuilder`` for ``builder=`` of ``tune_tir`` / ``tune_tasks``.

    On apache-tvm it builds with :func:`build_module`; on TVM 0.19 it is MetaSchedule's own.

    Parameters
    ----------
    max_workers : int, optional
        Builder processes (MetaSchedule's default: the CPU count).
    timeout_sec : float
        Seconds one build may take before it counts as a failure.
    """
    from ..tir.compat import MODERN

    if MODERN:
        from tvm.s_tir import meta_schedule as ms

        return ms.builder.LocalBuilder(max_workers=max_workers, timeout_sec=timeout_sec,
                                       f_build=build_module)
    from tvm import meta_schedule as ms

    return ms.builder.LocalBuilder(max_workers=max_workers, timeout_sec=timeout_sec)


__all__ = ["build_module", "local_builder"]
