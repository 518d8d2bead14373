"""Foreign Ansor logs imported: tasks rebuilt by key, by shapes where this TVM hashes them
otherwise, or as a recognized operator; steps replayed; what cannot be used counted."""
import gzip
import json
import subprocess
import sys

import pytest
from tvm import auto_scheduler

from tvm_gnn_cost.ansor.importer import NO_REPLAY, NO_TASK, TaskMatcher, import_log
from tvm_gnn_cost.ansor.logs import UNREADABLE
from tvm_gnn_cost.ansor.sampling import sample_states
from tvm_gnn_cost.cli import main

MLP = "tvm_gnn_cost.workloads.corpus.tlcbench:mlp1_b2_float32"
ICELAKE = "llvm -keys=cpu -mcpu=icelake-server -model=platinum-8358"
FOREIGN_HASH = "f3351bf9aef587a2fb1bf57b0fc78601"  # what another TVM printed for matmul+ReLU


@pytest.fixture(scope="module")
def foreign_log(tmp_path_factory):
    """A log as another TVM and another CPU wrote it: TLCBench's MLP1 at batch 2 on a 32-core
    Ice Lake, each task's key hashed otherwise than here, one record of a workload no network
    here has, one whose steps name a stage the task lacks, and a damaged line."""
    from tvm_gnn_cost.workloads.networks import load_workload

    tasks = load_workload(MLP, ICELAKE, layout=None).tasks
    hardware = auto_scheduler.HardwareParams(32, 64, 64, 0, 0, 0, 0, 0)  # as TLCBench's
    lines = []
    path = str(tmp_path_factory.mktemp("foreign") / "MLP1-B2-float32.json")
    for i, task in enumerate(tasks):
        task = auto_scheduler.SearchTask(workload_key=task.workload_key, target=ICELAKE,
                                         hardware_params=hardware, layout_rewrite_option=2)
        states = sample_states(task, 4, seed=i)
        results = [auto_scheduler.MeasureResult([1e-4 * (j + 1)], 0, "", 0.1, 1e9 + j)
                   for j in range(len(states))]
        auto_scheduler.save_records(path, [auto_scheduler.MeasureInput(task, s)
                                           for s in states], results)
    for line in open(path).read().splitlines():
        record = json.loads(line)
        key = json.loads(record["i"][0][0])
        record["i"][0][0] = json.dumps([FOREIGN_HASH, *key[1:]])
        lines.append(json.dumps(record))
    unknown = json.loads(lines[0])
    unknown["i"][0][0] = json.dumps([FOREIGN_HASH, [7, 7], [7, 7], [7, 7], [7, 7]])
    broken = json.loads(lines[1])
    broken["i"][1][1] = [["AN", 99, 0, 3]]  # stage 99: no task has it
    lines += [json.dumps(unknown), json.dumps(broken), lines[2][: len(lines[2]) // 2]]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path, len(tasks), len(lines) - 3


def test_a_foreign_log_is_rebuilt_by_shapes_replayed_and_kept_apart(foreign_log, tmp_path):
    log, n_tasks, good = foreign_log
    out = str(tmp_path / "imported" / "MLP1-B2-float32.json.gz")
    assert main(["import", log, "--network", MLP, "--out", str(tmp_path / "imported")]) == 0
    with open(out + ".import.json") as f:
        report = json.load(f)
    assert report["read"] == good + 2  # the damaged line is not a record
    assert report["rebuilt"] == good + 1 and report["replayed"] == good == report["valid"]
    assert report["skipped"] == {NO_TASK: 1, NO_REPLAY: 1, UNREADABLE: 1}
    hows = [h for k, h in report["matched"].items() if "[7, 7]" not in k]
    assert len(hows) == n_tasks and all(h.startswith("shapes: vm_mod_fused_nn_matmul") for h in hows)
    # the records read back in a fresh process through the task file beside them, with the
    # target, hardware and layout-rewrite option they were measured with
    read = subprocess.run([sys.executable, "-c", """
import sys
from tvm_gnn_cost.ansor.logs import read_log
from tvm_gnn_cost.ansor.taskfile import register_logs
register_logs([sys.argv[1]])
inputs, _, _ = read_log(sys.argv[1])
t = inputs[0].task
print(len(inputs), t.target, t.hardware_params.num_cores, t.layout_rewrite_option)
""", out], capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr
    assert read.stdout.split("\n")[-2] == f"{good} {ICELAKE} 32 2"
    with gzip.open(out, "rt") as f:
        assert f.read().count(FOREIGN_HASH) == 0  # named by this TVM's keys now
    # a rerun keeps what was imported; --force imports again
    before = open(out, "rb").read()
    assert main(["import", log, "--network", MLP, "--out", str(tmp_path / "imported")]) == 0
    assert open(out, "rb").read() == before


def test_without_its_network_a_matmul_is_rebuilt_as_the_operator_its_shapes_say(foreign_log,
                                                                                tmp_path):
    """No network named: the matmuls are recognized from their shapes, and the steps that
    name the fused ReLU's stage do not replay on a matmul alone, so they are not taken."""
    log, n_tasks, good = foreign_log
    report = import_log(log, str(tmp_path / "op.json.gz"), TaskMatcher())
    assert report.rebuilt + report.skipped[NO_TASK] == report.read
    assert all(how in ("", "shapes: a single operator recognized from them")
               for how in report.matched.values())
    assert report.replayed < good  # steps for the ReLU stage: not a plain matmul's
    none = import_log(log, str(tmp_path / "none.json.gz"), TaskMatcher(operators=False))
    assert none.replayed == 0 and none.skipped[NO_TASK] == none.read


def test_bad_input_is_refused_with_the_fix(tmp_path):
    with pytest.raises(SystemExit, match="no log at"):
        main(["import", str(tmp_path / "missing.json"), "--out", str(tmp_path)])
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(SystemExit, match="no record to take the target from"):
        main(["import", str(empty), "--network", MLP, "--out", str(tmp_path / "o")])
