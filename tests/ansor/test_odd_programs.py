"""Programs at the edges: long chains (fused or not), rfactor, empty batches, graphs with no node."""
import numpy as np
import pytest
from tvm import auto_scheduler, te

from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.ansor.sampling import sample_states
from tvm_gnn_cost.core.graph import ProgramGraph


def _task(tensors, target):
    dag = auto_scheduler.ComputeDAG(tensors)
    return auto_scheduler.SearchTask(compute_dag=dag, workload_key=dag.workload_key(),
                                     target=target)


def _sample(task, n=16, seed=0):
    return sample_states(task, n, seed=seed, max_rounds=2)


def _chain(n, op, target):
    x = a = te.placeholder((64, 64), name="a")
    for k in range(n):
        if op == "exp":
            x = te.compute(x.shape, lambda i, j: te.exp(x[i, j]) * 0.5, name=f"t{k}")
        else:
            x = te.compute(x.shape, lambda i, j: x[i, j] * 0.5 + float(k), name=f"t{k}")
    return _task([a, x], target)


def test_a_long_chain_of_expensive_ops_is_a_path(target):
    task = _chain(16, "exp", target)  # Ansor does not inline exp: 16 stages stay
    states = _sample(task, 8)
    model = GNNCostModel()
    for g in model.featurizer.featurize(task, states):
        assert g.valid and g.num_nodes == 16
        assert sorted(zip(g.src.tolist(), g.dst.tolist())) == [(k, k + 1) for k in range(15)]
    assert np.isfinite(model.predict(task, states)).all()


def test_a_long_fused_chain_is_one_node_carrying_all_the_work(target):
    task = _chain(40, "mul", target)
    # Ansor's sampler finds only this one program (all inlined) and then retries for
    # minutes to find more, so the state is built by hand.
    state = task.compute_dag.get_init_state()
    for k in range(39):
        state.compute_inline(k + 1)  # stage 0 is the placeholder
    state = task.compute_dag.infer_bound_from_state(state)
    model = GNNCostModel()
    (g,) = model.featurizer.featurize(task, [state])
    names = model.featurizer.names
    assert g.valid and g.num_nodes == 1 and len(g.src) == 0
    assert g.features[0, names.index("n_inlined")] == 39
    assert g.features[0, names.index("op_float_mul")] == pytest.approx(np.log2(1 + 40))
    assert np.isfinite(model.predict(task, [state])).all()


def test_rfactor_stages_are_nodes_feeding_the_output(target):
    a = te.placeholder((2, 8192), name="a")
    k = te.reduce_axis((0, 8192), name="k")
    s = te.compute((2,), lambda i: te.sum(a[i, k] * a[i, k], axis=k), name="s")
    task = _task([a, s], target)
    states = [st for seed in range(4) for st in _sample(task, 32, seed)]
    rf = [st for st in states if any(stage.op.name.endswith(".rf") for stage in st.stages)]
    assert rf, "Ansor sampled no rfactor program"
    graphs = GNNCostModel().featurizer.featurize(task, rf)
    for g in graphs:
        assert g.valid and g.num_nodes >= 2
        assert np.isfinite(g.features).all()
        sinks = set(range(g.num_nodes)) - set(g.src.tolist())
        assert len(sinks) == 1  # the rfactor stage feeds the final sum


def test_empty_batches_and_graphs_without_nodes(matmul_task):
    model = GNNCostModel()
    assert model.predict(matmul_task, []).shape == (0,)
    model.update([], [])  # an empty round is not an error
    assert model.records_seen == 0
    empty = ProgramGraph(np.zeros((0, model.featurizer.n_features), np.float32),
                         np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert model.trainer.predict([empty]).tolist() == [-np.inf]
    assert model.trainer.add([empty], ["t"], [1.0]) == 0  # nothing to learn from
