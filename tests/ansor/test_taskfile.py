"""Task files are JSON that loading runs no code from; pickles only when trusted."""
import gzip
import json
import os
import pickle
import shutil

import pytest
from tvm import auto_scheduler, te

from tvm_gnn_cost.ansor.featurizer import task_key
from tvm_gnn_cost.ansor.taskfile import (UntrustedPickleError, convert_task_file, find_task_file,
                                         read_task_file, save_tasks, tasks_path)
from tvm_gnn_cost.cli import main

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _task(target, n=24):
    a = te.placeholder((n, 40), name="a")
    k = te.reduce_axis((0, 40), name="k")
    s = te.compute((n,), lambda i: te.sum(a[i, k] * 2.0, axis=k), name="s")
    dag = auto_scheduler.ComputeDAG([a, s])
    auto_scheduler.workload_registry.register_workload_tensors(dag.workload_key(), [a, s])
    return auto_scheduler.SearchTask(
        compute_dag=dag, workload_key=dag.workload_key(), target=target, desc=f"sum{n}",
        layout_rewrite_option=auto_scheduler.LayoutRewriteOption.NO_REWRITE,
        hardware_params=auto_scheduler.HardwareParams(num_cores=3, vector_unit_bytes=32,
                                                      cache_line_bytes=64, target=target))


@pytest.mark.parametrize("name", ["t.tasks.json", "t.tasks.json.gz"])
def test_json_task_file_keeps_every_field(tmp_path, target, name):
    tasks = [_task(target, 24), _task(target, 32)]
    path = str(tmp_path / name)
    save_tasks(tasks, path, weights=[2, 5])
    raw = (gzip.open if name.endswith(".gz") else open)(path, "rt").read()
    doc = json.loads(raw)
    assert doc["format"] == "tvm-gnn-cost-tasks" and len(doc["tasks"]) == 2
    back, weights = read_task_file(path)
    assert weights == [2, 5]
    for a, b in zip(tasks, back):
        assert task_key(a) == task_key(b) and b.desc == a.desc
        assert str(a.compute_dag) == str(b.compute_dag)
        assert int(b.layout_rewrite_option) == int(auto_scheduler.LayoutRewriteOption.NO_REWRITE)
        assert (b.hardware_params.num_cores, b.hardware_params.vector_unit_bytes) == (3, 32)
    # adding keeps what is there and updates the weight of a task given again
    save_tasks([tasks[1]], path, weights=[7])
    assert read_task_file(path)[1] == [2, 7]


def test_pickles_are_read_only_when_trusted(tmp_path, target):
    tasks = [_task(target, 16)]
    pkl = str(tmp_path / "old.tasks.pkl")
    with open(pkl, "wb") as f:
        pickle.dump((tasks, [4]), f)
    with pytest.raises(UntrustedPickleError, match="--trust-pickle"):
        read_task_file(pkl)
    assert read_task_file(pkl, trust_pickle=True)[1] == [4]
    out = convert_task_file(pkl)
    assert out == str(tmp_path / "old.tasks.json")
    back, weights = read_task_file(out)
    assert [task_key(t) for t in back] == [task_key(t) for t in tasks] and weights == [4]
    with pytest.raises(ValueError, match="JSON"):
        save_tasks(tasks, pkl)
    # beside a log, the JSON file is found before the pickle
    assert find_task_file(str(tmp_path / "old.json")) == out
    assert tasks_path(str(tmp_path / "x.json.gz")) == str(tmp_path / "x.tasks.json")


def test_evaluate_refuses_a_pickle_unless_trusted(tmp_path, capsys):
    """A shipped held-out log with its tasks as a pickle (as datasets before December 2026)."""
    log = str(tmp_path / "bert.json.gz")
    shutil.copy(os.path.join(REPO, "data", "validation", "bert.json.gz"), log)
    tasks, weights = read_task_file(os.path.join(REPO, "data", "validation", "bert.tasks.json.gz"))
    with gzip.open(str(tmp_path / "bert.tasks.pkl.gz"), "wb") as f:
        pickle.dump((tasks, weights), f)
    ckpt = os.path.join(REPO, "tvm_gnn_cost", "checkpoints", "gnn-cpu.pt")
    args = ["evaluate", log, "--model", ckpt, "--baseline", "none",
            "--json", str(tmp_path / "m.json")]
    with pytest.raises(SystemExit, match="is a pickle.*--trust-pickle"):
        main(args)
    assert main(args + ["--trust-pickle"]) == 0
    scores = json.load(open(tmp_path / "m.json"))["gnn"]["all"]
    assert scores["tasks"] == 9 and scores["programs"] == 216 and 0.6 < scores["pairwise"] <= 1.0
