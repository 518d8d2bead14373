"""A frozen pretrained prior beside the online GNN in GNNCostModel and tune --prior."""
import os

import numpy as np
import pytest

from tvm_gnn_cost.core.checkpoint import SHIPPED_CHECKPOINT as SHIPPED
from tvm_gnn_cost.core.prior import blend_scores, prior_weight


def test_a_frozen_prior_scores_first_then_shares_with_the_online_gnn(measured_conv, conv_task):
    from tvm_gnn_cost.ansor.cost_model import GNNCostModel
    from tvm_gnn_cost.ansor.featurizer import task_key

    _, inputs, results = measured_conv
    states = [i.state for i in inputs[:48]]
    alone = GNNCostModel()
    alone.load(SHIPPED)
    model = GNNCostModel(prior=SHIPPED, prior_records=8)
    assert model.trainer.config.explore_records == 0  # the prior explores for it
    first = model.predict(conv_task, states)
    np.testing.assert_allclose(first, alone.predict(conv_task, states), rtol=1e-6)

    model.update(inputs[48:], results[48:])
    assert model.trainer.ready
    graphs = model.featurizer.featurize(conv_task, states)
    prior_now = model.prior.predict(graphs)
    np.testing.assert_allclose(prior_now, alone.trainer.predict(graphs), rtol=1e-6)  # frozen
    own = model.trainer.task_valid[task_key(conv_task)]
    assert own > 0
    expect = blend_scores(prior_now, model.trainer.predict(graphs, task_key(conv_task)),
                          prior_weight(own, 8))
    np.testing.assert_allclose(model.predict(conv_task, states), expect, rtol=1e-6)
    assert not np.allclose(model.predict(conv_task, states), first)


def test_a_prior_of_other_featurizer_settings_is_refused_with_the_fix():
    pytest.importorskip("tvm")
    from tvm_gnn_cost.ansor.cost_model import GNNCostModel
    from tvm_gnn_cost.core.config import FeaturizerConfig

    with pytest.raises(ValueError, match="featurizer_config="):
        GNNCostModel(featurizer_config=FeaturizerConfig(max_loops=4), prior=SHIPPED)
    with pytest.raises(ValueError):
        GNNCostModel(prior_records=-1)


def test_the_online_gnn_featurizes_as_its_prior_was_trained(measured_conv, conv_task, tmp_path):
    """A prior pretrained with other featurizer settings (here step tokens) needs no
    ``featurizer_config``: the model takes the prior's and both score the same graphs."""
    from tvm_gnn_cost.ansor.cost_model import GNNCostModel
    from tvm_gnn_cost.core.config import FeaturizerConfig

    _, inputs, results = measured_conv
    fcfg = FeaturizerConfig(step_tokens=4)
    pretrained = GNNCostModel(seed=0, num_warmup_sample=8, featurizer_config=fcfg)
    pretrained.update(inputs[:48], results[:48])
    path = str(tmp_path / "steps.pt")
    assert pretrained.trainer.ready
    pretrained.save(path)
    model = GNNCostModel(prior=path)
    assert model.featurizer.config == fcfg and model.prior_file == path
    states = [i.state for i in inputs[48:64]]
    graphs = model.featurizer.featurize(conv_task, states)
    assert all(g.valid for g in graphs)
    np.testing.assert_allclose(model.predict(conv_task, states),
                               pretrained.trainer.predict(graphs), rtol=1e-6)


def test_tune_with_a_prior_measures_real_programs_and_refuses_it_for_xgboost(tmp_path, capsys):
    pytest.importorskip("tvm")
    from tvm import auto_scheduler

    from tvm_gnn_cost.cli import main
    from tvm_gnn_cost.ansor.records import measured_cost

    log = str(tmp_path / "mm.json")
    args = ["--network", "matmul", "--input-shape", "128,128,128", "--measures-per-round", "8",
            "--trials", "16", "--log", log, "--no-build"]
    with pytest.raises(SystemExit, match="--prior needs --model gnn"):
        main(["tune", *args, "--model", "xgb", "--prior", SHIPPED])
    with pytest.raises(SystemExit, match="contradict"):
        main(["tune", *args, "--no-prior", "--prior", SHIPPED])
    assert not os.path.exists(log)
    assert main(["tune", *args, "--prior", SHIPPED, "--prior-records", "8"]) == 0
    costs = [measured_cost(r) for _, r in auto_scheduler.RecordReader(log)]
    assert len(costs) == 16 and min(costs) < 1.0  # seconds: real programs ran
    out = capsys.readouterr().out
    assert "estimated latency" in out and f"frozen prior {SHIPPED}" in out


def test_the_default_model_takes_the_shipped_prior_only_on_cpus_it_was_trained_for(caplog):
    from tvm import auto_scheduler

    from tvm_gnn_cost.ansor.cost_model import GNNCostModel
    from tvm_gnn_cost.ansor.tuning import default_first_round

    default = GNNCostModel.pretrained("llvm -mcpu=znver4")
    assert default.prior_file == SHIPPED
    # with the prior the first pass over the tasks is short; without, a full round as Ansor's
    assert default_first_round(default, 16) == 8 and default_first_round(default, 4) == 4
    assert default_first_round(GNNCostModel.pretrained("llvm"), 16) == 16
    assert default_first_round(auto_scheduler.XGBModel(), 16) == 16
    assert GNNCostModel.pretrained("llvm -mcpu=rocketlake").prior is not None  # AVX-512 Intel
    for target, why in (("llvm -mcpu=haswell", "AVX-512"), ("llvm", "no -mcpu"),
                        ("cuda", "not a CPU"),
                        ("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72", "x86-64")):
        caplog.clear()
        model = GNNCostModel.pretrained(target)
        assert model.prior is None and why in caplog.text, target


@pytest.mark.parametrize("target, fits", [
    # x86-64 with AVX-512, however the target says so: the rule of shipped_prior_mismatch
    ("llvm -mcpu=znver4", True), ("llvm -mcpu=znver5", True),  # trained on
    ("llvm -mcpu=rocketlake", True), ("llvm -mcpu=emeraldrapids", True),  # checked on
    ("llvm -mcpu=sapphirerapids", True),  # on that evidence
    ("llvm -mattr=+avx512f", True),  # AVX-512 code without a CPU's name
    ("llvm -mtriple=amd64-linux-gnu -mcpu=znver4", True),  # amd64 is x86-64
    ("llvm -mtriple=x86_64-linux-gnu -mcpu=znver4", True),
    # not what it learned
    ("llvm", False),  # generic x86-64: no AVX-512
    ("llvm -mcpu=znver3", False), ("llvm -mcpu=haswell", False),
    ("llvm -mtriple=amd64-linux-gnu", False),
    ("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-v1", False),
    ("cuda", False),
])
def test_the_shipped_prior_fits_x86_64_targets_with_avx512_and_no_other(target, fits):
    from tvm_gnn_cost.workloads.targets import shipped_prior, shipped_prior_mismatch

    assert (shipped_prior_mismatch(target) is None) == fits
    assert (shipped_prior(target, warn=False) == SHIPPED) == fits


def test_no_prior_turns_the_default_prior_off(tmp_path, capsys):
    from tvm_gnn_cost.cli import main
    from tvm_gnn_cost.workloads.targets import host_target, shipped_prior_mismatch

    args = ["--network", "matmul", "--input-shape", "64,64,64", "--measures-per-round", "4",
            "--trials", "4", "--no-build"]
    assert main(["tune", *args, "--log", str(tmp_path / "a.json")]) == 0
    default = capsys.readouterr().out
    fits = shipped_prior_mismatch(host_target()) is None
    assert ("frozen prior" in default) == fits, default
    assert main(["tune", *args, "--no-prior", "--log", str(tmp_path / "b.json")]) == 0
    assert "model: online GNN\n" in capsys.readouterr().out
