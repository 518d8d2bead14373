"""How soon each tuning log comes near the best program any of them found, task by task.

For the ``--top`` tasks with the slowest best program (those that carry a network's estimated
latency) and each log, the task's own trials until its best measured program was within
``--within`` of the fastest program of that task in any of the logs; ``never`` if it did not get
there. Read with the search curves: a model that leads on the whole network can be level on the
tasks that decide when it reaches another model's final latency.

    .venv/bin/python benchmarks/task_progress.py benchmarks/results/default/NET/logs/*.json.gz
"""
from __future__ import annotations

import argparse
import os
from collections import defaultdict

import numpy as np

from tvm_gnn_cost.ansor.logs import read_log
from tvm_gnn_cost.ansor.records import measured_cost
from tvm_gnn_cost.core.labels import FAILED_COST


def task_costs(log: str) -> dict:
    """Measured costs (seconds, ``inf`` for a failure) of each task, in the log's order."""
    inputs, results, _ = read_log(log)
    costs = defaultdict(list)
    for inp, res in zip(inputs, results):
        c = measured_cost(res)
        costs[inp.task.workload_key].append(c if c < FAILED_COST else np.inf)
    return costs


def trials_within(costs, target: float):
    """The task's own trials until its best program costs at most ``target`` (None: never)."""
    hit = np.flatnonzero(np.minimum.accumulate(costs) <= target)
    return int(hit[0]) + 1 if len(hit) else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+", help="Ansor logs of the same network")
    ap.add_argument("--top", type=int, default=4, help="tasks with the slowest best program")
    ap.add_argument("--within", type=float, default=0.05,
                    help="how close to the best program (0.05: within 5%%)")
    args = ap.parse_args()
    runs = {os.path.basename(log).split(".")[0]: task_costs(log) for log in args.logs}
    best = defaultdict(lambda: np.inf)
    for costs in runs.values():
        for key, c in costs.items():
            best[key] = min(best[key], min(c))
    heavy = sorted(best, key=best.get, reverse=True)[:args.top]
    print(f"task's own trials until within {args.within:.0%} of the best program of any log")
    print("| task (best program) | " + " | ".join(runs) + " |")
    print("|---|" + "---:|" * len(runs))
    for i, key in enumerate(heavy):
        cells = []
        for costs in runs.values():
            n = trials_within(costs[key], best[key] * (1 + args.within)) if key in costs else None
            cells.append(f"{n} of {len(costs[key])}" if n else f"never of {len(costs.get(key, []))}")
        print(f"| {i} ({best[key] * 1e6:.1f} us) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
