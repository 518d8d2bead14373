"""Collecting a dataset: resumable, nothing measured twice, readable in a fresh process."""
import json
import os
import subprocess
import sys

from tvm import auto_scheduler, te

from tvm_gnn_cost.cli import main
from tvm_gnn_cost.ansor.dataset import collect
from tvm_gnn_cost.ansor.taskfile import read_task_file, tasks_path

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _lines(log):
    return open(log).read().splitlines()


def test_collect_continues_and_a_fresh_process_reads_it_back(tmp_path, target):
    # A workload no module registers: only the saved task file makes its log readable.
    a = te.placeholder((32, 48), name="a")
    k = te.reduce_axis((0, 48), name="k")
    s = te.compute((32,), lambda i: te.sum(te.exp(a[i, k]), axis=k), name="s")
    dag = auto_scheduler.ComputeDAG([a, s])
    # registered in this process only, as extract_tasks does for a network's tasks
    auto_scheduler.workload_registry.register_workload_tensors(dag.workload_key(), [a, s])
    task = auto_scheduler.SearchTask(compute_dag=dag, workload_key=dag.workload_key(),
                                     target=target)
    log = str(tmp_path / "data" / "ds.json")
    assert collect([task], 4, log) == 4
    first = _lines(log)
    assert collect([task], 4, log) == 4 and _lines(log) == first  # nothing new to measure
    assert collect([task], 6, log, weights=[3]) == 6
    assert read_task_file(tasks_path(log))[1] == [3]  # its weight in the network, for top-k
    lines = _lines(log)
    assert lines[:4] == first and len(lines) == 6
    assert len({json.dumps(json.loads(x)["i"]) for x in lines}) == 6  # none measured twice
    assert os.path.exists(tasks_path(log))

    code = ("import sys; from tvm_gnn_cost.ansor.cost_model import GNNCostModel; "
            "from tvm_gnn_cost.ansor.taskfile import register_logs; "
            "register = sys.argv[2] == 'yes'; register and register_logs([sys.argv[1]]); "
            "m = GNNCostModel(num_warmup_sample=2)\n"
            "try: print('used', m.update_from_file(sys.argv[1]))\n"
            "except ValueError as e: print('refused', e)")
    env = dict(os.environ, TOPHUB_LOCATION="NONE")
    for register, expect in (("yes", "used 6"), ("no", "refused no usable")):
        out = subprocess.run([sys.executable, "-c", code, log, register], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=300)
        assert expect in out.stdout, out.stdout + out.stderr[-2000:]


def test_collect_command_on_an_operator(tmp_path, capsys):
    log = str(tmp_path / "mm.json")
    assert main(["collect", "--network", "matmul", "--input-shape", "64,64,64",
                 "--programs-per-task", "3", "--out", log]) == 0
    assert len(_lines(log)) == 3 and os.path.exists(tasks_path(log))
    assert "3 random programs of 1 tasks" in capsys.readouterr().out
