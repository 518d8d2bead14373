"""Property-based: random small compute DAGs (chains and diamonds of elementwise, broadcast
and reduction ops of random shapes), random schedules of each, and the graph invariants."""
import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from tvm import auto_scheduler, te

from tvm_gnn_cost.ansor.featurizer import StateFeaturizer
from tvm_gnn_cost.ansor.sampling import sample_states

OPS = ("scale", "relu", "exp", "bias", "reduce_sub", "diamond", "matmul")
COMPUTE_OP = 1  # a stage's op_type: 0 placeholder, 1 compute
featurizer = StateFeaturizer()


def build_dag(rows, cols, ops, widths):
    """Input (rows, cols); each op makes a new tensor from the current one (``te.compute``
    calls its lambda at once, so the lambdas may use ``x`` before it is reassigned)."""
    x = te.placeholder((rows, cols), name="x0")
    args = [x]
    for n, (op, width) in enumerate(zip(ops, widths)):
        r, c = (int(d) for d in x.shape)
        name = f"t{n}"
        if op == "scale":
            x = te.compute((r, c), lambda i, j: x[i, j] * 2.0 + 1.0, name=name)
        elif op == "relu":
            x = te.compute((r, c), lambda i, j: te.max(x[i, j], 0.0), name=name)
        elif op == "exp":
            x = te.compute((r, c), lambda i, j: te.exp(x[i, j]), name=name)
        elif op == "bias":
            b = te.placeholder((c,), name=f"b{n}")
            args.append(b)
            x = te.compute((r, c), lambda i, j: x[i, j] + b[j], name=name)
        elif op == "reduce_sub":  # a reduction and a broadcast back: a diamond through a sum
            k = te.reduce_axis((0, c), name=f"k{n}")
            s = te.compute((r,), lambda i: te.sum(x[i, k], axis=k), name=f"{name}_sum")
            x = te.compute((r, c), lambda i, j: x[i, j] - s[i], name=name)
        elif op == "diamond":
            a = te.compute((r, c), lambda i, j: x[i, j] * 3.0, name=f"{name}_a")
            e = te.compute((r, c), lambda i, j: te.exp(x[i, j]), name=f"{name}_b")
            x = te.compute((r, c), lambda i, j: a[i, j] + e[i, j], name=name)
        else:  # matmul
            w = te.placeholder((c, width), name=f"w{n}")
            args.append(w)
            k = te.reduce_axis((0, c), name=f"k{n}")
            x = te.compute((r, width), lambda i, j: te.sum(x[i, k] * w[k, j], axis=k), name=name)
    return auto_scheduler.ComputeDAG(args + [x])


def check_graph(g, state):
    inlined = auto_scheduler.loop_state.Stage.COMPUTE_AT_TRANS_TABLE["inlined"]
    stages = [s for s in state.stages if s.op_type == COMPUTE_OP and s.compute_at != inlined]
    assert g.valid
    assert g.num_nodes == len(stages)
    assert g.features.shape == (len(stages), featurizer.n_features)
    assert np.isfinite(g.features).all()
    n = g.num_nodes
    assert ((g.src >= 0) & (g.src < n) & (g.dst >= 0) & (g.dst < n)).all()
    assert (g.src != g.dst).all()
    # data flows one way: repeatedly removing nodes without producers empties the graph
    edges = set(zip(g.src.tolist(), g.dst.tolist()))
    alive = set(range(n))
    while alive:
        roots = {v for v in alive if not any(d == v and s in alive for s, d in edges)}
        assert roots, "the stage graph has a cycle"
        alive -= roots
    sinks = [v for v in range(n) if not any(s == v for s, _ in edges)]
    assert len(sinks) == 1  # one output, everything flows into it


# no shrinking: each example runs TVM's sampler, and shrinking a failure took minutes
@settings(max_examples=100, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.generate], suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 48), cols=st.integers(1, 48),
       ops=st.lists(st.sampled_from(OPS), min_size=1, max_size=4),
       widths=st.lists(st.integers(1, 40), min_size=4, max_size=4),
       seed=st.integers(0, 1000))
def test_random_dags_give_valid_graphs(target, rows, cols, ops, widths, seed):
    dag = build_dag(rows, cols, ops, widths)
    task = auto_scheduler.SearchTask(compute_dag=dag, workload_key=dag.workload_key(),
                                     target=target)
    states = sample_states(task, 8, seed=seed, max_rounds=2)
    assert states
    for g, state in zip(featurizer.featurize(task, states), states):
        check_graph(g, state)
