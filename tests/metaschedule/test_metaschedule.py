"""The GNN as a MetaSchedule cost model: block graphs in the Ansor schema, tune_tir end to end.

Runs on both stacks: TVM 0.19 (`make test`) and apache-tvm 0.27 (`make test-modern`).
"""
import numpy as np
import pytest

tvm = pytest.importorskip("tvm")
from tvm import te  # noqa: E402

from tvm_gnn_cost.workloads import operators  # noqa: E402
from tvm_gnn_cost.core.features import feature_names  # noqa: E402
from tvm_gnn_cost.metaschedule.cost_model import ms  # noqa: E402
from tvm_gnn_cost.metaschedule.builder import local_builder  # noqa: E402
from tvm_gnn_cost.tir.compat import MODERN, Schedule  # noqa: E402
from tvm_gnn_cost.metaschedule.tirgraph import featurize_module, featurize_prim_func  # noqa: E402
from tvm_gnn_cost.workloads.targets import host_target, with_num_cores  # noqa: E402

WORKLOADS = [(operators.matmul, (64, 64, 64)),
             (operators.conv2d_bias_relu, (1, 14, 14, 16, 16, 3))]


def _prim_func(func, args):
    return te.create_prim_func(func(*args))


def _schedule(mod):
    """A TIR schedule of ``mod`` and its get-block method (``get_sblock`` on apache-tvm)."""
    sch = Schedule(mod)
    return sch, (sch.get_sblock if MODERN else sch.get_block)


@pytest.mark.parametrize("func,args", WORKLOADS)
def test_unscheduled_blocks_match_ansor_stages_feature_for_feature(func, args):
    """Where both searches see the same program, both adapters build the same graph."""
    auto_scheduler = pytest.importorskip("tvm.auto_scheduler", reason="Ansor: TVM 0.19 only")
    from tvm_gnn_cost.ansor.featurizer import StateFeaturizer

    task = auto_scheduler.SearchTask(func=f"tvm_gnn_cost.{func.__name__}", args=args,
                                     target=host_target())
    state = task.compute_dag.infer_bound_from_state(task.compute_dag.get_init_state())
    ansor = StateFeaturizer().featurize(task, [state])[0]
    blocks = featurize_prim_func(_prim_func(func, args))
    assert ansor.valid and blocks.valid and blocks.num_nodes == ansor.num_nodes
    np.testing.assert_array_equal(blocks.src, ansor.src)
    np.testing.assert_array_equal(blocks.dst, ansor.dst)
    np.testing.assert_allclose(blocks.features, ansor.features, atol=1e-5)


@pytest.mark.parametrize("func,args", WORKLOADS)
def test_block_graphs_are_the_same_on_every_tvm(func, args):
    """The graph a program gets on this TVM is the one TVM 0.19 gave it (saved by running
    tirgraph on 0.19; there, that graph equals the Ansor featurizer's, tested above)."""
    import os

    saved = np.load(os.path.join(os.path.dirname(__file__), "..", "data", "tir_graphs_tvm019.npz"))
    g = featurize_prim_func(_prim_func(func, args))
    np.testing.assert_array_equal(np.stack([g.src, g.dst]), saved[f"{func.__name__}_edges"])
    np.testing.assert_allclose(g.features, saved[f"{func.__name__}_features"], atol=1e-5)


def test_a_scheduled_module_shows_its_loops_annotations_and_data_flow():
    sch, get_block = _schedule(tvm.IRModule({"main": _prim_func(*WORKLOADS[1])}))
    conv = get_block("conv2d_nhwc")
    for name in ("pad_temp", "T_add"):  # padding into conv, bias add into relu
        sch.compute_inline(get_block(name))
    loops = sch.get_loops(conv)
    outer, inner = sch.split(loops[3], [None, 8])
    sch.reorder(outer, *loops[4:], inner)  # ry, rx, rc outside the vectorized lanes
    sch.parallel(sch.fuse(loops[1], loops[2]))
    sch.vectorize(inner)
    sch.reverse_compute_at(get_block("compute"), outer)
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
    from tvm_gnn_cost.metaschedule.cost_model import GNNMetaCostModel

    mod = tvm.IRModule({"main": _prim_func(operators.matmul, (128, 128, 128))})
    target = with_num_cores(host_target(), 2)
    model = GNNMetaCostModel(seed=0)
    db = ms.tune_tir(mod, target, str(tmp_path / "ms"), max_trials_global=32,
                     num_trials_per_iter=16, cost_model=model, builder=local_builder())
    secs = [float(r.run_secs[0]) for r in db.get_all_tuning_records() if r.run_secs]
    assert len(secs) == 32 and all(0 < s < 1 for s in secs)
    assert model.trainer.n_seen == 32 and model.trainer.ready
    path = str(tmp_path / "gnn.pt")
    model.save(path)
    if not MODERN:  # a checkpoint is shared with the Ansor adapter, both ways
        from tvm_gnn_cost.ansor.cost_model import GNNCostModel

        ansor = GNNCostModel()
        ansor.load(path)
        ansor.save(path)
    again = GNNMetaCostModel()
    again.load(path)
    graphs = [featurize_module(mod)]
    np.testing.assert_allclose(again.trainer.predict(graphs), model.trainer.predict(graphs))


def test_compare_runs_metaschedule_models_into_the_same_curves(tmp_path):
    import json

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
    # each run's trials on the task (from its database, in measuring order) until within 5%
    # of the best program of either run: the run that found it got there by its 16th
    (task,) = json.loads((out / "task_progress.json").read_text())
    assert task["measured"] == {"gnn": [16], "random": [16]}
    assert any(t is not None and t <= 16 for runs in task["trials"].values() for t in runs)
    before = (out / "curves.json").read_text()
    assert main(argv) == 0  # finished runs are reused, not tuned again
    assert (out / "curves.json").read_text() == before
    with pytest.raises(SystemExit, match="metaschedule"):
        main(argv[:8] + ["gnn-pretrained"] + argv[9:])


def test_a_killed_metaschedule_compare_resumes_with_its_curve_and_time(tmp_path):
    """A killed MetaSchedule run of compare started again from an empty curve while its
    database kept the records (MetaSchedule's search then starts from them): the rerun's
    curve and tuning time were wrong. Now the run keeps its curve after every batch and
    resumes from its database with it, a half-written last record cut."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    from tvm_gnn_cost.cli import main
    from tvm_gnn_cost.curves import read_curves

    out = tmp_path / "ms"
    argv = ["compare", "--searcher", "metaschedule", "--network", "matmul", "--input-shape",
            "64,64,64", "--models", "gnn", "--trials", "24", "--trials-per-iter", "8",
            "--seeds", "1", "--no-build", "--out", str(out)]
    partial = out / "metaschedule" / "gnn-seed0.partial.json"
    records = out / "metaschedule" / "gnn-seed0" / "database_tuning_record.json"
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    job = subprocess.Popen([sys.executable, "-m", "tvm_gnn_cost", *argv], cwd=repo,
                           env=dict(os.environ, TOPHUB_LOCATION="NONE"),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while not partial.exists() and time.time() < deadline and job.poll() is None:
        time.sleep(0.2)
    job.send_signal(signal.SIGKILL)
    job.wait()
    assert partial.exists(), "the run ended before it could be killed"
    before = json.loads(partial.read_text())
    assert before["trials"][0] == 8 and not (out / "metaschedule" / "gnn-seed0.json").exists()
    with open(records, "a") as f:  # as if the kill had come in the middle of writing a record
        f.write('[0, [[["GetSBlock", [')

    assert main(argv) == 0
    (curve,) = read_curves(str(out))
    kept = len(before["trials"])
    assert curve.trials[:kept] == before["trials"]
    assert curve.seconds[:kept] == before["seconds"]  # the time before the kill counted
    assert curve.trials[-1] == 24 and len(records.read_text().splitlines()) == 24
    assert all(b >= a for a, b in zip(curve.seconds, curve.seconds[1:]))
    assert not partial.exists()


def test_a_torch_network_tunes_with_the_gnn_through_relay_or_relax(tmp_path):
    """Any torch module: its tasks (Relay on TVM 0.19, Relax on apache-tvm) become graphs, and
    tune_tasks measures them with the GNN choosing."""
    import math

    import torch

    from tvm_gnn_cost.metaschedule.cost_model import GNNMetaCostModel
    from tvm_gnn_cost.metaschedule.tuning import ms_tune, ms_workload_from_torch

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 16))
    target = with_num_cores(host_target(), 2)
    workload = ms_workload_from_torch("mlp", net, [torch.randn(4, 64)], target)
    assert len(workload.modules) >= 2 and all(w > 0 for w in workload.weights)
    graphs = [featurize_module(mod) for _, mod in workload.modules]
    assert all(g.valid for g in graphs)
    assert any(g.features[:, feature_names().index("is_reduction")].max() == 1 for g in graphs)
    model = GNNMetaCostModel(seed=0)
    curve = ms_tune(workload, model, 8 * len(workload.modules), str(tmp_path / "ms"), target,
                    per_iter=8, name="gnn")
    assert model.trainer.n_seen == curve.trials[-1] >= 8 * len(workload.modules) - 8
    assert math.isfinite(curve.final) and curve.final > 0
    assert all(b <= a for a, b in zip(curve.latency, curve.latency[1:]))


def test_compare_tunes_a_users_model_with_metaschedule(tmp_path, monkeypatch):
    """``--network`` takes a user's model with MetaSchedule as with Ansor, an entry point or
    an ONNX file, on both stacks; each run is built (through Relay on TVM 0.19, Relax on
    apache-tvm), checked against torch and timed in turns with it."""
    import math
    import sys

    import torch

    from tvm_gnn_cost.cli import main
    from tvm_gnn_cost.curves import read_curves
    from tvm_gnn_cost.metaschedule.tuning import ms_workload

    (tmp_path / "ms_user_model.py").write_text(
        "import torch\n\n\ndef build():\n    torch.manual_seed(0)\n"
        "    return torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.ReLU()), "
        "torch.randn(1, 32)\n")
    monkeypatch.syspath_prepend(str(tmp_path))  # a user's package
    target = with_num_cores(host_target())
    tasks = len(ms_workload("ms_user_model:build", target).modules)
    out = tmp_path / "ms"
    assert main(["compare", "--searcher", "metaschedule", "--network", "ms_user_model:build",
                 "--models", "gnn", "--trials", str(8 * tasks), "--trials-per-iter", "8",
                 "--seeds", "1", "--out", str(out)]) == 0
    (curve,) = read_curves(str(out))
    assert math.isfinite(curve.final) and curve.final > 0  # every task measured
    assert curve.build_error is None and 0 < curve.measured < 1  # built from its database
    assert "torch runs the original model in" in (out / "summary.md").read_text()

    import ms_user_model

    path = tmp_path / "mlp.onnx"
    torch.onnx.export(*ms_user_model.build(), str(path), dynamo=False, input_names=["x"])
    workload = ms_workload(str(path), target)  # through Relay on TVM 0.19, Relax on apache-tvm
    assert workload.name == "mlp.onnx" and len(workload.modules) == tasks
    sys.modules.pop("ms_user_model", None)  # a module of this test's folder only


def test_a_run_whose_every_build_fails_ends_cleanly_and_says_why(tmp_path, caplog):
    """What CI once saw (every build timed out): the run ends, the log names the builder's
    error, and the curve still plots and tabulates."""
    import logging
    import math

    from tvm_gnn_cost.experiments.registry import make_ms_model
    from tvm_gnn_cost.metaschedule.tuning import ms_tune, ms_workload
    from tvm_gnn_cost.report import plot_curves, summary_table

    target = with_num_cores(host_target(), 2)
    workload = ms_workload("matmul", target, input_shape=(64, 64, 64))
    broken = ms.builder.LocalBuilder(  # a lambda travels to the builder processes by value
        max_workers=1, f_build=lambda mod, target, params: (_ for _ in ()).throw(
            RuntimeError("no compiler here")))
    with caplog.at_level(logging.WARNING, logger="tvm_gnn_cost"):
        curve = ms_tune(workload, make_ms_model("random"), 8, str(tmp_path / "ms"), target,
                        per_iter=8, builder=broken, name="random")
    assert curve.trials == [8] and not math.isfinite(curve.final)
    assert "no candidate of task matmul built and ran" in caplog.text
    assert "no compiler here" in caplog.text
    plot_curves([curve], str(tmp_path / "curves.png"))
    with open(tmp_path / "curves.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert "| random | 1 | inf" in summary_table([curve])


def test_the_local_builder_builds_what_metaschedule_schedules():
    """The project's builder (without apache-tvm's per-batch tensor-intrinsic import) builds
    scheduled programs that MetaSchedule's runner then times."""
    sch, get_block = _schedule(tvm.IRModule({"main": _prim_func(operators.matmul,
                                                                  (64, 64, 64))}))
    i, j, _ = sch.get_loops(get_block("C"))
    sch.parallel(i)
    sch.vectorize(sch.split(j, [None, 16])[1])
    target = tvm.target.Target(with_num_cores(host_target(), 2))
    built = local_builder(max_workers=1).build([ms.builder.BuilderInput(sch.mod, target)])
    assert built[0].error_msg is None
    runner = ms.runner.LocalRunner()
    arg_info = ms.arg_info.ArgInfo.from_prim_func(sch.mod["main"])
    (future,) = runner.run([ms.runner.RunnerInput(built[0].artifact_path, "cpu", arg_info)])
    result = future.result()
    assert result.error_msg is None and 0 < float(result.run_secs[0]) < 1


@pytest.mark.skipif(not MODERN, reason="apache-tvm only: TVM 0.19 has Ansor")
def test_without_ansor_the_ansor_commands_say_what_to_do_instead(tmp_path):
    from tvm_gnn_cost.cli import main

    with pytest.raises(SystemExit, match="--searcher metaschedule"):
        main(["compare", "--network", "matmul", "--models", "gnn,xgb", "--trials", "8",
              "--out", str(tmp_path)])
    with pytest.raises(SystemExit, match="pinned stack"):
        main(["tune", "--network", "matmul", "--model", "gnn", "--trials", "8",
              "--log", str(tmp_path / "l.json")])


def test_compare_refuses_the_flags_of_the_other_search(tmp_path):
    """compare took --fast-math with MetaSchedule and --no-weight-prepack with Ansor and did
    nothing with them; now it says so before any work, as tune does."""
    from tvm_gnn_cost.cli import main

    out = tmp_path / "cmp"
    argv = ["compare", "--network", "matmul", "--models", "gnn", "--trials", "8",
            "--out", str(out)]
    with pytest.raises(SystemExit, match="--fast-math applies to the Ansor search only"):
        main(argv + ["--searcher", "metaschedule", "--fast-math"])
    ansor_refused = "--searcher metaschedule" if MODERN else "--no-weight-prepack applies to"
    with pytest.raises(SystemExit, match=ansor_refused):
        main(argv + ["--no-weight-prepack"])
    assert not out.exists()


def test_the_shipped_checkpoint_is_a_metaschedule_prior_only_where_the_target_fits(tmp_path):
    """``gnn``, the default: the Ansor-trained checkpoint frozen beside the online GNN for an
    AVX-512 x86-64 CPU, not for one without AVX-512 (nor in ``gnn-online``); with it, the
    model ranks a task's candidates before any of them is measured, and tunes."""
    import math

    from tvm_gnn_cost.core.checkpoint import SHIPPED_CHECKPOINT
    from tvm_gnn_cost.experiments.registry import make_ms_model
    from tvm_gnn_cost.metaschedule.tuning import ms_tune, ms_workload

    zen4 = with_num_cores(tvm.target.Target({"kind": "llvm", "mcpu": "znver4"}), 2)
    haswell = tvm.target.Target({"kind": "llvm", "mcpu": "haswell"})
    assert make_ms_model("gnn", 0, zen4).prior_file == SHIPPED_CHECKPOINT
    assert make_ms_model("gnn", 0, haswell).prior is None
    assert make_ms_model("gnn-online", 0, zen4).prior is None
    model = make_ms_model("gnn", 0, zen4)
    target = with_num_cores(host_target(), 2)
    workload = ms_workload("matmul", target, input_shape=(64, 64, 64))
    curve = ms_tune(workload, model, 16, str(tmp_path / "ms"), target, per_iter=8,
                    name="gnn")
    assert math.isfinite(curve.final) and model.trainer.n_seen == curve.trials[-1]
    context = ms.TuneContext(mod=workload.modules[0][1], target=target,
                             space_generator="post-order-apply")
    database = ms.database.JSONDatabase(work_dir=str(tmp_path / "ms"))
    records = database.get_top_k(database.commit_workload(context.mod), 16)
    fresh = make_ms_model("gnn", 1, zen4)  # nothing measured: the prior alone ranks
    scores = fresh.predict(context, [r.as_measure_candidate() for r in records])
    assert np.all(scores > 0) and len(set(np.round(scores, 6))) > 1
