"""Where a tuning job's time goes: measuring (TVM's own count), the cost model's predict and
update, and the rest (the search itself).

    .venv/bin/python benchmarks/profile_tuning.py \
        --network tvm_gnn_cost.workloads.corpus.transformer:gpt_decoder_512 --model gnn \
        --trials 160 --log /tmp/profile.json

``--search default`` profiles Ansor's own SketchPolicy size (population 2,048, 4 iterations)
instead of the small search the benchmarks run.

The search runs with ``verbose=1``, so TVM prints each round's "Time elapsed for measurement"
to stdout; those lines are summed here (stdout is captured through a file descriptor, as TVM
prints from C++ too).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import tempfile
import time

import tvm

from tvm_gnn_cost.ansor.tuning import SMALL_SEARCH, tune
from tvm_gnn_cost.experiments.registry import choose
from tvm_gnn_cost.workloads.networks import load_workload
from tvm_gnn_cost.workloads.targets import host_target


def timed(obj, name: str, seconds: dict, calls: collections.Counter) -> None:
    """Count the calls of ``obj.name`` and the seconds they take."""
    f = getattr(obj, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return f(*args, **kwargs)
        finally:
            seconds[name] += time.perf_counter() - start
            calls[name] += 1

    setattr(obj, name, wrapper)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--network", required=True)
    p.add_argument("--model", default="gnn", help="gnn (the default model) or xgb")
    p.add_argument("--trials", type=int, default=160)
    p.add_argument("--log", required=True, help="a new Ansor log")
    p.add_argument("--search", choices=["small", "default"], default="small",
                   help="SketchPolicy size: small (population 256, 2 iterations) or Ansor's own")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    if os.path.exists(args.log):
        sys.exit(f"{args.log} exists: give a new log, a resumed search profiles something else")
    target = tvm.target.Target(host_target())
    workload = load_workload(args.network, target)
    choice = choose(args.model, target)
    model = choice.make(0, workload.tasks, args.trials, 16)
    seconds: dict = collections.defaultdict(float)
    calls: collections.Counter = collections.Counter()
    for name in ("predict", "update"):
        timed(model, name, seconds, calls)

    captured = tempfile.TemporaryFile(mode="w+")
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(captured.fileno(), 1)
    start = time.perf_counter()
    try:
        tune(workload.tasks, model, args.trials, args.log, workload.weights, seed=0,
             search_params=SMALL_SEARCH if args.search == "small" else None, verbose=1)
    finally:
        total = time.perf_counter() - start
        sys.stdout.flush()
        os.dup2(saved, 1)
    captured.seek(0)
    measuring = sum(float(x) for x in
                    re.findall(r"Time elapsed for measurement: ([0-9.]+) s", captured.read()))
    out = {"network": args.network, "model": args.model, "search": args.search,
           "trials": args.trials,
           "tasks": len(workload.tasks), "seconds": round(total, 1),
           "measuring": round(measuring, 1), "predict": round(seconds["predict"], 1),
           "update": round(seconds["update"], 1),
           "rest": round(total - measuring - seconds["predict"] - seconds["update"], 1),
           "seconds_a_trial": round(total / args.trials, 3)}
    print(" ".join(f"{k} {v}" for k, v in out.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
