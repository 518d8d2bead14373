"""Measuring a round's programs with TVM's processes started for every batch, against
:func:`tvm_gnn_cost.ansor.workers.persistent_workers`: seconds a program, and whether the
measured costs agree.

The same programs of the demo tasks (``benchmarks/data/demo_tasks.json``) are built and run in
batches of twice the builder's parallelism, as Ansor's ``ProgramMeasurer`` does, with tuning's
runner settings, three times: TVM as it is, then with persistent workers, then TVM as it is
again. The first and third passes give the agreement of two measurements that differ only in
time (the ceiling); the second is compared with both.

    .venv/bin/python benchmarks/bench_measure.py --per-task 48 \
        --json benchmarks/results/measure/persistent-workers.json
"""
from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import time

import numpy as np
from tvm import auto_scheduler

from common import measured_records  # benchmarks/, beside this file
from tvm_gnn_cost.ansor.measure import TUNING
from tvm_gnn_cost.ansor.records import measured_cost
from tvm_gnn_cost.ansor.workers import persistent_workers
from tvm_gnn_cost.core.metrics import pairwise_accuracy


def measure_pass(inputs, persistent: bool) -> tuple:
    """Costs of ``inputs`` and the seconds it took, in ProgramMeasurer's batches."""
    builder = auto_scheduler.LocalBuilder()
    runner = TUNING.runner()
    batch = 2 * multiprocessing.cpu_count()  # LocalBuilder's n_parallel, doubled
    costs = []
    start = time.perf_counter()
    with persistent_workers() if persistent else contextlib.nullcontext():
        for i in range(0, len(inputs), batch):
            chunk = inputs[i:i + batch]
            results = runner.run(chunk, builder.build(chunk, verbose=0), verbose=0)
            costs += [measured_cost(r) for r in results]
    return np.array(costs), time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--per-task", type=int, default=48, help="programs of each demo task")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    inputs, _, tasks = measured_records()
    chosen = []
    for task in tasks:
        mine = [i for i in inputs if i.task.workload_key == task.workload_key][:args.per_task]
        chosen += [auto_scheduler.MeasureInput(task, i.state) for i in mine]
    groups = np.array([i.task.workload_key for i in chosen])
    passes = [("tvm", False), ("persistent", True), ("tvm again", False)]
    costs, seconds = {}, {}
    for name, persistent in passes:
        costs[name], seconds[name] = measure_pass(chosen, persistent)
        print(f"{name:>10}: {seconds[name]:6.1f} s, {seconds[name] / len(chosen):.3f} s a program")

    def agree(a, b):
        ok = np.isfinite(costs[a]) & np.isfinite(costs[b])
        return pairwise_accuracy(-costs[a][ok], -costs[b][ok], groups[ok])

    out = {
        "programs": len(chosen),
        "seconds_a_program": {k: v / len(chosen) for k, v in seconds.items()},
        "speedup": seconds["tvm"] / seconds["persistent"],
        "pairwise_agreement": {"tvm vs tvm again": agree("tvm", "tvm again"),
                               "persistent vs tvm": agree("persistent", "tvm"),
                               "persistent vs tvm again": agree("persistent", "tvm again")},
        "median_cost_ratio_persistent_over_tvm": float(np.nanmedian(costs["persistent"]
                                                                    / costs["tvm"])),
    }
    print(f"speedup {out['speedup']:.2f}x; pairwise agreement: " + ", ".join(
        f"{k} {v:.3f}" for k, v in out["pairwise_agreement"].items())
        + f"; median cost ratio persistent/tvm {out['median_cost_ratio_persistent_over_tvm']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
