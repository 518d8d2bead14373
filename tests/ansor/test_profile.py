"""Task weights from a build profile: each task's time in the build over its estimate."""
from types import SimpleNamespace

import pytest

from tvm_gnn_cost.ansor.profile import RATIO_BOUNDS, profile_weights


def _row(function, ms, estimate_ms, tuned=True):
    return {"function": function, "calls": 1, "ms": ms, "tuned": tuned,
            "estimate_ms": estimate_ms}


def test_each_task_counts_its_time_in_the_build_over_its_estimate():
    tasks = [SimpleNamespace(desc=f"vm_mod_fused_{n}") for n in
             ("nn_dense_add", "nn_batch_matmul", "mean", "nn_softmax")]
    profile = {"rows": [
        _row("fused_nn_dense_add", 0.30, 0.10),  # 3x its estimate in the build
        _row("fused_nn_batch_matmul", 0.05, 0.10),  # faster than its estimate
        _row("fused_mean", 9.0, 0.001),  # a misread: held to the upper bound
        _row("fused_reshape", 0.2, None, tuned=False),  # no task: no weight to give
    ]}
    weights, factors = profile_weights(profile, tasks, [2, 1, 1, 1])
    assert factors == pytest.approx({"fused_nn_dense_add": 3.0, "fused_nn_batch_matmul": 0.5,
                                     "fused_mean": RATIO_BOUNDS[1]})
    # the softmax, which the profile does not time, keeps its weight
    assert weights == pytest.approx([6.0, 0.5, RATIO_BOUNDS[1], 1.0])
    assert profile_weights({"rows": []}, tasks)[0] == [1.0] * 4
