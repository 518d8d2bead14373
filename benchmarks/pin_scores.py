"""Rewrite tests/data/gnn_cpu_scores.json: the shipped checkpoint's scores of the first 48
records of each log it pins, which tests/ansor/test_cost_model.py checks. Run it once after
remaking the checkpoint (benchmarks/make_checkpoint.sh), from the repository root:

    .venv/bin/python benchmarks/pin_scores.py
"""
import json

from tvm_gnn_cost import GNNCostModel
from tvm_gnn_cost.ansor.taskfile import register_logs
from tvm_gnn_cost.ansor.logs import read_log
from tvm_gnn_cost.ansor.records import group_by_task
from tvm_gnn_cost.core.checkpoint import SHIPPED_CHECKPOINT


path = "tests/data/gnn_cpu_scores.json"
old = json.load(open(path))
model = GNNCostModel()
model.load(SHIPPED_CHECKPOINT)
new = {}
for log in old:
    register_logs([log])
    inputs, results, _ = read_log(log, n_lines=48)
    new[log] = []
    for g in group_by_task(inputs, results, model.rebuilder):
        scores = model.trainer.predict(model.featurize_measured(g.task, g.states))
        new[log].append({"workload_key": g.task.workload_key, "scores": [float(s) for s in scores]})
    assert [t["workload_key"] for t in new[log]] == [t["workload_key"] for t in old[log]]
json.dump(new, open(path, "w"), indent=0)
