"""The heavy tasks' progress in each run: which tasks are heavy, when a run came near the best
program, and a run that never did counted as slower than any (TVM-free)."""
import json
import math

from tvm_gnn_cost.progress import heavy_task_progress, progress_table, trials_within, write_progress

INF = math.inf


def test_trials_count_until_the_best_so_far_is_near_enough_and_failures_never_are():
    assert trials_within([3.0, INF, 1.04, 0.9], 1.05) == 3
    assert trials_within([INF, INF], 1.0) is None
    assert trials_within([], 1.0) is None


def test_heavy_tasks_are_ranked_by_weight_times_best_and_runs_told_apart(tmp_path):
    costs = {  # task a: 1 us x 10 runs a network; task b: 4 us x 1; task c: weight 0
        ("gnn", 0): {"a": [3e-6, 1e-6], "b": [5e-6, 4e-6, 4e-6], "c": [1.0]},
        ("gnn", 1): {"a": [1.2e-6, 1.1e-6], "b": [INF, 9e-6, 9e-6], "c": [1.0]},
        ("xgb", 0): {"a": [2e-6, 1.02e-6], "b": [4.1e-6], "c": [1.0]},
    }
    rows = heavy_task_progress(costs, {"a": 10.0, "b": 1.0, "c": 0.0}, {"a": "conv"}, top=2)
    assert [r.name for r in rows] == ["conv", "b"]  # c weighs nothing, however slow
    assert math.isclose(rows[0].share, 10 / 14) and rows[0].best == 1e-6
    assert rows[0].trials == {"gnn": [2, None], "xgb": [2]}  # 1.1 us is not within 5% of 1
    assert rows[1].trials == {"gnn": [2, None], "xgb": [1]}
    assert rows[1].measured == {"gnn": [3, 3], "xgb": [1]}
    table = progress_table(rows)
    assert "| conv | 71% | 1.0 | never of 2 (1/2) [2, never] | 2 of 2 (1/1) [2] |" in table
    write_progress(rows, str(tmp_path / "p.json"))
    assert json.load(open(tmp_path / "p.json"))[0]["trials"]["gnn"] == [2, None]
