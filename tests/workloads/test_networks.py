"""Networks load and give tunable tasks: relay.testing (NCHW converted to NHWC) and PyTorch."""
import pytest

from tvm_gnn_cost.workloads.networks import load_workload


@pytest.mark.parametrize("name,min_tasks", [("bert", 5), ("dcgan", 3), ("squeezenet", 15)])
def test_network_extracts_tasks(name, min_tasks, target):
    w = load_workload(name, target)
    assert w.is_network and len(w.tasks) >= min_tasks
    assert len(w.weights) == len(w.tasks) and min(w.weights) >= 1
    if name == "squeezenet":  # conv2d converted to NHWC for Ansor on CPU
        assert any("conv2d_nhwc" in str(t.compute_dag) for t in w.tasks)


def test_encoder_sizes_give_other_shapes_than_bert(target):
    """The training encoders share bert's operators, not its tasks (bert is held out)."""
    keys = {n: {t.workload_key for t in load_workload(n, target).tasks}
            for n in ("bert", "bert-tiny")}
    assert len(keys["bert-tiny"]) >= 5 and not keys["bert"] & keys["bert-tiny"]


def test_unknown_network_is_refused(target):
    with pytest.raises(ValueError, match="unknown network"):
        load_workload("alexnet", target)
