"""A dense's bias and activation fuse with it across the frontend's reshape, the layout rewrite
reaches every dense, and --fast-math replaces GELU's erf: tasks, outputs and the built graph."""
import json

import pytest
import torch

from tvm_gnn_cost.ansor.build import build_checked
from tvm_gnn_cost.workloads.harness import TOLERANCE
from tvm_gnn_cost.workloads.networks import load_workload


def mlp_on_tokens():
    """Two linear layers with GELU on a (batch, tokens, width) input, as a transformer's MLP."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(),
                                torch.nn.Linear(32, 8), torch.nn.Tanh())
    return model.eval(), torch.randn(2, 5, 16)


def test_bias_and_activation_fuse_into_each_dense_and_outputs_hold(target, tmp_path):
    from tvm.auto_scheduler.compute_dag import LayoutRewriteOption

    workload = load_workload(f"{__name__}:mlp_on_tokens", target)
    names = sorted(t.desc.replace("vm_mod_fused_", "") for t in workload.tasks)
    # each dense task holds its bias and activation (GELU's erf chain), nothing left apart
    assert names == ["nn_dense_add_multiply_erf_multiply_add_multiply", "nn_dense_add_tanh"]
    assert all(t.layout_rewrite_option != LayoutRewriteOption.NO_REWRITE
               for t in workload.tasks)
    log = tmp_path / "untuned.json"
    log.write_text("")  # TVM's default schedules: the check of the rewritten graph itself
    built = build_checked(workload, str(log), target)
    assert built.report.reference == "torch" and built.report.error < 1e-5
    ops = [n["attrs"]["func_name"] for n in json.loads(built.lib.get_graph_json())["nodes"]
           if n["op"] == "tvm_op" and n["attrs"]["func_name"] != "__nop"]
    assert len(ops) == 2, ops  # no copy between the two products


def test_fast_math_tunes_and_builds_erf_without_libm_and_outputs_hold(target, tmp_path):
    """``--fast-math``: GELU's erf, a scalar libm call otherwise, becomes TVM's fast_erf in the
    tasks and in the build, which the output check still holds to torch."""
    log = tmp_path / "untuned.json"
    log.write_text("")
    code = {}
    for fast in (False, True):
        workload = load_workload(f"{__name__}:mlp_on_tokens", target, fast_math=fast)
        names = sorted(t.desc.replace("vm_mod_fused_", "") for t in workload.tasks)
        assert any("fast_erf" in n for n in names) == fast, names
        built = build_checked(workload, str(log), target)
        assert built.report.error < TOLERANCE
        code[fast] = built.lib.get_lib().get_source("ll")
    assert "@erff(" in code[False] and "@erff(" not in code[True]
    with pytest.raises(ValueError, match="leave --fast-math out"):
        load_workload("matmul", target, fast_math=True)
