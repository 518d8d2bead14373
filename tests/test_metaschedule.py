"""The GNN as a MetaSchedule cost model: block graphs in the Ansor schema, tune_tir end to end."""
import numpy as np
import pytest

tvm = pytest.importorskip("tvm")
from tvm import auto_scheduler, te, tir  # noqa: E402

from tvm_gnn_cost.featurizer import StateFeaturizer, feature_names  # noqa: E402
from tvm_gnn_cost.tirgraph import featurize_module, featurize_prim_func  # noqa: E402
from tvm_gnn_cost.workloads import host_target  # noqa: E402

WORKLOADS = [("tvm_gnn_cost.matmul", (64, 64, 64)),
             ("tvm_gnn_cost.conv2d_bias_relu", (1, 14, 14, 16, 16, 3))]


def _prim_func(func, args):
    tensors = auto_scheduler.workload_registry.WORKLOAD_FUNC_REGISTRY[func](*args)
    return te.create_prim_func(tensors)


@pytest.mark.parametrize("func,args", WORKLOADS)
def test_unscheduled_blocks_match_ansor_stages_feature_for_feature(func, args):
    """Where both searches see the same program, both adapters build the same graph."""
    task = auto_scheduler.SearchTask(func=func, args=args, target=host_target())
    state = task.compute_dag.infer_bound_from_state(task.compute_dag.get_init_state())
    ansor = StateFeaturizer().featurize(task, [state])[0]
    blocks = featurize_prim_func(_prim_func(func, args))
    assert ansor.valid and blocks.valid and blocks.num_nodes == ansor.num_nodes
    np.testing.assert_array_equal(blocks.src, ansor.src)
    np.testing.assert_array_equal(blocks.dst, ansor.dst)
    np.testing.assert_allclose(blocks.features, ansor.features, atol=1e-5)


def test_a_scheduled_module_shows_its_loops_annotations_and_data_flow():
    sch = tir.Schedule(tvm.IRModule({"main": _prim_func(*WORKLOADS[1])}))
    conv = sch.get_block("conv2d_nhwc")
    for name in ("pad_temp", "T_add"):  # padding into conv, bias add into relu
        sch.compute_inline(sch.get_block(name))
    loops = sch.get_loops(conv)
    outer, inner = sch.split(loops[3], [None, 8])
    sch.reorder(outer, *loops[4:], inner)  # ry, rx, rc outside the vectorized lanes
    sch.parallel(sch.fuse(loops[1], loops[2]))
    sch.vectorize(inner)
    sch.reverse_compute_at(sch.get_block("compute"), outer)
    g = featurize_module(sch.mod)
    col = {n: i for i, n in enumerate(feature_names())}
    assert g.num_nodes == 2 and list(zip(g.src, g.dst)) == [(0, 1)]  # conv -> relu
    conv_row, relu_row = g.features
    assert conv_row[col["is_reduction"]] == 1 and conv_row[col["inner_vectorized"]] == 1
    assert conv_row[col["ann_parallel"]] == pytest.approx(np.log2(1 + 14 * 14))
    assert conv_row[col["is_attached"]] == 1  # relu is computed at conv's loop
    assert relu_row[col["n_inputs"]] == 2 and relu_row[col["is_reduction"]] == 0  # conv, bias
    assert relu_row[col["op_float_add"]] > 0  # the inlined bias add is counted in relu


def test_tune_tir_with_the_gnn_measures_learns_and_saves(tmp_path):
    from tvm import meta_schedule as ms

    from tvm_gnn_cost.adapter import GNNCostModel
    from tvm_gnn_cost.metaschedule import GNNMetaCostModel

    mod = tvm.IRModule({"main": _prim_func("tvm_gnn_cost.matmul", (128, 128, 128))})
    target = tvm.target.Target(f"{host_target()} -num-cores 2")
    model = GNNMetaCostModel(seed=0)
    db = ms.tune_tir(mod, target, str(tmp_path / "ms"), max_trials_global=32,
                     num_trials_per_iter=16, cost_model=model)
    secs = [float(r.run_secs[0]) for r in db.get_all_tuning_records() if r.run_secs]
    assert len(secs) == 32 and all(0 < s < 1 for s in secs)
    assert model.trainer.n_seen == 32 and model.trainer.ready
    # A checkpoint is shared with the Ansor adapter, both ways.
    path = str(tmp_path / "gnn.pt")
    model.save(path)
    ansor = GNNCostModel()
    ansor.load(path)
    ansor.save(path)
    again = GNNMetaCostModel()
    again.load(path)
    graphs = [featurize_module(mod)]
    np.testing.assert_allclose(again.trainer.predict(graphs), model.trainer.predict(graphs))


def test_compare_runs_metaschedule_models_into_the_same_curves(tmp_path):
    from tvm_gnn_cost.cli import main
    from tvm_gnn_cost.curves import read_curves

    out = tmp_path / "ms"
    argv = ["compare", "--searcher", "metaschedule", "--network", "matmul", "--input-shape",
            "64,64,64", "--models", "gnn,random", "--trials", "16", "--trials-per-iter", "8",
            "--seeds", "1", "--out", str(out)]
    assert main(argv) == 0
    curves = read_curves(str(out))
    assert sorted(c.model for c in curves) == ["gnn", "random"]
    for c in curves:
        assert c.trials == [8, 16] and 0 < c.final < 1
        assert all(b <= a for a, b in zip(c.latency, c.latency[1:]))
    with open(out / "curves.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    summary = (out / "summary.md").read_text()
    assert "| gnn |" in summary and "| random |" in summary
    before = (out / "curves.json").read_text()
    assert main(argv) == 0  # finished runs are reused, not tuned again
    assert (out / "curves.json").read_text() == before
    with pytest.raises(SystemExit, match="metaschedule"):
        main(argv[:8] + ["gnn-pretrained"] + argv[9:])
