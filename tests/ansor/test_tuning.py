"""GNNCostModel driving a real Ansor search: build, measure, learn, find faster code."""
import math

import numpy as np
from tvm import auto_scheduler

from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.ansor.records import measured_cost
from tvm_gnn_cost.core.labels import FAILED_COST
from tvm_gnn_cost.curves import curve_from_log
from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, tune


def test_matmul_search_finds_fast_code_and_model_sees_every_measurement(matmul_task, tmp_path):
    log = str(tmp_path / "matmul.json")
    model = GNNCostModel(seed=0)
    curve = tune([matmul_task], model, trials=32, log_file=log, search_params=SMALL_SEARCH,
                 measures_per_round=8)
    inputs, results = auto_scheduler.RecordReader(log).read_lines()
    assert len(inputs) == 32
    assert model.records_seen == 32  # update saw every measurement, failed ones too
    assert model.trainer.ready  # trained during the search
    costs = np.array([measured_cost(r) for r in results])
    valid = costs[costs < FAILED_COST]
    print(f"matmul 256^3: best {valid.min() * 1e3:.3f} ms, slowest {valid.max() * 1e3:.3f} ms")
    assert valid.max() / valid.min() >= 5.0
    assert math.isclose(curve.final, valid.min(), rel_tol=1e-4)


def test_task_scheduler_with_two_tasks_records_a_search_curve(matmul_task, conv_task, tmp_path):
    log = str(tmp_path / "two.json")
    model = GNNCostModel(seed=0)
    curve = tune([matmul_task, conv_task], model, trials=28, log_file=log, weights=[1, 2],
                 search_params=SMALL_SEARCH, measures_per_round=8, first_round=4)
    # a short first pass over the tasks (4 programs each), rounds of 8, and a last round cut
    # to the budget (TaskScheduler alone would measure 32)
    assert curve.trials == [4, 8, 16, 24, 28]
    rebuilt = curve_from_log(log, {matmul_task.workload_key: 1, conv_task.workload_key: 2},
                             "gnn", 0, round_size=8, first_round=4)  # as compare does
    assert rebuilt.trials == curve.trials
    finite = [lat for lat in curve.latency if math.isfinite(lat)]
    assert finite and all(b <= a for a, b in zip(finite, finite[1:]))  # best only improves
    best = {}  # best cost per task, from the log itself
    for inp, res in zip(*auto_scheduler.RecordReader(log).read_lines()):
        key = inp.task.workload_key
        best[key] = min(best.get(key, np.inf), measured_cost(res))
    expected = best[matmul_task.workload_key] * 1 + best[conv_task.workload_key] * 2
    assert math.isclose(curve.final, expected, rel_tol=1e-4)
    assert model.records_seen == 28
