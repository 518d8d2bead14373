"""A user's model tuned with MetaSchedule on apache-tvm, end to end: imported into Relax with
TVM's own frontends, tuned with the project's default model, built with the database,
checked against its framework, timed, exported and run in a fresh process."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tvm_gnn_cost.tir.compat import MODERN

pytestmark = pytest.mark.skipif(not MODERN, reason="apache-tvm only: Relax, no Relay")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "workloads"))  # tiny_models, a user's package
import tiny_models  # noqa: E402


def _tune(*argv):
    from tvm_gnn_cost.cli import main

    return main(["tune", "--searcher", "metaschedule", "--trials-per-iter", "8", *argv])


def test_an_onnx_model_is_tuned_built_checked_and_runs_exported(tmp_path, capsys):
    """ONNX in, through ``relax.frontend.onnx``, its convolution converted to NHWC; the
    library loads in a process that never saw the model and gives ONNX Runtime's outputs."""
    import onnxruntime
    import torch

    model, x = tiny_models.cnn()
    path = str(tmp_path / "cnn.onnx")
    torch.onnx.export(model, (x,), path, dynamo=False, input_names=["image"])
    lib = str(tmp_path / "cnn.so")
    assert _tune("--network", path, "--trials", "16", "--log", str(tmp_path / "work"),
                 "--desired-layout", "NHWC", "--export", lib) == 0
    out = capsys.readouterr().out
    assert "outputs match onnxruntime" in out and "onnxruntime runs the original in" in out
    counts = dict(p.split() for p in out.split("trials a task: ")[1].splitlines()[0].split(", "))
    assert sum(map(int, counts.values())) >= 8  # measured records in the database
    with open(lib + ".json") as f:
        meta = json.load(f)
    assert meta.pop("threads") >= 1  # the TVM_NUM_THREADS to run it with
    assert meta == {"inputs": {"image": {"shape": [1, 3, 8, 8], "dtype": "float32"}},
                    "entry": "main", "executor": "relax-vm"}
    image = np.random.default_rng(1).uniform(size=(1, 3, 8, 8)).astype("float32")
    np.save(tmp_path / "image.npy", image)
    script = ("import sys, numpy as np, tvm\nfrom tvm import relax\n"
              "vm = relax.VirtualMachine(tvm.runtime.load_module(sys.argv[1]), tvm.cpu())\n"
              "out = vm['main'](tvm.runtime.tensor(np.load(sys.argv[2])))\n"
              "np.save(sys.argv[3], out.numpy())\n")
    subprocess.run([sys.executable, "-c", script, lib, str(tmp_path / "image.npy"),
                    str(tmp_path / "out.npy")], check=True, cwd=str(tmp_path))
    expected = onnxruntime.InferenceSession(path).run(None, {"image": image})[0]
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, rtol=1e-4, atol=1e-5)


def test_a_torch_entry_point_resumes_and_checks_token_ids_over_the_vocabulary(tmp_path, capsys):
    """An entry point through ``torch.export``; its token ids are checked over the
    embedding's 50 rows; ``--resume`` counts the records already measured against the budget
    and trains the model on them; without weight prepacking it builds too."""
    from tvm_gnn_cost.metaschedule.tuning import ms_workload_from_model
    from tvm_gnn_cost.workloads.targets import host_target, with_num_cores

    workload = ms_workload_from_model("tiny_models:language_model",
                                      with_num_cores(host_target()), weight_prepack=False)
    assert workload.model.input_ranges == {"input0": (0, 50)}
    tasks = len(workload.modules)
    work = str(tmp_path / "work")
    argv = ["--network", "tiny_models:language_model", "--log", work, "--no-weight-prepack"]
    assert _tune(*argv, "--trials", str(tasks), "--no-build") == 0
    first = capsys.readouterr().out
    with pytest.raises(SystemExit, match="holds a tuning database; pass --resume"):
        _tune(*argv, "--trials", str(2 * tasks))
    assert _tune(*argv, "--trials", str(2 * tasks), "--resume") == 0
    out = capsys.readouterr().out
    before = int(first.split("tuned to ")[1].split()[0])
    after = int(out.split("tuned to ")[1].split()[0])
    assert before >= tasks - 8 and before < after <= 2 * tasks + 8
    assert "outputs match torch" in out


def test_a_wrong_build_is_an_error_and_the_database_is_kept(tmp_path, capsys):
    """A model whose exported graph computes something else than torch: the same check and
    the same error as an Ansor build."""
    work = tmp_path / "work"
    assert _tune("--network", "tiny_models:wrong_when_exported", "--trials", "8",
                 "--log", str(work)) == 1
    err = capsys.readouterr().err
    assert "outputs differ from torch" in err and f"kept in {work}" in err
    assert os.path.getsize(work / "database_tuning_record.json") > 0


def test_what_metaschedule_cannot_take_is_refused_with_the_fix(tmp_path):
    script = tmp_path / "model.pt"
    script.write_bytes(b"not read")
    cases = [
        (["--network", str(script), "--trials", "8"], "TorchScript.*export the model to ONNX"),
        (["--network", "tiny_models:cnn", "--trials", "8", "--cache-flush"],
         "--cache-flush applies to the Ansor search"),
        (["--network", "tiny_models:cnn", "--trials", "8", "--model", "xgb-w16"],
         "is an Ansor model"),
        (["--network", "tiny_models:cnn", "--trials", "8", "--model", "xgb", "--no-prior"],
         "--no-prior needs --model gnn"),
        (["--network", "matmul", "--trials", "8"], "single operators"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit, match=message):
            _tune(*argv, "--log", str(tmp_path / "work"))
    assert not os.path.exists(tmp_path / "work" / "database_tuning_record.json")
