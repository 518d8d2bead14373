"""State -> graph on real tasks: node count, edges and features against TVM's own view."""
import numpy as np
from tvm import auto_scheduler

from tvm_gnn_cost.ansor.featurizer import StateFeaturizer
from tvm_gnn_cost.core.features import feature_names
from tvm_gnn_cost.ansor.sampling import sample_states


def reference_graph(state):
    """Non-inlined compute stages and producer->consumer edges through inlined stages,
    read stage by stage through the FFI (independent of the printout the featurizer uses)."""
    stages = list(state.stages)
    ops = [s.op for s in stages]

    def index_of(op):
        return next(i for i, o in enumerate(ops) if o.same_as(op))

    nodes = [i for i, s in enumerate(stages) if int(s.op_type) == 1 and int(s.compute_at) != 1]

    def producers(i):
        out = set()
        for t in ops[i].input_tensors:
            j = index_of(t.op)
            if int(stages[j].op_type) != 1:
                continue
            if int(stages[j].compute_at) == 1:
                out |= producers(j)
            else:
                out.add(j)
        return out

    edges = {(ops[p].name, ops[c].name) for c in nodes for p in producers(c)}
    return sorted(ops[i].name for i in nodes), edges


def exceeds_thread_limit(state, max_threads=1024):
    """Whether some stage binds more threads per block than allowed, read through the FFI."""
    for s in state.stages:
        axes = {}
        for it in s.iters:
            ann = int(it.annotation)
            if ann in (6, 8, 10) and it.range is not None:
                axes[ann] = max(axes.get(ann, 1), int(it.range.extent))
        if np.prod(list(axes.values()) or [1]) > max_threads:
            return True
    return False


def check_graphs(task, states, allow_over_limit=False):
    fz = StateFeaturizer()
    graphs = fz.featurize(task, states)
    assert len(graphs) == len(states)
    for state, g in zip(states, graphs):
        names, edges = reference_graph(state)
        if allow_over_limit and exceeds_thread_limit(state):
            assert not g.valid
            continue
        assert g.valid
        assert g.num_nodes == len(names)
        assert g.features.shape == (len(names), len(feature_names()))
        assert np.isfinite(g.features).all()
        # Nodes are in print order; recover their names to compare edges.
        from tvm_gnn_cost.core.looptree import parse_loop_tree

        node_names = [s.name for s in parse_loop_tree(str(state)).statements]
        assert sorted(node_names) == names
        got = {(node_names[s], node_names[d]) for s, d in zip(g.src, g.dst)}
        assert got == edges
        assert len(g.src) == len(edges)
    return graphs


def test_matmul_graphs(matmul_task):
    states = sample_states(matmul_task, 64)
    graphs = check_graphs(matmul_task, states)
    # Different schedules of the same computation get different features.
    distinct = {g.features.tobytes() for g in graphs}
    assert len(distinct) > len(graphs) // 2


def test_conv2d_bias_relu_graphs(conv_task):
    states = sample_states(conv_task, 64)
    graphs = check_graphs(conv_task, states)
    # bias add is always inlined into relu: 3 or fewer nodes, never the T_add stage.
    assert all(g.num_nodes <= 3 for g in graphs)


def test_every_resnet18_task(resnet_tasks):
    """All 24 tasks, winograd, softmax and adaptive pooling (symbolic reduce extents) included."""
    tasks, _ = resnet_tasks
    descs = " ".join(t.desc for t in tasks)
    assert "softmax" in descs and "winograd" in descs and "global_avg_pool" in descs
    names = feature_names()
    for task in tasks:
        states = sample_states(task, 4, max_rounds=2)
        assert states, task.desc
        graphs = check_graphs(task, states)
        # what each stage computes was read, not left at zero
        assert all(g.features[:, names.index("out_elems")].min() > 0 for g in graphs), task.desc


def test_cuda_task_shows_thread_bindings(cuda_task):
    states = sample_states(cuda_task, 48)
    graphs = [g for g in check_graphs(cuda_task, states, allow_over_limit=True) if g.valid]
    assert len(graphs) >= len(states) * 3 // 4
    names = feature_names()
    tx = names.index("ann_threadIdx.x")
    bx = names.index("ann_blockIdx.x")
    assert all(g.features[:, tx].max() > 0 for g in graphs)
    assert any(g.features[:, bx].max() > 0 for g in graphs)
    # Cooperative fetching stages (cache_read into shared memory) are nodes too.
    assert any(g.features[:, names.index("is_shared")].max() > 0 for g in graphs)


def test_state_over_the_thread_limit_is_flagged(cuda_task):
    """A state that binds more threads than a block may hold fails to lower: invalid, -inf."""
    from tvm_gnn_cost.ansor.cost_model import GNNCostModel

    state = cuda_task.compute_dag.get_init_state()
    out = len(state.stages) - 1
    fused = state.fuse(out, state.stages[out].iters)
    outer, inner = state.split(out, fused, [2048])
    state.bind(out, outer, "blockIdx.x")
    state.bind(out, inner, "threadIdx.x")
    bound = cuda_task.compute_dag.infer_bound_from_state(state)
    graphs = StateFeaturizer().featurize(cuda_task, [bound.state_object])
    assert not graphs[0].valid
    scores = GNNCostModel().predict(cuda_task, [bound.state_object])
    assert scores[0] == -np.inf


def test_state_read_from_a_log_is_flagged_until_bounds_are_inferred(conv_task, tmp_path):
    """Log states have no stages: invalid as read, valid once bounds are inferred."""
    from tvm_gnn_cost.ansor.records import infer_bound

    states = sample_states(conv_task, 2)
    log = str(tmp_path / "two.json")
    auto_scheduler.save_records(log, [auto_scheduler.MeasureInput(conv_task, s) for s in states],
                                [auto_scheduler.MeasureResult([0.1], 0, "", 0.1, 0)] * 2)
    inputs, _ = auto_scheduler.RecordReader(log).read_lines()
    fz = StateFeaturizer()
    assert not any(g.valid for g in fz.featurize(conv_task, [i.state for i in inputs]))
    fixed = [infer_bound(conv_task, i.state) for i in inputs]
    again = fz.featurize(conv_task, fixed)
    assert all(g.valid for g in again)
    first = fz.featurize(conv_task, states)
    assert all(np.array_equal(a.features, b.features) for a, b in zip(again, first))


def test_step_tokens_land_on_the_stages_tvm_shows(matmul_task, conv_task):
    """FeaturizerConfig(step_tokens=k): the loop-tree columns are unchanged, every split
    step becomes a token, and each annotation token sits on the node whose stage TVM shows
    with an iterator of that annotation."""
    from tvm_gnn_cost.ansor.featurizer import _transform_steps
    from tvm_gnn_cost.core.config import FeaturizerConfig
    from tvm_gnn_cost.core.looptree import parse_loop_tree
    from tvm_gnn_cost.core.steps import STEP_KINDS, TOKEN_WIDTH

    k = 32
    fz = StateFeaturizer(FeaturizerConfig(step_tokens=k))
    base = len(feature_names())
    n_kinds = len(STEP_KINDS)
    checked = 0
    for task in (matmul_task, conv_task):
        states = sample_states(task, 32)
        plain = StateFeaturizer().featurize(task, states)
        for state, g, p in zip(states, fz.featurize(task, states), plain):
            assert g.features.shape == (p.num_nodes, base + k * TOKEN_WIDTH) == (
                p.num_nodes, len(fz.names))
            np.testing.assert_array_equal(g.features[:, :base], p.features)
            tok = g.features[:, base:].reshape(g.num_nodes, k, TOKEN_WIDTH)
            steps = _transform_steps(task, state)
            assert tok[:, :, STEP_KINDS.index("SP")].sum() == sum(s[0] == "SP" for s in steps)
            stage_of = {s.op.name: s for s in state.stages}
            for node, st in enumerate(parse_loop_tree(str(state)).statements):
                annotations = {int(it.annotation) for it in stage_of[st.name].iters}
                an = tok[node][tok[node, :, STEP_KINDS.index("AN")] == 1][:, n_kinds + 1:]
                for cls in (2, 3):  # vectorize, parallel (Ansor's annotation values)
                    if (an[:, cls] == 1).any():
                        assert cls in annotations
                        checked += 1
    assert checked > 0


def test_loop_footprints_grow_outwards_on_real_states(matmul_task, conv_task):
    """FeaturizerConfig(loop_footprints=True): the other columns are unchanged, and a stage's
    working set never shrinks from one loop to the loop around it."""
    from tvm_gnn_cost.core.config import FeaturizerConfig

    fz = StateFeaturizer(FeaturizerConfig(loop_footprints=True))
    base = len(feature_names())
    for task in (matmul_task, conv_task):
        states = sample_states(task, 32)
        plain = StateFeaturizer().featurize(task, states)
        for g, p in zip(fz.featurize(task, states), plain):
            assert g.features.shape == (p.num_nodes, len(fz.names)) == (p.num_nodes, base + 8)
            np.testing.assert_array_equal(g.features[:, :base], p.features)
            fp = g.features[:, base:]
            n_own = p.features[:, fz.names.index("n_own_loops")].astype(int)
            for row, n in zip(fp, np.minimum(n_own, 8)):
                assert (row[:n] > 0).all() and (row[n:] == 0).all()
                assert (np.diff(row[:n]) >= 0).all()
