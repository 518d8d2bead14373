"""Memory and update time of a long tuning job: 50,000 records through ``GNNCostModel.update``.

    .venv/bin/python benchmarks/bench_memory.py                      # default history cap
    .venv/bin/python benchmarks/bench_memory.py --max-history 20000  # the cap reached

The records are the 1,024 measured programs of ``benchmarks/data`` (real states
of two tasks, real costs, failures included), replayed round after round with
each cost jittered by up to +-10%, so every round is new data to the model.
Reports resident memory, history length, graph-cache size and update time as
the history grows, and the peak resident memory of the process.
"""
from __future__ import annotations

import argparse
import logging
import resource
import sys
import time

import numpy as np
import psutil
from tvm import auto_scheduler

from common import measured_records

from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.core.config import TrainerConfig


def jittered(results, rng):
    out = []
    for r in results:
        costs = [float(c.value) * rng.uniform(0.9, 1.1) if int(r.error_no) == 0 else 1e10
                 for c in r.costs]
        out.append(auto_scheduler.MeasureResult(costs, int(r.error_no), "", float(r.all_cost),
                                                float(r.timestamp)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=50_000)
    ap.add_argument("--round", type=int, default=1_000, help="records per update")
    ap.add_argument("--max-history", type=int, default=TrainerConfig().max_history)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)

    inputs, results, _ = measured_records()
    rng = np.random.default_rng(0)
    model = GNNCostModel(seed=0, trainer_config=TrainerConfig(max_history=args.max_history))
    proc = psutil.Process()
    rss0 = proc.memory_info().rss
    print(f"records {args.records}, {args.round} per update, max_history {args.max_history}; "
          f"dataset {len(inputs)} measured programs; RSS at start {rss0 / 2**20:.0f} MiB")
    print("| records | history | cached structures | RSS (MiB) | update (s) | fit steps |")
    print("|---:|---:|---:|---:|---:|---:|")
    done, times = 0, []
    while done < args.records:
        idx = [(done + j) % len(inputs) for j in range(args.round)]
        start = time.perf_counter()
        model.update([inputs[i] for i in idx], jittered([results[i] for i in idx], rng))
        times.append(time.perf_counter() - start)
        done += args.round
        if done % 10_000 == 0 or done == args.round:
            cached = sum(len(c.structures) for c in model.featurizer._tasks.values())
            fit = model.last_fit
            print(f"| {done} | {len(model.trainer.graphs)} | {cached} | "
                  f"{proc.memory_info().rss / 2**20:.0f} | {times[-1]:.2f} | "
                  f"{fit.steps if fit else 0} |", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    hist = sum(g.features.nbytes + g.src.nbytes + g.dst.nbytes for g in model.trainer.graphs)
    print(f"\npeak RSS {peak:.0f} MiB; history arrays {hist / 2**20:.1f} MiB for "
          f"{len(model.trainer.graphs)} graphs ({hist / max(1, len(model.trainer.graphs)):.0f} "
          f"bytes each); update time first/median/max {times[0]:.2f}/{np.median(times):.2f}/"
          f"{max(times):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
