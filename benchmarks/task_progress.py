"""How soon each tuning log comes near the best program any of them found, task by task.

For the ``--top`` tasks with the slowest best program (those that carry a network's estimated
latency; every task weighs 1 here, as the logs alone do not say how often a network runs it)
and each log, the task's own trials until its best measured program was within ``--within``
of the fastest program of that task in any of the logs; ``never`` if it did not get there.
``compare`` writes the same table, weighted, in its summary (``tvm_gnn_cost.progress``).

    .venv/bin/python benchmarks/task_progress.py benchmarks/results/default/NET/logs/*.json.gz
"""
from __future__ import annotations

import argparse
import os
import re

from tvm_gnn_cost.ansor.curves import task_costs
from tvm_gnn_cost.ansor.logs import iter_log
from tvm_gnn_cost.progress import TOP, WITHIN, heavy_task_progress, progress_table


def run_of(log: str):
    """``(model, seed)`` of a log named ``MODEL-seedN.json[.gz]``; the file name otherwise."""
    name = os.path.basename(log).split(".")[0]
    match = re.fullmatch(r"(.+)-seed(\d+)", name)
    return (match[1], int(match[2])) if match else (name, 0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+", help="Ansor logs of the same network")
    ap.add_argument("--top", type=int, default=TOP, help="tasks with the slowest best program")
    ap.add_argument("--within", type=float, default=WITHIN,
                    help="how close to the best program (0.05: within 5%%)")
    args = ap.parse_args()
    keys = list(dict.fromkeys(inp.task.workload_key for log in args.logs
                              for inp, _ in iter_log(log)))  # in order of first measurement
    costs = {run_of(log): task_costs(log, keys) for log in args.logs}
    names = {key: f"task {i}" for i, key in enumerate(keys)}
    rows = heavy_task_progress(costs, dict.fromkeys(keys, 1.0), names, args.top, args.within)
    print(progress_table(rows, args.within))


if __name__ == "__main__":
    main()
