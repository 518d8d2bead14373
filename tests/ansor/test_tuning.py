"""GNNCostModel driving a real Ansor search: build, measure, learn, find faster code."""
import math

import numpy as np
from tvm import auto_scheduler

from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.ansor.records import measured_cost
from tvm_gnn_cost.ansor.curves import curve_from_log
from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, tune


def test_the_gnn_beats_random_search_on_a_held_out_task(conv_task, tmp_path):
    """The GNN with the shipped prior against random search (Ansor's RandomModel, the floor)
    on a task no training log holds, at the same budget: its median final latency over 3
    seeds is lower. Each run's model sees every measurement, and the curve ends at the best
    program its log holds."""
    from tvm_gnn_cost.core.checkpoint import SHIPPED_CHECKPOINT
    from tvm_gnn_cost.experiments.registry import choose

    assert conv_task.workload_key not in _training_workloads()
    finals = {"gnn-prior": [], "random": []}
    for seed in range(3):
        for name in finals:
            choice = choose(name, conv_task.target,
                            SHIPPED_CHECKPOINT if name == "gnn-prior" else None)
            model = choice.make(seed, [conv_task], 16, 8)
            log = str(tmp_path / f"{name}-{seed}.json")
            curve = tune([conv_task], model, 16, log, seed=seed, search_params=SMALL_SEARCH,
                         measures_per_round=8, first_round=choice.first_round(8))
            costs = [measured_cost(r) for r in auto_scheduler.RecordReader(log).read_lines()[1]]
            assert len(costs) == 16 and math.isclose(curve.final, min(costs), rel_tol=1e-4)
            if name == "gnn-prior":
                assert model.records_seen == 16  # update saw every measurement, failed too
            finals[name].append(curve.final)
    gnn, rand = (float(np.median(finals[m])) * 1e3 for m in finals)
    print(f"median final over 3 seeds: GNN {gnn:.4f} ms, random search {rand:.4f} ms; "
          f"each: {finals}")
    assert gnn < rand


def _training_workloads() -> set:
    """Workload keys of every task file in data/train (read as text: nothing registered)."""
    import glob
    import gzip
    import json
    import os

    root = os.path.join(os.path.dirname(__file__), "..", "..", "data", "train")
    keys = set()
    for path in glob.glob(os.path.join(root, "*.tasks.json.gz")):
        with gzip.open(path, "rt") as f:
            keys.update(t["workload_key"] for t in json.load(f)["tasks"])
    assert keys, f"no task file in {root}"
    return keys


def test_stock_xgb_warms_up_as_task_scheduler_builds_it(matmul_task, conv_task):
    """``xgb`` is XGBModel with the warm-up TaskScheduler gives it for sketch.xgb: one round
    of every task, the round cut to trials // tasks. Read from TVM's own construction, which
    a callback stops before anything is measured."""
    from tvm.auto_scheduler import task_scheduler

    from tvm_gnn_cost.experiments.registry import choose

    tasks = [matmul_task, conv_task]
    built = []

    class Recorded(auto_scheduler.XGBModel):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self.num_warmup_sample)

    class Stop(Exception):
        pass

    class StopAtOnce(task_scheduler.TaskSchedulerCallback):
        def pre_tune(self, ts, task_id):
            raise Stop

    original = task_scheduler.XGBModel
    task_scheduler.XGBModel = Recorded
    try:
        for trials in (64, 20):
            scheduler = auto_scheduler.TaskScheduler(tasks, callbacks=[StopAtOnce()])
            options = auto_scheduler.TuningOptions(num_measure_trials=trials,
                                                   num_measures_per_round=16)
            try:
                scheduler.tune(options, search_policy="sketch.xgb")
            except Stop:
                pass
            ours = choose("xgb").make(0, tasks, trials, measures_per_round=16)
            assert ours.num_warmup_sample == built[-1], trials
    finally:
        task_scheduler.XGBModel = original
    assert built == [32, 20]  # 2 tasks x 16, then 2 x (20 // 2)
    assert choose("xgb-w16").make(0, tasks, 64).num_warmup_sample == 16


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


def test_scheduler_weights_choose_the_tasks_and_leave_the_estimate_alone(matmul_task, conv_task,
                                                                          tmp_path):
    """``scheduler_weights`` (a build profile's, in ``tune --weigh-by-profile``) decide which
    task the gradient scheduler tunes next; the curve's estimate stays weights x best costs.
    The conv is the cheaper task, which the scheduler would not favour on its own."""
    log = str(tmp_path / "weighed.json")
    curve = tune([matmul_task, conv_task], GNNCostModel(seed=0), trials=16, log_file=log,
                 weights=[1, 1], search_params=SMALL_SEARCH, measures_per_round=4,
                 scheduler_weights=[1, 1000])
    inputs, results = auto_scheduler.RecordReader(log).read_lines()
    keys = [i.task.workload_key for i in inputs]
    # one round of each task first, then every round to the task counted 1000 times
    assert keys.count(conv_task.workload_key) == 12 and keys.count(matmul_task.workload_key) == 4
    best = {}
    for key, res in zip(keys, results):
        best[key] = min(best.get(key, np.inf), measured_cost(res))
    assert math.isclose(curve.final, sum(best.values()), rel_tol=1e-4)
