"""Users' own models from the command line: ONNX files, TorchScript files and entry points are
tuned, built, checked against the original, exported, and run in a fresh process."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from tvm_gnn_cost.cli import main
from tvm_gnn_cost.workloads.models import is_model_spec, parse_input_dtypes, parse_input_shapes

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # tiny_models, as a user's package on the path
import tiny_models  # noqa: E402

# A deployment without the compiler: TVM's runtime library alone (TVM_USE_RUNTIME_LIB), where
# the compiler's modules cannot be imported; it says so before it runs the library.
RUN_EXPORTED = """
import json, sys
import numpy as np
import tvm.runtime
from tvm.contrib import graph_executor

loaded = open("/proc/self/maps").read()
assert "libtvm_runtime.so" in loaded and "libtvm.so" not in loaded, "the compiler is loaded"
for compiler in ("tvm.relay", "tvm.auto_scheduler", "tvm.meta_schedule"):
    try:
        __import__(compiler)
    except Exception:
        continue
    raise AssertionError(compiler + " imports: this process has the compiler")
lib = tvm.runtime.load_module(sys.argv[1])
inputs = json.load(open(sys.argv[1] + ".json"))["inputs"]
feeds = np.load(sys.argv[2])
module = graph_executor.GraphModule(lib["default"](tvm.runtime.cpu()))
for name in inputs:
    module.set_input(name, feeds[name])
module.run()
np.savez(sys.argv[3], *[module.get_output(i).numpy() for i in range(module.get_num_outputs())])
"""


# A log's records as a process that did not tune it reads them.
READ_LOG = """
import sys
from tvm_gnn_cost.ansor.logs import read_log
from tvm_gnn_cost.ansor.taskfile import register_logs

print(register_logs([sys.argv[1]]), len(read_log(sys.argv[1])[0]))
"""


def run_exported(lib, feeds, tmp_path):
    """The exported library's outputs on ``feeds``, computed in a fresh process that has
    TVM's runtime and not its compiler."""
    np.savez(tmp_path / "feeds.npz", **feeds)
    out = tmp_path / "out.npz"
    done = subprocess.run([sys.executable, "-c", RUN_EXPORTED, lib, str(tmp_path / "feeds.npz"),
                           str(out)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TVM_USE_RUNTIME_LIB": "1"})
    assert done.returncode == 0, done.stderr
    outputs = np.load(out)
    return [outputs[f"arr_{i}"] for i in range(len(outputs.files))]


def tune(network, tmp_path, capsys, trials, *extra):
    log, lib = str(tmp_path / "tuned.json"), str(tmp_path / "tuned.so")
    assert main(["tune", "--network", network, "--trials", str(trials), "--measures-per-round",
                 "1", "--log", log, "--export", lib, *extra]) == 0
    out = capsys.readouterr().out
    assert "outputs match" in out and "largest difference" in out
    with open(lib + ".json") as f:
        assert json.load(f)["inputs"]
    return lib, out


def test_an_onnx_model_is_tuned_checked_exported_and_runs_in_a_fresh_process(tmp_path, capsys):
    import onnxruntime

    model, x = tiny_models.cnn()
    path = str(tmp_path / "cnn.onnx")
    torch.onnx.export(model, (x,), path, dynamo=False, input_names=["input"])
    lib, out = tune(path, tmp_path, capsys, 4, "--input-shapes", "input:[1,3,8,8]")
    assert "outputs match onnxruntime" in out and "onnxruntime runs the original in" in out
    assert "ms (the two timed in turns)" in out
    feeds = {"input": np.random.default_rng(1).uniform(size=(1, 3, 8, 8)).astype("float32")}
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)[0]
    np.testing.assert_allclose(run_exported(lib, feeds, tmp_path)[0], expected, rtol=1e-4,
                               atol=1e-5)
    # Another day: the log names workloads that only the tuning process registered; the tasks
    # kept beside it register them again in a fresh process (as pretrain and evaluate do).
    tasks = int(re.search(r"cnn.onnx: (\d+) tasks", out).group(1))
    read = subprocess.run([sys.executable, "-c", READ_LOG, str(tmp_path / "tuned.json")],
                          capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr
    assert read.stdout.split() == [str(tasks), "4"]  # tasks registered, records read


def test_a_torchscript_model_in_nchw_is_tuned_in_nhwc_and_matches_torch(tmp_path, capsys):
    model, x = tiny_models.cnn()
    path = str(tmp_path / "cnn.pt")
    torch.jit.trace(model, (x,)).save(path)
    lib, out = tune(path, tmp_path, capsys, 4, "--input-shapes", "input0:[1,3,8,8]")
    assert "outputs match torch" in out
    feeds = {"input0": np.random.default_rng(2).uniform(size=(1, 3, 8, 8)).astype("float32")}
    with torch.no_grad():
        expected = model(torch.from_numpy(feeds["input0"])).numpy()
    np.testing.assert_allclose(run_exported(lib, feeds, tmp_path)[0], expected, rtol=1e-4,
                               atol=1e-5)


def test_an_encoder_from_an_entry_point_tunes_builds_and_runs(tmp_path, capsys):
    """A torch Linear on a 3-D input is a batch_matmul with a broadcast weight, whose layout
    rewrite broke TVM 0.19's build, and TVM's dense could not be rewritten at all (every
    schedule failed): both are now dense tasks tuned and built with the weights' layout
    rewritten, every program measured."""
    from tvm import auto_scheduler

    lib, out = tune("tiny_models:encoder", tmp_path, capsys, 9, "--profile")
    assert "9 tasks" in out and "outputs match torch" in out
    # where the built network's time goes: each function, tuned or not, and the sums
    assert "where the time goes" in out and "functions that are no task" in out
    with open(tmp_path / "tuned.json.profile.json") as f:
        profile = json.load(f)
    assert profile["rows"] and any(r["tuned"] for r in profile["rows"])
    assert profile["total_ms"] == pytest.approx(sum(r["ms"] for r in profile["rows"]))
    assert profile["estimate_ms"] > 0 and profile["built_ms"] > 0
    inputs, results = auto_scheduler.RecordReader(str(tmp_path / "tuned.json")).read_lines()
    assert not [r for r in results if int(r.error_no) != 0]
    # the four dense tasks, measured with the weights in the layout their schedules read
    assert [int(i.task.layout_rewrite_option) for i in inputs].count(2) >= 4
    model, x = tiny_models.encoder()
    feeds = {"input0": x.numpy()}
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(run_exported(lib, feeds, tmp_path)[0], expected, rtol=1e-3,
                               atol=1e-4)
    # tuning goes on with the scheduler counting each task's time in that build
    log = str(tmp_path / "tuned.json")
    assert main(["tune", "--network", "tiny_models:encoder", "--trials", "18",
                 "--measures-per-round", "1", "--log", log, "--resume", "--no-build",
                 "--weigh-by-profile", log + ".profile.json"]) == 0
    out = capsys.readouterr().out
    weighed = sum(1 for r in profile["rows"] if r["tuned"] and r["estimate_ms"])
    assert f"scheduler weights: {weighed} of 9 tasks weighed" in out
    assert len(auto_scheduler.RecordReader(log).read_lines()[0]) == 18


@pytest.fixture
def mha_fast_path():
    """Torch's default (on), made sure of: the test is about the fast path."""
    before = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(True)
    yield
    torch.backends.mha.set_fastpath_enabled(before)


def test_a_language_model_on_token_ids_tunes_builds_and_runs(tmp_path, capsys, target,
                                                             mha_fast_path):
    """int64 inputs, an embedding, and nn.MultiheadAttention with torch's fast path on, from
    an entry point; the same model as a TorchScript file needs its inputs' dtype."""
    from tvm_gnn_cost.workloads.networks import load_workload

    lib, out = tune("tiny_models:language_model", tmp_path, capsys, 10)
    assert "outputs match torch" in out
    model, ids = tiny_models.language_model()
    feeds = {"input0": np.random.default_rng(3).integers(0, 50, size=(1, 8))}
    with torch.no_grad():
        expected = model(torch.from_numpy(feeds["input0"])).numpy()
    np.testing.assert_allclose(run_exported(lib, feeds, tmp_path)[0], expected, rtol=1e-3,
                               atol=1e-4)

    path = str(tmp_path / "lm.pt")
    torch.jit.trace(model, (ids,), check_trace=False).save(path)  # traced with gradients on
    workload = load_workload(path, target, input_shapes={"input0": (1, 8)},
                             input_dtypes={"input0": "int64"})
    assert workload.inputs == {"input0": ((1, 8), "int64")}
    # the check feeds token ids over the embedding's 50 rows, not 0 and 1 (--input-range
    # sets another range)
    assert workload.input_ranges == {"input0": (0, 50)}
    assert len(np.unique(workload.feeds()["input0"])) > 2
    given = load_workload(path, target, input_shapes={"input0": (1, 8)},
                          input_dtypes={"input0": "int64"}, ranges={"input0": (10, 20)})
    assert 10 <= given.feeds()["input0"].min() <= given.feeds()["input0"].max() < 20
    with pytest.raises(SystemExit, match=r"--input-range names \['ids'\]"):
        main(["tune", "--network", path, "--input-shapes", "input0:[1,8]:int64",
              "--input-range", "ids:0:50", "--trials", "10", "--log", str(tmp_path / "y.json")])
    with torch.no_grad():  # without gradients the fast path's fused operator is traced
        torch.jit.trace(model, (ids,), check_trace=False).save(path)
    with pytest.raises(SystemExit, match="cannot import lm.pt: .*_native_multi_head_attention"):
        main(["tune", "--network", path, "--input-shapes", "input0:[1,8]:int64", "--trials",
              "10", "--log", str(tmp_path / "x.json")])


def test_token_ids_from_onnx_are_checked_over_the_embedding_they_index(tmp_path, target):
    """ONNX's Gather reaches Relay's take through the negative-index fix-up (where(i < 0,
    i + rows, i)): its rows still bound the ids the check draws."""
    from tvm_gnn_cost.workloads.networks import load_workload

    model = torch.nn.Sequential(torch.nn.Embedding(300, 16), torch.nn.Linear(16, 4))
    path = str(tmp_path / "emb.onnx")
    torch.onnx.export(model, (torch.randint(0, 300, (1, 8)),), path, dynamo=False,
                      input_names=["ids"])
    workload = load_workload(path, target)
    assert workload.input_ranges == {"ids": (0, 300)}
    assert workload.feeds()["ids"].max() > 100


def test_a_model_with_two_inputs_and_a_dynamic_batch_is_tuned_with_the_shapes_given(
        tmp_path, capsys, target):
    """An ONNX file with a dynamic batch axis needs every input's shape, and is refused with
    an example built from its own dims; both outputs of the exported library are checked. A
    TorchScript file's inputs are taken by name in its forward's order, or refused with its
    argument names."""
    import onnxruntime

    from tvm_gnn_cost.workloads.networks import load_workload

    model, (image, features) = tiny_models.two_inputs()
    path = str(tmp_path / "two.onnx")
    torch.onnx.export(model, (image, features), path, dynamo=False,
                      input_names=["image", "features"],
                      dynamic_axes={"image": {0: "batch"}, "features": {0: "batch"}})
    log = str(tmp_path / "x.json")
    with pytest.raises(SystemExit, match=r"inputs 'image' \[batch,3,8,8\], 'features' "
                                         r"\[batch,4\] of .* have no static shape.*"
                                         r"'image:\[1,3,8,8\] features:\[1,4\]'"):
        main(["tune", "--network", path, "--trials", "4", "--log", log])
    with pytest.raises(SystemExit, match="cannot import .*two.onnx: .*check --input-shapes"):
        main(["tune", "--network", path, "--input-shapes", "image:[2,3,8,8] features:[3,4]",
              "--trials", "4", "--log", log])
    assert not os.path.exists(log)

    lib, out = tune(path, tmp_path, capsys, 5, "--input-shapes",
                    "image:[2,3,8,8] features:[2,4]")
    assert "outputs match onnxruntime" in out
    rng = np.random.default_rng(4)
    feeds = {"image": rng.uniform(size=(2, 3, 8, 8)).astype("float32"),
             "features": rng.uniform(size=(2, 4)).astype("float32")}
    expected = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
        None, feeds)
    outputs = run_exported(lib, feeds, tmp_path)
    assert len(outputs) == 2
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

    path = str(tmp_path / "two.pt")
    torch.jit.trace(model, (image, features)).save(path)
    workload = load_workload(path, target, input_shapes={"features": (1, 4),
                                                         "image": (1, 3, 8, 8)})
    assert list(workload.inputs) == ["image", "features"]  # forward's order
    with pytest.raises(SystemExit, match=r"takes 2 input\(s\) \(image, features\) and "
                                         r"--input-shapes gives 1"):
        main(["tune", "--network", path, "--input-shapes", "image:[1,3,8,8]", "--trials", "4",
              "--log", log])


def test_a_bilinear_upsampling_builds_despite_tvms_debug_record_bug(tmp_path, capsys,
                                                                   caplog):
    """TVM 0.19's LLVM code generation writes debug records for float variables that LLVM 22
    rejects; a bilinear resize has them, tuned or not. The build goes on without TIR's CSE."""
    lib, out = tune("tiny_models:upsampler", tmp_path, capsys, 2)
    assert "outputs match torch" in out
    assert "apache/tvm#18585" in caplog.text  # the fallback was taken
    model, x = tiny_models.upsampler()
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(run_exported(lib, {"input0": x.numpy()}, tmp_path)[0],
                               expected, rtol=1e-4, atol=1e-5)


def test_reductions_whose_axes_are_an_input_import_and_match_onnxruntime(tmp_path, target):
    """Opset 18, what torch.onnx.export writes by default, gives a reduction its axes as an
    input: TVM 0.19's frontend kept the first of them (ReduceMean, ReduceMax, ReduceSum) or
    raised a TypeError (ReduceL2)."""
    from tvm_gnn_cost.ansor.build import build_and_time
    from tvm_gnn_cost.workloads.harness import WrongResultError, relative_error
    from tvm_gnn_cost.workloads.networks import load_workload

    model, x = tiny_models.reductions()
    path = str(tmp_path / "reductions.onnx")
    torch.onnx.export(model, (x,), path, dynamo=False, opset_version=18, input_names=["input"])
    workload = load_workload(path, target)
    log = tmp_path / "untuned.json"
    log.write_text("")  # no records: every task is built with TVM's default schedule
    report = build_and_time(workload, str(log), target, number=1, repeat=1, min_repeat_ms=1)
    assert report.reference == "onnxruntime" and report.error < 1e-5
    assert report.latency > 0 and report.reference_latency > 0  # both timed, in turns
    assert len(report.fallback) == len(workload.tasks) > 0
    with pytest.raises(WrongResultError, match=r"output 0 of the build has shape \(1, 8, 8\), "
                                               r"the reference's \(1, 8\)"):
        relative_error([np.zeros((1, 8, 8))], [np.zeros((1, 8))])
    # Axes computed at run time stay an input; the frontend's own error is told in one line.
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["x", "axes"], ["y"])], "dynamic_axes",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)
    with pytest.raises(ValueError, match="TVM's frontend failed on .*reductions.onnx: ValueError: "
                                         "Dynamic Reduce is not supported yet. Export the "
                                         "model another way"):
        load_workload(path, target)


@pytest.mark.parametrize("network, message", [
    ("tiny_models:nan_when_traced", r"outputs have 8 NaN or inf value\(s\) where torch has "
                                    r"numbers"),
    ("tiny_models:off_when_traced", r"outputs differ from torch by \d\.\d+e-0\d of their "
                                    r"largest value")])
def test_a_wrong_build_ends_tune_with_the_checks_message_and_keeps_the_log(network, message,
                                                                          tmp_path, capsys):
    """What TVM builds computes something else than the model in torch (here the model's
    trace differs from it, as a corrupted weight or a wrong schedule would): ``tune`` ends
    with the check's message and exit 1, every measurement kept; ``compare`` marks the run's
    build as failed in its table, CSV and verdict, and exits 1."""
    from tvm import auto_scheduler

    log = str(tmp_path / "wrong.json")
    assert main(["tune", "--network", network, "--trials", "2", "--measures-per-round", "1",
                 "--log", log]) == 1
    captured = capsys.readouterr()
    assert re.search(message, captured.err), captured.err
    assert f"Every measured record is kept in {log}" in captured.err
    assert "outputs match" not in captured.out
    assert len(list(auto_scheduler.RecordReader(log))) == 2
    out = tmp_path / "cmp"
    assert main(["compare", "--network", network, "--seeds", "0", "--trials", "2",
                 "--measures-per-round", "1", "--logs", f"gnn={log}", "--out", str(out)]) == 1
    assert "1 of 1 runs built a network whose outputs are wrong (gnn seed 0)" in \
        capsys.readouterr().err
    assert "none (0 of 1 built; failed: seed 0)" in (out / "summary.md").read_text()
    with open(out / "curves.json") as f:
        assert re.search(message, json.load(f)[0]["build_error"])
    assert "failed" in (out / "curves.csv").read_text()


def test_a_tvm_error_is_told_by_the_line_that_names_it():
    """What TVM 0.19 raised for the upsampler before the CSE fallback: its last line says
    nothing."""
    from tvm_gnn_cost.workloads.errors import error_summary

    raised = RuntimeError(
        "Traceback (most recent call last):\n  0: tvm::codegen::CodeGenLLVM::Verify() const\n"
        '  File "/project/tvm/src/target/llvm/codegen_llvm.cc", line 361\n'
        "TVMError: LLVM module verification failed with the following errors: \n"
        "location of #dbg_declare must be a pointer or int\n"
        "#dbg_declare(float %cse_var_1, !1413, !DIExpression(), !1406)\n"
        "ptr @__tvm_parallel_lambda\n")
    assert error_summary(raised) == ("TVMError: LLVM module verification failed with the "
                                     "following errors: location of #dbg_declare must be a "
                                     "pointer or int")
    assert error_summary(NotImplementedError("ops: ['aten::x']")) == \
        "NotImplementedError: ops: ['aten::x']"
    assert error_summary(ValueError()) == "ValueError"


def test_an_entry_point_returning_a_module_alone_takes_input_shapes(tmp_path, capsys, target):
    """As ``--network torchvision.models:resnet18 --input-shapes 'x:[1,3,224,224]'``."""
    from tvm_gnn_cost.workloads.networks import load_workload

    log = str(tmp_path / "x.json")
    with pytest.raises(SystemExit, match="returned a module without example inputs; give its "
                                         "input shapes with --input-shapes"):
        main(["tune", "--network", "tiny_models:cnn_module", "--trials", "4", "--log", log])
    with pytest.raises(SystemExit, match="gives its own example inputs; drop --input-shapes"):
        main(["tune", "--network", "tiny_models:cnn", "--input-shapes", "x:[1,3,8,8]",
              "--trials", "4", "--log", log])
    workload = load_workload("tiny_models:cnn_module", target,
                             input_shapes={"image": (1, 3, 8, 8)})
    assert workload.inputs == {"image": ((1, 3, 8, 8), "float32")} and workload.tasks
    model, x = tiny_models.cnn()
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(workload.reference({"image": x.numpy()})[0], expected)


def test_the_layout_rewrite_is_off_only_where_tvm_cannot_build_it(target):
    from tvm.auto_scheduler.compute_dag import LayoutRewriteOption

    from tvm_gnn_cost.workloads.networks import load_workload

    enc = load_workload("tiny_models:encoder", target)
    off = {t.desc for t in enc.tasks if t.layout_rewrite_option == LayoutRewriteOption.NO_REWRITE}
    # the attention's batch_matmuls of two activations stay without; every dense (a torch
    # Linear on a 3-D input, a broadcast batch_matmul before) has it
    assert off and all("batch_matmul" in d for d in off)
    dense = [t for t in enc.tasks if "dense" in t.desc]
    assert len(dense) == 4 and all(t.layout_rewrite_option != LayoutRewriteOption.NO_REWRITE
                                   for t in dense)
    assert all("T_dense(i, j)" in str(t.compute_dag) for t in dense)  # rewritable axis names
    assert {t.workload_key for t in enc.tasks if t.desc in off} == enc.no_rewrite
    cnn = load_workload("tiny_models:cnn", target)
    conv = [t for t in cnn.tasks if "conv2d" in t.desc]
    assert conv and all(t.layout_rewrite_option != LayoutRewriteOption.NO_REWRITE for t in conv)
    assert all("conv2d_nhwc" in str(t.compute_dag) for t in conv)  # NHWC by default on CPU
    nchw = load_workload("tiny_models:cnn", target, layout=None)
    assert not any("conv2d_nhwc" in str(t.compute_dag) for t in nchw.tasks)


def test_model_specs_and_input_shapes_are_read_as_tvmc_writes_them():
    assert parse_input_shapes("input:[1,3,224,224] mask:[1, 128]") == {
        "input": (1, 3, 224, 224), "mask": (1, 128)}
    assert parse_input_shapes(None) == {}
    assert parse_input_shapes("input_1:0:[1,224,224,3] serving/mask.1:[1,2]:int64") == {
        "input_1:0": (1, 224, 224, 3), "serving/mask.1": (1, 2)}  # TensorFlow's names
    assert parse_input_dtypes("ids:[1,128]:int64 mask:[1,128]") == {"ids": "int64"}
    assert parse_input_shapes("ids:[1,128]:int64 mask:[1,128]") == {
        "ids": (1, 128), "mask": (1, 128)}
    with pytest.raises(ValueError, match="not a dtype"):
        parse_input_dtypes("ids:[1,128]:int46")
    with pytest.raises(ValueError, match="NAME:\\[D1,D2"):
        parse_input_shapes("1,3,224,224")
    assert is_model_spec("model.onnx") and is_model_spec("my_pkg.models:build")
    assert not is_model_spec("resnet-18")


def test_bad_model_arguments_are_refused_with_the_fix(tmp_path, monkeypatch):
    log = str(tmp_path / "x.json")
    with pytest.raises(SystemExit, match="no ONNX file"):
        main(["tune", "--network", str(tmp_path / "none.onnx"), "--trials", "4", "--log", log])
    path = str(tmp_path / "cnn.pt")
    model, x = tiny_models.cnn()
    torch.jit.trace(model, (x,)).save(path)
    with pytest.raises(SystemExit, match="--input-shapes"):
        main(["tune", "--network", path, "--trials", "4", "--log", log])
    (tmp_path / "a-file").write_text("")
    with pytest.raises(SystemExit, match="--export .*cannot create its folder"):
        main(["tune", "--network", path, "--input-shapes", "x:[1,3,8,8]", "--trials", "4",
              "--log", log, "--export", str(tmp_path / "a-file" / "m.so")])
    assert not os.path.exists(log)
    with pytest.raises(SystemExit, match="cannot load no_such_module:build"):
        main(["tune", "--network", "no_such_module:build", "--trials", "4", "--log", log])
    (tmp_path / "mymodel.py").write_text("def build():\n    pass\n")
    (tmp_path / "mymodel.so").write_bytes(open(torch._C.__file__, "rb").read())  # an export
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SystemExit, match="mymodel.so, an earlier --export"):
        main(["tune", "--network", "mymodel:build", "--trials", "4", "--log", log])
    for name, what in (("bad.onnx", "not a readable ONNX model"),
                       ("bad.pt", "not a readable TorchScript file")):
        (tmp_path / name).write_bytes(b"not a model")
        with pytest.raises(SystemExit, match=what):
            main(["tune", "--network", str(tmp_path / name), "--input-shapes", "x:[1,3]",
                  "--trials", "4", "--log", log])
    torch.save(model, str(tmp_path / "pickled.pt"))  # torch.save, not TorchScript
    torch.jit.script(model).save(str(tmp_path / "scripted.pt"))  # its aten::conv2d: no import
    for spec in ("pickled.pt", "scripted.pt", "tiny_models:scripted_cnn"):
        shapes = ["--input-shapes", "x:[1,3,8,8]"] if spec.endswith(".pt") else []
        with pytest.raises(SystemExit, match=r"torch.jit.trace\(model, example_inputs\)"):
            main(["tune", "--network", str(tmp_path / spec) if shapes else spec, *shapes,
                  "--trials", "4", "--log", log])


def test_compare_on_a_users_model_reports_the_framework_time_beside_the_builds(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    out = str(tmp_path / "cmp")
    assert main(["compare", "--network", "tiny_models:cnn", "--models", "random", "--trials",
                 "4", "--seeds", "1", "--measures-per-round", "2", "--out", out]) == 0
    summary = open(os.path.join(out, "summary.md")).read()
    assert "torch runs the original model in" in summary
    assert "(timed in turns with the builds)" in summary  # the host's drift hits both alike
    curve = json.load(open(os.path.join(out, "curves.json")))[0]
    assert curve["measured"] and curve["measured"] > 0  # the built network's latency
